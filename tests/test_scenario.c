/*
 * scenario (core/scenario.c): the loader's checks of trace tenants. A bad trace path, bad
 * rows, work that does not match the trace's columns and bad combinations of arrival, work and
 * stop exit 2 with the message; a trace tenant with drawn work needs no stop.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

/* Runs `sharesim run` on a scenario with this arrival and work; expects exit 2, the file
 * named, and needle. */
static void expect_run_error(const char *arrival, const char *work, const char *extra,
                             const char *needle)
{
    static int k;
    char name[64];
    snprintf(name, sizeof name, "bad%d.json", k++);
    tu_expect_run_error(tu_one_tenant(name, arrival, work, extra), needle);
}

static void test_bad_input(void)
{
    static const char *tokens =
        "{\"dist\": \"tokens\", \"prefill_ms_per_token\": 0.1, \"decode_ms_per_token\": 10}";
    static const char *twork = "{\"dist\": \"trace\"}";
    static const char *stop = "\"stop\": {\"requests\": 10},";
    tu_write("ok.csv", "time_s,work_ms\n0,1\n1,2\n");
    tu_write("back.csv", "time_s,work_ms\n0,1\n0.5,2\n0.25,1\n");
    tu_write("notok.csv", "time_s,input_tokens,output_tokens\n0,3,1\n1,0,0\n");
    expect_run_error(
        "{\"process\": \"trace\", \"path\": \"missing.csv\", \"format\": \"sharesim\"}", twork, "",
        ".json: tenants[0].arrival.path: ");
    expect_run_error(
        "{\"process\": \"trace\", \"path\": \"missing.csv\", \"format\": \"sharesim\"}", twork, "",
        "missing.csv: cannot open: No such file or directory");
    expect_run_error("{\"process\": \"trace\", \"path\": \"back.csv\", \"format\": \"sharesim\"}",
                     twork, "", "tenants[0].arrival.path: ");
    expect_run_error("{\"process\": \"trace\", \"path\": \"back.csv\", \"format\": \"sharesim\"}",
                     twork, "",
                     "back.csv:4:1: field \"time_s\": time goes backwards (0.25 after 0.5)");
    expect_run_error("{\"process\": \"trace\", \"path\": \"ok.csv\", \"format\": \"azure-llm\"}",
                     twork, "", "ok.csv:1:1: unknown column \"time_s\"");
    expect_run_error("{\"process\": \"trace\", \"path\": \"ok.csv\", \"format\": \"sharesim\"}",
                     tokens, "",
                     "tenants[0].work.dist: \"tokens\" work needs the columns input_tokens and "
                     "output_tokens, but ");
    expect_run_error("{\"process\": \"trace\", \"path\": \"notok.csv\", \"format\": \"sharesim\"}",
                     twork, "", "\"trace\" work needs the column work_ms, but ");
    /* notok.csv with "tokens" work: its 0-and-0 row is a zero-work request, valid since the
     * second robustness round (tests/test_robust_inputs.c) */
    expect_run_error("{\"process\": \"poisson\", \"rate_per_s\": 3}", tokens, stop,
                     "tenants[0].work.dist: \"tokens\" work is read from a trace's token columns: "
                     "expected arrival.process \"trace\", got \"poisson\"");
    expect_run_error("{\"process\": \"saturated\"}", twork, stop,
                     "expected arrival.process \"trace\", got \"saturated\"");
    expect_run_error("{\"process\": \"trace\", \"path\": \"x.csv\", \"format\": \"openb\"}", twork,
                     "",
                     "tenants[0].arrival.format: an openb pod list describes long-running "
                     "pods");
    expect_run_error("{\"process\": \"trace\", \"path\": \"ok.csv\", \"format\": \"csv\"}", twork,
                     "",
                     "tenants[0].arrival.format: expected one of \"azure-llm\", \"openb\", "
                     "\"sharesim\", got \"csv\"");
    expect_run_error("{\"process\": \"trace\", \"path\": \"ok.csv\"}", twork, "",
                     "tenants[0].arrival.format: ");
    expect_run_error("{\"process\": \"trace\", \"path\": \"ok.csv\", \"format\": \"sharesim\", "
                     "\"time_scale\": 0}",
                     twork, "", "tenants[0].arrival.time_scale: expected a number > 0");
    expect_run_error("{\"process\": \"trace\", \"path\": \"ok.csv\", \"format\": \"sharesim\", "
                     "\"limit\": 0}",
                     twork, "", "tenants[0].arrival.limit: ");
    expect_run_error("{\"process\": \"trace\", \"path\": \"ok.csv\", \"format\": \"sharesim\", "
                     "\"rate_per_s\": 1}",
                     twork, "", "rate_per_s");
    expect_run_error("{\"process\": \"trace\", \"path\": \"ok.csv\", \"format\": \"sharesim\"}",
                     "{\"dist\": \"tokens\", \"prefill_ms_per_token\": 0}", "",
                     "tenants[0].work.decode_ms_per_token: ");
    expect_run_error("{\"process\": \"poisson\", \"rate_per_s\": 3}",
                     "{\"dist\": \"exponential\", \"mean_ms\": 1}", "",
                     "stop: missing (expected {\"requests\": N} or {\"duration_s\": T}; it may be "
                     "left out only when every tenant replays a trace");
    /* A trace tenant with drawn work is fine, and needs no stop. */
    const char *ok = tu_one_tenant(
        "ok.json", "{\"process\": \"trace\", \"path\": \"ok.csv\", \"format\": \"sharesim\"}",
        "{\"dist\": \"exponential\", \"mean_ms\": 1}", "");
    char args[600];
    snprintf(args, sizeof args, "run %s --quiet", ok);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, NULL, 0), 0);
}

void test_scenario_register(void)
{
    static const struct tu_test t[] = {
        {"bad trace input: exit 2 with the message", test_bad_input},
        {NULL, NULL},
    };
    tu_add_suite("scenario", t);
}
