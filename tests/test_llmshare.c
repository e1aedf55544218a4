/*
 * llmshare: LLM tenants under the sharing strategies (docs/llm.md#serving-under-the-strategies)
 * — MPS clients, time-sliced contexts, vGPU VMs — beside plain tenants. Every figure is written
 * out by hand from the documented formulas: a step is the roofline max(tc / f, tm / b) of its
 * compute part tc and memory part tm on the whole GPU (docs/llm.md#step-time) at the shares the
 * strategy gives it; under MPS a step whose busy set changes keeps the fraction done and runs
 * the rest at the new shares; under time-slicing and vGPU it runs only in its context's (VM's)
 * slices. KV capacities are the memory each strategy gives × gpu_memory_utilization − weights −
 * the activation reserve, in whole 16-token blocks, checked at the block: a request of exactly
 * the cache's tokens runs, one token more fails. Around it: requests and tokens conserved with
 * plain and LLM tenants mixed, the load errors, and the CLI on a small scenario per strategy.
 */
#include "core/llmstats.h"
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"

#include <cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Llama-2-7B in FP16 on an A100-80GB (docs/llm.md: the model table, the profile's peaks and
 * efficiencies 0.7 and 0.85). */
#define P_LLAMA 6738415616.0
#define KV_PER_TOKEN 524288.0 /* 2 × 32 layers × 32 KV heads × 128 × 2 bytes */
#define BLOCK_GB (16 * KV_PER_TOKEN * 1e-9)

/* The compute and memory parts, on the whole GPU, of one sequence's step of n_new tokens
 * after past. */
static void parts(long past, long n_new, double *tc, double *tm)
{
    double n = (double)n_new, p = (double)past;
    double flops = 2 * P_LLAMA * n + 4.0 * 32 * 32 * 128 * (n * p + n * (n + 1) / 2);
    double bytes = 2 * P_LLAMA + KV_PER_TOKEN * (p + n);
    *tc = flops / (312e12 * 0.7);
    *tm = bytes / (2039e9 * 0.85);
}

/* The step on shares (f, b), plus the overhead. */
static double step_at(long past, long n_new, double f, double b, double over)
{
    double tc, tm;
    parts(past, n_new, &tc, &tm);
    return fmax(tc / f, tm / b) + over;
}

/* The A100-80GB's bandwidth curve (its profile's mem_bw_sm_curve: through (0, 0), (14 SMs,
 * 0.25), (98, 1), (108, 1)) at a fraction f of its 108 SMs. */
static double curve(double f)
{
    double sms = f * 108;
    if (sms <= 14)
        return 0.25 * sms / 14;
    return sms >= 98 ? 1 : 0.25 + (sms - 14) / 84 * 0.75;
}

/* The requests of llmunit/alone.csv: their mean TTFT and TPOT at shares (f, b), 3 ms overhead. */
static void alone_figures(double f, double b, double *ttft, double *tpot, double *lat_max)
{
    static const long in[4] = {512, 100, 1, 2000}, out[4] = {32, 1, 1, 50};
    *ttft = *tpot = *lat_max = 0;
    for (int k = 0; k < 4; k++) {
        double t1 = step_at(0, in[k], f, b, 0.003), dec = 0;
        for (long j = 1; j < out[k]; j++)
            dec += step_at(in[k] + j - 1, 1, f, b, 0.003);
        *ttft += t1 / 4;
        if (out[k] > 1)
            *tpot += dec / (double)(out[k] - 1) / 2;
        *lat_max = fmax(*lat_max, t1 + dec);
    }
}

static void check_alone(struct strategy_result *r, double f, double b)
{
    double ttft, tpot, lat_max;
    alone_figures(f, b, &ttft, &tpot, &lat_max);
    const double *m = r->llm, *t = res_t(r, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_COMPLETED], 4, 0);
    TU_CHECK_CLOSE_REL(m[LM_TTFT_MEAN], ttft, 1e-9);
    TU_CHECK_CLOSE_REL(m[LM_TPOT_MEAN], tpot, 1e-9);
    TU_CHECK_CLOSE_REL(t[TM_LAT_P99], lat_max, 0.0039); /* the histogram's maximum */
    CU_ASSERT_DOUBLE_EQUAL(t[TM_WAIT_MEAN], 0, 0);
}

