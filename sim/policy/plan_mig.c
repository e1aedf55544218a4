/*
 * plan_mig — what the tools ask of the MIG strategy (struct policy_hooks,
 * docs/policy-hooks.md): compare's label, planner candidates of one instance per
 * tenant, packed, the mig-parted config that lays them out, and two rules of thumb.
 */
#include "core/analytic.h"
#include "core/deploy.h"
#include "core/plancand.h"
#include "core/policy.h"
#include "core/rate.h"
#include "core/tenant.h"
#include "calib/kcurve.h"
#include "llm/roofline.h"
#include "llm/serving.h"
#include "mig/mig.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Why profile k cannot serve LLM tenant t, in why; 0 when it can (or t is not an LLM tenant).
 * Either its weights and activation reserve leave no KV cache in the instance's memory (the
 * loader's own check, serving.h), or even the fastest decode step there — one sequence, one
 * token, the weights read once at the instance's memory-slice share of the bandwidth (the
 * roofline of docs/llm.md#step-time, plus the step overhead) — is slower than the tenant's TPOT
 * target: no batch decodes faster than that.
 */
static int llm_unfit(const struct gpu_profile *g, const struct tenant_cfg *t, int k, char *why,
                     size_t n)
{
    const struct lsv_cfg *l = t->llm;
    if (!l)
        return 0;
    const struct mig_profile *m = &g->mig[k];
    char where[96];
    long blocks;
    snprintf(where, sizeof where, "the %s instance's %g GB", m->name, m->memory_gb);
    if (lsv_kv_blocks(l, m->memory_gb, where, &blocks, why, n))
        return 1;
    if (l->sla_tpot_p99_s <= 0)
        return 0;
    double bw = mig_memory_share(g, k), eff; /* eff: not in the message (tables have none) */
    const struct kc_gpu *kc = NULL;
    char err[SS_ERRLEN];
    if (kc_get(g->path, &kc, err, sizeof err)) /* the load checked it: a bound without tables */
        kc = NULL;
    double step =
        etm_decode_floor_s(&l->etm, &l->model, l->dtype, l->kv_dtype, &g->roof, g->hbm_bw_gbps, kc,
                           l->step_overhead_s, mig_compute_share(g, k), bw, &eff);
    if (step <= l->sla_tpot_p99_s)
        return 0;
    snprintf(why, n,
             "a decode step in the %s instance reads %.2f GB of %s weights over %d/%d of the "
             "bandwidth (%.0f GB/s): TPOT at least %.1f ms > SLA %g ms",
             m->name, lm_weight_bytes(&l->model, l->dtype) * 1e-9, roof_dtype_names[l->dtype],
             m->memory_slices, g->mig_memory_slices, g->hbm_bw_gbps * bw, step * 1e3,
             l->sla_tpot_p99_s * 1e3);
    return 1;
}

/* The smallest MIG profile (fewest compute slices, then memory) that holds the
 * tenant's memory (an LLM tenant's weights, reserve and a cache; llm_unfit) and keeps it
 * stable with its p99 SLA reachable, skipping the first `bump` that do; -1 if none. */
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
        char why[256];
        if (t->memory_gb > m->memory_gb || llm_unfit(g, t, order[k], why, sizeof why))
            continue;
        double sp = rate_speed(g, t, mig_compute_share(g, order[k]), mig_memory_share(g, order[k]));
        double lam = ten_mean_rate(t), w = ten_mean_work(t);
        if (isfinite(lam) && isfinite(w) && lam * w / sp >= 0.95)
            continue; /* unstable, or too close to saturation to meet any p99 */
        if (t->sla_p99_s > 0 && pc_work_p99_s(t) / sp > t->sla_p99_s)
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

