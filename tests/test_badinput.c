/*
 * Bad input end to end: a table of malformed scenarios and traces, each run through the CLI
 * ($SHARESIM), which must exit 2 with a message that names the file and says what was wrong,
 * print nothing on stdout, and leave no result file (nor a temporary) behind. Then the limits
 * exactly at their edges (nesting depth 64 passes the depth check, 65 does not; a 65536-byte
 * line is read, 65537 is not), and the fuzz corpus (tests/fuzz/corpus/) replayed through the
 * parsers, so every input the fuzzers ever crashed on stays a regression test in `make test`
 * without clang.
 */
#include "core/scenario.h"
#include "testutil.h"
#include "io/trace.h"
#include "base/util.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes len bytes (NULs allowed) to <tmpdir>/name; returns the path (static, one slot). */
static const char *write_bytes(const char *name, const char *data, size_t len)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), name);
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_EQUAL(fwrite(data, 1, len, fp), len);
    fclose(fp);
    return path;
}

#define EXPECT_IN(hay, part, what)                                                                 \
    do {                                                                                           \
        if (!strstr((hay), (part)))                                                                \
            fprintf(stderr, "\n  %s: expected \"%s\" in: %s", (what), (part), (hay));              \
        CU_ASSERT_PTR_NOT_NULL(strstr((hay), (part)));                                             \
    } while (0)

/* ---- the table ---- */

/* How a case's input file is made. */
enum make_kind { MK_TEXT, MK_BYTES, MK_HUGE, MK_DIR, MK_MISSING, MK_DEEP, MK_LONG_LINE };

struct bad_case {
    const char *fmt;   /* NULL: a scenario for `run`; else a trace format for `trace stats` */
    enum make_kind mk; /* MK_TEXT: text; MK_BYTES: text with len bytes; others: see make() */
    const char *text;  /* MK_DEEP: the opening bracket */
    size_t len;        /* MK_BYTES; MK_DEEP: nesting depth */
    const char *msg;   /* the key part of the message */
};

#define HEAD "{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 10}, "
#define TEN(arr, work)                                                                             \
    "\"tenants\": [{\"name\": \"a\", \"arrival\": " arr ", \"work\": " work "}], "
#define STRATS "\"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}"
#define POIS(r) "{\"process\": \"poisson\", \"rate_per_s\": " r "}"
#define EXPW "{\"dist\": \"exponential\", \"mean_ms\": 1}"
#define SCN(arr, work) HEAD TEN(arr, work) STRATS
#define AZH "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
#define OBH "num_gpu,gpu_milli,creation_time,deletion_time\n"

