/*
 * cl_frag — the FGD fragmentation measure (Weng et al., USENIX ATC '23, section 4.1) of a
 * node for the workload's typical pods, as the reference computes it: typical pods
 * (utils/frag.go GetTypicalPods), a node's fragment amount (NodeGpuShareFragAmount and
 * FragAmountSumExceptQ3), and a memo of it by node state (the reference memoises it too,
 * by NodeResource.Flatten: CPU left, GPU-milli left sorted, GPU model).
 */
#include "base/util.h"
#include "cluster/cluster.h"

#include <stdlib.h>
#include <string.h>

/* ---- typical pods ------------------------------------------------------------------------ */

struct tkey {
    int cpu, milli, num;
    uint64_t spec;
    const char *spec_str;
    long long count;
};

/* The reference's PodResource.Less: CPU, then GPU share, then GPU count, then model string. */
static int key_less(const struct tkey *a, const struct tkey *b)
{
    if (a->cpu != b->cpu)
        return a->cpu < b->cpu;
    if (a->milli != b->milli)
        return a->milli < b->milli;
    if (a->num != b->num)
        return a->num < b->num;
    return strcmp(a->spec_str, b->spec_str) < 0;
}

/* sort.Reverse(TargetPodList): decreasing count, ties by decreasing key. */
static int cmp_typical(const void *pa, const void *pb)
{
    const struct tkey *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    if (key_less(b, a))
        return -1;
    if (key_less(a, b))
        return 1;
    return 0;
}

void cl_typical_build(const struct cl_workload *w, double popularity, struct cl_typical *tp)
{
    memset(tp, 0, sizeof *tp);
    struct tkey *k = ss_xcalloc((size_t)(w->n ? w->n : 1), sizeof *k);
    int nk = 0;
    /* Distinct requests; quadratic in the number of distinct ones only (a few hundred). */
    for (int i = 0; i < w->n; i++) {
        const struct cl_pod *p = &w->pod[i];
        int j = 0;
        for (; j < nk; j++)
            if (k[j].cpu == p->cpu_milli && k[j].milli == p->gpu_milli && k[j].num == p->num_gpu &&
                strcmp(k[j].spec_str, p->spec_str) == 0)
                break;
        if (j == nk) {
            k[nk] = (struct tkey){p->cpu_milli, p->gpu_milli, p->num_gpu, p->spec, p->spec_str, 0};
            nk++;
        }
        k[j].count++;
    }
    qsort(k, (size_t)nk, sizeof *k, cmp_typical);

    /* Popularity threshold in percent, as the reference's integer podPopularityThreshold. */
    double total = (double)w->n;
    double expected = (double)(long)(popularity * 100 + 0.5) * total / 100.0;
    double cum = 0;
    int i = 0;
    double *pct = ss_xcalloc((size_t)(nk ? nk : 1), sizeof *pct);
    while (cum < expected && i < nk) {
        cum += (double)k[i].count;
        pct[i] = (double)k[i].count / total;
        i++;
    }
    tp->n = i;
    tp->t = ss_xcalloc((size_t)(i ? i : 1), sizeof *tp->t);
    for (int j = 0; j < i; j++) {
        struct cl_tpod *t = &tp->t[j];
        t->cpu_milli = k[j].cpu;
        t->num_gpu = k[j].num;
        t->gpu_milli = k[j].milli;
        t->spec = k[j].spec;
        t->count = k[j].count;
        /* All kept: count / total. Chopped: renormalised by the kept share, in the
         * reference's order of operations (Percentage /= cumNumPods / total). */
        t->freq = i >= nk ? pct[j] : pct[j] / (cum / total);
        tp->count_sum += t->count;
    }
    free(pct);
    free(k);
}

void cl_typical_free(struct cl_typical *tp)
{
    free(tp->t);
    memset(tp, 0, sizeof *tp);
}

/* ---- fragment amount of one node ---------------------------------------------------------- */

/* The reference's seven categories (FragRatioDataMap), in its index order. */
enum { Q1_LACK_BOTH, Q2_LACK_GPU, Q3_SATISFIED, Q4_LACK_CPU, XL_SATISFIED, XR_LACK_CPU, NO_ACCESS };

void cl_frag_node(const struct cl_typical *tp, int model, int cpu_left, const int16_t *gpu_left,
                  int n_gpu, double *frag, long long *num)
{
    double data[7] = {0};
    long long exact = 0;
    long long total = 0;
    for (int g = 0; g < n_gpu; g++)
        total += gpu_left[g];
    for (int k = 0; k < tp->n; k++) {
        const struct cl_tpod *t = &tp->t[k];
        double f = t->freq;
        int cpu_ok = cpu_left >= t->cpu_milli;
        if (t->gpu_milli == 0) {
            data[cpu_ok ? XL_SATISFIED : XR_LACK_CPU] += f * (double)total;
            exact += t->count * total;
            continue;
        }
        if (t->spec && (model < 0 || !(t->spec >> model & 1))) {
            data[NO_ACCESS] += f * (double)total;
            exact += t->count * total;
            continue;
        }
        int can = 0;
        long long small = 0; /* GPU-milli on GPUs with less left than the share */
        for (int g = 0; g < n_gpu; g++) {
            if (gpu_left[g] >= t->gpu_milli)
                can++;
            else
                small += gpu_left[g];
        }
        if (can >= t->num_gpu) {
            if (cpu_ok) {
                data[Q2_LACK_GPU] += f * (double)small;
                data[Q3_SATISFIED] += f * (double)(total - small);
                exact += t->count * small;
            } else {
                data[Q4_LACK_CPU] += f * (double)total;
                exact += t->count * total;
            }
        } else {
            data[cpu_ok ? Q2_LACK_GPU : Q1_LACK_BOTH] += f * (double)total;
            exact += t->count * total;
        }
    }
    double out = 0;
    for (int i = 0; i < 7; i++)
        if (i != Q3_SATISFIED)
            out += data[i];
    *frag = out;
    *num = exact;
}

