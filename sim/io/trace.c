/*
 * trace — see trace.h for the contract.
 *
 * Why a hand parser rather than libcsv: there are three formats with at most eleven columns,
 * none of the published files quotes a field (checked: no '"' in any of them, so a quote is
 * reported as unsupported rather than half-handled), and what matters is (1) exact line and
 * column positions in every message, (2) a fixed buffer so memory does not grow with the file,
 * and (3) strict number parsing (no "nan", "inf", hex, trailing junk or silent overflow).
 * libcsv would give us quoting we do not need and take away the positions.
 *
 * Lines: the buffer holds 2 * TR_LINE_MAX bytes, so after moving a partial line to the front
 * there is always room for a whole line; a line with no newline within TR_LINE_MAX (+1 for a
 * '\r') bytes is an error. Accepted: LF or CRLF endings (the Azure files are CRLF with no final
 * newline), a UTF-8 BOM on line 1, spaces around fields, and blank lines at the end only.
 *
 * Azure timestamps are converted to integer 100-ns ticks with a proleptic Gregorian day count
 * and no time zone (the file has none; going through mktime/localtime would shift by the
 * machine's zone and DST). Differences are taken in ticks, exact, then divided by 1e7 once.
 */
#include "io/trace.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define TR_BUF_BYTES (2 * TR_LINE_MAX)
#define TR_MAX_COLS 32 /* in a header; every format has fewer, so more is an error */
#define TR_GOT_MAX 40  /* bytes of an offending value quoted in a message */

/* Where a parsed field goes. */
enum slot {
    S_TIMESTAMP,
    S_TIME_S,
    S_WORK_MS,
    S_INPUT,
    S_OUTPUT,
    S_NAME,
    S_CPU,
    S_MEM,
    S_NUM_GPU,
    S_GPU_MILLI,
    S_GPU_SPEC,
    S_QOS,
    S_PHASE,
    S_CREATION,
    S_DELETION,
    S_SCHEDULED,
};

struct col_spec {
    const char *name;
    enum slot slot;
    int required;
};

static const struct col_spec azure_cols[] = {
    {"TIMESTAMP", S_TIMESTAMP, 1},
    {"ContextTokens", S_INPUT, 1},
    {"GeneratedTokens", S_OUTPUT, 1},
    {NULL, 0, 0},
};

static const struct col_spec sharesim_cols[] = {
    {"time_s", S_TIME_S, 1},
    {"work_ms", S_WORK_MS, 0},
    {"input_tokens", S_INPUT, 0},
    {"output_tokens", S_OUTPUT, 0},
    {NULL, 0, 0},
};

static const struct col_spec openb_cols[] = {
    {"name", S_NAME, 0},
    {"cpu_milli", S_CPU, 0},
    {"memory_mib", S_MEM, 0},
    {"num_gpu", S_NUM_GPU, 1},
    {"gpu_milli", S_GPU_MILLI, 1},
    {"gpu_spec", S_GPU_SPEC, 0},
    {"qos", S_QOS, 0},
    {"pod_phase", S_PHASE, 0},
    {"creation_time", S_CREATION, 1},
    {"deletion_time", S_DELETION, 1},
    {"scheduled_time", S_SCHEDULED, 0},
    {NULL, 0, 0},
};

static const struct {
    const char *name;
    const struct col_spec *cols;
} formats[] = {
    [TR_AZURE_LLM] = {"azure-llm", azure_cols},
    [TR_OPENB] = {"openb", openb_cols},
    [TR_SHARESIM] = {"sharesim", sharesim_cols},
};

/* One field of the current line: NUL-terminated in the line buffer, col is 1-based. */
struct field {
    char *s;
    size_t len;
    long col;
};

/* An openb row kept for sorting. */
struct pod_row {
    struct tr_pod pod;
    long line;
};

/* A parsed row before format-specific checks. */
struct row {
    long long ticks;
    double time_s;
    double work_ms;
    long long input_tokens, output_tokens;
    struct tr_pod pod;
    long time_col, deletion_col; /* for messages about the row as a whole */
};

