/*
 * Command dispatch (cli/main.c): help, a command's --help, and usage errors exit 2.
 */
#include "testutil.h"

#include <string.h>

static void test_cli_help(void)
{
    char out[4096];
    CU_ASSERT_EQUAL(tu_cli("--help", out, sizeof out, NULL, 0), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "run"));
    CU_ASSERT_EQUAL(tu_cli("run --help", out, sizeof out, NULL, 0), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--replications"));
    CU_ASSERT_EQUAL(tu_cli("run --bogus", NULL, 0, NULL, 0), 2);
    CU_ASSERT_EQUAL(tu_cli("nosuchcommand", NULL, 0, NULL, 0), 2);
}

void test_main_register(void)
{
    static const struct tu_test t[] = {
        {"help and usage errors", test_cli_help},
        {NULL, NULL},
    };
    tu_add_suite("main", t);
}
