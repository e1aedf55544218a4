/*
 * model — model architectures and the shipped table (model.h).
 *
 * The table is read on each lookup: a scenario names a handful of models at load, and the
 * file is small (six entries), so caching would buy nothing and add state.
 */
#include "llm/model.h"

#include "base/util.h"
#include "calib/calib.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *lm_table_path(void)
{
    static char path[PATH_MAX];
    const char *env = getenv("SHARESIM_MODELS");
    if (env && *env)
        return env;
    snprintf(path, sizeof path, "%s/models/llm.json", cal_profile_dir());
    return path;
}

static int int_key(const struct jv *j, const cJSON *obj, const char *path, const char *key, long hi,
                   int *out)
{
    long v;
    if (jv_int(j, obj, path, key, 1, 1, hi, &v))
        return -1;
    *out = (int)v;
    return 0;
}

int lm_parse(const struct jv *j, const cJSON *obj, const char *path, int with_source,
             struct lm_model *m)
{
    static const char *const inline_keys[] = {"name",         "params", "layers",   "hidden",
                                              "intermediate", "heads",  "kv_heads", "head_dim",
                                              "vocab",        "source", NULL};
    static const char *const table_keys[] = {"name",         "params",  "layers",   "hidden",
                                             "intermediate", "heads",   "kv_heads", "head_dim",
                                             "vocab",        "aliases", "source",   NULL};
    char p[512];
    const char *name = "inline model", *src;
    if (!cJSON_IsObject(obj))
        return jv_fail(j, path, "expected a model name or an object {\"params\", \"layers\", …}");
    if (jv_object(j, obj, path, with_source ? table_keys : inline_keys) ||
        jv_str(j, obj, path, "name", with_source, &name) < 0 ||
        jv_str(j, obj, path, "source", with_source, &src) < 0)
        return -1;
    memset(m, 0, sizeof *m);
    if (strlen(name) >= sizeof m->name)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "name"), "expected at most %zu characters",
                       sizeof m->name - 1);
    strcpy(m->name, name);
    if (jv_num_gt(j, obj, path, "params", 1, 0, 1e13, &m->params) ||
        int_key(j, obj, path, "layers", 10000, &m->layers) ||
        int_key(j, obj, path, "hidden", 1000000, &m->hidden) ||
        int_key(j, obj, path, "intermediate", 10000000, &m->intermediate) ||
        int_key(j, obj, path, "heads", 10000, &m->heads) ||
        int_key(j, obj, path, "kv_heads", 10000, &m->kv_heads) ||
        int_key(j, obj, path, "head_dim", 100000, &m->head_dim) ||
        int_key(j, obj, path, "vocab", 100000000, &m->vocab))
        return -1;
    if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "kv_heads"),
                       "expected a divisor of heads (%d), got %d", m->heads, m->kv_heads);
    return 0;
}

/* Whether entry e of the table is called want (its name or one of its aliases). */
static int entry_matches(const cJSON *e, const char *want)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name");
    if (cJSON_IsString(n) && strcasecmp(n->valuestring, want) == 0)
        return 1;
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(e, "aliases"))
    {
        if (cJSON_IsString(a) && strcasecmp(a->valuestring, want) == 0)
            return 1;
    }
    return 0;
}

int lm_find(const char *table_path, const char *name, struct lm_model *m, char *err, size_t errlen)
{
    const char *path = table_path ? table_path : lm_table_path();
    char *text = NULL;
    size_t len;
    if (ss_read_file(path, 4u << 20, &text, &len, err, errlen))
        return -1;
    struct jv j = {path, err, errlen};
    cJSON *root = jv_parse(&j, text, len);
    free(text);
    if (!root)
        return -1;
    int rc = -1;
    static const char *const top[] = {"schema", "notes", "models", NULL};
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(root, "models");
    if (jv_object(&j, root, "", top))
        goto out;
    if (!cJSON_IsArray(models)) {
        jv_fail(&j, "models", "expected an array of models");
        goto out;
    }
    char known[1024] = "";
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, models)
    {
        char p[64];
        jv_path_idx(p, sizeof p, "models", i++);
        struct lm_model cand;
        if (lm_parse(&j, e, p, 1, &cand))
            goto out;
        if (entry_matches(e, name)) {
            *m = cand;
            rc = 0;
            goto out;
        }
        size_t k = strlen(known);
        snprintf(known + k, sizeof known - k, "%s%s", k ? ", " : "", cand.name);
    }
    ss_errf(err, errlen, "unknown model \"%s\": expected one of %s (%s), or an inline object", name,
            known, path);
out:
    cJSON_Delete(root);
    return rc;
}

double lm_weight_bytes(const struct lm_model *m, enum roof_dtype d)
{
    return m->params * roof_dtype_bytes(d);
}

double lm_kv_bytes_per_token(const struct lm_model *m, enum roof_dtype kv)
{
    return 2.0 * m->layers * m->kv_heads * m->head_dim * roof_dtype_bytes(kv);
}

double lm_arch_params(const struct lm_model *m, int qkv_bias)
{
    double h = m->hidden, q = (double)m->heads * m->head_dim,
           kv = (double)m->kv_heads * m->head_dim;
    double attn = h * q + 2 * h * kv + q * h + (qkv_bias ? q + 2 * kv : 0);
    double mlp = 3 * h * m->intermediate;
    return m->layers * (attn + mlp + 2 * h) + h + 2 * (double)m->vocab * h;
}
