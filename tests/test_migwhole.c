/*
 * MIG-disabled GPUs beside MIG instances in one "mig" strategy (docs/mig.md#whole-gpus-beside-
 * mig-instances): {"mig": false, "tenant": T} in "layouts" gives T the whole GPU, as exclusive
 * would, and an LLM tenant's such GPUs form its tensor-parallel groups. Against exclusive on the
 * same random numbers (a tenant's figures do not depend on the other tenants' GPUs), by hand
 * from the roofline for a replica on a whole GPU beside one on a 3g.40gb instance, requests and
 * tokens conserved on a two-node fleet of TP groups and MIG replicas, and the loader's refusals.
 */
#include "core/llmstats.h"
#include "core/run.h"
#include "core/scenario.h"
#include "mig/mig.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOK_500_100                                                                                \
    "\"tokens\": {\"input\": {\"dist\": \"deterministic\", \"tokens\": 500}, \"output\": "         \
    "{\"dist\": \"deterministic\", \"tokens\": 100}}"

/* A TP=2 Llama-3-70B, a Llama-3-8B and a plain tenant on five H100s: under "mig" GPUs 0-1 are
 * the 70B's group, GPU 2 the 8B's whole GPU and GPU 3 its two 3g.40gb instances, GPU 4 the
 * plain tenant's; under "exclusive" the same tenants own the same GPUs whole. */
static const char *const MIXED =
    "{\"name\": \"mixed\", \"gpu\": \"H100-80GB\", \"gpus\": 5, \"seed\": 3, \"stop\": "
    "{\"duration_s\": 60}, \"tenants\": ["
    "{\"name\": \"big\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, \"serving\": "
    "{\"engine\": \"llm\", \"model\": \"Llama-3-70B\", \"dtype\": \"fp16\", \"tensor_parallel\": "
    "2}, " TOK_500_100 "}, "
    "{\"name\": \"small\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 4}, "
    "\"serving\": {\"engine\": \"llm\", \"model\": \"Llama-3-8B\"}, " TOK_500_100 "}, "
    "{\"name\": \"batch\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 50}, \"work\": "
    "{\"dist\": \"exponential\", \"mean_ms\": 10}}], \"strategies\": ["
    "{\"name\": \"mixed\", \"kind\": \"mig\", \"layouts\": [{\"mig\": false, \"tenant\": \"big\"}, "
    "{\"mig\": false, \"tenant\": \"big\"}, {\"mig\": false, \"tenant\": \"small\"}, "
    "[{\"profile\": \"3g.40gb\", \"tenants\": [\"small\"]}, {\"profile\": \"3g.40gb\", "
    "\"tenants\": [\"small\"]}], {\"mig\": false, \"tenant\": \"batch\"}]}, "
    "{\"name\": \"excl\", \"kind\": \"exclusive\", \"assign\": {\"big\": [0, 1], \"small\": [2, "
    "3], \"batch\": [4]}}]}";

/*
 * The TP group's tenant and the plain tenant own whole GPUs under both strategies, so they get
 * the same figures to the last bit (their arrivals and tokens come from their own streams); the
 * 8B tenant, on a whole GPU and two instances under mig, is slower than on two whole GPUs.
 * The details name each MIG-disabled GPU's tenant, and its group's first GPU.
 */
