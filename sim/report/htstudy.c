/*
 * htstudy — one study's page (html.h): the question, the verdict in one sentence, then
 *   - the latency distribution of every tenant, one panel per tenant (nothing pooled), each
 *     with its SLA line (from `run --cdf`);
 *   - for a sweep (several results: `--scale-load` or `sharesim sweep` points), each chosen
 *     metric against the swept value, one panel per tenant with its SLA and the point where
 *     each strategy crosses it, and cost per million requests;
 *   - utilisation and p99 against tenants per GPU when the strategies differ in density;
 *   - MIG layouts as slice grids (htmig.c); a cluster result's allocation and fragmentation;
 *   - the tables.
 * A strategy keeps its style (colour, dash, marker) in every figure and table of the page.
 */
#include "report/html.h"
#include "report/htint.h"
#include "report/rtable.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 48
#define PANEL_W 390
#define PANEL_H 280
#define BIG_W 540 /* a figure of one or two panels */
#define BIG_H 340
/* The distributions are drawn from the 5th percentile: below it is the fastest twentieth of
 * requests, which no SLA is about, and on a log axis it would stretch the x range by decades. */
#define CDF_FROM 0.05
#define CAP 30 /* latency axes of a sweep stop at CAP × the SLA */

struct page {
    const struct ht_study *st;
    const cJSON *doc;
    int sweep, param_sweep;
    struct ht_axis ax;
    int *order; /* docs in x order */
    int n_strat, n_ten, n_rest;
    char strat[MAX_NAMES][64], ten[MAX_NAMES][64];
    char *rest[MAX_NAMES];
    /* per strategy × rest, in x order: does every tenant meet its SLA? (for the verdict) */
};

static int has_sla_any(const struct page *pg, const char *key)
{
    for (int i = 0; i < pg->n_ten; i++)
        if (isfinite(ht_sla_ms(pg->st->sc, pg->doc, pg->ten[i], key)))
            return 1;
    return 0;
}

static const cJSON *tenant_of(const cJSON *s, const char *name)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "tenants"))
    {
        if (strcmp(ht_str(t, "name"), name) == 0)
            return t;
    }
    return NULL;
}

static void fmt_ms(char *buf, size_t n, double ms)
{
    if (ms >= 1000)
        snprintf(buf, n, "%.2f s", ms / 1000);
    else if (ms >= 10)
        snprintf(buf, n, "%.0f ms", ms);
    else
        snprintf(buf, n, "%.1f ms", ms);
}

/* ---- setting up ------------------------------------------------------------------------- */

static int x_cmp_ctx_n;
static const double *x_cmp_ctx;
static int by_x(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    double xi = x_cmp_ctx[i], xj = x_cmp_ctx[j];
    return xi < xj ? -1 : xi > xj ? 1 : i - j;
}

static int page_init(struct page *pg, const struct ht_study *st, char *err, size_t errlen)
{
    memset(pg, 0, sizeof *pg);
    pg->st = st;
    pg->doc = st->docs[0];
    const cJSON *s, *t;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(pg->doc, "strategies"))
    {
        if (pg->n_strat < MAX_NAMES)
            snprintf(pg->strat[pg->n_strat++], 64, "%s", ht_str(s, "name"));
    }
    s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pg->doc, "strategies"), 0);
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "tenants"))
    {
        if (pg->n_ten < MAX_NAMES)
            snprintf(pg->ten[pg->n_ten++], 64, "%s", ht_str(t, "name"));
    }
    if (ht_axis_make(st->sc, st->docs, st->n_docs, &pg->ax, err, errlen))
        return -1;
    pg->param_sweep = strcmp(pg->ax.path, "load_scale") != 0;
    pg->order = ss_xcalloc((size_t)st->n_docs, sizeof *pg->order);
    for (int k = 0; k < st->n_docs; k++)
        pg->order[k] = k;
    x_cmp_ctx = pg->ax.x;
    x_cmp_ctx_n = st->n_docs;
    qsort(pg->order, (size_t)st->n_docs, sizeof *pg->order, by_x);
    for (int k = 0; k < st->n_docs; k++) {
        int r = -1;
        for (int q = 0; q < pg->n_rest && r < 0; q++)
            if (strcmp(pg->rest[q], pg->ax.rest[k]) == 0)
                r = q;
        if (r < 0 && pg->n_rest < MAX_NAMES)
            pg->rest[pg->n_rest++] = pg->ax.rest[k];
        for (int j = 0; j < k; j++)
            if (pg->ax.x[j] == pg->ax.x[k] && strcmp(pg->ax.rest[j], pg->ax.rest[k]) == 0)
                return ss_errf(err, errlen, "results %d and %d are both at %s = %s", j + 1, k + 1,
                               pg->ax.path, pg->ax.text[k]);
        if (k > 0 && pg->ax.x[k] != pg->ax.x[0])
            pg->sweep = 1;
    }
    return 0;
}

static void page_free(struct page *pg)
{
    ht_axis_free(&pg->ax);
    free(pg->order);
}

static int rest_index(const struct page *pg, int doc)
{
    for (int q = 0; q < pg->n_rest; q++)
        if (strcmp(pg->rest[q], pg->ax.rest[doc]) == 0)
            return q;
    return 0;
}

static int style_of(const struct page *pg, int strategy, int rest)
{
    return strategy + pg->n_strat * rest;
}

static void series_label(const struct page *pg, int strategy, int rest, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", pg->strat[strategy], pg->rest[rest][0] ? " · " : "", pg->rest[rest]);
}

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

/* ---- figures: latency distributions ---------------------------------------------------------- */

static void sla_words(char *buf, size_t n, const char *what, double sla)
{
    char v[32];
    fmt_ms(v, sizeof v, sla);
    snprintf(buf, n, "SLA: %.20s ≤ %.20s", what, v);
}

