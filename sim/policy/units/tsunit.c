/*
 * tsunit — round-robin time-slicing of contexts on one unit; the semantics
 * are in tsunit.h. The unit-interface wrappers are at the end.
 *
 * Timers: one run timer for the running context, at the earlier of its group's next
 * completion (done_t) and the end of its slice (slice_end, once another context waits),
 * then the switch end and memory events. One timer for both, rather than one each,
 * because they cancel each other: a completion before the slice end used to leave the
 * slice's event stale in the heap, and a preemption the completion's (ts4 benchmark: 4.8
 * events per request, a fifth of the completions stale). Its handler tests which of the
 * two is due (the completion first when both are), so an event that is due for nothing
 * (its completion was cancelled by a fault) is harmless; arm() keeps it at the earlier
 * time and re-schedules, bumping run_ver, only when that time moves. An LLM context's CPU phase
 * ends on its context's memory timer (MEM_CPU), beside its begin timer.
 */
#include "policy/units/tsunit.h"
#include "core/analytic.h"
#include "core/stable.h"
#include "base/util.h"
#include "core/rate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* TS_TIMER_BEGIN: an LLM context's begin timer (aux = the context; llmengine.h: le_defer). */
enum { TS_TIMER_RUN, TS_TIMER_SWITCHED, TS_TIMER_MEM, TS_TIMER_BEGIN, TS_TIMERS };
/* What a TS_TIMER_MEM event of context c is: aux = c × 4 + one of these. The timer is the
 * context's own: besides its memory events, an LLM context's CPU phase ends on it (MEM_CPU,
 * versioned by its ts_cpu; a unit has only UNIT_TIMERS timers, and OOM simulation, the other
 * kinds' user, is refused with LLM tenants). */
enum { MEM_GROW, MEM_SHRINK, MEM_RESTART, MEM_CPU };
_Static_assert(sizeof(struct ts_ctx) == 64, "struct ts_ctx: the layout tsunit.h describes");
_Static_assert((int)TS_TIMERS <= (int)UNIT_TIMERS, "a unit has at most UNIT_TIMERS timers");

/* Context c's bit in u->work. Past 64 contexts the bits are not read (masked is 0): c's bit is
 * then another's, harmlessly, and no test is needed at every arrival. */
static inline uint64_t work_bit(int c)
{
    return (uint64_t)1 << (c & 63);
}

double ts_switch_s(const struct gpu_profile *g, double base_s, double refill_s, double out_mb,
                   double in_mb)
{
    return cal_switch_s(g, base_s, out_mb, in_mb) + cal_refill_s(g, refill_s, in_mb);
}

void ts_unit_init(struct ts_unit *u, const struct scenario *sc, struct unit_addr ev, int n,
                  const int *tenants, double sm, double bw, const double *memory_gb, double q,
                  double sw, int release_on_idle, double share, int oom_simulate,
                  double memory_cap_gb)
{
    memset(u, 0, sizeof *u);
    u->ev = ev;
    u->n = n;
    u->ctx = ss_xcalloc((size_t)n, sizeof *u->ctx);
    u->mem = ss_xcalloc((size_t)n, sizeof *u->mem);
    for (int i = 0; i < n; i++) {
        int conc = sc->tenants[tenants[i]].work.concurrency;
        const struct tenant_cfg *t = &sc->tenants[tenants[i]];
        u->ctx[i].tenant = tenants[i];
        u->mem[i].memory_gb = memory_gb ? memory_gb[i] : 0;
        u->ctx[i].state_mb =
            t->work.context_state_mb >= 0 ? t->work.context_state_mb : sc->gpu.context_state_mb;
        u->ctx[i].speed1 = rate_speed(&sc->gpu, t, sm, bw);
        double occ = rate_occupancy(t);
        u->ctx[i].used1 = occ < sm ? occ / sm : 1.0;
        rg_init(&u->ctx[i].g, conc > 1 ? conc : 1);
    }
    u->sm = sm;
    u->bw = bw;
    u->q = q;
    u->sw = sw;
    u->release_on_idle = release_on_idle;
    u->share = share;
    u->oom_simulate = oom_simulate;
    u->memory_cap_gb = memory_cap_gb;
    u->state = TS_IDLE;
    u->last = -1;
    u->arriving = -1;
    u->seg_start = -1;
    u->done_t = INFINITY;
    u->armed_t = INFINITY;
    u->slice_end = INFINITY;
    for (int i = 0; i < n; i++) /* resident from the start */
        u->memory_active_gb += u->mem[i].memory_gb;
    u->work = n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1; /* a superset is enough */
    u->masked = n <= 64;
    u->simple = !oom_simulate;
    for (int i = 0; i < n; i++)
        u->simple &= u->ctx[i].g.cap == 1;
    u->same_state = 1;
    for (int i = 1; i < n; i++)
        u->same_state &= u->ctx[i].state_mb == u->ctx[0].state_mb;
    ts_set_refill(u, sc, sc->gpu.ts_refill_s);
}

void ts_set_refill(struct ts_unit *u, const struct scenario *sc, double refill_s)
{
    u->refill_s = refill_s;
    u->sw_cost =
        u->n ? ts_switch_s(&sc->gpu, u->sw, refill_s, u->ctx[0].state_mb, u->ctx[0].state_mb)
             : u->sw;
}

