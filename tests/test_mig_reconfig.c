/*
 * mig_reconfig — MIG reconfiguration one instance at a time (NVIDIA: creating or destroying
 * a GPU instance does not disturb the others, K8S_DP issue #992; docs/domain.md#reconfiguration):
 * kept instances go on serving, destroyed ones fail their requests in service, created ones
 * serve after create_s plus their tenants' startup_s. Exact availabilities and failures.
 */
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double *tm(const struct run_result *r, int strat, int tenant)
{
    return res_t(&r->s[strat], tenant);
}

static void test_other_instance_untouched(void)
{
    /* At 5.001 s b's 3g.40gb becomes a 2g.20gb. a's 3g.40gb is the same instance in the new
     * layout, kept at memory slice 0: its availability is exactly 1, nothing of it fails,
     * and every figure of a equals the run without the change (same random numbers, an
     * isolated instance). b's request in flight (arrived at 5.00 s, 2.57 ms of service)
     * fails, and b has no instance from 5.001 s until create_s + startup_s = 2 + 1.5 s
     * later: availability 1 − 3.5/20. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("mig_reconfig/one-instance.json"), &sc, &r);
    const double *a = tm(&r, 0, 0), *a0 = tm(&r, 1, 0), *b = tm(&r, 0, 1);
    CU_ASSERT_DOUBLE_EQUAL(a[TM_AVAILABILITY], 1.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(a[TM_FAILED], 0, 0);
    for (int k = 0; k < TM_N; k++)
        if (k != TM_SLOWDOWN_P99 && !isnan(a0[k]))
            CU_ASSERT_DOUBLE_EQUAL(a[k], a0[k], 0);
    CU_ASSERT_DOUBLE_EQUAL(b[TM_AVAILABILITY], 1 - 3.5 / 20, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(b[TM_FAILED], 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(b[TM_COMPLETED], b[TM_ARRIVED] - 1, 0);
    /* The backlog of 3.5 s (350 requests) is worked off by the 2g.20gb afterwards. */
    CU_ASSERT(b[TM_LAT_P99] > 1.0);
    const cJSON *insts = cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(r.s[0].details, "gpus"), 0), "instances");
    CU_ASSERT_STRING_EQUAL(
        cJSON_GetObjectItem(cJSON_GetArrayItem(insts, 0), "profile")->valuestring, "3g.40gb");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(insts, 0), "start")->valueint, 0);
    CU_ASSERT_STRING_EQUAL(
        cJSON_GetObjectItem(cJSON_GetArrayItem(insts, 1), "profile")->valuestring, "2g.20gb");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(insts, 1), "start")->valueint, 4);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_change_before_creation(void)
{
    /* b's instance changes at 5.0005 s and, before the 2g.20gb exists (at 8.5005 s), again
     * at 6.0005 s: that creation is voided and the new 3g.40gb serves at 6.0005 + 3.5 s.
     * b is down 4.5 s of 20, fails its one request in flight; a is never touched. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("mig_reconfig/twice.json"), &sc, &r);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 0)[TM_AVAILABILITY], 1.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 0)[TM_FAILED], 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 0)[TM_LAT_P999], 1e-3 * 108 / 42, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 1)[TM_AVAILABILITY], 1 - 4.5 / 20, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 1)[TM_FAILED], 1, 0);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_every_instance_changes(void)
{
    /* Nothing of the old layout is kept: a is down create_s (3 s), b create_s + startup_s
     * (4 s), c create_s (3 s, moving from the nested instance it shared with b to a 1g of
     * its own). The requests in service on destroyed instances fail (a's and b's); c's
     * request that was waiting behind b's in the nested instance is still queued and served
     * by its new instance. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("mig_reconfig/whole-gpu.json"), &sc, &r);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 0)[TM_AVAILABILITY], 1 - 3.0 / 20, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 1)[TM_AVAILABILITY], 1 - 4.0 / 20, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 2)[TM_AVAILABILITY], 1 - 3.0 / 20, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 0)[TM_FAILED], 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, 1)[TM_FAILED] + tm(&r, 0, 2)[TM_FAILED], 1, 0);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_DOUBLE_EQUAL(tm(&r, 0, i)[TM_IN_FLIGHT], 0, 0);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_cli_same_answer(void)
{
    /* From the command line: a's availability exactly 1, b's 1 - 3.5/20. */
    char cmd[1024], err[4096];
    const char *json = tu_write("reconf.json", "");
    snprintf(cmd, sizeof cmd, "run %s --quiet --no-slowdown --json %s",
             tu_fixture("mig_reconfig/one-instance.json"), json);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    char *text = tu_slurp(json);
    cJSON *doc = cJSON_Parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *ts = cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0), "tenants");
    CU_ASSERT_DOUBLE_EQUAL(
        cJSON_GetObjectItem(cJSON_GetArrayItem(ts, 0), "availability")->valuedouble, 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(
        cJSON_GetObjectItem(cJSON_GetArrayItem(ts, 1), "availability")->valuedouble, 0.825, 1e-9);
    cJSON_Delete(doc);
    free(text);
}

static void test_bad_input(void)
{
    char *text =
        tu_fixture_patch("mig_reconfig/one-instance.json", "{\"strategies.0.reconfig_s\": 3}");
    tu_expect_load_error(text, "strategies[0].reconfig_s: a reconfiguration no longer takes the "
                               "whole GPU down: the time until a created instance exists is "
                               "\"create_s\"");
    free(text);
    text = tu_fixture_patch("mig_reconfig/one-instance.json", "{\"tenants.1.startup_s\": -1}");
    tu_expect_load_error(text, "tenants[1].startup_s");
    free(text);
}

void test_mig_reconfig_register(void)
{
    static const struct tu_test t[] = {
        {"one instance re-cut: the other's availability exactly 1, figures unchanged",
         test_other_instance_untouched},
        {"a change before the creation finishes voids it", test_change_before_creation},
        {"every instance changes: each down create_s + startup_s", test_every_instance_changes},
        {"the CLI gives the same availabilities", test_cli_same_answer},
        {"bad input: reconfig_s renamed, startup_s range", test_bad_input},
        {NULL, NULL},
    };
    tu_add_suite("mig_reconfig", t);
}
