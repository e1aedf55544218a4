/*
 * interference — MPS bandwidth from demand and the knee, an engine's CPU phase under MPS, the
 * refill after a time-slice switch, and the validation table of docs/mps-vgpu.md recomputed
 * from its fixtures (tests/fixtures/sharing/). Every figure by hand from the A100-80GB profile:
 * 108 SMs, mem_bw_sm_curve (14 SMs 0.25, 98 SMs 1), mem_bw_knee_sm_fraction 0.58,
 * switch_us 40, context_state_mb 2.8 over ctx_switch_gbps 560, timeslice_refill_us 62.
 */
#include "calib/calib.h"
#include "core/analytic.h"
#include "core/llmstats.h"
#include "core/rate.h"
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KNEE 0.58

/* C(f) by hand: the larger of the MIG bound and f / knee. */
static double curve(double f)
{
    double sms = f * 108, mig = sms <= 14   ? 0.25 * sms / 14
                                : sms >= 98 ? 1
                                            : 0.25 + (sms - 14) / 84 * 0.75;
    return fmax(mig, fmin(1, f / KNEE));
}

static void test_profile_keys(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("interference/knee.json"), &sc, &r);
    CU_ASSERT_DOUBLE_EQUAL(sc.gpu.bw_knee_sm, KNEE, 0);
    CU_ASSERT_DOUBLE_EQUAL(sc.gpu.ts_refill_s, 62e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(sc.gpu.mps_bw_loss, 0, 0);
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * Below the knee: a client capped at 20 % of the SMs pulls d = C(0.2) = 0.2 / 0.58 = 0.345
 * (above the MIG bound, 0.318); two of them ask for 0.69 of the bus together, which it holds,
 * so each runs as fast as alone: 1000 × d requests/s of 1 ms. Above it: at 60 % each pulls the
 * whole bus alone (1000/s); two share it by demand, 1/2 each (500/s), and with a co-run loss of
 * 0.1 the bus they share is 0.9 of it (450/s), while the pair below the knee, not contending,
 * loses nothing.
 */
static void test_mps_knee(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("interference/knee.json"), &sc, &r);
    double d = curve(0.2);
    CU_ASSERT(d > 0.25 + 0.75 * (0.2 * 108 - 14) / 84); /* the knee, not the MIG bound */
    TU_CHECK_CLOSE_REL(d, 0.2 / KNEE, 1e-12);
    for (int s = 0; s < 2; s++) {
        for (int t = 0; t < 3; t++)
            TU_CHECK_CLOSE_REL(res_t(&r.s[s], t)[TM_THROUGHPUT], 1000 * d, 0.001);
        TU_CHECK_CLOSE_REL(res_t(&r.s[s], 5)[TM_THROUGHPUT], 1000, 0.001);
    }
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 3)[TM_THROUGHPUT], 500, 0.001);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 4)[TM_THROUGHPUT], 500, 0.001);
    TU_CHECK_CLOSE_REL(res_t(&r.s[1], 3)[TM_THROUGHPUT], 450, 0.001);
    TU_CHECK_CLOSE_REL(res_t(&r.s[1], 4)[TM_THROUGHPUT], 450, 0.001);
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * An engine's CPU phase leaves the GPU to the other client. The memory-bound plain request
 * (1 s of work; capped at 60 % of the SMs it pulls the whole bus, C(0.6) = 1: speed 1 alone)
 * starts at 0; the engine's 512-token prefill step starts at 1 ms, capped at 60 % too. The
 * caps add up to 1.2, so each client gets 1/2 of the SMs, and both pull C(0.5) = 0.862 and
 * share the bus by demand, 1/2 each: the step's GPU part lasts g = max(tc, tm) / 0.5
 * (Llama-2-7B fp16 on the roofline) and the plain request runs at 1/2 meanwhile. Then the
 * step's 50 ms CPU phase, in which the plain request runs alone, at 1. It ends at 1 + g / 2;
 * had the CPU phase held the GPU, at 1 + (g + 0.05) / 2.
 */
