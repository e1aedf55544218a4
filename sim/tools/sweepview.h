/*
 * sweepview — what a finished sweep's directory holds (dir: its --out, g: its grid, base: the
 * scenario as given), shown.
 */
#ifndef SS_SWEEPVIEW_H
#define SS_SWEEPVIEW_H

#include "tools/sweep.h"

#include <cJSON.h>
#include <stdio.h>

/* The p99 of every point × strategy × tenant ("!" after an overloaded tenant's); then, when
 * the scenario has LLM services, their TTFT and TPOT p99. A point file that cannot be read is
 * left out (sweep.csv, checked when written, has every figure). */
void sw_print_tables(FILE *fp, const struct sw_grid *g, const char *dir,
                     const struct scenario *base);
/* {"points": [every point's JSON file, in point order]}, a new object; NULL with err filled
 * when a point file cannot be read or is not JSON. */
cJSON *sw_points_json(const struct sw_grid *g, const char *dir, char *err, size_t errlen);

#endif
