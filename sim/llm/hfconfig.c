/*
 * hfconfig — a model from its Hugging Face config.json (hfconfig.h).
 *
 * One row per family (model_type): the keys its config names its figures by and what its
 * blocks hold beyond the Llama layout; count() sums the parameters from those shapes. The
 * rows follow the modelling files of the transformers library (modeling_<type>.py): which
 * projections carry biases, how many norms a block has, where the experts live.
 */
#include "llm/hfconfig.h"

#include "base/jsonv.h"
#include "base/util.h"

#include <cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a family's MLP blocks are built. */
enum hf_moe {
    HF_DENSE,    /* intermediate_size, gated */
    HF_MIXTRAL,  /* num_local_experts of intermediate_size, num_experts_per_tok */
    HF_QWEN_MOE, /* num_experts of moe_intermediate_size; shared_expert_intermediate_size with
                  * its sigmoid gate (Qwen2-MoE); mlp_only_layers and decoder_sparse_step */
    HF_DEEPSEEK, /* n_routed_experts of moe_intermediate_size, n_shared_experts of the same,
                  * the first first_k_dense_replace blocks dense */
    HF_GPT_OSS,  /* num_local_experts of intermediate_size with biases, experts_per_token */
    HF_ENCODER,  /* BERT: plain MLP with biases, LayerNorms with biases, position embeddings */
};

struct hf_family {
    const char *type;
    enum hf_moe moe;
    int qkv_bias;    /* biases on q, k and v (Qwen2) */
    int attn_bias;   /* biases on q, k, v and o (gpt-oss's attention_bias) */
    int qk_norm;     /* RMSNorm on each head's q and k (Qwen3, Gemma 3) */
    int norms;       /* norms per block (Gemma 2 and 3 add two after attention and MLP) */
    int sinks;       /* a learned attention sink per head (gpt-oss) */
    int mla;         /* multi-head latent attention (DeepSeek) */
    int tie_default; /* tie_word_embeddings when the config does not say */
};

static const struct hf_family families[] = {
    {"llama", HF_DENSE, 0, 0, 0, 2, 0, 0, 0},
    {"mistral", HF_DENSE, 0, 0, 0, 2, 0, 0, 0},
    {"qwen2", HF_DENSE, 1, 0, 0, 2, 0, 0, 0},
    {"qwen3", HF_DENSE, 0, 0, 1, 2, 0, 0, 0},
    {"gemma", HF_DENSE, 0, 0, 0, 2, 0, 0, 1},
    {"gemma2", HF_DENSE, 0, 0, 0, 4, 0, 0, 1},
    {"gemma3_text", HF_DENSE, 0, 0, 1, 4, 0, 0, 1},
    {"mixtral", HF_MIXTRAL, 0, 0, 0, 2, 0, 0, 0},
    {"qwen2_moe", HF_QWEN_MOE, 1, 0, 0, 2, 0, 0, 0},
    {"qwen3_moe", HF_QWEN_MOE, 0, 0, 1, 2, 0, 0, 0},
    {"deepseek_v2", HF_DEEPSEEK, 0, 0, 0, 2, 0, 1, 0},
    {"deepseek_v3", HF_DEEPSEEK, 0, 0, 0, 2, 0, 1, 0},
    {"gpt_oss", HF_GPT_OSS, 0, 1, 0, 2, 1, 0, 0},
    {"bert", HF_ENCODER, 0, 0, 0, 2, 0, 0, 1},
    {"roberta", HF_ENCODER, 0, 0, 0, 2, 0, 0, 1},
    {"xlm-roberta", HF_ENCODER, 0, 0, 0, 2, 0, 0, 1},
};
#define N_FAMILIES (sizeof families / sizeof *families)

const char *hf_families(void)
{
    static char list[512];
    if (!list[0])
        for (size_t i = 0; i < N_FAMILIES; i++) {
            size_t k = strlen(list);
            snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", families[i].type);
        }
    return list;
}

/* An integer key in [lo, hi]; JSON null counts as absent (DeepSeek writes q_lora_rank: null).
 * Absent: def, or an error when def < 0. */
