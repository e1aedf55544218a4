/*
 * prefix (llm/prefix.c) and the scheduler's use of it: a preempted request re-admitted with
 * its blocks cached computes only the uncached tail (its partly filled last block), with its
 * blocks evicted all of it; a shared prompt prefix is computed once and its blocks are held
 * once; hits stop a token short; blocks are conserved (free + fresh + in use + cached = total)
 * under a random load; the LRU evicts the least recently cached, a sequence's tail first; and
 * the CUDA-graph batch of vLLM's capture sizes.
 */
#include "base/rng.h"
#include "llm/prefix.h"
#include "llm/sched.h"
#include "testutil.h"

#include <string.h>

static struct ls_cfg cfg(long blocks, int bs, long shared)
{
    return (struct ls_cfg){blocks, bs, 8, 100, 1, 1, 1, shared, 0, 0, 0};
}

/* One step: schedule, check, complete at now. */
static int step(struct ls_sched *s, struct ls_step *st, double now)
{
    int n = ls_schedule(s, st);
    ls_complete(s, st, now);
    ls_check(s);
    return n;
}

static const struct ls_item *item_of(const struct ls_step *st, int h)
{
    for (int i = 0; i < st->n; i++)
        if (st->items[i].seq == h)
            return &st->items[i];
    return NULL;
}

/*
 * 8 blocks of 4 tokens. A (prompt 14) and B (prompt 13) fill them in step 1; in steps 2-3 both
 * decode; in step 4 A needs a fifth block and preempts B: B's three full blocks (tokens 0-11)
 * stay cached and its partly filled fourth (12-14) is free, so A takes that one and nothing is
 * evicted. A finishes (output 4). In step 5 B, 16 tokens (13 + 3 generated), finds 3 blocks:
 * past 12, and computes only the 4 of its lost block — 16 without the cache.
 */
static void test_readmit_cached(void)
{
    for (int caching = 1; caching >= 0; caching--) {
        struct ls_sched s;
        struct ls_cfg c = cfg(8, 4, 0);
        c.prefix_caching = caching;
        ls_init(&s, &c);
        struct ls_step st = {0};
        int a = ls_add(&s, 0, 14, 4, 0), b = ls_add(&s, 1, 13, 10, 0);
        for (int k = 1; k <= 3; k++)
            CU_ASSERT_EQUAL(step(&s, &st, k), 2);
        ls_schedule(&s, &st);
        CU_ASSERT_EQUAL(st.preempted, 1);
        CU_ASSERT_EQUAL(ls_seq_at(&s, b)->state, LS_WAITING);
        CU_ASSERT_EQUAL(s.kv.cached, caching ? 3 : 0);
        CU_ASSERT_EQUAL(s.kv.evictions, 0);
        ls_complete(&s, &st, 4);
        ls_check(&s);
        CU_ASSERT_EQUAL(ls_seq_at(&s, a)->state, LS_DONE);
        step(&s, &st, 5);
        const struct ls_item *it = item_of(&st, b);
        CU_ASSERT_PTR_NOT_NULL_FATAL(it);
        CU_ASSERT_EQUAL(it->past, caching ? 12 : 0);
        CU_ASSERT_EQUAL(it->n_new, caching ? 4 : 16);
        CU_ASSERT_EQUAL(st.hit_tokens, caching ? 12 : 0);
        CU_ASSERT(it->emits);
        ls_step_free(&st);
        ls_free(&s);
    }
}

/* The same, but A grows to all 8 blocks (output 18) after the preemption: each block it takes
 * evicts one of B's cached blocks, tail first, so B is re-admitted with nothing cached. */
static void test_readmit_evicted(void)
{
    struct ls_sched s;
    struct ls_cfg c = cfg(8, 4, 0);
    ls_init(&s, &c);
    struct ls_step st = {0};
    ls_add(&s, 0, 14, 18, 0);
    int b = ls_add(&s, 1, 13, 10, 0);
    double now = 0;
    while (ls_seq_at(&s, b)->preemptions == 0)
        step(&s, &st, ++now);
    long seen_hits = -1;
    while (ls_seq_at(&s, b)->state == LS_WAITING) {
        step(&s, &st, ++now);
        const struct ls_item *it = item_of(&st, b);
        if (it) {
            CU_ASSERT_EQUAL(it->past, 0);
            CU_ASSERT_EQUAL(it->n_new, 16);
            seen_hits = st.hit_tokens;
        }
    }
    CU_ASSERT_EQUAL(seen_hits, 0);
    CU_ASSERT(s.kv.evictions >= 3); /* B's three, then some of A's once A is done */
    ls_step_free(&st);
    ls_free(&s);
}

/*
 * A shared system prompt of 8 tokens (2 blocks of 4): r0 computes it in step 1 and its blocks
 * become entries; r1 and r2, arriving after, hit both blocks (past 8, n_new 2) and hold them
 * with r0: 2 blocks in use and one fresh block each, 5 blocks where 9 would be without.
 */
