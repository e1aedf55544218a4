/*
 * place_clustering — GPU clustering: pods of one kind (sharing a GPU, or k whole GPUs) go
 * together, on nodes holding only that kind if possible, fuller nodes first.
 * Source: FGD paper section 6.1 ("GPU Clustering", after Alibaba's production practice);
 * reference gpu_clustering_score.go. With L the node's GPU-milli left and
 * b = 25 * (8000 - L) / 8000 (integer arithmetic, as the reference):
 *   the node holds the pod's kind and nothing else      75 + b
 *   it holds the pod's kind and others                  50 + b
 *   it holds no GPU pod                                  25 + b
 *   it holds other kinds only                                 b
 *   the pod asks for no GPU                              0 everywhere
 * GPU selection "best" (best fit).
 */
#include "cluster/cl_place.h"

static long clustering_score(struct cl_place_ctx *x, const struct cl_node_spec *n,
                             const struct cl_nstate *s, const struct cl_pod *p)
{
    (void)x;
    int tag = cl_pod_aff(p);
    if (tag < 0)
        return 0;
    int kinds = 0;
    for (int t = 0; t < CL_AFF_N; t++)
        kinds += s->aff[t] > 0;
    long b = 100 / 4 * (long)(CL_MAX_SPEC_GPU - cl_gpu_left_total(n, s)) / CL_MAX_SPEC_GPU;
    if (s->aff[tag] > 0)
        return b + (kinds == 1 ? 100 * 3 / 4 : 100 * 2 / 4);
    return b + (kinds == 0 ? 100 / 4 : 0);
}

const struct cl_policy cl_policy_clustering = {
    .name = "clustering",
    .label = "03-GpuClustering",
    .title = "GPU clustering",
    .source = "Weng et al., ATC '23, sec. 6.1; kubernetes-scheduler-simulator "
              "gpu_clustering_score.go",
    .cost = 0.65,
    .score = clustering_score,
    .gpus = cl_gpus_best_fit,
};
