/*
 * golden — every policy at a fixed seed, end to end: `sharesim run` on each scenario of
 * tests/fixtures/golden/ must print exactly tests/golden/<name>.json. The fixtures cover
 * each strategy and its variants (disciplines, nested units in MIG, the three vGPU
 * schedulers, MIG-backed vGPU), so a refactoring that changes any figure fails here.
 * A deliberate change of the model regenerates them with `make golden` and the diff
 * is reviewed in the commit.
 */
#include "testutil.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fixtures[] = {"exclusive", "timeslice",  "mps", "mig",
                                       "vgpu",      "fractional", NULL};

static void check_fixture(const char *name)
{
    char args[1024], out[700], want[600], msg[4096];
    snprintf(out, sizeof out, "%s/golden-%s.json", tu_tmpdir(), name);
    snprintf(args, sizeof args, "run tests/fixtures/golden/%s.json --quiet --json %s", name, out);
    int rc = tu_cli(args, NULL, 0, msg, sizeof msg);
    if (rc != 0)
        fprintf(stderr, "\n  golden %s: exit %d: %s\n", name, rc, msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    snprintf(want, sizeof want, "tests/golden/%s.json", name);
    char *got = tu_slurp(out), *exp = tu_slurp(want);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_PTR_NOT_NULL_FATAL(exp);
    int same = strcmp(got, exp) == 0;
    if (!same)
        fprintf(stderr, "\n  golden %s: output differs from %s (diff %s %s)\n", name, want, want,
                out);
    CU_ASSERT_TRUE(same);
    free(got);
    free(exp);
}

static void test_golden_all(void)
{
    /* Each fixture runs ~40 s of three tenants twice: fine natively and under ASan, minutes
     * under valgrind, where the other suites already cover every policy's code. */
    if (tu_under_valgrind())
        return;
    for (int i = 0; fixtures[i]; i++)
        check_fixture(fixtures[i]);
}

void test_golden_register(void)
{
    static const struct tu_test tests[] = {
        {"every policy's JSON at a fixed seed equals tests/golden/", test_golden_all},
        {NULL, NULL}};
    tu_add_suite("golden", tests);
}
