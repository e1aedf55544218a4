/*
 * profview — a profile document (profile.h) shown as a table, and the changes between two
 * (prof_diff) as a table, a JSON document and CSV rows. width is the table's width in
 * columns; long text wraps to it (base/textcol.h). docs/calibration.md shows both tables.
 */
#ifndef SS_PROFVIEW_H
#define SS_PROFVIEW_H

#include "calib/profile.h"

#include <cJSON.h>
#include <stdio.h>

/* The header (name, device, file, driver, date, aliases, notes), then one row per value;
 * values too wide for their column (lists, the MIG table) follow the table. */
void prof_print_show(FILE *fp, const cJSON *doc, const char *path, int width);
/* One row per change: key, A, B (clipped to fit) and the relative change, "added" or
 * "removed". */
void prof_print_diff(FILE *fp, const struct prof_change *ch, size_t n, int width);
/* {"a": pa, "b": pb, "changes": [{"key", "a", "b", "relative_change"}, …]}, a new object. */
cJSON *prof_diff_json(const char *pa, const char *pb, const struct prof_change *ch, size_t n);
/* The changes as an array for CSV rows, a list or object value replaced by its JSON text. */
cJSON *prof_diff_rows(const char *pa, const char *pb, const struct prof_change *ch, size_t n);

#endif
