/*
 * svggeom — the geometry svg.c lays out its figures with and the page checker
 * (tools/svgcheck.h) tests them with: a label's box, and whether a curve is hidden by the
 * curves drawn after it. One definition for both, so what svg.c avoids is what the checker
 * tests.
 *
 * Hidden: every vertex of the curve, and a point every pixel along each of its segments,
 * lies within `tol` pixels of a curve drawn later (of their union). svg.c uses the same
 * geometry to merge identical curves and reorder covered ones before writing.
 */
#ifndef SS_SVGGEOM_H
#define SS_SVGGEOM_H

#include <stddef.h>

/* The box a label takes: its estimated extent in pixels. svg.c places its labels with the
 * same estimate, so what it avoids is what the checker tests. */
struct svc_box {
    double x0, y0, x1, y1;
};
enum svc_anchor { SVC_START, SVC_MIDDLE, SVC_END };
/* A line of `chars` characters at (x, y) (the baseline) of font size `size`. */
struct svc_box svc_label_box(double x, double y, enum svc_anchor anchor, double size, int chars,
                             int bold);
/* Do the boxes share more than half a pixel both ways? */
int svc_boxes_overlap(const struct svc_box *a, const struct svc_box *b);
/* Characters (UTF-8 code points, an entity as one) of n bytes of text as written. */
int svc_text_chars(const char *s, size_t n);

struct svc_line {
    int n;
    const double *x, *y; /* pixels */
    int points_only;     /* markers only: only its vertices count */
};

/* 1 when line a is covered, within tol pixels, by the union of by[0 .. n_by). */
int svc_covered(const struct svc_line *a, const struct svc_line *by, int n_by, double tol);

/* The same, adding to *work (when not NULL) the number of distance tests made: at most
 * 2 × a->n × (the points of by), independent of how long the segments are. */
int svc_covered_work(const struct svc_line *a, const struct svc_line *by, int n_by, double tol,
                     long long *work);

#endif
