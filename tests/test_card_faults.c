/*
 * card_faults — gpu_fault_rate_per_h (core/gpufault.h): a card fault takes a whole GPU down —
 * every context, client, instance and VM on it — for the profile's gpu_reset_s. The faults are
 * common random numbers, so every strategy sees the same outages; against the alternating
 * renewal answer for the fraction of time up.
 */
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>

static const double *tm(const struct run_result *r, int strat, int tenant)
{
    return res_t(&r->s[strat], tenant);
}

static void test_same_outages_everywhere(void)
{
    /* Faults at 180/h per GPU (a mean gap of 20 s), a 10 s reset: a GPU is up an
     * exponential 20 s on average, then down 10 s, so up 20/30 of the time (faults during a
     * reset do not restart it). Both tenants on GPU 0 are down exactly when it is, under
     * time-slicing, MPS, MIG (startup_s 0) and exclusive alike (a's own GPU 0): the same
     * availability to the last digit. Requests in service at a fault fail; the others wait. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("card_faults/every-strategy.json"), &sc, &r);
    CU_ASSERT_DOUBLE_EQUAL(sc.gpu.gpu_reset_s, 10, 0);
    double gap = 3600 / sc.gpu_fault_rate_per_h, up = gap / (gap + sc.gpu.gpu_reset_s);
    double a0 = tm(&r, 0, 0)[TM_AVAILABILITY];
    TU_CHECK_CLOSE_REL(a0, up, 0.03);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 2; i++) {
            const double *t = tm(&r, k, i);
            if (k < 3 || i == 0)
                CU_ASSERT_DOUBLE_EQUAL(t[TM_AVAILABILITY], a0, 0);
            CU_ASSERT(t[TM_FAILED] >= 1);
            CU_ASSERT_EQUAL(t[TM_ARRIVED], t[TM_COMPLETED] + t[TM_FAILED] + t[TM_IN_FLIGHT]);
        }
    /* Exclusive's b is on GPU 1, whose faults are its own. */
    CU_ASSERT(tm(&r, 3, 1)[TM_AVAILABILITY] != a0);
    TU_CHECK_CLOSE_REL(tm(&r, 3, 1)[TM_AVAILABILITY], up, 0.03);
    /* MPS: one fault domain, both clients' requests in service fail together. */
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 1, 0)[TM_FAILED], tm(&r, 1, 1)[TM_FAILED], 0);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_pool_survives_one_gpu(void)
{
    /* One tenant on two GPUs (exclusive with both, or a vGPU on each): down only while
     * both reset at once, 1 − (1/3)² of the time up for independent GPUs; exactly the same
     * in both strategies. Time-sliced on GPU 0 alone: 2/3. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("card_faults/pool.json"), &sc, &r);
    double down = sc.gpu.gpu_reset_s / (3600 / sc.gpu_fault_rate_per_h + sc.gpu.gpu_reset_s);
    double both = tm(&r, 0, 0)[TM_AVAILABILITY];
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 1, 0)[TM_AVAILABILITY], both, 0);
    TU_CHECK_CLOSE_REL(both, 1 - down * down, 0.03);
    TU_CHECK_CLOSE_REL(tm(&r, 2, 0)[TM_AVAILABILITY], 1 - down, 0.03);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_default_no_faults_and_bad_input(void)
{
    char *text = tu_fixture_patch("card_faults/pool.json", "{\"gpu_fault_rate_per_h\": 0, "
                                                           "\"stop.duration_s\": 100}");
    struct scenario sc;
    struct run_result r;
    tu_run_text(text, &sc, &r);
    free(text);
    for (int k = 0; k < 3; k++) {
        CU_ASSERT_DOUBLE_EQUAL(tm(&r, k, 0)[TM_AVAILABILITY], 1, 0);
        CU_ASSERT_DOUBLE_EQUAL(tm(&r, k, 0)[TM_FAILED], 0, 0);
    }
    run_result_free(&r);
    scn_free(&sc);
    text = tu_fixture_patch("card_faults/pool.json", "{\"gpu_fault_rate_per_h\": -1}");
    tu_expect_load_error(text, "gpu_fault_rate_per_h");
    free(text);
}

void test_card_faults_register(void)
{
    static const struct tu_test t[] = {
        {"a card fault takes every tenant of the GPU down, the same in every strategy",
         test_same_outages_everywhere},
        {"a tenant on two GPUs is down only when both are", test_pool_survives_one_gpu},
        {"no card faults by default; bad rate", test_default_no_faults_and_bad_input},
        {NULL, NULL},
    };
    tu_add_suite("card_faults", t);
}
