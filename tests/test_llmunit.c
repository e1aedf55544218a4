/*
 * llmunit (policy/units/llmunit.c): an LLM tenant's engine served through the event engine,
 * under exclusive and in MIG instances. Requests replayed from a trace far apart run alone, so
 * every TTFT, TPOT and latency is written out by hand from the roofline formula
 * (docs/llm.md#step-time) and the run must give them to rounding; token counts come from the
 * trace's columns (a row of 0 tokens is one token in, one out). Around it: a small cache that
 * forces preemptions, with every request conserved; a plain tenant beside an LLM tenant keeps
 * exactly its figures (common random numbers); faults; replications; the outputs (JSON, CSV, table,
 * --check-sla) and the load errors (weights that do not fit, strategies that do not serve LLM
 * tenants, keys that do not apply).
 */
#include "core/llmstats.h"
#include "core/run.h"
#include "core/scenario.h"
#include "llm/roofline.h"
#include "testutil.h"

#include <cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One step of one sequence: n_new tokens after past, by the formula, plus the overhead. */
static double step_at(const struct scenario *sc, long past, long n_new, double over, double f,
                      double b)
{
    const struct lsv_cfg *c = sc->tenants[0].llm;
    double P = c->model.params, n = (double)n_new, p = (double)past;
    double flops = 2 * P * n + 4.0 * 32 * 32 * 128 * (n * p + n * (n + 1) / 2);
    double bytes = 2 * P + 524288.0 * (p + n);
    const struct gpu_roof *r = &sc->gpu.roof;
    return fmax(flops / (312e12 * f * r->compute_eff), bytes / (2039e9 * b * r->bandwidth_eff)) +
           over;
}

static double step_s(const struct scenario *sc, long past, long n_new, double over)
{
    return step_at(sc, past, n_new, over, 1, 1);
}

static void test_alone_by_hand(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("llmunit/alone.json"), &sc, &r);
    /* The trace's rows, 0 tokens counted as 1; each request ends long before the next. */
    static const long in[4] = {512, 100, 1, 2000}, out[4] = {32, 1, 1, 50};
    double ttft = 0, lat = 0, tpot = 0, itl = 0, gaps = 0, lat_max = 0;
    for (int k = 0; k < 4; k++) {
        double t1 = step_s(&sc, 0, in[k], 0.003), dec = 0;
        for (long j = 1; j < out[k]; j++)
            dec += step_s(&sc, in[k] + j - 1, 1, 0.003);
        ttft += t1 / 4;
        lat += (t1 + dec) / 4;
        lat_max = fmax(lat_max, t1 + dec);
        if (out[k] > 1)
            tpot += dec / (double)(out[k] - 1) / 2; /* two requests have a TPOT */
        itl += dec;
        gaps += (double)(out[k] - 1);
    }
    const double *t = r.s[0].t, *m = r.s[0].llm;
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_COMPLETED], 4, 0);
    TU_CHECK_CLOSE_REL(t[TM_LAT_MEAN], lat, 1e-9);
    TU_CHECK_CLOSE_REL(m[LM_TTFT_MEAN], ttft, 1e-9);
    TU_CHECK_CLOSE_REL(m[LM_TPOT_MEAN], tpot, 1e-9);
    TU_CHECK_CLOSE_REL(m[LM_ITL_MEAN], itl / gaps, 1e-9);
    /* The histogram's maximum is exact (stats.h): the 2000-token request's latency. */
    TU_CHECK_CLOSE_REL(t[TM_LAT_P99], lat_max, 0.0039);
    CU_ASSERT_DOUBLE_EQUAL(m[LM_PREEMPTIONS], 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_WAIT_MEAN], 0, 0); /* each starts at once */
    CU_ASSERT(m[LM_KV_UTIL] > 0 && m[LM_KV_UTIL] < 0.01);
    /* No SLA: the attainments do not apply. */
    CU_ASSERT(isnan(m[LM_TTFT_SLA]) && isnan(m[LM_TPOT_SLA]) && isnan(m[LM_GOODPUT]));
    run_result_free(&r);
    scn_free(&sc);
}

