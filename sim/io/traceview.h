/*
 * traceview — the summary of a trace (struct trs_summary) as text and as JSON; docs/traces.md
 * lists the fields. path is the trace as named, o the options it was read with.
 */
#ifndef SS_TRACEVIEW_H
#define SS_TRACEVIEW_H

#include "io/tracestats.h"

#include <cJSON.h>
#include <stdio.h>

void trs_print(FILE *fp, const char *path, const struct tr_opts *o, const struct trs_summary *s);
/* A new object: trace, format, time_scale, limit, count, span and rate, interarrival_s, the
 * token counts and work_ms when the trace has them, pods for openb. */
cJSON *trs_json(const char *path, const struct tr_opts *o, const struct trs_summary *s);

#endif
