/*
 * tpgroup — the whole GPUs of an LLM tenant's tensor-parallel groups (docs/llm.md#tensor-
 * parallelism), for a strategy that hands a tenant whole GPUs: its GPUs in index order, k =
 * tensor_parallel at a time, each group inside one node of TP_NODE_GPUS and, when k fits the
 * profile's NVLink domain, inside one domain of domain_gpus (a bridged pair of cards talks to
 * the other pairs over PCIe). The MIG strategy's MIG-disabled GPUs use it (docs/mig.md#whole-
 * gpus-beside-mig-instances).
 */
#ifndef SS_TPGROUP_H
#define SS_TPGROUP_H

#include "base/jsonv.h"
#include "core/scenario.h"

/* The tenant's tensor_parallel: 1 for a plain tenant or an LLM tenant without a group. */
int tpg_degree(const struct scenario *sc, int tenant);

/*
 * Tenant `tenant`'s n whole GPUs gpus[] (increasing) as groups of its tensor_parallel k: n a
 * multiple of k, every group on one node and, when k fits the NVLink domain, in one domain.
 * hint says how the user moves GPUs (e.g. "order \"layouts\" so that …" is appended after it).
 * 0, or -1 with the message at path.
 */
int tpg_check(const struct jv *j, const char *path, const struct scenario *sc, int tenant, int n,
              const int *gpus, const char *hint);

#endif
