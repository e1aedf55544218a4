/*
 * percentiles — latency percentiles over replications (core/run.c): the percentile of all
 * replications' samples together, its interval from the spread across replications, and the
 * count of samples beyond every percentile with a warning below TAIL_MIN_SAMPLES, against
 * the exact quantiles of exponential work.
 */
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_pooled_p999_covers_exact(void)
{
    /* Latency = exponential work of mean 1 ms (nothing waits). Exact p99.9 = ln(1000) ms.
     * 20 replications × 500: each replication's p99.9 is its largest sample (mean H_500 ms =
     * 6.79, biased low); the pooled percentile of the 10,000 samples lies within its 95 %
     * interval of the exact value, and exactly 10 samples lie beyond it. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("percentiles/exponential.json"), &sc, &r);
    const double *t = res_t(&r.s[0], 0), *ci = r.s[0].t_ci;
    double exact = log(1000) * 1e-3;
    CU_ASSERT_DOUBLE_EQUAL(t[TM_COMPLETED], 500, 0);
    if (!(fabs(t[TM_LAT_P999] - exact) <= ci[TM_LAT_P999]))
        fprintf(stderr, "\n  p99.9 %.4g ± %.3g, exact %.4g\n", t[TM_LAT_P999], ci[TM_LAT_P999],
                exact);
    CU_ASSERT(fabs(t[TM_LAT_P999] - exact) <= ci[TM_LAT_P999]);
    CU_ASSERT(ci[TM_LAT_P999] > 0);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].tail[TAIL_P999], 10, 0);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].tail[TAIL_P99], 100, 0);
    /* The other percentiles too: ln 2, ln 20, ln 100 ms, within 4 standard deviations of
     * a quantile of 10,000 samples (sqrt(p(1-p)/n) / density: 1.4 %, 1.5 %, 2.2 %). */
    TU_CHECK_CLOSE_REL(t[TM_LAT_P50], log(2) * 1e-3, 0.06);
    TU_CHECK_CLOSE_REL(t[TM_LAT_P95], log(20) * 1e-3, 0.06);
    TU_CHECK_CLOSE_REL(t[TM_LAT_P99], log(100) * 1e-3, 0.09);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_thin_tail_warns(void)
{
    /* 50 requests, one replication: p99.9 and p99 are the largest sample (0 beyond), p95 has
     * 2 beyond, p50 25: the table marks p95, p99 and p999 with '*' and prints the warning;
     * the JSON gives tail_samples. */
    char cmd[1024], out[16384], err[2048];
    char *text = tu_fixture_patch("percentiles/exponential.json",
                                  "{\"replications\": 1, \"stop.requests\": 50}");
    const char *path = tu_write("thin.json", text);
    free(text);
    const char *json = tu_write("thin-out.json", "");
    snprintf(cmd, sizeof cmd, "run %s --no-slowdown --json %s", path, json);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 0);
    TU_CHECK_CONTAINS(out, "warning: * marks a percentile with fewer than 10 samples beyond it");
    CU_ASSERT_EQUAL(strstr(out, "*") != NULL, 1);
    char *doc_text = tu_slurp(json);
    cJSON *doc = cJSON_Parse(doc_text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *t0 = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0),
                            "tenants"),
        0);
    const cJSON *tail = cJSON_GetObjectItem(t0, "tail_samples");
    CU_ASSERT_PTR_NOT_NULL_FATAL(tail);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(tail, "p50")->valueint, 25);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(tail, "p95")->valueint, 2);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(tail, "p99")->valueint, 0);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(tail, "p999")->valueint, 0);
    cJSON_Delete(doc);
    free(doc_text);
    /* 10,000 pooled samples: no percentile is thin, no warning. */
    snprintf(cmd, sizeof cmd, "run %s --no-slowdown", tu_fixture("percentiles/exponential.json"));
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(strstr(out, "warning: *"));
    TU_CHECK_CONTAINS(out, "percentiles: of all replications' requests together");
}

/* The pooled p99.9 from the command line: within its JSON interval of ln(1000) ms, with exactly
 * 10 of the 10,000 samples beyond it. */
static void test_cli_pooled(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "run %s --quiet --no-slowdown",
             tu_fixture("percentiles/exponential.json"));
    cJSON *doc = tu_cli_json(cmd);
    double p = tu_json_num(doc, "strategies.0.tenants.0.latency_ms.p999"),
           ci = tu_json_num(doc, "strategies.0.tenants.0.latency_ms_ci95.p999");
    CU_ASSERT(fabs(p - log(1000)) <= ci);
    CU_ASSERT_DOUBLE_EQUAL(tu_json_num(doc, "strategies.0.tenants.0.tail_samples.p999"), 10, 0);
    cJSON_Delete(doc);
}

void test_percentiles_register(void)
{
    static const struct tu_test t[] = {
        {"pooled p99.9 of 20 x 500 exponential samples covers ln(1000) ms",
         test_pooled_p999_covers_exact},
        {"a 50-request run warns about its thin tail (table, tail_samples)", test_thin_tail_warns},
        {"the CLI gives the same pooled p99.9 and tail count", test_cli_pooled},
        {NULL, NULL},
    };
    tu_add_suite("percentiles", t);
}
