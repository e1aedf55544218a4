/*
 * verdict — see verdict.h. The rule is vd_judge_figures and nothing else: the fillers only
 * read figures, the formatters only print them, so a new reason is one more check there
 * (docs/architecture.md, "A new verdict reason").
 */
#include "core/verdict.h"
#include "core/metric.h"
#include "core/llmstats.h"
#include "core/stable.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- words ---------------------------------------------------------------------------------- */

/* A duration as people read it: "34.5 ms", "2.4 s", "1268 s". */
static void fmt_time(double s, char *buf, size_t n)
{
    if (!isfinite(s))
        snprintf(buf, n, s > 0 ? ">= 24 days" : "-");
    else if (s < 1)
        snprintf(buf, n, "%.3g ms", s * 1e3);
    else if (s < 1000)
        snprintf(buf, n, "%.3g s", s);
    else
        snprintf(buf, n, "%.0f s", s);
}

/* A count with thousands separators ("3,178"); a mean over replications keeps one decimal. */
static void fmt_count(double x, char *buf, size_t n)
{
    double whole = floor(x + 0.5);
    if (fabs(x - whole) > 0.05 && x < 1e15) {
        snprintf(buf, n, "%.1f", x);
        return;
    }
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", whole);
    size_t len = strlen(digits), k = 0;
    for (size_t d = 0; d < len && k + 2 < n; d++) {
        if (d && (len - d) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = digits[d];
    }
    buf[k] = '\0';
}

void vd_fmt_ratio(double ratio, char *buf, size_t n)
{
    if (isnan(ratio))
        snprintf(buf, n, "no target");
    else if (isinf(ratio))
        snprintf(buf, n, "nothing measured");
    else if (ratio <= 1)
        snprintf(buf, n, "\xe2\x88\x92%.1f %%", 100 * (1 - ratio)); /* U+2212 minus */
    else
        snprintf(buf, n, "%.3g \xc3\x97 the target", ratio); /* U+00D7 times */
}

/* ---- the rule ---------------------------------------------------------------------------------
 */

static int set(double target)
{
    return target > 0;
}

static void worst(struct vd_verdict *v, double ratio)
{
    if (!(ratio <= v->worst_ratio))
        v->worst_ratio = ratio;
}

static void miss(struct vd_verdict *v, const char *fmt, const char *a, const char *b, const char *c)
{
    v->meets = 0;
    if (!v->reason[0])
        snprintf(v->reason, sizeof v->reason, fmt, a, b, c);
}

/* A "lower is better" latency target: figure / target, a miss above 1 or unmeasured. */
static void latency_target(struct vd_verdict *v, const char *what, double target, double fig)
{
    if (!set(target))
        return;
    char a[32], b[32];
    if (isnan(fig)) {
        worst(v, INFINITY);
        miss(v, "%s: nothing measured", what, "", "");
        return;
    }
    worst(v, fig / target);
    fmt_time(fig, a, sizeof a);
    fmt_time(target, b, sizeof b);
    if (!(fig <= target))
        miss(v, "%s %s > %s", what, a, b);
}

void vd_judge_figures(const struct vd_figures *f, struct vd_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->meets = 1;
    v->worst_ratio = NAN;
    v->has_sla = f->has_sla;
    if (!f->has_sla)
        return;
    char a[32], b[32];
    /* Unstable first: every other figure of such a tenant describes the run's length. */
    if (f->stable == 0) {
        if (isfinite(f->overload)) {
            worst(v, f->overload);
            snprintf(a, sizeof a, "%.3g", f->overload);
            miss(v, "unstable: offered %s \xc3\x97 its share", a, "", "");
        } else {
            miss(v, "unstable: its queue grows through the run", "", "", "");
        }
    }
    latency_target(v, "p99", f->p99_target_s, f->p99_s);
    latency_target(v, "TTFT p99", f->ttft_target_s, f->ttft_p99_s);
    latency_target(v, "TPOT p99", f->tpot_target_s, f->tpot_p99_s);
    if (set(f->min_throughput_per_s)) {
        double thr = isfinite(f->throughput_per_s) ? f->throughput_per_s : 0;
        worst(v, thr > 0 ? f->min_throughput_per_s / thr : INFINITY);
        snprintf(a, sizeof a, "%.3g", thr);
        snprintf(b, sizeof b, "%.3g", f->min_throughput_per_s);
        if (!(thr >= f->min_throughput_per_s))
            miss(v, "throughput %s < %s req/s", a, b, "");
    }
    double lost = (f->rejected > 0 ? f->rejected : 0) + (f->failed > 0 ? f->failed : 0);
    double frac = f->arrived > 0 ? lost / f->arrived : 0;
    double allow = f->max_lost_fraction > 0 ? f->max_lost_fraction : 0;
    if (allow > 0)
        worst(v, frac / allow);
    if (lost > 0 && !(frac <= allow)) {
        char what[80] = "", allowed[40] = "";
        size_t k = 0;
        if (f->rejected > 0) {
            fmt_count(f->rejected, a, sizeof a);
            k += (size_t)snprintf(what, sizeof what, "%s rejected", a);
        }
        if (f->failed > 0) {
            fmt_count(f->failed, a, sizeof a);
            snprintf(what + k, sizeof what - k, "%s%s failed", k ? ", " : "", a);
        }
        if (allow > 0)
            snprintf(allowed, sizeof allowed, " (%.3g %% > %.3g %%)", 100 * frac, 100 * allow);
        else
            v->lost_miss = frac;
        miss(v, "%s%s", what, allowed, "");
    }
}

/* ---- the two sources ---------------------------------------------------------------------- */

static void targets_of(const struct tenant_cfg *t, struct vd_figures *f)
{
    f->has_sla = t->sla.set;
    f->p99_target_s = t->sla_p99_s;
    f->ttft_target_s = t->llm ? t->llm->sla_ttft_p99_s : 0;
    f->tpot_target_s = t->llm ? t->llm->sla_tpot_p99_s : 0;
    f->min_throughput_per_s = t->sla.min_throughput_per_s;
    f->max_lost_fraction = t->sla.max_lost_fraction;
}

void vd_figures_of_result(const struct scenario *sc, const struct strategy_result *r, int i,
                          struct vd_figures *f)
{
    const double *t = r->t + (size_t)i * TM_N;
    memset(f, 0, sizeof *f);
    targets_of(&sc->tenants[i], f);
    f->p99_s = t[TM_COMPLETED] > 0 ? t[TM_LAT_P99] : NAN;
    f->throughput_per_s = t[TM_THROUGHPUT];
    f->arrived = t[TM_ARRIVED];
    f->rejected = t[TM_REJECTED];
    f->failed = t[TM_FAILED];
    const double *m = r->llm && sc->tenants[i].llm ? r->llm + (size_t)i * LM_N : NULL;
    f->ttft_p99_s = m ? m[LM_TTFT_P99] : NAN;
    f->tpot_p99_s = m ? m[LM_TPOT_P99] : NAN;
    f->stable = stab_state(r, i);
    f->overload = r->load && r->capacity && r->capacity[i] > 0 ? r->load[i] / r->capacity[i] : NAN;
}

/* A figure of a tenant object read back, through the metric table (seconds for a latency, +inf
 * past the histogram's range, NaN when absent). */
static double fig(const cJSON *tenant, enum mt_level level, int index)
{
    return mt_doc_inside(mt_of(level, index), tenant);
}

/* A target a sweep point sets for tenant i ("tenants.I.sla.KEY"): its value, else dflt. */
static double swept(const cJSON *doc, int i, const char *key, double dflt, double scale)
{
    const cJSON *params =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "sweep"), "params");
    char path[96];
    snprintf(path, sizeof path, "tenants.%d.sla.%s", i, key);
    const cJSON *v = params ? cJSON_GetObjectItemCaseSensitive(params, path) : NULL;
    return cJSON_IsNumber(v) ? v->valuedouble * scale : dflt;
}

