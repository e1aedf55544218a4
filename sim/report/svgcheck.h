/*
 * svgcheck — reads back what svg.c plotted and checks the two promises of the report
 * figures: every latency panel shows its SLA line (or says it has none), and no curve is
 * fully hidden by the curves drawn after it. The check works on the written SVG text
 * (pixel points, as a browser draws them), not on the data, so it also catches two
 * different data series that land on the same pixels.
 *
 * Hidden: every vertex of the curve, and a point every pixel along each of its segments,
 * lies within `tol` pixels of a curve drawn later (of their union). svg.c uses the same
 * geometry to merge identical curves and reorder covered ones before writing.
 *
 * The per-pixel points are not visited one by one: for each segment the stretches within
 * `tol` of each later segment or marker are solved for in closed form (svgcover.c), so the
 * work is (points of the curve) × (points of the later curves), whatever the segments'
 * lengths. The page reader (svgcheck.c) bounds that product and refuses what svg.c could not
 * have written (a page cut inside a figure, a coordinate that is not a finite number).
 */
#ifndef SS_SVGCHECK_H
#define SS_SVGCHECK_H

#include <stddef.h>

/* Limits of the page reader, each checked while reading, the number in the message
 * (docs/robustness.md, "Page checker limits"). */
#define SVC_MAX_COORD 1e6           /* |x|, |y| of a curve's point, pixels */
#define SVC_MAX_SERIES 256          /* curves in one panel (svg.c writes at most 48) */
#define SVC_MAX_PANEL_POINTS 100000 /* points of all curves of one panel */
#define SVC_MAX_PAIRS 10000000LL    /* Σ over a page's curves of points × later points */
#define SVC_MAX_NUMBER_CHARS 64     /* characters of one coordinate */

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

struct svc_report {
    int figures, panels, series;
    int latency_panels;
    int sla_missing;  /* latency panels with neither an SLA line nor "no SLA" */
    int hidden;       /* series fully hidden by later ones */
    long long points; /* points of every curve read */
    long long pairs;  /* Σ over curves of their points × the later curves' points */
    long long work;   /* distance tests the hidden-curve check made (≤ 2 × pairs) */
    char first[512];  /* what the first broken promise was, or "" */
    char error[768];  /* why the page could not be checked (return -1), or "" */
};

/*
 * Checks every <g class="panel"> of an HTML page or SVG file (text as written by
 * svg_fig_write). Returns hidden + sla_missing (0: the promises hold), or -1 when the text
 * cannot be checked — cut inside a figure, a tag or a comment, a malformed or non-finite
 * point, a limit above exceeded — with r->error saying where (line, figure, panel, curve)
 * and what is wrong. svc_check_mem takes the text's length (it may hold NUL bytes).
 */
int svc_check_text(const char *text, struct svc_report *r);
int svc_check_mem(const char *text, size_t len, struct svc_report *r);

#endif
