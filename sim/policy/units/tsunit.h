/*
 * tsunit — one time-sliced execution unit (a whole GPU, or a MIG instance
 * hosting nested time-slicing). policy_timeslice calls it directly; the MIG policy
 * holds it through the unit interface (ts_unit_ops, unit.h).
 *
 * Semantics (docs/scenario.md and the hand-computed test follow these exactly):
 * - Each tenant on the unit is one context holding up to work.concurrency requests
 *   in service (its group, rgroup.h; one by default); further requests wait in the
 *   tenant's FIFO queue. While its context runs, the n requests of a group share the
 *   unit equally, each at rate_speed_n(sm, bw, n) (core/rate.h).
 * - One context runs at a time, round robin in the fixed context order. A slice
 *   lasts q; a context running while no other context has work keeps renewing
 *   its slice (slice ends are only scheduled when someone else is waiting), so a
 *   lone context never switches and one tenant time-sliced is exactly exclusive.
 * - At a slice end the request in service is preempted (its remaining work is
 *   kept: preemptive resume) and, if another context has work, the unit switches
 *   to the next such context in round-robin order, paying with no work done the
 *   base cost s plus both contexts' state over the save/restore bandwidth
 *   (cal_switch_s: work.context_state_mb, default the profile's).
 * - Starting a context other than the last one that ran costs a switch too,
 *   also after the unit was idle; the very first context runs without one.
 * - release_on_idle = true: a context whose queue empties gives up the rest of
 *   its slice at once. false: it holds the unit until the slice ends (docs/domain.md),
 *   and that idle time shows up as lower utilisation.
 * - Speeds: the unit holds the fractions sm and bw of the GPU's SMs and bandwidth (1 and
 *   1 on a whole GPU, the instance's inside a MIG instance); a request alone runs at
 *   rate_speed(sm, bw).
 * - Memory: every context's memory_gb is resident from its start (the owner refuses at
 *   load contexts that do not fit together). With oom_simulate a tenant's memory_growth
 *   adds gb at at_s for for_s — it always succeeds, and may over-commit the unit. An
 *   allocation on an over-committed unit fails and OOM-kills the process that makes it:
 *   starting a request (its working memory), or a restart (its resident memory, which
 *   fails if it does not fit what is free). A killed context's requests in service fail
 *   (the one it was starting too), its memory (growth included) is freed, and it restarts
 *   after the tenant's restart_s, serving nothing meanwhile (its arrivals queue).
 * - LLM tenants (ts_set_llm): the context runs its engine (llmengine.h), which takes every
 *   request as it arrives; its work is the GPU part of the step in flight, one at a time, on
 *   the unit's shares (stm_gpu_s at the unit's SMs and bandwidth). That part is preempted at a
 *   slice end like any request (its remaining time kept) and resumed in the context's next
 *   slice. When it ends, the step's CPU part that the GPU part does not hide
 *   (stm_cpu_exposed_s; le_time_s is the two together) runs as a CPU phase on a timer of the
 *   context's own: the context is idle on the GPU meanwhile, so with release_on_idle the unit
 *   switches to the next context with work (paying the switch and refill as for any switch),
 *   and without it the context holds its slice idle. The step ends (its tokens) when the
 *   phase ends, and the next step is then ready: the context has work again, as after an
 *   arrival (an idle unit runs it at once, without a switch if it was the last to run; a busy
 *   one ends the running context's slice). Alone, a step thus lasts GPU part + CPU part, to
 *   the bit as on a GPU of its own. Arrivals during the phase join the engine's scheduler.
 *   Simultaneous arrivals (llmengine.h: le_defer): the time-slicer picks the context on an
 *   arrival as for any context (the same context, the same switch); when it starts running at
 *   once (no switch) with other arrivals of its tenant due at the instant, its step begins at
 *   its begin timer after all of them, the context holding the unit meanwhile (no switch away
 *   and back); after a switch the step
 *   begins at the switch's end with every request that arrived by then.
 *   A fault fails every request the engine holds, in its CPU phase too (the phase's end is
 *   then void). No "oom": "simulate" (the owner refuses it):
 *   an engine allocates its memory once, at its start.
 * - Faults: only the faulting context's in-flight requests fail.
 * - Utilisation: `share` of the GPU while a context runs, times the fraction of the
 *   unit's SMs its requests keep busy (min(1, n·s / sm), s the tenant's occupancy).
 */
#ifndef SS_TSUNIT_H
#define SS_TSUNIT_H

#include "core/engine.h"
#include "policy/units/llmengine.h"
#include "policy/units/rgroup.h"
#include "policy/units/unit.h"

