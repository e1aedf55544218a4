/*
 * moe (llm/stepmodel.c's mixture-of-experts terms, llm/model.c's expert counts): the expected
 * distinct experts by hand, and Mixtral-8x7B's decode step written out from
 * docs/llm.md#model-families-moe-and-embeddings at batch 1 (2 of 8 experts read) and at a
 * batch of 128 whose tokens touch every expert (all 8 read, compute 128 times one token's).
 */
#include "llm/model.h"
#include "llm/stepmodel.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

static void test_expected_experts(void)
{
    CU_ASSERT_DOUBLE_EQUAL(lm_expected_experts(8, 2, 0), 0, 0);
    /* One token takes exactly its k experts. */
    CU_ASSERT_DOUBLE_EQUAL(lm_expected_experts(8, 2, 1), 2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(lm_expected_experts(128, 8, 1), 8, 1e-12);
    /* Two tokens: 8 (1 − (3/4)²) = 3.5. */
    CU_ASSERT_DOUBLE_EQUAL(lm_expected_experts(8, 2, 2), 3.5, 1e-12);
    /* k = E: every expert from the first token on. */
    CU_ASSERT_DOUBLE_EQUAL(lm_expected_experts(4, 4, 1), 4, 0);
    /* Many tokens: all of them. */
    CU_ASSERT_DOUBLE_EQUAL(lm_expected_experts(8, 2, 1000), 8, 1e-9);
}

static void test_counts(void)
{
    struct lm_model m;
    tu_model("Mixtral-8x7B", &m);
    CU_ASSERT_EQUAL(m.experts, 8);
    CU_ASSERT_EQUAL(m.experts_per_token, 2);
    CU_ASSERT_EQUAL(lm_moe_layers(&m), 32);
    /* 6 unused experts × 32 blocks × 3 × 4096 × 14336 fewer: 12.88 B active of 46.70 B. */
    CU_ASSERT_DOUBLE_EQUAL(m.active_params, m.params - 6.0 * 32 * 3 * 4096 * 14336, 0.5);
    CU_ASSERT_DOUBLE_EQUAL(m.active_params * 1e-9, 12.88, 0.01);
    /* Memory holds every expert. */
    CU_ASSERT_DOUBLE_EQUAL(lm_weight_bytes(&m, RD_BF16), 2 * m.params, 0);
    tu_model("DeepSeek-V2-Lite", &m);
    CU_ASSERT_EQUAL(lm_moe_layers(&m), 26);
    /* Latent attention: 27 layers × (512 + 64) × 2 bytes per token. */
    CU_ASSERT_DOUBLE_EQUAL(lm_kv_bytes_per_token(&m, RD_BF16), 27.0 * 576 * 2, 0);
}

/* The GPU of test_stepmodel.c: round numbers. */
static struct gpu_roof test_roof(void)
{
    struct gpu_roof r;
    memset(&r, 0, sizeof r);
    r.peak_flops[RD_FP16] = r.peak_flops[RD_BF16] = 1e15;
    r.compute_eff = 0.7;
    r.bandwidth_eff = 0.85;
    r.k.gemm_eff = 0.6;
    r.k.gemm_half_tokens = 64;
    r.k.weight_bw_eff = 0.75;
    r.k.kv_bw_eff = 0.5;
    r.k.attn_eff = 0.4;
    r.k.attn_half_context = 1024;
    r.k.layer_fixed_s = 20e-6;
    return r;
}

static double roof(double tc, double tm)
{
    return tc > tm ? tc : tm;
}

/* A dense GEMM of M tokens, n × k, `times` layers (bf16 weights and activations). */
static double hand_gemm(double M, double n, double k, double times)
{
    double e = 0.6 * M / (M + 64);
    return roof(times * 2 * M * n * k / (1e15 * e),
                times * (n * k * 2 + M * (n + k) * 2) / (4e12 * 0.75));
}

/* Mixtral-8x7B: h 4096, 32 heads of 128, 8 KV heads, 8 experts of 14336, 2 per token, 32
 * blocks, vocabulary 32000; T decodes after `past` tokens each. */
static double hand_mixtral(double T, double past, double *distinct)
{
    double h = 4096, q = 4096, kv = 1024, im = 14336, L = 32, V = 32000, E = 8, k = 2;
    double t = hand_gemm(T, q + 2 * kv, h, L) + hand_gemm(T, h, q, L);
    /* Routed experts: D distinct, each a GEMM over T k / D tokens. */
    double D = E * (1 - pow(1 - k / E, T));
    *distinct = D;
    double ep = 3 * h * im, Me = T * k / D, e = 0.6 * Me / (Me + 64);
    t += roof(L * 2 * T * k * ep / (1e15 * e),
              L * (D * ep * 2 + T * k * (2 * h + 3 * im) * 2) / (4e12 * 0.75));
    /* Router: h × E over all T tokens (no shared expert). */
    double es = 0.6 * T / (T + 64);
    t += roof(L * 2 * T * h * E / (1e15 * es), L * (h * E * 2 + T * (h + E) * 2) / (4e12 * 0.75));
    t += hand_gemm(T, V, h, 1); /* LM head over the T sampled tokens */
    double ctx = past + 1;
    t += roof(T * 4 * L * 32 * 128 * ctx / (1e15 * 0.4 * ctx / (ctx + 1024)),
              T * ctx * 2 * L * 8 * 128 * 2 / (4e12 * 0.5));
    /* Small kernels: norms, residuals, RoPE, and SiLU × up over the k routed widths. */
    t += T * (L * (10 * h + 2 * (q + kv)) + 3 * L * k * im) * 2 / (4e12 * 0.75);
    return t + L * 20e-6;
}

static double model_step(const struct stm *s, int T, long past)
{
    struct stm_sum sum;
    struct stm_parts p;
    stm_start(s, &sum);
    for (int i = 0; i < T; i++)
        stm_add(s, &sum, past, 1, 1);
    stm_parts(s, &sum, &p);
    return stm_time_s(&p, 1, 1);
}

static void test_mixtral_step(void)
{
    struct lm_model m;
    tu_model("Mixtral-8x7B", &m);
    struct gpu_roof r = test_roof();
    struct stm s;
    stm_init(&s, STM_ENGINE, &m, RD_BF16, RD_BF16, &r, 4000, NULL, 0, NULL);
    double d1, d128;
    double t1 = hand_mixtral(1, 100, &d1), t128 = hand_mixtral(128, 100, &d128);
    CU_ASSERT_DOUBLE_EQUAL(d1, 2, 1e-12);   /* batch 1: its 2 experts */
    CU_ASSERT_DOUBLE_EQUAL(d128, 8, 1e-12); /* 128 tokens: every expert, to 1e-15 */
    CU_ASSERT_DOUBLE_EQUAL(model_step(&s, 1, 100), t1, t1 * 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(model_step(&s, 128, 100), t128, t128 * 1e-12);
    /* At batch 1 the step reads 2 of the 8 experts: well under what all weights take to read
     * (93.4 GB at 3 TB/s = 31 ms); at 128 it reads them all. */
    CU_ASSERT(t1 < 2 * m.params / 3e12 * 0.5);
    CU_ASSERT(t128 > 32.0 * 8 * 3 * 4096 * 14336 * 2 / 3e12);
}

void test_moe_register(void)
{
    static const struct tu_test t[] = {
        {"expected distinct experts E (1 - (1 - k/E)^T) by hand", test_expected_experts},
        {"MoE counts: active parameters, all experts in memory, MLA's latent cache", test_counts},
        {"Mixtral decode step by hand at batch 1 and at a batch touching every expert",
         test_mixtral_step},
        {NULL, NULL},
    };
    tu_add_suite("moe", t);
}
