/*
 * kanalysis — see kanalysis.h for the definitions. Invariants: the input is never
 * modified (the timeline is copied before sorting); statistics over an empty set are
 * reported as 0 with a zero count, so a caller checks the count, never a NaN.
 */
#include "calib/kanalysis.h"
#include "base/util.h"

#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_interval(const void *a, const void *b)
{
    const struct ka_interval *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    if (x->end_ns != y->end_ns)
        return x->end_ns < y->end_ns ? -1 : 1;
    return (x->ctx > y->ctx) - (x->ctx < y->ctx);
}

double ka_median(double *v, size_t n)
{
    if (n == 0)
        return 0;
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* Median and 10th/90th percentiles (sorts v); all 0 for an empty set. */
static void summarize(double *v, size_t n, double *med, double *p10, double *p90)
{
    *med = *p10 = *p90 = 0;
    if (n == 0)
        return;
    gsl_sort(v, 1, n);
    *med = gsl_stats_median_from_sorted_data(v, 1, n);
    *p10 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.1);
    *p90 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.9);
}

struct run {
    long long start_ns, end_ns;
    int ctx;
};

/* Per-context first start and last end; returns the number of contexts seen. */
static int context_bounds(const struct ka_interval *iv, size_t n, int n_slots, long long *first,
                          long long *last)
{
    int seen = 0;
    for (int c = 0; c < n_slots; c++) {
        first[c] = 0;
        last[c] = -1;
    }
    for (size_t i = 0; i < n; i++) {
        int c = iv[i].ctx;
        if (last[c] < first[c]) {
            first[c] = iv[i].start_ns;
            last[c] = iv[i].end_ns;
            seen++;
            continue;
        }
        if (iv[i].start_ns < first[c])
            first[c] = iv[i].start_ns;
        if (iv[i].end_ns > last[c])
            last[c] = iv[i].end_ns;
    }
    return seen;
}

int ka_timeslice(const struct ka_interval *iv, size_t n, struct ka_tslice *out, char *err,
                 size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return ss_errf(err, errlen, "timeline: no intervals");
    int max_ctx = 0;
    for (size_t i = 0; i < n; i++) {
        if (iv[i].ctx < 0 || iv[i].ctx > 1 << 20)
            return ss_errf(err, errlen, "timeline: interval %zu: context %d out of range", i,
                           iv[i].ctx);
        if (iv[i].end_ns < iv[i].start_ns)
            return ss_errf(err, errlen,
                           "timeline: interval %zu: ends (%lld ns) before it starts "
                           "(%lld ns)",
                           i, iv[i].end_ns, iv[i].start_ns);
        if (iv[i].ctx > max_ctx)
            max_ctx = iv[i].ctx;
    }
    int slots = max_ctx + 1;
    long long *first = ss_xmalloc((size_t)slots * sizeof *first);
    long long *last = ss_xmalloc((size_t)slots * sizeof *last);
    out->n_ctx = context_bounds(iv, n, slots, first, last);

    struct ka_interval *s = ss_xmalloc(n * sizeof *s);
    memcpy(s, iv, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_interval);
    /* Merge consecutive intervals of one context: in a time-sliced GPU another context
     * runs between two slices, so a hole with nobody else in it is noise inside a slice. */
    struct run *runs = ss_xmalloc(n * sizeof *runs);
    size_t nr = 0;
    for (size_t i = 0; i < n; i++) {
        if (nr > 0 && runs[nr - 1].ctx == s[i].ctx) {
            if (s[i].end_ns > runs[nr - 1].end_ns)
                runs[nr - 1].end_ns = s[i].end_ns;
            continue;
        }
        runs[nr++] = (struct run){s[i].start_ns, s[i].end_ns, s[i].ctx};
    }
    out->n_runs = nr;

    /* The contended window: every context had started and none had finished. */
    long long w0 = 0, w1 = 0;
    int have_window = out->n_ctx >= 2;
    for (int c = 0, k = 0; c < slots && have_window; c++) {
        if (last[c] < first[c])
            continue;
        if (k++ == 0 || first[c] > w0)
            w0 = first[c];
        if (k == 1 || last[c] < w1)
            w1 = last[c];
    }
    if (have_window && w1 <= w0)
        have_window = 0;

    double *slice = ss_xmalloc(nr * sizeof *slice);
    double *gap = ss_xmalloc(nr * sizeof *gap);
    size_t ns = 0, ng = 0;
    if (have_window) {
        out->window_us = (double)(w1 - w0) / 1000.0;
        char *interior = ss_xcalloc(nr, 1);
        for (size_t r = 0; r < nr; r++) {
            const struct run *u = &runs[r];
            interior[r] = u->start_ns >= w0 && u->end_ns <= w1 && u->start_ns != first[u->ctx] &&
                          u->end_ns != last[u->ctx];
            if (interior[r])
                slice[ns++] = (double)(u->end_ns - u->start_ns);
        }
        for (size_t r = 0; r + 1 < nr; r++) {
            if (!interior[r] || !interior[r + 1])
                continue;
            long long g = runs[r + 1].start_ns - runs[r].end_ns;
            if (g < 0)
                out->n_overlaps++;
            gap[ng++] = (double)g;
        }
        free(interior);
    }
    out->n_slices = ns;
    out->n_switches = ng;
    summarize(slice, ns, &out->slice_us, &out->slice_p10_us, &out->slice_p90_us);
    summarize(gap, ng, &out->switch_us, &out->switch_p10_us, &out->switch_p90_us);
    /* Computed in ns (integers from the timer, exact in a double); reported in us. */
    out->slice_us /= 1000.0;
    out->slice_p10_us /= 1000.0;
    out->slice_p90_us /= 1000.0;
    out->switch_us /= 1000.0;
    out->switch_p10_us /= 1000.0;
    out->switch_p90_us /= 1000.0;
    free(slice);
    free(gap);
    free(runs);
    free(s);
    free(first);
    free(last);
    return 0;
}

