/* rate — see rate.h for the model, why speeds are relative to the whole GPU and why the mixed
 * blend is harmonic. */
#include "core/rate.h"
#include "core/scaling.h"

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

double rate_occupancy(const struct tenant_cfg *t)
{
    double s = t->work.max_sm_fraction;
    return s > 0 && s <= 1 ? s : 1.0;
}

/* The MIG-derived lower bound: mem_bw_sm_curve, linear between its points. */
static double mig_bound(const struct gpu_profile *g, double f)
{
    if (g->n_bw_curve == 0)
        return 1.0;
    double x0 = 0, y0 = 0;
    for (int k = 0; k < g->n_bw_curve; k++) {
        double x1 = g->bw_curve_sm[k], y1 = g->bw_curve_bw[k];
        if (f <= x1)
            return f == x1 ? y1 : y0 + (y1 - y0) * (f - x0) / (x1 - x0);
        x0 = x1;
        y0 = y1;
    }
    return 1.0;
}

/*
 * The bandwidth a share f of the SMs can pull. mem_bw_sm_curve is a lower bound derived from
 * the MIG table (an instance's SMs pull at least its memory slices); a streaming kernel fills
 * the bus with fewer SMs than that, which mem_bw_knee_sm_fraction says: below the knee the
 * SMs' requests in flight set the rate (Little's law: proportional to the SMs), at and above
 * it the bus does. The larger of the two, so a profile without the knee keeps its curve.
 */
double rate_bw_curve(const struct gpu_profile *g, double f)
{
    if (f >= 1 || (g->n_bw_curve == 0 && !(g->bw_knee_sm > 0)))
        return 1.0;
    if (!(f > 0))
        return 0.0;
    double c = g->n_bw_curve ? mig_bound(g, f) : 0.0;
    if (g->bw_knee_sm > 0) {
        double k = f >= g->bw_knee_sm ? 1.0 : f / g->bw_knee_sm;
        c = k > c ? k : c;
    }
    return c;
}

/* Compute-class speed of a request that keeps u = min(f, s) of the SMs busy: (u / s)^α. */
static inline double compute_speed(const struct gpu_profile *g, double u, double s)
{
    return u == s ? 1.0 : power(u / s, g->rate_compute_exponent);
}

/* Memory-class speed: the bandwidth b it is given, as far as its u SMs can pull it, against
 * what it pulls alone on the whole GPU (C(s)): (min(b, C(u)) / C(s))^β. */
static inline double memory_speed(const struct gpu_profile *g, double b, double u, double s)
{
    double pull = rate_bw_curve(g, u), alone = rate_bw_curve(g, s);
    double a = b < pull ? b : pull;
    return a == alone ? 1.0 : power(a / alone, g->rate_memory_exponent);
}

double rate_speed(const struct gpu_profile *g, const struct tenant_cfg *t, double sm_share,
                  double bw_share)
{
    double f = clamp01(sm_share), b = clamp01(bw_share), s = rate_occupancy(t);
    if (!(f > 0) || !(b > 0))
        return 0.0;
    double u = f < s ? f : s;
    /* Only the speed the class needs: the MPS benchmark calls this for every busy client at
     * every arrival and completion. */
    double v = 0;
    switch (t->wclass) {
    case CLASS_COMPUTE:
        v = compute_speed(g, u, s);
        /* Its memory share limits it only when its intensity is given (core/scaling.h). */
        if (t->work.intensity > 0)
            v = scl_roofline(v, memory_speed(g, b, u, s), t->work.intensity);
        break;
    case CLASS_MEMORY:
        v = memory_speed(g, b, u, s);
        break;
    case CLASS_MIXED: {
        double sc = compute_speed(g, u, s), sm = memory_speed(g, b, u, s);
        double c = t->compute_share;
        v = 1.0 / (c / sc + (1.0 - c) / sm);
    }
    }
    return t->work.host_fraction > 0 ? scl_host(v, t->work.host_fraction) : v;
}

double rate_speed_n(const struct gpu_profile *g, const struct tenant_cfg *t, double sm_share,
                    double bw_share, int n)
{
    return n <= 1 ? rate_speed(g, t, sm_share, bw_share)
                  : rate_speed(g, t, sm_share / n, bw_share / n);
}

double rate_saturated(const struct gpu_profile *g, const struct tenant_cfg *t, double sm_share,
                      double bw_share)
{
    int n = t->work.concurrency > 1 ? t->work.concurrency : 1;
    return n * rate_speed_n(g, t, sm_share, bw_share, n);
}

double rate_sm_in_use(const struct tenant_cfg *t, double sm_share, int n)
{
    double busy = n * rate_occupancy(t);
    return busy < sm_share ? busy : sm_share;
}
