/*
 * sharesim sweep (cli/cmd_sweep.c) end to end: grid size and CSV rows, a point equal to
 * `sharesim run` of the same scenario, byte-identical files for --jobs 1 and --jobs 2, resume
 * recomputing only the missing point, bad paths and values writing nothing, ranges and the
 * plot data. The scenario is tiny (3000 requests a point) so the suite is quick under ASan.
 */
#include "base/util.h"
#include "testutil.h"

#include <cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GRID "--set tenants.0.arrival.rate_per_s=50,100 --set strategies.1.slice_ms=1,2,5"

/* tests/fixtures/sweep/tiny.json (two tenants, exclusive and time-slicing; a at 100/s, a 1 ms
 * slice), copied once to the temporary directory; returns the copy's path. */
static const char *tiny_path(void)
{
    static char *p;
    if (!p)
        p = ss_xstrdup(tu_fixture_write("sweep-tiny.json", "sweep/tiny.json", NULL));
    return p;
}

static const char *tmp_path(const char *name)
{
    static char buf[8][600];
    static int slot;
    char *p = buf[slot++ % 8];
    snprintf(p, 600, "%s/%s", tu_tmpdir(), name);
    return p;
}

static int count_lines(const char *path)
{
    char *s = tu_slurp(path);
    int n = 0;
    for (char *c = s; c && *c; c++)
        n += *c == '\n';
    free(s);
    return n;
}

static void check_files_equal(const char *a, const char *b)
{
    char *x = tu_slurp(a), *y = tu_slurp(b);
    CU_ASSERT_PTR_NOT_NULL(x);
    CU_ASSERT_PTR_NOT_NULL(y);
    if (x && y && strcmp(x, y) != 0)
        fprintf(stderr, "\n  %s and %s differ\n", a, b);
    CU_ASSERT(x && y && strcmp(x, y) == 0);
    free(x);
    free(y);
}

/* Runs `sweep tiny GRID --out dir extra`; returns the exit code, stderr in err. */
static int sweep(const char *grid, const char *dir, const char *extra, char *err, size_t errlen)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sweep '%s' %s --out '%s' --no-plot --quiet %s", tiny_path(), grid,
             dir, extra);
    return tu_cli(cmd, NULL, 0, err, errlen);
}

/* A 2×3 grid: 6 points, 6 × 2 strategies × 2 tenants rows; point 4 equals `sharesim run`. */
static void test_cli_grid(void)
{
    const char *dir = tmp_path("sweep-grid");
    char err[4096], p[700];
    CU_ASSERT_EQUAL_FATAL(sweep(GRID, dir, "--jobs 2", err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "6 points, 0 already done (skipped), 6 to run with 2 jobs"));
    snprintf(p, sizeof p, "%s/points/index.csv", dir);
    CU_ASSERT_EQUAL(count_lines(p), 7);
    char *index = tu_slurp(p);
    CU_ASSERT_PTR_NOT_NULL(strstr(index,
                                  "point,tenants.0.arrival.rate_per_s,strategies.1.slice_ms\n"
                                  "p0000,50,1\np0001,50,2\np0002,50,5\np0003,100,1\n"
                                  "p0004,100,2\np0005,100,5\n"));
    free(index);
    snprintf(p, sizeof p, "%s/sweep.csv", dir);
    CU_ASSERT_EQUAL(count_lines(p), 1 + 6 * 2 * 2);
    char *csv = tu_slurp(p);
    CU_ASSERT(strncmp(csv,
                      "point,tenants.0.arrival.rate_per_s,strategies.1.slice_ms,scenario,strategy,"
                      "kind,tenant,",
                      85) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\np0004,100,2,tiny,ts,timeslice,b,"));
    free(csv);
    for (int i = 0; i < 6; i++) {
        char f[700];
        snprintf(f, sizeof f, "%s/points/p%04d.json", dir, i);
        CU_ASSERT(tu_exists(f));
    }

    /* point 4 is `sharesim run` of the scenario with a = 100/s and a 2 ms slice */
    char cmd[2048];
    const char *scn = tu_fixture_write("sweep-p4.json", "sweep/tiny.json",
                                       "{\"tenants.0.arrival.rate_per_s\": 100, "
                                       "\"strategies.1.slice_ms\": 2}");
    snprintf(cmd, sizeof cmd, "run '%s' --quiet --json '%s' --csv '%s'", scn,
             tmp_path("sweep-p4.out.json"), tmp_path("sweep-p4.out.csv"));
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(p, sizeof p, "%s/points/p0004.csv", dir);
    check_files_equal(p, tmp_path("sweep-p4.out.csv"));
    snprintf(p, sizeof p, "%s/points/p0004.json", dir);
    char *a = tu_slurp(p), *b = tu_slurp(tmp_path("sweep-p4.out.json"));
    cJSON *ja = cJSON_Parse(a), *jb = cJSON_Parse(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ja);
    cJSON *swo = cJSON_DetachItemFromObject(ja, "sweep");
    CU_ASSERT(cJSON_Compare(ja, jb, 1));
    char *params = cJSON_PrintUnformatted(cJSON_GetObjectItem(swo, "params"));
    CU_ASSERT_STRING_EQUAL(params,
                           "{\"tenants.0.arrival.rate_per_s\":100,\"strategies.1.slice_ms\":2}");
    CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItem(swo, "id")), "p0004");
    free(params);
    cJSON_Delete(swo);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    free(a);
    free(b);
}

