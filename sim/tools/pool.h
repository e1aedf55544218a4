/*
 * pool — runs N independent items in J forked worker processes, the one pool behind
 * `sharesim sweep` and `sharesim validate` (docs/pool.md).
 *
 * An item is a pure function of its index: work() computes item idx in a worker and
 * appends its result bytes to a buffer; the parent gets them back through
 * deliver(idx, bytes). Workers live for the whole run and take the next item as soon
 * as they hand back one (dynamic load balancing), so the delivery ORDER depends on J
 * and on timing, never the bytes: a caller that files each result under its index
 * writes the same output for every J.
 *
 * Failures. A work() that returns -1, a worker that crashes or is killed, or one that
 * breaks the protocol fails its item; the message names the item (describe()). Every
 * item that finished is still delivered. After a failure no new item starts (unless
 * keep_going), the running ones finish, and pool_run returns -1.
 *
 * Signals. Workers handle SIGINT/SIGTERM like the CLI does: remove their own atomic
 * temporaries (ss_out_*) and end with 128 + signal. The parent's handler (sim/cli/cli.c)
 * calls pool_stop_workers_signal_safe() before removing its own temporaries.
 *
 * One pool_run at a time per process; a worker may run a pool of its own.
 *
 * MPI (docs/distributed.md). Started by mpirun, every rank runs the same command and must
 * call pool_run the same times, in the same order, with the same n_items and work(). On
 * rank 0 pool_run is the parent: it dispatches the items to one forked worker of its own
 * and to every other rank, one item at a time each, and calls deliver, progress, failed
 * there. On the other ranks pool_run only runs work() for the items rank 0 sends (in that
 * process: a rank is one worker) and returns 0 when rank 0 says the run is over; its
 * order, jobs and callbacks other than work are not used there. So work() must depend only
 * on what every rank computes alike (the arguments and input files, never the state of the
 * output directory), and only the writer (pool_is_writer()) writes outputs.
 */
#ifndef SS_POOL_H
#define SS_POOL_H

#include <stddef.h>

#define POOL_MAX_JOBS 1024
/* A result (or failure message) bigger than this is a bug, not a result. */
#define POOL_MAX_RESULT (64u << 20)

/* A worker's result for one item; work() appends to it with pool_buf_add. */
struct pool_buf {
    char *data;
    size_t len, cap;
};
void pool_buf_add(struct pool_buf *b, const void *data, size_t n);

struct pool_job {
    long n_items;
    /* Worker processes, 1..POOL_MAX_JOBS (fewer are started when there are fewer items).
     * 0 runs every item in the calling process: no fork, same callbacks, but a crash of
     * an item takes the caller with it. */
    int jobs;
    /* After a failure, still start the items not started yet (a dead worker is replaced).
     * Otherwise the running items finish and no other starts. */
    int keep_going;
    /* Dispatch order: n_order distinct indices in 0..n_items-1, the items to run (e.g.
     * longest first so the long items do not end up last, or only the points a resumed
     * sweep still lacks). n_order = 0 means all n_items (a permutation); NULL = every item,
     * ascending. It changes which items run and when, never what an item gives. */
    const long *order;
    long n_order;
    void *ctx; /* passed to every callback */

    /* In the worker: computes item idx, appends its result to out. 0, or -1 with a
     * message in err (it then fails the item, not the worker). Required. */
    int (*work)(void *ctx, long idx, struct pool_buf *out, char *err, size_t errlen);
    /* In the parent: item idx's result; called once per item that succeeded. It may call
     * pool_reject() to fail the item after all. Optional (items whose results are files of
     * their own need none). */
    void (*deliver)(void *ctx, long idx, const void *data, size_t len);
    /* In the parent: `done` items of `total` (the items run) have finished, succeeded or
     * failed, on every worker and rank; called with 0 first, then after each item. Optional. */
    void (*progress)(void *ctx, long done, long total);
    /* Item idx for messages ("point p0003"); optional, default "item <idx>". */
    void (*describe)(void *ctx, long idx, char *buf, size_t n);
    /* In the parent: item idx failed, `why` says how (without the item's name). Called
     * once per failed item. Optional. */
    void (*failed)(void *ctx, long idx, const char *why);
};

/*
 * Runs every item. Returns 0 when all were delivered; -1 with a message otherwise: the
 * first failed item and how it failed, and how many more failed or never started, or
 * why the workers could not be started.
 */
int pool_run(const struct pool_job *job, char *err, size_t errlen);

/* From inside deliver(): the item's result cannot be kept (its file cannot be written, say).
 * The item then fails with this message, as if work() had failed: it is named, counted, and
 * without keep_going no new item starts. */
void pool_reject(const char *why);

/*
 * On an MPI rank other than 0 whose command failed before its pool run (why: the message):
 * waits for rank 0. If rank 0 ends the program without sending work (it failed the same way
 * and said so itself), it returns and prints nothing, so that a message all ranks share is
 * printed once. If rank 0 sends work (the failure is this rank's alone: an input this node
 * reads differently, say), it prints why, naming the rank, and ends the rank: the launcher
 * ends the job and rank 0 names the item. Elsewhere (rank 0, no MPI) it does nothing: there
 * the command prints its message itself.
 */
void pool_rank_stopped(const char *why);

/* Ranks of this run: 1 unless started by an MPI launcher (docs/distributed.md). */
int pool_ranks(void);
/* Whether this process writes the outputs: rank 0, or any process without MPI. */
int pool_is_writer(void);

/* Progress without a terminal (mpirun's stderr, a batch job's log): 1 when `done` (counted
 * up by one from 0) is the first count past another tenth of `total`, so a run logs about
 * ten progress lines instead of a bar. */
int pool_progress_line_due(long done, long total);

/*
 * For a SIGINT/SIGTERM handler in the parent: sends SIGTERM to the live workers of the
 * running pool and waits for them (their handlers remove their temporaries first).
 * Under MPI it first prints the items still running on each rank (when a rank dies,
 * Open MPI's launcher stops the others with SIGTERM and names only the rank). Async-
 * signal-safe; does nothing when no pool runs.
 */
void pool_stop_workers_signal_safe(void);

#endif
