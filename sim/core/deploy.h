/*
 * deploy — what a strategy's deploy hook (core/policy.h) writes the Kubernetes artefacts of
 * a plan with (`sharesim plan --k8s DIR`, docs/plan.md#kubernetes-artefacts). Prefix dp_.
 *
 * The hook knows its tool's files (a device plugin ConfigMap, a mig-manager ConfigMap, a
 * hypervisor note); what every plan needs besides — each tenant's pod `resources.limits`,
 * the README that says how to apply the files, the list of what was written — is gathered
 * here and written by the planner (tools/plan.c) after the hook, so a hook only declares
 * what its tenants must request (dp_limit) and how its files are applied (dp_readme).
 *
 * Every file starts with a comment naming the scenario and the candidate, and, when no
 * candidate met every SLA, says in capitals that this is the closest one and by how much
 * it misses: the marking travels with the files, not only with the command's output. The
 * comment is written through yw_comment (nothing in a name can end it); every object that
 * has metadata carries the same facts as annotations, scalars emitted by libyaml.
 *
 * The files are entries of the folder, written with ss_out_open_entry: a symbolic link
 * found at an artefact's name is replaced, never followed.
 */
#ifndef SS_DEPLOY_H
#define SS_DEPLOY_H

#include "base/yamlw.h"
#include "base/util.h"
#include "core/plancand.h"
#include "core/scenario.h"

#include <stddef.h>

#define DP_MAX_FILES 160 /* KI_MAX_NODES node files, a pod a tenant, the configs */
#define DP_MAX_LIMITS 4
#define DP_NAME_MAX 272 /* "node-" and a node name (KI_SUBDOMAIN_MAX) and ".yaml" */
/* A Kubernetes namespace is an RFC 1123 label: 1 to 63 characters, lower-case letters,
 * digits and '-', starting and ending with a letter or digit. */
#define DP_NAMESPACE_MAX 63
#define DP_NAMESPACE_RULE                                                                          \
    "a Kubernetes namespace is 1 to 63 lower-case letters, digits and '-', starting and ending "   \
    "with a letter or digit (RFC 1123 label)"

/* One resource a tenant's container must request: "nvidia.com/gpu" and its quantity. */
struct dp_limit {
    char resource[64];
    long quantity;
};

/*
 * Nodes the plan configures and the labels they must carry: a group is "the nodes that hold
 * the plan's GPUs" (group 0, made by dp_init), or one the hook makes (a vGPU tenant's VMs, one
 * MIG node of several). Every group carries DP_PLAN_LABEL = the plan's name, which the pods
 * select, so no label or selector the plan writes reaches a node it does not name. A group of
 * one tenant also carries DP_TENANT_LABEL, which only that tenant's pods select.
 */
#define DP_PLAN_LABEL "sharesim.io/plan"
#define DP_TENANT_LABEL "sharesim.io/tenant"
#define DP_MAX_LABELS 6
struct dp_group {
    char what[160]; /* for the README: "the nodes that hold the plan's 2 GPUs" */
    int count;      /* the nodes it needs: -1 any number; 0 the group is not used */
    int tenant;     /* -1: every tenant's pods select it */
    char key[DP_MAX_LABELS][64], value[DP_MAX_LABELS][64];
    int n_labels;
    int first, n; /* the named nodes it was given (sc->k8s.nodes[first ..]), by the planner */
};

struct dp_ctx {
    const char *dir; /* the --k8s folder (created by the planner) */
    const char *ns;  /* the GPU Operator's namespace, where its ConfigMaps live */
    const struct scenario *sc;
    const struct plan_cand *c; /* the candidate deployed: the recommendation, or the closest */
    int closest;               /* no candidate meets every SLA: c is the closest one */
    char files[DP_MAX_FILES][DP_NAME_MAX]; /* written so far, in order */
    char what[DP_MAX_FILES][160];          /* each one's header: what it is */
    int n_files;
    struct dp_limit (*limit)[DP_MAX_LIMITS]; /* per tenant */
    int *n_limit;                            /* per tenant */
    char *readme;                            /* the hook's "how to apply" section (Markdown) */
    size_t readme_n, readme_cap;
    int *replicas;          /* per tenant: the pods the plan runs (default 1) */
    char (*route)[480];     /* per tenant: how the simulation spread its requests over them */
    double *engine_gb;      /* per LLM tenant: the memory its engine was simulated with */
    double *visible_gb;     /* per LLM tenant: the memory its process sees (sets the flag) */
    struct dp_group *group; /* group[0]: the plan's nodes; the hook may add more */
    int n_groups, max_groups;
    char plan_name[64]; /* dp_plan_name: the key of every config and DP_PLAN_LABEL's value */
    char *err;
    size_t errlen;
};

