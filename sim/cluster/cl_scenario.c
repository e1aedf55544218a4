/*
 * cl_scenario — reads a cluster scenario (cl_scenario.h; keys in docs/cluster.md).
 */
#include "cluster/cl_scenario.h"
#include "base/jsonv.h"
#include "base/name.h"
#include "base/util.h"
#include "cluster/cl_place.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A relative path names a file next to the scenario file. */
static void resolve(const char *scenario, const char *rel, char *out, size_t n)
{
    const char *slash = strrchr(scenario, '/');
    if (rel[0] == '/' || !slash)
        snprintf(out, n, "%s", rel);
    else
        snprintf(out, n, "%.*s/%s", (int)(slash - scenario), scenario, rel);
}

static int parse_node_groups(const struct jv *j, const cJSON *arr, const char *path,
                             struct cl_cluster *c)
{
    static const char *const keys[] = {"count", "name",      "cpu_milli", "memory_mib",
                                       "gpus",  "gpu_model", "mig",       NULL};
    memset(c, 0, sizeof *c);
    snprintf(c->source, sizeof c->source, "%s", j->file);
    int n = cJSON_GetArraySize(arr);
    if (n == 0)
        return jv_fail(j, path, "expected at least one node group");
    int cap = 0;
    for (int g = 0; g < n; g++) {
        char p[256], q[300];
        jv_path_idx(p, sizeof p, path, g);
        const cJSON *o = cJSON_GetArrayItem(arr, g);
        if (jv_object(j, o, p, keys))
            return -1;
        long count = 1, cpu, gpus = 0;
        double mem;
        const char *name = NULL, *model = NULL;
        int mig = 0;
        if (jv_int(j, o, p, "count", 0, 1, 10000000, &count) < 0 ||
            jv_int(j, o, p, "cpu_milli", 1, 1, INT_MAX, &cpu) < 0 ||
            jv_num(j, o, p, "memory_mib", 1, 0, 1e15, &mem) < 0 ||
            jv_int(j, o, p, "gpus", 0, 0, CL_MAX_GPUS, &gpus) < 0 ||
            jv_str(j, o, p, "name", 0, &name) < 0 || jv_str(j, o, p, "gpu_model", 0, &model) < 0 ||
            jv_bool(j, o, p, "mig", 0, &mig) < 0)
            return -1;
        char why[SS_ERRLEN];
        if (name && name_check(name, why, sizeof why))
            return jv_fail(j, jv_path_key(q, sizeof q, p, "name"), "%s", why);
        /* A node is "<group>-<index>": the group's name is cut to 40 bytes, at a character
         * boundary, so the node's name stays valid UTF-8. */
        int keep = name ? (int)strlen(name) : 0;
        if (keep > 40)
            for (keep = 40; keep > 0 && ((unsigned char)name[keep] & 0xC0) == 0x80;)
                keep--;
        if (gpus > 0 && (!model || !*model))
            return jv_fail(j, p, "a group with GPUs needs \"gpu_model\"");
        if (gpus == 0 && model)
            return jv_fail(j, jv_path_key(q, sizeof q, p, "gpu_model"),
                           "a group without GPUs has no GPU model");
        if (mig && gpus == 0)
            return jv_fail(j, jv_path_key(q, sizeof q, p, "mig"), "MIG needs GPUs");
        if ((long long)c->n_nodes + count > CL_MAX_NODES)
            return jv_fail(j, p,
                           "%lld nodes in the groups so far, more than %d (CL_MAX_NODES, "
                           "docs/robustness.md)",
                           (long long)c->n_nodes + count, CL_MAX_NODES);
        int model_idx = -1;
        if (gpus > 0) {
            char merr[SS_ERRLEN];
            model_idx = cl_model_add(c, model, merr, sizeof merr);
            if (model_idx < 0)
                return jv_fail(j, jv_path_key(q, sizeof q, p, "gpu_model"), "%s", merr);
        }
        for (long k = 0; k < count; k++) {
            if (c->n_nodes == cap) {
                cap = cap ? 2 * cap : 256;
                c->node = ss_xrealloc(c->node, (size_t)cap * sizeof *c->node);
            }
            struct cl_node_spec *d = &c->node[c->n_nodes];
            memset(d, 0, sizeof *d);
            snprintf(d->name, sizeof d->name, "%.*s-%05ld", keep, name ? name : "", k);
            if (!name)
                snprintf(d->name, sizeof d->name, "g%02d-%05ld", g, k);
            d->cpu_milli = (int)cpu;
            d->mem_mib = (long long)mem;
            d->n_gpu = (int)gpus;
            d->model = model_idx;
            d->mig = mig ? 0 : -1; /* MIG-capable; see cl_mig_parse */
            c->n_nodes++;
        }
    }
    cl_cluster_totals(c);
    return 0;
}