void ts_set_llm(struct ts_unit *u, const struct scenario *sc, int c, long kv_blocks)
{
    if (!u->llm) {
        u->llm = ss_xcalloc((size_t)u->n, sizeof *u->llm);
        u->cpu = ss_xcalloc((size_t)u->n, sizeof *u->cpu);
    }
    struct ts_ctx *x = &u->ctx[c];
    u->llm[c] = ss_xcalloc(1, sizeof *u->llm[c]);
    le_init(u->llm[c], x->tenant, sc->tenants[x->tenant].llm, kv_blocks, &sc->gpu);
    x->speed1 = 1; /* its work is its step's GPU part on the unit (serve_llm) */
    x->used1 = 1;  /* a step keeps every SM of the unit busy */
    u->fold = 0;   /* an engine takes its requests as they arrive, not at a switch */
    u->masked = 0; /* the round robin scans, asking has_work_llm */
    u->simple = 0;
}

/* Context c's LLM engine, or NULL. */
static inline struct llm_engine *llm_of(const struct ts_unit *u, int c)
{
    return u->llm ? u->llm[c] : NULL;
}

void ts_fold_switches(struct ts_unit *u, const struct scenario *sc)
{
    u->fold = !u->oom_simulate && !u->llm;
    for (int c = 0; c < u->n; c++)
        u->fold &= u->ctx[c].g.cap == 1 && sc->tenants[u->ctx[c].tenant].queue_limit <= 0 &&
                   sc->tenants[u->ctx[c].tenant].arrival.kind != ARR_SATURATED;
    u->quick = u->fold && u->same_state && u->sw_cost > 0;
}

void ts_start(struct sim *s, struct ts_unit *u)
{
    for (int c = 0; c < u->n && u->oom_simulate; c++) {
        const struct tenant_cfg *t = &s->sc->tenants[u->ctx[c].tenant];
        if (t->growth_gb > 0 && t->growth_at_s >= s->now)
            unit_schedule(s, u->ev, t->growth_at_s, TS_TIMER_MEM, 0, (uint32_t)(c * 4 + MEM_GROW));
    }
}

void ts_unit_free(struct ts_unit *u)
{
    for (int i = 0; i < u->n; i++) {
        rg_free(&u->ctx[i].g);
        if (llm_of(u, i))
            le_free(u->llm[i]);
        free(llm_of(u, i));
    }
    free(u->llm);
    free(u->cpu);
    u->llm = NULL;
    u->cpu = NULL;
    free(u->ctx);
    free(u->mem);
    u->ctx = NULL;
    u->mem = NULL;
}

static int has_cur(const struct ts_unit *u, int c)
{
    return u->ctx[c].g.n > 0;
}

/* Context c is an LLM context in its CPU phase: idle on the GPU until the phase ends. */
static inline int in_cpu(const struct ts_unit *u, int c)
{
    return u->cpu && u->cpu[c].on;
}

/* has_work for a unit with LLM contexts: an engine's waiting and running requests too, except
 * in its CPU phase (its next step is not ready before the phase ends). */
SS_NOINLINE static int has_work_llm(const struct sim *s, const struct ts_unit *u, int c)
{
    const struct ts_ctx *x = &u->ctx[c];
    if (in_cpu(u, c))
        return 0;
    return x->g.n > 0 || (eng_qlen(s, x->tenant) > 0 && !x->down) ||
           (u->llm[c] && !x->down && le_has_work(u->llm[c]));
}

/* A context restarting after an OOM kill (down) has nothing in service (oom_kill failed it),
 * so only its queue needs the down check. Bitwise, not short-circuit: which term holds is data
 * (a preempted request, a queue), so each branch of || was mispredicted at every event. The
 * LLM test first, on its own: combined with the rest the compiler branched on the plain terms
 * before it. */
static inline int has_work(const struct sim *s, const struct ts_unit *u, int c)
{
    if (u->llm) /* NULL for a unit of plain contexts */
        return has_work_llm(s, u, c);
    const struct ts_ctx *x = &u->ctx[c];
    return (x->g.n > 0) | ((eng_qlen(s, x->tenant) > 0) & !x->down);
}

/* Context c was seen without work: its bit goes. */
static inline void work_gone(struct ts_unit *u, int c)
{
    u->work &= ~work_bit(c);
}

/* next_with_work for a unit of more than 64 contexts or with LLM contexts: every context in
 * turn. */
SS_NOINLINE static int scan_with_work(const struct sim *s, const struct ts_unit *u, int c)
{
    for (int k = 1, d = c; k < u->n; k++) {
        if (++d == u->n) /* (c + k) mod n without a division */
            d = 0;
        if (has_work(s, u, d))
            return d;
    }
    return -1;
}

/*
 * Next context after c (round robin, c itself excluded) that has work; -1 if none. It runs at
 * every completion that switches and every slice end, so instead of asking every context it
 * takes the candidates from u->work (bits of contexts after c first, then from 0), each checked
 * by has_work: the result is the scan's as long as every context with work has its bit
 * (tsunit.h). A candidate without work loses its bit. Units of plain contexts only (u->masked):
 * the loop then calls nothing, and saves no register.
 */
static inline int next_with_work(const struct sim *s, struct ts_unit *u, int c)
{
    if (!u->masked)
        return scan_with_work(s, u, c);
    uint64_t self = (uint64_t)1 << c;
    uint64_t m = u->work & ~self;
    while (m) {
        uint64_t after = m & ~((self << 1) - 1); /* c = 63: self << 1 is 0, nothing after */
        int d = __builtin_ctzll(after ? after : m);
        const struct ts_ctx *x = &u->ctx[d];
        if ((x->g.n > 0) | ((eng_qlen(s, x->tenant) > 0) & !x->down)) /* has_work, plain */
            return d;
        m &= ~((uint64_t)1 << d);
        u->work &= ~((uint64_t)1 << d);
    }
    return -1;
}

