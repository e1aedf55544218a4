/*
 * units — each server unit driven through its unit_ops alone (policy/units/unit.h), as
 * MIG and vGPU drive them: requests are put into the tenants' queues by hand, the
 * unit's timers are taken out of the engine heap into a list of the test's own and
 * delivered in (time, seq) order, so every schedule below is computed by hand. Also
 * the event-target encoding, and "assign" reading the same in every policy.
 */
#include "core/engine.h"
#include "core/scenario.h"
#include "policy/units/mpsunit.h"
#include "policy/units/plainunit.h"
#include "policy/units/tsunit.h"
#include "policy/units/unit.h"
#include "policy/vgpu.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EV_TEST_UNIT = EV_POLICY };

/* Tenants A (compute, 10 GB), B (compute, 10 GB), C (compute, 70 GB) and D (compute, 10 GB,
 * one request keeps half the SMs busy: max_sm_fraction 0.5); A and B hold no context state, so
 * a time-slice switch between them costs exactly the unit's switch time. The strategy only
 * makes the scenario valid: the harness never lets the policy see anything. */
static const char scenario_text[] =
    "{\"gpu\": \"A100-80GB\", \"gpus\": 4, \"stop\": {\"requests\": 100}, \"tenants\": ["
    "{\"name\": \"A\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, \"work\": "
    "{\"dist\": \"exponential\", \"mean_ms\": 1, \"context_state_mb\": 0}, \"class\": "
    "\"compute\", \"memory_gb\": 10},"
    "{\"name\": \"B\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, \"work\": "
    "{\"dist\": \"exponential\", \"mean_ms\": 1, \"context_state_mb\": 0}, \"class\": "
    "\"compute\", \"memory_gb\": 10},"
    "{\"name\": \"C\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, \"work\": "
    "{\"dist\": \"exponential\", \"mean_ms\": 1}, \"class\": \"compute\", \"memory_gb\": 70},"
    "{\"name\": \"D\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, \"work\": "
    "{\"dist\": \"exponential\", \"mean_ms\": 1, \"max_sm_fraction\": 0.5}, \"class\": "
    "\"compute\", \"memory_gb\": 10}],"
    " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}";

enum { A, B, C, D };

struct harness {
    struct scenario sc;
    struct sim s;
    struct unit u;
    struct event *ev; /* the unit's pending timers, taken out of the engine heap */
    size_t n_ev, cap_ev;
};

static void h_init(struct harness *h)
{
    memset(h, 0, sizeof *h);
    tu_load_text(scenario_text, &h->sc);
    eng_init(&h->s, &h->sc, &h->sc.strategies[0], 0);
    h->s.t_warm = 0; /* everything is measured, nothing clipped */
    for (int i = 0; i < h->s.n_ten; i++) {
        struct rqueue *q = &h->s.ten[i].q;
        free(q->buf);
        q->cap = 64;
        q->buf = ss_xcalloc(q->cap, sizeof *q->buf);
        q->head = q->n = 0;
    }
}

static void h_free(struct harness *h)
{
    if (h->u.ops)
        h->u.ops->destroy(h->u.self);
    free(h->ev);
    eng_free(&h->s);
    scn_free(&h->sc);
}

/* Moves what the unit scheduled from the engine heap to the harness's list. */
static void h_collect(struct harness *h)
{
    for (size_t i = 0; i < h->s.heap_n; i++) {
        if (h->n_ev == h->cap_ev) {
            h->cap_ev = h->cap_ev ? 2 * h->cap_ev : 16;
            h->ev = ss_xrealloc(h->ev, h->cap_ev * sizeof *h->ev);
        }
        h->ev[h->n_ev++] = h->s.heap[i];
    }
    h->s.heap_n = 0;
}

