/*
 * llmengine — an LLM tenant's serving engine without a clock (docs/llm.md#serving-under-the-
 * strategies): the requests it took, vLLM's scheduler over them (llm/sched.h) and the step in
 * flight, as a piece of work that a host serves. The host decides when the step runs and how
 * fast: the standalone engine unit (llmunit.h) on a fixed share, a context of the time-slicer
 * (tsunit.h), a client of an MPS server (mpsunit.h), a VM of the time-sliced vGPU scheduler.
 *
 * A step's cost is the step model's (llm/stepmodel.h): parts bound by compute or memory on the
 * whole GPU, a fixed GPU part, and the engine's CPU time. On shares (f, b) its GPU part lasts
 * Σ max(tc / f, tm / b) + fixed, and the CPU part follows with the GPU idle (le_time_s); a host
 * whose shares change during the step (MPS) advances its GPU part as a fraction (le_gpu_s,
 * le_speed: mpsunit.h says why a fraction) and then runs the CPU part (overhead_s) as a phase
 * of its own, in which the other clients have the GPU.
 *
 * The front end (frontend_ms, llm/enginetime.h) is a delay before the engine: a request that
 * reaches the engine at t was sent by its client at t − frontend, and that is the arrival its
 * TTFT and latency are measured from (le_take).
 *
 * Life cycle: le_take as its tenant's requests arrive (each joins the scheduler, or fails at
 * once when it could never run on this cache); le_begin builds the next step (1) or finds
 * nothing to run (0); le_end reports the step's tokens, finished requests and preemptions when
 * the host says it ended; le_fail when the engine process dies (a fault, a teardown). Between
 * le_begin and le_end the step is `stepping`; the host holds it preempted or running.
 * Invariant: held = requests taken and neither finished nor failed; stepping implies held > 0.
 *
 * Simultaneous arrivals (docs/llm.md#simultaneous-arrivals): vLLM's loop schedules every
 * request that has arrived by the time it builds its next step, so requests that arrive at the
 * same instant at an engine with no step in flight must start one step together. The engine's
 * core draws (and numbers) a tenant's next arrival before it admits the current one, and
 * simultaneous events run in the order they were scheduled (core/engine.h), so a zero-delay
 * timer armed while this arrival is admitted pops after every arrival at the same instant.
 * A host whose engine has no step in flight therefore does not begin one on an arrival: it
 * arms its "begin" timer at now (le_defer; each simultaneous arrival re-arms it, the earlier
 * ones go stale by the version), and when the live one pops (le_begin_due) it calls le_begin,
 * which builds one step holding all of them. An arrival that is not one of several at its
 * instant (its tenant's next is later, eng_arrival_due_now, and no timer is pending) has
 * nothing to wait for: the host begins the step at once, as it would without the timer. An
 * arrival mid-step joins the scheduler for the next step, as in vLLM; a step that follows another
 * (or a context switch) begins at once.
 */
#ifndef SS_LLMENGINE_H
#define SS_LLMENGINE_H

#include "core/engine.h"
#include "llm/stepmodel.h"
#include "llm/sched.h"
#include "llm/serving.h"
#include "policy/units/router.h"
#include "policy/units/unit.h"

struct llm_engine {
    int tenant;
    int gpus; /* GPUs it runs on: its tensor_parallel group (1 without) */
    struct ls_sched sched;
    struct ls_step step;
    struct stm model;
    struct stm_sum sum;     /* of the step in flight */
    struct stm_parts parts; /* of the step in flight */
    double overhead_s;      /* its CPU time the GPU part does not hide, on the whole GPU */
    double frontend_s;
    struct request *req; /* by scheduler handle */
    int req_cap;
    long held;    /* requests taken and not finished */
    long taken;   /* requests taken so far: the scheduler's ids */
    int stepping; /* a step is in flight (begun, not ended) */
    double t_kv;  /* the KV figures are booked up to here */
    /* An arrival deferred the next step to the host's begin timer of version begin_ver; cleared
     * when a step begins or the engine fails (a pending timer is then stale). */
    int begin_pending;
    uint32_t begin_ver;
    /* The router of its tenant's replicas (router.h), and its replica index there; NULL: the
     * tenant's only engine, which takes every request. */
    struct router *rt;
    int rt_k;
};

