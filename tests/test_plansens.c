/* What the plan's answer rests on (issue 36): the profiles' stated ranges, the declared table of
 * which candidates read which low-confidence value, and the reruns at the ranges' ends. */
#include "testutil.h"
#include "base/util.h"
#include "calib/calib.h"
#include "calib/profile.h"
#include "calib/vrange.h"
#include "core/plancand.h"
#include "core/scenario.h"
#include "base/jsonv.h"
#include "llm/enginetime.h"
#include "tools/plansens.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shipped A100-80GB profile as a document, to patch. */
static cJSON *a100_doc(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/kernels/profiles/a100-80gb.json", tu_root());
    char *text = tu_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    return doc;
}

/* Writes doc to <tmpdir>/name (and frees it); returns the path. */
static char *write_doc(const char *name, cJSON *doc)
{
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    char *path = tu_write(name, text);
    free(text);
    return path;
}

/* Sets key's "range" to the JSON text range (NULL: removes it). */
static void set_range(cJSON *doc, const char *key, const char *range)
{
    cJSON *vo = cJSON_GetObjectItemCaseSensitive(doc, key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(vo);
    cJSON_DeleteItemFromObjectCaseSensitive(vo, "range");
    if (range)
        cJSON_AddItemToObject(vo, "range", cJSON_Parse(range));
}

/* The profile with key's range set to range must fail to load, naming the file, the value's
 * JSON path and part; `profile show` of it exits 2. */
static void expect_range_error(const char *key, const char *range, const char *part)
{
    cJSON *doc = a100_doc();
    set_range(doc, key, range);
    char path[700];
    snprintf(path, sizeof path, "%s", write_doc("bad-range.json", doc));
    struct gpu_profile p;
    char err[SS_ERRLEN] = "", want[128];
    CU_ASSERT_EQUAL(cal_load_file(path, &p, err, sizeof err), -1);
    snprintf(want, sizeof want, "\"%s.range\"", key);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad-range.json"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, part));
    if (!strstr(err, part) || !strstr(err, want))
        fprintf(stderr, "\n  got: %s\n", err);
    char cmd[800], out[4096], eb[4096];
    snprintf(cmd, sizeof cmd, "profile show %s", path);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, eb, sizeof eb), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(eb, want));
}

