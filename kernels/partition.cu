/*
 * partition — throughput of compute-bound and memory-bound work on k of the GPU's SMs,
 * for k over the device's MIG profile SM counts (from its shipped profile) and all SMs.
 *
 * The SMs are restricted with green contexts (cuDevSmResourceSplitByCount +
 * cuGreenCtxCreate, CUDA 12.4+) when the driver has them — they round k up to the
 * device's granularity, and the real count is what is recorded — and otherwise with a
 * grid of k blocks that each need more than half an SM's shared memory (one block per
 * SM). Each point is the median of --reps fixed windows of GPU time (kcommon.h).
 *
 * Fits throughput = c * share^e (kanalysis) and writes:
 *   rate_compute_exponent    e for the FMA kernel (the rate model's compute exponent)
 *   rate_memory_sm_exponent  e for the streaming copy vs SM share. NOT the profile's
 *                            rate_memory_exponent, which is against bandwidth share
 *                            (MIG memory slices); SMs alone do not partition bandwidth.
 *   partition_compute_curve, partition_memory_curve   the measured points
 *   mem_bw_sm_curve          the bandwidth curve the rate model reads (core/rate.h): per SM
 *                            count the copy bandwidth relative to all SMs, made
 *                            non-decreasing and at most 1, the last point all SMs at 1
 *   hbm_bw_gbps_measured     copy bandwidth (read + write) on all SMs
 * Exit codes: 0 ok, 1 measurement failed, 2 usage, 3 no CUDA GPU.
 */
#include "kcommon.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "calib/calib.h"
#include "calib/kanalysis.h"
#include "base/util.h"
}

#define PROG "partition"
#define MAX_POINTS 32
#define MAX_REPS 15

struct options {
    struct kc_opts k;
    const char *profile, *sms;
};

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Sorted distinct SM counts in [1, total]; returns how many. */
static int distinct(int *k, int n, int total)
{
    for (int i = 0; i < n; i++)
        k[i] = k[i] > total ? total : k[i];
    qsort(k, (size_t)n, sizeof *k, cmp_int);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || k[i] != k[m - 1])
            k[m++] = k[i];
    return m;
}

/*
 * The SM counts to measure: --sms, else the MIG profile SM counts of the device's
 * profile (--profile or found by device name) plus all SMs, else sevenths of the SMs.
 */
static int sm_counts(const struct options *o, const struct kc_device *d, int *k, char *from,
                     size_t fromlen)
{
    int n = 0;
    if (o->sms) {
        n = kc_parse_list(o->sms, k, MAX_POINTS - 1);
        if (n <= 0) {
            fprintf(stderr, "%s: --sms \"%s\": expected SM counts like 16,32,60\n", PROG, o->sms);
            return -1;
        }
        snprintf(from, fromlen, "--sms %s", o->sms);
    } else {
        char name[128], err[SS_ERRLEN];
        struct gpu_profile p;
        const char *want = o->profile;
        if (!want && prof_find_device(d->name, name, sizeof name, err, sizeof err) == 0)
            want = name;
        if (want && cal_load(want, &p, err, sizeof err) == 0 && p.n_mig > 0) {
            for (int i = 0; i < p.n_mig && n < MAX_POINTS - 1; i++)
                k[n++] = p.mig[i].sm_count;
            snprintf(from, fromlen, "the MIG profile SM counts of %s", p.name);
        } else {
            if (want)
                fprintf(stderr, "%s: profile %s: %s; using sevenths of the SMs\n", PROG, want, err);
            for (int i = 1; i <= 7; i++)
                k[n++] = (d->sms * i + 6) / 7;
            snprintf(from, fromlen, "sevenths of the SMs (no profile for %s)", d->name);
        }
    }
    k[n++] = d->sms;
    return distinct(k, n, d->sms);
}

struct point {
    int sms;
    double share, compute_gflops, memory_gbps;
};

