/*
 * cl_rand — the pseudo-random generator of Go's math/rand (Go 1.0 to 1.19, rngSource),
 * reproduced so that a cluster experiment with seed S draws the same pods, the same pod
 * order and the same node ranks as the FGD simulator (Weng et al., USENIX ATC '23,
 * kubernetes-scheduler-simulator) run with seed S. Nothing else in sharesim uses it.
 *
 * The generator is the additive lagged Fibonacci generator of Mitchell and Reeds,
 * z[n] = z[n-607] + z[n-273] mod 2^64, seeded from a Park-Miller sequence XORed with a
 * fixed table ("rngCooked": the state of the same recurrence, seeded with 1 in a slightly
 * different way, after 7.8e12 steps; Go's math/rand/gen_cooked.go). We do not copy that
 * table: cl_rand_cooked() computes it once by jumping the recurrence ahead 7.8e12 steps
 * (x^N mod the characteristic polynomial, 43 squarings), tests/test_cluster.c checks it
 * against values printed by Go.
 *
 * The derived draws follow Go's math/rand.Rand methods exactly (Int63, Int, Int31n, Intn,
 * Perm, Shuffle with its 32-bit multiply-shift bound), since the reference calls those.
 */
#ifndef SS_CL_RAND_H
#define SS_CL_RAND_H

#include <stdint.h>

#define CL_RAND_LEN 607
#define CL_RAND_TAP 273

struct cl_rand {
    int tap, feed;
    uint64_t vec[CL_RAND_LEN];
};

/* The 607 seeding constants (computed on first use; the first call takes about 10 ms). */
const uint64_t *cl_rand_cooked(void);

/* Go's rand.NewSource(seed) / rand.Seed(seed). */
void cl_rand_seed(struct cl_rand *r, int64_t seed);
uint64_t cl_rand_uint64(struct cl_rand *r);
int64_t cl_rand_int63(struct cl_rand *r);
/* Go's Rand.Int() on a 64-bit platform: a non-negative int64. */
int64_t cl_rand_int(struct cl_rand *r);
/* Go's Rand.Intn(n), n > 0: uniform in [0, n). */
int64_t cl_rand_intn(struct cl_rand *r, int64_t n);
/* Go's Rand.Perm(n): out[0..n-1] a permutation of 0..n-1. */
void cl_rand_perm(struct cl_rand *r, int n, int *out);
/* Go's Rand.Shuffle(n, swap) applied to an array of n ints. */
void cl_rand_shuffle(struct cl_rand *r, int n, int *a);

#endif
