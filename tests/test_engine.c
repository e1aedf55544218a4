/*
 * Foundation tests: the exclusive baseline against exact queueing results
 * (M/M/1, M/M/4 Erlang C), determinism, conservation, statistics, and the CLI's
 * handling of bad input.
 */
#include "core/analytic.h"
#include "report/report.h"
#include "core/run.h"
#include "core/scenario.h"
#include "core/stats.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Loads scenario text or fails the test. */
static int load(const char *text, struct scenario *sc)
{
    char err[SS_ERRLEN];
    int rc = scn_load_text("test.json", text, strlen(text), sc, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  load: %s\n", err);
    return rc;
}

static void run1(const char *text, struct run_result *r, struct scenario *sc)
{
    struct run_opts o = {0, -1, 0, 0};
    CU_ASSERT_EQUAL_FATAL(load(text, sc), 0);
    CU_ASSERT_EQUAL_FATAL(run_scenario(sc, &o, r, NULL, 0), 0);
}

static void test_mm1(void)
{
    /* M/M/1, λ = 900/s, μ = 1000/s: E[T] = 1/(μ−λ) = 10 ms, E[W] = ρ E[T] = 9 ms,
     * p99 of T = ln(100)/(μ−λ) = 46.05 ms. */
    const char *s =
        "{\"name\": \"mm1\", \"gpu\": \"A100-80GB\", \"seed\": 11,"
        " \"stop\": {\"requests\": 2000000}, \"warmup\": {\"requests\": 20000},"
        " \"tenants\": [{\"name\": \"t\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": "
        "900}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}],"
        " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}";
    struct scenario sc;
    struct run_result r;
    run1(s, &r, &sc);
    const double *t = r.s[0].t;
    TU_CHECK_CLOSE_REL(t[TM_LAT_MEAN], 10e-3, 0.03);
    TU_CHECK_CLOSE_REL(t[TM_WAIT_MEAN], 9e-3, 0.04);
    TU_CHECK_CLOSE_REL(t[TM_LAT_P99], log(100.0) / 100.0, 0.05);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 0.9, 0.01);
    TU_CHECK_CLOSE_REL(t[TM_THROUGHPUT], 900, 0.01);
    CU_ASSERT_EQUAL(t[TM_ARRIVED], 2000000 - 20000);
    CU_ASSERT_EQUAL(t[TM_COMPLETED], t[TM_ARRIVED]);
    CU_ASSERT_EQUAL(t[TM_IN_FLIGHT], 0);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_mm4_erlang_c(void)
{
    /* One tenant over 4 exclusive GPUs at ρ = 0.9: M/M/4, mean wait from Erlang C. */
    const char *s =
        "{\"name\": \"mm4\", \"gpu\": \"A100-80GB\", \"gpus\": 4, \"seed\": 3,"
        " \"stop\": {\"requests\": 2000000}, \"warmup\": {\"requests\": 50000},"
        " \"tenants\": [{\"name\": \"t\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": "
        "3600}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}],"
        " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}";
    struct scenario sc;
    struct run_result r;
    run1(s, &r, &sc);
    double wq = an_mmc_mean_wait_s(3600, 1000, 4);
    TU_CHECK_CLOSE_REL(r.s[0].t[TM_WAIT_MEAN], wq, 0.05);
    TU_CHECK_CLOSE_REL(r.s[0].t[TM_LAT_P99], an_mmc_sojourn_quantile_s(3600, 1000, 4, 0.99), 0.05);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 0.9, 0.01);
    run_result_free(&r);
    scn_free(&sc);
}

static const char *two_tenants =
    "{\"name\": \"two\", \"gpu\": \"A100-80GB\", \"gpus\": 2, \"seed\": 5,"
    " \"stop\": {\"requests\": 20000},"
    " \"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": \"gamma\", \"rate_per_s\": 300,"
    " \"cv\": 2}, \"work\": {\"dist\": \"lognormal\", \"mean_ms\": 2, \"cv\": 1.5}},"
    " {\"name\": \"b\", \"arrival\": {\"process\": \"deterministic\", \"rate_per_s\": 200},"
    " \"work\": {\"dist\": \"deterministic\", \"ms\": 3}}],"
    " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"},"
    " {\"name\": \"y\", \"kind\": \"exclusive\", \"assign\": {\"a\": [1], \"b\": [0]}}]}";

