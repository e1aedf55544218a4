/*
 * enginetime — a serving engine's time outside the GPU kernels (docs/llm.md#engine-time):
 * the step model's choice and the engine's CPU and front-end terms.
 *
 * Serving keys (all optional):
 *   "step_model": "engine" (default) | "roofline" (llm/stepmodel.h);
 *   "framework": a name in the engine table (default "vllm"), whose entry gives the defaults of
 *   "cpu_step_ms"     CPU time per step whatever its size (scheduling, input preparation),
 *   "cpu_per_seq_ms"  CPU time per sequence in the step (its input rows, sampling,
 *                     detokenisation of its token),
 *   "frontend_ms"     per request, before the engine sees it: the API server's HTTP handling,
 *                     tokenisation and the first streamed chunk, counted in TTFT and latency,
 *   "frontend_serial_ms" per request, the part of the front end's work done on one process, one
 *                     request at a time (HTTP parsing, tokenisation): every request of the
 *                     tenant queues for it first come first served, and the wait counts in TTFT
 *                     (core/closed.h for a closed loop, core/engine.c for open arrivals);
 *                     optional in a table entry (0: none),
 *   "gemm_tflops_max" the most 16-bit math an engine version's linear layers sustain,
 *                     TFLOP/s (0, the default: none; at most ETM_MAX_GEMM_TFLOPS): a version
 *                     whose kernels are older than the measured tables' (llm/stepmodel.h);
 *                     optional in a table entry,
 *   "small_kernels_fused" the share, in [0, 1], of the small kernels' time that the engine's
 *                     kernel fusion removes (0, the default: none; llm/stepmodel.h); optional in
 *                     a table entry,
 *   "overlap_cpu"     whether the CPU part overlaps the GPU part (vLLM's async scheduling);
 * an optional "server" of a table entry: 0 for a release measured without an API server (an
 * offline harness), whose front end is then 0 of both kinds and may not be listed (a scenario's
 * keys still set one); 1, the default, requires "frontend_ms";
 * and, optional in a table entry, the framework's scheduler defaults for keys the scenario
 * leaves out: "max_num_seqs", "max_batched_tokens", "chunked_prefill", "prefill_first",
 * "guaranteed_no_evict" (vLLM's
 * per-device defaults apply where an entry has none). The engine table is <profile
 * directory>/engines/engines.json ($SHARESIM_ENGINES overrides), each value an object {"value",
 * "source", "confidence"} as in the GPU profiles.
 */
#ifndef SS_LLM_ENGINETIME_H
#define SS_LLM_ENGINETIME_H

#include "base/jsonv.h"
#include "llm/stepmodel.h"

/* A serial front end's time per request: at most 10 s (a process that takes longer per request is
 * not a serving front end; the limit keeps the queue's times far inside the clock). */
#define ETM_MAX_FRONTEND_SERIAL_MS 1e4
/* A GEMM throughput ceiling of at most 10,000 TFLOP/s: above every GPU's dense 16-bit peak
 * (a larger one could never bind; the limit catches a value given in FLOP/s). */
#define ETM_MAX_GEMM_TFLOPS 1e4

struct etm_cfg {
    enum stm_kind kind;
    char framework[32];
    struct stm_cpu cpu;
    double frontend_s;
    double frontend_serial_s; /* the serial front end's service time per request (closed.h) */
    /* The framework's scheduler defaults from its table entry (optional keys of the same
     * names): 0 / -1 where it has none and vLLM's rules apply (llm/serving.h). */
    long max_num_seqs, max_batched_tokens;
    int chunked_prefill, prefill_first, no_evict;
};

/* The engine table's path: $SHARESIM_ENGINES, else <profile directory>/engines/engines.json. */
const char *etm_table_path(void);

/* 1 when the engine table at table_path (NULL: etm_table_path()) has an entry named name, 0
 * when it has none or cannot be read (the error then comes where a tenant names it). */
int etm_has_framework(const char *table_path, const char *name);

/*
 * Reads the keys above from a tenant's serving object at path (the framework's defaults from
 * the table at table_path, NULL: etm_table_path()). 0, or -1 with a jv message naming the path
 * or the table's file and key.
 */
int etm_parse(const struct jv *j, const cJSON *obj, const char *path, const char *table_path,
              struct etm_cfg *c);

/*
 * The shortest decode step the engine can take on shares (f, b) of a GPU: one sequence, one
 * token, no context — the floor under its TPOT (the planner's bound). *weight_bw_eff gets the
 * bandwidth efficiency its weights are read at, for messages.
 */
double etm_decode_floor_s(const struct etm_cfg *c, const struct lm_model *m,
                          enum roof_dtype weights, enum roof_dtype kv, const struct gpu_roof *roof,
                          double hbm_bw_gbps, const struct kc_gpu *kc, double step_overhead_s,
                          double f, double b, double *weight_bw_eff);

/*
 * Which parts of the engine's steps take measured kernel times and which their roofline, for
 * this model on this GPU (a probe: a 512-token prefill chunk beside a decode at a 512-token
 * context): STM_PATH_* bits in *table and *roof. Both 0 under the roofline model.
 */
void etm_step_paths(const struct etm_cfg *c, const struct lm_model *m, enum roof_dtype weights,
                    enum roof_dtype kv, const struct gpu_roof *roof, double hbm_bw_gbps,
                    const struct kc_gpu *kc, int *table, int *roof_bits);

#endif
