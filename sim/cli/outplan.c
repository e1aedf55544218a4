/*
 * outplan — one output per file, and no output over an input (outplan.h).
 *
 * Two paths are the same file when both exist and have one device and inode (this covers
 * every spelling and hard links), or when their canonical spellings are equal: the real path
 * of the longest part that exists, then the rest with "." and ".." taken out by hand. The
 * latter is what catches two spellings of a file not written yet, through a symbolic link to
 * its directory, `./` or `..`. A dangling symbolic link is its own file: ss_out_open replaces
 * such a link rather than creating what it points to.
 */
#define _DEFAULT_SOURCE /* realpath() */
#include "cli/outplan.h"
#include "base/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void op_init(struct op_plan *p, const char *cmd)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
}

void op_free(struct op_plan *p)
{
    for (int i = 0; i < p->n_out; i++)
        for (int k = 0; k < 3; k++)
            free(p->out[i].own[k]);
    free(p->out);
    free(p->in);
    p->out = p->in = NULL;
    p->n_out = p->n_in = p->cap_out = p->cap_in = 0;
}

static void add(struct op_item **arr, int *n, int *cap, struct op_item it)
{
    if (!it.path)
        return;
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *arr = ss_xrealloc(*arr, (size_t)*cap * sizeof **arr);
    }
    (*arr)[(*n)++] = it;
}

void op_output(struct op_plan *p, const char *opt, const char *path)
{
    add(&p->out, &p->n_out, &p->cap_out, (struct op_item){opt, path, NULL, NULL, {NULL}});
}

void op_output_dir(struct op_plan *p, const char *opt, const char *dir, const char *const *names)
{
    add(&p->out, &p->n_out, &p->cap_out, (struct op_item){opt, dir, names, NULL, {NULL}});
}

void op_output_prefix(struct op_plan *p, const char *opt, const char *prefix, const char *pattern)
{
    if (!prefix)
        return;
    const char *slash = strrchr(prefix, '/');
    struct op_item it = {opt, NULL, NULL, prefix, {NULL}};
    size_t dlen = slash ? (size_t)(slash - prefix) + (slash == prefix) : 1;
    it.own[0] = ss_xmalloc(dlen + 1);
    snprintf(it.own[0], dlen + 1, "%.*s", (int)dlen, slash ? prefix : ".");
    const char *base = slash ? slash + 1 : prefix;
    size_t n = strlen(base) + strlen(pattern) + 1;
    it.own[1] = ss_xmalloc(n);
    snprintf(it.own[1], n, "%s%s", base, pattern);
    const char **names = ss_xcalloc(2, sizeof *names);
    names[0] = it.own[1];
    it.own[2] = (char *)names;
    it.path = it.own[0];
    it.names = names;
    add(&p->out, &p->n_out, &p->cap_out, it);
}

void op_input(struct op_plan *p, const char *opt, const char *path)
{
    add(&p->in, &p->n_in, &p->cap_in, (struct op_item){opt, path, NULL, NULL, {NULL}});
}

void op_input_dir(struct op_plan *p, const char *opt, const char *dir, const char *const *names)
{
    add(&p->in, &p->n_in, &p->cap_in, (struct op_item){opt, dir, names, NULL, {NULL}});
}

/* ---- what a path is ---------------------------------------------------------- */

struct ident {
    int is_std; /* "-", or the very file or pipe that stdout is */
    int exists;
    struct stat st;
    char *canon; /* NULL for "-" */
};

/* Appends the components of rest to the canonical directory buf (of the given size),
 * "." skipped and ".." taking one off: nothing in rest exists, so none of it is a link. */
static void append_lexical(char *buf, size_t size, const char *rest)
{
    while (*rest) {
        size_t len = strcspn(rest, "/");
        if (len == 1 && rest[0] == '.') {
            /* nothing */
        } else if (len == 2 && rest[0] == '.' && rest[1] == '.') {
            char *slash = strrchr(buf, '/');
            if (slash)
                slash[slash == buf] = '\0'; /* "/a" -> "/" */
        } else if (len > 0) {
            size_t used = strlen(buf);
            snprintf(buf + used, size - used, "%s%.*s", strcmp(buf, "/") == 0 ? "" : "/", (int)len,
                     rest);
        }
        rest += len;
        while (*rest == '/')
            rest++;
    }
}

/* dir (canonical) followed by rest, lexically. */
static char *join(const char *dir, const char *rest)
{
    size_t size = strlen(dir) + strlen(rest) + 2;
    char *c = ss_xmalloc(size);
    snprintf(c, size, "%s", dir);
    append_lexical(c, size, rest);
    return c;
}

