/*
 * plan — the capacity planner: the cheapest configuration (strategy kind ×
 * parameters × GPU count) under which every tenant meets its SLA (core/verdict.h).
 *
 * Method: each strategy kind contributes candidate configurations (a strategy
 * JSON object and a GPU count) through its policy's plan hook (core/plancand.h).
 * The analytic module prunes candidates that cannot work (an unstable GPU, fewer
 * exclusive GPUs than Erlang C needs, an SLA below the work's own p99, memory that
 * does not fit), and says why. The survivors are simulated in order of cost,
 * cheapest first, with the scenario's own stop and seed, until PLAN_ENOUGH_FEASIBLE
 * are confirmed or the simulation budget is spent; the recommendation is the
 * cheapest confirmed one (ties: more capacity left free, then the smaller worst ratio to a
 * target). Every candidate in the output says whether it was simulated, and why it misses.
 */
#ifndef SS_PLAN_H
#define SS_PLAN_H

#include "core/plancand.h"
#include "core/run.h"
#include "core/scenario.h"

#include <cJSON.h>
#include <stdio.h>

struct plan_sens;

#define PLAN_ENOUGH_FEASIBLE 5

/* Headroom (docs/plan.md#headroom): the load factor at which a candidate first misses an SLA,
 * by doubling from 1 up to PLAN_HEADROOM_MAX_FACTOR, then bisection to a relative width of
 * PLAN_HEADROOM_TOL: 3 doublings + 7 halvings = PLAN_HEADROOM_MAX_POINTS factors at most, each
 * run in the candidate's variants until one misses. PLAN_HEADROOM_MAX_RUNS bounds the runs of
 * one plan; a candidate whose worst case no longer fits is left unmeasured, and says so. So a
 * plan runs at most PLAN_HEADROOM_CANDIDATES × PLAN_HEADROOM_MAX_POINTS × variants more. */
#define PLAN_HEADROOM_TOL 0.01
#define PLAN_HEADROOM_MAX_FACTOR 8
#define PLAN_HEADROOM_MAX_POINTS 10
#define PLAN_HEADROOM_MAX_RUNS 400
/* Every candidate that meets the SLAs is measured, in rank order, up to PLAN_HEADROOM_CANDIDATES
 * of them and PLAN_HEADROOM_MAX_RUNS runs: each costs up to ten runs of the scenario. */
#define PLAN_HEADROOM_CANDIDATES 64

/* Most other layouts the tensor-parallel explanation compares the chosen one with. */
#define PLAN_TP_MAX_ALTS 4

struct plan_result {
    int n;
    struct plan_cand *c; /* sorted: feasible by cost, then the others */
    int best;            /* index of the recommendation, -1 if none */
    int closest;         /* when none is feasible: the simulated one with the best margin */
    int simulations;     /* the search's runs */
    int headroom_runs;   /* the headroom's runs, besides */
    char reason[1200];   /* why the recommendation (or closest) was chosen among its peers */
    char rule_kind[32];
    char rule_text[200];
    /* The tensor-parallel choice (explain_tp in plan.c): for the recommendation (or closest)
     * when it is a layout the planner chose for tenant tp_tenant ("tensor_parallel": "auto"),
     * the other layouts simulated on as many GPUs (else the cheaper ones simulated), in tp_alt,
     * and in tp_why why the chosen one won, with the deciding figures. tp_tenant -1: none. */
    int tp_tenant;
    int tp_alt[PLAN_TP_MAX_ALTS];
    int n_tp_alt;
    char tp_why[2400];
    /* What the answer rests on (tools/plansens.h); NULL with PLAN_NO_SENSITIVITY. */
    struct plan_sens *sens;
};

/* Parses sc->json's optional "plan" object and searches. flags: PLAN_PROGRESS (a progress
 * line on stderr), PLAN_NO_HEADROOM (no headroom runs whatever "plan.headroom" says: `plan
 * --no-headroom`). Returns 0, or -1 with err (a bad "plan" object, or a simulation that
 * failed: a replayed trace changed since load). */
/* PLAN_NO_SENSITIVITY (`plan --no-sensitivity`): no reruns at the profile's stated ranges. */
enum { PLAN_PROGRESS = 1, PLAN_NO_HEADROOM = 2, PLAN_NO_SENSITIVITY = 4 };
int plan_run(const struct scenario *sc, int flags, struct plan_result *out, char *err,
             size_t errlen);
void plan_result_free(struct plan_result *r);

void plan_table(FILE *fp, const struct scenario *sc, const struct plan_result *r);
cJSON *plan_json(const struct scenario *sc, const struct plan_result *r);
/*
 * The recommendation (or, when none, the closest candidate) as a runnable scenario
 * (`plan --emit-scenario FILE`): the scenario's tenants, GPU, cost, stop and warm-up, its seed
 * and one replication stated, "gpus" the candidate's, and one strategy per variant the plan
 * simulated (every placement, every throttled variant), each with its whole layout, so that
 * `sharesim run` gives the plan's figures exactly: a tenant's are its worst over the
 * strategies. Relative paths (a trace, a profile) are made absolute when out_path is in
 * another folder. NULL with err when no candidate was simulated.
 */
cJSON *plan_scenario(const struct scenario *sc, const struct plan_result *r, const char *out_path,
                     char *err, size_t errlen);
/*
 * Writes the Kubernetes artefacts of the recommendation into dir (created with its parents),
 * or, when no candidate meets the SLAs, of the closest one, marked as such in every file:
 * the strategy's own files (its deploy hook), one pod patch per tenant, README.md. The
 * ConfigMaps go to namespace ns. d lists what was written (even after a failure); the caller
 * releases it with dp_free. 0, or -1 with err.
 */
struct dp_ctx;
/* DIR is written as a whole (tools/plandir.h): into a temporary beside it, then swapped in, the
 * previous plan's folder kept as DIR.previous; on any failure DIR stays as it was. */
int plan_write_k8s(const char *dir, const char *ns, const struct scenario *sc,
                   const struct plan_result *r, struct dp_ctx *d, char *err, size_t errlen);

/* For tests: called with the temporary folder once every file is written, before the swap; a
 * non-zero return fails the write there (as a full disk would). NULL in the program. */
extern int (*plan_k8s_fault)(const char *tmp_dir);

#endif
