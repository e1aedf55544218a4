/*
 * cover — see cover.h.
 *
 * The promise is about sample points one pixel apart along each segment, as a
 * browser's pixels are; walking them one by one costs the segment's length in pixels, unbounded for
 * a hostile page (a 10^7-pixel segment took seconds, 10^300 overflowed the step count). Instead,
 * for a segment A + tD, t in [0, 1], each later segment or marker B covers the t where A + tD lies
 * in the capsule of radius tol around B: one interval, because a capsule is convex. The sample t =
 * s / steps is covered when one of those intervals holds it, so sorting the intervals and walking
 * them once answers for every sample: the work is the number of later segments, not of pixels.
 */
#include "base/cover.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

struct span {
    double lo, hi; /* t in [lo, hi] */
};

static double seg_dist2(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double qx = ax + t * dx - px, qy = ay + t * dy - py;
    return qx * qx + qy * qy;
}

static int is_points(const struct cov_line *b)
{
    return b->n == 1 || b->points_only;
}

/* Is (px, py) within tol of one of the lines? */
static int near_any(double px, double py, const struct cov_line *by, int n_by, double tol2,
                    long long *work)
{
    for (int l = 0; l < n_by; l++) {
        const struct cov_line *b = &by[l];
        if (is_points(b)) {
            for (int k = 0; k < b->n; k++) {
                double dx = b->x[k] - px, dy = b->y[k] - py;
                ++*work;
                if (dx * dx + dy * dy <= tol2)
                    return 1;
            }
            continue;
        }
        for (int k = 0; k + 1 < b->n; k++) {
            ++*work;
            if (seg_dist2(px, py, b->x[k], b->y[k], b->x[k + 1], b->y[k + 1]) <= tol2)
                return 1;
        }
    }
    return 0;
}

/* The t where |A + tD - C|² ≤ r2 (the quadratic's roots, the stable way round). */
static int disk_span(double ax, double ay, double dx, double dy, double cx, double cy, double r2,
                     struct span *s)
{
    double ex = ax - cx, ey = ay - cy;
    double a = dx * dx + dy * dy, b = dx * ex + dy * ey, c = ex * ex + ey * ey - r2;
    double disc = b * b - a * c;
    if (!(a > 0) || !(disc >= 0))
        return 0;
    double q = -(b + (b >= 0 ? sqrt(disc) : -sqrt(disc)));
    double t1 = q / a, t2 = q != 0 ? c / q : t1;
    s->lo = fmin(t1, t2);
    s->hi = fmax(t1, t2);
    return 1;
}

/* The t where lo ≤ c0 + t·c1 ≤ hi. */
static int lin_span(double c0, double c1, double lo, double hi, struct span *s)
{
    if (c1 == 0) {
        s->lo = -INFINITY;
        s->hi = INFINITY;
        return c0 >= lo && c0 <= hi;
    }
    double t0 = (lo - c0) / c1, t1 = (hi - c0) / c1;
    s->lo = fmin(t0, t1);
    s->hi = fmax(t0, t1);
    return 1;
}

/* The t where A + tD is within r2 of the segment from (bx0, by0) to (bx1, by1): the two end
 * disks and the band between them, whose union is convex, so its hull is the answer. */
static int capsule_span(double ax, double ay, double dx, double dy, double bx0, double by0,
                        double bx1, double by1, double r2, struct span *s)
{
    struct span part;
    int any = disk_span(ax, ay, dx, dy, bx0, by0, r2, s);
    double ex = bx1 - bx0, ey = by1 - by0, e2 = ex * ex + ey * ey;
    if (!(e2 > 0))
        return any;
    if (disk_span(ax, ay, dx, dy, bx1, by1, r2, &part)) {
        *s = any ? (struct span){fmin(s->lo, part.lo), fmax(s->hi, part.hi)} : part;
        any = 1;
    }
    /* along B: 0 ≤ (P - B0)·E ≤ |E|²; across: |E × (P - B0)| ≤ r |E| */
    struct span along, across;
    double wx = ax - bx0, wy = ay - by0, half = sqrt(r2 * e2);
    if (lin_span(wx * ex + wy * ey, dx * ex + dy * ey, 0, e2, &along) &&
        lin_span(ex * wy - ey * wx, ex * dy - ey * dx, -half, half, &across)) {
        part = (struct span){fmax(along.lo, across.lo), fmin(along.hi, across.hi)};
        if (part.lo <= part.hi) {
            *s = any ? (struct span){fmin(s->lo, part.lo), fmax(s->hi, part.hi)} : part;
            any = 1;
        }
    }
    return any;
}

