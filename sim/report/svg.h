/*
 * svg — the figures of the report pages, drawn as SVG text: a figure is a title, one
 * legend and a grid of panels (small multiples); a panel has two axes (linear, log,
 * tail-percentile or categories), series, reference lines (an SLA, a guide) and marks
 * (the point where a curve crosses its SLA).
 *
 * Why drawn here and not by gnuplot (docs/report.md): the pages must be self-contained
 * and the same bytes on every machine; an SLA line, small multiples and a legend shared
 * by the panels are a few lines here and a script per case there; and the check that no
 * curve is hidden must run on exactly what was plotted, which here is the pixel points
 * this module wrote (tools/svgcheck.h reads them back).
 *
 * Styles: style k has a colour from the Okabe–Ito palette without its yellow (readable
 * on white and by the three common colour-vision deficiencies), a dash pattern and one of
 * eight markers. The marker turns with the colour each round of six styles, so the 48
 * styles are 48 different (colour, marker) pairs: two strategies never share a marker in
 * one colour, also where only markers are drawn (svgcheck tests the pairs it reads back).
 *
 * Readability (issue 37; svgcheck tests each on the page): a panel without a curve is not
 * drawn, the figure names it and why (empty_why); points above a capped axis get one label
 * per panel ("↑ 3 points above 6000 ms"); every label inside a panel (a reference line's,
 * the off-scale one, a crossing's) is placed where it overlaps no other, and a crossing
 * label with no free place is left to the table the caller draws; a figure that shows the
 * page's verdict says so (verdict: class "figure verdict").
 *
 * Invariant (checked by svgcheck): no series is drawn fully hidden by the series drawn
 * after it. Before a panel is written, series whose plotted points coincide within
 * SVG_HIDE_PX are merged into one curve, and the panel says so ("same curve: a = b"); a
 * series covered by the others is moved to the end of the drawing order, on top.
 */
#ifndef SS_SVG_H
#define SS_SVG_H

#include <stdio.h>

struct hw;

#define SVG_MAX_SERIES 48
#define SVG_MAX_REFS 6
#define SVG_MAX_MARKS 64
#define SVG_MAX_PANELS 96
#define SVG_MAX_CATS 64
#define SVG_NSTYLES 48  /* 6 colours × 8 markers; the dash cycles through 4 */
#define SVG_HIDE_PX 1.0 /* a curve within this of another, everywhere, is hidden by it */

/* Axes. SVG_TAIL plots a probability p at −log10(1 − p) (p ≤ 0.9999), labelled as a
 * percentile: 0, 50, 90, 99, 99.9, 99.99 %, so the tail that decides a p99 gets half the
 * height. SVG_CAT places category k at k (labels in cats). */
enum svg_axis { SVG_LIN, SVG_LOG, SVG_TAIL, SVG_CAT };

struct svg_series {
    char label[96];
    int style;
    int n;
    double *x, *y;         /* owned; NaN points are dropped when added */
    unsigned char *hollow; /* per point: drawn as an open marker (e.g. "misses its SLA") */
    int points_only;       /* markers, no line */
    int marker_every;      /* a marker every k-th point (dense curves), 1 = each */
    char merged[160];      /* labels of the series merged into this one, " = " separated */
};

enum { SVG_REF_GUIDE = 0, SVG_REF_SLA = 1, SVG_REF_VALUE = 2 };
struct svg_ref {
    int vertical; /* 1: x = v, 0: y = v */
    double v;
    char label[80];
    int sla; /* SVG_REF_SLA (black, class "sla"), SVG_REF_VALUE (a value to compare with,
              * dark grey), SVG_REF_GUIDE (light grey, e.g. the 99 % line) */
};

struct svg_mark {
    double x, y;
    int style;
    char label[32];
};

struct svg_panel {
    char title[160];
    char tenant[64];     /* whose panel (data-tenant), "" for none */
    char metric[32];     /* what it plots (data-metric), e.g. "p99_ms", "ttft_p99_ms", "cdf" */
    int llm;             /* the tenant is an LLM service (data-llm) */
    char empty_why[120]; /* why it may hold no curve, said when it is left out */
    char note[240];      /* a line under the title, e.g. "no SLA in the scenario" */
    char xlabel[200], ylabel[200];
    enum svg_axis xa, ya;
    double xmin, xmax, ymin, ymax; /* NaN: from the data (and references) */
    int n_cats;
    char cats[SVG_MAX_CATS][48];
    int latency; /* a latency plot: it must show an SLA line, or say there is none */
    int n_series;
    struct svg_series s[SVG_MAX_SERIES];
    int n_refs;
    struct svg_ref ref[SVG_MAX_REFS];
    int n_marks;
    struct svg_mark mark[SVG_MAX_MARKS];
};

struct svg_figure {
    char id[64];
    char title[240];
    int verdict; /* the figure the page's verdict rests on: drawn first, class "verdict" */
    int cols, panel_w, panel_h;
    int n_panels;
    struct svg_panel *p[SVG_MAX_PANELS];
    int n_legend;
    struct {
        char label[96];
        int style;
        int points_only;
    } legend[SVG_MAX_SERIES];
};

/* An empty figure: `cols` panels per row of panel_w × panel_h pixels. */
void svg_fig_init(struct svg_figure *f, const char *id, const char *title, int cols, int panel_w,
                  int panel_h);
/* Appends an empty panel (axes linear, ranges from the data); NULL when the figure is full. */
struct svg_panel *svg_fig_panel(struct svg_figure *f);
/* Adds a legend entry (once per label). */
void svg_fig_legend(struct svg_figure *f, const char *label, int style, int points_only);
void svg_fig_free(struct svg_figure *f);

/* Adds a series (the points are copied; NaN and, on a log axis, non-positive ones are
 * dropped). Returns it, or NULL when the panel is full or nothing is left to draw. */
struct svg_series *svg_add(struct svg_panel *p, const char *label, int style, int n,
                           const double *x, const double *y, const unsigned char *hollow);
void svg_ref(struct svg_panel *p, int vertical, double v, int sla, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void svg_mark(struct svg_panel *p, double x, double y, int style, const char *label);
void svg_cat(struct svg_panel *p, const char *label);

/* SVG_LOG when every value is positive and they span at least a factor of 30, else SVG_LIN. */
enum svg_axis svg_auto_axis(const double *v, int n);

/*
 * Writes the figure. standalone: a whole SVG document (XML declaration, namespace), for a
 * file of its own; else an <svg> element to put inline in HTML. Merges and reorders
 * series as the invariant says (so the figure is changed).
 */
void svg_fig_write(struct hw *wr, struct svg_figure *f, int standalone);
/* Cuts a panel's note to one line of a panel panel_w pixels wide (about 5.8 px a character
 * at the note's size), ending in "…" where it was cut; gnuplot's scripts cut it the same. */
void svg_fit_note(char *note, size_t cap, double panel_w);

/* The colour and dash pattern of a style (for HTML legends and tables). */
const char *svg_colour(int style);
const char *svg_dash(int style);
/* A small inline SVG swatch of a style's line and marker, for tables and legends. */
void svg_swatch(struct hw *wr, int style);

/* Whether v can be drawn on an axis of kind a (finite; positive on a log axis). */
int svg_plottable(enum svg_axis a, double v);
/* The extent of one direction of a panel's data: its series and its lines of that direction
 * (SLA, references), with the panel's fixed bounds where set; +inf, -inf when empty. The SVG
 * axes and the gnuplot scripts (gnuplot.c) both start from it, so they show one range. */
void svg_data_extent(const struct svg_panel *p, int is_x, double *lo, double *hi);

#endif
