/*
 * fidelity — real tenants contending for one GPU, for the comparison with sharesim's
 * prediction (sim/tools/fidelity.h, docs/calibration.md "Running the device check").
 *
 * N tenants each submit a kernel of known work at Poisson times (fid_poisson, a fixed seed
 * per tenant) and record, per request, the submit-to-completion latency on the host clock
 * (CLOCK_MONOTONIC): the submitting thread stamps the submit just before the launch, and the
 * last block of the kernel writes the request's number to host-mapped memory, which the same
 * thread polls between submissions. Two sharing modes:
 *
 *   --mode timeslice   N processes (fork + exec of this program, as tslice does), one
 *                      context each: the driver time-slices them exactly as it does
 *                      separate pods or containers. Processes, not N contexts in one
 *                      process, because that is what the time-slicing strategies share
 *                      the GPU between, and nothing of one tenant (host thread, driver
 *                      lock, address space) can then delay another except the GPU itself.
 *   --mode partition   one process with N green contexts of K SMs each (a stand-in for N
 *                      MIG instances of K SMs), one host thread per tenant. One process,
 *                      because green contexts partition the SMs only among the contexts of
 *                      one process: contexts of different processes are time-sliced
 *                      whatever their SM sets. Without green contexts (driver < 12.4) the
 *                      grid fallback of kcommon (one block per SM) is used, and said.
 *
 * The kernel: a fixed number of work chunks (64 per SM of the device) of FMA chains, taken
 * from an atomic counter by as many 1024-thread blocks as the SMs hold at once, so the
 * same work runs on any number of SMs and takes (about) proportionally longer on fewer.
 * Its chunk length is calibrated first so that it takes --work-ms alone on all SMs; that
 * duration (median, %globaltimer from the first chunk to the last block) is the work
 * sharesim gets, and the idle submit-to-completion latency minus it the launch-and-notify
 * overhead the prediction adds.
 *
 * Each tenant's rate is set for --load: time-slicing, N x rate x work = load (the GPU's busy
 * fraction); partitions, rate x (alone time on a partition) = load (each partition's).
 * Arrivals run for --duration-ms, those before --warmup-ms are not measured, and the run
 * ends when every request has completed (at most DRAIN_S later, else exit 1).
 *
 * Writes the latencies CSV (--csv; default: --out with .csv):
 *   tenant,seq,sched_ms,submit_ms,complete_ms,latency_ms,gpu_ms,measured
 * (times from the common start, ms; gpu_ms the kernel's span on the GPU, preemptions
 * included; measured 1 after the warm-up) and the summary JSON (--out). Changes no GPU
 * setting. Exit codes: 0 ok, 1 measurement failed, 2 usage, 3 no CUDA GPU.
 */
#include "kcommon.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern "C" {
#include "calib/calib.h"
#include "calib/kanalysis.h"
#include "calib/profile.h"
#include "tools/fidelity.h"
#include "base/util.h"
}

#define PROG "fidelity"
#define F_THREADS 1024
#define F_CHAINS 8
#define CHUNKS_PER_SM 64
#define CAL_REPS 11
#define DRAIN_S 10.0
#define READY_TIMEOUT_S 60

/* ---- the kernel ---- */

__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

struct dev_state {
    unsigned *next, *done;             /* chunk counter, blocks finished (reset by the last) */
    unsigned long long *gstart, *gend; /* per request: first chunk taken, last block done */
    unsigned long long *flag;          /* host-mapped: number of the last request done + 1 */
    float *sink;
};

__global__ void __launch_bounds__(F_THREADS)
    work_kernel(unsigned chunks, unsigned iters, unsigned seq, unsigned cap, struct dev_state s)
{
    __shared__ unsigned chunk;
    float x[F_CHAINS];
    const float a = 0.999f + 1e-7f * threadIdx.x, b = 1e-3f;
#pragma unroll
    for (int i = 0; i < F_CHAINS; i++)
        x[i] = (float)(threadIdx.x + i);
    for (;;) {
        if (threadIdx.x == 0) {
            unsigned c = atomicAdd(s.next, 1u);
            if (c == 0 && seq < cap)
                s.gstart[seq] = gtimer();
            chunk = c;
        }
        __syncthreads();
        unsigned c = chunk;
        __syncthreads();
        if (c >= chunks)
            break;
        for (unsigned k = 0; k < iters; k++)
#pragma unroll
            for (int i = 0; i < F_CHAINS; i++)
                x[i] = fmaf(x[i], a, b);
    }
    float sum = 0;
#pragma unroll
    for (int i = 0; i < F_CHAINS; i++)
        sum += x[i];
    if (sum == 1234.5f) /* never in practice; keeps the chains alive */
        s.sink[blockIdx.x] = sum;
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(s.done, 1u) == gridDim.x - 1) {
            /* The last block: every other has left the loop, so the counters can be reset
             * for the next request (launches of one stream run one after the other). */
            if (seq < cap)
                s.gend[seq] = gtimer();
            *s.next = 0;
            *s.done = 0;
            __threadfence_system();
            *(volatile unsigned long long *)s.flag = seq + 1ull;
            __threadfence_system();
        }
    }
}

/* ---- host side ---- */

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One request as measured. */
struct rec {
    double sched_ms, submit_ms, complete_ms, gpu_ms;
};

/* One tenant: where its kernel runs and its device state. */
struct tenant {
    int index;
    struct kc_part part; /* partition mode; else unused (whole device, primary context) */
    int in_part;
    int blocks;
    size_t smem;
    cudaStream_t stream;
    struct dev_state s;
    unsigned long long *h_flag;
    unsigned cap;
    unsigned chunks, iters;
    unsigned long long launched; /* requests launched so far (the next seq) */
};

static void enter(const struct tenant *t, int device)
{
    if (t->in_part)
        kc_part_enter(&t->part);
    else
        KC_CHECK(cudaSetDevice(device));
}

