/*
 * plan_shared — what the tools ask of the two strategies that put several tenants'
 * contexts on one whole GPU, time-slicing and MPS (struct policy_hooks,
 * docs/policy-hooks.md). Their planner candidates differ only in the capacity
 * bound and the tenant limit, so they share one generator; each is deployed by its
 * own k8s-device-plugin ConfigMap and has its own compare label. Only time-slicing
 * has a rule of thumb.
 */
#include "core/analytic.h"
#include "core/plancand.h"
#include "core/policy.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct shared_kind {
    const struct policy_ops *ops;
    double gamma;    /* capacity bound: the fraction of a GPU the tenants' work can use */
    int max_per_gpu; /* tenants per GPU */
    int replicas;    /* the strategy object has "replicas" (time-slicing's device-plugin view) */
};

/* r tenants per GPU, balanced by load (longest first): one candidate per GPU count. */
static void shared_plan(struct plan_ctx *x, const struct shared_kind *sk)
{
    const struct scenario *sc = x->sc;
    const char *kind = sk->ops->kind;
    int T = sc->n_tenants;
    if (T < 2)
        return; /* one tenant sharing a GPU is exactly exclusive */
    double gamma = sk->gamma;
    int *order = ss_xcalloc((size_t)T, sizeof *order);
    for (int i = 0; i < T; i++)
        order[i] = i;
    for (int i = 1; i < T; i++) /* insertion sort by load, descending; stable */
        for (int j = i;
             j > 0 && pc_load(&sc->tenants[order[j]]) > pc_load(&sc->tenants[order[j - 1]]); j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    /* One candidate per GPU count: r = ⌈T/G⌉ tenants per GPU (a larger cap with the
     * same G would give the same balanced assignment). */
    for (int G = 1; G < T && G <= x->max_gpus; G++) {
        int r = (T + G - 1) / G;
        if (r > sk->max_per_gpu || (G > 1 && (T + G - 2) / (G - 1) == r))
            continue; /* over the tenant limit, or the same r as G − 1 GPUs */
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
            load[best] += pc_load(t);
            mem[best] += t->memory_gb;
        }
        for (int g = 0; g < G && !why[0]; g++)
            if (load[g] >= gamma)
                snprintf(why, sizeof why, "GPU %d load %.2f >= capacity %.3f = q/(q+s)", g, load[g],
                         gamma);
        if (!why[0])
            pc_sla_below_work(sc, 1.0, why, sizeof why);
        char name[32];
        snprintf(name, sizeof name, "%s-x%d", kind, r);
        cJSON *st = pc_strategy(name, kind);
        if (sk->replicas)
            cJSON_AddNumberToObject(st, "replicas", r);
        cJSON *as = cJSON_AddObjectToObject(st, "assign");
        for (int i = 0; i < T; i++)
            cJSON_AddNumberToObject(as, sc->tenants[i].name, gpu[i]);
        struct plan_cand *c = pc_add(x, kind, G, st, "%s %d per GPU", kind, r);
        snprintf(c->pruned, sizeof c->pruned, "%s", why);
        free(load);
        free(mem);
        free(cnt);
        free(gpu);
    }
    free(order);
}

/* Time-slicing: the switch cost leaves q/(q+s) of the GPU to work; up to 16 replicas. */
static void ts_plan(struct plan_ctx *x)
{
    const struct shared_kind sk = {
        &policy_timeslice,
        an_ts_capacity_fraction(x->sc->gpu.timeslice_s,
                                cal_switch_s(&x->sc->gpu, x->sc->gpu.switch_s,
                                             x->sc->gpu.context_state_mb,
                                             x->sc->gpu.context_state_mb)),
        16, 1};
    shared_plan(x, &sk);
}

/* MPS: no switch cost, so the capacity bound is the whole GPU; the client limit caps r. */
static void mps_plan(struct plan_ctx *x)
{
    const struct shared_kind sk = {&policy_mps, 1.0, x->sc->gpu.mps_max_clients, 0};
    shared_plan(x, &sk);
}

/* A k8s-device-plugin ConfigMap that advertises each GPU as `replicas` GPUs. */
struct plugin_config {
    const char *file;         /* in the --k8s folder */
    const char *what;         /* the config, in its header comment */
    const char *up_to, *unit; /* the header counts "<up_to><replicas> <unit> each" */
    const char *name;         /* the ConfigMap's */
    const char *flags;        /* the config's flags block, or "" */
    const char *sharing;      /* its sharing key */
};

static int write_plugin_config(const char *dir, const struct plugin_config *pc,
                               const struct scenario *sc, int gpus, int replicas, char *err,
                               size_t errlen)
{
    char buf[4096];
    snprintf(buf, sizeof buf,
             "# NVIDIA k8s-device-plugin %s config generated by sharesim plan\n"
             "# scenario: %s — %d GPU(s) %s, %s%d %s each\n"
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n"
             "  namespace: gpu-operator\ndata:\n  any: |-\n    version: v1\n%s    sharing:\n"
             "      %s:\n        resources:\n        - name: nvidia.com/gpu\n"
             "          replicas: %d\n",
             pc->what, sc->name, gpus, sc->gpu.name, pc->up_to, replicas, pc->unit, pc->name,
             pc->flags, pc->sharing, replicas);
    return pc_write_file(dir, pc->file, buf, err, errlen);
}

/* NVIDIA k8s-device-plugin time-slicing: each GPU advertised as `replicas` GPUs. */
static int ts_deploy(const char *dir, const struct scenario *sc, const struct plan_cand *b,
                     char *err, size_t errlen)
{
    static const struct plugin_config ts = {"time-slicing-config.yaml",
                                            "time-slicing",
                                            "",
                                            "replicas",
                                            "sharesim-time-slicing",
                                            "    flags:\n      migStrategy: none\n",
                                            "timeSlicing"};
    int replicas = cJSON_GetObjectItemCaseSensitive(b->strategy, "replicas")->valueint;
    return write_plugin_config(dir, &ts, sc, b->gpus, replicas, err, errlen);
}

/* NVIDIA k8s-device-plugin MPS sharing: as many clients per GPU as the plan puts there. */
static int mps_deploy(const char *dir, const struct scenario *sc, const struct plan_cand *b,
                      char *err, size_t errlen)
{
    static const struct plugin_config mps = {
        "mps-config.yaml", "MPS sharing", "up to ", "clients", "sharesim-mps", "", "mps"};
    int per_gpu = (sc->n_tenants + b->gpus - 1) / b->gpus;
    return write_plugin_config(dir, &mps, sc, b->gpus, per_gpu, err, errlen);
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
