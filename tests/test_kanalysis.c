/*
 * Tests for kanalysis on synthetic timelines and samples: known slices and gaps are
 * recovered exactly, noise (holes inside slices, jitter, outliers) is tolerated, one
 * context yields no switches, and the scaling fit and co-run matrices are exact.
 */
#include "calib/kanalysis.h"
#include "testutil.h"
#include "base/util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A growable timeline. */
struct tl {
    struct ka_interval *iv;
    size_t n, cap;
};

static void tl_add(struct tl *t, long long start, long long end, int ctx)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->iv = realloc(t->iv, t->cap * sizeof *t->iv);
    }
    t->iv[t->n++] = (struct ka_interval){start, end, ctx};
}

/*
 * Round robin over n_ctx contexts: each slice lasts slice_ns, each switch gap_ns; the
 * first context starts at t0. Returns the time after the last slice.
 */
static long long round_robin(struct tl *t, int n_ctx, int rounds, long long t0, long long slice_ns,
                             long long gap_ns)
{
    long long now = t0;
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < n_ctx; c++) {
            tl_add(t, now, now + slice_ns, c);
            now += slice_ns + gap_ns;
        }
    return now;
}

/* ka_timeslice of a timeline it must accept; frees the timeline. One assertion. */
static struct ka_tslice analyse(struct tl *t)
{
    struct ka_tslice r;
    char err[SS_ERRLEN];
    int rc = ka_timeslice(t->iv, t->n, &r, err, sizeof err);
    free(t->iv);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return r;
}

/* The counts of an analysis: contexts, runs, slices and switches. Four assertions. */
static void check_counts(const struct ka_tslice *r, int n_ctx, size_t n_runs, size_t n_slices,
                         size_t n_switches)
{
    CU_ASSERT_EQUAL(r->n_ctx, n_ctx);
    CU_ASSERT_EQUAL(r->n_runs, n_runs);
    CU_ASSERT_EQUAL(r->n_slices, n_slices);
    CU_ASSERT_EQUAL(r->n_switches, n_switches);
}

static void test_exact_two_contexts(void)
{
    struct tl t = {0};
    round_robin(&t, 2, 50, 1000000, 1024000, 50000);
    struct ka_tslice r = analyse(&t);
    /* Contended window: from ctx 1's first start to ctx 0's last end; the first and last run
     * of each context are not counted: 100 runs - 2 outside the window - 2 more. */
    check_counts(&r, 2, 100, 96, 95);
    CU_ASSERT_EQUAL(r.n_overlaps, 0);
    CU_ASSERT_EQUAL(r.slice_us, 1024.0);
    CU_ASSERT_EQUAL(r.slice_p10_us, 1024.0);
    CU_ASSERT_EQUAL(r.slice_p90_us, 1024.0);
    CU_ASSERT_EQUAL(r.switch_us, 50.0);
    CU_ASSERT_EQUAL(r.window_us, 98.0 * (1024 + 50) + 1024 - (1024 + 50));
}

static void test_exact_four_contexts_any_order(void)
{
    struct tl t = {0};
    round_robin(&t, 4, 30, 0, 2000000, 25000);
    /* Input order must not matter: reverse it. */
    for (size_t i = 0; i < t.n / 2; i++) {
        struct ka_interval x = t.iv[i];
        t.iv[i] = t.iv[t.n - 1 - i];
        t.iv[t.n - 1 - i] = x;
    }
    struct ka_tslice r = analyse(&t);
    CU_ASSERT_EQUAL(r.n_ctx, 4);
    CU_ASSERT_EQUAL(r.slice_us, 2000.0);
    CU_ASSERT_EQUAL(r.switch_us, 25.0);
    CU_ASSERT(r.n_switches > 100);
}

/* Holes of 3 us inside slices (an interrupt, a timer hiccup) are absorbed exactly. */
static void test_holes_inside_slices(void)
{
    struct tl t = {0};
    long long now = 0, slice = 1024000, gap = 40000;
    for (int r = 0; r < 40; r++)
        for (int c = 0; c < 3; c++) {
            if (r % 3 == 1) {
                tl_add(&t, now, now + 300000, c);
                tl_add(&t, now + 303000, now + 700000, c);
                tl_add(&t, now + 703000, now + slice, c);
            } else {
                tl_add(&t, now, now + slice, c);
            }
            now += slice + gap;
        }
    struct ka_tslice r = analyse(&t);
    CU_ASSERT_EQUAL(r.n_runs, 120);
    CU_ASSERT_EQUAL(r.slice_us, 1024.0);
    CU_ASSERT_EQUAL(r.switch_us, 40.0);
}

