/*
 * policy_mps — CUDA Multi-Process Service (kind "mps"). Every tenant is one MPS
 * client on one GPU ("assign" {"tenant": gpu}, all tenants or none; by default
 * tenant i on GPU i mod gpus, as time-slicing does). A client holds at most one
 * request in service (docs/scenario.md: one request per slot); the clients of a GPU
 * run concurrently.
 *
 * Rates (docs/mps-vgpu.md has the derivation), over the busy clients of a GPU:
 * - SM share by demand: client i asks for dem_i = min(cap_i, n_i · s_i), its thread cap
 *   (cap_i = thread_pct_i / 100) or what its n_i requests in service of occupancy s_i
 *   (work.max_sm_fraction) keep busy; sm_i = dem_i × min(1, 1 / Σ dem). A client never
 *   exceeds its cap, even alone (that is what CUDA_MPS_ACTIVE_THREAD_PERCENTAGE does),
 *   and clients slow each other only when their demands exceed the GPU.
 * - Bandwidth is not partitioned; it follows the SMs. Client i's SMs can pull
 *   d_i = C(sm_i) (the profile's mem_bw_sm_curve). A client's memory weight w_i is 1
 *   (memory class), 0 (compute) or 1 − compute_share (mixed): the fraction of its time
 *   it touches memory. While in its memory phase client i shares the bus with the
 *   others' expected demands: bw_i = d_i · min(1, η / (d_i + Σ_{j≠i} w_j d_j)).
 *   Memory-bound clients whose SMs could pull the whole bus get exactly 1/n each;
 *   η = 1 − bw_contention_loss · min(1, W − 1) (W = Σ w) is the aggregate efficiency
 *   lost to co-running memory streams when their demands exceed the bus (default: the
 *   profile's mps_bw_contention_loss, 0 fitted to GOPEBBLE_MPS, range 0-0.3, low confidence).
 * - speed of each of client i's n_i requests = rate_speed(class_i, sm_i / n_i, bw_i / n_i).
 * Whenever the busy set of a GPU changes, the work done so far is charged at the
 * old speeds, speeds are recomputed, and a client whose speed changed gets a new
 * completion event with a bumped version (older events are skipped).
 *
 * Faults: a fault of a tenant whose client has a request in service kills the
 * in-flight request of every client on that GPU (MPS shares one server and one
 * fault domain), and the GPU serves nothing for recovery_s; queued requests stay
 * queued. A fault while the client is idle hits nothing (faults come from
 * running kernels), as in the exclusive policy.
 *
 * LLM tenants (docs/llm.md): an LLM tenant is a client like any other whose work is its
 * engine's steps (mpsunit.h: a step's GPU part at the client's shares, the rest of it at the
 * new rate when the busy set changes); its KV cache is the memory its client gets
 * (policy/llmmem.h): "pinned_memory_gb" {"tenant": GB}, the client's pinned device-memory limit
 * (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT), or else an equal split of what the GPU's plain clients'
 * memory_gb and the limits leave. A plain client's limit must hold its memory_gb.
 * An LLM tenant assigned several GPUs ("assign": {"chat": [0, 1]}, policy/assign.h) is a client
 * on each, each running an engine of its own, behind the tenant's router
 * (policy/units/router.h; replica k its client on its k-th GPU as listed, the policy its
 * serving.router names; its thread_pct and pinned limit apply to each client). Its fault takes
 * down the GPU of the first of its clients with a request in service, as a plain client's does;
 * a replica whose GPU is down (a fault's recovery, a card reset) is out of the router's choice
 * until the GPU is back, and what waited at the router then goes to it.
 *
 * The mechanics (accounting, resharing, faults, recovery) live in
 * sim/policy/units/mpsunit.c, shared with nested MPS inside MIG instances; each GPU
 * is one mu_unit, called directly as it is the only kind of server here. "assign" is
 * read by policy/assign.c, as for time-slicing.
 */
#include "core/engine.h"
#include "core/gpufault.h"
#include "policy/assign.h"
#include "policy/llmmem.h"
#include "policy/units/mpsunit.h"
#include "policy/units/router.h"
#include "core/policy.h"
#include "core/run.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The units' timers: the event names the GPU's unit (units/unit.h); a card fault names the
 * GPU (the unit is down for the reset as after a client fault, with its own duration). */
enum { EV_UNIT = EV_POLICY, EV_CARD };

