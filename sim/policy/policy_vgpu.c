/*
 * policy_vgpu — NVIDIA vGPU (kind "vgpu"): VMs, each owning one vGPU with a
 * frame-buffer quota, on every GPU of the pool (the "vgpus" layout is applied to
 * each GPU, so a tenant has one slot per GPU and gpus × vGPUs licences are
 * billed). docs/mps-vgpu.md states the model; in short:
 *
 * - A vGPU (VM) holds at most one request in service, taken FIFO by arrival time
 *   over the queues of the tenants inside that VM.
 * - Time-sliced backing (default): every vGPU is of a vGPU type of the GPU's profile
 *   ("type", or an "fb_gb" that is a type's), all of one type per GPU, at most the
 *   type's max_per_gpu (VGPU_UG, equal-size mode). One VM runs at a time, at the
 *   hypervisor's speed for its class (vgpu_overhead_compute / _memory, COLFAX). A turn
 *   lasts up to one slice of run time; loading another VM's context first costs the
 *   switch time (no work done; reported as switch_overhead). At the end of a turn the
 *   request in service is preempted and keeps its remaining work (preemptive resume).
 *   The very first context needs no switch. NVIDIA's schedulers (VGPU_UG, NVAIE):
 *     best_effort  work-conserving round robin over the VMs with work; a VM that
 *                  runs out of work ends its turn at once; a lone VM with work keeps
 *                  the GPU without switching.
 *     equal_share  every running vGPU gets 1/N of the time, N the vGPUs on the GPU,
 *                  whether it has work or not: a fixed cycle of N slots (strict round
 *                  robin), a VM without work leaving its slot idle.
 *     fixed_share  every vGPU gets 1 / (its type's max_per_gpu) whatever else runs: a
 *                  cycle of max_per_gpu slots, those no vGPU owns idle.
 *   In the fixed cycles the switch into a VM is taken out of its own slot. Weights are
 *   not an NVIDIA setting: "hypothetical_weighted" is best_effort with turns of
 *   slice × weight (the article's weighted round robin), and weights are refused
 *   under every other scheduler.
 * - MIG-backed ("backing": "mig"): each vGPU is a MIG instance with its profile's
 *   SMs and memory slices, isolated and running concurrently; no time slicing, no
 *   hypervisor overhead (Colfax's reference).
 * - Faults: only the faulting tenant's request in service in its VM fails (the
 *   VM's own in-flight work); the VM is usable again at once. A card fault
 *   (gpu_fault_rate_per_h) fails every VM's requests in service on that GPU, which serves
 *   nothing for the reset; every tenant has a vGPU on every GPU, so it is unavailable only
 *   while all GPUs are down.
 *
 * - LLM tenants (docs/llm.md): an LLM tenant has a VM of its own, whose work is its engine's
 *   steps (vgpu_time.c: each step within the VM's turns or slots under the scheduler, at the
 *   hypervisor's speed on each part of the step; vgpu_mig.c: the engine on the instance's
 *   shares, as MIG serves it). Its KV cache is what the frame buffer leaves after the weights;
 *   weights that do not fit are a load error naming the numbers. On several GPUs its VM has a
 *   vGPU, so an engine, on each, behind the tenant's router (units/router.h; replica g is
 *   GPU g, skipped while GPU g resets); no card faults with the MIG backing (an engine there is
 *   not restarted after a reset).
 *
 * This file parses the strategy and dispatches; each backing is a file of its own
 * (vgpu.h: vgpu_time.c, vgpu_mig.c) that parses its per-vGPU keys and builds the
 * units of a GPU. The policy holds every GPU's units as {ops, self} (policy/units/
 * unit.h), GPU-major, the index being the unit's event id; a tenant has one slot per
 * GPU (the backing says which unit and client), tried in GPU order.
 */
#include "core/engine.h"
#include "core/gpufault.h"
#include "core/policy.h"
#include "core/run.h"
#include "policy/units/router.h"
#include "policy/units/unit.h"
#include "policy/vgpu.h"

#include "core/rate.h"
#include "core/stable.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* EV_UNIT: a timer of some GPU's unit, which the target names (units/unit.h). */
enum { EV_UNIT = EV_POLICY, EV_CARD, EV_CARD_UP };

/* In the order of the values of "backing". */
static const char *const backing_names[] = {"time", "mig", NULL};
static const struct vgpu_backing *const backings[] = {&vgt_backing, &vgm_backing};

