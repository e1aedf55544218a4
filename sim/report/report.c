/*
 * report — see report.h. Latencies are seconds inside and milliseconds outside
 * (the JSON boundary converts, docs/development.md).
 */
#include "base/jsonv.h"
#include "report/report.h"
#include "base/util.h"

#include <math.h>
#include <string.h>

static int is_latency(int k)
{
    return k == TM_LAT_MEAN || k == TM_LAT_P50 || k == TM_LAT_P95 || k == TM_LAT_P99 ||
           k == TM_LAT_P999 || k == TM_WAIT_MEAN || k == TM_WORK_MEAN;
}

static int is_count(int k)
{
    return k <= TM_IN_FLIGHT;
}

static void add_count(cJSON *obj, const char *key, double x)
{
    char buf[64];
    if (!isfinite(x)) {
        cJSON_AddItemToObject(obj, key, cJSON_CreateNull());
        return;
    }
    snprintf(buf, sizeof buf, "%.0f", x);
    cJSON_AddItemToObject(obj, key, cJSON_CreateRaw(buf));
}

static double out_value(int k, double v)
{
    return is_latency(k) ? v * 1e3 : v;
}

static cJSON *tenant_json(const struct strategy_result *s, int i, const struct tenant_cfg *tc,
                          int with_ci)
{
    cJSON *t = cJSON_CreateObject();
    const double *v = s->t + (size_t)i * TM_N;
    const double *ci = s->t_ci + (size_t)i * TM_N;
    cJSON_AddStringToObject(t, "name", tc->name);
    for (int k = 0; k <= TM_IN_FLIGHT; k++)
        with_ci ? jv_out_add(t, tm_names[k], v[k]) : add_count(t, tm_names[k], v[k]);
    jv_out_add(t, "throughput_per_s", v[TM_THROUGHPUT]);
    cJSON *lat = cJSON_AddObjectToObject(t, "latency_ms");
    for (int k = TM_LAT_MEAN; k <= TM_LAT_P999; k++)
        jv_out_add(lat, tm_names[k], out_value(k, v[k]));
    cJSON *w = cJSON_AddObjectToObject(t, "wait_ms");
    jv_out_add(w, "mean", out_value(TM_WAIT_MEAN, v[TM_WAIT_MEAN]));
    cJSON *wk = cJSON_AddObjectToObject(t, "work_ms");
    jv_out_add(wk, "mean", out_value(TM_WORK_MEAN, v[TM_WORK_MEAN]));
    jv_out_add(t, "sla_attainment", v[TM_SLA_ATTAINMENT]);
    jv_out_add(t, "slowdown_p99", v[TM_SLOWDOWN_P99]);
    jv_out_add(t, "availability", v[TM_AVAILABILITY]);
    if (with_ci) {
        char key[64];
        for (int k = 0; k <= TM_THROUGHPUT; k++) {
            snprintf(key, sizeof key, "%s_ci95", tm_names[k]);
            jv_out_add(t, key, ci[k]);
        }
        cJSON *lc = cJSON_AddObjectToObject(t, "latency_ms_ci95");
        for (int k = TM_LAT_MEAN; k <= TM_LAT_P999; k++)
            jv_out_add(lc, tm_names[k], out_value(k, ci[k]));
        cJSON *wc = cJSON_AddObjectToObject(t, "wait_ms_ci95");
        jv_out_add(wc, "mean", out_value(TM_WAIT_MEAN, ci[TM_WAIT_MEAN]));
        jv_out_add(t, "sla_attainment_ci95", ci[TM_SLA_ATTAINMENT]);
        jv_out_add(t, "slowdown_p99_ci95", ci[TM_SLOWDOWN_P99]);
        jv_out_add(t, "availability_ci95", ci[TM_AVAILABILITY]);
    }
    return t;
}

