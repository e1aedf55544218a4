/*
 * fidelity — tools/fidelity.c and `sharesim fidelity scenario|table`: the figures and the
 * Poisson times kernels/fidelity uses, the summary document written and read back, the
 * scenario of a time-sliced and of a partitioned case (strategies, rates, the work scaled to
 * the MIG stand-in, the replay traces), the predictions read from sharesim's own outputs and
 * the comparison table. The fixtures in tests/fixtures/fidelity/ are hand-made, not
 * measurements.
 */
#include "calib/calib.h"
#include "calib/profile.h"
#include "core/scenario.h"
#include "tools/fidelity.h"
#include "testutil.h"
#include "base/util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_stats_nearest_rank(void)
{
    double x[] = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};
    struct fid_stats s;
    fid_stats(x, 10, &s);
    CU_ASSERT_EQUAL(s.n, 10);
    CU_ASSERT_DOUBLE_EQUAL(s.mean_ms, 5.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s.p50_ms, 5, 0);  /* ceil(0.5 * 10) = 5th */
    CU_ASSERT_DOUBLE_EQUAL(s.p95_ms, 10, 0); /* ceil(9.5) = 10th */
    CU_ASSERT_DOUBLE_EQUAL(s.p99_ms, 10, 0);
    CU_ASSERT_DOUBLE_EQUAL(s.max_ms, 10, 0);
    CU_ASSERT_DOUBLE_EQUAL(x[0], 1, 0); /* sorted in place */
    CU_ASSERT_DOUBLE_EQUAL(fid_quantile(x, 10, 0), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(fid_quantile(x, 10, 0.9), 9, 0);
    CU_ASSERT_DOUBLE_EQUAL(fid_quantile(x, 10, 0.91), 10, 0);
    /* 100 values: p99 is the 99th, not the maximum. */
    double y[100];
    for (int i = 0; i < 100; i++)
        y[i] = 100 - i;
    fid_stats(y, 100, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.p99_ms, 99, 0);
    CU_ASSERT_DOUBLE_EQUAL(s.p50_ms, 50, 0);
    fid_stats(y, 0, &s);
    CU_ASSERT_EQUAL(s.n, 0);
    CU_ASSERT(isnan(s.mean_ms) && isnan(s.p99_ms));
}

static void test_poisson_times(void)
{
    double *a, *b;
    size_t n = fid_poisson(7, 200, 50, &a), m = fid_poisson(7, 200, 50, &b);
    CU_ASSERT_EQUAL(n, m);
    CU_ASSERT_EQUAL(memcmp(a, b, n * sizeof *a), 0); /* the same seed, the same times */
    /* 10000 expected: within 4 standard deviations (sqrt 10000 = 100). */
    CU_ASSERT(n > 9600 && n < 10400);
    int increasing = 1;
    double cv2 = 0, prev = 0, mean = a[n - 1] / (double)n;
    for (size_t i = 0; i < n; i++) {
        increasing &= a[i] > prev && a[i] < 50;
        cv2 += (a[i] - prev - mean) * (a[i] - prev - mean);
        prev = a[i];
    }
    CU_ASSERT(increasing);
    cv2 /= (double)n * mean * mean; /* exponential gaps: squared CV 1 */
    CU_ASSERT(fabs(cv2 - 1) < 0.06);
    free(b);
    n = fid_poisson(8, 200, 50, &b);
    CU_ASSERT(n < 9600 || n > 10400 || memcmp(a, b, 100 * sizeof *a) != 0);
    free(a);
    free(b);
    CU_ASSERT_EQUAL(fid_poisson(1, 10, 0, &a), 0);
    free(a);
}