/* An engine serving `tenant` with kv_blocks blocks of cache, on the GPU g (on a group of
 * c->tensor_parallel of them: the step is one GPU's shard with the group's all-reduces). */
void le_init(struct llm_engine *e, int tenant, const struct lsv_cfg *c, long kv_blocks,
             const struct gpu_profile *g);
void le_free(struct llm_engine *e);

/* Takes the head of its tenant's queue (there must be one) into the scheduler. */
void le_take(struct sim *s, struct llm_engine *e);
/* Its tenant has a request waiting that is this engine's to take: any, for a tenant's only
 * engine; the head, when its router picks this engine for it (router.h). */
static inline int le_may_take(const struct sim *s, const struct llm_engine *e)
{
    return eng_qlen(s, e->tenant) > 0 && (!e->rt || rt_pick(e->rt) == e->rt_k);
}
/* Takes every request waiting in its tenant's queue that is its to take (le_may_take). */
void le_take_all(struct sim *s, struct llm_engine *e);
/* Builds the next step if none is in flight: 1 when a step is in flight afterwards, 0 when
 * there is nothing to run. A request's wait ends at its first step. */
int le_begin(struct sim *s, struct llm_engine *e);
/* Takes every waiting request (le_take_all) and, with no step in flight, something to run and
 * another arrival of its tenant due at this instant or a begin timer pending, arms the host's
 * begin timer at now instead of beginning a step: `timer` of the host's address `a`, with `aux`,
 * carrying the version le_begin_due checks. 1 if it armed it (the host waits); 0 if not (the host
 * begins a step now if it has none in flight, as for any other start). */
int le_defer(struct sim *s, struct llm_engine *e, struct unit_addr a, unsigned timer, uint32_t aux);
/* The host's begin timer of `version` popped: 1 when it is the last one armed and no step has
 * begun nor the engine failed since (the host then begins the step), 0 for a stale one. */
static inline int le_begin_due(struct llm_engine *e, uint32_t version)
{
    if (!e->begin_pending || version != e->begin_ver)
        return 0;
    e->begin_pending = 0;
    return 1;
}
/* The step in flight ended now: its tokens and finished requests are reported. Behind a
 * router, the engine then takes what waits there for it (router.h: least_outstanding holds
 * requests while every engine is full), before its host builds the next step. */
void le_end(struct sim *s, struct llm_engine *e);
/* The engine process dies: every request it holds fails, the cache is empty, no step is in
 * flight. 1 if it held requests, 0 if not. */
int le_fail(struct sim *s, struct llm_engine *e);
/* Books the KV figures up to now (the end of the run). */
void le_kv_close(struct sim *s, struct llm_engine *e);

/* The step in flight on shares (sm, bw) of the GPU, in seconds, its CPU part included. */
double le_time_s(const struct llm_engine *e, double sm, double bw);
/* Its GPU part on the whole GPU, in seconds: the step's work as a plain request's work is
 * counted (whole-GPU seconds). */
double le_gpu_s(const struct llm_engine *e);
/* The rate at which that work progresses on shares (sm, bw): le_gpu_s / its GPU part on them,
 * 1 on the whole GPU. */
double le_speed(const struct llm_engine *e, double sm, double bw);

/* Something to run: a step in flight, or sequences waiting or running in the scheduler. */
static inline int le_has_work(const struct llm_engine *e)
{
    return e->stepping || ls_waiting(&e->sched) > 0 || ls_running(&e->sched) > 0;
}

#endif
