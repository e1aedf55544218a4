/*
 * roofline — the time of one serving step (docs/llm.md#step-time).
 *
 * A step runs the model once over a batch: for each sequence in it, n_new tokens after `past`
 * tokens already in its KV cache (a prefill chunk, or one decode token). Its cost is
 *   FLOPs = 2 × params × Σ n_new                                  (every weight, multiply-add)
 *         + 4 × layers × heads × head_dim × Σ attended pairs      (QKᵀ and AV)
 *   bytes = weights + kv_bytes_per_token × Σ (past + n_new)       (weights once per step, the
 *                                                                  KV each sequence attends to)
 * where a sequence's attended pairs are Σ_{i=1..n_new} (past + i) (causal attention). Its
 * time on a share of the GPU is the roofline
 *   max(FLOPs / (peak × sm_share × compute_eff), bytes / (bw × bw_share × bandwidth_eff))
 *   + overhead
 * — the step is as slow as the slower of its two resources, and the overhead (launches, the
 * engine's scheduling and sampling on the CPU) does not scale with the share. Activations,
 * the KV writes and the logits are left out: at serving sizes they are small beside the
 * weights and the KV reads (docs/llm.md#assumptions).
 */
#ifndef SS_LLM_ROOFLINE_H
#define SS_LLM_ROOFLINE_H

#include "llm/model.h"

/* What the roofline needs of a model in its serving data types. */
struct rf_model {
    double params;
    double weight_bytes;
    double kv_bytes_per_token;
    double attn_flops_per_pair; /* 4 × layers × heads × head_dim */
};

/* What it needs of the GPU (the whole GPU; shares apply at rf_time_s). */
struct rf_gpu {
    double peak_flops;     /* FLOP/s at the weights' data type (roof_peak_flops) */
    double bw_bytes_per_s; /* hbm_bw_gbps × 1e9 */
    double compute_eff, bandwidth_eff;
};

struct rf_cost {
    double flops, bytes;
};

void rf_model_init(struct rf_model *r, const struct lm_model *m, enum roof_dtype weights,
                   enum roof_dtype kv);
void rf_gpu_init(struct rf_gpu *g, const struct gpu_roof *roof, double hbm_bw_gbps,
                 enum roof_dtype weights);

/* A step's cost starts with the weights, read once; then each sequence adds its part. */
void rf_cost_start(const struct rf_model *r, struct rf_cost *c);
void rf_cost_add(const struct rf_model *r, struct rf_cost *c, long past, long n_new);

/* The step's time in seconds on sm_share of the SMs and bw_share of the bandwidth, both in
 * (0, 1], plus overhead_s. */
double rf_time_s(const struct rf_gpu *g, const struct rf_cost *c, double sm_share, double bw_share,
                 double overhead_s);

/* Its two parts on the whole GPU, in seconds: compute tc = FLOPs / (peak × compute_eff) and
 * memory tm = bytes / (bandwidth × bandwidth_eff); rf_time_s is max(tc / sm, tm / bw) + overhead.
 */
void rf_parts_s(const struct rf_gpu *g, const struct rf_cost *c, double *tc, double *tm);

#endif
