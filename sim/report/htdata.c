/*
 * htdata — what the pages read (htint.h): the metrics a sweep can plot, the x axis of a
 * sweep and the words for a scenario path (the verdict is core/vdjson.h's, the `run --cdf`
 * curves core/cdfrun.h's). Lenient where a field is merely absent (a NaN, drawn as nothing),
 * strict where the input is not what it claims to be (a message naming file and line).
 */
#include "report/html.h"
#include "report/htint.h"
#include "core/llmstats.h"
#include "core/rdoc.h"
#include "base/jsonv.h"
#include "core/verdict.h"
#include "base/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *ht_str(const cJSON *obj, const char *key)
{
    const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* ---- metrics ---------------------------------------------------------------------------- */

/* The figures a sweep can plot, each a metric of the table (core/metric.h) shown at its scale. */
static const struct ht_metric metrics[] = {
    {"p99_ms", "p99 latency", "ms", HT_TENANT, MT_TENANT, TM_LAT_P99, 1, "p99_ms", "p99"},
    {"p999_ms", "p99.9 latency", "ms", HT_TENANT, MT_TENANT, TM_LAT_P999, 1, "p99_ms", "p999"},
    {"p95_ms", "p95 latency", "ms", HT_TENANT, MT_TENANT, TM_LAT_P95, 1, "p99_ms", "p95"},
    {"p50_ms", "median latency", "ms", HT_TENANT, MT_TENANT, TM_LAT_P50, 1, "p99_ms", "p50"},
    {"mean_ms", "mean latency", "ms", HT_TENANT, MT_TENANT, TM_LAT_MEAN, 1, "p99_ms", "mean"},
    {"ttft_p99_ms", "p99 time to first token", "ms", HT_TENANT, MT_LLM, LM_TTFT_P99, 1,
     "ttft_p99_ms", "ttft-p99"},
    {"tpot_p99_ms", "p99 time per output token", "ms", HT_TENANT, MT_LLM, LM_TPOT_P99, 1,
     "tpot_p99_ms", "tpot-p99"},
    {"throughput", "throughput", "req/s", HT_TENANT, MT_TENANT, TM_THROUGHPUT, 0, NULL,
     "throughput"},
    {"sla_attainment", "requests within the SLA", "%", HT_TENANT, MT_TENANT, TM_SLA_ATTAINMENT, 0,
     NULL, "sla-attainment"},
    {"cost", "cost per million requests", "$", HT_STRATEGY, MT_STRATEGY, SM_COST_PER_MREQ, 0, NULL,
     "cost"},
    {"cost_per_hour", "cost per hour", "$", HT_STRATEGY, MT_STRATEGY, SM_COST_PER_HOUR, 0, NULL,
     "cost-per-hour"},
    {"util", "GPU utilisation", "%", HT_STRATEGY, MT_STRATEGY, SM_UTIL, 0, NULL, "util"},
    {"gpus", "GPUs used", "", HT_STRATEGY, MT_STRATEGY, MT_SM_GPUS_USED, 0, NULL, "gpus"},
};
#define N_METRICS ((int)(sizeof metrics / sizeof metrics[0]))

const struct ht_metric *ht_metric(const char *name)
{
    for (int k = 0; k < N_METRICS; k++)
        if (strcmp(metrics[k].name, name) == 0)
            return &metrics[k];
    return NULL;
}

/* The names of the table above, in its order, for messages and --help (built once). */
static const char *ht_metric_names(void)
{
    static char names[512];
    if (!names[0])
        for (int k = 0; k < N_METRICS; k++)
            ss_catf(names, sizeof names, "%s%s", k ? ", " : "", metrics[k].name);
    return names;
}

int ht_check_metrics(const char *list, char *err, size_t errlen)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save), n++)
        if (!ht_metric(tok))
            return ss_errf(err, errlen, "--plot: \"%s\" is not a metric (one of: %s)", tok,
                           ht_metric_names());
    if (n == 0)
        return ss_errf(err, errlen, "--plot: expected a metric (one of: %s)", ht_metric_names());
    return 0;
}

double ht_metric_value(const struct ht_metric *m, const cJSON *strategy, const cJSON *tenant)
{
    const struct mt_metric *mm = mt_of(m->of, m->index);
    return rd_fig(m->of == MT_STRATEGY ? strategy : tenant, m->of, m->index) * mm->show_scale;
}

/* ---- words for a scenario path -------------------------------------------------------------- */

