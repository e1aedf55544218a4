/*
 * place_fgd — Fragmentation gradient descent (Weng et al., ATC '23, section 4.2,
 * Algorithm 1): place the pod where the node's fragmentation (cl_frag_node, for the
 * workload's typical pods) grows least. Reference fgd_score.go:
 *   score = int(100 * sigmoid((F(node) - F(node after)) / 1000))
 * where "after" takes, for a shared pod, each GPU it fits in turn and keeps the best
 * (the first on ties, which is also its GPU), and for other pods subtracts the request
 * from the GPUs with the least left that fit (NodeResource.Sub). Whole GPUs go to the
 * first free ones. The truncation to an integer makes many nodes tie; ties go by rank.
 */
#include "cluster/cl_place.h"

#include <math.h>
#include <string.h>

static double sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

static long frag_score(double before, double after)
{
    return (long)(sigmoid((before - after) / 1000) * 100);
}

long cl_fgd_score(struct cl_place_ctx *x, const struct cl_node_spec *n, const struct cl_nstate *s,
                  const struct cl_pod *p, int *gpu)
{
    double before, after;
    long long num;
    cl_fragmemo_get(x->memo, n->model, s->cpu_left, s->gpu_left, n->n_gpu, &before, &num);
    int16_t left[CL_MAX_GPUS];
    memcpy(left, s->gpu_left, sizeof left);
    if (p->num_gpu == 1 && p->gpu_milli < CL_MILLI) {
        long best = 0;
        int pick = -1;
        for (int g = 0; g < n->n_gpu; g++) {
            if (s->gpu_left[g] < p->gpu_milli)
                continue;
            long sc;
            /* A GPU with as much left as an earlier candidate gives the same node. */
            int same = -1;
            for (int h = 0; h < g && same < 0; h++)
                if (s->gpu_left[h] == s->gpu_left[g])
                    same = h;
            if (same >= 0)
                continue; /* scored already, and the earlier index wins ties */
            left[g] = (int16_t)(s->gpu_left[g] - p->gpu_milli);
            cl_fragmemo_get(x->memo, n->model, s->cpu_left - p->cpu_milli, left, n->n_gpu, &after,
                            &num);
            left[g] = s->gpu_left[g];
            sc = frag_score(before, after);
            if (pick < 0 || sc > best) {
                best = sc;
                pick = g;
            }
        }
        if (gpu)
            *gpu = pick;
        return best;
    }
    /* Sub: ascending by left (stable), take from the least sufficient. */
    int need = p->num_gpu;
    while (need > 0) {
        int g = -1;
        for (int h = 0; h < n->n_gpu; h++)
            if (left[h] >= p->gpu_milli && left[h] == s->gpu_left[h] &&
                (g < 0 || left[h] < left[g]))
                g = h;
        if (g < 0)
            break;
        left[g] = (int16_t)(left[g] - p->gpu_milli);
        need--;
    }
    cl_fragmemo_get(x->memo, n->model, s->cpu_left - p->cpu_milli, left, n->n_gpu, &after, &num);
    if (gpu)
        *gpu = -1;
    return frag_score(before, after);
}

static long fgd_score(struct cl_place_ctx *x, const struct cl_node_spec *n,
                      const struct cl_nstate *s, const struct cl_pod *p)
{
    return cl_fgd_score(x, n, s, p, NULL);
}

static void fgd_gpus(struct cl_place_ctx *x, const struct cl_node_spec *n,
                     const struct cl_nstate *s, const struct cl_pod *p, struct cl_rand *r, int *out)
{
    (void)r;
    if (p->num_gpu == 0)
        return;
    if (p->gpu_milli == CL_MILLI) {
        cl_gpus_first_free(n, s, p, out);
        return;
    }
    int g;
    cl_fgd_score(x, n, s, p, &g);
    out[0] = g;
}

const struct cl_policy cl_policy_fgd = {
    .name = "fgd",
    .label = "06-FGD",
    .title = "FGD (fragmentation gradient descent)",
    .source = "Weng et al., ATC '23, sec. 4 and Algorithm 1; kubernetes-scheduler-simulator "
              "fgd_score.go, utils/frag.go",
    .cost = 1,
    .score = fgd_score,
    .gpus = fgd_gpus,
};
