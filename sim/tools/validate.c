/*
 * validate — the grid of exactly solvable configurations, its runner and its
 * reports (validate.h states what is compared and the pass rule).
 *
 * A configuration is a generated scenario text with one strategy, a number of
 * replications and up to VAL_MAX_METRICS (metric, exact value) pairs. The unit of
 * work is one (configuration, replication) task: load the scenario, run_one(), pull
 * the metrics out. Tasks are independent, so `jobs` > 1 runs them in the worker
 * pool (tools/pool.h), largest first so the long ones do not end up last; each
 * sends back its VAL_NV doubles and the parent files them under the task index,
 * which keeps the output identical for any `jobs`.
 *
 * Run lengths. Every configuration serves 1 ms of work per request on average
 * (μ = 1000/s). The full grid gives each M/M/c point at least 1e7 measured
 * requests over its replications, more at high load, where the relaxation time
 * (≈ 1/(μ(1 − √ρ)²) for c = 1) grows and with it the relative variance of a
 * sample mean, like (1 − ρ)^−2 per request (Whitt 1989, "Planning queueing
 * simulations"). Each replication discards a warm-up of max(1e4, 2 %)
 * requests, dozens of relaxation times even at ρ = 0.95.
 *
 * Rows whose CI is wider than 1 % are decided by the 95 % interval alone and
 * fail by chance in about 1 run in 20 each; the reports count them
 * (n_ci_limited) so a reader can tell chance from a systematic error.
 */
#include "base/jsonv.h"
#include "tools/validate.h"
#include "core/analytic.h"
#include "tools/partial.h"
#include "tools/pool.h"
#include "report/report.h"
#include "core/run.h"
#include "core/scenario.h"
#include "core/stats.h"
#include "base/util.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VAL_MAX_METRICS 4
#define VAL_NV (VAL_MAX_METRICS + 1) /* the metrics, then the measured request count */
#define VAL_MU 1000.0                /* service rate: 1 ms mean work everywhere */

/* Which figure of a replication's result a metric reads. */
enum val_x { VX_WAIT_MEAN, VX_LAT_MEAN, VX_LAT_P99, VX_THROUGHPUT, VX_SWITCH, VX_UTIL };

struct val_metric {
    const char *name;
    enum val_x x;
    double exact;
    const char *unit;
};

struct val_case {
    char family[24];
    char config[64];
    char *json;
    int reps;
    int n_metrics;
    struct val_metric m[VAL_MAX_METRICS];
    double cost; /* expected requests per replication: big tasks are dispatched first */
};

struct val_grid {
    int n, cap;
    struct val_case *c;
    unsigned long seed;
    double scale;
};

int val_judge(double exact, double mean, double ci95)
{
    if (!isfinite(mean) || !isfinite(exact))
        return 0;
    double d = fabs(mean - exact);
    if (isfinite(ci95) && d <= ci95)
        return 1;
    return d < VAL_REL_TOL * fabs(exact);
}

/* ---- the grid ------------------------------------------------------------ */

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    SS_ASSERT(n >= 0);
    char *s = ss_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* context_state_mb 0: a time-slice switch then costs exactly switch_us, the s of the formulas
 * (the other cases do not switch). */
static const char *const work_exp =
    "{\"dist\": \"exponential\", \"mean_ms\": 1, \"context_state_mb\": 0}";
static const char *const work_det =
    "{\"dist\": \"deterministic\", \"ms\": 1, \"context_state_mb\": 0}";
static const char *const work_logn =
    "{\"dist\": \"lognormal\", \"mean_ms\": 1, \"cv\": 2, \"context_state_mb\": 0}";
static const char *const work_det03 =
    "{\"dist\": \"deterministic\", \"ms\": 0.3, \"context_state_mb\": 0}";

static struct val_case *add_case(struct val_grid *g, const char *family, int reps, double cost,
                                 const char *config_fmt, ...) __attribute__((format(printf, 5, 6)));
static struct val_case *add_case(struct val_grid *g, const char *family, int reps, double cost,
                                 const char *config_fmt, ...)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->c = ss_xrealloc(g->c, (size_t)g->cap * sizeof *g->c);
    }
    struct val_case *c = &g->c[g->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->family, sizeof c->family, "%s", family);
    va_list ap;
    va_start(ap, config_fmt);
    vsnprintf(c->config, sizeof c->config, config_fmt, ap);
    va_end(ap);
    c->reps = reps;
    c->cost = cost;
    return c;
}

static void add_metric(struct val_case *c, const char *name, enum val_x x, double exact,
                       const char *unit)
{
    SS_ASSERT(c->n_metrics < VAL_MAX_METRICS);
    c->m[c->n_metrics++] = (struct val_metric){name, x, exact, unit};
}

