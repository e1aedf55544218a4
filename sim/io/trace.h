/*
 * trace — readers for request traces: `azure-llm`, `openb` and `sharesim` CSV files.
 *
 * A reader is opened on a file, yields one record per row in arrival order through
 * tr_next(), and is closed. Invariants:
 *  - Streaming: azure-llm and sharesim files are read a line at a time through one fixed
 *    buffer of TR_LINE_MAX bytes, so a reader's memory does not depend on the file's length
 *    (tr_mem_bytes() reports it). openb is the one exception: pod lists are published
 *    unsorted (openb_pod_list_gpushare100.csv has 3,530 inversions), so the whole list is read
 *    at open, validated and stably sorted by creation_time (ties keep file order). Pod lists
 *    are small (8,152 pods); more than TR_OPENB_MAX_PODS is an error.
 *  - Records come out with non-decreasing time_s. For azure-llm and sharesim a time that goes
 *    backwards is an error naming the line; nothing is reordered or skipped.
 *  - Every input error names the file, the 1-based line and column, the field, and what was
 *    expected: "path:LINE:COL: field \"NAME\": expected ..., got \"...\"". Bad rows are never
 *    skipped.
 *
 * Times: time_s is in seconds. For azure-llm and openb it counts from the first record (the
 * first arrival is at 0); for sharesim it is the file's own time_s column (the file defines
 * its origin, so a trace written by `trace gen` replays unchanged). Then time_s is multiplied
 * by opts.time_scale: time_scale = 2 doubles every inter-arrival time (the trace runs twice
 * as slow, at half the rate); 0.5 replays it twice as fast.
 */
#ifndef SS_TRACE_H
#define SS_TRACE_H

#include <stddef.h>

/* Longest accepted line, in bytes, without its line ending. */
#define TR_LINE_MAX 65536
/*
 * The largest token count a row may give (input and output each): 2^40, about 10^5 times the
 * longest context window any published model has (10^7 tokens), so no real request comes near
 * it, while a request's tokens, their sum, its KV blocks and its work in seconds
 * (prefill × tokens) stay exact in 64-bit integers and doubles (< 2^53). Counts are 64-bit
 * end to end (docs/robustness.md#counts-and-their-bounds); a larger value is an error naming
 * the file, line, column, field and this bound.
 */
#define TR_TOKENS_MAX (1LL << 40)
/* An openb pod list is held in memory to be sorted; this bounds it (about 250 MB). */
#define TR_OPENB_MAX_PODS 1000000

enum tr_format { TR_AZURE_LLM, TR_OPENB, TR_SHARESIM };

/* "azure-llm", "openb", "sharesim" → 0 and *fmt; -1 with a message naming the known ones. */
int tr_format_from_name(const char *name, enum tr_format *fmt, char *err, size_t errlen);
const char *tr_format_name(enum tr_format fmt);

struct tr_opts {
    double time_scale; /* multiplies every time_s (so every inter-arrival gap); > 0; 0 means 1 */
    long long limit;   /* stop after this many records; 0 = all */
};

/* Fields of one openb pod, as published (times in seconds on the trace's own clock). */
struct tr_pod {
    char name[64];            /* "" if the column is absent */
    long long cpu_milli;      /* -1 if the column is absent */
    long long memory_mib;     /* -1 if the column is absent */
    int num_gpu;              /* whole GPUs requested, >= 0 */
    int gpu_milli;            /* per-GPU share in thousandths, 0..1000 (< 1000: GPU sharing) */
    char gpu_spec[64];        /* allowed GPU models joined by '|'; "" = any */
    char qos[16];             /* LS, BE, Burstable, Guaranteed…; "" if absent */
    char pod_phase[16];       /* Running, Pending, Failed, Succeeded; "" if absent */
    long long creation_time;  /* seconds */
    long long deletion_time;  /* seconds, >= creation_time */
    long long scheduled_time; /* seconds; -1 if empty (never scheduled) or absent */
};

struct tr_record {
    double time_s;           /* arrival, see the top of this file */
    double work_ms;          /* service time on one whole GPU; NaN if the trace has none */
    long long input_tokens;  /* prompt (context) tokens; -1 if absent */
    long long output_tokens; /* generated tokens; -1 if absent */
    long line;               /* 1-based line of the row in the file, for the caller's messages */
    struct tr_pod pod;       /* openb only; zeroed for other formats */
};

struct tr_reader;

/*
 * Opens path and checks its header (columns by name, in any order; a missing required column,
 * a duplicate or an unknown one is an error). opts may be NULL for the defaults. For openb the
 * whole file is read and sorted here, so its row errors are reported by tr_open. NULL on error.
 */
struct tr_reader *tr_open(const char *path, enum tr_format fmt, const struct tr_opts *opts,
                          char *err, size_t errlen);
/*
 * tr_open, and with TR_OPEN_OPENB_UNTIMED in flags an openb pod list with neither
 * creation_time nor deletion_time is accepted too (the FGD simulator's multi-GPU variants
 * have only name and the four resource columns): its pods all have times 0 and come out in
 * file order, and tr_openb_timed() says 0. Only the cluster simulator asks for it;
 * a replay of requests needs their times.
 */
enum { TR_OPEN_OPENB_UNTIMED = 1 };
struct tr_reader *tr_open_flags(const char *path, enum tr_format fmt, const struct tr_opts *opts,
                                unsigned flags, char *err, size_t errlen);
/*
 * tr_open requires a regular file (anything else is an error, found without blocking): a
 * replayed trace is read when the scenario loads and again by every replication, and a FIFO
 * read twice would hang. A caller that reads the file once (trace stats) may open a FIFO or
 * another stream with this.
 */
struct tr_reader *tr_open_once(const char *path, enum tr_format fmt, const struct tr_opts *opts,
                               char *err, size_t errlen);

/*
 * Next record in arrival order: 1 = *rec filled, 0 = end of trace (or of opts.limit),
 * -1 = error in err. After 0 or -1 further calls return the same. A file with a header and no
 * rows is an error (a trace without requests is a mistake, not an empty workload).
 */
int tr_next(struct tr_reader *r, struct tr_record *rec, char *err, size_t errlen);

/* Which optional request columns the file has: a mask of TR_COL_* (azure-llm: both tokens). */
enum { TR_COL_WORK_MS = 1, TR_COL_INPUT_TOKENS = 2, TR_COL_OUTPUT_TOKENS = 4 };
unsigned tr_columns(const struct tr_reader *r);
/* openb: 1 when the list has creation_time and deletion_time (always, unless opened with
 * TR_OPEN_OPENB_UNTIMED); 0 for the other formats. */
int tr_openb_timed(const struct tr_reader *r);

/* Bytes the reader owns on the heap: constant for the streamed formats, whatever the length. */
size_t tr_mem_bytes(const struct tr_reader *r);

void tr_close(struct tr_reader *r);

#endif
