/*
 * policy_exclusive — every tenant gets whole GPUs of its own (the baseline every
 * sharing strategy is compared with). A tenant holding c GPUs is an M/·/c FIFO
 * system: its queue feeds whichever of its GPUs is free.
 *
 * GPUs come from "assign": {"tenant": [gpu, …]} (read by policy/assign.c) or, by
 * default, an even split of the pool in tenant order (tenant i gets GPUs ⌊iG/T⌋ …
 * ⌊(i+1)G/T⌋−1).
 * A fault (tenant.fault_rate_per_h) hits one GPU of the tenant: the request in
 * service there fails (blast radius: the tenant's own slot); the GPU is
 * immediately usable again — a crash of the serving process, not of the card.
 *
 * "discipline" picks how a GPU serves its tenant's requests:
 * - "fifo" (default): one request at a time in arrival order; the tenant's queue
 *   feeds whichever of its GPUs is free (M/·/c FIFO).
 * - "ps" (processor sharing): every request is taken into service on arrival and
 *   the n requests on a GPU each progress at speed 1/n (M/G/1-PS per GPU, exact:
 *   mean sojourn E[S]/(1 − ρ) whatever the work distribution). With several GPUs
 *   a request joins the GPU holding the fewest requests (ties: lowest index) and
 *   stays there. A fault fails every request on the GPU it hits (they all live
 *   in the crashed process).
 *   Implementation: per GPU a virtual time v = service attained by each request
 *   present since the GPU was last idle (dv/dt = 1/n). A request of work w that
 *   joins at level v finishes when v reaches v + w, so the requests sit in a
 *   min-heap of finish levels; an arrival or departure advances v (charging the
 *   work done to everyone at once, O(1)) and reschedules the earliest finish,
 *   at now + (level − v)·n. The previous completion event is left in the engine
 *   heap and skipped by the GPU's version number (engine.h). v restarts at 0
 *   whenever the GPU empties, so it never grows past one busy period and keeps
 *   its precision over long runs. Cost O(log n) per event plus O(GPUs of the
 *   tenant) to pick the least-loaded GPU.
 *
 * Card faults (gpu_fault_rate_per_h, core/gpufault.h): the GPU's requests in service fail
 * and it serves nothing for the reset; the tenant's other GPUs go on, and it is unavailable
 * while all of its GPUs are down.
 * An LLM tenant (docs/llm.md) runs one serving engine per GPU (policy/units/llmunit.c) on the
 * whole GPU (SM and bandwidth shares 1) with the KV cache the GPU's memory leaves; "discipline"
 * does not apply to it. A tenant with several engines has them behind its router
 * (policy/units/router.h), replica k its k-th engine in GPU order, and the policy its
 * serving.router names picks the engine of each arrival (least_outstanding by default: the
 * engine holding the fewest requests, ties to the lowest index); a fault kills one engine
 * holding requests, and every request in it fails. With "tensor_parallel": k in its serving
 * object (llm/tp.h) an engine runs on a group of k of the tenant's GPUs — its GPUs in index
 * order, k at a time — each group inside one node of TP_NODE_GPUS and, when k fits the
 * profile's NVLink domain, inside one domain (tp_groups checks at load).
 *
 * Saturated tenants: the engine refills their queue without announcing it, so
 * a GPU that frees up (FIFO) or empties (PS) pulls from the queue, and an
 * announced arrival fills every idle GPU of the tenant. Under PS a saturated
 * tenant therefore keeps one request per GPU (an unbounded number sharing a
 * GPU would have no steady state).
 */
#include "core/engine.h"
#include "core/gpufault.h"
#include "core/policy.h"
#include "core/run.h"
#include "core/rate.h"
#include "policy/assign.h"
#include "policy/units/llmunit.h"
#include "policy/units/rgroup.h"
#include "policy/units/router.h"
#include "policy/tpgroup.h"
#include "base/util.h"
#include "llm/tp.h"

#include <stdlib.h>
#include <string.h>

enum { EV_DONE = EV_POLICY, EV_CARD, EV_CARD_UP, EV_LLM };
enum { DISC_FIFO, DISC_PS };

struct excl_cfg {
    int gpus;
    int discipline;
    int *owner; /* per GPU: tenant index, -1 = unused */
};

/* A request sharing a PS GPU: it leaves when the GPU's virtual time reaches finish_v. */
struct ps_job {
    double finish_v;
    uint64_t order; /* admission order: equal levels leave first-come first-served */
    struct request req;
};

