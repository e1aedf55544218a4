/*
 * htsweep — a sweep's part of a study page (htpage.h): each chosen metric against the swept
 * value, one panel per tenant with its SLA (one line per SLA value when a parameter swept
 * beside the x axis sets it) and a ring where each strategy's curve crosses it, the table of
 * where each strategy first breaks each tenant's SLA, and the table of every result.
 */
#include "report/html.h"
#include "report/htint.h"
#include "report/htpage.h"
#include "core/rdoc.h"
#include "core/verdict.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- crossings ---------------------------------------------------------------------------- */

enum cross { CR_HOLDS, CR_BREAKS, CR_FROM_START };

/* Where the curve (x ascending) first goes above sla: interpolated on the axes as drawn. */
static enum cross crossing(const double *x, const double *y, int n, double sla, int xlog, int ylog,
                           double *xc)
{
    for (int k = 0; k < n; k++) {
        if (!(y[k] > sla))
            continue;
        if (k == 0) {
            *xc = x[0];
            return CR_FROM_START;
        }
        double ya = ylog ? log10(y[k - 1]) : y[k - 1], yb = ylog ? log10(y[k]) : y[k];
        double ys = ylog ? log10(sla) : sla;
        double xa = xlog ? log10(x[k - 1]) : x[k - 1], xb = xlog ? log10(x[k]) : x[k];
        double t = yb > ya ? (ys - ya) / (yb - ya) : 1;
        double v = xa + t * (xb - xa);
        *xc = xlog ? pow(10, v) : v;
        return CR_BREAKS;
    }
    if (n > 0)
        *xc = x[n - 1];
    return CR_HOLDS;
}

/* ---- figures: a metric against the swept value ---------------------------------------------- */

struct cross_cell {
    enum cross kind;
    double x;
    int sla;
};

/* The values of one series (strategy k, rest r; tenant t or the strategy) in x order. */
static int series_points(const struct page *pg, const struct ht_metric *m, int k, int r,
                         const char *tenant, double *x, double *y, unsigned char *hollow)
{
    int n = 0;
    for (int q = 0; q < pg->st->n_docs; q++) {
        int d = pg->order[q];
        if (ht_pg_rest(pg, d) != r)
            continue;
        const cJSON *doc = pg->st->docs[d];
        const cJSON *s = rd_strategy(doc, pg->strat[k]);
        if (!s)
            continue;
        const cJSON *t = tenant ? rd_tenant(s, tenant) : NULL;
        if (tenant && !t)
            continue;
        double v = ht_metric_value(m, s, t);
        if (!isfinite(v))
            continue;
        x[n] = pg->ax.x[d];
        y[n] = v;
        if (tenant) { /* open: this tenant misses its SLA there (core/verdict.h) */
            struct vd_verdict v;
            vd_judge_json(pg->st->sc, doc, t, &v);
            hollow[n] = !v.meets;
        } else {
            struct vj_strategy j;
            vj_judge_strategy(pg->st->sc, doc, s, &j);
            hollow[n] = !j.meets;
        }
        n++;
    }
    return n;
}

/* Does the tenant set an SLA under this key in some result of the page? */
static int tenant_has_sla(const struct page *pg, const char *tenant, const char *key)
{
    for (int d = 0; key && d < pg->st->n_docs; d++)
        if (isfinite(vj_sla_ms(pg->st->sc, pg->st->docs[d], tenant, key)))
            return 1;
    return 0;
}

static void crossing_table(struct hw *wr, const struct page *pg, struct cross_cell *cells)
{
    static const char *const how[] = {"holds to", "breaks at", "misses from"}; /* enum cross */
    HW_MARK(wr, "<table class=\"crossings\">\n<tr><th class=\"l\">strategy</th>");
    for (int i = 0; i < pg->n_ten; i++)
        HW_WRAP(wr, "<th>", pg->ten[i], "</th>");
    HW_MARK(wr, "</tr>\n");
    for (int r = 0; r < pg->n_rest; r++)
        for (int k = 0; k < pg->n_strat; k++) {
            char lab[200], v[64];
            ht_pg_label(pg, k, r, lab, sizeof lab);
            HW_MARK(wr, "<tr><td class=\"l\">");
            svg_swatch(wr, ht_pg_style(pg, k, r));
            HW_WRAP(wr, "", lab, "</td>");
            for (int i = 0; i < pg->n_ten; i++) {
                struct cross_cell *c = &cells[(r * pg->n_strat + k) * pg->n_ten + i];
                ht_axis_value(&pg->ax, c->x, v, sizeof v);
                if (!c->sla)
                    HW_MARK(wr, "<td>no SLA</td>");
                else
                    HW_MARKF(wr, "<td class=\"%s\">%s %s</td>", c->kind == CR_HOLDS ? "ok" : "miss",
                             how[c->kind], v);
            }
            HW_MARK(wr, "</tr>\n");
        }
    HW_MARK(wr, "</table>\n");
}

