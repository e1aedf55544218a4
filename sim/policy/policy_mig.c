/*
 * policy_mig — MIG (kind "mig"): each GPU is cut into GPU instances from the
 * profile's vendor table, placed by the rules of sim/mig/mig.c. An instance is an
 * isolated server: its speed for a tenant comes from the rate model with the
 * instance's real SM share (sm_count / total_sms: A100 1g = 14 of 108, never
 * slices × SMs / 7) and its bandwidth share (memory slices / 8). Nothing is shared
 * between instances, so a neighbour cannot change a tenant's latency at all.
 *
 * An instance serves one tenant (a plain FIFO server at the tenant's speed in the
 * instance), or several through "nested": {"kind": "timeslice", …} (a ts_unit at
 * the instance's speed) or {"kind": "mps", "thread_pct", …} (an MPS server confined
 * to the instance's SMs and bandwidth, its client limit scaled by compute slices / 7
 * as the MIG User Guide says; a client fault takes down the instance's clients
 * only) — the hybrid tiers of
 * docs/domain.md. Each such server is a unit
 * (policy/units/unit.h, docs/units.md) held as {ops, self}: a server kind below
 * parses its "nested" object and builds its unit, and nothing else here knows which
 * kind an instance has. A tenant listed in several instances (or on several GPUs,
 * since a layout is applied to every GPU of the pool unless "layouts" gives one per
 * GPU) is served by all of them from its one FIFO queue, offered to plain servers
 * first (unit ranks).
 *
 * Memory is isolated per instance: a tenant larger than its instance is an error,
 * or with "oom": "simulate" its requests fail there — only that instance.
 * In "layouts" an empty list leaves that GPU of the pool unused (not billed).
 * "reconfigure": [{"at_s", "gpu"?, "layout"}] changes a GPU's layout one instance at a
 * time, as NVIDIA documents it (creating or destroying a GPU instance does not disturb
 * the others, K8S_DP issue #992): an instance of the new layout that is the same as one
 * of the old (profile, tenants, nested server and its parameters) is kept where it is,
 * running; the old instances not kept are destroyed at at_s (their requests in service
 * fail); the new ones serve after create_s (profile mig_create_s; no public measurement)
 * plus the largest startup_s of their tenants (the model load). The new layout is placed
 * with the kept instances pinned at their memory slices; when that is not a legal
 * placement it is placed afresh and only the instances that land where they were are kept.
 * A fault (fault_rate_per_h) fails the tenant's own in-flight request only. A card fault
 * (gpu_fault_rate_per_h) destroys every instance of the GPU (their requests in service
 * fail); they serve again after the profile's gpu_reset_s plus their tenants' startup_s.
 *
 * Run time: every unit ever built lives in one array whose index is its event id;
 * a reconfiguration appends the new GPU's units and marks the old ones not live, so
 * events they left in the heap are dropped.
 */
#include "base/jsonv.h"
#include "core/engine.h"
#include "core/gpufault.h"
#include "mig/mig.h"
#include "core/policy.h"
#include "core/rate.h"
#include "core/run.h"
#include "policy/tpgroup.h"
#include "policy/units/llmunit.h"
#include "policy/units/router.h"
#include "policy/units/mpsunit.h"
#include "policy/units/plainunit.h"
#include "policy/units/tsunit.h"
#include "policy/units/unit.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

/* EV_UNIT: a timer of some instance's unit, which the target names (units/unit.h). */
enum { EV_UNIT = EV_POLICY, EV_INST_UP, EV_RECONF, EV_CARD };

/* What an instance gives its server: shares of the GPU's SMs and bandwidth, memory. */
struct inst_shape {
    double sm, bw, memory_gb;
    int oom_simulate;
};

struct inst_cfg;

/* How an instance serves its tenants: parse() reads its "nested" object (the plain
 * server has none), build() makes its unit for one run. */
struct server_kind {
    int (*parse)(const struct jv *j, const cJSON *o, const char *path, const struct scenario *sc,
                 struct inst_cfg *ic);
    struct unit (*build)(const struct scenario *sc, const struct inst_cfg *ic,
                         const struct inst_shape *sh, struct unit_addr ev);
    /* Stability (core/stable.h): what the instance sustains for its m-th tenant when the
     * instance's tenants offer share[] at speed[] alone there (SM share f, bandwidth b). */
    double (*capacity)(const struct scenario *sc, const struct inst_cfg *ic, double f, double b,
                       const double *speed, const double *share, int m);
};

struct inst_cfg {
    int prof;
    int n_ten;
    int *ten;
    const struct server_kind *server;
    double *cap; /* nested MPS: thread_pct / 100 per tenant of the instance */
    double recovery_s, bw_loss;
    double slice_s, switch_s, refill_s; /* nested time-slicing (parse_nested_ts) */
    int release_on_idle;
};

struct layout_cfg {
    int n;
    struct inst_cfg inst[MIG_MAX_INST];
    struct mig_layout placed;
    /* A MIG-disabled GPU ({"mig": false, "tenant"}): one pseudo-instance of profile -1 on the
     * whole GPU. lead: the GPU whose engine serves its tensor-parallel group (itself unless it
     * is a later GPU of a group, whose inst[0] then has no unit). */
    int whole, lead;
};

/* What a change does to a GPU whose layout was `prev`: the layout after it (the change's
 * instances, placed with the kept ones pinned) and, per instance of it, the index of the
 * instance of prev it keeps, or -1 for one to create. */
struct reconf_res {
    const struct layout_cfg *prev;
    struct layout_cfg next; /* shares tenant arrays with the change's layout */
    int keep[MIG_MAX_INST];
};

struct reconf_cfg {
    double at_s;
    int gpu; /* -1: every GPU */
    struct layout_cfg layout;
    int n_res; /* one per distinct previous layout of the GPUs it changes */
    struct reconf_res *res;
};

struct mig_cfg {
    int gpus;
    struct layout_cfg **layouts; /* [gpus]: each GPU's first layout, one of owned[] */
    int n_owned;
    struct layout_cfg **owned;
    int n_reconf;
    struct reconf_cfg *reconf;
    int n_whole; /* MIG-disabled GPUs in "layouts" */
    double create_s;
    int oom_simulate;
};

/* ---- server kinds ---------------------------------------------------------- */

static int parse_nested_mps(const struct jv *j, const cJSON *o, const char *path,
                            const struct scenario *sc, struct inst_cfg *ic)
{
    static const char *const keys[] = {"kind", "thread_pct", "recovery_s", "bw_contention_loss",
                                       NULL};
    const struct mig_profile *mp = &sc->gpu.mig[ic->prof];
    /* the same parameters and bounds as the mps strategy's (mu_parse_params) */
    if (jv_object(j, o, path, keys) ||
        mu_parse_params(j, o, path, sc, &ic->recovery_s, &ic->bw_loss))
        return -1;
    /* MIG User Guide, "MIG with CUDA MPS": the client limit shrinks in proportion to the
     * compute instance's share of the GPU. */
    int limit = sc->gpu.mps_max_clients * mp->compute_slices / 7;
    if (ic->n_ten > limit)
        return jv_fail(j, path,
                       "%d MPS clients in a %s instance; the limit there is %d (%d × %d/7)",
                       ic->n_ten, mp->name, limit, sc->gpu.mps_max_clients, mp->compute_slices);
    ic->cap = ss_xcalloc((size_t)ic->n_ten, sizeof *ic->cap);
    return mu_parse_thread_pct(j, o, path, sc, ic->n_ten, ic->ten, ic->cap);
}

