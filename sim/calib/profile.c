/*
 * profile — see profile.h. Invariants: documents are never modified in place (merge
 * works on a copy); a diff only points into the two documents it compared, so they
 * must outlive it; every value object a fragment brings keeps its own source.
 */
#include "calib/profile.h"
#include "calib/vrange.h"
#include "base/name.h"
#include "calib/calib.h"
#include "base/util.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PROF_MAX_FILE (4u << 20)

static const char *meta_keys[] = {"schema", "name",     "aliases", "family", "family_default",
                                  "device", "measured", "notes",   "date",   "driver"};

int prof_is_meta(const char *key)
{
    for (size_t i = 0; i < sizeof meta_keys / sizeof *meta_keys; i++)
        if (strcmp(key, meta_keys[i]) == 0)
            return 1;
    return 0;
}

const char *prof_unit(const char *key)
{
    /* Exact names first, then suffixes (the key names carry their unit, calib.h). */
    static const struct {
        const char *key, *unit;
    } exact[] = {
        {"total_sms", "SMs"},
        {"mig_sms_7g", "SMs"},
        {"gpu_hour_usd", "USD/h"},
        {"mig_compute_slices", "slices"},
        {"mig_memory_slices", "slices"},
        {"mps_max_clients", "clients"},
        {"mps_max_clients_cuda13_1", "clients"},
    };
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (strcmp(key, exact[i].key) == 0)
            return exact[i].unit;
    static const struct {
        const char *suffix, *unit;
    } suffix[] = {
        {"_us", "us"},
        {"_ms", "ms"},
        {"_s", "s"},
        {"_gb", "GB"},
        {"_mb", "MB"},
        {"_gbps", "GB/s"},
        {"_kw", "kW"},
        {"_gflops", "GFLOP/s"},
        {"_tflops_fp16", "TFLOP/s"},
        {"_tflops_bf16", "TFLOP/s"},
        {"_tflops_fp8", "TFLOP/s"},
        {"_tflops_int8", "TOP/s"},
        {"_us_heavy", "us"},
        {"_ms_le8", "ms"},
        {"_ms_gt8", "ms"},
        {"_gbps_measured", "GB/s"},
    };
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++)
        if (ss_ends_with(key, suffix[i].suffix))
            return suffix[i].unit;
    return "";
}

static int read_json(const char *path, cJSON **doc, char *err, size_t errlen)
{
    char *text = NULL;
    if (ss_read_file(path, PROF_MAX_FILE, &text, NULL, err, errlen))
        return -1;
    const char *ep = NULL;
    *doc = cJSON_ParseWithOpts(text, &ep, 1);
    if (!*doc) {
        int off = ep ? (int)(ep - text) : 0;
        free(text);
        return ss_errf(err, errlen, "%s: JSON syntax error at byte %d", path, off);
    }
    free(text);
    if (!cJSON_IsObject(*doc)) {
        cJSON_Delete(*doc);
        *doc = NULL;
        return ss_errf(err, errlen, "%s: expected a JSON object", path);
    }
    return 0;
}

int prof_load(const char *name_or_path, cJSON **doc, char *path_out, char *err, size_t errlen)
{
    struct gpu_profile p;
    *doc = NULL;
    if (cal_load(name_or_path, &p, err, errlen))
        return -1;
    if (path_out)
        snprintf(path_out, PATH_MAX, "%s", p.path);
    return read_json(p.path, doc, err, errlen);
}

int prof_read_fragment(const char *path, cJSON **doc, char *err, size_t errlen)
{
    if (read_json(path, doc, err, errlen))
        return -1;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(*doc, "schema");
    const char *why = NULL;
    char key[128] = "";
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, PROF_SCHEMA) != 0)
        why = "\"schema\": expected \"" PROF_SCHEMA "\"";
    const cJSON *it;
    cJSON_ArrayForEach(it, *doc)
    {
        if (why)
            break;
        if (prof_is_meta(it->string))
            continue;
        snprintf(key, sizeof key, "%s", it->string);
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(it, "source");
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(it, "confidence");
        if (!cJSON_IsObject(it) || !cJSON_GetObjectItemCaseSensitive(it, "value"))
            why = "expected a value object {value, source, confidence}";
        else if (!cJSON_IsString(s) || !s->valuestring[0])
            why = "missing \"source\" (every value needs one)";
        else if (!cJSON_IsString(c) || !c->valuestring[0])
            why = "missing \"confidence\"";
    }
    if (!why) {
        /* A measured fragment may state its own range; it must hold its value as a profile's. */
        double lo, hi;
        cJSON_ArrayForEach(it, *doc)
        {
            if (!prof_is_meta(it->string) &&
                vr_parse(path, it->string, it, &lo, &hi, err, errlen) < 0) {
                cJSON_Delete(*doc);
                *doc = NULL;
                return -1;
            }
        }
        return 0;
    }
    cJSON_Delete(*doc);
    *doc = NULL;
    if (key[0])
        return ss_errf(err, errlen, "%s: \"%s\": %s", path, key, why);
    return ss_errf(err, errlen, "%s: %s", path, why);
}

