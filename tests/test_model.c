/*
 * model (llm/model.c): the shipped model table against an independent count — every
 * parameter count is recomputed from the entry's shapes (the Llama layout) and must agree
 * exactly; the KV bytes per token and the weights' bytes by hand (Llama-2-7B: 13.48 GB in
 * fp16 and 0.5 MiB of KV per token, the figures the serving literature quotes); lookups by
 * alias ignoring case; errors naming the path and the known models.
 */
#include "llm/hfconfig.h"
#include "llm/model.h"
#include "llm/sched.h"
#include "testutil.h"

#include <cJSON.h>
#include <math.h>
#include <string.h>

static void test_counts_from_shapes(void)
{
    static const struct {
        const char *name;
        int qkv_bias;
    } models[] = {{"Llama-2-7B", 0},  {"Llama-2-13B", 0}, {"Llama-3-8B", 0},
                  {"Llama-3-70B", 0}, {"Mistral-7B", 0},  {"Qwen2.5-7B", 1}};
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        struct lm_model m;
        tu_model(models[i].name, &m);
        CU_ASSERT_STRING_EQUAL(m.name, models[i].name);
        /* The published count is all parameters; the shapes give the same integer. */
        CU_ASSERT_DOUBLE_EQUAL(lm_arch_params(&m, models[i].qkv_bias), m.params, 0.5);
        CU_ASSERT_EQUAL(m.heads % m.kv_heads, 0);
    }
}

