/*
 * mig_pack — packs MIG instance requests onto as few GPUs as a policy can
 * (mig.h, mig_pack()).
 *
 * Invariants: a GPU is a multiset of profiles that is always legal (it is a
 * key of the sorted table of legal multisets); positions are chosen only at
 * the end, per GPU, by mig_place. Every policy breaks ties towards the lowest
 * GPU number and all empty GPUs are alike, so the used GPUs are always a prefix
 * 0..used-1 and only GPU `used` needs to stand for the empty ones — a request
 * costs O(used) table look-ups. The fgd of a multiset is computed once and
 * cached next to its key.
 */
#include "mig/mig.h"
#include "base/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const policy_names[] = {"best-fit", "first-fit", "fgd"};

int mig_pack_policy_parse(const char *s, enum mig_pack_policy *out, char *err, size_t errlen)
{
    for (int i = 0; i < 3; i++)
        if (strcasecmp(s, policy_names[i]) == 0) {
            *out = (enum mig_pack_policy)i;
            return 0;
        }
    return ss_errf(err, errlen,
                   "unknown packing policy \"%s\": expected best-fit, first-fit or fgd", s);
}

const char *mig_pack_policy_name(enum mig_pack_policy p)
{
    SS_ASSERT(p >= MIG_PACK_BEST_FIT && p <= MIG_PACK_FGD);
    return policy_names[p];
}

struct packer {
    const struct gpu_profile *g;
    const struct mig_demand *d;
    uint64_t *keys; /* legal multisets, sorted */
    double *fgd;    /* per key; NAN until computed */
    int n_keys;
    double fgd_empty;
};

struct pgpu {
    uint64_t key;
    int count[CAL_MAX_MIG];
    int compute, memory;
};

