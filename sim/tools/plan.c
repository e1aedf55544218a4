/*
 * plan — candidate generation, analytic pruning, simulation and ranking (the
 * method is described in plan.h). A generator per strategy kind; a kind is
 * searched only when its policy exists and the scenario's "plan.kinds" allows it.
 */
#include "tools/plan.h"
#include "tools/analytic.h"
#include "base/jsonv.h"
#include "mig/mig.h"
#include "core/policy.h"
#include "core/rate.h"
#include "report/report.h"
#include "core/tenant.h"
#include "base/util.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_MAX_KINDS 8

struct pctx {
    const struct scenario *sc;
    int max_gpus;
    int max_sims;
    char kinds[PLAN_MAX_KINDS][16];
    int n_kinds;
    struct plan_cand *c;
    int n, cap;
};

/* ---- tenants seen by the analytic pre-filter ----------------------------- */

static double load_of(const struct tenant_cfg *t)
{
    double l = ten_mean_rate(t) * ten_mean_work(t);
    return isfinite(l) ? l : 0;
}

/* p99 of one request's work alone on a whole GPU: no configuration beats it. */
static double work_p99_s(const struct tenant_cfg *t)
{
    const struct work_cfg *w = &t->work;
    switch (w->kind) {
    case WORK_EXPONENTIAL:
        return gsl_cdf_exponential_Pinv(0.99, w->mean_s);
    case WORK_DETERMINISTIC:
        return w->mean_s;
    case WORK_LOGNORMAL: {
        double s2 = log1p(w->cv * w->cv);
        return gsl_cdf_lognormal_Pinv(0.99, log(w->mean_s) - 0.5 * s2, sqrt(s2));
    }
    default:
        return 0;
    }
}

/* The SLA is below what the work alone takes at `speed`: prune with the reason. */
static int sla_below_work(const struct scenario *sc, double speed, char *why, size_t n)
{
    for (int i = 0; i < sc->n_tenants; i++) {
        const struct tenant_cfg *t = &sc->tenants[i];
        double p = work_p99_s(t) / speed;
        if (t->sla_p99_s > 0 && p > t->sla_p99_s) {
            snprintf(why, n, "%s: the work alone has p99 %.3g ms > SLA %.3g ms", t->name, p * 1e3,
                     t->sla_p99_s * 1e3);
            return 1;
        }
    }
    return 0;
}

/* ---- candidates ------------------------------------------------------------ */

static struct plan_cand *add_cand(struct pctx *x, const char *kind, int gpus, cJSON *strategy,
                                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static struct plan_cand *add_cand(struct pctx *x, const char *kind, int gpus, cJSON *strategy,
                                  const char *fmt, ...)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 32;
        x->c = ss_xrealloc(x->c, (size_t)x->cap * sizeof *x->c);
    }
    struct plan_cand *c = &x->c[x->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->kind, sizeof c->kind, "%s", kind);
    c->gpus = gpus;
    c->strategy = strategy;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->label, sizeof c->label, fmt, ap);
    va_end(ap);
    const struct scenario *sc = x->sc;
    c->cost_per_hour = sc->gpu_hour_usd >= 0 ? gpus * sc->gpu_hour_usd : NAN;
    c->cost_per_mreq = NAN;
    c->worst_margin = NAN;
    return c;
}

static int kind_wanted(const struct pctx *x, const char *kind)
{
    if (!policy_find(kind))
        return 0;
    if (x->n_kinds == 0)
        return 1;
    for (int k = 0; k < x->n_kinds; k++)
        if (strcmp(x->kinds[k], kind) == 0)
            return 1;
    return 0;
}

static cJSON *strategy_obj(const char *name, const char *kind)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "kind", kind);
    return o;
}

