/*
 * scripts/device-check without a GPU: --dry-run end to end (synthetic cases, the scenarios,
 * sharesim's predictions, the table and the report), the measuring path with stand-in
 * programs that write known outputs (fixtures, not measurements), and a machine without a GPU
 * (exit 3, nothing written where measured profiles go).
 */
#include "calib/calib.h"
#include "core/scenario.h"
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *bin(void)
{
    return getenv("SHARESIM") ? getenv("SHARESIM") : "build/sharesim";
}

/* Runs device-check with env and args, output in <tmpdir>/<name>; returns its exit code
 * (its stderr is shown when that is not `expect`). */
static int device_check(const char *env, const char *name, const char *args, int expect)
{
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "%s SHARESIM=%s DEVICE_CHECK_MEASURED=%s/%s-measured scripts/device-check --no-build "
             "--out %s/%s %s >%s/%s.out 2>%s/%s.err",
             env, bin(), tu_tmpdir(), name, tu_tmpdir(), name, args, tu_tmpdir(), name, tu_tmpdir(),
             name);
    int st = system(cmd);
    if (!WIFEXITED(st))
        return -1;
    if (WEXITSTATUS(st) != expect) {
        char err[PATH_MAX];
        snprintf(err, sizeof err, "%s/%s.err", tu_tmpdir(), name);
        char *text = tu_slurp(err);
        fprintf(stderr, "\n  device-check %s: exit %d: %.600s\n", name, WEXITSTATUS(st),
                text ? text : "");
        free(text);
    }
    return WEXITSTATUS(st);
}

static cJSON *read_json(const char *dir, const char *name)
{
    char *text = tu_slurp_in(dir, name);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    return doc;
}

static void check_loads(const char *path)
{
    struct scenario sc;
    char err[SS_ERRLEN];
    int rc = scn_load(path, &sc, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
    scn_free(&sc);
}

static double row_num(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void test_dry_run(void)
{
    if (tu_under_valgrind())
        return; /* 16 simulations under memcheck: left to the normal and ASan runs */
    CU_ASSERT_EQUAL_FATAL(
        device_check("", "dry", "--dry-run --requests 20000 --duration-ms 6000", 0), 0);
    char dir[1024], sim[1100], path[1400];
    snprintf(dir, sizeof dir, "%.1000s/dry", tu_tmpdir());
    snprintf(sim, sizeof sim, "%s/sim", dir);
    char *report = tu_slurp_in(dir, "report.md");
    TU_CHECK_CONTAINS(report, "**Dry run: nothing was measured.**");
    TU_CHECK_CONTAINS(report, "| fidelity partition-4 | ok |");
    TU_CHECK_CONTAINS(report, "## Roofline efficiencies (derived)\n\nnot measured");
    free(report);
    /* Nothing goes where measured profiles go. */
    snprintf(path, sizeof path, "%s/dry-measured", tu_tmpdir());
    CU_ASSERT_FALSE(tu_exists(path));
    /* The synthetic cases say what they are. */
    char *summary = tu_slurp_in(dir, "fidelity/timeslice-4.json");
    TU_CHECK_CONTAINS(summary, "\"device\": \"synthetic (scripts/device-check --dry-run; not a "
                               "measurement)\"");
    free(summary);
    /* Every scenario loads; the partitions are the 2g and 1g instances of the H100. */
    const char *names[] = {"timeslice-2", "timeslice-4", "partition-2", "partition-4"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s.json", sim, names[i]);
        check_loads(path);
        snprintf(path, sizeof path, "%s/%s-replay.json", sim, names[i]);
        check_loads(path);
    }
    char *scn = tu_slurp_in(sim, "partition-4.json");
    TU_CHECK_CONTAINS(scn, "\"profile\":\t\"1g.10gb\"");
    free(scn);
    scn = tu_slurp_in(sim, "partition-2.json");
    TU_CHECK_CONTAINS(scn, "\"profile\":\t\"2g.20gb\"");
    free(scn);
    scn = tu_slurp_in(sim, "timeslice-2.json");
    TU_CHECK_CONTAINS(scn, "\"slice_ms\":\t1.024");
    free(scn);
    /* The table: a prediction for every case. A synthetic partition is a FIFO server per
     * tenant, which is what sharesim's MIG instance is: replaying the same arrivals gives the
     * same p99 (histogram error 0.39 %). */
    cJSON *t = read_json(dir, "fidelity-table.json");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(t, "rows"), *row;
    CU_ASSERT_EQUAL(cJSON_GetArraySize(rows), 4);
    int k = 0;
    cJSON_ArrayForEach(row, rows)
    {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(row, "case");
        CU_ASSERT_STRING_EQUAL(cJSON_IsString(c) ? c->valuestring : "", names[k]);
        CU_ASSERT(row_num(row, "predicted_p99_ms") > row_num(row, "predicted_p50_ms"));
        CU_ASSERT(isfinite(row_num(row, "replay_p99_ms")));
        if (k >= 2)
            CU_ASSERT(fabs(row_num(row, "replay_p99_error")) < 0.01);
        k++;
    }
    cJSON_Delete(t);
    char *md = tu_slurp_in(dir, "fidelity.md");
    TU_CHECK_CONTAINS(md, "| partition-2 | mig | 2 | 0.60 | 2.000 |");
    free(md);
}

static void write_exec(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(text, fp);
    fclose(fp);
    chmod(path, 0755);
}

/* A calibration stand-in: the device name, or a fragment (a fixture) copied to --out. */
static void stand_in(const char *dir, const char *name, const char *fragment, int rc)
{
    char text[8192];
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "out=\n"
             "while [ $# -gt 0 ]; do\n"
             "  case $1 in --device-name) echo 'NVIDIA H100 80GB HBM3'; exit 0;;\n"
             "  --out) out=$2; shift;; esac; shift\n"
             "done\n"
             "[ %d -eq 0 ] || exit %d\n"
             "%s%s%s\n",
             rc, rc, fragment ? "cp '" : "", fragment ? fragment : "",
             fragment ? "' \"$out\"" : "");
    write_exec(dir, name, text);
}

/* A fidelity stand-in: the fixture case of its mode under the case's name. */
static void fidelity_stand_in(const char *dir)
{
    char text[8192], cwd[1024];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "c= out=\n"
             "while [ $# -gt 0 ]; do\n"
             "  case $1 in --case) c=$2; shift;; --out) out=$2; shift;; esac; shift\n"
             "done\n"
             "src=%s/tests/fixtures/fidelity/timeslice-2\n"
             "case $c in partition-*) src=%s/tests/fixtures/fidelity/partition-2;; esac\n"
             "sed -e \"s/\\\"case\\\": \\\"[^\\\"]*\\\"/\\\"case\\\": \\\"$c\\\"/\" "
             "-e \"s/\\\"latencies_csv\\\": \\\"[^\\\"]*\\\"/\\\"latencies_csv\\\": "
             "\\\"$c.csv\\\"/\" \"$src.json\" >\"$out\"\n"
             "cp \"$src.csv\" \"$(dirname \"$out\")/$c.csv\"\n",
             cwd, cwd);
    write_exec(dir, "fidelity", text);
}

