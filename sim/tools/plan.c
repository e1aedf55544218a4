/*
 * plan — analytic pruning, simulation and ranking (the method is described in
 * plan.h). The candidates come from each strategy's plan hook (core/policy.h,
 * sim/policy/plan_<kind>.c); a kind is searched only when its policy has one and the
 * scenario's "plan.kinds" allows it. Nothing here knows a strategy by name.
 */
#define _DEFAULT_SOURCE /* realpath() */
#include "tools/plan.h"
#include "base/jsonv.h"
#include "core/deploy.h"
#include "core/engineargs.h"
#include "core/loadscale.h"
#include "core/llmstats.h"
#include "core/policy.h"
#include "core/stable.h"
#include "core/verdict.h"
#include "tools/plandir.h"
#include "tools/plansens.h"
#include "report/report.h"
#include "base/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_MAX_KINDS 8

struct pctx {
    struct plan_ctx pc; /* what the plan hooks see: scenario, bound, candidates */
    int max_sims;
    int headroom; /* "plan.headroom": measure it (default) */
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

/* Candidate c's degrees into doc, a copy of the scenario: the planner's choice where it made
 * one, 1 for any other tenant with "tensor_parallel": "auto" (a strategy that serves it on one
 * GPU, or none). The loader refuses "auto" itself: what runs is always a number. */
static void apply_tp(const struct scenario *sc, const struct plan_cand *c, cJSON *doc)
{
    cJSON *tenants = cJSON_GetObjectItemCaseSensitive(doc, "tenants");
    for (int i = 0; i < sc->n_tenants; i++) {
        if (!sc->tenants[i].llm || !sc->tenants[i].llm->tp_auto)
            continue;
        cJSON *sv = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(tenants, i), "serving");
        int k = c->tp && c->tp[i] ? c->tp[i] : 1;
        if (cJSON_IsObject(sv))
            cJSON_ReplaceItemInObjectCaseSensitive(sv, "tensor_parallel", cJSON_CreateNumber(k));
    }
}

/* Loads and runs one strategy object on c->gpus GPUs: 0 with the result in *res (the caller
 * frees it), 1 when the loader rejects it (its reason in c->pruned), -1 when the run failed.
 * kv_tokens (may be NULL): per tenant, a TP layout's KV cache in tokens per engine, -1 for
 * the others. */
static int run_strategy(const struct scenario *sc, struct plan_cand *c, const cJSON *strategy,
                        double load, struct strategy_result *res, long *kv_tokens, char *err,
                        size_t errlen)
{
    cJSON *doc = cJSON_Duplicate(sc->json, 1);
    apply_tp(sc, c, doc);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "plan");
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "replications");
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "gpus");
    cJSON_AddNumberToObject(doc, "gpus", c->gpus);
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToArray(arr, cJSON_Duplicate(strategy, 1));
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
        return 1;
    }
    free(text);
    /* A whole GPU's (each GPU's of a group) memory is an exclusive engine's: its blocks are the
     * cache one engine holds, which is what tells TP layouts apart. */
    for (int i = 0; kv_tokens && i < sc->n_tenants; i++) {
        long blocks;
        kv_tokens[i] = -1;
        if (c->tp && c->tp[i] && s2.tenants[i].llm &&
            !lsv_kv_blocks(s2.tenants[i].llm, s2.gpu.memory_gb, "a GPU", &blocks, why, sizeof why))
            kv_tokens[i] = blocks * s2.tenants[i].llm->block_size;
    }
    /* The headroom's runs: every arrival rate times `load`, as `run --scale-load` does. */
    if (load != 1 && ls_scale_load(&s2, load, err, errlen)) {
        scn_free(&s2);
        return -1;
    }
    int rc = run_one(&s2, &s2.strategies[0], 0, res, err, errlen);
    if (rc == 0) /* the verdict counts an unstable tenant as `run` does (core/stable.h) */
        stab_fill(&s2, &s2.strategies[0], res);
    scn_free(&s2);
    return rc ? -1 : 0;
}

/* "chat+embed | rerank": the strategy's "assign", GPU by GPU. */
static void placement_text(const struct scenario *sc, const cJSON *strategy, int gpus, char *out,
                           size_t n)
{
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(strategy, "assign");
    size_t k = 0;
    out[0] = '\0';
    for (int g = 0; g < gpus && k < n; g++) {
        int first = 1;
        for (int i = 0; i < sc->n_tenants && k < n; i++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(as, sc->tenants[i].name);
            if (cJSON_IsNumber(v) && v->valueint == g) {
                k += (size_t)snprintf(out + k, n - k, "%s%s", first ? (g && k ? " | " : "") : "+",
                                      sc->tenants[i].name);
                first = 0;
            }
        }
    }
}

/* One placement's verdict: every tenant judged by core/verdict.h; *worst the tenant with the
 * largest ratio. */
struct placement_verdict {
    struct vd_strategy v;
    int worst;
};

static void judge_placement(const struct scenario *sc, const struct strategy_result *res,
                            struct plan_cand *c, struct placement_verdict *pv)
{
    vd_strategy_init(&pv->v);
    pv->worst = -1;
    double top = -INFINITY;
    for (int i = 0; i < sc->n_tenants; i++) {
        struct vd_verdict v;
        vd_judge(sc, res, i, &v);
        vd_strategy_add(&pv->v, sc->tenants[i].name, &v);
        if (v.has_sla && !isnan(v.worst_ratio) && v.worst_ratio > top) {
            top = v.worst_ratio;
            pv->worst = i;
        }
        /* What a refine hook grows: a tenant that missed anything (a request that failed on
         * an LLM engine did not fit its cache: more memory helps). */
        c->missed[i] |= (unsigned char)!v.meets;
    }
}

/* Is placement a worse than b: a miss is worse than a meet, then farther from meeting. */
static int worse(const struct vd_strategy *a, const struct vd_strategy *b)
{
    if (a->meets != b->meets)
        return !a->meets;
    return vd_closer(a->lost_miss, a->worst_ratio, b->lost_miss, b->worst_ratio) < 0;
}

/* The worst over the placements of each tenant's figures (NaN, nothing measured, is worst). */
static void fold_figures(const struct scenario *sc, const struct strategy_result *res,
                         struct plan_cand *c)
{
    for (int i = 0; i < sc->n_tenants; i++) {
        const double *t = res_t((struct strategy_result *)res, i);
        if (!(t[TM_LAT_P99] <= c->p99_s[i]))
            c->p99_s[i] = t[TM_LAT_P99];
        if (!(t[TM_THROUGHPUT] >= c->thr_per_s[i]))
            c->thr_per_s[i] = t[TM_THROUGHPUT];
        if (sc->tenants[i].llm && res->llm) {
            const double *m = res->llm + (size_t)i * LM_N;
            if (!(m[LM_TTFT_P99] <= c->ttft_s[i]))
                c->ttft_s[i] = m[LM_TTFT_P99];
            if (!(m[LM_TPOT_P99] <= c->tpot_s[i]))
                c->tpot_s[i] = m[LM_TPOT_P99];
            if (!(m[LM_PREEMPTIONS] <= c->preemptions[i]))
                c->preemptions[i] = m[LM_PREEMPTIONS];
        }
    }
}

static void drop_figures(struct plan_cand *c)
{
    free(c->p99_s);
    free(c->missed);
    free(c->ttft_s);
    free(c->tpot_s);
    free(c->thr_per_s);
    free(c->kv_tokens);
    free(c->preemptions);
    c->p99_s = c->ttft_s = c->tpot_s = c->thr_per_s = NULL;
    c->missed = NULL;
    c->kv_tokens = NULL;
    c->preemptions = NULL;
}

/* A candidate's variants: its placements (or its strategy alone), then its general ones. */
static int n_placed(const struct plan_cand *c)
{
    return c->placements ? cJSON_GetArraySize(c->placements) : 1;
}

static int n_variants(const struct plan_cand *c)
{
    return n_placed(c) + (c->general ? cJSON_GetArraySize(c->general) : 0);
}

static const cJSON *variant_at(const struct plan_cand *c, int v)
{
    int np = n_placed(c);
    if (v >= np)
        return cJSON_GetArrayItem(c->general, v - np);
    return c->placements ? cJSON_GetArrayItem(c->placements, v) : c->strategy;
}

/* Whether the scenario prices the vGPU licences a strategy bills: the key given (0 included,
 * a site licence), or a price above 0. */
static int licence_priced(const struct scenario *sc)
{
    const cJSON *cost = cJSON_GetObjectItemCaseSensitive(sc->json, "cost");
    return sc->vgpu_license_usd_per_vgpu_year > 0 ||
           cJSON_GetObjectItemCaseSensitive(cost, "vgpu_license_usd_per_vgpu_year") != NULL;
}

/* Names where variant v runs: "chat | embed+rerank", and ", throttled" for a general one. */
static void variant_text(const struct scenario *sc, const struct plan_cand *c, int v, char *out,
                         size_t n)
{
    out[0] = '\0';
    if (c->placements || c->general)
        placement_text(sc, variant_at(c, v), c->gpus, out, n);
    if (v >= n_placed(c)) {
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%sthrottled", l ? ", " : "");
    }
}

/*
 * Simulates one candidate in each of its variants (its placements, one when it has none, then
 * its general ones): a tenant's figures are its worst over them, and the candidate's verdict
 * that of its worst variant, so it meets the SLAs only if it does in every one. When it meets
 * them in every placement but not in a general variant, it holds only while a pod is alone
 * (PC_FLAG_ONLY_ALONE). Returns the number of runs (0 when the loader rejected it: pruned,
 * not an error), or -1 with the message when a run failed.
 */
