/*
 * policy_timeslice — CUDA time-slicing on whole GPUs (kind "timeslice"). Each
 * GPU is one ts_unit (units/tsunit.h has the exact semantics), called directly as
 * it is the only kind of server here; each tenant is a context on one GPU:
 * "assign" {"tenant": gpu} or, by default, round robin over the GPUs in tenant
 * order (tenant i on GPU i mod gpus), which is how a scheduler spreads replicas
 * (policy/assign.c reads it, as for MPS). "replicas" (the Kubernetes device-plugin
 * timeSlicing setting) caps the contexts per GPU.
 *
 * Memory is not isolated: the tenants' memory_gb add up per GPU. An
 * over-committed GPU is an error, unless "oom": "simulate", where an allocation
 * that does not fit fails every in-flight request on the card.
 *
 * An LLM tenant (docs/llm.md) is a context whose work is its engine's steps (tsunit.h): each
 * runs in the context's slices at the whole GPU's shares, preempted at a slice end and resumed
 * in its next. Its memory is what is free on its GPU: the GPU's less the other tenants'
 * memory_gb, split equally among the GPU's LLM tenants (policy/llmmem.h), and its KV cache
 * what that memory leaves after the weights. With "oom": "simulate" LLM tenants are refused:
 * an engine allocates once, at its start, and its growth is not modelled.
 * An LLM tenant assigned several GPUs ("assign": {"chat": [0, 1]}, policy/assign.h) is a
 * context on each, each running an engine of its own, behind the tenant's router
 * (policy/units/router.h; replica k is its k-th GPU as listed, the policy its serving.router
 * names). A fault of the tenant kills the first of its engines holding requests; a card fault
 * of a GPU takes that replica out of the router's choice until the reset ends.
 */
#include "core/engine.h"
#include "core/gpufault.h"
#include "core/policy.h"
#include "core/run.h"
#include "core/rate.h"
#include "policy/assign.h"
#include "policy/llmmem.h"
#include "policy/units/router.h"
#include "policy/units/tsunit.h"
#include "base/util.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>

/* The units' timers: the event names the GPU's unit (units/unit.h); a card fault and the
 * end of its reset name the GPU. */
enum { EV_UNIT = EV_POLICY, EV_CARD, EV_CARD_UP };

struct ts_cfg {
    double slice_s, switch_s;
    double refill_s; /* refill_us: a default-state context's warm-up after a switch */
    int release_on_idle;
    long replicas; /* 0 = no cap */
    int oom_simulate;
    int *gpu_of;         /* per tenant: its (first) GPU */
    struct asg_place pl; /* the contexts: one per tenant, one per GPU of a spread LLM tenant */
    double *llm_gb;      /* per LLM placement: the memory its engine gets */
    long *kv_blocks;     /* per LLM placement: its cache */
};

struct ts_state {
    int n_units, n_ten;
    struct ts_unit *units;
    int *unit_of, *ctx_of; /* per placement (ts_cfg.pl) */
    const struct asg_place *pl;
    struct router **rt;  /* per tenant: the router of an LLM tenant on several GPUs, else NULL */
    int *n_up;           /* per routed tenant: its replicas up (its availability) */
    double *all_down_at; /* per routed tenant: since when none is (n_up 0) */
    struct gpufault gf;
    double *down_since; /* per GPU: the card fault it is resetting from; < 0: up */
};

static int check_gpu(const struct jv *j, const char *path, const struct scenario *sc,
                     const struct ts_cfg *c, int g, int n, double mem, double biggest);

static int check_gpus(const struct jv *j, const char *path, const struct scenario *sc,
                      const struct ts_cfg *c)
{
    /* Per-GPU sums in one pass over the tenants: O(gpus + tenants), not their product
     * (4096 tenants on 100,000 GPUs). */
    int *count = ss_xcalloc((size_t)sc->gpus, sizeof *count);
    double *memsum = ss_xcalloc((size_t)sc->gpus, sizeof *memsum);
    double *big = ss_xcalloc((size_t)sc->gpus, sizeof *big);
    for (int p = 0; p < c->pl.n; p++) {
        int g = c->pl.gpu[p], i = c->pl.ten[p];
        count[g]++;
        memsum[g] += sc->tenants[i].memory_gb;
        if (sc->tenants[i].memory_gb > big[g])
            big[g] = sc->tenants[i].memory_gb;
    }
    int rc = 0;
    for (int g = 0; g < sc->gpus && rc == 0; g++)
        rc = check_gpu(j, path, sc, c, g, count[g], memsum[g], big[g]);
    free(count);
    free(memsum);
    free(big);
    return rc;
}

