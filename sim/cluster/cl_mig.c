/*
 * cl_mig — MIG clusters (cl_mig.h): the scenario's "mig" object, pods mapped to profiles,
 * and the MIG engine (layouts, reconfiguration, warm pool, defragmentation) with inflation
 * and replay drivers shaped like cl_engine's.
 */
#include "cluster/cl_mig.h"
#include "base/jsonv.h"
#include "base/util.h"
#include "calib/calib.h"
#include "cluster/cl_scenario.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- scenario ------------------------------------------------------------------------------ */

int cl_mig_parse(const struct jv *j, const struct cJSON *obj, const char *path,
                 struct cl_scenario *s)
{
    static const char *const keys[] = {
        "gpu",       "models",     "layout",           "static_layout",
        "warm_pool", "reconfig_s", "defrag_threshold", "migrate_s",
        NULL};
    static const char *const layouts[] = {"static", "dynamic", NULL};
    struct cl_migcfg *m = &s->mig;
    memset(m, 0, sizeof *m);
    char p[300];
    const char *gpu = NULL;
    int layout = 1;
    m->reconfig_s = -1;
    m->migrate_s = 30;
    if (jv_object(j, obj, path, keys) || jv_str(j, obj, path, "gpu", 1, &gpu) < 0 ||
        jv_enum(j, obj, path, "layout", 0, layouts, &layout) < 0 ||
        jv_num(j, obj, path, "warm_pool", 0, 0, 0.95, &m->warm_pool) < 0 ||
        jv_num(j, obj, path, "reconfig_s", 0, 0, 3600, &m->reconfig_s) < 0 ||
        jv_num(j, obj, path, "defrag_threshold", 0, 0, 1, &m->defrag_threshold) < 0 ||
        jv_num(j, obj, path, "migrate_s", 0, 0, 1e6, &m->migrate_s) < 0)
        return -1;
    m->layout = layout ? CL_MIG_DYNAMIC : CL_MIG_STATIC;
    struct cl_cluster *c = &s->cluster;
    c->mig_gpu = ss_xcalloc(1, sizeof *c->mig_gpu);
    c->n_mig_gpu = 1;
    char err[SS_ERRLEN];
    if (cal_load(gpu, c->mig_gpu, err, sizeof err))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "gpu"), "%s", err);
    if (c->mig_gpu->n_mig == 0)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "gpu"), "GPU \"%s\" has no MIG profiles",
                       gpu);
    m->g = c->mig_gpu;
    if (m->reconfig_s < 0)
        m->reconfig_s = m->g->mig_create_s; /* the time to create the new instances */
    const cJSON *stat = cJSON_GetObjectItemCaseSensitive(obj, "static_layout");
    jv_path_key(p, sizeof p, path, "static_layout");
    if (m->layout == CL_MIG_STATIC) {
        if (!stat)
            return jv_fail(j, path, "\"layout\": \"static\" needs \"static_layout\"");
        /* one layout "3g.20gb,2g.10gb,…" or an array of them */
        int nl = cJSON_IsArray(stat) ? cJSON_GetArraySize(stat) : 1;
        if (!(cJSON_IsString(stat) || cJSON_IsArray(stat)) || nl < 1 || nl > CL_MIG_MAX_LAYOUTS)
            return jv_fail(j, p,
                           "expected a layout (\"3g.20gb,2g.10gb,1g.5gb,1g.5gb\") or an "
                           "array of 1 to %d layouts",
                           CL_MIG_MAX_LAYOUTS);
        for (int l = 0; l < nl; l++) {
            const cJSON *x = cJSON_IsArray(stat) ? cJSON_GetArrayItem(stat, l) : stat;
            char q[320];
            if (cJSON_IsArray(stat))
                jv_path_idx(q, sizeof q, p, l);
            else
                snprintf(q, sizeof q, "%s", p);
            if (!cJSON_IsString(x))
                return jv_fail(j, q, "expected a layout string");
            int *prof = NULL, n = 0;
            char why[SS_ERRLEN];
            if (mig_parse_list(m->g, x->valuestring, &prof, NULL, &n, why, sizeof why) ||
                (n > MIG_MAX_INST &&
                 ss_errf(why, sizeof why, "more than %d instances", MIG_MAX_INST)) ||
                mig_check(m->g, prof, n, why, sizeof why)) {
                free(prof);
                return jv_fail(j, q, "%s", why);
            }
            m->n_static[l] = n;
            memcpy(m->static_prof[l], prof, (size_t)n * sizeof *prof);
            free(prof);
        }
        m->n_layouts = nl;
    } else if (stat) {
        return jv_fail(j, p, "given, but \"layout\" is \"dynamic\"");
    }
    /* Which nodes are MIG-capable: "models", else the node groups marked "mig": true,
     * else every node with GPUs. */
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(obj, "models");
    int marked = 0;
    for (int i = 0; i < c->n_nodes; i++)
        marked += c->node[i].mig >= 0;
    if (models) {
        jv_path_key(p, sizeof p, path, "models");
        if (!cJSON_IsArray(models) || cJSON_GetArraySize(models) == 0)
            return jv_fail(j, p, "expected a non-empty array of GPU model names");
        uint64_t mask = 0;
        int k = 0;
        for (const cJSON *x = models->child; x; x = x->next, k++) {
            char q[320];
            jv_path_idx(q, sizeof q, p, k);
            int mi = cJSON_IsString(x) ? cl_model_find(c, x->valuestring) : -1;
            if (mi < 0)
                return jv_fail(j, q, "expected the name of a GPU model of the cluster");
            mask |= 1ULL << mi;
        }
        for (int i = 0; i < c->n_nodes; i++)
            c->node[i].mig = c->node[i].model >= 0 && (mask >> c->node[i].model & 1) ? 0 : -1;
    } else if (!marked) {
        for (int i = 0; i < c->n_nodes; i++)
            c->node[i].mig = c->node[i].n_gpu > 0 ? 0 : -1;
    }
    s->has_mig = 1;
    return 0;
}

