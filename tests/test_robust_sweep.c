/*
 * Sweeps that do not trust their directory (sweep.h, docs/robustness.md):
 *  - one sweep at a time writes into a directory: a second one, running at the same time,
 *    exits 2 naming the first (an fcntl lock on DIR/.sweep.lock), and nothing of it mixes in;
 *  - a point is done only if its CSV has the rows and the hash its JSON records: a CSV cut to
 *    its header, one with a garbage row, a JSON cut short or one from an older sharesim (no
 *    hash) are recomputed, and sweep.csv comes out as if nothing had happened;
 *  - sweep.csv is assembled only from CSVs that still match what was recorded.
 */
#include "tools/sweep.h"
#include "core/scenario.h"
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXPECT_IN(hay, part)                                                                       \
    do {                                                                                           \
        if (!strstr((hay), (part)))                                                                \
            fprintf(stderr, "\n  %s:%d: expected \"%s\" in: %s", __FILE__, __LINE__, (part),       \
                    (hay));                                                                        \
        CU_ASSERT_PTR_NOT_NULL(strstr((hay), (part)));                                             \
    } while (0)

/* Two points of a few thousand requests; %d: requests (a slower sweep for the lock test). */
#define SCN_FMT                                                                                    \
    "{\"name\": \"rs\", \"gpu\": \"A100-80GB\", \"seed\": 3, \"stop\": {\"requests\": %d},"        \
    " \"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": "    \
    "100}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": 2}}],"                               \
    " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}"

static const char *scenario(int requests)
{
    static char path[2][600];
    static int slot;
    char text[1024], name[64];
    snprintf(text, sizeof text, SCN_FMT, requests);
    snprintf(name, sizeof name, "rsweep-%d.json", requests);
    char *p = path[slot++ % 2];
    snprintf(p, 600, "%s", tu_write(name, text));
    return p;
}

static const char *tpath(const char *name)
{
    static char buf[8][700];
    static int slot;
    char *p = buf[slot++ % 8];
    snprintf(p, 700, "%s/%s", tu_tmpdir(), name);
    return p;
}

static int sweep(const char *scn, const char *set, const char *dir, char *err, size_t errcap)
{
    char args[2048];
    snprintf(args, sizeof args, "sweep '%s' --set '%s' --out '%s' --jobs 1 --no-plot --quiet", scn,
             set, dir);
    return tu_cli(args, NULL, 0, err, errcap);
}

static void put(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(text, fp);
    fclose(fp);
}

