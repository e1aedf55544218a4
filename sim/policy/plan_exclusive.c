/*
 * plan_exclusive — what the tools ask of the exclusive strategy (struct policy_hooks,
 * docs/policy-hooks.md): it is the baseline; planner candidates sized per tenant by
 * Erlang C — or, for an LLM tenant with "tensor_parallel": "auto", the layouts of engines ×
 * tensor-parallel degree (docs/plan.md#tensor-parallelism-and-replicas) — and the note on what
 * to request in Kubernetes.
 */
#include "core/analytic.h"
#include "core/deploy.h"
#include "core/plancand.h"
#include "core/policy.h"
#include "core/tenant.h"
#include "base/util.h"
#include "llm/serving.h"
#include "llm/stepmodel.h"
#include "llm/tp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GPUs of one engine of t: its tensor_parallel, 1 for other tenants. */
static int ex_tp(const struct tenant_cfg *t)
{
    return t->llm && t->llm->tensor_parallel > 1 ? t->llm->tensor_parallel : 1;
}

/* Whether the planner chooses t's degree ("tensor_parallel": "auto"). */
static int tp_auto(const struct tenant_cfg *t)
{
    return t->llm && t->llm->tp_auto;
}

/* Whether LLM tenant t can run engines of degree k on this GPU: the model splits k ways, the
 * profile has the link, the step model has the all-reduces, and one GPU's shard of the weights
 * leaves room for a KV block. 0, or -1 with why. */
static int tp_usable(const struct scenario *sc, const struct tenant_cfg *t, int k, int max_gpus,
                     char *why, size_t n)
{
    if (tp_check_model(&t->llm->model, k, why, n) || tp_check_gpu(&sc->gpu, k, why, n))
        return -1;
    if (k > max_gpus)
        return ss_errf(why, n, "TP%d needs %d GPUs, more than plan.max_gpus %d", k, k, max_gpus);
    if (k > 1 && t->llm->etm.kind != STM_ENGINE)
        return ss_errf(why, n,
                       "TP%d needs \"step_model\": \"engine\" (the roofline model has no "
                       "all-reduce)",
                       k);
    /* The reserve and the scheduler defaults as the loader resolves them for degree k. */
    struct lsv_cfg c = *t->llm;
    c.tensor_parallel = k;
    lsv_resolve(&c, sc->gpu.name, sc->gpu.memory_gb);
    char where[128];
    if (k > 1)
        snprintf(where, sizeof where, "each %s's %g GB of a TP%d group", sc->gpu.name,
                 sc->gpu.memory_gb, k);
    else
        snprintf(where, sizeof where, "a whole %s's %g GB", sc->gpu.name, sc->gpu.memory_gb);
    long blocks;
    return lsv_kv_blocks(&c, sc->gpu.memory_gb, where, &blocks, why, n) ? -1 : 0;
}

/* The "assign" of whole GPUs: tenant i gets need[i] GPUs, served in groups of deg[i]. The
 * largest groups first: every group then starts at a multiple of its size, inside one node and
 * one NVLink domain (policy_exclusive). Returns the GPUs used. */
static int excl_assign(const struct scenario *sc, const int *need, const int *deg, cJSON *as)
{
    int T = sc->n_tenants, g = 0;
    int *first = ss_xcalloc((size_t)T, sizeof *first);
    for (int k = TP_MAX; k >= 1; k /= 2)
        for (int i = 0; i < T; i++)
            if (deg[i] == k) {
                first[i] = g;
                g += need[i];
            }
    for (int i = 0; i < T; i++) {
        cJSON *arr = cJSON_AddArrayToObject(as, sc->tenants[i].name);
        for (int j = 0; j < need[i]; j++)
            cJSON_AddItemToArray(arr, cJSON_CreateNumber(first[i] + j));
    }
    free(first);
    return g;
}

/*
 * The layouts of the tenants whose degree the planner chooses: each such tenant runs r engines
 * of k GPUs (k among 1, 2, 4, 8 that tp_usable accepts, r from 1 to PC_TP_MAX_REPLICAS), the
 * other tenants their need[] GPUs. Layouts are offered by total GPUs, fewest first, up to
 * PC_TP_MAX_LAYOUTS: a depth-first search for each total visits only layouts of that total.
 */
struct tp_opt {
    int k, r;
};

struct tp_search {
    struct plan_ctx *x;
    const int *need; /* the tenants whose degree is fixed: their GPUs */
    int n_auto, *auto_i;
    struct tp_opt **opt;
    int *n_opt;
    int *suf_lo, *suf_hi; /* fewest and most GPUs of the auto tenants from a on */
    int *pick;
    int added, more; /* layouts offered; 1 when the cap cut some off */
};

