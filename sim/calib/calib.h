/*
 * calib — GPU calibration profiles (kernels/profiles/<gpu>.json).
 *
 * Schema "sharesim-profile/1": a JSON object with the meta keys
 *   "schema", "name", "aliases" (array of strings), "device", "measured" (bool), "notes",
 *   "family" (opt: a name several variants share, "H100"), "family_default" (opt, bool: the
 *     variant a lookup by the family name loads; one per family)
 * and every other key a value object {"value": …, "source": "…", "confidence": "…"}.
 * A value without a non-empty source is rejected at load: nothing in a profile is
 * unsourced. Units are in the key names; the loader converts to seconds.
 *
 * Keys (required unless marked optional):
 *   total_sms, memory_gb, hbm_bw_gbps, timeslice_us, switch_us,
 *   vgpu_slice_ms_le8, vgpu_slice_ms_gt8, vgpu_switch_us, mps_max_clients,
 *   mps_max_clients_cuda13_1 (opt), mps_recovery_s, mig_create_s,
 *   rate_compute_exponent, rate_memory_exponent,
 *   gpu_hour_usd (opt), power_kw (opt),
 *   mem_bw_sm_curve (opt): [{"sms", "bw_fraction"}, …] — the memory bandwidth (fraction of
 *     the GPU's) that `sms` SMs can pull, increasing sms, the last point all SMs at 1;
 *     without it bandwidth is never limited by the SMs in use,
 *   mem_bw_knee_sm_fraction (opt): the SM fraction with which a streaming kernel fills the bus,
 *   mps_bw_contention_loss (opt, default 0), gpu_reset_s (opt, default 0),
 *   timeslice_refill_us (opt, default 0): the warm-up after a time-slice switch,
 *   ctx_switch_gbps, context_state_mb (opt; without them a switch costs switch_us alone),
 *   vgpu_types (opt): [{"name", "fb_gb", "max_per_gpu"}] — the time-sliced vGPU types,
 *   vgpu_overhead_compute, vgpu_overhead_memory (opt, default 0): the speed a time-sliced
 *     vGPU loses to the hypervisor, by class,
 *   mig_sms_7g (opt), mig_compute_slices (opt), mig_memory_slices (opt), mig_profiles (opt):
 *     [{"name", "compute_slices", "memory_slices", "sm_count", "memory_gb",
 *       "max_instances", "starts": [..], "size"}]   (size/starts in memory slices)
 *   dense_tflops_* and llm_*_efficiency (opt): calib/roof.h
 *   interconnect (opt): {"kind", "gbps_per_gpu", "domain_gpus", "pcie", "pcie_gbps_per_gpu"} —
 *     the GPU-to-GPU link (kind nvlink3/nvlink4/nvlink5/pcie4/pcie5/pcie6, NVIDIA's
 *     bidirectional GB/s per GPU, how many GPUs it joins) and the host link behind it
 * Any value object may carry "range": [lo, hi] (calib/vrange.h), checked at load: a number's
 * plausible span by its sources, which `plan` reruns at (docs/calibration.md#ranges).
 * Unknown keys are kept (profiles written by kernels/ may carry extra measured values)
 * but must still be value objects with a source.
 */
#ifndef SS_CALIB_H
#define SS_CALIB_H

#include "calib/roof.h"

#include "base/name.h"

#include <stddef.h>

#define CAL_MAX_MIG 16
#define CAL_MAX_STARTS 8
#define CAL_MAX_CURVE 32
#define CAL_MAX_VGPU 16
#define CAL_MAX_LINK_DOMAIN 576 /* GPUs one NVLink domain may join (NVL576 racks) */
#define CAL_NOTE_LEN 512

/* The GPU-to-GPU link (interconnect): kind[0] == 0 when the profile has none. */
struct gpu_link {
    char kind[16];    /* "nvlink4", "pcie5", … */
    double gbps;      /* bidirectional GB/s per GPU, as NVIDIA quotes it */
    int domain_gpus;  /* GPUs joined at that bandwidth (1: none beyond PCIe) */
    char pcie[16];    /* the host link, "pcie4" or "pcie5" */
    double pcie_gbps; /* its bidirectional GB/s */
};

/* A time-sliced vGPU type (VGPU_UG): its frame buffer and how many fit one GPU. */
struct vgpu_type {
    char name[NAME_MAX_BYTES + 1];
    double fb_gb;
    int max_per_gpu;
};

struct mig_profile {
    char name[NAME_MAX_BYTES + 1];
    int compute_slices;
    int memory_slices;
    int sm_count;
    int max_instances;
    double memory_gb;
    int n_starts;
    int starts[CAL_MAX_STARTS]; /* legal start positions, memory-slice units */
    int size;                   /* memory slices occupied */
};