struct server {
    struct rgroup g; /* FIFO: the requests in service (up to work.concurrency) */
    double speed1;   /* FIFO: one request's speed alone on the GPU (rate_speed_n, cached) */
    double used1;    /* FIFO: the SMs one request keeps busy (rate_sm_in_use, cached) */
    double t_start;  /* start of the current busy period (utilisation) */
    int busy;
    int down; /* resetting after a card fault */
    int tenant;
    uint32_t version; /* bumped when the pending completion becomes stale */
    /* PS only: min-heap of the requests present, by (finish_v, order). */
    struct ps_job *jobs;
    size_t n_jobs, cap_jobs;
    double v;      /* virtual time: service attained by each request present */
    double t_last; /* when v was last advanced */
    uint64_t next_order;
};

struct excl {
    int n_ten;
    int n_srv;
    int discipline;
    /* FIFO, no LLM tenant and every tenant's concurrency 1: start_one / done_one everywhere */
    int fifo_one;
    struct server *srv;
    int **free_stack; /* per tenant: indices of its idle GPUs (FIFO) */
    int *n_free;
    int *n_own;
    int **own; /* per tenant: its GPUs in increasing index (PS placement) */
    struct gpufault gf;
    int *n_up;            /* per tenant: its GPUs not resetting */
    double *all_down_at;  /* per tenant: since when all of them are (n_up 0) */
    struct llm_unit **lu; /* per GPU of an LLM tenant: its engine; NULL elsewhere */
    struct router **rt;   /* per tenant: the router of an LLM tenant's engines; NULL with one */
};

/* An LLM tenant's KV blocks on a whole GPU into *blocks (may be NULL); 0 for other tenants.
 * With j: -1 with the message at path when its weights do not fit. */
static int llm_kv_blocks(const struct jv *j, const char *path, const struct scenario *sc, int i,
                         long *blocks)
{
    const struct tenant_cfg *t = &sc->tenants[i];
    char where[128], msg[SS_ERRLEN];
    long b = 0;
    if (!t->llm)
        return 0;
    if (tpg_degree(sc, i) > 1)
        snprintf(where, sizeof where, "each %s's %g GB of a tensor_parallel %d group", sc->gpu.name,
                 sc->gpu.memory_gb, tpg_degree(sc, i));
    else
        snprintf(where, sizeof where, "a whole %s's %g GB", sc->gpu.name, sc->gpu.memory_gb);
    if (lsv_kv_blocks(t->llm, sc->gpu.memory_gb, where, &b, msg, sizeof msg)) {
        if (!j)
            SS_FATAL("tenant %s: %s (parse() should have refused it)", t->name, msg);
        return jv_fail(j, path, "tenant \"%s\": %s", t->name, msg);
    }
    if (blocks)
        *blocks = b;
    return 0;
}

/* Tenant i's GPUs (owner) as TP groups (policy/tpgroup.h): -1 with the message at path. */
static int tp_groups(const struct jv *j, const char *path, const struct scenario *sc,
                     const int *owner, int i)
{
    int *gpus = ss_xmalloc((size_t)sc->gpus * sizeof *gpus), n = 0;
    for (int g = 0; g < sc->gpus; g++)
        if (owner[g] == i)
            gpus[n++] = g;
    int rc = tpg_check(j, path, sc, i, n, gpus, "set \"assign\" so that");
    free(gpus);
    return rc;
}

