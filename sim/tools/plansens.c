/*
 * plansens — the sensitivity of the plan's answer to its low-confidence profile values
 * (plansens.h). Which candidate reads which value is the declared table below, not a switch on
 * the kind, so a new strategy adds its rows here and nothing else changes.
 */
#include "tools/plansens.h"
#include "base/jsonv.h"
#include "base/util.h"
#include "calib/calib.h"
#include "calib/profile.h"
#include "calib/vrange.h"
#include "llm/enginetime.h"
#include "llm/serving.h"

#include <math.h>
#include <string.h>

static int any_llm(const struct scenario *sc)
{
    for (int i = 0; i < sc->n_tenants; i++)
        if (sc->tenants[i].llm)
            return 1;
    return 0;
}

static int engine_llm(const struct scenario *sc)
{
    for (int i = 0; i < sc->n_tenants; i++)
        if (sc->tenants[i].llm && sc->tenants[i].llm->etm.kind == STM_ENGINE)
            return 1;
    return 0;
}

static int process_faults(const struct scenario *sc)
{
    for (int i = 0; i < sc->n_tenants; i++)
        if (sc->tenants[i].fault_rate_per_h > 0)
            return 1;
    return 0;
}

static int gpu_faults(const struct scenario *sc)
{
    return sc->gpu_fault_rate_per_h > 0;
}

/* Who reads what (calib.h lists the keys; the strategies' loaders and core/rate.c read them).
 * The rate model's share terms are read where a tenant runs on part of the SMs: MPS clients,
 * MIG instances and MIG-backed vGPUs; fractional GPUs and time-slicing give each pod the whole
 * GPU for a time instead. */
const struct plan_sens_dep plan_sens_deps[] = {
    {"switch_us", 0, "timeslice", NULL, "switch_us", "a time-slice switch's base cost"},
    {"ctx_switch_gbps", 0, "timeslice", NULL, NULL, "a switch's save and restore of context state"},
    {"context_state_mb", 0, "timeslice", NULL, NULL, "a context's default state at a switch"},
    {"timeslice_refill_us", 0, "timeslice", NULL, "refill_us", "the warm-up after a switch"},
    {"vgpu_switch_us", 0, "vgpu-backing=mig", NULL, "switch_us", "a vGPU switch between VMs"},
    {"vgpu_overhead_compute", 0, "vgpu-backing=mig", NULL, NULL,
     "the hypervisor's cost on compute work"},
    {"vgpu_overhead_memory", 0, "vgpu-backing=mig", NULL, NULL,
     "the hypervisor's cost on memory work"},
    {"mps_bw_contention_loss", 0, "mps", NULL, "bw_contention_loss",
     "bandwidth lost when MPS clients' streams ask for more than the bus"},
    {"mps_recovery_s", 0, "mps", process_faults, NULL, "the MPS server's recovery after a fault"},
    {"mig_create_s", 0, "mig", NULL, "create_s", "creating a MIG instance at a layout change"},
    {"gpu_reset_s", 0, "*", gpu_faults, NULL, "a GPU's outage after a card fault"},
    {"rate_compute_exponent", 0, "mps mig vgpu+backing=mig", NULL, NULL,
     "compute speed against an SM share"},
    {"rate_memory_exponent", 0, "mps mig vgpu+backing=mig", NULL, NULL,
     "memory speed against a bandwidth share"},
    {"mem_bw_knee_sm_fraction", 0, "mps mig vgpu+backing=mig", NULL, NULL,
     "the bandwidth a share of the SMs pulls"},
    {"llm_compute_efficiency", 0, "*", any_llm, NULL, "an LLM step's compute time"},
    {"llm_bandwidth_efficiency", 0, "*", any_llm, NULL, "an LLM step's weight and KV reads"},
    {"cpu_step_ms", 1, "*", engine_llm, NULL, "the engine's CPU time per step"},
    {"cpu_per_seq_ms", 1, "*", engine_llm, NULL, "the engine's CPU time per sequence in a step"},
    {"frontend_ms", 1, "*", engine_llm, NULL, "the front end's time per request"},
    {"frontend_serial_ms", 1, "*", engine_llm, NULL,
     "the front end's serial time per request, which every request queues for"},
};
const int plan_sens_n_deps = (int)(sizeof plan_sens_deps / sizeof *plan_sens_deps);

