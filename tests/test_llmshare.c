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
#include <unistd.h>

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
    /* The larger of the MIG bound (mem_bw_sm_curve) and f / knee (mem_bw_knee_sm_fraction). */
    double sms = f * 108, knee = fmin(1, f / 0.58);
    if (sms <= 14)
        return fmax(knee, 0.25 * sms / 14);
    return fmax(knee, sms >= 98 ? 1 : 0.25 + (sms - 14) / 84 * 0.75);
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

static const char *burst_path(void);

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
    /* The strategy's memory is in GiB; vLLM's non-torch allowance comes off too (serving.h). */
    const double gib = 1073741824e-9;
    return (long)floor((mem_gb * gib * 0.9 - 2 * P_LLAMA * 1e-9 - 1.0 - LSV_NON_TORCH_GIB * gib) /
                       BLOCK_GB);
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
    const char *serving = "\"serving\": {\"engine\": \"llm\", \"step_model\": \"roofline\", "
                          "\"model\": \"Llama-2-7B\", \"dtype\": "
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
    tu_expect_run_error(
        p,
        "strategies[0]: tenant \"a\": 13.48 GB of fp16 Llama-2-7B weights do "
        "not fit its 12 GB limit (12.88 GB of 10⁹ bytes × gpu_memory_utilization 0.9 = 11.60 GB)");
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
    double tc, tm, q = 0.010, sw = 40e-6 + 2 * 2.8e6 / 560e9 + 62e-6; /* + the refill */
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

/*
 * vGPU: alone on a time-sliced vGPU, a step runs at the hypervisor's speeds on its parts, the
 * roofline at shares (1 − 0.026, 1 − 0.16) (the profile's vgpu_overhead_compute and _memory);
 * on a MIG-backed 3g.40gb at the instance's shares (42 of 108 SMs, 4 of 8 memory slices).
 */