/* Whether a MIG candidate with these layouts is already listed. */
static int layout_known(const struct plan_ctx *x, const cJSON *layouts)
{
    for (int i = 0; i < x->n; i++)
        if (x->c[i].strategy && strcmp(x->c[i].kind, "mig") == 0 &&
            cJSON_Compare(cJSON_GetObjectItemCaseSensitive(x->c[i].strategy, "layouts"), layouts,
                          1))
            return 1;
    return 0;
}

/* Packs one instance per tenant (req[i]: its profile) onto as few GPUs as possible
 * (sim/mig/mig_pack.c, FGD policy) and appends the candidate, with the compute left free;
 * `why` (a suffix for the label, may be "") says what this size tried. Returns it, or NULL
 * when a candidate with the same layout exists. */
static struct plan_cand *add_packed(struct plan_ctx *x, const int *req, const char *why)
{
    const struct scenario *sc = x->sc;
    int T = sc->n_tenants;
    struct mig_pack_opts po = {MIG_PACK_FGD, 0, 0, NULL};
    struct mig_pack pk;
    mig_pack(&sc->gpu, req, T, &po, &pk);
    cJSON *st = pc_strategy("mig", "mig");
    cJSON *lays = cJSON_AddArrayToObject(st, "layouts");
    char label[160];
    int l = snprintf(label, sizeof label, "mig"), used = 0;
    for (int g = 0; g < pk.n_gpus; g++) {
        cJSON *lay = cJSON_CreateArray();
        for (int k = 0; k < pk.gpu[g].n; k++) {
            const struct mig_profile *m = &sc->gpu.mig[pk.gpu[g].prof[k]];
            cJSON *inst = cJSON_CreateObject();
            cJSON_AddStringToObject(inst, "profile", m->name);
            cJSON *tn = cJSON_AddArrayToObject(inst, "tenants");
            for (int i = 0; i < T; i++)
                if (pk.gpu_of[i] == g && pk.slot_of[i] == k)
                    cJSON_AddItemToArray(tn, cJSON_CreateString(sc->tenants[i].name));
            cJSON_AddItemToArray(lay, inst);
            used += m->compute_slices;
            if (l < (int)sizeof label)
                l += snprintf(label + l, sizeof label - (size_t)l, "%s%s",
                              k ? "+" : (g ? " | " : " "), m->name);
        }
        cJSON_AddItemToArray(lays, lay);
    }
    int n_gpus = pk.n_gpus;
    mig_pack_free(&pk);
    if (layout_known(x, lays)) {
        cJSON_Delete(st);
        return NULL;
    }
    struct plan_cand *c = pc_add(x, "mig", n_gpus, st, "%s%s", label, why);
    int slices = sc->gpu.mig_compute_slices > 0 ? sc->gpu.mig_compute_slices : 7;
    c->free_gpus = n_gpus - (double)used / slices;
    return c;
}

/* One instance per tenant, the smallest that works (or one size up), packed. */
static void mig_plan(struct plan_ctx *x)
{
    const struct scenario *sc = x->sc;
    int T = sc->n_tenants;
    if (sc->gpu.n_mig == 0)
        return;
    /* An LLM tenant's instances that cannot serve it, each named with its reason (the numbers),
     * rather than left for the loader to refuse. */
    for (int i = 0; i < T; i++)
        for (int k = 0; k < sc->gpu.n_mig; k++) {
            char why[256];
            if (mig_profile_is_me(&sc->gpu.mig[k]) ||
                !llm_unfit(&sc->gpu, &sc->tenants[i], k, why, sizeof why))
                continue;
            struct plan_cand *c = pc_add(x, "mig", 1, NULL, "mig %s for %s", sc->gpu.mig[k].name,
                                         sc->tenants[i].name);
            snprintf(c->pruned, sizeof c->pruned, "%s", why);
        }
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
            struct plan_cand *c = pc_add(x, "mig", T, NULL, "mig, one instance per tenant%s",
                                         bump ? " (one size up)" : "");
            snprintf(c->pruned, sizeof c->pruned, "%s", why);
            free(req);
            if (bump == 0)
                return;
            continue;
        }
        add_packed(x, req, "");
        free(req);
    }
}

