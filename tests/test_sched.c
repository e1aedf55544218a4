/*
 * sched (llm/sched.c): the iteration-level scheduler driven by hand-computable step times.
 * One request alone (TTFT = its prefill step, TPOT = the mean of its batch-1 decode steps,
 * each written out from the roofline formula); b requests in lock-step (one prefill step of
 * b, then decode steps of b, all finishing together); a KV-cache exhaustion whose preemption
 * sequence is worked out step by step below; chunked prefill's budget; refusals; and, over a
 * random load on a small cache, the invariants after every step (ls_check), FCFS first
 * tokens, and tokens and requests conserved.
 */
#include "llm/roofline.h"
#include "base/rng.h"
#include "llm/sched.h"
#include "calib/calib.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Runs every step to the end; step time: the roofline of the step on (rm, rg) when rm is
 * given, else 1 s per step. Records each step's size. Returns the end time. */
struct trace_rec {
    int steps;
    int n[64];
    long tokens[64];
    double t[64];
};

static double drive(struct ls_sched *s, const struct rf_model *rm, const struct rf_gpu *rg,
                    double over, struct trace_rec *tr)
{
    struct ls_step st = {0};
    double now = 0;
    if (tr)
        memset(tr, 0, sizeof *tr);
    while (ls_schedule(s, &st) > 0) {
        double dt = 1;
        if (rm) {
            struct rf_cost c;
            rf_cost_start(rm, &c);
            for (int i = 0; i < st.n; i++)
                rf_cost_add(rm, &c, st.items[i].past, st.items[i].n_new);
            dt = rf_time_s(rg, &c, 1, 1, over);
        }
        now += dt;
        if (tr && tr->steps < 64) {
            tr->n[tr->steps] = st.n;
            tr->tokens[tr->steps] = st.tokens;
            tr->t[tr->steps++] = now;
        }
        ls_complete(s, &st, now);
        ls_check(s);
    }
    ls_step_free(&st);
    return now;
}

static void setup_a100(struct rf_model *rm, struct rf_gpu *rg)
{
    struct gpu_profile g;
    struct lm_model m;
    char err[512];
    tu_gpu("A100-80GB", &g);
    CU_ASSERT_EQUAL_FATAL(lm_find(NULL, "Llama-2-7B", &m, err, sizeof err), 0);
    rf_model_init(rm, &m, RD_FP16, RD_FP16);
    rf_gpu_init(rg, &g.roof, g.hbm_bw_gbps, RD_FP16);
}

/* One step of `seqs` sequences of n_new tokens after past, by the formula. */
static double hand_step(const struct rf_model *rm, const struct rf_gpu *rg, int seqs, long past,
                        long n_new, double over)
{
    double n = (double)n_new, p = (double)past;
    double flops =
        seqs * (2 * rm->params * n + rm->attn_flops_per_pair * (n * p + n * (n + 1) / 2));
    double bytes = rm->weight_bytes + seqs * rm->kv_bytes_per_token * (p + n);
    return fmax(flops / (rg->peak_flops * rg->compute_eff),
                bytes / (rg->bw_bytes_per_s * rg->bandwidth_eff)) +
           over;
}

static void test_one_request(void)
{
    struct rf_model rm;
    struct rf_gpu rg;
    setup_a100(&rm, &rg);
    for (int chunked = 0; chunked < 2; chunked++) {
        struct ls_sched s;
        struct ls_cfg c = {6953, 16, 256, 2048, chunked, 1, 0, 0, 0, 0, 0};
        ls_init(&s, &c);
        const long P = 512, O = 32;
        const double over = 0.003;
        int h = ls_add(&s, 7, P, O, 0);
        CU_ASSERT_FATAL(h >= 0);
        double end = drive(&s, &rm, &rg, over, NULL);
        const struct ls_seq *q = ls_seq_at(&s, h);
        /* TTFT: the prefill of 512 tokens. TPOT: decode k (k = 1..31) computes token k's KV
         * after P + k - 1 tokens and samples token k + 1. */
        double ttft = hand_step(&rm, &rg, 1, 0, P, over), dec = 0;
        for (long k = 1; k < O; k++)
            dec += hand_step(&rm, &rg, 1, P + k - 1, 1, over);
        TU_CHECK_CLOSE_REL(q->first_token_s, ttft, 1e-12);
        TU_CHECK_CLOSE_REL((q->last_token_s - q->first_token_s) / (O - 1), dec / (O - 1), 1e-12);
        TU_CHECK_CLOSE_REL(end, ttft + dec, 1e-12);
        CU_ASSERT_EQUAL(q->state, LS_DONE);
        CU_ASSERT_EQUAL(q->generated, O);
        CU_ASSERT_EQUAL(q->preemptions, 0);
        CU_ASSERT_EQUAL(ls_used_blocks(&s), 0);
        ls_free(&s);
    }
}

