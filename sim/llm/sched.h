/*
 * sched — the iteration-level scheduler of a serving engine, as vLLM does it
 * (docs/llm.md#scheduler): a pure state machine, driven by its caller one step at a time,
 * that knows nothing of time except the stamps it is given.
 *
 * Sequences hold KV-cache blocks of block_size tokens; a sequence with n tokens in the cache
 * holds ⌈n / block_size⌉ blocks. A sequence's *need* is the tokens it has but whose KV is not
 * computed: its prompt and every token generated so far, less those computed. A step gives
 * each scheduled sequence n_new ≤ need tokens; one that catches up (n_new = need) samples a
 * token at the end of the step. So a fresh request's prefill ends with its first token, a
 * decode step computes the last token's KV and samples the next, and a sequence preempted by
 * recompute (its blocks freed, computed = 0) re-prefills prompt and output so far and then
 * samples its next token — one rule for all three.
 *
 * ls_schedule builds the next step, first come first served:
 *  - chunked_prefill: the running sequences in admission order, each min(need, tokens left
 *    of max_batched_tokens); then, if no sequence was preempted in this step, waiting ones in
 *    arrival order while fewer than max_num_seqs run, tokens are left and the KV blocks for
 *    their chunk are free (vLLM's V1 scheduler).
 *  - unchunked and not prefill_first (vLLM V1 with chunking off, TensorRT-LLM's in-flight
 *    batching without chunked context): the running sequences decode, one token each, and
 *    waiting ones are admitted whole into the same step while their prompt fits the tokens
 *    left (a prompt is never split).
 *  - prefill_first (vLLM's V0 default): waiting sequences are admitted whole while the seqs,
 *    token and block limits allow; a step with admissions is a prefill-only step. Only when
 *    none is admitted do the running sequences decode, one token each.
 * With no_evict (TensorRT-LLM's default capacity policy, GUARANTEED_NO_EVICT), in every mode a
 * waiting request is admitted only if the blocks for its whole prompt and output fit beside
 * the reservations of the running ones: Σ over running q of (⌈(prompt + output) / block_size⌉
 * less q's cache entries) + the cache's entries in use + the new one's ≤ kv_blocks. The first
 * request that does not fit stops admission (FCFS); a running sequence never lacks a block.
 * A running sequence that needs a block when none is free preempts the most recently
 * admitted running sequence (possibly itself) by recompute; the preempted go back to the
 * front of the waiting queue, in arrival order.
 *
 * With prefix_caching (vLLM V1's default) the blocks live in a prefix cache (llm/prefix.h): a
 * sequence's full blocks stay cached when it frees them (finished or preempted) until they are
 * evicted, the blocks of the tenant's shared prompt prefix (its first shared_prefix tokens,
 * whole blocks only) are cached as soon as they are computed and shared by every sequence that
 * holds them, and a sequence admitted (or re-admitted after a preemption) starts with the
 * longest run of its leading blocks that is cached: computed = hits × block_size, and only the
 * rest is computed, in n_new. As in vLLM the hit stops one token short of the sequence's
 * tokens, so a step always computes at least the last one (whose logits sample the next).
 *
 * Invariants (checked by ls_check, which the tests call after every step): free + fresh + in
 * use + cached blocks = kv_blocks, the sequences' fresh blocks and cache references are the
 * cache's; every running sequence holds ⌈computed / block_size⌉ blocks after a step (its first
 * `ent` of them cache entries), a waiting one none; at most max_num_seqs run; a step's tokens
 * ≤ max_batched_tokens.
 * A request that could never run — its prompt and output need more blocks than the whole
 * cache, or, without chunked prefill, more tokens than max_batched_tokens (vLLM requires
 * max_num_batched_tokens ≥ max_model_len there) — is refused by ls_add.
 */
#ifndef SS_LLM_SCHED_H
#define SS_LLM_SCHED_H

#include "llm/prefix.h"

#include <stddef.h>

struct ls_cfg {
    long kv_blocks;          /* blocks in the cache, >= 1 */
    int block_size;          /* tokens per block, >= 1 (vLLM: 16) */
    int max_num_seqs;        /* running sequences at most, >= 1 */
    long max_batched_tokens; /* tokens in one step at most, >= 1 */
    int chunked_prefill;
    int prefill_first; /* without chunked_prefill: V0's prefill-only steps (above) */
    int prefix_caching;
    long shared_prefix; /* prompt tokens every request of the tenant shares (0: none) */
    int graph_max;      /* largest CUDA-graph capture size for decode; 0: eager (ls_graph_size) */
    int prefill_only;   /* embedding and reranking models: a request has no output tokens and
                         * completes at the end of the step that computes its prompt's last
                         * token (that step "emits" its result: first = done) */
    int no_evict;       /* TensorRT-LLM's GUARANTEED_NO_EVICT capacity policy (above): admit a
                         * request only if the blocks for its whole prompt and output can be
                         * reserved; nothing is ever preempted */
};

