/*
 * cl_engine — one cluster experiment: a placement policy, a seed, and the workload either
 * inflated (the FGD paper's workload inflation, section 6.1) or replayed with its creation
 * and deletion times. It records one cl_event after every pod event; cl_series turns them
 * into the reference's per-1 % columns or a time series.
 *
 * Randomness is Go's math/rand seeded with the seed (cl_rand.h), drawn in the reference's
 * order: one Int() (a debug line of the reference evaluates it), the pod order
 * (Shuffle), the inflation draws (Intn), the node ranks (Perm), then the Random policy's
 * draws while it places pods. So with the same seed the same pods arrive in the same
 * order on the same ranked nodes as in the reference.
 *
 * Invariant, checked after every event: arrived = placed + failed + pending.
 */
#ifndef SS_CL_ENGINE_H
#define SS_CL_ENGINE_H

#include "cluster/cl_place.h"
#include "cluster/cluster.h"

#include <stddef.h>

enum cl_mode { CL_INFLATE, CL_REPLAY };

struct cl_migcfg;

struct cl_run_cfg {
    const struct cl_policy *policy;
    long long seed;
    enum cl_mode mode;
    /* inflate */
    double tune; /* requested GPU-milli up to tune x the cluster's (1.3) */
    int shuffle; /* pods in a seeded random order (the reference's shufflePod); else by
                    creation time */
    /* replay */
    int wait; /* a pod that fits nowhere waits (Kubernetes) instead of failing (FGD) */
    const struct cl_migcfg *mig; /* MIG clusters, NULL otherwise */
    /* Optional: called as the experiment passes each tenth of its pod events (pods placed
     * when inflating, creations and deletions when replaying), done of total. Only for a
     * progress line: nothing it does may change the result. */
    void (*progress)(void *ctx, long done, long total);
    void *progress_ctx;
};

/* Calls cfg's progress hook when event `done` (1-based) of `total` starts a new tenth. */
static inline void cl_progress_tick(const struct cl_run_cfg *cfg, long done, long total)
{
    if (cfg->progress && total > 0 && done * 10 / total != (done - 1) * 10 / total)
        cfg->progress(cfg->progress_ctx, done, total);
}

struct cl_event {
    double t;                /* replay: seconds since the first creation; inflate: index */
    long long arrived_milli; /* GPU-milli asked for by the pods arrived so far */
    long long used_milli;    /* GPU-milli allocated now */
    long long frag_num;      /* cluster fragment amount x count_sum (exact) */
    int arrived, placed, failed, pending, running;
    /* MIG clusters */
    int reconfigs, changed, migrated; /* instances created or destroyed, pods moved */
    double downtime_s;
};

struct cl_result {
    long n_ev;
    struct cl_event *ev;
    long long cap_milli;            /* GPU-milli of the cluster */
    long long count_sum;            /* divide frag_num by it for GPU-milli */
    int n_pods;                     /* pods that arrived (after inflation) */
    size_t mem_bytes;               /* engine's heap at the end: states, caches, memo, events */
    double wait_mean_s, wait_max_s; /* replay with wait: of the pods placed after waiting */
    int waited;
};

/*
 * Runs one experiment. w's typical pods tp weigh fragmentation (also for policies other
 * than FGD: it is the metric). 0, or -1 with a message (only for a bad MIG setup: every
 * other input was checked when loaded).
 */
int cl_run(const struct cl_cluster *c, const struct cl_workload *w, const struct cl_typical *tp,
           const struct cl_run_cfg *cfg, struct cl_result *out, char *err, size_t errlen);
void cl_result_free(struct cl_result *r);

/* ---- the engine's pieces, for tests and the MIG layer -------------------------------- */

struct cl_engine;
struct cl_engine *cl_engine_new(const struct cl_cluster *c, const struct cl_workload *w,
                                const struct cl_typical *tp, const struct cl_policy *pol,
                                long long seed);
/* Ranks from a permutation drawn now (the reference's rand.Perm), or given. */
void cl_engine_draw_ranks(struct cl_engine *e);
void cl_engine_set_ranks(struct cl_engine *e, const int *rank);
struct cl_rand *cl_engine_rand(struct cl_engine *e);
/* Places a pod: its node (GPUs in *gpu_mask), or -1 when it fits nowhere. */
int cl_engine_place(struct cl_engine *e, const struct cl_pod *p, unsigned *gpu_mask);
/* Places a pod on a given node, if it fits there (for waiting pods). */
int cl_engine_place_on(struct cl_engine *e, const struct cl_pod *p, int node, unsigned *gpu_mask);
void cl_engine_remove(struct cl_engine *e, const struct cl_pod *p, int node, unsigned gpu_mask);
const struct cl_nstate *cl_engine_node(const struct cl_engine *e, int i);
long long cl_engine_used_milli(const struct cl_engine *e);
long long cl_engine_frag_num(const struct cl_engine *e);
size_t cl_engine_bytes(const struct cl_engine *e);
void cl_engine_free(struct cl_engine *e);

#endif
