/*
 * stepmodel — a serving step's time as a sum of parts (stepmodel.h).
 */
#include "llm/stepmodel.h"

#include "base/util.h"

#include <string.h>

const char *const stm_kind_names[] = {"engine", "roofline", NULL};

/* fp16 and bf16 run the same tensor-core rate and move the same bytes on these GPUs: a table of
 * either serves both when the other is missing. */
static enum roof_dtype twin(enum roof_dtype d)
{
    return d == RD_FP16 ? RD_BF16 : d == RD_BF16 ? RD_FP16 : d;
}

/* After the GEMM shapes are set or changed: their curves found anew, the memo emptied. */
static void gemms_changed(struct stm *m)
{
    for (int g = 0; g < STM_N_GEMM; g++) {
        kc_gemm_find(m->kc, m->wd, m->gemm_n[g], m->gemm_k[g], &m->gemm_ref[g][0]);
        kc_gemm_find(twin(m->wd) != m->wd ? m->kc : NULL, twin(m->wd), m->gemm_n[g], m->gemm_k[g],
                     &m->gemm_ref[g][1]);
    }
    for (int i = 0; i < STM_MEMO_SLOTS; i++) {
        m->memo[i].tokens = -1;
        m->head_memo[i].sampled = -1;
    }
}

void stm_init(struct stm *m, enum stm_kind kind, const struct lm_model *model,
              enum roof_dtype weights, enum roof_dtype kv, const struct gpu_roof *roof,
              double hbm_bw_gbps, const struct stm_cpu *cpu, double overhead_s,
              const struct kc_gpu *kc)
{
    memset(m, 0, sizeof *m);
    m->kind = kind;
    m->kc = kc;
    m->wd = weights;
    m->kvd = kv;
    m->heads = model->heads;
    m->kv_heads = model->kv_heads;
    m->head_dim = model->head_dim;
    m->tp = 1;
    m->shape_heads = model->heads;
    m->shape_kv_heads = model->kv_heads;
    m->small_scale = 1;
    m->hidden = model->hidden;
    m->intermediate = model->intermediate;
    rf_model_init(&m->rm, model, weights, kv);
    rf_gpu_init(&m->rg, roof, hbm_bw_gbps, weights);
    m->overhead_s = overhead_s;
    if (cpu)
        m->cpu = *cpu;
    double h = model->hidden, q = (double)model->heads * model->head_dim,
           kvw = (double)model->kv_heads * model->head_dim, in = model->intermediate;
    /* Gated MLPs (Llama, Mistral, Qwen, Gemma): gate and up are one GEMM of twice the width,
     * as the engines fuse them; a plain MLP (BERT) has up alone. Q, K and V are one GEMM. */
    double up = model->plain_mlp ? 1 : 2;
    m->gemm_k[STM_QKV] = h, m->gemm_n[STM_QKV] = q + 2 * kvw;
    m->gemm_k[STM_O] = q, m->gemm_n[STM_O] = h;
    m->gemm_k[STM_GATE_UP] = h, m->gemm_n[STM_GATE_UP] = up * in;
    m->gemm_k[STM_DOWN] = in, m->gemm_n[STM_DOWN] = h;
    /* Embedding and reranking models pool their last hidden states: no vocabulary head. */
    m->gemm_k[STM_LM_HEAD] = h,
    m->gemm_n[STM_LM_HEAD] = model->kind == LM_DECODER ? model->vocab : 0;
    m->layers = model->layers;
    m->mla = model->kv_lora_rank > 0;
    if (m->mla) {
        /* Latent attention's projections (queries through their low rank, the KV latent and
         * its expansion per head) as one GEMM from h of the same weights, so that FLOPs and
         * bytes are those of the chain; O maps heads × v_head_dim back to h. */
        double hq = model->heads, qk = model->head_dim, r = model->kv_lora_rank;
        double qp = model->q_lora_rank > 0 ? h * model->q_lora_rank + model->q_lora_rank * hq * qk
                                           : h * hq * qk;
        double kvp =
            h * (r + model->qk_rope_dim) + r * hq * (model->qk_nope_dim + model->v_head_dim);
        m->gemm_n[STM_QKV] = (qp + kvp) / h;
        m->gemm_k[STM_O] = hq * model->v_head_dim;
    }
    m->experts = model->experts;
    m->experts_per_token = model->experts_per_token;
    m->moe_layers = lm_moe_layers(model);
    m->mlp_layers = model->layers - m->moe_layers;
    if (m->experts > 0) {
        double im = model->moe_intermediate, is = model->shared_intermediate;
        m->expert_params = lm_expert_params(model);
        m->shared_params = 3 * h * is + h * model->experts;
        /* Per routed token an expert reads h and writes up × im, then reads im and writes h;
         * the shared experts the same at their width, and the router reads h, writes E. */
        m->expert_act = 2 * h + (up + 1) * im;
        m->shared_act = (is > 0 ? 2 * h + 3 * is : 0) + h + model->experts;
    }
    m->weight_b = roof_dtype_bytes(weights);
    /* Activations run in 16 bits whatever the weights' format (weight-only and fp8 engines
     * keep bf16/fp16 activations between kernels). */
    m->act_b = 2;
    m->kv_bytes_per_token = lm_kv_bytes_per_token(model, kv);
    m->attn_flops_per_pair = m->rm.attn_flops_per_pair;
    if (m->mla) /* QKᵀ over qk = nope + rope, AV over v_head_dim: 2 H (qk + v) per pair */
        m->attn_flops_per_pair =
            2.0 * model->layers * model->heads * (model->head_dim + model->v_head_dim);
    if (m->experts > 0) /* the roofline model: compute follows the active parameters */
        m->rm.params = model->active_params;
    /* Per layer and token the small kernels read and write: two RMSNorms (2 × 2h), two
     * residual adds (2 × 3h), RoPE on Q and K (2 (q + kv)), SiLU × up (3 × the MLP's width:
     * in a MoE block the routed experts' k × moe_intermediate and the shared width). */
    /* (A dense model keeps the original expression, so that its results stay to the bit.) */
    m->elementwise_per_token = model->layers * (10 * h + 2 * (q + kvw) + 3 * in);
    if (m->experts > 0)
        m->elementwise_per_token =
            model->layers * (10 * h + 2 * (q + kvw)) +
            3 * (m->mlp_layers * in +
                 m->moe_layers * ((double)model->experts_per_token * model->moe_intermediate +
                                  model->shared_intermediate));
    m->peak = roof_peak_flops(roof, weights);
    /* Attention multiplies activations by the KV cache: the 16-bit peak. */
    m->peak_act = roof_peak_flops(roof, RD_BF16) > 0 ? roof_peak_flops(roof, RD_BF16)
                                                     : roof_peak_flops(roof, RD_FP16);
    m->bw = hbm_bw_gbps * 1e9;
    roof_kernels(roof, &m->k);
    gemms_changed(m);
}

