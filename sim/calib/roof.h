/*
 * roof — the roofline facts of a GPU profile that LLM serving needs (docs/llm.md): dense
 * tensor-core peaks per data type and the fractions of the peaks a real step reaches.
 *
 * Profile keys, all optional (a profile without them serves no LLM tenant, and the loader of
 * such a tenant says which key is missing):
 *   dense_tflops_fp16, dense_tflops_bf16, dense_tflops_fp8, dense_tflops_int8 — dense
 *     (no structured sparsity) tensor-core peaks from the datasheets, in 10¹² operations/s;
 *   llm_compute_efficiency, llm_bandwidth_efficiency — in (0, 1]: the fraction of the peak
 *     FLOP/s and of hbm_bw_gbps a serving step reaches, calibration values with a confidence.
 * The bandwidth itself is the profile's hbm_bw_gbps.
 *
 * The engine step model's kernel figures (llm/stepmodel.h; docs/llm.md#efficiencies), also
 * optional, each defaulting to the roofline's value it refines:
 *   llm_gemm_efficiency (default llm_compute_efficiency) and llm_gemm_half_tokens (0): a
 *     linear layer of M tokens runs at gemm_efficiency × M / (M + half) of the dense peak;
 *   llm_weight_bandwidth_efficiency, llm_kv_bandwidth_efficiency (llm_bandwidth_efficiency):
 *     the fraction of hbm_bw_gbps weight reads and attention's KV reads reach;
 *   llm_attention_efficiency (llm_compute_efficiency) and llm_attention_half_context (0):
 *     attention over a context of c tokens runs at efficiency × c / (c + half) of the peak;
 *   llm_layer_fixed_us (0): time the small kernels of one layer take whatever the step's size.
 *
 * Data types are a GPU fact as much as a model's: what a weight costs in bytes and which peak
 * its matrix products run at. fp8 on a GPU without fp8 tensor cores (A100), and int4
 * everywhere, are weight-only formats: the weights are stored narrow and the products run at
 * the fp16 peak, as weight-only kernels dequantise to fp16 (docs/llm.md#data-types).
 */
#ifndef SS_ROOF_H
#define SS_ROOF_H

#include <cJSON.h>
#include <stddef.h>

enum roof_dtype { RD_FP16, RD_BF16, RD_FP8, RD_INT8, RD_INT4, RD_N };

/* The engine step model's figures; 0 where the profile has none (roof_kernels resolves). */
struct gpu_llm_kernels {
    double gemm_eff, gemm_half_tokens;
    double weight_bw_eff, kv_bw_eff;
    double attn_eff, attn_half_context;
    double layer_fixed_s;
};

struct gpu_roof {
    double peak_flops[RD_N]; /* dense peak per data type, FLOP/s; 0 where the GPU has none */
    double compute_eff;      /* llm_compute_efficiency; 0 when the profile has none */
    double bandwidth_eff;    /* llm_bandwidth_efficiency; 0 when the profile has none */
    struct gpu_llm_kernels k;
};

/* "fp16", "bf16", "fp8", "int8", "int4"; NULL-terminated, in enum order (for jv_enum). */
extern const char *const roof_dtype_names[];
/* Bytes one element of the data type occupies (int4: 0.5). */
double roof_dtype_bytes(enum roof_dtype d);

/*
 * Reads the keys above from a profile document whose value objects were already checked
 * (calib.c); path names the file in messages. 0, or -1 with a message (a value out of range).
 */
int roof_parse(const char *path, const cJSON *root, struct gpu_roof *r, char *err, size_t errlen);

/*
 * The peak a step of weights in data type d runs at (FLOP/s): the type's own peak, or the
 * fp16 peak for a weight-only format (above). 0 when the profile has neither.
 */
double roof_peak_flops(const struct gpu_roof *r, enum roof_dtype d);

/* The engine model's figures with each absent one replaced by the roofline value it refines. */
void roof_kernels(const struct gpu_roof *r, struct gpu_llm_kernels *out);

#endif
