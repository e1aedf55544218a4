/*
 * fit — the engine's named parameters from measured points (see fit.h).
 *
 * Every row is one scenario: its GPU, one LLM tenant with the row's serving settings and the
 * parameters being fitted as keys of its `serving` object, the row's client and lengths, under
 * `exclusive`, at seed FIT_SEED. The fit is GSL's Nelder–Mead simplex (nmsimplex2) on
 * transformed parameters: p = lo + (hi − lo) / (1 + e^−u), so every point the simplex tries
 * lies inside the bounds and u is unbounded; it stops when the simplex is smaller than
 * FIT_SIMPLEX_TOL in u or after FIT_ITER_MAX iterations. Simulations are deterministic, so
 * the whole fit is.
 */
#include "tools/fit.h"
#include "calib/calib.h"
#include "base/jsonv.h"
#include "base/util.h"
#include "core/llmstats.h"
#include "core/metric.h"
#include "core/run.h"
#include "core/scenario.h"
#include "report/cdf.h"

#include <ctype.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The parameters fitted when no --param is given: numeric keys of the `serving` object
 * (docs/llm.md#the-serving-object), each with the bounds the simplex stays within and its
 * start. Edit this table to fit another set by default; a key the scenario format does not
 * know is refused when the first row is built.
 */
static const struct fit_param default_params[] = {
    /* key              lo    hi     start: the engine's time outside its kernels
     *                                      (llm/enginetime.h, docs/llm.md#engine-time) */
    {"cpu_step_ms", 0.0, 10.0, 1.0, 0.0},
    {"cpu_per_seq_ms", 0.0, 0.5, 0.02, 0.0},
    {"frontend_ms", 0.0, 200.0, 10.0, 0.0},
};

/* The fixed seed of every row's scenario. */
#define FIT_SEED 1
/* A Poisson client (`rate`): requests simulated and the first ones not measured (the queue
 * fills from empty). 1,000 requests put the means of TTFT and TPOT within about 1 % of the
 * long run at the loads of published benchmarks, at 20 ms of CPU per row. */
#define FIT_RATE_REQUESTS 1000
#define FIT_RATE_WARMUP 200
/* A closed loop (`concurrency`, N users): FIT_CLOSED_ROUNDS requests per user, the first
 * round (all users starting together) not measured; at least FIT_RATE_REQUESTS in all. */
#define FIT_CLOSED_ROUNDS 8
/* Only in a build without closed loops, a batch (all requests at t = 0) is sent as a Poisson
 * burst this fast: 4,096 requests within half a millisecond. Not the same thing (the first
 * request finds the engine idle and is prefilled alone), hence the closed loop where it exists
 * (batch_arrival). */
#define FIT_BURST_PER_S 1e7
/* The residual of a metric measured but not predicted (no request ended): a miss by a factor
 * of 1,000, so that the simplex moves away from it and the objective stays finite. */
#define FIT_PENALTY_FACTOR 1000.0

int fit_default_params(struct fit_param *p, int cap)
{
    int n = (int)(sizeof default_params / sizeof *default_params);
    if (n > cap)
        n = cap;
    memcpy(p, default_params, (size_t)n * sizeof *p);
    for (int i = 0; i < n; i++)
        p[i].value = p[i].start;
    return n;
}

int fit_parse_param(const char *arg, struct fit_param *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof p->key)
        return ss_errf(err, errlen,
                       "\"%s\": expected KEY=LO:HI[:START] (KEY a serving key "
                       "of at most %zu characters)",
                       arg, sizeof p->key - 1);
    memcpy(p->key, arg, (size_t)(eq - arg));
    for (const char *k = p->key; *k; k++)
        if (!(islower((unsigned char)*k) || isdigit((unsigned char)*k) || *k == '_'))
            return ss_errf(err, errlen, "\"%s\": the key must be of [a-z0-9_]", arg);
    double v[3];
    int n = 0;
    const char *s = eq + 1;
    while (n < 3) {
        char *end;
        v[n] = strtod(s, &end);
        if (end == s || !isfinite(v[n]))
            return ss_errf(err, errlen, "\"%s\": expected KEY=LO:HI[:START] with numbers", arg);
        n++;
        if (*end == '\0')
            break;
        if (*end != ':' || n == 3)
            return ss_errf(err, errlen, "\"%s\": expected KEY=LO:HI[:START]", arg);
        s = end + 1;
    }
    if (n < 2)
        return ss_errf(err, errlen, "\"%s\": expected KEY=LO:HI[:START] (no HI)", arg);
    p->lo = v[0];
    p->hi = v[1];
    p->start = n == 3 ? v[2] : (v[0] + v[1]) / 2;
    if (!(p->lo < p->hi))
        return ss_errf(err, errlen, "\"%s\": LO must be below HI", arg);
    if (p->start < p->lo || p->start > p->hi)
        return ss_errf(err, errlen, "\"%s\": START must lie in [LO, HI]", arg);
    p->value = p->start;
    return 0;
}

