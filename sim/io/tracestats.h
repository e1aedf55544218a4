/*
 * tracestats — one pass over a trace (trace.h) to describe it: count, span, mean rate,
 * inter-arrival mean and coefficient of variation, token percentiles, work_ms moments and, for
 * openb pod lists, GPU demand. Used by `sharesim trace stats` and by anyone who wants to
 * compare a synthetic arrival process with a real trace.
 *
 * Invariants:
 *  - Constant memory: moments are kept with Welford's update, and token percentiles come from
 *    a trs_hist (below), whose size is fixed, so a summary costs the same for any length.
 *  - Definitions (the same as numpy's defaults, so an independent script can check them):
 *    rate_per_s = (count - 1) / duration_s = 1 / ia_mean_s (arrivals per second over the span
 *    from the first to the last record); ia_cv is the population standard deviation of the
 *    count - 1 gaps over their mean; percentiles interpolate linearly between order statistics
 *    (numpy.percentile's "linear" method).
 */
#ifndef SS_TRACESTATS_H
#define SS_TRACESTATS_H

#include "io/trace.h"

#include <stddef.h>

/*
 * A constant-memory histogram of non-negative integers. Values below TRS_HIST_EXACT have a
 * bin each, so order statistics and percentiles among them are exact. Larger values go into
 * log-linear bins, 64 per power of two, and stand for their bin's midpoint: within 1/64
 * (1.6 %) of the true value; trs_hist_exact() says whether any value needed that. Published
 * token counts are far below the bound (Azure maxima: 14,050 in, 1,899 out).
 */
#define TRS_HIST_EXACT 65536
struct trs_hist;
struct trs_hist *trs_hist_new(void);
void trs_hist_add(struct trs_hist *h, long long v); /* v >= 0 */
long long trs_hist_count(const struct trs_hist *h);
/* p in [0, 1]; NaN when the histogram is empty. */
double trs_hist_quantile(const struct trs_hist *h, double p);
int trs_hist_exact(const struct trs_hist *h);
void trs_hist_free(struct trs_hist *h);

struct trs_counts {
    long long n; /* records that had the column */
    double mean;
    long long min, max;
    double p50, p90, p99;
    int exact; /* percentiles are exact (no value reached TRS_HIST_EXACT) */
};

struct trs_summary {
    enum tr_format fmt;
    unsigned columns; /* TR_COL_* of the file */
    long long count;
    double first_s, last_s, duration_s; /* after time_scale */
    double rate_per_s;                  /* NaN when duration_s is 0 */
    double ia_mean_s, ia_cv, ia_max_s;  /* NaN with fewer than 2 records (cv: or a zero mean) */
    struct trs_counts input_tokens, output_tokens;
    long long work_n;
    double work_mean_ms, work_cv, work_min_ms, work_max_ms;
    /* openb only */
    long long gpu_pods;        /* num_gpu > 0 */
    long long shared_gpu_pods; /* one GPU with gpu_milli < 1000: candidates for sharing */
    double mean_gpus;          /* mean of num_gpu * gpu_milli / 1000 over all pods */
    double mean_lifetime_s;    /* mean of deletion_time - creation_time (not time-scaled) */
};

/* Reads the whole trace once; 0, or -1 with the reader's message (file:line:col). */
int trs_summarize(const char *path, enum tr_format fmt, const struct tr_opts *opts,
                  struct trs_summary *s, char *err, size_t errlen);

#endif