static void sched(struct sim *s, struct ts_unit *u, double t, unsigned timer, uint32_t ver)
{
    unit_schedule(s, u->ev, t, timer, ver, 0);
}

/* A slice end is pending (another context waits): slice_end is finite (q and time are). */
static inline int slice_pending(const struct ts_unit *u)
{
    return u->slice_end < INFINITY;
}

/* No slice end pending (nobody else waits, or the slice is over). */
static inline void slice_off(struct ts_unit *u)
{
    u->slice_end = INFINITY;
}

/* Keeps the run timer at the earlier of the completion and the pending slice end. Inline
 * (it runs twice per request, from five places, so the compiler kept it out of line): the
 * call's register saves were a third of its cost (ts4 benchmark, callgrind). The schedule is
 * inline in it too, not through sched() (1 % of ts4's instructions). */
static inline __attribute__((always_inline)) void arm(struct sim *s, struct ts_unit *u)
{
    /* slice_end is INFINITY unless pending: a minimum, no branch (whether a slice end is
     * pending is data: the branch was mispredicted at 7 % of ts4's arms) */
    double t = u->slice_end < u->done_t ? u->slice_end : u->done_t;
    /* Unchanged: the event in the heap is the one. Nothing due: the one in the heap, if
     * any, finds nothing to do when it pops. */
    if (t == u->armed_t || t == INFINITY)
        return;
    u->armed_t = t;
    unit_schedule(s, u->ev, t, TS_TIMER_RUN, ++u->run_ver, 0);
}

/* Opens a service segment for the context's one request (a plain request, or an LLM step)
 * at the speed and busy share cached for it: the group is charged to now, nothing was served
 * since. The common case of serve, serve_general and serve_llm. */
static inline __attribute__((always_inline)) void serve_one(struct sim *s, struct ts_unit *u,
                                                            struct ts_ctx *c)
{
    u->seg_start = s->now;
    u->seg_used = c->used1;
    c->g.t = s->now;
    c->g.speed = c->speed1;
    u->done_t = s->now + c->g.r[0].work / c->speed1;
    arm(s, u);
}

/* Books the open service segment up to now (and the folded switch before it, if not yet),
 * without charging the requests' work: charge(), or a completion, whose request's work ends. */
static inline void book_segment(struct sim *s, struct ts_unit *u)
{
    if (u->sw_open) { /* booked at the first charge after it ended, as its end event did */
        eng_switching(s, u->share, u->sw_start, u->sw_end);
        u->sw_open = 0;
    }
    eng_busy(s, u->share * u->seg_used, u->seg_start, s->now);
    u->busy_s += eng_clip(s, u->seg_start, s->now);
    u->seg_start = s->now;
}

/* Charges the work done in the open service segment and books it at the group's width. */
static inline __attribute__((always_inline)) void charge_body(struct sim *s, struct ts_unit *u)
{
    if (u->seg_start < 0)
        return;
    rg_advance(&u->ctx[u->cur].g, s->now);
    book_segment(s, u);
}

static void charge(struct sim *s, struct ts_unit *u)
{
    charge_body(s, u);
}

/* The running context stops being served (preempted, or nothing left): no work accrues. */
static void pause_cur(struct ts_unit *u)
{
    u->seg_start = -1;
    u->done_t = INFINITY;
    u->ctx[u->cur].g.speed = 0;
}

static void drop_cur(struct ts_unit *u, int c)
{
    u->ctx[c].g.speed = 0;
}

/* Fails every request in service of context c (an LLM context's: every request its engine
 * holds, the process being gone). */
static void fail_cur(struct sim *s, struct ts_unit *u, int c)
{
    drop_cur(u, c);
    if (llm_of(u, c)) {
        u->ctx[c].g.n = 0;
        if (u->cpu[c].on) { /* the pending end of its CPU phase goes stale */
            u->cpu[c].on = 0;
            u->cpu[c].ver++;
        }
        le_fail(s, u->llm[c]);
        return;
    }
    struct rgroup *g = &u->ctx[c].g;
    while (g->n > 0) {
        struct request r;
        rg_remove(g, 0, &r);
        eng_fail(s, &r);
    }
}

static int overcommitted(const struct ts_unit *u)
{
    return u->memory_active_gb > u->memory_cap_gb + 1e-9;
}

static void after_cur_ended(struct sim *s, struct ts_unit *u);

/* OOM-kills context c: its requests in service fail, its memory is freed, and it restarts
 * after its tenant's restart_s. */
static void oom_kill(struct sim *s, struct ts_unit *u, int c)
{
    struct ts_ctx *x = &u->ctx[c];
    struct ts_mem *m = &u->mem[c];
    int running = u->state == TS_RUN && u->cur == c;
    if (running) {
        charge(s, u);
        u->done_t = INFINITY;
    }
    fail_cur(s, u, c);
    if (!x->down) {
        u->memory_active_gb -= m->memory_gb + m->grown_gb;
        m->grown_gb = 0;
        x->down = 1;
        m->down_since = s->now;
    }
    u->ooms++;
    unit_schedule(s, u->ev, s->now + s->sc->tenants[x->tenant].restart_s, TS_TIMER_MEM, ++m->ver,
                  (uint32_t)(c * 4 + MEM_RESTART));
    if (running)
        after_cur_ended(s, u);
}