/* The next profile after `cur` with more compute slices that holds the tenant's memory (the
 * order of mig_profile_for: compute, then memory), or -1. */
static int next_larger(const struct gpu_profile *g, int cur, const struct tenant_cfg *t)
{
    int best = -1;
    for (int k = 0; k < g->n_mig; k++) {
        const struct mig_profile *m = &g->mig[k];
        char why[256];
        if (mig_profile_is_me(m) || m->compute_slices <= g->mig[cur].compute_slices ||
            t->memory_gb > m->memory_gb || llm_unfit(g, t, k, why, sizeof why))
            continue;
        if (best < 0 || m->compute_slices < g->mig[best].compute_slices ||
            (m->compute_slices == g->mig[best].compute_slices &&
             m->memory_slices < g->mig[best].memory_slices))
            best = k;
    }
    return best;
}

/* A MIG candidate missed: the same layout with the next larger instance for every tenant
 * that missed one of its targets (the others keep theirs), packed again. Nothing when none can
 * grow. */
static void mig_refine(struct plan_ctx *x, int idx)
{
    const struct scenario *sc = x->sc;
    int T = sc->n_tenants;
    int *req = ss_xcalloc((size_t)T, sizeof *req);
    for (int i = 0; i < T; i++)
        req[i] = -1;
    const cJSON *lay, *inst, *t;
    cJSON_ArrayForEach(lay, cJSON_GetObjectItemCaseSensitive(x->c[idx].strategy, "layouts"))
    {
        cJSON_ArrayForEach(inst, lay)
        {
            const struct mig_profile *m = cal_mig_find(
                &sc->gpu, cJSON_GetObjectItemCaseSensitive(inst, "profile")->valuestring);
            cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(inst, "tenants"))
            {
                int i = scn_tenant_index(sc, t->valuestring);
                if (i >= 0 && m)
                    req[i] = (int)(m - sc->gpu.mig);
            }
        }
    }
    char why[160] = " (larger for";
    size_t n = strlen(why);
    int grown = 0;
    for (int i = 0; i < T; i++) {
        /* Every tenant that missed one of its targets (an LLM tenant's TTFT or TPOT too). */
        if (req[i] < 0 || !x->c[idx].missed || !x->c[idx].missed[i])
            continue;
        int up = next_larger(&sc->gpu, req[i], &sc->tenants[i]);
        if (up < 0)
            continue;
        req[i] = up;
        grown++;
        n += (size_t)snprintf(why + n, n < sizeof why ? sizeof why - n : 0, " %s",
                              sc->tenants[i].name);
    }
    for (int i = 0; i < T; i++)
        grown = req[i] < 0 ? 0 : grown; /* a tenant in no instance: not one of ours */
    if (grown && n + 2 < sizeof why) {
        snprintf(why + n, sizeof why - n, ")");
        add_packed(x, req, why);
    }
    free(req);
}

/*
 * The mig-parted config (MIGPARTED, docs/domain.md) the mig-manager applies: one config for
 * each of the plan's nodes (n_nodes of them, `per` GPUs each, devices 0..per-1 of that node,
 * the plan's layouts in order), named `name` or, with several nodes, `name-1`, `name-2`, …;
 * and `all-disabled`, so that a node can be returned to whole GPUs (a custom config replaces
 * the operator's, which has it).
 */
