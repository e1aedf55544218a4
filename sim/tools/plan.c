/*
 * plan — analytic pruning, simulation and ranking (the method is described in
 * plan.h). The candidates come from each strategy's plan hook (core/policy.h,
 * sim/policy/plan_<kind>.c); a kind is searched only when its policy has one and the
 * scenario's "plan.kinds" allows it. Nothing here knows a strategy by name.
 */
#include "tools/plan.h"
#include "base/jsonv.h"
#include "core/llmstats.h"
#include "core/policy.h"
#include "report/report.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_MAX_KINDS 8

struct pctx {
    struct plan_ctx pc; /* what the plan hooks see: scenario, bound, candidates */
    int max_sims;
    char kinds[PLAN_MAX_KINDS][16];
    int n_kinds;
};

static int kind_wanted(const struct pctx *x, const char *kind)
{
    if (x->n_kinds == 0)
        return 1;
    for (int k = 0; k < x->n_kinds; k++)
        if (strcmp(x->kinds[k], kind) == 0)
            return 1;
    return 0;
}

/* ---- simulation ------------------------------------------------------------ */

/* Simulates one candidate: 0, or -1 with the message when the run failed (eng_run). A
 * candidate the loader rejects is pruned, not an error. */
/* One target (sla <= 0: none) against its p99: the candidate's worst margin, feasibility. */
static void check_sla(struct plan_cand *c, const char *tenant, double sla, double p99)
{
    if (sla <= 0)
        return;
    double m = isfinite(p99) ? (sla - p99) / sla : -INFINITY;
    if (m < c->worst_margin) {
        c->worst_margin = m;
        snprintf(c->worst_tenant, sizeof c->worst_tenant, "%s", tenant);
    }
    if (!(p99 <= sla))
        c->feasible = 0;
}

static int simulate(const struct scenario *sc, struct plan_cand *c, char *err, size_t errlen)
{
    cJSON *doc = cJSON_Duplicate(sc->json, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "plan");
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "replications");
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "gpus");
    cJSON_AddNumberToObject(doc, "gpus", c->gpus);
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToArray(arr, cJSON_Duplicate(c->strategy, 1));
    if (cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
        cJSON_ReplaceItemInObjectCaseSensitive(doc, "strategies", arr);
    else
        cJSON_AddItemToObject(doc, "strategies", arr);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    struct scenario s2;
    char why[SS_ERRLEN];
    if (scn_load_text(sc->path, text, strlen(text), &s2, why, sizeof why)) {
        snprintf(c->pruned, sizeof c->pruned, "rejected by the loader: %.200s", why);
        free(text);
        scn_free(&s2);
        return 0;
    }
    free(text);
    struct strategy_result res;
    if (run_one(&s2, &s2.strategies[0], 0, &res, err, errlen)) {
        scn_free(&s2);
        return -1;
    }
    c->simulated = 1;
    c->feasible = 1;
    c->worst_margin = INFINITY;
    c->p99_s = ss_xcalloc((size_t)sc->n_tenants, sizeof *c->p99_s);
    c->cost_per_hour = res.m[SM_COST_PER_HOUR];
    c->cost_per_mreq = res.m[SM_COST_PER_MREQ];
    for (int i = 0; i < sc->n_tenants; i++) {
        const double *t = res_t(&res, i);
        const struct lsv_cfg *l = sc->tenants[i].llm;
        c->p99_s[i] = t[TM_LAT_P99];
        if (t[TM_FAILED] > 0 || t[TM_REJECTED] > 0)
            c->feasible = 0;
        check_sla(c, sc->tenants[i].name, sc->tenants[i].sla_p99_s, t[TM_LAT_P99]);
        if (l && res.llm) { /* an LLM tenant's TTFT and TPOT targets count alike */
            const double *m = res.llm + (size_t)i * LM_N;
            check_sla(c, sc->tenants[i].name, l->sla_ttft_p99_s, m[LM_TTFT_P99]);
            check_sla(c, sc->tenants[i].name, l->sla_tpot_p99_s, m[LM_TPOT_P99]);
        }
    }
    strategy_result_free(&res);
    scn_free(&s2);
    return 0;
}

static double cost_key(const struct plan_cand *c)
{
    return isfinite(c->cost_per_hour) ? c->cost_per_hour : c->gpus;
}

static int by_cost(const void *pa, const void *pb)
{
    const struct plan_cand *a = pa, *b = pb;
    double ka = cost_key(a), kb = cost_key(b);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    int l = strcmp(a->label, b->label);
    if (l)
        return l;
    /* Same price and label (vGPU's one layout on G GPUs when GPUs cost nothing): fewer
     * GPUs first, so the order depends neither on which policy proposed first nor on
     * whether qsort is stable (glibc's is, where the hooks' order was that of G). */
    return a->gpus - b->gpus;
}

