/*
 * htpage — what the parts of a study's page share (htstudy.c assembles the page; htsweep.c
 * draws a sweep's figures and tables; htverdict.c writes the question and the verdict): the
 * page's view of its results and the helpers that name, style and judge them.
 */
#ifndef SS_HTPAGE_H
#define SS_HTPAGE_H

#include "report/html.h"
#include "report/htint.h"

#include <cJSON.h>
#include <stdio.h>

#define MAX_NAMES 48
#define PANEL_W 390
#define PANEL_H 280
#define BIG_W 540 /* a figure of one or two panels */
#define BIG_H 340
/* The distributions are drawn from the 5th percentile: below it is the fastest twentieth of
 * requests, which no SLA is about, and on a log axis it would stretch the x range by decades. */
#define CDF_FROM 0.05
#define CAP 30 /* latency axes of a sweep stop at CAP × the SLA */

struct page {
    const struct ht_study *st;
    const cJSON *doc;
    int sweep, param_sweep;
    struct ht_axis ax;
    int *order; /* docs in x order */
    int n_strat, n_ten, n_rest;
    char strat[MAX_NAMES][64], ten[MAX_NAMES][64];
    char *rest[MAX_NAMES];
    /* Set once a figure is drawn: the first one drawn is the one the verdict rests on (the
     * page orders its sections so), marked for the checker (svg.h, "verdict"). */
    int *figure_drawn;
    /* per strategy × rest, in x order: does every tenant meet its SLA? (for the verdict) */
};

/* Does some tenant of the main result have an SLA under this key? */
int ht_pg_has_sla(const struct page *pg, const char *key);
/* "12 ms", "3.4 ms", "1.25 s". */
void ht_fmt_ms(char *buf, size_t n, double ms);
/* Which combination of the other swept parameters result doc has (index into pg->rest). */
int ht_pg_rest(const struct page *pg, int doc);
/* The style of strategy k under combination r: the same in every figure and table. */
int ht_pg_style(const struct page *pg, int strategy, int rest);
/* "ts-1ms" or "ts-1ms · ts-20ms time slice 2 ms". */
void ht_pg_label(const struct page *pg, int strategy, int rest, char *buf, size_t n);
/* "SLA: p99 ≤ 50 ms", "SLA: TTFT p99 ≤ 2 s": the value in `unit` ("ms" or "s"), the unit of
 * the axis the line is drawn on. */
void ht_sla_words(char *buf, size_t n, const char *what, double sla_ms, const char *unit);
/* The unit a latency axis is drawn in: "s" when its SLA (or, without one, its largest value)
 * is a second or more, so that the axis and its SLA read "2 s" rather than "2000 ms". */
const char *ht_latency_unit(double sla_ms, double max_ms);
/* Does the tenant of that name run as an LLM service in the page's main result? */
int ht_pg_is_llm(const struct page *pg, const char *tenant);

/* The sweep's section: each metric of st->metrics (or the default) against x (htsweep.c). */
int ht_sweep_section(struct hw *wr, const struct page *pg, char *err, size_t errlen);
/* Every result of the sweep, one row per (x, strategy). */
void ht_sweep_table(struct hw *wr, const struct page *pg);
/* TTFT and TPOT p99 of each LLM service under each strategy against its targets (figure
 * "llm-sla", htllm.c); nothing without LLM tenants. */
int ht_llm_figure(struct hw *wr, const struct page *pg, char *err, size_t errlen);
/* The question and the verdict in one sentence (htverdict.c). */
void ht_question(struct hw *wr, const struct page *pg);
void ht_verdict(struct hw *wr, const struct page *pg);

#endif
