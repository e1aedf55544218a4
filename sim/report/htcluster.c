/*
 * htcluster — the page of `sharesim cluster` results (docs/cluster.md): one section per
 * result. An inflation study (the FGD paper's experiment) draws the GPU allocation ratio,
 * the fragment amount and the fragmentation ratio against the arrived workload, one line per
 * placement policy (mean over seeds), and reads them as the paper does; a replay draws the
 * same over time, and a MIG cluster's reconfigurations (instances created or destroyed,
 * pods migrated) as they accumulate. Failed pods are counted in pods, with the number that
 * arrived. The figures are svg.c's, checked by `sharesim report check` as every page's.
 */
#include "base/util.h"
#include "report/html.h"
#include "report/htint.h"
#include "report/hw.h"
#include "report/rtable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CL_PANEL_W 400
#define CL_PANEL_H 290
#define CL_MAX_POL 16
#define DAY_S 86400.0

int ht_is_cluster_run(const cJSON *doc)
{
    return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "cluster")) &&
           cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "experiments")) &&
           cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "summary"));
}

static int is_inflate(const cJSON *doc)
{
    return strcmp(ht_str(doc, "mode"), "inflate") == 0;
}

/* The policies of a result in the summary's order (the scenario's), and their experiments. */
struct pol {
    const cJSON *row;     /* the summary row */
    const cJSON *exp[64]; /* its experiments (seeds) */
    int n_exp;
};

static int policies(const cJSON *doc, struct pol *p, int max)
{
    int n = 0;
    const cJSON *row, *e;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "summary"))
    {
        if (n >= max)
            break;
        p[n].row = row;
        p[n].n_exp = 0;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "experiments"))
        {
            if (strcmp(ht_str(e, "policy"), ht_str(row, "policy")) == 0 && p[n].n_exp < 64)
                p[n].exp[p[n].n_exp++] = e;
        }
        n++;
    }
    return n;
}

/*
 * The mean over a policy's seeds of one figure of each experiment, NaN where none has it:
 * SEED_EXP its field `key`; SEED_COL column i of per_arrived_pct.<key> (null cells skipped);
 * SEED_SAMPLE field `key` of its sample i (counter: absent is 0, as a result omits zero MIG
 * counters; another figure absent is skipped).
 */
enum seed_of { SEED_EXP, SEED_COL, SEED_SAMPLE };
static double seed_mean(const struct pol *p, enum seed_of of, const char *key, int i, int counter)
{
    double s = 0;
    int n = 0;
    for (int k = 0; k < p->n_exp; k++) {
        const cJSON *e = p->exp[k];
        double v = NAN;
        if (of == SEED_EXP) {
            v = rt_num(e, key);
        } else if (of == SEED_COL) {
            const cJSON *c =
                cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                                       cJSON_GetObjectItemCaseSensitive(e, "per_arrived_pct"), key),
                                   i);
            v = cJSON_IsNumber(c) ? c->valuedouble : NAN;
        } else {
            const cJSON *row =
                cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "samples"), i);
            if (!row)
                continue;
            v = rt_num(row, key);
            if (!isfinite(v) && counter)
                v = 0;
        }
        /* a column's cell counts when it is a number; a field when it is finite */
        if (of == SEED_COL ? !isnan(v) : isfinite(v)) {
            s += v;
            n++;
        }
    }
    return n ? s / n : NAN;
}

static int n_cols(const struct pol *p)
{
    return p->n_exp
               ? cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                     cJSON_GetObjectItemCaseSensitive(p->exp[0], "per_arrived_pct"), "alloc_ratio"))
               : 0;
}

static int n_samples(const struct pol *p)
{
    int m = 0;
    for (int k = 0; k < p->n_exp; k++) {
        int c = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p->exp[k], "samples"));
        m = k == 0 || c < m ? c : m;
    }
    return m;
}

static int has_mig(const struct pol *p, int n)
{
    for (int k = 0; k < n; k++)
        for (int e = 0; e < p[k].n_exp; e++) {
            const cJSON *row;
            cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(p[k].exp[e], "samples"))
            {
                if (cJSON_GetObjectItemCaseSensitive(row, "reconfigs"))
                    return 1;
            }
        }
    return 0;
}

static const char *label(const struct pol *p)
{
    const char *l = ht_str(p->row, "label");
    return l[0] ? l : ht_str(p->row, "policy");
}