/* Jitter on every slice and gap, plus a few outliers in both: the medians stay close. */
static void test_noise_tolerated(void)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 12);
    struct tl t = {0};
    long long now = 5000;
    for (int r = 0; r < 200; r++)
        for (int c = 0; c < 2; c++) {
            long long slice = 1024000 + (long long)gsl_ran_gaussian(rng, 8000);
            long long gap = 60000 + (long long)gsl_ran_gaussian(rng, 3000);
            if (gsl_rng_uniform(rng) < 0.05)
                slice = 20000; /* preempted early */
            if (gsl_rng_uniform(rng) < 0.05)
                slice = 9000000; /* a slice far too long */
            if (gsl_rng_uniform(rng) < 0.05)
                gap = 2000000; /* a delayed switch */
            tl_add(&t, now, now + slice, c);
            now += slice + gap;
        }
    struct ka_tslice r = analyse(&t);
    TU_CHECK_CLOSE_REL(r.slice_us, 1024.0, 0.01);
    TU_CHECK_CLOSE_REL(r.switch_us, 60.0, 0.03);
    CU_ASSERT(r.slice_p10_us < r.slice_us && r.slice_us < r.slice_p90_us);
    gsl_rng_free(rng);
}

/* Before the second context starts and after the first one ends, a context runs alone in
 * long stretches: those must not count as slices. */
static void test_alone_phases_ignored(void)
{
    struct tl t = {0};
    tl_add(&t, 0, 50000000, 0); /* ctx 0 alone for 50 ms */
    long long end = round_robin(&t, 2, 20, 50100000, 1000000, 30000);
    tl_add(&t, end, end + 80000000, 1); /* ctx 1 alone at the end */
    struct ka_tslice r = analyse(&t);
    CU_ASSERT_EQUAL(r.slice_us, 1000.0);
    CU_ASSERT_EQUAL(r.switch_us, 30.0);
    CU_ASSERT(r.slice_p90_us == 1000.0);
}

static void test_single_context_no_switches(void)
{
    struct tl t = {0};
    long long now = 0;
    for (int i = 0; i < 100; i++) { /* noise holes only */
        tl_add(&t, now, now + 500000, 0);
        now += 503000;
    }
    struct ka_tslice r = analyse(&t);
    check_counts(&r, 1, 1, 0, 0);
    CU_ASSERT_EQUAL(r.switch_us, 0.0);
    CU_ASSERT_EQUAL(r.window_us, 0.0);
}

/* Two contexts that ran one after the other never competed: no switch. */
static void test_sequential_contexts_no_switches(void)
{
    struct tl t = {0};
    tl_add(&t, 0, 1000000, 0);
    tl_add(&t, 1200000, 3000000, 1);
    struct ka_tslice r = analyse(&t);
    CU_ASSERT_EQUAL(r.n_ctx, 2);
    CU_ASSERT_EQUAL(r.n_switches, 0);
}

/* Contexts running at once (MPS, or a GPU that does not time-slice) show up as overlaps. */
static void test_concurrent_contexts_counted_as_overlaps(void)
{
    struct tl t = {0};
    long long now = 0;
    for (int i = 0; i < 50; i++) {
        tl_add(&t, now, now + 100000, 0);
        tl_add(&t, now + 50000, now + 150000, 1);
        now += 100000;
    }
    struct ka_tslice r = analyse(&t);
    CU_ASSERT(r.n_switches > 0);
    CU_ASSERT_EQUAL(r.n_overlaps, r.n_switches);
    CU_ASSERT(r.switch_us < 0);
}

