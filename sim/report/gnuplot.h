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

#endif
