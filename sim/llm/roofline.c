/*
 * roofline — step time of a serving engine (roofline.h).
 */
#include "llm/roofline.h"

#include "base/util.h"

void rf_model_init(struct rf_model *r, const struct lm_model *m, enum roof_dtype weights,
                   enum roof_dtype kv)
{
    r->params = m->params;
    r->weight_bytes = lm_weight_bytes(m, weights);
    r->kv_bytes_per_token = lm_kv_bytes_per_token(m, kv);
    r->attn_flops_per_pair = 4.0 * m->layers * m->heads * m->head_dim;
}

void rf_gpu_init(struct rf_gpu *g, const struct gpu_roof *roof, double hbm_bw_gbps,
                 enum roof_dtype weights)
{
    g->peak_flops = roof_peak_flops(roof, weights);
    g->bw_bytes_per_s = hbm_bw_gbps * 1e9;
    g->compute_eff = roof->compute_eff;
    g->bandwidth_eff = roof->bandwidth_eff;
}

void rf_cost_start(const struct rf_model *r, struct rf_cost *c)
{
    c->flops = 0;
    c->bytes = r->weight_bytes;
}

void rf_cost_add(const struct rf_model *r, struct rf_cost *c, long past, long n_new)
{
    double n = (double)n_new, p = (double)past;
    /* Σ_{i=1..n} (p + i): each new token attends to everything before it and to itself. */
    double pairs = n * p + n * (n + 1) / 2;
    c->flops += 2 * r->params * n + r->attn_flops_per_pair * pairs;
    c->bytes += r->kv_bytes_per_token * (p + n);
}

double rf_time_s(const struct rf_gpu *g, const struct rf_cost *c, double sm_share, double bw_share,
                 double overhead_s)
{
    if (!(sm_share > 0 && sm_share <= 1 && bw_share > 0 && bw_share <= 1))
        SS_FATAL("rf_time_s: shares out of (0, 1]: sm %g, bandwidth %g", sm_share, bw_share);
    double tc = c->flops / (g->peak_flops * sm_share * g->compute_eff);
    double tm = c->bytes / (g->bw_bytes_per_s * bw_share * g->bandwidth_eff);
    return (tc > tm ? tc : tm) + overhead_s;
}

void rf_parts_s(const struct rf_gpu *g, const struct rf_cost *c, double *tc, double *tm)
{
    *tc = c->flops / (g->peak_flops * g->compute_eff);
    *tm = c->bytes / (g->bw_bytes_per_s * g->bandwidth_eff);
}
