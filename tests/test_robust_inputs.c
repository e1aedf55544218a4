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
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"
#include "io/trace.h"
#include "io/tracestats.h"
#include "base/util.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* ---- traces that are not regular files ------------------------------------------ */

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
        {"traces: a FIFO or a device is refused at once, trace stats reads a pipe",
         test_trace_not_regular},
        {NULL, NULL},
    };
    tu_add_suite("robust_inputs", tests);
}