/* What every event reads of a context, in 64 bytes (the round robin checks its candidates: a
 * power-of-two stride, its fields on one cache line); its memory is in struct ts_mem. */
struct ts_ctx {
    int tenant;
    int down;        /* OOM-killed, restarting */
    struct rgroup g; /* its requests in service */
    double speed1;   /* one request's speed on the unit (the common case, cached) */
    double used1;    /* the fraction of the unit's SMs one request keeps busy */
    double state_mb; /* saved and restored at a switch */
};

/* An LLM context's CPU phase (tsunit.c: on_done, on_cpu_end): the step's CPU part that follows
 * its GPU part, on a timer of the context's own, the context idle on the GPU meanwhile. */
struct ts_cpu {
    double cpu_s;  /* the step in flight's CPU part on the unit's shares (set when it begins) */
    double step_s; /* … and its whole time there, le_time_s */
    double t0;     /* when its GPU part started */
    int whole;     /* its GPU part has run in one piece since t0 (never preempted) */
    int on;        /* in its CPU phase: the GPU part is done, the step not ended yet */
    uint32_t ver;  /* version of its pending end */
};

/* A context's memory (resident memory, growth, OOM restarts): read at OOM events only. */
struct ts_mem {
    double memory_gb;
    double grown_gb; /* memory_growth currently held */
    double down_since;
    uint32_t ver; /* version of its pending restart and growth end */
};

struct ts_unit {
    struct unit_addr ev; /* its timers: the run timer (tsunit.c), switch end, memory */
    int n;
    struct ts_ctx *ctx;
    struct ts_mem *mem; /* [n] */
    /* [n]: context c's LLM engine, NULL for a plain context; the array is NULL when the unit
     * has no LLM context (the plain paths test only that). */
    struct llm_engine **llm;
    struct ts_cpu *cpu; /* [n] with llm, NULL without */
    double sm, bw;      /* the unit's fractions of the GPU's SMs and bandwidth */
    double q, sw;
    double refill_s; /* a default-state context's refill after a switch (ts_set_refill) */
    /* Every context holds the same state: each switch costs sw_cost (cal_switch_s, cached:
     * it runs at every switch). Otherwise the cost is computed per pair. */
    int same_state;
    double sw_cost;
    int release_on_idle;
    double share; /* fraction of the GPU this unit is (utilisation) */
    int oom_simulate;
    double memory_cap_gb, memory_active_gb;
    /* Bit c: context c may have work. Every context with work has its bit (n <= 64): set at
     * its arrivals and at set-up and reset, cleared only where the unit sees it without work,
     * so work that appears elsewhere (arrivals, a restart, a request back from an unfolded
     * switch) always comes with a bit. The round robin takes its candidates from it on units
     * of at most 64 plain contexts (masked); others scan every context. */
    uint64_t work;
    int masked;
    /* Every context serves one request at a time, no OOM model, no LLM context (so none is
     * ever down): the completion's path is written out for it (tsunit.c: on_done_simple). */
    int simple;
    int state;        /* TS_IDLE, TS_RUN, TS_SWITCH */
    int cur;          /* running context, or the one being switched to */
    int last;         /* last context that ran; -1 before any */
    int arriving;     /* context whose arrival ts_arrive is handling; -1 otherwise */
    double seg_start; /* start of the current service segment; < 0 when not serving */
    double seg_used;  /* fraction of the unit's SMs the segment's requests keep busy */
    double slice_start;
    double slice_end; /* slice_start + q while a slice end is pending; INFINITY otherwise */
    double sw_start;
    double done_t;  /* the running group's next completion; INFINITY when not serving */
    double armed_t; /* the time of the live run timer in the heap; INFINITY when none */
    uint32_t run_ver, sw_ver;
    /* Switches folded into the start of the context switched to (ts_fold_switches): its
     * request is taken when the switch starts, its service segment starts when the switch
     * ends (seg_start > now meanwhile), and no event marks the switch's end. */
    int fold;
    /* fold, and every switch costs sw_cost > 0: a preemption folds a switch at that cost
     * without asking (tsunit.c: on_slice). */
    int quick;
    int sw_open; /* the folded switch [sw_start, sw_end] is not booked yet */
    double sw_end;
    int fold_popped; /* the folded switch took its request from the queue */
    int fold_fresh;  /* … and the request had not been served before (its start stamp) */
    long switches;
    double busy_s; /* time serving requests inside the measurement window */
    long ooms;     /* processes OOM-killed (a failed restart counts again) */
    long restarts; /* restarts that came back */
};

enum { TS_IDLE, TS_RUN, TS_SWITCH };

