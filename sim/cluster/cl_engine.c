/*
 * cl_engine — one cluster experiment (cl_engine.h): node states, the placement of a pod
 * (filter, score, rank, GPUs), inflation and replay.
 *
 * Speed. A policy's score depends on the node's state and the pod's requests only, so
 * scores are cached per (pod class, node) with the node's version: placing a pod scans
 * the nodes reading one cached entry each, and recomputes only the nodes that changed
 * since that class was last placed. Entries are class-major so a scan reads memory in
 * order. Fragment amounts are memoised by node state (cl_fragmemo).
 */
#include "cluster/cl_engine.h"
#include "base/util.h"
#include "cluster/cl_mig.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define INFEASIBLE INT32_MIN

struct centry {
    uint32_t ver;
    int32_t score;
};

struct cl_engine {
    const struct cl_cluster *c;
    const struct cl_workload *w;
    const struct cl_policy *pol;
    struct cl_place_ctx x;
    struct cl_nstate *st;
    long long *node_frag; /* exact fragment amount numerator per node */
    int *rank;
    int *feas; /* scratch: feasible nodes (Random) */
    struct centry **cache;
    int n_cls;
    uint32_t ver_next;
    long long used_milli, frag_num;
    struct cl_rand rng;
};

struct cl_engine *cl_engine_new(const struct cl_cluster *c, const struct cl_workload *w,
                                const struct cl_typical *tp, const struct cl_policy *pol,
                                long long seed)
{
    struct cl_engine *e = ss_xcalloc(1, sizeof *e);
    e->c = c;
    e->w = w;
    e->pol = pol;
    e->x.c = c;
    e->x.tp = tp;
    e->x.memo = cl_fragmemo_new(tp, (size_t)1 << 19);
    int n = c->n_nodes;
    e->st = ss_xcalloc((size_t)n, sizeof *e->st);
    e->node_frag = ss_xcalloc((size_t)n, sizeof *e->node_frag);
    e->rank = ss_xcalloc((size_t)n, sizeof *e->rank);
    e->feas = ss_xcalloc((size_t)n, sizeof *e->feas);
    e->n_cls = w->n_cls;
    e->cache = ss_xcalloc((size_t)(w->n_cls ? w->n_cls : 1), sizeof *e->cache);
    e->ver_next = 1;
    for (int i = 0; i < n; i++) {
        cl_nstate_init(&c->node[i], &e->st[i]);
        e->rank[i] = i;
        double f;
        cl_fragmemo_get(e->x.memo, c->node[i].model, e->st[i].cpu_left, e->st[i].gpu_left,
                        c->node[i].n_gpu, &f, &e->node_frag[i]);
        e->frag_num += e->node_frag[i];
    }
    cl_rand_seed(&e->rng, seed);
    return e;
}

void cl_engine_free(struct cl_engine *e)
{
    if (!e)
        return;
    for (int k = 0; k < e->n_cls; k++)
        free(e->cache[k]);
    free(e->cache);
    free(e->st);
    free(e->node_frag);
    free(e->rank);
    free(e->feas);
    cl_fragmemo_free(e->x.memo);
    free(e);
}

size_t cl_engine_bytes(const struct cl_engine *e)
{
    size_t n = (size_t)e->c->n_nodes;
    size_t b = sizeof *e + n * (sizeof *e->st + sizeof *e->node_frag + 2 * sizeof(int)) +
               (size_t)e->n_cls * sizeof *e->cache + cl_fragmemo_bytes(e->x.memo);
    for (int k = 0; k < e->n_cls; k++)
        if (e->cache[k])
            b += n * sizeof(struct centry);
    return b;
}

void cl_engine_draw_ranks(struct cl_engine *e)
{
    cl_rand_perm(&e->rng, e->c->n_nodes, e->rank);
}

void cl_engine_set_ranks(struct cl_engine *e, const int *rank)
{
    memcpy(e->rank, rank, (size_t)e->c->n_nodes * sizeof *rank);
}

struct cl_rand *cl_engine_rand(struct cl_engine *e)
{
    return &e->rng;
}

const struct cl_nstate *cl_engine_node(const struct cl_engine *e, int i)
{
    return &e->st[i];
}

long long cl_engine_used_milli(const struct cl_engine *e)
{
    return e->used_milli;
}

long long cl_engine_frag_num(const struct cl_engine *e)
{
    return e->frag_num;
}

/* The node changed: new version, new fragment amount. */
static void touched(struct cl_engine *e, int i)
{
    const struct cl_node_spec *n = &e->c->node[i];
    struct cl_nstate *s = &e->st[i];
    s->ver = ++e->ver_next;
    double f;
    long long num;
    cl_fragmemo_get(e->x.memo, n->model, s->cpu_left, s->gpu_left, n->n_gpu, &f, &num);
    e->frag_num += num - e->node_frag[i];
    e->node_frag[i] = num;
}