/* Does strategy object o match one word of a table's kinds: "*", a kind ("mps"), or a kind with
 * a condition on one of its keys, "vgpu+backing=mig" (the key has that value) or
 * "vgpu-backing=mig" (it has not: absent, the default, counts as not)? */
static int word_matches(const cJSON *o, const char *w, size_t len)
{
    if (len == 1 && w[0] == '*')
        return 1;
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "kind");
    if (!cJSON_IsString(k))
        return 0;
    size_t kl = strcspn(w, "+- ");
    if (kl > len)
        kl = len;
    if (strlen(k->valuestring) != kl || strncmp(k->valuestring, w, kl) != 0)
        return 0;
    if (kl == len)
        return 1;
    int want = w[kl] == '+';
    const char *key = w + kl + 1, *eq = memchr(key, '=', len - kl - 1);
    if (!eq)
        return 0;
    char name[64], value[64];
    snprintf(name, sizeof name, "%.*s", (int)(eq - key), key);
    snprintf(value, sizeof value, "%.*s", (int)(w + len - eq - 1), eq + 1);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    int has = cJSON_IsString(v) && strcmp(v->valuestring, value) == 0;
    return has == want;
}

/* Does the strategy object, or one nested in it (a MIG instance's "nested" sharing), match a
 * word of the space-separated list? */
static int kind_in(const cJSON *o, const char *list)
{
    if (cJSON_IsObject(o))
        for (const char *p = list; *p;) {
            size_t l = strcspn(p, " ");
            if (word_matches(o, p, l))
                return 1;
            p += l + (p[l] == ' ');
        }
    const cJSON *it;
    cJSON_ArrayForEach(it, o)
    {
        if ((cJSON_IsObject(it) || cJSON_IsArray(it)) && kind_in(it, list))
            return 1;
    }
    return 0;
}

const struct plan_sens_dep *plan_sens_reads(const struct scenario *sc, const struct plan_cand *c,
                                            const char *key)
{
    for (int d = 0; d < plan_sens_n_deps; d++) {
        const struct plan_sens_dep *e = &plan_sens_deps[d];
        if (strcmp(e->key, key) != 0)
            continue;
        if (!c->strategy || !kind_in(c->strategy, e->kinds))
            return NULL;
        if (e->when && !e->when(sc))
            return NULL;
        if (e->own && cJSON_GetObjectItemCaseSensitive(c->strategy, e->own))
            return NULL; /* the strategy states its own value: the profile's is not read */
        return e;
    }
    return NULL;
}

/* The candidate's verdict over its variants with the override in place: the worst variant's, as
 * the plan judges it (a miss is worse than a meet, then the farther from meeting). */
static int rerun(const struct scenario *sc, struct plan_cand *c, int first, int n_variants,
                 plan_sens_run_fn run, struct plan_sens_end *e, int *runs, char *err, size_t errlen)
{
    int have = 0;
    for (int k = first; k < first + n_variants; k++) {
        struct plan_cand tmp = *c; /* run may write ->pruned: the plan's candidate stays */
        struct strategy_result res;
        int rc = run(sc, &tmp, k, &res, err, errlen);
        if (rc > 0)
            return ss_errf(err, errlen, "the rerun's strategy was refused: %s", tmp.pruned);
        if (rc < 0)
            return -1;
        ++*runs;
        struct vd_strategy v;
        vd_strategy_init(&v);
        int worst = -1;
        double top = -INFINITY;
        for (int i = 0; i < sc->n_tenants; i++) {
            struct vd_verdict tv;
            vd_judge(sc, &res, i, &tv);
            vd_strategy_add(&v, sc->tenants[i].name, &tv);
            if (tv.has_sla && !isnan(tv.worst_ratio) && tv.worst_ratio > top) {
                top = tv.worst_ratio;
                worst = i;
            }
        }
        if (k == first) {
            e->cost_per_hour = res.m[SM_COST_PER_HOUR];
            e->cost_per_mreq = res.m[SM_COST_PER_MREQ];
        }
        strategy_result_free(&res);
        int take =
            !have || (v.meets != e->v.meets ? !v.meets
                                            : vd_closer(v.lost_miss, v.worst_ratio, e->v.lost_miss,
                                                        e->v.worst_ratio) < 0);
        if (take) {
            e->v = v;
            snprintf(e->worst_tenant, sizeof e->worst_tenant, "%s",
                     worst >= 0 ? sc->tenants[worst].name : "");
            have = 1;
        }
    }
    e->ran = 1;
    return 0;
}