void ts_unit_init(struct ts_unit *u, const struct scenario *sc, struct unit_addr ev, int n,
                  const int *tenants, double sm, double bw, const double *memory_gb, double q,
                  double sw, int release_on_idle, double share, int oom_simulate,
                  double memory_cap_gb);
void ts_unit_free(struct ts_unit *u);

/*
 * For an owner that serves every client's tenant on this unit alone (policy_timeslice, where a
 * tenant is a context on one GPU): a switch is folded into the start of the context switched
 * to, one event fewer per switch. Its request leaves the queue when the switch starts but is
 * in service only from the switch's end, as without folding: a fault meanwhile misses it, a
 * card fault puts it back at the head of its queue, its wait ends at the switch's end. Not
 * where taking it early could be seen: another unit serving the tenant (MIG, vGPU), a group
 * of more than one (it would take requests that arrive during the switch), "oom": "simulate"
 * (starting a request allocates), a saturated tenant (its queue refills when it empties).
 * Otherwise the unit stays as it was. Call after ts_unit_init.
 */
void ts_fold_switches(struct ts_unit *u, const struct scenario *sc);

/* Context c is an LLM tenant's engine with kv_blocks blocks of cache (after init, before
 * ts_fold_switches and the run); the unit frees it. */
void ts_set_llm(struct ts_unit *u, const struct scenario *sc, int c, long kv_blocks);

/* Right after init, in the run: schedules the tenants' memory growth (oom_simulate). */
void ts_start(struct sim *s, struct ts_unit *u);
void ts_arrive(struct sim *s, struct ts_unit *u, int ctx);
void ts_event(struct sim *s, struct ts_unit *u, const struct event *ev);
/* 1 if context ctx had requests in service (they fail), 0 if it had none. */
int ts_fault(struct sim *s, struct ts_unit *u, int ctx);
/* Closes the open busy/switch interval at the end of the run. */
void ts_finish(struct sim *s, struct ts_unit *u);
/* Teardown: closes the open interval and fails every context's requests in service. */
void ts_abort(struct sim *s, struct ts_unit *u);
/* After ts_abort: the unit starts again, idle, every context restarted with its resident
 * memory and no growth (a card reset); timers left in the heap are void. */
void ts_reset(struct sim *s, struct ts_unit *u);

/* 1 if every context with work has its bit in u->work (what makes the round robin's search of
 * the bits find what a scan of every context finds); for tests. */
int ts_work_covered(const struct sim *s, const struct ts_unit *u);

/* The unit interface over a ts_unit allocated with ss_xmalloc and ts_unit_init();
 * its destroy frees the unit too. */
extern const struct unit_ops ts_unit_ops;

/*
 * Stability (core/stable.h): the work rate context k of a unit of n contexts sustains when it
 * always has work and context j offers load[j] (whole-GPU Erlangs; +INFINITY: saturated), at
 * speeds speed[]. Alone it runs at its speed. With others, round robin gives each context an
 * equal share of the unit's time while it has work, and the unit works q/(q+s) of its time
 * (every slice ending in a switch, the saturated bound the planner uses too): k gets the
 * max-min fair share of that time left by the others' demands (load / speed), at its speed.
 * Conservative by at most s/(q+s) when the others are nearly idle (fewer switches then).
 */
double ts_capacity(int n, const double *speed, const double *load, int k, double q, double sw);

/*
 * The cost of a switch from a context holding out_mb of state to one holding in_mb: the switch
 * itself (base_s and both states over the save/restore bandwidth, cal_switch_s) and the refill
 * that follows (cal_refill_s: the incoming context's caches, TLB and pipeline warm up). The
 * refill is dead time for the incoming context, counted before its slice starts, so a busy
 * pair does q / (q + switch + refill) of its work per slice (docs/mps-vgpu.md).
 */
double ts_switch_s(const struct gpu_profile *g, double base_s, double refill_s, double out_mb,
                   double in_mb);
/* The unit's refill for a default-state context (ts_unit_init sets the profile's
 * timeslice_refill_us; the timeslice strategy's refill_us overrides it). */
void ts_set_refill(struct ts_unit *u, const struct scenario *sc, double refill_s);

/* The s that ts_capacity takes for a unit of these n tenants with base switch base_s: the mean
 * switch of a round robin over all of them, each context's state saved once and restored once
 * a cycle, and refilled once (ts_switch_s): base + 2 × mean state / bandwidth + the mean
 * state's refill. Exact while every context has work. */
double ts_mean_switch_s(const struct scenario *sc, int n, const int *tenants, double base_s);
/* The same with a refill other than the profile's. */
double ts_mean_switch_refill_s(const struct scenario *sc, int n, const int *tenants, double base_s,
                               double refill_s);

#endif