struct mps_cfg {
    double *cap;         /* per tenant: thread_pct / 100 */
    int *gpu_of;         /* per tenant: its (first) GPU */
    struct asg_place pl; /* the clients: one per tenant, one per GPU of a spread LLM tenant */
    int max_clients;
    double recovery_s;
    double bw_loss;    /* fraction of aggregate bandwidth lost when memory streams co-run */
    double *pinned_gb; /* per tenant: its pinned-memory limit, < 0: none */
    double *llm_gb;    /* per LLM placement: the memory its engine gets */
    long *kv_blocks;   /* per LLM placement: its cache */
};

struct mps {
    const struct mps_cfg *cfg;
    int n_gpu, n_ten;
    struct mu_unit *gpu; /* one MPS server per GPU */
    int *slot;           /* per placement (mps_cfg.pl): its client index in its GPU's unit */
    struct router **rt;  /* per tenant: the router of an LLM tenant on several GPUs, else NULL */
    int *was_down;       /* per GPU holding a replica: the down state its router knows; -1 else */
    int *n_up;           /* per routed tenant: its replicas up (its availability) */
    double *all_down_at; /* per routed tenant: since when none is (n_up 0) */
    struct gpufault gf;
    double *reset_until; /* per GPU: the end of its card reset (0: none yet) */
};

/* ---- parse --------------------------------------------------------------- */

/* "cuda": "13.1" or later raises the client limit (MPSDOC: 48 up to CUDA 13.0, 60 from 13.1). */
static int parse_cuda(const struct jv *j, const cJSON *obj, const char *path,
                      const struct scenario *sc, struct mps_cfg *c)
{
    const char *ver = NULL;
    char p[512];
    c->max_clients = sc->gpu.mps_max_clients;
    if (jv_str(j, obj, path, "cuda", 0, &ver) < 0)
        return -1;
    if (!ver)
        return 0;
    int major, minor, used = 0;
    if (sscanf(ver, "%d.%d%n", &major, &minor, &used) != 2 || ver[used] || major < 1 || minor < 0)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "cuda"),
                       "expected a CUDA version like \"13.1\", got \"%s\"", ver);
    if (major > 13 || (major == 13 && minor >= 1))
        c->max_clients = sc->gpu.mps_max_clients_cuda13_1;
    return 0;
}

static int check_gpus(const struct jv *j, const char *path, const struct scenario *sc,
                      const struct mps_cfg *c)
{
    /* Per-GPU sums in one pass over the tenants: O(gpus + tenants), not their product. */
    int *count = ss_xcalloc((size_t)sc->gpus, sizeof *count), rc = 0;
    double *memsum = ss_xcalloc((size_t)sc->gpus, sizeof *memsum);
    for (int p = 0; p < c->pl.n; p++) {
        count[c->pl.gpu[p]]++;
        memsum[c->pl.gpu[p]] += sc->tenants[c->pl.ten[p]].memory_gb;
    }
    for (int g = 0; g < sc->gpus && rc == 0; g++) {
        int n = count[g];
        double mem = memsum[g];
        if (n > c->max_clients)
            rc = jv_fail(j, path,
                         "GPU %d gets %d MPS clients, a %s allows %d per GPU (%d with "
                         "\"cuda\": \"13.1\" or later)",
                         g, n, sc->gpu.name, c->max_clients, sc->gpu.mps_max_clients_cuda13_1);
        else if (mem > sc->gpu.memory_gb)
            rc = jv_fail(j, path,
                         "MPS clients on GPU %d need %g GB together, a %s has %g GB (MPS does "
                         "not isolate memory)",
                         g, mem, sc->gpu.name, sc->gpu.memory_gb);
    }
    free(count);
    free(memsum);
    return rc;
}