/* Exclusive: per tenant, the Erlang C minimum of whole GPUs for its p99 SLA. */
static void gen_exclusive(struct pctx *x)
{
    const struct scenario *sc = x->sc;
    int T = sc->n_tenants, total = 0, worst = 0;
    char why[256] = "";
    if (sla_below_work(sc, 1.0, why, sizeof why)) {
        struct plan_cand *c = add_cand(x, "exclusive", T, NULL, "exclusive");
        snprintf(c->pruned, sizeof c->pruned, "%s", why);
        return;
    }
    int *need = ss_xcalloc((size_t)T, sizeof *need);
    for (int i = 0; i < T; i++) {
        const struct tenant_cfg *t = &sc->tenants[i];
        double lam = ten_mean_rate(t), w = ten_mean_work(t);
        need[i] = 1;
        if (t->memory_gb > sc->gpu.memory_gb) {
            struct plan_cand *c = add_cand(x, "exclusive", T, NULL, "exclusive");
            snprintf(c->pruned, sizeof c->pruned, "%s needs %g GB, a GPU has %g GB", t->name,
                     t->memory_gb, sc->gpu.memory_gb);
            free(need);
            return;
        }
        if (t->sla_p99_s > 0 && isfinite(lam) && isfinite(w) && t->arrival.kind == ARR_POISSON &&
            t->work.kind == WORK_EXPONENTIAL) {
            /* Erlang C is exact only for Poisson arrivals and exponential work; for other
             * tenants the search starts at the smallest stable count and the simulation
             * decides (pruning with a wrong model would discard good candidates). */
            int c = an_mmc_min_servers_for_p99(lam, 1.0 / w, t->sla_p99_s, x->max_gpus);
            if (c < 0) {
                struct plan_cand *pc = add_cand(x, "exclusive", x->max_gpus, NULL, "exclusive");
                snprintf(pc->pruned, sizeof pc->pruned,
                         "%s: no count of whole GPUs up to %d meets p99 %.3g ms (M/M/c)", t->name,
                         x->max_gpus, t->sla_p99_s * 1e3);
                free(need);
                return;
            }
            need[i] = c;
        } else if (isfinite(lam) && isfinite(w)) {
            need[i] = (int)floor(lam * w) + 1; /* stable at least */
        }
        total += need[i];
        if (need[i] > need[worst])
            worst = i;
    }
    const struct tenant_cfg *tw = &sc->tenants[worst];
    if (need[worst] > 1 && total - 1 >= T && tw->arrival.kind == ARR_POISSON &&
        tw->work.kind == WORK_EXPONENTIAL && tw->sla_p99_s > 0) {
        const struct tenant_cfg *t = &sc->tenants[worst];
        struct plan_cand *pc = add_cand(x, "exclusive", total - 1, NULL, "exclusive, %s on %d GPUs",
                                        t->name, need[worst] - 1);
        snprintf(pc->pruned, sizeof pc->pruned,
                 "Erlang C: %s on %d GPUs has p99 %.3g ms > SLA %.3g ms", t->name, need[worst] - 1,
                 1e3 * an_mmc_sojourn_quantile_s(ten_mean_rate(t), 1.0 / ten_mean_work(t),
                                                 need[worst] - 1, 0.99),
                 t->sla_p99_s * 1e3);
    }
    for (int extra = 0; extra <= 2 && total + extra <= x->max_gpus; extra++) {
        if (extra > 0) {
            /* One more GPU to the tenant with the highest load per GPU. */
            int k = 0;
            for (int i = 1; i < T; i++)
                if (load_of(&sc->tenants[i]) / need[i] > load_of(&sc->tenants[k]) / need[k])
                    k = i;
            need[k]++;
        }
        cJSON *st = strategy_obj("exclusive", "exclusive");
        cJSON *as = cJSON_AddObjectToObject(st, "assign");
        char label[160] = "exclusive";
        int g = 0;
        for (int i = 0; i < T; i++) {
            cJSON *arr = cJSON_AddArrayToObject(as, sc->tenants[i].name);
            for (int j = 0; j < need[i]; j++)
                cJSON_AddItemToArray(arr, cJSON_CreateNumber(g++));
            size_t l = strlen(label);
            snprintf(label + l, sizeof label - l, "%s%sx%d", " ", sc->tenants[i].name, need[i]);
        }
        add_cand(x, "exclusive", g, st, "%s", label);
    }
    free(need);
}

/* Time-slicing or MPS: r tenants per GPU, balanced by load (longest first). MPS
 * has no switch cost, so its capacity bound is the whole GPU; its client limit
 * caps r. */
