/*
 * sharesim trace (cli/cmd_trace.c) end to end. `trace stats`: text and JSON output
 * of the shipped traces, bad input exits 2 naming the line. `trace gen`: its file holds
 * exactly the arrivals the simulator draws (stats round trip, and replaying it reproduces the
 * synthetic run), it converts azure-llm traces with token work, and bad options exit 2
 * writing nothing.
 */
#include "core/run.h"
#include "core/scenario.h"
#include "core/tenant.h"
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONV "traces/AzureLLMInferenceTrace_conv.csv"
#define CODE "traces/AzureLLMInferenceTrace_code.csv"
#define CONV1000 "traces/AzureLLMInferenceTrace_conv.head1000.csv"
#define OPENB200 "traces/openb_pod_list_default.tail200.csv"

static double json_at(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* ---- trace stats ---------------------------------------------------------------- */

static void test_cli_stats(void)
{
    static char out[8192], errb[2048];
    CU_ASSERT_EQUAL(tu_cli("trace stats " CONV " --format azure-llm --json -", out, sizeof out,
                           errb, sizeof errb),
                    0);
    cJSON *j = cJSON_Parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(j, "count")->valuedouble, 19366);
    TU_CHECK_CLOSE_REL(
        cJSON_GetObjectItem(cJSON_GetObjectItem(j, "interarrival_s"), "cv")->valuedouble,
        1.0941699818437727, 1e-9);
    CU_ASSERT_EQUAL(
        cJSON_GetObjectItem(cJSON_GetObjectItem(j, "output_tokens"), "p99")->valuedouble, 601);
    cJSON_Delete(j);
    CU_ASSERT_EQUAL(tu_cli("trace stats -f azure-llm " CODE, out, sizeof out, errb, sizeof errb),
                    0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "requests       8819\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "ia_cv          13.15129\n"));
    CU_ASSERT_EQUAL(tu_cli("trace stats -f openb " OPENB200, out, sizeof out, errb, sizeof errb),
                    0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "pods           200\n"));
    CU_ASSERT_EQUAL(tu_cli("trace stats -f azure-llm --limit 100 --time-scale 2 " CODE, out,
                           sizeof out, errb, sizeof errb),
                    0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "requests       100\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "last_s         384.3243\n")); /* 2 * 192.162141 */
}

static void test_cli_errors(void)
{
    static char out[4096], errb[2048];
    char *bad = tu_write("cli-bad.csv", "time_s,work_ms\n0,1\n1,2\n2,oops\n");
    char args[1024];
    snprintf(args, sizeof args, "trace stats --format sharesim %s", bad);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 2);
    TU_CHECK_CONTAINS(errb, "cli-bad.csv:4:3: field \"work_ms\": expected a finite number of "
                            "milliseconds >= 0, got \"oops\"");
    CU_ASSERT_EQUAL(out[0], '\0');
    snprintf(args, sizeof args, "trace stats --format parquet %s", bad);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 2);
    TU_CHECK_CONTAINS(errb, "unknown trace format \"parquet\"");
    snprintf(args, sizeof args, "trace stats %s", bad);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 2);
    TU_CHECK_CONTAINS(errb, "--format is required");
    CU_ASSERT_EQUAL(
        tu_cli("trace stats -f sharesim --limit -3 x.csv", out, sizeof out, errb, sizeof errb), 2);
    CU_ASSERT_EQUAL(tu_cli("trace stats --bogus", out, sizeof out, errb, sizeof errb), 2);
    CU_ASSERT_EQUAL(tu_cli("trace frobnicate", out, sizeof out, errb, sizeof errb), 2);
    CU_ASSERT_EQUAL(tu_cli("trace", out, sizeof out, errb, sizeof errb), 2);
    CU_ASSERT_EQUAL(tu_cli("trace --help", out, sizeof out, errb, sizeof errb), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "stats"));
    CU_ASSERT_EQUAL(tu_cli("trace stats --help", out, sizeof out, errb, sizeof errb), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--time-scale"));
}

