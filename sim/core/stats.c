/*
 * stats — see stats.h for the histogram's layout and error bound.
 */
#include "core/stats.h"
#include "base/util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <string.h>

void st_hist_init(struct st_hist *h)
{
    h->n = 0;
    h->min = INFINITY; /* so st_hist_add needs no first-sample case */
    h->max = -INFINITY;
    h->counts = ss_xcalloc(ST_NBUCKETS, sizeof *h->counts);
}

void st_hist_init_at(struct st_hist *h, uint64_t *counts)
{
    h->n = 0;
    h->min = INFINITY; /* as st_hist_init */
    h->max = -INFINITY;
    h->counts = counts;
}

void st_hist_free(struct st_hist *h)
{
    free(h->counts);
    h->counts = NULL;
}

void st_hist_reset(struct st_hist *h)
{
    h->n = 0;
    h->min = INFINITY; /* so st_hist_add needs no first-sample case */
    h->max = -INFINITY;
    memset(h->counts, 0, ST_NBUCKETS * sizeof *h->counts);
}

void st_hist_merge(struct st_hist *dst, const struct st_hist *src)
{
    if (src->n == 0)
        return;
    for (int b = 0; b < ST_NBUCKETS; b++)
        dst->counts[b] += src->counts[b];
    dst->min = src->min < dst->min ? src->min : dst->min; /* empty: ±INFINITY */
    dst->max = src->max > dst->max ? src->max : dst->max;
    dst->n += src->n;
}

double st_bucket_lo(int b)
{
    int e = ST_EXP_MIN + (b >> ST_SUB_BITS);
    uint64_t m = (uint64_t)(b & ((1 << ST_SUB_BITS) - 1)) << (52 - ST_SUB_BITS);
    union {
        uint64_t u;
        double d;
    } v = {((uint64_t)e << 52) | m};
    return v.d;
}

double st_hist_quantile(const struct st_hist *h, double p)
{
    if (h->n == 0)
        return NAN;
    uint64_t rank = (uint64_t)ceil(p * (double)h->n);
    if (rank < 1)
        rank = 1;
    if (rank > h->n)
        rank = h->n;
    if (rank == h->n)
        return h->max;
    uint64_t cum = 0;
    /* Every bucket below the minimum's is empty: start there (most of the 6,528 are). */
    for (int b = st_bucket(h->min); b < ST_NBUCKETS; b++) {
        cum += h->counts[b];
        if (cum >= rank) {
            if (b == ST_NBUCKETS - 1) /* among the values past the range: at least its top */
                return INFINITY;
            double lo = st_bucket_lo(b), hi = st_bucket_lo(b + 1);
            double mid = 0.5 * (lo + hi);
            /* The exact extremes bound every sample: constant data comes out exact. */
            if (mid < h->min)
                mid = h->min;
            if (mid > h->max)
                mid = h->max;
            return mid;
        }
    }
    return h->max;
}

double st_hist_cdf(const struct st_hist *h, double x)
{
    if (h->n == 0)
        return NAN;
    if (x >= h->max)
        return 1.0;
    if (x < h->min)
        return 0.0;
    int bx = st_bucket(x);
    uint64_t cum = 0;
    for (int b = 0; b <= bx; b++)
        cum += h->counts[b];
    return (double)cum / (double)h->n;
}

void st_mean_ci95(const double *x, int n, double *mean, double *half_width)
{
    if (n <= 0) {
        *mean = NAN;
        *half_width = NAN;
        return;
    }
    *mean = gsl_stats_mean(x, 1, (size_t)n);
    if (n < 2) {
        *half_width = NAN;
        return;
    }
    double sd = gsl_stats_sd_m(x, 1, (size_t)n, *mean);
    *half_width = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * sd / sqrt((double)n);
}

double st_jain(const double *x, int n)
{
    double s = 0, s2 = 0;
    for (int i = 0; i < n; i++) {
        s += x[i];
        s2 += x[i] * x[i];
    }
    if (n == 0 || s2 == 0)
        return NAN;
    return s * s / ((double)n * s2);
}