/* Does some LLM tenant on framework fw take the table's value of key (x) rather than its own? */
static int takes_table(const struct scenario *sc, const char *fw, const char *key, double x)
{
    for (int i = 0; i < sc->n_tenants; i++) {
        const struct lsv_cfg *l = sc->tenants[i].llm;
        if (!l || l->etm.kind != STM_ENGINE || strcmp(l->etm.framework, fw) != 0)
            continue;
        double own = strcmp(key, "cpu_step_ms") == 0          ? l->etm.cpu.step_s * 1e3
                     : strcmp(key, "cpu_per_seq_ms") == 0     ? l->etm.cpu.per_seq_s * 1e3
                     : strcmp(key, "frontend_serial_ms") == 0 ? l->etm.frontend_serial_s * 1e3
                                                              : l->etm.frontend_s * 1e3;
        if (fabs(own - x) <= 1e-9 * fabs(x))
            return 1;
    }
    return 0;
}

/* Appends the value object vo (named name) when it is low, or medium with a range. */
static int add_value(struct plan_sens *out, const char *path, const char *name, const cJSON *vo,
                     const struct plan_sens_dep *d, char *err, size_t errlen)
{
    const cJSON *conf = cJSON_GetObjectItemCaseSensitive(vo, "confidence");
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(vo, "value");
    if (!cJSON_IsString(conf) || !cJSON_IsNumber(val) || out->n >= PLAN_SENS_MAX_VALUES)
        return 0;
    double lo = 0, hi = 0;
    int r = vr_parse(path, name, vo, &lo, &hi, err, errlen);
    if (r < 0)
        return -1;
    int low = strcmp(conf->valuestring, "low") == 0;
    if (!low && !(r == 0 && strcmp(conf->valuestring, "medium") == 0))
        return 0;
    struct plan_sens_val *v = &out->v[out->n++];
    memset(v, 0, sizeof *v);
    snprintf(v->key, sizeof v->key, "%s", name);
    snprintf(v->confidence, sizeof v->confidence, "%s", conf->valuestring);
    v->value = val->valuedouble;
    v->has_range = r == 0;
    v->lo = lo;
    v->hi = hi;
    v->reads = d->reads;
    return 0;
}

/* The engine terms of the frameworks the LLM tenants use (engines.json), "vllm.cpu_step_ms". */
static int collect_engines(const struct scenario *sc, const struct plan_cand *c,
                           struct plan_sens *out, char *err, size_t errlen)
{
    if (!engine_llm(sc))
        return 0;
    const char *path = etm_table_path();
    struct jv j = {path, err, errlen};
    cJSON *root = jv_parse_file(&j, 1u << 20);
    if (!root)
        return -1;
    int rc = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "engines"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
        for (int d = 0; d < plan_sens_n_deps && rc == 0 && cJSON_IsString(name); d++) {
            const struct plan_sens_dep *dep = &plan_sens_deps[d];
            const cJSON *vo = cJSON_GetObjectItemCaseSensitive(e, dep->key);
            const cJSON *val = cJSON_GetObjectItemCaseSensitive(vo, "value");
            if (!dep->engine || !cJSON_IsNumber(val) || !plan_sens_reads(sc, c, dep->key) ||
                !takes_table(sc, name->valuestring, dep->key, val->valuedouble))
                continue;
            char key[64];
            snprintf(key, sizeof key, "%s.%s", name->valuestring, dep->key);
            rc = add_value(out, path, key, vo, dep, err, errlen);
        }
    }
    cJSON_Delete(root);
    return rc;
}

/* The profile's low-confidence values the candidate reads, in the profile's order; a value of
 * medium confidence joins them when the profile states a range for it. */
