/*
 * tokens — token-count distributions (tokens.h).
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "llm/tokens.h"

#include "calib/calib.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ltk_parse(const struct jv *j, const cJSON *obj, const char *path, struct ltk_dist *d)
{
    static const char *const dists[] = {"deterministic", "exponential", "lognormal", "uniform",
                                        NULL};
    int k;
    if (!cJSON_IsObject(obj))
        return jv_fail(j, path, "expected an object {\"dist\": …}");
    if (jv_enum(j, obj, path, "dist", 1, dists, &k))
        return -1;
    *d = (struct ltk_dist){.kind = (enum ltk_kind)k};
    switch (d->kind) {
    case LTK_DETERMINISTIC: {
        static const char *const keys[] = {"dist", "tokens", NULL};
        long n;
        if (jv_object(j, obj, path, keys) || jv_int(j, obj, path, "tokens", 1, 1, 10000000, &n))
            return -1;
        d->mean = (double)n;
        return 0;
    }
    case LTK_EXPONENTIAL: {
        static const char *const keys[] = {"dist", "mean", NULL};
        return jv_object(j, obj, path, keys) || jv_num(j, obj, path, "mean", 1, 1, 1e7, &d->mean)
                   ? -1
                   : 0;
    }
    case LTK_LOGNORMAL: {
        static const char *const keys[] = {"dist", "mean", "cv", NULL};
        if (jv_object(j, obj, path, keys) || jv_num(j, obj, path, "mean", 1, 1, 1e7, &d->mean) ||
            jv_num_gt(j, obj, path, "cv", 1, 0, 100, &d->cv))
            return -1;
        double s2 = log1p(d->cv * d->cv);
        d->sigma = sqrt(s2);
        d->mu = log(d->mean) - 0.5 * s2;
        return 0;
    }
    case LTK_UNIFORM: {
        static const char *const keys[] = {"dist", "min", "max", NULL};
        char p[512];
        if (jv_object(j, obj, path, keys) || jv_int(j, obj, path, "min", 1, 1, 10000000, &d->lo) ||
            jv_int(j, obj, path, "max", 1, 1, 10000000, &d->hi))
            return -1;
        if (d->hi < d->lo)
            return jv_fail(j, jv_path_key(p, sizeof p, path, "max"),
                           "expected a number >= min (%ld), got %ld", d->lo, d->hi);
        d->mean = 0.5 * (double)(d->lo + d->hi);
        return 0;
    }
    case LTK_DATASET: /* "dataset" is its own object (ltk_parse_dataset), not a DIST */
        break;
    }
    SS_FATAL("unhandled token distribution %d", k);
}

static long at_least_one(double x)
{
    double r = nearbyint(x);
    return r < 1 ? 1 : r > 1e9 ? 1000000000L : (long)r;
}

/* This side of a row: at least 1 (the start token, one generated token), at most the clamp. */
static long row_side(const struct ltk_dist *d, long row)
{
    long v = d->table->pair[row][d->side];
    v = v < 1 ? 1 : v;
    return d->hi > 0 && v > d->hi ? d->hi : v;
}

/* One uniform of the stream picks a row: floor(U n), U in [0, 1) with 53 bits. */
static long draw_row(const struct ltk_table *t, struct rng *r)
{
    long i = (long)(rng_uniform(r) * (double)t->n);
    return i < t->n ? i : t->n - 1;
}

void ltk_draw_pair(const struct ltk_dist *input, const struct ltk_dist *output, struct rng *r,
                   long *in, long *out)
{
    if (input->kind == LTK_DATASET) { /* the parser sets both sides to the same table */
        long row = draw_row(input->table, r);
        *in = row_side(input, row);
        *out = row_side(output, row);
        return;
    }
    *in = ltk_draw(input, r);
    *out = ltk_draw(output, r);
}

long ltk_draw(const struct ltk_dist *d, struct rng *r)
{
    switch (d->kind) {
    case LTK_DATASET:
        return row_side(d, draw_row(d->table, r));
    case LTK_DETERMINISTIC:
        return (long)d->mean;
    case LTK_EXPONENTIAL:
        return at_least_one(d->mean * rng_exp1(r));
    case LTK_LOGNORMAL: {
        /* Box–Muller from two uniforms of the tenant's own stream. */
        double u1 = rng_uniform_pos(r), u2 = rng_uniform(r);
        double z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
        return at_least_one(exp(d->mu + d->sigma * z));
    }
    case LTK_UNIFORM:
        return d->lo + (long)(rng_uniform(r) * (double)(d->hi - d->lo + 1));
    }
    SS_FATAL("unhandled token distribution %d", (int)d->kind);
}

