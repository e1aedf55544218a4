/*
 * plansens — what the plan's answer rests on (docs/plan.md#what-the-answer-rests-on).
 *
 * The GPU profile marks each value with a confidence, and some values with a stated range
 * ("range": [lo, hi], calib/vrange.h). For the recommendation (or, when nothing meets the
 * SLAs, the closest candidate), the planner lists the low-confidence values the candidate
 * reads, by a declared table of which strategy kinds and which tenants read which profile
 * key, and reruns the candidate with each value at lo and at hi: its every variant, the
 * scenario's seed (the same random numbers as the plan's own run), the verdict of
 * core/verdict.h. The plan rests on a value when the verdict at either end differs from the
 * plan's: a recommendation that misses there (a costlier one would be needed), or a closest
 * candidate that meets there. At most PLAN_SENS_MAX_RERUNS runs: when every end in every
 * variant does not fit, each end reruns only the variant that was the plan's worst (which
 * decides the verdict; the output says so), and the ends past the budget say so.
 *
 * Only the chosen candidate is rerun: whether a cheaper candidate would meet at an end is not
 * asked (it would cost a plan per end), and the output says so.
 */
#ifndef SS_PLANSENS_H
#define SS_PLANSENS_H

#include "core/plancand.h"
#include "core/scenario.h"
#include "core/verdict.h"

#include <cJSON.h>
#include <stdio.h>

/* Runs of the chosen candidate at the ends of ranges, all values together: a quickstart-size
 * plan stays within about twice its own time (docs/plan.md#what-the-answer-rests-on). */
#define PLAN_SENS_MAX_RERUNS 24
#define PLAN_SENS_MAX_VALUES 32

/*
 * The declared table: key is read by a candidate whose strategy (or a nested one) matches one of
 * `kinds` (space-separated: a kind, "*" every kind, or a kind with a condition on one of its
 * keys, "vgpu+backing=mig" / "vgpu-backing=mig"), when `when` holds for the scenario (NULL:
 * always), unless the candidate's strategy object sets `own` (its key that replaces the profile's;
 * NULL: none). `reads` says in words what reads it. An engine key is listed per framework
 * ("vllm.cpu_step_ms"), for the LLM tenants that take the table's value rather than their own.
 */
struct plan_sens_dep {
    const char *key;
    int engine; /* 1: a key of the serving engine's entry in engines.json, not of the profile */
    const char *kinds;
    int (*when)(const struct scenario *sc);
    const char *own;
    const char *reads;
};
extern const struct plan_sens_dep plan_sens_deps[];
extern const int plan_sens_n_deps;

/* The table's entry for key that candidate c reads in sc, or NULL when it reads none. */
const struct plan_sens_dep *plan_sens_reads(const struct scenario *sc, const struct plan_cand *c,
                                            const char *key);

/* One end of a range, rerun. */
struct plan_sens_end {
    double at;
    int ran; /* 0: not run (the end is the value itself, or the rerun budget was spent) */
    struct vd_strategy v; /* the verdict over the candidate's variants (the worst of them) */
    char worst_tenant[SCN_NAME_MAX];
    double cost_per_hour, cost_per_mreq;
    int flips;      /* meets differs from the plan's */
    int worst_only; /* only the plan's worst variant was rerun (the budget held no more) */
};

struct plan_sens_val {
    char key[64];
    char confidence[16];
    double value, lo, hi;
    int has_range;
    const char *reads;           /* the table's words */
    struct plan_sens_end end[2]; /* [0] lo, [1] hi */
    int rests;                   /* a verdict flips at an end */
    char note[160];              /* why an end was not rerun, "" when both were */
};

struct plan_sens {
    int cand;        /* the candidate rerun (index in the plan's list); -1: none */
    int recommended; /* 1: the recommendation, 0: the closest */
    int meets;       /* its verdict in the plan */
    int n;
    struct plan_sens_val v[PLAN_SENS_MAX_VALUES];
    int reruns;
};

/*
 * Runs one variant of a candidate (tools/plan.c): 0 with res (the caller frees it), 1 when the
 * loader refused it (why in c->pruned), -1 with err.
 */
typedef int (*plan_sens_run_fn)(const struct scenario *sc, struct plan_cand *c, int variant,
                                struct strategy_result *res, char *err, size_t errlen);

/* Fills out for candidate index cand (-1: nothing to rerun) of cands, whose variants number
 * n_variants, through run. 0, or -1 with err when a rerun failed. */
int plan_sens_run(const struct scenario *sc, struct plan_cand *cands, int cand, int recommended,
                  int n_variants, plan_sens_run_fn run, struct plan_sens *out, char *err,
                  size_t errlen);

/* The text section ("rests on: …"), the JSON array "sensitivity". */
void plan_sens_text(FILE *fp, const struct plan_sens *s);
cJSON *plan_sens_json(const struct plan_sens *s);

#endif
