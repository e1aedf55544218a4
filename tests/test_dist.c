#define _XOPEN_SOURCE 700 /* realpath */
/*
 * Tests for running beyond one process (docs/distributed.md), end to end through the CLI:
 *  - `mpirun -n 3 sharesim sweep` and `… validate --quick` write the same bytes as --jobs 1
 *    (loopback, 3 ranks oversubscribed on however many cores there are), and a resumed MPI
 *    sweep computes only the missing point;
 *  - a rank 0 that stops before the points run (a point file of another sweep, a bad point)
 *    ends the job with its own exit code and one message, without hanging the other ranks;
 *  - killing one rank mid-run fails the run (exit status not 0) with a message naming the
 *    rank and the points in flight, keeps every finished point intact, and a rerun
 *    completes it to the same bytes;
 *  - `mpirun -n 3 sharesim cluster` writes the same JSON and CSVs as --jobs 1, the summary
 *    and the progress lines once; rank 0 stopping early (an output it cannot open) ends the
 *    job; a killed rank fails the run naming the experiment in flight, and leaves no output;
 *  - a rank whose command fails alone before the run (MPMD: an input only that rank cannot
 *    read) fails the job with its message instead of leaving rank 0 waiting for ever;
 *  - --shard I/N then --merge, for sweep (separate or shared shard directories), validate
 *    and cluster (partial files), give the same bytes as one run; bad shard arguments exit
 *    2; so does scripts/slurm-array.sh, run with the environment of Slurm's array tasks;
 *  - scripts/mpi-scaling --quick prints its table with the outputs compared, and --per-run
 *    one cost per run, which scripts/dist-estimate.py --costs reads.
 *
 * The MPI tests are skipped, with a note, when mpirun is not on PATH (scripts/install-deps
 * installs it) and under valgrind, where the ranks would run under mpirun without memcheck
 * or every rank under memcheck, minutes each; the pool's MPI-free paths are memchecked by
 * test_pool. Under ASan the ranks run with leak detection off: Open MPI's own start-up
 * leaves memory ASan reports (MPI_Init's, in components it has unloaded, so no suppression
 * can name them); addressing errors still abort the rank and fail the test.
 */
#include "testutil.h"
#include "base/util.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The sweep of test_sweep.c: 6 points of 3000 requests each. */
#define TINY_FMT                                                                                   \
    "{\"name\": \"tiny\", \"gpu\": \"A100-80GB\", \"gpus\": 2, \"seed\": 7,"                       \
    " \"stop\": {\"requests\": %d}, \"warmup\": {\"requests\": 100},"                              \
    " \"tenants\": ["                                                                              \
    "  {\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 100},"            \
    "   \"work\": {\"dist\": \"exponential\", \"mean_ms\": 2}, \"memory_gb\": 4},"                 \
    "  {\"name\": \"b\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 200},"            \
    "   \"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}, \"memory_gb\": 4}],"                \
    " \"strategies\": [{\"name\": \"excl\", \"kind\": \"exclusive\"},"                             \
    "  {\"name\": \"ts\", \"kind\": \"timeslice\", \"slice_ms\": 1, \"assign\": {\"a\": 0, "       \
    "\"b\": 0}}]}"

#define GRID "--set tenants.0.arrival.rate_per_s=50,100 --set strategies.1.slice_ms=1,2,5"
#define N_POINTS 6
/* The rank-death sweep: 12 points long enough (≈0.1 s each) to kill a rank between two. */
#define SLOW_GRID "--set tenants.0.arrival.rate_per_s=40:150:10"
#define N_SLOW 12

/* Every mpirun of these tests: 3 ranks whatever the cores, as root too, and never forever. */
#define MPIRUN                                                                                     \
    "timeout 300 env ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "                                \
    "OMPI_MCA_btl_vader_single_copy_mechanism=none "                                               \
    "mpirun --oversubscribe --allow-run-as-root -n 3"

/* The rank-death tests: MPIRUN giving the surviving ranks 5 s between mpirun's SIGTERM and its
 * SIGKILL instead of Open MPI's default 1 s. Their check is rank 0's message naming the points
 * in flight, which its SIGTERM handler prints; on a loaded machine rank 0 can miss the 1 s
 * window (3 of 25 kills lacked the message with two CPU hogs beside the job, none of 25 with
 * a longer grace). mpirun waits the grace out, so each of the two tests takes 5 s longer. */
#define MPIRUN_KILL                                                                                \
    "timeout 300 env ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "                                \
    "OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_odls_base_sigkill_timeout=5 "          \
    "mpirun --oversubscribe --allow-run-as-root -n 3"

/* MPMD: rank 0 runs one command line, ranks 1 and 2 another (for inputs only they lack). */
#define MPIRUN_MPMD                                                                                \
    "timeout 300 env ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "                                \
    "OMPI_MCA_btl_vader_single_copy_mechanism=none "                                               \
    "mpirun --oversubscribe --allow-run-as-root"

