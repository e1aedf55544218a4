/*
 * vgpu_time — time-sliced vGPU ("backing": "time", the default): one scheduler per
 * GPU runs one VM at a time (the rules are in policy_vgpu.c and docs/mps-vgpu.md).
 * Each GPU's scheduler is a unit (policy/units/unit.h) whose clients are all the
 * tenants of the scenario (client k = tenant k, in VM vm_of[k]), since every VM has
 * a vGPU on every GPU.
 *
 * Two kinds of scheduler (VGPU_UG, NVAIE "Scheduling policies"):
 * - work-conserving round robin over the VMs with work (best_effort; and
 *   hypothetical_weighted, the article's weighted round robin, turn = slice × weight);
 * - a fixed cycle of slots of one slice each, kept whether their VM has work or not
 *   (cyclic): equal_share has one slot per running vGPU, so each gets 1/N of the time;
 *   fixed_share has one slot per vGPU the type allows on the GPU (its max_per_gpu), so
 *   each gets 1/max whatever else runs, and the slots no vGPU owns stay idle.
 * A running VM processes work at the hypervisor's speed for its tenant's class (the
 * profile's vgpu_overhead_compute / _memory, COLFAX).
 *
 * An LLM tenant's VM (its only tenant, vg_def.llm) runs its engine (policy/units/llmengine.h),
 * which takes every request as it arrives: the VM's request is the engine's step in flight,
 * lasting the roofline of the step at the hypervisor's speeds on each of its parts —
 * max(tc / (1 − vgpu_overhead_compute), tm / (1 − vgpu_overhead_memory)) + overhead, the
 * overheads a plain tenant's compute and memory work pay — run in the VM's turns or slots and
 * preempted at their end (its remaining time kept) like any request; when it ends inside a
 * turn the next step starts at once. Simultaneous arrivals: a VM that gets the GPU on an arrival
 * (the same VM, the same switch as without it) with no switch to pay, other arrivals of its
 * tenant being due at the instant, waits in PH_BEGIN for its engine's begin timer, so its step
 * holds every arrival of the instant; after a switch the
 * step begins at the switch's end. A fault fails every request the engine holds.
 *
 * Invariants: exactly one pending timer carries the unit's current version (older
 * ones are skipped), except in PH_BEGIN, where the engine's begin timer is the one due; a unit in
 * PH_IDLE has no VM with work; has_req marks a request held by a VM (running or preempted); cur is
 * -1 only in a cyclic slot no VM owns.
 */
#include "core/engine.h"
#include "core/rate.h"
#include "core/stable.h"
#include "policy/units/llmengine.h"
#include "policy/vgpu.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const vgt_schedulers[] = {"best_effort", "equal_share", "fixed_share",
                                      "hypothetical_weighted", NULL};

/* PH_BEGIN: the GPU is an LLM VM's, its context loaded, its step waiting for the engine's
 * begin timer (VGT_BEGIN, versioned by the engine: llmengine.h, le_defer). */
enum { PH_IDLE, PH_SWITCH, PH_RUN, PH_HOLD, PH_BEGIN };
enum { VGT_SWITCH_END, VGT_DONE, VGT_TURN_END, VGT_BEGIN, VGT_TIMERS };
_Static_assert((int)VGT_TIMERS <= (int)UNIT_TIMERS, "a unit has at most UNIT_TIMERS timers");

struct vgt_vm {
    struct request req; /* an LLM VM's: its step in flight */
    int has_req;
    struct llm_engine *llm; /* an LLM tenant's VM: its engine; NULL otherwise */
};

