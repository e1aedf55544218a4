/*
 * analytic — see analytic.h for the API and its conventions, docs/analytic.md for the
 * formulas and their sources.
 *
 * Invariants:
 *  - No function aborts or allocates beyond one GSL root solver freed before return:
 *    invalid arguments give NaN (or -2 for the planner search), unstable systems +inf.
 *  - Erlang B is computed by the recursion B_k = a B_{k-1} / (k + a B_{k-1}), whose every
 *    step is a ratio of numbers in (0, 1] and so neither overflows nor loses precision for
 *    c in the thousands (the textbook sum a^k / k! overflows near c = 170). Erlang C is
 *    derived from B, never from the sums.
 *  - Tail probabilities are computed as survival functions with expm1, never as 1 - CDF,
 *    so p99.99 quantiles keep their digits.
 *  - A GSL root solver is only ever started on a bracket whose ends have opposite signs,
 *    so the default GSL error handler (which aborts) is never reached.
 */
#include "core/analytic.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_roots.h>
#include <math.h>

/* True when (λ, μ) cannot describe a queue: NaN, negative or infinite rates. */
static int bad_rates(double lambda_per_s, double mu_per_s)
{
    return !(lambda_per_s >= 0.0) || !isfinite(lambda_per_s) || !(mu_per_s > 0.0) ||
           !isfinite(mu_per_s);
}

static int bad_mmc(double lambda_per_s, double mu_per_s, int servers)
{
    return bad_rates(lambda_per_s, mu_per_s) || servers < 1;
}

static int unstable(double lambda_per_s, double mu_per_s, int servers)
{
    return lambda_per_s >= (double)servers * mu_per_s;
}

double an_erlang_b(int servers, double offered_erlangs)
{
    if (servers < 0 || !(offered_erlangs >= 0.0) || !isfinite(offered_erlangs))
        return GSL_NAN;
    double b = 1.0; /* B_0: with no servers every arrival is blocked */
    for (int k = 1; k <= servers; k++)
        b = offered_erlangs * b / ((double)k + offered_erlangs * b);
    return b;
}

/* Erlang C from Erlang B: C = c B / (c - a (1 - B)), valid for a < c. */
static double erlang_c_from_b(int servers, double offered_erlangs, double b)
{
    double c = (double)servers;
    return c * b / (c - offered_erlangs * (1.0 - b));
}

double an_erlang_c(int servers, double offered_erlangs)
{
    if (servers < 1 || !(offered_erlangs >= 0.0) || !isfinite(offered_erlangs))
        return GSL_NAN;
    if (offered_erlangs >= (double)servers)
        return 1.0;
    return erlang_c_from_b(servers, offered_erlangs, an_erlang_b(servers, offered_erlangs));
}

double an_mmc_prob_wait(double lambda_per_s, double mu_per_s, int servers)
{
    if (bad_mmc(lambda_per_s, mu_per_s, servers))
        return GSL_NAN;
    return an_erlang_c(servers, lambda_per_s / mu_per_s);
}

double an_mmc_mean_wait_s(double lambda_per_s, double mu_per_s, int servers)
{
    if (bad_mmc(lambda_per_s, mu_per_s, servers))
        return GSL_NAN;
    if (unstable(lambda_per_s, mu_per_s, servers))
        return GSL_POSINF;
    double cw = an_erlang_c(servers, lambda_per_s / mu_per_s);
    return cw / ((double)servers * mu_per_s - lambda_per_s);
}

double an_mmc_mean_sojourn_s(double lambda_per_s, double mu_per_s, int servers)
{
    double wq = an_mmc_mean_wait_s(lambda_per_s, mu_per_s, servers);
    return wq + 1.0 / mu_per_s; /* NaN and +inf propagate */
}

/* ---- distributions ---- */

double an_mmc_wait_cdf(double lambda_per_s, double mu_per_s, int servers, double t_s)
{
    if (bad_mmc(lambda_per_s, mu_per_s, servers) || isnan(t_s))
        return GSL_NAN;
    if (t_s < 0.0)
        return 0.0;
    if (unstable(lambda_per_s, mu_per_s, servers))
        return 0.0;
    double cw = an_erlang_c(servers, lambda_per_s / mu_per_s);
    double theta = (double)servers * mu_per_s - lambda_per_s;
    return 1.0 - cw * exp(-theta * t_s);
}