static const char *scenario(int requests)
{
    static char paths[2][600];
    char *p = paths[requests > 3000];
    if (!p[0]) {
        char text[2048], name[64];
        snprintf(text, sizeof text, TINY_FMT, requests);
        snprintf(name, sizeof name, "dist-%d.json", requests);
        snprintf(p, 600, "%s", tu_write(name, text));
    }
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

static const char *sharesim(void)
{
    const char *bin = getenv("SHARESIM");
    return bin ? bin : "build/sharesim";
}

/* 1 (with a note) when the MPI tests cannot run here. */
static int skip_mpi(void)
{
    if (tu_under_valgrind()) {
        fprintf(stderr, "(skipped under valgrind: mpirun ranks are not memchecked) ");
        return 1;
    }
    if (system("command -v mpirun >/dev/null 2>&1") != 0) {
        fprintf(stderr, "(skipped: mpirun not on PATH; scripts/install-deps installs "
                        "openmpi-bin) ");
        return 1;
    }
    return 0;
}

/* `MPIRUN $SHARESIM args`; stderr (mpirun's and every rank's) into err. The exit code. */
static int mpi_cli(const char *args, char *err, size_t errlen)
{
    char cmd[4096], e[600];
    snprintf(e, sizeof e, "%s/mpi.err", tu_tmpdir());
    snprintf(cmd, sizeof cmd, MPIRUN " %s %s >/dev/null 2>'%s'", sharesim(), args, e);
    int st = system(cmd);
    char *text = tu_slurp(e);
    if (err)
        snprintf(err, errlen, "%s", text ? text : "");
    free(text);
    return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

static int files_equal(const char *a, const char *b)
{
    char *x = tu_slurp(a), *y = tu_slurp(b);
    int same = x && y && strcmp(x, y) == 0;
    if (!same)
        fprintf(stderr, "\n  %s and %s differ (or one is missing)\n", a, b);
    free(x);
    free(y);
    return same;
}

/* Every file of a sweep directory (points, index, sweep.csv), byte for byte. */
static int sweeps_equal(const char *a, const char *b, int n_points)
{
    char pa[700], pb[700];
    int ok = 1;
    for (int i = 0; i < n_points; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(pa, sizeof pa, "%s/points/p%04d.%s", a, i, k ? "csv" : "json");
            snprintf(pb, sizeof pb, "%s/points/p%04d.%s", b, i, k ? "csv" : "json");
            ok &= files_equal(pa, pb);
        }
    snprintf(pa, sizeof pa, "%s/points/index.csv", a);
    snprintf(pb, sizeof pb, "%s/points/index.csv", b);
    ok &= files_equal(pa, pb);
    snprintf(pa, sizeof pa, "%s/sweep.csv", a);
    snprintf(pb, sizeof pb, "%s/sweep.csv", b);
    ok &= files_equal(pa, pb);
    return ok;
}

static int sweep_cli(int requests, const char *grid, const char *dir, const char *extra, char *err,
                     size_t errlen)
{
    char args[4096];
    snprintf(args, sizeof args, "sweep '%s' %s --out '%s' --no-plot --quiet %s", scenario(requests),
             grid, dir, extra);
    return tu_cli(args, NULL, 0, err, errlen);
}

static int sweep_mpi(int requests, const char *grid, const char *dir, const char *extra, char *err,
                     size_t errlen)
{
    char args[4096];
    snprintf(args, sizeof args, "sweep '%s' %s --out '%s' --no-plot --quiet %s", scenario(requests),
             grid, dir, extra);
    return mpi_cli(args, err, errlen);
}

/* The --jobs 1 sweep every comparison is against, computed once. */
static const char *reference(void)
{
    static int done;
    const char *dir = "ref";
    static char path[600];
    if (!done) {
        char err[4096];
        snprintf(path, sizeof path, "%s", tmp_path(dir));
        int rc = sweep_cli(3000, GRID, path, "--jobs 1", err, sizeof err);
        if (rc != 0)
            fprintf(stderr, "\n  reference sweep: exit %d\n%s\n", rc, err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        done = 1;
    }
    return path;
}

/* `validate --quick --jobs 1` (JSON and Markdown), computed once. */
static const char *validate_reference(const char **md)
{
    static char json[600], mdp[600];
    if (!json[0]) {
        char args[2048], err[8192];
        snprintf(mdp, sizeof mdp, "%s/v1", tu_tmpdir());
        mkdir(mdp, 0777);
        snprintf(mdp, sizeof mdp, "%s/v1/validation.md", tu_tmpdir());
        snprintf(json, sizeof json, "%s/v1.json", tu_tmpdir());
        snprintf(args, sizeof args, "validate --quick --quiet --jobs 1 --json '%s' --markdown '%s'",
                 json, mdp);
        int rc = tu_cli(args, NULL, 0, err, sizeof err);
        if (rc != 0)
            fprintf(stderr, "\n  reference validate: exit %d\n%s\n", rc, err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
    }
    if (md)
        *md = mdp;
    return json;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void test_mpi_sweep_same_bytes(void)
{
    if (skip_mpi())
        return;
    char err[8192], path[700];
    const char *dir = tmp_path("mpi-sweep");
    int rc = sweep_mpi(3000, GRID, dir, "", err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "\n  mpirun sweep: exit %d\n%s\n", rc, err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "6 to run on 3 MPI ranks"));
    /* Without a terminal the progress comes as lines counting the points of every rank. */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "sweep: 6/6 points on 3 ranks"));
    /* Rank 0 alone writes and reports. */
    CU_ASSERT_EQUAL(count(err, "wrote "), 1);
    CU_ASSERT(sweeps_equal(reference(), dir, N_POINTS));
    /* Resume under MPI: only the point whose files are gone runs again. */
    snprintf(path, sizeof path, "%s/points/p0004.json", dir);
    CU_ASSERT_EQUAL(unlink(path), 0);
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    CU_ASSERT_EQUAL(unlink(path), 0);
    rc = sweep_mpi(3000, GRID, dir, "", err, sizeof err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "5 already done (skipped), 1 to run on 3 MPI ranks"));
    CU_ASSERT(sweeps_equal(reference(), dir, N_POINTS));
}

static void test_mpi_validate_same_bytes(void)
{
    if (skip_mpi())
        return;
    char args[2048], err[8192];
    const char *m1, *j1 = validate_reference(&m1);
    /* The Markdown names its own file (not its folder) in its provenance line. */
    mkdir(tmp_path("v3"), 0777);
    const char *j3 = tmp_path("v3.json"), *m3 = tmp_path("v3/validation.md");
    snprintf(args, sizeof args, "validate --quick --quiet --json '%s' --markdown '%s'", j3, m3);
    int rc = mpi_cli(args, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "\n  mpirun validate: exit %d\n%s\n", rc, err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(files_equal(j1, j3));
    CU_ASSERT(files_equal(m1, m3));
    /* Without a terminal the progress comes as lines counting the runs of every rank. */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "validate: 125/125 runs on 3 ranks"));
    CU_ASSERT_EQUAL(count(err, "rows pass"), 1);
}

