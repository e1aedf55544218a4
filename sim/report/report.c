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

/* One figure of the table (core/metric.h) into obj at its path, or (ci) its half-width at its
 * _ci95 path; replicated: the result is a mean of replications (a count is then no integer). */
static void json_metric(cJSON *obj, const struct mt_metric *m, const struct strategy_result *s,
                        int i, int ci, int replicated)
{
    const char *leaf;
    cJSON *o = mt_path_parent(obj, ci ? m->ci_path : m->path, &leaf);
    double v = mt_value(m, s, i, ci) * m->out_scale;
    if (!ci && (m->json == MT_J_INT || (m->json == MT_J_COUNT && !replicated)))
        add_count(o, leaf, v);
    else
        jv_out_add(o, leaf, v);
    if (!ci && m->range && isinf(v) && v > 0) { /* null, and why: at least 2^21 s (stats.h) */
        char key[64];
        snprintf(key, sizeof key, "%s_beyond_range", leaf);
        cJSON_AddTrueToObject(o, key);
    }
}

void rep_json_level(cJSON *obj, enum mt_level level, const struct strategy_result *s, int i, int ci,
                    int replicated)
{
    for (int k = 0; k < mt_count(); k++) {
        const struct mt_metric *m = mt_at(k);
        if (m->level == level && (!ci || m->ci_path))
            json_metric(obj, m, s, i, ci, replicated);
    }
}

