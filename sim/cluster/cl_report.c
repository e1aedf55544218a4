/*
 * cl_report — per-1 % columns and time samples of an experiment (cl_report.h).
 */
#include "cluster/cl_report.h"
#include "base/jsonv.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double cl_round2(double x)
{
    /* printf rounds the exact binary value to nearest, ties to even: as Python's round. */
    char buf[64];
    snprintf(buf, sizeof buf, "%.2f", x);
    return strtod(buf, NULL);
}

void cl_discrete_free(struct cl_discrete *d)
{
    free(d->alloc);
    free(d->frag);
    free(d->frag_ratio);
    memset(d, 0, sizeof *d);
}

/*
 * numpy's pairwise summation (numpy/core/src/umath/loops_utils.h, pairwise_sum, block 128,
 * unrolled by 8): pandas' mean is numpy's sum divided by the count, and the reference's
 * columns are such means rounded to 2 places, so a different order of additions can move
 * a value that sits on a rounding boundary by 0.01.
 */
static double pairwise_sum(const double *a, long n)
{
    if (n < 8) {
        double res = 0.;
        for (long i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; j++)
            r[j] = a[j];
        long i;
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    long n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

void cl_discretize(const struct cl_result *r, long long total_gpus, int n_cols,
                   struct cl_discrete *d)
{
    memset(d, 0, sizeof *d);
    d->n_cols = n_cols;
    d->alloc = ss_xmalloc((size_t)n_cols * sizeof *d->alloc);
    d->frag = ss_xmalloc((size_t)n_cols * sizeof *d->frag);
    d->frag_ratio = ss_xmalloc((size_t)n_cols * sizeof *d->frag_ratio);
    /* Buckets by integer arrived %, one past each end for the +-1 fallback; the events
     * of a bucket in event order (a counting sort), as pandas selects them. */
    int nb = n_cols + 2;
    long *start = ss_xcalloc((size_t)nb + 1, sizeof *start);
    long n = r->n_ev;
    int *bucket = ss_xmalloc((size_t)(n ? n : 1) * sizeof *bucket);
    double g = (double)total_gpus;
    for (long k = 0; k < n; k++) {
        double arr = nearbyint((double)r->ev[k].arrived_milli / g / 10);
        bucket[k] = arr < -1 || arr > n_cols ? -1 : (int)arr + 1;
        if (bucket[k] >= 0)
            start[bucket[k] + 1]++;
    }
    for (int b = 0; b < nb; b++)
        start[b + 1] += start[b];
    double *va = ss_xmalloc((size_t)(n ? n : 1) * sizeof *va);
    double *vf = ss_xmalloc((size_t)(n ? n : 1) * sizeof *vf);
    double *vr = ss_xmalloc((size_t)(n ? n : 1) * sizeof *vr);
    long *fill = ss_xmalloc((size_t)nb * sizeof *fill);
    memcpy(fill, start, (size_t)nb * sizeof *fill);
    for (long k = 0; k < n; k++) {
        if (bucket[k] < 0)
            continue;
        const struct cl_event *v = &r->ev[k];
        double frag = (double)v->frag_num / (double)r->count_sum;
        double idle = (double)(r->cap_milli - v->used_milli);
        long at = fill[bucket[k]]++;
        va[at] = cl_round2((double)v->used_milli / g / 10);
        vf[at] = cl_round2(frag);
        vr[at] = cl_round2(idle > 0 ? 100 * frag / idle : NAN);
    }
    for (int c = 0; c < n_cols; c++) {
        int b = c + 1;
        long lo = start[b], hi = start[b + 1];
        if (lo == hi) { /* empty: buckets c - 1 and c + 1, adjacent in this order */
            lo = start[b - 1];
            hi = start[b + 2];
        }
        if (lo == hi) {
            d->alloc[c] = d->frag[c] = d->frag_ratio[c] = NAN;
            continue;
        }
        double m = (double)(hi - lo);
        d->alloc[c] = cl_round2(pairwise_sum(va + lo, hi - lo) / m);
        d->frag[c] = cl_round2(100 * (pairwise_sum(vf + lo, hi - lo) / m) / 1000 / g);
        d->frag_ratio[c] = pairwise_sum(vr + lo, hi - lo) / m;
    }
    free(start);
    free(bucket);
    free(va);
    free(vf);
    free(vr);
    free(fill);
}

static cJSON *num_array(const double *x, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, jv_out_num(x[i]));
    return a;
}

cJSON *cl_report_json(const struct cl_result *r, const struct cl_policy *pol, long long seed,
                      enum cl_mode mode, long long total_gpus, double tune, double sample_s,
                      double frag_threshold)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "policy", pol->name);
    cJSON_AddStringToObject(o, "label", pol->label);
    cJSON_AddNumberToObject(o, "seed", (double)seed);
    const struct cl_event *last = r->n_ev ? &r->ev[r->n_ev - 1] : NULL;
    cJSON_AddNumberToObject(o, "pods", r->n_pods);
    cJSON_AddNumberToObject(o, "arrived", last ? last->arrived : 0);
    cJSON_AddNumberToObject(o, "placed", last ? last->placed : 0);
    cJSON_AddNumberToObject(o, "failed", last ? last->failed : 0);
    cJSON_AddNumberToObject(o, "pending", last ? last->pending : 0);
    double g = (double)total_gpus;
    if (last) {
        double frag = (double)last->frag_num / (double)r->count_sum;
        double idle = (double)(r->cap_milli - last->used_milli);
        jv_out_add(o, "alloc_ratio_final", (double)last->used_milli / g / 10);
        jv_out_add(o, "frag_pct_final", 100 * frag / 1000 / g);
        jv_out_add(o, "frag_ratio_final", idle > 0 ? 100 * frag / idle : NAN);
    }
    /* The first event whose fragmentation ratio passes the threshold. */
    double cross = NAN, cross_t = NAN;
    for (long k = 0; k < r->n_ev; k++) {
        const struct cl_event *v = &r->ev[k];
        double idle = (double)(r->cap_milli - v->used_milli);
        double frag = (double)v->frag_num / (double)r->count_sum;
        if (idle > 0 && frag / idle > frag_threshold) {
            cross = (double)v->arrived_milli / g / 10;
            cross_t = v->t;
            break;
        }
    }
    jv_out_add(o, "frag_threshold", frag_threshold);
    if (mode == CL_INFLATE) {
        jv_out_add(o, "frag_over_threshold_at_arrived_pct", cross);
        int n_cols = (int)nearbyint(tune * 100) + 1;
        struct cl_discrete d;
        cl_discretize(r, total_gpus, n_cols, &d);
        jv_out_add(o, "alloc_ratio_at_100", n_cols > 100 ? d.alloc[100] : NAN);
        jv_out_add(o, "frag_ratio_at_100", n_cols > 100 ? d.frag_ratio[100] : NAN);
        cJSON *cols = cJSON_AddObjectToObject(o, "per_arrived_pct");
        cJSON_AddItemToObject(cols, "alloc_ratio", num_array(d.alloc, n_cols));
        cJSON_AddItemToObject(cols, "frag_pct", num_array(d.frag, n_cols));
        cJSON_AddItemToObject(cols, "frag_ratio", num_array(d.frag_ratio, n_cols));
        cl_discrete_free(&d);
    } else {
        jv_out_add(o, "frag_over_threshold_at_s", cross_t);
        if (r->waited || r->wait_mean_s > 0) {
            cJSON_AddNumberToObject(o, "waited", r->waited);
            jv_out_add(o, "wait_mean_s", r->wait_mean_s);
            jv_out_add(o, "wait_max_s", r->wait_max_s);
        }
        cJSON *s = cJSON_AddArrayToObject(o, "samples");
        double tend = last ? last->t : 0;
        long k = 0;
        /* Sample i is at i x sample_s, from the integer i (a sum of rounded sample_s would
         * drift, and stop advancing once t is large against sample_s); the scenario's load
         * bounded the count (CL_MAX_SAMPLES). */
        for (long i = 0;; i++) {
            double t = (double)i * sample_s;
            if (t > tend)
                t = tend;
            while (k + 1 < r->n_ev && r->ev[k + 1].t <= t)
                k++;
            const struct cl_event *v = &r->ev[k];
            double frag = (double)v->frag_num / (double)r->count_sum;
            double idle = (double)(r->cap_milli - v->used_milli);
            cJSON *row = cJSON_CreateObject();
            jv_out_add(row, "t_s", t);
            cJSON_AddNumberToObject(row, "arrived", v->arrived);
            cJSON_AddNumberToObject(row, "placed", v->placed);
            cJSON_AddNumberToObject(row, "failed", v->failed);
            cJSON_AddNumberToObject(row, "pending", v->pending);
            cJSON_AddNumberToObject(row, "running", v->running);
            jv_out_add(row, "alloc_ratio", (double)v->used_milli / g / 10);
            jv_out_add(row, "frag_pct", 100 * frag / 1000 / g);
            jv_out_add(row, "frag_ratio", idle > 0 ? 100 * frag / idle : NAN);
            if (v->reconfigs || v->migrated) {
                cJSON_AddNumberToObject(row, "reconfigs", v->reconfigs);
                cJSON_AddNumberToObject(row, "instances_changed", v->changed);
                cJSON_AddNumberToObject(row, "migrated", v->migrated);
                jv_out_add(row, "downtime_s", v->downtime_s);
            }
            cJSON_AddItemToArray(s, row);
            if (t >= tend)
                break;
        }
    }
    return o;
}
