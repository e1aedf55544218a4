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

double rg_next_s_slow(const struct rgroup *g)
{
    int i = rg_first(g);
    if (i < 0 || !(g->speed > 0))
        return INFINITY;
    return g->r[i].work / g->speed;
}
