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
#include <string.h>

#define POISSON(name, rate, ms)                                                                    \
    "{\"name\": \"" name "\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": " #rate      \
    "}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": " #ms "}}"

static void test_isolation(void)
{
    /* The same tenant on a 3g instance, with and without a saturated neighbour on a 1g
     * instance: every figure of its latency distribution is identical. */
    const char *with =
        "{\"gpu\": \"A100-80GB\", \"seed\": 5, \"stop\": {\"duration_s\": 100}, \"tenants\": "
        "[" POISSON(
            "a", 150,
            2) ", {\"name\": \"noisy\", \"arrival\": {\"process\": "
               "\"saturated\"}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": 3}}], "
               "\"strategies\": [{\"name\": \"m\", \"kind\": \"mig\", \"layout\": [{\"profile\": "
               "\"3g.40gb\", \"tenants\": [\"a\"]}, {\"profile\": \"1g.10gb\", \"tenants\": "
               "[\"noisy\"]}]}]}";
    const char *without =
        "{\"gpu\": \"A100-80GB\", \"seed\": 5, \"stop\": {\"duration_s\": 100}, \"tenants\": "
        "[" POISSON("a", 150,
                    2) "], \"strategies\": [{\"name\": \"m\", \"kind\": \"mig\", "
                       "\"layout\": [{\"profile\": \"3g.40gb\", \"tenants\": [\"a\"]}]}]}";
    struct scenario s1, s2;
    struct run_result r1, r2;
    tu_run_text(with, &s1, &r1);
    tu_run_text(without, &s2, &r2);
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
     * bandwidth: 500/s. On H100 a 3g has 60 of 132 SMs: 454.5/s. */
    const char *fmt = "{\"gpu\": \"%s\", \"stop\": {\"duration_s\": 50}, \"tenants\": ["
                      "{\"name\": \"c\", \"arrival\": {\"process\": \"saturated\"}, \"work\": "
                      "{\"dist\": \"deterministic\", \"ms\": 1}, \"class\": \"compute\"},"
                      "{\"name\": \"m\", \"arrival\": {\"process\": \"saturated\"}, \"work\": "
                      "{\"dist\": \"deterministic\", \"ms\": 1}, \"class\": \"memory\"}],"
                      " \"strategies\": [{\"name\": \"m\", \"kind\": \"mig\", \"layout\": "
                      "[{\"profile\": \"%s\", \"tenants\": [\"c\"]}, {\"profile\": \"%s\", "
                      "\"tenants\": [\"m\"]}]}]}";
    char s[2048];
    struct scenario sc;
    struct run_result r;
    snprintf(s, sizeof s, fmt, "A100-80GB", "3g.40gb", "3g.40gb");
    tu_run_text(s, &sc, &r);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_THROUGHPUT], 1000.0 * 42 / 108, 0.005);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 1)[TM_THROUGHPUT], 500, 0.005);
    run_result_free(&r);
    scn_free(&sc);
    snprintf(s, sizeof s, fmt, "H100-80GB", "3g.40gb", "4g.40gb");
    tu_run_text(s, &sc, &r);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_THROUGHPUT], 1000.0 * 60 / 132, 0.005);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_nested_timeslice_equals_slower_gpu(void)
{
    /* Two tenants time-sliced inside a 3g instance (compute class: speed 42/108) behave
     * exactly like the timeslice strategy on a whole GPU with the work scaled by 108/42. */
    const char *nested =
        "{\"gpu\": \"A100-80GB\", \"seed\": 9, \"stop\": {\"requests\": 100000}, \"tenants\": "
        "[" POISSON("a", 100, 1) ", " POISSON(
            "b", 80, 1.5) "], \"strategies\": [{\"name\": "
                          "\"n\", \"kind\": \"mig\", \"layout\": [{\"profile\": \"3g.40gb\", "
                          "\"tenants\": [\"a\", "
                          "\"b\"], \"nested\": {\"kind\": \"timeslice\", \"slice_ms\": 2, "
                          "\"switch_us\": 100}}]}]}";
    char whole[1024];
    snprintf(whole, sizeof whole,
             "{\"gpu\": \"A100-80GB\", \"seed\": 9, \"stop\": {\"requests\": 100000}, "
             "\"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", "
             "\"rate_per_s\": 100}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": %.17g}},"
             " {\"name\": \"b\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 80}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": %.17g}}], \"strategies\": "
             "[{\"name\": \"t\", \"kind\": \"timeslice\", \"slice_ms\": 2, \"switch_us\": 100}]}",
             1.0 * 108 / 42, 1.5 * 108 / 42);
    struct scenario s1, s2;
    struct run_result r1, r2;
    tu_run_text(nested, &s1, &r1);
    tu_run_text(whole, &s2, &r2);
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
    const char *fmt =
        "{\"gpu\": \"A100-40GB\", \"stop\": {\"requests\": 10}, \"tenants\": "
        "[" POISSON("a", 1,
                    1) ", {\"name\": \"big\", \"arrival\": {\"process\": "
                       "\"poisson\", \"rate_per_s\": 1}, \"work\": {\"dist\": \"exponential\", "
                       "\"mean_ms\": 1}, \"memory_gb\": 12}], \"strategies\": [{\"name\": \"m\", "
                       "\"kind\": \"mig\", \"layout\": %s}]}";
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
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char s[2048];
        snprintf(s, sizeof s, fmt, cases[i].layout);
        tu_expect_load_error(s, cases[i].msg);
    }
}

