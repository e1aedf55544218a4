/*
 * model (llm/model.c): the shipped model table against an independent count — every
 * parameter count is recomputed from the entry's shapes (the Llama layout) and must agree
 * exactly; the KV bytes per token and the weights' bytes by hand (Llama-2-7B: 13.48 GB in
 * fp16 and 0.5 MiB of KV per token, the figures the serving literature quotes); lookups by
 * alias ignoring case; errors naming the path and the known models.
 */
#include "llm/model.h"
#include "testutil.h"

#include <cJSON.h>
#include <math.h>
#include <string.h>

static void find(const char *name, struct lm_model *m)
{
    char err[1024];
    int rc = lm_find(NULL, name, m, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static void test_counts_from_shapes(void)
{
    static const struct {
        const char *name;
        int qkv_bias;
    } models[] = {{"Llama-2-7B", 0},  {"Llama-2-13B", 0}, {"Llama-3-8B", 0},
                  {"Llama-3-70B", 0}, {"Mistral-7B", 0},  {"Qwen2.5-7B", 1}};
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        struct lm_model m;
        find(models[i].name, &m);
        CU_ASSERT_STRING_EQUAL(m.name, models[i].name);
        /* The published count is all parameters; the shapes give the same integer. */
        CU_ASSERT_DOUBLE_EQUAL(lm_arch_params(&m, models[i].qkv_bias), m.params, 0.5);
        CU_ASSERT_EQUAL(m.heads % m.kv_heads, 0);
    }
}

static void test_bytes_by_hand(void)
{
    struct lm_model m;
    find("llama-2-7b", &m); /* case ignored */
    /* 6,738,415,616 parameters × 2 bytes. */
    CU_ASSERT_DOUBLE_EQUAL(lm_weight_bytes(&m, RD_FP16), 13476831232.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(lm_weight_bytes(&m, RD_FP8), 6738415616.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(lm_weight_bytes(&m, RD_INT4), 3369207808.0, 0);
    /* 2 (K and V) × 32 layers × 32 KV heads × 128 × 2 bytes = 524,288 = 0.5 MiB. */
    CU_ASSERT_DOUBLE_EQUAL(lm_kv_bytes_per_token(&m, RD_FP16), 524288.0, 0);
    find("meta-llama/Meta-Llama-3-8B", &m); /* an alias */
    CU_ASSERT_STRING_EQUAL(m.name, "Llama-3-8B");
    /* Grouped-query attention: 8 KV heads, a quarter of Llama-2-7B's cache per token. */
    CU_ASSERT_DOUBLE_EQUAL(lm_kv_bytes_per_token(&m, RD_FP16), 131072.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(lm_kv_bytes_per_token(&m, RD_FP8), 65536.0, 0);
    find("Qwen2.5-7B", &m);
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

void test_model_register(void)
{
    static const struct tu_test t[] = {
        {"every shipped parameter count equals its shapes' count", test_counts_from_shapes},
        {"weights and KV bytes per token by hand", test_bytes_by_hand},
        {"unknown names list the table, inline models are checked", test_unknown_and_inline},
        {"a table entry without a source is refused", test_table_errors},
        {NULL, NULL},
    };
    tu_add_suite("model", t);
}
