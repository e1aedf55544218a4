/*
 * sweep — see sweep.h. Invariants:
 *  - an axis value is a JSON scalar and its label is a pure function of it, so
 *    the grid (and every file derived from it) depends only on the arguments;
 *  - point files are only ever replaced atomically (ss_out_*), CSV first, JSON
 *    last, so a JSON that parses means both files are complete;
 *  - nothing here knows about processes: a point is a pure function of (base
 *    document, values, options), which is what lets cmd_sweep run points in any
 *    number of workers and get byte-identical files.
 */
#include "tools/sweep.h"
#include "core/rdoc.h"
#include "report/report.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Point files are small; anything bigger is not ours. */
#define SW_MAX_FILE (64u << 20)

void sw_grid_init(struct sw_grid *g)
{
    memset(g, 0, sizeof *g);
    g->n_points = 1;
}

static void axis_free(struct sw_axis *a)
{
    for (int i = 0; i < a->n_values; i++) {
        cJSON_Delete(a->values[i]);
        free(a->labels[i]);
    }
    free(a->values);
    free(a->labels);
    free(a->path);
    memset(a, 0, sizeof *a);
}

void sw_grid_free(struct sw_grid *g)
{
    for (int i = 0; i < g->n_axes; i++)
        axis_free(&g->axes[i]);
    sw_grid_init(g);
}

static char *number_label(double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.15g", x == 0 ? 0.0 : x);
    return ss_xstrdup(buf);
}

static void axis_push(struct sw_axis *a, cJSON *v, char *label)
{
    a->values = ss_xrealloc(a->values, (size_t)(a->n_values + 1) * sizeof *a->values);
    a->labels = ss_xrealloc(a->labels, (size_t)(a->n_values + 1) * sizeof *a->labels);
    a->values[a->n_values] = v;
    a->labels[a->n_values] = label;
    a->n_values++;
}

/* A whole string as a finite number (no trailing characters). */
static int full_number(const char *s, size_t len, double *out)
{
    char buf[128], *end;
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || end == buf || errno == ERANGE || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/*
 * start:stop:step. Returns 0 when elem is not of that form (it is then a scalar),
 * 1 when it was expanded into the axis, -1 on a range that cannot be walked.
 */
static int add_range(struct sw_axis *a, const char *elem, char *err, size_t errlen)
{
    const char *c1 = strchr(elem, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    double start, stop, step;
    if (!c2 || strchr(c2 + 1, ':') || !full_number(elem, (size_t)(c1 - elem), &start) ||
        !full_number(c1 + 1, (size_t)(c2 - c1 - 1), &stop) ||
        !full_number(c2 + 1, strlen(c2 + 1), &step))
        return 0;
    if (step == 0)
        return ss_errf(err, errlen, "--set %s: range \"%s\": step must not be 0", a->path, elem);
    double q = (stop - start) / step;
    /* The 1e-9 tolerance keeps an inclusive stop that floating point lands just short of
     * (0.3 / 0.1 = 2.9999999999999996). */
    if (q < -1e-9)
        return ss_errf(err, errlen, "--set %s: range \"%s\": the step goes away from stop", a->path,
                       elem);
    double n = floor(q + 1e-9) + 1;
    if (n > SW_MAX_VALUES)
        return ss_errf(err, errlen, "--set %s: range \"%s\" has %.0f values, more than %d", a->path,
                       elem, n, SW_MAX_VALUES);
    for (long i = 0; i < (long)n; i++) {
        /* start + i·step, never a running sum, then rounded to 15 significant digits so
         * the value written equals its label (0.1 + 2·0.1 → 0.3, not 0.30000000000000004). */
        char *label = number_label(start + (double)i * step);
        axis_push(a, cJSON_CreateNumber(strtod(label, NULL)), label);
    }
    return 1;
}

static int add_scalar(struct sw_axis *a, const char *elem, char *err, size_t errlen)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithOpts(elem, &end, 1);
    if (!v) {
        /* Not JSON: the text itself is the string (so slice_ms=5 and kind=mps both work). */
        axis_push(a, cJSON_CreateString(elem), ss_xstrdup(elem));
        return 0;
    }
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble)) {
            cJSON_Delete(v);
            return ss_errf(err, errlen, "--set %s: value \"%s\" is not a finite number", a->path,
                           elem);
        }
        axis_push(a, v, number_label(v->valuedouble));
    } else if (cJSON_IsBool(v)) {
        axis_push(a, v, ss_xstrdup(cJSON_IsTrue(v) ? "true" : "false"));
    } else if (cJSON_IsString(v)) {
        axis_push(a, v, ss_xstrdup(v->valuestring));
    } else {
        cJSON_Delete(v);
        return ss_errf(err, errlen,
                       "--set %s: value \"%s\" is not a scalar (expected a number, true/false "
                       "or a string)",
                       a->path, elem);
    }
    return 0;
}

