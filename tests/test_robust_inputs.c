/*
 * Robustness, second round (docs/robustness.md): inputs that are valid but unusual, and inputs
 * that look valid but would stop time, overflow it or exhaust the machine.
 *  - zero work: real trace rows whose duration is 0 (tests/fixtures/robust/, built from the
 *    Azure traces by make-zero-work.py) replay under every strategy kind, every request
 *    accounted for; negative or non-finite work is still refused;
 *  - the clock: bounds that follow from its precision (rates, MMPP dwell, diurnal period, time
 *    slice, time_scale, a trace's times), checked on the values used (after --scale-load); the
 *    stall detector, the horizon and the cap on requests in the system stop a run with exit 2
 *    and a message, never a hang or an out-of-memory abort;
 *  - figures: percentiles past the histogram's range, overflow-safe sums (trace stats' CV,
 *    FGD weights);
 *  - traces that are not regular files;
 *  - scale at the documented limits.
 */
#define _DEFAULT_SOURCE /* realpath() */
#include "base/moments.h"
#include "calib/calib.h"
#include "core/engine.h"
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"
#include "io/trace.h"
#include "core/stats.h"
#include "io/tracestats.h"
#include "mig/mig.h"
#include "base/util.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CODE0 "tests/fixtures/robust/code-zero-work.csv"
#define CONV0 "tests/fixtures/robust/conv-zero-tokens.csv"

#define EXPECT_IN(hay, part)                                                                       \
    do {                                                                                           \
        if (!strstr((hay), (part)))                                                                \
            fprintf(stderr, "\n  %s:%d: expected \"%s\" in: %s", __FILE__, __LINE__, (part),       \
                    (hay));                                                                        \
        CU_ASSERT_PTR_NOT_NULL(strstr((hay), (part)));                                             \
    } while (0)

/* Absolute path of a file under the repository root. */
static const char *abs_path(const char *rel)
{
    static char buf[2][8192];
    static int slot;
    char *b = buf[slot++ % 2], root[4096];
    if (!realpath(tu_root(), root))
        snprintf(root, sizeof root, "%s", tu_root());
    snprintf(b, sizeof buf[0], "%s/%s", root, rel);
    return b;
}

static int load_text(const char *name, const char *text, struct scenario *sc, char *err,
                     size_t errlen)
{
    return scn_load(tu_write(name, text), sc, err, errlen);
}

/* `timeout LIMIT $SHARESIM args` through sh (so a hang fails the test instead of hanging it);
 * stderr into errbuf; the exit code (124 on timeout). */
static int cli_limited(int limit_s, const char *args, char *errbuf, size_t errcap)
{
    const char *bin = getenv("SHARESIM");
    char cmd[8192], e[600];
    snprintf(e, sizeof e, "%s/limited.err", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "timeout %d %s %s >/dev/null 2>'%s' </dev/null", limit_s,
             bin ? bin : "build/sharesim", args, e);
    int st = system(cmd);
    char *t = tu_slurp(e);
    snprintf(errbuf, errcap, "%s", t ? t : "");
    free(t);
    return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* ---- zero work ------------------------------------------------------------ */

/* Every strategy kind on both fixtures; no stop, so every row is replayed and drained. */
static void zero_work_scenario(char *buf, size_t n)
{
    snprintf(
        buf, n,
        "{\"name\": \"zero\", \"gpu\": \"A100-80GB\", \"gpus\": 2,"
        " \"tenants\": ["
        "  {\"name\": \"code\", \"arrival\": {\"process\": \"trace\", \"path\": \"%s\","
        "   \"format\": \"sharesim\"}, \"work\": {\"dist\": \"trace\"}, \"memory_gb\": 20},"
        "  {\"name\": \"conv\", \"arrival\": {\"process\": \"trace\", \"path\": \"%s\","
        "   \"format\": \"azure-llm\"}, \"work\": {\"dist\": \"tokens\","
        "   \"prefill_ms_per_token\": 0.08, \"decode_ms_per_token\": 2}, \"memory_gb\": 20}],"
        " \"strategies\": ["
        "  {\"name\": \"fifo\", \"kind\": \"exclusive\"},"
        "  {\"name\": \"ps\", \"kind\": \"exclusive\", \"discipline\": \"ps\"},"
        "  {\"name\": \"ts\", \"kind\": \"timeslice\", \"assign\": {\"code\": 0, \"conv\": 0}},"
        "  {\"name\": \"mps\", \"kind\": \"mps\"},"
        "  {\"name\": \"mig\", \"kind\": \"mig\", \"layout\": ["
        "   {\"profile\": \"4g.40gb\", \"tenants\": [\"code\"]},"
        "   {\"profile\": \"3g.40gb\", \"tenants\": [\"conv\"]}]},"
        "  {\"name\": \"vgpu\", \"kind\": \"vgpu\", \"vgpus\": ["
        "   {\"fb_gb\": 40, \"tenants\": [\"code\"]}, {\"fb_gb\": 40, \"tenants\": [\"conv\"]}]}"
        "]}",
        abs_path(CODE0), abs_path(CONV0));
}

static void test_zero_work_replays(void)
{
    char text[20000], err[SS_ERRLEN];
    zero_work_scenario(text, sizeof text);
    struct scenario sc;
    int rc = load_text("zero.json", text, &sc, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(sc.tenants[0].arrival.trace_count, 8819);
    CU_ASSERT_EQUAL(sc.tenants[1].arrival.trace_count, 1000);
    struct run_opts o = {1, -1, 0, 0};
    struct run_result r;
    CU_ASSERT_EQUAL_FATAL(run_scenario(&sc, &o, &r, err, sizeof err), 0);
    CU_ASSERT_EQUAL(r.n, 6);
    for (int k = 0; k < r.n; k++)
        for (int i = 0; i < 2; i++) {
            const double *t = res_t(&r.s[k], i);
            double want = i == 0 ? 8819 : 1000;
            if (t[TM_ARRIVED] != want || t[TM_COMPLETED] != want)
                fprintf(stderr, "\n  %s/%s: arrived %g completed %g rejected %g failed %g",
                        r.s[k].name, sc.tenants[i].name, t[TM_ARRIVED], t[TM_COMPLETED],
                        t[TM_REJECTED], t[TM_FAILED]);
            CU_ASSERT_EQUAL(t[TM_ARRIVED], want);
            CU_ASSERT_EQUAL(t[TM_COMPLETED], want);
            CU_ASSERT_EQUAL(t[TM_REJECTED], 0);
            CU_ASSERT_EQUAL(t[TM_FAILED], 0);
            CU_ASSERT_EQUAL(t[TM_IN_FLIGHT], 0);
            CU_ASSERT(isfinite(t[TM_LAT_P99]) && t[TM_LAT_P99] > 0);
        }
    /* FIFO on a GPU of its own: the mean work of completed requests is the file's, zeros in. */
    double sum = 0;
    long n = 0;
    FILE *fp = fopen(CODE0, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char line[256];
    int zeros = 0;
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, fp));
    while (fgets(line, sizeof line, fp)) {
        double w = strtod(strchr(line, ',') + 1, NULL);
        zeros += w == 0;
        sum += w;
        n++;
    }
    fclose(fp);
    CU_ASSERT_EQUAL(n, 8819);
    CU_ASSERT_EQUAL(zeros, 30);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_WORK_MEAN], sum / n * 1e-3, 1e-9);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_zero_work_cli(void)
{
    char text[20000], out[256], err[4096];
    zero_work_scenario(text, sizeof text);
    const char *path = tu_write("zero-cli.json", text);
    char args[1024], json[600];
    snprintf(json, sizeof json, "%s/zero-cli.out.json", tu_tmpdir());
    snprintf(args, sizeof args, "run '%s' --quiet --no-slowdown --json '%s'", path, json);
    int rc = tu_cli(args, out, sizeof out, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "\n  %s", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char *doc_text = tu_slurp(json);
    cJSON *doc = cJSON_Parse(doc_text);
    free(doc_text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *s, *t;
    int pairs = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(doc, "strategies"))
    {
        cJSON_ArrayForEach(t, cJSON_GetObjectItem(s, "tenants"))
        {
            double arrived = cJSON_GetNumberValue(cJSON_GetObjectItem(t, "arrived"));
            double done = cJSON_GetNumberValue(cJSON_GetObjectItem(t, "completed"));
            CU_ASSERT(arrived == 8819 || arrived == 1000);
            CU_ASSERT_EQUAL(done, arrived);
            pairs++;
        }
    }
    CU_ASSERT_EQUAL(pairs, 12);
    cJSON_Delete(doc);
    /* trace stats reads the zeros as work too (min 0) */
    snprintf(args, sizeof args, "trace stats %s --format sharesim --json -", CODE0);
    char stats[8192];
    CU_ASSERT_EQUAL(tu_cli(args, stats, sizeof stats, err, sizeof err), 0);
    cJSON *st = cJSON_Parse(stats);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(st, "count")), 8819);
    const cJSON *w = cJSON_GetObjectItem(st, "work_ms");
    CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(w, "min")), 0);
    cJSON_Delete(st);
}

