/*
 * place_gpus — which GPUs of the chosen node a pod gets, for the policies that do not
 * choose GPUs themselves (the reference's open_gpu_share.go: allocateGpuIdBasedOnBestFit,
 * allocateGpuIdBasedOnRandomFit, and type.AllocateExclusiveGpuId for whole GPUs).
 */
#include "base/util.h"
#include "cluster/cl_place.h"

void cl_gpus_first_free(const struct cl_node_spec *n, const struct cl_nstate *s,
                        const struct cl_pod *p, int *out)
{
    int k = 0;
    for (int g = 0; g < n->n_gpu && k < p->num_gpu; g++)
        if (s->gpu_left[g] == CL_MILLI)
            out[k++] = g;
    SS_ASSERT(k == p->num_gpu);
}

void cl_gpus_best_fit(struct cl_place_ctx *x, const struct cl_node_spec *n,
                      const struct cl_nstate *s, const struct cl_pod *p, struct cl_rand *r,
                      int *out)
{
    (void)x;
    (void)r;
    if (p->num_gpu == 0)
        return;
    if (p->gpu_milli == CL_MILLI) {
        cl_gpus_first_free(n, s, p, out);
        return;
    }
    int best = -1;
    for (int g = 0; g < n->n_gpu; g++)
        if (s->gpu_left[g] >= p->gpu_milli && (best < 0 || s->gpu_left[g] < s->gpu_left[best]))
            best = g;
    SS_ASSERT(best >= 0);
    out[0] = best;
}

void cl_gpus_random_fit(struct cl_place_ctx *x, const struct cl_node_spec *n,
                        const struct cl_nstate *s, const struct cl_pod *p, struct cl_rand *r,
                        int *out)
{
    (void)x;
    if (p->num_gpu == 0)
        return;
    if (p->gpu_milli == CL_MILLI) {
        cl_gpus_first_free(n, s, p, out);
        return;
    }
    int cnt = 0, pick = -1;
    for (int g = 0; g < n->n_gpu; g++)
        if (s->gpu_left[g] >= p->gpu_milli) {
            cnt++;
            if (cl_rand_intn(r, cnt) == 0) /* Go's Intn(1) draws too */
                pick = g;
        }
    SS_ASSERT(pick >= 0);
    out[0] = pick;
}
