/*
 * serving — an LLM tenant's engine: its "serving" object (docs/llm.md#the-serving-object),
 * its token sources and SLAs, and the KV cache the memory it is given leaves.
 *
 *   "serving": {"engine": "llm", "model": NAME | {…}, "dtype", "kv_dtype", "max_num_seqs",
 *               "max_batched_tokens", "chunked_prefill", "step_overhead_ms", "block_size",
 *               "gpu_memory_utilization", "activation_reserve_gb"}
 *
 * Defaults are vLLM's where vLLM has one (max_num_seqs 256, max_batched_tokens 2048,
 * chunked_prefill true as in its V1 engine, block_size 16, gpu_memory_utilization 0.9,
 * kv_dtype the activations' type: bf16 for bf16 weights, fp16 otherwise); step_overhead_ms
 * is 0 unless given (no published per-step figure is taken as a default).
 *
 * KV capacity (lsv_kv_blocks): of the memory the strategy gives the tenant, the engine takes
 * gpu_memory_utilization; from that the weights and the activation reserve are subtracted and
 * the rest, in whole blocks, is the cache. Memory is in GB = 10⁹ bytes, as the profiles give
 * it. The reserve defaults to an estimate of one step's peak activations (docs/llm.md#memory).
 */
#ifndef SS_LLM_SERVING_H
#define SS_LLM_SERVING_H

#include "base/jsonv.h"
#include "calib/roof.h"
#include "llm/enginetime.h"
#include "llm/model.h"
#include "llm/sched.h"
#include "llm/tokens.h"

struct lsv_cfg {
    struct lm_model model;
    enum roof_dtype dtype, kv_dtype;
    int max_num_seqs;
    long max_batched_tokens;
    int chunked_prefill;
    int block_size;
    double step_overhead_s;
    struct etm_cfg etm; /* step model and engine time (llm/enginetime.h) */
    double gpu_memory_utilization;
    double activation_reserve_gb;
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
 * KV-cache blocks in memory_gb (what the strategy gives, described by `where` in messages,
 * e.g. "the 1g.10gb instance's 9.75 GB"). 0 and *blocks >= 1; or -1 with a message naming
 * the numbers when the weights and the reserve leave no block.
 */
int lsv_kv_blocks(const struct lsv_cfg *c, double memory_gb, const char *where, long *blocks,
                  char *err, size_t errlen);

/* The scheduler configuration for kv_blocks blocks. */
void lsv_sched_cfg(const struct lsv_cfg *c, long kv_blocks, struct ls_cfg *out);

#endif