static uint64_t key_add(uint64_t key, int p)
{
    return key + ((uint64_t)1 << (3 * p));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int key_index(const struct packer *pk, uint64_t key)
{
    const uint64_t *hit = bsearch(&key, pk->keys, (size_t)pk->n_keys, sizeof key, cmp_u64);
    return hit ? (int)(hit - pk->keys) : -1;
}

/* fgd of the multiset at its best placement. */
static double multiset_fgd(const struct gpu_profile *g, const struct mig_demand *d,
                           const int *count)
{
    int prof[MIG_MAX_INST], n = 0;
    for (int p = 0; p < g->n_mig; p++)
        for (int c = 0; c < count[p]; c++)
            prof[n++] = p;
    struct mig_layout l;
    struct mig_frag f;
    if (mig_place(g, prof, NULL, n, d, &l, NULL, 0))
        SS_FATAL("multiset in the legal table has no placement");
    mig_frag(g, &l, d, &f);
    return f.fgd;
}

static double key_fgd(struct packer *pk, int idx, const int *count)
{
    if (isnan(pk->fgd[idx]))
        pk->fgd[idx] = multiset_fgd(pk->g, pk->d, count);
    return pk->fgd[idx];
}

static void packer_init(struct packer *pk, const struct gpu_profile *g, const struct mig_demand *d)
{
    struct mig_set *sets;
    pk->g = g;
    pk->d = d;
    pk->n_keys = mig_layouts(g, &sets);
    pk->keys = ss_xmalloc(sizeof *pk->keys * (size_t)(pk->n_keys ? pk->n_keys : 1));
    pk->fgd = ss_xmalloc(sizeof *pk->fgd * (size_t)(pk->n_keys ? pk->n_keys : 1));
    for (int i = 0; i < pk->n_keys; i++) {
        uint64_t k = 0;
        for (int p = 0; p < g->n_mig; p++)
            k |= (uint64_t)sets[i].count[p] << (3 * p);
        pk->keys[i] = k;
        pk->fgd[i] = NAN;
    }
    free(sets);
    qsort(pk->keys, (size_t)pk->n_keys, sizeof *pk->keys, cmp_u64);
    struct mig_layout empty = {.n = 0};
    struct mig_frag f;
    mig_frag(g, &empty, d, &f);
    pk->fgd_empty = f.fgd;
}

/* Score of putting profile p on GPU x (lower is better); -1 when it cannot. */
static int score(struct packer *pk, enum mig_pack_policy pol, const struct pgpu *x, int p,
                 double *out)
{
    const struct gpu_profile *g = pk->g;
    if (x->count[p] >= 7)
        return -1;
    int idx = key_index(pk, key_add(x->key, p));
    if (idx < 0)
        return -1;
    const struct mig_profile *m = &g->mig[p];
    switch (pol) {
    case MIG_PACK_FIRST_FIT:
        *out = 0;
        break;
    case MIG_PACK_BEST_FIT:
        *out = (double)(g->mig_compute_slices - x->compute - m->compute_slices) /
                   g->mig_compute_slices +
               (double)(g->mig_memory_slices - x->memory - m->size) / g->mig_memory_slices;
        break;
    case MIG_PACK_FGD: {
        int after[CAL_MAX_MIG];
        memcpy(after, x->count, sizeof after);
        after[p]++;
        double before = pk->fgd_empty;
        if (x->key) {
            int bidx = key_index(pk, x->key);
            SS_ASSERT(bidx >= 0);
            before = key_fgd(pk, bidx, x->count);
        }
        *out = key_fgd(pk, idx, after) - before;
        break;
    }
    }
    return 0;
}

/* One pass over the sorted requests on a cluster of n_cluster GPUs; returns
 * the number of requests left unplaced. gpus has room for n_cluster. */
static int run(struct packer *pk, enum mig_pack_policy pol, const int *req, const int *order,
               int n_req, int n_cluster, struct pgpu *gpus, int *gpu_of, int *used_out)
{
    const struct gpu_profile *g = pk->g;
    int used = 0, unplaced = 0;
    memset(gpus, 0, sizeof *gpus * (size_t)n_cluster);
    for (int k = 0; k < n_req; k++) {
        int i = order[k], p = req[i], best = -1;
        double best_s = 0, s = 0;
        int last = used < n_cluster ? used : n_cluster - 1;
        for (int x = 0; x <= last; x++) {
            if (score(pk, pol, &gpus[x], p, &s))
                continue;
            /* 1e-12: scores are sums of p * small integers */
            if (best < 0 || s < best_s - 1e-12) {
                best = x;
                best_s = s;
                if (pol == MIG_PACK_FIRST_FIT)
                    break;
            }
        }
        gpu_of[i] = best;
        if (best < 0) {
            unplaced++;
            continue;
        }
        struct pgpu *x = &gpus[best];
        x->key = key_add(x->key, p);
        x->count[p]++;
        x->compute += g->mig[p].compute_slices;
        x->memory += g->mig[p].size;
        if (best == used)
            used++;
    }
    *used_out = used;
    return unplaced;
}

/* No packing uses fewer GPUs: compute, memory, per-profile and +me limits. */
static int lower_bound(const struct gpu_profile *g, const int *req, int n_req)
{
    int per[CAL_MAX_MIG] = {0}, me = 0, c = 0, m = 0;
    for (int i = 0; i < n_req; i++) {
        per[req[i]]++;
        c += g->mig[req[i]].compute_slices;
        m += g->mig[req[i]].size;
        me += mig_profile_is_me(&g->mig[req[i]]);
    }
    int lb = (c + g->mig_compute_slices - 1) / g->mig_compute_slices;
    int lm = (m + g->mig_memory_slices - 1) / g->mig_memory_slices;
    lb = lm > lb ? lm : lb;
    lb = me > lb ? me : lb;
    for (int p = 0; p < g->n_mig; p++) {
        int lp = (per[p] + g->mig[p].max_instances - 1) / g->mig[p].max_instances;
        lb = lp > lb ? lp : lb;
    }
    return lb;
}

/* Larger first: memory slices occupied, then compute slices. */
static int larger_size(const struct mig_profile *a, const struct mig_profile *b)
{
    if (a->size != b->size)
        return b->size - a->size;
    return b->compute_slices - a->compute_slices;
}

/* Largest first: memory slices, compute slices, table order, input order. */
static void sort_requests(const struct gpu_profile *g, const int *req, int n_req, int *order)
{
    /* rank the profiles, then one pass per profile keeps input order within it */
    int np = g->n_mig, rank[CAL_MAX_MIG];
    mig_profile_rank(g, larger_size, rank);
    int k = 0;
    for (int r = 0; r < np; r++)
        for (int i = 0; i < n_req; i++)
            if (req[i] == rank[r])
                order[k++] = i;
    SS_ASSERT(k == n_req);
}

static void add_frag(struct mig_frag *t, const struct mig_frag *f)
{
    t->free_compute += f->free_compute;
    t->free_memory += f->free_memory;
    t->stranded_compute += f->stranded_compute;
    t->stranded_memory += f->stranded_memory;
    t->fgd_compute += f->fgd_compute;
    t->fgd_memory += f->fgd_memory;
}

/* Places each used GPU's instances and fills the result. */
static void finish(const struct gpu_profile *g, const struct mig_demand *d, const int *req,
                   int n_req, int used, struct mig_pack *out)
{
    out->n_gpus = used;
    out->gpu = ss_xcalloc((size_t)(used ? used : 1), sizeof *out->gpu);
    out->frag = ss_xcalloc((size_t)(used ? used : 1), sizeof *out->frag);
    memset(&out->total, 0, sizeof out->total);
    for (int x = 0; x < used; x++) {
        int prof[MIG_MAX_INST], who[MIG_MAX_INST], n = 0;
        for (int i = 0; i < n_req; i++)
            if (out->gpu_of[i] == x) {
                SS_ASSERT(n < MIG_MAX_INST);
                who[n] = i;
                prof[n++] = req[i];
            }
        struct mig_layout l;
        if (mig_place(g, prof, NULL, n, d, &l, NULL, 0))
            SS_FATAL("packed GPU %d has an illegal layout", x);
        /* instances by start, so the layout reads left to right */
        int idx[MIG_MAX_INST];
        for (int i = 0; i < n; i++)
            idx[i] = i;
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && l.start[idx[j - 1]] > l.start[idx[j]]; j--) {
                int t = idx[j];
                idx[j] = idx[j - 1];
                idx[j - 1] = t;
            }
        struct mig_layout *o = &out->gpu[x];
        o->n = n;
        for (int s = 0; s < n; s++) {
            o->prof[s] = l.prof[idx[s]];
            o->start[s] = l.start[idx[s]];
            out->slot_of[who[idx[s]]] = s;
        }
        mig_frag(g, o, d, &out->frag[x]);
        add_frag(&out->total, &out->frag[x]);
    }
    if (used) {
        struct mig_frag *t = &out->total;
        double c = (double)used * g->mig_compute_slices, m = (double)used * g->mig_memory_slices;
        t->stranded_compute_frac = t->stranded_compute / c;
        t->stranded_memory_frac = t->stranded_memory / m;
        t->fgd_compute_frac = t->fgd_compute / c;
        t->fgd_memory_frac = t->fgd_memory / m;
        t->fgd = (t->fgd_compute_frac + t->fgd_memory_frac) / 2;
    }
}

