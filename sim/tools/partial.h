/*
 * partial — the results of one shard of a pool job, in a file (`--shard I/N --partial
 * FILE`, then `--merge FILE…`; docs/distributed.md).
 *
 * For the commands whose results come back through the pool's deliver() and are
 * aggregated at the end (validate; a cluster study the same way): a batch-array task runs
 * its shard of the items and keeps each item's bytes, keyed by the item's index, in a
 * partial file; the merge reads every shard's file, hands each item's bytes to the same
 * deliver() as a single run would (after checking them), and then writes the outputs from them. The
 * outputs are therefore the same bytes as one run's. A sweep needs none of this: its point files
 * are already results keyed by index (sweep --merge copies them).
 *
 * The file is text: a header naming the job (the key: what makes results comparable, such
 * as the grid, the seed and a hash of every configuration) and the number of items, one
 * line per item in index order, "<index> <hash> <bytes in hex>", and a last line
 * "end <count>". The hash (format 2; 16 hex digits, FNV-1a 64 of the key, the index and
 * the item's bytes) covers the figures themselves, not only the inputs: an item edited,
 * cut or moved to another index is refused as damaged, naming the file, the line and the
 * item, before its bytes reach deliver(); deliver() then checks the figures (conservation,
 * ranges, no NaN) and may refuse them too. Format 1 files (no hashes) are refused with a
 * message saying so. It is written atomically. The bytes are the pool's result bytes as
 * they are in memory (validate: native doubles), so a merge must run on machines with the
 * same byte order as the shards: every cluster node of one architecture does.
 */
#ifndef SS_PARTIAL_H
#define SS_PARTIAL_H

#include "base/util.h"

#include <stddef.h>

/* Items are kept until the commit, which writes them in index order: the file is the same
 * bytes whatever order the items finished in (any --jobs, any number of ranks). */
struct part_out {
    struct ss_out o;
    long n_items;
    char *key;  /* hashed into every item's line */
    char **hex; /* per item: "<hash> <bytes in hex>", or NULL */
};

/* Opens FILE for a job (key: one line, no newline) of n_items items. 0, or -1 with a message. */
int part_open(struct part_out *p, const char *path, const char *key, long n_items, char *err,
              size_t errlen);
void part_add(struct part_out *p, long idx, const void *data, size_t len);
int part_commit(struct part_out *p, char *err, size_t errlen);
void part_abort(struct part_out *p);

/*
 * What a merge does with one item's bytes: 0, or -1 with why (what is wrong with its
 * figures, e.g. "placed -99999 is negative") when they cannot be merged.
 */
typedef int (*part_deliver_fn)(void *ctx, long idx, const void *data, size_t len, char *why,
                               size_t whylen);

/*
 * Reads a partial file written for the same key and n_items and calls deliver() with each
 * item's bytes once their hash matched. seen[n_items] marks the items read so far, across
 * files: an item in two files is an error (two shards overlapped, or a file was given twice).
 * 0, or -1 with a message naming the file, the line, the item and what is wrong.
 */
int part_read(const char *path, const char *key, long n_items, unsigned char *seen,
              part_deliver_fn deliver, void *ctx, char *err, size_t errlen);

/* The hash of an item line (exposed for tests that damage a file on purpose). */
unsigned long long part_item_hash(const char *key, long idx, const void *data, size_t len);

#endif
