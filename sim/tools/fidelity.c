/*
 * fidelity — see fidelity.h.
 */
#include "tools/fidelity.h"
#include "core/cdfrun.h"

#include "base/jsonv.h"
#include "core/rdoc.h"
#include "base/rng.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {"timeslice", "partition", NULL};

const char *fid_mode_name(enum fid_mode m)
{
    return mode_names[m == FID_PARTITION];
}

int fid_mode_parse(const char *s)
{
    for (int i = 0; mode_names[i]; i++)
        if (s && strcmp(s, mode_names[i]) == 0)
            return i;
    return -1;
}

/* ---- figures ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double fid_quantile(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return NAN;
    double r = ceil(p * (double)n - 1e-9);
    size_t k = r < 1 ? 0 : (size_t)r - 1;
    return sorted[k < n ? k : n - 1];
}

void fid_stats(double *x, size_t n, struct fid_stats *s)
{
    s->n = n;
    if (n == 0) {
        s->mean_ms = s->p50_ms = s->p95_ms = s->p99_ms = s->max_ms = NAN;
        return;
    }
    qsort(x, n, sizeof *x, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    s->mean_ms = sum / (double)n;
    s->p50_ms = fid_quantile(x, n, 0.50);
    s->p95_ms = fid_quantile(x, n, 0.95);
    s->p99_ms = fid_quantile(x, n, 0.99);
    s->max_ms = x[n - 1];
}

size_t fid_poisson(uint64_t seed, double rate_per_s, double duration_s, double **out)
{
    struct rng r;
    rng_seed(&r, seed);
    size_t n = 0, cap = 64;
    double *t = ss_xmalloc(cap * sizeof *t), now = 0;
    if (rate_per_s > 0)
        for (;;) {
            now += rng_exp1(&r) / rate_per_s;
            if (!(now < duration_s))
                break;
            if (n == cap)
                t = ss_xrealloc(t, (cap *= 2) * sizeof *t);
            t[n++] = now;
        }
    *out = t;
    return n;
}

/* ---- the summary document ---- */

static cJSON *stats_json(const struct fid_stats *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "requests", (double)s->n);
    jv_out_add(o, "mean_ms", s->mean_ms);
    jv_out_add(o, "p50_ms", s->p50_ms);
    jv_out_add(o, "p95_ms", s->p95_ms);
    jv_out_add(o, "p99_ms", s->p99_ms);
    jv_out_add(o, "max_ms", s->max_ms);
    return o;
}

cJSON *fid_summary_json(const struct fid_summary *s, cJSON *kernel)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "schema", FID_SCHEMA);
    cJSON_AddStringToObject(d, "case", s->case_name);
    cJSON_AddStringToObject(d, "mode", fid_mode_name(s->mode));
    cJSON_AddNumberToObject(d, "tenants", s->tenants);
    cJSON_AddStringToObject(d, "device", s->device);
    cJSON_AddStringToObject(d, "driver", s->driver);
    cJSON_AddStringToObject(d, "date", s->date);
    cJSON_AddStringToObject(d, "source", s->source);
    cJSON_AddNumberToObject(d, "seed", (double)s->seed);
    jv_out_add(d, "duration_s", s->duration_s);
    jv_out_add(d, "warmup_s", s->warmup_s);
    jv_out_add(d, "load", s->load);
    jv_out_add(d, "rate_per_s", s->rate_per_s);
    jv_out_add(d, "work_ms", s->work_ms);
    jv_out_add(d, "overhead_ms", s->overhead_ms);
    cJSON_AddNumberToObject(d, "total_sms", s->total_sms);
    if (s->mode == FID_PARTITION) {
        cJSON *p = cJSON_AddObjectToObject(d, "partition");
        cJSON_AddNumberToObject(p, "sms", s->part_sms);
        cJSON_AddStringToObject(p, "method", s->part_method);
        jv_out_add(p, "alone_ms", s->part_alone_ms);
    }
    cJSON_AddStringToObject(d, "latencies_csv", s->latencies_csv);
    cJSON_AddItemToObject(d, "measured", stats_json(&s->measured));
    cJSON *pt = cJSON_AddArrayToObject(d, "per_tenant");
    for (int i = 0; i < s->tenants && i < FID_MAX_TENANTS; i++)
        cJSON_AddItemToArray(pt, stats_json(&s->per_tenant[i]));
    if (kernel)
        cJSON_AddItemToObject(d, "kernel", kernel);
    return d;
}