double ltk_mean(const struct ltk_dist *d)
{
    return d->mean;
}

/* ---- tables of (input, output) pairs ------------------------------------ */

/* The shipped tables, in kernels/profiles/datasets/ (scripts/dataset-lengths). ShareGPT is not
 * among them: no length table of it with a licence that allows shipping it was found
 * (docs/llm.md#request-lengths-from-datasets). */
static const char *const shipped[] = {"azure-conv", "azure-code", NULL};

/* Tables loaded so far, by path (the process loads scenarios one at a time: no lock). */
#define LTK_MAX_TABLES 64
static struct ltk_table *loaded[LTK_MAX_TABLES];
static int n_loaded;

/* "FILE:LINE:COL: what" for the message; returns -1. */
static int bad_row(char *msg, size_t n, const char *file, long line, long col, const char *what)
{
    ss_errf(msg, n, "%s:%ld:%ld: %s", file, line, col, what);
    return -1;
}

/* A count in [0, LTK_DATASET_MAX_TOKENS] at *p (spaces around it allowed); advances *p. */
static int read_count(const char **p, const char *line_start, int32_t *v, char *msg, size_t n,
                      const char *file, long line)
{
    const char *q = *p;
    while (*q == ' ' || *q == '\t')
        q++;
    if (!isdigit((unsigned char)*q))
        return bad_row(msg, n, file, line, (long)(q - line_start) + 1,
                       "expected a token count (an integer >= 0)");
    errno = 0;
    char *end;
    long long x = strtoll(q, &end, 10);
    if (errno || x > LTK_DATASET_MAX_TOKENS) {
        char what[128];
        snprintf(what, sizeof what, "a token count above the limit of %ld", LTK_DATASET_MAX_TOKENS);
        return bad_row(msg, n, file, line, (long)(q - line_start) + 1, what);
    }
    while (*end == ' ' || *end == '\t')
        end++;
    *v = (int32_t)x;
    *p = end;
    return 0;
}

static int parse_row(const char *text, int32_t pair[2], char *msg, size_t n, const char *file,
                     long line)
{
    const char *p = text;
    if (read_count(&p, text, &pair[0], msg, n, file, line))
        return -1;
    if (*p != ',')
        return bad_row(msg, n, file, line, (long)(p - text) + 1,
                       "expected ',' and the output tokens after the input tokens");
    p++;
    if (read_count(&p, text, &pair[1], msg, n, file, line))
        return -1;
    if (*p != '\0')
        return bad_row(msg, n, file, line, (long)(p - text) + 1,
                       "expected the end of the row after two token counts "
                       "(input_tokens,output_tokens)");
    return 0;
}

/* Reads a table: '#' comment lines and blank lines skipped, an optional header
 * "input_tokens,output_tokens", then rows of two counts. NULL with msg on error. */
static struct ltk_table *read_table(const char *file, const char *name, char *msg, size_t n)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        ss_errf(msg, n, "%s: cannot open: %s", file, strerror(errno));
        return NULL;
    }
    struct ltk_table *t = ss_xcalloc(1, sizeof *t);
    long cap = 0, line = 0;
    int seen_row_or_header = 0, rc = 0;
    char *buf = NULL;
    size_t bcap = 0;
    ssize_t len;
    while ((len = getline(&buf, &bcap, f)) >= 0) {
        line++;
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
        if (len == 0 || buf[0] == '#')
            continue;
        if (!seen_row_or_header++ && isalpha((unsigned char)buf[0])) {
            if (strcmp(buf, "input_tokens,output_tokens") != 0) {
                rc = bad_row(msg, n, file, line, 1,
                             "expected the header input_tokens,output_tokens or a first row of "
                             "two token counts");
                break;
            }
            continue;
        }
        if (t->n == LTK_DATASET_MAX_ROWS) {
            char what[128];
            snprintf(what, sizeof what, "more than %ld rows, the limit of a dataset",
                     LTK_DATASET_MAX_ROWS);
            rc = bad_row(msg, n, file, line, 1, what);
            break;
        }
        if (t->n == cap) {
            cap = cap ? 2 * cap : 1024;
            t->pair = ss_xrealloc(t->pair, (size_t)cap * sizeof *t->pair);
        }
        if ((rc = parse_row(buf, t->pair[t->n], msg, n, file, line)) != 0)
            break;
        t->n++;
    }
    if (!rc && ferror(f))
        rc = -1, ss_errf(msg, n, "%s: read error: %s", file, strerror(errno));
    if (!rc && t->n == 0)
        rc = -1, ss_errf(msg, n, "%s:%ld:1: no rows: expected input_tokens,output_tokens rows",
                         file, line + 1);
    free(buf);
    fclose(f);
    if (rc) {
        free(t->pair);
        free(t);
        return NULL;
    }
    t->name = ss_xstrdup(name);
    return t;
}