/* A point whose file cannot be written fails like a point that crashed: named, exit 2, the
 * others kept; with one process and under MPI, where rank 0 writes what the ranks send. */
static void test_point_write_error(void)
{
    char err[8192], path[700];
    for (int mpi = 0; mpi < 2; mpi++) {
        if (mpi && skip_mpi())
            return;
        const char *dir = tmp_path(mpi ? "werr-mpi" : "werr");
        /* A directory where p0003.json goes: the rename onto it fails. */
        snprintf(path, sizeof path, "%s/points/p0003.json", dir);
        char mk[800];
        snprintf(mk, sizeof mk, "mkdir -p '%s'", path);
        CU_ASSERT_EQUAL_FATAL(system(mk), 0);
        int rc = mpi ? sweep_mpi(3000, GRID, dir, "", err, sizeof err)
                     : sweep_cli(3000, GRID, dir, "--jobs 2", err, sizeof err);
        CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "sharesim sweep: point p0003: "));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "the finished ones are kept"));
        snprintf(path, sizeof path, "%s/points/p0000.json", dir);
        CU_ASSERT_TRUE(tu_exists(path));
        snprintf(path, sizeof path, "%s/sweep.csv", dir);
        CU_ASSERT_FALSE(tu_exists(path));
    }
}

/* Rank 0 stops before any point runs; the others must not wait for points forever. */
static void test_mpi_rank0_stops_early(void)
{
    if (skip_mpi())
        return;
    char err[8192], path[700];
    /* A point file of a different sweep in DIR: only rank 0 looks at DIR. */
    const char *dir = tmp_path("mpi-stale");
    char mk[800];
    snprintf(mk, sizeof mk, "mkdir -p '%s/points'", dir);
    CU_ASSERT_EQUAL_FATAL(system(mk), 0);
    snprintf(path, sizeof path, "%s/points/p0002.json", dir);
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("{\"sweep\": {\"config_hash\": \"0000000000000000\"}}\n", fp);
    fclose(fp);
    int rc = sweep_mpi(3000, GRID, dir, "", err, sizeof err);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_EQUAL(count(err, "was written by a different sweep"), 1);
    /* A point the loader rejects: rank 0 checks the points, the others do not. */
    rc = sweep_mpi(3000, "--set gpus=2,-1", tmp_path("mpi-bad"), "", err, sizeof err);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_EQUAL(count(err, "point p0001"), 1);
    CU_ASSERT_FALSE(tu_exists(tmp_path("mpi-bad")));
}

/* The pid of rank `rank` of the job whose ranks have SHARESIM_TEST_TAG=tag; 0 if none yet. */
static pid_t find_rank(const char *tag, int rank)
{
    char want_tag[200], want_rank[64];
    snprintf(want_tag, sizeof want_tag, "SHARESIM_TEST_TAG=%s", tag);
    snprintf(want_rank, sizeof want_rank, "OMPI_COMM_WORLD_RANK=%d", rank);
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;
    while (d && !found && (e = readdir(d))) {
        char path[300];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
        FILE *fp = fopen(path, "rb");
        if (!fp)
            continue;
        char buf[65536];
        size_t n = fread(buf, 1, sizeof buf - 1, fp);
        fclose(fp);
        int has_tag = 0, has_rank = 0;
        buf[n] = '\0';
        for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
            has_tag |= strcmp(buf + i, want_tag) == 0;
            has_rank |= strcmp(buf + i, want_rank) == 0;
        }
        if (has_tag && has_rank)
            found = (pid_t)atol(e->d_name);
    }
    if (d)
        closedir(d);
    return found;
}

