/*
 * gnuplot — a figure of the pages as a gnuplot script and its data (see gnuplot.h). The
 * layout follows svg.c's: the figure's title, its legend once above the panels, then the
 * panels in rows of f->cols, each panel_w × panel_h pixels; every panel is placed with
 * `set origin`/`set size` in screen fractions, so the PNG is the stated size exactly and
 * the PDF is the same page at 96 pixels an inch.
 *
 * Axis ranges are computed here as svg.c computes them (data and reference lines, or the
 * panel's fixed range), because gnuplot's autoscale ignores arrows: an SLA above every
 * curve would fall outside the plot.
 */
#include "report/gnuplot.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TITLE_PX 26 /* the figure's title line */
#define LEGEND_ROW_PX 18
#define TAIL_TOP 4.0 /* −log10(1 − 0.9999), svg.c's TAIL_MAX */

/* gnuplot point types of svg.c's six marker shapes, filled and open. */
static const int pt_filled[6] = {7, 5, 9, 13, 11, 15};
static const int pt_open[6] = {6, 4, 8, 12, 10, 14};

static void quote(FILE *fp, const char *s, int format)
{
    fputc('\'', fp);
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '\'')
            fputs("''", fp);
        else if (*c == '%' && format)
            fputs("%%", fp);
        else if (*c < 0x20 || *c == 0x7f)
            fputc(' ', fp);
        else
            fputc(*c, fp);
    }
    fputc('\'', fp);
}

void gp_quote(FILE *fp, const char *s)
{
    quote(fp, s, 0);
}

/* A comment line's text: control characters (a newline would end the comment) cleaned. */
static void comment_text(FILE *fp, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++)
        fputc(*c < 0x20 || *c == 0x7f ? ' ' : *c, fp);
}

/* The rest of a script's first comment (its source, how to render it, then `what`) and the
 * lines that find the script's own folder, so that it runs from anywhere. */
static void script_head(FILE *fp, const char *name, const char *source, int w, int h,
                        const char *what)
{
    if (source && *source) {
        fprintf(fp, ", from ");
        comment_text(fp, source);
    }
    fprintf(fp,
            ".\n# Written by `sharesim report gnuplot` (docs/report.md). Renders %s.png (%d x %d "
            "pixels)\n# and %s.pdf next to this script: gnuplot %s.gp\n# %s\n",
            name, w, h, name, name, what);
    fprintf(fp, "reset\nhere = ''\n"
                "do for [i = strlen(ARG0):1:-1] { if (ARG0[i:i] eq '/') { here = ARG0[1:i]; "
                "break } }\n");
}

/* The loop that renders a script twice, to <name>.png and <name>.pdf next to it (w x h
 * pixels; the PDF at 96 pixels an inch), with each terminal's font option ("" for none);
 * the loop's body follows. */
static void terminals(FILE *fp, const char *name, int w, int h, const char *png_font,
                      const char *pdf_font)
{
    fprintf(fp,
            "do for [out in 'png pdf'] {\n  if (out eq 'png') {\n"
            "    set terminal pngcairo size %d,%d%s noenhanced background '#ffffff'\n"
            "    set output here.",
            w, h, png_font);
    gp_quote(fp, name);
    fprintf(fp,
            ".'.png'\n  } else {\n    set terminal pdfcairo size %.4f,%.4f%s noenhanced\n"
            "    set output here.",
            w / 96.0, h / 96.0, pdf_font);
    gp_quote(fp, name);
    fprintf(fp, ".'.pdf'\n  }\n");
}

static int shape_of(int style)
{
    return (style < 0 ? 0 : style) % 6;
}

static int legend_rows(const struct svg_figure *f, int width)
{
    int rows = f->n_legend ? 1 : 0;
    double x = 10;
    for (int k = 0; k < f->n_legend; k++) {
        double w = 44 + 6.6 * (double)strlen(f->legend[k].label) + 18;
        if (x + w > width && x > 10) {
            rows++;
            x = 10;
        }
        x += w;
    }
    return rows;
}

static int panel_cols(const struct svg_figure *f)
{
    return f->n_panels < f->cols ? (f->n_panels > 0 ? f->n_panels : 1) : f->cols;
}