static void test_common_random_numbers(void)
{
    /* Two strategies that differ only in GPU numbering must give identical numbers. */
    struct scenario sc;
    struct run_result r;
    run1(two_tenants, &r, &sc);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < TM_N; k++) {
            double a = res_t(&r.s[0], i)[k], b = res_t(&r.s[1], i)[k];
            CU_ASSERT(a == b || (isnan(a) && isnan(b)));
        }
    /* Deterministic tenant b alone on a GPU: every latency is exactly 3 ms. */
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 1)[TM_LAT_P99], 3e-3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 1)[TM_LAT_P50], 3e-3, 1e-12);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_conservation_without_drain(void)
{
    /* Overloaded tenant, stop without draining: requests are left in flight and the
     * ledger still balances. */
    const char *s =
        "{\"name\": \"over\", \"gpu\": \"A100-80GB\", \"seed\": 2,"
        " \"stop\": {\"requests\": 5000, \"drain\": false},"
        " \"tenants\": [{\"name\": \"t\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": "
        "2000}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}, \"queue_limit\": 100}],"
        " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}";
    struct scenario sc;
    struct run_result r;
    run1(s, &r, &sc);
    const double *t = r.s[0].t;
    CU_ASSERT(t[TM_IN_FLIGHT] > 0);
    CU_ASSERT(t[TM_REJECTED] > 0);
    CU_ASSERT_EQUAL(t[TM_ARRIVED],
                    t[TM_COMPLETED] + t[TM_REJECTED] + t[TM_FAILED] + t[TM_IN_FLIGHT]);
    CU_ASSERT(t[TM_IN_FLIGHT] <= 101);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_replications_ci(void)
{
    const char *s =
        "{\"name\": \"reps\", \"gpu\": \"A100-80GB\", \"seed\": 9, \"replications\": 5,"
        " \"stop\": {\"duration_s\": 20}, \"warmup\": {\"duration_s\": 1},"
        " \"tenants\": [{\"name\": \"t\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": "
        "500}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}, \"sla\": {\"p99_ms\": 5}}],"
        " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}";
    struct scenario sc;
    struct run_result r;
    run1(s, &r, &sc);
    double mean = r.s[0].t[TM_LAT_MEAN], ci = r.s[0].t_ci[TM_LAT_MEAN];
    CU_ASSERT(ci > 0 && ci < 0.1 * mean);
    /* M/M/1 at ρ = 0.5: E[T] = 2 ms; the CI should cover it (95 %; this seed does). */
    CU_ASSERT(fabs(mean - 2e-3) <= ci * 1.5);
    /* P(T > 5 ms) = e^{-500·0.005} = e^{-2.5}: attainment ≈ 0.918. */
    TU_CHECK_CLOSE_REL(r.s[0].t[TM_SLA_ATTAINMENT], 1 - exp(-2.5), 0.01);
    cJSON *j = rep_json(&sc, &r);
    const cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "strategies"), 0);
    const cJSON *t0 = cJSON_GetArrayItem(cJSON_GetObjectItem(st, "tenants"), 0);
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(t0, "latency_ms_ci95"));
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(st, "gpu_utilization_ci95"));
    cJSON_Delete(j);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_histogram_bound(void)
{
    struct st_hist h;
    st_hist_init(&h);
    /* 1..100000 µs: the nearest-rank p99 is 99000 µs; the estimate is within 0.39 %. */
    for (int i = 1; i <= 100000; i++)
        st_hist_add(&h, i * 1e-6);
    double q = st_hist_quantile(&h, 0.99);
    CU_ASSERT(fabs(q - 0.099) <= 0.0039 * 0.099);
    CU_ASSERT_DOUBLE_EQUAL(st_hist_quantile(&h, 1.0), 100000 * 1e-6, 0);
    for (double x = 1e-7; x < 1e4; x *= 1.37) {
        int b = st_bucket(x);
        CU_ASSERT(st_bucket_lo(b) <= x && x < st_bucket_lo(b + 1));
    }
    st_hist_free(&h);
}

