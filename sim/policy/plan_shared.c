/*
 * plan_shared — what the tools ask of the two strategies that put several tenants'
 * contexts on one whole GPU, time-slicing and MPS (struct policy_hooks,
 * docs/policy-hooks.md). Their planner candidates differ only in the capacity
 * bound and the tenant limit, so they share one generator; each is deployed by its
 * own k8s-device-plugin ConfigMap and has its own compare label. Only time-slicing
 * has a rule of thumb.
 */
#include "core/analytic.h"
#include "core/deploy.h"
#include "core/plancand.h"
#include "core/policy.h"
#include "policy/llmmem.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The placements a candidate is simulated in are enumerated (pc_placement_*); past these
 * bounds there are too many to simulate and the candidate is pruned, saying so. */
#define SHARED_MAX_TENANTS 12
#define SHARED_MAX_PLACEMENTS 64

struct shared_kind {
    const struct policy_ops *ops;
    double gamma;    /* capacity bound: the fraction of a GPU the tenants' work can use */
    int max_per_gpu; /* tenants per GPU */
    int replicas;    /* the strategy object has "replicas" (time-slicing's device-plugin view) */
    /* MPS through the device plugin: every client is capped at 100/replicas % of the
     * threads (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE) and total memory / replicas of pinned
     * device memory, whoever else shares its GPU (PLUGIN_MPS, docs/domain.md). */
    int plugin_caps;
};

/* "chat+embed | rerank": which tenants share which GPU. */
static void describe(const struct scenario *sc, int G, const int *gpu_of, char *out, size_t n)
{
    size_t k = 0;
    out[0] = '\0';
    for (int g = 0; g < G; g++) {
        int first = 1;
        for (int i = 0; i < sc->n_tenants && k < n; i++)
            if (gpu_of[i] == g) {
                k += (size_t)snprintf(out + k, n - k, "%s%s", first ? (g ? " | " : "") : "+",
                                      sc->tenants[i].name);
                first = 0;
            }
    }
}

/* Why this placement cannot work, analytically (memory that does not fit, a GPU past the
 * capacity bound), in why; "" when it may. */
static void placement_check(const struct scenario *sc, const struct shared_kind *sk, int G,
                            const int *gpu_of, char *why, size_t n)
{
    for (int g = 0; g < G && !why[0]; g++) {
        double mem = 0, load = 0;
        for (int i = 0; i < sc->n_tenants; i++)
            if (gpu_of[i] == g) {
                mem += sc->tenants[i].memory_gb;
                load += pc_load(&sc->tenants[i]);
            }
        char who[160];
        describe(sc, G, gpu_of, who, sizeof who);
        if (!sk->plugin_caps && mem > sc->gpu.memory_gb)
            snprintf(why, n,
                     "the scheduler may place %.100s: GPU %d needs %g GB > %g GB (memory is not "
                     "isolated)",
                     who, g, mem, sc->gpu.memory_gb);
        else if (load >= sk->gamma)
            snprintf(why, n, "the scheduler may place %.100s: GPU %d load %.2f >= capacity %.3f",
                     who, g, load, sk->gamma);
    }
}

/* The strategy object of one placement: the assignment, and what the artefact imposes. */
static cJSON *placement_strategy(const struct scenario *sc, const struct shared_kind *sk, int r,
                                 const int *gpu_of)
{
    const char *kind = sk->ops->kind;
    char name[32];
    snprintf(name, sizeof name, "%s-x%d", kind, r);
    cJSON *st = pc_strategy(name, kind);
    if (sk->replicas)
        cJSON_AddNumberToObject(st, "replicas", r);
    if (sk->plugin_caps) {
        cJSON *tp = cJSON_AddObjectToObject(st, "thread_pct");
        for (int i = 0; i < sc->n_tenants; i++)
            cJSON_AddNumberToObject(tp, sc->tenants[i].name, 100 / r);
        /* The memory cap is what an LLM client's engine gets (its KV cache, docs/llm.md); a
         * plain client's footprint is checked against it (plugin_memory_check). */
        cJSON *pm = NULL;
        for (int i = 0; i < sc->n_tenants; i++)
            if (sc->tenants[i].llm) {
                if (!pm)
                    pm = cJSON_AddObjectToObject(st, "pinned_memory_gb");
                cJSON_AddNumberToObject(pm, sc->tenants[i].name, sc->gpu.memory_gb / r);
            }
    }
    cJSON *as = cJSON_AddObjectToObject(st, "assign");
    for (int i = 0; i < sc->n_tenants; i++)
        cJSON_AddNumberToObject(as, sc->tenants[i].name, gpu_of[i]);
    return st;
}

