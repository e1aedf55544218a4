/*
 * scenario — JSON → validated struct scenario (docs/scenario.md is the contract).
 * Every accessor goes through jsonv, so every error names the file, the JSON
 * path and what was expected; unknown keys are errors.
 *
 * Trace tenants are checked completely here, so a scenario that loads replays without
 * surprises: the trace file is opened (header and columns), the work spec is matched against
 * its columns, and the whole trace is read once (ten_trace_check: every row validated, the
 * record count and mean rate recorded). That pass costs one read of the file per trace tenant
 * at every load (0.6 s of CPU per million rows, as `sharesim trace stats`).
 */
#include "core/scenario.h"
#include "core/closed.h"
#include "core/verdict.h"
#include "base/jsonv.h"
#include "base/name.h"
#include "core/policy.h"
#include "core/preset.h"
#include "core/tenant.h"
#include "calib/kcurve.h"
#include "llm/serving.h"
#include "llm/tp.h"
#include "base/util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SCN_MAX_FILE (16u << 20)

const char *scn_class_name(enum work_class c)
{
    static const char *names[] = {"compute", "memory", "mixed"};
    return names[c];
}

static unsigned name_hash(const char *s)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of name in the table: its entry, or the empty one where it would go. */
static int name_slot(const struct scenario *sc, const char *name)
{
    unsigned mask = (unsigned)sc->name_slots - 1, k = name_hash(name) & mask;
    while (sc->name_hash[k] >= 0 && strcmp(sc->tenants[sc->name_hash[k]].name, name) != 0)
        k = (k + 1) & mask;
    return (int)k;
}

int scn_tenant_index(const struct scenario *sc, const char *name)
{
    if (sc->name_hash)
        return sc->name_hash[name_slot(sc, name)];
    for (int i = 0; i < sc->n_tenants; i++)
        if (strcmp(sc->tenants[i].name, name) == 0)
            return i;
    return -1;
}

/* A name (base/name.h: one rule for every name) copied into its SCN_NAME_MAX buffer. */
static int copy_name(const struct jv *j, const char *path, const char *s, char *dst)
{
    char why[SS_ERRLEN];
    if (name_check(s, why, sizeof why))
        return jv_fail(j, path, "%s", why);
    _Static_assert(SCN_NAME_MAX == NAME_MAX_BYTES + 1, "a name's buffer holds the longest name");
    strcpy(dst, s);
    return 0;
}

/* A relative path names a file next to the scenario file (`file`); absolute paths stay. */
static void resolve_path(const char *file, const char *rel, char *out, size_t n)
{
    if (rel[0] == '/') {
        snprintf(out, n, "%s", rel);
        return;
    }
    const char *slash = strrchr(file, '/');
    int dl = slash ? (int)(slash - file) : 0;
    snprintf(out, n, "%.*s%s%s", dl, file, slash ? "/" : "", rel);
}

/* ---- arrival ------------------------------------------------------------- */

static int parse_trace_arrival(const struct jv *j, const cJSON *obj, const char *path,
                               struct arrival_cfg *a)
{
    static const char *const keys[] = {"process", "path", "format", "time_scale", "limit", NULL};
    static const char *const formats[] = {"azure-llm", "openb", "sharesim", NULL};
    char p[512], full[4096];
    const char *file;
    int fmt;
    long limit = 0;
    if (jv_object(j, obj, path, keys) || jv_str(j, obj, path, "path", 1, &file))
        return -1;
    if (!file[0])
        return jv_fail(j, jv_path_key(p, sizeof p, path, "path"), "expected a trace file name");
    if (jv_enum(j, obj, path, "format", 1, formats, &fmt))
        return -1;
    if (tr_format_from_name(formats[fmt], &a->trace_format, NULL, 0))
        SS_FATAL("format table out of step with trace.h at \"%s\"", formats[fmt]);
    if (a->trace_format == TR_OPENB)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "format"),
                       "an openb pod list describes long-running pods with a fractional GPU "
                       "demand, not requests: pack it with `sharesim mig pack`; for request "
                       "replay use \"azure-llm\" or \"sharesim\"");
    a->trace_opts.time_scale = 1.0;
    if (jv_num_gt(j, obj, path, "time_scale", 0, 0, SCN_MAX_TIME_SCALE, &a->trace_opts.time_scale) <
            0 ||
        jv_int(j, obj, path, "limit", 0, 1, 1000000000000L, &limit) < 0)
        return -1;
    a->trace_opts.limit = limit;
    resolve_path(j->file, file, full, sizeof full);
    a->trace_path = ss_xstrdup(full);
    return 0;
}

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
    static const char *const procs[] = {"poisson", "deterministic", "gamma",  "mmpp", "diurnal",
                                        "trace",   "saturated",     "closed", NULL};
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
        return parse_trace_arrival(j, obj, path, a);
    case ARR_CLOSED:
        return cl_parse(j, obj, path, a);
    }
    SS_FATAL("unhandled arrival process %d", k);
}

