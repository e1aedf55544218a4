/*
 * plainunit — a single FIFO server (semantics in plainunit.h). One timer, the
 * completion; its version is bumped whenever the requests in service change (one done,
 * failed, torn down, one added), so a completion left in the heap is skipped.
 */
#include "policy/units/plainunit.h"
#include "core/rate.h"
#include "policy/units/rgroup.h"

#include <stdlib.h>

enum { PU_DONE, PU_TIMERS };
_Static_assert((int)PU_TIMERS <= (int)UNIT_TIMERS, "a unit has at most UNIT_TIMERS timers");

struct pu_unit {
    struct unit_addr ev;
    const struct scenario *sc;
    int n;
    int *ten;  /* per client: its tenant */
    int *fits; /* per client: its memory fits the unit */
    /* Per client, cached: one request's speed on the unit (rate_speed_n) and the share of the
     * GPU it keeps busy (share × rate_sm_in_use / sm, the utilisation weight). */
    double *speed1, *busy1;
    double sm, bw, share;
    int cur, down;   /* cur: the client in service while the group is not empty */
    struct rgroup g; /* the requests in service (several only with one client) */
    double t_start;  /* start of the current busy stretch at the current width */
    double busy_s;
    uint32_t ver;
};

/* The client whose request is next; one client needs no FIFO merge (MIG's usual case). */
static int next_client(const struct sim *s, const struct pu_unit *u)
{
    if (u->n == 1)
        return eng_qlen(s, u->ten[0]) > 0 ? 0 : -1;
    return unit_oldest(s, u->n, u->ten);
}

static const struct tenant_cfg *cur_tenant(const struct pu_unit *u)
{
    return &u->sc->tenants[u->ten[u->cur]];
}

/* Books the busy time since t_start at the width of the requests in service. */
static void book(struct sim *s, struct pu_unit *u)
{
    if (u->g.n > 0) {
        double busy = u->g.n == 1
                          ? u->busy1[u->cur]
                          : u->share * (rate_sm_in_use(cur_tenant(u), u->sm, u->g.n) / u->sm);
        eng_busy(s, busy, u->t_start, s->now);
        u->busy_s += eng_clip(s, u->t_start, s->now);
    }
    u->t_start = s->now;
}

/* The group changed: new speed, and the next completion rescheduled. */
static void resched(struct sim *s, struct pu_unit *u)
{
    u->ver++;
    if (u->g.n == 0) {
        rg_set_speed(&u->g, s->now, 0);
        return;
    }
    rg_set_speed(&u->g, s->now, rate_speed_n(&s->sc->gpu, cur_tenant(u), u->sm, u->bw, u->g.n));
    unit_schedule(s, u->ev, s->now + rg_next_s(&u->g), PU_DONE, u->ver, 0);
}

/*
 * One request at a time (g.cap 1: concurrency 1, or several clients): the speed and width
 * cached per client, the same engine calls in the same order, so the same numbers, as the
 * general path below (book, rgroup, resched) without a rate-model call per request.
 */
static void start_one(struct sim *s, struct pu_unit *u)
{
    for (int k; (k = next_client(s, u)) >= 0;) {
        struct request *r = &u->g.r[0];
        eng_pop(s, u->ten[k], r);
        if (!u->fits[k]) {
            eng_fail(s, r); /* "oom": "simulate": it cannot run in this unit */
            continue;
        }
        u->cur = k;
        u->g.n = 1;
        u->t_start = s->now; /* every stop bumped ver: earlier completions are stale */
        unit_schedule(s, u->ev, s->now + r->work / u->speed1[k], PU_DONE, u->ver, 0);
        return;
    }
}

static void done_one(struct sim *s, struct pu_unit *u)
{
    eng_busy(s, u->busy1[u->cur], u->t_start, s->now);
    u->busy_s += eng_clip(s, u->t_start, s->now);
    u->g.n = 0;
    u->g.r[0].work = 0;
    eng_complete(s, &u->g.r[0]);
    u->ver++;
    start_one(s, u);
}

/* Takes the oldest waiting requests while there is room, failing those that cannot fit. */
static void fill(struct sim *s, struct pu_unit *u)
{
    if (u->g.cap == 1) {
        if (u->g.n == 0)
            start_one(s, u);
        return;
    }
    int added = 0;
    while (!rg_full(&u->g)) {
        int k = u->g.n > 0 ? (eng_qlen(s, u->ten[u->cur]) > 0 ? u->cur : -1) : next_client(s, u);
        if (k < 0)
            break;
        struct request r;
        eng_pop(s, u->ten[k], &r);
        if (!u->fits[k]) {
            eng_fail(s, &r); /* "oom": "simulate": it cannot run in this unit */
            continue;
        }
        if (u->g.n == 0)
            u->cur = k;
        if (!added)
            book(s, u);
        rg_advance(&u->g, s->now);
        rg_add(&u->g, &r);
        added = 1;
    }
    if (added)
        resched(s, u);
}

