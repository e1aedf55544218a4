/* rate — see rate.h for the model and why the mixed blend is harmonic. */
#include "core/rate.h"

#include <math.h>

static double clamp01(double x)
{
    return x > 1.0 ? 1.0 : x;
}

double rate_speed(const struct gpu_profile *g, const struct tenant_cfg *t, double sm_share,
                  double bw_share)
{
    double f = clamp01(sm_share), b = clamp01(bw_share);
    if (!(f > 0) || !(b > 0))
        return 0.0;
    double sc = pow(f, g->rate_compute_exponent);
    double sm = pow(b, g->rate_memory_exponent);
    switch (t->wclass) {
    case CLASS_COMPUTE:
        return sc;
    case CLASS_MEMORY:
        return sm;
    case CLASS_MIXED:
        break;
    }
    double c = t->compute_share;
    return 1.0 / (c / sc + (1.0 - c) / sm);
}