static int top_px(const struct svg_figure *f, int width)
{
    int lr = legend_rows(f, width);
    return TITLE_PX + lr * LEGEND_ROW_PX + (lr ? 8 : 0);
}

void gp_size(const struct svg_figure *f, int *width, int *height)
{
    int cols = panel_cols(f), rows = (f->n_panels + cols - 1) / cols;
    int w = cols * f->panel_w;
    w = w < 420 ? 420 : w;
    if (w < 24 + 7.8 * (double)strlen(f->title))
        w = (int)ceil(24 + 7.8 * (double)strlen(f->title));
    *width = w;
    *height = top_px(f, w) + (rows > 0 ? rows : 1) * f->panel_h;
}

/* A coordinate as the script's axis takes it: the tail axis is plotted at −log10(1 − p). */
static double coord(enum svg_axis a, double v)
{
    if (a != SVG_TAIL)
        return v;
    return v >= 0.9999 ? TAIL_TOP : -log10(1 - v);
}

/* The range of one axis of a panel, as svg.c's make_axis chooses it. */
static void axis_range(const struct svg_panel *p, int is_x, double *lo_out, double *hi_out)
{
    enum svg_axis kind = is_x ? p->xa : p->ya;
    double fix_lo = is_x ? p->xmin : p->ymin, fix_hi = is_x ? p->xmax : p->ymax;
    double lo, hi;
    svg_data_extent(p, is_x, &lo, &hi);
    if (!(lo <= hi))
        lo = hi = kind == SVG_LOG ? 1 : 0;
    switch (kind) {
    case SVG_CAT:
        lo = -0.5;
        hi = (p->n_cats > 0 ? p->n_cats : 1) - 0.5;
        break;
    case SVG_LOG:
        if (!(hi > lo)) {
            lo /= 2;
            hi *= 2;
        }
        lo = isfinite(fix_lo) ? lo : lo / 1.15;
        hi = isfinite(fix_hi) ? hi : hi * 1.15;
        break;
    case SVG_TAIL: {
        double top = ceil(coord(SVG_TAIL, hi) - 1e-6);
        lo = 0;
        hi = top < 2 ? 2 : top > TAIL_TOP ? TAIL_TOP : top; /* in plotted units */
        break;
    }
    default:
        if (lo >= 0 && lo < 0.4 * hi && !isfinite(fix_lo))
            lo = 0;
        if (!(hi > lo)) {
            double d = lo != 0 ? fabs(lo) * 0.1 : 1;
            lo -= d;
            hi += d;
        }
        if (!isfinite(fix_hi))
            hi += (hi - lo) * 0.04;
    }
    *lo_out = lo;
    *hi_out = hi;
}

/* One axis: its scale, range and ticks. */
static void write_axis(FILE *fp, const struct svg_panel *p, int is_x)
{
    enum svg_axis kind = is_x ? p->xa : p->ya;
    const char *ax = is_x ? "x" : "y";
    double lo, hi;
    axis_range(p, is_x, &lo, &hi);
    if (kind == SVG_LOG)
        fprintf(fp, "  set logscale %s\n", ax);
    fprintf(fp, "  set %srange [%.9g:%.9g]\n", ax, lo, hi);
    if (kind == SVG_TAIL) {
        static const char *const name[5] = {"50", "90", "99", "99.9", "99.99"};
        static const double at[5] = {0.301029996, 1, 2, 3, 4};
        fprintf(fp, "  set %stics (", ax);
        for (int k = 0; k < 5 && at[k] <= hi + 1e-9; k++)
            fprintf(fp, "%s'%s %%%%' %.9g", k ? ", " : "", name[k], at[k]);
        fprintf(fp, ")\n");
    } else if (kind == SVG_CAT) {
        fprintf(fp, "  set %stics (", ax);
        for (int k = 0; k < p->n_cats; k++) {
            fprintf(fp, "%s", k ? ", " : "");
            quote(fp, p->cats[k], 1); /* a tic label is a format for its value: % as %% */
            fprintf(fp, " %d", k);
        }
        fprintf(fp, ")%s\n", is_x && p->n_cats > 4 ? " rotate by -25" : "");
    }
    fprintf(fp, "  set %slabel ", ax);
    gp_quote(fp, is_x ? p->xlabel : p->ylabel);
    fprintf(fp, "\n");
}

