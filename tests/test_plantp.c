/*
 * plantp (the tensor-parallel search of sim/policy/plan_exclusive.c and its explanation in
 * sim/tools/plan.c): the layouts offered for a tenant with "tensor_parallel": "auto", counted
 * by hand; a degree the model cannot split, pruned with the reason; an explicit degree pinning
 * the search; "auto" refused outside the planner; and Llama-3-70B fp16 on H100s
 * (workloads/llm-70b-tp.json) planned onto a TP group, with TP=4 explained against 2 × TP=2.
 */
#include "core/scenario.h"
#include "llm/serving.h"
#include "testutil.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str_at(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The candidate of the plan whose label is `label`, or NULL. */
static const cJSON *cand(const cJSON *doc, const char *label)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "candidates"))
    {
        if (strcmp(str_at(c, "label"), label) == 0)
            return c;
    }
    return NULL;
}

static cJSON *plan_of(const char *path)
{
    char args[1200];
    snprintf(args, sizeof args, "plan --no-headroom %s", path);
    return tu_cli_json(args);
}

/*
 * Qwen2.5-7B on at most 4 H100s: degrees 1, 2 and 4 split its 28 heads, 4 KV heads and 18944
 * intermediate; 8 does not (28 / 8). By hand, the layouts k × r ≤ 4: 1×TP1, 2×TP1, 3×TP1,
 * 4×TP1, 1×TP2, 2×TP2, 1×TP4 — seven, each with r·k GPUs in groups that start at multiples of
 * k — and TP8 listed as pruned with the reason. No two labels are the same.
 */
static void test_enumerates_layouts(void)
{
    cJSON *doc = plan_of(tu_fixture("plantp/small.json"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    static const struct {
        int k, r;
    } want[] = {{1, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 1}, {2, 2}, {4, 1}};
    int n_want = (int)(sizeof want / sizeof want[0]);
    for (int w = 0; w < n_want; w++) {
        char label[64];
        snprintf(label, sizeof label, "exclusive chat %d×TP%d", want[w].r, want[w].k);
        const cJSON *c = cand(doc, label);
        CU_ASSERT_PTR_NOT_NULL(c);
        if (!c) {
            fprintf(stderr, "\n  missing candidate %s\n", label);
            continue;
        }
        CU_ASSERT_EQUAL(tu_json_num(c, "gpus"), want[w].k * want[w].r);
        CU_ASSERT_EQUAL(tu_json_num(c, "tensor_parallel.chat"), want[w].k);
        CU_ASSERT_EQUAL(tu_json_num(c, "engines.chat"), want[w].r);
        const cJSON *as = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(c, "strategy"), "assign");
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(as, "chat");
        CU_ASSERT_EQUAL(cJSON_GetArraySize(arr), want[w].k * want[w].r);
        for (int g = 0; g < cJSON_GetArraySize(arr); g++)
            CU_ASSERT_EQUAL(cJSON_GetArrayItem(arr, g)->valueint, g);
    }
    /* Every exclusive candidate is one of those, or the pruned TP8. */
    int layouts = 0, pruned8 = 0;
    const cJSON *c, *d;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "candidates"))
    {
        const char *label = str_at(c, "label");
        if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(c, "pruned"))) {
            if (strcmp(label, "exclusive chat TP8") == 0 &&
                strstr(str_at(c, "pruned"), "28 query heads do not split over tensor_parallel 8"))
                pruned8++;
        } else {
            layouts++;
        }
        cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(doc, "candidates"))
        {
            if (c != d)
                CU_ASSERT(strcmp(label, str_at(d, "label")) != 0);
        }
    }
    CU_ASSERT_EQUAL(layouts, n_want);
    CU_ASSERT_EQUAL(pruned8, 1);
    cJSON_Delete(doc);
}

/* A model that splits over 8 GPUs is offered TP8 within plan.max_gpus; a plan.max_gpus below a
 * degree prunes it with that reason. */