static void test_lock_step(void)
{
    struct rf_model rm;
    struct rf_gpu rg;
    setup_a100(&rm, &rg);
    const int B = 8;
    const long P = 200, O = 20;
    struct ls_sched s;
    struct ls_cfg c = {6953, 16, 256, 2048, 0, 1, 0, 0, 0, 0, 0};
    ls_init(&s, &c);
    int h[8];
    for (int i = 0; i < B; i++)
        h[i] = ls_add(&s, i, P, O, 0);
    struct trace_rec tr;
    double end = drive(&s, &rm, &rg, 0, &tr);
    /* One prefill step of all eight (1600 tokens ≤ 2048), then 19 decode steps of eight. */
    CU_ASSERT_EQUAL(tr.steps, 1 + (int)(O - 1));
    CU_ASSERT_EQUAL(tr.n[0], B);
    CU_ASSERT_EQUAL(tr.tokens[0], B * P);
    double t = hand_step(&rm, &rg, B, 0, P, 0);
    TU_CHECK_CLOSE_REL(tr.t[0], t, 1e-12);
    for (long k = 1; k < O; k++) {
        CU_ASSERT_EQUAL(tr.n[k], B);
        CU_ASSERT_EQUAL(tr.tokens[k], B);
        t += hand_step(&rm, &rg, B, P + k - 1, 1, 0);
        TU_CHECK_CLOSE_REL(tr.t[k], t, 1e-12);
    }
    TU_CHECK_CLOSE_REL(end, t, 1e-12);
    for (int i = 0; i < B; i++) {
        CU_ASSERT_DOUBLE_EQUAL(ls_seq_at(&s, h[i])->first_token_s, tr.t[0], 0);
        CU_ASSERT_DOUBLE_EQUAL(ls_seq_at(&s, h[i])->last_token_s, end, 0);
    }
    ls_free(&s);
}

/*
 * KV exhaustion, prefill first, 1 s per step: 6 blocks of 4 tokens, A and B (8 prompt + 8
 * output tokens each) arrive together.
 *   step 1  prefill A, B (8 tokens each, 2 blocks each; 2 free)     A, B: token 1
 *   step 2  decode A, B: 9 tokens need a 3rd block each (0 free)    token 2
 *   steps 3-5  decode A, B within their 3 blocks (up to 12 tokens)  tokens 3, 4, 5
 *   step 6  A needs a 4th block, none free: B (the last admitted) is preempted, its 3 blocks
 *           freed; A decodes alone (2 free)                         A: token 6
 *   step 7  B waits: recomputing 8 + 5 = 13 tokens needs 4 blocks   A: token 7
 *   step 8  idem                                                    A: token 8, done (6 free)
 *   step 9  B re-prefills 13 tokens (4 blocks)                      B: token 6
 *   steps 10-11  B decodes                                          B: tokens 7, 8, done
 */