static int count_points(const char *dir)
{
    int n = 0;
    char path[700];
    for (int i = 0; i < N_SLOW; i++) {
        snprintf(path, sizeof path, "%s/points/p%04d.json", dir, i);
        n += tu_exists(path);
    }
    return n;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_mpi_rank_dies(void)
{
    if (skip_mpi())
        return;
    char err[8192], cmd[4096], path[700], ref_path[700];
    const char *dir = tmp_path("mpi-kill"), *ref = tmp_path("mpi-kill-ref");
    const char *errfile = tmp_path("mpi-kill.err");
    CU_ASSERT_EQUAL_FATAL(sweep_cli(300000, SLOW_GRID, ref, "--jobs 2", err, sizeof err), 0);
    snprintf(cmd, sizeof cmd,
             "SHARESIM_TEST_TAG='%s' " MPIRUN_KILL " %s sweep '%s' " SLOW_GRID
             " --out '%s' --no-plot --quiet >/dev/null 2>'%s'",
             dir, sharesim(), scenario(300000), dir, errfile);
    pid_t sh = fork();
    if (sh == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    CU_ASSERT_FATAL(sh > 0);
    /* Once a point is in, kill rank 2 while it computes another. */
    pid_t victim = 0;
    int waited = 0, status = 0;
    for (; waited < 120000 && (!victim || count_points(dir) < 1); waited += 5) {
        if (!victim)
            victim = find_rank(dir, 2);
        if (waitpid(sh, &status, WNOHANG) == sh) {
            sh = 0;
            break;
        }
        sleep_ms(5);
    }
    CU_ASSERT_FATAL(sh != 0); /* the run must not have finished before the kill */
    CU_ASSERT_FATAL(victim > 0);
    int before = count_points(dir);
    CU_ASSERT(before >= 1 && before < N_SLOW);
    CU_ASSERT_EQUAL(kill(victim, SIGKILL), 0);
    CU_ASSERT_EQUAL(waitpid(sh, &status, 0), sh);
    char *text = tu_slurp(errfile);
    snprintf(err, sizeof err, "%s", text ? text : "");
    free(text);
    /* The run fails: mpirun names the dead rank, rank 0 the points in flight. */
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 124);
    if (!strstr(err, "rank 2") || !strstr(err, "point p00"))
        fprintf(stderr, "\n  after killing rank 2:\n%s\n", err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "rank 2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "items unfinished: point p00"));
    /* Every finished point is whole and right, and nothing half-written is left. */
    int after = 0;
    for (int i = 0; i < N_SLOW; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/points/p%04d.%s", dir, i, k ? "csv" : "json");
            snprintf(ref_path, sizeof ref_path, "%s/points/p%04d.%s", ref, i, k ? "csv" : "json");
            if (!k && tu_exists(path)) {
                after++;
                CU_ASSERT(files_equal(path, ref_path));
            }
        }
    CU_ASSERT(after >= before && after < N_SLOW);
    snprintf(cmd, sizeof cmd, "ls '%s/points' | grep -q '\\.tmp\\.'", dir);
    CU_ASSERT_NOT_EQUAL(system(cmd), 0);
    /* A rerun computes the rest, and the whole sweep is the reference's bytes. */
    CU_ASSERT_EQUAL(sweep_cli(300000, SLOW_GRID, dir, "--jobs 2", err, sizeof err), 0);
    CU_ASSERT(sweeps_equal(ref, dir, N_SLOW));
}

/* ---- cluster -------------------------------------------------------------------------- */

/* A cluster study of 12 experiments (6 policies x 2 seeds): the 8 nodes and 200 pods of
 * tests/fixtures/cluster/tiny.json (seeds = "[42, 43]"), or, for the rank-death test, the
 * openb cluster twice over (about 0.25 s an experiment). */
static const char *cluster_scenario(const char *name, const char *seeds, int big)
{
    static char path[4][600];
    static int slot;
    char text[2048], root[512];
    char *abs = realpath(tu_root(), NULL);
    snprintf(root, sizeof root, "%.400s", abs ? abs : tu_root());
    free(abs);
    if (big)
        snprintf(text, sizeof text,
                 "{\"name\": \"dist-big\", \"cluster\": {\"nodes\": "
                 "\"%s/traces/openb_node_list_gpu_node.csv\", \"node_scale\": 2, \"pods\": "
                 "\"%s/traces/openb_pod_list_default.csv\", \"seeds\": %s}}",
                 root, root, seeds);
    else
        snprintf(text, sizeof text,
                 "{\"name\": \"dist\", \"cluster\": {\"nodes\": [{\"count\": 8, \"cpu_milli\": "
                 "96000, \"memory_mib\": 786432, \"gpus\": 8, \"gpu_model\": \"V100M32\"}], "
                 "\"pods\": \"%s/traces/openb_pod_list_default.tail200.csv\", \"seeds\": %s}}",
                 root, seeds);
    char *p = path[slot++ % 4];
    snprintf(p, 600, "%s", tu_write(name, text));
    return p;
}

static const char *const cl_ext[4] = {"json", "csv", "frag.csv", "ratio.csv"};

/* The four outputs of a cluster run into DIR/c.{json,csv,frag.csv,ratio.csv}. */
static const char *cluster_outs(const char *dir)
{
    static char buf[2600];
    snprintf(buf, sizeof buf,
             "--json '%s/c.json' --csv '%s/c.csv' --csv-frag '%s/c.frag.csv' "
             "--csv-frag-ratio '%s/c.ratio.csv'",
             dir, dir, dir, dir);
    return buf;
}

static int clusters_equal(const char *a, const char *b)
{
    char pa[700], pb[700];
    int ok = 1;
    for (int i = 0; i < 4; i++) {
        snprintf(pa, sizeof pa, "%s/c.%s", a, cl_ext[i]);
        snprintf(pb, sizeof pb, "%s/c.%s", b, cl_ext[i]);
        ok &= files_equal(pa, pb);
    }
    return ok;
}

/* `cluster --jobs 1` of the small study, computed once: its directory. */
static const char *cluster_reference(void)
{
    static char dir[600];
    if (!dir[0]) {
        char args[4096], err[8192];
        snprintf(dir, sizeof dir, "%s", tmp_path("cl-ref"));
        mkdir(dir, 0777);
        snprintf(args, sizeof args, "cluster '%s' --quiet --jobs 1 %s",
                 cluster_scenario("dist-cluster.json", "[42, 43]", 0), cluster_outs(dir));
        int rc = tu_cli(args, NULL, 0, err, sizeof err);
        if (rc != 0)
            fprintf(stderr, "\n  reference cluster: exit %d\n%s\n", rc, err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
    }
    return dir;
}

static void test_mpi_cluster_same_bytes(void)
{
    if (skip_mpi())
        return;
    char args[4096], err[8192], cmd[4096];
    const char *ref = cluster_reference(), *dir = tmp_path("cl-mpi");
    mkdir(dir, 0777);
    snprintf(args, sizeof args, "cluster '%s' %s",
             cluster_scenario("dist-cluster.json", "[42, 43]", 0), cluster_outs(dir));
    int rc = mpi_cli(args, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "\n  mpirun cluster: exit %d\n%s\n", rc, err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(clusters_equal(ref, dir));
    /* The experiments of every rank counted on rank 0's progress lines. */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cluster: 12/12 experiments on 3 ranks"));
    CU_ASSERT_EQUAL(count(err, "experiments on 3 ranks"), 10);
    /* The summary table is printed by rank 0 alone. */
    const char *table = tmp_path("cl-mpi.out");
    snprintf(cmd, sizeof cmd, MPIRUN " %s cluster '%s' >'%s' 2>/dev/null", sharesim(),
             cluster_scenario("dist-cluster.json", "[42, 43]", 0), table);
    CU_ASSERT_EQUAL(system(cmd), 0);
    char *text = tu_slurp(table);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_EQUAL(count(text, "06-FGD"), 1);
    CU_ASSERT_EQUAL(count(text, "alloc_ratio_at_100: mean over seeds"), 1);
    free(text);
}

/* Rank 0 alone cannot open an output: it stops before the pool, the others end with it. */
static void test_mpi_cluster_rank0_stops(void)
{
    if (skip_mpi())
        return;
    char args[4096], err[8192];
    snprintf(args, sizeof args, "cluster '%s' --quiet --json '%s/no-such-dir/c.json'",
             cluster_scenario("dist-cluster.json", "[42, 43]", 0), tu_tmpdir());
    CU_ASSERT_EQUAL(mpi_cli(args, err, sizeof err), 2);
    CU_ASSERT_EQUAL(count(err, "no-such-dir"), 1);
    /* A scenario no rank can read: every rank fails alike, and it is said once. */
    snprintf(args, sizeof args, "cluster '%s/no-such.json' --quiet", tu_tmpdir());
    CU_ASSERT_EQUAL(mpi_cli(args, err, sizeof err), 2);
    CU_ASSERT_EQUAL(count(err, "no-such.json"), 1);
}

/* A command that fails on ranks 1 and 2 only (their scenario is missing), while rank 0 runs:
 * before, rank 0 waited for ever for their results; now the ranks say why and the job ends,
 * naming the items they were sent. Through pool_rank_stopped (cluster, the rank's own
 * message) and through the exit of a rank (sweep). */
static void test_mpi_rank_fails_alone(void)
{
    if (skip_mpi())
        return;
    char cmd[4096];
    const char *errfile = tmp_path("alone.err"), *dir = tmp_path("cl-alone");
    mkdir(dir, 0777);
    const char *scn = cluster_scenario("dist-cluster.json", "[42, 43]", 0);
    snprintf(cmd, sizeof cmd,
             MPIRUN_MPMD " -n 1 %s cluster '%s' --quiet --json '%s/c.json' : -n 2 %s cluster "
                         "'%s/missing.json' --quiet --json '%s/c.json' >/dev/null 2>'%s'",
             sharesim(), scn, dir, sharesim(), tu_tmpdir(), dir, errfile);
    int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 124);
    char *err = tu_slurp(errfile);
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    if (!strstr(err, "missing.json") || !strstr(err, "items unfinished: experiment"))
        fprintf(stderr, "\n  cluster, ranks 1-2 without their scenario:\n%s\n", err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "sharesim: rank "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "missing.json"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "items unfinished: experiment"));
    free(err);
    CU_ASSERT_FALSE(tu_exists(tmp_path("cl-alone/c.json")));
    snprintf(cmd, sizeof cmd,
             MPIRUN_MPMD " -n 1 %s sweep '%s' " GRID " --out '%s' --no-plot --quiet : -n 2 %s "
                         "sweep '%s/missing.json' " GRID
                         " --out '%s' --no-plot --quiet >/dev/null 2>'%s'",
             sharesim(), scenario(3000), tmp_path("sw-alone"), sharesim(), tu_tmpdir(),
             tmp_path("sw-alone"), errfile);
    st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 124);
    err = tu_slurp(errfile);
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "stopped before the run rank 0 sent it work for"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "items unfinished: point p00"));
    free(err);
}

