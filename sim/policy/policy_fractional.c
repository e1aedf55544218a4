/*
 * policy_fractional — fractional GPUs as the Kubernetes vGPU schedulers offer them (kind
 * "fractional"; HAMi's nvidia.com/gpumem and nvidia.com/gpucores, docs/mps-vgpu.md
 * #fractional-gpus). Every tenant is one pod on one GPU ("assign", as for time-slicing) with
 * a memory limit ("memory_gb", default its own memory_gb) and a compute percentage
 * ("cores"); each GPU is one fracunit (units/fracunit.h): the pods time-share the GPU and a
 * limited pod is throttled once it has used its percentage of the current window
 * ("window_ms").
 *
 * Whether the limit is enforced ("core_policy", HAMi's GPU_CORE_UTILIZATION_POLICY):
 * - "default": enforced for a pod that shares its GPU, not for a pod alone on it — HAMi
 *   leaves a lone pod unthrottled (HAMI_CFG, docs/domain.md);
 * - "force": always enforced, a lone pod too;
 * - "disable": never enforced (memory limits stay).
 * The loader refuses what HAMi's scheduler would not place: cores summing past 100 % or
 * memory limits past the GPU's memory on one GPU, a tenant above its own memory limit (the
 * allocation would fail inside the pod).
 */
#include "core/engine.h"
#include "core/policy.h"
#include "core/run.h"
#include "policy/assign.h"
#include "policy/units/fracunit.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { EV_UNIT = EV_POLICY };

enum { FR_DEFAULT, FR_FORCE, FR_DISABLE };
static const char *const core_policies[] = {"default", "force", "disable", NULL};

struct fr_cfg {
    double *core;   /* per tenant: fraction */
    double *mem_gb; /* per tenant: its memory limit */
    int *gpu_of;    /* per tenant */
    int *limited;   /* per tenant: the core limit is enforced */
    int policy;     /* FR_* */
    double window_s;
};

struct fr_state {
    const struct fr_cfg *cfg;
    int n_gpu;
    struct fu_unit *gpu;
    int *slot; /* per tenant: its client index in its GPU's unit */
};

/* ---- parse --------------------------------------------------------------- */

/* {"tenant": number} of obj[key] into out[i] (scaled), every tenant required when
 * `required`, else default dflt[i]; each value in [lo, hi]. */
static int parse_per_tenant(const struct jv *j, const cJSON *obj, const char *path, const char *key,
                            const struct scenario *sc, int required, double lo, double hi,
                            double scale, const double *dflt, double *out)
{
    char p[512], q[600];
    jv_path_key(p, sizeof p, path, key);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!o && required)
        return jv_fail(j, p, "missing: expected {\"tenant\": value} for every tenant");
    if (o && !cJSON_IsObject(o))
        return jv_fail(j, p, "expected an object {\"tenant\": value}");
    for (int i = 0; i < sc->n_tenants; i++)
        out[i] = dflt ? dflt[i] : NAN;
    const cJSON *it;
    cJSON_ArrayForEach(it, o)
    {
        jv_path_key(q, sizeof q, p, it->string);
        int ti = scn_tenant_index(sc, it->string);
        if (ti < 0)
            return jv_fail(j, q, "no tenant named \"%s\"", it->string);
        if (!cJSON_IsNumber(it) || !(it->valuedouble >= lo) || it->valuedouble > hi)
            return jv_fail(j, q, "expected a number in [%g, %g]", lo, hi);
        out[ti] = it->valuedouble * scale;
    }
    for (int i = 0; i < sc->n_tenants; i++)
        if (isnan(out[i]))
            return jv_fail(j, p, "tenant \"%s\" is missing", sc->tenants[i].name);
    return 0;
}