/* The words of an SLA key: "p99", "TTFT p99", "TPOT p99". */
static const char *sla_what(const char *key)
{
    static const char *const words[][2] = {
        {"p99_ms", "p99"}, {"ttft_p99_ms", "TTFT p99"}, {"tpot_p99_ms", "TPOT p99"}};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (strcmp(words[k][0], key) == 0)
            return words[k][1];
    return "target";
}

/* A token metric (TTFT, TPOT): only an LLM service has one. */
static int token_metric(const struct ht_metric *m)
{
    return strncmp(m->name, "ttft", 4) == 0 || strncmp(m->name, "tpot", 4) == 0;
}

/* The unit of a latency metric's axis over every tenant drawn: seconds when some tenant's SLA
 * (or, with none, some value) is a second or more. Returns the divisor from ms. */
static double sweep_unit(const struct page *pg, const struct ht_metric *m, char *unit, size_t n)
{
    double sla = -INFINITY, hi = -INFINITY;
    for (int i = 0; i < pg->n_ten && m->latency && strcmp(m->unit, "ms") == 0; i++)
        for (int d = 0; d < pg->st->n_docs; d++) {
            double v =
                m->sla_key ? vj_sla_ms(pg->st->sc, pg->st->docs[d], pg->ten[i], m->sla_key) : NAN;
            if (isfinite(v) && v > sla)
                sla = v;
            const cJSON *s;
            RD_EACH_STRATEGY(s, pg->st->docs[d])
            {
                double y = ht_metric_value(m, s, rd_tenant(s, pg->ten[i]));
                if (isfinite(y) && y > hi)
                    hi = y;
            }
        }
    int secs = m->latency && strcmp(m->unit, "ms") == 0 &&
               strcmp(ht_latency_unit(isfinite(sla) ? sla : NAN, hi), "s") == 0;
    snprintf(unit, n, "%s", secs ? "s" : m->unit);
    return secs ? 1000 : 1;
}

