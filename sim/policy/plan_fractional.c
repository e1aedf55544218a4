/*
 * plan_fractional — what the tools ask of the fractional strategy (struct policy_hooks,
 * docs/policy-hooks.md): candidates that size every tenant's compute percentage, the pods'
 * resource requests that deploy them under HAMi, and compare's label.
 *
 * Sizes: a tenant's cores are its load over a target utilisation of its share, rounded up to
 * a whole percent, and at least what lets its work's own p99 finish within a fraction of its
 * SLA at that share; four targets, tightest first, give up to four sizes, each packed first-fit
 * decreasing onto as few GPUs as hold the cores (100 a GPU) and the memory limits. HAMi's
 * scheduler, not the plan, decides which pods share a GPU, so each size is simulated in every
 * placement it may choose (pods whose cores and memory fit, up to swapping GPUs): with the
 * lone-pod rule a pod alone runs unthrottled, so the placement changes the answer.
 */
#include "core/deploy.h"
#include "core/plancand.h"
#include "core/policy.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FR_MAX_PLACEMENTS 64
#define FR_MAX_TENANTS 12

/* Whether the placement fits HAMi's accounting: cores ≤ 100 and memory within each GPU. */
static int fits(const struct scenario *sc, const int *cores, int G, const int *gpu_of)
{
    for (int g = 0; g < G; g++) {
        int c = 0;
        double m = 0;
        for (int i = 0; i < sc->n_tenants; i++)
            if (gpu_of[i] == g) {
                c += cores[i];
                m += sc->tenants[i].memory_gb;
            }
        if (c > 100 || m > sc->gpu.memory_gb)
            return 0;
    }
    return 1;
}

