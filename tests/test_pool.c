/*
 * Tests for the worker pool (tools/pool.h): every item delivered exactly once with the
 * same bytes whatever the number of workers (in this process, 1, 2 or 4 forked ones),
 * dispatch order, progress up to the total, failures (work() returning -1, a worker that
 * aborts, is killed or exits early) naming the item while every finished item is still
 * delivered, workers leaving the parent's temporaries alone, and SIGTERM to a parent
 * running a pool under the CLI's handler stopping the workers and removing every
 * temporary.
 */
#include "cli/cli.h"
#include "tools/pool.h"
#include "testutil.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_ITEMS 41
#define BIG_ITEM 17 /* its result is bigger than a pipe's buffer */

/* How an item behaves, by index: set per test. */
enum item_kind { ITEM_OK, ITEM_FAIL, ITEM_ABORT, ITEM_KILL, ITEM_EXIT, ITEM_SIGTERM_SELF };

struct run {
    enum item_kind kind[N_ITEMS];
    long n_items;
    /* what the parent saw */
    int delivered[N_ITEMS];
    uint64_t hash[N_ITEMS];
    size_t len[N_ITEMS];
    long seq[N_ITEMS]; /* items in delivery order */
    long n_seq;
    long progress_calls, last_done, last_total;
    int progress_ok; /* 0, then +1 per call, total constant */
    int failed[N_ITEMS];
    char why[N_ITEMS][256];
};

static size_t payload_len(long idx)
{
    if (idx % 10 == 0)
        return 0; /* an empty result is a result too */
    return (size_t)(idx * 37 % 300) + (idx == BIG_ITEM ? 300000 : 0);
}

static unsigned char payload_byte(long idx, size_t i)
{
    return (unsigned char)((idx * 7 + (long)i) % 251);
}

static uint64_t fnv(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static void no_core_dump(void)
{
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl);
}

static int work(void *ctx, long idx, struct pool_buf *out, char *err, size_t errlen)
{
    const struct run *r = ctx;
    switch (r->kind[idx]) {
    case ITEM_FAIL:
        return ss_errf(err, errlen, "disk full at %ld", idx);
    case ITEM_ABORT:
        no_core_dump();
        abort();
    case ITEM_KILL:
        raise(SIGKILL);
        break;
    case ITEM_EXIT:
        _exit(7);
    case ITEM_SIGTERM_SELF:
        /* the worker's handler runs ss_out_abort_all_signal_safe(): it must not touch the
         * parent's temporaries */
        raise(SIGTERM);
        break;
    case ITEM_OK:
        break;
    }
    size_t n = payload_len(idx);
    unsigned char *p = ss_xmalloc(n + 1);
    for (size_t i = 0; i < n; i++)
        p[i] = payload_byte(idx, i);
    /* in two pieces, so the buffer grows */
    pool_buf_add(out, p, n / 2);
    pool_buf_add(out, p + n / 2, n - n / 2);
    free(p);
    return 0;
}

static void deliver(void *ctx, long idx, const void *data, size_t len)
{
    struct run *r = ctx;
    r->delivered[idx]++;
    r->hash[idx] = fnv(data, len);
    r->len[idx] = len;
    r->seq[r->n_seq++] = idx;
}

static void progress(void *ctx, long done, long total)
{
    struct run *r = ctx;
    if (done != r->progress_calls || total != r->n_items)
        r->progress_ok = 0;
    r->progress_calls++;
    r->last_done = done;
    r->last_total = total;
}

static void describe(void *ctx, long idx, char *buf, size_t n)
{
    (void)ctx;
    snprintf(buf, n, "point p%04ld", idx);
}

static void failed(void *ctx, long idx, const char *why)
{
    struct run *r = ctx;
    r->failed[idx]++;
    snprintf(r->why[idx], sizeof r->why[idx], "%s", why);
}

static int run_pool(struct run *r, int jobs, int keep_going, const long *order, char *err,
                    size_t errlen)
{
    struct pool_job job = {0};
    job.n_items = r->n_items;
    job.jobs = jobs;
    job.keep_going = keep_going;
    job.order = order;
    job.ctx = r;
    job.work = work;
    job.deliver = deliver;
    job.progress = progress;
    job.describe = describe;
    job.failed = failed;
    r->progress_ok = 1;
    return pool_run(&job, err, errlen);
}

