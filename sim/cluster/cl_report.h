/*
 * cl_report — what an experiment's events (cl_engine.h) are turned into.
 *
 * Inflation: per 1 % of arrived workload, as the reference's analysis does it
 * (scripts/analysis.py reads its "[Alloc]" and "[Report]" log lines, one per pod event;
 * experiments/analysis/merge_alloc_discrete.py, merge_frag_discrete.py and
 * merge_frag_ratio_discrete.py make the columns):
 *   arrived %   round(arrived GPU-milli / total GPUs / 10), to an integer (half to even)
 *   alloc %     round(allocated GPU-milli / total GPUs / 10, 2)
 *   column c    the mean of alloc % over the events whose arrived % is c; when there are
 *               none, over those within c - 1 .. c + 1; else empty. Rounded to 2 places.
 *   frag        the same mean of the fragment amount (printed to 2 places per event), as a
 *               percentage of the cluster's GPUs: round(100 x mean / 1000 / GPUs, 2);
 *   frag ratio  the same mean of 100 x fragment amount / idle GPU-milli (2 places each).
 * Replay: samples every sample_s seconds of the trace's clock (and the last event).
 */
#ifndef SS_CL_REPORT_H
#define SS_CL_REPORT_H

#include "cluster/cl_engine.h"

#include <cJSON.h>

struct cl_discrete {
    int n_cols;    /* columns 0..n_cols-1 */
    double *alloc; /* NaN where the reference leaves the column empty */
    double *frag;
    double *frag_ratio;
};

void cl_discretize(const struct cl_result *r, long long total_gpus, int n_cols,
                   struct cl_discrete *d);
void cl_discrete_free(struct cl_discrete *d);

/* Python's round(x, 2) for the values here (correctly rounded, half to even). */
double cl_round2(double x);

/*
 * One experiment as a JSON object: policy, label, seed, pod counts, the headline figures
 * (allocation ratio at 100 % arrived and at the end, fragmentation ratio, where it first
 * passes frag_threshold), and the per-1 % columns (inflate) or time samples (replay).
 */
cJSON *cl_report_json(const struct cl_result *r, const struct cl_policy *pol, long long seed,
                      enum cl_mode mode, long long total_gpus, double tune, double sample_s,
                      double frag_threshold);

#endif
