/*
 * util — small shared helpers: error messages, invariant checks, whole-file
 * reads with a size limit, and atomic output files (write to a temporary file in
 * the same directory, rename on success, remove on failure — so no command ever
 * leaves a half-written result behind).
 */
#ifndef SS_UTIL_H
#define SS_UTIL_H

#include <stddef.h>
#include <stdio.h>

#define SS_ERRLEN 1024

/* Exit codes of the contract (docs/scenario.md). */
enum { SS_EXIT_OK = 0, SS_EXIT_INFEASIBLE = 1, SS_EXIT_BADINPUT = 2 };
/* The version printed by --version and recorded in every result document. */
#define SHARESIM_VERSION "0.1.0"

/* Formats into err (may be NULL); always returns -1 so callers can `return ss_errf(...)`. */
int ss_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A rare path (a card fault, a reset): the compiler keeps it out of line, so inlining it does
 * not cost the policy's per-event function its registers (measured: the time-slicing
 * policy's event dispatch ran 16 instructions an event with the card handlers inlined). */
#define SS_COLD __attribute__((cold, noinline))
/* Kept out of line on a hot path: a dispatcher that inlines all of its handlers saves every
 * callee-saved register on entry whichever handler runs (see tsunit.c's ts_event). */
#define SS_NOINLINE __attribute__((noinline))

/* An invariant violated is a bug: abort with file:line and the message. */
void ss_fatal(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
#define SS_FATAL(...) ss_fatal(__FILE__, __LINE__, __VA_ARGS__)
#define SS_ASSERT(cond)                                                                            \
    do {                                                                                           \
        if (!(cond))                                                                               \
            SS_FATAL("assertion failed: %s", #cond);                                               \
    } while (0)

void *ss_xmalloc(size_t n);
void *ss_xcalloc(size_t n, size_t size);
void *ss_xrealloc(void *p, size_t n);
/* Appends printf-formatted text to the string in buf (cap bytes in all), cut to fit. */
void ss_catf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
char *ss_xstrdup(const char *s);

/* Reads a whole file (NUL-terminated) of at most max_bytes; -1 with a message otherwise.
 * The file is noted as an input (ss_in_note), so no output of this process replaces it. */
int ss_read_file(const char *path, size_t max_bytes, char **out, size_t *len, char *err,
                 size_t errlen);
/* The same without noting: for files a command reads back from its own outputs (a sweep's
 * point files), which it may rewrite. */
int ss_read_file_own(const char *path, size_t max_bytes, char **out, size_t *len, char *err,
                     size_t errlen);

/*
 * Inputs of this process (the scenario, its profile and traces: files whose loss a result
 * written over them would be). ss_out_open refuses an output that is the same file (same
 * device and inode, so links and other spellings count) as one of them. Noting a file that
 * does not exist or is not a regular file does nothing.
 */
void ss_in_note(const char *path);
/* The i-th noted input as it was spelt, or NULL past the last (cli/outplan.c checks a
 * command's outputs against them before any work). */
const char *ss_in_nth(size_t i);
/* Forgets every noted input (for tests that reuse files in one process). */
void ss_in_forget_all(void);

/*
 * Output files, never half-written and never clobbering what they must not:
 *  - "-" is stdout; its write errors (a full disk, a closed pipe) are reported by commit;
 *  - a regular file (or a new one) is written to a temporary in the target's directory and
 *    renamed over it on commit, keeping the old file's permission bits; a symbolic link is
 *    followed (the file it points to is replaced, not the link); the temporary is named
 *    TARGET.tmp.<pid>, shortened when that would pass the 255-byte name limit;
 *  - an existing device (character), FIFO or socket is written in place: renaming over it
 *    would replace the node (as root, --json /dev/null would replace the system's); a
 *    directory or a block device is refused;
 *  - a target that is a noted input is refused (run s.json --json s.json).
 */
/* mkdir -p: dir and its missing parents; an existing directory is fine. 0, or -1 with err
 * (a component that exists and is not a directory, no permission). */
int ss_mkdirs(const char *dir, char *err, size_t errlen);

struct ss_out {
    FILE *fp;
    char *path;   /* as given, for messages */
    char *target; /* what the temporary is renamed to: path, or the file a link points to */
    char *tmp;    /* NULL when written in place (stdout, a device, a FIFO) */
    int is_stdout;
};
int ss_out_open(struct ss_out *o, const char *path, char *err, size_t errlen);
/*
 * An output that is an entry of directory dir (the --k8s folder): nothing at dir/name is
 * followed. The temporary is created with O_CREAT|O_EXCL|O_NOFOLLOW next to it and renamed
 * over dir/name on commit, so a symbolic link found there is replaced by the file and what it
 * pointed to is untouched; a directory, device, FIFO or socket there is refused. dir itself
 * is resolved as usual (a link the user named as the folder is fine). name must not hold '/'.
 */
int ss_out_open_entry(struct ss_out *o, const char *dir, const char *name, char *err,
                      size_t errlen);
int ss_out_commit(struct ss_out *o, char *err, size_t errlen); /* fclose + rename */
void ss_out_abort(struct ss_out *o);                           /* fclose + unlink */
/* Removes every open temporary file; safe from a signal handler (unlink only). */
void ss_out_abort_all_signal_safe(void);
/* In a forked child: forgets the temporaries inherited from the parent without removing
 * them (they are the parent's to commit), so the child's handler removes only its own. */
void ss_out_forget_inherited(void);

/* True when the file name ends with the suffix. */
int ss_ends_with(const char *s, const char *suffix);

#endif
