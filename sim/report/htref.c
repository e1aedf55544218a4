/*
 * htref — the page of the reference study (html.h): the article's table against the
 * simulation, row by row. Its scenarios have no SLA (the article gives none), so the
 * latency panels draw the article's p99 as the line to compare with and say "no SLA".
 * Each row's instances serve identical services, so a row's latency distribution pools
 * them, and the figure says so.
 */
#include "report/html.h"
#include "report/htint.h"
#include "report/rtable.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double rel_err(double sim, double paper)
{
    return isfinite(sim) && paper > 0 ? (sim - paper) / paper : NAN;
}

static void triple(struct hw *wr, double sim, double paper, double scale)
{
    double e = rel_err(sim, paper);
    ht_td(wr, sim, scale, "%.1f");
    ht_td(wr, paper, scale, "%.1f");
    if (isfinite(e))
        HW_MARKF(wr, "<td class=\"%s\">%+.1f %%%s</td>", fabs(e) <= 0.15 ? "ok" : "miss",
                 e * 100 + 0.0, fabs(e) <= 0.15 ? "" : " ✗");
    else
        HW_MARK(wr, "<td>–</td>");
}

/* "p99 within 15 % in exclusive; off in timeslice (−57 %), …" */
static void verdict(struct hw *wr, const struct sd_study *st, const struct sd_ref_row *rows)
{
    int tps_ok = 0, util_ok = 0;
    for (int k = 0; k < st->n_rows; k++) {
        tps_ok += fabs(rel_err(rows[k].tps, rows[k].row->paper_tps)) <= 0.15;
        util_ok += fabs(rel_err(rows[k].util, rows[k].row->paper_util)) <= 0.15;
    }
    HW_MARK(wr, "<p class=\"verdict\"><strong>Verdict.</strong> ");
    HW_MARKF(wr,
             "Throughput agrees within 15 %% in %d of %d rows and GPU utilisation in %d of %d; "
             "the p99 agrees in",
             tps_ok, st->n_rows, util_ok, st->n_rows);
    int ok = 0, bad = 0;
    for (int k = 0; k < st->n_rows; k++)
        if (fabs(rel_err(rows[k].p99_ms, rows[k].row->paper_p99_ms)) <= 0.15)
            HW_WRAPF(wr, rows[k].row->mode, "</strong>", "%s<strong>", ok++ ? ", " : " ");
    if (!ok)
        HW_MARK(wr, " no row");
    for (int k = 0; k < st->n_rows; k++) {
        double e = rel_err(rows[k].p99_ms, rows[k].row->paper_p99_ms);
        if (fabs(e) <= 0.15)
            continue;
        HW_MARK2(wr, bad++, ", ", " and not in ");
        HW_WRAP(wr, "<strong>", rows[k].row->mode, "");
        HW_MARKF(wr, "</strong> (%.0f ms against %.0f, %+.0f %%)", rows[k].p99_ms,
                 rows[k].row->paper_p99_ms, e * 100);
    }
    HW_MARK(wr, " — the notes below say why.</p>\n");
}

static int p99_figure(struct hw *wr, const struct sd_study *st, const struct sd_ref_row *rows,
                      const char *svg_prefix, char *err, size_t errlen)
{
    struct svg_figure f;
    svg_fig_init(&f, "p99", "p99 latency of each row: simulated and the article's", 1, 560, 300);
    struct svg_panel *p = svg_fig_panel(&f);
    snprintf(p->title, sizeof p->title, "p99 per row");
    snprintf(p->note, sizeof p->note, "no SLA: the article's p99 is the reference");
    snprintf(p->xlabel, sizeof p->xlabel, "row (mode × instances)");
    snprintf(p->ylabel, sizeof p->ylabel, "p99 latency (ms)");
    p->latency = 1;
    p->xa = SVG_CAT;
    double x[SD_MAX_ROWS], sim[SD_MAX_ROWS], paper[SD_MAX_ROWS], all[2 * SD_MAX_ROWS];
    for (int k = 0; k < st->n_rows; k++) {
        char lab[64];
        snprintf(lab, sizeof lab, "%s ×%d", rows[k].row->mode, rows[k].row->instances);
        svg_cat(p, lab);
        x[k] = k;
        sim[k] = all[k] = rows[k].p99_ms;
        paper[k] = all[st->n_rows + k] = rows[k].row->paper_p99_ms;
    }
    p->ya = svg_auto_axis(all, 2 * st->n_rows);
    struct svg_series *s = svg_add(p, "simulated", 0, st->n_rows, x, sim, NULL);
    if (s)
        s->points_only = 1;
    s = svg_add(p, "the article", 1, st->n_rows, x, paper, NULL);
    if (s)
        s->points_only = 1;
    svg_fig_legend(&f, "simulated", 0, 1);
    svg_fig_legend(&f, "the article", 1, 1);
    f.verdict = 1; /* the p99 against the article's: what the verdict counts */
    int rc = ht_figure(wr, &f, svg_prefix, err, errlen);
    HT_CAPTION(wr, "One column per row of the article's table. The p99 of a row is the mean "
                   "over its instances of each instance's p99.");
    ht_figure_end(wr);
    svg_fig_free(&f);
    return rc;
}

