/*
 * svg — see svg.h. Coordinates are printed with one decimal, so the same figure is the
 * same bytes everywhere; the check of hidden curves (tools/svgcheck.c) reads those rounded
 * points back, and the merge below works on the same rounded points.
 */
#include "report/svg.h"
#include "report/svggeom.h"
#include "base/cover.h"
#include "report/hw.h"
#include "base/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define FONT "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
#define ML 60 /* panel margins: left (tick labels, y label), right, top (title, note), bottom */
#define MR 16
#define MT 44
#define MB 42
#define TAIL_MAX 4.0 /* −log10(1 − 0.9999) */

/* Okabe & Ito, "Color universal design" (2008), without yellow (#F0E442 is invisible on
 * white) and without black (kept for SLA lines). */
static const char *const colours[6] = {"#0072B2", "#D55E00", "#009E73",
                                       "#CC79A7", "#E69F00", "#56B4E9"};
static const char *const dashes[4] = {"", "8 4", "2 3", "10 3 2 3"};

const char *svg_colour(int style)
{
    return colours[(style < 0 ? 0 : style) % 6];
}

const char *svg_dash(int style)
{
    style = style < 0 ? 0 : style % SVG_NSTYLES;
    return dashes[(style + style / 12) % 4];
}

/* Round r of six styles shifts the marker by r: style k is (colour k mod 6, marker
 * (k mod 6 + k div 6) mod 8), a different pair for each of the 48 styles. */
static int marker_of(int style)
{
    style = style < 0 ? 0 : style % SVG_NSTYLES;
    return (style % 6 + style / 6) % 8;
}

static const char *const shape_names[8] = {"circle",        "square", "triangle", "diamond",
                                           "triangle-down", "cross",  "plus",     "bowtie"};

/* Markers drawn by their stroke only. */
static int stroked(int shape)
{
    return shape == 5 || shape == 6;
}

/* ---- building ------------------------------------------------------------------------- */

void svg_fig_init(struct svg_figure *f, const char *id, const char *title, int cols, int panel_w,
                  int panel_h)
{
    memset(f, 0, sizeof *f);
    snprintf(f->id, sizeof f->id, "%s", id);
    snprintf(f->title, sizeof f->title, "%s", title ? title : "");
    f->cols = cols < 1 ? 1 : cols;
    f->panel_w = panel_w;
    f->panel_h = panel_h;
}

struct svg_panel *svg_fig_panel(struct svg_figure *f)
{
    if (f->n_panels == SVG_MAX_PANELS)
        return NULL;
    struct svg_panel *p = ss_xcalloc(1, sizeof *p);
    p->xmin = p->xmax = p->ymin = p->ymax = NAN;
    f->p[f->n_panels++] = p;
    return p;
}

void svg_fig_legend(struct svg_figure *f, const char *label, int style, int points_only)
{
    for (int k = 0; k < f->n_legend; k++)
        if (strcmp(f->legend[k].label, label) == 0)
            return;
    if (f->n_legend == SVG_MAX_SERIES)
        return;
    snprintf(f->legend[f->n_legend].label, sizeof f->legend[0].label, "%s", label);
    f->legend[f->n_legend].style = style;
    f->legend[f->n_legend].points_only = points_only;
    f->n_legend++;
}

static void series_free(struct svg_series *s)
{
    free(s->x);
    free(s->y);
    free(s->hollow);
    s->x = s->y = NULL;
    s->hollow = NULL;
}

void svg_fig_free(struct svg_figure *f)
{
    for (int k = 0; k < f->n_panels; k++) {
        for (int i = 0; i < f->p[k]->n_series; i++)
            series_free(&f->p[k]->s[i]);
        free(f->p[k]);
    }
    f->n_panels = 0;
}

int svg_plottable(enum svg_axis a, double v)
{
    return isfinite(v) && (a != SVG_LOG || v > 0);
}

void svg_data_extent(const struct svg_panel *p, int is_x, double *lo_out, double *hi_out)
{
    enum svg_axis kind = is_x ? p->xa : p->ya;
    double fix_lo = is_x ? p->xmin : p->ymin, fix_hi = is_x ? p->xmax : p->ymax;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < p->n_series; i++)
        for (int k = 0; k < p->s[i].n; k++) {
            double v = is_x ? p->s[i].x[k] : p->s[i].y[k];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    for (int r = 0; r < p->n_refs; r++)
        if (p->ref[r].vertical == is_x && svg_plottable(kind, p->ref[r].v)) {
            lo = p->ref[r].v < lo ? p->ref[r].v : lo;
            hi = p->ref[r].v > hi ? p->ref[r].v : hi;
        }
    if (isfinite(fix_lo))
        lo = fix_lo;
    if (isfinite(fix_hi))
        hi = fix_hi;
    *lo_out = lo;
    *hi_out = hi;
}

struct svg_series *svg_add(struct svg_panel *p, const char *label, int style, int n,
                           const double *x, const double *y, const unsigned char *hollow)
{
    if (p->n_series == SVG_MAX_SERIES)
        return NULL;
    struct svg_series *s = &p->s[p->n_series];
    memset(s, 0, sizeof *s);
    s->x = ss_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *s->x);
    s->y = ss_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *s->y);
    s->hollow = ss_xcalloc((size_t)(n > 0 ? n : 1), 1);
    for (int k = 0; k < n; k++) {
        if (!svg_plottable(p->xa, x[k]) || !svg_plottable(p->ya, y[k]))
            continue;
        s->x[s->n] = x[k];
        s->y[s->n] = p->ya == SVG_TAIL && y[k] > 0.9999 ? 0.9999 : y[k];
        s->hollow[s->n] = hollow ? hollow[k] : 0;
        s->n++;
    }
    if (s->n == 0) {
        series_free(s);
        return NULL;
    }
    snprintf(s->label, sizeof s->label, "%s", label);
    s->style = style;
    s->marker_every = 1;
    p->n_series++;
    return s;
}