static void test_small_cache(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("llmunit/small-cache.json"), &sc, &r);
    const double *t = r.s[0].t, *m = r.s[0].llm;
    /* 0.17 × 80 GiB (85.90 GB) − 13.48 GB − 0.19 GB − 0.16 GB non-torch leave 92 blocks (1,472
     * tokens) for requests of up to 900: the cache runs out and sequences are recomputed, yet
     * every request completes. */
    CU_ASSERT_DOUBLE_EQUAL(t[TM_ARRIVED], 400, 0);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_COMPLETED], 400, 0);
    CU_ASSERT(m[LM_PREEMPTIONS] > 0);
    CU_ASSERT(m[LM_KV_UTIL] > 0.5 && m[LM_KV_UTIL] <= 1);
    CU_ASSERT(m[LM_TPOT_P99] > m[LM_TPOT_P50]);
    run_result_free(&r);
    scn_free(&sc);
}

/* The plain tenant's figures are exactly those it has alone: every tenant draws from its own
 * stream (common random numbers), and the LLM tenant has a GPU of its own. */
static void test_beside_plain(void)
{
    struct scenario sa, sb;
    struct run_result ra, rb;
    tu_run_file(tu_fixture("llmunit/mixed.json"), &sa, &ra);
    char *one = tu_fixture_patch("llmunit/mixed.json", "{\"gpus\": 1, \"tenants\": [%s]}",
                                 "{\"name\": \"embed\", \"arrival\": {\"process\": \"poisson\", "
                                 "\"rate_per_s\": 100}, \"work\": {\"dist\": \"exponential\", "
                                 "\"mean_ms\": 2}}");
    tu_run_text(one, &sb, &rb);
    free(one);
    CU_ASSERT_PTR_NULL(rb.s[0].llm); /* no LLM tenant, no LLM figures */
    for (int k = 0; k < TM_N; k++) {
        double a = res_t(&ra.s[0], 0)[k], b = res_t(&rb.s[0], 0)[k];
        CU_ASSERT(a == b || (isnan(a) && isnan(b))); /* NaN: no SLA, in both */
    }
    /* The LLM tenant is served, with its SLAs measured; the plain one has no LLM figures. */
    const double *m = ra.s[0].llm + LM_N;
    CU_ASSERT(res_t(&ra.s[0], 1)[TM_COMPLETED] > 50);
    CU_ASSERT(m[LM_OUTPUT_TPS] > 0);
    CU_ASSERT(m[LM_TTFT_SLA] >= 0 && m[LM_TTFT_SLA] <= 1);
    CU_ASSERT(m[LM_TPOT_SLA] >= 0 && m[LM_TPOT_SLA] <= 1);
    /* Goodput counts the requests that met both targets: at most the throughput, and all of
     * it when every request met them. */
    double thr = res_t(&ra.s[0], 1)[TM_THROUGHPUT];
    CU_ASSERT(m[LM_GOODPUT] <= thr);
    if (m[LM_TTFT_SLA] == 1 && m[LM_TPOT_SLA] == 1)
        CU_ASSERT_DOUBLE_EQUAL(m[LM_GOODPUT], thr, 1e-12);
    CU_ASSERT(isnan(ra.s[0].llm[LM_TTFT_MEAN]));
    run_result_free(&ra);
    run_result_free(&rb);
    scn_free(&sa);
    scn_free(&sb);
}

