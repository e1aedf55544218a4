/*
 * tightloop — the hand-written reference `make bench` measures sharesim against (issue "Engine
 * speed at the limit"): M/M/c FIFO at the bench's mm4 case (c = 4, λ = 3600/s, mean work 1 ms,
 * ρ = 0.9), the first N arrivals then the drain, latency percentiles from a log-bucketed
 * histogram. Everything a general simulator adds is left out: one inline xoshiro256+ generator
 * (Blackman & Vigna), exponentials as −mean·log(U), a binary heap of the c departures, a FIFO
 * ring of the waiting arrivals, no events for arrivals (the next one is one variable).
 *
 * Usage: tightloop [N [SEED]]; prints one line: requests, mean, p50, p99, p999 (ms).
 * Whole-process wall time of this against `sharesim run` on the same case is the ratio
 * results/bench.md prints.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs[4];

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256+ (the float variant: the top 53 bits are used). */
static inline uint64_t next(void)
{
    uint64_t r = rs[0] + rs[3], t = rs[1] << 17;
    rs[2] ^= rs[0];
    rs[3] ^= rs[1];
    rs[1] ^= rs[2];
    rs[0] ^= rs[3];
    rs[2] ^= t;
    rs[3] = rotl(rs[3], 45);
    return r;
}

/* U in (0, 1]: log never sees 0. */
static inline double expo(double mean)
{
    return -mean * log((double)((next() >> 11) + 1) * 0x1.0p-53);
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The histogram of sim/core/stats.h: exponent and the top 7 mantissa bits. */
#define SUB 7
#define EMIN (1023 - 30)
#define EMAX (1023 + 21)
#define NB ((EMAX - EMIN) << SUB)
static uint64_t hist[NB];

static inline void hist_add(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    int e = (int)((u >> 52) & 0x7ff);
    int b = e < EMIN    ? 0
            : e >= EMAX ? NB - 1
                        : ((e - EMIN) << SUB) | (int)((u >> (52 - SUB)) & ((1 << SUB) - 1));
    hist[b]++;
}

static double quantile(uint64_t n, double p)
{
    uint64_t rank = (uint64_t)ceil(p * (double)n), acc = 0;
    for (int b = 0; b < NB; b++)
        if ((acc += hist[b]) >= rank) {
            double lo =
                ldexp(1.0 + (double)(b & ((1 << SUB) - 1)) / (1 << SUB), (b >> SUB) + EMIN - 1023);
            return lo * (1.0 + 0.5 / (1 << SUB));
        }
    return NAN;
}

struct dep {
    double t, arrival;
};

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    enum { C = 4 };
    const double ia = 1.0 / 3600.0, work = 1e-3;
    for (int i = 0; i < 4; i++)
        rs[i] = splitmix(&seed);

    struct dep heap[C];
    int nbusy = 0;
    size_t cap = 1024, head = 0, nq = 0;
    struct dep *ring = malloc(cap * sizeof *ring); /* .t = work, .arrival */
    if (!ring)
        return 1;
    double ta = expo(ia), sum = 0;
    long arrived = 0;
    uint64_t done = 0;
    while (arrived < n || nbusy > 0) {
        if (arrived < n && (nbusy == 0 || ta < heap[0].t)) {
            double now = ta, w = expo(work);
            arrived++;
            ta = now + expo(ia);
            if (nbusy < C) {
                struct dep d = {now + w, now};
                int i = nbusy++;
                while (i > 0 && d.t < heap[(i - 1) / 2].t) {
                    heap[i] = heap[(i - 1) / 2];
                    i = (i - 1) / 2;
                }
                heap[i] = d;
            } else {
                if (nq == cap) {
                    struct dep *nr = malloc(2 * cap * sizeof *nr);
                    if (!nr)
                        return 1;
                    for (size_t k = 0; k < nq; k++)
                        nr[k] = ring[(head + k) & (cap - 1)];
                    free(ring);
                    ring = nr;
                    head = 0;
                    cap *= 2;
                }
                ring[(head + nq++) & (cap - 1)] = (struct dep){w, now};
            }
            continue;
        }
        struct dep top = heap[0];
        double now = top.t, lat = now - top.arrival;
        hist_add(lat);
        sum += lat;
        done++;
        struct dep d;
        if (nq > 0) { /* the next waiting request takes this server */
            struct dep q = ring[head];
            head = (head + 1) & (cap - 1);
            nq--;
            d = (struct dep){now + q.t, q.arrival};
        } else {
            d = heap[--nbusy];
        }
        int i = 0;
        for (;;) {
            int c = 2 * i + 1;
            if (c >= nbusy)
                break;
            if (c + 1 < nbusy && heap[c + 1].t < heap[c].t)
                c++;
            if (!(heap[c].t < d.t))
                break;
            heap[i] = heap[c];
            i = c;
        }
        if (nbusy > 0)
            heap[i] = d;
    }
    free(ring);
    printf("tightloop: %llu requests, mean %.4f ms, p50 %.4f ms, p99 %.4f ms, p999 %.4f ms\n",
           (unsigned long long)done, sum / (double)done * 1e3, quantile(done, 0.5) * 1e3,
           quantile(done, 0.99) * 1e3, quantile(done, 0.999) * 1e3);
    return 0;
}