/* Configuration k's seed: spread out so no two configurations share random streams. */
static unsigned long case_seed(const struct val_grid *g)
{
    return (g->seed + 7919ul * (unsigned long)g->n) & 0xfffffffful;
}

/* Scenario text; `stop` and `warmup` are JSON objects, `tenants` the array's inside. */
static char *scenario(const struct val_grid *g, int gpus, const char *stop, const char *warmup,
                      const char *tenants, const char *strategy)
{
    return xprintf("{\"name\": \"validate\", \"gpu\": \"A100-80GB\", \"gpus\": %d, \"seed\": %lu,"
                   " \"stop\": %s, \"warmup\": %s, \"tenants\": [%s], \"strategies\": [%s]}",
                   gpus, case_seed(g), stop, warmup, tenants, strategy);
}

/* stop/warmup objects for `measured` requests per replication after a warm-up. */
static void request_budget(const struct val_grid *g, double total, int reps, char *stop,
                           char *warmup, size_t n, double *per_rep)
{
    long measured = (long)ceil(total * g->scale / reps);
    long warm = measured / 50 > 10000 ? measured / 50 : 10000;
    snprintf(stop, n, "{\"requests\": %ld}", measured + warm);
    snprintf(warmup, n, "{\"requests\": %ld}", warm);
    *per_rep = (double)(measured + warm);
}

static char *poisson_tenant(const char *name, double rate_per_s, const char *work)
{
    return xprintf("{\"name\": \"%s\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\":"
                   " %.17g}, \"work\": %s}",
                   name, rate_per_s, work);
}

static void add_mmc(struct val_grid *g, int c, double rho, double total, int reps)
{
    double lambda = rho * c * VAL_MU, per_rep;
    char stop[64], warm[64];
    request_budget(g, total, reps, stop, warm, sizeof stop, &per_rep);
    char *ten = poisson_tenant("t", lambda, work_exp);
    char *json = scenario(g, c, stop, warm, ten, "{\"name\": \"fifo\", \"kind\": \"exclusive\"}");
    free(ten);
    struct val_case *k = add_case(g, "M/M/c", reps, per_rep, "c=%d rho=%.2f", c, rho);
    k->json = json;
    add_metric(k, "mean wait", VX_WAIT_MEAN, an_mmc_mean_wait_s(lambda, VAL_MU, c), "s");
    add_metric(k, "mean sojourn", VX_LAT_MEAN, an_mmc_mean_sojourn_s(lambda, VAL_MU, c), "s");
    add_metric(k, "p99 sojourn", VX_LAT_P99, an_mmc_sojourn_quantile_s(lambda, VAL_MU, c, 0.99),
               "s");
}

/* M/G/1-PS: one GPU, exclusive with the PS discipline; `work` names the distribution. */
static void add_ps(struct val_grid *g, double rho, const char *work_name, const char *work,
                   double total, int reps)
{
    double lambda = rho * VAL_MU, per_rep;
    char stop[64], warm[64];
    request_budget(g, total, reps, stop, warm, sizeof stop, &per_rep);
    char *ten = poisson_tenant("t", lambda, work);
    char *json = scenario(g, 1, stop, warm, ten,
                          "{\"name\": \"ps\", \"kind\": \"exclusive\", \"discipline\": \"ps\"}");
    free(ten);
    struct val_case *k = add_case(g, "M/G/1-PS", reps, per_rep, "%s rho=%.2f", work_name, rho);
    k->json = json;
    /* Deterministic work: every request has size x = 1 ms, so the conditional mean
     * x/(1 − ρ) is the mean; otherwise insensitivity gives E[S]/(1 − ρ). */
    double exact = work == work_det ? an_mm1ps_mean_sojourn_given_work_s(lambda, VAL_MU, 1e-3)
                                    : an_mm1ps_mean_sojourn_s(lambda, VAL_MU);
    add_metric(k, "mean sojourn", VX_LAT_MEAN, exact, "s");
}