static void tp_emit(struct tp_search *s)
{
    const struct scenario *sc = s->x->sc;
    int T = sc->n_tenants;
    int *need = ss_xcalloc((size_t)T, sizeof *need), *deg = ss_xcalloc((size_t)T, sizeof *deg);
    int *tp = ss_xcalloc((size_t)T, sizeof *tp), *eng = ss_xcalloc((size_t)T, sizeof *eng);
    for (int i = 0; i < T; i++) {
        need[i] = s->need[i];
        deg[i] = ex_tp(&sc->tenants[i]);
        eng[i] = need[i] / deg[i];
    }
    for (int a = 0; a < s->n_auto; a++) {
        const struct tp_opt *o = &s->opt[a][s->pick[a]];
        int i = s->auto_i[a];
        need[i] = o->k * o->r;
        deg[i] = tp[i] = o->k;
        eng[i] = o->r;
    }
    cJSON *st = pc_strategy("exclusive", "exclusive");
    int g = excl_assign(sc, need, deg, cJSON_AddObjectToObject(st, "assign"));
    char label[300] = "exclusive";
    for (int i = 0; i < T; i++) {
        size_t l = strlen(label);
        if (tp[i])
            snprintf(label + l, sizeof label - l, " %s %d×TP%d", sc->tenants[i].name, eng[i],
                     tp[i]);
        else
            snprintf(label + l, sizeof label - l, " %sx%d", sc->tenants[i].name, need[i]);
    }
    struct plan_cand *c = pc_add(s->x, "exclusive", g, st, "%s", label);
    c->tp = tp;
    c->engines = eng;
    free(need);
    free(deg);
    s->added++;
}

static void tp_dfs(struct tp_search *s, int a, int left)
{
    if (a == s->n_auto) {
        if (left == 0) {
            if (s->added < PC_TP_MAX_LAYOUTS)
                tp_emit(s);
            else
                s->more = 1;
        }
        return;
    }
    for (int o = 0; o < s->n_opt[a] && !s->more; o++) {
        int rest = left - s->opt[a][o].k * s->opt[a][o].r;
        if (rest >= s->suf_lo[a + 1] && rest <= s->suf_hi[a + 1]) {
            s->pick[a] = o;
            tp_dfs(s, a + 1, rest);
        }
    }
}

static void tp_layouts(struct plan_ctx *x, const int *need)
{
    const struct scenario *sc = x->sc;
    int T = sc->n_tenants, fixed = 0;
    struct tp_search s = {.x = x, .need = need};
    s.auto_i = ss_xcalloc((size_t)T, sizeof *s.auto_i);
    s.opt = ss_xcalloc((size_t)T, sizeof *s.opt);
    s.n_opt = ss_xcalloc((size_t)T, sizeof *s.n_opt);
    s.suf_lo = ss_xcalloc((size_t)T + 1, sizeof *s.suf_lo);
    s.suf_hi = ss_xcalloc((size_t)T + 1, sizeof *s.suf_hi);
    s.pick = ss_xcalloc((size_t)T, sizeof *s.pick);
    for (int i = 0; i < T; i++) {
        const struct tenant_cfg *t = &sc->tenants[i];
        if (!tp_auto(t)) {
            fixed += need[i];
            continue;
        }
        int a = s.n_auto++;
        s.auto_i[a] = i;
        s.opt[a] = ss_xcalloc((size_t)(4 * PC_TP_MAX_REPLICAS), sizeof **s.opt);
        for (int k = 1; k <= TP_MAX; k *= 2) {
            char why[SS_ERRLEN];
            if (tp_usable(sc, t, k, x->max_gpus, why, sizeof why)) {
                /* Listed with its reason, so that the table says why the degree is absent. */
                struct plan_cand *c =
                    pc_add(x, "exclusive", k, NULL, "exclusive %s TP%d", t->name, k);
                snprintf(c->pruned, sizeof c->pruned, "%.40s: %.200s", t->name, why);
                continue;
            }
            for (int r = 1; r <= PC_TP_MAX_REPLICAS && k * r <= x->max_gpus; r++)
                s.opt[a][s.n_opt[a]++] = (struct tp_opt){k, r};
        }
    }
    int lo = fixed, hi = fixed, ok = 1;
    for (int a = s.n_auto - 1; a >= 0; a--) {
        int mn = 0, mx = 0;
        for (int o = 0; o < s.n_opt[a]; o++) {
            int g = s.opt[a][o].k * s.opt[a][o].r;
            mn = o == 0 || g < mn ? g : mn;
            mx = g > mx ? g : mx;
        }
        ok &= s.n_opt[a] > 0;
        s.suf_lo[a] = s.suf_lo[a + 1] + mn;
        s.suf_hi[a] = s.suf_hi[a + 1] + mx;
    }
    lo += s.suf_lo[0];
    hi += s.suf_hi[0];
    for (int g = lo; ok && g <= hi && g <= x->max_gpus && !s.more; g++)
        tp_dfs(&s, 0, g - fixed);
    if (s.more) {
        struct plan_cand *c = pc_add(x, "exclusive", x->max_gpus, NULL, "exclusive, more layouts");
        snprintf(c->pruned, sizeof c->pruned,
                 "only the %d layouts of fewest GPUs (degree × replicas of the tenants with "
                 "\"tensor_parallel\": \"auto\") are offered",
                 PC_TP_MAX_LAYOUTS);
    }
    for (int a = 0; a < s.n_auto; a++)
        free(s.opt[a]);
    free(s.auto_i);
    free(s.opt);
    free(s.n_opt);
    free(s.suf_lo);
    free(s.suf_hi);
    free(s.pick);
}

