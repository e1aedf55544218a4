/*
 * cl_mig — MIG clusters (docs/cluster.md, "MIG clusters"): nodes whose GPUs are split into
 * MIG instances, pods that ask for MIG profiles, layout policies (static pools, dynamic
 * reconfiguration that drains the instances a change touches, a warm pool of bare GPUs),
 * and defragmentation by migrating pods off fragmented nodes.
 */
#ifndef SS_CL_MIG_H
#define SS_CL_MIG_H

#include "cluster/cl_engine.h"

#include <stddef.h>

enum cl_mig_layout { CL_MIG_STATIC, CL_MIG_DYNAMIC };

struct cl_migcfg {
    enum cl_mig_layout layout;
    /* static: the layout every MIG GPU is carved into, profile indices of gpu 0's model */
    int n_static;
    int static_prof[7];
    double warm_pool;        /* fraction of MIG GPUs kept bare (whole-GPU pods only) */
    double reconfig_s;       /* seconds a reconfiguration drains the instances it changes;
                                < 0: the GPU profile's mig_reconfig_s */
    double defrag_threshold; /* node FGD fragmentation (of its free slices) that triggers a
                                defragmentation; 0 = never */
    double migrate_s;        /* downtime of one migrated pod */
};

struct jv;
struct cJSON;
struct cl_scenario;
/* Reads the scenario's "mig" object (path = its JSON path) into s->mig. */
int cl_mig_parse(const struct jv *j, const struct cJSON *obj, const char *path,
                 struct cl_scenario *s);
/* Maps each GPU pod of the workload to its MIG profile (the smallest that holds its share). */
int cl_mig_bind_pods(struct cl_migcfg *m, const struct cl_cluster *c, struct cl_workload *w,
                     char *err, size_t errlen);

int cl_mig_run(const struct cl_cluster *c, const struct cl_workload *w, const struct cl_typical *tp,
               const struct cl_run_cfg *cfg, struct cl_result *out, char *err, size_t errlen);

#endif