/* Measures one SM count: median of reps windows per class. -1 when no partition. */
static int measure(const struct options *o, const struct kc_device *d, int k,
                   const struct kc_buffers *b, struct point *pt, char *method, size_t mlen)
{
    struct kc_part part;
    char why[256];
    if (kc_partitions(d, k, 1, o->k.green, &part, why, sizeof why)) {
        fprintf(stderr, "%s: %d SMs: %s\n", PROG, k, why);
        return -1;
    }
    if (part.green)
        snprintf(method, mlen, "green contexts");
    else
        snprintf(method, mlen, "a grid of one block per SM (%s)", why);
    double tp[2][MAX_REPS];
    for (int c = 0; c < 2; c++)
        for (int r = 0; r < o->k.reps; r++) {
            kc_part_enter(&part);
            struct kc_window w = kc_window_from_now(5.0, o->k.dur_ms);
            kc_launch((enum kc_class)c, &part, w, b, 0);
            tp[c][r] = kc_throughput((enum kc_class)c, &part, b, 0, w);
        }
    pt->sms = part.sms;
    pt->share = (double)part.sms / d->sms;
    pt->compute_gflops = ka_median(tp[KC_COMPUTE], (size_t)o->k.reps);
    pt->memory_gbps = ka_median(tp[KC_MEMORY], (size_t)o->k.reps);
    fprintf(stderr, "%s: %3d SMs (%5.1f%%): %10.1f GFLOP/s  %8.1f GB/s\n", PROG, pt->sms,
            100 * pt->share, pt->compute_gflops, pt->memory_gbps);
    kc_partitions_free(&part, 1);
    return 0;
}