static int collect(const struct scenario *sc, const struct plan_cand *c, struct plan_sens *out,
                   char *err, size_t errlen)
{
    cJSON *doc;
    if (prof_load(sc->gpu.path, &doc, NULL, err, errlen))
        return -1;
    const cJSON *it;
    cJSON_ArrayForEach(it, doc)
    {
        const struct plan_sens_dep *d =
            prof_is_meta(it->string) ? NULL : plan_sens_reads(sc, c, it->string);
        if (d && !d->engine && add_value(out, sc->gpu.path, it->string, it, d, err, errlen)) {
            cJSON_Delete(doc);
            return -1;
        }
    }
    cJSON_Delete(doc);
    return collect_engines(sc, c, out, err, errlen);
}

int plan_sens_run(const struct scenario *sc, struct plan_cand *cands, int cand, int recommended,
                  int n_variants, plan_sens_run_fn run, struct plan_sens *out, char *err,
                  size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->cand = cand;
    out->recommended = recommended;
    if (cand < 0)
        return 0;
    struct plan_cand *c = &cands[cand];
    out->meets = c->feasible;
    if (collect(sc, c, out, err, errlen))
        return -1;
    /* Every end in every variant, when that fits the budget; else the worst variant alone. */
    int ends = 0;
    for (int i = 0; i < out->n; i++)
        ends += out->v[i].has_range *
                ((out->v[i].lo != out->v[i].value) + (out->v[i].hi != out->v[i].value));
    int worst_only = ends * n_variants > PLAN_SENS_MAX_RERUNS && n_variants > 1;
    int first = worst_only ? c->worst_variant : 0, per_end = worst_only ? 1 : n_variants;
    for (int i = 0; i < out->n; i++) {
        struct plan_sens_val *v = &out->v[i];
        if (!v->has_range) {
            snprintf(v->note, sizeof v->note, "no stated range in the profile: not rerun");
            continue;
        }
        for (int e = 0; e < 2; e++) {
            struct plan_sens_end *end = &v->end[e];
            end->at = e ? v->hi : v->lo;
            if (end->at == v->value)
                continue; /* that end is the plan's own run */
            if (out->reruns + per_end > PLAN_SENS_MAX_RERUNS) {
                snprintf(v->note, sizeof v->note,
                         "not rerun: the plan's %d sensitivity runs are spent",
                         PLAN_SENS_MAX_RERUNS);
                continue;
            }
            cal_set_override(v->key, end->at);
            int rc = rerun(sc, c, first, per_end, run, end, &out->reruns, err, errlen);
            end->worst_only = worst_only;
            cal_set_override(NULL, 0);
            if (rc)
                return -1;
            end->flips = end->v.meets != c->feasible;
            v->rests |= end->flips;
        }
    }
    return 0;
}

/* ---- output -------------------------------------------------------------------- */

static void fmt_value(const char *key, double x, char *buf, size_t n)
{
    const char *u = prof_unit(key);
    snprintf(buf, n, "%g%s%s", x, u[0] ? " " : "", u);
}

static void end_text(FILE *fp, const struct plan_sens_val *v, const struct plan_sens_end *e)
{
    char at[48], ratio[48];
    fmt_value(v->key, e->at, at, sizeof at);
    vd_fmt_ratio(e->v.worst_ratio, ratio, sizeof ratio);
    if (!e->v.meets)
        fprintf(fp, "at %s %s (%s)", at, e->v.reason, ratio);
    else
        fprintf(fp, "at %s meets (worst %s%s%s)", at, ratio, e->worst_tenant[0] ? ", " : "",
                e->worst_tenant);
    if (isfinite(e->cost_per_mreq))
        fprintf(fp, ", $%.3f/Mreq", e->cost_per_mreq);
    if (e->worst_only)
        fprintf(fp, " (the plan's worst variant only)");
}