/* ---- trace gen --------------------------------------------------------------- */

static void test_gen_stats_round_trip(void)
{
    /* trace gen writes exactly the draws of the simulator's stream (seed 9, tenant 0, rep 0):
     * trace stats on the file gives the count, rate and CV of those draws. */
    static const char *arr = "{\"process\": \"gamma\", \"rate_per_s\": 100, \"cv\": 2}";
    long n = 20000;
    char args[1024], out[8192], errb[2048];
    char *file = tu_write("gen.csv", "");
    snprintf(args, sizeof args,
             "trace gen --arrival '%s' --work '{\"dist\": \"exponential\", \"mean_ms\": 4}'"
             " --count %ld --seed 9 -o %s",
             arr, n, file);
    CU_ASSERT_EQUAL_FATAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "20000 requests"));
    snprintf(args, sizeof args, "trace stats %s --format sharesim --json -", file);
    CU_ASSERT_EQUAL_FATAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 0);
    cJSON *j = cJSON_Parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);

    struct tenant_cfg c;
    tu_tenant_cfg(&c, ARR_GAMMA, 100);
    c.arrival.cv = 2;
    c.work.kind = WORK_EXPONENTIAL;
    c.work.mean_s = 4e-3;
    struct tenant_rt t;
    memset(&t, 0, sizeof t);
    ten_init(&t, &c, NULL, 9, 0, 0);
    double now = 0, tn, w, first = 0, sum = 0, sum2 = 0, wsum = 0;
    long ended = 0;
    for (long i = 0; i < n; i++) {
        ended += ten_next(&t, now, &tn, &w) != 1;
        if (i == 0) {
            first = tn;
        } else {
            sum += tn - now;
            sum2 += (tn - now) * (tn - now);
        }
        wsum += w * 1e3;
        now = tn;
    }
    ten_free(&t);
    CU_ASSERT_EQUAL(ended, 0);
    double mean = sum / (double)(n - 1), cv = sqrt(sum2 / (double)(n - 1) - mean * mean) / mean;
    CU_ASSERT_EQUAL(json_at(j, "count", NULL), n);
    CU_ASSERT_EQUAL(json_at(j, "first_s", NULL), first); /* written with round-trip digits */
    CU_ASSERT_EQUAL(json_at(j, "last_s", NULL), now);
    TU_CHECK_CLOSE_REL(json_at(j, "rate_per_s", NULL), (double)(n - 1) / (now - first), 1e-9);
    TU_CHECK_CLOSE_REL(json_at(j, "interarrival_s", "cv"), cv, 1e-6);
    TU_CHECK_CLOSE_REL(json_at(j, "work_ms", "mean"), wsum / (double)n, 1e-9);
    /* … and those draws are what was asked for. */
    TU_CHECK_CLOSE_REL(json_at(j, "rate_per_s", NULL), 100, 0.03);
    TU_CHECK_CLOSE_REL(json_at(j, "interarrival_s", "cv"), 2, 0.06);
    cJSON_Delete(j);
}

