/* csvrows — see csvrows.h. */
#include "report/csvrows.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cols {
    char **name;
    int n, cap;
};

static int skipped(const char *key, const char *const *skip)
{
    for (int k = 0; skip && skip[k]; k++)
        if (strcmp(key, skip[k]) == 0)
            return 1;
    return 0;
}

/* An array the CSV can hold in one field: every element a scalar. */
static int scalar_array(const cJSON *v)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        if (cJSON_IsObject(e) || cJSON_IsArray(e))
            return 0;
    }
    return 1;
}

/* Calls fn(name, value, ctx) for every column of one object, in key order. */
static void flatten(const cJSON *o, const char *prefix, const char *const *skip,
                    void (*fn)(const char *, const cJSON *, void *), void *ctx)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        if (!v->string || (!prefix[0] && skipped(v->string, skip)))
            continue;
        size_t n = strlen(prefix) + strlen(v->string) + 2;
        char *name = ss_xmalloc(n);
        snprintf(name, n, "%s%s%s", prefix, prefix[0] ? "." : "", v->string);
        if (cJSON_IsObject(v))
            flatten(v, name, skip, fn, ctx);
        else if (!cJSON_IsArray(v) || scalar_array(v))
            fn(name, v, ctx);
        free(name);
    }
}

static int col_index(const struct cols *c, const char *name)
{
    for (int k = 0; k < c->n; k++)
        if (strcmp(c->name[k], name) == 0)
            return k;
    return -1;
}

static void add_col(const char *name, const cJSON *v, void *ctx)
{
    struct cols *c = ctx;
    (void)v;
    if (col_index(c, name) >= 0)
        return;
    if (c->n == c->cap)
        c->name =
            ss_xrealloc(c->name, (size_t)(c->cap = c->cap ? 2 * c->cap : 16) * sizeof *c->name);
    c->name[c->n++] = ss_xstrdup(name);
}

static void put_text(FILE *fp, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

static void put_scalar(FILE *fp, const cJSON *v)
{
    if (cJSON_IsRaw(v))
        fputs(v->valuestring, fp); /* jv_out_num: already 6 significant digits */
    else if (cJSON_IsString(v))
        put_text(fp, v->valuestring);
    else if (cJSON_IsBool(v))
        fputs(cJSON_IsTrue(v) ? "true" : "false", fp);
    else if (cJSON_IsNumber(v) && isfinite(v->valuedouble))
        fprintf(fp,
                v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15 ? "%.0f"
                                                                                       : "%.6g",
                v->valuedouble);
}

static void put_value(FILE *fp, const cJSON *v)
{
    if (!cJSON_IsArray(v)) {
        put_scalar(fp, v);
        return;
    }
    /* Elements joined with ';' into one field, quoted as a whole when needed. */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        SS_FATAL("open_memstream failed");
    const cJSON *e;
    int first = 1;
    cJSON_ArrayForEach(e, v)
    {
        if (!first)
            fputc(';', m);
        put_scalar(m, e);
        first = 0;
    }
    fclose(m);
    put_text(fp, buf);
    free(buf);
}

/* One row: the value of each column, in column order. */
struct row {
    const struct cols *c;
    const cJSON **v;
};

static void set_cell(const char *name, const cJSON *v, void *ctx)
{
    struct row *r = ctx;
    int k = col_index(r->c, name);
    if (k >= 0)
        r->v[k] = v;
}

void csv_rows(FILE *fp, const cJSON *rows, const char *const *skip)
{
    struct cols c = {0};
    const cJSON *o;
    cJSON_ArrayForEach(o, rows)
    {
        flatten(o, "", skip, add_col, &c);
    }
    for (int k = 0; k < c.n; k++) {
        if (k)
            fputc(',', fp);
        put_text(fp, c.name[k]);
    }
    fputc('\n', fp);
    struct row r = {&c, ss_xcalloc((size_t)(c.n ? c.n : 1), sizeof *r.v)};
    cJSON_ArrayForEach(o, rows)
    {
        memset(r.v, 0, (size_t)(c.n ? c.n : 1) * sizeof *r.v);
        flatten(o, "", skip, set_cell, &r);
        for (int k = 0; k < c.n; k++) {
            if (k)
                fputc(',', fp);
            if (r.v[k])
                put_value(fp, r.v[k]);
        }
        fputc('\n', fp);
    }
    free(r.v);
    for (int k = 0; k < c.n; k++)
        free(c.name[k]);
    free(c.name);
}
