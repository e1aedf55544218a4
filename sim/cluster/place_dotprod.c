/*
 * place_dotprod — Dot-product (Tetris, Grandl et al., SIGCOMM '14, as adapted by the FGD
 * paper, section 6.1): the node whose free resources align least with the pod's request.
 * Reference dot_product_score.go with dimExtMethod "merge" and normMethod "max" (its
 * experiments' settings): node vector (CPU left, GPU-milli left summed), pod vector (CPU,
 * GPU-milli), both divided by (128000, 8000); score = int(100 * (1 - dot / 2)).
 * GPU selection "best" (best fit), as the experiments configure it.
 */
#include "cluster/cl_place.h"

static long dotprod_score(struct cl_place_ctx *x, const struct cl_node_spec *n,
                          const struct cl_nstate *s, const struct cl_pod *p)
{
    (void)x;
    double node0 = (double)s->cpu_left / CL_MAX_SPEC_CPU;
    double node1 = (double)cl_gpu_left_total(n, s) / CL_MAX_SPEC_GPU;
    double pod0 = (double)p->cpu_milli / CL_MAX_SPEC_CPU;
    double pod1 = (double)cl_pod_milli(p) / CL_MAX_SPEC_GPU;
    double dot = 0;
    dot += node0 * pod0;
    dot += node1 * pod1;
    double score = 1 - dot / 2;
    return (long)(100 * score);
}

const struct cl_policy cl_policy_dotprod = {
    .name = "dotprod",
    .label = "02-DotProd",
    .title = "Dot-product",
    .source = "Grandl et al., SIGCOMM '14 (Tetris); Weng et al., ATC '23, sec. 6.1; "
              "kubernetes-scheduler-simulator dot_product_score.go",
    .cost = 0.65,
    .score = dotprod_score,
    .gpus = cl_gpus_best_fit,
};
