/*
 * html — the report pages: one self-contained HTML file per study (inline CSS and SVG, no
 * script, no network), which a capacity planner can send to someone else. A page says the
 * question the study answers, the verdict in one sentence, then the figures and the tables.
 * docs/report.md describes the pages and the JSON they read.
 *
 * Everything on a page comes from result documents (`sharesim run --json`), the latency
 * quantiles of `sharesim run --cdf`, the scenario (for SLAs and names) and the study's
 * entry in results/index.json: nothing is simulated here. The same inputs give the same
 * bytes.
 *
 * Module prefix: ht_. Files: html.c (page frame, tables, text), htdata.c (inputs:
 * metrics, sweep axes, labels), htstudy.c (a study page) with htsweep.c (its
 * sweep figures) and htverdict.c (its question and verdict), htmig.c (MIG layouts drawn as
 * slice grids), htplan.c (the planner's page), htref.c (the reference table's page); every
 * page is written through hw.h, the one HTML writer (its text calls escape).
 */
#ifndef SS_HTML_H
#define SS_HTML_H

#include "core/scenario.h"
#include "report/studies.h"

#include <cJSON.h>
#include <stddef.h>
#include <stdio.h>

/* The most results one page shows (a sweep of more points is cut down first). */
#define HT_MAX_DOCS 4096

/* What a study page is made from. Every pointer but docs may be NULL. */
struct ht_study {
    const char *id;    /* names the figures ("cdf", …) in SVG files: <svg_prefix>-<figure>.svg */
    const char *title; /* default: the scenario's name */
    const char *question;      /* default: derived from the results */
    const char *command;       /* how the results were made */
    const char *requests;      /* the run length and why it suffices */
    const cJSON *notes;        /* array of Markdown paragraphs */
    const struct scenario *sc; /* SLAs, tenant and strategy names; NULL: no SLA is known */
    cJSON **docs;              /* docs[0] is the main result; with more, they form a sweep */
    int n_docs;
    const char *cdf_path;   /* `sharesim run --cdf` CSV of docs[0], or NULL */
    const char *metrics;    /* comma-separated sweep metrics (--plot names), NULL: default */
    const char *svg_prefix; /* also write each figure as <svg_prefix>-<figure>.svg */
};

/*
 * A second writer of the figures (report/gnuplot.h): while set, every figure a page draws is
 * also handed to fn, in page order, after the SVG writer has drawn it (with its merged
 * curves named). A non-zero return stops the page with err. fn NULL: none.
 */
struct svg_figure;
typedef int (*ht_figure_sink)(void *ctx, const struct svg_figure *f, char *err, size_t errlen);
void ht_set_figure_sink(ht_figure_sink fn, void *ctx);
/*
 * The same for a drawing that is not a plot (the MIG slice grids, ht_mig_section): while set,
 * the page asks fn for a gnuplot canvas (report/gnuplot.h) for the drawing `id` of width x
 * height pixels, draws into it what it draws into the SVG, and closes it. fn returns NULL with
 * err to stop the page. fn NULL: none.
 */
struct gp_canvas;
typedef struct gp_canvas *(*ht_canvas_sink)(void *ctx, const char *id, int width, int height,
                                            const char *title, char *err, size_t errlen);
void ht_set_canvas_sink(ht_canvas_sink fn, void *ctx);
/* The canvas sink set now, and its context (NULL: none). */
ht_canvas_sink ht_canvas_sink_of(void **ctx);

/* Writes the page to fp: 0, or -1 with err (bad metric, unreadable CDF, a figure file). */
int ht_study_page(FILE *fp, const struct ht_study *st, char *err, size_t errlen);

/* The page of the reference study: its rows (sd_reference) and, when DIR/<id>-<mode>-cdf.csv
 * exist, each row's latency distribution. */
int ht_reference_page(FILE *fp, const struct sd_study *st, const struct sd_ref_row *rows,
                      cJSON *const *docs, const char *dir, const char *svg_prefix, char *err,
                      size_t errlen);

/* The page of `sharesim cluster --json` results (htcluster.c, docs/cluster.md): per result,
 * allocation and fragmentation against the arrived workload (inflation) or over time
 * (replay) per placement policy, a MIG cluster's reconfigurations, failed pods in pods. */
struct ht_cluster {
    const char *title;    /* default: "Cluster placement: <name>" */
    const char *question; /* default: the placement question */
    const char *requests; /* a line under the verdict (Markdown), or NULL */
    const cJSON *notes;   /* array of Markdown paragraphs, or NULL */
    cJSON *const *docs;   /* the results, one section each */
    int n_docs;
    const char *svg_prefix; /* also write each figure as <svg_prefix>-<figure>.svg */
};
int ht_cluster_page(FILE *fp, const struct ht_cluster *cs, char *err, size_t errlen);
/* Is doc what `sharesim cluster --json` writes ("cluster", "summary", "experiments")? */
int ht_is_cluster_run(const cJSON *doc);

/* The planner's page from plan_json()'s document and the scenario. */
int ht_plan_page(FILE *fp, const struct scenario *sc, const cJSON *plan, char *err, size_t errlen);

/* Reads a document a page can show: a result (a "strategies" array, as rd_load checks)
 * or a cluster result (a "cluster" object, docs/report.md), or both. */
int ht_load(const char *path, cJSON **doc, char *err, size_t errlen);

/* 0 when every name of the comma-separated list is a metric, else -1 with err. */
int ht_check_metrics(const char *list, char *err, size_t errlen);

/*
 * A dotted scenario path (as `sharesim sweep --set` takes) in words, with its unit, using
 * the scenario's own names: "tenants.0.arrival.rate_per_s" → "chat: arrival rate (req/s)";
 * "load_scale" → "load (× the scenario's arrival rates)".
 */
void ht_param_label(const struct scenario *sc, const char *path, char *buf, size_t n);

#endif