/* One GPU's n tenants, mem GB together, the biggest needing biggest GB. */
static int check_gpu(const struct jv *j, const char *path, const struct scenario *sc,
                     const struct ts_cfg *c, int g, int n, double mem, double biggest)
{
    if (c->replicas > 0 && n > c->replicas)
        return jv_fail(j, path,
                       "GPU %d gets %d tenants but replicas is %ld (%d tenant contexts need at "
                       "least %ld GPUs at %ld replicas each)",
                       g, n, c->replicas, c->pl.n, (c->pl.n + c->replicas - 1) / c->replicas,
                       c->replicas);
    if (biggest > sc->gpu.memory_gb)
        return jv_fail(j, path, "a tenant on GPU %d needs %g GB, a %s has %g GB", g, biggest,
                       sc->gpu.name, sc->gpu.memory_gb);
    if (mem > sc->gpu.memory_gb)
        return jv_fail(j, path,
                       "tenants on GPU %d need %g GB together, a %s has %g GB (time-slicing "
                       "does not isolate memory, and a process's memory is resident from its "
                       "start; \"oom\": \"simulate\" simulates a tenant growing past what is "
                       "free, its memory_growth)",
                       g, mem, sc->gpu.name, sc->gpu.memory_gb);
    return 0;
}

static int ts_parse(const struct jv *j, const cJSON *obj, const char *path,
                    const struct scenario *sc, void **out)
{
    static const char *const keys[] = {
        "name",     "kind",   "slice_ms", "switch_us", "refill_us", "release_on_idle",
        "replicas", "assign", "oom",      NULL};
    static const char *const ooms[] = {"error", "simulate", NULL};
    struct ts_cfg *c = ss_xcalloc(1, sizeof *c);
    char p[512];
    *out = c;
    c->gpu_of = ss_xcalloc((size_t)sc->n_tenants, sizeof *c->gpu_of);
    double slice_ms = sc->gpu.timeslice_s * 1e3, switch_us = sc->gpu.switch_s * 1e6;
    double refill_us = sc->gpu.ts_refill_s * 1e6;
    int oom = 0;
    c->release_on_idle = 1;
    if (jv_object(j, obj, path, keys) ||
        jv_num_gt(j, obj, path, "slice_ms", 0, 0, 1e6, &slice_ms) < 0 ||
        jv_num(j, obj, path, "switch_us", 0, 0, 1e9, &switch_us) < 0 ||
        jv_num(j, obj, path, "refill_us", 0, 0, 1e9, &refill_us) < 0 ||
        jv_bool(j, obj, path, "release_on_idle", 0, &c->release_on_idle) < 0 ||
        jv_int(j, obj, path, "replicas", 0, 1, 4096, &c->replicas) < 0 ||
        jv_enum(j, obj, path, "oom", 0, ooms, &oom) < 0 ||
        jv_at_least(j, path, "slice_ms", slice_ms, SCN_MIN_SLICE_MS, SCN_SLICE_WHY))
        return -1;
    c->slice_s = slice_ms * 1e-3;
    c->switch_s = switch_us * 1e-6;
    c->refill_s = refill_us * 1e-6;
    c->oom_simulate = oom == 1;
    for (int i = 0; i < sc->n_tenants && c->oom_simulate; i++)
        if (sc->tenants[i].llm)
            return jv_fail(j, jv_path_key(p, sizeof p, path, "oom"),
                           "\"simulate\" does not apply to LLM tenant \"%s\": an engine "
                           "allocates its weights and KV cache once, at its start",
                           sc->tenants[i].name);
    if (asg_parse_spread(j, obj, path, sc, c->gpu_of, &c->pl))
        return -1;
    c->llm_gb = ss_xcalloc((size_t)c->pl.n, sizeof *c->llm_gb);
    c->kv_blocks = ss_xcalloc((size_t)c->pl.n, sizeof *c->kv_blocks);
    return check_gpus(j, path, sc, c) ||
           llmm_placed(j, path, sc, &c->pl, NULL, "time-sliced tenants", c->llm_gb, c->kv_blocks);
}

