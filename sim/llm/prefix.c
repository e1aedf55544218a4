/*
 * prefix — KV blocks and vLLM's block-level prefix cache (prefix.h).
 */
#include "llm/prefix.h"

#include "base/util.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void lpc_init(struct lpc_cache *c, long total)
{
    memset(c, 0, sizeof *c);
    c->total = total;
    c->free_blocks = total;
    c->lru_head = c->lru_tail = -1;
}

void lpc_free(struct lpc_cache *c)
{
    free(c->ent);
    free(c->free_ent);
    free(c->slot);
    memset(c, 0, sizeof *c);
}

long lpc_available(const struct lpc_cache *c)
{
    return c->free_blocks + c->cached;
}

/* A sequence's blocks are looked up in order (its cached run, block after block): the hash keeps
 * each run of LPC_HASH_RUN consecutive blocks of an owner in consecutive slots, so that they
 * share a cache line, and scatters the runs. */
#define LPC_HASH_RUN 8u
static unsigned hash_key(long owner, long idx)
{
    uint64_t run = (uint64_t)idx / LPC_HASH_RUN;
    uint64_t h = (uint64_t)owner * 0x9e3779b97f4a7c15ULL ^ run * 0xc2b2ae3d27d4eb4fULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    return (unsigned)(h ^ (h >> 32)) * LPC_HASH_RUN + (unsigned)((uint64_t)idx % LPC_HASH_RUN);
}

int lpc_find(const struct lpc_cache *c, long owner, long idx)
{
    if (c->cap_slot == 0)
        return -1;
    unsigned m = (unsigned)c->cap_slot - 1, h = hash_key(owner, idx);
    for (unsigned i = h & m;; i = (i + 1) & m) {
        int e = c->slot[i].e;
        if (e < 0)
            return -1;
        if (c->slot[i].h == h && c->ent[e].owner == owner && c->ent[e].idx == idx)
            return e;
    }
}

static void slot_put(struct lpc_cache *c, int e)
{
    unsigned m = (unsigned)c->cap_slot - 1, h = hash_key(c->ent[e].owner, c->ent[e].idx);
    unsigned i = h & m;
    while (c->slot[i].e >= 0)
        i = (i + 1) & m;
    c->slot[i] = (struct lpc_slot){e, h};
}

/* Keeps the table at most half full: probes stay short. */
static void slot_grow(struct lpc_cache *c)
{
    long live = c->n_ent - c->n_free_ent + 1;
    if (2 * live <= c->cap_slot)
        return;
    if (c->cap_slot >= INT_MAX / 4)
        SS_FATAL("lpc: %ld cache entries: more than the table holds", live);
    int cap = c->cap_slot ? 2 * c->cap_slot : 64;
    free(c->slot);
    c->slot = ss_xmalloc((size_t)cap * sizeof *c->slot);
    for (int i = 0; i < cap; i++)
        c->slot[i].e = -1;
    c->cap_slot = cap;
    for (int e = 0; e < c->n_ent; e++)
        if (c->ent[e].ref >= 0)
            slot_put(c, e);
}

/* Backward-shift deletion: the entries after e's slot in its probe run move up. */
static void slot_del(struct lpc_cache *c, int e)
{
    unsigned m = (unsigned)c->cap_slot - 1;
    unsigned i = hash_key(c->ent[e].owner, c->ent[e].idx) & m;
    while (c->slot[i].e != e)
        i = (i + 1) & m;
    for (unsigned j = (i + 1) & m;; j = (j + 1) & m) {
        struct lpc_slot f = c->slot[j];
        if (f.e < 0)
            break;
        unsigned home = f.h & m;
        /* f may fill the hole at i unless its home lies cyclically in (i, j]. */
        if (((j - home) & m) >= ((j - i) & m)) {
            c->slot[i] = f;
            i = j;
        }
    }
    c->slot[i].e = -1;
}

static void lru_unlink(struct lpc_cache *c, int e)
{
    struct lpc_ent *x = &c->ent[e];
    if (x->prev >= 0)
        c->ent[x->prev].next = x->next;
    else
        c->lru_head = x->next;
    if (x->next >= 0)
        c->ent[x->next].prev = x->prev;
    else
        c->lru_tail = x->prev;
    x->prev = x->next = -1;
}