/* Load errors: each case differs from mixed.json in the field it names. */
static void test_load_errors(void)
{
    /* 70.55 B parameters × 2 bytes = 141.11 GB against 0.9 × 80 GB. */
    tu_expect_fixture_error("strategies[0]: tenant \"chat\": 141.11 GB of fp16 Llama-3-70B "
                            "weights do not fit a whole A100-80GB's 80 GB (85.90 GB of 10⁹ bytes × "
                            "gpu_memory_utilization 0.9 = 77.31 GB)",
                            "llmunit/mixed.json", "{\"tenants.1.serving.model\": %s}",
                            "\"Llama-3-70B\"");
    tu_expect_fixture_error(
        "strategies[0].kind: \"fractional\" does not serve LLM tenants yet "
        "(tenants[1] \"chat\" has \"serving\"); the kinds that do: \"exclusive\"",
        "llmunit/mixed.json", "{\"strategies.0.kind\": %s}", "\"fractional\"");
    tu_expect_fixture_error("tenants[1].work: not for an LLM tenant", "llmunit/mixed.json",
                            "{\"tenants.1.work\": %s}", "{\"dist\": \"deterministic\", \"ms\": 1}");
    tu_expect_fixture_error("tenants[1].memory_gb: not for an LLM tenant", "llmunit/mixed.json",
                            "{\"tenants.1.memory_gb\": %d}", 10);
    tu_expect_fixture_error("tenants[0].tokens: only for an LLM tenant", "llmunit/mixed.json",
                            "{\"tenants.0.tokens\": %s}", "{}");
    tu_expect_fixture_error("tenants[0].sla.ttft_p99_ms", "llmunit/mixed.json",
                            "{\"tenants.0.sla\": %s}", "{\"ttft_p99_ms\": 100}");
    tu_expect_fixture_error("tenants[1].sla: expected at least one target: p99_ms, ttft_p99_ms",
                            "llmunit/mixed.json", "{\"tenants.1.sla\": %s}", "{}");
    tu_expect_fixture_error("tenants[1].arrival.process: \"saturated\" is not for an LLM tenant",
                            "llmunit/mixed.json", "{\"tenants.1.arrival\": %s}",
                            "{\"process\": \"saturated\"}");
    tu_expect_fixture_error("tenants[1].serving.max_batched_tokens", "llmunit/mixed.json",
                            "{\"tenants.1.serving.max_batched_tokens\": %d}", 0);
    tu_expect_fixture_error("tenants[1].tokens.output.dist", "llmunit/mixed.json",
                            "{\"tenants.1.tokens.output\": %s}", "{\"dist\": \"zipf\"}");
    /* Poisson arrivals carry no tokens of their own. */
    tu_expect_fixture_error("tenants[1].tokens: missing: an LLM tenant's requests take their "
                            "tokens from \"tokens\"",
                            "llmunit/mixed.json", "{\"tenants.1\": %s}",
                            "{\"name\": \"chat\", \"arrival\": {\"process\": \"poisson\", "
                            "\"rate_per_s\": 4}, \"serving\": {\"engine\": \"llm\", "
                            "\"step_model\": \"roofline\", \"model\": "
                            "\"Llama-2-7B\"}}");
    /* A trace without token columns. */
    tu_write("llm-work.csv", "time_s,work_ms\n0,1\n1,1\n");
    char scn[1024];
    snprintf(scn, sizeof scn,
             "{\"gpu\": \"A100-80GB\", \"tenants\": [{\"name\": \"c\", \"arrival\": "
             "{\"process\": \"trace\", \"path\": \"%s/llm-work.csv\", \"format\": "
             "\"sharesim\"}, \"serving\": {\"engine\": \"llm\", \"step_model\": \"roofline\", "
             "\"model\": \"Mistral-7B\"}}], "
             "\"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}",
             tu_tmpdir());
    tu_expect_load_error(scn, "tenants[0].tokens: missing: an LLM tenant's requests take their "
                              "tokens from \"tokens\" or from the trace's input_tokens and "
                              "output_tokens");
}

/* The outputs: "llm" in JSON (with _ci95 under replications), the CSV's columns, the table's
 * line, and --check-sla on a TPOT target nobody meets. */
