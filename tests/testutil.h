/*
 * testutil — shared helpers for the CUnit suites: temporary directories and
 * files, and running the `sharesim` CLI under test ($SHARESIM, set by the Makefile)
 * to check exit codes, messages and files end to end.
 */
#ifndef SS_TESTUTIL_H
#define SS_TESTUTIL_H

#include <CUnit/CUnit.h>
#include <stddef.h>

/* Adds a suite with the given tests ({name, fn}, NULL-terminated). */
struct tu_test {
    const char *name;
    CU_TestFunc fn;
};
void tu_add_suite(const char *name, const struct tu_test *tests);

/* A fresh temporary directory (removed at exit); returns its path. */
const char *tu_tmpdir(void);
/* Writes text to <tmpdir>/<name>; returns the full path (static buffer per call slot). */
char *tu_write(const char *name, const char *text);

/*
 * Runs `$SHARESIM <args>` through /bin/sh; captures stdout and stderr (each
 * truncated to cap bytes, NUL-terminated; either may be NULL). Returns the exit code.
 */
int tu_cli(const char *args, char *out, size_t outcap, char *errbuf, size_t errcap);

/* True if the file exists. */
int tu_exists(const char *path);
/* Reads a whole file; caller frees; NULL if missing. */
char *tu_slurp(const char *path);
/* Path of the repository root (tests run from it). */
const char *tu_root(void);
/* True when running under sanitizers (SHARESIM_SANITIZED=1): long runs are scaled down. */
int tu_sanitized(void);
/* True under `make test-valgrind` (SHARESIM_UNDER_VALGRIND=1): every CLI runs ~50× slower,
 * so end-to-end runs of whole grids are left to the normal and ASan builds. */
int tu_under_valgrind(void);

#define TU_CHECK_CLOSE_REL(actual, expected, rel)                                                  \
    do {                                                                                           \
        double a_ = (actual), e_ = (expected);                                                     \
        if (!(fabs(a_ - e_) <= (rel)*fabs(e_)))                                                    \
            fprintf(stderr, "\n  %s:%d: %s = %.6g, expected %.6g (±%.2g%%)\n", __FILE__, __LINE__, \
                    #actual, a_, e_, 100.0 * (rel));                                               \
        CU_ASSERT(fabs(a_ - e_) <= (rel)*fabs(e_));                                                \
    } while (0)

#endif