struct vgt_unit {
    struct unit_addr ev;
    const struct vgpu_cfg *c;
    struct vgt_vm *vm; /* per vGPU */
    double *turn_s;    /* per vGPU, work-conserving: slice (× weight, hypothetical) */
    double *speed;     /* per tenant: its work per second on the vGPU (the overhead) */
    int cyclic;        /* equal_share, fixed_share: a fixed cycle of slots */
    int n_slot;        /* cyclic: slots per cycle (slot k < n_vm belongs to VM k) */
    int phase;
    int cur;    /* VM whose turn or slot it is; -1 in a slot no VM owns */
    int loaded; /* VM whose context is on the GPU; -1 before any */
    double t_phase;
    double turn_end;
    long slot;    /* cyclic: slots since t = 0 */
    int arriving; /* VM whose arrival vgt_arrive is handling; -1 otherwise */
    uint32_t version;
    long switches;
    double busy_s;
};

static int vgt_is_cyclic(int sched)
{
    return sched == SCH_EQUAL_SHARE || sched == SCH_FIXED_SHARE;
}

static double vgt_class_speed(const struct gpu_profile *g, const struct tenant_cfg *t)
{
    /* The hypervisor's cost by class, blended like the rate model's phases. */
    double sc = 1 - g->vgpu_overhead_compute, sm = 1 - g->vgpu_overhead_memory;
    switch (t->wclass) {
    case CLASS_COMPUTE:
        return sc;
    case CLASS_MEMORY:
        return sm;
    case CLASS_MIXED:
        break;
    }
    return 1.0 / (t->compute_share / sc + (1 - t->compute_share) / sm);
}

/* ---- VMs and their tenants' queues --------------------------------------- */

static int vgt_vm_has_work(const struct sim *s, const struct vgt_unit *u, int v)
{
    const struct vg_def *d = &u->c->vm[v];
    return u->vm[v].has_req || unit_oldest(s, d->n_ten, d->ten) >= 0 ||
           (u->vm[v].llm && le_has_work(u->vm[v].llm));
}

/* The hypervisor's speed on a step's compute and memory parts (vgt_class_speed's). */
static double vgt_llm_step_s(const struct gpu_profile *g, const struct llm_engine *e)
{
    return le_time_s(e, 1 - g->vgpu_overhead_compute, 1 - g->vgpu_overhead_memory);
}

/* An LLM VM's next step, as the request it holds; 0 when its engine has nothing to run. */
static int vgt_llm_load(struct sim *s, struct vgt_vm *m)
{
    le_take_all(s, m->llm);
    if (!le_begin(s, m->llm))
        return 0;
    memset(&m->req, 0, sizeof m->req);
    m->req.tenant = m->llm->tenant;
    m->req.work = vgt_llm_step_s(&s->sc->gpu, m->llm);
    m->has_req = 1;
    return 1;
}

/* Makes sure the VM holds a request; 0 if it has no work. */
static int vgt_vm_load(struct sim *s, struct vgt_unit *u, int v)
{
    struct vgt_vm *m = &u->vm[v];
    if (m->has_req)
        return 1;
    if (m->llm)
        return vgt_llm_load(s, m);
    const struct vg_def *d = &u->c->vm[v];
    int k = unit_oldest(s, d->n_ten, d->ten);
    if (k < 0)
        return 0;
    eng_pop(s, d->ten[k], &m->req);
    m->has_req = 1;
    return 1;
}

/* ---- the scheduler ------------------------------------------------------- */

static void vgt_arm(struct sim *s, struct vgt_unit *u, double t, unsigned timer)
{
    u->version++;
    unit_schedule(s, u->ev, t, timer, u->version, 0);
}

/* The GPU ran the current VM's request since t_phase, with the SMs it keeps busy. */
static void vgt_book_busy(struct sim *s, struct vgt_unit *u)
{
    const struct tenant_cfg *t = &s->sc->tenants[u->vm[u->cur].req.tenant];
    eng_busy(s, rate_sm_in_use(t, 1.0, 1), u->t_phase, s->now);
    u->busy_s += eng_clip(s, u->t_phase, s->now);
}

static void vgt_next(struct sim *s, struct vgt_unit *u);

/* Runs the current VM's request until it completes or the turn ends; an LLM VM given the GPU
 * on its arrival waits for its begin timer first. */
