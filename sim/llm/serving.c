/*
 * serving — an LLM tenant's engine configuration and KV capacity (serving.h).
 */
#include "llm/serving.h"
#include "llm/routecfg.h"

#include "base/util.h"
#include "llm/tp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int parse_model(const struct jv *j, const cJSON *obj, const char *path,
                       const char *table_path, struct lm_model *m)
{
    char p[512];
    jv_path_key(p, sizeof p, path, "model");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "model");
    if (!v)
        return jv_fail(j, p, "missing (expected a model name or an object {\"params\", …})");
    if (cJSON_IsObject(v))
        return lm_parse(j, v, p, 0, m);
    if (!cJSON_IsString(v))
        return jv_fail(j, p, "expected a model name or an object {\"params\", …}");
    char msg[SS_ERRLEN];
    if (lm_find(table_path, v->valuestring, m, msg, sizeof msg))
        return jv_fail(j, p, "%s", msg);
    return 0;
}

int lsv_parse(const struct jv *j, const cJSON *obj, const char *path, const char *table_path,
              struct lsv_cfg *c)
{
    static const char *const keys[] = {"engine",
                                       "model",
                                       "dtype",
                                       "kv_dtype",
                                       "max_num_seqs",
                                       "max_batched_tokens",
                                       "chunked_prefill",
                                       "prefill_first",
                                       "guaranteed_no_evict",
                                       "prefix_caching",
                                       "enforce_eager",
                                       "step_overhead_ms",
                                       "block_size",
                                       "gpu_memory_utilization",
                                       "activation_reserve_gb",
                                       "step_model",
                                       "framework",
                                       "cpu_step_ms",
                                       "cpu_per_seq_ms",
                                       "frontend_ms",
                                       "frontend_serial_ms",
                                       "gemm_tflops_max",
                                       "small_kernels_fused",
                                       "overlap_cpu",
                                       "tensor_parallel",
                                       "router",
                                       NULL};
    static const char *const engines[] = {"llm", NULL};
    int engine, dt = RD_FP16, kv = -1;
    if (!cJSON_IsObject(obj))
        return jv_fail(j, path, "expected an object {\"engine\": \"llm\", \"model\": …}");
    memset(c, 0, sizeof *c);
    if (jv_object(j, obj, path, keys) || jv_enum(j, obj, path, "engine", 1, engines, &engine) ||
        parse_model(j, obj, path, table_path, &c->model) ||
        jv_enum(j, obj, path, "dtype", 0, roof_dtype_names, &dt) < 0 ||
        jv_enum(j, obj, path, "kv_dtype", 0, roof_dtype_names, &kv) < 0)
        return -1;
    c->dtype = (enum roof_dtype)dt;
    /* vLLM's kv_cache_dtype "auto" is the activations' type; weight-only and W8A8 formats
     * keep 16-bit activations. */
    c->kv_dtype = kv >= 0 ? (enum roof_dtype)kv : c->dtype == RD_BF16 ? RD_BF16 : RD_FP16;
    if (c->kv_dtype == RD_INT4) {
        char p[512];
        return jv_fail(j, jv_path_key(p, sizeof p, path, "kv_dtype"),
                       "expected fp16, bf16, fp8 or int8 (no engine keeps a 4-bit KV cache)");
    }
    long seqs = 0, bs = 16;
    double ms = 0;
    c->max_batched_tokens = 0;
    c->chunked_prefill = 1;
    c->prefix_caching = 1;
    c->gpu_memory_utilization = 0.9;
    c->activation_reserve_gb = -1;
    int rs, rt, rc, rp, rn;
    if ((rs = jv_int(j, obj, path, "max_num_seqs", 0, 1, 65536, &seqs)) < 0 ||
        (rt = jv_int(j, obj, path, "max_batched_tokens", 0, 1, 10000000, &c->max_batched_tokens)) <
            0 ||
        (rc = jv_bool(j, obj, path, "chunked_prefill", 0, &c->chunked_prefill)) < 0 ||
        (rp = jv_bool(j, obj, path, "prefill_first", 0, &c->prefill_first)) < 0 ||
        (rn = jv_bool(j, obj, path, "guaranteed_no_evict", 0, &c->no_evict)) < 0 ||
        jv_bool(j, obj, path, "prefix_caching", 0, &c->prefix_caching) < 0 ||
        jv_bool(j, obj, path, "enforce_eager", 0, &c->enforce_eager) < 0 ||
        jv_num(j, obj, path, "step_overhead_ms", 0, 0, 1e6, &ms) < 0 ||
        jv_int(j, obj, path, "block_size", 0, 1, 4096, &bs) < 0 ||
        jv_num_gt(j, obj, path, "gpu_memory_utilization", 0, 0, 1, &c->gpu_memory_utilization) <
            0 ||
        jv_num(j, obj, path, "activation_reserve_gb", 0, 0, 1e5, &c->activation_reserve_gb) < 0)
        return -1;
    long tp = 1;
    const cJSON *tpv = cJSON_GetObjectItemCaseSensitive(obj, "tensor_parallel");
    if (cJSON_IsString(tpv)) {
        char p[512];
        if (strcmp(tpv->valuestring, "auto") != 0)
            return jv_fail(j, jv_path_key(p, sizeof p, path, "tensor_parallel"),
                           "expected 1, 2, 4, %d or \"auto\" (sharesim plan chooses), not \"%s\"",
                           TP_MAX, tpv->valuestring);
        c->tp_auto = 1;
    } else if (jv_int(j, obj, path, "tensor_parallel", 0, 1, TP_MAX, &tp) < 0) {
        return -1;
    }
    c->tensor_parallel = (int)tp;
    c->max_num_seqs = (int)seqs;
    c->block_size = (int)bs;
    c->step_overhead_s = ms * 1e-3;
    if (etm_parse(j, obj, path, NULL, &c->etm) || lrt_parse(j, obj, path, &c->router))
        return -1;
    if (c->tensor_parallel > 1) {
        char p[512], msg[SS_ERRLEN];
        jv_path_key(p, sizeof p, path, "tensor_parallel");
        if (tp_check_model(&c->model, c->tensor_parallel, msg, sizeof msg))
            return jv_fail(j, p, "%s", msg);
        if (c->etm.kind != STM_ENGINE)
            return jv_fail(j, p,
                           "tensor_parallel %d needs \"step_model\": \"engine\" (the roofline "
                           "model has no all-reduce)",
                           c->tensor_parallel);
    }
    /* The framework's own scheduler defaults (the engine table) come before vLLM's per-device
     * ones; a key the scenario sets wins over both. */
    if (rs == 1 && c->etm.max_num_seqs > 0)
        c->max_num_seqs = (int)c->etm.max_num_seqs, rs = 0;
    if (rt == 1 && c->etm.max_batched_tokens > 0)
        c->max_batched_tokens = c->etm.max_batched_tokens, rt = 0;
    if (rc == 1 && c->etm.chunked_prefill >= 0)
        c->chunked_prefill = c->etm.chunked_prefill;
    /* Without chunking, the old model's scheduler is vLLM V0's (prefill-only steps); the
     * engine model's is its framework's, vLLM V1's by default (prompts join the decodes). */
    if (rp == 1)
        c->prefill_first = c->etm.kind == STM_ROOFLINE ? 1 : c->etm.prefill_first > 0;
    /* The capacity policy likewise: the old model's is vLLM's (admit what fits now). */
    if (rn == 1)
        c->no_evict = c->etm.kind == STM_ROOFLINE ? 0 : c->etm.no_evict > 0;
    c->defaulted = (rs == 1 ? LSV_DEF_SEQS : 0u) | (rt == 1 ? LSV_DEF_TOKENS : 0u) |
                   (c->activation_reserve_gb < 0 ? LSV_DEF_RESERVE : 0u);
    return 0;
}