/* Strategy k of a result by name (the fixtures list them in a known order; the name checks it). */
static struct strategy_result *named(struct run_result *r, int k, const char *name)
{
    CU_ASSERT_FATAL(k < r->n);
    CU_ASSERT_STRING_EQUAL(r->s[k].name, name);
    return &r->s[k];
}

/*
 * Alone on the GPU, an LLM tenant is exclusive at its shares: as an MPS client with every
 * thread, shares (1, 1) and exactly exclusive's figures; capped at 50 % of the threads, the SM
 * share 0.5 and the bandwidth its 54 SMs pull, C(0.5) = 0.25 + 40/84 × 0.75.
 */
static void test_mps_alone(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("llmshare/alone.json"), &sc, &r);
    struct strategy_result *ex = named(&r, 0, "excl"), *mps = named(&r, 1, "mps");
    check_alone(ex, 1, 1);
    check_alone(mps, 1, 1);
    /* The same times, to rounding: MPS adds the overhead after the GPU part's end, exclusive
     * adds it to the step's time. */
    for (int k = 0; k < LM_N; k++)
        CU_ASSERT(fabs(ex->llm[k] - mps->llm[k]) <= 1e-12 * fabs(ex->llm[k]) ||
                  (isnan(ex->llm[k]) && isnan(mps->llm[k])));
    for (int k = 0; k < TM_N; k++) {
        double a = res_t(ex, 0)[k], b = res_t(mps, 0)[k];
        CU_ASSERT(fabs(a - b) <= 1e-12 * fabs(a) || (isnan(a) && isnan(b)));
    }
    check_alone(named(&r, 2, "mps-half"), 0.5, curve(0.5));
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * A rate change mid-step: the LLM tenant's 512-token prefill starts alone at t = 0 (d0 =
 * max(tc, tm), compute bound); at x = 10 ms a compute-class plain client becomes busy with
 * 1,000 ms of work. Two clients each ask for every SM: each gets 0.5; the LLM client's memory
 * weight is 1, the plain one's 0, so the LLM client's bandwidth is C(0.5) (nobody else pulls).
 * The prefill's remaining fraction 1 − x / d0 runs at the new shares: it ends at
 * T1 = x + (1 − x / d0) × max(tc / 0.5, tm / C(0.5)); the decode step then runs wholly at those
 * shares, T2 = T1 + max(tc' / 0.5, tm' / C(0.5)). The plain request runs at speed 0.5 until T2
 * and alone after: it ends at T2 + (1 − 0.5 (T2 − x)).
 */
static void test_mps_rate_change(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("llmshare/mps-rate.json"), &sc, &r);
    double tc, tm, tc1, tm1, x = 0.010, c = curve(0.5);
    parts(0, 512, &tc, &tm);
    parts(512, 1, &tc1, &tm1);
    CU_ASSERT(tc > tm); /* the prefill is compute bound, as the case says */
    double d0 = fmax(tc, tm);
    double t1 = x + (1 - x / d0) * fmax(tc / 0.5, tm / c);
    double t2 = t1 + fmax(tc1 / 0.5, tm1 / c);
    double plain_done = t2 + (1.0 - 0.5 * (t2 - x));
    const double *m = r.s[0].llm;
    TU_CHECK_CLOSE_REL(m[LM_TTFT_MEAN], t1, 1e-9);
    TU_CHECK_CLOSE_REL(m[LM_TPOT_MEAN], t2 - t1, 1e-9);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_LAT_MEAN], t2, 1e-9);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 1)[TM_LAT_MEAN], plain_done - x, 1e-9);
    run_result_free(&r);
    scn_free(&sc);
}

/* The cache of `mem_gb` at utilisation 0.9 with a 1 GB reserve: whole blocks. */
static long blocks_in(double mem_gb)
{
    return (long)floor((mem_gb * 0.9 - 2 * P_LLAMA * 1e-9 - 1.0) / BLOCK_GB);
}

/*
 * A scenario of one GPU: plain "embed" (memory_gb 20, one request), LLM tenants "a" (two
 * requests: exactly `blocks` blocks of tokens, then one token more) and "b" (one short
 * request), under the strategy `strategy`. Written to <tmpdir>/<file>.
 */