static void gen_shared(struct pctx *x, const char *kind)
{
    const struct scenario *sc = x->sc;
    int T = sc->n_tenants;
    int is_mps = strcmp(kind, "mps") == 0;
    if (T < 2)
        return; /* one tenant time-sliced is exactly exclusive */
    double gamma = is_mps ? 1.0 : an_ts_capacity_fraction(sc->gpu.timeslice_s, sc->gpu.switch_s);
    int rmax = is_mps ? sc->gpu.mps_max_clients : 16;
    int *order = ss_xcalloc((size_t)T, sizeof *order);
    for (int i = 0; i < T; i++)
        order[i] = i;
    for (int i = 1; i < T; i++) /* insertion sort by load, descending; stable */
        for (int j = i;
             j > 0 && load_of(&sc->tenants[order[j]]) > load_of(&sc->tenants[order[j - 1]]); j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    /* One candidate per GPU count: r = ⌈T/G⌉ tenants per GPU (a larger cap with the
     * same G would give the same balanced assignment). */
    for (int G = 1; G < T && G <= x->max_gpus; G++) {
        int r = (T + G - 1) / G;
        if (r > rmax || (G > 1 && (T + G - 2) / (G - 1) == r))
            continue; /* over the client limit, or the same r as G − 1 GPUs */
        double *load = ss_xcalloc((size_t)G, sizeof *load),
               *mem = ss_xcalloc((size_t)G, sizeof *mem);
        int *cnt = ss_xcalloc((size_t)G, sizeof *cnt), *gpu = ss_xcalloc((size_t)T, sizeof *gpu);
        char why[256] = "";
        for (int k = 0; k < T && !why[0]; k++) {
            const struct tenant_cfg *t = &sc->tenants[order[k]];
            int best = -1;
            for (int g = 0; g < G; g++)
                if (cnt[g] < r && mem[g] + t->memory_gb <= sc->gpu.memory_gb &&
                    (best < 0 || load[g] < load[best]))
                    best = g;
            if (best < 0) {
                snprintf(why, sizeof why, "%s does not fit: memory is not isolated and adds up",
                         t->name);
                break;
            }
            gpu[order[k]] = best;
            cnt[best]++;
            load[best] += load_of(t);
            mem[best] += t->memory_gb;
        }
        for (int g = 0; g < G && !why[0]; g++)
            if (load[g] >= gamma)
                snprintf(why, sizeof why, "GPU %d load %.2f >= capacity %.3f = q/(q+s)", g, load[g],
                         gamma);
        if (!why[0])
            sla_below_work(sc, 1.0, why, sizeof why);
        char name[32];
        snprintf(name, sizeof name, "%s-x%d", kind, r);
        cJSON *st = strategy_obj(name, kind);
        if (!is_mps)
            cJSON_AddNumberToObject(st, "replicas", r);
        cJSON *as = cJSON_AddObjectToObject(st, "assign");
        for (int i = 0; i < T; i++)
            cJSON_AddNumberToObject(as, sc->tenants[i].name, gpu[i]);
        struct plan_cand *c = add_cand(x, kind, G, st, "%s %d per GPU", kind, r);
        snprintf(c->pruned, sizeof c->pruned, "%s", why);
        free(load);
        free(mem);
        free(cnt);
        free(gpu);
    }
    free(order);
}

/* vGPU: one VM per tenant with an equal frame-buffer quota, equal_share; the
 * layout is applied to every GPU of the pool (vgpu policy), so with G GPUs each
 * tenant has G VMs and G × T licences are billed. */
static void gen_vgpu(struct pctx *x)
{
    const struct scenario *sc = x->sc;
    int T = sc->n_tenants;
    if (T < 2)
        return;
    double quota = floor(sc->gpu.memory_gb / T);
    for (int G = 1; G <= 3 && G <= x->max_gpus; G++) {
        cJSON *st = strategy_obj("vgpu", "vgpu");
        cJSON_AddStringToObject(st, "scheduler", "equal_share");
        cJSON *vms = cJSON_AddArrayToObject(st, "vgpus");
        char why[256] = "";
        double load = 0;
        for (int i = 0; i < T; i++) {
            const struct tenant_cfg *t = &sc->tenants[i];
            if (t->memory_gb > quota && !why[0])
                snprintf(why, sizeof why, "%s needs %g GB, a 1/%d frame-buffer quota is %g GB",
                         t->name, t->memory_gb, T, quota);
            load += load_of(t);
            cJSON *vm = cJSON_CreateObject();
            cJSON_AddNumberToObject(vm, "fb_gb", quota);
            cJSON *tn = cJSON_AddArrayToObject(vm, "tenants");
            cJSON_AddItemToArray(tn, cJSON_CreateString(t->name));
            cJSON_AddItemToArray(vms, vm);
        }
        double slice = T <= 8 ? sc->gpu.vgpu_slice_le8_s : sc->gpu.vgpu_slice_gt8_s;
        double gamma = an_ts_capacity_fraction(slice, sc->gpu.vgpu_switch_s);
        if (!why[0] && load >= G * gamma)
            snprintf(why, sizeof why, "load %.2f >= capacity %d × %.3f", load, G, gamma);
        if (!why[0])
            sla_below_work(sc, 1.0, why, sizeof why);
        struct plan_cand *c = add_cand(x, "vgpu", G, st, "vgpu %d VMs per GPU, equal_share", T);
        snprintf(c->pruned, sizeof c->pruned, "%s", why);
        if (isfinite(c->cost_per_hour))
            c->cost_per_hour += G * T * sc->vgpu_license_usd_per_vgpu_year / (365.0 * 24.0);
    }
}

/* The smallest MIG profile (fewest compute slices, then memory) that holds the
 * tenant's memory and keeps it stable with its p99 SLA reachable; -1 if none. */
static int mig_profile_for(const struct scenario *sc, const struct tenant_cfg *t, int bump)
{
    const struct gpu_profile *g = &sc->gpu;
    int order[CAL_MAX_MIG], n = 0;
    for (int k = 0; k < g->n_mig; k++)
        if (!mig_profile_is_me(&g->mig[k]))
            order[n++] = k;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            const struct mig_profile *a = &g->mig[order[j]], *b = &g->mig[order[j - 1]];
            if (a->compute_slices > b->compute_slices ||
                (a->compute_slices == b->compute_slices && a->memory_slices >= b->memory_slices))
                break;
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    for (int k = 0; k < n; k++) {
        const struct mig_profile *m = &g->mig[order[k]];
        if (t->memory_gb > m->memory_gb)
            continue;
        double sp = rate_speed(g, t, mig_compute_share(g, order[k]), mig_memory_share(g, order[k]));
        double lam = ten_mean_rate(t), w = ten_mean_work(t);
        if (isfinite(lam) && isfinite(w) && lam * w / sp >= 0.95)
            continue; /* unstable, or too close to saturation to meet any p99 */
        if (t->sla_p99_s > 0 && work_p99_s(t) / sp > t->sla_p99_s)
            continue;
        if (t->sla_p99_s > 0 && isfinite(lam) && isfinite(w) && t->arrival.kind == ARR_POISSON &&
            t->work.kind == WORK_EXPONENTIAL &&
            an_mmc_sojourn_quantile_s(lam, sp / w, 1, 0.99) > t->sla_p99_s)
            continue; /* M/M/1 at the instance's speed misses the SLA */
        if (bump-- > 0)
            continue;
        return order[k];
    }
    return -1;
}

/* MIG: one instance per tenant, the smallest that works (or one size up), packed
 * onto as few GPUs as possible by sim/mig/mig_pack.c (FGD policy). */
static void gen_mig(struct pctx *x)
{
    const struct scenario *sc = x->sc;
    int T = sc->n_tenants;
    if (sc->gpu.n_mig == 0)
        return;
    for (int bump = 0; bump <= 1; bump++) {
        int *req = ss_xcalloc((size_t)T, sizeof *req);
        char why[256] = "";
        for (int i = 0; i < T && !why[0]; i++) {
            req[i] = mig_profile_for(sc, &sc->tenants[i], bump);
            if (req[i] < 0)
                snprintf(why, sizeof why,
                         "%s: no MIG instance%s holds its memory and meets its "
                         "SLA at the instance's speed",
                         sc->tenants[i].name, bump ? " one size up" : "");
        }
        if (why[0]) {
            struct plan_cand *c = add_cand(x, "mig", T, NULL, "mig, one instance per tenant%s",
                                           bump ? " (one size up)" : "");
            snprintf(c->pruned, sizeof c->pruned, "%s", why);
            free(req);
            if (bump == 0)
                return;
            continue;
        }
        struct mig_pack_opts po = {MIG_PACK_FGD, 0, 0, NULL};
        struct mig_pack pk;
        mig_pack(&sc->gpu, req, T, &po, &pk);
        cJSON *st = strategy_obj("mig", "mig");
        cJSON *lays = cJSON_AddArrayToObject(st, "layouts");
        char label[160];
        int l = snprintf(label, sizeof label, "mig");
        for (int g = 0; g < pk.n_gpus; g++) {
            cJSON *lay = cJSON_CreateArray();
            for (int k = 0; k < pk.gpu[g].n; k++) {
                cJSON *inst = cJSON_CreateObject();
                cJSON_AddStringToObject(inst, "profile", sc->gpu.mig[pk.gpu[g].prof[k]].name);
                cJSON *tn = cJSON_AddArrayToObject(inst, "tenants");
                for (int i = 0; i < T; i++)
                    if (pk.gpu_of[i] == g && pk.slot_of[i] == k)
                        cJSON_AddItemToArray(tn, cJSON_CreateString(sc->tenants[i].name));
                cJSON_AddItemToArray(lay, inst);
                if (l < (int)sizeof label)
                    l += snprintf(label + l, sizeof label - (size_t)l, "%s%s",
                                  k ? "+" : (g ? " | " : " "), sc->gpu.mig[pk.gpu[g].prof[k]].name);
            }
            cJSON_AddItemToArray(lays, lay);
        }
        add_cand(x, "mig", pk.n_gpus, st, "%s", label);
        mig_pack_free(&pk);
        free(req);
    }
}

/* ---- simulation ------------------------------------------------------------ */

/* Simulates one candidate: 0, or -1 with the message when the run failed (eng_run). A
 * candidate the loader rejects is pruned, not an error. */
static int simulate(struct pctx *x, struct plan_cand *c, char *err, size_t errlen)
{
    const struct scenario *sc = x->sc;
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
        c->p99_s[i] = t[TM_LAT_P99];
        if (t[TM_FAILED] > 0 || t[TM_REJECTED] > 0)
            c->feasible = 0;
        double sla = sc->tenants[i].sla_p99_s;
        if (sla <= 0)
            continue;
        double m = isfinite(t[TM_LAT_P99]) ? (sla - t[TM_LAT_P99]) / sla : -INFINITY;
        if (m < c->worst_margin) {
            c->worst_margin = m;
            snprintf(c->worst_tenant, sizeof c->worst_tenant, "%s", sc->tenants[i].name);
        }
        if (!(t[TM_LAT_P99] <= sla))
            c->feasible = 0;
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
    return strcmp(a->label, b->label);
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

/* ---- the articles' rule of thumb (DOMAIN.md "Decision rules") ---------------- */

static void rule_of_thumb(const struct scenario *sc, struct plan_result *r)
{
    int T = sc->n_tenants;
    double min_sla = INFINITY;
    for (int i = 0; i < T; i++)
        if (sc->tenants[i].sla_p99_s > 0 && sc->tenants[i].sla_p99_s < min_sla)
            min_sla = sc->tenants[i].sla_p99_s;
    if (T > 1 && min_sla < 0.050) {
        snprintf(r->rule_kind, sizeof r->rule_kind, "mig");
        snprintf(r->rule_text, sizeof r->rule_text,
                 "p99 SLA < 50 ms with more than one tenant => MIG");
    } else if (T > 5) {
        snprintf(r->rule_kind, sizeof r->rule_kind, "vgpu");
        snprintf(r->rule_text, sizeof r->rule_text, "more than 5 tenants per GPU => vGPU");
    } else if (T <= 3) {
        snprintf(r->rule_kind, sizeof r->rule_kind, "timeslice");
        snprintf(r->rule_text, sizeof r->rule_text, "3 tenants or fewer => time-slicing");
    } else {
        snprintf(r->rule_kind, sizeof r->rule_kind, "mig");
        snprintf(r->rule_text, sizeof r->rule_text, "otherwise => MIG + time-slicing");
    }
}

/* ---- entry ------------------------------------------------------------------- */

static int parse_plan(const struct scenario *sc, struct pctx *x, char *err, size_t errlen)
{
    static const char *const keys[] = {"kinds", "max_gpus", "max_simulations", NULL};
    struct jv j = {sc->path, err, errlen};
    long v;
    /* Default bound: enough whole GPUs for every tenant twice over, at least 8. */
    x->max_gpus = 2 * sc->n_tenants > 8 ? 2 * sc->n_tenants : 8;
    x->max_sims = 40;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(sc->json, "plan");
    if (!p)
        return 0;
    if (jv_object(&j, p, "plan", keys))
        return -1;
    if (jv_int(&j, p, "plan", "max_gpus", 0, 1, 100000, &v) < 0)
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(p, "max_gpus"))
        x->max_gpus = (int)v;
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
    struct pctx x = {.sc = sc};
    memset(out, 0, sizeof *out);
    out->best = out->closest = -1;
    if (parse_plan(sc, &x, err, errlen))
        return -1;
    if (kind_wanted(&x, "exclusive"))
        gen_exclusive(&x);
    if (kind_wanted(&x, "timeslice"))
        gen_shared(&x, "timeslice");
    if (kind_wanted(&x, "mps"))
        gen_shared(&x, "mps");
    if (kind_wanted(&x, "mig"))
        gen_mig(&x);
    if (kind_wanted(&x, "vgpu"))
        gen_vgpu(&x);
    qsort(x.c, (size_t)x.n, sizeof *x.c, by_cost);
    int feasible = 0, rc = 0;
    for (int i = 0; i < x.n && feasible < PLAN_ENOUGH_FEASIBLE; i++) {
        struct plan_cand *c = &x.c[i];
        if (c->pruned[0] || !c->strategy)
            continue;
        if (out->simulations >= x.max_sims)
            break;
        if (progress)
            fprintf(stderr, "\rplan: simulating %d: %-60.60s", out->simulations + 1, c->label);
        rc = simulate(&x, c, err, errlen);
        if (rc)
            break;
        out->simulations++;
        feasible += c->feasible;
    }
    if (progress)
        fprintf(stderr, "\r%*s\r", 80, "");
    out->n = x.n;
    out->c = x.c;
    if (rc) {
        plan_result_free(out);
        return -1;
    }
    qsort(x.c, (size_t)x.n, sizeof *x.c, by_rank);
    if (x.n > 0 && x.c[0].feasible)
        out->best = 0;
    for (int i = 0; out->best < 0 && i < x.n; i++)
        if (x.c[i].simulated &&
            (out->closest < 0 || x.c[i].worst_margin > x.c[out->closest].worst_margin))
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
    fprintf(fp, "rule of thumb (DOMAIN.md): \"%s\" picks %s; ", r->rule_text, r->rule_kind);
    if (r->best < 0)
        fprintf(fp, "the simulation found nothing feasible to compare with.\n");
    else if (strcmp(picked, r->rule_kind) == 0)
        fprintf(fp, "the simulation agrees.\n");
    else if (!policy_find(r->rule_kind))
        fprintf(fp, "that kind is not searched by this build; the simulation picks %s.\n", picked);
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
    cJSON_AddStringToObject(rule, "rule", r->rule_text);
    cJSON_AddStringToObject(rule, "kind", r->rule_kind);
    cJSON_AddBoolToObject(rule, "agrees",
                          r->best >= 0 && strcmp(r->c[r->best].kind, r->rule_kind) == 0);
    cJSON_AddNumberToObject(root, "simulations", r->simulations);
    return root;
}

static int write_text(const char *dir, const char *name, const char *text, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct ss_out o;
    if (ss_out_open(&o, path, err, errlen))
        return -1;
    fputs(text, o.fp);
    return ss_out_commit(&o, err, errlen);
}

/* mig-parted config: one entry per GPU with that GPU's instance counts. */
static int write_mig_parted(const char *dir, const struct scenario *sc, const struct plan_cand *b,
                            char *err, size_t errlen)
{
    char buf[8192];
    int n = snprintf(buf, sizeof buf,
                     "# NVIDIA mig-parted config generated by sharesim plan (scenario %s, %s)\n"
                     "version: v1\nmig-configs:\n  sharesim:\n",
                     sc->name, sc->gpu.name);
    const cJSON *lay;
    int g = 0;
    cJSON_ArrayForEach(lay, cJSON_GetObjectItemCaseSensitive(b->strategy, "layouts"))
    {
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "    - devices: [%d]\n      mig-enabled: true\n      mig-devices:\n", g++);
        for (int k = 0; k < sc->gpu.n_mig && n < (int)sizeof buf; k++) {
            int count = 0;
            const cJSON *inst;
            cJSON_ArrayForEach(inst, lay)
            {
                const cJSON *p = cJSON_GetObjectItemCaseSensitive(inst, "profile");
                count += strcmp(p->valuestring, sc->gpu.mig[k].name) == 0;
            }
            if (count)
                n += snprintf(buf + n, sizeof buf - (size_t)n, "        \"%s\": %d\n",
                              sc->gpu.mig[k].name, count);
        }
        if (n >= (int)sizeof buf)
            return ss_errf(err, errlen, "mig-parted config too long");
    }
    return write_text(dir, "mig-parted-config.yaml", buf, err, errlen);
}

