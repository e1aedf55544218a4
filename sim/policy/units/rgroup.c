/* rgroup — a tenant's requests in service together (see rgroup.h). O(cap) per operation:
 * concurrencies are small (a server's batch or stream count), and a flat array keeps the
 * admission order that breaks ties. */
#include "policy/units/rgroup.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void rg_init(struct rgroup *g, int cap)
{
    SS_ASSERT(cap >= 1);
    memset(g, 0, sizeof *g);
    g->cap = cap;
    g->r = ss_xcalloc((size_t)cap, sizeof *g->r);
}

void rg_free(struct rgroup *g)
{
    free(g->r);
    g->r = NULL;
}

void rg_advance(struct rgroup *g, double now)
{
    double done = (now - g->t) * g->speed;
    if (done > 0)
        for (int i = 0; i < g->n; i++) {
            g->r[i].work -= done;
            if (g->r[i].work < 0) /* rounding at the completion instant */
                g->r[i].work = 0;
        }
    g->t = now;
}

void rg_set_speed(struct rgroup *g, double now, double speed)
{
    rg_advance(g, now);
    g->speed = speed;
}

int rg_first(const struct rgroup *g)
{
    int best = -1;
    for (int i = 0; i < g->n; i++)
        if (best < 0 || g->r[i].work < g->r[best].work)
            best = i;
    return best;
}

double rg_next_s(const struct rgroup *g)
{
    int i = rg_first(g);
    if (i < 0 || !(g->speed > 0))
        return INFINITY;
    return g->r[i].work / g->speed;
}

void rg_add(struct rgroup *g, const struct request *r)
{
    SS_ASSERT(g->n < g->cap);
    g->r[g->n++] = *r;
}

void rg_remove(struct rgroup *g, int i, struct request *out)
{
    SS_ASSERT(i >= 0 && i < g->n);
    if (out)
        *out = g->r[i];
    memmove(&g->r[i], &g->r[i + 1], (size_t)(g->n - i - 1) * sizeof *g->r);
    g->n--;
}