static int excl_parse(const struct jv *j, const cJSON *obj, const char *path,
                      const struct scenario *sc, void **out)
{
    static const char *const keys[] = {"name", "kind", "assign", "discipline", NULL};
    static const char *const disciplines[] = {"fifo", "ps", NULL};
    struct excl_cfg *c = ss_xcalloc(1, sizeof *c);
    *out = c;
    c->discipline = DISC_FIFO;
    if (jv_object(j, obj, path, keys) ||
        jv_enum(j, obj, path, "discipline", 0, disciplines, &c->discipline) < 0)
        return -1;
    c->gpus = sc->gpus;
    c->owner = ss_xmalloc((size_t)sc->gpus * sizeof *c->owner);
    for (int g = 0; g < sc->gpus; g++)
        c->owner[g] = -1;
    int rc = asg_parse_owned(j, obj, path, sc, c->owner);
    if (rc < 0)
        return -1;
    if (rc == 1) {
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
    }
    for (int i = 0; i < sc->n_tenants && c->discipline == DISC_PS; i++)
        if (sc->tenants[i].work.concurrency > 1)
            return jv_fail(j, path,
                           "tenant \"%s\" has work.concurrency %d, but \"discipline\": \"ps\" "
                           "already serves every request at once: use \"fifo\" with a "
                           "concurrency, or \"ps\" without one",
                           sc->tenants[i].name, sc->tenants[i].work.concurrency);
    for (int i = 0; i < sc->n_tenants; i++) {
        if (tp_groups(j, path, sc, c->owner, i) || llm_kv_blocks(j, path, sc, i, NULL))
            return -1;
        /* A card reset would have to stop and restart the engine: not modelled yet. */
        if (sc->tenants[i].llm && sc->gpu_fault_rate_per_h > 0)
            return jv_fail(j, path,
                           "tenant \"%s\" is an LLM tenant: card faults (gpu_fault_rate_per_h) "
                           "are not modelled for its engines yet",
                           sc->tenants[i].name);
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

/* With fifo_one an arrival does something only while one of its tenant's GPUs is idle: the
 * engine announces arrivals only then (eng_announce), and an arrival that would wait costs no
 * call. Set wherever a tenant's free stack changes. */
static void sync_announce(struct sim *s, const struct excl *x, int tenant)
{
    if (x->fifo_one)
        eng_announce(s, tenant, x->n_free[tenant] > 0);
}

/* A router per LLM tenant with several engines (GPUs, or TP groups), replicas in GPU order. */
static void build_routers(struct sim *s, struct excl *x)
{
    x->rt = ss_xcalloc((size_t)s->n_ten, sizeof *x->rt);
    for (int t = 0; t < s->n_ten; t++) {
        const struct lsv_cfg *l = s->sc->tenants[t].llm;
        int engines = l ? x->n_own[t] / tpg_degree(s->sc, t) : 0;
        if (engines < 2)
            continue;
        x->rt[t] = ss_xmalloc(sizeof *x->rt[t]);
        rt_init(x->rt[t], l->router, engines);
        for (int k = 0; k < x->n_own[t]; k++) {
            struct llm_unit *u = x->lu[x->own[t][k]];
            if (u)
                rt_add(x->rt[t], (struct unit){&lu_unit_ops, u}, 0);
        }
    }
}

static void *excl_init(struct sim *s, const void *cfgp)
{
    const struct excl_cfg *c = cfgp;
    struct excl *x = ss_xcalloc(1, sizeof *x);
    x->n_ten = s->n_ten;
    x->n_srv = c->gpus;
    x->discipline = c->discipline;
    x->srv = ss_xcalloc((size_t)c->gpus, sizeof *x->srv);
    x->free_stack = ss_xcalloc((size_t)s->n_ten, sizeof *x->free_stack);
    x->n_free = ss_xcalloc((size_t)s->n_ten, sizeof *x->n_free);
    x->n_own = ss_xcalloc((size_t)s->n_ten, sizeof *x->n_own);
    x->own = ss_xcalloc((size_t)s->n_ten, sizeof *x->own);
    for (int g = 0; g < c->gpus; g++)
        if (c->owner[g] >= 0)
            x->n_own[c->owner[g]]++;
    for (int i = 0; i < s->n_ten; i++) {
        x->free_stack[i] = ss_xmalloc((size_t)(x->n_own[i] + 1) * sizeof(int));
        x->own[i] = ss_xmalloc((size_t)(x->n_own[i] + 1) * sizeof(int));
    }
    int *n_listed = ss_xcalloc((size_t)s->n_ten, sizeof *n_listed);
    for (int g = 0; g < c->gpus; g++)
        if (c->owner[g] >= 0)
            x->own[c->owner[g]][n_listed[c->owner[g]]++] = g;
    free(n_listed);
    x->lu = ss_xcalloc((size_t)c->gpus, sizeof *x->lu);
    int *n_seen = ss_xcalloc((size_t)s->n_ten, sizeof *n_seen);
    for (int g = 0; g < c->gpus; g++) {
        int i = c->owner[g];
        long blocks;
        if (i < 0 || !s->sc->tenants[i].llm)
            continue;
        /* A TP group's engine sits at its first GPU; the others' lu stay NULL. */
        if (n_seen[i]++ % tpg_degree(s->sc, i))
            continue;
        llm_kv_blocks(NULL, NULL, s->sc, i, &blocks);
        x->lu[g] =
            lu_new(i, s->sc->tenants[i].llm, blocks, &s->sc->gpu, 1.0, 1.0, unit_addr(EV_LLM, g));
    }
    free(n_seen);
    build_routers(s, x);
    /* Pushed in reverse so the lowest-numbered GPU is used first. */
    for (int g = c->gpus - 1; g >= 0; g--) {
        x->srv[g].tenant = c->owner[g];
        rg_init(&x->srv[g].g, c->owner[g] >= 0 ? s->sc->tenants[c->owner[g]].work.concurrency : 1);
        if (c->owner[g] >= 0) {
            const struct tenant_cfg *t = &s->sc->tenants[c->owner[g]];
            x->srv[g].speed1 = rate_speed_n(&s->sc->gpu, t, 1, 1, 1);
            x->srv[g].used1 = rate_sm_in_use(t, 1.0, 1);
        }
        if (c->owner[g] >= 0)
            x->free_stack[c->owner[g]][x->n_free[c->owner[g]]++] = g;
    }
    x->fifo_one = c->discipline == DISC_FIFO;
    for (int i = 0; i < s->n_ten; i++)
        x->fifo_one &= s->sc->tenants[i].work.concurrency <= 1 && !s->sc->tenants[i].llm;
    x->n_up = ss_xmalloc((size_t)s->n_ten * sizeof *x->n_up);
    x->all_down_at = ss_xcalloc((size_t)s->n_ten, sizeof *x->all_down_at);
    for (int i = 0; i < s->n_ten; i++)
        x->n_up[i] = x->n_own[i];
    if (x->fifo_one)
        eng_may_mute(s);
    for (int i = 0; i < s->n_ten; i++)
        sync_announce(s, x, i);
    gf_start(&x->gf, s, EV_CARD);
    return x;
}

/* ---- FIFO ---------------------------------------------------------------- */

/*
 * A GPU runs up to its tenant's work.concurrency requests at once, sharing the GPU equally
 * (each at rate_speed_n(1, 1, n): 1 while n·s ≤ 1, s the occupancy). With concurrency 1
 * (the default) a GPU is one server and its idle GPUs wait on a stack (the lowest index
 * first), as before concurrency; with more, a request joins the tenant's GPU with room that
 * holds the fewest (lowest index on ties).
 */

static const struct tenant_cfg *srv_tenant(const struct sim *s, const struct server *sv)
{
    return &s->sc->tenants[sv->tenant];
}

/* Books the busy time since t_start at the SMs the requests in service keep busy. */
static void fifo_book(struct sim *s, struct server *sv)
{
    if (sv->g.n > 0)
        eng_busy(s, rate_sm_in_use(srv_tenant(s, sv), 1.0, sv->g.n), sv->t_start, s->now);
    sv->t_start = s->now;
}

/* The group changed: its new speed, and the next completion. */
static void fifo_resched(struct sim *s, struct server *sv, int g)
{
    sv->busy = sv->g.n > 0;
    if (!sv->busy) {
        rg_set_speed(&sv->g, s->now, 0);
        return;
    }
    sv->version++;
    rg_set_speed(&sv->g, s->now, rate_speed_n(&s->sc->gpu, srv_tenant(s, sv), 1, 1, sv->g.n));
    eng_schedule(s, s->now + rg_next_s(&sv->g), EV_DONE, (uint32_t)g, sv->version, 0);
}

static inline void start_service(struct sim *s, struct excl *x, int g)
{
    struct server *sv = &x->srv[g];
    struct request r;
    eng_pop(s, sv->tenant, &r);
    fifo_book(s, sv);
    rg_advance(&sv->g, s->now);
    rg_add(&sv->g, &r);
    fifo_resched(s, sv, g);
}

/*
 * Concurrency 1 for every tenant (the default, and every benchmark; x->fifo_one): one request
 * per GPU, at the speed and SM share cached at init, idle GPUs on the stack. The same engine
 * calls in the same order, so the same numbers, as the general path (fifo_book, rgroup,
 * fifo_resched), which serves any concurrency, without a rate-model call and a group update
 * per request. One call site each, so the compiler inlines them into the policy's arrive and
 * event functions (which the M/M/4 benchmark's instruction count shows it does not do for
 * helpers called from several places). Faults and card resets take the general path; a
 * request it starts completes here all the same.
 */
static inline void start_one(struct sim *s, struct server *sv, int g)
{
    struct request *r = &sv->g.r[0];
    eng_pop(s, sv->tenant, r);
    sv->g.n = 1;
    sv->busy = 1;
    sv->t_start = s->now;
    double left = sv->speed1 == 1.0 ? r->work : r->work / sv->speed1;
    eng_schedule(s, s->now + left, EV_DONE, (uint32_t)g, sv->version, 0);
}

/* The rest of done_one: the GPU empties, or takes a saturated tenant's last request (eng_pop
 * refills the queue). Out of line, so that done_one's common path makes tail calls only. */
SS_NOINLINE static void done_one_refill(struct sim *s, struct server *sv, int g)
{
    start_one(s, sv, g);
}

SS_NOINLINE static void done_one_rest(struct sim *s, struct excl *x, struct server *sv, int g)
{
    sv->g.n = 0;
    sv->busy = 0;
    sv->g.r[0].work = 0;
    if (eng_qlen(s, sv->tenant) > 0) {
        done_one_refill(s, sv, g); /* a tail call: parking saves no register */
    } else {
        x->free_stack[sv->tenant][x->n_free[sv->tenant]++] = g;
        eng_announce(s, sv->tenant, 1);
    }
}

/* GPU g's request is done; the next waiting one starts at once (the same engine calls in the
 * same order as start_one's: the GPU stays busy with one request, and its version stands). */
static inline void done_one(struct sim *s, struct excl *x, struct server *sv, int g)
{
    eng_busy(s, sv->used1, sv->t_start, s->now);
    eng_complete(s, &sv->g.r[0]);
    struct request *r = &sv->g.r[0];
    /* r->tenant is sv->tenant (a GPU serves its own tenant), and eng_complete has just looked
     * it up: the compiler reuses that tenant_rt instead of computing it again from sv. */
    if (!eng_pop_now(s, r->tenant, r)) {
        done_one_rest(s, x, sv, g);
        return;
    }
    sv->t_start = s->now;
    double left = sv->speed1 == 1.0 ? r->work : r->work / sv->speed1;
    eng_schedule_last(s, s->now + left, EV_DONE, (uint32_t)g, sv->version, 0);
}

/* The tenant's GPU that takes its next request, or -1 when all are full. */
static int fifo_pick(const struct excl *x, int tenant)
{
    if (x->srv[x->own[tenant][0]].g.cap == 1)
        return x->n_free[tenant] > 0 ? x->free_stack[tenant][x->n_free[tenant] - 1] : -1;
    int best = -1;
    for (int k = 0; k < x->n_own[tenant]; k++) {
        const struct server *sv = &x->srv[x->own[tenant][k]];
        if (!sv->down && !rg_full(&sv->g) && (best < 0 || sv->g.n < x->srv[best].g.n))
            best = x->own[tenant][k];
    }
    return best;
}

/* One pass for an ordinary arrival; a saturated tenant's refills fill every idle GPU. */
SS_NOINLINE static void arrive_loop(struct sim *s, struct excl *x, int tenant)
{
    while (x->n_free[tenant] > 0 && eng_qlen(s, tenant) > 0) {
        int g = x->free_stack[tenant][--x->n_free[tenant]];
        start_one(s, &x->srv[g], g);
    }
    sync_announce(s, x, tenant);
}

/* An arrival that finds an idle GPU: the common case is the request that arrived the only one
 * waiting (an idle GPU and a waiting request do not outlast a handler), so it starts on the top
 * of the stack as arrive_loop would, then the loop ends; made with tail calls only, so no
 * register is saved. Anything else (a saturated tenant's refill) takes the loop. */
SS_NOINLINE static void arrive_one(struct sim *s, struct excl *x, int tenant)
{
    int g = x->free_stack[tenant][x->n_free[tenant] - 1];
    struct server *sv = &x->srv[g];
    struct request *r = &sv->g.r[0];
    if (eng_qlen(s, tenant) != 1 || !eng_pop_now(s, tenant, r)) {
        arrive_loop(s, x, tenant);
        return;
    }
    x->n_free[tenant]--;
    sv->g.n = 1;
    sv->busy = 1;
    sv->t_start = s->now;
    eng_announce(s, tenant, x->n_free[tenant] > 0);
    double left = sv->speed1 == 1.0 ? r->work : r->work / sv->speed1;
    eng_schedule_last(s, s->now + left, EV_DONE, (uint32_t)g, sv->version, 0);
}

SS_NOINLINE static void fifo_arrive(struct sim *s, struct excl *x, int tenant)
{
    for (int g; eng_qlen(s, tenant) > 0 && (g = fifo_pick(x, tenant)) >= 0;) {
        if (x->srv[g].g.cap == 1)
            x->n_free[tenant]--;
        start_service(s, x, g);
    }
}

/* GPU g has room again: take the tenant's next requests, or park it (concurrency 1). */
static inline void next_or_park(struct sim *s, struct excl *x, int g)
{
    struct server *sv = &x->srv[g];
    while (!rg_full(&sv->g) && eng_qlen(s, sv->tenant) > 0)
        start_service(s, x, g);
    if (sv->g.cap == 1 && sv->g.n == 0)
        x->free_stack[sv->tenant][x->n_free[sv->tenant]++] = g;
    sync_announce(s, x, sv->tenant);
}

SS_NOINLINE static void fifo_done(struct sim *s, struct excl *x, int g)
{
    struct server *sv = &x->srv[g];
    fifo_book(s, sv);
    rg_advance(&sv->g, s->now);
    struct request r;
    rg_remove(&sv->g, rg_first(&sv->g), &r);
    r.work = 0;
    eng_complete(s, &r);
    fifo_resched(s, sv, g);
    next_or_park(s, x, g);
}

static void fifo_fault(struct sim *s, struct excl *x, int tenant)
{
    for (int g = 0; g < x->n_srv; g++) {
        struct server *sv = &x->srv[g];
        if (sv->tenant == tenant && sv->busy) {
            fifo_book(s, sv);
            while (sv->g.n > 0) { /* the serving process crashed: all it held fails */
                struct request r;
                rg_remove(&sv->g, 0, &r);
                eng_fail(s, &r);
            }
            sv->version++;
            fifo_resched(s, sv, g);
            next_or_park(s, x, g);
            return;
        }
    }
}

/* ---- processor sharing --------------------------------------------------- */

static int job_before(const struct ps_job *a, const struct ps_job *b)
{
    return a->finish_v < b->finish_v || (a->finish_v == b->finish_v && a->order < b->order);
}

static void jobs_push(struct server *sv, const struct ps_job *jb)
{
    if (sv->n_jobs == sv->cap_jobs) {
        sv->cap_jobs = sv->cap_jobs ? 2 * sv->cap_jobs : 16;
        sv->jobs = ss_xrealloc(sv->jobs, sv->cap_jobs * sizeof *sv->jobs);
    }
    size_t i = sv->n_jobs++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!job_before(jb, &sv->jobs[parent]))
            break;
        sv->jobs[i] = sv->jobs[parent];
        i = parent;
    }
    sv->jobs[i] = *jb;
}