static void test_mpi_cluster_rank_dies(void)
{
    if (skip_mpi())
        return;
    char cmd[4096], err[8192];
    const char *dir = tmp_path("cl-kill"), *errfile = tmp_path("cl-kill.err");
    mkdir(dir, 0777);
    const char *scn = cluster_scenario("dist-cluster-big.json", "[42, 43]", 1);
    snprintf(cmd, sizeof cmd,
             "SHARESIM_TEST_TAG='%s' " MPIRUN_KILL " %s cluster '%s' --quiet --json '%s/c.json' "
             ">/dev/null 2>'%s'",
             dir, sharesim(), scn, dir, errfile);
    pid_t sh = fork();
    if (sh == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    CU_ASSERT_FATAL(sh > 0);
    /* Once rank 0 has results (its first progress line), kill rank 2 while it computes. */
    pid_t victim = 0;
    int status = 0;
    for (int waited = 0; waited < 120000; waited += 5) {
        if (!victim)
            victim = find_rank(dir, 2);
        char *text = tu_slurp(errfile);
        int started = text && strstr(text, "experiments on 3 ranks");
        free(text);
        if (victim && started)
            break;
        if (waitpid(sh, &status, WNOHANG) == sh) {
            sh = 0;
            break;
        }
        sleep_ms(5);
    }
    CU_ASSERT_FATAL(sh != 0); /* the run must not have finished before the kill */
    CU_ASSERT_FATAL(victim > 0);
    CU_ASSERT_EQUAL(kill(victim, SIGKILL), 0);
    CU_ASSERT_EQUAL(waitpid(sh, &status, 0), sh);
    char *text = tu_slurp(errfile);
    snprintf(err, sizeof err, "%s", text ? text : "");
    free(text);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 124);
    if (!strstr(err, "rank 2") || !strstr(err, "items unfinished: experiment"))
        fprintf(stderr, "\n  after killing rank 2:\n%s\n", err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "rank 2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "items unfinished: experiment"));
    /* Outputs are all or none: no JSON, no temporary. */
    CU_ASSERT_FALSE(tu_exists(tmp_path("cl-kill/c.json")));
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '\\.tmp\\.'", dir);
    CU_ASSERT_NOT_EQUAL(system(cmd), 0);
}

static void test_cluster_shard_merge(void)
{
    char args[4096], err[8192];
    const char *scn = cluster_scenario("dist-cluster.json", "[42, 43]", 0);
    const char *p[3] = {tmp_path("cl0.partial"), tmp_path("cl1.partial"), tmp_path("cl2.partial")};
    const char *merged = tmp_path("cl-merged");
    mkdir(merged, 0777);
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "cluster '%s' --shard %d/3 --partial '%s' --jobs %d", scn, i,
                 p[i], i + 1);
        CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "its experiments are in"));
    }
    snprintf(args, sizeof args, "cluster '%s' --quiet %s --merge '%s' '%s' '%s'", scn,
             cluster_outs(merged), p[0], p[1], p[2]);
    int rc = tu_cli(args, NULL, 0, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "\n  cluster --merge: exit %d\n%s\n", rc, err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(clusters_equal(cluster_reference(), merged));
    /* A shard missing (its experiments named), a file twice, another study's file. */
    snprintf(args, sizeof args, "cluster '%s' --quiet --merge '%s' '%s'", scn, p[0], p[2]);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(err, "4 of 12 experiments are in no partial file, the first: experiment random "
                    "seed 43 (experiment 1;"));
    snprintf(args, sizeof args, "cluster '%s' --quiet --merge '%s' '%s' '%s'", scn, p[0], p[1],
             p[1]);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "in an earlier partial file too"));
    snprintf(args, sizeof args, "cluster '%s' --quiet --merge '%s' '%s' '%s'",
             cluster_scenario("dist-cluster-other.json", "[42, 44]", 0), p[0], p[1], p[2]);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "written by a different run"));
    /* --shard needs --partial and writes nothing else; --partial needs --shard. */
    snprintf(args, sizeof args, "cluster '%s' --shard 0/2", scn);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    snprintf(args, sizeof args, "cluster '%s' --shard 0/2 --partial '%s' --json x.json", scn,
             tmp_path("x.partial"));
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_FALSE(tu_exists(tmp_path("x.partial")));
    snprintf(args, sizeof args, "cluster '%s' --partial '%s'", scn, tmp_path("x.partial"));
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    snprintf(args, sizeof args, "cluster '%s' --shard 2/2 --partial x", scn);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "I must be below N"));
    snprintf(args, sizeof args, "cluster '%s' --merge", scn);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    /* More shards than experiments: a shard with none writes an empty partial file. */
    snprintf(args, sizeof args, "cluster '%s' --shard 12/13 --partial '%s'", scn,
             tmp_path("empty.partial"));
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
    char *text = tu_slurp(tmp_path("empty.partial"));
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "\nend 0\n"));
    free(text);
}