/* The line styles of every style the figure uses (ls = style + 1): colour, dash, marker. */
static void write_styles(FILE *fp, const struct svg_figure *f)
{
    int used[SVG_NSTYLES] = {0};
    for (int k = 0; k < f->n_legend; k++)
        used[(f->legend[k].style < 0 ? 0 : f->legend[k].style) % SVG_NSTYLES] = 1;
    for (int q = 0; q < f->n_panels; q++) {
        for (int i = 0; i < f->p[q]->n_series; i++)
            used[(f->p[q]->s[i].style < 0 ? 0 : f->p[q]->s[i].style) % SVG_NSTYLES] = 1;
        for (int i = 0; i < f->p[q]->n_marks; i++)
            used[(f->p[q]->mark[i].style < 0 ? 0 : f->p[q]->mark[i].style) % SVG_NSTYLES] = 1;
    }
    fprintf(fp, "# Line styles: linetype K+1 is style K of the page (colour, dash, marker).\n");
    for (int s = 0; s < SVG_NSTYLES; s++) {
        if (!used[s])
            continue;
        fprintf(fp, "set linetype %d lc rgb '%s' lw 2 pt %d ps 0.9 dt ", s + 1, svg_colour(s),
                pt_filled[shape_of(s)]);
        const char *d = svg_dash(s);
        if (!d[0]) {
            fprintf(fp, "solid\n");
            continue;
        }
        fputc('(', fp); /* svg.c's "8 4" is gnuplot's (8,4) */
        for (const char *c = d; *c; c++)
            fputc(*c == ' ' ? ',' : *c, fp);
        fprintf(fp, ")\n");
    }
    fprintf(fp, "# Reference lines: SLA black, a value to compare with dark grey, a guide light "
                "grey.\n"
                "set linetype 101 lc rgb '#000000' lw 1.4 dt (5,3)\n"
                "set linetype 102 lc rgb '#444444' lw 1.4 dt (9,3)\n"
                "set linetype 100 lc rgb '#8a8a8a' lw 1 dt (1,3)\n");
}

static void write_refs(FILE *fp, const struct svg_panel *p)
{
    static const int ls[3] = {100, 101, 102};
    static const char *const tc[3] = {"#555555", "#000000", "#000000"};
    for (int r = 0; r < p->n_refs; r++) {
        const struct svg_ref *rf = &p->ref[r];
        int k = rf->sla >= 0 && rf->sla <= 2 ? rf->sla : 0;
        enum svg_axis a = rf->vertical ? p->xa : p->ya;
        if (!svg_plottable(a, rf->v))
            continue;
        double v = coord(a, rf->v);
        fprintf(fp,
                rf->vertical
                    ? "  set arrow from first %.9g, graph 0 to first %.9g, graph 1 nohead lt %d\n"
                    : "  set arrow from graph 0, first %.9g to graph 1, first %.9g nohead lt %d\n",
                v, v, ls[k]);
        if (!rf->label[0])
            continue;
        fprintf(fp, "  set label ");
        gp_quote(fp, rf->label);
        if (rf->vertical) {
            /* right of the line, or left of it in the right part of the panel (as svg.c) */
            double lo, hi;
            axis_range(p, 1, &lo, &hi);
            double t = p->xa == SVG_LOG
                           ? log(rf->v / lo) / log(hi / lo)
                           : (v - coord(p->xa, lo)) / (coord(p->xa, hi) - coord(p->xa, lo));
            int left = isfinite(t) && t > 0.6;
            fprintf(fp, " at first %.9g, graph %.3f offset %s,0 %s front tc rgb '%s'\n", v,
                    0.95 - 0.06 * r, left ? "-0.4" : "0.4", left ? "right" : "left", tc[k]);
        } else {
            /* above the line, or under it near the top of the panel */
            double lo, hi;
            axis_range(p, 0, &lo, &hi);
            double t = p->ya == SVG_LOG ? log(rf->v / lo) / log(hi / lo) : (v - lo) / (hi - lo);
            fprintf(fp, " at graph 0.02, first %.9g offset 0,%s left front tc rgb '%s'\n", v,
                    isfinite(t) && t > 0.88 ? "-0.7" : "0.6", tc[k]);
        }
    }
}

