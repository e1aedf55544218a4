/*
 * tscpu: an LLM context's CPU phases under time-slicing (policy/units/tsunit.c,
 * docs/llm.md#serving-under-the-strategies). A step is its GPU part, served in the context's
 * slices, then its CPU part (the engine scheduling and preparing the next step), during which
 * the context is idle on the GPU: the slicer gives the GPU to another context with work, and
 * the engine's next step is ready when its CPU phase ends. The figures are written out by hand
 * from the roofline (docs/llm.md#step-time) and the switch model (docs/mps-vgpu.md): a switch
 * is 40 µs + 2 × 2.8 MB / 560 GB/s of state + the 62 µs refill of the A100-80GB's profile.
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

/* Llama-2-7B in FP16 on an A100-80GB: its parameters and KV bytes per token (docs/llm.md). */
#define P_LLAMA 6738415616.0
#define KV_PER_TOKEN 524288.0

/* The fixtures' numbers: the request (512 tokens in, 4 out), the CPU phase of every step (the
 * roofline's step_overhead_ms), the slice, the switch, the plain request's 1,000 ms of work
 * arriving 1 µs after the LLM request. */
#define IN_TOK 512
#define OUT_TOK 4
#define CPU_S 0.004
#define Q_S 0.010
#define SW_S (40e-6 + 2 * 2.8e6 / 560e9 + 62e-6)
#define PLAIN_W 1.0
#define PLAIN_AT 1e-6

/* One sequence's step of n_new tokens after past, on the whole GPU: the roofline's GPU part
 * max(FLOPs / (peak × 0.7), bytes / (bandwidth × 0.85)). */
static double gpu_part(long past, long n_new)
{
    double n = (double)n_new, p = (double)past;
    double flops = 2 * P_LLAMA * n + 4.0 * 32 * 32 * 128 * (n * p + n * (n + 1) / 2);
    double bytes = 2 * P_LLAMA + KV_PER_TOKEN * (p + n);
    return fmax(flops / (312e12 * 0.7), bytes / (2039e9 * 0.85));
}

/* The request's steps' GPU parts: the prefill, then a decode per further token. */
static void steps(double g[OUT_TOK])
{
    g[0] = gpu_part(0, IN_TOK);
    for (int k = 1; k < OUT_TOK; k++)
        g[k] = gpu_part(IN_TOK + k - 1, 1);
}

static double switches(struct strategy_result *x)
{
    cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(x->details, "gpus"), 0);
    return cJSON_GetObjectItem(g0, "switches")->valuedouble;
}

/*
 * Beside an always-busy plain context. The prefill's GPU part g0 = 31.9 ms runs in the LLM
 * context's slices (preempted three times, each a switch out, the plain slice q, a switch
 * back), so it ends at E0 = g0 + 3 (q + 2 sw). Its CPU phase follows: the LLM context is idle,
 * so the GPU switches to the plain context at once, whose slice starts at E + sw; the LLM
 * context is ready again at E + c (c = 4 ms < q), so that slice ends at E + sw + q, and the
 * next decode's GPU part (g < q, never preempted) runs after a switch back:
 * E_k = E_(k−1) + 2 sw + q + g_k. Token k is reported when step k's CPU phase ends, E_k + c.
 * During the last CPU phase the GPU switches to the plain context, which then runs alone: it
 * got 3 slices during the prefill and one per decode, so it ends at
 * E_3 + sw + (1 s − 6 q). Before the CPU phase was idle time, the LLM context held the GPU
 * through it (each step g + c in its slices): the plain request ended later.
 */
static void test_pair(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("tscpu/pair.json"), &sc, &r);
    double g[OUT_TOK], e[OUT_TOK];
    steps(g);
    CU_ASSERT(g[0] > 3 * Q_S && g[0] < 4 * Q_S);
    e[0] = g[0] + 3 * (Q_S + 2 * SW_S);
    for (int k = 1; k < OUT_TOK; k++) {
        CU_ASSERT(g[k] < Q_S && g[k] > CPU_S);
        e[k] = e[k - 1] + 2 * SW_S + Q_S + g[k];
    }
    double ttft = e[0] + CPU_S, done = e[OUT_TOK - 1] + CPU_S;
    double tpot = (e[OUT_TOK - 1] - e[0]) / (OUT_TOK - 1);
    double plain_end = e[OUT_TOK - 1] + SW_S + (PLAIN_W - (3 + OUT_TOK - 1) * Q_S);
    struct strategy_result *x = &r.s[0];
    TU_CHECK_CLOSE_REL(x->llm[LM_TTFT_MEAN], ttft, 1e-9);
    TU_CHECK_CLOSE_REL(x->llm[LM_TPOT_MEAN], tpot, 1e-9);
    TU_CHECK_CLOSE_REL(res_t(x, 0)[TM_LAT_MEAN], done, 1e-9);
    TU_CHECK_CLOSE_REL(res_t(x, 1)[TM_LAT_MEAN], plain_end - PLAIN_AT, 1e-9);
    /* 3 preemptions × 2 switches, 2 per decode (out in its predecessor's CPU phase, back),
     * and the last one to the plain context. */
    CU_ASSERT_DOUBLE_EQUAL(switches(x), 6 + 2 * (OUT_TOK - 1) + 1, 0);
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * Alone on the GPU the context never switches: a step lasts its GPU part then its CPU part, as
 * before (TTFT g0 + c, each token g_k + c later). With an idle plain context beside it whose
 * one request comes after the LLM request is done, one switch in all: none in a CPU phase
 * (the LLM context is the last one that ran when it is ready again). The GPU is busy for the
 * GPU parts only: before, the CPU phases counted as busy time too.
 */
