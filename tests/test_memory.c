/*
 * memory — resident memory and OOM under time-slicing (docs/scenario.md#timeslice): a
 * process's memory_gb is held from its start, so tenants that do not fit a card together
 * are a load error; with "oom": "simulate" a tenant's memory_growth can over-commit the
 * card, and every process that allocates during the overflow is OOM-killed and restarts
 * after its restart_s. Failures, kills, restarts and availabilities computed by hand.
 */
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

static const double *tm(const struct run_result *r, int strat, int tenant)
{
    return res_t(&r->s[strat], tenant);
}

/* details.gpus[g].<key> of strategy k (timeslice), or details of the MIG instance: -1. */
static double gpu_detail(const struct run_result *r, int k, const char *key)
{
    const cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r->s[k].details, "gpus"), 0);
    const cJSON *v = cJSON_GetObjectItem(g0, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void test_two_50gb_do_not_fit(void)
{
    /* 50 + 50 GB resident on an 80 GB card: a load error, and "oom": "simulate" does not
     * change that (it simulates growth, not tenants that never fit). */
    const char *msg = "strategies[0]: tenants on GPU 0 need 100 GB together, a A100-80GB has 80 "
                      "GB (time-slicing does not isolate memory, and a process's memory is "
                      "resident from its start";
    char *text = tu_fixture_patch("memory/two-50gb.json", NULL);
    tu_expect_load_error(text, msg);
    free(text);
    text = tu_fixture_patch("memory/two-50gb.json", "{\"strategies.0.oom\": \"simulate\"}");
    tu_expect_load_error(text, msg);
    free(text);
    /* From the command line: exit 2 with the same message. */
    char cmd[512], err[2048];
    snprintf(cmd, sizeof cmd, "run %s", tu_fixture("memory/two-50gb.json"));
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "need 100 GB together");
}

static void test_grower_is_killed_first(void)
{
    /* a grows 30 → 50 GB at 1.005 s next to b's 40: 90 > 80. a's request at 1.01 s is the
     * first allocation: it fails and a is OOM-killed; 40 GB remain, so b (arrivals at even
     * hundredths) never sees the overflow. a restarts at 1.505 s (restart_s 0.495) and its
     * 30 GB fit: one kill, one restart, one failed request, a down 0.495 s of the 3 s window,
     * and its 49 queued requests (1.02 … 1.50 s) are served after the restart. Without
     * "oom": "simulate" the growth is not simulated: nothing fails. */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("memory/grower-first.json"), &sc, &r);
    const double *a = tm(&r, 0, 0), *b = tm(&r, 0, 1);
    CU_ASSERT_DOUBLE_EQUAL(a[TM_FAILED], 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(a[TM_COMPLETED], a[TM_ARRIVED] - 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(a[TM_AVAILABILITY], 1 - 0.495 / 3, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(b[TM_FAILED], 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(b[TM_AVAILABILITY], 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(gpu_detail(&r, 0, "ooms"), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(gpu_detail(&r, 0, "restarts"), 1, 0);
    /* The first of the 49 waited longest: from 1.02 s to the restart at 1.505 s, then ran
     * 1 ms (the p999 of 299 samples is their maximum, kept exactly). */
    CU_ASSERT_DOUBLE_EQUAL(a[TM_LAT_P999], 1.505 + 0.001 - 1.02, 1e-9);
    for (int i = 0; i < 2; i++)
        CU_ASSERT_DOUBLE_EQUAL(tm(&r, 1, i)[TM_FAILED], 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(gpu_detail(&r, 1, "ooms"), 0, 0);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_restarts_fail_until_the_growth_ends(void)
{
    /* b allocates first (1.01 s): b is killed, its request fails, its 40 GB are freed and
     * a keeps 50. b's restarts at 1.51, 2.01, 2.51 s need 40 GB with 30 free: killed again
     * each time; a's growth ends at 3.005 s; the restart at 3.01 s fits. b: 4 kills, 1
     * restart, 1 failed request, down 2 s of 5; a: untouched. The same in a 7g.80gb
     * instance with nested time-slicing (78.5 GB: the same fits and overflows). */
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("memory/other-first.json"), &sc, &r);
    for (int k = 0; k < 2; k++) {
        const double *a = tm(&r, k, 0), *b = tm(&r, k, 1);
        CU_ASSERT_DOUBLE_EQUAL(a[TM_FAILED], 0, 0);
        CU_ASSERT_DOUBLE_EQUAL(a[TM_AVAILABILITY], 1, 0);
        CU_ASSERT_DOUBLE_EQUAL(b[TM_FAILED], 1, 0);
        CU_ASSERT_DOUBLE_EQUAL(b[TM_AVAILABILITY], 1 - 2.0 / 5, 1e-9);
    }
    CU_ASSERT_DOUBLE_EQUAL(gpu_detail(&r, 0, "ooms"), 4, 0);
    CU_ASSERT_DOUBLE_EQUAL(gpu_detail(&r, 0, "restarts"), 1, 0);
    run_result_free(&r);
    scn_free(&sc);
}

/* The growth overflow from the command line, on its JSON: the same kill, restart, failed
 * request and availability as computed by hand (test_grower_is_killed_first). */
static void test_cli_growth_overflow(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "run %s --quiet --no-slowdown",
             tu_fixture("memory/grower-first.json"));
    cJSON *doc = tu_cli_json(cmd);
    CU_ASSERT_DOUBLE_EQUAL(tu_json_num(doc, "strategies.0.tenants.0.failed"), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(tu_json_num(doc, "strategies.0.tenants.0.availability"), 1 - 0.495 / 3,
                           1e-6);
    CU_ASSERT_DOUBLE_EQUAL(tu_json_num(doc, "strategies.0.tenants.1.failed"), 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(tu_json_num(doc, "strategies.0.details.gpus.0.ooms"), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(tu_json_num(doc, "strategies.0.details.gpus.0.restarts"), 1, 0);
    cJSON_Delete(doc);
}

static void test_bad_input(void)
{
    char *text = tu_fixture_patch("memory/grower-first.json",
                                  "{\"tenants.0.memory_growth\": {\"at_s\": 1, \"gb\": 0, "
                                  "\"for_s\": 1}}");
    tu_expect_load_error(text, "tenants[0].memory_growth.gb: expected a number > 0");
    free(text);
    text = tu_fixture_patch("memory/grower-first.json",
                            "{\"tenants.0.memory_growth\": {\"at_s\": 1, \"gb\": 2}}");
    tu_expect_load_error(text, "tenants[0].memory_growth.for_s");
    free(text);
    text = tu_fixture_patch("memory/grower-first.json", "{\"tenants.0.restart_s\": -1}");
    tu_expect_load_error(text, "tenants[0].restart_s");
    free(text);
}

void test_memory_register(void)
{
    static const struct tu_test t[] = {
        {"two 50 GB tenants on an 80 GB card: a load error, simulate or not",
         test_two_50gb_do_not_fit},
        {"growth overflow: the grower allocates first, is killed, restarts (by hand)",
         test_grower_is_killed_first},
        {"growth overflow: restarts fail until the growth ends (timeslice, nested MIG)",
         test_restarts_fail_until_the_growth_ends},
        {"the CLI gives the same kill, restart and failed request", test_cli_growth_overflow},
        {"bad memory_growth and restart_s", test_bad_input},
        {NULL, NULL},
    };
    tu_add_suite("memory", t);
}