static char *mig_parted_text(const struct scenario *sc, const struct plan_cand *b, const char *name,
                             int n_nodes, int per, char *err, size_t errlen)
{
    struct yw w;
    yw_open_string(&w);
    yw_doc_begin(&w);
    yw_map_begin(&w);
    yw_kv_str(&w, "version", "v1");
    yw_str(&w, "mig-configs");
    yw_map_begin(&w);
    yw_str(&w, "all-disabled");
    yw_seq_begin(&w, 0);
    yw_map_begin(&w);
    yw_kv_str(&w, "devices", "all");
    yw_kv_bool(&w, "mig-enabled", 0);
    yw_map_end(&w);
    yw_seq_end(&w);
    const cJSON *lays = cJSON_GetObjectItemCaseSensitive(b->strategy, "layouts");
    for (int node = 0; node < n_nodes; node++) {
        char cname[80];
        if (n_nodes > 1)
            snprintf(cname, sizeof cname, "%s-%d", name, node + 1);
        else
            snprintf(cname, sizeof cname, "%s", name);
        yw_str(&w, cname);
        yw_seq_begin(&w, 0);
        for (int g = 0; g < per; g++) {
            const cJSON *lay = cJSON_GetArrayItem(lays, node * per + g);
            yw_map_begin(&w);
            yw_str(&w, "devices");
            yw_seq_begin(&w, 1);
            yw_int(&w, g);
            yw_seq_end(&w);
            yw_kv_bool(&w, "mig-enabled", 1);
            yw_str(&w, "mig-devices");
            yw_map_begin(&w);
            for (int k = 0; k < sc->gpu.n_mig; k++) {
                int count = 0;
                const cJSON *inst;
                cJSON_ArrayForEach(inst, lay)
                {
                    const cJSON *p = cJSON_GetObjectItemCaseSensitive(inst, "profile");
                    count += strcmp(p->valuestring, sc->gpu.mig[k].name) == 0;
                }
                if (count)
                    yw_kv_int(&w, sc->gpu.mig[k].name, count);
            }
            yw_map_end(&w);
            yw_map_end(&w);
        }
        yw_seq_end(&w);
    }
    yw_map_end(&w);
    yw_map_end(&w);
    yw_doc_end(&w);
    char *text = NULL;
    return yw_close(&w, &text, err, errlen) ? NULL : text;
}

/* Helm values: the mixed strategy (each profile its own resource) and the custom config; only
 * these, so that `helm upgrade --reuse-values -f` changes nothing else. */
static int write_mig_values(struct dp_ctx *d, const char *cm_name)
{
    struct dp_file f;
    if (dp_yaml_open(d, &f, "gpu-operator-values.yaml",
                     "NVIDIA GPU Operator Helm values (only what the plan sets)"))
        return -1;
    yw_doc_begin(&f.w);
    yw_map_begin(&f.w);
    yw_str(&f.w, "mig");
    yw_map_begin(&f.w);
    yw_kv_str(&f.w, "strategy", "mixed");
    yw_map_end(&f.w);
    yw_str(&f.w, "migManager");
    yw_map_begin(&f.w);
    yw_str(&f.w, "config");
    yw_map_begin(&f.w);
    yw_kv_str(&f.w, "name", cm_name);
    yw_map_end(&f.w);
    yw_map_end(&f.w);
    yw_map_end(&f.w);
    yw_doc_end(&f.w);
    return dp_yaml_commit(d, &f);
}

/* Each tenant requests its instance's profile as the mixed strategy advertises it; a tenant in
 * several instances runs a pod in each (one queue fed all of them in the simulation). */
static void mig_limits(struct dp_ctx *d)
{
    const struct scenario *sc = d->sc;
    int T = sc->n_tenants;
    int *count = ss_xcalloc((size_t)T, sizeof *count);
    const cJSON *lay, *inst, *t;
    cJSON_ArrayForEach(lay, cJSON_GetObjectItemCaseSensitive(d->c->strategy, "layouts"))
    {
        cJSON_ArrayForEach(inst, lay)
        {
            const char *prof = cJSON_GetObjectItemCaseSensitive(inst, "profile")->valuestring;
            const struct mig_profile *m = cal_mig_find(&sc->gpu, prof);
            cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(inst, "tenants"))
            {
                int i = scn_tenant_index(sc, t->valuestring);
                if (i < 0 || count[i]++ > 0)
                    continue;
                char res[64];
                snprintf(res, sizeof res, "nvidia.com/mig-%s", prof);
                dp_limit(d, i, res, 1);
                if (sc->tenants[i].llm && m)
                    dp_engine_memory(d, i, m->memory_gb, m->memory_gb);
            }
        }
    }
    for (int i = 0; i < T; i++)
        if (count[i] > 1)
            dp_replicas(d, i, count[i],
                        sc->tenants[i].llm
                            ? "The simulation ran an engine in each instance behind the tenant's "
                              "router (serving.router: docs/llm.md#replicas-behind-a-router)."
                            : "The simulation served the tenant's requests from one queue that "
                              "feeds whichever of its instances is free.");
    free(count);
}

