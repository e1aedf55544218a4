/*
 * mig — profiles, parsing, legality, placement and enumeration of MIG
 * layouts (rules in mig.h).
 *
 * Invariants: a profile index is always < g->n_mig; memory slices are bits of
 * an unsigned mask (calib guarantees start + size <= 8); an instance list that
 * passes the counting rules (max_instances, one +me, compute <= 7) has at most
 * MIG_MAX_INST entries, so the placement search works on fixed arrays. The
 * search is exhaustive — at most 7 instances with at most 8 starts each, and
 * instances of one profile take increasing starts, so it visits a few hundred
 * placements at worst.
 */
#include "mig/mig.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int mig_profile_index(const struct gpu_profile *g, const char *name)
{
    for (int i = 0; i < g->n_mig; i++)
        if (strcasecmp(g->mig[i].name, name) == 0)
            return i;
    return -1;
}

int mig_profile_is_me(const struct mig_profile *m)
{
    return ss_ends_with(m->name, "+me");
}

void mig_profile_names(const struct gpu_profile *g, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < g->n_mig && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", g->mig[i].name);
}

double mig_compute_share(const struct gpu_profile *g, int prof)
{
    SS_ASSERT(prof >= 0 && prof < g->n_mig && g->total_sms > 0);
    return (double)g->mig[prof].sm_count / g->total_sms;
}

double mig_memory_share(const struct gpu_profile *g, int prof)
{
    SS_ASSERT(prof >= 0 && prof < g->n_mig && g->mig_memory_slices > 0);
    return (double)g->mig[prof].memory_slices / g->mig_memory_slices;
}

/* ---- parsing ----------------------------------------------------------- */

/* Copies token [b, e) without surrounding blanks. */
static void trim_copy(const char *b, const char *e, char *out, size_t cap)
{
    while (b < e && (*b == ' ' || *b == '\t'))
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    size_t n = (size_t)(e - b) < cap - 1 ? (size_t)(e - b) : cap - 1;
    memcpy(out, b, n);
    out[n] = '\0';
}

static int unknown_profile(const struct gpu_profile *g, const char *tok, int pos, const char *text,
                           char *err, size_t errlen)
{
    char names[512];
    mig_profile_names(g, names, sizeof names);
    return ss_errf(err, errlen, "unknown MIG profile \"%s\" (item %d of \"%s\"); %s has %s", tok,
                   pos, text, g->name, names);
}

/* Splits "NxNAME" into N and NAME; a token without a count has N = 1. */
static int split_count(const char *tok, long *count, const char **name)
{
    const char *p = tok;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == tok || (*p != 'x' && *p != 'X') || p[1] == '\0') {
        *count = 1;
        *name = tok;
        return 0;
    }
    if (p - tok > 6)
        return -1;
    *count = strtol(tok, NULL, 10);
    *name = p + 1;
    return 0;
}

/* Splits "NAME@S" into NAME (in place) and S; *start = -1 without "@". */
static int split_start(char *tok, int *start)
{
    char *at = strchr(tok, '@');
    *start = -1;
    if (!at)
        return 0;
    *at = '\0';
    char *end;
    long v = strtol(at + 1, &end, 10);
    if (end == at + 1 || *end || v < 0 || v > 63)
        return -1;
    *start = (int)v;
    return 0;
}