static void vgt_run(struct sim *s, struct vgt_unit *u)
{
    struct vgt_vm *m = u->cur >= 0 ? &u->vm[u->cur] : NULL;
    if (m && m->llm && !m->has_req && u->arriving == u->cur &&
        le_defer(s, m->llm, u->ev, VGT_BEGIN, (uint32_t)u->cur)) {
        u->loaded = u->cur;
        u->phase = PH_BEGIN;
        return;
    }
    if (u->cur < 0 || !vgt_vm_load(s, u, u->cur)) {
        if (!u->cyclic || s->now >= u->turn_end) {
            vgt_next(s, u);
            return;
        }
        u->phase = PH_HOLD; /* a cyclic slot is its VM's (or nobody's), used or not */
        vgt_arm(s, u, u->turn_end, VGT_TURN_END);
        return;
    }
    struct request *r = &u->vm[u->cur].req;
    double done = s->now + r->work / u->speed[r->tenant];
    u->loaded = u->cur;
    u->phase = PH_RUN;
    u->t_phase = s->now;
    if (done <= u->turn_end)
        vgt_arm(s, u, done, VGT_DONE);
    else
        vgt_arm(s, u, u->turn_end, VGT_TURN_END);
}

/* Starts the run part of a work-conserving turn, after the switch if one was needed. */
static void vgt_turn_clock(struct sim *s, struct vgt_unit *u)
{
    if (!u->cyclic)
        u->turn_end = s->now + u->turn_s[u->cur];
}

/* Gives the GPU to VM u->cur: switch first if another context is loaded. */
static void vgt_begin(struct sim *s, struct vgt_unit *u)
{
    if (u->cyclic && (u->cur < 0 || !vgt_vm_has_work(s, u, u->cur))) {
        vgt_run(s, u); /* holds the slot */
        return;
    }
    if (u->loaded < 0 || u->loaded == u->cur) {
        vgt_turn_clock(s, u);
        vgt_run(s, u);
        return;
    }
    if (u->cyclic && s->now + u->c->switch_s >= u->turn_end) {
        u->phase = PH_HOLD; /* the switch would not fit what is left of the slot */
        vgt_arm(s, u, u->turn_end, VGT_TURN_END);
        return;
    }
    u->phase = PH_SWITCH;
    u->t_phase = s->now;
    vgt_arm(s, u, s->now + u->c->switch_s, VGT_SWITCH_END);
}

/* cyclic: slot k of a cycle belongs to VM k (none for k >= n_vm) and ends at
 * cycle × C + (k + 1) × slice, C = n_slot × slice. */
static void vgt_cyclic_set_slot(struct vgt_unit *u, long slot)
{
    long cyc = slot / u->n_slot, k = slot % u->n_slot;
    u->slot = slot;
    u->cur = k < u->c->n_vm ? (int)k : -1;
    u->turn_end = ((double)cyc * u->n_slot + (double)(k + 1)) * u->c->slice_s;
}

/* cyclic: finds the slot that contains `now` (after the GPU was parked). */
static void vgt_cyclic_resync(struct sim *s, struct vgt_unit *u)
{
    long slot = (long)floor(s->now / (u->n_slot * u->c->slice_s)) * u->n_slot;
    for (vgt_cyclic_set_slot(u, slot); s->now >= u->turn_end;)
        vgt_cyclic_set_slot(u, ++slot);
}

static int vgt_has_work(const struct sim *s, const struct vgt_unit *u)
{
    for (int v = 0; v < u->c->n_vm; v++)
        if (vgt_vm_has_work(s, u, v))
            return 1;
    return 0;
}