int cl_mig_profile_for(const struct gpu_profile *g, int gpu_milli)
{
    int best = -1;
    for (int k = 0; k < g->n_mig; k++) {
        const struct mig_profile *q = &g->mig[k];
        if (mig_profile_is_me(q) || q->compute_slices * 1000 < gpu_milli * g->mig_compute_slices)
            continue;
        if (best < 0 || q->compute_slices < g->mig[best].compute_slices ||
            (q->compute_slices == g->mig[best].compute_slices &&
             q->memory_slices < g->mig[best].memory_slices))
            best = k;
    }
    return best;
}

int cl_mig_bind_pods(struct cl_migcfg *m, const struct cl_cluster *c, struct cl_workload *w,
                     char *err, size_t errlen)
{
    (void)c;
    int *list = ss_xmalloc((size_t)(w->n ? w->n : 1) * sizeof *list), n = 0;
    for (int i = 0; i < w->n; i++) {
        struct cl_pod *p = &w->pod[i];
        p->mig_prof = -1;
        if (p->num_gpu == 1 && p->gpu_milli < CL_MILLI) {
            p->mig_prof = cl_mig_profile_for(m->g, p->gpu_milli);
            if (p->mig_prof < 0) {
                free(list);
                return ss_errf(err, errlen,
                               "%s:%ld: pod \"%s\": no MIG profile of %s holds %d/1000", w->source,
                               p->line, p->name, m->g->name, p->gpu_milli);
            }
            list[n++] = p->mig_prof;
        }
    }
    if (n)
        mig_demand_from_list(m->g, list, n, &m->demand);
    else
        mig_demand_uniform(m->g, &m->demand);
    free(list);
    cl_workload_classes(w);
    return 0;
}

/* ---- engine -------------------------------------------------------------------------------- */

struct mgpu {
    int node, idx;
    int mig;      /* in MIG mode */
    int pool;     /* warm pool: stays bare */
    int bare_pod; /* bare: the arrival using it whole, -1 */
    struct mig_layout lay;
    int pod[MIG_MAX_INST]; /* arrival on instance i, -1 free */
    double fgd;            /* of its running instances, for the demand */
};

struct mnode {
    int cpu_left;
    long long mem_left;
    int g0, ng; /* its GPUs: gp[g0 .. g0 + ng - 1] */
};

struct arrival {
    int pod, node, gpu, inst; /* inst >= 0: MIG instance; else whole GPUs in mask */
    unsigned mask;
};

struct cl_mig {
    const struct cl_cluster *c;
    const struct cl_workload *w;
    const struct cl_migcfg *m;
    const struct gpu_profile *g;
    int fgd_rule; /* 1: least FGD growth; 0: fewest free slices */
    struct mnode *nd;
    struct mgpu *gp;
    int n_gpu;
    int *rank;
    struct cl_rand rng;
    struct arrival *arr;
    int n_arr, cap_arr;
    long long used_milli;
    double frag_milli;
    int reconfigs, changed, migrated;
    double downtime;
};

static int inst_milli(const struct gpu_profile *g, int prof)
{
    return (int)lround(1000.0 * g->mig[prof].compute_slices / g->mig_compute_slices);
}

/* FGD of a GPU's running instances (free ones could be destroyed). */
static double gpu_fgd(const struct cl_mig *m, const struct mgpu *u)
{
    if (!u->mig)
        return 0;
    struct mig_layout run = {0};
    for (int i = 0; i < u->lay.n; i++)
        if (u->pod[i] >= 0) {
            run.prof[run.n] = u->lay.prof[i];
            run.start[run.n] = u->lay.start[i];
            run.n++;
        }
    struct mig_frag f;
    mig_frag(m->g, &run, &m->m->demand, &f);
    return f.fgd;
}

static int free_slices(const struct cl_mig *m, const struct mgpu *u)
{
    int used = 0;
    for (int i = 0; i < u->lay.n; i++)
        if (u->pod[i] >= 0)
            used += m->g->mig[u->lay.prof[i]].compute_slices;
    return m->g->mig_compute_slices - used;
}