static void test_timeline_errors(void)
{
    struct ka_tslice r;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(ka_timeslice(NULL, 0, &r, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "timeline: no intervals");
    struct ka_interval bad[] = {{0, 10, 0}, {30, 20, 1}};
    CU_ASSERT_EQUAL(ka_timeslice(bad, 2, &r, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "timeline: interval 1: ends (20 ns) before it starts (30 ns)");
    struct ka_interval neg[] = {{0, 10, -1}};
    CU_ASSERT_EQUAL(ka_timeslice(neg, 1, &r, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "context -1 out of range"));
}

static void test_scaling_fit_exact(void)
{
    /* H100 MIG SM counts; throughput = 500 * share^0.85 exactly. */
    const int sms[] = {16, 26, 32, 60, 64, 132};
    double share[6], tp[6];
    for (int i = 0; i < 6; i++) {
        share[i] = sms[i] / 132.0;
        tp[i] = 500.0 * pow(share[i], 0.85);
    }
    struct ka_fit f;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(ka_scaling_fit(share, tp, 6, &f, err, sizeof err), 0);
    CU_ASSERT_DOUBLE_EQUAL(f.exponent, 0.85, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.coeff, 500.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(f.r2, 1.0, 1e-12);
    CU_ASSERT_EQUAL(f.n, 6);
    /* Proportional scaling gives exponent 1. */
    for (int i = 0; i < 6; i++)
        tp[i] = 7.0 * share[i];
    CU_ASSERT_EQUAL_FATAL(ka_scaling_fit(share, tp, 6, &f, err, sizeof err), 0);
    CU_ASSERT_DOUBLE_EQUAL(f.exponent, 1.0, 1e-12);
    /* Saturating bandwidth: flat throughput is exponent 0 and a perfect fit. */
    for (int i = 0; i < 6; i++)
        tp[i] = 3000.0;
    CU_ASSERT_EQUAL_FATAL(ka_scaling_fit(share, tp, 6, &f, err, sizeof err), 0);
    CU_ASSERT_DOUBLE_EQUAL(f.exponent, 0.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.r2, 1.0, 1e-12);
}

static void test_scaling_fit_noisy_and_errors(void)
{
    double share[] = {0.125, 0.25, 0.5, 1.0};
    double tp[] = {0.125 * 1.02, 0.25 * 0.98, 0.5 * 1.01, 1.0 * 0.99};
    struct ka_fit f;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(ka_scaling_fit(share, tp, 4, &f, err, sizeof err), 0);
    TU_CHECK_CLOSE_REL(f.exponent, 1.0, 0.02);
    CU_ASSERT(f.r2 > 0.99 && f.r2 < 1.0);
    CU_ASSERT_EQUAL(ka_scaling_fit(share, tp, 1, &f, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "scaling fit: need at least 2 points, got 1");
    double same[] = {0.5, 0.5};
    CU_ASSERT_EQUAL(ka_scaling_fit(same, tp, 2, &f, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "scaling fit: all 2 points have the same share 0.5");
    double zero[] = {1.0, 0.0};
    CU_ASSERT_EQUAL(ka_scaling_fit(share, zero, 2, &f, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "scaling fit: point 1: throughput 0 is not positive");
    double big[] = {0.5, 1.5};
    CU_ASSERT_EQUAL(ka_scaling_fit(big, tp, 2, &f, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "scaling fit: point 1: share 1.5 is not in (0, 1]");
}

static void test_corun_matrix(void)
{
    /* compute (0) and memory (1): compute unaffected by compute, memory halves memory. */
    double alone[] = {100.0, 2000.0};
    double corun[] = {100.0, 80.0, 1600.0, 1000.0};
    double slow[4], stp[4];
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(ka_corun(2, alone, corun, slow, stp, err, sizeof err), 0);
    CU_ASSERT_DOUBLE_EQUAL(slow[0], 1.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(slow[1], 1.25, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(slow[2], 1.25, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(slow[3], 2.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(stp[0], 2.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(stp[1], 0.8 + 0.8, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(stp[2], stp[1], 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(stp[3], 1.0, 1e-15);
    double stuck[] = {100.0, 0.0, 1600.0, 1000.0};
    CU_ASSERT_EQUAL(ka_corun(2, alone, stuck, slow, stp, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "co-run: [0][1]: class 0 made no progress next to class 1");
}

static void test_median(void)
{
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    CU_ASSERT_EQUAL(ka_median(odd, 3), 3.0);
    CU_ASSERT_EQUAL(ka_median(even, 4), 2.5);
    CU_ASSERT_EQUAL(ka_median(NULL, 0), 0.0);
}

void test_kanalysis_register(void)
{
    static const struct tu_test t[] = {
        {"two contexts: slice and gap exact", test_exact_two_contexts},
        {"four contexts, any input order", test_exact_four_contexts_any_order},
        {"holes inside slices absorbed", test_holes_inside_slices},
        {"jitter and outliers tolerated", test_noise_tolerated},
        {"phases with one context ignored", test_alone_phases_ignored},
        {"a single context yields no switches", test_single_context_no_switches},
        {"sequential contexts yield no switches", test_sequential_contexts_no_switches},
        {"concurrent contexts are overlaps", test_concurrent_contexts_counted_as_overlaps},
        {"malformed timelines rejected", test_timeline_errors},
        {"scaling fit exact", test_scaling_fit_exact},
        {"scaling fit noisy, errors", test_scaling_fit_noisy_and_errors},
        {"co-run slowdown and STP", test_corun_matrix},
        {"median", test_median},
        {NULL, NULL},
    };
    tu_add_suite("kanalysis", t);
}
