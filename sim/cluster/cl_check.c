/*
 * cl_check — is an experiment's JSON object (cl_report_json; cl_result_check in cl_scenario.h) one
 * that an experiment could have produced? A merge (`cluster --merge`) takes experiments from
 * partial files that someone else wrote; their bytes passed a hash, and this checks what they say:
 * the experiment is the one its index names, the counts are non-negative integers that add up
 * (arrived = placed + failed + pending, at the end and at every sample), every percentage is
 * null (undefined) or a finite number in [0, 100], samples are in time order and no more
 * than CL_MAX_SAMPLES. Not a recomputation: a consistent forgery passes, an impossible figure
 * does not.
 */
#include "base/util.h"
#include "cluster/cl_report.h"
#include "cluster/cl_scenario.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct chk {
    char *why;
    size_t n;
};

static int bad(struct chk *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, c->n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A count: a present integer in [0, max]. */
static int count(struct chk *c, const cJSON *o, const char *where, const char *key, double max,
                 double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        return bad(c, "%s\"%s\" is %s, expected a count", where, key,
                   v ? "not a number" : "missing");
    double x = v->valuedouble;
    if (!isfinite(x) || x != floor(x) || x < 0 || x > max)
        return bad(c, "%s\"%s\" %.17g is not a count in [0, %.0f]", where, key, x, max);
    *out = x;
    return 0;
}

/* A percentage: null (undefined), absent when optional, or a finite number in [lo, hi]. */
static int pct(struct chk *c, const cJSON *o, const char *where, const char *key, int required,
               double lo, double hi)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v && !required)
        return 0;
    if (!v)
        return bad(c, "%s\"%s\" is missing", where, key);
    if (cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v))
        return bad(c, "%s\"%s\" is not a number or null", where, key);
    double x = v->valuedouble;
    /* 6 significant digits: allow the rounding of the bound itself */
    if (!isfinite(x) || x < lo - 1e-9 || x > hi * (1 + 1e-6))
        return bad(c, "%s\"%s\" %.17g is outside [%g, %g]", where, key, x, lo, hi);
    return 0;
}

static int check_columns(struct chk *c, const cJSON *o, int n_cols)
{
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(o, "per_arrived_pct");
    static const char *const series[] = {"alloc_ratio", "frag_pct", "frag_ratio"};
    if (!cJSON_IsObject(cols))
        return bad(c, "\"per_arrived_pct\" is missing");
    for (int k = 0; k < 3; k++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(cols, series[k]);
        if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n_cols)
            return bad(c, "\"per_arrived_pct.%s\" is not an array of %d columns", series[k],
                       n_cols);
        int i = 0;
        for (const cJSON *v = a->child; v; v = v->next, i++)
            if (!cJSON_IsNull(v) && !(cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
                                      v->valuedouble >= 0 && v->valuedouble <= 100 * (1 + 1e-6)))
                return bad(c, "\"per_arrived_pct.%s[%d]\" is not null or a percentage in [0, 100]",
                           series[k], i);
    }
    return 0;
}

static int check_samples(struct chk *c, const cJSON *o, double pods)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "samples");
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
        return bad(c, "\"samples\" is not a non-empty array");
    if (cJSON_GetArraySize(a) > CL_MAX_SAMPLES)
        return bad(c, "%d samples, more than %d (CL_MAX_SAMPLES)", cJSON_GetArraySize(a),
                   CL_MAX_SAMPLES);
    double prev = 0;
    int i = 0;
    for (const cJSON *r = a->child; r; r = r->next, i++) {
        char where[48];
        snprintf(where, sizeof where, "samples[%d]: ", i);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "t_s");
        if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || t->valuedouble < prev)
            return bad(c, "%s\"t_s\" is not a finite time at or after the previous sample's",
                       where);
        prev = t->valuedouble;
        double ar, pl, fa, pe, ru;
        if (count(c, r, where, "arrived", pods, &ar) || count(c, r, where, "placed", pods, &pl) ||
            count(c, r, where, "failed", pods, &fa) || count(c, r, where, "pending", pods, &pe) ||
            count(c, r, where, "running", pods, &ru))
            return -1;
        if (ar != pl + fa + pe)
            return bad(c, "%sarrived %.0f is not placed %.0f + failed %.0f + pending %.0f", where,
                       ar, pl, fa, pe);
        if (ru > pl)
            return bad(c, "%srunning %.0f is more than placed %.0f", where, ru, pl);
        if (pct(c, r, where, "alloc_ratio", 1, 0, 100) || pct(c, r, where, "frag_pct", 1, 0, 100) ||
            pct(c, r, where, "frag_ratio", 1, 0, 100))
            return -1;
    }
    return 0;
}