/* Output order: feasible by cost (then margin), simulated infeasible by margin,
 * unsimulated by cost, pruned last. */
static int rank_of(const struct plan_cand *c)
{
    return c->feasible ? 0 : c->simulated ? 1 : !c->pruned[0] ? 2 : 3;
}

static int by_rank(const void *pa, const void *pb)
{
    const struct plan_cand *a = pa, *b = pb;
    int ra = rank_of(a), rb = rank_of(b);
    if (ra != rb)
        return ra - rb;
    if (ra == 0 && cost_key(a) != cost_key(b))
        return cost_key(a) < cost_key(b) ? -1 : 1;
    if (ra <= 1 && a->worst_margin != b->worst_margin)
        return a->worst_margin > b->worst_margin ? -1 : 1;
    return by_cost(pa, pb);
}

/* ---- the articles' rule of thumb (docs/domain.md#decision-rules) ------------- */

/* The rules are tried in enum pc_rule's order; each policy says which of them would
 * pick it, so the first rule that applies names its strategy (registry order breaks a
 * tie, which the rules as written never produce). */
static void rule_of_thumb(const struct scenario *sc, struct plan_result *r)
{
    int first = -1;
    for (int k = 0; k < policy_count(); k++) {
        const struct policy_ops *ops = policy_at(k);
        char text[sizeof r->rule_text];
        int rule = ops->hooks && ops->hooks->rule_of_thumb
                       ? ops->hooks->rule_of_thumb(sc, text, sizeof text)
                       : -1;
        if (rule >= 0 && (first < 0 || rule < first)) {
            first = rule;
            snprintf(r->rule_kind, sizeof r->rule_kind, "%s", ops->kind);
            snprintf(r->rule_text, sizeof r->rule_text, "%s", text);
        }
    }
}

/* ---- entry ------------------------------------------------------------------- */

static int parse_plan(const struct scenario *sc, struct pctx *x, char *err, size_t errlen)
{
    static const char *const keys[] = {"kinds", "max_gpus", "max_simulations", NULL};
    struct jv j = {sc->path, err, errlen};
    long v;
    /* Default bound: enough whole GPUs for every tenant twice over, at least 8. */
    x->pc.max_gpus = 2 * sc->n_tenants > 8 ? 2 * sc->n_tenants : 8;
    x->max_sims = 40;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(sc->json, "plan");
    if (!p)
        return 0;
    if (jv_object(&j, p, "plan", keys))
        return -1;
    if (jv_int(&j, p, "plan", "max_gpus", 0, 1, 100000, &v) < 0)
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(p, "max_gpus"))
        x->pc.max_gpus = (int)v;
    if (jv_int(&j, p, "plan", "max_simulations", 0, 1, 100000, &v) < 0)
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(p, "max_simulations"))
        x->max_sims = (int)v;
    const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(p, "kinds");
    if (kinds) {
        if (!cJSON_IsArray(kinds) || cJSON_GetArraySize(kinds) < 1 ||
            cJSON_GetArraySize(kinds) > PLAN_MAX_KINDS)
            return jv_fail(&j, "plan.kinds", "expected a non-empty array of strategy kinds");
        const cJSON *k;
        cJSON_ArrayForEach(k, kinds)
        {
            if (!cJSON_IsString(k) || !policy_find(k->valuestring))
                return jv_fail(&j, "plan.kinds", "expected kinds among %s", policy_kinds());
            snprintf(x->kinds[x->n_kinds++], sizeof x->kinds[0], "%s", k->valuestring);
        }
    }
    return 0;
}

