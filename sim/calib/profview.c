/*
 * profview — calibration profiles as people and tools read them: `profile show`'s table (key,
 * value, unit, confidence, wrapped source; wide values listed below it) and `profile diff`'s
 * table, JSON and CSV rows. Here, beside the loader (profile.h), so a new kind of value is
 * shown by the module that defines it.
 */
#include "calib/profview.h"
#include "base/textcol.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define SHOW_VALUE_MAX 16

static void show_header(FILE *fp, const cJSON *doc, const char *path, int width)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(doc, "name");
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(doc, "device");
    int measured = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "measured"));
    fprintf(fp, "%s  (%s)  %s\n", name->valuestring, cJSON_IsString(dev) ? dev->valuestring : "-",
            measured ? "measured profile" : "shipped profile");
    fprintf(fp, "file: %s\n", path);
    const char *extra[] = {"driver", "date"};
    for (size_t i = 0; i < 2; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(doc, extra[i]);
        if (cJSON_IsString(x))
            fprintf(fp, "%s: %s\n", extra[i], x->valuestring);
    }
    const cJSON *al = cJSON_GetObjectItemCaseSensitive(doc, "aliases");
    if (cJSON_GetArraySize(al) > 0) {
        char buf[1024] = "";
        const cJSON *a;
        cJSON_ArrayForEach(a, al)
        {
            size_t l = strlen(buf);
            if (cJSON_IsString(a))
                snprintf(buf + l, sizeof buf - l, "%s%s", l ? ", " : "", a->valuestring);
        }
        tc_print_wrapped(fp, "aliases: ", buf, width);
    }
    const cJSON *notes = cJSON_GetObjectItemCaseSensitive(doc, "notes");
    if (cJSON_IsString(notes))
        tc_print_wrapped(fp, "notes: ", notes->valuestring, width);
    fputc('\n', fp);
}

/* The value column text: scalars as they are, wide values deferred below the table. */
static char *cell_value(const cJSON *v, int *deferred)
{
    char *t = prof_value_text(v);
    *deferred = 0;
    if (tc_width(t) <= SHOW_VALUE_MAX)
        return t;
    free(t);
    *deferred = 1;
    return ss_xstrdup(cJSON_IsArray(v) ? "(list below)" : "(see below)");
}

/* Column widths of the show table (the source column takes the rest of the line). */
struct cols {
    int key, value, unit, conf;
};

static void show_row(FILE *fp, const char *key, const struct cols *w, const cJSON *vo, int width)
{
    int deferred;
    char *val = cell_value(cJSON_GetObjectItemCaseSensitive(vo, "value"), &deferred);
    const cJSON *conf = cJSON_GetObjectItemCaseSensitive(vo, "confidence");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(vo, "source");
    const cJSON *note = cJSON_GetObjectItemCaseSensitive(vo, "note");
    int fixed = w->key + w->value + w->unit + w->conf + 8;
    char **lines, **nlines = NULL;
    size_t n = tc_wrap(src->valuestring, width - fixed, &lines), nn = 0;
    if (cJSON_IsString(note)) {
        size_t len = strlen(note->valuestring) + 8;
        char *t = ss_xmalloc(len);
        snprintf(t, len, "note: %s", note->valuestring);
        nn = tc_wrap(t, width - fixed, &nlines);
        free(t);
    }
    /* The stated range (calib/vrange.h), on a line of its own after the source. */
    char range[96] = "";
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(vo, "range");
    if (cJSON_GetArraySize(r) == 2)
        snprintf(range, sizeof range, "range: %g to %g%s%s", cJSON_GetArrayItem(r, 0)->valuedouble,
                 cJSON_GetArrayItem(r, 1)->valuedouble, prof_unit(key)[0] ? " " : "",
                 prof_unit(key));
    size_t nr = range[0] ? 1 : 0;
    for (size_t i = 0; i < n + nr + nn || i == 0; i++) {
        if (i == 0) {
            tc_pad(fp, key, w->key + 2);
            tc_pad(fp, val, w->value + 2);
            tc_pad(fp, prof_unit(key), w->unit + 2);
            tc_pad(fp, cJSON_IsString(conf) ? conf->valuestring : "", w->conf + 2);
        } else {
            fprintf(fp, "%*s", fixed, "");
        }
        fprintf(fp, "%s\n",
                i < n             ? lines[i]
                : i < n + nr      ? range
                : i < n + nr + nn ? nlines[i - n - nr]
                                  : "");
    }
    tc_free_lines(lines, n);
    if (nlines)
        tc_free_lines(nlines, nn);
    free(val);
}

static void show_mig(FILE *fp, const cJSON *arr)
{
    fprintf(fp, "\nMIG profiles (mig_profiles):\n");
    fprintf(fp, "%-14s %-8s %5s %10s %4s  %s\n", "name", "slices", "SMs", "memory GB", "max",
            "starts (memory slice)");
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        char sl[16], starts[64] = "";
        snprintf(sl, sizeof sl, "%d/%d",
                 cJSON_GetObjectItemCaseSensitive(e, "compute_slices")->valueint,
                 cJSON_GetObjectItemCaseSensitive(e, "memory_slices")->valueint);
        const cJSON *s;
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(e, "starts"))
        {
            size_t l = strlen(starts);
            snprintf(starts + l, sizeof starts - l, "%s%d", l ? "," : "", s->valueint);
        }
        fprintf(fp, "%-14s %-8s %5d %10g %4d  %s (size %d)\n",
                cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring, sl,
                cJSON_GetObjectItemCaseSensitive(e, "sm_count")->valueint,
                cJSON_GetObjectItemCaseSensitive(e, "memory_gb")->valuedouble,
                cJSON_GetObjectItemCaseSensitive(e, "max_instances")->valueint, starts,
                cJSON_GetObjectItemCaseSensitive(e, "size")->valueint);
    }
}