int cl_result_check(const struct cl_scenario *s, long idx, const char *json, size_t len, char *why,
                    size_t whylen)
{
    struct chk c = {why, whylen};
    cJSON *o = cJSON_ParseWithLength(json, len);
    int rc = -1;
    if (!cJSON_IsObject(o)) {
        bad(&c, "not a JSON object (damaged, or not an experiment's result)");
        goto out;
    }
    const struct cl_policy *pol = s->policy[idx / s->n_seeds];
    long long seed = s->seed[idx % s->n_seeds];
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "policy");
    const cJSON *sd = cJSON_GetObjectItemCaseSensitive(o, "seed");
    if (!cJSON_IsString(p) || strcmp(p->valuestring, pol->name) != 0 || !cJSON_IsNumber(sd) ||
        sd->valuedouble != (double)seed) {
        bad(&c, "holds %s%s%s seed %s, expected policy \"%s\" seed %lld",
            cJSON_IsString(p) ? "\"" : "", cJSON_IsString(p) ? p->valuestring : "no policy",
            cJSON_IsString(p) ? "\"" : "", cJSON_IsNumber(sd) ? "given" : "missing", pol->name,
            seed);
        goto out;
    }
    double max_pods = s->mode == CL_INFLATE ? CL_MAX_INFLATED_PODS : s->work.n;
    double pods, ar, pl, fa, pe, mem;
    if (count(&c, o, "", "pods", max_pods, &pods) || count(&c, o, "", "arrived", pods, &ar) ||
        count(&c, o, "", "placed", pods, &pl) || count(&c, o, "", "failed", pods, &fa) ||
        count(&c, o, "", "pending", pods, &pe) || count(&c, o, "", "mem_bytes", 1e18, &mem))
        goto out;
    if (ar != pl + fa + pe) {
        bad(&c, "arrived %.0f is not placed %.0f + failed %.0f + pending %.0f", ar, pl, fa, pe);
        goto out;
    }
    if (ar != pods) {
        bad(&c, "arrived %.0f of %.0f pods: every pod arrives by the end", ar, pods);
        goto out;
    }
    if (s->mode == CL_REPLAY && pods != s->work.n) {
        bad(&c, "%.0f pods, the replayed trace has %d", pods, s->work.n);
        goto out;
    }
    if (pct(&c, o, "", "alloc_ratio_final", 0, 0, 100) ||
        pct(&c, o, "", "frag_pct_final", 0, 0, 100) ||
        pct(&c, o, "", "frag_ratio_final", 0, 0, 100) ||
        pct(&c, o, "", "frag_threshold", 1, 0, 1) || pct(&c, o, "", "wait_mean_s", 0, 0, 1e300) ||
        pct(&c, o, "", "wait_max_s", 0, 0, 1e300))
        goto out;
    if (s->mode == CL_INFLATE) {
        int n_cols = (int)nearbyint(s->tune * 100) + 1;
        if (pct(&c, o, "", "alloc_ratio_at_100", 1, 0, 100) ||
            pct(&c, o, "", "frag_ratio_at_100", 1, 0, 100) ||
            pct(&c, o, "", "frag_over_threshold_at_arrived_pct", 1, 0, 1e300) ||
            check_columns(&c, o, n_cols))
            goto out;
    } else if (pct(&c, o, "", "frag_over_threshold_at_s", 1, 0, 1e300) ||
               check_samples(&c, o, pods)) {
        goto out;
    }
    rc = 0;
out:
    cJSON_Delete(o);
    return rc;
}
