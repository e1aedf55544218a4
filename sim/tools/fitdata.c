/*
 * fitdata — reads a measurement file into fit rows (tools/fit.h): the columns by their header
 * names, every value checked where it stands (FILE:LINE:COL), a row the simulator cannot run
 * (tensor parallelism above 1, no measured figure) kept with the reason it is skipped.
 */
#include "tools/fit.h"
#include "base/sha256.h"
#include "base/util.h"
#include "io/csv.h"
#include "llm/enginetime.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const fit_metric_key[FM_N] = {"ttft_ms", "tpot_ms", "output_tok_per_s"};

/* The columns of the format, in its order; every one is required in the header. */
enum col {
    C_ID,
    C_SOURCE,
    C_ENGINE,
    C_ENGINE_VERSION,
    C_GPU,
    C_MODEL,
    C_DTYPE,
    C_KV_DTYPE,
    C_TP,
    C_CLIENT,
    C_LOAD,
    C_LENGTHS,
    C_ISL,
    C_OSL,
    C_NUM_PROMPTS,
    C_MAX_NUM_SEQS,
    C_MAX_BATCHED,
    C_STAT,
    C_TTFT,
    C_TPOT,
    C_TPS,
    C_ROLE,
    C_NOTE,
    C_N
};
static const char *const col_name[C_N] = {"id",
                                          "source",
                                          "engine",
                                          "engine_version",
                                          "gpu",
                                          "model",
                                          "dtype",
                                          "kv_dtype",
                                          "tp",
                                          "client",
                                          "load",
                                          "lengths",
                                          "isl",
                                          "osl",
                                          "num_prompts",
                                          "max_num_seqs",
                                          "max_batched_tokens",
                                          "stat",
                                          "ttft_ms",
                                          "tpot_ms",
                                          "output_tok_per_s",
                                          "role",
                                          "note"};

/* Where a row's values are: the field of each column, for its text and its position. */
struct at {
    const char *file;
    const struct csv_record *rec;
    const int *idx; /* column → field index */
};

static const struct csv_field *fld(const struct at *a, enum col c)
{
    return &a->rec->f[a->idx[c]];
}

static const char *txt(const struct at *a, enum col c)
{
    return fld(a, c)->text;
}

static int bad(const struct at *a, enum col c, char *err, size_t errlen, const char *what)
{
    const struct csv_field *f = fld(a, c);
    return ss_errf(err, errlen, "%s:%d:%d: column \"%s\": \"%s\": expected %s", a->file, f->line,
                   f->col, col_name[c], f->text, what);
}

static int name_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-'))
            return 0;
    return 1;
}

/* An integer in [lo, hi]; empty reads 0 when optional. */
static int get_long(const struct at *a, enum col c, long lo, long hi, int optional, long *out,
                    char *err, size_t errlen)
{
    const char *s = txt(a, c);
    char what[96];
    snprintf(what, sizeof what, "an integer in [%ld, %ld]%s", lo, hi, optional ? " or empty" : "");
    *out = 0;
    if (!*s)
        return optional ? 0 : bad(a, c, err, errlen, what);
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi)
        return bad(a, c, err, errlen, what);
    *out = v;
    return 0;
}

/* A positive finite number; empty reads NaN when optional. */
static int get_pos(const struct at *a, enum col c, int optional, double *out, char *err,
                   size_t errlen)
{
    const char *s = txt(a, c);
    const char *what = optional ? "a number > 0 or empty" : "a number > 0";
    *out = NAN;
    if (!*s)
        return optional ? 0 : bad(a, c, err, errlen, what);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || end == s || !isfinite(v) || v <= 0)
        return bad(a, c, err, errlen, what);
    *out = v;
    return 0;
}

static int get_text(const struct at *a, enum col c, char *dst, size_t n, char *err, size_t errlen)
{
    const char *s = txt(a, c);
    if (!*s)
        return bad(a, c, err, errlen, "a value");
    if (strlen(s) >= n) {
        char what[64];
        snprintf(what, sizeof what, "at most %zu characters", n - 1);
        return bad(a, c, err, errlen, what);
    }
    snprintf(dst, n, "%s", s);
    return 0;
}

/* One of words[] (NULL-terminated): its index. */
static int get_word(const struct at *a, enum col c, const char *const *words, const char *what,
                    int *out, char *err, size_t errlen)
{
    for (int i = 0; words[i]; i++)
        if (strcmp(txt(a, c), words[i]) == 0)
            return *out = i, 0;
    return bad(a, c, err, errlen, what);
}