/* The current turn is over: pass the GPU on, or park it when nobody has work. */
static void vgt_next(struct sim *s, struct vgt_unit *u)
{
    int n = u->c->n_vm;
    if (!vgt_has_work(s, u)) {
        u->phase = PH_IDLE;
        u->version++; /* nothing pending */
        return;
    }
    if (u->cyclic) {
        vgt_cyclic_set_slot(u, u->slot + 1);
    } else {
        int v = u->cur;
        do
            v = (v + 1) % n;
        while (!vgt_vm_has_work(s, u, v));
        u->cur = v;
    }
    vgt_begin(s, u);
}

/* After a request of the running VM ended (completed or failed). */
static void vgt_after_request(struct sim *s, struct vgt_unit *u)
{
    if (s->now < u->turn_end)
        vgt_run(s, u);
    else
        vgt_next(s, u);
}

/* ---- unit interface ------------------------------------------------------ */

static void vgt_event(struct sim *s, void *self, const struct event *ev)
{
    struct vgt_unit *u = self;
    if (unit_ev_timer(ev) == VGT_BEGIN) { /* the engine's timer, its own version */
        if (le_begin_due(u->vm[ev->aux].llm, ev->version) && u->phase == PH_BEGIN &&
            u->cur == (int)ev->aux)
            vgt_run(s, u);
        return;
    }
    if (ev->version != u->version)
        return;
    switch (unit_ev_timer(ev)) {
    case VGT_SWITCH_END:
        eng_switching(s, 1.0, u->t_phase, s->now);
        u->switches++;
        vgt_turn_clock(s, u);
        vgt_run(s, u);
        break;
    case VGT_DONE: {
        struct vgt_vm *m = &u->vm[u->cur];
        vgt_book_busy(s, u);
        m->req.work = 0;
        if (m->llm)
            le_end(s, m->llm); /* its step: tokens, finished requests */
        else
            eng_complete(s, &m->req);
        m->has_req = 0;
        vgt_after_request(s, u);
        break;
    }
    default: /* VGT_TURN_END: preempt, keeping the remaining work */
        if (u->phase == PH_RUN) {
            struct vgt_vm *m = &u->vm[u->cur];
            vgt_book_busy(s, u);
            m->req.work -= (s->now - u->t_phase) * u->speed[m->req.tenant];
            if (m->req.work < 0)
                m->req.work = 0;
        }
        vgt_next(s, u);
        break;
    }
}

/* A request of tenant k was queued: wake a parked GPU, or the VM holding its own idle
 * slot. */
static void vgt_arrive(struct sim *s, void *self, int k)
{
    struct vgt_unit *u = self;
    int v = u->c->vm_of[k];
    if (u->vm[v].llm)
        le_take_all(s, u->vm[v].llm); /* into its scheduler, whatever the GPU is doing */
    u->arriving = v;                  /* an LLM VM given the GPU now defers its step (vgt_run) */
    if (u->phase == PH_IDLE) {
        if (u->cyclic)
            vgt_cyclic_resync(s, u);
        else
            u->cur = v;
        vgt_begin(s, u);
    } else if (u->phase == PH_HOLD && u->cur == v) {
        vgt_begin(s, u);
    } else if (u->phase == PH_BEGIN && u->cur == v) {
        vgt_run(s, u); /* the begin timer re-armed, after this arrival too */
    }
    u->arriving = -1;
}

/* Only the faulting tenant's request held by its VM fails; the VM goes on at once. */
static int vgt_fault(struct sim *s, void *self, int k)
{
    struct vgt_unit *u = self;
    int v = u->c->vm_of[k];
    struct vgt_vm *m = &u->vm[v];
    if (m->llm ? m->llm->held == 0 : !m->has_req || m->req.tenant != k)
        return 0;
    int running = u->phase == PH_RUN && u->cur == v && m->has_req;
    int waiting = u->phase == PH_BEGIN && u->cur == v; /* its begin timer is stale now */
    if (running)
        vgt_book_busy(s, u);
    if (m->llm)
        le_fail(s, m->llm); /* the engine process: every request it holds */
    else
        eng_fail(s, &m->req);
    m->has_req = 0;
    if (running || waiting)
        vgt_after_request(s, u);
    return 1;
}