static void test_outputs(void)
{
    char *p = tu_fixture_write("llm-mixed.json", "llmunit/mixed.json",
                               "{\"replications\": 2, \"stop.duration_s\": 10, "
                               "\"tenants.1.sla.tpot_p99_ms\": %g}",
                               0.5);
    char args[1200], out[1 << 16], err[4096];
    snprintf(args, sizeof args, "run '%s' --json - --quiet", p);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, err, sizeof err), 0);
    cJSON *doc = cJSON_Parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    cJSON *ts = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0),
                                    "tenants");
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(cJSON_GetArrayItem(ts, 0), "llm"));
    cJSON *llm = cJSON_GetObjectItem(cJSON_GetArrayItem(ts, 1), "llm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(llm);
    static const char *const keys[] = {"ttft_ms",
                                       "tpot_ms",
                                       "itl_ms",
                                       "output_tokens_per_s",
                                       "preemptions",
                                       "kv_utilization",
                                       "ttft_sla_attainment",
                                       "tpot_sla_attainment",
                                       "ttft_ms_ci95",
                                       "tpot_ms_ci95"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(llm, keys[k]));
    CU_ASSERT(cJSON_GetObjectItem(cJSON_GetObjectItem(llm, "ttft_ms"), "p99")->valuedouble > 0);
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(llm, "tpot_sla_attainment")->valuedouble, 0, 0);
    /* No request meets a 0.5 ms TPOT: no goodput. */
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(llm, "goodput_per_s")->valuedouble, 0, 0);
    cJSON_Delete(doc);

    snprintf(args, sizeof args, "run '%s' --csv - --quiet", p);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, err, sizeof err), 0);
    TU_CHECK_CONTAINS(out, ",stable,ttft_ms_mean,ttft_ms_p50,ttft_ms_p95,ttft_ms_p99,tpot_ms_mean");
    TU_CHECK_CONTAINS(out, "itl_ms_p99,output_tokens_per_s,preemptions,kv_utilization,"
                           "ttft_sla_attainment,tpot_sla_attainment,goodput_per_s\n");
    snprintf(args, sizeof args, "run '%s'", p);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, err, sizeof err), 0);
    TU_CHECK_CONTAINS(out, "   llm: TTFT p50 ");
    snprintf(args, sizeof args, "run '%s' --quiet --check-sla", p);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, err, sizeof err), 1);
    TU_CHECK_CONTAINS(err, "SLA missed: strategy \"excl\", tenant \"chat\": TPOT p99 ");
    TU_CHECK_CONTAINS(err, " > 0.5 ms");
}

/* A fault kills the engine holding requests: all of them fail, the rest complete. */
static void test_faults(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_fixture(&sc, &r, "llmunit/mixed.json", "{\"tenants.1.fault_rate_per_h\": %d}", 720);
    const double *t = res_t(&r.s[0], 1);
    CU_ASSERT(t[TM_FAILED] > 0);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_ARRIVED], t[TM_COMPLETED] + t[TM_FAILED], 0);
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * TensorRT-LLM's published A100 FP16 throughput of static LLaMA 7B batches (docs/llm.md,
 * "Published measurements"): B requests at t = 0 prefill in one step and decode in lock-step,
 * so every request's latency is the batch's makespan and the throughput B × output / latency.
 * Nothing is fitted to these figures; the check is that the roofline lands within a factor 1.5
 * of each (it gives 0.99 to 1.20 of them).
 */
static void test_published_a100(void)
{
    static const struct {
        int batch, in, out;
        double measured;
    } rows[] = {
        {64, 128, 128, 3486}, {32, 128, 2048, 1459}, {32, 2048, 128, 529}, {16, 2048, 2048, 592}};
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("llmunit/static-a100.json"), &sc, &r);
    for (int k = 0; k < 4; k++) {
        const double *t = res_t(&r.s[0], k);
        CU_ASSERT_DOUBLE_EQUAL(t[TM_COMPLETED], rows[k].batch, 0);
        /* Lock-step: the batch finishes together (the histogram's 0.39 % bound). */
        TU_CHECK_CLOSE_REL(t[TM_LAT_P50], t[TM_LAT_MEAN], 0.0039);
        double tps = rows[k].batch * (double)rows[k].out / t[TM_LAT_MEAN];
        CU_ASSERT(tps / rows[k].measured > 1 / 1.5 && tps / rows[k].measured < 1.5);
    }
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * Under MIG: tenant a replays the requests of test_alone_by_hand in a 3g.40gb instance (42 of
 * 108 SMs, 4 of 8 memory slices), so each step is the roofline at those shares — by hand as
 * before — while b runs in a 4g.40gb beside it, isolated. The weights that do not fit a
 * 1g.10gb, a nested instance and a tenant in two instances are load errors.
 */