static void test_bytes_by_hand(void)
{
    struct lm_model m;
    tu_model("llama-2-7b", &m); /* case ignored */
    /* 6,738,415,616 parameters × 2 bytes. */
    CU_ASSERT_DOUBLE_EQUAL(lm_weight_bytes(&m, RD_FP16), 13476831232.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(lm_weight_bytes(&m, RD_FP8), 6738415616.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(lm_weight_bytes(&m, RD_INT4), 3369207808.0, 0);
    /* 2 (K and V) × 32 layers × 32 KV heads × 128 × 2 bytes = 524,288 = 0.5 MiB. */
    CU_ASSERT_DOUBLE_EQUAL(lm_kv_bytes_per_token(&m, RD_FP16), 524288.0, 0);
    tu_model("meta-llama/Meta-Llama-3-8B", &m); /* an alias */
    CU_ASSERT_STRING_EQUAL(m.name, "Llama-3-8B");
    /* Grouped-query attention: 8 KV heads, a quarter of Llama-2-7B's cache per token. */
    CU_ASSERT_DOUBLE_EQUAL(lm_kv_bytes_per_token(&m, RD_FP16), 131072.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(lm_kv_bytes_per_token(&m, RD_FP8), 65536.0, 0);
    tu_model("Qwen2.5-7B", &m);
    CU_ASSERT_DOUBLE_EQUAL(lm_kv_bytes_per_token(&m, RD_BF16), 2.0 * 28 * 4 * 128 * 2, 0);
}

static void test_unknown_and_inline(void)
{
    struct lm_model m;
    char err[1024];
    CU_ASSERT_EQUAL(lm_find(NULL, "GPT-5", &m, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "unknown model \"GPT-5\"");
    TU_CHECK_CONTAINS(err, "Llama-2-7B, Llama-2-13B");
    TU_CHECK_CONTAINS(err, "Qwen2.5-7B");

    struct jv j = {"s.json", err, sizeof err};
    cJSON *o = cJSON_Parse("{\"params\": 1e9, \"layers\": 16, \"hidden\": 2048, "
                           "\"intermediate\": 8192, \"heads\": 32, \"kv_heads\": 8, "
                           "\"head_dim\": 64, \"vocab\": 128256}");
    CU_ASSERT_EQUAL(lm_parse(&j, o, "tenants[0].serving.model", 0, &m), 0);
    CU_ASSERT_EQUAL(m.kv_heads, 8);
    CU_ASSERT_DOUBLE_EQUAL(lm_kv_bytes_per_token(&m, RD_FP16), 2.0 * 16 * 8 * 64 * 2, 0);
    cJSON_ReplaceItemInObject(o, "kv_heads", cJSON_CreateNumber(5));
    CU_ASSERT_EQUAL(lm_parse(&j, o, "tenants[0].serving.model", 0, &m), -1);
    TU_CHECK_CONTAINS(err, "s.json: tenants[0].serving.model.kv_heads: expected a divisor of "
                           "heads (32), got 5");
    cJSON_ReplaceItemInObject(o, "kv_heads", cJSON_CreateNumber(8));
    cJSON_AddStringToObject(o, "aliases", "x");
    CU_ASSERT_EQUAL(lm_parse(&j, o, "m", 0, &m), -1);
    TU_CHECK_CONTAINS(err, "aliases");
    cJSON_DeleteItemFromObject(o, "aliases");
    cJSON_DeleteItemFromObject(o, "layers");
    CU_ASSERT_EQUAL(lm_parse(&j, o, "m", 0, &m), -1);
    TU_CHECK_CONTAINS(err, "m.layers: missing");
    cJSON_Delete(o);
}

static void test_table_errors(void)
{
    struct lm_model m;
    char err[1024];
    const char *p = tu_write("models-bad.json",
                             "{\"schema\": \"sharesim-models/1\", \"models\": [{\"name\": \"x\", "
                             "\"params\": 1, \"layers\": 1, \"hidden\": 1, \"intermediate\": 1, "
                             "\"heads\": 1, \"kv_heads\": 1, \"head_dim\": 1, \"vocab\": 1}]}");
    /* A table entry must say where its figures come from. */
    CU_ASSERT_EQUAL(lm_find(p, "x", &m, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "models[0].source: missing");
}

/* Each family's config.json (tests/fixtures/models/, from the published files cited in the
 * table's sources) against the parameter count its publisher states (within 1 %), and the
 * shipped entry (the same integer). */
static void test_configs(void)
{
    static const struct {
        const char *dir, *entry;
        double published;
        enum lm_kind kind;
    } c[] = {
        {"Llama-3.1-8B", "Llama-3.1-8B", 8.03e9, LM_DECODER},
        {"Mistral-7B-v0.1", "Mistral-7B", 7.24e9, LM_DECODER},
        {"Qwen2.5-7B", "Qwen2.5-7B", 7.61e9, LM_DECODER},
        {"Qwen3-8B", "Qwen3-8B", 8.2e9, LM_DECODER},
        {"gemma-2-9b", "Gemma-2-9B", 9.24e9, LM_DECODER},
        {"gemma-3-1b-it", "Gemma-3-1B", 1.0e9, LM_DECODER},
        {"Mixtral-8x7B-v0.1", "Mixtral-8x7B", 46.7e9, LM_DECODER},
        {"Qwen1.5-MoE-A2.7B", "Qwen1.5-MoE-A2.7B", 14.3e9, LM_DECODER},
        {"Qwen3-30B-A3B", "Qwen3-30B-A3B", 30.5e9, LM_DECODER},
        {"DeepSeek-V2-Lite", "DeepSeek-V2-Lite", 15.7e9, LM_DECODER},
        {"DeepSeek-V3", "DeepSeek-V3", 671e9, LM_DECODER},
        {"gpt-oss-20b", "gpt-oss-20b", 20.9e9, LM_DECODER},
        {"gpt-oss-120b", "gpt-oss-120b", 116.8e9, LM_DECODER},
        {"bge-large-en-v1.5", "BGE-large-en-v1.5", 335e6, LM_EMBEDDING},
        {"bge-reranker-v2-m3", "BGE-reranker-v2-m3", 568e6, LM_RERANKER},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char path[256], err[1024];
        snprintf(path, sizeof path, "models/%s/config.json", c[i].dir);
        snprintf(path, sizeof path, "%s", tu_fixture(path));
        struct lm_model m, t;
        int rc = hf_load(path, &m, err, sizeof err);
        if (rc)
            fprintf(stderr, "\n%s\n", err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        CU_ASSERT_STRING_EQUAL(m.name, c[i].dir);
        if (fabs(m.params / c[i].published - 1) > 0.01)
            fprintf(stderr, "\n%s: %.0f against %.0f published\n", c[i].dir, m.params,
                    c[i].published);
        CU_ASSERT(fabs(m.params / c[i].published - 1) <= 0.01);
        CU_ASSERT_EQUAL(m.kind, c[i].kind);
        tu_model(c[i].entry, &t);
        CU_ASSERT_DOUBLE_EQUAL(t.params, m.params, 0.5);
        CU_ASSERT_EQUAL(t.experts, m.experts);
        CU_ASSERT_EQUAL(t.kv_lora_rank, m.kv_lora_rank);
        CU_ASSERT_EQUAL(t.kind, m.kind);
    }
    /* The active counts the publishers give, embeddings and head included in ours. */
    struct lm_model m;
    tu_model("Qwen3-30B-A3B", &m);
    CU_ASSERT_DOUBLE_EQUAL(m.active_params * 1e-9, 3.3, 0.1);
    tu_model("DeepSeek-V3", &m);
    CU_ASSERT_DOUBLE_EQUAL(m.active_params * 1e-9, 37.5, 0.5);
}

static void test_aliases(void)
{
    struct lm_model m;
    char err[4096];
    tu_model("meta-llama/Meta-Llama-3-8B-Instruct", &m);
    CU_ASSERT_STRING_EQUAL(m.name, "Llama-3-8B");
    tu_model("Llama-3.1-8B-Instruct", &m);
    CU_ASSERT_STRING_EQUAL(m.name, "Llama-3.1-8B");
    tu_model("meta-llama/Llama-3.1-70B-Instruct", &m);
    CU_ASSERT_STRING_EQUAL(m.name, "Llama-3.1-70B");
    tu_model("Llama-3.3-70B-Instruct", &m);
    CU_ASSERT_STRING_EQUAL(m.name, "Llama-3.1-70B");
    tu_model("google/gemma-2-9b-it", &m);
    CU_ASSERT_STRING_EQUAL(m.name, "Gemma-2-9B");
    tu_model("Qwen/Qwen2.5-72B-Instruct", &m);
    CU_ASSERT_STRING_EQUAL(m.name, "Qwen2.5-72B");
    tu_model("intfloat/e5-large-v2", &m);
    CU_ASSERT_EQUAL(m.kind, LM_EMBEDDING);
    CU_ASSERT_EQUAL(lm_find(NULL, "Llama-3.2-3B", &m, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "unknown model \"Llama-3.2-3B\"");
    TU_CHECK_CONTAINS(err, "aliases of the nearest: ");
    TU_CHECK_CONTAINS(err, "meta-llama/Llama-3.1-8B");
}

static void test_config_errors(void)
{
    struct lm_model m;
    char err[1024];
    const char *p =
        tu_write("cfg-missing.json", "{\"model_type\": \"llama\", \"hidden_size\": 64}");
    CU_ASSERT_EQUAL(hf_load(p, &m, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "cfg-missing.json: num_hidden_layers: missing");
    p = tu_write("cfg-family.json", "{\"model_type\": \"mamba\"}");
    CU_ASSERT_EQUAL(hf_load(p, &m, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "model_type: unknown family \"mamba\" (expected one of llama");
    /* Inline: relative to the scenario file, the error naming both files and the key. */
    char scen[512];
    snprintf(scen, sizeof scen, "%s", tu_fixture("models/scenario.json"));
    struct jv j = {scen, err, sizeof err};
    cJSON *o = cJSON_Parse("{\"config\": \"Qwen3-8B/config.json\", \"name\": \"q\"}");
    CU_ASSERT_EQUAL(lm_parse(&j, o, "tenants[0].serving.model", 0, &m), 0);
    CU_ASSERT_STRING_EQUAL(m.name, "q");
    CU_ASSERT_DOUBLE_EQUAL(m.params, 8190735360.0, 0.5);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"config\": \"nowhere/config.json\"}");
    CU_ASSERT_EQUAL(lm_parse(&j, o, "tenants[0].serving.model", 0, &m), -1);
    TU_CHECK_CONTAINS(err, "scenario.json: tenants[0].serving.model.config: ");
    TU_CHECK_CONTAINS(err, "nowhere/config.json");
    cJSON_Delete(o);
    o = cJSON_Parse("{\"config\": \"Qwen3-8B/config.json\", \"layers\": 3}");
    CU_ASSERT_EQUAL(lm_parse(&j, o, "m", 0, &m), -1);
    TU_CHECK_CONTAINS(err, "m.layers: unknown key");
    cJSON_Delete(o);
}

/* An embedding model's requests are prefill-only: 8 prompts of 100 tokens are one step, and
 * each completes at its end (its first "token" is its result, and its last). */
static void test_embedding_batch(void)
{
    struct ls_cfg c = {1000, 16, 256, 2048, 1, 0, 0, 0, 0, 1, 0};
    struct ls_sched s;
    struct ls_step st = {0};
    ls_init(&s, &c);
    for (int i = 0; i < 8; i++)
        CU_ASSERT(ls_add(&s, i, 100, 50, 0) >= 0); /* the output is ignored */
    CU_ASSERT_EQUAL(ls_schedule(&s, &st), 8);
    CU_ASSERT_EQUAL(st.tokens, 800);
    ls_complete(&s, &st, 0.25);
    ls_check(&s);
    for (int i = 0; i < st.n; i++) {
        CU_ASSERT(st.items[i].emits && st.items[i].first && st.items[i].done);
        CU_ASSERT_EQUAL(st.items[i].n_new, 100);
    }
    CU_ASSERT_EQUAL(ls_running(&s), 0);
    CU_ASSERT_EQUAL(ls_schedule(&s, &st), 0); /* nothing decodes after */
    ls_step_free(&st);
    ls_free(&s);
}

void test_model_register(void)
{
    static const struct tu_test t[] = {
        {"every shipped parameter count equals its shapes' count", test_counts_from_shapes},
        {"weights and KV bytes per token by hand", test_bytes_by_hand},
        {"unknown names list the table, inline models are checked", test_unknown_and_inline},
        {"a table entry without a source is refused", test_table_errors},
        {"each family's config.json gives its published count within 1 %", test_configs},
        {"Hugging Face ids and instruct variants; the unknown-name error lists aliases",
         test_aliases},
        {"config.json errors name the file and the key; paths relative to the scenario",
         test_config_errors},
        {"an embedding model: a batch of 8 is one step, each done at its end",
         test_embedding_batch},
        {NULL, NULL},
    };
    tu_add_suite("model", t);
}