static void test_gen_replay_reproduces_run(void)
{
    /* An MMPP tenant simulated directly, and the same tenant written by `trace gen --scenario`
     * and replayed: the same requests, so the same latencies (work goes through a decimal
     * work_ms, which may move it by an ulp). */
    static const char *mmpp =
        "{\"process\": \"mmpp\", \"states\": [{\"rate_per_s\": 400, \"mean_dwell_s\": 2},"
        " {\"rate_per_s\": 20, \"mean_dwell_s\": 8}]}";
    static const char *work = "{\"dist\": \"lognormal\", \"mean_ms\": 5, \"cv\": 1}";
    const char *p1 = tu_one_tenant("direct.json", mmpp, work,
                                   "\"seed\": 4, \"stop\": "
                                   "{\"requests\": 20000},");
    char args[1024], errb[2048];
    snprintf(args, sizeof args, "trace gen --scenario %s --tenant a --count 20000 -o %s/g.csv", p1,
             tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(tu_cli(args, NULL, 0, errb, sizeof errb), 0);
    const char *p2 = tu_one_tenant(
        "replayed.json", "{\"process\": \"trace\", \"path\": \"g.csv\", \"format\": \"sharesim\"}",
        "{\"dist\": \"trace\"}", "");
    struct scenario s1, s2;
    tu_load_file(p1, &s1);
    tu_load_file(p2, &s2);
    TU_CHECK_CLOSE_REL(ten_mean_work(&s2.tenants[0]), 5e-3, 0.05);
    /* Request by request: the same times exactly, the same work to within an ulp. */
    struct tenant_rt t1, t2;
    memset(&t1, 0, sizeof t1);
    memset(&t2, 0, sizeof t2);
    ten_init(&t1, &s1.tenants[0], s1.path, s1.seed, 0, 0);
    ten_init(&t2, &s2.tenants[0], s2.path, s2.seed, 0, 0);
    double n1 = 0, n2 = 0, x1, x2, w1, w2;
    long time_diff = 0, work_diff = 0, work_inexact = 0, ended = 0;
    for (long i = 0; i < 20000; i++) {
        ended += ten_next(&t1, n1, &x1, &w1) + ten_next(&t2, n2, &x2, &w2) != 2;
        time_diff += x1 != x2;
        work_diff += fabs(w1 - w2) > 2.3e-16 * w1;
        work_inexact += w1 != w2;
        n1 = x1;
        n2 = x2;
    }
    CU_ASSERT_EQUAL(ten_next(&t2, n2, &x2, &w2), 0);
    CU_ASSERT_EQUAL(ended, 0);
    CU_ASSERT_EQUAL(time_diff, 0);
    CU_ASSERT_EQUAL(work_diff, 0);
    CU_ASSERT(work_inexact < 20000 / 20); /* about 2 %: see fmt_exact in cmd_trace.c */
    ten_free(&t1);
    ten_free(&t2);
    struct strategy_result a, b;
    CU_ASSERT_EQUAL_FATAL(run_one(&s1, &s1.strategies[0], 0, &a, NULL, 0), 0);
    CU_ASSERT_EQUAL_FATAL(run_one(&s2, &s2.strategies[0], 0, &b, NULL, 0), 0);
    CU_ASSERT_EQUAL(res_t(&a, 0)[TM_ARRIVED], 20000);
    CU_ASSERT_EQUAL(res_t(&b, 0)[TM_ARRIVED], 20000);
    for (int k = TM_THROUGHPUT; k <= TM_WAIT_MEAN; k++)
        TU_CHECK_CLOSE_REL(res_t(&b, 0)[k], res_t(&a, 0)[k], 1e-9);
    TU_CHECK_CLOSE_REL(b.m[SM_UTIL], a.m[SM_UTIL], 1e-9);
    strategy_result_free(&a);
    strategy_result_free(&b);
    scn_free(&s1);
    scn_free(&s2);
}

static void test_gen_from_azure(void)
{
    /* Converting a trace: azure-llm arrivals with tokens work become time_s,work_ms rows.
     * First row of the conversation trace: 374 and 44 tokens → 0.08·374 + 12·44 = 557.92 ms. */
    char args[1024], out[4096], errb[2048];
    snprintf(args, sizeof args,
             "trace gen --arrival '{\"process\": \"trace\", \"path\": \"%s\", \"format\": "
             "\"azure-llm\", \"limit\": 3}' --work '{\"dist\": \"tokens\", "
             "\"prefill_ms_per_token\": 0.08, \"decode_ms_per_token\": 12}' -o -",
             CONV1000);
    CU_ASSERT_EQUAL_FATAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 0);
    CU_ASSERT_STRING_EQUAL(out, "time_s,work_ms\n0,557.92\n4.314579,1339.68\n4.541877,"
                                "730.32\n");
}

