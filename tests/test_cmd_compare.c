/* sharesim compare: side-by-side table, best marks, latency decomposition. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

static void test_compare_table(void)
{
    /* Two tenants, a with a p99 SLA: time-sliced on one GPU, or one GPU each. */
    const char *path = tu_fixture("cmd_compare/two-tenants.json");
    char cmd[700], out[16384];
    snprintf(cmd, sizeof cmd, "compare %s", path);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    /* The default baseline is the first exclusive strategy, whose slowdown is 1. */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "baseline excl"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "1.00*"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "time-sharing and switching"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "dominates"));
    /* Exclusive has the lower p99 for tenant a: its row carries the mark. */
    const char *ta = strstr(out, "tenant a");
    const char *row = ta ? strstr(ta, "\n  excl ") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    const char *eol = strchr(row + 1, '\n');
    const char *star = strchr(row + 1, '*');
    CU_ASSERT(star && eol && star < eol);
    snprintf(cmd, sizeof cmd, "compare %s --baseline nosuch", path);
    char err[1024];
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no strategy named \"nosuch\""));
}

void test_cmd_compare_register(void)
{
    static const struct tu_test t[] = {
        {"compare marks the best and explains latency", test_compare_table},
        {NULL, NULL},
    };
    tu_add_suite("cmd_compare", t);
}