int vd_figures_of_json(const struct scenario *sc, const cJSON *doc, const cJSON *tenant,
                       struct vd_figures *f)
{
    memset(f, 0, sizeof *f);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(tenant, "name");
    int i = sc && cJSON_IsString(name) ? scn_tenant_index(sc, name->valuestring) : -1;
    if (i < 0)
        return -1;
    targets_of(&sc->tenants[i], f);
    f->p99_target_s = swept(doc, i, "p99_ms", f->p99_target_s, 1e-3);
    f->ttft_target_s = swept(doc, i, "ttft_p99_ms", f->ttft_target_s, 1e-3);
    f->tpot_target_s = swept(doc, i, "tpot_p99_ms", f->tpot_target_s, 1e-3);
    f->min_throughput_per_s = swept(doc, i, "min_throughput_per_s", f->min_throughput_per_s, 1);
    f->max_lost_fraction = swept(doc, i, "max_lost_fraction", f->max_lost_fraction, 1);
    f->p99_s = fig(tenant, MT_TENANT, TM_COMPLETED) > 0 ? fig(tenant, MT_TENANT, TM_LAT_P99) : NAN;
    f->throughput_per_s = fig(tenant, MT_TENANT, TM_THROUGHPUT);
    f->arrived = fig(tenant, MT_TENANT, TM_ARRIVED);
    f->rejected = fig(tenant, MT_TENANT, TM_REJECTED);
    f->failed = fig(tenant, MT_TENANT, TM_FAILED);
    f->ttft_p99_s = fig(tenant, MT_LLM, LM_TTFT_P99);
    f->tpot_p99_s = fig(tenant, MT_LLM, LM_TPOT_P99);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(tenant, "stable");
    f->stable = cJSON_IsBool(st) ? cJSON_IsTrue(st) : -1;
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(tenant, "overload");
    f->overload = cJSON_IsNumber(ov) ? ov->valuedouble : NAN;
    return 0;
}

