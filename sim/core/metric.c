/*
 * metric — the table of result fields (metric.h). One entry per figure; the order within a
 * level is the JSON document's, `col` the display tables'.
 */
#include "core/metric.h"
#include "core/llmstats.h"
#include "core/verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A tenant's request count: an integer in the CSV, a count in JSON. */
#define COUNT(ix, key)                                                                             \
    .level = MT_TENANT, .index = ix, .path = key, .ci_path = key "_ci95", .csv = key,              \
    .unit = "requests", .out_scale = 1, .json = MT_J_COUNT, .csv_int = 1, .tail = -1
/* A tenant's latency figure: seconds inside, ms in JSON, "group.stat" in JSON. */
#define LATENCY(ix, group, stat)                                                                   \
    .level = MT_TENANT, .index = ix, .path = group "_ms." stat, .ci_path = group "_ms_ci95." stat, \
    .csv = group "_ms_" stat, .unit = "ms", .out_scale = 1e3, .better = -1
#define TEN(ix, key)                                                                               \
    .level = MT_TENANT, .index = ix, .path = key, .ci_path = key "_ci95", .csv = key,              \
    .out_scale = 1, .tail = -1
#define STRAT(ix, key)                                                                             \
    .level = MT_STRATEGY, .index = ix, .path = key, .ci_path = key "_ci95", .csv = key,            \
    .out_scale = 1, .tail = -1
/* An LLM token time: "llm.<group>_ms.<stat>", its CSV column "<group>_ms_<stat>". */
#define LLM_MS(ix, group, stat)                                                                    \
    .level = MT_LLM, .index = ix, .path = "llm." group "_ms." stat,                                \
    .ci_path = "llm." group "_ms_ci95." stat, .csv = group "_ms_" stat, .unit = "ms",              \
    .out_scale = 1e3, .tail = -1, .better = -1
#define LLM(ix, key)                                                                               \
    .level = MT_LLM, .index = ix, .path = "llm." key, .ci_path = "llm." key "_ci95", .csv = key,   \
    .out_scale = 1, .tail = -1
/* A display column: rank, text heading, width and formats, Markdown and HTML headings, the
 * shown scale and the Markdown/HTML format. */
#define SHOW(rank, th, tw, tf, tci, mh, hh, sc, df)                                                \
    .col = rank, .text_head = th, .text_min = tw, .text_fmt = tf, .text_ci_fmt = tci,              \
    .md_head = mh, .html_head = hh, .show_scale = sc, .doc_fmt = df
/* A column of `compare`: rank, key, heading, format, width. */
#define CMP(rank, key, head, f, w)                                                                 \
    .cmp = rank, .cmp_key = key, .cmp_head = head, .cmp_fmt = f, .cmp_width = w
#define DOC(rank, h, sc, df)                                                                       \
    .col = rank, .md_head = h, .html_head = h, .show_scale = sc, .doc_fmt = df

static double gpus_used(const struct strategy_result *s, int tenant, int ci)
{
    (void)tenant;
    return ci ? NAN : s->gpus_used;
}