static void test_equals_exclusive(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_text(MIXED, &sc, &r);
    for (int t = 0; t < 3; t += 2) {
        const double *a = res_t(&r.s[0], t), *b = res_t(&r.s[1], t);
        CU_ASSERT(a[TM_COMPLETED] > 40);
        CU_ASSERT_DOUBLE_EQUAL(a[TM_COMPLETED], b[TM_COMPLETED], 0);
        CU_ASSERT_DOUBLE_EQUAL(a[TM_LAT_MEAN], b[TM_LAT_MEAN], 0);
        CU_ASSERT_DOUBLE_EQUAL(a[TM_LAT_P99], b[TM_LAT_P99], 0);
    }
    const double *ma = r.s[0].llm, *mb = r.s[1].llm; /* tenant 0: big */
    CU_ASSERT_DOUBLE_EQUAL(ma[LM_TTFT_MEAN], mb[LM_TTFT_MEAN], 0);
    CU_ASSERT_DOUBLE_EQUAL(ma[LM_TPOT_MEAN], mb[LM_TPOT_MEAN], 0);
    CU_ASSERT(res_t(&r.s[0], 1)[TM_LAT_MEAN] > res_t(&r.s[1], 1)[TM_LAT_MEAN]);
    CU_ASSERT_EQUAL(r.s[0].gpus_used, 5);
    char *js = cJSON_PrintUnformatted(r.s[0].details);
    CU_ASSERT_PTR_NOT_NULL(strstr(js, "{\"mig\":false,\"tenant\":\"big\",\"tp_group\":0,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(js, "{\"mig\":false,\"tenant\":\"small\",\"utilization\""));
    free(js);
    run_result_free(&r);
    scn_free(&sc);
}

/* One decode-or-prefill step of one sequence alone on shares (f, b): Llama-2-7B's roofline. */
static double step_at(const struct scenario *sc, long past, long n_new, double f, double b)
{
    double P = sc->tenants[0].llm->model.params, n = (double)n_new, p = (double)past;
    double flops = 2 * P * n + 4.0 * 32 * 32 * 128 * (n * p + n * (n + 1) / 2);
    double bytes = 2 * P + 524288.0 * (p + n);
    const struct gpu_roof *r = &sc->gpu.roof;
    return fmax(flops / (312e12 * f * r->compute_eff), bytes / (2039e9 * b * r->bandwidth_eff));
}

/* A request of in prompt and out output tokens alone on shares (f, b). */
static double alone_s(const struct scenario *sc, long in, long out, double f, double b)
{
    double t = step_at(sc, 0, in, f, b);
    for (long j = 1; j < out; j++)
        t += step_at(sc, in + j - 1, 1, f, b);
    return t;
}

static double by_hand_run(const char *policy, const char *trace, struct scenario *sc)
{
    char *text = malloc(4096);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    snprintf(text, 4096,
             "{\"name\": \"w\", \"gpu\": \"A100-80GB\", \"gpus\": 2, \"seed\": 1, \"stop\": "
             "{\"duration_s\": 60}, \"tenants\": [{\"name\": \"chat\", \"arrival\": {\"process\": "
             "\"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}, \"serving\": {\"engine\": "
             "\"llm\", \"step_model\": \"roofline\", \"model\": \"Llama-2-7B\", \"dtype\": "
             "\"fp16\", \"router\": {\"policy\": \"%s\"}}}], \"strategies\": [{\"name\": \"m\", "
             "\"kind\": \"mig\", \"layouts\": [{\"mig\": false, \"tenant\": \"chat\"}, "
             "[{\"profile\": \"3g.40gb\", \"tenants\": [\"chat\"]}]]}]}",
             trace, policy);
    struct run_result r;
    tu_run_text(text, sc, &r);
    free(text);
    double lat = res_t(&r.s[0], 0)[TM_LAT_MEAN];
    CU_ASSERT_EQUAL(res_t(&r.s[0], 0)[TM_COMPLETED], 4);
    run_result_free(&r);
    return lat;
}

/*
 * Replica 0 is GPU 0, MIG off (shares 1, 1), replica 1 GPU 1's 3g.40gb (its SMs over
 * the GPU's, 4 of 8 memory slices). Four requests 10 s apart, each alone:
 * round robin alternates them, least_outstanding finds both empty and takes replica 0.
 */
static void test_by_hand(void)
{
    char *trace = tu_write("w.csv", "time_s,input_tokens,output_tokens\n0,300,30\n10,300,30\n"
                                    "20,300,30\n30,300,30\n");
    struct scenario sc;
    double rr = by_hand_run("round_robin", trace, &sc);
    int k = mig_profile_index(&sc.gpu, "3g.40gb");
    CU_ASSERT_FATAL(k >= 0);
    double whole = alone_s(&sc, 300, 30, 1, 1);
    double inst =
        alone_s(&sc, 300, 30, mig_compute_share(&sc.gpu, k), mig_memory_share(&sc.gpu, k));
    scn_free(&sc);
    CU_ASSERT(inst > 1.5 * whole);
    TU_CHECK_CLOSE_REL(rr, (whole + inst) / 2, 1e-6);
    TU_CHECK_CLOSE_REL(by_hand_run("least_outstanding", trace, &sc), whole, 1e-6);
    scn_free(&sc);
}

/* Two nodes of H100s: node 0 two TP=4 groups of a 70B, node 1 four MIG-disabled GPUs and four
 * GPUs of 3g.40gb pairs for an 8B. */
static char *fleet_text(const char *big_arrival, const char *small_arrival, const char *top)
{
    char layouts[2048] = "", *text = malloc(8192);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    for (int g = 0; g < 16; g++)
        snprintf(layouts + strlen(layouts), sizeof layouts - strlen(layouts), "%s%s", g ? ", " : "",
                 g < 8    ? "{\"mig\": false, \"tenant\": \"big\"}"
                 : g < 12 ? "{\"mig\": false, \"tenant\": \"small\"}"
                          : "[{\"profile\": \"3g.40gb\", \"tenants\": [\"small\"]}, {\"profile\": "
                            "\"3g.40gb\", \"tenants\": [\"small\"]}]");
    snprintf(text, 8192,
             "{\"name\": \"fleet\", \"gpu\": \"H100-80GB\", \"gpus\": 16, \"seed\": 5, %s "
             "\"tenants\": [{\"name\": \"big\", \"arrival\": %s, \"serving\": {\"engine\": "
             "\"llm\", \"model\": \"Llama-3-70B\", \"dtype\": \"fp16\", \"tensor_parallel\": 4, "
             "\"max_num_seqs\": 16}}, {\"name\": \"small\", \"arrival\": %s, \"serving\": "
             "{\"engine\": \"llm\", \"model\": \"Llama-3-8B\", \"max_num_seqs\": 16}}], "
             "\"strategies\": [{\"name\": \"m\", \"kind\": \"mig\", \"layouts\": [%s]}]}",
             top, big_arrival, small_arrival, layouts);
    return text;
}

/*
 * Conservation. A trace whose tokens add up to a known total, replayed by both tenants: every
 * request completes and the output tokens sampled in the window are the trace's, for the TP
 * groups and for the MIG replicas. Loaded with faults killing
 * engines: arrived = completed + failed + rejected + in flight.
 */
static void test_conserved(void)
{
    /* 29 requests in the first 6 s, then a one-token request at 50 s: the run's window ends at
     * the last arrival, by when the 29 are done and the last has sampled nothing yet. */
    char csv[4096] = "time_s,input_tokens,output_tokens\n";
    long out_sum = 0;
    for (int i = 0; i < 29; i++) {
        long in = 100 + 37 * i, out = 5 + (i * 13) % 60;
        out_sum += out;
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "%g,%ld,%ld\n", 0.2 * i, in, out);
    }
    strcat(csv, "50,1,1\n");
    char arr[512];
    snprintf(arr, sizeof arr,
             "{\"process\": \"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}",
             tu_write("fleet.csv", csv));
    char *text = fleet_text(arr, arr, "\"warmup\": {\"duration_s\": 0},");
    struct scenario sc;
    struct run_result r;
    tu_run_text(text, &sc, &r);
    free(text);
    for (int t = 0; t < 2; t++) {
        CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], t)[TM_ARRIVED], 30, 0);
        CU_ASSERT_DOUBLE_EQUAL(res_t(&r.s[0], t)[TM_COMPLETED], 30, 0);
        TU_CHECK_CLOSE_REL(res_t(&r.s[0], t)[TM_THROUGHPUT] * 50, 29, 1e-9);
        TU_CHECK_CLOSE_REL(r.s[0].llm[(size_t)t * LM_N + LM_OUTPUT_TPS] * 50, (double)out_sum,
                           1e-9);
    }
    CU_ASSERT_EQUAL(r.s[0].gpus_used, 16);
    run_result_free(&r);
    scn_free(&sc);

    text = fleet_text("{\"process\": \"poisson\", \"rate_per_s\": 30}, \"fault_rate_per_h\": 200, "
                      "\"tokens\": {\"input\": {\"dist\": \"exponential\", \"mean\": 1500}, "
                      "\"output\": {\"dist\": \"exponential\", \"mean\": 300}}",
                      "{\"process\": \"poisson\", \"rate_per_s\": 80}, \"fault_rate_per_h\": 200, "
                      "\"tokens\": {\"input\": {\"dist\": \"exponential\", \"mean\": 1500}, "
                      "\"output\": {\"dist\": \"exponential\", \"mean\": 300}}",
                      "\"stop\": {\"duration_s\": 60},");
    tu_run_text(text, &sc, &r);
    free(text);
    for (int t = 0; t < 2; t++) {
        const double *m = res_t(&r.s[0], t);
        CU_ASSERT(m[TM_ARRIVED] > 1000);
        CU_ASSERT(m[TM_FAILED] > 0);
        CU_ASSERT_EQUAL(m[TM_ARRIVED],
                        m[TM_COMPLETED] + m[TM_FAILED] + m[TM_REJECTED] + m[TM_IN_FLIGHT]);
    }
    run_result_free(&r);
    scn_free(&sc);
}

