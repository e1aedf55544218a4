/*
 * sharesim sweep — runs a scenario over a grid of parameter values (sweep.h) in
 * --jobs worker processes (tools/pool.h), each taking the next point when it is done.
 *
 * Order of work, so that a mistake costs nothing and an interruption loses
 * nothing finished:
 *   1. every point is built and validated (bad path or value: exit 2, nothing
 *      written);
 *   2. DIR is created and locked (another sweep writing into it: exit 2);
 *   3. existing point files are checked: a point already done (its CSV what its JSON
 *      records) is skipped, a damaged one recomputed, a file left by a different sweep
 *      is an error (exit 2);
 *   4. the points left run in workers (or MPI ranks) and come back as the texts of
 *      their two files, which this process writes atomically as each arrives;
 *   5. sweep.csv is assembled from the point files in point order, so it is the
 *      same bytes whatever --jobs was, however many ranks or shards ran, and
 *      whichever run computed which point; each point's CSV is checked once more
 *      against what was recorded for it;
 *   6. the page of the sweep (DIR/sweep.html, its figures as SVG).
 * On SIGINT/SIGTERM the parent (cli.c's handler) stops its workers, whose own
 * handlers remove their temporaries, removes its own and exits 128 + signal.
 *
 * Beyond one machine (docs/distributed.md): under mpirun every rank runs this
 * command; rank 0 does all of the above and the other ranks only compute the
 * points it sends them (they never look at DIR, which need not be shared).
 * --shard i/n keeps only the points p with p mod n = i, for batch-array jobs, and
 * --merge SHARD_DIR… assembles shard directories into DIR (steps 2, 3, 5 and 6).
 */
#include "cli/cli.h"
#include "cli/outplan.h"
#include "report/html.h"
#include "tools/pool.h"
#include "tools/shard.h"
#include "tools/sweep.h"
#include "tools/sweepview.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SW_MAX_JOBS POOL_MAX_JOBS
#define SW_MAX_DIR 3800 /* leaves room for "/points/<id>.json.tmp.<pid>" in 4096 */