static int span_cmp(const void *pa, const void *pb)
{
    const struct span *a = pa, *b = pb;
    return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Keeps s when it is a real stretch of [0, 1]; 1 when it alone holds every sample (the
 * common case of a curve lying on a later one, which then needs no sort). */
static int keep(struct span *spans, int *n, struct span s, double steps)
{
    if (!(s.lo <= s.hi) || s.hi < 0 || s.lo > 1)
        return 0; /* empty, or NaN from a degenerate input: covers nothing */
    if (s.lo <= 1 / steps && s.hi >= (steps - 1) / steps)
        return 1;
    spans[(*n)++] = (struct span){fmax(s.lo, 0), fmin(s.hi, 1)};
    return 0;
}

/* Are the samples t = s/steps, s = 1 .. steps-1, of the segment from (ax, ay) by (dx, dy) all
 * within tol of some later line? spans has room for every later point. */
static int interior_covered(double ax, double ay, double dx, double dy, const struct cov_line *by,
                            int n_by, double tol2, struct span *spans, long long *work)
{
    double steps = ceil(sqrt(dx * dx + dy * dy));
    if (!(steps < 1e15)) /* not finite, or past exact integers: nothing is provably covered */
        return 0;
    if (steps < 2)
        return 1;
    int n = 0;
    struct span s;
    for (int l = 0; l < n_by; l++) {
        const struct cov_line *b = &by[l];
        for (int k = 0; k < b->n; k++) {
            int found = 0;
            if (is_points(b)) {
                ++*work;
                found = disk_span(ax, ay, dx, dy, b->x[k], b->y[k], tol2, &s);
            } else if (k + 1 < b->n) {
                ++*work;
                found = capsule_span(ax, ay, dx, dy, b->x[k], b->y[k], b->x[k + 1], b->y[k + 1],
                                     tol2, &s);
            }
            if (found && keep(spans, &n, s, steps))
                return 1;
        }
    }
    qsort(spans, (size_t)n, sizeof *spans, span_cmp);
    double next = 1; /* the first sample not yet known to be covered */
    for (int i = 0; i < n && next <= steps - 1; i++) {
        if (next / steps < spans[i].lo)
            return 0; /* every later span starts after it too */
        /* the last sample at or before hi; floor() can be one off either way */
        double last = floor(spans[i].hi * steps);
        if ((last + 1) / steps <= spans[i].hi)
            last += 1;
        else if (last / steps > spans[i].hi)
            last -= 1;
        if (last + 1 > next)
            next = last + 1;
    }
    return next > steps - 1;
}

int cov_covered_work(const struct cov_line *a, const struct cov_line *by, int n_by, double tol,
                     long long *work)
{
    long long own = 0;
    if (!work)
        work = &own;
    double tol2 = tol * tol + 1e-9;
    if (a->n == 0 || n_by == 0)
        return 0;
    size_t later = 0;
    for (int l = 0; l < n_by; l++)
        later += (size_t)(by[l].n > 0 ? by[l].n : 0);
    struct span *spans = NULL;
    int covered = 1;
    for (int k = 0; k < a->n && covered; k++) {
        if (!near_any(a->x[k], a->y[k], by, n_by, tol2, work)) {
            covered = 0;
            break;
        }
        if (a->points_only || k + 1 == a->n)
            continue;
        if (!spans)
            spans = ss_xmalloc((later ? later : 1) * sizeof *spans);
        covered = interior_covered(a->x[k], a->y[k], a->x[k + 1] - a->x[k], a->y[k + 1] - a->y[k],
                                   by, n_by, tol2, spans, work);
    }
    free(spans);
    return covered;
}

int cov_covered(const struct cov_line *a, const struct cov_line *by, int n_by, double tol)
{
    return cov_covered_work(a, by, n_by, tol, NULL);
}
