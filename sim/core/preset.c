/* preset — work presets from kernels/profiles/workloads/presets.json (preset.h). */
#include "core/preset.h"

#include "base/util.h"
#include "calib/calib.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WP_MAX_FILE (1u << 20)

const char *wp_table_path(void)
{
    static char path[PATH_MAX];
    const char *env = getenv("SHARESIM_PRESETS");
    if (env && *env)
        return env;
    snprintf(path, sizeof path, "%s/workloads/presets.json", cal_profile_dir());
    return path;
}

static void copy_text(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

/* key of preset e: {"value", "source", "confidence", "fit_rows"?, "note"?}, value in [lo, hi]. */
static int read_value(const struct jv *j, const cJSON *e, const char *path, const char *key,
                      double lo, double hi, struct wp_value *v)
{
    static const char *const keys[] = {"value", "source", "confidence", "fit_rows", "note", NULL};
    char p[256], rp[256];
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(e, key), *row;
    const char *src, *conf;
    memset(v, 0, sizeof *v);
    if (!it)
        return 0;
    jv_path_key(p, sizeof p, path, key);
    if (!cJSON_IsObject(it))
        return jv_fail(j, p, "expected an object {\"value\": …, \"source\": …, \"confidence\": …}");
    if (jv_object(j, it, p, keys) || jv_num(j, it, p, "value", 1, lo, hi, &v->value) ||
        jv_str(j, it, p, "source", 1, &src) || jv_str(j, it, p, "confidence", 1, &conf))
        return -1;
    copy_text(v->source, sizeof v->source, src);
    copy_text(v->confidence, sizeof v->confidence, conf);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(it, "fit_rows");
    jv_path_key(rp, sizeof rp, p, "fit_rows");
    if (rows && !cJSON_IsArray(rows))
        return jv_fail(j, rp, "expected an array of sharing.csv ids");
    cJSON_ArrayForEach(row, rows)
    {
        if (!cJSON_IsString(row) || v->n_fit_rows == WP_MAX_FIT_ROWS)
            return jv_fail(j, rp, "expected at most %d sharing.csv ids (strings)", WP_MAX_FIT_ROWS);
        copy_text(v->fit_rows[v->n_fit_rows++], sizeof v->fit_rows[0], row->valuestring);
    }
    v->set = 1;
    return 0;
}

static int read_preset(const struct jv *j, const cJSON *e, const char *path, struct wp_preset *w)
{
    static const char *const keys[] = {
        "name",          "description", "class", "max_sm_fraction", "intensity", "host_fraction",
        "compute_share", "note",        NULL};
    static const char *const ckeys[] = {"value", "source", "confidence", "note", NULL};
    static const char *const classes[] = {"compute", "memory", "mixed", NULL};
    const char *name, *desc, *src;
    char p[256];
    int cls;
    if (!cJSON_IsObject(e))
        return jv_fail(j, path, "expected an object {\"name\", \"class\", …}");
    if (jv_object(j, e, path, keys) || jv_str(j, e, path, "name", 1, &name) ||
        jv_str(j, e, path, "description", 1, &desc))
        return -1;
    if (strlen(name) == 0 || strlen(name) >= WP_NAME_MAX)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "name"), "expected 1 to %d characters",
                       WP_NAME_MAX - 1);
    copy_text(w->name, sizeof w->name, name);
    copy_text(w->description, sizeof w->description, desc);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(e, "class");
    jv_path_key(p, sizeof p, path, "class");
    if (!cJSON_IsObject(c))
        return jv_fail(j, p, "expected an object {\"value\": \"compute\" | …, \"source\": …}");
    if (jv_object(j, c, p, ckeys) || jv_enum(j, c, p, "value", 1, classes, &cls) ||
        jv_str(j, c, p, "source", 1, &src))
        return -1;
    w->wclass = (enum work_class)cls;
    copy_text(w->class_source, sizeof w->class_source, src);
    /* The scenario's own ranges for these keys (docs/scenario.md#work). */
    if (read_value(j, e, path, "max_sm_fraction", 1e-6, 1, &w->max_sm_fraction) ||
        read_value(j, e, path, "intensity", SCN_MIN_INTENSITY, SCN_MAX_INTENSITY, &w->intensity) ||
        read_value(j, e, path, "host_fraction", 0, SCN_MAX_HOST_FRACTION, &w->host_fraction) ||
        read_value(j, e, path, "compute_share", 0, 1, &w->compute_share))
        return -1;
    if (w->intensity.set && w->wclass != CLASS_COMPUTE)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "intensity"),
                       "only for class \"compute\" (a mixed request's memory part is its "
                       "compute_share)");
    if (w->compute_share.set && w->wclass != CLASS_MIXED)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "compute_share"),
                       "only for class \"mixed\"");
    return 0;
}

int wp_load(const char *path, struct wp_table *t, char *err, size_t errlen)
{
    const char *file = path ? path : wp_table_path();
    memset(t, 0, sizeof *t);
    struct jv j = {file, err, errlen};
    cJSON *root = jv_parse_file(&j, WP_MAX_FILE);
    if (!root)
        return -1;
    static const char *const top[] = {"schema", "notes", "presets", NULL};
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "presets"), *e;
    int rc = -1;
    if (jv_object(&j, root, "", top))
        goto out;
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0) {
        jv_fail(&j, "presets", "expected a non-empty array of presets");
        goto out;
    }
    cJSON_ArrayForEach(e, list)
    {
        char p[64];
        jv_path_idx(p, sizeof p, "presets", t->n);
        if (t->n == WP_MAX_PRESETS) {
            jv_fail(&j, p, "more than %d presets", WP_MAX_PRESETS);
            goto out;
        }
        if (read_preset(&j, e, p, &t->p[t->n]))
            goto out;
        if (wp_find(t, t->p[t->n].name)) {
            jv_fail(&j, p, "a second preset named \"%s\"", t->p[t->n].name);
            goto out;
        }
        t->n++;
    }
    rc = 0;
out:
    cJSON_Delete(root);
    return rc;
}

const struct wp_preset *wp_find(const struct wp_table *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->p[i].name, name) == 0)
            return &t->p[i];
    return NULL;
}

int wp_apply(const struct jv *j, const cJSON *obj, const char *path, struct work_cfg *w)
{
    const char *name;
    char p[512];
    w->preset_class = -1;
    int r = jv_str(j, obj, path, "preset", 0, &name);
    if (r)
        return r < 0 ? -1 : 0;
    jv_path_key(p, sizeof p, path, "preset");
    struct wp_table *t = ss_xcalloc(1, sizeof *t);
    char why[SS_ERRLEN];
    if (wp_load(NULL, t, why, sizeof why)) {
        free(t);
        return jv_fail(j, p, "cannot read the preset table: %s", why);
    }
    const struct wp_preset *pr = wp_find(t, name);
    if (!pr) {
        char names[WP_MAX_PRESETS * (WP_NAME_MAX + 2)] = "";
        for (int i = 0; i < t->n; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     t->p[i].name);
        free(t);
        return jv_fail(j, p, "unknown preset \"%s\": expected one of %s (%s)", name, names,
                       wp_table_path());
    }
    if (pr->max_sm_fraction.set)
        w->max_sm_fraction = pr->max_sm_fraction.value;
    w->intensity = pr->intensity.set ? pr->intensity.value : 0;
    w->host_fraction = pr->host_fraction.set ? pr->host_fraction.value : 0;
    w->preset_class = (int)pr->wclass;
    w->preset_compute_share = pr->compute_share.set ? pr->compute_share.value : 0.5;
    free(t);
    return 0;
}
