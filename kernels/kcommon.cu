/*
 * kcommon — see kcommon.h. The green-context entry points are looked up at run time
 * (cudaGetDriverEntryPointByVersion), never linked: a binary linked against libcuda
 * would not even start on a machine without the driver, and the contract is that it
 * starts and exits 3.
 */
#include "kcommon.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern "C" {
#include "base/util.h"
}

int kc_parse(int argc, char **argv, const struct option *own_opts, int windows, struct kc_opts *o,
             int (*own)(int c, const char *arg, void *ctx), void *ctx, void (*usage)(FILE *))
{
    static const struct option shared[] = {
        {"duration-ms", required_argument, NULL, 'd'}, {"reps", required_argument, NULL, 'r'},
        {"no-green", no_argument, NULL, 'G'},          {"device", required_argument, NULL, 'D'},
        {"out", required_argument, NULL, 'o'},         {"quick", no_argument, NULL, 'q'},
        {"device-name", no_argument, NULL, 'N'},       {"help", no_argument, NULL, 'h'},
    };
    enum { N_SHARED = sizeof shared / sizeof shared[0], MAX_OWN = 16 };
    struct option opts[MAX_OWN + N_SHARED + 1];
    int n = 0;
    for (; own_opts && own_opts[n].name; n++) {
        if (n == MAX_OWN) {
            fprintf(stderr, "kc_parse: more than %d options of a program's own\n", MAX_OWN);
            exit(KC_EXIT_FAIL);
        }
        opts[n] = own_opts[n];
    }
    for (int k = 0; k < N_SHARED; k++)
        if (windows || (shared[k].val != 'r' && shared[k].val != 'G'))
            opts[n++] = shared[k];
    opts[n] = (struct option){NULL, 0, NULL, 0};
    int c;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 'd':
            o->dur_ms = atof(optarg);
            break;
        case 'r':
            o->reps = atoi(optarg);
            break;
        case 'G':
            o->green = 0;
            break;
        case 'D':
            o->device = atoi(optarg);
            break;
        case 'o':
            o->out = optarg;
            break;
        case 'q':
            o->dur_ms = o->quick_ms, o->reps = 1;
            break;
        case 'N':
            o->device_name = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            if (own && own(c, optarg, ctx) == 0)
                break;
            usage(stderr);
            return KC_EXIT_USAGE;
        }
    }
    return -1;
}

int kc_check_windows(const char *prog, int argc, const struct kc_opts *o, int max_reps,
                     void (*usage)(FILE *))
{
    if (optind != argc || !(o->dur_ms >= 1 && o->dur_ms <= 10000) || o->reps < 1 ||
        o->reps > max_reps) {
        fprintf(stderr, "%s: bad arguments: --duration-ms 1..10000, --reps 1..%d\n", prog,
                max_reps);
        usage(stderr);
        return KC_EXIT_USAGE;
    }
    return -1;
}

int kc_open_or_name(const char *prog, const struct kc_opts *o, int make_context,
                    struct kc_device *d)
{
    int rc = kc_open(prog, o->device, make_context, d);
    if (rc)
        return rc;
    if (!o->device_name)
        return -1;
    printf("%s\n", d->name);
    return 0;
}

void kc_check(cudaError_t e, const char *what, const char *file, int line)
{
    if (e == cudaSuccess)
        return;
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, what, cudaGetErrorString(e),
            cudaGetErrorName(e));
    exit(KC_EXIT_FAIL);
}

/* Kernel-module version from /proc/driver/nvidia/version, "" when unreadable. */
static void module_version(char *out, size_t n)
{
    out[0] = '\0';
    FILE *fp = fopen("/proc/driver/nvidia/version", "r");
    if (!fp)
        return;
    char line[512];
    if (fgets(line, sizeof line, fp)) {
        const char *k = strstr(line, "Kernel Module");
        if (k) {
            k += strlen("Kernel Module");
            while (*k == ' ')
                k++;
            size_t len = strcspn(k, " \n");
            snprintf(out, n, "%.*s", (int)len, k);
        }
    }
    fclose(fp);
}

