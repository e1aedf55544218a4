/*
 * tenant — a tenant's request stream: arrival process and work distribution.
 *
 * Each tenant owns one GSL RNG stream (gsl_rng_mt19937) seeded from the scenario
 * seed, the tenant's index and the replication number. Every arrival draws its
 * gap and then its work from that stream, in that order, at the moment the
 * arrival is scheduled — independent of what any strategy does — so all
 * strategies of a run see exactly the same arrivals and work (common random
 * numbers), and adding a tenant does not change the others' streams.
 */
#ifndef SS_TENANT_H
#define SS_TENANT_H

#include "engine.h"

/* Seeds and prepares a tenant's run-time state. */
void ten_init(struct tenant_rt *t, const struct tenant_cfg *cfg, const char *scenario_dir,
              uint64_t seed, int index, int rep);
void ten_free(struct tenant_rt *t);

/*
 * Draws the tenant's next arrival after `now`: returns 1 with *t_next and *work,
 * or 0 when the stream has ended (a trace's last row, or its limit).
 */
int ten_next(struct tenant_rt *t, double now, double *t_next, double *work);

/* Work of one request (for saturated tenants, which have no arrival process). */
double ten_draw_work(struct tenant_rt *t);

/* Mean arrival rate (per s) and mean work (s) implied by the configuration;
 * NaN where not known in advance (traces). Used by the analytic pre-checks. */
double ten_mean_rate(const struct tenant_cfg *cfg);
double ten_mean_work(const struct tenant_cfg *cfg);
/* Squared coefficient of variation of work and of inter-arrival times (NaN if unknown). */
double ten_work_scv(const struct tenant_cfg *cfg);
double ten_arrival_scv(const struct tenant_cfg *cfg);

/* 64-bit mixing (splitmix64) for deriving independent stream seeds. */
uint64_t ten_mix(uint64_t x);

#endif