/* Delivers the unit's timers in (time, seq) order up to time t, then sets now = t. */
static void h_run_until(struct harness *h, double t)
{
    h_collect(h);
    for (;;) {
        size_t best = h->n_ev;
        for (size_t i = 0; i < h->n_ev; i++)
            if (h->ev[i].t <= t &&
                (best == h->n_ev || h->ev[i].t < h->ev[best].t ||
                 (h->ev[i].t == h->ev[best].t && h->ev[i].seq < h->ev[best].seq)))
                best = i;
        if (best == h->n_ev)
            break;
        struct event e = h->ev[best];
        h->ev[best] = h->ev[--h->n_ev];
        CU_ASSERT_EQUAL(e.kind, EV_TEST_UNIT);
        CU_ASSERT_EQUAL(unit_ev_id(&e), 7);
        h->s.now = e.t;
        h->u.ops->event(&h->s, h->u.self, &e);
        h_collect(h);
    }
    h->s.now = t;
}

/* A request of `work` seconds of tenant i arrives now and is offered to client k. */
static void h_put(struct harness *h, int i, double work, int k)
{
    struct tenant_rt *t = &h->s.ten[i];
    struct request r = {h->s.now, work, work, -1.0, i, 1, 0, 0};
    t->q.buf[(t->q.head + t->q.n) & (t->q.cap - 1)] = r;
    t->q.n++;
    t->st.arrived++;
    t->in_system++;
    h->s.in_system++;
    h->u.ops->arrive(&h->s, h->u.self, k);
}

static const struct tenant_stats *st(const struct harness *h, int i)
{
    return &h->s.ten[i].st;
}

#define MS 1e-3
#define CLOSE(a, b) CU_ASSERT_DOUBLE_EQUAL((a), (b), 1e-12)

/* A fresh harness whose unit is time-slicing over clients A and B at speed 1: slice 1 ms,
 * switch 0.1 ms, the slice given up when a context's queue empties, the whole GPU, no OOM
 * model. */
static struct ts_unit *h_init_ts(struct harness *h)
{
    h_init(h);
    const int ten[] = {A, B};
    struct ts_unit *u = ss_xmalloc(sizeof *u);
    ts_unit_init(u, &h->sc, unit_addr(EV_TEST_UNIT, 7), 2, ten, 1.0, 1.0, NULL, 1 * MS, 0.1 * MS, 1,
                 1.0, 0, 80);
    h->u = (struct unit){&ts_unit_ops, u};
    return u;
}

/* test_timeslice's hand-computed case (A and B, 2.5 ms each at t = 0, slice 1 ms, switch
 * 0.1 ms) on a unit whose clients ka and kb are A and B: A completes at 4.9 ms, B at 5.5 ms,
 * 5 switches, busy 5 ms of 5.5. Finishes the unit. */
static void check_ab_schedule(struct harness *h, int ka, int kb)
{
    h_put(h, A, 2.5 * MS, ka);
    h_put(h, B, 2.5 * MS, kb);
    h_run_until(h, 10 * MS);
    CLOSE(st(h, A)->sum_latency_s, 4.9 * MS);
    CLOSE(st(h, B)->sum_latency_s, 5.5 * MS);
    h->u.ops->finish(&h->s, h->u.self);
    CLOSE(h->u.ops->busy_s(h->u.self), 5.0 * MS);
    CLOSE(h->s.switch_acc, 0.5 * MS);
}

static void test_event_target(void)
{
    struct event e = {0};
    e.target = unit_ev_target(12345, 3);
    CU_ASSERT_EQUAL(unit_ev_id(&e), 12345);
    CU_ASSERT_EQUAL(unit_ev_timer(&e), 3);
    e.target = unit_ev_target(0, 0);
    CU_ASSERT_EQUAL(unit_ev_id(&e), 0);
    CU_ASSERT_EQUAL(unit_ev_timer(&e), 0);
    struct unit_addr a = unit_addr(EV_TEST_UNIT, (int)(UINT32_MAX >> UNIT_TIMER_BITS));
    e.target = unit_ev_target(a.id, UNIT_TIMERS - 1);
    CU_ASSERT_EQUAL(unit_ev_id(&e), UINT32_MAX >> UNIT_TIMER_BITS);
    CU_ASSERT_EQUAL(unit_ev_timer(&e), UNIT_TIMERS - 1);
}