static void refresh(struct cl_mig *m, struct mgpu *u)
{
    m->frag_milli -= 1000 * u->fgd;
    u->fgd = gpu_fgd(m, u);
    m->frag_milli += 1000 * u->fgd;
}

struct cl_mig *cl_mig_new(const struct cl_cluster *c, const struct cl_workload *w,
                          const struct cl_run_cfg *cfg)
{
    struct cl_mig *m = ss_xcalloc(1, sizeof *m);
    m->c = c;
    m->w = w;
    m->m = cfg->mig;
    m->g = cfg->mig->g;
    m->fgd_rule = strcmp(cfg->policy->name, "fgd") == 0;
    m->nd = ss_xcalloc((size_t)c->n_nodes, sizeof *m->nd);
    m->gp = ss_xcalloc((size_t)(c->total_gpus ? c->total_gpus : 1), sizeof *m->gp);
    m->rank = ss_xcalloc((size_t)c->n_nodes, sizeof *m->rank);
    cl_rand_seed(&m->rng, cfg->seed);
    for (int i = 0; i < c->n_nodes; i++) {
        const struct cl_node_spec *n = &c->node[i];
        m->nd[i] = (struct mnode){n->cpu_milli, n->mem_mib, m->n_gpu, n->n_gpu};
        m->rank[i] = i;
        for (int k = 0; k < n->n_gpu; k++) {
            struct mgpu *u = &m->gp[m->n_gpu++];
            memset(u, 0, sizeof *u);
            u->node = i;
            u->idx = k;
            u->bare_pod = -1;
            u->mig = 0;
            u->pool = n->mig < 0; /* a GPU that cannot do MIG is bare for good */
        }
    }
    return m;
}

/* The warm pool and the static layouts, once the node ranks are known. */
static void mig_setup(struct cl_mig *m)
{
    const struct cl_cluster *c = m->c;
    int n_mig = 0;
    for (int i = 0; i < c->n_nodes; i++)
        if (c->node[i].mig >= 0)
            n_mig += c->node[i].n_gpu;
    int pool = (int)floor(m->m->warm_pool * n_mig + 0.5);
    /* nodes by rank: the pool takes whole nodes' GPUs from the lowest ranks */
    int *by_rank = ss_xmalloc((size_t)c->n_nodes * sizeof *by_rank);
    for (int i = 0; i < c->n_nodes; i++)
        by_rank[m->rank[i]] = i;
    for (int r = 0; r < c->n_nodes && pool > 0; r++) {
        int i = by_rank[r];
        if (c->node[i].mig < 0)
            continue;
        for (int k = 0; k < m->nd[i].ng && pool > 0; k++, pool--)
            m->gp[m->nd[i].g0 + k].pool = 1;
    }
    free(by_rank);
    if (m->m->layout == CL_MIG_STATIC) {
        struct mig_layout lay[CL_MIG_MAX_LAYOUTS];
        for (int l = 0; l < m->m->n_layouts; l++) {
            char why[SS_ERRLEN];
            int rc = mig_place(m->g, m->m->static_prof[l], NULL, m->m->n_static[l], &m->m->demand,
                               &lay[l], why, sizeof why);
            SS_ASSERT(rc == 0); /* checked legal when the scenario was read */
        }
        int k = 0;
        for (int u = 0; u < m->n_gpu; u++)
            if (!m->gp[u].pool) {
                m->gp[u].mig = 1;
                m->gp[u].lay = lay[k++ % m->m->n_layouts];
                for (int i = 0; i < MIG_MAX_INST; i++)
                    m->gp[u].pod[i] = -1;
                refresh(m, &m->gp[u]);
            }
    }
}

void cl_mig_free(struct cl_mig *m)
{
    if (!m)
        return;
    free(m->nd);
    free(m->gp);
    free(m->rank);
    free(m->arr);
    free(m);
}

static struct arrival *arrival(struct cl_mig *m, int id)
{
    while (id >= m->cap_arr) {
        int old = m->cap_arr;
        m->cap_arr = m->cap_arr ? 2 * m->cap_arr : 1024;
        m->arr = ss_xrealloc(m->arr, (size_t)m->cap_arr * sizeof *m->arr);
        for (int k = old; k < m->cap_arr; k++)
            m->arr[k] = (struct arrival){-1, -1, -1, -1, 0};
    }
    if (id >= m->n_arr)
        m->n_arr = id + 1;
    return &m->arr[id];
}

int cl_mig_node_of(const struct cl_mig *m, int id)
{
    return id < m->n_arr ? m->arr[id].node : -1;
}

static int node_ok(const struct cl_mig *m, int i, const struct cl_pod *p)
{
    const struct cl_node_spec *n = &m->c->node[i];
    return m->nd[i].cpu_left >= p->cpu_milli && m->nd[i].mem_left >= p->mem_mib &&
           (p->num_gpu == 0 || cl_model_ok(n, p));
}

/* A way to put a MIG pod on a GPU. */
struct option {
    int cost;               /* 0 free instance, 1 larger free one, 2 new keeping free ones,
                               3 new destroying some, 4 switch a bare GPU to MIG mode */
    double key;             /* policy rule: FGD growth or free slices left */
    int gpu, inst;          /* existing instance */
    struct mig_layout lay;  /* cost >= 2: the GPU's new layout, the new instance last */
    int keep[MIG_MAX_INST]; /* cost >= 2: old instance i is at lay index keep[i], -1 gone */
};

