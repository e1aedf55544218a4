/*
 * rdoc: the one reader of a result document. Read back from the JSON a run wrote, every figure
 * of the metric table is the run's own (to the JSON's 6 significant digits) under the index the
 * run stores it at; a figure registered in the table and nowhere else is read the same way;
 * names, kinds, stability, LLM tenants and a MIG layout come from the document's shape; what is
 * absent reads NaN or "", and a file that is no result is refused with its JSON path.
 */
#include "core/metric.h"
#include "core/rdoc.h"
#include "core/run.h"
#include "core/scenario.h"
#include "core/stable.h"
#include "core/llmstats.h"
#include "report/report.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The JSON a run writes, parsed back as `report` reads a result file. */
static cJSON *written(const struct scenario *sc, const struct run_result *r)
{
    cJSON *out = rep_json(sc, r);
    char *text = cJSON_Print(out);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    cJSON_Delete(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    return doc;
}

static void run_two(struct scenario *sc, struct run_result *r)
{
    tu_load_file(tu_fixture("cdf/two-tenants.json"), sc);
    struct run_opts o = {1, -1, 0, 0};
    CU_ASSERT_EQUAL_FATAL(run_scenario(sc, &o, r, NULL, 0), 0);
}

/* Equal to 6 significant digits (the JSON's precision); both NaN counts as equal. */
static int same6(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return fabs(a - b) <= 5e-6 * fabs(b) + 1e-12;
}

static void test_reads_back_the_run(void)
{
    struct scenario sc;
    struct run_result r;
    run_two(&sc, &r);
    cJSON *doc = written(&sc, &r);
    struct rd_head h;
    rd_head_of(doc, &h);
    CU_ASSERT_STRING_EQUAL(h.scenario, sc.name);
    CU_ASSERT_STRING_EQUAL(h.gpu, sc.gpu.name);
    CU_ASSERT_EQUAL(h.gpus, sc.gpus);
    CU_ASSERT_EQUAL(h.replications, 1);
    CU_ASSERT_TRUE(isnan(h.load_scale));
    CU_ASSERT_EQUAL(cJSON_GetArraySize(rd_strategies(doc)), r.n);
    CU_ASSERT_FALSE(rd_has_llm(doc));
    int k = 0, checked = 0;
    const cJSON *s, *t;
    RD_EACH_STRATEGY(s, doc)
    {
        const struct strategy_result *sr = &r.s[k++];
        CU_ASSERT_STRING_EQUAL(rd_name(s), sr->name);
        CU_ASSERT_STRING_EQUAL(rd_kind(s), sr->kind);
        CU_ASSERT_EQUAL(rd_n_tenants(s), sc.n_tenants);
        CU_ASSERT_PTR_EQUAL(rd_strategy(doc, sr->name), s);
        int i = 0;
        RD_EACH_TENANT(t, s)
        {
            CU_ASSERT_STRING_EQUAL(rd_name(t), sc.tenants[i].name);
            CU_ASSERT_PTR_EQUAL(rd_tenant(s, sc.tenants[i].name), t);
            CU_ASSERT_EQUAL(rd_stable(t), stab_state(sr, i));
            CU_ASSERT_FALSE(rd_is_llm(t));
            i++;
        }
        /* Every figure of the table, by the index the run stores it at. */
        for (int m = 0; m < mt_count(); m++) {
            const struct mt_metric *mm = mt_at(m);
            if (mm->level == MT_LLM)
                continue;
            for (int q = 0; q < (mm->level == MT_TENANT ? sc.n_tenants : 1); q++) {
                const cJSON *obj =
                    mm->level == MT_TENANT ? cJSON_GetArrayItem(rd_tenants(s), q) : s;
                double want = mt_value(mm, sr, q, 0) * mm->out_scale;
                if (isinf(want))
                    want = NAN; /* past the histogram's range: null in the JSON */
                CU_ASSERT_TRUE(same6(rd_fig(obj, mm->level, mm->index), want));
                checked++;
            }
        }
        /* Over the tenants, as the summary and the pages aggregate. */
        double a = rd_fig(cJSON_GetArrayItem(rd_tenants(s), 0), MT_TENANT, TM_LAT_P99);
        double b = rd_fig(cJSON_GetArrayItem(rd_tenants(s), 1), MT_TENANT, TM_LAT_P99);
        CU_ASSERT_DOUBLE_EQUAL(rd_over_tenants(s, MT_TENANT, TM_LAT_P99, RD_MEAN), (a + b) / 2,
                               1e-12);
        CU_ASSERT_DOUBLE_EQUAL(rd_over_tenants(s, MT_TENANT, TM_LAT_P99, RD_MAX), fmax(a, b), 0);
        CU_ASSERT_DOUBLE_EQUAL(rd_over_tenants(s, MT_TENANT, TM_LAT_P99, RD_MIN), fmin(a, b), 0);
        CU_ASSERT_DOUBLE_EQUAL(rd_over_tenants(s, MT_TENANT, TM_LAT_P99, RD_SUM), a + b, 1e-12);
    }
    CU_ASSERT_TRUE(checked > 20);
    /* gpus_used, a getter's figure, has an index of its own. */
    CU_ASSERT_EQUAL(rd_fig(cJSON_GetArrayItem(rd_strategies(doc), 0), MT_STRATEGY, MT_SM_GPUS_USED),
                    r.s[0].gpus_used ? r.s[0].gpus_used : sc.gpus);
    cJSON_Delete(doc);
    run_result_free(&r);
    scn_free(&sc);
}

/* A made-up figure: 40 + 2 × the tenant's index, stored at an index past the vector. */
static double made_up(const struct strategy_result *s, int tenant, int ci)
{
    (void)s;
    return ci ? NAN : 40 + 2 * tenant;
}

#define ZZ_INDEX (TM_N + 7)

static void test_made_up_by_index(void)
{
    static const struct mt_metric zz = {.level = MT_TENANT,
                                        .index = ZZ_INDEX,
                                        .path = "zz_group.made_up",
                                        .unit = "widgets",
                                        .out_scale = 1,
                                        .tail = -1,
                                        .get = made_up};
    CU_ASSERT_EQUAL_FATAL(mt_register_extra(&zz), 0);
    struct scenario sc;
    struct run_result r;
    run_two(&sc, &r);
    cJSON *doc = written(&sc, &r);
    const cJSON *s = cJSON_GetArrayItem(rd_strategies(doc), 0);
    CU_ASSERT_EQUAL(rd_fig(cJSON_GetArrayItem(rd_tenants(s), 1), MT_TENANT, ZZ_INDEX), 42);
    CU_ASSERT_EQUAL(rd_over_tenants(s, MT_TENANT, ZZ_INDEX, RD_SUM), 82);
    CU_ASSERT_EQUAL(rd_over_tenants(s, MT_TENANT, ZZ_INDEX, RD_MIN), 40);
    mt_clear_extra();
    /* Without it in the table the reader knows no such figure. */
    CU_ASSERT_TRUE(isnan(rd_fig(cJSON_GetArrayItem(rd_tenants(s), 1), MT_TENANT, ZZ_INDEX)));
    cJSON_Delete(doc);
    run_result_free(&r);
    scn_free(&sc);
}

static const char *const shaped =
    "{\"scenario\": \"x\", \"gpu\": \"a100\", \"gpus\": 2, \"seed\": 7, \"replications\": 1,"
    " \"load_scale\": 1.5, \"sweep\": {\"params\": {\"gpus\": 2}},"
    " \"strategies\": [{\"name\": \"m\", \"kind\": \"mig\", \"gpus_used\": 2,"
    "  \"tenants\": [{\"name\": \"chat\", \"stable\": false, \"latency_ms\": {\"p99\": null},"
    "                 \"llm\": {\"ttft_ms\": {\"p99\": 12.5}}},"
    "                {\"name\": \"batch\", \"stable\": null}],"
    "  \"details\": {\"gpus\": [{\"instances\": [{\"profile\": \"3g.40gb\", \"start\": 4,"
    "     \"tenants\": [\"chat\", \"batch\"], \"utilization\": 0.25}],"
    "     \"stranded_compute_frac\": 0.125, \"fgd\": 0.5}, {\"instances\": []}]}}]}";

static void test_shape(void)
{
    cJSON *doc = cJSON_Parse(shaped);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    struct rd_head h;
    rd_head_of(doc, &h);
    CU_ASSERT_EQUAL(h.seed, 7);
    CU_ASSERT_EQUAL(h.load_scale, 1.5);
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(rd_sweep_params(doc), "gpus"));
    CU_ASSERT_TRUE(rd_has_llm(doc));
    const cJSON *s = rd_strategy(doc, "m");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    const cJSON *chat = rd_tenant(s, "chat"), *batch = rd_tenant(s, "batch");
    CU_ASSERT_TRUE(rd_is_llm(chat));
    CU_ASSERT_FALSE(rd_is_llm(batch));
    CU_ASSERT_EQUAL(rd_stable(chat), 0);
    CU_ASSERT_EQUAL(rd_stable(batch), -1);
    CU_ASSERT_EQUAL(rd_fig(chat, MT_LLM, LM_TTFT_P99), 12.5);
    CU_ASSERT_TRUE(isnan(rd_fig(chat, MT_TENANT, TM_LAT_P99))); /* null */
    CU_ASSERT_TRUE(isnan(rd_fig(batch, MT_LLM, LM_TTFT_P99)));  /* absent */
    CU_ASSERT_TRUE(isnan(rd_over_tenants(s, MT_TENANT, TM_LAT_P99, RD_MEAN)));
    CU_ASSERT_EQUAL(rd_fig(s, MT_STRATEGY, MT_SM_GPUS_USED), 2);
    CU_ASSERT_PTR_NULL(rd_strategy(doc, "nope"));
    CU_ASSERT_PTR_NULL(rd_tenant(NULL, "chat"));
    CU_ASSERT_STRING_EQUAL(rd_name(NULL), "");
    CU_ASSERT_TRUE(isnan(rd_fig(NULL, MT_TENANT, TM_LAT_P99)));

    CU_ASSERT_TRUE(rd_lists_instances(s));
    const cJSON *gj;
    int n = 0;
    RD_EACH_GPU(gj, s)
    {
        struct rd_gpu g;
        rd_gpu_of(gj, &g);
        if (n++ == 0) {
            CU_ASSERT_EQUAL(g.n, 1);
            CU_ASSERT_EQUAL(g.stranded_compute, 0.125);
            CU_ASSERT_TRUE(isnan(g.stranded_memory));
            CU_ASSERT_EQUAL(g.fgd, 0.5);
            struct rd_instance in;
            rd_instance_of(g.instances->child, &in);
            CU_ASSERT_STRING_EQUAL(in.profile, "3g.40gb");
            CU_ASSERT_EQUAL(in.start, 4);
            CU_ASSERT_EQUAL(in.utilization, 0.25);
            char names[32], small[6];
            rd_instance_tenants(&in, names, sizeof names);
            CU_ASSERT_STRING_EQUAL(names, "chat+batch");
            rd_instance_tenants(&in, small, sizeof small); /* cut, never past the buffer */
            CU_ASSERT_STRING_EQUAL(small, "chat+");
        } else {
            CU_ASSERT_EQUAL(g.n, 0);
        }
    }
    CU_ASSERT_EQUAL(n, 2);
    cJSON_Delete(doc);
}