/* The fixture's figures are those of its latencies file (the rule fidelity.cu follows). */
static void test_fixture_figures(void)
{
    struct fid_summary s;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(
        fid_summary_read(tu_fixture("fidelity/timeslice-2.json"), &s, err, sizeof err), 0);
    char *csv = tu_slurp(tu_fixture("fidelity/timeslice-2.csv"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    double all[64], per[2][32];
    size_t n = 0, np[2] = {0, 0};
    for (char *line = strchr(csv, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        int t, seq, measured;
        double sched, submit, done, lat, gpu;
        CU_ASSERT_EQUAL_FATAL(sscanf(line, "%d,%d,%lf,%lf,%lf,%lf,%lf,%d", &t, &seq, &sched,
                                     &submit, &done, &lat, &gpu, &measured),
                              8);
        CU_ASSERT_EQUAL(measured, submit >= s.warmup_s * 1e3);
        if (measured)
            all[n++] = per[t][np[t]++] = lat;
    }
    free(csv);
    struct fid_stats f;
    fid_stats(all, n, &f);
    CU_ASSERT_EQUAL(f.n, s.measured.n);
    CU_ASSERT_DOUBLE_EQUAL(f.mean_ms, s.measured.mean_ms, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(f.p50_ms, s.measured.p50_ms, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(f.p99_ms, s.measured.p99_ms, 1e-9);
    for (int t = 0; t < 2; t++) {
        fid_stats(per[t], np[t], &f);
        CU_ASSERT_DOUBLE_EQUAL(f.mean_ms, s.per_tenant[t].mean_ms, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(f.p95_ms, s.per_tenant[t].p95_ms, 1e-9);
    }
}

static void test_summary_round_trip(void)
{
    struct fid_summary s, r;
    memset(&s, 0, sizeof s);
    snprintf(s.case_name, sizeof s.case_name, "partition-4");
    s.mode = FID_PARTITION;
    s.tenants = 4;
    snprintf(s.device, sizeof s.device, "NVIDIA H100 80GB HBM3");
    snprintf(s.driver, sizeof s.driver, "570.86.15, CUDA 12.8");
    snprintf(s.date, sizeof s.date, "2026-01-02T03:04:05Z");
    snprintf(s.source, sizeof s.source, "fidelity on NVIDIA H100 80GB HBM3 (test)");
    s.seed = 3;
    s.duration_s = 20;
    s.warmup_s = 1;
    s.load = 0.6;
    s.rate_per_s = 36.25;
    s.work_ms = 2.0125;
    s.overhead_ms = 0.0114;
    s.total_sms = 132;
    s.part_sms = 16;
    snprintf(s.part_method, sizeof s.part_method, "green contexts");
    s.part_alone_ms = 16.7;
    snprintf(s.latencies_csv, sizeof s.latencies_csv, "partition-4.csv");
    double x[] = {3, 1, 2};
    fid_stats(x, 3, &s.measured);
    for (int i = 0; i < 4; i++)
        fid_stats(x, 3, &s.per_tenant[i]);
    fid_stats(x, 0, &s.per_tenant[3]); /* an empty sample: null figures */
    cJSON *kernel = cJSON_CreateObject();
    cJSON_AddNumberToObject(kernel, "chunks", 8448);
    cJSON *doc = fid_summary_json(&s, kernel);
    char *text = cJSON_Print(doc);
    char *path = tu_write("fid-round.json", text);
    cJSON_free(text);
    cJSON_Delete(doc);
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(fid_summary_read(path, &r, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(r.case_name, "partition-4");
    CU_ASSERT_EQUAL(r.mode, FID_PARTITION);
    CU_ASSERT_EQUAL(r.tenants, 4);
    CU_ASSERT_STRING_EQUAL(r.source, s.source);
    CU_ASSERT_EQUAL(r.seed, 3);
    CU_ASSERT_DOUBLE_EQUAL(r.rate_per_s, 36.25, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.work_ms, 2.0125, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.overhead_ms, 0.0114, 1e-9);
    CU_ASSERT_EQUAL(r.part_sms, 16);
    CU_ASSERT_STRING_EQUAL(r.part_method, "green contexts");
    CU_ASSERT_DOUBLE_EQUAL(r.part_alone_ms, 16.7, 1e-9);
    CU_ASSERT_EQUAL(r.measured.n, 3);
    CU_ASSERT_DOUBLE_EQUAL(r.measured.p50_ms, 2, 0);
    CU_ASSERT_EQUAL(r.per_tenant[3].n, 0);
    CU_ASSERT(isnan(r.per_tenant[3].p99_ms));
    CU_ASSERT_STRING_EQUAL(r.path, path);
}

static void expect_summary_error(const char *name, const char *patch, const char *part)
{
    char *text = tu_fixture_patch("fidelity/timeslice-2.json", "%s", patch);
    char *path = tu_write(name, text);
    free(text);
    struct fid_summary s;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(fid_summary_read(path, &s, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, part);
}

static void test_summary_errors(void)
{
    expect_summary_error("fid-e1.json", "{\"schema\": \"other/1\"}",
                         "schema: expected \"sharesim-fidelity/1\"");
    expect_summary_error("fid-e2.json", "{\"mode\": \"partition\"}",
                         "partition: expected an object");
    expect_summary_error("fid-e3.json", "{\"warmup_s\": 0.05}",
                         "warmup_s: expected less than duration_s");
    expect_summary_error("fid-e4.json", "{\"tenants\": 17}", "tenants");
    expect_summary_error("fid-e5.json", "{\"surprise\": 1}", "surprise");
    expect_summary_error("fid-e6.json", "{\"partition\": {\"sms\": 8}}",
                         "expected nothing with mode \"timeslice\"");
    expect_summary_error("fid-e7.json", "{\"per_tenant\": []}", "per_tenant");
}

static void test_mig_choice(void)
{
    struct gpu_profile h, a;
    tu_gpu("H100-80GB", &h);
    tu_gpu("A100-40GB", &a);
    CU_ASSERT_STRING_EQUAL(h.mig[fid_mig_choice(&h, 32, 2)].name, "2g.20gb");
    CU_ASSERT_STRING_EQUAL(h.mig[fid_mig_choice(&h, 16, 4)].name, "1g.10gb");
    CU_ASSERT_STRING_EQUAL(h.mig[fid_mig_choice(&h, 56, 2)].name, "3g.40gb"); /* nearest: 60 */
    CU_ASSERT_STRING_EQUAL(h.mig[fid_mig_choice(&h, 64, 2)].name, "3g.40gb"); /* 4g: 1 only */
    CU_ASSERT_STRING_EQUAL(h.mig[fid_mig_choice(&h, 64, 1)].name, "4g.40gb");
    CU_ASSERT_EQUAL(fid_mig_choice(&h, 16, 8), -1);
    CU_ASSERT_STRING_EQUAL(a.mig[fid_mig_choice(&a, 14, 4)].name, "1g.5gb");
}

/* The scenario of a fixture on a profile document (doc may carry extra keys). */
static cJSON *scenario_of(const char *fixture, const char *gpu, cJSON *doc, const char *trace,
                          char *note, size_t notelen)
{
    struct fid_summary s;
    struct gpu_profile g;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(fid_summary_read(tu_fixture(fixture), &s, err, sizeof err), 0);
    tu_gpu(gpu, &g);
    struct fid_scn_opts o = {gpu, 20000, trace};
    cJSON *scn = fid_scenario(&s, doc, &g, &o, note, notelen, err, sizeof err);
    if (!scn)
        fprintf(stderr, "\n  fid_scenario: %s\n", err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(scn);
    return scn;
}

static const cJSON *at(const cJSON *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = strtok(buf, "."); k && o; k = strtok(NULL, "."))
        o = k[0] >= '0' && k[0] <= '9' ? cJSON_GetArrayItem(o, atoi(k))
                                       : cJSON_GetObjectItemCaseSensitive(o, k);
    return o;
}

/* A number, also one written with jv_out_num (a raw item of 6 significant digits). */
static double num(const cJSON *o, const char *path)
{
    const cJSON *v = at(o, path);
    if (cJSON_IsRaw(v))
        return strtod(v->valuestring, NULL);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *path)
{
    const cJSON *v = at(o, path);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The scenario loads (relative paths against dir) and is returned as text. */
static void check_loads(const cJSON *scn, const char *file)
{
    char *text = cJSON_Print(scn), err[SS_ERRLEN];
    struct scenario sc;
    int rc = scn_load_text(file, text, strlen(text), &sc, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
    scn_free(&sc);
    cJSON_free(text);
}

static void test_scenario_timeslice(void)
{
    cJSON *doc;
    char err[SS_ERRLEN], note[512];
    CU_ASSERT_EQUAL_FATAL(prof_load("H100-80GB", &doc, NULL, err, sizeof err), 0);
    cJSON *scn =
        scenario_of("fidelity/timeslice-2.json", "H100-80GB", doc, NULL, note, sizeof note);
    CU_ASSERT_STRING_EQUAL(str(scn, "gpu"), "H100-80GB");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(at(scn, "tenants")), 2);
    CU_ASSERT_STRING_EQUAL(str(scn, "tenants.1.name"), "t1");
    CU_ASSERT_STRING_EQUAL(str(scn, "tenants.0.arrival.process"), "poisson");
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "tenants.0.arrival.rate_per_s"), 125, 1e-9);
    CU_ASSERT_STRING_EQUAL(str(scn, "tenants.0.work.dist"), "deterministic");
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "tenants.0.work.ms"), 2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "stop.requests"), 20000, 0);
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "warmup.requests"), 400, 0);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(at(scn, "strategies")), 1); /* no heavy values */
    CU_ASSERT_STRING_EQUAL(str(scn, "strategies.0.kind"), "timeslice");
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "strategies.0.slice_ms"), 1.024, 1e-12);
    /* the profile's base switch (40 us) plus two default contexts' state, 2 x 2.8 MB at
     * 560 GB/s = 10 us; the tenants carry none, so the switch is exactly the strategy's */
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "strategies.0.switch_us"), 50, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "tenants.1.work.context_state_mb"), 0, 0);
    TU_CHECK_CONTAINS(note, "slice 1024 us and switch 50 us");
    check_loads(scn, "inline.json");
    cJSON_Delete(scn);
    /* A measured profile with the heavy round: a second strategy. */
    cJSON *h = cJSON_CreateObject(), *w = cJSON_CreateObject();
    cJSON_AddNumberToObject(h, "value", 2100);
    cJSON_AddNumberToObject(w, "value", 75.5);
    cJSON_AddItemToObject(doc, "timeslice_us_heavy", h);
    cJSON_AddItemToObject(doc, "switch_us_heavy", w);
    scn = scenario_of("fidelity/timeslice-2.json", "H100-80GB", doc, NULL, NULL, 0);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(at(scn, "strategies")), 2);
    CU_ASSERT_STRING_EQUAL(str(scn, "strategies.1.name"), "timeslice-heavy");
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "strategies.1.slice_ms"), 2.1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "strategies.1.switch_us"), 75.5, 1e-12);
    check_loads(scn, "inline.json");
    cJSON_Delete(scn);
    cJSON_Delete(doc);
}

