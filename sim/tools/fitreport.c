/*
 * fitreport — the document `sharesim profile fit` writes (tools/fit.h): the parameters with
 * their values and bounds (and as a `serving` fragment to paste), the measurement file's
 * digest, the split, every row's measured and predicted figures and its error, and per split
 * and metric the median |error| and the share of rows predicted above the measurement (the
 * bias: 0.5 is none, 1 every row high).
 *
 * Invariants: figures are written to 6 significant digits (jv_out_num), the order of rows is
 * the file's, so one input gives one document byte for byte; nothing here runs a simulation.
 */
#include "tools/fit.h"
#include "base/jsonv.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const client_name[] = {"concurrency", "rate", "batch"};

double fit_error_pct(const struct fit_row *r, int m)
{
    if (isnan(r->meas[m]) || !isfinite(r->pred[m]))
        return NAN;
    return (r->pred[m] / r->meas[m] - 1.0) * 100.0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void fit_summary(const struct fit_ctx *c, int holdout, int m, struct fit_stat *s)
{
    double *abs_e = ss_xcalloc((size_t)(c->n_rows ? c->n_rows : 1), sizeof *abs_e);
    int n = 0, pos = 0;
    for (int i = 0; i < c->n_rows; i++) {
        const struct fit_row *r = &c->rows[i];
        double e = fit_error_pct(r, m);
        if (*r->skip || r->holdout != holdout || isnan(e))
            continue;
        abs_e[n++] = fabs(e);
        pos += e > 0;
    }
    s->points = n;
    s->median_abs_pct = median(abs_e, n);
    s->positive_share = n ? (double)pos / n : NAN;
    free(abs_e);
}

/* One split's summary: its rows, per metric the points, the median |error| and the share
 * predicted high. */
static cJSON *summary(const struct fit_ctx *c, int holdout)
{
    cJSON *o = cJSON_CreateObject();
    int rows = 0;
    for (int i = 0; i < c->n_rows; i++)
        rows += !*c->rows[i].skip && c->rows[i].holdout == holdout;
    cJSON_AddNumberToObject(o, "rows", rows);
    for (int m = 0; m < FM_N; m++) {
        struct fit_stat st;
        fit_summary(c, holdout, m, &st);
        cJSON *x = cJSON_AddObjectToObject(o, fit_metric_key[m]);
        cJSON_AddNumberToObject(x, "points", st.points);
        jv_out_add(x, "median_abs_error_pct", st.median_abs_pct);
        jv_out_add(x, "positive_share", st.positive_share);
    }
    return o;
}

static cJSON *figures(const double *v)
{
    cJSON *o = cJSON_CreateObject();
    for (int m = 0; m < FM_N; m++)
        jv_out_add(o, fit_metric_key[m], v[m]);
    return o;
}

static cJSON *row_json(const struct fit_row *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", r->id);
    cJSON_AddNumberToObject(o, "line", r->line);
    cJSON_AddStringToObject(o, "role", r->holdout ? "holdout" : "fit");
    cJSON_AddStringToObject(o, "gpu", r->gpu);
    cJSON_AddStringToObject(o, "model", r->model);
    cJSON_AddStringToObject(o, "client", client_name[r->client]);
    jv_out_add(o, "load", r->load);
    cJSON_AddStringToObject(o, "stat", r->median ? "median" : "mean");
    cJSON_AddNumberToObject(o, "requests", (double)r->requests);
    cJSON_AddNumberToObject(o, "warmup", (double)r->warmup);
    if (*r->note)
        cJSON_AddStringToObject(o, "note", r->note);
    cJSON_AddItemToObject(o, "measured", figures(r->meas));
    cJSON_AddItemToObject(o, "predicted", figures(r->pred));
    double e[FM_N];
    for (int m = 0; m < FM_N; m++)
        e[m] = fit_error_pct(r, m);
    cJSON_AddItemToObject(o, "error_pct", figures(e));
    return o;
}

static cJSON *params_json(const struct fit_ctx *c, cJSON **serving)
{
    cJSON *a = cJSON_CreateArray();
    *serving = cJSON_CreateObject();
    for (int i = 0; i < c->n_params; i++) {
        const struct fit_param *p = &c->params[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "key", p->key);
        jv_out_add(o, "value", p->value);
        jv_out_add(o, "lo", p->lo);
        jv_out_add(o, "hi", p->hi);
        jv_out_add(o, "start", p->start);
        cJSON_AddItemToArray(a, o);
        jv_out_add(*serving, p->key, p->value);
    }
    return a;
}

static cJSON *split_json(const struct fit_ctx *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *fit = cJSON_AddArrayToObject(o, "fit"), *hold = cJSON_AddArrayToObject(o, "holdout");
    cJSON *skipped = cJSON_AddArrayToObject(o, "skipped");
    for (int i = 0; i < c->n_rows; i++) {
        const struct fit_row *r = &c->rows[i];
        if (*r->skip) {
            cJSON *s = cJSON_CreateObject();
            cJSON_AddStringToObject(s, "id", r->id);
            cJSON_AddNumberToObject(s, "line", r->line);
            cJSON_AddStringToObject(s, "why", r->skip);
            cJSON_AddItemToArray(skipped, s);
        } else {
            cJSON_AddItemToArray(r->holdout ? hold : fit, cJSON_CreateString(r->id));
        }
    }
    return o;
}

cJSON *fit_report(const struct fit_ctx *c, const char *data_path, const char *sha256, int fitted)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "schema", "sharesim-fit/1");
    cJSON *data = cJSON_AddObjectToObject(d, "data");
    cJSON_AddStringToObject(data, "path", data_path);
    cJSON_AddStringToObject(data, "sha256", sha256);
    cJSON_AddBoolToObject(d, "fitted", fitted);
    cJSON *serving;
    cJSON_AddItemToObject(d, "parameters", params_json(c, &serving));
    cJSON_AddItemToObject(d, "serving", serving);
    cJSON *how = cJSON_AddObjectToObject(d, "fit");
    cJSON_AddStringToObject(how, "objective_of",
                            c->l1 ? "sum over fit rows and measured metrics of "
                                    "|ln(predicted/measured)| (--robust)"
                                  : "sum over fit rows and measured metrics of "
                                    "ln(predicted/measured)^2");
    cJSON_AddStringToObject(how, "method", fitted ? "gsl nmsimplex2, logistic-bounded" : "none");
    jv_out_add(how, "objective", c->objective);
    cJSON_AddNumberToObject(how, "iterations", c->iterations);
    cJSON_AddBoolToObject(how, "converged", c->converged);
    cJSON_AddNumberToObject(how, "simulations", (double)c->sims);
    cJSON_AddStringToObject(d, "concurrency_client",
                            c->closed_loop ? "closed loop" : "emulated as one batch at t = 0");
    cJSON_AddItemToObject(d, "split", split_json(c));
    cJSON *rows = cJSON_AddArrayToObject(d, "rows");
    for (int i = 0; i < c->n_rows; i++)
        if (!*c->rows[i].skip)
            cJSON_AddItemToArray(rows, row_json(&c->rows[i]));
    cJSON *sum = cJSON_AddObjectToObject(d, "summary");
    cJSON_AddItemToObject(sum, "fit", summary(c, 0));
    cJSON_AddItemToObject(sum, "holdout", summary(c, 1));
    return d;
}