static void load_err(const char *text, char *err, size_t n)
{
    char path[] = "/tmp/rdoc-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs(text, fp);
    fclose(fp);
    cJSON *doc = (cJSON *)1;
    CU_ASSERT_EQUAL(rd_load(path, &doc, err, n), -1);
    CU_ASSERT_PTR_NULL(doc);
    remove(path);
}

static void test_load_refuses(void)
{
    char err[256];
    load_err("{\"strategies\": {}}", err, sizeof err);
    TU_CHECK_CONTAINS(err, ": strategies: expected an array (a result of `sharesim run --json`)");
    load_err("{\"strategies\": [{\"name\": \"a\", \"tenants\": []}, {\"name\": \"b\"}]}", err,
             sizeof err);
    TU_CHECK_CONTAINS(err, ": strategies[1]: expected an object with \"name\" and \"tenants\"");
    load_err("{\"strategies\": [", err, sizeof err);
    CU_ASSERT_TRUE(strlen(err) > 0);
}

void test_rdoc_register(void)
{
    static const struct tu_test tests[] = {
        {"every figure of a written result reads back by its index", test_reads_back_the_run},
        {"a figure added to the table is read without other code", test_made_up_by_index},
        {"names, stability, LLM tenants, MIG layouts; absent is NaN", test_shape},
        {"a file that is no result is refused with its JSON path", test_load_refuses},
        {NULL, NULL},
    };
    tu_add_suite("rdoc", tests);
}
