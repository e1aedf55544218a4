/*
 * jsonv — see jsonv.h. Messages follow one shape, "<file>: <path>: expected …,
 * got …", so users and tests can rely on them.
 */
#include "base/jsonv.h"
#include "base/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int jv_fail(const struct jv *j, const char *path, const char *fmt, ...)
{
    if (!j->err || !j->errlen)
        return -1;
    int n = snprintf(j->err, j->errlen, "%s: %s: ", j->file, path && *path ? path : "(top level)");
    if (n < 0 || (size_t)n >= j->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->err + n, j->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

const char *jv_path_key(char *buf, size_t n, const char *path, const char *key)
{
    snprintf(buf, n, "%s%s%s", path && *path ? path : "", path && *path ? "." : "", key);
    return buf;
}

const char *jv_path_idx(char *buf, size_t n, const char *path, int idx)
{
    snprintf(buf, n, "%s[%d]", path ? path : "", idx);
    return buf;
}

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    return "an invalid value";
}

int jv_object(const struct jv *j, const cJSON *obj, const char *path, const char *const *allowed)
{
    if (!cJSON_IsObject(obj))
        return jv_fail(j, path, "expected an object, got %s", type_name(obj));
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
    {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, it->string) == 0)
                ok = 1;
        if (!ok) {
            char known[512] = "";
            for (const char *const *a = allowed; *a; a++) {
                size_t l = strlen(known);
                snprintf(known + l, sizeof known - l, "%s%s", l ? ", " : "", *a);
            }
            char p[512];
            return jv_fail(j, jv_path_key(p, sizeof p, path, it->string),
                           "unknown key \"%s\" (expected one of: %s)", it->string, known);
        }
        /* Duplicate keys would make the meaning depend on cJSON's choice. */
        for (const cJSON *o = obj->child; o != it; o = o->next)
            if (strcmp(o->string, it->string) == 0) {
                char p[512];
                return jv_fail(j, jv_path_key(p, sizeof p, path, it->string), "key given twice");
            }
    }
    return 0;
}

static const cJSON *get(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static int num_common(const struct jv *j, const cJSON *obj, const char *path, const char *key,
                      int required, double lo, double hi, int strict_lo, double *out)
{
    char p[512];
    const cJSON *v = get(obj, key);
    if (!v) {
        if (required)
            return jv_fail(j, jv_path_key(p, sizeof p, path, key), "missing (expected a number)");
        return 1;
    }
    jv_path_key(p, sizeof p, path, key);
    if (!cJSON_IsNumber(v))
        return jv_fail(j, p, "expected a number, got %s", type_name(v));
    double x = v->valuedouble;
    if (!isfinite(x))
        return jv_fail(j, p, "expected a finite number, got a value out of range");
    if ((strict_lo ? !(x > lo) : !(x >= lo)) || !(x <= hi)) {
        if (strict_lo)
            return jv_fail(j, p, "expected a number > %g and <= %g, got %g", lo, hi, x);
        return jv_fail(j, p, "expected a number in [%g, %g], got %g", lo, hi, x);
    }
    *out = x;
    return 0;
}

int jv_num(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
           double lo, double hi, double *out)
{
    return num_common(j, obj, path, key, required, lo, hi, 0, out);
}

int jv_num_gt(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
              double lo, double hi, double *out)
{
    return num_common(j, obj, path, key, required, lo, hi, 1, out);
}

int jv_at_least(const struct jv *j, const char *path, const char *key, double x, double lo,
                const char *why)
{
    char p[512];
    if (x >= lo)
        return 0;
    return jv_fail(j, jv_path_key(p, sizeof p, path, key), "%g is below the minimum of %g: %s", x,
                   lo, why);
}

int jv_int(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
           long lo, long hi, long *out)
{
    double x;
    int rc = num_common(j, obj, path, key, required, (double)lo, (double)hi, 0, &x);
    if (rc)
        return rc;
    if (x != floor(x)) {
        char p[512];
        return jv_fail(j, jv_path_key(p, sizeof p, path, key), "expected an integer, got %g", x);
    }
    *out = (long)x;
    return 0;
}

int jv_bool(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
            int *out)
{
    char p[512];
    const cJSON *v = get(obj, key);
    if (!v) {
        if (required)
            return jv_fail(j, jv_path_key(p, sizeof p, path, key), "missing (expected true/false)");
        return 1;
    }
    if (!cJSON_IsBool(v))
        return jv_fail(j, jv_path_key(p, sizeof p, path, key), "expected true or false, got %s",
                       type_name(v));
    *out = cJSON_IsTrue(v);
    return 0;
}

int jv_str(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
           const char **out)
{
    char p[512];
    const cJSON *v = get(obj, key);
    if (!v) {
        if (required)
            return jv_fail(j, jv_path_key(p, sizeof p, path, key), "missing (expected a string)");
        return 1;
    }
    if (!cJSON_IsString(v))
        return jv_fail(j, jv_path_key(p, sizeof p, path, key), "expected a string, got %s",
                       type_name(v));
    *out = v->valuestring;
    return 0;
}

int jv_enum(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
            const char *const *names, int *index)
{
    const char *s;
    int rc = jv_str(j, obj, path, key, required, &s);
    if (rc)
        return rc;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) {
            *index = i;
            return 0;
        }
    char known[512] = "";
    for (int i = 0; names[i]; i++) {
        size_t l = strlen(known);
        snprintf(known + l, sizeof known - l, "%s\"%s\"", l ? ", " : "", names[i]);
    }
    char p[512];
    return jv_fail(j, jv_path_key(p, sizeof p, path, key), "expected one of %s, got \"%s\"", known,
                   s);
}

