/*
 * moments — count, mean, variance, min and max of a stream of doubles without overflow.
 *
 * Welford's update (mean and sum of squared deviations, one pass) on the values scaled by a
 * power of two: every value is divided by 2^e, e the largest binary exponent seen so far, so
 * the scaled values are at most 1 in magnitude and their squares cannot overflow (work_ms or
 * gaps of 1e200 made the plain sums infinite: `trace stats` printed "cv inf" for finite data).
 * Scaling by a power of two is exact, so below that the figures are the plain Welford ones. The
 * coefficient of variation does not depend on the scale, so it is computed scaled, and stays
 * finite whenever the data are.
 */
#ifndef SS_MOMENTS_H
#define SS_MOMENTS_H

#include <math.h>

struct ss_moments {
    long long n;
    double mean, m2; /* of the scaled values */
    int e;           /* the scale: 2^e; meaningful once a nonzero value was seen */
    int have_e;
    double min, max; /* of the values as given */
};

static inline void ss_mom_add(struct ss_moments *m, double x)
{
    if (x != 0) {
        int ex;
        frexp(x, &ex);
        if (!m->have_e) {
            m->e = ex; /* every value so far was 0: nothing to rescale */
            m->have_e = 1;
        } else if (ex > m->e) {
            m->mean = ldexp(m->mean, m->e - ex);
            m->m2 = ldexp(m->m2, 2 * (m->e - ex));
            m->e = ex;
        }
    }
    double y = x != 0 ? ldexp(x, -m->e) : 0;
    m->n++;
    double d = y - m->mean;
    m->mean += d / (double)m->n;
    m->m2 += d * (y - m->mean);
    if (m->n == 1 || x < m->min)
        m->min = x;
    if (m->n == 1 || x > m->max)
        m->max = x;
}

/* The mean; NaN when empty. */
static inline double ss_mom_mean(const struct ss_moments *m)
{
    return m->n ? ldexp(m->mean, m->have_e ? m->e : 0) : NAN;
}

/* Population squared coefficient of variation (variance / mean^2); NaN when empty or the mean
 * is not positive. */
static inline double ss_mom_scv(const struct ss_moments *m)
{
    if (m->n < 1 || !(m->mean > 0))
        return NAN;
    return m->m2 / (double)m->n / (m->mean * m->mean);
}

/* Population coefficient of variation (ddof = 0); NaN when empty or the mean is 0. */
static inline double ss_mom_cv(const struct ss_moments *m)
{
    if (m->n < 1 || m->mean == 0)
        return NAN;
    return sqrt(m->m2 / (double)m->n) / m->mean;
}

#endif