/* A figure id unique on the page: the base, then base-2, base-3 for later results. */
static void fig_id(char *buf, size_t n, const char *base, int section)
{
    if (section == 0)
        snprintf(buf, n, "%s", base);
    else
        snprintf(buf, n, "%s-%d", base, section + 1);
}

/* ---- inflation: the FGD paper's experiment -------------------------------------------------- */

/* The paper's reading, checked on this result: FGD allocates the most GPUs at 100 % arrived
 * and leaves the smallest fragment amount. Writes the verdict sentence. */
static void inflate_verdict(struct hw *wr, const struct pol *p, int n)
{
    int best = -1, worst = -1, fgd = -1;
    double at[CL_MAX_POL], frag[CL_MAX_POL];
    for (int k = 0; k < n; k++) {
        at[k] = rt_num(p[k].row, "alloc_ratio_at_100_mean");
        frag[k] = seed_mean(&p[k], SEED_COL, "frag_pct", 100, 0);
        if (isfinite(at[k]) && (best < 0 || at[k] > at[best]))
            best = k;
        if (isfinite(at[k]) && (worst < 0 || at[k] < at[worst]))
            worst = k;
        if (strcmp(ht_str(p[k].row, "policy"), "fgd") == 0)
            fgd = k;
    }
    if (best < 0) {
        HW_MARK(wr, "the result has no allocation at 100 % arrived (the workload was inflated "
                    "to less than the cluster's GPUs).");
        return;
    }
    int second = -1;
    for (int k = 0; k < n; k++)
        if (k != best && isfinite(at[k]) && (second < 0 || at[k] > at[second]))
            second = k;
    HW_WRAP(wr, "When the arrived GPU requests reach the cluster's GPUs, <strong>", label(&p[best]),
            "");
    HW_MARKF(wr, "</strong> allocates %.2f %% of them", at[best]);
    if (second >= 0) {
        double u1 = 100 - at[best], u2 = 100 - at[second];
        HW_WRAPF(wr, label(&p[second]), "", ", %.2f points more than ", at[best] - at[second]);
        HW_MARKF(wr, " (%.2f %%): %.2f %% of the GPUs left unallocated against %.2f %%", at[second],
                 u1, u2);
        if (u2 > 0)
            HW_MARKF(wr, ", %.0f %% fewer", 100 * (u2 - u1) / u2);
        if (worst >= 0 && worst != second) {
            HW_WRAP(wr, "; ", label(&p[worst]), "");
            HW_MARKF(wr, " allocates least (%.2f %%)", at[worst]);
        }
    }
    HW_MARK(wr, ". The FGD paper's reading — FGD allocates the most GPUs and leaves the fewest "
                "fragmented (Weng et al., ATC '23, Fig. 7 and 9(a)) — ");
    if (fgd < 0) {
        HW_MARK(wr, "is not tested here: the study has no fgd policy.");
        return;
    }
    int most = fgd == best, least = 1;
    for (int k = 0; k < n; k++)
        if (k != fgd && isfinite(frag[k]) && isfinite(frag[fgd]) && frag[k] < frag[fgd])
            least = 0;
    if (most && least)
        HW_MARKF(wr,
                 "<strong>holds</strong> here: its fragment amount, %.2f %% of the GPUs, is "
                 "the lowest.",
                 frag[fgd]);
    else
        HW_MARKF(wr,
                 "<strong>does not hold</strong> here: FGD %s, and its fragment amount, %.2f %% "
                 "of the GPUs, is %s.",
                 most ? "allocates the most" : "does not allocate the most", frag[fgd],
                 least ? "the lowest" : "not the lowest");
}

