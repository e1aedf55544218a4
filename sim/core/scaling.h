/*
 * scaling — the two terms of the rate model that describe how a request scales with its share
 * beyond its class (docs/mig.md#work-that-does-not-fill-a-gpu):
 *
 *   intensity I (compute class): its arithmetic intensity over the GPU's ridge point. A
 *     compute-bound kernel overlaps its memory traffic with its math, so its time is the
 *     larger of the two (the roofline's max, not a sum): speed = min(compute speed,
 *     I × memory speed). On the whole GPU its bytes take 1/I of its math's time, so I ≥ 1
 *     keeps the speed there at 1. 0: not given, the memory share never limits it.
 *   host fraction p (every class): the part of a request's time on the whole GPU that no
 *     share of the GPU shortens (its host code, launches, data loading): speed =
 *     1 / (p + (1 − p) / GPU speed), Amdahl's law.
 *
 * Kept apart from core/rate.c so that each term is one function with its reason; rate_speed
 * applies them to its class's speed.
 */
#ifndef SS_SCALING_H
#define SS_SCALING_H

/* The compute-class speed sc of a request with intensity I whose memory phase would run at
 * speed sm: min(sc, I·sm); sc when I is 0 (not given). */
double scl_roofline(double sc, double sm, double intensity);

/* The speed of a request whose GPU part runs at speed v and whose host part, p of its time on
 * the whole GPU, does not scale: 1 / (p + (1 − p) / v). */
double scl_host(double v, double host_fraction);

#endif
