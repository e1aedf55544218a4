/*
 * tenant (core/tenant.c): trace replay and the synthetic arrival processes.
 *  - replay: a hand-checkable three-request trace, the Azure slices record by record (times,
 *    time_scale, limit, token work exactly), the full conversation trace's request count,
 *    determinism across replications, a trace that changes after load;
 *  - synthetic arrivals against closed forms: MMPP-2 mean rate and exact inter-arrival SCV
 *    (phase-type moments), diurnal mean rate and half-period split, gamma CV;
 *  - the shipped replay scenarios and their synthetic twins.
 * `sharesim trace gen` is in test_cmd_trace.c, the loader's trace errors in test_scenario.c.
 */
#define _DEFAULT_SOURCE /* realpath() */
#include "core/engine.h"
#include "core/run.h"
#include "core/scenario.h"
#include "core/tenant.h"
#include "testutil.h"
#include "io/trace.h"
#include "io/tracestats.h"
#include "base/util.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CONV "traces/AzureLLMInferenceTrace_conv.csv"
#define CONV1000 "traces/AzureLLMInferenceTrace_conv.head1000.csv"

/* Absolute path of the repository root (scenarios in the temporary directory name traces). */
static const char *root_abs(void)
{
    static char buf[4096];
    if (!buf[0] && !realpath(tu_root(), buf))
        snprintf(buf, sizeof buf, "%s", tu_root());
    return buf;
}

/* ---- replay -------------------------------------------------------------- */

static void test_three_requests(void)
{
    /* One GPU, FIFO: (0 s, 10 ms) → done 10 ms; (5 ms, 10 ms) waits 5 ms → done 20 ms;
     * (100 ms, 5 ms) → done 105 ms. Latencies 10, 15, 5 ms: mean 10 ms, mean wait 5/3 ms.
     * Arrivals end with the last row (100 ms): the window is [0, 0.1] s, the GPU is busy
     * 20 ms of it (20 %), and 2 completions fall in it (20/s). */
    tu_write("three.csv", "time_s,work_ms\n0,10\n0.005,10\n0.1,5\n");
    const char *path =
        tu_one_tenant("three.json",
                      "{\"process\": \"trace\", \"path\": \"three.csv\", \"format\": "
                      "\"sharesim\"}",
                      "{\"dist\": \"trace\"}", "\"replications\": 3,");
    struct scenario sc;
    tu_load_file(path, &sc);
    CU_ASSERT_EQUAL(sc.tenants[0].arrival.trace_count, 3);
    struct run_opts o = {0, -1, 0, 0};
    struct run_result r;
    CU_ASSERT_EQUAL_FATAL(run_scenario(&sc, &o, &r, NULL, 0), 0);
    const double *t = r.s[0].t;
    CU_ASSERT_EQUAL(t[TM_ARRIVED], 3);
    CU_ASSERT_EQUAL(t[TM_COMPLETED], 3);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_LAT_MEAN], 10e-3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_WAIT_MEAN], 5e-3 / 3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].m[SM_UTIL], 0.2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_THROUGHPUT], 20, 1e-9);
    TU_CHECK_CLOSE_REL(t[TM_LAT_P99], 15e-3, 0.01);
    /* Replications replay the same trace: identical figures, a zero-width interval. */
    CU_ASSERT_EQUAL(r.replications, 3);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].t_ci[TM_LAT_MEAN], 0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].t_ci[TM_ARRIVED], 0, 1e-15);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_two_trace_tenants(void)
{
    /* Tenant a's trace ends first; b's arrivals go on until its own end; both on one GPU
     * each. a: 10 ms at 0. b: 1 ms at 50 ms and at 60 ms. */
    tu_write("ta.csv", "time_s,work_ms\n0,10\n");
    tu_write("tb.csv", "time_s,work_ms\n0.05,1\n0.06,1\n");
    /* The scenario replays ta.csv and tb.csv from its own directory: copy it there. */
    char *path = tu_fixture_write("two.json", "tenant/two-trace-tenants.json", NULL);
    struct scenario sc;
    tu_load_file(path, &sc);
    struct strategy_result r;
    CU_ASSERT_EQUAL_FATAL(run_one(&sc, &sc.strategies[0], 0, &r, NULL, 0), 0);
    CU_ASSERT_EQUAL(res_t(&r, 0)[TM_COMPLETED], 1);
    CU_ASSERT_EQUAL(res_t(&r, 1)[TM_COMPLETED], 2);
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r, 0)[TM_LAT_MEAN], 10e-3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r, 1)[TM_LAT_MEAN], 1e-3, 1e-15);
    strategy_result_free(&r);
    scn_free(&sc);
}

