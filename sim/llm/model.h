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
 * Invariants of a parsed model: every count >= 1, kv_heads divides heads (grouped-query
 * attention shares one KV head among heads / kv_heads query heads), params > 0.
 */
#ifndef SS_LLM_MODEL_H
#define SS_LLM_MODEL_H

#include "base/jsonv.h"
#include "calib/roof.h"

#include <cJSON.h>
#include <stddef.h>

struct lm_model {
    char name[64];
    double params;    /* parameters, all of them (embeddings and the output head included) */
    int layers;       /* transformer blocks */
    int hidden;       /* model width */
    int intermediate; /* MLP width */
    int heads;        /* query heads */
    int kv_heads;     /* key/value heads (= heads without grouped-query attention) */
    int head_dim;     /* width of one head */
    int vocab;        /* vocabulary */
};

/* The model table's path: $SHARESIM_MODELS, else <profile directory>/models/llm.json. */
const char *lm_table_path(void);

/*
 * Parses a model object at path: {"name"?, "params", "layers", "hidden", "intermediate",
 * "heads", "kv_heads", "head_dim", "vocab"} and, in the table, "aliases" and "source"
 * (required there: with_source). 0, or -1 with a jv message naming the path.
 */
int lm_parse(const struct jv *j, const cJSON *obj, const char *path, int with_source,
             struct lm_model *m);

/*
 * Looks a model up by name or alias (ignoring case) in the table at table_path (NULL: the
 * shipped one). 0; or -1 with a message: an unknown name lists the known ones.
 */
int lm_find(const char *table_path, const char *name, struct lm_model *m, char *err, size_t errlen);

/* Bytes of the weights stored in data type d: params × bytes per element. */
double lm_weight_bytes(const struct lm_model *m, enum roof_dtype d);

/* Bytes of KV cache one token holds: a key and a value vector of kv_heads × head_dim in each
 * layer, 2 × layers × kv_heads × head_dim × bytes per element. */
double lm_kv_bytes_per_token(const struct lm_model *m, enum roof_dtype kv);

/*
 * Parameters implied by the shapes for the Llama layout (attention q/k/v/o, gated MLP of three
 * matrices, two norms per block, final norm, untied input embedding and output head); used by
 * the tests to check the table's counts against its shapes.
 */
double lm_arch_params(const struct lm_model *m, int qkv_bias);

#endif
