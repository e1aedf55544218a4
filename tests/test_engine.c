/*
 * engine (core/engine.c): common random numbers across strategies (the same arrivals and
 * work whatever the policy does with them) and the request ledger, which balances even
 * with requests left in flight at the stop.
 */
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_common_random_numbers(void)
{
    /* Two strategies that differ only in GPU numbering must give identical numbers. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("engine/two-tenants.json"), &sc, &r);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < TM_N; k++) {
            double a = res_t(&r.s[0], i)[k], b = res_t(&r.s[1], i)[k];
            CU_ASSERT(a == b || (isnan(a) && isnan(b)));
        }
    /* Deterministic tenant b alone on a GPU: every latency is exactly 3 ms. */
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 1)[TM_LAT_P99], 3e-3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], 1)[TM_LAT_P50], 3e-3, 1e-12);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_conservation_without_drain(void)
{
    /* Overloaded tenant, stop without draining: requests are left in flight and the
     * ledger still balances. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("engine/conservation-no-drain.json"), &sc, &r);
    const double *t = r.s[0].t;
    CU_ASSERT(t[TM_IN_FLIGHT] > 0);
    CU_ASSERT(t[TM_REJECTED] > 0);
    CU_ASSERT_EQUAL(t[TM_ARRIVED],
                    t[TM_COMPLETED] + t[TM_REJECTED] + t[TM_FAILED] + t[TM_IN_FLIGHT]);
    CU_ASSERT(t[TM_IN_FLIGHT] <= 101);
    run_result_free(&r);
    scn_free(&sc);
}

void test_engine_register(void)
{
    static const struct tu_test t[] = {
        {"common random numbers across strategies", test_common_random_numbers},
        {"conservation with requests left in flight", test_conservation_without_drain},
        {NULL, NULL},
    };
    tu_add_suite("engine", t);
}