/* The FGD after adding profile prof at a position (for the policy rule). */
static double rule_key(const struct cl_mig *m, const struct mgpu *u, const struct mig_layout *lay,
                       const int *podmask_new)
{
    struct mgpu t = *u;
    t.mig = 1;
    t.lay = *lay;
    for (int i = 0; i < lay->n; i++)
        t.pod[i] = podmask_new[i];
    if (m->fgd_rule)
        return gpu_fgd(m, &t) - u->fgd;
    return free_slices(m, &t);
}

/* Options on GPU u for profile prof; the best one into *best if better. */
static void consider(const struct cl_mig *m, int gi, int prof, struct option *best, int *have)
{
    const struct mgpu *u = &m->gp[gi];
    if (u->pool || u->bare_pod >= 0)
        return;
    struct option o;
    memset(&o, 0, sizeof o);
    o.gpu = gi;
    o.inst = -1;
    if (u->mig) {
        /* a free instance of the profile, or (static) the smallest larger one */
        int pick = -1, cost = 9;
        for (int i = 0; i < u->lay.n; i++) {
            if (u->pod[i] >= 0)
                continue;
            const struct mig_profile *q = &m->g->mig[u->lay.prof[i]], *want = &m->g->mig[prof];
            int c;
            if (u->lay.prof[i] == prof)
                c = 0;
            else if (m->m->layout == CL_MIG_STATIC && q->compute_slices >= want->compute_slices &&
                     q->memory_slices >= want->memory_slices && !mig_profile_is_me(q))
                c = 1;
            else
                continue;
            if (c < cost || (c == cost && pick >= 0 &&
                             q->compute_slices < m->g->mig[u->lay.prof[pick]].compute_slices)) {
                cost = c;
                pick = i;
            }
        }
        if (pick >= 0) {
            o.cost = cost;
            o.inst = pick;
            int pods[MIG_MAX_INST];
            memcpy(pods, u->pod, sizeof pods);
            pods[pick] = 0;
            o.key = rule_key(m, u, &u->lay, pods);
            goto offer;
        }
        if (m->m->layout == CL_MIG_STATIC)
            return;
        /* new instance: running ones pinned; keep as many free ones as possible */
        int run[MIG_MAX_INST], nrun = 0, fr[MIG_MAX_INST], nfr = 0;
        for (int i = 0; i < u->lay.n; i++) {
            if (u->pod[i] >= 0)
                run[nrun++] = i;
            else
                fr[nfr++] = i;
        }
        for (int drop = 0; drop <= nfr; drop++) {
            /* subsets of the free instances with `drop` of them destroyed, in index order */
            for (unsigned sub = 0; sub < 1u << nfr; sub++) {
                if (__builtin_popcount(sub) != drop)
                    continue;
                int prof_l[MIG_MAX_INST + 1], pin[MIG_MAX_INST + 1], n = 0, keep[MIG_MAX_INST];
                for (int i = 0; i < MIG_MAX_INST; i++)
                    keep[i] = -1;
                for (int k = 0; k < nrun; k++) {
                    keep[run[k]] = n;
                    prof_l[n] = u->lay.prof[run[k]];
                    pin[n++] = u->lay.start[run[k]];
                }
                for (int k = 0; k < nfr; k++)
                    if (!(sub >> k & 1)) {
                        keep[fr[k]] = n;
                        prof_l[n] = u->lay.prof[fr[k]];
                        pin[n++] = u->lay.start[fr[k]];
                    }
                if (n == MIG_MAX_INST)
                    continue;
                prof_l[n] = prof;
                pin[n++] = -1;
                struct mig_layout lay;
                if (mig_place(m->g, prof_l, pin, n, &m->m->demand, &lay, NULL, 0))
                    continue;
                o.cost = drop ? 3 : 2;
                o.lay = lay;
                memcpy(o.keep, keep, sizeof keep);
                int pods[MIG_MAX_INST + 1];
                for (int i = 0; i < n; i++)
                    pods[i] = -1;
                for (int i = 0; i < u->lay.n; i++)
                    if (keep[i] >= 0)
                        pods[keep[i]] = u->pod[i];
                pods[n - 1] = 0;
                o.key = rule_key(m, u, &lay, pods);
                goto offer;
            }
        }
        return;
    }
    if (m->m->layout == CL_MIG_STATIC)
        return;
    /* a bare, idle, non-pool GPU switched to MIG mode */
    {
        int prof_l[1] = {prof};
        struct mig_layout lay;
        if (mig_place(m->g, prof_l, NULL, 1, &m->m->demand, &lay, NULL, 0))
            return;
        o.cost = 4;
        o.lay = lay;
        for (int i = 0; i < MIG_MAX_INST; i++)
            o.keep[i] = -1;
        int pods[1] = {0};
        struct mgpu t = *u;
        t.fgd = 0;
        o.key = rule_key(m, &t, &lay, pods);
    }
offer:;
    const struct mgpu *b = *have ? &m->gp[best->gpu] : NULL;
    if (!*have || o.cost < best->cost || (o.cost == best->cost && o.key < best->key - 1e-12) ||
        (o.cost == best->cost && fabs(o.key - best->key) <= 1e-12 &&
         (m->rank[u->node] < m->rank[b->node] || (u->node == b->node && u->idx < b->idx)))) {
        *best = o;
        *have = 1;
    }
}