/* Zero is the one new value: negative, non-finite and missing work are still refused. */
static void test_zero_work_bounds(void)
{
    static const struct {
        const char *rows, *msg;
    } bad[] = {
        {"time_s,work_ms\n0,1\n1,-1\n", ":3:3: field \"work_ms\": expected a finite number of "
                                        "milliseconds >= 0, got \"-1\""},
        {"time_s,work_ms\n0,-0.0001\n", "got \"-0.0001\""},
        {"time_s,work_ms\n0,1e400\n", "got \"1e400\" which overflows a double"},
        {"time_s,work_ms\n0,inf\n", "got \"inf\""},
        {"time_s,input_tokens,output_tokens\n0,1,-1\n", "field \"output_tokens\": expected a "
                                                        "token count (integer >= 0)"},
    };
    char args[1024], out[256], err[2048];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *p = tu_write("bad-work.csv", bad[i].rows);
        snprintf(args, sizeof args, "trace stats '%s' --format sharesim", p);
        CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, err, sizeof err), 2);
        EXPECT_IN(err, bad[i].msg);
    }
    /* accepted: 0, -0 (it is zero) and 0 tokens with a per-token cost */
    const char *ok = tu_write("ok-work.csv", "time_s,work_ms,input_tokens,output_tokens\n"
                                             "0,0,0,0\n0,-0,5,0\n1,0e5,0,7\n");
    snprintf(args, sizeof args, "trace stats '%s' --format sharesim", ok);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, err, sizeof err), 0);
    char text[2048], msg[SS_ERRLEN];
    snprintf(text, sizeof text,
             "{\"gpu\": \"A100-80GB\", \"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": "
             "\"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}, \"work\": {\"dist\": "
             "\"tokens\", \"prefill_ms_per_token\": 0, \"decode_ms_per_token\": 1}}],"
             " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}",
             ok);
    struct scenario sc;
    int rc = load_text("ok-tokens.json", text, &sc, msg, sizeof msg);
    if (rc)
        fprintf(stderr, "\n  %s", msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    struct run_opts o = {1, -1, 0, 0};
    struct run_result r;
    CU_ASSERT_EQUAL_FATAL(run_scenario(&sc, &o, &r, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 0)[TM_COMPLETED], 3);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 0)[TM_ARRIVED], 3);
    /* two requests of zero work at t = 0 and one of 7 ms at 1 s */
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_WORK_MEAN], 7e-3 / 3, 1e-12);
    run_result_free(&r);
    scn_free(&sc);
}

/* ---- the clock ------------------------------------------------------------------ */

#define HEAD_STOP(stop)                                                                            \
    "{\"gpu\": \"A100-80GB\", \"stop\": " stop ", \"tenants\": [{\"name\": \"a\", "
#define ARR(a) "\"arrival\": " a ", \"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}], "
#define EXCL "\"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}"
#define DUR "{\"duration_s\": 100}"
#define POIS10 HEAD_STOP(DUR) ARR("{\"process\": \"poisson\", \"rate_per_s\": 10}")
#define STRAT(st) "\"strategies\": [" st "]}"

struct clock_case {
    const char *text; /* a scenario; "%s" is replaced by the absolute path of a trace file */
    const char *trace;
    const char *msg;
};