static void test_mps_cpu_phase(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("interference/cpu-phase.json"), &sc, &r);
    double p = 6738415616.0, n = 512;
    double flops = 2 * p * n + 4.0 * 32 * 32 * 128 * (n * (n + 1) / 2);
    double bytes = 2 * p + 524288.0 * n;
    double tc = flops / (312e12 * 0.7), tm = bytes / (2039e9 * 0.85);
    double g = fmax(tc, tm) / 0.5;
    TU_CHECK_CLOSE_REL(r.s[0].llm[LM_TTFT_MEAN], g + 0.050, 1e-9);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 1)[TM_LAT_MEAN], 1 + g / 2, 1e-9);
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * A time-sliced pair with the refill, by hand. Two saturated contexts alternate 1 ms slices;
 * each switch costs 40 us + both states / 560 GB/s + the incoming context's refill, 62 us ×
 * its state / 2.8 MB. GPU 0 (2.8 and 2.8 MB): 40 + 10 + 62 = 112 us a switch, a cycle of
 * 2 × 1.112 ms does 1 ms of each context's 10 ms requests: 1 / (2 × 1.112e-3) / 100 = 44.96/s
 * each. GPU 1 (2.8 and 5.6 MB): 40 + 15 + 124 into the heavy one, 40 + 15 + 62 back, a cycle of
 * 2.296 ms: 43.55/s each. Without the refill (refill_us 0): 50 us, 47.62/s; 55 us, 47.39/s.
 * The planner's bound is the same fraction of the GPU: q / (q + s + r).
 */
static void test_ts_refill_pair(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("interference/ts-refill.json"), &sc, &r);
    double st = 2.8e6 / 560e9, heavy = 5.6e6 / 560e9;
    double cyc0 = 2 * (1e-3 + 40e-6 + 2 * st + 62e-6);
    double cyc1 = 2e-3 + 2 * (40e-6 + st + heavy) + 62e-6 + 124e-6;
    TU_CHECK_CLOSE_REL(cyc0, 2.224e-3, 1e-9);
    TU_CHECK_CLOSE_REL(cyc1, 2.296e-3, 1e-9);
    for (int t = 0; t < 2; t++)
        TU_CHECK_CLOSE_REL(res_t(&r.s[0], t)[TM_THROUGHPUT], 1e-3 / cyc0 / 10e-3, 0.002);
    for (int t = 2; t < 4; t++)
        TU_CHECK_CLOSE_REL(res_t(&r.s[0], t)[TM_THROUGHPUT], 1e-3 / cyc1 / 10e-3, 0.002);
    double cyc0_bare = 2 * (1e-3 + 40e-6 + 2 * st), cyc1_bare = 2e-3 + 2 * (40e-6 + st + heavy);
    for (int t = 0; t < 2; t++)
        TU_CHECK_CLOSE_REL(res_t(&r.s[1], t)[TM_THROUGHPUT], 1e-3 / cyc0_bare / 10e-3, 0.002);
    for (int t = 2; t < 4; t++)
        TU_CHECK_CLOSE_REL(res_t(&r.s[1], t)[TM_THROUGHPUT], 1e-3 / cyc1_bare / 10e-3, 0.002);
    /* The bound the planner and the stability estimate use. */
    TU_CHECK_CLOSE_REL(an_ts_capacity_fraction_refill(1e-3, 50e-6, 62e-6), 1 / 1.112, 1e-12);
    TU_CHECK_CLOSE_REL(cal_refill_s(&sc.gpu, sc.gpu.ts_refill_s, 5.6), 124e-6, 1e-12);
    CU_ASSERT(isnan(an_ts_capacity_fraction_refill(1e-3, 50e-6, -1)));
    run_result_free(&r);
    scn_free(&sc);
}

static void test_bad_refill(void)
{
    char *text =
        tu_fixture_patch("interference/ts-refill.json", "{\"strategies.0.refill_us\": -1}");
    tu_expect_load_error(text, "strategies[0].refill_us");
    free(text);
}

/*
 * The part of a request more SMs do not shorten, under MPS, by hand. Three saturated clients of
 * the dnn-inference preset (no occupancy knee, host_fraction p = 0.566, fitted on the NOS
 * YOLOS-small fit rows) share the SMs by demand, 1/3 each: each runs at 1 / (p + (1 - p) × 3)
 * = 1 / 1.868 of its speed alone, 100 / 1.868 = 53.53 requests/s of 10 ms, and the three
 * together at 3 / 1.868 = 1.606 times one alone (NOS measured 1.609). The occupancy knee this
 * replaces (max_sm_fraction 0.503) gave 2 × 0.5 / 0.503 = 1.99 from 2 clients on, whatever
 * their number.
 */