static void test_stand_ins(void)
{
    char kdir[1024], env[1100], frag[1200], cwd[1024];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    snprintf(kdir, sizeof kdir, "%.1000s/standins", tu_tmpdir());
    mkdir(kdir, 0755);
    snprintf(frag, sizeof frag, "%s/tests/fixtures/profile/tslice-fragment.json", cwd);
    stand_in(kdir, "tslice", frag, 0);
    snprintf(frag, sizeof frag, "%s/tests/fixtures/profile/partition-fragment.json", cwd);
    stand_in(kdir, "partition", frag, 0);
    stand_in(kdir, "concurrency", NULL, 1); /* fails: its values stay the shipped ones */
    fidelity_stand_in(kdir);
    snprintf(env, sizeof env, "DEVICE_CHECK_KERNELS=%s", kdir);
    CU_ASSERT_EQUAL_FATAL(device_check(env, "stand", "--requests 4000", 0), 0);
    char dir[1024], path[PATH_MAX];
    snprintf(dir, sizeof dir, "%.1000s/stand", tu_tmpdir());
    /* The measured profile, copied where measured profiles go, and used for the predictions. */
    snprintf(path, sizeof path, "%s/stand-measured/h100-80gb.json", tu_tmpdir());
    struct gpu_profile p;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(cal_load_file(path, &p, err, sizeof err), 0);
    CU_ASSERT(p.measured);
    CU_ASSERT_DOUBLE_EQUAL(p.timeslice_s, 2048e-6, 1e-15);
    char *scn = tu_slurp_in(dir, "sim/timeslice-2.json");
    TU_CHECK_CONTAINS(scn, "\"gpu\":\t\"H100-80GB-measured\"");
    TU_CHECK_CONTAINS(scn, "\"slice_ms\":\t2.048");
    /* the measured base, 12.5 us, plus two default contexts' state: 2 x 2.8 MB / 560 GB/s */
    TU_CHECK_CONTAINS(scn, "\"switch_us\":\t22.5");
    free(scn);
    char *report = tu_slurp_in(dir, "report.md");
    TU_CHECK_CONTAINS(report, "Measured on device 0");
    TU_CHECK_CONTAINS(report, "measured profile H100-80GB-measured");
    TU_CHECK_CONTAINS(report, "+100.0%"); /* profile diff: the slice doubled */
    TU_CHECK_CONTAINS(report, "| calibrate | ok |");
    TU_CHECK_CONTAINS(report, "| timeslice-4 | timeslice | 2 |");
    free(report);
    char *log = tu_slurp_in(dir, "calibrate/calibrate.log");
    TU_CHECK_CONTAINS(log, "calibrate: concurrency failed (exit 1)");
    free(log);
    /* No GPU: exit 3, and nothing where measured profiles go. */
    write_exec(kdir, "tslice", "#!/bin/sh\necho 'tslice: no CUDA GPU found (test)' >&2\nexit 3\n");
    CU_ASSERT_EQUAL(device_check(env, "nogpu", "", 3), 3);
    snprintf(path, sizeof path, "%s/nogpu-measured", tu_tmpdir());
    CU_ASSERT_FALSE(tu_exists(path));
    char *err_text = tu_slurp_in(tu_tmpdir(), "nogpu.err");
    TU_CHECK_CONTAINS(err_text, "no CUDA GPU on this machine: nothing measured");
    free(err_text);
}

static void test_usage(void)
{
    CU_ASSERT_EQUAL(device_check("", "bad1", "--budget soon", 2), 2);
    CU_ASSERT_EQUAL(device_check("", "bad2", "--frobnicate", 2), 2);
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/bad2.err", tu_tmpdir());
    char *text = tu_slurp(out);
    TU_CHECK_CONTAINS(text, "device-check: unknown argument --frobnicate");
    free(text);
}

void test_device_check_register(void)
{
    static const struct tu_test t[] = {
        {"--dry-run: synthetic cases, scenarios, predictions, table", test_dry_run},
        {"stand-in programs: measured profile, predictions with it; no GPU", test_stand_ins},
        {"usage errors", test_usage},
        {NULL, NULL},
    };
    tu_add_suite("device_check", t);
}