static int sweep_figure(struct hw *wr, const struct page *pg, const struct ht_metric *m, char *err,
                        size_t errlen)
{
    struct svg_figure f;
    char id[96], title[300], ylab[128], unit[16];
    snprintf(id, sizeof id, "%s-vs-%s", m->fig, pg->param_sweep ? "param" : "load");
    double div = sweep_unit(pg, m, unit, sizeof unit);
    snprintf(ylab, sizeof ylab, "%s%s%s%s", m->label, unit[0] ? " (" : "", unit,
             unit[0] ? ")" : "");
    snprintf(title, sizeof title, "%.100s against %.100s%s", ylab, pg->ax.label,
             m->level == HT_TENANT ? " (one panel per tenant)" : "");
    int npan = m->level == HT_TENANT ? pg->n_ten : 1, nser = pg->n_strat * pg->n_rest;
    svg_fig_init(&f, id, title, 3, npan <= 2 ? BIG_W : PANEL_W, npan <= 2 ? BIG_H : PANEL_H);
    struct cross_cell *cells = ss_xcalloc((size_t)(nser * pg->n_ten + 1), sizeof *cells);
    int crosses = m->latency && m->sla_key && strcmp(m->sla_key, m->name) == 0, drawn = 0;
    int n = pg->st->n_docs;
    double *x = ss_xcalloc((size_t)n, sizeof *x), *y = ss_xcalloc((size_t)n, sizeof *y);
    unsigned char *hol = ss_xcalloc((size_t)n, 1);
    for (int i = 0; i < npan; i++) {
        struct svg_panel *p = svg_fig_panel(&f);
        if (!p)
            break;
        const char *tenant = m->level == HT_TENANT ? pg->ten[i] : NULL;
        snprintf(p->title, sizeof p->title, "%s", tenant ? tenant : "every strategy");
        snprintf(p->xlabel, sizeof p->xlabel, "%s", pg->ax.label);
        snprintf(p->ylabel, sizeof p->ylabel, "%s", ylab);
        snprintf(p->metric, sizeof p->metric, "%s", m->name);
        p->latency = m->latency;
        if (tenant) {
            snprintf(p->tenant, sizeof p->tenant, "%s", tenant);
            p->llm = ht_pg_is_llm(pg, tenant);
        }
        /* Left out, and the figure says why: a token metric of a tenant that has no tokens, and
         * the whole-request latency of an LLM service that sets no target on it. */
        if (tenant && token_metric(m) && !p->llm) {
            snprintf(p->empty_why, sizeof p->empty_why, "not an LLM service, so no tokens to time");
            continue;
        }
        if (tenant && m->latency && !token_metric(m) && p->llm &&
            !tenant_has_sla(pg, tenant, m->sla_key)) {
            snprintf(p->empty_why, sizeof p->empty_why,
                     "an LLM service with no p99 target on whole requests (judged on its TTFT "
                     "and TPOT, drawn against the same axis)");
            continue;
        }
        snprintf(p->empty_why, sizeof p->empty_why, "no value in any result");
        p->xa = !pg->ax.numeric ? SVG_CAT : pg->ax.log ? SVG_LOG : SVG_LIN;
        for (int c = 0; c < pg->ax.n_cats; c++)
            for (int d = 0; d < n; d++)
                if ((int)pg->ax.x[d] == c) {
                    svg_cat(p, pg->ax.text[d]);
                    break;
                }
        /* The y axis is logarithmic when the values span decades. */
        double all[HT_MAX_DOCS];
        int na = 0;
        /* The SLA of each series: a parameter swept beside the x axis may set it. */
        double sla = NAN, sla_r[MAX_NAMES];
        for (int r = 0; r < pg->n_rest; r++) {
            sla_r[r] = NAN;
            for (int d = 0; d < n && tenant && m->sla_key && !isfinite(sla_r[r]); d++)
                if (ht_pg_rest(pg, d) == r)
                    sla_r[r] = vj_sla_ms(pg->st->sc, pg->st->docs[d], tenant, m->sla_key) / div;
            if (isfinite(sla_r[r]) && !(sla_r[r] <= sla))
                sla = sla_r[r];
        }
        for (int k = 0; k < pg->n_strat; k++)
            for (int r = 0; r < pg->n_rest; r++) {
                int c = series_points(pg, m, k, r, tenant, x, y, hol);
                for (int q = 0; q < c && na < HT_MAX_DOCS; q++)
                    all[na++] = y[q] / div;
            }
        /* A point far beyond the SLA (an overloaded run, limited only by its length) would
         * squash everything near the SLA into the floor: the axis stops at 30 × the SLA and
         * such points sit on its top edge with their value. */
        int capped = 0;
        if (m->latency && isfinite(sla))
            for (int q = 0; q < na; q++)
                if (all[q] > CAP * sla) {
                    all[q] = CAP * sla;
                    capped = 1;
                }
        if (isfinite(sla) && na < HT_MAX_DOCS)
            all[na++] = sla;
        p->ya = svg_auto_axis(all, na);
        if (capped)
            p->ymax = CAP * sla;
        for (int r = 0; r < pg->n_rest; r++)
            for (int k = 0; k < pg->n_strat; k++) {
                int c = series_points(pg, m, k, r, tenant, x, y, hol);
                for (int q = 0; q < c; q++)
                    y[q] /= div;
                char lab[200];
                ht_pg_label(pg, k, r, lab, sizeof lab);
                if (c == 0)
                    continue;
                svg_add(p, lab, ht_pg_style(pg, k, r), c, x, y, hol);
                svg_fig_legend(&f, lab, ht_pg_style(pg, k, r), 0);
                drawn++;
                if (crosses && isfinite(sla_r[r])) {
                    struct cross_cell *cc = &cells[(r * pg->n_strat + k) * pg->n_ten + i];
                    cc->sla = 1;
                    cc->kind =
                        crossing(x, y, c, sla_r[r], p->xa == SVG_LOG, p->ya == SVG_LOG, &cc->x);
                    if (cc->kind == CR_BREAKS && pg->ax.numeric) {
                        char v[64];
                        ht_axis_value(&pg->ax, cc->x, v, sizeof v);
                        svg_mark(p, cc->x, sla_r[r], ht_pg_style(pg, k, r), v);
                    }
                }
            }
        if (m->latency) {
            char w[80], what[64];
            snprintf(what, sizeof what, "%s", sla_what(m->sla_key));
            if (isfinite(sla)) {
                for (int r = 0; r < pg->n_rest; r++) { /* one line per SLA value */
                    int seen = !isfinite(sla_r[r]);
                    for (int q = 0; q < r && !seen; q++)
                        seen = sla_r[q] == sla_r[r];
                    if (!seen) {
                        ht_sla_words(w, sizeof w, what, sla_r[r] * div, unit);
                        svg_ref(p, 0, sla_r[r], SVG_REF_SLA, "%s", w);
                    }
                }
                ht_sla_words(w, sizeof w, what, sla * div, unit);
                snprintf(p->note, sizeof p->note, "%s%s%s", w,
                         p->n_refs > 1 ? " (the loosest)" : "", crosses ? "" : " (for reference)");
            } else {
                snprintf(p->note, sizeof p->note, "no SLA for %s in the scenario", what);
            }
        }
    }
    int rc = 0;
    if (drawn) {
        char cap[1200];
        snprintf(cap, sizeof cap,
                 "%s. Every point is one result; lines join a strategy's results in the order of "
                 "the swept value. An open marker: %s misses its p99 SLA there. Latencies far "
                 "beyond the SLA (an overloaded run) sit on the top edge, counted in one label "
                 "per panel (↑). %s",
                 m->level == HT_TENANT ? "One panel per tenant" : "One value per strategy",
                 m->level == HT_TENANT ? "the tenant" : "some tenant",
                 crosses ? "A ring marks where a strategy's p99 crosses the tenant's SLA (the "
                           "value is interpolated on the axes as drawn); the table below says "
                           "the same for every tenant."
                         : "");
        f.verdict = !*pg->figure_drawn;
        rc = ht_figure(wr, &f, pg->st->svg_prefix, err, errlen);
        *pg->figure_drawn = 1;
        HW_WRAP(wr, "<figcaption>", cap, "</figcaption>\n");
        ht_figure_end(wr);
        if (rc == 0 && crosses && ht_pg_has_sla(pg, "p99_ms")) {
            HW_MARK(wr, "<p>Where each strategy first breaks each tenant's p99 SLA:</p>\n");
            crossing_table(wr, pg, cells);
        }
    } else {
        /* Nothing to draw: say so where the figure would be, with the panels' reason. */
        const char *why = f.n_panels > 0 ? f.p[0]->empty_why : "no value in any result";
        HW_WRAP(wr, "<p class=\"omitted\">No figure of ", title, ": no tenant to draw (");
        HW_WRAP(wr, "", why, ").</p>\n");
    }
    free(x);
    free(y);
    free(hol);
    free(cells);
    svg_fig_free(&f);
    return rc;
}

