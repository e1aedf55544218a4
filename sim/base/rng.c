/*
 * rng — seeding and the GSL view of a stream (see rng.h for the generator and why).
 */
#include "base/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
    /* splitmix64's output is a bijection of its state, so four consecutive outputs are never
     * all zero (the one state xoshiro must not have). */
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

/* GSL calls these through gsl_rng_type; only the rare draws (gamma, lognormal, uniform
 * integers) take that path. get returns the top 32 bits, as GSL's 32-bit generators do:
 * every gsl_ran_* routine is written for such a range. */
static void gsl_set(void *state, unsigned long seed)
{
    rng_seed(state, (uint64_t)seed);
}

static unsigned long gsl_get(void *state)
{
    return (unsigned long)(rng_next(state) >> 32);
}

static double gsl_get_double(void *state)
{
    return rng_uniform(state);
}

static const gsl_rng_type rng_gsl_type = {
    "xoshiro256**", 0xffffffffUL, 0, sizeof(struct rng), gsl_set, gsl_get, gsl_get_double,
};

gsl_rng rng_gsl(struct rng *r)
{
    gsl_rng g = {&rng_gsl_type, r};
    return g;
}
