/*
 * cluster — pods placed on a cluster of GPU nodes (docs/cluster.md): the inputs (nodes,
 * pods), the state of a node, and the typical-pod mix the fragmentation measure weighs.
 *
 * The model is the one of the FGD work (Weng et al., "Beware of Fragmentation: Scheduling
 * GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC '23) and of its
 * simulator (kubernetes-scheduler-simulator, "the reference" below):
 *  - a node has CPU (milli-cores), memory (MiB) and 0..8 GPUs of one model; each GPU has
 *    1000 "GPU-milli";
 *  - a pod asks for CPU, memory and either nothing on GPUs, a share of one GPU
 *    (num_gpu 1, gpu_milli < 1000) or num_gpu whole GPUs (gpu_milli 1000), optionally of
 *    some models only;
 *  - a pod fits a node when its CPU and memory fit (Kubernetes NodeResourcesFit), the model
 *    is allowed and its GPUs fit (Open-Gpu-Share's Filter: one GPU with enough left for a
 *    share, num_gpu free GPUs otherwise).
 *
 * Prefix cl_. Node specs and pods are immutable inputs; a run owns the node states.
 */
#ifndef SS_CLUSTER_H
#define SS_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#define CL_MAX_GPUS 8 /* the reference's MaxNumGpuPerNode */
#define CL_MAX_MODELS 64
#define CL_NAME_MAX 64
#define CL_MILLI 1000
/* The reference's normalising constants (open-gpu-share utils: MaxSpecCpu, MaxSpecGpu). */
#define CL_MAX_SPEC_CPU 128000
#define CL_MAX_SPEC_GPU 8000
/* Pod affinity tags for GPU clustering: 0 = shares a GPU, k = k whole GPUs. */
#define CL_AFF_N (CL_MAX_GPUS + 1)

struct cl_node_spec {
    char name[CL_NAME_MAX];
    int cpu_milli;
    long long mem_mib;
    int n_gpu;
    int model; /* index into cl_cluster.model; -1 when the node has no GPU */
    int mig;   /* MIG clusters: index into cl_cluster.mig_gpu, -1 = not MIG-capable */
    long line; /* of the node list (0 for nodes from the scenario) */
};

struct gpu_profile;

struct cl_cluster {
    int n_nodes;
    struct cl_node_spec *node;
    int n_models;
    char model[CL_MAX_MODELS][32];
    long long total_gpus;
    long long total_cpu_milli;
    char source[512]; /* the node list file, or "scenario" */
    /* MIG clusters: GPU profiles of the MIG-capable models (loaded by the scenario). */
    int n_mig_gpu;
    struct gpu_profile *mig_gpu;
};

struct cl_pod {
    char name[CL_NAME_MAX];
    int cpu_milli;
    long long mem_mib;
    int num_gpu;   /* 0: no GPU */
    int gpu_milli; /* per GPU, 1..1000 when num_gpu > 0; 0 otherwise */
    uint64_t spec; /* bit m set: model m allowed; 0 = any model */
    char spec_str[64];
    long long t_create, t_delete; /* seconds, on the trace's clock */
    long line;                    /* in the pod list */
    int cls;                      /* pod class (same requests), filled by cl_workload_load */
    int mig_prof;                 /* MIG clusters: profile index on its GPU model, -1 = none */
};

struct cl_workload {
    int n;
    struct cl_pod *pod; /* sorted by name (the reference sorts its workload so) */
    int n_cls;
    int *cls_rep; /* [n_cls]: a pod of each class */
    char source[512];
    char label[64]; /* the "workload" column of the CSV: the pod list's file name stem */
    int timed;      /* the list has creation_time and deletion_time; else every time is 0 */
    /* CL_OVERSIZED_FAIL: the pods no empty node could host (kept, they fail when placed) */
    int n_oversized;
    long oversized_line; /* the first of them */
    char oversized_name[CL_NAME_MAX];
};

/* ---- inputs (cl_input.c) ---------------------------------------------------------------- */

/* Model index of a name in the cluster, or -1. */
int cl_model_find(const struct cl_cluster *c, const char *name);
/* Adds a model name if new; its index, or -1 (with a message) past CL_MAX_MODELS. */
int cl_model_add(struct cl_cluster *c, const char *name, char *err, size_t errlen);

/*
 * Reads an openb node list (columns by name: sn (optional), cpu_milli, memory_mib, gpu,
 * model; other columns are ignored) into c, nodes sorted by sn as the reference sorts them.
 * Every error names the file, the line and the column.
 */
int cl_nodes_load_openb(const char *path, struct cl_cluster *c, char *err, size_t errlen);
/* Repeats the node list `scale` times (names get "-rN" suffixes after the first copy). */
void cl_cluster_scale(struct cl_cluster *c, int scale);
/* Recomputes totals after the nodes were filled. */
void cl_cluster_totals(struct cl_cluster *c);
void cl_cluster_free(struct cl_cluster *c);

/* What to do with a pod no empty node could host: refuse the list, or keep the pod, which
 * then fails in every experiment (the FGD simulator's answer, and the default). */
