/*
 * engine — event heap, arrivals, stop/drain and the request ledger (see
 * engine.h for the invariants). The loop itself is the few lines of eng_run();
 * everything a strategy does happens in its policy_ops callbacks.
 *
 * Cost: a binary heap, O(log n) per event with n = pending events (a handful per
 * server plus one per tenant), so the hot path is a sift of two or three levels.
 */
#include "core/engine.h"
#include "core/closed.h"
#include "core/llmstats.h"
#include "core/policy.h"
#include "core/tenant.h"
#include "base/util.h"

#include <gsl/gsl_randist.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* engine.h: the layout its comment describes (64-bit token counts included). */
_Static_assert(sizeof(struct tenant_rt) == 384, "struct tenant_rt is 3 x 128 bytes");
#include <stdlib.h>
#include <string.h>

/* ---- heap ---------------------------------------------------------------- */

void eng_schedule_call(struct sim *s, double t, uint32_t kind, uint32_t target, uint32_t version,
                       uint32_t aux)
{
    eng_schedule(s, t, kind, target, version, aux);
}

void eng_heap_grow(struct sim *s)
{
    s->heap_cap = s->heap_cap ? 2 * s->heap_cap : 64;
    s->heap = ss_xrealloc(s->heap, s->heap_cap * sizeof *s->heap);
}

/* The empty heap's top is a sentinel after every event, +INFINITY with the largest seq: the loop
 * compares the next arrival with heap[0] without testing whether the heap holds anything (an
 * arrival, or none due at INFINITY, comes first), and the first event scheduled overwrites it. */
static void heap_set_empty(struct sim *s)
{
    s->heap[0] = (struct event){INFINITY, UINT64_MAX, 0, 0, 0, 0};
}

/* Removes the earliest event (the caller has copied it): the last one sifts down from the top. */
static inline void heap_remove_top(struct sim *s)
{
    struct event *h = s->heap;
    size_t n = --s->heap_n;
    if (n == 0) {
        heap_set_empty(s);
        return;
    }
    eng_sift_down(h, n, h[n], 0);
}

void eng_replace_top(struct sim *s, double t, uint32_t kind, uint32_t target, uint32_t version,
                     uint32_t aux)
{
    eng_replace_top_in(s, t, kind, target, version, aux);
}

/* ---- arrival heap (one entry per tenant with a pending arrival) ----------- */

/* The entries carry their keys (not tenant indices into s->ten): a sift compares
 * neighbouring 24-byte entries instead of loading two scattered tenant_rt. */
static inline int arr_before(const struct arr_ent *a, const struct arr_ent *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* Sifts v down from the top; newest: v has the largest seq, so a child at the same time
 * goes first and the compare with v needs the time alone. */
static inline void arr_sift_down(struct sim *s, struct arr_ent v, int newest)
{
    struct arr_ent *h = s->arr_heap;
    int n = s->arr_n, i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && arr_before(&h[c + 1], &h[c]))
            c++;
        if (newest ? !(h[c].t <= v.t) : !arr_before(&h[c], &v))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
}

/* The loop reads the earliest arrival from s->arr_t / arr_seq, not through the heap. */
static inline void arr_cache_top(struct sim *s)
{
    if (s->arr_n > 0 && !s->arrivals_done) {
        s->arr_t = s->arr_heap[0].t;
        s->arr_seq = s->arr_heap[0].seq;
    } else {
        s->arr_t = INFINITY;
    }
}

