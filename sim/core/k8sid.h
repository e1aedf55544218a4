/*
 * k8sid — who a plan's Kubernetes artefacts configure (prefix ki_): the scenario's nodes
 * ("k8s": {"nodes", "rename"} at the top level, or `plan --nodes`) and each tenant's real
 * workload ("k8s": {"namespace", "kind", "name", "container"} in a tenant). docs/scenario.md
 * ("Kubernetes identity") is the contract; docs/plan.md says how the artefacts use them.
 *
 * The loader checks every name with the rule Kubernetes applies to it, so that a plan never
 * writes a patch the API server refuses or, worse, one that targets another object: a
 * namespace and a container name are RFC 1123 labels, a Deployment, a StatefulSet and a node
 * are named by RFC 1123 subdomains.
 */
#ifndef SS_K8SID_H
#define SS_K8SID_H

#include "base/jsonv.h"

#include <stddef.h>

/* RFC 1123: a label is 1 to 63 characters, a subdomain 1 to 253 (dot-separated labels). */
#define KI_LABEL_MAX 63
#define KI_SUBDOMAIN_MAX 253
/* Nodes one plan names: past this the README's per-node commands stop being readable, and a
 * plan of more nodes than this is a fleet's rollout, not one configuration. */
#define KI_MAX_NODES 64

#define KI_LABEL_RULE                                                                              \
    "1 to 63 lower-case letters, digits and '-', starting and ending with a letter or digit "      \
    "(an RFC 1123 label)"
#define KI_SUBDOMAIN_RULE                                                                          \
    "1 to 253 characters of dot-separated RFC 1123 labels (lower-case letters, digits and '-', "   \
    "each starting and ending with a letter or digit)"

enum ki_kind { KI_DEPLOYMENT, KI_STATEFULSET };
extern const char *const ki_kind_names[]; /* "Deployment", "StatefulSet", NULL */

/* A tenant's workload; a field left out is "" (kind: Deployment), and the planner falls back
 * to the tenant's name for the name and the container, and to kubectl's namespace. */
struct ki_workload {
    int set; /* the tenant has a "k8s" object */
    char ns[KI_LABEL_MAX + 1];
    enum ki_kind kind;
    char name[KI_SUBDOMAIN_MAX + 1];
    char container[KI_LABEL_MAX + 1];
};

/* The scenario's nodes (n_nodes 0: none named) and whether shared replicas are renamed. */
struct ki_plan {
    int n_nodes;
    char (*nodes)[KI_SUBDOMAIN_MAX + 1];
    int rename;
};

/* 0 when s follows the rule; else -1 with why (what is wrong, where, and the rule). */
int ki_label_check(const char *s, char *why, size_t n);
int ki_subdomain_check(const char *s, char *why, size_t n);

/* The tenant's "k8s" object at path (obj NULL: none, out zeroed). 0, or -1 with j's message. */
int ki_parse_workload(const struct jv *j, const cJSON *obj, const char *path,
                      struct ki_workload *out);
/* The top-level "k8s" object (obj NULL: none). 0, or -1 with j's message. */
int ki_parse_plan(const struct jv *j, const cJSON *obj, const char *path, struct ki_plan *out);
/* Replaces p's nodes with the comma-separated list (`plan --nodes a,b`): 0, or -1 with why. */
int ki_set_nodes(struct ki_plan *p, const char *list, char *why, size_t n);
void ki_plan_free(struct ki_plan *p);

#endif
