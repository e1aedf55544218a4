/*
 * The MIG strategy: isolation, instance speed from real SM counts, nested
 * time-slicing, memory limits, reconfiguration outages (issue 4).
 */
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_isolation(void)
{
    /* The same tenant on a 3g instance, with and without a saturated neighbour on a 1g
     * instance: every figure of its latency distribution is identical. */
    struct scenario s1, s2;
    struct run_result r1, r2;
    tu_run_file(tu_fixture("policy_mig/isolation-with-neighbour.json"), &s1, &r1);
    tu_run_file(tu_fixture("policy_mig/isolation-alone.json"), &s2, &r2);
    for (int k = 0; k < TM_N; k++) {
        if (k == TM_SLOWDOWN_P99)
            continue; /* the baselines differ: one has a neighbour to run alone too */
        double a = res_t(&r1.s[0], 0)[k], b = res_t(&r2.s[0], 0)[k];
        CU_ASSERT(a == b || (isnan(a) && isnan(b)));
    }
    CU_ASSERT(res_t(&r1.s[0], 1)[TM_COMPLETED] > 3000);
    run_result_free(&r1);
    run_result_free(&r2);
    scn_free(&s1);
    scn_free(&s2);
}

static void test_instance_speed(void)
{
    /* Saturated compute work of 1 ms on a 3g instance of A100-80GB (42 of 108 SMs):
     * 1000 × 42/108 = 388.9 requests/s; memory-class work on it runs at its 4/8 of the
     * bandwidth: 500/s. On H100 a 3g has 60 of 132 SMs: 454.5/s. Tenant c (compute) is in
     * the first instance, m (memory) in the second. */
    const char *fixture = "policy_mig/instance-speed.json";
    struct scenario sc;
    struct run_result r;
    tu_run_fixture(&sc, &r, fixture,
                   "{\"gpu\": \"A100-80GB\", \"strategies.0.layout.0.profile\": \"3g.40gb\", "
                   "\"strategies.0.layout.1.profile\": \"3g.40gb\"}");
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_THROUGHPUT], 1000.0 * 42 / 108, 0.005);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 1)[TM_THROUGHPUT], 500, 0.005);
    run_result_free(&r);
    scn_free(&sc);
    tu_run_fixture(&sc, &r, fixture,
                   "{\"gpu\": \"H100-80GB\", \"strategies.0.layout.0.profile\": \"3g.40gb\", "
                   "\"strategies.0.layout.1.profile\": \"4g.40gb\"}");
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_THROUGHPUT], 1000.0 * 60 / 132, 0.005);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_nested_timeslice_equals_slower_gpu(void)
{
    /* Two tenants time-sliced inside a 3g instance (compute class: speed 42/108) behave
     * exactly like the timeslice strategy on a whole GPU with the work scaled by 108/42. */
    char *whole =
        tu_fixture_patch("policy_mig/timeslice-whole-gpu.json",
                         "{\"tenants.0.work.mean_ms\": %.17g, \"tenants.1.work.mean_ms\": "
                         "%.17g}",
                         1.0 * 108 / 42, 1.5 * 108 / 42);
    struct scenario s1, s2;
    struct run_result r1, r2;
    tu_run_file(tu_fixture("policy_mig/nested-timeslice.json"), &s1, &r1);
    tu_run_text(whole, &s2, &r2);
    free(whole);
    for (int i = 0; i < 2; i++) {
        TU_CHECK_CLOSE_REL(res_t(&r1.s[0], i)[TM_LAT_MEAN], res_t(&r2.s[0], i)[TM_LAT_MEAN], 1e-6);
        TU_CHECK_CLOSE_REL(res_t(&r1.s[0], i)[TM_LAT_P99], res_t(&r2.s[0], i)[TM_LAT_P99], 1e-6);
        CU_ASSERT_EQUAL(res_t(&r1.s[0], i)[TM_COMPLETED], res_t(&r2.s[0], i)[TM_COMPLETED]);
    }
    /* Utilisation counts the instance's share of the GPU (42/108). */
    TU_CHECK_CLOSE_REL(r1.s[0].m[SM_UTIL], r2.s[0].m[SM_UTIL] * 42 / 108, 1e-6);
    run_result_free(&r1);
    run_result_free(&r2);
    scn_free(&s1);
    scn_free(&s2);
}

