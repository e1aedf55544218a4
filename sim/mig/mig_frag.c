/*
 * mig_frag — demand mixes and the fragmentation of a placed MIG layout:
 * stranded capacity and the FGD measure (definitions in mig.h).
 *
 * Invariants: the layout passed in is legal and placed (every start >= 0, no
 * overlap — checked, a violation is a bug); a demand's probabilities are
 * positive and add up to 1. Stranded capacity is found by exhaustive search
 * over extensions (at most 7 instances in all, so a few thousand nodes at
 * worst); FGD needs only the single placements of each demand profile.
 */
#include "mig/mig.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void mig_demand_uniform(const struct gpu_profile *g, struct mig_demand *d)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < g->n_mig; i++) {
        d->prof[i] = i;
        d->p[i] = 1.0 / g->n_mig;
    }
    d->n = g->n_mig;
}

/* Adds weight w to profile idx (merging repeats), keeping table order. */
static void demand_add(struct mig_demand *d, int idx, double w)
{
    for (int i = 0; i < d->n; i++)
        if (d->prof[i] == idx) {
            d->p[i] += w;
            return;
        }
    int i = d->n++;
    while (i > 0 && d->prof[i - 1] > idx) {
        d->prof[i] = d->prof[i - 1];
        d->p[i] = d->p[i - 1];
        i--;
    }
    d->prof[i] = idx;
    d->p[i] = w;
}

static void demand_normalise(struct mig_demand *d)
{
    /* Divided by the largest first, so the sum cannot overflow (weights of 1e308 added to inf,
     * and every probability came out 0 or NaN). */
    double top = 0, sum = 0;
    for (int i = 0; i < d->n; i++)
        top = d->p[i] > top ? d->p[i] : top;
    SS_ASSERT(top > 0 && isfinite(top));
    for (int i = 0; i < d->n; i++)
        sum += d->p[i] / top;
    for (int i = 0; i < d->n; i++)
        d->p[i] = d->p[i] / top / sum;
}

void mig_demand_from_list(const struct gpu_profile *g, const int *prof, int n, struct mig_demand *d)
{
    memset(d, 0, sizeof *d);
    SS_ASSERT(n > 0);
    for (int i = 0; i < n; i++) {
        SS_ASSERT(prof[i] >= 0 && prof[i] < g->n_mig);
        demand_add(d, prof[i], 1.0);
    }
    demand_normalise(d);
}

/*
 * One pass over "profile[:weight],…": checks every item and, when d is given, adds weight/scale
 * to its profile; returns the largest weight in *top. Two passes (the first finds the largest,
 * the second adds the weights divided by it) keep every sum at most the number of items, so
 * weights up to the largest double cannot overflow the merge of repeats.
 */
static int demand_items(const struct gpu_profile *g, const char *text, struct mig_demand *d,
                        double scale, double *top, char *err, size_t errlen)
{
    char names[512];
    mig_profile_names(g, names, sizeof names);
    const char *b = text;
    *top = 0;
    for (int pos = 1;; pos++) {
        const char *e = strchr(b, ',');
        if (!e)
            e = b + strlen(b);
        char tok[96];
        size_t len = (size_t)(e - b) < sizeof tok - 1 ? (size_t)(e - b) : sizeof tok - 1;
        memcpy(tok, b, len);
        tok[len] = '\0';
        double w = 1.0;
        char *colon = strchr(tok, ':');
        if (colon) {
            char *end;
            *colon = '\0';
            w = strtod(colon + 1, &end);
            if (end == colon + 1 || *end || !isfinite(w) || w <= 0)
                return ss_errf(err, errlen,
                               "bad weight \"%s\" for %s (item %d of demand \"%s\"): expected a "
                               "positive number",
                               colon + 1, tok, pos, text);
        }
        char *name = tok;
        while (*name == ' ')
            name++;
        for (char *t = name + strlen(name); t > name && t[-1] == ' ';)
            *--t = '\0';
        if (!name[0])
            return ss_errf(err, errlen, "empty MIG profile name (item %d of demand \"%s\")", pos,
                           text);
        int idx = mig_profile_index(g, name);
        if (idx < 0)
            return ss_errf(err, errlen,
                           "unknown MIG profile \"%s\" (item %d of demand \"%s\"); %s has %s", name,
                           pos, text, g->name, names);
        if (w > *top)
            *top = w;
        if (d) {
            double x = w / scale;
            if (x < 1e-300) /* only with a weight given: w = 1 is at least 1/DBL_MAX */
                return ss_errf(err, errlen,
                               "weight \"%s\" for %s (item %d of demand \"%s\") is negligible "
                               "next to the largest, %g: expected weights within a factor of "
                               "1e300 of each other",
                               colon ? colon + 1 : "1", tok, pos, text, scale);
            demand_add(d, idx, x);
        }
        if (!*e)
            break;
        b = e + 1;
    }
    return 0;
}

