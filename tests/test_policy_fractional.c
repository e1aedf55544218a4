/* policy/policy_fractional.c and policy/units/fracunit.c: HAMi-style fractional GPUs. Exact
 * schedules worked out by hand (a 10 ms window, deterministic work, saturated tenants whose
 * first request arrives at t = 0), the lone-pod rule and its "force" and "disable"
 * policies, the stability bound, and what the loader refuses. */
#include "testutil.h"
#include "core/run.h"
#include "core/scenario.h"
#include "core/stable.h"

#include <cJSON.h>
#include <stdlib.h>

/* The mean latency of tenant i in the fixture, patched with core_policy. */
static double latency_ms(const char *rel, const char *policy, int i, double *throttled_s)
{
    struct scenario sc;
    struct run_result r;
    tu_run_fixture(&sc, &r, rel, "{\"strategies.0.core_policy\": \"%s\"}", policy);
    CU_ASSERT_EQUAL(res_t(&r.s[0], i)[TM_COMPLETED], 1);
    double lat = res_t(&r.s[0], i)[TM_LAT_MEAN] * 1e3;
    if (throttled_s) {
        const cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r.s[0].details, "gpus"), 0);
        *throttled_s = cJSON_GetObjectItem(g0, "throttled_s")->valuedouble;
    }
    run_result_free(&r);
    scn_free(&sc);
    return lat;
}

static void test_alone(void)
{
    /* A at 30 % alone on its GPU, 6 ms of work. HAMi's default leaves a lone pod unthrottled:
     * 6 ms. Forced, its budget is 3 ms a 10 ms window: 0–3 ms runs, 3–10 throttled (7 ms),
     * 10–13 runs: 13 ms. */
    double thr = -1;
    CU_ASSERT_DOUBLE_EQUAL(latency_ms("policy_fractional/alone.json", "default", 0, &thr), 6, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(thr, 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(latency_ms("policy_fractional/alone.json", "force", 0, &thr), 13, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(thr, 7e-3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(latency_ms("policy_fractional/alone.json", "disable", 0, NULL), 6, 1e-9);
}

static void test_with_neighbour(void)
{
    /* A at 30 % (6 ms), B at 70 % (20 ms), both from t = 0; budgets 3 and 7 ms a window.
     *  0–6  both run at 1/2: A spends its 3 ms budget at 6 (B has done 3).
     *  6–10 B alone at full speed spends its 7 (done 7); the window ends.
     * 10–16 both at 1/2: A does its last 3 ms: A = 16 ms (B done 10).
     * 16–20 B alone, budget left 4: done 14. 20–26: B's last 6 ms within its new 7: B = 26.
     * A shares its GPU, so the lone-pod rule does not apply: default and force agree. Without
     * limits (disable) it is processor sharing: A = 12 ms, then B alone: 26 ms. */
    for (int f = 0; f < 2; f++) {
        const char *pol = f ? "force" : "default";
        CU_ASSERT_DOUBLE_EQUAL(latency_ms("policy_fractional/pair.json", pol, 0, NULL), 16, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(latency_ms("policy_fractional/pair.json", pol, 1, NULL), 26, 1e-9);
    }
    CU_ASSERT_DOUBLE_EQUAL(latency_ms("policy_fractional/pair.json", "disable", 0, NULL), 12, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(latency_ms("policy_fractional/pair.json", "disable", 1, NULL), 26, 1e-9);
}

static void test_cap_is_stability_bound(void)
{
    /* A offers 100/s × 4 ms = 0.4 GPU against its 30 %: unstable under the limit (its queue
     * grows), while B (0.1 against 70 %) is stable. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_fractional/overloaded.json"), &sc, &r);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].capacity[0], 0.3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].capacity[1], 0.7, 1e-12);
    CU_ASSERT_EQUAL(stab_state(&r.s[0], 0), 0);
    CU_ASSERT_EQUAL(stab_state(&r.s[0], 1), 1);
    run_result_free(&r);
    scn_free(&sc);
}

/* The pair's schedule (test_with_neighbour) starting at t0 instead of 0: one request each from
 * a trace at t0, a window boundary. Windows are counted, not accumulated, so the hand schedule
 * holds at any time: at 2048.6 s the rounded boundary used to stop the clock ("simulated time
 * stopped advancing"), and at 10^6 s a double resolves only 1.2e-10 s. */
static void pair_at(double t0, const char *policy)
{
    char csv[128], text[1024];
    snprintf(csv, sizeof csv, "time_s,work_ms\n%.17g,6\n", t0);
    char *a = tu_write("late-a.csv", csv);
    char pa[512];
    snprintf(pa, sizeof pa, "%s", a);
    snprintf(csv, sizeof csv, "time_s,work_ms\n%.17g,20\n", t0);
    char *b = tu_write("late-b.csv", csv);
    snprintf(text, sizeof text,
             "{\"name\": \"late\", \"gpu\": \"A100-80GB\", \"tenants\": ["
             "{\"name\": \"A\", \"arrival\": {\"process\": \"trace\", \"path\": \"%s\", "
             "\"format\": \"sharesim\"}, \"work\": {\"dist\": \"trace\"}, \"memory_gb\": 10},"
             "{\"name\": \"B\", \"arrival\": {\"process\": \"trace\", \"path\": \"%s\", "
             "\"format\": \"sharesim\"}, \"work\": {\"dist\": \"trace\"}, \"memory_gb\": 10}],"
             "\"strategies\": [{\"name\": \"fr\", \"kind\": \"fractional\", \"cores\": "
             "{\"A\": 30, \"B\": 70}, \"window_ms\": 10, \"core_policy\": \"%s\"}]}",
             pa, b, policy);
    struct scenario sc;
    struct run_result r;
    tu_run_text(text, &sc, &r);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 0)[TM_COMPLETED], 1);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 1)[TM_COMPLETED], 1);
    /* A few ulps of t0 (in ms): the trace's t0 and the boundary (w × 10 ms) may differ by as
     * much, and so may each event's time (at 10^8 s an ulp is 1.5e-5 ms). */
    double tol_ms = 1e-6 + t0 * 0x1p-48 * 1e3;
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 0)[TM_LAT_MEAN] * 1e3, 16, tol_ms);
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 1)[TM_LAT_MEAN] * 1e3, 26, tol_ms);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_late_windows(void)
{
    static const double t0[] = {2048.6, 1024.3, 1e6, 4194304.05, 1e8};
    for (size_t i = 0; i < sizeof t0 / sizeof *t0; i++) {
        pair_at(t0[i], "default");
        pair_at(t0[i], "force");
    }
}