/* Case-insensitive substring: vLLM lower-cases the device name before looking for "a100". */
static int has_a100(const char *name)
{
    for (const char *p = name; *p; p++) {
        const char *a = "a100", *q = p;
        while (*a && *q && (*q | 0x20) == *a)
            a++, q++;
        if (!*a)
            return 1;
    }
    return 0;
}

void lsv_resolve(struct lsv_cfg *c, const char *device, double device_gib)
{
    int big = device_gib >= LSV_BIG_DEVICE_GIB && !has_a100(device);
    if (c->defaulted & LSV_DEF_SEQS)
        c->max_num_seqs = big ? LSV_BIG_MAX_SEQS : LSV_SMALL_MAX_SEQS;
    if (c->defaulted & LSV_DEF_TOKENS)
        c->max_batched_tokens = big ? LSV_BIG_BATCHED_TOKENS : LSV_SMALL_BATCHED_TOKENS;
    if (c->defaulted & LSV_DEF_RESERVE)
        c->activation_reserve_gb = lsv_activation_estimate_gb(c);
    c->resolved = 1;
}

int lsv_parse_tokens(const struct jv *j, const cJSON *obj, const char *path, struct lsv_cfg *c)
{
    static const char *const keys[] = {"input", "output", "shared_prefix", NULL};
    char p[512];
    if (!cJSON_IsObject(obj))
        return jv_fail(j, path, "expected an object {\"input\": {…}, \"output\": {…}}");
    if (cJSON_GetObjectItemCaseSensitive(obj, "dataset")) { /* joint pairs (llm/tokens.h) */
        if (ltk_parse_dataset(j, obj, path, &c->input, &c->output))
            return -1;
        c->has_tokens = 1;
        return 0;
    }
    if (jv_object(j, obj, path, keys))
        return -1;
    const char *names[2] = {"input", "output"};
    struct ltk_dist *d[2] = {&c->input, &c->output};
    for (int i = 0; i < 2; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, names[i]);
        jv_path_key(p, sizeof p, path, names[i]);
        if (!v)
            return jv_fail(j, p, "missing (expected {\"dist\": …})");
        if (ltk_parse(j, v, p, d[i]))
            return -1;
    }
    if (jv_int(j, obj, path, "shared_prefix", 0, 0, LSV_SHARED_PREFIX_MAX, &c->shared_prefix) < 0)
        return -1;
    c->has_tokens = 1;
    return 0;
}