static int parse_nested_ts(const struct jv *j, const cJSON *o, const char *path,
                           const struct scenario *sc, struct inst_cfg *ic)
{
    /* The top-level time-slicer's keys (policy_timeslice.c), but its assignment: one schema. */
    static const char *const keys[] = {"kind",      "slice_ms",        "switch_us",
                                       "refill_us", "release_on_idle", NULL};
    double slice_ms = sc->gpu.timeslice_s * 1e3, switch_us = sc->gpu.switch_s * 1e6,
           refill_us = sc->gpu.ts_refill_s * 1e6;
    ic->release_on_idle = 1;
    if (jv_object(j, o, path, keys) ||
        jv_num_gt(j, o, path, "slice_ms", 0, 0, 1e6, &slice_ms) < 0 ||
        jv_num(j, o, path, "switch_us", 0, 0, 1e9, &switch_us) < 0 ||
        jv_num(j, o, path, "refill_us", 0, 0, 1e9, &refill_us) < 0 ||
        jv_bool(j, o, path, "release_on_idle", 0, &ic->release_on_idle) < 0 ||
        jv_at_least(j, path, "slice_ms", slice_ms, SCN_MIN_SLICE_MS, SCN_SLICE_WHY))
        return -1;
    ic->slice_s = slice_ms * 1e-3;
    ic->switch_s = switch_us * 1e-6;
    ic->refill_s = refill_us * 1e-6;
    return 0;
}

/* One tenant alone: FIFO at its speed in the instance (up to work.concurrency at once). */
static struct unit build_plain(const struct scenario *sc, const struct inst_cfg *ic,
                               const struct inst_shape *sh, struct unit_addr ev)
{
    return pu_new(sc, ev, 1, ic->ten, sh->sm, sh->bw, sh->sm, sh->memory_gb);
}

static struct unit build_ts(const struct scenario *sc, const struct inst_cfg *ic,
                            const struct inst_shape *sh, struct unit_addr ev)
{
    double *mem = ss_xcalloc((size_t)ic->n_ten, sizeof *mem);
    for (int m = 0; m < ic->n_ten; m++)
        mem[m] = sc->tenants[ic->ten[m]].memory_gb;
    struct ts_unit *u = ss_xmalloc(sizeof *u);
    ts_unit_init(u, sc, ev, ic->n_ten, ic->ten, sh->sm, sh->bw, mem, ic->slice_s, ic->switch_s,
                 ic->release_on_idle, sh->sm, sh->oom_simulate, sh->memory_gb);
    ts_set_refill(u, sc, ic->refill_s);
    free(mem);
    return (struct unit){&ts_unit_ops, u};
}

static struct unit build_mps(const struct scenario *sc, const struct inst_cfg *ic,
                             const struct inst_shape *sh, struct unit_addr ev)
{
    struct mu_unit *u = ss_xmalloc(sizeof *u);
    mu_init(u, sc, ev, ic->n_ten, ic->ten, ic->cap, sh->sm, sh->bw, sh->sm, ic->bw_loss,
            ic->recovery_s);
    return (struct unit){&mu_unit_ops, u};
}

/* A plain instance serves its one tenant at its speed alone there. */
static double capacity_plain(const struct scenario *sc, const struct inst_cfg *ic, double f,
                             double b, const double *speed, const double *share, int m)
{
    (void)sc, (void)ic, (void)f, (void)b, (void)share;
    return speed[m];
}

static double capacity_ts(const struct scenario *sc, const struct inst_cfg *ic, double f, double b,
                          const double *speed, const double *share, int m)
{
    (void)f, (void)b;
    return ts_capacity(ic->n_ten, speed, share, m, ic->slice_s,
                       ts_mean_switch_refill_s(sc, ic->n_ten, ic->ten, ic->switch_s, ic->refill_s));
}

static double capacity_mps(const struct scenario *sc, const struct inst_cfg *ic, double f, double b,
                           const double *speed, const double *share, int m)
{
    (void)speed;
    return mu_capacity(sc, ic->n_ten, ic->ten, ic->cap, f, b, ic->bw_loss, share, m);
}

/* An LLM tenant alone in an instance (docs/llm.md): its engine on the instance's SM and
 * memory-slice shares, with the KV cache the instance's memory leaves (checked at parse). */
static struct unit build_llm(const struct scenario *sc, const struct inst_cfg *ic,
                             const struct inst_shape *sh, struct unit_addr ev)
{
    const struct lsv_cfg *l = sc->tenants[ic->ten[0]].llm;
    long blocks;
    char err[SS_ERRLEN];
    if (lsv_kv_blocks(l, sh->memory_gb, "the instance", &blocks, err, sizeof err))
        SS_FATAL("%s (parse_instance should have refused it)", err);
    return (struct unit){&lu_unit_ops, lu_new(ic->ten[0], l, blocks, &sc->gpu, sh->sm, sh->bw, ev)};
}

/* A later GPU of a tensor-parallel group: the group's engine sits on its first GPU. */
static struct unit build_none(const struct scenario *sc, const struct inst_cfg *ic,
                              const struct inst_shape *sh, struct unit_addr ev)
{
    (void)sc, (void)ic, (void)sh, (void)ev;
    return (struct unit){NULL, NULL};
}

/* An engine's capacity is not a work rate: its load is not known in advance (no mean work). */
static double capacity_llm(const struct scenario *sc, const struct inst_cfg *ic, double f, double b,
                           const double *speed, const double *share, int m)
{
    (void)sc, (void)ic, (void)f, (void)b, (void)speed, (void)share, (void)m;
    return NAN;
}

static const struct server_kind plain_server = {NULL, build_plain, capacity_plain};
static const struct server_kind llm_server = {NULL, build_llm, capacity_llm};
static const struct server_kind tp_member_server = {NULL, build_none, capacity_llm};
static const struct server_kind ts_server = {parse_nested_ts, build_ts, capacity_ts};
static const struct server_kind mps_server = {parse_nested_mps, build_mps, capacity_mps};

/* The values of "nested"."kind", and the server each one names. */
static const char *const nested_names[] = {"timeslice", "mps", NULL};
static const struct server_kind *const nested_kinds[] = {&ts_server, &mps_server};

/* Shares of an instance (f, b) and its memory; a MIG-disabled GPU's pseudo-instance (profile
 * -1) has the whole GPU. */