int kc_open(const char *prog, int ordinal, int make_context, struct kc_device *d)
{
    memset(d, 0, sizeof *d);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        /* No driver, no device or no usable device: nothing to measure here. */
        int driver = access("/proc/driver/nvidia/version", R_OK) == 0;
        fprintf(stderr, "%s: no CUDA GPU found (%scudaGetDeviceCount: %s)\n", prog,
                driver ? "" : "no NVIDIA driver loaded; ",
                e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return KC_EXIT_NOGPU;
    }
    if (ordinal < 0 || ordinal >= count) {
        fprintf(stderr, "%s: --device %d: this machine has %d CUDA device(s), 0..%d\n", prog,
                ordinal, count, count - 1);
        return KC_EXIT_USAGE;
    }
    cudaDeviceProp p;
    int mode = cudaComputeModeDefault;
    KC_CHECK(cudaGetDeviceProperties(&p, ordinal));
    KC_CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, ordinal));
    if (mode == cudaComputeModeProhibited) {
        fprintf(stderr,
                "%s: device %d (%s) is in compute mode Prohibited: no context can be "
                "created (this program does not change the compute mode)\n",
                prog, ordinal, p.name);
        return KC_EXIT_FAIL;
    }
    if (make_context)
        KC_CHECK(cudaSetDevice(ordinal));
    d->ordinal = ordinal;
    d->compute_mode = mode;
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->sms = p.multiProcessorCount;
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->smem_optin = p.sharedMemPerBlockOptin;
    d->smem_per_sm = p.sharedMemPerMultiprocessor;
    d->regs_per_sm = p.regsPerMultiprocessor;
    int drv = 0;
    cudaDriverGetVersion(&drv);
    char mod[64];
    module_version(mod, sizeof mod);
    snprintf(d->driver, sizeof d->driver, "%s%sCUDA %d.%d", mod, mod[0] ? ", " : "", drv / 1000,
             (drv % 1000) / 10);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(d->date, sizeof d->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(d->source, sizeof d->source, "%s on %s (driver %s), %s", prog, d->name, d->driver,
             d->date);
    return 0;
}

cJSON *kc_fragment(const struct kc_device *d, const char *notes)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "schema", PROF_SCHEMA);
    cJSON_AddStringToObject(f, "device", d->name);
    cJSON_AddBoolToObject(f, "measured", 1);
    cJSON_AddStringToObject(f, "driver", d->driver);
    cJSON_AddStringToObject(f, "date", d->date);
    cJSON_AddStringToObject(f, "notes", notes);
    return f;
}

void kc_put(cJSON *frag, const char *key, cJSON *value, const struct kc_device *d, const char *note)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "value", value);
    cJSON_AddStringToObject(o, "source", d->source);
    cJSON_AddStringToObject(o, "confidence", "measured");
    if (note && note[0])
        cJSON_AddStringToObject(o, "note", note);
    cJSON_AddItemToObject(frag, key, o);
}

void kc_putf(cJSON *frag, const char *key, cJSON *value, const struct kc_device *d, const char *fmt,
             ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *note = (char *)ss_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(note, (size_t)n + 1, fmt, ap);
    va_end(ap);
    kc_put(frag, key, value, d, note);
    free(note);
}