/* Known keys: "parent.key" or "key" → words and unit. */
static const struct {
    const char *key, *words, *unit;
} known[] = {
    {"arrival.rate_per_s", "arrival rate", "req/s"},
    {"arrival.cv", "arrival CV", ""},
    {"work.mean_ms", "mean work", "ms"},
    {"work.ms", "work", "ms"},
    {"work.cv", "work CV", ""},
    {"sla.p99_ms", "p99 SLA", "ms"},
    {"slice_ms", "time slice", "ms"},
    {"switch_us", "context switch", "µs"},
    {"gpus", "GPUs", ""},
    {"memory_gb", "memory", "GB"},
    {"weight", "weight", ""},
    {"seed", "seed", ""},
    {"replications", "replications", ""},
    {"load_scale", "load", "× the scenario's arrival rates"},
};

/* A key without a known entry: underscores to spaces, a unit suffix to its unit. */
static void generic_key(const char *key, char *words, size_t wn, char *unit, size_t un)
{
    static const struct {
        const char *suffix, *unit;
    } units[] = {{"_per_s", "/s"}, {"_ms", "ms"}, {"_us", "µs"}, {"_s", "s"},
                 {"_gb", "GB"},    {"_usd", "$"}, {"_pct", "%"}, {"_percent", "%"}};
    char k[96];
    snprintf(k, sizeof k, "%s", key);
    unit[0] = '\0';
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
        if (ss_ends_with(k, units[u].suffix) && strlen(k) > strlen(units[u].suffix)) {
            k[strlen(k) - strlen(units[u].suffix)] = '\0';
            snprintf(unit, un, "%s", units[u].unit);
            break;
        }
    for (char *c = k; *c; c++)
        if (*c == '_')
            *c = ' ';
    snprintf(words, wn, "%s", k);
}

/* A path's owner (a tenant or strategy name, or ""), words and unit. */
static void param_parts(const struct scenario *sc, const char *path, char *owner, size_t on,
                        char *words, size_t wn, char *unit, size_t un)
{
    char parts[8][96];
    int np = 0;
    const char *p = path;
    while (*p && np < 8) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        snprintf(parts[np++], sizeof parts[0], "%.*s", (int)len, p);
        p = dot ? dot + 1 : p + len;
    }
    owner[0] = words[0] = unit[0] = '\0';
    if (np == 0) {
        snprintf(words, wn, "%s", path);
        return;
    }
    /* Whose parameter: a tenant or strategy by its name. */
    int first = 0;
    if (np >= 3 && (strcmp(parts[0], "tenants") == 0 || strcmp(parts[0], "strategies") == 0) &&
        isdigit((unsigned char)parts[1][0])) {
        int i = atoi(parts[1]), tenant = parts[0][0] == 't';
        if (sc && tenant && i < sc->n_tenants)
            snprintf(owner, on, "%s", sc->tenants[i].name);
        else if (sc && !tenant && i < sc->n_strategies)
            snprintf(owner, on, "%s", sc->strategies[i].name);
        else
            snprintf(owner, on, "%s %d", tenant ? "tenant" : "strategy", i);
        first = 2;
    }
    char pair[200];
    const char *last = parts[np - 1];
    snprintf(pair, sizeof pair, "%s.%s", np - first >= 2 ? parts[np - 2] : "", last);
    int found = 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0] && !found; k++)
        if (strcmp(known[k].key, pair) == 0 || strcmp(known[k].key, last) == 0) {
            snprintf(words, wn, "%s", known[k].words);
            snprintf(unit, un, "%s", known[k].unit);
            found = 1;
        }
    if (!found)
        generic_key(last, words, wn, unit, un);
}

void ht_param_label(const struct scenario *sc, const char *path, char *buf, size_t n)
{
    char owner[96], words[96], unit[64];
    param_parts(sc, path, owner, sizeof owner, words, sizeof words, unit, sizeof unit);
    snprintf(buf, n, "%s%s%s%s%s%s", owner, owner[0] ? ": " : "", words, unit[0] ? " (" : "", unit,
             unit[0] ? ")" : "");
}

/* ---- the sweep axis ---------------------------------------------------------------------- */

