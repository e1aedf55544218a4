/*
 * rdoc — the one reader of a result document (the JSON of `sharesim run --json`, a sweep point,
 * docs/scenario.md#results): what the pages, `report`, the summary tables and the study tables
 * read back. It walks the document's shape (its header, its strategies and their tenants, an
 * LLM tenant's token figures, a MIG strategy's instances) and reads every figure through the
 * metric table (core/metric.h) by the vector index the run stores it at (TM_*, SM_*, LM_*), so
 * no reader names a JSON key for a result field: a renamed or new figure is one table entry.
 *
 * Invariants: nothing is recomputed (the same document gives the same numbers, exactly as
 * written); a figure absent or null reads NaN, a name absent "", a missing array nothing; the
 * verdict on a tenant read back is core/verdict.h's vd_judge_json, not this module's.
 */
#ifndef SS_RDOC_H
#define SS_RDOC_H

#include "core/metric.h"

#include <cJSON.h>

/* Reads and parses a result document (at most RD_MAX_BYTES); checks it has a "strategies"
 * array of objects with a "name" and a "tenants" array: 0, or -1 with the file and JSON path. */
#define RD_MAX_BYTES (256u << 20)
int rd_load(const char *path, cJSON **doc, char *err, size_t errlen);

/* What heads a result: the scenario, its GPU model and count, the seed, the replications and
 * (with `run --scale-load`) the load scale; NaN or "" where absent. */
struct rd_head {
    const char *scenario, *gpu;
    double gpus, seed, replications, load_scale;
};
void rd_head_of(const cJSON *doc, struct rd_head *h);

/* The strategies of a document and the tenants of a strategy, as arrays (NULL: none). */
const cJSON *rd_strategies(const cJSON *doc);
const cJSON *rd_tenants(const cJSON *strategy);
#define RD_EACH_STRATEGY(s, doc) cJSON_ArrayForEach(s, rd_strategies(doc))
#define RD_EACH_TENANT(t, strategy) cJSON_ArrayForEach(t, rd_tenants(strategy))
int rd_n_tenants(const cJSON *strategy);

/* A strategy's or a tenant's name, a strategy's kind; "" when absent. */
const char *rd_name(const cJSON *obj);
const char *rd_kind(const cJSON *strategy);
/* The strategy (tenant of a strategy) of that name, or NULL. */
const cJSON *rd_strategy(const cJSON *doc, const char *name);
const cJSON *rd_tenant(const cJSON *strategy, const char *name);

/* A figure of a tenant (MT_TENANT, MT_LLM: pass the tenant object) or of a strategy, by its
 * vector index; NaN when absent, null, or not a metric of the table. */
double rd_fig(const cJSON *obj, enum mt_level level, int index);
/* A figure over a strategy's tenants that have it: their mean, largest, smallest or sum; NaN
 * when none has it. */
enum rd_over { RD_MEAN, RD_MAX, RD_MIN, RD_SUM };
double rd_over_tenants(const cJSON *strategy, enum mt_level level, int index, enum rd_over how);

/* Whether a tenant is an LLM service (it has token figures), whether any tenant of doc is. */
int rd_is_llm(const cJSON *tenant);
int rd_has_llm(const cJSON *doc);
/* The stability verdict of a tenant (core/stable.h): 1, 0 unstable, -1 not known. */
int rd_stable(const cJSON *tenant);

/* A sweep point's swept parameters ({"path": value, ...} in sweep order), or NULL. */
const cJSON *rd_sweep_params(const cJSON *doc);

/* A MIG strategy's layout (details.gpus[]): per GPU its instances and stranded slices. */
const cJSON *rd_mig_gpus(const cJSON *strategy);
#define RD_EACH_GPU(g, strategy) cJSON_ArrayForEach(g, rd_mig_gpus(strategy))
/* Whether some GPU of the strategy lists instances (an array, maybe empty), and whether some
 * GPU has at least one. */
int rd_lists_instances(const cJSON *strategy);
int rd_uses_instances(const cJSON *strategy);
/* A vGPU strategy's scheduler (its details), "" for other strategies. */
const char *rd_vgpu_scheduler(const cJSON *strategy);
struct rd_gpu {
    const cJSON *instances;                        /* the array, NULL when the GPU lists none */
    int n;                                         /* its instances */
    double stranded_compute, stranded_memory, fgd; /* fractions; NaN where absent */
};
void rd_gpu_of(const cJSON *gpu, struct rd_gpu *g);
struct rd_instance {
    const char *profile; /* "3g.40gb" */
    double start, utilization;
    const cJSON *tenants; /* an array of names */
};
void rd_instance_of(const cJSON *instance, struct rd_instance *in);
/* The names of an instance's tenants joined by '+' ("?" for one that is not a string). */
void rd_instance_tenants(const struct rd_instance *in, char *buf, size_t n);

/* ---- a plan document (`sharesim plan --json`, tools/plan.c) ---- */

/* A tenant's figures of a simulated candidate, the worst over its placements: {tenant: value}. */
enum rd_cand_fig { RD_CAND_P99, RD_CAND_TTFT, RD_CAND_TPOT, RD_CAND_THR, RD_CAND_FIGS };
/* A candidate (or the recommendation, or the closest): as written; NaN or "" where absent. */
struct rd_cand {
    const char *kind; /* the candidate's, else its strategy's */
    const char *label, *reason, *pruned;
    int simulated, meets;
    double gpus, cost_per_hour, cost_per_mreq, worst_ratio;
    const cJSON *fig[RD_CAND_FIGS];
};
void rd_cand_of(const cJSON *cand, struct rd_cand *c);
/* A tenant's figure of a candidate (ms for the latencies, req/s); NaN when not simulated. */
double rd_cand_tenant(const struct rd_cand *c, enum rd_cand_fig f, const char *tenant);

struct rd_plan {
    const cJSON *recommendation, *closest; /* NULL: none */
    const cJSON *candidates;               /* the ranked array */
    const char *rule, *rule_kind;          /* the rule of thumb, "" when none applies */
    int rule_agrees;
    double simulations;
};
void rd_plan_of(const cJSON *plan, struct rd_plan *p);

#endif
