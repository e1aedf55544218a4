/*
 * studies (report/studies.c: results/index.json, sharesim report index | reference):
 * index validation with JSON paths, the reference table's figures and errors.
 * scripts/regen-results, built on them, is in test_regen_results.c.
 */
#include "report/studies.h"
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tests/fixtures/studies/index.json (a reference, a scenario and a validation study) written
 * as `name` with both studies' scenario set to scn, a copy of studies/small.json (two
 * services, time-slicing and MPS) next to the outputs; returns its path. */
static char *write_index(const char *name, const char *scn)
{
    return tu_fixture_write(
        name, "studies/index.json",
        "{\"studies.0.rows.0.scenario\": \"%s\", \"studies.1.scenario\": \"%s\"}", scn, scn);
}

static void test_index(void)
{
    char *scn = tu_fixture_write("small.json", "studies/small.json", NULL);
    char *ix = write_index("index.json", scn);
    char cmd[1024], out[4096], expect[2048];
    snprintf(cmd, sizeof cmd, "report index %s", ix);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    snprintf(expect, sizeof expect,
             "ref\treference\t-\tcdf\t-\t4 000.\tRef\n"
             "small\tscenario\t%s\tcdf,p99-vs-load\t0.5,1\t4 000 requests.\tSmall study\n"
             "validation\tvalidation\t-\t-\t-\t-\tValidation\n",
             scn);
    CU_ASSERT_STRING_EQUAL(out, expect);
    snprintf(cmd, sizeof cmd, "report index %s --rows ref", ix);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    snprintf(expect, sizeof expect, "shared\t%s\tts\n", scn);
    CU_ASSERT_STRING_EQUAL(out, expect);
    snprintf(cmd, sizeof cmd, "report index %s --rows small", ix);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 2);
}

static void bad_index(const char *text, const char *message)
{
    char *ix = tu_write("bad-index.json", text), cmd[1024], err[2048];
    snprintf(cmd, sizeof cmd, "report index %s", ix);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    if (!strstr(err, message))
        fprintf(stderr, "\n  expected \"%s\" in: %s\n", message, err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, message));
}