int mig_parse_list(const struct gpu_profile *g, const char *text, int **prof, int **start, int *n,
                   char *err, size_t errlen)
{
    *prof = NULL;
    if (start)
        *start = NULL;
    *n = 0;
    if (g->n_mig == 0)
        return ss_errf(err, errlen, "%s has no MIG profiles (%s)", g->name, g->path);
    int cap = 16, len = 0, pos = 0;
    int *out = ss_xmalloc(sizeof *out * (size_t)cap);
    int *pins = ss_xmalloc(sizeof *pins * (size_t)cap);
    const char *b = text;
    for (;;) {
        const char *e = strchr(b, ',');
        if (!e)
            e = b + strlen(b);
        char tok[64], orig[64];
        trim_copy(b, e, tok, sizeof tok);
        memcpy(orig, tok, sizeof orig);
        pos++;
        long count;
        const char *name;
        int pin;
        if (!tok[0]) {
            ss_errf(err, errlen, "empty MIG profile name (item %d of \"%s\")", pos, text);
            goto fail;
        }
        if (split_start(tok, &pin)) {
            ss_errf(err, errlen,
                    "bad start in \"%s\" (item %d of \"%s\"): expected PROFILE@SLICE, e.g. "
                    "%s@0",
                    orig, pos, text, g->mig[0].name);
            goto fail;
        }
        if (pin >= 0 && !start) {
            ss_errf(err, errlen,
                    "\"%s\" (item %d of \"%s\"): a start position (@SLICE) is not allowed "
                    "here",
                    orig, pos, text);
            goto fail;
        }
        if (split_count(tok, &count, &name) || count < 1) {
            ss_errf(err, errlen,
                    "bad count in \"%s\" (item %d of \"%s\"): expected NxPROFILE with N >= 1, "
                    "e.g. 4x%s",
                    orig, pos, text, g->mig[0].name);
            goto fail;
        }
        if (pin >= 0 && count > 1) {
            ss_errf(err, errlen,
                    "\"%s\" (item %d of \"%s\"): NxPROFILE cannot take one start; give each "
                    "instance its own PROFILE@SLICE",
                    orig, pos, text);
            goto fail;
        }
        int idx = mig_profile_index(g, name);
        if (idx < 0) {
            unknown_profile(g, orig, pos, text, err, errlen);
            goto fail;
        }
        if (count > MIG_MAX_REQUESTS - len) {
            ss_errf(err, errlen, "more than %d MIG instances in \"%.60s%s\"", MIG_MAX_REQUESTS,
                    text, strlen(text) > 60 ? "..." : "");
            goto fail;
        }
        for (long k = 0; k < count; k++) {
            if (len == cap) {
                cap *= 2;
                out = ss_xrealloc(out, sizeof *out * (size_t)cap);
                pins = ss_xrealloc(pins, sizeof *pins * (size_t)cap);
            }
            pins[len] = pin;
            out[len++] = idx;
        }
        if (!*e)
            break;
        b = e + 1;
    }
    *prof = out;
    if (start)
        *start = pins;
    else
        free(pins);
    *n = len;
    return 0;
fail:
    free(out);
    free(pins);
    return -1;
}

/* ---- counting rules and their reasons ---------------------------------- */

/* "two" for 2; digits past ten. buf holds at least 16 bytes. */
static const char *number_word(int k, char *buf)
{
    static const char *const w[] = {"zero", "one",   "two",   "three", "four", "five",
                                    "six",  "seven", "eight", "nine",  "ten"};
    if (k >= 0 && k <= 10)
        return w[k];
    snprintf(buf, 16, "%d", k);
    return buf;
}

/* "0", "0 and 4", "0, 2, 4 and 6", runs of three or more as "0-6". */
static void format_starts(const struct mig_profile *m, char *buf, size_t len)
{
    char parts[CAL_MAX_STARTS][16];
    int np = 0;
    for (int i = 0; i < m->n_starts;) {
        int j = i;
        while (j + 1 < m->n_starts && m->starts[j + 1] == m->starts[j] + 1)
            j++;
        if (j - i >= 2) {
            snprintf(parts[np++], sizeof parts[0], "%d-%d", m->starts[i], m->starts[j]);
            i = j + 1;
        } else {
            snprintf(parts[np++], sizeof parts[0], "%d", m->starts[i]);
            i++;
        }
    }
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < np && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s",
                              i == 0        ? ""
                              : i == np - 1 ? " and "
                                            : ", ",
                              parts[i]);
}

/* How many instances of m fit side by side at its starts (greedy by start is
 * optimal for intervals of one size). */
static int max_side_by_side(const struct mig_profile *m)
{
    int fit = 0, end = -1;
    for (int i = 0; i < m->n_starts; i++)
        if (m->starts[i] >= end) {
            fit++;
            end = m->starts[i] + m->size;
        }
    return fit;
}

struct counts {
    int per[CAL_MAX_MIG];
    int me, compute, memory, n;
};