static void test_range_errors(void)
{
    expect_range_error("switch_us", "[50, 100]", "expected lo <= value <= hi, got [50, 100]");
    expect_range_error("switch_us", "[20, 30]", "for the value 40");
    expect_range_error("switch_us", "[100, 20]", "expected lo <= value <= hi");
    expect_range_error("switch_us", "5", "expected [lo, hi]");
    expect_range_error("switch_us", "[20]", "expected [lo, hi]");
    expect_range_error("switch_us", "[20, 100, 200]", "expected [lo, hi]");
    expect_range_error("switch_us", "[\"20\", 100]", "expected [lo, hi]");
    expect_range_error("mig_profiles", "[0, 1]", "only a number may have a range");
    /* A range that holds its value loads, and its ends are read back. */
    cJSON *doc = a100_doc();
    set_range(doc, "switch_us", "[40, 40]");
    struct gpu_profile p;
    char err[SS_ERRLEN] = "";
    CU_ASSERT_EQUAL(cal_load_file(write_doc("ok-range.json", doc), &p, err, sizeof err), 0);
    doc = a100_doc();
    double lo = 0, hi = 0;
    CU_ASSERT_EQUAL(vr_parse("x.json", "switch_us",
                             cJSON_GetObjectItemCaseSensitive(doc, "switch_us"), &lo, &hi, err,
                             sizeof err),
                    0);
    CU_ASSERT_DOUBLE_EQUAL(lo, 20, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(hi, 100, 1e-12);
    CU_ASSERT_EQUAL(vr_parse("x.json", "total_sms",
                             cJSON_GetObjectItemCaseSensitive(doc, "total_sms"), &lo, &hi, err,
                             sizeof err),
                    1);
    cJSON_Delete(doc);
}

/* Every shipped profile loads, and every low-confidence number in it the planner's table names
 * has a range (the rule of docs/calibration.md#ranges where the sources give none). */
static void test_shipped_ranges(void)
{
    static const char *const gpus[] = {"A10",       "A100-40GB", "A100-80GB", "B200",
                                       "H100-80GB", "H100-NVL",  "H100-PCIe", "H200-141GB",
                                       "H200-NVL",  "L4",        "L40S",      "V100-SXM2-16GB"};
    for (size_t g = 0; g < sizeof gpus / sizeof *gpus; g++) {
        cJSON *doc;
        char err[SS_ERRLEN] = "";
        int rc = prof_load(gpus[g], &doc, NULL, err, sizeof err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        for (int d = 0; d < plan_sens_n_deps; d++) {
            const cJSON *vo = cJSON_GetObjectItemCaseSensitive(doc, plan_sens_deps[d].key);
            const cJSON *c = cJSON_GetObjectItemCaseSensitive(vo, "confidence");
            if (!cJSON_IsString(c) || strcmp(c->valuestring, "low") != 0)
                continue;
            double lo, hi;
            int r = vr_parse(gpus[g], plan_sens_deps[d].key, vo, &lo, &hi, err, sizeof err);
            CU_ASSERT_EQUAL(r, 0);
            if (r != 0)
                fprintf(stderr, "\n  %s: %s has no range\n", gpus[g], plan_sens_deps[d].key);
        }
        cJSON_Delete(doc);
    }
}

static const char *two_tenants =
    "{\"name\": \"deps\", \"gpu\": \"A100-80GB\", \"gpus\": 2, \"seed\": 1, \"stop\": "
    "{\"requests\": 1000},"
    " \"tenants\": ["
    "  {\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 10},"
    "   \"work\": {\"dist\": \"exponential\", \"mean_ms\": 2}, \"sla\": {\"p99_ms\": 100}},"
    "  {\"name\": \"b\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 10},"
    "   \"work\": {\"dist\": \"exponential\", \"mean_ms\": 2}, \"sla\": {\"p99_ms\": 100}}],"
    " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}";

/* A candidate of kind with the strategy object text (NULL: {"name", "kind"} alone). */
static void cand(struct plan_cand *c, const char *kind, const char *strategy)
{
    memset(c, 0, sizeof *c);
    snprintf(c->kind, sizeof c->kind, "%s", kind);
    c->strategy = strategy ? cJSON_Parse(strategy) : pc_strategy("x", kind);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->strategy);
}

static int reads(const struct scenario *sc, const struct plan_cand *c, const char *key)
{
    return plan_sens_reads(sc, c, key) != NULL;
}

static void test_dependency_table(void)
{
    struct scenario sc;
    tu_load_text(two_tenants, &sc);
    struct plan_cand mps, excl, ts, mig, own;
    cand(&mps, "mps", NULL);
    cand(&excl, "exclusive", NULL);
    cand(&ts, "timeslice", NULL);
    cand(&mig, "mig",
         "{\"name\": \"x\", \"kind\": \"mig\", \"instances\": [{\"profile\": \"7g.80gb\","
         " \"nested\": {\"kind\": \"timeslice\"}}]}");
    cand(&own, "mps", "{\"name\": \"x\", \"kind\": \"mps\", \"bw_contention_loss\": 0.1}");
    /* MPS reads the MPS keys and the rate model's, nothing of time-slicing or vGPU. */
    CU_ASSERT(reads(&sc, &mps, "mps_bw_contention_loss"));
    CU_ASSERT(reads(&sc, &mps, "rate_memory_exponent"));
    CU_ASSERT(!reads(&sc, &mps, "switch_us"));
    CU_ASSERT(!reads(&sc, &mps, "vgpu_switch_us"));
    CU_ASSERT(!reads(&sc, &mps, "mig_create_s"));
    /* No fault is configured: the recovery after one is not read. */
    CU_ASSERT(!reads(&sc, &mps, "mps_recovery_s"));
    /* Exclusive GPUs read none of the sharing keys (and, with no LLM tenant, nothing at all). */
    for (int d = 0; d < plan_sens_n_deps; d++)
        CU_ASSERT(!reads(&sc, &excl, plan_sens_deps[d].key));
    CU_ASSERT(reads(&sc, &ts, "switch_us"));
    CU_ASSERT(reads(&sc, &ts, "timeslice_refill_us"));
    CU_ASSERT(!reads(&sc, &ts, "mps_bw_contention_loss"));
    /* A MIG instance time-sliced inside reads the switch too, and MIG its creation time. */
    CU_ASSERT(reads(&sc, &mig, "switch_us"));
    CU_ASSERT(reads(&sc, &mig, "mig_create_s"));
    CU_ASSERT(!reads(&sc, &mig, "mps_bw_contention_loss"));
    /* A time-sliced vGPU reads the vGPU switch, not the rate model's share terms; a MIG-backed
     * one the other way round. Fractional GPUs time-share: no share term either. */
    struct plan_cand vt, vm, fr;
    cand(&vt, "vgpu", NULL);
    cand(&vm, "vgpu", "{\"name\": \"x\", \"kind\": \"vgpu\", \"backing\": \"mig\"}");
    cand(&fr, "fractional", NULL);
    CU_ASSERT(reads(&sc, &vt, "vgpu_switch_us"));
    CU_ASSERT(reads(&sc, &vt, "vgpu_overhead_memory"));
    CU_ASSERT(!reads(&sc, &vt, "rate_compute_exponent"));
    CU_ASSERT(!reads(&sc, &vm, "vgpu_switch_us"));
    CU_ASSERT(reads(&sc, &vm, "rate_compute_exponent"));
    for (int d = 0; d < plan_sens_n_deps; d++)
        CU_ASSERT(!reads(&sc, &fr, plan_sens_deps[d].key));
    pc_free_cand(&vt);
    pc_free_cand(&vm);
    pc_free_cand(&fr);
    /* A strategy that states its own value does not read the profile's. */
    CU_ASSERT(!reads(&sc, &own, "mps_bw_contention_loss"));
    CU_ASSERT(reads(&sc, &own, "rate_compute_exponent"));
    /* Every row of the table names a key a shipped profile has, or an entry of the engine
     * table (frontend_serial_ms is optional there: trtllm's, not vllm's). */
    cJSON *doc = a100_doc();
    char epath[600];
    snprintf(epath, sizeof epath, "%s/kernels/profiles/engines/engines.json", tu_root());
    char *etext = tu_slurp(epath);
    cJSON *eng = etext ? cJSON_Parse(etext) : NULL;
    free(etext);
    CU_ASSERT_PTR_NOT_NULL_FATAL(eng);
    const cJSON *engines = cJSON_GetObjectItemCaseSensitive(eng, "engines"), *e;
    for (int d = 0; d < plan_sens_n_deps; d++) {
        int found = 0;
        if (!plan_sens_deps[d].engine)
            found = cJSON_GetObjectItemCaseSensitive(doc, plan_sens_deps[d].key) != NULL;
        cJSON_ArrayForEach(e, engines) found |=
            plan_sens_deps[d].engine &&
            cJSON_GetObjectItemCaseSensitive(e, plan_sens_deps[d].key) != NULL;
        CU_ASSERT(found);
    }
    cJSON_Delete(eng);
    cJSON_Delete(doc);
    pc_free_cand(&mps);
    pc_free_cand(&excl);
    pc_free_cand(&ts);
    pc_free_cand(&mig);
    pc_free_cand(&own);
    scn_free(&sc);
}

/* Two tenants time-sliced on one GPU, on an A100-80GB profile whose switch_us range is given by
 * range; p99 SLA p99_ms. Returns the scenario's path. */
static char *flip_scenario(const char *name, const char *range, int p99_ms)
{
    cJSON *doc = a100_doc();
    set_range(doc, "switch_us", range);
    char gpu[64], text[2000];
    snprintf(gpu, sizeof gpu, "%s-gpu.json", name);
    write_doc(gpu, doc);
    snprintf(text, sizeof text,
             "{\"name\": \"%s\", \"gpu\": \"%s\", \"seed\": 1, \"stop\": {\"requests\": 20000},"
             " \"plan\": {\"kinds\": [\"timeslice\"], \"headroom\": false},"
             " \"tenants\": ["
             "  {\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 100},"
             "   \"work\": {\"dist\": \"exponential\", \"mean_ms\": 2}, \"memory_gb\": 10,"
             "   \"sla\": {\"p99_ms\": %d}},"
             "  {\"name\": \"b\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 100},"
             "   \"work\": {\"dist\": \"exponential\", \"mean_ms\": 2}, \"memory_gb\": 10,"
             "   \"sla\": {\"p99_ms\": %d}}]}",
             name, gpu, p99_ms, p99_ms);
    char file[64];
    snprintf(file, sizeof file, "%s.json", name);
    return tu_write(file, text);
}

/* `plan --json` of path; the document (the caller frees it). */
static cJSON *plan_of(const char *path, const char *opts)
{
    char cmd[1200], out_path[700];
    snprintf(out_path, sizeof out_path, "%s/sens.plan.json", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "plan %s %s --json %s --quiet", opts, path, out_path);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    char *text = tu_slurp(out_path);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    return doc;
}

static const cJSON *sens_of(const cJSON *doc, const char *key)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(doc, "sensitivity"))
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(v, "key");
        if (cJSON_IsString(k) && strcmp(k->valuestring, key) == 0)
            return v;
    }
    return NULL;
}