/* MPS through the plugin: a tenant above total memory / replicas cannot run at all. */
static void plugin_memory_check(const struct scenario *sc, int r, char *why, size_t n)
{
    double cap = sc->gpu.memory_gb / r;
    for (int i = 0; i < sc->n_tenants && !why[0]; i++)
        if (sc->tenants[i].memory_gb > cap)
            snprintf(why, n,
                     "%s needs %g GB; the device plugin caps each of %d MPS clients at %.1f GB "
                     "of pinned device memory (%g GB / %d)",
                     sc->tenants[i].name, sc->tenants[i].memory_gb, r, cap, sc->gpu.memory_gb, r);
}

/*
 * r = ⌈T/G⌉ replicas per GPU, one candidate per GPU count. The device plugin's config says
 * only `replicas`: Kubernetes may put any r pods on one GPU, so the candidate is simulated
 * in every placement of the tenants on G GPUs with at most r each (up to swapping GPUs) and
 * meets the SLAs only if it does in all of them; one that cannot work analytically rules
 * the candidate out, named in the reason.
 */
static void shared_plan(struct plan_ctx *x, const struct shared_kind *sk)
{
    const struct scenario *sc = x->sc;
    const char *kind = sk->ops->kind;
    int T = sc->n_tenants;
    if (T < 2)
        return; /* one tenant sharing a GPU is exactly exclusive */
    int *gpu_of = ss_xcalloc((size_t)T, sizeof *gpu_of);
    for (int G = 1; G < T && G <= x->max_gpus; G++) {
        int r = (T + G - 1) / G;
        if (r > sk->max_per_gpu || (G > 1 && (T + G - 2) / (G - 1) == r))
            continue; /* over the tenant limit, or the same r as G − 1 GPUs */
        char why[256] = "";
        long count = 0;
        if (sk->plugin_caps)
            plugin_memory_check(sc, r, why, sizeof why);
        if (!why[0] && T > SHARED_MAX_TENANTS)
            snprintf(why, sizeof why,
                     "%d tenants: too many placements of their pods to simulate them all", T);
        if (!why[0]) {
            count = pc_placement_count(T, G, r, SHARED_MAX_PLACEMENTS);
            if (count > SHARED_MAX_PLACEMENTS)
                snprintf(why, sizeof why,
                         "more than %d placements of the pods on %d GPUs: too many to simulate",
                         SHARED_MAX_PLACEMENTS, G);
        }
        cJSON *pl = cJSON_CreateArray();
        for (int ok = !why[0] && pc_placement_first(T, G, r, gpu_of); ok && !why[0];
             ok = pc_placement_next(T, G, r, gpu_of)) {
            placement_check(sc, sk, G, gpu_of, why, sizeof why);
            cJSON_AddItemToArray(pl, placement_strategy(sc, sk, r, gpu_of));
        }
        if (!why[0])
            pc_sla_below_work(sc, 1.0, why, sizeof why);
        if (cJSON_GetArraySize(pl) == 0) { /* pruned before any placement: its first */
            pc_placement_first(T, G, r, gpu_of);
            cJSON_AddItemToArray(pl, placement_strategy(sc, sk, r, gpu_of));
        }
        char label[64] = "";
        if (count > 1)
            snprintf(label, sizeof label, ", %ld placements", count);
        struct plan_cand *c = pc_add(x, kind, G, cJSON_Duplicate(cJSON_GetArrayItem(pl, 0), 1),
                                     "%s %d per GPU%s", kind, r, label);
        snprintf(c->pruned, sizeof c->pruned, "%s", why);
        c->variants = count > 1 ? (int)count : 1;
        if (count > 1)
            c->placements = pl;
        else
            cJSON_Delete(pl);
    }
    free(gpu_of);
}

