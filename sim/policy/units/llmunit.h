/*
 * llmunit — an LLM tenant's serving engine on one share of a GPU (docs/llm.md): the unit of
 * work it issues is the engine's *step*, one at a time. Requests it takes join its scheduler
 * (llm/sched.h, vLLM's iteration-level scheduling); each step's time is the roofline of the
 * step on the unit's SM and bandwidth shares (llm/roofline.h); at a step's end its sampled
 * tokens, finished requests and preemptions are reported to the engine and to the tenant's
 * token figures (core/llmstats.h), and the next step starts at once while any sequence is
 * waiting or running.
 *
 * Its one timer (the step's end) goes to the address its owner gives it (units/unit.h:
 * unit_addr, unit_ev_id decodes it); stale timers (after a fault) are skipped by a version
 * number, as engine.h expects.
 * A fault kills the engine process: every request it holds fails and its cache is empty.
 * A request that could never run on this cache (sched.h: longer than the cache, or without
 * chunked prefill than max_batched_tokens) fails when the unit takes it.
 */
#ifndef SS_LLMUNIT_H
#define SS_LLMUNIT_H

#include "core/engine.h"
#include "policy/units/unit.h"
#include "llm/roofline.h"
#include "llm/sched.h"
#include "llm/serving.h"

struct llm_unit {
    int tenant;
    struct ls_sched sched;
    struct ls_step step;
    struct rf_model rm;
    struct rf_gpu rg;
    double sm_share, bw_share, overhead_s;
    struct request *req; /* by scheduler handle */
    int req_cap;
    long held;    /* requests taken and not finished */
    long taken;   /* requests taken so far: the scheduler's ids */
    int stepping; /* a step is in flight */
    double step_start, t_kv;
    double busy_s; /* stepping inside the measurement window */
    struct unit_addr ev;
    uint32_t version;
};

/* A unit serving `tenant` with kv_blocks blocks of cache on shares (sm, bw) of the GPU g. */
struct llm_unit *lu_new(int tenant, const struct lsv_cfg *c, long kv_blocks,
                        const struct gpu_profile *g, double sm_share, double bw_share,
                        struct unit_addr ev);
/* Takes the head of its tenant's queue (there must be one) and starts a step if idle. */
void lu_take(struct sim *s, struct llm_unit *u);
/* Its timer fired: the step in flight ended. */
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

/* Requests it holds: the owner routes an arrival to the least-loaded unit. */
static inline long lu_load(const struct llm_unit *u)
{
    return u->held;
}

#endif
