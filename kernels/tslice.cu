/*
 * tslice — measures the GPU time slice and the context-switch gap between processes.
 *
 * N worker processes (fork + exec of this program, so each gets a clean CUDA state)
 * each create their own context and, on a common start signal, launch a spin kernel in
 * which one thread reads %globaltimer in a tight loop and logs the intervals in which
 * it ran continuously: a gap of more than --gap-ns (2 us) between two reads means the
 * context was switched out. All contexts read the same GPU timer, so the parent merges
 * the intervals into one timeline and kanalysis (sim/calib/kanalysis.h) gives the median
 * slice length and the median gap between one context's end and the next one's start.
 *
 * Two rounds: a "light" kernel (one thread) and a "heavy" one (one 1024-thread block
 * per SM holding as many registers as the launch bounds allow and the largest shared
 * memory a block may have), whose context state is the largest a switch must save:
 * the difference between the two is the state-size cost of a switch.
 *
 * Writes the profile fragment keys timeslice_us, switch_us, timeslice_us_heavy and
 * switch_us_heavy, and, with both rounds, ctx_switch_gbps: the heavy context's state (its
 * blocks' registers and shared memory) saved and the next one's restored, over the extra
 * time the heavy switch takes — the rate model's switch = switch_us + state / bandwidth
 * (calib.h cal_switch_s). Exit codes: 0 ok, 1 measurement failed, 2 usage, 3 no CUDA GPU.
 */
#include "kcommon.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include "calib/kanalysis.h"
#include "base/util.h"
}

#define PROG "tslice"
#define HEAVY_REGS 40
#define MAX_CTX 16

__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/*
 * The interval logger: spins for dur_ns and records [start, end] of every stretch with
 * no gap over gap_ns between consecutive timer reads. All lanes of the calling warp run
 * it (so the warp never diverges); only `writer` stores.
 */
__device__ void log_intervals(unsigned long long dur_ns, unsigned long long gap_ns,
                              unsigned long long *iv, unsigned cap, unsigned *count, bool writer)
{
    unsigned long long t0 = gtimer(), start = t0, prev = t0;
    unsigned n = 0;
    for (;;) {
        unsigned long long now = gtimer();
        if (now - prev > gap_ns) {
            if (writer && n < cap) {
                iv[2 * n] = start;
                iv[2 * n + 1] = prev;
            }
            n++;
            start = now;
        }
        prev = now;
        if (now - t0 >= dur_ns)
            break;
    }
    if (writer) {
        if (n < cap) {
            iv[2 * n] = start;
            iv[2 * n + 1] = prev;
        }
        *count = n + 1;
    }
}

__global__ void light_kernel(unsigned long long dur_ns, unsigned long long gap_ns,
                             unsigned long long *iv, unsigned cap, unsigned *count)
{
    log_intervals(dur_ns, gap_ns, iv, cap, count, true);
}

/* Every thread keeps HEAVY_REGS live registers and touches the block's shared memory. */
__global__ void __launch_bounds__(1024, 1)
    heavy_kernel(unsigned long long dur_ns, unsigned long long gap_ns, unsigned long long *iv,
                 unsigned cap, unsigned *count, float *sink, unsigned smem_floats)
{
    extern __shared__ float smem[];
    for (unsigned i = threadIdx.x; i < smem_floats; i += blockDim.x)
        smem[i] = (float)i;
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x < 32) {
        log_intervals(dur_ns, gap_ns, iv, cap, count, threadIdx.x == 0);
        return;
    }
    float r[HEAVY_REGS];
#pragma unroll
    for (int j = 0; j < HEAVY_REGS; j++)
        r[j] = (float)(threadIdx.x + j);
    unsigned long long t0 = gtimer();
    unsigned k = threadIdx.x;
    while (gtimer() - t0 < dur_ns) {
#pragma unroll
        for (int j = 0; j < HEAVY_REGS; j++)
            r[j] = fmaf(r[j], 0.9999f, smem[(k + (unsigned)j * 97u) % smem_floats]);
        smem[k % smem_floats] = r[0];
        k += blockDim.x;
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < HEAVY_REGS; j++)
        s += r[j];
    if (s == 1234.5f) /* never in practice; keeps the registers live */
        sink[blockIdx.x] = s;
}