/* First-fit decreasing by cores: the fewest GPUs found, or -1 when some tenant fits none. */
static int pack(const struct scenario *sc, const int *cores, int *gpu_of)
{
    int T = sc->n_tenants, G = 0;
    int *order = ss_xcalloc((size_t)T, sizeof *order), *used = ss_xcalloc((size_t)T, sizeof *used);
    double *mem = ss_xcalloc((size_t)T, sizeof *mem);
    for (int i = 0; i < T; i++)
        order[i] = i;
    for (int i = 1; i < T; i++)
        for (int j = i; j > 0 && cores[order[j]] > cores[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int k = 0; k < T && G >= 0; k++) {
        int i = order[k], g = 0;
        while (g < G &&
               (used[g] + cores[i] > 100 || mem[g] + sc->tenants[i].memory_gb > sc->gpu.memory_gb))
            g++;
        if (cores[i] > 100 || sc->tenants[i].memory_gb > sc->gpu.memory_gb) {
            G = -1;
            break;
        }
        if (g == G)
            G++;
        used[g] += cores[i];
        mem[g] += sc->tenants[i].memory_gb;
        gpu_of[i] = g;
    }
    free(order);
    free(used);
    free(mem);
    return G;
}

static cJSON *strategy(const struct scenario *sc, const int *cores, const int *gpu_of)
{
    cJSON *st = pc_strategy("fractional", "fractional");
    cJSON *c = cJSON_AddObjectToObject(st, "cores"), *m = cJSON_AddObjectToObject(st, "memory_gb"),
          *as = cJSON_AddObjectToObject(st, "assign");
    for (int i = 0; i < sc->n_tenants; i++) {
        cJSON_AddNumberToObject(c, sc->tenants[i].name, cores[i]);
        cJSON_AddNumberToObject(m, sc->tenants[i].name, sc->tenants[i].memory_gb);
        cJSON_AddNumberToObject(as, sc->tenants[i].name, gpu_of[i]);
    }
    return st;
}

/* A tenant's cores at target utilisation rho of its share, and enough that its work's own p99
 * runs within the fraction sigma of its SLA at that share. */
static int size_cores(const struct tenant_cfg *t, double rho, double sigma)
{
    double need = pc_load(t) / rho;
    if (t->sla_p99_s > 0) {
        double by_sla = pc_work_p99_s(t) / (sigma * t->sla_p99_s);
        if (by_sla > need)
            need = by_sla;
    }
    int c = (int)ceil(100 * need - 1e-9);
    return c < 1 ? 1 : c;
}

/* Whether a pod is alone on its GPU in this placement (its "assign"). */
static int has_lone_pod(const struct scenario *sc, const cJSON *st)
{
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(st, "assign");
    for (int i = 0; i < sc->n_tenants; i++) {
        int g = cJSON_GetObjectItemCaseSensitive(as, sc->tenants[i].name)->valueint, alone = 1;
        for (int k = 0; k < sc->n_tenants && alone; k++)
            alone =
                k == i || cJSON_GetObjectItemCaseSensitive(as, sc->tenants[k].name)->valueint != g;
        if (alone)
            return 1;
    }
    return 0;
}

/*
 * Under HAMi's default core policy a pod alone on its GPU is not throttled, so a placement with
 * a lone pod looks better than the configuration is: as soon as the scheduler puts another pod
 * on that GPU (the GPU has cores left, and the cluster other pods) the lone one is held to its
 * percentage. The candidate's general variants are those placements with every limit enforced
 * ("core_policy": "force"); the planner judges the candidate on them too (plancand.h).
 */
static void fr_general(const struct scenario *sc, struct plan_cand *c)
{
    cJSON *gen = cJSON_CreateArray();
    const cJSON *st;
    cJSON *one = c->placements ? NULL : cJSON_CreateArray();
    if (one)
        cJSON_AddItemToArray(one, cJSON_Duplicate(c->strategy, 1));
    const cJSON *all = c->placements ? c->placements : one;
    cJSON_ArrayForEach(st, all)
    {
        if (!has_lone_pod(sc, st))
            continue;
        cJSON *v = cJSON_Duplicate(st, 1);
        cJSON_AddStringToObject(v, "core_policy", "force");
        cJSON_AddItemToArray(gen, v);
    }
    cJSON_Delete(one);
    if (cJSON_GetArraySize(gen) == 0) {
        cJSON_Delete(gen);
        return;
    }
    c->general = gen;
    snprintf(c->general_why, sizeof c->general_why,
             "a lone pod throttled to its cores, as HAMi does once another pod joins its GPU");
}

static void fr_plan(struct plan_ctx *x)
{
    /* (utilisation, fraction of the SLA): from the tightest size to the roomiest. */
    static const double targets[][2] = {{0.9, 0.9}, {0.8, 0.8}, {0.6, 0.6}, {0.4, 0.5}};
    const struct scenario *sc = x->sc;
    int T = sc->n_tenants;
    if (T < 2)
        return; /* one pod alone on a GPU: exclusive */
    int *cores = ss_xcalloc((size_t)T, sizeof *cores), *prev = ss_xcalloc((size_t)T, sizeof *prev),
        *gpu_of = ss_xcalloc((size_t)T, sizeof *gpu_of);
    for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++) {
        char label[160], why[256] = "";
        int n = 0;
        for (int i = 0; i < T; i++)
            cores[i] = size_cores(&sc->tenants[i], targets[k][0], targets[k][1]);
        if (k > 0 && memcmp(cores, prev, (size_t)T * sizeof *cores) == 0)
            continue; /* the same size as the previous target */
        memcpy(prev, cores, (size_t)T * sizeof *cores);
        n = snprintf(label, sizeof label, "fractional");
        for (int i = 0; i < T && n < (int)sizeof label; i++)
            n += snprintf(label + n, sizeof label - (size_t)n, " %s %d%%", sc->tenants[i].name,
                          cores[i]);
        int G = pack(sc, cores, gpu_of);
        for (int i = 0; i < T && G < 0 && !why[0]; i++)
            if (cores[i] > 100)
                snprintf(why, sizeof why, "%s needs %d%% of a GPU at %.0f%% utilisation",
                         sc->tenants[i].name, cores[i], 100 * targets[k][0]);
        if (G < 0 && !why[0])
            snprintf(why, sizeof why, "a tenant needs more memory than a GPU has");
        if (G == T)
            snprintf(why, sizeof why,
                     "one pod a GPU: each alone and unthrottled (HAMi's default), exclusive by "
                     "another name");
        if (G < 0 || G > x->max_gpus || G == T) {
            struct plan_cand *c = pc_add(x, "fractional", G > 0 ? G : T, NULL, "%s", label);
            snprintf(c->pruned, sizeof c->pruned, "%s",
                     why[0] ? why : "more GPUs than plan.max_gpus");
            continue;
        }
        cJSON *pl = cJSON_CreateArray();
        long count = 0;
        if (T > FR_MAX_TENANTS)
            snprintf(why, sizeof why, "%d tenants: too many placements of their pods to simulate",
                     T);
        for (int ok = !why[0] && pc_placement_first(T, G, T, gpu_of); ok;
             ok = pc_placement_next(T, G, T, gpu_of))
            if (fits(sc, cores, G, gpu_of) && ++count <= FR_MAX_PLACEMENTS)
                cJSON_AddItemToArray(pl, strategy(sc, cores, gpu_of));
        if (count > FR_MAX_PLACEMENTS)
            snprintf(why, sizeof why, "%ld placements of the pods on %d GPUs: too many to simulate",
                     count, G);
        if (!why[0])
            pc_sla_below_work(sc, 1.0, why, sizeof why);
        if (count == 0) { /* pruned before enumerating: the packing's own placement */
            pack(sc, cores, gpu_of);
            cJSON_AddItemToArray(pl, strategy(sc, cores, gpu_of));
        }
        if (count > 1 && (size_t)strlen(label) + 24 < sizeof label)
            snprintf(label + strlen(label), sizeof label - strlen(label), ", %ld placements",
                     count);
        struct plan_cand *c =
            pc_add(x, "fractional", G, cJSON_Duplicate(cJSON_GetArrayItem(pl, 0), 1), "%s", label);
        snprintf(c->pruned, sizeof c->pruned, "%s", why);
        c->variants = count > 1 ? (int)count : 1;
        if (count > 1)
            c->placements = pl;
        else
            cJSON_Delete(pl);
        int sum = 0;
        for (int i = 0; i < T; i++)
            sum += cores[i];
        c->free_gpus = G - sum / 100.0;
        if (!c->pruned[0])
            fr_general(sc, c);
    }
    free(cores);
    free(prev);
    free(gpu_of);
}

