/*
 * sweepview — a finished sweep read back from its point files (sweep.h): the tables `sharesim
 * sweep` prints and the points as one JSON document. Beside the point files' writer, so what a
 * point holds and how it is shown change together.
 */
#include "tools/sweepview.h"
#include "base/util.h"
#include "core/llmstats.h"
#include "core/metric.h"
#include "core/rdoc.h"

#include <stdlib.h>
#include <string.h>

/* One cell of a stdout table: tenant t's figure in a strategy's result; 1 if it was overloaded. */
typedef int (*sweep_cell_fn)(FILE *fp, const cJSON *t);

/* Latency p99, "!" after an overloaded tenant's (docs/scenario.md#stability: that p99 depends
 * on the run length). The figures are read by the metric table's paths (core/metric.h). */
static int cell_p99(FILE *fp, const cJSON *t)
{
    char buf[32];
    int over = rd_stable(t) == 0;
    mt_doc_text(mt_of(MT_TENANT, TM_LAT_P99), t, "%.3f", buf, sizeof buf);
    fprintf(fp, " %9s%s", buf, over ? "!" : "");
    return over;
}

/* An LLM tenant's TTFT and TPOT p99 as "ttft/tpot" (docs/llm.md#results): the targets its SLA
 * sets beside p99_ms, which the latency table alone does not show. */
static int cell_llm(FILE *fp, const cJSON *t)
{
    char a[24], b[24], cell[52];
    mt_doc_text(mt_of(MT_LLM, LM_TTFT_P99), t, "%.1f", a, sizeof a);
    mt_doc_text(mt_of(MT_LLM, LM_TPOT_P99), t, "%.1f", b, sizeof b);
    snprintf(cell, sizeof cell, "%s/%s", a, b);
    fprintf(fp, " %15s", cell);
    return 0;
}

/* Every point × strategy, one column per tenant that `only_llm` selects (all, or the LLM
 * tenants), the cells read back from the point files. */
static void print_grid(FILE *fp, const struct sw_grid *g, const char *dir,
                       const struct scenario *base, const char *title, int only_llm, int wcell,
                       sweep_cell_fn cell)
{
    int wid = sw_id_width(g) + 1, wstrat = 8;
    int waxis[SW_MAX_AXES], coords[SW_MAX_AXES];
    for (int a = 0; a < g->n_axes; a++) {
        waxis[a] = (int)strlen(g->axes[a].path);
        for (int v = 0; v < g->axes[a].n_values; v++)
            if ((int)strlen(g->axes[a].labels[v]) > waxis[a])
                waxis[a] = (int)strlen(g->axes[a].labels[v]);
    }
    for (int k = 0; k < base->n_strategies; k++)
        if ((int)strlen(base->strategies[k].name) > wstrat)
            wstrat = (int)strlen(base->strategies[k].name);
    fprintf(fp, "%s (every figure: %s/sweep.csv)\n%-*s", title, dir, wid, "point");
    for (int a = 0; a < g->n_axes; a++)
        fprintf(fp, "  %-*s", waxis[a], g->axes[a].path);
    fprintf(fp, "  %-*s", wstrat, "strategy");
    for (int i = 0; i < base->n_tenants; i++)
        if (!only_llm || base->tenants[i].llm)
            fprintf(fp, " %*s", wcell, base->tenants[i].name);
    fputc('\n', fp);
    int unstable = 0;
    for (long p = 0; p < g->n_points; p++) {
        char path[4096], id[32], *text;
        sw_point_file(g, dir, p, "json", path, sizeof path);
        sw_point_id(g, p, id, sizeof id);
        sw_point_coords(g, p, coords);
        if (ss_read_file_own(path, 64u << 20, &text, NULL, NULL, 0))
            continue;
        cJSON *doc = cJSON_Parse(text);
        free(text);
        const cJSON *s;
        RD_EACH_STRATEGY(s, doc)
        {
            fprintf(fp, "%-*s", wid, id);
            for (int a = 0; a < g->n_axes; a++)
                fprintf(fp, "  %-*s", waxis[a], g->axes[a].labels[coords[a]]);
            fprintf(fp, "  %-*s", wstrat, rd_name(s));
            const cJSON *t;
            int i = 0; /* the result lists the tenants in the scenario's order */
            RD_EACH_TENANT(t, s)
            {
                if (i < base->n_tenants && (!only_llm || base->tenants[i].llm))
                    unstable += cell(fp, t);
                i++;
            }
            fputc('\n', fp);
        }
        cJSON_Delete(doc);
    }
    if (unstable)
        fprintf(fp,
                "! = overloaded: the tenant offers more work than its share serves; that p99 grows "
                "with the run length\n");
}

/* The p99 of every point × strategy × tenant; then, when the scenario has LLM services, their
 * TTFT and TPOT p99. */
void sw_print_tables(FILE *fp, const struct sw_grid *g, const char *dir,
                     const struct scenario *base)
{
    print_grid(fp, g, dir, base, "p99 latency, ms", 0, 9, cell_p99);
    for (int i = 0; i < base->n_tenants; i++)
        if (base->tenants[i].llm) {
            fputc('\n', fp);
            print_grid(fp, g, dir, base, "LLM services: TTFT p99 / TPOT p99, ms", 1, 15, cell_llm);
            break;
        }
}

cJSON *sw_points_json(const struct sw_grid *g, const char *dir, char *err, size_t errlen)
{
    cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "points");
    for (long p = 0; p < g->n_points; p++) {
        char path[4096], *text;
        sw_point_file(g, dir, p, "json", path, sizeof path);
        cJSON *pt = NULL;
        if (ss_read_file(path, 64u << 20, &text, NULL, err, errlen) == 0) {
            pt = cJSON_Parse(text);
            free(text);
            if (!pt)
                ss_errf(err, errlen, "%s: not JSON", path);
        }
        if (!pt) {
            cJSON_Delete(doc);
            return NULL;
        }
        cJSON_AddItemToArray(arr, pt);
    }
    return doc;
}
