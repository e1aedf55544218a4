/*
 * llmunit — a serving engine issuing one step at a time (llmunit.h).
 */
#include "policy/units/llmunit.h"

#include "base/util.h"
#include "core/llmstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct llm_unit *lu_new(int tenant, const struct lsv_cfg *c, long kv_blocks,
                        const struct gpu_profile *g, double sm_share, double bw_share,
                        struct unit_addr ev)
{
    struct llm_unit *u = ss_xcalloc(1, sizeof *u);
    u->tenant = tenant;
    struct ls_cfg sc;
    lsv_sched_cfg(c, kv_blocks, &sc);
    ls_init(&u->sched, &sc);
    rf_model_init(&u->rm, &c->model, c->dtype, c->kv_dtype);
    rf_gpu_init(&u->rg, &g->roof, g->hbm_bw_gbps, c->dtype);
    u->sm_share = sm_share;
    u->bw_share = bw_share;
    u->overhead_s = c->step_overhead_s;
    u->ev = ev;
    return u;
}

/* What the unit holds, not the unit. */
static void lu_release(struct llm_unit *u)
{
    ls_free(&u->sched);
    ls_step_free(&u->step);
    free(u->req);
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
    eng_busy(s, u->sm_share, u->step_start, s->now);
    u->busy_s += eng_clip(s, u->step_start, s->now);
}

/* The KV cache held `held` blocks since t_kv. */
static void kv_upto(struct sim *s, struct llm_unit *u)
{
    lst_kv(s, u->tenant, (double)ls_used_blocks(&u->sched), (double)u->sched.cfg.kv_blocks, u->t_kv,
           s->now);
    u->t_kv = s->now;
}

static void start_step(struct sim *s, struct llm_unit *u)
{
    if (u->stepping)
        return;
    kv_upto(s, u);
    if (ls_schedule(&u->sched, &u->step) == 0)
        return;
    if (u->step.preempted)
        lst_preempted(s, u->tenant, u->step.preempted);
    struct rf_cost c;
    rf_cost_start(&u->rm, &c);
    for (int i = 0; i < u->step.n; i++) {
        const struct ls_item *it = &u->step.items[i];
        rf_cost_add(&u->rm, &c, it->past, it->n_new);
        struct request *r = &u->req[it->seq];
        if (r->start < 0) /* its wait ends at its first step */
            r->start = s->now;
    }
    u->stepping = 1;
    u->step_start = s->now;
    double dt = rf_time_s(&u->rg, &c, u->sm_share, u->bw_share, u->overhead_s);
    unit_schedule(s, u->ev, s->now + dt, 0, u->version, 0);
}

void lu_take(struct sim *s, struct llm_unit *u)
{
    struct request r;
    eng_pop(s, u->tenant, &r);
    r.start = -1; /* it waits until the scheduler first gives it tokens */
    int h = ls_add(&u->sched, u->taken++, r.in_tokens, r.out_tokens, s->now);
    if (h < 0) {
        eng_fail(s, &r);
        return;
    }
    if (h >= u->req_cap) {
        u->req_cap = u->sched.cap_slots;
        u->req = ss_xrealloc(u->req, (size_t)u->req_cap * sizeof *u->req);
    }
    u->req[h] = r;
    u->held++;
    start_step(s, u);
}

void lu_event(struct sim *s, struct llm_unit *u, const struct event *ev)
{
    if (!u->stepping || ev->version != u->version)
        return;
    kv_upto(s, u);
    step_busy(s, u);
    u->stepping = 0;
    ls_complete(&u->sched, &u->step, s->now);
    for (int i = 0; i < u->step.n; i++) {
        const struct ls_item *it = &u->step.items[i];
        if (!it->emits)
            continue;
        struct request *r = &u->req[it->seq];
        lst_token(s, r, it->first, it->gap_s);
        if (it->done) {
            const struct ls_seq *q = ls_seq_at(&u->sched, it->seq);
            lst_done(s, r, q->output, q->first_token_s);
            eng_complete(s, r);
            u->held--;
        }
    }
    start_step(s, u);
}

int lu_fault(struct sim *s, struct llm_unit *u)
{
    kv_upto(s, u);
    if (u->held == 0)
        return 0;
    if (u->stepping)
        step_busy(s, u);
    for (int h = 0; h < u->sched.n_slots; h++) {
        const struct ls_seq *q = ls_seq_at(&u->sched, h);
        if (q->state != LS_DONE)
            eng_fail(s, &u->req[h]);
    }
    /* The process is gone: a fresh engine with an empty cache. */
    struct ls_cfg c = u->sched.cfg;
    ls_free(&u->sched);
    ls_init(&u->sched, &c);
    u->held = 0;
    u->stepping = 0;
    u->version++;
    return 1;
}

void lu_finish(struct sim *s, struct llm_unit *u)
{
    kv_upto(s, u);
    if (u->stepping)
        step_busy(s, u);
}

/* ---- as a unit (units/unit.h): one client, its tenant ---------------------------------- */

/* An engine takes every request waiting: they queue in its scheduler, not in the tenant's. */
static void lu_arrive(struct sim *s, struct llm_unit *u, int client)
{
    (void)client;
    while (eng_qlen(s, u->tenant) > 0)
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

UNIT_OPS_OVER(lu_unit_ops, struct llm_unit, UNIT_RANK_PLAIN, lu_arrive, lu_event, lu_fault_client,
              lu_abort, lu_finish, lu_release, NULL, NULL);
