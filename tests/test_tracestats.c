/*
 * tracestats (io/tracestats.c): summaries of the shipped Azure and openb files against
 * figures computed independently in Python (tests/trace_expected.py: population CV,
 * numpy-style linear percentiles), time_scale's effect on rate and CV, and the constant-memory
 * token histogram.
 */
#include "testutil.h"
#include "io/trace.h"
#include "io/tracestats.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CONV "traces/AzureLLMInferenceTrace_conv.csv"
#define CODE "traces/AzureLLMInferenceTrace_code.csv"
#define CONV1000 "traces/AzureLLMInferenceTrace_conv.head1000.csv"
#define OPENB200 "traces/openb_pod_list_default.tail200.csv"

static void test_azure_slice_summary(void)
{
    char err[SS_ERRLEN];
    struct trs_summary s;
    CU_ASSERT_EQUAL_FATAL(trs_summarize(CONV1000, TR_AZURE_LLM, NULL, &s, err, sizeof err), 0);
    CU_ASSERT_EQUAL(s.count, 1000);
    TU_CHECK_CLOSE_REL(s.ia_cv, 1.2454741319474714, 1e-9);
    TU_CHECK_CLOSE_REL(s.rate_per_s, 4.62441353444468, 1e-12);
    TU_CHECK_CLOSE_REL(s.input_tokens.mean, 1014.189, 1e-12);
    CU_ASSERT_EQUAL(s.input_tokens.p50, 999.0);
    TU_CHECK_CLOSE_REL(s.input_tokens.p90, 1380.0, 1e-12);
    TU_CHECK_CLOSE_REL(s.input_tokens.p99, 4096.03, 1e-12);
    CU_ASSERT_EQUAL(s.output_tokens.p50, 203.0);
    TU_CHECK_CLOSE_REL(s.output_tokens.p99, 585.08, 1e-12);
    CU_ASSERT_EQUAL(s.input_tokens.max, 4145);
    CU_ASSERT(s.input_tokens.exact && s.output_tokens.exact);
    CU_ASSERT_EQUAL(s.columns, TR_COL_INPUT_TOKENS | TR_COL_OUTPUT_TOKENS);
    CU_ASSERT_EQUAL(s.work_n, 0);
}