double lsv_activation_estimate_gb(const struct lsv_cfg *c)
{
    /* One step's largest live tensors at max_batched_tokens tokens, in 16-bit activations:
     * the residual, the attention input and output and the query (4 × hidden) and the gated
     * MLP's two intermediate tensors (2 × intermediate); plus fp32 logits for every running
     * sequence (max_num_seqs × vocab × 4 bytes). */
    const struct lm_model *m = &c->model;
    /* Under tensor parallelism each GPU holds its slice of the MLP's tensors. */
    int tp = c->tensor_parallel > 1 ? c->tensor_parallel : 1;
    double act = (double)c->max_batched_tokens * (4.0 * m->hidden + 2.0 * m->intermediate / tp) * 2;
    double logits = (double)c->max_num_seqs * m->vocab * 4;
    return (act + logits) * 1e-9;
}

int lsv_kv_blocks(const struct lsv_cfg *c, double memory_gb, const char *where, long *blocks,
                  char *err, size_t errlen)
{
    if (!c->resolved)
        SS_FATAL("lsv_kv_blocks: %s's defaults are not resolved for a device (lsv_resolve)",
                 c->model.name);
    /* In GB (10⁹ bytes) from here on, as the messages give it. */
    double usable = memory_gb * 1073741824e-9 * c->gpu_memory_utilization;
    /* One GPU of a tensor-parallel group: its shard of the weights, its KV heads' share of a
     * block; the group's blocks are what one GPU holds (each holds every token). */
    int tp = c->tensor_parallel > 1 ? c->tensor_parallel : 1;
    double weights = lm_weight_bytes(&c->model, c->dtype) * 1e-9 / tp;
    double block = lm_kv_bytes_per_token(&c->model, c->kv_dtype) * tp_kv_share(&c->model, tp) *
                   c->block_size * 1e-9;
    double other = c->activation_reserve_gb + LSV_NON_TORCH_GIB * 1073741824e-9;
    double kv = usable - weights - other;
    double device = memory_gb * 1073741824e-9;
    if (weights > usable)
        return ss_errf(err, errlen,
                       "%.2f GB of %s %s weights%s do not fit %s (%.2f GB of 10⁹ bytes × "
                       "gpu_memory_utilization %g = %.2f GB)",
                       weights, roof_dtype_names[c->dtype], c->model.name,
                       tp > 1 ? " (one GPU's shard of tensor_parallel)" : "", where, device,
                       c->gpu_memory_utilization, usable);
    if (kv < block)
        return ss_errf(err, errlen,
                       "%.2f GB of %s %s weights, a %.2f GB activation reserve and %.2f GB "
                       "outside PyTorch leave %.3f GB of %s (%.2f GB × gpu_memory_utilization %g "
                       "= %.2f GB) for the KV cache, less than one block of %d tokens (%.4f GB)",
                       weights, roof_dtype_names[c->dtype], c->model.name, c->activation_reserve_gb,
                       LSV_NON_TORCH_GIB * 1073741824e-9, kv > 0 ? kv : 0, where, device,
                       c->gpu_memory_utilization, usable, c->block_size, block);
    *blocks = (long)floor(kv / block);
    return 0;
}

void lsv_sched_cfg(const struct lsv_cfg *c, long kv_blocks, struct ls_cfg *out)
{
    if (!c->resolved)
        SS_FATAL("lsv_sched_cfg: %s's defaults are not resolved for a device (lsv_resolve)",
                 c->model.name);
    *out =
        (struct ls_cfg){kv_blocks,
                        c->block_size,
                        c->max_num_seqs,
                        c->max_batched_tokens,
                        c->chunked_prefill,
                        c->prefill_first,
                        c->prefix_caching,
                        c->shared_prefix,
                        c->enforce_eager ? 0 : ls_graph_max(c->max_num_seqs, c->max_batched_tokens),
                        c->model.kind != LM_DECODER,
                        c->no_evict};
}