static int inflate_figure(struct hw *wr, const struct pol *p, int n, int section, int verdict,
                          const char *svg_prefix, char *err, size_t errlen)
{
    struct svg_figure f;
    char id[64];
    fig_id(id, sizeof id, "placement", section);
    svg_fig_init(&f, id, "GPU allocation and fragmentation against the arrived workload", 3,
                 CL_PANEL_W, CL_PANEL_H);
    f.verdict = verdict;
    static const char *const keys[3] = {"alloc_ratio", "frag_pct", "frag_ratio"};
    static const char *const titles[3] = {"GPUs allocated (the paper's Fig. 9(a))",
                                          "fragment amount (Fig. 7(a))",
                                          "fragmentation ratio (Fig. 7(b))"};
    static const char *const ylabels[3] = {"GPU allocation ratio (% of the cluster's GPUs)",
                                           "fragment amount (% of the cluster's GPUs)",
                                           "fragmented share of idle GPUs (%)"};
    double thr = NAN;
    for (int w = 0; w < 3; w++) {
        struct svg_panel *pn = svg_fig_panel(&f);
        snprintf(pn->title, sizeof pn->title, "%s", titles[w]);
        snprintf(pn->xlabel, sizeof pn->xlabel, "arrived GPU requests (%% of the cluster's GPUs)");
        snprintf(pn->ylabel, sizeof pn->ylabel, "%s", ylabels[w]);
        pn->ymin = 0;
        for (int k = 0; k < n; k++) {
            int m = n_cols(&p[k]);
            double *x = ss_xcalloc((size_t)m + 1, sizeof *x),
                   *y = ss_xcalloc((size_t)m + 1, sizeof *y);
            for (int c = 0; c < m; c++) {
                x[c] = c;
                y[c] = seed_mean(&p[k], SEED_COL, keys[w], c, 0);
            }
            struct svg_series *s = svg_add(pn, label(&p[k]), k, m, x, y, NULL);
            if (s)
                s->marker_every = m > 40 ? m / 10 : 1;
            svg_fig_legend(&f, label(&p[k]), k, 0);
            free(x);
            free(y);
            if (p[k].n_exp)
                thr = rt_num(p[k].exp[0], "frag_threshold");
        }
        svg_ref(pn, 1, 100, SVG_REF_VALUE, "arrived = the cluster's GPUs");
        if (w == 2 && isfinite(thr))
            svg_ref(pn, 0, thr * 100, SVG_REF_GUIDE, "threshold %g %%", thr * 100);
    }
    int rc = ht_figure(wr, &f, svg_prefix, err, errlen);
    HW_MARKF(wr, "<figcaption>One line per placement policy, the mean over %d seed%s", p[0].n_exp,
             p[0].n_exp == 1 ? "" : "s");
    HW_MARK(wr, " at each 1 % of arrived workload (the FGD simulator's analysis_*_discrete.csv "
                "columns): the share of the cluster's GPUs allocated, the GPU capacity the next "
                "typical pod could not use (fragment amount), and that as a share of the idle "
                "GPUs (fragmentation ratio). Past the dashed line more is asked than the cluster "
                "has, and pods fail.</figcaption>\n");
    ht_figure_end(wr);
    svg_fig_free(&f);
    return rc;
}

/* A column of a cluster table: its heading, where its figure comes from (the policy's summary
 * row; the mean over seeds of each experiment's field, of its per_arrived_pct column at 100 %
 * arrived, or of its last sample's counter), the field and the format; zero: none is 0. */
enum col_src { COL_ROW, COL_EXP, COL_AT100, COL_LAST };
struct col {
    const char *head;
    enum col_src src;
    const char *key, *fmt;
    int zero;
};

static double last(const struct pol *p, const char *key)
{
    int m = n_samples(p);
    return m ? seed_mean(p, SEED_SAMPLE, key, m - 1, 1) : NAN;
}

static void table(struct hw *wr, const struct pol *p, int n, const struct col *c, int nc)
{
    HW_MARK(wr, "<table class=\"cluster\">\n<tr><th class=\"l\">policy</th>");
    for (int k = 0; k < nc; k++)
        HW_WRAP(wr, "<th>", c[k].head, "</th>");
    HW_MARK(wr, "</tr>\n");
    for (int k = 0; k < n; k++) {
        HW_MARK(wr, "<tr><td class=\"l\">");
        svg_swatch(wr, k);
        HW_WRAP(wr, "", label(&p[k]), "</td>");
        for (int q = 0; q < nc; q++) {
            double v = c[q].src == COL_ROW     ? rt_num(p[k].row, c[q].key)
                       : c[q].src == COL_EXP   ? seed_mean(&p[k], SEED_EXP, c[q].key, 0, 0)
                       : c[q].src == COL_AT100 ? seed_mean(&p[k], SEED_COL, c[q].key, 100, 0)
                                               : last(&p[k], c[q].key);
            ht_td(wr, c[q].zero && !isfinite(v) ? 0 : v, 1, c[q].fmt);
        }
        HW_MARK(wr, "</tr>\n");
    }
    HW_MARK(wr, "</table>\n");
}

