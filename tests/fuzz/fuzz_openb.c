/*
 * fuzz_openb — libFuzzer target for the cluster simulator's openb readers: the node list
 * (cl_nodes_load_openb) and the pod list through the trace reader (cl_workload_load, which
 * accepts the FGD simulator's lists without times), then one short experiment on what
 * loaded.
 *
 * Input: "NODES\n%%\nPODS" (a line "%%" splits a node list from a pod list), or only PODS,
 * placed on a fixed node list (three nodes, two GPU models, one CPU node). Each part is
 * written to its own memfd and read through /proc/self/fd/N, as the CLI reads files.
 * Invariants (a violation aborts, reported as a crash):
 *  - an error is a non-empty message naming the file it is about;
 *  - a node list that loads has >= 1 node, names sorted and unique, 0..8 GPUs, a model
 *    exactly when it has GPUs;
 *  - a pod list that loads has >= 1 pod sorted by name, valid classes, GPU requests in range
 *    (num_gpu <= 8; a share of 1..1000 when num_gpu > 0, 1000 for multi-GPU pods), no more
 *    oversized pods than pods, times 0 when the list has none;
 *  - the experiment (FGD, inflated to 1.0 x the GPUs when that places few pods, else a
 *    replay when the list has times) conserves pods: arrived = placed + failed + pending
 *    at every event (the engine asserts it), and its JSON passes cl_result_check's own
 *    checks, the ones a merge applies.
 */
#define _GNU_SOURCE
#include "base/util.h"
#include "cluster/cl_engine.h"
#include "cluster/cl_place.h"
#include "cluster/cl_report.h"
#include "cluster/cl_scenario.h"
#include "cluster/cluster.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char FIXED_NODES[] = "sn,cpu_milli,memory_mib,gpu,model\n"
                                  "n-b,16000,65536,2,T4\n"
                                  "n-a,32000,131072,4,V100\n"
                                  "n-c,8000,32768,0,\n";

static int fd_nodes = -1, fd_pods = -1;
static char path_nodes[64], path_pods[64];

static int open_memfd(const char *name, char *path, size_t n)
{
    int fd = memfd_create(name, 0);
    if (fd < 0)
        abort();
    snprintf(path, n, "/proc/self/fd/%d", fd);
    return fd;
}

static void put(int fd, const void *data, size_t size)
{
    if (ftruncate(fd, 0) != 0)
        abort();
    size_t off = 0;
    while (off < size) {
        ssize_t k = pwrite(fd, (const char *)data + off, size - off, (off_t)off);
        if (k <= 0)
            abort();
        off += (size_t)k;
    }
}

static void check_cluster(const struct cl_cluster *c)
{
    if (c->n_nodes < 1 || c->total_gpus < 0)
        abort();
    for (int i = 0; i < c->n_nodes; i++) {
        const struct cl_node_spec *n = &c->node[i];
        if (n->n_gpu < 0 || n->n_gpu > CL_MAX_GPUS || n->cpu_milli < 1 || n->mem_mib < 0)
            abort();
        if ((n->n_gpu > 0) != (n->model >= 0) || n->model >= c->n_models)
            abort();
        if (i > 0 && strcmp(c->node[i - 1].name, n->name) >= 0)
            abort();
    }
}

static void check_workload(const struct cl_workload *w)
{
    if (w->n < 1 || w->n_oversized < 0 || w->n_oversized > w->n || w->n_cls < 1)
        abort();
    for (int i = 0; i < w->n; i++) {
        const struct cl_pod *p = &w->pod[i];
        if (i > 0 && strcmp(w->pod[i - 1].name, p->name) > 0)
            abort();
        if (p->cls < 0 || p->cls >= w->n_cls || p->num_gpu < 0 || p->num_gpu > CL_MAX_GPUS)
            abort();
        if (p->num_gpu > 0 && (p->gpu_milli < 1 || p->gpu_milli > CL_MILLI))
            abort();
        if (p->num_gpu > 1 && p->gpu_milli != CL_MILLI)
            abort();
        if (!w->timed && (p->t_create != 0 || p->t_delete != 0))
            abort();
        if (p->t_delete < p->t_create)
            abort();
    }
}

