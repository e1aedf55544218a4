/*
 * kcurve — loads a GPU's measured kernel curves and interpolates them (kcurve.h). Invariant:
 * every curve names a source of the file's "sources" object, which carries its version and
 * licence, so a time the step model takes from a table can be traced to the table.
 */
#include "calib/kcurve.h"
#include "base/jsonv.h"
#include "base/util.h"
#include "calib/calib.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const kc_path_names[] = {"none", "generic", "table", NULL};

/* A GEMM curve: efficiency against m for one (n, k) (n = k = 0: across shapes). */
struct kc_gemm {
    enum roof_dtype dtype;
    double n, k;
    const char *source;
    struct kc_curve eff;
};

/* Attention: one time curve (ms against length) per batch size. */
struct kc_attn {
    int heads, kv_heads, head_dim;
    const char *source;
    int nb;
    double *batch;
    struct kc_curve *ms;
};

struct kc_small {
    int hidden, intermediate, heads, kv_heads;
    const char *source;
    struct kc_curve ms;
};

struct kc_ar {
    int gpus;
    const char *source;
    struct kc_curve ms;
};

struct kc_gpu {
    char path[PATH_MAX];
    cJSON *doc; /* owns the source strings */
    double peak[RD_N];
    int n_gemm, n_generic, n_prefill, n_decode, n_small, n_ar;
    struct kc_gemm *gemm, *generic;
    struct kc_attn *prefill, *decode;
    struct kc_small *small;
    struct kc_ar *ar;
};

/* ---- interpolation ------------------------------------------------------------------- */

static double lerp_log(double x, double x0, double x1, double y0, double y1)
{
    if (x1 == x0)
        return y0;
    double t = (log(x) - log(x0)) / (log(x1) - log(x0));
    return exp(log(y0) + t * (log(y1) - log(y0)));
}

/* lerp_log between knots lo and hi of c, with their logs read, not recomputed. */
static double lerp_knots(const struct kc_curve *c, double x, int lo, int hi)
{
    if (!c->lx)
        return lerp_log(x, c->x[lo], c->x[hi], c->y[lo], c->y[hi]);
    double t = (log(x) - c->lx[lo]) / (c->lx[hi] - c->lx[lo]);
    return exp(c->ly[lo] + t * (c->ly[hi] - c->ly[lo]));
}