static int check_path(const char *path, char *err, size_t errlen)
{
    if (!*path)
        return ss_errf(err, errlen, "--set: expected PATH=VALUES, the path is empty");
    if (path[0] == '.' || path[strlen(path) - 1] == '.' || strstr(path, ".."))
        return ss_errf(err, errlen, "--set %s: empty component in the dotted path", path);
    return 0;
}

static int parse_values(struct sw_axis *a, const char *values, char *err, size_t errlen)
{
    if (!*values)
        return ss_errf(err, errlen, "--set %s: no values after '='", a->path);
    char *copy = ss_xstrdup(values);
    int rc = 0;
    for (char *elem = copy, *next; elem && rc == 0; elem = next) {
        next = strchr(elem, ',');
        if (next)
            *next++ = '\0';
        if (!*elem) {
            rc = ss_errf(err, errlen, "--set %s: empty value in \"%s\"", a->path, values);
            break;
        }
        int r = add_range(a, elem, err, errlen);
        if (r < 0)
            rc = -1;
        else if (r == 0)
            rc = add_scalar(a, elem, err, errlen);
        if (rc == 0 && a->n_values > SW_MAX_VALUES)
            rc = ss_errf(err, errlen, "--set %s: more than %d values", a->path, SW_MAX_VALUES);
    }
    free(copy);
    return rc;
}

int sw_grid_add(struct sw_grid *g, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    if (!eq)
        return ss_errf(err, errlen, "--set \"%s\": expected PATH=v1,v2,… or PATH=start:stop:step",
                       arg);
    if (g->n_axes == SW_MAX_AXES)
        return ss_errf(err, errlen, "--set: at most %d parameters", SW_MAX_AXES);
    struct sw_axis a = {0};
    a.path = ss_xmalloc((size_t)(eq - arg) + 1);
    memcpy(a.path, arg, (size_t)(eq - arg));
    a.path[eq - arg] = '\0';
    int rc = check_path(a.path, err, errlen);
    for (int i = 0; rc == 0 && i < g->n_axes; i++)
        if (strcmp(g->axes[i].path, a.path) == 0)
            rc = ss_errf(err, errlen, "--set %s: path given twice", a.path);
    if (rc == 0)
        rc = parse_values(&a, eq + 1, err, errlen);
    if (rc == 0 && (double)g->n_points * a.n_values > SW_MAX_POINTS)
        rc = ss_errf(err, errlen, "--set %s: the grid would have %.0f points, more than %d", a.path,
                     (double)g->n_points * a.n_values, SW_MAX_POINTS);
    if (rc) {
        axis_free(&a);
        return -1;
    }
    g->n_points *= a.n_values;
    g->axes[g->n_axes++] = a;
    return 0;
}

void sw_point_coords(const struct sw_grid *g, long idx, int *coords)
{
    SS_ASSERT(idx >= 0 && idx < g->n_points);
    for (int a = g->n_axes - 1; a >= 0; a--) {
        coords[a] = (int)(idx % g->axes[a].n_values);
        idx /= g->axes[a].n_values;
    }
}

int sw_id_width(const struct sw_grid *g)
{
    int w = 1;
    for (long n = g->n_points - 1; n >= 10; n /= 10)
        w++;
    return w < 4 ? 4 : w;
}

void sw_point_id(const struct sw_grid *g, long idx, char *buf, size_t n)
{
    int len = snprintf(buf, n, "p%0*ld", sw_id_width(g), idx);
    SS_ASSERT(len > 0 && (size_t)len < n);
}

static const char *type_name(const cJSON *x)
{
    if (cJSON_IsNumber(x))
        return "a number";
    if (cJSON_IsString(x))
        return "a string";
    if (cJSON_IsBool(x))
        return "a boolean";
    return "null";
}

/* The element `comp` of an array, or NULL with a message. */
static cJSON *array_elem(cJSON *arr, const char *path, const char *prefix, const char *comp,
                         char *err, size_t errlen)
{
    char *end;
    long i = strtol(comp, &end, 10);
    int n = cJSON_GetArraySize(arr);
    if (*end || end == comp || comp[0] == '-' || comp[0] == '+') {
        ss_errf(err, errlen, "--set %s: %s is an array, expected an index, got \"%s\"", path,
                prefix, comp);
        return NULL;
    }
    if (i >= n) {
        ss_errf(err, errlen, "--set %s: index %ld out of range (%s has %d element%s)", path, i,
                prefix, n, n == 1 ? "" : "s");
        return NULL;
    }
    return cJSON_GetArrayItem(arr, (int)i);
}

