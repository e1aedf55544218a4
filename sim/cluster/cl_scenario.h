/*
 * cl_scenario — a cluster scenario file (docs/cluster.md, "Scenario"): a JSON object with a
 * "cluster" object naming the nodes, the pods, the policies and seeds to compare, and the
 * mode (inflate or replay). Unknown keys are errors; every error names the file and the
 * JSON path. Relative file names are relative to the scenario file.
 */
#ifndef SS_CL_SCENARIO_H
#define SS_CL_SCENARIO_H

#include "cluster/cl_engine.h"
#include "cluster/cl_mig.h"
#include "cluster/cluster.h"

#define CL_MAX_POLICIES 16
#define CL_MAX_SEEDS 1000
/*
 * Bounds on the work and memory one experiment may take, checked when the scenario loads
 * (docs/robustness.md, "Cluster limits and merges"); each message gives the number.
 *  - CL_MAX_NODES: nodes after node_scale. Memory is about 100 bytes per node plus 8 per
 *    node and pod class for the score caches (91 classes in openb: 150 MB at the bound).
 *  - CL_MAX_NODE_PODS: nodes x pods placed (after inflation, estimated as pods x target /
 *    requested GPU-milli): a placement reads one cached score per node, about 1.6e8 a
 *    second, so the bound is some 10 minutes of one core per experiment. The paper's
 *    100,000-GPU cluster (node_scale 16: 19,408 nodes, ~168,000 pods) is 3.3e9.
 *  - CL_MAX_INFLATED_PODS: pods one inflated experiment places: it records an event of
 *    72 bytes per pod, so 290 MB at the bound.
 *  - CL_MAX_SAMPLES: time samples of a replay (span / sample_s + 2); each is about 1 KB of
 *    JSON held until the outputs are written.
 */
#define CL_MAX_NODES 200000
#define CL_MAX_NODE_PODS 1e11
#define CL_MAX_INFLATED_PODS 4000000
#define CL_MAX_SAMPLES 100000

struct cl_scenario {
    char file[512];
    char name[64];
    struct cl_cluster cluster;
    struct cl_workload work;
    struct cl_typical typical;
    int n_policies;
    const struct cl_policy *policy[CL_MAX_POLICIES];
    int n_seeds;
    long long seed[CL_MAX_SEEDS];
    enum cl_mode mode;
    double tune;
    int shuffle;
    int wait;
    double sample_s;
    double frag_threshold;
    double popularity;
    int has_mig;
    struct cl_migcfg mig;
};

int cl_scenario_load(const char *path, struct cl_scenario *s, char *err, size_t errlen);
/* The smallest sample_s (to 6 digits) that keeps a replay of this span within
 * CL_MAX_SAMPLES. */
double cl_min_sample_s(double span);
void cl_scenario_free(struct cl_scenario *s);
/*
 * Checks the JSON text of experiment idx (policy idx / n_seeds, seed idx % n_seeds) as a
 * merge reads it from a partial file (cl_check.c): 0, or -1 with what is wrong in why.
 */
int cl_result_check(const struct cl_scenario *s, long idx, const char *json, size_t len, char *why,
                    size_t whylen);
/* The run settings of one (policy, seed) pair. */
void cl_scenario_cfg(const struct cl_scenario *s, int policy, int seed, struct cl_run_cfg *cfg);

#endif
