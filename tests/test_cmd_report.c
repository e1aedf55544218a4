/*
 * sharesim report (cli/cmd_report.c): bad input — not a result document, an option of
 * another subcommand, an unknown subcommand, a missing file — exits 2; --help exits 0.
 * `report check`: 0 when every page keeps its promises, 1 when one breaks one, 2 when a page
 * cannot be read or checked (cut, NaN points); every page is reported either way.
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

#define FIG_OPEN "<svg class=\"figure\" id=\"fig-a\"><g class=\"panel\" data-title=\"chat\">"
#define CURVE(label, pts) "<polyline class=\"series\" data-label=\"" label "\" points=\"" pts "\"/>"

static void test_check_exit_codes(void)
{
    char cmd[2048], out[4096], err[4096];
    char *ok =
        tu_write("ok.svg", FIG_OPEN CURVE("a", "0,0 10,0") CURVE("b", "0,5 10,5") "</g></svg>\n");
    char *hidden = tu_write("hidden.svg",
                            FIG_OPEN CURVE("a", "0,0 10,0") CURVE("b", "0,0 10,0") "</g></svg>\n");
    char *cut = tu_write(
        "cut.svg", FIG_OPEN CURVE("a", "0,0 10,0") "<polyline class=\"series\" points=\"0,5 1");
    char *nan = tu_write("nan.svg", FIG_OPEN CURVE("a", "0,0 nan,0") "</g></svg>\n");
    snprintf(cmd, sizeof cmd, "report check %s", ok);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 0);
    TU_CHECK_CONTAINS(out, "no curve hidden");
    snprintf(cmd, sizeof cmd, "report check %s %s", hidden, ok);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 1);
    TU_CHECK_CONTAINS(out, "the curve \"a\" is hidden");
    snprintf(cmd, sizeof cmd, "report check %s", cut);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "cut.svg: line 1, figure \"fig-a\", panel \"chat\": the file ends "
                           "inside the value of points= of a <polyline> tag: it is cut");
    snprintf(cmd, sizeof cmd, "report check %s", nan);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "nan.svg: line 1, figure \"fig-a\", panel \"chat\": curve \"a\": x "
                           "of point 2 is \"nan\", not a finite number");
    /* a damaged page wins over a failing one, and the pages after it are still checked */
    snprintf(cmd, sizeof cmd, "report check %s %s %s /nonexistent.svg", nan, hidden, ok);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 2);
    TU_CHECK_CONTAINS(out, "hidden.svg: 1 figure");
    TU_CHECK_CONTAINS(out, "ok.svg: 1 figure");
    TU_CHECK_CONTAINS(err, "/nonexistent.svg");
}

void test_cmd_report_register(void)
{
    static const struct tu_test t[] = {
        {"report: bad input", test_bad_input},
        {"report check: 0 kept, 1 broken, 2 cut or NaN pages", test_check_exit_codes},
        {NULL, NULL},
    };
    tu_add_suite("cmd_report", t);
}
