/*
 * tokens — token-count distributions (tokens.h).
 */
#include "llm/tokens.h"

#include "base/util.h"

#include <math.h>

int ltk_parse(const struct jv *j, const cJSON *obj, const char *path, struct ltk_dist *d)
{
    static const char *const dists[] = {"deterministic", "exponential", "lognormal", "uniform",
                                        NULL};
    int k;
    if (!cJSON_IsObject(obj))
        return jv_fail(j, path, "expected an object {\"dist\": …}");
    if (jv_enum(j, obj, path, "dist", 1, dists, &k))
        return -1;
    *d = (struct ltk_dist){.kind = (enum ltk_kind)k};
    switch (d->kind) {
    case LTK_DETERMINISTIC: {
        static const char *const keys[] = {"dist", "tokens", NULL};
        long n;
        if (jv_object(j, obj, path, keys) || jv_int(j, obj, path, "tokens", 1, 1, 10000000, &n))
            return -1;
        d->mean = (double)n;
        return 0;
    }
    case LTK_EXPONENTIAL: {
        static const char *const keys[] = {"dist", "mean", NULL};
        return jv_object(j, obj, path, keys) || jv_num(j, obj, path, "mean", 1, 1, 1e7, &d->mean)
                   ? -1
                   : 0;
    }
    case LTK_LOGNORMAL: {
        static const char *const keys[] = {"dist", "mean", "cv", NULL};
        if (jv_object(j, obj, path, keys) || jv_num(j, obj, path, "mean", 1, 1, 1e7, &d->mean) ||
            jv_num_gt(j, obj, path, "cv", 1, 0, 100, &d->cv))
            return -1;
        double s2 = log1p(d->cv * d->cv);
        d->sigma = sqrt(s2);
        d->mu = log(d->mean) - 0.5 * s2;
        return 0;
    }
    case LTK_UNIFORM: {
        static const char *const keys[] = {"dist", "min", "max", NULL};
        char p[512];
        if (jv_object(j, obj, path, keys) || jv_int(j, obj, path, "min", 1, 1, 10000000, &d->lo) ||
            jv_int(j, obj, path, "max", 1, 1, 10000000, &d->hi))
            return -1;
        if (d->hi < d->lo)
            return jv_fail(j, jv_path_key(p, sizeof p, path, "max"),
                           "expected a number >= min (%ld), got %ld", d->lo, d->hi);
        d->mean = 0.5 * (double)(d->lo + d->hi);
        return 0;
    }
    }
    SS_FATAL("unhandled token distribution %d", k);
}

static long at_least_one(double x)
{
    double r = nearbyint(x);
    return r < 1 ? 1 : r > 1e9 ? 1000000000L : (long)r;
}

long ltk_draw(const struct ltk_dist *d, struct rng *r)
{
    switch (d->kind) {
    case LTK_DETERMINISTIC:
        return (long)d->mean;
    case LTK_EXPONENTIAL:
        return at_least_one(d->mean * rng_exp1(r));
    case LTK_LOGNORMAL: {
        /* Box–Muller from two uniforms of the tenant's own stream. */
        double u1 = rng_uniform_pos(r), u2 = rng_uniform(r);
        double z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
        return at_least_one(exp(d->mu + d->sigma * z));
    }
    case LTK_UNIFORM:
        return d->lo + (long)(rng_uniform(r) * (double)(d->hi - d->lo + 1));
    }
    SS_FATAL("unhandled token distribution %d", (int)d->kind);
}

double ltk_mean(const struct ltk_dist *d)
{
    return d->mean;
}
