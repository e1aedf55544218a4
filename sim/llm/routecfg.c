/*
 * routecfg — the "router" key of an LLM tenant's serving object (routecfg.h).
 */
#include "llm/routecfg.h"

const char *const lrt_policy_names[] = {"least_outstanding", "round_robin", "least_kv", NULL};

int lrt_parse(const struct jv *j, const cJSON *obj, const char *path, int *policy)
{
    static const char *const keys[] = {"policy", NULL};
    *policy = LRT_LEAST_OUTSTANDING;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(obj, "router");
    if (!r)
        return 0;
    char p[512];
    jv_path_key(p, sizeof p, path, "router");
    if (!cJSON_IsObject(r))
        return jv_fail(j, p,
                       "expected an object {\"policy\": \"round_robin\" | \"least_outstanding\" "
                       "| \"least_kv\"}");
    if (jv_object(j, r, p, keys) || jv_enum(j, r, p, "policy", 1, lrt_policy_names, policy) < 0)
        return -1;
    return 0;
}