static const struct bad_case cases[] = {
    /* scenarios: empty, BOM, size, depth, bytes */
    {NULL, MK_TEXT, "", 0, "empty file: expected a JSON object"},
    {NULL, MK_TEXT, " \r\n\t\r\n", 0, "empty file: expected a JSON object"},
    {NULL, MK_TEXT, "\xEF\xBB\xBF", 0, "empty file: expected a JSON object"},
    {NULL, MK_TEXT, "\xEF\xBB\xBF{\"gpu\": ", 0, ":1:9: JSON syntax error"},
    {NULL, MK_HUGE, NULL, 0, "file larger than the limit of 16777216 bytes"},
    {NULL, MK_DEEP, "[", 65, "JSON nested deeper than 64 levels"},
    {NULL, MK_DEEP, "{\"a\":", 65, "JSON nested deeper than 64 levels"},
    {NULL, MK_DEEP, "[", 64, "(top level): expected an object, got an array"},
    {NULL, MK_BYTES, "{\"gpu\": \"A1\0\"}", 15, "unexpected NUL byte"},
    {NULL, MK_DIR, NULL, 0, "is a directory, expected a file"},
    {NULL, MK_MISSING, NULL, 0, "cannot open: No such file or directory"},
    /* scenarios: numbers */
    {NULL, MK_TEXT, SCN(POIS("1e400"), EXPW), 0,
     "tenants[0].arrival.rate_per_s: expected a finite number"},
    {NULL, MK_TEXT, SCN(POIS("-1e400"), EXPW), 0,
     "tenants[0].arrival.rate_per_s: expected a finite number"},
    {NULL, MK_TEXT, SCN(POIS("NaN"), EXPW), 0, ":1:122: JSON syntax error"},
    {NULL, MK_TEXT, SCN(POIS("Infinity"), EXPW), 0, ":1:122: JSON syntax error"},
    {NULL, MK_TEXT, SCN(POIS("\"100\""), EXPW), 0,
     "tenants[0].arrival.rate_per_s: expected a number, got a string"},
    {NULL, MK_TEXT, SCN(POIS("null"), EXPW), 0,
     "tenants[0].arrival.rate_per_s: expected a number, got null"},
    {NULL, MK_TEXT, SCN(POIS("5"), "{\"dist\": \"exponential\", \"mean_ms\": 1e-400}"), 0,
     "tenants[0].work.mean_ms: expected a number > 0 and <= 1e+09, got 0"},
    {NULL, MK_TEXT, "{\"gpu\": \"A100-80GB\", \"gpus\": \"2\"}", 0,
     "gpus: expected a number, got a string"},
    {NULL, MK_TEXT, "{\"gpu\": \"A100-80GB\", \"gpus\": 1.5}", 0,
     "gpus: expected an integer, got 1.5"},
    {NULL, MK_TEXT, "{\"gpu\": \"A100-80GB\", \"seed\": 1e20}", 0,
     "seed: expected a number in [0, 4.29497e+09], got 1e+20"},
    {NULL, MK_TEXT, "{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 1e300}}", 0,
     "stop.requests: expected a number in [1, 1e+12], got 1e+300"},
    /* scenarios: structure */
    {NULL, MK_TEXT, "{\r\n\"gpu\": \"A100-80GB\",\r\n\"stop\": {\"requests\": 10,}\r\n}", 0,
     ":3:26: JSON syntax error"},
    {NULL, MK_TEXT, SCN(POIS("5"), EXPW) " trailing", 0, "JSON syntax error"},
    {NULL, MK_TEXT, "[]", 0, "(top level): expected an object, got an array"},
    {NULL, MK_TEXT, "{\"gpu\": \"A100-80GB\", \"stop\": 5}", 0,
     "stop: expected an object, got a number"},
    {NULL, MK_TEXT, "{\"gpu\": \"A100-80GB\", \"gpus\": 1, \"gpus\": 2}", 0,
     "gpus: key given twice"},
    {NULL, MK_TEXT, "{\"gpu\": 80}", 0, "gpu: expected a string, got a number"},
    {NULL, MK_TEXT,
     HEAD "\"tenants\": [{\"name\": \"a\", \"arrival\": " POIS("5") ", \"work\": " EXPW
                                                                    ", \"priority\": 2}], " STRATS,
     0,
     "tenants[0].priority: no strategy uses a priority (none of \"exclusive\", "
     "\"timeslice\", \"mig\", \"mps\", \"vgpu\", \"fractional\" schedules by it, so it would "
     "change "
     "nothing): remove it"},
    {NULL, MK_TEXT, "{\"gpu\": \"no/such/profile.json\"}", 0, "cannot open"},
    /* traces: empty, header only, BOM, line endings */
    {"azure-llm", MK_TEXT, "", 0, ":1:1: empty file: expected the azure-llm header line"},
    {"sharesim", MK_TEXT, "time_s,work_ms\r\n", 0, ":2:1: no rows after the header"},
    {"sharesim", MK_TEXT, "\xEF\xBB\xBF", 0,
     ":1:1: blank first line: expected the sharesim header"},
    {"sharesim", MK_TEXT, "time_s\r1\r2\r", 0, ":1:1: unknown column \"time_s\\x0D1\\x0D2\""},
    {"sharesim", MK_TEXT, "time_s\n1\n\n2\n", 0, ":3:1: blank line before more rows (line 4)"},
    {"sharesim", MK_BYTES, "time_s\n1\n2\0\n", 12, ":3:2: NUL byte"},
    {"sharesim", MK_LONG_LINE, NULL, TR_LINE_MAX + 1, ":3:65537: line longer than 65536 bytes"},
    {"openb", MK_DIR, NULL, 0, "is a directory, expected a trace file"},
    {"openb", MK_MISSING, NULL, 0, "cannot open: No such file or directory"},
    /* traces: time going backwards */
    {"azure-llm", MK_TEXT, AZH "2023-11-16 18:15:46.6805900,374,44\r\n2023-11-16 18:15:45,1,2\r\n",
     0, ":3:1: field \"TIMESTAMP\": time goes backwards by 1.6805900 s"},
    {"sharesim", MK_TEXT, "time_s,work_ms\r\n2,1\r\n1,1\r\n", 0,
     ":3:1: field \"time_s\": time goes backwards (1 after 2)"},
    /* traces: numbers */
    {"sharesim", MK_TEXT, "time_s,work_ms\n0,1\n1,nan\n", 0,
     ":3:3: field \"work_ms\": expected a finite number of milliseconds >= 0, got \"nan\""},
    {"sharesim", MK_TEXT, "time_s\ninf\n", 0, ":2:1: field \"time_s\": expected a finite number"},
    {"sharesim", MK_TEXT, "time_s\n1e400\n", 0, "got \"1e400\" which overflows a double"},
    {"sharesim", MK_TEXT, "time_s\n0x10\n", 0, "got \"0x10\""},
    {"sharesim", MK_TEXT, "time_s,work_ms\n0,fast\n", 0,
     ":2:3: field \"work_ms\": expected a finite number of milliseconds >= 0, got \"fast\""},
    {"sharesim", MK_TEXT, "time_s,work_ms\n-1,1\n", 0,
     ":2:1: field \"time_s\": expected a finite number of seconds >= 0, got \"-1\""},
    {"azure-llm", MK_TEXT, AZH "2023-11-16 18:15:46,99999999999999999999,44\r\n", 0,
     "got \"99999999999999999999\" which overflows"},
    {"azure-llm", MK_TEXT, AZH "2023-02-29 18:15:46,1,1\r\n", 0,
     ":2:1: field \"TIMESTAMP\": expected a valid calendar date"},
    {"azure-llm", MK_TEXT, AZH "1700000000,1,1\r\n", 0,
     "expected a timestamp like 2023-11-16 18:17:03.9799600"},
    /* found by fuzz_trace_openb: no pods at all reached qsort(NULL, 0, …), undefined */
    {"openb", MK_TEXT, OBH "\t\t\n\n", 0,
     ":4:1: no rows after the header: expected at least one pod"},
    {"openb", MK_TEXT, OBH "1,1001,30,40\n", 0, ":2:3: field \"gpu_milli\": expected a GPU share"},
    {"openb", MK_TEXT, OBH "1,500,30,20\n", 0, ":2:10: field \"deletion_time\": 20 is before"},
    /* traces: structure */
    {"openb", MK_TEXT, OBH "1,\"500\",30,40\n", 0, ":2:3: quoted field"},
    {"openb", MK_TEXT, "num_gpu,gpu_milli,creation_time\n1,500,30\n", 0,
     ":1:32: missing column \"deletion_time\""},
    {"sharesim", MK_TEXT, "time_s,bogus\n1,2\n", 0, ":1:8: unknown column \"bogus\""},
    {"sharesim", MK_TEXT, "time_s,time_s\n1,2\n", 0, ":1:8: column \"time_s\" appears twice"},
    {"sharesim", MK_TEXT, "time_s\n1,2\n", 0, ":2:3: more fields than the header's 1"},
    {"sharesim", MK_TEXT, "time_s,work_ms\n1\n", 0, ":2:2: missing field \"work_ms\""},
    {"sharesim", MK_BYTES, "\x1F\x8B\x08\x00\x00\x00\x00\x00\n", 9,
     ":1:4: NUL byte: expected text"},
};