static const struct col inflate_cols[] = {
    {"rank", COL_ROW, "rank", "%.0f", 0},
    {"GPUs allocated at 100 % arrived (%)", COL_ROW, "alloc_ratio_at_100_mean", "%.2f", 0},
    {"sd", COL_ROW, "alloc_ratio_at_100_sd", "%.2f", 0},
    {"fragment amount at 100 % (% of GPUs)", COL_AT100, "frag_pct", "%.2f", 0},
    {"fragmentation ratio at 100 % (%)", COL_ROW, "frag_ratio_at_100_mean", "%.2f", 0},
    {"ratio passes the threshold at arrived (%)", COL_ROW,
     "frag_over_threshold_at_arrived_pct_mean", "%.1f", 0},
    {"pods arrived", COL_EXP, "arrived", "%.0f", 0},
    {"failed pods (pods)", COL_ROW, "failed_mean", "%.1f", 0},
};

/* ---- replay: over time, and a MIG cluster's reconfigurations -------------------------------- */

static void replay_verdict(struct hw *wr, const cJSON *doc, const struct pol *p, int n)
{
    int mig = has_mig(p, n);
    for (int k = 0; k < n; k++) {
        if (k)
            HW_MARK(wr, "; ");
        HW_WRAP(wr, "<strong>", label(&p[k]), "");
        HW_MARKF(wr, "</strong> places %.0f of %.0f pods (%.0f failed",
                 seed_mean(&p[k], SEED_EXP, "placed", 0, 0),
                 seed_mean(&p[k], SEED_EXP, "arrived", 0, 0),
                 seed_mean(&p[k], SEED_EXP, "failed", 0, 0));
        if (strcmp(ht_str(doc, "unplaced"), "wait") == 0)
            HW_MARKF(wr, ", %.0f waited for room",
                     seed_mean(&p[k], SEED_EXP, "waited", 0, 0) > 0
                         ? seed_mean(&p[k], SEED_EXP, "waited", 0, 0)
                         : 0);
        HW_MARKF(wr, "), %.2f %% of the GPUs allocated on average",
                 rt_num(p[k].row, "alloc_ratio_mean"));
        if (mig)
            HW_MARKF(wr,
                     ", at the price of %.0f MIG reconfigurations (%.0f instances created or "
                     "destroyed, %.0f pods migrated, %.0f s of downtime)",
                     last(&p[k], "reconfigs"), last(&p[k], "instances_changed"),
                     last(&p[k], "migrated"), last(&p[k], "downtime_s"));
    }
    HW_MARK(wr, ".");
}

static int replay_figure(struct hw *wr, const cJSON *doc, const struct pol *p, int n, int section,
                         int verdict, const char *svg_prefix, char *err, size_t errlen)
{
    int mig = has_mig(p, n);
    struct svg_figure f;
    char id[64];
    fig_id(id, sizeof id, mig ? "mig-reconfig" : "replay", section);
    svg_fig_init(&f, id,
                 mig ? "A MIG cluster replayed: allocation, fragmentation and reconfigurations"
                     : "The trace replayed: allocation and fragmentation over time",
                 mig ? 2 : 2, CL_PANEL_W, CL_PANEL_H);
    f.verdict = verdict;
    /* time in days when the trace spans more than three, else hours */
    double span = 0;
    for (int k = 0; k < n; k++) {
        int m = n_samples(&p[k]);
        double t = m ? seed_mean(&p[k], SEED_SAMPLE, "t_s", m - 1, 0) : 0;
        span = t > span ? t : span;
    }
    double unit = span > 3 * DAY_S ? DAY_S : 3600;
    const char *uname = unit == DAY_S ? "days" : "hours";
    struct {
        const char *key, *title, *ylabel;
        int counter;
    } panels[4] = {
        {"alloc_ratio", "GPUs allocated", "GPU allocation ratio (% of the cluster's GPUs)", 0},
        {"frag_ratio", "fragmentation", "fragmented share of idle GPUs (%)", 0},
        {"reconfigs", "MIG reconfigurations", "reconfigurations so far (count)", 1},
        {"migrated", "pods migrated by defragmentation", "pods migrated so far (pods)", 1},
    };
    /* the migration panel only when some pod migrated: a flat zero line says nothing */
    int migrated = 0;
    for (int k = 0; k < n; k++)
        migrated |= last(&p[k], "migrated") > 0;
    int n_pan = mig ? (migrated ? 4 : 3) : 2;
    for (int w = 0; w < n_pan; w++) {
        struct svg_panel *pn = svg_fig_panel(&f);
        snprintf(pn->title, sizeof pn->title, "%s", panels[w].title);
        snprintf(pn->xlabel, sizeof pn->xlabel, "time since the first pod (%s)", uname);
        snprintf(pn->ylabel, sizeof pn->ylabel, "%s", panels[w].ylabel);
        pn->ymin = 0;
        for (int k = 0; k < n; k++) {
            int m = n_samples(&p[k]);
            double *x = ss_xcalloc((size_t)m + 1, sizeof *x),
                   *y = ss_xcalloc((size_t)m + 1, sizeof *y);
            for (int i = 0; i < m; i++) {
                x[i] = seed_mean(&p[k], SEED_SAMPLE, "t_s", i, 0) / unit;
                y[i] = seed_mean(&p[k], SEED_SAMPLE, panels[w].key, i, panels[w].counter);
            }
            struct svg_series *s = svg_add(pn, label(&p[k]), k, m, x, y, NULL);
            if (s)
                s->marker_every = m > 40 ? m / 10 : 1;
            svg_fig_legend(&f, label(&p[k]), k, 0);
            free(x);
            free(y);
        }
    }
    int rc = ht_figure(wr, &f, svg_prefix, err, errlen);
    HW_MARK(wr, "<figcaption>One line per placement policy");
    HW_MARKF(wr, ", one sample every %.3g %s", rt_num(doc, "sample_s") / unit, uname);
    if (mig)
        HW_MARK(wr, ". A reconfiguration creates or destroys MIG instances on one GPU while the "
                    "others run; the pod that waits for its new instance starts later by the "
                    "scenario's reconfiguration time. The counters are cumulative");
    if (mig && !migrated)
        HW_MARK(wr, ". No pod was migrated (defragmentation off, or never worth it), so no panel "
                    "of migrations is drawn");
    HW_MARK(wr, ".</figcaption>\n");
    ht_figure_end(wr);
    svg_fig_free(&f);
    return rc;
}