static void test_scenario_partition(void)
{
    char note[512];
    cJSON *scn =
        scenario_of("fidelity/partition-2.json", "H100-80GB", NULL, NULL, note, sizeof note);
    CU_ASSERT_STRING_EQUAL(str(scn, "strategies.0.kind"), "mig");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(at(scn, "strategies.0.layout")), 2);
    CU_ASSERT_STRING_EQUAL(str(scn, "strategies.0.layout.1.profile"), "2g.20gb");
    CU_ASSERT_STRING_EQUAL(str(scn, "strategies.0.layout.1.tenants.0"), "t1");
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "tenants.0.work.ms"), 2, 1e-12); /* 32 SMs = 2g's */
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "tenants.0.arrival.rate_per_s"), 30, 1e-9);
    check_loads(scn, "inline.json");
    cJSON_Delete(scn);
    /* 56 SMs (green contexts rounded 60 down): the 3g stand-in, work x (60/56)^1. */
    char *text = tu_fixture_patch("fidelity/partition-2.json", "{\"partition.sms\": 56}");
    char *path = tu_write("partition-56.json", text);
    free(text);
    struct fid_summary s;
    struct gpu_profile g;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(fid_summary_read(path, &s, err, sizeof err), 0);
    tu_gpu("H100-80GB", &g);
    g.rate_compute_exponent = 0.9; /* as a measured profile might have it */
    struct fid_scn_opts o = {"H100-80GB", 20000, NULL};
    scn = fid_scenario(&s, NULL, &g, &o, note, sizeof note, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(scn);
    CU_ASSERT_STRING_EQUAL(str(scn, "strategies.0.layout.0.profile"), "3g.40gb");
    TU_CHECK_CLOSE_REL(num(scn, "tenants.0.work.ms"), 2 * pow(60.0 / 56, 0.9), 1e-5);
    TU_CHECK_CONTAINS(note, "as 2 x 3g.40gb (60 SMs)");
    cJSON_Delete(scn);
    /* No profile allows 8 instances of anything: a message, no scenario. */
    s.tenants = 8;
    CU_ASSERT_PTR_NULL(fid_scenario(&s, NULL, &g, &o, NULL, 0, err, sizeof err));
    TU_CHECK_CONTAINS(err, "no MIG profile that allows 8 instances");
}

