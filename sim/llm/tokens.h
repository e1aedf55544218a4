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
 */
#ifndef SS_LLM_TOKENS_H
#define SS_LLM_TOKENS_H

#include "base/jsonv.h"
#include "base/rng.h"

enum ltk_kind { LTK_DETERMINISTIC, LTK_EXPONENTIAL, LTK_LOGNORMAL, LTK_UNIFORM };

struct ltk_dist {
    enum ltk_kind kind;
    double mean;      /* deterministic: the value; exponential, lognormal: the mean */
    double cv;        /* lognormal */
    long lo, hi;      /* uniform */
    double mu, sigma; /* lognormal: of the underlying normal */
};

/* 0, or -1 with a jv message naming the path. */
int ltk_parse(const struct jv *j, const cJSON *obj, const char *path, struct ltk_dist *d);
/* One draw, >= 1; uses the stream r (uniform: one draw; lognormal: two; exponential: the
 * ziggurat's). */
long ltk_draw(const struct ltk_dist *d, struct rng *r);
/* The mean of the continuous distribution before rounding (for load estimates). */
double ltk_mean(const struct ltk_dist *d);

#endif