static void test_plain_fifo_over_clients(void)
{
    /* Clients D and B on a unit with half the SMs and half the bandwidth: D (occupancy 0.5)
     * runs at speed 1 there, B (occupancy 1) at 0.5 (the profile's compute exponent is 1).
     * D's 2 ms request runs [0, 2]; B's 1 ms (queued at 0.5) is older than D's second
     * (queued at 1), so it runs next, [2, 4] at half speed; D's second runs [4, 5]. The unit
     * is half the GPU and both keep all its SMs busy. */
    struct harness h;
    h_init(&h);
    CU_ASSERT_DOUBLE_EQUAL_FATAL(h.sc.gpu.rate_compute_exponent, 1.0, 0);
    const int ten[] = {D, B};
    h.u = pu_new(&h.sc, unit_addr(EV_TEST_UNIT, 7), 2, ten, 0.5, 0.5, 0.5, 40);
    h_put(&h, D, 2 * MS, 0);
    h_run_until(&h, 0.5 * MS);
    h_put(&h, B, 1 * MS, 1);
    h_run_until(&h, 1 * MS);
    h_put(&h, D, 1 * MS, 0);
    h_run_until(&h, 10 * MS);
    CU_ASSERT_EQUAL(st(&h, D)->completed, 2);
    CU_ASSERT_EQUAL(st(&h, B)->completed, 1);
    CLOSE(st(&h, D)->sum_latency_s, 2 * MS + 4 * MS);
    CLOSE(st(&h, B)->sum_latency_s, 3.5 * MS);
    CLOSE(st(&h, B)->sum_wait_s, 1.5 * MS);
    h.u.ops->finish(&h.s, h.u.self);
    CLOSE(h.u.ops->busy_s(h.u.self), 5 * MS);
    CLOSE(h.s.busy_acc, 0.5 * 5 * MS);
    CU_ASSERT_EQUAL(h.s.in_system, 0);
    h_free(&h);
}

static void test_plain_fault_memory_abort(void)
{
    /* Clients A and C (70 GB) on a 40 GB unit. A's first request runs [0, 1]; at 1 ms
     * C's (queued at 0) is the oldest but cannot fit: it fails when it would start and
     * A's second (queued at 0.5) starts at once. A fault of C then hits nothing; a
     * fault of A at 1.5 ms fails A's request and A's third starts at once; the
     * teardown at 2 ms fails that one too and the unit takes nothing more. */
    struct harness h;
    h_init(&h);
    const int ten[] = {A, C};
    h.u = pu_new(&h.sc, unit_addr(EV_TEST_UNIT, 7), 2, ten, 1.0, 1.0, 1.0, 40);
    h_put(&h, A, 1 * MS, 0);
    h_put(&h, C, 1 * MS, 1);
    h_run_until(&h, 0.5 * MS);
    h_put(&h, A, 3 * MS, 0);
    h_run_until(&h, 1 * MS);
    CU_ASSERT_EQUAL(st(&h, A)->completed, 1);
    CU_ASSERT_EQUAL(st(&h, C)->failed, 1);
    CU_ASSERT_EQUAL(h.s.ten[A].q.n, 0);
    h_put(&h, A, 1 * MS, 0);
    h_run_until(&h, 1.5 * MS);
    CU_ASSERT_EQUAL(h.u.ops->fault(&h.s, h.u.self, 1), 0);
    CU_ASSERT_EQUAL(h.u.ops->fault(&h.s, h.u.self, 0), 1);
    CU_ASSERT_EQUAL(st(&h, A)->failed, 1);
    h_run_until(&h, 2 * MS);
    h.u.ops->abort(&h.s, h.u.self);
    CU_ASSERT_EQUAL(st(&h, A)->failed, 2);
    h_put(&h, A, 1 * MS, 0); /* a torn-down unit takes nothing */
    h_run_until(&h, 10 * MS);
    CU_ASSERT_EQUAL(st(&h, A)->completed, 1);
    CU_ASSERT_EQUAL(h.s.ten[A].q.n, 1);
    CLOSE(h.u.ops->busy_s(h.u.self), 2 * MS);
    h_free(&h);
}