/* "pinned_memory_gb": {"tenant": GB}: a client's pinned device-memory limit. */
static int parse_pinned(const struct jv *j, const cJSON *obj, const char *path,
                        const struct scenario *sc, double *pinned)
{
    char p[512], q[600];
    for (int i = 0; i < sc->n_tenants; i++)
        pinned[i] = -1;
    const cJSON *pm = cJSON_GetObjectItemCaseSensitive(obj, "pinned_memory_gb");
    if (!pm)
        return 0;
    jv_path_key(p, sizeof p, path, "pinned_memory_gb");
    if (!cJSON_IsObject(pm))
        return jv_fail(j, p, "expected an object {\"tenant\": GB}");
    const cJSON *it;
    cJSON_ArrayForEach(it, pm)
    {
        jv_path_key(q, sizeof q, p, it->string);
        int ti = scn_tenant_index(sc, it->string);
        if (ti < 0)
            return jv_fail(j, q, "no tenant named \"%s\"", it->string);
        if (!cJSON_IsNumber(it) || !(it->valuedouble > 0) || it->valuedouble > sc->gpu.memory_gb)
            return jv_fail(j, q, "expected GB in (0, %g], the %s's memory", sc->gpu.memory_gb,
                           sc->gpu.name);
        if (!sc->tenants[ti].llm && sc->tenants[ti].memory_gb > it->valuedouble)
            return jv_fail(j, q, "tenant \"%s\" needs %g GB (memory_gb), more than its %g GB limit",
                           it->string, sc->tenants[ti].memory_gb, it->valuedouble);
        pinned[ti] = it->valuedouble;
    }
    return 0;
}

static int mps_parse(const struct jv *j, const cJSON *obj, const char *path,
                     const struct scenario *sc, void **out)
{
    static const char *const keys[] = {
        "name",       "kind",   "thread_pct",         "cuda",
        "recovery_s", "assign", "bw_contention_loss", "pinned_memory_gb",
        NULL};
    struct mps_cfg *c = ss_xcalloc(1, sizeof *c);
    *out = c;
    c->cap = ss_xcalloc((size_t)sc->n_tenants, sizeof *c->cap);
    c->gpu_of = ss_xcalloc((size_t)sc->n_tenants, sizeof *c->gpu_of);
    c->pinned_gb = ss_xcalloc((size_t)sc->n_tenants, sizeof *c->pinned_gb);
    /* the profile's published co-run loss by default (VILLARRUBIA): mu_parse_params */
    if (jv_object(j, obj, path, keys) ||
        mu_parse_params(j, obj, path, sc, &c->recovery_s, &c->bw_loss))
        return -1;
    if (mu_parse_thread_pct(j, obj, path, sc, sc->n_tenants, NULL, c->cap) ||
        asg_parse_spread(j, obj, path, sc, c->gpu_of, &c->pl))
        return -1;
    c->llm_gb = ss_xcalloc((size_t)c->pl.n, sizeof *c->llm_gb);
    c->kv_blocks = ss_xcalloc((size_t)c->pl.n, sizeof *c->kv_blocks);
    return parse_cuda(j, obj, path, sc, c) || parse_pinned(j, obj, path, sc, c->pinned_gb) ||
           check_gpus(j, path, sc, c) ||
           llmm_placed(j, path, sc, &c->pl, c->pinned_gb, "MPS clients", c->llm_gb, c->kv_blocks);
}

static void mps_free_cfg(void *cfg)
{
    struct mps_cfg *c = cfg;
    free(c->cap);
    free(c->gpu_of);
    asg_place_free(&c->pl);
    free(c->pinned_gb);
    free(c->llm_gb);
    free(c->kv_blocks);
    free(c);
}

/* ---- run ----------------------------------------------------------------- */

/* A router per LLM tenant on several GPUs, replica k its client on its k-th GPU. */
static void build_routers(struct sim *s, struct mps *m)
{
    const struct asg_place *pl = &m->cfg->pl;
    m->n_ten = s->n_ten;
    m->rt = ss_xcalloc((size_t)s->n_ten, sizeof *m->rt);
    m->was_down = ss_xmalloc((size_t)m->n_gpu * sizeof *m->was_down);
    m->n_up = ss_xcalloc((size_t)s->n_ten, sizeof *m->n_up);
    m->all_down_at = ss_xcalloc((size_t)s->n_ten, sizeof *m->all_down_at);
    for (int g = 0; g < m->n_gpu; g++)
        m->was_down[g] = -1;
    for (int t = 0; t < s->n_ten; t++) {
        int n = pl->first[t + 1] - pl->first[t];
        if (n < 2)
            continue;
        m->rt[t] = ss_xmalloc(sizeof *m->rt[t]);
        rt_init(m->rt[t], s->sc->tenants[t].llm->router, n);
        m->n_up[t] = n;
        for (int p = pl->first[t]; p < pl->first[t + 1]; p++) {
            rt_add(m->rt[t], (struct unit){&mu_unit_ops, &m->gpu[pl->gpu[p]]}, m->slot[p]);
            m->gpu[pl->gpu[p]].cli[m->slot[p]].owner_books_down = 1;
            m->was_down[pl->gpu[p]] = 0;
        }
    }
}