struct result_header {
    int status; /* 0 ok */
    int regs;   /* registers per thread of the kernel that ran */
    unsigned count, cap;
    char msg[240];
};

/* Whether this worker has told the parent it is ready (then a result follows, no tag). */
static int ready_sent;

/* A worker's failure: the message goes to the parent, which reports it. */
static int worker_fail(struct result_header *h, const char *what, cudaError_t e)
{
    h->status = 1;
    snprintf(h->msg, sizeof h->msg, "%s: %s", what, cudaGetErrorString(e));
    char tag = 'E';
    if (!ready_sent)
        kc_write_all(KC_FD_RESULT, &tag, 1);
    kc_write_all(KC_FD_RESULT, h, sizeof *h);
    return KC_EXIT_FAIL;
}

#define W_CHECK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return worker_fail(&h, #call, e_);                                                     \
    } while (0)

static int worker(int heavy, int device, double dur_ms, unsigned long long gap_ns, unsigned cap)
{
    struct result_header h;
    memset(&h, 0, sizeof h);
    h.cap = cap;
    unsigned long long *d_iv;
    unsigned *d_count;
    float *d_sink;
    cudaDeviceProp p;
    W_CHECK(cudaSetDevice(device));
    W_CHECK(cudaGetDeviceProperties(&p, device));
    W_CHECK(cudaMalloc(&d_iv, 2 * (size_t)cap * sizeof *d_iv));
    W_CHECK(cudaMalloc(&d_count, sizeof *d_count));
    W_CHECK(cudaMalloc(&d_sink, (size_t)p.multiProcessorCount * sizeof *d_sink));
    size_t smem = p.sharedMemPerBlockOptin;
    unsigned smem_floats = (unsigned)(smem / sizeof(float));
    unsigned long long dur_ns = (unsigned long long)(dur_ms * 1e6);
    cudaFuncAttributes fa;
    if (heavy)
        W_CHECK(cudaFuncSetAttribute(heavy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem));
    if (heavy)
        W_CHECK(cudaFuncGetAttributes(&fa, heavy_kernel));
    else
        W_CHECK(cudaFuncGetAttributes(&fa, light_kernel));
    h.regs = fa.numRegs;
    /* A zero-length launch first: module load and first-launch costs stay out of the run. */
    for (int pass = 0; pass < 2; pass++) {
        unsigned long long d = pass == 0 ? 0 : dur_ns;
        if (pass == 1) {
            char tag = 'R', go;
            if (kc_write_all(KC_FD_RESULT, &tag, 1) || kc_read_all(KC_FD_GO, &go, 1))
                return KC_EXIT_FAIL; /* the parent went away */
            ready_sent = 1;
        }
        if (heavy)
            heavy_kernel<<<p.multiProcessorCount, 1024, smem>>>(d, gap_ns, d_iv, cap, d_count,
                                                                d_sink, smem_floats);
        else
            light_kernel<<<1, 1>>>(d, gap_ns, d_iv, cap, d_count);
        W_CHECK(cudaGetLastError());
        W_CHECK(cudaDeviceSynchronize());
    }
    W_CHECK(cudaMemcpy(&h.count, d_count, sizeof h.count, cudaMemcpyDeviceToHost));
    size_t n = h.count < cap ? h.count : cap;
    unsigned long long *iv = (unsigned long long *)ss_xmalloc(2 * n * sizeof *iv + 1);
    W_CHECK(cudaMemcpy(iv, d_iv, 2 * n * sizeof *iv, cudaMemcpyDeviceToHost));
    int rc = kc_write_all(KC_FD_RESULT, &h, sizeof h) ||
             kc_write_all(KC_FD_RESULT, iv, 2 * n * sizeof *iv);
    free(iv);
    return rc ? KC_EXIT_FAIL : 0;
}

struct round {
    const char *kind;
    struct ka_interval *iv;
    size_t n;
    int truncated;
    int regs; /* registers per thread, as the workers report */
};