static struct ps_job jobs_pop(struct server *sv)
{
    struct ps_job top = sv->jobs[0];
    struct ps_job last = sv->jobs[--sv->n_jobs];
    size_t i = 0, n = sv->n_jobs;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && job_before(&sv->jobs[c + 1], &sv->jobs[c]))
            c++;
        if (!job_before(&sv->jobs[c], &last))
            break;
        sv->jobs[i] = sv->jobs[c];
        i = c;
    }
    if (n)
        sv->jobs[i] = last;
    return top;
}

/* The n requests of a PS GPU each progress at 1 / max(1, n·s): 1/n with the default
 * occupancy s = 1, and no slower than alone while their n·s SMs fit the GPU. */
static double ps_divisor(const struct sim *s, const struct server *sv)
{
    double s_occ = rate_occupancy(srv_tenant(s, sv)), n = (double)sv->n_jobs;
    return s_occ >= 1 ? n : n * s_occ > 1 ? n * s_occ : 1;
}

/* Charges the service done since t_last to every request present (each got dt/divisor),
 * and books the SM time: min(1, n·s) of the GPU (all of it with the default occupancy). */
static void ps_advance(struct sim *s, struct server *sv)
{
    if (sv->n_jobs > 0) {
        sv->v += (s->now - sv->t_last) / ps_divisor(s, sv);
        eng_busy(s, rate_sm_in_use(srv_tenant(s, sv), 1.0, (int)sv->n_jobs), sv->t_last, s->now);
    }
    sv->t_last = s->now;
}