static int cdf_figure(FILE *fp, const struct page *pg, char *err, size_t errlen)
{
    struct ht_cdf cdf;
    if (ht_cdf_load(pg->st->cdf_path, 0, &cdf, err, errlen))
        return -1;
    struct svg_figure f;
    int big = pg->n_ten <= 2;
    svg_fig_init(&f, "cdf", "Latency distribution of each tenant (one panel per tenant)", 3,
                 big ? BIG_W : PANEL_W, big ? BIG_H : PANEL_H);
    int drawn = 0;
    for (int i = 0; i < pg->n_ten; i++) {
        struct svg_panel *p = svg_fig_panel(&f);
        if (!p)
            break;
        snprintf(p->title, sizeof p->title, "%s", pg->ten[i]);
        snprintf(p->xlabel, sizeof p->xlabel, "latency (ms)");
        snprintf(p->ylabel, sizeof p->ylabel, "requests at or below (%%)");
        p->ya = SVG_TAIL;
        p->latency = 1;
        double lo = INFINITY, hi = 0;
        for (int k = 0; k < pg->n_strat; k++) {
            const struct ht_cdf_row *r = ht_cdf_find(&cdf, pg->strat[k], pg->ten[i]);
            for (int q = 0; r && q < r->n; q++)
                if (r->p[q] >= CDF_FROM && r->p[q] <= 0.9999 && r->ms[q] > 0) {
                    lo = r->ms[q] < lo ? r->ms[q] : lo;
                    hi = r->ms[q] > hi ? r->ms[q] : hi;
                }
        }
        double sla = ht_sla_ms(pg->st->sc, pg->doc, pg->ten[i], "p99_ms");
        if (isfinite(sla)) {
            lo = sla < lo ? sla : lo;
            hi = sla > hi ? sla : hi;
        }
        p->xa = lo > 0 && hi / lo >= 30 ? SVG_LOG : SVG_LIN;
        for (int k = 0; k < pg->n_strat; k++) {
            const struct ht_cdf_row *r = ht_cdf_find(&cdf, pg->strat[k], pg->ten[i]);
            if (!r)
                continue;
            double x[128], y[128];
            int n = 0;
            for (int q = 0; q < r->n; q++)
                if (r->p[q] >= CDF_FROM && r->p[q] <= 0.9999) {
                    x[n] = r->ms[q];
                    y[n++] = r->p[q];
                }
            struct svg_series *s = svg_add(p, pg->strat[k], style_of(pg, k, 0), n, x, y, NULL);
            if (s)
                s->marker_every = 12;
            drawn++;
        }
        svg_ref(p, 0, 0.99, SVG_REF_GUIDE, "99 %%");
        if (isfinite(sla)) {
            char w[64];
            sla_words(w, sizeof w, "p99", sla);
            svg_ref(p, 1, sla, SVG_REF_SLA, "%s", w);
            snprintf(p->note, sizeof p->note, "%s", w);
        } else {
            snprintf(p->note, sizeof p->note, "no SLA in the scenario");
        }
    }
    for (int k = 0; k < pg->n_strat; k++)
        svg_fig_legend(&f, pg->strat[k], style_of(pg, k, 0), 0);
    int rc = 0;
    if (drawn) {
        fputs("<h2 id=\"latency\">Latency of each tenant</h2>\n", fp);
        rc = ht_figure(
            fp, &f,
            "One panel per tenant; every strategy in each panel. Across: latency (a log scale "
            "where it spans decades). Up: the share of the tenant's requests at or below that "
            "latency from the 5th percentile on, stretched toward the tail (50, 90, 99, 99.9 %). "
            "A strategy meets the "
            "tenant's SLA when its curve crosses the dotted 99 % line left of the dashed black "
            "SLA line. Curves that coincide are drawn once and the panel names them (\"same "
            "curve\").",
            pg->st->svg_prefix, err, errlen);
    }
    svg_fig_free(&f);
    ht_cdf_free(&cdf);
    return rc;
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
        if (rest_index(pg, d) != r)
            continue;
        const cJSON *doc = pg->st->docs[d];
        const cJSON *s = rt_strategy(doc, pg->strat[k]);
        if (!s)
            continue;
        const cJSON *t = tenant ? tenant_of(s, tenant) : NULL;
        if (tenant && !t)
            continue;
        double v = ht_metric_value(m, s, t);
        if (!isfinite(v))
            continue;
        x[n] = pg->ax.x[d];
        y[n] = v;
        if (tenant) {
            double sla = ht_sla_ms(pg->st->sc, doc, tenant, "p99_ms");
            double p99 = ht_path_num(t, "latency_ms.p99");
            hollow[n] = isfinite(sla) && !(p99 <= sla);
        } else {
            struct ht_judge j;
            ht_judge(pg->st->sc, doc, s, &j);
            hollow[n] = !j.meets;
        }
        n++;
    }
    return n;
}

static void metric_ylabel(const struct ht_metric *m, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s%s", m->label, m->unit[0] ? " (" : "", m->unit, m->unit[0] ? ")" : "");
}

