/*
 * roofline (llm/roofline.c, calib/roof.c): step costs and times written out by hand from the
 * documented formula (docs/llm.md#step-time), the profiles' peaks, and the physical checks of
 * issue 17: Llama-2-7B FP16 batch-1 decode on an A100-80GB lies between the pure bandwidth
 * bound (weights / 2,039 GB/s) and twice it; on a 3g.40gb instance's shares (4 of 8 memory
 * slices) it takes about twice as long; 8 running sequences add less than 30 % over one.
 */
#include "llm/roofline.h"
#include "calib/calib.h"
#include "testutil.h"

#include <math.h>

static struct lm_model llama2_7b(void)
{
    struct lm_model m;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(lm_find(NULL, "Llama-2-7B", &m, err, sizeof err), 0);
    return m;
}

static void test_profile_peaks(void)
{
    struct gpu_profile a, h;
    tu_gpu("A100-80GB", &a);
    tu_gpu("H100-80GB", &h);
    CU_ASSERT_DOUBLE_EQUAL(a.roof.peak_flops[RD_FP16], 312e12, 0);
    CU_ASSERT_DOUBLE_EQUAL(a.roof.peak_flops[RD_INT8], 624e12, 0);
    /* No fp8 tensor cores on the A100: fp8 weights are weight-only, products at fp16. */
    CU_ASSERT_DOUBLE_EQUAL(a.roof.peak_flops[RD_FP8], 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(roof_peak_flops(&a.roof, RD_FP8), 312e12, 0);
    CU_ASSERT_DOUBLE_EQUAL(roof_peak_flops(&h.roof, RD_FP8), 1978.9e12, 1);
    CU_ASSERT_DOUBLE_EQUAL(roof_peak_flops(&h.roof, RD_INT4), 989.4e12, 1);
    CU_ASSERT(a.roof.compute_eff > 0 && a.roof.compute_eff <= 1);
    CU_ASSERT(a.roof.bandwidth_eff > 0 && a.roof.bandwidth_eff <= 1);
    const char *names[] = {"A100-40GB", "H200-141GB"};
    for (int i = 0; i < 2; i++) {
        struct gpu_profile g;
        tu_gpu(names[i], &g);
        CU_ASSERT(g.roof.peak_flops[RD_FP16] > 0 && g.roof.bandwidth_eff > 0);
    }
}

/* The formula, spelt out independently of the code under test. */
static double hand_time(double P, double L, double H, double d, double kvb, double wbytes,
                        double past, double n, int seqs, double peak, double bw, double ec,
                        double eb, double f, double b, double over)
{
    double pairs = seqs * (n * past + n * (n + 1) / 2);
    double flops = 2 * P * n * seqs + 4 * L * H * d * pairs;
    double bytes = P * wbytes + kvb * seqs * (past + n);
    return fmax(flops / (peak * f * ec), bytes / (bw * b * eb)) + over;
}

static void test_step_by_hand(void)
{
    struct gpu_profile g;
    tu_gpu("A100-80GB", &g);
    struct lm_model m = llama2_7b();
    struct rf_model rm;
    struct rf_gpu rg;
    rf_model_init(&rm, &m, RD_FP16, RD_FP16);
    rf_gpu_init(&rg, &g.roof, g.hbm_bw_gbps, RD_FP16);
    double ec = g.roof.compute_eff, eb = g.roof.bandwidth_eff, P = 6738415616.0;
    /* A 512-token prefill: 2 P 512 + 4·32·32·128 · (512·513/2) FLOPs — compute bound. */
    struct rf_cost c;
    rf_cost_start(&rm, &c);
    rf_cost_add(&rm, &c, 0, 512);
    CU_ASSERT_DOUBLE_EQUAL(c.flops, 2 * P * 512 + 524288.0 * 131328, 1);
    CU_ASSERT_DOUBLE_EQUAL(c.bytes, 2 * P + 524288.0 * 512, 1);
    double t = rf_time_s(&rg, &c, 1, 1, 0.002);
    double want =
        hand_time(P, 32, 32, 128, 524288, 2, 0, 512, 1, 312e12, 2039e9, ec, eb, 1, 1, 0.002);
    TU_CHECK_CLOSE_REL(t, want, 1e-12);
    CU_ASSERT(c.flops / (312e12 * ec) > c.bytes / (2039e9 * eb)); /* compute bound */
    /* Four decode tokens after 700, 10, 3 and 0 tokens: one weight read, four KV reads. */
    rf_cost_start(&rm, &c);
    long past[] = {700, 10, 3, 0};
    double pairs = 0, kv = 0;
    for (int i = 0; i < 4; i++) {
        rf_cost_add(&rm, &c, past[i], 1);
        pairs += past[i] + 1;
        kv += past[i] + 1;
    }
    CU_ASSERT_DOUBLE_EQUAL(c.flops, 2 * P * 4 + 524288.0 * pairs, 1);
    CU_ASSERT_DOUBLE_EQUAL(c.bytes, 2 * P + 524288.0 * kv, 1);
    TU_CHECK_CLOSE_REL(rf_time_s(&rg, &c, 1, 1, 0), c.bytes / (2039e9 * eb), 1e-12);
}

/* Batch-b decode step of Llama-2-7B FP16 on shares (f, b) of an A100-80GB, every sequence
 * after `past` tokens, with the profile's efficiencies and no overhead. */
static double decode_step(int batch, long past, double f, double b)
{
    struct gpu_profile g;
    tu_gpu("A100-80GB", &g);
    struct lm_model m = llama2_7b();
    struct rf_model rm;
    struct rf_gpu rg;
    rf_model_init(&rm, &m, RD_FP16, RD_FP16);
    rf_gpu_init(&rg, &g.roof, g.hbm_bw_gbps, RD_FP16);
    struct rf_cost c;
    rf_cost_start(&rm, &c);
    for (int i = 0; i < batch; i++)
        rf_cost_add(&rm, &c, past, 1);
    return rf_time_s(&rg, &c, f, b, 0);
}

static void test_physical_sanity(void)
{
    /* Between the bandwidth bound and twice it, at a 512-token context. */
    double bound = 13476831232.0 / 2039e9;
    double t1 = decode_step(1, 512, 1, 1);
    CU_ASSERT(t1 > bound && t1 < 2 * bound);
    /* A 3g.40gb instance: its SMs and 4 of the 8 memory slices. Decode is bandwidth bound, so
     * about twice the whole GPU's time. */
    struct gpu_profile g;
    tu_gpu("A100-80GB", &g);
    const struct mig_profile *mp = cal_mig_find(&g, "3g.40gb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mp);
    double f = (double)mp->sm_count / g.total_sms, b = mp->memory_slices / 8.0;
    CU_ASSERT_DOUBLE_EQUAL(b, 0.5, 0);
    double tm = decode_step(1, 512, f, b);
    CU_ASSERT(tm / t1 > 1.9 && tm / t1 < 2.1);
    /* Eight sequences: the weights are read once, only the KV reads grow. */
    double t8 = decode_step(8, 512, 1, 1);
    CU_ASSERT(t8 > t1 && t8 < 1.3 * t1);
}

void test_roofline_register(void)
{
    static const struct tu_test t[] = {
        {"dense peaks and efficiencies in the shipped profiles", test_profile_peaks},
        {"prefill and decode steps by hand", test_step_by_hand},
        {"Llama-2-7B FP16 on an A100-80GB: bound, half bandwidth, batch 8", test_physical_sanity},
        {NULL, NULL},
    };
    tu_add_suite("roofline", t);
}
