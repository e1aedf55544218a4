/*
 * cl_place — pod placement policies, one ops table each (sim/cluster/place_<name>.c), as
 * the FGD paper compares them (Weng et al., USENIX ATC '23, section 6.1 "Baselines") and
 * as its simulator implements them (pkg/simulator/plugin/, the *_score.go files and
 * open_gpu_share.go).
 *
 * Placement of one pod, for every policy (the Kubernetes scheduling cycle the reference
 * runs, with one score plugin at weight 1000):
 *   1. Filter: the nodes the pod fits (cl_fits).
 *   2. Node: the feasible node with the highest score; ties go to the node of lowest
 *      rank, a permutation of the nodes drawn per seed (the reference renames nodes
 *      "%04d-<name>" from rand.Perm and its patched selectHost takes the smallest name).
 *      A policy with random_node instead draws a feasible node uniformly (when there are
 *      two or more: Kubernetes skips scoring when only one node fits).
 *   3. GPUs: the policy's gpus() picks which GPUs of that node (Open-Gpu-Share Reserve).
 * A score is a function of the node's state and the pod alone, so the engine caches it per
 * (pod class, node version).
 */
#ifndef SS_CL_PLACE_H
#define SS_CL_PLACE_H

#include "cluster/cl_rand.h"
#include "cluster/cluster.h"

/* What a policy may read besides the node and the pod. */
struct cl_place_ctx {
    const struct cl_cluster *c;
    const struct cl_typical *tp; /* the workload's typical pods (FGD) */
    struct cl_fragmemo *memo;    /* fragment amount by node state */
};

struct cl_policy {
    const char *name;   /* as in scenarios: "fgd" */
    const char *label;  /* the reference's result folder: "06-FGD" */
    const char *title;  /* "FGD (fragmentation gradient descent)" */
    const char *source; /* where the rule is defined */
    int random_node;    /* node drawn uniformly among the feasible ones */
    /* CPU time of an experiment relative to fgd's (1), measured on the openb default trace
     * (docs/cluster.md, "Many experiments"). Only the dispatch order of a study
     * uses it (the costliest first), so an estimate off by a factor is harmless. */
    double cost;
    /* Score of a feasible node for the pod, higher is better (unused with random_node). */
    long (*score)(struct cl_place_ctx *x, const struct cl_node_spec *n, const struct cl_nstate *s,
                  const struct cl_pod *p);
    /* The pod's GPUs on its node: writes pod->num_gpu distinct indices (none for a pod
     * without GPUs). r is the run's generator (random GPU choice only). */
    void (*gpus)(struct cl_place_ctx *x, const struct cl_node_spec *n, const struct cl_nstate *s,
                 const struct cl_pod *p, struct cl_rand *r, int *out);
};

int cl_policy_count(void);
const struct cl_policy *cl_policy_at(int i);
const struct cl_policy *cl_policy_find(const char *name);
/* "random, dotprod, …" for messages. */
void cl_policy_names(char *buf, size_t n);

/* ---- GPU choices shared by several policies (place_gpus.c) ---------------------------- */

/* Whole GPUs: the first num_gpu free ones by index (the reference's AllocateExclusiveGpuId). */
void cl_gpus_first_free(const struct cl_node_spec *n, const struct cl_nstate *s,
                        const struct cl_pod *p, int *out);
/* Best fit: a shared pod goes to the GPU with the least left that still fits (lowest index
 * on ties); whole GPUs as cl_gpus_first_free (allocateGpuIdBasedOnBestFit). */
void cl_gpus_best_fit(struct cl_place_ctx *x, const struct cl_node_spec *n,
                      const struct cl_nstate *s, const struct cl_pod *p, struct cl_rand *r,
                      int *out);
/* Random fit: a shared pod goes to a GPU drawn uniformly among those it fits, by reservoir
 * sampling in index order with Go's Intn (allocateGpuIdBasedOnRandomFit). */
void cl_gpus_random_fit(struct cl_place_ctx *x, const struct cl_node_spec *n,
                        const struct cl_nstate *s, const struct cl_pod *p, struct cl_rand *r,
                        int *out);

/* The FGD score and its GPU (place_fgd.c), exposed for the tests. */
long cl_fgd_score(struct cl_place_ctx *x, const struct cl_node_spec *n, const struct cl_nstate *s,
                  const struct cl_pod *p, int *gpu);

extern const struct cl_policy cl_policy_random, cl_policy_dotprod, cl_policy_clustering,
    cl_policy_packing, cl_policy_bestfit, cl_policy_fgd;

#endif
