/*
 * Tests for analytic: textbook values, the results against each other (c = 1 Erlang C is
 * M/M/1, P-K with exponential work is M/M/1, Allen–Cunneen with SCVs 1 is M/M/c), and
 * against independent computations done here (Erlang C in log space with GSL's incomplete
 * gamma, the sojourn mean by integrating the survival function, the time-slicing chain by
 * summing its states). Reference constants marked "exact" were computed in rational
 * arithmetic (Python fractions), not with this code.
 */
#include "core/analytic.h"
#include "testutil.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>

/*
 * Erlang C the other way: C = T / (e^a Q(c, a) + T), T = a^c / c! · c / (c - a), where
 * Σ_{k<c} a^k / k! = e^a Q(c, a) (regularised upper incomplete gamma). All in logs.
 */
static double erlang_c_logspace(int c, double a)
{
    gsl_sf_result q;
    CU_ASSERT_EQUAL_FATAL(gsl_sf_gamma_inc_Q_e((double)c, a, &q), GSL_SUCCESS);
    double log_t = c * log(a) - gsl_sf_lngamma(c + 1.0) + log(c / (c - a));
    double log_s = a + log(q.val);
    double m = GSL_MAX(log_t, log_s);
    return exp(log_t - (m + log(exp(log_t - m) + exp(log_s - m))));
}

static void test_erlang_textbook(void)
{
    CU_ASSERT_DOUBLE_EQUAL(an_erlang_c(2, 1.0), 1.0 / 3.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(an_erlang_b(2, 1.0), 0.2, 1e-15);
    TU_CHECK_CLOSE_REL(an_erlang_b(10, 5.0), 0.018384570336648132, 1e-13); /* exact */
    CU_ASSERT_EQUAL(an_erlang_b(0, 3.0), 1.0);
    CU_ASSERT_EQUAL(an_erlang_b(4, 0.0), 0.0);
    CU_ASSERT_EQUAL(an_erlang_c(4, 0.0), 0.0);
    const int cs[] = {2, 4, 7, 8, 16, 64};
    const double rhos[] = {0.3, 0.5, 0.8, 0.9, 0.95};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 5; j++) {
            double a = cs[i] * rhos[j];
            TU_CHECK_CLOSE_REL(an_erlang_c(cs[i], a), erlang_c_logspace(cs[i], a), 1e-11);
        }
}

static void test_c1_is_mm1(void)
{
    const double mu = 1000.0;
    for (double rho = 0.05; rho < 1.0; rho += 0.1) {
        double lam = rho * mu;
        TU_CHECK_CLOSE_REL(an_mmc_prob_wait(lam, mu, 1), rho, 1e-14);
        TU_CHECK_CLOSE_REL(an_mmc_mean_wait_s(lam, mu, 1), rho / (mu - lam), 1e-13);
        TU_CHECK_CLOSE_REL(an_mmc_mean_sojourn_s(lam, mu, 1), 1.0 / (mu - lam), 1e-13);
        /* M/M/1 FIFO sojourn is Exp(μ - λ). */
        for (double t = 1e-4; t < 0.05; t *= 3.0)
            TU_CHECK_CLOSE_REL(an_mmc_sojourn_sf(lam, mu, 1, t), exp(-(mu - lam) * t), 1e-12);
        TU_CHECK_CLOSE_REL(an_mmc_sojourn_quantile_s(lam, mu, 1, 0.99), log(100.0) / (mu - lam),
                           1e-11);
    }
}

static void test_mm1_900_1000(void)
{
    TU_CHECK_CLOSE_REL(an_mmc_mean_sojourn_s(900, 1000, 1), 10e-3, 1e-13);
    TU_CHECK_CLOSE_REL(an_mmc_mean_wait_s(900, 1000, 1), 9e-3, 1e-13);
    double p99 = an_mmc_sojourn_quantile_s(900, 1000, 1, 0.99);
    TU_CHECK_CLOSE_REL(p99, log(100.0) / 100.0, 1e-11);
    CU_ASSERT_DOUBLE_EQUAL(p99, 46.05e-3, 0.005e-3);
    /* Wait: atom 1 - ρ = 0.1 at zero, else Exp(100); p99 wait = ln(0.9 / 0.01) / 100. */
    CU_ASSERT_EQUAL(an_mmc_wait_quantile_s(900, 1000, 1, 0.05), 0.0);
    TU_CHECK_CLOSE_REL(an_mmc_wait_quantile_s(900, 1000, 1, 0.99), log(90.0) / 100.0, 1e-13);
    CU_ASSERT_DOUBLE_EQUAL(an_mmc_wait_cdf(900, 1000, 1, 0.0), 0.1, 1e-15);
}