/* Compares device names ignoring case and a leading "NVIDIA ". */
static int same_device(const char *a, const char *b)
{
    if (strncasecmp(a, "NVIDIA ", 7) == 0)
        a += 7;
    if (strncasecmp(b, "NVIDIA ", 7) == 0)
        b += 7;
    return strcasecmp(a, b) == 0;
}

static int doc_names_device(const cJSON *doc, const char *device)
{
    const char *fields[] = {"device", "name"};
    for (size_t i = 0; i < 2; i++) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(doc, fields[i]);
        if (cJSON_IsString(f) && same_device(f->valuestring, device))
            return 1;
    }
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(doc, "aliases"))
    {
        if (cJSON_IsString(a) && same_device(a->valuestring, device))
            return 1;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int prof_find_device(const char *device, char *name, size_t namelen, char *err, size_t errlen)
{
    const char *dir = cal_profile_dir();
    DIR *d = opendir(dir);
    if (!d) {
        ss_errf(err, errlen, "cannot open the profile directory %s", dir);
        return -2; /* not an answer: the caller's input is bad, not the device name */
    }
    char *files[256];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 256)
        if (ss_ends_with(de->d_name, ".json"))
            files[n++] = ss_xstrdup(de->d_name);
    closedir(d);
    qsort(files, (size_t)n, sizeof *files, by_name);
    int found = 0;
    char known[1024] = "";
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        cJSON *doc = NULL;
        if (read_json(path, &doc, NULL, 0) == 0) {
            const cJSON *dev = cJSON_GetObjectItemCaseSensitive(doc, "device");
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(doc, "name");
            if (!found && cJSON_IsString(nm) && doc_names_device(doc, device)) {
                snprintf(name, namelen, "%s", nm->valuestring);
                found = 1;
            }
            size_t kl = strlen(known);
            if (cJSON_IsString(dev))
                snprintf(known + kl, sizeof known - kl, "%s\"%s\"", kl ? ", " : "",
                         dev->valuestring);
            cJSON_Delete(doc);
        }
        free(files[i]);
    }
    if (found)
        return 0;
    return ss_errf(err, errlen, "no shipped profile for device \"%s\" in %s (known devices: %s)",
                   device, dir, known[0] ? known : "none");
}

/* ---- diff ---- */

struct changes {
    struct prof_change *v;
    size_t n, cap;
};

static void add_change(struct changes *c, const char *path, const cJSON *a, const cJSON *b)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->v = ss_xrealloc(c->v, c->cap * sizeof *c->v);
    }
    c->v[c->n++] = (struct prof_change){ss_xstrdup(path), a, b};
}

/* True when every element of the array is an object with a string "name". */
static int named_elements(const cJSON *arr)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "name")))
            return 0;
    }
    return 1;
}

static const cJSON *find_named(const cJSON *arr, const char *name)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring, name) == 0)
            return e;
    }
    return NULL;
}

static void diff_value(struct changes *c, const char *path, const cJSON *a, const cJSON *b);

static void diff_object(struct changes *c, const char *path, const cJSON *a, const cJSON *b)
{
    char sub[512];
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", x->string);
        diff_value(c, sub, x, cJSON_GetObjectItemCaseSensitive(b, x->string));
    }
    cJSON_ArrayForEach(x, b)
    {
        if (cJSON_GetObjectItemCaseSensitive(a, x->string))
            continue;
        snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", x->string);
        add_change(c, sub, NULL, x);
    }
}

static void diff_array(struct changes *c, const char *path, const cJSON *a, const cJSON *b)
{
    char sub[512];
    if (named_elements(a) && named_elements(b) && cJSON_GetArraySize(a) > 0) {
        const cJSON *x;
        cJSON_ArrayForEach(x, a)
        {
            const char *nm = cJSON_GetObjectItemCaseSensitive(x, "name")->valuestring;
            snprintf(sub, sizeof sub, "%s[%s]", path, nm);
            diff_value(c, sub, x, find_named(b, nm));
        }
        cJSON_ArrayForEach(x, b)
        {
            const char *nm = cJSON_GetObjectItemCaseSensitive(x, "name")->valuestring;
            if (find_named(a, nm))
                continue;
            snprintf(sub, sizeof sub, "%s[%s]", path, nm);
            add_change(c, sub, NULL, x);
        }
        return;
    }
    int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
    for (int i = 0; i < na || i < nb; i++) {
        snprintf(sub, sizeof sub, "%s[%d]", path, i);
        diff_value(c, sub, i < na ? cJSON_GetArrayItem(a, i) : NULL,
                   i < nb ? cJSON_GetArrayItem(b, i) : NULL);
    }
}

