/*
 * dist — the MPI transport under the worker pool (tools/pool.h, docs/distributed.md).
 *
 * The pool is the only user: it runs the same items over MPI ranks as over forked
 * workers. Rank 0 is the pool's parent (it dispatches, gathers and writes); every other
 * rank only runs the items rank 0 sends and sends back the result bytes. Nothing here
 * knows what an item or a result is: indices go down, opaque byte strings come up.
 *
 * MPI is initialised only when the process was started by an MPI launcher (Open MPI's
 * mpirun/mpiexec set OMPI_COMM_WORLD_SIZE, srun --mpi=pmix sets PMIX_RANK), on the first
 * call of dist_size() or dist_rank(). A plain `sharesim …` never touches MPI, so it starts
 * as fast as ever, forks freely and runs under ASan and valgrind without Open MPI's
 * start-up and its unfreed memory. SHARESIM_MPI=0 keeps MPI off even under a launcher.
 * Built without MPI (make MPI=0), every process is rank 0 of 1.
 *
 * A process forked by a rank (a pool worker) is not a rank: there dist_size() is 1.
 *
 * Exit. Rank 0 sends every other rank "the program is over" when it exits, and each of
 * them waits for that word before MPI_Finalize, so a rank 0 that stops early (bad input
 * found only on rank 0, say) still ends the job cleanly with its own exit code. A rank
 * that exits while a pool run is in progress skips MPI_Finalize: the launcher sees a rank
 * die and ends the job (docs/distributed.md says what Open MPI allows there).
 */
#ifndef SS_DIST_H
#define SS_DIST_H

#include <stddef.h>

/* Ranks in this run (1 without a launcher) and this process's rank (0 without one). */
int dist_size(void);
int dist_rank(void);

/*
 * Rank 0: sends rank `rank` item idx, or idx = -1: "this pool run is over". 0, or -1 with
 * MPI's message when the send fails (errors are returned, not fatal: the pool then fails
 * the item naming the rank; whether a send to a dead rank fails at all depends on the
 * transport, see docs/distributed.md).
 */
int dist_send_item(int rank, long idx, char *err, size_t errlen);

/*
 * Rank 0: a result that has arrived, without waiting: 1 with the sender in *rank and its
 * bytes in *data and *len (valid until the next call), 0 when none has.
 */
int dist_poll_result(int *rank, const void **data, size_t *len);

/*
 * Rank > 0: waits for rank 0's next word: 1 with an item in *idx, 0 when this pool run is
 * over, or when the whole program is (rank 0 exited; every later call returns 0 at once).
 * Waiting sleeps in short steps rather than spinning, so an idle rank leaves its core to
 * the others (ranks are often oversubscribed on a workstation).
 */
int dist_next_item(long *idx);

/* Rank > 0: sends rank 0 the result of an item. */
void dist_send_result(const void *data, size_t len);

/*
 * Rank > 0, outside a pool run: waits for rank 0's "the program is over" (at exit, and from
 * pool_rank_stopped). An item that comes instead was sent to a rank that stopped before the
 * pool run rank 0 is in (its command failed here only: an input file that this node reads
 * differently, say). It cannot be run, so the rank prints why (`why`, or that it stopped)
 * and ends at once without MPI_Finalize: the launcher then ends the job, and rank 0's
 * signal handler names the item. Without MPI, or on rank 0, it returns at once.
 */
void dist_wait_end(const char *why);

/* Marks the pool run in progress (1) or over (0): an exit in between is a rank's death. */
void dist_set_running(int running);

/* Short sleep with back-off for a polling loop: step 0, 1, 2, … sleeps 20 µs doubling to 1 ms. */
void dist_backoff(int step);

#endif