/* ---- work ---------------------------------------------------------------- */

/* The keys every "dist" takes besides its own (docs/scenario.md#work). */
#define WORK_COMMON_KEYS                                                                           \
    "max_sm_fraction", "concurrency", "context_state_mb", "preset", "intensity", "host_fraction"

/* Occupancy: read after the dist's own keys were checked by jv_object. A preset fills the
 * defaults first, so that the keys given override it (core/preset.h). */
static int parse_work_occupancy(const struct jv *j, const cJSON *obj, const char *path,
                                struct work_cfg *w)
{
    long conc = 1;
    w->max_sm_fraction = 1;
    w->intensity = 0;
    w->host_fraction = 0;
    w->context_state_mb = -1; /* the profile's */
    if (wp_apply(j, obj, path, w))
        return -1;
    if (jv_num_gt(j, obj, path, "max_sm_fraction", 0, 0, 1, &w->max_sm_fraction) < 0 ||
        jv_num(j, obj, path, "intensity", 0, SCN_MIN_INTENSITY, SCN_MAX_INTENSITY, &w->intensity) <
            0 ||
        jv_num(j, obj, path, "host_fraction", 0, 0, SCN_MAX_HOST_FRACTION, &w->host_fraction) < 0 ||
        jv_int(j, obj, path, "concurrency", 0, 1, 4096, &conc) < 0 ||
        jv_num(j, obj, path, "context_state_mb", 0, 0, 1e5, &w->context_state_mb) < 0)
        return -1;
    w->concurrency = (int)conc;
    return 0;
}

static int parse_work_dist(const struct jv *j, const cJSON *obj, const char *path,
                           struct work_cfg *w);

static int parse_work(const struct jv *j, const cJSON *obj, const char *path, struct work_cfg *w)
{
    return parse_work_dist(j, obj, path, w) || parse_work_occupancy(j, obj, path, w);
}

static int parse_work_dist(const struct jv *j, const cJSON *obj, const char *path,
                           struct work_cfg *w)
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
        static const char *const keys[] = {"dist", "mean_ms", WORK_COMMON_KEYS, NULL};
        if (jv_object(j, obj, path, keys) || jv_num_gt(j, obj, path, "mean_ms", 1, 0, 1e9, &ms))
            return -1;
        w->mean_s = ms * 1e-3;
        return 0;
    }
    case WORK_DETERMINISTIC: {
        static const char *const keys[] = {"dist", "ms", WORK_COMMON_KEYS, NULL};
        if (jv_object(j, obj, path, keys) || jv_num_gt(j, obj, path, "ms", 1, 0, 1e9, &ms))
            return -1;
        w->mean_s = ms * 1e-3;
        return 0;
    }
    case WORK_LOGNORMAL: {
        static const char *const keys[] = {"dist", "mean_ms", "cv", WORK_COMMON_KEYS, NULL};
        if (jv_object(j, obj, path, keys) || jv_num_gt(j, obj, path, "mean_ms", 1, 0, 1e9, &ms) ||
            jv_num_gt(j, obj, path, "cv", 1, 0, 100, &w->cv))
            return -1;
        w->mean_s = ms * 1e-3;
        return 0;
    }
    case WORK_TOKENS: {
        static const char *const keys[] = {"dist", "prefill_ms_per_token", "decode_ms_per_token",
                                           WORK_COMMON_KEYS, NULL};
        double pre, dec;
        if (jv_object(j, obj, path, keys) ||
            jv_num(j, obj, path, "prefill_ms_per_token", 1, 0, 1e6, &pre) ||
            jv_num(j, obj, path, "decode_ms_per_token", 1, 0, 1e6, &dec))
            return -1;
        if (!(pre + dec > 0))
            return jv_fail(j, path,
                           "prefill_ms_per_token and decode_ms_per_token are both 0: expected "
                           "at least one > 0");
        w->prefill_s_per_token = pre * 1e-3;
        w->decode_s_per_token = dec * 1e-3;
        return 0;
    }
    case WORK_TRACE: {
        static const char *const keys[] = {"dist", WORK_COMMON_KEYS, NULL};
        return jv_object(j, obj, path, keys);
    }
    case WORK_LLM: /* not a "dist": an LLM tenant has no "work" (parse_llm) */
        break;
    }
    SS_FATAL("unhandled work dist %d", k);
}

/* ---- the clock's bounds (scenario.h) ------------------------------------------- */

/* What one tenant's stream adds to the check of stop.requests. */
struct clock_sum {
    double rate;           /* total mean rate of the tenants with a rate */
    double trace_requests; /* requests of the trace tenants (they end by themselves) */
    int rate_known;        /* 0 with a saturated tenant */
};