/* One FGD experiment when it is small, its JSON checked as a merge would check it. */
static void run_one(const struct cl_cluster *c, struct cl_workload *w)
{
    if (c->total_gpus == 0)
        return;
    long long asked = 0;
    for (int i = 0; i < w->n; i++)
        asked += cl_pod_milli(&w->pod[i]);
    struct cl_scenario s;
    memset(&s, 0, sizeof s);
    s.cluster = *c;
    s.work = *w;
    s.n_policies = 1;
    s.policy[0] = &cl_policy_fgd;
    s.n_seeds = 1;
    s.seed[0] = 42;
    s.tune = 1.0;
    s.frag_threshold = 0.15;
    double target = (double)c->total_gpus * CL_MILLI;
    double pods = asked == 0 ? 1e300 : asked >= target ? w->n : w->n * target / (double)asked;
    if (pods * c->n_nodes <= 2e5) {
        s.mode = CL_INFLATE;
    } else if (w->timed && (double)w->n * c->n_nodes <= 2e5) {
        s.mode = CL_REPLAY;
        long long lo = w->pod[0].t_create, hi = 0;
        for (int i = 0; i < w->n; i++) {
            lo = w->pod[i].t_create < lo ? w->pod[i].t_create : lo;
            hi = w->pod[i].t_delete > hi ? w->pod[i].t_delete : hi;
        }
        s.sample_s = hi > lo ? (double)(hi - lo) / 50 : 1;
    } else {
        return;
    }
    cl_typical_build(w, 0.95, &s.typical);
    struct cl_run_cfg cfg;
    cl_scenario_cfg(&s, 0, 0, &cfg);
    struct cl_result r;
    char err[SS_ERRLEN];
    if (cl_run(c, w, &s.typical, &cfg, &r, err, sizeof err) != 0)
        abort();
    cJSON *o = cl_report_json(&r, cfg.policy, cfg.seed, s.mode, c->total_gpus, s.tune, s.sample_s,
                              s.frag_threshold);
    cJSON_AddNumberToObject(o, "mem_bytes", (double)r.mem_bytes);
    char *txt = cJSON_PrintUnformatted(o);
    char why[SS_ERRLEN];
    if (cl_result_check(&s, 0, txt, strlen(txt), why, sizeof why) != 0) {
        fprintf(stderr, "cl_result_check: %s\n", why);
        abort();
    }
    free(txt);
    cJSON_Delete(o);
    cl_result_free(&r);
    cl_typical_free(&s.typical);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fd_nodes < 0) {
        fd_nodes = open_memfd("fuzz-nodes", path_nodes, sizeof path_nodes);
        fd_pods = open_memfd("fuzz-pods", path_pods, sizeof path_pods);
    }
    const uint8_t *pods = data, *sep = NULL;
    size_t npods = size;
    for (size_t i = 0; i + 3 <= size; i++)
        if ((i == 0 || data[i - 1] == '\n') && memcmp(data + i, "%%\n", 3) == 0) {
            sep = data + i;
            break;
        }
    if (sep) {
        put(fd_nodes, data, (size_t)(sep - data));
        pods = sep + 3;
        npods = size - (size_t)(pods - data);
    } else {
        put(fd_nodes, FIXED_NODES, sizeof FIXED_NODES - 1);
    }
    put(fd_pods, pods, npods);
    struct cl_cluster c;
    char err[SS_ERRLEN] = "";
    if (cl_nodes_load_openb(path_nodes, &c, err, sizeof err) != 0) {
        if (!err[0] || !strstr(err, path_nodes))
            abort();
        return 0;
    }
    check_cluster(&c);
    struct cl_workload w;
    err[0] = 0;
    enum cl_oversized ov = size % 2 ? CL_OVERSIZED_ERROR : CL_OVERSIZED_FAIL;
    if (cl_workload_load(path_pods, &c, ov, &w, err, sizeof err) != 0) {
        if (!err[0] || !strstr(err, path_pods))
            abort();
        cl_cluster_free(&c);
        return 0;
    }
    check_workload(&w);
    if (ov == CL_OVERSIZED_ERROR && w.n_oversized != 0)
        abort();
    run_one(&c, &w);
    cl_workload_free(&w);
    cl_cluster_free(&c);
    return 0;
}
