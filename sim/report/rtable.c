/*
 * rtable — see rtable.h. Reading is lenient about what a strategy's details
 * hold (only MIG strategies have instances) and strict about the shape every
 * result has (a "strategies" array of objects with "name" and "tenants").
 */
#include "report/rtable.h"
#include "base/jsonv.h"
#include "core/metric.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RT_MAX_BYTES (256u << 20)

int rt_load(const char *path, cJSON **doc, char *err, size_t errlen)
{
    char *text;
    size_t len;
    *doc = NULL;
    if (ss_read_file(path, RT_MAX_BYTES, &text, &len, err, errlen))
        return -1;
    struct jv j = {path, err, errlen};
    cJSON *root = jv_parse(&j, text, len);
    free(text);
    if (!root)
        return -1;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "strategies");
    if (!cJSON_IsArray(st)) {
        cJSON_Delete(root);
        return jv_fail(&j, "strategies", "expected an array (a result of `sharesim run --json`)");
    }
    int k = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, st)
    {
        char p[64];
        jv_path_idx(p, sizeof p, "strategies", k++);
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(s, "name")) ||
            !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(s, "tenants"))) {
            cJSON_Delete(root);
            return jv_fail(&j, p, "expected an object with \"name\" and \"tenants\"");
        }
    }
    *doc = root;
    return 0;
}

double rt_num(const cJSON *obj, const char *key)
{
    const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_of(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

double rt_tenant_mean(const cJSON *strategy, const char *path)
{
    double sum = 0;
    int n = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(strategy, "tenants"))
    {
        double v = mt_path_num(t, path);
        if (isfinite(v)) {
            sum += v;
            n++;
        }
    }
    return n ? sum / n : NAN;
}

/* Max (sign +1) or min (sign -1) of a tenant metric over the strategy's tenants. */
static double tenant_extreme(const cJSON *strategy, const char *path, int sign)
{
    double best = NAN;
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(strategy, "tenants"))
    {
        double v = mt_path_num(t, path);
        if (isfinite(v) && (!isfinite(best) || sign * v > sign * best))
            best = v;
    }
    return best;
}

const cJSON *rt_strategy(const cJSON *doc, const char *name)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        if (strcmp(str_of(s, "name"), name) == 0)
            return s;
    }
    return NULL;
}

/* Markdown cell: value × scale with fixed decimals, "-" when not a number. */
static void md_cell(FILE *fp, double v, double scale, const char *fmt)
{
    fputs(" | ", fp);
    if (isfinite(v))
        fprintf(fp, fmt, v * scale + 0.0);
    else
        fputc('-', fp);
}

/* A Markdown column of numbers: its heading, where in the object (value_at), the scale, the
 * format. */
struct md_col {
    const char *head, *path;
    double scale;
    const char *fmt;
};

/* The cells of obj for n columns, then the end of the row. */
static void md_cells(FILE *fp, const cJSON *obj, const struct md_col *cols, size_t n)
{
    for (size_t k = 0; k < n; k++)
        md_cell(fp, mt_path_num(obj, cols[k].path), cols[k].scale, cols[k].fmt);
    fprintf(fp, " |\n");
}

/* A level's Markdown columns of the metric table (core/metric.h). */
struct md_metrics {
    const struct mt_metric *m[MT_COLS_MAX];
    int n;
};

static void md_metrics_of(struct md_metrics *c, enum mt_level level)
{
    c->n = mt_columns(level, MT_MD, c->m);
}

static void md_metric_head(FILE *fp, const char *lead, const struct md_metrics *c)
{
    fprintf(fp, "| %s", lead);
    for (int k = 0; k < c->n; k++)
        fprintf(fp, " | %s", c->m[k]->md_head);
    fputs(" |\n|---|---|", fp);
    for (int k = 0; k < c->n; k++)
        fputs("---:|", fp);
    fputc('\n', fp);
}

static void md_metric_cells(FILE *fp, const cJSON *obj, const struct md_metrics *c)
{
    for (int k = 0; k < c->n; k++)
        md_cell(fp, mt_doc(c->m[k], obj, 0), c->m[k]->show_scale, c->m[k]->doc_fmt);
    fprintf(fp, " |\n");
}