static cJSON *curve(const struct point *pt, int n, int memory)
{
    cJSON *arr = cJSON_CreateArray();
    double full = memory ? pt[n - 1].memory_gbps : pt[n - 1].compute_gflops;
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        double v = memory ? pt[i].memory_gbps : pt[i].compute_gflops;
        cJSON_AddNumberToObject(o, "sms", pt[i].sms);
        cJSON_AddNumberToObject(o, "share", pt[i].share);
        cJSON_AddNumberToObject(o, memory ? "gbps" : "gflops", v);
        cJSON_AddNumberToObject(o, "relative", v / full);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* mem_bw_sm_curve as calib.c reads it: {"sms", "bw_fraction"}, SM counts increasing, with
 * bw_fraction the running maximum of the relative copy bandwidth (a point below an earlier one is noise: fewer SMs
 * never pull more), capped at 1 and exactly 1 at the last point (all SMs). */
static cJSON *bw_sm_curve(const struct point *pt, int n)
{
    cJSON *arr = cJSON_CreateArray();
    double full = pt[n - 1].memory_gbps, run = 0;
    for (int i = 0; i < n; i++) {
        if (i + 1 < n && pt[i].sms >= pt[i + 1].sms)
            continue; /* green contexts rounded two counts to one: keep the later */
        double rel = i == n - 1 ? 1.0 : pt[i].memory_gbps / full;
        run = rel > run ? (rel < 1 ? rel : 1.0) : run;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "sms", pt[i].sms);
        cJSON_AddNumberToObject(o, "bw_fraction", run);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static int fit(const struct point *pt, int n, int memory, struct ka_fit *f)
{
    double share[MAX_POINTS], tp[MAX_POINTS];
    for (int i = 0; i < n; i++) {
        share[i] = pt[i].share;
        tp[i] = memory ? pt[i].memory_gbps : pt[i].compute_gflops;
    }
    char err[SS_ERRLEN];
    if (ka_scaling_fit(share, tp, (size_t)n, f, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return -1;
    }
    return 0;
}

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: partition [--sms LIST] [--profile GPU] [--duration-ms D] [--reps N]\n"
            "                 [--no-green] [--device N] [--out FILE] [--quick] [--device-name]\n\n"
            "Throughput of an FMA kernel and a streaming-copy kernel on k SMs, for k over the\n"
            "MIG profile SM counts of the device (or --sms 16,32,...), and the fitted scaling\n"
            "exponents. Writes a profile fragment (JSON) to --out (default stdout). Changes no\n"
            "GPU setting. Exit: 0 ok, 1 measurement failed, 2 usage, 3 no CUDA GPU found.\n");
}

/* --sms and --profile. */
static int own_option(int c, const char *arg, void *ctx)
{
    struct options *o = (struct options *)ctx;
    if (c == 's')
        o->sms = arg;
    else if (c == 'p')
        o->profile = arg;
    else
        return -1;
    return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option opts[] = {
        {"sms", required_argument, NULL, 's'},
        {"profile", required_argument, NULL, 'p'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){{0, 0, 1, 3, 200, 50, "-"}, NULL, NULL};
    int rc = kc_parse(argc, argv, opts, 1, &o->k, own_option, o, usage);
    return rc >= 0 ? rc : kc_check_windows(PROG, argc, &o->k, MAX_REPS, usage);
}

int main(int argc, char **argv)
{
    struct options o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    struct kc_device d;
    if ((rc = kc_open_or_name(PROG, &o.k, !o.k.device_name, &d)) >= 0)
        return rc;
    int k[MAX_POINTS];
    char from[512], method[320] = "";
    int nk = sm_counts(&o, &d, k, from, sizeof from);
    if (nk < 0)
        return KC_EXIT_USAGE;
    struct kc_buffers b;
    kc_buffers_alloc(&b, 256u << 20, 1);
    struct point pt[MAX_POINTS];
    int n = 0;
    for (int i = 0; i < nk; i++)
        if (measure(&o, &d, k[i], &b, &pt[n], method, sizeof method) == 0)
            n++;
    kc_buffers_free(&b);
    struct ka_fit fc, fm;
    if (n < 2 || pt[n - 1].sms != d.sms || fit(pt, n, 0, &fc) || fit(pt, n, 1, &fm)) {
        fprintf(stderr, "%s: too few SM counts measured (%d) to fit a curve\n", PROG, n);
        return KC_EXIT_FAIL;
    }
    char head[640];
    snprintf(head, sizeof head,
             "%d SM counts (%s), SMs restricted with %s; each point the median of %d windows of "
             "%.0f ms",
             n, from, method, o.k.reps, o.k.dur_ms);
    cJSON *frag = kc_fragment(&d, "partition: throughput vs SM share (compute and memory)");
    kc_putf(frag, "rate_compute_exponent", cJSON_CreateNumber(fc.exponent), &d,
            "Least-squares fit of log FMA throughput vs log SM share, R^2 = %.4f; %s.", fc.r2,
            head);
    kc_putf(frag, "rate_memory_sm_exponent", cJSON_CreateNumber(fm.exponent), &d,
            "Streaming copy throughput vs SM share (bandwidth not partitioned), least-squares "
            "log-log fit, R^2 = %.4f (a saturating curve fits a power law poorly: see "
            "partition_memory_curve); %s.",
            fm.r2, head);
    kc_putf(frag, "partition_compute_curve", curve(pt, n, 0), &d,
            "FMA throughput (GFLOP/s) per SM count; %s.", head);
    kc_putf(frag, "partition_memory_curve", curve(pt, n, 1), &d,
            "Copy throughput (GB/s, read + write) per SM count; %s.", head);
    kc_putf(frag, "mem_bw_sm_curve", bw_sm_curve(pt, n), &d,
            "Copy bandwidth against SMs in use, relative to all SMs (running maximum, at "
            "most 1): the rate model's bandwidth-follows-SMs curve; %s.",
            head);
    kc_putf(frag, "hbm_bw_gbps_measured", cJSON_CreateNumber(pt[n - 1].memory_gbps), &d,
            "Streaming copy (read + write) on all %d SMs, 2 x 256 MiB arrays; the achievable "
            "bandwidth, below the datasheet's hbm_bw_gbps.",
            d.sms);
    rc = kc_write(PROG, frag, o.k.out);
    cJSON_Delete(frag);
    return rc;
}