static int parse_seeds(const struct jv *j, const cJSON *o, const char *path, struct cl_scenario *s)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "seeds");
    char p[256];
    jv_path_key(p, sizeof p, path, "seeds");
    if (!v) {
        s->n_seeds = 1;
        s->seed[0] = 42;
        return 0;
    }
    if (cJSON_IsObject(v)) {
        static const char *const keys[] = {"first", "count", NULL};
        long first, count;
        if (jv_object(j, v, p, keys) || jv_int(j, v, p, "first", 1, 0, INT_MAX, &first) < 0 ||
            jv_int(j, v, p, "count", 1, 1, CL_MAX_SEEDS, &count) < 0)
            return -1;
        s->n_seeds = (int)count;
        for (int i = 0; i < count; i++)
            s->seed[i] = first + i;
        return 0;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
        return jv_fail(j, p, "expected a non-empty array of seeds or {\"first\", \"count\"}");
    if (cJSON_GetArraySize(v) > CL_MAX_SEEDS)
        return jv_fail(j, p, "more than %d seeds", CL_MAX_SEEDS);
    int i = 0;
    for (const cJSON *x = v->child; x; x = x->next, i++) {
        char q[300];
        jv_path_idx(q, sizeof q, p, i);
        if (!cJSON_IsNumber(x) || x->valuedouble != floor(x->valuedouble) ||
            fabs(x->valuedouble) > 9e15)
            return jv_fail(j, q, "expected an integer seed");
        s->seed[i] = (long long)x->valuedouble;
    }
    s->n_seeds = i;
    return 0;
}

static int parse_policies(const struct jv *j, const cJSON *o, const char *path,
                          struct cl_scenario *s)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "policies");
    char p[256], names[256];
    jv_path_key(p, sizeof p, path, "policies");
    cl_policy_names(names, sizeof names);
    if (!v) {
        s->n_policies = cl_policy_count();
        for (int i = 0; i < s->n_policies; i++)
            s->policy[i] = cl_policy_at(i);
        return 0;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
        return jv_fail(j, p, "expected a non-empty array of policy names (%s)", names);
    if (cJSON_GetArraySize(v) > CL_MAX_POLICIES)
        return jv_fail(j, p, "more than %d policies", CL_MAX_POLICIES);
    int i = 0;
    for (const cJSON *x = v->child; x; x = x->next, i++) {
        char q[300];
        jv_path_idx(q, sizeof q, p, i);
        const struct cl_policy *pol = cJSON_IsString(x) ? cl_policy_find(x->valuestring) : NULL;
        if (!pol)
            return jv_fail(j, q, "unknown policy %s%s%s: expected one of %s",
                           cJSON_IsString(x) ? "\"" : "", cJSON_IsString(x) ? x->valuestring : "",
                           cJSON_IsString(x) ? "\"" : "(not a string)", names);
        for (int k = 0; k < i; k++)
            if (s->policy[k] == pol)
                return jv_fail(j, q, "policy \"%s\" listed twice", pol->name);
        s->policy[i] = pol;
    }
    s->n_policies = i;
    return 0;
}

