/*
 * plancand — the capacity planner's candidates, and what a strategy's plan hook
 * (struct policy_hooks in core/policy.h) works with to propose them.
 *
 * The search loop (prune, simulate cheapest first, rank) is tools/plan.c and knows no
 * strategy; each policy proposes its own configurations in sim/policy/plan_<kind>.c.
 * Those files may not include tools/ (tests/check-layers), so the candidate type and
 * the helpers both sides share live here, below both.
 */
#ifndef SS_PLANCAND_H
#define SS_PLANCAND_H

#include "core/scenario.h"

#include <cJSON.h>
#include <stddef.h>

struct plan_cand {
    char kind[16];
    char label[400]; /* never cut: plan_table and the page print it whole */
    int gpus;
    cJSON *strategy;      /* the strategy object, as a scenario would hold it */
    double cost_per_hour; /* NaN when the scenario has no GPU price */
    double cost_per_mreq;
    char pruned[256]; /* non-empty: rejected by the analytic pre-filter, and why */
    int simulated;
    int feasible;
    /* The verdict (core/verdict.h) of its worst placement: worst_ratio the largest ratio of a
     * figure to its target over the tenants with an SLA, worst_margin 1 − worst_ratio (as the
     * plan's JSON has always given it), reason the first missing tenant's "NAME: why" ("" when
     * it meets them), lost_miss the fraction of requests lost that it may not lose (or 0). */
    double worst_ratio, worst_margin;
    double lost_miss;
    char reason[SCN_NAME_MAX + 300]; /* the verdict's, and what a general variant assumed */
    char worst_tenant[SCN_NAME_MAX];
    double *p99_s; /* per tenant, when simulated: the worst over the placements */
    /* per tenant, when simulated: an LLM tenant's worst TTFT and TPOT p99 (NaN for others) */
    double *ttft_s, *tpot_s;
    /* per tenant, when simulated: its worst throughput, the figure of a batch tenant's target */
    double *thr_per_s;
    /* per tenant, when simulated: non-zero when it missed one of its targets (p99, an LLM
     * tenant's TTFT or TPOT p99, or an LLM request that failed) in some placement; what a
     * refine hook grows */
    unsigned char *missed;
    /* Placements. When the artefact does not fix which tenants share a GPU (a device plugin
     * hands out replicas of any GPU), `placements` holds one strategy object per way the
     * scheduler may place the pods, up to swapping identical GPUs, and the candidate meets
     * the SLAs only if it does in every one; `strategy` is the first. NULL: the strategy as
     * it is. `variants` counts them, `worst_placement` names the one with the worst margin. */
    cJSON *placements;
    int variants;
    /* Capacity the configuration leaves unallocated, in whole GPUs (MIG compute slices
     * unused, cores not promised to any pod, replicas no pod takes); NaN: not known. At equal
     * cost the planner prefers more. */
    double free_gpus;
    char worst_placement[160];
    int worst_variant; /* the index of that variant (0 when it has one) */
    /* Variants the configuration also runs as without the artefacts' say: a strategy object
     * each, simulated like the placements, and the candidate meets the SLAs in general only if
     * it does in these too (HAMi's lone-pod rule leaves a pod alone on its GPU unthrottled
     * until another pod joins it: the throttled variants are what then runs). NULL: none.
     * general_why says in words what they assume. */
    cJSON *general;
    char general_why[160];
    unsigned flags; /* PC_FLAG_*: what an operator should know before applying it */
    /* Tensor parallelism the planner chose (an LLM tenant with "tensor_parallel": "auto"):
     * per tenant, the degree of its engines (0: the tenant's own setting applies) and how many
     * engines (replicas) it runs. NULL when the candidate sets none. The planner writes the
     * degree into the tenant's serving object before loading the candidate. */
    int *tp, *engines;
    /* per tenant, when simulated: an LLM tenant's KV cache in tokens per engine (-1: none) and
     * its preemptions (recomputes) over the run, the figures that tell TP layouts apart */
    long *kv_tokens;
    double *preemptions;
    /* Headroom (tools/plan.c): the load factor at which the candidate first misses an SLA,
     * found by bisection over the scenario's arrival rates scaled as `run --scale-load` does,
     * with the same random numbers. headroom_lo is the largest factor seen to meet, headroom_hi
     * the smallest seen to miss (+inf: none up to the largest tried); NaN: not measured, why
     * in headroom_note. */
    double headroom_lo, headroom_hi;
    int headroom_runs;
    char headroom_note[120];
};