static void test_scenario_replay(void)
{
    char prefix[PATH_MAX];
    snprintf(prefix, sizeof prefix, "%s/ts2-replay", tu_tmpdir());
    cJSON *scn = scenario_of("fidelity/timeslice-2.json", "H100-80GB", NULL, prefix, NULL, 0);
    CU_ASSERT_PTR_NULL(at(scn, "stop"));
    CU_ASSERT_DOUBLE_EQUAL(num(scn, "warmup.duration_s"), 0.01, 1e-12);
    CU_ASSERT_STRING_EQUAL(str(scn, "tenants.1.arrival.process"), "trace");
    CU_ASSERT_STRING_EQUAL(str(scn, "tenants.1.arrival.path"), "ts2-replay-t1.csv");
    CU_ASSERT_STRING_EQUAL(str(scn, "tenants.1.arrival.format"), "sharesim");
    char *t1 = tu_slurp_in(tu_tmpdir(), "ts2-replay-t1.csv");
    CU_ASSERT_STRING_EQUAL(t1, "time_s\n0.002003\n0.013002\n0.021001\n0.031003\n0.045002\n");
    free(t1);
    char file[PATH_MAX];
    snprintf(file, sizeof file, "%s/ts2-replay.json", tu_tmpdir());
    check_loads(scn, file);
    cJSON_Delete(scn);
    /* Submit times that go backwards: refused with the line, no trace left behind. */
    char *csv = tu_slurp(tu_fixture("fidelity/timeslice-2.csv"));
    char *p = strstr(csv, "0,2,20.000000,20.004000");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    memcpy(p, "0,2,10.000000,10.004000", 23);
    tu_write("back.csv", csv);
    free(csv);
    char *text = tu_fixture_patch("fidelity/timeslice-2.json", "{\"latencies_csv\": \"back.csv\"}");
    char *path = tu_write("back.json", text);
    free(text);
    struct fid_summary s;
    struct gpu_profile g;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(fid_summary_read(path, &s, err, sizeof err), 0);
    tu_gpu("H100-80GB", &g);
    snprintf(prefix, sizeof prefix, "%s/back-replay", tu_tmpdir());
    struct fid_scn_opts o = {"H100-80GB", 0, prefix};
    CU_ASSERT_PTR_NULL(fid_scenario(&s, NULL, &g, &o, NULL, 0, err, sizeof err));
    TU_CHECK_CONTAINS(err,
                      "back.csv:4: tenant 0's submit times go backwards (10.004 after 12.005)");
    CU_ASSERT_FALSE(tu_dir_has(tu_tmpdir(), "back-replay"));
}

