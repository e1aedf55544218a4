/*
 * engine (core/engine.c): common random numbers across strategies (the same arrivals and
 * work whatever the policy does with them) and the request ledger, which balances even
 * with requests left in flight at the stop, and the event heap's order when handlers
 * schedule (the first event a handler schedules takes the popped one's place at the top).
 */
#include "core/engine.h"
#include "core/policy.h"
#include "core/run.h"
#include "core/scenario.h"
#include "base/rng.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_common_random_numbers(void)
{
    /* Two strategies that differ only in GPU numbering must give identical numbers. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("engine/two-tenants.json"), &sc, &r);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < TM_N; k++) {
            double a = res_t(&r.s[0], i)[k], b = res_t(&r.s[1], i)[k];
            CU_ASSERT(a == b || (isnan(a) && isnan(b)));
        }
    /* Deterministic tenant b alone on a GPU: every latency is exactly 3 ms. */
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 1)[TM_LAT_P99], 3e-3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 1)[TM_LAT_P50], 3e-3, 1e-12);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_conservation_without_drain(void)
{
    /* Overloaded tenant, stop without draining: requests are left in flight and the
     * ledger still balances. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("engine/conservation-no-drain.json"), &sc, &r);
    const double *t = r.s[0].t;
    CU_ASSERT(t[TM_IN_FLIGHT] > 0);
    CU_ASSERT(t[TM_REJECTED] > 0);
    CU_ASSERT_EQUAL(t[TM_ARRIVED],
                    t[TM_COMPLETED] + t[TM_REJECTED] + t[TM_FAILED] + t[TM_IN_FLIGHT]);
    CU_ASSERT(t[TM_IN_FLIGHT] <= 101);
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * The measurement window's completions, at its edges (hand-computed): one GPU, arrivals every
 * 0.25 s from 0.25 s, 0.5 s of work each, so request k completes at 0.25 + 0.5k s. The warm-up
 * is 2 requests: the window opens at the third arrival, 0.75 s, just after request 1's
 * completion at that instant (scheduled earlier, so it runs first, before the window is known:
 * not counted). The stop at 2.25 s is an event scheduled at the start, so it runs before request
 * 4's completion at 2.25 s, which counts (t <= t_stop) when the run drains and does not happen
 * when it does not. Throughput: 3 completions (1.25, 1.75, 2.25 s) in the 1.5 s window with the
 * drain, 2 without (the window counts every request, measured or not).
 */
static void test_window_edges(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("engine/window-edges.json"), &sc, &r);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].t[TM_THROUGHPUT], 3 / 1.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].t[TM_COMPLETED], 6, 0); /* requests 3-8, drained */
    run_result_free(&r);
    scn_free(&sc);
    tu_run_file(tu_fixture("engine/window-edges-no-drain.json"), &sc, &r);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].t[TM_THROUGHPUT], 2 / 1.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].t[TM_COMPLETED], 1, 0); /* request 3 (2 is the warm-up's) */
    run_result_free(&r);
    scn_free(&sc);
}

/* A policy that only schedules: every event it receives must be the earliest pending one in
 * (time, seq) order, against a list of what it scheduled; each handler schedules 0 to 3 more
 * (some at the same time, some at now), so the top's replacement, the plain insertions after
 * it and the removal when nothing is scheduled all run. */
#define ORDER_EVENTS 20000
struct order_st {
    struct rng r;
    double t[ORDER_EVENTS];
    uint64_t seq[ORDER_EVENTS];
    int n, scheduled, popped, bad;
};

static void order_schedule(struct sim *s, struct order_st *o)
{
    if (o->scheduled == ORDER_EVENTS)
        return;
    double u = rng_uniform(&o->r), t = s->now;
    if (u < 0.6) /* ties (at now, and on a coarse grid) as well as distinct times */
        t += u < 0.2 ? 0 : floor(rng_uniform(&o->r) * 8) * 0.25;
    else
        t += rng_uniform(&o->r);
    o->t[o->n] = t;
    o->seq[o->n++] = s->seq;
    o->scheduled++;
    eng_schedule(s, t, EV_POLICY, 0, 0, 0);
}

static void *order_init(struct sim *s, const void *cfg)
{
    (void)cfg;
    struct order_st *o = ss_xcalloc(1, sizeof *o);
    rng_seed(&o->r, 24);
    for (int k = 0; k < 5; k++)
        order_schedule(s, o);
    return o;
}

static void order_event(struct sim *s, void *st, const struct event *ev)
{
    struct order_st *o = st;
    int best = 0;
    for (int k = 1; k < o->n; k++)
        if (o->t[k] < o->t[best] || (o->t[k] == o->t[best] && o->seq[k] < o->seq[best]))
            best = k;
    o->bad += o->n == 0 || ev->t != o->t[best] || ev->seq != o->seq[best];
    o->popped++;
    if (o->n > 0) {
        o->t[best] = o->t[--o->n];
        o->seq[best] = o->seq[o->n];
    }
    int more = (int)(rng_uniform(&o->r) * 4);
    for (int k = 0; k < more; k++)
        order_schedule(s, o);
}

static void order_nothing(struct sim *s, void *st, int tenant)
{
    (void)s, (void)st, (void)tenant;
}

static void order_finish(struct sim *s, void *st, struct strategy_result *res)
{
    (void)s, (void)st, (void)res;
}

static void test_event_order(void)
{
    static const struct policy_ops ops = {
        .kind = "order",
        .init = order_init,
        .arrive = order_nothing,
        .on_event = order_event,
        .finish = order_finish,
        .destroy = free,
    };
    static struct scenario sc; /* no tenants: the heap alone drives the run */
    static struct strategy_cfg strat = {.name = "order", .ops = &ops};
    struct sim s;
    char err[256];
    eng_init(&s, &sc, &strat, 0);
    CU_ASSERT_EQUAL(eng_run(&s, err, sizeof err), 0);
    struct order_st *o = s.pst;
    CU_ASSERT_EQUAL(o->scheduled, ORDER_EVENTS);
    CU_ASSERT_EQUAL(o->popped, ORDER_EVENTS); /* the heap ran dry: every event was delivered */
    CU_ASSERT_EQUAL(o->bad, 0);
    CU_ASSERT_EQUAL(s.heap_n, 0);
    eng_free(&s);
}

void test_engine_register(void)
{
    static const struct tu_test t[] = {
        {"common random numbers across strategies", test_common_random_numbers},
        {"conservation with requests left in flight", test_conservation_without_drain},
        {"events pop in (time, seq) order when handlers schedule", test_event_order},
        {"the window's completions at its edges (hand-computed)", test_window_edges},
        {NULL, NULL},
    };
    tu_add_suite("engine", t);
}
