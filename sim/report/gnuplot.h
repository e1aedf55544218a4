/*
 * gnuplot — the figures of the report pages as gnuplot scripts, for publication: a second
 * writer over the same struct svg_figure the SVG writer draws (svg.h), so that a script
 * has the panels, axes, SLA lines, marks and legend of the page's figure. Per figure it
 * writes NAME.dat (every series, one gnuplot data block each) and NAME.gp, which renders
 * NAME.png (pngcairo, the size it states in its `set terminal` line) and NAME.pdf
 * (pdfcairo) next to itself, from whatever directory gnuplot is started in:
 *
 *     gnuplot DIR/NAME.gp
 *
 * The SVG pages stay the default (deterministic and checked); these are for a researcher
 * who restyles a figure for a paper: line styles, fonts and sizes are set once at the top
 * of each script.
 *
 * Data never becomes code. Every string that comes from the results (titles, tenant and
 * strategy names, legend entries, notes, category labels) is written as a gnuplot
 * single-quoted string by gp_quote: inside single quotes gnuplot does no backslash
 * escapes, no `command` substitution and no @macro expansion, and the only special
 * character is the quote itself, written twice (''); control characters (a newline would
 * end the command) become spaces. Text is drawn with `noenhanced`, so ^ _ { } @ & ~ in a
 * name are shown as they are. The .dat file holds numbers only (its comment lines are
 * cleaned the same way).
 *
 * Module prefix: gp_.
 */
#ifndef SS_GNUPLOT_H
#define SS_GNUPLOT_H

#include "report/svg.h"

#include <stddef.h>
#include <stdio.h>

/* The most figures one `report gnuplot` collects from a page. */
#define GP_MAX_FIGURES 64

/* Writes s as a gnuplot single-quoted string literal (with its quotes) to fp. */
void gp_quote(FILE *fp, const char *s);

/* The PNG size the script of f states (and gnuplot renders), in pixels. */
void gp_size(const struct svg_figure *f, int *width, int *height);

/*
 * Writes DIR/NAME.dat and DIR/NAME.gp for figure f (DIR must exist; NAME holds no '/'),
 * each atomically. source: what the figure was made from, for the script's header. 0, or
 * -1 with err.
 */
int gp_write_figure(const char *dir, const char *name, const struct svg_figure *f,
                    const char *source, char *err, size_t errlen);

/*
 * A drawing that is not a plot (a MIG slice grid): rectangles and labels in the page's pixel
 * coordinates (y down), as the SVG draws them, written to DIR/NAME.gp as `set object` and
 * `set label` commands; the script renders NAME.png (width x height) and NAME.pdf like a
 * figure's. Strings go through gp_quote.
 */
struct gp_canvas;
enum gp_fill { GP_FILL_SOLID, GP_FILL_DASHED, GP_FILL_HATCHED };
struct gp_canvas *gp_canvas_open(const char *dir, const char *name, int width, int height,
                                 const char *title, const char *source, char *err, size_t errlen);
void gp_canvas_rect(struct gp_canvas *c, double x, double y, double w, double h, enum gp_fill fill,
                    const char *fill_rgb, const char *border_rgb);
/* px: the font size in pixels; centre: centred at x, else starting there. */
void gp_canvas_text(struct gp_canvas *c, double x, double y, double px, const char *rgb, int bold,
                    int centre, const char *s);
/* Writes the rendering commands and commits the script; frees c either way. 0 or -1. */
int gp_canvas_close(struct gp_canvas *c, char *err, size_t errlen);
/* Frees c without writing anything (the page failed). */
void gp_canvas_abort(struct gp_canvas *c);

#endif