double kc_curve_at(const struct kc_curve *c, double x, int *clamped)
{
    int out = !(x >= c->x[0] && x <= c->x[c->n - 1]);
    if (clamped)
        *clamped = out;
    if (out)
        return x > c->x[c->n - 1] ? c->y[c->n - 1] : c->y[0];
    int lo = 0, hi = c->n - 1;
    while (hi - lo > 1) { /* the knots around x by bisection: curves have up to 1024 */
        int mid = (lo + hi) / 2;
        if (c->x[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    if (x == c->x[lo])
        return c->y[lo]; /* exact at a knot, without a round trip through log and exp */
    if (x == c->x[hi])
        return c->y[hi];
    return lerp_knots(c, x, lo, hi); /* knots strictly increase: x[hi] > x[lo] */
}

/* Attention: the two batch curves around batch, each at len, then log-log across batch. */
static double attn_at(const struct kc_attn *a, double batch, double len, int *clamped)
{
    int cb = !(batch >= a->batch[0] && batch <= a->batch[a->nb - 1]);
    int lo = 0;
    if (batch >= a->batch[a->nb - 1])
        lo = a->nb - 1;
    else
        while (lo + 1 < a->nb && a->batch[lo + 1] <= batch)
            lo++;
    int c0 = 0, c1 = 0;
    double y0 = kc_curve_at(&a->ms[lo], len, &c0);
    double y = y0;
    if (!cb && lo + 1 < a->nb && batch > a->batch[lo]) {
        double y1 = kc_curve_at(&a->ms[lo + 1], len, &c1);
        y = lerp_log(batch, a->batch[lo], a->batch[lo + 1], y0, y1);
    }
    *clamped = cb || c0 || c1;
    return y;
}

/* ---- loading ------------------------------------------------------------------------- */

static int curve_read(const struct jv *j, const cJSON *obj, const char *path, const char *xkey,
                      const char *ykey, struct kc_curve *c)
{
    char p[256];
    const cJSON *xs = cJSON_GetObjectItemCaseSensitive(obj, xkey);
    const cJSON *ys = cJSON_GetObjectItemCaseSensitive(obj, ykey);
    if (!cJSON_IsArray(xs))
        return jv_fail(j, jv_path_key(p, sizeof p, path, xkey), "expected an array of numbers");
    if (!cJSON_IsArray(ys))
        return jv_fail(j, jv_path_key(p, sizeof p, path, ykey), "expected an array of numbers");
    int n = cJSON_GetArraySize(xs);
    if (n < 1 || n > KC_MAX_KNOTS)
        return jv_fail(j, jv_path_key(p, sizeof p, path, xkey),
                       "%d knots, expected 1 to %d (KC_MAX_KNOTS)", n, KC_MAX_KNOTS);
    if (cJSON_GetArraySize(ys) != n)
        return jv_fail(j, jv_path_key(p, sizeof p, path, ykey), "%d values for %d knots of %s",
                       cJSON_GetArraySize(ys), n, xkey);
    c->n = n;
    c->x = ss_xmalloc((size_t)n * sizeof *c->x);
    c->y = ss_xmalloc((size_t)n * sizeof *c->y);
    c->lx = ss_xmalloc((size_t)n * sizeof *c->lx);
    c->ly = ss_xmalloc((size_t)n * sizeof *c->ly);
    for (int i = 0; i < n; i++) {
        const cJSON *xv = cJSON_GetArrayItem(xs, i), *yv = cJSON_GetArrayItem(ys, i);
        char q[300];
        if (!cJSON_IsNumber(xv) || !(xv->valuedouble > 0) || !isfinite(xv->valuedouble))
            return jv_fail(j, jv_path_idx(q, sizeof q, jv_path_key(p, sizeof p, path, xkey), i),
                           "expected a positive number");
        if (!cJSON_IsNumber(yv) || !(yv->valuedouble > 0) || !isfinite(yv->valuedouble))
            return jv_fail(j, jv_path_idx(q, sizeof q, jv_path_key(p, sizeof p, path, ykey), i),
                           "expected a positive number");
        c->x[i] = xv->valuedouble;
        c->y[i] = yv->valuedouble;
        c->lx[i] = log(c->x[i]);
        c->ly[i] = log(c->y[i]);
        if (i > 0 && !(c->x[i] > c->x[i - 1]))
            return jv_fail(j, jv_path_idx(q, sizeof q, jv_path_key(p, sizeof p, path, xkey), i),
                           "%g after %g: knots must increase", c->x[i], c->x[i - 1]);
    }
    return 0;
}

/* The curve's "source": a key of the file's sources (which hold version and licence). */
static int source_read(const struct jv *j, const cJSON *doc, const cJSON *obj, const char *path,
                       const char **out)
{
    if (jv_str(j, obj, path, "source", 1, out))
        return -1;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(doc, "sources");
    if (!cJSON_GetObjectItemCaseSensitive(src, *out)) {
        char p[256];
        return jv_fail(j, jv_path_key(p, sizeof p, path, "source"),
                       "\"%s\" is not a key of \"sources\"", *out);
    }
    return 0;
}

static int dtype_read(const struct jv *j, const cJSON *obj, const char *path, enum roof_dtype *out)
{
    int idx;
    if (jv_enum(j, obj, path, "dtype", 1, roof_dtype_names, &idx))
        return -1;
    *out = (enum roof_dtype)idx;
    return 0;
}

/* An array of curve objects: its size checked, each element read by fn into slot i. */
typedef int (*kc_item_fn)(const struct jv *j, const cJSON *doc, const cJSON *obj, const char *path,
                          void *slot);

static int array_read(const struct jv *j, const cJSON *doc, const char *key, size_t size,
                      kc_item_fn fn, void **out, int *n_out)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, key);
    *out = NULL;
    *n_out = 0;
    if (!arr)
        return 0;
    if (!cJSON_IsArray(arr))
        return jv_fail(j, key, "expected an array");
    int n = cJSON_GetArraySize(arr);
    if (n > KC_MAX_CURVES)
        return jv_fail(j, key, "%d curves, at most %d (KC_MAX_CURVES)", n, KC_MAX_CURVES);
    if (n == 0)
        return 0;
    /* Counted whole at once: the unread items stay zeroed, which kc_free releases as
     * empty, so a file that fails half way leaks nothing. */
    char *items = ss_xcalloc((size_t)n, size);
    *out = items;
    *n_out = n;
    for (int i = 0; i < n; i++) {
        char p[128];
        jv_path_idx(p, sizeof p, key, i);
        if (fn(j, doc, cJSON_GetArrayItem(arr, i), p, items + (size_t)i * size))
            return -1;
    }
    return 0;
}

static const char *const gemm_keys[] = {"dtype",        "n", "k",   "ops", "source", "reduction",
                                        "interp_error", "m", "eff", NULL};
static const char *const generic_keys[] = {"dtype", "source", "shapes",      "reduction",
                                           "m",     "eff",    "max_rel_dev", NULL};

static int gemm_item(const struct jv *j, const cJSON *doc, const cJSON *o, const char *p,
                     void *slot)
{
    struct kc_gemm *g = slot;
    if (jv_object(j, o, p, gemm_keys) || dtype_read(j, o, p, &g->dtype) ||
        jv_num_gt(j, o, p, "n", 1, 0, 1e9, &g->n) || jv_num_gt(j, o, p, "k", 1, 0, 1e9, &g->k) ||
        source_read(j, doc, o, p, &g->source))
        return -1;
    return curve_read(j, o, p, "m", "eff", &g->eff);
}

static int generic_item(const struct jv *j, const cJSON *doc, const cJSON *o, const char *p,
                        void *slot)
{
    struct kc_gemm *g = slot;
    if (jv_object(j, o, p, generic_keys) || dtype_read(j, o, p, &g->dtype) ||
        source_read(j, doc, o, p, &g->source))
        return -1;
    return curve_read(j, o, p, "m", "eff", &g->eff);
}

static int int_read(const struct jv *j, const cJSON *o, const char *p, const char *key, int *out)
{
    long v;
    if (jv_int(j, o, p, key, 1, 1, 1 << 20, &v))
        return -1;
    *out = (int)v;
    return 0;
}

static const char *const attn_keys[] = {"dtype",  "heads",     "kv_heads", "head_dim", "source",
                                        "kernel", "reduction", "batches",  NULL};
static const char *const batch_keys[] = {"batch", "len", "ms", NULL};

static int attn_item(const struct jv *j, const cJSON *doc, const cJSON *o, const char *p,
                     void *slot)
{
    struct kc_attn *a = slot;
    enum roof_dtype d;
    if (jv_object(j, o, p, attn_keys) || dtype_read(j, o, p, &d) ||
        int_read(j, o, p, "heads", &a->heads) || int_read(j, o, p, "kv_heads", &a->kv_heads) ||
        int_read(j, o, p, "head_dim", &a->head_dim) || source_read(j, doc, o, p, &a->source))
        return -1;
    char bp[160];
    jv_path_key(bp, sizeof bp, p, "batches");
    if (d != RD_BF16)
        return jv_fail(j, p, "dtype \"%s\": attention tables are bf16", roof_dtype_names[d]);
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(o, "batches");
    int n = cJSON_IsArray(bs) ? cJSON_GetArraySize(bs) : 0;
    if (n < 1 || n > KC_MAX_KNOTS)
        return jv_fail(j, bp, "expected an array of 1 to %d batch curves (KC_MAX_KNOTS)",
                       KC_MAX_KNOTS);
    a->batch = ss_xcalloc((size_t)n, sizeof *a->batch);
    a->ms = ss_xcalloc((size_t)n, sizeof *a->ms);
    for (int i = 0; i < n; i++) {
        char q[200];
        jv_path_idx(q, sizeof q, bp, i);
        const cJSON *b = cJSON_GetArrayItem(bs, i);
        a->nb = i + 1; /* so that kc_free releases what was read */
        if (jv_object(j, b, q, batch_keys) ||
            jv_num_gt(j, b, q, "batch", 1, 0, 1e9, &a->batch[i]) ||
            curve_read(j, b, q, "len", "ms", &a->ms[i]))
            return -1;
        if (i > 0 && !(a->batch[i] > a->batch[i - 1]))
            return jv_fail(j, q, "batch %g after %g: batches must increase", a->batch[i],
                           a->batch[i - 1]);
    }
    return 0;
}

static const char *const small_keys[] = {
    "dtype", "hidden",    "intermediate", "heads",  "kv_heads", "models",   "source",
    "file",  "reduction", "interp_error", "tokens", "ms",       "parts_ms", NULL};

static int small_item(const struct jv *j, const cJSON *doc, const cJSON *o, const char *p,
                      void *slot)
{
    struct kc_small *s = slot;
    enum roof_dtype d;
    if (jv_object(j, o, p, small_keys) || dtype_read(j, o, p, &d) ||
        int_read(j, o, p, "hidden", &s->hidden) ||
        int_read(j, o, p, "intermediate", &s->intermediate) ||
        int_read(j, o, p, "heads", &s->heads) || int_read(j, o, p, "kv_heads", &s->kv_heads) ||
        source_read(j, doc, o, p, &s->source))
        return -1;
    if (d != RD_FP16 && d != RD_BF16)
        return jv_fail(j, p, "dtype \"%s\": small-kernel tables are 16-bit", roof_dtype_names[d]);
    return curve_read(j, o, p, "tokens", "ms", &s->ms);
}

static const char *const ar_keys[] = {"dtype",     "gpus", "source", "backend",
                                      "reduction", "size", "ms",     NULL};

static int ar_item(const struct jv *j, const cJSON *doc, const cJSON *o, const char *p, void *slot)
{
    struct kc_ar *a = slot;
    enum roof_dtype d;
    if (jv_object(j, o, p, ar_keys) || dtype_read(j, o, p, &d) ||
        int_read(j, o, p, "gpus", &a->gpus) || source_read(j, doc, o, p, &a->source))
        return -1;
    return curve_read(j, o, p, "size", "ms", &a->ms);
}

static const char *const top_keys[] = {
    "schema",    "gpu",  "device",       "notes",        "peaks_tflops", "peaks_source",
    "sources",   "gemm", "gemm_generic", "attn_prefill", "attn_decode",  "small_kernels",
    "allreduce", NULL};
static const char *const source_keys[] = {"name",     "version",   "licence", "file",  "sha256",
                                          "verified", "framework", "tables",  "files", NULL};

static int sources_read(const struct jv *j, const cJSON *doc)
{
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(doc, "sources");
    if (!cJSON_IsObject(src))
        return jv_fail(j, "sources", "expected an object of sources by key");
    const cJSON *s;
    cJSON_ArrayForEach(s, src)
    {
        char p[128];
        const char *v;
        jv_path_key(p, sizeof p, "sources", s->string);
        if (jv_object(j, s, p, source_keys) || jv_str(j, s, p, "version", 1, &v) ||
            jv_str(j, s, p, "licence", 1, &v))
            return -1;
    }
    return 0;
}

static int peaks_read(const struct jv *j, const cJSON *doc, struct kc_gpu *g)
{
    const cJSON *pk = cJSON_GetObjectItemCaseSensitive(doc, "peaks_tflops");
    if (!cJSON_IsObject(pk))
        return jv_fail(j, "peaks_tflops", "expected an object of dense peaks by data type");
    const cJSON *e;
    cJSON_ArrayForEach(e, pk)
    {
        int d = 0;
        while (d < RD_N && strcmp(roof_dtype_names[d], e->string) != 0)
            d++;
        double v;
        if (d == RD_N)
            return jv_fail(j, "peaks_tflops", "unknown data type \"%s\"", e->string);
        if (jv_num_gt(j, pk, "peaks_tflops", e->string, 1, 0, 1e6, &v))
            return -1;
        g->peak[d] = v * 1e12;
    }
    return 0;
}

int kc_load_file(const char *path, struct kc_gpu **out, char *err, size_t errlen)
{
    *out = NULL;
    struct jv j = {path, err, errlen};
    cJSON *doc = jv_parse_file(&j, KC_MAX_FILE);
    if (!doc)
        return -1;
    struct kc_gpu *g = ss_xcalloc(1, sizeof *g);
    snprintf(g->path, sizeof g->path, "%s", path);
    g->doc = doc;
    const char *schema;
    int rc = jv_object(&j, doc, "", top_keys) || jv_str(&j, doc, "", "schema", 1, &schema);
    if (!rc && strcmp(schema, "sharesim-kernels/1") != 0)
        rc = jv_fail(&j, "schema", "\"%s\", expected \"sharesim-kernels/1\"", schema);
    rc = rc || sources_read(&j, doc) || peaks_read(&j, doc, g) ||
         array_read(&j, doc, "gemm", sizeof *g->gemm, gemm_item, (void **)&g->gemm, &g->n_gemm) ||
         array_read(&j, doc, "gemm_generic", sizeof *g->generic, generic_item, (void **)&g->generic,
                    &g->n_generic) ||
         array_read(&j, doc, "attn_prefill", sizeof *g->prefill, attn_item, (void **)&g->prefill,
                    &g->n_prefill) ||
         array_read(&j, doc, "attn_decode", sizeof *g->decode, attn_item, (void **)&g->decode,
                    &g->n_decode) ||
         array_read(&j, doc, "small_kernels", sizeof *g->small, small_item, (void **)&g->small,
                    &g->n_small) ||
         array_read(&j, doc, "allreduce", sizeof *g->ar, ar_item, (void **)&g->ar, &g->n_ar);
    /* A GEMM curve is useless without the peak it was reduced with. */
    for (int i = 0; !rc && i < g->n_gemm + g->n_generic; i++) {
        const struct kc_gemm *c = i < g->n_gemm ? &g->gemm[i] : &g->generic[i - g->n_gemm];
        if (!(g->peak[c->dtype] > 0)) {
            char p[64];
            snprintf(p, sizeof p, "%s[%d]", i < g->n_gemm ? "gemm" : "gemm_generic",
                     i < g->n_gemm ? i : i - g->n_gemm);
            rc = jv_fail(&j, p, "dtype \"%s\" has no entry in peaks_tflops",
                         roof_dtype_names[c->dtype]);
        }
    }
    if (rc) {
        kc_free(g);
        return -1;
    }
    *out = g;
    return 0;
}

int kc_load(const char *profile_path, struct kc_gpu **out, char *err, size_t errlen)
{
    *out = NULL;
    const char *base = strrchr(profile_path, '/');
    base = base ? base + 1 : profile_path;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/kernels/%s", cal_profile_dir(), base) >=
        sizeof path)
        return ss_errf(err, errlen, "%s/kernels/%s: path too long", cal_profile_dir(), base);
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return 0; /* no measured curves for this GPU: the roofline serves it */
    return kc_load_file(path, out, err, errlen);
}

