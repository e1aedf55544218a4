/*
 * compare — the comparison behind `sharesim compare`, from one run of a scenario: per tenant,
 * each strategy's figures in the metric table's `compare` columns (core/metric.h) plus the p99
 * slowdown against a baseline strategy, the best of each column marked (a cost's mark goes to
 * the cheapest strategy that meets every SLA, core/verdict.h) and the tenant's verdict; per
 * strategy, what dominated its plain tenants' latency (queueing, service, or what sharing
 * added, as the policy's label hook names it); and the cheapest strategy that meets every SLA.
 * base is the index of the baseline strategy; r keeps the scenario's strategy order.
 */
#ifndef SS_COMPARE_H
#define SS_COMPARE_H

#include "core/run.h"
#include "core/scenario.h"

#include <cJSON.h>
#include <stdio.h>

/* The tables for people: the header, one table per tenant, the latency lines, the cheapest. */
void cmp_print(FILE *fp, const struct scenario *sc, const struct run_result *r, int base);
/* One row per tenant × strategy, in the tables' order (--csv; "rows" of the JSON). */
cJSON *cmp_rows(const struct scenario *sc, const struct run_result *r, int base);
/* The whole comparison: scenario, GPU, seed, baseline, rows, cheapest_meeting_sla, latency. */
cJSON *cmp_json(const struct scenario *sc, const struct run_result *r, int base);

#endif
