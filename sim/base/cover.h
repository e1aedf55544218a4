/*
 * cover — whether a polyline is covered by the union of others: every vertex of line a, and
 * a point every unit along each of its segments, lies within `tol` of some line of `by`
 * (pixels, for the figures). A numeric test that knows nothing of SVG: report/svg.c merges
 * identical curves and reorders covered ones by it before writing a panel, and the page
 * checker (tools/svgcheck.h) tests with it that no curve written is hidden. Prefix cov_.
 */
#ifndef SS_COVER_H
#define SS_COVER_H

struct cov_line {
    int n;
    const double *x, *y; /* pixels */
    int points_only;     /* markers only: only its vertices count */
};

/* 1 when line a is covered, within tol pixels, by the union of by[0 .. n_by). */
int cov_covered(const struct cov_line *a, const struct cov_line *by, int n_by, double tol);

/* The same, adding to *work (when not NULL) the number of distance tests made: at most
 * 2 × a->n × (the points of by), independent of how long the segments are. */
int cov_covered_work(const struct cov_line *a, const struct cov_line *by, int n_by, double tol,
                     long long *work);

#endif