/* Time-slicing: the switch and the refill after it leave q/(q+s+r) of the GPU to work; up to 16
 * replicas. */
static void ts_plan(struct plan_ctx *x)
{
    const struct shared_kind sk = {
        &policy_timeslice,
        an_ts_capacity_fraction_refill(
            x->sc->gpu.timeslice_s,
            cal_switch_s(&x->sc->gpu, x->sc->gpu.switch_s, x->sc->gpu.context_state_mb,
                         x->sc->gpu.context_state_mb),
            cal_refill_s(&x->sc->gpu, x->sc->gpu.ts_refill_s, x->sc->gpu.context_state_mb)),
        16, 1, 0};
    shared_plan(x, &sk);
}

/* MPS: no switch cost, so the capacity bound is the whole GPU; the client limit caps r; the
 * device plugin's per-client caps are part of the candidate. */
static void mps_plan(struct plan_ctx *x)
{
    const struct shared_kind sk = {&policy_mps, 1.0, x->sc->gpu.mps_max_clients, 0, 1};
    shared_plan(x, &sk);
}

/*
 * The NVIDIA k8s-device-plugin's sharing config (PLUGIN_CFG, docs/domain.md), as a NAMED config
 * that only the plan's nodes select (their label nvidia.com/device-plugin.config, GPUOP_SHARING):
 * every GPU of those nodes is advertised as `replicas` GPUs, time-sliced or MPS clients, and
 * no other node's configuration changes — the operator is pointed at the ConfigMap without a
 * default (devicePlugin.config.default), so an unlabelled node keeps what it has.
 * - renameByDefault only when the scenario asks ("k8s": {"rename": true}): renaming advertises
 *   the replicas as nvidia.com/gpu.shared, so a pod asking for nvidia.com/gpu cannot land on a
 *   shared GPU unplanned, but every workload of those nodes must then ask for the new name.
 * - failRequestsGreaterThanOne: true for time-slicing — a pod asking for two replicas would
 *   get two slices of possibly one GPU, not twice the compute; the plan gives each tenant one.
 *   MPS refuses such requests itself and ignores the key (PLUGIN_REL 0.15.0, PLUGIN_MPS), so
 *   its config leaves it out.
 */
struct plugin_config {
    const char *file;     /* in the --k8s folder */
    const char *what;     /* the file's header */
    const char *cm_name;  /* the ConfigMap's */
    const char *sharing;  /* its sharing key */
    int fail_flag;        /* write failRequestsGreaterThanOne */
    const char *how;      /* how the replicas share a GPU, for the README */
    const char *requires; /* the README's minimum versions, with their sources */
    const char *restart;  /* the daemonsets to restart after the ConfigMap changes */
};

/* The config the plugin reads (the ConfigMap's value), as YAML text. */
static char *plugin_config_text(const struct plugin_config *pc, int replicas, int rename, char *err,
                                size_t errlen)
{
    struct yw w;
    yw_open_string(&w);
    yw_doc_begin(&w);
    yw_map_begin(&w);
    yw_kv_str(&w, "version", "v1");
    yw_str(&w, "flags");
    yw_map_begin(&w);
    yw_kv_str(&w, "migStrategy", "none");
    yw_map_end(&w);
    yw_str(&w, "sharing");
    yw_map_begin(&w);
    yw_str(&w, pc->sharing);
    yw_map_begin(&w);
    yw_kv_bool(&w, "renameByDefault", rename);
    if (pc->fail_flag)
        yw_kv_bool(&w, "failRequestsGreaterThanOne", 1);
    yw_str(&w, "resources");
    yw_seq_begin(&w, 0);
    yw_map_begin(&w);
    yw_kv_str(&w, "name", "nvidia.com/gpu");
    yw_kv_int(&w, "replicas", replicas);
    yw_map_end(&w);
    yw_seq_end(&w);
    yw_map_end(&w);
    yw_map_end(&w);
    yw_map_end(&w);
    yw_doc_end(&w);
    char *text = NULL;
    return yw_close(&w, &text, err, errlen) ? NULL : text;
}

