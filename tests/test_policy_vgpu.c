/*
 * vGPU policy tests against exact answers: the three schedulers with one busy
 * and one idle VM, the hypothetical weighted round robin under saturation, switch
 * overhead q/(q+s), the equal-share cycle seen by periodic arrivals, FIFO inside a VM
 * (M/M/1), MIG-backed instance speeds, licence cost and bad input. A time-sliced vGPU
 * runs compute work at v = 1 − vgpu_overhead_compute of bare metal (the profile's
 * hypervisor cost, COLFAX); the answers below carry that factor. vGPU types, fixed share
 * by type and the overhead by class: tests/test_vgpu_types.c.
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

#define HEAD "{\"name\": \"t\", \"gpu\": \"A100-80GB\", "

static double tp(const struct run_result *r, int strat, int tenant)
{
    return res_t(&r->s[strat], tenant)[TM_THROUGHPUT];
}

/* Compute work on a time-sliced vGPU: the speed left after the hypervisor's cost. */
static double vspeed(const struct scenario *sc)
{
    return 1 - sc->gpu.vgpu_overhead_compute;
}

static void test_busy_and_idle_vm(void)
{
    /* A100-80GB, two 20 GB vGPUs (type A100DX-20C, 4 per GPU), VM a saturated with 1 ms
     * requests, VM b idle, 2 ms slices (≤ 8 vGPUs). fixed_share: a owns one slot in a
     * cycle of 4 (1 / the type's max), 250/s × v; equal_share: one slot in 2 (every
     * running vGPU 1/N whether it has work or not), 500/s × v; best_effort skips the idle
     * VM and a never switches out: the whole GPU, 1000/s × v. The GPU is busy a's share
     * of the time; a never switches. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_vgpu/busy-and-idle-vm.json"), &sc, &r);
    double v = vspeed(&sc);
    static const double share[] = {0.25, 1.0, 0.5};
    for (int k = 0; k <= 2; k++) {
        TU_CHECK_CLOSE_REL(tp(&r, k, 0), 1000 * share[k] * v, 0.001);
        TU_CHECK_CLOSE_REL(r.s[k].m[SM_UTIL], share[k], 0.001);
        CU_ASSERT(r.s[k].m[SM_SWITCH] < 1e-3);
    }
    CU_ASSERT_EQUAL(res_t(&r.s[0], 1)[TM_ARRIVED], 0);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_weights_3_to_1(void)
{
    /* Both VMs saturated, exponential 1 ms work, 2 ms slice, 50 µs switch.
     * hypothetical_weighted (the article's weighted round robin, not an NVIDIA
     * scheduler), weights 3:1: turns of 6 and 2 ms of run time: throughputs 3:1, and the
     * GPU does work 8/(8 + 2 × 0.05) of the time. fixed_share (two A100DX-20C, 4 per GPU):
     * each owns one 2 ms slot of an 8 ms cycle and pays the switch into it from its slot:
     * 1.95/8 of the time each, 1000 × 1.95/8 × v per s, equal whatever the weights were. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_vgpu/weights-3-to-1.json"), &sc, &r);
    double v = vspeed(&sc);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 0) / tp(&r, 0, 1), 3.0, 0.03);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 8 / 8.1, 0.001);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_SWITCH], 0.1 / 8.1, 0.01);
    TU_CHECK_CLOSE_REL(tp(&r, 1, 0), 1000 * 1.95 / 8 * v, 0.01);
    TU_CHECK_CLOSE_REL(tp(&r, 1, 1), 1000 * 1.95 / 8 * v, 0.01);
    TU_CHECK_CLOSE_REL(r.s[1].m[SM_UTIL], 2 * 1.95 / 8, 0.001);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_switch_overhead(void)
{
    /* Two saturated VMs under best_effort: slice q, then a switch s: useful work is
     * q/(q+s) of the time (an_ts_capacity_fraction), the rest is switch_overhead. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_vgpu/switch-overhead.json"), &sc, &r);
    double gamma = an_ts_capacity_fraction(4e-3, 200e-6);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], gamma, 0.001);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_SWITCH], 1 - gamma, 0.01);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 0), 500 * gamma * vspeed(&sc), 0.002);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 1), 500 * gamma * vspeed(&sc), 0.002);
    const cJSON *d = r.s[0].details;
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(d, "slice_ms")->valuedouble, 4, 1e-12);
    /* One switch per 4.2 ms cycle half: 10 s / 4.2 ms, give or take the drain. */
    CU_ASSERT(fabs(cJSON_GetObjectItem(d, "switches")->valuedouble - 10 / 4.2e-3) <= 3);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_equal_share_cycle(void)
{
    /* equal_share (strict round robin over the two running vGPUs), 2 ms slots, cycle
     * [a 0–2 ms][b 2–4 ms]. a gets a 1 ms request every 10 ms, which takes w = 1/v ms on
     * the vGPU: arrivals at 10, 30, 50 … ms fall in b's slot, idle as it is, and wait for
     * a's next slot (2 ms + w); those at 20, 40 … ms fall in a's slot (w). The GPU parks
     * while nothing is queued and finds its place in the cycle again on arrival. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_vgpu/equal-share-cycle.json"), &sc, &r);
    const double *a = res_t(&r.s[0], 0);
    double w = 1e-3 / vspeed(&sc);
    CU_ASSERT_DOUBLE_EQUAL(a[TM_LAT_MEAN], 1e-3 + w, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(a[TM_LAT_P50], w, w * 0.004);
    CU_ASSERT_DOUBLE_EQUAL(a[TM_LAT_P999], 2e-3 + w, 3e-3 * 0.004);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_fifo_inside_vm(void)
{
    /* Two Poisson tenants in one VM, alone on the GPU: the VM serves their requests
     * FIFO by arrival on the whole GPU at the vGPU's speed v, i.e. M/M/1 with
     * λ = 300 + 300, μ = 1000 v. */
    long n = tu_sanitized() ? 100000 : 400000;
    struct scenario sc;
    struct run_result r;
    tu_run_fixture(&sc, &r, "policy_vgpu/fifo-inside-vm.json", "{\"stop.requests\": %ld}", n);
    double v = vspeed(&sc), want = an_mmc_mean_sojourn_s(600, 1000 * v, 1);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_LAT_MEAN], want, 0.03);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 1)[TM_LAT_MEAN], want, 0.03);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 0.6 / v, 0.01);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].m[SM_SWITCH], 0, 0);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_mig_backed(void)
{
    /* MIG-backed instances run side by side at their profile's speed: a compute tenant
     * in 3g.40gb has 42 of 108 SMs, a memory tenant in 2g.20gb 2 of 8 memory slices.
     * Utilisation counts SM time: (42 + 28)/108 while both are busy. 2 GPUs × 2
     * vGPUs are licensed: 2 × $2.85 + 4 × $876/8760 per hour. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_vgpu/mig-backed.json"), &sc, &r);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 0), 2 * 1000 * 42.0 / 108, 0.001);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 1), 2 * 1000 * 2.0 / 8, 0.001);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 70.0 / 108, 1e-6);
    CU_ASSERT_EQUAL(r.s[0].licensed_vgpus, 4);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_COST_PER_HOUR], 2 * 2.85 + 4 * 0.1, 1e-9);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_every_gpu(void)
{
    /* The vgpus layout is applied to every GPU: with 2 GPUs each VM has two instances,
     * so two saturated VMs under best_effort get 2 × 500/s × q/(q+s) × v each, and
     * 2 × 2 vGPUs are licensed. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("policy_vgpu/every-gpu.json"), &sc, &r);
    double want = 2 * 500 * an_ts_capacity_fraction(2e-3, 50e-6) * vspeed(&sc);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 0), want, 0.002);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 1), want, 0.002);
    CU_ASSERT_EQUAL(r.s[0].licensed_vgpus, 4);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_default_slice(void)
{
    /* NVAIE: 2 ms with up to 8 vGPUs on a GPU, 1 ms with more. */
    char text[8192];
    for (int nvm = 8; nvm <= 9; nvm++) {
        size_t l = (size_t)snprintf(text, sizeof text,
                                    HEAD "\"stop\": {\"requests\": 50}, \"tenants\": [");
        for (int i = 0; i < nvm; i++)
            l += (size_t)snprintf(text + l, sizeof text - l,
                                  "%s{\"name\": \"t%d\", \"arrival\": {\"process\": \"poisson\", "
                                  "\"rate_per_s\": 100}, \"work\": {\"dist\": \"exponential\", "
                                  "\"mean_ms\": 1}}",
                                  i ? ", " : "", i);
        l += (size_t)snprintf(text + l, sizeof text - l,
                              "], \"strategies\": [{\"name\": \"v\", \"kind\": \"vgpu\", "
                              "\"vgpus\": [");
        for (int i = 0; i < nvm; i++)
            l += (size_t)snprintf(text + l, sizeof text - l,
                                  "%s{\"fb_gb\": 8, \"tenants\": [\"t%d\"]}", i ? ", " : "", i);
        snprintf(text + l, sizeof text - l, "]}]}");
        struct scenario sc;
        struct run_result r;
        tu_run_text(text, &sc, &r);
        double slice = cJSON_GetObjectItem(r.s[0].details, "slice_ms")->valuedouble;
        CU_ASSERT_DOUBLE_EQUAL(slice, nvm <= 8 ? 2.0 : 1.0, 1e-12);
        CU_ASSERT_EQUAL(r.s[0].licensed_vgpus, nvm);
        run_result_free(&r);
        scn_free(&sc);
    }
}