/* GPU g went down (a fault's recovery, a card reset) or came back since its routers last knew:
 * its replicas leave their router's choice, or rejoin it and take what waits there. A routed
 * tenant is down (its availability) only while every replica is. */
static void sync_down(struct sim *s, struct mps *m, int g)
{
    const struct mu_unit *u = &m->gpu[g];
    if (m->was_down[g] < 0 || m->was_down[g] == (u->down != 0))
        return;
    m->was_down[g] = u->down != 0;
    for (int k = 0; k < u->n; k++) {
        int t = u->cli[k].tenant;
        struct router *r = m->rt[t];
        for (int q = 0; r && q < r->n; q++)
            if (r->rep[q].u.self == u) {
                rt_set_down(r, q, u->down != 0);
                if (u->down && --m->n_up[t] == 0)
                    m->all_down_at[t] = s->now;
                if (!u->down && m->n_up[t]++ == 0)
                    eng_down(s, t, m->all_down_at[t], s->now);
                if (!u->down)
                    rt_offer(s, r, t);
            }
    }
}

static void *mps_init(struct sim *s, const void *cfgp)
{
    const struct mps_cfg *c = cfgp;
    struct mps *m = ss_xcalloc(1, sizeof *m);
    m->cfg = c;
    m->n_gpu = s->sc->gpus;
    m->gpu = ss_xcalloc((size_t)m->n_gpu, sizeof *m->gpu);
    const struct asg_place *pl = &c->pl;
    m->slot = ss_xcalloc((size_t)pl->n, sizeof *m->slot);
    int *ten = ss_xcalloc((size_t)pl->n, sizeof *ten);
    double *cap = ss_xcalloc((size_t)pl->n, sizeof *cap);
    /* The clients of each GPU, in placement order, by a counting sort: O(gpus + clients). */
    int *first = ss_xcalloc((size_t)m->n_gpu + 1, sizeof *first);
    int *fill = ss_xcalloc((size_t)m->n_gpu, sizeof *fill);
    for (int p = 0; p < pl->n; p++)
        first[pl->gpu[p] + 1]++;
    for (int g = 0; g < m->n_gpu; g++)
        first[g + 1] += first[g];
    for (int p = 0; p < pl->n; p++) {
        int g = pl->gpu[p], n = fill[g]++;
        m->slot[p] = n;
        ten[first[g] + n] = pl->ten[p];
        cap[first[g] + n] = c->cap[pl->ten[p]];
    }
    for (int g = 0; g < m->n_gpu; g++) /* a whole GPU: the unit's shares of SMs, bandwidth are 1 */
        mu_init(&m->gpu[g], s->sc, unit_addr(EV_UNIT, g), first[g + 1] - first[g], ten + first[g],
                cap + first[g], 1.0, 1.0, 1.0, c->bw_loss, c->recovery_s);
    for (int p = 0; p < pl->n; p++)
        if (s->sc->tenants[pl->ten[p]].llm)
            mu_set_llm(&m->gpu[pl->gpu[p]], s->sc, m->slot[p], c->kv_blocks[p]);
    free(first);
    free(fill);
    free(ten);
    free(cap);
    build_routers(s, m);
    m->reset_until = ss_xcalloc((size_t)m->n_gpu, sizeof *m->reset_until);
    gf_start(&m->gf, s, EV_CARD);
    return m;
}

static void mps_arrive(struct sim *s, void *st, int tenant)
{
    struct mps *m = st;
    if (m->rt[tenant]) {
        rt_offer(s, m->rt[tenant], tenant);
        return;
    }
    int p = m->cfg->pl.first[tenant];
    mu_arrive(s, &m->gpu[m->cfg->pl.gpu[p]], m->slot[p]);
}

/* A card fault of GPU g; a GPU already resetting is not reset again. */
SS_COLD static void card_fault(struct sim *s, struct mps *m, int g)
{
    if (gf_fault(&m->gf, s, g) && s->now >= m->reset_until[g]) {
        mu_down(s, &m->gpu[g], m->gf.reset_s);
        m->reset_until[g] = s->now + m->gf.reset_s;
        sync_down(s, m, g);
    }
}

