/*
 * html — the frame of every report page and the tables (see html.h). The style sheet is
 * inline and small: a page must open from a mail attachment with nothing else around it.
 * Colours of text and table marks pass WCAG AA contrast on white; "meets" and "misses" are
 * said in words (✓ meets / ✗ misses), never by colour alone.
 */
#include "report/html.h"
#include "report/htint.h"
#include "report/hw.h"
#include "core/metric.h"
#include "core/rdoc.h"
#include "core/verdict.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A literal: it goes out as trusted markup (hw.h). */
#define CSS                                                                                        \
    "body{font-family:'DejaVu Sans','Liberation Sans',Arial,Helvetica,sans-serif;color:#111;"      \
    "background:#fff;margin:0;line-height:1.45;font-size:15px}\n"                                  \
    "main{max-width:1200px;margin:0 auto;padding:18px 24px 48px}\n"                                \
    "h1{font-size:24px;margin:8px 0 12px}h2{font-size:19px;margin:30px 0 8px;"                     \
    "border-bottom:1px solid #ccc;padding-bottom:3px}h3{font-size:16px;margin:18px 0 6px}\n"       \
    ".question{font-size:16px;margin:6px 0}\n"                                                     \
    ".verdict{font-size:17px;background:#eef5fb;border-left:5px solid #0072B2;padding:10px 14px;"  \
    "margin:10px 0 12px}\n"                                                                        \
    ".meta,.howto,figcaption{color:#444;font-size:13.5px}\n"                                       \
    "nav{font-size:14px;margin:6px 0 4px}nav a{margin-right:14px}\n"                               \
    "figure{margin:12px 0 18px;overflow-x:auto}figcaption{max-width:70em;margin-top:4px}\n"        \
    "table{border-collapse:collapse;font-size:13px;margin:8px 0 16px}\n"                           \
    "th,td{border:1px solid #ccc;padding:3px "                                                     \
    "7px;text-align:right}td{white-space:nowrap}td.wrap{white-space:normal;min-width:18em}\n"      \
    "th{background:#f0f0f0}td.l,th.l{text-align:left}tr:nth-child(even) td{background:#fafafa}\n"  \
    ".ok{color:#006b4f;font-weight:bold}.miss{color:#b03a00;font-weight:bold}\n"                   \
    "code{font-size:90%;background:#f3f3f3;padding:0 3px}\n"                                       \
    "svg.swatch{vertical-align:middle;margin-right:4px}\n"

void ht_head(struct hw *wr, const char *title)
{
    HW_MARK(wr, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                "<meta name=\"generator\" content=\"sharesim " SHARESIM_VERSION "\">\n<title>");
    hw_text(wr, title);
    HW_MARK(wr, "</title>\n<style>\n" CSS "</style>\n</head>\n<body>\n<main id=\"report\">\n");
}

void ht_foot(struct hw *wr)
{
    HW_MARK(
        wr,
        "<p class=\"meta\">Written by <code>sharesim report html</code> (sharesim " SHARESIM_VERSION
        "); the page is self-contained: no script, nothing loaded from the network.</p>\n"
        "</main>\n</body>\n</html>\n");
}

void ht_td(struct hw *wr, double v, double scale, const char *fmt)
{
    HW_MARK(wr, "<td>");
    if (isfinite(v))
        hw_textf(wr, fmt, v * scale + 0.0); /* a number: text */
    else
        HW_MARK(wr, "–");
    HW_MARK(wr, "</td>");
}

/* The figure sink of ht_set_figure_sink: one per process, set by `report gnuplot` around the
 * page it renders. */
static ht_figure_sink sink_fn;
static void *sink_ctx;

void ht_set_figure_sink(ht_figure_sink fn, void *ctx)
{
    sink_fn = fn;
    sink_ctx = ctx;
}

static ht_canvas_sink canvas_fn;
static void *canvas_ctx;

