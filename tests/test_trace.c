/*
 * trace (io/trace.c): the reader on the shipped Azure and openb files against figures
 * computed independently in Python (tests/trace_expected.py: datetime + integer ticks),
 * every kind of bad input with the position it must name, the line buffer across its
 * refills, and constant memory. Summaries are in test_tracestats.c, the `sharesim trace`
 * command in test_cmd_trace.c.
 */
#include "testutil.h"
#include "io/trace.h"
#include "base/util.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONV "traces/AzureLLMInferenceTrace_conv.csv"
#define CODE "traces/AzureLLMInferenceTrace_code.csv"
#define CONV1000 "traces/AzureLLMInferenceTrace_conv.head1000.csv"
#define CODE100 "traces/AzureLLMInferenceTrace_code.head100.csv"
#define OPENB200 "traces/openb_pod_list_default.tail200.csv"

/* Reads every record; returns the count (or -1 with err), with first/second/last times and
 * token sums. */
struct walk {
    long long n, in_sum, out_sum;
    double t[2], last;
    long last_line;
};

static int walk(const char *path, enum tr_format fmt, const struct tr_opts *o, struct walk *w,
                char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    struct tr_reader *r = tr_open(path, fmt, o, err, errlen);
    if (!r)
        return -1;
    struct tr_record rec;
    int rc;
    while ((rc = tr_next(r, &rec, err, errlen)) == 1) {
        if (w->n < 2)
            w->t[w->n] = rec.time_s;
        w->last = rec.time_s;
        w->last_line = rec.line;
        w->in_sum += rec.input_tokens;
        w->out_sum += rec.output_tokens;
        w->n++;
    }
    tr_close(r);
    return rc < 0 ? -1 : (int)(w->n > 0);
}

/* Opens text as a file of the format and reads to the end; returns tr_next's last code
 * (or -1 from tr_open) with the message in err. */
static int read_text(const char *name, const char *text, enum tr_format fmt, char *err,
                     size_t errlen, long long *count)
{
    char *path = tu_write(name, text);
    struct tr_reader *r = tr_open(path, fmt, NULL, err, errlen);
    if (count)
        *count = 0;
    if (!r)
        return -1;
    struct tr_record rec;
    int rc;
    while ((rc = tr_next(r, &rec, err, errlen)) == 1)
        if (count)
            (*count)++;
    tr_close(r);
    return rc;
}

/* ---- the shipped traces ---- */