static const struct mt_metric builtin[] = {
    /* ---- a tenant's figures ---- */
    {COUNT(TM_ARRIVED, "arrived")},
    {COUNT(TM_COMPLETED, "completed"), .better = 1,
     SHOW(1, "done", 9, "%.0f", NULL, "done", "done", 1, "%.0f")},
    {COUNT(TM_REJECTED, "rejected"), .better = -1,
     SHOW(11, "rejected", 8, "%.0f", NULL, "rejected", "rejected", 1, "%.0f")},
    {COUNT(TM_FAILED, "failed"), .better = -1,
     SHOW(10, "fail", 6, "%.0f", NULL, "failed", "failed", 1, "%.0f")},
    {COUNT(TM_IN_FLIGHT, "in_flight")},
    {TEN(TM_THROUGHPUT, "throughput_per_s"), .unit = "req/s", .better = 1,
     CMP(2, "throughput_per_s", "thr/s", "%.1f", 11),
     SHOW(2, "thr/s", 9, "%.1f", "±%.1f", "thr/s", "thr/s", 1, "%.1f")},
    {LATENCY(TM_LAT_MEAN, "latency", "mean"), .range = 1, .tail = -1,
     SHOW(3, "mean_ms", 8, "%.3f", "±%.3f", "mean ms", "mean ms", 1, "%.2f")},
    {LATENCY(TM_LAT_P50, "latency", "p50"), .range = 1, .tail = TAIL_P50,
     SHOW(4, "p50_ms", 8, "%.3f", NULL, "p50 ms", "p50 ms", 1, "%.2f")},
    {LATENCY(TM_LAT_P95, "latency", "p95"), .range = 1, .tail = TAIL_P95,
     SHOW(5, "p95_ms", 8, "%.3f", NULL, "p95 ms", "p95 ms", 1, "%.2f")},
    {LATENCY(TM_LAT_P99, "latency", "p99"), .range = 1, .tail = TAIL_P99,
     CMP(1, "p99_ms", "p99_ms", "%.3f", 11),
     SHOW(6, "p99_ms", 8, "%.3f", "±%.3f", "p99 ms", "p99 ms", 1, "%.2f")},
    {LATENCY(TM_LAT_P999, "latency", "p999"), .range = 1, .tail = TAIL_P999,
     SHOW(7, "p999_ms", 8, "%.3f", NULL, "p99.9 ms", "p99.9 ms", 1, "%.2f")},
    {LATENCY(TM_WAIT_MEAN, "wait", "mean"), .tail = -1},
    /* Its CSV column was added after the tenant's others: it stays last among them. */
    {.level = MT_TENANT,
     .index = TM_WORK_MEAN,
     .path = "work_ms.mean",
     .csv = "work_ms_mean",
     .unit = "ms",
     .out_scale = 1e3,
     .csv_last = 1,
     .tail = -1},
    {TEN(TM_SLA_ATTAINMENT, "sla_attainment"), .unit = "fraction", .better = 1,
     CMP(3, "sla_attainment", "SLA%", "%.1f", 9), .shown = vd_attainment,
     SHOW(8, "SLA%", 6, "%.1f", NULL, "SLA %", "within SLA %", 100, "%.1f"), .sla_key = "p99_ms",
     .html_sla_head = "SLA p99 ms"},
    {TEN(TM_SLOWDOWN_P99, "slowdown_p99"), .better = -1,
     SHOW(9, "slow", 6, "%.2f", NULL, "p99 slowdown", "p99 slowdown", 1, "%.2f")},
    {TEN(TM_AVAILABILITY, "availability"), .unit = "fraction", .better = 1},

    /* ---- a strategy's figures ---- */
    {STRAT(SM_UTIL, "gpu_utilization"), .unit = "fraction", DOC(2, "GPU util %", 100, "%.1f")},
    {STRAT(SM_SWITCH, "switch_overhead"), .unit = "fraction", .better = -1,
     DOC(3, "switching %", 100, "%.2f")},
    {STRAT(SM_FRAGMENTATION, "fragmentation"), .unit = "fraction", .better = -1,
     DOC(4, "fragmentation %", 100, "%.1f")},
    {STRAT(SM_COST_PER_HOUR, "cost_per_hour_usd"), .unit = "$/h", .better = -1,
     DOC(7, "$/h", 1, "%.2f")},
    {STRAT(SM_COST_PER_MREQ, "cost_per_million_requests_usd"), .unit = "$", .better = -1,
     CMP(5, "cost_per_million_requests_usd", "$/Mreq", "%.3f", 11), .cmp_meeting = 1,
     DOC(8, "$ per M requests", 1, "%.3f")},
    /* "total_" keeps the strategy's throughput apart from its tenants' in a CSV row. */
    {.level = MT_STRATEGY,
     .index = SM_THROUGHPUT,
     .path = "throughput_per_s",
     .ci_path = "throughput_per_s_ci95",
     .csv = "total_throughput_per_s",
     .unit = "req/s",
     .out_scale = 1,
     .tail = -1,
     .better = 1,
     DOC(5, "thr/s", 1, "%.1f")},
    {STRAT(SM_FAIRNESS, "fairness"), .better = 1, DOC(6, "fairness", 1, "%.3f")},
    {.level = MT_STRATEGY,
     .index = SM_EVENTS,
     .path = "events",
     .csv = "events",
     .unit = "events",
     .out_scale = 1,
     .json = MT_J_INT,
     .tail = -1},
    {.level = MT_STRATEGY,
     .index = MT_SM_GPUS_USED,
     .path = "gpus_used",
     .unit = "GPUs",
     .out_scale = 1,
     .json = MT_J_INT,
     .tail = -1,
     .better = -1,
     .get = gpus_used,
     DOC(1, "GPUs used", 1, "%.0f")},

    /* ---- an LLM tenant's token figures (docs/llm.md#results) ---- */
    {LLM_MS(LM_TTFT_MEAN, "ttft", "mean")},
    {LLM_MS(LM_TTFT_P50, "ttft", "p50"), DOC(1, "TTFT p50 ms", 1, "%.1f")},
    {LLM_MS(LM_TTFT_P95, "ttft", "p95")},
    {LLM_MS(LM_TTFT_P99, "ttft", "p99"), DOC(2, "TTFT p99 ms", 1, "%.1f"),
     CMP(6, "ttft_p99_ms", "TTFT_p99", "%.1f", 10)},
    {LLM_MS(LM_TPOT_MEAN, "tpot", "mean")},
    {LLM_MS(LM_TPOT_P50, "tpot", "p50"), DOC(4, "TPOT p50 ms", 1, "%.1f")},
    {LLM_MS(LM_TPOT_P95, "tpot", "p95")},
    {LLM_MS(LM_TPOT_P99, "tpot", "p99"), DOC(5, "TPOT p99 ms", 1, "%.1f"),
     CMP(7, "tpot_p99_ms", "TPOT_p99", "%.2f", 10)},
    {LLM_MS(LM_ITL_MEAN, "itl", "mean")},
    {LLM_MS(LM_ITL_P50, "itl", "p50")},
    {LLM_MS(LM_ITL_P95, "itl", "p95")},
    {LLM_MS(LM_ITL_P99, "itl", "p99"), DOC(7, "ITL p99 ms", 1, "%.1f")},
    {LLM(LM_OUTPUT_TPS, "output_tokens_per_s"), .unit = "tokens/s", .better = 1,
     DOC(8, "tokens/s", 1, "%.1f"), CMP(8, "output_tokens_per_s", "tok/s", "%.0f", 9)},
    {LLM(LM_PREEMPTIONS, "preemptions"), .unit = "preemptions", .better = -1,
     DOC(10, "preemptions", 1, "%.0f")},
    {LLM(LM_KV_UTIL, "kv_utilization"), .unit = "fraction", DOC(11, "KV %", 100, "%.1f")},
    {LLM(LM_TTFT_SLA, "ttft_sla_attainment"), .unit = "fraction", .better = 1,
     SHOW(3, NULL, 0, NULL, NULL, "TTFT SLA %", "within TTFT SLA %", 100, "%.1f"),
     .sla_key = "ttft_p99_ms", .html_sla_head = "SLA TTFT p99 ms"},
    {LLM(LM_TPOT_SLA, "tpot_sla_attainment"), .unit = "fraction", .better = 1,
     SHOW(6, NULL, 0, NULL, NULL, "TPOT SLA %", "within TPOT SLA %", 100, "%.1f"),
     .sla_key = "tpot_p99_ms", .html_sla_head = "SLA TPOT p99 ms"},
    {LLM(LM_GOODPUT, "goodput_per_s"), .unit = "req/s", .better = 1, DOC(9, "goodput/s", 1, "%.3f"),
     CMP(9, "goodput_per_s", "good/s", "%.2f", 9)},
};
#define N_BUILTIN ((int)(sizeof builtin / sizeof builtin[0]))