/* Creates the input of case i at <tmpdir>/<name>; returns its path. */
static const char *make_input(const struct bad_case *c, const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), name);
    switch (c->mk) {
    case MK_TEXT:
        return write_bytes(name, c->text, strlen(c->text));
    case MK_BYTES:
        return write_bytes(name, c->text, c->len);
    case MK_HUGE: {
        /* One byte over the 16 MiB limit, sparse: the size check fires before any parsing. */
        FILE *fp = fopen(path, "wb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        CU_ASSERT_EQUAL(ftruncate(fileno(fp), (off_t)(16u << 20) + 1), 0);
        fclose(fp);
        return path;
    }
    case MK_DIR:
        CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
        return path;
    case MK_MISSING:
        return path;
    case MK_DEEP: {
        size_t open = strlen(c->text);
        char *t = ss_xmalloc(c->len * (open + 1) + 1);
        size_t k = 0;
        for (size_t i = 0; i < c->len; i++, k += open)
            memcpy(t + k, c->text, open);
        for (size_t i = 0; i < c->len; i++)
            t[k++] = c->text[0] == '[' ? ']' : '}';
        write_bytes(name, t, k);
        free(t);
        return path;
    }
    case MK_LONG_LINE: {
        /* "time_s\n1\n" then a row of c->len digits. */
        char *t = ss_xmalloc(c->len + 16);
        strcpy(t, "time_s\n1\n");
        size_t k = strlen(t);
        memset(t + k, '7', c->len);
        t[k + c->len] = '\n';
        write_bytes(name, t, k + c->len + 1);
        free(t);
        return path;
    }
    }
    return path;
}

