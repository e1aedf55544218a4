/*
 * policy — the interface every sharing strategy implements (docs/development.md: each
 * strategy exports one `struct policy_ops` and nothing else; the engine never
 * switches on the kind).
 *
 * Life cycle per strategy: parse() once at scenario load (validates the JSON and
 * keeps the parameters), then for every replication init() → arrive()/on_event()
 * as the engine delivers them → finish() → destroy(). free_cfg() at scenario free.
 *
 * Besides simulating, a strategy answers what the tools ask of it (planner
 * candidates, deployment files…) through its optional `hooks`, so no code outside
 * sim/policy/ needs to know a strategy by its kind (docs/policy-hooks.md).
 */
#ifndef SS_POLICY_H
#define SS_POLICY_H

#include "base/jsonv.h"

#include <cJSON.h>
#include <stddef.h>

struct sim;
struct scenario;
struct event;
struct strategy_result;
struct plan_ctx;
struct plan_cand;
struct dp_ctx;
struct policy_hooks;

struct policy_ops {
    const char *kind;
    /* Validates the strategy object at `path`; all tenants and the GPU are known. */
    int (*parse)(const struct jv *j, const cJSON *obj, const char *path, const struct scenario *sc,
                 void **cfg);
    void (*free_cfg)(void *cfg);
    /* Builds the run-time state for one replication. Input errors are caught by parse(). */
    void *(*init)(struct sim *s, const void *cfg);
    /* A request of `tenant` has been appended to its queue (not called while the policy has
     * turned the tenant's announcements off, eng_announce). */
    void (*arrive)(struct sim *s, void *st, int tenant);
    /* An event this policy scheduled (ev->kind >= EV_POLICY). */
    void (*on_event)(struct sim *s, void *st, const struct event *ev);
    /* A fault of `tenant` (Poisson, tenant.fault_rate_per_h): fail what the blast radius covers. */
    void (*fault)(struct sim *s, void *st, int tenant);
    /* End of run: close busy intervals and fill strategy-level figures. */
    void (*finish)(struct sim *s, void *st, struct strategy_result *res);
    void (*destroy)(void *st);
    /* What the tools ask of this strategy besides simulating it; NULL: nothing. */
    const struct policy_hooks *hooks;
    /* The model's capacity of every tenant's share (core/stable.h, docs/scenario.md
     * "Stability"): into cap[i] the work rate, in whole-GPU seconds of work per second, that
     * tenant i's share sustains when i always has work waiting and every other tenant j offers
     * load[j] (same unit; +INFINITY: saturated; NaN: unknown). cap[i] stays NaN where the
     * policy cannot say. NULL: unknown for every tenant. */
    void (*capacity)(const struct scenario *sc, const void *cfg, const double *load, double *cap);
    /* Non-zero when its servers run LLM tenants' engines (docs/llm.md); the loader refuses a
     * scenario with an LLM tenant under a strategy without it. */
    int serves_llm;
    /* Why its servers cannot hold a tensor-parallel group (docs/llm.md#tensor-parallelism), for
     * the loader's refusal of "tensor_parallel" > 1; NULL: they can (whole GPUs). */
    const char *no_tp;
    /* 1: it can also hand a tenant whole GPUs (MIG's MIG-disabled GPUs), so the loader leaves
     * a tensor-parallel tenant to its parse, which refuses a group only on a share (no_tp). */
    int tp_whole_gpus;
};

/*
 * Optional hooks, implemented in sim/policy/plan_<kind>.c (docs/policy-hooks.md).
 * Every member may be NULL; the tools then leave the strategy out of that task.
 */
struct policy_hooks {
    /* run, compare: non-zero for the strategy the others are measured against
     * (slowdown_p99; compare's default baseline is the first strategy that has it). Its
     * default configuration on one GPU per tenant is also the implicit "alone" run when
     * a scenario has no such strategy. Exactly one policy sets it (tests/test_hooks.c). */
    int is_baseline;
    /* compare: what this strategy adds to a request's time in service (cfg: its parsed
     * parameters), the third term of compare's latency decomposition; NULL: "slowed
     * service". */
    const char *(*label)(const void *cfg);
    /* plan: appends this strategy's candidate configurations for x->sc (core/plancand.h):
     * the ones worth simulating, and the ones the analytic pre-filter rules out, each
     * with the reason in ->pruned. The planner prices, simulates and ranks them. */
    void (*plan)(struct plan_ctx *x);
    /* plan --k8s: writes what deploys d->c (one of this strategy's candidates: the
     * recommendation, or the closest when none meets the SLAs) through core/deploy.h: its
     * tool's files (a device plugin ConfigMap, a mig-manager ConfigMap, ...), what each
     * tenant's pod must request (dp_limit) and how to apply the files (dp_readme). The
     * planner then writes the pods' patches and the README. 0, or -1 with d->err. */
    int (*deploy)(struct dp_ctx *d);
    /* plan: candidate x->c[i] of this strategy was simulated and misses an SLA; may append
     * candidates that try again with more for the tenants that missed (a larger MIG
     * instance), which the planner simulates in cost order like the others. Must not add a
     * configuration already in the list (the search ends when nothing new is proposed). */
    void (*refine)(struct plan_ctx *x, int i);
    /* plan: the first of the articles' rules of thumb (enum pc_rule, core/plancand.h)
     * that applies to sc and picks this strategy, with its wording in rule; -1 if none
     * does. The planner reports the earliest rule any strategy claims next to what the
     * simulation picked. */
    int (*rule_of_thumb)(const struct scenario *sc, char *rule, size_t n);
};

/* The registry: NULL if no policy has this kind. */
const struct policy_ops *policy_find(const char *kind);
/* The registry in its order (the order tools list and search strategies in): policy_at(i)
 * for 0 <= i < policy_count(), NULL outside. Code that needs "the strategy that does X"
 * walks it and asks each policy's ops, instead of naming a kind. */
int policy_count(void);
const struct policy_ops *policy_at(int i);
/* ops->hooks->is_baseline, NULL-safe. */
int policy_is_baseline(const struct policy_ops *ops);
/* The first registered baseline policy (struct policy_hooks.is_baseline); NULL if none. */
const struct policy_ops *policy_baseline(void);
/* Comma-separated list of known kinds, for messages. */
const char *policy_kinds(void);
/* The same for the kinds that serve LLM tenants (serves_llm). */
const char *policy_llm_kinds(void);

extern const struct policy_ops policy_exclusive;
extern const struct policy_ops policy_timeslice;
extern const struct policy_ops policy_mig;
extern const struct policy_ops policy_mps;
extern const struct policy_ops policy_vgpu;
extern const struct policy_ops policy_fractional;

extern const struct policy_hooks policy_hooks_exclusive;
extern const struct policy_hooks policy_hooks_timeslice;
extern const struct policy_hooks policy_hooks_mig;
extern const struct policy_hooks policy_hooks_mps;
extern const struct policy_hooks policy_hooks_vgpu;
extern const struct policy_hooks policy_hooks_fractional;

#endif