static void diff_value(struct changes *c, const char *path, const cJSON *a, const cJSON *b)
{
    if (!a || !b) {
        if (a || b)
            add_change(c, path, a, b);
        return;
    }
    if (cJSON_Compare(a, b, 1))
        return;
    if (cJSON_IsObject(a) && cJSON_IsObject(b))
        diff_object(c, path, a, b);
    else if (cJSON_IsArray(a) && cJSON_IsArray(b))
        diff_array(c, path, a, b);
    else
        add_change(c, path, a, b);
}

/* A value object: its value in depth, its confidence and source as one line each. */
static void diff_value_object(struct changes *c, const char *key, const cJSON *a, const cJSON *b)
{
    char sub[512];
    diff_value(c, key, cJSON_GetObjectItemCaseSensitive(a, "value"),
               cJSON_GetObjectItemCaseSensitive(b, "value"));
    const char *fields[] = {"confidence", "range", "source", "note"};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, fields[i]);
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, fields[i]);
        if ((x || y) && !(x && y && cJSON_Compare(x, y, 1))) {
            snprintf(sub, sizeof sub, "%s (%s)", key, fields[i]);
            add_change(c, sub, x, y);
        }
    }
}

/* A key on one side only is shown by its value, not the whole value object. */
static const cJSON *shown(const cJSON *x)
{
    const cJSON *v = NULL;
    if (!prof_is_meta(x->string) && cJSON_IsObject(x))
        v = cJSON_GetObjectItemCaseSensitive(x, "value");
    return v ? v : x;
}

void prof_diff(const cJSON *a, const cJSON *b, struct prof_change **out, size_t *n)
{
    struct changes c = {0};
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        if (strcmp(x->string, "schema") == 0)
            continue;
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
        if (!y)
            add_change(&c, x->string, shown(x), NULL);
        else if (prof_is_meta(x->string) || !cJSON_IsObject(x) || !cJSON_IsObject(y))
            diff_value(&c, x->string, x, y);
        else
            diff_value_object(&c, x->string, x, y);
    }
    cJSON_ArrayForEach(x, b)
    {
        if (strcmp(x->string, "schema") != 0 && !cJSON_GetObjectItemCaseSensitive(a, x->string))
            add_change(&c, x->string, NULL, shown(x));
    }
    *out = c.v;
    *n = c.n;
}

void prof_diff_free(struct prof_change *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(c[i].path);
    free(c);
}

int prof_rel_change(const struct prof_change *c, double *rel)
{
    if (!c->a || !c->b || !cJSON_IsNumber(c->a) || !cJSON_IsNumber(c->b) || c->a->valuedouble == 0)
        return 0;
    *rel = (c->b->valuedouble - c->a->valuedouble) / fabs(c->a->valuedouble);
    return 1;
}

char *prof_value_text(const cJSON *v)
{
    char buf[64];
    if (!v)
        return ss_xstrdup("");
    if (cJSON_IsNumber(v)) {
        snprintf(buf, sizeof buf, "%.10g", v->valuedouble);
        return ss_xstrdup(buf);
    }
    if (cJSON_IsString(v))
        return ss_xstrdup(v->valuestring);
    char *s = cJSON_PrintUnformatted(v);
    char *r = ss_xstrdup(s);
    cJSON_free(s);
    return r;
}

/* ---- merge ---- */

static const char *str_field(const cJSON *doc, const char *key)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(doc, key);
    return cJSON_IsString(f) ? f->valuestring : NULL;
}

static void set_meta(cJSON *doc, const char *key, cJSON *val)
{
    if (cJSON_GetObjectItemCaseSensitive(doc, key))
        cJSON_ReplaceItemInObjectCaseSensitive(doc, key, val);
    else
        cJSON_AddItemToObject(doc, key, val);
}

/* Checks the fragments before anything is copied: device, and no key measured twice. */
static int check_fragments(const cJSON *base, cJSON *const *frag, const char *const *names,
                           size_t n, int force, char *err, size_t errlen)
{
    const char *dev = str_field(base, "device");
    for (size_t i = 0; i < n; i++) {
        const char *fd = str_field(frag[i], "device");
        if (!force && dev && fd && !same_device(dev, fd))
            return ss_errf(err, errlen,
                           "%s: measured on \"%s\" but the base profile is for \"%s\" (use "
                           "--force to merge anyway)",
                           names[i], fd, dev);
        const cJSON *it;
        cJSON_ArrayForEach(it, frag[i])
        {
            if (prof_is_meta(it->string))
                continue;
            for (size_t j = 0; j < i; j++)
                if (cJSON_GetObjectItemCaseSensitive(frag[j], it->string))
                    return ss_errf(err, errlen, "\"%s\" is measured by both %s and %s", it->string,
                                   names[j], names[i]);
        }
    }
    return 0;
}