static void crossing_table(FILE *fp, const struct page *pg, const struct ht_metric *m,
                           struct cross_cell *cells)
{
    fprintf(fp, "<table class=\"crossings\">\n<tr><th class=\"l\">strategy</th>");
    for (int i = 0; i < pg->n_ten; i++) {
        fputs("<th>", fp);
        ht_esc(fp, pg->ten[i]);
        fputs("</th>", fp);
    }
    fputs("</tr>\n", fp);
    for (int r = 0; r < pg->n_rest; r++)
        for (int k = 0; k < pg->n_strat; k++) {
            char lab[200], v[64];
            series_label(pg, k, r, lab, sizeof lab);
            fputs("<tr><td class=\"l\">", fp);
            svg_swatch(fp, style_of(pg, k, r));
            ht_esc(fp, lab);
            fputs("</td>", fp);
            for (int i = 0; i < pg->n_ten; i++) {
                struct cross_cell *c = &cells[(r * pg->n_strat + k) * pg->n_ten + i];
                ht_axis_value(&pg->ax, c->x, v, sizeof v);
                if (!c->sla)
                    fputs("<td>no SLA</td>", fp);
                else if (c->kind == CR_HOLDS)
                    fprintf(fp, "<td class=\"ok\">holds to %s</td>", v);
                else if (c->kind == CR_BREAKS)
                    fprintf(fp, "<td class=\"miss\">breaks at %s</td>", v);
                else
                    fprintf(fp, "<td class=\"miss\">misses from %s</td>", v);
            }
            fputs("</tr>\n", fp);
        }
    fputs("</table>\n", fp);
    (void)m;
}

static int sweep_figure(FILE *fp, const struct page *pg, const struct ht_metric *m, char *err,
                        size_t errlen)
{
    struct svg_figure f;
    char id[96], title[300], ylab[128];
    snprintf(id, sizeof id, "%s-vs-%s", m->fig, pg->param_sweep ? "param" : "load");
    metric_ylabel(m, ylab, sizeof ylab);
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
        p->latency = m->latency;
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
                if (rest_index(pg, d) == r)
                    sla_r[r] = ht_sla_ms(pg->st->sc, pg->st->docs[d], tenant, m->sla_key);
            if (isfinite(sla_r[r]) && !(sla_r[r] <= sla))
                sla = sla_r[r];
        }
        for (int k = 0; k < pg->n_strat; k++)
            for (int r = 0; r < pg->n_rest; r++) {
                int c = series_points(pg, m, k, r, tenant, x, y, hol);
                for (int q = 0; q < c && na < HT_MAX_DOCS; q++)
                    all[na++] = y[q];
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
                char lab[200];
                series_label(pg, k, r, lab, sizeof lab);
                if (c == 0)
                    continue;
                svg_add(p, lab, style_of(pg, k, r), c, x, y, hol);
                svg_fig_legend(&f, lab, style_of(pg, k, r), 0);
                drawn++;
                if (crosses && isfinite(sla_r[r])) {
                    struct cross_cell *cc = &cells[(r * pg->n_strat + k) * pg->n_ten + i];
                    cc->sla = 1;
                    cc->kind =
                        crossing(x, y, c, sla_r[r], p->xa == SVG_LOG, p->ya == SVG_LOG, &cc->x);
                    if (cc->kind == CR_BREAKS && pg->ax.numeric) {
                        char v[64];
                        ht_axis_value(&pg->ax, cc->x, v, sizeof v);
                        svg_mark(p, cc->x, sla_r[r], style_of(pg, k, r), v);
                    }
                }
            }
        if (m->latency) {
            char w[80], what[64];
            snprintf(what, sizeof what, "%s",
                     strcmp(m->sla_key, "p99_ms") == 0 ? "p99" : m->sla_key);
            if (isfinite(sla)) {
                for (int r = 0; r < pg->n_rest; r++) { /* one line per SLA value */
                    int seen = !isfinite(sla_r[r]);
                    for (int q = 0; q < r && !seen; q++)
                        seen = sla_r[q] == sla_r[r];
                    if (!seen) {
                        sla_words(w, sizeof w, what, sla_r[r]);
                        svg_ref(p, 0, sla_r[r], SVG_REF_SLA, "%s", w);
                    }
                }
                sla_words(w, sizeof w, what, sla);
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
                 "the swept value. An open marker: %s misses its p99 SLA there. A latency far "
                 "beyond the SLA (an overloaded run) sits on the top edge with its value (↑). %s",
                 m->level == HT_TENANT ? "One panel per tenant" : "One value per strategy",
                 m->level == HT_TENANT ? "the tenant" : "some tenant",
                 crosses ? "A ring marks where a strategy's p99 crosses the tenant's SLA (the "
                           "value is interpolated on the axes as drawn); the table below says "
                           "the same for every tenant."
                         : "");
        rc = ht_figure(fp, &f, cap, pg->st->svg_prefix, err, errlen);
        if (rc == 0 && crosses && has_sla_any(pg, "p99_ms")) {
            fputs("<p>Where each strategy first breaks each tenant's p99 SLA:</p>\n", fp);
            crossing_table(fp, pg, m, cells);
        }
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
            cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(pg->st->docs[d], "strategies"))
            {
                if (m->level == HT_STRATEGY)
                    any |= isfinite(ht_metric_value(m, s, NULL));
                else
                    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "tenants")) any |=
                        isfinite(ht_metric_value(m, s, t));
            }
        }
        if (any) {
            size_t len = strlen(buf);
            snprintf(buf + len, n - len, ",%s", more[k]);
        }
    }
}

static int sweep_section(FILE *fp, const struct page *pg, char *err, size_t errlen)
{
    char list[512];
    if (pg->st->metrics)
        snprintf(list, sizeof list, "%s", pg->st->metrics);
    else
        default_metrics(pg, list, sizeof list);
    if (ht_check_metrics(list, err, errlen))
        return -1;
    fprintf(fp, "<h2 id=\"sweep\">Against %s</h2>\n", pg->ax.label);
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (sweep_figure(fp, pg, ht_metric(tok), err, errlen))
            return -1;
    return 0;
}

/* ---- figures: density ---------------------------------------------------------------------- */

/* How many different tenants-per-GPU values the strategies have: the density figure is
 * drawn for a ladder of at least three. */
