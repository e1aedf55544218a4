/*
 * llmbatch: requests that arrive at the same instant at an idle engine are scheduled together
 * (docs/llm.md#simultaneous-arrivals), under every strategy that serves an LLM tenant — an
 * engine on a fixed share (exclusive, a MIG instance), an MPS client, a time-sliced context, a
 * time-sliced vGPU VM. vLLM's loop takes every request that has arrived when it builds its
 * next step, so eight requests of 512 + 128 tokens at t = 0 make one prefill step of 8 × 512
 * tokens and then 127 decode steps of batch 8 in lock-step: every TTFT is the prefill step's
 * roofline time, every latency that plus the 127 decode steps, all written out here from the
 * documented formulas (docs/llm.md#step-time). Around it: a second group at 5 ms (mid-step: it
 * joins the next step) and at 5 s (the engine idle again), a simultaneous arrival the engine
 * refuses (its prompt is over the token budget) that leaves the step to begin, and requests
 * and tokens conserved: every first token and every inter-token gap counted. Under time-slicing
 * the wait for the step changes neither the context picked nor the switches paid.
 */
#include "core/engine.h"
#include "core/llmstats.h"
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"

#include <cJSON.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Llama-2-7B in FP16 on an A100-80GB: its parameters, KV bytes per token (2 × 32 layers × 32
 * KV heads × 128 × 2 bytes), attention FLOPs per pair (4 × 32 layers × 32 heads × 128), the
 * fp16 peak and bandwidth at the shipped efficiencies 0.70 and 0.85. */
#define P_LLAMA 6738415616.0
#define KV_PER_TOKEN 524288.0
#define ATTN_PER_PAIR (4.0 * 32 * 32 * 128)
#define PEAK (312e12 * 0.70)
#define BW (2039e9 * 0.85)

/* A step of `seqs` sequences each computing n_new tokens after past, on shares (f, b). */
static double step_s(int seqs, long past, long n_new, double f, double b)
{
    double n = (double)n_new, p = (double)past;
    double flops = seqs * (2 * P_LLAMA * n + ATTN_PER_PAIR * (n * p + n * (n + 1) / 2));
    double bytes = 2 * P_LLAMA + seqs * KV_PER_TOKEN * (p + n);
    return fmax(flops / PEAK / f, bytes / BW / b);
}

/* The strategies of llmbatch/batch8.json and the shares each gives the engine, alone on the
 * GPU: a 3g.40gb instance has 42 of 108 SMs and 4 of 8 memory slices; MPS alone gives every SM
 * and C(1) = 1 of the bandwidth; a time-sliced context alone never switches; a time-sliced
 * vGPU runs at the hypervisor's speeds, 1 − 0.026 on compute and 1 − 0.16 on memory (the
 * A100-80GB profile's vgpu_overhead_compute and _memory). */
static const struct {
    const char *name;
    double f, b;
} strategies[] = {
    {"excl", 1, 1}, {"mig", 42.0 / 108, 4.0 / 8},  {"mps", 1, 1},
    {"ts", 1, 1},   {"vgpu", 1 - 0.026, 1 - 0.16},
};
#define N_STRAT (int)(sizeof strategies / sizeof strategies[0])

/* One group of 8 × (512 + 128) at shares (f, b): its prefill step and the 127 decode steps
 * after it, the j-th at a context of 512 + j − 1. */
static void group_s(double f, double b, double *prefill, double *decode)
{
    *prefill = step_s(8, 0, 512, f, b);
    *decode = 0;
    for (long j = 1; j <= 127; j++)
        *decode += step_s(8, 512 + j - 1, 1, f, b);
}

/* Replication 0 of strategy k run to its end, for the exact extremes and counts (core/stats.h
 * keeps min and max exactly). */
struct figures {
    long arrived, completed, failed;
    double ttft_min, ttft_max, lat_min, lat_max, wait_sum;
    uint64_t firsts, gaps; /* first tokens, inter-token gaps */
};

static struct figures run_named(const struct scenario *sc, int k, const char *name)
{
    struct sim s;
    char err[256];
    CU_ASSERT_STRING_EQUAL_FATAL(sc->strategies[k].name, name);
    eng_init(&s, sc, &sc->strategies[k], 0);
    CU_ASSERT_EQUAL_FATAL(eng_run(&s, err, sizeof err), 0);
    const struct tenant_rt *t = &s.ten[0];
    struct figures g = {t->st.arrived,    t->st.completed, t->st.failed,  t->llm->ttft.min,
                        t->llm->ttft.max, t->st.lat.min,   t->st.lat.max, t->st.sum_wait_s,
                        t->llm->ttft.n,   t->llm->itl.n};
    eng_free(&s);
    return g;
}