struct tr_reader {
    char *path;
    enum tr_format fmt;
    struct tr_opts opts;
    unsigned flags; /* TR_OPEN_* */
    int timed;      /* openb: the header has creation_time (and so deletion_time) */
    const struct col_spec *cols;

    FILE *fp;
    char *buf; /* TR_BUF_BYTES + 1 */
    size_t start, end;
    int eof;
    long line_no;
    long blank_line; /* first blank line not yet followed by a row; 0 if none */

    int ncols;
    const struct col_spec *colmap[TR_MAX_COLS]; /* file column → spec */
    unsigned columns;                           /* TR_COL_* */

    long long count; /* records returned */
    int state;       /* 0 reading, 1 ended, -1 failed */
    char errmsg[SS_ERRLEN];

    int have_prev;
    long long first_ticks, prev_ticks; /* azure-llm */
    double prev_time_s;                /* sharesim, as in the file */

    struct pod_row *pods; /* openb: sorted at open */
    size_t npods, pods_cap, pod_next;
};

const char *tr_format_name(enum tr_format fmt)
{
    SS_ASSERT(fmt >= TR_AZURE_LLM && fmt <= TR_SHARESIM);
    return formats[fmt].name;
}

int tr_format_from_name(const char *name, enum tr_format *fmt, char *err, size_t errlen)
{
    for (int f = TR_AZURE_LLM; f <= TR_SHARESIM; f++)
        if (strcmp(name, formats[f].name) == 0) {
            *fmt = (enum tr_format)f;
            return 0;
        }
    return ss_errf(err, errlen,
                   "unknown trace format \"%s\": expected azure-llm, openb or sharesim", name);
}

/* ---- lines ---- */

/*
 * Next line (without its ending, NUL-terminated, a BOM on line 1 skipped) into *line and
 * *len: 1, 0 at end of file, -1 on error. Columns in messages count from after the BOM.
 */
static int next_line(struct tr_reader *r, char **line, size_t *len, char *err, size_t errlen)
{
    char *nl;
    for (;;) {
        nl = memchr(r->buf + r->start, '\n', r->end - r->start);
        if (nl || r->eof)
            break;
        if (r->end - r->start > TR_LINE_MAX + 1)
            return ss_errf(err, errlen, "%s:%ld:%d: line longer than %d bytes: expected a CSV row",
                           r->path, r->line_no + 1, TR_LINE_MAX + 1, TR_LINE_MAX);
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
        size_t got = fread(r->buf + r->end, 1, TR_BUF_BYTES - r->end, r->fp);
        if (got == 0) {
            if (ferror(r->fp))
                return ss_errf(err, errlen, "%s:%ld:1: read error", r->path, r->line_no + 1);
            r->eof = 1;
        }
        r->end += got;
    }
    if (!nl && r->start == r->end)
        return 0;
    char *s = r->buf + r->start;
    size_t n = nl ? (size_t)(nl - s) : r->end - r->start;
    r->start += n + (nl ? 1 : 0);
    r->line_no++;
    if (n > 0 && s[n - 1] == '\r')
        n--;
    if (n > TR_LINE_MAX)
        return ss_errf(err, errlen, "%s:%ld:%d: line longer than %d bytes: expected a CSV row",
                       r->path, r->line_no, TR_LINE_MAX + 1, TR_LINE_MAX);
    s[n] = '\0'; /* the '\r', the '\n' or the spare byte after the buffer's data */
    if (r->line_no == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
        s += 3;
        n -= 3;
    }
    char *nul = memchr(s, '\0', n);
    if (nul)
        return ss_errf(err, errlen, "%s:%ld:%ld: NUL byte: expected text (is this a binary file?)",
                       r->path, r->line_no, (long)(nul - s) + 1);
    *line = s;
    *len = n;
    return 1;
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            return 0;
    return 1;
}

/*
 * Splits line at commas into at most max fields, trimming spaces and tabs. Returns the
 * number of fields, or -1 (with a message) for more than max or a quoted field. The header
 * is split before r->ncols is set, which is how the message tells the two apart.
 */