static void test_bad_input(void)
{
    static const struct {
        const char *strategy, *msg;
    } cases[] = {
        {"\"vgpus\": [{\"fb_gb\": 16, \"tenants\": [\"a\"]}, {\"fb_gb\": 16, \"tenants\": "
         "[\"b\"]}]",
         "strategies[0].vgpus[0].tenants[0]: tenant \"a\" needs 20 GB but this vGPU's frame "
         "buffer is 16 GB: rejected at load"},
        {"\"vgpus\": [{\"fb_gb\": 40, \"tenants\": [\"a\"]}, {\"fb_gb\": 41, \"tenants\": "
         "[\"b\"]}]",
         "strategies[0].vgpus[1].fb_gb: 41 GB is not the frame buffer of a vGPU type of the "
         "A100-80GB (VGPU_UG: the types are A100DX-80C (80 GB, 1 per GPU), A100DX-40C"},
        {"\"vgpus\": [{\"fb_gb\": 40, \"tenants\": [\"a\"]}, {\"type\": \"A100DX-20C\", "
         "\"tenants\": [\"b\"]}]",
         "strategies[0].vgpus: vgpus[0] is A100DX-40C and vgpus[1] A100DX-20C: the "
         "time-sliced vGPUs of a GPU must be of one type (equal-size mode"},
        {"\"vgpus\": [{\"type\": \"A100DX-80C\", \"tenants\": [\"a\"]}, {\"type\": "
         "\"A100DX-80C\", \"tenants\": [\"b\"]}]",
         "strategies[0].vgpus: 2 vGPUs of type A100DX-80C, a A100-80GB takes at most 1"},
        {"\"vgpus\": [{\"type\": \"A100DX-30C\", \"tenants\": [\"a\", \"b\"]}]",
         "strategies[0].vgpus[0].type: no vGPU type \"A100DX-30C\" on the A100-80GB"},
        {"\"vgpus\": [{\"type\": \"A100DX-20C\", \"fb_gb\": 40, \"tenants\": [\"a\", "
         "\"b\"]}]",
         "strategies[0].vgpus[0].fb_gb: 40 GB, but type A100DX-20C has a 20 GB frame buffer"},
        {"\"vgpus\": [{\"tenants\": [\"a\", \"b\"]}]",
         "strategies[0].vgpus[0]: expected \"type\" (one of A100DX-80C"},
        {"\"vgpus\": [{\"fb_gb\": 20, \"weight\": 2, \"tenants\": [\"a\", \"b\"]}]",
         "strategies[0].vgpus[0].weight: NVIDIA's vGPU schedulers have no per-VM weights"},
        {"\"backing\": \"mig\", \"vgpus\": [{\"profile\": \"3g.40gb\", \"fb_gb\": 20, "
         "\"tenants\": [\"a\", \"b\"]}]",
         "strategies[0].vgpus[0].fb_gb: a MIG-backed vGPU's frame buffer is its 3g.40gb "
         "instance's memory"},
        {"\"vgpus\": [{\"fb_gb\": 20, \"tenants\": [\"a\", \"b\"]}, {\"fb_gb\": 20, "
         "\"tenants\": [\"b\"]}]",
         "strategies[0].vgpus[1].tenants[0]: tenant \"b\" is already in vgpus[0]"},
        {"\"vgpus\": [{\"fb_gb\": 20, \"tenants\": [\"a\"]}]",
         "strategies[0].vgpus: tenant \"b\" is in no vGPU"},
        {"\"scheduler\": \"equal_share\", \"vgpus\": [{\"fb_gb\": 20, \"weight\": 2, "
         "\"tenants\": [\"a\", \"b\"]}]",
         "strategies[0].vgpus[0].weight: NVIDIA's vGPU schedulers have no per-VM weights"},
        {"\"scheduler\": \"fair\", \"vgpus\": []", "strategies[0].scheduler"},
        {"\"vgpus\": [{\"fb_gb\": 20, \"profile\": \"3g.40gb\", \"tenants\": [\"a\", \"b\"]}]",
         "strategies[0].vgpus[0].profile: a MIG profile needs \"backing\": \"mig\""},
        {"\"backing\": \"mig\", \"vgpus\": [{\"profile\": \"5g.50gb\", \"tenants\": [\"a\", "
         "\"b\"]}]",
         "strategies[0].vgpus[0].profile: the A100-80GB has no MIG profile \"5g.50gb\""},
        {"\"backing\": \"mig\", \"slice_ms\": 2, \"vgpus\": [{\"profile\": \"3g.40gb\", "
         "\"tenants\": [\"a\", \"b\"]}]",
         "strategies[0].slice_ms: a MIG-backed vGPU is not time-sliced"},
        {"\"backing\": \"mig\", \"vgpus\": [{\"profile\": \"4g.40gb\", \"tenants\": [\"a\"]}, "
         "{\"profile\": \"4g.40gb\", \"tenants\": [\"b\"]}]",
         "strategies[0].vgpus: the MIG instances need 8 compute and 8 memory slices, a "
         "A100-80GB has 7 and 8"},
        {"\"backing\": \"mig\", \"vgpus\": [{\"profile\": \"1g.10gb\", \"tenants\": [\"a\"]}, "
         "{\"profile\": \"3g.40gb\", \"tenants\": [\"b\"]}]",
         "strategies[0].vgpus[0].tenants[0]: tenant \"a\" needs 20 GB but this vGPU's frame "
         "buffer is 9.75 GB"},
        {"\"vgpus\": [{\"fb_gb\": 20, \"tenants\": [\"nobody\"]}]",
         "strategies[0].vgpus[0].tenants[0]: expected the name of a tenant"},
    };
    /* Tenants a (20 GB) and b (10 GB) in two 20 GB vGPUs, which loads; each case replaces the
     * strategy's members after its name and kind. */
    const char *fixture = "policy_vgpu/bad-input.json";
    const char *patch = "{\"strategies.0\": {\"name\": \"v\", \"kind\": \"vgpu\", %s}}";
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        tu_expect_fixture_error(cases[i].msg, fixture, patch, cases[i].strategy);
    /* End to end: the frame-buffer rejection exits 2 and names the file. */
    tu_expect_run_error(tu_fixture_write("vgpu-bad.json", fixture, patch, cases[0].strategy),
                        "rejected at load");
}

void test_policy_vgpu_register(void)
{
    static const struct tu_test t[] = {
        {"one busy + one idle VM: fixed 1/4, equal 1/2, best all (x overhead)",
         test_busy_and_idle_vm},
        {"hypothetical weights 3:1 give 3:1; fixed share ignores weights", test_weights_3_to_1},
        {"switch overhead = 1 - q/(q+s)", test_switch_overhead},
        {"equal-share cycle seen by periodic arrivals (exact)", test_equal_share_cycle},
        {"tenants in one VM: FIFO = M/M/1", test_fifo_inside_vm},
        {"MIG-backed speeds, utilisation and licence cost", test_mig_backed},
        {"layout on every GPU of the pool", test_every_gpu},
        {"default slice 2 ms up to 8 vGPUs, 1 ms above", test_default_slice},
        {"bad input: quotas, layout, scheduler options", test_bad_input},
        {NULL, NULL},
    };
    tu_add_suite("policy_vgpu", t);
}