/* A long run with windows that end while clients are busy: every window boundary is an
 * event, 30,000 of them past 2048 s (the run used to stop at 2048.6 s). Requests are
 * conserved and the load is served. */
static void test_long_run(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_fixture(&sc, &r, "policy_fractional/pair.json",
                   "{\"stop\": {\"duration_s\": %d}, \"tenants.0.arrival\": {\"process\": "
                   "\"poisson\", \"rate_per_s\": 20}, \"tenants.1.arrival\": {\"process\": "
                   "\"poisson\", \"rate_per_s\": 10}}",
                   tu_sanitized() ? 2200 : 5000);
    for (int i = 0; i < 2; i++) {
        const double *t = res_t(&r.s[0], i);
        CU_ASSERT_EQUAL(t[TM_ARRIVED],
                        t[TM_COMPLETED] + t[TM_REJECTED] + t[TM_FAILED] + t[TM_IN_FLIGHT]);
        CU_ASSERT(t[TM_COMPLETED] > 0.99 * t[TM_ARRIVED]);
    }
    run_result_free(&r);
    scn_free(&sc);
}

static void test_loader_refuses(void)
{
    tu_expect_fixture_error("cores add up to 130 %", "policy_fractional/pair.json",
                            "{\"strategies.0.cores.A\": 60}");
    tu_expect_fixture_error("its memory limit (nvidia.com/gpumem) is 8 GB",
                            "policy_fractional/pair.json",
                            "{\"strategies.0.memory_gb\": {\"A\": 8}}");
    tu_expect_fixture_error("tenant \"B\" is missing", "policy_fractional/pair.json",
                            "{\"strategies.0.cores\": {\"A\": 30}}");
    tu_expect_fixture_error("expected one of", "policy_fractional/pair.json",
                            "{\"strategies.0.core_policy\": \"sometimes\"}");
    /* Card faults are not modelled for this strategy: refused rather than left out. */
    tu_expect_fixture_error("card faults (gpu_fault_rate_per_h) are not modelled",
                            "policy_fractional/pair.json", "{\"gpu_fault_rate_per_h\": 1}");
}

void test_policy_fractional_register(void)
{
    static const struct tu_test t[] = {
        {"30 % alone: unthrottled by default, 13 ms forced", test_alone},
        {"30 % with a neighbour: 16 ms, by hand; 12 ms without limits", test_with_neighbour},
        {"the core limit bounds what a tenant sustains", test_cap_is_stability_bound},
        {"the loader refuses what HAMi would not place", test_loader_refuses},
        {"the pair's hand schedule at 2048.6 s, 10^6 s, 10^8 s", test_late_windows},
        {"a 5,000 s run: windows at every boundary, requests conserved", test_long_run},
        {NULL, NULL},
    };
    tu_add_suite("policy_fractional", t);
}
