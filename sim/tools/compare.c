/*
 * compare — see compare.h.
 *
 * Latency decomposition (means over completed requests): latency = wait before first service
 * (queueing) + the request's work on a whole GPU (service) + the rest of its time in service,
 * which is what sharing added: other contexts' slices and switches under time-slicing or vGPU,
 * the smaller instance under MIG, co-running clients under MPS.
 */
#include "tools/compare.h"
#include "base/jsonv.h"
#include "base/util.h"
#include "core/llmstats.h"
#include "core/metric.h"
#include "core/policy.h"
#include "core/stable.h"
#include "core/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What sharing adds to the time in service, as the strategy's policy names it. */
static const char *excess_name(const struct strategy_cfg *st)
{
    const struct policy_hooks *h = st->ops->hooks;
    return h && h->label ? h->label(st->cfg) : "slowed service";
}

/* The columns of a tenant's table and their keys in --json/--csv: the metric table's figures
 * with a `compare` rank (core/metric.h) and the slowdown. An LLM tenant's token figures follow
 * the plain columns in its table and, when the scenario has one, in every row of --json/--csv
 * (null for a plain tenant): the CSV's columns do not depend on the tenants' order. */
#define CMP_COLS (MT_COLS_MAX + 1)
#define CMP_MAX 64
/* p99 / the baseline's p99: compare's own column at rank 4, not a result field. */
static const struct mt_metric slowdown = {.path = "slowdown",
                                          .better = -1,
                                          .show_scale = 1,
                                          .cmp = 4,
                                          .cmp_key = "slowdown",
                                          .cmp_head = "slowdown",
                                          .cmp_fmt = "%.2f",
                                          .cmp_width = 10};

struct cmp_cols {
    const struct mt_metric *c[CMP_COLS];
    int n, n_plain; /* all, and those before the first LLM figure */
};

static void cmp_cols_of(struct cmp_cols *cc)
{
    const struct mt_metric *m[MT_COLS_MAX];
    int n = mt_columns(MT_LEVELS, MT_CMP, m), slow = 0;
    cc->n = 0;
    for (int k = 0; k <= n; k++) {
        if (!slow && (k == n || m[k]->cmp > slowdown.cmp))
            cc->c[cc->n++] = &slowdown, slow = 1;
        if (k < n)
            cc->c[cc->n++] = m[k];
    }
    for (cc->n_plain = 0; cc->n_plain < cc->n && cc->c[cc->n_plain]->level != MT_LLM;)
        cc->n_plain++;
}

/* One tenant's table: v[k][c] for strategy k, column c (as shown: SLA in %), best[c] its best
 * row; n_cols: the plain columns, or all for an LLM tenant. */
struct cmp_tenant {
    struct cmp_cols cols;
    int n, n_cols;
    double v[CMP_MAX][CMP_COLS];
    int best[CMP_COLS];
};

/* Does strategy k meet every tenant's SLA (core/verdict.h)? */
static int strategy_meets_r(const struct scenario *sc, const struct run_result *r, int k,
                            double *worst_ratio)
{
    struct vd_strategy s;
    vd_judge_strategy(sc, &r->s[k], &s);
    if (worst_ratio)
        *worst_ratio = s.worst_ratio;
    return s.meets;
}

static int strategy_meets(const struct scenario *sc, const struct run_result *r, int k)
{
    return strategy_meets_r(sc, r, k, NULL);
}