enum cl_oversized { CL_OVERSIZED_ERROR, CL_OVERSIZED_FAIL };

/*
 * Reads an openb pod list (sharesim's openb trace reader, io/trace.h) for the cluster c:
 * cpu_milli and memory_mib must be columns; a GPU model named in gpu_spec that no node has,
 * a multi-GPU request that shares GPUs, a GPU count with no GPU share, and (unless
 * oversized is CL_OVERSIZED_FAIL) a pod that fits no empty node are errors naming the line.
 * Pods are sorted by name (file order when there is no name column) and grouped in classes.
 * A list with neither creation_time nor deletion_time (the FGD simulator's multi-GPU
 * variants) is accepted with every time 0 and w->timed = 0: such pods can be inflated
 * (in name order for "order": "creation", as the reference's stable sort orders pods
 * without a creation time) but not replayed.
 */
int cl_workload_load(const char *path, const struct cl_cluster *c, enum cl_oversized oversized,
                     struct cl_workload *w, char *err, size_t errlen);
/* Assigns classes (pods with equal requests) after w->pod was filled by hand. */
void cl_workload_classes(struct cl_workload *w);
void cl_workload_free(struct cl_workload *w);

/* ---- node state ------------------------------------------------------------------------- */

struct cl_nstate {
    int cpu_left;
    int n_pods;
    long long mem_left;
    int16_t gpu_left[CL_MAX_GPUS]; /* GPU-milli left per GPU (index = device) */
    uint16_t aff[CL_AFF_N];        /* pods per affinity tag, for GPU clustering */
    uint32_t ver;                  /* changes whenever the node does (score caches) */
};

void cl_nstate_init(const struct cl_node_spec *n, struct cl_nstate *s);
/* The pod's affinity tag (0..CL_AFF_N-1), or -1 for a pod without GPUs. */
int cl_pod_aff(const struct cl_pod *p);
/* Total GPU-milli a pod asks for. */
static inline long long cl_pod_milli(const struct cl_pod *p)
{
    return (long long)p->num_gpu * p->gpu_milli;
}
/* Sum of the node's GPU-milli left. */
int cl_gpu_left_total(const struct cl_node_spec *n, const struct cl_nstate *s);
/* True when the pod may use the node's GPU model (no constraint, or the model is listed). */
int cl_model_ok(const struct cl_node_spec *n, const struct cl_pod *p);
/* The Filter: CPU, memory, model and GPUs fit (the file comment above). */
int cl_fits(const struct cl_node_spec *n, const struct cl_nstate *s, const struct cl_pod *p);

/* ---- typical pods and fragmentation (cl_frag.c) ------------------------------------------ */

/* One typical pod: the requests the fragmentation measure asks "could it run here?" about. */
struct cl_tpod {
    int cpu_milli;
    int num_gpu, gpu_milli;
    uint64_t spec;
    long long count; /* pods of the workload with these requests */
    double freq;     /* the reference's popularity weight, sum 1 */
};

struct cl_typical {
    int n;
    struct cl_tpod *t;
    long long count_sum; /* sum of count: freq = count / count_sum (exact form) */
};

/*
 * The reference's typical pods (utils.GetTypicalPods with the settings of its experiments:
 * CPU-only pods included, no GPU weighting, step 1): the workload's distinct requests
 * (CPU, GPU share, GPU count, model constraint; memory is not part of it) by decreasing
 * count (ties: larger requests first), the most popular kept until they cover `popularity`
 * (0.95) of the pods, weights renormalised over those kept.
 */
void cl_typical_build(const struct cl_workload *w, double popularity, struct cl_typical *tp);
void cl_typical_free(struct cl_typical *tp);

/*
 * Fragmentation of a node in the FGD sense (the paper's section 4; the reference's
 * NodeGpuShareFragAmount): for each typical pod m with weight p_m,
 *   - m asks for no GPU, cannot use the model, or its GPUs or CPU do not fit: all the
 *     node's free GPU-milli is fragment for m;
 *   - m fits: the free GPU-milli on GPUs with less left than m's share is fragment.
 * F(node) = sum_m p_m F_m: the expected free GPU-milli the next typical pod could not use.
 * *frag gets it computed as the reference does it in floating point (so that FGD's
 * truncated scores tie exactly where the reference's do); *num gets sum_m count_m F_m, an
 * exact integer (F = num / count_sum) that the cluster totals add up without rounding.
 */
void cl_frag_node(const struct cl_typical *tp, int model, int cpu_left, const int16_t *gpu_left,
                  int n_gpu, double *frag, long long *num);

/* A memo of cl_frag_node by state (model, CPU left, GPU-milli left as a multiset). */
struct cl_fragmemo;
struct cl_fragmemo *cl_fragmemo_new(const struct cl_typical *tp, size_t max_entries);
void cl_fragmemo_get(struct cl_fragmemo *m, int model, int cpu_left, const int16_t *gpu_left,
                     int n_gpu, double *frag, long long *num);
size_t cl_fragmemo_bytes(const struct cl_fragmemo *m);
void cl_fragmemo_free(struct cl_fragmemo *m);

#endif