/* The scenario of test_by_hand's shape with the layouts (and strategy keys) given. */
static char *bad_text(const char *serving, const char *strategy_tail)
{
    char *text = malloc(4096);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    snprintf(text, 4096,
             "{\"name\": \"w\", \"gpu\": \"H100-80GB\", \"gpus\": 10, \"seed\": 1, \"stop\": "
             "{\"duration_s\": 5}, "
             "\"tenants\": "
             "[{\"name\": \"chat\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, "
             "\"serving\": {\"engine\": \"llm\", \"model\": \"Llama-3-8B\"%s}, " TOK_500_100
             "}, {\"name\": "
             "\"fat\", \"memory_gb\": 90, \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": "
             "1}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": 10}}], \"strategies\": "
             "[{\"name\": \"m\", \"kind\": \"mig\", %s}]}",
             serving, strategy_tail);
    return text;
}

static void expect_bad(const char *serving, const char *tail, const char *part)
{
    char *text = bad_text(serving, tail);
    tu_expect_load_error(text, part);
    free(text);
}

#define W(t) "{\"mig\": false, \"tenant\": \"" t "\"}"
#define I3(t) "[{\"profile\": \"3g.40gb\", \"tenants\": [\"" t "\"]}]"
#define SIX W("chat") ", " W("chat") ", " W("chat") ", " W("chat") ", " W("chat") ", " W("chat")

