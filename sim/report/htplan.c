/*
 * htplan — the capacity planner's page (html.h), from plan_json()'s document: the
 * recommendation in one sentence, every simulated candidate's p99 per tenant against the
 * tenant's SLA (one panel per tenant), their cost, and the ranked table. Candidates are
 * numbered as in the table (#1 is the first of plan_json's list) so a point in a figure
 * can be looked up; a kind keeps its style in every figure.
 */
#include "report/html.h"
#include "report/htint.h"
#include "report/rtable.h"
#include "core/rdoc.h"
#include "core/verdict.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KINDS 12

static int kind_style(char kinds[][16], int *n, const char *kind)
{
    for (int k = 0; k < *n; k++)
        if (strcmp(kinds[k], kind) == 0)
            return k;
    if (*n == MAX_KINDS)
        return 0;
    snprintf(kinds[*n], 16, "%s", kind);
    return (*n)++;
}

static int figures(struct hw *wr, const struct scenario *sc, const cJSON *cands, char *err,
                   size_t errlen)
{
    char kinds[MAX_KINDS][16];
    int nk = 0, nc = cJSON_GetArraySize(cands), rc = 0;
    const cJSON *c;
    int idx = 0, sim = 0;
    cJSON_ArrayForEach(c, cands)
    {
        struct rd_cand rc_;
        rd_cand_of(c, &rc_);
        kind_style(kinds, &nk, rc_.kind);
        sim += rc_.simulated;
    }
    if (sim == 0)
        return 0;
    double *x = ss_xcalloc((size_t)nc + 1, sizeof *x), *y = ss_xcalloc((size_t)nc + 1, sizeof *y);
    unsigned char *hol = ss_xcalloc((size_t)nc + 1, 1);
    struct svg_figure f;
    svg_fig_init(&f, "plan-p99", "p99 of every simulated candidate (one panel per tenant)", 3, 390,
                 290);
    for (int i = 0; i <= sc->n_tenants; i++) {
        int cost = i == sc->n_tenants;
        struct svg_panel *p = svg_fig_panel(&f);
        if (!p)
            break;
        snprintf(p->title, sizeof p->title, "%s", cost ? "cost" : sc->tenants[i].name);
        snprintf(p->xlabel, sizeof p->xlabel, "candidate (# in the table)");
        snprintf(p->ylabel, sizeof p->ylabel, "%s",
                 cost ? "cost per hour ($)" : "p99 latency (ms)");
        p->xa = SVG_CAT;
        p->latency = !cost;
        cJSON_ArrayForEach(c, cands)
        {
            struct rd_cand rc_;
            rd_cand_of(c, &rc_);
            if (rc_.simulated) {
                char lab[16];
                snprintf(lab, sizeof lab, "#%d", idx + 1);
                svg_cat(p, lab);
            }
            idx++;
        }
        idx = 0;
        double all[SVG_MAX_CATS + 1];
        int na = 0;
        for (int kd = 0; kd < nk; kd++) {
            int n = 0, cat = 0;
            cJSON_ArrayForEach(c, cands)
            {
                struct rd_cand rc_;
                rd_cand_of(c, &rc_);
                if (!rc_.simulated)
                    continue;
                if (strcmp(rc_.kind, kinds[kd]) == 0 && cat < SVG_MAX_CATS) {
                    x[n] = cat;
                    y[n] = cost ? rc_.cost_per_hour
                                : rd_cand_tenant(&rc_, RD_CAND_P99, sc->tenants[i].name);
                    hol[n] = !rc_.meets;
                    if (na < SVG_MAX_CATS)
                        all[na++] = y[n];
                    n++;
                }
                cat++;
            }
            struct svg_series *s = svg_add(p, kinds[kd], kd, n, x, y, hol);
            if (s)
                s->points_only = 1;
        }
        double sla = cost ? NAN : vj_sla_ms(sc, NULL, sc->tenants[i].name, "p99_ms");
        if (isfinite(sla))
            all[na++] = sla;
        p->ya = svg_auto_axis(all, na);
        if (!cost && isfinite(sla)) {
            svg_ref(p, 0, sla, SVG_REF_SLA, "SLA: p99 ≤ %.0f ms", sla);
            snprintf(p->note, sizeof p->note, "SLA: p99 ≤ %.0f ms · open: misses an SLA", sla);
        } else if (!cost) {
            snprintf(p->note, sizeof p->note, "no SLA in the scenario");
        } else {
            snprintf(p->note, sizeof p->note, "open: the candidate misses an SLA");
        }
    }
    for (int kd = 0; kd < nk; kd++)
        svg_fig_legend(&f, kinds[kd], kd, 1);
    f.verdict = 1; /* the candidates against the SLAs: what the verdict ranks */
    rc = ht_figure(wr, &f, NULL, err, errlen);
    HT_CAPTION(wr, "Only simulated candidates are drawn (the table lists the pruned ones and "
                   "why). A candidate meets the plan when its point is under the SLA line in "
                   "every tenant's panel; open markers miss some tenant's SLA.");
    ht_figure_end(wr);
    svg_fig_free(&f);
    free(x);
    free(y);
    free(hol);
    return rc;
}

