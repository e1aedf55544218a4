/*
 * sharesim report (cli/cmd_report.c): bad input — not a result document, an option of
 * another subcommand, an unknown subcommand, a missing file — exits 2; --help exits 0.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

static void test_bad_input(void)
{
    char cmd[1024], err[2048];
    char *notres = tu_write("notres.json", "{\"scenario\": \"x\"}");
    snprintf(cmd, sizeof cmd, "report md %s", notres);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "notres.json: strategies: expected an array (a result of "
                                       "`sharesim run --json`)"));
    snprintf(cmd, sizeof cmd, "report mig %s --title x", notres);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not one of this subcommand's"));
    CU_ASSERT_EQUAL(tu_cli("report nosuch", NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown subcommand \"nosuch\""));
    CU_ASSERT_EQUAL(tu_cli("report md /nonexistent.json", NULL, 0, err, sizeof err), 2);
    CU_ASSERT_EQUAL(tu_cli("report --help", NULL, 0, NULL, 0), 0);
    CU_ASSERT_EQUAL(tu_cli("report md --help", NULL, 0, NULL, 0), 0);
}

void test_cmd_report_register(void)
{
    static const struct tu_test t[] = {
        {"report: bad input", test_bad_input},
        {NULL, NULL},
    };
    tu_add_suite("cmd_report", t);
}