void stm_set_tp(struct stm *m, const struct lm_model *model, const struct tp_link *link)
{
    int tp = link->tp;
    if (tp <= 1)
        return;
    if (m->kind != STM_ENGINE)
        SS_FATAL("stepmodel: tensor parallelism needs the engine step model (serving.c checks)");
    m->tp = tp;
    m->link = *link;
    double h = model->hidden, hd = model->head_dim;
    int kvh = tp_kv_heads_per_gpu(model, tp);
    double q = (double)model->heads * hd / tp, kvw = kvh * hd;
    /* Column-parallel: QKV (the GPU's query heads and its KV heads, replicated ones whole),
     * gate+up and the vocabulary head split their outputs; row-parallel: O and down split
     * their inputs and leave partial sums that the all-reduces add. */
    if (m->mla) {
        m->gemm_n[STM_QKV] /= tp;
    } else {
        m->gemm_n[STM_QKV] = q + 2 * kvw;
    }
    m->gemm_k[STM_O] /= tp;
    m->gemm_n[STM_GATE_UP] /= tp;
    m->gemm_k[STM_DOWN] /= tp;
    m->gemm_n[STM_LM_HEAD] /= tp;
    m->heads = model->heads / tp;
    m->kv_heads = m->mla ? model->kv_heads : kvh;
    m->attn_flops_per_pair /= tp;
    m->kv_bytes_per_token *= tp_kv_share(model, tp);
    if (m->experts > 0) {
        /* Every expert is split over the group as a dense MLP is (no expert parallelism). */
        double up = model->plain_mlp ? 1 : 2, im = model->moe_intermediate,
               is = model->shared_intermediate;
        m->expert_params /= tp;
        m->shared_params /= tp; /* the router's h × E is replicated: a small overcount */
        m->expert_act = 2 * h + (up + 1) * im / tp;
        m->shared_act = (is > 0 ? 2 * h + 3 * is / tp : 0) + h + model->experts;
    }
    /* The small kernels: the two norms and residual adds act on the whole hidden state on
     * every GPU; RoPE on the GPU's heads, the activation on its slice of the MLP. */
    double full = m->elementwise_per_token;
    double L = model->layers;
    double qf = (double)model->heads * hd, kvf = (double)model->kv_heads * hd;
    double mlp_part = full - L * (10 * h + 2 * (qf + kvf));
    m->elementwise_per_token = L * (10 * h + 2 * (q + kvw)) + mlp_part / tp;
    m->small_scale = full > 0 ? m->elementwise_per_token / full : 1;
    gemms_changed(m);
}

