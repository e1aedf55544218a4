/*
 * sched — vLLM's iteration-level scheduling as a state machine (sched.h), with TensorRT-LLM's
 * no-evict capacity policy as an option.
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
    if (cfg->shared_prefix < 0 || cfg->graph_max < 0)
        SS_FATAL("ls_init: shared prefix %ld, graph_max %d: expected >= 0", cfg->shared_prefix,
                 cfg->graph_max);
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    lpc_init(&s->kv, cfg->kv_blocks);
}

void ls_free(struct ls_sched *s)
{
    free(s->seq);
    free(s->free_slots);
    free(s->retired);
    free(s->wait);
    free(s->run);
    lpc_free(&s->kv);
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

int ls_graph_size(int max, int n)
{
    if (n < 1 || n > max)
        return 0;
    int g = n <= 2 ? n : n <= 4 ? 4 : n < 256 ? (n + 7) / 8 * 8 : 256 + (n - 256 + 15) / 16 * 16;
    return g <= max ? g : 0;
}

int ls_graph_max(int max_num_seqs, long max_batched_tokens)
{
    long m = 2L * max_num_seqs;
    if (m > 512)
        m = 512;
    if (m > max_batched_tokens)
        m = max_batched_tokens;
    /* The largest capture size not above m. */
    return m >= 256 ? 256 + (int)(m - 256) / 16 * 16
           : m >= 8 ? (int)m / 8 * 8
           : m >= 4 ? 4
                    : (int)m;
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
    if (s->cfg.prefill_only)
        output = 0; /* its prefill is the whole request */
    else if (output < 1)
        output = -1; /* refused below */
    if (prompt < 1 || output < 0)
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
    return s->kv.fresh + s->kv.in_use;
}

static long need_of(const struct ls_seq *q)
{
    return q->prompt + q->generated - q->computed;
}

/* Block j of q's content key: the shared prompt's blocks are the tenant's, the rest its own. */
static long key_owner(const struct ls_sched *s, const struct ls_seq *q, long j)
{
    long shared = q->prompt < s->cfg.shared_prefix ? q->prompt : s->cfg.shared_prefix;
    return (j + 1) * s->cfg.block_size <= shared ? LPC_SHARED : q->id;
}

/* Sets q's blocks for n tokens in its cache; the caller checked they are available. */
static void hold(struct ls_sched *s, struct ls_seq *q, long n)
{
    long b = ls_blocks_for(s, n);
    lpc_take(&s->kv, b - q->blocks);
    q->blocks = b;
}

/* q lets its blocks go, last first (vLLM frees in reverse so that a sequence's tail is evicted
 * before its head): entries are released, and with prefix caching its other full blocks are
 * cached under their keys; the rest are free. */
static void release(struct ls_sched *s, struct ls_seq *q)
{
    long full = q->computed / s->cfg.block_size;
    for (long j = q->blocks - 1; j >= 0; j--) {
        long owner = key_owner(s, q, j);
        if (j < q->ent)
            lpc_release(&s->kv, lpc_find(&s->kv, owner, j));
        else if (!s->cfg.prefix_caching || j >= full || lpc_insert(&s->kv, owner, j, 0))
            lpc_put(&s->kv, 1);
    }
    q->blocks = 0;
    q->ent = 0;
}

/* The cached run of q's leading blocks (q waiting, nothing computed): into *hits, and into
 * *idle how many of them nobody holds (taking them makes them unavailable to others). */
static void lookup(const struct ls_sched *s, const struct ls_seq *q, long *hits, long *idle)
{
    *hits = *idle = 0;
    if (!s->cfg.prefix_caching)
        return;
    long max = (q->prompt + q->generated - 1) / s->cfg.block_size;
    for (long j = 0; j < max; j++) {
        int e = lpc_find(&s->kv, key_owner(s, q, j), j);
        if (e < 0)
            break;
        ++*hits;
        *idle += s->kv.ent[e].ref == 0;
    }
}