/* The default metrics: p99, TTFT and TPOT when a tenant has them, and cost when known. */
static void default_metrics(const struct page *pg, char *buf, size_t n)
{
    snprintf(buf, n, "p99_ms");
    static const char *const more[] = {"ttft_p99_ms", "tpot_p99_ms", "cost"};
    for (size_t k = 0; k < sizeof more / sizeof more[0]; k++) {
        const struct ht_metric *m = ht_metric(more[k]);
        int any = 0;
        for (int d = 0; d < pg->st->n_docs && !any; d++) {
            const cJSON *s, *t;
            RD_EACH_STRATEGY(s, pg->st->docs[d])
            {
                if (m->level == HT_STRATEGY)
                    any |= isfinite(ht_metric_value(m, s, NULL));
                else
                    RD_EACH_TENANT(t, s) any |= isfinite(ht_metric_value(m, s, t));
            }
        }
        if (any)
            ss_catf(buf, n, ",%s", more[k]);
    }
}

int ht_sweep_section(struct hw *wr, const struct page *pg, char *err, size_t errlen)
{
    char list[512];
    if (pg->st->metrics)
        snprintf(list, sizeof list, "%s", pg->st->metrics);
    else
        default_metrics(pg, list, sizeof list);
    if (ht_check_metrics(list, err, errlen))
        return -1;
    HW_MARKF(wr, "<h2 id=\"sweep\">Against %s</h2>\n", pg->ax.label);
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (sweep_figure(wr, pg, ht_metric(tok), err, errlen))
            return -1;
    return 0;
}

