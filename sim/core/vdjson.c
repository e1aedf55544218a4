/*
 * vdjson — see vdjson.h.
 */
#include "core/vdjson.h"
#include "core/metric.h"
#include "core/rdoc.h"
#include "core/verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double vj_sla_ms(const struct scenario *sc, const cJSON *doc, const char *tenant, const char *key)
{
    if (!sc)
        return NAN;
    int i = scn_tenant_index(sc, tenant);
    if (i < 0)
        return NAN;
    /* A sweep point that sets this SLA: its own value. */
    char path[128];
    snprintf(path, sizeof path, "tenants.%d.sla.%s", i, key);
    const cJSON *params = rd_sweep_params(doc);
    const cJSON *v = params ? cJSON_GetObjectItemCaseSensitive(params, path) : NULL;
    if (cJSON_IsNumber(v))
        return v->valuedouble > 0 ? v->valuedouble : NAN;
    if (strcmp(key, "p99_ms") == 0)
        return sc->tenants[i].sla_p99_s > 0 ? sc->tenants[i].sla_p99_s * 1e3 : NAN;
    snprintf(path, sizeof path, "sla.%s", key);
    double x = mt_path_num(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sc->json, "tenants"), i), path);
    return x > 0 ? x : NAN;
}

/* The verdict is core/verdict.h's on each tenant object as read back, so a page says what
 * `run --check-sla` said of the same result. */
void vj_judge_strategy(const struct scenario *sc, const cJSON *doc, const cJSON *strategy,
                       struct vj_strategy *j)
{
    memset(j, 0, sizeof *j);
    j->worst_ratio = NAN;
    j->worst_p99_ms = NAN;
    j->meets = 1;
    const cJSON *t;
    RD_EACH_TENANT(t, strategy)
    {
        double p99 = rd_fig(t, MT_TENANT, TM_LAT_P99);
        if (isfinite(p99) && !(p99 <= j->worst_p99_ms))
            j->worst_p99_ms = p99;
        struct vd_verdict v;
        vd_judge_json(sc, doc, t, &v);
        j->n_sla += v.has_sla;
        if (!isnan(v.worst_ratio) && !(v.worst_ratio <= j->worst_ratio))
            j->worst_ratio = v.worst_ratio;
        if (v.meets)
            continue;
        j->meets = 0;
        j->lost_miss = v.lost_miss > j->lost_miss ? v.lost_miss : j->lost_miss;
        if (j->n_miss++ < 2) {
            size_t len = strlen(j->miss);
            snprintf(j->miss + len, sizeof j->miss - len, "%s%s: %s", len ? "; " : "", rd_name(t),
                     v.reason);
        }
    }
    if (j->n_miss > 2) {
        size_t len = strlen(j->miss);
        snprintf(j->miss + len, sizeof j->miss - len, "; %d more", j->n_miss - 2);
    }
}