/* A tenant's deciding figures (core/verdict.h): the ones its SLA sets — p99, an LLM
 * service's TTFT and TPOT p99, a batch tenant's throughput — beside their targets; the p99
 * without an SLA. */
struct fig {
    const char *what;
    enum rd_cand_fig fig;
    const char *unit;
    double target;
};
static int deciding(const struct tenant_cfg *t, struct fig *f)
{
    int n = 0;
    if (t->sla_p99_s > 0)
        f[n++] = (struct fig){"p99", RD_CAND_P99, "ms", t->sla_p99_s * 1e3};
    if (t->llm && t->llm->sla_ttft_p99_s > 0)
        f[n++] = (struct fig){"TTFT p99", RD_CAND_TTFT, "ms", t->llm->sla_ttft_p99_s * 1e3};
    if (t->llm && t->llm->sla_tpot_p99_s > 0)
        f[n++] = (struct fig){"TPOT p99", RD_CAND_TPOT, "ms", t->llm->sla_tpot_p99_s * 1e3};
    if (t->sla.min_throughput_per_s > 0)
        f[n++] = (struct fig){"throughput", RD_CAND_THR, "req/s", t->sla.min_throughput_per_s};
    if (n == 0)
        f[n++] = (struct fig){"p99", RD_CAND_P99, "ms", NAN};
    return n;
}

static void deciding_head(struct hw *wr, const struct tenant_cfg *t)
{
    struct fig f[4];
    int n = deciding(t, f);
    for (int k = 0; k < n; k++) {
        HW_WRAP(wr, "<th>", t->name, " ");
        hw_text(wr, f[k].what);
        HW_WRAP(wr, " ", f[k].unit, "");
        if (isfinite(f[k].target))
            HW_MARKF(wr, " (%s %.4g)", f[k].fig == RD_CAND_THR ? "≥" : "≤", f[k].target);
        HW_MARK(wr, "</th>");
    }
}

/* A candidate's flags, each in words after a warning sign. */
static void flag_words(struct hw *wr, const struct rd_cand *c)
{
    for (int k = 0; k < rd_cand_flags(c); k++)
        HW_WRAP(wr, "<br><strong>⚠ ", rd_cand_flag(c, k), "</strong>");
}

/* The headroom: the load factor at which it first misses ("×1.28"), "&gt; ×8" when it never
 * did, "&lt; ×1" when it misses at the planned load, "–" when not measured (the note says why). */
static void headroom_cell(struct hw *wr, const struct rd_cand *c)
{
    double hi = c->headroom_hi, lo = c->headroom_lo;
    HW_MARK(wr, "<td>");
    if (isfinite(hi) && isfinite(lo))
        HW_MARKF(wr, "×%.3g", hi);
    else if (isfinite(hi))
        HW_MARKF(wr, "&lt; ×%.3g", hi);
    else if (isfinite(lo))
        HW_MARKF(wr, "&gt; ×%.3g", lo);
    else
        HW_WRAP(wr, "– ", c->headroom_note, "");
    HW_MARK(wr, "</td>");
}