static void apply(struct cl_engine *e, const struct cl_pod *p, int i, unsigned *gpu_mask)
{
    const struct cl_node_spec *n = &e->c->node[i];
    struct cl_nstate *s = &e->st[i];
    int gpus[CL_MAX_GPUS];
    e->pol->gpus(&e->x, n, s, p, &e->rng, gpus);
    unsigned mask = 0;
    for (int k = 0; k < p->num_gpu; k++) {
        SS_ASSERT(gpus[k] >= 0 && gpus[k] < n->n_gpu && !(mask >> gpus[k] & 1));
        SS_ASSERT(s->gpu_left[gpus[k]] >= p->gpu_milli);
        mask |= 1u << gpus[k];
        s->gpu_left[gpus[k]] = (int16_t)(s->gpu_left[gpus[k]] - p->gpu_milli);
    }
    s->cpu_left -= p->cpu_milli;
    s->mem_left -= p->mem_mib;
    s->n_pods++;
    int tag = cl_pod_aff(p);
    if (tag >= 0)
        s->aff[tag]++;
    e->used_milli += cl_pod_milli(p);
    touched(e, i);
    *gpu_mask = mask;
}

void cl_engine_remove(struct cl_engine *e, const struct cl_pod *p, int i, unsigned gpu_mask)
{
    struct cl_nstate *s = &e->st[i];
    for (int g = 0; g < CL_MAX_GPUS; g++)
        if (gpu_mask >> g & 1) {
            s->gpu_left[g] = (int16_t)(s->gpu_left[g] + p->gpu_milli);
            SS_ASSERT(s->gpu_left[g] <= CL_MILLI);
        }
    s->cpu_left += p->cpu_milli;
    s->mem_left += p->mem_mib;
    s->n_pods--;
    int tag = cl_pod_aff(p);
    if (tag >= 0) {
        SS_ASSERT(s->aff[tag] > 0);
        s->aff[tag]--;
    }
    e->used_milli -= cl_pod_milli(p);
    touched(e, i);
}

int cl_engine_place(struct cl_engine *e, const struct cl_pod *p, unsigned *gpu_mask)
{
    int n = e->c->n_nodes;
    SS_ASSERT(p->cls >= 0 && p->cls < e->n_cls);
    struct centry *ce = e->cache[p->cls];
    if (!ce)
        ce = e->cache[p->cls] = ss_xcalloc((size_t)n, sizeof *ce);
    const struct cl_node_spec *node = e->c->node;
    const int random = e->pol->random_node;
    int best = -1, nfeas = 0;
    int32_t bs = 0;
    for (int i = 0; i < n; i++) {
        if (ce[i].ver != e->st[i].ver) {
            ce[i].ver = e->st[i].ver;
            if (!cl_fits(&node[i], &e->st[i], p))
                ce[i].score = INFEASIBLE;
            else if (random)
                ce[i].score = 0;
            else {
                long sc = e->pol->score(&e->x, &node[i], &e->st[i], p);
                SS_ASSERT(sc > INFEASIBLE && sc <= INT32_MAX);
                ce[i].score = (int32_t)sc;
            }
        }
        int32_t sc = ce[i].score;
        if (sc == INFEASIBLE)
            continue;
        if (random) {
            e->feas[nfeas++] = i;
            continue;
        }
        if (best < 0 || sc > bs || (sc == bs && e->rank[i] < e->rank[best])) {
            best = i;
            bs = sc;
        }
    }
    if (random) {
        if (nfeas == 0)
            return -1;
        /* Kubernetes skips scoring (and the Random plugin's draw) when one node fits. */
        best = nfeas == 1 ? e->feas[0] : e->feas[cl_rand_intn(&e->rng, nfeas)];
    }
    if (best < 0)
        return -1;
    apply(e, p, best, gpu_mask);
    return best;
}

int cl_engine_place_on(struct cl_engine *e, const struct cl_pod *p, int i, unsigned *gpu_mask)
{
    if (!cl_fits(&e->c->node[i], &e->st[i], p))
        return -1;
    apply(e, p, i, gpu_mask);
    return i;
}

/* ---- experiments --------------------------------------------------------------------------- */

struct evlog {
    struct cl_event *ev;
    long n, cap;
};

static void record(struct evlog *l, const struct cl_engine *e, double t, long long arrived_milli,
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
    v->used_milli = e->used_milli;
    v->frag_num = e->frag_num;
    v->arrived = arrived;
    v->placed = placed;
    v->failed = failed;
    v->pending = pending;
    v->running = running;
}