static void test_degree_bounds(void)
{
    const char *p =
        tu_fixture_write("l8b.json", "plantp/small.json",
                         "{\"tenants.0.serving.model\": \"Llama-3-8B\", \"plan.max_gpus\": 8}");
    cJSON *doc = plan_of(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_PTR_NOT_NULL(cand(doc, "exclusive chat 1×TP8"));
    CU_ASSERT_PTR_NOT_NULL(cand(doc, "exclusive chat 2×TP4"));
    CU_ASSERT_PTR_NULL(cand(doc, "exclusive chat 2×TP8"));
    cJSON_Delete(doc);
    p = tu_fixture_write("l8b-2.json", "plantp/small.json",
                         "{\"tenants.0.serving.model\": \"Llama-3-8B\", \"plan.max_gpus\": 2}");
    doc = plan_of(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *c = cand(doc, "exclusive chat TP4");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(str_at(c, "pruned"), "TP4 needs 4 GPUs, more than plan.max_gpus 2"));
    CU_ASSERT_PTR_NULL(cand(doc, "exclusive chat 1×TP4"));
    cJSON_Delete(doc);
}

/* An explicit degree pins the search: every exclusive candidate serves the tenant in groups of
 * 2, none carries a layout of the planner's, and none is labelled with another degree. */
static void test_explicit_pins(void)
{
    const char *p = tu_fixture_write("pin2.json", "plantp/small.json",
                                     "{\"tenants.0.serving.tensor_parallel\": 2}");
    cJSON *doc = plan_of(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *c;
    int excl = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "candidates"))
    {
        if (strcmp(str_at(c, "kind"), "exclusive") != 0 ||
            cJSON_GetObjectItemCaseSensitive(c, "pruned"))
            continue;
        excl++;
        CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(c, "tensor_parallel"));
        CU_ASSERT_PTR_NULL(strstr(str_at(c, "label"), "TP"));
        CU_ASSERT_EQUAL((int)tu_json_num(c, "gpus") % 2, 0);
    }
    CU_ASSERT(excl >= 1);
    CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "tensor_parallel_choice")));
    CU_ASSERT_PTR_NOT_NULL(strstr(str_at(doc, "scenario"), "plantp-small"));
    cJSON_Delete(doc);
}

/* "auto" is the planner's: `run` refuses it at its path, and a string other than "auto" is
 * refused by the loader of every command. */
static void test_auto_refused_outside_plan(void)
{
    char args[800], err[4096];
    snprintf(args, sizeof args, "run %s", tu_fixture("plantp/small.json"));
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "tenants[0].serving.tensor_parallel: \"auto\" lets "
                                       "sharesim plan choose the degree"));
    const char *p = tu_fixture_write("bad.json", "plantp/small.json",
                                     "{\"tenants.0.serving.tensor_parallel\": \"max\"}");
    snprintf(args, sizeof args, "plan %s", p);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "tensor_parallel: expected 1, 2, 4, 8 or \"auto\""));
}

/* KV tokens per engine of Llama-3-70B at tensor_parallel k on an H100, from the loader's own
 * sizing of the pinned scenario: the figure the explanation quotes. */
static long kv_tokens_at(const char *path, int k)
{
    char *text = tu_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    cJSON *sv = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "tenants"), 0), "serving");
    cJSON_ReplaceItemInObjectCaseSensitive(sv, "tensor_parallel", cJSON_CreateNumber(k));
    char *pinned = cJSON_Print(doc);
    cJSON_Delete(doc);
    struct scenario sc;
    char err[1024];
    int rc = scn_load_text_flags(path, pinned, strlen(pinned), SCN_IGNORE_STRATEGIES, &sc, err,
                                 sizeof err);
    free(pinned);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    long blocks = -1;
    CU_ASSERT_EQUAL(
        lsv_kv_blocks(sc.tenants[0].llm, sc.gpu.memory_gb, "a GPU", &blocks, err, sizeof err), 0);
    long tokens = blocks * sc.tenants[0].llm->block_size;
    scn_free(&sc);
    return tokens;
}

/*
 * Llama-3-70B fp16 (141 GB: no single H100 holds it) at 5 requests/s with TTFT/TPOT p99 targets
 * of 1.5 s and 50 ms: one TP2 group misses, and on 4 GPUs the planner weighs 1×TP4 against
 * 2×TP2. It picks a TP group, and the result explains the choice with each layout's figures:
 * TP4's engine holds 16 times the KV tokens (its weights leave 40 GB a GPU against 5 GB), so
 * two TP2 engines preempt and miss TTFT.
 */