/* After a step: the shared prompt's blocks q completed become entries others can hit. */
static void publish(struct ls_sched *s, struct ls_seq *q)
{
    if (!s->cfg.prefix_caching)
        return;
    long full = q->computed / s->cfg.block_size;
    while (q->ent < full && key_owner(s, q, q->ent) == LPC_SHARED &&
           lpc_insert(&s->kv, LPC_SHARED, q->ent, 1) == 0)
        q->ent++;
}

/* Recompute preemption of the last running sequence: it forgets its cache and goes to the
 * front of the waiting queue. Victims are taken youngest first, so pushing each to the front
 * leaves the waiting queue in arrival order. */
static int preempt_last(struct ls_sched *s, struct ls_step *st)
{
    int h = s->run[--s->run_n];
    struct ls_seq *q = &s->seq[h];
    release(s, q);
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
    while (ls_blocks_for(s, q->computed + n_new) - q->blocks > lpc_available(&s->kv))
        if (preempt_last(s, st) == h)
            return -1;
    hold(s, q, q->computed + n_new);
    add_item(st, h, q->computed, n_new, n_new == need);
    return n_new;
}

/* The waiting head's tokens to compute: its need less what the prefix cache holds. */
static long head_need(const struct ls_sched *s)
{
    const struct ls_seq *q = &s->seq[wait_front(s)];
    long hits, idle;
    lookup(s, q, &hits, &idle);
    return need_of(q) - hits * s->cfg.block_size;
}

/* The blocks a sequence may hold by its end, less those it holds as cache entries (counted
 * once, in the cache's in_use): its reservation under no_evict. */
static long reservation(const struct ls_sched *s, const struct ls_seq *q, long ent)
{
    return ls_blocks_for(s, q->prompt + q->output) - ent;
}

/* no_evict: what the running sequences have not reserved, before this step's admissions. The
 * sum is O(running), once a step, as the step itself is. */
static void reserve_start(struct ls_sched *s)
{
    if (!s->cfg.no_evict)
        return;
    long r = s->kv.in_use;
    for (int i = 0; i < s->run_n; i++)
        r += reservation(s, &s->seq[s->run[i]], s->seq[s->run[i]].ent);
    s->unreserved = s->cfg.kv_blocks - r;
}

/* Admits the waiting head with up to budget tokens if the blocks for them are available after
 * its cache hits (and, under no_evict, its whole length's can be reserved): tokens, or 0. */
static long admit_head(struct ls_sched *s, struct ls_step *st, long budget)
{
    int h = wait_front(s);
    struct ls_seq *q = &s->seq[h];
    long hits, idle;
    lookup(s, q, &hits, &idle);
    long past = hits * s->cfg.block_size, need = need_of(q) - past;
    long n_new = need < budget ? need : budget;
    if (ls_blocks_for(s, past + n_new) - hits > lpc_available(&s->kv) - idle)
        return 0;
    /* Its idle hits become entries in use, so they join the reserved. */
    long reserve = reservation(s, q, hits) + idle;
    if (s->cfg.no_evict && reserve > s->unreserved)
        return 0;
    if (s->cfg.no_evict)
        s->unreserved -= reserve;
    wait_pop(s);
    for (long j = 0; j < hits; j++)
        lpc_acquire(&s->kv, lpc_find(&s->kv, key_owner(s, q, j), j));
    q->blocks = q->ent = hits;
    q->computed = past;
    q->hit_tokens += past;
    s->hit_tokens += past;
    st->hit_tokens += past;
    hold(s, q, past + n_new);
    q->state = LS_RUNNING;
    grow_int(&s->run, &s->run_cap, s->run_n + 1);
    s->run[s->run_n++] = h;
    add_item(st, h, past, n_new, n_new == need);
    return n_new;
}