void plan_sens_text(FILE *fp, const struct plan_sens *s)
{
    if (s->cand < 0)
        return;
    const char *who = s->recommended ? "the recommendation" : "the closest candidate";
    if (s->n == 0) {
        fprintf(fp, "rests on: no low-confidence profile value (%s reads none of them).\n", who);
        return;
    }
    int rests = 0;
    for (int i = 0; i < s->n; i++)
        rests += s->v[i].rests;
    fprintf(fp,
            "sensitivity of %s to the low-confidence profile values it reads (%d reruns, same "
            "random numbers):\n",
            who, s->reruns);
    for (int i = 0; i < s->n; i++) {
        const struct plan_sens_val *v = &s->v[i];
        char val[48], lo[48], hi[48];
        fmt_value(v->key, v->value, val, sizeof val);
        const char *label = v->rests                         ? "rests on:"
                            : v->end[0].ran || v->end[1].ran ? "holds at:"
                                                             : "not rerun:";
        fprintf(fp, "  %s %s %s", label, v->key, val);
        if (v->has_range) {
            fmt_value(v->key, v->lo, lo, sizeof lo);
            fmt_value(v->key, v->hi, hi, sizeof hi);
            fprintf(fp, " (range %s to %s)", lo, hi);
        }
        fprintf(fp, " [%s]", v->reads);
        for (int e = 0; e < 2; e++) {
            if (!v->end[e].ran)
                continue;
            fprintf(fp, e && v->end[0].ran ? "; " : ": ");
            end_text(fp, v, &v->end[e]);
        }
        if (v->note[0])
            fprintf(fp, "%s%s", v->end[0].ran || v->end[1].ran ? "; " : ": ", v->note);
        fprintf(fp, "\n");
    }
    if (rests)
        fprintf(fp,
                "  %d value%s can flip the verdict within %s: measure %s before relying on "
                "the plan (a cheaper candidate at the other end was not rerun).\n",
                rests, rests == 1 ? "" : "s", rests == 1 ? "its range" : "their ranges",
                rests == 1 ? "it" : "them");
    else
        fprintf(fp, "  no verdict flips within the stated ranges.\n");
}

static cJSON *end_json(const struct plan_sens_end *e)
{
    cJSON *o = cJSON_CreateObject();
    jv_out_add(o, "at", e->at);
    cJSON_AddBoolToObject(o, "meets_sla", e->v.meets);
    if (e->v.meets)
        cJSON_AddNullToObject(o, "reason");
    else
        cJSON_AddStringToObject(o, "reason", e->v.reason);
    jv_out_add(o, "worst_ratio", e->v.worst_ratio);
    jv_out_add(o, "worst_sla_margin", isnan(e->v.worst_ratio) ? NAN : 1 - e->v.worst_ratio);
    cJSON_AddStringToObject(o, "worst_tenant", e->worst_tenant);
    jv_out_add(o, "cost_per_hour_usd", e->cost_per_hour);
    jv_out_add(o, "cost_per_million_requests_usd", e->cost_per_mreq);
    cJSON_AddBoolToObject(o, "flips", e->flips);
    cJSON_AddBoolToObject(o, "worst_variant_only", e->worst_only);
    return o;
}

cJSON *plan_sens_json(const struct plan_sens *s)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < s->n; i++) {
        const struct plan_sens_val *v = &s->v[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "key", v->key);
        cJSON_AddStringToObject(o, "unit", prof_unit(v->key));
        cJSON_AddStringToObject(o, "confidence", v->confidence);
        jv_out_add(o, "value", v->value);
        if (v->has_range) {
            cJSON *r = cJSON_AddArrayToObject(o, "range");
            cJSON_AddItemToArray(r, cJSON_CreateNumber(v->lo));
            cJSON_AddItemToArray(r, cJSON_CreateNumber(v->hi));
        } else {
            cJSON_AddNullToObject(o, "range");
        }
        cJSON_AddStringToObject(o, "read_by", v->reads);
        const char *names[2] = {"at_lo", "at_hi"};
        for (int e = 0; e < 2; e++) {
            if (v->end[e].ran)
                cJSON_AddItemToObject(o, names[e], end_json(&v->end[e]));
            else
                cJSON_AddNullToObject(o, names[e]);
        }
        cJSON_AddBoolToObject(o, "rests_on", v->rests);
        if (v->note[0])
            cJSON_AddStringToObject(o, "note", v->note);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}