/* Helm values of the GPU Operator: only the ConfigMap's name, so that `helm upgrade
 * --reuse-values -f` changes nothing else — no default config, which would reach every node. */
static int write_values(struct dp_ctx *d, const char *cm_name)
{
    struct dp_file f;
    if (dp_yaml_open(d, &f, "gpu-operator-values.yaml",
                     "NVIDIA GPU Operator Helm values (only what the plan sets)"))
        return -1;
    yw_doc_begin(&f.w);
    yw_map_begin(&f.w);
    yw_str(&f.w, "devicePlugin");
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

/* The replicas per GPU the candidate was planned with: time-slicing's strategy says so,
 * MPS's is ⌈T/G⌉, the most tenants shared_plan puts on one GPU. */
static int shared_replicas(const struct scenario *sc, const struct plan_cand *c)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(c->strategy, "replicas");
    return cJSON_IsNumber(r) ? r->valueint : (sc->n_tenants + c->gpus - 1) / c->gpus;
}

/*
 * The memory each LLM tenant's engine was simulated with. MPS: the plugin's pinned-memory cap,
 * which is also what its process sees (the cap is the client's device memory). Time-slicing:
 * what llmmem gives it in each placement simulated — the GPU less its neighbours' — and the
 * least of those, so that the engine's share fits whichever placement the scheduler picks,
 * out of a process that sees the whole GPU.
 */
static void engine_memory(struct dp_ctx *d, int mps)
{
    const struct scenario *sc = d->sc;
    int T = sc->n_tenants;
    const cJSON *pm = cJSON_GetObjectItemCaseSensitive(d->c->strategy, "pinned_memory_gb");
    if (mps) {
        for (int i = 0; i < T; i++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(pm, sc->tenants[i].name);
            if (sc->tenants[i].llm && cJSON_IsNumber(v))
                dp_engine_memory(d, i, v->valuedouble, v->valuedouble);
        }
        return;
    }
    int *gpu_of = ss_xcalloc((size_t)T, sizeof *gpu_of);
    double *mem = ss_xcalloc((size_t)T, sizeof *mem), *least = ss_xcalloc((size_t)T, sizeof *least);
    long *blocks = ss_xcalloc((size_t)T, sizeof *blocks);
    for (int i = 0; i < T; i++)
        least[i] = -1;
    cJSON *one = cJSON_CreateArray();
    cJSON_AddItemReferenceToArray(one, d->c->strategy);
    const cJSON *all = d->c->placements ? d->c->placements : one, *st;
    cJSON_ArrayForEach(st, all)
    {
        const cJSON *as = cJSON_GetObjectItemCaseSensitive(st, "assign");
        for (int i = 0; i < T; i++) {
            const cJSON *g = cJSON_GetObjectItemCaseSensitive(as, sc->tenants[i].name);
            gpu_of[i] = cJSON_IsNumber(g) ? g->valueint : 0;
            mem[i] = -1;
        }
        /* The candidate was simulated, so its placements load: llmm_shared cannot fail. */
        llmm_shared(NULL, "plan", sc, gpu_of, NULL, "contexts", mem, blocks);
        for (int i = 0; i < T; i++)
            if (sc->tenants[i].llm && mem[i] > 0 && (least[i] < 0 || mem[i] < least[i]))
                least[i] = mem[i];
    }
    for (int i = 0; i < T; i++)
        if (least[i] > 0)
            dp_engine_memory(d, i, least[i], sc->gpu.memory_gb);
    cJSON_Delete(one);
    free(gpu_of);
    free(mem);
    free(least);
    free(blocks);
}

