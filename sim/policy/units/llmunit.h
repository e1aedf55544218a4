/*
 * llmunit — an LLM tenant's serving engine (llmengine.h) on one fixed share of a GPU
 * (docs/llm.md): exclusive's GPUs and MIG's instances. Its step runs as soon as it is built and
 * lasts the roofline of the step on the unit's SM and bandwidth shares (le_time_s); at its end
 * the next step starts at once while any sequence is waiting or running. Idle, it begins a
 * step on an arrival, or, when several arrive at that instant, at its begin timer after all of
 * them (llmengine.h: le_defer).
 *
 * Its two timers (the step's end, the begin) go to the address its owner gives it
 * (units/unit.h: unit_addr, unit_ev_id decodes it); stale ones (after a fault, an earlier
 * begin) are skipped by a version number, as engine.h expects.
 * A fault kills the engine process: every request it holds fails and its cache is empty.
 * A request that could never run on this cache (sched.h: longer than the cache, or without
 * chunked prefill than max_batched_tokens) fails when the unit takes it.
 */
#ifndef SS_LLMUNIT_H
#define SS_LLMUNIT_H

#include "core/engine.h"
#include "policy/units/llmengine.h"
#include "policy/units/unit.h"

struct llm_unit {
    struct llm_engine e;
    double sm_share, bw_share;
    double step_start;
    double busy_s; /* stepping inside the measurement window */
    struct unit_addr ev;
    uint32_t version;
};

/* A unit serving `tenant` with kv_blocks blocks of cache on shares (sm, bw) of the GPU g. */
struct llm_unit *lu_new(int tenant, const struct lsv_cfg *c, long kv_blocks,
                        const struct gpu_profile *g, double sm_share, double bw_share,
                        struct unit_addr ev);
/* Takes the head of its tenant's queue (there must be one); idle, arms the begin timer. */
void lu_take(struct sim *s, struct llm_unit *u);
/* One of its timers fired: the step in flight ended, or the begin timer (a step begins). */
void lu_event(struct sim *s, struct llm_unit *u, const struct event *ev);
/* The tenant's fault: 1 if the unit held requests (all failed), 0 if it held none. */
int lu_fault(struct sim *s, struct llm_unit *u);
/* End of the run: close the busy and KV intervals. */
void lu_finish(struct sim *s, struct llm_unit *u);
void lu_free(struct llm_unit *u);
/* The unit as a server unit of one client, its tenant (units/unit.h): arrive takes every
 * waiting request; fault and abort fail what it holds. No resume: a card reset is not
 * modelled for engines yet. */
extern const struct unit_ops lu_unit_ops;

#endif
