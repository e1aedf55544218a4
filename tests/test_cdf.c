/*
 * cdf: the probability grid, quantiles that agree bit for bit with the run's
 * percentiles, exact quantiles of a constant latency, pooling over tenants and
 * replications, and the --cdf CSV.
 */
#include "report/cdf.h"
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int index_of(double p)
{
    for (int k = 0; k < cdf_n_probs(); k++)
        if (cdf_prob(k) == p)
            return k;
    return -1;
}

static void test_grid(void)
{
    CU_ASSERT_EQUAL(cdf_n_probs(), 120);
    CU_ASSERT_EQUAL(cdf_prob(0), 0.001);
    CU_ASSERT_EQUAL(cdf_prob(1), 0.005);
    CU_ASSERT_EQUAL(cdf_prob(2), 0.01);
    CU_ASSERT_EQUAL(cdf_prob(cdf_n_probs() - 1), 1.0);
    for (int k = 1; k < cdf_n_probs(); k++)
        CU_ASSERT(cdf_prob(k) > cdf_prob(k - 1));
    CU_ASSERT(index_of(0.5) >= 0);
    CU_ASSERT(index_of(0.95) >= 0);
    CU_ASSERT(index_of(0.99) >= 0);
    CU_ASSERT(index_of(0.999) >= 0);
    CU_ASSERT(index_of(0.9999) >= 0);
}

/* Two tenants, time-slicing and MPS. */
static const char *two = "cdf/two-tenants.json";

static void test_matches_run(void)
{
    struct scenario sc;
    tu_load_file(tu_fixture(two), &sc);
    struct run_opts o = {1, -1, 0, 0};
    struct run_result r;
    CU_ASSERT_EQUAL_FATAL(run_scenario(&sc, &o, &r, NULL, 0), 0);
    struct cdf_result c;
    CU_ASSERT_EQUAL_FATAL(cdf_collect(&sc, -1, 1, &c, NULL, 0), 0);
    CU_ASSERT_EQUAL(c.n_strategies, 2);
    CU_ASSERT_EQUAL(c.n_rows, 3);
    static const struct {
        double p;
        int metric;
    } pts[] = {{0.5, TM_LAT_P50}, {0.95, TM_LAT_P95}, {0.99, TM_LAT_P99}, {0.999, TM_LAT_P999}};
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < 2; i++) {
            for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++)
                CU_ASSERT_EQUAL(cdf_quantile(&c, s, i, index_of(pts[k].p)),
                                res_t(&r.s[s], i)[pts[k].metric]);
            CU_ASSERT_EQUAL((double)c.n[s * 3 + i], res_t(&r.s[s], i)[TM_COMPLETED]);
        }
        /* The pool holds both tenants' samples and lies between their quantiles. */
        CU_ASSERT_EQUAL(c.n[s * 3 + 2], c.n[s * 3] + c.n[s * 3 + 1]);
        int k99 = index_of(0.99);
        double lo = fmin(cdf_quantile(&c, s, 0, k99), cdf_quantile(&c, s, 1, k99));
        double hi = fmax(cdf_quantile(&c, s, 0, k99), cdf_quantile(&c, s, 1, k99));
        CU_ASSERT(cdf_quantile(&c, s, 2, k99) >= lo && cdf_quantile(&c, s, 2, k99) <= hi);
        for (int k = 1; k < cdf_n_probs(); k++)
            CU_ASSERT(cdf_quantile(&c, s, 2, k) >= cdf_quantile(&c, s, 2, k - 1));
    }
    cdf_free(&c);
    run_result_free(&r);
    /* Two replications: the pool holds both replications' samples (2 × their mean). */
    o.replications = 2;
    CU_ASSERT_EQUAL_FATAL(run_scenario(&sc, &o, &r, NULL, 0), 0);
    CU_ASSERT_EQUAL_FATAL(cdf_collect(&sc, -1, 2, &c, NULL, 0), 0);
    CU_ASSERT_EQUAL((double)c.n[0], 2 * res_t(&r.s[0], 0)[TM_COMPLETED]);
    CU_ASSERT_EQUAL((double)c.n[4], 2 * res_t(&r.s[1], 1)[TM_COMPLETED]);
    cdf_free(&c);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_constant_latency(void)
{
    /* 10 arrivals/s of exactly 2 ms on a GPU of their own: every latency is 2 ms, and the
     * exact min and max bound every quantile. */
    struct scenario sc;
    tu_load_file(tu_fixture("cdf/constant-latency.json"), &sc);
    struct cdf_result c;
    CU_ASSERT_EQUAL_FATAL(cdf_collect(&sc, -1, 0, &c, NULL, 0), 0);
    CU_ASSERT_EQUAL(c.n[0], 1000);
    /* Completion minus arrival times carry rounding of the last bit, not the bucket's 0.39 %. */
    for (int k = 0; k < cdf_n_probs(); k++) {
        TU_CHECK_CLOSE_REL(cdf_quantile(&c, 0, 0, k), 0.002, 1e-9);
        TU_CHECK_CLOSE_REL(cdf_quantile(&c, 0, 1, k), 0.002, 1e-9);
    }
    cdf_free(&c);
    scn_free(&sc);
}

static void test_cli_csv(void)
{
    char cmd[1024], out[512];
    snprintf(out, sizeof out, "%s/cdf.csv", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "run %s --quiet --cdf %s", tu_fixture(two), out);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    char *csv = tu_slurp(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT(tu_starts(csv, "strategy,tenant,p,latency_ms\nts,a,0.0010,"));
    int lines = 0;
    for (const char *c = csv; *c; c++)
        lines += *c == '\n';
    CU_ASSERT_EQUAL(lines, 1 + 2 * 3 * 120);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\nmps,(all),1.0000,"));
    free(csv);
}

void test_cdf_register(void)
{
    static const struct tu_test t[] = {
        {"probability grid", test_grid},
        {"quantiles equal the run's percentiles; pools", test_matches_run},
        {"constant latency: every quantile exact", test_constant_latency},
        {"run --cdf writes the CSV", test_cli_csv},
        {NULL, NULL},
    };
    tu_add_suite("cdf", t);
}
