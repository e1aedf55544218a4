/*
 * enginetime — the engine's time outside the kernels (enginetime.h).
 *
 * The table is read on each tenant's load, as the model table is: it is a few entries.
 */
#include "llm/enginetime.h"

#include "base/util.h"
#include "calib/calib.h"
#include "calib/vrange.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *etm_table_path(void)
{
    static char path[PATH_MAX];
    const char *env = getenv("SHARESIM_ENGINES");
    if (env && *env)
        return env;
    snprintf(path, sizeof path, "%s/engines/engines.json", cal_profile_dir());
    return path;
}

/* The table's value of key in entry e (path names it): {"value": x, "source", "confidence"}. */
static int table_num(const struct jv *j, const cJSON *e, const char *path, const char *key,
                     double hi, double *out)
{
    char p[256];
    jv_path_key(p, sizeof p, path, key);
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(e, key);
    static const char *const keys[] = {"value", "source", "confidence", "note", "range", NULL};
    const char *s;
    double lo, top;
    if (!cJSON_IsObject(it))
        return jv_fail(j, p, "expected an object {\"value\": …, \"source\": …, \"confidence\": …}");
    if (jv_object(j, it, p, keys) || jv_str(j, it, p, "source", 1, &s) < 0 ||
        jv_str(j, it, p, "confidence", 1, &s) < 0 || jv_num(j, it, p, "value", 1, 0, hi, out) < 0)
        return -1;
    /* A stated range (calib/vrange.h), as a GPU profile's: the planner reruns at its ends. */
    return vr_parse(j->file, p, it, &lo, &top, j->err, j->errlen) < 0 ? -1 : 0;
}

/* The planner's sensitivity rerun of one engine term ("vllm.cpu_step_ms", cal_set_override). */
static void table_override(const char *name, const char *key, double *v)
{
    char k[96];
    snprintf(k, sizeof k, "%s.%s", name, key);
    cal_get_override(k, v);
}

/* An optional integer of the table in [0, hi] (chunked_prefill: 0 or 1): *out unchanged when
 * the entry has no such key. */
static int table_opt_int(const struct jv *j, const cJSON *e, const char *path, const char *key,
                         long hi, long *out)
{
    if (!cJSON_GetObjectItemCaseSensitive(e, key))
        return 0;
    double v;
    if (table_num(j, e, path, key, (double)hi, &v))
        return -1;
    if (v != floor(v) || (hi > 1 && v < 1)) {
        char p[256];
        return jv_fail(j, jv_path_key(p, sizeof p, path, key), "expected an integer in [%d, %ld]",
                       hi > 1 ? 1 : 0, hi);
    }
    *out = (long)v;
    return 0;
}