static int collect(int fd, int ctx, struct round *rd, char *err, size_t errlen)
{
    struct result_header h;
    if (kc_read_all(fd, &h, sizeof h))
        return ss_errf(err, errlen, "context %d: worker exited without a result", ctx);
    if (h.status)
        return ss_errf(err, errlen, "context %d: %s", ctx, h.msg);
    size_t n = h.count < h.cap ? h.count : h.cap;
    rd->truncated |= h.count > h.cap;
    rd->regs = h.regs;
    unsigned long long *buf = (unsigned long long *)ss_xmalloc(2 * n * sizeof *buf + 1);
    if (kc_read_all(fd, buf, 2 * n * sizeof *buf)) {
        free(buf);
        return ss_errf(err, errlen, "context %d: short result", ctx);
    }
    rd->iv = (struct ka_interval *)ss_xrealloc(rd->iv, (rd->n + n) * sizeof *rd->iv + 1);
    for (size_t i = 0; i < n; i++)
        rd->iv[rd->n++] =
            (struct ka_interval){(long long)buf[2 * i], (long long)buf[2 * i + 1], ctx};
    free(buf);
    return 0;
}

struct options {
    struct kc_opts k; /* --device, --duration-ms, --out, --quick, --device-name */
    int contexts, heavy;
    unsigned long long gap_ns;
    unsigned cap;
    const char *timeline;
    int worker; /* --worker: -1 in the parent, else 1 heavy or 0 light */
};

/* Runs one round of nctx workers; fills rd. 0 ok, -1 with a message. */
static int run_round(const struct options *o, struct round *rd, char *err, size_t errlen)
{
    int go[2], res[MAX_CTX][2], closefds[2 * MAX_CTX + 2], nclose = 0;
    pid_t pids[MAX_CTX];
    char dev[16], dur[32], gap[32], cap[16];
    snprintf(dev, sizeof dev, "%d", o->k.device);
    snprintf(dur, sizeof dur, "%.3f", o->k.dur_ms);
    snprintf(gap, sizeof gap, "%llu", o->gap_ns);
    snprintf(cap, sizeof cap, "%u", o->cap);
    char *argv[] = {(char *)PROG,
                    (char *)"--worker",
                    (char *)rd->kind,
                    (char *)"--device",
                    dev,
                    (char *)"--duration-ms",
                    dur,
                    (char *)"--gap-ns",
                    gap,
                    (char *)"--cap",
                    cap,
                    NULL};
    if (pipe(go))
        return ss_errf(err, errlen, "pipe: %s", strerror(errno));
    closefds[nclose++] = go[0];
    closefds[nclose++] = go[1];
    for (int i = 0; i < o->contexts; i++) {
        if (pipe(res[i]))
            return ss_errf(err, errlen, "pipe: %s", strerror(errno));
        closefds[nclose++] = res[i][0];
        closefds[nclose++] = res[i][1];
    }
    for (int i = 0; i < o->contexts; i++)
        pids[i] = kc_spawn(res[i][1], go[0], closefds, nclose, argv);
    close(go[0]);
    for (int i = 0; i < o->contexts; i++)
        close(res[i][1]);
    int rc = 0;
    for (int i = 0; i < o->contexts && rc == 0; i++) {
        char tag = 0;
        if (pids[i] < 0 || kc_read_tag(res[i][0], &tag, 120))
            rc = ss_errf(err, errlen, "context %d: worker did not start", i);
        else if (tag == 'E')
            rc = collect(res[i][0], i, rd, err, errlen);
        if (rc == 0 && tag == 'E')
            rc = -1;
    }
    /* Start everybody at once (or release them to exit if one failed). */
    char ones[MAX_CTX];
    memset(ones, 'G', sizeof ones);
    kc_write_all(go[1], ones, (size_t)o->contexts);
    close(go[1]);
    for (int i = 0; i < o->contexts; i++) {
        if (rc == 0)
            rc = collect(res[i][0], i, rd, err, errlen);
        close(res[i][0]);
    }
    for (int i = 0; i < o->contexts; i++) {
        int st;
        if (pids[i] > 0)
            waitpid(pids[i], &st, 0);
    }
    return rc;
}

static void write_timeline(FILE *fp, const struct round *rd)
{
    for (size_t i = 0; i < rd->n; i++)
        fprintf(fp, "%s,%d,%lld,%lld\n", rd->kind, rd->iv[i].ctx, rd->iv[i].start_ns,
                rd->iv[i].end_ns);
}