static struct inst_shape inst_shape_of(const struct scenario *sc, const struct inst_cfg *ic,
                                       int oom_simulate)
{
    if (ic->prof < 0)
        return (struct inst_shape){1.0, 1.0, sc->gpu.memory_gb, oom_simulate};
    return (struct inst_shape){mig_compute_share(&sc->gpu, ic->prof),
                               mig_memory_share(&sc->gpu, ic->prof),
                               sc->gpu.mig[ic->prof].memory_gb, oom_simulate};
}

/* ---- parsing -------------------------------------------------------------- */

static int parse_nested(const struct jv *j, const cJSON *o, const char *path,
                        const struct scenario *sc, struct inst_cfg *ic)
{
    int k;
    if (!cJSON_IsObject(o))
        return jv_fail(j, path, "expected an object {\"kind\": \"timeslice\" | \"mps\", …}");
    if (jv_enum(j, o, path, "kind", 1, nested_names, &k))
        return -1;
    ic->server = nested_kinds[k];
    return ic->server->parse(j, o, path, sc, ic);
}

static int parse_instance(const struct jv *j, const cJSON *o, const char *path,
                          const struct scenario *sc, int oom_sim, struct inst_cfg *ic)
{
    static const char *const keys[] = {"profile", "tenants", "nested", NULL};
    const char *prof;
    char p[512], names[512];
    ic->server = &plain_server; /* unless "nested" says otherwise */
    if (jv_object(j, o, path, keys) || jv_str(j, o, path, "profile", 1, &prof))
        return -1;
    ic->prof = mig_profile_index(&sc->gpu, prof);
    if (ic->prof < 0) {
        mig_profile_names(&sc->gpu, names, sizeof names);
        return jv_fail(j, jv_path_key(p, sizeof p, path, "profile"),
                       "no MIG profile \"%s\" on %s (expected one of %s)", prof, sc->gpu.name,
                       names);
    }
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(o, "tenants");
    jv_path_key(p, sizeof p, path, "tenants");
    if (!cJSON_IsArray(ts) || cJSON_GetArraySize(ts) < 1)
        return jv_fail(j, p, "expected a non-empty array of tenant names");
    ic->ten = ss_xcalloc((size_t)cJSON_GetArraySize(ts), sizeof *ic->ten);
    const cJSON *t;
    double mem = 0;
    const struct mig_profile *mp = &sc->gpu.mig[ic->prof];
    cJSON_ArrayForEach(t, ts)
    {
        int ti = cJSON_IsString(t) ? scn_tenant_index(sc, t->valuestring) : -1;
        if (ti < 0)
            return jv_fail(j, p, "expected names of tenants, got %s",
                           cJSON_IsString(t) ? t->valuestring : "a non-string");
        for (int k = 0; k < ic->n_ten; k++)
            if (ic->ten[k] == ti)
                return jv_fail(j, p, "tenant \"%s\" listed twice", t->valuestring);
        ic->ten[ic->n_ten++] = ti;
        mem += sc->tenants[ti].memory_gb;
        if (!oom_sim && sc->tenants[ti].memory_gb > mp->memory_gb)
            return jv_fail(j, p,
                           "tenant \"%s\" needs %g GB but a %s instance has %g GB (rejected at "
                           "load; \"oom\": \"simulate\" fails its requests instead)",
                           t->valuestring, sc->tenants[ti].memory_gb, mp->name, mp->memory_gb);
    }
    const cJSON *nested = cJSON_GetObjectItemCaseSensitive(o, "nested");
    if (nested && parse_nested(j, nested, jv_path_key(p, sizeof p, path, "nested"), sc, ic))
        return -1;
    if (!nested && ic->n_ten > 1)
        return jv_fail(j, path,
                       "%d tenants share one %s instance: give \"nested\": {\"kind\": "
                       "\"timeslice\"} or {\"kind\": \"mps\"} to say how",
                       ic->n_ten, mp->name);
    for (int m = 0; m < ic->n_ten; m++) {
        const struct tenant_cfg *t = &sc->tenants[ic->ten[m]];
        char where[96], msg[SS_ERRLEN];
        long blocks;
        if (!t->llm)
            continue;
        if (nested)
            return jv_fail(j, jv_path_key(p, sizeof p, path, "nested"),
                           "tenant \"%s\" is an LLM tenant: it needs an instance of its own "
                           "(nested time-slicing and MPS do not serve LLM engines yet)",
                           t->name);
        snprintf(where, sizeof where, "the %s instance's %g GB", mp->name, mp->memory_gb);
        if (lsv_kv_blocks(t->llm, mp->memory_gb, where, &blocks, msg, sizeof msg))
            return jv_fail(j, path, "tenant \"%s\": %s", t->name, msg);
        ic->server = &llm_server;
    }
    if (nested && mem > mp->memory_gb)
        return jv_fail(j, path,
                       "tenants need %g GB together, a %s instance has %g GB (their memory is "
                       "resident from their start)",
                       mem, mp->name, mp->memory_gb);
    return 0;
}

static int parse_layout(const struct jv *j, const cJSON *arr, const char *path,
                        const struct scenario *sc, int oom_sim, int allow_empty,
                        struct layout_cfg *lc)
{
    char p[512], why[512];
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < (allow_empty ? 0 : 1) ||
        cJSON_GetArraySize(arr) > MIG_MAX_INST)
        return jv_fail(j, path, "expected %d to %d instances [{\"profile\", \"tenants\"}, …]",
                       allow_empty ? 0 : 1, MIG_MAX_INST);
    if (cJSON_GetArraySize(arr) == 0)
        return 0; /* a GPU of the pool left without instances (unused) */
    const cJSON *o;
    int prof[MIG_MAX_INST];
    cJSON_ArrayForEach(o, arr)
    {
        int k = lc->n++; /* counted first, so free_layout() releases a half-parsed one */
        if (parse_instance(j, o, jv_path_idx(p, sizeof p, path, k), sc, oom_sim, &lc->inst[k]))
            return -1;
        prof[k] = lc->inst[k].prof;
    }
    if (mig_place(&sc->gpu, prof, NULL, lc->n, NULL, &lc->placed, why, sizeof why))
        return jv_fail(j, path, "not a legal %s MIG layout: %s", sc->gpu.name, why);
    return 0;
}

/*
 * {"mig": false, "tenant": T}: GPU g with MIG mode off, all of it serving T as exclusive
 * would: a plain tenant at shares 1 with the GPU's memory, an LLM tenant's engine on the whole
 * GPU or, with tensor_parallel k, on its group of k such GPUs (check_tp forms the groups).
 */