static void stat_point(const char *dir, int i, struct stat *st)
{
    char p[700];
    snprintf(p, sizeof p, "%s/points/p%04d.json", dir, i);
    CU_ASSERT_EQUAL(stat(p, st), 0);
}

/* --jobs 1 and --jobs 2 give the same bytes; resume recomputes only the missing point. */
static void test_cli_jobs_and_resume(void)
{
    const char *d1 = tmp_path("sweep-j1"), *d2 = tmp_path("sweep-j2");
    char err[4096], a[700], b[700];
    CU_ASSERT_EQUAL_FATAL(sweep(GRID, d1, "--jobs 1", err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "6 to run with 1 job\n"));
    CU_ASSERT_EQUAL_FATAL(sweep(GRID, d2, "--jobs 2", err, sizeof err), 0);
    const char *files[] = {"sweep.csv",         "points/index.csv",  "points/p0000.json",
                           "points/p0001.json", "points/p0002.json", "points/p0003.json",
                           "points/p0004.json", "points/p0005.json", "points/p0000.csv",
                           "points/p0005.csv"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(a, sizeof a, "%s/%s", d1, files[i]);
        snprintf(b, sizeof b, "%s/%s", d2, files[i]);
        check_files_equal(a, b);
    }

    /* delete one point: only it is recomputed, the others are not touched */
    struct stat before[6], after[6];
    for (int i = 0; i < 6; i++)
        stat_point(d1, i, &before[i]);
    snprintf(a, sizeof a, "%s/points/p0003.json", d1);
    CU_ASSERT_EQUAL(remove(a), 0);
    CU_ASSERT_EQUAL(sweep(GRID, d1, "--jobs 2", err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "6 points, 5 already done (skipped), 1 to run with 1 job"));
    for (int i = 0; i < 6; i++) {
        stat_point(d1, i, &after[i]);
        if (i == 3)
            continue;
        CU_ASSERT_EQUAL(after[i].st_ino, before[i].st_ino);
        CU_ASSERT(after[i].st_mtim.tv_sec == before[i].st_mtim.tv_sec &&
                  after[i].st_mtim.tv_nsec == before[i].st_mtim.tv_nsec);
    }
    snprintf(b, sizeof b, "%s/points/p0003.json", d2);
    check_files_equal(a, b);
    snprintf(a, sizeof a, "%s/sweep.csv", d1);
    snprintf(b, sizeof b, "%s/sweep.csv", d2);
    check_files_equal(a, b);

    /* a point with its JSON but not its CSV is not done */
    snprintf(a, sizeof a, "%s/points/p0005.csv", d1);
    CU_ASSERT_EQUAL(remove(a), 0);
    CU_ASSERT_EQUAL(sweep(GRID, d1, "", err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "5 already done (skipped), 1 to run"));
    /* all done: nothing runs */
    CU_ASSERT_EQUAL(sweep(GRID, d1, "", err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "6 already done (skipped), 0 to run"));
    /* no temporaries left behind */
    char cmd[800];
    snprintf(cmd, sizeof cmd, "ls '%s/points' | grep -q tmp", d1);
    CU_ASSERT_NOT_EQUAL(system(cmd), 0);
}

