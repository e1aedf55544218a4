/*
 * router (policy/units/router.c): an LLM tenant with an engine in each of several MIG
 * instances or vGPUs, its arrivals handed to one engine by the router's policy
 * (docs/llm.md#replicas-behind-a-router). Against exact results: two engines of one sequence
 * each behind least_outstanding are one central FIFO queue of two servers, so a Poisson load
 * of near-exponential requests gives the M/M/2 mean (sim/core/analytic.h), and round robin
 * on the same arrivals does not; which replica serves each request by hand from the roofline
 * on unequal instances; requests conserved under faults and overload; the same bytes twice;
 * the MIG and vGPU loaders accepting the tenant, and the router key's errors. Under exclusive
 * (one engine per GPU), timeslice and MPS ("assign": {"chat": [0, 1]}, an engine on each GPU):
 * round robin against least_outstanding by a hand-computed schedule, round robin's split
 * exactly alternating, requests and tokens conserved, and the array's errors.
 */
#include "core/analytic.h"
#include "core/llmstats.h"
#include "core/run.h"
#include "core/scenario.h"
#include "mig/mig.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One LLM tenant "chat" (its arrival, tokens and serving extras given) under one strategy. */
static char *chat_scenario(const char *arrival, const char *tokens, const char *serving,
                           const char *top, const char *strategy)
{
    char *text = malloc(8192);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    /* tokens NULL: the trace's own columns */
    snprintf(
        text, 8192,
        "{\"name\": \"router\", \"gpu\": \"A100-80GB\", %s \"seed\": 1, \"tenants\": [{\"name\": "
        "\"chat\", \"arrival\": %s, \"serving\": {\"engine\": \"llm\", \"step_model\": "
        "\"roofline\", \"model\": \"Llama-2-7B\", \"dtype\": \"fp16\"%s}%s%s}], "
        "\"strategies\": [%s]}",
        top, arrival, serving, tokens ? ", \"tokens\": " : "", tokens ? tokens : "", strategy);
    return text;
}

static const char *const TWO_3G =
    "{\"name\": \"mig\", \"kind\": \"mig\", \"layout\": [{\"profile\": \"3g.40gb\", \"tenants\": "
    "[\"chat\"]}, {\"profile\": \"3g.40gb\", \"tenants\": [\"chat\"]}]}";