/* x within [lo, hi], or -1 with "FILE: ARRIVAL.KEY: …" saying why the clock needs that. */
static int clock_range(const char *file, const char *arrival, const char *key, double x, double lo,
                       double hi, const char *unit, const char *why, const char *scaled, char *err,
                       size_t errlen)
{
    if (x >= lo && x <= hi)
        return 0;
    return ss_errf(err, errlen, "%s: %s.%s: %g%s%s is %s the %s of %g%s: %s", file, arrival, key, x,
                   unit, scaled, x < lo ? "below" : "above", x < lo ? "minimum" : "maximum",
                   x < lo ? lo : hi, unit, why);
}

/* The clock's bounds on one request stream (arrival path "tenants[0].arrival", "--arrival"). */
static int clock_stream(const char *file, const char *arrival, const struct tenant_cfg *t,
                        const char *scaled, struct clock_sum *sum, char *err, size_t errlen)
{
    static const char *const gap_why =
        "a mean gap between arrivals is at most 1e9 s (the longest stop.duration_s) and at "
        "least 1 ns, so arrivals neither run past the clock's horizon (2^32 s) nor vanish in "
        "its rounding";
    static const char *const step_why =
        "the clock resolves 2^-20 s (0.95 us) at its horizon of 2^32 s, and a time step a "
        "model repeats must stay about 100 ticks or more";
    const struct arrival_cfg *a = &t->arrival;
    if (a->kind == ARR_DIURNAL && clock_range(file, arrival, "period_s", a->period_s,
                                              SCN_MIN_STEP_S, 1e9, " s", step_why, "", err, errlen))
        return -1;
    switch (a->kind) {
    case ARR_DIURNAL:
    case ARR_POISSON:
    case ARR_DETERMINISTIC:
    case ARR_GAMMA:
        if (clock_range(file, arrival, "rate_per_s", a->rate_per_s, SCN_MIN_RATE_PER_S,
                        SCN_MAX_RATE_PER_S, "/s", gap_why, scaled, err, errlen))
            return -1;
        sum->rate += a->rate_per_s;
        return 0;
    case ARR_MMPP: {
        double visit = 0;
        for (int k = 0; k < a->n_states; k++) {
            char key[64];
            double r = a->state_rate_per_s[k];
            snprintf(key, sizeof key, "states[%d].rate_per_s", k);
            if (r != 0 && clock_range(file, arrival, key, r, SCN_MIN_RATE_PER_S, SCN_MAX_RATE_PER_S,
                                      "/s", gap_why, scaled, err, errlen))
                return -1;
            snprintf(key, sizeof key, "states[%d].mean_dwell_s", k);
            if (clock_range(file, arrival, key, a->state_dwell_s[k], SCN_MIN_STEP_S, 1e9, " s",
                            step_why, "", err, errlen))
                return -1;
            visit += r * a->state_dwell_s[k];
        }
        visit /= a->n_states;
        if (visit < SCN_MMPP_MIN_ARRIVALS_PER_VISIT)
            return ss_errf(err, errlen,
                           "%s: %s.states: %g arrivals per state visit%s (rate_per_s x "
                           "mean_dwell_s, averaged over the states): expected at least %g, or "
                           "the chain changes state over a million times for each arrival",
                           file, arrival, visit, scaled, SCN_MMPP_MIN_ARRIVALS_PER_VISIT);
        sum->rate += ten_mean_rate(t);
        return 0;
    }
    case ARR_TRACE:
        if (clock_range(file, arrival, "time_scale", a->trace_opts.time_scale, SCN_MIN_TIME_SCALE,
                        SCN_MAX_TIME_SCALE, "",
                        "a trace's gaps are scaled by at most 10^6 either "
                        "way",
                        scaled, err, errlen))
            return -1;
        if (!(a->trace_last_s <= SCN_CLOCK_HORIZON_S))
            return ss_errf(err, errlen,
                           "%s: %s.path: %s: its last request arrives at %g s%s, past the clock's "
                           "horizon of %g s (2^32), beyond which it no longer resolves 1 us: "
                           "expected times from near 0 (a sharesim trace's time_s is used as "
                           "is) or a smaller time_scale",
                           file, arrival, a->trace_path, a->trace_last_s, scaled,
                           SCN_CLOCK_HORIZON_S);
        sum->trace_requests += (double)a->trace_count;
        return 0;
    case ARR_SATURATED:
    case ARR_CLOSED:         /* as fast as it is served (closed: at most that) */
        sum->rate_known = 0; /* never idle: the stop comes as fast as it is served */
        return 0;
    }
    return 0;
}

/* ---- a tenant's request stream: arrival × work --------------------------- */

static const char *const arrival_names[] = {"poisson", "deterministic", "gamma",     "mmpp",
                                            "diurnal", "trace",         "saturated", "closed"};

/* Lists the optional request columns of a trace, for messages. */
static const char *column_list(unsigned cols, char *buf, size_t n)
{
    snprintf(buf, n, "time_s%s%s%s", cols & TR_COL_WORK_MS ? ", work_ms" : "",
             cols & TR_COL_INPUT_TOKENS ? ", input_tokens" : "",
             cols & TR_COL_OUTPUT_TOKENS ? ", output_tokens" : "");
    return buf;
}