static int array_size(const cJSON *doc, const char *key)
{
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, key));
}

static void md_header(FILE *fp, const cJSON *doc, const struct rt_head *h)
{
    const char *scenario = str_of(doc, "scenario");
    fprintf(fp, "%.*s %s\n\n", h->level, "######", h->title ? h->title : scenario);
    if (h->description && *h->description)
        fprintf(fp, "%s\n\n", h->description);
    double reps = rt_num(doc, "replications");
    fprintf(fp, "Scenario `%s` on %.0f × %s, seed %.0f, %.0f replication%s", scenario,
            rt_num(doc, "gpus"), str_of(doc, "gpu"), rt_num(doc, "seed"), reps,
            reps > 1 ? "s (figures are means)" : "");
    if (isfinite(rt_num(doc, "load_scale")))
        fprintf(fp, ", arrival rates × %g", rt_num(doc, "load_scale"));
    fprintf(fp, ".");
    if (h->command && *h->command)
        fprintf(fp, " Generated by `%s`.", h->command);
    if (h->note && *h->note)
        fprintf(fp, " %s", h->note);
    fprintf(fp, "\n\n");
}

static void md_tenants(FILE *fp, const cJSON *doc)
{
    struct md_metrics c;
    md_metrics_of(&c, MT_TENANT);
    md_metric_head(fp, "strategy | tenant", &c);
    const cJSON *s, *t;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "tenants"))
        {
            fprintf(fp, "| %s | %s", str_of(s, "name"), str_of(t, "name"));
            md_metric_cells(fp, t, &c);
        }
    }
    fputc('\n', fp);
}

static void md_strategies(FILE *fp, const cJSON *doc)
{
    struct md_metrics c;
    md_metrics_of(&c, MT_STRATEGY);
    md_metric_head(fp, "strategy | kind", &c);
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        fprintf(fp, "| %s | %s", str_of(s, "name"), str_of(s, "kind"));
        md_metric_cells(fp, s, &c);
    }
    fputc('\n', fp);
}

/* The instances of one GPU as "profile@start tenant,… (util %)", comma separated. */
static void md_instances(FILE *fp, const cJSON *insts)
{
    const cJSON *in, *t;
    int first = 1;
    cJSON_ArrayForEach(in, insts)
    {
        fprintf(fp, "%s%s@%.0f ", first ? "" : ", ", str_of(in, "profile"), rt_num(in, "start"));
        int ft = 1;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(in, "tenants"))
        {
            fprintf(fp, "%s%s", ft ? "" : "+", cJSON_IsString(t) ? t->valuestring : "?");
            ft = 0;
        }
        double u = rt_num(in, "utilization");
        if (isfinite(u))
            fprintf(fp, " (%.1f %%)", u * 100 + 0.0);
        first = 0;
    }
}

static const cJSON *gpus_of(const cJSON *s)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "details"), "gpus");
}

static int has_instances(const cJSON *s)
{
    const cJSON *g;
    cJSON_ArrayForEach(g, gpus_of(s))
    {
        if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(g, "instances")))
            return 1;
    }
    return 0;
}

static void md_mig(FILE *fp, const cJSON *doc)
{
    static const struct md_col cols[] = {
        {"stranded compute %", "stranded_compute_frac", 100, "%.1f"},
        {"stranded memory %", "stranded_memory_frac", 100, "%.1f"},
        {"FGD", "fgd", 1, "%.3f"},
    };
    int any = 0;
    const cJSON *s, *g;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        if (!has_instances(s))
            continue;
        if (!any)
            fprintf(fp, "MIG layouts (instance `profile@first memory slice`, its tenants, its "
                        "busy fraction):\n\n| strategy | GPU | instances | stranded compute %% "
                        "| stranded memory %% | FGD |\n|---|---:|---|---:|---:|---:|\n");
        any = 1;
        int gi = 0;
        cJSON_ArrayForEach(g, gpus_of(s))
        {
            const cJSON *insts = cJSON_GetObjectItemCaseSensitive(g, "instances");
            fprintf(fp, "| %s | %d | ", str_of(s, "name"), gi++);
            if (cJSON_GetArraySize(insts) > 0)
                md_instances(fp, insts);
            else
                fputs("(unused)", fp);
            md_cells(fp, g, cols, sizeof cols / sizeof cols[0]);
        }
    }
    if (any)
        fputc('\n', fp);
}