static void test_gen_bad_input(void)
{
    char errb[4096];
    CU_ASSERT_EQUAL(tu_cli("trace gen --help", NULL, 0, NULL, 0), 0);
    CU_ASSERT_EQUAL(tu_cli("trace gen --arrival '{\"process\": \"poisson\", \"rate_per_s\": 1}'"
                           " --work '{\"dist\": \"exponential\", \"mean_ms\": 1}' -o -",
                           NULL, 0, errb, sizeof errb),
                    2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "--count N or --duration-s T is required"));
    CU_ASSERT_EQUAL(tu_cli("trace gen --arrival '{\"process\": \"saturated\"}'"
                           " --work '{\"dist\": \"exponential\", \"mean_ms\": 1}' -n 3 -o -",
                           NULL, 0, errb, sizeof errb),
                    2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "saturated tenant has no arrival times"));
    CU_ASSERT_EQUAL(tu_cli("trace gen --arrival '{\"process\": \"poisson\", \"rate_per_s\": 1}'"
                           " --work '{\"dist\": \"tokens\", \"prefill_ms_per_token\": 1,"
                           " \"decode_ms_per_token\": 1}' -n 3 -o -",
                           NULL, 0, errb, sizeof errb),
                    2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "--work.dist: \"tokens\" work is read from a trace"));
    CU_ASSERT_EQUAL(tu_cli("trace gen --arrival '{\"process\": \"poisson\"' --work '{}' -n 3 -o -",
                           NULL, 0, errb, sizeof errb),
                    2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "--arrival:1:"));
    CU_ASSERT_EQUAL(tu_cli("trace gen --arrival '{}' -n 3 -o -", NULL, 0, errb, sizeof errb), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "--arrival and --work go together"));
    CU_ASSERT_EQUAL(
        tu_cli("trace gen --scenario nope.json --tenant a -n 3 -o -", NULL, 0, errb, sizeof errb),
        2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "nope.json"));
    CU_ASSERT_EQUAL(
        tu_cli("trace gen --arrival '{}' --work '{}' -n 0 -o -", NULL, 0, errb, sizeof errb), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "--count: expected an integer >= 1, got \"0\""));
    /* No output on failure: the atomic file never appears. */
    char args[600];
    snprintf(args, sizeof args,
             "trace gen --arrival '{\"process\": \"poisson\", \"rate_per_s\": 1}'"
             " --work '{\"dist\": \"bogus\"}' -n 3 -o %s/never.csv",
             tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, NULL, 0), 2);
    snprintf(args, sizeof args, "%s/never.csv", tu_tmpdir());
    CU_ASSERT_FALSE(tu_exists(args));
}

/* trace gen -o X --json X used to replace the trace with its summary. */
static void test_trace_outputs(void)
{
    static const char gen[] =
        "trace gen --arrival '{\"process\": \"poisson\", \"rate_per_s\": 10}' "
        "--work '{\"dist\": \"deterministic\", \"ms\": 1}' --count 5";
    char args[1400];
    snprintf(args, sizeof args, "%s -o @X --json @X", gen);
    tu_expect_outputs_refused(args, "trace-x.csv", "sharesim trace gen: --json ",
                              "the same file as -o ", NULL);
    snprintf(args, sizeof args, "%s -o - --json /dev/stdout", gen);
    tu_expect_outputs_refused(args, NULL, "-o - already writes to stdout", NULL);
    tu_expect_outputs_refused("trace stats --format sharesim @X --json @X", "trace-y.csv",
                              "the same file as the input FILE", NULL);
}

void test_cmd_trace_register(void)
{
    static const struct tu_test t[] = {
        {"trace stats command", test_cli_stats},
        {"trace stats bad input exits 2 naming the line", test_cli_errors},
        {"trace gen -> trace stats round trip", test_gen_stats_round_trip},
        {"trace gen -> replay reproduces the run", test_gen_replay_reproduces_run},
        {"trace gen converts azure-llm with tokens", test_gen_from_azure},
        {"trace gen bad input", test_gen_bad_input},
        {"gen -o X --json X: refused, the trace kept", test_trace_outputs},
        {NULL, NULL},
    };
    tu_add_suite("cmd_trace", t);
}