static int split(struct tr_reader *r, char *line, struct field *f, int max, char *err,
                 size_t errlen)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *start = p;
        while (*p && *p != ',')
            p++;
        char *stop = p;
        int last = (*p == '\0');
        if (n == max && r->ncols == 0)
            return ss_errf(err, errlen, "%s:%ld:%ld: more than %d columns in the header", r->path,
                           r->line_no, (long)(start - line) + 1, max);
        if (n == max)
            return ss_errf(err, errlen, "%s:%ld:%ld: more fields than the header's %d", r->path,
                           r->line_no, (long)(start - line) + 1, max);
        while (start < stop && (*start == ' ' || *start == '\t'))
            start++;
        while (stop > start && (stop[-1] == ' ' || stop[-1] == '\t'))
            stop--;
        if (start < stop && *start == '"')
            return ss_errf(err, errlen,
                           "%s:%ld:%ld: quoted field: expected a plain value (the published "
                           "traces have no quotes, so quoting is not supported)",
                           r->path, r->line_no, (long)(start - line) + 1);
        *stop = '\0';
        f[n].s = start;
        f[n].len = (size_t)(stop - start);
        f[n].col = (long)(start - line) + 1;
        n++;
        if (last)
            break;
        p++;
    }
    return n;
}

/* ---- values ---- */

/*
 * The first TR_GOT_MAX bytes of s for a message, with anything but printable ASCII written as
 * \xNN: a stray '\r', a BOM or a NUL in mid-line is otherwise invisible in the message.
 */
struct shown {
    char s[4 * TR_GOT_MAX + 8];
};

static struct shown show(const char *s, size_t len)
{
    struct shown o;
    size_t k = 0;
    for (size_t i = 0; i < len && i < TR_GOT_MAX; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f)
            o.s[k++] = (char)c;
        else
            k += (size_t)snprintf(o.s + k, sizeof o.s - k, "\\x%02X", c);
    }
    if (len > TR_GOT_MAX)
        k += (size_t)snprintf(o.s + k, sizeof o.s - k, "...");
    o.s[k] = '\0';
    return o;
}

static int bad_value(const struct tr_reader *r, const struct field *f, const char *name,
                     const char *expected, char *err, size_t errlen)
{
    if (f->len == 0)
        return ss_errf(err, errlen, "%s:%ld:%ld: field \"%s\": expected %s, got an empty field",
                       r->path, r->line_no, f->col, name, expected);
    return ss_errf(err, errlen, "%s:%ld:%ld: field \"%s\": expected %s, got \"%s\"", r->path,
                   r->line_no, f->col, name, expected, show(f->s, f->len).s);
}

/* A decimal integer in [lo, hi]; digits only (with an optional '-'), no overflow. */
static int parse_int(const struct tr_reader *r, const struct field *f, const char *name,
                     long long lo, long long hi, const char *expected, long long *out, char *err,
                     size_t errlen)
{
    const char *p = f->s;
    int neg = (*p == '-');
    if (neg)
        p++;
    if (!*p)
        return bad_value(r, f, name, expected, err, errlen);
    unsigned long long v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return bad_value(r, f, name, expected, err, errlen);
        unsigned d = (unsigned)(*p - '0');
        if (v > (ULLONG_MAX - d) / 10 || v * 10 + d > (unsigned long long)LLONG_MAX + neg)
            return ss_errf(err, errlen,
                           "%s:%ld:%ld: field \"%s\": expected %s, got \"%s\" which overflows",
                           r->path, r->line_no, f->col, name, expected, show(f->s, f->len).s);
        v = v * 10 + d;
    }
    long long x =
        neg ? (v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v) : (long long)v;
    if (x < lo || x > hi)
        return bad_value(r, f, name, expected, err, errlen);
    *out = x;
    return 0;
}

/* A token count in [0, TR_TOKENS_MAX]: a value above the bound is named as such (a plain
 * "expected an integer >= 0" would leave the reader guessing why 2^41 is refused). */
static int parse_tokens(const struct tr_reader *r, const struct field *f, const char *name,
                        long long *out, char *err, size_t errlen)
{
    long long v;
    if (parse_int(r, f, name, 0, LLONG_MAX, "a token count (integer >= 0)", &v, err, errlen))
        return -1;
    if (v > TR_TOKENS_MAX)
        return ss_errf(err, errlen,
                       "%s:%ld:%ld: field \"%s\": expected a token count (integer >= 0) of at "
                       "most %lld (TR_TOKENS_MAX), got \"%s\"",
                       r->path, r->line_no, f->col, name, (long long)TR_TOKENS_MAX,
                       show(f->s, f->len).s);
    *out = v;
    return 0;
}