static int simulate(const struct scenario *sc, struct plan_cand *c, char *err, size_t errlen)
{
    int n = n_variants(c), np = n_placed(c), placed_meet = 1;
    size_t nt = (size_t)(sc->n_tenants ? sc->n_tenants : 1);
    c->p99_s = ss_xcalloc(nt, sizeof *c->p99_s);
    c->missed = ss_xcalloc(nt, sizeof *c->missed);
    c->ttft_s = ss_xcalloc(nt, sizeof *c->ttft_s);
    c->tpot_s = ss_xcalloc(nt, sizeof *c->tpot_s);
    c->thr_per_s = ss_xcalloc(nt, sizeof *c->thr_per_s);
    c->kv_tokens = ss_xcalloc(nt, sizeof *c->kv_tokens);
    c->preemptions = ss_xcalloc(nt, sizeof *c->preemptions);
    for (int i = 0; i < sc->n_tenants; i++) {
        c->preemptions[i] = sc->tenants[i].llm ? -INFINITY : NAN;
        c->p99_s[i] = -INFINITY;
        c->thr_per_s[i] = INFINITY;
        c->ttft_s[i] = c->tpot_s[i] = sc->tenants[i].llm ? -INFINITY : NAN;
    }
    struct placement_verdict worst_pv;
    int worst_v = 0;
    for (int v = 0; v < n; v++) {
        const cJSON *st = variant_at(c, v);
        struct strategy_result res;
        int rc = run_strategy(sc, c, st, 1.0, &res, v == 0 ? c->kv_tokens : NULL, err, errlen);
        if (rc) {
            drop_figures(c);
            c->feasible = 0;
            c->worst_margin = c->worst_ratio = NAN;
            return rc < 0 ? -1 : 0;
        }
        if (v == 0) {
            c->cost_per_hour = res.m[SM_COST_PER_HOUR];
            c->cost_per_mreq = res.m[SM_COST_PER_MREQ];
            if (res.licensed_vgpus > 0 && !licence_priced(sc))
                c->flags |= PC_FLAG_LICENCE_UNPRICED;
        }
        fold_figures(sc, &res, c);
        struct placement_verdict pv;
        judge_placement(sc, &res, c, &pv);
        if (v < np)
            placed_meet &= pv.v.meets;
        if (v == 0 || worse(&pv.v, &worst_pv.v)) {
            worst_pv = pv;
            worst_v = v;
        }
        strategy_result_free(&res);
    }
    if (n > 1)
        variant_text(sc, c, worst_v, c->worst_placement, sizeof c->worst_placement);
    c->worst_variant = worst_v;
    c->feasible = worst_pv.v.meets;
    if (placed_meet && !c->feasible)
        c->flags |= PC_FLAG_ONLY_ALONE;
    c->lost_miss = worst_pv.v.lost_miss;
    c->worst_ratio = worst_pv.v.worst_ratio;
    /* No tenant with an SLA: nothing to miss, and no margin (+inf, as before: any cheaper). */
    c->worst_margin = isnan(c->worst_ratio) ? INFINITY : 1 - c->worst_ratio;
    if (worst_v >= np && !c->feasible)
        snprintf(c->reason, sizeof c->reason, "%s, with %s", worst_pv.v.reason, c->general_why);
    else
        snprintf(c->reason, sizeof c->reason, "%s", worst_pv.v.reason);
    snprintf(c->worst_tenant, sizeof c->worst_tenant, "%s",
             worst_pv.worst >= 0 ? sc->tenants[worst_pv.worst].name : "");
    c->simulated = 1;
    return n;
}

/* ---- headroom ------------------------------------------------------------------ */

/* Does every variant of c meet every SLA at load factor x? 1 yes, 0 no, -1 a run failed (err).
 * The variant that missed last is tried first (*first), the likeliest to miss again. */
static int meets_at(const struct scenario *sc, struct plan_cand *c, double x, int *first, int *runs,
                    char *err, size_t errlen)
{
    int n = n_variants(c);
    for (int k = 0; k < n; k++) {
        int v = (*first + k) % n;
        struct strategy_result res;
        int rc = run_strategy(sc, c, variant_at(c, v), x, &res, NULL, err, errlen);
        if (rc)
            return -1;
        ++*runs;
        struct vd_strategy vs;
        vd_judge_strategy(sc, &res, &vs);
        strategy_result_free(&res);
        if (!vs.meets) {
            *first = v;
            return 0;
        }
    }
    return 1;
}

/*
 * The headroom of a candidate that meets its SLAs at the planned load (factor 1): the factor
 * is doubled until it misses (2, 4, …, PLAN_HEADROOM_MAX_FACTOR), then the bracket [meets,
 * misses] is halved geometrically until hi / lo ≤ 1 + PLAN_HEADROOM_TOL: at most
 * PLAN_HEADROOM_MAX_POINTS factors, each run in every variant until one misses. The runs use the
 * scenario's seed, so every factor sees the same random numbers (only the arrival times scale).
 * *budget is the runs left; a candidate it cannot finish says so in headroom_note.
 */
static void measure_headroom(const struct scenario *sc, struct plan_cand *c, int *budget)
{
    char err[SS_ERRLEN];
    int first = 0, rc = 1, need = PLAN_HEADROOM_MAX_POINTS * n_variants(c);
    if (need > *budget) {
        snprintf(c->headroom_note, sizeof c->headroom_note,
                 "not measured: the plan's %d headroom runs are spent", PLAN_HEADROOM_MAX_RUNS);
        return;
    }
    double lo = 1, hi = INFINITY;
    for (double x = 2; x <= PLAN_HEADROOM_MAX_FACTOR && rc == 1; x *= 2) {
        rc = meets_at(sc, c, x, &first, &c->headroom_runs, err, sizeof err);
        if (rc == 1)
            lo = x;
        else if (rc == 0)
            hi = x;
    }
    while (rc >= 0 && isfinite(hi) && hi / lo > 1 + PLAN_HEADROOM_TOL) {
        double mid = sqrt(lo * hi);
        rc = meets_at(sc, c, mid, &first, &c->headroom_runs, err, sizeof err);
        if (rc == 1)
            lo = mid;
        else if (rc == 0)
            hi = mid;
    }
    *budget -= c->headroom_runs;
    if (rc < 0) {
        snprintf(c->headroom_note, sizeof c->headroom_note, "not measured: %.100s", err);
        return;
    }
    c->headroom_lo = lo;
    c->headroom_hi = hi;
    if (!isfinite(hi))
        snprintf(c->headroom_note, sizeof c->headroom_note,
                 "meets every SLA up to %g times the load, the largest factor tried",
                 (double)PLAN_HEADROOM_MAX_FACTOR);
}

/* Headroom for the first PLAN_HEADROOM_CANDIDATES candidates that meet their SLAs, in rank order
 * (the recommendation first), within PLAN_HEADROOM_MAX_RUNS runs; one that misses at the planned
 * load has headroom below 1. */
static void headrooms(const struct scenario *sc, struct plan_result *r, int on)
{
    int budget = PLAN_HEADROOM_MAX_RUNS, measured = 0;
    for (int i = 0; i < r->n; i++) {
        struct plan_cand *c = &r->c[i];
        if (!c->simulated)
            continue;
        if (!c->feasible) {
            c->headroom_hi = 1; /* misses at the planned load: below 1, not bisected */
            snprintf(c->headroom_note, sizeof c->headroom_note,
                     "misses an SLA at the planned load");
        } else if (!on) {
            snprintf(c->headroom_note, sizeof c->headroom_note,
                     "not measured: \"plan\": {\"headroom\": false} or --no-headroom");
        } else if (measured >= PLAN_HEADROOM_CANDIDATES) {
            snprintf(c->headroom_note, sizeof c->headroom_note,
                     "not measured: only the first %d that meet the SLAs are",
                     PLAN_HEADROOM_CANDIDATES);
        } else {
            measured++;
            measure_headroom(sc, c, &budget);
        }
        r->headroom_runs += c->headroom_runs;
    }
}

static int label_taken(const struct plan_cand *c, int n, int i)
{
    for (int j = 0; j < n; j++)
        if (j != i && strcmp(c[j].label, c[i].label) == 0)
            return 1;
    return 0;
}

static void label_append(struct plan_cand *c, const char *fmt, const char *text, int num)
{
    size_t len = strlen(c->label);
    snprintf(c->label + len, sizeof c->label - len, fmt, text ? text : "", num);
}

/*
 * No two candidates may read the same in the table or on the page: a policy's label names the
 * configuration, and two that differ only in which tenants share a GPU (or in the pool's size)
 * are told apart by saying so — the placement from their "assign" ("chat+embed | rerank"),
 * then the GPU count, then a variant number as the last resort.
 */
