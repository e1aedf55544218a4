/*
 * fracunit — one GPU shared the way the Kubernetes vGPU schedulers share it (HAMi, and
 * KAI-Scheduler with HAMi's isolator; docs/mps-vgpu.md#fractional-gpus): each client is a
 * process with a compute percentage, its kernels time-sliced by the driver with the others',
 * and a limiter inside the process that stops launching kernels once the process has used
 * its percentage of the GPU in the current time window. Prefix fu_.
 *
 * Model, per GPU:
 * - The busy, unthrottled clients share the GPU equally (processor sharing: the driver's
 *   time slices are short against the windows); with n of them each runs at speed 1/n.
 * - Time is cut into windows of window_s, aligned on t = 0. A limited client may do at most
 *   core × window_s of work (whole-GPU seconds) per window; having done it, it is throttled
 *   until the window ends: its request waits and the GPU goes to the others, or idles (the
 *   limit is a cap, not a share: it is not work-conserving).
 * - A client whose limit is not enforced (HAMi's lone-pod rule, or the policy "disable") is
 *   never throttled.
 * Each client serves one request at a time, FIFO from its tenant's queue.
 *
 * Invariants: t_acct is the time up to which work, budgets and busy time are charged; the
 * one pending "next" event (a completion, a budget spent, a window end) carries `version`;
 * a limited busy client always has a window-end event at or before win_end.
 *
 * The clock (docs/robustness.md#the-clock): window w is [w, w + 1) × window_s, its end
 * computed from the integer w each time, never accumulated, and a window-end event is
 * scheduled at that exact time, so the roll-over at it cannot be lost to rounding at any
 * simulated time. A completion or budget-spent event names its client (next_k, next_what) and
 * settles it when it fires, whatever rounding left of its work: every event makes progress
 * (at 10^6 s a double resolves only 1.2e-10 s, far more than the work a subtraction leaves).
 */
#ifndef SS_FRACUNIT_H
#define SS_FRACUNIT_H

#include "core/engine.h"
#include "policy/units/unit.h"

struct fu_client {
    int tenant;
    double core;   /* fraction of the GPU per window */
    int limited;   /* the core limit is enforced */
    double budget; /* work it may still do in the current window (limited only) */
    int busy;
    struct request req;
};

struct fu_unit {
    struct unit_addr ev;
    int n;
    struct fu_client *cli;
    double window_s;
    long long win_idx; /* the window budgets were last reset for */
    double win_end;    /* its end, (win_idx + 1) × window_s */
    int next_k;        /* the client the pending event settles, or -1 (a window end) */
    int next_what;     /* what it settles: FU_NEXT_DONE or FU_NEXT_SPENT (fracunit.c) */
    double t_acct;
    double tol; /* work below which a request or budget is spent, at t_acct (fracunit.c) */
    uint32_t version;
    double busy_s;     /* inside the measurement window, with a client running */
    double throttle_s; /* client-seconds busy clients spent throttled, over the whole run */
};

/* n clients: tenants[k] with cores[k] (fraction) and limited[k]. */
void fu_init(struct fu_unit *u, struct unit_addr ev, int n, const int *tenants, const double *cores,
             const int *limited, double window_s);
void fu_free(struct fu_unit *u);
void fu_arrive(struct sim *s, struct fu_unit *u, int k);
void fu_event(struct sim *s, struct fu_unit *u, const struct event *ev);
/* A fault of client k's tenant: its request in service fails (a process of its own: the
 * others are not touched); 1 if it had one. */
int fu_fault(struct sim *s, struct fu_unit *u, int k);
void fu_abort(struct sim *s, struct fu_unit *u);
void fu_finish(struct sim *s, struct fu_unit *u);

/* The unit interface over a fu_unit allocated with ss_xmalloc and fu_init. */
extern const struct unit_ops fu_unit_ops;

#endif