static char *kv_scenario(const char *file, long blocks, const char *strategy)
{
    char csv[64], rows[256], path[512];
    snprintf(csv, sizeof csv, "%s.csv", file);
    /* a's first request holds prompt + output = 16 × blocks tokens, its second one more. */
    snprintf(rows, sizeof rows, "time_s,input_tokens,output_tokens\n0,%ld,1\n100,%ld,1\n",
             16 * blocks - 1, 16 * blocks);
    tu_write(csv, rows);
    tu_write("kv-b.csv", "time_s,input_tokens,output_tokens\n0,10,2\n");
    tu_write("kv-embed.csv", "time_s,work_ms\n0,1\n");
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), csv);
    const char *serving =
        "\"serving\": {\"engine\": \"llm\", \"model\": \"Llama-2-7B\", \"dtype\": "
        "\"fp16\", \"activation_reserve_gb\": 1}";
    char *text = malloc(4096);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    snprintf(text, 4096,
             "{\"gpu\": \"A100-80GB\", \"gpus\": 1, \"seed\": 1, \"tenants\": ["
             "{\"name\": \"embed\", \"memory_gb\": 20, \"arrival\": {\"process\": \"trace\", "
             "\"path\": \"%s/kv-embed.csv\", \"format\": \"sharesim\"}, \"work\": {\"dist\": "
             "\"trace\"}},"
             "{\"name\": \"a\", \"arrival\": {\"process\": \"trace\", \"path\": \"%s\", "
             "\"format\": \"sharesim\"}, %s},"
             "{\"name\": \"b\", \"arrival\": {\"process\": \"trace\", \"path\": \"%s/kv-b.csv\", "
             "\"format\": \"sharesim\"}, %s}],"
             "\"strategies\": [%s]}",
             tu_tmpdir(), path, serving, tu_tmpdir(), serving, strategy);
    char *p = tu_write(file, text);
    free(text);
    return p;
}

/* Runs the KV scenario of `blocks` under `strategy`: a's completed and failed requests. */
static void kv_run(long blocks, const char *strategy, double *completed, double *failed)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(kv_scenario("kv.json", blocks, strategy), &sc, &r);
    *completed = res_t(&r.s[0], 1)[TM_COMPLETED];
    *failed = res_t(&r.s[0], 1)[TM_FAILED];
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 2)[TM_COMPLETED], 1, 0); /* b */
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 0)[TM_COMPLETED], 1, 0); /* embed */
    run_result_free(&r);
    scn_free(&sc);
}

