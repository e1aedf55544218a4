/* sharesim compare: side-by-side table, best marks, latency decomposition. */
#include "testutil.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_compare_table(void)
{
    /* Two tenants, a with a p99 SLA: time-sliced on one GPU, or one GPU each. */
    const char *path = tu_fixture("cmd_compare/two-tenants.json");
    char cmd[700], out[16384];
    snprintf(cmd, sizeof cmd, "compare %s", path);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    /* The default baseline is the first exclusive strategy, whose slowdown is 1. */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "baseline excl"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "1.00*"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "time-sharing and switching"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "dominates"));
    /* Exclusive has the lower p99 for tenant a: its row carries the mark. */
    const char *ta = strstr(out, "tenant a");
    const char *row = ta ? strstr(ta, "\n  excl ") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    const char *eol = strchr(row + 1, '\n');
    const char *star = strchr(row + 1, '*');
    CU_ASSERT(star && eol && star < eol);
    snprintf(cmd, sizeof cmd, "compare %s --baseline nosuch", path);
    char err[1024];
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no strategy named \"nosuch\""));
}

/* One step of Llama-2-7B FP16 on an A100-80GB at SM share f and bandwidth share b, by the
 * roofline (docs/llm.md#step-time), with the fixture's 3 ms step overhead. */
static double step_at(long past, long n_new, double f, double b)
{
    double P = 6738415616.0, n = (double)n_new, p = (double)past;
    double flops = 2 * P * n + 4.0 * 32 * 32 * 128 * (n * p + n * (n + 1) / 2);
    double bytes = 2 * P + 524288.0 * (p + n);
    return fmax(flops / (312e12 * f * 0.70), bytes / (2039e9 * b * 0.85)) + 0.003;
}

/* The worst TPOT of the trace's requests (512 in, 32 out; 2000 in, 50 out; the others have one
 * output token): each alone, its decode steps one token at a growing context. */
static double worst_tpot(double f, double b)
{
    static const long in[2] = {512, 2000}, out[2] = {32, 50};
    double worst = 0;
    for (int k = 0; k < 2; k++) {
        double dec = 0;
        for (long j = 1; j < out[k]; j++)
            dec += step_at(in[k] + j - 1, 1, f, b);
        worst = fmax(worst, dec / (double)(out[k] - 1));
    }
    return worst;
}

static const cJSON *row_of(const cJSON *rows, const char *tenant, const char *strategy)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, rows)
    {
        if (strcmp(cJSON_GetObjectItem(r, "tenant")->valuestring, tenant) == 0 &&
            strcmp(cJSON_GetObjectItem(r, "strategy")->valuestring, strategy) == 0)
            return r;
    }
    return NULL;
}

static int in_best(const cJSON *row, const char *key)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, cJSON_GetObjectItem(row, "best"))
    {
        if (strcmp(b->valuestring, key) == 0)
            return 1;
    }
    return 0;
}

/*
 * An LLM tenant's TTFT and TPOT p99, tokens/s and goodput beside its request figures. The
 * trace's four requests run alone (tests/test_llmunit.c), so each p99 is the largest sample,
 * kept exactly: the 2000-token prefill, 131.2 ms on a whole A100 (compute bound, 28.0 TFLOP at
 * 70 % of 312 TFLOP/s, plus 3 ms) and 332.7 ms on a 3g.40gb (42 of 108 SMs). Goodput: all four
 * requests meet TTFT 200 ms and TPOT 20 ms under exclusive (4 in 40 s), three under MIG (the
 * long prefill misses). The plain tenant's row has the columns, empty.
 */
