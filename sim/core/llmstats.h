/*
 * llmstats — what an LLM tenant's run measures beyond a request's latency (docs/llm.md#results):
 * time to first token, time per output token, inter-token latency, output tokens per second,
 * preemptions and KV-cache utilisation, and the attainment of its TTFT and TPOT SLAs.
 *
 * Measured like the engine's own figures: per-request figures (TTFT, TPOT, ITL, SLAs) over
 * the measured requests (arrived after the warm-up), window figures (tokens per second,
 * preemptions, KV utilisation) over whatever happens inside the measurement window. A
 * server (policy/units/llmunit.c) reports into the tenant's lst_stats; run.c turns them into
 * the LM_* figures of a strategy_result.
 */
#ifndef SS_LLMSTATS_H
#define SS_LLMSTATS_H

#include "core/stats.h"

struct sim;
struct request;
struct tenant_cfg;

enum llm_metric {
    LM_TTFT_MEAN,
    LM_TTFT_P50,
    LM_TTFT_P95,
    LM_TTFT_P99,
    LM_TPOT_MEAN,
    LM_TPOT_P50,
    LM_TPOT_P95,
    LM_TPOT_P99,
    LM_ITL_MEAN,
    LM_ITL_P50,
    LM_ITL_P95,
    LM_ITL_P99,
    LM_OUTPUT_TPS,  /* output tokens per second in the window */
    LM_PREEMPTIONS, /* preemptions (recomputes) in the window */
    LM_KV_UTIL,     /* time-mean fraction of the KV blocks held, over the window */
    LM_TTFT_SLA,    /* measured requests with TTFT <= sla.ttft_p99_ms / those that ended */
    LM_TPOT_SLA,    /* the same for TPOT (a one-token request meets it) */
    LM_GOODPUT,     /* measured requests meeting every SLA of the tenant, done in the window, /s */
    LM_N
};

struct lst_stats {
    struct st_hist ttft, tpot, itl;
    double sum_ttft, sum_tpot, sum_itl;
    long n_tpot_met, n_ttft_met;
    long good_in_window; /* measured, every SLA met, completed inside the window */
    long tokens_in_window, preemptions_in_window;
    double kv_held_acc, kv_cap_acc; /* Σ blocks held × dt, Σ blocks × dt, in the window */
};

void lst_init(struct lst_stats *l);
void lst_free(struct lst_stats *l);

/* A token of request r was sampled now: its first (TTFT = now − arrival), or one `gap_s`
 * after the previous one. */
void lst_token(struct sim *s, const struct request *r, int first, double gap_s);
/* Request r finished now after generating `output` tokens, the first at first_s: TPOT. */
void lst_done(struct sim *s, const struct request *r, long output, double first_s);
/* `n` sequences were preempted now. */
void lst_preempted(struct sim *s, int tenant, long n);
/* A server of `blocks` blocks held `held` of them over [t0, t1]. */
void lst_kv(struct sim *s, int tenant, double held, double blocks, double t0, double t1);

/* Adds src's samples to dst: the three histograms merged, the sums and counts added (the
 * pooled replications of run.c, as a plain tenant's latency histogram is pooled). */
void lst_merge(struct lst_stats *dst, const struct lst_stats *src);
/* The TTFT, TPOT and ITL percentiles (LM_*_P50, _P95, _P99) of l's samples into m; the other
 * figures of m are left as they are. */
void lst_percentiles(const struct lst_stats *l, double *m);

/* The LM_* figures of one tenant of one replication (NaN where they do not apply). */
void lst_figures(const struct lst_stats *l, const struct tenant_cfg *tc, long ended, double window,
                 double *m);

#endif