static void arr_push(struct sim *s, int tenant, double t)
{
    struct arr_ent e = {t, s->seq++, tenant}, *h = s->arr_heap;
    int i = s->arr_n++;
    while (i > 0 && t < h[(i - 1) / 2].t) { /* e is the newest: ties stay below */
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
    arr_cache_top(s);
}

/* The tenant at the top gets its next arrival time (it stays in the heap). */
static inline __attribute__((always_inline)) void arr_retime_top(struct sim *s, double t)
{
    if (s->arr_n == 1) { /* one tenant's arrivals: nothing to sift, the cache is the entry */
        uint64_t seq = s->seq++;
        s->arr_heap[0].t = s->arr_t = t;
        s->arr_heap[0].seq = s->arr_seq = seq;
        return;
    }
    struct arr_ent v = {t, s->seq++, s->arr_heap[0].tenant};
    arr_sift_down(s, v, 1);
    /* Arrivals are still on (this one is being processed): the cache is the new top. */
    s->arr_t = s->arr_heap[0].t;
    s->arr_seq = s->arr_heap[0].seq;
}

/* Tenant i's pending arrival moves earlier, to t (a closed loop's user who thinks less than the
 * one due): found by a scan (a closed tenant's end only; the heap has one entry a tenant), then
 * sifted up as the newest entry. */
static void arr_move_earlier(struct sim *s, int tenant, double t)
{
    struct arr_ent *h = s->arr_heap;
    int i = 0;
    while (h[i].tenant != tenant)
        i++;
    SS_ASSERT(i < s->arr_n && t <= h[i].t);
    struct arr_ent e = {t, s->seq++, tenant};
    while (i > 0 && t < h[(i - 1) / 2].t) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
    arr_cache_top(s);
}

static void arr_pop_top(struct sim *s)
{
    struct arr_ent v = s->arr_heap[--s->arr_n];
    if (s->arr_n > 0)
        arr_sift_down(s, v, 0);
    arr_cache_top(s);
}

/* ---- queues -------------------------------------------------------------- */

static void rq_grow(struct rqueue *q)
{
    size_t ncap = q->cap ? 2 * q->cap : 64;
    struct request *nb = ss_xmalloc(ncap * sizeof *nb);
    for (size_t i = 0; i < q->n; i++)
        nb[i] = q->buf[(q->head + i) & (q->cap - 1)];
    free(q->buf);
    q->buf = nb;
    q->cap = ncap;
    q->head = 0;
}

/* ---- a run that cannot go on (engine.h) --------------------------------- */

/* What stream_failed points to when the run was halted rather than a stream failed: the loop
 * tests that one pointer, so a halt costs the hot path nothing more. */
static const struct tenant_rt halted;

/* Stops the run with "FILE: strategy \"S\", replication R: …"; eng_run() returns -1 with it.
 * Returns 1 (for `return halt(...)` in the checks). */
static int halt(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int halt(struct sim *s, const char *fmt, ...)
{
    if (s->halt[0])
        return 1;
    s->stream_failed = &halted;
    s->leave = 1;
    int n = snprintf(s->halt, sizeof s->halt, "%s: strategy \"%s\", replication %d: ",
                     s->sc->path ? s->sc->path : "scenario", s->strat->name, s->rep + 1);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof s->halt)
        vsnprintf(s->halt + n, sizeof s->halt - (size_t)n, fmt, ap);
    va_end(ap);
    return 1;
}

static int past_horizon(struct sim *s, const char *what, double t) __attribute__((noinline));
static int past_horizon(struct sim *s, const char *what, double t)
{
    if (isnan(t))
        return halt(s, "simulated time became not-a-number (%s): a model's time step overflowed",
                    what);
    return halt(s,
                "%s at %g s is past the clock's horizon of %g s (2^32), beyond which it no longer "
                "resolves 1 us: the run would need more simulated time than the clock can time "
                "(a stop.duration_s, more requests per second or less work per request)",
                what, t, SCN_CLOCK_HORIZON_S);
}

int eng_stall_checks = ENG_STALL_CHECKS;
uint64_t eng_event_budget;

/*
 * Every ENG_CHECK_EVERY events: time has not passed the horizon, and still moves. Moving is
 * at least one clock tick at the horizon (2^-20 s) in eng_stall_checks checks in a row: a run
 * whose time creeps by less (steps lost in rounding, or 1e-300 s of work at a time) would not
 * reach its stop in any number of days, so it is stopped rather than left to hang.
 */
static int check_progress(struct sim *s, uint64_t n_ev) __attribute__((noinline));
static int check_progress(struct sim *s, uint64_t n_ev)
{
    if (eng_event_budget && n_ev >= eng_event_budget)
        return halt(s, "stopped after %llu events, the event budget set by the caller",
                    (unsigned long long)n_ev);
    if (!(s->now <= SCN_CLOCK_HORIZON_S))
        return past_horizon(s, "an event", s->now);
    if (s->now - s->check_now >= SCN_CLOCK_TICK_S) {
        s->check_now = s->now;
        s->stalled = 0;
        return 0;
    }
    if (++s->stalled < eng_stall_checks)
        return 0;
    return halt(s,
                "simulated time stopped advancing at %.17g s: less than 2^-20 s (one clock tick "
                "at the horizon) in %llu events (a time step too small for the clock, or work "
                "so small that requests complete without time passing)",
                s->now, (unsigned long long)ENG_CHECK_EVERY * (unsigned long long)s->stalled);
}

static int too_many(struct sim *s) __attribute__((noinline));
static int too_many(struct sim *s)
{
    int big = 0; /* the tenant with the longest queue, named in the message */
    for (int i = 1; i < s->n_ten; i++)
        if (s->ten[i].q.n > s->ten[big].q.n)
            big = i;
    return halt(s,
                "%ld requests in the system (waiting or in service) at t = %g s, the limit "
                "(limits.in_system; by default %ld): the load outgrows what the strategy serves "
                "(tenant \"%s\" has %zu waiting) and its queues would exhaust memory (about 40 "
                "bytes a request); lower the load, bound the queue (tenants[].queue_limit) or "
                "raise limits.in_system",
                s->in_system, s->now, SCN_DEFAULT_IN_SYSTEM, s->ten[big].cfg->name,
                s->ten[big].q.n);
}

/* ---- arrivals ------------------------------------------------------------ */

static int is_saturated(const struct tenant_rt *t)
{
    return t->cfg->arrival.kind == ARR_SATURATED;
}

/* The window's start became known (t_warm): completions from now on count in it. */
static void window_open(struct sim *s)
{
    for (int i = 0; i < s->n_ten; i++)
        s->ten[i].done_at_warm = s->ten[i].done_all;
}

/* Time is about to pass t_stop, or the run ended: the window's completions are counted. */
static void window_close(struct sim *s)
{
    if (s->window_closed)
        return;
    s->window_closed = 1;
    for (int i = 0; i < s->n_ten; i++)
        s->ten[i].st.completed_in_window = s->ten[i].done_all - s->ten[i].done_at_warm;
}

/* Arrivals end at t: now, or the send of the request that reached the stop count (a request
 * that passed a front end was sent before it reaches the engine, and the window is the
 * clients': it ends with the last send, as it starts with the first measured one). */
static void stop_arrivals_at(struct sim *s, double t)
{
    if (s->arrivals_done)
        return;
    s->arrivals_done = 1;
    s->leave = 1;
    s->arr_t = INFINITY;
    s->t_stop = t;
    if (s->t_warm == INFINITY) { /* the warm-up never ended: measure nothing rather than garbage */
        s->t_warm = s->t_stop;
        window_open(s);
    }
}

static void stop_arrivals(struct sim *s)
{
    stop_arrivals_at(s, s->now);
}

/* Tenant t's stream ended with a send at `last` (its last request's): when it was the last
 * tenant, arrivals end there. */
static void tenant_ended(struct sim *s, struct tenant_rt *t, double last)
{
    if (!t->active)
        return;
    t->active = 0;
    if (--s->tenants_active == 0)
        stop_arrivals_at(s, last);
}

/* The first measured arrival (index idx, sent at `sent`)? Measuring never stops once started:
 * time and the arrival count only grow. */
static int warm_up_over(struct sim *s, long idx, double sent)
{
    const struct scenario *sc = s->sc;
    int over =
        sc->warmup_duration_s > 0 ? sent >= sc->warmup_duration_s : idx >= sc->warmup_requests;
    if (over) {
        s->measuring = 1;
        if (s->t_warm == INFINITY) {
            s->t_warm = sc->warmup_duration_s > 0 ? sc->warmup_duration_s : sent;
            window_open(s);
        }
    }
    return over;
}

/* Admits one request of tenant i at s->now (LLM tenants: with its tokens). Returns 0 if it was
 * rejected. Always inline: the compiler had come to keep it out of line, one call per arrival,
 * and the call with its register saves cost 25 instructions a request (callgrind, mm4). */
static inline __attribute__((always_inline)) int
admit(struct sim *s, int i, double work, int64_t in_tokens, int64_t out_tokens, double sent)
{
    struct tenant_rt *t = &s->ten[i];
    long idx = s->arrivals_total++;
    int measured = s->measuring || warm_up_over(s, idx, sent);
    if (measured)
        t->st.arrived++;
    if (s->arrivals_total >= s->stop_after)
        stop_arrivals_at(s, sent);
    struct rqueue *q = &t->q;
    if ((long)q->n >= t->queue_limit) {
        if (measured)
            t->st.rejected++;
        return 0;
    }
    if (s->in_system >= s->max_in_system) {
        too_many(s); /* the run stops; its figures are not reported */
        return 0;
    }
    if (q->n == q->cap)
        rq_grow(q);
    q->buf[(q->head + q->n++) & (q->cap - 1)] =
        (struct request){sent, work, work, -1.0, i, (uint8_t)measured, in_tokens, out_tokens};
    t->in_system++;
    s->in_system++;
    return 1;
}

/*
 * An open tenant's serial front end (docs/llm.md#engine-time): its arrival process draws send
 * times, each from the previous send (fe_base), and every send passes a first-come-first-served
 * server of fe[2i] a request before the engine sees it: a send at a reaches the engine at
 * max(a, free) + s, free being when the front end passed the previous send, which is that one's
 * arrival at the engine (fe_pass). The closed loop's own FIFO is closed.c's.
 */
static inline double fe_base(const struct sim *s, int i, double now)
{
    return s->fe && s->fe[2 * i] > 0 ? s->fe[2 * i + 1] : now;
}
static inline void fe_pass(struct sim *s, int i, double free_at, double *at)
{
    if (s->fe && s->fe[2 * i] > 0) {
        s->fe[2 * i + 1] = *at;
        *at = (*at > free_at ? *at : free_at) + s->fe[2 * i];
    }
}

/* The arrival at the top of the arrival heap happens now. */
static inline __attribute__((always_inline)) void on_arrival(struct sim *s, int may_mute)
{
    int i = s->arr_heap[0].tenant;
    struct tenant_rt *t = &s->ten[i];
    double work = t->next_work;
    int64_t in = t->next_in, out = t->next_out; /* this arrival's; ten_next draws the next's */
    /* A request was sent before it arrives here when it passed a serving front end (closed.h,
     * tenant.h): its arrival is its send time. */
    double base = fe_base(s, i, s->now); /* what the next send is drawn from */
    double sent = t->closed ? cl_sent(t->cl) : base;
    double t_next, w_next;
    /* Draw the next arrival before admitting this one: the stream's order is fixed. */
    int more = ten_next(t, base, &t_next, &w_next);
    if (more < 0) {
        s->stream_failed = t; /* eng_run() stops here */
        s->leave = 1;
        return;
    }
    if (more == 1) /* the front end passed this one now: the next waits for no earlier */
        fe_pass(s, i, s->now, &t_next);
    /* 1 is the constant of ten_next's inline case: the tests fold away for Poisson tenants. */
    t->next_t = more == 1 ? t_next : INFINITY;
    if (more == 1) {
        t->next_work = w_next;
        arr_retime_top(s, t_next);
    } else {
        arr_pop_top(s);
        if (more == CL_PAUSED) /* its time comes with a request's end (eng_closed_end) */
            t->next_work = w_next;
        else
            tenant_ended(s, t, sent);
    }
    if (admit(s, i, work, in, out, sent)) {
        if (!may_mute || t->announce)
            s->ops->arrive(s, s->pst, i);
    } else if (t->closed) { /* a rejected request ends its user's wait too */
        eng_closed_end(s, i);
    }
}

void eng_closed_end(struct sim *s, int tenant)
{
    if (s->arrivals_done) /* no user sends any more */
        return;
    struct tenant_rt *t = &s->ten[tenant];
    double at;
    switch (cl_end(t->cl, s->now, &at)) {
    case CL_NONE:
        return;
    case CL_PUSH:
        arr_push(s, tenant, at);
        break;
    case CL_RETIME:
        arr_move_earlier(s, tenant, at);
        break;
    }
    t->next_t = at;
}

/* A saturated tenant always has a request waiting while arrivals go on. */
static void refill_saturated(struct sim *s, int i)
{
    struct tenant_rt *t = &s->ten[i];
    if (s->arrivals_done || t->q.n != 0)
        return;
    double work = ten_draw_work(t); /* an LLM tenant's tokens into next_in, next_out */
    admit(s, i, work, t->next_in, t->next_out, s->now);
}

/* ---- request ledger ------------------------------------------------------ */

/* The rare part of eng_pop (engine.h): a saturated tenant's queue ran empty. */
void eng_pop_refill(struct sim *s, int tenant)
{
    refill_saturated(s, tenant);
}

void eng_push_front(struct sim *s, const struct request *r)
{
    struct rqueue *q = &s->ten[r->tenant].q;
    if (q->n == q->cap)
        rq_grow(q);
    q->head = (q->head + q->cap - 1) & (q->cap - 1);
    q->buf[q->head] = *r;
    q->n++;
}

void eng_fail(struct sim *s, const struct request *r)
{
    struct tenant_rt *t = &s->ten[r->tenant];
    t->in_system--;
    s->in_system--;
    if (r->measured)
        t->st.failed++;
    if (t->closed)
        eng_closed_end(s, r->tenant);
}

void eng_fail_queue(struct sim *s, int tenant)
{
    struct tenant_rt *t = &s->ten[tenant];
    while (t->q.n > 0) {
        struct request r = t->q.buf[t->q.head];
        t->q.head = (t->q.head + 1) & (t->q.cap - 1);
        t->q.n--;
        eng_fail(s, &r);
    }
}

void eng_down(struct sim *s, int tenant, double t0, double t1)
{
    s->ten[tenant].st.downtime_s += eng_clip(s, t0, t1);
}

/* Time to the tenant's next fault, from its own stream (faults must not shift arrivals). */
static double fault_gap(struct tenant_rt *t)
{
    return ten_exp(&t->fault_rng, 3600.0 / t->cfg->fault_rate_per_h);
}

/* ---- life cycle ---------------------------------------------------------- */

void eng_init(struct sim *s, const struct scenario *sc, const struct strategy_cfg *strat, int rep)
{
    memset(s, 0, sizeof *s);
    s->sc = sc;
    s->strat = strat;
    s->rep = rep;
    s->ops = strat->ops;
    s->t_warm = INFINITY;
    s->t_stop = INFINITY;
    s->arr_t = INFINITY;
    s->n_ten = sc->n_tenants;
    s->ten = ss_xcalloc((size_t)s->n_ten, sizeof *s->ten);
    /* One block for all histograms: large enough to come zeroed from the system, page by page
     * as latencies touch it, instead of 52 KB cleared per tenant. */
    s->hist_counts = ss_xcalloc((size_t)s->n_ten * ST_NBUCKETS, sizeof *s->hist_counts);
    for (int i = 0; i < s->n_ten; i++) {
        struct tenant_rt *t = &s->ten[i];
        ten_init(t, &sc->tenants[i], sc->path, sc->seed, i, rep);
        st_hist_init_at(&t->st.lat, s->hist_counts + (size_t)i * ST_NBUCKETS);
        if (t->cfg->llm) {
            t->llm = ss_xmalloc(sizeof *t->llm);
            lst_init(t->llm);
        }
        /* Limits as plain compares on the hot path: "none" is a bound never reached. */
        t->queue_limit = t->cfg->queue_limit > 0 ? t->cfg->queue_limit : LONG_MAX;
        t->sla_s = t->cfg->sla_p99_s > 0 ? t->cfg->sla_p99_s : -INFINITY; /* lat >= 0 */
        t->saturated = (uint8_t)is_saturated(t);
        t->announce = 1;
    }
    for (int i = 0; i < s->n_ten; i++) {
        double fe = ten_frontend_serial_s(&sc->tenants[i]);
        if (fe > 0 && !s->fe)
            s->fe = ss_xcalloc(2 * (size_t)s->n_ten, sizeof *s->fe);
        if (fe > 0)
            s->fe[2 * i] = fe;
    }
    s->stop_after = sc->stop_requests > 0 ? sc->stop_requests : LONG_MAX;
    s->tenants_active = s->n_ten;
    s->max_in_system = sc->max_in_system > 0 ? sc->max_in_system : SCN_DEFAULT_IN_SYSTEM;
    s->arr_heap = ss_xcalloc((size_t)s->n_ten, sizeof *s->arr_heap);
    eng_heap_grow(s);
    heap_set_empty(s);
    if (sc->warmup_requests == 0 && sc->warmup_duration_s <= 0)
        s->t_warm = 0;
    s->pst = s->ops->init(s, strat->cfg);
}

static void start(struct sim *s)
{
    const struct scenario *sc = s->sc;
    if (sc->stop_duration_s > 0)
        eng_schedule(s, sc->stop_duration_s, EV_STOP, 0, 0, 0);
    for (int i = 0; i < s->n_ten; i++) {
        struct tenant_rt *t = &s->ten[i];
        if (t->cfg->fault_rate_per_h > 0)
            eng_schedule(s, fault_gap(t), EV_FAULT, (uint32_t)i, 0, 0);
        if (is_saturated(t))
            continue;
        double t_first, w_first;
        int more = ten_next(t, 0.0, &t_first, &w_first);
        if (more < 0) {
            s->stream_failed = t;
            return;
        }
        if (more == 1) {
            fe_pass(s, i, 0.0, &t_first);
            t->next_work = w_first;
            t->next_t = t_first;
            arr_push(s, i, t_first);
        } else if (more == CL_PAUSED) { /* not at the start: every user sends at t = 0 */
            SS_FATAL("tenant %s: a closed loop with no user due at the start", t->cfg->name);
        } else {
            tenant_ended(s, t, s->now);
        }
    }
    /* Saturated tenants start with one request each at t = 0: all are admitted
     * first, then offered in tenant order, so a refill triggered by the first
     * tenant's service cannot use up a stop.requests budget meant for the others. */
    for (int i = 0; i < s->n_ten && !s->arrivals_done; i++)
        if (is_saturated(&s->ten[i]))
            refill_saturated(s, i);
    for (int i = 0; i < s->n_ten; i++)
        if (is_saturated(&s->ten[i]) && s->ten[i].q.n)
            s->ops->arrive(s, s->pst, i);
}

static void on_fault(struct sim *s, const struct event *ev)
{
    if (s->arrivals_done)
        return;
    int i = (int)ev->target;
    struct tenant_rt *t = &s->ten[i];
    eng_schedule(s, s->now + fault_gap(t), EV_FAULT, (uint32_t)i, 0, 0);
    if (s->ops->fault)
        s->ops->fault(s, s->pst, i);
}

static void check_conservation(const struct sim *s)
{
    long total_in = 0;
    for (int i = 0; i < s->n_ten; i++) {
        const struct tenant_rt *t = &s->ten[i];
        const struct tenant_stats *st = &t->st;
        long in_flight = st->arrived - st->completed - st->rejected - st->failed;
        if (in_flight < 0 || in_flight > t->in_system)
            SS_FATAL("conservation violated for tenant %s: arrived %ld, completed %ld, "
                     "rejected %ld, failed %ld, in system %ld",
                     t->cfg->name, st->arrived, st->completed, st->rejected, st->failed,
                     t->in_system);
        total_in += t->in_system;
    }
    if (total_in != s->in_system)
        SS_FATAL("conservation violated: tenants hold %ld requests, engine counts %ld", total_in,
                 s->in_system);
}

/* The event at the top of the heap happens now. */
static inline __attribute__((always_inline)) void run_event(struct sim *s)
{
    /* A copy: the handler's first eng_schedule overwrites the top (top_taken). */
    struct event ev = s->heap[0];
    s->now = ev.t;
    s->top_taken = 1;
    if (ev.kind >= EV_POLICY) /* the policy's, first: nearly every event is */
        s->ops->on_event(s, s->pst, &ev);
    else if (ev.kind == EV_FAULT)
        on_fault(s, &ev);
    else
        stop_arrivals(s); /* EV_STOP */
    if (s->top_taken) {   /* it scheduled nothing */
        s->top_taken = 0;
        heap_remove_top(s);
    }
}

/* Counts an event; every ENG_CHECK_EVERY, the progress check (before the event: at the time of
 * the one before). 1: the run stops. The count is a local of the loop, stored back at the end. */
static inline int count_event(struct sim *s, uint64_t *n)
{
    return (++*n & (ENG_CHECK_EVERY - 1)) == 0 && check_progress(s, *n);
}

/*
 * Arrivals and events until arrivals stop (s->leave: also a failed stream or a halt, so that one
 * flag is tested per iteration). The first iteration runs even when start() stopped arrivals
 * already, as the one loop did before the drain had its own. may_mute (a constant where it is
 * inlined): the policy turns announcements off (eng_may_mute), so each arrival tests its
 * tenant's flag; two copies of the loop, so that the other policies' arrivals do not pay for it.
 */
static inline __attribute__((always_inline)) void run_arrivals(struct sim *s, uint64_t *n_ev,
                                                               int may_mute)
{
    do {
        /* The earliest of the next arrival (s->arr_t, INFINITY if none is due: arrival times
         * are always finite) and the heap's top (the sentinel when empty), in (time, seq)
         * order. */
        const struct event *top = s->heap;
        if (s->arr_t < top->t || (s->arr_t == top->t && s->arr_seq < top->seq)) {
            if (s->arr_t == INFINITY)
                break;
            if (count_event(s, n_ev))
                break;
            s->now = s->arr_t;
            on_arrival(s, may_mute);
        } else {
            if (count_event(s, n_ev))
                break;
            run_event(s);
        }
    } while (!s->leave);
}

int eng_run(struct sim *s, char *err, size_t errlen)
{
    start(s);
    uint64_t n_ev = s->events;
    /* Then the drain, events alone (no arrival is due once they stopped). */
    if (!s->stream_failed) {
        if (s->may_mute)
            run_arrivals(s, &n_ev, 1);
        else
            run_arrivals(s, &n_ev, 0);
        if (s->sc->drain && s->arrivals_done)
            while (!s->stream_failed && s->in_system > 0 && s->heap_n > 0 &&
                   !count_event(s, &n_ev)) {
                if (s->heap[0].t > s->t_stop) /* past the window (the drain's completions) */
                    window_close(s);
                run_event(s);
            }
    }
    s->events = n_ev;
    /* Time past the horizon is found by the periodic check, or here for the end of a run
     * shorter than its period (the last arrival, the drain's last completion). */
    if (!s->stream_failed && !(s->now <= SCN_CLOCK_HORIZON_S))
        past_horizon(s, "the last event", s->now);
    if (s->halt[0])
        return ss_errf(err, errlen, "%s", s->halt);
    if (s->stream_failed)
        return ss_errf(err, errlen, "%s", ten_error(s->stream_failed));
    if (!s->arrivals_done)
        stop_arrivals(s); /* the heap ran dry (every stream ended) */
    window_close(s);
    check_conservation(s);
    return 0;
}

void eng_free(struct sim *s)
{
    if (s->ops && s->pst)
        s->ops->destroy(s->pst);
    for (int i = 0; i < s->n_ten; i++) {
        ten_free(&s->ten[i]);
        if (s->ten[i].llm) {
            lst_free(s->ten[i].llm);
            free(s->ten[i].llm);
        }
        free(s->ten[i].q.buf);
    }
    free(s->hist_counts);
    free(s->ten);
    free(s->fe);
    free(s->heap);
    free(s->arr_heap);
    memset(s, 0, sizeof *s);
}