void stm_start(const struct stm *m, struct stm_sum *s)
{
    memset(s, 0, sizeof *s);
    s->table_attn = m->kc != NULL && !m->mla; /* the tables time standard attention */
    rf_cost_start(&m->rm, &s->rc);
}

void stm_add(const struct stm *m, struct stm_sum *s, long past, long n_new, int emits)
{
    if (m->kind == STM_ROOFLINE) {
        rf_cost_add(&m->rm, &s->rc, past, n_new);
        return;
    }
    double n = (double)n_new, p = (double)past;
    double pairs = n * p + n * (n + 1) / 2, ctx = p + n;
    double e = m->k.attn_eff;
    if (m->k.attn_half_context > 0)
        e *= ctx / (ctx + m->k.attn_half_context);
    int d = n_new == 1; /* a decode: one new token */
    s->attn_tc[d] += m->attn_flops_per_pair * pairs / (m->peak_act * e);
    s->kv_tokens[d] += ctx;
    s->decodes += d;
    if (!d && s->table_attn) {
        /* The table times a whole causal prompt of ctx tokens; a chunk after `past` cached
         * tokens computes its share of that prompt's pairs. */
        struct kc_result r;
        kc_attn_prefill(m->kc, m->kvd, m->heads, m->kv_heads, m->head_dim, 1, ctx, &r);
        if (r.path == KC_NONE)
            s->table_attn = 0;
        else
            s->attn_table_s += m->layers * r.s * pairs / (ctx * (ctx + 1) / 2);
    }
    s->tokens += n_new;
    s->seqs++;
    s->sampled += emits != 0;
}

/* A measured time t for a part whose roofline is (tc, tm): split in the roofline's proportion,
 * so that max(tc, tm) on the whole GPU is t and a share slows the binding resource. */
static void measured(double t, double *tc, double *tm)
{
    double r = *tc > *tm ? *tc : *tm;
    if (r > 0) {
        *tc *= t / r;
        *tm *= t / r;
    } else {
        *tm = t;
    }
}

/* One linear layer over M tokens: FLOPs at e(M) of the peak, its weights and its input and
 * output activations at the weights' bandwidth efficiency; or its measured time. 1 when the
 * time came from a table. */
static int gemm_part(const struct stm *m, int g, double tokens, double times, double *tc,
                     double *tm)
{
    double n = m->gemm_n[g], k = m->gemm_k[g];
    double e = m->k.gemm_eff;
    if (m->k.gemm_half_tokens > 0)
        e *= tokens / (tokens + m->k.gemm_half_tokens);
    *tc = times * 2 * tokens * n * k / (m->peak * e);
    *tm =
        times * (n * k * m->weight_b + tokens * (n + k) * m->act_b) / (m->bw * m->k.weight_bw_eff);
    int table = 0;
    if (m->kc) {
        struct kc_result r;
        kc_gemm_ref_time(&m->gemm_ref[g][0], tokens, &r);
        if (r.path == KC_NONE && twin(m->wd) != m->wd)
            kc_gemm_ref_time(&m->gemm_ref[g][1], tokens, &r);
        if (r.path != KC_NONE) {
            measured(times * r.s, tc, tm);
            table = 1;
        }
    }
    /* The engine version's ceiling on 16-bit math: kernels older than the tables' (TensorRT-LLM
     * 0.9's on Hopper) are slower where the GEMM is compute bound, and no slower where its
     * weights' reads bound it (small M), so it raises the compute part alone. */
    double cap = m->cpu.gemm_flops_max;
    if (cap > 0 && (m->wd == RD_FP16 || m->wd == RD_BF16)) {
        double floor_c = times * 2 * tokens * n * k / cap;
        if (*tc < floor_c)
            *tc = floor_c;
    }
    return table;
}

