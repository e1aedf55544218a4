/*
 * fit — `sharesim profile fit` (tools/fit.h): the CSV reader (RFC 4180, positions), SHA-256
 * against the standard's vectors, a parameter recovered from rows the simulator made itself,
 * bad files and options (FILE:LINE:COL, exit 2), skipped rows, and --no-fit's figures being
 * exactly those of `sharesim run` on the row's own scenario.
 */
#include "base/sha256.h"
#include "base/util.h"
#include "io/csv.h"
#include "tools/fit.h"
#include "testutil.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KNOWN "tests/fixtures/fit/known.csv"
#define SMOKE "tests/fixtures/fit/smoke.csv"

static char out[1 << 20], errb[1 << 16];

static void test_sha256_vectors(void)
{
    char h[SHA256_HEX_LEN];
    sha256_hex("", 0, h);
    CU_ASSERT_STRING_EQUAL(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex("abc", 3, h);
    CU_ASSERT_STRING_EQUAL(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 56 bytes */
    sha256_hex(two, strlen(two), h);
    CU_ASSERT_STRING_EQUAL(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    sha256_hex(a, 1000000, h);
    CU_ASSERT_STRING_EQUAL(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

static void test_csv_reader(void)
{
    const char *t = "a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n,,\n\nlast";
    struct csv_table tab;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(csv_parse(t, strlen(t), &tab, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(tab.n, 4);
    CU_ASSERT_EQUAL(tab.r[0].n, 3);
    CU_ASSERT_STRING_EQUAL(tab.r[1].f[0].text, "x, y");
    CU_ASSERT_STRING_EQUAL(tab.r[1].f[1].text, "say \"hi\"");
    CU_ASSERT_STRING_EQUAL(tab.r[1].f[2].text, "two\nlines");
    CU_ASSERT_EQUAL(tab.r[1].f[1].line, 2);
    CU_ASSERT_EQUAL(tab.r[1].f[1].col, 8);
    CU_ASSERT_EQUAL(tab.r[2].line, 4); /* after the line break inside a field */
    CU_ASSERT_EQUAL(tab.r[2].n, 3);
    CU_ASSERT_STRING_EQUAL(tab.r[2].f[2].text, "");
    CU_ASSERT_EQUAL(tab.r[3].line, 6); /* the empty line 5 is no record */
    CU_ASSERT_STRING_EQUAL(tab.r[3].f[0].text, "last");
    csv_free(&tab);
    const struct {
        const char *text, *msg;
    } bad[] = {
        {"a,b\nx,y\"z\n", "2:4: a quote inside an unquoted field"},
        {"a,b\n\"x\"y,z\n", "2:4: text after the closing quote"},
        {"a,b\nx,\"open\n", "2:3: the quoted field opened here is never closed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CU_ASSERT_EQUAL(csv_parse(bad[i].text, strlen(bad[i].text), &tab, err, sizeof err), -1);
        TU_CHECK_CONTAINS(err, bad[i].msg);
    }
}

/* Rows made by the simulator at step_overhead_ms = 3.7 (their "measurements" are its own
 * predictions, to the last bit); the fit, started at 1, must find 3.7 again. */
static void test_fit_recovers_known_value(void)
{
    struct fit_ctx c = {0};
    struct fit_param p;
    char sha[65], err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(fit_read(KNOWN, &c.rows, &c.n_rows, sha, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(fit_parse_param("step_overhead_ms=0:20:3.7", &p, err, sizeof err), 0);
    c.params = &p;
    c.n_params = 1;
    CU_ASSERT_EQUAL_FATAL(fit_prepare(&c, err, sizeof err), 0);
    for (int i = 0; i < c.n_rows; i++)
        CU_ASSERT_STRING_EQUAL(c.rows[i].skip, "");
    CU_ASSERT_EQUAL_FATAL(fit_evaluate(&c, err, sizeof err), 0);
    for (int i = 0; i < c.n_rows; i++)
        for (int m = 0; m < FM_N; m++) {
            CU_ASSERT(c.rows[i].pred[m] > 0);
            c.rows[i].meas[m] = c.rows[i].pred[m];
        }
    CU_ASSERT_EQUAL_FATAL(fit_evaluate(&c, err, sizeof err), 0); /* the same figures again */
    CU_ASSERT_EQUAL(c.objective, 0.0);
    CU_ASSERT_EQUAL_FATAL(fit_parse_param("step_overhead_ms=0:20:1", &p, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(fit_run(&c, err, sizeof err), 0);
    CU_ASSERT_DOUBLE_EQUAL(p.value, 3.7, 0.02);
    CU_ASSERT(c.converged);
    CU_ASSERT(c.iterations < FIT_ITER_MAX);
    /* the holdout row, never fitted on, is predicted as well as the fit rows */
    for (int m = 0; m < FM_N; m++)
        CU_ASSERT(fabs(fit_error_pct(&c.rows[3], m)) < 1.0);
    struct fit_stat st;
    fit_summary(&c, 0, FM_TPOT, &st);
    CU_ASSERT_EQUAL(st.points, 3);
    CU_ASSERT(st.median_abs_pct < 1.0);
    free(c.rows);
}

/* A CSV in the temporary folder and `profile fit` on it: its exit code, stderr in errb. */
static int fit_cli(const char *name, const char *csv, const char *opts)
{
    char cmd[2048];
    const char *path = tu_write(name, csv);
    snprintf(cmd, sizeof cmd, "profile fit '%s' %s", path, opts);
    return tu_cli(cmd, out, sizeof out, errb, sizeof errb);
}

#define HEADER                                                                                     \
    "id,source,engine,engine_version,gpu,model,dtype,kv_dtype,tp,client,load,lengths,isl,osl,"     \
    "num_prompts,max_num_seqs,max_batched_tokens,stat,ttft_ms,tpot_ms,output_tok_per_s,role,"      \
    "note\n"
#define GOOD_ROW                                                                                   \
    "g1,src,vllm,,H100-80GB,Llama-3-8B,bf16,,1,rate,2,fixed,256,64,,,,mean,30,9,,fit,\n"

static void test_version_entry(void)
{
    /* A row of engine E at version A.B[.C] takes the engine table's entry "E-A.B" where there is
     * one (the shipped table: trtllm-0.9, vllm-0.14), else E's; NIM rows are trtllm's whatever
     * their version. */
    const char *path = tu_write(
        "ver.csv", HEADER
        "a,src,trtllm,0.9.0,H100-80GB,Llama-3-8B,fp16,,1,batch,1,fixed,256,64,,,,mean,30,9,,fit,\n"
        "b,src,trtllm,0.10.0,H100-80GB,Llama-3-8B,fp16,,1,batch,1,fixed,256,64,,,,mean,30,9,,fit,\n"
        "c,src,vllm,0.9.2,H100-80GB,Llama-3-8B,fp16,,1,batch,1,fixed,256,64,,,,mean,30,9,,fit,\n"
        "d,src,nim-trtllm,0.9,H100-80GB,Llama-3-8B,fp16,,1,batch,1,fixed,256,64,,,,mean,30,9,,fit,"
        "\n"
        "e,src,trtllm,,H100-80GB,Llama-3-8B,fp16,,1,batch,1,fixed,256,64,,,,mean,30,9,,fit,\n"
        "f,src,vllm,0.14.1,H100-80GB,Llama-3-8B,fp16,,1,batch,1,fixed,256,64,,,,mean,30,9,,fit,\n");
    struct fit_row *rows = NULL;
    int n = 0;
    char sha[65], err[1024];
    CU_ASSERT_EQUAL_FATAL(fit_read(path, &rows, &n, sha, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 6);
    CU_ASSERT_STRING_EQUAL(rows[0].framework, "trtllm-0.9");
    CU_ASSERT_STRING_EQUAL(rows[1].framework, "trtllm");
    CU_ASSERT_STRING_EQUAL(rows[2].framework, "vllm");
    CU_ASSERT_STRING_EQUAL(rows[3].framework, "trtllm");
    CU_ASSERT_STRING_EQUAL(rows[4].framework, "trtllm");
    CU_ASSERT_STRING_EQUAL(rows[5].framework, "vllm-0.14");
    free(rows);
}

static void test_bad_csv(void)
{
    const struct {
        const char *csv, *msg;
    } bad[] = {
        {HEADER GOOD_ROW "g2,src,vllm,,H100-80GB,Llama-3-8B,bf16,,1,rate,fast,fixed,256,64,,,,mean,"
                         "30,9,,fit,\n",
         "bad.csv:3:48: column \"load\": \"fast\": expected a number > 0"},
        {HEADER
         "g1,src,vllm,,H100-80GB,Llama-3-8B,bf16,,1,crowd,2,fixed,256,64,,,,mean,30,9,,fit,\n",
         "bad.csv:2:43: column \"client\": \"crowd\": expected concurrency, rate or batch"},
        {HEADER
         "g1,src,vllm,,H100-80GB,Llama-3-8B,bf16,,1,concurrency,2.5,fixed,256,64,,,,mean,30,9,"
         ",fit,\n",
         "column \"load\": \"2.5\": expected an integer"},
        {HEADER "g1,src,vllm,,H100-80GB,Llama-3-8B,bf16,,1,rate,2,fixed,,64,,,,mean,30,9,,fit,\n",
         "bad.csv:2:56: column \"isl\": \"\": expected an integer in [1, 10000000]"},
        {HEADER
         "g1,src,vllm,,H100-80GB,Llama-3-8B,bf16,,1,rate,2,fixed,256,64,,,,mean,-3,9,,fit,\n",
         "column \"ttft_ms\": \"-3\": expected a number > 0 or empty"},
        {HEADER
         "g1,src,vllm,,H100-80GB,Llama-3-8B,bf16,,1,rate,2,fixed,256,64,,,,mean,30,9,,train,\n",
         "column \"role\": \"train\": expected fit or holdout"},
        {HEADER
         "G1,src,vllm,,H100-80GB,Llama-3-8B,bf16,,1,rate,2,fixed,256,64,,,,mean,30,9,,fit,\n",
         "bad.csv:2:1: column \"id\": \"G1\": expected an id of [a-z0-9-]+"},
        {HEADER GOOD_ROW GOOD_ROW, "bad.csv:3:1: column \"id\": \"g1\" is the id of line 2 too"},
        {HEADER "g1,src\n", "bad.csv:2:1: 2 fields, but the header has 23"},
        {"id,source\n", "bad.csv:1:1: the header has no column \"engine\""},
        {"id,sauce\n", "bad.csv:1:4: unknown column \"sauce\""},
        {HEADER "g1,\"src,vllm\n", "bad.csv:2:4: the quoted field opened here is never closed"},
        {"", "bad.csv:1:1: empty"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CU_ASSERT_EQUAL(fit_cli("bad.csv", bad[i].csv, "--no-fit"), 2);
        TU_CHECK_CONTAINS(errb, bad[i].msg);
    }
}

static void test_bad_options(void)
{
    const struct {
        const char *opts, *msg;
    } bad[] = {
        {"--param step_overhead_ms=5:1", "LO must be below HI"},
        {"--param step_overhead_ms=0:1:2", "START must lie in [LO, HI]"},
        {"--param step_overhead_ms", "expected KEY=LO:HI[:START]"},
        {"--param Step=0:1", "[a-z0-9_]"},
        {"--param step_overhead_ms=0:1 --param step_overhead_ms=0:2", "given twice"},
        {"--param no_such_key=0:1", "--param: the parameters at their low bounds: (row g1): "
                                    "tenants[0].serving.no_such_key: unknown key"},
        {"--param step_overhead_ms=-1:1", "--param: the parameters at their low bounds: (row g1): "
                                          "tenants[0].serving.step_overhead_ms"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CU_ASSERT_EQUAL(fit_cli("opt.csv", HEADER GOOD_ROW, bad[i].opts), 2);
        TU_CHECK_CONTAINS(errb, bad[i].msg);
    }
    /* every row of role holdout: nothing to fit on (evaluating them is fine) */
    const char *hold = HEADER
        "h1,src,vllm,,H100-80GB,Llama-3-8B,bf16,,1,rate,2,fixed,256,64,,,,mean,30,9,,holdout,\n";
    CU_ASSERT_EQUAL(fit_cli("hold.csv", hold, ""), 2);
    TU_CHECK_CONTAINS(errb, "nothing to fit on");
    CU_ASSERT_EQUAL(fit_cli("hold.csv", hold, "--no-fit --quiet"), 0);
    /* the output planner: the fragment may not overwrite the measurements */
    char opts[1024];
    snprintf(opts, sizeof opts, "--no-fit --out '%s/opt.csv'", tu_tmpdir());
    CU_ASSERT_EQUAL(fit_cli("opt.csv", HEADER GOOD_ROW, opts), 2);
    TU_CHECK_CONTAINS(errb, "--out");
}

static void test_skipped_rows(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "profile fit %s --no-fit --json -", SMOKE);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, out, sizeof out, errb, sizeof errb), 0);
    TU_CHECK_CONTAINS(errb, "smoke.csv:5: row a-tp2 skipped: tensor parallelism 2");
    TU_CHECK_CONTAINS(errb,
                      "smoke.csv:6: row a-bad skipped: (row a-bad): tenants[0].serving.model: "
                      "unknown model \"No-Such-Model\"");
    TU_CHECK_CONTAINS(errb, "row a-ds skipped");
    cJSON *doc = cJSON_Parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "rows")), 3);
    CU_ASSERT_EQUAL(
        cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "split"), "skipped")), 3);
    CU_ASSERT_STRING_EQUAL(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "data"), "sha256")->valuestring,
        "442d8f7ed2761dc4fdac8382ab322a118ffc7f4bf88cf7bafc99347b051f08f3");
    /* the holdout batch: one point, predicted high, so its bias is 1 */
    CU_ASSERT_EQUAL(tu_json_num(doc, "summary.holdout.output_tok_per_s.points"), 1);
    CU_ASSERT_EQUAL(tu_json_num(doc, "summary.holdout.output_tok_per_s.positive_share"), 1);
    CU_ASSERT_EQUAL(tu_json_num(doc, "summary.holdout.ttft_ms.points"), 0);
    cJSON_Delete(doc);
}

/* The figure of row `row` of a fit document and of the `run` result of its scenario. */
static void same_as_run(const cJSON *fit, int row, const char *dir, const char *id, int median)
{
    char cmd[1024], path[128];
    snprintf(cmd, sizeof cmd, "run '%s/%s.json' --no-slowdown", dir, id);
    cJSON *run = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(run);
    const char *base = "strategies.0.tenants.0.llm";
    const char *stat = median ? "p50" : "mean";
    char rp[160];
    snprintf(path, sizeof path, "rows.%d.predicted.ttft_ms", row);
    snprintf(rp, sizeof rp, "%s.ttft_ms.%s", base, stat);
    CU_ASSERT_EQUAL(tu_json_num(fit, path), tu_json_num(run, rp));
    CU_ASSERT(tu_json_num(run, rp) > 0);
    snprintf(path, sizeof path, "rows.%d.predicted.tpot_ms", row);
    snprintf(rp, sizeof rp, "%s.tpot_ms.%s", base, stat);
    CU_ASSERT_EQUAL(tu_json_num(fit, path), tu_json_num(run, rp));
    cJSON_Delete(run);
}

static void test_no_fit_is_run(void)
{
    char cmd[2048], dir[600];
    snprintf(dir, sizeof dir, "%s/fit-scen", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "profile fit %s --no-fit --param step_overhead_ms=0:20:2.5 --scenarios '%s'", KNOWN,
             dir);
    cJSON *fit = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fit);
    same_as_run(fit, 0, dir, "k-r3", 0);
    same_as_run(fit, 1, dir, "k-c8", 1);
    same_as_run(fit, 2, dir, "k-b32", 0);
    same_as_run(fit, 3, dir, "k-r1", 1);
    /* a rate row's throughput is the run's output tokens per second */
    snprintf(cmd, sizeof cmd, "run '%s/k-r3.json' --no-slowdown", dir);
    cJSON *run = tu_cli_json(cmd);
    CU_ASSERT_EQUAL(tu_json_num(fit, "rows.0.predicted.output_tok_per_s"),
                    tu_json_num(run, "strategies.0.tenants.0.llm.output_tokens_per_s"));
    CU_ASSERT(tu_json_num(fit, "rows.0.predicted.output_tok_per_s") > 0);
    cJSON_Delete(run);
    /* a batch's: its output tokens over the last completion (`run --cdf`'s quantile 1) */
    snprintf(cmd, sizeof cmd, "run '%s/k-b32.json' --no-slowdown --quiet --cdf '%s/b.cdf'", dir,
             dir);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(cmd, sizeof cmd, "%s/b.cdf", dir);
    char *cdf = tu_slurp(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cdf);
    const char *last = strstr(cdf, ",llm,1.0000,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(last);
    double last_ms = strtod(last + strlen(",llm,1.0000,"), NULL);
    double tps = tu_json_num(fit, "rows.2.predicted.output_tok_per_s");
    CU_ASSERT_DOUBLE_EQUAL(tps, 32 * 64 / (last_ms / 1e3), tps * 1e-5);
    free(cdf);
    /* the scenario written is the one simulated: its step overhead is the value given */
    snprintf(cmd, sizeof cmd, "%s/k-r3.json", dir);
    char *scn = tu_slurp(cmd);
    TU_CHECK_CONTAINS(scn, "\"step_overhead_ms\":\t2.5");
    free(scn);
    cJSON_Delete(fit);
}

static void test_deterministic_and_out(void)
{
    char cmd[1024], a[600], b[600];
    snprintf(a, sizeof a, "%s/frag-a.json", tu_tmpdir());
    snprintf(b, sizeof b, "%s/frag-b.json", tu_tmpdir());
    const char *params = "--param step_overhead_ms=0:10:1";
    snprintf(cmd, sizeof cmd, "profile fit %s %s --quiet --out '%s'", SMOKE, params, a);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 0);
    TU_CHECK_CONTAINS(errb, "simulations in");
    snprintf(cmd, sizeof cmd, "profile fit %s %s --json '%s'", SMOKE, params, b);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    TU_CHECK_CONTAINS(out, "fitted parameters:");
    TU_CHECK_CONTAINS(out, "holdout rows:");
    char *ta = tu_slurp(a), *tb = tu_slurp(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ta);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tb);
    CU_ASSERT_STRING_EQUAL(ta, tb);
    cJSON *doc = cJSON_Parse(ta);
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(doc, "fitted")));
    double v = tu_json_num(doc, "serving.step_overhead_ms");
    CU_ASSERT(v > 0 && v < 10);
    CU_ASSERT_EQUAL(v, tu_json_num(doc, "parameters.0.value"));
    CU_ASSERT(tu_json_num(doc, "rows.0.error_pct.ttft_ms") != 0);
    cJSON_Delete(doc);
    free(ta);
    free(tb);
}

