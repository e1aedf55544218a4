/*
 * htverdict — the question a study page answers and its verdict in one sentence (htpage.h),
 * computed from the results: the strategy that meets every tenant's SLA at the lowest cost
 * (or on the fewest GPUs), the others that meet them, the misses (said once for strategies
 * with the same latencies), up to which swept value the winner keeps its SLAs, and which
 * strategies give identical latencies and what still tells them apart.
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

/* ---- the verdict ---------------------------------------------------------------------------- */

/* Two strategies give every tenant the same latency: every request latency of the metric table
 * (those that may lie past the histogram's range) reads the same, as written. */
static int same_latency(const cJSON *a, const cJSON *b)
{
    const cJSON *t;
    int k = 0;
    if (rd_n_tenants(a) != rd_n_tenants(b))
        return 0;
    RD_EACH_TENANT(t, a)
    {
        const cJSON *u = cJSON_GetArrayItem(rd_tenants(b), k++);
        for (int m = 0; m < mt_count(); m++) {
            const struct mt_metric *mm = mt_at(m);
            char x[64], y[64];
            if (mm->level != MT_TENANT || !mm->range)
                continue;
            mt_doc_text(mm, t, "%.17g", x, sizeof x);
            mt_doc_text(mm, u, "%.17g", y, sizeof y);
            if (strcmp(x, y) != 0)
                return 0;
        }
    }
    return 1;
}