/* The canonical spelling of path: the real path of its longest existing leading part (cut
 * at a '/'), then the rest. A path none of whose start resolves stays as given. */
static char *canonical(const char *path)
{
    char *r = realpath(path, NULL);
    if (r)
        return r;
    char *head = ss_xstrdup(path);
    for (char *slash = strrchr(head, '/'); slash; slash = strrchr(head, '/')) {
        *slash = '\0';
        char *dir = realpath(slash == head ? "/" : head, NULL);
        if (dir) {
            char *c = join(dir, path + (slash - head) + 1);
            free(dir);
            free(head);
            return c;
        }
    }
    free(head);
    char *cwd = path[0] == '/' ? NULL : realpath(".", NULL);
    if (!cwd)
        return ss_xstrdup(path);
    char *c = join(cwd, path);
    free(cwd);
    return c;
}

static void ident_of(const char *path, struct ident *id)
{
    memset(id, 0, sizeof *id);
    if (strcmp(path, "-") == 0) {
        id->is_std = 1;
        return;
    }
    id->exists = stat(path, &id->st) == 0;
    id->canon = canonical(path);
    struct stat so;
    /* /dev/stdout, /proc/self/fd/1 or the file stdout was redirected to; a terminal is a
     * character device, and those take any number of outputs. */
    if (id->exists && !S_ISCHR(id->st.st_mode) && fstat(STDOUT_FILENO, &so) == 0 &&
        so.st_dev == id->st.st_dev && so.st_ino == id->st.st_ino)
        id->is_std = 1;
}

static int same_file(const struct ident *a, const struct ident *b)
{
    if (a->is_std || b->is_std)
        return a->is_std && b->is_std;
    if (a->exists && b->exists)
        return a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino &&
               !S_ISCHR(a->st.st_mode);
    return strcmp(a->canon, b->canon) == 0;
}