static void test_mig(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("llmunit/mig.json"), &sc, &r);
    const double f = 42.0 / 108, b = 4.0 / 8;
    static const long in[4] = {512, 100, 1, 2000}, out[4] = {32, 1, 1, 50};
    double ttft = 0, tpot = 0;
    for (int k = 0; k < 4; k++) {
        double dec = 0;
        ttft += step_at(&sc, 0, in[k], 0.003, f, b) / 4;
        for (long j = 1; j < out[k]; j++)
            dec += step_at(&sc, in[k] + j - 1, 1, 0.003, f, b);
        if (out[k] > 1)
            tpot += dec / (double)(out[k] - 1) / 2;
    }
    const double *m = r.s[0].llm;
    TU_CHECK_CLOSE_REL(m[LM_TTFT_MEAN], ttft, 1e-9);
    TU_CHECK_CLOSE_REL(m[LM_TPOT_MEAN], tpot, 1e-9);
    /* Decode is bandwidth bound: half the slices, about twice the whole GPU's TPOT. */
    double whole = 0;
    for (long j = 1; j < 32; j++)
        whole += step_s(&sc, 512 + j - 1, 1, 0) / 31;
    double half = 0;
    for (long j = 1; j < 32; j++)
        half += step_at(&sc, 512 + j - 1, 1, 0, f, b) / 31;
    CU_ASSERT(half / whole > 1.9 && half / whole < 2.1);
    CU_ASSERT(res_t(&r.s[0], 1)[TM_COMPLETED] > 0);
    CU_ASSERT(m[LM_N + LM_OUTPUT_TPS] > 0);
    run_result_free(&r);
    scn_free(&sc);
    /* Patched text loads from the working directory: the trace by its full path. */
    const char *csv = tu_fixture("llmunit/alone.csv");
    tu_expect_fixture_error("strategies[0].layout[0]: tenant \"a\": 13.48 GB of fp16 Llama-2-7B "
                            "weights do not fit the 1g.10gb instance's 9.75 GB (10.47 GB of 10⁹ "
                            "bytes × gpu_memory_utilization 0.9 = 9.42 GB)",
                            "llmunit/mig.json",
                            "{\"tenants.0.arrival.path\": \"%s\", "
                            "\"strategies.0.layout.0.profile\": \"1g.10gb\"}",
                            csv);
    tu_expect_fixture_error("strategies[0].layout[0].nested: tenant \"a\" is an LLM tenant",
                            "llmunit/mig.json",
                            "{\"tenants.0.arrival.path\": \"%s\", "
                            "\"strategies.0.layout.0.nested\": {\"kind\": \"timeslice\"}}",
                            csv);
    /* An LLM tenant in two instances is served by two engines behind its router
     * (tests/test_router.c), no longer an error. */
}

/* Runs scenario `json` beside trace `csv` (both written to the temporary directory) through the
 * binary: its exit code, and the first tenant of the first strategy in *t (a copy to free). */
static int run_llm_trace(const char *name, const char *json, const char *csv, cJSON **t, char *err,
                         size_t errlen)
{
    char jname[128], cname[128], args[1024];
    static char out[1 << 16];
    snprintf(cname, sizeof cname, "%s.csv", name);
    snprintf(jname, sizeof jname, "%s.json", name);
    tu_write(cname, csv);
    char *p = tu_write(jname, json);
    snprintf(args, sizeof args, "run '%s' --json - --quiet", p);
    int rc = tu_cli(args, out, sizeof out, err, errlen);
    *t = NULL;
    cJSON *doc = cJSON_Parse(out);
    if (doc) {
        cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0);
        *t = cJSON_Duplicate(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "tenants"), 0), 1);
        cJSON_Delete(doc);
    }
    return rc;
}