static int copy_str(const struct jv *j, const cJSON *o, const char *path, const char *key,
                    int required, char *dst, size_t n)
{
    const char *v = NULL;
    int rc = jv_str(j, o, path, key, required, &v);
    if (rc == 0) {
        char p[256];
        if (strlen(v) >= n)
            return jv_fail(j, jv_path_key(p, sizeof p, path, key),
                           "expected a string of at most %zu characters", n - 1);
        snprintf(dst, n, "%s", v);
    }
    return rc < 0 ? -1 : 0;
}

/* null (a figure of an empty sample) reads as NaN. */
static int read_fig(const struct jv *j, const cJSON *o, const char *path, const char *key,
                    double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNull(v)) {
        *out = NAN;
        return 0;
    }
    return jv_num(j, o, path, key, 1, 0, 1e12, out) < 0 ? -1 : 0;
}

static int read_stats(const struct jv *j, const cJSON *o, const char *path, struct fid_stats *s)
{
    static const char *const keys[] = {"requests", "mean_ms", "p50_ms", "p95_ms",
                                       "p99_ms",   "max_ms",  NULL};
    long n = 0;
    if (jv_object(j, o, path, keys) || jv_int(j, o, path, "requests", 1, 0, LONG_MAX, &n) < 0 ||
        read_fig(j, o, path, "mean_ms", &s->mean_ms) ||
        read_fig(j, o, path, "p50_ms", &s->p50_ms) || read_fig(j, o, path, "p95_ms", &s->p95_ms) ||
        read_fig(j, o, path, "p99_ms", &s->p99_ms) || read_fig(j, o, path, "max_ms", &s->max_ms))
        return -1;
    s->n = (size_t)n;
    return 0;
}

