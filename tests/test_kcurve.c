/*
 * kcurve (calib/kcurve.c, scripts/kernel-tables): the converter on the fixture tables of
 * tests/fixtures/kcurve (CSV in the upstream columns, latencies chosen so that every curve can
 * be worked out by hand), the log-log interpolation exact at knots and between them, clamping,
 * the paths a lookup takes, the shipped files, and malformed files with their JSON paths.
 */
#include "calib/kcurve.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define H100_BF16 989.4e12 /* kernels/profiles/h100-80gb.json, dense_tflops_bf16 */
#define REL 1e-4           /* the converter writes five significant digits */

/* Runs the converter on the fixture tables; returns the path of the H100 file it wrote. */
static const char *convert_fixture(void)
{
    static char out[1024];
    char cmd[4096];
    snprintf(out, sizeof out, "%s/kc-out", tu_tmpdir());
    snprintf(cmd, sizeof cmd,
             "python3 scripts/kernel-tables --tables tests/fixtures/kcurve/tables --models "
             "tests/fixtures/kcurve/models.json --gpu h100-80gb --out '%s' >/dev/null",
             out);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    strncat(out, "/h100-80gb.json", sizeof out - strlen(out) - 1);
    return out;
}

static struct kc_gpu *load_fixture(void)
{
    struct kc_gpu *g = NULL;
    char err[1024] = "";
    int rc = kc_load_file(convert_fixture(), &g, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    return g;
}

static void test_converter_gemm(void)
{
    struct kc_gpu *g = load_fixture();
    struct kc_result r;
    /* The table: t(m, n, k) = 0.01 ms × n/256 × k/128 × (1 + (m − 1)/3). qkv is n 256, k 128:
     * 0.01 ms at m 1, 0.02 ms at m 4, on the table's grid. */
    kc_gemm(g, RD_BF16, 1, 256, 128, &r);
    CU_ASSERT_EQUAL(r.path, KC_TABLE);
    CU_ASSERT_STRING_EQUAL(r.source, "AIC");
    CU_ASSERT_EQUAL(r.clamped, 0);
    TU_CHECK_CLOSE_REL(r.s, 0.01e-3, REL);
    TU_CHECK_CLOSE_REL(kc_gemm_eff(g, RD_BF16, 1, 256, 128, &r),
                       2.0 * 256 * 128 / (0.01e-3 * H100_BF16), REL);
    kc_gemm(g, RD_BF16, 4, 256, 128, &r);
    TU_CHECK_CLOSE_REL(r.s, 0.02e-3, REL);
    /* Between knots (m 2): the efficiency doubles from m 1 to m 4, so log-log gives √2 × the
     * m-1 efficiency, and the time 2 × 0.01 ms / √2. */
    kc_gemm(g, RD_BF16, 2, 256, 128, &r);
    CU_ASSERT_EQUAL(r.clamped, 0);
    TU_CHECK_CLOSE_REL(r.s, 2 * 0.01e-3 / sqrt(2.0), REL);
    /* gate_up (n 512) lies between the grid's n 256 and 1024: log-log, √(0.02 × 0.08) ms at
     * m 4 = 0.04 ms, the table's own law. */
    kc_gemm(g, RD_BF16, 4, 512, 128, &r);
    CU_ASSERT_EQUAL(r.path, KC_TABLE);
    TU_CHECK_CLOSE_REL(r.s, 0.04e-3, REL);
    /* A shape of no model: the across-shapes curve (all four shapes have one efficiency). */
    kc_gemm(g, RD_BF16, 4, 4096, 4096, &r);
    CU_ASSERT_EQUAL(r.path, KC_GENERIC);
    TU_CHECK_CLOSE_REL(r.s, 0.02e-3 * (4096.0 / 256) * (4096.0 / 128), REL);
    /* m past the last knot: the efficiency clamps, flagged. */
    kc_gemm(g, RD_BF16, 8, 256, 128, &r);
    CU_ASSERT_EQUAL(r.clamped, 1);
    TU_CHECK_CLOSE_REL(r.s, 2 * 0.02e-3, REL);
    /* fp8: only fp8_block rows, which are left out: none. int8: no table. */
    kc_gemm(g, RD_FP8, 4, 256, 128, &r);
    CU_ASSERT_EQUAL(r.path, KC_NONE);
    CU_ASSERT_EQUAL(r.s, 0);
    kc_gemm(g, RD_INT8, 4, 256, 128, &r);
    CU_ASSERT_EQUAL(r.path, KC_NONE);
    /* fp16 from Vidur's mlp.csv: attn_pre_proj median 0.01 ms × tokens; the TP-2 rows (×100)
     * left out; 3 tokens is not a power of two, so it is not a knot and lands between 2 and 4. */
    kc_gemm(g, RD_FP16, 3, 256, 128, &r);
    CU_ASSERT_EQUAL(r.path, KC_TABLE);
    CU_ASSERT_STRING_EQUAL(r.source, "VIDUR");
    TU_CHECK_CLOSE_REL(r.s, 0.03e-3, REL);
    kc_gemm(g, RD_FP16, 4, 128, 256, &r); /* down: mlp_down_proj, 0.04 ms per token */
    TU_CHECK_CLOSE_REL(r.s, 0.16e-3, REL);
    kc_free(g);
}

static void test_converter_attention(void)
{
    struct kc_gpu *g = load_fixture();
    struct kc_result r;
    /* Prefill, 2 heads, 1 KV head, dim 64: batch 1 at 16 and 64 tokens 0.01 and 0.16 ms; batch
     * 4 0.04 and the median of 0.64, 0.60, 0.70 = 0.64 ms. Rows of an fp8 KV cache, of FA4 and
     * of a window are left out (5 ms each). */
    kc_attn_prefill(g, RD_BF16, 2, 1, 64, 4, 64, &r);
    CU_ASSERT_EQUAL(r.path, KC_TABLE);
    TU_CHECK_CLOSE_REL(r.s, 0.64e-3, REL);
    kc_attn_prefill(g, RD_BF16, 2, 1, 64, 1, 16, &r);
    TU_CHECK_CLOSE_REL(r.s, 0.01e-3, REL);
    /* Batch 2 of 32 tokens: √(0.01 × 0.16) = 0.04 ms at batch 1, 0.16 at batch 4, and
     * √(0.04 × 0.16) = 0.08 ms between them. fp16 takes the bf16 table. */
    kc_attn_prefill(g, RD_FP16, 2, 1, 64, 2, 32, &r);
    CU_ASSERT_EQUAL(r.clamped, 0);
    TU_CHECK_CLOSE_REL(r.s, 0.08e-3, REL);
    kc_attn_prefill(g, RD_FP8, 2, 1, 64, 2, 32, &r);
    CU_ASSERT_EQUAL(r.path, KC_NONE);
    kc_attn_prefill(g, RD_BF16, 2, 2, 64, 2, 32, &r); /* a head configuration of no table */
    CU_ASSERT_EQUAL(r.path, KC_NONE);
    /* Decode: KV length isl + step = 16 and 64. Batch 16 at 64: 0.16 ms (the fp8 row, 9 ms, left
     * out). Batch 4 at 32: √(0.01 × 0.02) at batch 1, √(0.04 × 0.16) = 0.08 at batch 16, their
     * log-midpoint. */
    kc_attn_decode(g, RD_BF16, 2, 1, 64, 16, 64, &r);
    TU_CHECK_CLOSE_REL(r.s, 0.16e-3, REL);
    kc_attn_decode(g, RD_BF16, 2, 1, 64, 4, 32, &r);
    TU_CHECK_CLOSE_REL(r.s, sqrt(sqrt(0.01 * 0.02) * 0.08) * 1e-3, REL);
    /* Past the longest KV length and the largest batch: the edge, flagged. */
    kc_attn_decode(g, RD_BF16, 2, 1, 64, 16, 128, &r);
    CU_ASSERT_EQUAL(r.clamped, 1);
    TU_CHECK_CLOSE_REL(r.s, 0.16e-3, REL);
    kc_attn_decode(g, RD_BF16, 2, 1, 64, 64, 64, &r);
    CU_ASSERT_EQUAL(r.clamped, 1);
    TU_CHECK_CLOSE_REL(r.s, 0.16e-3, REL);
    kc_free(g);
}

static void test_converter_small_allreduce(void)
{
    struct kc_gpu *g = load_fixture();
    struct kc_result r;
    /* Parts 1..5 (two norms, RoPE, the activation, the add) at 0.001 × part × tokens ms: a
     * layer is (1 + 2 + 3 + 4) + 2 × 5 = 20 × 0.001 ms per token, the add counted twice. */
    kc_small_kernels(g, RD_BF16, 128, 256, 2, 1, 4, &r);
    CU_ASSERT_EQUAL(r.path, KC_TABLE);
    CU_ASSERT_STRING_EQUAL(r.source, "VIDUR");
    TU_CHECK_CLOSE_REL(r.s, 0.08e-3, REL);
    kc_small_kernels(g, RD_FP16, 128, 256, 2, 1, 3, &r); /* not a knot: log-log, exact here */
    TU_CHECK_CLOSE_REL(r.s, 0.06e-3, REL);
    kc_small_kernels(g, RD_FP16, 4096, 11008, 32, 32, 3, &r);
    CU_ASSERT_EQUAL(r.path, KC_NONE);
    /* All-reduce over 2 GPUs, CUDA-graph backend: 0.004 ms at 128 elements, 0.008 at 8192
     * (the eager row, 0.02 ms, left out); 1024 is half way in log. */
    kc_allreduce(g, RD_BF16, 2, 1024, &r);
    CU_ASSERT_EQUAL(r.path, KC_TABLE);
    TU_CHECK_CLOSE_REL(r.s, 0.004e-3 * sqrt(2.0), REL);
    kc_allreduce(g, RD_BF16, 4, 1024, &r);
    CU_ASSERT_EQUAL(r.path, KC_NONE);
    kc_free(g);
    /* The sources are recorded as unverified: fixture CSV, not the pinned wheel. */
    char *text = tu_slurp(convert_fixture());
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    TU_CHECK_CONTAINS(text, "\"verified\": false");
    TU_CHECK_CONTAINS(text, "\"licence\": \"Apache-2.0\"");
    TU_CHECK_CONTAINS(text, "\"licence\": \"MIT\"");
    free(text);
}

static void test_interpolation(void)
{
    double x[] = {1, 4, 16}, y[] = {1, 2, 8};
    struct kc_curve c = {3, x, y, NULL, NULL}; /* no knot logs: computed */
    int cl = -1;
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(kc_curve_at(&c, x[i], &cl), y[i]); /* exact at the knots */
        CU_ASSERT_EQUAL(cl, 0);
    }
    TU_CHECK_CLOSE_REL(kc_curve_at(&c, 2, &cl), sqrt(2.0), 1e-12); /* log-midpoint of 1 and 4 */
    TU_CHECK_CLOSE_REL(kc_curve_at(&c, 8, &cl), 4.0, 1e-12);       /* √(2 × 8) */
    TU_CHECK_CLOSE_REL(kc_curve_at(&c, 1.5, &cl), pow(2.0, log(1.5) / log(4.0)), 1e-12);
    CU_ASSERT_EQUAL(cl, 0);
    CU_ASSERT_EQUAL(kc_curve_at(&c, 0.5, &cl), 1);
    CU_ASSERT_EQUAL(cl, 1);
    CU_ASSERT_EQUAL(kc_curve_at(&c, 32, &cl), 8);
    CU_ASSERT_EQUAL(cl, 1);
    double x1[] = {5}, y1[] = {3};
    struct kc_curve one = {1, x1, y1, NULL, NULL};
    CU_ASSERT_EQUAL(kc_curve_at(&one, 5, &cl), 3);
    CU_ASSERT_EQUAL(cl, 0);
    CU_ASSERT_EQUAL(kc_curve_at(&one, 7, NULL), 3);
}