static void test_c1000_rho099(void)
{
    const double mu = 1000.0, lam = 990.0 * mu;
    double cw = an_mmc_prob_wait(lam, mu, 1000);
    TU_CHECK_CLOSE_REL(cw, 0.6590804218808545, 1e-11); /* exact */
    TU_CHECK_CLOSE_REL(cw, erlang_c_logspace(1000, 990.0), 1e-10);
    /* Mean wait C / (cμ - λ) = C / 10000 s. */
    TU_CHECK_CLOSE_REL(an_mmc_mean_wait_s(lam, mu, 1000), 0.6590804218808545 / 1e4, 1e-11);
    double p99 = an_mmc_sojourn_quantile_s(lam, mu, 1000, 0.99);
    CU_ASSERT(isfinite(p99));
    /* Sane: above service alone, below service p99 + wait p99 (a crude union bound). */
    CU_ASSERT(p99 > log(100.0) / mu);
    CU_ASSERT(p99 < log(100.0) / mu + an_mmc_wait_quantile_s(lam, mu, 1000, 0.99) + 1e-12);
    TU_CHECK_CLOSE_REL(an_mmc_sojourn_cdf(lam, mu, 1000, p99), 0.99, 1e-12);
}

static void check_round_trip(double lam, double mu, int c)
{
    const double ps[] = {1e-6, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.999999};
    for (int i = 0; i < 8; i++) {
        double t = an_mmc_sojourn_quantile_s(lam, mu, c, ps[i]);
        TU_CHECK_CLOSE_REL(an_mmc_sojourn_sf(lam, mu, c, t), 1.0 - ps[i], 1e-10);
        double tw = an_mmc_wait_quantile_s(lam, mu, c, ps[i]);
        if (tw > 0.0)
            TU_CHECK_CLOSE_REL(1.0 - an_mmc_wait_cdf(lam, mu, c, tw), 1.0 - ps[i], 1e-10);
    }
    /* Stop where P(T > x) < 1e-6: beyond that, p = CDF(x) itself has rounded away the tail. */
    for (double x = 1e-5 / mu; an_mmc_sojourn_sf(lam, mu, c, x) > 1e-6; x *= 2.5)
        TU_CHECK_CLOSE_REL(an_mmc_sojourn_quantile_s(lam, mu, c, an_mmc_sojourn_cdf(lam, mu, c, x)),
                           x, 1e-8);
}

static void test_quantile_round_trip(void)
{
    check_round_trip(900, 1000, 1);
    check_round_trip(3000, 1000, 4); /* cμ - λ == μ: the Erlang-2 branch */
    check_round_trip(3000 * (1 + 1e-12), 1000, 4);
    check_round_trip(2999, 1000, 4);
    check_round_trip(3000, 1000, 5);
    check_round_trip(100, 1000, 8); /* cμ - λ >> μ */
    check_round_trip(7.9, 1.0, 8);  /* cμ - λ << μ */
    check_round_trip(0.0, 50.0, 3); /* nobody waits: T = S */
}

/* The sojourn CDF is continuous in λ across the cμ - λ == μ special case. */
static void test_erlang2_branch_continuous(void)
{
    for (double t = 1e-4; t < 0.03; t *= 2.0) {
        double at = an_mmc_sojourn_sf(3000, 1000, 4, t);
        TU_CHECK_CLOSE_REL(an_mmc_sojourn_sf(3000 * (1 + 1e-9), 1000, 4, t), at, 1e-7);
        TU_CHECK_CLOSE_REL(an_mmc_sojourn_sf(3000 * (1 - 1e-9), 1000, 4, t), at, 1e-7);
    }
}

struct sf_args {
    double lam, mu;
    int c;
};

static double sf_integrand(double t, void *p)
{
    const struct sf_args *a = p;
    return an_mmc_sojourn_sf(a->lam, a->mu, a->c, t);
}

