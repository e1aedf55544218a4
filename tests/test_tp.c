/*
 * tp (llm/tp.c, the tensor-parallel terms of llm/stepmodel.c and llm/serving.c, the groups of
 * policy_exclusive.c): a TP=2 decode step of Llama-3-70B written out by hand from
 * docs/llm.md#tensor-parallelism — the step model on one GPU's shard plus 2 × layers
 * all-reduces of tokens × hidden — on a made-up GPU and link whose round numbers make every
 * term show; the ring model and the link a profile gives; the KV capacity of a group; the
 * refusals; and Llama-3-70B fp16 served end to end on TP=2 and TP=4 groups of H100s.
 */
#define _DEFAULT_SOURCE /* realpath() */
#include "core/run.h"
#include "core/scenario.h"
#include "llm/model.h"
#include "llm/serving.h"
#include "llm/stepmodel.h"
#include "llm/tp.h"
#include "testutil.h"

#include <cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Round efficiencies (those of test_moe.c) on a 1 PFLOP/s, 4 TB/s GPU. */
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

/* A made-up link: 10 µs a collective, 100 GB/s of bus bandwidth. */
static struct tp_link test_link(int tp)
{
    struct tp_link l;
    memset(&l, 0, sizeof l);
    l.tp = tp;
    l.nvlink = 1;
    l.latency_s = 10e-6;
    l.bus_bps = 100e9;
    return l;
}

static double roof(double tc, double tm)
{
    return tc > tm ? tc : tm;
}

/* A GEMM of M tokens by an n × k fp16 weight, `times` layers. */
static double hand_gemm(double M, double n, double k, double times)
{
    double e = 0.6 * M / (M + 64);
    return roof(times * 2 * M * n * k / (1e15 * e),
                times * (n * k * 2 + M * (n + k) * 2) / (4e12 * 0.75));
}

/*
 * One GPU of a TP=tp group serving Llama-3-70B (h 8192, 64 heads of 128, 8 KV heads, MLP 28672,
 * 80 blocks, vocabulary 128256): T decodes after `past` tokens each, the GPU part without the
 * all-reduces; *comm gets the 2 × 80 all-reduces of T × 8192 elements on test_link.
 */
static double hand_shard(int tp, double T, double past, double *comm)
{
    double h = 8192, hd = 128, L = 80, V = 128256, in = 28672;
    double q = 64 * hd / tp, kvh = 8 / tp >= 1 ? 8 / tp : 1, kv = kvh * hd;
    double t = hand_gemm(T, q + 2 * kv, h, L)    /* QKV: column-parallel */
               + hand_gemm(T, h, q, L)           /* O: row-parallel */
               + hand_gemm(T, 2 * in / tp, h, L) /* gate + up: column-parallel */
               + hand_gemm(T, h, in / tp, L)     /* down: row-parallel */
               + hand_gemm(T, V / tp, h, 1);     /* the vocabulary head, split by rows */
    double ctx = past + 1, heads = 64 / tp;
    t += roof(T * 4 * L * heads * hd * ctx / (1e15 * 0.4 * ctx / (ctx + 1024)),
              T * ctx * 2 * L * kvh * hd * 2 / (4e12 * 0.5));
    /* Small kernels: norms and residual adds on the whole h, RoPE on the shard's heads, SiLU on
     * its slice of the MLP. */
    t += T * (L * (10 * h + 2 * (q + kv)) + 3 * L * in / tp) * 2 / (4e12 * 0.75);
    t += L * 20e-6;
    double bytes = T * h * 2;
    *comm = 2 * L * (10e-6 + bytes * 2.0 * (tp - 1) / tp / 100e9);
    return t;
}

static double model_step(const struct stm *s, int T, long past, double *comm)
{
    struct stm_sum sum;
    struct stm_parts p;
    stm_start(s, &sum);
    for (int i = 0; i < T; i++)
        stm_add(s, &sum, past, 1, 1);
    stm_parts(s, &sum, &p);
    if (comm)
        *comm = p.comm_s;
    return stm_time_s(&p, 1, 1);
}