static void write_marks(FILE *fp, const struct svg_panel *p)
{
    for (int k = 0; k < p->n_marks; k++) {
        const struct svg_mark *mk = &p->mark[k];
        if (!svg_plottable(p->xa, mk->x) || !svg_plottable(p->ya, mk->y))
            continue;
        const char *c = svg_colour(mk->style);
        fprintf(fp, "  set label ");
        gp_quote(fp, mk->label);
        fprintf(fp,
                " at first %.9g, first %.9g point pt 6 ps 1.8 lc rgb '%s' offset 0,%.1f center "
                "front tc rgb '%s'\n",
                coord(p->xa, mk->x), coord(p->ya, mk->y), c, -1.2 - 1.0 * (k % 3), c);
    }
}

/* The points drawn above a fixed top (or below a fixed bottom) of the y axis, in one label. */
static void write_offscale(FILE *fp, const struct svg_panel *p)
{
    int above = 0, below = 0;
    for (int i = 0; i < p->n_series; i++)
        for (int k = 0; k < p->s[i].n; k++) {
            above += isfinite(p->ymax) && p->s[i].y[k] > p->ymax;
            below += isfinite(p->ymin) && p->s[i].y[k] < p->ymin;
        }
    for (int up = 1; up >= 0; up--) {
        int n = up ? above : below;
        char buf[128];
        if (!n)
            continue;
        snprintf(buf, sizeof buf, "%d point%s %s %.3g", n, n == 1 ? "" : "s",
                 up ? "above" : "below", up ? p->ymax : p->ymin);
        fprintf(fp, "  set label ");
        gp_quote(fp, buf);
        fprintf(fp, " at graph 0.98, graph %s right front tc rgb '#444444'\n",
                up ? "0.96" : "0.04");
    }
}

/* The `using` column of an axis: the tail axis transforms p. */
static const char *col(enum svg_axis a, int is_x)
{
    if (a == SVG_TAIL)
        return is_x ? "(tail($1))" : "(tail($2))";
    return is_x ? "1" : "2";
}

