/*
 * plan_vgpu — what the tools ask of the vGPU strategy (struct policy_hooks,
 * docs/policy-hooks.md): compare's label, planner candidates of one VM per tenant,
 * the note on what to create in the hypervisor (vGPU is not configured in
 * Kubernetes), and the many-tenants rule of thumb.
 */
#include "core/analytic.h"
#include "core/deploy.h"
#include "core/plancand.h"
#include "core/policy.h"

#include <math.h>
#include <stdio.h>

/* The largest vGPU type of which n fit one GPU (VGPU_UG: one type per GPU), or NULL. */
static const struct vgpu_type *type_for(const struct gpu_profile *g, int n)
{
    const struct vgpu_type *best = NULL;
    for (int i = 0; i < g->n_vgpu_types; i++)
        if (g->vgpu_types[i].max_per_gpu >= n && (!best || g->vgpu_types[i].fb_gb > best->fb_gb))
            best = &g->vgpu_types[i];
    return best;
}

/* One VM per tenant, all of the largest vGPU type of which T fit a GPU, best_effort (NVIDIA's
 * default, work-conserving); the layout is applied to every GPU of the pool (vgpu policy), so
 * with G GPUs each tenant has G VMs and G × T licences are billed. */
static void vg_plan(struct plan_ctx *x)
{
    const struct scenario *sc = x->sc;
    int T = sc->n_tenants;
    if (T < 2)
        return;
    const struct vgpu_type *type = type_for(&sc->gpu, T);
    for (int G = 1; G <= 3 && G <= x->max_gpus; G++) {
        cJSON *st = pc_strategy("vgpu", "vgpu");
        cJSON_AddStringToObject(st, "scheduler", "best_effort");
        cJSON *vms = cJSON_AddArrayToObject(st, "vgpus");
        char why[256] = "";
        double load = 0;
        if (!type)
            snprintf(why, sizeof why, "%d VMs per GPU: no vGPU type of the %s allows that many", T,
                     sc->gpu.name);
        for (int i = 0; i < T; i++) {
            const struct tenant_cfg *t = &sc->tenants[i];
            if (type && t->memory_gb > type->fb_gb && !why[0])
                snprintf(why, sizeof why, "%s needs %g GB, a %s vGPU has %g GB", t->name,
                         t->memory_gb, type->name, type->fb_gb);
            /* The layout repeats on every GPU: an LLM tenant has an engine in a VM on each,
             * behind its router (units/router.h). */
            load += pc_load(t);
            cJSON *vm = cJSON_CreateObject();
            cJSON_AddStringToObject(vm, "type", type ? type->name : "none");
            cJSON *tn = cJSON_AddArrayToObject(vm, "tenants");
            cJSON_AddItemToArray(tn, cJSON_CreateString(t->name));
            cJSON_AddItemToArray(vms, vm);
        }
        double slice = T <= 8 ? sc->gpu.vgpu_slice_le8_s : sc->gpu.vgpu_slice_gt8_s;
        double gamma = an_ts_capacity_fraction(slice, sc->gpu.vgpu_switch_s);
        if (!why[0] && load >= G * gamma)
            snprintf(why, sizeof why, "load %.2f >= capacity %d × %.3f", load, G, gamma);
        if (!why[0])
            pc_sla_below_work(sc, 1.0, why, sizeof why);
        struct plan_cand *c = pc_add(x, "vgpu", G, st, "vgpu %d x %s per GPU, best_effort", T,
                                     type ? type->name : "-");
        snprintf(c->pruned, sizeof c->pruned, "%s", why);
        if (isfinite(c->cost_per_hour))
            c->cost_per_hour += G * T * sc->vgpu_license_usd_per_vgpu_year / (365.0 * 24.0);
    }
}

/*
 * vGPU lives in the hypervisor: the README says which VMs to create. A tenant has a VM on every
 * GPU of the plan (the layout is applied to each, vgpu policy), each VM a Kubernetes node whose
 * device plugin sees one GPU; so the tenant runs one pod on each of its G VMs, and its pods
 * select its VMs by the tenant's own node label.
 */
static int vg_deploy(struct dp_ctx *d)
{
    int G = d->c->gpus;
    dp_readme(d,
              "vGPU is configured in the hypervisor, not in Kubernetes: create, on each of the "
              "%d GPU%s, one VM per tenant with the NVIDIA vGPU type below (scheduler: best "
              "effort, the default), each VM a Kubernetes node whose device plugin sees one "
              "GPU%s:\n\n",
              G, G > 1 ? "s" : "",
              G > 1 ? " — so each tenant has one VM on every GPU, and runs one pod on each" : "");
    d->group[0].count = 0; /* no node carries every tenant: each tenant's VMs are its own */
    const cJSON *vm;
    cJSON_ArrayForEach(vm, cJSON_GetObjectItemCaseSensitive(d->c->strategy, "vgpus"))
    {
        const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(vm, "tenants"), 0);
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(vm, "type");
        const struct vgpu_type *vt =
            cJSON_IsString(ty) ? cal_vgpu_type(&d->sc->gpu, ty->valuestring) : NULL;
        int i = t ? scn_tenant_index(d->sc, t->valuestring) : -1;
        dp_readme(d, "- %s: %s (%g GB frame buffer)%s\n", t ? t->valuestring : "?",
                  vt ? vt->name : "?", vt ? vt->fb_gb : 0.0, G > 1 ? ", one VM on each GPU" : "");
        if (i < 0)
            continue;
        char what[160];
        snprintf(what, sizeof what, "%s's VM%s (one on each of the %d GPU%s)", t->valuestring,
                 G > 1 ? "s" : "", G, G > 1 ? "s" : "");
        dp_group_add(d, what, G, i);
        dp_limit(d, i, "nvidia.com/gpu", 1);
        if (G > 1)
            dp_replicas(d, i, G,
                        "The simulation served the tenant's requests from one queue that its VMs "
                        "take in turn (each VM takes the oldest waiting request when its vGPU is "
                        "free).");
    }
    dp_readme(d, "\n### Requirements\n\n"
                 "- NVIDIA vGPU software whose types include the ones above (the NVIDIA Virtual "
                 "GPU Software User Guide lists the types of each GPU), with the vGPU guest "
                 "driver in each VM.\n"
                 "- Inside each VM, the NVIDIA device plugin (or the GPU Operator) in its default "
                 "configuration: the VM's one vGPU is its one `nvidia.com/gpu`; no sharing "
                 "feature, so any version.\n\n"
                 "### Steps\n\n"
                 "1. Create the VMs, join them to the cluster, and label each one with its "
                 "tenant's labels (the Nodes section).\n"
                 "2. Patch the workloads (below): a tenant's pods select its VMs only.\n\n"
                 "### Undoing it\n\n"
                 "Patch the workloads back, drain the VMs, remove them from the cluster and the "
                 "hypervisor.\n\n");
    return 0;
}

static int vg_rule(const struct scenario *sc, char *rule, size_t n)
{
    if (sc->n_tenants <= 5)
        return -1;
    snprintf(rule, n, "more than 5 tenants per GPU => vGPU");
    return PC_RULE_MANY_TENANTS;
}

/* vGPU time-slices the VMs: as time-slicing, other VMs' slices and the switches. */
static const char *vg_label(const void *cfg)
{
    (void)cfg;
    return "time-sharing and switching";
}

const struct policy_hooks policy_hooks_vgpu = {
    .label = vg_label,
    .plan = vg_plan,
    .deploy = vg_deploy,
    .rule_of_thumb = vg_rule,
};
