/*
 * model — model architectures and the shipped table (model.h).
 *
 * The table is read on each lookup: a scenario names a handful of models at load, and the
 * file is small (a few dozen entries), so caching would buy nothing and add state.
 */
#include "llm/model.h"

#include "llm/hfconfig.h"

#include "base/util.h"
#include "calib/calib.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const lm_kind_names[] = {"decoder", "embedding", "reranker", NULL};

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

/* The keys every model object may have, beside the table's "aliases". */
#define LM_SHAPE_KEYS                                                                              \
    "name", "params", "layers", "hidden", "intermediate", "heads", "kv_heads", "head_dim",         \
        "vocab", "source", "kind", "mlp", "experts", "experts_per_token", "moe_intermediate",      \
        "shared_intermediate", "dense_layers", "kv_lora_rank", "q_lora_rank", "qk_rope_dim",       \
        "qk_nope_dim", "v_head_dim"

/* An optional count in [0, hi]: 0 when absent. */
static int opt_key(const struct jv *j, const cJSON *obj, const char *path, const char *key, long hi,
                   int *out)
{
    long v = 0;
    if (jv_int(j, obj, path, key, 0, 0, hi, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* {"config": FILE, "name"?, "kind"?}: the model a Hugging Face config.json describes. */
static int parse_config(const struct jv *j, const cJSON *obj, const char *path, struct lm_model *m)
{
    static const char *const keys[] = {"config", "name", "kind", NULL};
    const char *file, *name = NULL;
    int kind = -1;
    char p[512];
    if (jv_object(j, obj, path, keys) || jv_str(j, obj, path, "config", 1, &file) < 0 ||
        jv_str(j, obj, path, "name", 0, &name) < 0 ||
        jv_enum(j, obj, path, "kind", 0, lm_kind_names, &kind) < 0)
        return -1;
    char full[PATH_MAX], msg[SS_ERRLEN];
    lm_resolve_path(j->file, file, full, sizeof full);
    if (hf_load(full, m, msg, sizeof msg))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "config"), "%s", msg);
    if (kind >= 0)
        m->kind = (enum lm_kind)kind;
    if (name) {
        if (strlen(name) >= sizeof m->name)
            return jv_fail(j, jv_path_key(p, sizeof p, path, "name"),
                           "expected at most %zu characters", sizeof m->name - 1);
        strcpy(m->name, name);
    }
    return 0;
}

void lm_resolve_path(const char *file, const char *rel, char *out, size_t n)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    if (rel[0] == '/' || !slash)
        snprintf(out, n, "%s", rel);
    else
        snprintf(out, n, "%.*s/%s", (int)(slash - file), file, rel);
}

/* The invariants of model.h that the parsers cannot check key by key. */
static int check_shapes(const struct jv *j, const char *path, struct lm_model *m)
{
    char p[512];
    if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "kv_heads"),
                       "expected a divisor of heads (%d), got %d", m->heads, m->kv_heads);
    if (m->experts > 0 && (m->experts_per_token < 1 || m->experts_per_token > m->experts))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "experts_per_token"),
                       "expected 1 to experts (%d), got %d", m->experts, m->experts_per_token);
    if (m->experts > 0 && m->moe_intermediate < 1)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "moe_intermediate"),
                       "missing (expected the width of one expert when experts is given)");
    if (m->experts == 0 && (m->experts_per_token || m->shared_intermediate || m->dense_layers))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "experts"),
                       "missing (experts_per_token, shared_intermediate and dense_layers describe "
                       "a mixture of experts)");
    if (m->dense_layers > m->layers)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "dense_layers"),
                       "expected at most layers (%d), got %d", m->layers, m->dense_layers);
    if (m->kv_lora_rank > 0 && (m->qk_rope_dim < 1 || m->qk_nope_dim < 1 || m->v_head_dim < 1))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "kv_lora_rank"),
                       "latent attention needs qk_rope_dim, qk_nope_dim and v_head_dim >= 1");
    lm_set_active(m);
    return 0;
}

