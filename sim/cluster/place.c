/*
 * place — the registry of placement policies (cl_place.h), in the reference's order
 * (its result folders 01-Random … 06-FGD).
 */
#include "cluster/cl_place.h"

#include <stdio.h>
#include <string.h>

static const struct cl_policy *const policies[] = {
    &cl_policy_random,  &cl_policy_dotprod, &cl_policy_clustering,
    &cl_policy_packing, &cl_policy_bestfit, &cl_policy_fgd,
};
#define N_POLICIES ((int)(sizeof policies / sizeof policies[0]))

int cl_policy_count(void)
{
    return N_POLICIES;
}

const struct cl_policy *cl_policy_at(int i)
{
    return i >= 0 && i < N_POLICIES ? policies[i] : NULL;
}

const struct cl_policy *cl_policy_find(const char *name)
{
    for (int i = 0; i < N_POLICIES; i++)
        if (strcmp(policies[i]->name, name) == 0)
            return policies[i];
    return NULL;
}

void cl_policy_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < N_POLICIES && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", policies[i]->name);
}
