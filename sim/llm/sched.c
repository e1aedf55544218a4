/*
 * sched — vLLM's iteration-level scheduling as a state machine (sched.h).
 *
 * Costs: a step visits every running sequence once (O(running)); preemption pops from the end
 * of the running list, which holds the most recently admitted, so it is O(1) each. Storage
 * grows to the high-water mark of sequences in the system and is reused.
 */
#include "llm/sched.h"

#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Token and block counts are longs: 64-bit, as a request may hold up to TR_TOKENS_MAX (2^40)
 * tokens (docs/robustness.md#counts-and-their-bounds). */
_Static_assert(sizeof(long) >= 8, "token counts need a 64-bit long");

void ls_init(struct ls_sched *s, const struct ls_cfg *cfg)
{
    if (cfg->kv_blocks < 1 || cfg->block_size < 1 || cfg->max_num_seqs < 1 ||
        cfg->max_batched_tokens < 1)
        SS_FATAL("ls_init: blocks %ld, block size %d, seqs %d, tokens %ld: expected all >= 1",
                 cfg->kv_blocks, cfg->block_size, cfg->max_num_seqs, cfg->max_batched_tokens);
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->free_blocks = cfg->kv_blocks;
}

void ls_free(struct ls_sched *s)
{
    free(s->seq);
    free(s->free_slots);
    free(s->retired);
    free(s->wait);
    free(s->run);
    memset(s, 0, sizeof *s);
}

void ls_step_free(struct ls_step *st)
{
    free(st->items);
    memset(st, 0, sizeof *st);
}

long ls_blocks_for(const struct ls_sched *s, long n)
{
    return (n + s->cfg.block_size - 1) / s->cfg.block_size;
}

static void grow_int(int **a, int *cap, int need)
{
    if (need <= *cap)
        return;
    int c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    *a = ss_xrealloc(*a, (size_t)c * sizeof **a);
    *cap = c;
}

/* ---- the waiting ring: push at either end, pop at the front -------------- */

static void wait_grow(struct ls_sched *s)
{
    if (s->wait_n < s->wait_cap)
        return;
    int cap = s->wait_cap ? 2 * s->wait_cap : 16;
    int *w = ss_xmalloc((size_t)cap * sizeof *w);
    for (int i = 0; i < s->wait_n; i++)
        w[i] = s->wait[(s->wait_head + i) % s->wait_cap];
    free(s->wait);
    s->wait = w;
    s->wait_cap = cap;
    s->wait_head = 0;
}

static void wait_push_back(struct ls_sched *s, int h)
{
    wait_grow(s);
    s->wait[(s->wait_head + s->wait_n++) % s->wait_cap] = h;
}

static void wait_push_front(struct ls_sched *s, int h)
{
    wait_grow(s);
    s->wait_head = (s->wait_head + s->wait_cap - 1) % s->wait_cap;
    s->wait[s->wait_head] = h;
    s->wait_n++;
}

static int wait_front(const struct ls_sched *s)
{
    return s->wait[s->wait_head];
}

static void wait_pop(struct ls_sched *s)
{
    s->wait_head = (s->wait_head + 1) % s->wait_cap;
    s->wait_n--;
}

/* ---- sequences ------------------------------------------------------------ */

int ls_add(struct ls_sched *s, long id, long prompt, long output, double arrival_s)
{
    if (prompt < 1 || output < 1)
        SS_FATAL("ls_add: prompt %ld, output %ld: expected both >= 1", prompt, output);
    if (ls_blocks_for(s, prompt + output) > s->cfg.kv_blocks)
        return -1;
    if (!s->cfg.chunked_prefill && prompt + output > s->cfg.max_batched_tokens)
        return -1;
    int h;
    if (s->n_free > 0) {
        h = s->free_slots[--s->n_free];
    } else {
        if (s->n_slots == s->cap_slots) {
            s->cap_slots = s->cap_slots ? 2 * s->cap_slots : 16;
            s->seq = ss_xrealloc(s->seq, (size_t)s->cap_slots * sizeof *s->seq);
        }
        h = s->n_slots++;
    }
    s->seq[h] = (struct ls_seq){.id = id,
                                .prompt = prompt,
                                .output = output,
                                .state = LS_WAITING,
                                .arrival_s = arrival_s,
                                .first_token_s = NAN,
                                .last_token_s = NAN};
    wait_push_back(s, h);
    return h;
}

const struct ls_seq *ls_seq_at(const struct ls_sched *s, int handle)
{
    if (handle < 0 || handle >= s->n_slots)
        SS_FATAL("ls_seq_at: handle %d out of [0, %d)", handle, s->n_slots);
    return &s->seq[handle];
}

int ls_waiting(const struct ls_sched *s)
{
    return s->wait_n;
}

int ls_running(const struct ls_sched *s)
{
    return s->run_n;
}

long ls_used_blocks(const struct ls_sched *s)
{
    return s->cfg.kv_blocks - s->free_blocks;
}

static long need_of(const struct ls_seq *q)
{
    return q->prompt + q->generated - q->computed;
}

/* Sets q's blocks for n tokens in its cache; the caller checked they are free. */
static void hold(struct ls_sched *s, struct ls_seq *q, long n)
{
    long b = ls_blocks_for(s, n);
    s->free_blocks -= b - q->blocks;
    q->blocks = b;
}

/* Recompute preemption of the last running sequence: it forgets its cache and goes to the
 * front of the waiting queue. Victims are taken youngest first, so pushing each to the front
 * leaves the waiting queue in arrival order. */
static int preempt_last(struct ls_sched *s, struct ls_step *st)
{
    int h = s->run[--s->run_n];
    struct ls_seq *q = &s->seq[h];
    s->free_blocks += q->blocks;
    q->blocks = 0;
    q->computed = 0;
    q->state = LS_WAITING;
    q->preemptions++;
    s->preemptions++;
    st->preempted++;
    wait_push_front(s, h);
    return h;
}

static void add_item(struct ls_step *st, int h, long past, long n_new, int emits)
{
    if (st->n == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 16;
        st->items = ss_xrealloc(st->items, (size_t)st->cap * sizeof *st->items);
    }
    st->items[st->n++] = (struct ls_item){h, past, n_new, emits, 0, 0, NAN};
    st->tokens += n_new;
}

/*
 * Gives running sequence i up to budget tokens, preempting from the end for blocks. Returns the
 * tokens scheduled, or -1 when the sequence preempted itself.
 */
static long schedule_running(struct ls_sched *s, struct ls_step *st, int i, long budget)
{
    int h = s->run[i];
    struct ls_seq *q = &s->seq[h];
    long need = need_of(q);
    long n_new = need < budget ? need : budget;
    while (ls_blocks_for(s, q->computed + n_new) - q->blocks > s->free_blocks)
        if (preempt_last(s, st) == h)
            return -1;
    hold(s, q, q->computed + n_new);
    add_item(st, h, q->computed, n_new, n_new == need);
    return n_new;
}

/* Admits the waiting head with up to budget tokens if its blocks are free: tokens, or 0. */
static long admit_head(struct ls_sched *s, struct ls_step *st, long budget)
{
    int h = wait_front(s);
    struct ls_seq *q = &s->seq[h];
    long need = need_of(q);
    long n_new = need < budget ? need : budget;
    if (ls_blocks_for(s, n_new) > s->free_blocks)
        return 0;
    wait_pop(s);
    hold(s, q, n_new);
    q->state = LS_RUNNING;
    grow_int(&s->run, &s->run_cap, s->run_n + 1);
    s->run[s->run_n++] = h;
    add_item(st, h, 0, n_new, n_new == need);
    return n_new;
}

static void schedule_chunked(struct ls_sched *s, struct ls_step *st)
{
    long budget = s->cfg.max_batched_tokens;
    for (int i = 0; i < s->run_n && budget > 0; i++) {
        long n = schedule_running(s, st, i, budget);
        if (n < 0)
            break;
        budget -= n;
    }
    if (st->preempted)
        return;
    while (s->wait_n > 0 && s->run_n < s->cfg.max_num_seqs && budget > 0) {
        long n = admit_head(s, st, budget);
        if (n == 0)
            break;
        budget -= n;
    }
}

static void schedule_prefill_first(struct ls_sched *s, struct ls_step *st)
{
    long budget = s->cfg.max_batched_tokens;
    /* A whole prompt or nothing: admit while the head's need fits the tokens left. */
    while (s->wait_n > 0 && s->run_n < s->cfg.max_num_seqs &&
           need_of(&s->seq[wait_front(s)]) <= budget) {
        long n = admit_head(s, st, budget);
        if (n == 0)
            break;
        budget -= n;
    }
    if (st->n > 0)
        return;
    for (int i = 0; i < s->run_n; i++)
        if (schedule_running(s, st, i, 1) < 0)
            break;
}

int ls_schedule(struct ls_sched *s, struct ls_step *st)
{
    for (int i = 0; i < s->n_retired; i++) {
        grow_int(&s->free_slots, &s->cap_free, s->n_free + 1);
        s->free_slots[s->n_free++] = s->retired[i];
    }
    s->n_retired = 0;
    st->n = 0;
    st->tokens = 0;
    st->preempted = 0;
    if (s->cfg.chunked_prefill)
        schedule_chunked(s, st);
    else
        schedule_prefill_first(s, st);
    if (st->n == 0 && (s->wait_n > 0 || s->run_n > 0))
        SS_FATAL("ls_schedule: nothing scheduled with %d waiting and %d running, %ld blocks free",
                 s->wait_n, s->run_n, s->free_blocks);
    return st->n;
}

void ls_complete(struct ls_sched *s, struct ls_step *st, double now_s)
{
    int done = 0;
    for (int i = 0; i < st->n; i++) {
        struct ls_item *it = &st->items[i];
        struct ls_seq *q = &s->seq[it->seq];
        q->computed += it->n_new;
        if (!it->emits)
            continue;
        q->generated++;
        it->first = q->generated == 1;
        it->gap_s = it->first ? NAN : now_s - q->last_token_s;
        if (it->first)
            q->first_token_s = now_s;
        q->last_token_s = now_s;
        if (q->generated == q->output) {
            it->done = 1;
            q->state = LS_DONE;
            s->free_blocks += q->blocks;
            q->blocks = 0;
            done++;
        }
    }
    if (!done)
        return;
    /* Keep the running list in admission order, without the finished. */
    int k = 0;
    for (int i = 0; i < s->run_n; i++) {
        int h = s->run[i];
        if (s->seq[h].state == LS_DONE) {
            grow_int(&s->retired, &s->cap_retired, s->n_retired + 1);
            s->retired[s->n_retired++] = h;
        } else {
            s->run[k++] = h;
        }
    }
    s->run_n = k;
}

void ls_check(const struct ls_sched *s)
{
    long held = 0;
    if (s->run_n > s->cfg.max_num_seqs)
        SS_FATAL("ls_check: %d running, max_num_seqs %d", s->run_n, s->cfg.max_num_seqs);
    for (int i = 0; i < s->run_n; i++) {
        const struct ls_seq *q = &s->seq[s->run[i]];
        if (q->state != LS_RUNNING || q->blocks != ls_blocks_for(s, q->computed))
            SS_FATAL("ls_check: running seq %ld: state %d, %ld blocks for %ld computed tokens",
                     q->id, (int)q->state, q->blocks, q->computed);
        held += q->blocks;
    }
    for (int i = 0; i < s->wait_n; i++) {
        const struct ls_seq *q = &s->seq[s->wait[(s->wait_head + i) % s->wait_cap]];
        if (q->state != LS_WAITING || q->blocks != 0 || q->computed != 0)
            SS_FATAL("ls_check: waiting seq %ld: state %d, %ld blocks, %ld computed", q->id,
                     (int)q->state, q->blocks, q->computed);
    }
    if (held + s->free_blocks != s->cfg.kv_blocks)
        SS_FATAL("ls_check: %ld held + %ld free != %ld blocks", held, s->free_blocks,
                 s->cfg.kv_blocks);
}
