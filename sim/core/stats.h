/*
 * stats — constant-memory latency statistics.
 *
 * Percentiles come from a log-bucketed histogram indexed straight from the bits
 * of the IEEE-754 double: the exponent picks the octave and the top
 * ST_SUB_BITS mantissa bits the sub-bucket, so a bucket spans a relative width of
 * 2^-ST_SUB_BITS = 0.78 % and the reported midpoint is within 0.39 % of every
 * value in the bucket (the documented error bound; ≤ 1 % as required). Range:
 * 2^-30 s (~1 ns) to 2^21 s (~24 days); values outside are counted in the end
 * buckets, and the exact min and max are kept so constant samples and the maximum
 * are still reported exactly. A quantile that falls among the values past the range
 * is not known to 0.39 %, so it is reported as +INFINITY ("at least 2^21 s"), never
 * as a number made up from the bucket's edges; below the range the error is at most
 * 2^-30 s, absolute (a request of zero work has latency 0). Why not gsl_histogram: its bin lookup
 * is a binary search over the ranges (~13 comparisons for 6400 bins) on the hottest path of the
 * simulator; the bit trick is one shift and one subtraction, same result. Mean and variance use
 * plain sums (GSL's gsl_rstat also maintains a P² median per sample, which we do not need).
 */
#ifndef SS_STATS_H
#define SS_STATS_H

#include <stddef.h>
#include <stdint.h>

#define ST_SUB_BITS 7
#define ST_EXP_MIN (1023 - 30)
#define ST_EXP_MAX (1023 + 21)
#define ST_NBUCKETS ((ST_EXP_MAX - ST_EXP_MIN) << ST_SUB_BITS)
/* The top of the range (2^21 s = 2,097,152 s, 24.3 days): quantiles past it are +INFINITY. */
#define ST_RANGE_MAX 2097152.0

struct st_hist {
    uint64_t n;
    double min, max;  /* exact extremes; +INFINITY and -INFINITY while empty */
    uint64_t *counts; /* ST_NBUCKETS */
};

void st_hist_init(struct st_hist *h);
/* The same on counts the caller owns (ST_NBUCKETS zeroed counters; st_hist_free not to be
 * called): the engine gives all its tenants one block, so a run with thousands of tenants
 * zeroes and touches only the pages their latencies use. */
void st_hist_init_at(struct st_hist *h, uint64_t *counts);
void st_hist_free(struct st_hist *h);
void st_hist_reset(struct st_hist *h);
/* Adds the samples of src to dst: counts summed, the extremes of both (pooled replications,
 * run.c; pooled tenants, report/cdf.c). */
void st_hist_merge(struct st_hist *dst, const struct st_hist *src);

static inline int st_bucket(double x)
{
    union {
        double d;
        uint64_t u;
    } v = {x};
    /* Exponent and top mantissa bits, sign dropped, are (e << ST_SUB_BITS) | sub: less the
     * range's first exponent, the bucket, clamped to the end buckets (two conditional moves
     * rather than two tests of the exponent, at every completion). */
    int64_t b = (int64_t)((v.u & ~(UINT64_C(1) << 63)) >> (52 - ST_SUB_BITS)) -
                ((int64_t)ST_EXP_MIN << ST_SUB_BITS);
    b = b < 0 ? 0 : b;
    return b >= ST_NBUCKETS ? ST_NBUCKETS - 1 : (int)b;
}

static inline void st_hist_add(struct st_hist *h, double x)
{
    h->counts[st_bucket(x)]++;
    h->min = x < h->min ? x : h->min; /* minsd / maxsd: the extremes start at ±INFINITY */
    h->max = x > h->max ? x : h->max;
    h->n++;
}

/* The p-quantile (0 < p <= 1) by the nearest-rank rule; NaN when empty; +INFINITY when it is
 * past the range (>= ST_RANGE_MAX) and not the exact maximum. */
double st_hist_quantile(const struct st_hist *h, double p);
/* Fraction of samples <= x (bucket resolution); NaN when empty. */
double st_hist_cdf(const struct st_hist *h, double x);
/* Lower edge of bucket b, in the same unit as the samples. */
double st_bucket_lo(int b);

/* Mean and 95 % half-width (Student t, n-1 degrees of freedom) of n values. */
void st_mean_ci95(const double *x, int n, double *mean, double *half_width);

/* Jain's fairness index of n non-negative values (1 = perfectly fair). */
double st_jain(const double *x, int n);

#endif
