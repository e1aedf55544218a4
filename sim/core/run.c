/*
 * run — strategies × replications → aggregated results (see run.h).
 *
 * Definitions (also in docs/scenario.md):
 * - Measurement window: from the end of the warm-up to the end of arrivals (the stop; an
 *   arrival is a send, even when a serial front end delays it); requests still in flight then are drained (unless stop.drain is
 *   false) and their latencies counted, but throughput and utilisation are
 *   measured over the window only, so the drain does not dilute them.
 * - sla_attainment: requests completed within sla.p99_ms divided by all measured
 *   requests that ended (completed, rejected or failed): a rejected or failed
 *   request missed its SLA.
 * - slowdown_p99: p99 under this strategy / p99 of the same tenant under the
 *   scenario's first exclusive strategy (the baseline policy, policy_baseline()),
 *   or, if there is none, alone on a whole GPU of its own (an implicit baseline run
 *   with the same random numbers).
 * - fairness: Jain's index of throughput/weight over tenants.
 * - gpu_utilization, switch_overhead and cost count the GPUs the strategy
 *   occupies (gpus_used), not idle GPUs of the pool it leaves free.
 * - Percentiles over replications: the percentile of all replications' samples together
 *   (their histograms merged), not the mean of each replication's percentile — a p99.9 of
 *   200 samples is their maximum, and averaging maxima is biased low; the 95 % interval is
 *   the Student half-width of the per-replication percentiles around it. tail counts the
 *   samples beyond each percentile's rank (of the merged samples): fewer than
 *   TAIL_MIN_SAMPLES and the figure rests on a handful of requests. An LLM tenant's TTFT,
 *   TPOT and ITL percentiles are pooled the same way (their histograms, core/llmstats.h).
 */
#include "core/run.h"
#include "core/engine.h"
#include "core/llmstats.h"
#include "core/policy.h"
#include "core/stable.h"
#include "core/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double tail_p[TAIL_N] = {0.50, 0.95, 0.99, 0.999};

static void result_alloc(struct strategy_result *r, const char *name, const char *kind, int n)
{
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->kind = kind;
    r->n_tenants = n;
    r->t = ss_xcalloc((size_t)n * TM_N, sizeof *r->t);
    r->t_ci = ss_xcalloc((size_t)n * TM_N, sizeof *r->t_ci);
    r->tail = ss_xcalloc((size_t)(n ? n : 1) * TAIL_N, sizeof *r->tail);
    for (int k = 0; k < SM_N; k++)
        r->m_ci[k] = NAN;
    for (size_t k = 0; k < (size_t)n * TM_N; k++)
        r->t_ci[k] = NAN;
}

int run_has_llm(const struct scenario *sc)
{
    for (int i = 0; i < sc->n_tenants; i++)
        if (sc->tenants[i].llm)
            return 1;
    return 0;
}

static void llm_alloc(struct strategy_result *r)
{
    size_t n = (size_t)r->n_tenants * LM_N;
    r->llm = ss_xmalloc(n * sizeof *r->llm);
    r->llm_ci = ss_xmalloc(n * sizeof *r->llm_ci);
    r->llm_tail = ss_xcalloc((size_t)r->n_tenants * LM_TAIL_N + 1, sizeof *r->llm_tail);
    for (size_t k = 0; k < n; k++)
        r->llm[k] = r->llm_ci[k] = NAN;
}

void strategy_result_free(struct strategy_result *r)
{
    free(r->t);
    free(r->t_ci);
    free(r->llm);
    free(r->llm_ci);
    free(r->llm_tail);
    free(r->load);
    free(r->capacity);
    free(r->tail);
    cJSON_Delete(r->details);
    memset(r, 0, sizeof *r);
}