struct vg {
    const struct vgpu_cfg *c;
    int n_gpu, per_gpu;
    struct unit *units; /* n_gpu × per_gpu, GPU-major: index = event id */
    int *unit_k;        /* per tenant: its unit among each GPU's */
    int *client;        /* per tenant: its client index in that unit */
    struct gpufault gf;
    int *down;          /* per GPU: resetting after a card fault */
    int n_up;           /* GPUs not resetting */
    double all_down_at; /* since when none is up (n_up 0) */
    /* per tenant: an LLM tenant's router over its VM's engines, one per GPU (replica g = GPU
     * g); NULL for a plain tenant or on one GPU */
    struct router **rt;
    int n_ten_rt;
};

/* ---- parse --------------------------------------------------------------- */

/* A VM holding an LLM tenant holds it alone; its cache is what the frame buffer leaves. */
static int parse_vm_llm(const struct jv *j, const char *p, const struct scenario *sc,
                        struct vg_def *d)
{
    for (int k = 0; k < d->n_ten; k++) {
        const struct tenant_cfg *t = &sc->tenants[d->ten[k]];
        if (!t->llm)
            continue;
        if (d->n_ten > 1)
            return jv_fail(j, p,
                           "LLM tenant \"%s\" shares this VM with %d other tenant%s: an engine "
                           "needs a vGPU of its own (its VM serves its steps, not requests)",
                           t->name, d->n_ten - 1, d->n_ten > 2 ? "s" : "");
        char where[128], err[SS_ERRLEN];
        if (d->mig)
            snprintf(where, sizeof where, "the %s vGPU's %g GB", d->mig->name, d->fb_gb);
        else
            snprintf(where, sizeof where, "the %s vGPU's %g GB frame buffer", d->type->name,
                     d->fb_gb);
        if (lsv_kv_blocks(t->llm, d->fb_gb, where, &d->kv_blocks, err, sizeof err))
            return jv_fail(j, p, "tenant \"%s\": %s", t->name, err);
        d->llm = 1;
    }
    return 0;
}

static int parse_vm_tenants(const struct jv *j, const cJSON *o, const char *p,
                            const struct scenario *sc, struct vgpu_cfg *c, int v)
{
    char q[600], r[700];
    struct vg_def *d = &c->vm[v];
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "tenants");
    jv_path_key(q, sizeof q, p, "tenants");
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
        return jv_fail(j, q, "expected a non-empty array of tenant names");
    d->ten = ss_xmalloc((size_t)cJSON_GetArraySize(arr) * sizeof *d->ten);
    const cJSON *it;
    int k = 0;
    cJSON_ArrayForEach(it, arr)
    {
        jv_path_idx(r, sizeof r, q, k++);
        int ti = cJSON_IsString(it) ? scn_tenant_index(sc, it->valuestring) : -1;
        if (ti < 0)
            return jv_fail(j, r, "expected the name of a tenant");
        if (c->vm_of[ti] >= 0)
            return jv_fail(j, r, "tenant \"%s\" is already in vgpus[%d]", it->valuestring,
                           c->vm_of[ti]);
        if (sc->tenants[ti].memory_gb > d->fb_gb)
            return jv_fail(j, r,
                           "tenant \"%s\" needs %g GB but this vGPU's frame buffer is %g GB: "
                           "rejected at load (the hypervisor enforces fb_gb)",
                           it->valuestring, sc->tenants[ti].memory_gb, d->fb_gb);
        if (sc->tenants[ti].work.concurrency > 1)
            return jv_fail(j, r,
                           "tenant \"%s\" has work.concurrency %d: a vGPU serves one request "
                           "at a time in this model (use exclusive, timeslice, mps or mig for "
                           "concurrent requests)",
                           it->valuestring, sc->tenants[ti].work.concurrency);
        c->vm_of[ti] = v;
        d->ten[d->n_ten++] = ti;
    }
    return parse_vm_llm(j, p, sc, d);
}

static int parse_vm(const struct jv *j, const cJSON *o, const char *p, const struct scenario *sc,
                    struct vgpu_cfg *c, int v)
{
    static const char *const keys[] = {"type", "fb_gb", "weight", "tenants", "profile", NULL};
    struct vg_def *d = &c->vm[v];
    d->weight = 1;
    if (jv_object(j, o, p, keys) || c->backing->parse_vm(j, o, p, sc, c, d))
        return -1;
    return parse_vm_tenants(j, o, p, sc, c, v);
}

/* Coverage, the backing's own checks (vGPU types and counts, MIG slices), then the
 * frame-buffer quotas. */