int kc_get(const char *profile_path, const struct kc_gpu **out, char *err, size_t errlen)
{
    static struct {
        char path[PATH_MAX];
        char dir[PATH_MAX]; /* cal_profile_dir() when it was loaded: tests change it */
        struct kc_gpu *g;
    } cache[KC_CACHE];
    static int n;
    const char *dir = cal_profile_dir();
    for (int i = 0; i < n; i++)
        if (strcmp(cache[i].path, profile_path) == 0 && strcmp(cache[i].dir, dir) == 0) {
            *out = cache[i].g;
            return 0;
        }
    struct kc_gpu *g;
    if (kc_load(profile_path, &g, err, errlen))
        return -1;
    *out = g;
    if (n < KC_CACHE && strlen(profile_path) < PATH_MAX && strlen(dir) < PATH_MAX) {
        strcpy(cache[n].path, profile_path);
        strcpy(cache[n].dir, dir);
        cache[n++].g = g;
    }
    /* else: the caller's pointer is the only one, for the process's life (more than KC_CACHE
     * profile files in one process: a test that makes up profile directories) */
    return 0;
}

static void curve_free(struct kc_curve *c)
{
    free(c->x);
    free(c->y);
    free(c->lx);
    free(c->ly);
}

static void attn_free(struct kc_attn *a, int n)
{
    for (int i = 0; i < n; i++) {
        for (int b = 0; b < a[i].nb; b++)
            curve_free(&a[i].ms[b]);
        free(a[i].batch);
        free(a[i].ms);
    }
    free(a);
}