static double cost_per_hour(const struct scenario *sc, int gpus, int licensed_vgpus)
{
    if (sc->gpu_hour_usd < 0)
        return NAN;
    double c = gpus * sc->gpu_hour_usd;
    c += licensed_vgpus * sc->vgpu_license_usd_per_vgpu_year / (365.0 * 24.0);
    if (sc->power_usd_per_kwh > 0 && sc->gpu.power_kw > 0)
        c += gpus * sc->gpu.power_kw * sc->power_usd_per_kwh;
    return c;
}

/* Samples above the p-quantile's nearest rank (st_hist_quantile's rule) among n. */
static double beyond(uint64_t n, double p)
{
    if (n == 0)
        return 0;
    uint64_t rank = (uint64_t)ceil(p * (double)n);
    if (rank < 1)
        rank = 1;
    return (double)(n - (rank > n ? n : rank));
}

/* Sets a tenant's percentiles and tail counts from a histogram. */
static void set_percentiles(struct strategy_result *out, int i, const struct st_hist *h)
{
    double *t = res_t(out, i);
    for (int k = 0; k < TAIL_N; k++) {
        t[TM_LAT_P50 + k] = st_hist_quantile(h, tail_p[k]);
        out->tail[(size_t)i * TAIL_N + k] = beyond(h->n, tail_p[k]);
    }
}

/* The pooled samples of one strategy's replications, per tenant: the latency histogram of
 * every tenant, and an LLM tenant's TTFT, TPOT and ITL histograms (llm[i] NULL for others). */
struct run_pool {
    struct st_hist *lat;
    struct lst_stats **llm;
};

/* An LLM tenant's tail counts (run.h, LM_TAIL_N) from its TTFT, TPOT and ITL samples. */
static void set_llm_tails(struct strategy_result *out, int i, const struct lst_stats *l)
{
    const struct st_hist *h[3] = {&l->ttft, &l->tpot, &l->itl};
    double *tail = out->llm_tail + (size_t)i * LM_TAIL_N;
    for (int k = 0; k < 3; k++)
        for (int q = 0; q < 3; q++)
            tail[3 * k + q] = beyond(h[k]->n, tail_p[q]); /* p50, p95, p99 */
}