/*
 * A finite decimal number (digits, sign, '.', exponent only: "nan", "inf" and hex floats are
 * refused before strtod sees them) that is at least lo (strictly above lo if open).
 */
static int parse_num(const struct tr_reader *r, const struct field *f, const char *name, double lo,
                     int open, const char *expected, double *out, char *err, size_t errlen)
{
    if (f->len == 0 || strspn(f->s, "0123456789+-.eE") != f->len || !strpbrk(f->s, "0123456789"))
        return bad_value(r, f, name, expected, err, errlen);
    char *end;
    errno = 0;
    double x = strtod(f->s, &end);
    if (*end != '\0')
        return bad_value(r, f, name, expected, err, errlen);
    if (!isfinite(x))
        return ss_errf(err, errlen,
                       "%s:%ld:%ld: field \"%s\": expected %s, got \"%s\" which overflows a "
                       "double",
                       r->path, r->line_no, f->col, name, expected, show(f->s, f->len).s);
    if (x < lo || (open && x == lo))
        return bad_value(r, f, name, expected, err, errlen);
    *out = x;
    return 0;
}

static int parse_text(const struct tr_reader *r, const struct field *f, const char *name, char *dst,
                      size_t cap, char *err, size_t errlen)
{
    if (f->len >= cap)
        return ss_errf(err, errlen,
                       "%s:%ld:%ld: field \"%s\": expected at most %zu characters, got %zu",
                       r->path, r->line_no, f->col, name, cap - 1, f->len);
    memcpy(dst, f->s, f->len + 1);
    return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
static long long days_from_civil(long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

/* n digits at p as a number, or -1 if any is not a digit. */
static int digits(const char *p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

/* "YYYY-MM-DD HH:MM:SS[.f{1,7}]" (or 'T' for the space), no zone → 100-ns ticks since 1970. */
static int parse_timestamp(const struct tr_reader *r, const struct field *f, long long *ticks,
                           char *err, size_t errlen)
{
    static const char *expected = "a timestamp like 2023-11-16 18:17:03.9799600 (no time zone)";
    static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *s = f->s;
    if (f->len < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
        s[13] != ':' || s[16] != ':')
        return bad_value(r, f, "TIMESTAMP", expected, err, errlen);
    int y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
    int h = digits(s + 11, 2), mi = digits(s + 14, 2), sec = digits(s + 17, 2);
    if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || sec < 0)
        return bad_value(r, f, "TIMESTAMP", expected, err, errlen);
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo < 1 || mo > 12 || d < 1 || (unsigned)d > mdays[mo - 1] + (mo == 2 && leap) || h > 23 ||
        mi > 59 || sec > 59)
        return bad_value(r, f, "TIMESTAMP", "a valid calendar date and time (no leap seconds)", err,
                         errlen);
    long long frac = 0;
    size_t i = 19;
    if (i < f->len) {
        if (s[i] != '.')
            return bad_value(r, f, "TIMESTAMP", expected, err, errlen);
        size_t nd = 0;
        for (i++; i < f->len && s[i] >= '0' && s[i] <= '9'; i++, nd++)
            if (nd < 7)
                frac = frac * 10 + (s[i] - '0');
        if (nd == 0 || nd > 7 || i != f->len)
            return bad_value(r, f, "TIMESTAMP",
                             nd > 7 ? "at most 7 fractional digits (100-ns ticks)" : expected, err,
                             errlen);
        for (; nd < 7; nd++)
            frac *= 10;
    }
    long long secs =
        days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec;
    *ticks = secs * 10000000LL + frac;
    return 0;
}

/* ---- rows ---- */

static int parse_field(struct tr_reader *r, const struct col_spec *c, const struct field *f,
                       struct row *row, char *err, size_t errlen)
{
    const char *n = c->name;
    long long v;
    switch (c->slot) {
    case S_TIMESTAMP:
        return parse_timestamp(r, f, &row->ticks, err, errlen);
    case S_TIME_S:
        return parse_num(r, f, n, 0, 0, "a finite number of seconds >= 0", &row->time_s, err,
                         errlen);
    case S_WORK_MS:
        /* 0 is a request that needs no GPU time (real traces have them: requests still
         * pending when the log was cut are logged with duration 0); it still queues. */
        return parse_num(r, f, n, 0, 0, "a finite number of milliseconds >= 0", &row->work_ms, err,
                         errlen);
    case S_INPUT:
        return parse_tokens(r, f, n, &row->input_tokens, err, errlen);
    case S_OUTPUT:
        return parse_tokens(r, f, n, &row->output_tokens, err, errlen);
    case S_NAME:
        return parse_text(r, f, n, row->pod.name, sizeof row->pod.name, err, errlen);
    case S_CPU:
        return parse_int(r, f, n, 0, LLONG_MAX, "CPU in thousandths (integer >= 0)",
                         &row->pod.cpu_milli, err, errlen);
    case S_MEM:
        return parse_int(r, f, n, 0, LLONG_MAX, "memory in MiB (integer >= 0)",
                         &row->pod.memory_mib, err, errlen);
    case S_NUM_GPU:
        if (parse_int(r, f, n, 0, 1 << 20, "a GPU count (integer >= 0)", &v, err, errlen))
            return -1;
        row->pod.num_gpu = (int)v;
        return 0;
    case S_GPU_MILLI:
        if (parse_int(r, f, n, 0, 1000, "a GPU share in thousandths (integer 0..1000)", &v, err,
                      errlen))
            return -1;
        row->pod.gpu_milli = (int)v;
        return 0;
    case S_GPU_SPEC:
        return parse_text(r, f, n, row->pod.gpu_spec, sizeof row->pod.gpu_spec, err, errlen);
    case S_QOS:
        return parse_text(r, f, n, row->pod.qos, sizeof row->pod.qos, err, errlen);
    case S_PHASE:
        return parse_text(r, f, n, row->pod.pod_phase, sizeof row->pod.pod_phase, err, errlen);
    case S_CREATION:
        return parse_int(r, f, n, 0, LLONG_MAX / 4, "seconds (integer >= 0)",
                         &row->pod.creation_time, err, errlen);
    case S_DELETION:
        return parse_int(r, f, n, 0, LLONG_MAX / 4, "seconds (integer >= 0)",
                         &row->pod.deletion_time, err, errlen);
    case S_SCHEDULED:
        if (f->len == 0) /* pods never scheduled (Pending, some Failed) leave it empty */
            return 0;
        return parse_int(r, f, n, 0, LLONG_MAX / 4, "seconds (integer >= 0) or empty",
                         &row->pod.scheduled_time, err, errlen);
    }
    SS_FATAL("unhandled column slot %d", (int)c->slot);
}

/*
 * Reads the next data row into *row: 1, 0 at the end, -1 on error. Blank lines are accepted
 * only at the end of the file.
 */
static int read_row(struct tr_reader *r, struct row *row, char *err, size_t errlen)
{
    char *line;
    size_t len;
    for (;;) {
        int rc = next_line(r, &line, &len, err, errlen);
        if (rc <= 0)
            return rc;
        if (!is_blank(line))
            break;
        if (!r->blank_line)
            r->blank_line = r->line_no;
    }
    if (r->blank_line)
        return ss_errf(err, errlen,
                       "%s:%ld:1: blank line before more rows (line %ld): expected blank lines "
                       "only at the end of the file",
                       r->path, r->blank_line, r->line_no);
    struct field f[TR_MAX_COLS];
    int n = split(r, line, f, r->ncols, err, errlen);
    if (n < 0)
        return -1;
    if (n < r->ncols)
        return ss_errf(err, errlen, "%s:%ld:%ld: missing field \"%s\": expected %d fields, got %d",
                       r->path, r->line_no, (long)len + 1, r->colmap[n]->name, r->ncols, n);
    memset(row, 0, sizeof *row);
    row->work_ms = NAN;
    row->input_tokens = row->output_tokens = -1;
    row->pod.cpu_milli = row->pod.memory_mib = row->pod.scheduled_time = -1;
    for (int i = 0; i < n; i++) {
        enum slot s = r->colmap[i]->slot;
        if (parse_field(r, r->colmap[i], &f[i], row, err, errlen))
            return -1;
        if (s == S_TIMESTAMP || s == S_TIME_S || s == S_CREATION)
            row->time_col = f[i].col;
        if (s == S_DELETION)
            row->deletion_col = f[i].col;
    }
    return 1;
}

static int read_header(struct tr_reader *r, char *err, size_t errlen)
{
    char *line;
    size_t len;
    char expected[256] = "";
    for (const struct col_spec *c = r->cols; c->name; c++) {
        size_t k = strlen(expected);
        snprintf(expected + k, sizeof expected - k, "%s%s", k ? "," : "", c->name);
    }
    int rc = next_line(r, &line, &len, err, errlen);
    if (rc < 0)
        return -1;
    if (rc == 0 || is_blank(line))
        return ss_errf(err, errlen, "%s:1:1: %s: expected the %s header line \"%s\"", r->path,
                       rc == 0 ? "empty file" : "blank first line", tr_format_name(r->fmt),
                       expected);
    struct field f[TR_MAX_COLS];
    int n = split(r, line, f, TR_MAX_COLS, err, errlen);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        const struct col_spec *c = r->cols;
        while (c->name && strcmp(c->name, f[i].s) != 0)
            c++;
        if (!c->name)
            return ss_errf(
                err, errlen, "%s:1:%ld: unknown column \"%s\": expected one of %s (%s format)",
                r->path, f[i].col, show(f[i].s, f[i].len).s, expected, tr_format_name(r->fmt));
        for (int j = 0; j < i; j++)
            if (r->colmap[j] == c)
                return ss_errf(err, errlen, "%s:1:%ld: column \"%s\" appears twice", r->path,
                               f[i].col, c->name);
        r->colmap[i] = c;
        if (c->slot == S_WORK_MS)
            r->columns |= TR_COL_WORK_MS;
        if (c->slot == S_INPUT)
            r->columns |= TR_COL_INPUT_TOKENS;
        if (c->slot == S_OUTPUT)
            r->columns |= TR_COL_OUTPUT_TOKENS;
        if (c->slot == S_CREATION)
            r->timed = 1;
    }
    r->ncols = n;
    /* An untimed openb list (allowed by the caller) has neither time column; one without
     * the other is still an error, named below. */
    int has_deletion = 0;
    for (int i = 0; i < n; i++)
        has_deletion |= r->colmap[i]->slot == S_DELETION;
    int untimed =
        r->fmt == TR_OPENB && (r->flags & TR_OPEN_OPENB_UNTIMED) && !r->timed && !has_deletion;
    for (const struct col_spec *c = r->cols; c->name; c++) {
        int found = 0;
        for (int i = 0; i < n; i++)
            found |= (r->colmap[i] == c);
        if (untimed && (c->slot == S_CREATION || c->slot == S_DELETION))
            continue;
        if (c->required && !found)
            return ss_errf(
                err, errlen,
                "%s:1:%ld: missing column \"%s\": expected the %s header with columns %s", r->path,
                (long)len + 1, c->name, tr_format_name(r->fmt), expected);
    }
    return 0;
}