/* Writes a one-tenant scenario replaying CONV1000 with tokens work and extra arrival keys;
 * returns its path. */
static const char *conv1000(const char *arrival_extra)
{
    char arrival[512];
    snprintf(arrival, sizeof arrival,
             "{\"process\": \"trace\", \"path\": \"%s/" CONV1000 "\", \"format\": \"azure-llm\"%s}",
             root_abs(), arrival_extra);
    const char *path = tu_one_tenant("conv1000.json", arrival,
                                     "{\"dist\": \"tokens\", \"prefill_ms_per_token\": 0.08, "
                                     "\"decode_ms_per_token\": 12}",
                                     "");
    return path;
}

/* Replays tenant 0 through ten_next and compares with the reader record by record. */
static void check_records(const struct scenario *sc, double scale, long limit)
{
    const struct tenant_cfg *cfg = &sc->tenants[0];
    struct tenant_rt t;
    memset(&t, 0, sizeof t);
    ten_init(&t, cfg, sc->path, sc->seed, 0, 0);
    char err[SS_ERRLEN];
    struct tr_reader *r = tr_open(CONV1000, TR_AZURE_LLM, NULL, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    struct tr_record rec;
    double now = 0, tn, w, sum_work = 0;
    long n = 0, in_sum = 0, out_sum = 0, bad = 0;
    while (ten_next(&t, now, &tn, &w)) {
        if (tr_next(r, &rec, err, sizeof err) != 1) {
            bad++;
            break;
        }
        if (tn != rec.time_s * scale ||
            w != 0.08e-3 * (double)rec.input_tokens + 12e-3 * (double)rec.output_tokens)
            bad++;
        in_sum += rec.input_tokens;
        out_sum += rec.output_tokens;
        sum_work += w;
        now = tn;
        n++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(n, limit);
    CU_ASSERT_EQUAL(ten_next(&t, now, &tn, &w), 0); /* the end is sticky */
    if (limit == 1000) {
        /* tests/trace_expected.py: token sums 1,014,189 in, 247,262 out; last arrival 216.027393 s
         */
        CU_ASSERT_EQUAL(in_sum, 1014189);
        CU_ASSERT_EQUAL(out_sum, 247262);
        CU_ASSERT_DOUBLE_EQUAL(now, 216.027393 * scale, 1e-9);
        TU_CHECK_CLOSE_REL(sum_work, 0.08e-3 * 1014189 + 12e-3 * 247262, 1e-12);
        TU_CHECK_CLOSE_REL(ten_mean_work(cfg), sum_work / 1000, 1e-12);
        TU_CHECK_CLOSE_REL(ten_mean_rate(cfg), 999 / (216.027393 * scale), 1e-9);
    }
    tr_close(r);
    ten_free(&t);
}

static void test_conv_slice_records(void)
{
    struct scenario sc;
    tu_load_file(conv1000(""), &sc);
    CU_ASSERT_EQUAL(sc.tenants[0].arrival.trace_count, 1000);
    check_records(&sc, 1.0, 1000);
    /* The first row, by hand: 374 prompt and 44 generated tokens → 29.92 + 528 ms. */
    struct tenant_rt t;
    memset(&t, 0, sizeof t);
    ten_init(&t, &sc.tenants[0], sc.path, 1, 0, 0);
    double tn, w;
    CU_ASSERT_EQUAL(ten_next(&t, 0, &tn, &w), 1);
    CU_ASSERT_EQUAL(tn, 0);
    CU_ASSERT_DOUBLE_EQUAL(w, 0.55792, 1e-15);
    ten_free(&t);
    scn_free(&sc);
    tu_load_file(conv1000(", \"time_scale\": 2"), &sc);
    check_records(&sc, 2.0, 1000);
    scn_free(&sc);
    tu_load_file(conv1000(", \"time_scale\": 0.25, \"limit\": 100"), &sc);
    CU_ASSERT_EQUAL(sc.tenants[0].arrival.trace_count, 100);
    check_records(&sc, 0.25, 100);
    scn_free(&sc);
}

static void test_conv_full_count(void)
{
    /* The whole conversation trace through the engine: 19,366 requests arrive and complete
     * (slowed 20× so one GPU keeps up; the count does not depend on it). */
    char arrival[512];
    snprintf(arrival, sizeof arrival,
             "{\"process\": \"trace\", \"path\": \"%s/" CONV
             "\", \"format\": \"azure-llm\", \"time_scale\": 20}",
             root_abs());
    const char *path = tu_one_tenant("conv.json", arrival,
                                     "{\"dist\": \"tokens\", \"prefill_ms_per_token\": 0.08, "
                                     "\"decode_ms_per_token\": 12}",
                                     "");
    struct scenario sc;
    tu_load_file(path, &sc);
    CU_ASSERT_EQUAL(sc.tenants[0].arrival.trace_count, 19366);
    TU_CHECK_CLOSE_REL(ten_mean_rate(&sc.tenants[0]), 5.530136 / 20, 1e-6);
    TU_CHECK_CLOSE_REL(ten_arrival_scv(&sc.tenants[0]), 1.0941699818437727 * 1.0941699818437727,
                       1e-9);
    struct strategy_result r;
    CU_ASSERT_EQUAL_FATAL(run_one(&sc, &sc.strategies[0], 0, &r, NULL, 0), 0);
    CU_ASSERT_EQUAL(res_t(&r, 0)[TM_ARRIVED], 19366);
    CU_ASSERT_EQUAL(res_t(&r, 0)[TM_COMPLETED], 19366);
    CU_ASSERT_EQUAL(res_t(&r, 0)[TM_IN_FLIGHT], 0);
    strategy_result_free(&r);
    scn_free(&sc);
}

/* Loads a 3-row trace scenario, rewrites the trace, runs; expects the run to fail with the
 * message naming the scenario, the tenant and the trace, and needle. */
static void changed_case(const char *rewritten, const char *needle)
{
    tu_write("shrink.csv", "time_s,work_ms\n0,1\n1,1\n2,1\n");
    const char *path =
        tu_one_tenant("shrink.json",
                      "{\"process\": \"trace\", \"path\": \"shrink.csv\", \"format\": "
                      "\"sharesim\"}",
                      "{\"dist\": \"trace\"}", "");
    struct scenario sc;
    tu_load_file(path, &sc);
    tu_write("shrink.csv", rewritten);
    struct strategy_result r;
    char msg[SS_ERRLEN] = "";
    CU_ASSERT_EQUAL(run_one(&sc, &sc.strategies[0], 0, &r, msg, sizeof msg), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "shrink.json: tenant \"a\": trace "));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "changed after the scenario was loaded: "));
    if (!strstr(msg, needle))
        fprintf(stderr, "\n  expected \"%s\" in: %s\n", needle, msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, needle));
    scn_free(&sc);
}