/* Zero-switch time-slicing: n Poisson tenants with the given shares of load rho. */
static void add_ts0(struct val_grid *g, int n, const double *shares, double rho, double total,
                    int reps)
{
    double lambda = rho * VAL_MU, per_rep;
    char stop[64], warm[64];
    request_budget(g, total, reps, stop, warm, sizeof stop, &per_rep);
    char *tenants = ss_xstrdup("");
    char shares_txt[48] = "";
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        char *t = poisson_tenant(name, lambda * shares[i], work_exp);
        char *joined = xprintf("%s%s%s", tenants, i ? ", " : "", t);
        free(t);
        free(tenants);
        tenants = joined;
        size_t l = strlen(shares_txt);
        snprintf(shares_txt + l, sizeof shares_txt - l, "%s%g", i ? ":" : "", shares[i]);
    }
    char *json = scenario(g, 1, stop, warm, tenants,
                          "{\"name\": \"ts\", \"kind\": \"timeslice\", \"slice_ms\": 1,"
                          " \"switch_us\": 0}");
    free(tenants);
    struct val_case *k =
        add_case(g, "timeslice s=0", reps, per_rep, "%d tenants %s rho=%.2f", n, shares_txt, rho);
    k->json = json;
    add_metric(k, "mean sojourn", VX_LAT_MEAN, an_mmc_mean_sojourn_s(lambda, VAL_MU, 1), "s");
    add_metric(k, "utilization", VX_UTIL, rho, "");
}

/* Saturated time-slicing: n always-busy tenants, slice q, switch s. */
static void add_tssat(struct val_grid *g, int n, double slice_ms, double switch_us,
                      const char *work_name, const char *work, double mean_work_s,
                      double duration_s, int reps)
{
    double dur = duration_s * g->scale;
    double q = slice_ms * 1e-3, sw = switch_us * 1e-6;
    double gamma = an_ts_capacity_fraction(q, sw);
    char stop[64], warm[64];
    snprintf(stop, sizeof stop, "{\"duration_s\": %.17g}", dur);
    snprintf(warm, sizeof warm, "{\"duration_s\": %.17g}", dur / 50);
    char *tenants = ss_xstrdup("");
    for (int i = 0; i < n; i++) {
        char *joined = xprintf("%s%s{\"name\": \"t%d\", \"arrival\": {\"process\": "
                               "\"saturated\"}, \"work\": %s}",
                               tenants, i ? ", " : "", i, work);
        free(tenants);
        tenants = joined;
    }
    char *strategy = xprintf("{\"name\": \"ts\", \"kind\": \"timeslice\", \"slice_ms\": %.17g,"
                             " \"switch_us\": %.17g}",
                             slice_ms, switch_us);
    char *json = scenario(g, 1, stop, warm, tenants, strategy);
    free(tenants);
    free(strategy);
    struct val_case *k = add_case(g, "timeslice saturated", reps, dur * gamma / mean_work_s,
                                  "%d tenants q=%gms s=%gus %s", n, slice_ms, switch_us, work_name);
    k->json = json;
    add_metric(k, "throughput", VX_THROUGHPUT, gamma / mean_work_s, "1/s");
    add_metric(k, "switch overhead", VX_SWITCH, sw / (q + sw), "");
    add_metric(k, "utilization", VX_UTIL, gamma, "");
}

static void build_full(struct val_grid *g)
{
    static const int cs[] = {1, 2, 4, 7, 8, 16};
    static const double rhos[] = {0.3, 0.5, 0.8, 0.9, 0.95};
    /* Measured requests per M/M/c point; the high loads get more (see the top). */
    static const double mmc_total[] = {1e7, 1e7, 1e7, 3e7, 1e8};
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++)
        for (size_t k = 0; k < sizeof rhos / sizeof *rhos; k++)
            add_mmc(g, cs[i], rhos[k], mmc_total[k], 10);
    static const double ps_rhos[] = {0.5, 0.8, 0.9};
    static const double ps_total[] = {1e7, 1e7, 3e7};
    for (size_t k = 0; k < 3; k++) {
        add_ps(g, ps_rhos[k], "exponential", work_exp, ps_total[k], 10);
        add_ps(g, ps_rhos[k], "deterministic", work_det, ps_total[k], 10);
        /* cv = 2: the mean sojourn is as exact but noisier (long requests linger). */
        add_ps(g, ps_rhos[k], "lognormal cv=2", work_logn, 2 * ps_total[k], 10);
    }
    static const double two[] = {0.5, 0.5}, four[] = {0.4, 0.3, 0.2, 0.1};
    add_ts0(g, 2, two, 0.5, 1e7, 10);
    add_ts0(g, 2, two, 0.8, 1e7, 10);
    add_ts0(g, 2, two, 0.9, 3e7, 10);
    add_ts0(g, 4, four, 0.8, 1e7, 10);
    add_tssat(g, 2, 1, 50, "exponential", work_exp, 1e-3, 200, 10);
    add_tssat(g, 2, 1, 250, "deterministic 0.3ms", work_det03, 0.3e-3, 200, 10);
    add_tssat(g, 3, 2, 100, "exponential", work_exp, 1e-3, 200, 10);
    add_tssat(g, 4, 1.024, 50, "lognormal cv=2", work_logn, 1e-3, 200, 10);
}

