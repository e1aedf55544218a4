/*
 * sharesim validate (cli/cmd_validate.c): usage errors exit 2, --help exits 0, and the
 * output files are opened before the run so a bad path fails at once.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

static void test_cli_usage(void)
{
    char out[4096], errb[4096];
    CU_ASSERT_EQUAL(tu_cli("validate --help", out, sizeof out, errb, sizeof errb), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "usage: sharesim validate"));
    CU_ASSERT_EQUAL(tu_cli("validate --frobnicate", out, sizeof out, errb, sizeof errb), 2);
    CU_ASSERT_EQUAL(tu_cli("validate --jobs 0", out, sizeof out, errb, sizeof errb), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "--jobs: expected an integer in [1, 256], got \"0\""));
    CU_ASSERT_EQUAL(tu_cli("validate --seed -3", out, sizeof out, errb, sizeof errb), 2);
    CU_ASSERT_EQUAL(tu_cli("validate extra", out, sizeof out, errb, sizeof errb), 2);
    /* Outputs are opened before the run, so a bad path fails at once. */
    CU_ASSERT_EQUAL(
        tu_cli("validate --json /nonexistent-dir/v.json", out, sizeof out, errb, sizeof errb), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "/nonexistent-dir/v.json"));
}

static void test_validate_outputs(void)
{
    tu_expect_outputs_refused("validate --quick --json @X --markdown @X", "val-x",
                              "sharesim validate: --markdown ", "the same file as --json ", NULL);
    tu_expect_outputs_refused("validate --quick --csv - --json -", NULL,
                              "--csv -: --json - already writes to stdout", NULL);
    tu_expect_outputs_refused("validate --quick --json @X --merge @X", "val-p",
                              "the same file as the input --merge ", NULL);
}

void test_cmd_validate_register(void)
{
    static const struct tu_test t[] = {
        {"usage errors exit 2, --help exits 0", test_cli_usage},
        {"one output per file, none a merged partial", test_validate_outputs},
        {NULL, NULL},
    };
    tu_add_suite("cmd_validate", t);
}