static void test_time_scale_summary(void)
{
    char err[SS_ERRLEN];
    struct tr_opts slow = {2.0, 0};
    /* Rate scales with 1/time_scale, CV not at all. */
    struct trs_summary a, b;
    CU_ASSERT_EQUAL_FATAL(trs_summarize(CONV1000, TR_AZURE_LLM, NULL, &a, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(trs_summarize(CONV1000, TR_AZURE_LLM, &slow, &b, err, sizeof err), 0);
    TU_CHECK_CLOSE_REL(b.rate_per_s, a.rate_per_s / 2, 1e-12);
    TU_CHECK_CLOSE_REL(b.ia_cv, a.ia_cv, 1e-12);
}

static void test_openb_summary(void)
{
    char err[SS_ERRLEN];
    struct trs_summary s;
    CU_ASSERT_EQUAL_FATAL(trs_summarize(OPENB200, TR_OPENB, NULL, &s, err, sizeof err), 0);
    /* awk over the slice: 194 pods with GPUs, 141 with num_gpu 1 and gpu_milli < 1000 */
    CU_ASSERT_EQUAL(s.count, 200);
    CU_ASSERT_EQUAL(s.gpu_pods, 194);
    CU_ASSERT_EQUAL(s.shared_gpu_pods, 141);
    CU_ASSERT_EQUAL(s.columns, 0);
}

static void test_azure_full_traces(void)
{
    struct trs_summary s;
    char err[SS_ERRLEN];
    /* Python on the full conversation trace: n=19366, last=3501.721937,
     * rate=5.5301364152832795, ia_cv=1.0941699818437727; p50/p90/p99 in 1020/2734.5/4142,
     * out 129/424/601; means 1154.6974078281523, 211.12594237323142. */
    CU_ASSERT_EQUAL_FATAL(trs_summarize(CONV, TR_AZURE_LLM, NULL, &s, err, sizeof err), 0);
    CU_ASSERT_EQUAL(s.count, 19366);
    CU_ASSERT_EQUAL(s.last_s, 3501.721937);
    TU_CHECK_CLOSE_REL(s.rate_per_s, 5.5301364152832795, 1e-12);
    TU_CHECK_CLOSE_REL(s.ia_cv, 1.0941699818437727, 1e-9);
    CU_ASSERT(fabs(s.ia_cv - 1.09) < 0.01);
    TU_CHECK_CLOSE_REL(s.input_tokens.mean, 1154.6974078281523, 1e-12);
    TU_CHECK_CLOSE_REL(s.output_tokens.mean, 211.12594237323142, 1e-12);
    CU_ASSERT_EQUAL(s.input_tokens.p50, 1020.0);
    TU_CHECK_CLOSE_REL(s.input_tokens.p90, 2734.5, 1e-12);
    CU_ASSERT_EQUAL(s.input_tokens.p99, 4142.0);
    CU_ASSERT_EQUAL(s.output_tokens.p50, 129.0);
    CU_ASSERT_EQUAL(s.output_tokens.p90, 424.0);
    CU_ASSERT_EQUAL(s.output_tokens.p99, 601.0);
    CU_ASSERT_EQUAL(s.input_tokens.max, 14050);
    CU_ASSERT_EQUAL(s.output_tokens.max, 1000);
    /* Code trace: n=8819, last=3435.948056, ia_cv=13.151290974387367, out p99=251.46. */
    CU_ASSERT_EQUAL_FATAL(trs_summarize(CODE, TR_AZURE_LLM, NULL, &s, err, sizeof err), 0);
    CU_ASSERT_EQUAL(s.count, 8819);
    CU_ASSERT_EQUAL(s.last_s, 3435.948056);
    TU_CHECK_CLOSE_REL(s.ia_cv, 13.151290974387367, 1e-9);
    CU_ASSERT(fabs(s.ia_cv - 13.0) <= 0.5);
    TU_CHECK_CLOSE_REL(s.rate_per_s, 2.5663950258507633, 1e-12);
    TU_CHECK_CLOSE_REL(s.input_tokens.mean, 2047.848282118154, 1e-12);
    TU_CHECK_CLOSE_REL(s.input_tokens.p90, 5187.6, 1e-12);
    CU_ASSERT_EQUAL(s.input_tokens.p99, 7436.0);
    TU_CHECK_CLOSE_REL(s.output_tokens.p99, 251.46, 1e-12);
    CU_ASSERT_EQUAL(s.output_tokens.max, 1899);
}

static void test_histogram(void)
{
    struct trs_hist *h = trs_hist_new();
    CU_ASSERT(isnan(trs_hist_quantile(h, 0.5)));
    const long long v[] = {5, 1, 3, 3, 10};
    for (int i = 0; i < 5; i++)
        trs_hist_add(h, v[i]);
    /* sorted 1 3 3 5 10; numpy.percentile: p50 = 3, p90 = 5 + 0.6 * 5 = 8, p99 = 9.8 */
    CU_ASSERT_EQUAL(trs_hist_quantile(h, 0.5), 3.0);
    CU_ASSERT_DOUBLE_EQUAL(trs_hist_quantile(h, 0.9), 8.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(trs_hist_quantile(h, 0.99), 9.8, 1e-12);
    CU_ASSERT_EQUAL(trs_hist_quantile(h, 0), 1.0);
    CU_ASSERT_EQUAL(trs_hist_quantile(h, 1), 10.0);
    CU_ASSERT(trs_hist_exact(h));
    trs_hist_add(h, 1000000);
    trs_hist_add(h, 123456789012LL);
    CU_ASSERT(!trs_hist_exact(h));
    CU_ASSERT_EQUAL(trs_hist_count(h), 7);
    double top = trs_hist_quantile(h, 1), next = trs_hist_quantile(h, 5.0 / 6);
    CU_ASSERT(fabs(top - 123456789012.0) <= 123456789012.0 / 64);
    CU_ASSERT(fabs(next - 1000000.0) <= 1000000.0 / 64);
    trs_hist_free(h);
}

void test_tracestats_register(void)
{
    static const struct tu_test t[] = {
        {"Azure slice summary: rate, CV, token percentiles (Python)", test_azure_slice_summary},
        {"time_scale divides the rate, leaves the CV", test_time_scale_summary},
        {"openb slice summary: GPU pods, shared candidates", test_openb_summary},
        {"Azure full traces: 19366 requests, CV 1.09 and 13.15", test_azure_full_traces},
        {"token histogram percentiles", test_histogram},
        {NULL, NULL},
    };
    tu_add_suite("tracestats", t);
}