/* serve() for a group of more than one request, or with "oom": "simulate". */
static int serve_general(struct sim *s, struct ts_unit *u)
{
    struct ts_ctx *c = &u->ctx[u->cur];
    while (!c->down && !rg_full(&c->g) && eng_qlen(s, c->tenant) > 0) {
        struct request *r = &c->g.r[c->g.n]; /* taken straight into the group (rg_add) */
        eng_pop(s, c->tenant, r);
        if (u->oom_simulate && overcommitted(u)) {
            eng_fail(s, r);         /* starting it allocates: the allocation fails, and so does */
            oom_kill(s, u, u->cur); /* the process */
            return 1;
        }
        c->g.n++; /* the group was charged to now: rg_set_speed below advances */
    }
    if (!has_cur(u, u->cur)) {
        pause_cur(u);
        return 0;
    }
    if (c->g.n == 1) { /* the common case, cached */
        serve_one(s, u, c);
        return 0;
    }
    u->seg_start = s->now;
    /* SMs in use, min(sm, n s), as a fraction of the unit's */
    double busy = c->g.n * rate_occupancy(&s->sc->tenants[c->tenant]);
    u->seg_used = busy < u->sm ? busy / u->sm : 1.0;
    rg_set_speed(&c->g, s->now,
                 rate_speed_n(&s->sc->gpu, &s->sc->tenants[c->tenant], u->sm, u->bw, c->g.n));
    u->done_t = s->now + rg_next_s(&c->g);
    arm(s, u);
    return 0;
}

/* serve() for an LLM context: its step in flight, or the next one (ts_set_llm). */
static int serve_llm(struct sim *s, struct ts_unit *u)
{
    struct ts_ctx *c = &u->ctx[u->cur];
    struct llm_engine *e = u->llm[u->cur];
    if (c->g.n == 0) {
        /* Picked for an arrival (or holding its slice when one came), the context is the unit's;
         * with another arrival of its tenant due now its step begins at the begin timer. In its
         * CPU phase (holding its slice, release_on_idle false) it has nothing to run yet. */
        if (c->down || u->cpu[u->cur].on ||
            (u->arriving == u->cur && le_defer(s, e, u->ev, TS_TIMER_BEGIN, (uint32_t)u->cur)) ||
            !le_begin(s, e)) {
            pause_cur(u);
            return 0;
        }
        struct request *r = &c->g.r[0]; /* the step, as the one request of the group */
        memset(r, 0, sizeof *r);
        r->tenant = c->tenant;
        /* Its GPU part on the unit's shares is served in its slices; the CPU part that is not
         * hidden behind it (le_time_s less the GPU part) follows as the CPU phase (on_done). */
        struct ts_cpu *p = &u->cpu[u->cur];
        r->work = stm_gpu_s(&e->parts, u->sm, u->bw);
        p->cpu_s = stm_cpu_exposed_s(&e->parts, u->sm, u->bw);
        p->step_s = le_time_s(e, u->sm, u->bw);
        p->t0 = s->now;
        p->whole = 1;
        c->g.n = 1;
    } else {
        u->cpu[u->cur].whole = 0; /* resumed: its GPU part was cut */
    }
    serve_one(s, u, c);
    return 0;
}

/*
 * Starts or resumes service of the running context's requests, taking waiting ones while
 * its group has room. The open segment, if any, must have been charged. Returns 1 when
 * taking a request OOM-killed the context (the unit has moved on: the caller stops).
 * One request at a time without OOM simulation, the case of every event of a time-sliced
 * GPU by default, here; the rest in serve_general (the same steps for that case).
 */
static int serve(struct sim *s, struct ts_unit *u)
{
    struct ts_ctx *c = &u->ctx[u->cur];
    if (u->llm && u->llm[u->cur])
        return serve_llm(s, u);
    if (c->g.cap > 1 || u->oom_simulate)
        return serve_general(s, u);
    if (c->g.n == 0) {
        if (c->down || eng_qlen(s, c->tenant) == 0) {
            pause_cur(u);
            return 0;
        }
        eng_pop(s, c->tenant, &c->g.r[0]);
        c->g.n = 1;
    }
    serve_one(s, u, c);
    return 0;
}

/* Another context waits: the running slice ends at the next multiple of q from its start. */
static void slice_set(struct sim *s, struct ts_unit *u)
{
    /* A lone context renewed its slice every q since it started running. Within the first q
     * (the usual case) k is 1 and the slice start stays: no division, no ceil. */
    if (s->now - u->slice_start > u->q) {
        double k = ceil((s->now - u->slice_start) / u->q);
        u->slice_start += (k - 1) * u->q;
    }
    u->slice_end = u->slice_start + u->q;
}

/* Sets the end of the running slice once another context waits; 1 if it did (the run timer
 * is then to be armed). */
static int slice_due(struct sim *s, struct ts_unit *u)
{
    if (u->state != TS_RUN || slice_pending(u))
        return 0;
    if (next_with_work(s, u, u->cur) < 0)
        return 0;
    slice_set(s, u);
    return 1;
}

/* Schedules the end of the running slice once another context waits. */
static void maybe_schedule_slice(struct sim *s, struct ts_unit *u)
{
    if (slice_due(s, u))
        arm(s, u);
}

/* An LLM context waiting for its begin timer: it has work, though nothing in service yet. */
static int deferred(const struct ts_unit *u, int c)
{
    return llm_of(u, c) && u->llm[c]->begin_pending;
}

static void run_ctx(struct sim *s, struct ts_unit *u, int c)
{
    u->state = TS_RUN;
    u->cur = c;
    u->last = c;
    u->slice_start = s->now;
    slice_off(u);
    if (serve(s, u))
        return;
    /* Another unit serving the same tenant may have taken the request first. */
    if (!has_cur(u, c) && !deferred(u, c) && u->release_on_idle) {
        after_cur_ended(s, u);
        return;
    }
    maybe_schedule_slice(s, u);
}