static void test_vgpu_alone(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("llmshare/alone.json"), &sc, &r);
    check_alone(named(&r, 4, "vgpu"), 1 - 0.026, 1 - 0.16);
    check_alone(named(&r, 5, "vgpu-mig"), 42.0 / 108, 4.0 / 8);
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * vGPU schedulers with three VMs (chat's one step, an always-busy plain VM from t = 1 µs, an
 * idle one), q = 10 ms slices, sw = 50 µs switches. The step lasts d = max(tc / 0.974,
 * tm / 0.84) = 32.8 ms at the hypervisor's speeds; chat's VM runs first, without a switch.
 * - equal_share: a cycle of N = 3 slots (one per vGPU, the idle VM's kept idle): chat gets q,
 *   then q − sw of each later slot of its own (the switch is taken out of it); d needs three
 *   more of them, so it ends at 3 N q + sw + (d − q − 2 (q − sw)) = d + 3 (N − 1) q + 3 sw.
 * - fixed_share: a cycle of the type's max_per_gpu = 4 slots (A100DX-20C), the one no vGPU
 *   owns idle: the same with N = 4.
 * - best_effort: round robin over the VMs with work (the idle one skipped), a switch each way:
 *   d + 3 (q + 2 sw), as time-slicing.
 */
static void test_vgpu_schedulers(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("llmshare/vgpu-slots.json"), &sc, &r);
    double tc, tm, q = 0.010, sw = 50e-6;
    parts(0, 512, &tc, &tm);
    double d = fmax(tc / 0.974, tm / 0.84);
    CU_ASSERT(d > q + 2 * (q - sw) && d <= q + 3 * (q - sw));
    const double want[3] = {d + 3 * 2 * q + 3 * sw, d + 3 * 3 * q + 3 * sw, d + 3 * (q + 2 * sw)};
    static const char *const names[3] = {"equal", "fixed", "best"};
    for (int k = 0; k < 3; k++) {
        struct strategy_result *x = named(&r, k, names[k]);
        TU_CHECK_CLOSE_REL(x->llm[LM_TTFT_MEAN], want[k], 1e-9);
        TU_CHECK_CLOSE_REL(res_t(x, 0)[TM_LAT_MEAN], want[k], 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(res_t(x, 1)[TM_COMPLETED], 1, 0);
    }
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * vGPU's KV capacity: the frame buffer of its type (A100DX-20C, 20 GB), whatever the other VMs
 * hold, or of its MIG instance. FP16 weights do not fit an A100DX-8C's 8 GB (the type that gives 10
 * vGPUs a GPU), an LLM tenant shares no VM, and runs on one GPU only.
 */
static void test_vgpu_kv(void)
{
    const char *vms = "{\"name\": \"v\", \"kind\": \"vgpu\", \"vgpus\": [{\"type\": "
                      "\"A100DX-20C\", \"tenants\": [\"embed\"]}, {\"type\": \"A100DX-20C\", "
                      "\"tenants\": [\"a\"]}, {\"type\": \"A100DX-20C\", \"tenants\": [\"b\"]}]}";
    check_kv(blocks_in(20), vms);
    /* MIG-backed: the frame buffer is the instance's memory, 19.5 GB for a 2g.20gb. */
    check_kv(blocks_in(19.5),
             "{\"name\": \"v\", \"kind\": \"vgpu\", \"backing\": \"mig\", \"vgpus\": "
             "[{\"profile\": \"3g.40gb\", \"tenants\": [\"embed\"]}, {\"profile\": "
             "\"2g.20gb\", \"tenants\": [\"a\"]}, {\"profile\": \"2g.20gb\", \"tenants\": "
             "[\"b\"]}]}");
    char *p =
        kv_scenario("kv-err.json", 10,
                    "{\"name\": \"v\", \"kind\": \"vgpu\", \"vgpus\": [{\"type\": "
                    "\"A100DX-8C\", \"tenants\": [\"embed\"]}, {\"type\": \"A100DX-8C\", "
                    "\"tenants\": [\"a\"]}, {\"type\": \"A100DX-8C\", \"tenants\": [\"b\"]}]}");
    tu_expect_run_error(p, "tenant \"embed\" needs 20 GB but this vGPU's frame buffer is 8 GB");
    p = kv_scenario("kv-err.json", 10,
                    "{\"name\": \"v\", \"kind\": \"vgpu\", \"vgpus\": [{\"type\": "
                    "\"A100DX-20C\", \"tenants\": [\"embed\"]}, {\"type\": \"A100DX-8C\", "
                    "\"tenants\": [\"a\"]}, {\"type\": \"A100DX-20C\", \"tenants\": [\"b\"]}]}");
    tu_expect_run_error(p, "strategies[0].vgpus[1]: tenant \"a\": 13.48 GB of fp16 Llama-2-7B "
                           "weights do not fit the A100DX-8C vGPU's 8 GB frame buffer (8.59 GB of "
                           "10⁹ bytes × gpu_memory_utilization 0.9 = 7.73 GB)");
    p = kv_scenario("kv-err.json", 10,
                    "{\"name\": \"v\", \"kind\": \"vgpu\", \"vgpus\": [{\"type\": "
                    "\"A100DX-8C\", \"tenants\": [\"embed\", \"b\"]}, {\"type\": "
                    "\"A100DX-8C\", \"tenants\": [\"a\"]}]}");
    tu_expect_run_error(p, "tenant \"embed\" needs 20 GB but this vGPU's frame buffer is 8 GB");
    /* The weights against the frame buffer (the plain tenant's memory made to fit). */
    char *text = tu_slurp_in(tu_tmpdir(), "kv-err.json");
    char *at = strstr(text, "\"memory_gb\": 20");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    memcpy(at, "\"memory_gb\": 02", 15);
    p = tu_write("kv-err.json", text);
    free(text);
    tu_expect_run_error(p, "strategies[0].vgpus[0]: LLM tenant \"b\" shares this VM with 1 other "
                           "tenant: an engine needs a vGPU of its own");
    p = kv_scenario("kv-err.json", 10,
                    "{\"name\": \"v\", \"kind\": \"vgpu\", \"vgpus\": [{\"type\": "
                    "\"A100DX-20C\", \"tenants\": [\"embed\"]}, {\"type\": \"A100DX-20C\", "
                    "\"tenants\": [\"a\", \"b\"]}]}");
    tu_expect_run_error(p, "LLM tenant \"a\" shares this VM with 1 other tenant");
    p = tu_fixture_write("kv-err.json", "llmshare/mixed.json",
                         "{\"tenants.0.memory_gb\": 5, \"tenants.1.arrival.path\": \"%s\", "
                         "\"strategies\": [{\"name\": "
                         "\"v\", \"kind\": \"vgpu\", \"vgpus\": [{\"type\": \"A100DX-8C\", "
                         "\"tenants\": [\"embed\"]}, {\"type\": \"A100DX-8C\", \"tenants\": "
                         "[\"chat\"]}]}]}",
                         burst_path());
    tu_expect_run_error(p, "strategies[0].vgpus[1]: tenant \"chat\": 13.48 GB of fp16 Llama-2-7B "
                           "weights do not fit the A100DX-8C vGPU's 8 GB frame buffer (8.59 GB of "
                           "10⁹ bytes × gpu_memory_utilization 0.2 = 1.72 GB)");
    /* A VM on each of several GPUs is an engine per GPU behind the tenant's router
     * (tests/test_router.c), no longer an error. */
}

/* The burst trace by its full path, for patched fixtures written elsewhere. */
static const char *burst_path(void)
{
    static char path[1024];
    char cwd[512];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    snprintf(path, sizeof path, "%s/%s", cwd, tu_fixture("llmshare/burst.csv"));
    return path;
}

/* Requests and tokens none vanish: every request of either tenant arrived is completed, failed
 * or in flight, and every completed chat request sampled its 50 tokens, no more (preempted
 * sequences recompute, they do not sample again), under every strategy. */
static void check_conserved(struct strategy_result *x, int want_preempt)
{
    for (int i = 0; i < 2; i++) {
        const double *t = res_t(x, i);
        CU_ASSERT_DOUBLE_EQUAL(
            t[TM_ARRIVED], t[TM_COMPLETED] + t[TM_FAILED] + t[TM_REJECTED] + t[TM_IN_FLIGHT], 0);
    }
    const double *t = res_t(x, 1), *m = x->llm + LM_N;
    CU_ASSERT_DOUBLE_EQUAL(t[TM_ARRIVED], 80, 0);
    if (t[TM_FAILED] == 0) {
        CU_ASSERT_DOUBLE_EQUAL(t[TM_COMPLETED], 80, 0);
        /* Every request completed inside the fixture's 8 s window: its tokens are 50 each.
         * Requests still running at the window's end sampled some tokens inside it too. */
        if (t[TM_THROUGHPUT] * 8 > 80 - 1e-9)
            TU_CHECK_CLOSE_REL(m[LM_OUTPUT_TPS], 50 * t[TM_THROUGHPUT], 1e-12);
        else
            CU_ASSERT(m[LM_OUTPUT_TPS] >= 50 * t[TM_THROUGHPUT] * (1 - 1e-12));
    }
    if (want_preempt)
        CU_ASSERT(m[LM_PREEMPTIONS] > 0);
    CU_ASSERT(res_t(x, 0)[TM_COMPLETED] > 300);
}

static void test_mixed_conserved(void)
{
    struct scenario sc;
    struct run_result r;
    const char *burst = tu_fixture("llmshare/burst.csv");
    tu_run_fixture(&sc, &r, "llmshare/mixed.json", "{\"tenants.1.arrival.path\": \"%s\"}", burst);
    check_conserved(named(&r, 0, "mps"), 1);
    check_conserved(named(&r, 1, "ts"), 1);
    run_result_free(&r);
    scn_free(&sc);
    /* vGPU: chat's 40 GB frame buffer at 0.35 holds about the cache 70 GB at 0.2 does. */
    tu_run_fixture(&sc, &r, "llmshare/mixed.json",
                   "{\"tenants.1.arrival.path\": \"%s\", "
                   "\"tenants.1.serving.gpu_memory_utilization\": 0.35, \"strategies\": ["
                   "{\"name\": \"v\", \"kind\": \"vgpu\", \"vgpus\": [{\"type\": "
                   "\"A100DX-40C\", \"tenants\": [\"embed\"]}, {\"type\": \"A100DX-40C\", "
                   "\"tenants\": [\"chat\"]}]}, {\"name\": \"vm\", \"kind\": \"vgpu\", "
                   "\"backing\": \"mig\", \"vgpus\": [{\"profile\": \"3g.40gb\", \"tenants\": "
                   "[\"embed\"]}, {\"profile\": \"4g.40gb\", \"tenants\": [\"chat\"]}]}]}",
                   burst);
    check_conserved(named(&r, 0, "v"), 1);
    check_conserved(named(&r, 1, "vm"), 1);
    run_result_free(&r);
    scn_free(&sc);
    /* Faults fail requests (an MPS fault every client's in flight, an engine's all it holds),
     * and still none vanishes. */
    tu_run_fixture(&sc, &r, "llmshare/mixed.json",
                   "{\"tenants.1.arrival.path\": \"%s\", \"tenants.1.fault_rate_per_h\": 3600, "
                   "\"tenants.0.fault_rate_per_h\": 3600}",
                   burst);
    for (int k = 0; k < 2; k++) {
        check_conserved(&r.s[k], 0);
        CU_ASSERT(res_t(&r.s[k], 1)[TM_FAILED] > 0);
    }
    run_result_free(&r);
    scn_free(&sc);
    /* Card faults: every engine on the card loses what it holds, serves again after the reset
     * (MPS, time-slicing, time-sliced vGPU); an engine in a MIG-backed vGPU is refused them. */
    const char *vms = "\"vgpus\": [{\"type\": \"A100DX-40C\", \"tenants\": [\"embed\"]}, "
                      "{\"type\": \"A100DX-40C\", \"tenants\": [\"chat\"]}]";
    tu_run_fixture(
        &sc, &r, "llmshare/mixed.json",
        "{\"tenants.1.arrival.path\": \"%s\", \"gpu_fault_rate_per_h\": 3600, "
        "\"tenants.1.serving.gpu_memory_utilization\": 0.385, \"strategies\": [{\"name\": "
        "\"mps\", \"kind\": \"mps\"}, {\"name\": \"ts\", \"kind\": \"timeslice\"}, "
        "{\"name\": \"v\", \"kind\": \"vgpu\", %s}]}",
        burst, vms);
    CU_ASSERT_EQUAL_FATAL(r.n, 3);
    for (int k = 0; k < 3; k++) {
        check_conserved(&r.s[k], 0);
        CU_ASSERT(res_t(&r.s[k], 1)[TM_FAILED] > 0);
        CU_ASSERT(res_t(&r.s[k], 1)[TM_COMPLETED] > 0);
    }
    run_result_free(&r);
    scn_free(&sc);
    tu_expect_fixture_error("LLM tenant \"chat\" on a MIG-backed vGPU: card faults",
                            "llmshare/mixed.json",
                            "{\"tenants.1.arrival.path\": \"%s\", \"gpu_fault_rate_per_h\": 1, "
                            "\"tenants.1.serving.gpu_memory_utilization\": 0.5, "
                            "\"strategies\": [{\"name\": \"vm\", \"kind\": \"vgpu\", "
                            "\"backing\": \"mig\", \"vgpus\": [{\"profile\": \"3g.40gb\", "
                            "\"tenants\": [\"embed\"]}, {\"profile\": \"4g.40gb\", "
                            "\"tenants\": [\"chat\"]}]}]}",
                            burst);
}

/* The CLI on the mixed scenario under every sharing strategy: each tenant row, the chat row
 * with its llm object. */
static void test_cli_per_strategy(void)
{
    char *p = tu_fixture_write(
        "llm-share-cli.json", "llmshare/mixed.json",
        "{\"tenants.1.arrival.path\": \"%s\", \"tenants.1.serving.gpu_memory_utilization\": "
        "0.5, \"strategies\": [{\"name\": \"mps\", \"kind\": \"mps\", \"thread_pct\": "
        "{\"embed\": 30}}, {\"name\": \"ts\", \"kind\": \"timeslice\"}, {\"name\": "
        "\"vgpu\", \"kind\": \"vgpu\", \"scheduler\": \"equal_share\", \"vgpus\": "
        "[{\"type\": \"A100DX-40C\", \"tenants\": [\"embed\"]}, {\"type\": "
        "\"A100DX-40C\", \"tenants\": [\"chat\"]}]}]}",
        burst_path());
    char args[1200], out[1 << 16], err[4096];
    snprintf(args, sizeof args, "run '%s' --json - --quiet", p);
    CU_ASSERT_EQUAL_FATAL(tu_cli(args, out, sizeof out, err, sizeof err), 0);
    cJSON *doc = cJSON_Parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    cJSON *sts = cJSON_GetObjectItem(doc, "strategies");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(sts), 3);
    const cJSON *st;
    cJSON_ArrayForEach(st, sts)
    {
        cJSON *ts = cJSON_GetObjectItem(st, "tenants");
        CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(cJSON_GetArrayItem(ts, 0), "llm"));
        cJSON *chat = cJSON_GetArrayItem(ts, 1), *llm = cJSON_GetObjectItem(chat, "llm");
        CU_ASSERT_PTR_NOT_NULL_FATAL(llm);
        CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(chat, "completed")->valuedouble, 80, 0);
        CU_ASSERT(cJSON_GetObjectItem(cJSON_GetObjectItem(llm, "ttft_ms"), "p99")->valuedouble > 0);
        CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(llm, "output_tokens_per_s")->valuedouble,
                               4000.0 / 8, 1e-9);
    }
    cJSON_Delete(doc);
    snprintf(args, sizeof args, "run '%s'", p);
    CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, err, sizeof err), 0);
    TU_CHECK_CONTAINS(out, "   llm: TTFT p50 ");
}

