/*
 * Time-slicing: exact schedules and analytic results (issue 3).
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

static void test_one_tenant_equals_exclusive(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_timeslice/one-tenant.json"), &sc, &r);
    for (int k = 0; k < TM_N; k++) {
        double a = r.s[0].t[k], b = r.s[1].t[k];
        CU_ASSERT(a == b || (isnan(a) && isnan(b)));
    }
    CU_ASSERT(r.s[0].m[SM_UTIL] == r.s[1].m[SM_UTIL]);
    CU_ASSERT_EQUAL(r.s[1].m[SM_SWITCH], 0);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_hand_computed_schedule(void)
{
    /* Two contexts, one 2.5 ms request each at t = 0, slice 1 ms, switch 0.1 ms,
     * release on idle. A runs first (the first context pays no switch):
     *   A [0, 1]  switch [1, 1.1]  B [1.1, 2.1]  switch [2.1, 2.2]
     *   A [2.2, 3.2]  switch [3.2, 3.3]  B [3.3, 4.3]  switch [4.3, 4.4]
     *   A [4.4, 4.9] done (0.5 ms left)  → A releases: switch [4.9, 5.0]
     *   B [5.0, 5.5] done.
     * A completes at 4.9 ms, B at 5.5 ms; 5 switches (0.5 ms) in a 5.5 ms schedule. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_timeslice/hand-computed.json"), &sc, &r);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 0)[TM_COMPLETED], 1);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 1)[TM_COMPLETED], 1);
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 0)[TM_LAT_MEAN], 4.9e-3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 1)[TM_LAT_MEAN], 5.5e-3, 1e-12);
    /* Both waited 0 before first service? A started at 0, B at 1.1 ms. */
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 1)[TM_WAIT_MEAN], 1.1e-3, 1e-12);
    const cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r.s[0].details, "gpus"), 0);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(g0, "switches")->valueint, 5);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_work_conserving_mm1(void)
{
    /* Zero switch cost: preemptive round robin over contexts is work-conserving and
     * blind to job sizes, so with exponential work the number in system is that of
     * M/M/1 at the combined load: E[T] = 1/(μ − λ) = 1/(1000 − 800) = 5 ms. */
    long n = tu_sanitized() ? 200000 : 1000000;
    struct scenario sc;
    struct run_result r;
    tu_run_fixture(&sc, &r, "policy_timeslice/work-conserving.json", "{\"stop.requests\": %ld}", n);
    double na = res_t(&r.s[0], 0)[TM_COMPLETED], nb = res_t(&r.s[0], 1)[TM_COMPLETED];
    double mean =
        (na * res_t(&r.s[0], 0)[TM_LAT_MEAN] + nb * res_t(&r.s[0], 1)[TM_LAT_MEAN]) / (na + nb);
    TU_CHECK_CLOSE_REL(mean, an_mm1ps_mean_sojourn_s(800, 1000), 0.05);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 0.8, 0.01);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_saturated_capacity(void)
{
    /* Two always-busy contexts, q = 1 ms, s = 0.25 ms: every slice ends in a switch,
     * so throughput = 1000/s × q/(q+s) = 800/s and switch_overhead = s/(q+s) = 0.2. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_timeslice/saturated-capacity.json"), &sc, &r);
    double q = 1e-3, sw = 0.25e-3;
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_THROUGHPUT], 1000 * an_ts_capacity_fraction(q, sw), 0.02);
    CU_ASSERT(fabs(r.s[0].m[SM_SWITCH] - sw / (q + sw)) <= 0.005);
    CU_ASSERT(fabs(r.s[0].m[SM_UTIL] - q / (q + sw)) <= 0.005);
    /* Round robin is fair between equal contexts. */
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_THROUGHPUT], res_t(&r.s[0], 1)[TM_THROUGHPUT], 0.02);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_hold_slice_lowers_utilisation(void)
{
    /* A light tenant (100/s, 0.1 ms each) next to a saturated one, no switch cost.
     * Released slices keep the GPU busy all the time; held slices idle for the rest of
     * the light tenant's 1 ms slice after its 0.1 ms request: about 100 × 0.9 ms = 9 %
     * of the time (a little less: an arrival during the light tenant's own slice is
     * served inside it). */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_timeslice/hold-slice.json"), &sc, &r);
    double u_rel = r.s[0].m[SM_UTIL], u_hold = r.s[1].m[SM_UTIL];
    CU_ASSERT(u_rel > 0.999);
    double light_slices = res_t(&r.s[1], 0)[TM_THROUGHPUT]; /* ≈ one slice per request */
    double expected_waste = light_slices * 0.9e-3;
    CU_ASSERT(u_rel - u_hold > 0.8 * expected_waste && u_rel - u_hold <= expected_waste + 1e-3);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_replicas_and_memory_errors(void)
{
    /* Three 30 GB tenants on one 80 GB card: 2 replicas are too few, and their memory,
     * resident from their start, must fit together — with "oom": "simulate" too (it
     * simulates growth past what is free, tests/test_memory.c). */
    const char *three = "policy_timeslice/three-30gb-tenants.json";
    tu_expect_fixture_error("gets 3 tenants but replicas is 2", three,
                            "{\"strategies.0.replicas\": 2, \"strategies.0.oom\": \"simulate\"}");
    tu_expect_fixture_error("need 90 GB together, a A100-80GB has 80 GB", three, NULL);
    tu_expect_fixture_error("need 90 GB together, a A100-80GB has 80 GB", three,
                            "{\"strategies.0.oom\": \"simulate\"}");
}

static void test_fault_hits_only_its_context(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_timeslice/fault.json"), &sc, &r);
    CU_ASSERT(res_t(&r.s[0], 0)[TM_FAILED] > 0);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 1)[TM_FAILED], 0);
    run_result_free(&r);
    scn_free(&sc);
}

void test_policy_timeslice_register(void)
{
    static const struct tu_test t[] = {
        {"one tenant time-sliced equals exclusive exactly", test_one_tenant_equals_exclusive},
        {"hand-computed two-context schedule", test_hand_computed_schedule},
        {"zero switch cost is work-conserving (M/M/1)", test_work_conserving_mm1},
        {"saturated capacity q/(q+s) and switch overhead", test_saturated_capacity},
        {"holding idle slices lowers utilisation", test_hold_slice_lowers_utilisation},
        {"replicas and memory limits are errors", test_replicas_and_memory_errors},
        {"a fault fails only its own context", test_fault_hits_only_its_context},
        {NULL, NULL},
    };
    tu_add_suite("policy_timeslice", t);
}
