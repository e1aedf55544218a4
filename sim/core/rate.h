/*
 * rate — the calibration rate model (docs/scenario.md, "Work classes"). A context holding
 * a fraction f of the GPU's SMs and a fraction b of its memory bandwidth
 * processes work (seconds on a whole, unshared GPU) at
 *
 *   compute-class:  speed = f^α                 (α = rate_compute_exponent)
 *   memory-class:   speed = b^β                 (β = rate_memory_exponent)
 *   mixed (share c of the work compute-bound):
 *                   speed = 1 / (c / f^α + (1 − c) / b^β)
 *
 * The mixed blend is the roofline view of a request as a compute phase and a
 * memory phase run back to back: the times add, so the speeds combine
 * harmonically, and c = 1 or 0 gives back the pure classes. With the shipped
 * exponents (1.0) speeds are proportional to shares; kernels/partition measures
 * the real curve. Shares are clamped to (0, 1].
 */
#ifndef SS_RATE_H
#define SS_RATE_H

#include "calib/calib.h"
#include "core/scenario.h"

double rate_speed(const struct gpu_profile *g, const struct tenant_cfg *t, double sm_share,
                  double bw_share);

#endif