static int check_layout(const struct jv *j, const char *p, const struct scenario *sc,
                        const struct vgpu_cfg *c)
{
    double fb = 0;
    for (int v = 0; v < c->n_vm; v++)
        fb += c->vm[v].fb_gb;
    for (int i = 0; i < sc->n_tenants; i++)
        if (c->vm_of[i] < 0)
            return jv_fail(j, p, "tenant \"%s\" is in no vGPU", sc->tenants[i].name);
    if (c->backing->check_layout && c->backing->check_layout(j, p, sc, c))
        return -1;
    if (fb > sc->gpu.memory_gb)
        return jv_fail(j, p, "frame-buffer quotas add up to %g GB, a %s has %g GB", fb,
                       sc->gpu.name, sc->gpu.memory_gb);
    return 0;
}

static int parse_vms(const struct jv *j, const cJSON *obj, const char *path,
                     const struct scenario *sc, struct vgpu_cfg *c)
{
    char p[512], q[600];
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, "vgpus");
    jv_path_key(p, sizeof p, path, "vgpus");
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
        return jv_fail(j, p, "expected a non-empty array of vGPUs {\"fb_gb\", \"tenants\"}");
    c->n_vm = cJSON_GetArraySize(arr);
    c->vm = ss_xcalloc((size_t)c->n_vm, sizeof *c->vm);
    for (int i = 0; i < sc->n_tenants; i++)
        c->vm_of[i] = -1;
    const cJSON *item = arr->child; /* walked, not indexed: cJSON_GetArrayItem is O(v) */
    for (int v = 0; v < c->n_vm; v++, item = item->next)
        if (parse_vm(j, item, jv_path_idx(q, sizeof q, p, v), sc, c, v))
            return -1;
    return check_layout(j, p, sc, c);
}

static int vg_parse(const struct jv *j, const cJSON *obj, const char *path,
                    const struct scenario *sc, void **out)
{
    static const char *const keys[] = {"name",      "kind",    "scheduler", "slice_ms",
                                       "switch_us", "backing", "vgpus",     NULL};
    struct vgpu_cfg *c = ss_xcalloc(1, sizeof *c);
    *out = c;
    c->vm_of = ss_xcalloc((size_t)sc->n_tenants, sizeof *c->vm_of);
    double slice_ms = -1, switch_us = sc->gpu.vgpu_switch_s * 1e6;
    int backing = 0;
    char p[512];
    if (jv_object(j, obj, path, keys) ||
        jv_enum(j, obj, path, "scheduler", 0, vgt_schedulers, &c->sched) < 0 ||
        jv_enum(j, obj, path, "backing", 0, backing_names, &backing) < 0 ||
        jv_num_gt(j, obj, path, "slice_ms", 0, 0, 1e4, &slice_ms) < 0 ||
        jv_num(j, obj, path, "switch_us", 0, 0, 1e9, &switch_us) < 0 ||
        (slice_ms >= 0 &&
         jv_at_least(j, path, "slice_ms", slice_ms, SCN_MIN_SLICE_MS, SCN_SLICE_WHY)))
        return -1;
    c->backing = backings[backing];
    for (int k = 0; c->backing->refused && c->backing->refused[k]; k++)
        if (cJSON_GetObjectItemCaseSensitive(obj, c->backing->refused[k]))
            return jv_fail(j, jv_path_key(p, sizeof p, path, c->backing->refused[k]),
                           "%s: remove \"%s\"", c->backing->refused_why, c->backing->refused[k]);
    if (parse_vms(j, obj, path, sc, c))
        return -1;
    for (int v = 0; v < c->n_vm && sc->gpu_fault_rate_per_h > 0; v++)
        if (c->vm[v].llm && c->backing == &vgm_backing)
            return jv_fail(j, path,
                           "LLM tenant \"%s\" on a MIG-backed vGPU: card faults (gpu_fault_rate_"
                           "per_h) restart vGPUs, and an engine is not restarted after a reset",
                           sc->tenants[c->vm[v].ten[0]].name);
    /* NVAIE: 2 ms with up to 8 vGPUs on the GPU, 1 ms with more. */
    c->slice_s = slice_ms > 0   ? slice_ms * 1e-3
                 : c->n_vm <= 8 ? sc->gpu.vgpu_slice_le8_s
                                : sc->gpu.vgpu_slice_gt8_s;
    c->switch_s = switch_us * 1e-6;
    return 0;
}

static void vg_free_cfg(void *cfg)
{
    struct vgpu_cfg *c = cfg;
    for (int v = 0; c->vm && v < c->n_vm; v++)
        free(c->vm[v].ten);
    free(c->vm);
    free(c->vm_of);
    free(c);
}