static void test_llama70b_explained(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/workloads/llm-70b-tp.json", tu_root());
    cJSON *doc = plan_of(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    double tp = tu_json_num(doc, "candidates.0.tensor_parallel.chat");
    CU_ASSERT(tp == 2 || tp == 4);
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "candidates"), 0), "meets_sla")));
    CU_ASSERT_EQUAL(tu_json_num(doc, "recommendation.gpus"), 4);
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(doc, "tensor_parallel_choice");
    CU_ASSERT_PTR_NOT_NULL_FATAL(tc);
    CU_ASSERT_STRING_EQUAL(str_at(tc, "tenant"), "chat");
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(tc, "chosen");
    CU_ASSERT_STRING_EQUAL(str_at(ch, "layout"), "1×TP4");
    const cJSON *alt = NULL, *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(tc, "alternatives"))
    {
        if (strcmp(str_at(a, "layout"), "2×TP2") == 0)
            alt = a;
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(alt);
    long kv4 = kv_tokens_at(path, 4), kv2 = kv_tokens_at(path, 2);
    CU_ASSERT_EQUAL(tu_json_num(ch, "kv_tokens_per_engine"), kv4);
    CU_ASSERT_EQUAL(tu_json_num(alt, "kv_tokens_per_engine"), kv2);
    CU_ASSERT(kv4 > 10 * kv2);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(alt, "meets_sla")));
    CU_ASSERT(tu_json_num(alt, "preemptions") > tu_json_num(ch, "preemptions"));
    CU_ASSERT(tu_json_num(alt, "ttft_p99_ms") > tu_json_num(alt, "ttft_target_ms"));
    CU_ASSERT(tu_json_num(ch, "ttft_p99_ms") <= tu_json_num(ch, "ttft_target_ms"));
    CU_ASSERT(tu_json_num(ch, "tpot_p99_ms") <= tu_json_num(ch, "tpot_target_ms"));
    CU_ASSERT_EQUAL(tu_json_num(ch, "cost_per_hour_usd"), tu_json_num(alt, "cost_per_hour_usd"));
    /* The sentence quotes both caches and says which preempts. */
    char kvs[64];
    const char *why = str_at(tc, "why");
    snprintf(kvs, sizeof kvs, "hold %ld KV tokens each against %ld at 1×TP4", kv2, kv4);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, kvs));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "2×TP2 on 4 GPUs misses"));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "so it preempts more"));
    cJSON_Delete(doc);
    /* The text and the page say the same. */
    static char out[65536];
    char args[1800], html[600];
    snprintf(html, sizeof html, "%s/plantp.html", tu_tmpdir());
    snprintf(args, sizeof args, "plan --no-headroom %s --html %s", path, html);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, NULL, 0), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "tensor parallelism for chat"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, kvs));
    char *page = tu_slurp(html);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    CU_ASSERT_PTR_NOT_NULL(strstr(page, "id=\"tensor-parallel\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(page, kvs));
    free(page);
}

/* The chosen degree reaches what `run` and Kubernetes get: --emit-scenario writes the number
 * and runs to the plan's figures; the pod asks for the group and tells vLLM its size. */
static void test_chosen_degree_carried(void)
{
    char path[1024], emit[600], dir[600], args[3000];
    snprintf(path, sizeof path, "%s/workloads/llm-70b-tp.json", tu_root());
    snprintf(emit, sizeof emit, "%s/plantp-emit.json", tu_tmpdir());
    snprintf(dir, sizeof dir, "%s/plantp-k8s", tu_tmpdir());
    snprintf(args, sizeof args, "plan --no-headroom -q %s --emit-scenario %s --k8s %s", path, emit,
             dir);
    CU_ASSERT_EQUAL_FATAL(tu_cli(args, NULL, 0, NULL, 0), 0);
    char *pod = tu_slurp_in(dir, "pod-chat.yaml");
    CU_ASSERT_PTR_NOT_NULL(strstr(pod, "--tensor-parallel-size=4"));
    CU_ASSERT_PTR_NOT_NULL(strstr(pod, "nvidia.com/gpu: 4"));
    free(pod);
    snprintf(args, sizeof args, "run %s", emit);
    cJSON *run = tu_cli_json(args);
    snprintf(args, sizeof args, "plan --no-headroom %s", path);
    cJSON *plan = tu_cli_json(args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    CU_ASSERT_DOUBLE_EQUAL(tu_json_num(run, "strategies.0.tenants.0.llm.ttft_ms.p99"),
                           tu_json_num(plan, "candidates.0.ttft_p99_ms.chat"), 1e-3);
    cJSON_Delete(run);
    cJSON_Delete(plan);
}

void test_plantp_register(void)
{
    static const struct tu_test t[] = {
        {"the TP x replica layouts of a small case, by hand, and the unsplittable degree pruned",
         test_enumerates_layouts},
        {"TP8 for a model that splits; a degree above plan.max_gpus pruned with why",
         test_degree_bounds},
        {"an explicit tensor_parallel pins the degree", test_explicit_pins},
        {"\"auto\" refused outside the planner, other strings refused",
         test_auto_refused_outside_plan},
        {"Llama-3-70B fp16 plans onto TP4 and explains it against 2 x TP2",
         test_llama70b_explained},
        {"the chosen degree in --emit-scenario and --k8s", test_chosen_degree_carried},
        {NULL, NULL},
    };
    tu_add_suite("plantp", t);
}
