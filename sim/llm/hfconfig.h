/*
 * hfconfig — a model from its Hugging Face config.json
 * (docs/llm.md#model-families-moe-and-embeddings).
 *
 * Reads the keys a family's config.json has (hidden_size, num_hidden_layers, …) for the
 * families in its table (model_type): dense Llama, Mistral, Qwen2, Qwen3, Gemma, Gemma 2 and
 * 3; mixtures of experts Mixtral, Qwen2-MoE, Qwen3-MoE, DeepSeek-V2/V3 (with multi-head latent
 * attention) and gpt-oss; encoders BERT, RoBERTa and XLM-RoBERTa (embedding and reranking
 * models). A config with a "text_config" (Gemma 3's multimodal checkpoints) is read from
 * there: the vision tower is not counted.
 *
 * The parameter count is summed from the shapes, as the checkpoint's tensors hold them:
 * embeddings, attention (with biases, q/k norms, attention sinks, and latent attention's
 * low-rank projections and their norms), the dense MLP or the routed experts, the shared
 * experts and the router, the norms, and the output head unless tied to the embeddings;
 * DeepSeek-V3's multi-token-prediction module is not (vLLM does not load it to serve).
 */
#ifndef SS_LLM_HFCONFIG_H
#define SS_LLM_HFCONFIG_H

#include "llm/model.h"

#include <stddef.h>

/* The largest config.json read, bytes. */
#define HF_CONFIG_MAX_BYTES (1u << 20)

/* Reads the config.json at path into m (kind from its "architectures": …ForCausalLM and
 * …ForConditionalGeneration generate, …ForSequenceClassification rerank, a bare …Model
 * embeds). 0; or -1 with a message naming the file and the key. */
int hf_load(const char *path, struct lm_model *m, char *err, size_t errlen);

/* The model_type values it reads, comma-separated (for messages and `sharesim model`). */
const char *hf_families(void);

#endif