/* E[T] = ∫ P(T > t) dt: the distribution and the mean formula agree. */
static void test_sojourn_mean_from_distribution(void)
{
    const struct sf_args cases[] = {{900, 1000, 1}, {3000, 1000, 4}, {3000, 1000, 5},
                                    {7.5, 1, 8},    {15.2, 1, 16},   {0.9 * 64, 1, 64}};
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    for (int i = 0; i < 6; i++) {
        struct sf_args a = cases[i];
        gsl_function f = {sf_integrand, &a};
        double val, abserr;
        int rc = gsl_integration_qagiu(&f, 0.0, 0.0, 1e-11, 1000, w, &val, &abserr);
        CU_ASSERT_EQUAL(rc, GSL_SUCCESS);
        TU_CHECK_CLOSE_REL(val, an_mmc_mean_sojourn_s(a.lam, a.mu, a.c), 1e-9);
    }
    gsl_integration_workspace_free(w);
    gsl_set_error_handler(old);
}

/* λ = 3000/s, 1 ms exponential work: p99 6.006 ms on 4 servers, 4.816 ms on 5 (Python). */
static void test_planner_case(void)
{
    TU_CHECK_CLOSE_REL(an_mmc_sojourn_quantile_s(3000, 1000, 4, 0.99), 6.006308176561793e-3, 1e-9);
    TU_CHECK_CLOSE_REL(an_mmc_sojourn_quantile_s(3000, 1000, 5, 0.99), 4.8156241760081135e-3, 1e-9);
    TU_CHECK_CLOSE_REL(an_mmc_sojourn_quantile_s(3000, 1000, 6, 0.99), 4.6535479826951125e-3, 1e-9);
    CU_ASSERT_EQUAL(an_mmc_min_servers_for_p99(3000, 1000, 5.5e-3, 1000), 5);
    CU_ASSERT_EQUAL(an_mmc_min_servers_for_p99(3000, 1000, 6.1e-3, 1000), 4);
    CU_ASSERT_EQUAL(an_mmc_min_servers_for_p99(3000, 1000, 4.7e-3, 1000), 6);
    CU_ASSERT_EQUAL(an_mmc_min_servers_for_p99(3000, 1000, 5.5e-3, 4), -1);
    /* ln(100) ms = 4.605 ms is the floor set by the work alone: unreachable below it. */
    CU_ASSERT_EQUAL(an_mmc_min_servers_for_p99(3000, 1000, 4.6e-3, 100000), -1);
    CU_ASSERT_EQUAL(an_mmc_min_servers_for_p99(0.0, 1000, 5e-3, 10), 1);
    CU_ASSERT_EQUAL(an_mmc_min_servers_for_p99(3000, 0.0, 5e-3, 10), -2);
    CU_ASSERT_EQUAL(an_mmc_min_servers_for_p99(3000, 1000, -1.0, 10), -2);
    CU_ASSERT_EQUAL(an_mmc_min_servers_for_quantile(3000, 1000, 1.0, 1.0, 10), -2);
    /* Large pool: the answer meets the target and one fewer server does not. */
    int c = an_mmc_min_servers_for_p99(990000, 1000, 4.7e-3, 2000);
    CU_ASSERT(c > 990);
    CU_ASSERT(an_mmc_sojourn_quantile_s(990000, 1000, c, 0.99) <= 4.7e-3);
    CU_ASSERT(an_mmc_sojourn_quantile_s(990000, 1000, c - 1, 0.99) > 4.7e-3);
}

