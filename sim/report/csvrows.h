/*
 * csvrows — an array of JSON objects as CSV, so that every command whose result has rows
 * gets `--csv` from the same objects its `--json` prints, with the same names and values
 * (docs/cli.md). One row per object; the columns are the keys in order of first appearance
 * over all rows, nested objects flattened as `parent.child`, arrays of scalars joined with
 * ";"; arrays of objects and the keys in `skip` (NULL-terminated, may be NULL) are left out.
 * Numbers as the JSON has them (6 significant digits), booleans true/false, null empty;
 * text is quoted when it holds a comma, a quote or a line break (RFC 4180).
 */
#ifndef SS_CSVROWS_H
#define SS_CSVROWS_H

#include <cJSON.h>
#include <stdio.h>

void csv_rows(FILE *fp, const cJSON *rows, const char *const *skip);

#endif
