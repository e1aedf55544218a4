/*
 * cdf — the CSV of `sharesim run --cdf FILE`: the quantiles core/cdfrun.h collected.
 */
#ifndef SS_CDF_H
#define SS_CDF_H

#include "core/cdfrun.h"
#include "core/scenario.h"

#include <stdio.h>

/* CSV: strategy,tenant,p,latency_ms — one line per (strategy, row, probability). */
void cdf_write_csv(FILE *fp, const struct scenario *sc, const struct cdf_result *r);

#endif