static void test_unstable_and_invalid(void)
{
    CU_ASSERT_EQUAL(an_mmc_prob_wait(2000, 1000, 2), 1.0);
    CU_ASSERT(isinf(an_mmc_mean_wait_s(2000, 1000, 2)));
    CU_ASSERT(isinf(an_mmc_mean_sojourn_s(2500, 1000, 2)));
    CU_ASSERT(isinf(an_mmc_sojourn_quantile_s(2000, 1000, 2, 0.99)));
    CU_ASSERT(isinf(an_mmc_wait_quantile_s(2000, 1000, 2, 0.5)));
    CU_ASSERT_EQUAL(an_mmc_sojourn_cdf(2000, 1000, 2, 10.0), 0.0);
    CU_ASSERT_EQUAL(an_mmc_wait_cdf(2000, 1000, 2, 10.0), 0.0);
    CU_ASSERT(isinf(an_mm1ps_mean_sojourn_s(1000, 1000)));
    CU_ASSERT(isinf(an_mg1_mean_wait_s(1000, 1000, 0.0)));
    CU_ASSERT(isinf(an_mgc_mean_wait_s(4000, 1000, 4, 0.5)));
    CU_ASSERT(isinf(an_ts_ps_mean_sojourn_s(950, 1000, 0.95)));
    CU_ASSERT(isnan(an_mmc_mean_wait_s(-1, 1000, 2)));
    CU_ASSERT(isnan(an_mmc_mean_wait_s(NAN, 1000, 2)));
    CU_ASSERT(isnan(an_mmc_mean_wait_s(100, 0, 2)));
    CU_ASSERT(isnan(an_mmc_mean_wait_s(100, 1000, 0)));
    CU_ASSERT(isnan(an_mmc_sojourn_quantile_s(100, 1000, 1, 1.5)));
    CU_ASSERT(isnan(an_mmc_sojourn_quantile_s(100, 1000, 1, NAN)));
    CU_ASSERT(isnan(an_mmc_sojourn_cdf(100, 1000, 1, NAN)));
    CU_ASSERT(isnan(an_erlang_c(0, 1.0)));
    CU_ASSERT(isnan(an_mgc_mean_wait_s(100, 1000, 2, -0.1)));
    CU_ASSERT(isnan(an_ts_capacity_fraction(0.0, 1e-6)));
    CU_ASSERT(isnan(an_ts_ps_mean_sojourn_s(100, 1000, 1.5)));
    CU_ASSERT_EQUAL(an_mmc_sojourn_quantile_s(100, 1000, 1, 0.0), 0.0);
    CU_ASSERT(isinf(an_mmc_sojourn_quantile_s(100, 1000, 1, 1.0)));
    CU_ASSERT_EQUAL(an_mmc_sojourn_cdf(100, 1000, 1, -1.0), 0.0);
}

static void test_pk_and_allen_cunneen(void)
{
    const double mu = 1000.0;
    for (double rho = 0.1; rho < 1.0; rho += 0.2) {
        double lam = rho * mu;
        /* Exponential work (SCV 1): P-K is M/M/1; deterministic (SCV 0): half of it. */
        TU_CHECK_CLOSE_REL(an_mg1_mean_wait_s(lam, mu, 1.0), an_mmc_mean_wait_s(lam, mu, 1), 1e-14);
        TU_CHECK_CLOSE_REL(an_mg1_mean_wait_s(lam, mu, 0.0), rho / (2 * mu * (1 - rho)), 1e-13);
        for (int c = 1; c <= 16; c *= 2) {
            double lc = lam * c;
            TU_CHECK_CLOSE_REL(an_mgc_mean_wait_s(lc, mu, c, 1.0), an_mmc_mean_wait_s(lc, mu, c),
                               1e-14);
            TU_CHECK_CLOSE_REL(an_ggc_mean_wait_s(lc, mu, c, 0.5, 0.0),
                               0.25 * an_mmc_mean_wait_s(lc, mu, c), 1e-14);
        }
        /* Allen–Cunneen with c = 1 and Poisson arrivals is P-K, exactly. */
        TU_CHECK_CLOSE_REL(an_mgc_mean_wait_s(lam, mu, 1, 3.0), an_mg1_mean_wait_s(lam, mu, 3.0),
                           1e-14);
    }
    TU_CHECK_CLOSE_REL(an_lognormal_scv_from_sigma(1.0), M_E - 1.0, 1e-14);
    CU_ASSERT_EQUAL(an_lognormal_scv_from_sigma(0.0), 0.0);
    TU_CHECK_CLOSE_REL(an_lognormal_scv_from_sigma(1e-9), 1e-18, 1e-8);
}

static void test_processor_sharing(void)
{
    TU_CHECK_CLOSE_REL(an_mm1ps_mean_sojourn_s(900, 1000), 10e-3, 1e-13);
    TU_CHECK_CLOSE_REL(an_mm1ps_mean_sojourn_given_work_s(900, 1000, 2e-3), 20e-3, 1e-13);
    CU_ASSERT_EQUAL(an_mm1ps_mean_sojourn_given_work_s(900, 1000, 0.0), 0.0);
    /* Linear in size, so averaging over Exp(μ) sizes gives the mean: E[x]/(1-ρ). */
    TU_CHECK_CLOSE_REL(an_mm1ps_mean_sojourn_given_work_s(500, 1000, 1e-3),
                       an_mm1ps_mean_sojourn_s(500, 1000), 1e-14);
}