enum ls_state { LS_WAITING, LS_RUNNING, LS_DONE };

struct ls_seq {
    long id;     /* the caller's */
    long prompt; /* input tokens, >= 1 */
    long output; /* output tokens to generate, >= 1 */
    long generated, computed, blocks;
    long ent;        /* of its blocks, the leading ones that are cache entries */
    long hit_tokens; /* tokens found cached at its admissions, all of them */
    long preemptions;
    enum ls_state state;
    double arrival_s, first_token_s, last_token_s;
};

/* One sequence's part in a step. ls_complete fills the last three. */
struct ls_item {
    int seq;      /* handle (ls_seq_at) */
    long past;    /* tokens already in its KV cache (prefix-cache hits included) */
    long n_new;   /* tokens computed in this step */
    int emits;    /* it samples a token at the end of the step */
    int first;    /* ... and that token is its first */
    int done;     /* ... and its last: the request is complete */
    double gap_s; /* time since its previous token (not for a first token) */
};

struct ls_step {
    int n, cap;
    struct ls_item *items;
    long tokens;     /* Σ n_new */
    int preempted;   /* sequences preempted while building it */
    long hit_tokens; /* tokens its admissions found in the prefix cache (in past, not n_new) */
    int graph_batch; /* a pure-decode step (every n_new = 1) of n ≤ graph_max sequences runs
                      * as the CUDA graph captured for the next capture size ≥ n: that size,
                      * the batch the GPU computes (padded with dummy sequences); 0 when the
                      * step runs eagerly — it has a prefill chunk, more sequences than the
                      * largest capture size, or the engine has no graphs. vLLM v0.11's
                      * FULL_AND_PIECEWISE mode: full graphs for decode only. */
};

struct ls_sched {
    struct ls_cfg cfg;
    struct ls_seq *seq; /* slots; handles index it */
    int n_slots, cap_slots;
    int *free_slots, n_free, cap_free;    /* reusable slots */
    int *retired, n_retired, cap_retired; /* done in the last step: freed at ls_schedule */
    int *wait;                            /* ring of handles, FCFS */
    int wait_head, wait_n, wait_cap;
    int *run; /* handles in admission order */
    int run_n, run_cap;
    struct lpc_cache kv; /* the blocks (with prefix_caching off, never an entry) */
    long unreserved;     /* no_evict: blocks no running sequence has reserved, while a step's
                          * admissions are built (reserve_start) */
    long preemptions;    /* all preemptions so far */
    long hit_tokens;     /* prefix-cache hits so far, in tokens */
};

void ls_init(struct ls_sched *s, const struct ls_cfg *cfg);
void ls_free(struct ls_sched *s);

/* Blocks a sequence of n tokens holds. */
long ls_blocks_for(const struct ls_sched *s, long n);

/* The CUDA-graph batch a pure-decode step of n sequences runs as, with graphs captured up to
 * max (vLLM's default capture sizes 1, 2, 4, 8, 16, …, 248 by 8, 256, 272, … by 16): the
 * smallest capture size ≥ n, or 0 when n exceeds the largest ≤ max. */
int ls_graph_size(int max, int n);

/* The largest capture size vLLM v0.11 captures for an engine of max_num_seqs and
 * max_batched_tokens: the largest size ≤ min(2 × max_num_seqs, 512, max_batched_tokens). */
int ls_graph_max(int max_num_seqs, long max_batched_tokens);

/* Queues a request (prompt, output >= 1) that arrived at arrival_s: its handle, or -1 when it
 * could never run (see the top) and is refused. With prefill_only, output is ignored (0). */
int ls_add(struct ls_sched *s, long id, long prompt, long output, double arrival_s);

/* Builds the next step into st (reusing its items): the number of sequences in it; 0 only
 * when no sequence is waiting or running. */
int ls_schedule(struct ls_sched *s, struct ls_step *st);

/* The step st ended at now_s: computed tokens advance, tokens are sampled (items' emits,
 * first, done, gap_s), finished sequences free their blocks and leave. Their slots stay
 * readable through ls_seq_at until the next ls_schedule. */
void ls_complete(struct ls_sched *s, struct ls_step *st, double now_s);

const struct ls_seq *ls_seq_at(const struct ls_sched *s, int handle);
int ls_waiting(const struct ls_sched *s);
int ls_running(const struct ls_sched *s);
/* Blocks held by running sequences (fresh or in use); cached blocks count as free, as in
 * vLLM's KV usage. */
long ls_used_blocks(const struct ls_sched *s);

/* Aborts (SS_FATAL) when an invariant above is broken; for the tests. */
void ls_check(const struct ls_sched *s);

void ls_step_free(struct ls_step *st);

#endif
