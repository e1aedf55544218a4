/*
 * plancand — candidate list and the pre-filter's view of tenants (see plancand.h).
 */
#include "core/plancand.h"
#include "core/tenant.h"
#include "base/util.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct plan_cand *pc_add(struct plan_ctx *x, const char *kind, int gpus, cJSON *strategy,
                         const char *fmt, ...)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 32;
        x->c = ss_xrealloc(x->c, (size_t)x->cap * sizeof *x->c);
    }
    struct plan_cand *c = &x->c[x->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->kind, sizeof c->kind, "%s", kind);
    c->gpus = gpus;
    c->strategy = strategy;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->label, sizeof c->label, fmt, ap);
    va_end(ap);
    const struct scenario *sc = x->sc;
    c->cost_per_hour = sc->gpu_hour_usd >= 0 ? gpus * sc->gpu_hour_usd : NAN;
    c->cost_per_mreq = NAN;
    c->worst_margin = c->worst_ratio = NAN;
    c->free_gpus = NAN;
    c->headroom_lo = c->headroom_hi = NAN;
    return c;
}

cJSON *pc_strategy(const char *name, const char *kind)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "kind", kind);
    return o;
}

double pc_load(const struct tenant_cfg *t)
{
    double l = ten_mean_rate(t) * ten_mean_work(t);
    return isfinite(l) ? l : 0;
}

double pc_work_p99_s(const struct tenant_cfg *t)
{
    const struct work_cfg *w = &t->work;
    switch (w->kind) {
    case WORK_EXPONENTIAL:
        return gsl_cdf_exponential_Pinv(0.99, w->mean_s);
    case WORK_DETERMINISTIC:
        return w->mean_s;
    case WORK_LOGNORMAL: {
        double s2 = log1p(w->cv * w->cv);
        return gsl_cdf_lognormal_Pinv(0.99, log(w->mean_s) - 0.5 * s2, sqrt(s2));
    }
    default:
        return 0;
    }
}

int pc_sla_below_work(const struct scenario *sc, double speed, char *why, size_t n)
{
    for (int i = 0; i < sc->n_tenants; i++) {
        const struct tenant_cfg *t = &sc->tenants[i];
        double p = pc_work_p99_s(t) / speed;
        if (t->sla_p99_s > 0 && p > t->sla_p99_s) {
            snprintf(why, n, "%s: the work alone has p99 %.3g ms > SLA %.3g ms", t->name, p * 1e3,
                     t->sla_p99_s * 1e3);
            return 1;
        }
    }
    return 0;
}

double pc_min_sla_s(const struct scenario *sc)
{
    double min_sla = INFINITY;
    for (int i = 0; i < sc->n_tenants; i++)
        if (sc->tenants[i].sla_p99_s > 0 && sc->tenants[i].sla_p99_s < min_sla)
            min_sla = sc->tenants[i].sla_p99_s;
    return min_sla;
}

void pc_free_cand(struct plan_cand *c)
{
    cJSON_Delete(c->strategy);
    cJSON_Delete(c->placements);
    cJSON_Delete(c->general);
    free(c->p99_s);
    free(c->missed);
    free(c->ttft_s);
    free(c->tpot_s);
    free(c->thr_per_s);
    free(c->tp);
    free(c->engines);
    free(c->kv_tokens);
    free(c->preemptions);
    c->tp = c->engines = NULL;
    c->kv_tokens = NULL;
    c->preemptions = NULL;
    c->strategy = c->placements = c->general = NULL;
    c->p99_s = c->ttft_s = c->tpot_s = c->thr_per_s = NULL;
    c->missed = NULL;
}

/*
 * Placements are restricted growth strings (RGS) enumerated in lexicographic order, stepping
 * straight from one valid string to the next: the strings that break the per-GPU limit are
 * never visited (walking all RGS and filtering them costs Bell(T) steps, 4.2 million at 12
 * tenants, and never reaches the first valid one at a few hundred). Each call is O(T + G) in
 * time and memory, whatever T: a GPU's count and the prefix maxima are rebuilt from gpu_of.
 *
 * Every tenant placed takes one of the G × r slots, so a valid prefix always extends to a
 * valid whole iff T <= G × r; the smallest extension fills the lowest GPU with room first.
 */
struct rgs_work {
    int *cnt;  /* tenants on each GPU, over the prefix being kept */
    int *pmax; /* pmax[i]: GPUs used by gpu_of[0..i) (the index a new GPU gets at i) */
};

static int rgs_alloc(int T, int G, struct rgs_work *w)
{
    int nb = G < T ? G : T;
    w->cnt = ss_xcalloc((size_t)nb + (size_t)T + 1, sizeof *w->cnt);
    w->pmax = w->cnt + nb;
    return nb;
}

/* Fills gpu_of[from..T) with the smallest valid completion of the prefix counted in w->cnt
 * (used GPUs in use): the lowest GPU with room, else a new one. The caller checked T <= G × r. */
static void rgs_fill(int T, int r, int *gpu_of, int from, int used, struct rgs_work *w)
{
    int low = 0;
    for (int k = from; k < T; k++) {
        while (low < used && w->cnt[low] >= r)
            low++;
        int g = low < used ? low : used++;
        gpu_of[k] = g;
        w->cnt[g]++;
    }
}

static int placements_exist(int T, int G, int r)
{
    return T >= 1 && G >= 1 && r >= 1 && (long long)G * r >= T;
}

int pc_placement_first(int T, int G, int r, int *gpu_of)
{
    if (!placements_exist(T, G, r))
        return 0;
    struct rgs_work w;
    rgs_alloc(T, G, &w);
    rgs_fill(T, r, gpu_of, 0, 0, &w);
    free(w.cnt);
    return 1;
}

int pc_placement_next(int T, int G, int r, int *gpu_of)
{
    if (!placements_exist(T, G, r))
        return 0;
    struct rgs_work w;
    int nb = rgs_alloc(T, G, &w);
    int used = 0;
    for (int i = 0; i < T; i++) {
        SS_ASSERT(gpu_of[i] >= 0 && gpu_of[i] <= used && gpu_of[i] < nb);
        w.pmax[i] = used;
        w.cnt[gpu_of[i]]++;
        used += gpu_of[i] == used;
    }
    /* The last position that can take a larger GPU, given its prefix, is the one to step. */
    int found = 0;
    for (int i = T - 1; i > 0 && !found; i--) {
        w.cnt[gpu_of[i]]--;
        int top = w.pmax[i] < G - 1 ? w.pmax[i] : G - 1; /* pmax[i]: a new GPU */
        for (int g = gpu_of[i] + 1; g <= top; g++)
            if (g == w.pmax[i] || w.cnt[g] < r) {
                gpu_of[i] = g;
                w.cnt[g]++;
                int u = w.pmax[i] + (g == w.pmax[i]);
                rgs_fill(T, r, gpu_of, i + 1, u, &w);
                found = 1;
                break;
            }
    }
    free(w.cnt);
    return found;
}

long pc_placement_count(int T, int G, int r, long limit)
{
    int *g = ss_xcalloc((size_t)T, sizeof *g);
    long n = 0;
    for (int ok = pc_placement_first(T, G, r, g); ok && n <= limit;
         ok = pc_placement_next(T, G, r, g))
        n++;
    free(g);
    return n;
}