static void test_hi_end_flips(void)
{
    /* 40 us a switch leaves the tenants well inside 100 ms; 2 ms a switch after every 1 ms
     * slice leaves a third of the GPU for 40 % of its load: unstable. */
    char path[700];
    snprintf(path, sizeof path, "%s", flip_scenario("flip", "[20, 2000]", 100));
    cJSON *doc = plan_of(path, "");
    CU_ASSERT_STRING_EQUAL(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(doc, "recommendation"), "strategy"),
            "kind")
            ->valuestring,
        "timeslice");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(doc, "sensitivity_of")->valuestring,
                           "recommendation");
    const cJSON *sw = sens_of(doc, "switch_us");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sw);
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sw, "rests_on")));
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(sw, "at_lo");
    const cJSON *hi = cJSON_GetObjectItemCaseSensitive(sw, "at_hi");
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(lo, "meets_sla")));
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(hi, "meets_sla")));
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hi, "flips")));
    CU_ASSERT_DOUBLE_EQUAL(tu_json_num(sw, "at_hi.at"), 2000, 1e-9);
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(hi, "reason");
    CU_ASSERT(cJSON_IsString(why) && strstr(why->valuestring, "unstable"));
    CU_ASSERT(tu_json_num(sw, "at_hi.worst_ratio") > 1);
    CU_ASSERT(tu_json_num(sw, "at_lo.worst_ratio") < 1);
    /* The figures at the ends bracket the plan's: a slower switch, a worse margin. */
    double plan_ratio = tu_json_num(doc, "recommendation.worst_ratio");
    CU_ASSERT(tu_json_num(sw, "at_lo.worst_ratio") <= plan_ratio);
    /* Values that do not flip are listed, each rerun at both ends. */
    const cJSON *refill = sens_of(doc, "timeslice_refill_us");
    CU_ASSERT_PTR_NOT_NULL_FATAL(refill);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(refill, "rests_on")));
    CU_ASSERT(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(refill, "at_hi")));
    /* Nothing of MPS or vGPU is listed for a time-sliced plan. */
    CU_ASSERT_PTR_NULL(sens_of(doc, "mps_bw_contention_loss"));
    CU_ASSERT_PTR_NULL(sens_of(doc, "vgpu_switch_us"));
    CU_ASSERT(tu_json_num(doc, "sensitivity_simulations") <= PLAN_SENS_MAX_RERUNS);
    cJSON_Delete(doc);
    /* The text says what the plan rests on, and the verdict at the end that flips. */
    char cmd[800], out[16384];
    snprintf(cmd, sizeof cmd, "plan %s", path);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rests on: switch_us 40 us (range 20 us to 2000 us)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "at 2000 us a: unstable"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "1 value can flip the verdict"));
}