/*
 * The bounds of cl_scenario.h on what the experiments will do, from the loaded inputs: the
 * pods placed (inflation estimated from the GPU-milli asked for), nodes x pods, and the
 * replay's samples (whose default, 1 % of the span, is set here).
 */
static int check_work(const struct jv *j, const char *P, struct cl_scenario *s)
{
    char p[256];
    const struct cl_workload *w = &s->work;
    double pods = w->n;
    if (s->mode == CL_INFLATE) {
        long long asked = 0;
        for (int i = 0; i < w->n; i++)
            asked += cl_pod_milli(&w->pod[i]);
        double target = s->tune * (double)s->cluster.total_gpus * CL_MILLI;
        if (asked == 0)
            return jv_fail(j, jv_path_key(p, sizeof p, P, "mode"),
                           "\"inflate\" draws pods until their GPU requests reach %.2f x the "
                           "cluster's GPUs, but none of the %d pods of %s asks for a GPU (use "
                           "\"mode\": \"replay\")",
                           s->tune, w->n, w->source);
        /* Each draw adds asked / n GPU-milli on average. */
        if ((double)asked < target)
            pods = (double)w->n * target / (double)asked;
        if (pods > CL_MAX_INFLATED_PODS)
            return jv_fail(j, jv_path_key(p, sizeof p, P, "inflate"),
                           "inflating %d pods asking for %lld GPU-milli to %.2f x %lld GPUs "
                           "places about %.3g pods, more than %d (CL_MAX_INFLATED_PODS, "
                           "docs/robustness.md): lower \"tune\" or the cluster",
                           w->n, asked, s->tune, s->cluster.total_gpus, pods, CL_MAX_INFLATED_PODS);
    } else if (!w->timed) {
        return jv_fail(j, jv_path_key(p, sizeof p, P, "mode"),
                       "\"replay\" needs the pods' creation_time and deletion_time, and %s "
                       "has neither column (the FGD simulator's variants without times are "
                       "placed once each in name order: \"mode\": \"inflate\")",
                       w->source);
    }
    double work = pods * (double)s->cluster.n_nodes;
    if (work > CL_MAX_NODE_PODS)
        return jv_fail(j, P,
                       "%d nodes x about %.3g pods placed = %.3g node visits per experiment, "
                       "more than %.3g (CL_MAX_NODE_PODS, docs/robustness.md; about 10 "
                       "minutes of one core): use fewer nodes or pods",
                       s->cluster.n_nodes, pods, work, CL_MAX_NODE_PODS);
    if (s->mode != CL_REPLAY)
        return 0;
    long long lo = LLONG_MAX, hi = 0;
    for (int i = 0; i < w->n; i++) {
        if (w->pod[i].t_create < lo)
            lo = w->pod[i].t_create;
        if (w->pod[i].t_delete > hi)
            hi = w->pod[i].t_delete;
    }
    double span = hi > lo ? (double)(hi - lo) : 0;
    if (s->sample_s < 0)
        s->sample_s = span > 0 ? span / 100 : 1;
    /* samples at 0, sample_s, 2 sample_s, ... below the span, and one at its end */
    double n = floor(span / s->sample_s) + 2;
    if (n > CL_MAX_SAMPLES)
        return jv_fail(j, jv_path_key(p, sizeof p, P, "replay.sample_s"),
                       "%g s over the trace's span of %.0f s is %.3g samples, more than %d "
                       "(CL_MAX_SAMPLES, docs/robustness.md): a sample_s of at least %.6g s "
                       "fits",
                       s->sample_s, span, n, CL_MAX_SAMPLES, cl_min_sample_s(span));
    return 0;
}