static void vgt_finish(struct sim *s, void *self)
{
    struct vgt_unit *u = self;
    for (int v = 0; v < u->c->n_vm; v++)
        if (u->vm[v].llm)
            le_kv_close(s, u->vm[v].llm);
    if (u->phase == PH_RUN)
        vgt_book_busy(s, u);
    else if (u->phase == PH_SWITCH)
        eng_switching(s, 1.0, u->t_phase, s->now);
}

static void vgt_abort(struct sim *s, void *self)
{
    struct vgt_unit *u = self;
    vgt_finish(s, u);
    for (int v = 0; v < u->c->n_vm; v++) {
        if (u->vm[v].llm)
            le_fail(s, u->vm[v].llm);
        else if (u->vm[v].has_req)
            eng_fail(s, &u->vm[v].req);
        u->vm[v].has_req = 0;
    }
    u->phase = PH_IDLE;
    u->version++; /* the pending timer is void */
}

static void vgt_resume(struct sim *s, void *self)
{
    struct vgt_unit *u = self;
    (void)s;
    u->loaded = -1; /* the reset wiped every context: the first to run needs no switch */
}

static double vgt_busy_s(const void *self)
{
    const struct vgt_unit *u = self;
    return u->busy_s;
}

static void vgt_destroy(void *self)
{
    struct vgt_unit *u = self;
    for (int v = 0; v < u->c->n_vm; v++)
        if (u->vm[v].llm) {
            le_free(u->vm[v].llm);
            free(u->vm[v].llm);
        }
    free(u->vm);
    free(u->turn_s);
    free(u->speed);
    free(u);
}

static struct llm_engine *vgt_engine(void *self, int k)
{
    struct vgt_unit *u = self;
    return u->vm[u->c->vm_of[k]].llm;
}

static const struct unit_ops vgt_ops = {
    .rank = UNIT_RANK_TIMESLICE,
    .arrive = vgt_arrive,
    .event = vgt_event,
    .fault = vgt_fault,
    .abort = vgt_abort,
    .resume = vgt_resume,
    .finish = vgt_finish,
    .busy_s = vgt_busy_s,
    .destroy = vgt_destroy,
    .engine = vgt_engine,
};

/* ---- backing ------------------------------------------------------------- */

/* The type names of the GPU with their frame buffers and counts, for messages. */
static void type_list(const struct gpu_profile *g, char *buf, size_t n)
{
    size_t l = 0;
    buf[0] = '\0';
    for (int i = 0; i < g->n_vgpu_types && l < n; i++)
        l += (size_t)snprintf(buf + l, n - l, "%s%s (%g GB, %d per GPU)", i ? ", " : "",
                              g->vgpu_types[i].name, g->vgpu_types[i].fb_gb,
                              g->vgpu_types[i].max_per_gpu);
}

/* A vGPU names its "type", or gives an "fb_gb" that is a type's; "weight" only under the
 * hypothetical scheduler. */