/* Runs the scenario of a fixture with sharesim run --json --cdf into <tmpdir>/<name>.* */
static void simulate(const char *fixture, const char *name)
{
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "fidelity scenario %s --gpu H100-80GB --requests 4000 -o %s/%s.json 2>/dev/null",
             tu_fixture(fixture), tu_tmpdir(), name);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(cmd, sizeof cmd,
             "run %s/%s.json --quiet --no-slowdown --json %s/%s.result.json --cdf %s/%s.cdf.csv",
             tu_tmpdir(), name, tu_tmpdir(), name, tu_tmpdir(), name);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
}

static void test_predicted(void)
{
    simulate("fidelity/timeslice-2.json", "timeslice-2");
    char res[PATH_MAX], cdf[PATH_MAX], err[SS_ERRLEN], names[4][64];
    snprintf(res, sizeof res, "%s/timeslice-2.result.json", tu_tmpdir());
    snprintf(cdf, sizeof cdf, "%s/timeslice-2.cdf.csv", tu_tmpdir());
    CU_ASSERT_EQUAL(fid_result_strategies(res, names, 4, err, sizeof err), 1);
    CU_ASSERT_STRING_EQUAL(names[0], "timeslice");
    struct fid_pred p;
    CU_ASSERT_EQUAL_FATAL(fid_predicted(res, cdf, "timeslice", &p, err, sizeof err), 0);
    CU_ASSERT_FATAL(p.ok);
    /* The pooled mean from the tenants, the quantiles from the (all) rows. */
    char *text = tu_slurp(res);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    double c0 = num(doc, "strategies.0.tenants.0.completed"),
           c1 = num(doc, "strategies.0.tenants.1.completed");
    double m = (c0 * num(doc, "strategies.0.tenants.0.latency_ms.mean") +
                c1 * num(doc, "strategies.0.tenants.1.latency_ms.mean")) /
               (c0 + c1);
    cJSON_Delete(doc);
    CU_ASSERT_EQUAL(p.completed, (long)(c0 + c1));
    CU_ASSERT_DOUBLE_EQUAL(p.mean_ms, m, 1e-9);
    char *rows = tu_slurp(cdf), want[96];
    snprintf(want, sizeof want, "timeslice,(all),0.9900,%.6g\n", p.p99_ms);
    TU_CHECK_CONTAINS(rows, want);
    free(rows);
    CU_ASSERT(p.p50_ms >= 2 && p.p50_ms <= p.p95_ms && p.p95_ms <= p.p99_ms);
    /* No such strategy, no such files: no prediction, no error. Not a result: an error. */
    CU_ASSERT_EQUAL(fid_predicted(res, cdf, "mig", &p, err, sizeof err), 0);
    CU_ASSERT_FALSE(p.ok);
    snprintf(res, sizeof res, "%s/none.result.json", tu_tmpdir());
    CU_ASSERT_EQUAL(fid_predicted(res, cdf, "timeslice", &p, err, sizeof err), 0);
    CU_ASSERT_FALSE(p.ok);
    CU_ASSERT_EQUAL(fid_result_strategies(res, names, 4, err, sizeof err), 0);
    CU_ASSERT_EQUAL(fid_predicted(tu_fixture("fidelity/timeslice-2.json"), cdf, "timeslice", &p,
                                  err, sizeof err),
                    -1);
    TU_CHECK_CONTAINS(err, "strategies: expected an array");
}

