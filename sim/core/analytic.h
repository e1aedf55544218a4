/*
 * analytic — exact and approximate queueing results the simulator is checked
 * against (`sharesim validate`, tests) and the planner uses as a pre-filter.
 * Formulas, derivations and references: docs/analytic.md.
 *
 * Units are in the names: rates are per second (`_per_s`), times are seconds (`_s`),
 * offered load is in Erlangs (λ/μ, dimensionless). `servers` is c, the number of
 * identical servers; `lambda_per_s` is the Poisson arrival rate; `mu_per_s` the
 * service rate of one server (1 / mean work).
 *
 * Conventions (every function, no exceptions, nothing aborts):
 *  - Invalid arguments (NaN, λ < 0, μ <= 0, servers < 1, a probability outside [0, 1],
 *    an SCV < 0, ...) → NaN; the planner search returns -2 instead. A negative time is
 *    valid: CDFs are 0 there.
 *  - Unstable system (ρ = λ / (c μ) >= 1; ρ >= γ for the time-slicing model): mean and
 *    quantile times → +INFINITY, probability of waiting → 1, CDFs and state probabilities
 *    → 0 (survival functions → 1). The queue grows without bound, so "infinite" is the
 *    honest answer, and it compares greater than any SLA target.
 *  - λ = 0 is valid: nobody waits, the sojourn time is the service time.
 * Exact results assume Poisson arrivals, i.i.d. work and a work-conserving server;
 * the functions marked APPROXIMATION say where they break in docs/analytic.md.
 */
#ifndef SS_ANALYTIC_H
#define SS_ANALYTIC_H

/* ---- Erlang's formulas (offered load a = λ/μ in Erlangs) ---- */

/* Erlang B (blocking in M/M/c/c), by the stable recursion B_k = a B_{k-1} / (k + a B_{k-1}). */
double an_erlang_b(int servers, double offered_erlangs);
/* Erlang C: probability that an arrival waits in M/M/c (FIFO or any work-conserving order). */
double an_erlang_c(int servers, double offered_erlangs);

/* ---- M/M/c FIFO ---- */

double an_mmc_prob_wait(double lambda_per_s, double mu_per_s, int servers);
double an_mmc_mean_wait_s(double lambda_per_s, double mu_per_s, int servers);
double an_mmc_mean_sojourn_s(double lambda_per_s, double mu_per_s, int servers);
/* Waiting time W: an atom 1 - C at 0, else Exp(cμ - λ). */
double an_mmc_wait_cdf(double lambda_per_s, double mu_per_s, int servers, double t_s);
double an_mmc_wait_quantile_s(double lambda_per_s, double mu_per_s, int servers, double p);
/* Sojourn (response) time T = W + S, S ~ Exp(μ) independent of W. */
double an_mmc_sojourn_cdf(double lambda_per_s, double mu_per_s, int servers, double t_s);
/* P(T > t), computed directly (no 1 - CDF cancellation in the tail). */
double an_mmc_sojourn_sf(double lambda_per_s, double mu_per_s, int servers, double t_s);
/* Smallest t with P(T <= t) >= p; Brent root finding on the survival function. p = 1 → +inf. */
double an_mmc_sojourn_quantile_s(double lambda_per_s, double mu_per_s, int servers, double p);

/*
 * Smallest c in [1, max_servers] whose M/M/c FIFO p-quantile sojourn is <= target_s.
 * Returns -1 when no c <= max_servers meets the target (also when the target is below
 * the p-quantile of the service time alone, which no number of servers can beat), -2 on
 * invalid arguments.
 */
int an_mmc_min_servers_for_quantile(double lambda_per_s, double mu_per_s, double p, double target_s,
                                    int max_servers);
/* The same with p = 0.99 (the capacity planner's question). */
int an_mmc_min_servers_for_p99(double lambda_per_s, double mu_per_s, double target_s,
                               int max_servers);

/* ---- M/M/1 (and M/G/1) processor sharing: insensitive to the work distribution ---- */

double an_mm1ps_mean_sojourn_s(double lambda_per_s, double mu_per_s);
/* Mean sojourn of a job needing work_s seconds of service alone: work_s / (1 - ρ). */
double an_mm1ps_mean_sojourn_given_work_s(double lambda_per_s, double mu_per_s, double work_s);

/* ---- M/G/1 and G/G/c: mean wait from mean work and squared coefficients of variation ---- */

/* Pollaczek–Khinchine (exact for M/G/1 FIFO): Wq = ρ/(1-ρ) · (1 + cs²)/2 · E[S]. */
double an_mg1_mean_wait_s(double lambda_per_s, double mu_per_s, double service_scv);
/* APPROXIMATION (Allen–Cunneen): Wq ≈ Wq(M/M/c) · (ca² + cs²) / 2. */
double an_ggc_mean_wait_s(double lambda_per_s, double mu_per_s, int servers, double arrival_scv,
                          double service_scv);
/* APPROXIMATION: an_ggc_mean_wait_s with Poisson arrivals (ca² = 1). */
double an_mgc_mean_wait_s(double lambda_per_s, double mu_per_s, int servers, double service_scv);
/* SCV of work: deterministic 0, exponential 1, lognormal with log-sd sigma: exp(sigma²) - 1. */
double an_lognormal_scv_from_sigma(double sigma);

/* ---- Time-slicing (round robin over contexts, slice q, switch cost s) ---- */

/*
 * Fraction of GPU time doing work when every slice runs to its end and is followed by a
 * switch (saturation: two or more contexts always have work): q / (q + s).
 */
double an_ts_capacity_fraction(double slice_s, double switch_s);
/* The same with the refill after each switch (timeslice_refill_us, calib.h: cal_refill_s): a
 * slice of q does q of work per q + switch + refill, the fraction measured time-slicing loses
 * on top of the switch (NaN for a negative or non-finite refill). */
double an_ts_capacity_fraction_refill(double slice_s, double switch_s, double refill_s);
/*
 * The same per job when a context holds one request and releases the GPU on completion,
 * so every slice *or job end* costs a switch: mean work / (mean work + s · E[slices per job]).
 * Exponential work: E[slices] = 1 / (1 - exp(-q/m)); deterministic work x: ceil(x / q).
 */
double an_ts_capacity_fraction_exp_work(double mean_work_s, double slice_s, double switch_s);
double an_ts_capacity_fraction_det_work(double work_s, double slice_s, double switch_s);
/*
 * APPROXIMATION at any load: round robin with slices small against the work, each job its
 * own context, as processor sharing whose total speed is 1 with one job present and
 * capacity_fraction (γ, from the functions above) with two or more. Mean sojourn by Little's
 * law from the birth–death chain π_n = π_0 ρ (ρ/γ)^(n-1). Unstable when ρ >= γ (→ +inf).
 * With γ = 1 it is M/M/1-PS.
 */
double an_ts_ps_mean_sojourn_s(double lambda_per_s, double mu_per_s, double capacity_fraction);
/* Stationary probability of n jobs in that model (n >= 0). */
double an_ts_ps_prob_jobs(double lambda_per_s, double mu_per_s, double capacity_fraction, int n);

#endif