static void count_list(const struct gpu_profile *g, const int *prof, int n, struct counts *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < n; i++) {
        SS_ASSERT(prof[i] >= 0 && prof[i] < g->n_mig);
        const struct mig_profile *m = &g->mig[prof[i]];
        c->per[prof[i]]++;
        c->me += mig_profile_is_me(m);
        c->compute += m->compute_slices;
        c->memory += m->size;
        c->n++;
    }
}

/* The rules a layout breaks: how many, and their reasons, "; "-separated, in why (may be
 * NULL); k is the length written so far. */
struct reasons {
    char *why;
    size_t whylen, k;
    int broken;
};

static struct reasons reasons_start(char *why, size_t whylen)
{
    if (why && whylen)
        why[0] = '\0';
    return (struct reasons){why, whylen, 0, 0};
}

/* One more broken rule, its reason printf-style (at most 255 characters). */
static void broken_rule(struct reasons *rs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void broken_rule(struct reasons *rs, const char *fmt, ...)
{
    char r[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r, sizeof r, fmt, ap);
    va_end(ap);
    rs->broken++;
    if (!rs->why || rs->k >= rs->whylen)
        return;
    rs->k += (size_t)snprintf(rs->why + rs->k, rs->whylen - rs->k, "%s%s", rs->k ? "; " : "", r);
}

/* The rules that need no placement; returns the number broken. */
static int counting_rules(const struct gpu_profile *g, const struct counts *c, char *why,
                          size_t whylen)
{
    struct reasons rs = reasons_start(why, whylen);
    for (int p = 0; p < g->n_mig; p++) {
        const struct mig_profile *m = &g->mig[p];
        if (c->per[p] <= m->max_instances || (mig_profile_is_me(m) && c->me > 1))
            continue; /* the +me rule below says it better */
        if (max_side_by_side(m) == m->max_instances) {
            /* the vendor limit is the geometry: say so */
            char starts[128], num[16];
            format_starts(m, starts, sizeof starts);
            broken_rule(&rs, "%s can only start at memory slice%s %s; %s do not fit", m->name,
                        m->n_starts > 1 ? "s" : "", starts, number_word(c->per[p], num));
        } else {
            broken_rule(&rs, "%s appears %d times, the GPU allows at most %d", m->name, c->per[p],
                        m->max_instances);
        }
    }
    if (c->me > 1)
        broken_rule(&rs, "at most one +me (media extension) profile per GPU, the layout has %d",
                    c->me);
    if (c->compute > g->mig_compute_slices)
        broken_rule(&rs, "compute slices add up to %d, the GPU has %d", c->compute,
                    g->mig_compute_slices);
    if (c->memory > g->mig_memory_slices)
        broken_rule(&rs, "memory slices add up to %d, the GPU has %d", c->memory,
                    g->mig_memory_slices);
    return rs.broken;
}

/* ---- placement search -------------------------------------------------- */

struct search {
    const struct gpu_profile *g;
    int n;
    int order[MIG_MAX_INST]; /* pinned instances first, then larger size first */
    int pin[MIG_MAX_INST];   /* -1: free to move */
    struct mig_layout cur;
    mig_place_fn fn;
    void *ctx;
    int visited, stop;
};

static int cmp_order(const struct gpu_profile *g, const int *prof, const int *pin, int a, int b)
{
    const struct mig_profile *ma = &g->mig[prof[a]], *mb = &g->mig[prof[b]];
    if ((pin[a] >= 0) != (pin[b] >= 0))
        return pin[a] >= 0 ? -1 : 1;
    if (ma->size != mb->size)
        return mb->size - ma->size;
    if (prof[a] != prof[b])
        return prof[a] - prof[b];
    return a - b;
}

static void search_dfs(struct search *s, int k, unsigned used)
{
    if (s->stop)
        return;
    if (k == s->n) {
        s->visited++;
        if (s->fn && s->fn(&s->cur, s->ctx))
            s->stop = 1;
        return;
    }
    int i = s->order[k];
    const struct mig_profile *m = &s->g->mig[s->cur.prof[i]];
    /* Unpinned instances of one profile are interchangeable: increasing starts only. */
    int after = -1;
    if (k > 0 && s->pin[i] < 0 && s->pin[s->order[k - 1]] < 0 &&
        s->cur.prof[s->order[k - 1]] == s->cur.prof[i])
        after = s->cur.start[s->order[k - 1]];
    for (int j = 0; j < m->n_starts && !s->stop; j++) {
        int st = m->starts[j];
        unsigned mask = ((1u << m->size) - 1u) << st;
        if (st <= after || (used & mask) || (s->pin[i] >= 0 && st != s->pin[i]))
            continue;
        s->cur.start[i] = st;
        search_dfs(s, k + 1, used | mask);
    }
    s->cur.start[i] = -1;
}

/* Pins that name a start the profile does not have, or that overlap. */
static int pin_rules(const struct gpu_profile *g, const int *prof, const int *pin, int n, char *why,
                     size_t whylen)
{
    struct reasons rs = reasons_start(why, whylen);
    for (int i = 0; pin && i < n; i++) {
        if (pin[i] < 0)
            continue;
        const struct mig_profile *m = &g->mig[prof[i]];
        int ok = 0;
        for (int j = 0; j < m->n_starts; j++)
            ok |= m->starts[j] == pin[i];
        if (!ok) {
            char starts[128];
            format_starts(m, starts, sizeof starts);
            broken_rule(&rs, "%s cannot start at memory slice %d (it starts at %s)", m->name,
                        pin[i], starts);
            continue;
        }
        for (int j = 0; j < i; j++) {
            if (pin[j] < 0)
                continue;
            const struct mig_profile *o = &g->mig[prof[j]];
            int lo = pin[i] > pin[j] ? pin[i] : pin[j];
            int hi_i = pin[i] + m->size, hi_j = pin[j] + o->size;
            if (lo < (hi_i < hi_j ? hi_i : hi_j))
                broken_rule(&rs, "%s@%d and %s@%d share memory slice %d", o->name, pin[j], m->name,
                            pin[i], lo);
        }
    }
    return rs.broken;
}

int mig_place_each(const struct gpu_profile *g, const int *prof, const int *pin, int n,
                   mig_place_fn fn, void *ctx)
{
    struct counts c;
    count_list(g, prof, n, &c);
    if (counting_rules(g, &c, NULL, 0) || pin_rules(g, prof, pin, n, NULL, 0))
        return 0;
    SS_ASSERT(n <= MIG_MAX_INST);
    struct search s = {.g = g, .n = n, .fn = fn, .ctx = ctx};
    s.cur.n = n;
    for (int i = 0; i < n; i++) {
        s.cur.prof[i] = prof[i];
        s.cur.start[i] = -1;
        s.pin[i] = pin ? pin[i] : -1;
        s.order[i] = i;
    }
    /* insertion sort: n <= 7 */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && cmp_order(g, prof, s.pin, s.order[j - 1], s.order[j]) > 0; j--) {
            int t = s.order[j];
            s.order[j] = s.order[j - 1];
            s.order[j - 1] = t;
        }
    search_dfs(&s, 0, 0);
    return s.visited;
}