double cl_min_sample_s(double span)
{
    /* the smallest value printed with 6 digits for which floor(span / s) + 2 fits */
    double s = span / (CL_MAX_SAMPLES - 2);
    char buf[64];
    for (;;) {
        snprintf(buf, sizeof buf, "%.6g", s);
        double v = strtod(buf, NULL);
        if (v > 0 && floor(span / v) + 2 <= CL_MAX_SAMPLES)
            return v;
        s = nextafter(s * (1 + 1e-6), INFINITY);
    }
}

int cl_scenario_load(const char *path, struct cl_scenario *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    snprintf(s->file, sizeof s->file, "%s", path);
    struct jv j = {path, err, errlen};
    char *text;
    size_t len;
    if (ss_read_file(path, 16u << 20, &text, &len, err, errlen))
        return -1;
    cJSON *root = jv_parse(&j, text, len);
    free(text);
    if (!root)
        return -1;
    int rc = -1;
    static const char *const top_keys[] = {"name", "description", "cluster", NULL};
    static const char *const keys[] = {
        "nodes",     "node_scale",     "pods",    "workload", "policies",
        "seeds",     "mode",           "inflate", "replay",   "typical_popularity",
        "oversized", "frag_threshold", "mig",     NULL};
    const char *name = NULL, *desc = NULL;
    if (jv_object(&j, root, "", top_keys) || jv_str(&j, root, "", "name", 0, &name) < 0 ||
        jv_str(&j, root, "", "description", 0, &desc) < 0)
        goto out;
    char why[SS_ERRLEN];
    if (name && name_check(name, why, sizeof why)) { /* the one name rule, base/name.h */
        jv_fail(&j, "name", "%s", why);
        goto out;
    }
    snprintf(s->name, sizeof s->name, "%s", name ? name : "cluster");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "cluster");
    if (!c) {
        jv_fail(&j, "cluster", "missing: a cluster scenario needs a \"cluster\" object");
        goto out;
    }
    const char *P = "cluster";
    char p[256];
    if (jv_object(&j, c, P, keys))
        goto out;

    /* options first, so that file errors come after key errors */
    static const char *const modes[] = {"inflate", "replay", NULL};
    static const char *const oversized_names[] = {"error", "fail", NULL};
    int mode = 0, oversized = 1; /* the reference counts such a pod as failed */
    long scale = 1;
    s->popularity = 0.95;
    s->frag_threshold = 0.15;
    if (jv_enum(&j, c, P, "mode", 0, modes, &mode) < 0 ||
        jv_enum(&j, c, P, "oversized", 0, oversized_names, &oversized) < 0 ||
        jv_int(&j, c, P, "node_scale", 0, 1, 1024, &scale) < 0 ||
        jv_num(&j, c, P, "typical_popularity", 0, 0.01, 1, &s->popularity) < 0 ||
        jv_num(&j, c, P, "frag_threshold", 0, 0, 1, &s->frag_threshold) < 0 ||
        parse_policies(&j, c, P, s) || parse_seeds(&j, c, P, s))
        goto out;
    s->mode = mode ? CL_REPLAY : CL_INFLATE;
    s->tune = 1.3;
    s->shuffle = 1;
    const cJSON *inf = cJSON_GetObjectItemCaseSensitive(c, "inflate");
    const cJSON *rep = cJSON_GetObjectItemCaseSensitive(c, "replay");
    if (inf) {
        static const char *const ik[] = {"tune", "order", NULL};
        static const char *const orders[] = {"shuffle", "creation", NULL};
        int order = 0;
        jv_path_key(p, sizeof p, P, "inflate");
        if (s->mode != CL_INFLATE) {
            jv_fail(&j, p, "given, but \"mode\" is \"replay\"");
            goto out;
        }
        if (jv_object(&j, inf, p, ik) || jv_num_gt(&j, inf, p, "tune", 0, 0, 100, &s->tune) < 0 ||
            jv_enum(&j, inf, p, "order", 0, orders, &order) < 0)
            goto out;
        s->shuffle = order == 0;
    }
    s->sample_s = -1;
    if (rep) {
        static const char *const rk[] = {"unplaced", "sample_s", NULL};
        static const char *const unplaced[] = {"fail", "wait", NULL};
        int u = 0;
        jv_path_key(p, sizeof p, P, "replay");
        if (s->mode != CL_REPLAY) {
            jv_fail(&j, p, "given, but \"mode\" is \"inflate\"");
            goto out;
        }
        if (jv_object(&j, rep, p, rk) || jv_enum(&j, rep, p, "unplaced", 0, unplaced, &u) < 0 ||
            jv_num_gt(&j, rep, p, "sample_s", 0, 0, 1e12, &s->sample_s) < 0)
            goto out;
        s->wait = u == 1;
    }

    /* nodes */
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(c, "nodes");
    jv_path_key(p, sizeof p, P, "nodes");
    if (!nodes) {
        jv_fail(&j, p, "missing: an openb node list file, or an array of node groups");
        goto out;
    }
    if (cJSON_IsString(nodes)) {
        char full[1024];
        resolve(path, nodes->valuestring, full, sizeof full);
        if (cl_nodes_load_openb(full, &s->cluster, err, errlen))
            goto out;
    } else if (cJSON_IsArray(nodes)) {
        if (parse_node_groups(&j, nodes, p, &s->cluster))
            goto out;
    } else {
        jv_fail(&j, p, "expected an openb node list file name or an array of node groups");
        goto out;
    }
    if ((long long)s->cluster.n_nodes * scale > CL_MAX_NODES) {
        jv_fail(&j, scale > 1 ? jv_path_key(p, sizeof p, P, "node_scale") : p,
                "%d nodes x node_scale %ld = %lld nodes, more than %d (CL_MAX_NODES, "
                "docs/robustness.md)",
                s->cluster.n_nodes, scale, (long long)s->cluster.n_nodes * scale, CL_MAX_NODES);
        goto out;
    }
    cl_cluster_scale(&s->cluster, (int)scale);
    if (s->cluster.total_gpus == 0) {
        jv_fail(&j, p, "the cluster has no GPU");
        goto out;
    }

    /* MIG (before the pods: a MIG pod's profile depends on the GPU model) */
    const cJSON *mig = cJSON_GetObjectItemCaseSensitive(c, "mig");
    if (mig) {
        jv_path_key(p, sizeof p, P, "mig");
        if (cl_mig_parse(&j, mig, p, s))
            goto out;
    }

    /* pods */
    const char *pods;
    if (jv_str(&j, c, P, "pods", 1, &pods) < 0)
        goto out;
    char full[1024];
    resolve(path, pods, full, sizeof full);
    if (cl_workload_load(full, &s->cluster, oversized ? CL_OVERSIZED_FAIL : CL_OVERSIZED_ERROR,
                         &s->work, err, errlen))
        goto out;
    const char *label = NULL;
    if (jv_str(&j, c, P, "workload", 0, &label) < 0)
        goto out;
    if (label)
        snprintf(s->work.label, sizeof s->work.label, "%s", label);
    if (s->has_mig && cl_mig_bind_pods(&s->mig, &s->cluster, &s->work, err, errlen))
        goto out;
    if (check_work(&j, P, s))
        goto out;
    cl_typical_build(&s->work, s->popularity, &s->typical);
    rc = 0;
out:
    cJSON_Delete(root);
    if (rc)
        cl_scenario_free(s);
    return rc;
}

void cl_scenario_free(struct cl_scenario *s)
{
    cl_cluster_free(&s->cluster);
    cl_workload_free(&s->work);
    cl_typical_free(&s->typical);
    memset(s, 0, sizeof *s);
}

void cl_scenario_cfg(const struct cl_scenario *s, int policy, int seed, struct cl_run_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->policy = s->policy[policy];
    cfg->seed = s->seed[seed];
    cfg->mode = s->mode;
    cfg->tune = s->tune;
    cfg->shuffle = s->shuffle;
    cfg->wait = s->wait;
    cfg->mig = s->has_mig ? &s->mig : NULL;
}