static void test_sweep_shard_merge(void)
{
    char err[8192], extra[2048];
    char s[3][600];
    for (int i = 0; i < 3; i++)
        snprintf(s[i], sizeof s[i], "%s/shard%d", tu_tmpdir(), i);
    for (int i = 0; i < 3; i++) {
        snprintf(extra, sizeof extra, "--jobs 1 --shard %d/3", i);
        CU_ASSERT_EQUAL_FATAL(sweep_cli(3000, GRID, s[i], extra, err, sizeof err), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "2 to run with 1 job (shard"));
        CU_ASSERT_FALSE(tu_exists(tmp_path("shard0/sweep.csv")));
    }
    /* Shard 1 holds the points 1 and 4 only. */
    CU_ASSERT_TRUE(tu_exists(tmp_path("shard1/points/p0004.json")));
    CU_ASSERT_FALSE(tu_exists(tmp_path("shard1/points/p0003.json")));
    const char *merged = tmp_path("merged");
    snprintf(extra, sizeof extra, "--merge '%s' '%s' '%s'", s[0], s[1], s[2]);
    int rc = sweep_cli(3000, GRID, merged, extra, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "\n  sweep --merge: exit %d\n%s\n", rc, err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(sweeps_equal(reference(), merged, N_POINTS));
    /* A shard missing: its points are named, nothing is run. */
    snprintf(extra, sizeof extra, "--merge '%s' '%s'", s[0], s[2]);
    CU_ASSERT_EQUAL(sweep_cli(3000, GRID, tmp_path("merged-2"), extra, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "2 points are in no shard directory (p0001, p0004)"));
    /* Shards sharing one directory: the plain command then only assembles. */
    const char *shared = tmp_path("shared");
    for (int i = 0; i < 3; i++) {
        snprintf(extra, sizeof extra, "--jobs 1 --shard %d/3", i);
        CU_ASSERT_EQUAL(sweep_cli(3000, GRID, shared, extra, err, sizeof err), 0);
    }
    CU_ASSERT_EQUAL(sweep_cli(3000, GRID, shared, "", err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "6 already done (skipped), 0 to run"));
    CU_ASSERT(sweeps_equal(reference(), shared, N_POINTS));
    /* Bad shards. */
    CU_ASSERT_EQUAL(sweep_cli(3000, GRID, tmp_path("bad"), "--shard 3/3", err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "I must be below N"));
    CU_ASSERT_EQUAL(sweep_cli(3000, GRID, tmp_path("bad"), "--shard x", err, sizeof err), 2);
    CU_ASSERT_EQUAL(
        sweep_cli(3000, GRID, tmp_path("bad"), "--shard 0/2 --merge x", err, sizeof err), 2);
}

