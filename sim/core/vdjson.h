/*
 * vdjson — core/verdict.h's rule applied to a result read back (core/rdoc.h), for the pages:
 * the SLA a tenant is judged by at a sweep point, and one strategy's tenants judged
 * together, with the first misses in words. Prefix vj_.
 */
#ifndef SS_VDJSON_H
#define SS_VDJSON_H

#include "core/scenario.h"

#include <cJSON.h>

/* The SLA (ms) of a tenant for an "sla" key ("p99_ms", "ttft_p99_ms", …): from the point's
 * own swept value when doc is a sweep point that sets it, else the scenario's; NaN: none. */
double vj_sla_ms(const struct scenario *sc, const cJSON *doc, const char *tenant, const char *key);

/* One strategy of a result under core/verdict.h's rule, tenant by tenant. */
struct vj_strategy {
    int meets; /* every tenant with an SLA meets it (docs/scenario.md#the-verdict) */
    int n_sla; /* tenants with an SLA */
    int n_miss;
    char miss[360];      /* "chat: p99 80.2 ms > 50 ms; …" (the first two, then "; N more") */
    double worst_ratio;  /* max over tenants with an SLA of their verdict's worst ratio */
    double lost_miss;    /* the largest fraction of lost requests a tenant may not lose */
    double worst_p99_ms; /* max over tenants */
};
void vj_judge_strategy(const struct scenario *sc, const cJSON *doc, const cJSON *strategy,
                       struct vj_strategy *j);

#endif
