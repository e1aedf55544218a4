/*
 * scenario — JSON → validated struct scenario (SCENARIO.md is the contract).
 * Every accessor goes through jsonv, so every error names the file, the JSON
 * path and what was expected; unknown keys are errors.
 */
#include "scenario.h"
#include "jsonv.h"
#include "policy.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SCN_MAX_FILE (16u << 20)
#define SCN_MAX_TENANTS 4096
#define SCN_MAX_STRATEGIES 256

const char *scn_class_name(enum work_class c)
{
    static const char *names[] = {"compute", "memory", "mixed"};
    return names[c];
}

int scn_tenant_index(const struct scenario *sc, const char *name)
{
    for (int i = 0; i < sc->n_tenants; i++)
        if (strcmp(sc->tenants[i].name, name) == 0)
            return i;
    return -1;
}

static int copy_name(const struct jv *j, const char *path, const char *s, char *dst)
{
    if (!s[0])
        return jv_fail(j, path, "expected a non-empty name");
    if (strlen(s) >= SCN_NAME_MAX)
        return jv_fail(j, path, "name longer than %d characters", SCN_NAME_MAX - 1);
    for (const char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == ',' || *c == '"')
            return jv_fail(j, path, "name \"%s\" contains a control character, comma or quote", s);
    strcpy(dst, s);
    return 0;
}

/* ---- arrival ------------------------------------------------------------- */

static int parse_mmpp(const struct jv *j, const cJSON *obj, const char *path, struct arrival_cfg *a)
{
    char p[512], q[512];
    const cJSON *states = cJSON_GetObjectItemCaseSensitive(obj, "states");
    jv_path_key(p, sizeof p, path, "states");
    if (!cJSON_IsArray(states) || cJSON_GetArraySize(states) < 1 ||
        cJSON_GetArraySize(states) > SCN_MAX_MMPP)
        return jv_fail(j, p, "expected an array of 1 to %d states {rate_per_s, mean_dwell_s}",
                       SCN_MAX_MMPP);
    static const char *const keys[] = {"rate_per_s", "mean_dwell_s", NULL};
    int n = 0;
    double total = 0;
    const cJSON *st;
    cJSON_ArrayForEach(st, states)
    {
        jv_path_idx(q, sizeof q, p, n);
        if (jv_object(j, st, q, keys) ||
            jv_num(j, st, q, "rate_per_s", 1, 0, 1e9, &a->state_rate_per_s[n]) ||
            jv_num_gt(j, st, q, "mean_dwell_s", 1, 0, 1e9, &a->state_dwell_s[n]))
            return -1;
        total += a->state_rate_per_s[n];
        n++;
    }
    if (!(total > 0))
        return jv_fail(j, p, "every state has rate 0: expected at least one positive rate");
    a->n_states = n;
    return 0;
}

static int parse_arrival(const struct jv *j, const cJSON *obj, const char *path,
                         struct arrival_cfg *a)
{
    static const char *const procs[] = {"poisson", "deterministic", "gamma",     "mmpp",
                                        "diurnal", "trace",         "saturated", NULL};
    int k;
    if (!cJSON_IsObject(obj))
        return jv_fail(j, path, "expected an object {\"process\": …}");
    if (jv_enum(j, obj, path, "process", 1, procs, &k))
        return -1;
    a->kind = (enum arr_kind)k;
    switch (a->kind) {
    case ARR_POISSON:
    case ARR_DETERMINISTIC: {
        static const char *const keys[] = {"process", "rate_per_s", NULL};
        return jv_object(j, obj, path, keys) ||
               jv_num_gt(j, obj, path, "rate_per_s", 1, 0, 1e9, &a->rate_per_s);
    }
    case ARR_GAMMA: {
        static const char *const keys[] = {"process", "rate_per_s", "cv", NULL};
        return jv_object(j, obj, path, keys) ||
               jv_num_gt(j, obj, path, "rate_per_s", 1, 0, 1e9, &a->rate_per_s) ||
               jv_num(j, obj, path, "cv", 1, 0.01, 100, &a->cv);
    }
    case ARR_MMPP: {
        static const char *const keys[] = {"process", "states", NULL};
        return jv_object(j, obj, path, keys) || parse_mmpp(j, obj, path, a);
    }
    case ARR_DIURNAL: {
        static const char *const keys[] = {"process",  "rate_per_s", "amplitude",
                                           "period_s", "phase",      NULL};
        a->period_s = 86400;
        a->phase = 0;
        return jv_object(j, obj, path, keys) ||
               jv_num_gt(j, obj, path, "rate_per_s", 1, 0, 1e9, &a->rate_per_s) ||
               jv_num(j, obj, path, "amplitude", 1, 0, 1, &a->amplitude) ||
               jv_num_gt(j, obj, path, "period_s", 0, 0, 1e9, &a->period_s) < 0 ||
               jv_num(j, obj, path, "phase", 0, 0, 1, &a->phase) < 0;
    }
    case ARR_SATURATED: {
        static const char *const keys[] = {"process", NULL};
        return jv_object(j, obj, path, keys);
    }
    case ARR_TRACE:
        break;
    }
    char p[512];
    return jv_fail(j, jv_path_key(p, sizeof p, path, "process"),
                   "\"trace\" arrivals need the trace readers (not in this build)");
}