/* Cancels the pending completion and schedules the earliest one under the current n. */
static void ps_reschedule(struct sim *s, struct server *sv, int g)
{
    sv->version++;
    if (sv->n_jobs == 0)
        return;
    double left = sv->jobs[0].finish_v - sv->v;
    if (left < 0)
        left = 0;
    eng_schedule(s, s->now + left * ps_divisor(s, sv), EV_DONE, (uint32_t)g, sv->version, 0);
}

/* Takes the head of the tenant's queue into service on GPU g. */
static void ps_admit(struct sim *s, struct excl *x, int g)
{
    struct server *sv = &x->srv[g];
    ps_advance(s, sv);
    if (sv->n_jobs == 0) {
        sv->busy = 1;
        sv->t_start = s->now;
        sv->v = 0;
    }
    struct ps_job jb;
    eng_pop(s, sv->tenant, &jb.req);
    jb.finish_v = sv->v + jb.req.work;
    jb.order = sv->next_order++;
    jobs_push(sv, &jb);
    ps_reschedule(s, sv, g);
}

/* The tenant's GPU with the fewest requests (lowest index on ties). */
static int ps_least_loaded(const struct excl *x, int tenant)
{
    int best = -1;
    for (int k = 0; k < x->n_own[tenant]; k++) {
        int g = x->own[tenant][k];
        if (!x->srv[g].down && (best < 0 || x->srv[g].n_jobs < x->srv[best].n_jobs))
            best = g;
    }
    return best; /* -1: every GPU of the tenant is resetting (the request waits) */
}