static int parse_whole(const struct jv *j, const cJSON *o, const char *path,
                       const struct scenario *sc, int g, struct layout_cfg *lc)
{
    static const char *const keys[] = {"mig", "tenant", NULL};
    int mig = 1;
    const char *name;
    char p[512], where[128], msg[SS_ERRLEN];
    if (jv_object(j, o, path, keys) || jv_bool(j, o, path, "mig", 1, &mig) < 0)
        return -1;
    if (mig)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "mig"),
                       "expected false: a GPU with MIG on is a list of instances [{\"profile\", "
                       "\"tenants\"}, …]");
    if (jv_str(j, o, path, "tenant", 1, &name))
        return -1;
    int ti = scn_tenant_index(sc, name);
    if (ti < 0)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "tenant"),
                       "expected the name of a tenant, got \"%s\"", name);
    const struct tenant_cfg *t = &sc->tenants[ti];
    struct inst_cfg *ic = &lc->inst[0];
    lc->whole = 1;
    lc->lead = g;
    lc->n = 1;
    ic->prof = -1;
    ic->n_ten = 1;
    ic->ten = ss_xmalloc(sizeof *ic->ten);
    ic->ten[0] = ti;
    ic->server = t->llm ? &llm_server : &plain_server;
    if (!t->llm && t->memory_gb > sc->gpu.memory_gb)
        return jv_fail(j, path, "tenant \"%s\" needs %g GB, a %s has %g GB", name, t->memory_gb,
                       sc->gpu.name, sc->gpu.memory_gb);
    if (!t->llm)
        return 0;
    long blocks;
    if (t->llm->tensor_parallel > 1)
        snprintf(where, sizeof where, "each %s's %g GB of a tensor_parallel %d group", sc->gpu.name,
                 sc->gpu.memory_gb, t->llm->tensor_parallel);
    else
        snprintf(where, sizeof where, "a whole %s's %g GB", sc->gpu.name, sc->gpu.memory_gb);
    if (lsv_kv_blocks(t->llm, sc->gpu.memory_gb, where, &blocks, msg, sizeof msg))
        return jv_fail(j, path, "tenant \"%s\": %s", name, msg);
    return 0;
}

/*
 * Tensor-parallel tenants: refused in an instance (no_tp), and their MIG-disabled GPUs, in
 * index order, form groups of k on one node (tpgroup.h); a group's later GPUs get no unit.
 */
static int check_tp(const struct jv *j, const char *path, const struct scenario *sc,
                    struct mig_cfg *c)
{
    int *gpus = ss_xmalloc((size_t)c->gpus * sizeof *gpus), rc = 0;
    for (int i = 0; i < sc->n_tenants && rc == 0; i++) {
        int k = tpg_degree(sc, i), n = 0;
        if (k == 1)
            continue;
        for (int g = 0; g < c->gpus && rc == 0; g++) {
            const struct layout_cfg *lc = c->layouts[g];
            if (lc->whole && lc->inst[0].ten[0] == i)
                gpus[n++] = g;
            for (int m = 0; m < lc->n && !lc->whole && rc == 0; m++)
                for (int q = 0; q < lc->inst[m].n_ten; q++)
                    if (lc->inst[m].ten[q] == i) {
                        rc = jv_fail(j, path,
                                     "tenant \"%s\" has tensor_parallel %d but GPU %d lists it "
                                     "in a %s instance: %s; give it MIG-disabled GPUs "
                                     "({\"mig\": false, \"tenant\": \"%s\"} in \"layouts\")",
                                     sc->tenants[i].name, k, g, sc->gpu.mig[lc->inst[m].prof].name,
                                     policy_mig.no_tp, sc->tenants[i].name);
                        break;
                    }
        }
        if (rc == 0)
            rc = tpg_check(j, path, sc, i, n, gpus, "order \"layouts\" so that");
        for (int m = 0; m < n && rc == 0; m++)
            if (m % k) {
                c->layouts[gpus[m]]->lead = gpus[m - m % k];
                c->layouts[gpus[m]]->inst[0].server = &tp_member_server;
            }
    }
    free(gpus);
    return rc;
}

static struct layout_cfg *new_layout(struct mig_cfg *c)
{
    c->owned = ss_xrealloc(c->owned, (size_t)(c->n_owned + 1) * sizeof *c->owned);
    return c->owned[c->n_owned++] = ss_xcalloc(1, sizeof(struct layout_cfg));
}

static int parse_reconf(const struct jv *j, const cJSON *arr, const char *path,
                        const struct scenario *sc, struct mig_cfg *c)
{
    static const char *const keys[] = {"at_s", "gpu", "layout", NULL};
    char p[512], q[600];
    if (!cJSON_IsArray(arr))
        return jv_fail(j, path, "expected an array of {\"at_s\", \"gpu\", \"layout\"}");
    c->reconf = ss_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof *c->reconf);
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        struct reconf_cfg *r = &c->reconf[c->n_reconf];
        long gpu = -1;
        jv_path_idx(p, sizeof p, path, c->n_reconf);
        if (jv_object(j, o, p, keys) || jv_num(j, o, p, "at_s", 1, 0, 1e9, &r->at_s) ||
            jv_int(j, o, p, "gpu", 0, 0, sc->gpus - 1, &gpu) < 0)
            return -1;
        r->gpu = (int)gpu;
        if (c->n_whole > 0 && (r->gpu < 0 || c->layouts[r->gpu]->whole))
            return jv_fail(j, p,
                           "%s has MIG disabled: turning MIG mode on or off needs a GPU reset "
                           "with no process on it, which is not modelled (give \"gpu\": a "
                           "GPU with MIG on)",
                           r->gpu < 0 ? "a GPU of the pool" : "this GPU");
        if (c->n_reconf > 0 && r->at_s < c->reconf[c->n_reconf - 1].at_s)
            return jv_fail(j, p, "changes must be in time order");
        c->n_reconf++; /* counted before parsing the layout, so its arrays are freed */
        if (parse_layout(j, cJSON_GetObjectItemCaseSensitive(o, "layout"),
                         jv_path_key(q, sizeof q, p, "layout"), sc, c->oom_simulate, 1, &r->layout))
            return -1;
    }
    return 0;
}

/* The same instance, as a reconfiguration sees it: same profile, tenants and server. */
static int inst_same(const struct inst_cfg *a, const struct inst_cfg *b)
{
    if (a->prof != b->prof || a->n_ten != b->n_ten || a->server != b->server ||
        a->recovery_s != b->recovery_s || a->bw_loss != b->bw_loss || a->slice_s != b->slice_s ||
        a->switch_s != b->switch_s || a->refill_s != b->refill_s ||
        a->release_on_idle != b->release_on_idle)
        return 0;
    for (int m = 0; m < a->n_ten; m++)
        if (a->ten[m] != b->ten[m] || (a->cap && b->cap && a->cap[m] != b->cap[m]))
            return 0;
    return 1;
}

/* What change r does to a GPU whose layout was prev: keep the instances that stay the same
 * where they are (each old instance at most once, in order), create the others. */