static void tenant_cells(const struct scenario *sc, const struct run_result *r, int i, int base,
                         struct cmp_tenant *ct)
{
    ct->n = r->n < CMP_MAX ? r->n : CMP_MAX;
    cmp_cols_of(&ct->cols);
    ct->n_cols = sc->tenants[i].llm ? ct->cols.n : ct->cols.n_plain;
    memset(ct->best, 0, sizeof ct->best);
    for (int k = 0; k < ct->n; k++) {
        double bp99 = r->s[base].t[(size_t)i * TM_N + TM_LAT_P99];
        for (int c = 0; c < ct->cols.n; c++) {
            const struct mt_metric *col = ct->cols.c[c];
            ct->v[k][c] = col == &slowdown
                              ? r->s[k].t[(size_t)i * TM_N + TM_LAT_P99] / bp99
                              : mt_shown(col, sc, &r->s[k], i) * col->out_scale * col->show_scale;
            if (!col->cmp_meeting && (k == 0 || mt_better(col, ct->v[k][c], ct->v[ct->best[c]][c])))
                ct->best[c] = k;
        }
    }
    /* A cost's mark goes to the cheapest strategy that meets every SLA, never to a cheaper one
     * that misses one (-1: none meets them all). */
    for (int c = 0; c < ct->cols.n; c++) {
        if (!ct->cols.c[c]->cmp_meeting)
            continue;
        ct->best[c] = -1;
        for (int k = 0; k < ct->n; k++)
            if (strategy_meets(sc, r, k) && isfinite(ct->v[k][c]) &&
                (ct->best[c] < 0 || mt_better(ct->cols.c[c], ct->v[k][c], ct->v[ct->best[c]][c])))
                ct->best[c] = k;
    }
}

static void print_tenant(FILE *fp, const struct scenario *sc, const struct run_result *r, int i,
                         int base)
{
    struct cmp_tenant ct;
    tenant_cells(sc, r, i, base, &ct);
    /* Columns widen for large numbers (an overloaded tenant's p99) rather than run together. */
    int w[CMP_COLS];
    for (int c = 0; c < ct.cols.n; c++)
        w[c] = ct.cols.c[c]->cmp_width;
    char(*cell)[CMP_COLS][32] = ss_xcalloc((size_t)(ct.n ? ct.n : 1), sizeof *cell);
    for (int k = 0; k < ct.n; k++)
        for (int c = 0; c < ct.n_cols; c++) {
            int n = isfinite(ct.v[k][c])
                        ? snprintf(cell[k][c], sizeof cell[k][c], ct.cols.c[c]->cmp_fmt, ct.v[k][c])
                        : snprintf(cell[k][c], sizeof cell[k][c], "-");
            if (isfinite(ct.v[k][c]) && ct.best[c] == k && n < 30)
                strcat(cell[k][c], "*");
            if ((int)strlen(cell[k][c]) > w[c])
                w[c] = (int)strlen(cell[k][c]);
        }
    const struct lsv_cfg *l = sc->tenants[i].llm;
    int sla =
        sc->tenants[i].sla_p99_s > 0 || (l && (l->sla_ttft_p99_s > 0 || l->sla_tpot_p99_s > 0));
    fprintf(fp, "\ntenant %s%s\n", sc->tenants[i].name, sla ? "" : " (no SLA)");
    fprintf(fp, "  %-14s", "strategy");
    for (int c = 0; c < ct.n_cols; c++)
        fprintf(fp, " %*s", w[c], ct.cols.c[c]->cmp_head);
    fprintf(fp, "%s\n", sla ? "  verdict" : "");
    for (int k = 0; k < ct.n; k++) {
        fprintf(fp, "  %-14s", r->s[k].name);
        for (int c = 0; c < ct.n_cols; c++)
            fprintf(fp, " %*s", w[c], cell[k][c]);
        /* The tenant's verdict (✓, or ✗ and why), which also names an unstable one. */
        struct vd_verdict v;
        char vc[VD_REASON_MAX + 8];
        vd_judge(sc, &r->s[k], i, &v);
        vd_cell(&v, vc, sizeof vc);
        if (sla)
            fprintf(fp, "  %s\n", vc);
        else
            fprintf(fp, "%s\n", stab_state(&r->s[k], i) == 0 ? "  unstable" : "");
    }
    free(cell);
}

/* A strategy's latency decomposition: means over completed requests, weighted by them. */
struct cmp_dom {
    double n, mean_s, q, w, ex; /* completions; mean latency; the three parts' fractions */
    const char *dom;            /* what dominates: "queueing", "service" or the excess label */
};

