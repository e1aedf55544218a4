/*
 * run — runs every strategy of a scenario for all replications and aggregates
 * the per-replication figures into means and 95 % confidence half-widths.
 *
 * Figures are stored as fixed metric vectors (enum below) so aggregation is one loop;
 * what each figure is called and how it is shown is the metric table's (core/metric.h).
 */
#ifndef SS_RUN_H
#define SS_RUN_H

#include "core/scenario.h"

#include <cJSON.h>

enum tenant_metric {
    TM_ARRIVED,
    TM_COMPLETED,
    TM_REJECTED,
    TM_FAILED,
    TM_IN_FLIGHT,
    TM_THROUGHPUT,
    TM_LAT_MEAN,
    TM_LAT_P50,
    TM_LAT_P95,
    TM_LAT_P99,
    TM_LAT_P999,
    TM_WAIT_MEAN,
    TM_SLA_ATTAINMENT,
    TM_SLOWDOWN_P99,
    TM_AVAILABILITY,
    TM_WORK_MEAN, /* mean work of completed requests (service time on a whole GPU) */
    TM_N
};

enum strategy_metric {
    SM_UTIL,
    SM_SWITCH,
    SM_FRAGMENTATION, /* NaN: not applicable (reported as null) */
    SM_COST_PER_HOUR,
    SM_COST_PER_MREQ,
    SM_THROUGHPUT,
    SM_FAIRNESS,
    SM_EVENTS,
    SM_N
};

/* The latency percentiles (TM_LAT_P50 … TM_LAT_P999) and the samples beyond each. */
enum { TAIL_P50, TAIL_P95, TAIL_P99, TAIL_P999, TAIL_N };
extern const double tail_p[TAIL_N];
/* An LLM tenant's percentiles with a tail count: TTFT, TPOT, ITL × p50, p95, p99, in the
 * order of enum llm_metric (core/llmstats.h) without the means. */
#define LM_TAIL_N 9
/* A percentile resting on fewer samples beyond it than this is flagged (table, JSON). */
#define TAIL_MIN_SAMPLES 10

/* One replication (also used for the aggregate: mean in m/t, half-widths in m_ci/t_ci;
 * the aggregate's percentiles are those of all replications' samples together). */
struct strategy_result {
    char name[SCN_NAME_MAX];
    const char *kind;
    int n_tenants;
    double m[SM_N];
    double m_ci[SM_N];
    double *t;    /* n_tenants × TM_N */
    double *t_ci; /* idem */
    double *tail; /* n_tenants × TAIL_N: measured samples above each percentile's rank */
    /* LLM tenants' token figures (core/llmstats.h): n_tenants × LM_N, NaN for other tenants;
     * NULL when the scenario has no LLM tenant. */
    double *llm, *llm_ci;
    /* n_tenants × LM_TAIL_N: an LLM tenant's measured samples beyond its TTFT, TPOT and ITL
     * p50, p95 and p99 (of all replications' samples in the aggregate, as `tail`); NULL with
     * llm. */
    double *llm_tail;
    int licensed_vgpus; /* set by the vGPU policy for the licence cost */
    int gpus_used;      /* GPUs the strategy occupies (set by finish(); 0 = all of the pool) */
    cJSON *details;     /* policy-specific extras (per-instance utilisation…), may be NULL */
    /* Aggregate only (run_scenario), per tenant, in whole-GPU Erlangs: offered load and the
     * capacity of the tenant's share (core/stable.h); NaN where unknown. NULL otherwise. */
    double *load, *capacity;
};

static inline double *res_t(struct strategy_result *r, int tenant)
{
    return r->t + (size_t)tenant * TM_N;
}

/* Whether the scenario has an LLM tenant (then every result carries the LM_* figures). */
int run_has_llm(const struct scenario *sc);

struct run_opts {
    int replications; /* 0 = from the scenario */
    long seed;        /* < 0 = from the scenario */
    int slowdown;     /* compute slowdown_p99 (runs an "alone" baseline if needed) */
    int progress;     /* progress line on stderr */
};

struct run_result {
    int n;
    struct strategy_result *s; /* aggregated, one per strategy */
    int replications;
    unsigned long seed;
    double sim_events;
};

/* Runs everything: 0, or -1 with the message when a run failed (eng_run: a replayed trace
 * changed since load; other input errors are caught at load). On -1 *out holds nothing. */
int run_scenario(const struct scenario *sc, const struct run_opts *o, struct run_result *out,
                 char *err, size_t errlen);
void run_result_free(struct run_result *r);

/* One replication of one strategy (for the planner, validate and tests): 0, or -1 with the
 * message as eng_run() gives it (then *out holds nothing). */
int run_one(const struct scenario *sc, const struct strategy_cfg *st, int rep,
            struct strategy_result *out, char *err, size_t errlen);
void strategy_result_free(struct strategy_result *r);

#endif