int lm_parse(const struct jv *j, const cJSON *obj, const char *path, int with_source,
             struct lm_model *m)
{
    static const char *const inline_keys[] = {LM_SHAPE_KEYS, NULL};
    static const char *const table_keys[] = {LM_SHAPE_KEYS, "aliases", NULL};
    static const char *const mlps[] = {"gated", "plain", NULL};
    char p[512];
    const char *name = "inline model", *src;
    int kind = LM_DECODER, mlp = 0;
    if (!cJSON_IsObject(obj))
        return jv_fail(j, path, "expected a model name or an object {\"params\", \"layers\", …}");
    memset(m, 0, sizeof *m);
    if (!with_source && cJSON_GetObjectItemCaseSensitive(obj, "config"))
        return parse_config(j, obj, path, m);
    if (jv_object(j, obj, path, with_source ? table_keys : inline_keys) ||
        jv_str(j, obj, path, "name", with_source, &name) < 0 ||
        jv_str(j, obj, path, "source", with_source, &src) < 0 ||
        jv_enum(j, obj, path, "kind", 0, lm_kind_names, &kind) < 0 ||
        jv_enum(j, obj, path, "mlp", 0, mlps, &mlp) < 0)
        return -1;
    if (strlen(name) >= sizeof m->name)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "name"), "expected at most %zu characters",
                       sizeof m->name - 1);
    strcpy(m->name, name);
    m->kind = (enum lm_kind)kind;
    m->plain_mlp = mlp == 1;
    if (jv_num_gt(j, obj, path, "params", 1, 0, 1e13, &m->params) ||
        int_key(j, obj, path, "layers", 10000, &m->layers) ||
        int_key(j, obj, path, "hidden", 1000000, &m->hidden) ||
        int_key(j, obj, path, "intermediate", 10000000, &m->intermediate) ||
        int_key(j, obj, path, "heads", 10000, &m->heads) ||
        int_key(j, obj, path, "kv_heads", 10000, &m->kv_heads) ||
        int_key(j, obj, path, "head_dim", 100000, &m->head_dim) ||
        int_key(j, obj, path, "vocab", 100000000, &m->vocab) ||
        opt_key(j, obj, path, "experts", LM_MAX_EXPERTS, &m->experts) ||
        opt_key(j, obj, path, "experts_per_token", LM_MAX_EXPERTS, &m->experts_per_token) ||
        opt_key(j, obj, path, "moe_intermediate", 10000000, &m->moe_intermediate) ||
        opt_key(j, obj, path, "shared_intermediate", 10000000, &m->shared_intermediate) ||
        opt_key(j, obj, path, "dense_layers", 10000, &m->dense_layers) ||
        opt_key(j, obj, path, "kv_lora_rank", LM_MAX_RANK, &m->kv_lora_rank) ||
        opt_key(j, obj, path, "q_lora_rank", LM_MAX_RANK, &m->q_lora_rank) ||
        opt_key(j, obj, path, "qk_rope_dim", 100000, &m->qk_rope_dim) ||
        opt_key(j, obj, path, "qk_nope_dim", 100000, &m->qk_nope_dim) ||
        opt_key(j, obj, path, "v_head_dim", 100000, &m->v_head_dim))
        return -1;
    return check_shapes(j, path, m);
}

int lm_moe_layers(const struct lm_model *m)
{
    return m->experts > 0 ? m->layers - m->dense_layers : 0;
}

double lm_expert_params(const struct lm_model *m)
{
    return (m->plain_mlp ? 2.0 : 3.0) * m->hidden * m->moe_intermediate;
}

void lm_set_active(struct lm_model *m)
{
    m->active_params = m->params - (double)lm_moe_layers(m) * (m->experts - m->experts_per_token) *
                                       lm_expert_params(m);
}

double lm_expected_experts(int experts, int per_token, double tokens)
{
    if (tokens <= 0 || experts <= 0)
        return 0;
    if (per_token >= experts)
        return experts;
    /* Each token misses a given expert with probability 1 − k/E, independently of the others
     * under uniform routing; the expert is touched unless every token misses it. */
    return experts * (1 - pow(1 - (double)per_token / experts, tokens));
}

/* A name as the lookup compares it: without an organisation ("meta-llama/"), a "Meta-" in
 * front, or one variant suffix at the end (the variants share their base model's shapes). */
