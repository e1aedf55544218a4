/*
 * util — see util.h. The atomic-output registry is a fixed array so that a
 * signal handler can unlink the temporary files without allocating.
 */
#include "base/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ss_errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void ss_fatal(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "sharesim: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    ss_out_abort_all_signal_safe();
    abort();
}

void *ss_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        SS_FATAL("out of memory allocating %zu bytes", n);
    return p;
}

void *ss_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        SS_FATAL("out of memory allocating %zu x %zu bytes", n, size);
    return p;
}

void *ss_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        SS_FATAL("out of memory reallocating %zu bytes", n);
    return q;
}

char *ss_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = ss_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

int ss_read_file(const char *path, size_t max_bytes, char **out, size_t *len, char *err,
                 size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return ss_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        return ss_errf(err, errlen, "%s: is a directory, expected a file", path);
    }
    size_t cap = 4096, n = 0;
    char *buf = ss_xmalloc(cap + 1);
    for (;;) {
        if (n == cap) {
            if (cap >= max_bytes) {
                free(buf);
                fclose(fp);
                return ss_errf(err, errlen, "%s: file larger than the limit of %zu bytes", path,
                               max_bytes);
            }
            cap = cap * 2 > max_bytes ? max_bytes : cap * 2;
            buf = ss_xrealloc(buf, cap + 1);
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return ss_errf(err, errlen, "%s: read error", path);
    }
    if (n > max_bytes) {
        free(buf);
        return ss_errf(err, errlen, "%s: file larger than the limit of %zu bytes", path, max_bytes);
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return 0;
}

/* Open temporaries, for the signal handler. */
#define SS_MAX_OPEN_OUT 64
/* volatile: the handler must see each store when it happens, not when the compiler likes. */
static char *volatile open_tmps[SS_MAX_OPEN_OUT];

static void reg_tmp(char *tmp)
{
    for (int i = 0; i < SS_MAX_OPEN_OUT; i++)
        if (!open_tmps[i]) {
            open_tmps[i] = tmp;
            return;
        }
}

static void unreg_tmp(const char *tmp)
{
    for (int i = 0; i < SS_MAX_OPEN_OUT; i++)
        if (open_tmps[i] == tmp)
            open_tmps[i] = NULL;
}

void ss_out_abort_all_signal_safe(void)
{
    for (int i = 0; i < SS_MAX_OPEN_OUT; i++)
        if (open_tmps[i])
            unlink(open_tmps[i]);
}

void ss_out_forget_inherited(void)
{
    for (int i = 0; i < SS_MAX_OPEN_OUT; i++)
        open_tmps[i] = NULL;
}

int ss_out_open(struct ss_out *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->fp = stdout;
        o->is_stdout = 1;
        return 0;
    }
    size_t n = strlen(path) + 32;
    o->path = ss_xstrdup(path);
    o->tmp = ss_xmalloc(n);
    /* Same directory as the target, so rename() is atomic (same filesystem). */
    snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    /* Registered before it exists: a signal between fopen and registration would otherwise
     * leave the temporary behind (unlinking a name not yet created is harmless). */
    reg_tmp(o->tmp);
    o->fp = fopen(o->tmp, "wb");
    if (!o->fp) {
        int e = errno;
        unreg_tmp(o->tmp);
        free(o->path);
        free(o->tmp);
        memset(o, 0, sizeof *o);
        return ss_errf(err, errlen, "%s: cannot write: %s", path, strerror(e));
    }
    return 0;
}

int ss_out_commit(struct ss_out *o, char *err, size_t errlen)
{
    if (o->is_stdout) {
        fflush(stdout);
        return 0;
    }
    int rc = 0;
    if (ferror(o->fp) | (fclose(o->fp) != 0))
        rc = ss_errf(err, errlen, "%s: write error", o->path);
    else if (rename(o->tmp, o->path) != 0)
        rc =
            ss_errf(err, errlen, "%s: cannot rename from %s: %s", o->path, o->tmp, strerror(errno));
    if (rc)
        unlink(o->tmp);
    unreg_tmp(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    return rc;
}

void ss_out_abort(struct ss_out *o)
{
    if (!o->fp)
        return;
    if (!o->is_stdout) {
        fclose(o->fp);
        unlink(o->tmp);
        unreg_tmp(o->tmp);
        free(o->tmp);
        free(o->path);
    }
    memset(o, 0, sizeof *o);
}

int ss_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}