/*
 * The combination of arrival and work, then the trace itself: the header and columns here
 * (errors at work.dist name what is missing), every row through ten_trace_check (errors at
 * arrival.path carry the trace's own file:line:col).
 */
static int check_stream(const struct jv *j, const char *apath, const char *wpath,
                        struct tenant_cfg *t)
{
    char p[512], msg[SS_ERRLEN], cols[128];
    const struct arrival_cfg *a = &t->arrival;
    const char *dist = t->work.kind == WORK_TOKENS ? "tokens" : "trace";
    int llm_trace = t->llm && !t->llm->has_tokens; /* an LLM tenant's tokens from the trace */
    int needs_trace = t->work.kind == WORK_TOKENS || t->work.kind == WORK_TRACE;
    if (needs_trace && a->kind != ARR_TRACE)
        return jv_fail(j, jv_path_key(p, sizeof p, wpath, "dist"),
                       "\"%s\" work is read from a trace's %s: expected arrival.process "
                       "\"trace\", got \"%s\"",
                       dist, t->work.kind == WORK_TOKENS ? "token columns" : "work_ms column",
                       arrival_names[a->kind]);
    if (a->kind != ARR_TRACE)
        return 0;
    struct tr_reader *r = tr_open(a->trace_path, a->trace_format, &a->trace_opts, msg, sizeof msg);
    if (!r)
        return jv_fail(j, jv_path_key(p, sizeof p, apath, "path"), "%s", msg);
    unsigned have = tr_columns(r);
    tr_close(r);
    unsigned need = t->work.kind == WORK_TOKENS || llm_trace
                        ? TR_COL_INPUT_TOKENS | TR_COL_OUTPUT_TOKENS
                    : t->work.kind == WORK_TRACE ? TR_COL_WORK_MS
                                                 : 0;
    if (llm_trace && (have & need) != need)
        return jv_fail(j, wpath,
                       "missing: an LLM tenant's requests take their tokens from \"tokens\" or "
                       "from the trace's input_tokens and output_tokens, but %s (format %s) has "
                       "%s",
                       a->trace_path, tr_format_name(a->trace_format),
                       column_list(have, cols, sizeof cols));
    if ((have & need) != need)
        return jv_fail(j, jv_path_key(p, sizeof p, wpath, "dist"),
                       "\"%s\" work needs the column%s %s, but %s (format %s) has %s", dist,
                       need == TR_COL_WORK_MS ? "" : "s",
                       need == TR_COL_WORK_MS ? "work_ms" : "input_tokens and output_tokens",
                       a->trace_path, tr_format_name(a->trace_format),
                       column_list(have, cols, sizeof cols));
    if (ten_trace_check(t, msg, sizeof msg))
        return jv_fail(j, jv_path_key(p, sizeof p, apath, "path"), "%s", msg);
    ss_in_note(a->trace_path); /* no output of this process may replace it */
    return 0;
}

static int parse_stream(const struct jv *j, const cJSON *arr, const char *apath, const cJSON *work,
                        const char *wpath, struct tenant_cfg *t)
{
    if (!arr)
        return jv_fail(j, apath, "missing (expected {\"process\": …})");
    if (parse_arrival(j, arr, apath, &t->arrival))
        return -1;
    if (!work)
        return jv_fail(j, wpath, "missing (expected {\"dist\": …})");
    if (parse_work(j, work, wpath, &t->work))
        return -1;
    return check_stream(j, apath, wpath, t);
}

int scn_parse_stream(const char *file, const cJSON *arrival, const char *arrival_path,
                     const cJSON *work, const char *work_path, struct tenant_cfg *t, char *err,
                     size_t errlen)
{
    struct jv j = {file, err, errlen};
    struct clock_sum sum = {0, 0, 1};
    return parse_stream(&j, arrival, arrival_path, work, work_path, t) ||
                   clock_stream(file, arrival_path, t, "", &sum, err, errlen)
               ? -1
               : 0;
}

void scn_tenant_free(struct tenant_cfg *t)
{
    free(t->arrival.trace_path);
    t->arrival.trace_path = NULL;
    free(t->llm);
    t->llm = NULL;
}

/*
 * An LLM tenant (docs/llm.md): "serving" instead of "work", its requests' tokens drawn from
 * "tokens" or read from its trace. Keys that describe a plain request's work or footprint do
 * not apply: its work is the engine's steps and its memory what its strategy gives it.
 */