static int stop_first(const struct mig_layout *l, void *ctx)
{
    (void)l;
    (void)ctx;
    return 1;
}

static void placement_reason(const struct gpu_profile *g, const struct counts *c, const int *prof,
                             const int *pin, int n, char *why, size_t whylen)
{
    size_t k = 0;
    if (!why || !whylen)
        return;
    k += (size_t)snprintf(why, whylen, "no placement keeps the memory slices apart");
    for (int i = 0, first = 1; pin && i < n && k < whylen; i++)
        if (pin[i] >= 0) {
            k += (size_t)snprintf(why + k, whylen - k, "%s%s@%d", first ? " with " : ", ",
                                  g->mig[prof[i]].name, pin[i]);
            first = 0;
        }
    if (k < whylen)
        k += (size_t)snprintf(why + k, whylen - k, " (");
    int first = 1;
    for (int p = 0; p < g->n_mig; p++) {
        if (!c->per[p] || k >= whylen)
            continue;
        char starts[128];
        format_starts(&g->mig[p], starts, sizeof starts);
        k += (size_t)snprintf(why + k, whylen - k, "%s%d x %s: %d slice%s starting at %s",
                              first ? "" : "; ", c->per[p], g->mig[p].name, g->mig[p].size,
                              g->mig[p].size > 1 ? "s" : "", starts);
        first = 0;
    }
    if (k < whylen)
        snprintf(why + k, whylen - k, ")");
}

