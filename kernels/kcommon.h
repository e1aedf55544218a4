/*
 * kcommon — what the three microbenchmarks (tslice, partition, concurrency) share:
 * opening the GPU (exit 3 with "no CUDA GPU found" when there is none), writing their
 * measurements as a profile fragment (sim/calib/profile.h), SM-restricted partitions, and the
 * fixed-window throughput kernels.
 *
 * Invariants. No program changes a GPU setting: no MIG mode, clocks, compute mode or
 * reset — they only create contexts, allocate memory and launch kernels. Every measured
 * value carries the source "<program> on <device> (driver …), <date>" and confidence
 * "measured".
 *
 * Throughput is measured over a fixed window of GPU time: every block works from
 * window.start_ns to window.end_ns of %globaltimer and counts the chunks of work it
 * finished, so two kernels launched on two partitions overlap exactly in the window and
 * their throughputs compare directly (no tail where one runs alone).
 */
#ifndef KCOMMON_H
#define KCOMMON_H

#include <cuda_runtime.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

extern "C" {
#include "calib/profile.h"
}

enum { KC_EXIT_FAIL = 1, KC_EXIT_USAGE = 2, KC_EXIT_NOGPU = 3 };

struct kc_device {
    int ordinal;
    char name[256];
    int sms;
    int cc_major, cc_minor;
    size_t smem_optin;  /* largest dynamic shared memory one block may ask for */
    size_t smem_per_sm; /* shared memory per SM */
    int regs_per_sm;
    int compute_mode; /* cudaComputeMode */
    char driver[96];  /* kernel-module version (/proc/driver/nvidia/version) and CUDA version */
    char date[32];    /* UTC, ISO 8601 */
    char source[640]; /* "<prog> on <name> (driver …), <date>" */
};

/*
 * Opens device `ordinal` (and makes its primary context current when make_context;
 * tslice's parent does not, so that only its workers hold contexts). Without a GPU (no
 * driver, no device) prints "<prog>: no CUDA GPU found (…)" and returns KC_EXIT_NOGPU;
 * other failures return KC_EXIT_FAIL or KC_EXIT_USAGE with a message; 0 when ready.
 */
int kc_open(const char *prog, int ordinal, int make_context, struct kc_device *d);

/* The options the programs share, with the defaults each program sets. */
struct kc_opts {
    int device_name; /* --device-name: print the device's name and exit */
    int device, green, reps;
    double dur_ms;
    double quick_ms; /* --quick: this duration and one repetition */
    const char *out; /* "-": stdout */
};

/*
 * Parses argv: the program's own options (getopt_long entries, NULL-terminated; NULL: none),
 * each handed to own(c, optarg, ctx), which returns 0 when it took it; then the shared ones
 * into o: --duration-ms D, (with `windows`) --reps N and --no-green, --device N, --out FILE
 * (-o FILE), --quick, --device-name, --help. Returns -1 to go on (operands, if any, from
 * optind), 0 after --help (usage on stdout), KC_EXIT_USAGE after an unknown option
 * (getopt's message, then usage on stderr).
 */
int kc_parse(int argc, char **argv, const struct option *own_opts, int windows, struct kc_opts *o,
             int (*own)(int c, const char *arg, void *ctx), void *ctx, void (*usage)(FILE *));
/* For programs that measure windows: -1 when there are no operands, --duration-ms is in
 * 1..10000 and --reps in 1..max_reps; else KC_EXIT_USAGE with the message and usage. */
int kc_check_windows(const char *prog, int argc, const struct kc_opts *o, int max_reps,
                     void (*usage)(FILE *));
/*
 * Opens the --device (kc_open), and with --device-name prints its name. Returns -1 to go on
 * measuring, else the exit code (0 after printing the name).
 */
int kc_open_or_name(const char *prog, const struct kc_opts *o, int make_context,
                    struct kc_device *d);

/* Exits with a message naming the call when a CUDA runtime call fails. */
#define KC_CHECK(call) kc_check((call), #call, __FILE__, __LINE__)
void kc_check(cudaError_t e, const char *what, const char *file, int line);

/* A fragment document: schema, device, "measured": true, driver, date, notes. */
cJSON *kc_fragment(const struct kc_device *d, const char *notes);
/* Adds a measured value object {value, source, confidence: "measured", note}. */
void kc_put(cJSON *frag, const char *key, cJSON *value, const struct kc_device *d,
            const char *note);