static void table(struct hw *wr, const struct scenario *sc, const cJSON *cands)
{
    char kinds[MAX_KINDS][16];
    int nk = 0, k = 0;
    HW_MARK(wr, "<table class=\"plan\">\n<tr><th>#</th><th class=\"l\">kind</th><th class=\"l\">"
                "configuration</th><th>GPUs</th><th>$/hour</th><th>$ per M requests</th>"
                "<th class=\"l\">status</th><th>worst vs target</th><th>headroom</th>");
    for (int i = 0; i < sc->n_tenants; i++)
        deciding_head(wr, &sc->tenants[i]);
    HW_MARK(wr, "</tr>\n");
    const cJSON *cj;
    cJSON_ArrayForEach(cj, cands)
    {
        struct rd_cand c;
        rd_cand_of(cj, &c);
        int st = kind_style(kinds, &nk, c.kind);
        HW_MARKF(wr, "<tr><td>%d</td><td class=\"l\">", ++k);
        svg_swatch(wr, st);
        hw_text(wr, c.kind);
        HW_WRAP(wr, "</td><td class=\"l\">", c.label, "</td>");
        ht_td(wr, c.gpus, 1, "%.0f");
        ht_td(wr, c.cost_per_hour, 1, "%.2f");
        ht_td(wr, c.cost_per_mreq, 1, "%.3f");
        if (c.simulated && c.meets) {
            HW_MARK(wr, "<td class=\"l ok wrap\">✓ meets every SLA");
            flag_words(wr, &c);
            HW_MARK(wr, "</td>");
        } else if (c.simulated) {
            HW_WRAP(wr, "<td class=\"l miss wrap\">✗ ", c.reason, "");
            flag_words(wr, &c);
            HW_MARK(wr, "</td>");
        } else {
            HW_WRAP(wr, "<td class=\"l wrap\">", *c.pruned ? c.pruned : "not simulated", "</td>");
        }
        char ratio[48] = "–";
        if (c.simulated && isfinite(c.worst_ratio))
            vd_fmt_ratio(c.worst_ratio, ratio, sizeof ratio);
        HW_WRAP(wr, "<td>", ratio, "</td>");
        headroom_cell(wr, &c);
        for (int i = 0; i < sc->n_tenants; i++) {
            struct fig f[4];
            for (int q = 0, nf = deciding(&sc->tenants[i], f); q < nf; q++)
                ht_td(wr, rd_cand_tenant(&c, f[q].fig, sc->tenants[i].name), 1, "%.4g");
        }
        HW_MARK(wr, "</tr>\n");
    }
    HW_MARK(wr, "</table>\n");
}

/* The tensor-parallel comparison's columns after the layout: a layout's deciding figures. */
static const struct {
    const char *head, *key, *fmt;
} tp_cols[] = {
    {"GPUs", "gpus", "%.0f"},
    {"$/hour", "cost_per_hour_usd", "%.2f"},
    {"TTFT p99 ms", "ttft_p99_ms", "%.4g"},
    {"target", "ttft_target_ms", "%.4g"},
    {"TPOT p99 ms", "tpot_p99_ms", "%.4g"},
    {"target", "tpot_target_ms", "%.4g"},
    {"KV tokens per engine", "kv_tokens_per_engine", "%.0f"},
    {"preemptions", "preemptions", "%.0f"},
};
#define N_TP_COLS ((int)(sizeof tp_cols / sizeof tp_cols[0]))

static void tp_row(struct hw *wr, const cJSON *l, int chosen)
{
    HW_WRAP(wr, "<tr><td class=\"l\">", ht_str(l, "layout"), "");
    HW_MARK2(wr, chosen, " (chosen)</td>", "</td>");
    for (int k = 0; k < N_TP_COLS; k++)
        ht_td(wr, rt_num(l, tp_cols[k].key), 1, tp_cols[k].fmt);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "meets_sla")))
        HW_MARK(wr, "<td class=\"l ok wrap\">✓ meets every SLA</td>");
    else
        HW_WRAP(wr, "<td class=\"l miss wrap\">✗ ", ht_str(l, "reason"), "</td>");
    HW_MARK(wr, "</tr>\n");
}

/* The plan's "tensor_parallel_choice": the chosen layout against the others, and why. */
static void tp_section(struct hw *wr, const cJSON *plan)
{
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(plan, "tensor_parallel_choice");
    if (!cJSON_IsObject(tc))
        return;
    HW_WRAP(wr, "<h2 id=\"tensor-parallel\">Tensor parallelism: ", ht_str(tc, "tenant"),
            "</h2>\n<p>");
    HW_WRAP(wr, "", ht_str(tc, "why"),
            "</p>\n<table class=\"plan\">\n<tr><th class=\"l\">layout</th>");
    for (int k = 0; k < N_TP_COLS; k++)
        HW_WRAP(wr, "<th>", tp_cols[k].head, "</th>");
    HW_MARK(wr, "<th class=\"l\">status</th></tr>\n");
    tp_row(wr, cJSON_GetObjectItemCaseSensitive(tc, "chosen"), 1);
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(tc, "alternatives")) tp_row(wr, a, 0);
    HW_MARK(wr, "</table>\n");
}

