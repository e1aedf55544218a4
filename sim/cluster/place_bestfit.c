/*
 * place_bestfit — Best-fit: the node left with the least free resources, CPU and GPU
 * weighted equally. Source: FGD paper section 6.1 ("Best-fit", after Panigrahy et al.,
 * "Heuristics for vector bin packing", 2011); reference best_fit_score.go:
 *   score = int(100 * (1 - ((cpu_left - cpu) / 128000 * 0.5 + (gpu_left - gpu) / 8000 * 0.5)))
 * with GPU-milli summed over the node. The reference then rescales scores to 0..100 over
 * the feasible nodes (NormalizeScore); the rescaling keeps the maximum where it was, so
 * the node chosen is the same and we skip it. GPU selection "best" (best fit).
 */
#include "cluster/cl_place.h"

static long bestfit_score(struct cl_place_ctx *x, const struct cl_node_spec *n,
                          const struct cl_nstate *s, const struct cl_pod *p)
{
    (void)x;
    double score = 0;
    score += ((double)s->cpu_left - p->cpu_milli) / CL_MAX_SPEC_CPU * 0.5;
    score += ((double)cl_gpu_left_total(n, s) - (double)cl_pod_milli(p)) / CL_MAX_SPEC_GPU * 0.5;
    score = (1.0 - score) * 100;
    return (long)score;
}

const struct cl_policy cl_policy_bestfit = {
    .name = "bestfit",
    .label = "05-BestFit",
    .title = "Best-fit",
    .source = "Panigrahy et al. 2011; Weng et al., ATC '23, sec. 6.1; "
              "kubernetes-scheduler-simulator best_fit_score.go",
    .cost = 0.65,
    .score = bestfit_score,
    .gpus = cl_gpus_best_fit,
};
