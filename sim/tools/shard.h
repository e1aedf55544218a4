/*
 * shard — a static partition of a command's items for batch schedulers without MPI
 * (`--shard I/N`, docs/distributed.md): shard I of N owns the items p with p mod N = I.
 *
 * Why modulo and not N contiguous blocks: neighbouring items tend to cost alike (a sweep's
 * last axis, one validate configuration's replications), so dealing them out round-robin
 * gives each shard a similar share of the cheap and the expensive ones, and the partition
 * of item p never depends on how many items there are.
 */
#ifndef SS_SHARD_H
#define SS_SHARD_H

#include <stddef.h>

#define SHARD_MAX 1000000

struct shard {
    int i, n; /* {0, 1}: every item */
};

/* "I/N" with 0 <= I < N <= SHARD_MAX. 0, or -1 with a message. */
int shard_parse(const char *s, struct shard *out, char *err, size_t errlen);

/* Whether item idx is the shard's. */
int shard_has(const struct shard *s, long idx);

#endif