void ht_set_canvas_sink(ht_canvas_sink fn, void *ctx)
{
    canvas_fn = fn;
    canvas_ctx = ctx;
}

ht_canvas_sink ht_canvas_sink_of(void **ctx)
{
    *ctx = canvas_ctx;
    return canvas_fn;
}

int ht_svg_file(const char *svg_prefix, const char *id, const struct hw *svg, char *err,
                size_t errlen)
{
    char path[4096];
    struct ss_out o;
    struct hw file;
    snprintf(path, sizeof path, "%s-%s.svg", svg_prefix, id);
    if (ss_out_open(&o, path, err, errlen))
        return -1;
    hw_init(&file, o.fp);
    HW_MARK(&file, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    hw_splice(&file, svg);
    return ss_out_commit(&o, err, errlen);
}

int ht_figure(struct hw *wr, struct svg_figure *f, const char *svg_prefix, char *err, size_t errlen)
{
    struct hw svg;
    if (hw_mem_open(&svg))
        return ss_errf(err, errlen, "out of memory drawing figure %s", f->id);
    svg_fig_write(&svg, f, 0);
    hw_mem_close(&svg);
    HW_MARKF(wr, "<figure id=\"%s\">\n", f->id);
    hw_splice(wr, &svg);
    int rc = svg_prefix ? ht_svg_file(svg_prefix, f->id, &svg, err, errlen) : 0;
    hw_mem_free(&svg);
    if (rc == 0 && sink_fn)
        rc = sink_fn(sink_ctx, f, err, errlen);
    return rc;
}

void ht_figure_end(struct hw *wr)
{
    HW_MARK(wr, "</figure>\n");
}

void ht_meta(struct hw *wr, const cJSON *doc, const char *command, const char *requests)
{
    struct rd_head h;
    rd_head_of(doc, &h);
    HW_WRAP(wr, "<p class=\"meta\">Scenario <code>", h.scenario, "");
    HW_MARKF(wr, "</code> on %.0f × %s, seed %.0f, %.0f replication%s", h.gpus, h.gpu, h.seed,
             h.replications, h.replications > 1 ? "s (figures are means)" : "");
    if (isfinite(h.load_scale))
        HW_MARKF(wr, ", arrival rates × %g", h.load_scale);
    HW_MARK(wr, ".");
    if (command && *command)
        HW_WRAP(wr, " Made by <code>", command, "</code>.");
    if (requests && *requests) {
        HW_MARK(wr, " Run length: ");
        hw_md(wr, requests);
    }
    HW_MARK(wr, "</p>\n");
}

/* A row's first cells: the strategy's name after its swatch (style k, its place in the
 * result), then the second column's text. */
static void row_lead(struct hw *wr, int k, const cJSON *s, const char *second)
{
    HW_MARK(wr, "<tr><td class=\"l\">");
    svg_swatch(wr, k);
    HW_WRAP(wr, "", rd_name(s), "</td>");
    HW_WRAP(wr, "<td class=\"l\">", second, "</td>");
}

/* A level's columns of the metric table (core/metric.h) in an HTML table: the figures with an
 * HTML heading, each attainment preceded by its target's column (and, for tenants, the
 * verdict's). */
struct ht_cols {
    const struct mt_metric *m[MT_COLS_MAX];
    int n, verdict;
};

/* The headings after a row's leading ones, and the end of the row. */
static void ht_metric_head(struct hw *wr, const struct ht_cols *c)
{
    for (int k = 0; k < c->n; k++) {
        if (c->m[k]->sla_key) {
            HW_WRAP(wr, "<th>", c->m[k]->html_sla_head, "</th>");
            if (c->verdict)
                HW_MARK(wr, "<th class=\"l\">SLA</th>");
        }
        HW_WRAP(wr, "<th>", c->m[k]->html_head, "</th>");
    }
    HW_MARK(wr, "</tr>\n");
}

/* The tenant's verdict, as every other output gives it (core/verdict.h): "✓ meets" or "✗" and
 * the first reason; "none" without an SLA ("overloaded" when it is unstable). */
static void verdict_cell(struct hw *wr, const struct scenario *sc, const cJSON *doc, const cJSON *t)
{
    struct vd_verdict v;
    vd_judge_json(sc, doc, t, &v);
    if (!v.has_sla)
        HW_MARK2(wr, rd_stable(t) == 0, "<td class=\"l miss\">overloaded</td>",
                 "<td class=\"l\">none</td>");
    else if (v.meets)
        HW_MARK(wr, "<td class=\"l ok\">✓ meets</td>");
    else
        HW_WRAP(wr, "<td class=\"l miss\">✗ ", v.reason, "</td>");
}

/* obj's cells (a tenant or a strategy of doc; sc gives the targets), and the end of the row. */
static void ht_metric_cells(struct hw *wr, const struct ht_cols *c, const struct scenario *sc,
                            const cJSON *doc, const cJSON *obj)
{
    for (int k = 0; k < c->n; k++) {
        const struct mt_metric *m = c->m[k];
        if (m->sla_key) {
            double sla = vj_sla_ms(sc, doc, rd_name(obj), m->sla_key);
            ht_td(wr, sla, 1, "%.0f");
            if (c->verdict)
                verdict_cell(wr, sc, doc, obj);
        }
        ht_td(wr, mt_doc(m, obj, 0), m->show_scale, m->doc_fmt);
    }
    HW_MARK(wr, "</tr>\n");
}

/* A level's table: a row per (strategy, tenant), per (strategy, LLM tenant) or per strategy. */
static void level_table(struct hw *wr, const cJSON *doc, const struct scenario *sc,
                        enum mt_level level)
{
    static const char *const cls[MT_LEVELS] = {"tenants", "strategies", "llm"};
    struct ht_cols c;
    c.n = mt_columns(level, MT_HTML, c.m);
    c.verdict = level == MT_TENANT;
    HW_MARKF(wr, "<table class=\"%s\">\n<tr><th class=\"l\">strategy</th><th class=\"l\">%s</th>",
             cls[level], level == MT_STRATEGY ? "kind" : "tenant");
    ht_metric_head(wr, &c);
    const cJSON *s, *t;
    int k = 0;
    RD_EACH_STRATEGY(s, doc)
    {
        if (level == MT_STRATEGY) {
            row_lead(wr, k, s, rd_kind(s));
            ht_metric_cells(wr, &c, NULL, doc, s);
        }
        RD_EACH_TENANT(t, s)
        {
            if (level == MT_STRATEGY || (level == MT_LLM && !rd_is_llm(t)))
                continue;
            row_lead(wr, k, s, rd_name(t));
            ht_metric_cells(wr, &c, sc, doc, t);
        }
        k++;
    }
    HW_MARK(wr, "</table>\n");
}

void ht_result_tables(struct hw *wr, const cJSON *doc, const struct scenario *sc)
{
    HW_MARK(wr, "<h3>Every tenant under every strategy</h3>\n");
    level_table(wr, doc, sc, MT_TENANT);
    /* The LLM services' token figures (docs/llm.md#results), only with LLM tenants. */
    if (rd_has_llm(doc)) {
        HW_MARK(wr, "<h3>LLM services: tokens</h3>\n");
        level_table(wr, doc, sc, MT_LLM);
    }
    HW_MARK(wr, "<h3>Every strategy</h3>\n");
    level_table(wr, doc, NULL, MT_STRATEGY);
}

void ht_notes(struct hw *wr, const cJSON *notes)
{
    const cJSON *n;
    if (cJSON_GetArraySize(notes) == 0)
        return;
    HW_MARK(wr, "<h2 id=\"notes\">Notes</h2>\n");
    cJSON_ArrayForEach(n, notes)
    {
        HW_MDWRAP(wr, "<p>", cJSON_IsString(n) ? n->valuestring : "", "</p>\n");
    }
}