static void ts_free_cfg(void *p)
{
    struct ts_cfg *c = p;
    free(c->gpu_of);
    asg_place_free(&c->pl);
    free(c->llm_gb);
    free(c->kv_blocks);
    free(c);
}

/* A router per LLM tenant on several GPUs, replica k its context on its k-th GPU. */
static void build_routers(struct sim *s, struct ts_state *x)
{
    const struct asg_place *pl = x->pl;
    x->n_ten = s->n_ten;
    x->rt = ss_xcalloc((size_t)s->n_ten, sizeof *x->rt);
    x->n_up = ss_xcalloc((size_t)s->n_ten, sizeof *x->n_up);
    x->all_down_at = ss_xcalloc((size_t)s->n_ten, sizeof *x->all_down_at);
    for (int t = 0; t < s->n_ten; t++) {
        int n = pl->first[t + 1] - pl->first[t];
        if (n < 2)
            continue;
        x->n_up[t] = n;
        x->rt[t] = ss_xmalloc(sizeof *x->rt[t]);
        rt_init(x->rt[t], s->sc->tenants[t].llm->router, n);
        for (int p = pl->first[t]; p < pl->first[t + 1]; p++)
            rt_add(x->rt[t], (struct unit){&ts_unit_ops, &x->units[x->unit_of[p]]}, x->ctx_of[p]);
    }
}

static void *ts_init(struct sim *s, const void *cfgp)
{
    const struct ts_cfg *c = cfgp;
    const struct scenario *sc = s->sc;
    struct ts_state *x = ss_xcalloc(1, sizeof *x);
    x->n_units = sc->gpus;
    x->units = ss_xcalloc((size_t)sc->gpus, sizeof *x->units);
    const struct asg_place *pl = &c->pl;
    x->pl = pl;
    x->unit_of = ss_xcalloc((size_t)pl->n, sizeof *x->unit_of);
    x->ctx_of = ss_xcalloc((size_t)pl->n, sizeof *x->ctx_of);
    int *ten = ss_xcalloc((size_t)pl->n, sizeof *ten);
    int *place = ss_xcalloc((size_t)pl->n, sizeof *place);
    double *mem = ss_xcalloc((size_t)pl->n, sizeof *mem);
    /* The contexts of each GPU, in placement order, by a counting sort: O(gpus + contexts). */
    int *first = ss_xcalloc((size_t)sc->gpus + 1, sizeof *first), *order = ten;
    for (int p = 0; p < pl->n; p++)
        first[pl->gpu[p] + 1]++;
    for (int g = 0; g < sc->gpus; g++)
        first[g + 1] += first[g];
    int *fill = ss_xcalloc((size_t)sc->gpus, sizeof *fill);
    for (int p = 0; p < pl->n; p++) {
        int g = pl->gpu[p], n = fill[g]++, i = pl->ten[p];
        x->unit_of[p] = g;
        x->ctx_of[p] = n;
        order[first[g] + n] = i;
        place[first[g] + n] = p;
        mem[first[g] + n] = sc->tenants[i].llm ? c->llm_gb[p] : sc->tenants[i].memory_gb;
    }
    for (int g = 0; g < sc->gpus; g++) {
        /* A context owns the whole GPU during its slice: all SMs, all the bandwidth. */
        ts_unit_init(&x->units[g], sc, unit_addr(EV_UNIT, g), first[g + 1] - first[g],
                     order + first[g], 1.0, 1.0, mem + first[g], c->slice_s, c->switch_s,
                     c->release_on_idle, 1.0, c->oom_simulate, sc->gpu.memory_gb);
        ts_set_refill(&x->units[g], sc, c->refill_s);
        for (int k = first[g]; k < first[g + 1]; k++)
            if (sc->tenants[order[k]].llm)
                ts_set_llm(&x->units[g], sc, k - first[g], c->kv_blocks[place[k]]);
        ts_fold_switches(&x->units[g], sc); /* a tenant is a context here, on one GPU */
        ts_start(s, &x->units[g]);
    }
    free(first);
    free(fill);
    free(ten);
    free(place);
    free(mem);
    build_routers(s, x);
    x->down_since = ss_xmalloc((size_t)sc->gpus * sizeof *x->down_since);
    for (int g = 0; g < sc->gpus; g++)
        x->down_since[g] = -1;
    gf_start(&x->gf, s, EV_CARD);
    return x;
}