static int parse_llm(const struct jv *j, const cJSON *obj, const char *path,
                     const struct gpu_profile *gpu, struct tenant_cfg *t)
{
    static const char *const not_llm[] = {"work", "class", "compute_share", "memory_gb", NULL};
    char p[512], ap[512], tp[512];
    for (int k = 0; not_llm[k]; k++)
        if (cJSON_GetObjectItemCaseSensitive(obj, not_llm[k]))
            return jv_fail(j, jv_path_key(p, sizeof p, path, not_llm[k]),
                           "not for an LLM tenant (it has \"serving\"): its work is its "
                           "engine's steps and its memory what its strategy gives it "
                           "(docs/llm.md)");
    t->llm = ss_xcalloc(1, sizeof *t->llm);
    if (lsv_parse(j, cJSON_GetObjectItemCaseSensitive(obj, "serving"),
                  jv_path_key(p, sizeof p, path, "serving"), NULL, t->llm))
        return -1;
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(obj, "tokens");
    jv_path_key(tp, sizeof tp, path, "tokens");
    if (tok && lsv_parse_tokens(j, tok, tp, t->llm))
        return -1;
    /* vLLM's defaults depend on the device: the scenario's GPU, whole (docs/llm.md#scheduler). */
    lsv_resolve(t->llm, gpu->name, gpu->memory_gb);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, "arrival");
    jv_path_key(ap, sizeof ap, path, "arrival");
    if (!arr)
        return jv_fail(j, ap, "missing (expected {\"process\": …})");
    if (parse_arrival(j, arr, ap, &t->arrival))
        return -1;
    t->work.kind = WORK_LLM;
    /* The engine holds every request it takes; a plain server's occupancy keys do not apply. */
    t->work.max_sm_fraction = 1;
    t->work.concurrency = 1;
    t->work.context_state_mb = -1;
    t->work.intensity = 0;
    t->work.host_fraction = 0;
    t->work.preset_class = -1;
    /* A saturated tenant keeps one request waiting; an engine takes every request waiting
     * into its own queue, so it would take them without end. */
    if (t->arrival.kind == ARR_SATURATED)
        return jv_fail(j, jv_path_key(p, sizeof p, ap, "process"),
                       "\"saturated\" is not for an LLM tenant: its engine takes every waiting "
                       "request at once, so a closed loop of one waiting request never ends; use "
                       "a high rate instead");
    if (!tok && t->arrival.kind != ARR_TRACE)
        return jv_fail(j, tp,
                       "missing: an LLM tenant's requests take their tokens from \"tokens\": "
                       "{\"input\": {…}, \"output\": {…}} or from a trace (arrival.process "
                       "\"trace\"), got arrival.process \"%s\"",
                       arrival_names[t->arrival.kind]);
    return check_stream(j, ap, tp, t);
}

/* ---- tenant -------------------------------------------------------------- */

/* "sla": the targets of core/verdict.h, at least one; an LLM tenant's TTFT and TPOT p99 too. */
static int parse_sla(const struct jv *j, const cJSON *sla, const char *p, struct tenant_cfg *t)
{
    static const char *const skeys[] = {
        "p99_ms", "ttft_p99_ms", "tpot_p99_ms", "min_throughput_per_s", "max_lost_fraction", NULL};
    static const char *const plain[] = {"p99_ms", "min_throughput_per_s", "max_lost_fraction",
                                        NULL};
    double ms = 0, ttft = 0, tpot = 0, thr = 0, lost = 0;
    if (jv_object(j, sla, p, t->llm ? skeys : plain))
        return -1;
    if (jv_num_gt(j, sla, p, "p99_ms", 0, 0, 1e9, &ms) < 0 ||
        jv_num_gt(j, sla, p, "min_throughput_per_s", 0, 0, VD_MAX_THROUGHPUT_PER_S, &thr) < 0 ||
        jv_num(j, sla, p, "max_lost_fraction", 0, 0, 1, &lost) < 0)
        return -1;
    t->sla.set = 1;
    t->sla_p99_s = ms * 1e-3;
    t->sla.min_throughput_per_s = thr;
    t->sla.max_lost_fraction = lost;
    if (t->llm && (jv_num_gt(j, sla, p, "ttft_p99_ms", 0, 0, 1e9, &ttft) < 0 ||
                   jv_num_gt(j, sla, p, "tpot_p99_ms", 0, 0, 1e9, &tpot) < 0))
        return -1;
    if (ms == 0 && ttft == 0 && tpot == 0 && thr == 0)
        return jv_fail(j, p,
                       t->llm ? "expected at least one target: p99_ms, ttft_p99_ms, tpot_p99_ms "
                                "or min_throughput_per_s"
                              : "expected at least one target: p99_ms or min_throughput_per_s");
    if (t->llm) {
        t->llm->sla_ttft_p99_s = ttft * 1e-3;
        t->llm->sla_tpot_p99_s = tpot * 1e-3;
    }
    return 0;
}

/*
 * "class" and "compute_share", defaulting to the work preset's (core/preset.h): a class given
 * overrides the preset's, and then the preset's intensity and compute share, which belong to
 * its class, are dropped; an intensity given outright must have class compute.
 */
