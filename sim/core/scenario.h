/*
 * scenario — a validated, in-memory scenario (docs/scenario.md). Loading checks every
 * field, refuses unknown keys, and resolves the GPU profile and each strategy's
 * parameters (through its policy's parse()), so a scenario that loads can run.
 * Internally every time is in seconds; conversion happens here, at the boundary.
 */
#ifndef SS_SCENARIO_H
#define SS_SCENARIO_H

#include "calib/calib.h"
#include "core/k8sid.h"
#include "io/trace.h"
#include "llm/serving.h"

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#define SCN_NAME_MAX 64
#define SCN_MAX_MMPP 16
/* A run holds every (strategy, tenant) pair's figures and writes them all: 4,096 tenants × 256
 * strategies would need about 4 GB and minutes, so their product is bounded to what this
 * machine does in seconds (docs/robustness.md, "Scale"). */
#define SCN_MAX_TENANTS 4096
#define SCN_MAX_STRATEGIES 256
#define SCN_MAX_PAIRS 65536

/*
 * The clock (docs/robustness.md, "The clock"). Simulated time is a double counting seconds
 * from 0. Up to SCN_CLOCK_HORIZON_S = 2^32 s (136 years) a double resolves 2^-20 s (0.95 us)
 * or better; a run whose time would pass it stops with exit 2 (eng_run), and so does one whose
 * time stops advancing. The bounds below follow from it, and are checked on the values a run
 * uses (after --scale-load, scn_check_clock): every time step a model repeats (MMPP dwell,
 * diurnal period, time slice) is at least about 100 ticks at the horizon, and every mean gap
 * between arrivals at most the longest stop.duration_s (1e9 s), so neither the step vanishes
 * in rounding nor the arrivals run past the horizon.
 */
#define SCN_CLOCK_HORIZON_S 4294967296.0
#define SCN_CLOCK_TICK_S 9.5367431640625e-07 /* 2^-20 s: the resolution at the horizon */
#define SCN_MIN_STEP_S 1e-4                  /* MMPP mean dwell, diurnal period, time slices */
#define SCN_MIN_SLICE_MS (SCN_MIN_STEP_S * 1e3)
#define SCN_SLICE_WHY                                                                              \
    "a time slice repeats without end, so it must stay about 100 clock ticks or more (the "        \
    "clock resolves 2^-20 s at its horizon of 2^32 s)"
/* work.intensity (over the ridge point): below 1 the work is memory-bound on the whole GPU
 * (class memory or mixed), and past 1e6 the memory share could never limit it. */
#define SCN_MIN_INTENSITY 1.0
#define SCN_MAX_INTENSITY 1e6
/* work.host_fraction: at 1 the work would not need the GPU at all. */
#define SCN_MAX_HOST_FRACTION 0.99
#define SCN_MIN_RATE_PER_S 1e-9
#define SCN_MAX_RATE_PER_S 1e9
#define SCN_MIN_TIME_SCALE 1e-6
#define SCN_MAX_TIME_SCALE 1e6
/* Mean arrivals per MMPP state visit (sum of rate x dwell over the states / their number): below
 * this the chain would change state over a million times per arrival. */
#define SCN_MMPP_MIN_ARRIVALS_PER_VISIT 1e-6
/* Requests in the system (waiting or in service, all tenants) at which a run stops, unless the
 * scenario sets limits.in_system: a queue that grows without bound (an unstable strategy)
 * would otherwise exhaust memory, about 40 bytes a request. */
#define SCN_DEFAULT_IN_SYSTEM 10000000L
#define SCN_MAX_IN_SYSTEM 1000000000L

enum arr_kind {
    ARR_POISSON,
    ARR_DETERMINISTIC,
    ARR_GAMMA,
    ARR_MMPP,
    ARR_DIURNAL,
    ARR_TRACE,
    ARR_SATURATED,
    ARR_CLOSED /* N users in a loop: send, wait for the end, think, send (core/closed.h) */
};
/* WORK_LLM: an LLM tenant's work is its engine's steps (docs/llm.md); a request carries tokens. */
enum work_kind {
    WORK_EXPONENTIAL,
    WORK_DETERMINISTIC,
    WORK_LOGNORMAL,
    WORK_TOKENS,
    WORK_TRACE,
    WORK_LLM
};
enum work_class { CLASS_COMPUTE, CLASS_MEMORY, CLASS_MIXED };