static void test_nothing_flips(void)
{
    /* The shipped range (20 to 100 us) moves the p99 by a few per cent under a loose SLA. */
    char path[700];
    snprintf(path, sizeof path, "%s", flip_scenario("steady", "[20, 100]", 100));
    cJSON *doc = plan_of(path, "");
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, "sensitivity");
    CU_ASSERT(cJSON_GetArraySize(arr) >= 4);
    const cJSON *v;
    cJSON_ArrayForEach(v, arr)
    {
        CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(v, "rests_on")));
        CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(v, "at_hi"), "meets_sla")));
    }
    cJSON_Delete(doc);
    char cmd[800], out[16384];
    snprintf(cmd, sizeof cmd, "plan %s", path);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "no verdict flips within the stated ranges"));
    CU_ASSERT_PTR_NULL(strstr(out, "rests on: switch_us"));
    /* --no-sensitivity: no reruns, and the document says it was not measured. */
    doc = plan_of(path, "--no-sensitivity");
    CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "sensitivity")));
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(doc, "sensitivity_simulations"));
    cJSON_Delete(doc);
}

static void test_deterministic(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s", flip_scenario("again", "[20, 2000]", 100));
    char *text[2];
    for (int k = 0; k < 2; k++) {
        cJSON *doc = plan_of(path, "");
        text[k] = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(doc, "sensitivity"));
        cJSON_Delete(doc);
    }
    CU_ASSERT_STRING_EQUAL(text[0], text[1]);
    free(text[0]);
    free(text[1]);
    /* The reruns leave no override behind: the profile loads as shipped afterwards. */
    struct gpu_profile p;
    tu_gpu_at(__FILE__, __LINE__, "A100-80GB", &p);
    CU_ASSERT_DOUBLE_EQUAL(p.switch_s, 40e-6, 1e-12);
    cal_set_override("switch_us", 77);
    tu_gpu_at(__FILE__, __LINE__, "A100-80GB", &p);
    CU_ASSERT_DOUBLE_EQUAL(p.switch_s, 77e-6, 1e-12);
    cal_set_override(NULL, 0);
    tu_gpu_at(__FILE__, __LINE__, "A100-80GB", &p);
    CU_ASSERT_DOUBLE_EQUAL(p.switch_s, 40e-6, 1e-12);
}

