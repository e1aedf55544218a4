/*
 * studyix — see studyix.h. Invariants: a loaded index has unique ids made of
 * [a-z0-9-] (they become file names under results/), every scenario study names
 * a scenario, every p99-vs-load plot has load scales, every reference row has
 * paper values > 0; the strings of a study point into the kept document.
 */
#include "core/studyix.h"
#include "base/jsonv.h"
#include "core/rdoc.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const sd_kind_names[] = {"scenario", "reference", "validation", "cluster", NULL};
static const char *const plot_names[] = {
    "cdf", "p99-vs-load", "util-vs-tenants", "mig-occupancy", "llm-sla", "llm-vs-load", NULL};

void sd_plot_names(unsigned plots, char *buf, size_t n)
{
    size_t l = 0;
    buf[0] = '\0';
    for (int k = 0; plot_names[k]; k++)
        if (plots & (1u << k))
            l += (size_t)snprintf(buf + l, l < n ? n - l : 0, "%s%s", l ? "," : "", plot_names[k]);
    if (!buf[0])
        snprintf(buf, n, "-");
}

static int parse_plots(const struct jv *j, const cJSON *o, const char *path, unsigned *plots)
{
    char p[512];
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "plots"), *it;
    *plots = 0;
    if (!a)
        return 0;
    jv_path_key(p, sizeof p, path, "plots");
    if (!cJSON_IsArray(a))
        return jv_fail(j, p, "expected an array of plot names");
    cJSON_ArrayForEach(it, a)
    {
        int k = 0;
        while (plot_names[k] &&
               !(cJSON_IsString(it) && strcmp(it->valuestring, plot_names[k]) == 0))
            k++;
        if (!plot_names[k])
            return jv_fail(j, p,
                           "expected plot names (cdf, p99-vs-load, util-vs-tenants, "
                           "mig-occupancy, llm-sla, llm-vs-load), got %s",
                           cJSON_IsString(it) ? it->valuestring : "a non-string");
        *plots |= 1u << k;
    }
    return 0;
}

static int parse_scales(const struct jv *j, const cJSON *o, const char *path, struct sd_study *st)
{
    char p[512];
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "load_scales"), *it;
    if (!a)
        return 0;
    jv_path_key(p, sizeof p, path, "load_scales");
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 || cJSON_GetArraySize(a) > SD_MAX_SCALES)
        return jv_fail(j, p, "expected an array of 1 to %d numbers", SD_MAX_SCALES);
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsNumber(it) || !(it->valuedouble > 0) || !(it->valuedouble <= 100))
            return jv_fail(j, p, "expected load scales > 0 and <= 100");
        if (st->n_scales > 0 && !(it->valuedouble > st->scales[st->n_scales - 1]))
            return jv_fail(j, p, "expected increasing load scales");
        st->scales[st->n_scales++] = it->valuedouble;
    }
    return 0;
}

static int parse_row(const struct jv *j, const cJSON *o, const char *path, struct sd_row *r)
{
    static const char *const keys[] = {"mode", "instances", "scenario", "strategy", "paper", NULL};
    static const char *const pkeys[] = {"tps_per_instance", "p99_ms", "gpu_util", NULL};
    char p[512];
    long inst;
    if (jv_object(j, o, path, keys) || jv_str(j, o, path, "mode", 1, &r->mode) ||
        jv_int(j, o, path, "instances", 1, 1, 1000, &inst) ||
        jv_str(j, o, path, "scenario", 1, &r->scenario) ||
        jv_str(j, o, path, "strategy", 1, &r->strategy))
        return -1;
    r->instances = (int)inst;
    const cJSON *pp = cJSON_GetObjectItemCaseSensitive(o, "paper");
    jv_path_key(p, sizeof p, path, "paper");
    if (!pp)
        return jv_fail(j, p, "missing (expected {\"tps_per_instance\", \"p99_ms\", \"gpu_util\"})");
    if (jv_object(j, pp, p, pkeys) ||
        jv_num_gt(j, pp, p, "tps_per_instance", 1, 0, 1e9, &r->paper_tps) ||
        jv_num_gt(j, pp, p, "p99_ms", 1, 0, 1e9, &r->paper_p99_ms) ||
        jv_num_gt(j, pp, p, "gpu_util", 1, 0, 1, &r->paper_util))
        return -1;
    for (const char *c = r->mode; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
            return jv_fail(j, path, "mode \"%s\": expected [a-z0-9-] (it names a file)", r->mode);
    return 0;
}

static int parse_rows(const struct jv *j, const cJSON *o, const char *path, struct sd_study *st)
{
    char p[512], q[512];
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "rows"), *it;
    jv_path_key(p, sizeof p, path, "rows");
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 || cJSON_GetArraySize(a) > SD_MAX_ROWS)
        return jv_fail(j, p, "expected an array of 1 to %d rows", SD_MAX_ROWS);
    cJSON_ArrayForEach(it, a)
    {
        struct sd_row *r = &st->rows[st->n_rows];
        if (parse_row(j, it, jv_path_idx(q, sizeof q, p, st->n_rows), r))
            return -1;
        for (int k = 0; k < st->n_rows; k++)
            if (strcmp(st->rows[k].mode, r->mode) == 0)
                return jv_fail(j, q, "mode \"%s\" given twice", r->mode);
        st->n_rows++;
    }
    return 0;
}