static int density_distinct(const cJSON *doc)
{
    double v[MAX_NAMES];
    int n = 0, distinct = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        double used = rt_num(s, "gpus_used");
        if (n == MAX_NAMES || !(used > 0))
            continue;
        v[n] = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "tenants")) / used;
        int seen = 0;
        for (int q = 0; q < n; q++)
            seen |= v[q] == v[n];
        distinct += !seen;
        n++;
    }
    return distinct;
}

static int density_figure(FILE *fp, const struct page *pg, char *err, size_t errlen)
{
    double tpg[MAX_NAMES], util[MAX_NAMES], sw[MAX_NAMES], worst[MAX_NAMES], mean[MAX_NAMES];
    int idx[MAX_NAMES], n = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(pg->doc, "strategies"))
    {
        double used = rt_num(s, "gpus_used");
        int nt = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "tenants"));
        if (n == MAX_NAMES || !(used > 0))
            continue;
        tpg[n] = nt / used;
        util[n] = rt_num(s, "gpu_utilization") * 100;
        sw[n] = rt_num(s, "switch_overhead") * 100;
        worst[n] = -INFINITY;
        mean[n] = rt_tenant_mean(s, "latency_ms.p99");
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "tenants"))
        {
            double v = ht_path_num(t, "latency_ms.p99");
            worst[n] = v > worst[n] ? v : worst[n];
        }
        idx[n] = n;
        n++;
    }
    for (int a = 1; a < n; a++) /* x order */
        for (int b = a; b > 0 && tpg[idx[b]] < tpg[idx[b - 1]]; b--) {
            int t = idx[b];
            idx[b] = idx[b - 1];
            idx[b - 1] = t;
        }
    double X[MAX_NAMES], U[MAX_NAMES], S[MAX_NAMES], W[MAX_NAMES], M[MAX_NAMES];
    for (int q = 0; q < n; q++) {
        X[q] = tpg[idx[q]];
        U[q] = util[idx[q]];
        S[q] = sw[idx[q]];
        W[q] = worst[idx[q]];
        M[q] = mean[idx[q]];
    }
    struct svg_figure f;
    svg_fig_init(&f, "util-vs-tenants", "Utilisation and p99 against tenants per GPU", 2,
                 PANEL_W + 80, PANEL_H);
    struct svg_panel *p = svg_fig_panel(&f);
    snprintf(p->title, sizeof p->title, "GPU time");
    snprintf(p->xlabel, sizeof p->xlabel, "tenants per GPU");
    snprintf(p->ylabel, sizeof p->ylabel, "share of the GPU (%%)");
    svg_add(p, "useful work", 0, n, X, U, NULL);
    svg_add(p, "context switching", 1, n, X, S, NULL);
    p = svg_fig_panel(&f);
    snprintf(p->title, sizeof p->title, "p99 latency");
    snprintf(p->xlabel, sizeof p->xlabel, "tenants per GPU");
    snprintf(p->ylabel, sizeof p->ylabel, "p99 latency (ms)");
    p->latency = 1;
    double both[2 * MAX_NAMES];
    memcpy(both, W, (size_t)n * sizeof *W);
    memcpy(both + n, M, (size_t)n * sizeof *M);
    p->ya = svg_auto_axis(both, 2 * n);
    svg_add(p, "worst tenant", 2, n, X, W, NULL);
    svg_add(p, "mean over tenants", 3, n, X, M, NULL);
    double tight = INFINITY, loose = 0;
    for (int i = 0; i < pg->n_ten; i++) {
        double v = ht_sla_ms(pg->st->sc, pg->doc, pg->ten[i], "p99_ms");
        if (isfinite(v)) {
            tight = v < tight ? v : tight;
            loose = v > loose ? v : loose;
        }
    }
    if (isfinite(tight)) {
        char w[64];
        sla_words(w, sizeof w, "p99", tight);
        svg_ref(p, 0, tight, SVG_REF_SLA, "%s%s", w, loose > tight ? " (the tightest)" : "");
        snprintf(p->note, sizeof p->note, "%s%s", w, loose > tight ? ", the tightest" : "");
    } else {
        snprintf(p->note, sizeof p->note, "no SLA in the scenario");
    }
    svg_fig_legend(&f, "useful work", 0, 0);
    svg_fig_legend(&f, "context switching", 1, 0);
    svg_fig_legend(&f, "worst tenant's p99", 2, 0);
    svg_fig_legend(&f, "mean p99 over tenants", 3, 0);
    char cap[1200] = "One point per strategy: ";
    for (int q = 0; q < n; q++) {
        size_t len = strlen(cap);
        snprintf(cap + len, sizeof cap - len, "%s%s at %.3g", q ? ", " : "", pg->strat[idx[q]],
                 X[q]);
    }
    size_t len = strlen(cap);
    snprintf(cap + len, sizeof cap - len, " tenants per GPU.");
    fputs("<h2 id=\"density\">Tenants per GPU</h2>\n", fp);
    int rc = ht_figure(fp, &f, cap, pg->st->svg_prefix, err, errlen);
    svg_fig_free(&f);
    return rc;
}

/* ---- cluster results (docs/report.md has the shape) ---------------------------------------- */

