/*
 * fit — calibration of the LLM engine's named parameters from end-to-end measurements
 * (`sharesim profile fit`, docs/calibration.md#fitting-the-engine-to-measurements).
 *
 * A measurement file (kernels/profiles/measurements/, its format in the docs) holds one
 * published point per row: a GPU, a model and its engine settings, a client (concurrency,
 * rate or batch), the lengths, and the measured TTFT, TPOT and output throughput. Each row
 * becomes one scenario of one LLM tenant on its GPU under `exclusive`; the fit moves a handful
 * of numeric keys of the `serving` object, the same values for every row, to minimise
 * Σ (ln(predicted / measured))² over the `fit` rows and the metrics they have. The `holdout`
 * rows are only evaluated.
 *
 * Invariants: every run has a fixed seed and a fixed request count, so one set of values gives
 * one set of predictions, bit for bit; a row the simulator cannot simulate is skipped with its
 * reason, never guessed at; no value is fitted per row.
 */
#ifndef SS_FIT_H
#define SS_FIT_H

#include <cJSON.h>
#include <stddef.h>

/* What a row measures, in the order of the reports. */
enum fit_metric { FM_TTFT, FM_TPOT, FM_TPS, FM_N };
extern const char *const fit_metric_key[FM_N]; /* "ttft_ms", "tpot_ms", "output_tok_per_s" */

enum fit_client { FC_CONCURRENCY, FC_RATE, FC_BATCH };

#define FIT_ID_MAX 64
#define FIT_TEXT_MAX 128
struct fit_row {
    int line; /* of the CSV file, for messages */
    char id[FIT_ID_MAX];
    char gpu[FIT_TEXT_MAX], model[FIT_TEXT_MAX], dtype[FIT_TEXT_MAX], kv_dtype[FIT_TEXT_MAX];
    char lengths[FIT_TEXT_MAX]; /* "fixed" or a dataset name */
    char framework[FIT_TEXT_MAX]; /* the engine table's entry for the row's engine column */
    int tp;
    enum fit_client client;
    double load;
    long isl, osl;         /* 0: not given (a dataset) */
    double isl_mean, osl_mean; /* a dataset's stated means (may be fractional); 0: not given */
    long num_prompts;      /* 0: not given */
    long max_num_seqs;     /* 0: the engine default */
    long max_batched;      /* max_batched_tokens, 0: the engine default */
    int median;            /* stat: 1 median, 0 mean */
    double meas[FM_N];     /* NaN: not measured */
    int holdout;           /* role */
    char skip[1100];       /* why the row is not simulated, "" when it is */
    char note[256];        /* how it is simulated when that is not the row's own client */
    long requests, warmup; /* of its scenario */
    double pred[FM_N];     /* NaN: not predicted */
};

/* Limits of a measurement file (checked at load, the numbers in the messages). */
#define FIT_FILE_MAX_BYTES (16u << 20)
#define FIT_ROWS_MAX 10000
/* The largest batch or concurrency simulated: a bigger one is capped (and the row says so);
 * the engine's own max_num_seqs is at most 65,536, and 4,096 requests already fill it many
 * times over for the throughput figure. */
#define FIT_BATCH_MAX 4096

/* Reads a measurement file: 0 with *rows (n of them; free with free()), or -1 with
 * "FILE:LINE:COL: what" in err. Rows it cannot simulate have skip set. sha256: the file's. */
int fit_read(const char *path, struct fit_row **rows, int *n, char sha256[65], char *err,
             size_t errlen);

/* A fitted parameter: a numeric key of the `serving` object with its bounds and start. */
#define FIT_PARAMS_MAX 16
struct fit_param {
    char key[64];
    double lo, hi, start;
    double value; /* the result */
};
/* The default set (the table at the top of fit.c). */
int fit_default_params(struct fit_param *p, int cap);
/* Parses "KEY=LO:HI[:START]" (START defaults to the middle): 0, or -1 with the reason. */
int fit_parse_param(const char *arg, struct fit_param *p, char *err, size_t errlen);

/* The fit's iteration cap (simplex steps), and its convergence test: the simplex's size in
 * the transformed parameters (see fit.c). */
#define FIT_ITER_MAX 150
#define FIT_SIMPLEX_TOL 1e-3

struct fit_ctx {
    struct fit_row *rows;
    int n_rows;
    struct fit_param *params;
    int n_params;
    int closed_loop; /* the scenario format has "process": "closed" */
    int l1;          /* the objective sums |ln(pred/measured)| instead of its square */
    int datasets;    /* it has "tokens": {"dataset": NAME} */
    long sims;       /* simulations run */
    int iterations;
    int converged;
    double objective; /* at the values of params[].value */
};

/* Probes the scenario format for the syntax rows need, notes the rows it cannot build (skip)
 * and checks that the parameters are serving keys the loader takes at their bounds and
 * starts: call once after fit_read. 0, or -1 with the message; the values are then the
 * starts. Prints nothing. */
int fit_prepare(struct fit_ctx *c, char *err, size_t errlen);

/* Evaluates every simulated row at params[].value: pred[] set. 0, or -1 with the message. */
int fit_evaluate(struct fit_ctx *c, char *err, size_t errlen);

/* Fits params[].value from their starts on the fit rows, then evaluates every row there:
 * 0, or -1 with the message (a run that failed; the bounds are checked by the loader). */
int fit_run(struct fit_ctx *c, char *err, size_t errlen);

/* The scenario of row r at params[].value, as the text `sharesim run` reads (malloc'd). */
char *fit_scenario_text(const struct fit_ctx *c, const struct fit_row *r);

/* A split's figure of one metric: the rows with both a measurement and a prediction, the
 * median of |predicted / measured − 1| in %, and the share of them predicted high (NaN: no
 * points). */
struct fit_stat {
    int points;
    double median_abs_pct, positive_share;
};
void fit_summary(const struct fit_ctx *c, int holdout, int metric, struct fit_stat *s);
/* A row's error in % of the measurement, NaN where either is missing. */
double fit_error_pct(const struct fit_row *r, int metric);

/* The report and profile fragment (docs/calibration.md): parameters, data digest, split, rows
 * with their residuals, medians and bias per split and metric. */
cJSON *fit_report(const struct fit_ctx *c, const char *data_path, const char *sha256, int fitted);

#endif
