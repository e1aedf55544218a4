/*
 * util — see util.h. The atomic-output registry is a fixed array so that a
 * signal handler can unlink the temporary files without allocating.
 */
#define _DEFAULT_SOURCE /* realpath() */
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest file name (one path component) Linux filesystems take. */
#define SS_NAME_MAX 255

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

void ss_catf(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (len < cap)
        vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
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

/* ---- inputs ---- */

struct in_file {
    dev_t dev;
    ino_t ino;
    char *path;
};
static struct in_file *ins;
static size_t n_ins, cap_ins;

static const char *input_of(const struct stat *st)
{
    for (size_t i = 0; i < n_ins; i++)
        if (ins[i].dev == st->st_dev && ins[i].ino == st->st_ino)
            return ins[i].path;
    return NULL;
}

static void note_stat(const char *path, const struct stat *st)
{
    if (!S_ISREG(st->st_mode) || input_of(st))
        return;
    if (n_ins == cap_ins) {
        cap_ins = cap_ins ? 2 * cap_ins : 16;
        ins = ss_xrealloc(ins, cap_ins * sizeof *ins);
    }
    ins[n_ins++] = (struct in_file){st->st_dev, st->st_ino, ss_xstrdup(path)};
}

void ss_in_note(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        note_stat(path, &st);
}

const char *ss_in_nth(size_t i)
{
    return i < n_ins ? ins[i].path : NULL;
}

void ss_in_forget_all(void)
{
    for (size_t i = 0; i < n_ins; i++)
        free(ins[i].path);
    free(ins);
    ins = NULL;
    n_ins = cap_ins = 0;
}

static int read_file(const char *path, size_t max_bytes, char **out, size_t *len, int note,
                     char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return ss_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        return ss_errf(err, errlen, "%s: is a directory, expected a file", path);
    }
    if (note)
        note_stat(path, &st);
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

int ss_read_file(const char *path, size_t max_bytes, char **out, size_t *len, char *err,
                 size_t errlen)
{
    return read_file(path, max_bytes, out, len, 1, err, errlen);
}

int ss_read_file_own(const char *path, size_t max_bytes, char **out, size_t *len, char *err,
                     size_t errlen)
{
    return read_file(path, max_bytes, out, len, 0, err, errlen);
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

/*
 * The temporary for target "DIR/BASE": "DIR/BASE.tmp.<pid>" in the same directory, so that
 * rename() is atomic (one filesystem). A BASE so long that the suffix would pass the name limit
 * is shortened (at a character boundary) and numbered, so two such outputs of one process
 * never share a temporary.
 */
static char *tmp_name(const char *target)
{
    static unsigned long serial;
    const char *slash = strrchr(target, '/');
    size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0, blen = strlen(target + dirlen);
    char suffix[64];
    size_t n = (size_t)snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
    if (blen + n > SS_NAME_MAX) {
        n = (size_t)snprintf(suffix, sizeof suffix, ".tmp.%ld.%lu", (long)getpid(), serial++);
        blen = blen < SS_NAME_MAX - n ? blen : SS_NAME_MAX - n;
        while (blen > 0 && ((unsigned char)target[dirlen + blen] & 0xC0) == 0x80)
            blen--; /* not inside a UTF-8 sequence */
    }
    char *t = ss_xmalloc(dirlen + blen + n + 1);
    memcpy(t, target, dirlen + blen);
    memcpy(t + dirlen + blen, suffix, n + 1);
    return t;
}

/* An existing device, FIFO or socket: opened for writing as it is, never replaced. */
static int open_in_place(struct ss_out *o, const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_NOCTTY);
    FILE *fp = fd < 0 ? NULL : fdopen(fd, "w");
    if (!fp) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return ss_errf(err, errlen, "%s: cannot write: %s", path, strerror(e));
    }
    o->fp = fp;
    o->path = ss_xstrdup(path);
    return 0;
}

int ss_out_open(struct ss_out *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->fp = stdout;
        o->is_stdout = 1;
        return 0;
    }
    if (!path[0])
        return ss_errf(err, errlen, "an output file name is empty: expected a path or -");
    struct stat st, lst;
    char *resolved = NULL;
    int exists = stat(path, &st) == 0;
    if (exists) {
        const char *in = input_of(&st);
        if (S_ISDIR(st.st_mode))
            return ss_errf(err, errlen, "%s: is a directory, expected a file to write", path);
        if (S_ISBLK(st.st_mode))
            return ss_errf(err, errlen, "%s: is a block device: refusing to write a result onto it",
                           path);
        if (in)
            return ss_errf(err, errlen,
                           "%s: the same file as the input %s: refusing to overwrite an input",
                           path, in);
        if (!S_ISREG(st.st_mode))
            return open_in_place(o, path, err, errlen);
        if (access(path, W_OK) != 0)
            return ss_errf(err, errlen, "%s: cannot write: %s (it is not replaced)", path,
                           strerror(errno));
        /* A link is followed: the file it points to is replaced, not the link. */
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
            resolved = realpath(path, NULL);
    }
    o->path = ss_xstrdup(path);
    o->target = resolved ? resolved : ss_xstrdup(path);
    o->tmp = tmp_name(o->target);
    for (int i = 0; i < SS_MAX_OPEN_OUT; i++)
        if (open_tmps[i] && strcmp(open_tmps[i], o->tmp) == 0) {
            ss_errf(err, errlen, "%s: already being written by this command", path);
            free(o->path);
            free(o->target);
            free(o->tmp);
            memset(o, 0, sizeof *o);
            return -1;
        }
    /* Registered before it exists: a signal between fopen and registration would otherwise
     * leave the temporary behind (unlinking a name not yet created is harmless). */
    reg_tmp(o->tmp);
    o->fp = fopen(o->tmp, "wb");
    if (!o->fp) {
        int e = errno;
        unreg_tmp(o->tmp);
        free(o->path);
        free(o->target);
        free(o->tmp);
        memset(o, 0, sizeof *o);
        return ss_errf(err, errlen, "%s: cannot write: %s", path, strerror(e));
    }
    if (exists) /* the replacement keeps the permissions the old file had */
        fchmod(fileno(o->fp), st.st_mode & 07777);
    return 0;
}

