/*
 * dist — see dist.h. The protocol, all on MPI_COMM_WORLD:
 *
 *   rank 0 → rank r   TAG_ITEM    one int64: an item index, or -1 "this pool run is over"
 *   rank r → rank 0   TAG_RESULT  the pool's frame, opaque here (one message per item)
 *   rank 0 → rank r   TAG_END     no data: rank 0 is exiting, so is the program
 *
 * A rank has at most one item at a time, as a forked worker does: rank 0 always knows which
 * item each rank holds, and a rank that finishes early asks for more by handing its
 * result back (dynamic load balancing). Messages between two ranks arrive in the order
 * they were sent (MPI's non-overtaking rule), so an item never overtakes the end of a run.
 *
 * Why the waits poll with a back-off instead of a blocking MPI_Recv: Open MPI's blocking
 * calls spin on the CPU. A rank waiting for its next item, or for rank 0 to finish writing
 * the outputs, would take a core from the ranks still computing whenever ranks share cores
 * (the tests run 3 ranks on 2 cores). An MPI_Iprobe every 20 µs … 1 ms costs nothing and
 * adds at most a millisecond per item.
 *
 * Why MPI_Init only under a launcher, not singleton initialisation: a singleton Open MPI
 * start takes a third of a second and leaves memory that ASan reports as leaked, and it
 * would do so for every `sharesim run` and every test; the launcher's environment says
 * for certain whether there are other ranks to talk to.
 */
#include "tools/dist.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void dist_backoff(int step)
{
    long ns = 20000L << (step < 6 ? step : 6);
    struct timespec ts = {0, ns < 1000000L ? ns : 1000000L};
    nanosleep(&ts, NULL);
}

#if SS_MPI

#include <mpi.h>

enum { TAG_ITEM = 1, TAG_RESULT = 2, TAG_END = 3 };

static int g_init;  /* 0 not yet decided, 1 decided */
static int g_mpi;   /* MPI was initialised by this process */
static pid_t g_pid; /* ... and this is that process (a fork of it is not a rank) */
static int g_size = 1, g_rank;
static int g_ended;   /* rank > 0: rank 0 said TAG_END */
static int g_running; /* a pool run is in progress (an exit now is a death) */
static char *g_buf;   /* rank 0: the last result received */
static size_t g_cap;

static void mpi_check(int rc, const char *what, int peer)
{
    if (rc == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    SS_FATAL("MPI: %s rank %d failed: %.*s", what, peer, len, msg);
}

static int launched(void)
{
    const char *off = getenv("SHARESIM_MPI");
    if (off && strcmp(off, "0") == 0)
        return 0;
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL;
}

static int is_rank(void);

void dist_wait_end(const char *why)
{
    if (!is_rank() || g_rank == 0)
        return;
    long idx;
    /* "This pool run is over" (-1) can come too: rank 0 ends each of its runs so. */
    while (!g_ended)
        if (dist_next_item(&idx)) {
            if (why)
                fprintf(stderr, "sharesim: rank %d: %s\n", g_rank, why);
            else
                fprintf(stderr,
                        "sharesim: rank %d stopped before the run rank 0 sent it work for (its "
                        "message above says why)\n",
                        g_rank);
            fflush(stderr);
            _exit(SS_EXIT_BADINPUT);
        }
}

static void at_exit(void)
{
    if (getpid() != g_pid)
        return;
    if (g_running) {
        /* An exit in the middle of a pool run (an internal error on a rank, a command that
         * stopped): no MPI_Finalize, which would wait for ranks that are waiting for us.
         * The launcher sees the rank end without it and ends the job. */
        return;
    }
    if (g_rank == 0) {
        for (int r = 1; r < g_size; r++)
            mpi_check(MPI_Send(NULL, 0, MPI_BYTE, r, TAG_END, MPI_COMM_WORLD), "send end to", r);
    } else {
        dist_wait_end(NULL); /* so that rank 0 exits first or together */
    }
    free(g_buf);
    g_buf = NULL;
    MPI_Finalize();
}

static void start(void)
{
    if (g_init)
        return;
    g_init = 1;
    if (!launched())
        return;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
        SS_FATAL("MPI_Init failed (started by an MPI launcher: OMPI_COMM_WORLD_SIZE or "
                 "PMIX_RANK is set; SHARESIM_MPI=0 runs without MPI)");
    /* Errors come back to us, so a failed call is reported with the rank it concerned. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    g_mpi = 1;
    g_pid = getpid();
    atexit(at_exit);
}

static int is_rank(void)
{
    start();
    return g_mpi && getpid() == g_pid;
}

int dist_size(void)
{
    return is_rank() ? g_size : 1;
}

int dist_rank(void)
{
    return is_rank() ? g_rank : 0;
}

void dist_set_running(int running)
{
    g_running = running;
}

int dist_send_item(int rank, long idx, char *err, size_t errlen)
{
    int64_t v = idx;
    int rc = MPI_Send(&v, (int)sizeof v, MPI_BYTE, rank, TAG_ITEM, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        return 0;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return ss_errf(err, errlen, "rank %d cannot be reached (MPI: %.*s)", rank, len, msg);
}

int dist_poll_result(int *rank, const void **data, size_t *len)
{
    int flag = 0, n = 0;
    MPI_Status st;
    mpi_check(MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st), "probe", -1);
    if (!flag)
        return 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    if ((size_t)n > g_cap) {
        g_cap = (size_t)n;
        g_buf = ss_xrealloc(g_buf, g_cap);
    }
    mpi_check(
        MPI_Recv(g_buf, n, MPI_BYTE, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "receive a result from", st.MPI_SOURCE);
    *rank = st.MPI_SOURCE;
    *data = g_buf;
    *len = (size_t)n;
    return 1;
}

int dist_next_item(long *idx)
{
    if (g_ended)
        return 0;
    MPI_Status st;
    int flag = 0;
    for (int step = 0;; step++) {
        mpi_check(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "probe", 0);
        if (flag)
            break;
        dist_backoff(step);
    }
    int64_t v = -1;
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    if (st.MPI_TAG == TAG_ITEM && n == (int)sizeof v) {
        mpi_check(MPI_Recv(&v, n, MPI_BYTE, 0, TAG_ITEM, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "receive an item from", 0);
        *idx = (long)v;
        return v >= 0;
    }
    if (st.MPI_TAG == TAG_END) {
        mpi_check(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_END, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "receive the end from", 0);
        g_ended = 1;
        return 0;
    }
    SS_FATAL("MPI: unexpected message from rank 0 (tag %d, %d bytes)", st.MPI_TAG, n);
}

void dist_send_result(const void *data, size_t len)
{
    if (len > (size_t)INT32_MAX)
        SS_FATAL("MPI: a result of %zu bytes", len);
    mpi_check(MPI_Send(data, (int)len, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD), "send a result to",
              0);
}

#else /* built without MPI: one rank */

int dist_size(void)
{
    return 1;
}

int dist_rank(void)
{
    return 0;
}

void dist_set_running(int running)
{
    (void)running;
}

void dist_wait_end(const char *why)
{
    (void)why;
}

int dist_send_item(int rank, long idx, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    SS_FATAL("dist_send_item(%d, %ld) without MPI", rank, idx);
}

int dist_poll_result(int *rank, const void **data, size_t *len)
{
    (void)rank;
    (void)data;
    (void)len;
    return 0;
}

int dist_next_item(long *idx)
{
    (void)idx;
    return 0;
}

void dist_send_result(const void *data, size_t len)
{
    (void)data;
    SS_FATAL("dist_send_result(%zu bytes) without MPI", len);
}

#endif