/* A folded switch is in progress: the running context's request is not in service yet. */
static int folding(const struct sim *s, const struct ts_unit *u)
{
    return u->state == TS_RUN && u->seg_start > s->now;
}

/* switch_to with u->fold: context c (which has work) runs from the end of the switch, its
 * completion or slice end the next event (ts_fold_switches). others_wait: the caller knows
 * another context has work (it preempted one), so the slice ends without a search. */
static inline __attribute__((always_inline)) void fold_switch(struct sim *s, struct ts_unit *u,
                                                              int c, double cost, int others_wait)
{
    struct ts_ctx *x = &u->ctx[c];
    double t0 = s->now + cost;
    u->state = TS_RUN;
    u->cur = c;
    u->last = c;
    u->switches++;
    u->sw_start = s->now;
    u->sw_end = t0;
    u->sw_open = 1;
    u->slice_start = t0;
    slice_off(u);
    u->fold_popped = x->g.n == 0;
    u->fold_fresh = 0;
    if (u->fold_popped) {
        const struct rqueue *q = &s->ten[x->tenant].q;
        u->fold_fresh = q->buf[q->head].start < 0;
        eng_pop(s, x->tenant, &x->g.r[0]);
        if (u->fold_fresh)
            x->g.r[0].start = t0; /* its service starts when the switch ends */
        x->g.n = 1;
    }
    u->seg_start = t0;
    u->seg_used = x->used1;
    x->g.t = t0;
    x->g.speed = x->speed1;
    u->done_t = t0 + x->g.r[0].work / x->speed1;
    /* The slice end first, then one arm at the earlier of the two: arming the completion
     * first left it stale in the heap whenever the slice ended before it. The slice end as
     * slice_due sets it, its tests known to pass here (running, no slice end yet) and the
     * search inline; the slice starts at t0, after now, so it ends at t0 + q. */
    if (others_wait || next_with_work(s, u, c) >= 0) {
        u->slice_end = t0 + u->q;
    }
    arm(s, u);
}

/* A fault or a teardown during a folded switch: the unit is put in the state it would be in
 * without folding (switching, the request it took back at the head of its queue, the
 * switch's end an event), and the fault or teardown goes on from there. Rare: an event more. */
static void unfold(struct sim *s, struct ts_unit *u)
{
    struct ts_ctx *x = &u->ctx[u->cur];
    if (u->fold_popped) {
        struct request r = x->g.r[0];
        if (u->fold_fresh)
            r.start = -1;
        x->g.n = 0;
        eng_push_front(s, &r); /* its bit is still set: it had work, and has */
    }
    pause_cur(u);
    u->state = TS_SWITCH;
    slice_off(u);
    u->sw_open = 0; /* booked at the switch's end, or by ts_finish */
    sched(s, u, u->sw_end, TS_TIMER_SWITCHED, ++u->sw_ver);
}

/* others_wait: as fold_switch's; a constant in each of the two callers below, so that the
 * folded switch's slice end is set without a branch (75,000 mispredicts in ts4's 2e5). */
static inline __attribute__((always_inline)) void switch_body(struct sim *s, struct ts_unit *u,
                                                              int c, int others_wait)
{
    double cost = u->last < 0     ? 0
                  : u->same_state ? u->sw_cost
                                  : ts_switch_s(&s->sc->gpu, u->sw, u->refill_s,
                                                u->ctx[u->last].state_mb, u->ctx[c].state_mb);
    if (u->last < 0 || c == u->last || cost <= 0) {
        run_ctx(s, u, c);
        return;
    }
    if (u->fold) {
        fold_switch(s, u, c, cost, others_wait);
        return;
    }
    u->state = TS_SWITCH;
    u->cur = c;
    u->sw_start = s->now;
    u->switches++;
    sched(s, u, s->now + cost, TS_TIMER_SWITCHED, ++u->sw_ver);
}

/* Switches to context c, which has work. */
SS_NOINLINE static void switch_to(struct sim *s, struct ts_unit *u, int c)
{
    switch_body(s, u, c, 0);
}

/* switch_to from a preempted context, which still has work. */
SS_NOINLINE static void switch_preempting(struct sim *s, struct ts_unit *u, int c)
{
    switch_body(s, u, c, 1);
}

static void go_idle(struct ts_unit *u)
{
    u->state = TS_IDLE;
    if (u->seg_start >= 0)
        pause_cur(u);
    slice_off(u);
}

/* Switches to the next context after c that has work, or goes idle when none has. c is the
 * last context that ran (every caller's), so on a quick unit the switch is folded at once. */
static inline __attribute__((always_inline)) void switch_next_body(struct sim *s, struct ts_unit *u,
                                                                   int c)
{
    int next = next_with_work(s, u, c);
    if (next >= 0 && u->quick)
        fold_switch(s, u, next, u->sw_cost, 0);
    else if (next >= 0)
        switch_to(s, u, next);
    else
        go_idle(u);
}

static void switch_next_or_idle(struct sim *s, struct ts_unit *u, int c)
{
    switch_next_body(s, u, c);
}

/* The running context has no request in service any more. */
static void after_cur_ended(struct sim *s, struct ts_unit *u)
{
    int c = u->cur;
    if (has_work(s, u, c)) {
        serve(s, u); /* continues in the same slice */
        return;
    }
    work_gone(u, c);
    pause_cur(u);
    if (!u->release_on_idle && !u->ctx[c].down) {
        maybe_schedule_slice(s, u); /* hold the unit to the end of the slice */
        return;
    }
    switch_next_or_idle(s, u, c);
}

