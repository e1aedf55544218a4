/*
 * metric: the table of result fields drives every rendering. A made-up figure registered in
 * the table (and nowhere else) appears in the JSON at its path and _ci95 path, as a CSV
 * column, as a column of the text table (and its ± row), of `report md` and of the HTML
 * tables; the built-in table's paths, CSV columns and headings are unique per level; the
 * reader finds a figure by the table's path.
 */
#include "core/llmstats.h"
#include "core/metric.h"
#include "core/run.h"
#include "core/scenario.h"
#include "report/htint.h"
#include "report/hw.h"
#include "report/report.h"
#include "report/rtable.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The made-up figure: 40 + 2 × the tenant's index, ± 0.25. */
static double made_up(const struct strategy_result *s, int tenant, int ci)
{
    (void)s;
    return ci ? 0.25 : 40 + 2 * tenant;
}

static const struct mt_metric zz = {
    .level = MT_TENANT,
    .index = -1,
    .path = "zz_group.made_up",
    .ci_path = "zz_group_ci95.made_up",
    .csv = "zz_made_up",
    .csv_last = 1, /* a new column goes after the CSV's existing ones */
    .unit = "widgets",
    .out_scale = 1,
    .tail = -1,
    .better = 1,
    .col = 50,
    .text_head = "zz_text",
    .text_min = 7,
    .text_fmt = "%.2f",
    .text_ci_fmt = "±%.2f",
    .md_head = "zz md",
    .html_head = "zz html",
    .show_scale = 1,
    .doc_fmt = "%.2f",
    .get = made_up,
};

/* A memory stream into *buf (NUL-terminated once closed; free it). */
static void capture_begin(FILE **fp, char **buf, size_t *len)
{
    *fp = open_memstream(buf, len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*fp);
}

static void run_two(struct scenario *sc, struct run_result *r, int reps)
{
    tu_load_file(tu_fixture("cdf/two-tenants.json"), sc);
    struct run_opts o = {reps, -1, 0, 0};
    CU_ASSERT_EQUAL_FATAL(run_scenario(sc, &o, r, NULL, 0), 0);
}

static void test_made_up_everywhere(void)
{
    CU_ASSERT_EQUAL_FATAL(mt_register_extra(&zz), 0);
    struct scenario sc;
    struct run_result r;
    run_two(&sc, &r, 2);

    /* JSON: at its path and its _ci95 path, in every tenant; read back as `report` reads a
     * result file. */
    cJSON *out = rep_json(&sc, &r);
    char *text = cJSON_Print(out);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    cJSON_Delete(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0);
    const cJSON *t1 = cJSON_GetArrayItem(cJSON_GetObjectItem(s0, "tenants"), 1);
    CU_ASSERT_DOUBLE_EQUAL(mt_path_num(t1, "zz_group.made_up"), 42, 0);
    CU_ASSERT_DOUBLE_EQUAL(mt_path_num(t1, "zz_group_ci95.made_up"), 0.25, 0);
    CU_ASSERT_DOUBLE_EQUAL(mt_doc(mt_find(MT_TENANT, "zz_group.made_up"), t1, 0), 42, 0);

    char *buf = NULL;
    size_t len = 0;
    FILE *fp;

    /* CSV: a column of its own with each row's value. */
    capture_begin(&fp, &buf, &len);
    rep_csv(fp, &sc, &r);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",work_ms_mean,zz_made_up,gpu_utilization,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",40,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",42,"));
    free(buf);

    /* The text table: its heading, its cells and its ± row. */
    capture_begin(&fp, &buf, &len);
    rep_table(fp, &sc, &r);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, " zz_text verdict\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "   40.00 -\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "   42.00 -\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, " ±0.25\n"));
    free(buf);

    /* Markdown (`report md`), read back from the JSON document. */
    capture_begin(&fp, &buf, &len);
    struct rt_head h = {.level = 2};
    rt_md_result(fp, doc, &h);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, " | rejected | zz md |\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, " | 40.00 |\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, " | 42.00 |\n"));
    free(buf);

    /* The HTML tables of a page. */
    capture_begin(&fp, &buf, &len);
    struct hw wr;
    hw_init(&wr, fp);
    ht_result_tables(&wr, doc, &sc);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<th>rejected</th><th>zz html</th></tr>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<td>40.00</td></tr>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<td>42.00</td></tr>"));
    free(buf);

    cJSON_Delete(doc);
    run_result_free(&r);
    scn_free(&sc);
    mt_clear_extra();
}

