/*
 * stepmodel — a serving step's time as a sum of parts (docs/llm.md#step-time).
 *
 * Two models, chosen per tenant by `serving.step_model`:
 *
 *   "roofline": the whole step as one roofline, max(FLOPs / (peak × compute_eff),
 *     bytes / (bandwidth × bandwidth_eff)) + step_overhead_ms (llm/roofline.h): the model of
 *     the first two waves, kept so that old results can be reproduced.
 *   "engine" (the default): the step as the engine runs it — its kernels one after another,
 *     each bound by its own resource, and the engine's CPU time beside them:
 *       linear layers (per layer: QKV, O, gate+up, down; and the LM head over the sampled
 *         tokens), each max(2 M n k / (peak × e(M)), bytes / (bandwidth × weight_bw_eff)) with
 *         M the step's tokens and e(M) = gemm_eff × M / (M + gemm_half_tokens);
 *       attention, each sequence's pairs at attn_eff × ctx / (ctx + attn_half_context) of the
 *         activations' peak, and its KV reads at kv_bw_eff of the bandwidth — prefill chunks
 *         and decodes as two kernels, each its own roofline;
 *       the small per-layer kernels (norms, activation, RoPE, residual adds): their activation
 *         traffic at weight_bw_eff of the bandwidth, and layer_fixed_us a layer that no share
 *         shortens (launch and latency bound);
 *       an engine's fusion of those small kernels (small_kernels_fused: the share of their time
 *         that it removes);
 *       an engine version's ceiling on its 16-bit GEMMs' throughput (gemm_tflops_max; e.g.
 *         TensorRT-LLM 0.9's on Hopper): each takes at least FLOPs / the ceiling;
 *       the CPU: cpu_step_ms + cpu_per_seq_ms × the step's sequences (scheduling, input
 *         preparation, sampling, detokenisation), during which the GPU idles unless
 *         overlap_cpu (vLLM's async scheduling) hides it behind the GPU part.
 *     Parts add because the kernels run one after another: decode attention does not ride free
 *     under a prefill's matrix products, as one roofline over the whole step lets it.
 *
 * Measured kernel times come first (calib/kcurve.h, from NVIDIA AIConfigurator's and Vidur's
 * tables; docs/kernel-data.md): a GEMM, an attention kernel or the small kernels whose table
 * exists take the table's time, split between compute and memory in the proportion of their
 * roofline (so that a share slows them as it slows that resource); what has no table keeps the
 * efficiencies above. Each part records which path it took (STM_PATH_* bits).
 *
 * A step is described on the whole GPU by its parts (struct stm_parts); on a share (f of the
 * SMs, b of the bandwidth) each part takes max(tc / f, tm / b) — the roofline of one kernel —
 * and the fixed and CPU parts take what they take.
 */
#ifndef SS_LLM_STEPMODEL_H
#define SS_LLM_STEPMODEL_H

#include "calib/kcurve.h"
#include "calib/roof.h"
#include "llm/model.h"
#include "llm/roofline.h"
#include "llm/tp.h"

enum stm_kind { STM_ENGINE, STM_ROOFLINE, STM_N };
/* "engine", "roofline"; NULL-terminated, in enum order (for jv_enum). */
extern const char *const stm_kind_names[];

/* The engine's time outside the GPU kernels (serving keys; defaults: llm/enginetab.h). */
struct stm_cpu {
    double step_s;    /* cpu_step_ms */
    double per_seq_s; /* cpu_per_seq_ms */
    int overlap;      /* overlap_cpu */
    /* gemm_tflops_max × 1e12 (0: none): the most 16-bit math an engine version's linear
     * layers sustain, FLOP/s on the whole GPU. Not CPU time, but an engine term of the same
     * table entry (llm/enginetime.h), carried with them: each 16-bit dense GEMM (and the LM
     * head) takes at least its FLOPs / this, whatever its table or roofline says. */
    double gemm_flops_max;
    /* small_kernels_fused in [0, 1] (0: none): the share of the small kernels' time (norms,
     * RoPE, activation, residual adds: their table's or their traffic's, and layer_fixed_us)
     * that an engine's kernel fusion removes. The tables time them as separate PyTorch kernels
     * (Vidur's, on vLLM); an engine compiled by TensorRT fuses elementwise work into its
     * neighbours, so it moves those activations fewer times. Fitted per engine entry. */
    double small_fused;
};