/* Mean latency (s), its CI half-width, and mean service (latency − wait) of policy's run. */
static void mm2_run(const char *policy, double rate, double *lat, double *ci, double *svc)
{
    char serving[160], arrival[96];
    snprintf(serving, sizeof serving, ", \"max_num_seqs\": 1, \"router\": {\"policy\": \"%s\"}",
             policy);
    snprintf(arrival, sizeof arrival, "{\"process\": \"poisson\", \"rate_per_s\": %g}", rate);
    /* Sanitized builds run a quarter of it: the replications' CI, which the check allows,
     * widens to match. */
    char top[160];
    snprintf(top, sizeof top,
             "\"gpus\": 1, \"replications\": 6, \"stop\": {\"duration_s\": %d}, "
             "\"warmup\": {\"duration_s\": 200},",
             tu_sanitized() ? 5000 : 20000);
    char *text = chat_scenario(arrival,
                               "{\"input\": {\"dist\": \"deterministic\", \"tokens\": 1}, "
                               "\"output\": {\"dist\": \"exponential\", \"mean\": 40}}",
                               serving, top, TWO_3G);
    struct scenario sc;
    struct run_result r;
    tu_run_text(text, &sc, &r);
    free(text);
    const double *t = res_t(&r.s[0], 0);
    *lat = t[TM_LAT_MEAN];
    *ci = r.s[0].t_ci[TM_LAT_MEAN];
    *svc = t[TM_LAT_MEAN] - t[TM_WAIT_MEAN];
    CU_ASSERT_EQUAL(t[TM_FAILED], 0);
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * Two 3g.40gb engines of max_num_seqs 1 behind least_outstanding: a request starts at once on
 * an idle engine, else waits at the router for the first to finish, so the system is M/G/2
 * with a central FIFO queue. A request is one prompt token and an exponential count of output
 * tokens (mean 40) of a nearly constant decode step, so its service is near-exponential and the
 * mean latency is the M/M/2 sojourn at that mean service, within the replications' CI (and
 * 1 %: the service's coefficient of variation is a little under 1). Round robin on the same
 * arrivals is two queues fed alternately, far slower at ρ ≈ 0.63.
 */
static void test_mm2(void)
{
    const double rate = 2.0;
    double lat, ci, svc;
    mm2_run("least_outstanding", rate, &lat, &ci, &svc);
    double expect = an_mmc_mean_sojourn_s(rate, 1 / svc, 2);
    CU_ASSERT(svc > 0.5 && svc < 0.8);
    CU_ASSERT(fabs(lat - expect) <= ci + 0.01 * expect);
    double lat_rr, ci_rr, svc_rr; /* measured: 1.31 s against 1.02 s */
    mm2_run("round_robin", rate, &lat_rr, &ci_rr, &svc_rr);
    CU_ASSERT(lat_rr > expect * 1.15);
    CU_ASSERT(fabs(svc_rr - svc) < 0.02 * svc); /* the same work, served elsewhere */
}

/* One decode-or-prefill step of one sequence alone on shares (f, b): the roofline. */
static double step_at(const struct scenario *sc, long past, long n_new, double f, double b)
{
    double P = sc->tenants[0].llm->model.params, n = (double)n_new, p = (double)past;
    double flops = 2 * P * n + 4.0 * 32 * 32 * 128 * (n * p + n * (n + 1) / 2);
    double bytes = 2 * P + 524288.0 * (p + n);
    const struct gpu_roof *r = &sc->gpu.roof;
    return fmax(flops / (312e12 * f * r->compute_eff), bytes / (2039e9 * b * r->bandwidth_eff));
}

/* A request of `in` prompt tokens and `out` output tokens alone on shares (f, b). */
static double alone_fb(const struct scenario *sc, double f, double b, long in, long out)
{
    double t = step_at(sc, 0, in, f, b);
    for (long j = 1; j < out; j++)
        t += step_at(sc, in + j - 1, 1, f, b);
    return t;
}

/* The same alone on MIG profile `prof`. */
static double alone_s(const struct scenario *sc, const char *prof, long in, long out)
{
    int k = mig_profile_index(&sc->gpu, prof);
    CU_ASSERT_FATAL(k >= 0);
    return alone_fb(sc, mig_compute_share(&sc->gpu, k), mig_memory_share(&sc->gpu, k), in, out);
}

/* The mean latency of four requests 10 s apart (each alone) on a 3g.40gb and a 2g.20gb engine
 * under policy; sc gets the loaded scenario. */
static double unequal_run(const char *policy, const char *trace, struct scenario *sc)
{
    char serving[128], arrival[256];
    snprintf(serving, sizeof serving, ", \"router\": {\"policy\": \"%s\"}", policy);
    snprintf(arrival, sizeof arrival,
             "{\"process\": \"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}", trace);
    char *text = chat_scenario(
        arrival, NULL, serving, "\"gpus\": 1, \"stop\": {\"duration_s\": 60},",
        "{\"name\": \"mig\", \"kind\": \"mig\", \"layout\": [{\"profile\": \"3g.40gb\", "
        "\"tenants\": [\"chat\"]}, {\"profile\": \"2g.20gb\", \"tenants\": [\"chat\"]}]}");
    struct run_result r;
    tu_run_text(text, sc, &r);
    free(text);
    double lat = res_t(&r.s[0], 0)[TM_LAT_MEAN];
    CU_ASSERT_EQUAL(res_t(&r.s[0], 0)[TM_COMPLETED], 4);
    run_result_free(&r);
    return lat;
}

/*
 * Which engine serves each request, by hand. Replica 0 is the 3g.40gb instance, replica 1 the
 * 2g.20gb one (the layout's order). Four requests 10 s apart, each finished before the next:
 * round robin sends the 1st and 3rd to replica 0 and the 2nd and 4th to replica 1; least_-
 * outstanding and least_kv find both idle and empty and take replica 0 (ties: the lowest index).
 * Then a long request at 0 and a short one at 0.1 s: least_outstanding sends the second to the
 * idle 2g.20gb; least_kv to the 3g.40gb, whose cache, holding the first, still has more free
 * blocks than the smaller instance's (the second then shares its steps: slower than alone on
 * the 3g.40gb).
 */
static void test_by_hand(void)
{
    char *trace = tu_write("rr.csv", "time_s,input_tokens,output_tokens\n0,200,20\n10,200,20\n"
                                     "20,200,20\n30,200,20\n");
    struct scenario sc;
    double rr = unequal_run("round_robin", trace, &sc);
    double a = alone_s(&sc, "3g.40gb", 200, 20), b = alone_s(&sc, "2g.20gb", 200, 20);
    scn_free(&sc);
    TU_CHECK_CLOSE_REL(rr, (a + b) / 2, 1e-6);
    TU_CHECK_CLOSE_REL(unequal_run("least_outstanding", trace, &sc), a, 1e-6);
    scn_free(&sc);
    TU_CHECK_CLOSE_REL(unequal_run("least_kv", trace, &sc), a, 1e-6);
    scn_free(&sc);

    trace = tu_write("kv.csv", "time_s,input_tokens,output_tokens\n0,200,400\n0.1,200,20\n"
                               "30,200,20\n40,200,20\n");
    double lo = unequal_run("least_outstanding", trace, &sc);
    double a_long = alone_s(&sc, "3g.40gb", 200, 400);
    scn_free(&sc);
    /* least_outstanding: the long one on replica 0, the short one alone on replica 1, the last
     * two (alone) on replica 0. */
    TU_CHECK_CLOSE_REL(lo, (a_long + b + 2 * a) / 4, 1e-6);
    double kv = unequal_run("least_kv", trace, &sc);
    scn_free(&sc);
    /* least_kv: the short one batched beside the long one on replica 0, slower than alone there
     * (its steps carry the long one's too) but not by much at batch 2. */
    double kv_short = 4 * kv - a_long - 2 * a;
    CU_ASSERT(kv_short > a * 1.0001 && kv_short < b);
}

/* Every request arrived is completed, failed, rejected or in flight: overload (both engines'
 * caches fill and preempt), faults of the tenant killing one engine at a time, three replicas
 * under each policy. */
static void test_conserved(void)
{
    static const char *const pol[] = {"least_outstanding", "round_robin", "least_kv"};
    for (int k = 0; k < 3; k++) {
        char serving[160];
        snprintf(serving, sizeof serving, ", \"max_num_seqs\": 8, \"router\": {\"policy\": \"%s\"}",
                 pol[k]);
        char *text = chat_scenario(
            "{\"process\": \"poisson\", \"rate_per_s\": 12}, \"fault_rate_per_h\": 120",
            "{\"input\": {\"dist\": \"exponential\", \"mean\": 2000}, \"output\": {\"dist\": "
            "\"exponential\", \"mean\": 300}}",
            serving, "\"gpus\": 1, \"stop\": {\"duration_s\": 300},",
            "{\"name\": \"mig\", \"kind\": \"mig\", \"layout\": [{\"profile\": \"2g.20gb\", "
            "\"tenants\": [\"chat\"]}, {\"profile\": \"2g.20gb\", \"tenants\": [\"chat\"]}, "
            "{\"profile\": \"3g.40gb\", \"tenants\": [\"chat\"]}]}");
        struct scenario sc;
        struct run_result r;
        tu_run_text(text, &sc, &r);
        free(text);
        const double *t = res_t(&r.s[0], 0);
        CU_ASSERT(t[TM_ARRIVED] > 3000);
        CU_ASSERT(t[TM_COMPLETED] > 0);
        CU_ASSERT(t[TM_FAILED] > 0);
        CU_ASSERT_EQUAL(t[TM_ARRIVED],
                        t[TM_COMPLETED] + t[TM_FAILED] + t[TM_REJECTED] + t[TM_IN_FLIGHT]);
        run_result_free(&r);
        scn_free(&sc);
    }
}

/* A vGPU VM on each of two GPUs: the loader takes it, and both engines serve (each GPU busy),
 * with requests conserved; then the same run twice through the CLI gives the same bytes. */
static void test_vgpu_and_bytes(void)
{
    static const char *const vgpu =
        "{\"name\": \"vgpu\", \"kind\": \"vgpu\", \"scheduler\": \"equal_share\", \"vgpus\": "
        "[{\"type\": \"A100DX-40C\", \"tenants\": [\"chat\"]}]}";
    char *text = chat_scenario("{\"process\": \"poisson\", \"rate_per_s\": 3}",
                               "{\"input\": {\"dist\": \"deterministic\", \"tokens\": 100}, "
                               "\"output\": {\"dist\": \"exponential\", \"mean\": 50}}",
                               ", \"router\": {\"policy\": \"round_robin\"}",
                               "\"gpus\": 2, \"stop\": {\"duration_s\": 200},", vgpu);
    struct scenario sc;
    struct run_result r;
    tu_run_text(text, &sc, &r);
    const double *t = res_t(&r.s[0], 0);
    CU_ASSERT(t[TM_COMPLETED] > 400);
    CU_ASSERT_EQUAL(t[TM_ARRIVED],
                    t[TM_COMPLETED] + t[TM_FAILED] + t[TM_REJECTED] + t[TM_IN_FLIGHT]);
    run_result_free(&r);
    scn_free(&sc);
    char *path = tu_write("vgpu2.json", text);
    free(text);
    char cmd[2048];
    char *out[2];
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "%s run %s --quiet --no-slowdown --json %s/bytes%d.json",
                 getenv("SHARESIM") ? getenv("SHARESIM") : "build/sharesim", path, tu_tmpdir(), k);
        CU_ASSERT_EQUAL(system(cmd), 0);
        char name[32];
        snprintf(name, sizeof name, "bytes%d.json", k);
        out[k] = tu_slurp_in(tu_tmpdir(), name);
    }
    CU_ASSERT_STRING_EQUAL(out[0], out[1]);
    CU_ASSERT_PTR_NOT_NULL(strstr(out[0], "\"completed\""));
    free(out[0]);
    free(out[1]);
}