/* Adds the keys of one round; returns 1 when it measured something. */
static int report(cJSON *frag, const struct kc_device *d, const struct options *o,
                  const struct round *rd, const struct ka_tslice *t)
{
    const char *sfx = strcmp(rd->kind, "heavy") == 0 ? "_heavy" : "";
    fprintf(stderr,
            "%s: %s: %zu slices, median %.1f us (p10 %.1f, p90 %.1f); %zu switches, median gap "
            "%.2f us (p10 %.2f, p90 %.2f); %zu overlaps\n",
            PROG, rd->kind, t->n_slices, t->slice_us, t->slice_p10_us, t->slice_p90_us,
            t->n_switches, t->switch_us, t->switch_p10_us, t->switch_p90_us, t->n_overlaps);
    if (t->n_switches < 3 || t->n_slices < 3) {
        fprintf(stderr,
                "%s: %s: too few context switches to measure (%zu): did the contexts run one "
                "after the other?\n",
                PROG, rd->kind, t->n_switches);
        return 0;
    }
    if (t->n_overlaps * 2 > t->n_switches) {
        fprintf(stderr,
                "%s: %s: the contexts ran at the same time in %zu of %zu switches (MPS "
                "running?): no time slice to measure\n",
                PROG, rd->kind, t->n_overlaps, t->n_switches);
        return 0;
    }
    char what[256], key[64];
    if (*sfx)
        snprintf(what, sizeof what,
                 "%d processes, each a spin kernel of %d blocks x 1024 threads with %d "
                 "registers/thread and %zu KiB shared memory per block",
                 o->contexts, d->sms, rd->regs, d->smem_optin / 1024);
    else
        snprintf(what, sizeof what, "%d processes, each a 1-thread spin kernel", o->contexts);
    snprintf(key, sizeof key, "timeslice_us%s", sfx);
    kc_putf(frag, key, cJSON_CreateNumber(t->slice_us), d,
            "Median of %zu continuous runs (p10 %.1f us, p90 %.1f us) over a %.1f ms "
            "window; %s reading %%globaltimer, a gap > %llu ns ends a run.%s",
            t->n_slices, t->slice_p10_us, t->slice_p90_us, t->window_us / 1000.0, what, o->gap_ns,
            rd->truncated ? " Interval log truncated." : "");
    snprintf(key, sizeof key, "switch_us%s", sfx);
    kc_putf(frag, key, cJSON_CreateNumber(t->switch_us), d,
            "Median of %zu gaps between one context's last timer read and the next "
            "context's first (p10 %.2f us, p90 %.2f us); %s.",
            t->n_switches, t->switch_p10_us, t->switch_p90_us, what);
    return 1;
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: tslice [--contexts N] [--duration-ms D] [--gap-ns G] [--no-heavy]\n"
                "              [--device N] [--out FILE] [--timeline FILE.csv] [--quick]\n"
                "              [--device-name]\n\n"
                "Measures the time slice and the context-switch gap between N processes (default\n"
                "2) time-sharing the GPU, with a light and a register/shared-memory heavy kernel.\n"
                "Writes a profile fragment (JSON) to --out (default stdout); --timeline writes\n"
                "the merged intervals as CSV (kind,ctx,start_ns,end_ns). Changes no GPU setting.\n"
                "Exit: 0 ok, 1 measurement failed, 2 usage, 3 no CUDA GPU found.\n");
}