static int parse_class(const struct jv *j, const cJSON *obj, const char *path, struct tenant_cfg *t)
{
    static const char *const classes[] = {"compute", "memory", "mixed", NULL};
    char p[512], wp[512];
    const struct work_cfg *w = &t->work;
    int from_preset = !t->llm && w->preset_class >= 0;
    int cls = from_preset ? w->preset_class : CLASS_COMPUTE;
    if (jv_enum(j, obj, path, "class", 0, classes, &cls) < 0)
        return -1;
    t->wclass = (enum work_class)cls;
    t->compute_share = t->wclass == CLASS_COMPUTE ? 1.0 : t->wclass == CLASS_MEMORY ? 0.0 : 0.5;
    if (from_preset && cls == w->preset_class && t->wclass == CLASS_MIXED)
        t->compute_share = w->preset_compute_share;
    if (jv_num(j, obj, path, "compute_share", 0, 0, 1, &t->compute_share) < 0)
        return -1;
    if (t->wclass != CLASS_MIXED && cJSON_GetObjectItemCaseSensitive(obj, "compute_share"))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "compute_share"),
                       "only meaningful with \"class\": \"mixed\"");
    if (t->wclass == CLASS_COMPUTE || !(w->intensity > 0))
        return 0;
    const cJSON *work = cJSON_GetObjectItemCaseSensitive(obj, "work");
    if (cJSON_GetObjectItemCaseSensitive(work, "intensity"))
        return jv_fail(
            j, jv_path_key(p, sizeof p, jv_path_key(wp, sizeof wp, path, "work"), "intensity"),
            "only for \"class\": \"compute\" (got \"%s\"): a %s request's memory "
            "part is already in its class",
            classes[cls], classes[cls]);
    t->work.intensity = 0; /* the preset's, for its own class */
    return 0;
}

static int parse_tenant(const struct jv *j, const cJSON *obj, const char *path,
                        const struct gpu_profile *gpu, struct tenant_cfg *t)
{
    static const char *const keys[] = {
        "name",        "arrival",   "work",      "class",         "compute_share",
        "memory_gb",   "sla",       "priority",  "weight",        "fault_rate_per_h",
        "queue_limit", "startup_s", "restart_s", "memory_growth", "serving",
        "tokens",      "k8s",       NULL};
    char p[512];
    const char *name;
    if (jv_object(j, obj, path, keys) || jv_str(j, obj, path, "name", 1, &name) ||
        copy_name(j, jv_path_key(p, sizeof p, path, "name"), name, t->name))
        return -1;
    char ap[512], wp[512];
    if (cJSON_GetObjectItemCaseSensitive(obj, "serving")) {
        if (parse_llm(j, obj, path, gpu, t))
            return -1;
    } else if (cJSON_GetObjectItemCaseSensitive(obj, "tokens")) {
        return jv_fail(j, jv_path_key(p, sizeof p, path, "tokens"),
                       "only for an LLM tenant (with \"serving\"); a plain tenant's work is "
                       "\"work\"");
    } else if (parse_stream(j, cJSON_GetObjectItemCaseSensitive(obj, "arrival"),
                            jv_path_key(ap, sizeof ap, path, "arrival"),
                            cJSON_GetObjectItemCaseSensitive(obj, "work"),
                            jv_path_key(wp, sizeof wp, path, "work"), t)) {
        return -1;
    }
    if (parse_class(j, obj, path, t))
        return -1;
    t->memory_gb = 0;
    t->weight = 1;
    long qlim = 0;
    /* No strategy schedules by priority: accepting one would promise an effect that does
     * not exist. Refused by name (a strategy that used it would read it itself). */
    if (cJSON_GetObjectItemCaseSensitive(obj, "priority"))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "priority"),
                       "no strategy uses a priority (none of %s schedules by it, so it would "
                       "change nothing): remove it",
                       policy_kinds());
    if (jv_num(j, obj, path, "memory_gb", 0, 0, 1e5, &t->memory_gb) < 0 ||
        jv_num_gt(j, obj, path, "weight", 0, 0, 1e6, &t->weight) < 0 ||
        jv_num(j, obj, path, "fault_rate_per_h", 0, 0, 1e7, &t->fault_rate_per_h) < 0 ||
        jv_int(j, obj, path, "queue_limit", 0, 1, LONG_MAX / 2, &qlim) < 0 ||
        jv_num(j, obj, path, "startup_s", 0, 0, 1e6, &t->startup_s) < 0)
        return -1;
    t->restart_s = t->startup_s; /* a restart loads the model again */
    if (jv_num(j, obj, path, "restart_s", 0, 0, 1e6, &t->restart_s) < 0)
        return -1;
    const cJSON *mg = cJSON_GetObjectItemCaseSensitive(obj, "memory_growth");
    if (mg) {
        static const char *const gkeys[] = {"at_s", "gb", "for_s", NULL};
        jv_path_key(p, sizeof p, path, "memory_growth");
        if (jv_object(j, mg, p, gkeys) || jv_num(j, mg, p, "at_s", 1, 0, 1e9, &t->growth_at_s) ||
            jv_num_gt(j, mg, p, "gb", 1, 0, 1e5, &t->growth_gb) ||
            jv_num_gt(j, mg, p, "for_s", 1, 0, 1e9, &t->growth_for_s))
            return -1;
    }
    t->queue_limit = qlim;
    if (cl_check_queue(j, path, t))
        return -1;
    if (ki_parse_workload(j, cJSON_GetObjectItemCaseSensitive(obj, "k8s"),
                          jv_path_key(p, sizeof p, path, "k8s"), &t->k8s))
        return -1;
    const cJSON *sla = cJSON_GetObjectItemCaseSensitive(obj, "sla");
    if (sla && parse_sla(j, sla, jv_path_key(p, sizeof p, path, "sla"), t))
        return -1;
    return 0;
}