/* Pods of the workload by creation time, ties by name (w->pod is by name). */
struct tkey {
    long long t;
    int i;
};

static int cmp_tkey(const void *a, const void *b)
{
    const struct tkey *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int *by_creation(const struct cl_workload *w)
{
    size_t n = (size_t)(w->n ? w->n : 1);
    int *o = ss_xmalloc(n * sizeof *o);
    struct tkey *k = ss_xmalloc(n * sizeof *k);
    for (int i = 0; i < w->n; i++)
        k[i] = (struct tkey){w->pod[i].t_create, i};
    qsort(k, (size_t)w->n, sizeof *k, cmp_tkey);
    for (int i = 0; i < w->n; i++)
        o[i] = k[i].i;
    free(k);
    return o;
}

/*
 * Between the inflation draws and rand.Perm, the reference starts the scheduler's
 * informers, and each of their reflectors draws one rand.Float64() from the same global
 * generator for its first watch's timeout (client-go tools/cache/reflector.go,
 * ListAndWatch) -- one Int63 each. Ten of them run before the permutation: with 10 skipped
 * draws, seeds 42..51 reproduce the reference's committed per-1 % columns for the five
 * deterministic policies (docs/cluster.md); with any other count from 0 to 25 they do not.
 */
#define CL_REFLECTOR_DRAWS 10

static void reflector_draws(struct cl_rand *r)
{
    for (int i = 0; i < CL_REFLECTOR_DRAWS; i++)
        (void)cl_rand_int63(r);
}

static void run_inflate(struct cl_engine *e, const struct cl_workload *w,
                        const struct cl_run_cfg *cfg, struct evlog *log, struct cl_result *out)
{
    struct cl_rand *r = &e->rng;
    int n = w->n, len = n, cap = n + 16;
    int *seq;
    if (cfg->shuffle) {
        seq = ss_xmalloc((size_t)cap * sizeof *seq);
        for (int i = 0; i < n; i++)
            seq[i] = i;
        cl_rand_shuffle(r, n, seq);
    } else {
        seq = by_creation(w);
        seq = ss_xrealloc(seq, (size_t)cap * sizeof *seq);
    }
    /* TunePodsByNodeTotalResource: sample pods of the workload (by name) until the requests
     * reach tune x the cluster's GPU-milli. The reference stops when the next pod's
     * per-GPU share (not its total) would pass the target; we keep that, so that one seed
     * draws the same pods. Above the target it removes random pods instead. */
    long long total = 0;
    for (int i = 0; i < len; i++)
        total += cl_pod_milli(&w->pod[seq[i]]);
    double target = cfg->tune * (double)out->cap_milli;
    if ((double)total < target) {
        for (;;) {
            int idx = (int)cl_rand_intn(r, n);
            const struct cl_pod *p = &w->pod[idx];
            if ((double)(total + p->gpu_milli) > target)
                break;
            total += cl_pod_milli(p);
            if (len == cap) {
                cap *= 2;
                seq = ss_xrealloc(seq, (size_t)cap * sizeof *seq);
            }
            seq[len++] = idx;
        }
    } else {
        while ((double)total > target && len > 0) {
            int idx = (int)cl_rand_intn(r, len);
            total -= cl_pod_milli(&w->pod[seq[idx]]);
            memmove(seq + idx, seq + idx + 1, (size_t)(len - idx - 1) * sizeof *seq);
            len--;
        }
    }
    reflector_draws(r);
    cl_engine_draw_ranks(e);

    long long arrived_milli = 0;
    int placed = 0, failed = 0;
    for (int k = 0; k < len; k++) {
        const struct cl_pod *p = &w->pod[seq[k]];
        arrived_milli += cl_pod_milli(p);
        unsigned mask;
        if (cl_engine_place(e, p, &mask) >= 0)
            placed++;
        else
            failed++;
        record(log, e, k, arrived_milli, k + 1, placed, failed, 0, placed);
        cl_progress_tick(cfg, k + 1, len);
    }
    out->n_pods = len;
    free(seq);
}

/* A pod's life in a replay. */
enum { PS_NEW, PS_PENDING, PS_RUNNING, PS_DONE, PS_FAILED };

struct rev {
    long long t;
    int pod;
    int del; /* 0 creation, 1 deletion */
    long seq;
};

static int cmp_rev(const void *a, const void *b)
{
    const struct rev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static void run_replay(struct cl_engine *e, const struct cl_workload *w,
                       const struct cl_run_cfg *cfg, struct evlog *log, struct cl_result *out)
{
    reflector_draws(&e->rng);
    cl_engine_draw_ranks(e);
    int n = w->n;
    int *order = by_creation(w);
    /* The reference's event list: each pod's creation then its deletion, in pod order,
     * stably sorted by time. */
    struct rev *ev = ss_xmalloc((size_t)(2 * n + 1) * sizeof *ev);
    for (int k = 0; k < n; k++) {
        const struct cl_pod *p = &w->pod[order[k]];
        ev[2 * k] = (struct rev){p->t_create, order[k], 0, 2L * k};
        ev[2 * k + 1] = (struct rev){p->t_delete, order[k], 1, 2L * k + 1};
    }
    qsort(ev, (size_t)(2 * n), sizeof *ev, cmp_rev);
    unsigned char *state = ss_xcalloc((size_t)(n ? n : 1), 1);
    int *node = ss_xmalloc((size_t)(n ? n : 1) * sizeof *node);
    unsigned *mask = ss_xcalloc((size_t)(n ? n : 1), sizeof *mask);
    int *queue = ss_xmalloc((size_t)(n ? n : 1) * sizeof *queue);
    long long *since = ss_xcalloc((size_t)(n ? n : 1), sizeof *since);
    int qn = 0;
    long long t0 = n ? ev[0].t : 0, arrived_milli = 0;
    int arrived = 0, placed = 0, failed = 0, running = 0;
    double wait_sum = 0, wait_max = 0;
    int waited = 0;
    for (int k = 0; k < 2 * n; k++) {
        int i = ev[k].pod;
        const struct cl_pod *p = &w->pod[i];
        if (!ev[k].del) {
            arrived++;
            arrived_milli += cl_pod_milli(p);
            node[i] = cl_engine_place(e, p, &mask[i]);
            if (node[i] >= 0) {
                state[i] = PS_RUNNING;
                placed++;
                running++;
            } else if (cfg->wait) {
                state[i] = PS_PENDING;
                since[i] = ev[k].t;
                queue[qn++] = i;
            } else {
                state[i] = PS_FAILED;
                failed++;
            }
        } else if (state[i] == PS_RUNNING) {
            cl_engine_remove(e, p, node[i], mask[i]);
            state[i] = PS_DONE;
            running--;
            /* Only node[i] gained room, and every waiting pod fitted no node before; so a
             * waiting pod can now fit node[i] only. FIFO, as the scheduling queue. */
            int freed = node[i], keep = 0;
            for (int q = 0; q < qn; q++) {
                int j = queue[q];
                if (cl_engine_place_on(e, &w->pod[j], freed, &mask[j]) >= 0) {
                    node[j] = freed;
                    state[j] = PS_RUNNING;
                    placed++;
                    running++;
                    double wt = (double)(ev[k].t - since[j]);
                    wait_sum += wt;
                    if (wt > wait_max)
                        wait_max = wt;
                    waited++;
                } else {
                    queue[keep++] = j;
                }
            }
            qn = keep;
        } else if (state[i] == PS_PENDING) {
            /* deleted before it ever ran: it failed */
            int keep = 0;
            for (int q = 0; q < qn; q++)
                if (queue[q] != i)
                    queue[keep++] = queue[q];
            qn = keep;
            state[i] = PS_FAILED;
            failed++;
        }
        record(log, e, (double)(ev[k].t - t0), arrived_milli, arrived, placed, failed, qn, running);
        cl_progress_tick(cfg, k + 1, 2L * n);
    }
    out->n_pods = n;
    out->waited = waited;
    out->wait_mean_s = waited ? wait_sum / waited : 0;
    out->wait_max_s = wait_max;
    free(ev);
    free(state);
    free(node);
    free(mask);
    free(queue);
    free(since);
    free(order);
}

int cl_run(const struct cl_cluster *c, const struct cl_workload *w, const struct cl_typical *tp,
           const struct cl_run_cfg *cfg, struct cl_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (cfg->mig)
        return cl_mig_run(c, w, tp, cfg, out, err, errlen);
    struct cl_engine *e = cl_engine_new(c, w, tp, cfg->policy, cfg->seed);
    out->cap_milli = c->total_gpus * CL_MILLI;
    out->count_sum = tp->count_sum;
    (void)cl_rand_int(&e->rng); /* the reference's debug line draws one Int() */
    struct evlog log = {0};
    if (cfg->mode == CL_INFLATE)
        run_inflate(e, w, cfg, &log, out);
    else
        run_replay(e, w, cfg, &log, out);
    out->ev = log.ev;
    out->n_ev = log.n;
    out->mem_bytes = cl_engine_bytes(e) + (size_t)log.cap * sizeof *log.ev;
    cl_engine_free(e);
    return 0;
}

void cl_result_free(struct cl_result *r)
{
    free(r->ev);
    memset(r, 0, sizeof *r);
}
