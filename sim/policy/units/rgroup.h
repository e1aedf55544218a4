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

/* Charges the work done since g->t at the current speed; g->t = now. */
void rg_advance(struct rgroup *g, double now);
/* Advances, then sets the speed for what follows. */
void rg_set_speed(struct rgroup *g, double now, double speed);
/* Index of the request that finishes first (least work left), -1 when empty. */
int rg_first(const struct rgroup *g);
/* Seconds until the first request finishes at the current speed (INFINITY if none or 0). */
double rg_next_s(const struct rgroup *g);
/* Appends a request (the group must not be full). */
void rg_add(struct rgroup *g, const struct request *r);
/* Removes request i into *out (NULL: dropped), keeping admission order. */
void rg_remove(struct rgroup *g, int i, struct request *out);

#endif
