/*
 * rng: xoshiro256** against the reference algorithm's outputs, splitmix64 seeding against
 * its published first value, uniforms (mean, variance, Kolmogorov–Smirnov), and GSL's
 * distributions drawing through the gsl_rng view of a stream.
 */
#include "base/rng.h"
#include "testutil.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>

/* Reference outputs of xoshiro256** from the state {1, 2, 3, 4} (computed from the authors'
 * C code transcribed to Python, independently of base/rng.h). */
static void test_known_answers(void)
{
    struct rng r = {{1, 2, 3, 4}};
    static const uint64_t want[] = {0x2d00,
                                    0x0,
                                    0x5a007080,
                                    0x10e0000000009d80ull,
                                    0x10e0b61ce1009d80ull,
                                    0x870021ce143ad00ull};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CU_ASSERT_EQUAL(rng_next(&r), want[i]);
    /* splitmix64 started at 0: its first output is 0xe220a8397b1dcdaf (Vigna's splitmix64.c). */
    rng_seed(&r, 0);
    CU_ASSERT_EQUAL(r.s[0], 0xe220a8397b1dcdafull);
    CU_ASSERT_EQUAL(r.s[1], 0x6e789e6aa1b965f4ull);
    CU_ASSERT_EQUAL(r.s[2], 0x06c45d188009454full);
    CU_ASSERT_EQUAL(r.s[3], 0xf88bb8a8724c81ecull);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Kolmogorov–Smirnov distance of the sorted sample x[0..n) to the CDF F. */
static double ks_distance(double *x, size_t n, double (*F)(double))
{
    qsort(x, n, sizeof *x, cmp_double);
    double d = 0;
    for (size_t i = 0; i < n; i++) {
        double f = F(x[i]), lo = f - (double)i / (double)n, hi = (double)(i + 1) / (double)n - f;
        if (lo > d)
            d = lo;
        if (hi > d)
            d = hi;
    }
    return d;
}

/* The asymptotic KS critical value at level 0.001 is 1.949/√n. */
static double ks_crit(size_t n)
{
    return 1.949 / sqrt((double)n);
}

static double cdf_uniform(double x)
{
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

static void test_uniform(void)
{
    enum { N = 1000000 };
    double *x = malloc(N * sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    struct rng r;
    rng_seed(&r, 42);
    double sum = 0, sum2 = 0, lo = 1, hi = 0;
    for (size_t i = 0; i < N; i++) {
        x[i] = i % 2 ? rng_uniform(&r) : rng_uniform_pos(&r);
        sum += x[i];
        sum2 += x[i] * x[i];
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    double mean = sum / N, var = sum2 / N - mean * mean;
    /* Standard errors: √(1/12/N) = 2.9e-4 for the mean, √(1/180/N) = 7.5e-5 for the variance. */
    CU_ASSERT(fabs(mean - 0.5) < 5 * 2.9e-4);
    CU_ASSERT(fabs(var - 1.0 / 12) < 5 * 7.5e-5);
    CU_ASSERT(lo >= 0 && hi <= 1);
    CU_ASSERT(ks_distance(x, N, cdf_uniform) < ks_crit(N));
    free(x);
}

/* Different seeds give unrelated streams, the same seed the same one. */
static void test_seeding(void)
{
    struct rng a, b, c;
    rng_seed(&a, 7);
    rng_seed(&b, 7);
    rng_seed(&c, 8);
    int same_ab = 1, same_ac = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = rng_next(&a), y = rng_next(&b), z = rng_next(&c);
        same_ab &= x == y;
        same_ac += x == z;
    }
    CU_ASSERT(same_ab);
    CU_ASSERT_EQUAL(same_ac, 0);
}

/* gsl_ran_* work on the view and consume the stream itself. */
static void test_gsl_view(void)
{
    struct rng r, copy;
    rng_seed(&r, 3);
    copy = r;
    gsl_rng g = rng_gsl(&r);
    CU_ASSERT_STRING_EQUAL(gsl_rng_name(&g), "xoshiro256**");
    CU_ASSERT_EQUAL(gsl_rng_max(&g), 0xffffffffUL);
    CU_ASSERT_EQUAL(gsl_rng_get(&g), rng_next(&copy) >> 32);
    CU_ASSERT_EQUAL(gsl_rng_uniform(&g), rng_uniform(&copy));
    /* Gamma with shape 2.5, scale 0.4: mean 1, variance 0.4. */
    enum { N = 400000 };
    double sum = 0, sum2 = 0;
    for (int i = 0; i < N; i++) {
        double v = gsl_ran_gamma(&g, 2.5, 0.4);
        sum += v;
        sum2 += v * v;
    }
    double mean = sum / N, var = sum2 / N - mean * mean;
    CU_ASSERT(fabs(mean - 1.0) < 5 * sqrt(0.4 / N));
    CU_ASSERT(fabs(var - 0.4) < 0.01);
    int seen[3] = {0, 0, 0};
    for (int i = 0; i < 3000; i++) {
        unsigned long k = gsl_rng_uniform_int(&g, 3);
        CU_ASSERT_FATAL(k < 3);
        seen[k]++;
    }
    CU_ASSERT(seen[0] > 900 && seen[1] > 900 && seen[2] > 900);
}

void test_rng_register(void)
{
    static const struct tu_test t[] = {
        {"xoshiro256** and splitmix64 known answers", test_known_answers},
        {"uniform: mean, variance, KS", test_uniform},
        {"seeding: same seed same stream, others unrelated", test_seeding},
        {"gsl_ran_* through the gsl_rng view", test_gsl_view},
        {NULL, NULL},
    };
    tu_add_suite("rng", t);
}
