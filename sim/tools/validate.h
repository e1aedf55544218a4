/*
 * validate — runs configurations that have exact queueing answers through the
 * simulator and compares (`sharesim validate`, docs/validate.md):
 *   - M/M/c FIFO (one Poisson tenant over c exclusive GPUs): mean wait, mean and
 *     p99 sojourn against Erlang C (analytic.h);
 *   - M/G/1-PS (exclusive, "discipline": "ps"): mean sojourn E[S]/(1 − ρ) for
 *     exponential, deterministic and lognormal work (insensitivity);
 *   - time-slicing with zero switch cost: Poisson tenants with exponential work on
 *     one GPU; overall mean sojourn 1/(μ − λ) (work conservation) and utilisation ρ;
 *   - saturated time-slicing: throughput q/(q+s)·μ, switch overhead s/(q+s),
 *     utilisation q/(q+s).
 *
 * Each configuration runs R independent replications (run_one with rep = 0..R−1);
 * a row compares one metric's mean over the replications ± its 95 % Student-t
 * half-width with the exact value. A row passes when the interval covers the exact
 * value or the relative error is under 1 %.
 *
 * Invariants: the grid, the seeds and hence every number are fixed by (quick,
 * seed, scale); they do not depend on `jobs`, since each (configuration,
 * replication) task is computed on its own and results are stored by task index.
 */
#ifndef SS_VALIDATE_H
#define SS_VALIDATE_H

#include "tools/shard.h"

#include <cJSON.h>
#include <stdio.h>

#define VAL_REL_TOL 0.01 /* the "error under 1 %" half of the pass rule */

struct val_opts {
    int quick;          /* the reduced grid (CI: seconds, not minutes) */
    int jobs;           /* worker processes; <= 1 runs everything in this process */
    unsigned long seed; /* base seed; configuration k uses seed + 7919·k */
    double scale;       /* multiplies every request count and duration (1 = as designed) */
    int progress;       /* progress line on stderr */
};

/* Batch-array runs (docs/distributed.md): shard.n > 1 runs only the tasks t with t mod n = i
 * and writes their results to `partial` (no report); n_merge > 0 runs nothing and reads
 * the tasks' results from the partial files merge[0..n_merge-1]. */
struct val_batch {
    struct shard shard;
    const char *partial;
    char *const *merge;
    int n_merge;
};

struct val_row {
    char family[24];  /* "M/M/c", "M/G/1-PS", "timeslice s=0", "timeslice saturated" */
    char config[64];  /* e.g. "c=4 rho=0.80" */
    char metric[24];  /* e.g. "mean wait" */
    const char *unit; /* "s", "1/s" or "" (a fraction); values below are in it */
    double exact;
    double mean, ci95; /* over the replications; ci95 is the half-width */
    double rel_err;    /* (mean − exact) / exact */
    double z;          /* (mean − exact) / standard error; NaN when the replications agree */
    int ci_limited;    /* ci95 > 1 % of exact: the verdict rests on the CI alone */
    int pass;
    int replications;
    double requests; /* measured requests, all replications together */
};

struct val_report {
    int quick;
    unsigned long seed;
    double scale;
    int n, n_failed;
    int n_ci_limited; /* rows that can fail by chance (about 5 % of them per run) */
    struct val_row *rows;
    double requests; /* measured requests over the whole grid */
};

/* The pass rule: the interval covers the exact value, or |relative error| < VAL_REL_TOL.
 * validate passes each row's 95 % half-width widened to a family-wise level over the
 * grid (Bonferroni), see validate.c. */
int val_judge(double exact, double mean, double ci95);

/* Runs the grid. Returns 0, or -1 with a message (a worker process failed, a partial file
 * is bad or misses tasks). Under MPI every rank calls it; only on rank 0 (pool_is_writer())
 * does *out hold the report, on the others it is empty, and so is it for a shard. */
int val_run(const struct val_opts *o, struct val_report *out, char *err, size_t errlen);
/* val_run for a shard or a merge; b = NULL is val_run. */
int val_run_batch(const struct val_opts *o, const struct val_batch *b, struct val_report *out,
                  char *err, size_t errlen);
void val_report_free(struct val_report *r);

/* Aligned text table, times in ms. */
void val_print_table(FILE *fp, const struct val_report *r);
/* Markdown: a heading naming `command`, the table, and the pass rule. */
void val_print_markdown(FILE *fp, const struct val_report *r, const char *command);
/* {"grid", "seed", "scale", "passed", "rows": [...]} with values in SI units. */
cJSON *val_json(const struct val_report *r);

#endif