/* ---- exclusive, timeslice, MPS: an engine per GPU behind the router ------------------- */

/* The three strategies with chat's engines on GPUs 0 and 1 (exclusive: its two GPUs). */
static const char *const WHOLE2[] = {
    "{\"name\": \"ex\", \"kind\": \"exclusive\"}",
    "{\"name\": \"ts\", \"kind\": \"timeslice\", \"assign\": {\"chat\": [0, 1]}}",
    "{\"name\": \"mps\", \"kind\": \"mps\", \"assign\": {\"chat\": [0, 1]}}",
};

/* Mean latency of chat replaying `trace` on two whole A100s under strategy, engines of
 * max_num_seqs 1 behind `policy`; every request completes. sc gets the loaded scenario. */
static double whole2_run(const char *strategy, const char *policy, const char *trace,
                         struct scenario *sc)
{
    char serving[160], arrival[256];
    snprintf(serving, sizeof serving, ", \"max_num_seqs\": 1, \"router\": {\"policy\": \"%s\"}",
             policy);
    snprintf(arrival, sizeof arrival,
             "{\"process\": \"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}", trace);
    char *text = chat_scenario(arrival, NULL, serving,
                               "\"gpus\": 2, \"stop\": {\"duration_s\": 60},", strategy);
    struct run_result r;
    tu_run_text(text, sc, &r);
    free(text);
    const double *t = res_t(&r.s[0], 0);
    CU_ASSERT_EQUAL(t[TM_COMPLETED], t[TM_ARRIVED]);
    double lat = t[TM_LAT_MEAN];
    run_result_free(&r);
    return lat;
}

