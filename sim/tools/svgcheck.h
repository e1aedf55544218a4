/*
 * svgcheck — reads back what svg.c plotted and checks the promises of the report figures:
 * every latency panel shows its SLA line (or says it has none), and no curve is fully hidden
 * by the curves drawn after it; and that a figure is readable (issue 37): no panel without a
 * curve, at most one off-scale label per panel, no two labels of a panel on top of each
 * other, no two curves of a figure with the same marker in nearly the same colour, SLA labels
 * in words with the unit of their axis, no whole-request latency of an LLM service drawn
 * without an SLA, no figure whose panels each hold nothing but the same merged curve, and a
 * page's first figure is the one its verdict rests on. The check works on the written SVG text
 * (pixel points, as a browser draws them), not on the data, so it also catches two
 * different data series that land on the same pixels.
 *
 * The per-pixel points are not visited one by one: for each segment the stretches within
 * `tol` of each later segment or marker are solved for in closed form (base/cover.c), so the
 * work is (points of the curve) × (points of the later curves), whatever the segments'
 * lengths. The page reader (this module) bounds that product and refuses what svg.c could not
 * have written (a page cut inside a figure, a coordinate that is not a finite number).
 */
#ifndef SS_SVGCHECK_H
#define SS_SVGCHECK_H

#include "base/cover.h"
#include "report/svggeom.h"

#include <stddef.h>

/* Limits of the page reader, each checked while reading, the number in the message
 * (docs/robustness.md, "Page checker limits"). */
#define SVC_MAX_COORD 1e6           /* |x|, |y| of a curve's point, pixels */
#define SVC_MAX_SERIES 256          /* curves in one panel (svg.c writes at most 48) */
#define SVC_MAX_PANEL_POINTS 100000 /* points of all curves of one panel */
#define SVC_MAX_PAIRS 10000000LL    /* Σ over a page's curves of points × later points */
#define SVC_MAX_NUMBER_CHARS 64     /* characters of one coordinate */
#define SVC_MAX_LABELS 256          /* labels inside one panel (svg.c writes at most 72) */
#define SVC_MAX_FIGURE_CURVES 1024  /* differently labelled curves of one figure */

/* Two colours closer than this (Euclidean distance in 0..255 RGB) read as the same one. */
#define SVC_NEAR_COLOUR 60.0

struct svc_report {
    int figures, panels, series;
    int latency_panels;
    int sla_missing;  /* latency panels with neither an SLA line nor "no SLA" */
    int hidden;       /* series fully hidden by later ones */
    int empty;        /* panels without a curve */
    int offscale;     /* panels with more than one off-scale label */
    int overlap;      /* pairs of labels of a panel that overlap */
    int palette;      /* pairs of curves of a figure with the same marker, nearly one colour */
    int sla_words;    /* SLA texts naming a JSON key, or in another unit than their axis */
    int llm_request;  /* whole-request latency panels of an LLM service without an SLA */
    int same_panels;  /* figures whose panels all hold only the same merged curve */
    int verdict_late; /* pages whose first figure is not the one the verdict rests on */
    long long points; /* points of every curve read */
    long long pairs;  /* Σ over curves of their points × the later curves' points */
    long long work;   /* distance tests the hidden-curve check made (≤ 2 × pairs) */
    char first[512];  /* what the first broken promise was, or "" */
    char error[768];  /* why the page could not be checked (return -1), or "" */
};

/*
 * Checks every <g class="panel"> of an HTML page or SVG file (text as written by
 * svg_fig_write). Returns the number of broken promises (hidden + sla_missing + the
 * readability counts above; 0: they hold), or -1 when the text
 * cannot be checked — cut inside a figure, a tag or a comment, a malformed or non-finite
 * point, a limit above exceeded — with r->error saying where (line, figure, panel, curve)
 * and what is wrong. svc_check_mem takes the text's length (it may hold NUL bytes).
 */
int svc_check_text(const char *text, struct svc_report *r);
int svc_check_mem(const char *text, size_t len, struct svc_report *r);

#endif