static const struct clock_case clock_cases[] = {
    {HEAD_STOP(DUR) ARR("{\"process\": \"poisson\", \"rate_per_s\": 5e-324}") EXCL, NULL,
     "tenants[0].arrival.rate_per_s: 4.94066e-324/s is below the minimum of 1e-09/s: a mean gap "
     "between arrivals is at most 1e9 s"},
    {HEAD_STOP(DUR) ARR("{\"process\": \"gamma\", \"rate_per_s\": 1e-10, \"cv\": 2}") EXCL, NULL,
     "tenants[0].arrival.rate_per_s: 1e-10/s is below the minimum of 1e-09/s"},
    {HEAD_STOP(DUR) ARR("{\"process\": \"mmpp\", \"states\": [{\"rate_per_s\": 10, "
                        "\"mean_dwell_s\": 1e-9}, {\"rate_per_s\": 1, \"mean_dwell_s\": 1}]}") EXCL,
     NULL,
     "tenants[0].arrival.states[0].mean_dwell_s: 1e-09 s is below the minimum of 0.0001 s: the "
     "clock resolves 2^-20 s (0.95 us) at its horizon of 2^32 s"},
    {HEAD_STOP(DUR) ARR("{\"process\": \"mmpp\", \"states\": [{\"rate_per_s\": 1e-12, "
                        "\"mean_dwell_s\": 1}, {\"rate_per_s\": 1, \"mean_dwell_s\": 1}]}") EXCL,
     NULL, "tenants[0].arrival.states[0].rate_per_s: 1e-12/s is below the minimum of 1e-09/s"},
    {HEAD_STOP(DUR) ARR("{\"process\": \"mmpp\", \"states\": [{\"rate_per_s\": 1e-9, "
                        "\"mean_dwell_s\": 1e-4}, {\"rate_per_s\": 0, \"mean_dwell_s\": 1e-4}]}")
         EXCL,
     NULL, "tenants[0].arrival.states: 5e-14 arrivals per state visit"},
    /* the example: off for 1e9 s next to on for 1e-3 s, 1000 requests */
    {HEAD_STOP("{\"requests\": 1000}") ARR("{\"process\": \"mmpp\", \"states\": [{\"rate_per_s\": "
                                           "10, \"mean_dwell_s\": 1e-3}, {\"rate_per_s\": 0, "
                                           "\"mean_dwell_s\": 1e9}]}") EXCL,
     NULL,
     "stop.requests: 1000 requests at a mean rate of 1e-11/s take about 1e+14 s of simulated "
     "time, past the clock's horizon of 4.29497e+09 s (2^32)"},
    {HEAD_STOP("{\"requests\": 1000000000000}") ARR("{\"process\": \"poisson\", \"rate_per_s\": "
                                                    "1}") EXCL,
     NULL, "stop.requests: 1000000000000 requests at a mean rate of 1/s"},
    {HEAD_STOP(DUR) ARR("{\"process\": \"diurnal\", \"rate_per_s\": 10, \"amplitude\": 0.5, "
                        "\"period_s\": 5e-324}") EXCL,
     NULL, "tenants[0].arrival.period_s: 4.94066e-324 s is below the minimum of 0.0001 s"},
    {POIS10 STRAT("{\"name\": \"t\", \"kind\": \"timeslice\", \"slice_ms\": 1e-9}"), NULL,
     "strategies[0].slice_ms: 1e-09 is below the minimum of 0.1: a time slice repeats"},
    {POIS10 STRAT("{\"name\": \"v\", \"kind\": \"vgpu\", \"slice_ms\": 0.01, \"vgpus\": "
                  "[{\"fb_gb\": 20, \"tenants\": [\"a\"]}]}"),
     NULL, "strategies[0].slice_ms: 0.01 is below the minimum of 0.1"},
    {POIS10 STRAT("{\"name\": \"m\", \"kind\": \"mig\", \"layout\": [{\"profile\": \"7g.80gb\", "
                  "\"tenants\": [\"a\"], \"nested\": {\"kind\": \"timeslice\", "
                  "\"slice_ms\": 1e-6}}]}"),
     NULL, "slice_ms: 1e-06 is below the minimum of 0.1"},
    /* traces: time_scale both ways, and times past the horizon (the 1e15 s) */
    {"{\"gpu\": \"A100-80GB\", \"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": "
     "\"trace\", \"path\": \"%s\", \"format\": \"sharesim\", \"time_scale\": 1e-7}, \"work\": "
     "{\"dist\": \"trace\"}}], " EXCL,
     "time_s,work_ms\n0,1\n1,1\n",
     "tenants[0].arrival.time_scale: 1e-07 is below the minimum of 1e-06"},
    {"{\"gpu\": \"A100-80GB\", \"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": "
     "\"trace\", \"path\": \"%s\", \"format\": \"sharesim\", \"time_scale\": 2e6}, \"work\": "
     "{\"dist\": \"trace\"}}], " EXCL,
     "time_s,work_ms\n0,1\n1,1\n",
     "tenants[0].arrival.time_scale: expected a number > 0 and <= "
     "1e+06, got 2e+06"},
    {"{\"gpu\": \"A100-80GB\", \"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": "
     "\"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}, \"work\": {\"dist\": "
     "\"trace\"}}], " EXCL,
     "time_s,work_ms\n1e15,1\n1e15,2\n",
     ":2: arrival at 1e+15 s (after time_scale) is past the clock's horizon of 4.29497e+09 s "
     "(2^32), beyond which it no longer resolves 1 us"},
    {"{\"gpu\": \"A100-80GB\", \"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": "
     "\"trace\", \"path\": \"%s\", \"format\": \"sharesim\", \"time_scale\": 1e6}, \"work\": "
     "{\"dist\": \"trace\"}}], " EXCL,
     "time_s,work_ms\n0,1\n1000,1\n10000,1\n", ":4: arrival at 1e+10 s (after time_scale)"},
    /* the limit on requests in the system is a scenario key with a range */
    {HEAD_STOP(DUR) ARR("{\"process\": \"poisson\", \"rate_per_s\": 10}") EXCL, NULL, NULL},
};

static void test_clock_bounds(void)
{
    char text[8192], trace_path[600], err[SS_ERRLEN];
    for (size_t i = 0; i < sizeof clock_cases / sizeof *clock_cases; i++) {
        const struct clock_case *c = &clock_cases[i];
        if (c->trace) {
            snprintf(trace_path, sizeof trace_path, "%s/clock-%zu.csv", tu_tmpdir(), i);
            FILE *fp = fopen(trace_path, "w");
            CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
            fputs(c->trace, fp);
            fclose(fp);
            snprintf(text, sizeof text, c->text, trace_path);
        } else {
            snprintf(text, sizeof text, "%s", c->text);
        }
        struct scenario sc;
        int rc = load_text("clock.json", text, &sc, err, sizeof err);
        scn_free(&sc);
        if (!c->msg) {
            CU_ASSERT_EQUAL(rc, 0);
            continue;
        }
        CU_ASSERT_EQUAL(rc, -1);
        EXPECT_IN(err, "clock.json: ");
        EXPECT_IN(err, c->msg);
    }
    /* limits.in_system */
    static const char *limits[][2] = {
        {"{\"in_system\": 0}", "limits.in_system: expected a number in [1, 1e+09], got 0"},
        {"{\"in_system\": 1.5}", "limits.in_system: expected an integer, got 1.5"},
        {"{\"queue\": 5}", "limits.queue: unknown key \"queue\""},
        {"5", "limits: expected an object"},
    };
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
        snprintf(text, sizeof text,
                 "{\"gpu\": \"A100-80GB\", \"limits\": %s, \"stop\": " DUR ", \"tenants\": "
                 "[{\"name\": \"a\", " ARR("{\"process\": \"poisson\", \"rate_per_s\": 10}") EXCL,
                 limits[i][0]);
        struct scenario sc;
        CU_ASSERT_EQUAL(load_text("limits.json", text, &sc, err, sizeof err), -1);
        EXPECT_IN(err, limits[i][1]);
        scn_free(&sc);
    }
    /* end to end: exit 2 and the message, nothing on stdout */
    const char *s = tu_write("clock-cli.json", clock_cases[0].text);
    char args[1024], out[256], errb[4096];
    snprintf(args, sizeof args, "run '%s'", s);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 2);
    EXPECT_IN(errb, "sharesim: ");
    EXPECT_IN(errb, "rate_per_s: 4.94066e-324/s is below the minimum");
    CU_ASSERT_STRING_EQUAL(out, "");
}

