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
 */
#ifndef SS_SVGCHECK_H
#define SS_SVGCHECK_H

#include <stddef.h>

struct svc_line {
    int n;
    const double *x, *y; /* pixels */
    int points_only;     /* markers only: only its vertices count */
};

/* 1 when line a is covered, within tol pixels, by the union of by[0 .. n_by). */
int svc_covered(const struct svc_line *a, const struct svc_line *by, int n_by, double tol);

struct svc_report {
    int figures, panels, series;
    int latency_panels;
    int sla_missing; /* latency panels with neither an SLA line nor "no SLA" */
    int hidden;      /* series fully hidden by later ones */
    char first[512]; /* what the first problem was, or "" */
};

/*
 * Checks every <g class="panel"> of an HTML page or SVG file (text as written by
 * svg_fig_write). Returns hidden + sla_missing (0: the promises hold).
 */
int svc_check_text(const char *text, struct svc_report *r);

#endif
