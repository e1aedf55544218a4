/*
 * llmreport — LLM figures in the table, JSON and CSV (llmreport.h).
 */
#include "report/llmreport.h"

#include "base/jsonv.h"
#include "core/llmstats.h"

#include <math.h>
#include <string.h>

/* The TTFT, TPOT and ITL figures are times: seconds inside, milliseconds outside. */
static int is_time(int k)
{
    return k <= LM_ITL_P99;
}

static double out(int k, double v)
{
    return is_time(k) ? v * 1e3 : v;
}

static const double *row(const double *base, int i)
{
    return base + (size_t)i * LM_N;
}

static void add_group(cJSON *o, const char *name, const double *v, int k0)
{
    static const char *const stat[4] = {"mean", "p50", "p95", "p99"};
    cJSON *g = cJSON_AddObjectToObject(o, name);
    for (int k = 0; k < 4; k++)
        jv_out_add(g, stat[k], out(k0 + k, v[k0 + k]));
}

static void add_all(cJSON *o, const double *v, const char *suffix)
{
    char key[64];
    static const char *const groups[3] = {"ttft_ms", "tpot_ms", "itl_ms"};
    for (int g = 0; g < 3; g++) {
        snprintf(key, sizeof key, "%s%s", groups[g], suffix);
        add_group(o, key, v, 4 * g);
    }
    for (int k = LM_OUTPUT_TPS; k < LM_N; k++) {
        snprintf(key, sizeof key, "%s%s", lm_names[k], suffix);
        jv_out_add(o, key, v[k]);
    }
}

void lrep_json(cJSON *t, const struct scenario *sc, const struct strategy_result *s, int i,
               int with_ci)
{
    if (!s->llm || !sc->tenants[i].llm)
        return;
    cJSON *o = cJSON_AddObjectToObject(t, "llm");
    add_all(o, row(s->llm, i), "");
    if (with_ci)
        add_all(o, row(s->llm_ci, i), "_ci95");
    /* As a tenant's tail_samples: how many measured samples lie beyond each percentile's rank
     * (of all replications together); under TAIL_MIN_SAMPLES it rests on a handful. */
    if (s->llm_tail) {
        static const char *const name[LM_TAIL_N] = {"ttft_p50", "ttft_p95", "ttft_p99",
                                                    "tpot_p50", "tpot_p95", "tpot_p99",
                                                    "itl_p50",  "itl_p95",  "itl_p99"};
        cJSON *tl = cJSON_AddObjectToObject(o, "tail_samples");
        for (int k = 0; k < LM_TAIL_N; k++)
            cJSON_AddNumberToObject(tl, name[k], s->llm_tail[(size_t)i * LM_TAIL_N + k]);
    }
}

static void csv_num(FILE *fp, double x)
{
    if (isfinite(x))
        fprintf(fp, ",%.6g", x == 0 ? 0 : x);
    else
        fputc(',', fp);
}

void lrep_csv_head(FILE *fp, const struct strategy_result *s)
{
    if (!s || !s->llm)
        return;
    for (int k = 0; k < LM_N; k++) {
        const char *n = lm_names[k];
        const char *us = strchr(n, '_');
        if (is_time(k)) /* "ttft_mean" → "ttft_ms_mean" */
            fprintf(fp, ",%.*s_ms%s", (int)(us - n), n, us);
        else
            fprintf(fp, ",%s", n);
    }
}

void lrep_csv_row(FILE *fp, const struct strategy_result *s, int i)
{
    if (!s->llm)
        return;
    const double *v = row(s->llm, i);
    for (int k = 0; k < LM_N; k++)
        csv_num(fp, out(k, v[k]));
}

static void fmt_ms(char *buf, size_t n, double s)
{
    if (isfinite(s))
        snprintf(buf, n, "%.1f", s * 1e3);
    else
        snprintf(buf, n, "-");
}

/* A figure of the table with its format, "-" where there is none (a zero-length measurement
 * window, as when every request arrives at one instant, has no rate and no time mean). */
static void fmt_num(char *buf, size_t n, const char *fmt, double x)
{
    if (isfinite(x))
        snprintf(buf, n, fmt, x);
    else
        snprintf(buf, n, "-");
}

void lrep_table_line(FILE *fp, const struct scenario *sc, const struct strategy_result *s, int i,
                     int indent)
{
    if (!s->llm || !sc->tenants[i].llm)
        return;
    const double *v = row(s->llm, i);
    char a[32], b[32], c[32], d[32], e[32], tps[32], kv[32];
    fmt_ms(a, sizeof a, v[LM_TTFT_P50]);
    fmt_ms(b, sizeof b, v[LM_TTFT_P99]);
    fmt_ms(c, sizeof c, v[LM_TPOT_P50]);
    fmt_ms(d, sizeof d, v[LM_TPOT_P99]);
    fmt_ms(e, sizeof e, v[LM_ITL_P99]);
    fmt_num(tps, sizeof tps, "%.0f", v[LM_OUTPUT_TPS]);
    fmt_num(kv, sizeof kv, "%.1f%%", v[LM_KV_UTIL] * 100);
    fprintf(fp,
            "%*s   llm: TTFT p50 %s p99 %s ms, TPOT p50 %s p99 %s ms, ITL p99 %s ms, %s "
            "tokens/s, %.0f preemptions, KV %s\n",
            indent, "", a, b, c, d, e, tps, v[LM_PREEMPTIONS], kv);
}