static int cluster_section(FILE *fp, const struct page *pg, char *err, size_t errlen)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(pg->doc, "cluster");
    const cJSON *pols = cJSON_GetObjectItemCaseSensitive(c, "policies");
    if (!cJSON_IsArray(pols))
        return 0;
    struct svg_figure f;
    char xl[200];
    const char *xlab = ht_str(c, "arrived_label"), *unit = ht_str(c, "arrived_unit");
    snprintf(xl, sizeof xl, "%s%s%s%s", xlab[0] ? xlab : "workload arrived", unit[0] ? " (" : "",
             unit, unit[0] ? ")" : "");
    svg_fig_init(&f, "cluster", "Allocation and fragmentation against the arrived workload", 2,
                 PANEL_W + 80, PANEL_H);
    static const char *const keys[2] = {"allocation", "fragmentation"};
    static const char *const titles[2] = {"GPUs allocated", "GPUs fragmented"};
    for (int w = 0; w < 2; w++) {
        struct svg_panel *p = svg_fig_panel(&f);
        snprintf(p->title, sizeof p->title, "%s", titles[w]);
        snprintf(p->xlabel, sizeof p->xlabel, "%s", xl);
        snprintf(p->ylabel, sizeof p->ylabel, "%s of the cluster (%%)", keys[w]);
        int k = 0;
        const cJSON *pol;
        cJSON_ArrayForEach(pol, pols)
        {
            const cJSON *xa = cJSON_GetObjectItemCaseSensitive(pol, "arrived");
            const cJSON *ya = cJSON_GetObjectItemCaseSensitive(pol, keys[w]);
            int n = cJSON_GetArraySize(xa), m = cJSON_GetArraySize(ya);
            n = n < m ? n : m;
            double *x = ss_xcalloc((size_t)(n + 1), sizeof *x),
                   *y = ss_xcalloc((size_t)(n + 1), sizeof *y);
            for (int q = 0; q < n; q++) {
                const cJSON *a = cJSON_GetArrayItem(xa, q), *b = cJSON_GetArrayItem(ya, q);
                x[q] = cJSON_IsNumber(a) ? a->valuedouble : NAN;
                y[q] = cJSON_IsNumber(b) ? b->valuedouble * 100 : NAN;
            }
            const char *name = ht_str(pol, "name");
            struct svg_series *s = svg_add(p, name, k, n, x, y, NULL);
            if (s && n > 40)
                s->marker_every = n / 10;
            svg_fig_legend(&f, name, k, 0);
            free(x);
            free(y);
            k++;
        }
    }
    fputs("<h2 id=\"cluster\">Cluster</h2>\n", fp);
    int rc = ht_figure(fp, &f,
                       "One line per placement policy: the share of the cluster's GPUs allocated "
                       "to jobs, and the share left fragmented, as the workload arrives.",
                       pg->st->svg_prefix, err, errlen);
    svg_fig_free(&f);
    return rc;
}

/* ---- the verdict ---------------------------------------------------------------------------- */

/* Two strategies give every tenant the same latency (all figures of latency_ms equal). */
static int same_latency(const cJSON *a, const cJSON *b)
{
    const cJSON *ta = cJSON_GetObjectItemCaseSensitive(a, "tenants"), *t;
    int k = 0;
    if (cJSON_GetArraySize(ta) !=
        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(b, "tenants")))
        return 0;
    cJSON_ArrayForEach(t, ta)
    {
        const cJSON *u = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b, "tenants"), k++);
        const cJSON *la = cJSON_GetObjectItemCaseSensitive(t, "latency_ms");
        const cJSON *lb = cJSON_GetObjectItemCaseSensitive(u, "latency_ms");
        char *x = cJSON_PrintUnformatted(la), *y = cJSON_PrintUnformatted(lb);
        int same = x && y && strcmp(x, y) == 0;
        free(x);
        free(y);
        if (!same)
            return 0;
    }
    return 1;
}

/* What still tells two strategies with the same latencies apart: cost, then GPUs. */
static void same_clause(FILE *fp, const struct page *pg, const cJSON *a, const cJSON *b, int ia,
                        int ib)
{
    double ca = rt_num(a, "cost_per_million_requests_usd"),
           cb = rt_num(b, "cost_per_million_requests_usd");
    double ga = rt_num(a, "gpus_used"), gb = rt_num(b, "gpus_used");
    if (isfinite(ca) && isfinite(cb) && ca != cb) {
        fputs(", and <strong>", fp);
        ht_esc(fp, pg->strat[ca < cb ? ia : ib]);
        fprintf(fp, "</strong> costs less ($%.2f against $%.2f per million requests)",
                ca < cb ? ca : cb, ca < cb ? cb : ca);
    } else if (isfinite(ga) && isfinite(gb) && ga != gb) {
        fputs(", so <strong>", fp);
        ht_esc(fp, pg->strat[ga < gb ? ia : ib]);
        fprintf(fp, "</strong> is the better layout: it needs %.0f GPUs against %.0f",
                ga < gb ? ga : gb, ga < gb ? gb : ga);
    }
}

/* The largest x up to which strategy k (rest r) meets every SLA at every point, and the first
 * x where it does not (*miss, when miss is not NULL); -1: misses at the first, 1: holds
 * throughout. */
static int holds_to_miss(const struct page *pg, int k, int r, double *x, double *miss)
{
    int any = 0;
    for (int q = 0; q < pg->st->n_docs; q++) {
        int d = pg->order[q];
        if (rest_index(pg, d) != r)
            continue;
        const cJSON *s = rt_strategy(pg->st->docs[d], pg->strat[k]);
        if (!s)
            continue;
        struct ht_judge j;
        ht_judge(pg->st->sc, pg->st->docs[d], s, &j);
        if (!j.meets) {
            if (miss)
                *miss = pg->ax.x[d];
            return any ? 0 : -1;
        }
        *x = pg->ax.x[d];
        any = 1;
    }
    return 1;
}

static int holds_to(const struct page *pg, int k, int r, double *x)
{
    return holds_to_miss(pg, k, r, x, NULL);
}