static void mps_on_event(struct sim *s, void *st, const struct event *ev)
{
    struct mps *m = st;
    if (ev->kind == EV_CARD)
        card_fault(s, m, (int)ev->target);
    else {
        mu_event(s, &m->gpu[unit_ev_id(ev)], ev);
        sync_down(s, m, (int)unit_ev_id(ev)); /* a recovery ends in one of its events */
    }
}

static void mps_fault(struct sim *s, void *st, int tenant)
{
    struct mps *m = st;
    const struct asg_place *pl = &m->cfg->pl;
    /* The first of its clients with a request in service takes the fault. */
    for (int p = pl->first[tenant]; p < pl->first[tenant + 1]; p++)
        if (mu_fault(s, &m->gpu[pl->gpu[p]], m->slot[p])) {
            sync_down(s, m, pl->gpu[p]);
            break;
        }
    if (m->rt[tenant])
        rt_offer(s, m->rt[tenant], tenant);
}

static void mps_finish(struct sim *s, void *st, struct strategy_result *res)
{
    struct mps *m = st;
    cJSON *d = cJSON_CreateObject();
    cJSON_AddNumberToObject(d, "max_clients_per_gpu", m->cfg->max_clients);
    cJSON_AddNumberToObject(d, "recovery_s", m->cfg->recovery_s);
    cJSON *gpus = cJSON_AddArrayToObject(d, "gpus");
    res->gpus_used = 0;
    for (int g = 0; g < m->n_gpu; g++) {
        struct mu_unit *u = &m->gpu[g];
        res->gpus_used += u->n > 0;
        mu_finish(s, u);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "clients", u->n);
        cJSON_AddNumberToObject(o, "faults", (double)u->faults);
        cJSON_AddItemToArray(gpus, o);
    }
    for (int t = 0; t < m->n_ten; t++)
        if (m->rt[t] && m->n_up[t] == 0)
            eng_down(s, t, m->all_down_at[t], s->now);
    res->details = d;
}

static void mps_destroy(void *st)
{
    struct mps *m = st;
    for (int g = 0; g < m->n_gpu; g++)
        mu_free(&m->gpu[g]);
    for (int t = 0; t < m->n_ten; t++)
        if (m->rt[t]) {
            rt_free(m->rt[t]);
            free(m->rt[t]);
        }
    free(m->rt);
    free(m->was_down);
    free(m->n_up);
    free(m->all_down_at);
    free(m->gpu);
    free(m->slot);
    gf_free(&m->gf);
    free(m->reset_until);
    free(m);
}

/* Stability (core/stable.h): each GPU is one MPS server of its tenants (mu_capacity). */
static void mps_capacity(const struct scenario *sc, const void *cfgp, const double *load,
                         double *cap)
{
    const struct mps_cfg *c = cfgp;
    const struct asg_place *pl = &c->pl;
    int *ten = ss_xcalloc((size_t)pl->n, sizeof *ten);
    double *caps = ss_xcalloc((size_t)pl->n, sizeof *caps);
    double *l = ss_xcalloc((size_t)pl->n, sizeof *l);
    for (int g = 0; g < sc->gpus; g++) {
        int n = 0;
        for (int p = 0; p < pl->n; p++)
            if (pl->gpu[p] == g) {
                int i = pl->ten[p];
                ten[n] = i;
                caps[n] = c->cap[i];
                /* a replica behind a router takes its share of the tenant's load */
                l[n++] = load[i] / (pl->first[i + 1] - pl->first[i]);
            }
        for (int k = 0; k < n; k++) /* an LLM tenant's steps have no mean work in advance */
            cap[ten[k]] = sc->tenants[ten[k]].llm
                              ? NAN
                              : mu_capacity(sc, n, ten, caps, 1.0, 1.0, c->bw_loss, l, k);
    }
    free(ten);
    free(caps);
    free(l);
}

const struct policy_ops policy_mps = {
    .kind = "mps",
    .parse = mps_parse,
    .free_cfg = mps_free_cfg,
    .init = mps_init,
    .arrive = mps_arrive,
    .on_event = mps_on_event,
    .fault = mps_fault,
    .finish = mps_finish,
    .destroy = mps_destroy,
    .hooks = &policy_hooks_mps,
    .capacity = mps_capacity,
    .serves_llm = 1,
    .no_tp =
        "an MPS client holds a share of one GPU: a group's lockstep all-reduces would run at its "
        "slowest client's share, and sharesim models tensor-parallel groups on whole GPUs only",
};
