/*
 * plan_exclusive — what the tools ask of the exclusive strategy (struct policy_hooks,
 * docs/policy-hooks.md): it is the baseline; planner candidates sized per tenant by
 * Erlang C, and the note on what to request in Kubernetes.
 */
#include "core/analytic.h"
#include "core/deploy.h"
#include "core/plancand.h"
#include "core/policy.h"
#include "core/tenant.h"
#include "base/util.h"
#include "llm/serving.h"
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

/* Per tenant, the Erlang C minimum of whole GPUs for its p99 SLA; then one and two
 * GPUs more, to the tenant with the highest load per GPU. */
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
        int g = 0;
        /* Tensor-parallel tenants first, the largest groups first: every group then starts at
         * a multiple of its size, inside one node and one NVLink domain (policy_exclusive). */
        int *first = ss_xcalloc((size_t)T, sizeof *first);
        for (int k = TP_MAX; k >= 1; k /= 2)
            for (int i = 0; i < T; i++)
                if (ex_tp(&sc->tenants[i]) == k) {
                    first[i] = g;
                    g += need[i];
                }
        for (int i = 0; i < T; i++) {
            cJSON *arr = cJSON_AddArrayToObject(as, sc->tenants[i].name);
            for (int j = 0; j < need[i]; j++)
                cJSON_AddItemToArray(arr, cJSON_CreateNumber(first[i] + j));
            size_t l = strlen(label);
            snprintf(label + l, sizeof label - l, "%s%sx%d", " ", sc->tenants[i].name, need[i]);
        }
        free(first);
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