int ss_out_open_entry(struct ss_out *o, const char *dir, const char *name, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return ss_errf(err, errlen, "\"%s\": not a file name within %s", name, dir);
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = ss_xmalloc(n);
    snprintf(path, n, "%s/%s", dir, name);
    struct stat lst;
    int exists = lstat(path, &lst) == 0;
    if (exists && !S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode)) {
        ss_errf(err, errlen, "%s: exists and is not a regular file: refusing to replace it", path);
        free(path);
        return -1;
    }
    /* O_EXCL|O_NOFOLLOW: the temporary is a new file of ours, whatever sits at its name (a
     * link planted there is not followed; another name is tried). It is registered for the
     * signal handler only once created, so the handler never removes a file not ours. */
    char *tmp = NULL;
    int fd = -1, e = 0;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        char *base = tmp_name(path);
        size_t tn = strlen(base) + 16;
        tmp = ss_xmalloc(tn);
        snprintf(tmp, tn, attempt ? "%s.%d" : "%s", base, attempt);
        free(base);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        e = errno;
        if (fd < 0) {
            free(tmp);
            tmp = NULL;
            if (e != EEXIST)
                break;
        }
    }
    FILE *fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!fp) {
        if (fd >= 0) {
            e = errno;
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        ss_errf(err, errlen, "%s: cannot write: %s", path, strerror(e));
        free(path);
        return -1;
    }
    reg_tmp(tmp);
    if (exists && S_ISREG(lst.st_mode)) /* a replaced file keeps its permission bits */
        fchmod(fd, lst.st_mode & 07777);
    o->fp = fp;
    o->path = path;
    o->target = ss_xstrdup(path); /* rename() replaces a link there, never follows it */
    o->tmp = tmp;
    return 0;
}

/* Flushes and closes fp: 0, or the errno of the first failure (EIO for a sticky error). */
static int close_checked(FILE *fp)
{
    int e = 0;
    if (fflush(fp) != 0)
        e = errno;
    if (ferror(fp) && !e)
        e = EIO;
    if (fclose(fp) != 0 && !e)
        e = errno;
    return e;
}

int ss_out_commit(struct ss_out *o, char *err, size_t errlen)
{
    if (o->is_stdout) {
        /* Kept open (the table, another output may follow), but every byte so far is out. */
        int e = fflush(stdout) != 0 ? errno : ferror(stdout) ? EIO : 0;
        memset(o, 0, sizeof *o);
        return e ? ss_errf(err, errlen, "stdout: write error: %s", strerror(e)) : 0;
    }
    int rc = 0, e = close_checked(o->fp);
    if (e)
        rc = ss_errf(err, errlen, "%s: write error: %s", o->path, strerror(e));
    else if (o->tmp && rename(o->tmp, o->target) != 0)
        rc =
            ss_errf(err, errlen, "%s: cannot rename from %s: %s", o->path, o->tmp, strerror(errno));
    if (o->tmp) {
        if (rc)
            unlink(o->tmp);
        unreg_tmp(o->tmp);
    }
    free(o->tmp);
    free(o->target);
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
        if (o->tmp) { /* written in place (a device, a FIFO), what went out stays out */
            unlink(o->tmp);
            unreg_tmp(o->tmp);
        }
        free(o->tmp);
        free(o->target);
        free(o->path);
    }
    memset(o, 0, sizeof *o);
}

int ss_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int make_dir(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return ss_errf(err, errlen, "%s: cannot create directory: %s", path, strerror(errno));
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return ss_errf(err, errlen, "%s: exists and is not a directory", path);
    return 0;
}

int ss_mkdirs(const char *dir, char *err, size_t errlen)
{
    char *p = ss_xstrdup(dir);
    int rc = 0;
    /* Each parent in turn (the leading '/' of an absolute path is skipped). */
    for (char *s = p + 1; rc == 0 && (s = strchr(s, '/')); s++) {
        *s = '\0';
        rc = make_dir(p, err, errlen);
        *s = '/';
    }
    if (rc == 0)
        rc = make_dir(p, err, errlen);
    free(p);
    return rc;
}
