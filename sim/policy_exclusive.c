/*
 * policy_exclusive — every tenant gets whole GPUs of its own (the baseline every
 * sharing strategy is compared with). A tenant holding c GPUs is an M/·/c FIFO
 * system: its queue feeds whichever of its GPUs is free.
 *
 * GPUs come from "assign": {"tenant": [gpu, …]} or, by default, an even split
 * of the pool in tenant order (tenant i gets GPUs ⌊iG/T⌋ … ⌊(i+1)G/T⌋−1).
 * A fault (tenant.fault_rate_per_h) hits one GPU of the tenant: the request in
 * service there fails (blast radius: the tenant's own slot); the GPU is
 * immediately usable again — a crash of the serving process, not of the card.
 */
#include "engine.h"
#include "policy.h"
#include "run.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

enum { EV_DONE = EV_POLICY };

struct excl_cfg {
    int gpus;
    int *owner; /* per GPU: tenant index, -1 = unused */
};

struct server {
    struct request req;
    double t_start;
    int busy;
    int tenant;
    uint32_t version; /* bumped when a fault ends the service early */
};

struct excl {
    int n_ten;
    int n_srv;
    struct server *srv;
    int **free_stack; /* per tenant: indices of its idle GPUs */
    int *n_free;
    int *n_own;
};

static int excl_parse(const struct jv *j, const cJSON *obj, const char *path,
                      const struct scenario *sc, void **out)
{
    static const char *const keys[] = {"name", "kind", "assign", NULL};
    if (jv_object(j, obj, path, keys))
        return -1;
    struct excl_cfg *c = ss_xcalloc(1, sizeof *c);
    *out = c;
    c->gpus = sc->gpus;
    c->owner = ss_xmalloc((size_t)sc->gpus * sizeof *c->owner);
    for (int g = 0; g < sc->gpus; g++)
        c->owner[g] = -1;
    char p[512], q[600];
    const cJSON *assign = cJSON_GetObjectItemCaseSensitive(obj, "assign");
    if (!assign) {
        if (sc->gpus < sc->n_tenants)
            return jv_fail(j, path,
                           "exclusive needs at least one whole GPU per tenant: %d tenants, %d "
                           "GPUs (raise \"gpus\" or use a sharing strategy)",
                           sc->n_tenants, sc->gpus);
        for (int i = 0; i < sc->n_tenants; i++) {
            int lo = (int)((long)i * sc->gpus / sc->n_tenants);
            int hi = (int)((long)(i + 1) * sc->gpus / sc->n_tenants);
            for (int g = lo; g < hi; g++)
                c->owner[g] = i;
        }
    } else {
        jv_path_key(p, sizeof p, path, "assign");
        if (!cJSON_IsObject(assign))
            return jv_fail(j, p, "expected an object {\"tenant\": [gpu, …]}");
        const cJSON *it;
        cJSON_ArrayForEach(it, assign)
        {
            jv_path_key(q, sizeof q, p, it->string);
            int ti = scn_tenant_index(sc, it->string);
            if (ti < 0)
                return jv_fail(j, q, "no tenant named \"%s\"", it->string);
            if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) < 1)
                return jv_fail(j, q, "expected a non-empty array of GPU indices");
            const cJSON *g;
            cJSON_ArrayForEach(g, it)
            {
                if (!cJSON_IsNumber(g) || g->valuedouble < 0 || g->valuedouble >= sc->gpus ||
                    g->valuedouble != (int)g->valuedouble)
                    return jv_fail(j, q, "expected GPU indices in [0, %d]", sc->gpus - 1);
                int gi = (int)g->valuedouble;
                if (c->owner[gi] >= 0)
                    return jv_fail(j, q, "GPU %d is already assigned to \"%s\"", gi,
                                   sc->tenants[c->owner[gi]].name);
                c->owner[gi] = ti;
            }
        }
        for (int i = 0; i < sc->n_tenants; i++) {
            int has = 0;
            for (int g = 0; g < sc->gpus; g++)
                has |= c->owner[g] == i;
            if (!has)
                return jv_fail(j, p, "tenant \"%s\" has no GPU", sc->tenants[i].name);
        }
    }
    for (int i = 0; i < sc->n_tenants; i++)
        if (sc->tenants[i].memory_gb > sc->gpu.memory_gb)
            return jv_fail(j, path, "tenant \"%s\" needs %g GB, a %s has %g GB",
                           sc->tenants[i].name, sc->tenants[i].memory_gb, sc->gpu.name,
                           sc->gpu.memory_gb);
    return 0;
}