/* ---- openb: read all, sort ---- */

static int pod_cmp(const void *a, const void *b)
{
    const struct pod_row *x = a, *y = b;
    if (x->pod.creation_time != y->pod.creation_time)
        return x->pod.creation_time < y->pod.creation_time ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line; /* ties keep file order: a stable sort */
}

static int load_pods(struct tr_reader *r, char *err, size_t errlen)
{
    struct row row;
    int rc;
    while ((rc = read_row(r, &row, err, errlen)) == 1) {
        if (row.pod.deletion_time < row.pod.creation_time)
            return ss_errf(err, errlen,
                           "%s:%ld:%ld: field \"deletion_time\": %lld is before creation_time "
                           "%lld: expected a pod to end after it starts",
                           r->path, r->line_no, row.deletion_col, row.pod.deletion_time,
                           row.pod.creation_time);
        if (r->npods == TR_OPENB_MAX_PODS)
            return ss_errf(err, errlen,
                           "%s:%ld:1: more than %d pods: an openb pod list is sorted in memory, "
                           "expected at most that many",
                           r->path, r->line_no, TR_OPENB_MAX_PODS);
        if (r->npods == r->pods_cap) {
            r->pods_cap = r->pods_cap ? 2 * r->pods_cap : 1024;
            r->pods = ss_xrealloc(r->pods, r->pods_cap * sizeof *r->pods);
        }
        r->pods[r->npods].pod = row.pod;
        r->pods[r->npods].line = r->line_no;
        r->npods++;
    }
    if (rc < 0)
        return -1;
    if (r->npods > 1) /* with no rows pods is NULL, and qsort(NULL, 0, …) is undefined */
        qsort(r->pods, r->npods, sizeof *r->pods, pod_cmp);
    return 0;
}