static void test_timeslice_through_ops(void)
{
    struct harness h;
    struct ts_unit *u = h_init_ts(&h);
    CU_ASSERT_EQUAL(ts_unit_ops.rank, UNIT_RANK_TIMESLICE);
    check_ab_schedule(&h, 0, 1);
    CLOSE(st(&h, B)->sum_wait_s, 1.1 * MS);
    CU_ASSERT_EQUAL(u->switches, 5);
    h_free(&h);
}

static void test_timeslice_fault_and_abort(void)
{
    /* A runs [0, 1]; a fault of B (queued, nothing in service) hits nothing; at 0.5 ms
     * a fault of A fails its request and B starts after the switch [0.5, 0.6]. The
     * teardown at 1 ms fails B's request in service. */
    struct harness h;
    struct ts_unit *u = h_init_ts(&h);
    h_put(&h, A, 3 * MS, 0);
    h_put(&h, B, 3 * MS, 1);
    h_run_until(&h, 0.5 * MS);
    CU_ASSERT_EQUAL(h.u.ops->fault(&h.s, h.u.self, 1), 0);
    CU_ASSERT_EQUAL(h.u.ops->fault(&h.s, h.u.self, 0), 1);
    h_run_until(&h, 1 * MS);
    CU_ASSERT_EQUAL(u->state, TS_RUN);
    CU_ASSERT_EQUAL(u->cur, 1);
    h.u.ops->abort(&h.s, h.u.self);
    CU_ASSERT_EQUAL(st(&h, A)->failed, 1);
    CU_ASSERT_EQUAL(st(&h, B)->failed, 1);
    CU_ASSERT_EQUAL(h.s.in_system, 0);
    CLOSE(h.u.ops->busy_s(h.u.self), 0.5 * MS + 0.4 * MS);
    CLOSE(h.s.switch_acc, 0.1 * MS);
    h_free(&h);
}

/*
 * A switch folded into the next context's start (ts_fold_switches) schedules the same as a
 * switch with an event at its end, also when a fault or a teardown comes during the switch;
 * each case runs without folding and with it.
 */
static void test_timeslice_folded_switch(void)
{
    for (int fold = 0; fold <= 1; fold++) {
        struct harness h;
        struct ts_unit *u = h_init_ts(&h);
        if (fold)
            ts_fold_switches(u, &h.sc);
        CU_ASSERT_EQUAL(u->fold, fold);
        check_ab_schedule(&h, 0, 1);
        CLOSE(st(&h, B)->sum_wait_s, 1.1 * MS);
        CU_ASSERT_EQUAL(u->switches, 5);
        h_free(&h);

        /* A runs [0, 1], then the switch [1, 1.1] to B. At 1.05 ms B has nothing in service
         * yet (a fault of B misses), A's preempted request fails with A's fault; B then runs
         * [1.1, 4.1] alone, its wait 1.1 ms. */
        u = h_init_ts(&h);
        if (fold)
            ts_fold_switches(u, &h.sc);
        h_put(&h, A, 3 * MS, 0);
        h_put(&h, B, 3 * MS, 1);
        h_run_until(&h, 1.05 * MS);
        CU_ASSERT_EQUAL(h.u.ops->fault(&h.s, h.u.self, 1), 0);
        CU_ASSERT_EQUAL(h.u.ops->fault(&h.s, h.u.self, 0), 1);
        h_run_until(&h, 10 * MS);
        CU_ASSERT_EQUAL(st(&h, A)->failed, 1);
        CU_ASSERT_EQUAL(st(&h, B)->failed, 0);
        CLOSE(st(&h, B)->sum_latency_s, 4.1 * MS);
        CLOSE(st(&h, B)->sum_wait_s, 1.1 * MS);
        h.u.ops->finish(&h.s, h.u.self);
        CLOSE(h.u.ops->busy_s(h.u.self), 4 * MS);
        CLOSE(h.s.switch_acc, 0.1 * MS);
        h_free(&h);

        /* The same up to 1.05 ms, then a teardown: A's preempted request fails, B's is still
         * waiting (back at the head of its queue, never served), the switch so far booked. */
        u = h_init_ts(&h);
        if (fold)
            ts_fold_switches(u, &h.sc);
        h_put(&h, A, 3 * MS, 0);
        h_put(&h, B, 3 * MS, 1);
        h_run_until(&h, 1.05 * MS);
        h.u.ops->abort(&h.s, h.u.self);
        CU_ASSERT_EQUAL(st(&h, A)->failed, 1);
        CU_ASSERT_EQUAL(st(&h, B)->failed, 0);
        CU_ASSERT_EQUAL_FATAL(h.s.ten[B].q.n, 1);
        CU_ASSERT(h.s.ten[B].q.buf[h.s.ten[B].q.head].start < 0);
        CLOSE(h.u.ops->busy_s(h.u.self), 1 * MS);
        CLOSE(h.s.switch_acc, 0.05 * MS);
        h_free(&h);
    }
}