/*
 * By hand, engines of one sequence each (a second request waits for the first), L the long
 * request's time alone on a whole GPU (200 prompt, 400 output tokens: about 3 s), s a short
 * one's (200, 20: about 0.15 s). A (long) at 0, B at 0.01, C at 0.02, D at 0.5 (short).
 * round_robin: A, C to engine 0 and B, D to engine 1; C waits out A: latencies L, s,
 * L + s − 0.02, s. least_outstanding: A to 0, B to 1; at 0.02 both hold their one sequence,
 * so C waits at the router and engine 1 takes it when B ends (0.01 + s); D finds engine 1 idle:
 * L, s, 2s − 0.01, s. The same under exclusive, a lone time-sliced context on each GPU (it
 * never switches) and a lone MPS client on each (its whole GPU).
 */
static void test_whole_by_hand(void)
{
    char *trace = tu_write("hand.csv", "time_s,input_tokens,output_tokens\n0,200,400\n"
                                       "0.01,200,20\n0.02,200,20\n0.5,200,20\n");
    for (int k = 0; k < 3; k++) {
        struct scenario sc;
        double rr = whole2_run(WHOLE2[k], "round_robin", trace, &sc);
        double L = alone_fb(&sc, 1, 1, 200, 400), s = alone_fb(&sc, 1, 1, 200, 20);
        scn_free(&sc);
        CU_ASSERT(L > 1 && s < 0.3);
        TU_CHECK_CLOSE_REL(rr, (2 * L + 3 * s - 0.02) / 4, 1e-6);
        double lo = whole2_run(WHOLE2[k], "least_outstanding", trace, &sc);
        scn_free(&sc);
        TU_CHECK_CLOSE_REL(lo, (L + 4 * s - 0.01) / 4, 1e-6);
    }
}