/* ---- one row's scenario ---- */

static cJSON *deterministic(long tokens)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "dist", "deterministic");
    cJSON_AddNumberToObject(d, "tokens", (double)tokens);
    return d;
}

static cJSON *poisson(double rate_per_s)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "process", "poisson");
    cJSON_AddNumberToObject(a, "rate_per_s", rate_per_s);
    return a;
}

static cJSON *closed(long users)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "process", "closed");
    cJSON_AddNumberToObject(a, "users", (double)users);
    cJSON_AddNumberToObject(a, "think_ms", 0);
    return a;
}

/* A batch of n requests, all at t = 0: all of them measured, the throughput from the last
 * completion. Built as a closed loop of n users that stops at n arrivals, so every user sends
 * once, at 0 exactly, and none sends again (docs/scenario.md#closed-loop-clients): one instant,
 * so the engine's first step holds all of them (docs/llm.md#simultaneous-arrivals). The serial
 * front end is not in its path (serving()): a batch is submitted at once, not sent user by
 * user through an API server. */
static cJSON *batch_arrival(const struct fit_ctx *c, struct fit_row *r, long n)
{
    r->requests = n < FIT_BATCH_MAX ? n : FIT_BATCH_MAX;
    r->warmup = 0;
    return c->closed_loop ? closed(r->requests) : poisson(FIT_BURST_PER_S);
}

/*
 * How each client is simulated: the arrival process and the request counts. The one place
 * that decides how a concurrency client is run: as the closed loop it is where the scenario
 * format has one (fit_prepare probes it), else as one batch of its N users at t = 0, which a
 * closed loop of fixed lengths with no think time repeats round after round (every user's
 * request starts, decodes and ends with the others); the row's note says so.
 */
static cJSON *client_concurrency(const struct fit_ctx *c, struct fit_row *r)
{
    long users = (long)r->load;
    if (!c->closed_loop) {
        snprintf(r->note, sizeof r->note,
                 "concurrency %ld emulated as one batch of %ld at t = 0 (no closed-loop arrival "
                 "in this build)",
                 users, users < FIT_BATCH_MAX ? users : FIT_BATCH_MAX);
        return batch_arrival(c, r, users);
    }
    if (users > FIT_BATCH_MAX) {
        snprintf(r->note, sizeof r->note, "concurrency %ld capped at %d users", users,
                 FIT_BATCH_MAX);
        users = FIT_BATCH_MAX;
    }
    r->requests = users * FIT_CLOSED_ROUNDS;
    if (r->requests < FIT_RATE_REQUESTS)
        r->requests = FIT_RATE_REQUESTS;
    r->warmup = users;
    return closed(users);
}

static cJSON *client_rate(const struct fit_ctx *c, struct fit_row *r)
{
    (void)c;
    r->requests = FIT_RATE_REQUESTS;
    r->warmup = FIT_RATE_WARMUP;
    return poisson(r->load);
}

