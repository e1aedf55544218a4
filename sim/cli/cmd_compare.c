/*
 * sharesim compare — strategies side by side per tenant, the best value of each
 * column marked (an LLM tenant's also by its TTFT and TPOT p99, tokens/s and goodput), and
 * one line per strategy saying what dominated its latency; the same figures as JSON (--json)
 * and CSV rows (--csv).
 *
 * Latency decomposition (means over completed requests): latency = wait before
 * first service (queueing) + the request's work on a whole GPU (service) + the
 * rest of its time in service, which is what sharing added: other contexts'
 * slices and switches under time-slicing or vGPU, the smaller instance under
 * MIG, co-running clients under MPS.
 */
#include "base/jsonv.h"
#include "cli/cli.h"
#include "cli/outplan.h"
#include "core/llmstats.h"
#include "core/policy.h"
#include "report/report.h"
#include "core/run.h"
#include "core/metric.h"
#include "core/scenario.h"
#include "core/stable.h"
#include "core/verdict.h"
#include "base/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sharesim compare SCENARIO [--baseline NAME] [--seed N] [--replications R]\n"
            "                        [--json FILE|-] [--csv FILE|-] [--quiet] [--check-sla]\n\n"
            "Runs the scenario and prints, per tenant, each strategy's p99, throughput, SLA\n"
            "attainment, p99 slowdown against the baseline strategy (default: the first\n"
            "exclusive one, else the first) and cost per million requests, and for an LLM\n"
            "tenant its TTFT and TPOT p99, output tokens/s and goodput; * marks the best\n"
            "value of each column (of $/Mreq: the cheapest strategy that meets every SLA),\n"
            "and the tenant's verdict (docs/scenario.md#the-verdict). Then one line per\n"
            "strategy on what dominated the plain tenants' latency.\n\n"
            "  --baseline NAME   the strategy slowdowns are measured against\n"
            "  --seed N          override the scenario's seed\n"
            "  --replications R  override the scenario's replications\n"
            "  --json FILE       the comparison as JSON: \"rows\" (one per tenant × strategy,\n"
            "                    \"best\" naming the columns it is best in, \"stable\") and\n"
            "                    \"latency\" (the decomposition per strategy); - for stdout\n"
            "  --csv FILE        the rows as CSV; - for stdout\n"
            "  --quiet           no table on stdout\n"
            "  --check-sla       exit 1 when a tenant with an SLA misses it under some strategy\n"
            "                    (docs/scenario.md#the-verdict; each named on stderr)\n"
            "exit: 0 ok (also with SLAs missed, unless --check-sla), 1 an SLA missed with\n"
            "      --check-sla, 2 bad input\n");
}

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

static void print_tenant(const struct scenario *sc, const struct run_result *r, int i, int base)
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
    printf("\ntenant %s%s\n", sc->tenants[i].name, sla ? "" : " (no SLA)");
    printf("  %-14s", "strategy");
    for (int c = 0; c < ct.n_cols; c++)
        printf(" %*s", w[c], ct.cols.c[c]->cmp_head);
    printf("%s\n", sla ? "  verdict" : "");
    for (int k = 0; k < ct.n; k++) {
        printf("  %-14s", r->s[k].name);
        for (int c = 0; c < ct.n_cols; c++)
            printf(" %*s", w[c], cell[k][c]);
        /* The tenant's verdict (✓, or ✗ and why), which also names an unstable one. */
        struct vd_verdict v;
        char vc[VD_REASON_MAX + 8];
        vd_judge(sc, &r->s[k], i, &v);
        vd_cell(&v, vc, sizeof vc);
        if (sla)
            printf("  %s\n", vc);
        else
            printf("%s\n", stab_state(&r->s[k], i) == 0 ? "  unstable" : "");
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

static void print_dominant(const struct scenario *sc, const struct strategy_cfg *st,
                           const struct strategy_result *s)
{
    struct cmp_dom d;
    dominant(sc, st, s, &d);
    if (d.n == 0) {
        printf("  %-14s %s\n", s->name,
               run_has_llm(sc) ? "no plain tenant's request completed" : "nothing completed");
        return;
    }
    printf("  %-14s mean %.3f ms = queueing %.0f%% + service %.0f%% + %s %.0f%%", s->name,
           d.mean_s * 1e3, 100 * d.q, 100 * d.w, excess_name(st), 100 * d.ex);
    if (s->m[SM_SWITCH] > 0)
        printf(" (switching %.2f%% of GPU time)", 100 * s->m[SM_SWITCH]);
    printf(" — %s dominates\n", d.dom);
}

/* The rows of --json and --csv: one per tenant × strategy, in the table's order. */
static cJSON *compare_rows(const struct scenario *sc, const struct run_result *r, int base)
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

static cJSON *compare_json(const struct scenario *sc, const struct run_result *r, int base)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "scenario", sc->name);
    cJSON_AddStringToObject(doc, "gpu", sc->gpu.name);
    cJSON_AddNumberToObject(doc, "gpus", sc->gpus);
    cJSON_AddNumberToObject(doc, "seed", (double)r->seed);
    cJSON_AddNumberToObject(doc, "replications", r->replications);
    cJSON_AddStringToObject(doc, "baseline", sc->strategies[base].name);
    cJSON_AddItemToObject(doc, "rows", compare_rows(sc, r, base));
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

