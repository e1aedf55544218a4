/* studies — see studies.h. */
#include "report/studies.h"
#include "base/jsonv.h"
#include "core/rdoc.h"
#include "report/rtable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double rel_err(double sim, double paper)
{
    return (sim - paper) / paper;
}

/* The three figures as a JSON object (sim, paper or error). */
static cJSON *triple(double tps, double p99, double util)
{
    cJSON *o = cJSON_CreateObject();
    jv_out_add(o, "tps_per_instance", tps);
    jv_out_add(o, "p99_ms", p99);
    jv_out_add(o, "gpu_util", util);
    return o;
}

cJSON *sd_reference_json(const struct sd_study *st, const struct sd_ref_row *rows)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "study", st->id);
    cJSON_AddStringToObject(root, "title", st->title);
    cJSON *def = cJSON_AddObjectToObject(root, "definitions");
    cJSON_AddStringToObject(def, "tps_per_instance",
                            "completed requests (batch steps) per second per instance: mean over "
                            "the row's tenants of throughput_per_s");
    cJSON_AddStringToObject(def, "p99_ms", "mean over the row's tenants of latency_ms.p99");
    cJSON_AddStringToObject(def, "gpu_util", "the strategy's gpu_utilization (0..1)");
    cJSON_AddStringToObject(def, "error", "(simulated - paper) / paper");
    cJSON *arr = cJSON_AddArrayToObject(root, "rows");
    for (int k = 0; k < st->n_rows; k++) {
        const struct sd_ref_row *r = &rows[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "mode", r->row->mode);
        cJSON_AddNumberToObject(o, "instances", r->row->instances);
        cJSON_AddStringToObject(o, "scenario", r->row->scenario);
        cJSON_AddStringToObject(o, "strategy", r->row->strategy);
        jv_out_add(o, "tps_per_instance", r->tps);
        jv_out_add(o, "p99_ms", r->p99_ms);
        jv_out_add(o, "gpu_util", r->util);
        cJSON_AddItemToObject(o, "paper",
                              triple(r->row->paper_tps, r->row->paper_p99_ms, r->row->paper_util));
        double et = rel_err(r->tps, r->row->paper_tps),
               ep = rel_err(r->p99_ms, r->row->paper_p99_ms);
        cJSON_AddItemToObject(o, "error", triple(et, ep, rel_err(r->util, r->row->paper_util)));
        cJSON *w = cJSON_AddObjectToObject(o, "within_15pct");
        cJSON_AddBoolToObject(w, "tps_per_instance", fabs(et) <= 0.15);
        cJSON_AddBoolToObject(w, "p99_ms", fabs(ep) <= 0.15);
        cJSON_AddItemToArray(arr, o);
    }
    return root;
}

void sd_reference_csv(FILE *fp, const struct sd_study *st, const struct sd_ref_row *rows)
{
    fprintf(fp, "mode,instances,strategy,tps_per_instance,p99_ms,gpu_util,paper_tps_per_instance,"
                "paper_p99_ms,paper_gpu_util,error_tps_per_instance,error_p99_ms,error_gpu_util\n");
    for (int k = 0; k < st->n_rows; k++) {
        const struct sd_ref_row *r = &rows[k];
        const struct sd_row *p = r->row;
        const double v[] = {r->tps,
                            r->p99_ms,
                            r->util,
                            p->paper_tps,
                            p->paper_p99_ms,
                            p->paper_util,
                            rel_err(r->tps, p->paper_tps),
                            rel_err(r->p99_ms, p->paper_p99_ms),
                            rel_err(r->util, p->paper_util)};
        fprintf(fp, "%s,%d,%s", p->mode, p->instances, p->strategy);
        for (size_t q = 0; q < sizeof v / sizeof v[0]; q++)
            isfinite(v[q]) ? (void)fprintf(fp, ",%.6g", v[q] + 0.0) : (void)fputc(',', fp);
        fputc('\n', fp);
    }
}