/* Whether name (one path below a directory, "a" or "points/x.json") is one of names. */
static int name_matches(const char *name, const char *const *names)
{
    for (; names && *names; names++) {
        const char *pat = *names, *star = strchr(pat, '*');
        size_t len = strlen(pat), nlen = strlen(name);
        if (len > 0 && pat[len - 1] == '/') {
            if (strncmp(name, pat, len) == 0)
                return 1;
        } else if (star) {
            size_t pre = (size_t)(star - pat), suf = len - pre - 1;
            if (nlen >= pre + suf && strncmp(name, pat, pre) == 0 &&
                strcmp(name + nlen - suf, star + 1) == 0 &&
                !memchr(name + pre, '/', nlen - pre - suf))
                return 1;
        } else if (strcmp(name, pat) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Whether the file f is one of the files the directory d (canonical dir) holds by names. */
static int in_dir(const struct ident *f, const char *dir, const char *const *names)
{
    if (f->is_std && !f->canon)
        return 0;
    size_t n = strlen(dir);
    if (strncmp(f->canon, dir, n) == 0 && f->canon[n] == '/' &&
        name_matches(f->canon + n + 1, names))
        return 1;
    /* a hard link, elsewhere, to one of the exact names */
    for (const char *const *nm = names; f->exists && nm && *nm; nm++) {
        if (!**nm || strchr(*nm, '*') || (*nm)[strlen(*nm) - 1] == '/')
            continue;
        size_t size = n + strlen(*nm) + 2;
        char *path = ss_xmalloc(size);
        snprintf(path, size, "%s/%s", dir, *nm);
        struct stat st;
        int same = stat(path, &st) == 0 && st.st_dev == f->st.st_dev && st.st_ino == f->st.st_ino;
        free(path);
        if (same)
            return 1;
    }
    return 0;
}

/* ---- the check ---------------------------------------------------------------- */

/* "OPT PATH", or "PATH" for an input noted without an option. */
static const char *spell(const struct op_item *it, char *buf, size_t n)
{
    const char *path = it->label ? it->label : it->path;
    if (it->opt)
        snprintf(buf, n, "%s %s", it->opt, path);
    else
        snprintf(buf, n, "%s", path);
    return buf;
}

/* An output against the inputs: -1 with the message, or 0. */
static int check_inputs(const struct op_item *o, const struct ident *oi, const struct op_item *in,
                        const struct ident *ii, int n_in, char *err, size_t errlen)
{
    char a[PATH_MAX + 64], b[PATH_MAX + 64];
    for (int k = 0; k < n_in; k++) {
        const struct op_item *i = &in[k];
        if (i->names && !o->names && in_dir(oi, ii[k].canon, i->names))
            return ss_errf(err, errlen,
                           "%s: a file of the input %s: refusing to overwrite an input",
                           spell(o, a, sizeof a), spell(i, b, sizeof b));
        if (!i->names && o->names && !ii[k].is_std && in_dir(&ii[k], oi->canon, o->names))
            return ss_errf(err, errlen,
                           "%s: would write over the input %s: refusing to overwrite an input",
                           spell(o, a, sizeof a), spell(i, b, sizeof b));
        if (!i->names && !o->names && ii[k].exists && oi->exists && !oi->is_std &&
            same_file(oi, &ii[k]))
            return ss_errf(err, errlen,
                           "%s: the same file as the input %s: refusing to overwrite an input",
                           spell(o, a, sizeof a), spell(i, b, sizeof b));
    }
    return 0;
}

/* Outputs i and j (j < i). */
static int check_pair(const struct op_item *oi, const struct ident *ii, const struct op_item *oj,
                      const struct ident *ij, char *err, size_t errlen)
{
    char a[PATH_MAX + 64], b[PATH_MAX + 64];
    spell(oi, a, sizeof a);
    spell(oj, b, sizeof b);
    if (!oi->names && !oj->names) {
        if (!same_file(ii, ij))
            return 0;
        if (ii->is_std)
            return ss_errf(err, errlen, "%s: %s already writes to stdout: give one of them a file",
                           a, b);
        return ss_errf(err, errlen, "%s: the same file as %s: each output needs a file of its own",
                       a, b);
    }
    if (oi->names && oj->names)
        return strcmp(ii->canon, ij->canon) == 0
                   ? ss_errf(err, errlen,
                             "%s: the same directory as %s: each output needs one of its own", a, b)
                   : 0;
    const struct op_item *file = oi->names ? oj : oi, *dir = oi->names ? oi : oj;
    const struct ident *fi = oi->names ? ij : ii, *di = oi->names ? ii : ij;
    if (fi->is_std)
        return 0;
    spell(file, a, sizeof a);
    spell(dir, b, sizeof b);
    if (strcmp(fi->canon, di->canon) == 0)
        return ss_errf(err, errlen,
                       "%s: the directory %s writes into: each output needs a file of its own", a,
                       b);
    if (in_dir(fi, di->canon, dir->names))
        return ss_errf(err, errlen,
                       "%s: one of the files %s writes: each output needs a file of its own", a, b);
    return 0;
}

int op_check(const struct op_plan *p, char *err, size_t errlen)
{
    /* the registered inputs, then the ones noted while loading (a scenario's traces) */
    int n_noted = 0;
    while (ss_in_nth((size_t)n_noted))
        n_noted++;
    int n_in = p->n_in + n_noted;
    struct op_item *in = ss_xcalloc((size_t)n_in + 1, sizeof *in);
    struct ident *ii = ss_xcalloc((size_t)n_in + 1, sizeof *ii);
    struct ident *oi = ss_xcalloc((size_t)p->n_out + 1, sizeof *oi);
    for (int k = 0; k < n_in; k++) {
        in[k] = k < p->n_in
                    ? p->in[k]
                    : (struct op_item){NULL, ss_in_nth((size_t)(k - p->n_in)), NULL, NULL, {NULL}};
        ident_of(in[k].path, &ii[k]);
    }
    int rc = 0;
    for (int i = 0; i < p->n_out && rc == 0; i++) {
        if (!p->out[i].path[0]) {
            rc = ss_errf(err, errlen, "%s: the file name is empty: expected a path or -",
                         p->out[i].opt);
            break;
        }
        ident_of(p->out[i].path, &oi[i]);
        rc = check_inputs(&p->out[i], &oi[i], in, ii, n_in, err, errlen);
        for (int j = 0; j < i && rc == 0; j++)
            rc = check_pair(&p->out[i], &oi[i], &p->out[j], &oi[j], err, errlen);
    }
    for (int k = 0; k < n_in; k++)
        free(ii[k].canon);
    for (int i = 0; i < p->n_out; i++)
        free(oi[i].canon);
    free(in);
    free(ii);
    free(oi);
    return rc;
}

int op_done(struct op_plan *p)
{
    char err[SS_ERRLEN];
    int rc = op_check(p, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s: %s\n", p->cmd, err);
    op_free(p);
    return rc ? SS_EXIT_BADINPUT : SS_EXIT_OK;
}

int op_files(const char *cmd, const char *const *in, const char *const *out)
{
    struct op_plan p;
    op_init(&p, cmd);
    for (; in && *in; in += 2)
        op_input(&p, in[0], in[1]);
    for (; out && *out; out += 2)
        op_output(&p, out[0], out[1]);
    return op_done(&p);
}