int rt_has_llm(const cJSON *doc)
{
    const cJSON *s, *t;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "tenants"))
        {
            if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(t, "llm")))
                return 1;
        }
    }
    return 0;
}

/* The LLM services' token figures (docs/llm.md#results), one row per (strategy, LLM tenant):
 * what an LLM SLA is judged on, which the request table's arrival-to-last-token latency is
 * not. */
static void md_llm(FILE *fp, const cJSON *doc)
{
    struct md_metrics c;
    md_metrics_of(&c, MT_LLM);
    if (!rt_has_llm(doc))
        return;
    fputs("LLM services (TTFT: arrival to first token; TPOT: per output token after the first; "
          "SLA %: requests within the tenant's `ttft_p99_ms` / `tpot_p99_ms`; goodput: requests "
          "per second that met every target):\n\n",
          fp);
    md_metric_head(fp, "strategy | tenant", &c);
    const cJSON *s, *t;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "tenants"))
        {
            if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(t, "llm")))
                continue;
            fprintf(fp, "| %s | %s", str_of(s, "name"), str_of(t, "name"));
            md_metric_cells(fp, t, &c);
        }
    }
    fputc('\n', fp);
}

void rt_md_result(FILE *fp, const cJSON *doc, const struct rt_head *h)
{
    md_header(fp, doc, h);
    md_tenants(fp, doc);
    md_llm(fp, doc);
    md_strategies(fp, doc);
    md_mig(fp, doc);
}

static const char *const summary_cols[] = {"strategy",
                                           "kind",
                                           "tenants",
                                           "gpus_used",
                                           "tenants_per_gpu",
                                           "gpu_utilization",
                                           "switch_overhead",
                                           "throughput_per_s",
                                           "p99_ms_mean",
                                           "p99_ms_max",
                                           "sla_attainment_min",
                                           "cost_per_million_requests_usd"};
#define N_SUMMARY ((int)(sizeof summary_cols / sizeof summary_cols[0]))

/* With LLM services, the worst TTFT and TPOT p99, the worst attainment of their targets, and
 * the goodput summed over tenants (docs/llm.md#results). */
static const char *const summary_llm_cols[] = {"ttft_p99_ms_max", "tpot_p99_ms_max",
                                               "ttft_sla_attainment_min", "tpot_sla_attainment_min",
                                               "goodput_per_s"};
#define N_SUMMARY_LLM ((int)(sizeof summary_llm_cols / sizeof summary_llm_cols[0]))

void rt_summary_header(FILE *fp, const char *xname, int markdown, int llm)
{
    const char *sep = markdown ? " | " : ",";
    int n = N_SUMMARY + (llm ? N_SUMMARY_LLM : 0);
    if (markdown)
        fputs("| ", fp);
    if (xname)
        fprintf(fp, "%s%s", xname, sep);
    for (int k = 0; k < n; k++)
        fprintf(fp, "%s%s", k < N_SUMMARY ? summary_cols[k] : summary_llm_cols[k - N_SUMMARY],
                k + 1 < n ? sep : "");
    fputs(markdown ? " |\n|" : "\n", fp);
    if (markdown) {
        for (int k = 0; k < n + (xname != NULL); k++)
            fputs(k < 2 + (xname != NULL) && k >= (xname != NULL) ? "---|" : "---:|", fp);
        fputc('\n', fp);
    }
}

/* The sum of a tenant metric over a strategy's tenants that have it; NaN when none has. */
static double tenant_sum(const cJSON *strategy, const char *path)
{
    double m = rt_tenant_mean(strategy, path);
    if (!isfinite(m))
        return NAN;
    double sum = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(strategy, "tenants"))
    {
        double v = mt_path_num(t, path);
        if (isfinite(v))
            sum += v;
    }
    return sum;
}

