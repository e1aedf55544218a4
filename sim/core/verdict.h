/*
 * verdict — does a tenant meet its SLA under a strategy? The one rule (docs/scenario.md, "The
 * verdict") behind `run --check-sla`, `compare`'s marks, `plan`'s meets_sla, the study, plan
 * and sweep pages and the sweep grid. It judges a small struct of figures, which either an
 * in-memory strategy_result (run, compare, plan, sweep workers) or a result document read back
 * (pages, report) fills, so both give the same answer and the same words.
 *
 * A tenant without an "sla" object has no verdict (has_sla 0, meets 1): nothing was promised.
 * With one, it misses when any of these holds, and the first that holds is the reason:
 *   unstable (its share cannot keep up: every figure grows with the run length),
 *   nothing measured for a latency target, a p99 / TTFT p99 / TPOT p99 above its target,
 *   throughput below sla.min_throughput_per_s, rejected + failed requests above
 *   sla.max_lost_fraction of its measured arrivals (default 0: any lost request misses).
 * worst_ratio is the largest figure / target over the numeric targets (target / figure for the
 * throughput, offered / share for an unstable tenant, lost fraction / allowance when one is
 * given): above 1 a miss, 0.77 a margin of 23 %.
 */
#ifndef SS_VERDICT_H
#define SS_VERDICT_H

#include "core/run.h"
#include "core/scenario.h"

#include <cJSON.h>
#include <stddef.h>

/* What the rule reads. Times in seconds; a target <= 0 (or NaN) is not set; a figure NaN is not
 * measured. */
struct vd_figures {
    int has_sla; /* the tenant has an "sla" object */
    double p99_target_s, ttft_target_s, tpot_target_s, min_throughput_per_s, max_lost_fraction;
    double p99_s, ttft_p99_s, tpot_p99_s, throughput_per_s;
    double arrived, rejected, failed;
    int stable;      /* 1, 0 unstable, -1 not known */
    double overload; /* offered load / the share's capacity; NaN when not known */
};

#define VD_REASON_MAX 96
struct vd_verdict {
    int has_sla;
    int meets; /* 1 also without an SLA */
    /* missed by lost requests with no allowance (no ratio to weigh that by): their fraction of
     * the measured arrivals; 0 otherwise */
    double lost_miss;
    double worst_ratio; /* NaN: no numeric target; +inf: a latency target with nothing measured */
    char reason[VD_REASON_MAX]; /* the first reason, "" when met: "p99 78.4 ms > 60 ms" */
};

/* The rule itself. */
void vd_judge_figures(const struct vd_figures *f, struct vd_verdict *v);

/* Tenant i's figures in r (an aggregate of run_scenario, with load and capacity, or one
 * replication of run_one, without: stability then from stab_state's -1, unknown). */
void vd_figures_of_result(const struct scenario *sc, const struct strategy_result *r, int i,
                          struct vd_figures *f);
/* A tenant object of a result document (`run --json`, a sweep point): its targets from sc's
 * tenant of the same name, or from the point's own "sweep.params" where they set one (doc may
 * be NULL). 0, or -1 when sc has no tenant of that name (f is then "no SLA"). */
int vd_figures_of_json(const struct scenario *sc, const cJSON *doc, const cJSON *tenant,
                       struct vd_figures *f);

/* judge(scenario, strategy result, tenant): the two sources' shorthands. */
void vd_judge(const struct scenario *sc, const struct strategy_result *r, int i,
              struct vd_verdict *v);
void vd_judge_json(const struct scenario *sc, const cJSON *doc, const cJSON *tenant,
                   struct vd_verdict *v);

/* A strategy as a whole: every tenant with an SLA meets it. n_sla, n_miss count tenants;
 * worst_ratio is the max over them; reason is the first missing tenant's "NAME: reason". */
struct vd_strategy {
    int n_sla, n_miss, meets;
    double lost_miss; /* the largest of the tenants' */
    double worst_ratio;
    char reason[SCN_NAME_MAX + VD_REASON_MAX + 4];
};
void vd_strategy_init(struct vd_strategy *s);
void vd_strategy_add(struct vd_strategy *s, const char *tenant, const struct vd_verdict *v);
/* Every tenant of result r judged (vd_judge) into s. */
void vd_judge_strategy(const struct scenario *sc, const struct strategy_result *r,
                       struct vd_strategy *s);

/* Of two verdicts that miss, which is closer to meeting: 1 a, -1 b, 0 tied. One that lost
 * requests it may not lose has no ratio to weigh that by, so one that lost none is closer, then
 * the one that lost fewer (lost_miss); then the smaller worst ratio. The planner and the pages
 * pick "the closest" by it. */
int vd_closer(double lost_a, double ratio_a, double lost_b, double ratio_b);

/* Of two strategies that both meet every SLA, does a rank before b as "the cheapest that meets
 * every SLA": 1 a, -1 b, 0 tied (the caller keeps the earlier in scenario order). Cost per
 * million requests first (one without a cost after every one with), then fewer GPUs, then the
 * wider margin (smaller worst ratio). `compare` and the pages both pick by it, so they name the
 * same strategy. */
int vd_cheaper(double cost_a, double gpus_a, double ratio_a, double cost_b, double gpus_b,
               double ratio_b);

/* The ratio in words: "−23.0 %" at or under the target, "1.3 × the target" over it, "no target"
 * (NaN), "nothing measured" (+inf). */
void vd_fmt_ratio(double ratio, char *buf, size_t n);
/* "✓" or "✗ REASON" (or "" for a tenant without an SLA): the pass/fail cell of the tables. */
void vd_cell(const struct vd_verdict *v, char *buf, size_t n);
/* The JSON of a verdict: {"meets": bool, "reason": string|null, "worst_ratio": number|null}. */
cJSON *vd_json(const struct vd_verdict *v);

/* Adds to a `run --json` tenant object what a reader needs to judge it as vd_judge does and the
 * answer: "overload" (offered / share, when unstable and known) and, for a tenant with an SLA,
 * "verdict" (vd_json). */
void vd_add_json(cJSON *tenant, const struct scenario *sc, const struct strategy_result *r, int i);
/* The share of tenant i's requests within its SLA, as the tables print it: sla_attainment, or
 * for an LLM service (whose targets are its TTFT and TPOT too) goodput / throughput. NaN: none. */
double vd_attainment(const struct scenario *sc, const struct strategy_result *r, int i);

/* Bounds of sla.max_lost_fraction and sla.min_throughput_per_s (checked at load). */
#define VD_MAX_THROUGHPUT_PER_S 1e9

#endif