/* --scale-load is checked on the values it makes, and so is a sweep's point */
static void test_clock_after_scaling(void)
{
    char args[2048], errb[4096];
    const char *s = tu_write(
        "scale.json", HEAD_STOP(DUR) ARR("{\"process\": \"poisson\", \"rate_per_s\": 10}") EXCL);
    snprintf(args, sizeof args, "run '%s' --quiet --scale-load 1e300", s);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, errb, sizeof errb), 2);
    EXPECT_IN(errb, "tenants[0].arrival.rate_per_s: 1e+301/s (after --scale-load 1e+300) is above "
                    "the maximum of 1e+09/s");
    snprintf(args, sizeof args, "run '%s' --quiet --scale-load 1e-300", s);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, errb, sizeof errb), 2);
    EXPECT_IN(errb, "(after --scale-load 1e-300) is below the minimum of 1e-09/s");
    /* a trace: --scale-load X replays X times faster, so time_scale / X must stay in range */
    char text[4096], tr[600];
    snprintf(tr, sizeof tr, "%s/scale-trace.csv", tu_tmpdir());
    FILE *fp = fopen(tr, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("time_s,work_ms\n0,1\n5000,1\n", fp);
    fclose(fp);
    snprintf(text, sizeof text,
             "{\"gpu\": \"A100-80GB\", \"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": "
             "\"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}, \"work\": {\"dist\": "
             "\"trace\"}}], " EXCL,
             tr);
    s = tu_write("scale-trace.json", text);
    snprintf(args, sizeof args, "run '%s' --quiet --scale-load 1e-7", s);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, errb, sizeof errb), 2);
    EXPECT_IN(errb, "tenants[0].arrival.time_scale: 1e+07 (after --scale-load 1e-07) is above the "
                    "maximum of 1e+06");
    snprintf(args, sizeof args, "run '%s' --quiet --scale-load 1e-6", s);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, errb, sizeof errb), 2);
    EXPECT_IN(errb, "its last request arrives at 5e+09 s (after --scale-load 1e-06), past the "
                    "clock's horizon");
    snprintf(args, sizeof args, "run '%s' --quiet --scale-load 2e-6", s);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, errb, sizeof errb), 0);
}

/* Runs the scenario in process; returns run_scenario's code, the message in err. */
static int run_text(const char *name, const char *text, char *err, size_t errlen)
{
    struct scenario sc;
    int rc = load_text(name, text, &sc, err, errlen);
    if (rc) {
        scn_free(&sc);
        return -2;
    }
    struct run_opts o = {1, -1, 0, 0};
    struct run_result r;
    rc = run_scenario(&sc, &o, &r, err, errlen);
    if (rc == 0)
        run_result_free(&r);
    scn_free(&sc);
    return rc;
}

/* A run whose time would pass the horizon stops there with exit 2, named; one that stops
 * before it does not (the arrival drawn after the last one is never reached). */
