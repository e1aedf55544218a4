/*
 * vrange — the stated range of a calibration value: {"value": x, "range": [lo, hi], …} in a GPU
 * profile (calib.h). A range says how far the value may be off by its own sources (or by the
 * stated rule of docs/calibration.md#ranges where they give none); the planner reruns its
 * answer at both ends (tools/plansens.h). Optional on every value; only a number may have one.
 */
#ifndef SS_VRANGE_H
#define SS_VRANGE_H

#include <cJSON.h>
#include <stddef.h>

/* The range of value object vo, named key in file path (for the message): 0 with *lo, *hi; 1 when
 * it has none; -1 with err when "range" is not [lo, hi] of finite numbers, lo <= value <= hi,
 * or the value is no number. */
int vr_parse(const char *path, const char *key, const cJSON *vo, double *lo, double *hi, char *err,
             size_t errlen);

#endif