int sw_set_path(cJSON *root, const char *path, const cJSON *value, char *err, size_t errlen)
{
    if (check_path(path, err, errlen))
        return -1;
    size_t len = strlen(path);
    char *copy = ss_xstrdup(path), *prefix = ss_xcalloc(len + 16, 1);
    strcpy(prefix, "the scenario");
    cJSON *cur = root;
    int rc = 0;
    for (char *comp = copy, *next; comp; comp = next) {
        next = strchr(comp, '.');
        if (next)
            *next++ = '\0';
        if (cJSON_IsArray(cur)) {
            cJSON *e = array_elem(cur, path, prefix, comp, err, errlen);
            if (!e) {
                rc = -1;
                break;
            }
            if (!next)
                cJSON_ReplaceItemInArray(cur, (int)strtol(comp, NULL, 10),
                                         cJSON_Duplicate(value, 1));
            cur = e;
        } else if (cJSON_IsObject(cur)) {
            cJSON *e = cJSON_GetObjectItemCaseSensitive(cur, comp);
            if (!next) {
                /* A new key is allowed: the loader decides whether it is a known one. */
                if (e)
                    cJSON_ReplaceItemInObjectCaseSensitive(cur, comp, cJSON_Duplicate(value, 1));
                else
                    cJSON_AddItemToObject(cur, comp, cJSON_Duplicate(value, 1));
            } else if (!e) {
                rc = ss_errf(err, errlen, "--set %s: %s has no key \"%s\"", path, prefix, comp);
                break;
            }
            cur = e;
        } else {
            rc = ss_errf(err, errlen, "--set %s: %s is %s, not an object or array", path, prefix,
                         type_name(cur));
            break;
        }
        /* prefix = the path up to and including comp, for the next message */
        size_t used = (size_t)(comp - copy) + strlen(comp);
        memcpy(prefix, path, used);
        prefix[used] = '\0';
    }
    free(copy);
    free(prefix);
    return rc;
}

cJSON *sw_point_doc(const struct sw_grid *g, const cJSON *base, long idx, char *err, size_t errlen)
{
    int coords[SW_MAX_AXES];
    sw_point_coords(g, idx, coords);
    cJSON *doc = cJSON_Duplicate(base, 1);
    for (int a = 0; a < g->n_axes; a++)
        if (sw_set_path(doc, g->axes[a].path, g->axes[a].values[coords[a]], err, errlen)) {
            cJSON_Delete(doc);
            return NULL;
        }
    return doc;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

/* "path=label, path=label" of a point, for messages. */
static void point_desc(const struct sw_grid *g, long idx, char *buf, size_t n)
{
    int coords[SW_MAX_AXES];
    size_t used = 0;
    sw_point_coords(g, idx, coords);
    buf[0] = '\0';
    for (int a = 0; a < g->n_axes && used < n; a++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s=%s", a ? ", " : "", g->axes[a].path,
                                 g->axes[a].labels[coords[a]]);
}

int sw_point_load(const struct sw_grid *g, const cJSON *base, const char *scenario_path,
                  const struct sw_opts *o, long idx, struct scenario *sc, uint64_t *hash, char *err,
                  size_t errlen)
{
    char id[32], desc[512], msg[SS_ERRLEN];
    sw_point_id(g, idx, id, sizeof id);
    point_desc(g, idx, desc, sizeof desc);
    memset(sc, 0, sizeof *sc);
    cJSON *doc = sw_point_doc(g, base, idx, msg, sizeof msg);
    if (!doc)
        return ss_errf(err, errlen, "point %s (%s): %s", id, desc, msg);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    int rc = scn_load_text(scenario_path, text, strlen(text), sc, msg, sizeof msg);
    if (rc) {
        scn_free(sc);
        ss_errf(err, errlen, "point %s (%s): %s", id, desc, msg);
    } else {
        char opts[128];
        snprintf(opts, sizeof opts, "\nreplications=%d seed=%ld slowdown=%d", o->replications,
                 o->seed, o->slowdown);
        *hash = fnv1a(fnv1a(14695981039346656037ULL, text), opts);
    }
    free(text);
    return rc;
}

cJSON *sw_point_params(const struct sw_grid *g, long idx)
{
    int coords[SW_MAX_AXES];
    sw_point_coords(g, idx, coords);
    cJSON *p = cJSON_CreateObject();
    for (int a = 0; a < g->n_axes; a++)
        cJSON_AddItemToObject(p, g->axes[a].path, cJSON_Duplicate(g->axes[a].values[coords[a]], 1));
    return p;
}

void sw_point_file(const struct sw_grid *g, const char *dir, long idx, const char *ext, char *buf,
                   size_t n)
{
    char id[32];
    sw_point_id(g, idx, id, sizeof id);
    snprintf(buf, n, "%s/points/%s.%s", dir, id, ext);
}

static void hash_hex(uint64_t h, char *buf, size_t n)
{
    snprintf(buf, n, "%016" PRIx64, h);
}

/* What a CSV text holds: its data rows (non-empty lines after the header) and its hash. */
static struct sw_csv_sum csv_sum(const char *text, size_t len)
{
    struct sw_csv_sum s = {14695981039346656037ULL, 0};
    int line = 0, empty = 1;
    for (size_t i = 0; i < len; i++) {
        s.hash = (s.hash ^ (unsigned char)text[i]) * 1099511628211ULL;
        if (text[i] == '\n') {
            s.rows += line > 0 && !empty;
            line++;
            empty = 1;
        } else {
            empty = 0;
        }
    }
    s.rows += line > 0 && !empty; /* a last line without its newline */
    return s;
}

/* The CSV sum a point's JSON records, or -1 if it records none. */
static int recorded_sum(const cJSON *sweep, struct sw_csv_sum *out)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(sweep, "csv_hash");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(sweep, "csv_rows");
    char *end;
    if (!cJSON_IsString(h) || !cJSON_IsNumber(n) || !(n->valuedouble >= 0) ||
        n->valuedouble > 1e9 || n->valuedouble != floor(n->valuedouble))
        return -1;
    errno = 0;
    out->hash = strtoull(h->valuestring, &end, 16);
    out->rows = (long)n->valuedouble;
    return *end || errno || end == h->valuestring ? -1 : 0;
}