void kc_free(struct kc_gpu *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n_gemm; i++)
        curve_free(&g->gemm[i].eff);
    for (int i = 0; i < g->n_generic; i++)
        curve_free(&g->generic[i].eff);
    attn_free(g->prefill, g->n_prefill);
    attn_free(g->decode, g->n_decode);
    for (int i = 0; i < g->n_small; i++)
        curve_free(&g->small[i].ms);
    for (int i = 0; i < g->n_ar; i++)
        curve_free(&g->ar[i].ms);
    free(g->gemm);
    free(g->generic);
    free(g->small);
    free(g->ar);
    cJSON_Delete(g->doc);
    free(g);
}

const char *kc_file(const struct kc_gpu *g)
{
    return g ? g->path : NULL;
}

/* ---- lookups ------------------------------------------------------------------------- */

static void none(struct kc_result *r)
{
    r->s = 0;
    r->path = KC_NONE;
    r->clamped = 0;
    r->source = NULL;
}

void kc_gemm_find(const struct kc_gpu *g, enum roof_dtype d, double n, double k,
                  struct kc_gemm_ref *ref)
{
    *ref = (struct kc_gemm_ref){g, NULL, d, n, k, KC_NONE};
    if (!g)
        return;
    const struct kc_gemm *c = NULL;
    for (int i = 0; i < g->n_gemm && !c; i++)
        if (g->gemm[i].dtype == d && g->gemm[i].n == n && g->gemm[i].k == k)
            c = &g->gemm[i];
    ref->path = c ? KC_TABLE : KC_NONE;
    for (int i = 0; i < g->n_generic && !c; i++)
        if (g->generic[i].dtype == d) {
            c = &g->generic[i];
            ref->path = KC_GENERIC;
        }
    ref->c = c;
}