/* ---- tables ---------------------------------------------------------------------------------- */

/* The table's figures after the strategy: a strategy's own (OWN) or one over its tenants. */
#define OWN (-1)
static const struct {
    const char *head;
    enum mt_level level;
    int index, over;
    double scale;
    const char *fmt;
} sweep_cols[] = {
    {"GPUs used", MT_STRATEGY, MT_SM_GPUS_USED, OWN, 1, "%.0f"},
    {"GPU util %", MT_STRATEGY, SM_UTIL, OWN, 100, "%.1f"},
    {"thr/s", MT_STRATEGY, SM_THROUGHPUT, OWN, 1, "%.1f"},
    {"p99 ms, mean over tenants", MT_TENANT, TM_LAT_P99, RD_MEAN, 1, "%.2f"},
    {"p99 ms, worst tenant", MT_TENANT, TM_LAT_P99, RD_MAX, 1, "%.2f"},
    {"within SLA %, worst tenant", MT_TENANT, TM_SLA_ATTAINMENT, RD_MIN, 100, "%.1f"},
    {"$ per M requests", MT_STRATEGY, SM_COST_PER_MREQ, OWN, 1, "%.3f"},
};
#define N_SWEEP_COLS ((int)(sizeof sweep_cols / sizeof sweep_cols[0]))

void ht_sweep_table(struct hw *wr, const struct page *pg)
{
    HW_WRAP(wr, "<h3>Every result of the sweep</h3>\n<table class=\"sweep\">\n<tr><th>",
            pg->ax.label, "</th><th class=\"l\">strategy</th>");
    for (int c = 0; c < N_SWEEP_COLS; c++)
        HW_WRAP(wr, "<th>", sweep_cols[c].head, "</th>");
    HW_MARK(wr, "<th class=\"l\">SLAs</th></tr>\n");
    for (int q = 0; q < pg->st->n_docs; q++) {
        int d = pg->order[q];
        const cJSON *doc = pg->st->docs[d], *s;
        RD_EACH_STRATEGY(s, doc)
        {
            struct vj_strategy j;
            vj_judge_strategy(pg->st->sc, doc, s, &j);
            int si = 0;
            for (int z = 0; z < pg->n_strat; z++)
                if (strcmp(pg->strat[z], rd_name(s)) == 0)
                    si = z;
            HW_WRAP(wr, "<tr><td>", pg->ax.text[d], "");
            HW_MARK2(wr, pg->ax.rest[d][0], " · ", "");
            HW_WRAP(wr, "", pg->ax.rest[d], "</td><td class=\"l\">");
            svg_swatch(wr, ht_pg_style(pg, si, ht_pg_rest(pg, d)));
            HW_WRAP(wr, "", rd_name(s), "</td>");
            for (int c = 0; c < N_SWEEP_COLS; c++) {
                int over = sweep_cols[c].over, at = sweep_cols[c].index;
                enum mt_level lv = sweep_cols[c].level;
                ht_td(wr, over == OWN ? rd_fig(s, lv, at) : rd_over_tenants(s, lv, at, over),
                      sweep_cols[c].scale, sweep_cols[c].fmt);
            }
            if (j.n_sla == 0 && j.meets)
                HW_MARK(wr, "<td class=\"l\">none</td>");
            else if (j.meets)
                HW_MARK(wr, "<td class=\"l ok\">✓ all met</td>");
            else
                HW_WRAP(wr, "<td class=\"l miss\">✗ ", j.miss, "</td>");
            HW_MARK(wr, "</tr>\n");
        }
    }
    HW_MARK(wr, "</table>\n");
}