static int deploy_plugin(struct dp_ctx *d, const struct plugin_config *pc)
{
    int replicas = shared_replicas(d->sc, d->c), rename = d->sc->k8s.rename;
    const char *key = d->plan_name, *resource = rename ? "nvidia.com/gpu.shared" : "nvidia.com/gpu";
    char *cfg = plugin_config_text(pc, replicas, rename, d->err, d->errlen);
    if (!cfg)
        return -1;
    struct dp_file f;
    int rc = dp_yaml_open(d, &f, pc->file, pc->what);
    if (!rc) {
        dp_configmap_begin(d, &f.w, pc->cm_name);
        yw_str(&f.w, key);
        yw_literal(&f.w, cfg);
        dp_configmap_end(&f.w);
        rc = dp_yaml_commit(d, &f);
    }
    free(cfg);
    if (rc || write_values(d, pc->cm_name))
        return -1;
    dp_group_label(d, 0, "nvidia.com/device-plugin.config", key);
    for (int i = 0; i < d->sc->n_tenants; i++)
        dp_limit(d, i, resource, 1);
    engine_memory(d, strcmp(pc->sharing, "mps") == 0);
    dp_readme(d,
              "Each GPU of the plan's nodes is advertised as %d `%s` replicas, %s; each tenant's "
              "pod asks for one. The config is a named one (key `%s` of the ConfigMap `%s` in "
              "namespace `%s`) that a node uses only when its label "
              "`nvidia.com/device-plugin.config` says so; the operator gets no default config, "
              "so every other node keeps the configuration it has.\n\n",
              replicas, resource, pc->how, key, pc->cm_name, d->ns);
    if (rename)
        dp_readme(d, "The replicas are renamed `nvidia.com/gpu.shared` (`\"k8s\": {\"rename\": "
                     "true}`): on these nodes a pod asking for `nvidia.com/gpu` no longer fits, so "
                     "nothing unplanned shares their GPUs; any other GPU workload of these nodes "
                     "must move or ask for the new name.\n\n");
    else
        dp_readme(d, "The replicas keep the name `nvidia.com/gpu` (`\"k8s\": {\"rename\": true}` "
                     "renames them `nvidia.com/gpu.shared`): a pod of another workload that asks "
                     "for `nvidia.com/gpu` and lands on these nodes gets a shared replica and "
                     "changes what was simulated — keep other GPU pods off them (their own node "
                     "selector or affinity), or rename.\n\n");
    dp_readme(
        d,
        "### Requirements\n\n%s\n\n"
        "### Steps\n\n"
        "1. See what the operator uses now: `kubectl get clusterpolicies.nvidia.com/"
        "cluster-policy -o jsonpath='{.spec.devicePlugin.config}'`. If it already names a "
        "ConfigMap, the other nodes' configs live there: do not replace it — add the key "
        "`%s` of `%s` to that ConfigMap (`kubectl -n %s edit configmap NAME`), restart the "
        "device plugin (`kubectl -n %s rollout restart %s`) and go to step 4.\n"
        "2. `kubectl apply -n %s -f %s`\n"
        "3. Point the operator at it, keeping every other value: `helm upgrade gpu-operator "
        "nvidia/gpu-operator -n %s --reuse-values --version INSTALLED -f "
        "gpu-operator-values.yaml` (INSTALLED: the chart version `helm list -n %s` shows; "
        "without `--version` Helm upgrades the operator too), or patch the ClusterPolicy: "
        "`kubectl patch clusterpolicies.nvidia.com/cluster-policy --type merge -p "
        "'{\"spec\": {\"devicePlugin\": {\"config\": {\"name\": \"%s\"}}}}'`. The "
        "operator restarts the device plugin; it does not watch the ConfigMap afterwards, "
        "so after changing it restart the plugin yourself (`kubectl -n %s rollout restart %s`).\n"
        "4. Label the plan's nodes (the Nodes section): the plugin applies a node's config "
        "when its label changes. Check: `kubectl get node NODE -o "
        "jsonpath='{.status.allocatable}'` shows `%s` = %d × the node's GPUs.\n\n"
        "### Undoing it\n\n"
        "Remove the nodes' labels (they fall back to the config they had), then undo step 3 "
        "(`helm upgrade … --reuse-values --set devicePlugin.config.name=OLD`, or the same "
        "ClusterPolicy patch with the old name, `null` if there was none) and "
        "`kubectl delete -n %s -f %s`.\n\n",
        pc->requires, key, pc->file, d->ns, d->ns, pc->restart, d->ns, pc->file, d->ns, d->ns,
        pc->cm_name, d->ns, pc->restart, resource, replicas, d->ns, pc->file);
    return 0;
}