/* The efficiency at m of a found curve (0 and KC_NONE where none). */
static double ref_eff(const struct kc_gemm_ref *ref, double m, struct kc_result *r)
{
    none(r);
    if (!ref->c)
        return 0;
    r->path = ref->path;
    r->source = ref->c->source;
    return kc_curve_at(&ref->c->eff, m, &r->clamped);
}

void kc_gemm_ref_time(const struct kc_gemm_ref *ref, double m, struct kc_result *r)
{
    double eff = ref_eff(ref, m, r);
    if (r->path != KC_NONE)
        r->s = 2.0 * m * ref->n * ref->k / (eff * ref->g->peak[ref->d]);
}

double kc_gemm_eff(const struct kc_gpu *g, enum roof_dtype d, double m, double n, double k,
                   struct kc_result *r)
{
    struct kc_gemm_ref ref;
    kc_gemm_find(g, d, n, k, &ref);
    return ref_eff(&ref, m, r);
}

void kc_gemm(const struct kc_gpu *g, enum roof_dtype d, double m, double n, double k,
             struct kc_result *r)
{
    struct kc_gemm_ref ref;
    kc_gemm_find(g, d, n, k, &ref);
    kc_gemm_ref_time(&ref, m, r);
}

static void attn(const struct kc_attn *a, int na, enum roof_dtype d, int heads, int kv_heads,
                 int head_dim, double batch, double len, struct kc_result *r)
{
    none(r);
    if (d != RD_BF16 && d != RD_FP16)
        return;
    for (int i = 0; i < na; i++)
        if (a[i].heads == heads && a[i].kv_heads == kv_heads && a[i].head_dim == head_dim) {
            r->s = attn_at(&a[i], batch, len, &r->clamped) * 1e-3;
            r->path = KC_TABLE;
            r->source = a[i].source;
            return;
        }
}