static cJSON *client_batch(const struct fit_ctx *c, struct fit_row *r)
{
    long n = (long)r->load;
    if (n > FIT_BATCH_MAX)
        snprintf(r->note, sizeof r->note, "batch of %ld capped at %d requests", n, FIT_BATCH_MAX);
    return batch_arrival(c, r, n);
}

struct client_ops {
    cJSON *(*arrival)(const struct fit_ctx *c, struct fit_row *r);
    /* its throughput is the output tokens over the last completion (a batch: the benchmark's
     * "total output tokens / elapsed"), not the measurement window's rate */
    int by_makespan;
};

/* Indexed by enum fit_client. */
static const struct client_ops clients[] = {
    {client_concurrency, 0}, /* by_makespan() when emulated as a batch */
    {client_rate, 0},
    {client_batch, 1},
};

static int by_makespan(const struct fit_ctx *c, const struct fit_row *r)
{
    return clients[r->client].by_makespan || (r->client == FC_CONCURRENCY && !c->closed_loop);
}

static cJSON *serving(const struct fit_ctx *c, const struct fit_row *r)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "engine", "llm");
    cJSON_AddStringToObject(s, "framework", r->framework);
    cJSON_AddStringToObject(s, "model", r->model);
    cJSON_AddStringToObject(s, "dtype", r->dtype);
    if (*r->kv_dtype)
        cJSON_AddStringToObject(s, "kv_dtype", r->kv_dtype);
    if (r->max_num_seqs)
        cJSON_AddNumberToObject(s, "max_num_seqs", (double)r->max_num_seqs);
    if (r->max_batched)
        cJSON_AddNumberToObject(s, "max_batched_tokens", (double)r->max_batched);
    /* A batch row (batch_arrival: N users at t = 0) passes the engine's serial front end as
     * every request does: what it meets there is the benchmark's, not the client's. Lambda's
     * ten prompts at once went through vLLM's API server and queue at its tokeniser; TensorRT-LLM
     * 0.9's static batches ran in an offline harness, and that entry has no front end at all
     * ("server": 0 in the engine table, docs/llm.md#engine-versions). */
    for (int i = 0; i < c->n_params; i++)
        cJSON_AddNumberToObject(s, c->params[i].key, c->params[i].value);
    return s;
}

/* Whether the dataset is one sharesim ships (llm/tokens.h). */
static int shipped_dataset(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/datasets/%s.csv", cal_profile_dir(), name);
    return access(path, R_OK) == 0;
}

static cJSON *tokens(struct fit_row *r)
{
    cJSON *t = cJSON_CreateObject();
    if (strcmp(r->lengths, "fixed") != 0 && !shipped_dataset(r->lengths) && r->isl_mean >= 1 &&
        r->osl_mean >= 1) {
        /* A dataset sharesim does not ship (ShareGPT: docs/llm.md#request-lengths-from-
         * datasets): every request at the means the source states. */
        r->isl = lround(r->isl_mean);
        r->osl = lround(r->osl_mean);
        size_t k = strlen(r->note);
        snprintf(r->note + k, sizeof r->note - k, "%s%s lengths not shipped: fixed at %ld/%ld%s",
                 k ? "; " : "", r->lengths, r->isl, r->osl,
                 r->client == FC_RATE ? ""
                                      : "; throughput not compared (a batch's or a closed "
                                        "loop's depends on its longest requests)");
        /* Over a window of Poisson arrivals the rate is the mean's; a batch ends with its
         * longest request, which the means do not give. */
        if (r->client != FC_RATE)
            r->meas[FM_TPS] = NAN;
    }
    if (r->isl > 0 && r->osl > 0) {
        cJSON_AddItemToObject(t, "input", deterministic(r->isl));
        cJSON_AddItemToObject(t, "output", deterministic(r->osl));
    } else {
        cJSON_AddStringToObject(t, "dataset", r->lengths);
    }
    return t;
}