/* FNV-1a 64 of the figures a point carries: its JSON without the "sweep" object, printed
 * unformatted (cJSON prints a parsed document back to the same text, numbers included, so the
 * hash does not depend on the file's whitespace), then its CSV's bytes. */
uint64_t sw_payload_hash(const cJSON *doc, const char *csv, size_t csv_len)
{
    cJSON *figs = cJSON_Duplicate(doc, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(figs, "sweep");
    char *text = cJSON_PrintUnformatted(figs);
    cJSON_Delete(figs);
    uint64_t h = 14695981039346656037ULL;
    for (const char *p = text ? text : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    h = (h ^ 0xffu) * 1099511628211ULL; /* a separator no JSON text holds */
    for (size_t k = 0; k < csv_len; k++)
        h = (h ^ (unsigned char)csv[k]) * 1099511628211ULL;
    free(text);
    return h;
}

/* Every number in the document is finite (cJSON reads 1e999 as infinity). */
static int all_finite(const cJSON *j, char *why, size_t n)
{
    if (cJSON_IsNumber(j) && !isfinite(j->valuedouble))
        return ss_errf(why, n, "a number that is not finite at \"%s\"",
                       j->string ? j->string : "(array item)");
    for (const cJSON *c = j->child; c; c = c->next)
        if (all_finite(c, why, n))
            return -1;
    return 0;
}

/* The request counts of one tenant conserve: none negative, none missing, arrived =
 * completed + rejected + failed + in flight (exactly for one replication, whose counts are
 * integers; to the 6 significant digits means are printed with over several). */
static int counts_conserve(const double *v, int exact, const char *where, char *why, size_t n)
{
    static const char *const names[5] = {"arrived", "completed", "rejected", "failed", "in_flight"};
    double sum = 0, mag = 0;
    for (int k = 0; k < 5; k++) {
        if (!(v[k] >= 0) || (exact && v[k] != floor(v[k])))
            return ss_errf(why, n, "%s: \"%s\" is %g: expected a count >= 0%s", where, names[k],
                           v[k], exact ? " (an integer, one replication)" : "");
        if (k > 0)
            sum += v[k];
        mag += v[k];
    }
    double tol = exact ? 0 : 1e-5 * (mag > 1 ? mag : 1);
    if (fabs(v[0] - sum) > tol)
        return ss_errf(why, n,
                       "%s: arrived %g != completed %g + rejected %g + failed %g + in flight %g",
                       where, v[0], v[1], v[2], v[3], v[4]);
    return 0;
}

/* The JSON's tenants conserve their requests (their counts read by the metric table). */
static int json_conserves(const cJSON *doc, char *why, size_t n)
{
    struct rd_head h;
    rd_head_of(doc, &h);
    if (isnan(h.replications) || !cJSON_IsArray(rd_strategies(doc)))
        return ss_errf(why, n, "no \"replications\" or \"strategies\": not a run's result");
    int exact = h.replications == 1;
    static const int counts[5] = {TM_ARRIVED, TM_COMPLETED, TM_REJECTED, TM_FAILED, TM_IN_FLIGHT};
    int si = 0;
    const cJSON *st, *t;
    RD_EACH_STRATEGY(st, doc)
    {
        if (!cJSON_IsArray(rd_tenants(st)))
            return ss_errf(why, n, "strategies[%d]: no \"tenants\" array", si);
        int ti = 0;
        RD_EACH_TENANT(t, st)
        {
            double v[5];
            char where[64];
            snprintf(where, sizeof where, "strategies[%d].tenants[%d]", si, ti++);
            for (int k = 0; k < 5; k++)
                v[k] = rd_fig(t, MT_TENANT, counts[k]);
            if (counts_conserve(v, exact, where, why, n))
                return -1;
        }
        si++;
    }
    return 0;
}

/* Splits one CSV line (RFC 4180 quoting, as sw_csv_field writes) into at most cap fields,
 * unquoted in place; the number of fields. */
static int csv_split(char *line, char **f, int cap)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *out = p, *start = p;
        if (*p == '"') {
            for (p++;; p++) {
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p++;
                } else if (*p == '"' || !*p) {
                    p += *p == '"';
                    break;
                } else {
                    *out++ = *p;
                }
            }
            while (*p && *p != ',')
                p++;
        } else {
            while (*p && *p != ',')
                out = ++p;
        }
        int more = *p == ',';
        *out = '\0';
        if (n < cap)
            f[n++] = start;
        if (!more)
            return n;
        p++;
    }
}