static int read_summary(const struct jv *j, const cJSON *d, struct fid_summary *s)
{
    static const char *const keys[] = {
        "schema",     "case",       "mode",        "tenants",    "device",    "driver",
        "date",       "source",     "seed",        "duration_s", "warmup_s",  "load",
        "rate_per_s", "work_ms",    "overhead_ms", "total_sms",  "partition", "latencies_csv",
        "measured",   "per_tenant", "kernel",      NULL};
    const char *schema = NULL;
    if (jv_object(j, d, "", keys) || jv_str(j, d, "", "schema", 1, &schema) < 0)
        return -1;
    if (strcmp(schema, FID_SCHEMA) != 0)
        return jv_fail(j, "schema", "expected \"%s\", got \"%s\"", FID_SCHEMA, schema);
    int mode = 0;
    long tenants = 0, sms = 0, seed = 0;
    if (copy_str(j, d, "", "case", 1, s->case_name, sizeof s->case_name) ||
        jv_enum(j, d, "", "mode", 1, mode_names, &mode) < 0 ||
        jv_int(j, d, "", "tenants", 1, 1, FID_MAX_TENANTS, &tenants) < 0 ||
        copy_str(j, d, "", "device", 1, s->device, sizeof s->device) ||
        copy_str(j, d, "", "driver", 0, s->driver, sizeof s->driver) ||
        copy_str(j, d, "", "date", 0, s->date, sizeof s->date) ||
        copy_str(j, d, "", "source", 0, s->source, sizeof s->source) ||
        jv_int(j, d, "", "seed", 0, 0, LONG_MAX, &seed) < 0 ||
        jv_num_gt(j, d, "", "duration_s", 1, 0, 1e6, &s->duration_s) < 0 ||
        jv_num(j, d, "", "warmup_s", 1, 0, 1e6, &s->warmup_s) < 0 ||
        jv_num(j, d, "", "load", 1, 0, 100, &s->load) < 0 ||
        jv_num_gt(j, d, "", "rate_per_s", 1, 0, 1e9, &s->rate_per_s) < 0 ||
        jv_num_gt(j, d, "", "work_ms", 1, 0, 1e9, &s->work_ms) < 0 ||
        jv_num(j, d, "", "overhead_ms", 1, 0, 1e9, &s->overhead_ms) < 0 ||
        jv_int(j, d, "", "total_sms", 1, 1, 100000, &sms) < 0 ||
        copy_str(j, d, "", "latencies_csv", 1, s->latencies_csv, sizeof s->latencies_csv))
        return -1;
    if (!(s->warmup_s < s->duration_s))
        return jv_fail(j, "warmup_s", "expected less than duration_s (%g), got %g", s->duration_s,
                       s->warmup_s);
    s->mode = (enum fid_mode)mode;
    s->tenants = (int)tenants;
    s->total_sms = (int)sms;
    s->seed = (uint64_t)seed;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(d, "partition");
    if (s->mode == FID_PARTITION) {
        static const char *const pkeys[] = {"sms", "method", "alone_ms", NULL};
        long k = 0;
        if (!p)
            return jv_fail(j, "partition", "expected an object (mode \"partition\"), got nothing");
        if (jv_object(j, p, "partition", pkeys) ||
            jv_int(j, p, "partition", "sms", 1, 1, s->total_sms, &k) < 0 ||
            copy_str(j, p, "partition", "method", 1, s->part_method, sizeof s->part_method) ||
            jv_num_gt(j, p, "partition", "alone_ms", 1, 0, 1e9, &s->part_alone_ms) < 0)
            return -1;
        s->part_sms = (int)k;
    } else if (p) {
        return jv_fail(j, "partition", "expected nothing with mode \"timeslice\", got an object");
    }
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(d, "measured");
    if (!m)
        return jv_fail(j, "measured", "expected an object, got nothing");
    if (read_stats(j, m, "measured", &s->measured))
        return -1;
    const cJSON *pt = cJSON_GetObjectItemCaseSensitive(d, "per_tenant");
    if (pt) {
        if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != s->tenants)
            return jv_fail(j, "per_tenant", "expected an array of %d objects (tenants)",
                           s->tenants);
        for (int i = 0; i < s->tenants; i++) {
            char path[64];
            if (read_stats(j, cJSON_GetArrayItem(pt, i),
                           jv_path_idx(path, sizeof path, "per_tenant", i), &s->per_tenant[i]))
                return -1;
        }
    }
    return 0;
}

int fid_summary_read(const char *path, struct fid_summary *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    char *text = NULL;
    size_t len = 0;
    if (ss_read_file(path, 1 << 20, &text, &len, err, errlen))
        return -1;
    struct jv j = {path, err, errlen};
    cJSON *d = jv_parse(&j, text, len);
    free(text);
    if (!d)
        return -1;
    int rc = read_summary(&j, d, s);
    cJSON_Delete(d);
    if (rc == 0)
        snprintf(s->path, sizeof s->path, "%s", path);
    return rc;
}

/* ---- the scenario ---- */

int fid_mig_choice(const struct gpu_profile *g, int sms, int tenants)
{
    int best = -1;
    for (int i = 0; i < g->n_mig; i++) {
        if (g->mig[i].max_instances < tenants)
            continue;
        if (best < 0 || abs(g->mig[i].sm_count - sms) < abs(g->mig[best].sm_count - sms))
            best = i;
    }
    return best;
}

/* The number a value object of a profile document holds, or NaN. */
static double doc_value(const cJSON *doc, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(v, "value");
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

static void add_timeslice(cJSON *strategies, const char *name, double slice_ms, double switch_us)
{
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "name", name);
    cJSON_AddStringToObject(st, "kind", "timeslice");
    jv_out_add(st, "slice_ms", slice_ms);
    jv_out_add(st, "switch_us", switch_us);
    cJSON_AddItemToArray(strategies, st);
}

