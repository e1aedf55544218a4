/*
 * policy_vgpu — NVIDIA vGPU (kind "vgpu"): VMs, each owning one vGPU with a
 * frame-buffer quota, on every GPU of the pool (the "vgpus" layout is applied to
 * each GPU, so a tenant has one slot per GPU and gpus × vGPUs licences are
 * billed). docs/mps-vgpu.md states the model; in short:
 *
 * - A vGPU (VM) holds at most one request in service, taken FIFO by arrival time
 *   over the queues of the tenants inside that VM.
 * - Time-sliced backing (default): one VM runs at a time. A turn lasts up to
 *   slice × weight of run time; loading another VM's context first costs the
 *   switch time (no work done; reported as switch_overhead). At the end of a turn
 *   the request in service is preempted and keeps its remaining work (preemptive
 *   resume). The very first context needs no switch.
 *     best_effort  round robin over the VMs with work; a VM that runs out of
 *                  work ends its turn at once; a lone VM with work keeps the GPU
 *                  without switching.
 *     equal_share  the same, with every VM's turn one slice (weights are refused:
 *                  an equal share has none).
 *     fixed_share  a fixed time-division cycle over all VMs (slot = slice ×
 *                  weight, in vgpus order), whether a VM has work or not: a VM
 *                  without work leaves its slot idle, and the switch into a VM
 *                  is taken out of its own slot.
 * - MIG-backed ("backing": "mig"): each vGPU is a MIG instance with its profile's
 *   SMs and memory slices, isolated and running concurrently; no time slicing.
 * - Faults: only the faulting tenant's request in service in its VM fails (the
 *   VM's own in-flight work); the VM is usable again at once.
 *
 * Invariants: per GPU exactly one pending scheduler event carries the GPU's
 * current version (older ones are skipped); a GPU in PH_IDLE has no VM with
 * work; has_req marks a request held by a VM (running or preempted).
 */
#include "core/engine.h"
#include "core/policy.h"
#include "core/rate.h"
#include "core/run.h"
#include "core/stable.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EV_VG_SCHED = EV_POLICY, EV_VG_MIG_DONE };
enum { SCH_BEST_EFFORT, SCH_EQUAL_SHARE, SCH_FIXED_SHARE };
enum { PH_IDLE, PH_SWITCH, PH_RUN, PH_HOLD };
enum { AUX_SWITCH_END, AUX_DONE, AUX_TURN_END };

static const char *const sched_names[] = {"best_effort", "equal_share", "fixed_share", NULL};

struct vg_def {
    double fb_gb;
    double weight;
    double turn_s;   /* slice × weight (equal_share: slice) */
    double offset_s; /* fixed_share: start of its slot in the cycle */
    int n_ten;
    int *ten;
    const struct mig_profile *mig; /* MIG-backed only */
};

struct vgpu_cfg {
    int n_vm; /* vGPUs per GPU */
    struct vg_def *vm;
    int sched;
    int mig_backed;
    double slice_s, switch_s;
    double cycle_s; /* fixed_share: Σ turn_s */
    int *vm_of;     /* per tenant */
};

struct vm_rt {
    struct request req;
    int has_req;
    double t_run;     /* MIG-backed: start of the current service */
    uint32_t version; /* MIG-backed: completion events */
};

struct vg_gpu {
    int phase;
    int cur;    /* VM whose turn or slot it is */
    int loaded; /* VM whose context is on the GPU; -1 before any */
    double t_phase;
    double turn_end;
    long slot; /* fixed_share: slots since t = 0; VM = slot mod n_vm */
    uint32_t version;
    long switches;
};

struct vg {
    const struct vgpu_cfg *c;
    const struct scenario *sc;
    int n_gpu;
    struct vm_rt *vm; /* n_gpu × n_vm, GPU-major */
    struct vg_gpu *gpu;
};

/* ---- parse --------------------------------------------------------------- */

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
        c->vm_of[ti] = v;
        d->ten[d->n_ten++] = ti;
    }
    return 0;
}