/* One end of a value's range, rerun: "at 100 us: meets (−12.0 %)" or its verdict's reason. */
static void sens_end_cell(struct hw *wr, const cJSON *e, const char *unit, int is_value)
{
    if (!cJSON_IsObject(e)) {
        HW_MARK2(wr, is_value, "<td class=\"l\">the shipped value: the plan's own run</td>",
                 "<td class=\"l\">not rerun</td>");
        return;
    }
    char words[48];
    vd_fmt_ratio(rt_num(e, "worst_ratio"), words, sizeof words);
    int meets = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "meets_sla"));
    HW_MARK2(wr, meets, "<td class=\"l\">", "<td class=\"l miss\">");
    hw_textf(wr, "at %g%s%s: ", rt_num(e, "at"), unit[0] ? " " : "", unit);
    if (meets)
        hw_textf(wr, "meets (worst %s)", words);
    else
        hw_textf(wr, "%s (%s)",
                 cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "reason")) ? ht_str(e, "reason")
                                                                               : "misses",
                 words);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "worst_variant_only")))
        hw_text(wr, "; the plan's worst variant only");
    HW_MARK(wr, "</td>");
}

/* "What the answer rests on": the plan's reruns at the profile's stated ranges
 * (tools/plansens.h), from the document's "sensitivity" array (null: not measured). */
static void sensitivity_section(struct hw *wr, const cJSON *plan)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(plan, "sensitivity");
    HW_MARK(wr, "<h2 id=\"rests-on\">What the answer rests on</h2>\n");
    if (!cJSON_IsArray(arr)) {
        HW_MARK(wr, "<p>Not measured (<code>--no-sensitivity</code>).</p>\n");
        return;
    }
    if (cJSON_GetArraySize(arr) == 0) {
        HW_MARK(wr, "<p>The chosen candidate reads no low-confidence value of the GPU "
                    "profile.</p>\n");
        return;
    }
    HW_MARK(wr, "<p>The chosen candidate rerun with each low-confidence profile value it reads "
                "at the ends of the value's stated range, with the plan's random numbers. It "
                "<em>rests on</em> a value when a verdict differs from the plan's.</p>\n"
                "<table>\n<tr><th class=\"l\">value</th><th>as shipped</th><th>range</th>"
                "<th class=\"l\">read by</th><th class=\"l\">at the low end</th>"
                "<th class=\"l\">at the high end</th><th class=\"l\">rests on it</th></tr>\n");
    const cJSON *v;
    cJSON_ArrayForEach(v, arr)
    {
        const cJSON *range = cJSON_GetObjectItemCaseSensitive(v, "range");
        const char *u = ht_str(v, "unit");
        double x = rt_num(v, "value");
        int two = cJSON_GetArraySize(range) == 2;
        HW_WRAP(wr, "<tr><td class=\"l\"><code>", ht_str(v, "key"), "</code></td><td>");
        hw_textf(wr, "%g%s%s", x, u[0] ? " " : "", u);
        HW_MARK(wr, "</td><td>");
        if (two)
            hw_textf(wr, "%g to %g", cJSON_GetArrayItem(range, 0)->valuedouble,
                     cJSON_GetArrayItem(range, 1)->valuedouble);
        else
            hw_text(wr, "none stated");
        HW_WRAP(wr, "</td><td class=\"l\">", ht_str(v, "read_by"), "</td>");
        sens_end_cell(wr, cJSON_GetObjectItemCaseSensitive(v, "at_lo"), u,
                      two && cJSON_GetArrayItem(range, 0)->valuedouble == x);
        sens_end_cell(wr, cJSON_GetObjectItemCaseSensitive(v, "at_hi"), u,
                      two && cJSON_GetArrayItem(range, 1)->valuedouble == x);
        HW_WRAP(wr, "<td class=\"l\">",
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "rests_on"))
                    ? "yes: a verdict flips"
                    : "no",
                "");
        const cJSON *note = cJSON_GetObjectItemCaseSensitive(v, "note");
        if (cJSON_IsString(note))
            hw_textf(wr, "; %s", note->valuestring);
        HW_MARK(wr, "</td></tr>\n");
    }
    HW_MARK(wr, "</table>\n");
}

