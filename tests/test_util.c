/*
 * util: ss_catf, the append the pages build their sentences with — text after what the
 * buffer holds, cut to fit its size (never past it), and nothing when it is already full.
 */
#include "base/util.h"
#include "testutil.h"

#include <string.h>

static void test_catf_appends(void)
{
    char buf[32] = "";
    ss_catf(buf, sizeof buf, "%s", "a");
    ss_catf(buf, sizeof buf, "%s%d", buf[0] ? ", " : "", 2);
    CU_ASSERT_STRING_EQUAL(buf, "a, 2");
}

static void test_catf_cuts(void)
{
    char buf[8] = "abc";
    ss_catf(buf, sizeof buf, "%s", "defghijk");
    CU_ASSERT_STRING_EQUAL(buf, "abcdefg"); /* 7 characters and the NUL */
    ss_catf(buf, sizeof buf, "%s", "x");    /* full: unchanged */
    CU_ASSERT_STRING_EQUAL(buf, "abcdefg");
    char one[1] = "";
    ss_catf(one, sizeof one, "%d", 12345);
    CU_ASSERT_EQUAL(one[0], '\0');
}

void test_util_register(void)
{
    static const struct tu_test t[] = {
        {"ss_catf appends formatted text", test_catf_appends},
        {"ss_catf cuts to the buffer and leaves a full one alone", test_catf_cuts},
        {NULL, NULL},
    };
    tu_add_suite("util", t);
}
