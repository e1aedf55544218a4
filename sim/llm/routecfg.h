/*
 * routecfg — the router in front of an LLM tenant's replicas (docs/llm.md#replicas-behind-a-
 * router): its "serving" object's
 *
 *   "router": {"policy": "round_robin" | "least_outstanding" | "least_kv"}
 *
 * read here, apart from the rest of the serving object, so that the key has one owner. The
 * router itself (which engine takes a request) is policy/units/router.h; this file only names
 * the policies. Without the key a tenant with several engines is routed by least_outstanding.
 */
#ifndef SS_LLM_ROUTECFG_H
#define SS_LLM_ROUTECFG_H

#include "base/jsonv.h"

enum lrt_policy { LRT_LEAST_OUTSTANDING, LRT_ROUND_ROBIN, LRT_LEAST_KV, LRT_POLICIES };

/* The policies' names, by enum lrt_policy, NULL-terminated. */
extern const char *const lrt_policy_names[];

/* Reads obj's optional "router" (obj is the serving object at path) into *policy (the default,
 * LRT_LEAST_OUTSTANDING, when absent). 0, or -1 with a jv message naming the path. */
int lrt_parse(const struct jv *j, const cJSON *obj, const char *path, int *policy);

#endif