/* Fills the framework's defaults from the table. */
static int table_defaults(const char *table_path, const char *name, struct etm_cfg *c, char *err,
                          size_t errlen)
{
    const char *path = table_path ? table_path : etm_table_path();
    struct jv j = {path, err, errlen};
    cJSON *root = jv_parse_file(&j, 1u << 20);
    if (!root)
        return -1;
    int rc = -1, i = 0;
    static const char *const top[] = {"schema", "notes", "engines", NULL};
    static const char *const ekeys[] = {"name",
                                        "version",
                                        "server",
                                        "cpu_step_ms",
                                        "cpu_per_seq_ms",
                                        "frontend_ms",
                                        "frontend_serial_ms",
                                        "gemm_tflops_max",
                                        "small_kernels_fused",
                                        "overlap_cpu",
                                        "max_num_seqs",
                                        "max_batched_tokens",
                                        "chunked_prefill",
                                        "prefill_first",
                                        "guaranteed_no_evict",
                                        "notes",
                                        NULL};
    const cJSON *engines = cJSON_GetObjectItemCaseSensitive(root, "engines"), *e;
    char known[256] = "";
    if (jv_object(&j, root, "", top))
        goto out;
    if (!cJSON_IsArray(engines)) {
        jv_fail(&j, "engines", "expected an array of engines");
        goto out;
    }
    cJSON_ArrayForEach(e, engines)
    {
        char p[64];
        const char *n, *v;
        double step, seq, fe, ov;
        jv_path_idx(p, sizeof p, "engines", i++);
        if (!cJSON_IsObject(e)) {
            jv_fail(&j, p, "expected an object {\"name\", \"cpu_step_ms\", …}");
            goto out;
        }
        if (jv_object(&j, e, p, ekeys) || jv_str(&j, e, p, "name", 1, &n) < 0 ||
            jv_str(&j, e, p, "version", 1, &v) < 0 ||
            table_num(&j, e, p, "cpu_step_ms", 1e4, &step) ||
            table_num(&j, e, p, "cpu_per_seq_ms", 1e3, &seq) ||
            table_num(&j, e, p, "overlap_cpu", 1, &ov))
            goto out;
        /* "server": 0 is a release measured in an offline harness (TensorRT-LLM 0.9's
         * gptSessionBenchmark): no API server, so no front end of either kind, and a front-end
         * value beside it would contradict it. */
        long server = 1;
        if (table_opt_int(&j, e, p, "server", 1, &server))
            goto out;
        fe = 0;
        if (server) {
            if (table_num(&j, e, p, "frontend_ms", 1e5, &fe))
                goto out;
        } else {
            static const char *const fronts[] = {"frontend_ms", "frontend_serial_ms", NULL};
            for (int f = 0; fronts[f]; f++)
                if (cJSON_GetObjectItemCaseSensitive(e, fronts[f])) {
                    char q[256];
                    jv_fail(&j, jv_path_key(q, sizeof q, p, fronts[f]),
                            "not allowed in an entry of \"server\": 0 (an engine measured "
                            "without an API server has no front end): expected no such key");
                    goto out;
                }
        }
        if (strcmp(n, name) == 0) {
            if (table_opt_int(&j, e, p, "max_num_seqs", 65536, &c->max_num_seqs) ||
                table_opt_int(&j, e, p, "max_batched_tokens", 10000000, &c->max_batched_tokens))
                goto out;
            long cp = -1;
            if (table_opt_int(&j, e, p, "chunked_prefill", 1, &cp))
                goto out;
            c->chunked_prefill = cp < 0 ? -1 : (int)cp;
            long pf = -1;
            if (table_opt_int(&j, e, p, "prefill_first", 1, &pf))
                goto out;
            c->prefill_first = pf < 0 ? -1 : (int)pf;
            long ne = -1;
            if (table_opt_int(&j, e, p, "guaranteed_no_evict", 1, &ne))
                goto out;
            c->no_evict = ne < 0 ? -1 : (int)ne;
            table_override(n, "cpu_step_ms", &step);
            table_override(n, "cpu_per_seq_ms", &seq);
            table_override(n, "frontend_ms", &fe);
            c->cpu.step_s = step * 1e-3;
            c->cpu.per_seq_s = seq * 1e-3;
            c->frontend_s = fe * 1e-3;
            c->cpu.overlap = ov != 0;
            double fs = 0;
            if (cJSON_GetObjectItemCaseSensitive(e, "frontend_serial_ms") &&
                table_num(&j, e, p, "frontend_serial_ms", ETM_MAX_FRONTEND_SERIAL_MS, &fs))
                goto out;
            table_override(n, "frontend_serial_ms", &fs);
            c->frontend_serial_s = fs * 1e-3;
            double gt = 0;
            if (cJSON_GetObjectItemCaseSensitive(e, "gemm_tflops_max") &&
                table_num(&j, e, p, "gemm_tflops_max", ETM_MAX_GEMM_TFLOPS, &gt))
                goto out;
            table_override(n, "gemm_tflops_max", &gt);
            c->cpu.gemm_flops_max = gt * 1e12;
            double sf = 0;
            if (cJSON_GetObjectItemCaseSensitive(e, "small_kernels_fused") &&
                table_num(&j, e, p, "small_kernels_fused", 1, &sf))
                goto out;
            table_override(n, "small_kernels_fused", &sf);
            c->cpu.small_fused = sf;
            rc = 0;
            goto out;
        }
        size_t k = strlen(known);
        snprintf(known + k, sizeof known - k, "%s\"%s\"", k ? ", " : "", n);
    }
    ss_errf(err, errlen, "unknown framework \"%s\": expected one of %s (%s)", name, known, path);
out:
    cJSON_Delete(root);
    return rc;
}

int etm_has_framework(const char *table_path, const char *name)
{
    struct etm_cfg c;
    char err[SS_ERRLEN];
    memset(&c, 0, sizeof c);
    return table_defaults(table_path, name, &c, err, sizeof err) == 0;
}