/* The dense MLP runs in the blocks without experts (all of a dense model's). */
static int gemm_times(const struct stm *m, int g)
{
    return g == STM_GATE_UP || g == STM_DOWN ? m->mlp_layers : m->layers;
}

/* The parts of a step of t tokens that depend on t alone (struct stm_memo), computed. */
static void by_tokens(const struct stm *m, double t, struct stm_memo *e)
{
    e->gemm_table = 0;
    for (int g = STM_QKV; g <= STM_DOWN; g++)
        if (gemm_times(m, g) != 0 && gemm_part(m, g, t, gemm_times(m, g), &e->tc[g], &e->tm[g]))
            e->gemm_table |= 1 << g;
    e->small_tm = t * m->elementwise_per_token * m->act_b / (m->bw * m->k.weight_bw_eff);
    e->fixed_s = m->layers * m->k.layer_fixed_s;
    e->small = 0;
    if (m->kc && t > 0) {
        struct kc_result r;
        kc_small_kernels(m->kc, m->act_b == 2 ? RD_FP16 : m->wd, m->hidden, m->intermediate,
                         m->shape_heads, m->shape_kv_heads, t, &r);
        if (r.path != KC_NONE) {
            /* the table's floor is its launch-bound part; a shard moves small_scale of it */
            e->small_tm = m->layers * r.s * m->small_scale;
            e->fixed_s = 0;
            e->small = 1;
        }
    }
    e->small_tm *= 1 - m->cpu.small_fused;
    e->fixed_s *= 1 - m->cpu.small_fused;
    e->comm_s = 0;
    e->comm = 0;
    if (m->tp > 1 && t > 0) /* after attention's O and after the MLP's down: t × hidden sums */
        e->comm_s = 2.0 * m->layers * tp_allreduce_s(&m->link, t * m->hidden, &e->comm);
}

/* The memo's slot of a count (a whole number of tokens, at least 0). */
static unsigned long memo_slot(double count)
{
    return (unsigned long)count % STM_MEMO_SLOTS;
}

static void path(struct stm_parts *p, int bit, int table);

/*
 * A MoE block's MLP over T tokens, in two parts, times its moe_layers (never from the tables:
 * they time dense GEMMs, not the grouped expert GEMM):
 *   routed: FLOPs 2 T k expert_params at e(T k / D) of the peak, D = E (1 − (1 − k/E)^T) the
 *     distinct experts the tokens route to in expectation (uniform routing), each of them a
 *     GEMM over its T k / D tokens; bytes: the D experts' weights and T k tokens' activations;
 *   shared: the shared experts and the router, a dense GEMM over all T tokens.
 * Compute follows the active experts; the weights read grow with the batch, from k experts
 * at one token to all E once D reaches E.
 */
static void moe_parts(const struct stm *m, double tokens, struct stm_parts *p)
{
    double t = tokens, k = m->experts_per_token;
    double d = lm_expected_experts(m->experts, m->experts_per_token, t);
    double bw = m->bw * m->k.weight_bw_eff;
    double per_expert = d > 0 ? t * k / d : 0;
    double e = m->k.gemm_eff, es = m->k.gemm_eff;
    if (m->k.gemm_half_tokens > 0) {
        e *= per_expert / (per_expert + m->k.gemm_half_tokens);
        es *= t / (t + m->k.gemm_half_tokens);
    }
    double L = m->moe_layers;
    p->tc[p->n] = e > 0 ? L * 2 * t * k * m->expert_params / (m->peak * e) : 0;
    p->tm[p->n] = L * (d * m->expert_params * m->weight_b + t * k * m->expert_act * m->act_b) / bw;
    path(p, STM_PATH_GEMM, 0);
    p->n++;
    p->tc[p->n] = es > 0 ? L * 2 * t * m->shared_params / (m->peak * es) : 0;
    p->tm[p->n] = L * (m->shared_params * m->weight_b + t * m->shared_act * m->act_b) / bw;
    path(p, STM_PATH_GEMM, 0);
    p->n++;
}

static void path(struct stm_parts *p, int bit, int table)
{
    if (table)
        p->table |= bit;
    else
        p->roof |= bit;
}

