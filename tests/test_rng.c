/*
 * rng: xoshiro256** against the reference algorithm's outputs, splitmix64 seeding against
 * its published first value, uniforms (mean, variance, Kolmogorov–Smirnov), the ziggurat's
 * tables against their recurrence and its exponentials against the exponential law (moments,
 * KS, the tail, every layer's mass), and GSL's distributions drawing through the gsl_rng
 * view of a stream.
 */
#include "base/rng.h"
#include "testutil.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The tables of rng_exp.c follow from r and v by Marsaglia & Tsang's recurrence. */
static void test_zig_tables(void)
{
    const double m = 0x1.0p53, v = 3.949659822581572e-3;
    double x = RNG_ZIG_R, prev = x, q = v / exp(-x);
    CU_ASSERT_EQUAL(rng_zig_k[0], (uint64_t)(x / q * m));
    CU_ASSERT_EQUAL(rng_zig_k[1], 0);
    CU_ASSERT_DOUBLE_EQUAL(rng_zig_w[0], q / m, 1e-15 * q / m);
    CU_ASSERT_DOUBLE_EQUAL(rng_zig_w[255], x / m, 1e-15 * x / m);
    CU_ASSERT_EQUAL(rng_zig_f[0], 1.0);
    for (int i = 254; i >= 1; i--) {
        x = -log(v / x + exp(-x));
        /* ±1 on the integer thresholds, 1e-14 relative on the rest: libm may round differently */
        uint64_t k = (uint64_t)(x / prev * m);
        CU_ASSERT(rng_zig_k[i + 1] + 1 >= k && rng_zig_k[i + 1] <= k + 1);
        CU_ASSERT(fabs(rng_zig_w[i] - x / m) <= 1e-14 * x / m);
        CU_ASSERT(fabs(rng_zig_f[i] - exp(-x)) <= 1e-14 * exp(-x));
        prev = x;
    }
    /* The top layer closes the ziggurat: its area x_1·(1 − f(x_1)) is v. */
    double x1 = rng_zig_w[1] * m;
    CU_ASSERT(fabs(x1 * (1 - exp(-x1)) - v) < 1e-11 * v);
}

static double cdf_exp(double x)
{
    return x < 0 ? 0 : -expm1(-x);
}

static void test_exponential(void)
{
    enum { N = 2000000 };
    double *x = malloc(N * sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    struct rng r;
    rng_seed(&r, 2024);
    double sum = 0, sum2 = 0, sum3 = 0;
    long tail = 0, neg = 0;
    for (size_t i = 0; i < N; i++) {
        x[i] = rng_exp1(&r);
        sum += x[i];
        sum2 += x[i] * x[i];
        sum3 += x[i] * x[i] * x[i];
        tail += x[i] > RNG_ZIG_R;
        neg += !(x[i] >= 0);
    }
    CU_ASSERT_EQUAL(neg, 0);
    /* Exp(1): mean 1 (sd 1/√N), E[X²] = 2 (sd √20/√N), E[X³] = 6 (sd √684/√N); 5 sd each. */
    double n = N, m1 = sum / n, m2 = sum2 / n, m3 = sum3 / n;
    CU_ASSERT(fabs(m1 - 1) < 5 / sqrt(n));
    CU_ASSERT(fabs(m2 - 2) < 5 * sqrt(20 / n));
    CU_ASSERT(fabs(m3 - 6) < 5 * sqrt(684 / n));
    CU_ASSERT(fabs((m2 - m1 * m1) - 1) < 0.01); /* variance 1 */
    /* The tail beyond r (served by the r − log U branch) has mass e^-r = 4.5e-4. */
    double pt = exp(-RNG_ZIG_R);
    CU_ASSERT(fabs(tail - n * pt) < 5 * sqrt(n * pt));
    /* The exponential's mass over every layer's x range: a chi-square over the 255 intervals
     * [x_{i-1}, x_i) (x_0 = 0, x_255 = r) and the tail (df 255: mean 255, sd 22.6). */
    static long cnt[256];
    for (int b = 0; b < 256; b++)
        cnt[b] = 0;
    for (size_t i = 0; i < N; i++) {
        int b = 255; /* the tail */
        for (int k = 1; k <= 255; k++)
            if (x[i] < rng_zig_w[k] * 0x1.0p53) {
                b = k - 1;
                break;
            }
        cnt[b]++;
    }
    double chi2 = 0, lo = 0;
    for (int b = 0; b < 256; b++) {
        double hi = b < 255 ? rng_zig_w[b + 1] * 0x1.0p53 : INFINITY;
        double e = n * (cdf_exp(hi) - cdf_exp(lo));
        chi2 += (cnt[b] - e) * (cnt[b] - e) / e;
        lo = hi;
    }
    CU_ASSERT(chi2 < 255 + 5 * 22.6);
    CU_ASSERT(ks_distance(x, N, cdf_exp) < ks_crit(N));
    free(x);
}

/* rng_exp1_pair is two rng_exp1 in a row, bit for bit, the slow paths (wedges, tail) included:
 * 10^6 pairs from one seed take each path thousands of times, in either draw of a pair. */
static void test_exp_pair(void)
{
    struct rng a, b;
    rng_seed(&a, 7);
    b = a;
    long same = 0, slow1 = 0, slow2 = 0;
    const long n = 1000000;
    for (long k = 0; k < n; k++) {
        struct rng c = a; /* the next output, read off a copy: does it leave the fast path? */
        uint64_t u = rng_next(&c);
        slow1 += (u >> 11) >= rng_zig_k[u & 0xff];
        double x1 = rng_exp1(&a), x2;
        c = a;
        u = rng_next(&c);
        slow2 += (u >> 11) >= rng_zig_k[u & 0xff];
        x2 = rng_exp1(&a);
        double y1, y2;
        rng_exp1_pair(&b, &y1, &y2);
        same += memcmp(&x1, &y1, sizeof x1) == 0 && memcmp(&x2, &y2, sizeof x2) == 0;
    }
    CU_ASSERT_EQUAL(same, n);
    CU_ASSERT_EQUAL(memcmp(a.s, b.s, sizeof a.s), 0); /* the streams stay in step */
    CU_ASSERT(slow1 > 10000 && slow2 > 10000);        /* 2.2 % of draws leave the fast path */
}

void test_rng_register(void)
{
    static const struct tu_test t[] = {
        {"xoshiro256** and splitmix64 known answers", test_known_answers},
        {"uniform: mean, variance, KS", test_uniform},
        {"seeding: same seed same stream, others unrelated", test_seeding},
        {"gsl_ran_* through the gsl_rng view", test_gsl_view},
        {"ziggurat tables follow from r and v", test_zig_tables},
        {"ziggurat exponential: moments, KS, tail, layers", test_exponential},
        {"rng_exp1_pair: two rng_exp1 in a row, bit for bit", test_exp_pair},
        {NULL, NULL},
    };
    tu_add_suite("rng", t);
}