/* on_done on a simple unit (u->simple): after_cur_ended and serve written out for it, without
 * the tests that cannot hold there (no LLM context, no OOM, so never down, one request at a
 * time); the same steps in the same order. */
SS_NOINLINE static void on_done_simple(struct sim *s, struct ts_unit *u)
{
    int cur = u->cur;
    struct ts_ctx *c = &u->ctx[cur];
    book_segment(s, u); /* no charge: the request ends (on_done below says why) */
    drop_cur(u, cur);
    c->g.n = 0;
    c->g.r[0].work = 0;
    eng_complete(s, &c->g.r[0]);
    if (eng_qlen(s, c->tenant) > 0) { /* has_work: nothing in service, never down */
        eng_pop(s, c->tenant, &c->g.r[0]);
        c->g.n = 1;
        serve_one(s, u, c); /* continues in the same slice */
        return;
    }
    work_gone(u, cur);
    pause_cur(u);
    if (!u->release_on_idle) { /* hold the unit to the end of the slice */
        slice_due(s, u);
        arm(s, u); /* also for a slice end already pending: the timer was the completion's */
        return;
    }
    switch_next_body(s, u, cur); /* a switch, or a context run, leaves the timer armed */
}

SS_NOINLINE static void on_done(struct sim *s, struct ts_unit *u)
{
    struct ts_ctx *c = &u->ctx[u->cur];
    if (c->g.n == 1 && !u->llm) {
        /* The common case: the one request ends, so its work needs no charging (it is 0 now;
         * charged, it only rounded to 0 through a clamp whose branch was data), and the group
         * empties, no search, no copy. A completion is due only while a segment is open
         * (done_t is INFINITY otherwise), so it is booked without a test. */
        book_segment(s, u);
        drop_cur(u, u->cur);
        c->g.n = 0;
        c->g.r[0].work = 0;
        eng_complete(s, &c->g.r[0]);
        after_cur_ended(s, u);
        return;
    }
    charge(s, u);
    if (llm_of(u, u->cur)) {
        /* The step's GPU part ended. Its CPU phase follows on the context's own timer, the
         * context idle on the GPU meanwhile (after_cur_ended releases it or holds the slice);
         * without one the step ends: its tokens, and the next starts in the slice. */
        struct ts_cpu *p = &u->cpu[u->cur];
        drop_cur(u, u->cur);
        c->g.n = 0;
        if (p->cpu_s > 0) {
            /* A GPU part served in one piece from t0 ended at t0 + its time: the step ends at
             * t0 + le_time_s, as on a GPU of its own to the bit (a lone context is exclusive). */
            double end = p->whole ? p->t0 + p->step_s : s->now + p->cpu_s;
            p->on = 1;
            unit_schedule(s, u->ev, end, TS_TIMER_MEM, ++p->ver, (uint32_t)(u->cur * 4 + MEM_CPU));
        } else {
            le_end(s, u->llm[u->cur]);
        }
        after_cur_ended(s, u);
        return;
    }
    struct request r;
    rg_remove(&c->g, rg_first(&c->g), &r);
    r.work = 0;
    eng_complete(s, &r);
    after_cur_ended(s, u);
}

SS_NOINLINE static void on_slice(struct sim *s, struct ts_unit *u)
{
    slice_off(u);
    int next = next_with_work(s, u, u->cur);
    if (next < 0) {
        if (has_work(s, u, u->cur)) {
            u->slice_start = s->now; /* nobody waits: the slice renews */
            if (u->seg_start < 0)
                serve(s, u);
            if (u->state == TS_RUN) /* (serve may have OOM-killed it) */
                arm(s, u);          /* the completion, when serve did not arm it */
        } else {
            go_idle(u);
        }
        return;
    }
    charge_body(s, u); /* inline: a slice end charges at every preemption */
    pause_cur(u);      /* preempted: the requests keep their remaining work */
    /* A switch, or a context run, leaves the timer armed. On a quick unit, switch_preempting's
     * path written out (the last context, cur, is not next): no call, no test. */
    if (u->quick)
        fold_switch(s, u, next, u->sw_cost, 1);
    else
        switch_preempting(s, u, next);
}

SS_NOINLINE static void on_switched(struct sim *s, struct ts_unit *u)
{
    eng_switching(s, u->share, u->sw_start, s->now);
    int c = u->cur;
    u->last = c;
    if (has_work(s, u, c)) {
        run_ctx(s, u, c);
        return;
    }
    /* Its work disappeared while switching (a fault or an OOM failed it). */
    switch_next_or_idle(s, u, c);
}

/* Context c's begin timer: if the unit is still c's, its step begins with every request that
 * arrived by now (a fault since made the timer stale; a slice end at this instant that passed
 * the unit on leaves the requests to c's next slice). */
static void on_begin(struct sim *s, struct ts_unit *u, int c, uint32_t version)
{
    if (!le_begin_due(u->llm[c], version) || u->state != TS_RUN || u->cur != c || has_cur(u, c))
        return;
    serve(s, u);
    if (!has_cur(u, c))
        after_cur_ended(s, u);
}

/* Context c's CPU phase ends: its step ends (its tokens), and the next step is ready, so the
 * context has work as after an arrival: the idle unit runs it (no switch when it was the last
 * to run), a running one ends the slice of the context running, and a context holding its
 * slice (release_on_idle false) begins the step at once. A fault since made the event stale. */
