/*
 * engineargs — vLLM's flags for a simulated engine (see engineargs.h).
 */
#include "core/engineargs.h"
#include "calib/roof.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void add(struct ea_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct ea_args *a, const char *fmt, ...)
{
    if (a->n == EA_MAX_ARGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->arg[a->n++], sizeof a->arg[0], fmt, ap);
    va_end(ap);
}

static void say(struct ea_args *a, const char *text)
{
    size_t n = strlen(a->note);
    snprintf(a->note + n, sizeof a->note - n, "%s%s", n ? " " : "", text);
}

/* What vLLM calls the activations' type: bf16 weights compute in bf16, every other type the
 * simulator knows computes in fp16 (docs/llm.md#data-types). */
static enum roof_dtype activations(enum roof_dtype w)
{
    return w == RD_BF16 ? RD_BF16 : RD_FP16;
}

void ea_vllm(const struct lsv_cfg *c, double memory_util, struct ea_args *out)
{
    memset(out, 0, sizeof *out);
    enum roof_dtype act = activations(c->dtype);
    add(out, "--dtype=%s", act == RD_BF16 ? "bfloat16" : "float16");
    if (c->dtype == RD_FP8)
        add(out, "--quantization=fp8");
    else if (c->dtype == RD_INT8)
        say(out, "int8 weights (W8A8): serve an int8-quantised checkpoint (vLLM reads its "
                 "quantisation from the checkpoint's config; there is no flag for it).");
    else if (c->dtype == RD_INT4)
        say(out, "int4 weights: serve an AWQ or GPTQ checkpoint (vLLM reads its quantisation "
                 "from the checkpoint's config).");
    if (c->kv_dtype == act || c->kv_dtype == RD_FP16 || c->kv_dtype == RD_BF16) {
        add(out, "--kv-cache-dtype=auto");
        if (c->kv_dtype != act)
            say(out, "The simulated KV cache is of another 16-bit type than the model's; vLLM "
                     "keeps it in the model's, the same two bytes a value.");
    } else {
        add(out, "--kv-cache-dtype=fp8");
        if (c->kv_dtype == RD_INT8)
            say(out, "vLLM has no int8 KV cache: fp8 holds the same byte a value, so the cache "
                     "has the simulated capacity.");
    }
    add(out, "--max-num-seqs=%d", c->max_num_seqs);
    add(out, "--max-num-batched-tokens=%ld", c->max_batched_tokens);
    add(out, "--gpu-memory-utilization=%.4g", memory_util);
    add(out, "--block-size=%d", c->block_size);
    add(out, c->chunked_prefill ? "--enable-chunked-prefill" : "--no-enable-chunked-prefill");
    /* The simulated prefix cache is vLLM's (docs/llm.md#scheduler): the flag follows it. */
    add(out, c->prefix_caching ? "--enable-prefix-caching" : "--no-enable-prefix-caching");
    if (c->enforce_eager)
        add(out, "--enforce-eager");
    if (c->tensor_parallel > 1) /* one pod holds the group (plan_exclusive's limit) */
        add(out, "--tensor-parallel-size=%d", c->tensor_parallel);
}