static int vgt_parse_vm(const struct jv *j, const cJSON *o, const char *p,
                        const struct scenario *sc, const struct vgpu_cfg *c, struct vg_def *d)
{
    char q[600], types[1024];
    const char *tname = NULL;
    if (cJSON_GetObjectItemCaseSensitive(o, "profile"))
        return jv_fail(j, jv_path_key(q, sizeof q, p, "profile"),
                       "a MIG profile needs \"backing\": \"mig\"");
    if (jv_str(j, o, p, "type", 0, &tname) < 0 ||
        jv_num_gt(j, o, p, "fb_gb", 0, 0, 1e5, &d->fb_gb) < 0 ||
        jv_num_gt(j, o, p, "weight", 0, 0, 1e4, &d->weight) < 0)
        return -1;
    type_list(&sc->gpu, types, sizeof types);
    if (sc->gpu.n_vgpu_types == 0)
        return jv_fail(j, p, "the %s profile lists no vGPU types (vgpu_types)", sc->gpu.name);
    int has_fb = cJSON_GetObjectItemCaseSensitive(o, "fb_gb") != NULL;
    if (tname) {
        d->type = cal_vgpu_type(&sc->gpu, tname);
        if (!d->type)
            return jv_fail(j, jv_path_key(q, sizeof q, p, "type"),
                           "no vGPU type \"%s\" on the %s (expected one of %s)", tname,
                           sc->gpu.name, types);
        if (has_fb && fabs(d->fb_gb - d->type->fb_gb) > 1e-9)
            return jv_fail(j, jv_path_key(q, sizeof q, p, "fb_gb"),
                           "%g GB, but type %s has a %g GB frame buffer (give one or the other)",
                           d->fb_gb, d->type->name, d->type->fb_gb);
    } else if (!has_fb) {
        return jv_fail(j, p, "expected \"type\" (one of %s) or an \"fb_gb\" that is one", types);
    } else {
        d->type = cal_vgpu_type_fb(&sc->gpu, d->fb_gb);
        if (!d->type)
            return jv_fail(j, jv_path_key(q, sizeof q, p, "fb_gb"),
                           "%g GB is not the frame buffer of a vGPU type of the %s (VGPU_UG: "
                           "the types are %s)",
                           d->fb_gb, sc->gpu.name, types);
    }
    d->fb_gb = d->type->fb_gb;
    if (cJSON_GetObjectItemCaseSensitive(o, "weight") && c->sched != SCH_HYPOTHETICAL_WEIGHTED)
        return jv_fail(j, jv_path_key(q, sizeof q, p, "weight"),
                       "NVIDIA's vGPU schedulers have no per-VM weights (best_effort, "
                       "equal_share and fixed_share are set per GPU); \"scheduler\": "
                       "\"hypothetical_weighted\" simulates the article's weighted round robin");
    return 0;
}

/* Equal-size mode: every time-sliced vGPU of a GPU has one type, at most its count. */
static int vgt_check_layout(const struct jv *j, const char *p, const struct scenario *sc,
                            const struct vgpu_cfg *c)
{
    const struct vgpu_type *t = c->vm[0].type;
    for (int v = 1; v < c->n_vm; v++)
        if (c->vm[v].type != t)
            return jv_fail(j, p,
                           "vgpus[0] is %s and vgpus[%d] %s: the time-sliced vGPUs of a GPU "
                           "must be of one type (equal-size mode, VGPU_UG; mixed sizes are not "
                           "modelled)",
                           t->name, v, c->vm[v].type->name);
    if (c->n_vm > t->max_per_gpu)
        return jv_fail(j, p, "%d vGPUs of type %s, a %s takes at most %d", c->n_vm, t->name,
                       sc->gpu.name, t->max_per_gpu);
    return 0;
}

static int vgt_units_per_gpu(const struct vgpu_cfg *c)
{
    (void)c;
    return 1; /* one scheduler per GPU */
}

static struct unit vgt_build(const struct scenario *sc, const struct vgpu_cfg *c, int k,
                             struct unit_addr ev)
{
    (void)k;
    struct vgt_unit *u = ss_xcalloc(1, sizeof *u);
    u->ev = ev;
    u->c = c;
    u->vm = ss_xcalloc((size_t)c->n_vm, sizeof *u->vm);
    u->turn_s = ss_xmalloc((size_t)c->n_vm * sizeof *u->turn_s);
    u->speed = ss_xmalloc((size_t)sc->n_tenants * sizeof *u->speed);
    for (int v = 0; v < c->n_vm; v++)
        u->turn_s[v] = c->slice_s * (c->sched == SCH_HYPOTHETICAL_WEIGHTED ? c->vm[v].weight : 1);
    for (int t = 0; t < sc->n_tenants; t++) /* an LLM step's time has the overheads already */
        u->speed[t] = sc->tenants[t].llm ? 1 : vgt_class_speed(&sc->gpu, &sc->tenants[t]);
    for (int v = 0; v < c->n_vm; v++)
        if (c->vm[v].llm) {
            int t = c->vm[v].ten[0];
            u->vm[v].llm = ss_xcalloc(1, sizeof *u->vm[v].llm);
            le_init(u->vm[v].llm, t, sc->tenants[t].llm, c->vm[v].kv_blocks, &sc->gpu);
        }
    u->cyclic = vgt_is_cyclic(c->sched);
    u->n_slot = c->sched == SCH_FIXED_SHARE ? c->vm[0].type->max_per_gpu : c->n_vm;
    u->loaded = -1;
    u->arriving = -1;
    u->slot = -1;
    return (struct unit){&vgt_ops, u};
}