/*
 * HAMi (HAMI_CFG): each pod requests one shared GPU, its memory limit and its cores —
 * nvidia.com/gpu, nvidia.com/gpumem (MiB) and nvidia.com/gpucores (percent), the resources
 * HAMi's device plugin registers and its scheduler and in-container limiter read, in units its
 * documentation defines. The article's example (nvidia.com/vgpu-memory, vgpu-cores,
 * docs/domain.md) names the same two quantities differently: the numbers carry over.
 */
static int fr_deploy(struct dp_ctx *d)
{
    const cJSON *cores = cJSON_GetObjectItemCaseSensitive(d->c->strategy, "cores");
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(d->c->strategy, "memory_gb");
    const cJSON *pol = cJSON_GetObjectItemCaseSensitive(d->c->strategy, "core_policy");
    const char *policy = cJSON_IsString(pol) ? pol->valuestring : "default";
    for (int i = 0; i < d->sc->n_tenants; i++) {
        const char *name = d->sc->tenants[i].name;
        dp_limit(d, i, "nvidia.com/gpu", 1);
        dp_limit(d, i, "nvidia.com/gpumem",
                 (long)ceil(cJSON_GetObjectItemCaseSensitive(mem, name)->valuedouble * 1024));
        dp_limit(d, i, "nvidia.com/gpucores",
                 cJSON_GetObjectItemCaseSensitive(cores, name)->valueint);
    }
    struct dp_file f;
    if (dp_yaml_open(d, &f, "hami-values.yaml", "HAMi Helm values"))
        return -1;
    yw_doc_begin(&f.w);
    yw_map_begin(&f.w);
    yw_str(&f.w, "devices");
    yw_map_begin(&f.w);
    yw_str(&f.w, "nvidia");
    yw_map_begin(&f.w);
    yw_kv_str(&f.w, "gpuCorePolicy", policy);
    yw_map_end(&f.w);
    yw_map_end(&f.w);
    yw_map_end(&f.w);
    yw_doc_end(&f.w);
    if (dp_yaml_commit(d, &f))
        return -1;
    /* HAMi manages a node labelled gpu=on; its device plugin registers nvidia.com/gpu there,
     * so the GPU Operator's must not run on it (HAMI_CFG; the operator's per-node operand
     * label, GPUOP_SHARING). */
    dp_group_label(d, 0, "gpu", "on");
    dp_group_label(d, 0, "nvidia.com/gpu.deploy.device-plugin", "false");
    dp_readme(d,
              "Fractional GPUs through HAMi: each tenant's pod requests one shared GPU "
              "(`nvidia.com/gpu: 1`), its memory limit in MiB (`nvidia.com/gpumem`) and its "
              "compute percentage (`nvidia.com/gpucores`); HAMi's scheduler places the pods where "
              "the cores (100 a GPU) and the memory fit, and HAMi-core, preloaded into each "
              "container, throttles a pod that has used its percentage of the current time window. "
              "The plan was simulated in each of the %d placement%s the scheduler may choose.\n\n"
              "### Requirements\n\n"
              "- HAMi v2.6.0 or later: the Helm value `devices.nvidia.gpuCorePolicy` is in its "
              "chart from v2.6.0 (HAMi pull request #901); the resources `nvidia.com/gpumem` and "
              "`nvidia.com/gpucores` are older.\n"
              "- With the NVIDIA GPU Operator: its per-node label "
              "`nvidia.com/gpu.deploy.device-plugin=false` (the operator deploys its device "
              "plugin only where that label is `true`), so that only HAMi's device plugin "
              "registers the GPUs of these nodes. Without the operator, remove NVIDIA's device "
              "plugin from these nodes yourself.\n\n"
              "### Steps\n\n"
              "1. HAMi's chart repository: `helm repo add hami-charts "
              "https://project-hami.github.io/HAMi/` and `helm repo update`.\n"
              "2. Label the plan's nodes (the Nodes section): `gpu=on` hands them to HAMi's "
              "scheduler and device plugin, `nvidia.com/gpu.deploy.device-plugin=false` takes "
              "NVIDIA's device plugin off them (other nodes keep theirs).\n"
              "3. Install or upgrade HAMi, keeping its other values: `helm upgrade --install hami "
              "hami-charts/hami -n kube-system --reuse-values -f hami-values.yaml` (Helm value "
              "`devices.nvidia.gpuCorePolicy=%s`, the containers' "
              "`GPU_CORE_UTILIZATION_POLICY`). Check that `hami-device-plugin` and "
              "`hami-scheduler` run: `kubectl get pods -n kube-system`. HAMi's webhook hands "
              "the pods that request these resources to its scheduler.\n"
              "4. With the `default` policy HAMi does not enforce the core limit of a pod that is "
              "alone on its GPU; the simulation did the same (`core_policy` `default`). Set "
              "`force` to throttle a lone pod too, and re-plan with `\"core_policy\": \"force\"` "
              "to see what it costs.\n\n"
              "### Undoing it\n\n"
              "Patch the workloads back, remove the nodes' labels (the operator deploys its "
              "device plugin there again), and `helm uninstall hami -n kube-system` if HAMi was "
              "installed for this plan (otherwise upgrade it back to its old values).\n\n",
              d->c->variants > 1 ? d->c->variants : 1, d->c->variants > 1 ? "s" : "", policy);
    return 0;
}

/* A pod waits for the others' time slices and, once throttled, for the next window. */
static const char *fr_label(const void *cfg)
{
    (void)cfg;
    return "time-sharing and throttling";
}

const struct policy_hooks policy_hooks_fractional = {
    .label = fr_label,
    .plan = fr_plan,
    .deploy = fr_deploy,
};
