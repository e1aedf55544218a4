/*
 * loadscale: --scale-load multiplies every arrival rate (exact, per process
 * kind), leaves saturated tenants and the work alone, and a scaled run is
 * byte-identical to the same scenario written with the scaled rate.
 */
#include "core/loadscale.h"
#include "core/scenario.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_scale_kinds(void)
{
    struct scenario sc;
    char err[SS_ERRLEN];
    /* One tenant of each arrival kind, the last saturated. */
    tu_load_file(tu_fixture("loadscale/every-arrival-kind.json"), &sc);
    CU_ASSERT_EQUAL(ls_scale_load(&sc, 2.5, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sc.tenants[0].arrival.rate_per_s, 250);
    CU_ASSERT_EQUAL(sc.tenants[1].arrival.rate_per_s, 125);
    CU_ASSERT_EQUAL(sc.tenants[1].arrival.cv, 0.5);
    CU_ASSERT_EQUAL(sc.tenants[2].arrival.state_rate_per_s[0], 25);
    CU_ASSERT_EQUAL(sc.tenants[2].arrival.state_rate_per_s[1], 75);
    CU_ASSERT_EQUAL(sc.tenants[2].arrival.state_dwell_s[1], 2);
    CU_ASSERT_EQUAL(sc.tenants[3].arrival.rate_per_s, 50);
    CU_ASSERT_EQUAL(sc.tenants[3].arrival.amplitude, 0.5);
    CU_ASSERT_EQUAL(sc.tenants[4].arrival.kind, ARR_SATURATED);
    CU_ASSERT_EQUAL(sc.tenants[0].work.mean_s, 1e-3);
    CU_ASSERT_EQUAL(sc.stop_requests, 100);
    /* A trace replays faster: its time_scale (0 = 1) is divided. */
    sc.tenants[4].arrival.kind = ARR_TRACE;
    sc.tenants[4].arrival.trace_opts.time_scale = 0;
    CU_ASSERT_EQUAL(ls_scale_load(&sc, 4, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sc.tenants[4].arrival.trace_opts.time_scale, 0.25);
    CU_ASSERT_EQUAL(ls_scale_load(&sc, 0.5, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sc.tenants[4].arrival.trace_opts.time_scale, 0.5);
    sc.tenants[4].arrival.kind = ARR_SATURATED;
    CU_ASSERT_EQUAL(ls_scale_load(&sc, 0, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected a finite number > 0"));
    CU_ASSERT_EQUAL(ls_scale_load(&sc, NAN, err, sizeof err), -1);
    scn_free(&sc);
}

static void test_cli_identical_to_rewritten(void)
{
    char cmd[2048], err[1024];
    const char *one = "loadscale/one-tenant.json";
    char *fast = tu_fixture_write("ls400.json", one, "{\"tenants.0.arrival.rate_per_s\": 400}");
    char *slow = tu_fixture_write("ls200.json", one, "{\"tenants.0.arrival.rate_per_s\": 200}");
    char a[512], b[512], j[512];
    snprintf(a, sizeof a, "%s/scaled.csv", tu_tmpdir());
    snprintf(b, sizeof b, "%s/direct.csv", tu_tmpdir());
    snprintf(j, sizeof j, "%s/scaled.json", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "run %s --quiet --scale-load 0.5 --csv %s --json %s", fast, a, j);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(cmd, sizeof cmd, "run %s --quiet --csv %s", slow, b);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    char *x = tu_slurp(a), *y = tu_slurp(b), *js = tu_slurp(j);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    CU_ASSERT_PTR_NOT_NULL_FATAL(js);
    /* 400 × 0.5 is exactly 200: the same gaps, the same run, byte for byte. */
    CU_ASSERT_STRING_EQUAL(x, y);
    CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"load_scale\":\t0.5"));
    free(x);
    free(y);
    free(js);
    static const char *const bad[] = {"0", "-1", "abc", "inf", "1e999", ""};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(cmd, sizeof cmd, "run %s --quiet --scale-load '%s'", fast, bad[k]);
        CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "--scale-load: expected a finite number > 0"));
    }
}

void test_loadscale_register(void)
{
    static const struct tu_test t[] = {
        {"every arrival kind scales, work and stop do not", test_scale_kinds},
        {"--scale-load 0.5 of 400/s is the 200/s run byte for byte",
         test_cli_identical_to_rewritten},
        {NULL, NULL},
    };
    tu_add_suite("loadscale", t);
}