static void test_json_deterministic(void)
{
    char *path = tu_write("det.json", two_tenants);
    char cmd[1024], a[1 << 15], b[1 << 15];
    snprintf(cmd, sizeof cmd, "run %s --json -", path);
    CU_ASSERT_EQUAL(tu_cli(cmd, a, sizeof a, NULL, 0), 0);
    CU_ASSERT_EQUAL(tu_cli(cmd, b, sizeof b, NULL, 0), 0);
    CU_ASSERT(strlen(a) > 500);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_PTR_NOT_NULL(strstr(a, "\"cost_per_million_requests_usd\""));
}

/* Each bad scenario: exit 2, the message part, and no output file left behind. */
static void test_bad_input(void)
{
    static const struct {
        const char *text;
        const char *msg;
    } cases[] = {
        {"{\"name\": \"x\", \"gpu\": \"A100-80GB\", \"stop\": {\"requ", "JSON syntax error"},
        {"{\"name\": \"x\", \"gpu\": \"A100-80GB\", \"colour\": 1}",
         "colour: unknown key \"colour\""},
        {"{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 10}, \"tenants\": [{\"name\": \"a\", "
         "\"arrival\": {\"process\": \"poisson\", \"rate_per_s\": -5}, \"work\": {\"dist\": "
         "\"exponential\", \"mean_ms\": 1}}], \"strategies\": [{\"name\": \"x\", \"kind\": "
         "\"exclusive\"}]}",
         "tenants[0].arrival.rate_per_s: expected a number > 0"},
        {"{\"gpu\": \"V100\", \"stop\": {\"requests\": 10}}", "unknown GPU \"V100\""},
        {"{\"gpu\": \"A100-80GB\", \"gpus\": 0, \"stop\": {\"requests\": 10}}",
         "gpus: expected a number in [1, 100000], got 0"},
        {"{\"gpu\": \"A100-80GB\", \"gpus\": 2, \"stop\": {\"requests\": 10}, \"tenants\": "
         "[{\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 5}, "
         "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}, {\"name\": \"a\", \"arrival\": "
         "{\"process\": \"poisson\", \"rate_per_s\": 5}, \"work\": {\"dist\": \"exponential\", "
         "\"mean_ms\": 1}}], \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}",
         "duplicate tenant name \"a\""},
        {"{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 10}, \"tenants\": [{\"name\": \"a\", "
         "\"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 5}, \"work\": {\"dist\": "
         "\"exponential\", \"mean_ms\": 1}}], \"strategies\": []}",
         "strategies: expected a non-empty array"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *path = tu_write("bad.json", cases[i].text);
        char out_path[600], cmd[1400], err[4096];
        snprintf(out_path, sizeof out_path, "%s/out.json", tu_tmpdir());
        remove(out_path);
        snprintf(cmd, sizeof cmd, "run %s --json %s", path, out_path);
        int rc = tu_cli(cmd, NULL, 0, err, sizeof err);
        CU_ASSERT_EQUAL(rc, 2);
        if (!strstr(err, cases[i].msg))
            fprintf(stderr, "\n  case %zu: expected \"%s\" in: %s", i, cases[i].msg, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].msg));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad.json"));
        CU_ASSERT_FALSE(tu_exists(out_path));
    }
}

static void test_cli_help(void)
{
    char out[4096];
    CU_ASSERT_EQUAL(tu_cli("--help", out, sizeof out, NULL, 0), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "run"));
    CU_ASSERT_EQUAL(tu_cli("run --help", out, sizeof out, NULL, 0), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--replications"));
    CU_ASSERT_EQUAL(tu_cli("run --bogus", NULL, 0, NULL, 0), 2);
    CU_ASSERT_EQUAL(tu_cli("nosuchcommand", NULL, 0, NULL, 0), 2);
}

void test_engine_register(void)
{
    static const struct tu_test t[] = {
        {"M/M/1 mean, wait and p99 (2e6 requests)", test_mm1},
        {"M/M/4 mean wait equals Erlang C", test_mm4_erlang_c},
        {"common random numbers across strategies", test_common_random_numbers},
        {"conservation with requests left in flight", test_conservation_without_drain},
        {"replications give 95% confidence intervals", test_replications_ci},
        {"histogram percentiles within 0.39%", test_histogram_bound},
        {"same scenario and seed give byte-identical JSON", test_json_deterministic},
        {"bad input exits 2 with a message and no output", test_bad_input},
        {"help and usage errors", test_cli_help},
        {NULL, NULL},
    };
    tu_add_suite("engine", t);
}