static void test_format_names(void)
{
    enum tr_format f;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(tr_format_from_name("azure-llm", &f, err, sizeof err), 0);
    CU_ASSERT_EQUAL(f, TR_AZURE_LLM);
    CU_ASSERT_EQUAL(tr_format_from_name("openb", &f, err, sizeof err), 0);
    CU_ASSERT_EQUAL(f, TR_OPENB);
    CU_ASSERT_EQUAL(tr_format_from_name("sharesim", &f, err, sizeof err), 0);
    CU_ASSERT_EQUAL(f, TR_SHARESIM);
    CU_ASSERT_STRING_EQUAL(tr_format_name(TR_AZURE_LLM), "azure-llm");
    CU_ASSERT_EQUAL(tr_format_from_name("csv", &f, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "unknown trace format \"csv\": expected azure-llm, openb or sharesim");
}

static void test_azure_slices(void)
{
    struct walk w;
    char err[SS_ERRLEN];
    /* Python: n=1000 first=0.0 second=4.314579 last=216.027393, token means 1014.189, 247.262 */
    CU_ASSERT_EQUAL_FATAL(walk(CONV1000, TR_AZURE_LLM, NULL, &w, err, sizeof err), 1);
    CU_ASSERT_EQUAL(w.n, 1000);
    CU_ASSERT_EQUAL(w.t[0], 0.0);
    CU_ASSERT_EQUAL(w.t[1], 4.314579);
    CU_ASSERT_EQUAL(w.last, 216.027393);
    CU_ASSERT_EQUAL(w.last_line, 1001);
    CU_ASSERT_EQUAL(w.in_sum, 1014189);
    CU_ASSERT_EQUAL(w.out_sum, 247262);
    /* code slice: n=100 second=0.052 last=192.162141, means 2275.62, 23.48 */
    CU_ASSERT_EQUAL_FATAL(walk(CODE100, TR_AZURE_LLM, NULL, &w, err, sizeof err), 1);
    CU_ASSERT_EQUAL(w.n, 100);
    CU_ASSERT_EQUAL(w.t[1], 0.052);
    CU_ASSERT_EQUAL(w.last, 192.162141);
    CU_ASSERT_EQUAL(w.in_sum, 227562);
    CU_ASSERT_EQUAL(w.out_sum, 2348);
}

static void test_time_scale_and_limit(void)
{
    struct walk w;
    char err[SS_ERRLEN];
    struct tr_opts slow = {2.0, 0}, head = {0.5, 10};
    CU_ASSERT_EQUAL_FATAL(walk(CONV1000, TR_AZURE_LLM, &slow, &w, err, sizeof err), 1);
    CU_ASSERT_EQUAL(w.n, 1000);
    CU_ASSERT_EQUAL(w.t[1], 2 * 4.314579);
    CU_ASSERT_EQUAL(w.last, 2 * 216.027393);
    CU_ASSERT_EQUAL_FATAL(walk(CONV1000, TR_AZURE_LLM, &head, &w, err, sizeof err), 1);
    CU_ASSERT_EQUAL(w.n, 10);
    CU_ASSERT_EQUAL(w.last_line, 11);
    CU_ASSERT_EQUAL(w.t[1], 0.5 * 4.314579);
    struct tr_opts bad = {-1, 0};
    CU_ASSERT_PTR_NULL(tr_open(CONV1000, TR_AZURE_LLM, &bad, err, sizeof err));
    TU_CHECK_CONTAINS(err, "time_scale -1: expected a finite number > 0");
}

static void test_timestamps_exact_across_calendar(void)
{
    /* Year end, a leap day, and 100-ns resolution: differences exact in ticks. */
    const char *text = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                       "2023-12-31 23:59:59.9999999,1,1\n"
                       "2024-01-01 00:00:00.0000001,1,1\n"
                       "2024-02-28 23:59:59,1,1\n"
                       "2024-02-29 12:00:00.5,1,1\n"
                       "2024-03-01T00:00:00.0000000,1,1\n";
    char *path = tu_write("calendar.csv", text);
    char err[SS_ERRLEN];
    struct tr_reader *r = tr_open(path, TR_AZURE_LLM, NULL, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    struct tr_record rec;
    /* seconds from 2024-01-01 00:00:00, plus the first row's 1e-7 s before it */
    double expect[] = {0.0, 2e-7, 58 * 86400 + 86399 + 1e-7, 59 * 86400 + 43200 + 0.5000001,
                       60 * 86400 + 1e-7};
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL_FATAL(tr_next(r, &rec, err, sizeof err), 1);
        TU_CHECK_CLOSE_REL(rec.time_s, expect[i], 1e-15);
    }
    CU_ASSERT_EQUAL(tr_next(r, &rec, err, sizeof err), 0);
    CU_ASSERT_EQUAL(tr_next(r, &rec, err, sizeof err), 0);
    tr_close(r);
}

/* ---- bad and odd input ---- */

static void test_line_endings_bom_blank(void)
{
    char err[SS_ERRLEN];
    long long n;
    CU_ASSERT_EQUAL(read_text("crlf.csv",
                              "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
                              "2023-11-16 18:17:03.9799600,4808,10\r\n"
                              "2023-11-16 18:17:04.0319600,3180,8",
                              TR_AZURE_LLM, err, sizeof err, &n),
                    0);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(read_text("bom.csv", "\xEF\xBB\xBFtime_s,work_ms\n1,2\n1,3\n\n\n", TR_SHARESIM,
                              err, sizeof err, &n),
                    0);
    CU_ASSERT_EQUAL(n, 2);
    /* a BOM shifts nothing: the column is counted from after it */
    CU_ASSERT_EQUAL(read_text("bom-bad.csv", "\xEF\xBB\xBFtime_s,work_ms\nx,2\n", TR_SHARESIM, err,
                              sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(err, "bom-bad.csv:2:1: field \"time_s\"");
    CU_ASSERT_EQUAL(
        read_text("blank-mid.csv", "time_s\n1\n\n2\n", TR_SHARESIM, err, sizeof err, NULL), -1);
    TU_CHECK_CONTAINS(err, "blank-mid.csv:3:1: blank line before more rows (line 4)");
}

static void test_empty_and_header_only(void)
{
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(read_text("empty.csv", "", TR_AZURE_LLM, err, sizeof err, NULL), -1);
    TU_CHECK_CONTAINS(err, "empty.csv:1:1: empty file: expected the azure-llm header line "
                           "\"TIMESTAMP,ContextTokens,GeneratedTokens\"");
    CU_ASSERT_EQUAL(
        read_text("header.csv", "time_s,work_ms\r\n", TR_SHARESIM, err, sizeof err, NULL), -1);
    TU_CHECK_CONTAINS(err,
                      "header.csv:2:1: no rows after the header: expected at least one request");
}

static void test_bad_timestamps(void)
{
    static const struct {
        const char *ts, *part;
    } cases[] = {
        {"2023-11-16 18:17:03.97996001", "at most 7 fractional digits"},
        {"2023-13-16 18:17:03.9799600", "a valid calendar date"},
        {"2023-02-29 00:00:00", "a valid calendar date"},
        {"2023-11-16 18:17:03Z", "a timestamp like 2023-11-16 18:17:03.9799600 (no time zone)"},
        {"2023-11-16 18:17:03.", "a timestamp like"},
        {"16/11/2023 18:17:03", "a timestamp like"},
        {"", "got an empty field"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256], err[SS_ERRLEN];
        snprintf(text, sizeof text,
                 "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03,1,1\n%s,2,2\n",
                 cases[i].ts);
        CU_ASSERT_EQUAL(read_text("ts.csv", text, TR_AZURE_LLM, err, sizeof err, NULL), -1);
        TU_CHECK_CONTAINS(err, "ts.csv:3:1: field \"TIMESTAMP\": expected ");
        TU_CHECK_CONTAINS(err, cases[i].part);
    }
}

static void test_backwards_time(void)
{
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(read_text("back.csv",
                              "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                              "2023-11-16 18:17:03.9799600,1,1\n"
                              "2023-11-16 18:17:04.0000000,1,1\n"
                              "2023-11-16 18:17:03.9999999,1,1\n",
                              TR_AZURE_LLM, err, sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(err, "back.csv:4:1: field \"TIMESTAMP\": time goes backwards by 0.0000001 s");
    CU_ASSERT_EQUAL(read_text("back2.csv", "work_ms,time_s\n1,0.5\n1,0.5\n1,0.25\n", TR_SHARESIM,
                              err, sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(err, "back2.csv:4:3: field \"time_s\": time goes backwards (0.25 after 0.5)");
}

static void test_missing_columns_and_fields(void)
{
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(read_text("nocol.csv", "TIMESTAMP,ContextTokens\n2023-11-16 18:17:03,1\n",
                              TR_AZURE_LLM, err, sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(err, "nocol.csv:1:24: missing column \"GeneratedTokens\"");
    CU_ASSERT_EQUAL(read_text("nofield.csv",
                              "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                              "2023-11-16 18:17:03,1,1\n2023-11-16 18:17:04,1\n",
                              TR_AZURE_LLM, err, sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(
        err, "nofield.csv:3:22: missing field \"GeneratedTokens\": expected 3 fields, got 2");
    CU_ASSERT_EQUAL(read_text("extra.csv", "time_s\n1\n2,3\n", TR_SHARESIM, err, sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(err, "extra.csv:3:3: more fields than the header's 1");
    CU_ASSERT_EQUAL(
        read_text("unknown.csv", "time_s,gpu\n1,2\n", TR_SHARESIM, err, sizeof err, NULL), -1);
    TU_CHECK_CONTAINS(err, "unknown.csv:1:8: unknown column \"gpu\": expected one of "
                           "time_s,work_ms,input_tokens,output_tokens (sharesim format)");
    CU_ASSERT_EQUAL(read_text("twice.csv", "time_s,work_ms,time_s\n1,2,3\n", TR_SHARESIM, err,
                              sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(err, "twice.csv:1:16: column \"time_s\" appears twice");
    CU_ASSERT_EQUAL(read_text("notime.csv", "work_ms\n1\n", TR_SHARESIM, err, sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(err, "notime.csv:1:8: missing column \"time_s\"");
}

static void test_bad_numbers(void)
{
    static const struct {
        const char *row, *part;
    } cases[] = {
        {"abc,1,1,1",
         ":2:1: field \"time_s\": expected a finite number of seconds >= 0, got \"abc\""},
        {"nan,1,1,1", ":2:1: field \"time_s\": expected a finite number"},
        {"1,inf,1,1", ":2:3: field \"work_ms\": expected a finite number of milliseconds >= 0"},
        {"1e400,1,1,1", ":2:1: field \"time_s\": expected a finite number of seconds >= 0, got "
                        "\"1e400\" which overflows a double"},
        {"1,-1,1,1", /* 0 is a request that needs no GPU time (tests/test_robust_inputs.c) */
         ":2:3: field \"work_ms\": expected a finite number of milliseconds >= 0, got \"-1\""},
        {"1,0x10,1,1", ":2:3: field \"work_ms\""},
        {"-1,1,1,1", ":2:1: field \"time_s\": expected a finite number of seconds >= 0"},
        {"1,1,12a,1",
         ":2:5: field \"input_tokens\": expected a token count (integer >= 0), got \"12a\""},
        {"1,1,1,-3", ":2:7: field \"output_tokens\": expected a token count (integer >= 0)"},
        {"1,1,1.5,1", ":2:5: field \"input_tokens\""},
        {"1,1,99999999999999999999,1",
         ":2:5: field \"input_tokens\": expected a token count "
         "(integer >= 0), got \"99999999999999999999\" which overflows"},
        {"1,1,1,", ":2:7: field \"output_tokens\": expected a token count (integer >= 0), got an "
                   "empty field"},
        {"1,\"2\",1,1", ":2:3: quoted field"},
        {"1,1,1\r2,1", ":2:5: field \"input_tokens\": expected a token count (integer >= 0), got "
                       "\"1\\x0D2\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256], err[SS_ERRLEN];
        snprintf(text, sizeof text, "time_s,work_ms,input_tokens,output_tokens\n%s\n",
                 cases[i].row);
        CU_ASSERT_EQUAL(read_text("num.csv", text, TR_SHARESIM, err, sizeof err, NULL), -1);
        TU_CHECK_CONTAINS(err, "num.csv");
        TU_CHECK_CONTAINS(err, cases[i].part);
    }
    /* Spaces around fields are trimmed; the column still points at the value. */
    char err[SS_ERRLEN];
    long long n;
    CU_ASSERT_EQUAL(
        read_text("spaces.csv", "time_s , work_ms\n 0.5 , 2 \n", TR_SHARESIM, err, sizeof err, &n),
        0);
    CU_ASSERT_EQUAL(n, 1);
}

static void test_long_line_and_nul(void)
{
    size_t n = TR_LINE_MAX + 100;
    char *text = ss_xmalloc(n + 64);
    strcpy(text, "time_s\n1\n");
    size_t k = strlen(text);
    memset(text + k, '7', n);
    strcpy(text + k + n, "\n");
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(read_text("long.csv", text, TR_SHARESIM, err, sizeof err, NULL), -1);
    TU_CHECK_CONTAINS(err, "long.csv:3:65537: line longer than 65536 bytes");
    free(text);
    char path[512];
    snprintf(path, sizeof path, "%s/nul.csv", tu_tmpdir());
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fwrite("time_s\n1\n2\0\n", 1, 12, fp);
    fclose(fp);
    struct tr_reader *r = tr_open(path, TR_SHARESIM, NULL, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    struct tr_record rec;
    CU_ASSERT_EQUAL(tr_next(r, &rec, err, sizeof err), 1);
    CU_ASSERT_EQUAL(tr_next(r, &rec, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "nul.csv:3:2: NUL byte");
    CU_ASSERT_EQUAL(tr_next(r, &rec, err, sizeof err), -1); /* the error sticks */
    TU_CHECK_CONTAINS(err, "nul.csv:3:2: NUL byte");
    tr_close(r);
    CU_ASSERT_PTR_NULL(tr_open("/nonexistent/t.csv", TR_SHARESIM, NULL, err, sizeof err));
    TU_CHECK_CONTAINS(err, "/nonexistent/t.csv: cannot open");
}

static void test_sharesim_columns(void)
{
    char *path = tu_write("ss.csv", "output_tokens,time_s,input_tokens\n7,0.25,100\n9,1.5,200\n");
    char err[SS_ERRLEN];
    struct tr_opts o = {4, 0};
    struct tr_reader *r = tr_open(path, TR_SHARESIM, &o, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(tr_columns(r), TR_COL_INPUT_TOKENS | TR_COL_OUTPUT_TOKENS);
    struct tr_record rec;
    CU_ASSERT_EQUAL_FATAL(tr_next(r, &rec, err, sizeof err), 1);
    CU_ASSERT_EQUAL(rec.time_s, 1.0); /* the file's own origin, times 4 */
    CU_ASSERT(isnan(rec.work_ms));
    CU_ASSERT_EQUAL(rec.input_tokens, 100);
    CU_ASSERT_EQUAL(rec.output_tokens, 7);
    CU_ASSERT_EQUAL_FATAL(tr_next(r, &rec, err, sizeof err), 1);
    CU_ASSERT_EQUAL(rec.time_s, 6.0);
    CU_ASSERT_EQUAL(rec.line, 3);
    CU_ASSERT_EQUAL(tr_next(r, &rec, err, sizeof err), 0);
    tr_close(r);
    path = tu_write("ssw.csv", "time_s,work_ms\n0,2.5\n");
    r = tr_open(path, TR_SHARESIM, NULL, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(tr_columns(r), TR_COL_WORK_MS);
    CU_ASSERT_EQUAL_FATAL(tr_next(r, &rec, err, sizeof err), 1);
    CU_ASSERT_EQUAL(rec.work_ms, 2.5);
    CU_ASSERT_EQUAL(rec.input_tokens, -1);
    tr_close(r);
}

/* Token counts are 64-bit: 2^31 and 2^32 + 1 come out exactly (an int would turn them into
 * -2^31 and 1); TR_TOKENS_MAX is the largest accepted, one more is refused naming the bound. */
static void test_tokens_64bit_and_bound(void)
{
    char text[256], err[SS_ERRLEN];
    snprintf(text, sizeof text,
             "time_s,input_tokens,output_tokens\n0,2147483648,4294967297\n1,%lld,%lld\n",
             (long long)TR_TOKENS_MAX, (long long)TR_TOKENS_MAX);
    char *path = tu_write("big-tokens.csv", text);
    struct tr_reader *r = tr_open(path, TR_SHARESIM, NULL, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    struct tr_record rec;
    CU_ASSERT_EQUAL_FATAL(tr_next(r, &rec, err, sizeof err), 1);
    CU_ASSERT_EQUAL(rec.input_tokens, 2147483648LL);
    CU_ASSERT_EQUAL(rec.output_tokens, 4294967297LL);
    CU_ASSERT_EQUAL_FATAL(tr_next(r, &rec, err, sizeof err), 1);
    CU_ASSERT_EQUAL(rec.input_tokens, TR_TOKENS_MAX);
    CU_ASSERT_EQUAL(tr_next(r, &rec, err, sizeof err), 0);
    tr_close(r);
    snprintf(text, sizeof text, "time_s,input_tokens,output_tokens\n0,1,1\n1,1,%lld\n",
             (long long)TR_TOKENS_MAX + 1);
    CU_ASSERT_EQUAL(read_text("over.csv", text, TR_SHARESIM, err, sizeof err, NULL), -1);
    TU_CHECK_CONTAINS(err, "over.csv:3:5: field \"output_tokens\": expected a token count "
                           "(integer >= 0) of at most 1099511627776 (TR_TOKENS_MAX), got "
                           "\"1099511627777\"");
    /* The same bound on the Azure trace's columns. */
    CU_ASSERT_EQUAL(read_text("over-azure.csv",
                              "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                              "2023-11-16 18:15:46.6805900,9223372036854775807,1\n",
                              TR_AZURE_LLM, err, sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(err, "over-azure.csv:2:29: field \"ContextTokens\": expected a token count "
                           "(integer >= 0) of at most 1099511627776 (TR_TOKENS_MAX)");
}

/* ---- openb ---- */

static void test_openb_slice(void)
{
    char err[SS_ERRLEN];
    struct tr_reader *r = tr_open(OPENB200, TR_OPENB, NULL, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    struct tr_record rec;
    CU_ASSERT_EQUAL_FATAL(tr_next(r, &rec, err, sizeof err), 1);
    /* first row: openb-pod-7952,11300,49152,1,1000,,LS,Running,12851418,12852079,12851663 */
    CU_ASSERT_STRING_EQUAL(rec.pod.name, "openb-pod-7952");
    CU_ASSERT_EQUAL(rec.time_s, 0.0);
    CU_ASSERT_EQUAL(rec.pod.cpu_milli, 11300);
    CU_ASSERT_EQUAL(rec.pod.memory_mib, 49152);
    CU_ASSERT_EQUAL(rec.pod.num_gpu, 1);
    CU_ASSERT_EQUAL(rec.pod.gpu_milli, 1000);
    CU_ASSERT_STRING_EQUAL(rec.pod.gpu_spec, "");
    CU_ASSERT_STRING_EQUAL(rec.pod.qos, "LS");
    CU_ASSERT_STRING_EQUAL(rec.pod.pod_phase, "Running");
    CU_ASSERT_EQUAL(rec.pod.creation_time, 12851418);
    CU_ASSERT_EQUAL(rec.pod.deletion_time, 12852079);
    CU_ASSERT_EQUAL(rec.pod.scheduled_time, 12851663);
    CU_ASSERT(isnan(rec.work_ms));
    CU_ASSERT_EQUAL(rec.input_tokens, -1);
    long long n = 1;
    double prev = 0;
    while (tr_next(r, &rec, err, sizeof err) == 1) {
        CU_ASSERT(rec.time_s >= prev);
        prev = rec.time_s;
        n++;
    }
    CU_ASSERT_EQUAL(n, 200);
    CU_ASSERT_EQUAL(prev, 12901761.0 - 12851418.0); /* last pod's creation_time - first's */
    tr_close(r);
}

static void test_openb_sorted_stably(void)
{
    const char *text =
        "creation_time,deletion_time,num_gpu,gpu_milli,name,scheduled_time,gpu_spec\n"
        "300,400,1,500,c,,T4\n"
        "100,150,1,250,a,101,V100M16|V100M32\n"
        "300,900,2,1000,d,301,\n"
        "100,200,0,0,b,,\n";
    char *path = tu_write("pods.csv", text);
    char err[SS_ERRLEN];
    struct tr_opts o = {0.5, 3};
    struct tr_reader *r = tr_open(path, TR_OPENB, &o, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    const char *names = "abc";
    const double times[] = {0, 0, 100};
    const long lines[] = {3, 5, 2};
    struct tr_record rec;
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL_FATAL(tr_next(r, &rec, err, sizeof err), 1);
        CU_ASSERT_EQUAL(rec.pod.name[0], names[i]);
        CU_ASSERT_EQUAL(rec.time_s, times[i]);
        CU_ASSERT_EQUAL(rec.line, lines[i]);
        CU_ASSERT_EQUAL(rec.pod.cpu_milli, -1); /* column absent */
    }
    CU_ASSERT_EQUAL(tr_next(r, &rec, err, sizeof err), 0); /* limit 3 */
    tr_close(r);
    CU_ASSERT_EQUAL(read_text("pods-bad.csv",
                              "creation_time,deletion_time,num_gpu,gpu_milli\n5,4,1,100\n",
                              TR_OPENB, err, sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(err,
                      "pods-bad.csv:2:3: field \"deletion_time\": 4 is before creation_time 5");
    CU_ASSERT_EQUAL(read_text("pods-milli.csv",
                              "creation_time,deletion_time,num_gpu,gpu_milli\n5,6,1,1001\n",
                              TR_OPENB, err, sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(err, "pods-milli.csv:2:7: field \"gpu_milli\": expected a GPU share in "
                           "thousandths (integer 0..1000), got \"1001\"");
    CU_ASSERT_EQUAL(read_text("pods-hdr.csv", "creation_time,num_gpu,gpu_milli\n5,1,0\n", TR_OPENB,
                              err, sizeof err, NULL),
                    -1);
    TU_CHECK_CONTAINS(err, "pods-hdr.csv:1:32: missing column \"deletion_time\"");
}

/* ---- memory ---- */

static char *write_rows(const char *name, long rows)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), name);
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("time_s,work_ms,input_tokens,output_tokens\n", fp);
    for (long i = 0; i < rows; i++)
        fprintf(fp, "%.3f,%d,%ld,%ld\n", i * 0.01, 1 + (int)(i % 7), i % 5000, i % 300);
    fclose(fp);
    return ss_xstrdup(path);
}

static void test_memory_independent_of_length(void)
{
    long big = tu_sanitized() ? 20000 : 200000;
    char *small_path = write_rows("rows-small.csv", 10),
         *big_path = write_rows("rows-large.csv", big);
    char err[SS_ERRLEN];
    struct tr_reader *a = tr_open(small_path, TR_SHARESIM, NULL, err, sizeof err);
    struct tr_reader *b = tr_open(big_path, TR_SHARESIM, NULL, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    size_t before = tr_mem_bytes(b);
    struct tr_record rec;
    long n = 0;
    while (tr_next(b, &rec, err, sizeof err) == 1)
        n++;
    CU_ASSERT_EQUAL(n, big);
    CU_ASSERT_EQUAL(tr_mem_bytes(b), before);
    /* the same bytes for 10 rows as for 200,000 (the two paths have the same length) */
    CU_ASSERT_EQUAL(tr_mem_bytes(a), tr_mem_bytes(b));
    CU_ASSERT(tr_mem_bytes(b) < 3 * TR_LINE_MAX);
    tr_close(a);
    tr_close(b);
    free(small_path);
    free(big_path);
}

/*
 * The reader's buffer holds 2 * TR_LINE_MAX bytes and is refilled as lines are consumed, so
 * rows straddle the refill point at many offsets. Rows of 1..~3000 bytes (padded with spaces)
 * and every 97th of ~65500 bytes, about 2.2 MB in all, LF and CRLF mixed, must come back
 * exactly: count, every time and work value, and the line number.
 */
static void test_line_buffer_refills(void)
{
    const char *path;
    char name[512];
    snprintf(name, sizeof name, "%s/refill.csv", tu_tmpdir());
    path = name;
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("time_s,work_ms\r\n", fp);
    const int rows = 1000;
    unsigned x = 12345;
    for (int i = 0; i < rows; i++) {
        x = x * 1103515245u + 12345u;
        /* Every 97th row is close to the longest line allowed, to cross refills at odd places. */
        int pad = i % 97 == 0 ? TR_LINE_MAX - 20 - (int)(x >> 16) % 50 : (int)(x >> 16) % 3000;
        fprintf(fp, "%*d,%d%s", pad, i, i + 1, i % 2 ? "\r\n" : "\n");
    }
    fclose(fp);
    char err[SS_ERRLEN];
    struct tr_reader *r = tr_open(path, TR_SHARESIM, NULL, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    struct tr_record rec;
    int i = 0, ok = 1, rc;
    while ((rc = tr_next(r, &rec, err, sizeof err)) == 1) {
        ok &= rec.time_s == i && rec.work_ms == i + 1 && rec.line == i + 2;
        i++;
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(i, rows);
    CU_ASSERT_TRUE(ok);
    tr_close(r);
}

void test_trace_register(void)
{
    static const struct tu_test t[] = {
        {"format names", test_format_names},
        {"Azure slices: count, arrivals, token means (Python)", test_azure_slices},
        {"token counts: 2^31 and 2^32 + 1 exact, TR_TOKENS_MAX + 1 refused",
         test_tokens_64bit_and_bound},
        {"time_scale and limit", test_time_scale_and_limit},
        {"timestamps exact across year end and leap day", test_timestamps_exact_across_calendar},
        {"CRLF, BOM, blank lines", test_line_endings_bom_blank},
        {"empty file and header only", test_empty_and_header_only},
        {"bad timestamps name line and column", test_bad_timestamps},
        {"time going backwards names the line", test_backwards_time},
        {"missing, extra, unknown and duplicate columns", test_missing_columns_and_fields},
        {"bad numbers: NaN, inf, 1e400, overflow, junk", test_bad_numbers},
        {"long line, NUL byte, missing file", test_long_line_and_nul},
        {"sharesim columns in any order", test_sharesim_columns},
        {"openb slice fields", test_openb_slice},
        {"openb sorted by creation, ties by row", test_openb_sorted_stably},
        {"reader memory independent of length", test_memory_independent_of_length},
        {"trace line buffer across refills", test_line_buffer_refills},
        {NULL, NULL},
    };
    tu_add_suite("trace", t);
}