static void distinct_labels(const struct scenario *sc, struct plan_cand *c, int n)
{
    unsigned char *dup = ss_xcalloc((size_t)(n ? n : 1), 1);
    for (int i = 0; i < n; i++)
        dup[i] = (unsigned char)label_taken(c, n, i);
    for (int i = 0; i < n; i++)
        if (dup[i] && c[i].strategy && cJSON_GetObjectItemCaseSensitive(c[i].strategy, "assign")) {
            char where[160];
            placement_text(sc, c[i].strategy, c[i].gpus, where, sizeof where);
            if (where[0])
                label_append(&c[i], ", placed %s%.0d", where, 0);
        }
    for (int i = 0; i < n; i++)
        dup[i] = (unsigned char)label_taken(c, n, i);
    for (int i = 0; i < n; i++)
        if (dup[i])
            label_append(&c[i], c[i].gpus == 1 ? "%s on %d GPU" : "%s on %d GPUs", "", c[i].gpus);
    for (int i = 0, k = 0; i < n; i++)
        if (label_taken(c, n, i))
            label_append(&c[i], "%s (variant %d)", "", ++k);
    free(dup);
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

/* The cheapest candidate (by_cost's order) still to simulate, or -1. */
static int next_to_simulate(const struct plan_ctx *x)
{
    int best = -1;
    for (int i = 0; i < x->n; i++) {
        const struct plan_cand *c = &x->c[i];
        if (c->simulated || c->pruned[0] || !c->strategy)
            continue;
        if (best < 0 || by_cost(c, &x->c[best]) < 0)
            best = i;
    }
    return best;
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
    /* Equal cost, but one bills licences nobody priced: its real cost is higher, it goes
     * after those that need none. */
    unsigned la = a->flags & PC_FLAG_LICENCE_UNPRICED, lb = b->flags & PC_FLAG_LICENCE_UNPRICED;
    if (ra == 0 && la != lb)
        return la ? 1 : -1;
    /* Equal cost: the one that leaves more capacity free (room to grow, for a new tenant),
     * when both say how much. */
    if (ra == 0 && isfinite(a->free_gpus) && isfinite(b->free_gpus) &&
        fabs(a->free_gpus - b->free_gpus) > 1e-9)
        return a->free_gpus > b->free_gpus ? -1 : 1;
    /* The same order as the pages' "closest" (core/verdict.h vd_closer): the nearer to its
     * targets first; among those that meet them, the larger margin. */
    if (ra <= 1) {
        int c = vd_closer(a->lost_miss, a->worst_ratio, b->lost_miss, b->worst_ratio);
        if (c)
            return -c;
    }
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

/* Why the recommendation beat the candidates that cost as much (by_rank's tie-breaks), in
 * r->reason: more capacity left free, or a larger worst SLA margin. */
static void explain_choice(struct plan_result *r)
{
    if (r->best < 0) {
        snprintf(r->reason, sizeof r->reason,
                 "no candidate meets every SLA: the closest is the one nearest its targets (the "
                 "smallest worst ratio of a figure to its target)");
        return;
    }
    const struct plan_cand *b = &r->c[r->best];
    int ties = 0;
    /* The ties a licence that is not priced put behind it, and the first of the others: each
     * gets its own clause, so that a three-way tie is explained against both kinds. */
    const struct plan_cand *unpriced = NULL, *next = NULL;
    for (int i = 0; i < r->n; i++)
        if (i != r->best && r->c[i].feasible && cost_key(&r->c[i]) == cost_key(b)) {
            ties++;
            if ((r->c[i].flags & PC_FLAG_LICENCE_UNPRICED) &&
                !(b->flags & PC_FLAG_LICENCE_UNPRICED)) {
                if (!unpriced)
                    unpriced = &r->c[i];
            } else if (!next) {
                next = &r->c[i];
            }
        }
    if (!ties) {
        snprintf(r->reason, sizeof r->reason,
                 "the cheapest configuration the simulation confirms meets every tenant's SLA");
        return;
    }
    size_t n = (size_t)snprintf(r->reason, sizeof r->reason,
                                "the cheapest confirmed, tied in cost with %d other%s; chosen ",
                                ties, ties > 1 ? "s" : "");
    if (unpriced && n < sizeof r->reason)
        n += (size_t)snprintf(r->reason + n, sizeof r->reason - n,
                              "because it needs no licence, and %s's vGPU licence price is not "
                              "set (the $0 default of cost.vgpu_license_usd_per_vgpu_year "
                              "understates its cost)%s",
                              unpriced->label, next ? "; it ranks before " : "");
    if (!next || n >= sizeof r->reason)
        return;
    if (unpriced)
        n += (size_t)snprintf(r->reason + n, sizeof r->reason - n, "%s ", next->label);
    if (n >= sizeof r->reason)
        return;
    if (isfinite(b->free_gpus) && isfinite(next->free_gpus) &&
        fabs(b->free_gpus - next->free_gpus) > 1e-9)
        snprintf(r->reason + n, sizeof r->reason - n,
                 "because it leaves more capacity free (%.2f GPUs against %.2f for %s)",
                 b->free_gpus, next->free_gpus, next->label);
    else {
        char mine[48], theirs[48];
        vd_fmt_ratio(b->worst_ratio, mine, sizeof mine);
        vd_fmt_ratio(next->worst_ratio, theirs, sizeof theirs);
        if (vd_closer(b->lost_miss, b->worst_ratio, next->lost_miss, next->worst_ratio) > 0)
            snprintf(r->reason + n, sizeof r->reason - n,
                     "for its larger worst SLA margin (%s against %s for %s)", mine, theirs,
                     next->label);
        else if (unpriced)
            snprintf(r->reason + n, sizeof r->reason - n, "by name (the same worst SLA margin, %s)",
                     theirs);
        else
            snprintf(r->reason + n, sizeof r->reason - n,
                     "first by name: %s has the same worst SLA margin (%s)", next->label, theirs);
    }
}

/* ---- the tensor-parallel choice --------------------------------------------------- */

/* "2×TP2": tenant i's layout in candidate c. */
static void layout_name(const struct plan_cand *c, int i, char *buf, size_t n)
{
    snprintf(buf, n, "%d×TP%d", c->engines[i], c->tp[i]);
}

/* Whether c is a layout the planner chose for tenant i, different from b's. */
static int other_layout(const struct plan_cand *c, const struct plan_cand *b, int i)
{
    return c != b && c->simulated && c->tp && c->tp[i] &&
           (c->tp[i] != b->tp[i] || c->engines[i] != b->engines[i]);
}

/* "TTFT/TPOT p99 412/28.1 ms" of tenant i in c, with the targets when it has them. */
static void lat_text(const struct scenario *sc, const struct plan_cand *c, int i, char *buf,
                     size_t n)
{
    snprintf(buf, n, "TTFT/TPOT p99 %.4g/%.4g ms", c->ttft_s[i] * 1e3, c->tpot_s[i] * 1e3);
    const struct lsv_cfg *l = sc->tenants[i].llm;
    if (l->sla_ttft_p99_s > 0 || l->sla_tpot_p99_s > 0) {
        size_t w = strlen(buf);
        char a[32] = "-", b[32] = "-";
        if (l->sla_ttft_p99_s > 0)
            snprintf(a, sizeof a, "%.4g", l->sla_ttft_p99_s * 1e3);
        if (l->sla_tpot_p99_s > 0)
            snprintf(b, sizeof b, "%.4g", l->sla_tpot_p99_s * 1e3);
        snprintf(buf + w, n - w, " (targets %s/%s)", a, b);
    }
}

/*
 * Why the recommendation's layout won (r->tp_why): against each other layout of the same
 * tenant simulated on as many GPUs — or, when none was, the cheaper ones simulated — what
 * decided (it misses and why, it costs more, or the tie-break), then the figures that differ
 * between layouts: the KV cache each engine holds, the preemptions, TTFT and TPOT p99.
 */
static void explain_tp(const struct scenario *sc, struct plan_result *r)
{
    r->tp_tenant = -1;
    r->n_tp_alt = 0;
    r->tp_why[0] = '\0';
    int idx = r->best >= 0 ? r->best : r->closest;
    if (idx < 0 || !r->c[idx].tp)
        return;
    const struct plan_cand *b = &r->c[idx];
    int t = -1;
    for (int i = 0; i < sc->n_tenants && t < 0; i++)
        if (b->tp[i])
            t = i;
    if (t < 0)
        return;
    r->tp_tenant = t;
    /* r->c is in rank order: the first found are the better ranked. */
    for (int same = 1; same >= 0 && r->n_tp_alt == 0; same--)
        for (int k = 0; k < r->n && r->n_tp_alt < PLAN_TP_MAX_ALTS; k++) {
            const struct plan_cand *c = &r->c[k];
            if (other_layout(c, b, t) && (same ? c->gpus == b->gpus : c->gpus < b->gpus))
                r->tp_alt[r->n_tp_alt++] = k;
        }
    char mine[32], lat[160];
    layout_name(b, t, mine, sizeof mine);
    lat_text(sc, b, t, lat, sizeof lat);
    size_t w = (size_t)snprintf(r->tp_why, sizeof r->tp_why,
                                "%s: %s on %d GPU%s (%s): KV holds %ld tokens per engine, %.0f "
                                "preemptions, %s",
                                sc->tenants[t].name, mine, b->gpus, b->gpus == 1 ? "" : "s",
                                r->best >= 0 ? "chosen" : "the closest", b->kv_tokens[t],
                                b->preemptions[t], lat);
    if (r->n_tp_alt == 0 && w < sizeof r->tp_why) {
        snprintf(r->tp_why + w, sizeof r->tp_why - w,
                 "; no other layout was simulated on as many GPUs or fewer.");
        return;
    }
    for (int q = 0; q < r->n_tp_alt && w < sizeof r->tp_why; q++) {
        const struct plan_cand *c = &r->c[r->tp_alt[q]];
        char theirs[32], why[SCN_NAME_MAX + 340], pre[120];
        layout_name(c, t, theirs, sizeof theirs);
        lat_text(sc, c, t, lat, sizeof lat);
        if (!c->feasible)
            snprintf(why, sizeof why, "misses (%s)", c->reason);
        else if (cost_key(c) > cost_key(b))
            snprintf(why, sizeof why, "meets every SLA but costs more ($%.2f/hour against $%.2f)",
                     c->cost_per_hour, b->cost_per_hour);
        else
            snprintf(why, sizeof why,
                     "meets every SLA at no lower cost; %s ranks first by the tie-breaks the "
                     "recommendation states",
                     mine);
        /* A smaller cache holds fewer sequences: what preempts them is the cause to name. */
        if (c->kv_tokens[t] < b->kv_tokens[t] && c->preemptions[t] > b->preemptions[t])
            snprintf(pre, sizeof pre, "so it preempts more (%.0f preemptions against %.0f)",
                     c->preemptions[t], b->preemptions[t]);
        else
            snprintf(pre, sizeof pre, "%.0f preemptions against %.0f", c->preemptions[t],
                     b->preemptions[t]);
        w += (size_t)snprintf(r->tp_why + w, sizeof r->tp_why - w,
                              ". %s on %d GPU%s %s: its engines hold %ld KV tokens each against "
                              "%ld at %s, %s; %s",
                              theirs, c->gpus, c->gpus == 1 ? "" : "s", why, c->kv_tokens[t],
                              b->kv_tokens[t], mine, pre, lat);
    }
    if (w < sizeof r->tp_why)
        snprintf(r->tp_why + w, sizeof r->tp_why - w, ".");
}

/* ---- entry ------------------------------------------------------------------- */

static int parse_plan(const struct scenario *sc, struct pctx *x, char *err, size_t errlen)
{
    static const char *const keys[] = {"kinds", "max_gpus", "max_simulations", "headroom", NULL};
    struct jv j = {sc->path, err, errlen};
    long v;
    /* Default bound: enough whole GPUs for every tenant twice over, at least 8. */
    x->pc.max_gpus = 2 * sc->n_tenants > 8 ? 2 * sc->n_tenants : 8;
    x->max_sims = 40;
    x->headroom = 1;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(sc->json, "plan");
    if (!p)
        return 0;
    if (jv_object(&j, p, "plan", keys) || jv_bool(&j, p, "plan", "headroom", 0, &x->headroom) < 0)
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

/* ---- sensitivity (tools/plansens.h) ---------------------------------------------- */

static int sens_variant(const struct scenario *sc, struct plan_cand *c, int v,
                        struct strategy_result *res, char *err, size_t errlen)
{
    return run_strategy(sc, c, variant_at(c, v), 1.0, res, NULL, err, errlen);
}

/* Reruns the recommendation (or the closest candidate) at its values' stated ranges. */
static int sensitivity(const struct scenario *sc, struct plan_result *r, char *err, size_t errlen)
{
    int cand = r->best >= 0 ? r->best : r->closest;
    r->sens = ss_xcalloc(1, sizeof *r->sens);
    return plan_sens_run(sc, r->c, cand, r->best >= 0, cand >= 0 ? n_variants(&r->c[cand]) : 0,
                         sens_variant, r->sens, err, errlen);
}

int plan_run(const struct scenario *sc, int flags, struct plan_result *out, char *err,
             size_t errlen)
{
    struct pctx x = {.pc.sc = sc};
    int progress = flags & PLAN_PROGRESS;
    memset(out, 0, sizeof *out);
    out->best = out->closest = -1;
    if (parse_plan(sc, &x, err, errlen))
        return -1;
    if (flags & PLAN_NO_HEADROOM)
        x.headroom = 0;
    int llm = -1; /* the first LLM tenant, if any */
    for (int i = 0; i < sc->n_tenants && llm < 0; i++)
        if (sc->tenants[i].llm)
            llm = i;
    for (int k = 0; k < policy_count(); k++) {
        const struct policy_ops *ops = policy_at(k);
        if (!ops->hooks || !ops->hooks->plan || !kind_wanted(&x, ops->kind))
            continue;
        /* A strategy that does not serve LLM tenants would only be refused by the loader: one
         * line says so instead, and its candidates appear once the strategy serves them. */
        if (llm >= 0 && !ops->serves_llm) {
            struct plan_cand *c = pc_add(&x.pc, ops->kind, 1, NULL, "%s", ops->kind);
            c->cost_per_hour = NAN;
            snprintf(c->pruned, sizeof c->pruned,
                     "%s does not serve LLM tenants yet (%s has \"serving\"); the kinds that do: "
                     "%s",
                     ops->kind, sc->tenants[llm].name, policy_llm_kinds());
            continue;
        }
        int tp = -1; /* an LLM tenant the strategy cannot give a tensor-parallel group */
        for (int i = 0; i < sc->n_tenants && ops->no_tp && tp < 0; i++)
            if (sc->tenants[i].llm && sc->tenants[i].llm->tensor_parallel > 1)
                tp = i;
        if (tp >= 0) {
            struct plan_cand *c = pc_add(&x.pc, ops->kind, 1, NULL, "%s", ops->kind);
            c->cost_per_hour = NAN;
            snprintf(c->pruned, sizeof c->pruned, "%s has tensor_parallel %d: %s",
                     sc->tenants[tp].name, sc->tenants[tp].llm->tensor_parallel, ops->no_tp);
            continue;
        }
        ops->hooks->plan(&x.pc);
    }
    int feasible = 0, rc = 0, i;
    /* Cheapest first; a strategy may add candidates after one of its own misses (refine: a
     * larger size for the tenants that missed), which join the queue at their price. */
    while (feasible < PLAN_ENOUGH_FEASIBLE && (i = next_to_simulate(&x.pc)) >= 0) {
        if (out->simulations >= x.max_sims)
            break;
        struct plan_cand *c = &x.pc.c[i];
        if (progress)
            fprintf(stderr, "\rplan: simulating %d: %-60.60s", out->simulations + 1, c->label);
        int runs = simulate(sc, c, err, errlen);
        if (runs < 0) {
            rc = -1;
            break;
        }
        out->simulations += runs;
        feasible += c->feasible;
        const struct policy_ops *ops = policy_find(c->kind);
        if (c->simulated && !c->feasible && ops && ops->hooks && ops->hooks->refine)
            ops->hooks->refine(&x.pc, i);
    }
    struct plan_cand *cand = x.pc.c;
    int n = x.pc.n;
    if (progress)
        fprintf(stderr, "\r%*s\r", 80, "");
    out->n = n;
    out->c = cand;
    if (rc) {
        plan_result_free(out);
        return -1;
    }
    distinct_labels(sc, cand, n);
    qsort(cand, (size_t)n, sizeof *cand, by_rank);
    headrooms(sc, out, x.headroom);
    if (n > 0 && cand[0].feasible)
        out->best = 0;
    for (int i = 0; out->best < 0 && i < n; i++)
        if (cand[i].simulated &&
            (out->closest < 0 ||
             vd_closer(cand[i].lost_miss, cand[i].worst_ratio, cand[out->closest].lost_miss,
                       cand[out->closest].worst_ratio) > 0))
            out->closest = i;
    explain_choice(out);
    explain_tp(sc, out);
    rule_of_thumb(sc, out);
    if (!(flags & PLAN_NO_SENSITIVITY) && sensitivity(sc, out, err, errlen)) {
        plan_result_free(out);
        return -1;
    }
    return 0;
}

void plan_result_free(struct plan_result *r)
{
    for (int i = 0; i < r->n; i++)
        pc_free_cand(&r->c[i]);
    free(r->c);
    free(r->sens);
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

/* The figures a tenant's SLA is decided by, in the order of its targets: an LLM service's TTFT
 * and TPOT p99, a batch tenant's throughput, else the latency p99 (also without an SLA). */
enum { FIG_P99, FIG_TTFT, FIG_TPOT, FIG_THR, FIG_N };
static int deciding(const struct tenant_cfg *t, int *fig)
{
    int n = 0;
    if (t->sla_p99_s > 0)
        fig[n++] = FIG_P99;
    if (t->llm && t->llm->sla_ttft_p99_s > 0)
        fig[n++] = FIG_TTFT;
    if (t->llm && t->llm->sla_tpot_p99_s > 0)
        fig[n++] = FIG_TPOT;
    if (t->sla.min_throughput_per_s > 0)
        fig[n++] = FIG_THR;
    if (n == 0)
        fig[n++] = FIG_P99;
    return n;
}

/* "api p99 ms ≤ 200", "chat TTFT/TPOT p99 ms ≤ 500/30", "batch thr/s ≥ 25": the heading. */
static void deciding_head(const struct tenant_cfg *t, char *buf, size_t n)
{
    static const char *const name[FIG_N] = {"p99", "TTFT p99", "TPOT p99", "thr"};
    int fig[FIG_N], k = deciding(t, fig);
    double target[FIG_N] = {t->sla_p99_s * 1e3, t->llm ? t->llm->sla_ttft_p99_s * 1e3 : 0,
                            t->llm ? t->llm->sla_tpot_p99_s * 1e3 : 0, t->sla.min_throughput_per_s};
    size_t w = (size_t)snprintf(buf, n, "%s ", t->name);
    for (int q = 0; q < k && w < n; q++)
        w += (size_t)snprintf(buf + w, n - w, "%s%s", q ? "/" : "", name[fig[q]]);
    int thr_only = k == 1 && fig[0] == FIG_THR;
    if (w < n)
        w += (size_t)snprintf(buf + w, n - w, "%s",
                              thr_only            ? "/s"
                              : fig[0] == FIG_THR ? ""
                                                  : " ms");
    if (!t->sla.set)
        return;
    for (int q = 0; q < k && w < n; q++)
        w += (size_t)snprintf(buf + w, n - w, "%s%.4g",
                              q                   ? "/"
                              : fig[q] == FIG_THR ? " ≥ "
                                                  : " ≤ ",
                              target[fig[q]]);
}

/* Candidate c's deciding figures of tenant i ("412/28.1"), worst over its placements. */
static void deciding_cell(const struct plan_cand *c, const struct tenant_cfg *t, int i, char *buf,
                          size_t n)
{
    int fig[FIG_N], k = deciding(t, fig);
    size_t w = 0;
    buf[0] = '\0';
    if (!c->p99_s) {
        snprintf(buf, n, "-");
        return;
    }
    for (int q = 0; q < k && w < n; q++) {
        double v = fig[q] == FIG_P99    ? c->p99_s[i] * 1e3
                   : fig[q] == FIG_TTFT ? c->ttft_s[i] * 1e3
                   : fig[q] == FIG_TPOT ? c->tpot_s[i] * 1e3
                                        : c->thr_per_s[i];
        w += (size_t)(isfinite(v) ? snprintf(buf + w, n - w, "%s%.4g", q ? "/" : "", v)
                                  : snprintf(buf + w, n - w, "%s-", q ? "/" : ""));
    }
}

/* Display width of UTF-8 text. */
static int cols_of(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void put_padded(FILE *fp, const char *s, int width, int left)
{
    int pad = width - cols_of(s);
    if (!left)
        fprintf(fp, "%*s", pad > 0 ? pad : 0, "");
    fputs(s, fp);
    if (left)
        fprintf(fp, "%*s", pad > 0 ? pad : 0, "");
}

/* " on N GPUs" after a label, unless distinct_labels already put it there. */
static const char *gpus_words(const struct plan_cand *c, char *buf, size_t n)
{
    snprintf(buf, n, " on %d GPU%s", c->gpus, c->gpus == 1 ? "" : "s");
    size_t l = strlen(c->label), b = strlen(buf);
    if (l >= b && strcmp(c->label + l - b, buf) == 0)
        buf[0] = '\0';
    return buf;
}

/* The flags of a candidate, each as its words ("licence price not set"), in the order of their
 * bits; what an operator is warned of before applying it. */
static const struct {
    unsigned bit;
    const char *id, *words;
} flag_words[] = {
    {PC_FLAG_LICENCE_UNPRICED, "licence-price-not-set",
     "licence price not set: its vGPU licences are costed at the $0 default (set "
     "cost.vgpu_license_usd_per_vgpu_year)"},
    {PC_FLAG_ONLY_ALONE, "holds-only-alone",
     "holds only while a pod is alone on its GPU (unthrottled): it misses once another pod joins "
     "it"},
};

/* The flags of c, "; "-separated, into buf ("" when none). */
static void flags_text(const struct plan_cand *c, char *buf, size_t n)
{
    size_t w = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof flag_words / sizeof flag_words[0] && w < n; k++)
        if (c->flags & flag_words[k].bit)
            w += (size_t)snprintf(buf + w, n - w, "%s%s", w ? "; " : "", flag_words[k].words);
}

/* The headroom cell: "1.37" (first misses at 1.37 times the load), ">8", "<1" or "-". */
static void headroom_cell(const struct plan_cand *c, char *buf, size_t n)
{
    if (isnan(c->headroom_hi))
        snprintf(buf, n, "-");
    else if (!isfinite(c->headroom_hi))
        snprintf(buf, n, ">%g", c->headroom_lo);
    else if (isnan(c->headroom_lo))
        snprintf(buf, n, "<%g", c->headroom_hi);
    else
        snprintf(buf, n, "%.3g", c->headroom_hi);
}

/* The last column: the verdict's margin and reason, or why it was not simulated. */
static void why_cell(const struct plan_cand *c, char *buf, size_t n)
{
    char ratio[48];
    vd_fmt_ratio(c->worst_ratio, ratio, sizeof ratio);
    if (c->pruned[0])
        snprintf(buf, n, "%s", c->pruned);
    else if (!c->simulated)
        snprintf(buf, n, "costlier than %d confirmed candidates", PLAN_ENOUGH_FEASIBLE);
    else if (!c->worst_tenant[0] && c->feasible)
        snprintf(buf, n, "no SLA");
    else if (c->feasible)
        snprintf(buf, n, "%s (%s%s%s)", ratio, c->worst_tenant,
                 c->worst_placement[0] ? ", worst placement: " : "", c->worst_placement);
    else
        snprintf(buf, n, "%s; %s%s%s", c->reason, ratio,
                 c->worst_placement[0] ? "; worst placement: " : "", c->worst_placement);
    char flags[400];
    flags_text(c, flags, sizeof flags);
    size_t l = strlen(buf);
    if (flags[0] && l < n)
        snprintf(buf + l, n - l, " [%s]", flags);
}

/* The tensor-parallel choice (explain_tp): each layout's deciding figures, then why. */
static void tp_table(FILE *fp, const struct scenario *sc, const struct plan_result *r)
{
    if (r->tp_tenant < 0)
        return;
    int t = r->tp_tenant, idx = r->best >= 0 ? r->best : r->closest;
    const struct lsv_cfg *l = sc->tenants[t].llm;
    fprintf(fp, "\ntensor parallelism for %s (TTFT/TPOT p99 targets ", sc->tenants[t].name);
    fprintf(fp, l->sla_ttft_p99_s > 0 ? "%.4g" : "-", l->sla_ttft_p99_s * 1e3);
    fprintf(fp, l->sla_tpot_p99_s > 0 ? "/%.4g ms):\n" : "/- ms):\n", l->sla_tpot_p99_s * 1e3);
    fprintf(fp, "  %-8s %4s %8s %12s %12s %17s %11s  %s\n", "layout", "gpus", "$/hour",
            "TTFT p99 ms", "TPOT p99 ms", "KV tokens/engine", "preemptions", "status");
    for (int q = -1; q < r->n_tp_alt; q++) {
        const struct plan_cand *c = &r->c[q < 0 ? idx : r->tp_alt[q]];
        char lay[32], cost[32] = "-";
        layout_name(c, t, lay, sizeof lay);
        if (isfinite(c->cost_per_hour))
            snprintf(cost, sizeof cost, "%.2f", c->cost_per_hour);
        fprintf(fp, "  ");
        put_padded(fp, lay, 8, 1);
        fprintf(fp, " %4d %8s %12.4g %12.4g %17ld %11.0f  %s%s\n", c->gpus, cost,
                c->ttft_s[t] * 1e3, c->tpot_s[t] * 1e3, c->kv_tokens[t], c->preemptions[t],
                status(c), q < 0 ? (r->best >= 0 ? " (chosen)" : " (closest)") : "");
    }
    fprintf(fp, "why: %s\n", r->tp_why);
}

void plan_table(FILE *fp, const struct scenario *sc, const struct plan_result *r)
{
    char price[64] = "no GPU price: ranked by GPU count";
    if (sc->gpu_hour_usd >= 0)
        snprintf(price, sizeof price, "$%.2f/GPU-hour", sc->gpu_hour_usd);
    fprintf(fp, "plan for %s: %d tenant%s on %s (%s), %d simulation%s (and %d for headroom)\n\n",
            sc->name, sc->n_tenants, sc->n_tenants > 1 ? "s" : "", sc->gpu.name, price,
            r->simulations, r->simulations == 1 ? "" : "s", r->headroom_runs);
    /* Labels are printed whole: the column is as wide as the widest. */
    int wl = 8, nt = sc->n_tenants, *wt = ss_xcalloc((size_t)(nt ? nt : 1), sizeof *wt);
    char cell[160];
    for (int i = 0; i < r->n; i++)
        if (cols_of(r->c[i].label) > wl)
            wl = cols_of(r->c[i].label);
    for (int t = 0; t < nt; t++) {
        deciding_head(&sc->tenants[t], cell, sizeof cell);
        wt[t] = cols_of(cell);
        for (int i = 0; i < r->n; i++) {
            deciding_cell(&r->c[i], &sc->tenants[t], t, cell, sizeof cell);
            wt[t] = cols_of(cell) > wt[t] ? cols_of(cell) : wt[t];
        }
    }
    fprintf(fp, "%-4s %9s %9s %5s %8s  ", "rank", "$/hour", "$/Mreq", "gpus", "headroom");
    put_padded(fp, "strategy", wl, 1);
    fprintf(fp, " %-13s", "status");
    for (int t = 0; t < nt; t++) {
        deciding_head(&sc->tenants[t], cell, sizeof cell);
        fputc(' ', fp);
        put_padded(fp, cell, wt[t], 0);
    }
    fprintf(fp, "  %s\n", "worst vs target / why");
    for (int i = 0; i < r->n; i++) {
        const struct plan_cand *c = &r->c[i];
        char rank[16] = "", why[1200];
        if (c->feasible)
            snprintf(rank, sizeof rank, "%d", i + 1);
        why_cell(c, why, sizeof why);
        char cost[32] = "-", cpm[32] = "-";
        if (isfinite(c->cost_per_hour))
            snprintf(cost, sizeof cost, "%.2f", c->cost_per_hour);
        if (isfinite(c->cost_per_mreq))
            snprintf(cpm, sizeof cpm, "%.3f", c->cost_per_mreq);
        char head[32];
        headroom_cell(c, head, sizeof head);
        fprintf(fp, "%-4s %9s %9s %5d %8s  ", rank, cost, cpm, c->gpus, head);
        put_padded(fp, c->label, wl, 1);
        fprintf(fp, " %-13s", status(c));
        for (int t = 0; t < nt; t++) {
            deciding_cell(c, &sc->tenants[t], t, cell, sizeof cell);
            fputc(' ', fp);
            put_padded(fp, cell, wt[t], 0);
        }
        fprintf(fp, "  %s\n", why);
    }
    free(wt);
    fputc('\n', fp);
    if (r->best >= 0) {
        const struct plan_cand *b = &r->c[r->best];
        char cost[48] = "no GPU price given";
        if (isfinite(b->cost_per_hour))
            snprintf(cost, sizeof cost, "$%.2f/hour", b->cost_per_hour);
        char ratio[48], on[32];
        vd_fmt_ratio(b->worst_ratio, ratio, sizeof ratio);
        fprintf(fp,
                "recommendation: %s%s, %s — %s; every tenant meets its SLA "
                "(tightest: %s, %s).\n",
                b->label, gpus_words(b, on, sizeof on), cost, r->reason,
                b->worst_tenant[0] ? b->worst_tenant : "-", ratio);
        char head[32], flags[400];
        headroom_cell(b, head, sizeof head);
        if (isfinite(b->headroom_hi))
            fprintf(fp,
                    "headroom: it first misses an SLA at %s times the load (meets at %.3g; "
                    "bisection to %g %%, same random numbers).\n",
                    head, b->headroom_lo, 100 * PLAN_HEADROOM_TOL);
        else
            fprintf(fp, "headroom: %s.\n", b->headroom_note[0] ? b->headroom_note : "-");
        flags_text(b, flags, sizeof flags);
        if (flags[0])
            fprintf(fp, "warning: %s.\n", flags);
        tp_table(fp, sc, r);
    } else if (r->closest >= 0) {
        const struct plan_cand *b = &r->c[r->closest];
        char ratio[48], on[32];
        vd_fmt_ratio(b->worst_ratio, ratio, sizeof ratio);
        fprintf(fp,
                "no configuration within the limits meets every SLA; closest: %s%s "
                "(%s; worst %s).\n",
                b->label, gpus_words(b, on, sizeof on), b->reason, ratio);
        tp_table(fp, sc, r);
    } else {
        fprintf(fp, "no configuration within the limits could be simulated (all pruned).\n");
    }
    if (r->sens)
        plan_sens_text(fp, r->sens);
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

/* "flags": [{"id", "text"}, ...], empty when none. */
static void add_flags(cJSON *o, const struct plan_cand *c)
{
    cJSON *a = cJSON_AddArrayToObject(o, "flags");
    for (size_t k = 0; k < sizeof flag_words / sizeof flag_words[0]; k++)
        if (c->flags & flag_words[k].bit) {
            cJSON *f = cJSON_CreateObject();
            cJSON_AddStringToObject(f, "id", flag_words[k].id);
            cJSON_AddStringToObject(f, "text", flag_words[k].words);
            cJSON_AddItemToArray(a, f);
        }
}

/* "headroom": {"misses_at", "meets_at", "tolerance", "max_factor", "runs", "note"}, null when
 * the candidate was not simulated. misses_at null: it met every SLA up to max_factor; meets_at
 * null: it misses at the planned load (misses_at 1). */
static void add_headroom(cJSON *o, const struct plan_cand *c)
{
    if (!c->simulated) {
        cJSON_AddNullToObject(o, "headroom");
        return;
    }
    cJSON *h = cJSON_AddObjectToObject(o, "headroom");
    jv_out_add(h, "misses_at", c->headroom_hi);
    jv_out_add(h, "meets_at", c->headroom_lo);
    jv_out_add(h, "tolerance", PLAN_HEADROOM_TOL);
    cJSON_AddNumberToObject(h, "max_factor", PLAN_HEADROOM_MAX_FACTOR);
    cJSON_AddNumberToObject(h, "runs", c->headroom_runs);
    if (c->headroom_note[0])
        cJSON_AddStringToObject(h, "note", c->headroom_note);
    else
        cJSON_AddNullToObject(h, "note");
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
    jv_out_add(o, "worst_ratio", c->worst_ratio);
    if (c->simulated && !c->feasible)
        cJSON_AddStringToObject(o, "reason", c->reason);
    else if (c->pruned[0])
        cJSON_AddStringToObject(o, "reason", c->pruned);
    else
        cJSON_AddNullToObject(o, "reason");
    jv_out_add(o, "free_gpus", c->free_gpus);
    add_flags(o, c);
    add_headroom(o, c);
    if (c->general)
        cJSON_AddItemToObject(o, "general_strategies", cJSON_Duplicate(c->general, 1));
    if (c->pruned[0])
        cJSON_AddStringToObject(o, "pruned", c->pruned);
    cJSON_AddNumberToObject(o, "placements", c->variants > 1 ? c->variants : 1);
    if (c->placements)
        cJSON_AddItemToObject(o, "placement_strategies", cJSON_Duplicate(c->placements, 1));
    if (c->worst_placement[0] && c->simulated)
        cJSON_AddStringToObject(o, "worst_placement", c->worst_placement);
    if (c->p99_s) {
        cJSON *p = cJSON_AddObjectToObject(o, "p99_ms");
        for (int i = 0; i < sc->n_tenants; i++)
            jv_out_add(p, sc->tenants[i].name, c->p99_s[i] * 1e3);
    }
    /* Each tenant's throughput, the figure of a batch tenant's target (worst over placements). */
    if (c->thr_per_s) {
        cJSON *p = cJSON_AddObjectToObject(o, "throughput_per_s");
        for (int i = 0; i < sc->n_tenants; i++)
            jv_out_add(p, sc->tenants[i].name, c->thr_per_s[i]);
    }
    /* The layout the planner chose ("tensor_parallel": "auto"): per such tenant its degree,
     * engines and, when simulated, its KV tokens per engine and preemptions. */
    if (c->tp) {
        cJSON *tp = cJSON_AddObjectToObject(o, "tensor_parallel"),
              *en = cJSON_AddObjectToObject(o, "engines");
        cJSON *kv = c->kv_tokens ? cJSON_AddObjectToObject(o, "kv_tokens_per_engine") : NULL,
              *pr = c->preemptions ? cJSON_AddObjectToObject(o, "preemptions") : NULL;
        for (int i = 0; i < sc->n_tenants; i++)
            if (c->tp[i]) {
                cJSON_AddNumberToObject(tp, sc->tenants[i].name, c->tp[i]);
                cJSON_AddNumberToObject(en, sc->tenants[i].name, c->engines[i]);
                if (kv)
                    cJSON_AddNumberToObject(kv, sc->tenants[i].name, (double)c->kv_tokens[i]);
                if (pr)
                    jv_out_add(pr, sc->tenants[i].name, c->preemptions[i]);
            }
    }
    /* An LLM tenant's TTFT and TPOT p99, the targets the margin also weighs. */
    if (c->ttft_s && run_has_llm(sc)) {
        cJSON *a = cJSON_AddObjectToObject(o, "ttft_p99_ms"),
              *b = cJSON_AddObjectToObject(o, "tpot_p99_ms");
        for (int i = 0; i < sc->n_tenants; i++)
            if (sc->tenants[i].llm) {
                jv_out_add(a, sc->tenants[i].name, c->ttft_s[i] * 1e3);
                jv_out_add(b, sc->tenants[i].name, c->tpot_s[i] * 1e3);
            }
    }
    return o;
}

/* One layout of the tensor-parallel choice: its deciding figures for tenant t. */
static cJSON *tp_layout_json(const struct scenario *sc, const struct plan_cand *c, int t)
{
    cJSON *o = cJSON_CreateObject();
    char lay[32];
    layout_name(c, t, lay, sizeof lay);
    cJSON_AddStringToObject(o, "label", c->label);
    cJSON_AddStringToObject(o, "layout", lay);
    cJSON_AddNumberToObject(o, "tensor_parallel", c->tp[t]);
    cJSON_AddNumberToObject(o, "engines", c->engines[t]);
    cJSON_AddNumberToObject(o, "gpus", c->gpus);
    jv_out_add(o, "cost_per_hour_usd", c->cost_per_hour);
    cJSON_AddBoolToObject(o, "meets_sla", c->feasible);
    jv_out_add(o, "ttft_p99_ms", c->ttft_s[t] * 1e3);
    jv_out_add(o, "tpot_p99_ms", c->tpot_s[t] * 1e3);
    const struct lsv_cfg *l = sc->tenants[t].llm;
    jv_out_add(o, "ttft_target_ms", l->sla_ttft_p99_s > 0 ? l->sla_ttft_p99_s * 1e3 : NAN);
    jv_out_add(o, "tpot_target_ms", l->sla_tpot_p99_s > 0 ? l->sla_tpot_p99_s * 1e3 : NAN);
    if (c->kv_tokens[t] >= 0)
        cJSON_AddNumberToObject(o, "kv_tokens_per_engine", (double)c->kv_tokens[t]);
    else
        cJSON_AddNullToObject(o, "kv_tokens_per_engine");
    jv_out_add(o, "preemptions", c->preemptions[t]);
    if (c->feasible)
        cJSON_AddNullToObject(o, "reason");
    else
        cJSON_AddStringToObject(o, "reason", c->reason);
    return o;
}

/* "tensor_parallel_choice": the chosen layout, the others it was weighed against, and why;
 * null when the planner chose no degree for the recommendation (or closest). */
static void tp_json(cJSON *root, const struct scenario *sc, const struct plan_result *r)
{
    if (r->tp_tenant < 0) {
        cJSON_AddNullToObject(root, "tensor_parallel_choice");
        return;
    }
    int t = r->tp_tenant, idx = r->best >= 0 ? r->best : r->closest;
    cJSON *o = cJSON_AddObjectToObject(root, "tensor_parallel_choice");
    cJSON_AddStringToObject(o, "tenant", sc->tenants[t].name);
    cJSON_AddItemToObject(o, "chosen", tp_layout_json(sc, &r->c[idx], t));
    cJSON *a = cJSON_AddArrayToObject(o, "alternatives");
    for (int q = 0; q < r->n_tp_alt; q++)
        cJSON_AddItemToArray(a, tp_layout_json(sc, &r->c[r->tp_alt[q]], t));
    cJSON_AddStringToObject(o, "why", r->tp_why);
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
        jv_out_add(rec, "worst_ratio", b->worst_ratio);
        cJSON_AddStringToObject(rec, "reason", r->reason);
        cJSON_AddStringToObject(rec, "label", b->label);
        add_flags(rec, b);
        add_headroom(rec, b);
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
    tp_json(root, sc, r);
    cJSON_AddNumberToObject(root, "simulations", r->simulations);
    cJSON_AddNumberToObject(root, "headroom_simulations", r->headroom_runs);
    /* null: not measured (--no-sensitivity); [] when the candidate reads no such value */
    if (r->sens) {
        if (r->sens->cand >= 0)
            cJSON_AddStringToObject(root, "sensitivity_of",
                                    r->sens->recommended ? "recommendation" : "closest");
        else
            cJSON_AddNullToObject(root, "sensitivity_of");
        cJSON_AddItemToObject(root, "sensitivity", plan_sens_json(r->sens));
        cJSON_AddNumberToObject(root, "sensitivity_simulations", r->sens->reruns);
    } else {
        cJSON_AddNullToObject(root, "sensitivity");
    }
    return root;
}

/* ---- the chosen candidate as a scenario ---------------------------------------- */

/* A path the scenario resolved (against its own folder) as the emitted file must spell it: kept
 * when both files are in one folder, else made absolute so that the scenario still runs. */
static void carry_path(cJSON *obj, const char *key, const char *resolved, int same_dir)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (same_dir || !cJSON_IsString(v) || v->valuestring[0] == '/')
        return;
    char *abs = realpath(resolved, NULL);
    if (abs)
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, cJSON_CreateString(abs));
    free(abs);
}

/* Whether two files are in one folder (the folders resolve to one directory). */
static int one_folder(const char *a, const char *b)
{
    char da[4096], db[4096];
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    snprintf(da, sizeof da, "%.*s", sa ? (int)(sa - a) : 1, sa ? a : ".");
    snprintf(db, sizeof db, "%.*s", sb ? (int)(sb - b) : 1, sb ? b : ".");
    char *ra = realpath(da[0] ? da : "/", NULL), *rb = realpath(db[0] ? db : "/", NULL);
    int same = ra && rb && strcmp(ra, rb) == 0;
    free(ra);
    free(rb);
    return same;
}

/* Strategy v of c under a name of its own: the kind alone for a candidate of one variant,
 * else "<kind>-placement-<k>" and "<kind>-throttled-<k>". */
static cJSON *named_variant(const struct plan_cand *c, int v)
{
    cJSON *st = cJSON_Duplicate(variant_at(c, v), 1);
    char name[64];
    int np = n_placed(c);
    if (n_variants(c) == 1)
        snprintf(name, sizeof name, "%s", c->kind);
    else if (v < np)
        snprintf(name, sizeof name, "%s-placement-%d", c->kind, v + 1);
    else
        snprintf(name, sizeof name, "%s-throttled-%d", c->kind, v - np + 1);
    if (cJSON_GetObjectItemCaseSensitive(st, "name"))
        cJSON_ReplaceItemInObjectCaseSensitive(st, "name", cJSON_CreateString(name));
    else
        cJSON_AddStringToObject(st, "name", name);
    return st;
}

cJSON *plan_scenario(const struct scenario *sc, const struct plan_result *r, const char *out_path,
                     char *err, size_t errlen)
{
    int idx = r->best >= 0 ? r->best : r->closest;
    if (idx < 0) {
        ss_errf(err, errlen, "no candidate was simulated: no scenario to write");
        return NULL;
    }
    const struct plan_cand *c = &r->c[idx];
    cJSON *doc = cJSON_Duplicate(sc->json, 1);
    apply_tp(sc, c, doc); /* the degrees the plan chose, which `run` needs as numbers */
    static const char *const drop[] = {"plan", "replications", "gpus", "strategies",
                                       "seed", "description",  NULL};
    for (int k = 0; drop[k]; k++)
        cJSON_DeleteItemFromObjectCaseSensitive(doc, drop[k]);
    char desc[1024];
    snprintf(desc, sizeof desc,
             "sharesim plan's %s for scenario %s: %s on %d GPU%s. Each strategy is one way it "
             "runs (%d in all: placements the scheduler may choose, and throttled variants); the "
             "plan's figures are each tenant's worst over them.",
             r->best >= 0 ? "recommendation" : "closest candidate (no configuration met every SLA)",
             sc->name, c->label, c->gpus, c->gpus == 1 ? "" : "s", n_variants(c));
    cJSON_AddStringToObject(doc, "description", desc);
    /* What the plan ran with, stated: one replication, its seed, stop and warm-up. */
    cJSON_AddNumberToObject(doc, "gpus", c->gpus);
    cJSON_AddNumberToObject(doc, "seed", (double)sc->seed);
    cJSON_AddNumberToObject(doc, "replications", 1);
    if (!cJSON_GetObjectItemCaseSensitive(doc, "stop")) {
        cJSON *stop = cJSON_AddObjectToObject(doc, "stop");
        if (sc->stop_requests > 0)
            cJSON_AddNumberToObject(stop, "requests", (double)sc->stop_requests);
        else
            cJSON_AddNumberToObject(stop, "duration_s", sc->stop_duration_s);
    }
    if (!cJSON_GetObjectItemCaseSensitive(doc, "warmup")) {
        cJSON *w = cJSON_AddObjectToObject(doc, "warmup");
        if (sc->warmup_duration_s > 0)
            cJSON_AddNumberToObject(w, "duration_s", sc->warmup_duration_s);
        else
            cJSON_AddNumberToObject(w, "requests", (double)sc->warmup_requests);
    }
    int same = strcmp(out_path, "-") == 0 || one_folder(sc->path, out_path);
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(doc, "gpu");
    if (cJSON_IsString(gpu) &&
        (strchr(gpu->valuestring, '/') || ss_ends_with(gpu->valuestring, ".json"))) {
        char full[4096];
        const char *slash = strrchr(sc->path, '/');
        snprintf(full, sizeof full, "%.*s%s%s", slash ? (int)(slash - sc->path) : 0, sc->path,
                 slash ? "/" : "", gpu->valuestring);
        carry_path(doc, "gpu", full, same);
    }
    cJSON *tenants = cJSON_GetObjectItemCaseSensitive(doc, "tenants");
    for (int i = 0; i < sc->n_tenants; i++) {
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(tenants, i), "arrival");
        if (sc->tenants[i].arrival.kind == ARR_TRACE && sc->tenants[i].arrival.trace_path)
            carry_path(arr, "path", sc->tenants[i].arrival.trace_path, same);
    }
    cJSON *strategies = cJSON_AddArrayToObject(doc, "strategies");
    for (int v = 0; v < n_variants(c); v++)
        cJSON_AddItemToArray(strategies, named_variant(c, v));
    return doc;
}

/* ---- Kubernetes artefacts ------------------------------------------------------ */

/* The named nodes (sc->k8s.nodes) given to the groups the hook left in use: all of them to
 * the plan's own group when it takes any number, else in order to the groups of fixed sizes,
 * whose sizes must then add up to the names. */
static int assign_nodes(struct dp_ctx *d)
{
    const struct ki_plan *k = &d->sc->k8s;
    int fixed = 0, flex = -1;
    for (int g = 0; g < d->n_groups; g++) {
        if (d->group[g].count > 0)
            fixed += d->group[g].count;
        else if (d->group[g].count < 0)
            flex = g;
    }
    SS_ASSERT(!(fixed && flex >= 0));
    if (k->n_nodes == 0)
        return 0;
    if (flex >= 0) {
        /* Every node holds a GPU at least: more nodes than the plan's GPUs would carry its
         * config to GPUs that were not simulated. A group that only selects (exclusive's)
         * configures nothing, so any number of nodes may serve it. */
        if (d->group[flex].n_labels > 1 && k->n_nodes > d->c->gpus)
            return ss_errf(d->err, d->errlen,
                           "k8s.nodes (or --nodes) names %d nodes for a plan of %d GPU%s (%s): "
                           "every node holds a GPU at least, so the plan's configuration would "
                           "reach GPUs that were not simulated; name at most %d",
                           k->n_nodes, d->c->gpus, d->c->gpus > 1 ? "s" : "", d->c->label,
                           d->c->gpus);
        d->group[flex].first = 0;
        d->group[flex].n = k->n_nodes;
        return 0;
    }
    if (fixed == 0)
        return 0; /* nothing to configure: the names select nothing */
    if (k->n_nodes != fixed) {
        char what[400] = "";
        size_t n = 0;
        for (int g = 0; g < d->n_groups && n < sizeof what; g++)
            if (d->group[g].count > 0)
                n += (size_t)snprintf(what + n, sizeof what - n, "%s%d for %s", n ? ", " : "",
                                      d->group[g].count, d->group[g].what);
        return ss_errf(d->err, d->errlen,
                       "k8s.nodes (or --nodes) names %d node%s; the plan (%s) needs %d: %s",
                       k->n_nodes, k->n_nodes > 1 ? "s" : "", d->c->label, fixed, what);
    }
    int next = 0;
    for (int g = 0; g < d->n_groups; g++)
        if (d->group[g].count > 0) {
            d->group[g].first = next;
            d->group[g].n = d->group[g].count;
            next += d->group[g].count;
        }
    return 0;
}

/* A Node object carrying group g's labels: named (a patch of that node) or, when the plan names
 * no nodes, without a name (the labels to put on each of the group's nodes). */
static int write_node(struct dp_ctx *d, int g, const char *node, const char *file)
{
    const struct dp_group *gr = &d->group[g];
    char what[300];
    snprintf(what, sizeof what, "Node labels for %s%s%s", node ? "node " : "",
             node ? node : gr->what, node ? "" : " (one patch for each)");
    struct dp_file f;
    if (dp_yaml_open(d, &f, file, what))
        return -1;
    yw_doc_begin(&f.w);
    yw_map_begin(&f.w);
    yw_kv_str(&f.w, "apiVersion", "v1");
    yw_kv_str(&f.w, "kind", "Node");
    yw_str(&f.w, "metadata");
    yw_map_begin(&f.w);
    if (node)
        yw_kv_str(&f.w, "name", node);
    yw_str(&f.w, "labels");
    yw_map_begin(&f.w);
    for (int k = 0; k < gr->n_labels; k++)
        yw_kv_str(&f.w, gr->key[k], gr->value[k]);
    yw_map_end(&f.w);
    yw_map_end(&f.w);
    yw_map_end(&f.w);
    yw_doc_end(&f.w);
    return dp_yaml_commit(d, &f);
}

/* The unnamed labels file of group g: node-labels.yaml for the plan's own, node-labels-<tenant>
 * for a tenant's, node-labels-<g> for another. */
static void group_file(const struct dp_ctx *d, int g, char *file, size_t n)
{
    char tn[48] = "";
    if (d->group[g].tenant >= 0) {
        dp_tenant_name(d->sc, d->group[g].tenant, tn, sizeof tn);
        snprintf(file, n, "node-labels-%s.yaml", tn);
    } else if (g > 0) {
        snprintf(file, n, "node-labels-%d.yaml", g);
    } else {
        snprintf(file, n, "node-labels.yaml");
    }
}

static int write_nodes(struct dp_ctx *d)
{
    const struct ki_plan *k = &d->sc->k8s;
    for (int g = 0; g < d->n_groups; g++) {
        const struct dp_group *gr = &d->group[g];
        char file[DP_NAME_MAX];
        if (gr->count == 0)
            continue;
        for (int i = 0; i < gr->n; i++) {
            snprintf(file, sizeof file, "node-%s.yaml", k->nodes[gr->first + i]);
            if (write_node(d, g, k->nodes[gr->first + i], file))
                return -1;
        }
        if (gr->n)
            continue;
        group_file(d, g, file, sizeof file);
        if (write_node(d, g, NULL, file))
            return -1;
    }
    return 0;
}

/* Whether tenant i's pods select nodes, and whether by its own label too. */
static int selects(const struct dp_ctx *d, int i, int *own)
{
    int any = 0;
    *own = 0;
    for (int g = 0; g < d->n_groups; g++)
        if (d->group[g].count != 0 && (d->group[g].tenant < 0 || d->group[g].tenant == i)) {
            any = 1;
            *own |= d->group[g].tenant == i;
        }
    return any;
}

/* The fraction of what its process sees that LLM tenant i's engine takes: the scenario's
 * gpu_memory_utilization of the memory the simulation gave it. */
static double memory_util(const struct dp_ctx *d, int i)
{
    double u = d->sc->tenants[i].llm->gpu_memory_utilization;
    if (d->engine_gb[i] > 0 && d->visible_gb[i] > 0)
        u *= d->engine_gb[i] / d->visible_gb[i];
    return u;
}

/*
 * Tenant i's patch of its workload (dp_workload): a strategic-merge patch that names the
 * object (apiVersion, kind, name, namespace: the API server refuses it on any other) and the
 * container, and sets the replicas the plan runs, the node selector of the plan's nodes, the
 * container's resources.limits and, for an LLM tenant, the engine's flags as its args.
 */
static int write_pod_patch(struct dp_ctx *d, int i, char *file, size_t n)
{
    const struct tenant_cfg *t = &d->sc->tenants[i];
    char name[48];
    struct ki_workload w;
    dp_tenant_name(d->sc, i, name, sizeof name);
    dp_workload(d->sc, i, &w);
    snprintf(file, n, "pod-%s.yaml", name);
    struct dp_file f;
    char what[200];
    snprintf(what, sizeof what, "Tenant %s's %s: replicas, nodes, resource limits%s", t->name,
             ki_kind_names[w.kind], t->llm ? ", engine flags" : "");
    if (dp_yaml_open(d, &f, file, what))
        return -1;
    yw_doc_begin(&f.w);
    yw_map_begin(&f.w);
    yw_kv_str(&f.w, "apiVersion", "apps/v1");
    yw_kv_str(&f.w, "kind", ki_kind_names[w.kind]);
    /* The object's own annotations say which tenant and plan set it: the names as libyaml
     * scalars, which no name can break out of. */
    yw_str(&f.w, "metadata");
    yw_map_begin(&f.w);
    yw_kv_str(&f.w, "name", w.name);
    if (w.ns[0])
        yw_kv_str(&f.w, "namespace", w.ns);
    dp_annotations(d, &f.w, i);
    yw_map_end(&f.w);
    yw_str(&f.w, "spec");
    yw_map_begin(&f.w);
    yw_kv_int(&f.w, "replicas", d->replicas[i]);
    yw_str(&f.w, "template");
    yw_map_begin(&f.w);
    yw_str(&f.w, "spec");
    yw_map_begin(&f.w);
    int own;
    if (selects(d, i, &own)) {
        char tn[48];
        dp_tenant_name(d->sc, i, tn, sizeof tn);
        yw_str(&f.w, "nodeSelector");
        yw_map_begin(&f.w);
        yw_kv_str(&f.w, DP_PLAN_LABEL, d->plan_name);
        if (own)
            yw_kv_str(&f.w, DP_TENANT_LABEL, tn);
        yw_map_end(&f.w);
    }
    yw_str(&f.w, "containers");
    yw_seq_begin(&f.w, 0);
    yw_map_begin(&f.w);
    yw_kv_str(&f.w, "name", w.container);
    if (t->llm) {
        struct ea_args a;
        ea_vllm(t->llm, memory_util(d, i), &a);
        yw_str(&f.w, "args");
        yw_seq_begin(&f.w, 0);
        for (int k = 0; k < a.n; k++)
            yw_str(&f.w, a.arg[k]);
        yw_seq_end(&f.w);
    }
    yw_str(&f.w, "resources");
    yw_map_begin(&f.w);
    yw_str(&f.w, "limits");
    yw_map_begin(&f.w);
    for (int k = 0; k < d->n_limit[i]; k++)
        yw_kv_int(&f.w, d->limit[i][k].resource, d->limit[i][k].quantity);
    yw_map_end(&f.w);
    yw_map_end(&f.w);
    yw_map_end(&f.w);
    yw_seq_end(&f.w);
    yw_map_end(&f.w);
    yw_map_end(&f.w);
    yw_map_end(&f.w);
    yw_map_end(&f.w);
    yw_doc_end(&f.w);
    return dp_yaml_commit(d, &f);
}

/* A growing Markdown text: the README is built of pieces whose lengths the names decide. */
struct md {
    char *b;
    size_t n, cap;
};

static void md(struct md *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void md(struct md *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (m->n + (size_t)need + 1 > m->cap) {
        m->cap = 2 * (m->n + (size_t)need + 1);
        m->b = ss_xrealloc(m->b, m->cap);
    }
    va_start(ap, fmt);
    vsnprintf(m->b + m->n, (size_t)need + 1, fmt, ap);
    va_end(ap);
    m->n += (size_t)need;
}

/* The README's section on the nodes: which labels go on which, and how to take them off. */
static void readme_nodes(const struct dp_ctx *d, struct md *m)
{
    const struct ki_plan *k = &d->sc->k8s;
    int used = 0;
    for (int g = 0; g < d->n_groups; g++)
        used += d->group[g].count != 0;
    md(m, "## Nodes\n\n");
    if (!used) {
        md(m, "This plan configures no node: its pods run on any node with free GPUs%s.\n\n",
           k->n_nodes ? " (the nodes named in the scenario select nothing here)" : "");
        return;
    }
    md(m,
       "The plan configures only the nodes below, through labels on them: no other node's "
       "configuration changes, and the pods select these nodes by `%s=%s`. %s\n\n",
       DP_PLAN_LABEL, d->plan_name,
       k->n_nodes ? "The nodes are the ones the scenario names (`k8s.nodes` or `--nodes`)."
                  : "The scenario names no nodes (`k8s.nodes` or `plan --nodes a,b`): choose "
                    "them, and put the labels on exactly those.");
    for (int g = 0; g < d->n_groups; g++) {
        const struct dp_group *gr = &d->group[g];
        if (gr->count == 0)
            continue;
        char labels[800] = "", unlabel[800] = "";
        size_t a = 0, b = 0;
        for (int l = 0; l < gr->n_labels; l++) {
            a += (size_t)snprintf(labels + a, a < sizeof labels ? sizeof labels - a : 0, " %s=%s",
                                  gr->key[l], gr->value[l]);
            b += (size_t)snprintf(unlabel + b, b < sizeof unlabel ? sizeof unlabel - b : 0, " %s-",
                                  gr->key[l]);
        }
        if (gr->n) {
            md(m, "- %s:", gr->what);
            for (int i = 0; i < gr->n; i++)
                md(m, " `%s`", k->nodes[gr->first + i]);
            md(m, "\n\n  ```\n");
            for (int i = 0; i < gr->n; i++)
                md(m, "  kubectl patch node %s --patch-file node-%s.yaml\n",
                   k->nodes[gr->first + i], k->nodes[gr->first + i]);
            md(m,
               "  ```\n\n  (the same as `kubectl label node NODE --overwrite%s`). To undo: "
               "`kubectl label node NODE%s`.\n",
               labels, unlabel);
        } else {
            char count[48], file[DP_NAME_MAX];
            if (gr->count > 0)
                snprintf(count, sizeof count, "%d node%s", gr->count, gr->count > 1 ? "s" : "");
            else
                snprintf(count, sizeof count, "as many nodes as hold them");
            group_file(d, g, file, sizeof file);
            md(m,
               "- %s, %s: `kubectl label node NODE --overwrite%s` on each (or `kubectl patch "
               "node NODE --patch-file %s`). To undo: `kubectl label node NODE%s`.\n",
               gr->what, count, labels, file, unlabel);
        }
    }
    md(m,
       "\nThese nodes should hold the plan's %d GPU%s and no more: on more GPUs the scheduler "
       "could place the pods in ways that were not simulated.\n\n",
       d->c->gpus, d->c->gpus > 1 ? "s" : "");
}

/* The README's section on the tenants' workloads: which object each patch changes, how to check
 * it first, what the replicas and the engine flags mean. */
static void readme_workloads(const struct dp_ctx *d, struct md *m)
{
    const struct scenario *sc = d->sc;
    md(m, "## The tenants' workloads\n\n"
          "Each `pod-<tenant>.yaml` is a strategic-merge patch of the tenant's workload, naming "
          "its kind, name, namespace and container. A container name the workload does not have "
          "would not fail: the patch would add a second container, without an image. Check the "
          "name first (the command must print it), keep a copy to roll back to, then patch:\n\n");
    for (int i = 0; i < sc->n_tenants; i++) {
        if (!d->n_limit[i])
            continue;
        const struct tenant_cfg *t = &sc->tenants[i];
        struct ki_workload w;
        char name[48], ns[80] = "", kind[16];
        dp_workload(sc, i, &w);
        dp_tenant_name(sc, i, name, sizeof name);
        if (w.ns[0])
            snprintf(ns, sizeof ns, " -n %s", w.ns);
        snprintf(kind, sizeof kind, "%s", w.kind == KI_STATEFULSET ? "statefulset" : "deployment");
        md(m, "### %s\n\n", t->name);
        if (t->k8s.set && t->k8s.name[0] && t->k8s.container[0])
            md(m, "%s `%s`, container `%s`%s%s%s (from the scenario's `k8s` object).\n\n",
               ki_kind_names[w.kind], w.name, w.container, w.ns[0] ? ", namespace `" : "", w.ns,
               w.ns[0] ? "`" : "");
        else
            md(m,
               "**Assumed**: %s `%s`, container `%s`, in %s%s%s — %s. Set `tenants[%d].k8s` "
               "(`namespace`, `kind`, `name`, `container`) to name the real ones.\n\n",
               ki_kind_names[w.kind], w.name, w.container, w.ns[0] ? "namespace `" : "",
               w.ns[0] ? w.ns : "kubectl's current namespace", w.ns[0] ? "`" : "",
               "the tenant's name where the scenario does not say", i);
        md(m,
           "```\nkubectl%s get %s %s -o jsonpath='{.spec.template.spec.containers[*].name}'\n"
           "kubectl%s get %s %s -o yaml > %s.before.yaml\n"
           "kubectl%s patch %s %s --patch-file pod-%s.yaml\n```\n\n",
           ns, kind, w.name, ns, kind, w.name, name, ns, kind, w.name, name);
        md(m, "Replicas: %d.", d->replicas[i]);
        if (d->replicas[i] > 1)
            md(m,
               " %s A Kubernetes Service spreads connections over the pods (at random with "
               "kube-proxy's iptables mode, in turn with IPVS) whatever each pod holds: that is "
               "%d queues, not what was simulated; put a load balancer that sends each request "
               "to the pod with the fewest outstanding requests in front of them, or have the "
               "pods pull from one queue.",
               d->route[i], d->replicas[i]);
        md(m, "\n\n");
        if (t->llm) {
            struct ea_args a;
            ea_vllm(t->llm, memory_util(d, i), &a);
            md(m, "Engine: the container's `args` are vLLM's flags for what was simulated:");
            for (int k = 0; k < a.n; k++)
                md(m, " `%s`", a.arg[k]);
            md(m,
               ". A strategic-merge patch replaces a container's whole `args` list: add the "
               "container's own arguments (the model, the port) in front of these in the file "
               "before applying it.%s%s",
               a.note[0] ? " " : "", a.note);
            if (d->engine_gb[i] > 0 && d->visible_gb[i] > 0 && d->engine_gb[i] < d->visible_gb[i])
                md(m,
                   " The engine was simulated with %.2f GB of the %.2f GB its process sees, "
                   "so `--gpu-memory-utilization` is %.2f × %.2f / %.2f.",
                   d->engine_gb[i], d->visible_gb[i], t->llm->gpu_memory_utilization,
                   d->engine_gb[i], d->visible_gb[i]);
            long blocks;
            char why[SS_ERRLEN];
            if (d->engine_gb[i] > 0 &&
                !lsv_kv_blocks(t->llm, d->engine_gb[i], "its memory", &blocks, why, sizeof why))
                md(m,
                   " The simulated KV cache is %ld blocks of %d tokens (%ld tokens): vLLM logs "
                   "its own at start (\"GPU KV cache size: … tokens\"), from its measured "
                   "activations rather than the simulator's reserve of %.2f GB; a much smaller "
                   "one serves fewer sequences than were simulated.",
                   blocks, t->llm->block_size, blocks * t->llm->block_size,
                   t->llm->activation_reserve_gb);
            md(m, "\n\n");
        }
    }
}

/* The folder's README.md: what the plan is, every file, how to apply and roll back them. */
static int write_readme(struct dp_ctx *d)
{
    const struct scenario *sc = d->sc;
    const struct plan_cand *c = d->c;
    struct md m = {0};
    md(&m, "# Kubernetes artefacts: %s\n\n", sc->name);
    md(&m, "Written by `sharesim plan` for scenario `%s` on %s GPUs: **%s** on %d GPU%s", sc->name,
       sc->gpu.name, c->label, c->gpus, c->gpus > 1 ? "s" : "");
    if (isfinite(c->cost_per_hour))
        md(&m, ", $%.2f/hour", c->cost_per_hour);
    char ratio[48];
    vd_fmt_ratio(c->worst_ratio, ratio, sizeof ratio);
    if (d->closest)
        md(&m,
           ".\n\n**This is the closest candidate, not a recommendation: no configuration "
           "within the plan's limits met every SLA** (here %s; worst %s). Every file says so "
           "in its first lines.\n\n",
           c->reason, ratio);
    else
        md(&m, ", which the simulation confirms meets every tenant's SLA (tightest: %s, %s).\n\n",
           c->worst_tenant[0] ? c->worst_tenant : "-", ratio);
    if (c->variants > 1)
        md(&m,
           "The configuration does not fix which pods share a GPU, so all %d ways the "
           "scheduler may place them (up to swapping identical GPUs) were simulated; the "
           "p99 below is each tenant's worst over them.\n\n",
           c->variants);
    md(&m, "| tenant | workload | replicas | requests (resources.limits) | simulated p99 | p99 SLA "
           "|\n|---|---|---|---|---|---|\n");
    for (int i = 0; i < sc->n_tenants; i++) {
        struct ki_workload w;
        dp_workload(sc, i, &w);
        md(&m, "| %s | %s `%s%s%s`, container `%s` | %d | ", sc->tenants[i].name,
           ki_kind_names[w.kind], w.ns, w.ns[0] ? "/" : "", w.name, w.container, d->replicas[i]);
        for (int k = 0; k < d->n_limit[i]; k++)
            md(&m, "%s`%s: %ld`", k ? ", " : "", d->limit[i][k].resource, d->limit[i][k].quantity);
        if (c->p99_s && isfinite(c->p99_s[i]))
            md(&m, " | %.1f ms", c->p99_s[i] * 1e3);
        else
            md(&m, " | -");
        if (sc->tenants[i].sla_p99_s > 0)
            md(&m, " | %.0f ms |\n", sc->tenants[i].sla_p99_s * 1e3);
        else
            md(&m, " | none |\n");
    }
    md(&m, "\n## Files\n\n");
    for (int k = 0; k < d->n_files; k++)
        md(&m, "- `%s` — %s\n", d->files[k], d->what[k]);
    md(&m, "- `README.md` — this file\n\nApply them in the order below, not with `kubectl apply "
           "-f` on the folder: the node files and the pod files are patches of existing "
           "objects.\n\n");
    readme_nodes(d, &m);
    md(&m, "## Applying the sharing configuration\n\n%s", d->readme ? d->readme : "");
    readme_workloads(d, &m);
    md(&m,
       "## Rollback\n\n"
       "In reverse order. Each workload: `kubectl rollout undo` (its pod template: limits, "
       "node selector, args) and `kubectl scale --replicas=N` with the count its "
       "`<tenant>.before.yaml` holds, e.g. `kubectl rollout undo deployment NAME && kubectl "
       "scale deployment NAME --replicas=N`. Then the sharing configuration, as its \"Undoing "
       "it\" says; then the node labels (the `kubectl label node NODE key-` commands "
       "above).\n\n"
       "ConfigMaps go to namespace `%s` (`sharesim plan --namespace`), the GPU Operator's.\n",
       d->ns);
    int rc = dp_text(d, "README.md", "how to apply the files", m.b);
    free(m.b);
    return rc;
}

int (*plan_k8s_fault)(const char *tmp_dir);

/* What the next plan does to this folder, in the README's section on applying the files. */
static void readme_folder_rule(struct dp_ctx *d, const char *dir)
{
    const char *base = strrchr(dir, '/');
    base = base && base[1] ? base + 1 : dir;
    dp_readme(d,
              "This folder was written as a whole: the next `sharesim plan --k8s` into it replaces "
              "every file, and keeps this plan as `%s.previous` beside it (an older `.previous` "
              "is removed); `kubectl apply -f` on it applies only this plan. To roll back, apply "
              "`%s.previous` the same way.\n\n",
              base, base);
}

int plan_write_k8s(const char *dir, const char *ns, const struct scenario *sc,
                   const struct plan_result *r, struct dp_ctx *d, char *err, size_t errlen)
{
    int idx = r->best >= 0 ? r->best : r->closest;
    memset(d, 0, sizeof *d);
    if (idx < 0)
        return ss_errf(err, errlen, "no candidate was simulated: no Kubernetes artefacts to write");
    const struct plan_cand *b = &r->c[idx];
    const struct policy_ops *ops = policy_find(b->kind);
    if (!ops || !ops->hooks || !ops->hooks->deploy)
        return ss_errf(err, errlen, "strategy kind \"%s\" has no deployment artefacts", b->kind);
    /* Into a temporary beside DIR, swapped in whole (tools/plandir.h). */
    struct pd_dir pd;
    if (pd_begin(&pd, dir, err, errlen))
        return -1;
    dp_init(d, pd.tmp, ns, sc, b, r->best < 0, err, errlen);
    /* The deploy hook and the engine flags read a tenant's degree from its serving object:
     * while the files are written it holds the one the plan chose (the scenario's "auto" is
     * 1 until then), and gets it back after. */
    int *was = ss_xcalloc((size_t)(sc->n_tenants ? sc->n_tenants : 1), sizeof *was);
    for (int i = 0; i < sc->n_tenants; i++)
        if (b->tp && b->tp[i] && sc->tenants[i].llm) {
            was[i] = sc->tenants[i].llm->tensor_parallel;
            sc->tenants[i].llm->tensor_parallel = b->tp[i];
        }
    /* the nodes are checked after the hook has written its configs: into the temporary, so a
     * refusal leaves DIR as it was */
    int rc = ops->hooks->deploy(d) || assign_nodes(d) || write_nodes(d) ? -1 : 0;
    for (int i = 0; rc == 0 && i < sc->n_tenants; i++) {
        char file[DP_NAME_MAX];
        if (d->n_limit[i] && write_pod_patch(d, i, file, sizeof file))
            rc = -1;
    }
    if (rc == 0)
        readme_folder_rule(d, dir);
    if (rc == 0)
        rc = write_readme(d);
    for (int i = 0; i < sc->n_tenants; i++)
        if (b->tp && b->tp[i] && sc->tenants[i].llm)
            sc->tenants[i].llm->tensor_parallel = was[i];
    free(was);
    if (rc == 0 && plan_k8s_fault && plan_k8s_fault(pd.tmp))
        rc = ss_errf(err, errlen, "%s: a write failed (injected by a test)", dir);
    d->dir = dir; /* the temporary's name is gone either way */
    if (rc) {
        pd_abort(&pd);
        return -1;
    }
    return pd_commit(&pd, err, errlen);
}