static void sweep_clause(FILE *fp, const struct page *pg, int k)
{
    double x = NAN, miss = NAN;
    char v[64], w[64];
    int h = holds_to_miss(pg, k, 0, &x, &miss);
    ht_axis_value(&pg->ax, x, v, sizeof v);
    ht_axis_value(&pg->ax, miss, w, sizeof w);
    if (h == 1)
        fprintf(fp, ", and keeps them over the whole %s sweep (up to %s)",
                pg->param_sweep ? "" : "load", v);
    else if (h == 0)
        fprintf(fp, "; it keeps them up to %s%s and misses at %s",
                pg->param_sweep ? "" : "the load ", v, w);
    else
        fprintf(fp, ", but not at the sweep's lowest %s", pg->param_sweep ? "value" : "load");
}

static void verdict_param_sweep(FILE *fp, const struct page *pg)
{
    char lo[64], hi[64];
    ht_axis_value(&pg->ax, pg->ax.x[pg->order[0]], lo, sizeof lo);
    ht_axis_value(&pg->ax, pg->ax.x[pg->order[pg->st->n_docs - 1]], hi, sizeof hi);
    if (!has_sla_any(pg, "p99_ms")) {
        fprintf(fp,
                "No tenant has an SLA in the scenario; the figures show how each metric "
                "moves from %s to %s.",
                lo, hi);
        return;
    }
    fputs("Over ", fp);
    ht_esc(fp, pg->ax.label);
    fprintf(fp, " from %s to %s, ", lo, hi);
    int shown = 0;
    for (int r = 0; r < pg->n_rest && shown < 8; r++)
        for (int k = 0; k < pg->n_strat && shown < 8; k++, shown++) {
            double x = NAN;
            char lab[200], v[64];
            int h = holds_to(pg, k, r, &x);
            ht_axis_value(&pg->ax, x, v, sizeof v);
            series_label(pg, k, r, lab, sizeof lab);
            fputs(shown ? "; " : "", fp);
            fputs("<strong>", fp);
            ht_esc(fp, lab);
            fputs("</strong>", fp);
            if (h == 1)
                fputs(" keeps every SLA throughout", fp);
            else if (h == 0)
                fprintf(fp, " keeps every SLA up to %s", v);
            else
                fputs(" misses an SLA from the start", fp);
        }
    fputs(".", fp);
}

/* Is strategy a cheaper than b (cost per million requests, then GPUs used)? */
static int cheaper(const cJSON *a, const cJSON *b)
{
    double ca = rt_num(a, "cost_per_million_requests_usd"),
           cb = rt_num(b, "cost_per_million_requests_usd");
    if (isfinite(ca) && isfinite(cb) && ca != cb)
        return ca < cb;
    return rt_num(a, "gpus_used") < rt_num(b, "gpus_used");
}