/* What still tells two strategies with the same latencies apart: cost, then GPUs. */
static void same_clause(struct hw *wr, const struct page *pg, const cJSON *a, const cJSON *b,
                        int ia, int ib)
{
    double ca = rd_fig(a, MT_STRATEGY, SM_COST_PER_MREQ),
           cb = rd_fig(b, MT_STRATEGY, SM_COST_PER_MREQ);
    double ga = rd_fig(a, MT_STRATEGY, MT_SM_GPUS_USED),
           gb = rd_fig(b, MT_STRATEGY, MT_SM_GPUS_USED);
    if (isfinite(ca) && isfinite(cb) && ca != cb) {
        HW_WRAP(wr, ", and <strong>", pg->strat[ca < cb ? ia : ib], "");
        HW_MARKF(wr, "</strong> costs less ($%.2f against $%.2f per million requests)",
                 ca < cb ? ca : cb, ca < cb ? cb : ca);
    } else if (isfinite(ga) && isfinite(gb) && ga != gb) {
        HW_WRAP(wr, ", so <strong>", pg->strat[ga < gb ? ia : ib], "");
        HW_MARKF(wr, "</strong> is the better layout: it needs %.0f GPUs against %.0f",
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
        if (ht_pg_rest(pg, d) != r)
            continue;
        const cJSON *s = rd_strategy(pg->st->docs[d], pg->strat[k]);
        if (!s)
            continue;
        struct vj_strategy j;
        vj_judge_strategy(pg->st->sc, pg->st->docs[d], s, &j);
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

static void sweep_clause(struct hw *wr, const struct page *pg, int k)
{
    double x = NAN, miss = NAN;
    char v[64], w[64];
    int h = holds_to_miss(pg, k, 0, &x, &miss);
    ht_axis_value(&pg->ax, x, v, sizeof v);
    ht_axis_value(&pg->ax, miss, w, sizeof w);
    if (h == 1)
        HW_MARKF(wr, ", and keeps them over the whole %s sweep (up to %s)",
                 pg->param_sweep ? "" : "load", v);
    else if (h == 0)
        HW_MARKF(wr, "; it keeps them up to %s%s and misses at %s",
                 pg->param_sweep ? "" : "the load ", v, w);
    else
        HW_MARKF(wr, ", but not at the sweep's lowest %s", pg->param_sweep ? "value" : "load");
}

/* Does some tenant have an SLA (any target of core/verdict.h, or a p99 a sweep point sets)? */
static int any_sla(const struct page *pg)
{
    for (int i = 0; pg->st->sc && i < pg->st->sc->n_tenants; i++)
        if (pg->st->sc->tenants[i].sla.set)
            return 1;
    return ht_pg_has_sla(pg, "p99_ms");
}

static void verdict_param_sweep(struct hw *wr, const struct page *pg)
{
    char lo[64], hi[64];
    ht_axis_value(&pg->ax, pg->ax.x[pg->order[0]], lo, sizeof lo);
    ht_axis_value(&pg->ax, pg->ax.x[pg->order[pg->st->n_docs - 1]], hi, sizeof hi);
    if (!any_sla(pg)) {
        HW_MARKF(wr,
                 "No tenant has an SLA in the scenario; the figures show how each metric "
                 "moves from %s to %s.",
                 lo, hi);
        return;
    }
    HW_WRAP(wr, "Over ", pg->ax.label, "");
    HW_MARKF(wr, " from %s to %s, ", lo, hi);
    int shown = 0;
    for (int r = 0; r < pg->n_rest && shown < 8; r++)
        for (int k = 0; k < pg->n_strat && shown < 8; k++, shown++) {
            double x = NAN;
            char lab[200], v[64];
            int h = holds_to_miss(pg, k, r, &x, NULL);
            ht_axis_value(&pg->ax, x, v, sizeof v);
            ht_pg_label(pg, k, r, lab, sizeof lab);
            HW_MARK2(wr, shown, "; ", "");
            HW_WRAP(wr, "<strong>", lab, "</strong>");
            if (h == 1)
                HW_MARK(wr, " keeps every SLA throughout");
            else if (h == 0)
                HW_MARKF(wr, " keeps every SLA up to %s", v);
            else
                HW_MARK(wr, " misses an SLA from the start");
        }
    HW_MARK(wr, ".");
}

/* A strategy NVIDIA does not offer (a hypothetical vGPU scheduler) is said to be one where
 * the verdict names it: a reader must not go looking for it in the vGPU manager. */
static void not_offered(struct hw *wr, const cJSON *s)
{
    const char *sched = rd_vgpu_scheduler(s);
    if (strncmp(sched, "hypothetical", 12) == 0)
        HW_MARK(wr, " (a hypothetical scheduler, not one NVIDIA offers)");
}

/* Is strategy a cheaper than b (cost per million requests, then GPUs used)? */
static int cheaper(const cJSON *a, const cJSON *b)
{
    double ca = rd_fig(a, MT_STRATEGY, SM_COST_PER_MREQ),
           cb = rd_fig(b, MT_STRATEGY, SM_COST_PER_MREQ);
    if (isfinite(ca) && isfinite(cb) && ca != cb)
        return ca < cb;
    return rd_fig(a, MT_STRATEGY, MT_SM_GPUS_USED) < rd_fig(b, MT_STRATEGY, MT_SM_GPUS_USED);
}

void ht_verdict(struct hw *wr, const struct page *pg)
{
    HW_MARK(wr, "<p class=\"verdict\"><strong>Verdict.</strong> ");
    if (pg->param_sweep && pg->sweep) {
        verdict_param_sweep(wr, pg);
        HW_MARK(wr, "</p>\n");
        return;
    }
    const cJSON *doc = pg->doc, *s;
    int best = -1, n_ok = 0, n_sla = 0, k = 0, closest = -1;
    double close_lost = 0, best_cost = INFINITY, best_gpus = INFINITY, best_ratio = INFINITY,
           close_r = INFINITY;
    struct vj_strategy j;
    const cJSON *all = rd_strategies(doc);
    cJSON_ArrayForEach(s, all)
    {
        vj_judge_strategy(pg->st->sc, doc, s, &j);
        n_sla = j.n_sla > n_sla ? j.n_sla : n_sla;
        if (j.meets && j.n_sla > 0) {
            n_ok++;
            double c = rd_fig(s, MT_STRATEGY, SM_COST_PER_MREQ);
            double g = rd_fig(s, MT_STRATEGY, MT_SM_GPUS_USED);
            c = isfinite(c) ? c : INFINITY;
            g = isfinite(g) ? g : INFINITY;
            if (best < 0 || vd_cheaper(c, g, j.worst_ratio, best_cost, best_gpus, best_ratio) > 0) {
                best = k;
                best_cost = c;
                best_gpus = g;
                best_ratio = j.worst_ratio;
            }
        } else if (!j.meets && isfinite(j.worst_ratio) &&
                   (closest < 0 || vd_closer(j.lost_miss, j.worst_ratio, close_lost, close_r) > 0 ||
                    (vd_closer(j.lost_miss, j.worst_ratio, close_lost, close_r) == 0 &&
                     cheaper(s, cJSON_GetArrayItem(all, closest))))) {
            close_r = j.worst_ratio;
            close_lost = j.lost_miss;
            closest = k;
        }
        k++;
    }
    int n_all = cJSON_GetArraySize(all);
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "cluster")) && n_all == 0) {
        HW_MARK(wr,
                "The figures below compare the placement policies as the workload arrives.</p>\n");
        return;
    }
    if (n_sla == 0) {
        int lo = -1;
        double lo_v = INFINITY;
        k = 0;
        cJSON_ArrayForEach(s, all)
        {
            vj_judge_strategy(pg->st->sc, doc, s, &j);
            if (j.worst_p99_ms < lo_v) {
                lo_v = j.worst_p99_ms;
                lo = k;
            }
            k++;
        }
        char v[32];
        ht_fmt_ms(v, sizeof v, lo_v);
        HW_MARK(wr, "No tenant has an SLA in the scenario; ");
        if (lo >= 0) {
            HW_WRAP(wr, "<strong>", pg->strat[lo], "");
            HW_MARKF(wr, "</strong> gives the lowest worst-tenant p99 (%s)", v);
        }
        HW_MARK(wr, ".</p>\n");
        return;
    }
    if (best >= 0) {
        HW_WRAP(wr, "<strong>", pg->strat[best], "</strong>");
        not_offered(wr, cJSON_GetArrayItem(all, best));
        HW_MARK2(wr, n_ok == 1, " is the only strategy that meets every tenant's SLA",
                 " meets every tenant's SLA");
        if (isfinite(best_cost)) /* text: nothing in it to escape */
            hw_textf(wr,
                     n_ok == 1 ? " ($%.2f per million requests)"
                               : " at the lowest cost, $%.2f per million requests",
                     best_cost);
        else if (isfinite(best_gpus))
            hw_textf(wr, n_ok == 1 ? " (on %.0f GPUs)" : " on the fewest GPUs (%.0f)", best_gpus);
        if (n_ok > 1) { /* the others that meet them: named when few */
            int named = 0;
            k = 0;
            if (n_ok == 2)
                HW_MARK(wr, "; so does ");
            else if (n_ok == 3)
                HW_MARK(wr, "; so do ");
            cJSON_ArrayForEach(s, all)
            {
                vj_judge_strategy(pg->st->sc, doc, s, &j);
                if (n_ok <= 3 && j.meets && j.n_sla > 0 && k != best) {
                    double c = rd_fig(s, MT_STRATEGY, SM_COST_PER_MREQ);
                    HW_MARK2(wr, named++, " and <strong>", "<strong>");
                    HW_WRAP(wr, "", pg->strat[k], "</strong>");
                    not_offered(wr, s);
                    if (isfinite(c))
                        HW_MARKF(wr, " ($%.2f)", c);
                }
                k++;
            }
            if (n_ok > 3)
                HW_MARKF(wr, " (%d of the %d strategies meet them all)", n_ok, n_all);
        }
        if (pg->sweep)
            sweep_clause(wr, pg, best);
    } else {
        HW_MARK(wr, "No strategy meets every tenant's SLA");
        if (closest >= 0) {
            cJSON_ArrayForEach(s, all)
            {
                if (strcmp(rd_name(s), pg->strat[closest]) == 0)
                    vj_judge_strategy(pg->st->sc, doc, s, &j);
            }
            HW_WRAP(wr, "; the closest is <strong>", pg->strat[closest], "</strong>");
            not_offered(wr, cJSON_GetArrayItem(all, closest));
            HW_WRAPF(wr, j.miss, ")", ", where %d of %d tenants miss (", j.n_miss,
                     rd_n_tenants(cJSON_GetArrayItem(all, closest)));
        }
    }
    /* The misses of the others (at most two), and strategies that are the same for latency. */
    int told = 0, listed[2];
    k = 0;
    cJSON_ArrayForEach(s, all)
    {
        vj_judge_strategy(pg->st->sc, doc, s, &j);
        /* Latencies the same as a strategy already named: said once, below. */
        int dup = closest >= 0 && best < 0 && same_latency(s, cJSON_GetArrayItem(all, closest));
        for (int q = 0; q < told && !dup; q++)
            dup = same_latency(s, cJSON_GetArrayItem(all, listed[q]));
        if (!j.meets && !dup && told < 2) {
            listed[told] = k;
            HW_MARK(wr, "; ");
            HW_WRAP(wr, "<strong>", pg->strat[k], "</strong>");
            not_offered(wr, s);
            HW_WRAP(wr, " misses (", j.miss, ")");
            told++;
        }
        k++;
    }
    int pairs = 0;
    for (int a = 0; a < n_all && pairs < 2; a++)
        for (int b = a + 1; b < n_all && pairs < 2; b++)
            if (same_latency(cJSON_GetArrayItem(all, a), cJSON_GetArrayItem(all, b))) {
                HW_WRAP(wr, "; <strong>", pg->strat[a], "</strong> and <strong>");
                HW_WRAP(wr, "", pg->strat[b], "</strong> give every tenant the same latency");
                same_clause(wr, pg, cJSON_GetArrayItem(all, a), cJSON_GetArrayItem(all, b), a, b);
                pairs++;
            }
    HW_MARK(wr, ".</p>\n");
}

void ht_question(struct hw *wr, const struct page *pg)
{
    HW_MARK(wr, "<p class=\"question\"><strong>Question.</strong> ");
    if (pg->st->question && *pg->st->question) {
        hw_md(wr, pg->st->question);
    } else if (pg->param_sweep && pg->sweep) {
        HW_WRAP(wr, "How do the tenants' latencies change with ", pg->ax.label,
                ", and up to where does each strategy keep every SLA?");
    } else {
        HW_MARK(wr, "Which strategy serves every tenant of <code>");
        struct rd_head h;
        rd_head_of(pg->doc, &h);
        HW_WRAP(wr, "", h.scenario, "</code> within its SLA at the lowest cost?");
    }
    HW_MARK(wr, "</p>\n");
}
