/*
 * prefix — the KV cache's blocks with vLLM's block-level prefix cache (docs/llm.md#memory).
 *
 * Every block of the cache is in one of four states:
 *   free    — holds nothing (never used, or freed partly filled, or evicted);
 *   fresh   — held by one running sequence, not (yet) known to the cache by content;
 *   in use  — a cache *entry* (a full block known by its content key) that ref >= 1 running
 *             sequences hold; a shared system prompt's blocks are held by many at once;
 *   cached  — an entry that no sequence holds: still valid, evictable, least recently freed
 *             first (LRU).
 * free + fresh + in use + cached = total, always (lpc_check). A block's content key is
 * (owner, index): owner LPC_SHARED for the blocks of the tenant's shared prompt prefix, else
 * the request's own id — the content of a request's block i depends on its tokens 0..end of
 * block i, so the key stands for vLLM's chained block hash.
 *
 * Fresh blocks come from the free ones first and then by evicting the least recently cached
 * entry. vLLM keeps one free queue of both kinds, in the order they were freed; the two differ
 * only in when a partly filled freed block is reused, which is never a hit either way.
 *
 * Costs: lookups, inserts and evictions are O(1) expected (open addressing, linear probing,
 * backward-shift deletion); storage grows with the entries, at most one per block.
 */
#ifndef SS_LLM_PREFIX_H
#define SS_LLM_PREFIX_H

#define LPC_SHARED (-1L)

struct lpc_ent {
    long owner, idx; /* content key */
    long ref;        /* sequences holding it; 0: in the LRU list */
    int prev, next;  /* LRU links (entry ids, -1 none) */
};

/* A hash table slot: the entry and its key's hash, kept beside it so that probing past other
 * keys and moving them on deletion read the table alone, not the entries (a cache miss each
 * in a table of many blocks). */
struct lpc_slot {
    int e;      /* entry id, -1 empty */
    unsigned h; /* hash_key of its key */
};

struct lpc_cache {
    long total;
    long free_blocks, fresh, in_use, cached; /* the four states' counts */
    struct lpc_ent *ent;
    int n_ent, cap_ent;
    int *free_ent, n_free_ent, cap_free_ent; /* reusable entry ids */
    struct lpc_slot *slot;                   /* hash table of entries */
    int cap_slot;                            /* a power of two, or 0 */
    int lru_head, lru_tail;                  /* least and most recently cached */
    long evictions;
};

void lpc_init(struct lpc_cache *c, long total);
void lpc_free(struct lpc_cache *c);

/* Blocks a sequence can get now: free and cached (evictable). */
long lpc_available(const struct lpc_cache *c);

/* The entry of key (owner, idx), or -1. */
int lpc_find(const struct lpc_cache *c, long owner, long idx);

/* A hit: the sequence holds entry e (leaves the LRU list if nobody held it). */
void lpc_acquire(struct lpc_cache *c, int e);
/* The sequence lets entry e go: with no holder left it becomes cached, most recent. */
void lpc_release(struct lpc_cache *c, int e);

/* n fresh blocks for a sequence (free ones first, then evictions); the caller checked
 * lpc_available. */
void lpc_take(struct lpc_cache *c, long n);
/* n fresh blocks back to free (nothing cached in them). */
void lpc_put(struct lpc_cache *c, long n);

/*
 * A fresh block whose content is now complete becomes entry (owner, idx): held (ref 1, by
 * the sequence that computed it) or, ref 0, cached as the sequence frees it. 0; or -1 when
 * the key is already an entry (the block stays fresh: the caller keeps or frees it).
 */
int lpc_insert(struct lpc_cache *c, long owner, long idx, long ref);

/* Aborts (SS_FATAL) unless the four counts add up to total and match the entries; fresh and
 * refs are what the sequences hold (the scheduler's sums). For the tests. */
void lpc_check(const struct lpc_cache *c, long fresh, long refs);

#endif