/*
 * Stability (core/stable.h): the fraction of one GPU's time VM v gets from the scheduler when
 * it always has work and the others need demand[] of it (the rules above; every switch charged, so
 * the estimate errs low by at most switch / slice):
 * - best_effort, hypothetical_weighted: the max-min fair share (weighted by turn length) of
 *   the time the GPU works when every turn ends in a switch, Σ turn / (Σ turn + N × switch);
 *   alone, all of it;
 * - equal_share: its slot of a cycle of N, fixed_share: its slot of a cycle of the type's
 *   max_per_gpu, less the switch into it when another VM can run in between; whatever the
 *   others do.
 */
static double vgt_time_share(const struct vgpu_cfg *c, int v, const double *demand)
{
    int V = c->n_vm;
    if (c->sched == SCH_EQUAL_SHARE || c->sched == SCH_FIXED_SHARE) {
        int slots = c->sched == SCH_FIXED_SHARE ? c->vm[0].type->max_per_gpu : V;
        double sw = V > 1 ? c->switch_s : 0;
        return fmax(0, c->slice_s - sw) / (slots * c->slice_s);
    }
    if (V == 1)
        return 1;
    double *turn = ss_xmalloc((size_t)V * sizeof *turn), turns = 0;
    for (int w = 0; w < V; w++) {
        turn[w] = c->slice_s * (c->sched == SCH_HYPOTHETICAL_WEIGHTED ? c->vm[w].weight : 1);
        turns += turn[w];
    }
    double t = stab_fair_share(V, demand, turn, v, turns / (turns + V * c->switch_s));
    free(turn);
    return t;
}

static double vgt_speed(const struct scenario *sc, const struct vg_def *d,
                        const struct tenant_cfg *t)
{
    (void)d;
    return vgt_class_speed(&sc->gpu, t);
}

static void vgt_slot(const struct vgpu_cfg *c, int tenant, int *k, int *client)
{
    (void)c;
    *k = 0;
    *client = tenant;
}

static void vgt_details(const struct vgpu_cfg *c, const struct unit *units, int n, cJSON *d)
{
    long switches = 0;
    for (int i = 0; i < n; i++)
        switches += ((const struct vgt_unit *)units[i].self)->switches;
    cJSON_AddStringToObject(d, "scheduler", vgt_schedulers[c->sched]);
    cJSON_AddStringToObject(d, "type", c->vm[0].type->name);
    cJSON_AddNumberToObject(d, "slice_ms", c->slice_s * 1e3);
    cJSON_AddNumberToObject(d, "switch_us", c->switch_s * 1e6);
    cJSON_AddNumberToObject(d, "switches", (double)switches);
}

const struct vgpu_backing vgt_backing = {
    .name = "time",
    .refused = NULL,
    .refused_why = NULL,
    .parse_vm = vgt_parse_vm,
    .check_layout = vgt_check_layout,
    .units_per_gpu = vgt_units_per_gpu,
    .build = vgt_build,
    .time_share = vgt_time_share,
    .speed = vgt_speed,
    .slot = vgt_slot,
    .details = vgt_details,
};
