/*
 * The four-services LLM study (workloads/llm-four-services.json, results/llm-four-services.md)
 * through the CLI, scaled down: under every strategy of the study every request is accounted
 * for (arrived = completed + rejected + failed + in flight, per service, with the run cut off
 * before the services drain) and every output token sampled once; and under every sharing
 * strategy each service's KV cache holds exactly the blocks left by its memory less the
 * weights and the activation reserve, worked out here by hand from the models' published shapes and
 * the memory the strategy gives: a MIG instance's (1g.20gb and 2g.20gb: 19.62 GB, docs/mig.md), or
 * under MPS and time-slicing an equal split of the 80 GB among the services on the GPU. A request
 * of exactly that many tokens is served, one token more fails on arrival (docs/llm.md#scheduler).
 */
#include "llm/serving.h"
#include "testutil.h"

#include <cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STUDY "workloads/llm-four-services.json"

/* The study, parsed; trace paths made absolute so that the patched copy can live elsewhere. */
static cJSON *study(void)
{
    char *text = tu_slurp(STUDY);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    char cwd[2048];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(doc, "tenants"))
    {
        cJSON *a = cJSON_GetObjectItem(t, "arrival");
        cJSON *p = cJSON_GetObjectItem(a, "path");
        if (cJSON_IsString(p) && strncmp(p->valuestring, "../", 3) == 0) {
            char abs[4096];
            snprintf(abs, sizeof abs, "%s/%s", cwd, p->valuestring + 3);
            cJSON_ReplaceItemInObject(a, "path", cJSON_CreateString(abs));
        }
    }
    return doc;
}

static char *write_doc(const char *name, cJSON *doc)
{
    char *text = cJSON_Print(doc);
    char *path = tu_write(name, text);
    free(text);
    return path;
}

static void test_conservation(void)
{
    cJSON *doc = study();
    /* Ten minutes after a minute's warm-up, stopped without draining: requests are still in
     * the engines at the end, and count as in flight. */
    cJSON_ReplaceItemInObject(doc, "stop", cJSON_Parse("{\"duration_s\": 600, \"drain\": false}"));
    cJSON_ReplaceItemInObject(doc, "warmup", cJSON_Parse("{\"duration_s\": 60}"));
    int n_strat = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "strategies"));
    int n_ten = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "tenants"));
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "run '%s' --quiet", write_doc("llmstudy-short.json", doc));
    cJSON_Delete(doc);
    cJSON *r = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(r, "strategies")), n_strat);
    double in_flight = 0;
    for (int k = 0; k < n_strat; k++)
        for (int i = 0; i < n_ten; i++) {
            char p[128];
#define AT(key) (snprintf(p, sizeof p, "strategies.%d.tenants.%d.%s", k, i, key), tu_json_num(r, p))
            double arrived = AT("arrived"), done = AT("completed"), rej = AT("rejected"),
                   failed = AT("failed"), fl = AT("in_flight");
            CU_ASSERT(arrived > 0);
            CU_ASSERT(done > 0);
            CU_ASSERT_DOUBLE_EQUAL(arrived, done + rej + failed + fl, 0);
            /* every service's tokens fit its cache: nothing is refused */
            CU_ASSERT_DOUBLE_EQUAL(failed + rej, 0, 0);
            in_flight += fl;
            /* a service that completed requests generated tokens and met some first token */
            CU_ASSERT(AT("llm.output_tokens_per_s") > 0);
            CU_ASSERT(AT("llm.ttft_ms.p99") > 0);
#undef AT
        }
    CU_ASSERT(in_flight > 0); /* the cut-off left work in the system: the last term is tested */
    cJSON_Delete(r);
}

/* Tokens none vanish: every service replays 40 requests of known prompt and output lengths in
 * its first 78 s, then one last request at 600 s that ends the measurement window (its one
 * token comes after it). All 40 finish long before, so inside the window each service
 * completed exactly 40 and sampled exactly the sum of their output tokens, under every
 * strategy: throughput × 600 s = 40 and output tokens/s × 600 s = that sum. */