static void test_trace_changed_after_load(void)
{
    /* The loader validated 3 rows; the file then changes. The run must stop and say so, not
     * replay something else (the message goes up to the CLI, which prints it and exits
     * 2). */
    changed_case("time_s,work_ms\n0,1\n1,1\n", "it ended after 2 records, 3 when loaded");
    changed_case("time_s,work_ms\n0,1\n1,1\n2,1\n3,1\n", "more than the 3 records");
    changed_case("time_s,work_ms\n0,1\n1,x\n2,1\n", "shrink.csv:3:3: field \"work_ms\"");
    changed_case("", "shrink.csv");
}

/* ---- synthetic arrivals ---------------------------------------------------- */

struct gap_stats {
    double rate_per_s; /* n / t_n */
    double scv;        /* population SCV of the gaps */
    double t_end;
    long n;
};

/* Draws n arrivals of cfg's process (seeded like tenant 0, replication 0). */
static void draw_gaps(const struct tenant_cfg *cfg, uint64_t seed, long n, struct gap_stats *g)
{
    struct tenant_rt t;
    memset(&t, 0, sizeof t);
    ten_init(&t, cfg, NULL, seed, 0, 0);
    double now = 0, tn, w, sum = 0, sum2 = 0;
    long ended = 0;
    for (long i = 0; i < n; i++) {
        ended += ten_next(&t, now, &tn, &w) != 1;
        double gap = tn - now;
        sum += gap;
        sum2 += gap * gap;
        now = tn;
    }
    double mean = sum / (double)n;
    g->rate_per_s = (double)n / now;
    g->scv = (sum2 / (double)n - mean * mean) / (mean * mean);
    g->t_end = now;
    g->n = n;
    CU_ASSERT_EQUAL(ended, 0);
    ten_free(&t);
}

