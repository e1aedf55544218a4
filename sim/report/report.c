/*
 * report — see report.h. Latencies are seconds inside and milliseconds outside
 * (the JSON boundary converts, docs/development.md).
 */
#include "base/jsonv.h"
#include "report/report.h"
#include "report/llmreport.h"
#include "core/stable.h"
#include "core/tenant.h"
#include "core/verdict.h"
#include "core/llmstats.h"
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

/* "stable": the model's verdict (core/stable.h), null where it has none. */
static void add_stable(cJSON *obj, const struct strategy_result *s, int i)
{
    int st = stab_state(s, i);
    if (st < 0)
        cJSON_AddNullToObject(obj, "stable");
    else
        cJSON_AddBoolToObject(obj, "stable", st);
}

static cJSON *tenant_json(const struct scenario *sc, const struct strategy_result *s, int i,
                          int with_ci)
{
    const struct tenant_cfg *tc = &sc->tenants[i];
    cJSON *t = cJSON_CreateObject();
    const double *v = s->t + (size_t)i * TM_N;
    const double *ci = s->t_ci + (size_t)i * TM_N;
    cJSON_AddStringToObject(t, "name", tc->name);
    for (int k = 0; k <= TM_IN_FLIGHT; k++)
        with_ci ? jv_out_add(t, tm_names[k], v[k]) : add_count(t, tm_names[k], v[k]);
    jv_out_add(t, "throughput_per_s", v[TM_THROUGHPUT]);
    cJSON *lat = cJSON_AddObjectToObject(t, "latency_ms");
    for (int k = TM_LAT_MEAN; k <= TM_LAT_P999; k++) {
        jv_out_add(lat, tm_names[k], out_value(k, v[k]));
        if (isinf(v[k]) && v[k] > 0) { /* null, and why: at least 2^21 s (stats.h) */
            char key[64];
            snprintf(key, sizeof key, "%s_beyond_range", tm_names[k]);
            cJSON_AddTrueToObject(lat, key);
        }
    }
    cJSON *w = cJSON_AddObjectToObject(t, "wait_ms");
    jv_out_add(w, "mean", out_value(TM_WAIT_MEAN, v[TM_WAIT_MEAN]));
    cJSON *wk = cJSON_AddObjectToObject(t, "work_ms");
    jv_out_add(wk, "mean", out_value(TM_WORK_MEAN, v[TM_WORK_MEAN]));
    jv_out_add(t, "sla_attainment", v[TM_SLA_ATTAINMENT]);
    jv_out_add(t, "slowdown_p99", v[TM_SLOWDOWN_P99]);
    jv_out_add(t, "availability", v[TM_AVAILABILITY]);
    add_stable(t, s, i);
    vd_add_json(t, sc, s, i);
    /* Samples beyond each percentile (all replications together): under TAIL_MIN_SAMPLES the
     * figure rests on its last few requests. */
    cJSON *tail = cJSON_AddObjectToObject(t, "tail_samples");
    for (int k = 0; k < TAIL_N; k++)
        add_count(tail, tm_names[TM_LAT_P50 + k], s->tail[(size_t)i * TAIL_N + k]);
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
    lrep_json(t, sc, s, i, with_ci);
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
            cJSON_AddItemToArray(ts, tenant_json(sc, s, i, with_ci));
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

/* Columns of the table: header, narrowest width, left-aligned. */
#define RT_COLS 14
#define RT_CELL (SCN_NAME_MAX + VD_REASON_MAX)
static const char *const rt_head[RT_COLS] = {"strategy", "tenant", "done",     "thr/s",   "mean_ms",
                                             "p50_ms",   "p95_ms", "p99_ms",   "p999_ms", "SLA%",
                                             "slow",     "fail",   "rejected", "verdict"};
static const int rt_min[RT_COLS] = {12, 12, 9, 9, 8, 8, 8, 8, 8, 6, 6, 6, 8, 0};

/* A percentile's cell (k: TAIL_P50 …), marked with '*' when fewer than TAIL_MIN_SAMPLES samples
 * lie beyond it; *thin is set then. */
static void fmt_pct(char *buf, size_t n, const struct strategy_result *s, int i, int k, int *thin)
{
    double v = s->t[(size_t)i * TM_N + TM_LAT_P50 + k];
    int few = !isnan(v) && s->tail[(size_t)i * TAIL_N + k] < TAIL_MIN_SAMPLES;
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (isinf(v)) /* past the histogram's range (stats.h) */
        snprintf(buf, n, ">= 24 days%s", few ? "*" : "");
    else
        snprintf(buf, n, "%.3f%s", v * 1e3, few ? "*" : "");
    *thin |= few;
}

/* The cells of one (strategy, tenant) row: the mean, and (ci) the ± row of a replicated run;
 * *thin is set when a percentile rests on its last few samples (NULL: not asked). */
static void row_cells(const struct scenario *sc, const struct strategy_result *s, int i, int ci,
                      char c[RT_COLS][RT_CELL], int *thin)
{
    const double *v = (ci ? s->t_ci : s->t) + (size_t)i * TM_N;
    int thin_here = 0;
    for (int k = 0; k < RT_COLS; k++)
        c[k][0] = '\0';
    if (ci) {
        fmt(c[3], RT_CELL, v[TM_THROUGHPUT], "±%.1f");
        fmt(c[4], RT_CELL, v[TM_LAT_MEAN] * 1e3, "±%.3f");
        fmt(c[7], RT_CELL, v[TM_LAT_P99] * 1e3, "±%.3f");
        return;
    }
    snprintf(c[0], RT_CELL, "%s", i == 0 ? s->name : "");
    snprintf(c[1], RT_CELL, "%s", sc->tenants[i].name);
    fmt(c[2], RT_CELL, v[TM_COMPLETED], "%.0f");
    fmt(c[3], RT_CELL, v[TM_THROUGHPUT], "%.1f");
    isinf(v[TM_LAT_MEAN]) ? (void)snprintf(c[4], RT_CELL, ">= 24 days") /* stats.h's range */
                          : fmt(c[4], RT_CELL, v[TM_LAT_MEAN] * 1e3, "%.3f");
    for (int k = 0; k < TAIL_N; k++)
        fmt_pct(c[5 + k], RT_CELL, s, i, k, &thin_here);
    if (thin)
        *thin |= thin_here;
    fmt(c[9], RT_CELL, vd_attainment(sc, s, i) * 100, "%.1f");
    fmt(c[10], RT_CELL, v[TM_SLOWDOWN_P99], "%.2f");
    snprintf(c[11], RT_CELL, "%.0f", v[TM_FAILED]);
    snprintf(c[12], RT_CELL, "%.0f", v[TM_REJECTED]);
    struct vd_verdict vd;
    vd_judge(sc, s, i, &vd);
    vd_cell(&vd, c[13], RT_CELL);
}

/* Display width of UTF-8 text ("±" is one column). */
static int text_cols(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void put_cell(FILE *fp, const char *s, int width, int left)
{
    int pad = width - text_cols(s);
    if (!left)
        fprintf(fp, "%*s", pad > 0 ? pad : 0, "");
    fputs(s, fp);
    if (left)
        fprintf(fp, "%*s", pad > 0 ? pad : 0, "");
}

static void put_row(FILE *fp, char c[RT_COLS][RT_CELL], const int *w, const char *mark)
{
    int last = RT_COLS - 1; /* no trailing blanks after the last cell that has text */
    while (last > 0 && !c[last][0])
        last--;
    for (int k = 0; k <= last; k++) {
        if (k)
            fputc(' ', fp);
        /* The verdict's reason, last and left-aligned, is not padded: no trailing blanks. */
        put_cell(fp, c[k], k == RT_COLS - 1 ? 0 : w[k], k < 2 || k == RT_COLS - 1);
    }
    fprintf(fp, "%s\n", mark);
}

void rep_table(FILE *fp, const struct scenario *sc, const struct run_result *r)
{
    /* Columns as wide as their widest cell: an overloaded tenant's p99 of 1268000.000 ms
     * widens its column instead of pushing the rest of the row out of line. */
    int w[RT_COLS], unstable = 0, thin = 0;
    char c[RT_COLS][RT_CELL];
    for (int k = 0; k < RT_COLS; k++)
        w[k] = rt_min[k] > text_cols(rt_head[k]) ? rt_min[k] : text_cols(rt_head[k]);
    for (int k = 0; k < r->n; k++)
        for (int i = 0; i < r->s[k].n_tenants; i++)
            for (int ci = 0; ci <= (r->replications > 1); ci++) {
                row_cells(sc, &r->s[k], i, ci, c, NULL);
                for (int m = 0; m < RT_COLS; m++)
                    if (text_cols(c[m]) > w[m])
                        w[m] = text_cols(c[m]);
            }
    fprintf(fp, "scenario %s: %d × %s, seed %lu, %d replication%s\n\n", sc->name, sc->gpus,
            sc->gpu.name, r->seed, r->replications, r->replications > 1 ? "s (mean ± 95% CI)" : "");
    char head[RT_COLS][RT_CELL];
    for (int k = 0; k < RT_COLS; k++)
        snprintf(head[k], RT_CELL, "%s", rt_head[k]);
    put_row(fp, head, w, "");
    for (int k = 0; k < r->n; k++) {
        const struct strategy_result *s = &r->s[k];
        for (int i = 0; i < s->n_tenants; i++) {
            int st = stab_state(s, i);
            unstable += st == 0;
            row_cells(sc, s, i, 0, c, &thin);
            /* the mark for a tenant whose verdict does not already say it (one without an SLA) */
            put_row(fp, c, w, st == 0 && !strstr(c[RT_COLS - 1], "unstable") ? "  unstable" : "");
            if (r->replications > 1) {
                row_cells(sc, s, i, 1, c, NULL);
                put_row(fp, c, w, "");
            }
            lrep_table_line(fp, sc, s, i, w[0]);
        }
        char u[32], sw[32], cost[32], cpm[32];
        fmt(u, 32, s->m[SM_UTIL] * 100, "%.1f%%");
        fmt(sw, 32, s->m[SM_SWITCH] * 100, "%.2f%%");
        fmt(cost, 32, s->m[SM_COST_PER_HOUR], "$%.2f/h");
        fmt(cpm, 32, s->m[SM_COST_PER_MREQ], "$%.3f");
        fprintf(fp, "%-*s   gpu util %s, switching %s, cost %s, per million requests %s", w[0], "",
                u, sw, cost, cpm);
        if (isfinite(s->m[SM_FRAGMENTATION]))
            fprintf(fp, ", fragmentation %.1f%%", s->m[SM_FRAGMENTATION] * 100);
        fputc('\n', fp);
    }
    fprintf(fp, "\ncolumns: done = completed requests measured; thr/s = completions per second in "
                "the window;\n  latency = arrival to completion; SLA%% = completed within "
                "sla.p99_ms (an LLM service: its goodput share);\n  slow = p99 / p99 under "
                "exclusive; verdict = ✓ meets its SLA, ✗ and the first reason it misses, - no SLA\n"
                "  (docs/scenario.md#the-verdict)\n");
    if (unstable)
        fprintf(fp, "  unstable = the tenant offers more work than its share can serve: its queue "
                    "grows as long as\n  arrivals last, so its latencies grow with the run length "
                    "(docs/scenario.md#stability)\n");
    if (r->replications > 1)
        fprintf(fp, "  percentiles: of all replications' requests together, ± from their spread "
                    "across replications\n");
    if (thin)
        fprintf(fp,
                "warning: * marks a percentile with fewer than %d samples beyond it: it rests on "
                "the last few requests (run longer, or more replications; JSON tail_samples)\n",
                TAIL_MIN_SAMPLES);
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
    /* Last, so that the columns before it keep their places. */
    fprintf(fp, ",stable");
    lrep_csv_head(fp, r->n > 0 ? &r->s[0] : NULL); /* LLM tenants' columns, after the rest */
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
            int st = stab_state(s, i);
            fprintf(fp, ",%s", st < 0 ? "" : st ? "true" : "false");
            lrep_csv_row(fp, s, i);
            fputc('\n', fp);
        }
    }
}