static cJSON *scenario_doc(const struct fit_ctx *c, struct fit_row *r)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "name", r->id);
    cJSON_AddStringToObject(d, "gpu", r->gpu);
    cJSON_AddNumberToObject(d, "gpus", 1);
    cJSON_AddNumberToObject(d, "seed", FIT_SEED);
    cJSON *ten = cJSON_CreateObject();
    cJSON_AddStringToObject(ten, "name", "llm");
    r->note[0] = '\0';
    cJSON_AddItemToObject(ten, "arrival", clients[r->client].arrival(c, r));
    cJSON_AddItemToObject(ten, "serving", serving(c, r));
    cJSON_AddItemToObject(ten, "tokens", tokens(r));
    cJSON *stop = cJSON_AddObjectToObject(d, "stop");
    cJSON_AddNumberToObject(stop, "requests", (double)r->requests);
    if (r->warmup > 0)
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(d, "warmup"), "requests",
                                (double)r->warmup);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "tenants"), ten);
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "name", "exclusive");
    cJSON_AddStringToObject(st, "kind", "exclusive");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "strategies"), st);
    return d;
}

char *fit_scenario_text(const struct fit_ctx *c, const struct fit_row *r)
{
    struct fit_row tmp = *r; /* the counts and the note are the row's own already */
    cJSON *d = scenario_doc(c, &tmp);
    char *t = cJSON_Print(d);
    cJSON_Delete(d);
    char *out = ss_xstrdup(t);
    cJSON_free(t);
    return out;
}

static int load_row(const struct fit_ctx *c, struct fit_row *r, struct scenario *sc, char *err,
                    size_t errlen)
{
    cJSON *d = scenario_doc(c, r);
    char *t = cJSON_PrintUnformatted(d);
    cJSON_Delete(d);
    char name[FIT_ID_MAX + 16];
    snprintf(name, sizeof name, "(row %s)", r->id);
    int rc = scn_load_text(name, t, strlen(t), sc, err, errlen);
    cJSON_free(t);
    if (rc)
        scn_free(sc); /* what a failed load parsed */
    return rc;
}

/* ---- preparing ---- */

/* Whether the scenario format takes a closed-loop arrival: a one-tenant probe. */
static int has_closed_loop(void)
{
    static const char probe[] =
        "{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 10}, \"tenants\": [{\"name\": \"t\", "
        "\"arrival\": {\"process\": \"closed\", \"users\": 2, \"think_ms\": 0}, \"serving\": "
        "{\"engine\": \"llm\", \"model\": \"Llama-2-7B\"}, \"tokens\": {\"input\": {\"dist\": "
        "\"deterministic\", \"tokens\": 8}, \"output\": {\"dist\": \"deterministic\", "
        "\"tokens\": 8}}}], \"strategies\": [{\"name\": \"e\", \"kind\": \"exclusive\"}]}";
    struct scenario sc;
    char err[SS_ERRLEN];
    int ok = scn_load_text("(probe)", probe, sizeof probe - 1, &sc, err, sizeof err) == 0;
    scn_free(&sc);
    return ok;
}

/* Whether row r loads with every parameter at its low bound, at its high bound and at its
 * start (the loader's ranges: docs/llm.md#the-serving-object). */
static int check_params(struct fit_ctx *c, struct fit_row *r, char *err, size_t errlen)
{
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < c->n_params; i++) {
            const struct fit_param *p = &c->params[i];
            c->params[i].value = k == 0 ? p->lo : k == 1 ? p->hi : p->start;
        }
        struct scenario sc;
        char why[SS_ERRLEN];
        if (load_row(c, r, &sc, why, sizeof why))
            return ss_errf(err, errlen, "--param: the parameters at their %s: %s",
                           k == 0   ? "low bounds"
                           : k == 1 ? "high bounds"
                                    : "starts",
                           why);
        scn_free(&sc);
    }
    return 0;
}