/* The replay's columns; a MIG cluster's counters (the last four) only with MIG. */
static const struct col replay_cols[] = {
    {"pods arrived", COL_EXP, "arrived", "%.0f", 0},
    {"placed (pods)", COL_EXP, "placed", "%.0f", 0},
    {"failed pods (pods)", COL_EXP, "failed", "%.0f", 0},
    {"waited (pods)", COL_EXP, "waited", "%.0f", 1},
    {"mean wait (s)", COL_EXP, "wait_mean_s", "%.3g", 0},
    {"GPUs allocated, time mean (%)", COL_ROW, "alloc_ratio_mean", "%.2f", 0},
    {"fragmentation ratio, time mean (%)", COL_ROW, "frag_ratio_mean", "%.2f", 0},
    {"reconfigurations", COL_LAST, "reconfigs", "%.0f", 0},
    {"instances changed", COL_LAST, "instances_changed", "%.0f", 0},
    {"pods migrated", COL_LAST, "migrated", "%.0f", 0},
    {"downtime (s)", COL_LAST, "downtime_s", "%.0f", 0},
};

/* ---- the page -------------------------------------------------------------------------------- */

static void section_meta(struct hw *wr, const cJSON *doc, const struct pol *p, int n)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "cluster");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(doc, "workload");
    HW_WRAP(wr, "<p class=\"meta\">Scenario <code>", ht_str(doc, "scenario"), "");
    HW_MARKF(wr, "</code>: %.0f nodes, %.0f GPUs; %.0f pods of <code>", rt_num(c, "nodes"),
             rt_num(c, "gpus"), rt_num(w, "pods"));
    HW_WRAP(wr, "", ht_str(w, "label"), "</code>, ");
    if (is_inflate(doc))
        HW_MARKF(wr, "inflated to %g × the cluster's GPUs (order: ", rt_num(doc, "tune"));
    else
        HW_MARK(wr, "replayed with their creation and deletion times (a pod that fits nowhere: ");
    hw_text(wr, ht_str(doc, is_inflate(doc) ? "order" : "unplaced"));
    HW_MARKF(wr, "); %d polic%s, %d seed%s. Made by <code>sharesim cluster ", n,
             n == 1 ? "y" : "ies", n ? p[0].n_exp : 0, n && p[0].n_exp == 1 ? "" : "s");
    HW_WRAP(wr, "", ht_str(doc, "scenario"), "</code>.</p>\n");
}