/*
 * Exact squared CV of the stationary inter-arrival time of a 2-state MMPP. Arrival epochs see
 * state i with probability π_i λ_i / λ̄; the gap is then phase-type with sub-generator
 * D0 = Q − Λ, so E[X^k] = k! π_a (−D0)^{−k} 1.
 */
static double mmpp2_scv(double l1, double d1, double l2, double d2)
{
    double a = 1 / d1, b = 1 / d2;
    double p1 = b / (a + b), p2 = a / (a + b), lam = p1 * l1 + p2 * l2;
    double q1 = p1 * l1 / lam, q2 = p2 * l2 / lam;
    double m00 = a + l1, m01 = -a, m10 = -b, m11 = b + l2, det = m00 * m11 - m01 * m10;
    double i00 = m11 / det, i01 = -m01 / det, i10 = -m10 / det, i11 = m00 / det;
    double v0 = i00 + i01, v1 = i10 + i11;                     /* (−D0)^−1 1 */
    double w0 = i00 * v0 + i01 * v1, w1 = i10 * v0 + i11 * v1; /* (−D0)^−2 1 */
    double m1 = q1 * v0 + q2 * v1, m2 = 2 * (q1 * w0 + q2 * w1);
    return m2 / (m1 * m1) - 1;
}

static void test_mmpp2(void)
{
    /* 20/s for 0.5 s on average, 1/s for 2 s: λ̄ = (20·0.5 + 1·2)/2.5 = 4.8/s; exact gap SCV
     * 4.61 (CV 2.15): strongly bursty. 400,000 arrivals ≈ 33,000 state cycles; the counts'
     * index of dispersion is 10.6, so the rate estimate's standard error is 0.5 % (seeds 1-10
     * measured: rate within 1.0 %, SCV within 1.1 %). */
    struct tenant_cfg c;
    tu_tenant_cfg(&c, ARR_MMPP, 0);
    c.arrival.n_states = 2;
    c.arrival.state_rate_per_s[0] = 20;
    c.arrival.state_dwell_s[0] = 0.5;
    c.arrival.state_rate_per_s[1] = 1;
    c.arrival.state_dwell_s[1] = 2;
    CU_ASSERT_DOUBLE_EQUAL(ten_mean_rate(&c), 4.8, 1e-12);
    double scv = mmpp2_scv(20, 0.5, 1, 2);
    CU_ASSERT_DOUBLE_EQUAL(scv, 4.61, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(mmpp2_scv(20, 5, 1, 20), 6.449056603773585, 1e-9);
    /* Sanity of the formula: equal rates make it Poisson (SCV 1). */
    CU_ASSERT_DOUBLE_EQUAL(mmpp2_scv(3, 1, 3, 7), 1.0, 1e-12);
    struct gap_stats g;
    draw_gaps(&c, 7, 400000, &g);
    TU_CHECK_CLOSE_REL(g.rate_per_s, 4.8, 0.02);
    TU_CHECK_CLOSE_REL(g.scv, scv, 0.03);
    CU_ASSERT(g.scv > 1.5);
    /* Three states, uniform jumps: time in a state ∝ its dwell. */
    c.arrival.n_states = 3;
    c.arrival.state_rate_per_s[2] = 0;
    c.arrival.state_dwell_s[2] = 1;
    CU_ASSERT_DOUBLE_EQUAL(ten_mean_rate(&c), (20 * 0.5 + 1 * 2 + 0 * 1) / 3.5, 1e-12);
    draw_gaps(&c, 8, 400000, &g);
    TU_CHECK_CLOSE_REL(g.rate_per_s, 12 / 3.5, 0.02);
}

static void test_diurnal(void)
{
    /* rate 50·(1 + 0.8 sin(2π t/100)): over whole periods the mean rate is 50/s, and the
     * first half of each period holds ∫₀^{P/2} (1 + A sin) / P = 1/2 + A/π of the arrivals. */
    struct tenant_cfg c;
    tu_tenant_cfg(&c, ARR_DIURNAL, 50);
    c.arrival.amplitude = 0.8;
    c.arrival.period_s = 100;
    int periods = 80;
    struct tenant_rt t;
    memset(&t, 0, sizeof t);
    ten_init(&t, &c, NULL, 3, 0, 0);
    double now = 0, tn, w, end = periods * 100.0;
    long n = 0, first_half = 0;
    while (ten_next(&t, now, &tn, &w) && tn < end) {
        n++;
        if (fmod(tn, 100.0) < 50.0)
            first_half++;
        now = tn;
    }
    ten_free(&t);
    TU_CHECK_CLOSE_REL(n / end, 50.0, 0.02);
    TU_CHECK_CLOSE_REL((double)first_half / (double)n, 0.5 + 0.8 / 3.14159265358979323846, 0.01);
}

static void test_gamma(void)
{
    struct tenant_cfg c;
    tu_tenant_cfg(&c, ARR_GAMMA, 100);
    c.arrival.cv = 2;
    struct gap_stats g;
    draw_gaps(&c, 5, 400000, &g); /* rate standard error 2/sqrt(n) = 0.32 % */
    TU_CHECK_CLOSE_REL(sqrt(g.scv), 2.0, 0.03);
    TU_CHECK_CLOSE_REL(g.rate_per_s, 100, 0.01);
    CU_ASSERT_DOUBLE_EQUAL(ten_arrival_scv(&c), 4.0, 1e-12);
}

/* ---- the shipped replay scenarios ------------------------------------------------ */

static void test_workloads_and_twins(void)
{
    /* The replay scenarios load, load the GPU as their descriptions say, and their twins
     * match the trace's mean rate and work mean and CV (the twins' numbers are rounded). */
    static const struct {
        const char *trace, *twin;
        long count;
        double rho;
    } w[] = {
        {"workloads/trace-replay-conv.json", "workloads/trace-replay-conv-poisson.json", 19366,
         0.40},
        {"workloads/trace-replay-code.json", "workloads/trace-replay-code-poisson.json", 8819,
         0.41},
        {"workloads/trace-replay-code.json", "workloads/trace-replay-code-mmpp.json", 8819, 0.41},
    };
    for (size_t k = 0; k < sizeof w / sizeof w[0]; k++) {
        struct scenario a, b;
        tu_load_file(w[k].trace, &a);
        tu_load_file(w[k].twin, &b);
        const struct tenant_cfg *ta = &a.tenants[0], *tb = &b.tenants[0];
        CU_ASSERT_EQUAL(ta->arrival.trace_count, w[k].count);
        TU_CHECK_CLOSE_REL(ten_mean_rate(ta) * ten_mean_work(ta), w[k].rho, 0.01);
        TU_CHECK_CLOSE_REL(ten_mean_rate(tb), ten_mean_rate(ta), 1e-4);
        TU_CHECK_CLOSE_REL(ten_mean_work(tb), ten_mean_work(ta), 1e-4);
        TU_CHECK_CLOSE_REL(ten_work_scv(tb), ten_work_scv(ta), 1e-3);
        scn_free(&a);
        scn_free(&b);
    }
}

void test_tenant_register(void)
{
    static const struct tu_test tests[] = {
        {"three requests replayed, by hand", test_three_requests},
        {"two trace tenants end independently", test_two_trace_tenants},
        {"conversation slice record by record: tokens, time_scale, limit", test_conv_slice_records},
        {"full conversation trace: 19,366 requests", test_conv_full_count},
        {"trace changed after load: the run fails with the message", test_trace_changed_after_load},
        {"MMPP-2: stationary rate and exact SCV", test_mmpp2},
        {"diurnal: mean rate and half-period split", test_diurnal},
        {"gamma: CV and rate", test_gamma},
        {"replay workloads load; their twins match the traces", test_workloads_and_twins},
        {NULL, NULL},
    };
    tu_add_suite("tenant", tests);
}
