/*
 * tenant — a tenant's request stream: arrival process and work distribution.
 *
 * Each tenant owns one random stream (base/rng.h: xoshiro256**) seeded from a splitmix64
 * hash of the scenario seed, the tenant's index and the replication number. Every arrival draws its
 * gap and then its work from that stream, in that order, at the moment the
 * arrival is scheduled — independent of what any strategy does — so all
 * strategies of a run see exactly the same arrivals and work (common random
 * numbers), and adding a tenant does not change the others' streams.
 *
 * Trace arrivals (`arrival.process: "trace"`): every replication opens its own streaming
 * reader (trace.h) on the file, so memory stays constant whatever the trace's length, and every
 * replication replays the same records — the arrivals, and the work when it comes from the
 * trace (`work.dist` "tokens" or "trace"), are identical in all replications; only drawn work,
 * other tenants and faults vary. The scenario loader has already read the whole trace once
 * (ten_trace_check), so a run never meets a bad row; if the file changes between load and run
 * (a row turns bad, rows appear or vanish) the stream fails — ten_next() returns -1 and
 * ten_error() names the scenario, the tenant and the file — rather than replaying something
 * else than what was validated; the engine stops the run and hands the message up (the CLI
 * exits 2).
 */
#ifndef SS_TENANT_H
#define SS_TENANT_H

#include "core/engine.h"

#include "base/rng.h"

#include <math.h>

/*
 * An exponential variate with the given mean, from the ziggurat of base/rng.h: GSL's
 * gsl_ran_exponential (−mean·log1p(−U)) and then −mean·log(U) were each the largest single
 * cost of the M/M/4 benchmark (callgrind, docs/performance.md).
 */
static inline double ten_exp(struct rng *r, double mean)
{
    return mean * rng_exp1(r);
}

/* Seeds and prepares a tenant's run-time state and opens its trace, if it replays one.
 * scenario_file (may be NULL) is only named in the message if the trace changed since load. */
void ten_init(struct tenant_rt *t, const struct tenant_cfg *cfg, const char *scenario_file,
              uint64_t seed, int index, int rep);
void ten_free(struct tenant_rt *t);

int ten_next_general(struct tenant_rt *t, double now, double *t_next, double *work);

/*
 * Draws the tenant's next arrival after `now`: returns 1 with *t_next and *work,
 * or 0 when the stream has ended (a trace's last row, or its limit), or CL_PAUSED (2, a closed
 * loop whose users all wait for a request: *work is the next arrival's, its time comes with a
 * request's end, eng_closed_end), or -1 when it failed: the
 * replayed trace changed since the scenario was loaded (ten_error() says how; every later
 * call returns -1 too). Inline for Poisson arrivals with exponential work, the benchmarks'
 * and most scenarios' case: the same two draws, in the same order, as the general path,
 * without its two switches and a division.
 */
static inline __attribute__((always_inline)) int ten_next(struct tenant_rt *t, double now,
                                                          double *t_next, double *work)
{
    if (t->poisson_exp) { /* ten_exp twice: the gap, then the work */
        double gap, w;
        rng_exp1_pair(&t->rng, &gap, &w);
        *t_next = now + t->gap_mean_s * gap;
        *work = t->work_mean_s * w;
        return 1;
    }
    return ten_next_general(t, now, t_next, work);
}
/* The serial front end an open tenant's requests pass (an LLM engine's frontend_serial_ms, in
 * s; 0: none, and always 0 for a closed loop, which has its own, closed.h). */
double ten_frontend_serial_s(const struct tenant_cfg *cfg);

/* Why the tenant's stream failed (a whole message, naming the scenario file), or NULL. */
const char *ten_error(const struct tenant_rt *t);

/* Work of one request (for saturated tenants, which have no arrival process). */
double ten_draw_work(struct tenant_rt *t);

/*
 * The load-time pass over a trace tenant's file (arrival.kind == ARR_TRACE, header and columns
 * already checked): reads every record that will be replayed (time_scale and limit applied),
 * computes each request's work as a run will, and fills the arrival's trace_* figures.
 * 0, or -1 with the reader's "file:line:col: …" message (or a row whose work would be negative
 * or undefined; zero work is a valid request).
 */
int ten_trace_check(struct tenant_cfg *cfg, char *err, size_t errlen);

/* Mean arrival rate (per s) and mean work (s) implied by the configuration (for a trace: as
 * measured at load); NaN where not known in advance. Used by the analytic pre-checks. */
double ten_mean_rate(const struct tenant_cfg *cfg);
double ten_mean_work(const struct tenant_cfg *cfg);
/* Squared coefficient of variation of work and of inter-arrival times (NaN if unknown). */
double ten_work_scv(const struct tenant_cfg *cfg);
double ten_arrival_scv(const struct tenant_cfg *cfg);

/* 64-bit mixing (splitmix64) for deriving independent stream seeds. */
uint64_t ten_mix(uint64_t x);

#endif
