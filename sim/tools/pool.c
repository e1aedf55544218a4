/*
 * pool — see pool.h. How it works:
 *
 * Each worker has two pipes. Down the first the parent sends item indices, one at a
 * time (a worker never has more than one item in flight, which is what makes a dead
 * worker's item known and the balancing dynamic); closing it tells the worker to end.
 * Up the second the worker sends one frame per item: {index, status, length} and the
 * result bytes, or the failure message when work() returned -1.
 *
 * Why pipes and not result files: results are small (validate: 48 bytes; sweep: none,
 * its points write files of their own), a pipe needs no names, leaves nothing on disk
 * when a worker is killed, carries the failure messages on the same channel, and its
 * end of file is how the parent learns at once that a worker is gone. A caller whose
 * results are big or must outlive the run writes them itself, atomically, from work().
 * Bytes keyed by an index are also what a later MPI or --shard transport carries.
 *
 * The parent reads whatever a worker has sent into that worker's buffer and only acts
 * on whole frames, so one slow or big result never blocks the others.
 *
 * Under MPI (tools/dist.h, docs/distributed.md) the same loop runs on rank 0 with two
 * kinds of workers: one forked local worker (rank 0's own share of the items; forked so
 * that rank 0 stays free to answer the others while an item runs), and one remote worker
 * per other rank, which gets indices and sends back the same frames as MPI messages. The
 * other ranks run serve(): the worker loop with MPI in place of the pipes. Everything
 * else (dispatch order, one item in flight per worker, failures naming the item, delivery
 * by index) is the same code for both kinds.
 */
#include "tools/pool.h"
#include "tools/dist.h"
#include "base/util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A worker that lost its pipe to the parent ends with this; only the pool's parent sees it
 * (and then as "exited with status 3 before handing back its result"). */
#define POOL_WORKER_LOST 3
#define POOL_READ_CHUNK 65536

enum { FRAME_OK = 0, FRAME_FAILED = 1 };

struct pool_frame {
    int64_t idx;
    uint32_t status; /* FRAME_OK: the bytes are the result; FRAME_FAILED: a message */
    uint32_t len;
};

struct pool_worker {
    int rank;           /* 0: a forked local worker; > 0: that MPI rank */
    int active;         /* a rank: not yet told that the run is over */
    pid_t pid;          /* a forked worker: 0 = slot empty */
    int to, from;       /* a forked worker: the parent's ends of the two pipes; -1 = closed */
    long item;          /* the item in flight, -1 = none */
    const char *bad;    /* set when the worker broke the protocol (it is then killed) */
    struct pool_buf in; /* bytes received and not yet a whole frame */
};

struct pool_state {
    const struct pool_job *job;
    struct pool_worker *w; /* the forked workers first, then one per other rank */
    int nw, n_local;
    long n_run; /* items to run: the entries of the dispatch order */
    long next;  /* position in the dispatch order of the next item to start */
    long done;  /* items finished, delivered or failed */
    long n_failed;
    int stopping;          /* start no more items */
    char first[SS_ERRLEN]; /* the first failure, with the item's name */
    char sys[SS_ERRLEN];   /* why workers could not be started, "" if they could */
};

/*
 * Live worker pids for pool_stop_workers_signal_safe(). Written only while SIGINT and
 * SIGTERM are blocked, so the handler never sees a pid half recorded; volatile so it
 * sees each store when it happens.
 */
static volatile pid_t g_pids[POOL_MAX_JOBS];

/*
 * Under MPI, what each worker is running ("point p0003 on rank 2"), for the message the
 * signal handler prints: when a rank dies, Open MPI's launcher stops the others with
 * SIGTERM, names the dead rank's number, and this names its item. Written with SIGINT and
 * SIGTERM blocked; an empty string = nothing in flight.
 */
#define POOL_INFLIGHT_LEN 96
static char (*volatile g_inflight)[POOL_INFLIGHT_LEN];
static volatile int g_n_inflight;

/* Pool runs in progress in this process: only the outermost one on a rank uses MPI. */
static int g_depth;

void pool_buf_add(struct pool_buf *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        b->data = ss_xrealloc(b->data, cap);
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
}