cJSON *rep_json(const struct scenario *sc, const struct run_result *r)
{
    cJSON *root = cJSON_CreateObject();
    int with_ci = r->replications > 1;
    cJSON_AddStringToObject(root, "scenario", sc->name);
    add_count(root, "seed", (double)r->seed);
    cJSON_AddStringToObject(root, "version", SHARESIM_VERSION);
    cJSON_AddStringToObject(root, "gpu", sc->gpu.name);
    add_count(root, "gpus", sc->gpus);
    add_count(root, "replications", r->replications);
    cJSON *arr = cJSON_AddArrayToObject(root, "strategies");
    for (int k = 0; k < r->n; k++) {
        const struct strategy_result *s = &r->s[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", s->name);
        cJSON_AddStringToObject(o, "kind", s->kind);
        for (int m = 0; m < SM_N; m++) {
            if (m == SM_EVENTS)
                add_count(o, "events", s->m[m]);
            else
                jv_out_add(o, sm_names[m], s->m[m]);
            if (with_ci && m != SM_EVENTS) {
                char key[80];
                snprintf(key, sizeof key, "%s_ci95", sm_names[m]);
                jv_out_add(o, key, s->m_ci[m]);
            }
        }
        add_count(o, "gpus_used", s->gpus_used);
        if (s->licensed_vgpus)
            add_count(o, "licensed_vgpus", s->licensed_vgpus);
        cJSON *ts = cJSON_AddArrayToObject(o, "tenants");
        for (int i = 0; i < s->n_tenants; i++)
            cJSON_AddItemToArray(ts, tenant_json(s, i, &sc->tenants[i], with_ci));
        if (s->details)
            cJSON_AddItemToObject(o, "details", cJSON_Duplicate(s->details, 1));
        cJSON_AddItemToArray(arr, o);
    }
    return root;
}

static void fmt(char *buf, size_t n, double x, const char *f)
{
    if (!isfinite(x))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, f, x);
}

void rep_table(FILE *fp, const struct scenario *sc, const struct run_result *r)
{
    fprintf(fp, "scenario %s: %d × %s, seed %lu, %d replication%s\n\n", sc->name, sc->gpus,
            sc->gpu.name, r->seed, r->replications, r->replications > 1 ? "s (mean ± 95% CI)" : "");
    fprintf(fp, "%-12s %-12s %9s %9s %8s %8s %8s %8s %8s %6s %6s %6s %8s\n", "strategy", "tenant",
            "done", "thr/s", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "p999_ms", "SLA%", "slow",
            "fail", "rejected");
    for (int k = 0; k < r->n; k++) {
        const struct strategy_result *s = &r->s[k];
        for (int i = 0; i < s->n_tenants; i++) {
            const double *v = s->t + (size_t)i * TM_N;
            char c[9][32];
            fmt(c[0], 32, v[TM_COMPLETED], "%.0f");
            fmt(c[1], 32, v[TM_THROUGHPUT], "%.1f");
            fmt(c[2], 32, v[TM_LAT_MEAN] * 1e3, "%.3f");
            fmt(c[3], 32, v[TM_LAT_P50] * 1e3, "%.3f");
            fmt(c[4], 32, v[TM_LAT_P95] * 1e3, "%.3f");
            fmt(c[5], 32, v[TM_LAT_P99] * 1e3, "%.3f");
            fmt(c[6], 32, v[TM_LAT_P999] * 1e3, "%.3f");
            fmt(c[7], 32, v[TM_SLA_ATTAINMENT] * 100, "%.1f");
            fmt(c[8], 32, v[TM_SLOWDOWN_P99], "%.2f");
            fprintf(fp, "%-12s %-12s %9s %9s %8s %8s %8s %8s %8s %6s %6s %6.0f %8.0f\n",
                    i == 0 ? s->name : "", sc->tenants[i].name, c[0], c[1], c[2], c[3], c[4], c[5],
                    c[6], c[7], c[8], v[TM_FAILED], v[TM_REJECTED]);
            if (r->replications > 1) {
                const double *ci = s->t_ci + (size_t)i * TM_N;
                fmt(c[1], 32, ci[TM_THROUGHPUT], "±%.1f");
                fmt(c[2], 32, ci[TM_LAT_MEAN] * 1e3, "±%.3f");
                fmt(c[5], 32, ci[TM_LAT_P99] * 1e3, "±%.3f");
                fprintf(fp, "%-12s %-12s %9s %9s %8s %8s %8s %8s\n", "", "", "", c[1], c[2], "", "",
                        c[5]);
            }
        }
        char u[32], sw[32], cost[32], cpm[32];
        fmt(u, 32, s->m[SM_UTIL] * 100, "%.1f%%");
        fmt(sw, 32, s->m[SM_SWITCH] * 100, "%.2f%%");
        fmt(cost, 32, s->m[SM_COST_PER_HOUR], "$%.2f/h");
        fmt(cpm, 32, s->m[SM_COST_PER_MREQ], "$%.3f");
        fprintf(fp, "%-12s   gpu util %s, switching %s, cost %s, per million requests %s", "", u,
                sw, cost, cpm);
        if (isfinite(s->m[SM_FRAGMENTATION]))
            fprintf(fp, ", fragmentation %.1f%%", s->m[SM_FRAGMENTATION] * 100);
        fputc('\n', fp);
    }
    fprintf(fp, "\ncolumns: done = completed requests measured; thr/s = completions per second in "
                "the window;\n  latency = arrival to completion; SLA%% = completed within "
                "sla.p99_ms; slow = p99 / p99 under exclusive\n");
}