static void test_oom_and_fault_stay_in_instance(void)
{
    /* "big" does not fit its 1g.5gb instance: with oom simulate its requests fail there;
     * "a" (3g) faults hourly-per-second: its own requests fail; "c" sees nothing. */
    const char *s =
        "{\"gpu\": \"A100-40GB\", \"seed\": 4, \"stop\": {\"duration_s\": 50}, \"tenants\": ["
        "{\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 100}, "
        "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 2}, \"fault_rate_per_h\": 3600},"
        "{\"name\": \"big\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 10}, "
        "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}, \"memory_gb\": 12},"
        " " POISSON(
            "c", 100,
            2) "], \"strategies\": [{\"name\": \"m\", \"kind\": \"mig\", "
               "\"oom\": \"simulate\", \"layout\": [{\"profile\": \"3g.20gb\", \"tenants\": "
               "[\"a\"]}, "
               "{\"profile\": \"1g.5gb\", \"tenants\": [\"big\"]}, {\"profile\": \"2g.10gb\", "
               "\"tenants\": [\"c\"]}]}]}";
    struct scenario sc;
    struct run_result r;
    tu_run_text(s, &sc, &r);
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
    /* At t = 40 s the GPU is re-cut (3g → 4g for "a"); for reconfig_s = 5 s nothing runs:
     * "a" is unavailable 5 s of the 100 s window, in-flight work fails, and afterwards it
     * runs faster (56 vs 42 SMs). */
    const char *s =
        "{\"gpu\": \"A100-40GB\", \"seed\": 4, \"stop\": {\"duration_s\": 100}, \"tenants\": "
        "[" POISSON("a", 200, 1.5) "], \"strategies\": [{\"name\": \"m\", \"kind\": \"mig\", "
                                   "\"reconfig_s\": 5, \"layout\": [{\"profile\": \"3g.20gb\", "
                                   "\"tenants\": [\"a\"]}], "
                                   "\"reconfigure\": [{\"at_s\": 40, \"layout\": [{\"profile\": "
                                   "\"4g.20gb\", \"tenants\": "
                                   "[\"a\"]}]}]}]}";
    struct scenario sc;
    struct run_result r;
    tu_run_text(s, &sc, &r);
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
    const char *s =
        "{\"gpu\": \"A100-80GB\", \"seed\": 3, \"stop\": {\"duration_s\": 50}, \"tenants\": ["
        "{\"name\": \"a\", \"arrival\": {\"process\": \"saturated\"}, \"work\": {\"dist\": "
        "\"deterministic\", \"ms\": 1}},"
        "{\"name\": \"b\", \"arrival\": {\"process\": \"saturated\"}, \"work\": {\"dist\": "
        "\"deterministic\", \"ms\": 1}},"
        "{\"name\": \"c\", \"arrival\": {\"process\": \"saturated\"}, \"work\": {\"dist\": "
        "\"deterministic\", \"ms\": 1}}], \"strategies\": ["
        "{\"name\": \"m\", \"kind\": \"mig\", \"layout\": [{\"profile\": \"3g.40gb\", \"tenants\": "
        "[\"a\", \"b\"], \"nested\": {\"kind\": \"mps\"}}, {\"profile\": \"3g.40gb\", \"tenants\": "
        "[\"c\"]}]}]}";
    struct scenario sc;
    struct run_result r;
    tu_run_text(s, &sc, &r);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_THROUGHPUT], 1000.0 * 21 / 108, 0.005);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 1)[TM_THROUGHPUT], 1000.0 * 21 / 108, 0.005);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 2)[TM_THROUGHPUT], 1000.0 * 42 / 108, 0.005);
    run_result_free(&r);
    scn_free(&sc);
    char f[2048];
    snprintf(f, sizeof f, "%s", s);
    char *at = strstr(f, "\"name\": \"a\", \"arrival\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    /* Give tenant a faults: rebuild the text with fault_rate_per_h on a. */
    char g[2300];
    size_t head = (size_t)(at - f) + strlen("\"name\": \"a\", ");
    snprintf(g, sizeof g, "%.*s\"fault_rate_per_h\": 3600, %s", (int)head, f, f + head);
    tu_run_text(g, &sc, &r);
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
