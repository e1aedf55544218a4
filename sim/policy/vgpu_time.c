/*
 * vgpu_time — time-sliced vGPU ("backing": "time", the default): one scheduler per
 * GPU runs one VM at a time (the rules are in policy_vgpu.c and docs/mps-vgpu.md).
 * Each GPU's scheduler is a unit (policy/units/unit.h) whose clients are all the
 * tenants of the scenario (client k = tenant k, in VM vm_of[k]), since every VM has
 * a vGPU on every GPU.
 *
 * Invariants: exactly one pending timer carries the unit's current version (older
 * ones are skipped); a unit in PH_IDLE has no VM with work; has_req marks a request
 * held by a VM (running or preempted).
 */
#include "core/engine.h"
#include "policy/vgpu.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

const char *const vgt_schedulers[] = {"best_effort", "equal_share", "fixed_share", NULL};

enum { PH_IDLE, PH_SWITCH, PH_RUN, PH_HOLD };
enum { VGT_SWITCH_END, VGT_DONE, VGT_TURN_END, VGT_TIMERS };
_Static_assert((int)VGT_TIMERS <= (int)UNIT_TIMERS, "a unit has at most UNIT_TIMERS timers");

struct vgt_vm {
    struct request req;
    int has_req;
};

struct vgt_unit {
    struct unit_addr ev;
    const struct vgpu_cfg *c;
    struct vgt_vm *vm; /* per vGPU */
    double *turn_s;    /* per vGPU: slice × weight (equal_share: slice) */
    double *offset_s;  /* per vGPU, fixed_share: start of its slot in the cycle */
    double cycle_s;    /* fixed_share: Σ turn_s */
    int phase;
    int cur;    /* VM whose turn or slot it is */
    int loaded; /* VM whose context is on the GPU; -1 before any */
    double t_phase;
    double turn_end;
    long slot; /* fixed_share: slots since t = 0; VM = slot mod n_vm */
    uint32_t version;
    long switches;
    double busy_s;
};

/* ---- VMs and their tenants' queues --------------------------------------- */

static int vgt_vm_has_work(const struct sim *s, const struct vgt_unit *u, int v)
{
    const struct vg_def *d = &u->c->vm[v];
    return u->vm[v].has_req || unit_oldest(s, d->n_ten, d->ten) >= 0;
}