static void test_clock_horizon(void)
{
    char err[SS_ERRLEN];
    /* 4 arrivals at 1e-9/s average 4e9 s: inside the horizon on average, so it loads; the 4th
     * arrival lands past it in about 4 seeds of 10, and the arrival drawn after the 4th (never
     * needed) does not count. Twenty seeds: both outcomes, whatever the random stream. */
    static const char *far =
        "{\"gpu\": \"A100-80GB\", \"seed\": %d, \"stop\": {\"requests\": 4}, \"tenants\": "
        "[{\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1e-9}, "
        "\"work\": {\"dist\": \"deterministic\", \"ms\": 1}}], " EXCL;
    char text[2048];
    int ok = 0, stopped = 0, halting_seed = -1;
    for (int seed = 1; seed <= 20; seed++) {
        snprintf(text, sizeof text, far, seed);
        int rc = run_text("far.json", text, err, sizeof err);
        CU_ASSERT(rc == 0 || rc == -1);
        if (rc == 0) {
            ok++;
        } else {
            stopped++;
            halting_seed = seed;
            EXPECT_IN(err, "far.json: strategy \"x\", replication 1: the last event at ");
            EXPECT_IN(err, "s is past the clock's horizon of 4.29497e+09 s (2^32)");
        }
    }
    CU_ASSERT(ok >= 1 && stopped >= 1);
    /* a request whose work is past the horizon: the drain's last event is */
    char tr[600];
    snprintf(tr, sizeof tr, "%s/huge-work.csv", tu_tmpdir());
    FILE *fp = fopen(tr, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("time_s,work_ms\n0,1\n1,1e13\n", fp);
    fclose(fp);
    snprintf(text, sizeof text,
             "{\"gpu\": \"A100-80GB\", \"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": "
             "\"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}, \"work\": {\"dist\": "
             "\"trace\"}}], " EXCL,
             tr);
    CU_ASSERT_EQUAL(run_text("huge.json", text, err, sizeof err), -1);
    EXPECT_IN(err, "the last event at 1e+10 s is past the clock's horizon");
    /* end to end */
    snprintf(text, sizeof text, far, halting_seed);
    const char *s = tu_write("far4.json", text);
    char args[1024], out[256], errb[4096];
    snprintf(args, sizeof args, "run '%s' --json '%s/far4.out'", s, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 2);
    EXPECT_IN(errb, "sharesim: ");
    EXPECT_IN(errb, "past the clock's horizon");
    CU_ASSERT_STRING_EQUAL(out, "");
    char o[700];
    snprintf(o, sizeof o, "%s/far4.out", tu_tmpdir());
    CU_ASSERT_FALSE(tu_exists(o));
}

/* Work of 1e-300 ms: each completion moves time by 1e-303 s, which never reaches the stop. */
static void test_clock_stall(void)
{
    static const char *stall =
        "{\"gpu\": \"A100-80GB\", \"stop\": {\"duration_s\": 10}, \"tenants\": [{\"name\": \"a\", "
        "\"arrival\": {\"process\": \"saturated\"}, \"work\": {\"dist\": \"deterministic\", "
        "\"ms\": 1e-300}}], " EXCL;
    char err[SS_ERRLEN];
    int saved = eng_stall_checks;
    eng_stall_checks = 2; /* 2^21 events instead of 2^26: the same code, sooner */
    CU_ASSERT_EQUAL(run_text("stall.json", stall, err, sizeof err), -1);
    eng_stall_checks = saved;
    EXPECT_IN(err, "stall.json: strategy \"x\", replication 1: simulated time stopped advancing "
                   "at ");
    EXPECT_IN(err, "less than 2^-20 s (one clock tick at the horizon) in 2097152 events");
    /* end to end with the real threshold (2^26 events, about 2 s; too slow under valgrind) */
    if (tu_under_valgrind())
        return;
    const char *s = tu_write("stall.json", stall);
    char args[1024], errb[4096];
    snprintf(args, sizeof args, "run '%s' --quiet", s);
    CU_ASSERT_EQUAL(cli_limited(120, args, errb, sizeof errb), 2);
    EXPECT_IN(errb, "in 67108864 events");
}

/* The caller's event budget (the scenario fuzzer's, eng_event_budget) ends a run with an
 * error at the first progress check past it: 2^20 events in this build. */
static void test_event_budget(void)
{
    static const char *busy =
        "{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 3000000}, \"tenants\": [{\"name\": "
        "\"a\", \"arrival\": {\"process\": \"saturated\"}, \"work\": {\"dist\": "
        "\"deterministic\", \"ms\": 1}}], " EXCL;
    char err[SS_ERRLEN];
    eng_event_budget = 1000;
    int rc = run_text("budget.json", busy, err, sizeof err);
    eng_event_budget = 0;
    CU_ASSERT_EQUAL(rc, -1);
    EXPECT_IN(err, "budget.json: strategy \"x\", replication 1: stopped after 1048576 events, "
                   "the event budget");
}

/* Rate 1e9/s of 1e9 ms work: the example, stopped at the limit instead of aborting. */
static void test_in_system_limit(void)
{
    static const char *unstable =
        "{\"gpu\": \"A100-80GB\", %s \"stop\": {\"duration_s\": 1000}, \"tenants\": [{\"name\": "
        "\"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1e9}, \"work\": {\"dist\": "
        "\"deterministic\", \"ms\": 1e9}}], " EXCL;
    char text[2048], err[SS_ERRLEN];
    snprintf(text, sizeof text, unstable, "\"limits\": {\"in_system\": 1000},");
    CU_ASSERT_EQUAL(run_text("unstable.json", text, err, sizeof err), -1);
    EXPECT_IN(err, "unstable.json: strategy \"x\", replication 1: 1000 requests in the system "
                   "(waiting or in service) at t = ");
    EXPECT_IN(err, "tenant \"a\" has 999 waiting");
    EXPECT_IN(err, "raise limits.in_system");
    /* a queue_limit keeps the system under the limit: rejected, not stopped */
    snprintf(text, sizeof text,
             "{\"gpu\": \"A100-80GB\", \"limits\": {\"in_system\": 1000}, \"stop\": "
             "{\"duration_s\": 1e-4}, \"tenants\": [{\"name\": \"a\", \"queue_limit\": 500, "
             "\"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1e9}, \"work\": {\"dist\": "
             "\"deterministic\", \"ms\": 1}}], " EXCL);
    CU_ASSERT_EQUAL(run_text("bounded.json", text, err, sizeof err), 0);
    /* end to end with the default limit (10^7: about 3 s and 0.7 GB) in the plain build only */
    snprintf(text, sizeof text, unstable,
             tu_sanitized() || tu_under_valgrind() ? "\"limits\": {\"in_system\": 100000}," : "");
    const char *s = tu_write("unstable.json", text);
    char args[1024], errb[4096];
    snprintf(args, sizeof args, "run '%s' --quiet", s);
    CU_ASSERT_EQUAL(cli_limited(120, args, errb, sizeof errb), 2);
    EXPECT_IN(errb, tu_sanitized() || tu_under_valgrind() ? "100000 requests in the system"
                                                          : "10000000 requests in the system");
}

/* trace gen draws with the same code: refused at parse, stopped at the horizon, no file left */
static void test_trace_gen_clock(void)
{
    static const struct {
        const char *arrival, *msg;
    } cases[] = {
        {"{\"process\": \"mmpp\", \"states\": [{\"rate_per_s\": 10, \"mean_dwell_s\": 1e-9}, "
         "{\"rate_per_s\": 1, \"mean_dwell_s\": 1}]}",
         "--arrival.states[0].mean_dwell_s: 1e-09 s is below the minimum of 0.0001 s"},
        {"{\"process\": \"diurnal\", \"rate_per_s\": 10, \"amplitude\": 0.5, \"period_s\": "
         "5e-324}",
         "--arrival.period_s: 4.94066e-324 s is below the minimum"},
        {"{\"process\": \"mmpp\", \"states\": [{\"rate_per_s\": 10, \"mean_dwell_s\": 1e-3}, "
         "{\"rate_per_s\": 0, \"mean_dwell_s\": 1e9}]}",
         "s is past the clock's horizon of 4.29497e+09 s (2^32)"},
    };
    char args[2048], errb[4096], out[600];
    snprintf(out, sizeof out, "%s/gen-clock.csv", tu_tmpdir());
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(args, sizeof args,
                 "trace gen --arrival '%s' --work '{\"dist\": \"exponential\", \"mean_ms\": 1}' "
                 "--count 1000 -o '%s'",
                 cases[i].arrival, out);
        CU_ASSERT_EQUAL(cli_limited(60, args, errb, sizeof errb), 2);
        EXPECT_IN(errb, cases[i].msg);
        CU_ASSERT_FALSE(tu_exists(out));
    }
}

/* ---- figures --------------------------------------------------------------------- */

