/*
 * stepmodel (llm/stepmodel.c, llm/enginetime.c): the engine step model's parts written out
 * by hand from docs/llm.md#step-time with made-up efficiencies (so that every term shows), the
 * CPU part and its overlap, shares, the roofline model kept to the bit, and the engine table.
 */
#include "llm/enginetime.h"
#include "llm/roofline.h"
#include "llm/stepmodel.h"
#include "llm/tp.h"
#include "calib/calib.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct lm_model llama3_8b(void)
{
    struct lm_model m;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(lm_find(NULL, "Llama-3-8B", &m, err, sizeof err), 0);
    return m;
}

/* A GPU with round numbers: 1e15 FLOP/s in 16 bits, 2e12 in fp8, 4 TB/s. */
static struct gpu_roof test_roof(void)
{
    struct gpu_roof r;
    memset(&r, 0, sizeof r);
    r.peak_flops[RD_FP16] = r.peak_flops[RD_BF16] = 1e15;
    r.peak_flops[RD_FP8] = 2e15;
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

/* One linear layer of M tokens, n × k, by hand. */
static double hand_gemm(double M, double n, double k, double times, double f, double b)
{
    double e = 0.6 * M / (M + 64);
    double tc = times * 2 * M * n * k / (1e15 * e);
    double tm = times * (n * k * 2 + M * (n + k) * 2) / (4e12 * 0.75);
    return fmax(tc / f, tm / b);
}

/* Llama-3-8B: hidden 4096, 32 heads of 128, 8 KV heads, MLP 14336, vocabulary 128256, 32
 * layers. The step's sequences as (past, n_new, emits). */
static double hand_step(const long (*seq)[3], int n, double f, double b, double cpu_step,
                        double cpu_seq)
{
    double h = 4096, q = 4096, kv = 1024, in = 14336, L = 32, V = 128256;
    double M = 0, pairs_t[2] = {0, 0}, kvtok[2] = {0, 0};
    int sampled = 0;
    for (int i = 0; i < n; i++) {
        double p = (double)seq[i][0], nn = (double)seq[i][1], ctx = p + nn;
        double pairs = nn * p + nn * (nn + 1) / 2;
        int d = seq[i][1] == 1;
        pairs_t[d] += 4 * L * 32 * 128 * pairs / (1e15 * 0.4 * ctx / (ctx + 1024));
        kvtok[d] += ctx;
        M += nn;
        sampled += seq[i][2] != 0;
    }
    double t = hand_gemm(M, q + 2 * kv, h, L, f, b) + hand_gemm(M, h, q, L, f, b) +
               hand_gemm(M, 2 * in, h, L, f, b) + hand_gemm(M, h, in, L, f, b);
    if (sampled)
        t += hand_gemm(sampled, V, h, 1, f, b);
    for (int d = 0; d < 2; d++)
        t += fmax(pairs_t[d] / f, kvtok[d] * 2 * L * 8 * 128 * 2 / (4e12 * 0.5) / b);
    t += M * L * (10 * h + 2 * (q + kv) + 3 * in) * 2 / (4e12 * 0.75) / b;
    t += L * 20e-6;
    return t + cpu_step + cpu_seq * n;
}

static double model_step(const long (*seq)[3], int n, double f, double b, struct stm_cpu cpu,
                         struct stm_parts *out)
{
    struct lm_model lm = llama3_8b();
    struct gpu_roof r = test_roof();
    struct stm m;
    stm_init(&m, STM_ENGINE, &lm, RD_BF16, RD_BF16, &r, 4000, &cpu, 0, NULL);
    struct stm_sum s;
    stm_start(&m, &s);
    for (int i = 0; i < n; i++)
        stm_add(&m, &s, seq[i][0], seq[i][1], (int)seq[i][2]);
    stm_parts(&m, &s, out);
    return stm_time_s(out, f, b);
}

static void test_decode_by_hand(void)
{
    const long one[1][3] = {{1000, 1, 1}};
    struct stm_cpu cpu = {1e-3, 2e-5, 0, 0, 0};
    struct stm_parts p;
    double t = model_step(one, 1, 1, 1, cpu, &p);
    TU_CHECK_CLOSE_REL(t, hand_step(one, 1, 1, 1, 1e-3, 2e-5), 1e-12);
    /* A batch-1 decode step is bound by the weights: ~15 GB at 3 TB/s, 5 ms, plus the rest. */
    CU_ASSERT(t > 5e-3 && t < 8e-3);
    const long eight[8][3] = {{100, 1, 1}, {200, 1, 1}, {300, 1, 1}, {400, 1, 1},
                              {500, 1, 1}, {600, 1, 1}, {700, 1, 1}, {800, 1, 1}};
    TU_CHECK_CLOSE_REL(model_step(eight, 8, 1, 1, cpu, &p), hand_step(eight, 8, 1, 1, 1e-3, 2e-5),
                       1e-12);
}

/* A prefill chunk beside decodes: the decodes' attention reads add to the chunk's products. */
static void test_mixed_step_adds(void)
{
    const long mix[3][3] = {{0, 512, 0}, {4000, 1, 1}, {6000, 1, 1}};
    const long alone[1][3] = {{0, 512, 0}};
    struct stm_cpu cpu = {0, 0, 0, 0, 0};
    struct stm_parts p;
    double t = model_step(mix, 3, 1, 1, cpu, &p);
    TU_CHECK_CLOSE_REL(t, hand_step(mix, 3, 1, 1, 0, 0), 1e-12);
    double kv_s = (4001.0 + 6001.0) * 2 * 32 * 8 * 128 * 2 / (4e12 * 0.5);
    /* Compute-bound chunk: the decodes' KV reads are not hidden under it. */
    CU_ASSERT(t - model_step(alone, 1, 1, 1, cpu, &p) > 0.9 * kv_s);
}

/* Shares: each part is its own roofline; the fixed and CPU parts do not scale. */
static void test_shares(void)
{
    const long seq[2][3] = {{0, 300, 1}, {2000, 1, 1}};
    struct stm_cpu cpu = {2e-3, 0, 0, 0, 0};
    struct stm_parts p;
    double t = model_step(seq, 2, 0.5, 0.25, cpu, &p);
    TU_CHECK_CLOSE_REL(t, hand_step(seq, 2, 0.5, 0.25, 2e-3, 0), 1e-12);
    TU_CHECK_CLOSE_REL(stm_speed(&p, 1, 1), 1, 1e-15);
    TU_CHECK_CLOSE_REL(stm_speed(&p, 0.5, 0.25), stm_gpu_s(&p, 1, 1) / stm_gpu_s(&p, 0.5, 0.25),
                       1e-15);
}

/* Overlapped CPU time is hidden behind the GPU part up to its length. */
static void test_overlap(void)
{
    const long one[1][3] = {{10, 1, 1}};
    struct stm_cpu cpu = {1e-3, 0, 1, 0, 0};
    struct stm_parts p;
    double t = model_step(one, 1, 1, 1, cpu, &p);
    double g = stm_gpu_s(&p, 1, 1);
    TU_CHECK_CLOSE_REL(t, g, 1e-15); /* 1 ms of CPU under a ~5 ms GPU part */
    CU_ASSERT_DOUBLE_EQUAL(stm_cpu_exposed_s(&p, 1, 1), 0, 0);
    cpu.step_s = 0.1;
    t = model_step(one, 1, 1, 1, cpu, &p);
    TU_CHECK_CLOSE_REL(t, 0.1, 1e-12); /* the CPU part is the longer: it is the step */
}

/* "roofline" is llm/roofline.c's formula, to the bit. */
static void test_roofline_kept(void)
{
    struct lm_model lm = llama3_8b();
    struct gpu_roof r = test_roof();
    struct stm m;
    stm_init(&m, STM_ROOFLINE, &lm, RD_BF16, RD_BF16, &r, 4000, NULL, 1.5e-3, NULL);
    struct stm_sum s;
    stm_start(&m, &s);
    stm_add(&m, &s, 0, 700, 1);
    stm_add(&m, &s, 300, 1, 1);
    struct stm_parts p;
    stm_parts(&m, &s, &p);
    struct rf_model rm;
    struct rf_gpu rg;
    struct rf_cost c;
    rf_model_init(&rm, &lm, RD_BF16, RD_BF16);
    rf_gpu_init(&rg, &r, 4000, RD_BF16);
    rf_cost_start(&rm, &c);
    rf_cost_add(&rm, &c, 0, 700);
    rf_cost_add(&rm, &c, 300, 1);
    CU_ASSERT_EQUAL(stm_time_s(&p, 0.5, 0.7), rf_time_s(&rg, &c, 0.5, 0.7, 1.5e-3));
    CU_ASSERT_EQUAL(stm_gpu_s(&p, 1, 1), rf_time_s(&rg, &c, 1, 1, 0));
}

static int parse_serving(const char *json, struct etm_cfg *c, const char *table, char *err,
                         size_t errlen)
{
    cJSON *o = cJSON_Parse(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    struct jv j = {"s.json", err, errlen};
    int rc = etm_parse(&j, o, "tenants[0].serving", table, c);
    cJSON_Delete(o);
    return rc;
}

static void test_engine_table(void)
{
    struct etm_cfg c;
    char err[1024];
    /* The shipped table's vLLM entry gives the defaults; keys override them. */
    CU_ASSERT_EQUAL(parse_serving("{}", &c, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(c.kind, STM_ENGINE);
    CU_ASSERT_STRING_EQUAL(c.framework, "vllm");
    CU_ASSERT(c.cpu.step_s > 0 && c.frontend_s > 0);
    CU_ASSERT_EQUAL(parse_serving("{\"cpu_step_ms\": 4, \"frontend_ms\": 0, \"overlap_cpu\": true}",
                                  &c, NULL, err, sizeof err),
                    0);
    CU_ASSERT_DOUBLE_EQUAL(c.cpu.step_s, 4e-3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(c.frontend_s, 0, 0);
    CU_ASSERT_EQUAL(c.cpu.overlap, 1);
    /* The roofline has no engine terms: a key it would ignore is refused. */
    CU_ASSERT_EQUAL(parse_serving("{\"step_model\": \"roofline\", \"frontend_ms\": 3}", &c, NULL,
                                  err, sizeof err),
                    -1);
    TU_CHECK_CONTAINS(err, "tenants[0].serving.frontend_ms");
    CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"tgi\"}", &c, NULL, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "unknown framework \"tgi\": expected one of \"vllm\"");
    CU_ASSERT_EQUAL(parse_serving("{\"step_model\": \"exact\"}", &c, NULL, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "step_model");
    /* A bad table names its file and key. */
    char path[] = "/tmp/sharesim-etm-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    const char bad[] = "{\"schema\": 1, \"engines\": [{\"name\": \"vllm\", \"version\": \"0\", "
                       "\"cpu_step_ms\": {\"value\": -1, \"source\": \"x\", \"confidence\": "
                       "\"low\"}}]}";
    CU_ASSERT_EQUAL(write(fd, bad, sizeof bad - 1), (ssize_t)(sizeof bad - 1));
    close(fd);
    CU_ASSERT_EQUAL(parse_serving("{}", &c, path, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, path);
    TU_CHECK_CONTAINS(err, "engines[0].cpu_step_ms");
    unlink(path);
}

/* A term of a test engine table, "value" last so that a case appends it. */
#define TERM_V "\"source\": \"x\", \"confidence\": \"low\", \"value\": "

/*
 * Writes a one-entry engine table to path (a mkstemp template, filled in): the entry `name`,
 * version 0, cpu_step_ms 1, cpu_per_seq_ms 0 and overlap_cpu 0, then `terms` as written
 * (", \"key\": {…}", …). The test unlinks it.
 */
static void write_table(char *path, const char *name, const char *terms)
{
    char text[768];
    int n = snprintf(text, sizeof text,
                     "{\"schema\": 1, \"engines\": [{\"name\": \"%s\", \"version\": \"0\", "
                     "\"cpu_step_ms\": {" TERM_V "1}, \"cpu_per_seq_ms\": {" TERM_V "0}, "
                     "\"overlap_cpu\": {" TERM_V "0}%s}]}",
                     name, terms);
    CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(write(fd, text, (size_t)n), (ssize_t)n);
    close(fd);
}

/* The same with frontend_ms 0 and one more term, key = value (value as JSON text). */
static void write_entry_with(char *path, const char *name, const char *key, const char *value)
{
    char terms[256];
    snprintf(terms, sizeof terms, ", \"frontend_ms\": {" TERM_V "0}, \"%s\": {" TERM_V "%s}", key,
             value);
    write_table(path, name, terms);
}

/* An engine-table entry's "guaranteed_no_evict" (0 or 1) is its framework's capacity policy;
 * absent it is -1 (the shipped entries: vLLM's and TensorRT-LLM's admit what fits now). */
static void test_table_no_evict(void)
{
    struct etm_cfg c;
    char err[1024];
    CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"trtllm\"}", &c, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(c.no_evict, -1);
    static const struct {
        const char *value;
        int rc, want;
    } cases[] = {{"1", 0, 1}, {"0", 0, 0}, {"2", -1, 0}, {"0.5", -1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[] = "/tmp/sharesim-etm-XXXXXX";
        write_entry_with(path, "vllm", "guaranteed_no_evict", cases[i].value);
        CU_ASSERT_EQUAL(parse_serving("{}", &c, path, err, sizeof err), cases[i].rc);
        if (cases[i].rc == 0)
            CU_ASSERT_EQUAL(c.no_evict, cases[i].want);
        if (cases[i].rc != 0)
            TU_CHECK_CONTAINS(err, "engines[0].guaranteed_no_evict");
        unlink(path);
    }
}

/* The result says which parts of a tenant's steps came from measured tables (the H100's
 * tables hold Llama-3-8B's GEMM shapes and its 8-KV-head attention, but Vidur's small-kernel
 * tables for the H100 only Llama-2's shapes; the A100-40GB has no kernel file; the roofline
 * model has no parts). */
static void test_result_paths(void)
{
    static const struct {
        const char *gpu, *extra;
        int measured, roofline;
    } cases[] = {
        {"H100-80GB", "", 2, 1}, {"A100-40GB", "", 0, 3}, {"H100-80GB", "roofline", -1, -1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[1024], cmd[512];
        snprintf(text, sizeof text,
                 "{\"gpu\": \"%s\", \"stop\": {\"requests\": 4}, \"tenants\": [{\"name\": "
                 "\"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, "
                 "\"serving\": {\"engine\": \"llm\", \"model\": \"Llama-3-8B\", \"dtype\": "
                 "\"bf16\"%s%s%s}, \"tokens\": {\"input\": {\"dist\": \"deterministic\", "
                 "\"tokens\": 100}, \"output\": {\"dist\": \"deterministic\", \"tokens\": 4}}}], "
                 "\"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}",
                 cases[k].gpu, *cases[k].extra ? ", \"step_model\": \"" : "", cases[k].extra,
                 *cases[k].extra ? "\"" : "");
        snprintf(cmd, sizeof cmd, "run %s --quiet --json -", tu_write("paths.json", text));
        cJSON *doc = tu_cli_json(cmd);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        const cJSON *sm = cJSON_GetObjectItem(
            cJSON_GetObjectItem(
                cJSON_GetArrayItem(
                    cJSON_GetObjectItem(
                        cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0), "tenants"),
                    0),
                "llm"),
            "step_model");
        CU_ASSERT_PTR_NOT_NULL_FATAL(sm);
        CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(sm, "model")->valuestring,
                               *cases[k].extra ? "roofline" : "engine");
        const cJSON *mt = cJSON_GetObjectItem(sm, "measured"),
                    *rf = cJSON_GetObjectItem(sm, "roofline");
        if (cases[k].measured < 0) {
            CU_ASSERT_PTR_NULL(mt);
            CU_ASSERT_PTR_NULL(rf);
        } else {
            CU_ASSERT_EQUAL(cJSON_GetArraySize(mt), cases[k].measured);
            CU_ASSERT_EQUAL(cJSON_GetArraySize(rf), cases[k].roofline);
        }
        cJSON_Delete(doc);
    }
}

/* ---- the memo of the token-count parts (stepmodel.h: struct stm_memo) ---------------- */

/* Two steps' parts equal to the bit. */
static int same_parts(const struct stm_parts *a, const struct stm_parts *b)
{
    return a->n == b->n && memcmp(a->tc, b->tc, (size_t)a->n * sizeof *a->tc) == 0 &&
           memcmp(a->tm, b->tm, (size_t)a->n * sizeof *a->tm) == 0 &&
           memcmp(&a->fixed_s, &b->fixed_s, sizeof a->fixed_s) == 0 &&
           memcmp(&a->cpu_s, &b->cpu_s, sizeof a->cpu_s) == 0 &&
           memcmp(&a->comm_s, &b->comm_s, sizeof a->comm_s) == 0 && a->table == b->table &&
           a->roof == b->roof && a->overlap == b->overlap;
}

/* A step of T tokens: T decodes after 500 cached tokens up to 64, else one prompt chunk of T
 * (its LM head samples one token). */
static void memo_step(const struct stm *m, long T, struct stm_parts *p)
{
    struct stm_sum s;
    stm_start(m, &s);
    if (T <= 64)
        for (long i = 0; i < T; i++)
            stm_add(m, &s, 500, 1, 1);
    else
        stm_add(m, &s, 0, T, 1);
    stm_parts(m, &s, p);
}

static const struct kc_gpu *h100_curves(void)
{
    const struct kc_gpu *kc = NULL;
    char err[1024] = "";
    CU_ASSERT_EQUAL_FATAL(kc_get("kernels/profiles/h100-80gb.json", &kc, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(kc);
    return kc;
}

/* One prefill of `tokens` tokens of Llama-3-8B in `wd` on the round GPU, with a GEMM ceiling of
 * cap FLOP/s (0: none). */
static void capped_prefill(enum roof_dtype wd, double cap, long tokens, struct stm_parts *p)
{
    struct lm_model lm = llama3_8b();
    struct gpu_roof r = test_roof();
    struct stm_cpu cpu = {1e-3, 2e-5, 0, cap, 0};
    struct stm m;
    stm_init(&m, STM_ENGINE, &lm, wd, RD_BF16, &r, 4000, &cpu, 0, NULL);
    struct stm_sum s;
    stm_start(&m, &s);
    stm_add(&m, &s, 0, tokens, 1);
    stm_parts(&m, &s, p);
}

static void test_gemm_ceiling(void)
{
    /* A 2,048-token prefill's GEMMs run at e(2048) = 0.6 × 2048 / 2112 of 1e15 FLOP/s, 582
     * TFLOP/s: a ceiling of 300 TFLOP/s makes each take its FLOPs / 3e14 — QKV 32 × 2 × 2048 ×
     * 6144 × 4096 / 3e14 = 11.0 ms — and leaves its memory part, attention, the small kernels and
     * the CPU as they were; a ceiling of 900 does not bind (the parts to the bit). */
    const double n[4] = {6144, 4096, 2 * 14336, 4096}, k[4] = {4096, 4096, 4096, 14336};
    struct stm_parts none, low, high;
    capped_prefill(RD_BF16, 0, 2048, &none);
    capped_prefill(RD_BF16, 3e14, 2048, &low);
    capped_prefill(RD_BF16, 9e14, 2048, &high);
    CU_ASSERT_EQUAL_FATAL(low.n, none.n);
    for (int g = 0; g < 4; g++) {
        double want = 32 * 2 * 2048 * n[g] * k[g] / 3e14;
        CU_ASSERT_DOUBLE_EQUAL(low.tc[g], want, want * 1e-12);
        CU_ASSERT(none.tc[g] < want);
        CU_ASSERT_DOUBLE_EQUAL(none.tc[g], 32 * 2 * 2048 * n[g] * k[g] / (1e15 * 0.6 * 2048 / 2112),
                               want * 1e-12);
        CU_ASSERT_EQUAL(low.tm[g], none.tm[g]);
    }
    CU_ASSERT_DOUBLE_EQUAL(low.tc[0], 32 * 2 * 2048 * 6144 * 4096.0 / 3e14, 1e-15);
    CU_ASSERT(fabs(low.tc[0] - 11.0e-3) < 0.05e-3);
    /* the LM head over one sampled token: e(1) = 0.6 / 65 puts its compute part far above
     * 2 × 128256 × 4096 / 3e14, so the ceiling does not bind there */
    CU_ASSERT(none.tc[4] > 2 * 128256 * 4096.0 / 3e14);
    CU_ASSERT_EQUAL(low.tc[4], none.tc[4]);
    for (int i = 4; i < none.n; i++) {
        CU_ASSERT_EQUAL(low.tc[i], none.tc[i]);
        CU_ASSERT_EQUAL(low.tm[i], none.tm[i]);
    }
    CU_ASSERT_EQUAL(low.cpu_s, none.cpu_s);
    CU_ASSERT_EQUAL(low.fixed_s, none.fixed_s);
    double t_none = stm_time_s(&none, 1, 1), t_low = stm_time_s(&low, 1, 1);
    double gain = 0;
    for (int g = 0; g < 4; g++)
        gain += low.tc[g] - fmax(none.tc[g], none.tm[g]);
    CU_ASSERT_DOUBLE_EQUAL(t_low - t_none, gain, 1e-12);
    for (int i = 0; i < none.n; i++) {
        CU_ASSERT_EQUAL(high.tc[i], none.tc[i]);
        CU_ASSERT_EQUAL(high.tm[i], none.tm[i]);
    }
    /* a decode step of one token is bound by its weights' reads: unchanged */
    capped_prefill(RD_BF16, 0, 1, &none);
    capped_prefill(RD_BF16, 3e14, 1, &low);
    CU_ASSERT_EQUAL(stm_time_s(&low, 1, 1), stm_time_s(&none, 1, 1));
    /* the ceiling is on 16-bit math: fp8 weights' GEMMs keep their own rate */
    capped_prefill(RD_FP8, 0, 2048, &none);
    capped_prefill(RD_FP8, 3e14, 2048, &low);
    for (int i = 0; i < none.n; i++)
        CU_ASSERT_EQUAL(low.tc[i], none.tc[i]);
}

/* The engine table's gemm_tflops_max: optional (0), read from an entry, overridden by the
 * scenario, refused by the roofline, bounded by ETM_MAX_GEMM_TFLOPS. */
static void test_table_gemm_ceiling(void)
{
    struct etm_cfg c;
    char err[1024];
    CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"trtllm\"}", &c, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(c.cpu.gemm_flops_max, 0);
    static const struct {
        const char *value;
        int rc;
        double want;
    } cases[] = {{"597", 0, 597e12}, {"0", 0, 0}, {"-1", -1, 0}, {"10001", -1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[] = "/tmp/sharesim-etm-XXXXXX";
        write_entry_with(path, "old", "gemm_tflops_max", cases[i].value);
        CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"old\"}", &c, path, err, sizeof err),
                        cases[i].rc);
        if (cases[i].rc == 0) {
            CU_ASSERT_EQUAL(c.cpu.gemm_flops_max, cases[i].want);
            CU_ASSERT_EQUAL(etm_has_framework(path, "old"), 1);
            CU_ASSERT_EQUAL(etm_has_framework(path, "new"), 0);
            /* the scenario's key replaces the entry's */
            CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"old\", \"gemm_tflops_max\": 400}", &c,
                                          path, err, sizeof err),
                            0);
            CU_ASSERT_EQUAL(c.cpu.gemm_flops_max, 400e12);
        } else {
            TU_CHECK_CONTAINS(err, "engines[0].gemm_tflops_max");
        }
        unlink(path);
    }
    CU_ASSERT_EQUAL(parse_serving("{\"gemm_tflops_max\": 20000}", &c, NULL, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "tenants[0].serving.gemm_tflops_max");
    TU_CHECK_CONTAINS(err, "10000");
    CU_ASSERT_EQUAL(parse_serving("{\"step_model\": \"roofline\", \"gemm_tflops_max\": 500}", &c,
                                  NULL, err, sizeof err),
                    -1);
    TU_CHECK_CONTAINS(err, "not used by");
    /* the shipped table: TensorRT-LLM 0.9's entry has its fitted ceiling */
    CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"trtllm-0.9\"}", &c, NULL, err, sizeof err), 0);
    CU_ASSERT_DOUBLE_EQUAL(c.cpu.gemm_flops_max, 552.4e12, 1e3);
    CU_ASSERT_EQUAL(etm_has_framework(NULL, "trtllm-0.9"), 1);
}

/* The small kernels of a prefill step of `tokens` tokens (the last part), Llama-2-7B FP16 on
 * the A100-80GB kernel tables. */
static double a100_l2_small_fused_s(long tokens, double fused, int *table)
{
    struct lm_model lm;
    char err[1024] = "";
    CU_ASSERT_EQUAL_FATAL(lm_find(NULL, "Llama-2-7B", &lm, err, sizeof err), 0);
    const struct kc_gpu *kc = NULL;
    CU_ASSERT_EQUAL_FATAL(kc_get("kernels/profiles/a100-80gb.json", &kc, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(kc);
    struct gpu_roof r = test_roof();
    struct stm_cpu cpu = {0};
    cpu.small_fused = fused;
    struct stm m;
    stm_init(&m, STM_ENGINE, &lm, RD_FP16, RD_FP16, &r, 2039, &cpu, 0, kc);
    struct stm_sum s;
    struct stm_parts p;
    stm_start(&m, &s);
    stm_add(&m, &s, 0, tokens, 1);
    stm_parts(&m, &s, &p);
    *table = (p.table & STM_PATH_SMALL) != 0;
    CU_ASSERT_EQUAL(p.tc[p.n - 1], 0);
    return p.tm[p.n - 1];
}

static double a100_l2_small_s(long tokens, int *table)
{
    return a100_l2_small_fused_s(tokens, 0, table);
}

/* small_kernels_fused s removes s of the small kernels' time, and nothing else: on the tables
 * (Llama-2-7B, 2,048 tokens on the A100: 32 × 0.3745 ms) and on the roofline, where both their
 * traffic and layer_fixed_us scale (Llama-3-8B, no tables). */
static void test_small_kernels_fused(void)
{
    int table = 0;
    CU_ASSERT_DOUBLE_EQUAL(a100_l2_small_fused_s(2048, 0.25, &table), 0.75 * 32 * 0.3745e-3, 1e-12);
    CU_ASSERT(table);
    CU_ASSERT_EQUAL(a100_l2_small_fused_s(2048, 1, &table), 0);
    struct lm_model lm = llama3_8b();
    struct gpu_roof r = test_roof();
    struct stm_parts p[2];
    for (int k = 0; k < 2; k++) {
        struct stm_cpu cpu = {1e-3, 1e-5, 0, 0, k ? 0.4 : 0};
        struct stm m;
        struct stm_sum s;
        stm_init(&m, STM_ENGINE, &lm, RD_FP16, RD_FP16, &r, 4000, &cpu, 0, NULL);
        stm_start(&m, &s);
        stm_add(&m, &s, 0, 512, 1);
        stm_add(&m, &s, 100, 1, 1);
        stm_parts(&m, &s, &p[k]);
    }
    CU_ASSERT(p[0].tm[p[0].n - 1] > 0);
    CU_ASSERT(p[0].fixed_s > 0);
    CU_ASSERT_DOUBLE_EQUAL(p[1].tm[p[1].n - 1], 0.6 * p[0].tm[p[0].n - 1], 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(p[1].fixed_s, 0.6 * p[0].fixed_s, 1e-15);
    CU_ASSERT_EQUAL(p[1].n, p[0].n);
    for (int i = 0; i < p[0].n - 1; i++) {
        CU_ASSERT_EQUAL(p[1].tc[i], p[0].tc[i]);
        CU_ASSERT_EQUAL(p[1].tm[i], p[0].tm[i]);
    }
    CU_ASSERT_EQUAL(p[1].cpu_s, p[0].cpu_s);
}

/* The engine table's small_kernels_fused: optional (0), read from an entry, overridden by the
 * scenario, in [0, 1], refused by the roofline; the shipped TensorRT-LLM 0.9 entry holds 1. */
static void test_table_small_fused(void)
{
    struct etm_cfg c;
    char err[1024];
    static const struct {
        const char *value;
        int rc;
        double want;
    } cases[] = {{"0.3", 0, 0.3}, {"1", 0, 1}, {"-0.1", -1, 0}, {"1.5", -1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[] = "/tmp/sharesim-etm-XXXXXX";
        write_entry_with(path, "trt", "small_kernels_fused", cases[i].value);
        CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"trt\"}", &c, path, err, sizeof err),
                        cases[i].rc);
        if (cases[i].rc == 0) {
            CU_ASSERT_EQUAL(c.cpu.small_fused, cases[i].want);
            CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"trt\", \"small_kernels_fused\": 0}",
                                          &c, path, err, sizeof err),
                            0);
            CU_ASSERT_EQUAL(c.cpu.small_fused, 0);
        } else {
            TU_CHECK_CONTAINS(err, "engines[0].small_kernels_fused");
            TU_CHECK_CONTAINS(err, path);
        }
        unlink(path);
    }
    CU_ASSERT_EQUAL(parse_serving("{\"small_kernels_fused\": 2}", &c, NULL, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "tenants[0].serving.small_kernels_fused");
    CU_ASSERT_EQUAL(parse_serving("{\"step_model\": \"roofline\", \"small_kernels_fused\": 0.5}",
                                  &c, NULL, err, sizeof err),
                    -1);
    TU_CHECK_CONTAINS(err, "not used by");
    CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"trtllm-0.9\"}", &c, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(c.cpu.small_fused, 1);
    CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"trtllm\"}", &c, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(c.cpu.small_fused, 0);
    CU_ASSERT_EQUAL(parse_serving("{}", &c, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(c.cpu.small_fused, 0);
}

static void test_small_kernels_past_table(void)
{
    /* Vidur's A100 table for Llama-2-7B's layer ends at 4,096 tokens, 0.7325 ms a layer (and
     * 0.3745 ms at 2,048); past it the time grows with the tokens, as the elementwise kernels'
     * bytes do: 8,192 tokens 2 × 0.7325 ms and 65,536 tokens (a static batch of 32 prompts of
     * 2,048) 16 × 0.7325 ms a layer, 32 layers. Before, both were held at 4,096 tokens' time. */
    int table = 0;
    CU_ASSERT_DOUBLE_EQUAL(a100_l2_small_s(2048, &table), 32 * 0.3745e-3, 1e-12);
    CU_ASSERT(table);
    CU_ASSERT_DOUBLE_EQUAL(a100_l2_small_s(4096, &table), 32 * 0.7325e-3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(a100_l2_small_s(8192, &table), 32 * 2 * 0.7325e-3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(a100_l2_small_s(65536, &table), 32 * 16 * 0.7325e-3, 1e-12);
    CU_ASSERT(table);
    /* below the first knot (1 token) nothing changes: the floor holds */
    CU_ASSERT_DOUBLE_EQUAL(a100_l2_small_s(1, &table), 32 * 0.026e-3, 1e-12);
}

static void test_memo_hits(void)
{
    /* Counts that share memo slots (mod STM_MEMO_SLOTS), repeated: each step's parts are
     * those of a model that never saw a step before, with and without the kernel curves. */
    struct lm_model lm = llama3_8b();
    struct gpu_roof r = test_roof();
    struct stm_cpu cpu = {1e-3, 1e-5, 0, 0, 0};
    const long counts[] = {1,   1 + STM_MEMO_SLOTS,       1,    3,   3, 64, 64 + STM_MEMO_SLOTS, 1,
                           300, 300 + 2 * STM_MEMO_SLOTS, 4096, 300, 1, 0};
    for (int withkc = 0; withkc < 2; withkc++) {
        const struct kc_gpu *kc = withkc ? h100_curves() : NULL;
        struct stm m;
        stm_init(&m, STM_ENGINE, &lm, RD_FP16, RD_FP16, &r, 4000, &cpu, 0, kc);
        for (size_t i = 0; counts[i]; i++) {
            struct stm fresh;
            struct stm_parts a, b;
            stm_init(&fresh, STM_ENGINE, &lm, RD_FP16, RD_FP16, &r, 4000, &cpu, 0, kc);
            memo_step(&m, counts[i], &a);
            memo_step(&fresh, counts[i], &b);
            CU_ASSERT(same_parts(&a, &b));
            if (withkc)
                CU_ASSERT(a.table & STM_PATH_GEMM);
        }
    }
}

static void test_memo_after_tp(void)
{
    /* A memo filled before stm_set_tp holds the whole model's parts: the shard must not see
     * them. */
    struct lm_model lm = llama3_8b();
    struct gpu_roof r = test_roof();
    struct gpu_link gl = {"nvlink4", 900, 8, "pcie5", 128};
    const struct kc_gpu *kc = h100_curves();
    struct tp_link l;
    tp_link_init(&l, &gl, 2, kc);
    struct stm m, fresh;
    struct stm_parts whole, a, b;
    stm_init(&m, STM_ENGINE, &lm, RD_FP16, RD_FP16, &r, 4000, NULL, 0, kc);
    memo_step(&m, 8, &whole);
    memo_step(&m, 300, &whole);
    stm_set_tp(&m, &lm, &l);
    stm_init(&fresh, STM_ENGINE, &lm, RD_FP16, RD_FP16, &r, 4000, NULL, 0, kc);
    stm_set_tp(&fresh, &lm, &l);
    for (int k = 0; k < 2; k++) {
        memo_step(&m, k ? 300 : 8, &a);
        memo_step(&fresh, k ? 300 : 8, &b);
        CU_ASSERT(same_parts(&a, &b));
        CU_ASSERT(a.comm_s > 0);
    }
    CU_ASSERT(!same_parts(&whole, &a));
}

/* An entry of "server": 0 (an engine measured in an offline harness, TensorRT-LLM 0.9's
 * static batches): no front end of either kind, and a front-end key beside it is refused, naming
 * the table's path; "server": 1 or absent is an entry whose frontend_ms is required as before;
 * a scenario's keys still set a front end (the same release behind a server). */
static void test_table_no_server(void)
{
    struct etm_cfg c;
    char err[1024];
    static const struct {
        const char *extra;
        int rc;
        const char *msg;
    } cases[] = {
        {", \"server\": {" TERM_V "0}", 0, NULL},
        {", \"server\": {" TERM_V "0}, \"frontend_ms\": {" TERM_V "3}", -1,
         "engines[0].frontend_ms"},
        {", \"server\": {" TERM_V "0}, \"frontend_serial_ms\": {" TERM_V "1}", -1,
         "engines[0].frontend_serial_ms"},
        {", \"server\": {" TERM_V "1}, \"frontend_ms\": {" TERM_V "3}", 0, NULL},
        {", \"server\": {" TERM_V "1}", -1, "engines[0].frontend_ms"},
        {", \"server\": {" TERM_V "2}, \"frontend_ms\": {" TERM_V "3}", -1, "engines[0].server"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[] = "/tmp/sharesim-etm-XXXXXX";
        write_table(path, "off", cases[i].extra);
        int rc = parse_serving("{\"framework\": \"off\"}", &c, path, err, sizeof err);
        CU_ASSERT_EQUAL(rc, cases[i].rc);
        if (cases[i].rc == 0) {
            CU_ASSERT_EQUAL(c.frontend_s, i == 0 ? 0 : 3e-3);
            CU_ASSERT_EQUAL(c.frontend_serial_s, 0);
        } else {
            TU_CHECK_CONTAINS(err, cases[i].msg);
            TU_CHECK_CONTAINS(err, path);
        }
        if (i == 0) { /* the scenario's front end replaces the entry's none */
            CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"off\", \"frontend_ms\": 5, "
                                          "\"frontend_serial_ms\": 2}",
                                          &c, path, err, sizeof err),
                            0);
            CU_ASSERT_DOUBLE_EQUAL(c.frontend_s, 5e-3, 1e-15);
            CU_ASSERT_DOUBLE_EQUAL(c.frontend_serial_s, 2e-3, 1e-15);
        }
        unlink(path);
    }
    /* the shipped table: TensorRT-LLM 0.9's entry has no server, vLLM's a serial front end */
    CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"trtllm-0.9\"}", &c, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(c.frontend_s, 0);
    CU_ASSERT_EQUAL(c.frontend_serial_s, 0);
    CU_ASSERT_EQUAL(parse_serving("{\"framework\": \"vllm\"}", &c, NULL, err, sizeof err), 0);
    CU_ASSERT(c.frontend_serial_s > 0);
}

void test_stepmodel_register(void)
{
    CU_pSuite s = CU_add_suite("stepmodel", NULL, NULL);
    CU_add_test(s, "a decode step's parts by hand (batch 1 and 8)", test_decode_by_hand);
    CU_add_test(s, "a mixed step: the decodes' KV reads add to the prefill", test_mixed_step_adds);
    CU_add_test(s, "shares: each part its own roofline", test_shares);
    CU_add_test(s, "overlapped CPU time hidden up to the GPU part", test_overlap);
    CU_add_test(s, "\"roofline\" is the old formula to the bit", test_roofline_kept);
    CU_add_test(s, "the engine table: defaults, overrides, errors", test_engine_table);
    CU_add_test(s, "the engine table's guaranteed_no_evict", test_table_no_evict);
    CU_add_test(s, "the result says which parts took measured tables", test_result_paths);
    CU_add_test(s, "a GEMM ceiling by hand (binding, not binding, decode, fp8)", test_gemm_ceiling);
    CU_add_test(s, "the engine table's gemm_tflops_max", test_table_gemm_ceiling);
    CU_add_test(s, "an engine table entry without a server has no front end", test_table_no_server);
    CU_add_test(s, "small kernels fused: their share removed, nothing else",
                test_small_kernels_fused);
    CU_add_test(s, "the engine table's small_kernels_fused", test_table_small_fused);
    CU_add_test(s, "small kernels past the table grow with the tokens",
                test_small_kernels_past_table);
    CU_add_test(s, "memo: a hit is the computation's doubles", test_memo_hits);
    CU_add_test(s, "memo: emptied when the model becomes a TP shard", test_memo_after_tp);
}
