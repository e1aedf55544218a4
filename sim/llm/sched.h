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
 *  - otherwise prefill first (vLLM's V0 default): waiting sequences are admitted whole while
 *    the seqs, token and block limits allow; a step with admissions is a prefill-only step.
 *    Only when none is admitted do the running sequences decode, one token each.
 * A running sequence that needs a block when none is free preempts the most recently
 * admitted running sequence (possibly itself) by recompute; the preempted go back to the
 * front of the waiting queue, in arrival order.
 *
 * Invariants (checked by ls_check, which the tests call after every step): free + held
 * blocks = kv_blocks; every running sequence holds ⌈computed / block_size⌉ blocks after a
 * step, a waiting one none; at most max_num_seqs run; a step's tokens ≤ max_batched_tokens.
 * A request that could never run — its prompt and output need more blocks than the whole
 * cache, or, without chunked prefill, more tokens than max_batched_tokens (vLLM requires
 * max_num_batched_tokens ≥ max_model_len there) — is refused by ls_add.
 */
#ifndef SS_LLM_SCHED_H
#define SS_LLM_SCHED_H

#include <stddef.h>

struct ls_cfg {
    long kv_blocks;          /* blocks in the cache, >= 1 */
    int block_size;          /* tokens per block, >= 1 (vLLM: 16) */
    int max_num_seqs;        /* running sequences at most, >= 1 */
    long max_batched_tokens; /* tokens in one step at most, >= 1 */
    int chunked_prefill;
};

enum ls_state { LS_WAITING, LS_RUNNING, LS_DONE };

struct ls_seq {
    long id;     /* the caller's */
    long prompt; /* input tokens, >= 1 */
    long output; /* output tokens to generate, >= 1 */
    long generated, computed, blocks;
    long preemptions;
    enum ls_state state;
    double arrival_s, first_token_s, last_token_s;
};

/* One sequence's part in a step. ls_complete fills the last three. */
struct ls_item {
    int seq;      /* handle (ls_seq_at) */
    long past;    /* tokens already in its KV cache */
    long n_new;   /* tokens computed in this step */
    int emits;    /* it samples a token at the end of the step */
    int first;    /* ... and that token is its first */
    int done;     /* ... and its last: the request is complete */
    double gap_s; /* time since its previous token (not for a first token) */
};

struct ls_step {
    int n, cap;
    struct ls_item *items;
    long tokens;   /* Σ n_new */
    int preempted; /* sequences preempted while building it */
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
    long free_blocks;
    long preemptions; /* all preemptions so far */
};

void ls_init(struct ls_sched *s, const struct ls_cfg *cfg);
void ls_free(struct ls_sched *s);

/* Blocks a sequence of n tokens holds. */
long ls_blocks_for(const struct ls_sched *s, long n);

/* Queues a request (prompt, output >= 1) that arrived at arrival_s: its handle, or -1 when it
 * could never run (see the top) and is refused. */
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
long ls_used_blocks(const struct ls_sched *s);

/* Aborts (SS_FATAL) when an invariant above is broken; for the tests. */
void ls_check(const struct ls_sched *s);

void ls_step_free(struct ls_step *st);

#endif