/* "sim | paper | error" cells; the error is marked when beyond 15 %. */
static void md_triple(FILE *fp, double sim, double paper, double scale, const char *fmt)
{
    double e = rel_err(sim, paper);
    fputs(" | ", fp);
    isfinite(sim) ? (void)fprintf(fp, fmt, sim * scale + 0.0) : (void)fputc('-', fp);
    fputs(" | ", fp);
    fprintf(fp, fmt, paper * scale);
    if (isfinite(sim))
        fprintf(fp, " | %+.1f %%%s", e * 100 + 0.0, fabs(e) <= 0.15 ? "" : " ✗");
    else
        fputs(" | - ✗", fp);
}

/* The row files' other strategies (alternatives to the row's), against the paper's row. */
static void md_alternatives(FILE *fp, const struct sd_study *st, cJSON *const *docs)
{
    int any = 0;
    for (int k = 0; k < st->n_rows; k++) {
        const struct sd_row *r = &st->rows[k];
        const cJSON *s;
        RD_EACH_STRATEGY(s, docs[k])
        {
            if (strcmp(rd_name(s), r->strategy) == 0)
                continue;
            if (!any)
                fprintf(fp, "The other strategies of the row scenarios (one parameter changed; "
                            "not part of the table above):\n\n| mode | strategy | TPS/instance "
                            "| p99 ms | p99 error | GPU util %% | switching %% |\n"
                            "|---|---|---:|---:|---:|---:|---:|\n");
            any = 1;
            double p99 = rd_over_tenants(s, MT_TENANT, TM_LAT_P99, RD_MEAN);
            fprintf(fp, "| %s | %s | %.1f | %.1f | %+.1f %% | %.1f | %.2f |\n", r->mode, rd_name(s),
                    rd_over_tenants(s, MT_TENANT, TM_THROUGHPUT, RD_MEAN) + 0.0, p99 + 0.0,
                    rel_err(p99, r->paper_p99_ms) * 100 + 0.0,
                    rd_fig(s, MT_STRATEGY, SM_UTIL) * 100 + 0.0,
                    rd_fig(s, MT_STRATEGY, SM_SWITCH) * 100 + 0.0);
        }
    }
    if (any)
        fputc('\n', fp);
}

void sd_reference_md(FILE *fp, const struct sd_study *st, const struct sd_ref_row *rows,
                     cJSON *const *docs)
{
    fprintf(fp, "# %s\n\n", st->title);
    fprintf(fp, "| mode | instances | TPS/instance | paper | error | p99 ms | paper | error | "
                "GPU util %% | paper | error |\n");
    fprintf(fp, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < st->n_rows; k++) {
        const struct sd_ref_row *r = &rows[k];
        fprintf(fp, "| %s | %d", r->row->mode, r->row->instances);
        md_triple(fp, r->tps, r->row->paper_tps, 1, "%.1f");
        md_triple(fp, r->p99_ms, r->row->paper_p99_ms, 1, "%.1f");
        md_triple(fp, r->util, r->row->paper_util, 100, "%.1f");
        fprintf(fp, " |\n");
    }
    fprintf(fp, "\nerror = (simulated − paper) / paper; ✗ marks |error| > 15 %%.\n\n");
    md_alternatives(fp, st, docs);
    const cJSON *n;
    cJSON_ArrayForEach(n, st->notes) fprintf(fp, "%s\n\n", n->valuestring);
    if (st->requests)
        fprintf(fp, "Run length: %s\n\n", st->requests);
    for (int k = 0; k < st->n_rows; k++) {
        char title[256], cmd[1200];
        char *desc = sd_scenario_description(st->rows[k].scenario);
        snprintf(title, sizeof title,
                 "Row %s (strategy `%s` is the row; others are for comparison)", st->rows[k].mode,
                 st->rows[k].strategy);
        snprintf(cmd, sizeof cmd, "sharesim run %s", st->rows[k].scenario);
        struct rt_head h = {title, desc, cmd, NULL, 2};
        rt_md_result(fp, docs[k], &h);
        free(desc);
    }
}
