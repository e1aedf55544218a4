/*
 * engine — the discrete-event core. One `struct sim` holds everything about one
 * replication of one strategy (no globals), so replications and sweep workers can
 * run side by side.
 *
 * Invariants:
 * - Events pop in (time, seq) order; seq is a global counter, so simultaneous
 *   events run in the order they were scheduled — runs are deterministic.
 * - Events are never removed from the heap. A policy that reschedules something
 *   bumps a version number it owns and ignores popped events whose version is
 *   stale (as Redis's ae.c marks timers deleted instead of unlinking them): O(1)
 *   cancel, at the price of a few dead entries in the heap.
 * - The loop leaves the event it is running at the top of the heap while the handler runs;
 *   the handler's first eng_schedule takes its place (one sift down, not a removal and an
 *   insertion), and the loop removes it only if the handler scheduled nothing. The handler
 *   gets a copy of its event. Order is unchanged: the heap pops in (time, seq) order whatever
 *   its layout.
 * - Each tenant's one pending arrival lives in a small heap of its own keyed the
 *   same way (time, seq): the next arrival replaces the current one at the top,
 *   one sift instead of a pop and a push on the main heap, and the main heap holds
 *   only the policies' timers. Order is exactly as if arrivals were events.
 * - A tenant's next arrival is drawn, and numbered, before the current one is admitted
 *   (on_arrival; its time in next_t), so an event a policy schedules at `now` while admitting
 *   an arrival runs after every arrival due at that instant: an LLM engine's begin timer relies
 *   on it to start one step for simultaneous arrivals (policy/units/llmengine.h, le_defer).
 * - No allocation per event in steady state: the heap and the tenant queues are
 *   arrays that only grow (to the high-water mark), and requests are values.
 * - Conservation: every request that arrives is completed, rejected, failed or
 *   still in the system at the end; eng_run() checks it and aborts if not (a bug).
 * - Bad input found during a run (a trace that changed since load) is not a bug: eng_run()
 *   returns -1 with the message and its callers hand it up; nothing in here exits.
 * - A run that cannot go on stops the same way (eng_run() returns -1 with the message), never
 *   hangs or exhausts memory: simulated time passing the clock's horizon (scenario.h), time
 *   not advancing over ENG_STALL_CHECKS x ENG_CHECK_EVERY events, or more requests in the
 *   system than the scenario's limit (limits.in_system). The time checks run every
 *   ENG_CHECK_EVERY events (one mask test per event) and once at the end; the limit on
 *   admission (one comparison).
 */
#ifndef SS_ENGINE_H
#define SS_ENGINE_H

#include "core/scenario.h"
#include "core/stats.h"
#include "base/rng.h"
#include "base/util.h"

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* Progress checks: every 2^20 events; a stall is 64 checks in a row (67,108,864 events) in
 * which simulated time moved by less than one clock tick at the horizon (SCN_CLOCK_TICK_S).
 * The fuzz build (tests/fuzz/fuzz.mk) checks every 2^8 events so that its event budget
 * (below) bounds each input's run to a few thousand events. */
#ifndef ENG_CHECK_EVERY_LOG2
#define ENG_CHECK_EVERY_LOG2 20
#endif
#define ENG_CHECK_EVERY (1u << ENG_CHECK_EVERY_LOG2)
#define ENG_STALL_CHECKS 64
/* The checks in a row that make a stall: ENG_STALL_CHECKS; tests lower it to see one sooner. */
extern int eng_stall_checks;
/* 0 (the default): no bound. Otherwise a run stops with an error ("event budget") at the first
 * progress check after this many events: for the fuzzer, which runs every scenario that loads,
 * whatever its length. */
extern uint64_t eng_event_budget;

/* Engine event kinds; policies use EV_POLICY and above. */
enum { EV_FAULT = 1, EV_STOP = 2, EV_POLICY = 16 };

struct event {
    double t;
    uint64_t seq;
    uint32_t kind;
    uint32_t target;
    uint32_t version;
    uint32_t aux;
};