static void take_node(struct cl_mig *m, int node, const struct cl_pod *p, int sign)
{
    m->nd[node].cpu_left -= sign * p->cpu_milli;
    m->nd[node].mem_left -= sign * p->mem_mib;
}

static int defrag_node(struct cl_mig *m, int node, double t);

static int place_mig_pod(struct cl_mig *m, int id, const struct cl_pod *p, double t, int only_node)
{
    struct option best;
    memset(&best, 0, sizeof best);
    int have = 0;
    for (int i = 0; i < m->c->n_nodes; i++) {
        if ((only_node >= 0 && i != only_node) || !node_ok(m, i, p))
            continue;
        for (int k = 0; k < m->nd[i].ng; k++)
            consider(m, m->nd[i].g0 + k, p->mig_prof, &best, &have);
    }
    if (!have)
        return -1;
    struct mgpu *u = &m->gp[best.gpu];
    int inst;
    if (best.cost <= 1) {
        inst = best.inst;
    } else {
        /* reconfigure: the instances kept keep their pods; the others are destroyed */
        int pods[MIG_MAX_INST];
        for (int i = 0; i < MIG_MAX_INST; i++)
            pods[i] = -1;
        int destroyed = 0;
        for (int i = 0; i < u->lay.n; i++) {
            if (best.keep[i] >= 0)
                pods[best.keep[i]] = u->pod[i];
            else
                destroyed++;
        }
        u->mig = 1;
        u->lay = best.lay;
        memcpy(u->pod, pods, sizeof pods);
        /* a kept instance keeps its slices and pod, but its index in the layout changes */
        for (int i = 0; i < u->lay.n; i++)
            if (pods[i] >= 0)
                m->arr[pods[i]].inst = i;
        inst = best.lay.n - 1;
        m->reconfigs++;
        m->changed += destroyed + 1;
        m->downtime += m->m->reconfig_s; /* the pod waits for its instance */
    }
    (void)t;
    u->pod[inst] = id;
    struct arrival *a = arrival(m, id);
    *a = (struct arrival){(int)(p - m->w->pod), u->node, best.gpu, inst, 0};
    take_node(m, u->node, p, 1);
    m->used_milli += inst_milli(m->g, u->lay.prof[inst]);
    refresh(m, u);
    return 0;
}

static int place_whole(struct cl_mig *m, int id, const struct cl_pod *p, int only_node)
{
    int best = -1, best_conv = 0, best_left = 0;
    for (int i = 0; i < m->c->n_nodes; i++) {
        if ((only_node >= 0 && i != only_node) || !node_ok(m, i, p))
            continue;
        int bare = 0, conv = 0;
        for (int k = 0; k < m->nd[i].ng; k++) {
            const struct mgpu *u = &m->gp[m->nd[i].g0 + k];
            if (!u->mig && u->bare_pod < 0)
                bare++;
            else if (u->mig && m->m->layout == CL_MIG_DYNAMIC && !u->pool) {
                int busy = 0;
                for (int q = 0; q < u->lay.n; q++)
                    busy |= u->pod[q] >= 0;
                conv += !busy;
            }
        }
        if (bare + conv < p->num_gpu)
            continue;
        int need_conv = p->num_gpu > bare ? p->num_gpu - bare : 0;
        int left = bare + conv - p->num_gpu;
        if (best < 0 || need_conv < best_conv ||
            (need_conv == best_conv &&
             (left < best_left || (left == best_left && m->rank[i] < m->rank[best])))) {
            best = i;
            best_conv = need_conv;
            best_left = left;
        }
    }
    if (best < 0)
        return -1;
    unsigned mask = 0;
    int got = 0;
    /* pool GPUs first, then other bare ones, then idle MIG GPUs reset to bare */
    for (int pass = 0; pass < 3 && got < p->num_gpu; pass++)
        for (int k = 0; k < m->nd[best].ng && got < p->num_gpu; k++) {
            struct mgpu *u = &m->gp[m->nd[best].g0 + k];
            if (mask >> k & 1)
                continue;
            int ok = pass == 0   ? !u->mig && u->bare_pod < 0 && u->pool
                     : pass == 1 ? !u->mig && u->bare_pod < 0
                                 : 0;
            if (pass == 2 && u->mig && !u->pool && m->m->layout == CL_MIG_DYNAMIC) {
                int busy = 0;
                for (int q = 0; q < u->lay.n; q++)
                    busy |= u->pod[q] >= 0;
                if (!busy) {
                    m->changed += u->lay.n;
                    u->mig = 0;
                    u->lay.n = 0;
                    m->reconfigs++;
                    m->downtime += m->m->reconfig_s;
                    refresh(m, u);
                    ok = 1;
                }
            }
            if (!ok)
                continue;
            u->bare_pod = id;
            mask |= 1u << k;
            got++;
        }
    SS_ASSERT(got == p->num_gpu);
    struct arrival *a = arrival(m, id);
    *a = (struct arrival){(int)(p - m->w->pod), best, -1, -1, mask};
    take_node(m, best, p, 1);
    m->used_milli += (long long)p->num_gpu * CL_MILLI;
    return 0;
}