static void csv_num(FILE *fp, double x)
{
    if (isfinite(x))
        fprintf(fp, ",%.6g", x == 0 ? 0 : x);
    else
        fputc(',', fp);
}

void rep_csv(FILE *fp, const struct scenario *sc, const struct run_result *r)
{
    fprintf(fp, "scenario,strategy,kind,tenant");
    for (int k = 0; k < TM_N; k++) {
        if (k == TM_WAIT_MEAN || k == TM_WORK_MEAN)
            fprintf(fp, ",%.4s_ms_mean", tm_names[k]);
        else
            fprintf(fp, ",%s%s", is_latency(k) ? "latency_ms_" : "", tm_names[k]);
    }
    /* Strategy-level columns repeat on every row; "total_" keeps the strategy's
     * throughput apart from the tenant's. */
    for (int m = 0; m < SM_N; m++)
        fprintf(fp, ",%s%s", m == SM_THROUGHPUT ? "total_" : "", sm_names[m]);
    fputc('\n', fp);
    for (int k = 0; k < r->n; k++) {
        const struct strategy_result *s = &r->s[k];
        for (int i = 0; i < s->n_tenants; i++) {
            fprintf(fp, "%s,%s,%s,%s", sc->name, s->name, s->kind, sc->tenants[i].name);
            const double *v = s->t + (size_t)i * TM_N;
            for (int m = 0; m < TM_N; m++)
                is_count(m) && isfinite(v[m]) ? (void)fprintf(fp, ",%.0f", v[m])
                                              : csv_num(fp, out_value(m, v[m]));
            for (int m = 0; m < SM_N; m++)
                csv_num(fp, s->m[m]);
            fputc('\n', fp);
        }
    }
}

int rep_sla_misses(FILE *fp, const char *cmd, const struct scenario *sc, const struct run_result *r)
{
    int n = 0;
    for (int k = 0; k < r->n; k++)
        for (int i = 0; i < r->s[k].n_tenants; i++) {
            double sla = sc->tenants[i].sla_p99_s, p99 = r->s[k].t[(size_t)i * TM_N + TM_LAT_P99];
            if (sla <= 0 || p99 <= sla)
                continue;
            n++;
            if (isfinite(p99))
                fprintf(fp, "%s: SLA missed: strategy \"%s\", tenant \"%s\": p99 %.3f ms > %g ms\n",
                        cmd, r->s[k].name, sc->tenants[i].name, p99 * 1e3, sla * 1e3);
            else
                fprintf(fp, "%s: SLA missed: strategy \"%s\", tenant \"%s\": nothing completed\n",
                        cmd, r->s[k].name, sc->tenants[i].name);
        }
    return n;
}