int plan_write_k8s(const char *dir, const struct scenario *sc, const struct plan_result *r,
                   char *err, size_t errlen)
{
    if (r->best < 0)
        return ss_errf(err, errlen, "no recommendation to write Kubernetes artefacts for");
    const struct plan_cand *b = &r->c[r->best];
    char buf[4096];
    if (strcmp(b->kind, "timeslice") == 0) {
        int replicas = cJSON_GetObjectItemCaseSensitive(b->strategy, "replicas")->valueint;
        snprintf(buf, sizeof buf,
                 "# NVIDIA k8s-device-plugin time-slicing config generated by sharesim plan\n"
                 "# scenario: %s — %d GPU(s) %s, %d replicas each\n"
                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sharesim-time-slicing\n"
                 "  namespace: gpu-operator\ndata:\n  any: |-\n    version: v1\n    flags:\n"
                 "      migStrategy: none\n    sharing:\n      timeSlicing:\n        resources:\n"
                 "        - name: nvidia.com/gpu\n          replicas: %d\n",
                 sc->name, b->gpus, sc->gpu.name, replicas, replicas);
        return write_text(dir, "time-slicing-config.yaml", buf, err, errlen);
    }
    if (strcmp(b->kind, "exclusive") == 0) {
        int n = snprintf(buf, sizeof buf,
                         "# sharesim plan: exclusive GPUs, no sharing configuration needed.\n"
                         "# Request whole GPUs per tenant (resources.limits nvidia.com/gpu):\n");
        const cJSON *as = cJSON_GetObjectItemCaseSensitive(b->strategy, "assign"), *it;
        cJSON_ArrayForEach(it, as)
        {
            if (n < (int)sizeof buf)
                n += snprintf(buf + n, sizeof buf - (size_t)n, "#   %s: %d\n", it->string,
                              cJSON_GetArraySize(it));
        }
        return write_text(dir, "exclusive.txt", buf, err, errlen);
    }
    if (strcmp(b->kind, "mps") == 0) {
        int per_gpu = (sc->n_tenants + b->gpus - 1) / b->gpus;
        snprintf(buf, sizeof buf,
                 "# NVIDIA k8s-device-plugin MPS sharing config generated by sharesim plan\n"
                 "# scenario: %s — %d GPU(s) %s, up to %d clients each\n"
                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sharesim-mps\n"
                 "  namespace: gpu-operator\ndata:\n  any: |-\n    version: v1\n    sharing:\n"
                 "      mps:\n        resources:\n        - name: nvidia.com/gpu\n"
                 "          replicas: %d\n",
                 sc->name, b->gpus, sc->gpu.name, per_gpu, per_gpu);
        return write_text(dir, "mps-config.yaml", buf, err, errlen);
    }
    if (strcmp(b->kind, "mig") == 0)
        return write_mig_parted(dir, sc, b, err, errlen);
    int n = snprintf(buf, sizeof buf,
                     "# sharesim plan: vGPU is configured in the hypervisor, not in Kubernetes.\n"
                     "# Create, on each of %d GPU(s), one VM per tenant with these quotas:\n",
                     b->gpus);
    const cJSON *vm;
    cJSON_ArrayForEach(vm, cJSON_GetObjectItemCaseSensitive(b->strategy, "vgpus"))
    {
        const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(vm, "tenants"), 0);
        if (n < (int)sizeof buf)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "#   %s: %g GB frame buffer\n",
                          t ? t->valuestring : "?",
                          cJSON_GetObjectItemCaseSensitive(vm, "fb_gb")->valuedouble);
    }
    return write_text(dir, "vgpu.txt", buf, err, errlen);
}
