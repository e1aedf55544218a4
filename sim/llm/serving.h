/*
 * serving — an LLM tenant's engine: its "serving" object (docs/llm.md#the-serving-object),
 * its token sources and SLAs, and the KV cache the memory it is given leaves.
 *
 *   "serving": {"engine": "llm", "model": NAME | {…}, "dtype", "kv_dtype", "max_num_seqs",
 *               "max_batched_tokens", "chunked_prefill", "prefix_caching", "enforce_eager",
 *               "step_overhead_ms", "block_size", "gpu_memory_utilization",
 *               "activation_reserve_gb", "tensor_parallel"}
 *
 * Defaults are vLLM v0.11's (V1 engine, its OpenAI API server) where vLLM has one: block_size
 * 16, gpu_memory_utilization 0.9, chunked_prefill, prefix_caching and CUDA graphs on, kv_dtype
 * the activations' type (bf16 for bf16 weights, fp16 otherwise), and max_num_seqs and
 * max_batched_tokens by the device (lsv_resolve): 1024 and 8192 on a device of at least 70
 * GiB that is not an A100, else 256 and 2048. step_overhead_ms is 0 unless given.
 *
 * KV capacity (lsv_kv_blocks), as vLLM's memory profiling: of the device memory the strategy
 * gives the tenant — in GiB, as the profiles' memory_gb counts it (an A100's 80 is 80 × 2³⁰
 * bytes, a 1g.10gb instance's 9.75 is 9,984 MiB) — the engine takes gpu_memory_utilization;
 * from that the weights, the activation peak of its profiling run (activation_reserve_gb, in
 * GB = 10⁹ bytes) and LSV_NON_TORCH_GIB of memory outside PyTorch's allocator are subtracted,
 * and the rest, in whole blocks, is the cache (docs/llm.md#memory).
 *
 * "tensor_parallel": 1 (default), 2, 4 or 8 GPUs serve the model as one engine (llm/tp.h,
 * docs/llm.md#tensor-parallelism): memory_gb is then each GPU's, which holds 1/TP of the
 * weights and its share of the KV heads, and the blocks are the group's (every GPU holds the
 * same tokens). Only the engine step model has it, and only whole GPUs (exclusive) serve it.
 * "auto" leaves the degree to sharesim plan (docs/plan.md#tensor-parallelism-and-replicas).
 */
#ifndef SS_LLM_SERVING_H
#define SS_LLM_SERVING_H

#include "base/jsonv.h"
#include "calib/roof.h"
#include "llm/enginetime.h"
#include "llm/model.h"
#include "llm/sched.h"
#include "llm/tokens.h"

/* vLLM's per-device defaults: a device of at least this much memory (GiB) that is not an A100
 * takes the large ones (vllm/engine/arg_utils.py, EngineArgs._set_default_args). */
#define LSV_BIG_DEVICE_GIB 70.0
#define LSV_BIG_MAX_SEQS 1024
#define LSV_BIG_BATCHED_TOKENS 8192L
#define LSV_SMALL_MAX_SEQS 256
#define LSV_SMALL_BATCHED_TOKENS 2048L

/* Memory its profiling finds allocated outside PyTorch (cuBLAS workspaces, NCCL buffers, what
 * the CUDA context grew by), GiB: vLLM's log line "non_torch_memory takes …" reads 0.04 to
 * 0.26 GiB for one-GPU engines. */
#define LSV_NON_TORCH_GIB 0.15

/* Prompt tokens a tenant's requests may share (its "shared_prefix"). */
#define LSV_SHARED_PREFIX_MAX 10000000L

/* Which of a cfg's values were not given and took the device's default (lsv_resolve). */
enum { LSV_DEF_SEQS = 1, LSV_DEF_TOKENS = 2, LSV_DEF_RESERVE = 4 };

struct lsv_cfg {
    struct lm_model model;
    enum roof_dtype dtype, kv_dtype;
    int max_num_seqs;
    long max_batched_tokens;
    int chunked_prefill;
    int prefill_first; /* without chunked_prefill: V0's prefill-only steps (llm/sched.h) */
    int no_evict;      /* "guaranteed_no_evict": TensorRT-LLM's capacity policy (llm/sched.h) */
    int prefix_caching;
    int enforce_eager;  /* no CUDA graphs */
    long shared_prefix; /* "tokens": {"shared_prefix": N}: every prompt's first N tokens */
    int block_size;
    double step_overhead_s;
    struct etm_cfg etm; /* step model and engine time (llm/enginetime.h) */
    int router;         /* enum lrt_policy: which of several engines takes a request (routecfg.h) */
    double gpu_memory_utilization;
    double activation_reserve_gb;
    int tensor_parallel; /* GPUs of the group serving it (1: one GPU) */
    /* "tensor_parallel": "auto": sharesim plan chooses the degree (tensor_parallel is 1 until
     * it does); every other command refuses it at load (core/scenario.h SCN_TP_AUTO). */
    int tp_auto;
    /* LSV_DEF_*: the values not given; max_num_seqs, max_batched_tokens and the reserve are
     * 0 / -1 until lsv_resolve sets them for the device (resolved then 1). */
    unsigned defaulted;
    int resolved;
    /* Request tokens: drawn (has_tokens) or, without "tokens", the trace's columns. */
    int has_tokens;
    struct ltk_dist input, output;
    /* SLAs on the p99 of time to first token and time per output token; <= 0: none. */
    double sla_ttft_p99_s, sla_tpot_p99_s;
};

/*
 * Parses a tenant's "serving" object at path (model names looked up in the table at
 * table_path, NULL: the shipped one). 0, or -1 with a jv message naming the path.
 */
int lsv_parse(const struct jv *j, const cJSON *obj, const char *path, const char *table_path,
              struct lsv_cfg *c);

/* Parses "tokens": {"input": DIST, "output": DIST} into c. */
int lsv_parse_tokens(const struct jv *j, const cJSON *obj, const char *path, struct lsv_cfg *c);

/* The default activation reserve (GB): see docs/llm.md#memory. */
double lsv_activation_estimate_gb(const struct lsv_cfg *c);

/*
 * Sets the values c's object did not give to vLLM's defaults for its device: device (a GPU
 * profile's name, e.g. "A100-80GB"; an A100 is one whose name contains "a100", any case) of
 * device_gib GiB of memory. Given values stay. Called once the scenario's GPU is known.
 */
void lsv_resolve(struct lsv_cfg *c, const char *device, double device_gib);

/*
 * KV-cache blocks in memory_gb GiB (what the strategy gives, described by `where` in messages,
 * e.g. "the 1g.10gb instance's 9.75 GB"). 0 and *blocks >= 1; or -1 with a message naming
 * the numbers when the weights and the reserve leave no block.
 */
int lsv_kv_blocks(const struct lsv_cfg *c, double memory_gb, const char *where, long *blocks,
                  char *err, size_t errlen);

/* The scheduler configuration for kv_blocks blocks. */
void lsv_sched_cfg(const struct lsv_cfg *c, long kv_blocks, struct ls_cfg *out);

#endif