/* ---- work ---------------------------------------------------------------- */

static int parse_work(const struct jv *j, const cJSON *obj, const char *path, struct work_cfg *w)
{
    static const char *const dists[] = {"exponential", "deterministic", "lognormal",
                                        "tokens",      "trace",         NULL};
    int k;
    double ms;
    if (!cJSON_IsObject(obj))
        return jv_fail(j, path, "expected an object {\"dist\": …}");
    if (jv_enum(j, obj, path, "dist", 1, dists, &k))
        return -1;
    w->kind = (enum work_kind)k;
    switch (w->kind) {
    case WORK_EXPONENTIAL: {
        static const char *const keys[] = {"dist", "mean_ms", NULL};
        if (jv_object(j, obj, path, keys) || jv_num_gt(j, obj, path, "mean_ms", 1, 0, 1e9, &ms))
            return -1;
        w->mean_s = ms * 1e-3;
        return 0;
    }
    case WORK_DETERMINISTIC: {
        static const char *const keys[] = {"dist", "ms", NULL};
        if (jv_object(j, obj, path, keys) || jv_num_gt(j, obj, path, "ms", 1, 0, 1e9, &ms))
            return -1;
        w->mean_s = ms * 1e-3;
        return 0;
    }
    case WORK_LOGNORMAL: {
        static const char *const keys[] = {"dist", "mean_ms", "cv", NULL};
        if (jv_object(j, obj, path, keys) || jv_num_gt(j, obj, path, "mean_ms", 1, 0, 1e9, &ms) ||
            jv_num_gt(j, obj, path, "cv", 1, 0, 100, &w->cv))
            return -1;
        w->mean_s = ms * 1e-3;
        return 0;
    }
    case WORK_TOKENS:
    case WORK_TRACE:
        break;
    }
    char p[512];
    return jv_fail(j, jv_path_key(p, sizeof p, path, "dist"),
                   "\"%s\" work needs trace arrivals (not in this build)", dists[k]);
}

/* ---- tenant -------------------------------------------------------------- */

