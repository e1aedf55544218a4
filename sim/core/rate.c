/* rate — see rate.h for the model and why the mixed blend is harmonic. */
#include "core/rate.h"

#include <math.h>

static double clamp01(double x)
{
    return x > 1.0 ? 1.0 : x;
}

/*
 * x^e, skipping pow for the shipped exponent 1: MPS recomputes every busy client's speed at
 * every arrival and completion, and pow was a third of the MPS benchmark's instructions
 * (callgrind, docs/performance.md). pow(x, 1) is x exactly (glibc's pow errs by < 1 ulp and
 * x is representable), so nothing changes but the cost.
 */
static inline double power(double x, double e)
{
    return e == 1.0 ? x : pow(x, e);
}

double rate_speed(const struct gpu_profile *g, const struct tenant_cfg *t, double sm_share,
                  double bw_share)
{
    double f = clamp01(sm_share), b = clamp01(bw_share);
    if (!(f > 0) || !(b > 0))
        return 0.0;
    switch (t->wclass) {
    case CLASS_COMPUTE:
        return power(f, g->rate_compute_exponent);
    case CLASS_MEMORY:
        return power(b, g->rate_memory_exponent);
    case CLASS_MIXED:
        break;
    }
    double sc = power(f, g->rate_compute_exponent);
    double sm = power(b, g->rate_memory_exponent);
    double c = t->compute_share;
    return 1.0 / (c / sc + (1.0 - c) / sm);
}