/* Test-only additions (mt_register_extra); empty in every run of the program. */
static struct mt_metric extra[MT_EXTRA_MAX];
static int n_extra;

int mt_count(void)
{
    return N_BUILTIN + n_extra;
}

const struct mt_metric *mt_at(int k)
{
    return k < N_BUILTIN ? &builtin[k] : &extra[k - N_BUILTIN];
}

int mt_register_extra(const struct mt_metric *m)
{
    if (n_extra == MT_EXTRA_MAX)
        return -1;
    extra[n_extra++] = *m;
    return 0;
}

void mt_clear_extra(void)
{
    n_extra = 0;
}

/* Where each level keeps its figures in a strategy_result (core/run.h): a tenant's and an LLM
 * tenant's per tenant, a strategy's once; NULL where the result has none. */
static const double *tenant_vec(const struct strategy_result *s, int i, int ci)
{
    return (ci ? s->t_ci : s->t) + (size_t)i * TM_N;
}

static const double *strategy_vec(const struct strategy_result *s, int i, int ci)
{
    (void)i;
    return ci ? s->m_ci : s->m;
}

static const double *llm_vec(const struct strategy_result *s, int i, int ci)
{
    const double *v = ci ? s->llm_ci : s->llm;
    return v ? v + (size_t)i * LM_N : NULL;
}

