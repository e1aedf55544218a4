/*
 * jsonv — validating accessors over cJSON for input files. Every accessor takes
 * the JSON path of the object ("tenants[0].arrival") so an error can say exactly
 * where the problem is and what was expected. Unknown keys are errors (docs/scenario.md).
 */
#ifndef SS_JSONV_H
#define SS_JSONV_H

#include <cJSON.h>
#include <stddef.h>

/* Error context: the file being read, prefixed to every message. */
struct jv {
    const char *file;
    char *err;
    size_t errlen;
};

/* Fails when obj is not an object or has a key outside the NULL-terminated list. */
int jv_object(const struct jv *j, const cJSON *obj, const char *path, const char *const *allowed);

/*
 * Numbers: 1 when absent and not required (out untouched), 0 when read, -1 on
 * error. A number must be finite and lie in [lo, hi]; for *_gt variants, > lo.
 */
int jv_num(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
           double lo, double hi, double *out);
int jv_num_gt(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
              double lo, double hi, double *out);
/* A number already read (x, at path.key) that must be at least lo for a reason of its own
 * (the clock's precision): 0, or -1 with "path.key: X is below the minimum of LO: why". */
int jv_at_least(const struct jv *j, const char *path, const char *key, double x, double lo,
                const char *why);
int jv_int(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
           long lo, long hi, long *out);
int jv_bool(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
            int *out);
/* Strings: out points into the cJSON tree. */
int jv_str(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
           const char **out);
/* One of a NULL-terminated list of names; *index gets its position. */
int jv_enum(const struct jv *j, const cJSON *obj, const char *path, const char *key, int required,
            const char *const *names, int *index);

/* Formats "<file>: <path>: <message>". Returns -1. */
int jv_fail(const struct jv *j, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Parses text (NUL-terminated at text[len]); on a syntax error reports line and column. Nesting
 * deeper than JV_MAX_DEPTH is refused before parsing (cJSON would recurse). */
#define JV_MAX_DEPTH 64
cJSON *jv_parse(const struct jv *j, const char *text, size_t len);
/* Reads j->file (at most max_bytes) and parses it as jv_parse does: the document, or NULL with
 * the message in j->err (a file that cannot be read, or is too large, is named). */
cJSON *jv_parse_file(const struct jv *j, size_t max_bytes);

/* Appends ".key" or "[i]" to a path into buf. */
const char *jv_path_key(char *buf, size_t n, const char *path, const char *key);
const char *jv_path_idx(char *buf, size_t n, const char *path, int idx);

/* Output side. A number rounded to 6 significant digits (null for NaN/inf) as a cJSON raw item:
 * results print identically on machines whose libm differ in the last bit. */
cJSON *jv_out_num(double x);
/* Adds key: jv_out_num(x) to obj. */
void jv_out_add(cJSON *obj, const char *key, double x);

#endif