static void test_layout_errors(void)
{
    /* A legal layout of two tenants, a and big (12 GB), on an A100-40GB; each case replaces
     * it with one that is not. */
    static const struct {
        const char *layout, *msg;
    } cases[] = {
        {"[{\"profile\": \"4g.20gb\", \"tenants\": [\"a\"]}, {\"profile\": \"4g.20gb\", "
         "\"tenants\": [\"big\"]}]",
         "4g.20gb can only start at memory slice 0; two do not fit"},
        {"[{\"profile\": \"3g.20gb\", \"tenants\": [\"a\"]}, {\"profile\": \"1g.5gb\", "
         "\"tenants\": [\"big\"]}]",
         "tenant \"big\" needs 12 GB but a 1g.5gb instance has 4.75 GB"},
        {"[{\"profile\": \"3g.20gb\", \"tenants\": [\"a\", \"big\"]}]",
         "2 tenants share one 3g.20gb instance"},
        {"[{\"profile\": \"3g.40gb\", \"tenants\": [\"a\", \"big\"]}]", "no MIG profile"},
        {"[{\"profile\": \"3g.20gb\", \"tenants\": [\"a\"]}]", "tenant \"big\" is in no instance"},
        /* A nested MPS server takes the mps strategy's bounds (mu_parse_params): a loss of 1
         * used to load and abort the run (mpsunit: a client's speed 0). */
        {"[{\"profile\": \"7g.40gb\", \"tenants\": [\"a\", \"big\"], \"nested\": {\"kind\": "
         "\"mps\", \"bw_contention_loss\": 1.0}}]",
         "nested.bw_contention_loss: expected a number in [0, 0.99], got 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        tu_expect_fixture_error(cases[i].msg, "policy_mig/layout-errors.json",
                                "{\"strategies.0.layout\": %s}", cases[i].layout);
}

static void test_oom_and_fault_stay_in_instance(void)
{
    /* "big" does not fit its 1g.5gb instance: with oom simulate its requests fail there;
     * "a" (3g) faults hourly-per-second: its own requests fail; "c" sees nothing. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_mig/oom-and-fault.json"), &sc, &r);
    CU_ASSERT(res_t(&r.s[0], 0)[TM_FAILED] > 0);
    CU_ASSERT(res_t(&r.s[0], 0)[TM_COMPLETED] > 0);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 1)[TM_COMPLETED], 0);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 1)[TM_FAILED], res_t(&r.s[0], 1)[TM_ARRIVED]);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 2)[TM_FAILED], 0);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_reconfiguration_outage(void)
{
    /* At t = 40 s "a"'s 3g becomes a 4g (nothing kept); for create_s = 5 s nothing serves "a":
     * "a" is unavailable 5 s of the 100 s window, in-flight work fails, and afterwards it
     * runs faster (56 vs 42 SMs). */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_mig/reconfiguration.json"), &sc, &r);
    const double *t = res_t(&r.s[0], 0);
    TU_CHECK_CLOSE_REL(t[TM_AVAILABILITY], 0.95, 1e-9);
    CU_ASSERT(t[TM_FAILED] >= 1 && t[TM_FAILED] <= 2);
    CU_ASSERT_EQUAL(t[TM_ARRIVED], t[TM_COMPLETED] + t[TM_FAILED] + t[TM_IN_FLIGHT]);
    /* The backlog of the outage (≈ 1000 requests) drives the p99 up to seconds. */
    CU_ASSERT(t[TM_LAT_P99] > 1.0);
    const cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r.s[0].details, "gpus"), 0);
    const cJSON *i0 = cJSON_GetArrayItem(cJSON_GetObjectItem(g0, "instances"), 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(i0, "profile")->valuestring, "4g.20gb");
    run_result_free(&r);
    scn_free(&sc);
}

static void test_nested_mps(void)
{
    /* Two saturated compute clients share a 3g instance under nested MPS: each gets half
     * of its 42 of 108 SMs, 1000 × 21/108 = 194.4 requests/s of 1 ms work. A fault of
     * client a (once a second while busy) fails b's in-flight work too — one MPS server —
     * but not c's on the other instance. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_mig/nested-mps.json"), &sc, &r);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_THROUGHPUT], 1000.0 * 21 / 108, 0.005);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 1)[TM_THROUGHPUT], 1000.0 * 21 / 108, 0.005);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 2)[TM_THROUGHPUT], 1000.0 * 42 / 108, 0.005);
    run_result_free(&r);
    scn_free(&sc);
    /* The same with faults on tenant a. */
    char *g =
        tu_fixture_patch("policy_mig/nested-mps.json", "{\"tenants.0.fault_rate_per_h\": 3600}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    tu_run_text(g, &sc, &r);
    free(g);
    CU_ASSERT(res_t(&r.s[0], 0)[TM_FAILED] > 10);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 1)[TM_FAILED], res_t(&r.s[0], 0)[TM_FAILED]);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 2)[TM_FAILED], 0);
    CU_ASSERT(res_t(&r.s[0], 1)[TM_AVAILABILITY] < 1);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 2)[TM_AVAILABILITY], 1);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_nested_mps_client_limit(void)
{
    /* 48 clients per GPU → 48 × 1/7 = 6 in a 1g instance: 7 are refused. */
    char s[4096];
    int n = snprintf(s, sizeof s,
                     "{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 10}, "
                     "\"tenants\": [");
    for (int i = 0; i < 7; i++)
        n += snprintf(s + n, sizeof s - (size_t)n,
                      "%s{\"name\": \"t%d\", \"arrival\": {\"process\": \"poisson\", "
                      "\"rate_per_s\": 1}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}",
                      i ? ", " : "", i);
    snprintf(s + n, sizeof s - (size_t)n,
             "], \"strategies\": [{\"name\": \"m\", \"kind\": \"mig\", \"layout\": [{\"profile\": "
             "\"1g.10gb\", \"tenants\": [\"t0\", \"t1\", \"t2\", \"t3\", \"t4\", \"t5\", \"t6\"], "
             "\"nested\": {\"kind\": \"mps\"}}]}]}");
    tu_expect_load_error(s, "7 MPS clients in a 1g.10gb instance; the limit there is 6");
}

void test_policy_mig_register(void)
{
    static const struct tu_test t[] = {
        {"a saturated neighbour changes nothing", test_isolation},
        {"instance speed follows real SM counts and memory slices", test_instance_speed},
        {"nested time-slicing equals time-slicing a slower GPU",
         test_nested_timeslice_equals_slower_gpu},
        {"illegal layouts and memory are errors that say why", test_layout_errors},
        {"OOM and faults stay inside their instance", test_oom_and_fault_stay_in_instance},
        {"reconfiguration: outage, failures, new layout", test_reconfiguration_outage},
        {"nested MPS inside an instance: shares and fault domain", test_nested_mps},
        {"nested MPS client limit scales with the instance", test_nested_mps_client_limit},
        {NULL, NULL},
    };
    tu_add_suite("policy_mig", t);
}