/*
 * Round robin's split, exactly alternating: six requests at one instant, long (L) or short (s)
 * in the order L s s s L s, on engines of one sequence each. Request i goes to engine i mod 2,
 * so engine 0 serves L, s, L one after another and engine 1 s, s, s: the latencies are the
 * running sums on each engine. least_outstanding on the same burst is one FIFO queue for both
 * engines, each request to whichever frees first: engine 1 takes the second long one after its
 * three short ones, and the last short one goes to engine 0. Both computed here by hand.
 */
static void test_rr_alternates(void)
{
    static const int is_long[] = {1, 0, 0, 0, 1, 0};
    enum { N = sizeof is_long / sizeof is_long[0] };
    char rows[512] = "time_s,input_tokens,output_tokens\n";
    for (int i = 0; i < N; i++)
        strcat(rows, is_long[i] ? "0,200,400\n" : "0,200,20\n");
    char *trace = tu_write("burst.csv", rows);
    for (int k = 0; k < 3; k++) {
        struct scenario sc;
        double rr = whole2_run(WHOLE2[k], "round_robin", trace, &sc);
        double L = alone_fb(&sc, 1, 1, 200, 400), s = alone_fb(&sc, 1, 1, 200, 20);
        scn_free(&sc);
        double end_rr[2] = {0, 0}, end_lo[2] = {0, 0}, sum_rr = 0, sum_lo = 0;
        for (int i = 0; i < N; i++) {
            double w = is_long[i] ? L : s;
            int e = end_lo[1] < end_lo[0]; /* the engine free first (never a tie here) */
            sum_rr += end_rr[i % 2] += w;
            sum_lo += end_lo[e] += w;
        }
        TU_CHECK_CLOSE_REL(rr, sum_rr / N, 1e-6);
        double lo = whole2_run(WHOLE2[k], "least_outstanding", trace, &sc);
        scn_free(&sc);
        TU_CHECK_CLOSE_REL(lo, sum_lo / N, 1e-6);
        CU_ASSERT(rr > lo * 1.1); /* L − 2s apart in sum: 4L + 8s against 3L + 10s */
    }
}

/* The three strategies with a plain tenant beside chat's replica on GPU 0 (exclusive: a GPU of
 * its own, 2), faults of chat, and card faults where the strategy models them for engines. */
static const char *const SHARED2[] = {
    "{\"name\": \"ex\", \"kind\": \"exclusive\", \"assign\": {\"chat\": [0, 1], \"vision\": "
    "[2]}}",
    "{\"name\": \"ts\", \"kind\": \"timeslice\", \"assign\": {\"chat\": [0, 1], \"vision\": 0}}",
    "{\"name\": \"mps\", \"kind\": \"mps\", \"assign\": {\"chat\": [1, 0], \"vision\": 0}}",
};