/* Flags a candidate carries into the table, the JSON ("flags") and the page. */
enum {
    /* It bills vGPU licences but the scenario leaves their price at the $0 default
     * (cost.vgpu_license_usd_per_vgpu_year absent): its cost is understated. */
    PC_FLAG_LICENCE_UNPRICED = 1u << 0,
    /* It meets the SLAs only because a pod is alone on its GPU and left unthrottled: in
     * general (another pod placed beside it) it misses. */
    PC_FLAG_ONLY_ALONE = 1u << 1,
};

/* Most layouts (degree × replicas, over the tenants with "tensor_parallel": "auto") the
 * exclusive hook offers: the product grows with each such tenant. */
#define PC_TP_MAX_LAYOUTS 64
/* Most engines of one tenant in a layout. */
#define PC_TP_MAX_REPLICAS 8

/* What a plan hook sees: the scenario, the search bound, and the list it appends to. */
struct plan_ctx {
    const struct scenario *sc;
    int max_gpus; /* plan.max_gpus: no candidate should need more */
    struct plan_cand *c;
    int n, cap;
};

/*
 * Appends a candidate of `kind` on `gpus` GPUs and returns it (valid until the next
 * pc_add). `strategy` (owned by the list from now on) is NULL for a candidate that is
 * only listed to say why it was pruned; the caller then fills ->pruned. The cost is
 * the GPUs' price; a strategy with other costs (licences) adds them to ->cost_per_hour.
 */
struct plan_cand *pc_add(struct plan_ctx *x, const char *kind, int gpus, cJSON *strategy,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Frees what a candidate owns (its strategy, placements, figures). */
void pc_free_cand(struct plan_cand *c);
/* {"name": name, "kind": kind}: the start of every candidate's strategy object. */
cJSON *pc_strategy(const char *name, const char *kind);

/* ---- the tenants as the analytic pre-filter sees them ---- */

/* Offered load in whole-GPU Erlangs (mean rate × mean work); 0 when either is unknown. */
double pc_load(const struct tenant_cfg *t);
/* p99 of one request's work alone on a whole GPU: no configuration beats it. */
double pc_work_p99_s(const struct tenant_cfg *t);
/* 1 (with the reason in why) if some tenant's SLA is below its work's p99 at `speed`. */
int pc_sla_below_work(const struct scenario *sc, double speed, char *why, size_t n);
/* The tightest p99 SLA over tenants that have one; +inf if none has. */
double pc_min_sla_s(const struct scenario *sc);

/*
 * The articles' rules of thumb (docs/domain.md, "Decision rules"), in the order they are
 * tried: the first that applies picks a strategy. A policy's rule_of_thumb hook
 * returns the first of these that applies to a scenario and picks it.
 */
enum pc_rule {
    PC_RULE_TIGHT_SLA,    /* a p99 SLA under 50 ms with more than one tenant */
    PC_RULE_MANY_TENANTS, /* more than 5 tenants per GPU */
    PC_RULE_FEW_TENANTS,  /* 3 tenants or fewer */
    PC_RULE_OTHERWISE,    /* none of the above */
};

/*
 * Placements of T tenants on G identical GPUs, at most r a GPU, up to swapping GPUs: every
 * set partition of the tenants into at most G blocks of at most r (restricted growth
 * strings: tenant 0 on GPU 0, each next tenant on a GPU already used or the first unused).
 * pc_placement_first fills gpu_of[T] with the first and returns 1; pc_placement_next steps
 * to the next and returns 0 after the last. pc_placement_count counts them, stopping at
 * limit + 1.
 */
int pc_placement_first(int T, int G, int r, int *gpu_of);
int pc_placement_next(int T, int G, int r, int *gpu_of);
long pc_placement_count(int T, int G, int r, long limit);

#endif