static void test_tokens_conserved(void)
{
    cJSON *doc = study();
    cJSON_DeleteItemFromObject(doc, "stop");
    cJSON_DeleteItemFromObject(doc, "warmup");
    int n_strat = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "strategies"));
    cJSON *t;
    long sum[8] = {0};
    int i = 0;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(doc, "tenants"))
    {
        char csv[4096] = "time_s,input_tokens,output_tokens\n", name[64], arr[1024];
        for (int k = 0; k < 40; k++) {
            long in = 200 + 37 * k + 100 * i, out = 5 + (13 * k + 7 * i) % 60;
            sum[i] += out;
            size_t len = strlen(csv);
            snprintf(csv + len, sizeof csv - len, "%d,%ld,%ld\n", 2 * k, in, out);
        }
        size_t len = strlen(csv);
        snprintf(csv + len, sizeof csv - len, "600,1,1\n");
        snprintf(name, sizeof name, "llmstudy-tokens-%d.csv", i++);
        snprintf(arr, sizeof arr,
                 "{\"process\": \"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}",
                 tu_write(name, csv));
        cJSON_ReplaceItemInObject(t, "arrival", cJSON_Parse(arr));
        cJSON_DeleteItemFromObject(t, "tokens");
    }
    int n_ten = i;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "run '%s' --quiet --no-slowdown",
             write_doc("llmstudy-tokens.json", doc));
    cJSON_Delete(doc);
    cJSON *r = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (int k = 0; k < n_strat; k++)
        for (int j = 0; j < n_ten; j++) {
            char p[128];
#define AT(key) (snprintf(p, sizeof p, "strategies.%d.tenants.%d.%s", k, j, key), tu_json_num(r, p))
            CU_ASSERT_DOUBLE_EQUAL(AT("arrived"), 41, 0);
            double done = AT("completed"), in_flight = AT("in_flight"); /* one AT at a time */
            CU_ASSERT_DOUBLE_EQUAL(done + in_flight, 41, 0);
            TU_CHECK_CLOSE_REL(AT("throughput_per_s") * 600, 40, 1e-5);
            TU_CHECK_CLOSE_REL(AT("llm.output_tokens_per_s") * 600, (double)sum[j], 1e-5);
#undef AT
        }
    cJSON_Delete(r);
}

/* A model's shapes as its config.json publishes them (docs/llm.md#models), and the bytes of
 * its weights' type in the study. */
struct shape {
    const char *name;
    double params;
    int layers, hidden, inter, kv_heads, head_dim, vocab;
    double wbytes;
};
static const struct shape shapes[] = {
    {"Llama-2-7B", 6738415616.0, 32, 4096, 11008, 32, 128, 32000, 0},
    {"Mistral-7B", 7241732096.0, 32, 4096, 14336, 8, 128, 32000, 0},
    {"Qwen2.5-7B", 7615616512.0, 28, 3584, 18944, 4, 128, 152064, 0},
    {"Llama-3-8B", 8030261248.0, 32, 4096, 14336, 8, 128, 128256, 0},
};

/* KV blocks of 16 tokens in an instance of memory_gb GiB (vLLM's defaults on an H100: 0.9 of
 * the memory, max_batched_tokens 8192, max_num_seqs 1024, a KV cache in 16 bits), by hand. */
static long kv_blocks(const struct shape *m, double wbytes, double memory_gb)
{
    /* The strategy's memory is GiB; vLLM's defaults on an H100 (≥ 70 GiB, not an A100): 8,192
     * tokens a step and 1,024 sequences size the activation reserve; the non-torch allowance. */
    const double gib = 1073741824e-9;
    double usable = memory_gb * gib * 0.9;
    double weights = m->params * wbytes * 1e-9;
    double reserve =
        (8192.0 * (4.0 * m->hidden + 2.0 * m->inter) * 2 + 1024.0 * m->vocab * 4) * 1e-9;
    double block = 2.0 * m->layers * m->kv_heads * m->head_dim * 2 * 16 * 1e-9;
    return (long)floor((usable - weights - reserve - LSV_NON_TORCH_GIB * gib) / block);
}

/* The memory an engine of tenant `name` gets under strategy s, in GB: a MIG instance's (both
 * layouts use only 1g.20gb and 2g.20gb, 19.62 GB each, docs/mig.md); under MPS and
 * time-slicing an equal split of the H100-80GB's 80 GB among the LLM tenants on its GPU
 * (no plain tenant holds any, no pinned limit is set: docs/llm.md#serving-under-the-strategies). */
static double memory_of(const cJSON *s, const char *name)
{
    const char *kind = cJSON_GetObjectItem(s, "kind")->valuestring;
    if (strcmp(kind, "mig") == 0)
        return 19.62;
    const cJSON *assign = cJSON_GetObjectItem(s, "assign"), *a;
    int gpu = cJSON_GetObjectItem(assign, name)->valueint, n = 0;
    cJSON_ArrayForEach(a, assign) n += a->valueint == gpu;
    return 80.0 / n;
}

static const struct shape *shape_of(const cJSON *tenant, double *wbytes)
{
    const cJSON *sv = cJSON_GetObjectItem(tenant, "serving");
    const char *model = cJSON_GetObjectItem(sv, "model")->valuestring;
    *wbytes = strcmp(cJSON_GetObjectItem(sv, "dtype")->valuestring, "fp8") == 0 ? 1 : 2;
    for (size_t q = 0; q < sizeof shapes / sizeof shapes[0]; q++)
        if (strcmp(shapes[q].name, model) == 0)
            return &shapes[q];
    return NULL;
}