static struct run *new_run(long n)
{
    struct run *r = ss_xcalloc(1, sizeof *r);
    r->n_items = n;
    return r;
}

/* A delivered item carries exactly the bytes work() made for it. */
static int item_intact(const struct run *r, long idx)
{
    size_t n = payload_len(idx);
    unsigned char *p = ss_xmalloc(n + 1);
    for (size_t i = 0; i < n; i++)
        p[i] = payload_byte(idx, i);
    int ok = r->len[idx] == n && r->hash[idx] == fnv(p, n);
    free(p);
    return ok;
}

static void test_delivery_any_jobs(void)
{
    const int jobs[] = {0, 1, 2, 4};
    struct run *ref = NULL;
    char err[SS_ERRLEN];
    for (size_t j = 0; j < sizeof jobs / sizeof *jobs; j++) {
        struct run *r = new_run(N_ITEMS);
        CU_ASSERT_EQUAL(run_pool(r, jobs[j], 0, NULL, err, sizeof err), 0);
        CU_ASSERT_EQUAL(r->n_seq, N_ITEMS);
        for (long i = 0; i < N_ITEMS; i++) {
            CU_ASSERT_EQUAL(r->delivered[i], 1);
            CU_ASSERT(item_intact(r, i));
            CU_ASSERT_EQUAL(r->failed[i], 0);
        }
        CU_ASSERT(r->progress_ok);
        CU_ASSERT_EQUAL(r->progress_calls, N_ITEMS + 1);
        CU_ASSERT_EQUAL(r->last_done, N_ITEMS);
        CU_ASSERT_EQUAL(r->last_total, N_ITEMS);
        /* in this process or with one worker, items come back in dispatch order */
        if (jobs[j] <= 1)
            for (long i = 0; i < N_ITEMS; i++)
                CU_ASSERT_EQUAL(r->seq[i], i);
        if (!ref) {
            ref = r;
            continue;
        }
        /* filed by index, the results are the same bytes for every J */
        CU_ASSERT(memcmp(r->hash, ref->hash, sizeof r->hash) == 0);
        CU_ASSERT(memcmp(r->len, ref->len, sizeof r->len) == 0);
        free(r);
    }
    free(ref);
}