static void excl_free_cfg(void *cfg)
{
    struct excl_cfg *c = cfg;
    free(c->owner);
    free(c);
}

static void *excl_init(struct sim *s, const void *cfgp)
{
    const struct excl_cfg *c = cfgp;
    struct excl *x = ss_xcalloc(1, sizeof *x);
    x->n_ten = s->n_ten;
    x->n_srv = c->gpus;
    x->srv = ss_xcalloc((size_t)c->gpus, sizeof *x->srv);
    x->free_stack = ss_xcalloc((size_t)s->n_ten, sizeof *x->free_stack);
    x->n_free = ss_xcalloc((size_t)s->n_ten, sizeof *x->n_free);
    x->n_own = ss_xcalloc((size_t)s->n_ten, sizeof *x->n_own);
    for (int g = 0; g < c->gpus; g++)
        if (c->owner[g] >= 0)
            x->n_own[c->owner[g]]++;
    for (int i = 0; i < s->n_ten; i++)
        x->free_stack[i] = ss_xmalloc((size_t)(x->n_own[i] + 1) * sizeof(int));
    /* Pushed in reverse so the lowest-numbered GPU is used first. */
    for (int g = c->gpus - 1; g >= 0; g--) {
        x->srv[g].tenant = c->owner[g];
        if (c->owner[g] >= 0)
            x->free_stack[c->owner[g]][x->n_free[c->owner[g]]++] = g;
    }
    return x;
}

static void start_service(struct sim *s, struct excl *x, int g)
{
    struct server *sv = &x->srv[g];
    eng_pop(s, sv->tenant, &sv->req);
    sv->busy = 1;
    sv->t_start = s->now;
    eng_schedule(s, s->now + sv->req.work, EV_DONE, (uint32_t)g, sv->version, 0);
}

static void excl_arrive(struct sim *s, void *st, int tenant)
{
    struct excl *x = st;
    if (x->n_free[tenant] > 0)
        start_service(s, x, x->free_stack[tenant][--x->n_free[tenant]]);
}

/* GPU g became idle: take the next request of its tenant or park the GPU. */
static void next_or_park(struct sim *s, struct excl *x, int g)
{
    struct server *sv = &x->srv[g];
    sv->busy = 0;
    if (eng_qlen(s, sv->tenant) > 0)
        start_service(s, x, g);
    else
        x->free_stack[sv->tenant][x->n_free[sv->tenant]++] = g;
}

static void excl_on_event(struct sim *s, void *st, const struct event *ev)
{
    struct excl *x = st;
    struct server *sv = &x->srv[ev->target];
    /* A completion whose request was failed by a fault in the meantime. */
    if (!sv->busy || ev->version != sv->version)
        return;
    eng_busy(s, 1.0, sv->t_start, s->now);
    eng_complete(s, &sv->req);
    next_or_park(s, x, (int)ev->target);
}

static void excl_fault(struct sim *s, void *st, int tenant)
{
    struct excl *x = st;
    for (int g = 0; g < x->n_srv; g++) {
        struct server *sv = &x->srv[g];
        if (sv->tenant == tenant && sv->busy) {
            eng_busy(s, 1.0, sv->t_start, s->now);
            eng_fail(s, &sv->req);
            sv->version++;
            next_or_park(s, x, g);
            return;
        }
    }
}

static void excl_finish(struct sim *s, void *st, struct strategy_result *res)
{
    struct excl *x = st;
    for (int g = 0; g < x->n_srv; g++)
        if (x->srv[g].busy)
            eng_busy(s, 1.0, x->srv[g].t_start, s->now);
    int used = 0;
    for (int g = 0; g < x->n_srv; g++)
        used += x->srv[g].tenant >= 0;
    res->gpus_used = used;
}

static void excl_destroy(void *st)
{
    struct excl *x = st;
    for (int i = 0; i < x->n_ten; i++)
        free(x->free_stack[i]);
    free(x->free_stack);
    free(x->n_free);
    free(x->n_own);
    free(x->srv);
    free(x);
}

const struct policy_ops policy_exclusive = {
    .kind = "exclusive",
    .parse = excl_parse,
    .free_cfg = excl_free_cfg,
    .init = excl_init,
    .arrive = excl_arrive,
    .on_event = excl_on_event,
    .fault = excl_fault,
    .finish = excl_finish,
    .destroy = excl_destroy,
};
