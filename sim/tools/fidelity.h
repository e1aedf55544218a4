/*
 * fidelity — the parts of the fidelity check that need no GPU (docs/calibration.md, "Running
 * the device check"): real processes contend for a GPU (kernels/fidelity.cu), sharesim
 * simulates the same scenario with the measured profile, and the two latency distributions
 * are compared side by side.
 *
 *   kernels/fidelity.cu     measures: latencies CSV + a summary (fid_summary_json), using
 *                           fid_poisson for its submit times and fid_stats for its figures
 *   sharesim fidelity scenario   summary -> the scenario sharesim runs (fid_scenario), and
 *                           with --replay the measured submit times as trace arrivals
 *   sharesim fidelity table      summaries + sharesim's results -> the comparison (fid_row_*)
 *
 * The summary document (schema "sharesim-fidelity/1", one case: one sharing mode and one
 * number of tenants) is written by fid_summary_json and read back by fid_summary_read, so
 * writer and reader are this one file. Latencies are in milliseconds, submit to completion.
 *
 * What the prediction is. Each tenant is one context (time-slicing) or one partition
 * (green-context SM partition, a stand-in for a MIG instance of the same SM count): a
 * Poisson stream at the measured rate of requests whose work is the kernel's measured
 * duration alone on all SMs (deterministic, compute class). The predicted latency is
 * sharesim's plus the measured launch-and-notify overhead (idle submit-to-completion minus
 * the kernel's duration), a constant sharesim does not model.
 */
#ifndef SS_FIDELITY_H
#define SS_FIDELITY_H

#include "calib/calib.h"

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FID_SCHEMA "sharesim-fidelity/1"
#define FID_MAX_TENANTS 16

enum fid_mode { FID_TIMESLICE = 0, FID_PARTITION = 1 };
/* "timeslice", "partition"; fid_mode_parse returns -1 for anything else. */
const char *fid_mode_name(enum fid_mode m);
int fid_mode_parse(const char *s);

/* Latency figures of a sample, milliseconds. Quantiles are nearest-rank: the smallest x with
 * at least p of the sample at or below it (the rule sharesim's histograms follow). */
struct fid_stats {
    size_t n;
    double mean_ms, p50_ms, p95_ms, p99_ms, max_ms;
};
/* Sorts x (n values) in place and fills s; n == 0 gives n 0 and NaN figures. */
void fid_stats(double *x, size_t n, struct fid_stats *s);
/* Nearest-rank quantile of a sorted sample, p in [0, 1]; NaN when n == 0. */
double fid_quantile(const double *sorted, size_t n, double p);

/*
 * Poisson arrival times (seconds, increasing) in [0, duration_s) at rate_per_s, from the
 * simulator's random stream seeded with seed (rng_seed: the same seed, the same times on
 * every machine). Returns how many; *out (malloc'ed, caller frees) holds them.
 */
size_t fid_poisson(uint64_t seed, double rate_per_s, double duration_s, double **out);

/* One case as kernels/fidelity.cu measured it. */
struct fid_summary {
    char path[1024]; /* where it was read from ("" when built in memory) */
    char case_name[64];
    enum fid_mode mode;
    int tenants;
    char device[256], driver[128], date[40], source[640];
    uint64_t seed;
    double duration_s, warmup_s; /* arrivals in [warmup_s, duration_s) are measured */
    double load;                 /* busy fraction each tenant's rate was set for */
    double rate_per_s;           /* per tenant, the Poisson parameter */
    double work_ms;              /* the kernel alone on all SMs (median) */
    double overhead_ms;          /* idle submit-to-completion minus the kernel's duration */
    int total_sms;
    /* FID_PARTITION only: SMs per partition as the driver made them, how, and the kernel's
     * measured duration alone on one partition (median over the partitions). */
    int part_sms;
    char part_method[96];
    double part_alone_ms;
    char latencies_csv[256];   /* the latencies file, relative to the summary's folder */
    struct fid_stats measured; /* pooled over the tenants */
    struct fid_stats per_tenant[FID_MAX_TENANTS]; /* each tenant's measured requests */
};