static void test_preemption_by_hand(void)
{
    struct ls_sched s;
    struct ls_cfg c = {6, 4, 4, 64, 0, 1, 0, 0, 0, 0, 0};
    ls_init(&s, &c);
    int a = ls_add(&s, 0, 8, 8, 0), b = ls_add(&s, 1, 8, 8, 0);
    struct trace_rec tr;
    double end = drive(&s, NULL, NULL, 0, &tr);
    static const int n[] = {2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1};
    static const long tokens[] = {16, 2, 2, 2, 2, 1, 1, 1, 13, 1, 1};
    CU_ASSERT_EQUAL(tr.steps, 11);
    for (int i = 0; i < 11 && i < tr.steps; i++) {
        CU_ASSERT_EQUAL(tr.n[i], n[i]);
        CU_ASSERT_EQUAL(tr.tokens[i], tokens[i]);
    }
    CU_ASSERT_DOUBLE_EQUAL(end, 11, 0);
    const struct ls_seq *qa = ls_seq_at(&s, a), *qb = ls_seq_at(&s, b);
    CU_ASSERT_EQUAL(qa->preemptions, 0);
    CU_ASSERT_EQUAL(qb->preemptions, 1);
    CU_ASSERT_EQUAL(s.preemptions, 1);
    CU_ASSERT_DOUBLE_EQUAL(qa->first_token_s, 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(qa->last_token_s, 8, 0);
    CU_ASSERT_DOUBLE_EQUAL(qb->first_token_s, 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(qb->last_token_s, 11, 0);
    CU_ASSERT_EQUAL(qa->generated + qb->generated, 16);
    CU_ASSERT_EQUAL(ls_used_blocks(&s), 0);
    ls_free(&s);
}

/* The gap B saw between tokens 5 and 6 (the preemption's cost) comes out of ls_complete. */
static void test_gaps(void)
{
    struct ls_sched s;
    struct ls_cfg c = {6, 4, 4, 64, 0, 1, 0, 0, 0, 0, 0};
    ls_init(&s, &c);
    ls_add(&s, 0, 8, 8, 0);
    int b = ls_add(&s, 1, 8, 8, 0);
    struct ls_step st = {0};
    double now = 0, gap6 = -1;
    int firsts = 0, dones = 0;
    while (ls_schedule(&s, &st) > 0) {
        now += 1;
        ls_complete(&s, &st, now);
        for (int i = 0; i < st.n; i++) {
            const struct ls_item *it = &st.items[i];
            firsts += it->first;
            dones += it->done;
            if (it->seq == b && it->emits && ls_seq_at(&s, b)->generated == 6)
                gap6 = it->gap_s;
            CU_ASSERT(!it->emits || it->first || it->gap_s >= 1);
        }
    }
    CU_ASSERT_DOUBLE_EQUAL(gap6, 4, 0); /* token 5 at t = 5, token 6 at t = 9 */
    CU_ASSERT_EQUAL(firsts, 2);
    CU_ASSERT_EQUAL(dones, 2);
    ls_step_free(&st);
    ls_free(&s);
}

/*
 * Chunked prefill, budget 6 tokens: A (prompt 10, output 3) prefills 6 + 4 tokens and samples
 * its first token at the end of step 2; B (prompt 3) arrives before step 2 and is admitted
 * with the 2 tokens left, finishing its prompt in step 3 beside A's decode.
 */
static void test_chunked_budget(void)
{
    struct ls_sched s;
    struct ls_cfg c = {100, 4, 8, 6, 1, 1, 0, 0, 0, 0, 0};
    ls_init(&s, &c);
    int a = ls_add(&s, 0, 10, 3, 0);
    struct ls_step st = {0};
    CU_ASSERT_EQUAL(ls_schedule(&s, &st), 1);
    CU_ASSERT_EQUAL(st.items[0].n_new, 6);
    CU_ASSERT_EQUAL(st.items[0].emits, 0);
    ls_complete(&s, &st, 1);
    int b = ls_add(&s, 1, 3, 2, 1);
    CU_ASSERT_EQUAL(ls_schedule(&s, &st), 2);
    CU_ASSERT_EQUAL(st.items[0].seq, a);
    CU_ASSERT_EQUAL(st.items[0].past, 6);
    CU_ASSERT_EQUAL(st.items[0].n_new, 4);
    CU_ASSERT_EQUAL(st.items[0].emits, 1);
    CU_ASSERT_EQUAL(st.items[1].seq, b);
    CU_ASSERT_EQUAL(st.items[1].n_new, 2);
    CU_ASSERT_EQUAL(st.items[1].emits, 0);
    ls_complete(&s, &st, 2);
    CU_ASSERT_DOUBLE_EQUAL(ls_seq_at(&s, a)->first_token_s, 2, 0);
    /* Step 3: A decodes (1 token after 10), B finishes its prompt (1 token after 2). */
    CU_ASSERT_EQUAL(ls_schedule(&s, &st), 2);
    CU_ASSERT_EQUAL(st.items[0].past, 10);
    CU_ASSERT_EQUAL(st.items[0].n_new, 1);
    CU_ASSERT_EQUAL(st.items[1].past, 2);
    CU_ASSERT_EQUAL(st.items[1].n_new, 1);
    CU_ASSERT_EQUAL(st.tokens, 2);
    ls_complete(&s, &st, 3);
    CU_ASSERT_DOUBLE_EQUAL(ls_seq_at(&s, b)->first_token_s, 3, 0);
    ls_check(&s);
    ls_step_free(&st);
    ls_free(&s);
}

static void test_refusals(void)
{
    struct ls_sched s;
    struct ls_cfg c = {4, 16, 8, 100, 0, 1, 0, 0, 0, 0, 0};
    ls_init(&s, &c);
    /* 4 blocks of 16 tokens: 64 tokens of prompt and output fit, 65 never do. */
    CU_ASSERT(ls_add(&s, 0, 40, 24, 0) >= 0);
    CU_ASSERT_EQUAL(ls_add(&s, 1, 40, 25, 0), -1); /* 65 tokens: 5 blocks, never fits */
    ls_free(&s);
    c.kv_blocks = 100;
    ls_init(&s, &c);
    CU_ASSERT_EQUAL(ls_add(&s, 0, 90, 11, 0), -1); /* prefill first: 101 > 100 tokens */
    c.chunked_prefill = 1;
    ls_free(&s);
    ls_init(&s, &c);
    CU_ASSERT(ls_add(&s, 0, 90, 11, 0) >= 0); /* chunked: fine */
    ls_free(&s);
}

/* A random load on a small cache, both modes: everything completes, checked every step. */
static void test_conservation(void)
{
    for (int chunked = 0; chunked < 2; chunked++) {
        struct ls_sched s;
        struct ls_cfg c = {40, 8, 6, 96, chunked, 1, 0, 0, 0, 0, 0};
        ls_init(&s, &c);
        struct rng r;
        rng_seed(&r, 17 + chunked);
        long want = 0, prompts = 0;
        int n = tu_sanitized() ? 200 : 1000, added = 0, refused = 0;
        struct ls_step st = {0};
        double now = 0, last_first = -1;
        long got = 0, done = 0, next_id = 0, first_id = 0;
        long *first_order = calloc((size_t)n, sizeof *first_order);
        while (added + refused < n || ls_waiting(&s) + ls_running(&s) > 0) {
            /* Up to two arrivals before each step. */
            for (int k = 0; k < 2 && added + refused < n; k++) {
                long p = 1 + (long)(rng_uniform(&r) * 80), o = 1 + (long)(rng_uniform(&r) * 60);
                if (ls_add(&s, next_id++, p, o, now) < 0) {
                    refused++;
                    CU_ASSERT(ls_blocks_for(&s, p + o) > c.kv_blocks ||
                              (!chunked && p + o > c.max_batched_tokens));
                    continue;
                }
                added++;
                want += o;
                prompts += p;
            }
            if (ls_schedule(&s, &st) == 0)
                continue;
            now += 1;
            ls_complete(&s, &st, now);
            ls_check(&s);
            for (int i = 0; i < st.n; i++) {
                const struct ls_item *it = &st.items[i];
                const struct ls_seq *q = ls_seq_at(&s, it->seq);
                got += it->emits;
                done += it->done;
                if (it->first) {
                    CU_ASSERT(now >= last_first);
                    last_first = now;
                    first_order[first_id++] = q->id;
                }
            }
        }
        CU_ASSERT_EQUAL(got, want);
        CU_ASSERT_EQUAL(done, added);
        CU_ASSERT_EQUAL(first_id, added);
        /* First tokens in arrival order (ids increase): FCFS admission. */
        for (long i = 1; i < first_id; i++)
            CU_ASSERT(first_order[i] > first_order[i - 1]);
        CU_ASSERT(s.preemptions > 0); /* the small cache did force recomputes */
        CU_ASSERT(refused > 0 || chunked);
        CU_ASSERT_EQUAL(ls_used_blocks(&s), 0);
        CU_ASSERT(prompts > 0);
        free(first_order);
        ls_step_free(&st);
        ls_free(&s);
    }
}

/*
 * Without chunking and without prefill-first (vLLM V1, TensorRT-LLM's in-flight batching), a
 * prompt joins the running decodes' step whole, and waits while it does not fit what the
 * budget leaves. Budget 11 (unchunked, a request's prompt and output must fit it: a recompute
 * takes them in one step), blocks plenty: A (6 in, 3 out) and B (9 in, 2 out) arrive together.
 *   step 1  A's prompt (6); B's 9 do not fit the 5 left           A: token 1
 *   step 2  A decodes (1), B's prompt (9): 10 tokens              A: token 2, B: token 1
 *   step 3  A and B decode                                        A: token 3 done, B: 2 done
 * Under prefill-first B would prefill alone in step 2 and A wait for it.
 */
static void test_unsplit_by_hand(void)
{
    struct ls_sched s;
    struct ls_cfg c = {100, 4, 8, 11, 0, 0, 0, 0, 0, 0, 0};
    ls_init(&s, &c);
    int a = ls_add(&s, 0, 6, 3, 0), b = ls_add(&s, 1, 9, 2, 0);
    struct trace_rec tr;
    double end = drive(&s, NULL, NULL, 0, &tr);
    static const int n[] = {1, 2, 2};
    static const long tokens[] = {6, 10, 2};
    CU_ASSERT_EQUAL(tr.steps, 3);
    for (int i = 0; i < 3 && i < tr.steps; i++) {
        CU_ASSERT_EQUAL(tr.n[i], n[i]);
        CU_ASSERT_EQUAL(tr.tokens[i], tokens[i]);
    }
    CU_ASSERT_DOUBLE_EQUAL(end, 3, 0);
    CU_ASSERT_DOUBLE_EQUAL(ls_seq_at(&s, a)->last_token_s, 3, 0);
    CU_ASSERT_DOUBLE_EQUAL(ls_seq_at(&s, b)->first_token_s, 2, 0);
    ls_free(&s);
    /* The same under prefill-first: B's prompt is a step of its own. */
    c.prefill_first = 1;
    ls_init(&s, &c);
    a = ls_add(&s, 0, 6, 3, 0);
    b = ls_add(&s, 1, 9, 2, 0);
    drive(&s, NULL, NULL, 0, &tr);
    CU_ASSERT_EQUAL(tr.steps, 4);
    CU_ASSERT_EQUAL(tr.tokens[1], 9);
    CU_ASSERT_DOUBLE_EQUAL(ls_seq_at(&s, a)->last_token_s, 4, 0);
    ls_free(&s);
}

/*
 * TensorRT-LLM's GUARANTEED_NO_EVICT capacity policy (no_evict): a request is admitted only if
 * the blocks for its whole prompt and output can be reserved beside what every running
 * sequence still may need to finish. Blocks of 4 tokens, requests of 8 in and 8 out: 4 blocks
 * each to completion (2 for the prompt). With 11 blocks, 2 are admitted (8 reserved; a third
 * would make 12 > 11), although the prompts alone would let 5 in (10 blocks); with 12 blocks,
 * 3. Plain admission (no_evict off) takes 5 and must then preempt; no_evict never does.
 */
static void test_no_evict_by_hand(void)
{
    static const struct {
        long blocks;
        int no_evict, admitted;
    } cases[] = {{11, 1, 2}, {12, 1, 3}, {11, 0, 5}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct ls_sched s;
        struct ls_cfg c = {cases[k].blocks, 4, 8, 1000, 0, 0, 0, 0, 0, 0, 0};
        c.no_evict = cases[k].no_evict;
        ls_init(&s, &c);
        for (int i = 0; i < 6; i++)
            ls_add(&s, i, 8, 8, 0);
        struct ls_step st = {0};
        CU_ASSERT_EQUAL(ls_schedule(&s, &st), cases[k].admitted);
        CU_ASSERT_EQUAL(st.tokens, 8L * cases[k].admitted);
        ls_complete(&s, &st, 1);
        ls_check(&s);
        ls_step_free(&st);
        double end = drive(&s, NULL, NULL, 0, NULL);
        CU_ASSERT(end > 0);
        CU_ASSERT_EQUAL(ls_used_blocks(&s), 0);
        CU_ASSERT_EQUAL(s.preemptions > 0, !cases[k].no_evict);
        ls_free(&s);
    }
}

/*
 * Under no_evict a step still mixes context and generation (in-flight batching) within the
 * token budget: blocks plenty, budget 20. A and B (8 in, 3 out) arrive first and are
 * prefilled together (16 tokens); then C, D, E (8 in) arrive:
 *   step 2  A, B decode (2) + C's and D's prompts (16): 18 tokens; E's 8 would make 26 > 20
 *   step 3  A, B, C, D decode (4) + E's prompt (8): 12 tokens
 */
static void test_no_evict_mixed_budget(void)
{
    struct ls_sched s;
    struct ls_cfg c = {1000, 4, 8, 20, 0, 0, 0, 0, 0, 0, 0};
    c.no_evict = 1;
    ls_init(&s, &c);
    ls_add(&s, 0, 8, 3, 0);
    ls_add(&s, 1, 8, 3, 0);
    struct ls_step st = {0};
    CU_ASSERT_EQUAL(ls_schedule(&s, &st), 2);
    CU_ASSERT_EQUAL(st.tokens, 16);
    ls_complete(&s, &st, 1);
    for (int i = 2; i < 5; i++)
        ls_add(&s, i, 8, 3, 1);
    CU_ASSERT_EQUAL(ls_schedule(&s, &st), 4);
    CU_ASSERT_EQUAL(st.tokens, 18);
    CU_ASSERT_EQUAL(ls_waiting(&s), 1);
    ls_complete(&s, &st, 2);
    CU_ASSERT_EQUAL(ls_schedule(&s, &st), 5);
    CU_ASSERT_EQUAL(st.tokens, 12);
    ls_complete(&s, &st, 3);
    ls_check(&s);
    ls_step_free(&st);
    ls_free(&s);
}

/* A random load on a small cache under no_evict, every mode: nothing is ever preempted, the
 * invariants hold after every step and every request completes. */
static void test_no_evict_random(void)
{
    for (int mode = 0; mode < 3; mode++) {
        struct ls_sched s;
        struct ls_cfg c = {40, 8, 6, 150, mode == 2, mode == 1, mode == 2, mode == 2 ? 16 : 0,
                           0,  0, 1};
        ls_init(&s, &c);
        struct rng r;
        rng_seed(&r, 29 + mode);
        struct ls_step st = {0};
        long want = 0, got = 0, added = 0, done = 0;
        double now = 0;
        for (int n = 0; n < 400 || ls_waiting(&s) + ls_running(&s) > 0;) {
            for (int k = 0; k < 2 && n < 400; k++, n++) {
                long p = 1 + (long)(rng_uniform(&r) * 80), o = 1 + (long)(rng_uniform(&r) * 60);
                if (ls_add(&s, n, p, o, now) >= 0)
                    added++, want += o;
            }
            if (ls_schedule(&s, &st) == 0)
                continue;
            now += 1;
            ls_complete(&s, &st, now);
            ls_check(&s);
            for (int i = 0; i < st.n; i++)
                got += st.items[i].emits, done += st.items[i].done;
        }
        CU_ASSERT_EQUAL(s.preemptions, 0);
        CU_ASSERT_EQUAL(got, want);
        CU_ASSERT_EQUAL(done, added);
        CU_ASSERT(added > 300);
        CU_ASSERT_EQUAL(ls_used_blocks(&s), 0);
        ls_step_free(&st);
        ls_free(&s);
    }
}

void test_sched_register(void)
{
    static const struct tu_test t[] = {
        {"one request: TTFT = prefill step, TPOT = batch-1 decode steps", test_one_request},
        {"eight requests in lock-step, step times by hand", test_lock_step},
        {"KV exhaustion: the preemption sequence by hand", test_preemption_by_hand},
        {"token gaps include the preemption's wait", test_gaps},
        {"chunked prefill shares the token budget", test_chunked_budget},
        {"unchunked, not prefill-first: whole prompts join the decodes", test_unsplit_by_hand},
        {"requests that could never run are refused", test_refusals},
        {"no_evict: admits only what the whole length can reserve", test_no_evict_by_hand},
        {"no_evict: a mixed step within the token budget", test_no_evict_mixed_budget},
        {"no_evict: random load never preempts", test_no_evict_random},
        {"random load: invariants, FCFS, tokens and requests conserved", test_conservation},
        {NULL, NULL},
    };
    tu_add_suite("sched", t);
}