SS_NOINLINE static void ps_arrive(struct sim *s, struct excl *x, int tenant)
{
    int g = ps_least_loaded(x, tenant);
    if (g < 0)
        return;
    ps_admit(s, x, g);
    /* A saturated tenant's refill also goes to each GPU that is still empty. */
    for (int k = 0; k < x->n_own[tenant] && eng_qlen(s, tenant) > 0; k++)
        if (x->srv[x->own[tenant][k]].n_jobs == 0 && !x->srv[x->own[tenant][k]].down)
            ps_admit(s, x, x->own[tenant][k]);
}

/* GPU g emptied: close its busy period; an unannounced (saturated) request restarts it. */
static void ps_emptied(struct sim *s, struct excl *x, int g)
{
    struct server *sv = &x->srv[g];
    sv->busy = 0; /* its busy time was booked interval by interval (ps_advance) */
    sv->v = 0;
    if (eng_qlen(s, sv->tenant) > 0)
        ps_admit(s, x, g);
}

SS_NOINLINE static void ps_done(struct sim *s, struct excl *x, int g)
{
    struct server *sv = &x->srv[g];
    ps_advance(s, sv);
    struct ps_job jb = jobs_pop(sv);
    /* The event fired when v reached this level; snap v to it so rounding in the
     * division cannot accumulate into the other requests' remaining work. */
    sv->v = jb.finish_v;
    eng_complete(s, &jb.req);
    if (sv->n_jobs == 0) {
        sv->version++;
        ps_emptied(s, x, g);
    } else if (eng_qlen(s, sv->tenant) > 0) {
        ps_admit(s, x, g); /* a saturated tenant's refill takes the freed place */
    } else {
        ps_reschedule(s, sv, g);
    }
}