static void test_timeslice_capacity(void)
{
    TU_CHECK_CLOSE_REL(an_ts_capacity_fraction(1024e-6, 50e-6), 1024.0 / 1074.0, 1e-14);
    CU_ASSERT_EQUAL(an_ts_capacity_fraction(1e-3, 0.0), 1.0);
    /* Slices much shorter than the work: one switch per slice, q / (q + s). */
    TU_CHECK_CLOSE_REL(an_ts_capacity_fraction_exp_work(1.0, 1e-4, 1e-5),
                       an_ts_capacity_fraction(1e-4, 1e-5), 1e-4);
    /* Slices much longer than the work: one switch per job, m / (m + s). */
    TU_CHECK_CLOSE_REL(an_ts_capacity_fraction_exp_work(1e-3, 1.0, 50e-6), 1e-3 / 1.05e-3, 1e-14);
    /* m = q: E[slices] = 1 / (1 - 1/e). */
    TU_CHECK_CLOSE_REL(an_ts_capacity_fraction_exp_work(1e-3, 1e-3, 1e-4),
                       1e-3 / (1e-3 + 1e-4 / (1 - exp(-1.0))), 1e-14);
    TU_CHECK_CLOSE_REL(an_ts_capacity_fraction_det_work(2.5e-3, 1e-3, 1e-4), 2.5 / 2.8, 1e-14);
    TU_CHECK_CLOSE_REL(an_ts_capacity_fraction_det_work(0.5e-3, 1e-3, 1e-4), 0.5 / 0.6, 1e-14);
}

/* The closed form of the time-slicing chain against a direct sum over its states. */
static void test_timeslice_ps_chain(void)
{
    const double mu = 1000.0;
    for (double rho = 0.1; rho < 1.0; rho += 0.2)
        TU_CHECK_CLOSE_REL(an_ts_ps_mean_sojourn_s(rho * mu, mu, 1.0),
                           an_mm1ps_mean_sojourn_s(rho * mu, mu), 1e-13);
    const double gammas[] = {0.5, 0.8, 0.95, 1024.0 / 1074.0};
    for (int g = 0; g < 4; g++)
        for (double rho = 0.05; rho < gammas[g] - 0.02; rho += 0.07) {
            double lam = rho * mu, sum_p = 0.0, sum_np = 0.0;
            for (int n = 0; n < 20000; n++) {
                double pn = an_ts_ps_prob_jobs(lam, mu, gammas[g], n);
                sum_p += pn;
                sum_np += n * pn;
            }
            TU_CHECK_CLOSE_REL(sum_p, 1.0, 1e-12);
            TU_CHECK_CLOSE_REL(an_ts_ps_mean_sojourn_s(lam, mu, gammas[g]), sum_np / lam, 1e-11);
            /* Flow balance between n = 1 and 2: λ π_1 = γ μ π_2. */
            TU_CHECK_CLOSE_REL(lam * an_ts_ps_prob_jobs(lam, mu, gammas[g], 1),
                               gammas[g] * mu * an_ts_ps_prob_jobs(lam, mu, gammas[g], 2), 1e-13);
            /* Switching costs time: never faster than PS at full speed. */
            CU_ASSERT(an_ts_ps_mean_sojourn_s(lam, mu, gammas[g]) >=
                      an_mm1ps_mean_sojourn_s(lam, mu));
        }
    CU_ASSERT_EQUAL(an_ts_ps_prob_jobs(990, 1000, 0.9, 3), 0.0);
}

void test_analytic_register(void)
{
    static const struct tu_test t[] = {
        {"Erlang B/C textbook values and log-space agreement", test_erlang_textbook},
        {"c = 1 Erlang C is M/M/1", test_c1_is_mm1},
        {"M/M/1 at 900/s on 1000/s: 10 ms, 9 ms, p99 46.05 ms", test_mm1_900_1000},
        {"c = 1000 at rho 0.99 is finite and exact", test_c1000_rho099},
        {"quantile and CDF round-trip", test_quantile_round_trip},
        {"sojourn CDF continuous across c mu - lambda == mu", test_erlang2_branch_continuous},
        {"mean sojourn equals the integral of the survival function",
         test_sojourn_mean_from_distribution},
        {"planner: 3000/s of 1 ms work needs 5 servers for p99 <= 5.5 ms", test_planner_case},
        {"unstable and invalid inputs: inf and NaN, no crash", test_unstable_and_invalid},
        {"Pollaczek-Khinchine and Allen-Cunneen", test_pk_and_allen_cunneen},
        {"M/M/1 processor sharing", test_processor_sharing},
        {"time-slicing capacity fractions", test_timeslice_capacity},
        {"time-slicing PS chain against a direct sum", test_timeslice_ps_chain},
        {NULL, NULL},
    };
    tu_add_suite("analytic", t);
}