struct gpu_profile {
    char name[NAME_MAX_BYTES + 1];
    char path[512]; /* file the profile came from */
    int measured;
    struct gpu_roof roof; /* LLM serving: dense peaks and efficiencies (calib/roof.h) */
    int total_sms;
    double memory_gb;
    double hbm_bw_gbps;
    double timeslice_s;      /* driver default per-context time slice */
    double switch_s;         /* a context switch's base cost, no work done (switch_us) */
    double ctx_switch_bps;   /* bytes/s at which a switch saves and restores contexts' state */
    double context_state_mb; /* default state of a context (work.context_state_mb) */
    double vgpu_slice_le8_s;
    double vgpu_slice_gt8_s;
    double vgpu_switch_s;
    int mps_max_clients;
    int mps_max_clients_cuda13_1;
    double mps_recovery_s;
    double mig_create_s;          /* time to create a MIG instance (no public measurement) */
    double gpu_reset_s;           /* a card fault's outage (gpu_reset_s, optional, default 0) */
    double rate_compute_exponent; /* speed = share^exponent for compute-class work */
    double rate_memory_exponent;  /* speed = share^exponent for memory-class work */
    /* Achievable bandwidth against SMs in use (mem_bw_sm_curve): n points (sm fraction,
     * bandwidth fraction), increasing, the last (1, 1); n = 0: SMs never limit bandwidth. */
    int n_bw_curve;
    double bw_curve_sm[CAL_MAX_CURVE], bw_curve_bw[CAL_MAX_CURVE];
    double mps_bw_loss; /* mps_bw_contention_loss: default of the MPS co-run loss */
    /* mem_bw_knee_sm_fraction (opt, 0: none): a streaming kernel on this fraction of the SMs
     * or more pulls the whole bandwidth; below it, f / knee (rate_bw_curve takes the larger of
     * that and mem_bw_sm_curve). */
    double bw_knee_sm;
    /* timeslice_refill_us (opt, 0: none): after a time-slice switch, the time the incoming
     * context runs without progress while caches, TLB and pipeline refill, for a context of
     * the default context_state_mb (cal_refill_s scales it). */
    double ts_refill_s;
    int n_vgpu_types;
    struct vgpu_type vgpu_types[CAL_MAX_VGPU];
    double vgpu_overhead_compute, vgpu_overhead_memory; /* time-sliced vGPU speed lost */
    double gpu_hour_usd;                                /* < 0 when the profile has none */
    double power_kw;                                    /* < 0 when the profile has none */
    struct gpu_link link;
    /* Set when the profile was loaded by a family name ("H100"): which variant was chosen. */
    char family_note[CAL_NOTE_LEN];
    int mig_sms_7g;
    int mig_compute_slices;
    int mig_memory_slices;
    int n_mig;
    struct mig_profile mig[CAL_MAX_MIG];
};

/* A time-slice switch from a context holding state_out_mb to one holding state_in_mb: the base
 * cost plus both states over the save/restore bandwidth (docs/scenario.md#timeslice). */
/* The refill after a switch into a context holding state_in_mb, refill_s being a default-state
 * context's (the profile's ts_refill_s, or a strategy's refill_us): refill_s × state_in_mb /
 * context_state_mb (refill_s itself when the profile has no default state; 0 for 0). */
double cal_refill_s(const struct gpu_profile *p, double refill_s, double state_in_mb);
double cal_switch_s(const struct gpu_profile *p, double base_s, double state_out_mb,
                    double state_in_mb);

/* Directory holding the shipped profiles; overridable with $SHARESIM_PROFILES. */
const char *cal_profile_dir(void);

/*
 * Loads a profile by GPU name or alias (case-insensitive, looked up in
 * cal_profile_dir()) or by path (anything containing '/' or ending in .json). A family name
 * ("H100") that is no profile's name or alias loads the family's default variant, says so in
 * out->family_note and, once per process and family, on stderr.
 */
int cal_load(const char *name_or_path, struct gpu_profile *out, char *err, size_t errlen);
int cal_load_file(const char *path, struct gpu_profile *out, char *err, size_t errlen);

/*
 * While set, every profile loaded reads key's "value" as value (a profile without the key is
 * unchanged), and the load cache is bypassed; NULL clears it. For the planner's sensitivity
 * reruns (tools/plansens.h), which must reload the scenario because strategies take their
 * defaults from the profile as they load. Not thread-safe: the planner runs one at a time.
 */
void cal_set_override(const char *key, double value);
/* 1 with *value when key is the override's (the engine table, llm/enginetime.c, asks for
 * "FRAMEWORK.KEY"), else 0 and *value unchanged. */
int cal_get_override(const char *key, double *value);

/* The MIG profile with this name, or NULL. */
const struct mig_profile *cal_mig_find(const struct gpu_profile *p, const char *name);
/* The vGPU type with this name (case-insensitive), or NULL. */
const struct vgpu_type *cal_vgpu_type(const struct gpu_profile *p, const char *name);
/* The vGPU type whose frame buffer is fb_gb, or NULL. */
const struct vgpu_type *cal_vgpu_type_fb(const struct gpu_profile *p, double fb_gb);

#endif