static int parse_client(const struct at *a, struct fit_row *r, char *err, size_t errlen)
{
    static const char *const clients[] = {"concurrency", "rate", "batch", NULL};
    int k;
    if (get_word(a, C_CLIENT, clients, "concurrency, rate or batch", &k, err, errlen))
        return -1;
    r->client = (enum fit_client)k;
    if (r->client == FC_RATE)
        return get_pos(a, C_LOAD, 0, &r->load, err, errlen);
    long n;
    if (get_long(a, C_LOAD, 1, 1000000000L, 0, &n, err, errlen))
        return -1;
    r->load = (double)n;
    return 0;
}

static int parse_lengths(const struct at *a, struct fit_row *r, char *err, size_t errlen)
{
    if (get_text(a, C_LENGTHS, r->lengths, sizeof r->lengths, err, errlen))
        return -1;
    if (!name_ok(r->lengths))
        return bad(a, C_LENGTHS, err, errlen, "fixed or a dataset name ([a-z0-9-]+)");
    int fixed = strcmp(r->lengths, "fixed") == 0;
    if (fixed)
        return get_long(a, C_ISL, 1, 10000000L, 0, &r->isl, err, errlen) ||
                       get_long(a, C_OSL, 1, 10000000L, 0, &r->osl, err, errlen)
                   ? -1
                   : 0;
    /* A dataset's lengths are stated as means over its requests: fractions are fine. */
    r->isl_mean = r->osl_mean = NAN;
    if (get_pos(a, C_ISL, 1, &r->isl_mean, err, errlen) ||
        get_pos(a, C_OSL, 1, &r->osl_mean, err, errlen))
        return -1;
    if (isnan(r->isl_mean))
        r->isl_mean = 0;
    if (isnan(r->osl_mean))
        r->osl_mean = 0;
    return 0;
}

/* A row of engine E at version A.B[.C] takes the engine table's entry "E-A.B" where the table
 * has one: a release whose kernels differ from the measured tables' has its own terms
 * (docs/llm.md#engine-versions); else E's. */
static void version_entry(char *framework, size_t n, const char *version)
{
    const char *dot = strchr(version, '.');
    if (!dot)
        return;
    const char *end = strchr(dot + 1, '.');
    size_t flen = strlen(framework), vlen = end ? (size_t)(end - version) : strlen(version);
    char name[FIT_TEXT_MAX];
    if (flen + 1 + vlen >= sizeof name || flen + 1 + vlen >= n)
        return; /* too long to be an entry's name: the engine's own entry */
    memcpy(name, framework, flen);
    name[flen] = '-';
    memcpy(name + flen + 1, version, vlen);
    name[flen + 1 + vlen] = '\0';
    if (etm_has_framework(NULL, name))
        memcpy(framework, name, flen + 2 + vlen);
}

static int parse_row(const struct at *a, struct fit_row *r, char *err, size_t errlen)
{
    static const char *const stats[] = {"mean", "median", NULL};
    static const char *const roles[] = {"fit", "holdout", NULL};
    char scratch[FIT_TEXT_MAX];
    memset(r, 0, sizeof *r);
    r->line = a->rec->line;
    if (get_text(a, C_ID, r->id, sizeof r->id, err, errlen))
        return -1;
    if (!name_ok(r->id))
        return bad(a, C_ID, err, errlen, "an id of [a-z0-9-]+");
    long tp;
    if (get_text(a, C_SOURCE, scratch, sizeof scratch, err, errlen) ||
        get_text(a, C_ENGINE, r->framework, sizeof r->framework, err, errlen) ||
        get_text(a, C_GPU, r->gpu, sizeof r->gpu, err, errlen) ||
        get_text(a, C_MODEL, r->model, sizeof r->model, err, errlen) ||
        get_text(a, C_DTYPE, r->dtype, sizeof r->dtype, err, errlen) ||
        get_long(a, C_TP, 1, 1024, 0, &tp, err, errlen) || parse_client(a, r, err, errlen) ||
        parse_lengths(a, r, err, errlen) ||
        get_long(a, C_NUM_PROMPTS, 1, 1000000000L, 1, &r->num_prompts, err, errlen) ||
        get_long(a, C_MAX_NUM_SEQS, 1, 65536, 1, &r->max_num_seqs, err, errlen) ||
        get_long(a, C_MAX_BATCHED, 1, 10000000L, 1, &r->max_batched, err, errlen) ||
        get_word(a, C_STAT, stats, "mean or median", &r->median, err, errlen) ||
        get_pos(a, C_TTFT, 1, &r->meas[FM_TTFT], err, errlen) ||
        get_pos(a, C_TPOT, 1, &r->meas[FM_TPOT], err, errlen) ||
        get_pos(a, C_TPS, 1, &r->meas[FM_TPS], err, errlen) ||
        get_word(a, C_ROLE, roles, "fit or holdout", &r->holdout, err, errlen))
        return -1;
    r->tp = (int)tp;
    /* NVIDIA's NIM serves these models with TensorRT-LLM: the same engine's terms. */
    if (strcmp(r->framework, "nim-trtllm") == 0)
        strcpy(r->framework, "trtllm");
    else if (strcmp(r->framework, "nim-vllm") == 0)
        strcpy(r->framework, "vllm");
    else
        version_entry(r->framework, sizeof r->framework, txt(a, C_ENGINE_VERSION));
    if (strlen(txt(a, C_KV_DTYPE)) >= sizeof r->kv_dtype)
        return bad(a, C_KV_DTYPE, err, errlen, "a shorter value");
    snprintf(r->kv_dtype, sizeof r->kv_dtype, "%s", txt(a, C_KV_DTYPE));
    for (int m = 0; m < FM_N; m++)
        r->pred[m] = NAN;
    if (r->tp > 1)
        snprintf(r->skip, sizeof r->skip, "tensor parallelism %d: only tp 1 is simulated", r->tp);
    else if (isnan(r->meas[FM_TTFT]) && isnan(r->meas[FM_TPOT]) && isnan(r->meas[FM_TPS]))
        snprintf(r->skip, sizeof r->skip, "no measured ttft_ms, tpot_ms or output_tok_per_s");
    return 0;
}