/* s is the result of st. An LLM tenant has no work on a whole GPU to split its latency by (its
 * time is the engine's steps: its TTFT and TPOT columns), so only plain tenants count here. */
static void dominant(const struct scenario *sc, const struct strategy_cfg *st,
                     const struct strategy_result *s, struct cmp_dom *d)
{
    double q = 0, w = 0, l = 0, n = 0;
    for (int i = 0; i < s->n_tenants; i++) {
        const double *t = s->t + (size_t)i * TM_N;
        if (sc->tenants[i].llm || !isfinite(t[TM_LAT_MEAN]) || t[TM_COMPLETED] <= 0)
            continue;
        q += t[TM_COMPLETED] * t[TM_WAIT_MEAN];
        w += t[TM_COMPLETED] * t[TM_WORK_MEAN];
        l += t[TM_COMPLETED] * t[TM_LAT_MEAN];
        n += t[TM_COMPLETED];
    }
    memset(d, 0, sizeof *d);
    d->n = n;
    if (n == 0 || l <= 0) {
        d->n = 0;
        return;
    }
    double ex = l - q - w;
    if (ex < 0)
        ex = 0; /* faster than a whole GPU cannot happen; rounding only */
    d->mean_s = l / n;
    d->q = q / l;
    d->w = w / l;
    d->ex = ex / l;
    d->dom = q >= w && q >= ex ? "queueing" : ex >= w ? excess_name(st) : "service";
}

static void print_dominant(FILE *fp, const struct scenario *sc, const struct strategy_cfg *st,
                           const struct strategy_result *s)
{
    struct cmp_dom d;
    dominant(sc, st, s, &d);
    if (d.n == 0) {
        fprintf(fp, "  %-14s %s\n", s->name,
                run_has_llm(sc) ? "no plain tenant's request completed" : "nothing completed");
        return;
    }
    fprintf(fp, "  %-14s mean %.3f ms = queueing %.0f%% + service %.0f%% + %s %.0f%%", s->name,
            d.mean_s * 1e3, 100 * d.q, 100 * d.w, excess_name(st), 100 * d.ex);
    if (s->m[SM_SWITCH] > 0)
        fprintf(fp, " (switching %.2f%% of GPU time)", 100 * s->m[SM_SWITCH]);
    fprintf(fp, " — %s dominates\n", d.dom);
}

/* The rows of --json and --csv: one per tenant × strategy, in the table's order. */
cJSON *cmp_rows(const struct scenario *sc, const struct run_result *r, int base)
{
    cJSON *rows = cJSON_CreateArray();
    struct cmp_cols cc;
    cmp_cols_of(&cc);
    int n_cols = run_has_llm(sc) ? cc.n : cc.n_plain;
    for (int i = 0; i < sc->n_tenants; i++) {
        struct cmp_tenant ct;
        tenant_cells(sc, r, i, base, &ct);
        for (int k = 0; k < ct.n; k++) {
            cJSON *o = cJSON_CreateObject(), *best = cJSON_CreateArray();
            cJSON_AddStringToObject(o, "tenant", sc->tenants[i].name);
            cJSON_AddStringToObject(o, "strategy", r->s[k].name);
            for (int c = 0; c < n_cols; c++) {
                jv_out_add(o, cc.c[c]->cmp_key, ct.v[k][c] / cc.c[c]->show_scale);
                if (ct.best[c] == k && isfinite(ct.v[k][c]))
                    cJSON_AddItemToArray(best, cJSON_CreateString(cc.c[c]->cmp_key));
            }
            cJSON_AddItemToObject(o, "best", best);
            int st = stab_state(&r->s[k], i);
            if (st < 0)
                cJSON_AddNullToObject(o, "stable");
            else
                cJSON_AddBoolToObject(o, "stable", st);
            struct vd_verdict v;
            vd_judge(sc, &r->s[k], i, &v);
            if (v.has_sla) {
                cJSON_AddBoolToObject(o, "meets_sla", v.meets);
                if (v.meets)
                    cJSON_AddNullToObject(o, "sla_reason");
                else
                    cJSON_AddStringToObject(o, "sla_reason", v.reason);
            } else {
                cJSON_AddNullToObject(o, "meets_sla");
                cJSON_AddNullToObject(o, "sla_reason");
            }
            cJSON_AddItemToArray(rows, o);
        }
    }
    return rows;
}