/* The CSV's rows conserve their requests and hold no "nan" or "inf" (a figure that does not
 * apply is an empty field). */
static int csv_conserves(const char *text, size_t len, int exact, char *why, size_t n)
{
    enum { MAXF = 256 };
    static const char *const keys[5] = {"arrived", "completed", "rejected", "failed", "in_flight"};
    char *copy = ss_xmalloc(len + 1), *f[MAXF];
    memcpy(copy, text, len);
    copy[len] = '\0';
    int col[5] = {-1, -1, -1, -1, -1}, rc = 0;
    long line = 0;
    char *save = NULL;
    for (char *l = strtok_r(copy, "\n", &save); l && rc == 0; l = strtok_r(NULL, "\n", &save)) {
        line++;
        int nf = csv_split(l, f, MAXF);
        if (line == 1) {
            for (int i = 0; i < nf; i++)
                for (int k = 0; k < 5; k++)
                    if (strcmp(f[i], keys[k]) == 0)
                        col[k] = i;
            for (int k = 0; k < 5 && rc == 0; k++)
                if (col[k] < 0)
                    rc = ss_errf(why, n, "CSV line 1: no column \"%s\"", keys[k]);
            continue;
        }
        double v[5];
        for (int i = 0; i < nf && rc == 0; i++) {
            char *end;
            double x = strtod(f[i], &end);
            if (end != f[i] && !isfinite(x))
                rc = ss_errf(why, n, "CSV line %ld, column %d: \"%s\" is not finite", line, i + 1,
                             f[i]);
        }
        for (int k = 0; k < 5 && rc == 0; k++) {
            char *end;
            v[k] = col[k] < nf ? strtod(f[col[k]], &end) : NAN;
            if (col[k] >= nf || end == f[col[k]] || *end)
                v[k] = NAN;
        }
        if (rc == 0) {
            char where[48];
            snprintf(where, sizeof where, "CSV line %ld", line);
            rc = counts_conserve(v, exact, where, why, n);
        }
    }
    free(copy);
    return rc;
}