static void test_decode_step(void)
{
    struct lm_model m;
    tu_model("Llama-3-70B", &m);
    struct gpu_roof r = test_roof();
    int batches[] = {1, 32};
    for (int b = 0; b < 2; b++) {
        int T = batches[b];
        struct stm s;
        stm_init(&s, STM_ENGINE, &m, RD_FP16, RD_FP16, &r, 4000, NULL, 0, NULL);
        struct tp_link l = test_link(2);
        stm_set_tp(&s, &m, &l);
        double comm, hcomm, shard = hand_shard(2, T, 500, &hcomm);
        double t = model_step(&s, T, 500, &comm);
        CU_ASSERT_DOUBLE_EQUAL(comm, hcomm, hcomm * 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(t, shard + hcomm, t * 1e-12);
        /* The all-reduces are the stated size: 160 of 10 µs + T × 8192 × 2 bytes / 100 GB/s
         * (the ring's 2 (2 − 1) / 2 = 1). */
        CU_ASSERT_DOUBLE_EQUAL(comm, 160 * (10e-6 + T * 8192 * 2 / 100e9), 1e-15);
        /* Against one GPU: the weights it reads halve, so the step is well under one GPU's. */
        struct stm one;
        stm_init(&one, STM_ENGINE, &m, RD_FP16, RD_FP16, &r, 4000, NULL, 0, NULL);
        double t1 = model_step(&one, T, 500, NULL);
        CU_ASSERT(t < 0.6 * t1);
        CU_ASSERT(t > 0.5 * t1 - 1e-3);
    }
    /* TP=4: the ring sends 2 (4 − 1) / 4 = 1.5 times the message per GPU; 2 KV heads a GPU. */
    struct stm s4;
    stm_init(&s4, STM_ENGINE, &m, RD_FP16, RD_FP16, &r, 4000, NULL, 0, NULL);
    struct tp_link l4 = test_link(4);
    stm_set_tp(&s4, &m, &l4);
    double comm4, hcomm4, shard4 = hand_shard(4, 8, 200, &hcomm4);
    double t4 = model_step(&s4, 8, 200, &comm4);
    CU_ASSERT_DOUBLE_EQUAL(comm4, 160 * (10e-6 + 8 * 8192 * 2 * 1.5 / 100e9), 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(t4, shard4 + hcomm4, t4 * 1e-12);
    /* TP=1 changes nothing, to the bit. */
    struct stm a, b1;
    stm_init(&a, STM_ENGINE, &m, RD_FP16, RD_FP16, &r, 4000, NULL, 0, NULL);
    stm_init(&b1, STM_ENGINE, &m, RD_FP16, RD_FP16, &r, 4000, NULL, 0, NULL);
    struct tp_link l1 = test_link(1);
    stm_set_tp(&b1, &m, &l1);
    CU_ASSERT_EQUAL(model_step(&a, 16, 300, NULL), model_step(&b1, 16, 300, NULL));
}

static void test_link_from_profile(void)
{
    struct gpu_link g;
    memset(&g, 0, sizeof g);
    snprintf(g.kind, sizeof g.kind, "nvlink4");
    g.gbps = 900;
    g.domain_gpus = 2;
    snprintf(g.pcie, sizeof g.pcie, "pcie5");
    g.pcie_gbps = 128;
    struct tp_link l;
    /* Inside the NVLink domain: half of 900 GB/s one way, at TP_BUS_EFF. */
    tp_link_init(&l, &g, 2, NULL);
    CU_ASSERT_EQUAL(l.nvlink, 1);
    CU_ASSERT_DOUBLE_EQUAL(l.bus_bps, 450e9 * TP_BUS_EFF, 1);
    CU_ASSERT_DOUBLE_EQUAL(l.latency_s, TP_NVLINK_LATENCY_S, 0);
    /* 1 MiB elements (2 MiB) over 2 GPUs: 5 µs + 2,097,152 / 315 GB/s = 11.66 µs. */
    CU_ASSERT_DOUBLE_EQUAL(tp_allreduce_s(&l, 1048576, NULL), 5e-6 + 2097152.0 / 315e9, 1e-15);
    /* Four GPUs of two bridged pairs: the host link, 64 GB/s one way. */
    tp_link_init(&l, &g, 4, NULL);
    CU_ASSERT_EQUAL(l.nvlink, 0);
    CU_ASSERT_DOUBLE_EQUAL(l.bus_bps, 64e9 * TP_BUS_EFF, 1);
    CU_ASSERT_DOUBLE_EQUAL(tp_ring_s(&l, 1048576),
                           TP_PCIE_LATENCY_S + 2097152.0 * 1.5 / (64e9 * TP_BUS_EFF), 1e-15);
    /* Model checks: heads, KV heads split or replicated, MLP widths. */
    struct lm_model m;
    tu_model("Llama-3-70B", &m);
    char err[512];
    CU_ASSERT_EQUAL(tp_check_model(&m, 8, err, sizeof err), 0);
    CU_ASSERT_EQUAL(tp_check_model(&m, 3, err, sizeof err), -1);
    CU_ASSERT_EQUAL(tp_kv_heads_per_gpu(&m, 8), 1);
    m.kv_heads = 2; /* fewer KV heads than GPUs: one a GPU, replicated */
    CU_ASSERT_EQUAL(tp_kv_heads_per_gpu(&m, 4), 1);
    CU_ASSERT_DOUBLE_EQUAL(tp_kv_share(&m, 4), 0.5, 0);
    CU_ASSERT_EQUAL(tp_check_model(&m, 8, err, sizeof err), 0);
    m.kv_heads = 3, m.heads = 24;
    CU_ASSERT_EQUAL(tp_check_model(&m, 2, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "3 KV heads"));
}

/* A group's KV blocks by hand: per GPU 80 GiB × 0.9, less its half (or quarter) of the 141.1 GB
 * of weights, the 2 GB reserve and 0.15 GiB; a block of 16 tokens holds its share of the 8 KV
 * heads: 2 × 80 layers × (8 / tp) × 128 × 2 bytes × 16. */
static void test_kv_capacity(void)
{
    for (int tp = 2; tp <= 8; tp *= 2) {
        char *text = tu_fixture_patch("tp/llama70b.json",
                                      "{\"gpus\": %d, \"tenants.0.serving.tensor_parallel\": %d, "
                                      "\"tenants.0.serving.activation_reserve_gb\": 2}",
                                      tp, tp);
        struct scenario sc;
        tu_load_text(text, &sc);
        free(text);
        const struct lsv_cfg *c = sc.tenants[0].llm;
        CU_ASSERT_EQUAL(c->tensor_parallel, tp);
        long blocks = 0;
        char err[512];
        CU_ASSERT_EQUAL(lsv_kv_blocks(c, 80, "x", &blocks, err, sizeof err), 0);
        double usable = 80 * 1.073741824 * 0.9, weights = 70553706496.0 * 2e-9 / tp;
        double block = 2.0 * 80 * (8 / tp) * 128 * 2 * 16 * 1e-9;
        long hand = (long)floor((usable - weights - 2 - 0.15 * 1.073741824) / block);
        CU_ASSERT_EQUAL(blocks, hand);
        scn_free(&sc);
    }
}

static void test_refusals(void)
{
    const char *f = "tp/llama70b.json";
    tu_expect_fixture_error("a MIG instance has no NVLink", f,
                            "{\"strategies\": [{\"name\": \"m\", \"kind\": \"mig\", \"layout\": "
                            "[{\"profile\": \"7g.80gb\", \"tenants\": [\"chat\"]}]}]}");
    tu_expect_fixture_error("an MPS client holds a share of one GPU", f,
                            "{\"strategies\": [{\"name\": \"m\", \"kind\": \"mps\"}]}");
    tu_expect_fixture_error("a time-sliced context runs only in its own slices", f,
                            "{\"strategies\": [{\"name\": \"t\", \"kind\": \"timeslice\"}]}");
    tu_expect_fixture_error("a vGPU is a share of one GPU", f,
                            "{\"strategies\": [{\"name\": \"v\", \"kind\": \"vgpu\", \"vgpus\": "
                            "[{\"type\": \"H100XM-80C\", \"tenants\": [\"chat\"]}]}]}");
    tu_expect_fixture_error("tensor_parallel 3: expected 1, 2, 4 or 8", f,
                            "{\"tenants.0.serving.tensor_parallel\": 3}");
    tu_expect_fixture_error("needs \"step_model\": \"engine\"", f,
                            "{\"tenants.0.serving.step_model\": \"roofline\"}");
    tu_expect_fixture_error("has tensor_parallel 2 but 3 whole GPUs", f, "{\"gpus\": 3}");
    tu_expect_fixture_error("on different nodes of 8 GPUs", f,
                            "{\"gpus\": 10, \"strategies.0.assign\": {\"chat\": [7, 8]}}");
    tu_expect_fixture_error("in different NVLink domains of 2 H100-NVL GPUs", f,
                            "{\"gpu\": \"H100-NVL\", \"gpus\": 4, \"strategies.0.assign\": "
                            "{\"chat\": [1, 2]}}");
    /* One GPU does not hold it: the message that sends the user to tensor parallelism. */
    tu_expect_fixture_error("141.11 GB of fp16 Llama-3-70B weights do not fit", f,
                            "{\"tenants.0.serving.tensor_parallel\": 1}");
}

/* Llama-3-70B fp16 runs on a TP=2 and a TP=4 group of H100s: every request served, every GPU
 * of the group counted, and TPOT lower with four (half the weights each GPU reads). */
static void test_llama70b_runs(void)
{
    double tpot[2], tokens[2];
    for (int i = 0; i < 2; i++) {
        int tp = 2 << i;
        const char *path =
            tu_fixture_write(i ? "tp4.json" : "tp2.json", "tp/llama70b.json",
                             "{\"gpus\": %d, \"tenants.0.serving.tensor_parallel\": %d}", tp, tp);
        char args[600];
        snprintf(args, sizeof args, "run %s", path);
        cJSON *doc = tu_cli_json(args);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        CU_ASSERT_EQUAL(tu_json_num(doc, "strategies.0.gpus_used"), tp);
        CU_ASSERT_EQUAL(tu_json_num(doc, "strategies.0.tenants.0.failed"), 0);
        CU_ASSERT(tu_json_num(doc, "strategies.0.tenants.0.completed") >= 300);
        CU_ASSERT(tu_json_num(doc, "strategies.0.gpu_utilization") > 0.5);
        tpot[i] = tu_json_num(doc, "strategies.0.tenants.0.llm.tpot_ms.p50");
        tokens[i] = tu_json_num(doc, "strategies.0.tenants.0.llm.output_tokens_per_s");
        cJSON_Delete(doc);
    }
    /* Measured (docs/llm.md#tensor-parallelism): 29.5 and 18.1 ms at batch 8 on vLLM. */
    CU_ASSERT(tpot[0] > 20 && tpot[0] < 45);
    CU_ASSERT(tpot[1] > 10 && tpot[1] < 0.75 * tpot[0]);
    CU_ASSERT_DOUBLE_EQUAL(tokens[0], tokens[1], 0.1 * tokens[0]); /* both keep up */
    /* Two TP=2 replicas on four GPUs: two engines, all four GPUs used. */
    const char *path = tu_fixture_write("tp2x2.json", "tp/llama70b.json", "{\"gpus\": 4}");
    char args[600];
    snprintf(args, sizeof args, "run %s", path);
    cJSON *doc = tu_cli_json(args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_EQUAL(tu_json_num(doc, "strategies.0.gpus_used"), 4);
    CU_ASSERT_EQUAL(tu_json_num(doc, "strategies.0.tenants.0.failed"), 0);
    cJSON_Delete(doc);
}

/* Lambda's vLLM runs of bf16 Llama-3-70B on 2, 4 and 8 H100s (docs/llm.md#tensor-parallelism):
 * sharesim's p50 TPOT and TTFT are the documented ones, within the table's stated errors of the
 * measured medians. */
static void test_lambda_tp(void)
{
    static const struct {
        int tp;
        double tpot, ttft, measured_tpot;
    } rows[] = {{2, 30.46, 223.1, 29.5}, {4, 16.91, 150.9, 18.1}, {8, 10.47, 72.5, 12.2}};
    char trace[PATH_MAX]; /* absolute: the scenario is written to the temporary directory */
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(tu_fixture("tp/lambda10.csv"), trace));
    for (int i = 0; i < 3; i++) {
        const char *path =
            tu_fixture_write("lambda.json", "tp/lambda10.json",
                             "{\"gpus\": %d, \"tenants.0.serving.tensor_parallel\": %d, "
                             "\"tenants.0.arrival.path\": \"%s\"}",
                             rows[i].tp, rows[i].tp, trace);
        char args[600];
        snprintf(args, sizeof args, "run %s", path);
        cJSON *doc = tu_cli_json(args);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        double tpot = tu_json_num(doc, "strategies.0.tenants.0.llm.tpot_ms.p50");
        double ttft = tu_json_num(doc, "strategies.0.tenants.0.llm.ttft_ms.p50");
        CU_ASSERT_DOUBLE_EQUAL(tpot, rows[i].tpot, 0.05);
        CU_ASSERT_DOUBLE_EQUAL(ttft, rows[i].ttft, 0.5);
        CU_ASSERT(fabs(tpot / rows[i].measured_tpot - 1) < 0.2);
        CU_ASSERT_EQUAL(tu_json_num(doc, "strategies.0.tenants.0.completed"), 10);
        cJSON_Delete(doc);
    }
}

/* The planner: exclusive candidates give the group multiples of its size, aligned even behind a
 * tenant listed first (the groups are placed first), and the sharing strategies are pruned with
 * the reason. */
static void test_plan(void)
{
    const char *path = tu_fixture("tp/plan2.json");
    char args[600];
    snprintf(args, sizeof args, "plan %s", path);
    cJSON *doc = tu_cli_json(args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_EQUAL(tu_json_num(doc, "recommendation.gpus"), 5);
    for (int g = 0; g < 4; g++) {
        char key[96];
        snprintf(key, sizeof key, "recommendation.strategy.assign.chat.%d", g);
        CU_ASSERT_EQUAL(tu_json_num(doc, key), g);
    }
    CU_ASSERT_EQUAL(tu_json_num(doc, "recommendation.strategy.assign.batch.0"), 4);
    const cJSON *cands = cJSON_GetObjectItemCaseSensitive(doc, "candidates"), *c;
    int pruned = 0;
    cJSON_ArrayForEach(c, cands)
    {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(c, "reason");
        if (cJSON_IsString(r) &&
            strstr(r->valuestring, "chat has tensor_parallel 4: a MIG instance"))
            pruned++;
    }
    CU_ASSERT_EQUAL(pruned, 1);
    cJSON_Delete(doc);
    /* Its Kubernetes artefacts: one pod holds the group, and vLLM is told the group's size. */
    char dir[300], k8s[1000];
    snprintf(dir, sizeof dir, "%s/k8s", tu_tmpdir());
    snprintf(k8s, sizeof k8s, "plan %s --k8s %s", path, dir);
    CU_ASSERT_EQUAL(tu_cli(k8s, NULL, 0, NULL, 0), 0);
    char *pod = tu_slurp_in(dir, "pod-chat.yaml");
    CU_ASSERT_PTR_NOT_NULL(strstr(pod, "--tensor-parallel-size=4"));
    CU_ASSERT_PTR_NOT_NULL(strstr(pod, "nvidia.com/gpu: 4"));
    CU_ASSERT_PTR_NOT_NULL(strstr(pod, "replicas: 1"));
    free(pod);
}

void test_tp_register(void)
{
    static const struct tu_test t[] = {
        {"TP=2 and TP=4 decode steps by hand: the shard's step + 2 x layers all-reduces",
         test_decode_step},
        {"the link a profile gives (NVLink in its domain, PCIe past it) and the model's splits",
         test_link_from_profile},
        {"KV capacity of a TP group by hand", test_kv_capacity},
        {"refusals: MIG, MPS, time-slicing, vGPU, sizes, groups across nodes and domains",
         test_refusals},
        {"Llama-3-70B fp16 on TP=2 and TP=4 groups of H100s, and two TP=2 replicas",
         test_llama70b_runs},
        {"the planner: aligned groups of multiples of the size, the others pruned with why",
         test_plan},
        {"Lambda's vLLM Llama-3-70B TP=2/4/8 H100 runs against the documented predictions",
         test_lambda_tp},
        {NULL, NULL},
    };
    tu_add_suite("tp", t);
}
