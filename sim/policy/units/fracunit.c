/*
 * fracunit — processor sharing among unthrottled clients, with per-window budgets (the model
 * is in fracunit.h). Everything happens at one pending event: the earliest of a completion,
 * a limited client spending its budget, and the end of the window while a limited client is
 * busy. At it (and at every arrival) the work done since t_acct is charged at the old speeds,
 * the window rolled over if it ended, and the next event computed afresh.
 */
#include "policy/units/fracunit.h"

#include <math.h>
#include <stdlib.h>

enum { FU_T_NEXT, FU_TIMERS };
enum { FU_NEXT_DONE, FU_NEXT_SPENT };
_Static_assert((int)FU_TIMERS <= (int)UNIT_TIMERS, "a unit has at most UNIT_TIMERS timers");

/* Work (whole-GPU seconds) below which a request or a budget counts as spent: the
 * accumulated rounding of charging it piecewise, FU_EPS or, late in a run, a few ulps of the
 * clock (2^-50 of now): work is charged as differences of times, so a residue below the
 * clock's resolution is rounding, not work (at 10^8 s a time step is 1.5e-8 s). */
#define FU_EPS 1e-12
#define FU_REL_TOL 0x1p-50

static void set_tol(const struct sim *s, struct fu_unit *u)
{
    double t = s->now * FU_REL_TOL;
    u->tol = t > FU_EPS ? t : FU_EPS;
}

static int running(const struct fu_unit *u, const struct fu_client *c)
{
    return c->busy && (!c->limited || c->budget > u->tol);
}

static int n_running(const struct fu_unit *u)
{
    int n = 0;
    for (int k = 0; k < u->n; k++)
        n += running(u, &u->cli[k]);
    return n;
}

/* Charges [t_acct, now] at the speeds of that interval. */
static void account(struct sim *s, struct fu_unit *u)
{
    double dt = s->now - u->t_acct;
    int n = n_running(u);
    set_tol(s, u);
    if (dt > 0) {
        for (int k = 0; k < u->n; k++) {
            struct fu_client *c = &u->cli[k];
            if (c->busy && !running(u, c))
                u->throttle_s += dt;
            if (!running(u, c))
                continue;
            c->req.work -= dt / n;
            if (c->limited)
                c->budget -= dt / n;
        }
        if (n > 0) {
            eng_busy(s, 1.0, u->t_acct, s->now);
            u->busy_s += eng_clip(s, u->t_acct, s->now);
        }
    }
    u->t_acct = s->now;
}

static double win_end_of(const struct fu_unit *u, long long w)
{
    return (double)(w + 1) * u->window_s;
}

/* At or past the end of the window: the window now is the one holding `now`, budgets full.
 * The division only guesses the window; the loops make (w + 1) × window_s > now hold in the
 * same arithmetic win_end is computed in, so the new window always ends after now. */
static void roll(struct sim *s, struct fu_unit *u)
{
    if (s->now < u->win_end)
        return;
    long long w = (long long)floor(s->now / u->window_s);
    if (w <= u->win_idx)
        w = u->win_idx + 1;
    while (win_end_of(u, w) <= s->now)
        w++;
    while (w > u->win_idx + 1 && win_end_of(u, w - 1) > s->now)
        w--;
    u->win_idx = w;
    u->win_end = win_end_of(u, w);
    for (int k = 0; k < u->n; k++)
        u->cli[k].budget = u->cli[k].core * u->window_s;
}

static void start(struct sim *s, struct fu_unit *u, int k)
{
    struct fu_client *c = &u->cli[k];
    if (c->busy || eng_qlen(s, c->tenant) == 0)
        return;
    eng_pop(s, c->tenant, &c->req);
    c->busy = 1;
}

/* Schedules the one next event from the current state: the earliest completion or budget
 * spent (relative, at the current speeds), or the window's end (absolute, exact). */