static void plan_change(const struct scenario *sc, const struct layout_cfg *prev,
                        const struct reconf_cfg *r, struct reconf_res *res)
{
    const struct layout_cfg *lc = &r->layout;
    int used[MIG_MAX_INST] = {0}, pin[MIG_MAX_INST], prof[MIG_MAX_INST];
    char why[512];
    res->prev = prev;
    res->next = *lc;
    for (int k = 0; k < lc->n; k++) {
        res->keep[k] = -1;
        pin[k] = -1;
        prof[k] = lc->inst[k].prof;
        for (int m = 0; m < prev->n && res->keep[k] < 0; m++)
            if (!used[m] && inst_same(&lc->inst[k], &prev->inst[m])) {
                used[m] = 1;
                res->keep[k] = m;
                pin[k] = prev->placed.start[m];
            }
    }
    if (lc->n > 0 &&
        mig_place(&sc->gpu, prof, pin, lc->n, NULL, &res->next.placed, why, sizeof why) == 0)
        return;
    /* The kept instances cannot all stay where they are: the layout as parsed, keeping only
     * those that land on their old slices. */
    res->next.placed = lc->placed;
    for (int k = 0; k < lc->n; k++)
        if (res->keep[k] >= 0 && lc->placed.start[k] != prev->placed.start[res->keep[k]])
            res->keep[k] = -1;
}

/* Follows every GPU through the changes in order, planning each change once per distinct
 * previous layout (a "layout" applied to every GPU is one). */
static void plan_changes(const struct scenario *sc, struct mig_cfg *c)
{
    const struct layout_cfg **cur = ss_xmalloc((size_t)c->gpus * sizeof *cur);
    int *which = ss_xmalloc((size_t)c->gpus * sizeof *which);
    for (int g = 0; g < c->gpus; g++)
        cur[g] = c->layouts[g];
    for (int i = 0; i < c->n_reconf; i++) {
        struct reconf_cfg *r = &c->reconf[i];
        for (int g = 0; g < c->gpus; g++) {
            which[g] = -1;
            if (r->gpu >= 0 && r->gpu != g)
                continue;
            int k = 0;
            while (k < r->n_res && r->res[k].prev != cur[g])
                k++;
            if (k == r->n_res) {
                r->res = ss_xrealloc(r->res, (size_t)(r->n_res + 1) * sizeof *r->res);
                plan_change(sc, cur[g], r, &r->res[r->n_res++]);
            }
            which[g] = k;
        }
        /* Only now: r->res moved while it grew. */
        for (int g = 0; g < c->gpus; g++)
            if (which[g] >= 0)
                cur[g] = &r->res[which[g]].next;
    }
    free(which);
    free(cur);
}

static int mig_p_parse(const struct jv *j, const cJSON *obj, const char *path,
                       const struct scenario *sc, void **out)
{
    static const char *const keys[] = {"name",        "kind",     "layout", "layouts",
                                       "reconfigure", "create_s", "oom",    NULL};
    static const char *const ooms[] = {"error", "simulate", NULL};
    char p[512], q[600];
    struct mig_cfg *c = ss_xcalloc(1, sizeof *c);
    *out = c;
    c->gpus = sc->gpus;
    c->create_s = sc->gpu.mig_create_s;
    int oom = 0;
    if (cJSON_GetObjectItemCaseSensitive(obj, "reconfig_s"))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "reconfig_s"),
                       "a reconfiguration no longer takes the whole GPU down: the time until a "
                       "created instance exists is \"create_s\" (instances kept by the change "
                       "go on running)");
    if (jv_object(j, obj, path, keys) || jv_enum(j, obj, path, "oom", 0, ooms, &oom) < 0 ||
        jv_num(j, obj, path, "create_s", 0, 0, 1e6, &c->create_s) < 0)
        return -1;
    c->oom_simulate = oom == 1;
    if (sc->gpu.n_mig == 0)
        return jv_fail(j, path, "%s has no MIG profiles", sc->gpu.name);
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(obj, "layout");
    const cJSON *per = cJSON_GetObjectItemCaseSensitive(obj, "layouts");
    if (!one == !per)
        return jv_fail(j, path,
                       "give \"layout\" (applied to every GPU) or \"layouts\" (one per "
                       "GPU), not both or neither");
    c->layouts = ss_xcalloc((size_t)sc->gpus, sizeof *c->layouts);
    if (one) {
        struct layout_cfg *lc = new_layout(c);
        if (parse_layout(j, one, jv_path_key(p, sizeof p, path, "layout"), sc, c->oom_simulate, 0,
                         lc))
            return -1;
        for (int g = 0; g < sc->gpus; g++)
            c->layouts[g] = lc;
    } else {
        jv_path_key(p, sizeof p, path, "layouts");
        if (!cJSON_IsArray(per) || cJSON_GetArraySize(per) != sc->gpus)
            return jv_fail(j, p, "expected one layout per GPU (%d)", sc->gpus);
        const cJSON *item = per->child; /* walked, not indexed: cJSON_GetArrayItem is O(g) */
        for (int g = 0; g < sc->gpus; g++, item = item->next) {
            struct layout_cfg *lc = new_layout(c);
            c->layouts[g] = lc;
            jv_path_idx(q, sizeof q, p, g);
            if (cJSON_IsObject(item) ? parse_whole(j, item, q, sc, g, lc)
                                     : parse_layout(j, item, q, sc, c->oom_simulate, 1, lc))
                return -1;
            c->n_whole += lc->whole;
        }
    }
    /* one pass over the instances, not one per tenant */
    int *served = ss_xcalloc((size_t)sc->n_tenants, sizeof *served);
    for (int g = 0; g < sc->gpus; g++)
        for (int k = 0; k < c->layouts[g]->n; k++)
            for (int m = 0; m < c->layouts[g]->inst[k].n_ten; m++)
                served[c->layouts[g]->inst[k].ten[m]]++;
    for (int i = 0; i < sc->n_tenants; i++) {
        int n = served[i];
        /* An LLM tenant in several instances has an engine in each behind its router
         * (units/router.h). */
        if (n == 0) {
            free(served);
            return jv_fail(j, path, "tenant \"%s\" is in no instance", sc->tenants[i].name);
        }
    }
    free(served);
    if (check_tp(j, path, sc, c))
        return -1;
    const cJSON *rc = cJSON_GetObjectItemCaseSensitive(obj, "reconfigure");
    for (int i = 0; i < sc->n_tenants && (rc || sc->gpu_fault_rate_per_h > 0); i++)
        if (sc->tenants[i].llm)
            return jv_fail(j, path,
                           "LLM tenant \"%s\": reconfigurations and card faults restart "
                           "engines, which is not modelled yet",
                           sc->tenants[i].name);
    if (rc && parse_reconf(j, rc, jv_path_key(p, sizeof p, path, "reconfigure"), sc, c))
        return -1;
    plan_changes(sc, c);
    return 0;
}

static void free_layout(struct layout_cfg *lc)
{
    for (int k = 0; k < lc->n; k++) {
        free(lc->inst[k].ten);
        free(lc->inst[k].cap);
    }
}