/* Column index of name in a CSV header line, -1 when absent. */
static int csv_column(const char *header, const char *name)
{
    int k = 0;
    size_t n = strlen(name);
    for (const char *p = header;; k++) {
        size_t len = strcspn(p, ",\r\n");
        if (len == n && strncmp(p, name, n) == 0)
            return k;
        if (p[len] != ',')
            return -1;
        p += len + 1;
    }
}

/* Field k of a CSV line (no quoting: the latencies file has none) as a number. */
static int csv_number(const char *line, int k, double *out)
{
    const char *p = line;
    for (int i = 0; i < k; i++) {
        p = strchr(p, ',');
        if (!p)
            return -1;
        p++;
    }
    char *end;
    *out = strtod(p, &end);
    return end == p || (*end && *end != ',' && *end != '\n' && *end != '\r') || !isfinite(*out) ? -1
                                                                                                : 0;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* Writes "<prefix>-t<i>.csv" (time_s) for every tenant from the latencies CSV's submit times. */
static int write_traces(const struct fid_summary *s, const char *prefix, char *err, size_t errlen)
{
    char csv[PATH_MAX];
    const char *slash = strrchr(s->path, '/');
    if (s->latencies_csv[0] == '/' || !slash)
        snprintf(csv, sizeof csv, "%s", s->latencies_csv);
    else
        snprintf(csv, sizeof csv, "%.*s/%s", (int)(slash - s->path), s->path, s->latencies_csv);
    FILE *in = fopen(csv, "r");
    if (!in)
        return ss_errf(err, errlen, "%s: cannot read the latencies (%s)", csv, strerror(errno));
    struct ss_out out[FID_MAX_TENANTS];
    int opened = 0, rc = -1;
    double last[FID_MAX_TENANTS];
    long line_no = 1, rows[FID_MAX_TENANTS] = {0};
    char line[1024];
    int ct = -1, cs = -1;
    if (!fgets(line, sizeof line, in) || (ct = csv_column(line, "tenant")) < 0 ||
        (cs = csv_column(line, "submit_ms")) < 0) {
        ss_errf(err, errlen, "%s:1: expected a header with the columns tenant and submit_ms", csv);
        goto done;
    }
    for (; opened < s->tenants; opened++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s-t%d.csv", prefix, opened);
        if (ss_out_open(&out[opened], path, err, errlen))
            goto done;
        fprintf(out[opened].fp, "time_s\n");
        last[opened] = -INFINITY;
    }
    while (fgets(line, sizeof line, in)) {
        line_no++;
        double t, ms;
        if (csv_number(line, ct, &t) || csv_number(line, cs, &ms) || t < 0 || t >= s->tenants ||
            t != floor(t) || ms < 0) {
            ss_errf(err, errlen, "%s:%ld: expected tenant in 0..%d and submit_ms >= 0", csv,
                    line_no, s->tenants - 1);
            goto done;
        }
        int i = (int)t;
        if (ms < last[i]) {
            ss_errf(err, errlen, "%s:%ld: tenant %d's submit times go backwards (%g after %g)", csv,
                    line_no, i, ms, last[i]);
            goto done;
        }
        last[i] = ms;
        rows[i]++;
        fprintf(out[i].fp, "%.9g\n", ms / 1000.0);
    }
    for (int i = 0; i < s->tenants; i++)
        if (rows[i] < 2) {
            ss_errf(err, errlen, "%s: tenant %d has %ld submissions: nothing to replay", csv, i,
                    rows[i]);
            goto done;
        }
    rc = 0;
    for (int i = 0; i < opened; i++)
        if (rc == 0 && ss_out_commit(&out[i], err, errlen))
            rc = -1;
        else if (rc)
            ss_out_abort(&out[i]);
    opened = 0;
done:
    for (int i = 0; i < opened; i++)
        ss_out_abort(&out[i]);
    fclose(in);
    return rc;
}

cJSON *fid_scenario(const struct fid_summary *s, const cJSON *doc, const struct gpu_profile *g,
                    const struct fid_scn_opts *o, char *note, size_t notelen, char *err,
                    size_t errlen)
{
    char why[512] = "";
    double work = s->work_ms;
    cJSON *strategies = cJSON_CreateArray();
    if (s->mode == FID_TIMESLICE) {
        /* The whole switch on the strategy, the tenants carrying no context state: the
         * profile's base plus two default contexts' state (cal_switch_s), or the heavy
         * round's measured switch as it is. */
        double sw = cal_switch_s(g, g->switch_s, g->context_state_mb, g->context_state_mb);
        add_timeslice(strategies, "timeslice", g->timeslice_s * 1e3, sw * 1e6);
        double hs = doc_value(doc, "timeslice_us_heavy"), hw = doc_value(doc, "switch_us_heavy");
        int heavy = hs > 0 && hw >= 0;
        if (heavy)
            add_timeslice(strategies, "timeslice-heavy", hs / 1e3, hw);
        snprintf(why, sizeof why,
                 "%d contexts time-sliced, slice %.6g us and switch %.6g us (timeslice_us of %s; "
                 "switch_us %.6g plus two contexts of context_state_mb %.6g MB over "
                 "ctx_switch_gbps %.6g)%s",
                 s->tenants, g->timeslice_s * 1e6, sw * 1e6, g->name, g->switch_s * 1e6,
                 g->context_state_mb, g->ctx_switch_bps / 1e9,
                 heavy ? "; timeslice-heavy: timeslice_us_heavy, switch_us_heavy" : "");
    } else {
        int k = fid_mig_choice(g, s->part_sms, s->tenants);
        if (k < 0) {
            cJSON_Delete(strategies);
            ss_errf(err, errlen, "%s has no MIG profile that allows %d instances", g->name,
                    s->tenants);
            return NULL;
        }
        const struct mig_profile *m = &g->mig[k];
        double scale = pow((double)m->sm_count / s->part_sms, g->rate_compute_exponent);
        work *= scale;
        cJSON *st = cJSON_CreateObject();
        cJSON_AddStringToObject(st, "name", "mig");
        cJSON_AddStringToObject(st, "kind", "mig");
        cJSON *layout = cJSON_AddArrayToObject(st, "layout");
        for (int i = 0; i < s->tenants; i++) {
            cJSON *inst = cJSON_CreateObject(), *ts = cJSON_CreateArray();
            char t[16];
            snprintf(t, sizeof t, "t%d", i);
            cJSON_AddStringToObject(inst, "profile", m->name);
            cJSON_AddItemToArray(ts, cJSON_CreateString(t));
            cJSON_AddItemToObject(inst, "tenants", ts);
            cJSON_AddItemToArray(layout, inst);
        }
        cJSON_AddItemToArray(strategies, st);
        snprintf(why, sizeof why,
                 "%d partitions of %d SMs (%s) as %d x %s (%d SMs); work %.6g ms x (%d/%d)^%.4g "
                 "= %.6g ms so the instance runs at the partition's rate-model speed",
                 s->tenants, s->part_sms, s->part_method, s->tenants, m->name, m->sm_count,
                 s->work_ms, m->sm_count, s->part_sms, g->rate_compute_exponent, work);
    }
    cJSON *d = cJSON_CreateObject();
    char desc[1600];
    snprintf(desc, sizeof desc,
             "Fidelity check %s (%s): %d tenants, Poisson %.6g req/s each, deterministic work; "
             "measured by %s. %s.",
             s->case_name, o->trace ? "replay of the measured submit times" : "Poisson arrivals",
             s->tenants, s->rate_per_s, s->source[0] ? s->source : s->device, why);
    cJSON_AddStringToObject(d, "name", s->case_name);
    cJSON_AddStringToObject(d, "description", desc);
    cJSON_AddStringToObject(d, "gpu", o->gpu);
    cJSON_AddNumberToObject(d, "seed", (double)(s->seed ? s->seed : 1));
    if (o->trace) {
        if (write_traces(s, o->trace, err, errlen)) {
            cJSON_Delete(d);
            cJSON_Delete(strategies);
            return NULL;
        }
        if (s->warmup_s > 0)
            jv_out_add(cJSON_AddObjectToObject(d, "warmup"), "duration_s", s->warmup_s);
    } else {
        long r = o->requests > 0 ? o->requests : 400000;
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(d, "stop"), "requests", (double)r);
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(d, "warmup"), "requests", (double)(r / 50));
    }
    cJSON *tenants = cJSON_AddArrayToObject(d, "tenants");
    for (int i = 0; i < s->tenants; i++) {
        cJSON *t = cJSON_CreateObject(), *a = cJSON_CreateObject(), *w = cJSON_CreateObject();
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        cJSON_AddStringToObject(t, "name", name);
        if (o->trace) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s-t%d.csv", base_name(o->trace), i);
            cJSON_AddStringToObject(a, "process", "trace");
            cJSON_AddStringToObject(a, "path", path);
            cJSON_AddStringToObject(a, "format", "sharesim");
        } else {
            cJSON_AddStringToObject(a, "process", "poisson");
            jv_out_add(a, "rate_per_s", s->rate_per_s);
        }
        cJSON_AddItemToObject(t, "arrival", a);
        cJSON_AddStringToObject(w, "dist", "deterministic");
        jv_out_add(w, "ms", work);
        if (s->mode == FID_TIMESLICE)
            cJSON_AddNumberToObject(w, "context_state_mb", 0); /* the switch is the strategy's */
        cJSON_AddItemToObject(t, "work", w);
        cJSON_AddStringToObject(t, "class", "compute");
        cJSON_AddItemToArray(tenants, t);
    }
    cJSON_AddItemToObject(d, "strategies", strategies);
    if (note)
        snprintf(note, notelen, "%s", why);
    return d;
}

