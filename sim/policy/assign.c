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

/* asg_parse_one; with spread, members that are arrays are only marked seen (the caller reads
 * them). */
static int parse_one(const struct jv *j, const cJSON *obj, const char *path,
                     const struct scenario *sc, int *gpu_of, int spread)
{
    char p[512], q[600];
    for (int i = 0; i < sc->n_tenants; i++)
        gpu_of[i] = i % sc->gpus;
    const cJSON *assign = cJSON_GetObjectItemCaseSensitive(obj, "assign");
    if (!assign)
        return 0;
    jv_path_key(p, sizeof p, path, "assign");
    if (!cJSON_IsObject(assign))
        return jv_fail(j, p, "expected an object {\"tenant\": gpu_index}%s",
                       spread ? " (an LLM tenant: gpu_index or [gpu_index, …])" : "");
    int *seen = ss_xcalloc((size_t)sc->n_tenants, sizeof *seen);
    const cJSON *it;
    int rc = 0;
    cJSON_ArrayForEach(it, assign)
    {
        jv_path_key(q, sizeof q, p, it->string);
        int ti = member_tenant(j, q, sc, it), g = 0;
        if (ti >= 0 && spread && cJSON_IsArray(it)) {
            seen[ti] = 1;
            continue;
        }
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

int asg_parse_one(const struct jv *j, const cJSON *obj, const char *path, const struct scenario *sc,
                  int *gpu_of)
{
    return parse_one(j, obj, path, sc, gpu_of, 0);
}

/* Member it of tenant ti: its GPUs into gpus (the GPU count at most), their number returned;
 * -1 with the message in j. A plain tenant takes one index; an LLM tenant an array too. */
static int spread_member(const struct jv *j, const char *q, const struct scenario *sc,
                         const cJSON *it, int ti, int *gpus, unsigned char *mark)
{
    if (!cJSON_IsArray(it))
        return gpu_index(j, q, sc, it, &gpus[0]) ? -1 : 1;
    if (!sc->tenants[ti].llm)
        return jv_fail(j, q,
                       "tenant \"%s\" is not an LLM tenant: an array places an LLM tenant's "
                       "replicas (an engine on each GPU, behind its router); give one GPU index",
                       sc->tenants[ti].name);
    if (cJSON_GetArraySize(it) < 1)
        return jv_fail(j, q, "expected a GPU index or a non-empty array of GPU indices");
    char r[700];
    const cJSON *v;
    int n = 0, rc = 0;
    cJSON_ArrayForEach(v, it)
    {
        int g;
        jv_path_idx(r, sizeof r, q, n);
        if (gpu_index(j, r, sc, v, &g)) {
            rc = -1;
            break;
        }
        if (mark[g]) { /* so n never passes the pool's GPU count */
            rc = jv_fail(j, r, "GPU %d is listed twice for \"%s\" (one engine per GPU)", g,
                         sc->tenants[ti].name);
            break;
        }
        mark[g] = 1;
        gpus[n++] = g;
    }
    for (int k = 0; k < n; k++)
        mark[gpus[k]] = 0;
    return rc < 0 ? -1 : n;
}

void asg_place_free(struct asg_place *pl)
{
    free(pl->ten);
    free(pl->gpu);
    free(pl->first);
    *pl = (struct asg_place){0};
}

int asg_parse_spread(const struct jv *j, const cJSON *obj, const char *path,
                     const struct scenario *sc, int *gpu_of, struct asg_place *pl)
{
    int nt = sc->n_tenants;
    /* Per tenant its GPUs (at most the pool's each), then flattened in tenant order. */
    int *count = ss_xcalloc((size_t)nt, sizeof *count);
    int **list = ss_xcalloc((size_t)nt, sizeof *list);
    int rc = parse_one(j, obj, path, sc, gpu_of, 1);
    const cJSON *assign = cJSON_GetObjectItemCaseSensitive(obj, "assign");
    if (rc == 0 && assign) {
        unsigned char *mark = ss_xcalloc((size_t)sc->gpus, 1);
        char p[512], q[600];
        jv_path_key(p, sizeof p, path, "assign");
        const cJSON *it;
        cJSON_ArrayForEach(it, assign)
        {
            int ti = scn_tenant_index(sc, it->string);
            if (!cJSON_IsArray(it) || count[ti]) /* asg_parse_one read the plain ones */
                continue;
            jv_path_key(q, sizeof q, p, it->string);
            list[ti] = ss_xmalloc((size_t)sc->gpus * sizeof **list);
            int n = spread_member(j, q, sc, it, ti, list[ti], mark);
            if (n < 0) {
                rc = -1;
                break;
            }
            count[ti] = n;
            gpu_of[ti] = list[ti][0];
        }
        free(mark);
    }
    pl->first = ss_xcalloc((size_t)nt + 1, sizeof *pl->first);
    for (int i = 0; i < nt; i++)
        pl->first[i + 1] = pl->first[i] + (count[i] ? count[i] : 1);
    pl->n = pl->first[nt];
    pl->ten = ss_xmalloc((size_t)pl->n * sizeof *pl->ten);
    pl->gpu = ss_xmalloc((size_t)pl->n * sizeof *pl->gpu);
    for (int i = 0; i < nt; i++)
        for (int p = pl->first[i]; p < pl->first[i + 1]; p++) {
            pl->ten[p] = i;
            pl->gpu[p] = count[i] ? list[i][p - pl->first[i]] : gpu_of[i];
        }
    for (int i = 0; i < nt; i++)
        free(list[i]);
    free(list);
    free(count);
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