static void test_bad_input_table(void)
{
    size_t n = sizeof cases / sizeof *cases, n_scn = 0;
    for (size_t i = 0; i < n; i++) {
        const struct bad_case *c = &cases[i];
        char name[64], out_name[64], out_path[700], csv_path[700], cmd[2200];
        static char out[1 << 14], err[1 << 14];
        snprintf(name, sizeof name, "bad-input-%02zu.%s", i, c->fmt ? "csv" : "json");
        const char *path = make_input(c, name);
        if (c->fmt) {
            snprintf(cmd, sizeof cmd, "trace stats %s --format %s --json -", path, c->fmt);
        } else {
            n_scn++;
            snprintf(out_name, sizeof out_name, "result-%02zu", i);
            snprintf(out_path, sizeof out_path, "%s/%s.json", tu_tmpdir(), out_name);
            snprintf(csv_path, sizeof csv_path, "%s/%s.csv", tu_tmpdir(), out_name);
            snprintf(cmd, sizeof cmd, "run %s --json %s --csv %s", path, out_path, csv_path);
        }
        int rc = tu_cli(cmd, out, sizeof out, err, sizeof err);
        char what[96];
        snprintf(what, sizeof what, "case %zu (%s)", i, name);
        if (rc != 2)
            fprintf(stderr, "\n  %s: exit %d, expected 2; stderr: %s", what, rc, err);
        CU_ASSERT_EQUAL(rc, 2);
        EXPECT_IN(err, c->msg, what);
        EXPECT_IN(err, name, what); /* the message names the file */
        CU_ASSERT_EQUAL(out[0], '\0');
        if (!c->fmt)
            CU_ASSERT_FALSE(tu_dir_has(tu_tmpdir(), out_name));
    }
    CU_ASSERT(n_scn >= 20);
    CU_ASSERT(n - n_scn >= 20);
}