/* One summary value: CSV with 6 significant digits, Markdown with fixed decimals. */
static void summary_value(FILE *fp, double v, int markdown, const char *md_fmt)
{
    if (markdown) {
        md_cell(fp, v, 1, md_fmt);
        return;
    }
    fputc(',', fp);
    if (isfinite(v))
        fprintf(fp, "%.6g", v + 0.0);
}

void rt_summary_rows(FILE *fp, const cJSON *doc, const char *xname, const char *x, int markdown,
                     int llm)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        int n = array_size(s, "tenants");
        double used = rt_num(s, "gpus_used");
        if (markdown)
            fputs("| ", fp);
        if (xname)
            fprintf(fp, "%s%s", x, markdown ? " | " : ",");
        fprintf(fp, "%s%s%s", str_of(s, "name"), markdown ? " | " : ",", str_of(s, "kind"));
        summary_value(fp, n, markdown, "%.0f");
        summary_value(fp, used, markdown, "%.0f");
        summary_value(fp, used > 0 ? n / used : NAN, markdown, "%.2f");
        summary_value(fp, rt_num(s, "gpu_utilization"), markdown, "%.3f");
        summary_value(fp, rt_num(s, "switch_overhead"), markdown, "%.4f");
        summary_value(fp, rt_num(s, "throughput_per_s"), markdown, "%.1f");
        summary_value(fp, rt_tenant_mean(s, "latency_ms.p99"), markdown, "%.2f");
        summary_value(fp, tenant_extreme(s, "latency_ms.p99", 1), markdown, "%.2f");
        summary_value(fp, tenant_extreme(s, "sla_attainment", -1), markdown, "%.3f");
        summary_value(fp, rt_num(s, "cost_per_million_requests_usd"), markdown, "%.3f");
        if (llm) {
            summary_value(fp, tenant_extreme(s, "llm.ttft_ms.p99", 1), markdown, "%.1f");
            summary_value(fp, tenant_extreme(s, "llm.tpot_ms.p99", 1), markdown, "%.1f");
            summary_value(fp, tenant_extreme(s, "llm.ttft_sla_attainment", -1), markdown, "%.3f");
            summary_value(fp, tenant_extreme(s, "llm.tpot_sla_attainment", -1), markdown, "%.3f");
            summary_value(fp, tenant_sum(s, "llm.goodput_per_s"), markdown, "%.3f");
        }
        fputs(markdown ? " |\n" : "\n", fp);
    }
}

static void mig_line(FILE *fp, int row, const cJSON *s, int gpu, const cJSON *in,
                     const struct gpu_profile *gp)
{
    const struct mig_profile *mp = cal_mig_find(gp, str_of(in, "profile"));
    fprintf(fp, "%d,%s GPU %d,%s,%d,%.0f,", row, str_of(s, "name"), gpu, str_of(s, "name"), gpu,
            rt_num(in, "start"));
    if (mp)
        fprintf(fp, "%d,%d,%d", mp->memory_slices, mp->compute_slices, mp->sm_count);
    else
        fputs(",,", fp);
    fprintf(fp, ",%s,", str_of(in, "profile"));
    const cJSON *t;
    int first = 1;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(in, "tenants"))
    {
        fprintf(fp, "%s%s", first ? "" : "+", cJSON_IsString(t) ? t->valuestring : "?");
        first = 0;
    }
    double u = rt_num(in, "utilization");
    fputc(',', fp);
    if (isfinite(u))
        fprintf(fp, "%.6g", u + 0.0);
    fputc('\n', fp);
}

int rt_mig_csv(FILE *fp, const cJSON *doc, const struct gpu_profile *gp)
{
    fprintf(fp, "row,label,strategy,gpu,start,memory_slices,compute_slices,sm_count,profile,"
                "tenants,utilization\n");
    int row = 0;
    const cJSON *s, *g, *in;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        int gi = 0;
        cJSON_ArrayForEach(g, gpus_of(s))
        {
            const cJSON *insts = cJSON_GetObjectItemCaseSensitive(g, "instances");
            if (cJSON_GetArraySize(insts) > 0) {
                cJSON_ArrayForEach(in, insts) mig_line(fp, row, s, gi, in, gp);
                row++;
            }
            gi++;
        }
    }
    return row;
}