/* --robust: the objective is the sum of |ln(predicted/measured)| over the fit rows' measured
 * metrics (the squares without it), recomputed here from the rows the document gives, and the
 * document says which. */
static void test_robust_objective(void)
{
    for (int robust = 0; robust < 2; robust++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "profile fit %s --no-fit --param step_overhead_ms=0:20:2.5%s",
                 KNOWN, robust ? " --robust" : "");
        cJSON *doc = tu_cli_json(cmd);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        const cJSON *how = cJSON_GetObjectItem(doc, "fit"), *row;
        const char *of = cJSON_GetStringValue(cJSON_GetObjectItem(how, "objective_of"));
        CU_ASSERT_PTR_NOT_NULL_FATAL(of);
        CU_ASSERT_PTR_NOT_NULL(strstr(of, robust ? "|ln(predicted/measured)|" : ")^2"));
        double sum = 0;
        int terms = 0;
        static const char *const metric[] = {"ttft_ms", "tpot_ms", "output_tok_per_s"};
        cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "rows"))
        {
            if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(row, "role")), "fit") != 0)
                continue;
            for (int m = 0; m < 3; m++) {
                const cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(row, "predicted"),
                                                     metric[m]),
                            *q = cJSON_GetObjectItem(cJSON_GetObjectItem(row, "measured"),
                                                     metric[m]);
                if (!cJSON_IsNumber(p) || !cJSON_IsNumber(q))
                    continue;
                double e = log(p->valuedouble / q->valuedouble);
                sum += robust ? fabs(e) : e * e;
                terms++;
            }
        }
        CU_ASSERT(terms > 0);
        double obj = tu_json_num(how, "objective");
        CU_ASSERT_DOUBLE_EQUAL(obj, sum, 1e-4 * sum);
        cJSON_Delete(doc);
    }
}