/* MIG backing: the profile, and an fb_gb that fits the instance (default: all of it). */
static int parse_vm_mig(const struct jv *j, const cJSON *o, const char *p,
                        const struct scenario *sc, struct vg_def *d)
{
    const char *name;
    char q[600];
    if (jv_str(j, o, p, "profile", 1, &name))
        return -1;
    d->mig = cal_mig_find(&sc->gpu, name);
    if (!d->mig)
        return jv_fail(j, jv_path_key(q, sizeof q, p, "profile"),
                       "the %s has no MIG profile \"%s\"", sc->gpu.name, name);
    d->fb_gb = d->mig->memory_gb;
    if (jv_num_gt(j, o, p, "fb_gb", 0, 0, 1e5, &d->fb_gb) < 0)
        return -1;
    if (d->fb_gb > d->mig->memory_gb)
        return jv_fail(j, jv_path_key(q, sizeof q, p, "fb_gb"),
                       "%g GB does not fit MIG instance %s (%g GB)", d->fb_gb, d->mig->name,
                       d->mig->memory_gb);
    if (cJSON_GetObjectItemCaseSensitive(o, "weight"))
        return jv_fail(j, jv_path_key(q, sizeof q, p, "weight"),
                       "a MIG-backed vGPU is not time-sliced: weight has no effect");
    return 0;
}

static int parse_vm(const struct jv *j, const cJSON *o, const char *p, const struct scenario *sc,
                    struct vgpu_cfg *c, int v)
{
    static const char *const keys[] = {"fb_gb", "weight", "tenants", "profile", NULL};
    struct vg_def *d = &c->vm[v];
    char q[600];
    d->weight = 1;
    if (jv_object(j, o, p, keys))
        return -1;
    if (c->mig_backed) {
        if (parse_vm_mig(j, o, p, sc, d))
            return -1;
    } else {
        if (cJSON_GetObjectItemCaseSensitive(o, "profile"))
            return jv_fail(j, jv_path_key(q, sizeof q, p, "profile"),
                           "a MIG profile needs \"backing\": \"mig\"");
        if (jv_num_gt(j, o, p, "fb_gb", 1, 0, 1e5, &d->fb_gb) ||
            jv_num_gt(j, o, p, "weight", 0, 0, 1e4, &d->weight) < 0)
            return -1;
        if (c->sched == SCH_EQUAL_SHARE && d->weight != 1)
            return jv_fail(j, jv_path_key(q, sizeof q, p, "weight"),
                           "equal_share gives every vGPU the same share; weights need "
                           "best_effort or fixed_share");
    }
    return parse_vm_tenants(j, o, p, sc, c, v);
}

/* Quotas, coverage and (MIG-backed) a slice-sum check of the layout. */
static int check_layout(const struct jv *j, const char *p, const struct scenario *sc,
                        const struct vgpu_cfg *c)
{
    double fb = 0;
    int cs = 0, ms = 0;
    for (int v = 0; v < c->n_vm; v++) {
        fb += c->vm[v].fb_gb;
        if (c->vm[v].mig) {
            cs += c->vm[v].mig->compute_slices;
            ms += c->vm[v].mig->memory_slices;
        }
    }
    for (int i = 0; i < sc->n_tenants; i++)
        if (c->vm_of[i] < 0)
            return jv_fail(j, p, "tenant \"%s\" is in no vGPU", sc->tenants[i].name);
    if (fb > sc->gpu.memory_gb)
        return jv_fail(j, p, "frame-buffer quotas add up to %g GB, a %s has %g GB", fb,
                       sc->gpu.name, sc->gpu.memory_gb);
    /* Sums only: the exact placement rules (legal starts) belong to the MIG policy. */
    if (cs > sc->gpu.mig_compute_slices || ms > sc->gpu.mig_memory_slices)
        return jv_fail(j, p,
                       "the MIG instances need %d compute and %d memory slices, a %s has %d "
                       "and %d",
                       cs, ms, sc->gpu.name, sc->gpu.mig_compute_slices, sc->gpu.mig_memory_slices);
    for (int v = 0; v < c->n_vm; v++) {
        int same = 0;
        for (int u = 0; u < c->n_vm; u++)
            same += c->vm[u].mig && c->vm[u].mig == c->vm[v].mig;
        if (c->vm[v].mig && same > c->vm[v].mig->max_instances)
            return jv_fail(j, p, "%d instances of %s, a %s allows %d", same, c->vm[v].mig->name,
                           sc->gpu.name, c->vm[v].mig->max_instances);
    }
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
    for (int v = 0; v < c->n_vm; v++)
        if (parse_vm(j, cJSON_GetArrayItem(arr, v), jv_path_idx(q, sizeof q, p, v), sc, c, v))
            return -1;
    return check_layout(j, p, sc, c);
}

