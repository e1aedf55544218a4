/*
 * tpgroup — a tenant's whole GPUs as tensor-parallel groups (tpgroup.h).
 */
#include "policy/tpgroup.h"

#include "base/util.h"
#include "llm/serving.h"
#include "llm/tp.h"

#include <string.h>

int tpg_degree(const struct scenario *sc, int tenant)
{
    const struct lsv_cfg *l = sc->tenants[tenant].llm;
    return l && l->tensor_parallel > 1 ? l->tensor_parallel : 1;
}

int tpg_check(const struct jv *j, const char *path, const struct scenario *sc, int tenant, int n,
              const int *gpus, const char *hint)
{
    int k = tpg_degree(sc, tenant);
    if (k == 1)
        return 0;
    const char *name = sc->tenants[tenant].name;
    char msg[SS_ERRLEN];
    if (tp_check_gpu(&sc->gpu, k, msg, sizeof msg))
        return jv_fail(j, path, "tenant \"%s\": %s", name, msg);
    if (n % k)
        return jv_fail(j, path,
                       "tenant \"%s\" has tensor_parallel %d but %d whole GPUs: an engine takes %d "
                       "whole GPUs (give it a multiple of %d)",
                       name, k, n, k, k);
    int domain = sc->gpu.link.domain_gpus, nvlink = strncmp(sc->gpu.link.kind, "nvlink", 6) == 0;
    for (int m = 0; m < n; m++) {
        int first = gpus[m - m % k], g = gpus[m];
        if (g / TP_NODE_GPUS != first / TP_NODE_GPUS)
            return jv_fail(j, path,
                           "tenant \"%s\" (tensor_parallel %d): GPUs %d and %d of one group are "
                           "on different nodes of %d GPUs (%s each %d of its GPUs in order share a "
                           "node)",
                           name, k, first, g, TP_NODE_GPUS, hint, k);
        if (nvlink && k <= domain && g / domain != first / domain)
            return jv_fail(j, path,
                           "tenant \"%s\" (tensor_parallel %d): GPUs %d and %d of one group are "
                           "in different NVLink domains of %d %s GPUs (%s each group lies in GPUs "
                           "%d·m to %d·m + %d)",
                           name, k, first, g, domain, sc->gpu.name, hint, domain, domain,
                           domain - 1);
    }
    return 0;
}