/* ---- dispatch ------------------------------------------------------------ */

static void *vg_init(struct sim *s, const void *cfgp)
{
    const struct vgpu_cfg *c = cfgp;
    const struct vgpu_backing *b = c->backing;
    struct vg *x = ss_xcalloc(1, sizeof *x);
    x->c = c;
    x->n_gpu = s->sc->gpus;
    x->per_gpu = b->units_per_gpu(c);
    x->units = ss_xcalloc((size_t)x->n_gpu * (size_t)x->per_gpu, sizeof *x->units);
    for (int g = 0; g < x->n_gpu; g++)
        for (int k = 0; k < x->per_gpu; k++) {
            int id = g * x->per_gpu + k;
            x->units[id] = b->build(s->sc, c, k, unit_addr(EV_UNIT, id));
        }
    x->unit_k = ss_xcalloc((size_t)s->n_ten, sizeof *x->unit_k);
    x->client = ss_xcalloc((size_t)s->n_ten, sizeof *x->client);
    for (int t = 0; t < s->n_ten; t++)
        b->slot(c, t, &x->unit_k[t], &x->client[t]);
    x->down = ss_xcalloc((size_t)x->n_gpu, sizeof *x->down);
    x->n_up = x->n_gpu;
    x->rt = ss_xcalloc((size_t)s->n_ten, sizeof *x->rt);
    x->n_ten_rt = s->n_ten;
    for (int t = 0; t < s->n_ten && x->n_gpu > 1; t++) {
        const struct lsv_cfg *l = s->sc->tenants[t].llm;
        if (!l)
            continue;
        x->rt[t] = ss_xmalloc(sizeof *x->rt[t]);
        rt_init(x->rt[t], l->router, x->n_gpu);
        for (int g = 0; g < x->n_gpu; g++)
            rt_add(x->rt[t], x->units[g * x->per_gpu + x->unit_k[t]], x->client[t]);
    }
    gf_start(&x->gf, s, EV_CARD);
    return x;
}

static const struct unit *unit_on(const struct vg *x, int g, int tenant)
{
    return &x->units[g * x->per_gpu + x->unit_k[tenant]];
}

static void vg_arrive(struct sim *s, void *st, int tenant)
{
    struct vg *x = st;
    if (x->rt[tenant]) {
        rt_offer(s, x->rt[tenant], tenant);
        return;
    }
    for (int g = 0; g < x->n_gpu && eng_qlen(s, tenant) > 0; g++) {
        if (x->down[g])
            continue;
        const struct unit *u = unit_on(x, g, tenant);
        u->ops->arrive(s, u->self, x->client[tenant]);
    }
}

/* A card fault: every unit of GPU g drops what it holds; the GPU is down for the reset. */
SS_COLD static void card_fault(struct sim *s, struct vg *x, int g)
{
    if (!gf_fault(&x->gf, s, g) || x->down[g])
        return;
    for (int k = 0; k < x->per_gpu; k++) {
        const struct unit *u = &x->units[g * x->per_gpu + k];
        u->ops->abort(s, u->self);
    }
    x->down[g] = 1;
    for (int t = 0; t < s->n_ten; t++)
        if (x->rt[t])
            rt_set_down(x->rt[t], g, 1);
    if (--x->n_up == 0)
        x->all_down_at = s->now;
    eng_schedule(s, s->now + x->gf.reset_s, EV_CARD_UP, (uint32_t)g, 0, 0);
}

SS_COLD static void card_up(struct sim *s, struct vg *x, int g)
{
    for (int k = 0; k < x->per_gpu; k++) {
        const struct unit *u = &x->units[g * x->per_gpu + k];
        u->ops->resume(s, u->self);
    }
    x->down[g] = 0;
    if (x->n_up++ == 0)
        for (int t = 0; t < s->n_ten; t++)
            eng_down(s, t, x->all_down_at, s->now);
    for (int t = 0; t < s->n_ten; t++)
        if (x->rt[t]) {
            rt_set_down(x->rt[t], g, 0);
            rt_offer(s, x->rt[t], t);
        } else if (eng_qlen(s, t) > 0) {
            const struct unit *u = unit_on(x, g, t);
            u->ops->arrive(s, u->self, x->client[t]);
        }
}

static void vg_on_event(struct sim *s, void *st, const struct event *ev)
{
    struct vg *x = st;
    if (ev->kind == EV_CARD) {
        card_fault(s, x, (int)ev->target);
        return;
    }
    if (ev->kind == EV_CARD_UP) {
        card_up(s, x, (int)ev->target);
        return;
    }
    const struct unit *u = &x->units[unit_ev_id(ev)];
    u->ops->event(s, u->self, ev);
}