struct request {
    double arrival; /* s */
    double work;    /* remaining work, s on a whole unshared GPU */
    double work0;   /* the work it arrived with */
    double start;   /* first time in service (s), < 0 until then */
    int32_t tenant;
    uint8_t measured; /* arrived after the warm-up: counts in the statistics */
    /* LLM tenants: prompt tokens and tokens to generate (each >= 1, <= TR_TOKENS_MAX or the
     * token distributions' maximum); 0 for other tenants. 64-bit: a trace row may hold more
     * than 2^31 (docs/robustness.md#counts-and-their-bounds). */
    int64_t in_tokens, out_tokens;
};

/* FIFO ring of waiting requests. */
struct rqueue {
    struct request *buf;
    size_t cap, head, n;
};

/* Figures of a tenant's requests. completed_in_window is filled in at the end of eng_run() (from
 * the window's two counts, tenant_rt): nothing reads it during a run, and a completion then
 * costs no test of its time. */
struct tenant_stats {
    long arrived, completed, rejected, failed; /* measured requests only */
    long completed_in_window;                  /* completions in [t_warm, t_stop], any request */
    double sum_latency_s, sum_wait_s, sum_work_s;
    long sla_met;
    double downtime_s; /* time the tenant's slots were unavailable (faults, reconfig) */
    struct st_hist lat;
};

/* A tenant's pending arrival: its time and sequence number (tie-break with events). */
struct arr_ent {
    double t;
    uint64_t seq;
    int tenant;
};

struct trace_src;
struct cl_state;
struct lst_stats;
/* 384 bytes (3 × 128): an index into s->ten is then two lea and a shift; a field more costs an
 * imul at every tenant look-up on the hot paths (has_work, eng_complete, eng_pop). */
struct tenant_rt {
    const struct tenant_cfg *cfg;
    struct rng rng;       /* arrivals and work: common random numbers across strategies */
    struct rng fault_rng; /* faults, separate so they do not shift the arrival stream */
    gsl_rng rng_gsl;      /* rng seen as a gsl_rng, for gsl_ran_* (gamma, lognormal) */
    struct rqueue q;
    struct tenant_stats st;
    double mmpp_state_end;
    double gamma_shape, gamma_scale;
    double lognorm_mu, lognorm_sigma;
    uint8_t poisson_exp; /* Poisson arrivals and exponential work: ten_next's inline case */
    uint8_t closed;      /* closed-loop arrivals: each end of a request calls eng_closed_end */
    uint8_t saturated;   /* cfg's arrival is "saturated": eng_pop refills its queue */
    uint8_t announce;    /* ops->arrive is called for its arrivals (eng_announce; 1 by default) */
    uint8_t active;      /* still generating arrivals */
    uint8_t mmpp_state;  /* < SCN_MAX_MMPP */
    double gap_mean_s;   /* 1 / rate (poisson) */
    double work_mean_s;  /* mean work (exponential) */
    union {              /* by arrival kind: the open trace (trace), the users' loop (closed) */
        struct trace_src *trace;
        struct cl_state *cl;
    };
    double next_work; /* work of the arrival already scheduled (its time: in s->arr_heap) */
    double next_t;    /* … and its time, INFINITY once the stream has ended */
    int64_t next_in, next_out; /* LLM tenants: that arrival's tokens (as struct request has them) */
    struct lst_stats *llm;     /* LLM tenants: token figures (core/llmstats.h); NULL otherwise */
    long in_system;            /* all requests (measured or not) in queue or in service */
    /* Completions of any request, and their count when the window opened (t_warm known): those
     * in the window are done_all at its close less done_at_warm (completions come in time
     * order, so no completion needs a test of its time against the window). */
    long done_all, done_at_warm;
    long queue_limit; /* cfg's, LONG_MAX when unlimited */
    double sla_s;     /* cfg's SLA, -INFINITY when none */
};