static void test_alone(void)
{
    double g[OUT_TOK], t = 0, gpu = 0;
    steps(g);
    for (int k = 0; k < OUT_TOK; k++) {
        t += g[k] + CPU_S;
        gpu += g[k];
    }
    double tpot = (t - g[0] - CPU_S) / (OUT_TOK - 1);
    for (int pass = 0; pass < 2; pass++) {
        struct scenario sc;
        struct run_result r;
        if (pass == 0)
            tu_run_file(tu_fixture("tscpu/alone.json"), &sc, &r);
        else
            tu_run_fixture(&sc, &r, "tscpu/pair.json",
                           "{\"tenants.0.arrival.path\": \"%s\", \"tenants.1.arrival\": "
                           "{\"process\": \"trace\", \"path\": \"%s\", \"format\": "
                           "\"sharesim\", \"time_scale\": 500000}}",
                           tu_fixture("tscpu/one.csv"), tu_fixture("tscpu/plain-late.csv"));
        struct strategy_result *x = &r.s[0];
        TU_CHECK_CLOSE_REL(x->llm[LM_TTFT_MEAN], g[0] + CPU_S, 1e-12);
        TU_CHECK_CLOSE_REL(x->llm[LM_TPOT_MEAN], tpot, 1e-12);
        TU_CHECK_CLOSE_REL(res_t(x, 0)[TM_LAT_MEAN], t, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(switches(x), pass, 0);
        if (pass == 1) { /* the plain request, at 0.5 s, alone */
            TU_CHECK_CLOSE_REL(res_t(x, 1)[TM_LAT_MEAN], SW_S + PLAIN_W, 1e-9);
            /* The window ends with the arrivals, at 0.5 s: the GPU was busy for the steps'
             * GPU parts only (it idles in the CPU phases). */
            TU_CHECK_CLOSE_REL(x->m[SM_UTIL], gpu / 0.5, 1e-9);
        }
        run_result_free(&r);
        scn_free(&sc);
    }
}

/* Every request arrived is completed, failed, rejected or still in flight. */
static void check_conserved(struct strategy_result *x)
{
    for (int i = 0; i < x->n_tenants; i++) {
        const double *t = res_t(x, i);
        CU_ASSERT_DOUBLE_EQUAL(
            t[TM_ARRIVED], t[TM_COMPLETED] + t[TM_FAILED] + t[TM_REJECTED] + t[TM_IN_FLIGHT], 0);
    }
}

/*
 * Faults that land in CPU phases: the engine's steps are 20 ms of CPU each and a few ms of
 * GPU, so most of the time the LLM context is between its GPU parts, and a fault of its tenant
 * (one a second) mostly finds it there. It fails every request the engine holds (none is left
 * behind in the dead engine), and the context serves again at its next arrival. With the
 * context releasing the GPU at once or holding its slice; tenant faults and card faults.
 */
static void test_faults(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("tscpu/faults.json"), &sc, &r);
    CU_ASSERT_EQUAL_FATAL(r.n, 2);
    for (int k = 0; k < r.n; k++) {
        check_conserved(&r.s[k]);
        CU_ASSERT(res_t(&r.s[k], 1)[TM_FAILED] > 0);
        CU_ASSERT(res_t(&r.s[k], 1)[TM_COMPLETED] > 0);
        CU_ASSERT(res_t(&r.s[k], 0)[TM_COMPLETED] > 300);
    }
    run_result_free(&r);
    scn_free(&sc);
    tu_run_fixture(&sc, &r, "tscpu/faults.json",
                   "{\"tenants.0.fault_rate_per_h\": 0, \"tenants.1.fault_rate_per_h\": 0, "
                   "\"gpu_fault_rate_per_h\": 3600}");
    for (int k = 0; k < r.n; k++) {
        check_conserved(&r.s[k]);
        CU_ASSERT(res_t(&r.s[k], 1)[TM_FAILED] > 0);
        CU_ASSERT(res_t(&r.s[k], 1)[TM_COMPLETED] > 0);
    }
    run_result_free(&r);
    scn_free(&sc);
}

/* Two runs of the faults scenario give the same JSON, to the byte. */
static void test_deterministic(void)
{
    const char *p = tu_fixture("tscpu/faults.json");
    char args[600], a[1 << 15], b[1 << 15], err[2048];
    snprintf(args, sizeof args, "run '%s' --json - --quiet", p);
    CU_ASSERT_EQUAL_FATAL(tu_cli(args, a, sizeof a, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(tu_cli(args, b, sizeof b, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT(strstr(a, "\"ts-hold\"") != NULL);
}

void test_tscpu_register(void)
{
    static const struct tu_test t[] = {
        {"beside a busy context: the other runs in the CPU phases, by hand", test_pair},
        {"alone: a step is its GPU part then its CPU part, no switch", test_alone},
        {"faults in the CPU phases: no request vanishes", test_faults},
        {"deterministic", test_deterministic},
        {NULL, NULL},
    };
    tu_add_suite("tscpu", t);
}
