/*
 * cl_input — the cluster's inputs: the openb node list, the openb pod list (through the
 * trace reader of io/), pod classes, and the checks that make bad input an error with the
 * file, line and column rather than a pod that silently never runs.
 *
 * Node list format (Alibaba GPU cluster trace v2023, openb_node_list_gpu_node.csv, its
 * README): sn, cpu_milli, memory_mib, gpu (count), model (GPU type; empty for CPU nodes).
 */
#include "base/util.h"
#include "cluster/cluster.h"
#include "io/trace.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int cl_model_find(const struct cl_cluster *c, const char *name)
{
    for (int m = 0; m < c->n_models; m++)
        if (strcmp(c->model[m], name) == 0)
            return m;
    return -1;
}

int cl_model_add(struct cl_cluster *c, const char *name, char *err, size_t errlen)
{
    int m = cl_model_find(c, name);
    if (m >= 0)
        return m;
    if (c->n_models == CL_MAX_MODELS)
        return ss_errf(err, errlen, "more than %d GPU models", CL_MAX_MODELS);
    if (strlen(name) >= sizeof c->model[0])
        return ss_errf(err, errlen, "GPU model name \"%s\" longer than %zu characters", name,
                       sizeof c->model[0] - 1);
    snprintf(c->model[c->n_models], sizeof c->model[0], "%s", name);
    return c->n_models++;
}

void cl_cluster_totals(struct cl_cluster *c)
{
    c->total_gpus = 0;
    c->total_cpu_milli = 0;
    for (int i = 0; i < c->n_nodes; i++) {
        c->total_gpus += c->node[i].n_gpu;
        c->total_cpu_milli += c->node[i].cpu_milli;
    }
}

void cl_cluster_free(struct cl_cluster *c)
{
    free(c->node);
    free(c->mig_gpu);
    memset(c, 0, sizeof *c);
}

void cl_cluster_scale(struct cl_cluster *c, int scale)
{
    if (scale <= 1)
        return;
    int n = c->n_nodes;
    c->node = ss_xrealloc(c->node, (size_t)n * scale * sizeof *c->node);
    for (int r = 1; r < scale; r++)
        for (int i = 0; i < n; i++) {
            struct cl_node_spec *d = &c->node[(size_t)r * n + i];
            *d = c->node[i];
            char name[CL_NAME_MAX + 16];
            snprintf(name, sizeof name, "%s-r%d", c->node[i].name, r);
            snprintf(d->name, sizeof d->name, "%.*s", CL_NAME_MAX - 1, name);
        }
    c->n_nodes = n * scale;
    cl_cluster_totals(c);
}

/* ---- openb node list -------------------------------------------------------------------- */

enum { NC_SN, NC_CPU, NC_MEM, NC_GPU, NC_MODEL, NC_N };
static const char *const node_cols[NC_N] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
static const int node_required[NC_N] = {0, 1, 1, 1, 1};

static int field_int(const char *path, long line, int col, const char *name, const char *s,
                     long long lo, long long hi, long long *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return ss_errf(err, errlen,
                       "%s:%ld:%d: field \"%s\": expected an integer in %lld..%lld, "
                       "got \"%s\"",
                       path, line, col, name, lo, hi, s);
    *out = v;
    return 0;
}

