/*
 * llmunit — a serving engine on a fixed share, issuing one step at a time (llmunit.h).
 */
#include "policy/units/llmunit.h"

#include "base/util.h"

#include <stdlib.h>

/* Its timers: the step's end, and the begin timer an arrival arms (llmengine.h: le_defer). */
enum { LU_T_STEP, LU_T_BEGIN, LU_TIMERS };
_Static_assert((int)LU_TIMERS <= (int)UNIT_TIMERS, "a unit has at most UNIT_TIMERS timers");

struct llm_unit *lu_new(int tenant, const struct lsv_cfg *c, long kv_blocks,
                        const struct gpu_profile *g, double sm_share, double bw_share,
                        struct unit_addr ev)
{
    struct llm_unit *u = ss_xcalloc(1, sizeof *u);
    le_init(&u->e, tenant, c, kv_blocks, g);
    u->sm_share = sm_share;
    u->bw_share = bw_share;
    u->ev = ev;
    return u;
}

/* What the unit holds, not the unit. */
static void lu_release(struct llm_unit *u)
{
    le_free(&u->e);
}

void lu_free(struct llm_unit *u)
{
    if (!u)
        return;
    lu_release(u);
    free(u);
}

/* The step in flight ends (or is cut short by a fault, or by the end of the run) now. */
static void step_busy(struct sim *s, struct llm_unit *u)
{
    eng_busy(s, u->sm_share * u->e.gpus, u->step_start, s->now); /* a TP group: all its GPUs */
    u->busy_s += eng_clip(s, u->step_start, s->now);
}

static void start_step(struct sim *s, struct llm_unit *u)
{
    if (u->e.stepping || !le_begin(s, &u->e))
        return;
    u->step_start = s->now;
    unit_schedule(s, u->ev, s->now + le_time_s(&u->e, u->sm_share, u->bw_share), LU_T_STEP,
                  u->version, 0);
}

/* Idle, the unit waits for every arrival of this instant before it begins a step (le_defer);
 * mid-step the request joins the scheduler for the next one. */
void lu_take(struct sim *s, struct llm_unit *u)
{
    le_take(s, &u->e);
    if (!le_defer(s, &u->e, u->ev, LU_T_BEGIN, 0))
        start_step(s, u);
}

void lu_event(struct sim *s, struct llm_unit *u, const struct event *ev)
{
    if (unit_ev_timer(ev) == LU_T_BEGIN) {
        if (le_begin_due(&u->e, ev->version))
            start_step(s, u);
        return;
    }
    if (!u->e.stepping || ev->version != u->version)
        return;
    step_busy(s, u);
    le_end(s, &u->e);
    start_step(s, u);
}

int lu_fault(struct sim *s, struct llm_unit *u)
{
    if (u->e.held > 0 && u->e.stepping)
        step_busy(s, u);
    if (!le_fail(s, &u->e))
        return 0;
    u->version++;
    return 1;
}

void lu_finish(struct sim *s, struct llm_unit *u)
{
    le_kv_close(s, &u->e);
    if (u->e.stepping)
        step_busy(s, u);
}

/* ---- as a unit (units/unit.h): one client, its tenant ---------------------------------- */

/* An engine takes every request waiting: they queue in its scheduler, not in the tenant's. */
static void lu_arrive(struct sim *s, struct llm_unit *u, int client)
{
    (void)client;
    while (le_may_take(s, &u->e))
        lu_take(s, u);
}

static int lu_fault_client(struct sim *s, struct llm_unit *u, int client)
{
    (void)client;
    return lu_fault(s, u);
}

/* Torn down (a reconfiguration): the requests it holds fail, as in a fault. */
static void lu_abort(struct sim *s, struct llm_unit *u)
{
    lu_fault(s, u);
}

static struct llm_engine *lu_engine(void *self, int client)
{
    (void)client;
    return &((struct llm_unit *)self)->e;
}

UNIT_OPS_OVER(lu_unit_ops, struct llm_unit, UNIT_RANK_PLAIN, lu_arrive, lu_event, lu_fault_client,
              lu_abort, lu_finish, lu_release, NULL, NULL, lu_engine);
