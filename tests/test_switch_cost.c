/*
 * switch_cost — a time-slice switch costs the base switch_us plus the outgoing and incoming
 * contexts' state (work.context_state_mb, default the profile's) over the profile's
 * ctx_switch_gbps (calib.h cal_switch_s): saturated capacity q/(q + s) for the s the model
 * gives, by hand.
 */
#include "calib/calib.h"
#include "core/analytic.h"
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>

static void test_state_over_bandwidth(void)
{
    /* GPU 0 (a 56 MB, b 0 MB, base 0): each switch moves 56 MB at 560 GB/s, s = 100 us; two
     * saturated contexts alternate 1 ms slices, so the GPU works q/(q+s) = 1/1.1 of the time
     * and switches the rest, 500/1.1 requests/s each. GPU 1 (c, d at the defaults): 40 us +
     * 2 x 2.8 MB / 560 GB/s = 50 us, the profile's earlier whole-switch estimate. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("switch_cost/state.json"), &sc, &r);
    double s_heavy = cal_switch_s(&sc.gpu, 0, 56, 0);
    double s_def =
        cal_switch_s(&sc.gpu, sc.gpu.switch_s, sc.gpu.context_state_mb, sc.gpu.context_state_mb);
    CU_ASSERT_DOUBLE_EQUAL(s_heavy, 100e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s_def, 50e-6, 1e-12);
    double g_heavy = an_ts_capacity_fraction(1e-3, s_heavy);
    double g_def = an_ts_capacity_fraction(1e-3, s_def);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_THROUGHPUT], 500 * g_heavy, 0.002);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 1)[TM_THROUGHPUT], 500 * g_heavy, 0.002);
    /* Strategy "defaults": GPU 0 pays the base plus 56 MB; GPU 1 the default 50 us. */
    double g_mixed = an_ts_capacity_fraction(1e-3, cal_switch_s(&sc.gpu, sc.gpu.switch_s, 56, 0));
    TU_CHECK_CLOSE_REL(res_t(&r.s[1], 0)[TM_THROUGHPUT], 500 * g_mixed, 0.002);
    TU_CHECK_CLOSE_REL(res_t(&r.s[1], 2)[TM_THROUGHPUT], 500 * g_def, 0.002);
    TU_CHECK_CLOSE_REL(res_t(&r.s[1], 3)[TM_THROUGHPUT], 500 * g_def, 0.002);
    /* Utilisation and switching over the two GPUs of the "defaults" strategy. */
    TU_CHECK_CLOSE_REL(r.s[1].m[SM_UTIL], (g_mixed + g_def) / 2, 0.002);
    TU_CHECK_CLOSE_REL(r.s[1].m[SM_SWITCH], (2 - g_mixed - g_def) / 2, 0.01);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_bad_state(void)
{
    char *text =
        tu_fixture_patch("switch_cost/state.json", "{\"tenants.0.work.context_state_mb\": -1}");
    tu_expect_load_error(text, "tenants[0].work.context_state_mb");
    free(text);
}

void test_switch_cost_register(void)
{
    static const struct tu_test t[] = {
        {"switch = base + contexts' state / bandwidth: q/(q+s) by hand", test_state_over_bandwidth},
        {"bad context_state_mb", test_bad_state},
        {NULL, NULL},
    };
    tu_add_suite("switch_cost", t);
}