/* A context for deploying c of sc into dir; dp_free releases it. */
void dp_init(struct dp_ctx *d, const char *dir, const char *ns, const struct scenario *sc,
             const struct plan_cand *c, int closest, char *err, size_t errlen);
void dp_free(struct dp_ctx *d);

/* Tenant i's container requests `quantity` of `resource` (resources.limits). */
void dp_limit(struct dp_ctx *d, int tenant, const char *resource, long quantity);
/* Tenant i runs n pods, its requests spread over them as `route` says (the README's words). */
void dp_replicas(struct dp_ctx *d, int tenant, int n, const char *route);
/* LLM tenant i's engine was simulated with engine_gb of memory in a process that sees
 * visible_gb (time-slicing: the whole GPU): its --gpu-memory-utilization is scaled so that
 * vLLM takes what the simulation gave it. Without a call both are the whole of what it sees. */
void dp_engine_memory(struct dp_ctx *d, int tenant, double engine_gb, double visible_gb);
/* A new group of nodes (count: the nodes it needs, -1 any; tenant: -1 all, else its own),
 * carrying DP_PLAN_LABEL (and DP_TENANT_LABEL for a tenant's): its index. */
int dp_group_add(struct dp_ctx *d, const char *what, int count, int tenant);
/* Group g's nodes carry key=value. */
void dp_group_label(struct dp_ctx *d, int g, const char *key, const char *value);
/* Appends Markdown to the README's section on applying the hook's files. */
void dp_readme(struct dp_ctx *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A YAML file of the folder: dp_yaml_open writes the header comment and opens the writer on
 * it, dp_yaml_commit closes it, renames it into place and records the name (-1 with d->err
 * if anything failed, the file then removed).
 */
struct dp_file {
    struct ss_out out;
    struct yw w;
    char name[DP_NAME_MAX];
    char what[160];
};
int dp_yaml_open(struct dp_ctx *d, struct dp_file *f, const char *name, const char *what);
int dp_yaml_commit(struct dp_ctx *d, struct dp_file *f);
/* A plain text file of the folder (the README), recorded like the others. */
int dp_text(struct dp_ctx *d, const char *name, const char *what, const char *text);

/* The first lines of a ConfigMap in d->ns with a metadata.name and the sharesim
 * annotations (the candidate, whether it meets the SLAs); leaves the writer inside `data`,
 * which the caller fills and closes with dp_configmap_end. */
void dp_configmap_begin(struct dp_ctx *d, struct yw *w, const char *name);
void dp_configmap_end(struct yw *w);
/* "annotations:" and its map, in the metadata being written: sharesim.io/scenario, /gpu,
 * /tenant (tenant >= 0), /candidate and /meets-slas, every value a scalar libyaml quotes. */
void dp_annotations(const struct dp_ctx *d, struct yw *w, int tenant);
/* 0 when ns is a Kubernetes namespace name, else -1 with why (DP_NAMESPACE_RULE appended). */
int dp_namespace_check(const char *ns, char *why, size_t n);

/* src reduced to a Kubernetes name ([a-z0-9-], starting and ending alphanumeric, at most
 * n − 1 and 40 characters): a container's, a ConfigMap key's. "" when nothing is left. */
void dp_k8s_name(const char *src, char *out, size_t n);
/* The name tools may use for this plan (a ConfigMap key, a mig config): "sharesim-" and the
 * scenario name reduced to what Kubernetes allows in a name ([a-z0-9-], 40 at most). */
void dp_plan_name(const struct dp_ctx *d, char *out, size_t n);

/* Tenant i's Kubernetes name: its name reduced as dp_k8s_name does, with "-<i>" when that is
 * empty or an earlier tenant reduces to the same ("Chat" and "chat"): the pod patch's file
 * name, the default workload and container name, DP_TENANT_LABEL's value. */
void dp_tenant_name(const struct scenario *sc, int i, char *out, size_t n);
/* Tenant i's workload: its "k8s" object with what it leaves out filled in (kind Deployment,
 * name and container dp_tenant_name; the namespace stays "" = kubectl's current one). */
void dp_workload(const struct scenario *sc, int i, struct ki_workload *w);

#endif