static void test_mps_serial_part(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("interference/serial-part.json"), &sc, &r);
    double p = sc.tenants[0].work.host_fraction;
    CU_ASSERT_DOUBLE_EQUAL(p, 0.566, 0);
    CU_ASSERT_DOUBLE_EQUAL(rate_occupancy(&sc.tenants[0]), 1, 0); /* no knee */
    double each = 100 / (p + (1 - p) * 3), sum = 0;
    TU_CHECK_CLOSE_REL(each, 53.533, 1e-4);
    for (int t = 0; t < 3; t++) {
        TU_CHECK_CLOSE_REL(res_t(&r.s[0], t)[TM_THROUGHPUT], each, 0.001);
        sum += res_t(&r.s[0], t)[TM_THROUGHPUT];
    }
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 3)[TM_THROUGHPUT], 100, 0.001);
    TU_CHECK_CLOSE_REL(sum / res_t(&r.s[0], 3)[TM_THROUGHPUT], 3 / (p + 3 * (1 - p)), 0.001);
    run_result_free(&r);
    scn_free(&sc);
}

static double fixture_host_fraction(const char *rel)
{
    struct scenario sc;
    tu_load_file(tu_fixture(rel), &sc);
    double p = sc.tenants[0].work.host_fraction;
    CU_ASSERT_DOUBLE_EQUAL(sc.tenants[0].work.max_sm_fraction, 1, 0);
    scn_free(&sc);
    return p;
}

/*
 * OpenMM's curve: fitted on the pme row alone (two clients at 1 / (p + 2 (1 - p)) each, so
 * 1 - p = 2 / 1.4498 - 1 = 0.3795), and for ApoA1 the size rule of the fixtures: the SM-bound
 * part of a step over the rest grows with the atoms, 0.3795 / 0.6205 × 92 / 23 = 2.4464, so
 * 1 - p = 2.4464 / 3.4464 = 0.7098. The MIG row of the same system uses the same curve.
 */
static void test_openmm_size_rule(void)
{
    double pme = fixture_host_fraction("sharing/mps-openmm-pme-2sims.json");
    double apoa1 = fixture_host_fraction("sharing/mps-openmm-apoa1pme-2sims.json");
    double mig = fixture_host_fraction("sharing/mig-openmm-apoa1pme-2inst.json");
    TU_CHECK_CLOSE_REL(1 - pme, 2 / 1.4498 - 1, 2e-4);
    double x = (1 - pme) / pme * 92 / 23;
    TU_CHECK_CLOSE_REL(x, 2.4464, 2e-4);
    TU_CHECK_CLOSE_REL(1 - apoa1, x / (1 + x), 2e-4);
    CU_ASSERT_DOUBLE_EQUAL(mig, apoa1, 0);
}

/*
 * The GOPEBBLE fixture's dedicated arm is the source's dedicated arm: median TPOT 52.3 ms and
 * TTFT 497.5 ms (what the roofline and vLLM's fitted terms leave of them sized as CPU time per
 * step and time before the engine), and 1,557 output tokens/s over the two engines.
 */
static void test_gopebble_dedicated_arm(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("sharing/gopebble-qwen3-4b.json"), &sc, &r);
    double tpot = 0, ttft = 0, tps = 0;
    for (int t = 0; t < 2; t++) {
        tpot += r.s[0].llm[t * LM_N + LM_TPOT_P50] / 2;
        ttft += r.s[0].llm[t * LM_N + LM_TTFT_P50] / 2;
        tps += r.s[0].llm[t * LM_N + LM_OUTPUT_TPS];
    }
    TU_CHECK_CLOSE_REL(tpot, 52.3e-3, 0.01);
    TU_CHECK_CLOSE_REL(ttft, 497.5e-3, 0.01);
    TU_CHECK_CLOSE_REL(tps, 1557.1, 0.03);
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * The V100 rows (TRTLAB_MPS, both holdout) by hand, from the model as it stands: nothing was
 * fitted to them. Eight saturated TensorRT ResNet-50 services of the dnn-inference preset
 * (host_fraction p = 0.566 from the YOLOS rows) share the V100-SXM2-16GB's SMs by demand:
 * each at 1 / (p + 8 (1 - p)) = 1 / 4.038 of its speed alone, the eight together at
 * 8 / 4.038 = 1.981 times one alone (measured 2.4241: 18 % short). Time-sliced, each switch
 * costs the profile's 40 + 2 x 2.8 MB / 560 GB/s + 62 us = 112 us after a 1024 us slice, so
 * the eight together run at 1024 / 1136 = 0.901 of one alone (measured 0.9515).
 */