int fit_prepare(struct fit_ctx *c, char *err, size_t errlen)
{
    c->closed_loop = has_closed_loop();
    /* A row that does not load without the parameters is one the simulator cannot simulate
     * (an unknown GPU, model, type, dataset): skipped. One that does and fails with them is
     * a parameter the user got wrong: an error. */
    int n_params = c->n_params;
    c->n_params = 0;
    for (int i = 0; i < c->n_rows; i++) {
        struct fit_row *r = &c->rows[i];
        if (*r->skip)
            continue;
        struct scenario sc;
        char why[SS_ERRLEN];
        if (load_row(c, r, &sc, why, sizeof why)) {
            snprintf(r->skip, sizeof r->skip, "%s", why);
            continue;
        }
        scn_free(&sc);
    }
    c->n_params = n_params;
    for (int i = 0; i < c->n_rows; i++)
        if (!*c->rows[i].skip)
            return check_params(c, &c->rows[i], err, errlen);
    return 0;
}

/* ---- evaluating ---- */

/* The figure of an LLM tenant at index `lm` of its vector, in its JSON unit (ms, tokens/s). */
static double llm_fig(const struct run_result *res, int lm)
{
    const struct mt_metric *m = mt_of(MT_LLM, lm);
    return mt_value(m, &res->s[0], 0, 0) * m->out_scale;
}

static int makespan_tps(const struct scenario *sc, const struct fit_row *r,
                        const struct run_result *res, double *tps, char *err, size_t errlen)
{
    *tps = NAN;
    if (r->osl <= 0) /* a dataset: the output tokens of the run are not known here */
        return 0;
    struct cdf_result cd;
    if (cdf_collect(sc, -1, 1, &cd, err, errlen))
        return -1;
    double last_s = cdf_quantile(&cd, 0, 0, cdf_n_probs() - 1);
    const struct mt_metric *done = mt_of(MT_TENANT, TM_COMPLETED);
    double completed = mt_value(done, &res->s[0], 0, 0);
    cdf_free(&cd);
    if (last_s > 0)
        *tps = completed * (double)r->osl / last_s;
    return 0;
}

static int eval_row(struct fit_ctx *c, struct fit_row *r, char *err, size_t errlen)
{
    struct scenario sc;
    for (int m = 0; m < FM_N; m++)
        r->pred[m] = NAN;
    if (load_row(c, r, &sc, err, errlen))
        return -1;
    struct run_opts ro = {1, -1, 0, 0};
    struct run_result res;
    if (run_scenario(&sc, &ro, &res, err, errlen)) {
        scn_free(&sc);
        return -1;
    }
    c->sims++;
    r->pred[FM_TTFT] = llm_fig(&res, r->median ? LM_TTFT_P50 : LM_TTFT_MEAN);
    r->pred[FM_TPOT] = llm_fig(&res, r->median ? LM_TPOT_P50 : LM_TPOT_MEAN);
    int rc = 0;
    if (by_makespan(c, r)) {
        rc = makespan_tps(&sc, r, &res, &r->pred[FM_TPS], err, errlen);
        c->sims++;
    } else {
        r->pred[FM_TPS] = llm_fig(&res, LM_OUTPUT_TPS);
    }
    run_result_free(&res);
    scn_free(&sc);
    return rc;
}

/* Evaluates the simulated rows of one role (-1: every role). */
static int eval_rows(struct fit_ctx *c, int role, char *err, size_t errlen)
{
    for (int i = 0; i < c->n_rows; i++) {
        struct fit_row *r = &c->rows[i];
        if (*r->skip || (role >= 0 && r->holdout != role))
            continue;
        if (eval_row(c, r, err, errlen))
            return -1;
    }
    return 0;
}

static double objective(const struct fit_ctx *c);

int fit_evaluate(struct fit_ctx *c, char *err, size_t errlen)
{
    if (eval_rows(c, -1, err, errlen))
        return -1;
    c->objective = objective(c);
    return 0;
}