void kc_attn_prefill(const struct kc_gpu *g, enum roof_dtype d, int heads, int kv_heads,
                     int head_dim, double batch, double len, struct kc_result *r)
{
    none(r);
    if (g)
        attn(g->prefill, g->n_prefill, d, heads, kv_heads, head_dim, batch, len, r);
}

void kc_attn_decode(const struct kc_gpu *g, enum roof_dtype d, int heads, int kv_heads,
                    int head_dim, double batch, double len, struct kc_result *r)
{
    none(r);
    if (g)
        attn(g->decode, g->n_decode, d, heads, kv_heads, head_dim, batch, len, r);
}

void kc_small_kernels(const struct kc_gpu *g, enum roof_dtype d, int hidden, int intermediate,
                      int heads, int kv_heads, double tokens, struct kc_result *r)
{
    none(r);
    if (!g || (d != RD_FP16 && d != RD_BF16))
        return;
    for (int i = 0; i < g->n_small; i++) {
        const struct kc_small *s = &g->small[i];
        if (s->hidden == hidden && s->intermediate == intermediate && s->heads == heads &&
            s->kv_heads == kv_heads) {
            r->s = kc_curve_at(&s->ms, tokens, &r->clamped) * 1e-3;
            /* Past the last knot the time grows with the tokens, not flat: these are
             * elementwise kernels whose bytes are proportional to the tokens (the tables'
             * last pieces have slopes of 0.97-1.10 in log-log), so a 16k-token prefill costs
             * four times a 4k one, not the same. Below the first knot the launch-bound floor
             * holds. */
            double end = s->ms.x[s->ms.n - 1];
            if (tokens > end)
                r->s *= tokens / end;
            r->path = KC_TABLE;
            r->source = s->source;
            return;
        }
    }
}

void kc_allreduce(const struct kc_gpu *g, enum roof_dtype d, int gpus, double elements,
                  struct kc_result *r)
{
    none(r);
    if (!g || (d != RD_FP16 && d != RD_BF16))
        return;
    for (int i = 0; i < g->n_ar; i++)
        if (g->ar[i].gpus == gpus) {
            r->s = kc_curve_at(&g->ar[i].ms, elements, &r->clamped) * 1e-3;
            r->path = KC_TABLE;
            r->source = g->ar[i].source;
            return;
        }
}
