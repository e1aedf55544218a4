/*
 * roof — roofline facts of a GPU profile (roof.h). Kept out of calib.c so the keys of LLM
 * serving live in one file: calib.c calls roof_parse() once and stores the result.
 */
#include "calib/roof.h"

#include "base/util.h"

#include <math.h>

const char *const roof_dtype_names[] = {"fp16", "bf16", "fp8", "int8", "int4", NULL};

double roof_dtype_bytes(enum roof_dtype d)
{
    static const double bytes[RD_N] = {2, 2, 1, 1, 0.5};
    if ((unsigned)d >= RD_N)
        SS_FATAL("data type %d out of range", (int)d);
    return bytes[d];
}

/* An optional number in [lo, hi] under key.value: 1 absent, 0 read, -1 bad. */
static int opt_num(const char *path, const cJSON *root, const char *key, double lo, double hi,
                   double *out, char *err, size_t errlen)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!it)
        return 1;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "value");
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi || (lo == 0 && v->valuedouble <= 0))
        return ss_errf(err, errlen, "%s: \"%s.value\": expected a number in (%g, %g]", path, key,
                       lo, hi);
    *out = v->valuedouble;
    return 0;
}

int roof_parse(const char *path, const cJSON *root, struct gpu_roof *r, char *err, size_t errlen)
{
    /* int4 has no key: no datasheet of these GPUs lists a dense int4 peak for serving, and
     * int4 serving formats are weight-only (roof.h). */
    static const char *const peak_keys[RD_N] = {"dense_tflops_fp16", "dense_tflops_bf16",
                                                "dense_tflops_fp8", "dense_tflops_int8", NULL};
    *r = (struct gpu_roof){{0}, 0, 0};
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
    return 0;
}

double roof_peak_flops(const struct gpu_roof *r, enum roof_dtype d)
{
    if (r->peak_flops[d] > 0)
        return r->peak_flops[d];
    if (d == RD_FP8 || d == RD_INT4)
        return r->peak_flops[RD_FP16];
    return 0;
}