static void on_cpu_end(struct sim *s, struct ts_unit *u, int c, uint32_t version)
{
    struct ts_cpu *p = &u->cpu[c];
    if (!p->on || version != p->ver)
        return;
    p->on = 0;
    le_end(s, u->llm[c]);
    if (!has_work(s, u, c))
        return;
    switch (u->state) {
    case TS_IDLE:
        switch_to(s, u, c);
        break;
    case TS_RUN:
        if (u->cur != c) {
            if (!slice_pending(u)) {
                slice_set(s, u);
                arm(s, u);
            }
        } else {
            serve(s, u); /* it held its slice through the phase: nothing to charge */
            maybe_schedule_slice(s, u);
        }
        break;
    case TS_SWITCH:
        break; /* the switch's end picks up whoever has work */
    }
}

/* A restarted context comes back (its resident memory fits) or is killed again. */
static void on_restart(struct sim *s, struct ts_unit *u, int c)
{
    struct ts_ctx *x = &u->ctx[c];
    struct ts_mem *m = &u->mem[c];
    if (u->memory_active_gb + m->memory_gb > u->memory_cap_gb + 1e-9) {
        oom_kill(s, u, c); /* its allocation does not fit what is free */
        return;
    }
    u->memory_active_gb += m->memory_gb;
    x->down = 0;
    eng_down(s, x->tenant, m->down_since, s->now);
    u->restarts++;
    ts_arrive(s, u, c);
}

SS_COLD static void on_mem(struct sim *s, struct ts_unit *u, const struct event *ev)
{
    int c = (int)(ev->aux / 4);
    struct ts_ctx *x = &u->ctx[c];
    struct ts_mem *m = &u->mem[c];
    const struct tenant_cfg *t = &s->sc->tenants[x->tenant];
    switch (ev->aux % 4) {
    case MEM_GROW: /* it always succeeds: the growth is what over-commits the unit */
        if (x->down)
            return;
        m->grown_gb = t->growth_gb;
        u->memory_active_gb += m->grown_gb;
        unit_schedule(s, u->ev, s->now + t->growth_for_s, TS_TIMER_MEM, m->ver,
                      (uint32_t)(c * 4 + MEM_SHRINK));
        return;
    case MEM_SHRINK:
        if (ev->version == m->ver && !x->down) {
            u->memory_active_gb -= m->grown_gb;
            m->grown_gb = 0;
        }
        return;
    default:
        if (ev->version == m->ver && x->down)
            on_restart(s, u, c);
        return;
    }
}

/* It runs at every event: the handlers stay out of line (SS_NOINLINE), since with them inlined
 * the compiler saved six registers on entry whichever one ran (4 % of the ts4 benchmark's
 * instructions, callgrind). */
void ts_event(struct sim *s, struct ts_unit *u, const struct event *ev)
{
    unsigned timer = unit_ev_timer(ev);
    if (timer == TS_TIMER_RUN) { /* first: nearly every event is the run timer */
        if (ev->version != u->run_ver)
            return;
        u->armed_t = INFINITY;
        if (u->state != TS_RUN)
            return;
        /* on_done_simple and on_slice leave the timer armed (the step they end with arms it,
         * or they do): the arm below would find it so, at every event. */
        if (u->done_t <= s->now && u->simple) {
            on_done_simple(s, u); /* apart: on_done's other paths made it save six registers */
            return;
        }
        if (u->done_t <= s->now) {
            on_done(s, u);
        } else if (u->slice_end <= s->now) { /* INFINITY unless pending */
            on_slice(s, u);
            return;
        }
        if (u->state == TS_RUN)
            arm(s, u); /* the other of the two, still due later; or a cancelled completion's */
        return;
    }
    switch (timer) {
    case TS_TIMER_MEM:
        if (ev->aux % 4 == MEM_CPU)
            on_cpu_end(s, u, (int)(ev->aux / 4), ev->version);
        else
            on_mem(s, u, ev);
        break;
    case TS_TIMER_SWITCHED:
        if (ev->version == u->sw_ver && u->state == TS_SWITCH)
            on_switched(s, u);
        break;
    case TS_TIMER_BEGIN:
        on_begin(s, u, (int)ev->aux, ev->version);
        break;
    default:
        SS_FATAL("timeslice unit %u: unexpected timer %u", u->ev.id, timer);
    }
}

SS_NOINLINE static void arrive(struct sim *s, struct ts_unit *u, int c)
{
    if (u->ctx[c].down)
        return; /* restarting: its requests wait */
    u->work |= work_bit(c);
    if (u->llm && u->llm[c])
        le_take_all(s, u->llm[c]); /* into its scheduler, whatever the unit is doing */
    u->arriving = c;               /* an LLM context picked now defers its step (serve_llm) */
    switch (u->state) {
    case TS_IDLE:
        if (has_work(s, u, c))
            switch_to(s, u, c);
        break;
    case TS_RUN:
        if (in_cpu(u, c)) {
            break; /* its requests join the engine's next step, ready when the phase ends */
        } else if (u->cur != c) { /* c has work now: another context waits, no search needed */
            if (!slice_pending(u)) {
                slice_set(s, u);
                arm(s, u);
            }
        } else if (!rg_full(&u->ctx[c].g)) {
            charge(s, u); /* the group grows: close the segment at the old width */
            serve(s, u);  /* (or an idle slice is held: release_on_idle false) */
        } else {
            maybe_schedule_slice(s, u);
        }
        break;
    case TS_SWITCH:
        break; /* the switch's end picks up whoever has work */
    }
    u->arriving = -1;
}