static void test_table(void)
{
    struct fid_row r[2];
    memset(r, 0, sizeof r);
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(
        fid_summary_read(tu_fixture("fidelity/timeslice-2.json"), &r[0].s, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(
        fid_summary_read(tu_fixture("fidelity/partition-2.json"), &r[1].s, err, sizeof err), 0);
    snprintf(r[0].strategy, sizeof r[0].strategy, "timeslice");
    /* measured mean 3.0025, p99 5.999; overhead 0.01 is added to the prediction */
    r[0].poisson = (struct fid_pred){1, 1000, 3.29, 2.49, 5.0, 6.578};
    r[0].replay = (struct fid_pred){1, 8, 2.9925, 2.49, 5.0, 5.99};
    r[1].poisson.mean_ms = r[1].poisson.p99_ms = NAN; /* no prediction */
    r[1].replay = r[1].poisson;
    TU_CHECK_CLOSE_REL(fid_rel_error(&r[0], &r[0].poisson, 6.578, 5.999), 0.589 / 5.999, 1e-12);
    CU_ASSERT(fid_row_ok(&r[0], 0.10));  /* +9.8 %, inside */
    CU_ASSERT(!fid_row_ok(&r[0], 0.09)); /* outside */
    CU_ASSERT(!fid_row_ok(&r[1], 1.0));  /* nothing predicted */
    CU_ASSERT(isnan(fid_rel_error(&r[1], &r[1].poisson, NAN, 5.999)));
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/table.md", tu_tmpdir());
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fid_table_md(fp, r, 2, 0.10);
    fclose(fp);
    char *md = tu_slurp(path);
    TU_CHECK_CONTAINS(md, "| p99 within 10 % |\n|---|");
    TU_CHECK_CONTAINS(md, "| timeslice-2 | timeslice | 2 | 0.50 | 2.000 | 8 | ");
    TU_CHECK_CONTAINS(md, " · 2.497 · 5.999 | 3.300 · 2.500 · 6.588 | +9.9 % | +9.8 % | 6.000 | "
                          "+0.0 % | yes |");
    TU_CHECK_CONTAINS(md, "| partition-2 | - | 2 | 0.50 | 2.000 | 8 | ");
    TU_CHECK_CONTAINS(md, " · 2.497 · 5.999 | - · - · - | - | - | - | - | no prediction |");
    TU_CHECK_CONTAINS(md, "32 of 132 SMs each (green contexts), the kernel alone on one partition "
                          "8.3000 ms (proportional to SMs: 8.2500 ms)");
    free(md);
    cJSON *rows = fid_rows_json(r, 2, 0.1);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(rows), 2);
    CU_ASSERT_DOUBLE_EQUAL(num(rows, "0.predicted_p99_ms"), 6.588, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(rows, "0.replay_p99_error"), 0.001 / 5.999, 1e-6);
    CU_ASSERT(cJSON_IsTrue(at(rows, "0.p99_within_goal")));
    CU_ASSERT(cJSON_IsNull(at(rows, "1.p99_within_goal")));
    CU_ASSERT(cJSON_IsNull(at(rows, "1.predicted_p99_ms")));
    CU_ASSERT_DOUBLE_EQUAL(num(rows, "1.partition_sms"), 32, 0);
    cJSON_Delete(rows);
}

static void test_cli(void)
{
    char cmd[4 * PATH_MAX], out[1 << 16], errb[4096];
    const char *ts = tu_fixture("fidelity/timeslice-2.json");
    /* Usage and bad input: exit 2 with a message, nothing written. */
    snprintf(cmd, sizeof cmd, "fidelity scenario %s -o %s/x.json", ts, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 2);
    TU_CHECK_CONTAINS(errb, "usage: sharesim fidelity scenario");
    snprintf(cmd, sizeof cmd, "fidelity scenario %s --gpu V100 -o %s/x.json", ts, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 2);
    TU_CHECK_CONTAINS(errb, "sharesim fidelity scenario: ");
    snprintf(cmd, sizeof cmd, "fidelity scenario %s --gpu H100-80GB --replay -o -", ts);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 2);
    TU_CHECK_CONTAINS(errb, "--replay writes trace files beside the scenario");
    snprintf(cmd, sizeof cmd, "fidelity scenario %s --gpu H100-80GB --requests 5 -o -", ts);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 2);
    CU_ASSERT_FALSE(tu_dir_has(tu_tmpdir(), "x.json"));
    /* A profile by path is made absolute in the scenario. */
    snprintf(cmd, sizeof cmd, "fidelity scenario %s --gpu kernels/profiles/h100-80gb.json -o -",
             ts);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, out, sizeof out, errb, sizeof errb), 0);
    char want[2 * PATH_MAX], cwd[PATH_MAX];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    snprintf(want, sizeof want, "\"gpu\":\t\"%s/kernels/profiles/h100-80gb.json\"", cwd);
    TU_CHECK_CONTAINS(out, want);
    /* The table of a case simulated into a folder; --check against a goal. */
    simulate("fidelity/timeslice-2.json", "timeslice-2");
    snprintf(cmd, sizeof cmd, "fidelity table %s %s --sim %s", ts,
             tu_fixture("fidelity/partition-2.json"), tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    TU_CHECK_CONTAINS(out, "| timeslice-2 | timeslice | 2 |");
    TU_CHECK_CONTAINS(out, "| partition-2 | - | 2 |");
    snprintf(cmd, sizeof cmd, "fidelity table %s --sim %s --check --goal 1000", ts, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(cmd, sizeof cmd, "fidelity table %s %s --sim %s --check --goal 1000 -o %s/t.md", ts,
             tu_fixture("fidelity/partition-2.json"), tu_tmpdir(), tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 1);
    TU_CHECK_CONTAINS(errb, "partition-2: p99 not predicted");
    snprintf(cmd, sizeof cmd, "fidelity table %s --sim %s --json - -o -", ts, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 2);
    snprintf(cmd, sizeof cmd, "fidelity table %s --sim %s --goal 0", ts, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 2);
    snprintf(cmd, sizeof cmd, "fidelity table %s/no-such.json --sim %s", tu_tmpdir(), tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 2);
}

void test_fidelity_register(void)
{
    static const struct tu_test t[] = {
        {"figures: nearest-rank quantiles, mean, empty sample", test_stats_nearest_rank},
        {"Poisson submit times: fixed seed, rate, exponential gaps", test_poisson_times},
        {"the fixture's figures are its latencies'", test_fixture_figures},
        {"summary: written and read back", test_summary_round_trip},
        {"summary: bad documents with their paths", test_summary_errors},
        {"MIG stand-in: nearest SM count that allows the tenants", test_mig_choice},
        {"scenario: time-slicing with the profile's slice and switch", test_scenario_timeslice},
        {"scenario: partitions as MIG instances, work scaled", test_scenario_partition},
        {"scenario: replay of the measured submit times", test_scenario_replay},
        {"predictions from sharesim run --json and --cdf", test_predicted},
        {"the comparison table: errors, goal, no prediction", test_table},
        {"sharesim fidelity scenario | table", test_cli},
        {NULL, NULL},
    };
    tu_add_suite("fidelity", t);
}