/* A deterministic stream for the random schedule below (Knuth's MMIX LCG, top bits). */
static double lcg_u01(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*x >> 11) * 0x1p-53;
}

/*
 * The round robin takes its candidates from the unit's bits of contexts with work (tsunit.h):
 * it finds what a scan of every context finds as long as every context with work has its bit.
 * Checked after every step of random schedules over four contexts: arrivals, faults, card
 * resets, with OOM kills and restarts (the four tenants' 100 GB over-commit 80) or with folded
 * switches, the slice given up or held; no request may vanish either.
 */
static void test_timeslice_work_bits(void)
{
    for (int mode = 0; mode < 4; mode++) {
        int oom = mode & 1, release = mode >> 1;
        struct harness h;
        h_init(&h);
        const int ten[] = {A, B, C, D};
        const double mem[] = {10, 10, 70, 10};
        for (int i = 0; i < 4; i++)
            h.sc.tenants[i].restart_s = 0.3 * MS;
        struct ts_unit *u = ss_xmalloc(sizeof *u);
        ts_unit_init(u, &h.sc, unit_addr(EV_TEST_UNIT, 7), 4, ten, 1.0, 1.0, oom ? mem : NULL,
                     1 * MS, 0.05 * MS, release, 1.0, oom, 80);
        if (!oom)
            ts_fold_switches(u, &h.sc);
        CU_ASSERT_EQUAL(u->fold, !oom);
        h.u = (struct unit){&ts_unit_ops, u};
        uint64_t x = 12345 + (uint64_t)mode;
        int bad = 0;
        long ooms = 0;
        for (int step = 0; step < 4000; step++) {
            double r = lcg_u01(&x);
            int k = (int)(lcg_u01(&x) * 4);
            if (r < 0.5 && h.s.ten[ten[k]].q.n < 60) {
                h_put(&h, ten[k], (0.05 + 2 * lcg_u01(&x)) * MS, k);
            } else if (r < 0.56) {
                h.u.ops->fault(&h.s, h.u.self, k);
            } else if (r < 0.565) { /* a card reset, as policy_timeslice does one */
                h.u.ops->abort(&h.s, h.u.self);
                h.u.ops->resume(&h.s, h.u.self);
                for (int c = 0; c < 4; c++)
                    if (h.s.ten[ten[c]].q.n > 0)
                        h.u.ops->arrive(&h.s, h.u.self, c);
            } else {
                h_run_until(&h, h.s.now + lcg_u01(&x) * 0.4 * MS);
            }
            bad += !ts_work_covered(&h.s, u);
            ooms = u->ooms;
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(u->switches > 100);
        CU_ASSERT(oom ? ooms > 10 : ooms == 0);
        /* Drain. Without OOM everything left completes; with it, a context whose restart does
         * not fit beside the others that are up stays down and keeps its queue. */
        h_run_until(&h, h.s.now + 1.0);
        CU_ASSERT(ts_work_covered(&h.s, u));
        long arrived = 0, ended = 0;
        for (int i = 0; i < 4; i++) {
            arrived += st(&h, i)->arrived;
            ended += st(&h, i)->completed + st(&h, i)->failed;
            CU_ASSERT(oom || h.s.ten[i].q.n == 0);
        }
        CU_ASSERT_EQUAL(arrived, ended + h.s.in_system);
        CU_ASSERT(oom || h.s.in_system == 0);
        h_free(&h);
    }
}

static void test_mps_through_ops(void)
{
    /* Two compute clients at thread_pct 100 on a whole GPU. A alone at speed 1 from 0;
     * B joins at 0.5 ms: each gets half the SMs, speed v = 0.5^e (the profile's
     * compute exponent). A's remaining 0.5 ms ends at 0.5 + 0.5/v; B then has 0.5 ms
     * left at speed 1. A fault of A while B waits on recovery hits nothing. */
    struct harness h;
    h_init(&h);
    const int ten[] = {A, B};
    const double cap[] = {1.0, 1.0};
    struct mu_unit *u = ss_xmalloc(sizeof *u);
    mu_init(u, &h.sc, unit_addr(EV_TEST_UNIT, 7), 2, ten, cap, 1.0, 1.0, 1.0, 0, 5 * MS);
    h.u = (struct unit){&mu_unit_ops, u};
    double v = pow(0.5, h.sc.gpu.rate_compute_exponent);
    h_put(&h, A, 1 * MS, 0);
    h_run_until(&h, 0.5 * MS);
    h_put(&h, B, 1 * MS, 1);
    h_run_until(&h, 20 * MS);
    double a_done = 0.5 * MS + 0.5 * MS / v;
    CU_ASSERT_DOUBLE_EQUAL(st(&h, A)->sum_latency_s, a_done, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(st(&h, B)->sum_latency_s, a_done + 0.5 * MS - 0.5 * MS, 1e-12);
    /* A fault of a busy client fails every client's request and downs the unit for
     * recovery_s; a request arriving meanwhile waits for the recovery. */
    h_put(&h, A, 1 * MS, 0);
    h_put(&h, B, 1 * MS, 1);
    h_run_until(&h, 20.5 * MS);
    CU_ASSERT_EQUAL(h.u.ops->fault(&h.s, h.u.self, 1), 1);
    CU_ASSERT_EQUAL(st(&h, A)->failed + st(&h, B)->failed, 2);
    h_put(&h, A, 1 * MS, 0);
    CU_ASSERT_EQUAL(h.u.ops->fault(&h.s, h.u.self, 0), 0);
    h_run_until(&h, 40 * MS);
    CU_ASSERT_EQUAL(st(&h, A)->completed, 2);
    CU_ASSERT_DOUBLE_EQUAL(st(&h, A)->sum_latency_s, a_done + (25.5 - 20.5) * MS + 1 * MS, 1e-12);
    CU_ASSERT_EQUAL(u->faults, 1);
    h.u.ops->finish(&h.s, h.u.self);
    h_free(&h);
}

static void test_vgpu_time_through_ops(void)
{
    /* Best-effort vGPU with one tenant per VM, slice 1 ms, switch 0.1 ms: the same
     * schedule as the time-slicing unit's (A at 4.9 ms, B at 5.5 ms, 5 switches), with the
     * hypervisor's cost set to 0 here (test_policy_vgpu and test_vgpu_types carry it). */
    struct harness h;
    h_init(&h);
    h.sc.gpu.vgpu_overhead_compute = 0;
    int ta[] = {A}, tb[] = {B};
    const struct vgpu_type *t20 = cal_vgpu_type(&h.sc.gpu, "A100DX-20C");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t20);
    struct vg_def vm[2] = {{20, 1, 1, ta, NULL, t20, 0, 0}, {20, 1, 1, tb, NULL, t20, 0, 0}};
    int vm_of[] = {0, 1, -1};
    struct vgpu_cfg c = {&vgt_backing, 2, vm, SCH_BEST_EFFORT, 1 * MS, 0.1 * MS, vm_of};
    CU_ASSERT_EQUAL(vgt_backing.units_per_gpu(&c), 1);
    h.u = vgt_backing.build(&h.sc, &c, 0, unit_addr(EV_TEST_UNIT, 7));
    int k, client;
    vgt_backing.slot(&c, B, &k, &client);
    CU_ASSERT_EQUAL(k, 0);
    CU_ASSERT_EQUAL(client, B);
    check_ab_schedule(&h, A, B);
    cJSON *d = cJSON_CreateObject();
    vgt_backing.details(&c, &h.u, 1, d);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(d, "switches")->valueint, 5);
    cJSON_Delete(d);
    h_free(&h);
}

