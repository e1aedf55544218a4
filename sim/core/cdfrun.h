/*
 * cdfrun — latency distributions for plots: quantiles of every (strategy, tenant)
 * latency histogram at a fixed grid of probabilities, plus one pooled row per
 * strategy over all its tenants ("(all)"); report/cdf.h writes them as the CSV of
 * `sharesim run --cdf FILE`. A second pass of runs, so it sits with core/run, not with
 * the writers.
 *
 * The figures of a run keep only p50/p95/p99/p999, not the histograms, so the
 * quantiles come from a second pass that re-runs every replication of every
 * strategy with the same seeds: the same arrivals and work, hence the same
 * histograms (runs are deterministic), and with one replication the 0.99 row is
 * bit-for-bit the run's p99. With several replications the histograms of all
 * replications are pooled (summed) before the quantiles are taken.
 * Quantiles use st_hist_quantile (nearest rank, ≤ 0.39 % relative error).
 */
#ifndef SS_CDFRUN_H
#define SS_CDFRUN_H

#include "core/scenario.h"

#include <stddef.h>
#include <stdint.h>

/* The probability grid: 0.001, 0.005, 0.01 … 0.99 (step 0.01), 0.991 … 0.999,
 * 0.9991 … 0.9999 and 1 (the maximum): dense in the tail a CCDF plot shows. */
int cdf_n_probs(void);
double cdf_prob(int k);

struct cdf_result {
    int n_strategies;
    int n_rows;  /* per strategy: n_tenants + 1 (the pooled row is last) */
    uint64_t *n; /* [strategy][row]: samples */
    double *q_s; /* [strategy][row][prob]: latency quantile, seconds (NaN when empty) */
};

/*
 * Runs every strategy of the scenario for R replications (seed: < 0 = the
 * scenario's; replications: 0 = the scenario's) and collects the quantiles: 0, or -1
 * with the message when a run failed (eng_run), and then *out holds nothing.
 */
int cdf_collect(const struct scenario *sc, long seed, int replications, struct cdf_result *out,
                char *err, size_t errlen);
void cdf_free(struct cdf_result *r);

/* Quantile (seconds) of row `row` (tenant index, or n_tenants for the pool). */
double cdf_quantile(const struct cdf_result *r, int strategy, int row, int k);

/* The quantiles read back from a `run --cdf` CSV (report/cdf.h writes it), for the pages:
 * per (strategy, tenant) a curve, in the file's order. A header or line that is not the
 * CSV's is an error naming the file and line; an empty latency (no data at p) is skipped. */
struct cdf_curve {
    char strategy[64], tenant[64];
    int n;
    double p[128], ms[128];
};
struct cdf_curves {
    int n;
    struct cdf_curve *rows;
};
/* pooled: keep only the rows of every strategy's tenants pooled ("(all)", named by the
 * strategy and tenant "(all)"), else only the per-tenant rows. */
int cdf_csv_load(const char *path, int pooled, struct cdf_curves *c, char *err, size_t errlen);
const struct cdf_curve *cdf_csv_find(const struct cdf_curves *c, const char *strategy,
                                     const char *tenant);
void cdf_csv_free(struct cdf_curves *c);

#endif