static void test_percentiles_beyond_range(void)
{
    /* the histogram alone: 2^21 s and past it is not known to 0.39 % */
    struct st_hist h;
    st_hist_init(&h);
    for (int i = 1; i <= 1000; i++)
        st_hist_add(&h, i <= 900 ? 1.0 : 1e7 + i); /* 90 % at 1 s, 10 % past the range */
    CU_ASSERT(fabs(st_hist_quantile(&h, 0.5) - 1.0) < 0.004);
    CU_ASSERT(fabs(st_hist_quantile(&h, 0.9) - 1.0) < 0.004);
    CU_ASSERT(isinf(st_hist_quantile(&h, 0.95)) && st_hist_quantile(&h, 0.95) > 0);
    CU_ASSERT(isinf(st_hist_quantile(&h, 0.999)));
    CU_ASSERT_EQUAL(st_hist_quantile(&h, 1.0), 1e7 + 1000); /* the maximum is exact */
    st_hist_reset(&h);
    for (int i = 0; i < 10; i++)
        st_hist_add(&h, 0.0); /* zero work, zero latency: exactly 0 */
    CU_ASSERT_EQUAL(st_hist_quantile(&h, 0.5), 0.0);
    st_hist_free(&h);
    /* a run: one request a second of 10^4 s work, so latencies reach 10^7 s (the issue's
     * 2,093,056,000 ms for p95, p99 and p99.9 alike) */
    static const char *text =
        "{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 1000}, \"tenants\": [{\"name\": \"a\", "
        "\"arrival\": {\"process\": \"deterministic\", \"rate_per_s\": 1}, \"work\": {\"dist\": "
        "\"deterministic\", \"ms\": 1e7}}], " EXCL;
    struct scenario sc;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(load_text("beyond.json", text, &sc, err, sizeof err), 0);
    struct run_opts o = {1, -1, 1, 0};
    struct run_result r;
    CU_ASSERT_EQUAL_FATAL(run_scenario(&sc, &o, &r, err, sizeof err), 0);
    const double *t = res_t(&r.s[0], 0);
    for (int k = TM_LAT_P50; k <= TM_LAT_P999; k++)
        CU_ASSERT(isinf(t[k]) && t[k] > 0);
    TU_CHECK_CLOSE_REL(t[TM_LAT_MEAN], 5004500.5, 1e-9); /* the mean is exact: sums */
    CU_ASSERT(isnan(t[TM_SLOWDOWN_P99]));                /* inf / inf is not a ratio */
    run_result_free(&r);
    scn_free(&sc);
    /* end to end: null and a flag in JSON, ">= 24 days" in the table, empty in CSV */
    const char *path = tu_write("beyond.json", text);
    char args[2048], json[600], csv[600], out[8192], errb[2048];
    snprintf(json, sizeof json, "%s/beyond.out.json", tu_tmpdir());
    snprintf(csv, sizeof csv, "%s/beyond.out.csv", tu_tmpdir());
    snprintf(args, sizeof args, "run '%s' --json '%s' --csv '%s'", path, json, csv);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 0);
    EXPECT_IN(out, ">= 24 days >= 24 days >= 24 days >= 24 days");
    CU_ASSERT_PTR_NULL(strstr(out, "2093056000"));
    char *jt = tu_slurp(json);
    cJSON *doc = jt ? cJSON_Parse(jt) : NULL;
    free(jt);
    const cJSON *lat = cJSON_GetObjectItem(
        cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0),
                                "tenants"),
            0),
        "latency_ms");
    static const char *const keys[] = {"p50", "p95", "p99", "p999"};
    for (int k = 0; k < 4; k++) {
        char flag[32];
        snprintf(flag, sizeof flag, "%s_beyond_range", keys[k]);
        CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(lat, keys[k])));
        CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(lat, flag)));
    }
    CU_ASSERT(cJSON_IsNumber(cJSON_GetObjectItem(lat, "mean")));
    cJSON_Delete(doc);
    char *ct = tu_slurp(csv);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ct);
    CU_ASSERT_PTR_NULL(strstr(ct, "2.09306e+09"));
    free(ct);
    /* in range nothing changes: no flag at all */
    const char *ok = tu_write("inrange.json", HEAD_STOP("{\"requests\": 100}")
                                                  ARR("{\"process\": \"poisson\", \"rate_per_s\": "
                                                      "10}") EXCL);
    snprintf(args, sizeof args, "run '%s' --quiet --json -", ok);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 0);
    CU_ASSERT_PTR_NULL(strstr(out, "beyond_range"));
}

/* Sums of squares of finite data must not overflow: work or gaps of 1e200. */
static void test_overflow_safe_moments(void)
{
    char args[1024], out[8192], errb[2048];
    const char *p = tu_write("huge.csv", "time_s,work_ms\n0,1e200\n1e200,2e200\n3e200,3e200\n");
    snprintf(args, sizeof args, "trace stats '%s' --format sharesim --json -", p);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 0);
    cJSON *doc = cJSON_Parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    /* work 1, 2, 3 (x 1e200): CV = sqrt(2/3) / 2; gaps 1, 2 (x 1e200): CV = 0.5 / 1.5 */
    double wcv =
        cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "work_ms"), "cv"));
    double icv =
        cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "interarrival_s"), "cv"));
    TU_CHECK_CLOSE_REL(wcv, sqrt(2.0 / 3.0) / 2.0, 1e-12);
    TU_CHECK_CLOSE_REL(icv, 0.5 / 1.5, 1e-12);
    TU_CHECK_CLOSE_REL(
        cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "work_ms"), "mean")),
        2e200, 1e-12);
    cJSON_Delete(doc);
    snprintf(args, sizeof args, "trace stats '%s' --format sharesim", p);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, errb, sizeof errb), 0);
    CU_ASSERT_PTR_NULL(strstr(out, "inf"));
    /* the moments alone: scaled by powers of two, so ordinary data give the plain figures */
    struct ss_moments m = {0}, big = {0};
    for (int i = 1; i <= 5; i++) {
        ss_mom_add(&m, i);
        ss_mom_add(&big, i * 1e300);
    }
    CU_ASSERT_EQUAL(ss_mom_mean(&m), 3.0);
    CU_ASSERT_EQUAL(ss_mom_scv(&m), 2.0 / 9.0);
    TU_CHECK_CLOSE_REL(ss_mom_scv(&big), 2.0 / 9.0, 1e-12);
    TU_CHECK_CLOSE_REL(ss_mom_mean(&big), 3e300, 1e-12);
    CU_ASSERT(isfinite(ss_mom_cv(&big)));
    /* a replayed trace's load-time figures (the analytic pre-checks read them) */
    char text[2048], err[SS_ERRLEN], tr[600];
    snprintf(tr, sizeof tr, "%s/huge-replay.csv", tu_tmpdir());
    FILE *fp = fopen(tr, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("time_s,work_ms\n0,1e200\n1,2e200\n", fp);
    fclose(fp);
    snprintf(text, sizeof text,
             "{\"gpu\": \"A100-80GB\", \"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": "
             "\"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}, \"work\": {\"dist\": "
             "\"trace\"}}], " EXCL,
             tr);
    struct scenario sc;
    CU_ASSERT_EQUAL_FATAL(load_text("huge-replay.json", text, &sc, err, sizeof err), 0);
    TU_CHECK_CLOSE_REL(sc.tenants[0].arrival.trace_work_scv, 1.0 / 9.0, 1e-12);
    scn_free(&sc);
}

static void test_fgd_weights(void)
{
    struct gpu_profile g;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(cal_load("A100-80GB", &g, err, sizeof err), 0);
    struct mig_demand a, b;
    CU_ASSERT_EQUAL(mig_parse_demand(&g, "1g.10gb:1,2g.20gb:3", &a, err, sizeof err), 0);
    CU_ASSERT_EQUAL(
        mig_parse_demand(&g, "1g.10gb:1e308,2g.20gb:1.5e308,2g.20gb:1.5e308", &b, err, sizeof err),
        0);
    CU_ASSERT_EQUAL(a.n, 2);
    CU_ASSERT_EQUAL(b.n, 2);
    for (int i = 0; i < 2; i++)
        TU_CHECK_CLOSE_REL(b.p[i], a.p[i], 1e-12); /* 0.25, 0.75: not 0, not NaN */
    CU_ASSERT_EQUAL(mig_parse_demand(&g, "1g.10gb:1e308,2g.20gb:1e-10", &b, err, sizeof err), -1);
    EXPECT_IN(err, "weight \"1e-10\" for 2g.20gb (item 2 of demand");
    EXPECT_IN(err, "expected weights within a factor of 1e300 of each other");
    /* end to end: the same fragmentation as the small weights */
    char out1[8192], out2[8192], errb[2048];
    CU_ASSERT_EQUAL(tu_cli("mig check 3g.40gb,1g.10gb --gpu A100-80GB --demand "
                           "1g.10gb:1,2g.20gb:3 --json -",
                           out1, sizeof out1, errb, sizeof errb),
                    0);
    CU_ASSERT_EQUAL(tu_cli("mig check 3g.40gb,1g.10gb --gpu A100-80GB --demand "
                           "1g.10gb:5e307,2g.20gb:1.5e308 --json -",
                           out2, sizeof out2, errb, sizeof errb),
                    0);
    CU_ASSERT_STRING_EQUAL(out1, out2);
}

