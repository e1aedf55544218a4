/*
 * router — which engine of a tenant takes a request (router.h).
 */
#include "policy/units/router.h"

#include "base/util.h"
#include "llm/routecfg.h"
#include "policy/units/llmengine.h"

#include <stdlib.h>

void rt_init(struct router *r, int policy, int cap)
{
    SS_ASSERT(policy >= 0 && policy < LRT_POLICIES && cap >= 1);
    r->policy = policy;
    r->n = 0;
    r->rep = ss_xcalloc((size_t)cap, sizeof *r->rep);
    r->routed = 0;
}

void rt_add(struct router *r, struct unit u, int client)
{
    SS_ASSERT(u.ops->engine);
    struct llm_engine *e = u.ops->engine(u.self, client);
    SS_ASSERT(e && !e->rt);
    e->rt = r;
    e->rt_k = r->n;
    r->rep[r->n++] = (struct rt_replica){.u = u, .client = client, .e = e, .down = 0};
}

void rt_free(struct router *r)
{
    free(r->rep);
    r->rep = NULL;
    r->n = 0;
}

/* Fewest held among the engines below max_num_seqs; -1 when all are full. */
static int pick_least_outstanding(const struct router *r)
{
    int best = -1;
    for (int k = 0; k < r->n; k++) {
        const struct llm_engine *e = r->rep[k].e;
        if (r->rep[k].down || e->held >= e->sched.cfg.max_num_seqs)
            continue;
        if (best < 0 || e->held < r->rep[best].e->held)
            best = k;
    }
    return best;
}

/* Request i to replica i mod n, or the first one up after it. */
static int pick_round_robin(const struct router *r)
{
    int k0 = (int)(r->routed % r->n);
    for (int i = 0; i < r->n; i++) {
        int k = (k0 + i) % r->n;
        if (!r->rep[k].down)
            return k;
    }
    return -1;
}

static long free_blocks(const struct llm_engine *e)
{
    return e->sched.cfg.kv_blocks - ls_used_blocks(&e->sched);
}

/* Most free blocks, then fewest held, among those up. */
static int pick_least_kv(const struct router *r)
{
    int best = -1;
    for (int k = 0; k < r->n; k++) {
        if (r->rep[k].down)
            continue;
        if (best < 0) {
            best = k;
            continue;
        }
        const struct llm_engine *e = r->rep[k].e, *b = r->rep[best].e;
        long fe = free_blocks(e), fb = free_blocks(b);
        if (fe > fb || (fe == fb && e->held < b->held))
            best = k;
    }
    return best;
}

/* By enum lrt_policy (llm/routecfg.h). */
static int (*const pickers[LRT_POLICIES])(const struct router *) = {
    [LRT_LEAST_OUTSTANDING] = pick_least_outstanding,
    [LRT_ROUND_ROBIN] = pick_round_robin,
    [LRT_LEAST_KV] = pick_least_kv,
};

int rt_pick(const struct router *r)
{
    return pickers[r->policy](r);
}

void rt_offer(struct sim *s, struct router *r, int tenant)
{
    size_t q;
    while ((q = eng_qlen(s, tenant)) > 0) {
        int k = rt_pick(r);
        if (k < 0)
            return;
        const struct rt_replica *p = &r->rep[k];
        p->u.ops->arrive(s, p->u.self, p->client);
        /* The picked engine takes at least the head (le_take_all): no progress would loop. */
        if (eng_qlen(s, tenant) >= q)
            SS_FATAL("router of tenant %d: replica %d of %d took no request (%zu waiting)", tenant,
                     k, r->n, q);
    }
}