int mig_parse_demand(const struct gpu_profile *g, const char *text, struct mig_demand *d, char *err,
                     size_t errlen)
{
    memset(d, 0, sizeof *d);
    double top;
    if (demand_items(g, text, NULL, 1, &top, err, errlen) ||
        demand_items(g, text, d, top, &top, err, errlen))
        return -1;
    demand_normalise(d);
    return 0;
}

/* The occupied state of a GPU, and what may still be added to it. */
struct gpu_state {
    const struct gpu_profile *g;
    int count[CAL_MAX_MIG];
    int me, compute;
    unsigned used; /* memory-slice bits */
};

static void state_init(const struct gpu_profile *g, const struct mig_layout *l, struct gpu_state *s)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    for (int i = 0; i < l->n; i++) {
        const struct mig_profile *m = &g->mig[l->prof[i]];
        unsigned mask = ((1u << m->size) - 1u) << l->start[i];
        SS_ASSERT(l->start[i] >= 0 && !(s->used & mask));
        s->used |= mask;
        s->count[l->prof[i]]++;
        s->me += mig_profile_is_me(m);
        s->compute += m->compute_slices;
    }
    SS_ASSERT(s->compute <= g->mig_compute_slices);
}

/* May one more instance of profile p be created (ignoring where)? */
static int can_add(const struct gpu_state *s, int p)
{
    const struct mig_profile *m = &s->g->mig[p];
    return s->count[p] < m->max_instances && !(mig_profile_is_me(m) && s->me >= 1) &&
           s->compute + m->compute_slices <= s->g->mig_compute_slices;
}

static unsigned slice_mask(const struct mig_profile *m, int start)
{
    return ((1u << m->size) - 1u) << start;
}

struct ext_search {
    const struct mig_demand *d;
    int free_c, free_m;
    int best_c, best_m;
};

/* Extensions add demand profiles in demand order, one profile's starts
 * increasing, so each multiset-with-positions is visited once. */
static void extend(struct ext_search *x, struct gpu_state *s, int j0, int after, int add_c,
                   int add_m)
{
    if (add_c > x->best_c)
        x->best_c = add_c;
    if (add_m > x->best_m)
        x->best_m = add_m;
    if (x->best_c == x->free_c && x->best_m == x->free_m)
        return;
    for (int j = j0; j < x->d->n; j++) {
        int p = x->d->prof[j];
        const struct mig_profile *m = &s->g->mig[p];
        if (x->d->p[j] <= 0 || !can_add(s, p))
            continue;
        for (int k = 0; k < m->n_starts; k++) {
            int st = m->starts[k];
            unsigned mask = slice_mask(m, st);
            if ((j == j0 && st <= after) || (s->used & mask))
                continue;
            s->used |= mask;
            s->count[p]++;
            s->me += mig_profile_is_me(m);
            s->compute += m->compute_slices;
            extend(x, s, j, st, add_c + m->compute_slices, add_m + m->size);
            s->used &= ~mask;
            s->count[p]--;
            s->me -= mig_profile_is_me(m);
            s->compute -= m->compute_slices;
        }
    }
}

void mig_frag(const struct gpu_profile *g, const struct mig_layout *placed,
              const struct mig_demand *d, struct mig_frag *out)
{
    struct gpu_state s;
    state_init(g, placed, &s);
    memset(out, 0, sizeof *out);
    const int total_c = g->mig_compute_slices, total_m = g->mig_memory_slices;
    unsigned all = (1u << total_m) - 1u;
    unsigned free_mask = all & ~s.used;
    out->free_compute = total_c - s.compute;
    out->free_memory = __builtin_popcount(free_mask);

    struct ext_search x = {.d = d, .free_c = out->free_compute, .free_m = out->free_memory};
    extend(&x, &s, 0, -1, 0, 0);
    out->stranded_compute = out->free_compute - x.best_c;
    out->stranded_memory = out->free_memory - x.best_m;

    for (int j = 0; j < d->n; j++) {
        int p = d->prof[j];
        const struct mig_profile *m = &g->mig[p];
        unsigned cover = 0;
        if (can_add(&s, p))
            for (int k = 0; k < m->n_starts; k++) {
                unsigned mask = slice_mask(m, m->starts[k]);
                if (!(s.used & mask))
                    cover |= mask;
            }
        if (!cover) { /* m cannot be placed: all free capacity is lost to it */
            out->fgd_compute += d->p[j] * out->free_compute;
            out->fgd_memory += d->p[j] * out->free_memory;
        } else {
            out->fgd_memory += d->p[j] * __builtin_popcount(free_mask & ~cover);
        }
    }
    out->stranded_compute_frac = (double)out->stranded_compute / total_c;
    out->stranded_memory_frac = (double)out->stranded_memory / total_m;
    out->fgd_compute_frac = out->fgd_compute / total_c;
    out->fgd_memory_frac = out->fgd_memory / total_m;
    out->fgd = (out->fgd_compute_frac + out->fgd_memory_frac) / 2;
}