enum sw_state sw_point_verify(const struct sw_grid *g, long idx, uint64_t hash, const char *json,
                              const char *csv, size_t csv_len, struct sw_csv_sum *sum, char *why,
                              size_t n)
{
    char want[32], id[32];
    cJSON *doc = cJSON_Parse(json);
    if (!doc) {
        ss_errf(why, n, "its JSON does not parse (cut short, or not a point file)");
        return SW_DAMAGED;
    }
    enum sw_state st = SW_DAMAGED;
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(doc, "sweep");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(sw, "config_hash");
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(sw, "format");
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(sw, "payload_hash");
    const cJSON *ix = cJSON_GetObjectItemCaseSensitive(sw, "index");
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(sw, "id");
    struct sw_csv_sum rec, got = csv_sum(csv, csv_len);
    hash_hex(hash, want, sizeof want);
    sw_point_id(g, idx, id, sizeof id);
    if (!cJSON_IsString(h) || strcmp(h->valuestring, want) != 0) {
        ss_errf(why, n,
                "written by a different sweep (other scenario, values, seed or "
                "replications)");
        st = SW_STALE;
    } else if (!cJSON_IsNumber(fmt) || fmt->valuedouble != SW_POINT_FORMAT) {
        char f[32] = "1";
        if (cJSON_IsNumber(fmt))
            snprintf(f, sizeof f, "%g", fmt->valuedouble);
        ss_errf(why, n,
                "written in point format %s (an older sharesim, whose figures carry no hash), "
                "this sharesim reads format %d: rerun that point",
                f, SW_POINT_FORMAT);
    } else if (!cJSON_IsNumber(ix) || ix->valuedouble != (double)idx || !cJSON_IsString(pid) ||
               strcmp(pid->valuestring, id) != 0) {
        ss_errf(why, n, "it is not point %s (its \"sweep\" object names another)", id);
    } else if (recorded_sum(sw, &rec) != 0) {
        ss_errf(why, n, "its JSON records no CSV rows and hash");
    } else if (got.hash != rec.hash || got.rows != rec.rows) {
        ss_errf(why, n,
                "its CSV has %ld rows of hash %016" PRIx64 ", its JSON records %ld of "
                "%016" PRIx64 " (cut short, edited or replaced)",
                got.rows, got.hash, rec.rows, rec.hash);
    } else {
        char hex[32];
        hash_hex(sw_payload_hash(doc, csv, csv_len), hex, sizeof hex);
        if (!cJSON_IsString(ph) || strcmp(ph->valuestring, hex) != 0)
            ss_errf(why, n,
                    "its figures (JSON and CSV) hash to %s, its \"payload_hash\" says %s: edited "
                    "after it was written",
                    hex, cJSON_IsString(ph) ? ph->valuestring : "nothing");
        else if (all_finite(doc, why, n) == 0 && json_conserves(doc, why, n) == 0 &&
                 csv_conserves(csv, csv_len,
                               cJSON_GetObjectItemCaseSensitive(doc, "replications")->valuedouble ==
                                   1,
                               why, n) == 0) {
            if (sum)
                *sum = rec;
            st = SW_DONE;
        }
    }
    cJSON_Delete(doc);
    return st;
}

enum sw_state sw_point_check(const struct sw_grid *g, const char *dir, long idx, uint64_t hash,
                             struct sw_csv_sum *csv, char *why, size_t n)
{
    char path[4096];
    char *json, *text;
    size_t len;
    if (why && n)
        why[0] = '\0';
    sw_point_file(g, dir, idx, "json", path, sizeof path);
    if (ss_read_file_own(path, SW_MAX_FILE, &json, NULL, NULL, 0))
        return SW_TODO;
    sw_point_file(g, dir, idx, "csv", path, sizeof path);
    if (ss_read_file_own(path, SW_MAX_FILE, &text, &len, NULL, 0)) {
        cJSON *doc = cJSON_Parse(json);
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(doc, "sweep"), "config_hash");
        char want[32];
        hash_hex(hash, want, sizeof want);
        int stale = doc && !(cJSON_IsString(h) && strcmp(h->valuestring, want) == 0);
        cJSON_Delete(doc);
        free(json);
        ss_errf(why, n,
                stale ? "written by a different sweep (other scenario, values, seed or "
                        "replications)"
                      : "its CSV is missing or unreadable");
        return stale ? SW_STALE : SW_DAMAGED;
    }
    char dummy[8];
    enum sw_state st = sw_point_verify(g, idx, hash, json, text, len, csv, why ? why : dummy,
                                       why ? n : sizeof dummy);
    free(json);
    free(text);
    return st;
}

enum sw_state sw_point_state(const struct sw_grid *g, const char *dir, long idx, uint64_t hash,
                             struct sw_csv_sum *csv)
{
    return sw_point_check(g, dir, idx, hash, csv, NULL, 0);
}

/* A file's whole text, written atomically. */
static int write_text(const char *path, const char *text, char *err, size_t errlen)
{
    struct ss_out o;
    if (ss_out_open(&o, path, err, errlen))
        return -1;
    fputs(text, o.fp);
    return ss_out_commit(&o, err, errlen);
}

