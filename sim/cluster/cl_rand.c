/*
 * cl_rand — Go's math/rand generator (see cl_rand.h for what and why).
 *
 * Sources: Go's src/math/rand/rng.go (seeding, Uint64), rand.go (Int63n, Int31n, int31n,
 * Intn, Perm, Shuffle) and gen_cooked.go (how the seeding table is defined), Go 1.19,
 * BSD-style licence. The code below is written from those definitions; the table they
 * print is recomputed here, not copied.
 */
#include "cluster/cl_rand.h"

#include <string.h>

/* Park-Miller step x' = 48271 x mod (2^31 - 1), by Schrage's method as Go writes it. */
static int32_t seedrand(int32_t x)
{
    const int32_t A = 48271, Q = 44488, R = 3399;
    int32_t hi = x / Q, lo = x % Q;
    x = A * lo - R * hi;
    if (x < 0)
        x += 2147483647;
    return x;
}

/*
 * The recurrence in sequence form. Go keeps 607 slots and two indices, feed and tap, that
 * both step down by one (mod 607) each call, feed = tap + 334; a call adds slot tap into
 * slot feed and returns it. Writing z[n] for the value returned by call n (n >= 1), slot
 * tap then holds z[n-273] and slot feed z[n-607], so z[n] = z[n-607] + z[n-273], and the
 * slot written by call n is (334 - n) mod 607; before any call slot s holds the "z[k]"
 * (k in -606..0) with (334 - k) mod 607 = s.
 */
static int slot_of(long long k)
{
    long long s = (334 - k) % CL_RAND_LEN;
    return (int)(s < 0 ? s + CL_RAND_LEN : s);
}

/* Polynomials of degree < 607 over Z/2^64, reduced mod P(x) = x^607 - x^334 - 1. */
static void polymulmod(const uint64_t *a, const uint64_t *b, uint64_t *out)
{
    static uint64_t prod[2 * CL_RAND_LEN];
    memset(prod, 0, sizeof prod);
    for (int i = 0; i < CL_RAND_LEN; i++) {
        if (!a[i])
            continue;
        for (int j = 0; j < CL_RAND_LEN; j++)
            prod[i + j] += a[i] * b[j];
    }
    /* x^(607+m) = x^(334+m) + x^m: fold the top down, highest first. */
    for (int d = 2 * CL_RAND_LEN - 2; d >= CL_RAND_LEN; d--) {
        uint64_t c = prod[d];
        if (!c)
            continue;
        prod[d] = 0;
        prod[d - CL_RAND_LEN + 334] += c;
        prod[d - CL_RAND_LEN] += c;
    }
    memcpy(out, prod, CL_RAND_LEN * sizeof *out);
}

const uint64_t *cl_rand_cooked(void)
{
    static uint64_t cooked[CL_RAND_LEN];
    static int done;
    if (done)
        return cooked;

    /* gen_cooked.go's srand(1): like Seed but with shifts 20 and 10 and no table. */
    uint64_t vec0[CL_RAND_LEN];
    int32_t x = 1;
    for (int i = -20; i < CL_RAND_LEN; i++) {
        x = seedrand(x);
        if (i >= 0) {
            /* x > 0: the shifts in unsigned arithmetic give Go's int64 bits */
            uint64_t u = (uint64_t)x << 20;
            x = seedrand(x);
            u ^= (uint64_t)x << 10;
            x = seedrand(x);
            u ^= (uint64_t)x;
            vec0[i] = u;
        }
    }
    /* w[j] = z[j - 606]: w[0..606] from the slots, then the recurrence up to w[1212]. */
    static uint64_t w[2 * CL_RAND_LEN - 1];
    for (int j = 0; j < CL_RAND_LEN; j++)
        w[j] = vec0[slot_of(j - 606)];
    for (int j = CL_RAND_LEN; j < 2 * CL_RAND_LEN - 1; j++)
        w[j] = w[j - CL_RAND_LEN] + w[j - CL_RAND_TAP];

    /* r(x) = x^N mod P, N = 7.8e12 calls: w[N + i] = sum_j r_j w[j + i]. */
    const unsigned long long N = 7800000000000ULL;
    uint64_t r[CL_RAND_LEN] = {0}, base[CL_RAND_LEN] = {0}, tmp[CL_RAND_LEN];
    r[0] = 1;
    base[1] = 1;
    for (unsigned long long e = N; e; e >>= 1) {
        if (e & 1) {
            polymulmod(r, base, tmp);
            memcpy(r, tmp, sizeof r);
        }
        if (e > 1) {
            polymulmod(base, base, tmp);
            memcpy(base, tmp, sizeof base);
        }
    }
    /* After N calls slot s holds z[k] for the k in N-606..N with slot_of(k) = s, and
     * z[N - 606 + i] = w[N + i]. */
    for (int i = 0; i < CL_RAND_LEN; i++) {
        uint64_t v = 0;
        for (int j = 0; j < CL_RAND_LEN; j++)
            v += r[j] * w[j + i];
        cooked[slot_of((long long)N - 606 + i)] = v;
    }
    done = 1;
    return cooked;
}