struct sweep_cmd {
    const char *scenario_path;
    const char *dir;
    struct sw_grid grid;
    struct sw_opts opts;
    struct scenario base;    /* the scenario as given; base.json is the document points modify */
    uint64_t *hash;          /* per point */
    struct sw_csv_sum *sums; /* per point: what its CSV holds (done, copied or run here) */
    long *todo;              /* point indices still to run, ascending */
    long n_todo;
    long n_skipped;
    long n_other_shards; /* points left to the other shards */
    int jobs;
    int plot;
    const char *metrics; /* --plot */
    int quiet;
    const char *json, *csv; /* --json, --csv: the whole sweep once more, as one file */
    int writer;             /* rank 0 or no MPI: this process looks at DIR and writes */
    struct shard shard;     /* {0, 1} = every point */
    int merge;              /* --merge: the positional arguments after SCENARIO are shards */
    char **merge_dirs;
    int n_merge;
};

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sharesim sweep SCENARIO --set PATH=VALUES [--set …] --out DIR [--jobs N]\n"
            "                      [--replications R] [--seed N] [--no-slowdown]\n"
            "                      [--plot METRIC,…] [--no-plot] [--quiet] [--json FILE|-]\n"
            "                      [--csv FILE|-] [--shard I/N | --merge SHARD_DIR…]\n"
            "       mpirun -n N sharesim sweep …   (the points over N MPI ranks)\n\n"
            "Runs the scenario at every point of the grid of --set values (Cartesian product)\n"
            "and collects the results.\n\n"
            "  --set PATH=VALUES  PATH is a dotted JSON path with 0-based array indices\n"
            "                     (tenants.0.arrival.rate_per_s, strategies.1.slice_ms, gpus);\n"
            "                     VALUES is v1,v2,… (JSON scalars; text that is not JSON is a\n"
            "                     string) and/or start:stop:step ranges (inclusive, value i =\n"
            "                     start + i·step). A missing last key is created and validated\n"
            "                     by the scenario loader. Repeat for more axes; the first --set\n"
            "                     varies slowest in the point numbering.\n"
            "  --out DIR          DIR/points/<id>.json (the `run --json` result plus a \"sweep\"\n"
            "                     object), DIR/points/<id>.csv, DIR/points/index.csv (id →\n"
            "                     values), DIR/sweep.csv (point, swept values, `run --csv`\n"
            "                     columns), DIR/sweep.html (the metrics against the first\n"
            "                     --set, per tenant with its SLA) and DIR/sweep-*.svg\n"
            "  --jobs N           worker processes (default: online cores); results do not\n"
            "                     depend on N\n"
            "  --replications R   override the scenario's replications\n"
            "  --seed N           override the scenario's seed (the same for every point)\n"
            "  --no-slowdown      as `sharesim run --no-slowdown`\n"
            "  --plot METRIC,…    what the page plots (default p99_ms and cost): p99_ms,\n"
            "                     p999_ms, p95_ms, p50_ms, mean_ms, ttft_p99_ms,\n"
            "                     tpot_p99_ms, throughput, sla_attainment, cost,\n"
            "                     cost_per_hour, util, gpus\n"
            "  --no-plot          do not write DIR/sweep.html and its figures\n"
            "  --quiet            no tables on stdout (p99; LLM services' TTFT/TPOT p99)\n"
            "  --json FILE        every point's result in one document, {\"points\": [<id>.json,\n"
            "                     …]} in point order; - for stdout (then no table)\n"
            "  --csv FILE         a copy of DIR/sweep.csv; - for stdout (then no table)\n"
            "  --shard I/N        run only the points p with p mod N = I (0 <= I < N), e.g. one\n"
            "                     task of a batch array job; writes the point files, not\n"
            "                     sweep.csv\n"
            "  --merge SHARD_DIR… copy the finished points of the shards' --out directories into\n"
            "                     DIR (each checked against this grid), then write sweep.csv as\n"
            "                     one run would; a point no shard has is an error\n"
            "Rerunning with the same arguments skips the points already in DIR.\n"
            "Under mpirun, rank 0 writes DIR and the other ranks compute points; --jobs is\n"
            "ignored there (one worker per rank). docs/distributed.md: MPI, shards, Slurm.\n"
            "exit: 0 ok, 2 bad input or a point failed, 130/143 interrupted\n");
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "sharesim sweep: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return SS_EXIT_BADINPUT;
}

static int opt_set(const char *cmd, void *t, const char *arg)
{
    (void)cmd;
    char err[SS_ERRLEN];
    struct sweep_cmd *c = t;
    return sw_grid_add(&c->grid, arg, err, sizeof err) ? bad("%s", err) : 0;
}

static int opt_plot(const char *cmd, void *t, const char *arg)
{
    (void)cmd;
    char err[SS_ERRLEN];
    if (ht_check_metrics(arg, err, sizeof err))
        return bad("%s", err);
    ((struct sweep_cmd *)t)->metrics = arg;
    return 0;
}