/* The field index of each column from the header; unknown columns are an error, since a
 * misspelt one would otherwise be read as absent. */
static int map_header(const char *file, const struct csv_record *h, int *idx, char *err,
                      size_t errlen)
{
    for (int c = 0; c < C_N; c++)
        idx[c] = -1;
    for (int i = 0; i < h->n; i++) {
        int c = 0;
        while (c < C_N && strcmp(h->f[i].text, col_name[c]) != 0)
            c++;
        if (c == C_N)
            return ss_errf(err, errlen,
                           "%s:%d:%d: unknown column \"%s\" (the columns: "
                           "docs/calibration.md#the-measurement-file)",
                           file, h->f[i].line, h->f[i].col, h->f[i].text);
        if (idx[c] >= 0)
            return ss_errf(err, errlen, "%s:%d:%d: column \"%s\" given twice", file, h->f[i].line,
                           h->f[i].col, h->f[i].text);
        idx[c] = i;
    }
    for (int c = 0; c < C_N; c++)
        if (idx[c] < 0)
            return ss_errf(err, errlen, "%s:%d:1: the header has no column \"%s\"", file, h->line,
                           col_name[c]);
    return 0;
}

static int check_unique(const char *file, const struct fit_row *rows, int n,
                        const struct csv_table *t, const int *idx, char *err, size_t errlen)
{
    for (int i = 1; i < n; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(rows[i].id, rows[j].id) == 0) {
                const struct csv_field *f = &t->r[i + 1].f[idx[C_ID]];
                return ss_errf(err, errlen,
                               "%s:%d:%d: column \"id\": \"%s\" is the id of line %d too", file,
                               f->line, f->col, f->text, rows[j].line);
            }
    return 0;
}

int fit_read(const char *path, struct fit_row **rows, int *n, char sha256[65], char *err,
             size_t errlen)
{
    char *text;
    size_t len;
    char why[SS_ERRLEN];
    *rows = NULL;
    *n = 0;
    if (ss_read_file(path, FIT_FILE_MAX_BYTES, &text, &len, err, errlen))
        return -1;
    sha256_hex(text, len, sha256);
    struct csv_table t;
    if (csv_parse(text, len, &t, why, sizeof why)) {
        free(text);
        return ss_errf(err, errlen, "%s:%s", path, why);
    }
    free(text);
    int idx[C_N], rc = -1;
    struct fit_row *out = NULL;
    if (t.n == 0) {
        ss_errf(err, errlen, "%s:1:1: empty: expected a header row and measurement rows", path);
        goto done;
    }
    if (map_header(path, &t.r[0], idx, err, errlen))
        goto done;
    if (t.n - 1 > FIT_ROWS_MAX) {
        ss_errf(err, errlen, "%s:%d:1: more than %d measurement rows", path,
                t.r[FIT_ROWS_MAX + 1].line, FIT_ROWS_MAX);
        goto done;
    }
    out = ss_xcalloc((size_t)(t.n > 1 ? t.n - 1 : 1), sizeof *out);
    for (int i = 1; i < t.n; i++) {
        const struct csv_record *rec = &t.r[i];
        if (rec->n != t.r[0].n) {
            ss_errf(err, errlen, "%s:%d:1: %d fields, but the header has %d", path, rec->line,
                    rec->n, t.r[0].n);
            goto done;
        }
        struct at a = {path, rec, idx};
        if (parse_row(&a, &out[i - 1], err, errlen))
            goto done;
    }
    if (check_unique(path, out, t.n - 1, &t, idx, err, errlen))
        goto done;
    *rows = out;
    *n = t.n - 1;
    out = NULL;
    rc = 0;
done:
    free(out);
    csv_free(&t);
    return rc;
}