/* ---- predictions ---- */

/* 1 when there is no result at path (no prediction), else rd_load's answer. */
static int read_result(const char *path, cJSON **doc, char *err, size_t errlen)
{
    *doc = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 1;
    fclose(fp);
    return rd_load(path, doc, err, errlen);
}

int fid_result_strategies(const char *result_json, char names[][64], int max, char *err,
                          size_t errlen)
{
    cJSON *doc;
    int rc = read_result(result_json, &doc, err, errlen);
    if (rc)
        return rc < 0 ? -1 : 0;
    int n = 0;
    const cJSON *st;
    RD_EACH_STRATEGY(st, doc)
    {
        if (n < max)
            snprintf(names[n++], 64, "%s", rd_name(st));
    }
    cJSON_Delete(doc);
    return n;
}

/* The pooled quantiles of strategy from a --cdf file, read by the pages' reader; 1 when the file
 * or some of the three quantiles are missing. */
static int pooled(const char *cdf_csv, const char *strategy, struct fid_pred *p)
{
    struct cdf_curves c;
    char err[512];
    if (cdf_csv_load(cdf_csv, 1, &c, err, sizeof err))
        return 1;
    const struct cdf_curve *row = cdf_csv_find(&c, strategy, "(all)");
    static const double at[3] = {0.5, 0.95, 0.99};
    double *out[3] = {&p->p50_ms, &p->p95_ms, &p->p99_ms};
    int found = 0;
    for (int k = 0; row && k < row->n; k++)
        for (int q = 0; q < 3; q++)
            if (fabs(row->p[k] - at[q]) < 1e-9) {
                *out[q] = row->ms[k];
                found |= 1 << q;
            }
    cdf_csv_free(&c);
    return found == 7 ? 0 : 1;
}