/* run_one, merging each tenant's samples into pool when pool is not NULL. */
static int run_one_pool(const struct scenario *sc, const struct strategy_cfg *st, int rep,
                        struct strategy_result *out, struct run_pool *pool, char *err,
                        size_t errlen)
{
    struct sim s;
    eng_init(&s, sc, st, rep);
    if (eng_run(&s, err, errlen)) {
        eng_free(&s);
        memset(out, 0, sizeof *out);
        return -1;
    }
    result_alloc(out, st->name, st->ops->kind, sc->n_tenants);
    out->m[SM_FRAGMENTATION] = NAN;
    if (run_has_llm(sc))
        llm_alloc(out);
    st->ops->finish(&s, s.pst, out);
    double window = s.t_stop - s.t_warm;
    double total_tp = 0;
    double *norm = ss_xcalloc((size_t)sc->n_tenants, sizeof *norm);
    for (int i = 0; i < sc->n_tenants; i++) {
        const struct tenant_stats *ts = &s.ten[i].st;
        const struct tenant_cfg *tc = &sc->tenants[i];
        double *t = res_t(out, i);
        t[TM_ARRIVED] = (double)ts->arrived;
        t[TM_COMPLETED] = (double)ts->completed;
        t[TM_REJECTED] = (double)ts->rejected;
        t[TM_FAILED] = (double)ts->failed;
        t[TM_IN_FLIGHT] = (double)(ts->arrived - ts->completed - ts->rejected - ts->failed);
        t[TM_THROUGHPUT] = window > 0 ? (double)ts->completed_in_window / window : NAN;
        t[TM_LAT_MEAN] = ts->completed ? ts->sum_latency_s / (double)ts->completed : NAN;
        set_percentiles(out, i, &ts->lat);
        if (pool)
            st_hist_merge(&pool->lat[i], &ts->lat);
        t[TM_WAIT_MEAN] = ts->completed ? ts->sum_wait_s / (double)ts->completed : NAN;
        t[TM_WORK_MEAN] = ts->completed ? ts->sum_work_s / (double)ts->completed : NAN;
        long ended = ts->completed + ts->rejected + ts->failed;
        t[TM_SLA_ATTAINMENT] =
            tc->sla_p99_s > 0 && ended > 0 ? (double)ts->sla_met / (double)ended : NAN;
        t[TM_SLOWDOWN_P99] = NAN;
        t[TM_AVAILABILITY] = window > 0 ? 1.0 - ts->downtime_s / window : NAN;
        total_tp += t[TM_THROUGHPUT];
        norm[i] = t[TM_THROUGHPUT] / tc->weight;
        if (s.ten[i].llm) {
            lst_figures(s.ten[i].llm, tc, ended, window, out->llm + (size_t)i * LM_N);
            set_llm_tails(out, i, s.ten[i].llm);
        }
        if (s.ten[i].llm && pool && pool->llm[i])
            lst_merge(pool->llm[i], s.ten[i].llm);
    }
    if (out->gpus_used <= 0)
        out->gpus_used = sc->gpus;
    double cap = out->gpus_used * window;
    out->m[SM_UTIL] = cap > 0 ? s.busy_acc / cap : NAN;
    out->m[SM_SWITCH] = cap > 0 ? s.switch_acc / cap : NAN;
    out->m[SM_THROUGHPUT] = total_tp;
    out->m[SM_FAIRNESS] = st_jain(norm, sc->n_tenants);
    out->m[SM_COST_PER_HOUR] = cost_per_hour(sc, out->gpus_used, out->licensed_vgpus);
    out->m[SM_COST_PER_MREQ] =
        total_tp > 0 ? out->m[SM_COST_PER_HOUR] / (total_tp * 3600.0) * 1e6 : NAN;
    out->m[SM_EVENTS] = (double)s.events;
    free(norm);
    eng_free(&s);
    return 0;
}

int run_one(const struct scenario *sc, const struct strategy_cfg *st, int rep,
            struct strategy_result *out, char *err, size_t errlen)
{
    return run_one_pool(sc, st, rep, out, NULL, err, errlen);
}

/* Builds the implicit "alone" baseline: the baseline policy's default configuration on
 * one GPU per tenant, i.e. every tenant on a whole GPU of its own. */
static int alone_baseline(const struct scenario *sc, struct scenario *copy, struct strategy_cfg *st)
{
    const struct policy_ops *ops = policy_baseline();
    if (!ops)
        return -1;
    *copy = *sc;
    copy->gpus = sc->n_tenants;
    copy->n_strategies = 0;
    memset(st, 0, sizeof *st);
    snprintf(st->name, sizeof st->name, "alone");
    st->ops = ops;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", "alone");
    cJSON_AddStringToObject(o, "kind", ops->kind);
    char err[SS_ERRLEN];
    struct jv j = {"(baseline)", err, sizeof err};
    int rc = st->ops->parse(&j, o, "baseline", copy, &st->cfg);
    cJSON_Delete(o);
    if (rc) {
        /* A tenant that does not fit a whole GPU has no baseline; slowdown stays null. */
        if (st->cfg)
            st->ops->free_cfg(st->cfg);
        st->cfg = NULL;
        return -1;
    }
    return 0;
}