int sw_point_texts(const struct sw_grid *g, long idx, const struct scenario *sc,
                   const struct sw_opts *o, uint64_t hash, char **csv, char **json, char *err,
                   size_t errlen)
{
    struct run_opts ro = {o->replications, o->seed, o->slowdown, 0};
    struct run_result r;
    char id[32], hex[32];
    size_t n;
    if (run_scenario(sc, &ro, &r, err, errlen))
        return -1;
    /* The CSV through rep_csv's FILE *, into memory: the same bytes as `sharesim run --csv`. */
    FILE *fp = open_memstream(csv, &n);
    if (!fp) {
        run_result_free(&r);
        return ss_errf(err, errlen, "point %ld: cannot format its CSV in memory", idx);
    }
    rep_csv(fp, sc, &r);
    if (fclose(fp) != 0) {
        free(*csv);
        run_result_free(&r);
        return ss_errf(err, errlen, "point %ld: cannot format its CSV in memory", idx);
    }
    cJSON *doc = rep_json(sc, &r);
    /* The figures' hash before the "sweep" object that carries it exists. */
    uint64_t payload = sw_payload_hash(doc, *csv, n);
    cJSON *sw = cJSON_AddObjectToObject(doc, "sweep");
    cJSON_AddNumberToObject(sw, "format", SW_POINT_FORMAT);
    sw_point_id(g, idx, id, sizeof id);
    hash_hex(hash, hex, sizeof hex);
    cJSON_AddStringToObject(sw, "id", id);
    cJSON_AddNumberToObject(sw, "index", (double)idx);
    cJSON_AddItemToObject(sw, "params", sw_point_params(g, idx));
    cJSON_AddStringToObject(sw, "config_hash", hex);
    /* What the CSV holds, so that a later run trusts the CSV only if it still holds it. */
    struct sw_csv_sum sum = csv_sum(*csv, n);
    hash_hex(sum.hash, hex, sizeof hex);
    cJSON_AddNumberToObject(sw, "csv_rows", (double)sum.rows);
    cJSON_AddStringToObject(sw, "csv_hash", hex);
    hash_hex(payload, hex, sizeof hex);
    cJSON_AddStringToObject(sw, "payload_hash", hex);
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    run_result_free(&r);
    n = strlen(text);
    *json = ss_xmalloc(n + 2);
    memcpy(*json, text, n);
    (*json)[n] = '\n';
    (*json)[n + 1] = '\0';
    free(text);
    return 0;
}

int sw_point_write(const struct sw_grid *g, const char *dir, long idx, const char *csv,
                   const char *json, struct sw_csv_sum *sum, char *err, size_t errlen)
{
    char path[4096];
    if (sum)
        *sum = csv_sum(csv, strlen(csv));
    sw_point_file(g, dir, idx, "csv", path, sizeof path);
    if (write_text(path, csv, err, errlen))
        return -1;
    sw_point_file(g, dir, idx, "json", path, sizeof path);
    return write_text(path, json, err, errlen);
}

int sw_point_copy(const struct sw_grid *g, const char *from, const char *to, long idx,
                  uint64_t hash, struct sw_csv_sum *sum, char *err, size_t errlen)
{
    char path[4096], why[SS_ERRLEN], *csv = NULL, *json = NULL;
    size_t len = 0;
    sw_point_file(g, from, idx, "csv", path, sizeof path);
    int rc = ss_read_file(path, SW_MAX_FILE, &csv, &len, err, errlen);
    if (rc == 0) {
        sw_point_file(g, from, idx, "json", path, sizeof path);
        rc = ss_read_file(path, SW_MAX_FILE, &json, NULL, err, errlen);
    }
    /* The bytes copied are the bytes checked: the files may have changed since the shard's
     * points were classified. */
    if (rc == 0 && sw_point_verify(g, idx, hash, json, csv, len, NULL, why, sizeof why) != SW_DONE)
        rc = ss_errf(err, errlen, "%s: %s", path, why);
    if (rc == 0)
        rc = sw_point_write(g, to, idx, csv, json, sum, err, errlen);
    free(csv);
    free(json);
    return rc;
}

int sw_point_run(const struct sw_grid *g, const char *dir, long idx, const struct scenario *sc,
                 const struct sw_opts *o, uint64_t hash, struct sw_csv_sum *sum, char *err,
                 size_t errlen)
{
    char *csv, *json;
    if (sw_point_texts(g, idx, sc, o, hash, &csv, &json, err, errlen))
        return -1;
    int rc = sw_point_write(g, dir, idx, csv, json, sum, err, errlen);
    free(csv);
    free(json);
    return rc;
}