/* About 1e7 requests in all: a few seconds, for `make test`. */
static void build_quick(struct val_grid *g)
{
    static const int cs[] = {1, 4, 16};
    static const double rhos[] = {0.5, 0.8};
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < 2; k++)
            add_mmc(g, cs[i], rhos[k], 1e6, 10);
    add_ps(g, 0.5, "exponential", work_exp, 5e5, 10);
    add_ps(g, 0.5, "deterministic", work_det, 5e5, 10);
    add_ps(g, 0.5, "lognormal cv=2", work_logn, 1e6, 10);
    static const double two[] = {0.5, 0.5}, four[] = {0.4, 0.3, 0.2, 0.1};
    add_ts0(g, 2, two, 0.5, 5e5, 10);
    add_ts0(g, 4, four, 0.8, 1e6, 10);
    add_tssat(g, 2, 1, 250, "exponential", work_exp, 1e-3, 20, 10);
    add_tssat(g, 3, 1, 50, "deterministic 0.3ms", work_det03, 0.3e-3, 20, 5);
}

static void grid_free(struct val_grid *g)
{
    for (int i = 0; i < g->n; i++)
        free(g->c[i].json);
    free(g->c);
    memset(g, 0, sizeof *g);
}

/* ---- one task ------------------------------------------------------------ */

static double extract(const struct strategy_result *r, enum val_x x)
{
    switch (x) {
    case VX_WAIT_MEAN:
        return r->t[TM_WAIT_MEAN];
    case VX_LAT_P99:
        return r->t[TM_LAT_P99];
    case VX_LAT_MEAN: {
        /* Over all tenants, each request counting once. */
        double n = 0, sum = 0;
        for (int i = 0; i < r->n_tenants; i++) {
            const double *t = r->t + (size_t)i * TM_N;
            n += t[TM_COMPLETED];
            sum += t[TM_COMPLETED] * t[TM_LAT_MEAN];
        }
        return n > 0 ? sum / n : NAN;
    }
    case VX_THROUGHPUT:
        return r->m[SM_THROUGHPUT];
    case VX_SWITCH:
        return r->m[SM_SWITCH];
    case VX_UTIL:
        return r->m[SM_UTIL];
    }
    return NAN;
}

/* One (configuration, replication): its figures into v; 0, or -1 with the message when the
 * run failed (eng_run). */
static int run_task(const struct val_case *c, int rep, double *v, char *err, size_t errlen)
{
    struct scenario sc;
    char why[SS_ERRLEN];
    if (scn_load_text("(validate)", c->json, strlen(c->json), &sc, why, sizeof why))
        SS_FATAL("validate: generated scenario %s does not load: %s", c->config, why);
    struct strategy_result res;
    if (run_one(&sc, &sc.strategies[0], rep, &res, err, errlen)) {
        scn_free(&sc);
        return -1;
    }
    for (int k = 0; k < VAL_NV; k++)
        v[k] = NAN;
    for (int k = 0; k < c->n_metrics; k++)
        v[k] = extract(&res, c->m[k].x);
    double measured = 0;
    for (int i = 0; i < res.n_tenants; i++)
        measured += res.t[(size_t)i * TM_N + TM_ARRIVED];
    v[VAL_NV - 1] = measured;
    strategy_result_free(&res);
    scn_free(&sc);
    return 0;
}

/* ---- running the tasks ---------------------------------------------------- */

struct val_task {
    int c, rep;
};

/* What the pool needs to run the tasks; a task's result is its VAL_NV doubles. */
struct val_pool {
    const struct val_grid *g;
    const struct val_task *tasks;
    const struct val_opts *o;
    const struct val_batch *b; /* shard and merge; never NULL */
    double *results;           /* VAL_NV per task, filed by task index */
    struct part_out *part;     /* a shard's partial file, or NULL */
};

static int pool_task(void *ctx, long t, struct pool_buf *out, char *err, size_t errlen)
{
    const struct val_pool *p = ctx;
    double v[VAL_NV];
    if (run_task(&p->g->c[p->tasks[t].c], p->tasks[t].rep, v, err, errlen))
        return -1; /* the pool fails the task with this message */
    pool_buf_add(out, v, sizeof v);
    return 0;
}

static void pool_deliver(void *ctx, long t, const void *data, size_t len)
{
    const struct val_pool *p = ctx;
    SS_ASSERT(len == VAL_NV * sizeof(double));
    memcpy(p->results + (size_t)t * VAL_NV, data, len);
    if (p->part)
        part_add(p->part, t, data, len);
}