double an_mmc_wait_quantile_s(double lambda_per_s, double mu_per_s, int servers, double p)
{
    if (bad_mmc(lambda_per_s, mu_per_s, servers) || !(p >= 0.0 && p <= 1.0))
        return GSL_NAN;
    if (unstable(lambda_per_s, mu_per_s, servers) || p == 1.0)
        return GSL_POSINF;
    double cw = an_erlang_c(servers, lambda_per_s / mu_per_s);
    if (1.0 - p >= cw) /* inside the atom at zero: that share never waits */
        return 0.0;
    double theta = (double)servers * mu_per_s - lambda_per_s;
    return (log(cw) - log1p(-p)) / theta;
}

/*
 * P(X + Y > t) for independent X ~ Exp(r1), Y ~ Exp(r2). With a = min, b = max, d = b - a:
 *   (b e^{-a t} - a e^{-b t}) / (b - a) = e^{-a t} (1 + a (1 - e^{-d t}) / d),
 * and (1 - e^{-d t}) / d → t as d → 0 (the Erlang-2 case r1 = r2). Written with expm1 the
 * expression has no cancellation and no overflow for any d >= 0.
 */
static double hypoexp2_sf(double r1, double r2, double t_s)
{
    double a = r1 < r2 ? r1 : r2;
    double d = fabs(r1 - r2);
    double h = d > 0.0 ? -gsl_expm1(-d * t_s) / d : t_s;
    return exp(-a * t_s) * (1.0 + a * h);
}

/* Survival of the M/M/c sojourn time given C = P(wait) and θ = cμ - λ. */
static double sojourn_sf(double cw, double theta, double mu_per_s, double t_s)
{
    return (1.0 - cw) * exp(-mu_per_s * t_s) + cw * hypoexp2_sf(theta, mu_per_s, t_s);
}

double an_mmc_sojourn_sf(double lambda_per_s, double mu_per_s, int servers, double t_s)
{
    if (bad_mmc(lambda_per_s, mu_per_s, servers) || isnan(t_s))
        return GSL_NAN;
    if (t_s < 0.0)
        return 1.0;
    if (unstable(lambda_per_s, mu_per_s, servers))
        return 1.0;
    double cw = an_erlang_c(servers, lambda_per_s / mu_per_s);
    return sojourn_sf(cw, (double)servers * mu_per_s - lambda_per_s, mu_per_s, t_s);
}

double an_mmc_sojourn_cdf(double lambda_per_s, double mu_per_s, int servers, double t_s)
{
    double sf = an_mmc_sojourn_sf(lambda_per_s, mu_per_s, servers, t_s);
    return 1.0 - sf;
}

struct sf_root {
    double cw, theta, mu_per_s, tail;
};

static double sf_minus_tail(double t_s, void *arg)
{
    const struct sf_root *r = arg;
    return sojourn_sf(r->cw, r->theta, r->mu_per_s, t_s) - r->tail;
}

/*
 * Solves sojourn_sf(t) = 1 - p on [0, hi]: the survival function falls strictly from 1, so
 * doubling hi from the slower rate's mean brackets the root, then Brent converges to a
 * relative width of 1e-13.
 */