int gp_write_figure(const char *dir, const char *name, const struct svg_figure *f,
                    const char *source, char *err, size_t errlen)
{
    char file[512];
    struct ss_out o;
    /* ---- the data: one block per series, in panel order ---- */
    snprintf(file, sizeof file, "%s.dat", name);
    if (ss_out_open_entry(&o, dir, file, err, errlen))
        return -1;
    fprintf(o.fp,
            "# %s.dat: the data of figure %s, for %s.gp (x, y, 1 when drawn as an open "
            "marker).\n# One block per series (gnuplot `index` N, from 0).\n",
            name, f->id, name);
    int block = 0;
    for (int q = 0; q < f->n_panels; q++)
        for (int i = 0; i < f->p[q]->n_series; i++) {
            const struct svg_series *s = &f->p[q]->s[i];
            if (s->n < 1)
                continue;
            fprintf(o.fp, "%s# index %d: panel %d ", block ? "\n\n" : "", block, q + 1);
            comment_text(o.fp, f->p[q]->title);
            fprintf(o.fp, ", series ");
            comment_text(o.fp, s->label);
            fprintf(o.fp, "\n");
            for (int k = 0; k < s->n; k++)
                fprintf(o.fp, "%.9g %.9g %d\n", s->x[k], s->y[k],
                        s->hollow && s->hollow[k] ? 1 : 0);
            block++;
        }
    if (ss_out_commit(&o, err, errlen))
        return -1;

    /* ---- the script ---- */
    snprintf(file, sizeof file, "%s.gp", name);
    if (ss_out_open_entry(&o, dir, file, err, errlen))
        return -1;
    FILE *fp = o.fp;
    int W, H;
    gp_size(f, &W, &H);
    int cols = panel_cols(f), top = top_px(f, W);
    fprintf(fp, "# %s.gp: figure %s as the report page draws it", name, f->id);
    script_head(fp, name, source, W, H,
                "Restyle here: the fonts and sizes just below, the line styles after them.");
    fprintf(fp, "data = here.");
    gp_quote(fp, name);
    fprintf(fp, ".'.dat'\n");
    fprintf(fp, "png_font = 'DejaVu Sans,9'\npdf_font = 'DejaVu Sans,7'\n"
                "tail(p) = -log10(1 - (p < 0.9999 ? p : 0.9999))  # the percentile axis\n");
    write_styles(fp, f);
    terminals(fp, name, W, H, " font png_font", " font pdf_font");
    fprintf(fp, "  set multiplot\n");

    /* the title and the legend, once for the figure */
    fprintf(fp,
            "\n  # title and legend\n  reset\n  set origin 0, %.6f\n  set size 1, %.6f\n"
            "  unset border\n  unset tics\n  set xrange [0:1]\n  set yrange [0:1]\n",
            1 - (double)top / H, (double)top / H);
    if (f->title[0]) {
        fprintf(fp, "  set label 1 ");
        gp_quote(fp, f->title);
        fprintf(fp, " at screen %.6f, screen %.6f left font ',11'\n", 10.0 / W, 1 - 16.0 / H);
    }
    fprintf(fp,
            "  set key at screen 0.5, screen %.6f center top horizontal maxrows %d samplen 3 "
            "spacing 1.2\n  plot NaN notitle",
            1 - (double)TITLE_PX / H, legend_rows(f, W) > 0 ? legend_rows(f, W) : 1);
    for (int k = 0; k < f->n_legend; k++) {
        int s = f->legend[k].style < 0 ? 0 : f->legend[k].style % SVG_NSTYLES;
        fprintf(fp, ", \\\n    NaN with %s lt %d title ",
                f->legend[k].points_only ? "points" : "linespoints", s + 1);
        gp_quote(fp, f->legend[k].label);
    }
    fprintf(fp, "\n");

    block = 0;
    for (int q = 0; q < f->n_panels; q++) {
        const struct svg_panel *p = f->p[q];
        int c = q % cols, r = q / cols;
        fprintf(fp, "\n  # panel %d: ", q + 1);
        comment_text(fp, p->title);
        fprintf(fp, "\n  reset\n  set origin %.6f, %.6f\n  set size %.6f, %.6f\n",
                (double)(c * f->panel_w) / W, 1 - (double)(top + (r + 1) * f->panel_h) / H,
                (double)f->panel_w / W, (double)f->panel_h / H);
        fprintf(fp, "  unset key\n  set grid lc rgb '#e6e6e6'\n  set title ");
        gp_quote(fp, p->title);
        char note[sizeof p->note + 8 * sizeof p->s[0].merged];
        snprintf(note, sizeof note, "%s", p->note);
        for (int i = 0; i < p->n_series; i++) {
            if (!p->s[i].merged[0])
                continue;
            ss_catf(note, sizeof note, "%s%s",
                    note[0] ? " · same curve: " : "same curve: ", p->s[i].merged);
        }
        svg_fit_note(note, sizeof note, f->panel_w);
        if (note[0]) {
            fprintf(fp, ".\"\\n\".");
            gp_quote(fp, note);
        }
        fprintf(fp, "\n");
        write_axis(fp, p, 1);
        write_axis(fp, p, 0);
        write_refs(fp, p);
        write_marks(fp, p);
        write_offscale(fp, p);
        fprintf(fp, "  plot ");
        int any = 0;
        for (int i = 0; i < p->n_series; i++) {
            const struct svg_series *s = &p->s[i];
            if (s->n < 1)
                continue;
            int ls = (s->style < 0 ? 0 : s->style % SVG_NSTYLES) + 1;
            int every = s->marker_every > 0 ? s->marker_every : 1;
            const char *xc = col(p->xa, 1), *yc = col(p->ya, 0);
            if (any)
                fprintf(fp, ", \\\n    ");
            if (!s->points_only)
                fprintf(fp, "data index %d using %s:%s with lines lt %d notitle, \\\n    ", block,
                        xc, yc, ls);
            fprintf(fp,
                    "data index %d every %d using %s:($3 == 0 ? %s : NaN) with points lt %d "
                    "notitle, \\\n    data index %d every %d using %s:($3 != 0 ? %s : NaN) with "
                    "points lt %d pt %d notitle",
                    block, every, xc, p->ya == SVG_TAIL ? "tail($2)" : "$2", ls, block, every, xc,
                    p->ya == SVG_TAIL ? "tail($2)" : "$2", ls, pt_open[shape_of(s->style)]);
            any = 1;
            block++;
        }
        if (!any)
            fprintf(fp, "NaN notitle");
        fprintf(fp, "\n");
    }
    fprintf(fp, "\n  unset multiplot\n  set output\n}\n");
    return ss_out_commit(&o, err, errlen);
}

