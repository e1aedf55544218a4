/*
 * concurrency — interference between two kernels running at the same time on two
 * halves of the GPU, the way two MPS clients share it: SMs split, memory bandwidth, L2
 * and the memory system shared.
 *
 * The GPU is split into two partitions of half the SMs (green contexts where the driver
 * has them, else grids of one block per SM — kcommon.h) with one stream each. For each
 * class (compute = FMA chains, memory = streaming copy) the throughput alone on
 * partition 0 is measured, then for each pair (i, j) class i on partition 0 runs in the
 * same window of GPU time as class j on partition 1 ("one after the other" vs "at
 * once"). kanalysis turns this into
 *   corun_slowdown[i][j] = alone_i / (i next to j)     1 = no interference
 *   corun_stp[i][j]      = sum of both normalized throughputs (1 = no gain over serial)
 * Each point is the median of --reps windows. Exit codes: 0 ok, 1 measurement failed,
 * 2 usage, 3 no CUDA GPU.
 */
#include "kcommon.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "calib/kanalysis.h"
#include "base/util.h"
}

#define PROG "concurrency"
#define MAX_REPS 15

static const char *class_names[2] = {"compute", "memory"};

/* Median throughput of class a on part[0], with class b on part[1] at once when b >= 0. */
static double run_pair(const struct kc_opts *o, struct kc_part *part, const struct kc_buffers *b,
                       int a, int other)
{
    double tp[MAX_REPS];
    for (int r = 0; r < o->reps; r++) {
        kc_part_enter(&part[0]);
        /* The lead covers launching on both partitions before the window opens. */
        struct kc_window w = kc_window_from_now(10.0, o->dur_ms);
        kc_launch((enum kc_class)a, &part[0], w, b, 0);
        if (other >= 0)
            kc_launch((enum kc_class)other, &part[1], w, b, 1);
        tp[r] = kc_throughput((enum kc_class)a, &part[0], b, 0, w);
        if (other >= 0)
            kc_throughput((enum kc_class)other, &part[1], b, 1, w);
    }
    return ka_median(tp, (size_t)o->reps);
}

static cJSON *matrix(const double *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "classes", cJSON_CreateStringArray(class_names, 2));
    cJSON *rows = cJSON_AddArrayToObject(o, "matrix");
    for (int i = 0; i < 2; i++)
        cJSON_AddItemToArray(rows, cJSON_CreateDoubleArray(m + 2 * i, 2));
    return o;
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: concurrency [--duration-ms D] [--reps N] [--no-green] [--device N]\n"
                "                   [--out FILE] [--quick] [--device-name]\n\n"
                "Co-run slowdown of compute (FMA) and memory (streaming copy) kernels on two\n"
                "halves of the GPU (MPS-style sharing) against each alone. Writes a profile\n"
                "fragment (JSON) to --out (default stdout). Changes no GPU setting.\n"
                "Exit: 0 ok, 1 measurement failed, 2 usage, 3 no CUDA GPU found.\n");
}

static int parse(int argc, char **argv, struct kc_opts *o)
{
    *o = (struct kc_opts){0, 0, 1, 5, 200, 50, "-"};
    int rc = kc_parse(argc, argv, NULL, 1, o, NULL, NULL, usage);
    return rc >= 0 ? rc : kc_check_windows(PROG, argc, o, MAX_REPS, usage);
}

int main(int argc, char **argv)
{
    struct kc_opts o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    struct kc_device d;
    if ((rc = kc_open_or_name(PROG, &o, !o.device_name, &d)) >= 0)
        return rc;
    struct kc_part part[2];
    char why[256], err[SS_ERRLEN];
    if (kc_partitions(&d, d.sms / 2, 2, o.green, part, why, sizeof why)) {
        fprintf(stderr, "%s: %s\n", PROG, why);
        return KC_EXIT_FAIL;
    }
    struct kc_buffers b;
    kc_buffers_alloc(&b, 256u << 20, 2);
    double alone[2], corun[4], slowdown[4], stp[4];
    for (int a = 0; a < 2; a++)
        alone[a] = run_pair(&o, part, &b, a, -1);
    for (int a = 0; a < 2; a++)
        for (int j = 0; j < 2; j++)
            corun[2 * a + j] = run_pair(&o, part, &b, a, j);
    kc_buffers_free(&b);
    int green = part[0].green, sms0 = part[0].sms, sms1 = part[1].sms;
    kc_partitions_free(part, 2);
    fprintf(stderr, "%s: alone: compute %.1f GFLOP/s, memory %.1f GB/s on %d SMs\n", PROG, alone[0],
            alone[1], sms0);
    if (ka_corun(2, alone, corun, slowdown, stp, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return KC_EXIT_FAIL;
    }
    for (int i = 0; i < 2; i++)
        fprintf(stderr, "%s: %-7s next to compute: slowdown %.3f, next to memory: %.3f\n", PROG,
                class_names[i], slowdown[2 * i], slowdown[2 * i + 1]);
    char head[512];
    snprintf(head, sizeof head,
             "two partitions of %d and %d SMs (%s), each point the median of %d windows of %.0f "
             "ms; alone: compute %.1f GFLOP/s, memory %.1f GB/s",
             sms0, sms1, green ? "green contexts" : "grids of one block per SM", o.reps, o.dur_ms,
             alone[0], alone[1]);
    cJSON *frag = kc_fragment(&d, "concurrency: co-run interference on two halves of the GPU");
    kc_putf(frag, "corun_slowdown", matrix(slowdown), &d,
            "matrix[i][j] = throughput of class i alone / with class j running at the same "
            "time on the other half (1 = no interference); %s.",
            head);
    kc_putf(frag, "corun_stp", matrix(stp), &d,
            "matrix[i][j] = system throughput of i and j together relative to running them "
            "one after the other (1 = no gain, 2 = perfect overlap); %s.",
            head);
    rc = kc_write(PROG, frag, o.out);
    cJSON_Delete(frag);
    return rc;
}