static int parse_tenant(const struct jv *j, const cJSON *obj, const char *path,
                        struct tenant_cfg *t)
{
    static const char *const keys[] = {
        "name",          "arrival",          "work",        "class",
        "compute_share", "memory_gb",        "sla",         "priority",
        "weight",        "fault_rate_per_h", "queue_limit", NULL};
    static const char *const classes[] = {"compute", "memory", "mixed", NULL};
    char p[512];
    const char *name;
    if (jv_object(j, obj, path, keys) || jv_str(j, obj, path, "name", 1, &name) ||
        copy_name(j, jv_path_key(p, sizeof p, path, "name"), name, t->name))
        return -1;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, "arrival");
    const cJSON *work = cJSON_GetObjectItemCaseSensitive(obj, "work");
    if (!arr)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "arrival"),
                       "missing (expected {\"process\": …})");
    if (parse_arrival(j, arr, jv_path_key(p, sizeof p, path, "arrival"), &t->arrival))
        return -1;
    if (!work)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "work"),
                       "missing (expected {\"dist\": …})");
    if (parse_work(j, work, jv_path_key(p, sizeof p, path, "work"), &t->work))
        return -1;
    int cls = CLASS_COMPUTE;
    if (jv_enum(j, obj, path, "class", 0, classes, &cls) < 0)
        return -1;
    t->wclass = (enum work_class)cls;
    t->compute_share = t->wclass == CLASS_COMPUTE ? 1.0 : t->wclass == CLASS_MEMORY ? 0.0 : 0.5;
    if (jv_num(j, obj, path, "compute_share", 0, 0, 1, &t->compute_share) < 0)
        return -1;
    if (t->wclass != CLASS_MIXED && cJSON_GetObjectItemCaseSensitive(obj, "compute_share"))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "compute_share"),
                       "only meaningful with \"class\": \"mixed\"");
    t->memory_gb = 0;
    t->weight = 1;
    long prio = 0, qlim = 0;
    if (jv_num(j, obj, path, "memory_gb", 0, 0, 1e5, &t->memory_gb) < 0 ||
        jv_int(j, obj, path, "priority", 0, -1000, 1000, &prio) < 0 ||
        jv_num_gt(j, obj, path, "weight", 0, 0, 1e6, &t->weight) < 0 ||
        jv_num(j, obj, path, "fault_rate_per_h", 0, 0, 1e7, &t->fault_rate_per_h) < 0 ||
        jv_int(j, obj, path, "queue_limit", 0, 1, LONG_MAX / 2, &qlim) < 0)
        return -1;
    t->priority = (int)prio;
    t->queue_limit = qlim;
    const cJSON *sla = cJSON_GetObjectItemCaseSensitive(obj, "sla");
    if (sla) {
        static const char *const skeys[] = {"p99_ms", NULL};
        double ms;
        jv_path_key(p, sizeof p, path, "sla");
        if (jv_object(j, sla, p, skeys) || jv_num_gt(j, sla, p, "p99_ms", 1, 0, 1e9, &ms))
            return -1;
        t->sla_p99_s = ms * 1e-3;
    }
    return 0;
}

/* ---- top level ----------------------------------------------------------- */

static int parse_stop(const struct jv *j, const cJSON *root, struct scenario *sc)
{
    static const char *const keys[] = {"requests", "duration_s", "drain", NULL};
    const cJSON *stop = cJSON_GetObjectItemCaseSensitive(root, "stop");
    sc->drain = 1;
    if (!stop)
        return jv_fail(j, "stop", "missing (expected {\"requests\": N} or {\"duration_s\": T})");
    if (jv_object(j, stop, "stop", keys) ||
        jv_int(j, stop, "stop", "requests", 0, 1, 1000000000000L, &sc->stop_requests) < 0 ||
        jv_num_gt(j, stop, "stop", "duration_s", 0, 0, 1e9, &sc->stop_duration_s) < 0 ||
        jv_bool(j, stop, "stop", "drain", 0, &sc->drain) < 0)
        return -1;
    if (sc->stop_requests == 0 && sc->stop_duration_s == 0)
        return jv_fail(j, "stop", "expected \"requests\" or \"duration_s\"");
    return 0;
}

static int parse_warmup(const struct jv *j, const cJSON *root, struct scenario *sc)
{
    static const char *const keys[] = {"requests", "duration_s", NULL};
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "warmup");
    if (!w)
        return 0;
    if (jv_object(j, w, "warmup", keys) ||
        jv_int(j, w, "warmup", "requests", 0, 0, 1000000000000L, &sc->warmup_requests) < 0 ||
        jv_num(j, w, "warmup", "duration_s", 0, 0, 1e9, &sc->warmup_duration_s) < 0)
        return -1;
    if (sc->warmup_requests > 0 && sc->warmup_duration_s > 0)
        return jv_fail(j, "warmup", "give \"requests\" or \"duration_s\", not both");
    if (sc->stop_requests > 0 && sc->warmup_requests >= sc->stop_requests)
        return jv_fail(
            j, "warmup.requests",
            "expected fewer than stop.requests (%ld), got %ld: nothing would be measured",
            sc->stop_requests, sc->warmup_requests);
    if (sc->stop_duration_s > 0 && sc->warmup_duration_s >= sc->stop_duration_s)
        return jv_fail(j, "warmup.duration_s", "expected less than stop.duration_s (%g)",
                       sc->stop_duration_s);
    return 0;
}