/* The controls: what the table refuses on one side of a limit is accepted on the other. */
static void test_accepted_edges(void)
{
    static char out[1 << 14], err[1 << 14];
    char cmd[1400];
    /* BOM + CRLF scenario runs; a result file appears only then. */
    char scn[1000];
    snprintf(scn, sizeof scn, "\xEF\xBB\xBF{\"name\": \"ok\",\r\n%s\r\n", SCN(POIS("5"), EXPW) + 1);
    const char *path = write_bytes("ok-bom-crlf.json", scn, strlen(scn));
    char out_path[600];
    snprintf(out_path, sizeof out_path, "%s/ok-result.json", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "run %s --json %s --quiet", path, out_path);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 0);
    CU_ASSERT_TRUE(tu_exists(out_path));
    CU_ASSERT_FALSE(tu_dir_has(tu_tmpdir(), "ok-result.json.tmp"));
    /* Brackets inside strings do not count towards the depth limit. */
    char deep[1000], brackets[201];
    for (int i = 0; i < 200; i++)
        brackets[i] = i % 2 ? '{' : '[';
    brackets[200] = '\0';
    snprintf(deep, sizeof deep, "{\"description\": \"%s\\\"\", %s", brackets,
             SCN(POIS("5"), EXPW) + 1);
    struct scenario sc;
    int rc = scn_load_text("strings.json", deep, strlen(deep), &sc, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  brackets in a string: %s", err);
    CU_ASSERT_EQUAL(rc, 0);
    scn_free(&sc);
    /* BOM + CRLF trace; a line of exactly TR_LINE_MAX bytes (spaces around the value) + CRLF. */
    size_t k = 0;
    char *t = ss_xmalloc(TR_LINE_MAX + 64);
    k += (size_t)sprintf(t, "\xEF\xBB\xBFtime_s\r\n0.5\r\n");
    memset(t + k, ' ', TR_LINE_MAX - 1);
    t[k + TR_LINE_MAX - 1] = '2';
    k += TR_LINE_MAX;
    k += (size_t)sprintf(t + k, "\r\n\r\n");
    path = write_bytes("ok-edge.csv", t, k);
    free(t);
    snprintf(cmd, sizeof cmd, "trace stats %s --format sharesim", path);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 0);
    EXPECT_IN(out, "requests       2\n", "edge trace");
    EXPECT_IN(out, "last_s         2\n", "edge trace");
}

/* ---- the fuzz corpus as regression tests ---- */

/* Loads one scenario file: 0 ok, -1 error (message must name the file). */
static int replay_scenario(const char *path, char *err, size_t errlen)
{
    struct scenario sc;
    int rc = scn_load(path, &sc, err, errlen);
    scn_free(&sc);
    return rc;
}

/* Reads one trace to its end: 0 ok, -1 error; checks the records' times on the way. */
static int replay_trace(const char *path, enum tr_format fmt, char *err, size_t errlen)
{
    struct tr_reader *r = tr_open(path, fmt, NULL, err, errlen);
    if (!r)
        return -1;
    struct tr_record rec;
    double prev = 0;
    int rc;
    while ((rc = tr_next(r, &rec, err, errlen)) == 1) {
        CU_ASSERT(isfinite(rec.time_s) && rec.time_s >= prev);
        prev = rec.time_s;
    }
    tr_close(r);
    return rc;
}

/*
 * Every file in tests/fuzz/corpus/<target>/: valid_* must load, bad_* must fail with a message
 * naming the file, anything else (crash-<sha1> inputs the fuzzers found, kept after the fix)
 * must not crash and, when refused, must name the file too.
 */
static void replay_dir(const char *target, int fmt)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", tu_root(), target);
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[1024], err[SS_ERRLEN] = "";
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        int rc = fmt < 0 ? replay_scenario(path, err, sizeof err)
                         : replay_trace(path, (enum tr_format)fmt, err, sizeof err);
        int want_ok = strncmp(de->d_name, "valid_", 6) == 0;
        int want_bad = strncmp(de->d_name, "bad_", 4) == 0;
        if ((want_ok && rc != 0) || (want_bad && rc != -1))
            fprintf(stderr, "\n  %s: rc %d (%s)", path, rc, err);
        CU_ASSERT(want_ok ? rc == 0 : want_bad ? rc == -1 : rc == 0 || rc == -1);
        if (rc == -1)
            EXPECT_IN(err, de->d_name, path);
        n++;
    }
    closedir(d);
    CU_ASSERT(n >= 5);
}

static void test_fuzz_corpus_replay(void)
{
    replay_dir("fuzz_scenario", -1);
    replay_dir("fuzz_trace_azure", TR_AZURE_LLM);
    replay_dir("fuzz_trace_openb", TR_OPENB);
    replay_dir("fuzz_trace_sharesim", TR_SHARESIM);
}

void test_badinput_register(void)
{
    static const struct tu_test t[] = {
        {"bad scenarios and traces: exit 2, message, no output", test_bad_input_table},
        {"accepted edges: BOM, CRLF, depth in strings, longest line", test_accepted_edges},
        {"fuzz corpus replayed through the parsers", test_fuzz_corpus_replay},
        {NULL, NULL},
    };
    tu_add_suite("badinput", t);
}