/* The page, written to the caller's stream only through the writer (hw.h). */
int ht_cluster_page(FILE *fp, const struct ht_cluster *cs, char *err, size_t errlen)
{
    struct hw w, *wr = &w;
    hw_init(wr, fp);
    if (cs->n_docs < 1)
        return ss_errf(err, errlen,
                       "a cluster page needs at least one `sharesim cluster --json` "
                       "result");
    for (int d = 0; d < cs->n_docs; d++)
        if (!ht_is_cluster_run(cs->docs[d]))
            return ss_errf(err, errlen,
                           "result %d is not a `sharesim cluster --json` result (it needs "
                           "\"cluster\", \"summary\" and \"experiments\")",
                           d + 1);
    char title[300];
    if (cs->title && *cs->title)
        snprintf(title, sizeof title, "%s", cs->title);
    else
        snprintf(title, sizeof title, "Cluster placement: %s", ht_str(cs->docs[0], "name"));
    ht_head(wr, title);
    HW_WRAP(wr, "<h1>", title, "</h1>\n<p class=\"question\"><strong>Question.</strong> ");
    if (cs->question && *cs->question)
        hw_text(wr, cs->question);
    else
        HW_MARK(wr, "Which placement policy leaves the fewest of the cluster's GPUs unallocated "
                    "and fragmented as the workload arrives, and what do the layouts cost?");
    HW_MARK(wr, "</p>\n<p class=\"verdict\"><strong>Verdict.</strong> ");
    struct pol *pols = ss_xcalloc(CL_MAX_POL, sizeof *pols);
    for (int d = 0; d < cs->n_docs; d++) {
        const cJSON *doc = cs->docs[d];
        int n = policies(doc, pols, CL_MAX_POL);
        if (cs->n_docs > 1) {
            HW_MARK2(wr, d, " <em>", "<em>");
            HW_WRAP(wr, "", ht_str(doc, "name"), ":</em> ");
        }
        if (n == 0)
            HW_MARK(wr, "no policy in the result.");
        else if (is_inflate(doc))
            inflate_verdict(wr, pols, n);
        else
            replay_verdict(wr, doc, pols, n);
    }
    HW_MARK(wr, "</p>\n");
    if (cs->requests && *cs->requests)
        HW_MDWRAP(wr, "<p class=\"meta\">", cs->requests, "</p>\n");
    HW_MARK(wr, "<nav>Contents:");
    for (int d = 0; d < cs->n_docs; d++)
        HW_WRAPF(wr, ht_str(cs->docs[d], "name"), "</a>", " <a href=\"#cluster-%d\">", d + 1);
    if (cJSON_GetArraySize(cs->notes))
        HW_MARK(wr, " <a href=\"#notes\">notes</a>");
    HW_MARK(wr, "</nav>\n");
    int rc = 0, n_inflate = 0, n_replay = 0; /* figure ids: placement, placement-2, … */
    for (int d = 0; d < cs->n_docs && rc == 0; d++) {
        const cJSON *doc = cs->docs[d];
        int n = policies(doc, pols, CL_MAX_POL);
        HW_WRAPF(wr, ht_str(doc, "name"), "", "<h2 id=\"cluster-%d\">", d + 1);
        HW_MARK2(wr, is_inflate(doc), ": placement under workload inflation</h2>\n",
                 ": the trace replayed</h2>\n");
        section_meta(wr, doc, pols, n);
        if (n == 0)
            continue;
        /* the page's verdict is the first result's: its figure comes first (report check) */
        int first = n_inflate + n_replay == 0;
        if (is_inflate(doc)) {
            rc = inflate_figure(wr, pols, n, n_inflate++, first, cs->svg_prefix, err, errlen);
            table(wr, pols, n, inflate_cols, (int)(sizeof inflate_cols / sizeof inflate_cols[0]));
            HW_MARKF(
                wr,
                "<p class=\"meta\">Means over %d seed%s (sd: their standard deviation, – with one "
                "seed). A failed pod is one that fit no node when it arrived; with the workload "
                "inflated to %g × the cluster's GPUs some must fail.</p>\n",
                pols[0].n_exp, pols[0].n_exp == 1 ? "" : "s", rt_num(doc, "tune"));
        } else {
            rc = replay_figure(wr, doc, pols, n, n_replay++, first, cs->svg_prefix, err, errlen);
            int nc = (int)(sizeof replay_cols / sizeof replay_cols[0]);
            table(wr, pols, n, replay_cols, has_mig(pols, n) ? nc : nc - 4);
        }
    }
    if (rc == 0) {
        ht_notes(wr, cs->notes);
        ht_foot(wr);
    }
    free(pols);
    return rc;
}