static void verdict(FILE *fp, const struct page *pg)
{
    fputs("<p class=\"verdict\"><strong>Verdict.</strong> ", fp);
    if (pg->param_sweep && pg->sweep) {
        verdict_param_sweep(fp, pg);
        fputs("</p>\n", fp);
        return;
    }
    const cJSON *doc = pg->doc, *s;
    int best = -1, n_ok = 0, n_sla = 0, k = 0, closest = -1;
    double best_cost = INFINITY, best_gpus = INFINITY, best_ratio = INFINITY, close_r = INFINITY;
    struct ht_judge j;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        ht_judge(pg->st->sc, doc, s, &j);
        n_sla = j.n_sla > n_sla ? j.n_sla : n_sla;
        if (j.meets && j.n_sla > 0) {
            n_ok++;
            double c = rt_num(s, "cost_per_million_requests_usd"), g = rt_num(s, "gpus_used");
            c = isfinite(c) ? c : INFINITY;
            g = isfinite(g) ? g : INFINITY;
            if (c < best_cost ||
                (c == best_cost &&
                 (g < best_gpus || (g == best_gpus && j.worst_ratio < best_ratio)))) {
                best = k;
                best_cost = c;
                best_gpus = g;
                best_ratio = j.worst_ratio;
            }
        } else if (isfinite(j.worst_ratio) &&
                   (j.worst_ratio < close_r ||
                    (j.worst_ratio == close_r && closest >= 0 &&
                     cheaper(s,
                             cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "strategies"),
                                                closest))))) {
            close_r = j.worst_ratio;
            closest = k;
        }
        k++;
    }
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(doc, "strategies");
    int n_all = cJSON_GetArraySize(all);
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "cluster")) && n_all == 0) {
        fputs("The figures below compare the placement policies as the workload arrives.</p>\n",
              fp);
        return;
    }
    if (n_sla == 0) {
        int lo = -1;
        double lo_v = INFINITY;
        k = 0;
        cJSON_ArrayForEach(s, all)
        {
            ht_judge(pg->st->sc, doc, s, &j);
            if (j.worst_p99_ms < lo_v) {
                lo_v = j.worst_p99_ms;
                lo = k;
            }
            k++;
        }
        char v[32];
        fmt_ms(v, sizeof v, lo_v);
        fputs("No tenant has an SLA in the scenario; ", fp);
        if (lo >= 0) {
            fputs("<strong>", fp);
            ht_esc(fp, pg->strat[lo]);
            fprintf(fp, "</strong> gives the lowest worst-tenant p99 (%s)", v);
        }
        fputs(".</p>\n", fp);
        return;
    }
    if (best >= 0) {
        fputs("<strong>", fp);
        ht_esc(fp, pg->strat[best]);
        if (n_ok == 1)
            fputs("</strong> is the only strategy that meets every tenant's SLA", fp);
        else
            fputs("</strong> meets every tenant's SLA", fp);
        if (isfinite(best_cost))
            fprintf(fp,
                    n_ok == 1 ? " ($%.2f per million requests)"
                              : " at the lowest cost, $%.2f per million requests",
                    best_cost);
        else if (isfinite(best_gpus))
            fprintf(fp, n_ok == 1 ? " (on %.0f GPUs)" : " on the fewest GPUs (%.0f)", best_gpus);
        if (n_ok > 1) { /* the others that meet them: named when few */
            int named = 0;
            k = 0;
            fputs(n_ok == 2 ? "; so does " : n_ok == 3 ? "; so do " : "", fp);
            cJSON_ArrayForEach(s, all)
            {
                ht_judge(pg->st->sc, doc, s, &j);
                if (n_ok <= 3 && j.meets && j.n_sla > 0 && k != best) {
                    double c = rt_num(s, "cost_per_million_requests_usd");
                    fputs(named++ ? " and <strong>" : "<strong>", fp);
                    ht_esc(fp, pg->strat[k]);
                    fputs("</strong>", fp);
                    if (isfinite(c))
                        fprintf(fp, " ($%.2f)", c);
                }
                k++;
            }
            if (n_ok > 3)
                fprintf(fp, " (%d of the %d strategies meet them all)", n_ok, n_all);
        }
        if (pg->sweep)
            sweep_clause(fp, pg, best);
    } else {
        fputs("No strategy meets every tenant's SLA", fp);
        if (closest >= 0) {
            cJSON_ArrayForEach(s, all)
            {
                if (strcmp(ht_str(s, "name"), pg->strat[closest]) == 0)
                    ht_judge(pg->st->sc, doc, s, &j);
            }
            fputs("; the closest is <strong>", fp);
            ht_esc(fp, pg->strat[closest]);
            fprintf(fp, "</strong>, where %d of %d tenants miss (", j.n_miss,
                    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetArrayItem(all, closest), "tenants")));
            ht_esc(fp, j.miss);
            fputs(")", fp);
        }
    }
    /* The misses of the others (at most two), and strategies that are the same for latency. */
    int told = 0, listed[2];
    k = 0;
    cJSON_ArrayForEach(s, all)
    {
        ht_judge(pg->st->sc, doc, s, &j);
        /* Latencies the same as a strategy already named: said once, below. */
        int dup = closest >= 0 && best < 0 && same_latency(s, cJSON_GetArrayItem(all, closest));
        for (int q = 0; q < told && !dup; q++)
            dup = same_latency(s, cJSON_GetArrayItem(all, listed[q]));
        if (!j.meets && !dup && told < 2) {
            listed[told] = k;
            fputs("; ", fp);
            fputs("<strong>", fp);
            ht_esc(fp, pg->strat[k]);
            fputs("</strong> misses (", fp);
            ht_esc(fp, j.miss);
            fputs(")", fp);
            told++;
        }
        k++;
    }
    int pairs = 0;
    for (int a = 0; a < n_all && pairs < 2; a++)
        for (int b = a + 1; b < n_all && pairs < 2; b++)
            if (same_latency(cJSON_GetArrayItem(all, a), cJSON_GetArrayItem(all, b))) {
                fputs("; <strong>", fp);
                ht_esc(fp, pg->strat[a]);
                fputs("</strong> and <strong>", fp);
                ht_esc(fp, pg->strat[b]);
                fputs("</strong> give every tenant the same latency", fp);
                same_clause(fp, pg, cJSON_GetArrayItem(all, a), cJSON_GetArrayItem(all, b), a, b);
                pairs++;
            }
    fputs(".</p>\n", fp);
}

/* ---- tables ---------------------------------------------------------------------------------- */

static void sweep_table(FILE *fp, const struct page *pg)
{
    fputs("<h3>Every result of the sweep</h3>\n<table class=\"sweep\">\n<tr><th>", fp);
    ht_esc(fp, pg->ax.label);
    fputs("</th><th class=\"l\">strategy</th><th>GPUs used</th><th>GPU util %</th><th>thr/s</th>"
          "<th>p99 ms, mean over tenants</th><th>p99 ms, worst tenant</th>"
          "<th>within SLA %, worst tenant</th><th>$ per M requests</th><th class=\"l\">SLAs</th>"
          "</tr>\n",
          fp);
    for (int q = 0; q < pg->st->n_docs; q++) {
        int d = pg->order[q];
        const cJSON *doc = pg->st->docs[d], *s;
        int k = 0;
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
        {
            struct ht_judge j;
            ht_judge(pg->st->sc, doc, s, &j);
            double worst_att = INFINITY;
            const cJSON *t;
            cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "tenants"))
            {
                double a = rt_num(t, "sla_attainment");
                worst_att = isfinite(a) && a < worst_att ? a : worst_att;
            }
            char lab[300];
            int si = 0;
            for (int z = 0; z < pg->n_strat; z++)
                if (strcmp(pg->strat[z], ht_str(s, "name")) == 0)
                    si = z;
            fputs("<tr><td>", fp);
            ht_esc(fp, pg->ax.text[d]);
            fputs(pg->ax.rest[d][0] ? " · " : "", fp);
            ht_esc(fp, pg->ax.rest[d]);
            fputs("</td><td class=\"l\">", fp);
            svg_swatch(fp, style_of(pg, si, rest_index(pg, d)));
            snprintf(lab, sizeof lab, "%s", ht_str(s, "name"));
            ht_esc(fp, lab);
            fputs("</td>", fp);
            ht_td(fp, rt_num(s, "gpus_used"), 1, "%.0f");
            ht_td(fp, rt_num(s, "gpu_utilization"), 100, "%.1f");
            ht_td(fp, rt_num(s, "throughput_per_s"), 1, "%.1f");
            ht_td(fp, rt_tenant_mean(s, "latency_ms.p99"), 1, "%.2f");
            ht_td(fp, j.worst_p99_ms, 1, "%.2f");
            ht_td(fp, isfinite(worst_att) ? worst_att : NAN, 100, "%.1f");
            ht_td(fp, rt_num(s, "cost_per_million_requests_usd"), 1, "%.3f");
            if (j.n_sla == 0 && j.meets)
                fputs("<td class=\"l\">none</td>", fp);
            else if (j.meets)
                fputs("<td class=\"l ok\">✓ all met</td>", fp);
            else {
                fputs("<td class=\"l miss\">✗ ", fp);
                ht_esc(fp, j.miss);
                fputs("</td>", fp);
            }
            fputs("</tr>\n", fp);
            k++;
        }
    }
    fputs("</table>\n", fp);
}

