/*
 * llmengine — an LLM tenant's engine as work a host serves (llmengine.h).
 */
#include "policy/units/llmengine.h"

#include "base/util.h"
#include "calib/kcurve.h"
#include "core/llmstats.h"

#include <stdlib.h>
#include <string.h>

void le_init(struct llm_engine *e, int tenant, const struct lsv_cfg *c, long kv_blocks,
             const struct gpu_profile *g)
{
    memset(e, 0, sizeof *e);
    e->tenant = tenant;
    struct ls_cfg sc;
    lsv_sched_cfg(c, kv_blocks, &sc);
    ls_init(&e->sched, &sc);
    struct stm_cpu cpu = c->etm.cpu;
    cpu.step_s += c->step_overhead_s; /* the engine model counts a fixed overhead as CPU time */
    const struct kc_gpu *kc = NULL;
    char err[SS_ERRLEN];
    /* The scenario's load has read the GPU's kernel file (scn: kc_get), so this finds it. */
    if (c->etm.kind == STM_ENGINE && kc_get(g->path, &kc, err, sizeof err))
        SS_FATAL("%s", err);
    stm_init(&e->model, c->etm.kind, &c->model, c->dtype, c->kv_dtype, &g->roof, g->hbm_bw_gbps,
             &cpu, c->step_overhead_s, kc);
    e->gpus = 1;
    if (c->tensor_parallel > 1) { /* one GPU's shard, and the group's all-reduces */
        struct tp_link l;
        tp_link_init(&l, &g->link, c->tensor_parallel, kc);
        stm_set_tp(&e->model, &c->model, &l);
        e->gpus = c->tensor_parallel;
    }
    e->overhead_s = c->step_overhead_s;
    e->frontend_s = c->etm.frontend_s;
}

void le_free(struct llm_engine *e)
{
    ls_free(&e->sched);
    ls_step_free(&e->step);
    free(e->req);
    e->req = NULL;
}

/* The KV cache held its blocks since t_kv. */
static void kv_upto(struct sim *s, struct llm_engine *e)
{
    lst_kv(s, e->tenant, (double)ls_used_blocks(&e->sched), (double)e->sched.cfg.kv_blocks, e->t_kv,
           s->now);
    e->t_kv = s->now;
}

void le_kv_close(struct sim *s, struct llm_engine *e)
{
    kv_upto(s, e);
}

void le_take(struct sim *s, struct llm_engine *e)
{
    struct request r;
    eng_pop(s, e->tenant, &r);
    if (e->rt)
        rt_routed(e->rt);
    r.start = -1;               /* it waits until the scheduler first gives it tokens */
    r.arrival -= e->frontend_s; /* its client sent it a front end's time ago (llmengine.h) */
    int h = ls_add(&e->sched, e->taken++, r.in_tokens, r.out_tokens, s->now);
    if (h < 0) {
        eng_fail(s, &r);
        return;
    }
    if (h >= e->req_cap) {
        e->req_cap = e->sched.cap_slots;
        e->req = ss_xrealloc(e->req, (size_t)e->req_cap * sizeof *e->req);
    }
    e->req[h] = r;
    e->held++;
    if (e->rt)
        rt_held(e->rt, e->rt_k);
}

void le_take_all(struct sim *s, struct llm_engine *e)
{
    while (le_may_take(s, e))
        le_take(s, e);
}

int le_defer(struct sim *s, struct llm_engine *e, struct unit_addr a, unsigned timer, uint32_t aux)
{
    le_take_all(s, e);
    /* An arrival with no other of its tenant at this instant, and no earlier one waiting (a
     * pending timer), has nothing to wait for: the host begins now, and a run without ties
     * schedules no timer at all. The last of simultaneous arrivals re-arms the timer. */
    if (e->stepping || !le_has_work(e) || (!e->begin_pending && !eng_arrival_due_now(s, e->tenant)))
        return 0;
    e->begin_pending = 1;
    unit_schedule(s, a, s->now, timer, ++e->begin_ver, aux);
    return 1;
}

int le_begin(struct sim *s, struct llm_engine *e)
{
    if (e->stepping)
        return 1;
    e->begin_pending = 0; /* a step begun by another path: a pending begin timer is stale */
    kv_upto(s, e);
    if (ls_schedule(&e->sched, &e->step) == 0)
        return 0;
    if (e->step.preempted)
        lst_preempted(s, e->tenant, e->step.preempted);
    stm_start(&e->model, &e->sum);
    for (int i = 0; i < e->step.n; i++) {
        const struct ls_item *it = &e->step.items[i];
        stm_add(&e->model, &e->sum, it->past, it->n_new, it->emits);
        struct request *r = &e->req[it->seq];
        if (r->start < 0) /* its wait ends at its first step */
            r->start = s->now;
    }
    stm_parts(&e->model, &e->sum, &e->parts);
    e->overhead_s = stm_cpu_exposed_s(&e->parts, 1, 1);
    e->stepping = 1;
    return 1;
}

void le_end(struct sim *s, struct llm_engine *e)
{
    SS_ASSERT(e->stepping);
    kv_upto(s, e);
    e->stepping = 0;
    ls_complete(&e->sched, &e->step, s->now);
    for (int i = 0; i < e->step.n; i++) {
        const struct ls_item *it = &e->step.items[i];
        if (!it->emits)
            continue;
        struct request *r = &e->req[it->seq];
        lst_token(s, r, it->first, it->gap_s);
        if (it->done) {
            const struct ls_seq *q = ls_seq_at(&e->sched, it->seq);
            lst_done(s, r, q->output, q->first_token_s);
            eng_complete(s, r);
            e->held--;
            if (e->rt)
                rt_held(e->rt, e->rt_k);
        }
    }
    if (e->rt)
        le_take_all(s, e);
}

int le_fail(struct sim *s, struct llm_engine *e)
{
    kv_upto(s, e);
    e->begin_pending = 0;
    if (e->held == 0)
        return 0;
    for (int h = 0; h < e->sched.n_slots; h++) {
        const struct ls_seq *q = ls_seq_at(&e->sched, h);
        if (q->state != LS_DONE)
            eng_fail(s, &e->req[h]);
    }
    /* The process is gone: a fresh engine with an empty cache. */
    struct ls_cfg c = e->sched.cfg;
    ls_free(&e->sched);
    ls_init(&e->sched, &c);
    e->held = 0;
    if (e->rt)
        rt_held(e->rt, e->rt_k);
    e->stepping = 0;
    return 1;
}

double le_time_s(const struct llm_engine *e, double sm, double bw)
{
    return stm_time_s(&e->parts, sm, bw);
}

double le_gpu_s(const struct llm_engine *e)
{
    return stm_gpu_s(&e->parts, 1, 1);
}

double le_speed(const struct llm_engine *e, double sm, double bw)
{
    return stm_speed(&e->parts, sm, bw);
}