struct sim {
    const struct scenario *sc;
    const struct strategy_cfg *strat;
    int rep;
    double now;
    uint64_t seq;
    uint64_t events;
    struct event *heap;
    size_t heap_n, heap_cap;
    /* The loop is running heap[0]'s handler and has not removed it yet: the handler's first
     * eng_schedule takes its place (eng_replace_top), one sift instead of a removal and an
     * insertion; if it schedules nothing the loop removes it after. */
    int top_taken;
    /* The loop's one test per iteration: arrivals stopped, a stream failed or the run halted. */
    int leave;
    int may_mute;             /* the policy may turn arrivals' announcements off (eng_may_mute) */
    struct arr_ent *arr_heap; /* tenants with a pending arrival, a min-heap on (t, seq) */
    int arr_n;
    double arr_t;     /* the top's t, INFINITY when no arrival is due (none, or stopped) */
    uint64_t arr_seq; /* the top's seq */
    int n_ten;
    struct tenant_rt *ten;
    /* Open tenants' serial front ends (an LLM engine's frontend_serial_ms; a closed loop's is its
     * cl_state's): per tenant i, fe[2i] the service time per request (0: none) and fe[2i + 1]
     * the scheduled arrival's send time, which its request records while the arrival heap holds
     * when it reaches the engine (engine.c). NULL when no open tenant has one, so that struct
     * tenant_rt keeps its size. */
    double *fe;
    const struct policy_ops *ops;
    void *pst;
    long arrivals_total; /* all arrivals, warm-up included */
    long stop_after;     /* stop.requests, LONG_MAX when not set */
    int measuring;       /* the warm-up is over: arrivals are measured */
    long in_system;
    int tenants_active;
    int arrivals_done;
    /* The measurement window [t_warm, t_stop]: +INFINITY until known, so that the clip to it
     * (eng_clip, at every busy interval) is a max and a min, with no test of whether it is. */
    double t_warm;     /* start of the measurement window */
    double t_stop;     /* end of arrivals */
    int window_closed; /* time passed t_stop (or the run ended): completed_in_window is set */
    double busy_acc;   /* Σ share × busy time inside the window (GPU-seconds) */
    double switch_acc; /* Σ share × switching time inside the window */
    /* A tenant whose stream failed (ten_next < 0): the run stopped there, eng_run() returns -1.
     * Also set (to an engine-internal marker) when the run was halted, see halt below. */
    const struct tenant_rt *stream_failed;
    /* Why the run was stopped (time, or the limit on requests in the system), "" while it runs;
     * eng_run() then returns -1 with it. */
    char halt[512];
    long max_in_system;    /* the scenario's limit */
    uint64_t *hist_counts; /* every tenant's latency histogram, one block (st_hist_init_at) */
    double check_now;      /* simulated time at the last progress check */
    int stalled;           /* progress checks in a row that found time where it was */
};

/* Builds a replication; the strategy's policy is initialised. */
void eng_init(struct sim *s, const struct scenario *sc, const struct strategy_cfg *strat, int rep);
/* Runs to the end (stop + drain), checks conservation; 0. Or -1 with the message when a
 * tenant's stream failed (a replayed trace changed since load): the run stopped there, its
 * figures mean nothing, eng_free() is all that is left to do. */
int eng_run(struct sim *s, char *err, size_t errlen);
void eng_free(struct sim *s);

void eng_heap_grow(struct sim *s);

void eng_replace_top(struct sim *s, double t, uint32_t kind, uint32_t target, uint32_t version,
                     uint32_t aux);

/* (time, seq) order of two events. */
static inline int eng_ev_before(const struct event *a, const struct event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* Sifts v down from the top of the heap h of n events (h[0] is free for it). newest: v has the
 * largest seq in the heap, so a child at the same time goes first and the compare with v needs
 * the time alone (eng_replace_top_in); otherwise the full (time, seq) compare (the removal of the
 * top, whose replacement is the last event). Always inline with newest a constant, so each caller
 * gets its own loop without the test. */
static inline __attribute__((always_inline)) void eng_sift_down(struct event *h, size_t n,
                                                                struct event v, int newest)
{
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && eng_ev_before(&h[c + 1], &h[c]))
            c++;
        if (newest ? !(h[c].t <= v.t) : !eng_ev_before(&h[c], &v))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
}

