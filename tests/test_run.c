/*
 * run (core/run.c): replications of every strategy, their 95% confidence intervals
 * and the CI fields of the result document.
 */
#include "core/run.h"
#include "core/scenario.h"
#include "report/report.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void test_replications_ci(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("run/replications.json"), &sc, &r);
    double mean = r.s[0].t[TM_LAT_MEAN], ci = r.s[0].t_ci[TM_LAT_MEAN];
    CU_ASSERT(ci > 0 && ci < 0.1 * mean);
    /* M/M/1 at ρ = 0.5: E[T] = 2 ms; the CI should cover it (95 %; this seed does). */
    CU_ASSERT(fabs(mean - 2e-3) <= ci * 1.5);
    /* P(T > 5 ms) = e^{-500·0.005} = e^{-2.5}: attainment ≈ 0.918. */
    TU_CHECK_CLOSE_REL(r.s[0].t[TM_SLA_ATTAINMENT], 1 - exp(-2.5), 0.01);
    cJSON *j = rep_json(&sc, &r);
    const cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "strategies"), 0);
    const cJSON *t0 = cJSON_GetArrayItem(cJSON_GetObjectItem(st, "tenants"), 0);
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(t0, "latency_ms_ci95"));
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(st, "gpu_utilization_ci95"));
    cJSON_Delete(j);
    run_result_free(&r);
    scn_free(&sc);
}

void test_run_register(void)
{
    static const struct tu_test t[] = {
        {"replications give 95% confidence intervals", test_replications_ci},
        {NULL, NULL},
    };
    tu_add_suite("run", t);
}