/*
 * The GPU Operator's mig-manager (GPUOP_MIG): a ConfigMap holding the mig-parted configs, the
 * label that names one on each of the plan's nodes, the device plugin's mixed strategy, the
 * pods' MIG resources. Without named nodes, or with one, the plan's G GPUs are one node's
 * devices 0..G-1; with n named nodes, each holds G/n of them and gets a config of its own.
 */
static int mig_deploy(struct dp_ctx *d)
{
    static const char cm_name[] = "sharesim-mig-config";
    const char *name = d->plan_name;
    int G = d->c->gpus, n = d->sc->k8s.n_nodes > 1 ? d->sc->k8s.n_nodes : 1;
    if (n > G || G % n != 0)
        return ss_errf(d->err, d->errlen,
                       "k8s.nodes (or --nodes) names %d nodes for a MIG plan of %d GPU%s: each "
                       "node must hold an equal share of the plan's GPUs (name 1%s node%s)",
                       n, G, G > 1 ? "s" : "", G > 1 ? " or a divisor of that many" : "",
                       G > 1 ? "s" : "");
    int per = G / n;
    char *cfg = mig_parted_text(d->sc, d->c, name, n, per, d->err, d->errlen);
    if (!cfg)
        return -1;
    struct dp_file f;
    int rc = dp_yaml_open(d, &f, "mig-manager-config.yaml",
                          "GPU Operator mig-manager config (mig-parted)");
    if (!rc) {
        dp_configmap_begin(d, &f.w, cm_name);
        yw_str(&f.w, "config.yaml");
        yw_literal(&f.w, cfg);
        dp_configmap_end(&f.w);
        rc = dp_yaml_commit(d, &f);
    }
    free(cfg);
    if (rc || write_mig_values(d, cm_name))
        return -1;
    if (n == 1) {
        d->group[0].count = 1;
        dp_group_label(d, 0, "nvidia.com/mig.config", name);
    } else {
        d->group[0].count = 0;
        for (int k = 0; k < n; k++) {
            char what[160], cname[80];
            snprintf(what, sizeof what, "MIG node %d of %d (the plan's GPUs %d to %d)", k + 1, n,
                     k * per, (k + 1) * per - 1);
            snprintf(cname, sizeof cname, "%s-%d", name, k + 1);
            dp_group_label(d, dp_group_add(d, what, 1, -1), "nvidia.com/mig.config", cname);
        }
    }
    mig_limits(d);
    char where[96];
    if (n > 1)
        snprintf(where, sizeof where, "%d GPUs, %d on each of %d nodes,", G, per, n);
    else
        snprintf(where, sizeof where, "%d GPU%s, on one node,", G, G > 1 ? "s" : "");
    dp_readme(d,
              "The plan's %s are partitioned by the GPU Operator's mig-manager; the device "
              "plugin's `mixed` strategy advertises each "
              "instance as `nvidia.com/mig-<profile>`, which the tenants' pods request. The "
              "ConfigMap `%s` in namespace `%s` holds the mig-parted config%s (`config.yaml`), "
              "and a node is partitioned only when its label `nvidia.com/mig.config` names "
              "one.\n\n"
              "### Requirements\n\n"
              "- NVIDIA GPU Operator v1.7.0 or later: MIG Manager, which applies the mig-parted "
              "config a node's `nvidia.com/mig.config` label names, starts there (its release "
              "notes); the config format is mig-parted's `version: v1`.\n"
              "- GPUs that support MIG (the profile's MIG table), free of workloads while "
              "mig-manager partitions them.\n\n"
              "### Before you change anything\n\n"
              "Two settings of this plan are the cluster's, not the nodes': check both first.\n\n"
              "- `mig.strategy`: `kubectl get clusterpolicies.nvidia.com/cluster-policy -o "
              "jsonpath='{.spec.mig.strategy}'`. If it is already `mixed`, nothing changes. If it "
              "is `single`, switching to `mixed` renames the resource of every MIG-enabled GPU on "
              "other nodes (`nvidia.com/gpu` becomes `nvidia.com/mig-<profile>`): their pods must "
              "ask for the new names first. Nodes without MIG are not affected.\n"
              "- `migManager.config.name`: a custom ConfigMap replaces the operator's config for "
              "every node. List the configs the other nodes use (`kubectl get nodes -L "
              "nvidia.com/mig.config`): each must be in `mig-manager-config.yaml` too — copy them "
              "from the ConfigMap in use (`kubectl -n %s get configmap NAME -o yaml`; the "
              "operator's own is `default-mig-parted-config`) into its `config.yaml` before step "
              "2.\n\n"
              "### Steps\n\n"
              "1. `kubectl apply -n %s -f mig-manager-config.yaml`\n"
              "2. Point the operator at it, keeping every other value: `helm upgrade gpu-operator "
              "nvidia/gpu-operator -n %s --reuse-values --version INSTALLED -f "
              "gpu-operator-values.yaml` (INSTALLED: the chart version `helm list -n %s` shows), "
              "or patch the ClusterPolicy: `kubectl patch clusterpolicies.nvidia.com/"
              "cluster-policy --type merge -p '{\"spec\": {\"mig\": {\"strategy\": \"mixed\"}, "
              "\"migManager\": {\"config\": {\"name\": \"%s\"}}}}'`.\n"
              "3. For each of the plan's nodes: `kubectl drain NODE --ignore-daemonsets` (the "
              "GPUs must be free), label it (the Nodes section), wait until `kubectl get node "
              "NODE -L nvidia.com/mig.config.state` says `success`, then `kubectl uncordon "
              "NODE`.\n\n"
              "### Undoing it\n\n"
              "Drain each node, label it `nvidia.com/mig.config=all-disabled --overwrite` (whole "
              "GPUs again), wait for `success`, uncordon it and remove the plan's labels; then "
              "set `migManager.config.name` and `mig.strategy` back to what the check above found "
              "(`helm upgrade … --reuse-values --set …`, or the ClusterPolicy patch).\n\n",
              where, cm_name, d->ns, n > 1 ? "s" : "", d->ns, d->ns, d->ns, d->ns, cm_name);
    return 0;
}

/* Isolation for tight SLAs; and MIG (with time-slicing inside) when no other rule applies. */
static int mig_rule(const struct scenario *sc, char *rule, size_t n)
{
    if (sc->n_tenants > 1 && pc_min_sla_s(sc) < 0.050) {
        snprintf(rule, n, "p99 SLA < 50 ms with more than one tenant => MIG");
        return PC_RULE_TIGHT_SLA;
    }
    snprintf(rule, n, "otherwise => MIG + time-slicing");
    return PC_RULE_OTHERWISE;
}

/* A MIG instance is a smaller, slower GPU: the request runs at the instance's speed. */
static const char *mig_label(const void *cfg)
{
    (void)cfg;
    return "partition speed";
}

const struct policy_hooks policy_hooks_mig = {
    .label = mig_label,
    .plan = mig_plan,
    .deploy = mig_deploy,
    .refine = mig_refine,
    .rule_of_thumb = mig_rule,
};
