/*
 * plainunit — a single FIFO server (semantics in plainunit.h). One timer, the
 * completion; its version is bumped whenever the request in service leaves (done,
 * failed, torn down), so a completion left in the heap by an early exit is skipped.
 */
#include "policy/units/plainunit.h"

#include <stdlib.h>

enum { PU_DONE, PU_TIMERS };
_Static_assert((int)PU_TIMERS <= (int)UNIT_TIMERS, "a unit has at most UNIT_TIMERS timers");

struct pu_unit {
    struct unit_addr ev;
    int n;
    int *ten;      /* per client: its tenant */
    double *speed; /* per client */
    int *fits;     /* per client: its memory fits the unit */
    double share;
    int busy, cur, down; /* cur: the client in service while busy */
    struct request req;
    double t_start;
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

/* Starts the oldest waiting request of the clients, failing those that cannot fit. */
static void start(struct sim *s, struct pu_unit *u)
{
    for (int k; (k = next_client(s, u)) >= 0;) {
        eng_pop(s, u->ten[k], &u->req);
        if (!u->fits[k]) {
            eng_fail(s, &u->req); /* "oom": "simulate": it cannot run in this unit */
            continue;
        }
        u->busy = 1;
        u->cur = k;
        u->t_start = s->now;
        unit_schedule(s, u->ev, s->now + u->req.work / u->speed[k], PU_DONE, u->ver, 0);
        return;
    }
}

/* Ends the service in progress (whatever the outcome) and books its busy time. */
static void stop(struct sim *s, struct pu_unit *u)
{
    eng_busy(s, u->share, u->t_start, s->now);
    u->busy_s += eng_clip(s, u->t_start, s->now);
    u->busy = 0;
    u->ver++;
}

static void pu_arrive(struct sim *s, void *self, int client)
{
    struct pu_unit *u = self;
    (void)client; /* any client's arrival is served in FIFO order with the others */
    if (!u->busy && !u->down)
        start(s, u);
}

static void pu_event(struct sim *s, void *self, const struct event *ev)
{
    struct pu_unit *u = self;
    if (!u->busy || ev->version != u->ver)
        return; /* failed by a fault or torn down meanwhile */
    stop(s, u);
    eng_complete(s, &u->req);
    start(s, u);
}

static int pu_fault(struct sim *s, void *self, int client)
{
    struct pu_unit *u = self;
    if (!u->busy || u->cur != client)
        return 0;
    stop(s, u);
    eng_fail(s, &u->req);
    start(s, u);
    return 1;
}

static void pu_abort(struct sim *s, void *self)
{
    struct pu_unit *u = self;
    if (u->busy) {
        stop(s, u);
        eng_fail(s, &u->req);
    }
    u->down = 1;
}

static void pu_finish(struct sim *s, void *self)
{
    struct pu_unit *u = self;
    if (u->busy)
        stop(s, u);
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
    free(u->speed);
    free(u->fits);
    free(u);
}

static const struct unit_ops pu_ops = {
    .rank = UNIT_RANK_PLAIN,
    .arrive = pu_arrive,
    .event = pu_event,
    .fault = pu_fault,
    .abort = pu_abort,
    .finish = pu_finish,
    .busy_s = pu_busy_s,
    .destroy = pu_destroy,
};

struct unit pu_new(const struct scenario *sc, struct unit_addr ev, int n, const int *tenants,
                   const double *speed, double share, double memory_gb)
{
    SS_ASSERT(n >= 1);
    struct pu_unit *u = ss_xcalloc(1, sizeof *u);
    u->ev = ev;
    u->n = n;
    u->ten = ss_xmalloc((size_t)n * sizeof *u->ten);
    u->speed = ss_xmalloc((size_t)n * sizeof *u->speed);
    u->fits = ss_xmalloc((size_t)n * sizeof *u->fits);
    for (int k = 0; k < n; k++) {
        SS_ASSERT(speed[k] > 0);
        u->ten[k] = tenants[k];
        u->speed[k] = speed[k];
        u->fits[k] = !(sc->tenants[tenants[k]].memory_gb > memory_gb);
    }
    u->share = share;
    return (struct unit){&pu_ops, u};
}