/*
 * The body of eng_replace_top: the event at the top has been taken by the loop, and the new one
 * (the newest: a child at the same time goes first) sifts down from the top in its place.
 * eng_replace_top calls it out of line; eng_schedule_last has it inline (one call site, the
 * exclusive completion that starts the next request: the call and its arguments' packing cost
 * more there than the sift).
 */
static inline __attribute__((always_inline)) void eng_replace_top_in(struct sim *s, double t,
                                                                     uint32_t kind, uint32_t target,
                                                                     uint32_t version, uint32_t aux)
{
    struct event e = {t, s->seq++, kind, target, version, aux};
    s->top_taken = 0;
    eng_sift_down(s->heap, s->heap_n, e, 1);
}

/*
 * Schedules an event. Inline: policies call it once or more per request. The new event has
 * the largest seq in the heap, so it goes above a parent only if strictly earlier: the sift
 * compares times alone and the (time, seq) order is kept exactly. The first one scheduled by
 * an event's handler replaces that event at the top (top_taken): the heap's order is the
 * (time, seq) order whatever its layout, so events pop exactly as they would otherwise.
 */
static inline void eng_schedule(struct sim *s, double t, uint32_t kind, uint32_t target,
                                uint32_t version, uint32_t aux)
{
    if (s->top_taken) {
        eng_replace_top(s, t, kind, target, version, aux);
        return;
    }
    if (s->heap_n == s->heap_cap)
        eng_heap_grow(s);
    struct event e = {t, s->seq++, kind, target, version, aux};
    struct event *h = s->heap;
    size_t i = s->heap_n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!(t < h[parent].t))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

/* eng_schedule out of line (eng_schedule_last). */
void eng_schedule_call(struct sim *s, double t, uint32_t kind, uint32_t target, uint32_t version,
                       uint32_t aux);

/* eng_schedule as the last statement of a handler's path: either case is a tail call, so a fast
 * path that ends with it makes no call it returns from, and its function saves no register for
 * one (exclusive's completion that starts the next request). */
static inline void eng_schedule_last(struct sim *s, double t, uint32_t kind, uint32_t target,
                                     uint32_t version, uint32_t aux)
{
    if (s->top_taken)
        eng_replace_top_in(s, t, kind, target, version, aux);
    else
        eng_schedule_call(s, t, kind, target, version, aux);
}

/* Another arrival of the tenant is due at this very instant: an LLM engine waits for it before
 * it begins a step (policy/units/llmengine.h), and begins at once otherwise. */
static inline int eng_arrival_due_now(const struct sim *s, int tenant)
{
    return !s->arrivals_done && s->ten[tenant].next_t <= s->now;
}

/* Whether the policy hears of the tenant's arrivals (ops->arrive after each one admitted; on
 * unless the policy turns it off). A policy for which an arrival would do nothing for a while
 * (exclusive: every GPU of the tenant busy, the common case under load) turns it off until that
 * changes, and the engine then saves the call. The start's announcement of saturated tenants is
 * made whatever it says. The flag is read only if the policy called eng_may_mute() from its
 * init(): the engine then runs the copy of its loop that tests it (and no other pays for it). */
static inline void eng_announce(struct sim *s, int tenant, int on)
{
    s->ten[tenant].announce = (uint8_t)(on != 0);
}
static inline void eng_may_mute(struct sim *s)
{
    s->may_mute = 1;
}

/* Tenant queue access for policies. */
static inline size_t eng_qlen(const struct sim *s, int tenant)
{
    return s->ten[tenant].q.n;
}
void eng_pop_refill(struct sim *s, int tenant);