static void aggregate(struct strategy_result *reps, int R, struct strategy_result *agg)
{
    if (R == 1) {
        /* What st_mean_ci95 gives for one value, 0 + x (so -0 becomes 0), without its
         * n_tenants x TM_N calls: the CIs stay NaN (result_alloc). */
        for (int k = 0; k < SM_N; k++)
            agg->m[k] = 0.0 + reps[0].m[k];
        for (size_t k = 0; k < (size_t)agg->n_tenants * TM_N; k++)
            agg->t[k] = 0.0 + reps[0].t[k];
        for (size_t k = 0; agg->llm && k < (size_t)agg->n_tenants * LM_N; k++)
            agg->llm[k] = 0.0 + reps[0].llm[k];
        agg->licensed_vgpus = reps[0].licensed_vgpus;
        agg->gpus_used = reps[0].gpus_used;
        agg->details = reps[0].details;
        reps[0].details = NULL;
        return;
    }
    double *v = ss_xmalloc((size_t)R * sizeof *v);
    for (int k = 0; k < SM_N; k++) {
        for (int r = 0; r < R; r++)
            v[r] = reps[r].m[k];
        st_mean_ci95(v, R, &agg->m[k], &agg->m_ci[k]);
    }
    for (int i = 0; i < agg->n_tenants; i++)
        for (int k = 0; k < TM_N; k++) {
            for (int r = 0; r < R; r++)
                v[r] = res_t(&reps[r], i)[k];
            st_mean_ci95(v, R, &res_t(agg, i)[k], &agg->t_ci[(size_t)i * TM_N + k]);
        }
    for (size_t k = 0; agg->llm && k < (size_t)agg->n_tenants * LM_N; k++) {
        for (int r = 0; r < R; r++)
            v[r] = reps[r].llm[k];
        st_mean_ci95(v, R, &agg->llm[k], &agg->llm_ci[k]);
    }
    agg->licensed_vgpus = reps[0].licensed_vgpus;
    agg->gpus_used = reps[0].gpus_used;
    agg->details = reps[0].details; /* structure, not statistics: the first replication's */
    reps[0].details = NULL;
    free(v);
}

/* Frees the per-replication results of a run that stopped early. */
static void free_reps(struct strategy_result *reps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        strategy_result_free(&reps[i]);
    free(reps);
}