static int place_cpu(struct cl_mig *m, int id, const struct cl_pod *p, int only_node)
{
    int best = -1;
    for (int i = 0; i < m->c->n_nodes; i++)
        if ((only_node < 0 || i == only_node) && node_ok(m, i, p) &&
            (best < 0 || m->rank[i] < m->rank[best]))
            best = i;
    if (best < 0)
        return -1;
    struct arrival *a = arrival(m, id);
    *a = (struct arrival){(int)(p - m->w->pod), best, -1, -1, 0};
    take_node(m, best, p, 1);
    return 0;
}

static double node_frag(const struct cl_mig *m, int node)
{
    double s = 0;
    int n = 0;
    for (int k = 0; k < m->nd[node].ng; k++) {
        const struct mgpu *u = &m->gp[m->nd[node].g0 + k];
        if (u->mig) {
            s += u->fgd;
            n++;
        }
    }
    return n ? s / n : 0;
}

int cl_mig_place(struct cl_mig *m, int id, int pod, double t, int only_node)
{
    const struct cl_pod *p = &m->w->pod[pod];
    int rc;
    if (p->num_gpu == 0)
        return place_cpu(m, id, p, only_node);
    if (p->mig_prof < 0)
        rc = place_whole(m, id, p, only_node);
    else
        rc = place_mig_pod(m, id, p, t, only_node);
    if (rc == 0 || m->m->layout != CL_MIG_DYNAMIC || m->m->defrag_threshold <= 0)
        return rc;
    /* before failing it: repack the nodes past the threshold, then try again */
    int any = 0;
    for (int i = 0; i < m->c->n_nodes; i++)
        if ((only_node < 0 || i == only_node) && node_frag(m, i) > m->m->defrag_threshold)
            any |= defrag_node(m, i, t) > 0;
    if (!any)
        return -1;
    return p->mig_prof < 0 ? place_whole(m, id, p, only_node)
                           : place_mig_pod(m, id, p, t, only_node);
}

void cl_mig_remove(struct cl_mig *m, int id, double t)
{
    struct arrival *a = &m->arr[id];
    SS_ASSERT(a->node >= 0);
    const struct cl_pod *p = &m->w->pod[a->pod];
    int node = a->node;
    take_node(m, node, p, -1);
    if (a->inst >= 0) {
        struct mgpu *u = &m->gp[a->gpu];
        SS_ASSERT(u->pod[a->inst] == id);
        u->pod[a->inst] = -1; /* the instance stays, free */
        m->used_milli -= inst_milli(m->g, u->lay.prof[a->inst]);
        refresh(m, u);
    } else if (a->mask) {
        for (int k = 0; k < m->nd[node].ng; k++)
            if (a->mask >> k & 1) {
                SS_ASSERT(m->gp[m->nd[node].g0 + k].bare_pod == id);
                m->gp[m->nd[node].g0 + k].bare_pod = -1;
            }
        m->used_milli -= (long long)p->num_gpu * CL_MILLI;
    }
    a->node = -1;
    if (m->m->layout == CL_MIG_DYNAMIC && m->m->defrag_threshold > 0 &&
        node_frag(m, node) > m->m->defrag_threshold)
        defrag_node(m, node, t);
}

