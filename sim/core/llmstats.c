/*
 * llmstats — an LLM tenant's token-level figures (llmstats.h).
 */
#include "core/llmstats.h"

#include "core/engine.h"

#include <math.h>

void lst_init(struct lst_stats *l)
{
    *l = (struct lst_stats){0};
    st_hist_init(&l->ttft);
    st_hist_init(&l->tpot);
    st_hist_init(&l->itl);
}

void lst_free(struct lst_stats *l)
{
    st_hist_free(&l->ttft);
    st_hist_free(&l->tpot);
    st_hist_free(&l->itl);
}

void lst_token(struct sim *s, const struct request *r, int first, double gap_s)
{
    struct tenant_rt *t = &s->ten[r->tenant];
    struct lst_stats *l = t->llm;
    if (eng_in_window(s, s->now))
        l->tokens_in_window++;
    if (!r->measured)
        return;
    if (first) {
        double ttft = s->now - r->arrival;
        l->sum_ttft += ttft;
        l->n_ttft_met += ttft <= t->cfg->llm->sla_ttft_p99_s;
        st_hist_add(&l->ttft, ttft);
    } else {
        l->sum_itl += gap_s;
        st_hist_add(&l->itl, gap_s);
    }
}

void lst_done(struct sim *s, const struct request *r, long output, double first_s)
{
    if (!r->measured)
        return;
    struct tenant_rt *t = &s->ten[r->tenant];
    struct lst_stats *l = t->llm;
    /* Time per output token after the first; a one-token request has none, and meets a
     * TPOT SLA trivially. */
    const struct lsv_cfg *c = t->cfg->llm;
    int tpot_ok = 1;
    if (output > 1) {
        double tpot = (s->now - first_s) / (double)(output - 1);
        l->sum_tpot += tpot;
        st_hist_add(&l->tpot, tpot);
        tpot_ok = tpot <= c->sla_tpot_p99_s;
    }
    l->n_tpot_met += tpot_ok;
    /* Goodput: every target the tenant sets is met (one it does not set counts as met). */
    double lat = s->now - r->arrival, ttft = first_s - r->arrival;
    int good = (t->cfg->sla_p99_s <= 0 || lat <= t->cfg->sla_p99_s) &&
               (c->sla_ttft_p99_s <= 0 || ttft <= c->sla_ttft_p99_s) &&
               (c->sla_tpot_p99_s <= 0 || tpot_ok);
    if (good && eng_in_window(s, s->now))
        l->good_in_window++;
}

void lst_preempted(struct sim *s, int tenant, long n)
{
    if (eng_in_window(s, s->now))
        s->ten[tenant].llm->preemptions_in_window += n;
}

void lst_kv(struct sim *s, int tenant, double held, double blocks, double t0, double t1)
{
    struct lst_stats *l = s->ten[tenant].llm;
    double dt = eng_clip(s, t0, t1);
    l->kv_held_acc += held * dt;
    l->kv_cap_acc += blocks * dt;
}

void lst_merge(struct lst_stats *dst, const struct lst_stats *src)
{
    st_hist_merge(&dst->ttft, &src->ttft);
    st_hist_merge(&dst->tpot, &src->tpot);
    st_hist_merge(&dst->itl, &src->itl);
    dst->sum_ttft += src->sum_ttft;
    dst->sum_tpot += src->sum_tpot;
    dst->sum_itl += src->sum_itl;
    dst->n_tpot_met += src->n_tpot_met;
    dst->n_ttft_met += src->n_ttft_met;
    dst->good_in_window += src->good_in_window;
    dst->tokens_in_window += src->tokens_in_window;
    dst->preemptions_in_window += src->preemptions_in_window;
    dst->kv_held_acc += src->kv_held_acc;
    dst->kv_cap_acc += src->kv_cap_acc;
}

void lst_percentiles(const struct lst_stats *l, double *m)
{
    const struct st_hist *h[3] = {&l->ttft, &l->tpot, &l->itl};
    for (int k = 0; k < 3; k++) {
        m[4 * k + 1] = st_hist_quantile(h[k], 0.50);
        m[4 * k + 2] = st_hist_quantile(h[k], 0.95);
        m[4 * k + 3] = st_hist_quantile(h[k], 0.99);
    }
}

static double mean_or_nan(double sum, uint64_t n)
{
    return n ? sum / (double)n : NAN;
}

void lst_figures(const struct lst_stats *l, const struct tenant_cfg *tc, long ended, double window,
                 double *m)
{
    m[LM_TTFT_MEAN] = mean_or_nan(l->sum_ttft, l->ttft.n);
    m[LM_TPOT_MEAN] = mean_or_nan(l->sum_tpot, l->tpot.n);
    m[LM_ITL_MEAN] = mean_or_nan(l->sum_itl, l->itl.n);
    lst_percentiles(l, m);
    m[LM_OUTPUT_TPS] = window > 0 ? (double)l->tokens_in_window / window : NAN;
    m[LM_PREEMPTIONS] = (double)l->preemptions_in_window;
    m[LM_KV_UTIL] = l->kv_cap_acc > 0 ? l->kv_held_acc / l->kv_cap_acc : NAN;
    m[LM_TTFT_SLA] =
        tc->llm->sla_ttft_p99_s > 0 && ended > 0 ? (double)l->n_ttft_met / (double)ended : NAN;
    m[LM_TPOT_SLA] =
        tc->llm->sla_tpot_p99_s > 0 && ended > 0 ? (double)l->n_tpot_met / (double)ended : NAN;
    int any_sla = tc->sla_p99_s > 0 || tc->llm->sla_ttft_p99_s > 0 || tc->llm->sla_tpot_p99_s > 0;
    m[LM_GOODPUT] = any_sla && window > 0 ? (double)l->good_in_window / window : NAN;
}
