/*
 * router — the router in front of an LLM tenant's replicas (docs/llm.md#replicas-behind-a-
 * router): a tenant that holds several engines (MIG instances, vGPUs on several GPUs,
 * exclusive's GPUs or TP groups, time-sliced contexts or MPS clients on several GPUs) has one
 * router, and each of its arrivals is handed to one engine, chosen by the policy its serving
 * object names (llm/routecfg.h). Each engine keeps its own scheduler and KV cache; a request
 * stays in the engine it was handed to.
 *
 * Policies (replica k is the owner's k-th engine of the tenant; ties go to the lowest k, so
 * the choice is a function of the engines' state and the run stays deterministic):
 * - least_outstanding: the engine holding the fewest requests (taken, not finished) among
 *   those holding fewer than max_num_seqs; when every engine holds max_num_seqs the request
 *   waits at the router, in the tenant's FIFO queue, and the first engine to finish one takes
 *   the oldest (le_end). An engine with max_num_seqs 1 is then one server of a central FIFO
 *   queue: c replicas of plain-like work are an M/G/c queue, not c queues side by side.
 * - round_robin: request i goes to engine i mod n, whatever their load (vLLM production-
 *   stack's RoundRobinRouter); nothing waits at the router.
 * - least_kv: the engine with the most free KV-cache blocks (allocated blocks, the figure
 *   vLLM exports as its KV-cache usage and llm-d's KV-utilisation scorer reads), ties by fewest
 *   requests held; nothing waits at the router.
 *
 * A replica whose GPU is down (rt_set_down) is skipped by every policy (round_robin takes the
 * next one up); with none up, requests wait at the router until one is back (rt_offer then).
 *
 * How a request gets in: the owner calls rt_offer on an arrival (and after a fault), which
 * delivers it to the chosen engine's host through the unit interface (unit.h: arrive); the
 * engine takes from the tenant's queue only while the router picks it (le_take_all), so the
 * other engines, offered nothing, take nothing. The router keeps no copy of the requests: the
 * queue is the engine core's, and every request is in it, in one engine, or finished/failed.
 */
#ifndef SS_ROUTER_H
#define SS_ROUTER_H

#include "core/engine.h"
#include "policy/units/unit.h"

struct llm_engine;

/* One engine of the tenant: its host unit, the tenant's client index there, the engine. */
struct rt_replica {
    struct unit u;
    int client;
    struct llm_engine *e;
    int down; /* its GPU is resetting after a card fault: offered nothing */
};

struct router {
    int policy; /* enum lrt_policy */
    int n;
    struct rt_replica *rep;
    long routed; /* requests handed to an engine so far (round_robin's counter) */
    /* least_outstanding: the replicas in a binary min-heap by (not eligible, held, k), eligible
     * = up and below max_num_seqs, so a pick is its top, O(1), and a change of one engine's
     * held count re-sorts it in O(log n) (rt_held): a fleet's router has thousands of
     * replicas, and a scan per request was most of such a run (docs/performance.md). heap[i]
     * is a replica, pos[k] replica k's place in it. NULL under the other policies. */
    int *heap, *pos;
};

/* An empty router of `policy` (enum lrt_policy) for at most cap engines. */
void rt_init(struct router *r, int policy, int cap);
/* Adds client `client` of unit u as the next replica; u must host an LLM engine for it
 * (unit_ops.engine), which from now on takes only what the router gives it. */
void rt_add(struct router *r, struct unit u, int client);
void rt_free(struct router *r);

/* Replica k's engine changed its held count (llmengine.c calls it at every change). */
void rt_held(struct router *r, int k);
/* Replica k's GPU went down (1) or is back (0); the owner offers the queue again when back. */
static inline void rt_set_down(struct router *r, int k, int down)
{
    r->rep[k].down = down;
    rt_held(r, k);
}
/* The replica the next request goes to, or -1 when it waits at the router. */
int rt_pick(const struct router *r);
/* A request was handed to replica k. */
static inline void rt_routed(struct router *r)
{
    r->routed++;
}
/* Hands the tenant's waiting requests to the engines the policy picks, until none waits or
 * the policy holds the rest. */
void rt_offer(struct sim *s, struct router *r, int tenant);

#endif