/* Repacks a node's running instances onto its MIG GPUs; the pods moved, or 0. */
static int defrag_node(struct cl_mig *m, int node, double t)
{
    (void)t;
    int gpus[CL_MAX_GPUS], ng = 0;
    for (int k = 0; k < m->nd[node].ng; k++)
        if (m->gp[m->nd[node].g0 + k].mig)
            gpus[ng++] = m->nd[node].g0 + k;
    int req[CL_MAX_GPUS * MIG_MAX_INST], who[CL_MAX_GPUS * MIG_MAX_INST][2], nr = 0;
    double before = 0;
    for (int k = 0; k < ng; k++) {
        const struct mgpu *u = &m->gp[gpus[k]];
        before += u->fgd;
        for (int i = 0; i < u->lay.n; i++)
            if (u->pod[i] >= 0) {
                req[nr] = u->lay.prof[i];
                who[nr][0] = k;
                who[nr][1] = i;
                nr++;
            }
    }
    if (nr == 0)
        return 0;
    struct mig_pack_opts o = {MIG_PACK_FGD, ng, 0, &m->m->demand};
    struct mig_pack r;
    mig_pack(m->g, req, nr, &o, &r);
    int moved = 0;
    if (r.n_unplaced == 0) {
        double after = 0;
        for (int k = 0; k < r.n_gpus; k++) {
            struct mig_frag f;
            mig_frag(m->g, &r.gpu[k], &m->m->demand, &f);
            after += f.fgd;
        }
        if (after < before - 1e-12) {
            /* new layouts: packed GPU k -> the node's k-th MIG GPU; others emptied */
            struct mgpu old[CL_MAX_GPUS];
            for (int k = 0; k < ng; k++)
                old[k] = m->gp[gpus[k]];
            for (int k = 0; k < ng; k++) {
                struct mgpu *u = &m->gp[gpus[k]];
                u->lay = k < r.n_gpus ? r.gpu[k] : (struct mig_layout){0};
                for (int i = 0; i < MIG_MAX_INST; i++)
                    u->pod[i] = -1;
            }
            for (int q = 0; q < nr; q++) {
                int k = r.gpu_of[q], s = r.slot_of[q];
                int id = old[who[q][0]].pod[who[q][1]];
                struct mgpu *u = &m->gp[gpus[k]];
                u->pod[s] = id;
                if (k != who[q][0] || u->lay.start[s] != old[who[q][0]].lay.start[who[q][1]]) {
                    moved++;
                    m->downtime += m->m->migrate_s;
                }
                m->arr[id].gpu = gpus[k];
                m->arr[id].inst = s;
            }
            for (int k = 0; k < ng; k++) {
                struct mgpu *u = &m->gp[gpus[k]];
                int same = u->lay.n == old[k].lay.n &&
                           !memcmp(u->lay.prof, old[k].lay.prof, sizeof u->lay.prof) &&
                           !memcmp(u->lay.start, old[k].lay.start, sizeof u->lay.start);
                if (!same) {
                    m->reconfigs++;
                    m->changed += old[k].lay.n + u->lay.n;
                }
                refresh(m, u);
            }
            m->migrated += moved;
        }
    }
    mig_pack_free(&r);
    return moved;
}

int cl_mig_gpu(const struct cl_mig *m, int node, int gpu, int *prof, int *start, int *pod,
               int *mig_mode)
{
    const struct mgpu *u = &m->gp[m->nd[node].g0 + gpu];
    for (int i = 0; i < u->lay.n; i++) {
        prof[i] = u->lay.prof[i];
        start[i] = u->lay.start[i];
        pod[i] = u->pod[i];
    }
    *mig_mode = u->mig;
    return u->mig ? u->lay.n : 0;
}

void cl_mig_counters(const struct cl_mig *m, int *reconfigs, int *changed, int *migrated,
                     double *downtime_s)
{
    *reconfigs = m->reconfigs;
    *changed = m->changed;
    *migrated = m->migrated;
    *downtime_s = m->downtime;
}

/* ---- drivers ------------------------------------------------------------------------------- */

struct mlog {
    struct cl_event *ev;
    long n, cap;
};

/* qsort has no context argument; a process runs one experiment at a time, so a file-scope
 * pointer. */
static const struct cl_workload *order_by_creation;

static int cmp_creation(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    long long tx = order_by_creation->pod[x].t_create, ty = order_by_creation->pod[y].t_create;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return (x > y) - (x < y);
}

static void mrecord(struct mlog *l, const struct cl_mig *m, double t, long long arrived_milli,
                    int arrived, int placed, int failed, int pending, int running)
{
    SS_ASSERT(arrived == placed + failed + pending);
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->ev = ss_xrealloc(l->ev, (size_t)l->cap * sizeof *l->ev);
    }
    struct cl_event *v = &l->ev[l->n++];
    memset(v, 0, sizeof *v);
    v->t = t;
    v->arrived_milli = arrived_milli;
    v->used_milli = m->used_milli;
    v->frag_num = llround(m->frag_milli * 1000);
    v->arrived = arrived;
    v->placed = placed;
    v->failed = failed;
    v->pending = pending;
    v->running = running;
    v->reconfigs = m->reconfigs;
    v->changed = m->changed;
    v->migrated = m->migrated;
    v->downtime_s = m->downtime;
}

struct mev {
    long long t;
    int pod, del;
    long seq;
};