static int key_int(const struct jv *j, const cJSON *o, const char *key, long lo, long hi, long def,
                   long *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v)) {
        if (def < 0)
            return jv_fail(j, key, "missing (expected an integer from %ld to %ld)", lo, hi);
        *out = def;
        return 0;
    }
    return jv_int(j, o, "", key, 1, lo, hi, out) < 0 ? -1 : 0;
}

static int key_bool(const struct jv *j, const cJSON *o, const char *key, int def, int *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = def;
    if (!v || cJSON_IsNull(v))
        return 0;
    return jv_bool(j, o, "", key, 1, out) < 0 ? -1 : 0;
}

/* What count() needs beyond struct lm_model. */
struct hf_extra {
    long max_pos, type_vocab, labels, shared_gate, router_bias, pooler;
    int tied;
};

/* Parameters of one attention block. */
static double attn_params(const struct hf_family *f, const struct lm_model *m)
{
    double h = m->hidden;
    if (f->mla) {
        double qk = (double)m->qk_nope_dim + m->qk_rope_dim, hq = (double)m->heads;
        /* Queries through a low-rank down/up projection with a norm between (V3), or one
         * projection (V2-Lite); keys and values from a shared latent of kv_lora_rank (with
         * its norm) plus one RoPE key, expanded per head to nope keys and values. */
        double q = m->q_lora_rank > 0
                       ? h * m->q_lora_rank + m->q_lora_rank + m->q_lora_rank * hq * qk
                       : h * hq * qk;
        double kv = h * (m->kv_lora_rank + m->qk_rope_dim) + m->kv_lora_rank +
                    (double)m->kv_lora_rank * hq * (m->qk_nope_dim + m->v_head_dim);
        return q + kv + hq * m->v_head_dim * h;
    }
    double q = (double)m->heads * m->head_dim, kv = (double)m->kv_heads * m->head_dim;
    double p = h * q + 2 * h * kv + q * h;
    if (f->qkv_bias || f->attn_bias)
        p += q + 2 * kv;
    if (f->attn_bias)
        p += h;
    if (f->qk_norm)
        p += 2.0 * m->head_dim;
    if (f->sinks)
        p += m->heads;
    if (f->moe == HF_ENCODER)
        p += 4 * h; /* q, k, v and o biases; o's LayerNorm is with the block's norms */
    return p;
}

static double count(const struct hf_family *f, const struct lm_model *m, const struct hf_extra *x)
{
    double h = m->hidden, v = m->vocab;
    double per_mlp = (m->plain_mlp ? 2.0 : 3.0) * h * m->intermediate;
    if (f->moe == HF_ENCODER) {
        /* Word, position and token-type embeddings and their LayerNorm; per block attention,
         * two LayerNorms (weight and bias) and the MLP with its biases; the pooler (…Model)
         * or the classification head (…ForSequenceClassification). */
        double emb = (v + x->max_pos + x->type_vocab) * h + 2 * h;
        double block = attn_params(f, m) + 4 * h + per_mlp + m->intermediate + h;
        double head = x->pooler ? h * h + h : 0;
        if (x->labels > 0)
            head += h * h + h + h * x->labels + x->labels;
        return emb + m->layers * block + head;
    }
    double moe_layer = 0;
    if (m->experts > 0) {
        moe_layer = m->experts * lm_expert_params(m) + h * m->experts;
        moe_layer += 3.0 * h * m->shared_intermediate + x->shared_gate * h;
        moe_layer += x->router_bias ? m->experts : 0;
        if (f->moe == HF_GPT_OSS) /* biases of gate_up and down in each expert */
            moe_layer += (double)m->experts * (2.0 * m->moe_intermediate + h);
    }
    int moe = lm_moe_layers(m), dense = m->layers - moe;
    double norms = f->norms * h;
    return m->layers * (attn_params(f, m) + norms) + dense * per_mlp + moe * moe_layer + h +
           v * h * (x->tied ? 1 : 2);
}