int kc_write(const char *prog, cJSON *frag, const char *path)
{
    char err[SS_ERRLEN];
    struct ss_out o;
    if (ss_out_open(&o, path, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return KC_EXIT_FAIL;
    }
    char *s = cJSON_Print(frag);
    fprintf(o.fp, "%s\n", s);
    cJSON_free(s);
    if (ss_out_commit(&o, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return KC_EXIT_FAIL;
    }
    return 0;
}

/* Writes (or reads) exactly n bytes, again after a signal; 0, or -1 on an error or at the
 * end of the file. */
static int transfer_all(int fd, char *p, size_t n, int writing)
{
    while (n > 0) {
        ssize_t r = writing ? write(fd, p, n) : read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int kc_write_all(int fd, const void *buf, size_t n)
{
    return transfer_all(fd, (char *)buf, n, 1); /* only read from when writing */
}

int kc_read_all(int fd, void *buf, size_t n)
{
    return transfer_all(fd, (char *)buf, n, 0);
}

int kc_read_tag(int fd, char *tag, int timeout_s)
{
    struct pollfd pf = {fd, POLLIN, 0};
    int r;
    while ((r = poll(&pf, 1, timeout_s * 1000)) < 0 && errno == EINTR)
        ;
    if (r <= 0)
        return -1;
    return kc_read_all(fd, tag, 1);
}

pid_t kc_spawn(int res_w, int go_r, const int *close_fds, int nclose, char **argv)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* Child: result pipe on fd 3, start pipe on fd 4, nothing else of the parent's. */
    int r = dup(res_w), g = dup(go_r);
    for (int k = 0; k < nclose; k++)
        close(close_fds[k]);
    if (r < 0 || g < 0 || dup2(r, KC_FD_RESULT) < 0 || dup2(g, KC_FD_GO) < 0)
        _exit(127);
    if (r != KC_FD_RESULT && r != KC_FD_GO)
        close(r);
    if (g != KC_FD_RESULT && g != KC_FD_GO)
        close(g);
    execv("/proc/self/exe", argv);
    _exit(127);
}

int kc_parse_list(const char *s, int *out, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || errno || v < 1 || v > 1 << 20 || n == max)
            return -1;
        out[n++] = (int)v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return n;
}

/* ---- green contexts ---- */

struct green_api {
    PFN_cuDeviceGetDevResource_v12040 get_resource;
    PFN_cuDevSmResourceSplitByCount_v12040 split;
    PFN_cuDevResourceGenerateDesc_v12040 gen_desc;
    PFN_cuGreenCtxCreate_v12040 create;
    PFN_cuGreenCtxDestroy_v12040 destroy;
    PFN_cuCtxFromGreenCtx_v12040 to_ctx;
    PFN_cuGreenCtxStreamCreate_v12050 stream_create;
    PFN_cuCtxSetCurrent_v4000 set_current;
};

static int load_sym(const char *name, void **fn, unsigned version)
{
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion(name, fn, version, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !*fn)
        return -1;
    return 0;
}

/* 0 when the driver has every green-context entry point; the first missing one in why. */
static int green_load(struct green_api *g, char *why, size_t n)
{
    const struct {
        const char *name;
        void **fn;
        unsigned version;
    } syms[] = {
        {"cuDeviceGetDevResource", (void **)&g->get_resource, 12040},
        {"cuDevSmResourceSplitByCount", (void **)&g->split, 12040},
        {"cuDevResourceGenerateDesc", (void **)&g->gen_desc, 12040},
        {"cuGreenCtxCreate", (void **)&g->create, 12040},
        {"cuGreenCtxDestroy", (void **)&g->destroy, 12040},
        {"cuCtxFromGreenCtx", (void **)&g->to_ctx, 12040},
        {"cuCtxSetCurrent", (void **)&g->set_current, 4000},
    };
    /* Optional (CUDA 12.5+): without it the stream is made in the current green context. */
    if (load_sym("cuGreenCtxStreamCreate", (void **)&g->stream_create, 12050))
        g->stream_create = NULL;
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
        if (load_sym(syms[i].name, syms[i].fn, syms[i].version)) {
            snprintf(why, n, "the driver has no %s (green contexts need CUDA 12.4+)", syms[i].name);
            return -1;
        }
    return 0;
}

static struct green_api green;

static CUresult green_stream(CUgreenCtx g, CUcontext c, CUstream *s)
{
    if (green.stream_create)
        return green.stream_create(s, g, CU_STREAM_NON_BLOCKING, 0);
    CUresult r = green.set_current(c);
    if (r != CUDA_SUCCESS)
        return r;
    cudaStream_t rs;
    if (cudaStreamCreateWithFlags(&rs, cudaStreamNonBlocking) != cudaSuccess)
        return CUDA_ERROR_UNKNOWN;
    *s = (CUstream)rs;
    return CUDA_SUCCESS;
}

/* Splits the device into `count` SM groups of at least sms SMs and makes their contexts. */
static int green_partitions(const struct kc_device *d, int sms, int count, struct kc_part *out,
                            char *why, size_t n)
{
    if (green_load(&green, why, n))
        return -1;
    CUdevResource dev, groups[8], rest;
    CUresult r = green.get_resource(d->ordinal, &dev, CU_DEV_RESOURCE_TYPE_SM);
    if (r != CUDA_SUCCESS || count > 8) {
        snprintf(why, n, "cuDeviceGetDevResource failed (%d)", (int)r);
        return -1;
    }
    unsigned got = (unsigned)count;
    if (sms >= (int)dev.sm.smCount && count == 1) {
        groups[0] = dev; /* the whole device: no split needed */
    } else {
        /* The API rounds a group up to the alignment (8 SMs on Hopper): one group may grow
         * (26 -> 32), but several must be rounded down so that they all fit (66 -> 64). */
        unsigned align = dev.sm.smCoscheduledAlignment ? dev.sm.smCoscheduledAlignment : 1;
        unsigned want = (unsigned)sms;
        if (count > 1)
            want = want / align * align;
        if (want * (unsigned)count > dev.sm.smCount)
            want = dev.sm.smCount / (unsigned)count / align * align;
        if (want < dev.sm.minSmPartitionSize)
            want = dev.sm.minSmPartitionSize;
        r = green.split(groups, &got, &dev, &rest, 0, want);
        if (r != CUDA_SUCCESS || got < (unsigned)count) {
            snprintf(why, n,
                     "cuDevSmResourceSplitByCount(%u groups of %u SMs) failed (%d, %u groups)",
                     (unsigned)count, want, (int)r, got);
            return -1;
        }
    }
    for (int i = 0; i < count; i++) {
        CUdevResourceDesc desc;
        CUgreenCtx g;
        CUcontext c;
        CUstream s;
        if ((r = green.gen_desc(&desc, &groups[i], 1)) != CUDA_SUCCESS ||
            (r = green.create(&g, desc, d->ordinal, CU_GREEN_CTX_DEFAULT_STREAM)) != CUDA_SUCCESS) {
            snprintf(why, n, "cuGreenCtxCreate failed (%d)", (int)r);
            kc_partitions_free(out, i);
            return -1;
        }
        if ((r = green.to_ctx(&c, g)) != CUDA_SUCCESS ||
            (r = green_stream(g, c, &s)) != CUDA_SUCCESS) {
            snprintf(why, n, "green-context stream creation failed (%d)", (int)r);
            green.destroy(g);
            kc_partitions_free(out, i);
            return -1;
        }
        out[i].sms = (int)groups[i].sm.smCount;
        out[i].green = 1;
        out[i].ordinal = d->ordinal;
        out[i].stream = (cudaStream_t)s;
        out[i].gctx = (void *)g;
        out[i].ctx = (void *)c;
    }
    return 0;
}

int kc_partitions(const struct kc_device *d, int sms, int count, int want_green,
                  struct kc_part *out, char *why, size_t whylen)
{
    char tmp[256] = "green contexts not requested (--no-green)";
    memset(out, 0, (size_t)count * sizeof *out);
    if (sms < 1 || count < 1 || sms * count > d->sms) {
        snprintf(why ? why : tmp, why ? whylen : sizeof tmp,
                 "%d partition(s) of %d SMs do not fit in %d SMs", count, sms, d->sms);
        return -1;
    }
    if (want_green && green_partitions(d, sms, count, out, tmp, sizeof tmp) == 0) {
        if (why)
            why[0] = '\0';
        return 0;
    }
    /* Fallback: one block per SM, sms blocks per partition, streams on the primary context. */
    KC_CHECK(cudaSetDevice(d->ordinal));
    for (int i = 0; i < count; i++) {
        out[i].sms = sms;
        out[i].green = 0;
        out[i].ordinal = d->ordinal;
        KC_CHECK(cudaStreamCreateWithFlags(&out[i].stream, cudaStreamNonBlocking));
    }
    if (why)
        snprintf(why, whylen, "%s", tmp);
    return 0;
}

void kc_part_enter(const struct kc_part *p)
{
    if (!p->green) {
        KC_CHECK(cudaSetDevice(p->ordinal)); /* the primary context */
        return;
    }
    if (green.set_current((CUcontext)p->ctx) != CUDA_SUCCESS) {
        fprintf(stderr, "cuCtxSetCurrent on a green context failed\n");
        exit(KC_EXIT_FAIL);
    }
}

void kc_partitions_free(struct kc_part *p, int count)
{
    int ordinal = count > 0 ? p[0].ordinal : 0;
    for (int i = 0; i < count; i++) {
        if (p[i].stream) {
            kc_part_enter(&p[i]);
            cudaStreamDestroy(p[i].stream);
        }
        if (p[i].green)
            green.destroy((CUgreenCtx)p[i].gctx);
        memset(&p[i], 0, sizeof p[i]);
    }
    /* Never leave a destroyed green context current: back to the primary context. */
    if (count > 0)
        cudaSetDevice(ordinal);
}

/* ---- fixed-window kernels ---- */

__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* 0 before the window, 1 inside, 2 after; read by thread 0, the same for the whole block. */
__device__ int window_phase(struct kc_window w)
{
    __shared__ int phase;
    if (threadIdx.x == 0) {
        unsigned long long t = gtimer();
        phase = t < w.start_ns ? 0 : t < w.end_ns ? 1 : 2;
    }
    __syncthreads();
    int p = phase;
    __syncthreads();
    return p;
}

/* Waits for the window to open; then true while it is open (time for one more chunk of
 * work), false once it has closed. The same answer for the whole block. */
__device__ bool in_window(struct kc_window w)
{
    int p;
    while ((p = window_phase(w)) == 0)
        ;
    return p == 1;
}

__global__ void now_kernel(unsigned long long *out)
{
    *out = gtimer();
}

#define FMA_ITERS 256
#define FMA_CHAINS 8
#define COPY_UNROLL 4

/* Eight independent FMA chains per thread keep every FMA pipe busy (latency hidden). */
__global__ void __launch_bounds__(KC_THREADS)
    fma_kernel(struct kc_window w, unsigned long long *chunks, float *sink)
{
    float x[FMA_CHAINS];
    const float a = 0.999f + 1e-7f * threadIdx.x, b = 1e-3f;
#pragma unroll
    for (int i = 0; i < FMA_CHAINS; i++)
        x[i] = (float)(threadIdx.x + i);
    unsigned long long n = 0;
    while (in_window(w)) {
        for (int k = 0; k < FMA_ITERS; k++)
#pragma unroll
            for (int i = 0; i < FMA_CHAINS; i++)
                x[i] = fmaf(x[i], a, b);
        n++;
    }
    float s = 0;
#pragma unroll
    for (int i = 0; i < FMA_CHAINS; i++)
        s += x[i];
    if (s == 1234.5f) /* never true in practice; keeps the chains alive */
        sink[blockIdx.x] = s;
    if (threadIdx.x == 0)
        atomicAdd(chunks, n);
}

/* Each chunk copies one contiguous segment of blockDim * COPY_UNROLL 16-byte elements. */
__global__ void __launch_bounds__(KC_THREADS)
    copy_kernel(struct kc_window w, const float4 *src, float4 *dst, size_t n16,
                unsigned long long *chunks)
{
    size_t seg = (size_t)blockDim.x * COPY_UNROLL, nseg = n16 / seg;
    unsigned long long n = 0;
    while (in_window(w)) {
        size_t base = ((n * gridDim.x + blockIdx.x) % nseg) * seg + threadIdx.x;
        float4 v[COPY_UNROLL];
#pragma unroll
        for (int u = 0; u < COPY_UNROLL; u++)
            v[u] = src[base + (size_t)u * blockDim.x];
#pragma unroll
        for (int u = 0; u < COPY_UNROLL; u++)
            dst[base + (size_t)u * blockDim.x] = v[u];
        n++;
    }
    if (threadIdx.x == 0)
        atomicAdd(chunks, n);
}

struct kc_window kc_window_from_now(double lead_ms, double dur_ms)
{
    unsigned long long *d_now, now = 0;
    KC_CHECK(cudaMalloc(&d_now, sizeof *d_now));
    now_kernel<<<1, 1>>>(d_now);
    KC_CHECK(cudaGetLastError());
    KC_CHECK(cudaMemcpy(&now, d_now, sizeof now, cudaMemcpyDeviceToHost));
    KC_CHECK(cudaFree(d_now));
    struct kc_window w;
    w.start_ns = now + (unsigned long long)(lead_ms * 1e6);
    w.end_ns = w.start_ns + (unsigned long long)(dur_ms * 1e6);
    return w;
}

int kc_buffers_alloc(struct kc_buffers *b, size_t bytes_per_array, int slots)
{
    memset(b, 0, sizeof *b);
    b->n16 = bytes_per_array / 16;
    KC_CHECK(cudaMalloc(&b->src, b->n16 * 16));
    KC_CHECK(cudaMalloc(&b->dst, b->n16 * 16));
    KC_CHECK(cudaMemset(b->src, 0, b->n16 * 16));
    KC_CHECK(cudaMalloc(&b->counters, (size_t)slots * sizeof *b->counters));
    KC_CHECK(cudaMalloc(&b->sink, 65536 * sizeof(float)));
    return 0;
}

void kc_buffers_free(struct kc_buffers *b)
{
    cudaFree(b->src);
    cudaFree(b->dst);
    cudaFree(b->counters);
    cudaFree(b->sink);
    memset(b, 0, sizeof *b);
}

size_t kc_pad_smem(void)
{
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceProp p;
    KC_CHECK(cudaGetDeviceProperties(&p, dev));
    size_t want = p.sharedMemPerMultiprocessor / 2 + 1024;
    if (want > p.sharedMemPerBlockOptin)
        want = p.sharedMemPerBlockOptin;
    return want;
}

void kc_launch(enum kc_class c, const struct kc_part *p, struct kc_window w,
               const struct kc_buffers *b, int slot)
{
    static size_t smem;
    if (!smem)
        smem = kc_pad_smem();
    kc_part_enter(p);
    /* Set in the partition's context each time: cheap, and right whatever context it is. */
    KC_CHECK(
        cudaFuncSetAttribute(fma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    KC_CHECK(
        cudaFuncSetAttribute(copy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    KC_CHECK(cudaMemsetAsync(b->counters + slot, 0, sizeof *b->counters, p->stream));
    if (c == KC_COMPUTE)
        fma_kernel<<<p->sms, KC_THREADS, smem, p->stream>>>(w, b->counters + slot, b->sink);
    else
        copy_kernel<<<p->sms, KC_THREADS, smem, p->stream>>>(
            w, (const float4 *)b->src, (float4 *)b->dst, b->n16, b->counters + slot);
    KC_CHECK(cudaGetLastError());
}

double kc_throughput(enum kc_class c, const struct kc_part *p, const struct kc_buffers *b, int slot,
                     struct kc_window w)
{
    unsigned long long chunks = 0;
    kc_part_enter(p);
    KC_CHECK(cudaStreamSynchronize(p->stream));
    KC_CHECK(cudaMemcpy(&chunks, b->counters + slot, sizeof chunks, cudaMemcpyDeviceToHost));
    double secs = (double)(w.end_ns - w.start_ns) * 1e-9;
    if (c == KC_COMPUTE) /* 2 flops per FMA */
        return (double)chunks * KC_THREADS * FMA_ITERS * FMA_CHAINS * 2.0 / secs * 1e-9;
    /* bytes read + written */
    return (double)chunks * KC_THREADS * COPY_UNROLL * 16.0 * 2.0 / secs * 1e-9;
}