struct arrival_cfg {
    enum arr_kind kind;
    double rate_per_s; /* poisson, deterministic, gamma; mean rate for diurnal */
    double cv;         /* gamma */
    int n_states;      /* mmpp */
    double state_rate_per_s[SCN_MAX_MMPP];
    double state_dwell_s[SCN_MAX_MMPP];
    double amplitude; /* diurnal: rate(t) = rate (1 + amplitude sin(2π (t/period + phase))) */
    double period_s;
    double phase;
    /* closed: users, mean think time (s) and whether it is exponential (else deterministic) */
    long users;
    double think_s;
    int think_exp;
    /* trace: path resolved relative to the scenario file; opts as in trace.h */
    char *trace_path;
    enum tr_format trace_format;
    struct tr_opts trace_opts;
    /* Measured at load by one streaming pass over the whole trace (ten_trace_check), so a run
     * never meets a bad row and the analytic pre-checks know the trace's figures. */
    long trace_count;         /* records replayed (after limit) */
    double trace_first_s;     /* first arrival (after time_scale) */
    double trace_last_s;      /* last arrival (after time_scale) */
    double trace_rate_per_s;  /* (count - 1) / (last - first); NaN if undefined */
    double trace_ia_scv;      /* squared CV of the gaps; NaN with < 2 gaps */
    double trace_work_mean_s; /* tokens/trace work: mean; NaN for drawn work */
    double trace_work_scv;    /* idem: squared CV */
};

struct work_cfg {
    enum work_kind kind;
    double mean_s; /* exponential, lognormal; deterministic value */
    double cv;     /* lognormal */
    double prefill_s_per_token;
    double decode_s_per_token;
    /* Occupancy (docs/scenario.md#work): the largest fraction of the whole GPU's SMs one
     * request keeps busy, (0, 1], default 1; and how many of the tenant's requests its server
     * runs at once (they share the tenant's share), default 1. */
    double max_sm_fraction;
    int concurrency;
    /* docs/mig.md#work-that-does-not-fill-a-gpu (core/scaling.h): a compute-class request's
     * arithmetic intensity over the GPU's ridge point (0: not given, its memory share never
     * limits it), and the part of its time that no share of the GPU shortens (0: none). */
    double intensity;
    double host_fraction;
    /* "preset" (core/preset.h): the class and compute share it names, which the tenant's
     * own "class" and "compute_share" override; preset_class < 0: no preset. */
    int preset_class;
    double preset_compute_share;
    /* Registers and shared memory its kernels hold, saved and restored at a time-slice
     * switch; < 0: the profile's context_state_mb. */
    double context_state_mb;
};

struct tenant_cfg {
    char name[SCN_NAME_MAX];
    struct arrival_cfg arrival;
    struct work_cfg work;
    struct lsv_cfg *llm; /* an LLM service (docs/llm.md): its engine; NULL for other tenants */
    enum work_class wclass;
    double compute_share; /* mixed: fraction of the work that is compute-bound */
    double memory_gb;
    double sla_p99_s; /* <= 0: no p99 target */
    /* The rest of "sla" (core/verdict.h): whether the object is given at all, a batch tenant's
     * throughput floor (<= 0: none), and the fraction of measured arrivals that may be rejected
     * or fail (0: none may). An LLM tenant's TTFT and TPOT targets are in its llm. */
    struct {
        int set;
        double min_throughput_per_s, max_lost_fraction;
    } sla;
    double weight;
    double fault_rate_per_h;
    long queue_limit; /* waiting requests beyond this are rejected; 0 = unlimited */
    double startup_s; /* a process's start until it serves (the model load), default 0 */
    double restart_s; /* an OOM-killed process's restart until it serves; default startup_s */
    /* memory_growth: the footprint grows by growth_gb at growth_at_s for growth_for_s
     * (growth_gb 0: none), e.g. a KV cache filling up under a burst. */
    double growth_at_s, growth_gb, growth_for_s;
    /* "k8s": the Deployment or StatefulSet and container that run it (core/k8sid.h), for the
     * artefacts of `plan --k8s`; nothing else reads it. */
    struct ki_workload k8s;
};

