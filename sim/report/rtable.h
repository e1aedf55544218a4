/*
 * rtable — tables from a result document (the JSON of `sharesim run --json`,
 * docs/scenario.md): Markdown for results/, per-strategy summary rows (CSV or
 * Markdown) for load sweeps and tenants-per-GPU plots, and the MIG layout
 * occupancy of `details.gpus[].instances[]`.
 *
 * Invariants: everything printed comes from the document (no re-simulation), so
 * the same JSON always gives the same bytes; numbers are printed with fixed
 * decimals from values that were already rounded to 6 significant digits; a
 * null (not applicable) prints as "-" in Markdown and as an empty CSV field.
 */
#ifndef SS_RTABLE_H
#define SS_RTABLE_H

#include "calib/calib.h"

#include <cJSON.h>
#include <stddef.h>
#include <stdio.h>

/* A number member of a document that is no result (a plan, a cluster run; a result is read
 * through core/rdoc.h): NaN when missing or null. */
double rt_num(const cJSON *obj, const char *key);

/* What goes above a result's tables; every string may be NULL. */
struct rt_head {
    const char *title;       /* default: the scenario's name */
    const char *description; /* the scenario's description */
    const char *command;     /* how the result was made */
    const char *note;        /* e.g. the run length and why it suffices */
    int level;               /* heading level of the title (2 = "##") */
};

/*
 * The Markdown section of one result: the header, the per (strategy, tenant)
 * table, the LLM services' token table (TTFT, TPOT, their SLA attainment,
 * tokens/s, goodput, preemptions, KV use; only when a tenant has them), the
 * per-strategy table and, for strategies with MIG instances, the layout table.
 */
void rt_md_result(FILE *fp, const cJSON *doc, const struct rt_head *h);

/*
 * Summary rows, one per strategy: strategy, kind, tenants, gpus_used,
 * tenants_per_gpu, gpu_utilization, switch_overhead, throughput_per_s,
 * p99_ms_mean (over tenants), p99_ms_max, sla_attainment_min,
 * cost_per_million_requests_usd; with llm (rd_has_llm of the first result),
 * then ttft_p99_ms_max, tpot_p99_ms_max, ttft_sla_attainment_min,
 * tpot_sla_attainment_min and goodput_per_s (summed over tenants). With xname,
 * every row starts with x (the label of the result, e.g. its load scale).
 */
void rt_summary_header(FILE *fp, const char *xname, int markdown, int llm);
void rt_summary_rows(FILE *fp, const cJSON *doc, const char *xname, const char *x, int markdown,
                     int llm);

/*
 * MIG occupancy, CSV: row,label,strategy,gpu,start,memory_slices,compute_slices,
 * sm_count,profile,tenants,utilization — one line per instance; `row` numbers
 * the (strategy, GPU) pairs that have instances from 0, in document order.
 * Memory slices and SMs come from the GPU profile (gp). Returns the number of
 * rows (0: no MIG strategy in the document).
 */
int rt_mig_csv(FILE *fp, const cJSON *doc, const struct gpu_profile *gp);

#endif
