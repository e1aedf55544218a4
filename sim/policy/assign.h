/*
 * assign — the "assign" object of the strategies that place tenants on GPUs, read
 * in one place so that every policy accepts the same shapes and words its errors the
 * same way. Either shape names every tenant of the scenario or none (a partial
 * placement is refused, naming a tenant left out), and GPU indices lie in [0, gpus).
 */
#ifndef SS_ASSIGN_H
#define SS_ASSIGN_H

#include "base/jsonv.h"
#include "core/scenario.h"

/*
 * {"tenant": gpu}: one GPU per tenant, shared with others (time-slicing, MPS). Absent:
 * tenant i on GPU i mod gpus, how a scheduler spreads replicas. gpu_of has one entry
 * per tenant. Returns 0, or -1 with the message in j.
 */
int asg_parse_one(const struct jv *j, const cJSON *obj, const char *path, const struct scenario *sc,
                  int *gpu_of);

/* Where a strategy that shares GPUs runs each tenant: one placement per tenant, and one per
 * GPU of an LLM tenant spread over several (asg_parse_spread). */
struct asg_place {
    int n;    /* placements */
    int *ten; /* per placement: its tenant */
    int *gpu; /* per placement: its GPU */
    int *first; /* per tenant, n_tenants + 1 entries: its placements are first[i] … first[i+1]−1 */
};

/*
 * As asg_parse_one, but an LLM tenant's member may also be an array of distinct GPU indices,
 * {"chat": [0, 1]}: an engine on each of them, behind the tenant's router
 * (docs/llm.md#replicas-behind-a-router). Into *pl the placements, in tenant order and each
 * tenant's GPUs in the order listed; gpu_of[i] gets tenant i's first GPU. Free pl with
 * asg_place_free, also after an error. 0, or -1 with the message in j.
 */
int asg_parse_spread(const struct jv *j, const cJSON *obj, const char *path,
                     const struct scenario *sc, int *gpu_of, struct asg_place *pl);
void asg_place_free(struct asg_place *pl);

/*
 * {"tenant": [gpu, …]}: whole GPUs owned by one tenant each (exclusive). owner has one
 * entry per GPU, -1 on entry, and gets the owning tenant (GPUs nobody lists stay -1).
 * Returns 1 when "assign" is absent (owner untouched), 0 when read, -1 on error.
 */
int asg_parse_owned(const struct jv *j, const cJSON *obj, const char *path,
                    const struct scenario *sc, int *owner);

#endif
