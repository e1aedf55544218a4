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
void cl_scenario_free(struct cl_scenario *s);
/* The run settings of one (policy, seed) pair. */
void cl_scenario_cfg(const struct cl_scenario *s, int policy, int seed, struct cl_run_cfg *cfg);

#endif