/* scripts/slurm-array.sh, with the array task's environment Slurm would set. */
static void test_slurm_script(void)
{
    char cmd[4096], err[8192];
    const char *shards = tmp_path("slurm-shards"), *out = tmp_path("slurm-out");
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd,
                 "SHARESIM='%s' SLURM_ARRAY_TASK_ID=%d SLURM_ARRAY_TASK_COUNT=3 "
                 "scripts/slurm-array.sh '%s' sweep '%s' " GRID
                 " --out '%s' --no-plot --quiet 2>/dev/null",
                 sharesim(), i, shards, scenario(3000), out);
        CU_ASSERT_EQUAL(system(cmd), 0);
    }
    CU_ASSERT_FALSE(tu_exists(out)); /* the tasks write only their shards */
    snprintf(cmd, sizeof cmd,
             "SHARESIM='%s' scripts/slurm-array.sh '%s' --merge sweep '%s' " GRID
             " --out '%s' --no-plot --quiet 2>'%s/slurm.err'",
             sharesim(), shards, scenario(3000), out, tu_tmpdir());
    int rc = system(cmd);
    if (rc != 0) {
        snprintf(err, sizeof err, "%s/slurm.err", tu_tmpdir());
        char *text = tu_slurp(err);
        fprintf(stderr, "\n  slurm-array.sh --merge: %d\n%s\n", rc, text ? text : "");
        free(text);
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(sweeps_equal(reference(), out, N_POINTS));
    /* A cluster study: the tasks drop the outputs and write partial files, the merge job
     * writes the outputs. */
    const char *cl_shards = tmp_path("slurm-cl"), *cl_out = tmp_path("slurm-cl-out");
    const char *scn = cluster_scenario("dist-cluster.json", "[42, 43]", 0);
    mkdir(cl_out, 0777);
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd,
                 "SHARESIM='%s' SLURM_ARRAY_TASK_ID=%d SLURM_ARRAY_TASK_COUNT=3 "
                 "scripts/slurm-array.sh '%s' cluster '%s' --quiet %s 2>/dev/null",
                 sharesim(), i, cl_shards, scn, cluster_outs(cl_out));
        CU_ASSERT_EQUAL(system(cmd), 0);
    }
    CU_ASSERT_FALSE(tu_exists(tmp_path("slurm-cl-out/c.json")));
    CU_ASSERT_TRUE(tu_exists(tmp_path("slurm-cl/2.partial")));
    snprintf(cmd, sizeof cmd,
             "SHARESIM='%s' scripts/slurm-array.sh '%s' --merge cluster '%s' --quiet %s "
             "2>/dev/null",
             sharesim(), cl_shards, scn, cluster_outs(cl_out));
    CU_ASSERT_EQUAL(system(cmd), 0);
    CU_ASSERT(clusters_equal(cluster_reference(), cl_out));
}