/* Per tenant, the Erlang C minimum of whole GPUs for its p99 SLA; then one and two
 * GPUs more, to the tenant with the highest load per GPU. Tenants whose degree the planner
 * chooses get the layouts of tp_layouts instead. */
static void excl_plan(struct plan_ctx *x)
{
    const struct scenario *sc = x->sc;
    int T = sc->n_tenants, total = 0, worst = 0;
    char why[256] = "";
    if (pc_sla_below_work(sc, 1.0, why, sizeof why)) {
        struct plan_cand *c = pc_add(x, "exclusive", T, NULL, "exclusive");
        snprintf(c->pruned, sizeof c->pruned, "%s", why);
        return;
    }
    int *need = ss_xcalloc((size_t)T, sizeof *need);
    for (int i = 0; i < T; i++) {
        const struct tenant_cfg *t = &sc->tenants[i];
        double lam = ten_mean_rate(t), w = ten_mean_work(t);
        need[i] = 1;
        if (t->memory_gb > sc->gpu.memory_gb) {
            struct plan_cand *c = pc_add(x, "exclusive", T, NULL, "exclusive");
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
                struct plan_cand *pc = pc_add(x, "exclusive", x->max_gpus, NULL, "exclusive");
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
        /* A tensor-parallel engine takes its group's GPUs: a multiple of its size. */
        int k = ex_tp(t);
        need[i] = (need[i] + k - 1) / k * k;
        total += need[i];
        if (need[i] > need[worst])
            worst = i;
    }
    for (int i = 0; i < T; i++)
        if (tp_auto(&sc->tenants[i])) {
            tp_layouts(x, need);
            free(need);
            return;
        }
    const struct tenant_cfg *tw = &sc->tenants[worst];
    if (need[worst] > 1 && total - 1 >= T && tw->arrival.kind == ARR_POISSON &&
        tw->work.kind == WORK_EXPONENTIAL && tw->sla_p99_s > 0) {
        const struct tenant_cfg *t = &sc->tenants[worst];
        struct plan_cand *pc = pc_add(x, "exclusive", total - 1, NULL, "exclusive, %s on %d GPUs",
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
                if (pc_load(&sc->tenants[i]) / need[i] > pc_load(&sc->tenants[k]) / need[k])
                    k = i;
            need[k] += ex_tp(&sc->tenants[k]);
        }
        cJSON *st = pc_strategy("exclusive", "exclusive");
        cJSON *as = cJSON_AddObjectToObject(st, "assign");
        char label[160] = "exclusive";
        int *deg = ss_xcalloc((size_t)T, sizeof *deg);
        for (int i = 0; i < T; i++)
            deg[i] = ex_tp(&sc->tenants[i]);
        int g = excl_assign(sc, need, deg, as);
        free(deg);
        for (int i = 0; i < T; i++) {
            size_t l = strlen(label);
            snprintf(label + l, sizeof label - l, "%s%sx%d", " ", sc->tenants[i].name, need[i]);
        }
        pc_add(x, "exclusive", g, st, "%s", label);
    }
    free(need);
}

/* Whole GPUs need no sharing configuration: each tenant runs one pod of one GPU for each GPU
 * it was given. The plan configures no node; when the scenario names nodes, the pods select
 * them (the plan's own label), and otherwise they run on any node with a free GPU. */
static int excl_deploy(struct dp_ctx *d)
{
    d->group[0].count = d->sc->k8s.n_nodes ? -1 : 0;
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(d->c->strategy, "assign"), *it;
    cJSON_ArrayForEach(it, as)
    {
        int i = scn_tenant_index(d->sc, it->string), n = cJSON_GetArraySize(it);
        if (i < 0)
            continue;
        int k = ex_tp(&d->sc->tenants[i]); /* a tensor-parallel pod takes its group */
        dp_limit(d, i, "nvidia.com/gpu", k);
        n /= k;
        if (n > 1)
            dp_replicas(d, i, n,
                        d->sc->tenants[i].llm
                            ? "The simulation sent each request to the engine holding the "
                              "fewest requests (one engine a GPU)."
                            : "The simulation served the tenant's requests from one queue that "
                              "feeds whichever of its GPUs is free (M/G/c).");
        if (d->sc->tenants[i].llm)
            dp_engine_memory(d, i, d->sc->gpu.memory_gb, d->sc->gpu.memory_gb);
    }
    dp_readme(d, "Whole GPUs: the device plugin's default configuration (no sharing) is what "
                 "was simulated; nothing to configure besides the workloads. A tenant given "
                 "several GPUs runs that many pods of one GPU each.\n\n"
                 "### Requirements\n\n"
                 "- The NVIDIA device plugin (or the GPU Operator) in its default "
                 "configuration: whole GPUs as `nvidia.com/gpu`, any version.\n\n");
    return 0;
}

const struct policy_hooks policy_hooks_exclusive = {
    .is_baseline = 1, /* whole GPUs of one's own: what every sharing strategy is measured by */
    .plan = excl_plan,
    .deploy = excl_deploy,
};
