/*
 * scripts/calibrate with stand-in programs that write known fragments: the measured
 * profile is merged and diffed, a failed program keeps its values shipped, and without a GPU
 * it exits 3 writing nothing.
 */
#include "calib/calib.h"
#include "testutil.h"
#include "base/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

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

/* A stand-in program: prints the device name, or writes `fragment` to its --out. */
static void stand_in(const char *dir, const char *name, const char *fragment, int rc)
{
    char *text = malloc(8192);
    snprintf(text, 8192,
             "#!/bin/sh\n"
             "out=\n"
             "while [ $# -gt 0 ]; do\n"
             "  case $1 in --device-name) echo 'NVIDIA H100 80GB HBM3'; exit 0;;\n"
             "  --out) out=$2; shift;; esac; shift\n"
             "done\n"
             "[ %d -eq 0 ] || exit %d\n"
             "cat > \"$out\" <<'EOF'\n%s\nEOF\n",
             rc, rc, fragment);
    write_exec(dir, name, text);
    free(text);
}

static void test_calibrate_script(void)
{
    char kdir[PATH_MAX], cmd[4 * PATH_MAX], o[PATH_MAX];
    snprintf(kdir, sizeof kdir, "%s/kernels", tu_tmpdir());
    mkdir(kdir, 0755);
    /* The measured fragments the real programs would write (tests/fixtures/profile/). */
    char *frag_tslice = tu_fixture_patch("profile/tslice-fragment.json", NULL);
    char *frag_partition = tu_fixture_patch("profile/partition-fragment.json", NULL);
    stand_in(kdir, "tslice", frag_tslice, 0);
    stand_in(kdir, "partition", frag_partition, 0);
    free(frag_tslice);
    free(frag_partition);
    stand_in(kdir, "concurrency", "", 1); /* a failed program: its values stay shipped */
    snprintf(o, sizeof o, "%s/cal/h100.json", tu_tmpdir());
    const char *bin = getenv("SHARESIM") ? getenv("SHARESIM") : "build/sharesim";
    snprintf(cmd, sizeof cmd,
             "CALIBRATE_KERNELS=%s SHARESIM=%s scripts/calibrate --out %s >%s/cal.out "
             "2>%s/cal.err",
             kdir, bin, o, tu_tmpdir(), tu_tmpdir());
    CU_ASSERT_EQUAL(system(cmd), 0);
    struct gpu_profile p;
    char e[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(cal_load_file(o, &p, e, sizeof e), 0);
    CU_ASSERT(p.measured);
    CU_ASSERT_DOUBLE_EQUAL(p.timeslice_s, 2048e-6, 1e-15);
    snprintf(cmd, sizeof cmd, "%s/cal.out", tu_tmpdir());
    char *diff = tu_slurp(cmd);
    CU_ASSERT_PTR_NOT_NULL(diff && strstr(diff, "+100.0%"));
    free(diff);
    snprintf(cmd, sizeof cmd, "%s/cal.err", tu_tmpdir());
    char *log = tu_slurp(cmd);
    CU_ASSERT_PTR_NOT_NULL(log && strstr(log, "calibrate: concurrency failed (exit 1); its "
                                              "values stay the shipped ones"));
    free(log);
    /* No GPU: the programs exit 3, so does calibrate, and nothing is written. */
    write_exec(kdir, "tslice", "#!/bin/sh\necho 'tslice: no CUDA GPU found (test)' >&2\nexit 3\n");
    snprintf(cmd, sizeof cmd,
             "CALIBRATE_KERNELS=%s SHARESIM=%s scripts/calibrate --out %s/cal/none.json "
             ">/dev/null 2>&1",
             kdir, bin, tu_tmpdir());
    int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    snprintf(cmd, sizeof cmd, "%s/cal/none.json", tu_tmpdir());
    CU_ASSERT_FALSE(tu_exists(cmd));
}

/* --timeout: a program that hangs is stopped and counts as failed; the others are merged. */
static void test_calibrate_timeout(void)
{
    char kdir[PATH_MAX], cmd[4 * PATH_MAX], o[PATH_MAX];
    snprintf(kdir, sizeof kdir, "%s/kernels-to", tu_tmpdir());
    mkdir(kdir, 0755);
    char *frag = tu_fixture_patch("profile/tslice-fragment.json", NULL);
    stand_in(kdir, "tslice", frag, 0);
    free(frag);
    write_exec(kdir, "partition", "#!/bin/sh\nexec sleep 30\n");
    write_exec(kdir, "concurrency", "#!/bin/sh\nexit 1\n");
    snprintf(o, sizeof o, "%s/cal/timeout.json", tu_tmpdir());
    snprintf(cmd, sizeof cmd,
             "CALIBRATE_KERNELS=%s SHARESIM=%s scripts/calibrate --timeout 1 --out %s "
             ">/dev/null 2>%s/cal-to.err",
             kdir, getenv("SHARESIM") ? getenv("SHARESIM") : "build/sharesim", o, tu_tmpdir());
    CU_ASSERT_EQUAL(system(cmd), 0);
    struct gpu_profile p;
    char e[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(cal_load_file(o, &p, e, sizeof e), 0);
    CU_ASSERT_DOUBLE_EQUAL(p.timeslice_s, 2048e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(p.rate_compute_exponent, 1, 0); /* partition's: stopped, shipped */
    char *log = tu_slurp_in(tu_tmpdir(), "cal-to.err");
    TU_CHECK_CONTAINS(log, "calibrate: partition failed (exit 124)");
    free(log);
}

void test_calibrate_register(void)
{
    static const struct tu_test t[] = {
        {"scripts/calibrate with stand-in programs", test_calibrate_script},
        {"scripts/calibrate --timeout stops a program", test_calibrate_timeout},
        {NULL, NULL},
    };
    tu_add_suite("calibrate", t);
}