/* The cache holds exactly `blocks` blocks: a request of that many fits, one token more not. */
static void check_kv(long blocks, const char *strategy)
{
    double done, failed;
    kv_run(blocks, strategy, &done, &failed);
    CU_ASSERT_DOUBLE_EQUAL(done, 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(failed, 1, 0);
    /* and a cache one block smaller would refuse both: the count is the cache's. */
    kv_run(blocks + 1, strategy, &done, &failed);
    CU_ASSERT_DOUBLE_EQUAL(done, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(failed, 2, 0);
}

/*
 * MPS's KV capacity: without limits the two LLM clients split what the plain client's 20 GB
 * leave, 30 GB each; with a's pinned limit of 30 GB, b gets 80 − 20 − 30 = 30 GB too; with a
 * limit of 25 GB, a's cache is that of 25 GB. Weights over a limit are a load error naming it.
 */
static void test_mps_kv(void)
{
    check_kv(blocks_in(30), "{\"name\": \"m\", \"kind\": \"mps\"}");
    check_kv(blocks_in(30),
             "{\"name\": \"m\", \"kind\": \"mps\", \"pinned_memory_gb\": {\"a\": 30}}");
    check_kv(blocks_in(25),
             "{\"name\": \"m\", \"kind\": \"mps\", \"pinned_memory_gb\": {\"a\": 25}}");
    char *p =
        kv_scenario("kv-err.json", 10,
                    "{\"name\": \"m\", \"kind\": \"mps\", \"pinned_memory_gb\": {\"a\": 12}}");
    tu_expect_run_error(p, "strategies[0]: tenant \"a\": 13.48 GB of fp16 Llama-2-7B weights do "
                           "not fit its 12 GB limit (× gpu_memory_utilization 0.9 = 10.80 GB)");
    p = kv_scenario("kv-err.json", 10,
                    "{\"name\": \"m\", \"kind\": \"mps\", \"pinned_memory_gb\": {\"a\": 70}}");
    tu_expect_run_error(p, "strategies[0]: MPS clients on GPU 0 need 90 GB together (20 GB of "
                           "plain tenants' memory_gb, 70 GB of LLM tenants' limits), a A100-80GB "
                           "has 80 GB");
    p = kv_scenario("kv-err.json", 10,
                    "{\"name\": \"m\", \"kind\": \"mps\", \"pinned_memory_gb\": {\"embed\": 10}}");
    tu_expect_run_error(p, "strategies[0].pinned_memory_gb.embed: tenant \"embed\" needs 20 GB "
                           "(memory_gb), more than its 10 GB limit");
}

/*
 * Time-slicing: alone, a context never switches and is exclusive (same figures). Against an
 * always-busy plain context (1,000 ms of compute work from t = 1 µs) in q = 10 ms slices, the
 * LLM tenant's one step of d = max(tc, tm) = 31.9 ms (a 512-token prefill) runs in its own
 * slices only: preempted k = 3 times, each costing a switch out, the other's slice and a switch
 * back, so it ends at d + 3 (q + 2 sw), sw = 40 µs + 2 × 2.8 MB / 560 GB/s (the profile's
 * context state and save/restore bandwidth, docs/scenario.md#timeslice). The plain request
 * then gets the GPU after one more switch and ends at T + sw + (1 s − 3 q).
 */
static void test_ts_slices(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("llmshare/alone.json"), &sc, &r);
    struct strategy_result *ex = named(&r, 0, "excl"), *ts = named(&r, 3, "ts");
    check_alone(ts, 1, 1);
    for (int k = 0; k < LM_N; k++)
        CU_ASSERT(ex->llm[k] == ts->llm[k] || (isnan(ex->llm[k]) && isnan(ts->llm[k])));
    run_result_free(&r);
    scn_free(&sc);

    tu_run_file(tu_fixture("llmshare/ts-slice.json"), &sc, &r);
    double tc, tm, q = 0.010, sw = 40e-6 + 2 * 2.8e6 / 560e9;
    parts(0, 512, &tc, &tm);
    double d = fmax(tc, tm);
    CU_ASSERT(d > 3 * q && d < 4 * q);
    double t_llm = d + 3 * (q + 2 * sw), t_plain = t_llm + sw + (1.0 - 3 * q);
    TU_CHECK_CLOSE_REL(r.s[0].llm[LM_TTFT_MEAN], t_llm, 1e-9);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_LAT_MEAN], t_llm, 1e-9);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 1)[TM_LAT_MEAN], t_plain - 1e-6, 1e-9);
    /* 3 preemptions × 2 switches, and the last one to the plain context. */
    cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r.s[0].details, "gpus"), 0);
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(g0, "switches")->valuedouble, 7, 0);
    run_result_free(&r);
    scn_free(&sc);
}

/* Time-slicing's KV capacity: what is free on the GPU after the plain tenant's 20 GB, split
 * between the two LLM tenants: 30 GB each. "oom": "simulate" does not apply to an engine. */
static void test_ts_kv(void)
{
    check_kv(blocks_in(30), "{\"name\": \"t\", \"kind\": \"timeslice\"}");
    char *p = kv_scenario("kv-err.json", 10,
                          "{\"name\": \"t\", \"kind\": \"timeslice\", \"oom\": \"simulate\"}");
    tu_expect_run_error(p, "strategies[0].oom: \"simulate\" does not apply to LLM tenant \"a\"");
    /* With 75 GB of plain memory, the two LLM tenants get 2.5 GB each: the weights do not fit. */
    p = kv_scenario("kv-err.json", 10, "{\"name\": \"t\", \"kind\": \"timeslice\"}");
    char *text = tu_slurp_in(tu_tmpdir(), "kv-err.json");
    char *at = strstr(text, "\"memory_gb\": 20");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    memcpy(at, "\"memory_gb\": 75", 15);
    p = tu_write("kv-err.json", text);
    free(text);
    tu_expect_run_error(p, "strategies[0]: tenant \"a\": 13.48 GB of fp16 Llama-2-7B weights do "
                           "not fit the 2.50 GB it gets on GPU 0 (the A100-80GB's 80 GB less 75 "
                           "GB of the others' memory, over 2 LLM tenants)");
}

void test_llmshare_register(void)
{
    static const struct tu_test t[] = {
        {"MPS: alone, exclusive at its shares", test_mps_alone},
        {"MPS: a rate change mid-step by hand", test_mps_rate_change},
        {"MPS: KV capacity from the pinned limit or the free split", test_mps_kv},
        {"time-slicing: alone, and one step preempted by hand", test_ts_slices},
        {"time-slicing: KV capacity of what is free", test_ts_kv},
        {NULL, NULL},
    };
    tu_add_suite("llmshare", t);
}