struct policy_ops;
struct strategy_cfg {
    char name[SCN_NAME_MAX];
    const struct policy_ops *ops;
    void *cfg; /* the policy's parsed parameters, owned by the policy */
};

struct scenario {
    char name[SCN_NAME_MAX];
    char *path;
    struct gpu_profile gpu;
    int gpus;
    uint64_t seed;
    long stop_requests;     /* 0 = not set */
    double stop_duration_s; /* 0 = not set */
    int drain;              /* after the stop, finish the requests in flight (default true) */
    long warmup_requests;
    double warmup_duration_s;
    int replications;
    int n_tenants;
    struct tenant_cfg *tenants;
    int n_strategies;
    struct strategy_cfg *strategies;
    double gpu_hour_usd; /* < 0: unknown */
    double vgpu_license_usd_per_vgpu_year;
    double power_usd_per_kwh;    /* 0 = power not billed separately */
    double gpu_fault_rate_per_h; /* card faults per GPU and hour (gpufault.h); 0 = none */
    long max_in_system;          /* limits.in_system; <= 0 means SCN_DEFAULT_IN_SYSTEM */
    struct ki_plan k8s;          /* "k8s": the nodes a plan configures (core/k8sid.h) */
    cJSON *json;                 /* the parsed document, kept for policies and sweeps */
    /* Tenant names → indices, an open-addressing hash table of name_slots entries (-1 =
     * empty), so a name lookup (every "assign", "tenants" list of every strategy) is O(1), not
     * O(tenants). NULL (a scenario built by hand): scn_tenant_index searches. */
    int *name_hash;
    int name_slots;
};

/* Loads and validates a scenario file. On error fills err and returns -1. */
int scn_load(const char *path, struct scenario *sc, char *err, size_t errlen);
/* Same from text already in memory (file is used in messages). */
int scn_load_text(const char *file, const char *text, size_t len, struct scenario *sc, char *err,
                  size_t errlen);
/* Flags: SCN_IGNORE_STRATEGIES skips the "strategies" (absent or not), for the
 * planner, which makes its own. */
#define SCN_IGNORE_STRATEGIES 1u
/* SCN_TP_AUTO accepts "tensor_parallel": "auto" (the planner chooses the degree); without it
 * the loader refuses it at its path. */
#define SCN_TP_AUTO 2u
int scn_load_flags(const char *path, unsigned flags, struct scenario *sc, char *err, size_t errlen);
int scn_load_text_flags(const char *file, const char *text, size_t len, unsigned flags,
                        struct scenario *sc, char *err, size_t errlen);
void scn_free(struct scenario *sc);

/*
 * The bounds that follow from the clock (above) on the values a run uses: every tenant's rates,
 * MMPP dwells, diurnal period, trace time_scale and last arrival, and stop.requests against the
 * total mean rate. The loader calls it; so does ls_scale_load after scaling (load_scale is
 * then named in the message; 1 otherwise). 0, or -1 with "FILE: tenants[i].arrival.…: …".
 */
int scn_check_clock(const struct scenario *sc, double load_scale, char *err, size_t errlen);

/*
 * Parses one request stream — an "arrival" and a "work" object — into t (name left alone), with
 * the cross-checks of a tenant (tokens/trace work need trace arrivals with those columns) and,
 * for trace arrivals, the load-time pass over the trace. A relative trace path is resolved
 * against the directory of `file`; messages are "<file>: <arrival_path>…: …". Used by
 * `sharesim trace gen --arrival/--work`. Release with scn_tenant_free().
 */
int scn_parse_stream(const char *file, const cJSON *arrival, const char *arrival_path,
                     const cJSON *work, const char *work_path, struct tenant_cfg *t, char *err,
                     size_t errlen);
void scn_tenant_free(struct tenant_cfg *t);

/* Index of a tenant by name, or -1. */
int scn_tenant_index(const struct scenario *sc, const char *name);

/* Human name of a work class / arrival kind. */
const char *scn_class_name(enum work_class c);

#endif