int mig_check(const struct gpu_profile *g, const int *prof, int n, char *why, size_t whylen)
{
    struct counts c;
    count_list(g, prof, n, &c);
    if (counting_rules(g, &c, why, whylen))
        return -1;
    if (mig_place_each(g, prof, NULL, n, stop_first, NULL) == 0) {
        placement_reason(g, &c, prof, NULL, n, why, whylen);
        return -1;
    }
    return 0;
}

struct best_ctx {
    const struct gpu_profile *g;
    const struct mig_demand *d;
    struct mig_layout best;
    double best_fgd, best_stranded;
    int have;
};

static int keep_best(const struct mig_layout *l, void *vctx)
{
    struct best_ctx *b = vctx;
    struct mig_frag f;
    mig_frag(b->g, l, b->d, &f);
    double stranded = f.stranded_compute_frac + f.stranded_memory_frac;
    /* Values are sums of p * small integers: 1e-12 separates real differences. */
    if (!b->have || f.fgd < b->best_fgd - 1e-12 ||
        (f.fgd <= b->best_fgd + 1e-12 && stranded < b->best_stranded - 1e-12)) {
        b->best = *l;
        b->best_fgd = f.fgd;
        b->best_stranded = stranded;
        b->have = 1;
    }
    return 0;
}

int mig_place(const struct gpu_profile *g, const int *prof, const int *pin, int n,
              const struct mig_demand *d, struct mig_layout *out, char *why, size_t whylen)
{
    if (mig_check(g, prof, n, why, whylen) || pin_rules(g, prof, pin, n, why, whylen))
        return -1;
    struct mig_demand uniform;
    if (!d) {
        mig_demand_uniform(g, &uniform);
        d = &uniform;
    }
    struct best_ctx b = {.g = g, .d = d};
    if (mig_place_each(g, prof, pin, n, keep_best, &b) == 0) {
        struct counts c;
        count_list(g, prof, n, &c);
        placement_reason(g, &c, prof, pin, n, why, whylen);
        return -1;
    }
    *out = b.best;
    return 0;
}

/* ---- multisets ----------------------------------------------------------- */

void mig_profile_rank(const struct gpu_profile *g,
                      int (*cmp)(const struct mig_profile *a, const struct mig_profile *b),
                      int *rank)
{
    for (int i = 0; i < g->n_mig; i++)
        rank[i] = i;
    for (int i = 1; i < g->n_mig; i++)
        for (int j = i; j > 0 && cmp(&g->mig[rank[j - 1]], &g->mig[rank[j]]) > 0; j--) {
            int t = rank[j];
            rank[j] = rank[j - 1];
            rank[j - 1] = t;
        }
}

/* Larger first: compute slices, then memory slices. */
static int larger_compute(const struct mig_profile *a, const struct mig_profile *b)
{
    if (a->compute_slices != b->compute_slices)
        return b->compute_slices - a->compute_slices;
    return b->memory_slices - a->memory_slices;
}

/* Profiles from largest to smallest: compute slices, memory slices, table order. */
static void size_rank(const struct gpu_profile *g, int *rank)
{
    mig_profile_rank(g, larger_compute, rank);
}

void mig_set_from_list(const struct gpu_profile *g, const int *prof, int n, struct mig_set *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < n; i++) {
        SS_ASSERT(prof[i] >= 0 && prof[i] < g->n_mig);
        s->count[prof[i]]++;
        s->compute_slices += g->mig[prof[i]].compute_slices;
        s->memory_slices += g->mig[prof[i]].size;
        s->n_inst++;
    }
}

void mig_set_format(const struct gpu_profile *g, const struct mig_set *s, char *buf, size_t len)
{
    int rank[CAL_MAX_MIG];
    size_rank(g, rank);
    size_t k = 0;
    buf[0] = '\0';
    for (int r = 0; r < g->n_mig; r++)
        for (int c = 0; c < s->count[rank[r]] && k < len; c++)
            k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "," : "", g->mig[rank[r]].name);
}

static int set_to_list(const struct gpu_profile *g, const int *count, int *prof)
{
    int n = 0;
    for (int p = 0; p < g->n_mig; p++)
        for (int c = 0; c < count[p]; c++)
            prof[n++] = p;
    return n;
}