int plan_run(const struct scenario *sc, int progress, struct plan_result *out, char *err,
             size_t errlen)
{
    struct pctx x = {.pc.sc = sc};
    memset(out, 0, sizeof *out);
    out->best = out->closest = -1;
    if (parse_plan(sc, &x, err, errlen))
        return -1;
    for (int k = 0; k < policy_count(); k++) {
        const struct policy_ops *ops = policy_at(k);
        if (ops->hooks && ops->hooks->plan && kind_wanted(&x, ops->kind))
            ops->hooks->plan(&x.pc);
    }
    struct plan_cand *cand = x.pc.c;
    int n = x.pc.n;
    qsort(cand, (size_t)n, sizeof *cand, by_cost);
    int feasible = 0, rc = 0;
    for (int i = 0; i < n && feasible < PLAN_ENOUGH_FEASIBLE; i++) {
        struct plan_cand *c = &cand[i];
        if (c->pruned[0] || !c->strategy)
            continue;
        if (out->simulations >= x.max_sims)
            break;
        if (progress)
            fprintf(stderr, "\rplan: simulating %d: %-60.60s", out->simulations + 1, c->label);
        rc = simulate(sc, c, err, errlen);
        if (rc)
            break;
        out->simulations++;
        feasible += c->feasible;
    }
    if (progress)
        fprintf(stderr, "\r%*s\r", 80, "");
    out->n = n;
    out->c = cand;
    if (rc) {
        plan_result_free(out);
        return -1;
    }
    qsort(cand, (size_t)n, sizeof *cand, by_rank);
    if (n > 0 && cand[0].feasible)
        out->best = 0;
    for (int i = 0; out->best < 0 && i < n; i++)
        if (cand[i].simulated &&
            (out->closest < 0 || cand[i].worst_margin > cand[out->closest].worst_margin))
            out->closest = i;
    rule_of_thumb(sc, out);
    return 0;
}

void plan_result_free(struct plan_result *r)
{
    for (int i = 0; i < r->n; i++) {
        cJSON_Delete(r->c[i].strategy);
        free(r->c[i].p99_s);
    }
    free(r->c);
    memset(r, 0, sizeof *r);
}

/* ---- output -------------------------------------------------------------------- */

static const char *status(const struct plan_cand *c)
{
    if (c->pruned[0])
        return "pruned";
    if (!c->simulated)
        return "not simulated";
    return c->feasible ? "meets SLAs" : "misses SLA";
}

void plan_table(FILE *fp, const struct scenario *sc, const struct plan_result *r)
{
    char price[64] = "no GPU price: ranked by GPU count";
    if (sc->gpu_hour_usd >= 0)
        snprintf(price, sizeof price, "$%.2f/GPU-hour", sc->gpu_hour_usd);
    fprintf(fp, "plan for %s: %d tenant%s on %s (%s), %d simulation%s\n\n", sc->name, sc->n_tenants,
            sc->n_tenants > 1 ? "s" : "", sc->gpu.name, price, r->simulations,
            r->simulations == 1 ? "" : "s");
    fprintf(fp, "%-4s %9s %9s %5s  %-44s %-13s %s\n", "rank", "$/hour", "$/Mreq", "gpus",
            "strategy", "status", "worst SLA margin / why");
    for (int i = 0; i < r->n; i++) {
        const struct plan_cand *c = &r->c[i];
        char rank[16] = "", margin[300];
        if (c->feasible)
            snprintf(rank, sizeof rank, "%d", i + 1);
        if (c->pruned[0])
            snprintf(margin, sizeof margin, "%s", c->pruned);
        else if (c->simulated)
            snprintf(margin, sizeof margin, "%+.1f%% (%s)", 100 * c->worst_margin,
                     c->worst_tenant[0] ? c->worst_tenant : "no SLA");
        else
            snprintf(margin, sizeof margin, "costlier than %d confirmed candidates",
                     PLAN_ENOUGH_FEASIBLE);
        char cost[32] = "-", cpm[32] = "-";
        if (isfinite(c->cost_per_hour))
            snprintf(cost, sizeof cost, "%.2f", c->cost_per_hour);
        if (isfinite(c->cost_per_mreq))
            snprintf(cpm, sizeof cpm, "%.3f", c->cost_per_mreq);
        fprintf(fp, "%-4s %9s %9s %5d  %-44.44s %-13s %s\n", rank, cost, cpm, c->gpus, c->label,
                status(c), margin);
    }
    fputc('\n', fp);
    if (r->best >= 0) {
        const struct plan_cand *b = &r->c[r->best];
        char cost[48] = "no GPU price given";
        if (isfinite(b->cost_per_hour))
            snprintf(cost, sizeof cost, "$%.2f/hour", b->cost_per_hour);
        fprintf(fp,
                "recommendation: %s on %d GPU%s, %s — the cheapest configuration the "
                "simulation confirms; every tenant meets its p99 SLA (tightest: %s, %+.1f%% "
                "margin).\n",
                b->label, b->gpus, b->gpus > 1 ? "s" : "", cost,
                b->worst_tenant[0] ? b->worst_tenant : "-", 100 * b->worst_margin);
    } else if (r->closest >= 0) {
        const struct plan_cand *b = &r->c[r->closest];
        fprintf(fp,
                "no configuration within the limits meets every SLA; closest: %s on %d GPUs "
                "(%s misses by %.1f%%).\n",
                b->label, b->gpus, b->worst_tenant, -100 * b->worst_margin);
    } else {
        fprintf(fp, "no configuration within the limits could be simulated (all pruned).\n");
    }
    const char *picked = r->best >= 0 ? r->c[r->best].kind : "";
    if (!r->rule_kind[0]) {
        fprintf(fp, "rule of thumb (docs/domain.md): none of this build's strategies has one "
                    "that applies.\n");
        return;
    }
    fprintf(fp, "rule of thumb (docs/domain.md): \"%s\" picks %s; ", r->rule_text, r->rule_kind);
    if (r->best < 0)
        fprintf(fp, "the simulation found nothing feasible to compare with.\n");
    else if (strcmp(picked, r->rule_kind) == 0)
        fprintf(fp, "the simulation agrees.\n");
    else
        fprintf(fp, "the simulation disagrees and picks %s.\n", picked);
}