/*
 * The reference rows as LLM tenants (docs/llm.md#the-reference-table-as-llm-tenants). Time-
 * slicing ×4: while the four contexts decode side by side each instance's step takes four
 * exclusive steps and a switch per slice, 4 × exclusive TPOT × (q + sw) / q; an instance that
 * decodes while another is done or still prefilling gets more, so every instance's TPOT lies
 * between 4 × exclusive's and that. vGPU ×10 on A100DX-8C: FP16
 * weights do not load, FP8 ones load but no request fits the cache, int4 (the file) serves
 * every request.
 */
static void test_reference_rows(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file("workloads/llm-reference-exclusive.json", &sc, &r);
    double excl = r.s[0].llm[LM_TPOT_MEAN];
    run_result_free(&r);
    scn_free(&sc);
    tu_run_file("workloads/llm-reference-ts4.json", &sc, &r);
    double q = sc.gpu.timeslice_s, sw = 40e-6 + 2 * 2.8e6 / 560e9 + 62e-6; /* + the refill */
    CU_ASSERT_DOUBLE_EQUAL(sc.gpu.switch_s, 40e-6, 1e-12);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], i)[TM_COMPLETED], 8, 0);
        double tpot = r.s[0].llm[i * LM_N + LM_TPOT_MEAN];
        CU_ASSERT(tpot > 4 * excl && tpot <= 4 * excl * (q + sw) / q * (1 + 1e-6));
    }
    run_result_free(&r);
    scn_free(&sc);
    /* Patched as text, the file's batch (a trace beside it) is named from the repository root. */
    const char *vg = "../../workloads/llm-reference-vgpu10.json";
    char patch[2048], paths[1024];
    int n = 0;
    for (int i = 0; i < 10; i++)
        n += snprintf(paths + n, sizeof paths - (size_t)n,
                      "\"tenants.%d.arrival.path\": \"workloads/llm-reference-batch8.csv\", ", i);
    tu_expect_fixture_error("strategies[0].vgpus[0]: tenant \"inst-0\": 13.48 GB of fp16 "
                            "Llama-2-7B weights do not fit the A100DX-8C vGPU's 8 GB frame buffer",
                            vg, "{%s\"tenants.0.serving.dtype\": %s}", paths, "\"fp16\"");
    n = snprintf(patch, sizeof patch, "{%s", paths);
    for (int i = 0; i < 10; i++)
        n += snprintf(patch + n, sizeof patch - (size_t)n,
                      "%s\"tenants.%d.serving.dtype\": \"fp8\"", i ? ", " : "", i);
    snprintf(patch + n, sizeof patch - (size_t)n, "}");
    tu_run_fixture(&sc, &r, vg, "%s", patch);
    /* 8 GiB × 0.9 less 6.74 GB of weights leaves a cache of one or two 640-token requests: the
     * batch completes in waves, each request waiting for those before it. */
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], i)[TM_COMPLETED], 8, 0);
        const double *m = r.s[0].llm + i * LM_N;
        CU_ASSERT(m[LM_TTFT_P50] > 10 * m[LM_TPOT_P50]);
    }
    run_result_free(&r);
    scn_free(&sc);
    tu_run_file("workloads/llm-reference-vgpu10.json", &sc, &r);
    for (int i = 0; i < 10; i++)
        CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], i)[TM_COMPLETED], 8, 0);
    run_result_free(&r);
    scn_free(&sc);
}