/* Depth scan that skips strings; cJSON itself recurses per level. */
static int too_deep(const char *t, size_t len)
{
    int depth = 0, in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == '{' || c == '[') {
            if (++depth > JV_MAX_DEPTH)
                return 1;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return 0;
}

cJSON *jv_parse_file(const struct jv *j, size_t max_bytes)
{
    char *text = NULL;
    size_t len;
    if (ss_read_file(j->file, max_bytes, &text, &len, j->err, j->errlen))
        return NULL;
    cJSON *root = jv_parse(j, text, len);
    free(text);
    return root;
}

cJSON *jv_parse(const struct jv *j, const char *text, size_t len)
{
    const char *start = text;
    if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF) {
        start += 3; /* a UTF-8 byte-order mark is harmless; skip it */
        len -= 3;
    }
    if (memchr(start, '\0', len)) {
        jv_fail(j, "", "unexpected NUL byte: expected JSON text");
        return NULL;
    }
    size_t k = 0;
    while (k < len && (start[k] == ' ' || start[k] == '\n' || start[k] == '\r' || start[k] == '\t'))
        k++;
    if (k == len) {
        jv_fail(j, "", "empty file: expected a JSON object");
        return NULL;
    }
    if (too_deep(start, len)) {
        jv_fail(j, "", "JSON nested deeper than %d levels", JV_MAX_DEPTH);
        return NULL;
    }
    const char *ep = NULL;
    /* len + 1: cJSON checks the terminating NUL lies inside the length it is given. */
    cJSON *root = cJSON_ParseWithLengthOpts(start, len + 1, &ep, 1);
    if (!root) {
        size_t off = ep && ep >= start ? (size_t)(ep - start) : 0;
        if (off > len)
            off = len;
        int line = 1, col = 1;
        for (size_t i = 0; i < off; i++) {
            if (start[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        if (j->err)
            snprintf(j->err, j->errlen, "%s:%d:%d: JSON syntax error (truncated or malformed)",
                     j->file, line, col);
        return NULL;
    }
    return root;
}

cJSON *jv_out_num(double x)
{
    char buf[64];
    if (!isfinite(x))
        return cJSON_CreateNull();
    if (x == 0)
        x = 0; /* no "-0" */
    snprintf(buf, sizeof buf, "%.6g", x);
    return cJSON_CreateRaw(buf);
}

void jv_out_add(cJSON *obj, const char *key, double x)
{
    cJSON_AddItemToObject(obj, key, jv_out_num(x));
}