int cmd_compare(int argc, char **argv)
{
    static const char cmd[] = "sharesim compare";
    const char *baseline = NULL, *json = NULL, *csv = NULL;
    struct run_opts ro = {0, -1, 0, 0};
    int quiet = 0, check_sla = 0;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("baseline", 'b', &baseline),
        CLI_OPT_LONG("seed", 's', &ro.seed, 0, 4294967295.0),
        CLI_OPT_INT("replications", 'r', &ro.replications, 1, 10000),
        CLI_OPT_STR("json", 'j', &json),
        CLI_OPT_STR("csv", 'c', &csv),
        CLI_OPT_FLAG("quiet", 'q', &quiet),
        CLI_OPT_FLAG("check-sla", 0, &check_sla),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec spec = {
        .cmd = cmd, .opts = opts, .usage = usage, .min_args = 1, .max_args = 1};
    int prc = cli_parse_opts(&spec, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    struct scenario sc;
    if (cli_load_scenario(argv[optind], 0, &sc))
        return SS_EXIT_BADINPUT;
    int base = -1;
    for (int k = 0; k < sc.n_strategies; k++) {
        if (baseline && strcmp(sc.strategies[k].name, baseline) == 0)
            base = k;
        if (!baseline && base < 0 && policy_is_baseline(sc.strategies[k].ops))
            base = k;
    }
    if (baseline && base < 0) {
        fprintf(stderr, "sharesim compare: --baseline: no strategy named \"%s\" in %s\n", baseline,
                argv[optind]);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    if (base < 0)
        base = 0;
    struct op_plan op;
    op_init(&op, cmd);
    op_input(&op, "SCENARIO", argv[optind]);
    op_output(&op, "--json", json);
    op_output(&op, "--csv", csv);
    if (op_done(&op)) {
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    cli_install_signal_handlers();
    ro.progress = cli_stderr_is_tty() && !quiet;
    struct run_result r;
    char err[SS_ERRLEN];
    if (run_scenario(&sc, &ro, &r, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    if (!quiet && !cli_is_stdout(json) && !cli_is_stdout(csv)) {
        printf("compare %s on %d × %s (baseline %s; * = best in column)\n", sc.name, sc.gpus,
               sc.gpu.name, sc.strategies[base].name);
        for (int i = 0; i < sc.n_tenants; i++)
            print_tenant(&sc, &r, i, base);
        printf("\nwhat dominated latency (%s):\n",
               run_has_llm(&sc) ? "plain tenants, weighted by completions; an LLM tenant's is "
                                  "in its TTFT and TPOT columns"
                                : "all tenants, weighted by completions");
        for (int k = 0; k < r.n; k++)
            print_dominant(&sc, &sc.strategies[k], &r.s[k]); /* run_scenario keeps the order */
        int cheapest = cheapest_meeting(&sc, &r);
        if (cheapest >= 0)
            printf("\ncheapest strategy that meets every SLA: %s\n", r.s[cheapest].name);
        else
            printf("\nno strategy meets every SLA\n");
    }
    rep_warn_unstable(stderr, cmd, &sc, &r);
    int rc = SS_EXIT_OK;
    if (json && cli_write_json(cmd, json, compare_json(&sc, &r, base)))
        rc = SS_EXIT_BADINPUT;
    if (csv && cli_write_csv_rows(cmd, csv, compare_rows(&sc, &r, base), NULL))
        rc = SS_EXIT_BADINPUT;
    if (check_sla && rep_sla_misses(stderr, cmd, &sc, &r) > 0 && rc == SS_EXIT_OK)
        rc = SS_EXIT_INFEASIBLE;
    run_result_free(&r);
    scn_free(&sc);
    return rc;
}