/* Makes sure the VM holds a request; 0 if it has no work. */
static int vgt_vm_load(struct sim *s, struct vgt_unit *u, int v)
{
    struct vgt_vm *m = &u->vm[v];
    if (m->has_req)
        return 1;
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

/* The GPU ran the current VM's request since t_phase. */
static void vgt_book_busy(struct sim *s, struct vgt_unit *u)
{
    eng_busy(s, 1.0, u->t_phase, s->now);
    u->busy_s += eng_clip(s, u->t_phase, s->now);
}

static void vgt_next(struct sim *s, struct vgt_unit *u);

/* Runs the current VM's request until it completes or the turn ends. */
static void vgt_run(struct sim *s, struct vgt_unit *u)
{
    if (!vgt_vm_load(s, u, u->cur)) {
        if (u->c->sched != SCH_FIXED_SHARE || s->now >= u->turn_end) {
            vgt_next(s, u);
            return;
        }
        u->phase = PH_HOLD; /* fixed share: the slot is this VM's, used or not */
        vgt_arm(s, u, u->turn_end, VGT_TURN_END);
        return;
    }
    struct request *r = &u->vm[u->cur].req;
    u->loaded = u->cur;
    u->phase = PH_RUN;
    u->t_phase = s->now;
    if (s->now + r->work <= u->turn_end)
        vgt_arm(s, u, s->now + r->work, VGT_DONE);
    else
        vgt_arm(s, u, u->turn_end, VGT_TURN_END);
}

/* Starts the run part of a turn, after the switch if one was needed. */
static void vgt_turn_clock(struct sim *s, struct vgt_unit *u)
{
    if (u->c->sched != SCH_FIXED_SHARE)
        u->turn_end = s->now + u->turn_s[u->cur];
}

/* Gives the GPU to VM u->cur: switch first if another context is loaded. */
static void vgt_begin(struct sim *s, struct vgt_unit *u)
{
    int fixed = u->c->sched == SCH_FIXED_SHARE;
    if (fixed && !vgt_vm_has_work(s, u, u->cur)) {
        vgt_run(s, u); /* holds the slot */
        return;
    }
    if (u->loaded < 0 || u->loaded == u->cur) {
        vgt_turn_clock(s, u);
        vgt_run(s, u);
        return;
    }
    if (fixed && s->now + u->c->switch_s >= u->turn_end) {
        u->phase = PH_HOLD; /* the switch would not fit what is left of the slot */
        vgt_arm(s, u, u->turn_end, VGT_TURN_END);
        return;
    }
    u->phase = PH_SWITCH;
    u->t_phase = s->now;
    vgt_arm(s, u, s->now + u->c->switch_s, VGT_SWITCH_END);
}

/* fixed_share: slot k belongs to VM k mod n and ends at cycle·C + offset + turn. */
static void vgt_fixed_set_slot(struct vgt_unit *u, long slot)
{
    long cyc = slot / u->c->n_vm;
    u->slot = slot;
    u->cur = (int)(slot % u->c->n_vm);
    u->turn_end = (double)cyc * u->cycle_s + u->offset_s[u->cur] + u->turn_s[u->cur];
}

/* fixed_share: finds the slot that contains `now` (after the GPU was parked). */
static void vgt_fixed_resync(struct sim *s, struct vgt_unit *u)
{
    long slot = (long)floor(s->now / u->cycle_s) * u->c->n_vm;
    for (vgt_fixed_set_slot(u, slot); s->now >= u->turn_end;)
        vgt_fixed_set_slot(u, ++slot);
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
    if (u->c->sched == SCH_FIXED_SHARE) {
        vgt_fixed_set_slot(u, u->slot + 1);
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
    if (ev->version != u->version)
        return;
    struct vgt_vm *m = &u->vm[u->cur];
    switch (unit_ev_timer(ev)) {
    case VGT_SWITCH_END:
        eng_switching(s, 1.0, u->t_phase, s->now);
        u->switches++;
        vgt_turn_clock(s, u);
        vgt_run(s, u);
        break;
    case VGT_DONE:
        vgt_book_busy(s, u);
        m->req.work = 0;
        eng_complete(s, &m->req);
        m->has_req = 0;
        vgt_after_request(s, u);
        break;
    default: /* VGT_TURN_END: preempt, keeping the remaining work */
        if (u->phase == PH_RUN) {
            vgt_book_busy(s, u);
            m->req.work -= s->now - u->t_phase;
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
    if (u->phase == PH_IDLE) {
        if (u->c->sched == SCH_FIXED_SHARE)
            vgt_fixed_resync(s, u);
        else
            u->cur = v;
        vgt_begin(s, u);
    } else if (u->phase == PH_HOLD && u->cur == v) {
        vgt_begin(s, u);
    }
}

/* Only the faulting tenant's request held by its VM fails; the VM goes on at once. */
static int vgt_fault(struct sim *s, void *self, int k)
{
    struct vgt_unit *u = self;
    int v = u->c->vm_of[k];
    struct vgt_vm *m = &u->vm[v];
    if (!m->has_req || m->req.tenant != k)
        return 0;
    int running = u->phase == PH_RUN && u->cur == v;
    if (running)
        vgt_book_busy(s, u);
    eng_fail(s, &m->req);
    m->has_req = 0;
    if (running)
        vgt_after_request(s, u);
    return 1;
}

static void vgt_finish(struct sim *s, void *self)
{
    struct vgt_unit *u = self;
    if (u->phase == PH_RUN)
        vgt_book_busy(s, u);
    else if (u->phase == PH_SWITCH)
        eng_switching(s, 1.0, u->t_phase, s->now);
}

static void vgt_abort(struct sim *s, void *self)
{
    struct vgt_unit *u = self;
    vgt_finish(s, u);
    for (int v = 0; v < u->c->n_vm; v++)
        if (u->vm[v].has_req) {
            eng_fail(s, &u->vm[v].req);
            u->vm[v].has_req = 0;
        }
    u->phase = PH_IDLE;
    u->version++; /* the pending timer is void */
}

static double vgt_busy_s(const void *self)
{
    const struct vgt_unit *u = self;
    return u->busy_s;
}

static void vgt_destroy(void *self)
{
    struct vgt_unit *u = self;
    free(u->vm);
    free(u->turn_s);
    free(u->offset_s);
    free(u);
}

static const struct unit_ops vgt_ops = {
    .rank = UNIT_RANK_TIMESLICE,
    .arrive = vgt_arrive,
    .event = vgt_event,
    .fault = vgt_fault,
    .abort = vgt_abort,
    .finish = vgt_finish,
    .busy_s = vgt_busy_s,
    .destroy = vgt_destroy,
};

/* ---- backing ------------------------------------------------------------- */

static int vgt_parse_vm(const struct jv *j, const cJSON *o, const char *p,
                        const struct scenario *sc, const struct vgpu_cfg *c, struct vg_def *d)
{
    char q[600];
    (void)sc;
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
    (void)sc;
    (void)k;
    struct vgt_unit *u = ss_xcalloc(1, sizeof *u);
    u->ev = ev;
    u->c = c;
    u->vm = ss_xcalloc((size_t)c->n_vm, sizeof *u->vm);
    u->turn_s = ss_xmalloc((size_t)c->n_vm * sizeof *u->turn_s);
    u->offset_s = ss_xmalloc((size_t)c->n_vm * sizeof *u->offset_s);
    for (int v = 0; v < c->n_vm; v++) {
        u->turn_s[v] = c->slice_s * (c->sched == SCH_EQUAL_SHARE ? 1 : c->vm[v].weight);
        u->offset_s[v] = u->cycle_s;
        u->cycle_s += u->turn_s[v];
    }
    u->loaded = -1;
    u->slot = -1;
    return (struct unit){&vgt_ops, u};
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
    cJSON_AddNumberToObject(d, "slice_ms", c->slice_s * 1e3);
    cJSON_AddNumberToObject(d, "switch_us", c->switch_s * 1e6);
    cJSON_AddNumberToObject(d, "switches", (double)switches);
}

const struct vgpu_backing vgt_backing = {
    .name = "time",
    .owns_hardware = 0,
    .refused = NULL,
    .refused_why = NULL,
    .parse_vm = vgt_parse_vm,
    .check_layout = NULL,
    .units_per_gpu = vgt_units_per_gpu,
    .build = vgt_build,
    .slot = vgt_slot,
    .details = vgt_details,
};