static int check_id(const struct jv *j, const char *path, const char *id)
{
    if (!*id)
        return jv_fail(j, path, "expected a non-empty id");
    for (const char *c = id; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
            return jv_fail(j, path, "id \"%s\": expected [a-z0-9-] (it names files)", id);
    return 0;
}

static int check_notes(const struct jv *j, const cJSON *o, const char *path, struct sd_study *st)
{
    char p[512];
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "notes"), *it;
    if (!n)
        return 0;
    jv_path_key(p, sizeof p, path, "notes");
    if (!cJSON_IsArray(n))
        return jv_fail(j, p, "expected an array of strings");
    cJSON_ArrayForEach(it, n)
    {
        if (!cJSON_IsString(it))
            return jv_fail(j, p, "expected an array of strings");
    }
    st->notes = n;
    return 0;
}

/* A cluster study's "scenarios": 1 to SD_MAX_ROWS file names. */
static int parse_scenarios(const struct jv *j, const cJSON *o, const char *path,
                           struct sd_study *st)
{
    char p[512];
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "scenarios"), *it;
    jv_path_key(p, sizeof p, path, "scenarios");
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 || cJSON_GetArraySize(a) > SD_MAX_ROWS)
        return jv_fail(j, p, "expected an array of 1 to %d scenario files", SD_MAX_ROWS);
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsString(it) || !it->valuestring[0] || strpbrk(it->valuestring, "\t\n,"))
            return jv_fail(j, p, "expected file names (no tab, newline or comma)");
        st->scenarios[st->n_scenarios++] = it->valuestring;
    }
    return 0;
}

static int parse_study(const struct jv *j, const cJSON *o, const char *path, struct sd_study *st)
{
    static const char *const keys[] = {"id",       "title",    "kind",      "scenario",
                                       "rows",     "plots",    "notes",     "load_scales",
                                       "requests", "question", "scenarios", NULL};
    int kind = SD_SCENARIO;
    char p[512];
    memset(st, 0, sizeof *st);
    if (jv_object(j, o, path, keys) || jv_str(j, o, path, "id", 1, &st->id) ||
        check_id(j, jv_path_key(p, sizeof p, path, "id"), st->id) ||
        jv_str(j, o, path, "title", 1, &st->title) ||
        jv_enum(j, o, path, "kind", 0, sd_kind_names, &kind) < 0 ||
        jv_str(j, o, path, "scenario", kind == SD_SCENARIO, &st->scenario) < 0 ||
        jv_str(j, o, path, "requests", 0, &st->requests) < 0 ||
        jv_str(j, o, path, "question", 0, &st->question) < 0 ||
        parse_plots(j, o, path, &st->plots) || parse_scales(j, o, path, st) ||
        check_notes(j, o, path, st))
        return -1;
    st->kind = (enum sd_kind)kind;
    if (kind == SD_REFERENCE && parse_rows(j, o, path, st))
        return -1;
    if (kind == SD_CLUSTER && parse_scenarios(j, o, path, st))
        return -1;
    if (kind != SD_CLUSTER && cJSON_GetObjectItemCaseSensitive(o, "scenarios"))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "scenarios"),
                       "only a cluster study has scenarios (a scenario study has \"scenario\")");
    if (kind != SD_REFERENCE && cJSON_GetObjectItemCaseSensitive(o, "rows"))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "rows"),
                       "only a reference study has rows");
    if ((st->plots & SD_PLOT_P99_LOAD) && st->n_scales == 0)
        return jv_fail(j, path, "plot p99-vs-load needs \"load_scales\"");
    if ((st->plots & SD_PLOT_LLM_LOAD) && st->n_scales == 0)
        return jv_fail(j, path, "plot llm-vs-load needs \"load_scales\"");
    if (strpbrk(st->title, "\t\n"))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "title"), "expected one line, no tabs");
    if (st->requests && strpbrk(st->requests, "\t\n"))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "requests"), "expected one line, no tabs");
    return 0;
}