static void test_knot_logs(void)
{
    /* A curve that keeps its knots' logs interpolates to the same doubles as one that takes
     * them anew, between knots, at them and outside. */
    double x[] = {1, 3, 7.5, 64, 1000}, y[] = {0.002, 0.01, 0.05, 0.4, 0.9};
    double lx[5], ly[5];
    for (int i = 0; i < 5; i++)
        lx[i] = log(x[i]), ly[i] = log(y[i]);
    struct kc_curve bare = {5, x, y, NULL, NULL}, kept = {5, x, y, lx, ly};
    for (double m = 0.5; m < 2000; m = m * 1.07 + 0.3) {
        int c1 = -1, c2 = -1;
        double a = kc_curve_at(&bare, m, &c1), b = kc_curve_at(&kept, m, &c2);
        CU_ASSERT(memcmp(&a, &b, sizeof a) == 0);
        CU_ASSERT_EQUAL(c1, c2);
    }
}

static void test_gemm_found_once(void)
{
    /* kc_gemm_find + kc_gemm_ref_time is kc_gemm to the bit: every shape of the shipped H100
     * file's Llama-3-8B (table), a shape the file lacks (generic), a type with no curve. */
    struct kc_gpu *g = NULL;
    char err[1024] = "";
    CU_ASSERT_EQUAL_FATAL(kc_load("kernels/profiles/h100-80gb.json", &g, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    const double shapes[][2] = {{6144, 4096},  {4096, 4096},   {28672, 4096},
                                {4096, 14336}, {128256, 4096}, {1234, 567}};
    const enum roof_dtype types[] = {RD_BF16, RD_FP16, RD_INT4};
    int paths[KC_NPATH] = {0};
    for (size_t t = 0; t < sizeof types / sizeof *types; t++)
        for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
            struct kc_gemm_ref ref;
            kc_gemm_find(g, types[t], shapes[i][0], shapes[i][1], &ref);
            for (double m = 1; m < 40000; m = m * 1.3 + 1) {
                struct kc_result a, b;
                kc_gemm(g, types[t], m, shapes[i][0], shapes[i][1], &a);
                kc_gemm_ref_time(&ref, m, &b);
                CU_ASSERT(memcmp(&a.s, &b.s, sizeof a.s) == 0);
                CU_ASSERT(a.path == b.path && a.clamped == b.clamped && a.source == b.source);
                paths[b.path]++;
            }
        }
    CU_ASSERT(paths[KC_TABLE] > 0 && paths[KC_GENERIC] > 0 && paths[KC_NONE] > 0);
    struct kc_gemm_ref none;
    kc_gemm_find(NULL, RD_BF16, 6144, 4096, &none);
    CU_ASSERT_EQUAL(none.path, KC_NONE);
    kc_free(g);
}

static void test_shipped(void)
{
    /* The shipped files load; the H100's Llama-3-8B QKV curve (n 6144, k 4096) is on the
     * table's grid, and an A100-40GB has no file: every lookup answers none. */
    const char *names[] = {"a100-80gb", "h100-80gb", "h200-141gb"};
    for (int i = 0; i < 3; i++) {
        char path[512], err[1024] = "";
        snprintf(path, sizeof path, "kernels/profiles/%s.json", names[i]);
        struct kc_gpu *g = NULL;
        int rc = kc_load(path, &g, err, sizeof err);
        if (rc)
            fprintf(stderr, "\n  %s\n", err);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        struct kc_result r;
        double e1 = kc_gemm_eff(g, RD_BF16, 1, 6144, 4096, &r);
        CU_ASSERT_EQUAL(r.path, KC_TABLE);
        double e1k = kc_gemm_eff(g, RD_BF16, 1024, 6144, 4096, &r);
        CU_ASSERT(e1 > 0.001 && e1 < 0.01 && e1k > 0.5 && e1k < 1); /* memory- vs compute-bound */
        kc_attn_decode(g, RD_BF16, 32, 8, 128, 8, 1024, &r);
        CU_ASSERT_EQUAL(r.path, KC_TABLE);
        CU_ASSERT(r.s > 5e-6 && r.s < 1e-3);
        kc_gemm(g, RD_INT4, 16, 6144, 4096, &r);
        CU_ASSERT_EQUAL(r.path, KC_NONE);
        kc_free(g);
    }
    struct kc_gpu *g = (struct kc_gpu *)1;
    char err[256];
    CU_ASSERT_EQUAL(kc_load("kernels/profiles/a100-40gb.json", &g, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(g);
    struct kc_result r;
    kc_gemm(NULL, RD_BF16, 16, 6144, 4096, &r);
    CU_ASSERT_EQUAL(r.path, KC_NONE);
    kc_attn_prefill(NULL, RD_BF16, 32, 8, 128, 1, 512, &r);
    CU_ASSERT_EQUAL(r.path, KC_NONE);
}

/* A file that must not load, and the part of the message that says where and why. */
static void expect_bad(const char *text, const char *part)
{
    char *path = tu_write("kc-bad.json", text);
    struct kc_gpu *g = (struct kc_gpu *)1;
    char err[1024] = "";
    CU_ASSERT_EQUAL(kc_load_file(path, &g, err, sizeof err), -1);
    CU_ASSERT_PTR_NULL(g);
    TU_CHECK_CONTAINS(err, "kc-bad.json");
    TU_CHECK_CONTAINS(err, part);
}

#define HEAD                                                                                       \
    "{\"schema\": \"sharesim-kernels/1\", \"peaks_tflops\": {\"bf16\": 100}, \"sources\": "        \
    "{\"AIC\": {\"version\": \"0.12.0\", \"licence\": \"Apache-2.0\"}}, "

static void test_malformed(void)
{
    expect_bad("{\"schema\": \"sharesim-kernels/1\",\n \"gemm\": [", "kc-bad.json:2:");
    expect_bad("{\"schema\": \"sharesim-kernels/2\"}", "schema: \"sharesim-kernels/2\"");
    expect_bad(HEAD "\"gemms\": []}", "gemms");
    expect_bad(HEAD "\"gemm\": [{\"dtype\": \"bf16\", \"n\": 1, \"k\": 1, \"source\": \"AIC\", "
                    "\"m\": [1, 4, 2], \"eff\": [0.1, 0.2, 0.3]}]}",
               "gemm[0].m[2]: 2 after 4");
    expect_bad(HEAD "\"gemm\": [{\"dtype\": \"bf16\", \"n\": 1, \"k\": 1, \"source\": \"AIC\", "
                    "\"m\": [1, 4], \"eff\": [0.1]}]}",
               "gemm[0].eff: 1 values for 2 knots");
    expect_bad(HEAD "\"gemm\": [{\"dtype\": \"bf16\", \"n\": 1, \"k\": 1, \"source\": \"AIC\", "
                    "\"m\": [1, 4], \"eff\": [0.1, -1]}]}",
               "gemm[0].eff[1]: expected a positive number");
    expect_bad(HEAD "\"gemm\": [{\"dtype\": \"bf16\", \"n\": 1, \"k\": 1, \"source\": \"X\", "
                    "\"m\": [1], \"eff\": [0.1]}]}",
               "gemm[0].source: \"X\" is not a key of \"sources\"");
    expect_bad(HEAD "\"gemm\": [{\"dtype\": \"fp8\", \"n\": 1, \"k\": 1, \"source\": \"AIC\", "
                    "\"m\": [1], \"eff\": [0.1]}]}",
               "gemm[0]: dtype \"fp8\" has no entry in peaks_tflops");
    expect_bad(HEAD "\"attn_decode\": [{\"dtype\": \"bf16\", \"heads\": 2, \"kv_heads\": 1, "
                    "\"head_dim\": 64, \"source\": \"AIC\", \"batches\": [{\"batch\": 4, \"len\": "
                    "[1], \"ms\": [1]}, {\"batch\": 2, \"len\": [1], \"ms\": [1]}]}]}",
               "attn_decode[0].batches[1]: batch 2 after 4");
    expect_bad("{\"schema\": \"sharesim-kernels/1\", \"peaks_tflops\": {}, \"sources\": {\"V\": "
               "{\"licence\": \"MIT\"}}}",
               "sources.V");
    /* KC_MAX_KNOTS + 1 knots */
    size_t cap = 64 * (KC_MAX_KNOTS + 2) + 512, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len,
                            HEAD "\"allreduce\": [{\"dtype\": \"bf16\", \"gpus\": 2, \"source\": "
                                 "\"AIC\", \"size\": [");
    for (int i = 0; i <= KC_MAX_KNOTS; i++)
        len += (size_t)snprintf(t + len, cap - len, "%s%d", i ? "," : "", i + 1);
    len += (size_t)snprintf(t + len, cap - len, "], \"ms\": [");
    for (int i = 0; i <= KC_MAX_KNOTS; i++)
        len += (size_t)snprintf(t + len, cap - len, "%s1", i ? "," : "");
    snprintf(t + len, cap - len, "]}]}");
    expect_bad(t, "allreduce[0].size: 1025 knots, expected 1 to 1024");
    free(t);
}

static void test_converter_errors(void)
{
    /* The pinned wheel's sha256 is checked before use; a bad table row is refused. */
    char *fake = tu_write("aiconfigurator_core-0.12.0-fake.whl", "not a wheel");
    char cmd[4096], out[512];
    snprintf(out, sizeof out, "%s/kc-err", tu_tmpdir());
    snprintf(cmd, sizeof cmd,
             "python3 scripts/kernel-tables --wheel '%s' --out '%s' 2>'%s.txt' >/dev/null", fake,
             out, out);
    int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    char msg[1100];
    snprintf(msg, sizeof msg, "%s.txt", out);
    char *text = tu_slurp(msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    TU_CHECK_CONTAINS(text,
                      "expected aadc4aad0a00bf8a61c477c62bef43de479849c3aa0b1c3078068e08309eccc4");
    free(text);
    snprintf(cmd, sizeof cmd,
             "d='%s/kc-tables' && rm -rf \"$d\" && cp -r tests/fixtures/kcurve/tables \"$d\" && "
             "f=\"$d/aic/h100_sxm/gemm/vllm/0.24.0/gemm_perf.csv\" && "
             "echo 'VLLM,0.24.0,H100,gemm,torch,bfloat16,2,128,128,-1' >>\"$f\" && "
             "python3 scripts/kernel-tables --tables \"$d\" --models "
             "tests/fixtures/kcurve/models.json --gpu h100-80gb --out '%s' 2>'%s.txt' >/dev/null",
             tu_tmpdir(), out, out);
    st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    text = tu_slurp(msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    TU_CHECK_CONTAINS(text,
                      "gemm_perf.csv: row 14 of the table: latency -1 is not a positive number");
    free(text);
}

void test_kcurve_register(void)
{
    static const struct tu_test t[] = {
        {"converter: GEMM curves by hand (grid, shape interpolation, generic, fp16)",
         test_converter_gemm},
        {"converter: prefill and decode attention by hand, clamping", test_converter_attention},
        {"converter: small kernels and all-reduce by hand, sources",
         test_converter_small_allreduce},
        {"log-log interpolation: knots, between, clamped", test_interpolation},
        {"knots' logs kept at load: the same doubles", test_knot_logs},
        {"a GEMM shape found once times as kc_gemm to the bit", test_gemm_found_once},
        {"shipped kernel files load; no file means no curves", test_shipped},
        {"malformed kernel files: JSON path and reason", test_malformed},
        {"converter: altered wheel and bad rows exit 2", test_converter_errors},
        {NULL, NULL},
    };
    tu_add_suite("kcurve", t);
}
