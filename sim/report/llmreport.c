/*
 * llmreport — LLM figures in the table, JSON and CSV (llmreport.h).
 */
#include "report/llmreport.h"

#include "base/util.h"
#include "calib/kcurve.h"
#include "llm/serving.h"

#include "base/jsonv.h"
#include "report/report.h"
#include "core/llmstats.h"

#include <math.h>
#include <string.h>

/* "step_model": which model times the tenant's steps, and which of their parts come from the
 * GPU's measured kernel tables and which from their roofline (docs/llm.md#step-time). */
static void add_step_model(cJSON *o, const struct scenario *sc, const struct tenant_cfg *tc)
{
    static const struct {
        int bit;
        const char *name;
    } parts[] = {{STM_PATH_GEMM, "linear layers"},
                 {STM_PATH_ATTN, "attention"},
                 {STM_PATH_SMALL, "small kernels"}};
    const struct lsv_cfg *l = tc->llm;
    cJSON *sm = cJSON_AddObjectToObject(o, "step_model");
    cJSON_AddStringToObject(sm, "model", stm_kind_names[l->etm.kind]);
    if (l->etm.kind != STM_ENGINE)
        return;
    const struct kc_gpu *kc = NULL;
    char err[SS_ERRLEN];
    if (kc_get(sc->gpu.path, &kc, err, sizeof err))
        kc = NULL; /* the scenario's load read it: not reached */
    int table, roof;
    etm_step_paths(&l->etm, &l->model, l->dtype, l->kv_dtype, &sc->gpu.roof, sc->gpu.hbm_bw_gbps,
                   kc, &table, &roof);
    cJSON *mt = cJSON_AddArrayToObject(sm, "measured");
    cJSON *rf = cJSON_AddArrayToObject(sm, "roofline");
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        if (table & parts[k].bit)
            cJSON_AddItemToArray(mt, cJSON_CreateString(parts[k].name));
        if (roof & parts[k].bit)
            cJSON_AddItemToArray(rf, cJSON_CreateString(parts[k].name));
    }
}

void lrep_json(cJSON *t, const struct scenario *sc, const struct strategy_result *s, int i,
               int with_ci)
{
    if (!s->llm || !sc->tenants[i].llm)
        return;
    /* The figures of the metric table (core/metric.h) at their "llm.…" paths. */
    rep_json_level(t, MT_LLM, s, i, 0, with_ci);
    if (with_ci)
        rep_json_level(t, MT_LLM, s, i, 1, 1);
    cJSON *o = cJSON_GetObjectItemCaseSensitive(t, "llm");
    add_step_model(o, sc, &sc->tenants[i]);
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
    const double *v = s->llm + (size_t)i * LM_N;
    static const struct {
        int at;
        double scale;
        const char *fmt;
    } cell[7] = {{LM_TTFT_P50, 1e3, "%.1f"}, {LM_TTFT_P99, 1e3, "%.1f"}, {LM_TPOT_P50, 1e3, "%.1f"},
                 {LM_TPOT_P99, 1e3, "%.1f"}, {LM_ITL_P99, 1e3, "%.1f"},  {LM_OUTPUT_TPS, 1, "%.0f"},
                 {LM_KV_UTIL, 100, "%.1f%%"}};
    char c[7][32];
    for (int k = 0; k < 7; k++)
        fmt_num(c[k], sizeof c[k], cell[k].fmt, v[cell[k].at] * cell[k].scale);
    fprintf(fp,
            "%*s   llm: TTFT p50 %s p99 %s ms, TPOT p50 %s p99 %s ms, ITL p99 %s ms, %s "
            "tokens/s, %.0f preemptions, KV %s\n",
            indent, "", c[0], c[1], c[2], c[3], c[4], c[5], v[LM_PREEMPTIONS], c[6]);
}