/* ---- the page ----------------------------------------------------------------------------------
 */

static void question(FILE *fp, const struct page *pg)
{
    fputs("<p class=\"question\"><strong>Question.</strong> ", fp);
    if (pg->st->question && *pg->st->question) {
        ht_md(fp, pg->st->question);
    } else if (pg->param_sweep && pg->sweep) {
        fputs("How do the tenants' latencies change with ", fp);
        ht_esc(fp, pg->ax.label);
        fputs(", and up to where does each strategy keep every SLA?", fp);
    } else {
        fputs("Which strategy serves every tenant of <code>", fp);
        ht_esc(fp, ht_str(pg->doc, "scenario"));
        fputs("</code> within its SLA at the lowest cost?", fp);
    }
    fputs("</p>\n", fp);
}

static void contents(FILE *fp, const struct page *pg, int mig, int density)
{
    fputs("<nav>Contents:", fp);
    if (pg->st->cdf_path)
        fputs(" <a href=\"#latency\">latency of each tenant</a>", fp);
    if (pg->sweep)
        fputs(" <a href=\"#sweep\">sweep</a>", fp);
    if (density)
        fputs(" <a href=\"#density\">tenants per GPU</a>", fp);
    if (mig)
        fputs(" <a href=\"#mig\">MIG layouts</a>", fp);
    if (cJSON_GetObjectItemCaseSensitive(pg->doc, "cluster"))
        fputs(" <a href=\"#cluster\">cluster</a>", fp);
    fputs(" <a href=\"#tables\">tables</a>", fp);
    if (cJSON_GetArraySize(pg->st->notes))
        fputs(" <a href=\"#notes\">notes</a>", fp);
    fputs("</nav>\n", fp);
}

static int mig_present(const cJSON *doc)
{
    const cJSON *s, *g;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(
                                  cJSON_GetObjectItemCaseSensitive(s, "details"), "gpus"))
        {
            if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "instances")) > 0)
                return 1;
        }
    }
    return 0;
}

int ht_study_page(FILE *fp, const struct ht_study *st, char *err, size_t errlen)
{
    struct page pg;
    if (st->n_docs < 1 || st->n_docs > HT_MAX_DOCS)
        return ss_errf(err, errlen, "expected 1 to %d results, got %d", HT_MAX_DOCS, st->n_docs);
    if (page_init(&pg, st, err, errlen)) {
        page_free(&pg);
        return -1;
    }
    char title[300];
    snprintf(title, sizeof title, "%s",
             st->title && *st->title ? st->title : ht_str(pg.doc, "scenario"));
    if (!(st->title && *st->title) && pg.param_sweep && pg.sweep)
        snprintf(title, sizeof title, "%s: sweep of %s", ht_str(pg.doc, "scenario"), pg.ax.label);
    int mig = mig_present(pg.doc), rc = 0;
    struct gpu_profile gp;
    if (mig) {
        if (st->sc)
            gp = st->sc->gpu;
        else if (cal_load(ht_str(pg.doc, "gpu"), &gp, err, errlen))
            mig = 0; /* no profile: the layouts stay in the tables */
    }
    int density = density_distinct(pg.doc) >= 3;
    ht_head(fp, title);
    fputs("<h1>", fp);
    ht_esc(fp, title);
    fputs("</h1>\n", fp);
    question(fp, &pg);
    verdict(fp, &pg);
    ht_meta(fp, pg.doc, st->command, st->requests);
    const char *desc = st->sc ? ht_str(st->sc->json, "description") : "";
    if (*desc) {
        fputs("<p class=\"howto\">", fp);
        ht_md(fp, desc);
        fputs("</p>\n", fp);
    }
    contents(fp, &pg, mig, density);
    if (st->cdf_path)
        rc = cdf_figure(fp, &pg, err, errlen);
    if (rc == 0 && pg.sweep)
        rc = sweep_section(fp, &pg, err, errlen);
    if (rc == 0 && density)
        rc = density_figure(fp, &pg, err, errlen);
    if (rc == 0 && mig) {
        fputs("<h2 id=\"mig\">MIG layouts</h2>\n", fp);
        rc = ht_mig_section(fp, pg.doc, &gp, st->svg_prefix, err, errlen) < 0 ? -1 : 0;
    }
    if (rc == 0)
        rc = cluster_section(fp, &pg, err, errlen);
    if (rc == 0) {
        fputs("<h2 id=\"tables\">Tables</h2>\n", fp);
        if (!pg.param_sweep || !pg.sweep) {
            if (pg.sweep) {
                char v[64];
                ht_axis_value(&pg.ax, pg.ax.x[0], v, sizeof v);
                fprintf(fp, "<p>At %s:</p>\n", v);
            }
            if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(pg.doc, "strategies")))
                ht_result_tables(fp, pg.doc, st->sc);
        }
        if (pg.sweep)
            sweep_table(fp, &pg);
        ht_notes(fp, st->notes);
        ht_foot(fp);
    }
    page_free(&pg);
    return rc;
}