static void test_validate_shard_merge(void)
{
    if (tu_under_valgrind()) {
        fprintf(stderr, "(skipped under valgrind: two whole quick grids) ");
        return;
    }
    char args[4096], err[8192];
    const char *p[2] = {tmp_path("part0.txt"), tmp_path("part1.txt")};
    const char *one = validate_reference(NULL), *merged = tmp_path("vsm.json");
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "validate --quick --shard %d/2 --partial '%s' --jobs %d", i,
                 p[i], i + 1);
        CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
    }
    snprintf(args, sizeof args, "validate --quick --quiet --json '%s' --merge '%s' '%s'", merged,
             p[0], p[1]);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
    CU_ASSERT(files_equal(one, merged));
    /* A shard missing, a shard twice, or another grid's partial file: exit 2, named. */
    snprintf(args, sizeof args, "validate --quick --merge '%s'", p[0]);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "runs are in no partial file, the first: M/M/c"));
    snprintf(args, sizeof args, "validate --quick --merge '%s' '%s'", p[0], p[0]);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "in an earlier partial file too"));
    snprintf(args, sizeof args, "validate --seed 2 --quick --merge '%s' '%s'", p[0], p[1]);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "written by a different run"));
    /* --shard needs --partial and makes no report. */
    CU_ASSERT_EQUAL(tu_cli("validate --quick --shard 0/2", NULL, 0, err, sizeof err), 2);
    CU_ASSERT_EQUAL(tu_cli("validate --quick --partial x", NULL, 0, err, sizeof err), 2);
}

/* scripts/mpi-scaling on the quick grid: the table with the outputs compared, and the per-run
 * costs that scripts/dist-estimate.py schedules. */
static void test_mpi_scaling_script(void)
{
    if (skip_mpi())
        return;
    char cmd[4096];
    const char *out = tmp_path("scaling.out"), *costs = tmp_path("scaling.costs");
    snprintf(cmd, sizeof cmd,
             "SHARESIM='%s' ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "
             "OMPI_MCA_btl_vader_single_copy_mechanism=none timeout 300 scripts/mpi-scaling "
             "--quick --ranks '1 3' >'%s' 2>&1",
             sharesim(), out);
    CU_ASSERT_EQUAL(system(cmd), 0);
    char *text = tu_slurp(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    if (!strstr(text, "  yes  "))
        fprintf(stderr, "\n  mpi-scaling:\n%s\n", text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "the quick validation grid"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "ranks   wall s speed-up"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "  yes  ")); /* 3 ranks wrote the 1-rank bytes */
    free(text);
    snprintf(cmd, sizeof cmd,
             "SHARESIM='%s' ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 timeout 300 "
             "scripts/mpi-scaling --quick --per-run '%s' 2>/dev/null && "
             "python3 scripts/dist-estimate.py --costs '%s' >'%s'",
             sharesim(), costs, costs, out);
    CU_ASSERT_EQUAL(system(cmd), 0);
    text = tu_slurp(costs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_EQUAL(count(text, "\n"), 125); /* one line per run of the quick grid */
    CU_ASSERT(strncmp(text, "0 ", 2) == 0 && strstr(text, "\n124 "));
    free(text);
    text = tu_slurp(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "125 runs, costs measured one by one"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n   64 "));
    free(text);
    /* a rank count that is not one */
    snprintf(cmd, sizeof cmd, "scripts/mpi-scaling --ranks '1 x' >/dev/null 2>&1");
    int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}

void test_dist_register(void)
{
    static const struct tu_test t[] = {
        {"mpirun -n 3 sweep: same bytes as --jobs 1, resume", test_mpi_sweep_same_bytes},
        {"mpirun -n 3 validate --quick: same bytes as --jobs 1", test_mpi_validate_same_bytes},
        {"mpirun: rank 0 stopping early ends the job", test_mpi_rank0_stops_early},
        {"a point that cannot be written fails, named (with and without MPI)",
         test_point_write_error},
        {"mpirun: a killed rank fails the run, finished points stay", test_mpi_rank_dies},
        {"sweep --shard then --merge: same bytes as one run", test_sweep_shard_merge},
        {"validate --shard/--partial then --merge: same bytes", test_validate_shard_merge},
        {"mpirun -n 3 cluster: same bytes as --jobs 1, one summary", test_mpi_cluster_same_bytes},
        {"mpirun cluster: rank 0 stopping early ends the job", test_mpi_cluster_rank0_stops},
        {"mpirun: a rank that fails alone before the run ends the job", test_mpi_rank_fails_alone},
        {"mpirun cluster: a killed rank fails the run, no output", test_mpi_cluster_rank_dies},
        {"cluster --shard/--partial then --merge: same bytes", test_cluster_shard_merge},
        {"scripts/slurm-array.sh: array tasks then merge, same bytes", test_slurm_script},
        {"scripts/mpi-scaling --quick: same bytes, the table, per-run costs",
         test_mpi_scaling_script},
        {NULL, NULL},
    };
    tu_add_suite("dist", t);
}
