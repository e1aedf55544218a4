/*
 * htint — what the files of the html module share (html.h is the public side): the page
 * frame and tables (html.c), the inputs (htdata.c) and the MIG grid (htmig.c).
 */
#ifndef SS_HTINT_H
#define SS_HTINT_H

#include "calib/calib.h"
#include "core/cdfrun.h"
#include "core/metric.h"
#include "core/vdjson.h"
#include "core/scenario.h"
#include "report/hw.h"
#include "report/svg.h"

#include <cJSON.h>
#include <stddef.h>
#include <stdio.h>

/* ---- page frame (html.c) ---- */
void ht_head(struct hw *wr, const char *title);
void ht_foot(struct hw *wr);
/* A table cell with v × scale in fmt (a number's format: the cell is text), or "–" when v is not a
 * number. */
void ht_td(struct hw *wr, double v, double scale, const char *fmt);
/* Opens a figure: <figure>, the SVG inline and (svg_prefix) a file <prefix>-<f->id>.svg. Its
 * caption follows (HT_CAPTION for a literal one, or <figcaption> written through the writer),
 * then ht_figure_end. */
int ht_figure(struct hw *wr, struct svg_figure *f, const char *svg_prefix, char *err,
              size_t errlen);
void ht_figure_end(struct hw *wr);
/* Writes what the closed memory writer svg holds as the file <svg_prefix>-<id>.svg. */
int ht_svg_file(const char *svg_prefix, const char *id, const struct hw *svg, char *err,
                size_t errlen);
#define HT_CAPTION(wr, lit) HW_MARK(wr, "<figcaption>" lit "</figcaption>\n")
/* The header line under the title: scenario, GPUs, seed, replications, load, command. */
void ht_meta(struct hw *wr, const cJSON *doc, const char *command, const char *requests);
/* The strategy × tenant, LLM token (with LLM tenants), strategy and MIG tables of one result. */
void ht_result_tables(struct hw *wr, const cJSON *doc, const struct scenario *sc);
void ht_notes(struct hw *wr, const cJSON *notes);

/* ---- inputs (htdata.c; a result document is read through core/rdoc.h, its verdict through
 * core/vdjson.h, the `run --cdf` curves through core/cdfrun.h) ---- */
/* A string member of another document (a plan, a cluster run), "" when absent. */
const char *ht_str(const cJSON *obj, const char *key);
enum ht_level { HT_TENANT, HT_STRATEGY };
struct ht_metric {
    const char *name;    /* --plot name */
    const char *label;   /* "p99 latency" */
    const char *unit;    /* "ms", "$", "%", "" */
    enum ht_level level; /* drawn per tenant or per strategy */
    enum mt_level of;    /* the metric of the table it shows (at its show_scale) */
    int index;
    int latency;         /* a latency: its panels show the SLA */
    const char *sla_key; /* the scenario's tenant "sla" key it is judged by */
    const char *fig;     /* short name in figure ids: "p99" → p99-vs-load */
};
const struct ht_metric *ht_metric(const char *name);
double ht_metric_value(const struct ht_metric *m, const cJSON *strategy, const cJSON *tenant);

/* The x axis of a sweep: the first swept parameter of `sharesim sweep` points (their
 * "sweep.params"), or the load scale of `run --scale-load` results (1 when absent). */
struct ht_axis {
    char path[160];  /* "load_scale" or the swept path */
    char label[200]; /* ht_param_label */
    int numeric;
    int n;       /* docs */
    double *x;   /* per doc (numeric), or its category index */
    char **text; /* per doc: the value as written */
    char **rest; /* per doc: the other swept parameters, "" when none ("slice 6 ms, …") */
    int n_cats;
    int log; /* numeric and spans decades */
};
int ht_axis_make(const struct scenario *sc, cJSON *const *docs, int n, struct ht_axis *a, char *err,
                 size_t errlen);
void ht_axis_free(struct ht_axis *a);
/* The axis value in words: "×1.1", "30 req/s", "mps". */
void ht_axis_value(const struct ht_axis *a, double x, char *buf, size_t n);

/* ---- MIG layouts (htmig.c) ---- */
/* Draws the instances of every strategy with MIG instances as slice grids (compute row,
 * memory row, stranded slices hatched); 0 figures written when none. verdict: the figure is
 * the one the page's verdict rests on (class "verdict", svg.h). */
int ht_mig_section(struct hw *wr, const cJSON *doc, const struct gpu_profile *gp,
                   const char *svg_prefix, int verdict, char *err, size_t errlen);

#endif