static double num_at(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Token counts of 2^31 and 2^32 + 1 in a trace row (issue 31): an int made the first a
 * negative prompt (an abort in ls_add, exit 134) and wrapped the second to 1 token (the run
 * "completed" a one-token request). Counts are 64-bit end to end: on Llama-2-7B's 111,248-token
 * cache both are refused on arrival and counted as failed, the other request completes; on a
 * cache that holds them (a tiny model, 2 bytes of KV a token) 2^32 + 1 tokens are prefilled,
 * which takes days of simulated time, not the milliseconds of one token. (Without the prefix
 * cache, which keeps an entry per full block a sequence holds: 2^28 of them here.) */
static void test_tokens_past_32_bits(void)
{
    static const char *const rows[] = {"2147483648,4", "4294967297,4", "1,2147483648",
                                       "1,4294967297"};
    char scn[1024], csv[256], err[4096];
    char *src = tu_slurp(tu_fixture("llmunit/alone.json"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    snprintf(scn, sizeof scn, "%s", src);
    free(src);
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        char *at = strstr(scn, "alone.csv");
        if (at)
            memcpy(at, "big31.csv", 9);
        snprintf(csv, sizeof csv, "time_s,input_tokens,output_tokens\n0,512,32\n10,%s\n", rows[k]);
        cJSON *t;
        CU_ASSERT_EQUAL(run_llm_trace("big31", scn, csv, &t, err, sizeof err), 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_DOUBLE_EQUAL(num_at(t, "arrived"), 2, 0);
        CU_ASSERT_DOUBLE_EQUAL(num_at(t, "completed"), 1, 0);
        CU_ASSERT_DOUBLE_EQUAL(num_at(t, "failed"), 1, 0);
        CU_ASSERT_DOUBLE_EQUAL(num_at(t, "in_flight"), 0, 0);
        cJSON_Delete(t);
    }
    static const char tiny[] =
        "{\"name\": \"llm-huge\", \"gpu\": \"A100-80GB\", \"gpus\": 1, \"seed\": 1, \"tenants\": "
        "[{\"name\": \"chat\", \"arrival\": {\"process\": \"trace\", \"path\": \"huge.csv\", "
        "\"format\": \"sharesim\"}, \"serving\": {\"engine\": \"llm\", \"step_model\": "
        "\"roofline\", \"model\": {\"name\": "
        "\"tiny\", \"params\": 1000, \"layers\": 1, \"hidden\": 8, \"intermediate\": 8, \"heads\": "
        "1, \"kv_heads\": 1, \"head_dim\": 1, \"vocab\": 8}, \"kv_dtype\": \"fp8\", "
        "\"max_batched_tokens\": 10000000, \"prefix_caching\": false}}], \"strategies\": "
        "[{\"name\": \"excl\", \"kind\": \"exclusive\"}]}";
    cJSON *t;
    CU_ASSERT_EQUAL(run_llm_trace("huge", tiny,
                                  "time_s,input_tokens,output_tokens\n0,4294967297,2\n", &t, err,
                                  sizeof err),
                    0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_DOUBLE_EQUAL(num_at(t, "completed"), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(num_at(t, "failed"), 0, 0);
    double ttft = num_at(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "llm"), "ttft_ms"), "mean");
    CU_ASSERT(ttft > 1e8); /* 430 chunks of 10^7 tokens, attention quadratic in the context */
    cJSON_Delete(t);
    CU_ASSERT_EQUAL(run_llm_trace("huge", tiny, "time_s,input_tokens,output_tokens\n0,1,2\n", &t,
                                  err, sizeof err),
                    0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ttft = num_at(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "llm"), "ttft_ms"), "mean");
    CU_ASSERT(ttft < 1); /* the same model on one token */
    cJSON_Delete(t);
    /* Beyond TR_TOKENS_MAX: refused at load, naming the file, line, column, field and bound. */
    CU_ASSERT_EQUAL(run_llm_trace("huge", tiny,
                                  "time_s,input_tokens,output_tokens\n0,1,2\n1,1099511627777,2\n",
                                  &t, err, sizeof err),
                    2);
    cJSON_Delete(t);
    TU_CHECK_CONTAINS(err, "huge.csv:3:3: field \"input_tokens\": expected a token count (integer "
                           ">= 0) of at most 1099511627776 (TR_TOKENS_MAX)");
}

void test_llmunit_register(void)
{
    static const struct tu_test t[] = {
        {"requests alone: TTFT, TPOT, ITL and latency by hand", test_alone_by_hand},
        {"a small cache: preemptions, every request conserved", test_small_cache},
        {"a plain tenant beside an LLM tenant keeps its figures", test_beside_plain},
        {"load errors name the path and the numbers", test_load_errors},
        {"JSON, CSV, table and --check-sla", test_outputs},
        {"a fault fails the engine's requests", test_faults},
        {"TensorRT-LLM's A100 static batches within a factor 1.5", test_published_a100},
        {"under MIG: the instance's shares by hand, load errors", test_mig},
        {"2^31 and 2^32 + 1 tokens: refused by a small cache, served by a large one",
         test_tokens_past_32_bits},
        {NULL, NULL},
    };
    tu_add_suite("llmunit", t);
}
