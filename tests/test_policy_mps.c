/*
 * MPS policy tests against exact answers: M/M/1 at the thread-percentage speed,
 * saturated throughputs that follow from the SM and bandwidth shares, a rate
 * change in the middle of a request, the shared fault domain (compared with an
 * isolated MIG-backed vGPU), client limits and bad input.
 */
#include "core/analytic.h"
#include "core/rate.h"
#include "core/run.h"
#include "core/scenario.h"
#include "policy/units/mpsunit.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD "{\"name\": \"t\", \"gpu\": \"A100-80GB\", "

static double tp(const struct run_result *r, int strat, int tenant)
{
    return res_t(&r->s[strat], tenant)[TM_THROUGHPUT];
}

static void test_half_speed_mm1(void)
{
    /* One compute client capped at 50 % of the SMs, alone: M/M/1 with μ = 500/s.
     * Light load λ = 100/s: E[T] = 1/(μ − λ) = 2.5 ms, p99 = ln(100)/(μ − λ). */
    long n = tu_sanitized() ? 100000 : 400000;
    struct scenario sc;
    struct run_result r;
    tu_run_fixture(&sc, &r, "policy_mps/half-speed-mm1.json", "{\"stop.requests\": %ld}", n);
    const double *t = r.s[0].t;
    TU_CHECK_CLOSE_REL(t[TM_LAT_MEAN], an_mmc_mean_sojourn_s(100, 500, 1), 0.03);
    TU_CHECK_CLOSE_REL(t[TM_LAT_P99], an_mmc_sojourn_quantile_s(100, 500, 1, 0.99), 0.05);
    /* Busy 20 % of the time holding half the SMs. */
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 0.1, 0.02);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_saturated_compute(void)
{
    /* Two saturated compute clients, 1 ms requests. 50/50 and 100/100 (caps scaled
     * down in proportion) both give each half the GPU: 500/s. 30/30 fits within the
     * GPU: each runs at its cap, 300/s, and 40 % of the SMs idle. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_mps/saturated-compute.json"), &sc, &r);
    static const double want[] = {500, 500, 300};
    for (int k = 0; k < 3; k++) {
        TU_CHECK_CLOSE_REL(tp(&r, k, 0), want[k], 0.001);
        TU_CHECK_CLOSE_REL(tp(&r, k, 1), want[k], 0.001);
        TU_CHECK_CLOSE_REL(r.s[k].m[SM_UTIL], 2 * want[k] / 1000, 1e-6);
        CU_ASSERT_DOUBLE_EQUAL(r.s[k].m[SM_SWITCH], 0, 0);
    }
    run_result_free(&r);
    scn_free(&sc);
}

static void test_memory_bandwidth(void)
{
    /* Bandwidth is not partitioned, and follows the SMs: a client's half of the SMs can
     * pull d = C(1/2) of it (0.5 / 0.58 = 0.862 on the A100-80GB: past the MIG bound, below
     * the knee). Two memory clients at 100/100 (no co-run loss): 2d > 1, so they get half
     * each (500/s). A mixed client (compute_share 0.5, memory weight 0.5) next to a memory
     * client: SMs 1/2 each; the mixed one shares the bus with one other stream,
     * bw = d·min(1, 1/(2d)) = 1/2, speed 1/(0.5/0.5 + 0.5/0.5) = 1/2; the memory one
     * with half a stream, bw = d·min(1, 1/(1.5d)) = 2/3 (the bus is the limit), speed 2/3.
     * With a co-run loss of 0.3 two memory streams get 0.35 each; the profile's default is
     * 0 (fitted to the published MPS rows, docs/mps-vgpu.md). */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_mps/memory-bandwidth.json"), &sc, &r);
    double d = rate_bw_curve(&sc.gpu, 0.5);
    CU_ASSERT(d > 1.0 / 1.5 && d < 1);
    CU_ASSERT_DOUBLE_EQUAL(sc.gpu.mps_bw_loss, 0, 0);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 0), 500, 0.001);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 1), 500, 0.001);
    TU_CHECK_CLOSE_REL(tp(&r, 1, 2), 500, 0.001);
    TU_CHECK_CLOSE_REL(tp(&r, 1, 0), 1000 / 1.5, 0.001);
    TU_CHECK_CLOSE_REL(tp(&r, 2, 0), 350, 0.001);
    TU_CHECK_CLOSE_REL(tp(&r, 2, 1), 350, 0.001);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_compute_memory_beats_timeslice(void)
{
    /* A compute and a memory client, saturated, exponential 1 ms work. Under MPS each has
     * half the SMs: the compute client runs at 1/2, the memory client has the bus to
     * itself but its half of the SMs pull only C(1/2) of it (mem_bw_sm_curve): 1/2 + C(1/2)
     * GPUs' worth of work per second (1.107 on the A100-80GB). Time-slicing the same pair
     * runs one context at a time, so at most q/(q+s) of one GPU (an_ts_capacity_fraction
     * with the profile's 1.024 ms slice and 50 µs switch = 0.953); serial exclusive-style
     * service of both on one GPU would give 1.0. */
    long secs = tu_sanitized() ? 20 : 60;
    struct scenario sc;
    struct run_result r;
    tu_run_fixture(&sc, &r, "policy_mps/compute-memory-pair.json", "{\"stop.duration_s\": %ld}",
                   secs);
    double work_per_s = (tp(&r, 0, 0) + tp(&r, 0, 1)) * 1e-3;
    double d = rate_bw_curve(&sc.gpu, 0.5);
    TU_CHECK_CLOSE_REL(work_per_s, 0.5 + d, 0.02);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 1), 1000 * d, 0.02);
    double ts = an_ts_capacity_fraction(sc.gpu.timeslice_s, sc.gpu.switch_s);
    CU_ASSERT(ts < 1.0);
    CU_ASSERT(work_per_s > 1.1 * ts);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_rate_change_mid_request(void)
{
    /* Client a is saturated with 0.7 ms requests; b gets a 1 ms request every 10 ms.
     * While b is in service both run at half speed, so b takes exactly 2 ms and a does
     * 8 + 2 × 0.5 = 9 ms of work per 10 ms: 9/0.7 requests per 10 ms. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_mps/rate-change.json"), &sc, &r);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 0), 900 / 0.7, 0.002);
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 1)[TM_LAT_MEAN], 2e-3, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 1)[TM_LAT_P999], 2e-3, 2e-3 * 0.004);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 1.0, 1e-6);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_multi_gpu(void)
{
    /* Four saturated compute tenants on 2 GPUs: round robin puts two on each (500/s
     * each); all on GPU 0 gives 250/s each and leaves GPU 1 free (not billed). */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_mps/multi-gpu.json"), &sc, &r);
    for (int i = 0; i < 4; i++) {
        TU_CHECK_CLOSE_REL(tp(&r, 0, i), 500, 0.002);
        TU_CHECK_CLOSE_REL(tp(&r, 1, i), 250, 0.002);
    }
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 1.0, 1e-6);
    /* Utilisation and cost count the GPUs a strategy occupies: GPU 1 is left free. */
    CU_ASSERT_EQUAL(r.s[1].gpus_used, 1);
    TU_CHECK_CLOSE_REL(r.s[1].m[SM_UTIL], 1.0, 1e-6);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_fault_blast_radius(void)
{
    /* Tenant a faults once a second on average; b never does. Both saturated.
     * MPS: every effective fault (a in service) fails a's and b's request in flight and
     * takes the GPU down for 50 ms, so b fails exactly as often as a, and both lose
     * the same availability: n faults × 50 ms of the window (the last one may be cut).
     * MIG-backed vGPU and time-sliced vGPU: b is untouched. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_mps/fault-blast-radius.json"), &sc, &r);
    const double *a = res_t(&r.s[0], 0), *b = res_t(&r.s[0], 1);
    double n = a[TM_FAILED], w = 200, lost = n * 0.05 / w;
    CU_ASSERT(n > 150);
    CU_ASSERT_EQUAL(b[TM_FAILED], n);
    CU_ASSERT_DOUBLE_EQUAL(a[TM_AVAILABILITY], b[TM_AVAILABILITY], 1e-12);
    CU_ASSERT(b[TM_AVAILABILITY] <= 1 - lost + 0.05 / w + 1e-9);
    CU_ASSERT(b[TM_AVAILABILITY] >= 1 - lost - 1e-9);
    for (int k = 1; k <= 2; k++) {
        CU_ASSERT(res_t(&r.s[k], 0)[TM_FAILED] > 150);
        CU_ASSERT_EQUAL(res_t(&r.s[k], 1)[TM_FAILED], 0);
        CU_ASSERT_EQUAL(res_t(&r.s[k], 1)[TM_AVAILABILITY], 1.0);
        CU_ASSERT_EQUAL(res_t(&r.s[k], 0)[TM_AVAILABILITY], 1.0);
    }
    run_result_free(&r);
    scn_free(&sc);
}

static void test_faults_poisson_no_drain(void)
{
    /* Faults, recoveries and Poisson arrivals with requests left in flight at the stop:
     * the engine's conservation check must hold, and b fails only through a's faults. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_mps/faults-no-drain.json"), &sc, &r);
    /* Every effective fault is one of a's requests failed and one recovery of 0.2 s. */
    const cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r.s[0].details, "gpus"), 0);
    double n = cJSON_GetObjectItem(g0, "faults")->valuedouble, down = n * 0.2 / 60;
    CU_ASSERT(n > 10);
    CU_ASSERT_EQUAL(res_t(&r.s[0], 0)[TM_FAILED], n);
    for (int i = 0; i < 2; i++) {
        const double *t = res_t(&r.s[0], i);
        CU_ASSERT_EQUAL(t[TM_ARRIVED],
                        t[TM_COMPLETED] + t[TM_REJECTED] + t[TM_FAILED] + t[TM_IN_FLIGHT]);
        CU_ASSERT(t[TM_IN_FLIGHT] > 0);
        CU_ASSERT(t[TM_AVAILABILITY] >= 1 - down - 1e-9);
        CU_ASSERT(t[TM_AVAILABILITY] <= 1 - down + 0.2 / 60 + 1e-9);
    }
    CU_ASSERT(res_t(&r.s[0], 1)[TM_FAILED] > 0);
    CU_ASSERT(res_t(&r.s[0], 1)[TM_FAILED] <= n);
    run_result_free(&r);
    scn_free(&sc);
}

