/*
 * plan_mig — what the tools ask of the MIG strategy (struct policy_hooks,
 * docs/policy-hooks.md): compare's label, planner candidates of one instance per
 * tenant, packed, the mig-parted config that lays them out, and two rules of thumb.
 */
#include "core/analytic.h"
#include "core/plancand.h"
#include "core/policy.h"
#include "core/rate.h"
#include "core/tenant.h"
#include "mig/mig.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The smallest MIG profile (fewest compute slices, then memory) that holds the
 * tenant's memory and keeps it stable with its p99 SLA reachable, skipping the first
 * `bump` that do; -1 if none. */
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

/* One instance per tenant, the smallest that works (or one size up), packed onto as
 * few GPUs as possible by sim/mig/mig_pack.c (FGD policy). */
static void mig_plan(struct plan_ctx *x)
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
            struct plan_cand *c = pc_add(x, "mig", T, NULL, "mig, one instance per tenant%s",
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
        cJSON *st = pc_strategy("mig", "mig");
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
        pc_add(x, "mig", pk.n_gpus, st, "%s", label);
        mig_pack_free(&pk);
        free(req);
    }
}

/* mig-parted config: one entry per GPU with that GPU's instance counts. */
static int mig_deploy(const char *dir, const struct scenario *sc, const struct plan_cand *b,
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
    return pc_write_file(dir, "mig-parted-config.yaml", buf, err, errlen);
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
    .rule_of_thumb = mig_rule,
};