static void test_index_errors(void)
{
    bad_index("{\"studies\": [{\"id\": \"a\", \"title\": \"t\", \"scenario\": \"x\", \"foo\": 1}]}",
              "bad-index.json: studies[0].foo: unknown key \"foo\"");
    bad_index("{\"studies\": [{\"id\": \"A b\", \"title\": \"t\", \"scenario\": \"x\"}]}",
              "studies[0].id: id \"A b\": expected [a-z0-9-]");
    bad_index("{\"studies\": [{\"id\": \"a\", \"title\": \"t\"}]}",
              "studies[0].scenario: missing (expected a string)");
    bad_index("{\"studies\": [{\"id\": \"a\", \"title\": \"t\", \"scenario\": \"x\", \"plots\": "
              "[\"p99-vs-load\"]}]}",
              "studies[0]: plot p99-vs-load needs \"load_scales\"");
    bad_index("{\"studies\": [{\"id\": \"a\", \"title\": \"t\", \"scenario\": \"x\", \"plots\": "
              "[\"llm-sla\", \"llm-vs-load\"]}]}",
              "studies[0]: plot llm-vs-load needs \"load_scales\"");
    bad_index("{\"studies\": [{\"id\": \"a\", \"title\": \"t\", \"scenario\": \"x\", \"plots\": "
              "[\"pie\"]}]}",
              "studies[0].plots: expected plot names");
    bad_index("{\"studies\": [{\"id\": \"a\", \"title\": \"t\", \"scenario\": \"x\", "
              "\"load_scales\": [1, 0.5]}]}",
              "studies[0].load_scales: expected increasing load scales");
    bad_index("{\"studies\": [{\"id\": \"a\", \"title\": \"t\", \"scenario\": \"x\"}, "
              "{\"id\": \"a\", \"title\": \"u\", \"scenario\": \"y\"}]}",
              "studies[1]: id \"a\" given twice");
    bad_index("{\"studies\": [{\"id\": \"a\", \"title\": \"t\", \"kind\": \"reference\", "
              "\"rows\": [{\"mode\": \"m\", \"instances\": 1, \"scenario\": \"x\", "
              "\"strategy\": \"s\", \"paper\": {\"tps_per_instance\": 1, \"p99_ms\": 0, "
              "\"gpu_util\": 0.5}}]}]}",
              "studies[0].rows[0].paper.p99_ms: expected a number > 0");
    bad_index("{\"studies\": [{\"id\": \"a\", \"title\": \"t\\tx\", \"scenario\": \"x\"}]}",
              "studies[0].title: expected one line, no tabs");
    bad_index("{\"studies\": []}", "studies: expected a non-empty array of studies");
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void test_reference(void)
{
    char *scn = tu_fixture_write("small-ref.json", "studies/small.json", NULL);
    char *ix = write_index("index-ref.json", scn);
    char cmd[2048], dir[512], json[600], err[2048];
    snprintf(dir, sizeof dir, "%s", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "run %s --quiet --json %s/ref-shared.json", scn, dir);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(json, sizeof json, "%s/ref.json", dir);
    snprintf(cmd, sizeof cmd, "report reference %s --study ref --dir %s --json %s --md %s/ref.md",
             ix, dir, json, dir);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    char *text = tu_slurp(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "rows"), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(row, "mode")->valuestring, "shared");
    CU_ASSERT_EQUAL(num(row, "instances"), 2);
    /* The row's figures are the means over the strategy's tenants of the run's. */
    char rp[600];
    snprintf(rp, sizeof rp, "%s/ref-shared.json", dir);
    char *rt = tu_slurp(rp);
    cJSON *res = cJSON_Parse(rt);
    free(rt);
    const cJSON *ts = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "strategies"), 0);
    const cJSON *tn = cJSON_GetObjectItemCaseSensitive(ts, "tenants");
    const cJSON *t0 = cJSON_GetArrayItem(tn, 0), *t1 = cJSON_GetArrayItem(tn, 1);
    double tps = (num(t0, "throughput_per_s") + num(t1, "throughput_per_s")) / 2;
    double p99 = (num(cJSON_GetObjectItemCaseSensitive(t0, "latency_ms"), "p99") +
                  num(cJSON_GetObjectItemCaseSensitive(t1, "latency_ms"), "p99")) /
                 2;
    TU_CHECK_CLOSE_REL(num(row, "tps_per_instance"), tps, 1e-5);
    TU_CHECK_CLOSE_REL(num(row, "p99_ms"), p99, 1e-5);
    CU_ASSERT_EQUAL(num(row, "gpu_util"), num(ts, "gpu_utilization"));
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(row, "error");
    TU_CHECK_CLOSE_REL(num(e, "tps_per_instance"), (tps - 80) / 80, 1e-4);
    TU_CHECK_CLOSE_REL(num(e, "p99_ms"), (p99 - 20) / 20, 1e-4);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(row, "within_15pct");
    CU_ASSERT_EQUAL(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "p99_ms")),
                    fabs((p99 - 20) / 20) <= 0.15);
    cJSON_Delete(res);
    cJSON_Delete(doc);
    char *md = tu_slurp_in(dir, "ref.md");
    CU_ASSERT(tu_starts(md, "# Ref\n\n| mode | instances | TPS/instance |"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "| shared | mps |")); /* the other strategy */
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "A note.\n\nRun length: 4 000.\n\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "## Row shared (strategy `ts` is the row"));
    free(md);
    /* A row whose instance count does not match the strategy's tenants is refused. */
    char bad[4096];
    snprintf(bad, sizeof bad,
             "{\"studies\": [{\"id\": \"ref\", \"title\": \"R\", \"kind\": \"reference\", "
             "\"rows\": [{\"mode\": \"shared\", \"instances\": 3, \"strategy\": \"ts\", "
             "\"scenario\": \"%s\", \"paper\": {\"tps_per_instance\": 1, \"p99_ms\": 1, "
             "\"gpu_util\": 0.5}}]}]}",
             scn);
    char *bix = tu_write("index-bad-ref.json", bad);
    snprintf(cmd, sizeof cmd, "report reference %s --study ref --dir %s --json %s", bix, dir, json);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "strategy \"ts\" has 2 tenants, row shared says 3"));
    snprintf(cmd, sizeof cmd, "report reference %s --study small --dir %s", ix, dir);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no reference study \"small\""));
}

void test_studies_register(void)
{
    static const struct tu_test t[] = {
        {"report index: studies as tab-separated lines", test_index},
        {"report index: errors name the JSON path", test_index_errors},
        {"report reference: figures, errors, checks", test_reference},
        {NULL, NULL},
    };
    tu_add_suite("studies", t);
}
