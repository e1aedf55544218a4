/*
 * place_packing — GPU packing: shared GPUs before free GPUs of used nodes before idle
 * nodes. Source: FGD paper section 6.1 ("GPU Packing"); reference gpu_packing_score.go:
 *   pod asks for no GPU                      0
 *   every GPU of the node is free (f GPUs)   max(33 - f, f)
 *   it must take f' > 0 free GPUs             max(50 - f', 33)
 *   it fits on partly used GPUs only          max(100 - (sum over those GPUs of
 *                                             left * 100 / 1000) / 10, 50)
 * where the GPUs it would take are the ones with the least left that fit (ascending,
 * stable). GPU selection "best" (best fit).
 */
#include "cluster/cl_place.h"

static long lmax(long a, long b)
{
    return a > b ? a : b;
}

static long packing_score(struct cl_place_ctx *x, const struct cl_node_spec *n,
                          const struct cl_nstate *s, const struct cl_pod *p)
{
    (void)x;
    if (cl_pod_milli(p) <= 0)
        return 0;
    int free_n = 0;
    for (int g = 0; g < n->n_gpu; g++)
        free_n += s->gpu_left[g] == CL_MILLI;
    if (free_n == n->n_gpu)
        return lmax(100 / 3 - free_n, free_n);
    /* GPUs by left ascending, stable (SortedMilliGpuLeftIndexList). */
    int idx[CL_MAX_GPUS];
    for (int g = 0; g < n->n_gpu; g++) {
        int j = g;
        while (j > 0 && s->gpu_left[idx[j - 1]] > s->gpu_left[g]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = g;
    }
    int need = p->num_gpu, free_used = 0;
    long ratio = 0;
    for (int k = 0; k < n->n_gpu && need > 0; k++) {
        int left = s->gpu_left[idx[k]];
        if (p->gpu_milli <= left) {
            need--;
            free_used += left == CL_MILLI;
            ratio += (long)left * 100 / CL_MILLI;
        }
    }
    if (free_used > 0)
        return lmax(100 / 2 - free_used, 100 / 3);
    return lmax(100 - ratio / 10, 100 / 2);
}

const struct cl_policy cl_policy_packing = {
    .name = "packing",
    .label = "04-GpuPacking",
    .title = "GPU packing",
    .source = "Weng et al., ATC '23, sec. 6.1; kubernetes-scheduler-simulator "
              "gpu_packing_score.go",
    .cost = 0.65,
    .score = packing_score,
    .gpus = cl_gpus_best_fit,
};
