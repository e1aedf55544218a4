/*
 * llmmem — an LLM tenant's memory on a GPU shared without partitions (llmmem.h).
 */
#include "policy/llmmem.h"

#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

static int fail(const struct jv *j, const char *path, const char *name, const char *msg)
{
    if (!j)
        SS_FATAL("%s%s (parse() should have refused it)", name ? name : "", msg);
    if (name)
        return jv_fail(j, path, "tenant \"%s\": %s", name, msg);
    return jv_fail(j, path, "%s", msg);
}

/* GPU g's LLM placements: each one's memory and cache. */
static int one_gpu(const struct jv *j, const char *path, const struct scenario *sc,
                   const struct asg_place *pl, const double *limit_gb, const char *who, int g,
                   double *mem_gb, long *kv_blocks)
{
    double plain = 0, limits = 0;
    int open = 0;
    for (int p = 0; p < pl->n; p++) {
        int i = pl->ten[p];
        if (pl->gpu[p] != g)
            continue;
        const struct tenant_cfg *t = &sc->tenants[i];
        if (!t->llm)
            plain += t->memory_gb;
        else if (limit_gb && limit_gb[i] >= 0)
            limits += limit_gb[i];
        else
            open++;
    }
    char msg[SS_ERRLEN], where[256], err[SS_ERRLEN];
    double total = sc->gpu.memory_gb, free_gb = total - plain - limits;
    if (plain + limits > total + 1e-9) {
        snprintf(msg, sizeof msg,
                 "%s on GPU %d need %g GB together (%g GB of plain tenants' memory_gb, %g GB of "
                 "LLM tenants' limits), a %s has %g GB (memory is not isolated)",
                 who, g, plain + limits, plain, limits, sc->gpu.name, total);
        return fail(j, path, NULL, msg);
    }
    for (int p = 0; p < pl->n; p++) {
        int i = pl->ten[p];
        const struct tenant_cfg *t = &sc->tenants[i];
        if (pl->gpu[p] != g || !t->llm)
            continue;
        int limited = limit_gb && limit_gb[i] >= 0;
        double m = limited ? limit_gb[i] : free_gb / open;
        if (limited)
            snprintf(where, sizeof where, "its %g GB limit", m);
        else
            snprintf(where, sizeof where,
                     "the %.2f GB it gets on GPU %d (the %s's %g GB less %g GB of the others' "
                     "memory, over %d LLM tenant%s)",
                     m, g, sc->gpu.name, total, plain + limits, open, open == 1 ? "" : "s");
        if (lsv_kv_blocks(t->llm, m, where, &kv_blocks[p], err, sizeof err))
            return fail(j, path, t->name, err);
        mem_gb[p] = m;
    }
    return 0;
}

int llmm_placed(const struct jv *j, const char *path, const struct scenario *sc,
                const struct asg_place *pl, const double *limit_gb, const char *who, double *mem_gb,
                long *kv_blocks)
{
    /* Only the GPUs that hold an LLM tenant: a pass per such GPU. */
    unsigned char *seen = ss_xcalloc((size_t)sc->gpus, 1);
    int rc = 0;
    for (int p = 0; p < pl->n && rc == 0; p++)
        if (sc->tenants[pl->ten[p]].llm && !seen[pl->gpu[p]]) {
            seen[pl->gpu[p]] = 1;
            rc = one_gpu(j, path, sc, pl, limit_gb, who, pl->gpu[p], mem_gb, kv_blocks);
        }
    free(seen);
    return rc;
}

int llmm_shared(const struct jv *j, const char *path, const struct scenario *sc, const int *gpu_of,
                const double *limit_gb, const char *who, double *mem_gb, long *kv_blocks)
{
    /* One placement per tenant, tenant i the i-th. */
    int *ten = ss_xmalloc((size_t)sc->n_tenants * sizeof *ten);
    for (int i = 0; i < sc->n_tenants; i++)
        ten[i] = i;
    struct asg_place pl = {sc->n_tenants, ten, (int *)gpu_of, NULL};
    int rc = llmm_placed(j, path, sc, &pl, limit_gb, who, mem_gb, kv_blocks);
    free(ten);
    return rc;
}
