/*
 * tokens — distributions of a request's input or output tokens (docs/llm.md#requests):
 * `"tokens": {"input": DIST, "output": DIST}` on an LLM tenant, each DIST one of
 *   {"dist": "deterministic", "tokens": N}
 *   {"dist": "exponential", "mean": M}
 *   {"dist": "lognormal", "mean": M, "cv": C}
 *   {"dist": "uniform", "min": A, "max": B}      (integers, A <= B)
 * the shapes of the work distributions (docs/scenario.md#work) in tokens instead of ms.
 * A continuous draw is rounded to the nearest integer and at least 1: a request has at least
 * one prompt token (the start token) and generates at least one.
 *
 * Or a joint table of (input, output) pairs (docs/llm.md#request-lengths-from-datasets):
 *   "tokens": {"dataset": "azure-conv" | "azure-code" | {"path": "FILE.csv"},
 *              "max_input": N, "max_output": M}
 * a shipped table (kernels/profiles/datasets/NAME.csv, made by scripts/dataset-lengths) or the
 * user's own CSV of input_tokens,output_tokens rows; each request takes one row, drawn
 * uniformly with one uniform of the tenant's stream, so input and output stay paired as they
 * were measured. A count of 0 becomes 1 (as for a trace's rows); max_input and max_output, when
 * given, clamp the counts (the draw stays one draw: no row is rejected and redrawn).
 */
#ifndef SS_LLM_TOKENS_H
#define SS_LLM_TOKENS_H

#include "base/jsonv.h"
#include "base/rng.h"

#include <stdint.h>

enum ltk_kind { LTK_DETERMINISTIC, LTK_EXPONENTIAL, LTK_LOGNORMAL, LTK_UNIFORM, LTK_DATASET };

/* Limits of a dataset file: rows (8 bytes each in memory) and a row's token counts (those of
 * the drawn distributions). */
#define LTK_DATASET_MAX_ROWS 10000000L
#define LTK_DATASET_MAX_TOKENS 10000000L

/* A table of (input, output) pairs, loaded once per process and file (never freed: scenarios
 * that name the same table share it). */
struct ltk_table {
    long n;
    int32_t (*pair)[2];
    char *name; /* the dataset's name or the file's path, for messages */
};

struct ltk_dist {
    enum ltk_kind kind;
    double mean;      /* deterministic: the value; exponential, lognormal: the mean; dataset:
                         the table's mean of this side, after the clamp */
    double cv;        /* lognormal */
    long lo, hi;      /* uniform; dataset: hi is the clamp (max_input or max_output), 0 none */
    double mu, sigma; /* lognormal: of the underlying normal */
    const struct ltk_table *table; /* dataset: shared by the input and output sides */
    int side;                      /* dataset: 0 input, 1 output */
};

/* 0, or -1 with a jv message naming the path. */
int ltk_parse(const struct jv *j, const cJSON *obj, const char *path, struct ltk_dist *d);
/* "tokens": {"dataset": …} at path into the input and output sides. 0, or -1 with a jv message
 * (a bad file: "FILE:LINE:COL: …"). A relative path is resolved against j->file's folder. */
int ltk_parse_dataset(const struct jv *j, const cJSON *obj, const char *path,
                      struct ltk_dist *input, struct ltk_dist *output);
/* One draw, >= 1; uses the stream r (uniform: one draw; lognormal: two; exponential: the
 * ziggurat's; dataset: one uniform, a row, this side of it). */
long ltk_draw(const struct ltk_dist *d, struct rng *r);
/* A request's input and output: one row of a dataset for both (one uniform), else a draw of
 * each, input first. */
void ltk_draw_pair(const struct ltk_dist *input, const struct ltk_dist *output, struct rng *r,
                   long *in, long *out);
/* The mean of the continuous distribution before rounding (for load estimates). */
double ltk_mean(const struct ltk_dist *d);

#endif