/* The table at file (loaded once); NULL with msg. */
static const struct ltk_table *get_table(const char *file, char *msg, size_t n)
{
    for (int i = 0; i < n_loaded; i++)
        if (strcmp(loaded[i]->name, file) == 0)
            return loaded[i];
    if (n_loaded == LTK_MAX_TABLES) {
        ss_errf(msg, n, "%s: more than %d dataset files in one process", file, LTK_MAX_TABLES);
        return NULL;
    }
    struct ltk_table *t = read_table(file, file, msg, n);
    if (t)
        loaded[n_loaded++] = t;
    return t;
}

/* rel against the folder of the scenario file (as a trace's path). */
static void resolve(const char *scenario, const char *rel, char *out, size_t n)
{
    const char *slash = scenario ? strrchr(scenario, '/') : NULL;
    if (rel[0] == '/' || !slash)
        snprintf(out, n, "%s", rel);
    else
        snprintf(out, n, "%.*s/%s", (int)(slash - scenario), scenario, rel);
}

static void side_mean(struct ltk_dist *d)
{
    double sum = 0;
    for (long i = 0; i < d->table->n; i++)
        sum += (double)row_side(d, i);
    d->mean = sum / (double)d->table->n;
}

int ltk_parse_dataset(const struct jv *j, const cJSON *obj, const char *path,
                      struct ltk_dist *input, struct ltk_dist *output)
{
    static const char *const keys[] = {"dataset", "max_input", "max_output", NULL};
    char p[512], file[4096], msg[SS_ERRLEN];
    long max_in = 0, max_out = 0;
    if (jv_object(j, obj, path, keys) ||
        jv_int(j, obj, path, "max_input", 0, 1, LTK_DATASET_MAX_TOKENS, &max_in) < 0 ||
        jv_int(j, obj, path, "max_output", 0, 1, LTK_DATASET_MAX_TOKENS, &max_out) < 0)
        return -1;
    const cJSON *ds = cJSON_GetObjectItemCaseSensitive(obj, "dataset");
    jv_path_key(p, sizeof p, path, "dataset");
    if (cJSON_IsString(ds)) {
        int k = 0;
        while (shipped[k] && strcmp(shipped[k], ds->valuestring) != 0)
            k++;
        if (!shipped[k])
            return jv_fail(j, p,
                           "unknown dataset \"%s\": expected \"azure-conv\", \"azure-code\" or "
                           "{\"path\": \"FILE.csv\"} (ShareGPT's lengths are not shipped: "
                           "docs/llm.md#request-lengths-from-datasets)",
                           ds->valuestring);
        snprintf(file, sizeof file, "%s/datasets/%s.csv", cal_profile_dir(), shipped[k]);
    } else if (cJSON_IsObject(ds)) {
        static const char *const dkeys[] = {"path", NULL};
        const char *rel;
        if (jv_object(j, ds, p, dkeys) || jv_str(j, ds, p, "path", 1, &rel))
            return -1;
        resolve(j->file, rel, file, sizeof file);
        char dp[512];
        jv_path_key(dp, sizeof dp, p, "path");
        memcpy(p, dp, sizeof p);
    } else {
        return jv_fail(j, p, "expected \"azure-conv\", \"azure-code\" or {\"path\": \"FILE.csv\"}");
    }
    const struct ltk_table *t = get_table(file, msg, sizeof msg);
    if (!t)
        return jv_fail(j, p, "%s", msg);
    ss_in_note(file); /* no output of this process may replace it */
    *input = (struct ltk_dist){.kind = LTK_DATASET, .table = t, .side = 0, .hi = max_in};
    *output = (struct ltk_dist){.kind = LTK_DATASET, .table = t, .side = 1, .hi = max_out};
    side_mean(input);
    side_mean(output);
    return 0;
}