void ts_arrive(struct sim *s, struct ts_unit *u, int c)
{
    /* The commonest arrivals on a simple unit (never down, no engine to feed): another context
     * runs, so c's work is noted and the running slice ends, if its end is not set yet. Apart
     * from arrive(), whose other paths made every arrival save four registers. */
    if (u->state == TS_RUN && u->cur != c && u->simple) {
        u->work |= work_bit(c);
        if (!slice_pending(u)) { /* c waits now: the running slice ends */
            slice_set(s, u);
            arm(s, u);
        }
        return;
    }
    arrive(s, u, c);
}

int ts_fault(struct sim *s, struct ts_unit *u, int c)
{
    if (c == u->cur && folding(s, u))
        unfold(s, u);
    /* An engine holding requests is hit even between steps (switching to it, say). */
    if (!has_cur(u, c) && !(llm_of(u, c) && u->llm[c]->held > 0))
        return 0;
    int running = u->state == TS_RUN && u->cur == c;
    if (running) {
        charge(s, u);
        u->done_t = INFINITY;
    }
    fail_cur(s, u, c);
    if (running)
        after_cur_ended(s, u);
    return 1;
}

void ts_finish(struct sim *s, struct ts_unit *u)
{
    if (folding(s, u)) {
        eng_switching(s, u->share, u->sw_start, s->now);
        u->sw_open = 0;
    } else if (u->state == TS_RUN && u->seg_start >= 0) {
        charge(s, u);
    }
    if (u->state == TS_SWITCH)
        eng_switching(s, u->share, u->sw_start, s->now);
    for (int c = 0; c < u->n; c++) {
        if (llm_of(u, c))
            le_kv_close(s, u->llm[c]);
        if (u->ctx[c].down) {
            eng_down(s, u->ctx[c].tenant, u->mem[c].down_since, s->now);
            u->mem[c].down_since = s->now;
        }
    }
}

void ts_abort(struct sim *s, struct ts_unit *u)
{
    if (folding(s, u))
        unfold(s, u);
    ts_finish(s, u);
    for (int c = 0; c < u->n; c++)
        fail_cur(s, u, c);
}

void ts_reset(struct sim *s, struct ts_unit *u)
{
    u->state = TS_IDLE;
    u->seg_start = -1;
    slice_off(u);
    u->sw_open = 0;
    u->last = -1; /* the reset wiped every context: the first to run needs no switch */
    u->done_t = INFINITY;
    u->armed_t = INFINITY;
    u->run_ver++;
    u->sw_ver++;
    u->memory_active_gb = 0;
    u->work = u->n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << u->n) - 1;
    for (int c = 0; c < u->n; c++) {
        struct ts_ctx *x = &u->ctx[c];
        struct ts_mem *m = &u->mem[c];
        if (x->down) /* an OOM restart was pending: the reset restarts it too */
            eng_down(s, x->tenant, m->down_since, s->now);
        x->down = 0;
        m->grown_gb = 0;
        m->ver++;
        x->g.speed = 0;
        u->memory_active_gb += m->memory_gb;
        if (u->cpu && u->cpu[c].on) { /* (ts_abort failed the engine already) */
            u->cpu[c].on = 0;
            u->cpu[c].ver++;
        }
    }
}

int ts_work_covered(const struct sim *s, const struct ts_unit *u)
{
    for (int c = 0; c < u->n && u->n <= 64; c++)
        if (has_work(s, u, c) && !(u->work & work_bit(c)))
            return 0;
    return 1;
}

/* ---- unit interface ------------------------------------------------------ */

/* Its tenants' memory growth is scheduled once the unit is built in the run. */
static void ts_op_start(struct sim *s, void *self)
{
    ts_start(s, self);
}

/* A card reset: the unit serves again, idle, every context loaded anew. */
static void ts_op_resume(struct sim *s, void *self)
{
    ts_reset(s, self);
}

static struct llm_engine *ts_engine(void *self, int client)
{
    struct ts_unit *u = self;
    return u->llm ? u->llm[client] : NULL;
}

UNIT_OPS_OVER(ts_unit_ops, struct ts_unit, UNIT_RANK_TIMESLICE, ts_arrive, ts_event, ts_fault,
              ts_abort, ts_finish, ts_unit_free, ts_op_start, ts_op_resume, ts_engine);

double ts_mean_switch_s(const struct scenario *sc, int n, const int *tenants, double base_s)
{
    return ts_mean_switch_refill_s(sc, n, tenants, base_s, sc->gpu.ts_refill_s);
}

double ts_mean_switch_refill_s(const struct scenario *sc, int n, const int *tenants, double base_s,
                               double refill_s)
{
    double sum = 0;
    for (int k = 0; k < n; k++) {
        const struct tenant_cfg *t = &sc->tenants[tenants[k]];
        sum += t->work.context_state_mb >= 0 ? t->work.context_state_mb : sc->gpu.context_state_mb;
    }
    double mean = n > 0 ? sum / n : 0;
    return ts_switch_s(&sc->gpu, base_s, refill_s, mean, mean);
}

double ts_capacity(int n, const double *speed, const double *load, int k, double q, double sw)
{
    if (n == 1)
        return speed[0];
    double *d = ss_xcalloc((size_t)n, sizeof *d);
    for (int j = 0; j < n; j++)
        d[j] = load[j] / speed[j];
    double t = stab_fair_share(n, d, NULL, k, an_ts_capacity_fraction(q, sw));
    free(d);
    return speed[k] * t;
}