/* A batch row is N requests that all arrive at t = 0 (a static batch, Lambda's "ten prompts at
 * once"): its scenario gives exactly the figures of the same scenario replaying a trace of 32
 * arrivals at time 0, and every request is accounted for (arrived = completed = 32); through a
 * serial front end too. */
static void test_batch_all_at_zero(void)
{
    char cmd[2048], dir[600], path[700];
    snprintf(dir, sizeof dir, "%s/fit-batch", tu_tmpdir());
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && printf 'time_s\\n' > '%s/t0.csv' && for i in $(seq 32); "
             "do echo 0; done >> '%s/t0.csv'",
             dir, dir, dir);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "profile fit %s --no-fit --param step_overhead_ms=0:20:2.5 --quiet --scenarios '%s'",
             KNOWN, dir);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 0);
    snprintf(path, sizeof path, "%s/k-b32.json", dir);
    char *text = tu_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *d = cJSON_Parse(text);
    free(text);
    cJSON *ten = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "tenants"), 0);
    cJSON *trace = cJSON_CreateObject();
    cJSON_AddStringToObject(trace, "process", "trace");
    cJSON_AddStringToObject(trace, "path", "t0.csv");
    cJSON_AddStringToObject(trace, "format", "sharesim");
    cJSON_ReplaceItemInObject(ten, "arrival", trace);
    char *t = cJSON_Print(d);
    cJSON_Delete(d);
    snprintf(path, sizeof path, "%s/at-zero.json", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(t, f);
    fclose(f);
    free(t);
    cJSON *a, *b;
    snprintf(cmd, sizeof cmd, "run '%s/k-b32.json' --no-slowdown", dir);
    a = tu_cli_json(cmd);
    snprintf(cmd, sizeof cmd, "run '%s/at-zero.json' --no-slowdown", dir);
    b = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    static const char *const fig[] = {"llm.ttft_ms.mean", "llm.ttft_ms.p50", "llm.ttft_ms.p99",
                                      "llm.tpot_ms.mean", "latency_ms.mean", "latency_ms.p99",
                                      "arrived",          "completed"};
    for (size_t i = 0; i < sizeof fig / sizeof *fig; i++) {
        char fp[128];
        snprintf(fp, sizeof fp, "strategies.0.tenants.0.%s", fig[i]);
        CU_ASSERT(tu_json_num(a, fp) > 0);
        CU_ASSERT_EQUAL(tu_json_num(a, fp), tu_json_num(b, fp));
    }
    CU_ASSERT_EQUAL(tu_json_num(a, "strategies.0.tenants.0.arrived"), 32);
    CU_ASSERT_EQUAL(tu_json_num(a, "strategies.0.tenants.0.completed"), 32);
    CU_ASSERT_EQUAL(tu_json_num(a, "strategies.0.tenants.0.rejected"), 0);
    CU_ASSERT_EQUAL(tu_json_num(a, "strategies.0.tenants.0.failed"), 0);
    CU_ASSERT_EQUAL(tu_json_num(a, "strategies.0.tenants.0.in_flight"), 0);
    double ttft_plain = tu_json_num(a, "strategies.0.tenants.0.llm.ttft_ms.mean");
    cJSON_Delete(a);
    cJSON_Delete(b);
    /* A batch passes the engine's serial front end as every request does (a fitted
     * frontend_serial_ms reaches a batch row's scenario as a loop's), and then it is still
     * exactly the trace of 32 arrivals at time 0 through the same front end; the front end's
     * queue (32 requests, 5 ms each, in part overlapped by the first prefills) makes its mean TTFT
     * longer than with the table's 0.56 ms. */
    snprintf(cmd, sizeof cmd,
             "profile fit %s --no-fit --param frontend_serial_ms=0:20:5 --quiet --scenarios '%s'",
             KNOWN, dir);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 0);
    static const char *const ids[] = {"k-b32", "k-c8"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s.json", dir, ids[i]);
        text = tu_slurp(path);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        d = cJSON_Parse(text);
        free(text);
        CU_ASSERT_EQUAL(tu_json_num(d, "tenants.0.serving.frontend_serial_ms"), 5);
        if (i == 0) { /* the batch as a trace at time 0, the same front end */
            ten = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "tenants"), 0);
            trace = cJSON_CreateObject();
            cJSON_AddStringToObject(trace, "process", "trace");
            cJSON_AddStringToObject(trace, "path", "t0.csv");
            cJSON_AddStringToObject(trace, "format", "sharesim");
            cJSON_ReplaceItemInObject(ten, "arrival", trace);
            t = cJSON_Print(d);
            snprintf(path, sizeof path, "%s/at-zero-fe.json", dir);
            f = fopen(path, "w");
            CU_ASSERT_PTR_NOT_NULL_FATAL(f);
            fputs(t, f);
            fclose(f);
            free(t);
        }
        cJSON_Delete(d);
    }
    snprintf(cmd, sizeof cmd, "run '%s/k-b32.json' --no-slowdown", dir);
    a = tu_cli_json(cmd);
    snprintf(cmd, sizeof cmd, "run '%s/at-zero-fe.json' --no-slowdown", dir);
    b = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    for (size_t i = 0; i < sizeof fig / sizeof *fig; i++) {
        char fp[128];
        snprintf(fp, sizeof fp, "strategies.0.tenants.0.%s", fig[i]);
        CU_ASSERT_EQUAL(tu_json_num(a, fp), tu_json_num(b, fp));
    }
    CU_ASSERT(tu_json_num(a, "strategies.0.tenants.0.llm.ttft_ms.mean") > ttft_plain + 10);
    CU_ASSERT_EQUAL(tu_json_num(a, "strategies.0.tenants.0.completed"), 32);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* The shipped engine table's fitted terms come out of `profile fit --framework NAME` as its
 * documents beside the table say: every term whose source is fit-X.json equals that document's
 * fitted value (to the 4 digits the table keeps), and the document is the current one: on the
 * current measurement file, evaluating --framework X at the document's values (its objective
 * and bounds) gives its sha256, its split and its objective. A stale document (a term refitted
 * without it, a change of the model or of the rows) fails here. The simplex itself is not rerun
 * (a minute of CPU): its result is what is checked against. */