static void pu_arrive(struct sim *s, void *self, int client)
{
    struct pu_unit *u = self;
    (void)client; /* any client's arrival is served in FIFO order with the others */
    if (u->g.cap == 1) {
        if (u->g.n == 0 && !u->down)
            start_one(s, u);
    } else if (!u->down) {
        fill(s, u);
    }
}

static void pu_event(struct sim *s, void *self, const struct event *ev)
{
    struct pu_unit *u = self;
    if (u->g.n == 0 || ev->version != u->ver)
        return; /* failed by a fault or torn down meanwhile */
    if (u->g.cap == 1) {
        done_one(s, u);
        return;
    }
    book(s, u);
    rg_advance(&u->g, s->now);
    struct request r;
    rg_remove(&u->g, rg_first(&u->g), &r);
    r.work = 0;
    eng_complete(s, &r);
    resched(s, u);
    fill(s, u);
}

/* Fails every request in service. */
static void fail_all(struct sim *s, struct pu_unit *u)
{
    book(s, u);
    rg_advance(&u->g, s->now);
    while (u->g.n > 0) {
        struct request r;
        rg_remove(&u->g, 0, &r);
        eng_fail(s, &r);
    }
    resched(s, u);
}

static int pu_fault(struct sim *s, void *self, int client)
{
    struct pu_unit *u = self;
    if (u->g.n == 0 || u->cur != client)
        return 0;
    fail_all(s, u);
    fill(s, u);
    return 1;
}

static void pu_abort(struct sim *s, void *self)
{
    struct pu_unit *u = self;
    fail_all(s, u);
    u->down = 1;
}

static void pu_resume(struct sim *s, void *self)
{
    struct pu_unit *u = self;
    (void)s;
    u->down = 0;
}

static void pu_finish(struct sim *s, void *self)
{
    book(s, self);
}

static double pu_busy_s(const void *self)
{
    const struct pu_unit *u = self;
    return u->busy_s;
}

static void pu_destroy(void *self)
{
    struct pu_unit *u = self;
    free(u->ten);
    free(u->fits);
    free(u->speed1);
    free(u->busy1);
    rg_free(&u->g);
    free(u);
}

static const struct unit_ops pu_ops = {
    .rank = UNIT_RANK_PLAIN,
    .arrive = pu_arrive,
    .event = pu_event,
    .fault = pu_fault,
    .abort = pu_abort,
    .resume = pu_resume,
    .finish = pu_finish,
    .busy_s = pu_busy_s,
    .destroy = pu_destroy,
};

struct unit pu_new(const struct scenario *sc, struct unit_addr ev, int n, const int *tenants,
                   double sm, double bw, double share, double memory_gb)
{
    SS_ASSERT(n >= 1 && sm > 0 && bw > 0);
    struct pu_unit *u = ss_xcalloc(1, sizeof *u);
    u->ev = ev;
    u->sc = sc;
    u->n = n;
    u->ten = ss_xmalloc((size_t)n * sizeof *u->ten);
    u->fits = ss_xmalloc((size_t)n * sizeof *u->fits);
    u->speed1 = ss_xmalloc((size_t)n * sizeof *u->speed1);
    u->busy1 = ss_xmalloc((size_t)n * sizeof *u->busy1);
    for (int k = 0; k < n; k++) {
        const struct tenant_cfg *t = &sc->tenants[tenants[k]];
        u->speed1[k] = rate_speed_n(&sc->gpu, t, sm, bw, 1);
        u->busy1[k] = share * (rate_sm_in_use(t, sm, 1) / sm);
        u->ten[k] = tenants[k];
        u->fits[k] = !(sc->tenants[tenants[k]].memory_gb > memory_gb);
        SS_ASSERT(n == 1 || sc->tenants[tenants[k]].work.concurrency <= 1);
    }
    u->sm = sm;
    u->bw = bw;
    u->share = share;
    int conc = sc->tenants[tenants[0]].work.concurrency;
    rg_init(&u->g, n == 1 && conc > 1 ? conc : 1);
    return (struct unit){&pu_ops, u};
}