/* A scenario with n small compute tenants on one GPU and the given MPS options. */
/* Runs text with the MPS unit's memo on or off (mu_memo_clients). */
static void run_memo(const char *text, int memo, struct scenario *sc, struct run_result *r)
{
    mu_memo_clients = memo ? MU_MEMO_CLIENTS : 0;
    tu_run_text(text, sc, r);
    mu_memo_clients = MU_MEMO_CLIENTS;
}

static void test_memo_equals_general(void)
{
    /* The memo path (clients' work and speeds in padded arrays, speeds per busy set, the table
     * of which speeds change when one client joins or leaves) against the general path (the
     * rate model at every change, each client's group): the same numbers to the bit and the
     * same events, with 3 clients on GPU 0 (a padded lane), 2 on GPU 1, mixed classes, thread
     * caps, and one tenant's faults taking its GPU down and back (abort, recovery). */
    static const char text[] =
        HEAD "\"gpus\": 2, \"seed\": 5, \"stop\": {\"requests\": 40000}, \"tenants\": ["
             "{\"name\": \"c0\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 250}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}, \"class\": \"compute\", "
             "\"fault_rate_per_h\": 1800},"
             "{\"name\": \"m0\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 200}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}, \"class\": \"memory\"},"
             "{\"name\": \"x0\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 150}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 2}, \"class\": \"mixed\", "
             "\"compute_share\": 0.4},"
             "{\"name\": \"c1\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 300}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}, \"class\": \"compute\"},"
             "{\"name\": \"m1\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 300}, "
             "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}, \"class\": \"memory\"}],"
             "\"strategies\": [{\"name\": \"mps\", \"kind\": \"mps\", \"recovery_s\": 0.01, "
             "\"thread_pct\": {\"c0\": 50, \"m0\": 50, \"x0\": 60, \"c1\": 40, \"m1\": 70}, "
             "\"assign\": {\"c0\": 0, \"m0\": 0, \"x0\": 0, \"c1\": 1, \"m1\": 1}}]}";
    struct scenario sa, sb;
    struct run_result a, b;
    run_memo(text, 1, &sa, &a);
    run_memo(text, 0, &sb, &b);
    struct strategy_result *x = &a.s[0], *y = &b.s[0];
    CU_ASSERT(res_t(x, 0)[TM_FAILED] > 0); /* the faults did take GPU 0 down */
    CU_ASSERT(res_t(x, 3)[TM_COMPLETED] > 5000);
    CU_ASSERT_EQUAL(memcmp(x->t, y->t, (size_t)x->n_tenants * TM_N * sizeof *x->t), 0);
    CU_ASSERT_EQUAL(memcmp(x->m, y->m, sizeof x->m), 0);
    CU_ASSERT_EQUAL(a.sim_events, b.sim_events);
    run_result_free(&a);
    run_result_free(&b);
    scn_free(&sa);
    scn_free(&sb);
}