/* The planner's shared candidates for an LLM tenant load and are simulated; its MPS candidate
 * gives the LLM client the device plugin's memory cap (80 GB / 2 replicas) as its limit. */
static void test_plan_candidates(void)
{
    char args[600];
    snprintf(args, sizeof args, "plan '%s'", tu_fixture("llmunit/mixed.json"));
    cJSON *doc = tu_cli_json(args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    int simulated[3] = {0, 0, 0};
    static const char *const kinds[3] = {"mps", "timeslice", "vgpu"};
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "candidates"))
    {
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(c, "kind"));
        const cJSON *st = cJSON_GetObjectItem(c, "strategy");
        for (int k = 0; k < 3; k++)
            if (kind && !strcmp(kind, kinds[k]) &&
                cJSON_IsTrue(cJSON_GetObjectItem(c, "simulated")))
                simulated[k]++;
        if (kind && !strcmp(kind, "mps")) {
            const cJSON *pm = cJSON_GetObjectItem(st, "pinned_memory_gb");
            CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(pm, "chat")), 40, 0);
            CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(pm, "embed"));
        }
    }
    for (int k = 0; k < 3; k++)
        CU_ASSERT(simulated[k] > 0);
    cJSON_Delete(doc);
}

void test_llmshare_register(void)
{
    static const struct tu_test t[] = {
        {"MPS: alone, exclusive at its shares", test_mps_alone},
        {"MPS: a rate change mid-step by hand", test_mps_rate_change},
        {"MPS: KV capacity from the pinned limit or the free split", test_mps_kv},
        {"time-slicing: alone, and one step preempted by hand", test_ts_slices},
        {"time-slicing: KV capacity of what is free", test_ts_kv},
        {"vGPU: alone, at the hypervisor's speeds and on a MIG-backed vGPU", test_vgpu_alone},
        {"vGPU: equal_share, fixed_share, best_effort by hand", test_vgpu_schedulers},
        {"vGPU: KV capacity of the frame buffer, load errors", test_vgpu_kv},
        {"plain and LLM tenants mixed: requests and tokens conserved", test_mixed_conserved},
        {"the CLI on a mixed scenario under each strategy", test_cli_per_strategy},
        {"the reference table's time-slicing and vGPU rows", test_reference_rows},
        {"plan: shared candidates for an LLM tenant", test_plan_candidates},
        {NULL, NULL},
    };
    tu_add_suite("llmshare", t);
}