int etm_parse(const struct jv *j, const cJSON *obj, const char *path, const char *table_path,
              struct etm_cfg *c)
{
    int kind = STM_ENGINE, overlap = -1;
    const char *fw = "vllm";
    char p[512];
    memset(c, 0, sizeof *c);
    c->chunked_prefill = c->prefill_first = c->no_evict = -1;
    if (jv_enum(j, obj, path, "step_model", 0, stm_kind_names, &kind) < 0 ||
        jv_str(j, obj, path, "framework", 0, &fw) < 0)
        return -1;
    c->kind = (enum stm_kind)kind;
    if (strlen(fw) >= sizeof c->framework)
        return jv_fail(j, jv_path_key(p, sizeof p, path, "framework"),
                       "expected at most %zu characters", sizeof c->framework - 1);
    strcpy(c->framework, fw);
    if (c->kind == STM_ROOFLINE) {
        /* The roofline has no engine terms: they would be silently ignored. */
        static const char *const engine_only[] = {
            "cpu_step_ms",         "cpu_per_seq_ms", "frontend_ms",
            "frontend_serial_ms",  "overlap_cpu",    "gemm_tflops_max",
            "small_kernels_fused", "framework",      NULL};
        for (int i = 0; engine_only[i]; i++)
            if (cJSON_GetObjectItemCaseSensitive(obj, engine_only[i]))
                return jv_fail(j, jv_path_key(p, sizeof p, path, engine_only[i]),
                               "not used by \"step_model\": \"roofline\" (its only engine time is "
                               "step_overhead_ms)");
        return 0;
    }
    char err[SS_ERRLEN];
    if (table_defaults(table_path, fw, c, err, sizeof err))
        return jv_fail(j, jv_path_key(p, sizeof p, path, "framework"), "%s", err);
    double step = c->cpu.step_s * 1e3, seq = c->cpu.per_seq_s * 1e3, fe = c->frontend_s * 1e3,
           fs = c->frontend_serial_s * 1e3, gt = -1, sf = c->cpu.small_fused;
    if (jv_num(j, obj, path, "cpu_step_ms", 0, 0, 1e4, &step) < 0 ||
        jv_num(j, obj, path, "cpu_per_seq_ms", 0, 0, 1e3, &seq) < 0 ||
        jv_num(j, obj, path, "frontend_ms", 0, 0, 1e5, &fe) < 0 ||
        jv_num(j, obj, path, "frontend_serial_ms", 0, 0, ETM_MAX_FRONTEND_SERIAL_MS, &fs) < 0 ||
        jv_num(j, obj, path, "gemm_tflops_max", 0, 0, ETM_MAX_GEMM_TFLOPS, &gt) < 0 ||
        jv_num(j, obj, path, "small_kernels_fused", 0, 0, 1, &sf) < 0 ||
        jv_bool(j, obj, path, "overlap_cpu", 0, &overlap) < 0)
        return -1;
    c->cpu.step_s = step * 1e-3;
    c->cpu.per_seq_s = seq * 1e-3;
    c->frontend_s = fe * 1e-3;
    c->frontend_serial_s = fs * 1e-3;
    c->cpu.small_fused = sf;
    if (gt >= 0) /* the scenario's ceiling replaces the table's */
        c->cpu.gemm_flops_max = gt * 1e12;
    if (overlap >= 0)
        c->cpu.overlap = overlap;
    return 0;
}

double etm_decode_floor_s(const struct etm_cfg *c, const struct lm_model *m,
                          enum roof_dtype weights, enum roof_dtype kv, const struct gpu_roof *roof,
                          double hbm_bw_gbps, const struct kc_gpu *kc, double step_overhead_s,
                          double f, double b, double *weight_bw_eff)
{
    struct stm_cpu cpu = c->cpu;
    cpu.step_s += step_overhead_s;
    struct stm sm;
    stm_init(&sm, c->kind, m, weights, kv, roof, hbm_bw_gbps, &cpu, step_overhead_s,
             c->kind == STM_ENGINE ? kc : NULL);
    struct stm_sum s;
    struct stm_parts p;
    stm_start(&sm, &s);
    stm_add(&sm, &s, 0, 1, 1);
    stm_parts(&sm, &s, &p);
    *weight_bw_eff = c->kind == STM_ROOFLINE ? sm.rg.bandwidth_eff : sm.k.weight_bw_eff;
    return stm_time_s(&p, f, b);
}

void etm_step_paths(const struct etm_cfg *c, const struct lm_model *m, enum roof_dtype weights,
                    enum roof_dtype kv, const struct gpu_roof *roof, double hbm_bw_gbps,
                    const struct kc_gpu *kc, int *table, int *roof_bits)
{
    *table = *roof_bits = 0;
    if (c->kind != STM_ENGINE)
        return;
    struct stm sm;
    stm_init(&sm, c->kind, m, weights, kv, roof, hbm_bw_gbps, &c->cpu, 0, kc);
    struct stm_sum s;
    struct stm_parts p;
    stm_start(&sm, &s);
    stm_add(&sm, &s, 0, 512, 1);
    stm_add(&sm, &s, 512, 1, 1);
    stm_parts(&sm, &s, &p);
    *table = p.table;
    *roof_bits = p.roof;
}
