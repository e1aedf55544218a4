/*
 * report — renders a run_result as an aligned text table, JSON (the result
 * contract of docs/scenario.md) or CSV. Numbers are printed with 6 significant digits
 * so the output is byte-identical across machines whose libm differ in the last
 * bit, and NaN (not applicable) is printed as null / empty.
 */
#ifndef SS_REPORT_H
#define SS_REPORT_H

#include "core/metric.h"
#include "core/run.h"
#include "core/scenario.h"

#include <cJSON.h>
#include <stdio.h>

void rep_table(FILE *fp, const struct scenario *sc, const struct run_result *r);
cJSON *rep_json(const struct scenario *sc, const struct run_result *r);
void rep_csv(FILE *fp, const struct scenario *sc, const struct run_result *r);
/* The figures of one level of the metric table (core/metric.h) for tenant i of s into obj, at
 * their paths (ci: their half-widths at their _ci95 paths, for those that have one);
 * replicated: s is a mean over replications. */
void rep_json_level(cJSON *obj, enum mt_level level, const struct strategy_result *s, int i, int ci,
                    int replicated);

/*
 * `--check-sla` of run and compare: the (strategy, tenant) pairs whose tenant misses its SLA
 * by core/verdict.h's rule, each as one line `CMD: SLA missed: strategy "S", tenant "T":
 * REASON` on fp. Returns how many.
 */
int rep_sla_misses(FILE *fp, const char *cmd, const struct scenario *sc,
                   const struct run_result *r);
/* One `CMD: warning: …` line on fp per overloaded (strategy, tenant) (core/stable.h): what it
 * offers, what its share serves. Returns how many. */
int rep_warn_unstable(FILE *fp, const char *cmd, const struct scenario *sc,
                      const struct run_result *r);

#endif