void prof_print_show(FILE *fp, const cJSON *doc, const char *path, int width)
{
    show_header(fp, doc, path, width);
    struct cols w = {3, 5, 4, 10};
    const cJSON *it;
    cJSON_ArrayForEach(it, doc)
    {
        if (prof_is_meta(it->string))
            continue;
        int deferred, cw;
        char *v = cell_value(cJSON_GetObjectItemCaseSensitive(it, "value"), &deferred);
        const cJSON *conf = cJSON_GetObjectItemCaseSensitive(it, "confidence");
        if ((cw = tc_width(it->string)) > w.key)
            w.key = cw;
        if ((cw = tc_width(v)) > w.value)
            w.value = cw;
        if ((cw = tc_width(prof_unit(it->string))) > w.unit)
            w.unit = cw;
        if (cJSON_IsString(conf) && (cw = tc_width(conf->valuestring)) > w.conf)
            w.conf = cw;
        free(v);
    }
    tc_pad(fp, "key", w.key + 2);
    tc_pad(fp, "value", w.value + 2);
    tc_pad(fp, "unit", w.unit + 2);
    tc_pad(fp, "confidence", w.conf + 2);
    fprintf(fp, "source\n");
    cJSON_ArrayForEach(it, doc)
    {
        if (!prof_is_meta(it->string))
            show_row(fp, it->string, &w, it, width);
    }
    cJSON_ArrayForEach(it, doc)
    {
        if (prof_is_meta(it->string))
            continue;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "value");
        int deferred;
        free(cell_value(v, &deferred));
        if (!deferred)
            continue;
        if (strcmp(it->string, "mig_profiles") == 0 && cJSON_IsArray(v)) {
            show_mig(fp, v);
            continue;
        }
        char *t = prof_value_text(v);
        char label[160];
        snprintf(label, sizeof label, "%s: ", it->string);
        fputc('\n', fp);
        tc_print_wrapped(fp, label, t, width);
        free(t);
    }
}

void prof_print_diff(FILE *fp, const struct prof_change *ch, size_t n, int width)
{
    int pw = 3;
    for (size_t i = 0; i < n; i++)
        if (tc_width(ch[i].path) > pw)
            pw = tc_width(ch[i].path);
    if (pw > 44)
        pw = 44;
    int cw = (width - pw - 2 - 2 - 2 - 9) / 2;
    if (cw < 10)
        cw = 10;
    fprintf(fp, "%-*s  %-*s  %-*s  %s\n", pw, "key", cw, "A", cw, "B", "change");
    for (size_t i = 0; i < n; i++) {
        char *path = tc_clip(ch[i].path, pw);
        char *a = prof_value_text(ch[i].a), *b = prof_value_text(ch[i].b);
        char *ac = tc_clip(ch[i].a ? a : "(absent)", cw),
             *bc = tc_clip(ch[i].b ? b : "(absent)", cw);
        char rel[32] = "";
        double r;
        if (prof_rel_change(&ch[i], &r))
            snprintf(rel, sizeof rel, "%+.1f%%", 100.0 * r);
        else if (!ch[i].a)
            snprintf(rel, sizeof rel, "added");
        else if (!ch[i].b)
            snprintf(rel, sizeof rel, "removed");
        tc_pad(fp, path, pw + 2);
        tc_pad(fp, ac, cw + 2);
        tc_pad(fp, bc, cw + 2);
        fprintf(fp, "%s\n", rel);
        free(path);
        free(a);
        free(b);
        free(ac);
        free(bc);
    }
}

cJSON *prof_diff_json(const char *pa, const char *pb, const struct prof_change *ch, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "a", pa);
    cJSON_AddStringToObject(o, "b", pb);
    cJSON *arr = cJSON_AddArrayToObject(o, "changes");
    for (size_t i = 0; i < n; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "key", ch[i].path);
        cJSON_AddItemToObject(c, "a", ch[i].a ? cJSON_Duplicate(ch[i].a, 1) : cJSON_CreateNull());
        cJSON_AddItemToObject(c, "b", ch[i].b ? cJSON_Duplicate(ch[i].b, 1) : cJSON_CreateNull());
        double r;
        if (prof_rel_change(&ch[i], &r))
            cJSON_AddNumberToObject(c, "relative_change", r);
        else
            cJSON_AddNullToObject(c, "relative_change");
        cJSON_AddItemToArray(arr, c);
    }
    return o;
}

/* A value that is an object or a list has no CSV field: its text stands in for it. */
cJSON *prof_diff_rows(const char *pa, const char *pb, const struct prof_change *ch, size_t n)
{
    cJSON *o = prof_diff_json(pa, pb, ch, n), *e;
    cJSON *rows = cJSON_DetachItemFromObject(o, "changes");
    cJSON_ArrayForEach(e, rows)
    {
        for (int k = 0; k < 2; k++) {
            const char *key = k ? "b" : "a";
            cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);
            if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
                char *t = cJSON_PrintUnformatted(v);
                cJSON_ReplaceItemInObjectCaseSensitive(e, key, cJSON_CreateString(t));
                cJSON_free(t);
            }
        }
    }
    cJSON_Delete(o);
    return rows;
}