struct enum_ctx {
    const struct gpu_profile *g;
    struct mig_set *sets;
    int n, cap;
};

static void enum_rec(struct enum_ctx *e, int p, struct mig_set *cur, int me)
{
    const struct gpu_profile *g = e->g;
    if (p == g->n_mig) {
        int prof[MIG_MAX_INST];
        if (cur->n_inst == 0)
            return;
        int n = set_to_list(g, cur->count, prof);
        if (mig_place_each(g, prof, NULL, n, stop_first, NULL) == 0)
            return;
        if (e->n == e->cap) {
            e->cap = e->cap ? 2 * e->cap : 64;
            e->sets = ss_xrealloc(e->sets, sizeof *e->sets * (size_t)e->cap);
        }
        e->sets[e->n++] = *cur;
        return;
    }
    const struct mig_profile *m = &g->mig[p];
    int is_me = mig_profile_is_me(m);
    for (int c = 0; c <= m->max_instances; c++) {
        if (cur->compute_slices + c * m->compute_slices > g->mig_compute_slices ||
            cur->memory_slices + c * m->size > g->mig_memory_slices || (is_me && me + c > 1))
            break;
        cur->count[p] = c;
        cur->n_inst += c;
        cur->compute_slices += c * m->compute_slices;
        cur->memory_slices += c * m->size;
        enum_rec(e, p + 1, cur, me + (is_me ? c : 0));
        cur->n_inst -= c;
        cur->compute_slices -= c * m->compute_slices;
        cur->memory_slices -= c * m->size;
    }
    cur->count[p] = 0;
}

/* Counts fit in 3 bits (max_instances <= 7), CAL_MAX_MIG * 3 <= 64. */
static uint64_t set_key(const struct gpu_profile *g, const int *count)
{
    uint64_t k = 0;
    for (int p = 0; p < g->n_mig; p++)
        k |= (uint64_t)count[p] << (3 * p);
    return k;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Largest profile first, then more of it first. */
static int cmp_sets(const struct gpu_profile *g, const int *rank, const struct mig_set *a,
                    const struct mig_set *b)
{
    for (int r = 0; r < g->n_mig; r++) {
        int p = rank[r];
        if (a->count[p] != b->count[p])
            return b->count[p] - a->count[p];
    }
    return 0;
}

/* Insertion sort: a GPU has about 130 legal sets, and qsort would need the
 * rank in a global (sweep workers run side by side). */
static void sort_sets(const struct gpu_profile *g, struct mig_set *s, int n)
{
    int rank[CAL_MAX_MIG];
    size_rank(g, rank);
    for (int i = 1; i < n; i++) {
        struct mig_set t = s[i];
        int j = i;
        for (; j > 0 && cmp_sets(g, rank, &s[j - 1], &t) > 0; j--)
            s[j] = s[j - 1];
        s[j] = t;
    }
}

int mig_layouts(const struct gpu_profile *g, struct mig_set **out)
{
    SS_ASSERT(g->n_mig <= CAL_MAX_MIG && 3 * CAL_MAX_MIG <= 64);
    struct enum_ctx e = {.g = g};
    struct mig_set cur;
    memset(&cur, 0, sizeof cur);
    enum_rec(&e, 0, &cur, 0);
    uint64_t *keys = ss_xmalloc(sizeof *keys * (size_t)(e.n ? e.n : 1));
    for (int i = 0; i < e.n; i++)
        keys[i] = set_key(g, e.sets[i].count);
    qsort(keys, (size_t)e.n, sizeof *keys, cmp_u64);
    for (int i = 0; i < e.n; i++) {
        e.sets[i].maximal = 1;
        for (int p = 0; p < g->n_mig && e.sets[i].maximal; p++) {
            uint64_t k = set_key(g, e.sets[i].count) + ((uint64_t)1 << (3 * p));
            if (e.sets[i].count[p] < 7 && bsearch(&k, keys, (size_t)e.n, sizeof k, cmp_u64))
                e.sets[i].maximal = 0;
        }
    }
    free(keys);
    sort_sets(g, e.sets, e.n);
    *out = e.sets;
    return e.n;
}