static void write_str(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

void pool_stop_workers_signal_safe(void)
{
    char(*inflight)[POOL_INFLIGHT_LEN] = g_inflight;
    int any = 0;
    for (int i = 0; inflight && i < g_n_inflight; i++)
        if (inflight[i][0]) {
            write_str(any++ ? ", " : "sharesim: stopped by a signal with items unfinished: ");
            write_str(inflight[i]);
        }
    if (any)
        write_str(" (under mpirun: when a rank died, mpirun's message names its rank; every "
                  "result received before is kept)\n");
    for (int i = 0; i < POOL_MAX_JOBS; i++)
        if (g_pids[i] > 0)
            kill(g_pids[i], SIGTERM);
    for (int i = 0; i < POOL_MAX_JOBS; i++)
        if (g_pids[i] > 0)
            waitpid(g_pids[i], NULL, 0);
}

static void block_signals(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigprocmask(SIG_BLOCK, &s, old);
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads exactly n bytes: 1 ok, 0 end of file before any byte, -1 error or short. */
static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

/* ---- the worker process ------------------------------------------------------ */

/* A worker's SIGINT/SIGTERM: as the CLI's handler, for the temporaries of this process. */
static void on_worker_signal(int sig)
{
    ss_out_abort_all_signal_safe();
    /* The end of a forked worker, interrupted: no atexit handler or stdio buffer of the
     * parent's may run here. */
    _exit(128 + sig);
}

/* Runs item idx and puts its whole frame (header, then result or failure message) in f. */
static void run_item(const struct pool_job *job, long idx, struct pool_buf *res, struct pool_buf *f)
{
    char err[SS_ERRLEN];
    struct pool_frame h = {idx, FRAME_OK, 0};
    const void *payload;
    size_t len;
    res->len = 0;
    err[0] = '\0';
    if (job->work(job->ctx, idx, res, err, sizeof err) != 0) {
        if (!err[0])
            snprintf(err, sizeof err, "failed (no message)");
        h.status = FRAME_FAILED;
        payload = err;
        len = strlen(err);
    } else if (res->len > POOL_MAX_RESULT) {
        snprintf(err, sizeof err, "result of %zu bytes, more than the limit of %u", res->len,
                 POOL_MAX_RESULT);
        h.status = FRAME_FAILED;
        payload = err;
        len = strlen(err);
    } else {
        payload = res->data;
        len = res->len;
    }
    h.len = (uint32_t)len;
    f->len = 0;
    pool_buf_add(f, &h, sizeof h);
    pool_buf_add(f, payload, len);
}

static _Noreturn void worker_main(const struct pool_job *job, int in, int out)
{
    struct pool_buf res = {0}, f = {0};
    int64_t idx;
    int r, lost = 0;
    while (!lost && (r = read_all(in, &idx, sizeof idx)) != 0) {
        if (r < 0 || idx < 0 || idx >= job->n_items) {
            lost = 1;
            break;
        }
        run_item(job, (long)idx, &res, &f);
        /* Anything the item printed goes out before its result is in. */
        fflush(stdout);
        fflush(stderr);
        lost = write_all(out, f.data, f.len);
    }
    free(res.data);
    free(f.data);
    fflush(stdout);
    fflush(stderr);
    /* The end of a forked worker: _exit, not exit, since the atexit handlers and stdio
     * buffers it inherited are the parent's (a test runner's cleanup, a half-written
     * output) and must run once, in the parent. */
    _exit(lost ? POOL_WORKER_LOST : 0);
}

/* A rank other than 0 under MPI: the worker loop, with rank 0 in place of the pipes. */
static void serve(const struct pool_job *job)
{
    struct pool_buf res = {0}, f = {0};
    long idx;
    dist_set_running(1);
    while (dist_next_item(&idx)) {
        if (idx >= job->n_items)
            SS_FATAL("rank %d: item %ld of a pool of %ld (do all ranks run the same command?)",
                     dist_rank(), idx, job->n_items);
        run_item(job, idx, &res, &f);
        fflush(stdout);
        fflush(stderr);
        dist_send_result(f.data, f.len);
    }
    dist_set_running(0);
    free(res.data);
    free(f.data);
}

/* ---- the parent ---------------------------------------------------------------- */

static long item_at(const struct pool_state *st, long k)
{
    return st->job->order ? st->job->order[k] : k;
}

/* Worker w's entry in the signal handler's table: what it runs, "" for nothing. */
static void set_inflight(struct pool_state *st, const struct pool_worker *w, long idx)
{
    if (!g_inflight)
        return;
    char name[POOL_INFLIGHT_LEN];
    name[0] = '\0';
    if (idx >= 0) {
        char item[POOL_INFLIGHT_LEN - 24]; /* room for " on rank <n>" */
        if (st->job->describe)
            st->job->describe(st->job->ctx, idx, item, sizeof item);
        else
            snprintf(item, sizeof item, "item %ld", idx);
        snprintf(name, sizeof name, "%s on rank %d", item, w->rank);
    }
    sigset_t old;
    block_signals(&old);
    memcpy(g_inflight[w - st->w], name, sizeof name);
    sigprocmask(SIG_SETMASK, &old, NULL);
}

static void describe(const struct pool_state *st, long idx, char *buf, size_t n)
{
    if (st->job->describe)
        st->job->describe(st->job->ctx, idx, buf, n);
    else
        snprintf(buf, n, "item %ld", idx);
}

static void progress(struct pool_state *st)
{
    if (st->job->progress)
        st->job->progress(st->job->ctx, st->done, st->n_run);
}

static void item_failed(struct pool_state *st, long idx, const char *why)
{
    if (st->n_failed++ == 0) {
        char name[256];
        describe(st, idx, name, sizeof name);
        snprintf(st->first, sizeof st->first, "%s: %s", name, why);
    }
    if (st->job->failed)
        st->job->failed(st->job->ctx, idx, why);
    if (!st->job->keep_going)
        st->stopping = 1;
    st->done++;
    progress(st);
}

/* Set by pool_reject() from inside deliver(): why the item's result could not be kept. */
static char g_rejected[SS_ERRLEN];
static int g_in_deliver;

void pool_reject(const char *why)
{
    SS_ASSERT(g_in_deliver);
    snprintf(g_rejected, sizeof g_rejected, "%s", why && *why ? why : "rejected (no message)");
}

static void item_done(struct pool_state *st, long idx, const void *data, size_t len)
{
    g_rejected[0] = '\0';
    if (st->job->deliver) {
        g_in_deliver = 1;
        st->job->deliver(st->job->ctx, idx, data, len);
        g_in_deliver = 0;
    }
    if (g_rejected[0]) {
        char why[SS_ERRLEN];
        snprintf(why, sizeof why, "%s", g_rejected);
        item_failed(st, idx, why);
        return;
    }
    st->done++;
    progress(st);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Forks the worker of slot i. -1 (with st->sys set) when no process could be started. */
static int spawn(struct pool_state *st, int i)
{
    struct pool_worker *w = &st->w[i];
    int down[2], up[2];
    if (pipe(down)) {
        snprintf(st->sys, sizeof st->sys, "cannot start a worker process: %s", strerror(errno));
        return -1;
    }
    if (pipe(up)) {
        snprintf(st->sys, sizeof st->sys, "cannot start a worker process: %s", strerror(errno));
        close(down[0]);
        close(down[1]);
        return -1;
    }
    sigset_t old;
    fflush(NULL); /* nothing buffered in the parent may be written twice */
    block_signals(&old);
    pid_t pid = fork();
    if (pid == 0) {
        /* The other workers' pipes: a worker holding a sibling's write end would keep that
         * sibling from ever seeing end of file. */
        for (int k = 0; k < st->n_local; k++) {
            close_fd(&st->w[k].to);
            close_fd(&st->w[k].from);
            g_pids[k] = 0;
        }
        close(down[1]);
        close(up[0]);
        ss_out_forget_inherited();
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_worker_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        /* A worker whose parent is gone may die of SIGPIPE: nobody wants its result. */
        sa.sa_handler = SIG_DFL;
        sigaction(SIGPIPE, &sa, NULL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        worker_main(st->job, down[0], up[1]);
    }
    if (pid > 0)
        g_pids[i] = pid;
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(down[0]);
    close(up[1]);
    if (pid < 0) {
        snprintf(st->sys, sizeof st->sys, "cannot start a worker process: %s", strerror(errno));
        close(down[1]);
        close(up[0]);
        return -1;
    }
    w->pid = pid;
    w->to = down[1];
    w->from = up[0];
    w->item = -1;
    w->bad = NULL;
    w->in.len = 0;
    return 0;
}

/* Gives the worker its next item, or tells it to end (closes its command pipe, or tells
 * the rank that this run is over). */
static void dispatch(struct pool_state *st, struct pool_worker *w)
{
    char err[SS_ERRLEN];
    if (st->stopping || st->next >= st->n_run) {
        if (w->rank) {
            dist_send_item(w->rank, -1, err, sizeof err); /* a rank gone needs no stop */
            w->active = 0;
        } else {
            close_fd(&w->to);
        }
        return;
    }
    long idx = item_at(st, st->next++);
    int64_t i64 = idx;
    w->item = idx;
    set_inflight(st, w, idx);
    if (w->rank) {
        if (dist_send_item(w->rank, idx, err, sizeof err)) {
            w->item = -1;
            w->active = 0;
            set_inflight(st, w, -1);
            item_failed(st, idx, err);
        }
        return;
    }
    /* A write that fails means the worker is dead: its end of file, which comes next,
     * reports the item. */
    if (write_all(w->to, &i64, sizeof i64))
        close_fd(&w->to);
}

static void status_text(int status, char *buf, size_t n)
{
    if (WIFSIGNALED(status))
        snprintf(buf, n, "worker killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(buf, n, "worker exited with status %d before handing back its result",
                 WEXITSTATUS(status));
    else
        snprintf(buf, n, "worker ended with wait status %#x", (unsigned)status);
}

/* The worker of slot i is gone (end of file): reap it, fail its item if it had one. */
static void reap(struct pool_state *st, int i)
{
    struct pool_worker *w = &st->w[i];
    int status = 0;
    close_fd(&w->to);
    close_fd(&w->from);
    /* Reaped and unrecorded in one step, so the handler never signals a pid that is
     * free for reuse. The worker has closed its pipe: it is ending, the wait is short. */
    sigset_t old;
    block_signals(&old);
    while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
        ;
    g_pids[i] = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
    w->pid = 0;
    /* A worker that ends without an item in flight was told to (its command pipe was
     * closed) or died between items; either way every result it owed is in. */
    if (w->item >= 0) {
        char why[SS_ERRLEN];
        if (w->bad)
            snprintf(why, sizeof why, "worker %s", w->bad);
        else
            status_text(status, why, sizeof why);
        long idx = w->item;
        w->item = -1;
        set_inflight(st, w, -1);
        item_failed(st, idx, why);
    }
    w->in.len = 0;
    if (st->job->keep_going && !st->stopping && st->next < st->n_run) {
        if (spawn(st, i) == 0)
            dispatch(st, w);
        else
            st->stopping = 1;
    }
}

/* Acts on every whole frame in the worker's buffer. */
static void take_frames(struct pool_state *st, struct pool_worker *w)
{
    while (!w->bad && w->in.len >= sizeof(struct pool_frame)) {
        struct pool_frame f;
        memcpy(&f, w->in.data, sizeof f);
        if (w->item < 0 || f.idx != w->item || f.status > FRAME_FAILED || f.len > POOL_MAX_RESULT) {
            w->bad = "sent a malformed frame";
            break;
        }
        size_t whole = sizeof f + f.len;
        if (w->in.len < whole)
            return;
        if (w->in.len > whole) {
            w->bad = "sent more than one result for one item";
            break;
        }
        const char *payload = w->in.data + sizeof f;
        long idx = w->item;
        w->item = -1;
        w->in.len = 0;
        set_inflight(st, w, -1);
        if (f.status == FRAME_OK) {
            item_done(st, idx, payload, f.len);
        } else {
            char why[SS_ERRLEN];
            snprintf(why, sizeof why, "%.*s", (int)f.len, payload);
            item_failed(st, idx, why);
        }
        dispatch(st, w);
    }
    if (w->bad && w->rank) {
        /* A rank cannot be killed from here: its item fails and it gets no other. */
        char why[SS_ERRLEN];
        long idx = w->item;
        snprintf(why, sizeof why, "rank %d %s", w->rank, w->bad);
        w->item = -1;
        w->bad = NULL;
        w->in.len = 0;
        set_inflight(st, w, -1);
        item_failed(st, idx, why);
        dist_send_item(w->rank, -1, why, sizeof why);
        w->active = 0;
    } else if (w->bad) {
        kill(w->pid, SIGKILL); /* its end of file follows and reap() fails its item */
    }
}

/* A frame from a rank: the same checks as a forked worker's, on one whole message. */
static void on_result(struct pool_state *st, int rank, const void *data, size_t len)
{
    int i = st->n_local + rank - 1;
    SS_ASSERT(rank > 0 && i < st->nw);
    struct pool_worker *w = &st->w[i];
    if (!w->active) /* cannot happen: a rank told to stop has no item */
        SS_FATAL("a result from rank %d, which has no item", rank);
    struct pool_frame f;
    w->in.len = 0;
    pool_buf_add(&w->in, data, len);
    /* One message is one whole frame: shorter than its header says is as bad as longer. */
    if (len < sizeof f)
        w->bad = "sent a malformed frame";
    else if (memcpy(&f, data, sizeof f), len < sizeof f + f.len)
        w->bad = "sent a truncated frame";
    take_frames(st, w);
}

static void on_readable(struct pool_state *st, int i)
{
    struct pool_worker *w = &st->w[i];
    if (w->in.cap < w->in.len + POOL_READ_CHUNK) {
        w->in.cap = w->in.len + POOL_READ_CHUNK;
        w->in.data = ss_xrealloc(w->in.data, w->in.cap);
    }
    ssize_t r = read(w->from, w->in.data + w->in.len, POOL_READ_CHUNK);
    if (r < 0 && errno == EINTR)
        return;
    if (r <= 0) {
        reap(st, i);
        return;
    }
    w->in.len += (size_t)r;
    take_frames(st, w);
}

static int worker_live(const struct pool_worker *w)
{
    return w->rank ? w->active : w->pid > 0;
}

/*
 * Every item over n_local forked workers and n_remote ranks. With ranks there is no file
 * descriptor to wait on for their messages, so the loop polls the pipes without waiting
 * and the ranks with MPI_Iprobe, and sleeps with a back-off (20 µs … 1 ms) when neither
 * had anything.
 */
static void run_workers(struct pool_state *st, int n_local, int n_remote)
{
    st->n_local = n_local;
    st->nw = n_local + n_remote;
    st->w = ss_xcalloc((size_t)st->nw, sizeof *st->w);
    for (int i = 0; i < st->nw; i++) {
        st->w[i].to = st->w[i].from = -1;
        st->w[i].item = -1;
        if (i >= n_local) {
            st->w[i].rank = i - n_local + 1;
            st->w[i].active = 1;
        }
    }
    if (n_remote > 0) {
        char(*table)[POOL_INFLIGHT_LEN] = ss_xcalloc((size_t)st->nw, sizeof *table);
        sigset_t old;
        block_signals(&old);
        g_inflight = table;
        g_n_inflight = st->nw;
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    /* A worker that dies must not take the parent with it through SIGPIPE. */
    struct sigaction ign, old_pipe;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old_pipe);
    for (int i = 0; i < n_local && !st->sys[0]; i++)
        spawn(st, i);
    if (st->sys[0])
        st->stopping = 1;
    for (int i = 0; i < st->nw; i++)
        if (worker_live(&st->w[i]))
            dispatch(st, &st->w[i]);
    struct pollfd *pf = ss_xcalloc((size_t)(n_local > 0 ? n_local : 1), sizeof *pf);
    for (int idle = 0;;) {
        int live = 0, remote = 0;
        for (int i = 0; i < n_local; i++) {
            pf[i].fd = st->w[i].pid > 0 ? st->w[i].from : -1;
            pf[i].events = POLLIN;
            pf[i].revents = 0;
            live += st->w[i].pid > 0;
        }
        for (int i = n_local; i < st->nw; i++)
            remote += st->w[i].active;
        if (!live && !remote)
            break;
        int ready = poll(pf, (nfds_t)n_local, remote ? 0 : -1);
        if (ready < 0) {
            if (errno == EINTR)
                continue;
            SS_FATAL("poll: %s with %d workers", strerror(errno), live);
        }
        for (int i = 0; i < n_local; i++)
            if (pf[i].revents && st->w[i].pid > 0)
                on_readable(st, i);
        int rank, got = 0;
        const void *data;
        size_t len;
        while (remote && dist_poll_result(&rank, &data, &len)) {
            on_result(st, rank, data, len);
            got = 1;
        }
        if (ready > 0 || got)
            idle = 0;
        else if (remote)
            dist_backoff(idle++);
    }
    free(pf);
    if (n_remote > 0) {
        char(*table)[POOL_INFLIGHT_LEN] = g_inflight;
        sigset_t old;
        block_signals(&old);
        g_inflight = NULL;
        g_n_inflight = 0;
        sigprocmask(SIG_SETMASK, &old, NULL);
        free(table);
    }
    for (int i = 0; i < st->nw; i++)
        free(st->w[i].in.data);
    free(st->w);
    sigaction(SIGPIPE, &old_pipe, NULL);
}

static void run_here(struct pool_state *st)
{
    const struct pool_job *job = st->job;
    struct pool_buf b = {0};
    char err[SS_ERRLEN];
    while (!st->stopping && st->next < st->n_run) {
        long idx = item_at(st, st->next++);
        b.len = 0;
        err[0] = '\0';
        if (job->work(job->ctx, idx, &b, err, sizeof err) == 0) {
            item_done(st, idx, b.data, b.len);
        } else {
            if (!err[0])
                snprintf(err, sizeof err, "failed (no message)");
            item_failed(st, idx, err);
        }
    }
    free(b.data);
}

int pool_ranks(void)
{
    return dist_size();
}

int pool_is_writer(void)
{
    return dist_rank() == 0;
}

void pool_rank_stopped(const char *why)
{
    dist_wait_end(why);
}

int pool_progress_line_due(long done, long total)
{
    return done > 0 && total > 0 && 10 * done / total > 10 * (done - 1) / total;
}

int pool_run(const struct pool_job *job, char *err, size_t errlen)
{
    SS_ASSERT(job->work && job->n_items >= 0 && job->jobs >= 0 && job->jobs <= POOL_MAX_JOBS);
    /* Only the outermost run of a rank is distributed; a pool inside an item is local. */
    int ranks = g_depth == 0 ? dist_size() : 1;
    if (ranks > 1 && dist_rank() > 0) {
        g_depth++;
        serve(job);
        g_depth--;
        return 0;
    }
    long n_run = job->order && job->n_order > 0 ? job->n_order : job->n_items;
    SS_ASSERT(n_run <= job->n_items);
    if (job->order) {
        /* A repeated index would run twice and another never: a bug in the caller. */
        char *seen = ss_xcalloc((size_t)job->n_items + 1, 1);
        for (long k = 0; k < n_run; k++) {
            SS_ASSERT(job->order[k] >= 0 && job->order[k] < job->n_items && !seen[job->order[k]]);
            seen[job->order[k]] = 1;
        }
        free(seen);
    }
    if (n_run == 0 && ranks == 1)
        return 0;
    struct pool_state st;
    memset(&st, 0, sizeof st);
    st.job = job;
    st.n_run = n_run;
    g_depth++;
    if (ranks > 1)
        dist_set_running(1);
    progress(&st);
    if (ranks > 1)
        /* One forked worker is rank 0's own share, whatever `jobs` says: one rank, one
         * worker, as on every other rank. */
        run_workers(&st, n_run > 0 ? 1 : 0, ranks - 1);
    else if (job->jobs == 0)
        run_here(&st);
    else
        run_workers(&st, job->jobs < n_run ? job->jobs : (int)n_run, 0);
    if (ranks > 1)
        dist_set_running(0);
    g_depth--;
    if (st.sys[0] && st.n_failed == 0)
        return ss_errf(err, errlen, "%s", st.sys);
    if (st.n_failed == 0 && st.done == n_run)
        return 0;
    SS_ASSERT(st.n_failed > 0);
    long not_started = n_run - st.done;
    char more[128] = "", rest[128] = "";
    if (st.n_failed > 1)
        snprintf(more, sizeof more, "; %ld more item%s failed", st.n_failed - 1,
                 st.n_failed == 2 ? "" : "s");
    if (not_started > 0)
        snprintf(rest, sizeof rest, "; %ld item%s not started", not_started,
                 not_started == 1 ? "" : "s");
    return ss_errf(err, errlen, "%s%s%s%s%s", st.first, more, rest, st.sys[0] ? "; " : "", st.sys);
}
