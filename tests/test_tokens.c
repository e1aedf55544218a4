/*
 * tokens (llm/tokens.c): token-count distributions — each kind's mean over many draws against
 * its closed form, the bounds of uniform draws, rounding to at least one token, and the
 * parser's messages with their JSON paths.
 */
#include "llm/tokens.h"
#include "testutil.h"

#include <cJSON.h>
#include <math.h>

static int parse(const char *text, struct ltk_dist *d, char *err, size_t n)
{
    struct jv j = {"s.json", err, n};
    cJSON *o = cJSON_Parse(text);
    int rc = ltk_parse(&j, o, "tenants[0].tokens.input", d);
    cJSON_Delete(o);
    return rc;
}

static double mean_of(const struct ltk_dist *d, int n, long *lo, long *hi)
{
    struct rng r;
    rng_seed(&r, 5);
    double sum = 0;
    *lo = 1L << 40;
    *hi = 0;
    for (int i = 0; i < n; i++) {
        long x = ltk_draw(d, &r);
        sum += (double)x;
        *lo = x < *lo ? x : *lo;
        *hi = x > *hi ? x : *hi;
    }
    return sum / n;
}

static void test_means(void)
{
    char err[512];
    struct ltk_dist d;
    long lo, hi;
    int n = tu_sanitized() ? 50000 : 400000;
    CU_ASSERT_EQUAL_FATAL(parse("{\"dist\": \"deterministic\", \"tokens\": 512}", &d, err, 512), 0);
    CU_ASSERT_DOUBLE_EQUAL(mean_of(&d, 100, &lo, &hi), 512, 0);
    CU_ASSERT_EQUAL_FATAL(parse("{\"dist\": \"uniform\", \"min\": 3, \"max\": 9}", &d, err, 512),
                          0);
    CU_ASSERT_DOUBLE_EQUAL(mean_of(&d, n, &lo, &hi), 6, 0.03);
    CU_ASSERT_EQUAL(lo, 3);
    CU_ASSERT_EQUAL(hi, 9);
    /* Rounded to the nearest integer: for a mean of 200 the rounding moves the mean by far
     * less than the sampling error allowed here (1 %). */
    CU_ASSERT_EQUAL_FATAL(parse("{\"dist\": \"exponential\", \"mean\": 200}", &d, err, 512), 0);
    TU_CHECK_CLOSE_REL(mean_of(&d, n, &lo, &hi), 200, 0.01);
    CU_ASSERT(lo >= 1);
    CU_ASSERT_EQUAL_FATAL(
        parse("{\"dist\": \"lognormal\", \"mean\": 300, \"cv\": 0.5}", &d, err, 512), 0);
    TU_CHECK_CLOSE_REL(mean_of(&d, n, &lo, &hi), 300, 0.01);
    /* A tiny mean still gives at least one token. */
    CU_ASSERT_EQUAL_FATAL(parse("{\"dist\": \"lognormal\", \"mean\": 1, \"cv\": 3}", &d, err, 512),
                          0);
    mean_of(&d, 1000, &lo, &hi);
    CU_ASSERT_EQUAL(lo, 1);
}

static void test_errors(void)
{
    char err[512];
    struct ltk_dist d;
    CU_ASSERT_EQUAL(parse("{\"dist\": \"uniform\", \"min\": 9, \"max\": 3}", &d, err, 512), -1);
    TU_CHECK_CONTAINS(err, "s.json: tenants[0].tokens.input.max: expected a number >= min (9)");
    CU_ASSERT_EQUAL(parse("{\"dist\": \"deterministic\", \"tokens\": 0.5}", &d, err, 512), -1);
    TU_CHECK_CONTAINS(err, "tenants[0].tokens.input.tokens");
    CU_ASSERT_EQUAL(parse("{\"dist\": \"gamma\", \"mean\": 3}", &d, err, 512), -1);
    TU_CHECK_CONTAINS(err, "tenants[0].tokens.input.dist");
    CU_ASSERT_EQUAL(parse("{\"dist\": \"exponential\", \"mean_ms\": 3}", &d, err, 512), -1);
    TU_CHECK_CONTAINS(err, "mean_ms");
}

void test_tokens_register(void)
{
    static const struct tu_test t[] = {
        {"means of every kind, bounds, at least one token", test_means},
        {"parse errors name the path", test_errors},
        {NULL, NULL},
    };
    tu_add_suite("tokens", t);
}
