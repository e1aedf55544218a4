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

/*
 * {"tenant": [gpu, …]}: whole GPUs owned by one tenant each (exclusive). owner has one
 * entry per GPU, -1 on entry, and gets the owning tenant (GPUs nobody lists stay -1).
 * Returns 1 when "assign" is absent (owner untouched), 0 when read, -1 on error.
 */
int asg_parse_owned(const struct jv *j, const cJSON *obj, const char *path,
                    const struct scenario *sc, int *owner);

#endif