static int parse_cost(const struct jv *j, const cJSON *root, struct scenario *sc)
{
    static const char *const keys[] = {"gpu_hour_usd", "vgpu_license_usd_per_vgpu_year",
                                       "power_usd_per_kwh", NULL};
    sc->gpu_hour_usd = sc->gpu.gpu_hour_usd;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "cost");
    if (!c)
        return 0;
    return jv_object(j, c, "cost", keys) ||
           jv_num(j, c, "cost", "gpu_hour_usd", 0, 0, 1e6, &sc->gpu_hour_usd) < 0 ||
           jv_num(j, c, "cost", "vgpu_license_usd_per_vgpu_year", 0, 0, 1e7,
                  &sc->vgpu_license_usd_per_vgpu_year) < 0 ||
           jv_num(j, c, "cost", "power_usd_per_kwh", 0, 0, 1e3, &sc->power_usd_per_kwh) < 0;
}

static int parse_gpu(const struct jv *j, const cJSON *root, struct scenario *sc)
{
    const char *gpu;
    if (jv_str(j, root, "", "gpu", 1, &gpu))
        return -1;
    char msg[SS_ERRLEN];
    char path[4096];
    /* A relative profile path is relative to the scenario file, like trace paths. */
    if ((strchr(gpu, '/') || ss_ends_with(gpu, ".json")) && gpu[0] != '/') {
        const char *slash = strrchr(sc->path, '/');
        int dl = slash ? (int)(slash - sc->path) : 0;
        snprintf(path, sizeof path, "%.*s%s%s", dl, sc->path, slash ? "/" : "", gpu);
    } else {
        snprintf(path, sizeof path, "%s", gpu);
    }
    if (cal_load(path, &sc->gpu, msg, sizeof msg))
        return jv_fail(j, "gpu", "%s", msg);
    return 0;
}

static int parse_tenants(const struct jv *j, const cJSON *root, struct scenario *sc)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "tenants");
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
        return jv_fail(j, "tenants", "expected a non-empty array of tenants");
    int n = cJSON_GetArraySize(arr);
    if (n > SCN_MAX_TENANTS)
        return jv_fail(j, "tenants", "more than %d tenants", SCN_MAX_TENANTS);
    sc->tenants = ss_xcalloc((size_t)n, sizeof *sc->tenants);
    const cJSON *t;
    int i = 0;
    cJSON_ArrayForEach(t, arr)
    {
        char p[64];
        snprintf(p, sizeof p, "tenants[%d]", i);
        if (parse_tenant(j, t, p, &sc->tenants[i]))
            return -1;
        for (int k = 0; k < i; k++)
            if (strcmp(sc->tenants[k].name, sc->tenants[i].name) == 0)
                return jv_fail(j, p, "duplicate tenant name \"%s\" (also tenants[%d])",
                               sc->tenants[i].name, k);
        sc->n_tenants = ++i;
    }
    return 0;
}