/* ---- scale at the documented limits ---------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A scenario of T tenants on G GPUs with S strategies (cycling exclusive, timeslice assigning
 * every tenant, mps); into a malloc'd string. */
static char *big_scenario(int T, int G, int S, long requests)
{
    size_t cap = (size_t)T * 400 + (size_t)S * ((size_t)T * 24 + 200) + 4096, n = 0;
    char *b = malloc(cap);
    n += (size_t)snprintf(b + n, cap - n,
                          "{\"gpu\": \"A100-80GB\", \"gpus\": %d, \"stop\": {\"requests\": %ld}, "
                          "\"tenants\": [",
                          G, requests);
    for (int i = 0; i < T; i++)
        n += (size_t)snprintf(b + n, cap - n,
                              "%s{\"name\": \"t%d\", \"memory_gb\": 0.01, \"arrival\": "
                              "{\"process\": \"poisson\", \"rate_per_s\": 1}, \"work\": "
                              "{\"dist\": \"exponential\", \"mean_ms\": 1}}",
                              i ? ", " : "", i);
    n += (size_t)snprintf(b + n, cap - n, "], \"strategies\": [");
    for (int k = 0; k < S; k++) {
        if (k % 3 == 1) {
            n += (size_t)snprintf(b + n, cap - n,
                                  "%s{\"name\": \"s%d\", \"kind\": \"timeslice\", \"assign\": {",
                                  k ? ", " : "", k);
            for (int i = 0; i < T; i++)
                n += (size_t)snprintf(b + n, cap - n, "%s\"t%d\": %d", i ? ", " : "", i,
                                      (i * 7) % G);
            n += (size_t)snprintf(b + n, cap - n, "}}");
        } else {
            n += (size_t)snprintf(b + n, cap - n, "%s{\"name\": \"s%d\", \"kind\": \"%s\"}",
                                  k ? ", " : "", k, k % 3 ? "mps" : "exclusive");
        }
    }
    snprintf(b + n, cap - n, "]}");
    return b;
}

