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
    r->heap = r->pos = NULL;
    if (policy == LRT_LEAST_OUTSTANDING) {
        r->heap = ss_xmalloc((size_t)cap * sizeof *r->heap);
        r->pos = ss_xmalloc((size_t)cap * sizeof *r->pos);
    }
}

/* least_outstanding's order: eligible first, then fewest held, then lowest index — the scan's
 * choice, so the heap's top is the replica a scan over every engine would pick. */
static int lo_before(const struct router *r, int a, int b)
{
    const struct llm_engine *ea = r->rep[a].e, *eb = r->rep[b].e;
    int na = r->rep[a].down || ea->held >= ea->sched.cfg.max_num_seqs;
    int nb = r->rep[b].down || eb->held >= eb->sched.cfg.max_num_seqs;
    if (na != nb)
        return na < nb;
    if (ea->held != eb->held)
        return ea->held < eb->held;
    return a < b;
}

static void lo_put(struct router *r, int i, int k)
{
    r->heap[i] = k;
    r->pos[k] = i;
}

/* Moves replica k up or down the heap to its place after its key changed. */
static void lo_fix(struct router *r, int k)
{
    int i = r->pos[k];
    while (i > 0 && lo_before(r, k, r->heap[(i - 1) / 2])) {
        lo_put(r, i, r->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) {
        int c = 2 * i + 1;
        if (c >= r->n)
            break;
        if (c + 1 < r->n && lo_before(r, r->heap[c + 1], r->heap[c]))
            c++;
        if (!lo_before(r, r->heap[c], k))
            break;
        lo_put(r, i, r->heap[c]);
        i = c;
    }
    lo_put(r, i, k);
}

void rt_held(struct router *r, int k)
{
    if (r->heap)
        lo_fix(r, k);
}

void rt_add(struct router *r, struct unit u, int client)
{
    SS_ASSERT(u.ops->engine);
    struct llm_engine *e = u.ops->engine(u.self, client);
    SS_ASSERT(e && !e->rt);
    e->rt = r;
    e->rt_k = r->n;
    r->rep[r->n++] = (struct rt_replica){.u = u, .client = client, .e = e, .down = 0};
    if (r->heap) {
        lo_put(r, r->n - 1, r->n - 1);
        lo_fix(r, r->n - 1);
    }
}

void rt_free(struct router *r)
{
    free(r->rep);
    free(r->heap);
    free(r->pos);
    r->rep = NULL;
    r->heap = r->pos = NULL;
    r->n = 0;
}

/* Fewest held among the engines up and below max_num_seqs (lowest index on ties): the heap's
 * top; -1 when all are full or down. */
static int pick_least_outstanding(const struct router *r)
{
    int k = r->heap[0];
    const struct llm_engine *e = r->rep[k].e;
    return r->rep[k].down || e->held >= e->sched.cfg.max_num_seqs ? -1 : k;
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
