/*
 * stats (core/stats.c): the latency histogram's percentile error bound and its buckets.
 */
#include "core/stats.h"
#include "testutil.h"

#include <math.h>

static void test_histogram_bound(void)
{
    struct st_hist h;
    st_hist_init(&h);
    /* 1..100000 µs: the nearest-rank p99 is 99000 µs; the estimate is within 0.39 %. */
    for (int i = 1; i <= 100000; i++)
        st_hist_add(&h, i * 1e-6);
    double q = st_hist_quantile(&h, 0.99);
    CU_ASSERT(fabs(q - 0.099) <= 0.0039 * 0.099);
    CU_ASSERT_DOUBLE_EQUAL(st_hist_quantile(&h, 1.0), 100000 * 1e-6, 0);
    for (double x = 1e-7; x < 1e4; x *= 1.37) {
        int b = st_bucket(x);
        CU_ASSERT(st_bucket_lo(b) <= x && x < st_bucket_lo(b + 1));
    }
    st_hist_free(&h);
}

void test_stats_register(void)
{
    static const struct tu_test t[] = {
        {"histogram percentiles within 0.39%", test_histogram_bound},
        {NULL, NULL},
    };
    tu_add_suite("stats", t);
}