/* Loading two tenants on two GPUs with this one strategy fails with msg in the error. */
static void expect_assign_error(const char *strategy, const char *msg)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"gpu\": \"A100-80GB\", \"gpus\": 2, \"stop\": {\"requests\": 10}, \"tenants\": ["
             "{\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}},"
             "{\"name\": \"b\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}], \"strategies\": [%s]}",
             strategy);
    tu_expect_load_error(text, msg);
}

static void test_assign_same_words(void)
{
    /* The same partial assignment reads the same whatever the policy. */
    static const char *const partial[] = {
        "{\"name\": \"s\", \"kind\": \"timeslice\", \"assign\": {\"a\": 0}}",
        "{\"name\": \"s\", \"kind\": \"mps\", \"assign\": {\"a\": 0}}",
        "{\"name\": \"s\", \"kind\": \"exclusive\", \"assign\": {\"a\": [0]}}",
    };
    for (int i = 0; i < 3; i++)
        expect_assign_error(partial[i], "strategies[0].assign: 1 of 2 tenants are assigned "
                                        "(assign all tenants or none): \"b\" is not");
    expect_assign_error("{\"name\": \"s\", \"kind\": \"timeslice\", \"assign\": {\"a\": 0, "
                        "\"a\": 1}}",
                        "1 of 2 tenants are assigned");
    expect_assign_error("{\"name\": \"s\", \"kind\": \"mps\", \"assign\": {\"a\": 2, \"b\": 0}}",
                        "strategies[0].assign.a: expected a GPU index in [0, 1]");
    expect_assign_error("{\"name\": \"s\", \"kind\": \"exclusive\", \"assign\": {\"a\": [0, 2], "
                        "\"b\": [1]}}",
                        "strategies[0].assign.a[1]: expected a GPU index in [0, 1]");
    expect_assign_error("{\"name\": \"s\", \"kind\": \"exclusive\", \"assign\": {\"a\": [0], "
                        "\"b\": [0]}}",
                        "strategies[0].assign.b[0]: GPU 0 is already assigned to \"a\"");
    expect_assign_error("{\"name\": \"s\", \"kind\": \"timeslice\", \"assign\": {\"zz\": 0}}",
                        "strategies[0].assign.zz: no tenant named \"zz\"");
}

void test_units_register(void)
{
    static const struct tu_test t[] = {
        {"event target: unit id and timer round trip", test_event_target},
        {"plain unit: FIFO over clients at their speeds (exact)", test_plain_fifo_over_clients},
        {"plain unit: memory, faults, teardown", test_plain_fault_memory_abort},
        {"time-slicing unit through its ops (exact)", test_timeslice_through_ops},
        {"time-slicing unit: fault and teardown", test_timeslice_fault_and_abort},
        {"time-slicing: a folded switch schedules as one with an end event",
         test_timeslice_folded_switch},
        {"time-slicing: every context with work has its bit (random schedules)",
         test_timeslice_work_bits},
        {"MPS unit through its ops: rate change, fault, recovery", test_mps_through_ops},
        {"time-sliced vGPU unit through its ops (exact)", test_vgpu_time_through_ops},
        {"\"assign\" reads the same in timeslice, mps and exclusive", test_assign_same_words},
        {NULL, NULL},
    };
    tu_add_suite("units", t);
}