static void test_compare_llm(void)
{
    char cmd[700], out[16384];
    snprintf(cmd, sizeof cmd, "compare %s --json - --quiet", tu_fixture("cmd_compare/llm.json"));
    cJSON *doc = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *rows = cJSON_GetObjectItem(doc, "rows");
    const cJSON *ex = row_of(rows, "chat", "excl"), *mig = row_of(rows, "chat", "mig");
    const cJSON *plain = row_of(rows, "embed", "excl");
    CU_ASSERT_FATAL(ex && mig && plain);
    const double f = 42.0 / 108, b = 4.0 / 8;
    TU_CHECK_CLOSE_REL(cJSON_GetObjectItem(ex, "ttft_p99_ms")->valuedouble,
                       step_at(0, 2000, 1, 1) * 1e3, 1e-5);
    TU_CHECK_CLOSE_REL(cJSON_GetObjectItem(mig, "ttft_p99_ms")->valuedouble,
                       step_at(0, 2000, f, b) * 1e3, 1e-5);
    TU_CHECK_CLOSE_REL(cJSON_GetObjectItem(ex, "tpot_p99_ms")->valuedouble, worst_tpot(1, 1) * 1e3,
                       1e-5);
    TU_CHECK_CLOSE_REL(cJSON_GetObjectItem(mig, "tpot_p99_ms")->valuedouble, worst_tpot(f, b) * 1e3,
                       1e-5);
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(ex, "goodput_per_s")->valuedouble, 4.0 / 40, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(mig, "goodput_per_s")->valuedouble, 3.0 / 40, 1e-9);
    CU_ASSERT(cJSON_GetObjectItem(ex, "output_tokens_per_s")->valuedouble > 0);
    CU_ASSERT(in_best(ex, "ttft_p99_ms") && in_best(ex, "tpot_p99_ms") &&
              in_best(ex, "goodput_per_s"));
    CU_ASSERT(!in_best(mig, "ttft_p99_ms"));
    CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(plain, "ttft_p99_ms")));
    CU_ASSERT(!in_best(plain, "ttft_p99_ms"));
    cJSON_Delete(doc);
    /* The CSV: the four columns after the cost, in every row. */
    snprintf(cmd, sizeof cmd, "compare %s --csv - --quiet", tu_fixture("cmd_compare/llm.json"));
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    TU_CHECK_CONTAINS(out, "cost_per_million_requests_usd,ttft_p99_ms,tpot_p99_ms,"
                           "output_tokens_per_s,goodput_per_s,best,stable,meets_sla,sla_reason\n");
    TU_CHECK_CONTAINS(out, "\nembed,excl,");
    /* The table: the LLM tenant's four columns, exclusive marked best in TTFT. */
    snprintf(cmd, sizeof cmd, "compare %s", tu_fixture("cmd_compare/llm.json"));
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    TU_CHECK_CONTAINS(out, "TTFT_p99   TPOT_p99     tok/s    good/s");
    TU_CHECK_CONTAINS(out, "     131.2*");
    TU_CHECK_CONTAINS(out, "an LLM tenant's is in its TTFT and TPOT columns");
}

/* A scenario without an LLM tenant has none of the LLM columns. */
static void test_compare_plain_has_no_llm_columns(void)
{
    char cmd[700], out[16384];
    snprintf(cmd, sizeof cmd, "compare %s --csv - --quiet",
             tu_fixture("cmd_compare/two-tenants.json"));
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    TU_CHECK_CONTAINS(out, "cost_per_million_requests_usd,best,stable,meets_sla,sla_reason\n");
    CU_ASSERT_PTR_NULL(strstr(out, "ttft"));
}

/* One output per file (cli/outplan.h), refused before the run: nothing printed, no file. */
static void test_compare_outputs(void)
{
    char args[1400];
    const char *s = tu_fixture("cmd_compare/two-tenants.json");
    snprintf(args, sizeof args, "compare '%s' --json @X --csv @X", s);
    tu_expect_outputs_refused(args, "cmp-x", "--csv ", "cmp-x: the same file as --json ", NULL);
    snprintf(args, sizeof args, "compare '%s' --json - --csv -", s);
    tu_expect_outputs_refused(args, NULL, "--csv -: --json - already writes to stdout", NULL);
    /* the scenario itself, through ./ : the table is not printed first */
    char copy[600];
    snprintf(copy, sizeof copy, "%s/cmp-in.json", tu_tmpdir());
    char *text = tu_slurp(s);
    tu_write("cmp-in.json", text);
    snprintf(args, sizeof args, "compare '%s' --csv '%s/./cmp-in.json'", copy, tu_tmpdir());
    tu_expect_outputs_refused(args, NULL, "the same file as the input SCENARIO", NULL);
    char *after = tu_slurp(copy);
    CU_ASSERT_STRING_EQUAL(after, text);
    free(after);
    free(text);
}

void test_cmd_compare_register(void)
{
    static const struct tu_test t[] = {
        {"compare marks the best and explains latency", test_compare_table},
        {"an LLM tenant's TTFT and TPOT p99, tokens/s and goodput, by hand", test_compare_llm},
        {"no LLM tenant, no LLM columns", test_compare_plain_has_no_llm_columns},
        {"one output per file, refused before the run", test_compare_outputs},
        {NULL, NULL},
    };
    tu_add_suite("cmd_compare", t);
}