static void test_shared_prefix(void)
{
    struct ls_sched s;
    struct ls_cfg c = cfg(20, 4, 8);
    ls_init(&s, &c);
    struct ls_step st = {0};
    ls_add(&s, 0, 10, 3, 0);
    step(&s, &st, 1);
    CU_ASSERT_EQUAL(st.items[0].n_new, 10);
    CU_ASSERT_EQUAL(s.kv.in_use, 2);
    int r1 = ls_add(&s, 1, 10, 3, 1), r2 = ls_add(&s, 2, 11, 3, 1);
    step(&s, &st, 2);
    for (int h = r1; h <= r2; h++) {
        const struct ls_item *it = item_of(&st, h);
        CU_ASSERT_PTR_NOT_NULL_FATAL(it);
        CU_ASSERT_EQUAL(it->past, 8);
        CU_ASSERT_EQUAL(it->n_new, h == r1 ? 2 : 3);
    }
    CU_ASSERT_EQUAL(st.hit_tokens, 16);
    CU_ASSERT_EQUAL(s.kv.in_use, 2);
    CU_ASSERT_EQUAL(s.kv.fresh, 3);
    CU_ASSERT_EQUAL(ls_used_blocks(&s), 5);
    /* A prompt of exactly the prefix: the hit stops a token short, so one block of 4 is hit
     * and the second block is computed (its last token's logits sample the first token). */
    int r3 = ls_add(&s, 3, 8, 1, 2);
    step(&s, &st, 3);
    const struct ls_item *it = item_of(&st, r3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(it);
    CU_ASSERT_EQUAL(it->past, 4);
    CU_ASSERT_EQUAL(it->n_new, 4);
    while (step(&s, &st, 4) > 0)
        ;
    /* Everything done: the prefix's blocks stay cached, nothing is held. */
    CU_ASSERT_EQUAL(ls_used_blocks(&s), 0);
    CU_ASSERT_EQUAL(s.kv.free_blocks + s.kv.cached, 20);
    ls_step_free(&st);
    ls_free(&s);
}

/* A random load with a shared prefix on a small cache: every step conserves blocks, and every
 * request completes with all its tokens. */
static void test_conservation(void)
{
    for (int chunked = 0; chunked < 2; chunked++) {
        struct ls_sched s;
        struct ls_cfg c = {40, 8, 6, 96, chunked, 1, 1, 24, 0, 0, 0};
        ls_init(&s, &c);
        struct rng r;
        rng_seed(&r, 5 + chunked);
        struct ls_step st = {0};
        int n = tu_sanitized() ? 200 : 1000, added = 0, tries = 0;
        long want = 0, got = 0, done = 0;
        double now = 0;
        while (tries < n || ls_waiting(&s) + ls_running(&s) > 0) {
            for (int k = 0; k < 2 && tries < n; k++, tries++) {
                long p = 1 + (long)(rng_uniform(&r) * 80), o = 1 + (long)(rng_uniform(&r) * 60);
                if (ls_add(&s, tries, p, o, now) >= 0)
                    added++, want += o;
            }
            if (ls_schedule(&s, &st) == 0)
                continue;
            ls_complete(&s, &st, ++now);
            ls_check(&s);
            CU_ASSERT_EQUAL(s.kv.free_blocks + s.kv.fresh + s.kv.in_use + s.kv.cached, 40);
            for (int i = 0; i < st.n; i++)
                got += st.items[i].emits, done += st.items[i].done;
        }
        CU_ASSERT_EQUAL(got, want);
        CU_ASSERT_EQUAL(done, added);
        CU_ASSERT(s.hit_tokens > 0);
        CU_ASSERT(s.preemptions > 0);
        ls_step_free(&st);
        ls_free(&s);
    }
}

/* The cache alone: entries freed last are evicted last; a hit takes an entry off the list. */
static void test_many_runs(void)
{
    /* The table keeps runs of consecutive blocks of an owner together (prefix.c, hash_key):
     * 300 owners' 37-block runs (not a multiple of the run), then evictions of the oldest half
     * by backward-shift deletion: every live key is found at its entry, no evicted one is. */
    enum { OWNERS = 300, BLOCKS = 37, N = OWNERS * BLOCKS };
    struct lpc_cache c;
    lpc_init(&c, N);
    for (long o = 0; o < OWNERS; o++)
        for (long j = 0; j < BLOCKS; j++) {
            lpc_take(&c, 1);
            CU_ASSERT_EQUAL(lpc_insert(&c, o, j, 0), 0);
        }
    lpc_check(&c, 0, 0);
    CU_ASSERT_EQUAL(lpc_available(&c), N);
    lpc_take(&c, N / 2); /* evicts the first N / 2 cached, in insertion order */
    long live = 0;
    for (long o = 0; o < OWNERS; o++)
        for (long j = 0; j < BLOCKS; j++) {
            int e = lpc_find(&c, o, j);
            int evicted = o * BLOCKS + j < N / 2;
            CU_ASSERT_EQUAL(e < 0, evicted);
            if (e >= 0) {
                CU_ASSERT(c.ent[e].owner == o && c.ent[e].idx == j);
                live++;
            }
        }
    CU_ASSERT_EQUAL(live, N - N / 2);
    CU_ASSERT_EQUAL(lpc_find(&c, LPC_SHARED, 0), -1);
    lpc_check(&c, N / 2, 0);
    lpc_put(&c, N / 2);
    lpc_free(&c);
}

static void test_lru(void)
{
    struct lpc_cache c;
    lpc_init(&c, 4);
    lpc_take(&c, 3);
    for (long j = 2; j >= 0; j--) /* a sequence frees its blocks tail first */
        CU_ASSERT_EQUAL(lpc_insert(&c, 7, j, 0), 0);
    lpc_take(&c, 1);
    CU_ASSERT_EQUAL(lpc_insert(&c, 7, 0, 0), -1); /* already an entry: stays fresh */
    lpc_put(&c, 1);
    CU_ASSERT_EQUAL(c.cached, 3);
    CU_ASSERT_EQUAL(lpc_available(&c), 4);
    lpc_acquire(&c, lpc_find(&c, 7, 0)); /* a hit on the head block */
    lpc_check(&c, 0, 1);
    lpc_take(&c, 2); /* the free block, then (7, 2), the tail */
    CU_ASSERT_EQUAL(lpc_find(&c, 7, 2), -1);
    CU_ASSERT(lpc_find(&c, 7, 1) >= 0);
    lpc_take(&c, 1);
    CU_ASSERT_EQUAL(lpc_find(&c, 7, 1), -1);
    CU_ASSERT(lpc_find(&c, 7, 0) >= 0); /* held: never evicted */
    CU_ASSERT_EQUAL(c.evictions, 2);
    lpc_check(&c, 3, 1);
    lpc_free(&c);
}

/* vLLM's capture sizes: 1, 2, 4, then by 8 to 248, then by 16; the largest for an engine is
 * min(2 × max_num_seqs, 512, max_batched_tokens), rounded down to a capture size. */
static void test_graph(void)
{
    static const int cases[][3] = {{512, 1, 1},     {512, 3, 4},     {512, 5, 8},     {512, 9, 16},
                                   {512, 249, 256}, {512, 257, 272}, {512, 512, 512}, {512, 513, 0},
                                   {4, 5, 0},       {0, 1, 0},       {96, 90, 96},    {2, 2, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CU_ASSERT_EQUAL(ls_graph_size(cases[i][0], cases[i][1]), cases[i][2]);
    CU_ASSERT_EQUAL(ls_graph_max(256, 2048), 512);
    CU_ASSERT_EQUAL(ls_graph_max(1024, 8192), 512);
    CU_ASSERT_EQUAL(ls_graph_max(4, 2048), 8);
    CU_ASSERT_EQUAL(ls_graph_max(3, 2048), 4);
    CU_ASSERT_EQUAL(ls_graph_max(200, 300), 288);
    CU_ASSERT_EQUAL(ls_graph_max(256, 100), 96);
    /* Three sequences decoding run as the batch-4 graph; the prefill step before runs eager. */
    struct ls_sched s;
    struct ls_cfg c = cfg(100, 4, 0);
    c.graph_max = ls_graph_max(c.max_num_seqs, c.max_batched_tokens);
    ls_init(&s, &c);
    struct ls_step st = {0};
    for (int k = 0; k < 3; k++)
        ls_add(&s, k, 5, 3, 0);
    step(&s, &st, 1);
    CU_ASSERT_EQUAL(st.graph_batch, 0);
    step(&s, &st, 2);
    CU_ASSERT_EQUAL(st.n, 3);
    CU_ASSERT_EQUAL(st.graph_batch, 4);
    ls_step_free(&st);
    ls_free(&s);
    c.graph_max = 0; /* enforce_eager */
    ls_init(&s, &c);
    for (int k = 0; k < 3; k++)
        ls_add(&s, k, 5, 3, 0);
    step(&s, &st, 1);
    step(&s, &st, 2);
    CU_ASSERT_EQUAL(st.graph_batch, 0);
    ls_step_free(&st);
    ls_free(&s);
}

void test_prefix_register(void)
{
    static const struct tu_test t[] = {
        {"re-admission with its blocks cached computes only the uncached tail",
         test_readmit_cached},
        {"re-admission with its blocks evicted computes everything", test_readmit_evicted},
        {"a shared prefix is computed once and held once", test_shared_prefix},
        {"random load: blocks conserved with prefix caching", test_conservation},
        {"LRU: a sequence's tail evicted first, held entries never", test_lru},
        {"many owners' runs of blocks: found after evictions", test_many_runs},
        {"CUDA-graph capture sizes and a decode step's padded batch", test_graph},
        {NULL, NULL},
    };
    tu_add_suite("prefix", t);
}