/* Turn lengths and the fixed_share cycle, once the slice is known. */
static void set_turns(struct vgpu_cfg *c)
{
    c->cycle_s = 0;
    for (int v = 0; v < c->n_vm; v++) {
        struct vg_def *d = &c->vm[v];
        d->turn_s = c->slice_s * (c->sched == SCH_EQUAL_SHARE ? 1 : d->weight);
        d->offset_s = c->cycle_s;
        c->cycle_s += d->turn_s;
    }
}

static int vg_parse(const struct jv *j, const cJSON *obj, const char *path,
                    const struct scenario *sc, void **out)
{
    static const char *const keys[] = {"name",      "kind",    "scheduler", "slice_ms",
                                       "switch_us", "backing", "vgpus",     NULL};
    static const char *const backings[] = {"time", "mig", NULL};
    static const char *const time_only[] = {"scheduler", "slice_ms", "switch_us", NULL};
    struct vgpu_cfg *c = ss_xcalloc(1, sizeof *c);
    *out = c;
    c->vm_of = ss_xcalloc((size_t)sc->n_tenants, sizeof *c->vm_of);
    double slice_ms = -1, switch_us = sc->gpu.vgpu_switch_s * 1e6;
    char p[512];
    if (jv_object(j, obj, path, keys) ||
        jv_enum(j, obj, path, "scheduler", 0, sched_names, &c->sched) < 0 ||
        jv_enum(j, obj, path, "backing", 0, backings, &c->mig_backed) < 0 ||
        jv_num_gt(j, obj, path, "slice_ms", 0, 0, 1e4, &slice_ms) < 0 ||
        jv_num(j, obj, path, "switch_us", 0, 0, 1e9, &switch_us) < 0)
        return -1;
    for (int k = 0; c->mig_backed && time_only[k]; k++)
        if (cJSON_GetObjectItemCaseSensitive(obj, time_only[k]))
            return jv_fail(j, jv_path_key(p, sizeof p, path, time_only[k]),
                           "a MIG-backed vGPU is not time-sliced: remove \"%s\"", time_only[k]);
    if (parse_vms(j, obj, path, sc, c))
        return -1;
    /* NVAIE: 2 ms with up to 8 vGPUs on the GPU, 1 ms with more. */
    c->slice_s = slice_ms > 0   ? slice_ms * 1e-3
                 : c->n_vm <= 8 ? sc->gpu.vgpu_slice_le8_s
                                : sc->gpu.vgpu_slice_gt8_s;
    c->switch_s = switch_us * 1e-6;
    set_turns(c);
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

/* ---- VMs and their tenants' queues --------------------------------------- */

/* The VM's tenant whose oldest waiting request arrived first, or -1. */
static int vm_pick_tenant(const struct sim *s, const struct vg_def *d)
{
    int best = -1;
    double t_best = 0;
    for (int k = 0; k < d->n_ten; k++) {
        const struct rqueue *q = &s->ten[d->ten[k]].q;
        if (q->n == 0)
            continue;
        double t = q->buf[q->head].arrival;
        if (best < 0 || t < t_best) {
            best = d->ten[k];
            t_best = t;
        }
    }
    return best;
}

static struct vm_rt *vm_at(struct vg *x, int g, int v)
{
    return &x->vm[(size_t)g * (size_t)x->c->n_vm + (size_t)v];
}

static int vm_has_work(const struct sim *s, struct vg *x, int g, int v)
{
    return vm_at(x, g, v)->has_req || vm_pick_tenant(s, &x->c->vm[v]) >= 0;
}

/* Makes sure the VM holds a request; 0 if it has no work. */
static int vm_load(struct sim *s, struct vg *x, int g, int v)
{
    struct vm_rt *m = vm_at(x, g, v);
    if (m->has_req)
        return 1;
    int t = vm_pick_tenant(s, &x->c->vm[v]);
    if (t < 0)
        return 0;
    eng_pop(s, t, &m->req);
    m->has_req = 1;
    return 1;
}

/* ---- time-sliced scheduler (one per GPU) --------------------------------- */

static void arm(struct sim *s, struct vg_gpu *gp, int g, double t, int aux)
{
    gp->version++;
    eng_schedule(s, t, EV_VG_SCHED, (uint32_t)g, gp->version, (uint32_t)aux);
}

static void ts_next(struct sim *s, struct vg *x, int g);

/* Runs the current VM's request until it completes or the turn ends. */
static void ts_run(struct sim *s, struct vg *x, int g)
{
    struct vg_gpu *gp = &x->gpu[g];
    if (!vm_load(s, x, g, gp->cur)) {
        if (x->c->sched != SCH_FIXED_SHARE || s->now >= gp->turn_end) {
            ts_next(s, x, g);
            return;
        }
        gp->phase = PH_HOLD; /* fixed share: the slot is this VM's, used or not */
        arm(s, gp, g, gp->turn_end, AUX_TURN_END);
        return;
    }
    struct request *r = &vm_at(x, g, gp->cur)->req;
    gp->loaded = gp->cur;
    gp->phase = PH_RUN;
    gp->t_phase = s->now;
    if (s->now + r->work <= gp->turn_end)
        arm(s, gp, g, s->now + r->work, AUX_DONE);
    else
        arm(s, gp, g, gp->turn_end, AUX_TURN_END);
}

/* Starts the run part of a turn, after the switch if one was needed. */
static void ts_turn_clock(struct sim *s, struct vg *x, struct vg_gpu *gp)
{
    if (x->c->sched != SCH_FIXED_SHARE)
        gp->turn_end = s->now + x->c->vm[gp->cur].turn_s;
}

/* Gives the GPU to VM gp->cur: switch first if another context is loaded. */
static void ts_begin(struct sim *s, struct vg *x, int g)
{
    struct vg_gpu *gp = &x->gpu[g];
    int fixed = x->c->sched == SCH_FIXED_SHARE;
    if (fixed && !vm_has_work(s, x, g, gp->cur)) {
        ts_run(s, x, g); /* holds the slot */
        return;
    }
    if (gp->loaded < 0 || gp->loaded == gp->cur) {
        ts_turn_clock(s, x, gp);
        ts_run(s, x, g);
        return;
    }
    if (fixed && s->now + x->c->switch_s >= gp->turn_end) {
        gp->phase = PH_HOLD; /* the switch would not fit what is left of the slot */
        arm(s, gp, g, gp->turn_end, AUX_TURN_END);
        return;
    }
    gp->phase = PH_SWITCH;
    gp->t_phase = s->now;
    arm(s, gp, g, s->now + x->c->switch_s, AUX_SWITCH_END);
}

/* fixed_share: slot k belongs to VM k mod n and ends at cycle·C + offset + turn. */
static void fixed_set_slot(struct vg *x, struct vg_gpu *gp, long slot)
{
    const struct vgpu_cfg *c = x->c;
    long cyc = slot / c->n_vm;
    gp->slot = slot;
    gp->cur = (int)(slot % c->n_vm);
    gp->turn_end = (double)cyc * c->cycle_s + c->vm[gp->cur].offset_s + c->vm[gp->cur].turn_s;
}

/* fixed_share: finds the slot that contains `now` (after the GPU was parked). */
static void fixed_resync(struct sim *s, struct vg *x, struct vg_gpu *gp)
{
    long slot = (long)floor(s->now / x->c->cycle_s) * x->c->n_vm;
    for (fixed_set_slot(x, gp, slot); s->now >= gp->turn_end;)
        fixed_set_slot(x, gp, ++slot);
}

static int gpu_has_work(const struct sim *s, struct vg *x, int g)
{
    for (int v = 0; v < x->c->n_vm; v++)
        if (vm_has_work(s, x, g, v))
            return 1;
    return 0;
}

/* The current turn is over: pass the GPU on, or park it when nobody has work. */
static void ts_next(struct sim *s, struct vg *x, int g)
{
    struct vg_gpu *gp = &x->gpu[g];
    int n = x->c->n_vm;
    if (!gpu_has_work(s, x, g)) {
        gp->phase = PH_IDLE;
        gp->version++; /* nothing pending */
        return;
    }
    if (x->c->sched == SCH_FIXED_SHARE) {
        fixed_set_slot(x, gp, gp->slot + 1);
    } else {
        int v = gp->cur;
        do
            v = (v + 1) % n;
        while (!vm_has_work(s, x, g, v));
        gp->cur = v;
    }
    ts_begin(s, x, g);
}

/* After a request of the running VM ended (completed or failed). */
static void ts_after_request(struct sim *s, struct vg *x, int g)
{
    if (s->now < x->gpu[g].turn_end)
        ts_run(s, x, g);
    else
        ts_next(s, x, g);
}

static void ts_event(struct sim *s, struct vg *x, const struct event *ev)
{
    int g = (int)ev->target;
    struct vg_gpu *gp = &x->gpu[g];
    if (ev->version != gp->version)
        return;
    struct vm_rt *m = vm_at(x, g, gp->cur);
    switch (ev->aux) {
    case AUX_SWITCH_END:
        eng_switching(s, 1.0, gp->t_phase, s->now);
        gp->switches++;
        ts_turn_clock(s, x, gp);
        ts_run(s, x, g);
        break;
    case AUX_DONE:
        eng_busy(s, 1.0, gp->t_phase, s->now);
        m->req.work = 0;
        eng_complete(s, &m->req);
        m->has_req = 0;
        ts_after_request(s, x, g);
        break;
    default: /* AUX_TURN_END: preempt, keeping the remaining work */
        if (gp->phase == PH_RUN) {
            eng_busy(s, 1.0, gp->t_phase, s->now);
            m->req.work -= s->now - gp->t_phase;
            if (m->req.work < 0)
                m->req.work = 0;
        }
        ts_next(s, x, g);
        break;
    }
}

/* A request of VM v was queued: wake parked GPUs, or the VM holding its own idle slot. */
static void ts_arrive(struct sim *s, struct vg *x, int tenant, int v)
{
    for (int g = 0; g < x->n_gpu && eng_qlen(s, tenant) > 0; g++) {
        struct vg_gpu *gp = &x->gpu[g];
        if (gp->phase == PH_IDLE) {
            if (x->c->sched == SCH_FIXED_SHARE)
                fixed_resync(s, x, gp);
            else
                gp->cur = v;
            ts_begin(s, x, g);
        } else if (gp->phase == PH_HOLD && gp->cur == v) {
            ts_begin(s, x, g);
        }
    }
}

static void ts_fault(struct sim *s, struct vg *x, int tenant, int v)
{
    for (int g = 0; g < x->n_gpu; g++) {
        struct vm_rt *m = vm_at(x, g, v);
        struct vg_gpu *gp = &x->gpu[g];
        if (!m->has_req || m->req.tenant != tenant)
            continue;
        int running = gp->phase == PH_RUN && gp->cur == v;
        if (running)
            eng_busy(s, 1.0, gp->t_phase, s->now);
        eng_fail(s, &m->req);
        m->has_req = 0;
        if (running)
            ts_after_request(s, x, g);
        return;
    }
}

/* ---- MIG-backed: isolated instances --------------------------------------- */

static double mig_util(const struct sim *s, const struct vg_def *d)
{
    return (double)d->mig->compute_slices / s->sc->gpu.mig_compute_slices;
}

static void mig_start(struct sim *s, struct vg *x, int g, int v)
{
    struct vm_rt *m = vm_at(x, g, v);
    if (m->has_req || !vm_load(s, x, g, v))
        return;
    const struct vg_def *d = &x->c->vm[v];
    const struct gpu_profile *gpu = &s->sc->gpu;
    double speed =
        rate_speed(gpu, &s->sc->tenants[m->req.tenant], (double)d->mig->sm_count / gpu->total_sms,
                   (double)d->mig->memory_slices / gpu->mig_memory_slices);
    SS_ASSERT(speed > 0);
    m->t_run = s->now;
    m->version++;
    eng_schedule(s, s->now + m->req.work / speed, EV_VG_MIG_DONE, (uint32_t)(g * x->c->n_vm + v),
                 m->version, 0);
}

static void mig_event(struct sim *s, struct vg *x, const struct event *ev)
{
    int g = (int)ev->target / x->c->n_vm, v = (int)ev->target % x->c->n_vm;
    struct vm_rt *m = vm_at(x, g, v);
    if (!m->has_req || ev->version != m->version)
        return;
    eng_busy(s, mig_util(s, &x->c->vm[v]), m->t_run, s->now);
    eng_complete(s, &m->req);
    m->has_req = 0;
    mig_start(s, x, g, v);
}

static void mig_fault(struct sim *s, struct vg *x, int tenant, int v)
{
    for (int g = 0; g < x->n_gpu; g++) {
        struct vm_rt *m = vm_at(x, g, v);
        if (!m->has_req || m->req.tenant != tenant)
            continue;
        eng_busy(s, mig_util(s, &x->c->vm[v]), m->t_run, s->now);
        eng_fail(s, &m->req);
        m->has_req = 0;
        m->version++;
        mig_start(s, x, g, v);
        return;
    }
}

/* ---- policy_ops ------------------------------------------------------------ */

static void *vg_init(struct sim *s, const void *cfgp)
{
    const struct vgpu_cfg *c = cfgp;
    struct vg *x = ss_xcalloc(1, sizeof *x);
    x->c = c;
    x->sc = s->sc;
    x->n_gpu = s->sc->gpus;
    x->vm = ss_xcalloc((size_t)x->n_gpu * (size_t)c->n_vm, sizeof *x->vm);
    x->gpu = ss_xcalloc((size_t)x->n_gpu, sizeof *x->gpu);
    for (int g = 0; g < x->n_gpu; g++) {
        x->gpu[g].loaded = -1;
        x->gpu[g].slot = -1;
    }
    return x;
}

static void vg_arrive(struct sim *s, void *st, int tenant)
{
    struct vg *x = st;
    int v = x->c->vm_of[tenant];
    if (!x->c->mig_backed) {
        ts_arrive(s, x, tenant, v);
        return;
    }
    for (int g = 0; g < x->n_gpu && eng_qlen(s, tenant) > 0; g++)
        mig_start(s, x, g, v);
}

static void vg_on_event(struct sim *s, void *st, const struct event *ev)
{
    struct vg *x = st;
    if (ev->kind == EV_VG_SCHED)
        ts_event(s, x, ev);
    else
        mig_event(s, x, ev);
}

static void vg_fault(struct sim *s, void *st, int tenant)
{
    struct vg *x = st;
    int v = x->c->vm_of[tenant];
    if (x->c->mig_backed)
        mig_fault(s, x, tenant, v);
    else
        ts_fault(s, x, tenant, v);
}

static void vg_finish(struct sim *s, void *st, struct strategy_result *res)
{
    struct vg *x = st;
    const struct vgpu_cfg *c = x->c;
    long switches = 0;
    for (int g = 0; g < x->n_gpu; g++) {
        struct vg_gpu *gp = &x->gpu[g];
        if (gp->phase == PH_RUN)
            eng_busy(s, 1.0, gp->t_phase, s->now);
        else if (gp->phase == PH_SWITCH)
            eng_switching(s, 1.0, gp->t_phase, s->now);
        for (int v = 0; c->mig_backed && v < c->n_vm; v++)
            if (vm_at(x, g, v)->has_req)
                eng_busy(s, mig_util(s, &c->vm[v]), vm_at(x, g, v)->t_run, s->now);
        switches += gp->switches;
    }
    res->licensed_vgpus = c->n_vm * x->n_gpu;
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "backing", c->mig_backed ? "mig" : "time");
    if (!c->mig_backed) {
        cJSON_AddStringToObject(d, "scheduler", sched_names[c->sched]);
        cJSON_AddNumberToObject(d, "slice_ms", c->slice_s * 1e3);
        cJSON_AddNumberToObject(d, "switch_us", c->switch_s * 1e6);
        cJSON_AddNumberToObject(d, "switches", (double)switches);
    }
    cJSON_AddNumberToObject(d, "vgpus_per_gpu", c->n_vm);
    res->details = d;
}

