/*
 * fuzz_trace — libFuzzer target for one trace reader. The format is fixed at compile time
 * (FUZZ_TRACE_FORMAT, a name tr_format_from_name knows), so each format gets its own binary,
 * corpus and run time: fuzz_trace_azure, fuzz_trace_openb, fuzz_trace_sharesim.
 *
 * The bytes are written to a memfd (no disk traffic, nothing to clean up) and read back through
 * its /proc/self/fd path with tr_open/tr_next until the end or an error, as the CLI does.
 * Invariants checked on every record (a violation aborts, reported as a crash):
 *  - time_s is finite, >= 0 and non-decreasing;
 *  - work_ms is NaN (absent) or finite and >= 0 (0: a request that needs no GPU time);
 *    token counts are -1 (absent) or >= 0;
 *  - an error has a non-empty message naming the file, and tr_next repeats it afterwards;
 *  - after the end tr_next keeps returning 0.
 * The input is the whole file, so a corpus file is a plain trace (`sharesim trace stats` reads
 * it as is).
 */
#define _GNU_SOURCE
#include "io/trace.h"
#include "base/util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef FUZZ_TRACE_FORMAT
#error "compile with -DFUZZ_TRACE_FORMAT='\"azure-llm\"' (or openb, sharesim)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];
static enum tr_format fmt;

static void setup(void)
{
    char err[SS_ERRLEN];
    if (tr_format_from_name(FUZZ_TRACE_FORMAT, &fmt, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    fd = memfd_create("fuzz-trace", 0);
    if (fd < 0) {
        perror("memfd_create");
        abort();
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
}

static void put(const uint8_t *data, size_t size)
{
    if (ftruncate(fd, 0) != 0)
        abort();
    size_t off = 0;
    while (off < size) {
        ssize_t n = pwrite(fd, data + off, size - off, (off_t)off);
        if (n <= 0)
            abort();
        off += (size_t)n;
    }
}

static void check_record(const struct tr_record *rec, double *prev)
{
    if (!isfinite(rec->time_s) || rec->time_s < 0 || rec->time_s < *prev)
        abort();
    if (!isnan(rec->work_ms) && !(isfinite(rec->work_ms) && rec->work_ms >= 0))
        abort();
    if (rec->input_tokens < -1 || rec->output_tokens < -1 || rec->line < 2)
        abort();
    *prev = rec->time_s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fd < 0)
        setup();
    put(data, size);
    char err[SS_ERRLEN] = "";
    struct tr_reader *r = tr_open(path, fmt, NULL, err, sizeof err);
    if (!r) {
        if (!err[0] || !strstr(err, path))
            abort();
        return 0;
    }
    struct tr_record rec;
    double prev = -INFINITY;
    int rc;
    while ((rc = tr_next(r, &rec, err, sizeof err)) == 1)
        check_record(&rec, &prev);
    if (rc == -1) {
        if (!err[0] || !strstr(err, path))
            abort();
        char again[SS_ERRLEN];
        if (tr_next(r, &rec, again, sizeof again) != -1 || strcmp(again, err) != 0)
            abort();
    } else if (rc != 0 || tr_next(r, &rec, err, sizeof err) != 0) {
        abort();
    }
    tr_close(r);
    return 0;
}