int fid_predicted(const char *result_json, const char *cdf_csv, const char *strategy,
                  struct fid_pred *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->mean_ms = p->p50_ms = p->p95_ms = p->p99_ms = NAN;
    cJSON *doc;
    int rc = read_result(result_json, &doc, err, errlen);
    if (rc)
        return rc < 0 ? -1 : 0;
    const cJSON *hit = rd_strategy(doc, strategy), *t;
    double sum = 0, done = 0;
    RD_EACH_TENANT(t, hit)
    {
        double c = rd_fig(t, MT_TENANT, TM_COMPLETED), m = rd_fig(t, MT_TENANT, TM_LAT_MEAN);
        if (c > 0 && isfinite(m)) {
            sum += c * m;
            done += c;
        }
    }
    cJSON_Delete(doc);
    if (!hit || done <= 0 || pooled(cdf_csv, strategy, p))
        return 0;
    p->completed = (long)done;
    p->mean_ms = sum / done;
    p->ok = 1;
    return 0;
}

/* ---- the comparison ---- */

static double rel(double pred, double meas)
{
    return isfinite(pred) && isfinite(meas) && meas > 0 ? (pred - meas) / meas : NAN;
}

double fid_rel_error(const struct fid_row *r, const struct fid_pred *p, double sim_ms,
                     double measured_ms)
{
    return p->ok ? rel(sim_ms + r->s.overhead_ms, measured_ms) : NAN;
}

