/*
 * cl_mig — MIG clusters (docs/cluster.md, "MIG clusters"), which the FGD simulator does not
 * model: nodes whose GPUs can be split into MIG instances (mig/mig.h: legal layouts,
 * placement, FGD on slices), pods that ask for a MIG profile, a layout policy, a warm pool
 * of bare GPUs and defragmentation.
 *
 * Pods. A pod sharing a GPU (gpu_milli < 1000) asks for the smallest MIG profile whose
 * compute share holds its share: the profile with the fewest compute slices c (then memory
 * slices; "+me" profiles excluded) with c / 7 >= gpu_milli / 1000 (A100: 1..142 milli ->
 * 1g, ..285 -> 2g, ..428 -> 3g, ..571 -> 4g, else 7g). A pod of whole GPUs takes bare GPUs
 * (not in MIG mode). CPU-only pods take CPU and memory only.
 *
 * GPUs. A MIG-capable GPU is bare or in MIG mode with a layout of instances at fixed memory
 * slices, each free or running one pod. Layout policies:
 *   static   every MIG GPU outside the warm pool is carved at the start into one of the
 *            static layouts (dealt round-robin in GPU order) and never changed; a pod takes a free
 * instance of its profile or, failing that, the smallest larger free one (its resource is the
 * instance's). dynamic  GPUs start bare. A pod takes a free instance of its profile; else an
 * instance is created on a MIG GPU, keeping every running instance where it is and as many free
 * ones as the new layout allows (the rest are destroyed); else a bare GPU is switched to MIG mode.
 * A reconfiguration changes only the instances it creates or destroys: running instances are never
 * touched (NVIDIA's MIG user guide: GPU instances are created and destroyed on a GPU while others
 * run; enabling MIG mode resets the GPU, which is only done on an idle one). The pod on a new
 * instance starts reconfig_s later (the profile's mig_reconfig_s, 2-5 s). A whole-GPU pod may take
 * an idle MIG GPU back to bare (a reset). warm pool the fraction warm_pool of MIG GPUs (lowest node
 * ranks first) stays bare for whole-GPU pods: they start at once, at the price of capacity MIG pods
 *            cannot use.
 * Choice among GPUs that could take a pod: cheapest change first (free instance of the
 * profile; larger free instance (static); new instance keeping all free ones; new instance
 * destroying some; switching a bare GPU), then by the placement policy: "fgd" the least
 * growth of the GPU's FGD fragmentation on slices (mig_frag for the workload's profile mix;
 * Weng et al.'s measure mapped to MIG as mig.h describes), "bestfit" the fewest free slices
 * left; then node rank, GPU index.
 *
 * Defragmentation (dynamic): when a node's fragmentation (mean FGD of its MIG GPUs' running
 * instances) passes defrag_threshold after a pod leaves (replay) or when a pod would fail,
 * the node's running instances are repacked (mig_pack, fgd) onto its MIG GPUs; each pod
 * whose instance moves is migrated, with migrate_s of downtime.
 *
 * Accounting: a running instance holds round(1000 c / 7) GPU-milli (1g 143 ... 7g 1000),
 * a bare GPU 1000; fragmentation is 1000 x FGD per MIG GPU, summed.
 */
#ifndef SS_CL_MIG_H
#define SS_CL_MIG_H

#include "cluster/cl_engine.h"
#include "mig/mig.h"

#include <stddef.h>

enum cl_mig_layout { CL_MIG_STATIC, CL_MIG_DYNAMIC };
#define CL_MIG_MAX_LAYOUTS 8

struct cl_migcfg {
    enum cl_mig_layout layout;
    const struct gpu_profile *g;      /* the MIG GPU (cluster.mig_gpu[0]) */
    int n_layouts;                    /* static: the layouts, dealt round-robin over the MIG GPUs */
    int n_static[CL_MIG_MAX_LAYOUTS]; /* instances of each (profile indices) */
    int static_prof[CL_MIG_MAX_LAYOUTS][MIG_MAX_INST];
    double warm_pool;         /* fraction of MIG GPUs kept bare */
    double reconfig_s;        /* seconds a created instance (or a reset GPU) is not ready */
    double defrag_threshold;  /* node fragmentation that triggers a repack; 0 = never */
    double migrate_s;         /* downtime of one migrated pod */
    struct mig_demand demand; /* the pods' profile mix, for fragmentation */
};

struct jv;
struct cJSON;
struct cl_scenario;
/* Reads the scenario's "mig" object (path = its JSON path) into s->mig. */
int cl_mig_parse(const struct jv *j, const struct cJSON *obj, const char *path,
                 struct cl_scenario *s);
/* The profile a GPU share maps to (the file comment), or -1. */
int cl_mig_profile_for(const struct gpu_profile *g, int gpu_milli);
/* Maps each shared-GPU pod of the workload to its profile; the demand mix from them. */
int cl_mig_bind_pods(struct cl_migcfg *m, const struct cl_cluster *c, struct cl_workload *w,
                     char *err, size_t errlen);

int cl_mig_run(const struct cl_cluster *c, const struct cl_workload *w, const struct cl_typical *tp,
               const struct cl_run_cfg *cfg, struct cl_result *out, char *err, size_t errlen);

/* ---- the engine's pieces, for tests ------------------------------------------------------ */

struct cl_mig;
struct cl_mig *cl_mig_new(const struct cl_cluster *c, const struct cl_workload *w,
                          const struct cl_run_cfg *cfg);
/* Places arrival `id` (0, 1, ...: one per pod that arrives) of workload pod `pod` at time
 * t (seconds); 0 placed, -1 fits nowhere. only_node >= 0 restricts it to one node. */
int cl_mig_place(struct cl_mig *m, int id, int pod, double t, int only_node);
void cl_mig_remove(struct cl_mig *m, int id, double t);
/* The node arrival id runs on, or -1. */
int cl_mig_node_of(const struct cl_mig *m, int id);
/* A GPU's instances: n, and per instance profile, start and pod (-1 free). */
int cl_mig_gpu(const struct cl_mig *m, int node, int gpu, int *prof, int *start, int *pod,
               int *mig_mode);
/* Counters: reconfigurations, instances created or destroyed, pods migrated, downtime. */
void cl_mig_counters(const struct cl_mig *m, int *reconfigs, int *changed, int *migrated,
                     double *downtime_s);
void cl_mig_free(struct cl_mig *m);

#endif
