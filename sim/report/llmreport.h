/*
 * llmreport — an LLM tenant's token figures (core/llmstats.h) in the run's outputs
 * (docs/llm.md#results): an "llm" object in its JSON tenant entry, columns after `stable` in
 * the CSV of a scenario that has an LLM tenant, one line under its row in the table, and its
 * TTFT and TPOT SLAs under --check-sla. A scenario without an LLM tenant prints exactly what
 * it printed before.
 */
#ifndef SS_LLMREPORT_H
#define SS_LLMREPORT_H

#include "core/run.h"
#include "core/scenario.h"

#include <cJSON.h>
#include <stdio.h>

/* Adds "llm": {…} to tenant i's object t (nothing when i is not an LLM tenant). */
void lrep_json(cJSON *t, const struct scenario *sc, const struct strategy_result *s, int i,
               int with_ci);
/* The CSV's extra header columns (",name…") and one row's values; nothing without LLM figures. */
void lrep_csv_head(FILE *fp, const struct strategy_result *s);
void lrep_csv_row(FILE *fp, const struct strategy_result *s, int i);
/* The table's line under tenant i's row, indented by `indent` columns; nothing for others. */
void lrep_table_line(FILE *fp, const struct scenario *sc, const struct strategy_result *s, int i,
                     int indent);

#endif
