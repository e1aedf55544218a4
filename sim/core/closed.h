/*
 * closed — the closed-loop arrival process, as benchmark clients run (`vllm bench serve
 * --max-concurrency N`, genai-perf's concurrency mode):
 *
 *   "arrival": {"process": "closed", "users": N, "think_ms": T, "think": "exponential"}
 *
 * N users each hold at most one request. At t = 0 every user sends one (no stagger, as those
 * clients start). When a request of the tenant ends — completed, rejected (queue_limit) or
 * failed — its user thinks for a time of mean T ("exponential", the default, or
 * "deterministic"; T = 0 is always no think time at all) and then sends its next request.
 * So the tenant never has more than N requests in the system, and its arrival rate is what
 * its service lets through: at most N / (T + response time).
 *
 * The users are interchangeable (a request carries no user), so the state is only the times at
 * which thinking users will send: a min-heap of at most N times. The engine's arrival heap holds
 * the earliest of them; a request's end pushes a new time, which becomes the tenant's next
 * arrival if it comes before the one already due (the engine then retimes the tenant's entry).
 *
 * The serving front end (docs/llm.md#engine-time, "frontend_serial_ms"): an LLM tenant whose
 * engine's API server handles each request's HTTP and tokenisation on one process serves the
 * loop's sends one at a time, first come first served, s seconds each. A send at a reaches the
 * engine at d = max(a, d_prev) + s (d_prev: the previous send's), so N sends at one instant
 * reach it at s, 2s, ..., Ns, and a request's arrival (what its TTFT and latency count from)
 * stays its send time a: the wait in the front end is part of its TTFT. The engine's arrival
 * heap holds d; s = 0 is the plain loop (d = a, bit for bit).
 *
 * Random numbers (why this is common random numbers as far as a closed loop allows): the work
 * (or an LLM request's tokens) of the tenant's k-th arrival is the k-th draw of the tenant's
 * own stream, drawn when the (k-1)-th arrives, exactly as for open arrivals; the think time
 * after the tenant's k-th end is the k-th draw of a second stream of the tenant's (seeded from
 * the first, as its fault stream is). Neither depends on other tenants or on the strategy, so
 * every strategy sees the same sequence of works and the same sequence of think times. What
 * the strategy changes is when requests end, hence when the next ones are sent, and so which
 * instant the k-th work arrives at: the arrival times themselves cannot be common to
 * strategies that serve at different speeds.
 */
#ifndef SS_CORE_CLOSED_H
#define SS_CORE_CLOSED_H

#include "core/scenario.h"
#include "base/jsonv.h"
#include "base/rng.h"

#include <stdint.h>

/* Users of one closed tenant: the thinking users' send times take 8 bytes each (8 MB at the
 * limit), and every user's request can be in the system at once (limits.in_system). */
#define CL_MAX_USERS 1000000L
/* Mean think time: at most 10^6 s (the clock's horizon is 2^32 s, about 4.3 x 10^9 s). */
#define CL_MAX_THINK_MS 1e9

/* Parses the "closed" arrival object at path into a (kind already set). 0, or -1 with the jv
 * message. */
int cl_parse(const struct jv *j, const cJSON *obj, const char *path, struct arrival_cfg *a);

/* A closed tenant with no think time and a queue_limit below its users: a rejected user would
 * send again at the same instant, rejected again, for ever. 0, or -1 naming tenant.queue_limit. */
int cl_check_queue(const struct jv *j, const char *tenant_path, const struct tenant_cfg *t);

struct cl_state {
    struct rng think_rng; /* the think times' stream */
    double *due;          /* min-heap of the thinking users' send times */
    long n;               /* thinking users (entries of due) */
    long users;
    double think_s;
    int think_exp;
    int scheduled;  /* due[0] is the tenant's pending arrival in the engine's arrival heap */
    double fe_s;    /* the front end's service time per request (0: none) */
    double fe_free; /* the front end has passed every earlier send by then */
    double at;      /* the pending arrival's time at the engine: max(due[0], fe_free) + fe_s */
    double sent;    /* the pending arrival's send time, due[0] */
};

/* Every user sends at t = 0; think times from a stream seeded with think_seed; a serial front
 * end of frontend_s seconds a request (0: none). */
struct cl_state *cl_new(const struct arrival_cfg *a, uint64_t think_seed, double frontend_s);
void cl_free(struct cl_state *c);

/*
 * The tenant's next arrival: the scheduled one (if any) has just arrived and is removed; then 1
 * with *t the time the earliest send left reaches the engine (now scheduled; its send time is
 * then cl_sent), or CL_PAUSED when every user has a request in the system (nothing is due until one
 * ends).
 */
#define CL_PAUSED 2
int cl_next(struct cl_state *c, double *t);
/* The pending arrival's send time: the arrival its request records (its time at the engine less
 * its wait and service in the front end). */
static inline double cl_sent(const struct cl_state *c)
{
    return c->sent;
}

/* What the engine must do after a request's end (cl_end). */
enum cl_action {
    CL_NONE,   /* the new send comes after the tenant's pending arrival */
    CL_PUSH,   /* the tenant had no pending arrival: push one at *t */
    CL_RETIME, /* the new send at *t comes before the pending arrival: move it there */
};
/* A request of the tenant ended at now: its user thinks (one draw of the think stream when the
 * think time is exponential), and will send at now + think. *t: the pending arrival's time at the
 * engine (CL_PUSH, CL_RETIME). */
enum cl_action cl_end(struct cl_state *c, double now, double *t);

/* users / (think + mean_work_s): the tenant's arrival rate if none of its requests waited, an
 * upper bound on its offered rate (the load estimates, core/stable.c). */
double cl_offered_rate(const struct arrival_cfg *a, double mean_work_s);

#endif