/* --merge: a task's bytes from a partial file (their hash matched): VAL_NV doubles, every
 * figure the task measures finite (a run never produces NaN there; the unused slots are
 * NaN), the request count a non-negative integer. Otherwise the item is damaged. */
static void pool_describe(void *ctx, long t, char *buf, size_t n);

static int merge_deliver(void *ctx, long t, const void *data, size_t len, char *why, size_t whylen)
{
    struct val_pool *p = ctx;
    char name[160];
    pool_describe(p, t, name, sizeof name);
    if (len != VAL_NV * sizeof(double))
        return ss_errf(why, whylen, "%s: damaged: %zu bytes, expected %d numbers", name, len,
                       VAL_NV);
    double v[VAL_NV];
    memcpy(v, data, len);
    const struct val_case *c = &p->g->c[p->tasks[t].c];
    for (int k = 0; k < c->n_metrics; k++)
        if (!isfinite(v[k]))
            return ss_errf(why, whylen,
                           "%s: damaged: figure %d (%s) is %g, expected a finite "
                           "number",
                           name, k, c->m[k].name, v[k]);
    double n = v[VAL_NV - 1];
    if (!isfinite(n) || n < 0 || n != floor(n))
        return ss_errf(why, whylen, "%s: damaged: request count %g, expected an integer >= 0", name,
                       n);
    memcpy(p->results + (size_t)t * VAL_NV, v, len);
    return 0;
}

static void pool_progress(void *ctx, long done, long n)
{
    const struct val_pool *p = ctx;
    if (p->o->progress)
        fprintf(stderr, "\rvalidate: %ld/%ld runs", done, n);
    else if (pool_ranks() > 1 && pool_progress_line_due(done, n))
        fprintf(stderr, "validate: %ld/%ld runs on %d ranks\n", done, n, pool_ranks());
}

static void pool_describe(void *ctx, long t, char *buf, size_t n)
{
    const struct val_pool *p = ctx;
    const struct val_case *c = &p->g->c[p->tasks[t].c];
    snprintf(buf, n, "%s %s, replication %d", c->family, c->config, p->tasks[t].rep);
}

/* ---- aggregation ---------------------------------------------------------- */

static void aggregate(const struct val_grid *g, const struct val_task *tasks, int n_tasks,
                      const double *results, struct val_report *out)
{
    int n_rows = 0;
    for (int i = 0; i < g->n; i++)
        n_rows += g->c[i].n_metrics;
    out->rows = ss_xcalloc((size_t)n_rows, sizeof *out->rows);
    double *v = NULL;
    int first = 0;
    for (int i = 0; i < g->n; i++) {
        const struct val_case *c = &g->c[i];
        while (tasks[first].c != i)
            first++;
        SS_ASSERT(first + c->reps <= n_tasks);
        v = ss_xrealloc(v, (size_t)c->reps * sizeof *v);
        double requests = 0;
        for (int r = 0; r < c->reps; r++)
            requests += results[(size_t)(first + r) * VAL_NV + VAL_NV - 1];
        out->requests += requests;
        for (int k = 0; k < c->n_metrics; k++) {
            struct val_row *row = &out->rows[out->n++];
            for (int r = 0; r < c->reps; r++)
                v[r] = results[(size_t)(first + r) * VAL_NV + k];
            snprintf(row->family, sizeof row->family, "%s", c->family);
            snprintf(row->config, sizeof row->config, "%s", c->config);
            snprintf(row->metric, sizeof row->metric, "%s", c->m[k].name);
            row->unit = c->m[k].unit;
            row->exact = c->m[k].exact;
            st_mean_ci95(v, c->reps, &row->mean, &row->ci95);
            row->rel_err = (row->mean - row->exact) / row->exact;
            double se = c->reps > 1 ? row->ci95 / gsl_cdf_tdist_Pinv(0.975, c->reps - 1) : NAN;
            row->z = se > 0 ? (row->mean - row->exact) / se : NAN;
            row->ci_limited = !(row->ci95 <= VAL_REL_TOL * fabs(row->exact));
            out->n_ci_limited += row->ci_limited;
            row->replications = c->reps;
            row->requests = requests;
        }
    }
    free(v);
    /* The verdict: each row's interval is widened to a family-wise 95 % level over
     * the whole grid (Bonferroni: two-sided 1 − 0.05/n per row). At 95 % per row a
     * grid of 119 rows, 27 of them interval-limited, fails one or two rows in most
     * runs of an exact simulator; with the correction the whole grid raises a false
     * alarm in at most 1 run in 20, and a real bias still fails its row. */
    for (int i = 0; i < out->n; i++) {
        struct val_row *row = &out->rows[i];
        double half = row->ci95;
        if (row->replications > 1 && isfinite(half))
            half *= gsl_cdf_tdist_Pinv(1 - 0.025 / out->n, row->replications - 1) /
                    gsl_cdf_tdist_Pinv(0.975, row->replications - 1);
        row->pass = val_judge(row->exact, row->mean, half);
        out->n_failed += !row->pass;
    }
}