/* The pid holding DIR's lock, or 0 (F_GETLK from this process, which holds none). */
static long lock_holder(const char *dir)
{
    char path[800];
    snprintf(path, sizeof path, "%s/.sweep.lock", dir);
    int fd = open(path, O_RDWR);
    if (fd < 0)
        return 0;
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    long pid = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK ? (long)fl.l_pid : 0;
    close(fd);
    return pid;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void test_second_sweep_refused(void)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s", tpath("rs-lock"));
    const char *slow = scenario(tu_sanitized() || tu_under_valgrind() ? 200000 : 2000000);
    char args[2048], log[700], err[4096];
    snprintf(log, sizeof log, "%s/rs-lock-a.err", tu_tmpdir());
    snprintf(args, sizeof args,
             "exec %s sweep '%s' --set tenants.0.arrival.rate_per_s=100,110,120,130 --out '%s' "
             "--jobs 1 --no-plot --quiet >/dev/null 2>'%s'",
             getenv("SHARESIM") ? getenv("SHARESIM") : "build/sharesim", slow, dir, log);
    pid_t a = fork();
    if (a == 0) {
        execl("/bin/sh", "sh", "-c", args, (char *)NULL);
        _exit(127);
    }
    long holder = 0;
    for (int i = 0; i < 12000 && !holder; i++) { /* up to 120 s (valgrind starts slowly) */
        int st;
        if (waitpid(a, &st, WNOHANG) == a)
            break;
        holder = lock_holder(dir);
        if (!holder)
            sleep_s(0.01);
    }
    CU_ASSERT_EQUAL(holder, (long)a);
    /* a different sweep, while the first runs: refused, naming it */
    int rc = sweep(slow, "tenants.0.arrival.rate_per_s=5,6", dir, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 2);
    char want[128];
    snprintf(want, sizeof want, "another sweep (pid %ld) is writing into this directory", holder);
    EXPECT_IN(err, want);
    int st = 0;
    waitpid(a, &st, 0);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* only the first sweep's points are there */
    char *csv = tu_slurp(tpath("rs-lock/sweep.csv"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",130,"));
    CU_ASSERT_PTR_NULL(strstr(csv, ",5,"));
    free(csv);
    CU_ASSERT_FALSE(tu_exists(tpath("rs-lock/points/p0004.json")));
    /* afterwards the second sweep is still refused: its points would overwrite the first's */
    CU_ASSERT_EQUAL(sweep(slow, "tenants.0.arrival.rate_per_s=5,6", dir, err, sizeof err), 2);
    EXPECT_IN(err, "was written by a different sweep");
    /* in process: this runner holds a lock of its own, the CLI is refused */
    char mine[700];
    snprintf(mine, sizeof mine, "%s", tpath("rs-mine"));
    char msg[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(sw_make_dirs(mine, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(sw_lock_dir(mine, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL(sweep(scenario(1000), "seed=1,2", mine, err, sizeof err), 2);
    snprintf(want, sizeof want, "another sweep (pid %ld)", (long)getpid());
    EXPECT_IN(err, want);
    CU_ASSERT_FALSE(tu_exists(tpath("rs-mine/points/p0000.json")));
}

static void test_damaged_points_recomputed(void)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s", tpath("rs-damage"));
    const char *scn = scenario(3000);
    const char *set = "tenants.0.arrival.rate_per_s=50,100,150";
    char err[4096];
    CU_ASSERT_EQUAL_FATAL(sweep(scn, set, dir, err, sizeof err), 0);
    char *good = tu_slurp(tpath("rs-damage/sweep.csv"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(good);
    /* p0000.csv cut to its header; p0001.csv with a garbage row; p0002.json cut short */
    char *c0 = tu_slurp(tpath("rs-damage/points/p0000.csv"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c0);
    *strchr(c0, '\n') = '\0';
    char hdr[8192];
    snprintf(hdr, sizeof hdr, "%s\n", c0);
    put(tpath("rs-damage/points/p0000.csv"), hdr);
    free(c0);
    char *c1 = tu_slurp(tpath("rs-damage/points/p0001.csv"));
    size_t n1 = strlen(c1);
    char *c1b = malloc(n1 + 64);
    snprintf(c1b, n1 + 64, "%sgarbage,row,1,2,3\n", c1);
    put(tpath("rs-damage/points/p0001.csv"), c1b);
    free(c1);
    free(c1b);
    char *j2 = tu_slurp(tpath("rs-damage/points/p0002.json"));
    j2[strlen(j2) / 2] = '\0';
    put(tpath("rs-damage/points/p0002.json"), j2);
    free(j2);
    CU_ASSERT_EQUAL(sweep(scn, set, dir, err, sizeof err), 0);
    EXPECT_IN(err, "3 points, 0 already done (skipped), 3 to run");
    EXPECT_IN(err, "p0000.csv or its JSON is cut short, edited or from an older sharesim");
    EXPECT_IN(err, "p0001.csv or its JSON is cut short");
    char *again = tu_slurp(tpath("rs-damage/sweep.csv"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    CU_ASSERT_STRING_EQUAL(again, good);
    CU_ASSERT_PTR_NULL(strstr(again, "garbage"));
    free(again);
    /* a point JSON without the CSV's sum (an older sharesim wrote it): recomputed */
    char *j1 = tu_slurp(tpath("rs-damage/points/p0001.json"));
    char *h = strstr(j1, "\"csv_hash\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    memcpy(h, "\"csv_hasX\"", 10);
    put(tpath("rs-damage/points/p0001.json"), j1);
    free(j1);
    CU_ASSERT_EQUAL(sweep(scn, set, dir, err, sizeof err), 0);
    EXPECT_IN(err, "3 points, 2 already done (skipped), 1 to run");
    /* all good: nothing recomputed, no message */
    CU_ASSERT_EQUAL(sweep(scn, set, dir, err, sizeof err), 0);
    EXPECT_IN(err, "3 already done (skipped), 0 to run");
    CU_ASSERT_PTR_NULL(strstr(err, "cut short"));
    /* the assembly checks once more: a CSV changed after it was checked is an error */
    struct sw_grid g;
    sw_grid_init(&g);
    char msg[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(sw_grid_add(&g, set, msg, sizeof msg), 0);
    struct sw_csv_sum sums[3];
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(sw_point_state(&g, dir, i, 0, &sums[i]), SW_STALE); /* hash 0: not ours */
    /* read the recorded sums through a state check with the real hashes is the CLI's job;
     * here: a wrong sum for point 1 makes the assembly fail and leave sweep.csv as it was */
    memset(sums, 0, sizeof sums);
    long rows;
    CU_ASSERT_EQUAL(sw_write_csv(&g, dir, sums, &rows, msg, sizeof msg), -1);
    EXPECT_IN(msg, "p0000.csv: changed while the sweep ran");
    char *kept = tu_slurp(tpath("rs-damage/sweep.csv"));
    CU_ASSERT_STRING_EQUAL(kept, good);
    free(kept);
    CU_ASSERT_EQUAL(sw_write_csv(&g, dir, NULL, &rows, msg, sizeof msg), 0); /* unchecked */
    CU_ASSERT_EQUAL(rows, 3);
    sw_grid_free(&g);
    free(good);
}

/* --merge trusts a shard's point only if its CSV still matches its JSON. */
static void test_merge_skips_damaged_shard_point(void)
{
    const char *scn = scenario(3000);
    const char *set = "tenants.0.arrival.rate_per_s=50,100";
    char args[4096], err[4096];
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args,
                 "sweep '%s' --set '%s' --out '%s/rs-shard%d' --shard %d/2 --jobs 1 --no-plot "
                 "--quiet",
                 scn, set, tu_tmpdir(), i, i);
        CU_ASSERT_EQUAL_FATAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
    }
    /* shard 1's point (p0001) cut to its header */
    char *c = tu_slurp(tpath("rs-shard1/points/p0001.csv"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    *strchr(c, '\n') = '\0';
    char hdr[8192];
    snprintf(hdr, sizeof hdr, "%s\n", c);
    put(tpath("rs-shard1/points/p0001.csv"), hdr);
    free(c);
    snprintf(args, sizeof args,
             "sweep '%s' --set '%s' --out '%s/rs-merged' --merge '%s/rs-shard0' '%s/rs-shard1' "
             "--jobs 1 --no-plot --quiet",
             scn, set, tu_tmpdir(), tu_tmpdir(), tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    /* named with what is wrong, and what to do (it was "in no shard directory" before) */
    EXPECT_IN(err, "rs-shard1/points/p0001.json: its CSV has 0 rows of hash");
    EXPECT_IN(err, "rerun that point");
    CU_ASSERT_FALSE(tu_exists(tpath("rs-merged/sweep.csv")));
}

/* Two shards of a two-point sweep into rs-<tag>0 and rs-<tag>1. */
static void two_shards(const char *scn, const char *set, const char *tag)
{
    char args[4096], err[4096];
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args,
                 "sweep '%s' --set '%s' --out '%s/rs-%s%d' --shard %d/2 --jobs 1 --no-plot "
                 "--quiet",
                 scn, set, tu_tmpdir(), tag, i, i);
        CU_ASSERT_EQUAL_FATAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
    }
}

static int merge_shards(const char *scn, const char *set, const char *tag, char *err, size_t n)
{
    char args[4096];
    snprintf(args, sizeof args,
             "sweep '%s' --set '%s' --out '%s/rs-%s-merged' --merge '%s/rs-%s0' '%s/rs-%s1' "
             "--jobs 1 --no-plot --quiet",
             scn, set, tu_tmpdir(), tag, tu_tmpdir(), tag, tu_tmpdir(), tag);
    return tu_cli(args, NULL, 0, err, n);
}

/* Replaces the first `from` in the file by `to` (same length or not). */
static void edit(const char *path, const char *from, const char *to)
{
    char *t = tu_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char *at = strstr(t, from);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    size_t n = strlen(t) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - t), t, to, at + strlen(from));
    put(path, out);
    free(out);
    free(t);
}

/* Issue 31: a shard's point whose JSON figures were edited while its CSV still matches its
 * hash was merged, and sweep.csv (from the CSVs) and the points' JSON then disagreed. The
 * payload hash covers the figures of both files. */
static void test_merge_refuses_edited_figures(void)
{
    const char *scn = scenario(3000), *set = "tenants.0.arrival.rate_per_s=50,100";
    char err[4096];
    two_shards(scn, set, "edit");
    edit(tpath("rs-edit1/points/p0001.json"), "\"throughput_per_s\":\t",
         "\"throughput_per_s\":\t9");
    CU_ASSERT_EQUAL(merge_shards(scn, set, "edit", err, sizeof err), 2);
    EXPECT_IN(err, "rs-edit1/points/p0001.json: its figures (JSON and CSV) hash to ");
    EXPECT_IN(err, "edited after it was written; rerun that point");
    CU_ASSERT_FALSE(tu_exists(tpath("rs-edit-merged/sweep.csv")));
    CU_ASSERT_FALSE(tu_exists(tpath("rs-edit-merged/points/p0000.json"))); /* nothing copied */
    /* In the sweep's own directory the same point is recomputed, not taken. */
    char args[4096];
    snprintf(args, sizeof args, "sweep '%s' --set '%s' --out '%s/rs-edit1' --jobs 1 --no-plot", scn,
             set, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
    EXPECT_IN(err, "p0001.csv or its JSON is cut short, edited or from an older sharesim");
    EXPECT_IN(err, "2 points, 0 already done (skipped), 2 to run");
}

/* A point of the older format (no "format", no payload hash), whose config and CSV hashes
 * still match: --merge refuses it and says to rerun it. */
static void test_merge_refuses_old_format(void)
{
    const char *scn = scenario(3000), *set = "tenants.0.arrival.rate_per_s=50,100";
    char err[4096];
    two_shards(scn, set, "old");
    edit(tpath("rs-old0/points/p0000.json"), "\"format\":", "\"formerly\":");
    CU_ASSERT_EQUAL(merge_shards(scn, set, "old", err, sizeof err), 2);
    EXPECT_IN(err, "rs-old0/points/p0000.json: written in point format 1 (an older sharesim, "
                   "whose figures carry no hash), this sharesim reads format 2: rerun that point");
    CU_ASSERT_FALSE(tu_exists(tpath("rs-old-merged/sweep.csv")));
}

/* Figures that hash right but do not conserve requests, or hold an infinity, are refused:
 * the check that a hand-made or buggy point cannot pass by carrying its own hash. */
static void test_verify_conservation(void)
{
    const char *scn = scenario(2000), *set = "tenants.0.arrival.rate_per_s=50,100";
    char err[4096], msg[SS_ERRLEN], why[SS_ERRLEN];
    two_shards(scn, set, "cons");
    struct sw_grid g;
    sw_grid_init(&g);
    CU_ASSERT_EQUAL_FATAL(sw_grid_add(&g, set, msg, sizeof msg), 0);
    struct scenario base, sc;
    CU_ASSERT_EQUAL_FATAL(scn_load(scn, &base, msg, sizeof msg), 0);
    struct sw_opts o = {0, -1, 1};
    uint64_t hash;
    CU_ASSERT_EQUAL_FATAL(sw_point_load(&g, base.json, scn, &o, 0, &sc, &hash, msg, sizeof msg), 0);
    scn_free(&sc);
    char *json = tu_slurp(tpath("rs-cons0/points/p0000.json"));
    char *csv = tu_slurp(tpath("rs-cons0/points/p0000.csv"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    struct sw_csv_sum sum;
    CU_ASSERT_EQUAL(sw_point_verify(&g, 0, hash, json, csv, strlen(csv), &sum, why, sizeof why),
                    SW_DONE);
    CU_ASSERT_EQUAL(sw_point_verify(&g, 1, hash, json, csv, strlen(csv), &sum, why, sizeof why),
                    SW_DAMAGED); /* point 0's files under point 1's name */
    EXPECT_IN(why, "it is not point p0001");
    static const struct {
        const char *key; /* a tenant count set to value, with the hashes made to match */
        double value;
        const char *part;
    } cases[] = {
        {"completed", 1, "strategies[0].tenants[0]: arrived "},
        {"failed", -1, "\"failed\" is -1: expected a count >= 0 (an integer, one replication)"},
        {"in_flight", 0.5, "\"in_flight\" is 0.5: expected a count >= 0"},
        {"rejected", 12345678, "a number that is not finite at \"rejected\""}, /* 1e999 */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        cJSON *doc = cJSON_Parse(json);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        cJSON *t = cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0),
                                "tenants"),
            0);
        cJSON *x = cJSON_GetObjectItem(t, cases[k].key);
        int inf = cases[k].value == 12345678; /* hashed as the infinity it stands for */
        cJSON_SetNumberValue(x, inf ? INFINITY : cases[k].value);
        char hex[32];
        snprintf(hex, sizeof hex, "%016llx",
                 (unsigned long long)sw_payload_hash(doc, csv, strlen(csv)));
        cJSON *swo = cJSON_GetObjectItem(doc, "sweep");
        cJSON_ReplaceItemInObject(swo, "payload_hash", cJSON_CreateString(hex));
        cJSON_SetNumberValue(x, cases[k].value);
        char *text = cJSON_Print(doc), *big = strstr(text, "12345678");
        if (big) /* cJSON reads 1e999 as infinity, and writes infinity as null */
            memcpy(big, "1e999   ", 8);
        CU_ASSERT_EQUAL(sw_point_verify(&g, 0, hash, text, csv, strlen(csv), NULL, why, sizeof why),
                        SW_DAMAGED);
        EXPECT_IN(why, cases[k].part);
        free(text);
        cJSON_Delete(doc);
    }
    /* A CSV row that does not conserve (its JSON recording its rows and hash, the payload hash
     * over both): refused, naming the line. */
    char *c2 = malloc(strlen(csv) + 8);
    strcpy(c2, csv);
    char *row = strchr(c2, '\n') + 1;
    char *f = row;
    for (int i = 0; i < 5; i++) /* scenario,strategy,kind,tenant,arrived, then completed */
        f = strchr(f, ',') + 1;
    memmove(f + 1, f, strlen(f) + 1);
    *f = '9'; /* completed gains a leading 9 */
    cJSON *doc = cJSON_Parse(json);
    cJSON *swo = cJSON_GetObjectItem(doc, "sweep");
    char hex[32];
    uint64_t h = 14695981039346656037ULL;
    for (const char *p = c2; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    cJSON_ReplaceItemInObject(swo, "csv_hash", cJSON_CreateString(hex));
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)sw_payload_hash(doc, c2, strlen(c2)));
    cJSON_ReplaceItemInObject(swo, "payload_hash", cJSON_CreateString(hex));
    char *text = cJSON_Print(doc);
    CU_ASSERT_EQUAL(sw_point_verify(&g, 0, hash, text, c2, strlen(c2), NULL, why, sizeof why),
                    SW_DAMAGED);
    EXPECT_IN(why, "CSV line 2: arrived ");
    free(text);
    cJSON_Delete(doc);
    free(c2);
    free(json);
    free(csv);
    scn_free(&base);
    sw_grid_free(&g);
    (void)err;
}

void test_robust_sweep_register(void)
{
    static const struct tu_test tests[] = {
        {"sweep: a second sweep into a locked directory exits 2, nothing mixes",
         test_second_sweep_refused},
        {"sweep: damaged point files are recomputed, never copied", test_damaged_points_recomputed},
        {"sweep: --merge does not take a shard's damaged point",
         test_merge_skips_damaged_shard_point},
        {"sweep: --merge refuses a point whose JSON figures were edited",
         test_merge_refuses_edited_figures},
        {"sweep: --merge refuses a point of the older format", test_merge_refuses_old_format},
        {"sweep: figures that do not conserve requests are refused", test_verify_conservation},
        {NULL, NULL},
    };
    tu_add_suite("robust_sweep", tests);
}