static struct figures run_strategy(const struct scenario *sc, int k)
{
    return run_named(sc, k, strategies[k].name);
}

/* Every request completed with all its tokens: a first token each and 127 gaps after it. */
static void check_conserved(const struct figures *g, long n)
{
    CU_ASSERT_EQUAL(g->completed, n);
    CU_ASSERT_EQUAL(g->arrived, g->completed + g->failed);
    CU_ASSERT_EQUAL(g->firsts, (uint64_t)n);
    CU_ASSERT_EQUAL(g->gaps, (uint64_t)n * 127);
}

static void test_batch8(void)
{
    struct scenario sc;
    tu_load_file(tu_fixture("llmbatch/batch8.json"), &sc);
    CU_ASSERT_EQUAL_FATAL(sc.n_strategies, N_STRAT);
    for (int k = 0; k < N_STRAT; k++) {
        double pre, dec;
        group_s(strategies[k].f, strategies[k].b, &pre, &dec);
        struct figures g = run_strategy(&sc, k);
        check_conserved(&g, 8);
        CU_ASSERT_EQUAL(g.failed, 0);
        /* One prefill step for all eight: each TTFT is it, each wait 0 (the step begins at
         * t = 0), and all end together after the 127 decode steps of batch 8. */
        TU_CHECK_CLOSE_REL(g.ttft_min, pre, 1e-9);
        TU_CHECK_CLOSE_REL(g.ttft_max, pre, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(g.wait_sum, 0, 0);
        TU_CHECK_CLOSE_REL(g.lat_min, pre + dec, 1e-9);
        TU_CHECK_CLOSE_REL(g.lat_max, pre + dec, 1e-9);
    }
    scn_free(&sc);
}

/*
 * Two groups of eight. At 5 ms the engine is mid-prefill (that step lasts 255 ms on the whole
 * GPU): the second group joins the scheduler and is the next step, a prefill of 8 × 512 only
 * (no chunked prefill), after which the sixteen decode in lock-step at the same contexts, the
 * j-th at 512 + j − 1 for both groups, and all end together. At 5 s the first group has ended
 * (1.42 s; 2.99 s in the instance): the second arrives at an idle engine again and is a batch
 * of its own, the same figures as the first.
 */
static void test_two_groups(void)
{
    for (int k = 0; k < N_STRAT; k++) {
        double f = strategies[k].f, b = strategies[k].b, pre, dec16 = 0, pre8, dec8;
        group_s(f, b, &pre8, &dec8);
        pre = step_s(8, 0, 512, f, b);
        for (long j = 1; j <= 127; j++)
            dec16 += step_s(16, 512 + j - 1, 1, f, b);
        struct scenario sc;
        struct run_result r;
        tu_run_fixture(&sc, &r, "llmbatch/batch8.json", "{\"tenants.0.arrival.path\": \"%s\"}",
                       tu_fixture("llmbatch/groups-5ms.csv"));
        run_result_free(&r);
        struct figures g = run_strategy(&sc, k);
        check_conserved(&g, 16);
        double end = 2 * pre + dec16;
        TU_CHECK_CLOSE_REL(g.ttft_min, pre, 1e-9);             /* the first group */
        TU_CHECK_CLOSE_REL(g.ttft_max, 2 * pre - 0.005, 1e-9); /* the second */
        TU_CHECK_CLOSE_REL(g.lat_max, end, 1e-9);
        TU_CHECK_CLOSE_REL(g.lat_min, end - 0.005, 1e-9);
        scn_free(&sc);

        tu_run_fixture(&sc, &r, "llmbatch/batch8.json", "{\"tenants.0.arrival.path\": \"%s\"}",
                       tu_fixture("llmbatch/groups-5s.csv"));
        run_result_free(&r);
        g = run_strategy(&sc, k);
        check_conserved(&g, 16);
        TU_CHECK_CLOSE_REL(g.ttft_min, pre8, 1e-9);
        TU_CHECK_CLOSE_REL(g.ttft_max, pre8, 1e-9);
        TU_CHECK_CLOSE_REL(g.lat_min, pre8 + dec8, 1e-9);
        TU_CHECK_CLOSE_REL(g.lat_max, pre8 + dec8, 1e-9);
        scn_free(&sc);
    }
}

/*
 * A simultaneous arrival the engine refuses: two requests of 9,000 prompt tokens among the
 * eight at t = 0 (the fifth and the last), over the 8,192-token budget without chunked prefill
 * (vLLM's limit, docs/llm.md#scheduler), fail as the engine takes them: that is how an LLM
 * tenant's arrival is turned away (its queue_limit never rejects one while its engine takes
 * every request, the queue being empty at each arrival). The last arrival of the instant being
 * refused, the begin timer still fires, and the eight run exactly as without the two.
 */
static void test_refused(void)
{
    for (int k = 0; k < N_STRAT; k++) {
        double pre, dec;
        group_s(strategies[k].f, strategies[k].b, &pre, &dec);
        struct scenario sc;
        struct run_result r;
        tu_run_fixture(&sc, &r, "llmbatch/batch8.json", "{\"tenants.0.arrival.path\": \"%s\"}",
                       tu_fixture("llmbatch/refused.csv"));
        CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[k], 0)[TM_FAILED], 2, 0);
        run_result_free(&r);
        struct figures g = run_strategy(&sc, k);
        CU_ASSERT_EQUAL(g.arrived, 10);
        CU_ASSERT_EQUAL(g.failed, 2);
        check_conserved(&g, 8);
        TU_CHECK_CLOSE_REL(g.ttft_min, pre, 1e-9);
        TU_CHECK_CLOSE_REL(g.ttft_max, pre, 1e-9);
        TU_CHECK_CLOSE_REL(g.lat_max, pre + dec, 1e-9);
        scn_free(&sc);
    }
}