/* What HAMi's scheduler would refuse to place, and a tenant that cannot run in its limit. */
static int check_gpus(const struct jv *j, const char *path, const struct scenario *sc,
                      const struct fr_cfg *c)
{
    for (int i = 0; i < sc->n_tenants; i++)
        if (sc->tenants[i].memory_gb > c->mem_gb[i])
            return jv_fail(j, path,
                           "tenant \"%s\" needs %g GB, its memory limit (nvidia.com/gpumem) is "
                           "%g GB: its allocations would fail",
                           sc->tenants[i].name, sc->tenants[i].memory_gb, c->mem_gb[i]);
    for (int g = 0; g < sc->gpus; g++) {
        double cores = 0, mem = 0;
        for (int i = 0; i < sc->n_tenants; i++)
            if (c->gpu_of[i] == g) {
                cores += c->core[i];
                mem += c->mem_gb[i];
            }
        if (cores > 1 + 1e-9)
            return jv_fail(j, path,
                           "GPU %d: cores add up to %.0f %%; the scheduler places pods on a GPU "
                           "only while their nvidia.com/gpucores fit in 100",
                           g, 100 * cores);
        if (mem > sc->gpu.memory_gb)
            return jv_fail(j, path, "GPU %d: memory limits add up to %g GB, a %s has %g GB", g, mem,
                           sc->gpu.name, sc->gpu.memory_gb);
    }
    return 0;
}

static int fr_parse(const struct jv *j, const cJSON *obj, const char *path,
                    const struct scenario *sc, void **out)
{
    static const char *const keys[] = {"name",   "kind",        "cores",     "memory_gb",
                                       "assign", "core_policy", "window_ms", NULL};
    int T = sc->n_tenants;
    struct fr_cfg *c = ss_xcalloc(1, sizeof *c);
    *out = c;
    c->core = ss_xcalloc((size_t)T, sizeof *c->core);
    c->mem_gb = ss_xcalloc((size_t)T, sizeof *c->mem_gb);
    c->gpu_of = ss_xcalloc((size_t)T, sizeof *c->gpu_of);
    c->limited = ss_xcalloc((size_t)T, sizeof *c->limited);
    double window_ms = 100, *own = ss_xcalloc((size_t)T, sizeof *own);
    for (int i = 0; i < T; i++)
        own[i] = sc->tenants[i].memory_gb;
    int rc = jv_object(j, obj, path, keys) ||
             jv_enum(j, obj, path, "core_policy", 0, core_policies, &c->policy) < 0 ||
             jv_num_gt(j, obj, path, "window_ms", 0, 0, 1e6, &window_ms) < 0 ||
             parse_per_tenant(j, obj, path, "cores", sc, 1, 1, 100, 0.01, NULL, c->core) ||
             parse_per_tenant(j, obj, path, "memory_gb", sc, 0, 0, 1e6, 1, own, c->mem_gb) ||
             asg_parse_one(j, obj, path, sc, c->gpu_of) || check_gpus(j, path, sc, c);
    free(own);
    if (rc)
        return -1;
    if (sc->gpu_fault_rate_per_h > 0)
        return jv_fail(j, path,
                       "card faults (gpu_fault_rate_per_h) are not modelled for fractional GPUs "
                       "yet: leave them out of a scenario with this strategy");
    c->window_s = window_ms / 1e3;
    for (int i = 0; i < T; i++) {
        int alone = 1;
        for (int k = 0; k < T; k++)
            alone &= k == i || c->gpu_of[k] != c->gpu_of[i];
        c->limited[i] = c->policy == FR_FORCE || (c->policy == FR_DEFAULT && !alone);
    }
    return 0;
}

static void fr_free_cfg(void *cfg)
{
    struct fr_cfg *c = cfg;
    free(c->core);
    free(c->mem_gb);
    free(c->gpu_of);
    free(c->limited);
    free(c);
}

/* ---- run ----------------------------------------------------------------- */