static void test_scale_limits(void)
{
    char err[SS_ERRLEN];
    struct scenario sc;
    /* more pairs than the limit: refused at load, with the way out */
    char *text = big_scenario(4096, 4096, 17, 1);
    CU_ASSERT_EQUAL(load_text("pairs.json", text, &sc, err, sizeof err), -1);
    EXPECT_IN(err, "strategies: 17 strategies x 4096 tenants = 69632 pairs, more than 65536");
    EXPECT_IN(err, "split the strategies over several scenarios");
    scn_free(&sc);
    free(text);
    /* at the limit: 4096 tenants x 16 strategies (name lookups, per-GPU checks and the
     * timeslice/MPS set-up in O(tenants + GPUs)); a few seconds at most */
    if (tu_sanitized() || tu_under_valgrind())
        return;
    text = big_scenario(4096, 4096, 16, 16);
    double t0 = now_s();
    int rc = load_text("limit.json", text, &sc, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    struct run_opts o = {1, -1, 0, 0};
    struct run_result r;
    CU_ASSERT_EQUAL_FATAL(run_scenario(&sc, &o, &r, err, sizeof err), 0);
    double took = now_s() - t0;
    if (took > 30)
        fprintf(stderr, "\n  4096 tenants x 16 strategies took %.1f s", took);
    CU_ASSERT(took < 30); /* about 1 s here; 55 s for 4096 x 256 before the limit */
    CU_ASSERT_EQUAL(r.n, 16);
    run_result_free(&r);
    scn_free(&sc);
    free(text);
    /* 100,000 GPUs: the same checks do not grow with gpus x tenants */
    text = big_scenario(64, 100000, 3, 16);
    t0 = now_s();
    CU_ASSERT_EQUAL_FATAL(load_text("gpus.json", text, &sc, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(run_scenario(&sc, &o, &r, err, sizeof err), 0);
    CU_ASSERT(now_s() - t0 < 30);
    run_result_free(&r);
    scn_free(&sc);
    free(text);
}

/* Duplicate names are still found at the first repeat, by the hash as by the old scan. */
static void test_tenant_names(void)
{
    char text[4096], err[SS_ERRLEN];
    snprintf(text, sizeof text,
             "{\"gpu\": \"A100-80GB\", \"gpus\": 4, \"stop\": {\"requests\": 10}, \"tenants\": "
             "[%s, %s, %s, %s], " EXCL,
             "{\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}",
             "{\"name\": \"b\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}",
             "{\"name\": \"c\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}",
             "{\"name\": \"b\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}");
    struct scenario sc;
    CU_ASSERT_EQUAL(load_text("dup.json", text, &sc, err, sizeof err), -1);
    EXPECT_IN(err, "tenants[3]: duplicate tenant name \"b\" (also tenants[1])");
    scn_free(&sc);
    /* lookups of every name, and of names that are not there */
    char *big = big_scenario(3000, 3000, 2, 10);
    CU_ASSERT_EQUAL_FATAL(load_text("names.json", big, &sc, err, sizeof err), 0);
    int ok = 1;
    for (int i = 0; i < 3000; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%d", i);
        ok &= scn_tenant_index(&sc, name) == i;
    }
    CU_ASSERT(ok);
    CU_ASSERT_EQUAL(scn_tenant_index(&sc, "t3000"), -1);
    CU_ASSERT_EQUAL(scn_tenant_index(&sc, ""), -1);
    scn_free(&sc);
    free(big);
}

/* A profile is loaded once per file, and again when the file changes. */
static void test_profile_cache(void)
{
    char dir[600], path[700], err[SS_ERRLEN];
    snprintf(dir, sizeof dir, "%s/profiles", tu_tmpdir());
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/a100-80gb.json", dir);
    char *orig = tu_slurp("kernels/profiles/a100-80gb.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(orig);
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(orig, fp);
    fclose(fp);
    const char *old = getenv("SHARESIM_PROFILES");
    char *saved = old ? strdup(old) : NULL;
    setenv("SHARESIM_PROFILES", dir, 1);
    struct gpu_profile a, b;
    CU_ASSERT_EQUAL(cal_load("A100-80GB", &a, err, sizeof err), 0);
    CU_ASSERT_EQUAL(cal_load("A100-80GB", &b, err, sizeof err), 0);
    CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof a), 0);
    /* rewritten (another size, so another identity even within one clock tick): reloaded */
    char *edited = malloc(strlen(orig) + 16);
    char *at = strstr(orig, "\"mps_max_clients\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    char *v = strstr(at, "\"value\":");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    v += strlen("\"value\":");
    while (*v == ' ')
        v++;
    char *end = v;
    while (*end >= '0' && *end <= '9')
        end++;
    snprintf(edited, strlen(orig) + 16, "%.*s1234%s", (int)(v - orig), orig, end);
    fp = fopen(path, "w");
    fputs(edited, fp);
    fclose(fp);
    CU_ASSERT_EQUAL(cal_load("A100-80GB", &b, err, sizeof err), 0);
    CU_ASSERT_EQUAL(b.mps_max_clients, 1234);
    CU_ASSERT_NOT_EQUAL(a.mps_max_clients, 1234);
    CU_ASSERT_EQUAL(cal_load(path, &b, err, sizeof err), 0); /* by path, the same file */
    CU_ASSERT_EQUAL(b.mps_max_clients, 1234);
    if (saved) {
        setenv("SHARESIM_PROFILES", saved, 1);
        free(saved);
    } else {
        unsetenv("SHARESIM_PROFILES");
    }
    free(orig);
    free(edited);
}

/* A large sweep says it is validating instead of sitting silent (the 20 s). */
static void test_sweep_setup(void)
{
    if (tu_under_valgrind())
        return;
    const char *s = tu_write("big-sweep.json", HEAD_STOP("{\"requests\": 10}")
                                                   ARR("{\"process\": \"poisson\", \"rate_per_s\": "
                                                       "10}") EXCL);
    char args[2048], errb[8192];
    /* 20,000 points, the last one bad: all are validated, none runs, exit 2 */
    snprintf(args, sizeof args,
             "sweep '%s' --set 'tenants.0.arrival.rate_per_s=1:19999:1,-1' --out '%s/big-sweep' "
             "--jobs 1 --no-plot --quiet",
             s, tu_tmpdir());
    double t0 = now_s();
    CU_ASSERT_EQUAL(cli_limited(300, args, errb, sizeof errb), 2);
    double took = now_s() - t0;
    EXPECT_IN(errb, "sharesim sweep: validating 20000 points before any runs");
    EXPECT_IN(errb, "point p19999");
    char d[700];
    snprintf(d, sizeof d, "%s/big-sweep", tu_tmpdir());
    CU_ASSERT_FALSE(tu_exists(d));
    if (!tu_sanitized() && took > 20)
        fprintf(stderr, "\n  validating 20,000 points took %.1f s", took);
    CU_ASSERT(tu_sanitized() || took < 20); /* about 2 s here; 4 s before the profile cache */
}

/* ---- traces that are not regular files ------------------------------------------ */

static void test_trace_not_regular(void)
{
    char fifo[600], args[2048], err[4096], text[2048];
    snprintf(fifo, sizeof fifo, "%s/trace.fifo", tu_tmpdir());
    unlink(fifo);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    static const char *paths[] = {"trace.fifo", "/dev/zero", "/dev/null"};
    static const char *kinds[] = {"is a FIFO (pipe), expected a regular file",
                                  "is a character device, expected a regular file",
                                  "is a character device, expected a regular file"};
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof text,
                 "{\"gpu\": \"A100-80GB\", \"tenants\": [{\"name\": \"a\", \"arrival\": "
                 "{\"process\": \"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}, "
                 "\"work\": {\"dist\": \"trace\"}}], \"strategies\": [{\"name\": \"x\", "
                 "\"kind\": \"exclusive\"}]}",
                 paths[i]);
        const char *s = tu_write("fifo-trace.json", text);
        snprintf(args, sizeof args, "run '%s' --quiet", s);
        CU_ASSERT_EQUAL(cli_limited(30, args, err, sizeof err), 2);
        EXPECT_IN(err, "tenants[0].arrival.path: ");
        EXPECT_IN(err, kinds[i]);
        EXPECT_IN(err, "read when the scenario loads and again by every replication");
        snprintf(args, sizeof args, "trace gen --scenario '%s' --tenant a -o -", s);
        CU_ASSERT_EQUAL(cli_limited(30, args, err, sizeof err), 2);
        EXPECT_IN(err, kinds[i]);
    }
    /* trace stats reads its file once, so a pipe is fine there */
    char cmd[4096], outp[600];
    snprintf(outp, sizeof outp, "%s/pipe-stats.json", tu_tmpdir());
    snprintf(cmd, sizeof cmd,
             "bash -c 'timeout 30 %s trace stats <(cat %s) --format sharesim --json - >%s'",
             getenv("SHARESIM") ? getenv("SHARESIM") : "build/sharesim", CODE0, outp);
    int st = system(cmd);
    CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char *t = tu_slurp(outp);
    cJSON *doc = t ? cJSON_Parse(t) : NULL;
    free(t);
    CU_ASSERT_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "count")), 8819);
    cJSON_Delete(doc);
    unlink(fifo);
}

void test_robust_inputs_register(void)
{
    static const struct tu_test tests[] = {
        {"zero work: real trace rows replay under every strategy, all counted",
         test_zero_work_replays},
        {"zero work: sharesim run and trace stats end to end", test_zero_work_cli},
        {"zero work: negative, non-finite, missing still refused", test_zero_work_bounds},
        {"clock: bounds at load, each with its reason", test_clock_bounds},
        {"clock: --scale-load is checked on the values it makes", test_clock_after_scaling},
        {"clock: a run past the horizon stops with exit 2", test_clock_horizon},
        {"clock: a run whose time stops advancing stops with exit 2", test_clock_stall},
        {"an event budget (the fuzzer's) ends a run with an error", test_event_budget},
        {"clock: too many requests in the system: exit 2, not out of memory", test_in_system_limit},
        {"clock: trace gen refuses or stops, leaves no file", test_trace_gen_clock},
        {"figures: percentiles past the histogram's range are flagged, never made up",
         test_percentiles_beyond_range},
        {"figures: CV of huge finite data stays finite (trace stats, replay)",
         test_overflow_safe_moments},
        {"figures: FGD weights of 1e308 do not overflow", test_fgd_weights},
        {"scale: tenants x strategies bounded, linear set-up at the limits", test_scale_limits},
        {"scale: tenant names by hash, duplicates found as before", test_tenant_names},
        {"scale: a profile loads once per file, again when it changes", test_profile_cache},
        {"scale: a large sweep says it is validating", test_sweep_setup},
        {"traces: a FIFO or a device is refused at once, trace stats reads a pipe",
         test_trace_not_regular},
        {NULL, NULL},
    };
    tu_add_suite("robust_inputs", tests);
}