/* The summary document (the schema above); kernel (may be NULL) is added as "kernel". */
cJSON *fid_summary_json(const struct fid_summary *s, cJSON *kernel);
/* Reads and checks a summary; 0, or -1 with "FILE: PATH: …" in err. */
int fid_summary_read(const char *path, struct fid_summary *s, char *err, size_t errlen);

/*
 * The MIG profile standing in for a partition of `sms` SMs shared by `tenants` tenants: among
 * the GPU's profiles that allow that many instances, the one with the SM count nearest to
 * sms (ties: the first in the table). Returns its index, or -1 when none allows the count.
 */
int fid_mig_choice(const struct gpu_profile *g, int sms, int tenants);

struct fid_scn_opts {
    const char *gpu; /* the scenario's "gpu": a profile name, or an absolute path */
    long requests;   /* Poisson scenario: arrivals in all (the warm-up is 2 % of them) */
    const char
        *trace; /* replay: trace file prefix, "<prefix>-t<i>.csv" per tenant; NULL: Poisson */
};

/*
 * The scenario for a case on profile doc/g (the measured profile: its slice, switch and rate
 * exponent). Time-slicing: strategy "timeslice" with the profile's timeslice_us and switch_us
 * and, when the profile has them, "timeslice-heavy" with timeslice_us_heavy and
 * switch_us_heavy. Partition: strategy "mig", one instance of fid_mig_choice's profile per
 * tenant, and the work scaled by (instance SMs / partition SMs)^exponent so that the
 * instance's speed is the partition's under the rate model. With o->trace, each tenant
 * replays its measured submit times (read from the summary's latencies CSV, written to
 * the trace files) instead of drawing Poisson arrivals. Returns the scenario, or NULL with
 * a message; *note (may be NULL) gets what was chosen and why, in one sentence.
 */
cJSON *fid_scenario(const struct fid_summary *s, const cJSON *doc, const struct gpu_profile *g,
                    const struct fid_scn_opts *o, char *note, size_t notelen, char *err,
                    size_t errlen);

/* sharesim's prediction for one strategy of a case: from its --json result and --cdf file. */
struct fid_pred {
    int ok; /* 0: no prediction (missing result, strategy or pooled quantiles) */
    long completed;
    double mean_ms, p50_ms, p95_ms, p99_ms; /* sharesim's, overhead not added */
};

/*
 * The names of the strategies of a result (up to max, in order); 0 when the file is
 * missing. Then the prediction of one of them: mean over the tenants weighted by completed
 * requests, quantiles from the pooled "(all)" rows of the CDF. A missing file or strategy
 * gives ok = 0 and returns 0; a file that exists but does not parse returns -1 with a message.
 */
int fid_result_strategies(const char *result_json, char names[][64], int max, char *err,
                          size_t errlen);
int fid_predicted(const char *result_json, const char *cdf_csv, const char *strategy,
                  struct fid_pred *p, char *err, size_t errlen);

/* One line of the comparison: a case and one strategy sharesim ran for it. */
struct fid_row {
    struct fid_summary s;
    char strategy[64];
    struct fid_pred poisson, replay;
};

/* (sim_ms + the case's overhead − measured_ms) / measured_ms, for a figure of prediction p;
 * NaN when p has no prediction or a figure is not known. */
double fid_rel_error(const struct fid_row *r, const struct fid_pred *p, double sim_ms,
                     double measured_ms);
/* True when the Poisson prediction's p99 is within goal (0.10 = 10 %) of the measured one. */
int fid_row_ok(const struct fid_row *r, double goal);

/* The comparison as Markdown (a table and the legend under it). */
void fid_table_md(FILE *fp, const struct fid_row *rows, size_t n, double goal);
/* The same rows as objects (`sharesim fidelity table --json/--csv`). */
cJSON *fid_rows_json(const struct fid_row *rows, size_t n, double goal);

#endif
