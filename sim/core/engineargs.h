/*
 * engineargs — the serving engine's command-line flags that make a deployed LLM tenant run as
 * it was simulated (prefix ea_): vLLM's `vllm serve` engine arguments for what the scenario's
 * "serving" object and the simulator's defaults set (llm/serving.h, docs/llm.md). The plan's
 * pod patch puts them in the container's args (docs/plan.md#kubernetes-artefacts).
 *
 * What vLLM cannot be told is said in `note`, in words for the README: an int8 or int4 model is
 * a quantised checkpoint vLLM recognises, not a flag; vLLM keeps the KV cache in the model's
 * type or in fp8, so an int8 cache becomes fp8 (the same byte a value) and an fp16 cache beside
 * bf16 weights stays "auto" (the same two bytes).
 */
#ifndef SS_ENGINEARGS_H
#define SS_ENGINEARGS_H

#include "llm/serving.h"

#include <stddef.h>

#define EA_MAX_ARGS 12

struct ea_args {
    int n;
    char arg[EA_MAX_ARGS][64]; /* "--max-num-seqs=256", one flag with its value each */
    char note[600];            /* "" or sentences on what the flags cannot say */
};

/* The flags for engine c, whose process should take `memory_util` of the memory it sees
 * (--gpu-memory-utilization, in (0, 1]). */
void ea_vllm(const struct lsv_cfg *c, double memory_util, struct ea_args *out);

#endif