/* ---- drawings that are not plots (gnuplot.h) ---------------------------------------- */

struct gp_canvas {
    struct ss_out o;
    char name[128];
    int width, height, n;
};

struct gp_canvas *gp_canvas_open(const char *dir, const char *name, int width, int height,
                                 const char *title, const char *source, char *err, size_t errlen)
{
    struct gp_canvas *c = ss_xcalloc(1, sizeof *c);
    char file[160];
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(file, sizeof file, "%s.gp", name);
    if (ss_out_open_entry(&c->o, dir, file, err, errlen)) {
        free(c);
        return NULL;
    }
    c->width = width;
    c->height = height;
    FILE *fp = c->o.fp;
    fprintf(fp, "# %s.gp: ", name);
    comment_text(fp, title);
    script_head(fp, name, source, width, height,
                "A drawing in the page's pixel coordinates (y down): rectangles and labels.");
    return c;
}

/* Colours are the page's own literals (#RRGGBB), never data: checked, or black. */
static const char *rgb_or_black(const char *rgb)
{
    if (!rgb || strlen(rgb) != 7 || rgb[0] != '#')
        return "#000000";
    for (int k = 1; k < 7; k++)
        if (!strchr("0123456789abcdefABCDEF", rgb[k]))
            return "#000000";
    return rgb;
}

void gp_canvas_rect(struct gp_canvas *c, double x, double y, double w, double h, enum gp_fill fill,
                    const char *fill_rgb, const char *border_rgb)
{
    static const char *const styles[] = {"fs solid 1.0 border", "fs empty border",
                                         "fs transparent pattern 4 border"};
    fprintf(c->o.fp,
            "set object %d rect from %.1f,%.1f to %.1f,%.1f fc rgb '%s' %s lc rgb '%s'%s "
            "back\n",
            ++c->n, x, y, x + w, y + h, rgb_or_black(fill_rgb), styles[fill],
            rgb_or_black(border_rgb), fill == GP_FILL_DASHED ? " dt 2" : "");
}

void gp_canvas_text(struct gp_canvas *c, double x, double y, double px, const char *rgb, int bold,
                    int centre, const char *s)
{
    /* 1 px is 0.75 pt in both terminals: the PNG at 96 dpi, the PDF at width / 96 inches */
    fprintf(c->o.fp, "set label %d ", c->n + 1);
    c->n++;
    gp_quote(c->o.fp, s);
    fprintf(c->o.fp, " at %.1f,%.1f %s font '%s,%.4g' tc rgb '%s' noenhanced front\n", x, y,
            centre ? "center" : "left", bold ? "DejaVu Sans Bold" : "DejaVu Sans", px * 0.75,
            rgb_or_black(rgb));
}

int gp_canvas_close(struct gp_canvas *c, char *err, size_t errlen)
{
    FILE *fp = c->o.fp;
    fprintf(fp,
            "set xrange [0:%d]\nset yrange [%d:0]\nset margins 0, 0, 0, 0\nunset border\n"
            "unset tics\nunset key\n",
            c->width, c->height);
    terminals(fp, c->name, c->width, c->height, "", "");
    fprintf(fp, "  plot NaN notitle\n  set output\n}\n");
    int rc = ss_out_commit(&c->o, err, errlen);
    free(c);
    return rc;
}

void gp_canvas_abort(struct gp_canvas *c)
{
    if (!c)
        return;
    ss_out_abort(&c->o);
    free(c);
}