/* The MoE keys of family f into m (and the router's extras into x). */
static int read_moe(const struct jv *j, const cJSON *o, const struct hf_family *f,
                    struct lm_model *m, struct hf_extra *x)
{
    long e = 0, k = 0, w = 0, sh = 0, dense = 0, step = 1;
    const char *n_key = f->moe == HF_QWEN_MOE   ? "num_experts"
                        : f->moe == HF_DEEPSEEK ? "n_routed_experts"
                                                : "num_local_experts";
    const char *k_key =
        f->moe == HF_GPT_OSS && cJSON_GetObjectItemCaseSensitive(o, "experts_per_token")
            ? "experts_per_token"
            : "num_experts_per_tok";
    if (key_int(j, o, n_key, 1, LM_MAX_EXPERTS, -1, &e) || key_int(j, o, k_key, 1, e, -1, &k))
        return -1;
    if (f->moe == HF_MIXTRAL || f->moe == HF_GPT_OSS)
        w = m->intermediate;
    else if (key_int(j, o, "moe_intermediate_size", 1, 10000000, -1, &w))
        return -1;
    if (f->moe == HF_QWEN_MOE) {
        const cJSON *only = cJSON_GetObjectItemCaseSensitive(o, "mlp_only_layers");
        if (key_int(j, o, "shared_expert_intermediate_size", 0, 10000000, 0, &sh) ||
            key_int(j, o, "decoder_sparse_step", 1, m->layers, 1, &step))
            return -1;
        x->shared_gate = sh > 0;
        /* A block is sparse unless listed in mlp_only_layers or off the sparse step. */
        for (int l = 0; l < m->layers; l++) {
            int listed = 0;
            const cJSON *it;
            cJSON_ArrayForEach(it, only) listed |= cJSON_IsNumber(it) && it->valueint == l;
            dense += listed || (l + 1) % step != 0;
        }
    } else if (f->moe == HF_DEEPSEEK) {
        long ns = 0;
        const cJSON *tm = cJSON_GetObjectItemCaseSensitive(o, "topk_method");
        if (key_int(j, o, "n_shared_experts", 0, LM_MAX_EXPERTS, 0, &ns) ||
            key_int(j, o, "first_k_dense_replace", 0, m->layers, 0, &dense))
            return -1;
        sh = ns * w;
        /* V3's auxiliary-loss-free balancing adds a bias per expert to the router. */
        x->router_bias = cJSON_IsString(tm) && strcmp(tm->valuestring, "noaux_tc") == 0;
    } else if (f->moe == HF_GPT_OSS) {
        x->router_bias = 1;
    }
    m->experts = (int)e, m->experts_per_token = (int)k, m->moe_intermediate = (int)w;
    m->shared_intermediate = (int)sh, m->dense_layers = (int)dense;
    return 0;
}

static int read_mla(const struct jv *j, const cJSON *o, struct lm_model *m)
{
    long r = 0, qr = 0, rope = 0, nope = 0, vd = 0;
    if (key_int(j, o, "kv_lora_rank", 1, LM_MAX_RANK, -1, &r) ||
        key_int(j, o, "q_lora_rank", 0, LM_MAX_RANK, 0, &qr) ||
        key_int(j, o, "qk_rope_head_dim", 1, 100000, -1, &rope) ||
        key_int(j, o, "qk_nope_head_dim", 1, 100000, -1, &nope) ||
        key_int(j, o, "v_head_dim", 1, 100000, -1, &vd))
        return -1;
    m->kv_lora_rank = (int)r, m->q_lora_rank = (int)qr, m->qk_rope_dim = (int)rope;
    m->qk_nope_dim = (int)nope, m->v_head_dim = (int)vd;
    /* Every head keeps its own query/key and value widths; the step model's attention uses
     * the key width, and the cache is the latent (lm_kv_bytes_per_token). */
    m->head_dim = (int)(nope + rope);
    m->kv_heads = m->heads;
    return 0;
}

/* The model's kind from architectures[0]. */
static enum lm_kind kind_of(const cJSON *root, const struct hf_family *f, struct hf_extra *x)
{
    const cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "architectures"), 0);
    const char *s = cJSON_IsString(a) ? a->valuestring : "";
    size_t n = strlen(s);
#define ENDS(t) (n >= strlen(t) && strcmp(s + n - strlen(t), t) == 0)
    if (ENDS("ForSequenceClassification")) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(root, "id2label");
        x->labels = cJSON_IsObject(l) ? cJSON_GetArraySize(l) : 2;
        return LM_RERANKER;
    }
    if (ENDS("ForCausalLM") || ENDS("ForConditionalGeneration") || ENDS("LMHeadModel"))
        return LM_DECODER;
    if (f->moe == HF_ENCODER || ENDS("Model")) {
        x->pooler = f->moe == HF_ENCODER;
        return LM_EMBEDDING;
    }
    return LM_DECODER;