/* Allocates the tenant's state in its context; blocks: all SMs it has, full occupancy. */
static void tenant_init(struct tenant *t, int device, int sms, unsigned chunks, unsigned cap)
{
    enter(t, device);
    int bps = 0;
    KC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, work_kernel, F_THREADS, 0));
    if (bps < 1)
        bps = 1;
    t->smem = 0;
    if (t->in_part && !t->part.green) {
        /* Grid partition: one padded block per SM (kcommon.h). */
        t->smem = kc_pad_smem();
        KC_CHECK(cudaFuncSetAttribute(work_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)t->smem));
        t->blocks = sms;
    } else {
        t->blocks = sms * bps;
    }
    t->stream = t->in_part ? t->part.stream : NULL;
    if (!t->in_part)
        KC_CHECK(cudaStreamCreateWithFlags(&t->stream, cudaStreamNonBlocking));
    t->cap = cap;
    t->chunks = chunks;
    KC_CHECK(cudaMalloc(&t->s.next, 2 * sizeof(unsigned)));
    t->s.done = t->s.next + 1;
    KC_CHECK(cudaMemset(t->s.next, 0, 2 * sizeof(unsigned)));
    KC_CHECK(cudaMalloc(&t->s.gstart, 2 * (size_t)cap * sizeof(unsigned long long)));
    t->s.gend = t->s.gstart + cap;
    KC_CHECK(cudaMalloc(&t->s.sink, (size_t)t->blocks * sizeof(float)));
    KC_CHECK(
        cudaHostAlloc(&t->h_flag, sizeof *t->h_flag, cudaHostAllocMapped | cudaHostAllocPortable));
    *(volatile unsigned long long *)t->h_flag = 0;
    KC_CHECK(cudaHostGetDevicePointer(&t->s.flag, t->h_flag, 0));
    t->launched = 0;
}

static void tenant_free(struct tenant *t, int device)
{
    enter(t, device);
    cudaFree(t->s.next);
    cudaFree(t->s.gstart);
    cudaFree(t->s.sink);
    cudaFreeHost(t->h_flag);
    if (!t->in_part)
        cudaStreamDestroy(t->stream);
}

/* After the warm-up or calibration: room for cap requests, numbered from 0 again. */
static void tenant_rewind(struct tenant *t, int device, unsigned cap)
{
    enter(t, device);
    KC_CHECK(cudaStreamSynchronize(t->stream));
    KC_CHECK(cudaFree(t->s.gstart));
    KC_CHECK(cudaMalloc(&t->s.gstart, 2 * (size_t)cap * sizeof(unsigned long long)));
    t->s.gend = t->s.gstart + cap;
    t->cap = cap;
    t->launched = 0;
    *(volatile unsigned long long *)t->h_flag = 0;
}

/* Launches request number t->launched (asynchronous). */
static void launch(struct tenant *t)
{
    work_kernel<<<t->blocks, F_THREADS, t->smem, t->stream>>>(t->chunks, t->iters,
                                                              (unsigned)t->launched, t->cap, t->s);
    KC_CHECK(cudaGetLastError());
    t->launched++;
}

static unsigned long long flag(const struct tenant *t)
{
    return *(volatile unsigned long long *)t->h_flag;
}

/* Spins until every request launched so far is done; exits 1 when that takes over 30 s (a
 * kernel that failed never writes the flag). */
static void wait_idle(const struct tenant *t)
{
    double start = mono_s();
    while (flag(t) < t->launched)
        if (mono_s() - start > 30) {
            cudaError_t e = cudaStreamQuery(t->stream);
            fprintf(stderr, "%s: tenant %d: request %llu not done after 30 s (%s)\n", PROG,
                    t->index, t->launched, cudaGetErrorString(e));
            exit(KC_EXIT_FAIL);
        }
}