int mig_pack(const struct gpu_profile *g, const int *req, int n_req, const struct mig_pack_opts *o,
             struct mig_pack *out)
{
    memset(out, 0, sizeof *out);
    SS_ASSERT(n_req >= 0 && o->max_gpus >= 0);
    SS_ASSERT(o->policy >= MIG_PACK_BEST_FIT && o->policy <= MIG_PACK_FGD);
    out->n_req = n_req;
    out->gpu_of = ss_xmalloc(sizeof *out->gpu_of * (size_t)(n_req ? n_req : 1));
    out->slot_of = ss_xmalloc(sizeof *out->slot_of * (size_t)(n_req ? n_req : 1));
    for (int i = 0; i < n_req; i++) {
        SS_ASSERT(req[i] >= 0 && req[i] < g->n_mig);
        out->slot_of[i] = -1;
    }
    const struct mig_demand *d = o->demand;
    if (n_req == 0) {
        finish(g, d, req, 0, 0, out);
        return 0;
    }
    struct mig_demand own;
    if (!d) {
        mig_demand_from_list(g, req, n_req, &own);
        d = &own;
    }
    struct packer pk;
    packer_init(&pk, g, d);
    int *order = ss_xmalloc(sizeof *order * (size_t)n_req);
    if (o->arrival_order)
        for (int i = 0; i < n_req; i++)
            order[i] = i;
    else
        sort_requests(g, req, n_req, order);
    out->lower_bound = lower_bound(g, req, n_req);
    int n_max = o->max_gpus ? o->max_gpus : n_req;
    struct pgpu *gpus = ss_xmalloc(sizeof *gpus * (size_t)n_max);
    int used = 0, n_cluster = n_max;
    if (o->policy == MIG_PACK_FGD) {
        /* fgd spreads over empty GPUs when that lowers fragmentation: find
         * the smallest cluster on which it still places everything */
        n_cluster = out->lower_bound < n_max ? out->lower_bound : n_max;
        while ((out->n_unplaced = run(&pk, o->policy, req, order, n_req, n_cluster, gpus,
                                      out->gpu_of, &used)) > 0 &&
               n_cluster < n_max)
            n_cluster++;
    } else {
        out->n_unplaced =
            run(&pk, o->policy, req, order, n_req, n_cluster, gpus, out->gpu_of, &used);
    }
    /* first-fit and best-fit without a limit open GPUs as they need them */
    out->cluster_gpus = o->policy != MIG_PACK_FGD && !o->max_gpus ? used : n_cluster;
    finish(g, d, req, n_req, used, out);
    free(gpus);
    free(order);
    free(pk.keys);
    free(pk.fgd);
    return 0;
}

void mig_pack_free(struct mig_pack *r)
{
    free(r->gpu);
    free(r->frag);
    free(r->gpu_of);
    free(r->slot_of);
    memset(r, 0, sizeof *r);
}