static void plan_next(struct sim *s, struct fu_unit *u)
{
    int n = n_running(u), limited_busy = 0;
    double next = INFINITY;
    u->next_k = -1;
    for (int k = 0; k < u->n; k++) {
        const struct fu_client *c = &u->cli[k];
        limited_busy |= c->busy && c->limited;
        if (!running(u, c))
            continue;
        double t = c->req.work * n;
        int what = FU_NEXT_DONE;
        /* A budget that runs out with the request (within rounding) lets it complete. */
        if (c->limited && (c->budget + u->tol) * n < t) {
            t = c->budget * n;
            what = FU_NEXT_SPENT;
        }
        if (t < next) {
            next = t;
            u->next_k = k;
            u->next_what = what;
        }
    }
    double at = s->now + (next > 0 ? next : 0);
    if (limited_busy && u->win_end <= at) {
        at = u->win_end;
        u->next_k = -1;
    }
    u->version++;
    if (isfinite(at))
        unit_schedule(s, u->ev, at, FU_T_NEXT, u->version, 0);
}

/* The pending event's client reached what it was planned for: rounding may leave a residue
 * below the clock's resolution at this time, which no later event could charge. */
static void settle_target(struct fu_unit *u)
{
    if (u->next_k < 0)
        return;
    struct fu_client *c = &u->cli[u->next_k];
    if (u->next_what == FU_NEXT_DONE)
        c->req.work = 0;
    else
        c->budget = 0;
    u->next_k = -1;
}

/* Completes what is done, refills from the queues, plans the next event. */
static void settle(struct sim *s, struct fu_unit *u)
{
    for (int k = 0; k < u->n; k++) {
        struct fu_client *c = &u->cli[k];
        if (c->busy && c->req.work <= u->tol) {
            c->req.work = 0;
            eng_complete(s, &c->req);
            c->busy = 0;
        }
        start(s, u, k);
    }
    plan_next(s, u);
}

void fu_init(struct fu_unit *u, struct unit_addr ev, int n, const int *tenants, const double *cores,
             const int *limited, double window_s)
{
    SS_ASSERT(window_s > 0);
    u->ev = ev;
    u->n = n;
    u->cli = ss_xcalloc((size_t)(n > 0 ? n : 1), sizeof *u->cli);
    for (int k = 0; k < n; k++) {
        SS_ASSERT(cores[k] > 0 && cores[k] <= 1);
        u->cli[k].tenant = tenants[k];
        u->cli[k].core = cores[k];
        u->cli[k].limited = limited[k];
        u->cli[k].budget = cores[k] * window_s;
    }
    u->window_s = window_s;
    u->win_idx = 0;
    u->win_end = win_end_of(u, 0);
    u->next_k = -1;
    u->tol = FU_EPS;
    u->t_acct = 0;
    u->version = 0;
    u->busy_s = u->throttle_s = 0;
}

void fu_free(struct fu_unit *u)
{
    free(u->cli);
    u->cli = NULL;
}

void fu_arrive(struct sim *s, struct fu_unit *u, int k)
{
    if (u->cli[k].busy)
        return; /* it takes the request when its current one completes */
    account(s, u);
    roll(s, u);
    settle(s, u);
}

void fu_event(struct sim *s, struct fu_unit *u, const struct event *ev)
{
    if (ev->version != u->version)
        return; /* replanned since */
    account(s, u);
    settle_target(u);
    roll(s, u);
    settle(s, u);
}

int fu_fault(struct sim *s, struct fu_unit *u, int k)
{
    struct fu_client *c = &u->cli[k];
    if (!c->busy)
        return 0;
    account(s, u);
    c->busy = 0;
    eng_fail(s, &c->req);
    roll(s, u);
    settle(s, u);
    return 1;
}

void fu_abort(struct sim *s, struct fu_unit *u)
{
    account(s, u);
    for (int k = 0; k < u->n; k++)
        if (u->cli[k].busy) {
            u->cli[k].busy = 0;
            eng_fail(s, &u->cli[k].req);
        }
    u->version++;
}

void fu_finish(struct sim *s, struct fu_unit *u)
{
    account(s, u);
}

UNIT_OPS_OVER(fu_unit_ops, struct fu_unit, UNIT_RANK_MPS, fu_arrive, fu_event, fu_fault, fu_abort,
              fu_finish, fu_free, NULL, NULL, NULL);
