/*
 * rng — the simulator's random numbers: xoshiro256** (Blackman & Vigna), inline.
 *
 * Why this generator: it is the one its authors recommend for general 64-bit use ("Scrambled
 * linear pseudorandom number generators", ACM TOMS 47(4), 2021, and prng.di.unimi.it): it
 * passes TestU01's BigCrush and PractRand up to 32 TB with no systematic failure, in every bit
 * (unlike xoshiro256+, whose lowest bits fail linearity tests, or mt19937, which fails
 * BigCrush's LinearComp). Its 2^256 − 1 period leaves room for any number of streams seeded
 * far apart, and a step is a handful of shifts, xors and two multiply-by-constants on 32 bytes
 * of state, so inlined it costs a few cycles — GSL's mt19937 behind gsl_rng's function
 * pointers cost ~55 instructions a draw (callgrind, docs/performance.md).
 *
 * Seeding (rng_seed): the four state words are the first four outputs of splitmix64 started
 * at the 64-bit seed, as the authors advise (a seed with few bits set still gives a
 * well-mixed state; the state can never be all zero). Streams of different tenants and
 * replications come from different seeds hashed by the caller (tenant.c), so any two are
 * random, non-overlapping-with-overwhelming-probability windows of the 2^256 cycle.
 *
 * Exponential variates (rng_exp) come from a 256-layer ziggurat (rng_exp.c explains it and
 * why it is exact): one generator step, a table load and a compare 97.8 % of the time, where
 * −log(U) costs a call to glibc's log (~90 instructions).
 *
 * Draws that sharesim does not implement itself (gamma, lognormal, uniform integers) go
 * through GSL: rng_gsl() wraps a stream as a gsl_rng (type "xoshiro256**") without copying
 * it, so gsl_ran_* draw from the same stream.
 */
#ifndef SS_RNG_H
#define SS_RNG_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

struct rng {
    uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);

/* A gsl_rng drawing from *r (no copy: *r must outlive it). */
gsl_rng rng_gsl(struct rng *r);

static inline uint64_t rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return out;
}

/* Uniform on [0, 1): the top 53 bits, every double of the form k·2^-53. */
static inline double rng_uniform(struct rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform on (0, 1]: safe to take the log of. */
static inline double rng_uniform_pos(struct rng *r)
{
    return (double)((rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

/* The exponential ziggurat (rng_exp.c). */
#define RNG_ZIG_R 7.69711747013104972
extern const uint64_t rng_zig_k[256];
extern const double rng_zig_w[256], rng_zig_f[256];
double rng_exp1_slow(struct rng *r, unsigned i, uint64_t j);

/* Exponential with mean 1: bits 0-7 pick the layer, bits 11-63 the point in it. */
static inline double rng_exp1(struct rng *r)
{
    uint64_t u = rng_next(r), j = u >> 11;
    unsigned i = (unsigned)(u & 0xff);
    if (j < rng_zig_k[i])
        return (double)j * rng_zig_w[i];
    return rng_exp1_slow(r, i, j);
}

/* One xoshiro256** step on a state held in locals (rng_exp1_pair). */
static inline uint64_t rng_next_in(uint64_t *s0, uint64_t *s1, uint64_t *s2, uint64_t *s3)
{
    uint64_t out = rng_rotl(*s1 * 5, 7) * 9, t = *s1 << 17;
    *s2 ^= *s0;
    *s3 ^= *s1;
    *s1 ^= *s2;
    *s0 ^= *s3;
    *s2 ^= t;
    *s3 = rng_rotl(*s3, 45);
    return out;
}

/* Two rng_exp1() in a row, the same values in the same order: the state stays in registers
 * between them and is stored once, unless a draw leaves the fast path (rng_exp1_slow draws more
 * from the stream in memory). A Poisson tenant draws its gap and its work so at every arrival. */
static inline __attribute__((always_inline)) void rng_exp1_pair(struct rng *r, double *x1,
                                                                double *x2)
{
    uint64_t s0 = r->s[0], s1 = r->s[1], s2 = r->s[2], s3 = r->s[3];
    uint64_t u = rng_next_in(&s0, &s1, &s2, &s3), j = u >> 11;
    unsigned i = (unsigned)(u & 0xff);
    if (j < rng_zig_k[i]) {
        *x1 = (double)j * rng_zig_w[i];
    } else {
        r->s[0] = s0, r->s[1] = s1, r->s[2] = s2, r->s[3] = s3;
        *x1 = rng_exp1_slow(r, i, j);
        s0 = r->s[0], s1 = r->s[1], s2 = r->s[2], s3 = r->s[3];
    }
    u = rng_next_in(&s0, &s1, &s2, &s3), j = u >> 11;
    i = (unsigned)(u & 0xff);
    r->s[0] = s0, r->s[1] = s1, r->s[2] = s2, r->s[3] = s3;
    *x2 = j < rng_zig_k[i] ? (double)j * rng_zig_w[i] : rng_exp1_slow(r, i, j);
}

#endif