/*
 * Deferring the step does not change what the time-slicer does at that instant. The batch of
 * eight and a plain context's one 5 ms compute request all arrive at t = 0, the LLM tenant's
 * first: its context is picked (the GPU's first, no switch) and holds the GPU until its begin
 * timer, so the plain arrival finds it running and waits for the slice's end at q = 10 ms, and
 * no switch is paid for the wait. The step of all eight runs [0, q), the plain request
 * [q + sw, q + sw + 5 ms), the step's rest after a switch back: it ends, with every TTFT, at
 * pre + 5 ms + 2 sw (sw = 40 µs + 2 × 2.8 MB / 560 GB/s + the 62 µs refill of the context
 * switched to), then 127 decode steps alone. Two switches in all.
 */
static void test_ts_pick(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("llmbatch/ts-plain.json"), &sc, &r);
    double pre, dec, sw = 40e-6 + 2 * 2.8e6 / 560e9 + 62e-6, q = 0.010, w = 0.005;
    group_s(1, 1, &pre, &dec);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 1)[TM_LAT_MEAN], q + sw + w, 1e-9);
    cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r.s[0].details, "gpus"), 0);
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(g0, "switches")->valuedouble, 2, 0);
    run_result_free(&r);
    struct figures g = run_named(&sc, 0, "ts");
    check_conserved(&g, 8);
    TU_CHECK_CLOSE_REL(g.ttft_min, pre + w + 2 * sw, 1e-9);
    TU_CHECK_CLOSE_REL(g.ttft_max, pre + w + 2 * sw, 1e-9);
    TU_CHECK_CLOSE_REL(g.lat_max, pre + w + 2 * sw + dec, 1e-9);
    scn_free(&sc);
}

/* Every request arrives at t = 0, so the measurement window has no length: the table says "-"
 * for the rate and the KV time mean, as the JSON says null, never "nan" or a made-up 0 %. The
 * shipped reference workload with its serial front end off (through vLLM's, its eight requests
 * reach the engine 0.56 ms apart, docs/llm.md#engine-time). */
static void test_zero_window_table(void)
{
    char out[1 << 14], err[4096], cmd[1024];
    char *csv = tu_slurp("workloads/llm-reference-batch8.csv");
    char *sc = tu_slurp("workloads/llm-reference-exclusive.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
    tu_write("llm-reference-batch8.csv", csv);
    const char *key = "\"engine\": \"llm\",";
    char *at = strstr(sc, key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    size_t n = strlen(sc) + 64;
    char *patched = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(patched);
    snprintf(patched, n, "%.*s \"frontend_serial_ms\": 0,%s", (int)(at - sc + strlen(key)), sc,
             at + strlen(key));
    snprintf(cmd, sizeof cmd, "run '%s'", tu_write("llm-reference-exclusive.json", patched));
    free(patched);
    free(sc);
    free(csv);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 0);
    TU_CHECK_CONTAINS(out, " ms, - tokens/s, 0 preemptions, KV -\n");
    CU_ASSERT_PTR_NULL(strstr(out, " nan")); /* ("tenant" has the letters) */
}

void test_llmbatch_register(void)
{
    static const struct tu_test t[] = {
        {"8 x (512 + 128) at t = 0: one prefill step, 127 decode steps, under each strategy",
         test_batch8},
        {"two groups, at 0 and 5 ms (mid-step) and at 0 and 5 s (idle again)", test_two_groups},
        {"a refused simultaneous arrival leaves the step to begin", test_refused},
        {"time-slicing: the same context picked, no switch paid for the wait", test_ts_pick},
        {"a batch at one instant: the table has no rate, not nan", test_zero_window_table},
        {NULL, NULL},
    };
    tu_add_suite("llmbatch", t);
}
