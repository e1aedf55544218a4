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
 */
#include "tools/pool.h"
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
    pid_t pid;          /* 0 = slot empty */
    int to, from;       /* the parent's ends of the two pipes; -1 = closed */
    long item;          /* the item in flight, -1 = none */
    const char *bad;    /* set when the worker broke the protocol (it is then killed) */
    struct pool_buf in; /* bytes received and not yet a whole frame */
};

struct pool_state {
    const struct pool_job *job;
    struct pool_worker *w;
    int nw;
    long next; /* position in the dispatch order of the next item to start */
    long done; /* items finished, delivered or failed */
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

void pool_stop_workers_signal_safe(void)
{
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

static _Noreturn void worker_main(const struct pool_job *job, int in, int out)
{
    struct pool_buf b = {0};
    char err[SS_ERRLEN];
    int64_t idx;
    int r, lost = 0;
    while (!lost && (r = read_all(in, &idx, sizeof idx)) != 0) {
        if (r < 0 || idx < 0 || idx >= job->n_items) {
            lost = 1;
            break;
        }
        b.len = 0;
        err[0] = '\0';
        struct pool_frame f = {idx, FRAME_OK, 0};
        const void *payload = b.data;
        size_t len;
        if (job->work(job->ctx, (long)idx, &b, err, sizeof err) != 0) {
            if (!err[0])
                snprintf(err, sizeof err, "failed (no message)");
            f.status = FRAME_FAILED;
            payload = err;
            len = strlen(err);
        } else if (b.len > POOL_MAX_RESULT) {
            snprintf(err, sizeof err, "result of %zu bytes, more than the limit of %u", b.len,
                     POOL_MAX_RESULT);
            f.status = FRAME_FAILED;
            payload = err;
            len = strlen(err);
        } else {
            payload = b.data;
            len = b.len;
        }
        f.len = (uint32_t)len;
        /* Anything the item printed goes out before its result is in. */
        fflush(stdout);
        fflush(stderr);
        lost = write_all(out, &f, sizeof f) || write_all(out, payload, len);
    }
    free(b.data);
    fflush(stdout);
    fflush(stderr);
    /* The end of a forked worker: _exit, not exit, since the atexit handlers and stdio
     * buffers it inherited are the parent's (a test runner's cleanup, a half-written
     * output) and must run once, in the parent. */
    _exit(lost ? POOL_WORKER_LOST : 0);
}

/* ---- the parent ---------------------------------------------------------------- */

static long item_at(const struct pool_state *st, long k)
{
    return st->job->order ? st->job->order[k] : k;
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
        st->job->progress(st->job->ctx, st->done, st->job->n_items);
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

static void item_done(struct pool_state *st, long idx, const void *data, size_t len)
{
    if (st->job->deliver)
        st->job->deliver(st->job->ctx, idx, data, len);
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
        for (int k = 0; k < st->nw; k++) {
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

/* Gives the worker its next item, or tells it to end (closes its command pipe). */
static void dispatch(struct pool_state *st, struct pool_worker *w)
{
    if (st->stopping || st->next >= st->job->n_items) {
        close_fd(&w->to);
        return;
    }
    long idx = item_at(st, st->next++);
    int64_t i64 = idx;
    w->item = idx;
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
        item_failed(st, idx, why);
    }
    w->in.len = 0;
    if (st->job->keep_going && !st->stopping && st->next < st->job->n_items) {
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
        if (f.status == FRAME_OK) {
            item_done(st, idx, payload, f.len);
        } else {
            char why[SS_ERRLEN];
            snprintf(why, sizeof why, "%.*s", (int)f.len, payload);
            item_failed(st, idx, why);
        }
        dispatch(st, w);
    }
    if (w->bad)
        kill(w->pid, SIGKILL); /* its end of file follows and reap() fails its item */
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

static void run_forked(struct pool_state *st)
{
    const struct pool_job *job = st->job;
    st->nw = job->jobs < job->n_items ? job->jobs : (int)job->n_items;
    st->w = ss_xcalloc((size_t)st->nw, sizeof *st->w);
    for (int i = 0; i < st->nw; i++)
        st->w[i].to = st->w[i].from = -1;
    /* A worker that dies must not take the parent with it through SIGPIPE. */
    struct sigaction ign, old_pipe;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old_pipe);
    for (int i = 0; i < st->nw && !st->sys[0]; i++)
        spawn(st, i);
    if (st->sys[0])
        st->stopping = 1;
    for (int i = 0; i < st->nw; i++)
        if (st->w[i].pid > 0)
            dispatch(st, &st->w[i]);
    struct pollfd *pf = ss_xcalloc((size_t)st->nw, sizeof *pf);
    for (;;) {
        int live = 0;
        for (int i = 0; i < st->nw; i++) {
            pf[i].fd = st->w[i].pid > 0 ? st->w[i].from : -1;
            pf[i].events = POLLIN;
            pf[i].revents = 0;
            live += st->w[i].pid > 0;
        }
        if (!live)
            break;
        if (poll(pf, (nfds_t)st->nw, -1) < 0) {
            if (errno == EINTR)
                continue;
            SS_FATAL("poll: %s with %d workers", strerror(errno), live);
        }
        for (int i = 0; i < st->nw; i++)
            if (pf[i].revents && st->w[i].pid > 0)
                on_readable(st, i);
    }
    free(pf);
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
    while (!st->stopping && st->next < job->n_items) {
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

int pool_run(const struct pool_job *job, char *err, size_t errlen)
{
    SS_ASSERT(job->work && job->n_items >= 0 && job->jobs >= 0 && job->jobs <= POOL_MAX_JOBS);
    if (job->order) {
        /* A repeated index would run twice and another never: a bug in the caller. */
        char *seen = ss_xcalloc((size_t)job->n_items + 1, 1);
        for (long k = 0; k < job->n_items; k++) {
            SS_ASSERT(job->order[k] >= 0 && job->order[k] < job->n_items && !seen[job->order[k]]);
            seen[job->order[k]] = 1;
        }
        free(seen);
    }
    if (job->n_items == 0)
        return 0;
    struct pool_state st;
    memset(&st, 0, sizeof st);
    st.job = job;
    progress(&st);
    if (job->jobs == 0)
        run_here(&st);
    else
        run_forked(&st);
    if (st.sys[0] && st.n_failed == 0)
        return ss_errf(err, errlen, "%s", st.sys);
    if (st.n_failed == 0 && st.done == job->n_items)
        return 0;
    SS_ASSERT(st.n_failed > 0);
    long not_started = job->n_items - st.done;
    char more[128] = "", rest[128] = "";
    if (st.n_failed > 1)
        snprintf(more, sizeof more, "; %ld more item%s failed", st.n_failed - 1,
                 st.n_failed == 2 ? "" : "s");
    if (not_started > 0)
        snprintf(rest, sizeof rest, "; %ld item%s not started", not_started,
                 not_started == 1 ? "" : "s");
    return ss_errf(err, errlen, "%s%s%s%s%s", st.first, more, rest, st.sys[0] ? "; " : "", st.sys);
}
