/*
 * studies — the reference table (core/studyix.h computes its rows) as JSON, CSV and
 * Markdown.
 */
#ifndef SS_STUDIES_H
#define SS_STUDIES_H

#include "core/studyix.h"

#include <cJSON.h>
#include <stdio.h>

/* The reference table as JSON ({"rows": […]}), CSV and Markdown. */
cJSON *sd_reference_json(const struct sd_study *st, const struct sd_ref_row *rows);
void sd_reference_csv(FILE *fp, const struct sd_study *st, const struct sd_ref_row *rows);
void sd_reference_md(FILE *fp, const struct sd_study *st, const struct sd_ref_row *rows,
                     cJSON *const *docs);

#endif