int ka_scaling_fit(const double *share, const double *throughput, size_t n, struct ka_fit *out,
                   char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n < 2)
        return ss_errf(err, errlen, "scaling fit: need at least 2 points, got %zu", n);
    for (size_t i = 0; i < n; i++) {
        if (!(share[i] > 0 && share[i] <= 1.0 + 1e-9) || !isfinite(share[i]))
            return ss_errf(err, errlen, "scaling fit: point %zu: share %g is not in (0, 1]", i,
                           share[i]);
        if (!(throughput[i] > 0) || !isfinite(throughput[i]))
            return ss_errf(err, errlen, "scaling fit: point %zu: throughput %g is not positive", i,
                           throughput[i]);
    }
    int distinct = 0;
    for (size_t i = 1; i < n && !distinct; i++)
        distinct = share[i] != share[0];
    if (!distinct)
        return ss_errf(err, errlen, "scaling fit: all %zu points have the same share %g", n,
                       share[0]);
    double *x = ss_xmalloc(n * sizeof *x), *y = ss_xmalloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        x[i] = log(share[i]);
        y[i] = log(throughput[i]);
    }
    double c0, c1, cov00, cov01, cov11, sumsq;
    gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    double mean = gsl_stats_mean(y, 1, n), sstot = 0;
    for (size_t i = 0; i < n; i++)
        sstot += (y[i] - mean) * (y[i] - mean);
    out->exponent = c1;
    out->coeff = exp(c0);
    /* Constant throughput over different shares is a perfect (flat) fit. */
    out->r2 = sstot > 0 ? 1.0 - sumsq / sstot : 1.0;
    out->n = n;
    free(x);
    free(y);
    return 0;
}

int ka_corun(int n_classes, const double *alone, const double *corun, double *slowdown, double *stp,
             char *err, size_t errlen)
{
    if (n_classes < 1)
        return ss_errf(err, errlen, "co-run: need at least one class");
    for (int i = 0; i < n_classes; i++) {
        if (!(alone[i] > 0) || !isfinite(alone[i]))
            return ss_errf(err, errlen, "co-run: class %d: alone throughput %g is not positive", i,
                           alone[i]);
        for (int j = 0; j < n_classes; j++) {
            double c = corun[i * n_classes + j];
            if (!(c >= 0) || !isfinite(c))
                return ss_errf(err, errlen, "co-run: [%d][%d]: throughput %g is negative", i, j, c);
            if (c == 0)
                return ss_errf(err, errlen,
                               "co-run: [%d][%d]: class %d made no progress next to class %d", i, j,
                               i, j);
        }
    }
    for (int i = 0; i < n_classes; i++)
        for (int j = 0; j < n_classes; j++) {
            int ij = i * n_classes + j, ji = j * n_classes + i;
            slowdown[ij] = alone[i] / corun[ij];
            stp[ij] = corun[ij] / alone[i] + corun[ji] / alone[j];
        }
    return 0;
}