static void *fr_init(struct sim *s, const void *cfgp)
{
    const struct fr_cfg *c = cfgp;
    struct fr_state *m = ss_xcalloc(1, sizeof *m);
    int T = s->n_ten;
    m->cfg = c;
    m->n_gpu = s->sc->gpus;
    m->gpu = ss_xcalloc((size_t)m->n_gpu, sizeof *m->gpu);
    m->slot = ss_xcalloc((size_t)T, sizeof *m->slot);
    int *ten = ss_xcalloc((size_t)T, sizeof *ten), *lim = ss_xcalloc((size_t)T, sizeof *lim);
    double *core = ss_xcalloc((size_t)T, sizeof *core);
    for (int g = 0; g < m->n_gpu; g++) {
        int n = 0;
        for (int i = 0; i < T; i++)
            if (c->gpu_of[i] == g) {
                m->slot[i] = n;
                ten[n] = i;
                core[n] = c->core[i];
                lim[n++] = c->limited[i];
            }
        fu_init(&m->gpu[g], unit_addr(EV_UNIT, g), n, ten, core, lim, c->window_s);
    }
    free(ten);
    free(lim);
    free(core);
    return m;
}

static void fr_arrive(struct sim *s, void *st, int tenant)
{
    struct fr_state *m = st;
    fu_arrive(s, &m->gpu[m->cfg->gpu_of[tenant]], m->slot[tenant]);
}

static void fr_on_event(struct sim *s, void *st, const struct event *ev)
{
    struct fr_state *m = st;
    fu_event(s, &m->gpu[unit_ev_id(ev)], ev);
}

static void fr_fault(struct sim *s, void *st, int tenant)
{
    struct fr_state *m = st;
    fu_fault(s, &m->gpu[m->cfg->gpu_of[tenant]], m->slot[tenant]);
}

static void fr_finish(struct sim *s, void *st, struct strategy_result *res)
{
    struct fr_state *m = st;
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "core_policy", core_policies[m->cfg->policy]);
    cJSON_AddNumberToObject(d, "window_ms", m->cfg->window_s * 1e3);
    cJSON *gpus = cJSON_AddArrayToObject(d, "gpus");
    res->gpus_used = 0;
    for (int g = 0; g < m->n_gpu; g++) {
        struct fu_unit *u = &m->gpu[g];
        fu_finish(s, u);
        res->gpus_used += u->n > 0;
        int enforced = 0;
        for (int k = 0; k < u->n; k++)
            enforced += u->cli[k].limited;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "pods", u->n);
        cJSON_AddNumberToObject(o, "core_limit_enforced", enforced);
        cJSON_AddNumberToObject(o, "throttled_s", u->throttle_s);
        cJSON_AddItemToArray(gpus, o);
    }
    res->details = d;
}

static void fr_destroy(void *st)
{
    struct fr_state *m = st;
    for (int g = 0; g < m->n_gpu; g++)
        fu_free(&m->gpu[g]);
    free(m->gpu);
    free(m->slot);
    free(m);
}

/* Stability (core/stable.h): a saturated limited pod does exactly its cores a window — the
 * budgets of one GPU add up to at most one window of work and the GPU serves the unthrottled
 * pods without idling, so every budget is spent; an unlimited pod alone has the whole GPU;
 * unlimited pods that share one depend on each other's load: unknown. */
static void fr_capacity(const struct scenario *sc, const void *cfgp, const double *load,
                        double *cap)
{
    const struct fr_cfg *c = cfgp;
    (void)load;
    for (int i = 0; i < sc->n_tenants; i++) {
        int alone = 1;
        for (int k = 0; k < sc->n_tenants; k++)
            alone &= k == i || c->gpu_of[k] != c->gpu_of[i];
        cap[i] = c->limited[i] ? c->core[i] : alone ? 1.0 : NAN;
    }
}

const struct policy_ops policy_fractional = {
    .kind = "fractional",
    .parse = fr_parse,
    .free_cfg = fr_free_cfg,
    .init = fr_init,
    .arrive = fr_arrive,
    .on_event = fr_on_event,
    .fault = fr_fault,
    .finish = fr_finish,
    .destroy = fr_destroy,
    .hooks = &policy_hooks_fractional,
    .capacity = fr_capacity,
};
