/*
 * htstudy — one study's page (html.h), assembled here: the question and the verdict in one
 * sentence (htverdict.c), then
 *   - the latency distribution of every tenant, one panel per tenant (nothing pooled), each
 *     with its SLA line (from `run --cdf`);
 *   - with LLM services, their TTFT and TPOT p99 under each strategy against their targets
 *     (htllm.c);
 *   - for a sweep (several results: `--scale-load` or `sharesim sweep` points), each chosen
 *     metric against the swept value (htsweep.c);
 *   - utilisation and p99 against tenants per GPU when the strategies differ in density;
 *   - MIG layouts as slice grids (htmig.c); a cluster result's allocation and fragmentation;
 *   - the tables.
 * Also the page's view of its results and its helpers (htpage.h). A strategy keeps its style
 * (colour, dash, marker) in every figure and table of the page.
 */
#include "report/html.h"
#include "report/htint.h"
#include "report/htpage.h"
#include "core/rdoc.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ht_pg_has_sla(const struct page *pg, const char *key)
{
    for (int i = 0; i < pg->n_ten; i++)
        if (isfinite(vj_sla_ms(pg->st->sc, pg->doc, pg->ten[i], key)))
            return 1;
    return 0;
}

void ht_fmt_ms(char *buf, size_t n, double ms)
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
    RD_EACH_STRATEGY(s, pg->doc)
    {
        if (pg->n_strat < MAX_NAMES)
            snprintf(pg->strat[pg->n_strat++], 64, "%s", rd_name(s));
    }
    s = cJSON_GetArrayItem(rd_strategies(pg->doc), 0);
    RD_EACH_TENANT(t, s)
    {
        if (pg->n_ten < MAX_NAMES)
            snprintf(pg->ten[pg->n_ten++], 64, "%s", rd_name(t));
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

int ht_pg_rest(const struct page *pg, int doc)
{
    for (int q = 0; q < pg->n_rest; q++)
        if (strcmp(pg->rest[q], pg->ax.rest[doc]) == 0)
            return q;
    return 0;
}

int ht_pg_style(const struct page *pg, int strategy, int rest)
{
    return strategy + pg->n_strat * rest;
}

void ht_pg_label(const struct page *pg, int strategy, int rest, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", pg->strat[strategy], pg->rest[rest][0] ? " · " : "", pg->rest[rest]);
}

/* ---- figures: latency distributions ---------------------------------------------------------- */

void ht_sla_words(char *buf, size_t n, const char *what, double sla_ms, const char *unit)
{
    int s = strcmp(unit, "s") == 0;
    snprintf(buf, n, "SLA: %.20s ≤ %.4g %s", what, s ? sla_ms / 1000 : sla_ms, s ? "s" : "ms");
}

const char *ht_latency_unit(double sla_ms, double max_ms)
{
    return (isfinite(sla_ms) ? sla_ms : max_ms) >= 1000 ? "s" : "ms";
}

int ht_pg_is_llm(const struct page *pg, const char *tenant)
{
    const cJSON *s;
    RD_EACH_STRATEGY(s, pg->doc)
    {
        if (rd_is_llm(rd_tenant(s, tenant)))
            return 1;
    }
    return 0;
}

/* One curve of a CDF panel: the row's points from CDF_FROM to the 99.99th percentile. */
static void cdf_curve(struct svg_panel *p, const struct cdf_curve *r, const char *label, int style)
{
    double x[128], y[128];
    int n = 0;
    for (int q = 0; q < r->n; q++)
        if (r->p[q] >= CDF_FROM && r->p[q] <= 0.9999) {
            x[n] = r->ms[q];
            y[n++] = r->p[q];
        }
    struct svg_series *s = svg_add(p, label, style, n, x, y, NULL);
    if (s)
        s->marker_every = 12;
}

/* A CDF panel's axes, guide and SLA, for the rows given (the tenant's, or a group's). */
static void cdf_panel_frame(struct svg_panel *p, const struct cdf_curve *const *rows, int n,
                            double sla)
{
    snprintf(p->xlabel, sizeof p->xlabel, "latency (ms)");
    snprintf(p->ylabel, sizeof p->ylabel, "requests at or below (%%)");
    snprintf(p->metric, sizeof p->metric, "latency");
    p->ya = SVG_TAIL;
    p->latency = 1;
    double lo = INFINITY, hi = 0;
    for (int k = 0; k < n; k++)
        for (int q = 0; rows[k] && q < rows[k]->n; q++)
            if (rows[k]->p[q] >= CDF_FROM && rows[k]->p[q] <= 0.9999 && rows[k]->ms[q] > 0) {
                lo = rows[k]->ms[q] < lo ? rows[k]->ms[q] : lo;
                hi = rows[k]->ms[q] > hi ? rows[k]->ms[q] : hi;
            }
    if (isfinite(sla)) {
        lo = sla < lo ? sla : lo;
        hi = sla > hi ? sla : hi;
    }
    p->xa = lo > 0 && hi / lo >= 30 ? SVG_LOG : SVG_LIN;
    svg_ref(p, 0, 0.99, SVG_REF_GUIDE, "99 %%");
    if (isfinite(sla)) {
        char w[64];
        ht_sla_words(w, sizeof w, "p99", sla, "ms");
        svg_ref(p, 1, sla, SVG_REF_SLA, "%s", w);
        snprintf(p->note, sizeof p->note, "%s", w);
    } else {
        snprintf(p->note, sizeof p->note, "no SLA in the scenario");
    }
}

static int same_row(const struct cdf_curve *a, const struct cdf_curve *b)
{
    if (!a || !b || a->n != b->n)
        return 0;
    for (int q = 0; q < a->n; q++)
        if (a->p[q] != b->p[q] || a->ms[q] != b->ms[q])
            return 0;
    return 1;
}

/* Does every strategy give every tenant the same distribution as the first one? Then a panel
 * per tenant would say one thing N times ("same curve: a = b" in each). */
static int all_strategies_same(const struct page *pg, const struct cdf_curves *cdf)
{
    if (pg->n_strat < 2)
        return 0;
    for (int i = 0; i < pg->n_ten; i++) {
        const struct cdf_curve *first = cdf_csv_find(cdf, pg->strat[0], pg->ten[i]);
        for (int k = 1; k < pg->n_strat; k++)
            if (!same_row(first, cdf_csv_find(cdf, pg->strat[k], pg->ten[i])))
                return 0;
    }
    return 1;
}

/* An LLM service with no target on its whole requests is judged on its tokens (htllm.c): its
 * request latency is not drawn. */
static int llm_without_p99(const struct page *pg, const char *tenant)
{
    return ht_pg_is_llm(pg, tenant) && !isfinite(vj_sla_ms(pg->st->sc, pg->doc, tenant, "p99_ms"));
}

#define LLM_NO_P99                                                                                 \
    "an LLM service with no p99 target on whole requests (judged on its TTFT and TPOT)"

/* Identical under every strategy: one panel per SLA value, a curve per tenant. */
static int cdf_merged(struct svg_figure *f, const struct page *pg, const struct cdf_curves *cdf)
{
    int done[MAX_NAMES] = {0}, drawn = 0;
    for (int i = 0; i < pg->n_ten; i++) {
        if (done[i] || llm_without_p99(pg, pg->ten[i]))
            continue;
        double sla = vj_sla_ms(pg->st->sc, pg->doc, pg->ten[i], "p99_ms");
        const struct cdf_curve *rows[MAX_NAMES];
        int members[MAX_NAMES], n = 0;
        for (int j = i; j < pg->n_ten; j++) {
            double o = vj_sla_ms(pg->st->sc, pg->doc, pg->ten[j], "p99_ms");
            if (done[j] || llm_without_p99(pg, pg->ten[j]) ||
                !(o == sla || (isnan(o) && isnan(sla))))
                continue;
            done[j] = 1;
            members[n] = j;
            rows[n++] = cdf_csv_find(cdf, pg->strat[0], pg->ten[j]);
        }
        struct svg_panel *p = svg_fig_panel(f);
        if (!p)
            break;
        if (n <= 3) {
            for (int k = 0; k < n; k++)
                ss_catf(p->title, sizeof p->title, "%s%.40s", k ? ", " : "", pg->ten[members[k]]);
        } else {
            snprintf(p->title, sizeof p->title, "%.50s … %.50s (%d tenants)", pg->ten[members[0]],
                     pg->ten[members[n - 1]], n);
        }
        cdf_panel_frame(p, rows, n, sla);
        for (int k = 0; k < n; k++)
            if (rows[k]) {
                cdf_curve(p, rows[k], pg->ten[members[k]], members[k]);
                svg_fig_legend(f, pg->ten[members[k]], members[k], 0);
                drawn++;
            }
    }
    return drawn;
}

static int cdf_figure(struct hw *wr, const struct page *pg, char *err, size_t errlen)
{
    struct cdf_curves cdf;
    if (cdf_csv_load(pg->st->cdf_path, 0, &cdf, err, errlen))
        return -1;
    struct svg_figure f;
    int big = pg->n_ten <= 2, same = all_strategies_same(pg, &cdf);
    char names[400] = "";
    for (int k = 0; k < pg->n_strat && same; k++)
        ss_catf(names, sizeof names, "%s%s", k ? " = " : "", pg->strat[k]);
    char title[600];
    if (same)
        snprintf(title, sizeof title,
                 "Latency distribution of each tenant, the same under every strategy (%s)", names);
    else
        snprintf(title, sizeof title, "Latency distribution of each tenant (one panel per tenant)");
    svg_fig_init(&f, "cdf", title, 3, big || same ? BIG_W : PANEL_W, big || same ? BIG_H : PANEL_H);
    int drawn = 0;
    if (same)
        drawn = cdf_merged(&f, pg, &cdf);
    for (int i = 0; i < pg->n_ten && !same; i++) {
        struct svg_panel *p = svg_fig_panel(&f);
        if (!p)
            break;
        snprintf(p->title, sizeof p->title, "%s", pg->ten[i]);
        snprintf(p->tenant, sizeof p->tenant, "%s", pg->ten[i]);
        p->llm = ht_pg_is_llm(pg, pg->ten[i]);
        if (llm_without_p99(pg, pg->ten[i])) {
            snprintf(p->empty_why, sizeof p->empty_why, "%s", LLM_NO_P99);
            continue;
        }
        snprintf(p->empty_why, sizeof p->empty_why, "no latency in the CDF file");
        const struct cdf_curve *rows[MAX_NAMES];
        for (int k = 0; k < pg->n_strat; k++)
            rows[k] = cdf_csv_find(&cdf, pg->strat[k], pg->ten[i]);
        cdf_panel_frame(p, rows, pg->n_strat, vj_sla_ms(pg->st->sc, pg->doc, pg->ten[i], "p99_ms"));
        for (int k = 0; k < pg->n_strat; k++)
            if (rows[k]) {
                cdf_curve(p, rows[k], pg->strat[k], ht_pg_style(pg, k, 0));
                drawn++;
            }
    }
    for (int k = 0; k < pg->n_strat && !same; k++)
        svg_fig_legend(&f, pg->strat[k], ht_pg_style(pg, k, 0), 0);
    int rc = 0;
    if (drawn) {
        f.verdict = !*pg->figure_drawn;
        HW_MARK(wr, "<h2 id=\"latency\">Latency of each tenant</h2>\n");
        rc = ht_figure(wr, &f, pg->st->svg_prefix, err, errlen);
        *pg->figure_drawn = 1;
        if (same) {
            char cap[1000];
            snprintf(cap, sizeof cap,
                     "Every strategy (%s) gives every tenant the same distribution, so one panel "
                     "per SLA holds a curve per tenant instead of a panel per tenant repeating "
                     "one merged curve. Across: latency (a log scale where it spans decades). Up: "
                     "the share of the tenant's requests at or below that latency from the 5th "
                     "percentile on, stretched toward the tail (50, 90, 99, 99.9 %%). A tenant "
                     "meets its SLA when its curve crosses the dotted 99 %% line left of the "
                     "dashed black SLA line.",
                     names);
            HW_WRAP(wr, "<figcaption>", cap, "</figcaption>\n");
        } else {
            HT_CAPTION(
                wr,
                "One panel per tenant; every strategy in each panel. Across: latency (a log scale "
                "where it spans decades). Up: the share of the tenant's requests at or below that "
                "latency from the 5th percentile on, stretched toward the tail (50, 90, 99, 99.9 "
                "%). A strategy meets the "
                "tenant's SLA when its curve crosses the dotted 99 % line left of the dashed black "
                "SLA line. Curves that coincide are drawn once and the panel names them (\"same "
                "curve\").");
        }
        ht_figure_end(wr);
    }
    svg_fig_free(&f);
    cdf_csv_free(&cdf);
    return rc;
}

/* ---- figures: density ---------------------------------------------------------------------- */

/* How many different tenants-per-GPU values the strategies have: the density figure is
 * drawn for a ladder of at least three. */
static int density_distinct(const cJSON *doc)
{
    double v[MAX_NAMES];
    int n = 0, distinct = 0;
    const cJSON *s;
    RD_EACH_STRATEGY(s, doc)
    {
        double used = rd_fig(s, MT_STRATEGY, MT_SM_GPUS_USED);
        if (n == MAX_NAMES || !(used > 0))
            continue;
        v[n] = rd_n_tenants(s) / used;
        int seen = 0;
        for (int q = 0; q < n; q++)
            seen |= v[q] == v[n];
        distinct += !seen;
        n++;
    }
    return distinct;
}

static int density_figure(struct hw *wr, const struct page *pg, char *err, size_t errlen)
{
    /* Per strategy with GPUs (in x order below): tenants per GPU, useful work and switching
     * (% of the GPU), the worst tenant's p99 (-inf: none measured one) and the mean p99. */
    double X[MAX_NAMES], U[MAX_NAMES], S[MAX_NAMES], W[MAX_NAMES], M[MAX_NAMES];
    int idx[MAX_NAMES], n = 0, pos = -1;
    const cJSON *s;
    RD_EACH_STRATEGY(s, pg->doc)
    {
        double used = rd_fig(s, MT_STRATEGY, MT_SM_GPUS_USED);
        pos++; /* the strategy's place in the result, which pg->strat follows */
        if (n == MAX_NAMES || pos >= pg->n_strat || !(used > 0))
            continue;
        double worst = rd_over_tenants(s, MT_TENANT, TM_LAT_P99, RD_MAX),
               x = rd_n_tenants(s) / used;
        int q = n++; /* inserted in x order; idx: its place among all the strategies */
        for (; q > 0 && x < X[q - 1]; q--) {
            X[q] = X[q - 1], U[q] = U[q - 1], S[q] = S[q - 1], W[q] = W[q - 1], M[q] = M[q - 1];
            idx[q] = idx[q - 1];
        }
        X[q] = x;
        U[q] = rd_fig(s, MT_STRATEGY, SM_UTIL) * 100;
        S[q] = rd_fig(s, MT_STRATEGY, SM_SWITCH) * 100;
        W[q] = isnan(worst) ? -INFINITY : worst;
        M[q] = rd_over_tenants(s, MT_TENANT, TM_LAT_P99, RD_MEAN);
        idx[q] = pos;
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
        double v = vj_sla_ms(pg->st->sc, pg->doc, pg->ten[i], "p99_ms");
        if (isfinite(v)) {
            tight = v < tight ? v : tight;
            loose = v > loose ? v : loose;
        }
    }
    if (isfinite(tight)) {
        char w[64];
        ht_sla_words(w, sizeof w, "p99", tight, "ms");
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
    for (int q = 0; q < n; q++)
        ss_catf(cap, sizeof cap, "%s%s at %.3g", q ? ", " : "", pg->strat[idx[q]], X[q]);
    ss_catf(cap, sizeof cap, " tenants per GPU.");
    HW_MARK(wr, "<h2 id=\"density\">Tenants per GPU</h2>\n");
    f.verdict = !*pg->figure_drawn;
    int rc = ht_figure(wr, &f, pg->st->svg_prefix, err, errlen);
    *pg->figure_drawn = 1;
    HW_WRAP(wr, "<figcaption>", cap, "</figcaption>\n");
    ht_figure_end(wr);
    svg_fig_free(&f);
    return rc;
}

/* ---- cluster results (docs/report.md has the shape) ---------------------------------------- */

static int cluster_section(struct hw *wr, const struct page *pg, char *err, size_t errlen)
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
    HW_MARK(wr, "<h2 id=\"cluster\">Cluster</h2>\n");
    f.verdict = !*pg->figure_drawn;
    int rc = ht_figure(wr, &f, pg->st->svg_prefix, err, errlen);
    *pg->figure_drawn = 1;
    HT_CAPTION(wr, "One line per placement policy: the share of the cluster's GPUs allocated "
                   "to jobs, and the share left fragmented, as the workload arrives.");
    ht_figure_end(wr);
    svg_fig_free(&f);
    return rc;
}

/* ---- the page ----------------------------------------------------------------------------------
 */

static void contents(struct hw *wr, const struct page *pg, int mig, int density)
{
    HW_MARK(wr, "<nav>Contents:");
    if (pg->st->cdf_path)
        HW_MARK(wr, " <a href=\"#latency\">latency of each tenant</a>");
    if (rd_has_llm(pg->doc))
        HW_MARK(wr, " <a href=\"#llm\">TTFT and TPOT</a>");
    if (pg->sweep)
        HW_MARK(wr, " <a href=\"#sweep\">sweep</a>");
    if (density)
        HW_MARK(wr, " <a href=\"#density\">tenants per GPU</a>");
    if (mig)
        HW_MARK(wr, " <a href=\"#mig\">MIG layouts</a>");
    if (cJSON_GetObjectItemCaseSensitive(pg->doc, "cluster"))
        HW_MARK(wr, " <a href=\"#cluster\">cluster</a>");
    HW_MARK(wr, " <a href=\"#tables\">tables</a>");
    if (cJSON_GetArraySize(pg->st->notes))
        HW_MARK(wr, " <a href=\"#notes\">notes</a>");
    HW_MARK(wr, "</nav>\n");
}

/* How many strategies run MIG instances: 0 none, 1 some, 2 every one. With every one the
 * question is one of layouts, and the figure that answers it is the layouts' (GPUs used,
 * slices stranded). */
static int mig_strategies(const cJSON *doc)
{
    const cJSON *s;
    int n = 0, mig = 0;
    RD_EACH_STRATEGY(s, doc)
    {
        n++;
        mig += rd_uses_instances(s) != 0;
    }
    return mig == 0 ? 0 : mig == n ? 2 : 1;
}

/* The page, written to the caller's stream only through the writer (hw.h). */
int ht_study_page(FILE *fp, const struct ht_study *st, char *err, size_t errlen)
{
    struct hw w, *wr = &w;
    hw_init(wr, fp);
    struct page pg;
    if (st->n_docs < 1 || st->n_docs > HT_MAX_DOCS)
        return ss_errf(err, errlen, "expected 1 to %d results, got %d", HT_MAX_DOCS, st->n_docs);
    if (page_init(&pg, st, err, errlen)) {
        page_free(&pg);
        return -1;
    }
    char title[300];
    struct rd_head h;
    rd_head_of(pg.doc, &h);
    snprintf(title, sizeof title, "%s", st->title && *st->title ? st->title : h.scenario);
    if (!(st->title && *st->title) && pg.param_sweep && pg.sweep)
        snprintf(title, sizeof title, "%s: sweep of %s", h.scenario, pg.ax.label);
    int migs = mig_strategies(pg.doc), mig = migs > 0, rc = 0;
    struct gpu_profile gp;
    if (mig) {
        if (st->sc)
            gp = st->sc->gpu;
        else if (cal_load(h.gpu, &gp, err, errlen))
            mig = 0; /* no profile: the layouts stay in the tables */
    }
    int density = density_distinct(pg.doc) >= 3;
    ht_head(wr, title);
    HW_WRAP(wr, "<h1>", title, "</h1>\n");
    ht_question(wr, &pg);
    ht_verdict(wr, &pg);
    ht_meta(wr, pg.doc, st->command, st->requests);
    const char *desc = st->sc ? ht_str(st->sc->json, "description") : "";
    if (*desc)
        HW_MDWRAP(wr, "<p class=\"howto\">", desc, "</p>\n");
    contents(wr, &pg, mig, density);
    /* The first figure is the one the verdict rests on: an LLM service's targets, the layouts
     * when every strategy is a MIG layout (and nothing is swept), else the distributions. */
    int figure_drawn = 0, llm_first = rd_has_llm(pg.doc), mig_first = mig && !pg.sweep && migs == 2;
    pg.figure_drawn = &figure_drawn;
    if (llm_first)
        rc = ht_llm_figure(wr, &pg, err, errlen);
    if (rc == 0 && mig_first) {
        HW_MARK(wr, "<h2 id=\"mig\">MIG layouts</h2>\n");
        int blocks = ht_mig_section(wr, pg.doc, &gp, st->svg_prefix, !figure_drawn, err, errlen);
        rc = blocks < 0 ? -1 : 0;
        figure_drawn |= blocks > 0;
    }
    if (rc == 0 && st->cdf_path)
        rc = cdf_figure(wr, &pg, err, errlen);
    if (rc == 0 && !llm_first)
        rc = ht_llm_figure(wr, &pg, err, errlen);
    if (rc == 0 && pg.sweep)
        rc = ht_sweep_section(wr, &pg, err, errlen);
    if (rc == 0 && density)
        rc = density_figure(wr, &pg, err, errlen);
    if (rc == 0 && mig && !mig_first) {
        HW_MARK(wr, "<h2 id=\"mig\">MIG layouts</h2>\n");
        int blocks = ht_mig_section(wr, pg.doc, &gp, st->svg_prefix, !figure_drawn, err, errlen);
        rc = blocks < 0 ? -1 : 0;
        figure_drawn |= blocks > 0;
    }
    if (rc == 0)
        rc = cluster_section(wr, &pg, err, errlen);
    if (rc == 0) {
        HW_MARK(wr, "<h2 id=\"tables\">Tables</h2>\n");
        if (!pg.param_sweep || !pg.sweep) {
            if (pg.sweep) {
                char v[64];
                ht_axis_value(&pg.ax, pg.ax.x[0], v, sizeof v);
                HW_MARKF(wr, "<p>At %s:</p>\n", v);
            }
            if (cJSON_GetArraySize(rd_strategies(pg.doc)))
                ht_result_tables(wr, pg.doc, st->sc);
        }
        if (pg.sweep)
            ht_sweep_table(wr, &pg);
        ht_notes(wr, st->notes);
        ht_foot(wr);
    }
    page_free(&pg);
    return rc;
}