static void test_v100_rows_by_hand(void)
{
    const char *fx[] = {"sharing/mps-trtlab-rn50-b1-8proc.json",
                        "sharing/ts-trtlab-rn50-b1-8proc.json"};
    double p = 0.566, want[] = {8 / (p + 8 * (1 - p)), 1024.0 / (1024 + 40 + 10 + 62)};
    TU_CHECK_CLOSE_REL(want[0], 1.9812, 1e-4);
    TU_CHECK_CLOSE_REL(want[1], 0.90141, 1e-4);
    for (int k = 0; k < 2; k++) {
        struct scenario sc;
        struct run_result r;
        tu_run_file(tu_fixture(fx[k]), &sc, &r);
        CU_ASSERT_STRING_EQUAL(sc.gpu.name, "V100-SXM2-16GB");
        CU_ASSERT_EQUAL(sc.gpu.total_sms, 80);
        CU_ASSERT_EQUAL(sc.n_tenants, 9);
        CU_ASSERT_DOUBLE_EQUAL(sc.tenants[0].work.host_fraction, p, 0);
        double sum = 0, alone = res_t(&r.s[0], 8)[TM_THROUGHPUT];
        for (int t = 0; t < 8; t++)
            sum += res_t(&r.s[0], t)[TM_THROUGHPUT];
        TU_CHECK_CLOSE_REL(alone, 1000 / 2.6091, 0.001); /* the source's 383.267/s */
        TU_CHECK_CLOSE_REL(sum / alone, want[k], 0.002);
        run_result_free(&r);
        scn_free(&sc);
    }
}

/* The ratio a table row reads from its fixture's run (make_table.py's ratio()). */
static double row_ratio(struct run_result *r, const struct scenario *sc, const char *how)
{
    if (!strcmp(how, "pods")) {
        double sum = 0;
        for (int t = 0; t < sc->n_tenants - 1; t++)
            sum += res_t(&r->s[0], t)[TM_THROUGHPUT];
        return sum / res_t(&r->s[0], sc->n_tenants - 1)[TM_THROUGHPUT];
    }
    int key = !strcmp(how, "llm_tps")    ? LM_OUTPUT_TPS
              : !strcmp(how, "llm_tpot") ? LM_TPOT_P50
                                         : LM_TTFT_P50;
    double v[2] = {0, 0};
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < sc->n_tenants; t++)
            v[s] += r->s[s].llm[t * LM_N + key];
    return v[1] / v[0];
}

/*
 * Every predicted ratio of tests/fixtures/sharing/table.csv, recomputed from a run of its
 * fixture, and printed in docs/mps-vgpu.md's validation table as the table has it: neither can
 * drift from the model unnoticed.
 */
static void test_validation_table(void)
{
    char *csv = tu_slurp(tu_fixture("sharing/table.csv"));
    char *doc = tu_slurp("docs/mps-vgpu.md");
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    int rows = 0;
    char *save = NULL;
    strtok_r(csv, "\n", &save); /* the header */
    for (char *line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char id[96], fx[96], how[16], role[16], path[160], cell[160];
        double measured, predicted;
        CU_ASSERT_FATAL(sscanf(line, "%95[^,],%95[^,],%15[^,],%15[^,],%lf,%lf", id, fx, how, role,
                               &measured, &predicted) == 6);
        snprintf(path, sizeof path, "sharing/%s", fx);
        struct scenario sc;
        struct run_result r;
        tu_run_file(tu_fixture(path), &sc, &r);
        TU_CHECK_CLOSE_REL(row_ratio(&r, &sc, how), predicted, 6e-5); /* to its 4 digits */
        snprintf(cell, sizeof cell, "| `%s` | %s | %.4f | %.4f |", id, role, measured, predicted);
        if (!strstr(doc, cell))
            fprintf(stderr, "docs/mps-vgpu.md lacks the row %s\n", cell);
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, cell));
        run_result_free(&r);
        scn_free(&sc);
        rows++;
    }
    CU_ASSERT_EQUAL(rows, 13);
    free(csv);
    free(doc);
}

void test_interference_register(void)
{
    static const struct tu_test t[] = {
        {"the profile's knee, refill and co-run loss", test_profile_keys},
        {"MPS: memory-bound pairs below and above the bandwidth knee by hand", test_mps_knee},
        {"MPS: an engine's CPU phase lets the other client run alone", test_mps_cpu_phase},
        {"MPS: clients' serial part with the SMs shared by demand, by hand", test_mps_serial_part},
        {"MPS: OpenMM's curve from the pme row and the size rule", test_openmm_size_rule},
        {"MPS: the GOPEBBLE fixture's dedicated arm is the source's", test_gopebble_dedicated_arm},
        {"time-slicing: a pair's throughput with the refill by hand", test_ts_refill_pair},
        {"time-slicing: a negative refill_us is refused", test_bad_refill},
        {"MPS and time-slicing: the V100 rows by hand", test_v100_rows_by_hand},
        {"validation table: predicted ratios recomputed from the fixtures", test_validation_table},
        {NULL, NULL},
    };
    tu_add_suite("interference", t);
}