static void mig_p_free_cfg(void *p)
{
    struct mig_cfg *c = p;
    for (int i = 0; i < c->n_owned; i++) {
        free_layout(c->owned[i]);
        free(c->owned[i]);
    }
    for (int i = 0; i < c->n_reconf; i++) {
        free_layout(&c->reconf[i].layout);
        free(c->reconf[i].res);
    }
    free(c->owned);
    free(c->reconf);
    free(c->layouts);
    free(c);
}

/* ---- run time ------------------------------------------------------------- */

/* A tenant's way into an instance: the instance's unit and its client index there. */
struct slot {
    int unit;
    int client;
};

struct inst_rt {
    int prof;
    int unit;     /* index in mig_st.units; -1 while it is being created */
    double up_at; /* while being created: when it serves */
};

struct gpu_rt {
    const struct layout_cfg *layout;
    int n;
    struct inst_rt inst[MIG_MAX_INST];
    uint32_t epoch;     /* version of its pending creations (a later change voids them) */
    double reset_until; /* the end of its card reset: a fault meanwhile is not another */
};

struct mig_st {
    const struct mig_cfg *cfg;
    int n_ten;
    int n_units, cap_units;
    struct unit *units; /* every unit built, torn-down ones too; index = its event id */
    int *live;          /* per unit: 0 once torn down (its events are dropped) */
    struct gpu_rt *gpu;
    int *n_slots;
    struct slot **slots;  /* per tenant */
    double *no_slot_from; /* per tenant: since when it has no instance serving it; < 0: has */
    /* per tenant: the router of an LLM tenant's engines in several instances, else NULL (its
     * instances never change: LLM tenants are refused reconfigurations) */
    struct router **rt;
    int next_reconf;
    struct gpufault gf;
};

static int add_unit(struct mig_st *x)
{
    if (x->n_units == x->cap_units) {
        x->cap_units = x->cap_units ? 2 * x->cap_units : 16;
        x->units = ss_xrealloc(x->units, (size_t)x->cap_units * sizeof *x->units);
        x->live = ss_xrealloc(x->live, (size_t)x->cap_units * sizeof *x->live);
    }
    x->live[x->n_units] = 1;
    return x->n_units++;
}

/* Builds the server of instance k of GPU g's layout. */
static void build_inst(struct sim *s, struct mig_st *x, int g, int k)
{
    const struct scenario *sc = s->sc;
    struct gpu_rt *G = &x->gpu[g];
    const struct inst_cfg *ic = &G->layout->inst[k];
    const struct inst_shape sh = inst_shape_of(sc, ic, x->cfg->oom_simulate);
    if (ic->server == &tp_member_server) { /* its group's engine is on the group's first GPU */
        G->inst[k] = (struct inst_rt){ic->prof, -1, s->now};
        return;
    }
    int id = add_unit(x);
    x->units[id] = ic->server->build(sc, ic, &sh, unit_addr(EV_UNIT, id));
    if (x->units[id].ops->start)
        x->units[id].ops->start(s, x->units[id].self);
    G->inst[k] = (struct inst_rt){ic->prof, id, s->now};
}

/* Creates the instances of a layout on GPU g. */
static void build_gpu(struct sim *s, struct mig_st *x, int g, const struct layout_cfg *lc)
{
    struct gpu_rt *G = &x->gpu[g];
    G->layout = lc;
    G->n = lc->n;
    for (int k = 0; k < lc->n; k++)
        build_inst(s, x, g, k);
}

/* Rebuilds every tenant's list of slots from the instances that serve, by unit rank, and
 * books the time a tenant had none (its availability). */
static void index_slots(struct sim *s, struct mig_st *x)
{
    for (int i = 0; i < s->n_ten; i++)
        x->n_slots[i] = 0;
    for (int rank = 0; rank < UNIT_RANKS; rank++)
        for (int g = 0; g < s->sc->gpus; g++) {
            const struct gpu_rt *G = &x->gpu[g];
            for (int k = 0; k < G->n; k++) {
                int id = G->inst[k].unit;
                if (id < 0 || x->units[id].ops->rank != rank)
                    continue;
                const struct inst_cfg *ic = &G->layout->inst[k];
                for (int m = 0; m < ic->n_ten; m++) {
                    int t = ic->ten[m];
                    x->slots[t][x->n_slots[t]++] = (struct slot){id, m};
                }
            }
        }
    for (int t = 0; t < s->n_ten; t++) {
        if (x->n_slots[t] == 0 && x->no_slot_from[t] < 0) {
            x->no_slot_from[t] = s->now;
        } else if (x->n_slots[t] > 0 && x->no_slot_from[t] >= 0) {
            eng_down(s, t, x->no_slot_from[t], s->now);
            x->no_slot_from[t] = -1;
        }
    }
}

static void kick(struct sim *s, struct mig_st *x, int tenant)
{
    if (x->rt[tenant]) {
        rt_offer(s, x->rt[tenant], tenant);
        return;
    }
    for (int k = 0; k < x->n_slots[tenant] && eng_qlen(s, tenant) > 0; k++) {
        const struct slot *sl = &x->slots[tenant][k];
        const struct unit *u = &x->units[sl->unit];
        u->ops->arrive(s, u->self, sl->client);
    }
}

/* A router per LLM tenant with engines in several instances, its replicas in slot order. */
static void build_routers(struct sim *s, struct mig_st *x)
{
    x->rt = ss_xcalloc((size_t)s->n_ten, sizeof *x->rt);
    for (int t = 0; t < s->n_ten; t++) {
        const struct lsv_cfg *l = s->sc->tenants[t].llm;
        if (!l || x->n_slots[t] < 2)
            continue;
        x->rt[t] = ss_xmalloc(sizeof *x->rt[t]);
        rt_init(x->rt[t], l->router, x->n_slots[t]);
        for (int k = 0; k < x->n_slots[t]; k++)
            rt_add(x->rt[t], x->units[x->slots[t][k].unit], x->slots[t][k].client);
    }
}

static void *mig_p_init(struct sim *s, const void *cfgp)
{
    const struct mig_cfg *c = cfgp;
    struct mig_st *x = ss_xcalloc(1, sizeof *x);
    x->cfg = c;
    x->n_ten = s->n_ten;
    x->gpu = ss_xcalloc((size_t)c->gpus, sizeof *x->gpu);
    x->n_slots = ss_xcalloc((size_t)s->n_ten, sizeof *x->n_slots);
    x->slots = ss_xcalloc((size_t)s->n_ten, sizeof *x->slots);
    x->no_slot_from = ss_xmalloc((size_t)s->n_ten * sizeof *x->no_slot_from);
    for (int i = 0; i < s->n_ten; i++) { /* at most one slot per instance of the pool */
        x->slots[i] = ss_xcalloc((size_t)c->gpus * MIG_MAX_INST, sizeof **x->slots);
        x->no_slot_from[i] = -1;
    }
    for (int g = 0; g < c->gpus; g++)
        build_gpu(s, x, g, c->layouts[g]);
    index_slots(s, x);
    build_routers(s, x);
    if (c->n_reconf > 0)
        eng_schedule(s, c->reconf[0].at_s, EV_RECONF, 0, 0, 0);
    gf_start(&x->gf, s, EV_CARD);
    return x;
}