/* CLI_CONTINUE, or the exit code (SS_EXIT_OK after --help; a message printed on bad ones). */
static int parse_args(int argc, char **argv, struct sweep_cmd *c)
{
    const struct cli_opt opts[] = {
        CLI_OPT_CALL("set", 'S', c, opt_set),
        CLI_OPT_STR("out", 'o', &c->dir),
        CLI_OPT_INT("jobs", 'j', &c->jobs, 1, SW_MAX_JOBS),
        CLI_OPT_INT("replications", 'r', &c->opts.replications, 1, 10000),
        CLI_OPT_LONG("seed", 's', &c->opts.seed, 0, 4294967295.0),
        CLI_OPT_UNSET("no-slowdown", 0, &c->opts.slowdown),
        CLI_OPT_UNSET("no-plot", 0, &c->plot),
        CLI_OPT_FLAG("quiet", 'q', &c->quiet),
        CLI_OPT_STR("json", 0, &c->json),
        CLI_OPT_STR("csv", 0, &c->csv),
        CLI_OPT_CALL("plot", 0, c, opt_plot),
        CLI_OPT_CALL("shard", 0, &c->shard, cli_opt_shard),
        CLI_OPT_FLAG("merge", 0, &c->merge),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec spec = {
        .cmd = "sharesim sweep", .opts = opts, .usage = usage, .min_args = 0, .max_args = -1};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    c->jobs = cores < 1 ? 1 : cores > SW_MAX_JOBS ? SW_MAX_JOBS : (int)cores;
    int prc = cli_parse_opts(&spec, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    if (optind > argc - 1 || (optind != argc - 1 && !c->merge)) {
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    c->scenario_path = argv[optind];
    if (c->merge) {
        c->merge_dirs = argv + optind + 1;
        c->n_merge = argc - optind - 1;
        if (c->n_merge == 0)
            return bad("%s", "--merge: expected the shards' directories after the scenario");
        if (c->shard.n > 1)
            return bad("%s", "--merge and --shard do not go together: merge once every shard "
                             "has run");
        /* A shard directory that is not there would read as "every point missing". */
        for (int d = 0; d < c->n_merge; d++) {
            struct stat st;
            if (stat(c->merge_dirs[d], &st) != 0 || !S_ISDIR(st.st_mode)) {
                fprintf(stderr,
                        "sharesim sweep: --merge %s: %s, expected a shard's --out directory\n",
                        c->merge_dirs[d],
                        stat(c->merge_dirs[d], &st) != 0 ? strerror(errno) : "not a directory");
                return SS_EXIT_BADINPUT;
            }
        }
    }
    if (c->grid.n_axes == 0)
        return bad("%s", "expected at least one --set PATH=VALUES");
    if (!c->dir || !*c->dir)
        return bad("%s", "expected --out DIR");
    if (strlen(c->dir) > SW_MAX_DIR)
        return bad("--out: path longer than %s characters", "3800");
    return CLI_CONTINUE;
}

/* A directory given to --merge that is DIR itself adds nothing (its points are DIR's). */
static int same_dir(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) || stat(b, &sb))
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * --merge, before anything is written: the shard holding each point DIR lacks (src[i]), or
 * an error when a shard holds a different sweep's point or no shard holds a point.
 */
static int find_merge_sources(struct sweep_cmd *c, const char **src)
{
    long missing = 0;
    char list[256] = "";
    for (long k = 0; k < c->n_todo; k++) {
        long i = c->todo[k];
        src[k] = NULL;
        for (int d = 0; d < c->n_merge && !src[k]; d++) {
            const char *dir = c->merge_dirs[d];
            if (same_dir(dir, c->dir))
                continue;
            struct sw_csv_sum sum;
            char why[SS_ERRLEN];
            enum sw_state st = sw_point_check(&c->grid, dir, i, c->hash[i], &sum, why, sizeof why);
            if (st == SW_STALE || st == SW_DAMAGED) { /* a shard's point is taken whole or not */
                char path[4096];
                sw_point_file(&c->grid, dir, i, "json", path, sizeof path);
                fprintf(stderr, "sharesim sweep: --merge: %s: %s%s\n", path, why,
                        st == SW_DAMAGED ? "; rerun that point (its shard's command recomputes "
                                           "it) before merging"
                                         : "");
                return -1;
            }
            if (st == SW_DONE)
                src[k] = dir;
        }
        if (!src[k]) {
            char id[32];
            size_t used = strlen(list);
            sw_point_id(&c->grid, i, id, sizeof id);
            if (missing++ < 8)
                snprintf(list + used, sizeof list - used, "%s%s", missing > 1 ? ", " : "", id);
        }
    }
    if (missing == 0)
        return 0;
    fprintf(stderr,
            "sharesim sweep: --merge: %ld point%s in no shard directory (%s%s); rerun the shards "
            "that hold them, or run without --merge to compute them here\n",
            missing, missing == 1 ? " is" : "s are", list, missing > 8 ? ", …" : "");
    return -1;
}

/* Step 1: validate every point. */
static int prepare(struct sweep_cmd *c)
{
    char err[SS_ERRLEN];
    long n = c->grid.n_points;
    if (scn_load(c->scenario_path, &c->base, err, sizeof err)) {
        fprintf(stderr, "sharesim sweep: %s\n", err);
        return -1;
    }
    c->hash = ss_xcalloc((size_t)n, sizeof *c->hash);
    c->sums = ss_xcalloc((size_t)n, sizeof *c->sums);
    c->todo = ss_xcalloc((size_t)n, sizeof *c->todo);
    /* An MPI rank other than 0 computes what rank 0 sends: rank 0 checks the points and
     * reports a bad one, once, and only rank 0 reads DIR, which that rank may not see. */
    if (!c->writer)
        return 0;
    /* Validating is about 0.1 ms a point: a large grid says so rather than sit silent. */
    int tty = cli_stderr_is_tty();
    if (n >= 10000)
        fprintf(stderr, "sharesim sweep: validating %ld points before any runs\n", n);
    for (long i = 0; i < n; i++) {
        if (tty && n >= 10000 && i % 1000 == 0)
            fprintf(stderr, "\rsharesim sweep: validated %ld/%ld points ", i, n);
        struct scenario sc;
        if (sw_point_load(&c->grid, c->base.json, c->scenario_path, &c->opts, i, &sc, &c->hash[i],
                          err, sizeof err)) {
            fprintf(stderr, "sharesim sweep: %s\n", err);
            return -1;
        }
        scn_free(&sc);
    }
    if (tty && n >= 10000)
        fprintf(stderr, "\r%*s\r", 60, "");
    return 0;
}

/* After step 1, before DIR is touched: the files of DIR (tools/sweep.h; the page and its
 * figures only with the plot), --json and --csv are each a file of their own, and none is
 * the scenario, a trace it names or a point of a shard to merge. */
static int plan_outputs(const struct sweep_cmd *c)
{
    static const char *const with_plot[] = {"sweep.csv",   "sweep.html", "sweep-*.svg",
                                            ".sweep.lock", "points/",    NULL};
    static const char *const without_plot[] = {"sweep.csv", ".sweep.lock", "points/", NULL};
    static const char *const shard_files[] = {"points/", NULL};
    struct op_plan op;
    op_init(&op, "sharesim sweep");
    op_input(&op, "SCENARIO", c->scenario_path);
    for (int d = 0; d < c->n_merge; d++)
        if (!same_dir(c->merge_dirs[d], c->dir)) /* DIR itself adds nothing (see above) */
            op_input_dir(&op, "--merge", c->merge_dirs[d], shard_files);
    op_output_dir(&op, "--out", c->dir, c->plot ? with_plot : without_plot);
    op_output(&op, "--json", c->json);
    op_output(&op, "--csv", c->csv);
    return op_done(&op);
}

/* Step 3 (DIR locked): sort the points into skipped and to-run. */
static int classify(struct sweep_cmd *c)
{
    long n = c->grid.n_points, damaged = 0;
    for (long i = 0; i < n; i++) {
        enum sw_state st = sw_point_state(&c->grid, c->dir, i, c->hash[i], &c->sums[i]);
        if (st == SW_DAMAGED && damaged++ < 5) {
            char path[4096];
            sw_point_file(&c->grid, c->dir, i, "csv", path, sizeof path);
            fprintf(stderr,
                    "sharesim sweep: %s or its JSON is cut short, edited or from an older "
                    "sharesim (its rows or hash differ from what the JSON records): recomputed\n",
                    path);
        }
        if (st == SW_STALE) {
            char path[4096];
            sw_point_file(&c->grid, c->dir, i, "json", path, sizeof path);
            fprintf(stderr,
                    "sharesim sweep: %s was written by a different sweep (other scenario, values, "
                    "seed or replications); use another --out directory or remove it\n",
                    path);
            return -1;
        }
        if (!shard_has(&c->shard, i))
            c->n_other_shards++;
        else if (st == SW_DONE)
            c->n_skipped++;
        else
            c->todo[c->n_todo++] = i;
    }
    if (damaged > 5)
        fprintf(stderr, "sharesim sweep: %ld more damaged points recomputed\n", damaged - 5);
    return 0;
}

/* --merge: copies each point DIR lacks from its shard; none is left to run after. */
static int merge(struct sweep_cmd *c)
{
    const char **src = ss_xcalloc((size_t)c->n_todo + 1, sizeof *src);
    char err[SS_ERRLEN];
    int rc = find_merge_sources(c, src);
    if (rc == 0 && sw_write_index(&c->grid, c->dir, err, sizeof err)) {
        fprintf(stderr, "sharesim sweep: %s\n", err);
        rc = -1;
    }
    for (long k = 0; rc == 0 && k < c->n_todo; k++)
        if (sw_point_copy(&c->grid, src[k], c->dir, c->todo[k], c->hash[c->todo[k]],
                          &c->sums[c->todo[k]], err, sizeof err)) {
            fprintf(stderr, "sharesim sweep: --merge: %s\n", err);
            rc = -1;
        }
    if (rc == 0) {
        fprintf(stderr,
                "sharesim sweep: --merge: %ld points copied from %d shard director%s, %ld "
                "were in %s already\n",
                c->n_todo, c->n_merge, c->n_merge == 1 ? "y" : "ies", c->n_skipped, c->dir);
        c->n_skipped += c->n_todo;
        c->n_todo = 0;
    }
    free(src);
    return rc;
}

/* The pool's view of the command: item i is point i (the pool runs only todo). */
struct sweep_run {
    const struct sweep_cmd *c;
    int tty;
    double t0;
    long failed;
};

/* A point's result: this header, the CSV text, then the JSON text. */
struct point_result {
    uint64_t hash;
    uint64_t csv_len;
};

/*
 * In a worker (a forked process, or another MPI rank): point idx, computed and formatted;
 * its files are written by the writer when the bytes arrive (deliver_point), so a rank
 * needs no access to DIR and a killed worker leaves no file behind.
 */
static int run_point(void *ctx, long idx, struct pool_buf *out, char *err, size_t errlen)
{
    const struct sweep_cmd *c = ((const struct sweep_run *)ctx)->c;
    struct scenario sc;
    struct point_result h;
    char *csv, *json;
    if (sw_point_load(&c->grid, c->base.json, c->scenario_path, &c->opts, idx, &sc, &h.hash, err,
                      errlen))
        return -1;
    int rc = sw_point_texts(&c->grid, idx, &sc, &c->opts, h.hash, &csv, &json, err, errlen);
    scn_free(&sc);
    if (rc)
        return -1;
    h.csv_len = strlen(csv);
    pool_buf_add(out, &h, sizeof h);
    pool_buf_add(out, csv, strlen(csv));
    pool_buf_add(out, json, strlen(json));
    free(csv);
    free(json);
    return 0;
}

/* In the writer: point idx's bytes become its two files. */
static void deliver_point(void *ctx, long idx, const void *data, size_t len)
{
    struct sweep_run *r = ctx;
    const struct sweep_cmd *c = r->c;
    struct point_result h;
    char err[SS_ERRLEN], id[32];
    SS_ASSERT(len >= sizeof h);
    memcpy(&h, data, sizeof h);
    SS_ASSERT(h.csv_len <= len - sizeof h);
    sw_point_id(&c->grid, idx, id, sizeof id);
    int rc;
    if (h.hash != c->hash[idx]) {
        /* The same arguments and a different configuration: the scenario file (or a trace
         * it names) is not the same where that rank runs. */
        rc = ss_errf(err, sizeof err,
                     "computed from a different configuration than %s's (is the scenario file "
                     "the same on every node?)",
                     id);
    } else {
        const char *p = (const char *)data + sizeof h;
        char *csv = ss_xmalloc(h.csv_len + 1);
        size_t json_len = len - sizeof h - h.csv_len;
        char *json = ss_xmalloc(json_len + 1);
        memcpy(csv, p, h.csv_len);
        csv[h.csv_len] = '\0';
        memcpy(json, p + h.csv_len, json_len);
        json[json_len] = '\0';
        rc = sw_point_write(&c->grid, c->dir, idx, csv, json, &c->sums[idx], err, sizeof err);
        free(csv);
        free(json);
    }
    if (rc)
        pool_reject(err); /* the point fails like any other: named, and no new one starts */
}

static void describe_point(void *ctx, long idx, char *buf, size_t n)
{
    const struct sweep_cmd *c = ((const struct sweep_run *)ctx)->c;
    char id[32];
    sw_point_id(&c->grid, idx, id, sizeof id);
    snprintf(buf, n, "point %s", id);
}

/*
 * The bar counts the skipped points as done; the ETA comes from the points run here. Without
 * a terminal under MPI (mpirun's stderr is a pipe), about ten plain lines instead.
 */
static void progress(void *ctx, long ran, long n_run)
{
    const struct sweep_run *r = ctx;
    long total = r->c->grid.n_points - r->c->n_other_shards, done = r->c->n_skipped + ran;
    char eta[32] = "--:--";
    if (ran > 0) {
        double s = (cli_now_s() - r->t0) / (double)ran * (double)(n_run - ran);
        snprintf(eta, sizeof eta, "%ld:%02ld", (long)s / 60, (long)s % 60);
    }
    if (!r->tty) {
        if (pool_ranks() > 1 && pool_progress_line_due(ran, n_run))
            fprintf(stderr, "sweep: %ld/%ld points on %d ranks, ETA %s\n", done, total,
                    pool_ranks(), eta);
        return;
    }
    const int width = 30;
    int fill = (int)((double)width * (double)done / (double)total);
    fputs("\rsweep [", stderr);
    for (int i = 0; i < width; i++)
        fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %ld/%ld points, ETA %s ", done, total, eta);
}

static void point_failed(void *ctx, long idx, const char *why)
{
    struct sweep_run *r = ctx;
    char name[64];
    describe_point(ctx, idx, name, sizeof name);
    if (r->tty)
        fputc('\n', stderr);
    fprintf(stderr, "sharesim sweep: %s: %s\n", name, why);
    r->failed++;
}

/*
 * Step 3. A failed point stops the start of new ones; the running ones finish and keep
 * their files. Returns 0, or -1 with the failures already reported. Under MPI every rank
 * calls it; on the ranks other than 0 it returns when rank 0 has no more points for them.
 */
static int run_points(const struct sweep_cmd *c, int jobs)
{
    struct sweep_run r = {c, c->writer && cli_stderr_is_tty(), cli_now_s(), 0};
    struct pool_job job = {0};
    char err[SS_ERRLEN];
    /* Nothing to run: no pool run at all (order with n_order = 0 would mean every point).
     * Under MPI the other ranks are released when this one exits. */
    if (c->writer && c->n_todo == 0)
        return 0;
    job.n_items = c->grid.n_points;
    job.order = c->writer ? c->todo : NULL;
    job.n_order = c->n_todo;
    job.jobs = jobs;
    job.ctx = &r;
    job.work = run_point;
    job.deliver = deliver_point;
    job.progress = progress;
    job.describe = describe_point;
    job.failed = point_failed;
    int rc = pool_run(&job, err, sizeof err);
    if (r.tty)
        fprintf(stderr, "\r%*s\r", 70, "");
    if (rc && r.failed)
        fprintf(stderr,
                "sharesim sweep: %ld point%s failed; the finished ones are kept in %s/points, "
                "rerun to retry\n",
                r.failed, r.failed == 1 ? "" : "s", c->dir);
    else if (rc)
        fprintf(stderr, "sharesim sweep: %s\n", err);
    return rc;
}

/*
 * Step 5. The page: every point's result, read back in point order, drawn by `sharesim
 * report html` (report/html.h) as the chosen metrics against the first --set, one panel
 * per tenant with its SLA; DIR/sweep.html and each figure as DIR/sweep-<figure>.svg.
 */
static void plot(const struct sweep_cmd *c)
{
    char path[4096], err[SS_ERRLEN];
    long n = c->grid.n_points;
    cJSON **docs = ss_xcalloc((size_t)n, sizeof *docs);
    int rc = n > HT_MAX_DOCS
                 ? ss_errf(err, sizeof err, "%ld points: a page shows at most %d", n, HT_MAX_DOCS)
                 : 0;
    for (long p = 0; p < n && rc == 0; p++) {
        sw_point_file(&c->grid, c->dir, p, "json", path, sizeof path);
        rc = ht_load(path, &docs[p], err, sizeof err);
    }
    struct ss_out o;
    snprintf(path, sizeof path, "%s/sweep.html", c->dir);
    if (rc == 0 && ss_out_open(&o, path, err, sizeof err) == 0) {
        char prefix[4096], cmd[1024];
        snprintf(prefix, sizeof prefix, "%s/sweep", c->dir);
        int len = snprintf(cmd, sizeof cmd, "sharesim sweep %.400s", c->scenario_path);
        for (int a = 0; a < c->grid.n_axes && len < (int)sizeof cmd - 200; a++) {
            const struct sw_axis *ax = &c->grid.axes[a];
            len += snprintf(cmd + len, sizeof cmd - (size_t)len, " --set %.60s=", ax->path);
            for (int v = 0; v < ax->n_values && len < (int)sizeof cmd - 100; v++) {
                if (ax->n_values > 12 && v == 2) { /* the values, shortened */
                    len += snprintf(cmd + len, sizeof cmd - (size_t)len, ",…");
                    v = ax->n_values - 2;
                    continue;
                }
                len += snprintf(cmd + len, sizeof cmd - (size_t)len, "%s%.30s", v ? "," : "",
                                ax->labels[v]);
            }
        }
        struct ht_study st = {"sweep",  NULL, NULL,   cmd,  NULL,       NULL,
                              &c->base, docs, (int)n, NULL, c->metrics, prefix};
        rc = ht_study_page(o.fp, &st, err, sizeof err);
        rc = rc ? (ss_out_abort(&o), -1) : ss_out_commit(&o, err, sizeof err);
    } else {
        rc = -1;
    }
    if (rc)
        fprintf(stderr, "sharesim sweep: %s; %s not written\n", err, path);
    else
        fprintf(stderr, "sharesim sweep: wrote %s\n", path);
    for (long p = 0; p < n; p++)
        cJSON_Delete(docs[p]);
    free(docs);
}

/* --json: the point files in point order, as one document. */
static int write_json(const struct sweep_cmd *c)
{
    char err[SS_ERRLEN];
    cJSON *doc = sw_points_json(&c->grid, c->dir, err, sizeof err);
    if (!doc) {
        fprintf(stderr, "sharesim sweep: %s\n", err);
        return -1;
    }
    return cli_write_json("sharesim sweep", c->json, doc);
}

/* --csv: DIR/sweep.csv once more. */
static int write_csv_copy(const struct sweep_cmd *c)
{
    char path[4096], *text, err[SS_ERRLEN];
    size_t len;
    snprintf(path, sizeof path, "%s/sweep.csv", c->dir);
    if (ss_read_file(path, 1u << 30, &text, &len, err, sizeof err)) {
        fprintf(stderr, "sharesim sweep: %s\n", err);
        return -1;
    }
    int rc = cli_write_text("sharesim sweep", c->csv, text, len);
    free(text);
    return rc;
}

/* Steps 3 to 5, once the points are validated and DIR is ready. */
static int execute(struct sweep_cmd *c)
{
    char err[SS_ERRLEN], how[64], shard[160] = "";
    int jobs = c->n_todo < c->jobs ? (int)(c->n_todo > 0 ? c->n_todo : 1) : c->jobs;
    if (pool_ranks() > 1)
        snprintf(how, sizeof how, "on %d MPI ranks", pool_ranks());
    else
        snprintf(how, sizeof how, "with %d %s", jobs, jobs == 1 ? "job" : "jobs");
    if (c->shard.n > 1)
        snprintf(shard, sizeof shard, " (shard %d/%d; %ld points are the other shards')",
                 c->shard.i, c->shard.n, c->n_other_shards);
    fprintf(stderr, "sharesim sweep: %ld points, %ld already done (skipped), %ld to run %s%s\n",
            c->grid.n_points, c->n_skipped, c->n_todo, how, shard);
    cli_install_signal_handlers();
    if (run_points(c, jobs))
        return SS_EXIT_BADINPUT;
    if (c->shard.n > 1) {
        fprintf(stderr,
                "sharesim sweep: shard %d/%d done, its points are in %s/points; once every "
                "shard is done, the same command with --merge and the shards' directories "
                "(instead of --shard) writes sweep.csv\n",
                c->shard.i, c->shard.n, c->dir);
        return SS_EXIT_OK;
    }
    long rows;
    if (sw_write_csv(&c->grid, c->dir, c->sums, &rows, err, sizeof err)) {
        fprintf(stderr, "sharesim sweep: %s\n", err);
        return SS_EXIT_BADINPUT;
    }
    fprintf(stderr, "sharesim sweep: wrote %s/sweep.csv (%ld rows)\n", c->dir, rows);
    if (c->plot)
        plot(c);
    if (!c->quiet && !cli_is_stdout(c->json) && !cli_is_stdout(c->csv))
        sw_print_tables(stdout, &c->grid, c->dir, &c->base);
    int rc = SS_EXIT_OK;
    if (c->json && write_json(c))
        rc = SS_EXIT_BADINPUT;
    if (c->csv && write_csv_copy(c))
        rc = SS_EXIT_BADINPUT;
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep_cmd c;
    char err[SS_ERRLEN];
    memset(&c, 0, sizeof c);
    sw_grid_init(&c.grid);
    c.opts = (struct sw_opts){0, -1, 1};
    c.plot = 1;
    c.shard = (struct shard){0, 1};
    int rc = parse_args(argc, argv, &c);
    if (rc == CLI_CONTINUE) {
        c.writer = pool_is_writer();
        if (prepare(&c)) {
            rc = SS_EXIT_BADINPUT;
        } else if (!c.writer) {
            cli_install_signal_handlers();
            rc = run_points(&c, 1) ? SS_EXIT_BADINPUT : SS_EXIT_OK;
        } else if (plan_outputs(&c)) {
            rc = SS_EXIT_BADINPUT;
        } else if (sw_make_dirs(c.dir, err, sizeof err) || sw_lock_dir(c.dir, err, sizeof err)) {
            fprintf(stderr, "sharesim sweep: %s\n", err);
            rc = SS_EXIT_BADINPUT;
        } else if (classify(&c)) {
            rc = SS_EXIT_BADINPUT;
        } else if (c.merge) {
            rc = merge(&c) ? SS_EXIT_BADINPUT : execute(&c);
        } else if (sw_write_index(&c.grid, c.dir, err, sizeof err)) {
            fprintf(stderr, "sharesim sweep: %s\n", err);
            rc = SS_EXIT_BADINPUT;
        } else {
            rc = execute(&c);
        }
    }
    free(c.hash);
    free(c.sums);
    free(c.todo);
    scn_free(&c.base);
    sw_grid_free(&c.grid);
    return rc;
}