/* NVIDIA k8s-device-plugin time-slicing: each GPU advertised as `replicas` GPUs. */
static int ts_deploy(struct dp_ctx *d)
{
    static const struct plugin_config ts = {
        "time-slicing-config.yaml",
        "NVIDIA k8s-device-plugin time-slicing config",
        "sharesim-time-slicing",
        "timeSlicing",
        1,
        "time-sliced by the driver (no memory or fault isolation)",
        "- NVIDIA GPU Operator v22.9.1 or later: its release notes add per-node device plugin "
        "configs selected by the label `nvidia.com/device-plugin.config` in 22.9.1 "
        "(time-slicing itself came in v1.11.0).\n"
        "- NVIDIA k8s-device-plugin v0.12.0 or later: its README's \"Multiple Config File "
        "Example\" and `sharing.timeSlicing` are from v0.12.0 on.",
        "daemonset/nvidia-device-plugin-daemonset"};
    return deploy_plugin(d, &ts);
}

/* NVIDIA k8s-device-plugin MPS sharing: each replica an MPS client with 1/replicas of the
 * threads and of the memory, the caps the candidate was simulated with. */
static int mps_deploy(struct dp_ctx *d)
{
    static const struct plugin_config mps = {
        "mps-config.yaml",
        "NVIDIA k8s-device-plugin MPS sharing config",
        "sharesim-mps",
        "mps",
        0,
        "each an MPS client capped by the plugin at 1/replicas of the GPU's threads and of its "
        "memory",
        "- NVIDIA GPU Operator v24.3.0 or later: the first release that ships device plugin "
        "v0.15.0 (its release notes).\n"
        "- NVIDIA k8s-device-plugin v0.15.0 or later: MPS sharing (`sharing.mps`) starts "
        "there, marked experimental (its README and release notes); MPS is not supported on "
        "MIG-enabled GPUs.",
        "daemonset/nvidia-device-plugin-daemonset "
        "daemonset/nvidia-device-plugin-mps-control-daemon"};
    return deploy_plugin(d, &mps);
}

static int ts_rule(const struct scenario *sc, char *rule, size_t n)
{
    if (sc->n_tenants > 3)
        return -1;
    snprintf(rule, n, "3 tenants or fewer => time-slicing");
    return PC_RULE_FEW_TENANTS;
}

/* Time-slicing: a request waits out the other contexts' slices and the switches. */
static const char *ts_label(const void *cfg)
{
    (void)cfg;
    return "time-sharing and switching";
}

/* MPS: co-running clients contend for the SMs and memory bandwidth. */
static const char *mps_label(const void *cfg)
{
    (void)cfg;
    return "interference";
}

const struct policy_hooks policy_hooks_timeslice = {
    .label = ts_label,
    .plan = ts_plan,
    .deploy = ts_deploy,
    .rule_of_thumb = ts_rule,
};

const struct policy_hooks policy_hooks_mps = {
    .label = mps_label,
    .plan = mps_plan,
    .deploy = mps_deploy,
};
