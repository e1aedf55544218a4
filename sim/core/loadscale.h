/*
 * loadscale — scales a loaded scenario's offered load by a factor, for load
 * sweeps (`sharesim run --scale-load X`). Every tenant's arrival rate is
 * multiplied by X: rate_per_s of poisson, deterministic, gamma and diurnal
 * (the diurnal mean; amplitude and period unchanged), every MMPP state's rate
 * (dwell times unchanged, so the burst pattern keeps its shape) and, for a
 * trace, the replay speed (time_scale / X: timestamps compressed by X). The work
 * distributions, the stop rule and the warm-up are untouched, so a sweep at a
 * fixed stop.requests measures every point on the same number of requests.
 * A saturated tenant has no rate and is left as it is.
 */
#ifndef SS_LOADSCALE_H
#define SS_LOADSCALE_H

#include "core/scenario.h"

#include <stddef.h>

/* Multiplies every tenant's arrival rate by x (finite, > 0); -1 with a message otherwise. */
int ls_scale_load(struct scenario *sc, double x, char *err, size_t errlen);

#endif