/* chat (two replicas, policy) and a plain tenant "vision" under strategy k of SHARED2. */
static void shared2_run(int k, const char *policy, const char *chat_extra, const char *top,
                        struct scenario *sc, struct run_result *r)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"name\": \"routerx\", \"gpu\": \"A100-80GB\", \"gpus\": 3, \"seed\": 5, %s "
             "\"tenants\": [{\"name\": \"chat\", %s, \"serving\": {\"engine\": \"llm\", "
             "\"step_model\": \"roofline\", \"model\": \"Llama-2-7B\", \"dtype\": \"fp16\", "
             "\"max_num_seqs\": 8, \"router\": {\"policy\": \"%s\"}}}, {\"name\": \"vision\", "
             "\"memory_gb\": 8, \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 20}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 10}}], \"strategies\": [%s]}",
             top, chat_extra, policy, SHARED2[k]);
    tu_run_text(text, sc, r);
}

/*
 * Every request conserved with two replicas under each strategy and router policy: overload
 * (the caches fill and preempt, least_outstanding holds requests at the router), chat's faults
 * killing one engine at a time, card faults under timeslice and MPS (a replica whose GPU
 * resets is out of the router's choice, and chat is unavailable only while both are down,
 * so more available than the plain tenant beside its replica on GPU 0). Then tokens: 80 requests of
 * 50 output tokens in the first 20 s of a 60 s run without faults all complete, and the run emits
 * 50 tokens for each.
 */
static void test_whole_conserved(void)
{
    static const char *const pol[] = {"least_outstanding", "round_robin", "least_kv"};
    double dur = tu_sanitized() ? 40 : 120;
    for (int k = 0; k < 3; k++)
        for (int p = 0; p < 3; p++) {
            char top[128];
            snprintf(top, sizeof top, "\"stop\": {\"duration_s\": %g}, %s", dur,
                     k ? "\"gpu_fault_rate_per_h\": 180," : "");
            struct scenario sc;
            struct run_result r;
            shared2_run(k, pol[p],
                        "\"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 20}, "
                        "\"fault_rate_per_h\": 720, \"tokens\": {\"input\": {\"dist\": "
                        "\"exponential\", \"mean\": 2000}, \"output\": {\"dist\": "
                        "\"exponential\", \"mean\": 300}}",
                        top, &sc, &r);
            for (int i = 0; i < 2; i++) {
                const double *t = res_t(&r.s[0], i);
                CU_ASSERT(t[TM_ARRIVED] > 10 * dur);
                CU_ASSERT_EQUAL(t[TM_ARRIVED],
                                t[TM_COMPLETED] + t[TM_FAILED] + t[TM_REJECTED] + t[TM_IN_FLIGHT]);
            }
            CU_ASSERT(res_t(&r.s[0], 0)[TM_COMPLETED] > 0);
            CU_ASSERT(res_t(&r.s[0], 0)[TM_FAILED] > 0);
            /* chat is down only while both its GPUs are; vision whenever GPU 0 is */
            double av_chat = res_t(&r.s[0], 0)[TM_AVAILABILITY];
            double av_vision = res_t(&r.s[0], 1)[TM_AVAILABILITY];
            CU_ASSERT(av_chat >= av_vision);
            if (k && av_vision < 1)
                CU_ASSERT(av_chat > av_vision);
            run_result_free(&r);
            scn_free(&sc);
        }
    char rows[4096] = "time_s,input_tokens,output_tokens\n", arrival[256];
    for (int i = 0; i < 80; i++)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), "%g,300,50\n", 0.25 * i);
    snprintf(arrival, sizeof arrival,
             "\"arrival\": {\"process\": \"trace\", \"path\": \"%s\", \"format\": "
             "\"sharesim\"}",
             tu_write("tokens.csv", rows));
    for (int k = 0; k < 3; k++) {
        struct scenario sc;
        struct run_result r;
        shared2_run(k, "round_robin", arrival, "\"stop\": {\"duration_s\": 60},", &sc, &r);
        const double *t = res_t(&r.s[0], 0), *m = r.s[0].llm;
        CU_ASSERT_EQUAL(t[TM_ARRIVED], 80);
        CU_ASSERT_EQUAL(t[TM_COMPLETED], 80);
        TU_CHECK_CLOSE_REL(m[LM_OUTPUT_TPS] * 60, 80 * 50, 1e-9);
        run_result_free(&r);
        scn_free(&sc);
    }
}