int fid_row_ok(const struct fid_row *r, double goal)
{
    double e = fid_rel_error(r, &r->poisson, r->poisson.p99_ms, r->s.measured.p99_ms);
    return isfinite(e) && fabs(e) <= goal;
}

static void md_ms(FILE *fp, double x)
{
    if (isfinite(x))
        fprintf(fp, "%.3f", x);
    else
        fputs("-", fp);
}

static void md_pct(FILE *fp, double e)
{
    if (isfinite(e))
        fprintf(fp, "%+.1f %%", 100 * e);
    else
        fputs("-", fp);
}

void fid_table_md(FILE *fp, const struct fid_row *rows, size_t n, double goal)
{
    fprintf(fp,
            "| case | strategy | tenants | load | work ms | requests | measured mean · p50 · "
            "p99 ms | predicted mean · p50 · p99 ms | mean error | p99 error | replay p99 ms "
            "| replay p99 error | p99 within %.0f %% |\n",
            100 * goal);
    fprintf(fp, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < n; i++) {
        const struct fid_row *r = &rows[i];
        const struct fid_pred *p = &r->poisson, *q = &r->replay;
        double o = r->s.overhead_ms;
        fprintf(fp, "| %s | %s | %d | %.2f | %.3f | %zu | ", r->s.case_name,
                r->strategy[0] ? r->strategy : "-", r->s.tenants, r->s.load, r->s.work_ms,
                r->s.measured.n);
        md_ms(fp, r->s.measured.mean_ms);
        fputs(" · ", fp);
        md_ms(fp, r->s.measured.p50_ms);
        fputs(" · ", fp);
        md_ms(fp, r->s.measured.p99_ms);
        fputs(" | ", fp);
        md_ms(fp, p->ok ? p->mean_ms + o : NAN);
        fputs(" · ", fp);
        md_ms(fp, p->ok ? p->p50_ms + o : NAN);
        fputs(" · ", fp);
        md_ms(fp, p->ok ? p->p99_ms + o : NAN);
        fputs(" | ", fp);
        md_pct(fp, fid_rel_error(r, p, p->mean_ms, r->s.measured.mean_ms));
        fputs(" | ", fp);
        md_pct(fp, fid_rel_error(r, p, p->p99_ms, r->s.measured.p99_ms));
        fputs(" | ", fp);
        md_ms(fp, q->ok ? q->p99_ms + o : NAN);
        fputs(" | ", fp);
        md_pct(fp, fid_rel_error(r, q, q->p99_ms, r->s.measured.p99_ms));
        fprintf(fp, " | %s |\n", !p->ok ? "no prediction" : fid_row_ok(r, goal) ? "yes" : "**no**");
    }
    fprintf(fp,
            "\nMeasured: submit-to-completion latency of the requests submitted after the "
            "warm-up, pooled over the tenants (kernels/fidelity). Predicted: `sharesim run` on "
            "the case's scenario (Poisson arrivals at the measured rate, the kernel's measured "
            "duration as deterministic work, the measured profile), plus the measured "
            "launch-and-notify overhead; replay: the same with each tenant's measured submit "
            "times as its arrivals. Error: (predicted − measured) / measured; the goal is a p99 "
            "within %.0f %%.\n",
            100 * goal);
    for (size_t i = 0; i < n; i++) {
        const struct fid_row *r = &rows[i];
        if (i > 0 && strcmp(rows[i - 1].s.case_name, r->s.case_name) == 0)
            continue;
        fprintf(fp, "\n- `%s`: %d %s tenants at %.6g req/s each, work %.4f ms, overhead %.4f ms",
                r->s.case_name, r->s.tenants,
                r->s.mode == FID_TIMESLICE ? "time-sliced" : "SM-partitioned", r->s.rate_per_s,
                r->s.work_ms, r->s.overhead_ms);
        if (r->s.mode == FID_PARTITION)
            fprintf(fp,
                    "; %d of %d SMs each (%s), the kernel alone on one partition %.4f ms "
                    "(proportional to SMs: %.4f ms)",
                    r->s.part_sms, r->s.total_sms, r->s.part_method, r->s.part_alone_ms,
                    r->s.work_ms * r->s.total_sms / r->s.part_sms);
        fprintf(fp, "; %s.\n", r->s.source[0] ? r->s.source : r->s.device);
    }
}