void cl_rand_seed(struct cl_rand *r, int64_t seed)
{
    const uint64_t *cooked = cl_rand_cooked();
    r->tap = 0;
    r->feed = CL_RAND_LEN - CL_RAND_TAP;
    seed %= 2147483647;
    if (seed < 0)
        seed += 2147483647;
    if (seed == 0)
        seed = 89482311;
    int32_t x = (int32_t)seed;
    for (int i = -20; i < CL_RAND_LEN; i++) {
        x = seedrand(x);
        if (i >= 0) {
            uint64_t u = (uint64_t)x << 40; /* Go's int64 shift wraps; so does this */
            x = seedrand(x);
            u ^= (uint64_t)x << 20;
            x = seedrand(x);
            u ^= (uint64_t)x;
            r->vec[i] = u ^ cooked[i];
        }
    }
}

uint64_t cl_rand_uint64(struct cl_rand *r)
{
    if (--r->tap < 0)
        r->tap += CL_RAND_LEN;
    if (--r->feed < 0)
        r->feed += CL_RAND_LEN;
    uint64_t x = r->vec[r->feed] + r->vec[r->tap];
    r->vec[r->feed] = x;
    return x;
}

int64_t cl_rand_int63(struct cl_rand *r)
{
    return (int64_t)(cl_rand_uint64(r) & 0x7fffffffffffffffULL);
}

int64_t cl_rand_int(struct cl_rand *r)
{
    return cl_rand_int63(r); /* uint(Int63()) << 1 >> 1 on 64 bits */
}

static int32_t int31(struct cl_rand *r)
{
    return (int32_t)(cl_rand_int63(r) >> 32);
}

/* Go's Rand.Int31n: rejection sampling on Int31. */
static int32_t int31n(struct cl_rand *r, int32_t n)
{
    if ((n & (n - 1)) == 0)
        return int31(r) & (n - 1);
    int32_t max = (int32_t)((1u << 31) - 1 - (1u << 31) % (uint32_t)n);
    int32_t v = int31(r);
    while (v > max)
        v = int31(r);
    return v % n;
}

/* Go's Rand.Int63n. */
static int64_t int63n(struct cl_rand *r, int64_t n)
{
    if ((n & (n - 1)) == 0)
        return cl_rand_int63(r) & (n - 1);
    int64_t max = (int64_t)((1ULL << 63) - 1 - (1ULL << 63) % (uint64_t)n);
    int64_t v = cl_rand_int63(r);
    while (v > max)
        v = cl_rand_int63(r);
    return v % n;
}

int64_t cl_rand_intn(struct cl_rand *r, int64_t n)
{
    if (n <= 2147483647)
        return int31n(r, (int32_t)n);
    return int63n(r, n);
}

void cl_rand_perm(struct cl_rand *r, int n, int *m)
{
    for (int i = 0; i < n; i++) {
        int j = (int)cl_rand_intn(r, i + 1);
        m[i] = m[j];
        m[j] = i;
    }
}

/* Go's unexported Rand.int31n (Lemire's multiply-shift), used by Shuffle. */
static int32_t int31n_lemire(struct cl_rand *r, int32_t n)
{
    uint32_t v = (uint32_t)(cl_rand_int63(r) >> 31);
    uint64_t prod = (uint64_t)v * (uint64_t)n;
    uint32_t low = (uint32_t)prod;
    if (low < (uint32_t)n) {
        uint32_t thresh = (uint32_t)(-n) % (uint32_t)n;
        while (low < thresh) {
            v = (uint32_t)(cl_rand_int63(r) >> 31);
            prod = (uint64_t)v * (uint64_t)n;
            low = (uint32_t)prod;
        }
    }
    return (int32_t)(prod >> 32);
}

void cl_rand_shuffle(struct cl_rand *r, int n, int *a)
{
    /* Arrays here are far below 2^31 entries, so only Go's 32-bit branch applies. */
    for (int i = n - 1; i > 0; i--) {
        int j = int31n_lemire(r, i + 1);
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