void svg_ref(struct svg_panel *p, int vertical, double v, int sla, const char *fmt, ...)
{
    if (p->n_refs == SVG_MAX_REFS || !isfinite(v))
        return;
    struct svg_ref *r = &p->ref[p->n_refs++];
    r->vertical = vertical;
    r->v = v;
    r->sla = sla;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->label, sizeof r->label, fmt, ap);
    va_end(ap);
}

void svg_mark(struct svg_panel *p, double x, double y, int style, const char *label)
{
    if (p->n_marks == SVG_MAX_MARKS || !isfinite(x) || !isfinite(y))
        return;
    struct svg_mark *m = &p->mark[p->n_marks++];
    m->x = x;
    m->y = y;
    m->style = style;
    snprintf(m->label, sizeof m->label, "%s", label ? label : "");
}

void svg_cat(struct svg_panel *p, const char *label)
{
    if (p->n_cats < SVG_MAX_CATS)
        snprintf(p->cats[p->n_cats++], sizeof p->cats[0], "%s", label);
}

enum svg_axis svg_auto_axis(const double *v, int n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < n; k++) {
        if (!isfinite(v[k]))
            continue;
        if (v[k] <= 0)
            return SVG_LIN;
        lo = v[k] < lo ? v[k] : lo;
        hi = v[k] > hi ? v[k] : hi;
    }
    return lo < INFINITY && hi / lo >= 30 ? SVG_LOG : SVG_LIN;
}

/* ---- axes ----------------------------------------------------------------------------- */

struct axis {
    enum svg_axis kind;
    double lo, hi; /* in data units */
    int n_ticks;
    double tick[24];
};

static double tf(enum svg_axis a, double v)
{
    switch (a) {
    case SVG_LOG:
        return log10(v);
    case SVG_TAIL:
        return v >= 1 ? TAIL_MAX : -log10(1 - v);
    default:
        return v;
    }
}