/* Without the made-up figure, none of it: the outputs are the built-in table's. */
static void test_not_without_it(void)
{
    struct scenario sc;
    struct run_result r;
    run_two(&sc, &r, 1);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp;
    capture_begin(&fp, &buf, &len);
    rep_csv(fp, &sc, &r);
    rep_table(fp, &sc, &r);
    fclose(fp);
    CU_ASSERT_PTR_NULL(strstr(buf, "zz"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",availability,work_ms_mean,gpu_utilization,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "p999_ms   SLA%   slow   fail rejected verdict\n"));
    free(buf);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_registry_full(void)
{
    for (int k = 0; k < MT_EXTRA_MAX; k++)
        CU_ASSERT_EQUAL(mt_register_extra(&zz), 0);
    CU_ASSERT_EQUAL(mt_register_extra(&zz), -1);
    mt_clear_extra();
    CU_ASSERT_PTR_NULL(mt_find(MT_TENANT, "zz_group.made_up"));
}

/* Each level's paths, CSV columns and headings name one figure each; every shown figure has a
 * format; every attainment of a target names the target's heading. */
static void test_table_consistent(void)
{
    for (int a = 0; a < mt_count(); a++) {
        const struct mt_metric *m = mt_at(a);
        CU_ASSERT_PTR_NOT_NULL(m->path);
        CU_ASSERT(m->index >= 0 || m->get != NULL);
        CU_ASSERT(m->out_scale > 0);
        if (m->col > 0) {
            CU_ASSERT_PTR_NOT_NULL(m->doc_fmt);
            CU_ASSERT(m->show_scale > 0);
        }
        if (m->text_head)
            CU_ASSERT_PTR_NOT_NULL(m->text_fmt);
        if (m->sla_key)
            CU_ASSERT_PTR_NOT_NULL(m->html_sla_head);
        for (int b = a + 1; b < mt_count(); b++) {
            const struct mt_metric *o = mt_at(b);
            if (o->level != m->level)
                continue;
            CU_ASSERT(strcmp(o->path, m->path) != 0);
            if (o->csv && m->csv)
                CU_ASSERT(strcmp(o->csv, m->csv) != 0);
            if (o->col && m->col)
                CU_ASSERT(o->col != m->col);
        }
    }
    /* The reader's look-up by path. */
    const struct mt_metric *p99 = mt_find(MT_TENANT, "latency_ms.p99");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p99);
    CU_ASSERT_EQUAL(p99->index, TM_LAT_P99);
    CU_ASSERT_EQUAL(p99->better, -1);
    CU_ASSERT_STRING_EQUAL(p99->ci_path, "latency_ms_ci95.p99");
    CU_ASSERT_PTR_NULL(mt_find(MT_STRATEGY, "latency_ms.p99"));
}

/* A figure read back from a result in its inside unit, as the verdict on a page judges it: a
 * latency in seconds, +inf past the histogram's range, NaN when absent; an LLM figure under
 * "llm". */
static void test_doc_inside(void)
{
    cJSON *t = cJSON_Parse("{\"completed\": 10, \"latency_ms\": {\"p99\": 12.5, \"p999\": null, "
                           "\"p999_beyond_range\": true}, \"llm\": {\"ttft_ms\": {\"p99\": 250}}}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_DOUBLE_EQUAL(mt_doc_inside(mt_of(MT_TENANT, TM_LAT_P99), t), 0.0125, 1e-15);
    CU_ASSERT(isinf(mt_doc_inside(mt_of(MT_TENANT, TM_LAT_P999), t)));
    CU_ASSERT_DOUBLE_EQUAL(mt_doc_inside(mt_of(MT_TENANT, TM_COMPLETED), t), 10, 0);
    CU_ASSERT_DOUBLE_EQUAL(mt_doc_inside(mt_of(MT_LLM, LM_TTFT_P99), t), 0.25, 1e-15);
    CU_ASSERT(isnan(mt_doc_inside(mt_of(MT_LLM, LM_TPOT_P99), t)));
    CU_ASSERT(isnan(mt_doc_inside(mt_of(MT_TENANT, TM_THROUGHPUT), t)));
    cJSON_Delete(t);
}

void test_metric_register(void)
{
    static const struct tu_test tests[] = {
        {"a made-up metric reaches JSON, CSV, text, Markdown and HTML", test_made_up_everywhere},
        {"without it the outputs are the built-in table's", test_not_without_it},
        {"the test registry refuses a fifth extra", test_registry_full},
        {"paths, CSV columns and ranks are unique per level", test_table_consistent},
        {"a figure read back in its inside unit, +inf past the range", test_doc_inside},
        {NULL, NULL},
    };
    tu_add_suite("metric", tests);
}
