/*
 * occupancy — how much of a GPU a request can use (work.max_sm_fraction), how many of a
 * tenant's requests its server runs at once (work.concurrency), and bandwidth that follows
 * the SMs (the profile's mem_bw_sm_curve), against exact answers: M/M/1 and M/M/4 queues,
 * hand-computed speeds and saturated throughputs. docs/scenario.md#work states the model.
 */
#include "core/analytic.h"
#include "core/rate.h"
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double *tm(const struct run_result *r, int strat, int tenant)
{
    return res_t(&r->s[strat], tenant);
}

static void test_mps_runs_small_kernels_side_by_side(void)
{
    /* Two compute tenants, Poisson 300/s of exponential 1 ms work, each request keeping
     * 40 % of the SMs busy. Under MPS their demands (0.4 + 0.4) fit the GPU, so each runs
     * as if alone: M/M/1 at rho = 0.3, mean 1/(1000 - 300) = 1.43 ms. Time-sliced with no
     * switch cost only one context runs at a time, at full speed: the two share one
     * server at rho = 0.6 (work-conserving, exponential work: the M/M/1 mean 2.5 ms). */
    long n = tu_sanitized() ? 100000 : 400000;
    char *text = tu_fixture_patch("occupancy/two-small-compute.json",
                                  "{\"stop.requests\": %ld, \"warmup.requests\": %ld}", n, n / 100);
    struct scenario sc;
    struct run_result r;
    tu_run_text(text, &sc, &r);
    free(text);
    double alone = an_mmc_mean_sojourn_s(300, 1000, 1),
           shared = an_mmc_mean_sojourn_s(600, 1000, 1);
    CU_ASSERT_DOUBLE_EQUAL(alone, 1.0 / 700, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(shared, 2.5e-3, 1e-12);
    for (int i = 0; i < 2; i++) {
        TU_CHECK_CLOSE_REL(tm(&r, 0, i)[TM_LAT_MEAN], alone, 0.03);
        TU_CHECK_CLOSE_REL(tm(&r, 1, i)[TM_LAT_MEAN], shared, 0.03);
    }
    /* Utilisation is SM time: 0.3 busy × 0.4 of the SMs, twice, under MPS; the same work
     * time-sliced keeps 40 % of the SMs busy 60 % of the time. */
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 0.24, 0.02);
    TU_CHECK_CLOSE_REL(r.s[1].m[SM_UTIL], 0.24, 0.02);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_small_request_in_1g_takes_its_work(void)
{
    /* max_sm_fraction 0.1 in an A100 1g instance (14 of 108 SMs = 0.1296 > 0.1): the
     * request has all the SMs it can use, so it takes exactly its 2 ms. The same request
     * with occupancy 1 runs at 14/108: 2 × 108/14 ms. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("occupancy/mig-1g-small.json"), &sc, &r);
    CU_ASSERT_EQUAL(tm(&r, 0, 0)[TM_COMPLETED], 10);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 0)[TM_LAT_MEAN], 2e-3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 0)[TM_LAT_P999], 2e-3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 1)[TM_LAT_MEAN], 2e-3 * 108 / 14, 1e-12);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_capped_memory_client_gets_curve_bandwidth(void)
{
    /* A memory-class MPS client capped at 10 % of the threads: its SMs pull C(0.1) of the
     * bandwidth (mem_bw_sm_curve, linear from 0 to 14 SMs at 0.25 on the A100-80GB:
     * 0.1 × 0.25 × 108/14 = 0.193), so 1 ms requests complete at 1000 × C(0.1) per s. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("occupancy/mps-memory-capped.json"), &sc, &r);
    double c = rate_bw_curve(&sc.gpu, 0.1);
    CU_ASSERT_DOUBLE_EQUAL(c, 0.1 * 0.25 * 108 / 14, 1e-12);
    TU_CHECK_CLOSE_REL(tm(&r, 0, 0)[TM_THROUGHPUT], 1000 * c, 0.001);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_concurrency_is_mmc(void)
{
    /* Occupancy 0.25, concurrency 4, Poisson 3000/s of exponential 1 ms work: four requests
     * fit the GPU side by side at full speed, so a whole GPU is an M/M/4 queue (rho 0.75)
     * under exclusive, time-slicing (one context alone) and MPS (one client) alike; the
     * SMs in use are 1/4 per request in service, so utilisation is rho. */
    long n = tu_sanitized() ? 80000 : 300000;
    char *text = tu_fixture_patch("occupancy/concurrency.json",
                                  "{\"stop.requests\": %ld, \"warmup.requests\": %ld}", n, n / 100);
    struct scenario sc;
    struct run_result r;
    tu_run_text(text, &sc, &r);
    free(text);
    double want = an_mmc_mean_sojourn_s(3000, 1000, 4);
    for (int k = 0; k < 3; k++) {
        TU_CHECK_CLOSE_REL(tm(&r, k, 0)[TM_LAT_MEAN], want, 0.03);
        TU_CHECK_CLOSE_REL(r.s[k].m[SM_UTIL], 0.75, 0.02);
    }
    /* The same random numbers through the same queue: exclusive and the lone time-sliced
     * context are the same system, to the last digit. */
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 0)[TM_LAT_MEAN], tm(&r, 1, 0)[TM_LAT_MEAN], 1e-12);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_saturated_throughput_min_conc_f_over_s(void)
{
    /* Saturated, deterministic 1 ms, occupancy 0.1, concurrency 8: min(8, f/0.1) requests
     * per ms of work — 8 on a whole GPU (exclusive, time-slicing, MPS), 42/108/0.1 = 3.889
     * in a 3g.40gb instance. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("occupancy/saturated-concurrency.json"), &sc, &r);
    for (int k = 0; k < 3; k++)
        TU_CHECK_CLOSE_REL(tm(&r, k, 0)[TM_THROUGHPUT], 8000, 0.002);
    TU_CHECK_CLOSE_REL(tm(&r, 3, 0)[TM_THROUGHPUT], 1000 * 42.0 / 108 / 0.1, 0.002);
    /* Eight requests of 0.1 keep 80 % of the SMs busy on a whole GPU. */
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 0.8, 1e-6);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_one_utilisation(void)
{
    /* Utilisation is SM time in every strategy: a tenant of occupancy 0.4 at rho 0.3 keeps
     * 12 % of a GPU's SMs busy under exclusive (FIFO and PS), time-slicing, MPS and a 7g
     * instance (98 of 108 SMs, more than 0.4: full speed) alike; the time-sliced vGPU takes
     * 1/0.974 as long for the same work. Same arrivals and work everywhere, so the measured
     * figures agree far closer than their noise around 0.12. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("occupancy/one-utilisation.json"), &sc, &r);
    double u0 = r.s[0].m[SM_UTIL];
    TU_CHECK_CLOSE_REL(u0, 0.3 * 0.4, 0.03);
    for (int k = 1; k < 5; k++)
        TU_CHECK_CLOSE_REL(r.s[k].m[SM_UTIL], u0, 0.002);
    TU_CHECK_CLOSE_REL(r.s[5].m[SM_UTIL], u0 / (1 - sc.gpu.vgpu_overhead_compute), 0.002);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_rate_model_exact(void)
{
    /* The rate model by hand on the A100-80GB (exponents 1): compute (min(f, s)/s), memory
     * (min(b, C(min(f, s))) / C(s)); on the whole GPU every request runs at 1. */
    struct scenario sc;
    tu_load_file(tu_fixture("occupancy/mig-1g-small.json"), &sc);
    struct tenant_cfg t = sc.tenants[0]; /* compute, s = 0.1 */
    CU_ASSERT_DOUBLE_EQUAL(rate_speed(&sc.gpu, &t, 1, 1), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(rate_speed(&sc.gpu, &t, 0.05, 1), 0.5, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(rate_speed_n(&sc.gpu, &t, 1, 1, 10), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(rate_speed_n(&sc.gpu, &t, 1, 1, 20), 0.5, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(rate_sm_in_use(&t, 1, 3), 0.3, 1e-15);
    t.wclass = CLASS_MEMORY;
    double c01 = rate_bw_curve(&sc.gpu, 0.1);
    CU_ASSERT_DOUBLE_EQUAL(rate_speed(&sc.gpu, &t, 1, 1), 1, 0);
    /* A 1g.10gb instance: 1/8 of the bandwidth, less than the 0.193 its SMs could pull. */
    CU_ASSERT_DOUBLE_EQUAL(rate_speed(&sc.gpu, &t, 14.0 / 108, 0.125), 0.125 / c01, 1e-12);
    /* The MIG instances' own shapes lie on or under the curve: their speeds are the
     * memory-slice share, as before the curve (docs/calibration.md). */
    t.work.max_sm_fraction = 1;
    CU_ASSERT_DOUBLE_EQUAL(rate_speed(&sc.gpu, &t, 14.0 / 108, 0.25), 0.25, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(rate_speed(&sc.gpu, &t, 42.0 / 108, 0.5), 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(rate_speed(&sc.gpu, &t, 98.0 / 108, 1), 1, 1e-15);
    scn_free(&sc);
}

static void test_cli_same_answer(void)
{
    /* The same check from the command line: the 1g run's JSON gives 2 ms exactly. */
    char cmd[1024], out[256], err[4096];
    const char *json = tu_write("occ-1g.json", "");
    snprintf(cmd, sizeof cmd, "run %s --quiet --no-slowdown --json %s",
             tu_fixture("occupancy/mig-1g-small.json"), json);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 0);
    char *text = tu_slurp(json);
    cJSON *doc = cJSON_Parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *t0 = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0),
                            "tenants"),
        0);
    const cJSON *lat = cJSON_GetObjectItem(t0, "latency_ms");
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(lat, "mean")->valuedouble, 2.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(lat, "p999")->valuedouble, 2.0, 1e-9);
    cJSON_Delete(doc);
    free(text);
}

/* The other exact answers from the command line, on the JSON it writes: the two 40 %
 * tenants (M/M/1 at rho 0.3 under MPS, 0.6 time-sliced) and the capped memory client's
 * 1000 x C(0.1) requests/s. */
static void test_cli_mps_and_capped(void)
{
    char cmd[1024];
    long n = tu_sanitized() ? 100000 : 400000;
    char *text = tu_fixture_patch("occupancy/two-small-compute.json",
                                  "{\"stop.requests\": %ld, \"warmup.requests\": %ld}", n, n / 100);
    snprintf(cmd, sizeof cmd, "run %s --quiet --no-slowdown", tu_write("occ-two.json", text));
    free(text);
    cJSON *doc = tu_cli_json(cmd);
    for (int i = 0; i < 2; i++) {
        char p[128];
        snprintf(p, sizeof p, "strategies.0.tenants.%d.latency_ms.mean", i);
        TU_CHECK_CLOSE_REL(tu_json_num(doc, p) * 1e-3, 1.0 / 700, 0.03);
        snprintf(p, sizeof p, "strategies.1.tenants.%d.latency_ms.mean", i);
        TU_CHECK_CLOSE_REL(tu_json_num(doc, p) * 1e-3, 2.5e-3, 0.03);
    }
    cJSON_Delete(doc);
    snprintf(cmd, sizeof cmd, "run %s --quiet --no-slowdown",
             tu_fixture("occupancy/mps-memory-capped.json"));
    doc = tu_cli_json(cmd);
    TU_CHECK_CLOSE_REL(tu_json_num(doc, "strategies.0.tenants.0.throughput_per_s"),
                       1000 * 0.1 * 0.25 * 108 / 14, 0.001);
    cJSON_Delete(doc);
}

static void test_bad_input(void)
{
    static const char head[] =
        "{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 10}, \"tenants\": [{\"name\": "
        "\"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, \"work\": %s}], "
        "\"strategies\": [%s]}";
    static const struct {
        const char *work, *strategy, *msg;
    } cases[] = {
        {"{\"dist\": \"deterministic\", \"ms\": 1, \"max_sm_fraction\": 0}",
         "{\"name\": \"x\", \"kind\": \"exclusive\"}",
         "tenants[0].work.max_sm_fraction: expected a number > 0 and <= 1"},
        {"{\"dist\": \"exponential\", \"mean_ms\": 1, \"max_sm_fraction\": 1.5}",
         "{\"name\": \"x\", \"kind\": \"exclusive\"}",
         "tenants[0].work.max_sm_fraction: expected a number > 0 and <= 1"},
        {"{\"dist\": \"exponential\", \"mean_ms\": 1, \"concurrency\": 0}",
         "{\"name\": \"x\", \"kind\": \"exclusive\"}", "tenants[0].work.concurrency"},
        {"{\"dist\": \"exponential\", \"mean_ms\": 1, \"concurrency\": 2.5}",
         "{\"name\": \"x\", \"kind\": \"exclusive\"}", "tenants[0].work.concurrency"},
        {"{\"dist\": \"exponential\", \"mean_ms\": 1, \"concurrency\": 2}",
         "{\"name\": \"x\", \"kind\": \"exclusive\", \"discipline\": \"ps\"}",
         "\"discipline\": \"ps\" already serves every request at once"},
        {"{\"dist\": \"exponential\", \"mean_ms\": 1, \"concurrency\": 2}",
         "{\"name\": \"x\", \"kind\": \"vgpu\", \"vgpus\": [{\"type\": \"A100DX-20C\", "
         "\"tenants\": [\"a\"]}]}",
         "a vGPU serves one request at a time"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[2048];
        snprintf(text, sizeof text, head, cases[i].work, cases[i].strategy);
        tu_expect_load_error(text, cases[i].msg);
    }
}

void test_occupancy_register(void)
{
    static const struct tu_test t[] = {
        {"MPS: two 40 % tenants each run as if alone (M/M/1, rho 0.3); time-sliced rho 0.6",
         test_mps_runs_small_kernels_side_by_side},
        {"occupancy 0.1 in a 1g instance takes exactly its work",
         test_small_request_in_1g_takes_its_work},
        {"MPS memory client capped at 10 %: the curve's bandwidth",
         test_capped_memory_client_gets_curve_bandwidth},
        {"concurrency 4 at occupancy 0.25: M/M/4 in exclusive, timeslice, mps",
         test_concurrency_is_mmc},
        {"saturated: min(concurrency, f/s) requests per unit of work",
         test_saturated_throughput_min_conc_f_over_s},
        {"one utilisation: SM time, the same in every strategy", test_one_utilisation},
        {"rate model by hand (occupancy, curve, MIG shapes unchanged)", test_rate_model_exact},
        {"the CLI gives the same exact answer", test_cli_same_answer},
        {"the CLI: MPS side by side, time-sliced M/M/1, the capped client",
         test_cli_mps_and_capped},
        {"bad occupancy and concurrency input", test_bad_input},
        {NULL, NULL},
    };
    tu_add_suite("occupancy", t);
}