static void mig_p_arrive(struct sim *s, void *st, int tenant)
{
    kick(s, st, tenant);
}

/* The largest startup_s of an instance's tenants: it serves once all have loaded. */
static double startup_s(const struct scenario *sc, const struct inst_cfg *ic)
{
    double t = 0;
    for (int m = 0; m < ic->n_ten; m++)
        if (sc->tenants[ic->ten[m]].startup_s > t)
            t = sc->tenants[ic->ten[m]].startup_s;
    return t;
}

/* Change r on GPU g: destroy the instances it does not keep (their requests in service
 * fail), keep the others running, and create the new ones after create_s + startup. */
static void reconf_gpu(struct sim *s, struct mig_st *x, const struct reconf_cfg *r, int g)
{
    struct gpu_rt *G = &x->gpu[g];
    const struct reconf_res *res = NULL;
    for (int k = 0; k < r->n_res && !res; k++)
        if (r->res[k].prev == G->layout)
            res = &r->res[k];
    SS_ASSERT(res != NULL);
    int kept[MIG_MAX_INST] = {0};
    struct inst_rt next[MIG_MAX_INST];
    G->epoch++; /* creations still pending are planned again below */
    for (int k = 0; k < res->next.n; k++) {
        int m = res->keep[k];
        if (m >= 0) {
            kept[m] = 1;
            next[k] = G->inst[m];
        } else {
            const struct inst_cfg *ic = &res->next.inst[k];
            next[k] =
                (struct inst_rt){ic->prof, -1, s->now + x->cfg->create_s + startup_s(s->sc, ic)};
        }
        if (next[k].unit < 0)
            eng_schedule(s, next[k].up_at, EV_INST_UP, (uint32_t)g, G->epoch, (uint32_t)k);
    }
    for (int m = 0; m < G->n; m++) {
        int id = G->inst[m].unit;
        if (kept[m] || id < 0)
            continue;
        x->units[id].ops->abort(s, x->units[id].self);
        x->live[id] = 0; /* its pending events are ignored from now on */
    }
    G->layout = &res->next;
    G->n = res->next.n;
    for (int k = 0; k < G->n; k++)
        G->inst[k] = next[k];
    index_slots(s, x);
}

static void on_reconf(struct sim *s, struct mig_st *x)
{
    const struct mig_cfg *c = x->cfg;
    const struct reconf_cfg *r = &c->reconf[x->next_reconf++];
    for (int g = 0; g < c->gpus; g++)
        if (r->gpu < 0 || r->gpu == g)
            reconf_gpu(s, x, r, g);
    if (x->next_reconf < c->n_reconf)
        eng_schedule(s, c->reconf[x->next_reconf].at_s, EV_RECONF, 0, 0, 0);
}

/* A card fault: the reset takes every instance of GPU g down (their requests in service
 * fail); each serves again after the reset plus its tenants' startup_s, as if created. */
SS_COLD static void card_fault(struct sim *s, struct mig_st *x, int g)
{
    struct gpu_rt *G = &x->gpu[g];
    if (!gf_fault(&x->gf, s, g) || s->now < G->reset_until)
        return;
    G->reset_until = s->now + x->gf.reset_s;
    G->epoch++;
    for (int k = 0; k < G->n; k++) {
        int id = G->inst[k].unit;
        if (id >= 0) {
            x->units[id].ops->abort(s, x->units[id].self);
            x->live[id] = 0;
        }
        G->inst[k].unit = -1;
        G->inst[k].up_at = s->now + x->gf.reset_s + startup_s(s->sc, &G->layout->inst[k]);
        eng_schedule(s, G->inst[k].up_at, EV_INST_UP, (uint32_t)g, G->epoch, (uint32_t)k);
    }
    index_slots(s, x);
}

/* Instance k of GPU g has been created and its tenants have loaded: it serves. */
static void on_inst_up(struct sim *s, struct mig_st *x, int g, const struct event *ev)
{
    struct gpu_rt *G = &x->gpu[g];
    int k = (int)ev->aux;
    if (ev->version != G->epoch || k >= G->n || G->inst[k].unit >= 0)
        return; /* voided by a later change */
    build_inst(s, x, g, k);
    index_slots(s, x);
    const struct inst_cfg *ic = &G->layout->inst[k];
    for (int m = 0; m < ic->n_ten; m++)
        kick(s, x, ic->ten[m]);
}

static void mig_p_event(struct sim *s, void *st, const struct event *ev)
{
    struct mig_st *x = st;
    switch (ev->kind) {
    case EV_UNIT: {
        uint32_t id = unit_ev_id(ev);
        if (x->live[id])
            x->units[id].ops->event(s, x->units[id].self, ev);
        return;
    }
    case EV_RECONF:
        on_reconf(s, x);
        return;
    case EV_INST_UP:
        on_inst_up(s, x, (int)ev->target, ev);
        return;
    case EV_CARD:
        card_fault(s, x, (int)ev->target);
        return;
    default:
        SS_FATAL("mig: unexpected event kind %u", ev->kind);
    }
}

static void mig_p_fault(struct sim *s, void *st, int tenant)
{
    struct mig_st *x = st;
    /* The first instance where the tenant has a request in service takes the fault,
     * with that unit's blast radius. */
    for (int k = 0; k < x->n_slots[tenant]; k++) {
        const struct slot *sl = &x->slots[tenant][k];
        const struct unit *u = &x->units[sl->unit];
        if (u->ops->fault(s, u->self, sl->client))
            break;
    }
    /* An engine emptied by the fault takes what waits at its router. */
    if (x->rt[tenant])
        rt_offer(s, x->rt[tenant], tenant);
}

/* A MIG-disabled GPU's details: {"mig": false, "tenant", "utilization"} and, for a GPU of a
 * tensor-parallel group, "tp_group": the group's first GPU (its engine's busy time, which every
 * GPU of the group shares). Its units are finished before (the group's first GPU comes first). */
static cJSON *whole_details(struct sim *s, struct mig_st *x, int g, double window)
{
    const struct gpu_rt *G = &x->gpu[g];
    int lead = G->layout->lead, id = x->gpu[lead].inst[0].unit;
    double busy = 0;
    if (lead == g && id >= 0)
        x->units[id].ops->finish(s, x->units[id].self);
    if (id >= 0)
        busy = x->units[id].ops->busy_s(x->units[id].self);
    cJSON *go = cJSON_CreateObject();
    cJSON_AddFalseToObject(go, "mig");
    cJSON_AddStringToObject(go, "tenant", s->sc->tenants[G->layout->inst[0].ten[0]].name);
    if (tpg_degree(s->sc, G->layout->inst[0].ten[0]) > 1)
        cJSON_AddNumberToObject(go, "tp_group", lead);
    cJSON_AddItemToObject(go, "utilization", jv_out_num(window > 0 ? busy / window : NAN));
    return go;
}