static cJSON *tenant_json(const struct scenario *sc, const struct strategy_result *s, int i,
                          int with_ci)
{
    const struct tenant_cfg *tc = &sc->tenants[i];
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", tc->name);
    rep_json_level(t, MT_TENANT, s, i, 0, with_ci);
    int st = stab_state(s, i); /* "stable": the model's verdict (core/stable.h), null: none */
    st < 0 ? (void)cJSON_AddNullToObject(t, "stable")
           : (void)cJSON_AddBoolToObject(t, "stable", st);
    vd_add_json(t, sc, s, i);
    /* Samples beyond each percentile (all replications together): under TAIL_MIN_SAMPLES the
     * figure rests on its last few requests. Keyed as the percentile in its object. */
    cJSON *tail = cJSON_AddObjectToObject(t, "tail_samples");
    for (int k = 0; k < mt_count(); k++) {
        const struct mt_metric *m = mt_at(k);
        if (m->level == MT_TENANT && m->tail >= 0)
            add_count(tail, strrchr(m->path, '.') + 1, s->tail[(size_t)i * TAIL_N + m->tail]);
    }
    if (with_ci)
        rep_json_level(t, MT_TENANT, s, i, 1, 1);
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
        /* A strategy's half-widths follow each figure. */
        for (int m = 0; m < mt_count(); m++) {
            const struct mt_metric *mm = mt_at(m);
            if (mm->level != MT_STRATEGY)
                continue;
            json_metric(o, mm, s, 0, 0, with_ci);
            if (with_ci && mm->ci_path)
                json_metric(o, mm, s, 0, 1, 1);
        }
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

/* The table's columns: strategy and tenant, then the tenant figures of the metric table that
 * have a text heading (core/metric.h), by rank, then the verdict (core/verdict.h). */
#define RT_LEAD 2
#define RT_COLS (RT_LEAD + MT_COLS_MAX + 1)
#define RT_CELL (SCN_NAME_MAX + VD_REASON_MAX)
#define RT_LEAD_MIN 12

struct rt_cols {
    const struct mt_metric *m[MT_COLS_MAX];
    int n; /* cells in a row: RT_LEAD + the metrics + the verdict */
};

/* A figure's cell: "-" when there is none, ">= 24 days" past the histogram's range (stats.h),
 * a '*' on a percentile with fewer than TAIL_MIN_SAMPLES samples beyond it (*thin is set). */
static void metric_cell(char *buf, size_t n, const struct mt_metric *m, const struct scenario *sc,
                        const struct strategy_result *s, int i, int *thin)
{
    double v = mt_shown(m, sc, s, i) * m->out_scale * m->show_scale;
    int few = m->tail >= 0 && !isnan(v) && s->tail[(size_t)i * TAIL_N + m->tail] < TAIL_MIN_SAMPLES;
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (m->range && isinf(v))
        snprintf(buf, n, ">= 24 days%s", few ? "*" : "");
    else if (!isfinite(v))
        snprintf(buf, n, "-");
    else {
        int w = snprintf(buf, n, m->text_fmt, v + 0.0);
        if (few && w >= 0 && (size_t)w + 1 < n)
            strcat(buf, "*");
    }
    *thin |= few;
}

/* The cells of one (strategy, tenant) row: the mean, and (ci) the ± row of a replicated run;
 * *thin is set when a percentile rests on its last few samples (NULL: not asked). */
static void row_cells(const struct scenario *sc, const struct strategy_result *s, int i, int ci,
                      const struct rt_cols *cols, char c[RT_COLS][RT_CELL], int *thin)
{
    int thin_here = 0;
    for (int k = 0; k < cols->n; k++)
        c[k][0] = '\0';
    if (!ci) {
        snprintf(c[0], RT_CELL, "%s", i == 0 ? s->name : "");
        snprintf(c[1], RT_CELL, "%s", sc->tenants[i].name);
    }
    for (int k = RT_LEAD; k < cols->n - 1; k++) {
        const struct mt_metric *m = cols->m[k - RT_LEAD];
        if (!ci)
            metric_cell(c[k], RT_CELL, m, sc, s, i, &thin_here);
        else if (m->text_ci_fmt)
            fmt(c[k], RT_CELL, mt_value(m, s, i, 1) * m->out_scale * m->show_scale, m->text_ci_fmt);
    }
    if (thin)
        *thin |= thin_here;
    if (!ci) {
        struct vd_verdict vd;
        vd_judge(sc, s, i, &vd);
        vd_cell(&vd, c[cols->n - 1], RT_CELL);
    }
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

static void put_row(FILE *fp, char c[RT_COLS][RT_CELL], int n, const int *w, const char *mark)
{
    int last = n - 1; /* no trailing blanks after the last cell that has text */
    while (last > 0 && !c[last][0])
        last--;
    for (int k = 0; k <= last; k++) {
        if (k)
            fputc(' ', fp);
        /* The verdict's reason, last and left-aligned, is not padded: no trailing blanks. */
        put_cell(fp, c[k], k == n - 1 ? 0 : w[k], k < RT_LEAD || k == n - 1);
    }
    fprintf(fp, "%s\n", mark);
}

void rep_table(FILE *fp, const struct scenario *sc, const struct run_result *r)
{
    /* Columns as wide as their widest cell: an overloaded tenant's p99 of 1268000.000 ms
     * widens its column instead of pushing the rest of the row out of line. */
    int w[RT_COLS], unstable = 0, thin = 0;
    char c[RT_COLS][RT_CELL], head[RT_COLS][RT_CELL];
    struct rt_cols cols;
    cols.n = RT_LEAD + mt_columns(MT_TENANT, MT_TEXT, cols.m) + 1;
    snprintf(head[0], RT_CELL, "strategy");
    snprintf(head[1], RT_CELL, "tenant");
    for (int k = RT_LEAD; k < cols.n - 1; k++)
        snprintf(head[k], RT_CELL, "%s", cols.m[k - RT_LEAD]->text_head);
    snprintf(head[cols.n - 1], RT_CELL, "verdict");
    for (int k = 0; k < cols.n; k++) {
        int min = k < RT_LEAD ? RT_LEAD_MIN : k == cols.n - 1 ? 0 : cols.m[k - RT_LEAD]->text_min;
        w[k] = min > text_cols(head[k]) ? min : text_cols(head[k]);
    }
    for (int k = 0; k < r->n; k++)
        for (int i = 0; i < r->s[k].n_tenants; i++)
            for (int ci = 0; ci <= (r->replications > 1); ci++) {
                row_cells(sc, &r->s[k], i, ci, &cols, c, NULL);
                for (int m = 0; m < cols.n; m++)
                    if (text_cols(c[m]) > w[m])
                        w[m] = text_cols(c[m]);
            }
    fprintf(fp, "scenario %s: %d × %s, seed %lu, %d replication%s\n\n", sc->name, sc->gpus,
            sc->gpu.name, r->seed, r->replications, r->replications > 1 ? "s (mean ± 95% CI)" : "");
    put_row(fp, head, cols.n, w, "");
    for (int k = 0; k < r->n; k++) {
        const struct strategy_result *s = &r->s[k];
        for (int i = 0; i < s->n_tenants; i++) {
            int st = stab_state(s, i);
            unstable += st == 0;
            row_cells(sc, s, i, 0, &cols, c, &thin);
            /* the mark for a tenant whose verdict does not already say it (one without an SLA) */
            put_row(fp, c, cols.n, w,
                    st == 0 && !strstr(c[cols.n - 1], "unstable") ? "  unstable" : "");
            if (r->replications > 1) {
                row_cells(sc, s, i, 1, &cols, c, NULL);
                put_row(fp, c, cols.n, w, "");
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

/* The CSV columns of a level, in the table's order with those marked csv_last after the rest;
 * head: their names, else tenant i's values (s's strategy figures on every row). */
static void rep_csv_level(FILE *fp, enum mt_level level, const struct strategy_result *s, int i,
                          int head)
{
    for (int last = 0; last <= 1; last++)
        for (int k = 0; k < mt_count(); k++) {
            const struct mt_metric *m = mt_at(k);
            if (m->level != level || !m->csv || m->csv_last != last)
                continue;
            if (head) {
                fprintf(fp, ",%s", m->csv);
                continue;
            }
            double v = mt_value(m, s, i, 0) * m->out_scale;
            if (!isfinite(v))
                fputc(',', fp);
            else /* a count as an integer; no -0 otherwise */
                fprintf(fp, m->csv_int ? ",%.0f" : ",%.6g", m->csv_int || v != 0 ? v : 0);
        }
}

void rep_csv(FILE *fp, const struct scenario *sc, const struct run_result *r)
{
    fprintf(fp, "scenario,strategy,kind,tenant");
    rep_csv_level(fp, MT_TENANT, NULL, 0, 1);
    /* Strategy-level columns repeat on every row. */
    rep_csv_level(fp, MT_STRATEGY, NULL, 0, 1);
    /* Last, so that the columns before it keep their places. */
    fprintf(fp, ",stable");
    if (r->n > 0 && r->s[0].llm) /* LLM tenants' columns, after the rest */
        rep_csv_level(fp, MT_LLM, NULL, 0, 1);
    fputc('\n', fp);
    for (int k = 0; k < r->n; k++) {
        const struct strategy_result *s = &r->s[k];
        for (int i = 0; i < s->n_tenants; i++) {
            fprintf(fp, "%s,%s,%s,%s", sc->name, s->name, s->kind, sc->tenants[i].name);
            rep_csv_level(fp, MT_TENANT, s, i, 0);
            rep_csv_level(fp, MT_STRATEGY, s, i, 0);
            int st = stab_state(s, i);
            fprintf(fp, ",%s", st < 0 ? "" : st ? "true" : "false");
            if (s->llm)
                rep_csv_level(fp, MT_LLM, s, i, 0);
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