int rep_sla_misses(FILE *fp, const char *cmd, const struct scenario *sc, const struct run_result *r)
{
    int n = 0;
    for (int k = 0; k < r->n; k++)
        for (int i = 0; i < r->s[k].n_tenants; i++) {
            struct vd_verdict v;
            vd_judge(sc, &r->s[k], i, &v);
            if (v.meets)
                continue;
            n++;
            fprintf(fp, "%s: SLA missed: strategy \"%s\", tenant \"%s\": %s\n", cmd, r->s[k].name,
                    sc->tenants[i].name, v.reason);
        }
    return n;
}

int rep_warn_unstable(FILE *fp, const char *cmd, const struct scenario *sc,
                      const struct run_result *r)
{
    int n = 0;
    for (int k = 0; k < r->n; k++)
        for (int i = 0; i < r->s[k].n_tenants; i++) {
            const struct strategy_result *s = &r->s[k];
            const struct tenant_cfg *t = &sc->tenants[i];
            if (stab_state(s, i) != 0)
                continue;
            n++;
            double work = ten_mean_work(t);
            fprintf(fp,
                    "%s: warning: strategy \"%s\", tenant \"%s\" is overloaded: it offers %.4g "
                    "req/s × %.4g ms = %.2f GPU of work per second, its share serves %.2f (%.1f "
                    "req/s); %s\n",
                    cmd, s->name, t->name, ten_mean_rate(t), work * 1e3, s->load[i], s->capacity[i],
                    s->capacity[i] / work,
                    t->queue_limit > 0 ? "queue_limit rejects the excess"
                                       : "its queue grows as long as arrivals last and its "
                                         "latencies grow with the run length");
        }
    return n;
}