static const double *(*const vec_of[MT_LEVELS])(const struct strategy_result *, int, int) = {
    [MT_TENANT] = tenant_vec, [MT_STRATEGY] = strategy_vec, [MT_LLM] = llm_vec};

double mt_value(const struct mt_metric *m, const struct strategy_result *s, int i, int ci)
{
    if (m->get)
        return m->get(s, i, ci);
    const double *v = vec_of[m->level](s, i, ci);
    return v ? v[m->index] : NAN;
}

double mt_shown(const struct mt_metric *m, const struct scenario *sc,
                const struct strategy_result *s, int i)
{
    return m->shown ? m->shown(sc, s, i) : mt_value(m, s, i, 0);
}

/* The item at a dotted path of obj, or NULL. */
static const cJSON *item_at(const cJSON *obj, const char *path)
{
    const char *dot;
    while (obj && (dot = strchr(path, '.'))) {
        char head[64];
        snprintf(head, sizeof head, "%.*s", (int)(dot - path), path);
        obj = cJSON_GetObjectItemCaseSensitive(obj, head);
        path = dot + 1;
    }
    return obj ? cJSON_GetObjectItemCaseSensitive(obj, path) : NULL;
}

double mt_path_num(const cJSON *obj, const char *path)
{
    const cJSON *v = item_at(obj, path);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

double mt_doc(const struct mt_metric *m, const cJSON *obj, int ci)
{
    const char *p = ci ? m->ci_path : m->path;
    return p ? mt_path_num(obj, p) : NAN;
}

cJSON *mt_path_parent(cJSON *obj, const char *path, const char **leaf)
{
    const char *dot;
    while ((dot = strchr(path, '.'))) {
        char head[64];
        snprintf(head, sizeof head, "%.*s", (int)(dot - path), path);
        cJSON *sub = cJSON_GetObjectItemCaseSensitive(obj, head);
        obj = sub ? sub : cJSON_AddObjectToObject(obj, head);
        path = dot + 1;
    }
    *leaf = path;
    return obj;
}

const struct mt_metric *mt_find(enum mt_level level, const char *path)
{
    for (int k = 0; k < mt_count(); k++)
        if (mt_at(k)->level == level && strcmp(mt_at(k)->path, path) == 0)
            return mt_at(k);
    return NULL;
}

const char *mt_head(const struct mt_metric *m, enum mt_view view)
{
    const char *const head[] = {m->text_head, m->md_head, m->html_head, m->cmp_head};
    return head[view];
}

int mt_columns(enum mt_level level, enum mt_view view, const struct mt_metric **out)
{
    int n = 0;
    for (int k = 0; k < mt_count(); k++) {
        const struct mt_metric *m = mt_at(k);
        int rank = view == MT_CMP ? m->cmp : m->col;
        if ((level != MT_LEVELS && m->level != level) || rank <= 0 || !mt_head(m, view) ||
            n == MT_COLS_MAX)
            continue;
        int j = n++; /* insertion by rank: the tables have a dozen columns */
        while (j > 0 && (view == MT_CMP ? out[j - 1]->cmp : out[j - 1]->col) > rank) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = m;
    }
    return n;
}

const struct mt_metric *mt_of(enum mt_level level, int index)
{
    for (int k = 0; k < mt_count(); k++)
        if (mt_at(k)->level == level && mt_at(k)->index == index)
            return mt_at(k);
    return NULL;
}

double mt_doc_inside(const struct mt_metric *m, const cJSON *obj)
{
    double v = mt_doc(m, obj, 0);
    char flag[96];
    snprintf(flag, sizeof flag, "%s_beyond_range", m->path);
    if (isnan(v) && cJSON_IsTrue(item_at(obj, flag)))
        return INFINITY;
    return v / m->out_scale;
}

void mt_doc_text(const struct mt_metric *m, const cJSON *obj, const char *fmt, char *buf, size_t n)
{
    double v = mt_doc(m, obj, 0);
    char flag[96];
    snprintf(flag, sizeof flag, "%s_beyond_range", m->path);
    if (isfinite(v))
        snprintf(buf, n, fmt, v);
    else if (m->range && cJSON_IsTrue(item_at(obj, flag)))
        snprintf(buf, n, ">=24 days");
    else
        snprintf(buf, n, "-");
}

int mt_better(const struct mt_metric *m, double a, double b)
{
    if (!isfinite(a))
        return 0;
    if (!isfinite(b))
        return 1;
    return m->better > 0 ? a > b : a < b;
}