static void lin_axis(struct axis *ax, double lo, double hi, int zero)
{
    if (zero && lo >= 0 && lo < 0.4 * hi)
        lo = 0;
    if (!(hi > lo)) {
        double d = lo != 0 ? fabs(lo) * 0.1 : 1;
        lo -= d;
        hi += d;
    }
    hi += (hi - lo) * 0.04; /* a line at the top value (an SLA) stays inside, its label too */
    double span = (hi - lo) / 5, e = pow(10, floor(log10(span))), f = span / e;
    double step = (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * e; /* 1, 2 or 5 × 10^k */
    ax->lo = floor(lo / step + 1e-9) * step;
    ax->hi = ceil(hi / step - 1e-9) * step;
    for (double t = ax->lo; t <= ax->hi + step * 1e-6 && ax->n_ticks < 24; t += step)
        ax->tick[ax->n_ticks++] = fabs(t) < step * 1e-9 ? 0 : t;
}

/* The largest 1, 2 or 5 × 10^k at or below v (up: the smallest at or above). */
static double nice125(double v, int up)
{
    double e = pow(10, floor(log10(v))), m[4] = {1, 2, 5, 10};
    if (up) {
        for (int k = 0; k < 4; k++)
            if (m[k] * e >= v * (1 - 1e-9))
                return m[k] * e;
        return 10 * e;
    }
    for (int k = 3; k >= 0; k--)
        if (m[k] * e <= v * (1 + 1e-9))
            return m[k] * e;
    return e;
}

static void log_axis(struct axis *ax, double lo, double hi)
{
    if (!(hi > lo)) {
        lo /= 2;
        hi *= 2;
    }
    ax->lo = nice125(lo, 0);
    ax->hi = nice125(hi, 1);
    int decades_only = log10(ax->hi / ax->lo) > 2.5;
    for (double e = pow(10, floor(log10(ax->lo))); e <= ax->hi * 1.0001 && ax->n_ticks < 24;
         e *= 10) {
        static const double m[3] = {1, 2, 5};
        for (int k = 0; k < (decades_only ? 1 : 3); k++) {
            double t = m[k] * e;
            if (t >= ax->lo * 0.9999 && t <= ax->hi * 1.0001 && ax->n_ticks < 24)
                ax->tick[ax->n_ticks++] = t;
        }
    }
}

static void tail_axis(struct axis *ax, double hi_p)
{
    double top = ceil(tf(SVG_TAIL, hi_p) - 1e-6);
    top = top < 2 ? 2 : top > TAIL_MAX ? TAIL_MAX : top;
    ax->lo = 0;
    ax->hi = 1 - pow(10, -top);
    /* No tick at 0: it would sit on top of 50 %, and the body of the distribution is not
     * what these plots are read for. */
    static const double p[5] = {0.5, 0.9, 0.99, 0.999, 0.9999};
    for (int k = 0; k < 5; k++)
        if (tf(SVG_TAIL, p[k]) <= top + 1e-9)
            ax->tick[ax->n_ticks++] = p[k];
}

/* The axis of one direction of a panel: its data (series, refs, marks) and its kind. */
static void make_axis(const struct svg_panel *p, int is_x, struct axis *ax)
{
    enum svg_axis kind = is_x ? p->xa : p->ya;
    double lo, hi;
    memset(ax, 0, sizeof *ax);
    ax->kind = kind;
    svg_data_extent(p, is_x, &lo, &hi);
    if (!(lo <= hi)) /* nothing to show */
        lo = hi = kind == SVG_LOG ? 1 : 0;
    switch (kind) {
    case SVG_CAT:
        ax->lo = -0.5;
        ax->hi = (p->n_cats > 0 ? p->n_cats : 1) - 0.5;
        for (int k = 0; k < p->n_cats && k < 24; k++)
            ax->tick[ax->n_ticks++] = k;
        break;
    case SVG_LOG:
        log_axis(ax, lo, hi);
        break;
    case SVG_TAIL:
        tail_axis(ax, hi);
        break;
    default:
        lin_axis(ax, lo, hi, 1);
    }
}

/* Where v is along the axis, 0 to 1 (a little beyond for marks on the border; more than 1
 * for a value above a fixed top, which the caller draws on the top edge). */
static double frac(const struct axis *ax, double v)
{
    double a = tf(ax->kind, ax->lo), b = tf(ax->kind, ax->hi);
    double t = b > a ? (tf(ax->kind, v) - a) / (b - a) : 0.5;
    return t < -0.02 ? -0.02 : t > 1.02 ? 1.5 : t;
}

/* A tick label: percentiles for the tail axis, else a short number. */
static void tick_label(char *buf, size_t n, const struct axis *ax, double v)
{
    if (ax->kind == SVG_TAIL) {
        snprintf(buf, n, "%g", v * 100);
        return;
    }
    double a = fabs(v);
    if (a == 0)
        snprintf(buf, n, "0");
    else if (a >= 1e5 || a < 1e-3)
        snprintf(buf, n, "%.0e", v);
    else if (a >= 1000 && fmod(a, 1000) == 0)
        snprintf(buf, n, "%gk", v / 1000);
    else
        snprintf(buf, n, "%g", v);
}

/* ---- hidden curves ---------------------------------------------------------------------- */

/* Pixel points of every series of a panel, rounded as they will be printed. */
struct proj {
    int n;
    double *x, *y;
};

static double r1(double v)
{
    return round(v * 10) / 10;
}

static struct cov_line line_of(const struct proj *pj, const struct svg_series *s)
{
    return (struct cov_line){pj->n, pj->x, pj->y, s->points_only};
}

/*
 * Merges series that cover each other (the same curve), then moves a series covered by
 * the union of those after it to the end, until none is (or every order was tried). order
 * receives the drawing order of the surviving series; returns their number.
 */
static int arrange(struct svg_panel *p, struct proj *pj, int *order)
{
    int alive[SVG_MAX_SERIES], m = 0;
    for (int i = 0; i < p->n_series; i++)
        alive[i] = 1;
    for (int i = 0; i < p->n_series; i++) {
        for (int j = i + 1; j < p->n_series && alive[i]; j++) {
            if (!alive[j] || p->s[i].points_only != p->s[j].points_only)
                continue;
            struct cov_line a = line_of(&pj[i], &p->s[i]), b = line_of(&pj[j], &p->s[j]);
            if (!cov_covered(&a, &b, 1, SVG_HIDE_PX) || !cov_covered(&b, &a, 1, SVG_HIDE_PX))
                continue;
            alive[j] = 0;
            struct svg_series *s = &p->s[i];
            char m[sizeof s->merged];
            snprintf(m, sizeof m, "%s = %s", s->merged[0] ? s->merged : s->label, p->s[j].label);
            memcpy(s->merged, m, sizeof m);
        }
    }
    for (int i = 0; i < p->n_series; i++)
        if (alive[i])
            order[m++] = i;
    for (int pass = 0; pass < m; pass++) {
        int moved = 0;
        for (int pos = 0; pos + 1 < m; pos++) {
            struct cov_line a = line_of(&pj[order[pos]], &p->s[order[pos]]), by[SVG_MAX_SERIES];
            int nb = 0;
            for (int q = pos + 1; q < m; q++)
                by[nb++] = line_of(&pj[order[q]], &p->s[order[q]]);
            if (cov_covered(&a, by, nb, SVG_HIDE_PX)) {
                int keep = order[pos];
                memmove(&order[pos], &order[pos + 1], (size_t)(m - pos - 1) * sizeof *order);
                order[m - 1] = keep;
                moved = 1;
                break;
            }
        }
        if (!moved)
            break;
    }
    return m;
}

/* ---- drawing ---------------------------------------------------------------------------- */

static void marker(struct hw *wr, int shape, double x, double y)
{
    double r = 3.6;
    switch (shape) {
    case 0:
        HW_MARKF(wr, "M%.1f,%.1fa%.1f,%.1f 0 1,0 %.1f,0a%.1f,%.1f 0 1,0 %.1f,0", x - r, y, r, r,
                 2 * r, r, r, -2 * r);
        break;
    case 1:
        r *= 0.9;
        HW_MARKF(wr, "M%.1f,%.1fh%.1fv%.1fh%.1fz", x - r, y - r, 2 * r, 2 * r, -2 * r);
        break;
    case 2:
        HW_MARKF(wr, "M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fz", x, y - 1.2 * r, x + 1.1 * r, y + 0.8 * r,
                 x - 1.1 * r, y + 0.8 * r);
        break;
    case 3:
        HW_MARKF(wr, "M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fL%.1f,%.1fz", x, y - 1.3 * r, x + r, y, x,
                 y + 1.3 * r, x - r, y);
        break;
    case 4:
        HW_MARKF(wr, "M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fz", x, y + 1.2 * r, x + 1.1 * r, y - 0.8 * r,
                 x - 1.1 * r, y - 0.8 * r);
        break;
    case 5: /* a cross, drawn by its stroke */
        HW_MARKF(wr, "M%.1f,%.1fL%.1f,%.1fM%.1f,%.1fL%.1f,%.1f", x - r, y - r, x + r, y + r, x - r,
                 y + r, x + r, y - r);
        break;
    case 6: /* a plus, drawn by its stroke */
        r *= 1.2;
        HW_MARKF(wr, "M%.1f,%.1fL%.1f,%.1fM%.1f,%.1fL%.1f,%.1f", x - r, y, x + r, y, x, y - r, x,
                 y + r);
        break;
    default: /* a bow tie */
        HW_MARKF(wr, "M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fL%.1f,%.1fz", x - r, y - r, x + r, y + r, x + r,
                 y - r, x - r, y + r);
    }
}

/* The markers of one series: the filled ones, then the open ones. */
static void series_markers(struct hw *wr, const struct svg_series *s, const struct proj *pj)
{
    int shape = marker_of(s->style), every = s->marker_every > 0 ? s->marker_every : 1;
    int phase = every > 1 ? (s->style * 3) % every : 0;
    for (int open = 0; open < 2; open++) {
        int any = 0;
        for (int k = 0; k < pj->n; k++) {
            if ((k % every != phase && k != pj->n - 1) || s->hollow[k] != open)
                continue;
            if (!any)
                HW_MARKF(wr,
                         "<path class=\"marker\" data-shape=\"%s\" fill=\"%s\" stroke=\"%s\" "
                         "stroke-width=\"%s\" d=\"",
                         shape_names[shape],
                         stroked(shape) ? "none"
                         : open         ? "#ffffff"
                                        : svg_colour(s->style),
                         svg_colour(s->style), stroked(shape) || open ? "1.8" : "1");
            any = 1;
            marker(wr, shape, pj->x[k], pj->y[k]);
        }
        if (any)
            HW_MARK(wr, "\"/>\n");
    }
}

/* A line of text at (x, y); style is a literal of attributes. */
#define TEXT(wr, x, y, anchor, style, s)                                                           \
    HW_WRAPF((wr), (s), "</text>\n", "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" " style ">",  \
             (double)(x), (double)(y), (anchor))

static void draw_axes(struct hw *wr, const struct svg_panel *p, const struct axis *ax,
                      const struct axis *ay, double x0, double y0, double pw, double ph)
{
    char lab[64];
    HW_MARKF(wr,
             "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ffffff\" "
             "stroke=\"#888888\"/>\n",
             x0, y0, pw, ph);
    int rotate = 0;
    if (ax->kind == SVG_CAT && ax->n_ticks > 0) {
        size_t longest = 0;
        for (int k = 0; k < p->n_cats; k++)
            longest = strlen(p->cats[k]) > longest ? strlen(p->cats[k]) : longest;
        rotate = (double)longest * 6.0 > pw / ax->n_ticks;
    }
    for (int k = 0; k < ax->n_ticks; k++) {
        double x = x0 + frac(ax, ax->tick[k]) * pw;
        HW_MARKF(wr, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
                 x, y0, x, y0 + ph);
        if (ax->kind == SVG_CAT)
            snprintf(lab, sizeof lab, "%s", p->cats[(int)ax->tick[k]]);
        else
            tick_label(lab, sizeof lab, ax, ax->tick[k]);
        if (rotate) {
            HW_WRAPF(wr, lab, "</text>\n",
                     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"9\" "
                     "transform=\"rotate(-35 %.1f %.1f)\">",
                     x, y0 + ph + 12, x, y0 + ph + 12);
        } else {
            TEXT(wr, x, y0 + ph + 13, "middle", "font-size=\"10\" fill=\"#333333\"", lab);
        }
    }
    for (int k = 0; k < ay->n_ticks; k++) {
        double y = y0 + ph - frac(ay, ay->tick[k]) * ph;
        HW_MARKF(wr, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
                 x0, y, x0 + pw, y);
        tick_label(lab, sizeof lab, ay, ay->tick[k]);
        TEXT(wr, x0 - 4, y + 3.5, "end", "font-size=\"10\" fill=\"#333333\"", lab);
    }
    if (!rotate)
        TEXT(wr, x0 + pw / 2, y0 + ph + 29, "middle", "font-size=\"11\"", p->xlabel);
    HW_WRAPF(wr, p->ylabel, "</text>\n",
             "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\" "
             "transform=\"rotate(-90 %.1f %.1f)\">",
             x0 - 44, y0 + ph / 2, x0 - 44, y0 + ph / 2);
}

/* ---- labels inside a panel ---------------------------------------------------------------- */

/* The labels placed so far in a panel, and where they may go (the panel, less its title). */
struct placer {
    struct svc_box b[SVG_MAX_REFS + 1 + SVG_MAX_MARKS];
    int n;
    double x0, y0, x1, y1;
};

struct spot {
    double x, y;
    enum svc_anchor an;
};

static const char *const anchor_names[3] = {"start", "middle", "end"};

/* The first candidate where the text overlaps no placed label and stays in bounds; -1: none. */
static int place(struct placer *pl, const struct spot *c, int nc, double size, int bold,
                 const char *text)
{
    int chars = svc_text_chars(text, strlen(text));
    for (int k = 0; k < nc; k++) {
        struct svc_box b = svc_label_box(c[k].x, c[k].y, c[k].an, size, chars, bold);
        int ok = b.x0 >= pl->x0 && b.x1 <= pl->x1 && b.y0 >= pl->y0 && b.y1 <= pl->y1;
        for (int q = 0; q < pl->n && ok; q++)
            ok = !svc_boxes_overlap(&pl->b[q], &b);
        if (ok) {
            pl->b[pl->n++] = b;
            return k;
        }
    }
    return -1;
}

/* A panel's unit from an axis label's closing parentheses ("p99 latency (ms)" → "ms"). */
static void unit_of(const char *label, char *buf, size_t n)
{
    size_t len = strlen(label);
    const char *open = strrchr(label, '(');
    buf[0] = '\0';
    if (open && len > 0 && label[len - 1] == ')')
        snprintf(buf, n, "%.*s", (int)(label + len - 1 - open - 1), open + 1);
}

/* Where each reference line's label goes (spot[r].an < 0: not drawn). */
struct ref_spot {
    int drawn;
    struct spot at;
};

static void place_refs(struct placer *pl, const struct svg_panel *p, const struct axis *ax,
                       const struct axis *ay, double x0, double y0, double pw, double ph,
                       struct ref_spot *rs)
{
    for (int r = 0; r < p->n_refs; r++) {
        const struct svg_ref *rf = &p->ref[r];
        const struct axis *a = rf->vertical ? ax : ay;
        rs[r].drawn = 0;
        if (!rf->label[0] || !svg_plottable(a->kind, rf->v))
            continue;
        double t = frac(a, rf->v);
        struct spot c[12];
        int nc = 0;
        if (rf->vertical) {
            double xa = x0 + t * pw;
            for (int row = 0; row < 6; row++) {
                struct spot right = {xa + 3, y0 + 11 + 12 * row, SVC_START},
                            left = {xa - 3, y0 + 11 + 12 * row, SVC_END};
                c[nc++] = t > 0.6 ? left : right;
                c[nc++] = t > 0.6 ? right : left;
            }
        } else {
            double ya = y0 + ph - t * ph;
            c[nc++] = (struct spot){x0 + 4, ya - 4, SVC_START};
            c[nc++] = (struct spot){x0 + pw - 4, ya - 4, SVC_END};
            c[nc++] = (struct spot){x0 + 4, ya + 11, SVC_START};
            c[nc++] = (struct spot){x0 + pw - 4, ya + 11, SVC_END};
            c[nc++] = (struct spot){x0 + pw / 2, ya - 4, SVC_MIDDLE};
            c[nc++] = (struct spot){x0 + pw / 2, ya + 11, SVC_MIDDLE};
        }
        int k = place(pl, c, nc, 10, 0, rf->label);
        if (k >= 0) {
            rs[r].drawn = 1;
            rs[r].at = c[k];
        }
    }
}

/* Reference lines: the SLA black and dashed, a reference value dark grey and long-dashed, a
 * guide (the 99 % line) light grey and dotted. Lines go under the curves, labels (pass 1)
 * over them, on a white backing, where place_refs put them. */
static void draw_refs(struct hw *wr, const struct svg_panel *p, const struct axis *ax,
                      const struct axis *ay, double x0, double y0, double pw, double ph,
                      const struct ref_spot *rs)
{
    static const char *const cls[3] = {"guide", "sla", "ref"};
    static const char *const col[3] = {"#8a8a8a", "#000000", "#444444"};
    static const char *const wid[3] = {"1", "1.4", "1.4"};
    static const char *const dash[3] = {"1 3", "5 3", "9 3"};
    for (int r = 0; r < p->n_refs; r++) {
        const struct svg_ref *rf = &p->ref[r];
        const struct axis *a = rf->vertical ? ax : ay;
        int k = rf->sla >= 0 && rf->sla <= 2 ? rf->sla : 0;
        if (!svg_plottable(a->kind, rf->v))
            continue;
        if (rs) {
            if (!rs[r].drawn)
                continue;
            HW_WRAPF(wr, rf->label, "</text>\n",
                     "<text class=\"label%s\" data-axis=\"%s\" x=\"%.1f\" y=\"%.1f\" "
                     "text-anchor=\"%s\" font-size=\"10\" fill=\"%s\" stroke=\"#ffffff\" "
                     "stroke-width=\"3\" paint-order=\"stroke\">",
                     k == SVG_REF_SLA ? " sla-label" : "", rf->vertical ? "x" : "y", rs[r].at.x,
                     rs[r].at.y, anchor_names[rs[r].at.an], k ? "#000000" : "#555555");
            continue;
        }
        double t = frac(a, rf->v);
        double xa = rf->vertical ? x0 + t * pw : x0, xb = rf->vertical ? xa : x0 + pw;
        double ya = rf->vertical ? y0 : y0 + ph - t * ph, yb = rf->vertical ? y0 + ph : ya;
        HW_MARKF(wr,
                 "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                 "stroke=\"%s\" stroke-width=\"%s\" stroke-dasharray=\"%s\"/>\n",
                 cls[k], xa, ya, xb, yb, col[k], wid[k], dash[k]);
    }
}

/* A value for a label: plain digits up to a million, then an exponent. */
static void fmt_value(char *buf, size_t n, double v)
{
    snprintf(buf, n, fabs(v) < 1e6 ? "%.6g" : "%.3g", v);
}

static void draw_panel(struct hw *wr, struct svg_panel *p, double ox, double oy, double w, double h)
{
    struct axis ax, ay;
    make_axis(p, 1, &ax);
    make_axis(p, 0, &ay);
    double x0 = ox + ML, y0 = oy + MT, pw = w - ML - MR, ph = h - MT - MB;
    struct proj pj[SVG_MAX_SERIES];
    int n_off = 0;
    double off_max = -INFINITY;
    for (int i = 0; i < p->n_series; i++) {
        const struct svg_series *s = &p->s[i];
        pj[i].n = s->n;
        pj[i].x = ss_xmalloc((size_t)s->n * sizeof(double));
        pj[i].y = ss_xmalloc((size_t)s->n * sizeof(double));
        for (int k = 0; k < s->n; k++) {
            double fy = frac(&ay, s->y[k]);
            pj[i].x[k] = r1(x0 + frac(&ax, s->x[k]) * pw);
            pj[i].y[k] = r1(y0 + ph - (fy > 1 ? 1 : fy) * ph);
        }
    }
    int order[SVG_MAX_SERIES], m = arrange(p, pj, order);
    for (int q = 0; q < m; q++) /* off the top of a capped axis (merged series: once) */
        for (int k = 0; k < p->s[order[q]].n; k++)
            if (frac(&ay, p->s[order[q]].y[k]) > 1) {
                n_off++;
                off_max = p->s[order[q]].y[k] > off_max ? p->s[order[q]].y[k] : off_max;
            }
    char merged[480] = "";
    for (int q = 0; q < m; q++) {
        const char *mg = p->s[order[q]].merged;
        if (!mg[0])
            continue;
        ss_catf(merged, sizeof merged, "%s%s", merged[0] ? "; " : "same curve: ", mg);
    }
    char xunit[64], yunit[64];
    unit_of(p->xlabel, xunit, sizeof xunit);
    unit_of(p->ylabel, yunit, sizeof yunit);
    /* Labels: the reference lines' first, then the off-scale one, then the crossings. */
    struct placer pl = {.n = 0, .x0 = ox + 2, .y0 = y0 - 12, .x1 = ox + w - 2, .y1 = y0 + ph};
    struct ref_spot rs[SVG_MAX_REFS];
    place_refs(&pl, p, &ax, &ay, x0, y0, pw, ph, rs);
    char off[256] = "";
    struct spot off_at = {0, 0, SVC_END};
    if (n_off > 0) {
        char top[32], hi[32];
        fmt_value(top, sizeof top, ay.hi);
        fmt_value(hi, sizeof hi, off_max);
        snprintf(off, sizeof off, "↑ %d point%s above %s%s%s (up to %s%s%s)", n_off,
                 n_off == 1 ? "" : "s", top, yunit[0] ? " " : "", yunit, hi, yunit[0] ? " " : "",
                 yunit);
        const struct spot c[6] = {
            {x0 + pw - 4, y0 + 11, SVC_END},    {x0 + 4, y0 + 11, SVC_START},
            {x0 + pw / 2, y0 + 11, SVC_MIDDLE}, {x0 + pw - 4, y0 + 22, SVC_END},
            {x0 + 4, y0 + 22, SVC_START},       {x0 + pw / 2, y0 + 22, SVC_MIDDLE}};
        int k = place(&pl, c, 6, 10, 0, off);
        if (k >= 0)
            off_at = c[k];
        else
            off[0] = '\0'; /* no room: the note says it */
    }
    struct spot mark_at[SVG_MAX_MARKS];
    int mark_ok[SVG_MAX_MARKS], unlabelled = 0;
    for (int k = 0; k < p->n_marks; k++) {
        const struct svg_mark *mk = &p->mark[k];
        mark_ok[k] = 0;
        if (!mk->label[0] || !svg_plottable(ax.kind, mk->x) || !svg_plottable(ay.kind, mk->y))
            continue;
        double x = x0 + frac(&ax, mk->x) * pw, y = y0 + ph - frac(&ay, mk->y) * ph;
        int twin = 0; /* the same crossing of a merged curve: labelled once */
        for (int q = 0; q < k && !twin; q++)
            twin = strcmp(p->mark[q].label, mk->label) == 0 &&
                   fabs(x0 + frac(&ax, p->mark[q].x) * pw - x) < SVG_HIDE_PX &&
                   fabs(y0 + ph - frac(&ay, p->mark[q].y) * ph - y) < SVG_HIDE_PX;
        if (twin)
            continue;
        struct spot c[14];
        int nc = 0;
        for (int row = 0; row < 5; row++)
            c[nc++] = (struct spot){x, y + 17 + 11 * row, SVC_MIDDLE};
        for (int row = 0; row < 4; row++)
            c[nc++] = (struct spot){x, y - 10 - 11 * row, SVC_MIDDLE};
        c[nc++] = (struct spot){x + 9, y + 4, SVC_START};
        c[nc++] = (struct spot){x - 9, y + 4, SVC_END};
        int at = place(&pl, c, nc, 10, 1, mk->label);
        if (at >= 0) {
            mark_ok[k] = 1;
            mark_at[k] = c[at];
        } else {
            unlabelled++;
        }
    }
    HW_WRAPF(wr, p->title, "\"", "<g class=\"panel\" data-latency=\"%d\" data-title=\"",
             p->latency);
    if (p->tenant[0]) {
        HW_WRAP(wr, " data-tenant=\"", p->tenant, "");
        HW_MARK2(wr, p->llm, "\" data-llm=\"1\"", "\"");
    }
    if (p->metric[0])
        HW_WRAP(wr, " data-metric=\"", p->metric, "\"");
    if (xunit[0])
        HW_WRAP(wr, " data-xunit=\"", xunit, "\"");
    if (yunit[0])
        HW_WRAP(wr, " data-yunit=\"", yunit, "\"");
    HW_MARK(wr, ">\n");
    draw_axes(wr, p, &ax, &ay, x0, y0, pw, ph);
    draw_refs(wr, p, &ax, &ay, x0, y0, pw, ph, NULL);
    for (int q = 0; q < m; q++) {
        const struct svg_series *s = &p->s[order[q]];
        const struct proj *pr = &pj[order[q]];
        HW_WRAP(wr, "<polyline class=\"series\" data-label=\"", s->merged[0] ? s->merged : s->label,
                "");
        HW_MARK2(wr, s->points_only, "\" data-points-only=\"1\"", "\"");
        HW_MARKF(wr,
                 " fill=\"none\" stroke=\"%s\" stroke-width=\"2\" stroke-linejoin=\"round\" "
                 "stroke-linecap=\"round\"",
                 s->points_only ? "none" : svg_colour(s->style));
        if (svg_dash(s->style)[0])
            HW_MARKF(wr, " stroke-dasharray=\"%s\"", svg_dash(s->style));
        HW_MARK(wr, " points=\"");
        for (int k = 0; k < pr->n; k++)
            HW_MARKF(wr, "%s%.1f,%.1f", k ? " " : "", pr->x[k], pr->y[k]);
        HW_MARK(wr, "\"/>\n");
        series_markers(wr, s, pr);
    }
    if (off[0])
        HW_WRAPF(wr, off, "</text>\n",
                 "<text class=\"label offscale\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
                 "font-size=\"10\" fill=\"#333333\" stroke=\"#ffffff\" stroke-width=\"3\" "
                 "paint-order=\"stroke\">",
                 off_at.x, off_at.y, anchor_names[off_at.an]);
    /* A ring where a curve crosses its SLA; its label where place() found room. */
    for (int k = 0; k < p->n_marks; k++) {
        const struct svg_mark *mk = &p->mark[k];
        if (!svg_plottable(ax.kind, mk->x) || !svg_plottable(ay.kind, mk->y))
            continue;
        double x = x0 + frac(&ax, mk->x) * pw, y = y0 + ph - frac(&ay, mk->y) * ph;
        HW_MARKF(wr,
                 "<circle class=\"cross\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"none\" "
                 "stroke=\"%s\" stroke-width=\"2.2\"/>\n",
                 x, y, svg_colour(mk->style));
        if (!mark_ok[k])
            continue;
        HW_WRAPF(wr, mk->label, "</text>\n",
                 "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"10\" "
                 "font-weight=\"bold\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"3\" "
                 "paint-order=\"stroke\">",
                 mark_at[k].x, mark_at[k].y, anchor_names[mark_at[k].an], svg_colour(mk->style));
    }
    draw_refs(wr, p, &ax, &ay, x0, y0, pw, ph, rs);
    TEXT(wr, ox + 8, oy + 15, "start", "font-size=\"12\" font-weight=\"bold\"", p->title);
    char extra[200] = "";
    if (n_off > 0 && !off[0])
        snprintf(extra, sizeof extra, "%d points above the axis", n_off);
    if (unlabelled > 0)
        ss_catf(extra, sizeof extra, "%s%d crossing%s unlabelled (the table has %s)",
                extra[0] ? " · " : "", unlabelled, unlabelled == 1 ? "" : "s",
                unlabelled == 1 ? "it" : "them");
    char note[sizeof p->note + sizeof merged + sizeof extra + 8];
    snprintf(note, sizeof note, "%s%s%s%s%s", p->note, p->note[0] && merged[0] ? " · " : "", merged,
             (p->note[0] || merged[0]) && extra[0] ? " · " : "", extra);
    svg_fit_note(note, sizeof note, w);
    if (note[0])
        TEXT(wr, ox + 8, oy + 30, "start", "font-size=\"10\" fill=\"#444444\"", note);
    HW_MARK(wr, "</g>\n");
    for (int i = 0; i < p->n_series; i++) {
        free(pj[i].x);
        free(pj[i].y);
    }
}

static void legend_swatch(struct hw *wr, double x, double y, int style, int points_only)
{
    if (!points_only) {
        HW_MARKF(wr,
                 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                 "stroke-width=\"2\"",
                 x, y, x + 30, y, svg_colour(style));
        if (svg_dash(style)[0])
            HW_MARKF(wr, " stroke-dasharray=\"%s\"", svg_dash(style));
        HW_MARK(wr, "/>\n");
    }
    int shape = marker_of(style);
    HW_MARKF(wr, "<path fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\" d=\"",
             stroked(shape) ? "none" : svg_colour(style), svg_colour(style),
             stroked(shape) ? "1.8" : "1");
    marker(wr, shape, x + 15, y);
    HW_MARK(wr, "\"/>\n");
}

void svg_swatch(struct hw *wr, int style)
{
    HW_MARK(wr, "<svg class=\"swatch\" width=\"34\" height=\"12\" viewBox=\"0 0 34 12\" "
                "aria-hidden=\"true\">");
    legend_swatch(wr, 2, 6, style, 0);
    HW_MARK(wr, "</svg>");
}

/* Legend rows: entries flow left to right and wrap at the figure's width. */
static int legend_rows(const struct svg_figure *f, double width, double *ex, int *erow)
{
    double x = 10;
    int row = 0;
    for (int k = 0; k < f->n_legend; k++) {
        double w = 44 + 6.4 * (double)strlen(f->legend[k].label) + 18;
        if (x + w > width - 10 && x > 10) {
            row++;
            x = 10;
        }
        ex[k] = x;
        erow[k] = row;
        x += w;
    }
    return f->n_legend ? row + 1 : 0;
}

/* The panels left out for want of a curve, one line per reason: "No panel for a, b: why". */
static int omitted_lines(const struct svg_figure *f, char lines[][400], int max)
{
    int n = 0;
    for (int k = 0; k < f->n_panels; k++) {
        const struct svg_panel *p = f->p[k];
        if (p->n_series > 0)
            continue;
        const char *why = p->empty_why[0] ? p->empty_why : "no data";
        int seen = 0;
        for (int q = 0; q < k && !seen; q++)
            seen = f->p[q]->n_series == 0 &&
                   strcmp(f->p[q]->empty_why[0] ? f->p[q]->empty_why : "no data", why) == 0;
        if (seen || n == max)
            continue;
        size_t len = (size_t)snprintf(lines[n], sizeof lines[0], "No panel for ");
        int first = 1;
        for (int q = k; q < f->n_panels; q++) {
            const struct svg_panel *o = f->p[q];
            if (o->n_series > 0 || strcmp(o->empty_why[0] ? o->empty_why : "no data", why) != 0)
                continue;
            if (len < sizeof lines[0])
                len += (size_t)snprintf(lines[n] + len, sizeof lines[0] - len, "%s%s",
                                        first ? "" : ", ", o->title);
            first = 0;
        }
        if (len < sizeof lines[0])
            snprintf(lines[n] + len, sizeof lines[0] - len, ": %s", why);
        n++;
    }
    return n;
}

void svg_fit_note(char *note, size_t cap, double panel_w)
{
    size_t fit = (size_t)((panel_w - 16) / 5.8), chars = 0, k = 0;
    for (; note[k] && chars < fit; k++)
        chars += ((unsigned char)note[k] & 0xC0) != 0x80;
    if (note[k]) {
        while (k > 0 && ((unsigned char)note[k] & 0xC0) == 0x80)
            k--;
        snprintf(note + (k > 3 ? k - 1 : k), cap - k, "…");
    }
}

void svg_fig_write(struct hw *wr, struct svg_figure *f, int standalone)
{
    /* A panel without a curve is not drawn: the figure says which and why. */
    char omitted[4][400];
    int n_omit = omitted_lines(f, omitted, 4), drawn = 0;
    struct svg_panel *keep[SVG_MAX_PANELS];
    for (int k = 0; k < f->n_panels; k++)
        if (f->p[k]->n_series > 0)
            keep[drawn++] = f->p[k];
    int cols = drawn < f->cols ? (drawn > 0 ? drawn : 1) : f->cols;
    int rows = (drawn + cols - 1) / cols;
    double width = cols * f->panel_w, ex[SVG_MAX_SERIES];
    int erow[SVG_MAX_SERIES];
    width = width < 420 ? 420 : width;
    if (width < 24 + 7.8 * (double)strlen(f->title)) /* the title must fit */
        width = 24 + 7.8 * (double)strlen(f->title);
    int lrows = legend_rows(f, width, ex, erow);
    double top = (f->title[0] ? 26 : 4) + lrows * 18 + (lrows ? 6 : 0) + 15 * n_omit;
    double height = top + rows * f->panel_h;
    if (standalone)
        HW_MARK(wr, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    HW_WRAPF(wr, f->title, "\">\n<title>",
             "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"figure%s\" id=\"fig-%s\" "
             "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\" "
             "role=\"img\" aria-label=\"",
             f->verdict ? " verdict" : "", f->id, width, height, width, height, FONT);
    hw_text(wr, f->title);
    HW_MARKF(wr, "</title>\n<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", width,
             height);
    if (f->title[0])
        TEXT(wr, 10, 18, "start", "font-size=\"14\" font-weight=\"bold\"", f->title);
    for (int k = 0; k < f->n_legend; k++) {
        double y = (f->title[0] ? 26 : 4) + erow[k] * 18 + 9;
        legend_swatch(wr, ex[k], y, f->legend[k].style, f->legend[k].points_only);
        TEXT(wr, ex[k] + 36, y + 4, "start", "font-size=\"11\"", f->legend[k].label);
    }
    for (int k = 0; k < n_omit; k++)
        TEXT(wr, 10, top - 15 * (n_omit - k) + 8, "start",
             "class=\"omitted\" font-size=\"11\" fill=\"#444444\"", omitted[k]);
    for (int k = 0; k < drawn; k++)
        draw_panel(wr, keep[k], (k % cols) * f->panel_w, top + (k / cols) * f->panel_h, f->panel_w,
                   f->panel_h);
    HW_MARK(wr, "</svg>\n");
}
