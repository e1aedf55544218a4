/*
 * vgpu_mig — MIG-backed vGPU ("backing": "mig"): each vGPU is a MIG instance of its
 * profile, isolated and running concurrently with the others; no time slicing. The
 * instance is a plain unit (policy/units/plainunit.h) whose clients are the VM's
 * tenants: one request in service, FIFO by arrival over their queues, at the
 * tenant's speed with the profile's SMs and memory slices; a fault fails the
 * faulting tenant's request in service only. An LLM tenant's VM (it alone) is its engine on
 * the instance's SM and bandwidth shares, as the MIG policy serves it (policy/units/llmunit.h),
 * with the cache the frame buffer (the instance's memory) leaves.
 */
#include "calib/calib.h"
#include "core/rate.h"
#include "policy/units/llmunit.h"
#include "policy/units/plainunit.h"
#include "policy/vgpu.h"
#include "base/util.h"

#include <stdlib.h>

static const char *const time_keys[] = {"scheduler", "slice_ms", "switch_us", NULL};

/* The profile, and an fb_gb that fits the instance (default: all of it). */
static int vgm_parse_vm(const struct jv *j, const cJSON *o, const char *p,
                        const struct scenario *sc, const struct vgpu_cfg *c, struct vg_def *d)
{
    const char *name;
    char q[600];
    (void)c;
    if (jv_str(j, o, p, "profile", 1, &name))
        return -1;
    d->mig = cal_mig_find(&sc->gpu, name);
    if (!d->mig)
        return jv_fail(j, jv_path_key(q, sizeof q, p, "profile"),
                       "the %s has no MIG profile \"%s\"", sc->gpu.name, name);
    d->fb_gb = d->mig->memory_gb;
    /* VGPU_UG: a MIG-backed vGPU type is named by its GPU-instance profile and has the
     * instance's memory as its frame buffer: there is nothing else to choose. */
    if (cJSON_GetObjectItemCaseSensitive(o, "fb_gb"))
        return jv_fail(j, jv_path_key(q, sizeof q, p, "fb_gb"),
                       "a MIG-backed vGPU's frame buffer is its %s instance's memory (%g GB): "
                       "remove \"fb_gb\"",
                       d->mig->name, d->mig->memory_gb);
    if (cJSON_GetObjectItemCaseSensitive(o, "type"))
        return jv_fail(j, jv_path_key(q, sizeof q, p, "type"),
                       "a MIG-backed vGPU's type is its \"profile\": remove \"type\"");
    if (cJSON_GetObjectItemCaseSensitive(o, "weight"))
        return jv_fail(j, jv_path_key(q, sizeof q, p, "weight"),
                       "a MIG-backed vGPU is not time-sliced: weight has no effect");
    return 0;
}

/* Slice sums and instance counts only: the exact placement rules (legal starts)
 * belong to the MIG policy. */
static int vgm_check_layout(const struct jv *j, const char *p, const struct scenario *sc,
                            const struct vgpu_cfg *c)
{
    int cs = 0, ms = 0;
    for (int v = 0; v < c->n_vm; v++) {
        cs += c->vm[v].mig->compute_slices;
        ms += c->vm[v].mig->memory_slices;
    }
    if (cs > sc->gpu.mig_compute_slices || ms > sc->gpu.mig_memory_slices)
        return jv_fail(j, p,
                       "the MIG instances need %d compute and %d memory slices, a %s has %d "
                       "and %d",
                       cs, ms, sc->gpu.name, sc->gpu.mig_compute_slices, sc->gpu.mig_memory_slices);
    for (int v = 0; v < c->n_vm; v++) {
        int same = 0;
        for (int u = 0; u < c->n_vm; u++)
            same += c->vm[u].mig == c->vm[v].mig;
        if (same > c->vm[v].mig->max_instances)
            return jv_fail(j, p, "%d instances of %s, a %s allows %d", same, c->vm[v].mig->name,
                           sc->gpu.name, c->vm[v].mig->max_instances);
    }
    return 0;
}

static int vgm_units_per_gpu(const struct vgpu_cfg *c)
{
    return c->n_vm; /* one instance per vGPU */
}

static struct unit vgm_build(const struct scenario *sc, const struct vgpu_cfg *c, int k,
                             struct unit_addr ev)
{
    const struct vg_def *d = &c->vm[k];
    const struct gpu_profile *gpu = &sc->gpu;
    /* Utilisation weight: the instance's SMs, as a MIG instance of the MIG policy (one
     * utilisation, SM time, in every strategy). */
    double sm = (double)d->mig->sm_count / gpu->total_sms;
    if (d->llm)
        return (struct unit){&lu_unit_ops,
                             lu_new(d->ten[0], sc->tenants[d->ten[0]].llm, d->kv_blocks, gpu, sm,
                                    (double)d->mig->memory_slices / gpu->mig_memory_slices, ev)};
    return pu_new(sc, ev, d->n_ten, d->ten, sm,
                  (double)d->mig->memory_slices / gpu->mig_memory_slices, sm, d->fb_gb);
}

/* Each vGPU owns its instance: all of its time, whatever the others do. */
static double vgm_time_share(const struct vgpu_cfg *c, int v, const double *demand)
{
    (void)c, (void)v, (void)demand;
    return 1;
}

static double vgm_speed(const struct scenario *sc, const struct vg_def *d,
                        const struct tenant_cfg *t)
{
    const struct gpu_profile *gpu = &sc->gpu;
    return rate_speed(gpu, t, (double)d->mig->sm_count / gpu->total_sms,
                      (double)d->mig->memory_slices / gpu->mig_memory_slices);
}

static void vgm_slot(const struct vgpu_cfg *c, int tenant, int *k, int *client)
{
    const struct vg_def *d = &c->vm[c->vm_of[tenant]];
    *k = c->vm_of[tenant];
    for (int m = 0; m < d->n_ten; m++)
        if (d->ten[m] == tenant)
            *client = m;
}

const struct vgpu_backing vgm_backing = {
    .name = "mig",
    .refused = time_keys,
    .refused_why = "a MIG-backed vGPU is not time-sliced",
    .parse_vm = vgm_parse_vm,
    .check_layout = vgm_check_layout,
    .units_per_gpu = vgm_units_per_gpu,
    .build = vgm_build,
    .time_share = vgm_time_share,
    .speed = vgm_speed,
    .slot = vgm_slot,
    .details = NULL,
};