/* The array of GPUs is an LLM tenant's: its errors name the path and what was wrong. */
static void test_spread_errors(void)
{
    static const char *const bad[][2] = {
        {"{\"chat\": [0, 1], \"vision\": [1]}", "assign.vision: tenant \"vision\" is not an LLM"},
        {"{\"chat\": [0, 0], \"vision\": 1}", "assign.chat[1]: GPU 0 is listed twice"},
        {"{\"chat\": [], \"vision\": 1}", "assign.chat: expected a GPU index or a non-empty"},
        {"{\"chat\": [0, 2], \"vision\": 1}", "assign.chat[1]: expected a GPU index in [0, 1]"},
        {"{\"chat\": [0, 1]}", "\"vision\" is not"},
    };
    static const char *const kinds[] = {"timeslice", "mps"};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            char text[2048];
            snprintf(text, sizeof text,
                     "{\"name\": \"bad\", \"gpu\": \"A100-80GB\", \"gpus\": 2, \"stop\": "
                     "{\"duration_s\": 10}, \"tenants\": "
                     "[{\"name\": \"chat\", \"arrival\": {\"process\": \"poisson\", "
                     "\"rate_per_s\": 1}, \"serving\": {\"engine\": \"llm\", \"model\": "
                     "\"Llama-2-7B\"}, \"tokens\": {\"input\": {\"dist\": \"deterministic\", "
                     "\"tokens\": 10}, \"output\": {\"dist\": \"deterministic\", \"tokens\": "
                     "10}}}, {\"name\": \"vision\", \"memory_gb\": 8, \"arrival\": {\"process\": "
                     "\"poisson\", \"rate_per_s\": 1}, \"work\": {\"dist\": \"exponential\", "
                     "\"mean_ms\": 10}}], \"strategies\": [{\"name\": \"s\", \"kind\": \"%s\", "
                     "\"assign\": %s}]}",
                     kinds[k], bad[i][0]);
            tu_expect_load_error(text, bad[i][1]);
        }
}

/* The router key's errors name the path and what was expected. */
static void test_bad_router(void)
{
    char *text = chat_scenario("{\"process\": \"poisson\", \"rate_per_s\": 1}",
                               "{\"input\": {\"dist\": \"deterministic\", \"tokens\": 10}, "
                               "\"output\": {\"dist\": \"deterministic\", \"tokens\": 10}}",
                               ", \"router\": {\"policy\": \"random\"}", "\"gpus\": 1,", TWO_3G);
    tu_expect_load_error(text, "tenants[0].serving.router.policy");
    free(text);
    text = chat_scenario("{\"process\": \"poisson\", \"rate_per_s\": 1}",
                         "{\"input\": {\"dist\": \"deterministic\", \"tokens\": 10}, "
                         "\"output\": {\"dist\": \"deterministic\", \"tokens\": 10}}",
                         ", \"router\": \"least_kv\"", "\"gpus\": 1,", TWO_3G);
    tu_expect_load_error(text, "expected an object {\"policy\"");
    free(text);
    text = chat_scenario("{\"process\": \"poisson\", \"rate_per_s\": 1}",
                         "{\"input\": {\"dist\": \"deterministic\", \"tokens\": 10}, "
                         "\"output\": {\"dist\": \"deterministic\", \"tokens\": 10}}",
                         ", \"router\": {\"policy\": \"least_kv\", \"weight\": 2}", "\"gpus\": 1,",
                         TWO_3G);
    tu_expect_load_error(text, "weight");
    free(text);
}

void test_router_register(void)
{
    static const struct tu_test t[] = {
        {"two engines behind least_outstanding: the M/M/2 mean; round robin is not", test_mm2},
        {"which replica each policy picks, by hand from the roofline", test_by_hand},
        {"requests conserved: overload, faults, three replicas, each policy", test_conserved},
        {"vGPU on two GPUs with a router; the same bytes twice", test_vgpu_and_bytes},
        {"the router key's errors", test_bad_router},
        {"exclusive, timeslice, MPS: round robin and least_outstanding by hand",
         test_whole_by_hand},
        {"exclusive, timeslice, MPS: round robin's split exactly alternating", test_rr_alternates},
        {"exclusive, timeslice, MPS: requests and tokens conserved, faults", test_whole_conserved},
        {"an LLM tenant's array of GPUs: its errors", test_spread_errors},
        {NULL, NULL},
    };
    tu_add_suite("router", t);
}