/* kc_put with the note printf-style. */
void kc_putf(cJSON *frag, const char *key, cJSON *value, const struct kc_device *d, const char *fmt,
             ...) __attribute__((format(printf, 5, 6)));
/* Writes the fragment atomically ("-" = stdout); 0 or KC_EXIT_FAIL with a message. */
int kc_write(const char *prog, cJSON *frag, const char *path);

/* Dynamic shared memory per block that leaves room for one block per SM only (the grid
 * partitions' padding; the current device). */
size_t kc_pad_smem(void);

/* Pipes between a program and the workers it forks (tslice, fidelity): exactly n bytes,
 * again after a signal; 0, or -1 on an error or at the end of the file. */
int kc_write_all(int fd, const void *buf, size_t n);
int kc_read_all(int fd, void *buf, size_t n);
/* Waits at most timeout_s for one byte from fd and reads it; 0 on success. */
int kc_read_tag(int fd, char *tag, int timeout_s);
/*
 * Forks a worker that execs this program (/proc/self/exe) with argv, so it starts with a
 * clean CUDA state: its fd KC_FD_RESULT is res_w (worker -> parent: a ready byte, then the
 * result), its fd KC_FD_GO is go_r (parent -> workers: the start signal), and the parent's
 * close_fds are closed. Returns the child's pid (-1 when fork failed).
 */
enum { KC_FD_RESULT = 3, KC_FD_GO = 4 };
pid_t kc_spawn(int res_w, int go_r, const int *close_fds, int nclose, char **argv);

/* Parses "16,26,32" into at most max positive integers; returns the count, -1 if bad. */
int kc_parse_list(const char *s, int *out, int max);

/*
 * A set of SMs to run on. With green contexts (CUDA 12.4+ driver API, loaded through
 * cudaGetDriverEntryPointByVersion so the programs still start without a driver) the
 * hardware restricts work to `sms` SMs; otherwise (`green` == 0) the kernels launch
 * `sms` blocks that each need more than half an SM's shared memory, so each block holds
 * one SM of its own. Either way a kernel launched with part.sms blocks of KC_THREADS
 * threads and kc_pad_smem() bytes covers exactly `sms` SMs (kc_launch does so).
 */
struct kc_part {
    int sms;   /* SMs this partition runs on */
    int green; /* 1: green context; 0: grid sized to the SMs */
    int ordinal;
    cudaStream_t stream;
    void *gctx; /* CUgreenCtx when green */
    void *ctx;  /* its CUcontext (set current before launching) */
};

#define KC_THREADS 1024

/*
 * Makes `count` disjoint partitions of at least `sms` SMs each (green contexts round up
 * to the device's granularity, and sms == all SMs is the whole device). When green
 * contexts are unavailable or want_green is 0, falls back to grid partitions and says
 * why in `why` (may be NULL). Returns 0, or -1 with a message in why.
 */
int kc_partitions(const struct kc_device *d, int sms, int count, int want_green,
                  struct kc_part *out, char *why, size_t whylen);
void kc_partitions_free(struct kc_part *p, int count);
/* Makes the partition's context current (the primary context for grid partitions). */
void kc_part_enter(const struct kc_part *p);

struct kc_window {
    unsigned long long start_ns, end_ns;
};

/* A window of %globaltimer time starting lead_ms from now and lasting dur_ms. */
struct kc_window kc_window_from_now(double lead_ms, double dur_ms);

/* Work buffers for the memory kernel (two arrays well beyond the L2 cache). */
struct kc_buffers {
    void *src, *dst;
    size_t n16;                   /* 16-byte elements per array */
    unsigned long long *counters; /* one work counter per launch slot */
    float *sink;
};
int kc_buffers_alloc(struct kc_buffers *b, size_t bytes_per_array, int slots);
void kc_buffers_free(struct kc_buffers *b);

enum kc_class { KC_COMPUTE = 0, KC_MEMORY = 1 };

/*
 * Launches the compute (FMA chains) or memory (streaming copy) kernel on the partition
 * for the window, counting into counter slot `slot` (reset first). Asynchronous.
 */
void kc_launch(enum kc_class c, const struct kc_part *p, struct kc_window w,
               const struct kc_buffers *b, int slot);
/*
 * Waits for the partition's stream, then the throughput of the launch in counter slot
 * `slot`: GFLOP/s (compute) or GB/s read + written (memory) over the window.
 */
double kc_throughput(enum kc_class c, const struct kc_part *p, const struct kc_buffers *b, int slot,
                     struct kc_window w);

#endif