#define ENGINES "kernels/profiles/engines/engines.json"
#define SERVING_CSV "kernels/profiles/measurements/llm-serving.csv"
static void check_fit_document(const char *name)
{
    char path[640], cmd[4096];
    snprintf(path, sizeof path, "kernels/profiles/engines/fit-%s.json", name);
    char *text = tu_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(doc, "fitted")));
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "fit"), "converged")));
    const char *of =
        cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "fit"), "objective_of"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(of);
    int n = snprintf(cmd, sizeof cmd, "profile fit %s --framework %s --no-fit%s", SERVING_CSV, name,
                     strstr(of, "--robust") ? " --robust" : "");
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "parameters"))
    {
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " --param %s=%.17g:%.17g:%.17g",
                      cJSON_GetStringValue(cJSON_GetObjectItem(p, "key")), tu_json_num(p, "lo"),
                      tu_json_num(p, "hi"), tu_json_num(p, "value"));
    }
    cJSON *now = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(now);
    CU_ASSERT_STRING_EQUAL(
        cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(now, "data"), "sha256")),
        cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "data"), "sha256")));
    char *a = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetObjectItem(now, "split"), "fit"));
    char *b = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "split"), "fit"));
    CU_ASSERT_STRING_EQUAL(a, b);
    free(a);
    free(b);
    double o1 = tu_json_num(now, "fit.objective"), o0 = tu_json_num(doc, "fit.objective");
    CU_ASSERT(o0 > 0);
    CU_ASSERT_DOUBLE_EQUAL(o1, o0, 1e-5 * o0);
    cJSON_Delete(now);
    cJSON_Delete(doc);
}