#undef ENDS
}

/* The name a config gives its model: its directory's (…/Qwen3-8B/config.json), or the file's
 * without .json. */
static void name_of(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strcmp(base, "config.json") == 0 && base > path + 1) {
        const char *end = base - 1, *dir;
        while (end > path && end[-1] == '/') /* "dir//config.json" */
            end--;
        dir = end;
        while (dir > path && dir[-1] != '/')
            dir--;
        snprintf(out, n, "%.*s", (int)(end - dir), dir);
        return;
    }
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    snprintf(out, n, "%.*s", (int)len, base);
}

static int read_model(const struct jv *j, const cJSON *root, const char *path, struct lm_model *m)
{
    const cJSON *o = root;
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    if (cJSON_IsObject(tc))
        o = tc;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "model_type");
    if (!cJSON_IsString(t) && o != root)
        t = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (!cJSON_IsString(t))
        return jv_fail(j, "model_type", "missing (expected one of %s)", hf_families());
    char type[64];
    snprintf(type, sizeof type, "%s", t->valuestring);
    if (o != root && strcmp(type, "gemma3") == 0)
        snprintf(type, sizeof type, "gemma3_text");
    const struct hf_family *f = NULL;
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (strcmp(families[i].type, type) == 0)
            f = &families[i];
    if (!f)
        return jv_fail(j, "model_type", "unknown family \"%s\" (expected one of %s)", type,
                       hf_families());
    long h, in = 0, layers, heads, kvh, hd, vocab;
    struct hf_extra x = {0};
    memset(m, 0, sizeof *m);
    m->plain_mlp = f->moe == HF_ENCODER;
    if (key_int(j, o, "hidden_size", 1, 1000000, -1, &h) ||
        key_int(j, o, "num_hidden_layers", 1, 10000, -1, &layers) ||
        key_int(j, o, "num_attention_heads", 1, 10000, -1, &heads) ||
        key_int(j, o, "intermediate_size", 1, 10000000, -1, &in) ||
        key_int(j, o, "num_key_value_heads", 1, heads, heads, &kvh) ||
        key_int(j, o, "head_dim", 1, 100000, h / heads > 0 ? h / heads : 1, &hd) ||
        key_int(j, o, "vocab_size", 1, 100000000, -1, &vocab) ||
        key_bool(j, o, "tie_word_embeddings", f->tie_default, &x.tied))
        return -1;
    if (heads % kvh != 0)
        return jv_fail(j, "num_key_value_heads",
                       "expected a divisor of num_attention_heads (%ld), got %ld", heads, kvh);
    m->hidden = (int)h, m->intermediate = (int)in, m->layers = (int)layers;
    m->heads = (int)heads, m->kv_heads = (int)kvh, m->head_dim = (int)hd, m->vocab = (int)vocab;
    if (f->moe == HF_ENCODER &&
        (key_int(j, o, "max_position_embeddings", 1, 100000000, -1, &x.max_pos) ||
         key_int(j, o, "type_vocab_size", 0, 1000000, 2, &x.type_vocab)))
        return -1;
    if (f->mla && read_mla(j, o, m))
        return -1;
    if (f->moe != HF_DENSE && f->moe != HF_ENCODER && read_moe(j, o, f, m, &x))
        return -1;
    m->kind = kind_of(root, f, &x);
    m->params = count(f, m, &x);
    lm_set_active(m);
    name_of(path, m->name, sizeof m->name);
    return 0;
}

int hf_load(const char *path, struct lm_model *m, char *err, size_t errlen)
{
    struct jv j = {path, err, errlen};
    cJSON *root = jv_parse_file(&j, HF_CONFIG_MAX_BYTES);
    if (!root)
        return -1;
    int rc = cJSON_IsObject(root) ? read_model(&j, root, path, m)
                                  : jv_fail(&j, "", "expected an object (a config.json)");
    cJSON_Delete(root);
    return rc;
}
