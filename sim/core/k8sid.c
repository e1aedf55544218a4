/*
 * k8sid — the nodes and workloads a plan's artefacts name, checked as Kubernetes checks them
 * (see k8sid.h).
 */
#include "core/k8sid.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

const char *const ki_kind_names[] = {"Deployment", "StatefulSet", NULL};

static int alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* One label of len bytes at s (no terminator needed); at is where it starts in the whole
 * name, for the message. */
static int label_part(const char *s, size_t len, size_t at, const char *rule, char *why, size_t n)
{
    if (len == 0)
        return ss_errf(why, n, "an empty label at character %zu; %s", at + 1, rule);
    if (len > KI_LABEL_MAX)
        return ss_errf(why, n, "a label of %zu characters at character %zu, longer than %d; %s",
                       len, at + 1, KI_LABEL_MAX, rule);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!alnum(c) && c != '-')
            return ss_errf(why, n, "character %zu is not a lower-case letter, digit or '-'; %s",
                           at + i + 1, rule);
        if (!alnum(c) && (i == 0 || i == len - 1))
            return ss_errf(why, n, "a label starts or ends with '-' (character %zu); %s",
                           at + i + 1, rule);
    }
    return 0;
}

int ki_label_check(const char *s, char *why, size_t n)
{
    size_t len = strlen(s);
    if (len > KI_LABEL_MAX)
        return ss_errf(why, n, "%zu characters, longer than the limit of %d; %s", len, KI_LABEL_MAX,
                       KI_LABEL_RULE);
    return label_part(s, len, 0, KI_LABEL_RULE, why, n);
}

int ki_subdomain_check(const char *s, char *why, size_t n)
{
    size_t len = strlen(s);
    if (len > KI_SUBDOMAIN_MAX)
        return ss_errf(why, n, "%zu characters, longer than the limit of %d; %s", len,
                       KI_SUBDOMAIN_MAX, KI_SUBDOMAIN_RULE);
    if (len == 0)
        return ss_errf(why, n, "empty; %s", KI_SUBDOMAIN_RULE);
    size_t start = 0;
    for (size_t i = 0; i <= len; i++)
        if (s[i] == '.' || s[i] == '\0') {
            if (label_part(s + start, i - start, start, KI_SUBDOMAIN_RULE, why, n))
                return -1;
            start = i + 1;
        }
    return 0;
}

/* A string at obj.key checked by check into dst (size dstn); absent: dst untouched. */
static int name_field(const struct jv *j, const cJSON *obj, const char *path, const char *key,
                      int (*check)(const char *, char *, size_t), char *dst, size_t dstn)
{
    const char *s;
    int rc = jv_str(j, obj, path, key, 0, &s);
    if (rc)
        return rc < 0 ? -1 : 0;
    char p[512], why[SS_ERRLEN];
    if (check(s, why, sizeof why))
        return jv_fail(j, jv_path_key(p, sizeof p, path, key),
                       "\"%.300s\" is not a Kubernetes "
                       "name: %s",
                       s, why);
    snprintf(dst, dstn, "%s", s);
    return 0;
}

int ki_parse_workload(const struct jv *j, const cJSON *obj, const char *path,
                      struct ki_workload *out)
{
    static const char *const keys[] = {"namespace", "kind", "name", "container", NULL};
    memset(out, 0, sizeof *out);
    if (!obj)
        return 0;
    int kind = KI_DEPLOYMENT;
    if (jv_object(j, obj, path, keys) ||
        name_field(j, obj, path, "namespace", ki_label_check, out->ns, sizeof out->ns) ||
        jv_enum(j, obj, path, "kind", 0, ki_kind_names, &kind) < 0 ||
        name_field(j, obj, path, "name", ki_subdomain_check, out->name, sizeof out->name) ||
        name_field(j, obj, path, "container", ki_label_check, out->container,
                   sizeof out->container))
        return -1;
    out->kind = (enum ki_kind)kind;
    out->set = 1;
    return 0;
}

/* Appends node s to p unless it is there already (then -1 with why). */
static int add_node(struct ki_plan *p, const char *s, char *why, size_t n)
{
    if (p->n_nodes == KI_MAX_NODES)
        return ss_errf(why, n, "more than %d nodes, the limit of one plan", KI_MAX_NODES);
    if (ki_subdomain_check(s, why, n))
        return -1;
    for (int k = 0; k < p->n_nodes; k++)
        if (strcmp(p->nodes[k], s) == 0)
            return ss_errf(why, n, "node \"%s\" is named twice", s);
    if (!p->nodes)
        p->nodes = ss_xcalloc(KI_MAX_NODES, sizeof *p->nodes);
    snprintf(p->nodes[p->n_nodes++], sizeof p->nodes[0], "%s", s);
    return 0;
}

int ki_parse_plan(const struct jv *j, const cJSON *obj, const char *path, struct ki_plan *out)
{
    static const char *const keys[] = {"nodes", "rename", NULL};
    memset(out, 0, sizeof *out);
    if (!obj)
        return 0;
    if (jv_object(j, obj, path, keys) || jv_bool(j, obj, path, "rename", 0, &out->rename) < 0)
        return -1;
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(obj, "nodes"), *it;
    if (!nodes)
        return 0;
    char p[512], q[540], why[SS_ERRLEN];
    jv_path_key(p, sizeof p, path, "nodes");
    if (!cJSON_IsArray(nodes) || cJSON_GetArraySize(nodes) == 0)
        return jv_fail(j, p, "expected a non-empty array of node names");
    int i = 0;
    cJSON_ArrayForEach(it, nodes)
    {
        jv_path_idx(q, sizeof q, p, i++);
        if (!cJSON_IsString(it))
            return jv_fail(j, q, "expected a node name (a string)");
        if (add_node(out, it->valuestring, why, sizeof why))
            return jv_fail(j, q, "\"%.300s\": %s", it->valuestring, why);
    }
    return 0;
}

int ki_set_nodes(struct ki_plan *p, const char *list, char *why, size_t n)
{
    p->n_nodes = 0;
    const char *s = list;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char name[KI_SUBDOMAIN_MAX + 2];
        if (len > KI_SUBDOMAIN_MAX)
            return ss_errf(why, n, "a name of %zu characters, longer than the limit of %d; %s", len,
                           KI_SUBDOMAIN_MAX, KI_SUBDOMAIN_RULE);
        memcpy(name, s, len);
        name[len] = '\0';
        if (add_node(p, name, why, n)) {
            char msg[SS_ERRLEN];
            snprintf(msg, sizeof msg, "%s", why);
            return ss_errf(why, n, "node %d (\"%.300s\"): %s", p->n_nodes + 1, name, msg);
        }
        if (!comma)
            return 0;
        s = comma + 1;
    }
}

void ki_plan_free(struct ki_plan *p)
{
    free(p->nodes);
    memset(p, 0, sizeof *p);
}
