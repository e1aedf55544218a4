/*
 * tp — tensor parallelism (tp.h).
 */
#include "llm/tp.h"

#include "base/util.h"

#include <string.h>

int tp_check_model(const struct lm_model *m, int tp, char *err, size_t errlen)
{
    if (tp != 1 && tp != 2 && tp != 4 && tp != 8)
        return ss_errf(err, errlen, "tensor_parallel %d: expected 1, 2, 4 or %d", tp, TP_MAX);
    if (tp == 1)
        return 0;
    if (m->heads % tp)
        return ss_errf(err, errlen, "%s's %d query heads do not split over tensor_parallel %d GPUs",
                       m->name, m->heads, tp);
    if (m->kv_lora_rank == 0 && m->kv_heads % tp && tp % m->kv_heads)
        return ss_errf(err, errlen,
                       "%s's %d KV heads neither split over nor replicate evenly across "
                       "tensor_parallel %d GPUs",
                       m->name, m->kv_heads, tp);
    /* The widths each GPU takes a column or row slice of. */
    const char *names[] = {"intermediate", "moe_intermediate", "shared_intermediate"};
    int widths[] = {m->intermediate, m->moe_intermediate, m->shared_intermediate};
    for (int i = 0; i < 3; i++)
        if (widths[i] % tp)
            return ss_errf(err, errlen, "%s's %s %d does not split over tensor_parallel %d GPUs",
                           m->name, names[i], widths[i], tp);
    return 0;
}

int tp_check_gpu(const struct gpu_profile *g, int tp, char *err, size_t errlen)
{
    if (tp > 1 && !g->link.kind[0])
        return ss_errf(err, errlen,
                       "tensor_parallel %d: the %s profile has no interconnect (the link the "
                       "group's all-reduces would use)",
                       tp, g->name);
    return 0;
}

int tp_kv_heads_per_gpu(const struct lm_model *m, int tp)
{
    int k = m->kv_heads / tp;
    return k > 0 ? k : 1;
}

double tp_kv_share(const struct lm_model *m, int tp)
{
    if (m->kv_lora_rank > 0)
        return 1;
    return (double)tp_kv_heads_per_gpu(m, tp) / m->kv_heads;
}

void tp_link_init(struct tp_link *l, const struct gpu_link *gl, int tp, const struct kc_gpu *kc)
{
    memset(l, 0, sizeof *l);
    l->tp = tp;
    if (tp <= 1)
        return;
    l->nvlink = strncmp(gl->kind, "nvlink", 6) == 0 && tp <= gl->domain_gpus;
    /* gbps figures are bidirectional: half of each goes one way round the ring. */
    double oneway = (l->nvlink ? gl->gbps : gl->pcie_gbps) * 0.5e9;
    l->bus_bps = oneway * TP_BUS_EFF;
    l->latency_s = l->nvlink ? TP_NVLINK_LATENCY_S : TP_PCIE_LATENCY_S;
    l->kc = l->nvlink ? kc : NULL; /* the tables were measured over NVLink */
}

double tp_ring_s(const struct tp_link *l, double elements)
{
    if (l->tp <= 1)
        return 0;
    double bytes = 2 * elements;
    return l->latency_s + bytes * 2.0 * (l->tp - 1) / l->tp / l->bus_bps;
}

double tp_allreduce_s(const struct tp_link *l, double elements, int *table)
{
    if (table)
        *table = 0;
    if (l->tp <= 1)
        return 0;
    if (l->kc) {
        struct kc_result r;
        kc_allreduce(l->kc, RD_BF16, l->tp, elements, &r);
        if (r.path != KC_NONE) {
            if (table)
                *table = 1;
            return r.s;
        }
    }
    return tp_ring_s(l, elements);
}