static void mig_p_finish(struct sim *s, void *st, struct strategy_result *res)
{
    struct mig_st *x = st;
    const struct scenario *sc = s->sc;
    double window = s->t_stop - s->t_warm, frag_sum = 0;
    cJSON *gpus = cJSON_CreateArray();
    for (int t = 0; t < s->n_ten; t++)
        if (x->no_slot_from[t] >= 0)
            eng_down(s, t, x->no_slot_from[t], s->now);
    for (int g = 0; g < sc->gpus; g++) {
        struct gpu_rt *G = &x->gpu[g];
        if (G->n == 0) { /* unused GPU: nothing to report, not counted as fragmented */
            cJSON_AddItemToArray(gpus, cJSON_CreateObject());
            continue;
        }
        if (G->layout->whole) { /* MIG off: the GPU's tenant, nothing stranded */
            cJSON_AddItemToArray(gpus, whole_details(s, x, g, window));
            continue;
        }
        cJSON *go = cJSON_CreateObject(), *insts = cJSON_AddArrayToObject(go, "instances");
        int profs[MIG_MAX_INST];
        for (int k = 0; k < G->n; k++) {
            double busy = 0; /* an instance still being created has served nothing */
            if (G->inst[k].unit >= 0) {
                const struct unit *u = &x->units[G->inst[k].unit];
                u->ops->finish(s, u->self);
                busy = u->ops->busy_s(u->self);
            }
            profs[k] = G->inst[k].prof;
            cJSON *io = cJSON_CreateObject();
            cJSON_AddStringToObject(io, "profile", sc->gpu.mig[G->inst[k].prof].name);
            cJSON_AddNumberToObject(io, "start", G->layout->placed.start[k]);
            cJSON *tn = cJSON_AddArrayToObject(io, "tenants");
            for (int m = 0; m < G->layout->inst[k].n_ten; m++)
                cJSON_AddItemToArray(
                    tn, cJSON_CreateString(sc->tenants[G->layout->inst[k].ten[m]].name));
            cJSON_AddItemToObject(io, "utilization", jv_out_num(window > 0 ? busy / window : NAN));
            cJSON_AddItemToArray(insts, io);
        }
        /* Fragmentation for the layout's own profile mix: capacity left free that no
         * further instance of those profiles could use. */
        struct mig_demand d;
        struct mig_frag f;
        mig_demand_from_list(&sc->gpu, profs, G->n, &d);
        mig_frag(&sc->gpu, &G->layout->placed, &d, &f);
        cJSON_AddItemToObject(go, "stranded_compute_frac", jv_out_num(f.stranded_compute_frac));
        cJSON_AddItemToObject(go, "stranded_memory_frac", jv_out_num(f.stranded_memory_frac));
        cJSON_AddItemToObject(go, "fgd", jv_out_num(f.fgd));
        frag_sum += 0.5 * (f.stranded_compute_frac + f.stranded_memory_frac);
        cJSON_AddItemToArray(gpus, go);
    }
    int used = 0;
    for (int g = 0; g < sc->gpus; g++)
        used += x->gpu[g].n > 0;
    res->m[SM_FRAGMENTATION] = used ? frag_sum / used : NAN;
    res->gpus_used = used;
    res->details = cJSON_CreateObject();
    cJSON_AddItemToObject(res->details, "gpus", gpus);
}

static void mig_p_destroy(void *st)
{
    struct mig_st *x = st;
    for (int u = 0; u < x->n_units; u++)
        x->units[u].ops->destroy(x->units[u].self);
    free(x->units);
    free(x->live);
    free(x->gpu);
    for (int i = 0; i < x->n_ten; i++) {
        free(x->slots[i]);
        if (x->rt && x->rt[i]) {
            rt_free(x->rt[i]);
            free(x->rt[i]);
        }
    }
    free(x->rt);
    free(x->slots);
    free(x->n_slots);
    free(x->no_slot_from);
    gf_free(&x->gf);
    free(x);
}

/* ---- stability ------------------------------------------------------------ */

/*
 * What instance ic sustains for its m-th tenant (core/stable.h): its work rate alone in a plain
 * instance (rate_saturated: its whole concurrency in service), ts_capacity or mu_capacity in a
 * nested one. share[] is each tenant's load in this
 * instance (a tenant served by several instances spreads its load in proportion to its speed
 * in each). With load NULL: the m-th tenant's speed alone there.
 */
static double inst_capacity(const struct scenario *sc, const struct inst_cfg *ic,
                            const double *load, const double *alone, int m)
{
    const struct inst_shape sh = inst_shape_of(sc, ic, 0);
    double f = sh.sm, b = sh.bw;
    double *speed = ss_xcalloc((size_t)ic->n_ten, sizeof *speed);
    double *share = ss_xcalloc((size_t)ic->n_ten, sizeof *share);
    for (int k = 0; k < ic->n_ten; k++) {
        speed[k] = rate_saturated(&sc->gpu, &sc->tenants[ic->ten[k]], f, b);
        if (load)
            share[k] = alone[ic->ten[k]] > 0 ? load[ic->ten[k]] * speed[k] / alone[ic->ten[k]] : 0;
    }
    double c = load ? ic->server->capacity(sc, ic, f, b, speed, share, m) : speed[m];
    free(speed);
    free(share);
    return c;
}

/* A tenant's capacity is the sum over the instances that serve it (the layouts at t = 0;
 * a reconfiguration is an outage, not a new steady state). */
static void mig_p_capacity(const struct scenario *sc, const void *cfgp, const double *load,
                           double *cap)
{
    const struct mig_cfg *c = cfgp;
    double *alone = ss_xcalloc((size_t)sc->n_tenants, sizeof *alone);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < sc->n_tenants; i++)
            if (pass == 1)
                cap[i] = 0;
        for (int g = 0; g < c->gpus; g++)
            for (int k = 0; k < c->layouts[g]->n; k++) {
                const struct inst_cfg *ic = &c->layouts[g]->inst[k];
                for (int m = 0; m < ic->n_ten; m++) {
                    if (pass == 0)
                        alone[ic->ten[m]] += inst_capacity(sc, ic, NULL, NULL, m);
                    else
                        cap[ic->ten[m]] += inst_capacity(sc, ic, load, alone, m);
                }
            }
    }
    free(alone);
}

const struct policy_ops policy_mig = {
    .kind = "mig",
    .parse = mig_p_parse,
    .free_cfg = mig_p_free_cfg,
    .init = mig_p_init,
    .arrive = mig_p_arrive,
    .on_event = mig_p_event,
    .fault = mig_p_fault,
    .finish = mig_p_finish,
    .destroy = mig_p_destroy,
    .hooks = &policy_hooks_mig,
    .capacity = mig_p_capacity,
    .serves_llm = 1,
    .tp_whole_gpus = 1,
    .no_tp = "a MIG instance has no NVLink or PCIe peer access to another GPU (NVIDIA's MIG user "
             "guide: no GPU-to-GPU P2P under MIG), so a group cannot span instances",
};
