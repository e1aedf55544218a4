/*
 * kanalysis — turns what the CUDA microbenchmarks (kernels/) record into profile values.
 * Plain C so that it is tested on synthetic data without a GPU; the kernels link it.
 *
 * Time-slice timeline. Each context (one process) runs a spin kernel that reads
 * %globaltimer in a loop and records the intervals in which it ran continuously (a gap
 * over ~2 us between two reads ends an interval: the context was switched out). All
 * contexts read the same GPU timer, so the intervals of all contexts merge into one
 * timeline. From it:
 *   - a *run* is a maximal stretch of one context's intervals with no other context's
 *     interval starting in between (short holes inside a slice — noise — are absorbed);
 *   - only runs inside the *contended window* count: from the moment the last context
 *     started to the moment the first one finished (outside it some context ran alone),
 *     and never the first or last run of a context (those are cut by launch and exit);
 *   - slice length = median run length; switch gap = median of (next run start −
 *     previous run end) over consecutive runs of different contexts.
 * Medians make both robust to a few preempted-early slices or delayed switches.
 * With fewer than two contexts, or contexts that never overlapped, there is no switch.
 *
 * Scaling. Throughput measured on a share s of the SMs is fitted as
 *   throughput = coeff * s^exponent   (least squares on log throughput vs log s),
 * the rate model's speed(share) = share^exponent (sim/calib/calib.h).
 *
 * Co-run. alone[i] is class i's throughput alone on its partition; corun[i*n+j] its
 * throughput while class j runs next to it. slowdown[i*n+j] = alone[i] / corun[i*n+j]
 * (1 = no interference); stp[i*n+j] = corun[i*n+j]/alone[i] + corun[j*n+i]/alone[j]
 * is the system throughput of the pair relative to running them one after the other
 * (1 = co-running gains nothing, 2 = perfect overlap).
 */
#ifndef SS_KANALYSIS_H
#define SS_KANALYSIS_H

#include <stddef.h>

struct ka_interval {
    long long start_ns; /* first %globaltimer read of a continuous run */
    long long end_ns;   /* last read before a gap (or the end) */
    int ctx;            /* which context ran: 0, 1, … */
};

struct ka_tslice {
    int n_ctx;         /* distinct contexts in the input */
    size_t n_runs;     /* runs after merging (all of them) */
    size_t n_slices;   /* runs used for the slice statistics */
    size_t n_switches; /* context switches used for the gap statistics */
    size_t n_overlaps; /* switches whose gap is negative (contexts ran at the same time) */
    double window_us;  /* length of the contended window; 0 when there is none */
    double slice_us, slice_p10_us, slice_p90_us;    /* 0 when n_slices == 0 */
    double switch_us, switch_p10_us, switch_p90_us; /* 0 when n_switches == 0 */
};

/* Slice length and switch gap of a merged timeline (any order). -1 on malformed input. */
int ka_timeslice(const struct ka_interval *iv, size_t n, struct ka_tslice *out, char *err,
                 size_t errlen);

struct ka_fit {
    double exponent; /* slope of log throughput vs log share */
    double coeff;    /* fitted throughput at share 1 */
    double r2;       /* coefficient of determination of the log-log fit */
    size_t n;
};

/*
 * Least-squares fit of throughput = coeff * share^exponent. Needs n >= 2 points with at
 * least two distinct shares, shares in (0, 1] and positive throughputs.
 */
int ka_scaling_fit(const double *share, const double *throughput, size_t n, struct ka_fit *out,
                   char *err, size_t errlen);

/* Co-run slowdown and system-throughput matrices (n_classes^2 each, row-major). */
int ka_corun(int n_classes, const double *alone, const double *corun, double *slowdown, double *stp,
             char *err, size_t errlen);

/* Median of v[0..n-1] (sorts v in place); 0 when n == 0. */
double ka_median(double *v, size_t n);

#endif