static int plan_page(struct hw *wr, const struct scenario *sc, const cJSON *plan, char *err,
                     size_t errlen)
{
    char title[200];
    snprintf(title, sizeof title, "Capacity plan for %s", sc->name);
    ht_head(wr, title);
    HW_WRAP(wr, "<h1>", title, "");
    HW_MARK(wr,
            "</h1>\n<p class=\"question\"><strong>Question.</strong> What is the cheapest "
            "configuration (strategy kind, parameters, number of GPUs) under which every tenant "
            "meets its SLA?</p>\n<p class=\"verdict\"><strong>Verdict.</strong> ");
    struct rd_plan pl;
    rd_plan_of(plan, &pl);
    const cJSON *c;
    if (pl.recommendation) {
        struct rd_cand rec;
        rd_cand_of(pl.recommendation, &rec);
        const char *label = rec.kind;
        cJSON_ArrayForEach(c, pl.candidates)
        {
            struct rd_cand x;
            rd_cand_of(c, &x);
            if (x.meets && x.gpus == rec.gpus && strcmp(x.kind, rec.kind) == 0) {
                label = x.label;
                break;
            }
        }
        HW_WRAP(wr, "<strong>", label, "");
        HW_MARKF(wr, "</strong> on %.0f GPU%s", rec.gpus, rec.gpus == 1 ? "" : "s");
        if (isfinite(rec.cost_per_hour))
            HW_MARKF(wr, ", $%.2f per hour ($%.2f per million requests)", rec.cost_per_hour,
                     rec.cost_per_mreq);
        char ratio[48];
        vd_fmt_ratio(rec.worst_ratio, ratio, sizeof ratio);
        HW_MARK(wr, ", is the cheapest configuration the simulation confirms: every tenant meets "
                    "its SLA (tightest: ");
        HW_WRAP(wr, "", ratio, ")");
        if (isfinite(rec.headroom_hi))
            HW_MARKF(wr, "; it first misses an SLA at %.3g times the load (its headroom)",
                     rec.headroom_hi);
        flag_words(wr, &rec);
    } else {
        HW_MARK(wr, "Nothing the planner tried meets every tenant's SLA");
        if (pl.closest) {
            struct rd_cand cl;
            rd_cand_of(pl.closest, &cl);
            HW_WRAP(wr, "; the closest is <strong>", cl.label, "");
            char ratio[48];
            vd_fmt_ratio(cl.worst_ratio, ratio, sizeof ratio);
            HW_WRAP(wr, "</strong> (", cl.reason, "; worst ");
            HW_WRAP(wr, "", ratio, ")");
        }
    }
    if (*pl.rule_kind) {
        HW_WRAP(wr, "; the rule of thumb (“", pl.rule, "”) picks ");
        hw_text(wr, pl.rule_kind);
        HW_MARK2(wr, pl.rule_agrees, " and the simulation agrees", " and the simulation disagrees");
    }
    HW_MARK(wr, ".</p>\n");
    HW_WRAP(wr, "<p class=\"meta\">Scenario <code>", sc->name, "");
    HW_MARKF(wr,
             "</code>: %d tenant%s on %s; %.0f candidates simulated. Made by <code>sharesim "
             "plan</code> (docs/plan.md).</p>\n",
             sc->n_tenants, sc->n_tenants == 1 ? "" : "s", sc->gpu.name, pl.simulations);
    HW_MARK(wr, "<h2 id=\"latency\">Candidates against the SLAs</h2>\n");
    int rc = figures(wr, sc, pl.candidates, err, errlen);
    if (rc == 0)
        tp_section(wr, plan);
    if (rc == 0) {
        HW_MARK(wr, "<h2 id=\"tables\">Every candidate</h2>\n");
        table(wr, sc, pl.candidates);
        sensitivity_section(wr, plan);
        ht_foot(wr);
    }
    return rc;
}

int ht_plan_page(FILE *fp, const struct scenario *sc, const cJSON *plan, char *err, size_t errlen)
{
    /* plan_json() holds its numbers as raw text (6 significant digits, null for NaN); read
     * them as any reader of the file would. The page reaches the stream only through the
     * writer (hw.h). */
    char *text = cJSON_PrintUnformatted(plan);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!doc)
        return ss_errf(err, errlen, "the plan document does not print as JSON");
    struct hw wr;
    hw_init(&wr, fp);
    int rc = plan_page(&wr, sc, doc, err, errlen);
    cJSON_Delete(doc);
    return rc;
}