/* ---- public ---- */

static struct tr_reader *open_reader(const char *path, enum tr_format fmt,
                                     const struct tr_opts *opts, int once, unsigned flags,
                                     char *err, size_t errlen)
{
    if (fmt < TR_AZURE_LLM || fmt > TR_SHARESIM) {
        ss_errf(err, errlen, "%s: invalid trace format %d", path, (int)fmt);
        return NULL;
    }
    struct tr_opts o = {1.0, 0};
    if (opts)
        o = *opts;
    if (o.time_scale == 0)
        o.time_scale = 1.0;
    if (!(o.time_scale > 0) || !isfinite(o.time_scale)) {
        ss_errf(err, errlen, "%s: time_scale %g: expected a finite number > 0", path, o.time_scale);
        return NULL;
    }
    if (o.limit < 0) {
        ss_errf(err, errlen, "%s: limit %lld: expected a count >= 0 (0 = no limit)", path, o.limit);
        return NULL;
    }
    /* Not blocking: a FIFO without a writer would hang the open itself. */
    int fd = open(path, O_RDONLY | (once ? 0 : O_NONBLOCK));
    if (fd < 0) {
        ss_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    const char *kind = fstat(fd, &st) != 0    ? NULL
                       : S_ISDIR(st.st_mode)  ? "a directory"
                       : S_ISREG(st.st_mode)  ? NULL
                       : once                 ? NULL
                       : S_ISFIFO(st.st_mode) ? "a FIFO (pipe)"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    if (kind) {
        /* open succeeds on a directory; the first read would fail with a vague message. */
        close(fd);
        if (S_ISDIR(st.st_mode))
            ss_errf(err, errlen, "%s: is a directory, expected a trace file", path);
        else
            ss_errf(err, errlen,
                    "%s: is %s, expected a regular file: a replayed trace is read when the "
                    "scenario loads and again by every replication (copy it to a file first)",
                    path, kind);
        return NULL;
    }
    if (!once)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        ss_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    struct tr_reader *r = ss_xcalloc(1, sizeof *r);
    r->path = ss_xstrdup(path);
    r->fmt = fmt;
    r->opts = o;
    r->flags = flags;
    r->cols = formats[fmt].cols;
    r->fp = fp;
    r->buf = ss_xmalloc(TR_BUF_BYTES + 1);
    if (read_header(r, err, errlen) || (fmt == TR_OPENB && load_pods(r, err, errlen))) {
        tr_close(r);
        return NULL;
    }
    if (fmt == TR_OPENB) { /* everything is in memory now */
        fclose(r->fp);
        r->fp = NULL;
        free(r->buf);
        r->buf = NULL;
    }
    return r;
}

struct tr_reader *tr_open(const char *path, enum tr_format fmt, const struct tr_opts *opts,
                          char *err, size_t errlen)
{
    return open_reader(path, fmt, opts, 0, 0, err, errlen);
}

struct tr_reader *tr_open_flags(const char *path, enum tr_format fmt, const struct tr_opts *opts,
                                unsigned flags, char *err, size_t errlen)
{
    return open_reader(path, fmt, opts, 0, flags, err, errlen);
}

struct tr_reader *tr_open_once(const char *path, enum tr_format fmt, const struct tr_opts *opts,
                               char *err, size_t errlen)
{
    return open_reader(path, fmt, opts, 1, 0, err, errlen);
}

/* Remembers the first error so that later calls repeat it. */
static int fail(struct tr_reader *r, const char *msg, char *err, size_t errlen)
{
    r->state = -1;
    snprintf(r->errmsg, sizeof r->errmsg, "%s", msg);
    return ss_errf(err, errlen, "%s", msg);
}

static int next_openb(struct tr_reader *r, struct tr_record *rec)
{
    if (r->pod_next == r->npods)
        return 0;
    const struct pod_row *p = &r->pods[r->pod_next++];
    rec->pod = p->pod;
    rec->line = p->line;
    rec->time_s =
        (double)(p->pod.creation_time - r->pods[0].pod.creation_time) * r->opts.time_scale;
    return 1;
}

/* One streamed row into *rec, with the time checks; 1, 0 at end, -1 on error. */
static int next_streamed(struct tr_reader *r, struct tr_record *rec, char *err, size_t errlen)
{
    struct row row;
    int rc = read_row(r, &row, err, errlen);
    if (rc <= 0)
        return rc;
    if (r->fmt == TR_AZURE_LLM) {
        if (!r->have_prev)
            r->first_ticks = r->prev_ticks = row.ticks;
        if (row.ticks < r->prev_ticks)
            return ss_errf(err, errlen,
                           "%s:%ld:%ld: field \"TIMESTAMP\": time goes backwards by %.7f s: "
                           "expected non-decreasing timestamps",
                           r->path, r->line_no, row.time_col,
                           (double)(r->prev_ticks - row.ticks) / 1e7);
        r->prev_ticks = row.ticks;
        rec->time_s = (double)(row.ticks - r->first_ticks) / 1e7 * r->opts.time_scale;
    } else {
        if (r->have_prev && row.time_s < r->prev_time_s)
            return ss_errf(err, errlen,
                           "%s:%ld:%ld: field \"time_s\": time goes backwards (%.17g after "
                           "%.17g): expected non-decreasing times",
                           r->path, r->line_no, row.time_col, row.time_s, r->prev_time_s);
        r->prev_time_s = row.time_s;
        rec->time_s = row.time_s * r->opts.time_scale;
    }
    r->have_prev = 1;
    rec->line = r->line_no;
    rec->work_ms = row.work_ms;
    rec->input_tokens = row.input_tokens;
    rec->output_tokens = row.output_tokens;
    return 1;
}

int tr_next(struct tr_reader *r, struct tr_record *rec, char *err, size_t errlen)
{
    if (r->state < 0) {
        ss_errf(err, errlen, "%s", r->errmsg);
        return -1;
    }
    if (r->state > 0 || (r->opts.limit > 0 && r->count >= r->opts.limit))
        return 0;
    memset(rec, 0, sizeof *rec);
    rec->work_ms = NAN;
    rec->input_tokens = rec->output_tokens = -1;
    char local[SS_ERRLEN];
    int rc = r->fmt == TR_OPENB ? next_openb(r, rec) : next_streamed(r, rec, local, sizeof local);
    if (rc < 0)
        return fail(r, local, err, errlen);
    if (rc == 0) {
        if (r->count == 0) {
            ss_errf(local, sizeof local,
                    "%s:%ld:1: no rows after the header: expected at least one %s", r->path,
                    r->line_no + 1, r->fmt == TR_OPENB ? "pod" : "request");
            return fail(r, local, err, errlen);
        }
        r->state = 1;
        return 0;
    }
    r->count++;
    return 1;
}

unsigned tr_columns(const struct tr_reader *r)
{
    return r->columns;
}

int tr_openb_timed(const struct tr_reader *r)
{
    return r->fmt == TR_OPENB && r->timed;
}

size_t tr_mem_bytes(const struct tr_reader *r)
{
    return sizeof *r + strlen(r->path) + 1 + (r->buf ? TR_BUF_BYTES + 1 : 0) +
           r->pods_cap * sizeof *r->pods;
}

void tr_close(struct tr_reader *r)
{
    if (!r)
        return;
    if (r->fp)
        fclose(r->fp);
    free(r->buf);
    free(r->pods);
    free(r->path);
    free(r);
}
