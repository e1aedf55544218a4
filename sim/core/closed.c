/*
 * closed — the closed-loop arrival process (closed.h).
 */
#include "core/closed.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

int cl_parse(const struct jv *j, const cJSON *obj, const char *path, struct arrival_cfg *a)
{
    static const char *const keys[] = {"process", "users", "think_ms", "think", NULL};
    static const char *const thinks[] = {"exponential", "deterministic", NULL};
    double ms = 0;
    int k = 0;
    if (jv_object(j, obj, path, keys) ||
        jv_int(j, obj, path, "users", 1, 1, CL_MAX_USERS, &a->users) ||
        jv_num(j, obj, path, "think_ms", 0, 0, CL_MAX_THINK_MS, &ms) < 0 ||
        jv_enum(j, obj, path, "think", 0, thinks, &k) < 0)
        return -1;
    a->think_s = ms * 1e-3;
    /* No think time is no draw at all, whatever "think" says: the loop is then the benchmark
     * clients' "send as soon as the last one ends". */
    a->think_exp = k == 0 && a->think_s > 0;
    return 0;
}

/* Returns where v ends up: 0 when it is strictly earlier than every other (equal times keep
 * the older one on top). */
int cl_check_queue(const struct jv *j, const char *tenant_path, const struct tenant_cfg *t)
{
    const struct arrival_cfg *a = &t->arrival;
    char p[512];
    if (a->kind != ARR_CLOSED || a->think_s > 0 || t->queue_limit <= 0 ||
        t->queue_limit >= a->users)
        return 0;
    return jv_fail(j, jv_path_key(p, sizeof p, tenant_path, "queue_limit"),
                   "%ld, below the closed loop's %ld users with no think time: a rejected user "
                   "would send again at the same instant and be rejected again without end; "
                   "expected a queue_limit >= users, none, or a think_ms > 0",
                   t->queue_limit, a->users);
}

static long sift_up(double *h, long i, double v)
{
    while (i > 0 && v < h[(i - 1) / 2]) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
    return i;
}

static void sift_down(double *h, long n, double v)
{
    long i = 0;
    for (;;) {
        long c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1] < h[c])
            c++;
        if (!(h[c] < v))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
}

struct cl_state *cl_new(const struct arrival_cfg *a, uint64_t think_seed, double frontend_s)
{
    struct cl_state *c = ss_xcalloc(1, sizeof *c);
    rng_seed(&c->think_rng, think_seed);
    c->users = a->users;
    c->think_s = a->think_s;
    c->think_exp = a->think_exp;
    c->due = ss_xcalloc((size_t)a->users, sizeof *c->due);
    c->n = a->users; /* all at t = 0: a heap already */
    c->fe_s = frontend_s;
    return c;
}

void cl_free(struct cl_state *c)
{
    if (!c)
        return;
    free(c->due);
    free(c);
}

/* The earliest send's time at the engine, through the front end (closed.h). Without a front
 * end it is the send time itself, with no arithmetic: the plain loop stays bit-exact. */
static void schedule_top(struct cl_state *c, double *t)
{
    c->sent = c->due[0];
    c->at = c->fe_s > 0 ? fmax(c->sent, c->fe_free) + c->fe_s : c->sent;
    *t = c->at;
}

int cl_next(struct cl_state *c, double *t)
{
    if (c->scheduled && c->n > 0) { /* it reached the engine: the front end is free from then */
        c->fe_free = c->at;
        c->n--;
        if (c->n > 0)
            sift_down(c->due, c->n, c->due[c->n]);
    }
    c->scheduled = c->n > 0;
    if (!c->scheduled)
        return CL_PAUSED;
    schedule_top(c, t);
    return 1;
}

enum cl_action cl_end(struct cl_state *c, double now, double *t)
{
    double think = c->think_exp ? c->think_s * rng_exp1(&c->think_rng) : c->think_s;
    double at = now + think;
    /* More thinking users than users would be a request ending that was never sent. */
    SS_ASSERT(c->n < c->users);
    long at_i = sift_up(c->due, c->n++, at);
    if (!c->scheduled) { /* every user was busy: this send is the tenant's next arrival */
        c->scheduled = 1;
        schedule_top(c, t);
        return CL_PUSH;
    }
    /* An earlier send than the pending one goes through the front end first (FIFO); the pending
     * one has not been sent yet (its send is later than now), so it was not in service. */
    if (at_i != 0)
        return CL_NONE;
    schedule_top(c, t);
    return CL_RETIME;
}

/* The rate if no request ever waited: each user's cycle is a think and a service. */
double cl_offered_rate(const struct arrival_cfg *a, double mean_work_s)
{
    return (double)a->users / (a->think_s + mean_work_s);
}