void stm_parts(const struct stm *m, const struct stm_sum *s, struct stm_parts *p)
{
    memset(p, 0, sizeof *p);
    if (m->kind == STM_ROOFLINE) {
        p->rg = &m->rg;
        p->rc = s->rc;
        p->cpu_s = m->overhead_s;
        return;
    }
    double t = (double)s->tokens;
    struct stm_memo *e = (struct stm_memo *)&m->memo[memo_slot(t)];
    if (e->tokens != t) {
        by_tokens(m, t, e);
        e->tokens = t;
    }
    for (int g = STM_QKV; g <= STM_DOWN; g++) {
        if (gemm_times(m, g) == 0)
            continue;
        p->tc[p->n] = e->tc[g];
        p->tm[p->n] = e->tm[g];
        path(p, STM_PATH_GEMM, e->gemm_table >> g & 1);
        p->n++;
    }
    if (m->experts > 0 && t > 0)
        moe_parts(m, t, p);
    if (s->sampled > 0 && m->gemm_n[STM_LM_HEAD] > 0) {
        double n = s->sampled;
        struct stm_head_memo *h = (struct stm_head_memo *)&m->head_memo[memo_slot(n)];
        if (h->sampled != n) {
            h->table = gemm_part(m, STM_LM_HEAD, n, 1, &h->tc, &h->tm);
            h->sampled = n;
        }
        p->tc[p->n] = h->tc;
        p->tm[p->n] = h->tm;
        path(p, STM_PATH_GEMM, h->table);
        p->n++;
    }
    for (int d = 0; d < 2; d++)
        if (s->kv_tokens[d] > 0) {
            double *tc = &p->tc[p->n], *tm = &p->tm[p->n];
            *tc = s->attn_tc[d];
            *tm = s->kv_tokens[d] * m->kv_bytes_per_token / (m->bw * m->k.kv_bw_eff);
            int table = 0;
            if (d == 0 && s->table_attn) {
                measured(s->attn_table_s, tc, tm);
                table = 1;
            } else if (d == 1 && m->kc && !m->mla) {
                /* The decodes as one batch of their mean context (the kernel's cost is its
                 * KV reads, which the mean conserves). */
                struct kc_result r;
                double past = s->kv_tokens[1] / s->decodes - 1;
                kc_attn_decode(m->kc, m->kvd, m->heads, m->kv_heads, m->head_dim, s->decodes,
                               past > 1 ? past : 1, &r);
                if (r.path != KC_NONE) {
                    measured(m->layers * r.s, tc, tm);
                    table = 1;
                }
            }
            path(p, STM_PATH_ATTN, table);
            p->n++;
        }
    p->tc[p->n] = 0;
    p->tm[p->n] = e->small_tm;
    p->fixed_s = e->fixed_s;
    path(p, STM_PATH_SMALL, e->small);
    p->n++;
    if (m->tp > 1 && t > 0) {
        p->comm_s = e->comm_s;
        path(p, STM_PATH_COMM, e->comm);
    }
    p->cpu_s = m->cpu.step_s + m->cpu.per_seq_s * s->seqs;
    p->overlap = m->cpu.overlap;
}

static void check_shares(double f, double b)
{
    if (!(f > 0 && f <= 1 && b > 0 && b <= 1))
        SS_FATAL("stepmodel: shares out of (0, 1]: sm %g, bandwidth %g", f, b);
}

double stm_gpu_s(const struct stm_parts *p, double f, double b)
{
    if (p->rg)
        return rf_time_s(p->rg, &p->rc, f, b, 0);
    check_shares(f, b);
    double t = p->fixed_s + p->comm_s;
    for (int i = 0; i < p->n; i++) {
        double c = p->tc[i] / f, m = p->tm[i] / b;
        t += c > m ? c : m;
    }
    return t;
}

double stm_speed(const struct stm_parts *p, double f, double b)
{
    if (p->rg) { /* as llmengine.c's le_speed was written: the old results to the bit */
        double tc, tm;
        rf_parts_s(p->rg, &p->rc, &tc, &tm);
        double w = tc > tm ? tc : tm, t = tc / f > tm / b ? tc / f : tm / b;
        return w / t;
    }
    return stm_gpu_s(p, 1, 1) / stm_gpu_s(p, f, b);
}

double stm_cpu_exposed_s(const struct stm_parts *p, double f, double b)
{
    if (!p->overlap)
        return p->cpu_s;
    double g = stm_gpu_s(p, f, b);
    return p->cpu_s > g ? p->cpu_s - g : 0;
}

double stm_time_s(const struct stm_parts *p, double f, double b)
{
    if (p->rg)
        return rf_time_s(p->rg, &p->rc, f, b, p->cpu_s);
    return stm_gpu_s(p, f, b) + stm_cpu_exposed_s(p, f, b);
}
