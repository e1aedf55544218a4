/*
 * tracegen — a tenant's arrival stream written as a sharesim trace (`sharesim trace gen`,
 * docs/traces.md): the draws of core/tenant.h, in the order a run makes them, as rows
 * "time_s,work_ms" that a replay (io/trace.h) reads back as the very numbers drawn.
 *
 * Invariants: each number has the fewest significant digits (15 to 17) that read back
 * (time as is, work_ms / 1000) to the value drawn, else 17; the clock stops where the engine's
 * would (core/scenario.h's SCN_CLOCK_HORIZON_S, and time that no longer advances), as an
 * error, never as a file of wrong times or a loop that never ends.
 */
#ifndef SS_TRACEGEN_H
#define SS_TRACEGEN_H

#include "core/tenant.h"

#include <stdio.h>

/* When to stop: after `count` rows (0: no bound), at the first arrival at or after
 * duration_s (0: none), or where the stream ends. */
struct tg_limit {
    long long count;
    double duration_s;
};

/*
 * Writes the header and t's arrivals into fp (named `output` in a write error). Returns the
 * rows written, with *last the last arrival's time (0 when none), or -1 with the message: a
 * write error, the clock's horizon or a stalled clock, or a replayed trace that changed since
 * the scenario was loaded (ten_error).
 */
long long tg_write(FILE *fp, struct tenant_rt *t, const struct tg_limit *lim, const char *output,
                   double *last, char *err, size_t errlen);

/* v written with the fewest digits (15..17) whose value read back, divided by div, is
 * exactly target; else with 17. */
void tg_fmt_exact(char *buf, size_t n, double v, double div, double target);

#endif