static int by_cost_desc(long ia, long ib, const struct val_grid *g, const struct val_task *tasks)
{
    double ca = g->c[tasks[ia].c].cost, cb = g->c[tasks[ib].c].cost;
    if (ca != cb)
        return ca > cb ? -1 : 1;
    return ia < ib ? -1 : ia > ib;
}

/* Insertion sort: a few hundred tasks, and qsort has no context argument in C11. */
static void order_tasks(const struct val_grid *g, const struct val_task *tasks, long *order, int n)
{
    for (int i = 0; i < n; i++) {
        long x = i;
        int j = i;
        while (j > 0 && by_cost_desc(x, order[j - 1], g, tasks) < 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
}

/*
 * What makes results comparable across shards: the grid (every configuration's scenario
 * text and replications, which carry the seed and the scale) and the version. A partial
 * file with another key is another run's.
 */
static void grid_key(const struct val_grid *g, const struct val_opts *o, int n_tasks, char *key,
                     size_t n)
{
    uint64_t h = 14695981039346656037ULL;
    for (int i = 0; i < g->n; i++) {
        char reps[32];
        snprintf(reps, sizeof reps, "\n%d\n", g->c[i].reps);
        for (const char *s = g->c[i].json; *s; s++)
            h = (h ^ (unsigned char)*s) * 1099511628211ULL;
        for (const char *s = reps; *s; s++)
            h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    }
    snprintf(key, n, "validate %s grid=%s seed=%lu scale=%.17g tasks=%d hash=%016llx",
             SHARESIM_VERSION, o->quick ? "quick" : "full", o->seed, g->scale, n_tasks,
             (unsigned long long)h);
}

/* The tasks of this run (all, or the shard's) in the pool; a shard's go to its partial file. */
static int run_tasks(const struct val_grid *g, const struct val_task *tasks, int n_tasks,
                     struct val_pool *vp, const char *key, char *err, size_t errlen)
{
    const struct val_opts *o = vp->o;
    const struct val_batch *b = vp->b;
    struct pool_job job = {0};
    struct part_out part;
    int sharded = b->shard.n > 1;
    job.n_items = n_tasks;
    /* jobs <= 1: in this process, as validate.h promises (no fork, easy to debug). With
     * workers, the big tasks go first so the long ones do not end up last. */
    job.jobs = o->jobs > 1 ? o->jobs : 0;
    long *order = NULL;
    if (job.jobs > 0 || pool_ranks() > 1 || sharded) {
        order = ss_xmalloc((size_t)n_tasks * sizeof *order);
        order_tasks(g, tasks, order, n_tasks);
        long k = 0;
        for (long i = 0; i < n_tasks; i++)
            if (shard_has(&b->shard, order[i]))
                order[k++] = order[i];
        job.n_order = k;
    }
    if (sharded && pool_is_writer()) {
        if (part_open(&part, b->partial, key, n_tasks, err, errlen)) {
            free(order);
            return -1;
        }
        vp->part = &part;
    }
    job.order = order;
    job.ctx = vp;
    job.work = pool_task;
    job.deliver = pool_deliver;
    job.progress = pool_progress;
    job.describe = pool_describe;
    char msg[SS_ERRLEN];
    /* A shard with no task (more shards than tasks) runs no pool: order with n_order = 0
     * would mean every task. */
    int rc = order && job.n_order == 0 && pool_is_writer() ? 0 : pool_run(&job, msg, sizeof msg);
    if (rc)
        ss_errf(err, errlen, "validate: %s", msg);
    free(order);
    if (o->progress)
        fprintf(stderr, "\r%*s\r", 40, "");
    if (vp->part) {
        if (rc == 0)
            rc = part_commit(&part, err, errlen);
        else
            part_abort(&part);
        vp->part = NULL;
    }
    return rc;
}

/* --merge: every task's result from the partial files, each task exactly once. */
static int merge_partials(struct val_pool *vp, int n_tasks, const char *key, char *err,
                          size_t errlen)
{
    const struct val_batch *b = vp->b;
    unsigned char *seen = ss_xcalloc((size_t)n_tasks + 1, 1);
    int rc = 0;
    for (int f = 0; rc == 0 && f < b->n_merge; f++)
        rc = part_read(b->merge[f], key, n_tasks, seen, merge_deliver, vp, err, errlen);
    long missing = 0, first = -1;
    for (long t = 0; rc == 0 && t < n_tasks; t++)
        if (!seen[t] && missing++ == 0)
            first = t;
    if (rc == 0 && missing > 0) {
        char name[160];
        pool_describe(vp, first, name, sizeof name);
        rc = ss_errf(err, errlen,
                     "validate --merge: %ld of %d runs are in no partial file, the first: %s "
                     "(run %ld; a shard I/N holds the runs t with t mod N = I)",
                     missing, n_tasks, name, first);
    }
    free(seen);
    return rc;
}

int val_run(const struct val_opts *o, struct val_report *out, char *err, size_t errlen)
{
    return val_run_batch(o, NULL, out, err, errlen);
}

int val_run_batch(const struct val_opts *o, const struct val_batch *batch, struct val_report *out,
                  char *err, size_t errlen)
{
    static const struct val_batch none = {{0, 1}, NULL, NULL, 0};
    const struct val_batch *b = batch ? batch : &none;
    memset(out, 0, sizeof *out);
    struct val_grid g = {0, 0, NULL, o->seed, o->scale > 0 ? o->scale : 1.0};
    if (o->quick)
        build_quick(&g);
    else
        build_full(&g);
    int n_tasks = 0;
    for (int i = 0; i < g.n; i++)
        n_tasks += g.c[i].reps;
    struct val_task *tasks = ss_xmalloc((size_t)n_tasks * sizeof *tasks);
    int t = 0;
    for (int i = 0; i < g.n; i++)
        for (int r = 0; r < g.c[i].reps; r++)
            tasks[t++] = (struct val_task){i, r};
    double *results = ss_xcalloc((size_t)n_tasks * VAL_NV, sizeof *results);
    struct val_pool vp = {&g, tasks, o, b, results, NULL};
    char key[256];
    grid_key(&g, o, n_tasks, key, sizeof key);
    int rc;
    /* Only rank 0 reads partial files; under MPI the others wait in the pool for tasks
     * that never come, and are released when rank 0 exits. */
    if (b->n_merge > 0 && pool_is_writer())
        rc = merge_partials(&vp, n_tasks, key, err, errlen);
    else
        rc = run_tasks(&g, tasks, n_tasks, &vp, key, err, errlen);
    /* Under MPI only rank 0 gets the results; the other ranks have nothing to report, nor
     * has a shard. */
    if (rc == 0 && pool_is_writer() && b->shard.n <= 1) {
        out->quick = o->quick;
        out->seed = o->seed;
        out->scale = g.scale;
        aggregate(&g, tasks, n_tasks, results, out);
    }
    free(results);
    free(tasks);
    grid_free(&g);
    return rc;
}

void val_report_free(struct val_report *r)
{
    free(r->rows);
    memset(r, 0, sizeof *r);
}

/* ---- reports -------------------------------------------------------------- */

/* Display unit and factor: times in ms, rates and fractions as they are. */
static const char *shown_unit(const char *unit, double *factor)
{
    if (strcmp(unit, "s") == 0) {
        *factor = 1e3;
        return "ms";
    }
    *factor = 1;
    return unit;
}

/* z to one decimal, "-" when undefined (identical replications). */
static void fmt_z(char *buf, size_t n, double z)
{
    if (isfinite(z))
        snprintf(buf, n, "%+.1f", z);
    else
        snprintf(buf, n, "-");
}

void val_print_table(FILE *fp, const struct val_report *r)
{
    fprintf(fp, "%-20s %-34s %-16s %-4s %11s %24s %8s %6s %3s %9s  %s\n", "family", "configuration",
            "metric", "unit", "exact", "simulated ± 95% CI", "rel.err", "z", "R", "requests",
            "result");
    for (int i = 0; i < r->n; i++) {
        const struct val_row *w = &r->rows[i];
        double f;
        const char *u = shown_unit(w->unit, &f);
        char sim[48];
        snprintf(sim, sizeof sim, "%.6g ± %.2g", w->mean * f, w->ci95 * f);
        char z[16];
        fmt_z(z, sizeof z, w->z);
        fprintf(fp, "%-20s %-34s %-16s %-4s %11.6g %22s %+7.2f%% %6s %3d %9.3g  %s\n", w->family,
                w->config, w->metric, u, w->exact * f, sim, 100 * w->rel_err, z, w->replications,
                w->requests, w->pass ? "pass" : "FAIL");
    }
}

void val_print_markdown(FILE *fp, const struct val_report *r, const char *command)
{
    fprintf(fp,
            "# Validation: the simulator against exact queueing results\n\n"
            "Generated by `%s` (%s grid, seed %lu%s;\n"
            "`--jobs N` gives the same file). Do not edit by hand: `make results` regenerates it.\n"
            "What each family checks and why the values are exact: docs/validate.md.\n\n"
            "**%d of %d rows pass.** The table shows the simulated mean with its 95 %%\n"
            "confidence interval (Student t over R independent replications). A row passes when\n"
            "the relative error is under %g %%, or when the interval covers the exact value at\n"
            "a family-wise 95 %% level over the %d rows (Bonferroni: each row's interval\n"
            "widened to two-sided 1 − 0.05/%d), so that an exact simulator fails the grid in at\n"
            "most 1 run in 20 instead of failing one or two of its rows in most runs. Times in\n"
            "ms; `z` is the error in standard errors; `requests` counts measured requests over\n"
            "all replications (warm-up excluded).\n\n"
            "%d rows have a confidence interval wider than ±%g %%, so their verdict rests on the\n"
            "interval alone; the others pass or fail on the %g %% rule.\n\n",
            command, r->quick ? "quick" : "full", r->seed, r->scale != 1.0 ? ", scaled" : "",
            r->n - r->n_failed, r->n, 100 * VAL_REL_TOL, r->n, r->n, r->n_ci_limited,
            100 * VAL_REL_TOL, 100 * VAL_REL_TOL);
    if (r->n_failed > 0) {
        fprintf(fp, "Failing rows:\n\n");
        for (int i = 0; i < r->n; i++) {
            const struct val_row *w = &r->rows[i];
            char z[16];
            fmt_z(z, sizeof z, w->z);
            if (!w->pass)
                fprintf(fp, "- %s %s, %s: %+.2f %%, z = %s\n", w->family, w->config, w->metric,
                        100 * w->rel_err, z);
        }
        fprintf(fp, "\n");
    }
    fprintf(fp, "| family | configuration | metric | exact | simulated ± 95 %% CI | rel. error "
                "| z | R | requests | result |\n"
                "|---|---|---|--:|--:|--:|--:|--:|--:|---|\n");
    for (int i = 0; i < r->n; i++) {
        const struct val_row *w = &r->rows[i];
        double f;
        const char *u = shown_unit(w->unit, &f);
        char metric[48], z[16];
        snprintf(metric, sizeof metric, "%s%s%s%s", w->metric, u[0] ? " (" : "", u,
                 u[0] ? ")" : "");
        fmt_z(z, sizeof z, w->z);
        fprintf(fp, "| %s | %s | %s | %.6g | %.6g ± %.2g | %+.2f %% | %s | %d | %.3g | %s |\n",
                w->family, w->config, metric, w->exact * f, w->mean * f, w->ci95 * f,
                100 * w->rel_err, z, w->replications, w->requests, w->pass ? "pass" : "**FAIL**");
    }
}

cJSON *val_json(const struct val_report *r)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "grid", r->quick ? "quick" : "full");
    cJSON_AddNumberToObject(doc, "seed", (double)r->seed);
    jv_out_add(doc, "scale", r->scale);
    cJSON_AddBoolToObject(doc, "passed", r->n_failed == 0);
    cJSON_AddNumberToObject(doc, "rows_failed", r->n_failed);
    cJSON_AddNumberToObject(doc, "rows_ci_limited", r->n_ci_limited);
    jv_out_add(doc, "rel_tolerance", VAL_REL_TOL);
    jv_out_add(doc, "requests", r->requests);
    cJSON *rows = cJSON_AddArrayToObject(doc, "rows");
    for (int i = 0; i < r->n; i++) {
        const struct val_row *w = &r->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "family", w->family);
        cJSON_AddStringToObject(o, "config", w->config);
        cJSON_AddStringToObject(o, "metric", w->metric);
        cJSON_AddStringToObject(o, "unit", w->unit);
        jv_out_add(o, "exact", w->exact);
        jv_out_add(o, "mean", w->mean);
        jv_out_add(o, "ci95", w->ci95);
        jv_out_add(o, "rel_err", w->rel_err);
        jv_out_add(o, "z", w->z);
        cJSON_AddBoolToObject(o, "ci_limited", w->ci_limited);
        cJSON_AddBoolToObject(o, "pass", w->pass);
        cJSON_AddNumberToObject(o, "replications", w->replications);
        jv_out_add(o, "requests", w->requests);
        cJSON_AddItemToArray(rows, o);
    }
    return doc;
}