/* ---- memo ----------------------------------------------------------------------------------- */

struct memo_entry {
    int32_t cpu;
    int16_t model;
    int16_t used; /* 0 = empty slot */
    int16_t g[CL_MAX_GPUS];
    double frag;
    long long num;
};

struct cl_fragmemo {
    const struct cl_typical *tp;
    int any_spec; /* the model matters only when some typical pod names one */
    size_t cap, n, max_entries;
    struct memo_entry *e;
};

struct cl_fragmemo *cl_fragmemo_new(const struct cl_typical *tp, size_t max_entries)
{
    struct cl_fragmemo *m = ss_xcalloc(1, sizeof *m);
    m->tp = tp;
    for (int k = 0; k < tp->n; k++)
        if (tp->t[k].spec)
            m->any_spec = 1;
    m->cap = 1024;
    m->max_entries = max_entries < 1024 ? 1024 : max_entries;
    m->e = ss_xcalloc(m->cap, sizeof *m->e);
    return m;
}

size_t cl_fragmemo_bytes(const struct cl_fragmemo *m)
{
    return sizeof *m + m->cap * sizeof *m->e;
}

void cl_fragmemo_free(struct cl_fragmemo *m)
{
    if (!m)
        return;
    free(m->e);
    free(m);
}

static size_t memo_hash(const struct memo_entry *k)
{
    uint64_t h = 1469598103934665603ULL;
    h = (h ^ (uint32_t)k->cpu) * 1099511628211ULL;
    h = (h ^ (uint16_t)k->model) * 1099511628211ULL;
    for (int g = 0; g < CL_MAX_GPUS; g++)
        h = (h ^ (uint16_t)k->g[g]) * 1099511628211ULL;
    return (size_t)(h ^ (h >> 29));
}

static void memo_grow(struct cl_fragmemo *m)
{
    size_t ncap = m->cap * 2;
    if (ncap > m->max_entries * 2) { /* at the bound: forget everything, start again */
        memset(m->e, 0, m->cap * sizeof *m->e);
        m->n = 0;
        return;
    }
    struct memo_entry *ne = ss_xcalloc(ncap, sizeof *ne);
    for (size_t i = 0; i < m->cap; i++)
        if (m->e[i].used) {
            size_t s = memo_hash(&m->e[i]) & (ncap - 1);
            while (ne[s].used)
                s = (s + 1) & (ncap - 1);
            ne[s] = m->e[i];
        }
    free(m->e);
    m->e = ne;
    m->cap = ncap;
}

void cl_fragmemo_get(struct cl_fragmemo *m, int model, int cpu_left, const int16_t *gpu_left,
                     int n_gpu, double *frag, long long *num)
{
    struct memo_entry k;
    memset(&k, 0, sizeof k);
    k.cpu = cpu_left;
    k.model = (int16_t)(m->any_spec ? model : -1);
    k.used = 1;
    /* GPU-milli left as a multiset: sorted descending, zeros after (Flatten). */
    for (int g = 0; g < n_gpu; g++) {
        int16_t v = gpu_left[g];
        int j = g;
        while (j > 0 && k.g[j - 1] < v) {
            k.g[j] = k.g[j - 1];
            j--;
        }
        k.g[j] = v;
    }
    size_t s = memo_hash(&k) & (m->cap - 1);
    for (;; s = (s + 1) & (m->cap - 1)) {
        struct memo_entry *e = &m->e[s];
        if (!e->used)
            break;
        if (e->cpu == k.cpu && e->model == k.model && !memcmp(e->g, k.g, sizeof k.g)) {
            *frag = e->frag;
            *num = e->num;
            return;
        }
    }
    /* The sorted list with the zeros gives the same amount: an empty GPU slot neither fits a
     * GPU request nor adds free GPU-milli. */
    cl_frag_node(m->tp, model, cpu_left, k.g, CL_MAX_GPUS, &k.frag, &k.num);
    *frag = k.frag;
    *num = k.num;
    if (4 * (m->n + 1) > 3 * m->cap) {
        memo_grow(m);
        s = memo_hash(&k) & (m->cap - 1);
        while (m->e[s].used)
            s = (s + 1) & (m->cap - 1);
    }
    m->e[s] = k;
    m->n++;
}
