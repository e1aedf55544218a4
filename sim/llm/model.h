/*
 * model — the architecture of a served language model: what the roofline (llm/roofline.h)
 * and the KV cache need, nothing about its weights' values.
 *
 * The shipped table is kernels/profiles/models/llm.json (beside the GPU profiles, found the
 * same way; $SHARESIM_MODELS names another file). Each entry gives the parameter count and
 * the shapes from the model's published configuration, with its source; a scenario names one
 * (`"model": "Llama-2-7B"`, matched ignoring case against names and aliases) or describes any
 * other inline with the same keys (docs/llm.md#models).
 *
 * A model may also come from a Hugging Face config.json (`"model": {"config": FILE}`,
 * llm/hfconfig.h), which derives the same fields and counts the parameters from the shapes.
 *
 * Beyond the dense Llama layout a model may have (all optional keys, 0 when absent):
 *  - mixture-of-experts MLPs: `experts` routed experts of width `moe_intermediate`, of which
 *    each token takes `experts_per_token`, beside always-on shared experts of total width
 *    `shared_intermediate`, in all but the first `dense_layers` blocks (which keep the dense
 *    MLP of width `intermediate`);
 *  - multi-head latent attention (DeepSeek-V2/V3): `kv_lora_rank` > 0, the cache holds a
 *    compressed latent of kv_lora_rank plus a shared RoPE key of `qk_rope_dim` per layer, and
 *    heads use query/key width qk_nope_dim + qk_rope_dim and value width `v_head_dim`;
 *  - `"kind"`: "decoder" (default) generates tokens; "embedding" and "reranker" models run
 *    their prompt once and return (no decode, no LM head);
 *  - `"mlp"`: "gated" (default; SwiGLU/GeGLU, three matrices) or "plain" (BERT: two).
 *
 * Invariants of a parsed model: every count >= 1, kv_heads divides heads (grouped-query
 * attention shares one KV head among heads / kv_heads query heads), params > 0,
 * 1 <= experts_per_token <= experts when experts > 0, dense_layers <= layers.
 */
#ifndef SS_LLM_MODEL_H
#define SS_LLM_MODEL_H

#include "base/jsonv.h"
#include "calib/roof.h"

#include <cJSON.h>
#include <stddef.h>

/* What a model does with a request (lm_model.kind). */
enum lm_kind { LM_DECODER, LM_EMBEDDING, LM_RERANKER, LM_N_KIND };
/* "decoder", "embedding", "reranker"; NULL-terminated, in enum order. */
extern const char *const lm_kind_names[];

/* Limits on the optional keys, checked at parse (docs/llm.md#model-families-moe-and-embeddings). */
#define LM_MAX_EXPERTS 4096
#define LM_MAX_RANK 1000000

struct lm_model {
    char name[64];
    double params;        /* parameters, all of them (embeddings and the output head included) */
    double active_params; /* those one token runs through: params less the routed experts it
                           * does not take (= params for a dense model) */
    enum lm_kind kind;
    int plain_mlp;    /* two-matrix MLP (BERT) instead of the gated three */
    int layers;       /* transformer blocks */
    int hidden;       /* model width */
    int intermediate; /* MLP width */
    int heads;        /* query heads */
    int kv_heads;     /* key/value heads (= heads without grouped-query attention) */
    int head_dim;     /* width of one head */
    int vocab;        /* vocabulary */
    /* Mixture of experts (experts = 0: dense). */
    int experts, experts_per_token, moe_intermediate, shared_intermediate, dense_layers;
    /* Multi-head latent attention (kv_lora_rank = 0: none). */
    int kv_lora_rank, q_lora_rank, qk_rope_dim, qk_nope_dim, v_head_dim;
};

/* Blocks whose MLP is a mixture of experts. */
int lm_moe_layers(const struct lm_model *m);
/* Parameters of one routed expert (its gated or plain MLP of width moe_intermediate). */
double lm_expert_params(const struct lm_model *m);
/* Sets m->active_params from params and the expert shapes. */
void lm_set_active(struct lm_model *m);
/* The expected number of distinct experts of E that T tokens route to when each takes k of
 * them uniformly at random: E × (1 − (1 − k/E)^T). 0 for T = 0; E when k = E. */
double lm_expected_experts(int experts, int per_token, double tokens);

/* The model table's path: $SHARESIM_MODELS, else <profile directory>/models/llm.json. */
const char *lm_table_path(void);

/*
 * Parses a model object at path: {"name"?, "params", "layers", "hidden", "intermediate",
 * "heads", "kv_heads", "head_dim", "vocab"} and the optional keys above, and, in the table,
 * "aliases" and "source" (required there: with_source). Or, inline only, {"config": FILE,
 * "name"?, "kind"?}: FILE (relative to j->file's directory) is a Hugging Face config.json.
 * 0, or -1 with a jv message naming the path.
 */
int lm_parse(const struct jv *j, const cJSON *obj, const char *path, int with_source,
             struct lm_model *m);

/*
 * Looks a model up by name or alias (ignoring case) in the table at table_path (NULL: the
 * shipped one). 0; or -1 with a message: an unknown name lists the known names and aliases.
 * A name with an organisation ("meta-llama/X") also matches an entry called X, and a name
 * ending in -Instruct, -Chat, -it or -hf (any case) matches the name without it.
 */
int lm_find(const char *table_path, const char *name, struct lm_model *m, char *err, size_t errlen);

/* A file named rel in the scenario `file` (or in its directory when relative). */
void lm_resolve_path(const char *file, const char *rel, char *out, size_t n);

/* Bytes of the weights stored in data type d: params × bytes per element. */
double lm_weight_bytes(const struct lm_model *m, enum roof_dtype d);

/* Bytes of KV cache one token holds: a key and a value vector of kv_heads × head_dim in each
 * layer, 2 × layers × kv_heads × head_dim × bytes per element; with latent attention the
 * latent and the RoPE key, layers × (kv_lora_rank + qk_rope_dim) × bytes (vLLM's MLA cache).
 * Sliding-window layers are counted at full context (docs/llm.md). */
double lm_kv_bytes_per_token(const struct lm_model *m, enum roof_dtype kv);

/*
 * Parameters implied by the shapes for the Llama layout (attention q/k/v/o, gated MLP of three
 * matrices, two norms per block, final norm, untied input embedding and output head); used by
 * the tests to check the table's counts against its shapes.
 */
double lm_arch_params(const struct lm_model *m, int qkv_bias);

#endif
