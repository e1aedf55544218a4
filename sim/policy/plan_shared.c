/*
 * plan_shared — what the tools ask of the two strategies that put several tenants'
 * contexts on one whole GPU, time-slicing and MPS (struct policy_hooks,
 * docs/policy-hooks.md). Their planner candidates differ only in the capacity
 * bound and the tenant limit, so they share one generator.
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
        &policy_timeslice, an_ts_capacity_fraction(x->sc->gpu.timeslice_s, x->sc->gpu.switch_s), 16,
        1};
    shared_plan(x, &sk);
}

/* MPS: no switch cost, so the capacity bound is the whole GPU; the client limit caps r. */
static void mps_plan(struct plan_ctx *x)
{
    const struct shared_kind sk = {&policy_mps, 1.0, x->sc->gpu.mps_max_clients, 0};
    shared_plan(x, &sk);
}

const struct policy_hooks policy_hooks_timeslice = {
    .plan = ts_plan,
};

const struct policy_hooks policy_hooks_mps = {
    .plan = mps_plan,
};
