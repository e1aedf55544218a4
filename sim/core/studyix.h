/*
 * studyix — the list of benchmark studies (results/index.json), checked at load, and the
 * figures of the reference table computed from their results (report/studies.h writes
 * that table as JSON, CSV and Markdown).
 *
 * index.json: {"studies": [STUDY, …]}, each STUDY
 *   {"id": "a-z0-9-", "title": "…",
 *    "kind": "scenario" | "reference" | "validation" | "cluster",
 *    "scenario": "workloads/….json"   (kind scenario),
 *    "scenarios": ["workloads/cluster-….json", …]  (kind cluster: `sharesim cluster` scenarios,
 *                                      one section of the page each),
 *    "rows": [ROW, …]                 (kind reference),
 *    "plots": ["cdf", "p99-vs-load", "util-vs-tenants", "mig-occupancy", "llm-sla",
 *              "llm-vs-load"],
 *    "load_scales": [x, …]            (needed by p99-vs-load),
 *    "requests": "…", "notes": ["Markdown paragraph", …],
 *    "question": "what the study answers (the first line of its HTML page)"}
 * ROW: {"mode", "instances", "scenario", "strategy",
 *       "paper": {"tps_per_instance", "p99_ms", "gpu_util"}}
 * Unknown keys are errors naming their JSON path, as in scenarios.
 *
 * Reference row figures (from the row's result document, `<dir>/<id>-<mode>.json`):
 *   tps_per_instance = mean over the strategy's tenants (one tenant = one instance) of
 *                      throughput_per_s;
 *   p99_ms           = mean over those tenants of latency_ms.p99;
 *   gpu_util         = the strategy's gpu_utilization;
 *   error.X          = (simulated X − paper X) / paper X.
 */
#ifndef SS_STUDYIX_H
#define SS_STUDYIX_H

#include <cJSON.h>
#include <stddef.h>

#define SD_MAX_SCALES 16
#define SD_MAX_ROWS 8

enum sd_kind { SD_SCENARIO, SD_REFERENCE, SD_VALIDATION, SD_CLUSTER };
/* llm-sla: TTFT and TPOT p99 per LLM service per strategy; llm-vs-load: TTFT and TPOT p99
 * against the load scale (needs load_scales), docs/results.md. */
enum sd_plot {
    SD_PLOT_CDF = 1,
    SD_PLOT_P99_LOAD = 2,
    SD_PLOT_UTIL_TENANTS = 4,
    SD_PLOT_MIG = 8,
    SD_PLOT_LLM = 16,
    SD_PLOT_LLM_LOAD = 32
};

struct sd_row {
    const char *mode; /* strings point into the index document */
    int instances;
    const char *scenario;
    const char *strategy;
    double paper_tps, paper_p99_ms, paper_util;
};

struct sd_study {
    const char *id, *title, *scenario, *requests, *question;
    enum sd_kind kind;
    unsigned plots; /* enum sd_plot bits */
    int n_scales;
    double scales[SD_MAX_SCALES];
    int n_rows;
    struct sd_row rows[SD_MAX_ROWS];
    int n_scenarios; /* kind cluster */
    const char *scenarios[SD_MAX_ROWS];
    const cJSON *notes; /* array of strings or NULL */
};

struct sd_index {
    int n;
    struct sd_study *s;
    cJSON *doc;
};

int sd_load(const char *path, struct sd_index *ix, char *err, size_t errlen);
void sd_free(struct sd_index *ix);
const struct sd_study *sd_find(const struct sd_index *ix, const char *id);

extern const char *const sd_kind_names[];
/* Comma-separated plot names of a study ("-" when none). */
void sd_plot_names(unsigned plots, char *buf, size_t n);

/* The "description" of a scenario file, or NULL (a copy the caller frees). */
char *sd_scenario_description(const char *path);

/* One computed reference row. */
struct sd_ref_row {
    const struct sd_row *row;
    double tps, p99_ms, util;
};

/*
 * Reads each row's result (<dir>/<study id>-<mode>.json), checks the row's
 * strategy exists and has `instances` tenants, and fills out[0 .. n_rows).
 * docs[k] receives row k's result document (caller deletes).
 */
int sd_reference(const struct sd_study *st, const char *dir, struct sd_ref_row *out, cJSON **docs,
                 char *err, size_t errlen);

#endif