static void test_refused(void)
{
    const char *tp2 = ", \"tensor_parallel\": 2";
    /* fat's 90 GB fits no H100: on a GPU of its own it is refused with the numbers (in an
     * instance, below, "oom": "simulate" lets it load). */
    expect_bad("",
               "\"layouts\": [" W("fat") ", " SIX ", " W("chat") ", " W("chat") ", " W("chat") "]",
               "strategies[0].layouts[0]: tenant \"fat\" needs 90 GB, a H100-80GB has 80 GB");
    expect_bad("",
               "\"oom\": \"simulate\", \"layouts\": [{\"mig\": true, \"tenant\": \"chat\"}, "
               "" I3("fat") ", " SIX ", " W("chat") ", " W("chat") "]",
               "strategies[0].layouts[0].mig: expected false");
    expect_bad("",
               "\"oom\": \"simulate\", \"layouts\": [" W("nobody") ", " I3("fat") ", " SIX ", " W(
                   "chat") ", " W("chat") "]",
               "strategies[0].layouts[0].tenant: expected the name of a tenant, got \"nobody\"");
    /* TP tenant in an instance: the MIG reason, and how to give it whole GPUs. */
    expect_bad(tp2,
               "\"oom\": \"simulate\", \"layouts\": [" W("chat") ", " I3("chat") ", " I3(
                   "fat") ", " SIX ", " W("chat") "]",
               "has tensor_parallel 2 but GPU 1 lists it in a 3g.40gb instance: a MIG instance "
               "has no NVLink");
    /* An odd number of whole GPUs (9) at TP = 2. */
    expect_bad(tp2,
               "\"oom\": \"simulate\", \"layouts\": [" I3("fat") ", " SIX ", " W(
                   "chat") ", "
                           "" W("chat") ", " W("chat") "]",
               "has tensor_parallel 2 but 9 whole GPUs");
    /* GPUs 7 and 8 would be one group: two nodes. */
    expect_bad(tp2,
               "\"oom\": \"simulate\", \"layouts\": [" I3("fat") ", " SIX ", " W(
                   "chat") ", "
                           "" W("chat") ", " I3("fat") "]",
               "GPUs 7 and 8 of one group are on different nodes of 8 GPUs (order \"layouts\"");
    /* A change of a MIG-disabled GPU (or of every GPU) is refused (plain tenants: LLM tenants
     * refuse every change). */
    static const char *const plain =
        "{\"name\": \"p\", \"gpu\": \"H100-80GB\", \"gpus\": 2, \"stop\": {\"duration_s\": 20}, "
        "\"tenants\": [{\"name\": "
        "\"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, \"work\": "
        "{\"dist\": \"exponential\", \"mean_ms\": 10}}], \"strategies\": [{\"name\": \"m\", "
        "\"kind\": \"mig\", \"layouts\": [" W("a") ", " I3(
            "a") "], \"reconfigure\": "
                 "[{\"at_s\": 5, %s\"layout\": []}]}]}";
    char text[2048];
    snprintf(text, sizeof text, plain, "\"gpu\": 0, ");
    tu_expect_load_error(text, "strategies[0].reconfigure[0]: this GPU has MIG disabled");
    snprintf(text, sizeof text, plain, "");
    tu_expect_load_error(text, "a GPU of the pool has MIG disabled");
    snprintf(text, sizeof text, plain, "\"gpu\": 1, ");
    struct scenario sc;
    struct run_result r;
    tu_run_text(text, &sc, &r); /* GPU 1 has MIG on: its change runs */
    CU_ASSERT(res_t(&r.s[0], 0)[TM_COMPLETED] > 0);
    run_result_free(&r);
    scn_free(&sc);
}

void test_migwhole_register(void)
{
    static const struct tu_test t[] = {
        {"MIG-disabled GPUs and a TP group beside instances: exclusive's figures",
         test_equals_exclusive},
        {"a replica on a whole GPU and one on a 3g.40gb, by hand from the roofline", test_by_hand},
        {"requests and tokens conserved on a fleet of TP groups and MIG replicas", test_conserved},
        {"the loader's refusals: MIG on, unknown tenant, TP in an instance, groups, changes",
         test_refused},
        {NULL, NULL},
    };
    tu_add_suite("migwhole", t);
}