/* The cheapest strategy that meets every tenant's SLA (vd_cheaper's order, then scenario
 * order), or -1. */
static int cheapest_meeting(const struct scenario *sc, const struct run_result *r)
{
    int best = -1;
    double best_ratio = INFINITY;
    for (int k = 0; k < r->n; k++) {
        double ratio;
        if (!strategy_meets_r(sc, r, k, &ratio))
            continue;
        if (best < 0 ||
            vd_cheaper(r->s[k].m[SM_COST_PER_MREQ], r->s[k].gpus_used, ratio,
                       r->s[best].m[SM_COST_PER_MREQ], r->s[best].gpus_used, best_ratio) > 0) {
            best = k;
            best_ratio = ratio;
        }
    }
    return best;
}

cJSON *cmp_json(const struct scenario *sc, const struct run_result *r, int base)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "scenario", sc->name);
    cJSON_AddStringToObject(doc, "gpu", sc->gpu.name);
    cJSON_AddNumberToObject(doc, "gpus", sc->gpus);
    cJSON_AddNumberToObject(doc, "seed", (double)r->seed);
    cJSON_AddNumberToObject(doc, "replications", r->replications);
    cJSON_AddStringToObject(doc, "baseline", sc->strategies[base].name);
    cJSON_AddItemToObject(doc, "rows", cmp_rows(sc, r, base));
    int cheapest = cheapest_meeting(sc, r);
    if (cheapest >= 0)
        cJSON_AddStringToObject(doc, "cheapest_meeting_sla", r->s[cheapest].name);
    else
        cJSON_AddNullToObject(doc, "cheapest_meeting_sla");
    cJSON *lat = cJSON_AddArrayToObject(doc, "latency");
    for (int k = 0; k < r->n; k++) {
        struct cmp_dom d;
        dominant(sc, &sc->strategies[k], &r->s[k], &d);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "strategy", r->s[k].name);
        jv_out_add(o, "mean_ms", d.n > 0 ? d.mean_s * 1e3 : NAN);
        jv_out_add(o, "queueing", d.n > 0 ? d.q : NAN);
        jv_out_add(o, "service", d.n > 0 ? d.w : NAN);
        jv_out_add(o, "excess", d.n > 0 ? d.ex : NAN);
        cJSON_AddStringToObject(o, "excess_label", excess_name(&sc->strategies[k]));
        jv_out_add(o, "switch_overhead", r->s[k].m[SM_SWITCH]);
        if (d.n > 0)
            cJSON_AddStringToObject(o, "dominant", d.dom);
        else
            cJSON_AddNullToObject(o, "dominant");
        cJSON_AddItemToArray(lat, o);
    }
    return doc;
}

void cmp_print(FILE *fp, const struct scenario *sc, const struct run_result *r, int base)
{
    fprintf(fp, "compare %s on %d × %s (baseline %s; * = best in column)\n", sc->name, sc->gpus,
            sc->gpu.name, sc->strategies[base].name);
    for (int i = 0; i < sc->n_tenants; i++)
        print_tenant(fp, sc, r, i, base);
    fprintf(fp, "\nwhat dominated latency (%s):\n",
            run_has_llm(sc) ? "plain tenants, weighted by completions; an LLM tenant's is "
                              "in its TTFT and TPOT columns"
                            : "all tenants, weighted by completions");
    for (int k = 0; k < r->n; k++)
        print_dominant(fp, sc, &sc->strategies[k], &r->s[k]); /* run_scenario keeps the order */
    int cheapest = cheapest_meeting(sc, r);
    if (cheapest >= 0)
        fprintf(fp, "\ncheapest strategy that meets every SLA: %s\n", r->s[cheapest].name);
    else
        fprintf(fp, "\nno strategy meets every SLA\n");
}