/* Runs `reps` requests one at a time on the idle tenant: GPU spans and idle latencies (ms). */
static void idle_runs(struct tenant *t, int reps, double *span_ms, double *lat_ms)
{
    unsigned long long base = t->launched;
    if (base + (unsigned)reps > t->cap) {
        fprintf(stderr, "%s: internal: %d idle runs after %llu do not fit in %u\n", PROG, reps,
                base, t->cap);
        exit(KC_EXIT_FAIL);
    }
    for (int r = 0; r < reps; r++) {
        double t0 = mono_s();
        launch(t);
        wait_idle(t);
        lat_ms[r] = (mono_s() - t0) * 1e3;
    }
    KC_CHECK(cudaStreamSynchronize(t->stream));
    unsigned long long *gs = (unsigned long long *)ss_xmalloc(2 * (size_t)reps * sizeof *gs);
    size_t n = (size_t)reps;
    KC_CHECK(cudaMemcpy(gs, t->s.gstart + base, n * sizeof *gs, cudaMemcpyDeviceToHost));
    KC_CHECK(cudaMemcpy(gs + n, t->s.gend + base, n * sizeof *gs, cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < n; r++)
        span_ms[r] = (double)(gs[n + r] - gs[r]) * 1e-6;
    free(gs);
}

/* What calibration found: the chunk length, the work and the overhead. */
struct calibration {
    unsigned iters, chunks;
    int blocks;
    double work_ms, work_p10_ms, work_p90_ms, overhead_ms;
};

static double quantile(double *x, size_t n, double p)
{
    struct fid_stats s;
    fid_stats(x, n, &s); /* sorts */
    return fid_quantile(x, n, p);
}

/* Median span and overhead of CAL_REPS idle runs. */
static void measure_idle(struct tenant *t, double *span, double *overhead, double *p10, double *p90)
{
    double sp[CAL_REPS], lat[CAL_REPS], ov[CAL_REPS];
    idle_runs(t, CAL_REPS, sp, lat);
    for (int r = 0; r < CAL_REPS; r++)
        ov[r] = lat[r] - sp[r];
    *overhead = quantile(ov, CAL_REPS, 0.5);
    if (p10)
        *p10 = quantile(sp, CAL_REPS, 0.1);
    if (p90)
        *p90 = quantile(sp, CAL_REPS, 0.9);
    *span = quantile(sp, CAL_REPS, 0.5);
}

/* Sets t->iters so that a request takes work_ms on t's SMs (a few linear steps). */
static void calibrate(struct tenant *t, double work_ms, struct calibration *c)
{
    double sp[3], lat[3];
    t->iters = 64;
    idle_runs(t, 3, sp, lat); /* module load, first launches */
    for (int step = 0; step < 8; step++) {
        idle_runs(t, 3, sp, lat);
        double ms = quantile(sp, 3, 0.5);
        double want = ms > 0 ? t->iters * work_ms / ms : t->iters * 16.0;
        if (want < 1)
            want = 1;
        if (want > 1e8)
            want = 1e8;
        unsigned next = (unsigned)lround(want);
        if (step > 0 && fabs((double)next - t->iters) <= 0.005 * t->iters)
            break;
        t->iters = next;
    }
    c->iters = t->iters;
    c->chunks = t->chunks;
    c->blocks = t->blocks;
    measure_idle(t, &c->work_ms, &c->overhead_ms, &c->work_p10_ms, &c->work_p90_ms);
}

/*
 * The tenant's run: submits at t0 + times[i] (seconds), stamps completions, until all n are
 * done. rec gets the times from t0 in ms; the GPU spans are copied at the end. 0, or -1 with
 * a message when requests were still in flight DRAIN_S after the last arrival.
 */
static int run_tenant(struct tenant *t, const double *times, size_t n, double t0, struct rec *rec,
                      char *err, size_t errlen)
{
    size_t sub = 0, done = 0;
    const unsigned long long base = 0; /* tenant_rewind numbered the requests from 0 */
    double end = t0 + (n ? times[n - 1] : 0) + DRAIN_S;
    while (done < n) {
        double now = mono_s();
        if (sub < n && now >= t0 + times[sub]) {
            rec[sub].sched_ms = times[sub] * 1e3;
            rec[sub].submit_ms = (now - t0) * 1e3;
            launch(t);
            sub++;
            continue;
        }
        unsigned long long f = flag(t);
        if (f > base + done) {
            double c = (mono_s() - t0) * 1e3;
            while (base + done < f && done < sub)
                rec[done++].complete_ms = c;
        }
        if (now > end)
            return ss_errf(err, errlen,
                           "tenant %d: %zu of %zu requests still in flight %.0f s after the "
                           "last arrival (overloaded?)",
                           t->index, sub - done, n, DRAIN_S);
    }
    KC_CHECK(cudaStreamSynchronize(t->stream));
    unsigned long long *gs = (unsigned long long *)ss_xmalloc(2 * n * sizeof *gs + 1);
    if (n) {
        KC_CHECK(cudaMemcpy(gs, t->s.gstart + base, n * sizeof *gs, cudaMemcpyDeviceToHost));
        KC_CHECK(cudaMemcpy(gs + n, t->s.gend + base, n * sizeof *gs, cudaMemcpyDeviceToHost));
    }
    for (size_t i = 0; i < n; i++)
        rec[i].gpu_ms = (double)(gs[n + i] - gs[i]) * 1e-6;
    free(gs);
    return 0;
}

/* ---- options ---- */

enum {
    O_MODE = 256,
    O_TENANTS,
    O_WORK,
    O_LOAD,
    O_WARMUP,
    O_SEED,
    O_SMS,
    O_SLICES,
    O_PROFILE,
    O_CSV,
    O_CASE,
    O_NOGREEN,
    O_WORKER
};

struct options {
    struct kc_opts k; /* --device, --duration-ms, --out, --quick, --device-name */
    int mode, tenants, sms, slices, green;
    double work_ms, load, warmup_ms;
    unsigned long long seed;
    const char *profile, *csv, *case_name;
    /* --worker calibrate | run,INDEX,ITERS,RATE (the parent's to its processes) */
    const char *worker;
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: fidelity [--mode timeslice|partition] [--tenants N] [--work-ms W]\n"
                "                [--load L] [--duration-ms D] [--warmup-ms U] [--seed S]\n"
                "                [--sms K | --slices S [--profile GPU]] [--no-green]\n"
                "                [--case NAME] [--device N] [--out FILE] [--csv FILE] [--quick]\n"
                "                [--device-name]\n\n"
                "N tenants (default 2) submit a kernel of W ms of work (default 2) at Poisson\n"
                "times for D ms (default 20000; the first U ms, default 1000, not measured), at\n"
                "the rate that keeps the GPU (timeslice: N processes time-sliced by the driver)\n"
                "or each partition (partition: N green contexts of K SMs, or of the SM count of\n"
                "the MIG profile with S compute slices in the device's shipped profile) busy a\n"
                "fraction L of the time (default 0.6). Writes per-request submit-to-completion\n"
                "latencies as CSV (--csv, default --out with .csv) and the summary JSON (--out,\n"
                "default stdout) that `sharesim fidelity scenario` reads. --quick: 3 s, 0.5 s\n"
                "warm-up. Changes no GPU setting.\n"
                "Exit: 0 ok, 1 measurement failed, 2 usage, 3 no CUDA GPU found.\n");
}