static void vg_fault(struct sim *s, void *st, int tenant)
{
    struct vg *x = st;
    /* The first GPU where the tenant's VM holds a request of the tenant takes the fault. */
    for (int g = 0; g < x->n_gpu; g++) {
        const struct unit *u = unit_on(x, g, tenant);
        if (u->ops->fault(s, u->self, x->client[tenant]))
            break;
    }
    /* An engine emptied by the fault takes what waits at its router. */
    if (x->rt[tenant])
        rt_offer(s, x->rt[tenant], tenant);
}

static void vg_finish(struct sim *s, void *st, struct strategy_result *res)
{
    struct vg *x = st;
    const struct vgpu_cfg *c = x->c;
    int n = x->n_gpu * x->per_gpu;
    for (int i = 0; i < n; i++)
        x->units[i].ops->finish(s, x->units[i].self);
    if (x->n_up == 0)
        for (int t = 0; t < s->n_ten; t++)
            eng_down(s, t, x->all_down_at, s->now);
    res->licensed_vgpus = c->n_vm * x->n_gpu;
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "backing", c->backing->name);
    if (c->backing->details)
        c->backing->details(c, x->units, n, d);
    cJSON_AddNumberToObject(d, "vgpus_per_gpu", c->n_vm);
    res->details = d;
}

static void vg_destroy(void *st)
{
    struct vg *x = st;
    for (int i = 0; i < x->n_gpu * x->per_gpu; i++)
        x->units[i].ops->destroy(x->units[i].self);
    free(x->units);
    free(x->unit_k);
    free(x->client);
    free(x->down);
    for (int t = 0; x->rt && t < x->n_ten_rt; t++)
        if (x->rt[t]) {
            rt_free(x->rt[t]);
            free(x->rt[t]);
        }
    free(x->rt);
    gf_free(&x->gf);
    free(x);
}

/* ---- stability ------------------------------------------------------------ */

/*
 * Stability (core/stable.h). A tenant has one slot per GPU (its VM's vGPU there), so its load
 * spreads evenly over the pool. On one GPU, VM v gets a fraction T_v of the time: all of it
 * when MIG-backed (its own instance, at the instance's speed), else what its scheduler gives
 * it, at the hypervisor's speed for the tenant's class (the backing's time_share and speed). Inside
 * a VM the tenants are served FIFO, one request at a time: a tenant keeps what its VM mates leave
 * of T_v.
 */
static void vg_capacity(const struct scenario *sc, const void *cfgp, const double *load,
                        double *cap)
{
    const struct vgpu_cfg *c = cfgp;
    int V = c->n_vm, G = sc->gpus;
    double *speed = ss_xcalloc((size_t)sc->n_tenants, sizeof *speed);
    double *demand = ss_xcalloc((size_t)V, sizeof *demand);
    for (int v = 0; v < V; v++) {
        const struct vg_def *d = &c->vm[v];
        for (int k = 0; k < d->n_ten; k++) {
            int i = d->ten[k];
            speed[i] = c->backing->speed(sc, d, &sc->tenants[i]);
            demand[v] += load[i] / G / speed[i]; /* the VM's time, on one GPU */
        }
    }
    for (int v = 0; v < V; v++) {
        const struct vg_def *d = &c->vm[v];
        double t = c->backing->time_share(c, v, demand);
        for (int k = 0; k < d->n_ten; k++) {
            int i = d->ten[k];
            double left = t;
            for (int m = 0; m < d->n_ten; m++)
                if (m != k)
                    left -= load[d->ten[m]] / G / speed[d->ten[m]];
            cap[i] = isnan(left) ? NAN : G * speed[i] * (left > 0 ? left : 0);
        }
    }
    free(speed);
    free(demand);
}

const struct policy_ops policy_vgpu = {
    .kind = "vgpu",
    .parse = vg_parse,
    .free_cfg = vg_free_cfg,
    .init = vg_init,
    .arrive = vg_arrive,
    .on_event = vg_on_event,
    .fault = vg_fault,
    .finish = vg_finish,
    .destroy = vg_destroy,
    .hooks = &policy_hooks_vgpu,
    .capacity = vg_capacity,
    .serves_llm = 1,
    .no_tp = "a vGPU is a share of one GPU in a VM (NVIDIA vGPU gives peer-to-peer over NVLink "
             "only to vGPUs holding a whole GPU's frame buffer, never to MIG-backed ones), so a "
             "group cannot span vGPUs",
};
