/*
 * htllm — an LLM study's figure (htpage.h; its token table is html.c's, from the metric table's
 * LLM level, docs/llm.md#results), which answers "which strategy meets which service's
 * targets": one row per LLM service, a panel per target (TTFT p99, TPOT p99), the strategies
 * across, each strategy's p99 as a marker in its page style — hollow where it misses — beside
 * the service's SLA line.
 *
 * An LLM service's SLA is on its tokens, not on the arrival-to-last-token latency the
 * latency distribution and the request table show (a long answer is slow by design), so
 * without this figure a page would judge LLM strategies on a figure no one sets a target for.
 * Nothing is drawn for results without LLM tenants: every other page stays as it was.
 */
#include "report/htint.h"
#include "report/htpage.h"
#include "core/llmstats.h"
#include "core/rdoc.h"

#include <math.h>
#include <string.h>

/* The two targets an LLM service sets, as the figure's rows. */
static const struct {
    int index; /* of the metric table's LLM level */
    const char *sla_key, *what;
} targets[] = {{LM_TTFT_P99, "ttft_p99_ms", "TTFT p99"}, {LM_TPOT_P99, "tpot_p99_ms", "TPOT p99"}};
#define N_TARGETS ((int)(sizeof targets / sizeof targets[0]))

/* Target q's figure (ms) of `tenant` under strategy k of the main result; NaN: none. */
static double target_of(const struct page *pg, int k, const char *tenant, int q)
{
    return rd_fig(rd_tenant(rd_strategy(pg->doc, pg->strat[k]), tenant), MT_LLM, targets[q].index);
}

/* One panel: service `tenant`, target q, every strategy of the main result across. */
static int llm_panel(struct svg_figure *f, const struct page *pg, const char *tenant, int q)
{
    struct svg_panel *p = svg_fig_panel(f);
    if (!p)
        return 0;
    snprintf(p->title, sizeof p->title, "%.60s: %s", tenant, targets[q].what);
    snprintf(p->tenant, sizeof p->tenant, "%.63s", tenant);
    snprintf(p->metric, sizeof p->metric, "%s", targets[q].sla_key);
    snprintf(p->empty_why, sizeof p->empty_why, "no %s measured", targets[q].what);
    p->llm = 1;
    snprintf(p->xlabel, sizeof p->xlabel, "strategy");
    p->xa = SVG_CAT;
    p->latency = 1;
    double sla = vj_sla_ms(pg->st->sc, pg->doc, tenant, targets[q].sla_key);
    double all[MAX_NAMES + 1], hi = -INFINITY;
    int n_all = 0, drawn = 0;
    for (int k = 0; k < pg->n_strat; k++) {
        double v = target_of(pg, k, tenant, q);
        hi = isfinite(v) && v > hi ? v : hi;
        svg_cat(p, pg->strat[k]);
        if (isfinite(v) && v > 0)
            all[n_all++] = v;
    }
    if (isfinite(sla))
        all[n_all++] = sla;
    /* The axis in seconds where the target (or the worst value) is a second or more. */
    const char *unit = ht_latency_unit(sla, hi);
    double div = strcmp(unit, "s") == 0 ? 1000 : 1;
    snprintf(p->ylabel, sizeof p->ylabel, "%s (%s)", targets[q].what, unit);
    for (int k = 0; k < n_all; k++)
        all[k] /= div;
    p->ya = svg_auto_axis(all, n_all);
    for (int k = 0; k < pg->n_strat; k++) {
        double x = k, v = target_of(pg, k, tenant, q) / div;
        unsigned char miss = isfinite(sla) && !(v * div <= sla);
        struct svg_series *s = svg_add(p, pg->strat[k], ht_pg_style(pg, k, 0), 1, &x, &v, &miss);
        if (s) {
            s->points_only = 1;
            drawn++;
        }
    }
    if (isfinite(sla)) {
        char w[64];
        ht_sla_words(w, sizeof w, targets[q].what, sla, unit);
        svg_ref(p, 0, sla / div, SVG_REF_SLA, "%s", w);
        snprintf(p->note, sizeof p->note, "%s; hollow: misses it", w);
    } else {
        snprintf(p->note, sizeof p->note, "no SLA: no %s target in the scenario", targets[q].what);
    }
    return drawn;
}

int ht_llm_figure(struct hw *wr, const struct page *pg, char *err, size_t errlen)
{
    if (!rd_has_llm(pg->doc))
        return 0;
    char llm[MAX_NAMES][64];
    int n = 0;
    for (int i = 0; i < pg->n_ten; i++) {
        int is_llm = 0;
        const cJSON *s;
        RD_EACH_STRATEGY(s, pg->doc)
        {
            is_llm |= rd_is_llm(rd_tenant(s, pg->ten[i]));
        }
        if (is_llm)
            snprintf(llm[n++], sizeof llm[0], "%s", pg->ten[i]);
    }
    struct svg_figure f;
    /* One row per service, its two targets side by side: the page is three panels wide. */
    svg_fig_init(&f, "llm-sla", "TTFT and TPOT p99 of each LLM service under each strategy",
                 N_TARGETS, PANEL_W, PANEL_H);
    int drawn = 0;
    for (int i = 0; i < n; i++)
        for (int q = 0; q < N_TARGETS; q++)
            drawn += llm_panel(&f, pg, llm[i], q);
    for (int k = 0; k < pg->n_strat; k++)
        svg_fig_legend(&f, pg->strat[k], ht_pg_style(pg, k, 0), 1);
    int rc = 0;
    if (drawn) {
        HW_MARK(wr, "<h2 id=\"llm\">TTFT and TPOT of each service</h2>\n");
        f.verdict = !*pg->figure_drawn;
        rc = ht_figure(wr, &f, pg->st->svg_prefix, err, errlen);
        *pg->figure_drawn = 1;
        HT_CAPTION(wr, "One row per LLM service: its time to first token (left) and its time per "
                       "output token after the first (right). Across: the strategies; up: "
                       "the service's p99 under each (a log scale where it spans decades). The "
                       "dashed black line is the service's target; a hollow marker misses it. A "
                       "strategy with no marker measured no such token.");
        ht_figure_end(wr);
    }
    svg_fig_free(&f);
    return rc;
}