static void lru_push(struct lpc_cache *c, int e)
{
    struct lpc_ent *x = &c->ent[e];
    x->prev = c->lru_tail;
    x->next = -1;
    if (c->lru_tail >= 0)
        c->ent[c->lru_tail].next = e;
    else
        c->lru_head = e;
    c->lru_tail = e;
}

void lpc_acquire(struct lpc_cache *c, int e)
{
    struct lpc_ent *x = &c->ent[e];
    if (x->ref++ == 0) {
        lru_unlink(c, e);
        c->cached--;
        c->in_use++;
    }
}

void lpc_release(struct lpc_cache *c, int e)
{
    struct lpc_ent *x = &c->ent[e];
    if (x->ref < 1)
        SS_FATAL("lpc_release: entry (%ld, %ld) is held by nobody", x->owner, x->idx);
    if (--x->ref == 0) {
        c->in_use--;
        c->cached++;
        lru_push(c, e);
    }
}

void lpc_take(struct lpc_cache *c, long n)
{
    if (n > lpc_available(c))
        SS_FATAL("lpc_take: %ld blocks, %ld available", n, lpc_available(c));
    long f = n < c->free_blocks ? n : c->free_blocks;
    c->free_blocks -= f;
    c->fresh += f;
    for (long k = f; k < n; k++) { /* evict the least recently cached */
        int e = c->lru_head;
        lru_unlink(c, e);
        slot_del(c, e);
        c->ent[e].ref = -1; /* dead */
        if (c->n_free_ent == c->cap_free_ent) {
            c->cap_free_ent = c->cap_free_ent ? 2 * c->cap_free_ent : 16;
            c->free_ent = ss_xrealloc(c->free_ent, (size_t)c->cap_free_ent * sizeof *c->free_ent);
        }
        c->free_ent[c->n_free_ent++] = e;
        c->cached--;
        c->fresh++;
        c->evictions++;
    }
}

void lpc_put(struct lpc_cache *c, long n)
{
    if (n > c->fresh)
        SS_FATAL("lpc_put: %ld blocks, %ld fresh", n, c->fresh);
    c->fresh -= n;
    c->free_blocks += n;
}

int lpc_insert(struct lpc_cache *c, long owner, long idx, long ref)
{
    if (c->fresh < 1)
        SS_FATAL("lpc_insert: no fresh block");
    if (lpc_find(c, owner, idx) >= 0)
        return -1;
    slot_grow(c);
    int e;
    if (c->n_free_ent > 0) {
        e = c->free_ent[--c->n_free_ent];
    } else {
        if (c->n_ent == c->cap_ent) {
            c->cap_ent = c->cap_ent ? 2 * c->cap_ent : 64;
            c->ent = ss_xrealloc(c->ent, (size_t)c->cap_ent * sizeof *c->ent);
        }
        e = c->n_ent++;
    }
    c->ent[e] = (struct lpc_ent){owner, idx, ref, -1, -1};
    slot_put(c, e);
    c->fresh--;
    if (ref > 0) {
        c->in_use++;
    } else {
        c->cached++;
        lru_push(c, e);
    }
    return 0;
}

void lpc_check(const struct lpc_cache *c, long fresh, long refs)
{
    long in_use = 0, cached = 0, sum = 0, lru = 0;
    for (int e = 0; e < c->n_ent; e++) {
        const struct lpc_ent *x = &c->ent[e];
        if (x->ref < 0)
            continue;
        if (lpc_find(c, x->owner, x->idx) != e)
            SS_FATAL("lpc_check: entry (%ld, %ld) not found by its key", x->owner, x->idx);
        sum += x->ref;
        if (x->ref > 0)
            in_use++;
        else
            cached++;
    }
    for (int e = c->lru_head; e >= 0; e = c->ent[e].next)
        if (c->ent[e].ref != 0 || ++lru > cached)
            SS_FATAL("lpc_check: the LRU list holds a held or repeated entry");
    if (c->free_blocks < 0 || c->free_blocks + c->fresh + c->in_use + c->cached != c->total ||
        in_use != c->in_use || cached != c->cached || lru != cached || fresh != c->fresh ||
        refs != sum)
        SS_FATAL("lpc_check: %ld free + %ld fresh + %ld in use + %ld cached != %ld blocks, or "
                 "entries %ld in use, %ld cached (%ld listed), sequences hold %ld fresh and %ld "
                 "refs against %ld",
                 c->free_blocks, c->fresh, c->in_use, c->cached, c->total, in_use, cached, lru,
                 fresh, refs, sum);
}