/* Linear layers of a transformer block, and the LM head. */
enum { STM_QKV, STM_O, STM_GATE_UP, STM_DOWN, STM_LM_HEAD, STM_N_GEMM };
/* Beside them a mixture of experts adds two parts: the routed experts and the always-on
 * shared experts with the router (docs/llm.md#model-families-moe-and-embeddings). */
#define STM_MAX_PARTS (STM_N_GEMM + 6)

/* Which parts of a step came from measured tables (bits of stm_parts.table, .roof). */
enum { STM_PATH_GEMM = 1, STM_PATH_ATTN = 2, STM_PATH_SMALL = 4, STM_PATH_COMM = 8 };

/*
 * The parts of recent steps that depend on the step's token count alone (the dense GEMMs, the
 * small kernels, the all-reduces; the LM head on its sampled tokens): pure functions of the
 * model, the GPU and that count, which an engine meets step after step (a decode batch grows
 * or shrinks by a sequence or two at a time). stm_parts keeps the last STM_MEMO_SLOTS of each,
 * direct-mapped by count mod STM_MEMO_SLOTS; a hit returns the doubles the computation
 * stored. Emptied whenever the model changes (stm_init, stm_set_tp).
 */
#define STM_MEMO_SLOTS 8
struct stm_memo {
    double tokens;                           /* the key; -1: empty */
    double tc[STM_LM_HEAD], tm[STM_LM_HEAD]; /* the dense GEMMs (those that run) */
    double small_tm, fixed_s, comm_s;
    int gemm_table;  /* bit g: GEMM g took its table */
    int small, comm; /* the small kernels, the all-reduces took their tables */
};
struct stm_head_memo {
    double sampled; /* the key; -1: empty */
    double tc, tm;
    int table;
};

/* What a model costs on one GPU in its serving types: built once per engine. */
struct stm {
    enum stm_kind kind;
    struct rf_model rm; /* the roofline model's view */
    struct rf_gpu rg;
    int layers;
    double gemm_n[STM_N_GEMM], gemm_k[STM_N_GEMM];
    double weight_b, act_b;       /* bytes of a weight, of an activation */
    double kv_bytes_per_token;    /* all layers */
    double attn_flops_per_pair;   /* 4 × layers × heads × head_dim */
    double elementwise_per_token; /* activation elements the small kernels move, all layers */
    double peak, peak_act, bw;    /* FLOP/s of the weights' and the activations' types; B/s */
    struct gpu_llm_kernels k;     /* efficiencies (calib/roof.h), defaults resolved */
    struct stm_cpu cpu;
    double overhead_s;       /* roofline: step_overhead_ms */
    const struct kc_gpu *kc; /* measured kernel curves, or NULL */
    enum roof_dtype wd, kvd;
    int heads, kv_heads, head_dim, hidden, intermediate;
    /* Mixture of experts (experts = 0: dense): the dense MLP runs in mlp_layers blocks, the
     * experts in moe_layers; per expert expert_params weights, per token the shared experts'
     * and the router's shared_params. A step's routed weights read are those of the distinct
     * experts its tokens route to (lm_expected_experts: uniform routing). */
    int experts, experts_per_token, mlp_layers, moe_layers;
    double expert_params, shared_params, expert_act, shared_act; /* act: elements in and out */
    int mla; /* latent attention: no measured attention table applies */
    /* Tensor parallelism (stm_set_tp; tp 1: none): the shapes above are one GPU's shard, the
     * small kernels' table is looked up at the whole model's shape (shape_*) and scaled by
     * small_scale, the shard's share of their traffic; `link` times the all-reduces. */
    int tp, shape_heads, shape_kv_heads;
    double small_scale;
    struct tp_link link;
    /* Each GEMM's curve in the weights' type [0] and in its 16-bit twin [1], found once. */
    struct kc_gemm_ref gemm_ref[STM_N_GEMM][2];
    /* stm_parts writes these through its const pointer (a cache, what C++ calls `mutable`):
     * an stm must not be an object defined const. */
    struct stm_memo memo[STM_MEMO_SLOTS];
    struct stm_head_memo head_memo[STM_MEMO_SLOTS];
};

