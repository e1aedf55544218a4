/*
 * The exclusive policy (policy/policy_exclusive.c). FIFO against exact queueing results
 * (M/M/1; M/M/4 mean wait from Erlang C). Processor sharing on exclusive GPUs
 * ({"kind": "exclusive", "discipline": "ps"}):
 * hand-computed schedules (exact to rounding), M/G/1-PS insensitivity of the mean
 * sojourn E[S]/(1 − ρ) for exponential, deterministic and lognormal work, placement
 * on the least-loaded GPU, saturated tenants, faults and bad input.
 */
#include "core/analytic.h"
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs three requests of `ms` each arriving at 1, 2 and 3 ms (deterministic, 1000/s) on
 * `gpus` GPUs, under PS and FIFO. */
static void run_three_arrivals(int gpus, double ms, struct scenario *sc, struct run_result *r)
{
    tu_run_fixture(sc, r, "policy_exclusive/three-arrivals.json",
                   "{\"gpus\": %d, \"tenants.0.work.ms\": %g}", gpus, ms);
}

static void test_hand_computed_one_gpu(void)
{
    /* Work 1.2 ms each, arrivals at 1, 2, 3 ms, one GPU.
     * PS:  [1, 2] #1 alone (0.2 left); [2, 2.4] #1 and #2 at half speed: #1 done at 2.4,
     *      #2 has 1.0 left; [2.4, 3] #2 alone: 0.4 left; [3, 3.8] #2 and #3 halved: #2
     *      done at 3.8, #3 has 0.8 left; alone: done at 4.6.
     *      Sojourns 1.4, 1.8, 1.6 ms: mean 1.6 ms, max 1.8 ms, no waiting.
     * FIFO: #1 [1, 2.2], #2 [2.2, 3.4], #3 [3.4, 4.6]: sojourns 1.2, 1.4, 1.6, mean 1.4 ms,
     *      waits 0, 0.2, 0.4 ms. Both finish at 4.6 ms: the same work, conserved. */
    struct scenario sc;
    struct run_result r;
    run_three_arrivals(1, 1.2, &sc, &r);
    const double *ps = r.s[0].t, *fifo = r.s[1].t;
    CU_ASSERT_EQUAL(ps[TM_COMPLETED], 3);
    CU_ASSERT_DOUBLE_EQUAL(ps[TM_LAT_MEAN], 1.6e-3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ps[TM_LAT_P99], 1.8e-3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ps[TM_WAIT_MEAN], 0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(fifo[TM_LAT_MEAN], 1.4e-3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(fifo[TM_WAIT_MEAN], 0.2e-3, 1e-12);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_hand_computed_least_loaded(void)
{
    /* Work 2.5 ms, arrivals at 1, 2, 3 ms, two GPUs.
     * #1 → GPU 0. #2 at 2 ms → GPU 1 (GPU 0 holds one, GPU 1 none). #3 at 3 ms: both
     * hold one, so the lowest index, GPU 0, where #1 has 0.5 ms left: halved, #1 done at
     * 4.0, #3 has 2.0 left, alone: done at 6.0. #2 alone on GPU 1: done at 4.5.
     * Sojourns 3.0, 2.5, 3.0 ms: mean 8.5/3 ms, max 3.0 ms. */
    struct scenario sc;
    struct run_result r;
    run_three_arrivals(2, 2.5, &sc, &r);
    const double *ps = r.s[0].t;
    CU_ASSERT_DOUBLE_EQUAL(ps[TM_LAT_MEAN], 8.5e-3 / 3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ps[TM_LAT_P99], 3.0e-3, 1e-12);
    run_result_free(&r);
    scn_free(&sc);
}

/* Mean sojourn of an M/G/1-PS run at λ = 500/s, 1 ms mean work (ρ = 0.5). */
static double ps_mean_sojourn(const char *work, double *util)
{
    long n = tu_sanitized() ? 200000 : 1000000;
    struct scenario sc;
    struct run_result r;
    tu_run_fixture(&sc, &r, "policy_exclusive/mg1-ps.json",
                   "{\"stop.requests\": %ld, \"tenants.0.work\": %s}", n, work);
    double mean = r.s[0].t[TM_LAT_MEAN];
    CU_ASSERT_EQUAL(r.s[0].t[TM_WAIT_MEAN], 0); /* everyone is served from arrival on */
    *util = r.s[0].m[SM_UTIL];
    run_result_free(&r);
    scn_free(&sc);
    return mean;
}

static void test_insensitive_mean_sojourn(void)
{
    /* E[T] = E[S]/(1 − ρ) = 2 ms for every work distribution with mean 1 ms (M/G/1-PS).
     * Relative standard error at these run lengths: about 0.4 % (exponential) to 0.8 %
     * (lognormal, cv 2), 1.6 % under the sanitizers: 3 % is over 3 standard errors. */
    const char *works[] = {"{\"dist\": \"exponential\", \"mean_ms\": 1}",
                           "{\"dist\": \"deterministic\", \"ms\": 1}",
                           "{\"dist\": \"lognormal\", \"mean_ms\": 1, \"cv\": 2}"};
    double exact = an_mm1ps_mean_sojourn_s(500, 1000);
    CU_ASSERT_DOUBLE_EQUAL(exact, 2e-3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(an_mm1ps_mean_sojourn_given_work_s(500, 1000, 1e-3), exact, 1e-15);
    for (int k = 0; k < 3; k++) {
        double util;
        double mean = ps_mean_sojourn(works[k], &util);
        TU_CHECK_CLOSE_REL(mean, exact, 0.03);
        TU_CHECK_CLOSE_REL(util, 0.5, 0.02);
    }
}

static void test_saturated_fills_every_gpu(void)
{
    /* A saturated tenant over 3 GPUs keeps all three busy under both disciplines:
     * 1 ms deterministic work → 3000 completions/s, utilisation 1. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_exclusive/saturated-three-gpus.json"), &sc, &r);
    for (int k = 0; k < 2; k++) {
        TU_CHECK_CLOSE_REL(r.s[k].m[SM_THROUGHPUT], 3000, 1e-3);
        TU_CHECK_CLOSE_REL(r.s[k].m[SM_UTIL], 1.0, 1e-9);
    }
    run_result_free(&r);
    scn_free(&sc);
}

static void test_fault_fails_the_whole_gpu(void)
{
    /* A fault crashes the serving process: under PS every request on that GPU fails,
     * under FIFO only the one in service, so PS loses more per fault. The ledger
     * balances either way. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_exclusive/fault-ps-fifo.json"), &sc, &r);
    const double *ps = r.s[0].t, *fifo = r.s[1].t;
    CU_ASSERT(fifo[TM_FAILED] > 0);
    CU_ASSERT(ps[TM_FAILED] > 2 * fifo[TM_FAILED]); /* E[N] = 9 at ρ = 0.9 */
    for (int k = 0; k < 2; k++) {
        const double *t = r.s[k].t;
        CU_ASSERT_EQUAL(t[TM_ARRIVED],
                        t[TM_COMPLETED] + t[TM_FAILED] + t[TM_REJECTED] + t[TM_IN_FLIGHT]);
        CU_ASSERT_EQUAL(t[TM_IN_FLIGHT], 0);
    }
    run_result_free(&r);
    scn_free(&sc);
}

static void test_bad_discipline(void)
{
    const char *s =
        "{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 3}, \"tenants\": ["
        "{\"name\": \"t\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1},"
        " \"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}],"
        " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\", \"discipline\": \"lifo\"}]}";
    struct scenario sc;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(scn_load_text("ps.json", s, strlen(s), &sc, err, sizeof err), -1);
    scn_free(&sc);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "strategies[0].discipline"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "fifo"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "ps"));
}

static void test_mm1(void)
{
    /* M/M/1, λ = 900/s, μ = 1000/s: E[T] = 1/(μ−λ) = 10 ms, E[W] = ρ E[T] = 9 ms,
     * p99 of T = ln(100)/(μ−λ) = 46.05 ms. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_exclusive/mm1.json"), &sc, &r);
    const double *t = r.s[0].t;
    TU_CHECK_CLOSE_REL(t[TM_LAT_MEAN], 10e-3, 0.03);
    TU_CHECK_CLOSE_REL(t[TM_WAIT_MEAN], 9e-3, 0.04);
    TU_CHECK_CLOSE_REL(t[TM_LAT_P99], log(100.0) / 100.0, 0.05);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 0.9, 0.01);
    TU_CHECK_CLOSE_REL(t[TM_THROUGHPUT], 900, 0.01);
    CU_ASSERT_EQUAL(t[TM_ARRIVED], 2000000 - 20000);
    CU_ASSERT_EQUAL(t[TM_COMPLETED], t[TM_ARRIVED]);
    CU_ASSERT_EQUAL(t[TM_IN_FLIGHT], 0);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_mm4_erlang_c(void)
{
    /* One tenant over 4 exclusive GPUs at ρ = 0.9: M/M/4, mean wait from Erlang C. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_exclusive/mm4.json"), &sc, &r);
    double wq = an_mmc_mean_wait_s(3600, 1000, 4);
    TU_CHECK_CLOSE_REL(r.s[0].t[TM_WAIT_MEAN], wq, 0.05);
    TU_CHECK_CLOSE_REL(r.s[0].t[TM_LAT_P99], an_mmc_sojourn_quantile_s(3600, 1000, 4, 0.99), 0.05);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 0.9, 0.01);
    run_result_free(&r);
    scn_free(&sc);
}

void test_policy_exclusive_register(void)
{
    static const struct tu_test t[] = {
        {"hand-computed PS schedule on one GPU (and FIFO)", test_hand_computed_one_gpu},
        {"hand-computed PS placement on the least-loaded GPU", test_hand_computed_least_loaded},
        {"M/G/1-PS mean sojourn is insensitive: E[S]/(1-rho)", test_insensitive_mean_sojourn},
        {"a saturated tenant fills every GPU (PS and FIFO)", test_saturated_fills_every_gpu},
        {"a fault fails every request on the PS GPU", test_fault_fails_the_whole_gpu},
        {"an unknown discipline is an error naming the choices", test_bad_discipline},
        {"M/M/1 mean, wait and p99 (2e6 requests)", test_mm1},
        {"M/M/4 mean wait equals Erlang C", test_mm4_erlang_c},
        {NULL, NULL},
    };
    tu_add_suite("policy_exclusive", t);
}