static void ts_p_arrive(struct sim *s, void *st, int tenant)
{
    struct ts_state *x = st;
    if (x->rt[tenant]) {
        rt_offer(s, x->rt[tenant], tenant);
        return;
    }
    int p = x->pl->first[tenant];
    if (x->down_since[x->unit_of[p]] < 0)
        ts_arrive(s, &x->units[x->unit_of[p]], x->ctx_of[p]);
}

/* GPU g's contexts that are replicas behind a router go out of its choice (down 1) or back. */
static void route_gpu(struct sim *s, struct ts_state *x, int g, int down)
{
    const struct ts_unit *u = &x->units[g];
    for (int k = 0; k < u->n; k++) {
        int t = u->ctx[k].tenant;
        struct router *r = x->rt[t];
        for (int q = 0; r && q < r->n; q++)
            if (r->rep[q].u.self == u) {
                rt_set_down(r, q, down);
                if (down && --x->n_up[t] == 0)
                    x->all_down_at[t] = s->now;
                if (!down && x->n_up[t]++ == 0)
                    eng_down(s, t, x->all_down_at[t], s->now);
                if (!down)
                    rt_offer(s, r, t);
            }
    }
}

/* Books GPU g's reset as downtime of its tenants; a routed tenant's is booked by route_gpu
 * (it is down only while every replica is). */
static void book_reset(struct sim *s, struct ts_state *x, int g)
{
    const struct ts_unit *u = &x->units[g];
    for (int k = 0; k < u->n; k++)
        if (!x->rt[u->ctx[k].tenant])
            eng_down(s, u->ctx[k].tenant, x->down_since[g], s->now);
}

/* A card fault: every context's requests in service fail and the GPU is down for the
 * reset; afterwards every context starts again with its resident memory. */
SS_COLD static void card_fault(struct sim *s, struct ts_state *x, int g)
{
    if (!gf_fault(&x->gf, s, g) || x->down_since[g] >= 0)
        return;
    ts_abort(s, &x->units[g]);
    ts_reset(s, &x->units[g]);
    x->down_since[g] = s->now;
    route_gpu(s, x, g, 1);
    eng_schedule(s, s->now + x->gf.reset_s, EV_CARD_UP, (uint32_t)g, 0, 0);
}

SS_COLD static void card_up(struct sim *s, struct ts_state *x, int g)
{
    book_reset(s, x, g);
    x->down_since[g] = -1;
    struct ts_unit *u = &x->units[g];
    for (int k = 0; k < u->n; k++)
        ts_arrive(s, u, k);
    route_gpu(s, x, g, 0);
}

static void ts_p_event(struct sim *s, void *st, const struct event *ev)
{
    struct ts_state *x = st;
    if (ev->kind == EV_UNIT)
        ts_event(s, &x->units[unit_ev_id(ev)], ev);
    else if (ev->kind == EV_CARD)
        card_fault(s, x, (int)ev->target);
    else
        card_up(s, x, (int)ev->target);
}

static void ts_p_fault(struct sim *s, void *st, int tenant)
{
    struct ts_state *x = st;
    const struct asg_place *pl = x->pl;
    /* The first of its contexts with requests in service takes the fault. */
    for (int p = pl->first[tenant]; p < pl->first[tenant + 1]; p++)
        if (ts_fault(s, &x->units[x->unit_of[p]], x->ctx_of[p]))
            break;
    if (x->rt[tenant]) /* an engine the fault emptied takes what waits at the router */
        rt_offer(s, x->rt[tenant], tenant);
}