static double sojourn_quantile(double cw, double theta, double mu_per_s, double p)
{
    if (p == 0.0)
        return 0.0;
    if (p == 1.0)
        return GSL_POSINF;
    struct sf_root r = {cw, theta, mu_per_s, 1.0 - p};
    double slow = theta < mu_per_s ? theta : mu_per_s;
    double lo = 0.0, hi = 1.0 / slow;
    while (sf_minus_tail(hi, &r) > 0.0) {
        lo = hi;
        hi *= 2.0;
    }
    if (sf_minus_tail(hi, &r) == 0.0)
        return hi;
    gsl_function f = {sf_minus_tail, &r};
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    gsl_root_fsolver_set(s, &f, lo, hi);
    double root = 0.5 * (lo + hi);
    for (int iter = 0; iter < 200; iter++) {
        if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
            break;
        root = gsl_root_fsolver_root(s);
        lo = gsl_root_fsolver_x_lower(s);
        hi = gsl_root_fsolver_x_upper(s);
        if (gsl_root_test_interval(lo, hi, 0.0, 1e-13) == GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(s);
    return root;
}

double an_mmc_sojourn_quantile_s(double lambda_per_s, double mu_per_s, int servers, double p)
{
    if (bad_mmc(lambda_per_s, mu_per_s, servers) || !(p >= 0.0 && p <= 1.0))
        return GSL_NAN;
    if (unstable(lambda_per_s, mu_per_s, servers))
        return p == 0.0 ? 0.0 : GSL_POSINF;
    double cw = an_erlang_c(servers, lambda_per_s / mu_per_s);
    return sojourn_quantile(cw, (double)servers * mu_per_s - lambda_per_s, mu_per_s, p);
}

/*
 * Scans c upward from the smallest stable count, carrying Erlang B along the recursion so
 * the whole search costs O(max_servers) plus one root find per candidate. The quantile falls
 * as c grows (more servers never lengthen a FIFO wait), so the first c that meets the target
 * is the minimum.
 */
int an_mmc_min_servers_for_quantile(double lambda_per_s, double mu_per_s, double p, double target_s,
                                    int max_servers)
{
    if (bad_rates(lambda_per_s, mu_per_s) || !(p >= 0.0 && p < 1.0) || !(target_s >= 0.0) ||
        max_servers < 1)
        return -2;
    /* With unlimited servers nobody waits: T = S, whose p-quantile is -ln(1-p)/μ. */
    if (-log1p(-p) / mu_per_s > target_s)
        return -1;
    double a = lambda_per_s / mu_per_s;
    double b = 1.0;
    for (int c = 1; c <= max_servers; c++) {
        b = a * b / ((double)c + a * b);
        if (a >= (double)c)
            continue;
        double cw = erlang_c_from_b(c, a, b);
        double q = sojourn_quantile(cw, (double)c * mu_per_s - lambda_per_s, mu_per_s, p);
        if (q <= target_s)
            return c;
    }
    return -1;
}

int an_mmc_min_servers_for_p99(double lambda_per_s, double mu_per_s, double target_s,
                               int max_servers)
{
    return an_mmc_min_servers_for_quantile(lambda_per_s, mu_per_s, 0.99, target_s, max_servers);
}

/* ---- processor sharing ---- */

double an_mm1ps_mean_sojourn_s(double lambda_per_s, double mu_per_s)
{
    return an_mm1ps_mean_sojourn_given_work_s(lambda_per_s, mu_per_s, 1.0 / mu_per_s);
}

double an_mm1ps_mean_sojourn_given_work_s(double lambda_per_s, double mu_per_s, double work_s)
{
    if (bad_rates(lambda_per_s, mu_per_s) || !(work_s >= 0.0) || !isfinite(work_s))
        return GSL_NAN;
    double rho = lambda_per_s / mu_per_s;
    if (rho >= 1.0)
        return GSL_POSINF;
    return work_s / (1.0 - rho);
}

/* ---- M/G/1, G/G/c ---- */

double an_mg1_mean_wait_s(double lambda_per_s, double mu_per_s, double service_scv)
{
    return an_ggc_mean_wait_s(lambda_per_s, mu_per_s, 1, 1.0, service_scv);
}

double an_ggc_mean_wait_s(double lambda_per_s, double mu_per_s, int servers, double arrival_scv,
                          double service_scv)
{
    if (bad_mmc(lambda_per_s, mu_per_s, servers) || !(arrival_scv >= 0.0) ||
        !isfinite(arrival_scv) || !(service_scv >= 0.0) || !isfinite(service_scv))
        return GSL_NAN;
    double wq_mmc = an_mmc_mean_wait_s(lambda_per_s, mu_per_s, servers);
    if (isinf(wq_mmc))
        return wq_mmc;
    return wq_mmc * 0.5 * (arrival_scv + service_scv);
}

double an_mgc_mean_wait_s(double lambda_per_s, double mu_per_s, int servers, double service_scv)
{
    return an_ggc_mean_wait_s(lambda_per_s, mu_per_s, servers, 1.0, service_scv);
}

double an_lognormal_scv_from_sigma(double sigma)
{
    if (!(sigma >= 0.0) || !isfinite(sigma))
        return GSL_NAN;
    return gsl_expm1(sigma * sigma);
}

/* ---- time-slicing ---- */

static int bad_slice(double slice_s, double switch_s)
{
    return !(slice_s > 0.0) || !isfinite(slice_s) || !(switch_s >= 0.0) || !isfinite(switch_s);
}

double an_ts_capacity_fraction(double slice_s, double switch_s)
{
    if (bad_slice(slice_s, switch_s))
        return GSL_NAN;
    return slice_s / (slice_s + switch_s);
}

/* The refill after each switch is dead time like the switch itself (tsunit.h: ts_switch_s). */
double an_ts_capacity_fraction_refill(double slice_s, double switch_s, double refill_s)
{
    if (!(refill_s >= 0.0) || !isfinite(refill_s))
        return GSL_NAN;
    return an_ts_capacity_fraction(slice_s, switch_s + refill_s);
}

/*
 * Exp(mean m) work cut into slices of q: by memorylessness each slice finishes the job with
 * probability 1 - e^{-q/m}, so the slice count is geometric with that mean's inverse.
 */
double an_ts_capacity_fraction_exp_work(double mean_work_s, double slice_s, double switch_s)
{
    if (bad_slice(slice_s, switch_s) || !(mean_work_s > 0.0) || !isfinite(mean_work_s))
        return GSL_NAN;
    double slices_per_job = 1.0 / -gsl_expm1(-slice_s / mean_work_s);
    return mean_work_s / (mean_work_s + switch_s * slices_per_job);
}

double an_ts_capacity_fraction_det_work(double work_s, double slice_s, double switch_s)
{
    if (bad_slice(slice_s, switch_s) || !(work_s > 0.0) || !isfinite(work_s))
        return GSL_NAN;
    double slices_per_job = ceil(work_s / slice_s);
    return work_s / (work_s + switch_s * slices_per_job);
}

static int bad_ts_ps(double lambda_per_s, double mu_per_s, double capacity_fraction)
{
    return bad_rates(lambda_per_s, mu_per_s) || !(capacity_fraction > 0.0) ||
           !(capacity_fraction <= 1.0);
}

/*
 * Birth–death chain with birth λ, death μ from one job and γμ from two or more:
 *   π_n = π_0 ρ x^{n-1} (n >= 1), x = ρ/γ;  π_0 = 1 / (1 + ρ / (1 - x));
 *   E[N] = π_0 ρ / (1 - x)²;  E[T] = E[N] / λ = π_0 / (μ (1 - x)²).
 */
double an_ts_ps_mean_sojourn_s(double lambda_per_s, double mu_per_s, double capacity_fraction)
{
    if (bad_ts_ps(lambda_per_s, mu_per_s, capacity_fraction))
        return GSL_NAN;
    double rho = lambda_per_s / mu_per_s;
    double x = rho / capacity_fraction;
    if (x >= 1.0)
        return GSL_POSINF;
    double pi0 = 1.0 / (1.0 + rho / (1.0 - x));
    return pi0 / (mu_per_s * (1.0 - x) * (1.0 - x));
}

double an_ts_ps_prob_jobs(double lambda_per_s, double mu_per_s, double capacity_fraction, int n)
{
    if (bad_ts_ps(lambda_per_s, mu_per_s, capacity_fraction) || n < 0)
        return GSL_NAN;
    double rho = lambda_per_s / mu_per_s;
    double x = rho / capacity_fraction;
    if (x >= 1.0)
        return 0.0; /* unstable: every finite state has probability zero */
    double pi0 = 1.0 / (1.0 + rho / (1.0 - x));
    if (n == 0)
        return pi0;
    return pi0 * rho * pow(x, (double)(n - 1));
}
