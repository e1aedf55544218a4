/*
 * llmreport — an LLM tenant's token figures (core/llmstats.h) in the run's outputs
 * (docs/llm.md#results): an "llm" object in its JSON tenant entry (the metric table's MT_LLM
 * figures, core/metric.h, which also give the CSV's columns after `stable`), one line under
 * its row in the table, and its
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
/* The table's line under tenant i's row, indented by `indent` columns; nothing for others. */
void lrep_table_line(FILE *fp, const struct scenario *sc, const struct strategy_result *s, int i,
                     int indent);

#endif
