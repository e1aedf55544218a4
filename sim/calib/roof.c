/*
 * roof — roofline facts of a GPU profile (roof.h). Kept out of calib.c so the keys of LLM
 * serving live in one file: calib.c calls roof_parse() once and stores the result.
 */
#include "calib/roof.h"

#include "base/util.h"

#include <math.h>
#include <string.h>

const char *const roof_dtype_names[] = {"fp16", "bf16", "fp8", "int8", "int4", NULL};

double roof_dtype_bytes(enum roof_dtype d)
{
    static const double bytes[RD_N] = {2, 2, 1, 1, 0.5};
    if ((unsigned)d >= RD_N)
        SS_FATAL("data type %d out of range", (int)d);
    return bytes[d];
}

/* An optional number in [lo, hi] under key.value (lo 0: in (0, hi]; zero_ok: [0, hi]): 1 absent,
 * 0 read, -1 bad. */
static int opt_num_z(const char *path, const cJSON *root, const char *key, double lo, double hi,
                     int zero_ok, double *out, char *err, size_t errlen)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!it)
        return 1;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "value");
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi || (lo == 0 && !zero_ok && v->valuedouble <= 0))
        return ss_errf(err, errlen, "%s: \"%s.value\": expected a number in %c%g, %g]", path, key,
                       zero_ok ? '[' : '(', lo, hi);
    *out = v->valuedouble;
    return 0;
}

static int opt_num(const char *path, const cJSON *root, const char *key, double lo, double hi,
                   double *out, char *err, size_t errlen)
{
    return opt_num_z(path, root, key, lo, hi, 0, out, err, errlen);
}

static int opt_nonneg(const char *path, const cJSON *root, const char *key, double hi, double *out,
                      char *err, size_t errlen)
{
    return opt_num_z(path, root, key, 0, hi, 1, out, err, errlen);
}

int roof_parse(const char *path, const cJSON *root, struct gpu_roof *r, char *err, size_t errlen)
{
    /* int4 has no key: no datasheet of these GPUs lists a dense int4 peak for serving, and
     * int4 serving formats are weight-only (roof.h). */
    static const char *const peak_keys[RD_N] = {"dense_tflops_fp16", "dense_tflops_bf16",
                                                "dense_tflops_fp8", "dense_tflops_int8", NULL};
    memset(r, 0, sizeof *r);
    for (int d = 0; d < RD_N; d++) {
        double tf;
        if (!peak_keys[d])
            continue;
        int rc = opt_num(path, root, peak_keys[d], 0, 1e6, &tf, err, errlen);
        if (rc < 0)
            return -1;
        if (rc == 0)
            r->peak_flops[d] = tf * 1e12;
    }
    if (opt_num(path, root, "llm_compute_efficiency", 0, 1, &r->compute_eff, err, errlen) < 0 ||
        opt_num(path, root, "llm_bandwidth_efficiency", 0, 1, &r->bandwidth_eff, err, errlen) < 0)
        return -1;
    struct gpu_llm_kernels *k = &r->k;
    double fixed_us = 0;
    if (opt_num(path, root, "llm_gemm_efficiency", 0, 1, &k->gemm_eff, err, errlen) < 0 ||
        opt_nonneg(path, root, "llm_gemm_half_tokens", 1e6, &k->gemm_half_tokens, err, errlen) <
            0 ||
        opt_num(path, root, "llm_weight_bandwidth_efficiency", 0, 1, &k->weight_bw_eff, err,
                errlen) < 0 ||
        opt_num(path, root, "llm_kv_bandwidth_efficiency", 0, 1, &k->kv_bw_eff, err, errlen) < 0 ||
        opt_num(path, root, "llm_attention_efficiency", 0, 1, &k->attn_eff, err, errlen) < 0 ||
        opt_nonneg(path, root, "llm_attention_half_context", 1e7, &k->attn_half_context, err,
                   errlen) < 0 ||
        opt_nonneg(path, root, "llm_layer_fixed_us", 1e4, &fixed_us, err, errlen) < 0)
        return -1;
    k->layer_fixed_s = fixed_us * 1e-6;
    return 0;
}

void roof_kernels(const struct gpu_roof *r, struct gpu_llm_kernels *out)
{
    *out = r->k;
    if (!(out->gemm_eff > 0))
        out->gemm_eff = r->compute_eff;
    if (!(out->attn_eff > 0))
        out->attn_eff = r->compute_eff;
    if (!(out->weight_bw_eff > 0))
        out->weight_bw_eff = r->bandwidth_eff;
    if (!(out->kv_bw_eff > 0))
        out->kv_bw_eff = r->bandwidth_eff;
}

double roof_peak_flops(const struct gpu_roof *r, enum roof_dtype d)
{
    if (r->peak_flops[d] > 0)
        return r->peak_flops[d];
    if (d == RD_FP8 || d == RD_INT4)
        return r->peak_flops[RD_FP16];
    return 0;
}