int prof_merge(const cJSON *base, cJSON *const *frag, const char *const *frag_names, size_t n,
               const char *name, int force, cJSON **out, char *err, size_t errlen)
{
    *out = NULL;
    if (n == 0)
        return ss_errf(err, errlen, "merge: no measurement files given");
    if (check_fragments(base, frag, frag_names, n, force, err, errlen))
        return -1;
    const char *base_name = str_field(base, "name");
    /* The name is checked here, before anything is built: a merged profile that the loader
     * would refuse must not be written (the default, BASE's name + "-measured", can pass the
     * length limit when BASE's name is near it). */
    char dflt[NAME_MAX_BYTES + 16], why[SS_ERRLEN];
    snprintf(dflt, sizeof dflt, "%.*s-measured", NAME_MAX_BYTES, base_name ? base_name : "GPU");
    const char *newname = name ? name : dflt;
    if (name_check(newname, why, sizeof why))
        return ss_errf(err, errlen, "the merged profile's name%s: %s",
                       name ? "" : " (BASE's name + \"-measured\"; give --name)", why);
    cJSON *doc = cJSON_Duplicate(base, 1);
    set_meta(doc, "name", cJSON_CreateString(newname));
    set_meta(doc, "aliases", cJSON_CreateArray());
    set_meta(doc, "measured", cJSON_CreateTrue());
    size_t cap = 1024, len = 0;
    char *keys = ss_xcalloc(cap, 1);
    const char *driver = NULL, *date = NULL, *device = NULL;
    for (size_t i = 0; i < n; i++) {
        const cJSON *it;
        cJSON_ArrayForEach(it, frag[i])
        {
            if (prof_is_meta(it->string))
                continue;
            set_meta(doc, it->string, cJSON_Duplicate(it, 1));
            size_t need = len + strlen(it->string) + 3;
            if (need >= cap) {
                cap = 2 * need;
                keys = ss_xrealloc(keys, cap);
            }
            len += (size_t)snprintf(keys + len, cap - len, "%s%s", len ? ", " : "", it->string);
        }
        if (str_field(frag[i], "driver"))
            driver = str_field(frag[i], "driver");
        if (str_field(frag[i], "date"))
            date = str_field(frag[i], "date");
        if (str_field(frag[i], "device"))
            device = str_field(frag[i], "device");
    }
    if (driver)
        set_meta(doc, "driver", cJSON_CreateString(driver));
    if (date)
        set_meta(doc, "date", cJSON_CreateString(date));
    size_t nl = strlen(keys) + 512;
    char *notes = ss_xmalloc(nl);
    snprintf(notes, nl,
             "Measured on %s (driver %s, %s) by the kernels/ microbenchmarks (scripts/calibrate): "
             "%s. Every other value is the shipped profile %s's.",
             device ? device : "an unnamed device", driver ? driver : "unknown",
             date ? date : "undated", keys[0] ? keys : "no values", base_name ? base_name : "");
    set_meta(doc, "notes", cJSON_CreateString(notes));
    free(notes);
    free(keys);
    *out = doc;
    return 0;
}

/* msg with every mention of the temporary file replaced by the name the user gave: by the
 * time the message is read the temporary is gone. */
static void name_user_file(char *msg, size_t n, const char *tmp, const char *out)
{
    char buf[SS_ERRLEN];
    size_t used = 0, tlen = strlen(tmp);
    for (const char *s = msg; *s && used + 1 < sizeof buf;) {
        if (strncmp(s, tmp, tlen) == 0) {
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s", out);
            s += tlen;
        } else {
            buf[used++] = *s++;
        }
    }
    buf[used < sizeof buf ? used : sizeof buf - 1] = '\0';
    snprintf(msg, n, "%s", buf);
}

int prof_write_merged(cJSON *doc, const char *out, char *err, size_t errlen)
{
    struct ss_out o;
    if (ss_out_open(&o, out, err, errlen))
        return -1;
    char *s = cJSON_Print(doc);
    fprintf(o.fp, "%s\n", s);
    cJSON_free(s);
    if (o.tmp) { /* not stdout, nor a device written in place */
        struct gpu_profile p;
        char why[SS_ERRLEN];
        fflush(o.fp);
        if (cal_load_file(o.tmp, &p, why, sizeof why)) {
            name_user_file(why, sizeof why, o.tmp, out);
            ss_out_abort(&o);
            return ss_errf(err, errlen, "the merged profile does not load: %s", why);
        }
    }
    return ss_out_commit(&o, err, errlen);
}