static void add_pred(cJSON *o, const char *prefix, const struct fid_row *r,
                     const struct fid_pred *p)
{
    char key[64];
    double ov = r->s.overhead_ms;
    const char *fig[] = {"mean", "p50", "p95", "p99"};
    double sim[] = {p->mean_ms, p->p50_ms, p->p95_ms, p->p99_ms};
    double meas[] = {r->s.measured.mean_ms, r->s.measured.p50_ms, r->s.measured.p95_ms,
                     r->s.measured.p99_ms};
    for (int k = 0; k < 4; k++) {
        snprintf(key, sizeof key, "%s_%s_ms", prefix, fig[k]);
        jv_out_add(o, key, p->ok ? sim[k] + ov : NAN);
    }
    for (int k = 0; k < 4; k++) {
        snprintf(key, sizeof key, "%s_%s_error", prefix, fig[k]);
        jv_out_add(o, key, fid_rel_error(r, p, sim[k], meas[k]));
    }
}

cJSON *fid_rows_json(const struct fid_row *rows, size_t n, double goal)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        const struct fid_row *r = &rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "case", r->s.case_name);
        cJSON_AddStringToObject(o, "mode", fid_mode_name(r->s.mode));
        cJSON_AddNumberToObject(o, "tenants", r->s.tenants);
        if (r->strategy[0])
            cJSON_AddStringToObject(o, "strategy", r->strategy);
        else
            cJSON_AddNullToObject(o, "strategy");
        jv_out_add(o, "load", r->s.load);
        jv_out_add(o, "rate_per_s", r->s.rate_per_s);
        jv_out_add(o, "work_ms", r->s.work_ms);
        jv_out_add(o, "overhead_ms", r->s.overhead_ms);
        if (r->s.mode == FID_PARTITION) {
            cJSON_AddNumberToObject(o, "partition_sms", r->s.part_sms);
            jv_out_add(o, "partition_alone_ms", r->s.part_alone_ms);
        } else {
            cJSON_AddNullToObject(o, "partition_sms");
            cJSON_AddNullToObject(o, "partition_alone_ms");
        }
        cJSON_AddNumberToObject(o, "measured_requests", (double)r->s.measured.n);
        jv_out_add(o, "measured_mean_ms", r->s.measured.mean_ms);
        jv_out_add(o, "measured_p50_ms", r->s.measured.p50_ms);
        jv_out_add(o, "measured_p95_ms", r->s.measured.p95_ms);
        jv_out_add(o, "measured_p99_ms", r->s.measured.p99_ms);
        add_pred(o, "predicted", r, &r->poisson);
        add_pred(o, "replay", r, &r->replay);
        if (r->poisson.ok)
            cJSON_AddBoolToObject(o, "p99_within_goal", fid_row_ok(r, goal));
        else
            cJSON_AddNullToObject(o, "p99_within_goal");
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}