static int dir_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Bad paths and values: exit 2 naming the point and path, nothing written. */
static void test_cli_bad(void)
{
    const char *dir = tmp_path("sweep-bad");
    char err[4096];
    CU_ASSERT_EQUAL(sweep("--set tenants.7.arrival.rate_per_s=1", dir, "", err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "point p0000 (tenants.7.arrival.rate_per_s=1)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "index 7 out of range (tenants has 2 elements)"));
    CU_ASSERT_EQUAL(
        sweep("--set gpus=2 --set tenants.0.arrival.rate_per_s=10,0", dir, "", err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "point p0001 (gpus=2, tenants.0.arrival.rate_per_s=0)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "tenants[0].arrival.rate_per_s: expected a number > 0"));
    CU_ASSERT_EQUAL(sweep("--set tenants.0.arrival.rate_pers=1", dir, "", err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown key \"rate_pers\""));
    CU_ASSERT_EQUAL(sweep("--set strategies.1.slice_ms=1:2:-1", dir, "", err, sizeof err), 2);
    CU_ASSERT_FALSE(dir_exists(dir));
    CU_ASSERT_EQUAL(sweep("--set gpus=2", dir, "--jobs 0", err, sizeof err), 2);
    CU_ASSERT_EQUAL(sweep("--set gpus=2", dir, "--bogus", err, sizeof err), 2);
    CU_ASSERT_EQUAL(tu_cli("sweep --set gpus=2 --out /tmp/x", NULL, 0, NULL, 0), 2);
    CU_ASSERT_FALSE(dir_exists(dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sweep '%s' --out '%s'", tiny_path(), dir);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--set"));
    snprintf(cmd, sizeof cmd, "sweep '%s' --set gpus=2", tiny_path());
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--out"));
    CU_ASSERT_FALSE(dir_exists(dir));
    char out[8192];
    CU_ASSERT_EQUAL(tu_cli("sweep --help", out, sizeof out, NULL, 0), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "start:stop:step"));

    /* a directory holding another sweep's points is refused before anything is written */
    CU_ASSERT_EQUAL_FATAL(sweep("--set strategies.1.slice_ms=1,2", dir, "", err, sizeof err), 0);
    char p[700];
    struct stat before, after;
    snprintf(p, sizeof p, "%s/sweep.csv", dir);
    CU_ASSERT_EQUAL(stat(p, &before), 0);
    CU_ASSERT_EQUAL(sweep("--set strategies.1.slice_ms=1,3", dir, "", err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "p0001.json was written by a different sweep"));
    CU_ASSERT_EQUAL(sweep("--set strategies.1.slice_ms=1,2", dir, "--seed 9", err, sizeof err), 2);
    CU_ASSERT_EQUAL(stat(p, &after), 0);
    CU_ASSERT(after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
              after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
}

/* A range axis end to end, and the page (DIR/sweep.html, its figures as SVG). */
static void test_cli_range_and_plot(void)
{
    const char *dir = tmp_path("sweep-range");
    char err[4096], p[700], cmd[1024];
    snprintf(cmd, sizeof cmd, "sweep '%s' --set tenants.0.arrival.rate_per_s=20:30:5 --out '%s'",
             tiny_path(), dir);
    char out[8192];
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/sweep.html"));
    /* the table: one row per point × strategy */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "p0002  30"));
    char *index = tu_slurp_in(dir, "points/index.csv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(index);
    CU_ASSERT_STRING_EQUAL(index, "point,tenants.0.arrival.rate_per_s\n"
                                  "p0000,20\np0001,25\np0002,30\n");
    free(index);
    snprintf(p, sizeof p, "%s/sweep.csv", dir);
    CU_ASSERT_EQUAL(count_lines(p), 1 + 3 * 2 * 2);
    snprintf(p, sizeof p, "%s/sweep.html", dir);
    char *page = tu_slurp(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    CU_ASSERT(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    TU_CHECK_CONTAINS(page, "arrival rate (req/s)"); /* the x axis in words, not the path */
    free(page);
    snprintf(p, sizeof p, "%s/sweep-p99-vs-param.svg", dir);
    CU_ASSERT(tu_exists(p));
    /* a metric that does not exist is refused before anything runs */
    snprintf(cmd, sizeof cmd,
             "sweep '%s' --set tenants.0.arrival.rate_per_s=20 --out '%s-x' "
             "--plot p98_ms",
             tiny_path(), dir);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "--plot: \"p98_ms\" is not a metric");
}

/* Field `col` (by the header's name) of data row `row` (0-based) of a CSV text; NaN if absent. */
static double csv_field(const char *text, const char *col, int row)
{
    const char *eol = strchr(text, '\n');
    int idx = -1, k = 0;
    for (const char *c = text; c && c < eol; k++) {
        const char *e = strpbrk(c, ",\n");
        if ((size_t)(e - c) == strlen(col) && strncmp(c, col, strlen(col)) == 0)
            idx = k;
        c = *e == ',' ? e + 1 : NULL;
    }
    const char *line = eol + 1;
    for (int r = 0; r < row && line; r++) {
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    if (idx < 0 || !line)
        return NAN;
    for (int f = 0; f < idx && line; f++) {
        line = strchr(line, ',');
        line = line ? line + 1 : NULL;
    }
    return line && *line != ',' && *line != '\n' ? atof(line) : NAN;
}

/*
 * A sweep over an LLM tenant's serving key: the four requests of llmunit/alone.csv run alone,
 * so the TTFT p99 is the 2000-token prefill by the roofline (28.0 TFLOP at 70 % of an A100's
 * 312 TFLOP/s: 128.2 ms) plus the swept step overhead, exactly (the histogram keeps its
 * maximum). The CSV carries the LLM columns after `sharesim run --csv`'s own.
 */
static void test_cli_llm_overhead(void)
{
    /* The copy lives in the temporary directory: the trace by its full path. */
    char cwd[PATH_MAX], trace[PATH_MAX + 600], cmd[4096], err[4096];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    snprintf(trace, sizeof trace, "%s/%s", cwd, tu_fixture("llmunit/alone.csv"));
    const char *p = tu_fixture_write("sweep-llm-alone.json", "llmunit/alone.json",
                                     "{\"tenants.0.arrival.path\": \"%s\"}", trace);
    const char *dir = tmp_path("sweep-llm-overhead");
    snprintf(cmd, sizeof cmd,
             "sweep '%s' --set tenants.0.serving.step_overhead_ms=0,3,10 --out '%s' --no-plot "
             "--quiet --jobs 2",
             p, dir);
    int rc = tu_cli(cmd, NULL, 0, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char path[700];
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    char *csv = tu_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    TU_CHECK_CONTAINS(csv,
                      "point,tenants.0.serving.step_overhead_ms,scenario,strategy,kind,tenant,");
    TU_CHECK_CONTAINS(csv, ",ttft_ms_p99,");
    TU_CHECK_CONTAINS(csv, ",output_tokens_per_s,preemptions,kv_utilization,");
    double P = 6738415616.0, n = 2000;
    double flops = 2 * P * n + 4.0 * 32 * 32 * 128 * (n * (n + 1) / 2);
    double prefill_ms = flops / (312e12 * 0.70) * 1e3;
    static const double over[3] = {0, 3, 10};
    for (int k = 0; k < 3; k++)
        TU_CHECK_CLOSE_REL(csv_field(csv, "ttft_ms_p99", k), prefill_ms + over[k], 1e-5);
    free(csv);
    /* Rerun without --quiet (every point is done, so nothing runs again): under the p99 table
     * the LLM service's TTFT / TPOT p99, each point's TTFT the prefill plus its overhead. */
    static char out[1 << 14];
    snprintf(cmd, sizeof cmd,
             "sweep '%s' --set tenants.0.serving.step_overhead_ms=0,3,10 --out '%s' "
             "--no-plot",
             p, dir);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, out, sizeof out, err, sizeof err), 0);
    TU_CHECK_CONTAINS(out, "p99 latency, ms (every figure: ");
    const char *llm = strstr(out, "LLM services: TTFT p99 / TPOT p99, ms (every figure: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(llm);
    for (int k = 0; k < 3; k++) {
        char cell[40];
        snprintf(cell, sizeof cell, " %.1f/", prefill_ms + over[k]);
        TU_CHECK_CONTAINS(llm, cell);
    }
}

/* Arrival rate × max_num_seqs over an LLM tenant beside a plain one: the same bytes with
 * --jobs 1 and --jobs 2, a row per point and tenant, and at the higher rate fewer running
 * sequences make the TTFT p99 longer (requests wait for a slot; common random numbers). */
static void test_cli_llm_jobs(void)
{
    const char *p = tu_fixture_write("sweep-llm-mixed.json", "llmunit/mixed.json",
                                     "{\"stop.duration_s\": %d}", 10);
    const char *d1 = tmp_path("sweep-llm-j1"), *d2 = tmp_path("sweep-llm-j2");
    char cmd[2048], err[4096], a[700], b[700];
    const char *grid = "--set tenants.1.arrival.rate_per_s=2,8 --set "
                       "tenants.1.serving.max_num_seqs=2,256";
    for (int j = 1; j <= 2; j++) {
        snprintf(cmd, sizeof cmd, "sweep '%s' %s --out '%s' --no-plot --quiet --jobs %d", p, grid,
                 j == 1 ? d1 : d2, j);
        CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    }
    const char *files[] = {"sweep.csv", "points/p0000.json", "points/p0003.json",
                           "points/p0003.csv"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(a, sizeof a, "%s/%s", d1, files[i]);
        snprintf(b, sizeof b, "%s/%s", d2, files[i]);
        check_files_equal(a, b);
    }
    snprintf(a, sizeof a, "%s/sweep.csv", d1);
    CU_ASSERT_EQUAL(count_lines(a), 1 + 4 * 2);
    char *csv = tu_slurp(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    /* Rows: p0000 (2/s, 2 seqs) embed, chat; p0001 (2/s, 256); p0002 (8/s, 2); p0003 (8/s,
     * 256). The plain tenant has no LLM figures. */
    CU_ASSERT(isnan(csv_field(csv, "ttft_ms_p99", 0)));
    double slow = csv_field(csv, "ttft_ms_p99", 5), fast = csv_field(csv, "ttft_ms_p99", 7);
    CU_ASSERT(isfinite(slow) && isfinite(fast) && slow > fast);
    free(csv);
}

/* sweep --json X --csv X used to exit 0 with one of them lost; DIR's own files count. */
static void test_sweep_outputs(void)
{
    char args[2400], dir[600];
    snprintf(dir, sizeof dir, "%s/sw-outplan", tu_tmpdir());
    snprintf(args, sizeof args, "sweep '%s' --set gpus=2,3 --out '%s' --quiet --json @X --csv @X",
             tiny_path(), dir);
    tu_expect_outputs_refused(args, "sw-x", "sharesim sweep: --csv ", "the same file as --json ",
                              NULL);
    CU_ASSERT_FALSE(tu_exists(dir)); /* refused before DIR is made */
    snprintf(args, sizeof args, "sweep '%s' --set gpus=2,3 --out '%s' --json - --csv -",
             tiny_path(), dir);
    tu_expect_outputs_refused(args, NULL, "--csv -: --json - already writes to stdout", NULL);
    snprintf(args, sizeof args, "sweep '%s' --set gpus=2,3 --out '%s' --quiet --csv '%s/sweep.csv'",
             tiny_path(), dir, dir);
    tu_expect_outputs_refused(args, NULL, "one of the files --out ", NULL);
    snprintf(args, sizeof args,
             "sweep '%s' --set gpus=2,3 --out '%s' --quiet --json '%s/./sweep-p99_ms.svg'",
             tiny_path(), dir, dir);
    tu_expect_outputs_refused(args, NULL, "one of the files --out ", NULL);
    CU_ASSERT_FALSE(tu_exists(dir));
}

void test_cmd_sweep_register(void)
{
    static const struct tu_test t[] = {
        {"cli: 2x3 grid, point = sharesim run", test_cli_grid},
        {"cli: --jobs 1 = --jobs 2, resume", test_cli_jobs_and_resume},
        {"cli: an LLM tenant's step overhead swept, TTFT p99 by hand", test_cli_llm_overhead},
        {"cli: LLM rate x max_num_seqs, --jobs 1 = --jobs 2", test_cli_llm_jobs},
        {"cli: bad path/value writes nothing", test_cli_bad},
        {"cli: range and plot", test_cli_range_and_plot},
        {"one output per file, DIR untouched", test_sweep_outputs},
        {NULL, NULL},
    };
    tu_add_suite("cmd_sweep", t);
}