static int cmp_node_name(const void *a, const void *b)
{
    const struct cl_node_spec *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

int cl_nodes_load_openb(const char *path, struct cl_cluster *c, char *err, size_t errlen)
{
    char *text;
    size_t len;
    if (ss_read_file(path, 64u << 20, &text, &len, err, errlen))
        return -1;
    memset(c, 0, sizeof *c);
    snprintf(c->source, sizeof c->source, "%s", path);
    int colidx[NC_N];
    for (int k = 0; k < NC_N; k++)
        colidx[k] = -1;
    int ncols = 0, cap = 0;
    long line = 0;
    char *p = text;
    int rc = -1;
    while (*p) {
        char *nl = strchr(p, '\n');
        char *next = nl ? nl + 1 : p + strlen(p);
        if (nl)
            *nl = 0;
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r')
            p[--l] = 0;
        line++;
        /* split on commas (the files have no quoted fields) */
        char *f[64];
        int nf = 0;
        for (char *q = p;;) {
            if (nf == 64) {
                ss_errf(err, errlen, "%s:%ld: more than 64 columns", path, line);
                goto out;
            }
            f[nf++] = q;
            char *cm = strchr(q, ',');
            if (!cm)
                break;
            *cm = 0;
            q = cm + 1;
        }
        if (line == 1) {
            ncols = nf;
            for (int i = 0; i < nf; i++)
                for (int k = 0; k < NC_N; k++)
                    if (strcmp(f[i], node_cols[k]) == 0) {
                        if (colidx[k] >= 0) {
                            ss_errf(err, errlen, "%s:1:%d: column \"%s\" appears twice", path,
                                    i + 1, f[i]);
                            goto out;
                        }
                        colidx[k] = i;
                    }
            for (int k = 0; k < NC_N; k++)
                if (node_required[k] && colidx[k] < 0) {
                    ss_errf(err, errlen,
                            "%s:1: missing column \"%s\" (an openb node list has sn, cpu_milli, "
                            "memory_mib, gpu, model)",
                            path, node_cols[k]);
                    goto out;
                }
            p = next;
            continue;
        }
        if (l == 0 && !*next)
            break; /* trailing empty line */
        if (nf != ncols) {
            ss_errf(err, errlen, "%s:%ld: %d fields, the header has %d", path, line, nf, ncols);
            goto out;
        }
        if (c->n_nodes == cap) {
            cap = cap ? 2 * cap : 1024;
            c->node = ss_xrealloc(c->node, (size_t)cap * sizeof *c->node);
        }
        struct cl_node_spec *n = &c->node[c->n_nodes];
        memset(n, 0, sizeof *n);
        n->line = line;
        n->mig = -1;
        long long v;
        if (colidx[NC_SN] >= 0) {
            const char *sn = f[colidx[NC_SN]];
            if (!*sn || strlen(sn) >= CL_NAME_MAX) {
                ss_errf(err, errlen,
                        "%s:%ld:%d: field \"sn\": expected a node name of 1..%d "
                        "characters, got \"%s\"",
                        path, line, colidx[NC_SN] + 1, CL_NAME_MAX - 1, sn);
                goto out;
            }
            snprintf(n->name, sizeof n->name, "%s", sn);
        } else {
            snprintf(n->name, sizeof n->name, "node-%05d", c->n_nodes);
        }
        if (field_int(path, line, colidx[NC_CPU] + 1, "cpu_milli", f[colidx[NC_CPU]], 1, INT_MAX,
                      &v, err, errlen))
            goto out;
        n->cpu_milli = (int)v;
        if (field_int(path, line, colidx[NC_MEM] + 1, "memory_mib", f[colidx[NC_MEM]], 0,
                      LLONG_MAX / 4, &v, err, errlen))
            goto out;
        n->mem_mib = v;
        if (field_int(path, line, colidx[NC_GPU] + 1, "gpu", f[colidx[NC_GPU]], 0, CL_MAX_GPUS, &v,
                      err, errlen))
            goto out;
        n->n_gpu = (int)v;
        const char *model = f[colidx[NC_MODEL]];
        n->model = -1;
        if (n->n_gpu > 0) {
            if (!*model || strchr(model, '|')) {
                ss_errf(err, errlen,
                        "%s:%ld:%d: field \"model\": a node with GPUs needs one GPU "
                        "model name, got \"%s\"",
                        path, line, colidx[NC_MODEL] + 1, model);
                goto out;
            }
            char merr[SS_ERRLEN];
            n->model = cl_model_add(c, model, merr, sizeof merr);
            if (n->model < 0) {
                ss_errf(err, errlen, "%s:%ld:%d: %s", path, line, colidx[NC_MODEL] + 1, merr);
                goto out;
            }
        }
        c->n_nodes++;
        p = next;
    }
    if (line == 0 || c->n_nodes == 0) {
        ss_errf(err, errlen, "%s: no nodes (a header and at least one row expected)", path);
        goto out;
    }
    qsort(c->node, (size_t)c->n_nodes, sizeof *c->node, cmp_node_name);
    for (int i = 1; i < c->n_nodes; i++)
        if (strcmp(c->node[i].name, c->node[i - 1].name) == 0) {
            ss_errf(err, errlen, "%s:%ld: node \"%s\" listed twice (also line %ld)", path,
                    c->node[i].line, c->node[i].name, c->node[i - 1].line);
            goto out;
        }
    cl_cluster_totals(c);
    rc = 0;
out:
    free(text);
    if (rc)
        cl_cluster_free(c);
    return rc;
}

/* ---- node state and the filter ----------------------------------------------------------- */

void cl_nstate_init(const struct cl_node_spec *n, struct cl_nstate *s)
{
    memset(s, 0, sizeof *s);
    s->cpu_left = n->cpu_milli;
    s->mem_left = n->mem_mib;
    for (int g = 0; g < n->n_gpu; g++)
        s->gpu_left[g] = CL_MILLI;
    s->ver = 1;
}

int cl_pod_aff(const struct cl_pod *p)
{
    if (p->num_gpu == 0)
        return -1;
    if (p->num_gpu == 1 && p->gpu_milli < CL_MILLI)
        return 0;
    return p->num_gpu;
}

int cl_gpu_left_total(const struct cl_node_spec *n, const struct cl_nstate *s)
{
    int t = 0;
    for (int g = 0; g < n->n_gpu; g++)
        t += s->gpu_left[g];
    return t;
}

int cl_model_ok(const struct cl_node_spec *n, const struct cl_pod *p)
{
    if (!p->spec)
        return 1;
    return n->model >= 0 && (p->spec >> n->model & 1);
}

int cl_fits(const struct cl_node_spec *n, const struct cl_nstate *s, const struct cl_pod *p)
{
    if (s->cpu_left < p->cpu_milli || s->mem_left < p->mem_mib)
        return 0;
    if (p->num_gpu == 0)
        return 1;
    if (n->n_gpu == 0 || !cl_model_ok(n, p))
        return 0;
    /* Open-Gpu-Share's AllocateGpuId: one GPU with enough left for one GPU, else the
     * greedy two-pointer count, which with whole GPUs is the number of free ones. */
    int fit = 0;
    for (int g = 0; g < n->n_gpu; g++)
        fit += s->gpu_left[g] / p->gpu_milli;
    return fit >= p->num_gpu;
}

/* ---- pods ------------------------------------------------------------------------------- */

static int cmp_pod_name(const void *a, const void *b)
{
    const struct cl_pod *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Parses "A|B" against the cluster's models into a mask; the unknown name, or NULL. */
static const char *parse_spec(const struct cl_cluster *c, const char *spec, uint64_t *mask,
                              char *unknown, size_t n)
{
    *mask = 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *t = strtok_r(buf, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
        int m = cl_model_find(c, t);
        if (m < 0) {
            snprintf(unknown, n, "%s", t);
            return unknown;
        }
        *mask |= 1ULL << m;
    }
    return NULL;
}

/* Could the pod run on this node were the node empty? */
static int fits_empty(const struct cl_node_spec *n, const struct cl_pod *p)
{
    struct cl_nstate s;
    cl_nstate_init(n, &s);
    return cl_fits(n, &s, p);
}

/* qsort has no context argument; loading is single-threaded, so a file-scope pointer. */
static const struct cl_node_spec *shape_nodes;

/* Orders nodes by shape (CPU, memory, GPUs, model); 0 for the same shape. */
static int shape_order(const struct cl_node_spec *a, const struct cl_node_spec *b)
{
    if (a->cpu_milli != b->cpu_milli)
        return a->cpu_milli < b->cpu_milli ? -1 : 1;
    if (a->mem_mib != b->mem_mib)
        return a->mem_mib < b->mem_mib ? -1 : 1;
    if (a->n_gpu != b->n_gpu)
        return a->n_gpu < b->n_gpu ? -1 : 1;
    if (a->model != b->model)
        return a->model < b->model ? -1 : 1;
    return 0;
}

static int cmp_shape(const void *pa, const void *pb)
{
    int x = *(const int *)pa, y = *(const int *)pb;
    int c = shape_order(&shape_nodes[x], &shape_nodes[y]);
    return c ? c : (x > y) - (x < y);
}

void cl_workload_classes(struct cl_workload *w)
{
    /* Classes in order of first appearance; a linear probe over a small hash table. */
    int cap = 1024;
    while (cap < 4 * w->n)
        cap *= 2;
    int *slot = ss_xmalloc((size_t)cap * sizeof *slot);
    for (int i = 0; i < cap; i++)
        slot[i] = -1;
    free(w->cls_rep);
    w->cls_rep = NULL;
    w->n_cls = 0;
    int rep_cap = 0;
    for (int i = 0; i < w->n; i++) {
        struct cl_pod *p = &w->pod[i];
        uint64_t h = 1469598103934665603ULL;
        long long key[6] = {p->cpu_milli, p->mem_mib,         p->num_gpu,
                            p->gpu_milli, (long long)p->spec, p->mig_prof};
        for (int k = 0; k < 6; k++)
            h = (h ^ (uint64_t)key[k]) * 1099511628211ULL;
        size_t s = (size_t)(h & (uint64_t)(cap - 1));
        for (;; s = (s + 1) & (size_t)(cap - 1)) {
            if (slot[s] < 0) {
                if (w->n_cls == rep_cap) {
                    rep_cap = rep_cap ? 2 * rep_cap : 64;
                    w->cls_rep = ss_xrealloc(w->cls_rep, (size_t)rep_cap * sizeof *w->cls_rep);
                }
                w->cls_rep[w->n_cls] = i;
                slot[s] = w->n_cls++;
                break;
            }
            const struct cl_pod *q = &w->pod[w->cls_rep[slot[s]]];
            if (q->cpu_milli == p->cpu_milli && q->mem_mib == p->mem_mib &&
                q->num_gpu == p->num_gpu && q->gpu_milli == p->gpu_milli && q->spec == p->spec &&
                q->mig_prof == p->mig_prof)
                break;
        }
        p->cls = slot[s];
    }
    free(slot);
}

int cl_workload_load(const char *path, const struct cl_cluster *c, enum cl_oversized oversized,
                     struct cl_workload *w, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    snprintf(w->source, sizeof w->source, "%s", path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(w->label, sizeof w->label, "%s", base);
    char *dot = strstr(w->label, ".csv");
    if (dot)
        *dot = 0;

    struct tr_reader *r = tr_open_flags(path, TR_OPENB, NULL, TR_OPEN_OPENB_UNTIMED, err, errlen);
    if (!r)
        return -1;
    w->timed = tr_openb_timed(r);
    /* The distinct node shapes, so that "fits some empty node" costs a few checks a pod:
     * the nodes sorted by shape, one of each run kept (a pairwise scan would be quadratic
     * in the nodes). */
    int *shape = ss_xmalloc((size_t)(c->n_nodes ? c->n_nodes : 1) * sizeof *shape), n_shapes = 0;
    for (int i = 0; i < c->n_nodes; i++)
        shape[i] = i;
    shape_nodes = c->node;
    qsort(shape, (size_t)c->n_nodes, sizeof *shape, cmp_shape);
    for (int i = 0; i < c->n_nodes; i++)
        if (n_shapes == 0 || shape_order(&c->node[shape[n_shapes - 1]], &c->node[shape[i]]))
            shape[n_shapes++] = shape[i];
    int cap = 0, rc = -1;
    struct tr_record rec;
    int got;
    while ((got = tr_next(r, &rec, err, errlen)) == 1) {
        const struct tr_pod *tp = &rec.pod;
        if (tp->cpu_milli < 0 || tp->memory_mib < 0) {
            ss_errf(err, errlen,
                    "%s:1: missing column \"%s\" (the cluster simulator needs cpu_milli and "
                    "memory_mib as well as num_gpu and gpu_milli)",
                    path, tp->cpu_milli < 0 ? "cpu_milli" : "memory_mib");
            goto out;
        }
        if (tp->cpu_milli > INT_MAX) {
            ss_errf(err, errlen, "%s:%ld: field \"cpu_milli\": %lld is too large", path, rec.line,
                    tp->cpu_milli);
            goto out;
        }
        if (w->n == cap) {
            cap = cap ? 2 * cap : 4096;
            w->pod = ss_xrealloc(w->pod, (size_t)cap * sizeof *w->pod);
        }
        struct cl_pod *p = &w->pod[w->n];
        memset(p, 0, sizeof *p);
        p->mig_prof = -1;
        p->line = rec.line;
        if (tp->name[0])
            snprintf(p->name, sizeof p->name, "%s", tp->name);
        else
            snprintf(p->name, sizeof p->name, "line-%09ld", rec.line);
        p->cpu_milli = (int)tp->cpu_milli;
        p->mem_mib = tp->memory_mib;
        p->num_gpu = tp->num_gpu;
        p->gpu_milli = tp->num_gpu ? tp->gpu_milli : 0;
        p->t_create = tp->creation_time;
        p->t_delete = tp->deletion_time;
        if (p->num_gpu > CL_MAX_GPUS) {
            ss_errf(err, errlen,
                    "%s:%ld: field \"num_gpu\": %d GPUs; a node has at most %d (pod \"%s\")", path,
                    rec.line, p->num_gpu, CL_MAX_GPUS, p->name);
            goto out;
        }
        if (p->num_gpu > 0 && p->gpu_milli == 0) {
            ss_errf(err, errlen,
                    "%s:%ld: field \"gpu_milli\": pod \"%s\" asks for %d GPUs with a share of 0",
                    path, rec.line, p->name, p->num_gpu);
            goto out;
        }
        if (p->num_gpu > 1 && p->gpu_milli < CL_MILLI) {
            ss_errf(err, errlen,
                    "%s:%ld: field \"gpu_milli\": pod \"%s\" asks for %d GPUs at %d/1000 each; "
                    "only a one-GPU pod may share a GPU",
                    path, rec.line, p->name, p->num_gpu, p->gpu_milli);
            goto out;
        }
        /* gpu_spec: models joined by '|', empty parts ignored (the reference's converter). */
        char spec[64] = "";
        for (const char *s = tp->gpu_spec; *s;) {
            const char *bar = strchr(s, '|');
            size_t l = bar ? (size_t)(bar - s) : strlen(s);
            if (l) {
                size_t have = strlen(spec);
                snprintf(spec + have, sizeof spec - have, "%s%.*s", have ? "|" : "", (int)l, s);
            }
            s += l + (bar ? 1 : 0);
        }
        snprintf(p->spec_str, sizeof p->spec_str, "%s", spec);
        char unknown[64];
        if (p->num_gpu > 0 && parse_spec(c, spec, &p->spec, unknown, sizeof unknown)) {
            ss_errf(err, errlen,
                    "%s:%ld: field \"gpu_spec\": GPU model \"%s\" (pod \"%s\") is on no node of "
                    "the cluster (%s)",
                    path, rec.line, unknown, p->name, c->source);
            goto out;
        }
        int ok = 0;
        for (int i = 0; i < n_shapes && !ok; i++)
            ok = fits_empty(&c->node[shape[i]], p);
        if (!ok && w->n_oversized++ == 0) {
            w->oversized_line = rec.line;
            snprintf(w->oversized_name, sizeof w->oversized_name, "%s", p->name);
        }
        if (oversized == CL_OVERSIZED_ERROR) {
            if (!ok) {
                ss_errf(err, errlen,
                        "%s:%ld: pod \"%s\" (cpu_milli %d, memory_mib %lld, %d x %d/1000 GPU%s%s) "
                        "fits no node of the cluster even when the node is empty (\"oversized\": "
                        "\"error\" refuses such pods; the default, \"fail\", counts them as "
                        "failed)",
                        path, rec.line, p->name, p->cpu_milli, p->mem_mib, p->num_gpu, p->gpu_milli,
                        spec[0] ? " of " : "", spec);
                goto out;
            }
        }
        w->n++;
    }
    if (got < 0)
        goto out;
    qsort(w->pod, (size_t)w->n, sizeof *w->pod, cmp_pod_name);
    cl_workload_classes(w);
    rc = 0;
out:
    free(shape);
    tr_close(r);
    if (rc)
        cl_workload_free(w);
    return rc;
}

void cl_workload_free(struct cl_workload *w)
{
    free(w->pod);
    free(w->cls_rep);
    memset(w, 0, sizeof *w);
}