int sw_lock_dir(const char *dir, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/.sweep.lock", dir);
    /* Never removed: unlinking a lock file another process has open lets a third one lock a
     * new file while the second holds the old. Left open until the process ends (its lock
     * with it; fcntl locks are not inherited, so a worker holds none). */
    int fd = open(path, O_RDWR | O_CREAT, 0666);
    if (fd < 0)
        return ss_errf(err, errlen, "%s: cannot create the lock: %s", path, strerror(errno));
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &fl) == 0)
        return 0;
    int e = errno;
    struct flock q = fl;
    long pid = fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK ? (long)q.l_pid : -1;
    close(fd);
    if (e != EACCES && e != EAGAIN)
        return ss_errf(err, errlen, "%s: cannot lock: %s", path, strerror(e));
    char who[64] = "another sweep";
    if (pid > 0)
        snprintf(who, sizeof who, "another sweep (pid %ld)", pid);
    return ss_errf(err, errlen,
                   "%s: %s is writing into this directory: wait for it to end, or use another "
                   "--out",
                   dir, who);
}

int sw_make_dirs(const char *dir, char *err, size_t errlen)
{
    if (ss_mkdirs(dir, err, errlen))
        return -1;
    char *p = ss_xmalloc(strlen(dir) + 16);
    sprintf(p, "%s/points", dir);
    int rc = ss_mkdirs(p, err, errlen);
    free(p);
    return rc;
}

void sw_csv_field(FILE *fp, const char *s)
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

/* "id,label,label" of a point (no newline). */
static void point_prefix(FILE *fp, const struct sw_grid *g, long idx)
{
    int coords[SW_MAX_AXES];
    char id[32];
    sw_point_coords(g, idx, coords);
    sw_point_id(g, idx, id, sizeof id);
    fputs(id, fp);
    for (int a = 0; a < g->n_axes; a++) {
        fputc(',', fp);
        sw_csv_field(fp, g->axes[a].labels[coords[a]]);
    }
}

static void header_prefix(FILE *fp, const struct sw_grid *g)
{
    fputs("point", fp);
    for (int a = 0; a < g->n_axes; a++) {
        fputc(',', fp);
        sw_csv_field(fp, g->axes[a].path);
    }
}

int sw_write_index(const struct sw_grid *g, const char *dir, char *err, size_t errlen)
{
    struct ss_out o;
    char path[4096];
    snprintf(path, sizeof path, "%s/points/index.csv", dir);
    if (ss_out_open(&o, path, err, errlen))
        return -1;
    header_prefix(o.fp, g);
    fputc('\n', o.fp);
    for (long i = 0; i < g->n_points; i++) {
        point_prefix(o.fp, g, i);
        fputc('\n', o.fp);
    }
    return ss_out_commit(&o, err, errlen);
}

/* Appends the data rows of one point's CSV; the header must equal *header (set by the first),
 * and the file be what want says (NULL: not checked). */
static int append_point_rows(FILE *fp, const struct sw_grid *g, const char *dir, long idx,
                             const struct sw_csv_sum *want, char **header, long *rows, char *err,
                             size_t errlen)
{
    char path[4096], *text;
    size_t len;
    sw_point_file(g, dir, idx, "csv", path, sizeof path);
    if (ss_read_file_own(path, SW_MAX_FILE, &text, &len, err, errlen))
        return -1;
    struct sw_csv_sum got = csv_sum(text, len);
    if (want && (got.hash != want->hash || got.rows != want->rows)) {
        free(text);
        return ss_errf(err, errlen,
                       "%s: changed while the sweep ran (%ld data rows, %ld when written): rerun "
                       "the sweep to recompute it",
                       path, got.rows, want->rows);
    }
    char *line = text, *nl = strchr(text, '\n');
    if (!nl) {
        free(text);
        return ss_errf(err, errlen, "%s: expected a header line", path);
    }
    *nl = '\0';
    if (!*header) {
        *header = ss_xstrdup(line);
        header_prefix(fp, g);
        fprintf(fp, ",%s\n", line);
    } else if (strcmp(*header, line) != 0) {
        free(text);
        return ss_errf(err, errlen, "%s: columns differ from the first point's", path);
    }
    for (char *p = nl + 1; *p;) {
        char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len) {
            point_prefix(fp, g, idx);
            fputc(',', fp);
            fwrite(p, 1, len, fp);
            fputc('\n', fp);
            (*rows)++;
        }
        p += len + (end ? 1 : 0);
    }
    free(text);
    return 0;
}

int sw_write_csv(const struct sw_grid *g, const char *dir, const struct sw_csv_sum *csv, long *rows,
                 char *err, size_t errlen)
{
    struct ss_out o;
    char path[4096], *header = NULL;
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    *rows = 0;
    if (ss_out_open(&o, path, err, errlen))
        return -1;
    for (long i = 0; i < g->n_points; i++)
        if (append_point_rows(o.fp, g, dir, i, csv ? &csv[i] : NULL, &header, rows, err, errlen)) {
            free(header);
            ss_out_abort(&o);
            return -1;
        }
    free(header);
    return ss_out_commit(&o, err, errlen);
}