static int cdf_figure(struct hw *wr, const struct sd_study *st, const struct sd_ref_row *rows,
                      const char *dir, const char *svg_prefix, char *err, size_t errlen)
{
    struct svg_figure f;
    svg_fig_init(&f, "cdf", "Latency distribution of each row (its instances pooled)", 2, 470, 290);
    int drawn = 0;
    for (int k = 0; k < st->n_rows; k++) {
        char path[4096];
        struct cdf_curves c;
        snprintf(path, sizeof path, "%s/%s-%s-cdf.csv", dir, st->id, rows[k].row->mode);
        FILE *probe = fopen(path, "r");
        if (!probe)
            continue;
        fclose(probe);
        if (cdf_csv_load(path, 1, &c, err, errlen)) {
            svg_fig_free(&f);
            return -1;
        }
        const struct cdf_curve *r = cdf_csv_find(&c, rows[k].row->strategy, "(all)");
        struct svg_panel *p = svg_fig_panel(&f);
        snprintf(p->title, sizeof p->title, "%s ×%d", rows[k].row->mode, rows[k].row->instances);
        snprintf(p->note, sizeof p->note,
                 "no SLA in the scenario · long dashes: the article's p99");
        snprintf(p->xlabel, sizeof p->xlabel, "latency (ms)");
        snprintf(p->ylabel, sizeof p->ylabel, "requests at or below (%%)");
        p->ya = SVG_TAIL;
        p->latency = 1;
        double x[128], y[128];
        int n = 0;
        for (int q = 0; r && q < r->n; q++)
            if (r->p[q] <= 0.9999) {
                x[n] = r->ms[q];
                y[n++] = r->p[q];
            }
        double lo = rows[k].row->paper_p99_ms, hi = lo;
        for (int q = 0; q < n; q++) {
            lo = x[q] < lo ? x[q] : lo;
            hi = x[q] > hi ? x[q] : hi;
        }
        p->xa = lo > 0 && hi / lo >= 30 ? SVG_LOG : SVG_LIN;
        char lab[96];
        snprintf(lab, sizeof lab, "%s (%s)", rows[k].row->mode, rows[k].row->strategy);
        struct svg_series *s = svg_add(p, lab, k, n, x, y, NULL);
        if (s)
            s->marker_every = 12;
        svg_fig_legend(&f, lab, k, 0);
        svg_ref(p, 0, 0.99, SVG_REF_GUIDE, "99 %%");
        svg_ref(p, 1, rows[k].row->paper_p99_ms, SVG_REF_VALUE, "article p99 %.0f ms",
                rows[k].row->paper_p99_ms);
        drawn += n > 0;
        cdf_csv_free(&c);
    }
    int rc = 0;
    if (drawn)
        rc = ht_figure(wr, &f, svg_prefix, err, errlen);
    HT_CAPTION(wr, "One panel per row; the row's strategy only, its instances pooled (they "
                   "serve identical services). Up: the share of requests at or below the "
                   "latency, stretched toward the tail. Where the curve crosses the 99 % "
                   "line is the row's p99; the vertical line is the article's.");
    ht_figure_end(wr);
    svg_fig_free(&f);
    return rc;
}

/* The page, written to the caller's stream only through the writer (hw.h). */
int ht_reference_page(FILE *fp, const struct sd_study *st, const struct sd_ref_row *rows,
                      cJSON *const *docs, const char *dir, const char *svg_prefix, char *err,
                      size_t errlen)
{
    struct hw w, *wr = &w;
    hw_init(wr, fp);
    ht_head(wr, st->title);
    HW_WRAP(wr, "<h1>", st->title, "</h1>\n<p class=\"question\"><strong>Question.</strong> ");
    if (st->question)
        hw_md(wr, st->question);
    else
        HW_MARK(wr, "Does the simulation reproduce the article's reference table, row by row?");
    HW_MARK(wr, "</p>\n");
    verdict(wr, st, rows);
    if (st->n_rows > 0)
        ht_meta(wr, docs[0], NULL, st->requests);
    HW_MARK(wr, "<nav>Contents: <a href=\"#table\">the table</a> <a href=\"#latency\">latency</a> "
                "<a href=\"#notes\">notes</a></nav>\n<h2 id=\"table\">The table</h2>\n"
                "<table class=\"reference\">\n<tr><th class=\"l\">mode</th><th>instances</th>"
                "<th>TPS/instance</th><th>article</th><th>error</th><th>p99 ms</th><th>article</th>"
                "<th>error</th><th>GPU util %</th><th>article</th><th>error</th></tr>\n");
    for (int k = 0; k < st->n_rows; k++) {
        HW_MARK(wr, "<tr><td class=\"l\">");
        svg_swatch(wr, k);
        hw_text(wr, rows[k].row->mode);
        HW_MARKF(wr, "</td><td>%d</td>", rows[k].row->instances);
        triple(wr, rows[k].tps, rows[k].row->paper_tps, 1);
        triple(wr, rows[k].p99_ms, rows[k].row->paper_p99_ms, 1);
        triple(wr, rows[k].util, rows[k].row->paper_util, 100);
        HW_MARK(wr, "</tr>\n");
    }
    HW_MARK(wr,
            "</table>\n<p class=\"meta\">error = (simulated − article) / article; ✗ marks "
            "|error| &gt; 15 %. The full tables of every row are in the study's Markdown.</p>\n");
    HW_MARK(wr, "<h2 id=\"latency\">Latency</h2>\n");
    int rc = p99_figure(wr, st, rows, svg_prefix, err, errlen);
    if (rc == 0)
        rc = cdf_figure(wr, st, rows, dir, svg_prefix, err, errlen);
    if (rc == 0) {
        ht_notes(wr, st->notes);
        ht_foot(wr);
    }
    return rc;
}