/* Σ (ln(pred / measured))² over the fit rows' measured metrics; with c->l1, Σ |ln(pred /
 * measured)|: the robust choice when some rows are off for reasons no parameter can fix (a
 * scheduler the source does not describe), which squares would let pull every other row. */
static double objective(const struct fit_ctx *c)
{
    double sum = 0;
    for (int i = 0; i < c->n_rows; i++) {
        const struct fit_row *r = &c->rows[i];
        if (*r->skip || r->holdout)
            continue;
        for (int m = 0; m < FM_N; m++) {
            if (isnan(r->meas[m]))
                continue;
            double e = r->pred[m] > 0 && isfinite(r->pred[m]) ? log(r->pred[m] / r->meas[m])
                                                              : log(FIT_PENALTY_FACTOR);
            sum += c->l1 ? fabs(e) : e * e;
        }
    }
    return sum;
}

/* ---- the fit ---- */

static double to_value(const struct fit_param *p, double u)
{
    return p->lo + (p->hi - p->lo) / (1.0 + exp(-u));
}

static double to_u(const struct fit_param *p, double v)
{
    /* A start on a bound maps to ±10 (within 5e-5 of the range of it): the logistic never
     * reaches its bounds. */
    double f = (v - p->lo) / (p->hi - p->lo);
    if (f < 4.5e-5)
        f = 4.5e-5;
    if (f > 1 - 4.5e-5)
        f = 1 - 4.5e-5;
    return log(f / (1 - f));
}

struct fit_job {
    struct fit_ctx *c;
    int failed;
    char err[SS_ERRLEN];
};

static double fit_fn(const gsl_vector *u, void *arg)
{
    struct fit_job *j = arg;
    if (j->failed)
        return GSL_POSINF;
    for (int i = 0; i < j->c->n_params; i++)
        j->c->params[i].value = to_value(&j->c->params[i], gsl_vector_get(u, (size_t)i));
    if (eval_rows(j->c, 0, j->err, sizeof j->err)) {
        j->failed = 1;
        return GSL_POSINF;
    }
    return objective(j->c);
}

/* A value to 6 significant digits, as the report writes it: the figures reported are those of
 * the values written. */
static double round6(double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.6g", x);
    return strtod(buf, NULL);
}

int fit_run(struct fit_ctx *c, char *err, size_t errlen)
{
    size_t n = (size_t)c->n_params;
    struct fit_job job = {c, 0, ""};
    gsl_multimin_function fn = {fit_fn, n, &job};
    gsl_vector *u = gsl_vector_alloc(n), *step = gsl_vector_alloc(n);
    for (size_t i = 0; i < n; i++) {
        gsl_vector_set(u, i, to_u(&c->params[i], c->params[i].start));
        gsl_vector_set(step, i, 1.0);
    }
    /* A failed run makes the function infinite, which GSL reports through its error handler;
     * the default one aborts, and the failure is ours to report. */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_multimin_fminimizer *s =
        gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, n);
    gsl_multimin_fminimizer_set(s, &fn, u, step);
    c->iterations = 0;
    c->converged = 0;
    while (!job.failed && c->iterations < FIT_ITER_MAX) {
        c->iterations++;
        if (gsl_multimin_fminimizer_iterate(s))
            break;
        if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), FIT_SIMPLEX_TOL) ==
            GSL_SUCCESS) {
            c->converged = 1;
            break;
        }
    }
    const gsl_vector *best = gsl_multimin_fminimizer_x(s);
    for (size_t i = 0; i < n; i++)
        c->params[i].value = round6(to_value(&c->params[i], gsl_vector_get(best, i)));
    gsl_multimin_fminimizer_free(s);
    gsl_vector_free(u);
    gsl_vector_free(step);
    gsl_set_error_handler(old);
    if (job.failed)
        return ss_errf(err, errlen, "%s", job.err);
    return fit_evaluate(c, err, errlen);
}