int sd_load(const char *path, struct sd_index *ix, char *err, size_t errlen)
{
    static const char *const keys[] = {"studies", NULL};
    char *text, p[512];
    size_t len;
    memset(ix, 0, sizeof *ix);
    if (ss_read_file(path, 16u << 20, &text, &len, err, errlen))
        return -1;
    struct jv j = {path, err, errlen};
    ix->doc = jv_parse(&j, text, len);
    free(text);
    if (!ix->doc || jv_object(&j, ix->doc, "", keys))
        return -1;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(ix->doc, "studies"), *it;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1)
        return jv_fail(&j, "studies", "expected a non-empty array of studies");
    ix->s = ss_xcalloc((size_t)cJSON_GetArraySize(a), sizeof *ix->s);
    cJSON_ArrayForEach(it, a)
    {
        jv_path_idx(p, sizeof p, "studies", ix->n);
        if (parse_study(&j, it, p, &ix->s[ix->n]))
            return -1;
        if (sd_find(ix, ix->s[ix->n].id))
            return jv_fail(&j, p, "id \"%s\" given twice", ix->s[ix->n].id);
        ix->n++;
    }
    return 0;
}

void sd_free(struct sd_index *ix)
{
    free(ix->s);
    cJSON_Delete(ix->doc);
    memset(ix, 0, sizeof *ix);
}

const struct sd_study *sd_find(const struct sd_index *ix, const char *id)
{
    for (int k = 0; k < ix->n; k++)
        if (strcmp(ix->s[k].id, id) == 0)
            return &ix->s[k];
    return NULL;
}

char *sd_scenario_description(const char *path)
{
    char *text, err[SS_ERRLEN];
    size_t len;
    if (ss_read_file(path, 64u << 20, &text, &len, err, sizeof err))
        return NULL;
    cJSON *doc = cJSON_ParseWithLength(text, len);
    free(text);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "description");
    char *out = cJSON_IsString(d) ? ss_xstrdup(d->valuestring) : NULL;
    cJSON_Delete(doc);
    return out;
}

int sd_reference(const struct sd_study *st, const char *dir, struct sd_ref_row *out, cJSON **docs,
                 char *err, size_t errlen)
{
    for (int k = 0; k < st->n_rows; k++)
        docs[k] = NULL;
    for (int k = 0; k < st->n_rows; k++) {
        const struct sd_row *r = &st->rows[k];
        char path[1024];
        snprintf(path, sizeof path, "%s/%s-%s.json", dir, st->id, r->mode);
        if (rd_load(path, &docs[k], err, errlen))
            return -1;
        const cJSON *s = rd_strategy(docs[k], r->strategy);
        if (!s)
            return ss_errf(err, errlen, "%s: no strategy named \"%s\" (row %s)", path, r->strategy,
                           r->mode);
        int n = rd_n_tenants(s);
        if (n != r->instances)
            return ss_errf(err, errlen,
                           "%s: strategy \"%s\" has %d tenants, row %s says %d instances (one "
                           "tenant per instance)",
                           path, r->strategy, n, r->mode, r->instances);
        out[k].row = r;
        out[k].tps = rd_over_tenants(s, MT_TENANT, TM_THROUGHPUT, RD_MEAN);
        out[k].p99_ms = rd_over_tenants(s, MT_TENANT, TM_LAT_P99, RD_MEAN);
        out[k].util = rd_fig(s, MT_STRATEGY, SM_UTIL);
    }
    return 0;
}