static void ts_p_finish(struct sim *s, void *st, struct strategy_result *res)
{
    struct ts_state *x = st;
    cJSON *gpus = cJSON_CreateArray();
    res->gpus_used = 0;
    for (int g = 0; g < x->n_units; g++) {
        struct ts_unit *u = &x->units[g];
        ts_finish(s, u);
        if (x->down_since[g] >= 0)
            book_reset(s, x, g);
        res->gpus_used += u->n > 0;
        cJSON *o = cJSON_CreateObject();
        cJSON *names = cJSON_AddArrayToObject(o, "tenants");
        for (int k = 0; k < u->n; k++)
            cJSON_AddItemToArray(names, cJSON_CreateString(s->sc->tenants[u->ctx[k].tenant].name));
        cJSON_AddNumberToObject(o, "switches", (double)u->switches);
        cJSON_AddNumberToObject(o, "ooms", (double)u->ooms);
        cJSON_AddNumberToObject(o, "restarts", (double)u->restarts);
        cJSON_AddItemToArray(gpus, o);
    }
    for (int t = 0; t < x->n_ten; t++)
        if (x->rt[t] && x->n_up[t] == 0)
            eng_down(s, t, x->all_down_at[t], s->now);
    res->details = cJSON_CreateObject();
    cJSON_AddItemToObject(res->details, "gpus", gpus);
}

static void ts_destroy(void *st)
{
    struct ts_state *x = st;
    for (int g = 0; g < x->n_units; g++)
        ts_unit_free(&x->units[g]);
    for (int t = 0; t < x->n_ten; t++)
        if (x->rt[t]) {
            rt_free(x->rt[t]);
            free(x->rt[t]);
        }
    free(x->rt);
    free(x->n_up);
    free(x->all_down_at);
    free(x->units);
    free(x->unit_of);
    free(x->ctx_of);
    free(x->down_since);
    gf_free(&x->gf);
    free(x);
}

/* Stability (core/stable.h): each GPU is one time-sliced unit of its tenants (ts_capacity); a
 * context that holds the GPU serves its whole work.concurrency at once (rate_saturated). */
static void ts_capacity_all(const struct scenario *sc, const void *cfgp, const double *load,
                            double *cap)
{
    const struct ts_cfg *c = cfgp;
    const struct asg_place *pl = &c->pl;
    int *ten = ss_xcalloc((size_t)pl->n, sizeof *ten);
    double *speed = ss_xcalloc((size_t)pl->n, sizeof *speed);
    double *l = ss_xcalloc((size_t)pl->n, sizeof *l);
    for (int g = 0; g < sc->gpus; g++) {
        int n = 0;
        for (int p = 0; p < pl->n; p++)
            if (pl->gpu[p] == g) {
                int i = pl->ten[p];
                ten[n] = i;
                speed[n] = rate_saturated(&sc->gpu, &sc->tenants[i], 1, 1);
                /* a replica behind a router takes its share of the tenant's load */
                l[n++] = load[i] / (pl->first[i + 1] - pl->first[i]);
            }
        for (int k = 0; k < n; k++) /* an LLM tenant's steps have no mean work in advance */
            cap[ten[k]] =
                sc->tenants[ten[k]].llm
                    ? NAN
                    : ts_capacity(n, speed, l, k, c->slice_s,
                                  ts_mean_switch_refill_s(sc, n, ten, c->switch_s, c->refill_s));
    }
    free(ten);
    free(speed);
    free(l);
}

const struct policy_ops policy_timeslice = {
    .kind = "timeslice",
    .parse = ts_parse,
    .free_cfg = ts_free_cfg,
    .init = ts_init,
    .arrive = ts_p_arrive,
    .on_event = ts_p_event,
    .fault = ts_p_fault,
    .finish = ts_p_finish,
    .destroy = ts_destroy,
    .hooks = &policy_hooks_timeslice,
    .capacity = ts_capacity_all,
    .serves_llm = 1,
    .no_tp = "a time-sliced context runs only in its own slices, and nothing aligns the slices of "
             "different GPUs: every all-reduce would wait for the group's last GPU to switch to "
             "it; sharesim models tensor-parallel groups on whole GPUs only",
};