static void test_order_and_empty(void)
{
    long order[N_ITEMS];
    char err[SS_ERRLEN];
    for (long i = 0; i < N_ITEMS; i++)
        order[i] = (i * 13) % N_ITEMS; /* 13 is prime to 41: a permutation */
    const int jobs[] = {0, 1};
    for (int j = 0; j < 2; j++) {
        struct run *r = new_run(N_ITEMS);
        CU_ASSERT_EQUAL(run_pool(r, jobs[j], 0, order, err, sizeof err), 0);
        for (long i = 0; i < N_ITEMS; i++) {
            CU_ASSERT_EQUAL(r->seq[i], order[i]);
            CU_ASSERT(item_intact(r, order[i]));
        }
        free(r);
    }
    /* more workers than items, and no items at all */
    struct run *r = new_run(3);
    CU_ASSERT_EQUAL(run_pool(r, 8, 0, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(r->n_seq, 3);
    CU_ASSERT_EQUAL(r->last_done, 3);
    free(r);
    r = new_run(0);
    CU_ASSERT_EQUAL(run_pool(r, 4, 0, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(r->n_seq, 0);
    free(r);
}

/* work() returning -1 fails its item, not its worker; keep_going runs all the others. */
static void test_item_error(void)
{
    char err[SS_ERRLEN];
    const int jobs[] = {0, 1, 2};
    for (int j = 0; j < 3; j++) {
        struct run *r = new_run(N_ITEMS);
        r->kind[5] = ITEM_FAIL;
        CU_ASSERT_EQUAL(run_pool(r, jobs[j], 1, NULL, err, sizeof err), -1);
        CU_ASSERT_STRING_EQUAL(err, "point p0005: disk full at 5");
        CU_ASSERT_EQUAL(r->failed[5], 1);
        CU_ASSERT_STRING_EQUAL(r->why[5], "disk full at 5");
        CU_ASSERT_EQUAL(r->delivered[5], 0);
        for (long i = 0; i < N_ITEMS; i++)
            if (i != 5)
                CU_ASSERT(r->delivered[i] == 1 && item_intact(r, i));
        CU_ASSERT(r->progress_ok);
        CU_ASSERT_EQUAL(r->last_done, N_ITEMS);
        free(r);
    }
}

/* Crashed and killed workers fail their items; a replacement worker runs the rest. */
static void test_worker_crash_keep_going(void)
{
    char err[SS_ERRLEN];
    const int jobs[] = {1, 2, 4};
    for (int j = 0; j < 3; j++) {
        struct run *r = new_run(N_ITEMS);
        r->kind[3] = ITEM_ABORT;
        r->kind[8] = ITEM_KILL;
        r->kind[30] = ITEM_EXIT;
        CU_ASSERT_EQUAL(run_pool(r, jobs[j], 1, NULL, err, sizeof err), -1);
        /* the first failure by time; with one worker that is item 3 */
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "; 2 more items failed"));
        if (jobs[j] == 1)
            CU_ASSERT_PTR_NOT_NULL(strstr(err, "point p0003: worker killed by signal 6"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r->why[3], "worker killed by signal 6"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r->why[8], "worker killed by signal 9"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r->why[30], "worker exited with status 7"));
        for (long i = 0; i < N_ITEMS; i++) {
            int bad = i == 3 || i == 8 || i == 30;
            CU_ASSERT_EQUAL(r->failed[i], bad);
            CU_ASSERT_EQUAL(r->delivered[i], !bad);
            if (!bad)
                CU_ASSERT(item_intact(r, i));
        }
        CU_ASSERT(r->progress_ok);
        CU_ASSERT_EQUAL(r->last_done, N_ITEMS);
        free(r);
    }
}

/* Without keep_going: no item starts after the failure, the finished ones are delivered. */
static void test_worker_crash_stops(void)
{
    char err[SS_ERRLEN];
    struct run *r = new_run(10);
    r->kind[3] = ITEM_ABORT;
    CU_ASSERT_EQUAL(run_pool(r, 1, 0, NULL, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "point p0003: worker killed by signal 6"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "; 6 items not started"));
    for (long i = 0; i < 10; i++)
        CU_ASSERT_EQUAL(r->delivered[i], i < 3);
    CU_ASSERT_EQUAL(r->last_done, 4);
    free(r);

    /* 4 workers: whatever ran besides item 3 is delivered intact, once */
    r = new_run(N_ITEMS);
    r->kind[3] = ITEM_KILL;
    CU_ASSERT_EQUAL(run_pool(r, 4, 0, NULL, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "point p0003: worker killed by signal 9"));
    long n = 0;
    for (long i = 0; i < N_ITEMS; i++) {
        CU_ASSERT(r->delivered[i] <= 1);
        if (r->delivered[i])
            CU_ASSERT(item_intact(r, i));
        n += r->delivered[i];
    }
    CU_ASSERT_EQUAL(r->delivered[3], 0);
    CU_ASSERT(n >= 3); /* items 0..2 were given out before item 3 */
    CU_ASSERT_EQUAL(r->last_done, n + 1);
    free(r);
}

/* A worker's own cleanup (signal handler, SS_FATAL) removes its temporaries, never the
 * parent's. */
static void test_parent_temporaries_kept(void)
{
    char path[600], err[SS_ERRLEN];
    snprintf(path, sizeof path, "%s/pool-parent.out", tu_tmpdir());
    struct ss_out o;
    CU_ASSERT_EQUAL_FATAL(ss_out_open(&o, path, err, sizeof err), 0);
    struct run *r = new_run(6);
    r->kind[2] = ITEM_SIGTERM_SELF;
    CU_ASSERT_EQUAL(run_pool(r, 2, 1, NULL, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "point p0002: worker exited with status 143"));
    CU_ASSERT(tu_exists(o.tmp));
    fputs("kept\n", o.fp);
    CU_ASSERT_EQUAL(ss_out_commit(&o, err, sizeof err), 0);
    char *text = tu_slurp(path);
    CU_ASSERT(text && strcmp(text, "kept\n") == 0);
    free(text);
    free(r);
}

/* ---- SIGTERM to a parent running a pool ---------------------------------------- */

static char sig_dir[600];

/* Each item opens a temporary, says its worker's pid, and waits to be stopped. */
static int slow_work(void *ctx, long idx, struct pool_buf *out, char *err, size_t errlen)
{
    char path[700];
    struct ss_out o;
    (void)ctx;
    (void)out;
    snprintf(path, sizeof path, "%s/item-%ld.out", sig_dir, idx);
    if (ss_out_open(&o, path, err, errlen))
        return -1;
    snprintf(path, sizeof path, "%s/pid-%ld", sig_dir, idx);
    FILE *fp = fopen(path, "w");
    if (fp) {
        fprintf(fp, "%ld\n", (long)getpid());
        fclose(fp);
    }
    struct timespec ts = {30, 0};
    nanosleep(&ts, NULL);
    return ss_out_commit(&o, err, errlen);
}

static pid_t read_pid(long idx)
{
    char path[700];
    long pid = 0;
    snprintf(path, sizeof path, "%s/pid-%ld", sig_dir, idx);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    if (fscanf(fp, "%ld", &pid) != 1)
        pid = 0;
    fclose(fp);
    return (pid_t)pid;
}

static int count_tmp_files(void)
{
    DIR *d = opendir(sig_dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".tmp.") != NULL;
    if (d)
        closedir(d);
    return n;
}

static void test_sigterm_stops_workers(void)
{
    snprintf(sig_dir, sizeof sig_dir, "%s/pool-sig", tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(mkdir(sig_dir, 0777), 0);
    fflush(NULL);
    pid_t parent = fork();
    if (parent == 0) {
        /* The parent under test: the CLI's handlers, a temporary of its own, a pool. */
        char path[700], err[SS_ERRLEN];
        struct ss_out o;
        cli_install_signal_handlers();
        snprintf(path, sizeof path, "%s/parent.out", sig_dir);
        if (ss_out_open(&o, path, err, sizeof err))
            _exit(90);
        struct pool_job job = {0};
        job.n_items = 4;
        job.jobs = 2;
        job.work = slow_work;
        pool_run(&job, err, sizeof err);
        _exit(91); /* not reached: SIGTERM ends it first */
    }
    CU_ASSERT_FATAL(parent > 0);
    /* both workers are in their items, temporaries open */
    pid_t w0 = 0, w1 = 0;
    for (int i = 0; i < 2000 && !(w0 && w1); i++) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
        w0 = read_pid(0);
        w1 = read_pid(1);
    }
    CU_ASSERT_FATAL(w0 > 0 && w1 > 0);
    CU_ASSERT_EQUAL(count_tmp_files(), 3);
    kill(parent, SIGTERM);
    int status = 0;
    while (waitpid(parent, &status, 0) < 0 && errno == EINTR)
        ;
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM);
    /* the workers were stopped and reaped before the parent went */
    CU_ASSERT(kill(w0, 0) == -1 && errno == ESRCH);
    CU_ASSERT(kill(w1, 0) == -1 && errno == ESRCH);
    CU_ASSERT_EQUAL(count_tmp_files(), 0);
    CU_ASSERT_EQUAL(read_pid(2), 0); /* no item started after the signal */
}

void test_pool_register(void)
{
    static const struct tu_test tests[] = {
        {"every item once, same bytes for J = 0, 1, 2, 4", test_delivery_any_jobs},
        {"dispatch order, more workers than items, no items", test_order_and_empty},
        {"work() error fails the item, names it", test_item_error},
        {"crashed/killed worker: item named, others delivered", test_worker_crash_keep_going},
        {"failure stops new items, finished ones delivered", test_worker_crash_stops},
        {"a worker leaves the parent's temporaries alone", test_parent_temporaries_kept},
        {"SIGTERM to the parent stops the workers, no temporaries", test_sigterm_stops_workers},
        {NULL, NULL}};
    tu_add_suite("pool", tests);
}