static void value_text(const cJSON *v, char *buf, size_t n)
{
    if (cJSON_IsNumber(v))
        snprintf(buf, n, "%g", v->valuedouble);
    else if (cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    else if (cJSON_IsBool(v))
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else
        snprintf(buf, n, "?");
}

int ht_axis_make(const struct scenario *sc, cJSON *const *docs, int n, struct ht_axis *a, char *err,
                 size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->n = n;
    a->numeric = 1;
    a->x = ss_xcalloc((size_t)n, sizeof *a->x);
    a->text = ss_xcalloc((size_t)n, sizeof *a->text);
    a->rest = ss_xcalloc((size_t)n, sizeof *a->rest);
    const cJSON *p0 = rd_sweep_params(docs[0]);
    if (p0 && p0->child)
        snprintf(a->path, sizeof a->path, "%s", p0->child->string);
    else
        snprintf(a->path, sizeof a->path, "load_scale");
    ht_param_label(sc, a->path, a->label, sizeof a->label);
    for (int k = 0; k < n; k++) {
        char buf[128] = "", rest[400] = "";
        const cJSON *pp = rd_sweep_params(docs[k]);
        if (strcmp(a->path, "load_scale") == 0) {
            struct rd_head h;
            rd_head_of(docs[k], &h);
            snprintf(buf, sizeof buf, "%g", isfinite(h.load_scale) ? h.load_scale : 1.0);
        } else {
            const cJSON *v = pp ? cJSON_GetObjectItemCaseSensitive(pp, a->path) : NULL;
            if (!v) {
                ht_axis_free(a);
                return ss_errf(err, errlen,
                               "result %d of the sweep does not set \"%s\" (results of one "
                               "`sharesim sweep` only)",
                               k + 1, p0 ? p0->child->string : "");
            }
            value_text(v, buf, sizeof buf);
            if (!cJSON_IsNumber(v))
                a->numeric = 0;
            const cJSON *o;
            cJSON_ArrayForEach(o, pp)
            {
                if (o == pp->child)
                    continue;
                char owner[96], words[96], unit[64], val[96];
                param_parts(sc, o->string, owner, sizeof owner, words, sizeof words, unit,
                            sizeof unit);
                value_text(o, val, sizeof val);
                ss_catf(rest, sizeof rest, "%s%s%s%s %s%s%s", rest[0] ? ", " : "", owner,
                        owner[0] ? " " : "", words, val, unit[0] ? " " : "", unit);
            }
        }
        a->text[k] = ss_xstrdup(buf);
        a->rest[k] = ss_xstrdup(rest);
        a->x[k] = strtod(buf, NULL);
    }
    if (!a->numeric) { /* categories in order of first appearance */
        for (int k = 0; k < n; k++) {
            int c = -1;
            for (int j = 0; j < k && c < 0; j++)
                if (strcmp(a->text[j], a->text[k]) == 0)
                    c = (int)a->x[j];
            a->x[k] = c >= 0 ? c : a->n_cats++;
        }
    } else {
        a->log = svg_auto_axis(a->x, n) == SVG_LOG;
    }
    return 0;
}

void ht_axis_free(struct ht_axis *a)
{
    for (int k = 0; k < a->n; k++) {
        if (a->text)
            free(a->text[k]);
        if (a->rest)
            free(a->rest[k]);
    }
    free(a->x);
    free(a->text);
    free(a->rest);
    memset(a, 0, sizeof *a);
}

void ht_axis_value(const struct ht_axis *a, double x, char *buf, size_t n)
{
    if (strcmp(a->path, "load_scale") == 0) {
        snprintf(buf, n, "×%.3g", x);
        return;
    }
    if (!a->numeric) {
        for (int k = 0; k < a->n; k++)
            if (a->x[k] == x) {
                snprintf(buf, n, "%s", a->text[k]);
                return;
            }
    }
    /* The unit from the label's parentheses. */
    const char *u = strrchr(a->label, '(');
    char unit[64] = "";
    if (u) {
        snprintf(unit, sizeof unit, "%s", u + 1);
        char *close = strchr(unit, ')');
        if (close)
            *close = '\0';
    }
    snprintf(buf, n, "%.3g%s%s", x, unit[0] ? " " : "", unit);
}

/* ---- loading ---------------------------------------------------------------------------- */

int ht_load(const char *path, cJSON **doc, char *err, size_t errlen)
{
    char *text;
    size_t len;
    *doc = NULL;
    if (ss_read_file(path, 256u << 20, &text, &len, err, errlen))
        return -1;
    struct jv j = {path, err, errlen};
    cJSON *root = jv_parse(&j, text, len);
    free(text);
    if (!root)
        return -1;
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "cluster")) && !rd_strategies(root)) {
        *doc = root;
        return 0;
    }
    cJSON_Delete(root);
    return rd_load(path, doc, err, errlen);
}
