/*
 * vgpu_types — vGPU as NVIDIA documents it (VGPU_UG, NVAIE; docs/domain.md#vgpu-schedulers):
 * the vGPU types of a profile, the three schedulers' shares (best_effort work-conserving,
 * equal_share 1/N of the running vGPUs, fixed_share 1/max of the type), the hypervisor's
 * cost by class (COLFAX) and the load errors of combinations that do not exist, against
 * exact answers.
 */
#include "calib/calib.h"
#include "core/analytic.h"
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double tp(const struct run_result *r, int strat, int tenant)
{
    return res_t(&r->s[strat], tenant)[TM_THROUGHPUT];
}

static void test_profile_types(void)
{
    /* The A100-80GB's C-series types: 20 GB, 4 per GPU (the A100-80GB-20C). */
    struct gpu_profile g;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(cal_load("A100-80GB", &g, err, sizeof err), 0);
    const struct vgpu_type *t = cal_vgpu_type(&g, "a100dx-20c");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_DOUBLE_EQUAL(t->fb_gb, 20, 0);
    CU_ASSERT_EQUAL(t->max_per_gpu, 4);
    CU_ASSERT_PTR_EQUAL(cal_vgpu_type_fb(&g, 20), t);
    CU_ASSERT_PTR_NULL(cal_vgpu_type_fb(&g, 30));
    /* Every type fits the GPU max_per_gpu times. */
    static const char *const gpus[] = {"A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB"};
    for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++) {
        CU_ASSERT_EQUAL_FATAL(cal_load(gpus[i], &g, err, sizeof err), 0);
        CU_ASSERT(g.n_vgpu_types >= 3);
        for (int k = 0; k < g.n_vgpu_types; k++)
            CU_ASSERT(g.vgpu_types[k].fb_gb * g.vgpu_types[k].max_per_gpu <= g.memory_gb + 1e-9);
        CU_ASSERT(g.vgpu_overhead_compute > 0 && g.vgpu_overhead_memory > g.vgpu_overhead_compute);
    }
}

static void test_busy_and_idle_shares(void)
{
    /* A100-80GB, two 20 GB vGPUs, one saturated (1 ms work) and one idle. fixed_share
     * serves the busy one at 1/4 of the GPU (1 / A100DX-20C's 4 per GPU), equal_share at
     * 1/2 (two running vGPUs, strict round robin whether they have work or not),
     * best_effort at all of it; each at the time-sliced vGPU's compute speed
     * v = 1 − vgpu_overhead_compute (0.974: Colfax's 5 % less the modelled switches). The
     * busy VM never switches out, so nothing is lost to switches. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("vgpu_types/busy-and-idle.json"), &sc, &r);
    double v = 1 - sc.gpu.vgpu_overhead_compute;
    CU_ASSERT_DOUBLE_EQUAL(v, 0.974, 1e-12);
    static const double share[] = {0.25, 0.5, 1.0};
    for (int k = 0; k < 3; k++) {
        TU_CHECK_CLOSE_REL(tp(&r, k, 0), 1000 * share[k] * v, 0.001);
        CU_ASSERT_DOUBLE_EQUAL(r.s[k].m[SM_SWITCH], 0, 0);
        const cJSON *type = cJSON_GetObjectItem(r.s[k].details, "type");
        CU_ASSERT_STRING_EQUAL(cJSON_IsString(type) ? type->valuestring : "", "A100DX-20C");
    }
    CU_ASSERT_EQUAL(res_t(&r.s[0], 1)[TM_ARRIVED], 0);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_fixed_share_by_type(void)
{
    /* Three saturated A100DX-10C vGPUs (8 per GPU), 2 ms slices, 50 µs switches.
     * fixed_share: each owns one slot of a cycle of 8 × 2 ms and pays the switch into it,
     * 1.95 ms of every 16 (the five unowned slots idle); equal_share: one slot of 3,
     * 1.95 of every 6. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("vgpu_types/fixed-by-type.json"), &sc, &r);
    double v = 1 - sc.gpu.vgpu_overhead_compute;
    for (int i = 0; i < 3; i++) {
        TU_CHECK_CLOSE_REL(tp(&r, 0, i), 1000 * 1.95 / 16 * v, 0.002);
        TU_CHECK_CLOSE_REL(tp(&r, 1, i), 1000 * 1.95 / 6 * v, 0.002);
    }
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], 3 * 1.95 / 16, 0.002);
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_SWITCH], 3 * 0.05 / 16, 0.01);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_overhead_by_class(void)
{
    /* Three saturated VMs on every one of 3 GPUs, best_effort: equal time each,
     * q/(q+s)/3 of a GPU, at the speed of its class: compute 1 − 0.026, memory 1 − 0.16,
     * mixed (half and half) the harmonic blend; exclusive (bare metal) runs each at 1. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("vgpu_types/classes.json"), &sc, &r);
    double vc = 1 - sc.gpu.vgpu_overhead_compute, vm = 1 - sc.gpu.vgpu_overhead_memory;
    double vx = 1 / (0.5 / vc + 0.5 / vm);
    double gamma = an_ts_capacity_fraction(sc.gpu.vgpu_slice_le8_s, sc.gpu.vgpu_switch_s);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 0), 1000 * gamma * vc, 0.003);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 1), 1000 * gamma * vm, 0.003);
    TU_CHECK_CLOSE_REL(tp(&r, 0, 2), 1000 * gamma * vx, 0.003);
    for (int i = 0; i < 3; i++)
        TU_CHECK_CLOSE_REL(tp(&r, 1, i), 1000, 0.001);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_cli_shares(void)
{
    /* The same check from the command line: fixed_share's busy VM at 250 × v per s. */
    char cmd[1024], err[4096];
    const char *json = tu_write("vgpu-types.json", "");
    snprintf(cmd, sizeof cmd, "run %s --quiet --no-slowdown --json %s",
             tu_fixture("vgpu_types/busy-and-idle.json"), json);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    char *text = tu_slurp(json);
    cJSON *doc = cJSON_Parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0);
    const cJSON *t0 = cJSON_GetArrayItem(cJSON_GetObjectItem(s0, "tenants"), 0);
    TU_CHECK_CLOSE_REL(cJSON_GetObjectItem(t0, "throughput_per_s")->valuedouble, 250 * 0.974,
                       0.001);
    cJSON_Delete(doc);
    free(text);
}

void test_vgpu_types_register(void)
{
    static const struct tu_test t[] = {
        {"profile vGPU types: names, frame buffers, counts", test_profile_types},
        {"busy + idle 20C: fixed 1/4, equal 1/2, best all, less the overhead",
         test_busy_and_idle_shares},
        {"fixed_share is 1/max of the type; equal_share 1/N", test_fixed_share_by_type},
        {"hypervisor overhead by class against bare metal", test_overhead_by_class},
        {"the CLI gives the same shares", test_cli_shares},
        {NULL, NULL},
    };
    tu_add_suite("vgpu_types", t);
}