static void normalise(const char *in, char *out, size_t n)
{
    static const char *const suffixes[] = {"-Instruct", "-Chat", "-it", "-hf", "-Base", NULL};
    const char *slash = strrchr(in, '/');
    if (slash)
        in = slash + 1;
    if (strncasecmp(in, "Meta-", 5) == 0)
        in += 5;
    snprintf(out, n, "%s", in);
    size_t len = strlen(out);
    for (int i = 0; suffixes[i]; i++) {
        size_t k = strlen(suffixes[i]);
        if (len > k && strcasecmp(out + len - k, suffixes[i]) == 0) {
            out[len - k] = 0;
            break;
        }
    }
}

/* Whether entry e of the table is called want (its name or one of its aliases); normalised:
 * compare both sides normalised. */
static int entry_matches(const cJSON *e, const char *want, int normalised)
{
    char a_n[256], w_n[256];
    if (normalised)
        normalise(want, w_n, sizeof w_n);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name");
    const cJSON *names[2] = {n, cJSON_GetObjectItemCaseSensitive(e, "aliases")};
    for (int side = 0; side < 2; side++) {
        const cJSON *a = names[side];
        const cJSON *it = side == 0 ? a : a ? a->child : NULL;
        for (; it; it = side == 0 ? NULL : it->next) {
            if (!cJSON_IsString(it))
                continue;
            if (!normalised) {
                if (strcasecmp(it->valuestring, want) == 0)
                    return 1;
                continue;
            }
            normalise(it->valuestring, a_n, sizeof a_n);
            if (strcasecmp(a_n, w_n) == 0)
                return 1;
        }
    }
    return 0;
}

/* Whether two names start alike (their first four letters or digits, case ignored): the
 * entries whose aliases an unknown name's error spells out. */
static int alike(const char *a, const char *b)
{
    char na[256], nb[256];
    normalise(a, na, sizeof na);
    normalise(b, nb, sizeof nb);
    int k = 0;
    for (const char *x = na, *y = nb; k < 4; x++, y++) {
        while (*x && !isalnum((unsigned char)*x))
            x++;
        while (*y && !isalnum((unsigned char)*y))
            y++;
        if (!*x || !*y || tolower((unsigned char)*x) != tolower((unsigned char)*y))
            return 0;
        k++;
    }
    return 1;
}

static void append(char *buf, size_t n, const char *fmt, const char *s)
{
    size_t k = strlen(buf);
    if (k + 1 < n)
        snprintf(buf + k, n - k, fmt, s);
}

int lm_find(const char *table_path, const char *name, struct lm_model *m, char *err, size_t errlen)
{
    const char *path = table_path ? table_path : lm_table_path();
    struct jv j = {path, err, errlen};
    cJSON *root = jv_parse_file(&j, 4u << 20);
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
    /* Every entry is checked (a bad table fails whatever is asked); exact names and aliases
     * win over normalised ones, so that a variant listed on its own is found as itself. */
    char known[1024] = "", near[1024] = "";
    const cJSON *hit = NULL, *loose = NULL, *e;
    int i = 0;
    cJSON_ArrayForEach(e, models)
    {
        char p[64];
        jv_path_idx(p, sizeof p, "models", i++);
        struct lm_model cand;
        if (lm_parse(&j, e, p, 1, &cand))
            goto out;
        if (!hit && entry_matches(e, name, 0)) {
            hit = e, *m = cand;
        } else if (!hit && !loose && entry_matches(e, name, 1)) {
            loose = e;
            *m = cand;
        }
        append(known, sizeof known, known[0] ? ", %s" : "%s", cand.name);
        if (alike(cand.name, name)) {
            const cJSON *a;
            append(near, sizeof near, near[0] ? "; %s" : "%s", cand.name);
            int first = 1;
            cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(e, "aliases"))
            {
                append(near, sizeof near, first ? " (%s" : ", %s", a->valuestring);
                first = 0;
            }
            if (!first)
                append(near, sizeof near, "%s", ")");
        }
    }
    if (hit || loose) {
        rc = 0;
        goto out;
    }
    ss_errf(err, errlen,
            "unknown model \"%s\": expected one of %s%s%s (or a Hugging Face id, an -Instruct, "
            "-Chat or -it variant of one; `sharesim model list` shows every alias) (%s), an "
            "inline object or {\"config\": \"config.json\"}",
            name, known, near[0] ? "; aliases of the nearest: " : "", near, path);
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
    if (m->kv_lora_rank > 0) /* latent attention caches one latent and one RoPE key a layer */
        return (double)m->layers * (m->kv_lora_rank + m->qk_rope_dim) * roof_dtype_bytes(kv);
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