/* An LLM tenant on the engine model reads the engine's CPU terms: they are rerun under their
 * framework's name, and a malformed range in the engine table is a load error with its path. */
static void test_engine_terms(void)
{
    cJSON *doc = plan_of(tu_fixture("plan/llm-tpot.json"), "--no-headroom");
    const cJSON *step = sens_of(doc, "vllm.cpu_step_ms");
    CU_ASSERT_PTR_NOT_NULL_FATAL(step);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(step, "unit")->valuestring, "ms");
    /* A slower engine step takes margin away, a faster one gives it. */
    CU_ASSERT(tu_json_num(step, "at_hi.worst_ratio") > tu_json_num(step, "at_lo.worst_ratio"));
    CU_ASSERT_PTR_NOT_NULL(sens_of(doc, "llm_bandwidth_efficiency"));
    /* An exclusive GPU reads none of the sharing keys. */
    CU_ASSERT_PTR_NULL(sens_of(doc, "switch_us"));
    CU_ASSERT_PTR_NULL(sens_of(doc, "mps_bw_contention_loss"));
    cJSON_Delete(doc);
    char epath[600];
    snprintf(epath, sizeof epath, "%s/kernels/profiles/engines/engines.json", tu_root());
    char *text = tu_slurp(epath);
    cJSON *eng = text ? cJSON_Parse(text) : NULL;
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(eng);
    cJSON *vo = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(eng, "engines"), 0), "cpu_step_ms");
    cJSON_DeleteItemFromObjectCaseSensitive(vo, "range");
    cJSON_AddItemToObject(vo, "range", cJSON_Parse("[2, 3]"));
    char bad[700];
    snprintf(bad, sizeof bad, "%s", write_doc("bad-engines.json", eng));
    struct etm_cfg c;
    char err[SS_ERRLEN] = "";
    struct jv j = {"inline.json", err, sizeof err};
    cJSON *obj = cJSON_Parse("{\"framework\": \"vllm\"}");
    CU_ASSERT_EQUAL(etm_parse(&j, obj, "tenants[0].serving", bad, &c), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "engines[0].cpu_step_ms.range"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "for the value 1.144"));
    if (!strstr(err, "engines[0].cpu_step_ms.range"))
        fprintf(stderr, "\n  got: %s\n", err);
    cJSON_Delete(obj);
}

static void test_profile_show_lists_range(void)
{
    char out[200000];
    CU_ASSERT_EQUAL(tu_cli("profile show A100-80GB --width 200", out, sizeof out, NULL, 0), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "range: 20 to 100 us"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "range: 2 to 5 s"));
}

void test_plansens_register(void)
{
    static const struct tu_test t[] = {
        {"a value's range: parsed, and each malformed range an error with its path",
         test_range_errors},
        {"every shipped low-confidence value the planner reads has a range", test_shipped_ranges},
        {"the declared table: MPS reads the MPS keys, exclusive none of the sharing keys",
         test_dependency_table},
        {"a switch cost at the top of its range flips the verdict: the plan rests on it",
         test_hi_end_flips},
        {"nothing flips within the shipped ranges; --no-sensitivity skips the reruns",
         test_nothing_flips},
        {"the reruns are deterministic and leave the profile as shipped", test_deterministic},
        {"profile show lists each value's range", test_profile_show_lists_range},
        {"an LLM tenant's engine CPU terms: rerun by framework, their ranges checked",
         test_engine_terms},
        {NULL, NULL},
    };
    tu_add_suite("plansens", t);
}