static int own_option(int c, const char *arg, void *ctx)
{
    struct options *o = (struct options *)ctx;
    switch (c) {
    case O_MODE:
        o->mode = fid_mode_parse(arg);
        if (o->mode < 0)
            o->mode = -2;
        break;
    case O_TENANTS:
        o->tenants = atoi(arg);
        break;
    case O_WORK:
        o->work_ms = atof(arg);
        break;
    case O_LOAD:
        o->load = atof(arg);
        break;
    case O_WARMUP:
        o->warmup_ms = atof(arg);
        break;
    case O_SEED:
        o->seed = strtoull(arg, NULL, 10);
        break;
    case O_SMS:
        o->sms = atoi(arg);
        break;
    case O_SLICES:
        o->slices = atoi(arg);
        break;
    case O_PROFILE:
        o->profile = arg;
        break;
    case O_CSV:
        o->csv = arg;
        break;
    case O_CASE:
        o->case_name = arg;
        break;
    case O_NOGREEN:
        o->green = 0;
        break;
    case O_WORKER:
        o->worker = arg;
        break;
    default:
        return -1;
    }
    return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option opts[] = {
        {"mode", required_argument, NULL, O_MODE},
        {"tenants", required_argument, NULL, O_TENANTS},
        {"work-ms", required_argument, NULL, O_WORK},
        {"load", required_argument, NULL, O_LOAD},
        {"warmup-ms", required_argument, NULL, O_WARMUP},
        {"seed", required_argument, NULL, O_SEED},
        {"sms", required_argument, NULL, O_SMS},
        {"slices", required_argument, NULL, O_SLICES},
        {"profile", required_argument, NULL, O_PROFILE},
        {"csv", required_argument, NULL, O_CSV},
        {"case", required_argument, NULL, O_CASE},
        {"no-green", no_argument, NULL, O_NOGREEN},
        {"worker", required_argument, NULL, O_WORKER},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->k = (struct kc_opts){0, 0, 1, 1, 20000, 3000, "-"};
    o->mode = FID_TIMESLICE;
    o->tenants = 2;
    o->green = 1;
    o->work_ms = 2;
    o->load = 0.6;
    o->warmup_ms = -1;
    o->seed = 1;
    int rc = kc_parse(argc, argv, opts, 0, &o->k, own_option, o, usage);
    if (rc >= 0)
        return rc;
    if (o->warmup_ms < 0)
        o->warmup_ms = o->k.dur_ms == o->k.quick_ms ? 500 : 1000;
    const char *bad = NULL;
    if (optind != argc)
        bad = "unexpected operands";
    else if (o->mode < 0)
        bad = "--mode: timeslice or partition";
    else if (o->tenants < 1 || o->tenants > FID_MAX_TENANTS ||
             (o->mode == FID_TIMESLICE && o->tenants < 2 && !o->worker))
        bad = "--tenants: 2..16 (timeslice), 1..16 (partition)";
    else if (!(o->work_ms >= 0.05 && o->work_ms <= 100))
        bad = "--work-ms: 0.05..100";
    else if (!(o->load > 0 && o->load < 1))
        bad = "--load: in (0, 1)";
    else if (!(o->k.dur_ms >= 1000 && o->k.dur_ms <= 120000))
        bad = "--duration-ms: 1000..120000";
    else if (!(o->warmup_ms >= 0 && o->warmup_ms < o->k.dur_ms))
        bad = "--warmup-ms: 0 up to the duration";
    else if (o->sms < 0 || o->slices < 0 || (o->sms && o->slices))
        bad = "--sms K or --slices S, not both";
    else if (!o->csv && strcmp(o->k.out, "-") == 0 && !o->worker && !o->k.device_name)
        bad = "--csv FILE is needed when the summary goes to stdout";
    if (bad) {
        fprintf(stderr, "%s: bad arguments: %s\n", PROG, bad);
        usage(stderr);
        return KC_EXIT_USAGE;
    }
    return -1;
}

/* ---- worker processes (timeslice mode) ---- */

/*
 * Worker -> parent: a tag byte, then for 'E' (failed) and 'D' (done) a header, and after
 * 'D' of a run worker header.n records. 'R': a run worker is ready and waits for the start
 * time (a double, CLOCK_MONOTONIC seconds) on KC_FD_GO.
 */
struct worker_header {
    int status; /* 0 ok */
    char msg[240];
    struct calibration cal; /* calibrate */
    unsigned long long n;   /* run: records that follow */
};

static int send_fail(struct worker_header *h)
{
    h->status = 1;
    char tag = 'E';
    kc_write_all(KC_FD_RESULT, &tag, 1);
    kc_write_all(KC_FD_RESULT, h, sizeof *h);
    return KC_EXIT_FAIL;
}

static unsigned chunk_count(int sms)
{
    return (unsigned)(CHUNKS_PER_SM * sms);
}

static int open_worker_device(int device, cudaDeviceProp *p, struct worker_header *h)
{
    cudaError_t e;
    if ((e = cudaSetDevice(device)) != cudaSuccess ||
        (e = cudaGetDeviceProperties(p, device)) != cudaSuccess) {
        snprintf(h->msg, sizeof h->msg, "device %d: %s", device, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* The calibration process: the chunk length for work_ms on the whole device. */
static int worker_calibrate(const struct options *o)
{
    struct worker_header h;
    memset(&h, 0, sizeof h);
    cudaDeviceProp p;
    if (open_worker_device(o->k.device, &p, &h))
        return send_fail(&h);
    struct tenant t;
    memset(&t, 0, sizeof t);
    tenant_init(&t, o->k.device, p.multiProcessorCount, chunk_count(p.multiProcessorCount), 256);
    calibrate(&t, o->work_ms, &h.cal);
    tenant_free(&t, o->k.device);
    char tag = 'D';
    return kc_write_all(KC_FD_RESULT, &tag, 1) || kc_write_all(KC_FD_RESULT, &h, sizeof h)
               ? KC_EXIT_FAIL
               : 0;
}

/* A run process: tenant `index` with `iters` per chunk at `rate`, started by the parent. */
static int worker_run(const struct options *o, int index, unsigned iters, double rate)
{
    struct worker_header h;
    memset(&h, 0, sizeof h);
    cudaDeviceProp p;
    if (open_worker_device(o->k.device, &p, &h))
        return send_fail(&h);
    double *times = NULL;
    size_t n = fid_poisson(o->seed + (unsigned long long)index, rate, o->k.dur_ms / 1e3, &times);
    struct tenant t;
    memset(&t, 0, sizeof t);
    t.index = index;
    tenant_init(&t, o->k.device, p.multiProcessorCount, chunk_count(p.multiProcessorCount), 16);
    t.iters = iters;
    double sp[3], lat[3];
    idle_runs(&t, 3, sp, lat); /* module load and first launches, before the start */
    tenant_rewind(&t, o->k.device, (unsigned)n + 1);
    struct rec *rec = (struct rec *)ss_xcalloc(n + 1, sizeof *rec);
    char tag = 'R';
    double t0;
    if (kc_write_all(KC_FD_RESULT, &tag, 1) || kc_read_all(KC_FD_GO, &t0, sizeof t0))
        return KC_EXIT_FAIL; /* the parent went away */
    int rc;
    if (run_tenant(&t, times, n, t0, rec, h.msg, sizeof h.msg)) {
        rc = send_fail(&h);
    } else {
        h.n = n;
        tag = 'D';
        rc = kc_write_all(KC_FD_RESULT, &tag, 1) || kc_write_all(KC_FD_RESULT, &h, sizeof h) ||
                     kc_write_all(KC_FD_RESULT, rec, n * sizeof *rec)
                 ? KC_EXIT_FAIL
                 : 0;
    }
    free(rec);
    free(times);
    tenant_free(&t, o->k.device);
    return rc;
}

static int worker_main(const struct options *o)
{
    if (strcmp(o->worker, "calibrate") == 0)
        return worker_calibrate(o);
    int index;
    unsigned iters;
    double rate;
    char extra;
    if (sscanf(o->worker, "run,%d,%u,%lf%c", &index, &iters, &rate, &extra) != 3 || index < 0 ||
        index >= FID_MAX_TENANTS || iters < 1 || !(rate > 0)) {
        fprintf(stderr, "%s: bad --worker \"%s\"\n", PROG, o->worker);
        return KC_EXIT_USAGE;
    }
    return worker_run(o, index, iters, rate);
}

/* ---- the parent ---- */

/* Per tenant, the requests as measured. */
struct run {
    struct rec *rec[FID_MAX_TENANTS];
    size_t n[FID_MAX_TENANTS];
};

static void run_free(struct run *r)
{
    for (int i = 0; i < FID_MAX_TENANTS; i++)
        free(r->rec[i]);
}

struct procs {
    int n, go_w, res[FID_MAX_TENANTS];
    pid_t pid[FID_MAX_TENANTS];
};

/* Spawns n workers, worker i with argvs[i]; 0, or -1 with a message. */
static int spawn_all(struct procs *ps, int n, char ***argvs, char *err, size_t errlen)
{
    int go[2], res[FID_MAX_TENANTS][2], closefds[2 * FID_MAX_TENANTS + 2], nclose = 0;
    ps->n = 0;
    ps->go_w = -1;
    if (pipe(go))
        return ss_errf(err, errlen, "pipe: %s", strerror(errno));
    closefds[nclose++] = go[0];
    closefds[nclose++] = go[1];
    for (int i = 0; i < n; i++) {
        if (pipe(res[i]))
            return ss_errf(err, errlen, "pipe: %s", strerror(errno));
        closefds[nclose++] = res[i][0];
        closefds[nclose++] = res[i][1];
    }
    for (int i = 0; i < n; i++)
        ps->pid[i] = kc_spawn(res[i][1], go[0], closefds, nclose, argvs[i]);
    close(go[0]);
    for (int i = 0; i < n; i++) {
        close(res[i][1]);
        ps->res[i] = res[i][0];
    }
    ps->go_w = go[1];
    ps->n = n;
    return 0;
}

/* Closes the start pipe (a worker still waiting exits) and waits for every worker. */
static void reap_all(struct procs *ps)
{
    if (ps->go_w >= 0)
        close(ps->go_w);
    ps->go_w = -1;
    for (int i = 0; i < ps->n; i++) {
        close(ps->res[i]);
        int st;
        if (ps->pid[i] > 0)
            waitpid(ps->pid[i], &st, 0);
    }
    ps->n = 0;
}

/* Waits for worker i's tag: 0 with *tag 'R' or 'D' (header read into h), -1 with a message. */
static int wait_worker(const struct procs *ps, int i, int timeout_s, char *tag,
                       struct worker_header *h, char *err, size_t errlen)
{
    if (ps->pid[i] < 0 || kc_read_tag(ps->res[i], tag, timeout_s))
        return ss_errf(err, errlen, "worker %d: no answer within %d s", i, timeout_s);
    if (*tag == 'R')
        return 0;
    if (kc_read_all(ps->res[i], h, sizeof *h))
        return ss_errf(err, errlen, "worker %d exited without a result", i);
    if (*tag == 'E' || h->status)
        return ss_errf(err, errlen, "worker %d: %s", i, h->msg);
    return 0;
}

static int calibrate_in_child(const struct options *o, struct calibration *cal, char *err,
                              size_t errlen)
{
    char dev[16], work[32];
    snprintf(dev, sizeof dev, "%d", o->k.device);
    snprintf(work, sizeof work, "%.9g", o->work_ms);
    char *argv[] = {(char *)PROG,
                    (char *)"--worker",
                    (char *)"calibrate",
                    (char *)"--device",
                    dev,
                    (char *)"--work-ms",
                    work,
                    NULL};
    char **argvs[1] = {argv};
    struct procs ps;
    if (spawn_all(&ps, 1, argvs, err, errlen))
        return -1;
    char tag = 0;
    struct worker_header h;
    int rc = wait_worker(&ps, 0, READY_TIMEOUT_S, &tag, &h, err, errlen);
    if (rc == 0 && tag != 'D')
        rc = ss_errf(err, errlen, "calibration: unexpected answer '%c'", tag);
    if (rc == 0)
        *cal = h.cal;
    reap_all(&ps);
    return rc;
}

/* Time-slicing: N processes. */
static int run_timeslice(const struct options *o, const struct calibration *cal, double rate,
                         struct run *r, char *err, size_t errlen)
{
    char dev[16], dur[32], seed[32], spec[FID_MAX_TENANTS][96];
    snprintf(dev, sizeof dev, "%d", o->k.device);
    snprintf(dur, sizeof dur, "%.9g", o->k.dur_ms);
    snprintf(seed, sizeof seed, "%llu", o->seed);
    char *argv[FID_MAX_TENANTS][12];
    char **argvs[FID_MAX_TENANTS];
    for (int i = 0; i < o->tenants; i++) {
        snprintf(spec[i], sizeof spec[i], "run,%d,%u,%.17g", i, cal->iters, rate);
        char *a[] = {(char *)PROG, (char *)"--worker",
                     spec[i],      (char *)"--device",
                     dev,          (char *)"--duration-ms",
                     dur,          (char *)"--seed",
                     seed,         NULL};
        memcpy(argv[i], a, sizeof a);
        argvs[i] = argv[i];
    }
    struct procs ps;
    if (spawn_all(&ps, o->tenants, argvs, err, errlen))
        return -1;
    int rc = 0;
    struct worker_header h;
    for (int i = 0; i < o->tenants && rc == 0; i++) {
        char tag = 0;
        rc = wait_worker(&ps, i, READY_TIMEOUT_S, &tag, &h, err, errlen);
        if (rc == 0 && tag != 'R')
            rc = ss_errf(err, errlen, "worker %d: unexpected answer '%c'", i, tag);
    }
    if (rc == 0) {
        /* One start time for all, a little ahead so that every worker has it in time. */
        double t0[FID_MAX_TENANTS], start = mono_s() + 0.05;
        for (int i = 0; i < o->tenants; i++)
            t0[i] = start;
        if (kc_write_all(ps.go_w, t0, (size_t)o->tenants * sizeof *t0))
            rc = ss_errf(err, errlen, "cannot start the workers: %s", strerror(errno));
    }
    int limit = (int)(o->k.dur_ms / 1e3 + DRAIN_S) + 30;
    for (int i = 0; i < o->tenants && rc == 0; i++) {
        char tag = 0;
        rc = wait_worker(&ps, i, limit, &tag, &h, err, errlen);
        if (rc == 0 && tag != 'D')
            rc = ss_errf(err, errlen, "worker %d: unexpected answer '%c'", i, tag);
        if (rc == 0) {
            r->n[i] = (size_t)h.n;
            r->rec[i] = (struct rec *)ss_xmalloc(r->n[i] * sizeof(struct rec) + 1);
            if (kc_read_all(ps.res[i], r->rec[i], r->n[i] * sizeof(struct rec)))
                rc = ss_errf(err, errlen, "worker %d: short result", i);
        }
    }
    reap_all(&ps);
    return rc;
}

/* Partitions: one process, a thread per tenant. */
struct thread_arg {
    struct tenant *t;
    int device;
    const double *times;
    size_t n;
    double t0;
    struct rec *rec;
    int rc;
    char err[SS_ERRLEN];
};

static void *tenant_thread(void *p)
{
    struct thread_arg *a = (struct thread_arg *)p;
    enter(a->t, a->device);
    a->rc = run_tenant(a->t, a->times, a->n, a->t0, a->rec, a->err, sizeof a->err);
    return NULL;
}

/* The SMs per partition: --sms, else those of the MIG profile with --slices (default: 2 for
 * up to 3 tenants, else 1) compute slices in the device's shipped profile. */
static int partition_sms(const struct options *o, const struct kc_device *d, char *from,
                         size_t fromlen)
{
    if (o->sms) {
        snprintf(from, fromlen, "--sms %d", o->sms);
        return o->sms;
    }
    int slices = o->slices ? o->slices : o->tenants <= 3 ? 2 : 1;
    char name[128], err[SS_ERRLEN];
    struct gpu_profile p;
    const char *want = o->profile;
    if (!want && prof_find_device(d->name, name, sizeof name, err, sizeof err) == 0)
        want = name;
    if (want && cal_load(want, &p, err, sizeof err) == 0)
        for (int i = 0; i < p.n_mig; i++)
            if (p.mig[i].compute_slices == slices) {
                snprintf(from, fromlen, "the SMs of %s in %s", p.mig[i].name, p.name);
                return p.mig[i].sm_count;
            }
    snprintf(from, fromlen, "%d/7 of the SMs (no MIG profile with %d compute slices found)", slices,
             slices);
    return d->sms * slices / 7 > 0 ? d->sms * slices / 7 : 1;
}

static int run_partition(const struct options *o, const struct kc_device *d,
                         const struct calibration *cal, struct fid_summary *s, struct run *r,
                         char *err, size_t errlen)
{
    char from[256], why[256];
    int k = partition_sms(o, d, from, sizeof from);
    struct kc_part parts[FID_MAX_TENANTS];
    if (kc_partitions(d, k, o->tenants, o->green, parts, why, sizeof why))
        return ss_errf(err, errlen, "%d partitions of %d SMs (%s): %s", o->tenants, k, from, why);
    if (!parts[0].green)
        fprintf(stderr, "%s: no green contexts (%s): grids of one block per SM instead\n", PROG,
                why);
    struct tenant t[FID_MAX_TENANTS];
    double alone[FID_MAX_TENANTS], over[FID_MAX_TENANTS];
    memset(t, 0, sizeof t);
    for (int i = 0; i < o->tenants; i++) {
        t[i].index = i;
        t[i].part = parts[i];
        t[i].in_part = 1;
        tenant_init(&t[i], d->ordinal, parts[i].sms, cal->chunks, 256);
        t[i].iters = cal->iters;
        double sp[3], lat[3];
        idle_runs(&t[i], 3, sp, lat);
        measure_idle(&t[i], &alone[i], &over[i], NULL, NULL);
        fprintf(stderr, "%s: partition %d: %d SMs, the kernel alone %.4f ms\n", PROG, i,
                parts[i].sms, alone[i]);
    }
    s->part_sms = parts[0].sms;
    snprintf(s->part_method, sizeof s->part_method, "%s",
             parts[0].green ? "green contexts" : "grids of one block per SM");
    s->part_alone_ms = quantile(alone, (size_t)o->tenants, 0.5);
    s->overhead_ms = quantile(over, (size_t)o->tenants, 0.5);
    s->rate_per_s = o->load / (s->part_alone_ms / 1e3);
    fprintf(stderr, "%s: %d partitions of %d SMs (%s, asked %d: %s), %.6g req/s each\n", PROG,
            o->tenants, s->part_sms, s->part_method, k, from, s->rate_per_s);
    struct thread_arg a[FID_MAX_TENANTS];
    pthread_t th[FID_MAX_TENANTS];
    int rc = 0, started = 0;
    for (int i = 0; i < o->tenants; i++) {
        double *times = NULL;
        size_t n =
            fid_poisson(o->seed + (unsigned long long)i, s->rate_per_s, o->k.dur_ms / 1e3, &times);
        tenant_rewind(&t[i], d->ordinal, (unsigned)n + 1);
        r->n[i] = n;
        r->rec[i] = (struct rec *)ss_xcalloc(n + 1, sizeof(struct rec));
        a[i] = (struct thread_arg){&t[i], d->ordinal, times, n, 0, r->rec[i], 0, ""};
    }
    /* One start for all, a little ahead so that every thread is spinning by then. */
    double t0 = mono_s() + 0.1;
    for (int i = 0; i < o->tenants; i++)
        a[i].t0 = t0;
    for (int i = 0; i < o->tenants; i++, started++) {
        int e = pthread_create(&th[i], NULL, tenant_thread, &a[i]);
        if (e) {
            rc = ss_errf(err, errlen, "pthread_create: %s", strerror(e));
            break;
        }
    }
    for (int i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        if (rc == 0 && a[i].rc)
            rc = ss_errf(err, errlen, "%s", a[i].err);
    }
    for (int i = 0; i < o->tenants; i++) {
        free((void *)a[i].times);
        tenant_free(&t[i], d->ordinal);
    }
    kc_partitions_free(parts, o->tenants);
    return rc;
}

/* ---- outputs ---- */

/* The CSV path: --csv, else --out with .json replaced by .csv. */
static void csv_path(const struct options *o, char *buf, size_t n)
{
    if (o->csv) {
        snprintf(buf, n, "%s", o->csv);
        return;
    }
    size_t len = strlen(o->k.out);
    if (ss_ends_with(o->k.out, ".json"))
        len -= 5;
    snprintf(buf, n, "%.*s.csv", (int)len, o->k.out);
}

/* How the summary names the CSV: its name when both are in one folder, else its path;
 * -1 when that does not fit in n. */
static int csv_ref(const char *out, const char *csv, char *buf, size_t n)
{
    const char *so = strrchr(out, '/'), *sc = strrchr(csv, '/');
    size_t lo = so ? (size_t)(so - out) : 0, lc = sc ? (size_t)(sc - csv) : 0;
    int w;
    char cwd[1024];
    if (strcmp(out, "-") != 0 && lo == lc && strncmp(out, csv, lo) == 0)
        w = snprintf(buf, n, "%s", sc ? sc + 1 : csv);
    else if (csv[0] != '/' && getcwd(cwd, sizeof cwd))
        w = snprintf(buf, n, "%s/%s", cwd, csv);
    else
        w = snprintf(buf, n, "%s", csv);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

static int write_csv(const char *path, const struct run *r, int tenants, double warmup_ms)
{
    char err[SS_ERRLEN];
    struct ss_out f;
    if (ss_out_open(&f, path, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return KC_EXIT_FAIL;
    }
    fprintf(f.fp, "tenant,seq,sched_ms,submit_ms,complete_ms,latency_ms,gpu_ms,measured\n");
    for (int i = 0; i < tenants; i++)
        for (size_t k = 0; k < r->n[i]; k++) {
            const struct rec *x = &r->rec[i][k];
            fprintf(f.fp, "%d,%zu,%.6f,%.6f,%.6f,%.6f,%.6f,%d\n", i, k, x->sched_ms, x->submit_ms,
                    x->complete_ms, x->complete_ms - x->submit_ms, x->gpu_ms,
                    x->submit_ms >= warmup_ms);
        }
    if (ss_out_commit(&f, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return KC_EXIT_FAIL;
    }
    return 0;
}

/* The figures of the measured requests (submitted after the warm-up). */
static void figures(struct fid_summary *s, const struct run *r, double warmup_ms)
{
    size_t total = 0;
    for (int i = 0; i < s->tenants; i++)
        total += r->n[i];
    double *all = (double *)ss_xmalloc(total * sizeof *all + 1);
    size_t na = 0;
    for (int i = 0; i < s->tenants; i++) {
        double *one = (double *)ss_xmalloc(r->n[i] * sizeof *one + 1);
        size_t n1 = 0;
        for (size_t k = 0; k < r->n[i]; k++) {
            const struct rec *x = &r->rec[i][k];
            if (x->submit_ms >= warmup_ms)
                one[n1++] = all[na++] = x->complete_ms - x->submit_ms;
        }
        fid_stats(one, n1, &s->per_tenant[i]);
        free(one);
    }
    fid_stats(all, na, &s->measured);
    free(all);
}

int main(int argc, char **argv)
{
    struct options o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    signal(SIGPIPE, SIG_IGN);
    if (o.worker)
        return worker_main(&o);
    struct kc_device d;
    if ((rc = kc_open_or_name(PROG, &o.k, o.mode == FID_PARTITION && !o.k.device_name, &d)) >= 0)
        return rc;
    if (o.mode == FID_TIMESLICE && d.compute_mode == cudaComputeModeExclusiveProcess) {
        fprintf(stderr,
                "%s: %s is in compute mode Exclusive Process: only one process may hold a "
                "context, so processes cannot be time-sliced (this program does not change "
                "the compute mode)\n",
                PROG, d.name);
        return KC_EXIT_FAIL;
    }
    char err[SS_ERRLEN], csv[1024];
    csv_path(&o, csv, sizeof csv);
    struct fid_summary s;
    memset(&s, 0, sizeof s);
    if (o.case_name)
        snprintf(s.case_name, sizeof s.case_name, "%s", o.case_name);
    else
        snprintf(s.case_name, sizeof s.case_name, "%s-%d", fid_mode_name((enum fid_mode)o.mode),
                 o.tenants);
    s.mode = (enum fid_mode)o.mode;
    s.tenants = o.tenants;
    snprintf(s.device, sizeof s.device, "%s", d.name);
    snprintf(s.driver, sizeof s.driver, "%s", d.driver);
    snprintf(s.date, sizeof s.date, "%s", d.date);
    snprintf(s.source, sizeof s.source, "%s", d.source);
    s.seed = o.seed;
    s.duration_s = o.k.dur_ms / 1e3;
    s.warmup_s = o.warmup_ms / 1e3;
    s.load = o.load;
    s.total_sms = d.sms;
    if (csv_ref(o.k.out, csv, s.latencies_csv, sizeof s.latencies_csv)) {
        fprintf(stderr, "%s: %s: path too long for the summary\n", PROG, csv);
        return KC_EXIT_USAGE;
    }

    struct calibration cal;
    memset(&cal, 0, sizeof cal);
    struct run r;
    memset(&r, 0, sizeof r);
    fprintf(stderr, "%s: %s, %d tenants, %.6g ms of work, load %.2f, %.0f ms on %s\n", PROG,
            s.case_name, o.tenants, o.work_ms, o.load, o.k.dur_ms, d.name);
    if (o.mode == FID_TIMESLICE) {
        /* The parent holds no context: only the tenants' processes do. */
        if (calibrate_in_child(&o, &cal, err, sizeof err))
            goto fail;
        s.work_ms = cal.work_ms;
        s.overhead_ms = cal.overhead_ms;
        s.rate_per_s = o.load / (o.tenants * cal.work_ms / 1e3);
        fprintf(stderr,
                "%s: calibrated %u iterations x %u chunks: %.4f ms alone (p10 %.4f, p90 "
                "%.4f), overhead %.4f ms; %.6g req/s per tenant\n",
                PROG, cal.iters, cal.chunks, cal.work_ms, cal.work_p10_ms, cal.work_p90_ms,
                cal.overhead_ms, s.rate_per_s);
        if (run_timeslice(&o, &cal, s.rate_per_s, &r, err, sizeof err))
            goto fail;
    } else {
        struct tenant whole;
        memset(&whole, 0, sizeof whole);
        tenant_init(&whole, d.ordinal, d.sms, chunk_count(d.sms), 256);
        calibrate(&whole, o.work_ms, &cal);
        tenant_free(&whole, d.ordinal);
        s.work_ms = cal.work_ms;
        fprintf(stderr, "%s: calibrated %u iterations x %u chunks: %.4f ms alone on all SMs\n",
                PROG, cal.iters, cal.chunks, cal.work_ms);
        if (run_partition(&o, &d, &cal, &s, &r, err, sizeof err))
            goto fail;
    }
    figures(&s, &r, o.warmup_ms);
    fprintf(stderr, "%s: %zu measured requests: mean %.4f ms, p50 %.4f, p99 %.4f, max %.4f\n", PROG,
            s.measured.n, s.measured.mean_ms, s.measured.p50_ms, s.measured.p99_ms,
            s.measured.max_ms);
    if (s.measured.n == 0) {
        ss_errf(err, sizeof err, "no request was measured");
        goto fail;
    }
    {
        cJSON *k = cJSON_CreateObject();
        cJSON_AddNumberToObject(k, "threads_per_block", F_THREADS);
        cJSON_AddNumberToObject(k, "blocks_all_sms", cal.blocks);
        cJSON_AddNumberToObject(k, "chunks", cal.chunks);
        cJSON_AddNumberToObject(k, "iterations_per_chunk", cal.iters);
        cJSON_AddNumberToObject(k, "fma_chains", F_CHAINS);
        cJSON_AddNumberToObject(k, "work_p10_ms", cal.work_p10_ms);
        cJSON_AddNumberToObject(k, "work_p90_ms", cal.work_p90_ms);
        cJSON_AddStringToObject(k, "completion",
                                "the last block writes the request number to host-mapped "
                                "memory; the submitting thread polls it");
        cJSON_AddStringToObject(k, "tenants_are",
                                o.mode == FID_TIMESLICE
                                    ? "processes (fork + exec), one context each"
                                    : "threads of one process, one green context each");
        cJSON *doc = fid_summary_json(&s, k);
        rc = write_csv(csv, &r, o.tenants, o.warmup_ms);
        if (rc == 0)
            rc = kc_write(PROG, doc, o.k.out);
        cJSON_Delete(doc);
    }
    run_free(&r);
    return rc;
fail:
    fprintf(stderr, "%s: %s\n", PROG, err);
    run_free(&r);
    return KC_EXIT_FAIL;
}