static int parse_strategies(const struct jv *j, const cJSON *root, struct scenario *sc)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "strategies");
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
        return jv_fail(j, "strategies", "expected a non-empty array of strategies (kinds: %s)",
                       policy_kinds());
    int n = cJSON_GetArraySize(arr);
    if (n > SCN_MAX_STRATEGIES)
        return jv_fail(j, "strategies", "more than %d strategies", SCN_MAX_STRATEGIES);
    sc->strategies = ss_xcalloc((size_t)n, sizeof *sc->strategies);
    const cJSON *o;
    int i = 0;
    cJSON_ArrayForEach(o, arr)
    {
        char p[64], q[96];
        snprintf(p, sizeof p, "strategies[%d]", i);
        struct strategy_cfg *st = &sc->strategies[i];
        const char *name, *kind;
        if (!cJSON_IsObject(o))
            return jv_fail(j, p, "expected an object {\"name\", \"kind\", …}");
        if (jv_str(j, o, p, "name", 1, &name) ||
            copy_name(j, jv_path_key(q, sizeof q, p, "name"), name, st->name) ||
            jv_str(j, o, p, "kind", 1, &kind))
            return -1;
        for (int k = 0; k < i; k++)
            if (strcmp(sc->strategies[k].name, st->name) == 0)
                return jv_fail(j, p, "duplicate strategy name \"%s\"", st->name);
        st->ops = policy_find(kind);
        if (!st->ops)
            return jv_fail(j, jv_path_key(q, sizeof q, p, "kind"), "expected one of %s, got \"%s\"",
                           policy_kinds(), kind);
        sc->n_strategies = i + 1; /* so scn_free releases what parse() allocates */
        if (st->ops->parse(j, o, p, sc, &st->cfg))
            return -1;
        i++;
    }
    return 0;
}

int scn_load_text(const char *file, const char *text, size_t len, struct scenario *sc, char *err,
                  size_t errlen)
{
    return scn_load_text_flags(file, text, len, 0, sc, err, errlen);
}

int scn_load_text_flags(const char *file, const char *text, size_t len, unsigned flags,
                        struct scenario *sc, char *err, size_t errlen)
{
    static const char *const keys[] = {
        "name",         "description", "gpu",        "gpus", "seed", "stop", "warmup",
        "replications", "tenants",     "strategies", "cost", "plan", NULL};
    memset(sc, 0, sizeof *sc);
    sc->path = ss_xstrdup(file);
    struct jv j = {file, err, errlen};
    sc->json = jv_parse(&j, text, len);
    if (!sc->json)
        return -1;
    const cJSON *root = sc->json;
    const char *name = "scenario";
    long gpus = 1, seed = 1, reps = 1;
    if (jv_object(&j, root, "", keys) || jv_str(&j, root, "", "name", 0, &name) < 0 ||
        copy_name(&j, "name", name, sc->name) || parse_gpu(&j, root, sc) ||
        jv_int(&j, root, "", "gpus", 0, 1, 100000, &gpus) < 0 ||
        jv_int(&j, root, "", "seed", 0, 0, 4294967295L, &seed) < 0 ||
        jv_int(&j, root, "", "replications", 0, 1, 10000, &reps) < 0)
        return -1;
    sc->gpus = (int)gpus;
    sc->seed = (uint64_t)seed;
    sc->replications = (int)reps;
    if (parse_stop(&j, root, sc) || parse_warmup(&j, root, sc) || parse_cost(&j, root, sc) ||
        parse_tenants(&j, root, sc))
        return -1;
    if (!(flags & SCN_IGNORE_STRATEGIES) && parse_strategies(&j, root, sc))
        return -1;
    return 0;
}

int scn_load(const char *path, struct scenario *sc, char *err, size_t errlen)
{
    return scn_load_flags(path, 0, sc, err, errlen);
}

int scn_load_flags(const char *path, unsigned flags, struct scenario *sc, char *err, size_t errlen)
{
    char *text;
    size_t len;
    memset(sc, 0, sizeof *sc);
    if (ss_read_file(path, SCN_MAX_FILE, &text, &len, err, errlen))
        return -1;
    int rc = scn_load_text_flags(path, text, len, flags, sc, err, errlen);
    free(text);
    return rc;
}

void scn_free(struct scenario *sc)
{
    for (int i = 0; i < sc->n_strategies; i++)
        if (sc->strategies[i].ops && sc->strategies[i].cfg && sc->strategies[i].ops->free_cfg)
            sc->strategies[i].ops->free_cfg(sc->strategies[i].cfg);
    if (sc->tenants)
        for (int i = 0; i < sc->n_tenants; i++)
            free(sc->tenants[i].arrival.trace_path);
    free(sc->strategies);
    free(sc->tenants);
    cJSON_Delete(sc->json);
    free(sc->path);
    memset(sc, 0, sizeof *sc);
}