/* tslice's own options; --worker and --cap are the parent's to its workers. */
static int own_option(int c, const char *arg, void *ctx)
{
    struct options *o = (struct options *)ctx;
    switch (c) {
    case 'c':
        o->contexts = atoi(arg);
        break;
    case 'g':
        o->gap_ns = strtoull(arg, NULL, 10);
        break;
    case 'H':
        o->heavy = 0;
        break;
    case 't':
        o->timeline = arg;
        break;
    case 'W':
        o->worker = strcmp(arg, "heavy") == 0;
        break;
    case 'C':
        o->cap = (unsigned)strtoul(arg, NULL, 10);
        break;
    default:
        return -1;
    }
    return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option opts[] = {
        {"contexts", required_argument, NULL, 'c'},
        {"gap-ns", required_argument, NULL, 'g'},
        {"no-heavy", no_argument, NULL, 'H'},
        {"timeline", required_argument, NULL, 't'},
        {"worker", required_argument, NULL, 'W'},
        {"cap", required_argument, NULL, 'C'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){{0, 0, 1, 1, 3000, 500, "-"}, 2, 1, 2000, 1u << 17, NULL, -1};
    int rc = kc_parse(argc, argv, opts, 0, &o->k, own_option, o, usage);
    if (rc >= 0)
        return rc;
    if (optind != argc || o->contexts < 2 || o->contexts > MAX_CTX || !(o->k.dur_ms >= 0) ||
        o->k.dur_ms > 600000 || o->gap_ns < 100 || o->cap < 16) {
        fprintf(stderr,
                "%s: bad arguments: --contexts 2..%d, --duration-ms up to 600000, "
                "--gap-ns >= 100\n",
                PROG, MAX_CTX);
        usage(stderr);
        return KC_EXIT_USAGE;
    }
    return -1;
}

int main(int argc, char **argv)
{
    struct options o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    /* A worker that died must not kill the parent (or a worker) through a closed pipe. */
    signal(SIGPIPE, SIG_IGN);
    if (o.worker >= 0)
        return worker(o.worker, o.k.device, o.k.dur_ms, o.gap_ns, o.cap);
    struct kc_device d;
    if ((rc = kc_open_or_name(PROG, &o.k, 0, &d)) >= 0)
        return rc;
    if (d.compute_mode == cudaComputeModeExclusiveProcess) {
        fprintf(stderr,
                "%s: %s is in compute mode Exclusive Process: only one process may hold "
                "a context, so there is no time slicing between processes to measure "
                "(this program does not change the compute mode)\n",
                PROG, d.name);
        return KC_EXIT_FAIL;
    }
    FILE *tl = NULL;
    if (o.timeline && !(tl = fopen(o.timeline, "w"))) {
        fprintf(stderr, "%s: %s: %s\n", PROG, o.timeline, strerror(errno));
        return KC_EXIT_FAIL;
    }
    if (tl)
        fprintf(tl, "kind,ctx,start_ns,end_ns\n");
    cJSON *frag = kc_fragment(&d, "tslice: time slice and context-switch gap between processes");
    int measured = 0, ok[2] = {0, 0}, heavy_regs = 0;
    double sw_us[2] = {0, 0};
    const char *kinds[] = {"light", "heavy"};
    for (int k = 0; k < (o.heavy ? 2 : 1); k++) {
        struct round rd = {kinds[k], NULL, 0, 0, 0};
        char err[SS_ERRLEN];
        struct ka_tslice t;
        fprintf(stderr, "%s: %s round: %d contexts x %.0f ms on %s\n", PROG, rd.kind, o.contexts,
                o.k.dur_ms, d.name);
        if (run_round(&o, &rd, err, sizeof err) || ka_timeslice(rd.iv, rd.n, &t, err, sizeof err))
            fprintf(stderr, "%s: %s round failed: %s\n", PROG, rd.kind, err);
        else if (report(frag, &d, &o, &rd, &t)) {
            measured++;
            ok[k] = 1;
            sw_us[k] = t.switch_us;
            heavy_regs = rd.regs;
        }
        if (tl)
            write_timeline(tl, &rd);
        free(rd.iv);
    }
    if (tl)
        fclose(tl);
    if (ok[0] && ok[1] && sw_us[1] > sw_us[0]) {
        /* Every heavy switch saves one heavy context and restores another: twice the state
         * of one, against the light round's switch of next to no state. */
        double state = (double)d.sms * (1024.0 * heavy_regs * 4 + (double)d.smem_optin);
        double gbps = 2 * state / ((sw_us[1] - sw_us[0]) * 1e-6) / 1e9;
        kc_putf(frag, "ctx_switch_gbps", cJSON_CreateNumber(gbps), &d,
                "2 x %.1f MB of heavy context state (%d SMs x (1024 threads x %d registers x 4 B "
                "+ %zu KiB shared memory)) over the heavy switch's extra %.2f us against the "
                "light one's.",
                state / 1e6, d.sms, heavy_regs, d.smem_optin / 1024, sw_us[1] - sw_us[0]);
    }
    rc = measured ? kc_write(PROG, frag, o.k.out) : KC_EXIT_FAIL;
    cJSON_Delete(frag);
    return rc;
}