static void vg_destroy(void *st)
{
    struct vg *x = st;
    free(x->vm);
    free(x->gpu);
    free(x);
}

/* ---- stability ------------------------------------------------------------ */

/*
 * Stability (core/stable.h). A tenant has one slot per GPU (its VM's vGPU there), so its load
 * spreads evenly over the pool. On one GPU, VM v gets a fraction T_v of the time: all of it
 * when MIG-backed (its own instance, at the instance's speed) or alone; its slot, less the
 * switch into it, under fixed_share; under best_effort and equal_share the fair share
 * (weighted by turn length) of the time the GPU works when every turn ends in a switch,
 * Σ turn / (Σ turn + vGPUs × switch), left by the other VMs' demands. Inside a VM the tenants
 * are served FIFO, one request at a time: a tenant keeps what its VM mates leave of T_v.
 */
static void vg_capacity(const struct scenario *sc, const void *cfgp, const double *load,
                        double *cap)
{
    const struct vgpu_cfg *c = cfgp;
    const struct gpu_profile *gpu = &sc->gpu;
    int V = c->n_vm, G = sc->gpus;
    double *speed = ss_xcalloc((size_t)sc->n_tenants, sizeof *speed);
    double *demand = ss_xcalloc((size_t)V, sizeof *demand),
           *turn = ss_xcalloc((size_t)V, sizeof *turn);
    double turns = 0;
    for (int v = 0; v < V; v++) {
        const struct vg_def *d = &c->vm[v];
        for (int k = 0; k < d->n_ten; k++) {
            int i = d->ten[k];
            speed[i] =
                d->mig ? rate_speed(gpu, &sc->tenants[i], (double)d->mig->sm_count / gpu->total_sms,
                                    (double)d->mig->memory_slices / gpu->mig_memory_slices)
                       : 1;
            demand[v] += load[i] / G / speed[i]; /* the VM's time, on one GPU */
        }
        turn[v] = d->turn_s;
        turns += d->turn_s;
    }
    for (int v = 0; v < V; v++) {
        const struct vg_def *d = &c->vm[v];
        double t = 1; /* MIG-backed, or alone on the GPU */
        if (c->mig_backed || V == 1)
            ;
        else if (c->sched == SCH_FIXED_SHARE)
            t = fmax(0, d->turn_s - c->switch_s) / c->cycle_s;
        else
            t = stab_fair_share(V, demand, turn, v, turns / (turns + V * c->switch_s));
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
    free(turn);
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
};
