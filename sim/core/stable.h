/*
 * stable — does a tenant's share keep up with what the tenant offers? (docs/scenario.md,
 * "Stability"). A tenant is unstable when its offered load — mean arrival rate × mean work, in
 * whole-GPU seconds of work per second — is not below the capacity of the share its strategy
 * gives it, which the strategy's policy computes from its model (policy_ops.capacity): its
 * queue then grows for as long as arrivals last, and every latency figure grows with the run
 * length instead of converging. The rule is the model's, not the run's outcome, so it does not
 * depend on the seed or on how long the run was, and it holds for the short runs in which an
 * overload looks only like a large p99.
 */
#ifndef SS_STABLE_H
#define SS_STABLE_H

#include "core/run.h"
#include "core/scenario.h"

/* Offered load of a tenant in whole-GPU Erlangs (rate × work); +INFINITY for a saturated
 * tenant (always has work); NaN when the rate or the work is not known in advance. */
double stab_offered(const struct tenant_cfg *t);

/*
 * Weighted max-min fair share (processor sharing by weights, which round robin with slices
 * proportional to the weights approximates): the part of `supply` that member i gets when its
 * own demand is unbounded and every other member j asks for demand[j] (same unit as supply;
 * +INFINITY allowed) with weight w[j] (w NULL: all equal). NaN if a demand is NaN.
 */
double stab_fair_share(int n, const double *demand, const double *w, int i, double supply);

/* Fills r->load and r->capacity (allocated here, per tenant) for strategy st: the policy's
 * capacities, times the fraction of the time card faults leave the GPUs up. */
void stab_fill(const struct scenario *sc, const struct strategy_cfg *st, struct strategy_result *r);

/* 1 stable, 0 unstable, -1 unknown (no capacity model, or the load is not known). */
int stab_state(const struct strategy_result *r, int tenant);

#endif
