/*
 * run (core/run.c): replications of every strategy, their 95% confidence intervals
 * and the CI fields of the result document.
 */
#include "core/run.h"
#include "core/scenario.h"
#include "report/report.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_replications_ci(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture("run/replications.json"), &sc, &r);
    double mean = r.s[0].t[TM_LAT_MEAN], ci = r.s[0].t_ci[TM_LAT_MEAN];
    CU_ASSERT(ci > 0 && ci < 0.1 * mean);
    /* M/M/1 at ρ = 0.5: E[T] = 2 ms; the CI should cover it (95 %; this seed does). */
    CU_ASSERT(fabs(mean - 2e-3) <= ci * 1.5);
    /* P(T > 5 ms) = e^{-500·0.005} = e^{-2.5}: attainment ≈ 0.918. */
    TU_CHECK_CLOSE_REL(r.s[0].t[TM_SLA_ATTAINMENT], 1 - exp(-2.5), 0.01);
    cJSON *j = rep_json(&sc, &r);
    const cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "strategies"), 0);
    const cJSON *t0 = cJSON_GetArrayItem(cJSON_GetObjectItem(st, "tenants"), 0);
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(t0, "latency_ms_ci95"));
    CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItem(st, "gpu_utilization_ci95"));
    cJSON_Delete(j);
    run_result_free(&r);
    scn_free(&sc);
}

/* A trace of n requests from t0: exponential gaps at rate_per_s and, with mean_ms > 0,
 * exponential work; otherwise token counts (an LLM trace). Its own fixed generator (a 64-bit
 * LCG), so the same rows whatever the offset. */
static void write_trace(const char *name, double t0, double rate_per_s, double mean_ms, int n,
                        unsigned long long seed)
{
    size_t cap = (size_t)n * 48 + 64, len = 0;
    char *buf = ss_xmalloc(cap);
    len += (size_t)snprintf(
        buf, cap, mean_ms > 0 ? "time_s,work_ms\n" : "time_s,input_tokens,output_tokens\n");
    double t = t0;
    for (int i = 0; i < n; i++) {
        double u[3];
        for (int k = 0; k < 3; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            u[k] = ((double)(seed >> 11) + 0.5) / 9007199254740992.0;
        }
        t += -log(u[0]) / rate_per_s;
        if (mean_ms > 0)
            len += (size_t)snprintf(buf + len, cap - len, "%.6f,%.4f\n", t, -log(u[1]) * mean_ms);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%.6f,%d,%d\n", t, 50 + (int)(u[1] * 350),
                                    10 + (int)(u[2] * 90));
    }
    tu_write(name, buf);
    free(buf);
}

/* The results of scenario rel (tests/fixtures/run/) with its traces written from t0. */
static cJSON *run_at(const char *rel, double t0, int scale)
{
    write_trace("horizon-a.csv", t0, 40, 8, 2000 / scale, 1);
    write_trace("horizon-b.csv", t0, 100, 1.5, 5000 / scale, 2);
    write_trace("horizon-c.csv", t0, 20, 6, 1000 / scale, 3);
    write_trace("horizon-l.csv", t0, 2, 0, 100 / scale, 4);
    char name[64];
    snprintf(name, sizeof name, "at-%s", strrchr(rel, '/') + 1);
    struct scenario sc;
    struct run_result r;
    tu_run_file(tu_fixture_write(name, rel, NULL), &sc, &r);
    cJSON *j = rep_json(&sc, &r);
    run_result_free(&r);
    scn_free(&sc);
    return j;
}

/*
 * Every strategy kind, plain tenants and an LLM service, with the same traces moved from
 * t0 = 100 s to t0 = 10^6 s: the clock's periodic timers (time slices, vGPU turns, fractional
 * windows, MIG, MPS) are counted from integers, so nothing stalls late in a run, requests are
 * conserved and the latencies agree (to 10^-3: at 10^6 s a double resolves 1.2e-10 s, and
 * schedules that tie within rounding may order two events the other way).
 */
static void test_late_start(void)
{
    static const char *const rels[] = {"run/horizon.json", "run/horizon-llm.json"};
    int scale = tu_under_valgrind() ? 10 : 1;
    for (int f = 0; f < 2; f++) {
        cJSON *early = run_at(rels[f], 100, scale), *late = run_at(rels[f], 1e6, scale);
        const cJSON *se = cJSON_GetObjectItem(early, "strategies"),
                    *sl = cJSON_GetObjectItem(late, "strategies");
        CU_ASSERT_EQUAL(cJSON_GetArraySize(se), cJSON_GetArraySize(sl));
        for (int s = 0; s < cJSON_GetArraySize(se); s++) {
            const cJSON *te = cJSON_GetObjectItem(cJSON_GetArrayItem(se, s), "tenants"),
                        *tl = cJSON_GetObjectItem(cJSON_GetArrayItem(sl, s), "tenants");
            for (int i = 0; i < cJSON_GetArraySize(te); i++) {
                const cJSON *a = cJSON_GetArrayItem(te, i), *b = cJSON_GetArrayItem(tl, i);
                static const char *const counts[] = {"arrived", "completed", "rejected", "failed"};
                for (int k = 0; k < 4; k++)
                    CU_ASSERT_EQUAL(tu_json_num(a, counts[k]), tu_json_num(b, counts[k]));
                CU_ASSERT_EQUAL(tu_json_num(b, "arrived"), tu_json_num(b, "completed"));
                static const char *const lat[] = {"latency_ms.mean", "latency_ms.p50",
                                                  "latency_ms.p99"};
                for (int k = 0; k < 3; k++)
                    TU_CHECK_CLOSE_REL(tu_json_num(b, lat[k]), tu_json_num(a, lat[k]), 1e-3);
            }
        }
        cJSON_Delete(early);
        cJSON_Delete(late);
    }
}

void test_run_register(void)
{
    static const struct tu_test t[] = {
        {"replications give 95% confidence intervals", test_replications_ci},
        {"every strategy from t0 = 10^6 s: conserved, the same latencies as from 100 s",
         test_late_start},
        {NULL, NULL},
    };
    tu_add_suite("run", t);
}
