/*
 * rdoc — see rdoc.h. The document's structural keys (its arrays, names, the "llm" object, a
 * MIG layout's members) are spelled here once, beside what report/report.c and the policies
 * write; its figures are the metric table's.
 */
#include "core/rdoc.h"
#include "base/jsonv.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cJSON *member(const cJSON *obj, const char *key)
{
    return obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

static const char *str_member(const cJSON *obj, const char *key)
{
    const cJSON *v = member(obj, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num_member(const cJSON *obj, const char *key)
{
    const cJSON *v = member(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int rd_load(const char *path, cJSON **doc, char *err, size_t errlen)
{
    char *text;
    size_t len;
    *doc = NULL;
    if (ss_read_file(path, RD_MAX_BYTES, &text, &len, err, errlen))
        return -1;
    struct jv j = {path, err, errlen};
    cJSON *root = jv_parse(&j, text, len);
    free(text);
    if (!root)
        return -1;
    if (!cJSON_IsArray(rd_strategies(root))) {
        cJSON_Delete(root);
        return jv_fail(&j, "strategies", "expected an array (a result of `sharesim run --json`)");
    }
    int k = 0;
    const cJSON *s;
    RD_EACH_STRATEGY(s, root)
    {
        char p[64];
        jv_path_idx(p, sizeof p, "strategies", k++);
        if (!cJSON_IsString(member(s, "name")) || !cJSON_IsArray(rd_tenants(s))) {
            cJSON_Delete(root);
            return jv_fail(&j, p, "expected an object with \"name\" and \"tenants\"");
        }
    }
    *doc = root;
    return 0;
}

void rd_head_of(const cJSON *doc, struct rd_head *h)
{
    h->scenario = str_member(doc, "scenario");
    h->gpu = str_member(doc, "gpu");
    h->gpus = num_member(doc, "gpus");
    h->seed = num_member(doc, "seed");
    h->replications = num_member(doc, "replications");
    h->load_scale = num_member(doc, "load_scale");
}

const cJSON *rd_strategies(const cJSON *doc)
{
    return member(doc, "strategies");
}

const cJSON *rd_tenants(const cJSON *strategy)
{
    return member(strategy, "tenants");
}

int rd_n_tenants(const cJSON *strategy)
{
    return cJSON_GetArraySize(rd_tenants(strategy));
}

const char *rd_name(const cJSON *obj)
{
    return str_member(obj, "name");
}

const char *rd_kind(const cJSON *strategy)
{
    return str_member(strategy, "kind");
}

static const cJSON *named(const cJSON *arr, const char *name)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, arr)
    {
        if (strcmp(rd_name(x), name) == 0)
            return x;
    }
    return NULL;
}

const cJSON *rd_strategy(const cJSON *doc, const char *name)
{
    return named(rd_strategies(doc), name);
}

const cJSON *rd_tenant(const cJSON *strategy, const char *name)
{
    return named(rd_tenants(strategy), name);
}

double rd_fig(const cJSON *obj, enum mt_level level, int index)
{
    const struct mt_metric *m = mt_of(level, index);
    return m && obj ? mt_doc(m, obj, 0) : NAN;
}

double rd_over_tenants(const cJSON *strategy, enum mt_level level, int index, enum rd_over how)
{
    double acc = NAN, sum = 0;
    int n = 0;
    const cJSON *t;
    RD_EACH_TENANT(t, strategy)
    {
        double v = rd_fig(t, level, index);
        if (!isfinite(v))
            continue;
        sum += v;
        n++;
        if (!isfinite(acc) || (how == RD_MAX && v > acc) || (how == RD_MIN && v < acc))
            acc = v;
    }
    if (!n)
        return NAN;
    return how == RD_MEAN ? sum / n : how == RD_SUM ? sum : acc;
}

int rd_is_llm(const cJSON *tenant)
{
    return cJSON_IsObject(member(tenant, "llm"));
}

int rd_has_llm(const cJSON *doc)
{
    const cJSON *s, *t;
    RD_EACH_STRATEGY(s, doc)
    {
        RD_EACH_TENANT(t, s)
        {
            if (rd_is_llm(t))
                return 1;
        }
    }
    return 0;
}

int rd_stable(const cJSON *tenant)
{
    const cJSON *st = member(tenant, "stable");
    return cJSON_IsBool(st) ? cJSON_IsTrue(st) : -1;
}

const cJSON *rd_sweep_params(const cJSON *doc)
{
    return member(member(doc, "sweep"), "params");
}

const cJSON *rd_mig_gpus(const cJSON *strategy)
{
    return member(member(strategy, "details"), "gpus");
}

int rd_lists_instances(const cJSON *strategy)
{
    const cJSON *g;
    RD_EACH_GPU(g, strategy)
    {
        if (cJSON_IsArray(member(g, "instances")))
            return 1;
    }
    return 0;
}

int rd_uses_instances(const cJSON *strategy)
{
    const cJSON *g;
    RD_EACH_GPU(g, strategy)
    {
        if (cJSON_GetArraySize(member(g, "instances")) > 0)
            return 1;
    }
    return 0;
}

const char *rd_vgpu_scheduler(const cJSON *strategy)
{
    return str_member(member(strategy, "details"), "scheduler");
}

void rd_gpu_of(const cJSON *gpu, struct rd_gpu *g)
{
    g->instances = member(gpu, "instances");
    g->n = cJSON_GetArraySize(g->instances);
    g->stranded_compute = num_member(gpu, "stranded_compute_frac");
    g->stranded_memory = num_member(gpu, "stranded_memory_frac");
    g->fgd = num_member(gpu, "fgd");
}

void rd_instance_of(const cJSON *instance, struct rd_instance *in)
{
    in->profile = str_member(instance, "profile");
    in->start = num_member(instance, "start");
    in->utilization = num_member(instance, "utilization");
    in->tenants = member(instance, "tenants");
}

void rd_instance_tenants(const struct rd_instance *in, char *buf, size_t n)
{
    const cJSON *t;
    size_t len = 0;
    buf[0] = '\0';
    cJSON_ArrayForEach(t, in->tenants)
    {
        len += (size_t)snprintf(buf + len, n - len, "%s%s", t == in->tenants->child ? "" : "+",
                                cJSON_IsString(t) ? t->valuestring : "?");
        if (len >= n)
            break;
    }
}

void rd_cand_of(const cJSON *cand, struct rd_cand *c)
{
    static const char *const figs[RD_CAND_FIGS] = {"p99_ms", "ttft_p99_ms", "tpot_p99_ms",
                                                   "throughput_per_s"};
    c->kind = str_member(cand, "kind");
    if (!*c->kind)
        c->kind = rd_kind(member(cand, "strategy"));
    c->label = str_member(cand, "label");
    c->reason = str_member(cand, "reason");
    c->pruned = str_member(cand, "pruned");
    c->simulated = cJSON_IsTrue(member(cand, "simulated"));
    c->meets = cJSON_IsTrue(member(cand, "meets_sla"));
    c->gpus = num_member(cand, "gpus");
    c->cost_per_hour = num_member(cand, "cost_per_hour_usd");
    c->cost_per_mreq = num_member(cand, "cost_per_million_requests_usd");
    c->worst_ratio = num_member(cand, "worst_ratio");
    for (int f = 0; f < RD_CAND_FIGS; f++)
        c->fig[f] = member(cand, figs[f]);
}

double rd_cand_tenant(const struct rd_cand *c, enum rd_cand_fig f, const char *tenant)
{
    return num_member(c->fig[f], tenant);
}

void rd_plan_of(const cJSON *plan, struct rd_plan *p)
{
    const cJSON *rule = member(plan, "rule_of_thumb");
    p->recommendation =
        cJSON_IsObject(member(plan, "recommendation")) ? member(plan, "recommendation") : NULL;
    p->closest = cJSON_IsObject(member(plan, "closest")) ? member(plan, "closest") : NULL;
    p->candidates = member(plan, "candidates");
    p->rule = str_member(rule, "rule");
    p->rule_kind = str_member(rule, "kind");
    p->rule_agrees = cJSON_IsTrue(member(rule, "agrees"));
    p->simulations = num_member(plan, "simulations");
}