static void test_kv_capacity(void)
{
    /* Worked out once by hand for a 19.62 GiB instance (18.9601 GB at 0.9), with the H100's
     * defaults (8,192 tokens, 1,024 sequences) sizing the reserve and 0.1611 GB non-torch:
     * Llama-2-7B fp16: 18.9601 − 13.4768 − 0.7602 − 0.1611 = 4.5620 GB / 8.3886 MB = 543;
     * Mistral-7B fp16: 18.9601 − 14.4835 − 0.8693 − 0.1611 = 3.4463 GB / 2.0972 MB = 1643;
     * Qwen2.5-7B fp16: 18.9601 − 15.2312 − 1.4785 − 0.1611 = 2.0893 GB / 0.9175 MB = 2277;
     * Llama-3-8B fp8: 18.9601 − 8.0303 − 1.2635 − 0.1611 = 9.5053 GB / 2.0972 MB = 4532;
     * and Llama-2-7B with a quarter of 80 GiB (MPS, time-slicing): 19.3274 − 13.4768 − 0.7602 −
     * 0.1611 = 4.9292 GB = 587 blocks. */
    CU_ASSERT_EQUAL(kv_blocks(&shapes[0], 2, 19.62), 543);
    CU_ASSERT_EQUAL(kv_blocks(&shapes[1], 2, 19.62), 1643);
    CU_ASSERT_EQUAL(kv_blocks(&shapes[2], 2, 19.62), 2277);
    CU_ASSERT_EQUAL(kv_blocks(&shapes[3], 1, 19.62), 4532);
    CU_ASSERT_EQUAL(kv_blocks(&shapes[0], 2, 20), 587);

    cJSON *doc = study();
    cJSON_DeleteItemFromObject(doc, "stop");
    cJSON_DeleteItemFromObject(doc, "warmup");
    cJSON *strats = cJSON_DetachItemFromObject(doc, "strategies"), *s;
    int n_ten = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "tenants")), n_shared = 0;
    /* One run per sharing strategy (exclusive is a whole GPU's, docs/llm.md#memory): each
     * service replays two requests far apart, one of exactly its cache's tokens (prompt and
     * its one output token), then one a token longer. */
    cJSON_ArrayForEach(s, strats)
    {
        const char *sname = cJSON_GetObjectItem(s, "name")->valuestring;
        if (strcmp(cJSON_GetObjectItem(s, "kind")->valuestring, "exclusive") == 0)
            continue;
        n_shared++;
        cJSON *one = cJSON_Duplicate(doc, 1), *list = cJSON_CreateArray(), *t;
        cJSON_AddItemToArray(list, cJSON_Duplicate(s, 1));
        cJSON_AddItemToObject(one, "strategies", list);
        int i = 0;
        cJSON_ArrayForEach(t, cJSON_GetObjectItem(one, "tenants"))
        {
            double wb;
            const struct shape *m = shape_of(t, &wb);
            CU_ASSERT_PTR_NOT_NULL_FATAL(m);
            const char *tname = cJSON_GetObjectItem(t, "name")->valuestring;
            long tokens = 16 * kv_blocks(m, wb, memory_of(s, tname));
            char csv[256], name[128], arr[1024];
            snprintf(csv, sizeof csv, "time_s,input_tokens,output_tokens\n0,%ld,1\n5000,%ld,1\n",
                     tokens - 1, tokens);
            snprintf(name, sizeof name, "llmstudy-kv-%s-%d.csv", sname, i++);
            snprintf(arr, sizeof arr,
                     "{\"process\": \"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}",
                     tu_write(name, csv));
            cJSON_ReplaceItemInObject(t, "arrival", cJSON_Parse(arr));
            cJSON_DeleteItemFromObject(t, "tokens");
        }
        char cmd[4096], file[128];
        snprintf(file, sizeof file, "llmstudy-kv-%s.json", sname);
        snprintf(cmd, sizeof cmd, "run '%s' --quiet --no-slowdown", write_doc(file, one));
        cJSON_Delete(one);
        cJSON *r = tu_cli_json(cmd);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        for (int j = 0; j < n_ten; j++) {
            char p[128];
            snprintf(p, sizeof p, "strategies.0.tenants.%d.completed", j);
            double done = tu_json_num(r, p);
            snprintf(p, sizeof p, "strategies.0.tenants.%d.failed", j);
            double failed = tu_json_num(r, p);
            if (done != 1 || failed != 1)
                fprintf(stderr, "\n  %s, tenant %d: %g completed, %g failed (1 and 1 expected)",
                        sname, j, done, failed);
            CU_ASSERT_DOUBLE_EQUAL(done, 1, 0);
            CU_ASSERT_DOUBLE_EQUAL(failed, 1, 0);
        }
        cJSON_Delete(r);
    }
    CU_ASSERT(n_shared >= 2); /* at least the two MIG layouts */
    cJSON_Delete(strats);
    cJSON_Delete(doc);
}

void test_llmstudy_register(void)
{
    static const struct tu_test t[] = {
        {"every strategy: requests conserved, cut off mid-run", test_conservation},
        {"every strategy: output tokens conserved", test_tokens_conserved},
        {"each service's KV cache = its memory - weights - reserve, by hand", test_kv_capacity},
        {NULL, NULL},
    };
    tu_add_suite("llmstudy", t);
}