/* ---- top level ----------------------------------------------------------- */

static int parse_stop(const struct jv *j, const cJSON *root, struct scenario *sc)
{
    static const char *const keys[] = {"requests", "duration_s", "drain", NULL};
    const cJSON *stop = cJSON_GetObjectItemCaseSensitive(root, "stop");
    sc->drain = 1;
    if (!stop)
        return 0; /* allowed when every tenant replays a trace: checked after the tenants */
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

static int parse_limits(const struct jv *j, const cJSON *root, struct scenario *sc)
{
    static const char *const keys[] = {"in_system", NULL};
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(root, "limits");
    sc->max_in_system = SCN_DEFAULT_IN_SYSTEM;
    if (!l)
        return 0;
    return jv_object(j, l, "limits", keys) ||
           jv_int(j, l, "limits", "in_system", 0, 1, SCN_MAX_IN_SYSTEM, &sc->max_in_system) < 0;
}

int scn_check_clock(const struct scenario *sc, double load_scale, char *err, size_t errlen)
{
    const char *file = sc->path ? sc->path : "scenario";
    char scaled[64] = "";
    if (load_scale != 1.0)
        snprintf(scaled, sizeof scaled, " (after --scale-load %g)", load_scale);
    struct clock_sum sum = {0, 0, 1};
    for (int i = 0; i < sc->n_tenants; i++) {
        char arrival[64];
        snprintf(arrival, sizeof arrival, "tenants[%d].arrival", i);
        if (clock_stream(file, arrival, &sc->tenants[i], scaled, &sum, err, errlen))
            return -1;
    }
    /* stop.requests alone: on average the arrivals must reach it before the horizon */
    double left = (double)sc->stop_requests - sum.trace_requests;
    if (sc->stop_requests > 0 && sc->stop_duration_s == 0 && sum.rate_known && sum.rate > 0 &&
        left > 0 && left / sum.rate > SCN_CLOCK_HORIZON_S)
        return ss_errf(err, errlen,
                       "%s: stop.requests: %ld requests at a mean rate of %g/s%s take about %g s "
                       "of simulated time, past the clock's horizon of %g s (2^32): expected "
                       "fewer requests, higher rates, or stop.duration_s",
                       file, sc->stop_requests, sum.rate, scaled, left / sum.rate,
                       SCN_CLOCK_HORIZON_S);
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
    if (strchr(gpu, '/') || ss_ends_with(gpu, ".json")) {
        resolve_path(sc->path, gpu, path, sizeof path);
    } else {
        snprintf(path, sizeof path, "%s", gpu);
    }
    if (cal_load(path, &sc->gpu, msg, sizeof msg))
        return jv_fail(j, "gpu", "%s", msg);
    return 0;
}

/* An LLM tenant on the engine step model reads the GPU's measured kernel tables: a bad file
 * is a load error (exit 2), not a run's abort. */
static int check_kernel_tables(const struct jv *j, const struct scenario *sc)
{
    for (int i = 0; i < sc->n_tenants; i++) {
        const struct lsv_cfg *l = sc->tenants[i].llm;
        if (l && l->etm.kind == STM_ENGINE) {
            const struct kc_gpu *kc;
            char msg[SS_ERRLEN];
            if (kc_get(sc->gpu.path, &kc, msg, sizeof msg))
                return jv_fail(j, "gpu", "%s", msg);
            return 0;
        }
    }
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
    /* at most half full: a power of two at least 2n */
    for (sc->name_slots = 16; sc->name_slots < 2 * n; sc->name_slots *= 2)
        ;
    sc->name_hash = ss_xmalloc((size_t)sc->name_slots * sizeof *sc->name_hash);
    for (int k = 0; k < sc->name_slots; k++)
        sc->name_hash[k] = -1;
    const cJSON *t;
    int i = 0;
    cJSON_ArrayForEach(t, arr)
    {
        char p[64];
        snprintf(p, sizeof p, "tenants[%d]", i);
        sc->n_tenants = i + 1; /* so scn_free releases a half-parsed tenant's trace path */
        if (parse_tenant(j, t, p, &sc->gpu, &sc->tenants[i]))
            return -1;
        int slot = name_slot(sc, sc->tenants[i].name);
        if (sc->name_hash[slot] >= 0)
            return jv_fail(j, p, "duplicate tenant name \"%s\" (also tenants[%d])",
                           sc->tenants[i].name, sc->name_hash[slot]);
        sc->name_hash[slot] = i;
        i++;
    }
    return 0;
}

/* Without a stop, arrivals must end by themselves: every tenant replays a (finite) trace. */
static int check_stop(const struct jv *j, const cJSON *root, const struct scenario *sc)
{
    if (cJSON_GetObjectItemCaseSensitive(root, "stop"))
        return 0;
    for (int i = 0; i < sc->n_tenants; i++)
        if (sc->tenants[i].arrival.kind != ARR_TRACE)
            return jv_fail(j, "stop",
                           "missing (expected {\"requests\": N} or {\"duration_s\": T}; it may "
                           "be left out only when every tenant replays a trace, and tenants[%d] "
                           "\"%s\" has arrival.process \"%s\")",
                           i, sc->tenants[i].name, arrival_names[sc->tenants[i].arrival.kind]);
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
    if ((long)n * sc->n_tenants > SCN_MAX_PAIRS)
        return jv_fail(j, "strategies",
                       "%d strategies x %d tenants = %ld pairs, more than %d: a run keeps and "
                       "writes every pair's figures (docs/robustness.md, \"Scale\"); split the "
                       "strategies over several scenarios",
                       n, sc->n_tenants, (long)n * sc->n_tenants, SCN_MAX_PAIRS);
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
        for (int k = 0; k < sc->n_tenants && !st->ops->serves_llm; k++)
            if (sc->tenants[k].llm)
                return jv_fail(j, jv_path_key(q, sizeof q, p, "kind"),
                               "\"%s\" does not serve LLM tenants yet (tenants[%d] \"%s\" has "
                               "\"serving\"); the kinds that do: %s (docs/llm.md)",
                               kind, k, sc->tenants[k].name, policy_llm_kinds());
        for (int k = 0; k < sc->n_tenants && st->ops->no_tp && !st->ops->tp_whole_gpus; k++)
            if (sc->tenants[k].llm && sc->tenants[k].llm->tensor_parallel > 1)
                return jv_fail(j, jv_path_key(q, sizeof q, p, "kind"),
                               "\"%s\" cannot serve tenants[%d] \"%s\" with tensor_parallel %d: "
                               "%s; use \"exclusive\" (whole GPUs of one node)",
                               kind, k, sc->tenants[k].name, sc->tenants[k].llm->tensor_parallel,
                               st->ops->no_tp);
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
        "name",   "description",          "gpu",     "gpus",       "seed", "stop",
        "warmup", "replications",         "tenants", "strategies", "cost", "plan",
        "limits", "gpu_fault_rate_per_h", "k8s",     NULL};
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
        jv_int(&j, root, "", "replications", 0, 1, 10000, &reps) < 0 ||
        jv_num(&j, root, "", "gpu_fault_rate_per_h", 0, 0, 1e7, &sc->gpu_fault_rate_per_h) < 0)
        return -1;
    sc->gpus = (int)gpus;
    sc->seed = (uint64_t)seed;
    sc->replications = (int)reps;
    if (parse_stop(&j, root, sc) || parse_warmup(&j, root, sc) || parse_cost(&j, root, sc) ||
        parse_limits(&j, root, sc) ||
        ki_parse_plan(&j, cJSON_GetObjectItemCaseSensitive(root, "k8s"), "k8s", &sc->k8s) ||
        parse_tenants(&j, root, sc) || check_stop(&j, root, sc) || check_kernel_tables(&j, sc) ||
        scn_check_clock(sc, 1.0, err, errlen))
        return -1;
    /* "auto" asks the planner for a degree; a run with none chosen would serve the model on
     * one GPU without saying so. */
    for (int i = 0; i < sc->n_tenants && !(flags & SCN_TP_AUTO); i++)
        if (sc->tenants[i].llm && sc->tenants[i].llm->tp_auto) {
            char p[128];
            snprintf(p, sizeof p, "tenants[%d].serving.tensor_parallel", i);
            return jv_fail(&j, p,
                           "\"auto\" lets sharesim plan choose the degree; this command needs "
                           "1, 2, 4 or %d (the plan's --emit-scenario writes the one it chose)",
                           TP_MAX);
        }
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
            scn_tenant_free(&sc->tenants[i]);
    free(sc->strategies);
    free(sc->tenants);
    free(sc->name_hash);
    ki_plan_free(&sc->k8s);
    cJSON_Delete(sc->json);
    free(sc->path);
    memset(sc, 0, sizeof *sc);
}