static void ps_fault(struct sim *s, struct excl *x, int tenant)
{
    for (int k = 0; k < x->n_own[tenant]; k++) {
        int g = x->own[tenant][k];
        struct server *sv = &x->srv[g];
        if (sv->n_jobs == 0)
            continue;
        ps_advance(s, sv);
        while (sv->n_jobs > 0) {
            struct ps_job jb = jobs_pop(sv);
            eng_fail(s, &jb.req);
        }
        sv->version++;
        ps_emptied(s, x, g);
        return;
    }
}

/* ---- LLM tenants --------------------------------------------------------- */

/* Every waiting request to the tenant's only engine (at its first GPU), or to the engines its
 * router picks. */
SS_NOINLINE static void llm_arrive(struct sim *s, struct excl *x, int tenant)
{
    if (x->rt[tenant]) {
        rt_offer(s, x->rt[tenant], tenant);
        return;
    }
    struct llm_unit *u = x->lu[x->own[tenant][0]];
    while (eng_qlen(s, tenant) > 0)
        lu_take(s, u);
}

/* The first engine holding requests dies; an engine it emptied takes what waits at the router
 * (least_outstanding holds requests there while every engine is full). */
static void llm_fault(struct sim *s, struct excl *x, int tenant)
{
    for (int k = 0; k < x->n_own[tenant]; k++)
        if (x->lu[x->own[tenant][k]] && lu_fault(s, x->lu[x->own[tenant][k]]))
            break;
    if (x->rt[tenant])
        rt_offer(s, x->rt[tenant], tenant);
}

/* ---- card faults --------------------------------------------------------- */

/* GPU g faults: what it holds fails, it leaves the free stack, and it is down. */
SS_COLD static void card_fault(struct sim *s, struct excl *x, int g)
{
    struct server *sv = &x->srv[g];
    if (!gf_fault(&x->gf, s, g) || sv->tenant < 0 || sv->down)
        return;
    int t = sv->tenant;
    if (x->discipline == DISC_PS) {
        ps_advance(s, sv);
        while (sv->n_jobs > 0) {
            struct ps_job jb = jobs_pop(sv);
            eng_fail(s, &jb.req);
        }
        sv->busy = 0;
        sv->v = 0;
    } else {
        fifo_book(s, sv);
        while (sv->g.n > 0) {
            struct request r;
            rg_remove(&sv->g, 0, &r);
            eng_fail(s, &r);
        }
        fifo_resched(s, sv, g);
        for (int k = 0; k < x->n_free[t]; k++) /* an idle GPU is on its tenant's stack */
            if (x->free_stack[t][k] == g)
                x->free_stack[t][k] = x->free_stack[t][--x->n_free[t]];
        sync_announce(s, x, t);
    }
    sv->version++;
    sv->down = 1;
    if (--x->n_up[t] == 0)
        x->all_down_at[t] = s->now;
    eng_schedule(s, s->now + x->gf.reset_s, EV_CARD_UP, (uint32_t)g, 0, 0);
}

SS_COLD static void card_up(struct sim *s, struct excl *x, int g)
{
    struct server *sv = &x->srv[g];
    int t = sv->tenant;
    sv->down = 0;
    if (x->n_up[t]++ == 0)
        eng_down(s, t, x->all_down_at[t], s->now);
    if (x->discipline == DISC_PS) {
        /* Requests that waited while every GPU of the tenant was down join at once (a
         * saturated tenant has one waiting: it keeps one per GPU). */
        for (size_t n = eng_qlen(s, t); n > 0 && eng_qlen(s, t) > 0; n--)
            ps_admit(s, x, ps_least_loaded(x, t));
    } else {
        next_or_park(s, x, g);
    }
}

/* ---- dispatch ------------------------------------------------------------ */