static void test_simultaneous_completions(void)
{
    /* Two compute clients capped at 50 %, 1 ms requests arriving together every 10 ms: the
     * caps fit the GPU, so each runs alone at half speed and both finish at the same instant,
     * 2 ms later. The unit's one timer takes them one after the other (the second due at the
     * same time): both latencies are exactly 2 ms, and the general path agrees to the bit. */
    static const char text[] = HEAD
        "\"stop\": {\"duration_s\": 2}, \"tenants\": ["
        "{\"name\": \"a\", \"arrival\": {\"process\": \"deterministic\", \"rate_per_s\": 100}, "
        "\"work\": {\"dist\": \"deterministic\", \"ms\": 1}, \"class\": \"compute\"},"
        "{\"name\": \"b\", \"arrival\": {\"process\": \"deterministic\", \"rate_per_s\": 100}, "
        "\"work\": {\"dist\": \"deterministic\", \"ms\": 1}, \"class\": \"compute\"}],"
        "\"strategies\": [{\"name\": \"m\", \"kind\": \"mps\", "
        "\"thread_pct\": {\"a\": 50, \"b\": 50}}]}";
    struct scenario sa, sb;
    struct run_result a, b;
    run_memo(text, 1, &sa, &a);
    run_memo(text, 0, &sb, &b);
    for (int i = 0; i < 2; i++) {
        const double *t = res_t(&a.s[0], i);
        CU_ASSERT(t[TM_COMPLETED] >= 199);
        CU_ASSERT_DOUBLE_EQUAL(t[TM_LAT_MEAN], 2e-3, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(t[TM_LAT_P999], 2e-3, 2e-3 * 0.004);
    }
    CU_ASSERT_EQUAL(memcmp(a.s[0].t, b.s[0].t, 2 * TM_N * sizeof *a.s[0].t), 0);
    CU_ASSERT_EQUAL(a.sim_events, b.sim_events);
    run_result_free(&a);
    run_result_free(&b);
    scn_free(&sa);
    scn_free(&sb);
}

static char *many_tenants(int n, const char *opts)
{
    size_t cap = 256 + (size_t)n * 160;
    char *t = ss_xmalloc(cap);
    size_t l = (size_t)snprintf(t, cap, HEAD "\"stop\": {\"requests\": 100}, \"tenants\": [");
    for (int i = 0; i < n; i++)
        l += (size_t)snprintf(t + l, cap - l,
                              "%s{\"name\": \"t%d\", \"arrival\": {\"process\": \"poisson\", "
                              "\"rate_per_s\": 1}, \"work\": {\"dist\": \"exponential\", "
                              "\"mean_ms\": 1}}",
                              i ? ", " : "", i);
    snprintf(t + l, cap - l, "], \"strategies\": [{\"name\": \"m\", \"kind\": \"mps\"%s}]}", opts);
    return t;
}

static void test_client_limit(void)
{
    /* MPSDOC: 48 clients per GPU, 60 from CUDA 13.1. */
    char *t48 = many_tenants(48, "");
    char *t49 = many_tenants(49, "");
    char *t49c = many_tenants(49, ", \"cuda\": \"13.1\"");
    char *t61c = many_tenants(61, ", \"cuda\": \"13.1\"");
    struct scenario sc;
    tu_load_text(t48, &sc);
    scn_free(&sc);
    tu_expect_load_error(t49,
                         "strategies[0]: GPU 0 gets 49 MPS clients, a A100-80GB allows 48 per GPU "
                         "(60 with \"cuda\": \"13.1\" or later)");
    tu_load_text(t49c, &sc);
    scn_free(&sc);
    tu_expect_load_error(t61c, "GPU 0 gets 61 MPS clients, a A100-80GB allows 60 per GPU");
    free(t48);
    free(t49);
    free(t49c);
    free(t61c);
}

static void test_bad_input(void)
{
    static const struct {
        const char *strategy, *msg;
    } cases[] = {
        {"{\"name\": \"m\", \"kind\": \"mps\", \"thread_pct\": {\"a\": 0}}",
         "strategies[0].thread_pct.a: expected a percentage in (0, 100]"},
        {"{\"name\": \"m\", \"kind\": \"mps\", \"thread_pct\": {\"zz\": 50}}",
         "strategies[0].thread_pct.zz: no tenant named \"zz\""},
        {"{\"name\": \"m\", \"kind\": \"mps\", \"cuda\": \"thirteen\"}",
         "strategies[0].cuda: expected a CUDA version like \"13.1\", got \"thirteen\""},
        {"{\"name\": \"m\", \"kind\": \"mps\", \"assign\": {\"a\": 0}}",
         "strategies[0].assign: 1 of 2 tenants are assigned (assign all tenants or none)"},
        {"{\"name\": \"m\", \"kind\": \"mps\", \"assign\": {\"a\": 1, \"b\": 0}}",
         "strategies[0].assign.a: expected a GPU index in [0, 0]"},
        {"{\"name\": \"m\", \"kind\": \"mps\", \"recovery_s\": -1}", "strategies[0].recovery_s"},
        {"{\"name\": \"m\", \"kind\": \"mps\", \"slice_ms\": 1}",
         "strategies[0].slice_ms: unknown key \"slice_ms\""},
    };
    /* Tenants a (10 GB) and b (40 GB) under one MPS strategy that loads; each case replaces
     * the strategy. */
    const char *fixture = "policy_mps/bad-input.json";
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        tu_expect_fixture_error(cases[i].msg, fixture, "{\"strategies.0\": %s}", cases[i].strategy);
    /* No memory isolation: 50 + 40 GB on an 80 GB card. */
    char *text = tu_fixture_patch(fixture, "{\"tenants.0.memory_gb\": 50}");
    tu_expect_load_error(text,
                         "strategies[0]: MPS clients on GPU 0 need 90 GB together, a A100-80GB has "
                         "80 GB (MPS does not isolate memory)");
    /* End to end: exit code 2 and the file named. */
    tu_expect_run_error(tu_write("mps-bad.json", text), NULL);
    free(text);
}

void test_policy_mps_register(void)
{
    static const struct tu_test t[] = {
        {"thread_pct 50 alone = M/M/1 at half speed", test_half_speed_mm1},
        {"saturated compute clients share SMs by caps", test_saturated_compute},
        {"memory clients share bandwidth; mixed weights; contention loss", test_memory_bandwidth},
        {"compute + memory pair beats time-slicing capacity", test_compute_memory_beats_timeslice},
        {"rate change in the middle of a request (exact)", test_rate_change_mid_request},
        {"several GPUs: round robin and assign", test_multi_gpu},
        {"fault blast radius: MPS whole GPU, vGPU own VM", test_fault_blast_radius},
        {"faults with Poisson arrivals, no drain: conservation", test_faults_poisson_no_drain},
        {"memoised clients give the general path's numbers", test_memo_equals_general},
        {"two clients finishing at one instant (exact)", test_simultaneous_completions},
        {"client limit 48, 60 with CUDA 13.1", test_client_limit},
        {"bad input names the path and the numbers", test_bad_input},
        {NULL, NULL},
    };
    tu_add_suite("policy_mps", t);
}