static cJSON *cand_json(const struct scenario *sc, const struct plan_cand *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", c->kind);
    cJSON_AddStringToObject(o, "label", c->label);
    cJSON_AddItemToObject(o, "strategy",
                          c->strategy ? cJSON_Duplicate(c->strategy, 1) : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "gpus", c->gpus);
    jv_out_add(o, "cost_per_hour_usd", c->cost_per_hour);
    jv_out_add(o, "cost_per_million_requests_usd", c->cost_per_mreq);
    cJSON_AddBoolToObject(o, "simulated", c->simulated);
    cJSON_AddBoolToObject(o, "meets_sla", c->feasible);
    jv_out_add(o, "worst_sla_margin", c->worst_margin);
    if (c->pruned[0])
        cJSON_AddStringToObject(o, "pruned", c->pruned);
    if (c->p99_s) {
        cJSON *p = cJSON_AddObjectToObject(o, "p99_ms");
        for (int i = 0; i < sc->n_tenants; i++)
            jv_out_add(p, sc->tenants[i].name, c->p99_s[i] * 1e3);
    }
    return o;
}

cJSON *plan_json(const struct scenario *sc, const struct plan_result *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "scenario", sc->name);
    cJSON_AddStringToObject(root, "gpu", sc->gpu.name);
    if (r->best >= 0) {
        const struct plan_cand *b = &r->c[r->best];
        cJSON *rec = cJSON_AddObjectToObject(root, "recommendation");
        cJSON_AddItemToObject(rec, "strategy", cJSON_Duplicate(b->strategy, 1));
        cJSON_AddNumberToObject(rec, "gpus", b->gpus);
        jv_out_add(rec, "cost_per_hour_usd", b->cost_per_hour);
        jv_out_add(rec, "cost_per_million_requests_usd", b->cost_per_mreq);
        cJSON_AddBoolToObject(rec, "meets_sla", 1);
        jv_out_add(rec, "worst_sla_margin", b->worst_margin);
        cJSON_AddStringToObject(rec, "reason",
                                "cheapest configuration confirmed by simulation to meet every "
                                "tenant's p99 SLA");
    } else {
        cJSON_AddNullToObject(root, "recommendation");
        if (r->closest >= 0)
            cJSON_AddItemToObject(root, "closest", cand_json(sc, &r->c[r->closest]));
    }
    cJSON *arr = cJSON_AddArrayToObject(root, "candidates");
    for (int i = 0; i < r->n; i++)
        cJSON_AddItemToArray(arr, cand_json(sc, &r->c[i]));
    cJSON *rule = cJSON_AddObjectToObject(root, "rule_of_thumb");
    if (r->rule_kind[0]) {
        cJSON_AddStringToObject(rule, "rule", r->rule_text);
        cJSON_AddStringToObject(rule, "kind", r->rule_kind);
    } else { /* no strategy of this build has a rule that applies */
        cJSON_AddNullToObject(rule, "rule");
        cJSON_AddNullToObject(rule, "kind");
    }
    cJSON_AddBoolToObject(rule, "agrees",
                          r->best >= 0 && strcmp(r->c[r->best].kind, r->rule_kind) == 0);
    cJSON_AddNumberToObject(root, "simulations", r->simulations);
    return root;
}

int plan_write_k8s(const char *dir, const struct scenario *sc, const struct plan_result *r,
                   char *err, size_t errlen)
{
    if (r->best < 0)
        return ss_errf(err, errlen, "no recommendation to write Kubernetes artefacts for");
    const struct plan_cand *b = &r->c[r->best];
    const struct policy_ops *ops = policy_find(b->kind);
    if (!ops || !ops->hooks || !ops->hooks->deploy)
        return ss_errf(err, errlen, "strategy kind \"%s\" has no deployment artefacts", b->kind);
    return ops->hooks->deploy(dir, sc, b, err, errlen);
}
