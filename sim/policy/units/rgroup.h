/*
 * rgroup — the requests of one tenant in service together on one server (work.concurrency,
 * docs/scenario.md#work): up to `cap` of them, all progressing at one common speed, since
 * they share the tenant's share of the server equally. The owner sets the speed (the rate
 * model's value for the number in service, core/rate.h), advances the group to the current
 * time before every change, and schedules the group's next completion (rg_next_s); the
 * request with the least work left finishes first (ties: the one admitted first).
 *
 * With cap = 1 a group is one request in service, as every server held before concurrency.
 * Invariant: work is charged up to `t`; at speed 0 (preempted, not running) nothing is.
 */
#ifndef SS_RGROUP_H
#define SS_RGROUP_H

#include "core/engine.h"
#include "base/util.h"

struct rgroup {
    int cap, n;
    struct request *r; /* [cap], in admission order */
    double speed;      /* per request, work seconds per second; 0 while not running */
    double t;          /* time up to which work is charged */
};

void rg_init(struct rgroup *g, int cap);
void rg_free(struct rgroup *g);

static inline int rg_full(const struct rgroup *g)
{
    return g->n >= g->cap;
}

/* The helpers below run for every request of every server: inline, and with the one-request
 * group (concurrency 1, the default) on the shortest path. */

/* Charges the work done since g->t at the current speed; g->t = now. */
static inline void rg_advance(struct rgroup *g, double now)
{
    double done = (now - g->t) * g->speed;
    if (done > 0 && g->n == 1) { /* the one-request group, without the loop */
        g->r[0].work -= done;
        if (g->r[0].work < 0)
            g->r[0].work = 0;
    } else if (done > 0)
        for (int i = 0; i < g->n; i++) {
            g->r[i].work -= done;
            if (g->r[i].work < 0) /* rounding at the completion instant */
                g->r[i].work = 0;
        }
    g->t = now;
}

/* Advances, then sets the speed for what follows. */
static inline void rg_set_speed(struct rgroup *g, double now, double speed)
{
    rg_advance(g, now);
    g->speed = speed;
}

/* Index of the request that finishes first (least work left), -1 when empty. */
static inline int rg_first(const struct rgroup *g)
{
    int best = g->n > 0 ? 0 : -1;
    for (int i = 1; i < g->n; i++)
        if (g->r[i].work < g->r[best].work)
            best = i;
    return best;
}

/* Seconds until the first request finishes at the current speed (INFINITY if none or 0). */
double rg_next_s_slow(const struct rgroup *g);
static inline double rg_next_s(const struct rgroup *g)
{
    if (g->n == 1 && g->speed > 0)
        return g->r[0].work / g->speed;
    return rg_next_s_slow(g);
}

/* Appends a request (the group must not be full). */
static inline void rg_add(struct rgroup *g, const struct request *r)
{
    SS_ASSERT(g->n < g->cap);
    g->r[g->n++] = *r;
}

/* Removes request i into *out (NULL: dropped), keeping admission order. */
static inline void rg_remove(struct rgroup *g, int i, struct request *out)
{
    SS_ASSERT(i >= 0 && i < g->n);
    if (out)
        *out = g->r[i];
    g->n--;
    for (int k = i; k < g->n; k++)
        g->r[k] = g->r[k + 1];
}

#endif
