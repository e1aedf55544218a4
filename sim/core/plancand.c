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
    free(c->p99_s);
    free(c->missed);
    free(c->ttft_s);
    free(c->tpot_s);
    free(c->thr_per_s);
    c->strategy = c->placements = NULL;
    c->p99_s = c->ttft_s = c->tpot_s = c->thr_per_s = NULL;
    c->missed = NULL;
}

/* Whether gpu_of[0..T) is a restricted growth string within G blocks of at most r. */
static int placement_ok(int T, int G, int r, const int *gpu_of)
{
    int cnt[64] = {0}, used = 0;
    for (int i = 0; i < T; i++) {
        if (gpu_of[i] > used || gpu_of[i] >= G || ++cnt[gpu_of[i]] > r)
            return 0;
        used += gpu_of[i] == used;
    }
    return 1;
}

/* Steps gpu_of to the next restricted growth string (ignoring the limits); 0 after the last. */
static int rgs_next(int T, int G, int *gpu_of)
{
    for (int i = T - 1; i > 0; i--) {
        int max = 0;
        for (int k = 0; k < i; k++)
            max = gpu_of[k] + 1 > max ? gpu_of[k] + 1 : max;
        if (gpu_of[i] < max && gpu_of[i] + 1 < G) {
            gpu_of[i]++;
            for (int k = i + 1; k < T; k++)
                gpu_of[k] = 0;
            return 1;
        }
    }
    return 0;
}

int pc_placement_next(int T, int G, int r, int *gpu_of)
{
    SS_ASSERT(T >= 1 && T <= 64 && G >= 1);
    while (rgs_next(T, G, gpu_of))
        if (placement_ok(T, G, r, gpu_of))
            return 1;
    return 0;
}

int pc_placement_first(int T, int G, int r, int *gpu_of)
{
    for (int i = 0; i < T; i++)
        gpu_of[i] = 0;
    return placement_ok(T, G, r, gpu_of) || pc_placement_next(T, G, r, gpu_of);
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
