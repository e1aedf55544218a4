/*
 * rate — the calibration rate model (docs/scenario.md, "Work classes"). A request given a
 * fraction f of the GPU's SMs and a fraction b of its memory bandwidth processes work
 * (seconds on a whole, unshared GPU) at
 *
 *   compute-class:  speed = (u / s)^α                          u = min(f, s)
 *   memory-class:   speed = (min(b, C(u)) / C(s))^β
 *   mixed (share c of the work compute-bound):
 *                   speed = 1 / (c / compute speed + (1 − c) / memory speed)
 *
 * s is the tenant's occupancy (work.max_sm_fraction): one request keeps at most s of the
 * SMs busy, so more SMs than s do not make it faster. C is the profile's bandwidth curve
 * (mem_bw_sm_curve): the fraction of the GPU's bandwidth that a fraction of its SMs can pull.
 * Work is defined on the whole GPU, where the request uses s of the SMs and pulls C(s), so
 * both speeds are 1 there (f = b = 1) whatever s is. α and β are rate_compute_exponent and
 * rate_memory_exponent (1.0 shipped: proportional). With s = 1 and no curve (C ≡ 1) this is
 * the old model: f^α, b^β.
 *
 * The mixed blend is the roofline view of a request as a compute phase and a memory phase
 * run back to back: the times add, so the speeds combine harmonically, and c = 1 or 0 gives
 * back the pure classes. Shares are clamped to (0, 1].
 */
#ifndef SS_RATE_H
#define SS_RATE_H

#include "calib/calib.h"
#include "core/scenario.h"

double rate_speed(const struct gpu_profile *g, const struct tenant_cfg *t, double sm_share,
                  double bw_share);

/* C(f): the fraction of the GPU's memory bandwidth that a fraction f of its SMs can pull: the
 * larger of the profile's mem_bw_sm_curve (linear between its points, through (0, 0)) and
 * min(1, f / mem_bw_knee_sm_fraction); 1 when the profile has neither. */
double rate_bw_curve(const struct gpu_profile *g, double sm_share);

/* The tenant's occupancy s (work.max_sm_fraction, 1 when unset). */
double rate_occupancy(const struct tenant_cfg *t);

/* The speed of each of n requests of the tenant that share a fraction f of the SMs and b
 * of the bandwidth equally (work.concurrency): rate_speed(f / n, b / n). */
double rate_speed_n(const struct gpu_profile *g, const struct tenant_cfg *t, double sm_share,
                    double bw_share, int n);

/* The work rate (whole-GPU seconds of work per second) of the tenant's server on a share f, b
 * with its whole work.concurrency n in service: n × rate_speed_n(f, b, n); min(n, f / s) for
 * compute work with the shipped exponent. What an overloaded tenant's server sustains
 * (core/stable.h). */
double rate_saturated(const struct gpu_profile *g, const struct tenant_cfg *t, double sm_share,
                      double bw_share);

/* The fraction of the GPU's SMs that n requests of the tenant keep busy on a share f:
 * min(f, n·s) (utilisation counts SMs in use, docs/scenario.md#json-result). */
double rate_sm_in_use(const struct tenant_cfg *t, double sm_share, int n);

#endif