/* What a step holds, summed as its sequences are added. */
struct stm_sum {
    struct rf_cost rc; /* the roofline's sums */
    long tokens;       /* Σ n_new */
    int seqs, sampled; /* sequences; those that sample a token at its end */
    int decodes;       /* sequences with one new token */
    /* Attention, prefill chunks [0] and decodes [1] apart (they run as two kernels): compute
     * time on the whole GPU (s) and KV tokens read, Σ (past + n_new). */
    double attn_tc[2], kv_tokens[2];
    double attn_table_s; /* prefill attention from the tables, all layers (table_attn) */
    int table_attn;      /* every prefill chunk so far found its table */
};

/* A step on the whole GPU: parts bound by compute (tc) or memory (tm), a fixed GPU part, CPU. */
struct stm_parts {
    int n;
    double tc[STM_MAX_PARTS], tm[STM_MAX_PARTS];
    double fixed_s, cpu_s;
    /* Tensor parallelism: the step's 2 × layers all-reduces, on the link alone (no share of
     * the GPU shortens or lengthens them, nothing overlaps them). */
    double comm_s;
    int overlap;
    /* The roofline model: its one roofline, computed as llm/roofline.c always has (the old
     * results reproduce to the bit); n is 0. */
    const struct rf_gpu *rg;
    struct rf_cost rc;
    int table, roof; /* STM_PATH_* of the parts that took the tables, and that did not */
};

/* kc: the GPU's kernel curves (kc_get), or NULL for the efficiencies alone. */
void stm_init(struct stm *m, enum stm_kind kind, const struct lm_model *model,
              enum roof_dtype weights, enum roof_dtype kv, const struct gpu_roof *roof,
              double hbm_bw_gbps, const struct stm_cpu *cpu, double overhead_s,
              const struct kc_gpu *kc);

/*
 * Makes m (just initialised, kind STM_ENGINE, of `model`) one GPU's shard of a group of tp
 * (llm/tp.h): GEMM widths n / tp (QKV, gate+up, the LM head) or depths k / tp (O, down),
 * heads / tp and tp_kv_heads_per_gpu KV heads, the experts' widths / tp, the small kernels'
 * per-head and MLP traffic / tp (norms and residual adds stay whole), and each step's 2 ×
 * layers all-reduces of tokens × hidden timed on `link`. tp 1 changes nothing.
 */
void stm_set_tp(struct stm *m, const struct lm_model *model, const struct tp_link *link);

void stm_start(const struct stm *m, struct stm_sum *s);
/* One sequence of the step: n_new tokens after past cached ones; emits: it samples a token. */
void stm_add(const struct stm *m, struct stm_sum *s, long past, long n_new, int emits);
void stm_parts(const struct stm *m, const struct stm_sum *s, struct stm_parts *p);

/* The GPU part on shares (f, b) in (0, 1]: Σ max(tc / f, tm / b) + fixed + comm. */
double stm_gpu_s(const struct stm_parts *p, double f, double b);
/* The GPU part's progress rate on shares (f, b): stm_gpu_s(1, 1) / stm_gpu_s(f, b). */
double stm_speed(const struct stm_parts *p, double f, double b);
/* The CPU time that is not hidden behind the GPU part on shares (f, b). */
double stm_cpu_exposed_s(const struct stm_parts *p, double f, double b);
/* The whole step on shares (f, b): GPU part + exposed CPU time. */
double stm_time_s(const struct stm_parts *p, double f, double b);

#endif