int run_scenario(const struct scenario *sc_in, const struct run_opts *o, struct run_result *out,
                 char *err, size_t errlen)
{
    struct scenario sc = *sc_in;
    if (o->seed >= 0)
        sc.seed = (uint64_t)o->seed;
    int R = o->replications > 0 ? o->replications : sc.replications;
    int S = sc.n_strategies;
    memset(out, 0, sizeof *out);
    struct strategy_result *reps = ss_xcalloc((size_t)S * (size_t)R, sizeof *reps);
    int base = -1;
    for (int k = 0; k < S; k++)
        if (base < 0 && policy_is_baseline(sc.strategies[k].ops))
            base = k;
    struct scenario alone_sc;
    struct strategy_cfg alone_st;
    int have_alone = o->slowdown && base < 0 && alone_baseline(&sc, &alone_sc, &alone_st) == 0;
    int rc = 0;
    double events = 0;
    /* Strategy by strategy, so one strategy's pooled histograms are held at a time. */
    size_t nt = (size_t)(sc.n_tenants ? sc.n_tenants : 1);
    struct run_pool pool = {ss_xcalloc(nt, sizeof *pool.lat), ss_xcalloc(nt, sizeof *pool.llm)};
    for (int i = 0; i < sc.n_tenants; i++) {
        st_hist_init(&pool.lat[i]);
        if (sc.tenants[i].llm) {
            pool.llm[i] = ss_xmalloc(sizeof *pool.llm[i]);
            lst_init(pool.llm[i]);
        }
    }
    out->s = ss_xcalloc((size_t)S, sizeof *out->s);
    for (int k = 0; k < S && rc == 0; k++) {
        for (int i = 0; i < sc.n_tenants; i++) {
            st_hist_reset(&pool.lat[i]);
            if (pool.llm[i]) {
                lst_free(pool.llm[i]);
                lst_init(pool.llm[i]);
            }
        }
        for (int r = 0; r < R && rc == 0; r++) {
            if (o->progress)
                fprintf(stderr, "\r%s: strategy %d/%d (%s), replication %d/%d   ", sc.name, k + 1,
                        S, sc.strategies[k].name, r + 1, R);
            rc = run_one_pool(&sc, &sc.strategies[k], r, &reps[(size_t)k * R + r], &pool, err,
                              errlen);
            events += reps[(size_t)k * R + r].m[SM_EVENTS];
        }
        if (rc == 0) {
            struct strategy_result *agg = &out->s[k];
            result_alloc(agg, sc.strategies[k].name, sc.strategies[k].ops->kind, sc.n_tenants);
            if (run_has_llm(&sc))
                llm_alloc(agg);
            aggregate(&reps[(size_t)k * R], R, agg);
            for (int i = 0; i < sc.n_tenants; i++) {
                set_percentiles(agg, i, &pool.lat[i]);
                /* An LLM tenant's TTFT, TPOT and ITL percentiles likewise of all replications'
                 * samples; their means and intervals stay those of aggregate(). */
                if (pool.llm[i] && agg->llm) {
                    lst_percentiles(pool.llm[i], agg->llm + (size_t)i * LM_N);
                    set_llm_tails(agg, i, pool.llm[i]);
                }
            }
            stab_fill(&sc, &sc.strategies[k], agg);
        }
    }
    for (int i = 0; i < sc.n_tenants; i++) {
        st_hist_free(&pool.lat[i]);
        if (pool.llm[i]) {
            lst_free(pool.llm[i]);
            free(pool.llm[i]);
        }
    }
    free(pool.lat);
    free(pool.llm);
    /* slowdown_p99, per replication against its baseline, then its mean and interval. */
    for (int r = 0; r < R && rc == 0; r++) {
        struct strategy_result alone;
        memset(&alone, 0, sizeof alone);
        const struct strategy_result *b = NULL;
        if (have_alone) {
            rc = run_one(&alone_sc, &alone_st, r, &alone, err, errlen);
            b = &alone;
        } else if (base >= 0) {
            b = &reps[(size_t)base * R + r];
        }
        if (rc == 0 && o->slowdown && b)
            for (int k = 0; k < S; k++)
                for (int i = 0; i < sc.n_tenants; i++) {
                    struct strategy_result *x = &reps[(size_t)k * R + r];
                    double p99 = res_t(x, i)[TM_LAT_P99];
                    double base = ((struct strategy_result *)b)->t[(size_t)i * TM_N + TM_LAT_P99];
                    /* a p99 past the histogram's range (+inf) leaves the ratio unknown */
                    res_t(x, i)[TM_SLOWDOWN_P99] =
                        isfinite(p99) && isfinite(base) ? p99 / base : NAN;
                }
        if (have_alone)
            strategy_result_free(&alone);
    }
    double *v = ss_xmalloc((size_t)R * sizeof *v);
    for (int k = 0; k < S && rc == 0; k++)
        for (int i = 0; i < sc.n_tenants; i++) {
            for (int r = 0; r < R; r++)
                v[r] = res_t(&reps[(size_t)k * R + r], i)[TM_SLOWDOWN_P99];
            st_mean_ci95(v, R, &res_t(&out->s[k], i)[TM_SLOWDOWN_P99],
                         &out->s[k].t_ci[(size_t)i * TM_N + TM_SLOWDOWN_P99]);
        }
    free(v);
    if (o->progress)
        fprintf(stderr, "\r%*s\r", 78, "");
    if (have_alone)
        alone_st.ops->free_cfg(alone_st.cfg);
    if (rc) {
        free_reps(reps, (size_t)S * (size_t)R);
        for (int k = 0; k < S; k++)
            if (out->s[k].t)
                strategy_result_free(&out->s[k]);
        free(out->s);
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->n = S;
    out->replications = R;
    out->seed = (unsigned long)sc.seed;
    out->sim_events = events;
    free_reps(reps, (size_t)S * (size_t)R);
    return 0;
}

void run_result_free(struct run_result *r)
{
    for (int k = 0; k < r->n; k++)
        strategy_result_free(&r->s[k]);
    free(r->s);
    memset(r, 0, sizeof *r);
}