/* Takes the head of the tenant's queue into *r (stamps its service start). Inline:
 * it runs once per request, from every policy. */
static inline void eng_pop(struct sim *s, int tenant, struct request *r)
{
    struct tenant_rt *t = &s->ten[tenant];
    if (t->q.n == 0)
        SS_FATAL("eng_pop: tenant %d has no request waiting", tenant);
    *r = t->q.buf[t->q.head];
    t->q.head = (t->q.head + 1) & (t->q.cap - 1);
    t->q.n--;
    if (r->start < 0)
        r->start = s->now;
    if (t->q.n == 0 && t->saturated)
        eng_pop_refill(s, tenant);
}
/* eng_pop without a call: 1 with the head taken into *r when the queue has one and no refill is
 * due after it (another waits, or the tenant is not saturated); 0, taking nothing, otherwise (the
 * caller then takes the eng_pop path, out of line). */
static inline int eng_pop_now(struct sim *s, int tenant, struct request *r)
{
    struct tenant_rt *t = &s->ten[tenant];
    if (t->q.n == 0 || (t->q.n == 1 && t->saturated))
        return 0;
    *r = t->q.buf[t->q.head];
    t->q.head = (t->q.head + 1) & (t->q.cap - 1);
    t->q.n--;
    if (r->start < 0)
        r->start = s->now;
    return 1;
}
/* Puts a request back at the head of its queue (e.g. preempted by a reconfiguration). */
void eng_push_front(struct sim *s, const struct request *r);

/* Outcomes. */

static inline int eng_in_window(const struct sim *s, double t)
{
    return t >= s->t_warm && t <= s->t_stop; /* false while t_warm is not known (+INFINITY) */
}

/* A request of a closed-loop tenant ended (completed, rejected or failed): its user thinks,
 * then sends again (core/closed.h). */
void eng_closed_end(struct sim *s, int tenant);

/* The request is done now. Inline: it runs once per request, from every policy. */
static inline void eng_complete(struct sim *s, const struct request *r)
{
    struct tenant_rt *t = &s->ten[r->tenant];
    t->in_system--;
    s->in_system--;
    t->done_all++;
    if (t->closed)
        eng_closed_end(s, r->tenant);
    if (!r->measured)
        return;
    double lat = s->now - r->arrival;
    struct tenant_stats *st = &t->st;
    st->completed++;
    st->sum_latency_s += lat;
    st->sum_wait_s += r->start - r->arrival;
    st->sum_work_s += r->work0;
    st->sla_met += lat <= t->sla_s;
    st_hist_add(&st->lat, lat);
}
void eng_fail(struct sim *s, const struct request *r);
/* Fails every waiting request of the tenant (its slot is gone). */
void eng_fail_queue(struct sim *s, int tenant);

/* Length of [t0, t1] inside the measurement window (warm-up end → stop); 0 until the window's
 * start is known (t_warm +INFINITY). Branch-free: maxsd, minsd and a compare. */
static inline double eng_clip(const struct sim *s, double t0, double t1)
{
    t0 = t0 < s->t_warm ? s->t_warm : t0;
    t1 = t1 > s->t_stop ? s->t_stop : t1;
    return t1 > t0 ? t1 - t0 : 0;
}

static inline void eng_busy(struct sim *s, double share, double t0, double t1)
{
    s->busy_acc += share * eng_clip(s, t0, t1);
}

/* Utilisation bookkeeping: `share` of one GPU switching over [t0, t1]. Inline, as eng_busy:
 * time-slicing books a switch for about every request. */
static inline void eng_switching(struct sim *s, double share, double t0, double t1)
{
    s->switch_acc += share * eng_clip(s, t0, t1);
}
/* Tenant unavailable over [t0, t1] (for its availability figure). */
void eng_down(struct sim *s, int tenant, double t0, double t1);

/* True once arrivals stopped and nothing is left to serve. */
static inline int eng_idle_end(const struct sim *s)
{
    return s->arrivals_done && s->in_system == 0;
}

#endif
