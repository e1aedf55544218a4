/*
 * assign — parsing of "assign" (see assign.h). The two shapes share the member
 * checks below, so a wrong tenant name, a bad GPU index or a tenant left out reads
 * the same whatever the strategy.
 */
#include "policy/assign.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

/* The tenant a member of "assign" names, or -1 with the message in j. */
static int member_tenant(const struct jv *j, const char *q, const struct scenario *sc,
                         const cJSON *it)
{
    int ti = scn_tenant_index(sc, it->string);
    if (ti < 0)
        jv_fail(j, q, "no tenant named \"%s\"", it->string);
    return ti;
}

static int gpu_index(const struct jv *j, const char *q, const struct scenario *sc, const cJSON *v,
                     int *g)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble >= sc->gpus ||
        v->valuedouble != floor(v->valuedouble))
        return jv_fail(j, q, "expected a GPU index in [0, %d]", sc->gpus - 1);
    *g = (int)v->valuedouble;
    return 0;
}

/* All tenants or none: names the first tenant left out. */
static int check_all(const struct jv *j, const char *p, const struct scenario *sc, const int *seen)
{
    int n = 0, first = -1;
    for (int i = 0; i < sc->n_tenants; i++)
        if (seen[i])
            n++;
        else if (first < 0)
            first = i;
    if (first < 0)
        return 0;
    return jv_fail(j, p,
                   "%d of %d tenants are assigned (assign all tenants or none): \"%s\" is not", n,
                   sc->n_tenants, sc->tenants[first].name);
}

int asg_parse_one(const struct jv *j, const cJSON *obj, const char *path, const struct scenario *sc,
                  int *gpu_of)
{
    char p[512], q[600];
    for (int i = 0; i < sc->n_tenants; i++)
        gpu_of[i] = i % sc->gpus;
    const cJSON *assign = cJSON_GetObjectItemCaseSensitive(obj, "assign");
    if (!assign)
        return 0;
    jv_path_key(p, sizeof p, path, "assign");
    if (!cJSON_IsObject(assign))
        return jv_fail(j, p, "expected an object {\"tenant\": gpu_index}");
    int *seen = ss_xcalloc((size_t)sc->n_tenants, sizeof *seen);
    const cJSON *it;
    int rc = 0;
    cJSON_ArrayForEach(it, assign)
    {
        jv_path_key(q, sizeof q, p, it->string);
        int ti = member_tenant(j, q, sc, it), g;
        if (ti < 0 || gpu_index(j, q, sc, it, &g)) {
            rc = -1;
            break;
        }
        gpu_of[ti] = g;
        seen[ti] = 1;
    }
    if (rc == 0)
        rc = check_all(j, p, sc, seen);
    free(seen);
    return rc;
}

/* One member {"tenant": [gpu, …]} of the owned shape. */
static int parse_owned_member(const struct jv *j, const char *q, const struct scenario *sc,
                              const cJSON *it, int ti, int *owner)
{
    char r[700];
    if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) < 1)
        return jv_fail(j, q, "expected a non-empty array of GPU indices");
    const cJSON *v;
    int k = 0, g;
    cJSON_ArrayForEach(v, it)
    {
        jv_path_idx(r, sizeof r, q, k++);
        if (gpu_index(j, r, sc, v, &g))
            return -1;
        if (owner[g] >= 0)
            return jv_fail(j, r, "GPU %d is already assigned to \"%s\"", g,
                           sc->tenants[owner[g]].name);
        owner[g] = ti;
    }
    return 0;
}

int asg_parse_owned(const struct jv *j, const cJSON *obj, const char *path,
                    const struct scenario *sc, int *owner)
{
    char p[512], q[600];
    const cJSON *assign = cJSON_GetObjectItemCaseSensitive(obj, "assign");
    if (!assign)
        return 1;
    jv_path_key(p, sizeof p, path, "assign");
    if (!cJSON_IsObject(assign))
        return jv_fail(j, p, "expected an object {\"tenant\": [gpu, …]}");
    int *seen = ss_xcalloc((size_t)sc->n_tenants, sizeof *seen);
    const cJSON *it;
    int rc = 0;
    cJSON_ArrayForEach(it, assign)
    {
        jv_path_key(q, sizeof q, p, it->string);
        int ti = member_tenant(j, q, sc, it);
        if (ti < 0 || parse_owned_member(j, q, sc, it, ti, owner)) {
            rc = -1;
            break;
        }
        seen[ti] = 1;
    }
    if (rc == 0)
        rc = check_all(j, p, sc, seen);
    free(seen);
    return rc;
}
