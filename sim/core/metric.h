/*
 * metric — the table of result fields: every figure a run reports, written once with
 * where it lives in a result document, its unit and scale, its _ci95 variant, its CSV
 * column, its headings and number formats in the text, Markdown and HTML tables, and
 * which direction is better. The writers (report/report.c: JSON, CSV, the text table;
 * report/rtable.c: Markdown; report/html.c, htllm.c: HTML) loop over this table, so a
 * new figure is one entry here and nothing else (docs/architecture.md#metrics).
 *
 * Invariants: the table's order within a level is the order of the JSON document (an
 * object such as "latency_ms" is opened where its first member is written); `col` ranks
 * the columns of the display tables; a figure's value is read from its level's vector
 * (TM_*, SM_*, LM_* of core/run.h and core/llmstats.h) unless it has a getter.
 */
#ifndef SS_METRIC_H
#define SS_METRIC_H

#include "core/run.h"

#include <cJSON.h>

/* Whose figure it is: a tenant's, a strategy's, or an LLM tenant's token figure (in the
 * tenant object, under "llm"; only LLM tenants have them). */
enum mt_level { MT_TENANT, MT_STRATEGY, MT_LLM, MT_LEVELS };

/* How JSON writes it: a number to 6 significant digits, a count of requests (an integer in a
 * single run, a mean of counts with replications), or always an integer. */
enum mt_json { MT_J_NUM, MT_J_COUNT, MT_J_INT };

struct mt_metric {
    enum mt_level level;
    int index;           /* into the level's vector (with a getter: see get) */
    const char *path;    /* in the tenant or strategy object: "latency_ms.p99" */
    const char *ci_path; /* its 95 % half-width, NULL: none */
    const char *csv;     /* CSV column of `run --csv`, NULL: none */
    const char *unit;    /* of the JSON value: "ms", "req/s", "fraction", "" */
    double out_scale;    /* internal value × out_scale = JSON value (1e3: seconds → ms) */
    enum mt_json json;
    int csv_int; /* CSV writes it as an integer ("%.0f") */
    /* Its CSV column was added after the level's first ones were fixed: such columns follow
     * the others (in table order), so that a new figure moves no existing column. */
    int csv_last;
    int range;  /* a latency that may lie beyond the histogram's range (core/stats.h) */
    int tail;   /* TAIL_* of the samples beyond it (thin-tail mark), -1: none */
    int better; /* +1 higher is better, -1 lower is better, 0 neither */
    /* The display tables (text, Markdown, HTML): its rank among the columns (0: not a column),
     * headings, the scale from the JSON value to the shown one (100: a fraction as %), and
     * formats. The text table's ± row shows only figures with a text_ci format. */
    int col;
    const char *text_head;
    int text_min;
    const char *text_fmt, *text_ci_fmt;
    const char *md_head, *html_head;
    double show_scale;
    const char *doc_fmt; /* Markdown and HTML */
    /* An attainment of a scenario "sla" key ("p99_ms"): the HTML table shows the target before
     * it, headed html_sla_head. */
    const char *sla_key, *html_sla_head;
    /* `compare`'s per-tenant table (its rank there, 0: not a column), its key in --json/--csv,
     * heading, format of the shown value (the JSON value × show_scale) and narrowest width. */
    int cmp;
    const char *cmp_key, *cmp_head, *cmp_fmt;
    int cmp_width;
    /* What the run and compare tables show instead of the stored figure (same unit), NULL: the
     * figure; compare marks its best only among strategies that meet every SLA (cmp_meeting). */
    double (*shown)(const struct scenario *sc, const struct strategy_result *s, int tenant);
    int cmp_meeting;
    /* With a getter: the figure of tenant `tenant` (ignored for a strategy's), its half-width
     * when ci; `index` then names it past the level's vector (MT_SM_GPUS_USED) or is -1. */
    double (*get)(const struct strategy_result *s, int tenant, int ci);
};

/* The strategy's figures that are no entry of its vector: their indexes, past SM_N, so that a
 * reader names them as it names the others (core/rdoc.h). */
enum { MT_SM_GPUS_USED = SM_N };

/* The table's metrics, in order (the built-in ones, then any mt_register_extra). */
int mt_count(void);
const struct mt_metric *mt_at(int k);

/* Adds a metric after the built-in ones (for tests that check a new figure reaches every
 * output without other code); 0, or -1 when MT_EXTRA_MAX are registered. mt_clear_extra
 * removes them. */
#define MT_EXTRA_MAX 4
int mt_register_extra(const struct mt_metric *m);
void mt_clear_extra(void);

/* The internal value (ci: its half-width) of a metric for tenant i of s: NaN when s has no
 * such figure (an LLM figure of a result without LLM tenants, a missing half-width). */
double mt_value(const struct mt_metric *m, const struct strategy_result *s, int i, int ci);

/* What the tables show of it for tenant i of s: m->shown, else mt_value. */
double mt_shown(const struct mt_metric *m, const struct scenario *sc,
                const struct strategy_result *s, int i);

/* The metric's JSON value in a tenant or strategy object of a result document (by its path;
 * ci: its _ci95 path); NaN when absent or null. The one way a page reads a figure. */
double mt_doc(const struct mt_metric *m, const cJSON *obj, int ci);
/* The metric's value in obj in its inside unit (seconds for a latency: the JSON value over
 * out_scale), +inf where it is past the histogram's range ("<leaf>_beyond_range"), NaN when
 * absent: what a verdict on a result read back judges. */
double mt_doc_inside(const struct mt_metric *m, const cJSON *obj);
/* The metric's JSON value in obj as text: fmt, ">=24 days" where it is past the histogram's
 * range (its "<leaf>_beyond_range" flag), "-" when absent. */
void mt_doc_text(const struct mt_metric *m, const cJSON *obj, const char *fmt, char *buf, size_t n);
/* Whether a is better than b by the metric's direction (a lower one is better when `better` is
 * 0); a number is better than none. */
int mt_better(const struct mt_metric *m, double a, double b);
/* The metric of `level` stored at `index` of its vector (TM_*, SM_*, LM_*), or NULL. */
const struct mt_metric *mt_of(enum mt_level level, int index);
/* A number at a dotted path ("latency_ms.p99") of obj; NaN when absent or not a number. */
double mt_path_num(const cJSON *obj, const char *path);
/* The object at path's parent in obj, created in order where missing; *leaf: the last key. */
cJSON *mt_path_parent(cJSON *obj, const char *path, const char **leaf);

/* The display tables. */
enum mt_view { MT_TEXT, MT_MD, MT_HTML, MT_CMP };
#define MT_COLS_MAX 32
/* The columns of a level's table in view: the metrics with a rank and a heading there, by rank
 * (the table's order between equal ranks); their number (at most MT_COLS_MAX). MT_CMP ranks by
 * `cmp`; level MT_LEVELS takes every level (compare's table mixes them). */
int mt_columns(enum mt_level level, enum mt_view view, const struct mt_metric **out);
const char *mt_head(const struct mt_metric *m, enum mt_view view);

/* The metric whose JSON path is `path` at `level`, or NULL. */
const struct mt_metric *mt_find(enum mt_level level, const char *path);

#endif