/* The general FIFO and PS handlers (fifo_arrive, fifo_done, ps_arrive, ps_done) are kept out
 * of line: inlined into the dispatch below, they made excl_on_event save six registers at
 * every completion of the one-request path, which needs four (callgrind, mm4: 1.4 % of its
 * instructions). So are arrive_one and llm_arrive: excl_arrive then saves no register at
 * all, and an arrival that finds every GPU of its tenant busy (most of them under load)
 * costs a few instructions (mm4: 2.5 %). */

static int is_llm(const struct excl *x, int tenant)
{
    return x->n_own[tenant] > 0 && x->lu[x->own[tenant][0]];
}

static void excl_arrive(struct sim *s, void *st, int tenant)
{
    struct excl *x = st;
    if (x->fifo_one) {             /* first: the M/M/4 benchmark's path, one test */
        if (x->n_free[tenant] > 0) /* else it waits (only start()'s saturated announcement) */
            arrive_one(s, x, tenant);
        return;
    }
    if (is_llm(x, tenant)) {
        llm_arrive(s, x, tenant);
        return;
    }
    if (x->discipline == DISC_PS)
        ps_arrive(s, x, tenant);
    else
        fifo_arrive(s, x, tenant);
}

static void excl_on_event(struct sim *s, void *st, const struct event *ev)
{
    struct excl *x = st;
    if (ev->kind != EV_DONE) { /* completions first: every request has one */
        if (ev->kind == EV_LLM)
            lu_event(s, x->lu[unit_ev_id(ev)], ev);
        else if (ev->kind == EV_CARD)
            card_fault(s, x, (int)ev->target);
        else
            card_up(s, x, (int)ev->target);
        return;
    }
    struct server *sv = &x->srv[ev->target];
    /* A completion made stale by a fault, or (PS) by an arrival or departure since. */
    if (!sv->busy || ev->version != sv->version)
        return;
    if (x->fifo_one)
        done_one(s, x, sv, (int)ev->target);
    else if (x->discipline == DISC_PS)
        ps_done(s, x, (int)ev->target);
    else
        fifo_done(s, x, (int)ev->target);
}

static void excl_fault(struct sim *s, void *st, int tenant)
{
    struct excl *x = st;
    if (is_llm(x, tenant))
        llm_fault(s, x, tenant);
    else if (x->discipline == DISC_PS)
        ps_fault(s, x, tenant);
    else
        fifo_fault(s, x, tenant);
}

static void excl_finish(struct sim *s, void *st, struct strategy_result *res)
{
    struct excl *x = st;
    for (int g = 0; g < x->n_srv; g++)
        if (x->srv[g].busy) {
            if (x->discipline == DISC_PS)
                ps_advance(s, &x->srv[g]);
            else
                fifo_book(s, &x->srv[g]);
        } else if (x->lu[g]) {
            lu_finish(s, x->lu[g]);
        }
    int used = 0;
    for (int g = 0; g < x->n_srv; g++)
        used += x->srv[g].tenant >= 0;
    res->gpus_used = used;
    for (int i = 0; i < x->n_ten; i++)
        if (x->n_up[i] == 0)
            eng_down(s, i, x->all_down_at[i], s->now);
}

static void excl_destroy(void *st)
{
    struct excl *x = st;
    for (int i = 0; i < x->n_ten; i++) {
        free(x->free_stack[i]);
        free(x->own[i]);
    }
    for (int g = 0; g < x->n_srv; g++) {
        free(x->srv[g].jobs);
        rg_free(&x->srv[g].g);
        lu_free(x->lu[g]);
    }
    for (int i = 0; i < x->n_ten; i++)
        if (x->rt[i]) {
            rt_free(x->rt[i]);
            free(x->rt[i]);
        }
    free(x->rt);
    free(x->lu);
    free(x->free_stack);
    free(x->own);
    free(x->n_up);
    free(x->all_down_at);
    gf_free(&x->gf);
    free(x->n_free);
    free(x->n_own);
    free(x->srv);
    free(x);
}

/* Stability (core/stable.h): a tenant's share is its own GPUs, whatever the others do. A FIFO
 * GPU sustains its whole work.concurrency in service (rate_saturated: min(n, 1 / s) with
 * occupancy s); a PS GPU serves n requests at n / max(1, n·s), at most 1 / s. */
static void excl_capacity(const struct scenario *sc, const void *cfgp, const double *load,
                          double *cap)
{
    const struct excl_cfg *c = cfgp;
    (void)load;
    for (int i = 0; i < sc->n_tenants; i++)
        cap[i] = 0;
    for (int g = 0; g < c->gpus; g++) {
        int i = c->owner[g];
        if (i < 0)
            continue;
        const struct tenant_cfg *t = &sc->tenants[i];
        cap[i] +=
            c->discipline == DISC_PS ? 1 / rate_occupancy(t) : rate_saturated(&sc->gpu, t, 1, 1);
    }
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
    .hooks = &policy_hooks_exclusive,
    .capacity = excl_capacity,
    .serves_llm = 1,
};
