/*
 * traceview — a trace's summary (tracestats.h) rendered for `sharesim trace stats`: the text
 * (one figure a line, "n/a" for a figure a short trace lacks) and the JSON object (null for
 * those). Beside the struct it prints, so a new figure is added in this module.
 */
#include "io/traceview.h"

#include <math.h>

static void text_num(FILE *fp, const char *label, double x)
{
    if (isnan(x))
        fprintf(fp, "%-14s n/a\n", label);
    else
        fprintf(fp, "%-14s %.7g\n", label, x);
}

static void text_counts(FILE *fp, const char *label, const struct trs_counts *c)
{
    fprintf(fp, "%-14s mean %.6g  p50 %.6g  p90 %.6g  p99 %.6g  min %lld  max %lld%s\n", label,
            c->mean, c->p50, c->p90, c->p99, c->min, c->max,
            c->exact ? "" : "  (percentiles within 1.6%: values above 65535)");
}

void trs_print(FILE *fp, const char *path, const struct tr_opts *o, const struct trs_summary *s)
{
    fprintf(fp, "%-14s %s\n", "trace", path);
    fprintf(fp, "%-14s %s\n", "format", tr_format_name(s->fmt));
    if (o->time_scale != 1.0)
        fprintf(fp, "%-14s %.7g\n", "time_scale", o->time_scale);
    if (o->limit > 0)
        fprintf(fp, "%-14s %lld\n", "limit", o->limit);
    fprintf(fp, "%-14s %lld\n", s->fmt == TR_OPENB ? "pods" : "requests", s->count);
    text_num(fp, "first_s", s->first_s);
    text_num(fp, "last_s", s->last_s);
    text_num(fp, "duration_s", s->duration_s);
    text_num(fp, "rate_per_s", s->rate_per_s);
    text_num(fp, "ia_mean_s", s->ia_mean_s);
    text_num(fp, "ia_cv", s->ia_cv);
    text_num(fp, "ia_max_s", s->ia_max_s);
    if (s->input_tokens.n)
        text_counts(fp, "input_tokens", &s->input_tokens);
    if (s->output_tokens.n)
        text_counts(fp, "output_tokens", &s->output_tokens);
    if (s->work_n)
        fprintf(fp, "%-14s mean %.6g  cv %.4g  min %.6g  max %.6g\n", "work_ms", s->work_mean_ms,
                s->work_cv, s->work_min_ms, s->work_max_ms);
    if (s->fmt == TR_OPENB) {
        fprintf(fp, "%-14s %lld (%lld share one GPU: gpu_milli < 1000)\n", "gpu_pods", s->gpu_pods,
                s->shared_gpu_pods);
        text_num(fp, "mean_gpus", s->mean_gpus);
        text_num(fp, "mean_life_s", s->mean_lifetime_s);
    }
}

static void json_num(cJSON *o, const char *key, double x)
{
    if (isfinite(x))
        cJSON_AddNumberToObject(o, key, x);
    else
        cJSON_AddNullToObject(o, key);
}

static void json_counts(cJSON *root, const char *key, const struct trs_counts *c)
{
    cJSON *o = cJSON_AddObjectToObject(root, key);
    cJSON_AddNumberToObject(o, "n", (double)c->n);
    json_num(o, "mean", c->mean);
    json_num(o, "p50", c->p50);
    json_num(o, "p90", c->p90);
    json_num(o, "p99", c->p99);
    cJSON_AddNumberToObject(o, "min", (double)c->min);
    cJSON_AddNumberToObject(o, "max", (double)c->max);
    cJSON_AddBoolToObject(o, "exact", c->exact);
}

cJSON *trs_json(const char *path, const struct tr_opts *o, const struct trs_summary *s)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "trace", path);
    cJSON_AddStringToObject(root, "format", tr_format_name(s->fmt));
    cJSON_AddNumberToObject(root, "time_scale", o->time_scale);
    cJSON_AddNumberToObject(root, "limit", (double)o->limit);
    cJSON_AddNumberToObject(root, "count", (double)s->count);
    json_num(root, "first_s", s->first_s);
    json_num(root, "last_s", s->last_s);
    json_num(root, "duration_s", s->duration_s);
    json_num(root, "rate_per_s", s->rate_per_s);
    cJSON *ia = cJSON_AddObjectToObject(root, "interarrival_s");
    json_num(ia, "mean", s->ia_mean_s);
    json_num(ia, "cv", s->ia_cv);
    json_num(ia, "max", s->ia_max_s);
    if (s->input_tokens.n)
        json_counts(root, "input_tokens", &s->input_tokens);
    if (s->output_tokens.n)
        json_counts(root, "output_tokens", &s->output_tokens);
    if (s->work_n) {
        cJSON *w = cJSON_AddObjectToObject(root, "work_ms");
        cJSON_AddNumberToObject(w, "n", (double)s->work_n);
        json_num(w, "mean", s->work_mean_ms);
        json_num(w, "cv", s->work_cv);
        json_num(w, "min", s->work_min_ms);
        json_num(w, "max", s->work_max_ms);
    }
    if (s->fmt == TR_OPENB) {
        cJSON *p = cJSON_AddObjectToObject(root, "pods");
        cJSON_AddNumberToObject(p, "gpu", (double)s->gpu_pods);
        cJSON_AddNumberToObject(p, "shared_gpu", (double)s->shared_gpu_pods);
        json_num(p, "mean_gpus", s->mean_gpus);
        json_num(p, "mean_lifetime_s", s->mean_lifetime_s);
    }
    return root;
}