void vd_judge(const struct scenario *sc, const struct strategy_result *r, int i,
              struct vd_verdict *v)
{
    struct vd_figures f;
    vd_figures_of_result(sc, r, i, &f);
    vd_judge_figures(&f, v);
}

void vd_judge_json(const struct scenario *sc, const cJSON *doc, const cJSON *tenant,
                   struct vd_verdict *v)
{
    struct vd_figures f;
    vd_figures_of_json(sc, doc, tenant, &f);
    vd_judge_figures(&f, v);
}

/* ---- a strategy --------------------------------------------------------------------------- */

void vd_strategy_init(struct vd_strategy *s)
{
    memset(s, 0, sizeof *s);
    s->meets = 1;
    s->worst_ratio = NAN;
}

void vd_strategy_add(struct vd_strategy *s, const char *tenant, const struct vd_verdict *v)
{
    if (!v->has_sla)
        return;
    s->n_sla++;
    if (!(v->worst_ratio <= s->worst_ratio) && !isnan(v->worst_ratio))
        s->worst_ratio = v->worst_ratio;
    if (v->meets)
        return;
    s->lost_miss = v->lost_miss > s->lost_miss ? v->lost_miss : s->lost_miss;
    if (s->n_miss++ == 0)
        snprintf(s->reason, sizeof s->reason, "%s: %s", tenant, v->reason);
    s->meets = 0;
}

void vd_judge_strategy(const struct scenario *sc, const struct strategy_result *r,
                       struct vd_strategy *s)
{
    vd_strategy_init(s);
    for (int i = 0; i < sc->n_tenants; i++) {
        struct vd_verdict v;
        vd_judge(sc, r, i, &v);
        vd_strategy_add(s, sc->tenants[i].name, &v);
    }
}

int vd_closer(double lost_a, double ratio_a, double lost_b, double ratio_b)
{
    if (lost_a != lost_b)
        return lost_a > lost_b ? -1 : 1;
    double a = isnan(ratio_a) ? INFINITY : ratio_a, b = isnan(ratio_b) ? INFINITY : ratio_b;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* NaN and ±inf order after every finite value. */
static int vd_order(double a, double b)
{
    a = isfinite(a) ? a : INFINITY;
    b = isfinite(b) ? b : INFINITY;
    return a < b ? 1 : a > b ? -1 : 0;
}

int vd_cheaper(double cost_a, double gpus_a, double ratio_a, double cost_b, double gpus_b,
               double ratio_b)
{
    int o = vd_order(cost_a, cost_b);
    if (o == 0)
        o = vd_order(gpus_a, gpus_b);
    return o ? o : vd_order(ratio_a, ratio_b);
}

void vd_cell(const struct vd_verdict *v, char *buf, size_t n)
{
    if (!v->has_sla)
        snprintf(buf, n, "-");
    else if (v->meets)
        snprintf(buf, n, "\xe2\x9c\x93"); /* ✓ */
    else
        snprintf(buf, n, "\xe2\x9c\x97 %s", v->reason); /* ✗ */
}

cJSON *vd_json(const struct vd_verdict *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "meets", v->meets);
    if (v->meets)
        cJSON_AddNullToObject(o, "reason");
    else
        cJSON_AddStringToObject(o, "reason", v->reason);
    if (isfinite(v->worst_ratio)) {
        char raw[32];
        snprintf(raw, sizeof raw, "%.6g", v->worst_ratio);
        cJSON_AddItemToObject(o, "worst_ratio", cJSON_CreateRaw(raw));
    } else {
        cJSON_AddNullToObject(o, "worst_ratio");
    }
    return o;
}

void vd_add_json(cJSON *tenant, const struct scenario *sc, const struct strategy_result *r, int i)
{
    struct vd_figures f;
    struct vd_verdict v;
    vd_figures_of_result(sc, r, i, &f);
    vd_judge_figures(&f, &v);
    if (f.stable == 0 && isfinite(f.overload)) {
        char raw[32];
        snprintf(raw, sizeof raw, "%.6g", f.overload);
        cJSON_AddItemToObject(tenant, "overload", cJSON_CreateRaw(raw));
    }
    if (v.has_sla)
        cJSON_AddItemToObject(tenant, "verdict", vd_json(&v));
}

double vd_attainment(const struct scenario *sc, const struct strategy_result *r, int i)
{
    const double *t = r->t + (size_t)i * TM_N;
    if (!sc->tenants[i].llm || !r->llm)
        return t[TM_SLA_ATTAINMENT];
    double good = r->llm[(size_t)i * LM_N + LM_GOODPUT];
    return t[TM_THROUGHPUT] > 0 ? good / t[TM_THROUGHPUT] : NAN;
}
