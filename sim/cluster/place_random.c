/*
 * place_random — Random-fit: the pod goes to a node drawn uniformly among those it fits,
 * and a shared pod to a GPU drawn uniformly among those it fits on that node.
 * Source: FGD paper section 6.1 ("Random-fit"); reference random_score.go (PreScore draws
 * rand.Intn over the feasible nodes, Score gives that node 100 and the others 0) with
 * GPU selection "random" (allocateGpuIdBasedOnRandomFit).
 * The reference's feasible list comes out of a parallel filter in no fixed order; ours is
 * in node order, so the draws are distributed alike but not the same ones.
 */
#include "cluster/cl_place.h"

const struct cl_policy cl_policy_random = {
    .name = "random",
    .label = "01-Random",
    .title = "Random-fit",
    .source = "Weng et al., ATC '23, sec. 6.1; kubernetes-scheduler-simulator random_score.go",
    .cost = 0.8,
    .random_node = 1,
    .score = NULL,
    .gpus = cl_gpus_random_fit,
};