static void test_shipped_entries_reproduce(void)
{
    char *text = tu_slurp(ENGINES);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *tab = cJSON_Parse(text);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tab);
    char docs[8][64];
    int n_docs = 0;
    const cJSON *e, *term;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(tab, "engines"))
    {
        cJSON_ArrayForEach(term, e)
        {
            const char *src = cJSON_GetStringValue(cJSON_GetObjectItem(term, "source"));
            const char *pre = "kernels/profiles/engines/fit-";
            if (!src || strncmp(src, pre, strlen(pre)) != 0)
                continue;
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(strlen(src) - strlen(pre) - 5),
                     src + strlen(pre));
            char *dt = tu_slurp(src);
            CU_ASSERT_PTR_NOT_NULL_FATAL(dt);
            cJSON *doc = cJSON_Parse(dt);
            free(dt);
            char key[128];
            snprintf(key, sizeof key, "serving.%s", term->string);
            double fitted = tu_json_num(doc, key), shipped = tu_json_num(term, "value");
            CU_ASSERT(fitted > 0);
            CU_ASSERT_DOUBLE_EQUAL(shipped, fitted, 5e-4 * fitted);
            cJSON_Delete(doc);
            int seen = 0;
            for (int i = 0; i < n_docs; i++)
                seen |= strcmp(docs[i], name) == 0;
            if (!seen && n_docs < 8)
                snprintf(docs[n_docs++], sizeof docs[0], "%s", name);
        }
    }
    cJSON_Delete(tab);
    CU_ASSERT(n_docs >= 2);
    if (tu_under_valgrind()) /* each evaluation is seconds of simulation */
        return;
    for (int i = 0; i < n_docs; i++)
        check_fit_document(docs[i]);
}

void test_fit_register(void)
{
    static const struct tu_test t[] = {
        {"sha256: the FIPS 180-4 vectors", test_sha256_vectors},
        {"csv: quotes, line breaks, positions, errors", test_csv_reader},
        {"fit recovers a step overhead from simulated rows", test_fit_recovers_known_value},
        {"an engine version with its own entry takes it", test_version_entry},
        {"bad CSV: FILE:LINE:COL and exit 2", test_bad_csv},
        {"bad options and nothing to fit", test_bad_options},
        {"rows it cannot simulate are skipped with the reason", test_skipped_rows},
        {"--no-fit gives exactly the figures of sharesim run", test_no_fit_is_run},
        {"deterministic; --out and --json are one document", test_deterministic_and_out},
        {"--robust: the sum of |ln(predicted/measured)|, and the document says so",
         test_robust_objective},
        {"a batch is N requests at t = 0, all accounted for", test_batch_all_at_zero},
        {"the engine table's fitted terms are their fit documents', and these are current",
         test_shipped_entries_reproduce},
        {NULL, NULL},
    };
    tu_add_suite("fit", t);
}