static int cmp_mev(const void *a, const void *b)
{
    const struct mev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

int cl_mig_run(const struct cl_cluster *c, const struct cl_workload *w, const struct cl_typical *tp,
               const struct cl_run_cfg *cfg, struct cl_result *out, char *err, size_t errlen)
{
    (void)tp;
    if (strcmp(cfg->policy->name, "fgd") && strcmp(cfg->policy->name, "bestfit"))
        return ss_errf(err, errlen,
                       "policy \"%s\" is not defined for MIG clusters (use fgd or bestfit: "
                       "docs/cluster.md)",
                       cfg->policy->name);
    struct cl_mig *m = cl_mig_new(c, w, cfg);
    out->cap_milli = c->total_gpus * CL_MILLI;
    out->count_sum = 1000; /* frag_num is GPU-milli x 1000 */
    struct cl_rand *r = &m->rng;
    (void)cl_rand_int(r);
    struct mlog log = {0};
    int n = w->n;
    long long arrived_milli = 0;
    int arrived = 0, placed = 0, failed = 0;
    if (cfg->mode == CL_INFLATE) {
        int cap = n + 16, len = n;
        int *seq = ss_xmalloc((size_t)cap * sizeof *seq);
        for (int i = 0; i < n; i++)
            seq[i] = i;
        if (cfg->shuffle)
            cl_rand_shuffle(r, n, seq);
        long long total = 0;
        for (int i = 0; i < n; i++)
            total += cl_pod_milli(&w->pod[i]);
        double target = cfg->tune * (double)out->cap_milli;
        while ((double)total < target) {
            int idx = (int)cl_rand_intn(r, n);
            if ((double)(total + w->pod[idx].gpu_milli) > target)
                break;
            total += cl_pod_milli(&w->pod[idx]);
            if (len == cap) {
                cap *= 2;
                seq = ss_xrealloc(seq, (size_t)cap * sizeof *seq);
            }
            seq[len++] = idx;
        }
        cl_rand_perm(r, c->n_nodes, m->rank);
        mig_setup(m);
        for (int k = 0; k < len; k++) {
            arrived++;
            arrived_milli += cl_pod_milli(&w->pod[seq[k]]);
            if (cl_mig_place(m, k, seq[k], k, -1) == 0)
                placed++;
            else
                failed++;
            mrecord(&log, m, k, arrived_milli, arrived, placed, failed, 0, placed);
            cl_progress_tick(cfg, k + 1, len);
        }
        out->n_pods = len;
        free(seq);
    } else {
        cl_rand_perm(r, c->n_nodes, m->rank);
        mig_setup(m);
        struct mev *ev = ss_xmalloc((size_t)(2 * n + 1) * sizeof *ev);
        /* pods by creation time, ties by name, each creation then its deletion */
        int *order = ss_xmalloc((size_t)(n ? n : 1) * sizeof *order);
        for (int i = 0; i < n; i++)
            order[i] = i;
        /* stable: ties keep name order (an insertion sort would be quadratic in the pods) */
        order_by_creation = w;
        qsort(order, (size_t)n, sizeof *order, cmp_creation);
        for (int k = 0; k < n; k++) {
            ev[2 * k] = (struct mev){w->pod[order[k]].t_create, order[k], 0, 2L * k};
            ev[2 * k + 1] = (struct mev){w->pod[order[k]].t_delete, order[k], 1, 2L * k + 1};
        }
        qsort(ev, (size_t)(2 * n), sizeof *ev, cmp_mev);
        unsigned char *st = ss_xcalloc((size_t)(n ? n : 1), 1); /* 0 new 1 wait 2 run 3 end */
        int *queue = ss_xmalloc((size_t)(n ? n : 1) * sizeof *queue), qn = 0, running = 0;
        double *since = ss_xcalloc((size_t)(n ? n : 1), sizeof *since), wait_sum = 0;
        long long t0 = n ? ev[0].t : 0;
        for (int k = 0; k < 2 * n; k++) {
            int i = ev[k].pod;
            double t = (double)(ev[k].t - t0);
            if (!ev[k].del) {
                arrived++;
                arrived_milli += cl_pod_milli(&w->pod[i]);
                if (cl_mig_place(m, i, i, t, -1) == 0) {
                    st[i] = 2;
                    placed++;
                    running++;
                } else if (cfg->wait) {
                    st[i] = 1;
                    since[i] = t;
                    queue[qn++] = i;
                } else {
                    st[i] = 3;
                    failed++;
                }
            } else if (st[i] == 2) {
                int node = cl_mig_node_of(m, i);
                cl_mig_remove(m, i, t);
                st[i] = 3;
                running--;
                int keep = 0;
                for (int q = 0; q < qn; q++) {
                    int j = queue[q];
                    if (cl_mig_place(m, j, j, t, node) == 0) {
                        st[j] = 2;
                        placed++;
                        running++;
                        out->waited++;
                        wait_sum += t - since[j];
                        if (t - since[j] > out->wait_max_s)
                            out->wait_max_s = t - since[j];
                    } else {
                        queue[keep++] = j;
                    }
                }
                qn = keep;
            } else if (st[i] == 1) {
                int keep = 0;
                for (int q = 0; q < qn; q++)
                    if (queue[q] != i)
                        queue[keep++] = queue[q];
                qn = keep;
                st[i] = 3;
                failed++;
            }
            mrecord(&log, m, t, arrived_milli, arrived, placed, failed, qn, running);
            cl_progress_tick(cfg, k + 1, 2L * n);
        }
        out->n_pods = n;
        out->wait_mean_s = out->waited ? wait_sum / out->waited : 0;
        free(ev);
        free(order);
        free(st);
        free(queue);
        free(since);
    }
    out->ev = log.ev;
    out->n_ev = log.n;
    out->mem_bytes = sizeof *m + (size_t)c->n_nodes * (sizeof *m->nd + sizeof *m->rank) +
                     (size_t)m->n_gpu * sizeof *m->gp + (size_t)m->cap_arr * sizeof *m->arr +
                     (size_t)log.cap * sizeof *log.ev;
    cl_mig_free(m);
    return 0;
}