/* The running sequences first, in admission order, each up to the tokens it needs; then, if
 * none was preempted, waiting ones in arrival order into what the budget leaves — a chunk of
 * any size (chunked prefill), or only a whole prompt (whole: vLLM V1 without chunking,
 * TensorRT-LLM's in-flight batching). */
static void schedule_running_first(struct ls_sched *s, struct ls_step *st, int whole)
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
    reserve_start(s);
    while (s->wait_n > 0 && s->run_n < s->cfg.max_num_seqs && budget > 0 &&
           (!whole || head_need(s) <= budget)) {
        long n = admit_head(s, st, budget);
        if (n == 0)
            break;
        budget -= n;
    }
}

static void schedule_prefill_first(struct ls_sched *s, struct ls_step *st)
{
    long budget = s->cfg.max_batched_tokens;
    reserve_start(s);
    /* A whole prompt or nothing: admit while the head's need fits the tokens left. */
    while (s->wait_n > 0 && s->run_n < s->cfg.max_num_seqs && head_need(s) <= budget) {
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
    st->hit_tokens = 0;
    st->graph_batch = 0;
    if (!s->cfg.chunked_prefill && s->cfg.prefill_first)
        schedule_prefill_first(s, st);
    else
        schedule_running_first(s, st, !s->cfg.chunked_prefill);
    if (st->n == 0 && (s->wait_n > 0 || s->run_n > 0))
        SS_FATAL("ls_schedule: nothing scheduled with %d waiting and %d running, %ld blocks "
                 "available",
                 s->wait_n, s->run_n, lpc_available(&s->kv));
    if (st->tokens == st->n) /* every sequence computes one token: a uniform decode batch */
        st->graph_batch = ls_graph_size(s->cfg.graph_max, st->n);
    return st->n;
}

void ls_complete(struct ls_sched *s, struct ls_step *st, double now_s)
{
    int done = 0;
    for (int i = 0; i < st->n; i++) {
        struct ls_item *it = &st->items[i];
        struct ls_seq *q = &s->seq[it->seq];
        q->computed += it->n_new;
        publish(s, q);
        if (!it->emits)
            continue;
        q->generated++;
        it->first = q->generated == 1;
        it->gap_s = it->first ? NAN : now_s - q->last_token_s;
        if (it->first)
            q->first_token_s = now_s;
        q->last_token_s = now_s;
        if (q->generated == q->output || q->output == 0) {
            it->done = 1;
            q->state = LS_DONE;
            release(s, q);
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
    long fresh = 0, refs = 0;
    if (s->run_n > s->cfg.max_num_seqs)
        SS_FATAL("ls_check: %d running, max_num_seqs %d", s->run_n, s->cfg.max_num_seqs);
    for (int i = 0; i < s->run_n; i++) {
        const struct ls_seq *q = &s->seq[s->run[i]];
        if (q->state != LS_RUNNING || q->blocks != ls_blocks_for(s, q->computed) || q->ent < 0 ||
            q->ent > q->blocks)
            SS_FATAL("ls_check: running seq %ld: state %d, %ld blocks (%ld entries) for %ld "
                     "computed tokens",
                     q->id, (int)q->state, q->blocks, q->ent, q->computed);
        for (long j = 0; j < q->ent; j++)
            if (lpc_find(&s->kv, key_owner(s, q, j), j) < 0)
                SS_FATAL("ls_check: running seq %ld: its block %ld is no cache entry", q->id, j);
        fresh += q->blocks - q->ent;
        refs += q->ent;
    }
    for (int i = 0; i < s->wait_n; i++) {
        const struct ls_seq *q = &s->seq[s->wait[(s->wait_head + i) % s->wait_cap]];
        if (q->state != LS_WAITING || q->blocks != 0 || q->ent != 0 || q->computed != 0)
            SS_FATAL("ls_check: waiting seq %ld: state %d, %ld blocks, %ld computed", q->id,
                     (int)q->state, q->blocks, q->computed);
    }
    lpc_check(&s->kv, fresh, refs);
}
