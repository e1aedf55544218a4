/*
 * plandir — the --k8s folder written as a whole (see plandir.h).
 *
 * The swap is renameat2(RENAME_EXCHANGE) where the filesystem has it (Linux 3.15 and later,
 * most local filesystems): DIR is at every instant either the old folder or the new one, never
 * absent. Elsewhere two renames (DIR to DIR.previous, the temporary to DIR) leave DIR absent for
 * an instant; a crash in between leaves the new plan in the temporary and the old in
 * DIR.previous, both complete.
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include "tools/plandir.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Folders this process holds the lock of: their lock files stay open until it ends. */
#define PD_MAX_LOCKS 8
static char *locked[PD_MAX_LOCKS];

/* DIR as it is to be replaced: an existing folder (or a link to one) by its real path, a new one
 * as given without trailing slashes. NULL with err when DIR is not a folder or names none. */
static char *resolve_dir(const char *dir, char *err, size_t errlen)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    char *d = ss_xmalloc(n + 1);
    memcpy(d, dir, n);
    d[n] = '\0';
    struct stat st;
    if (stat(d, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            ss_errf(err, errlen, "%s: exists and is not a folder", dir);
            free(d);
            return NULL;
        }
        char *real = realpath(d, NULL);
        free(d);
        d = real;
    } else if (lstat(d, &st) == 0) {
        ss_errf(err, errlen, "%s: a symbolic link to nothing: name the folder itself", dir);
        free(d);
        return NULL;
    }
    const char *base = d ? strrchr(d, '/') : NULL;
    base = base ? base + 1 : d;
    if (!d || !base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        ss_errf(err, errlen, "%s: expected a folder to create or replace", dir);
        free(d);
        return NULL;
    }
    return d;
}

/* The folder that holds path (".", "/"), newly allocated. */
static char *parent_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ss_xstrdup(".");
    if (slash == path)
        return ss_xstrdup("/");
    char *p = ss_xmalloc((size_t)(slash - path) + 1);
    memcpy(p, path, (size_t)(slash - path));
    p[slash - path] = '\0';
    return p;
}

static char *joined(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = ss_xmalloc(n);
    snprintf(p, n, "%s/%s", a, b);
    return p;
}

static char *suffixed(const char *a, const char *suffix)
{
    size_t n = strlen(a) + strlen(suffix) + 1;
    char *p = ss_xmalloc(n);
    snprintf(p, n, "%s%s", a, suffix);
    return p;
}

/* An existing folder may be moved aside only if it is empty or a plan wrote it. */
static int replaceable(const char *dir, const char *given, char *err, size_t errlen)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        if (errno == ENOENT)
            return 0;
        return ss_errf(err, errlen, "%s: cannot read the folder: %s", given, strerror(errno));
    }
    int entries = 0, marked = 0;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            entries++;
            marked |= strcmp(e->d_name, PD_MARKER) == 0;
        }
    closedir(dp);
    if (entries && !marked)
        return ss_errf(err, errlen,
                       "%s: a folder that no plan wrote (no %s in it) and not empty: a plan "
                       "replaces its folder as a whole, keeping the old one as %s.previous, and "
                       "does not do that to other folders; name a new or empty folder",
                       given, PD_MARKER, given);
    return 0;
}

int pd_lock(const char *dir, char *err, size_t errlen)
{
    char *d = resolve_dir(dir, err, errlen);
    if (!d)
        return -1;
    for (int i = 0; i < PD_MAX_LOCKS; i++)
        if (locked[i] && strcmp(locked[i], d) == 0) {
            free(d);
            return 0;
        }
    char *parent = parent_of(d);
    int rc = ss_mkdirs(parent, err, errlen);
    free(parent);
    if (rc == 0)
        rc = replaceable(d, dir, err, errlen);
    if (rc) {
        free(d);
        return -1;
    }
    char *path = suffixed(d, ".lock");
    /* Never removed, and left open: unlinking a lock file another process has open lets a third
     * lock a new file while the second holds the old, and closing any descriptor of it would
     * drop this process's lock (fcntl locks are per process and file). */
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
        rc = ss_errf(err, errlen, "%s: cannot create the lock: %s", path, strerror(errno));
    } else {
        struct flock fl;
        memset(&fl, 0, sizeof fl);
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        if (fcntl(fd, F_SETLK, &fl) != 0) {
            int e = errno;
            struct flock q = fl;
            long pid = fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK ? (long)q.l_pid : -1;
            close(fd);
            if (e != EACCES && e != EAGAIN)
                rc = ss_errf(err, errlen, "%s: cannot lock: %s", path, strerror(e));
            else if (pid > 0)
                rc = ss_errf(err, errlen,
                             "%s: another plan (pid %ld) is writing this folder: wait for it to "
                             "end, or name another",
                             dir, pid);
            else
                rc = ss_errf(err, errlen,
                             "%s: another plan is writing this folder: wait for it to end, or "
                             "name another",
                             dir);
        } else {
            int i = 0;
            while (i < PD_MAX_LOCKS && locked[i])
                i++;
            if (i < PD_MAX_LOCKS)
                locked[i] = ss_xstrdup(d);
        }
    }
    free(path);
    free(d);
    return rc;
}

/* Whether a folder holds a folder (then it is not one a plan wrote, and nothing is removed). */
static int holds_folder(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (dp && !found && (e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char *p = joined(dir, e->d_name);
            struct stat st;
            found = lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
            free(p);
        }
    if (dp)
        closedir(dp);
    return found;
}

/* Unlinks every entry of a folder of files (and links: unlink never follows one), then the
 * folder. 0, or -1 when it holds a folder (nothing removed) or something stays. */
static int remove_flat(const char *dir)
{
    if (holds_folder(dir)) {
        errno = EISDIR;
        return -1;
    }
    DIR *dp = opendir(dir);
    if (!dp)
        return errno == ENOENT ? 0 : -1;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char *p = joined(dir, e->d_name);
            unlink(p);
            free(p);
        }
    closedir(dp);
    return rmdir(dir) == 0 || errno == ENOENT ? 0 : -1;
}

static void release_signals(struct pd_dir *p)
{
    if (p->held)
        sigprocmask(SIG_SETMASK, &p->saved, NULL);
    p->held = 0;
}

static void pd_free(struct pd_dir *p)
{
    free(p->dir);
    free(p->tmp);
    free(p->prev);
    p->dir = p->tmp = p->prev = NULL;
}

void pd_abort(struct pd_dir *p)
{
    if (p->tmp)
        remove_flat(p->tmp);
    pd_free(p);
    release_signals(p); /* last: a held SIGINT ends the process now, with nothing left */
}

static int write_marker(struct pd_dir *p, char *err, size_t errlen)
{
    struct ss_out o;
    if (ss_out_open_entry(&o, p->tmp, PD_MARKER, err, errlen))
        return -1;
    fputs("Written by sharesim plan --k8s. The next plan into this folder replaces it as a whole\n"
          "and keeps this one as FOLDER.previous (docs/plan.md#the-folder-as-a-whole).\n",
          o.fp);
    return ss_out_commit(&o, err, errlen);
}

int pd_begin(struct pd_dir *p, const char *dir, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (pd_lock(dir, err, errlen))
        return -1;
    p->dir = resolve_dir(dir, err, errlen);
    if (!p->dir)
        return -1;
    p->prev = suffixed(p->dir, ".previous");
    sigset_t hold;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigprocmask(SIG_BLOCK, &hold, &p->saved);
    p->held = 1;
    char *parent = parent_of(p->dir);
    const char *base = strrchr(p->dir, '/');
    base = base ? base + 1 : p->dir;
    size_t n = strlen(parent) + strlen(base) + 64;
    p->tmp = ss_xmalloc(n);
    int made = -1, e = 0;
    /* Another of our pid's temporaries can only be a killed plan's (we hold the lock). */
    for (int k = 0; made != 0 && k < 100; k++) {
        snprintf(p->tmp, n, k ? "%s/.%s.tmp.%ld.%d" : "%s/.%s.tmp.%ld", parent, base,
                 (long)getpid(), k);
        made = mkdir(p->tmp, 0777);
        e = errno;
        if (made != 0 && e != EEXIST)
            break;
    }
    free(parent);
    if (made != 0) {
        ss_errf(err, errlen, "%s: cannot create the temporary folder %s: %s", dir, p->tmp,
                strerror(e));
        free(p->tmp);
        p->tmp = NULL;
        pd_abort(p);
        return -1;
    }
    if (write_marker(p, err, errlen)) {
        pd_abort(p);
        return -1;
    }
    return 0;
}

/* fsync of a file or folder (a link is not opened: O_NOFOLLOW). */
static int sync_path(const char *path, int folder)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (folder ? O_DIRECTORY : 0));
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* Every entry of the temporary, then the temporary itself, on disk. */
static int sync_tmp(const struct pd_dir *p, char *err, size_t errlen)
{
    DIR *dp = opendir(p->tmp);
    if (!dp)
        return ss_errf(err, errlen, "%s: cannot read: %s", p->tmp, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char *f = joined(p->tmp, e->d_name);
            if (sync_path(f, 0))
                rc = ss_errf(err, errlen, "%s: cannot sync: %s", f, strerror(errno));
            free(f);
        }
    closedir(dp);
    if (rc == 0 && sync_path(p->tmp, 1))
        rc = ss_errf(err, errlen, "%s: cannot sync: %s", p->tmp, strerror(errno));
    return rc;
}

/* Whether SIGINT or SIGTERM came while they were held. */
static int interrupted(void)
{
    sigset_t pending;
    sigpending(&pending);
    return sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1;
}

/* The old DIR.previous out of the way: a file or link unlinked, a folder emptied of its files
 * and links and removed; a folder inside it is not ours to remove. */
static int clear_previous(const struct pd_dir *p, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(p->prev, &st) != 0)
        return 0;
    int rc = S_ISDIR(st.st_mode) ? remove_flat(p->prev) : unlink(p->prev);
    if (rc)
        return ss_errf(err, errlen,
                       "%s: cannot remove the older plan kept there (%s): remove it yourself",
                       p->prev, errno == EISDIR ? "it holds a folder" : strerror(errno));
    return 0;
}

/* DIR := the temporary, the old DIR (if any) := DIR.previous. */
static int swap_in(struct pd_dir *p, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(p->dir, &st) != 0)
        return rename(p->tmp, p->dir) == 0 ? 0
                                           : ss_errf(err, errlen, "%s: cannot rename %s to it: %s",
                                                     p->dir, p->tmp, strerror(errno));
    if (clear_previous(p, err, errlen))
        return -1;
    if (renameat2(AT_FDCWD, p->tmp, AT_FDCWD, p->dir, RENAME_EXCHANGE) == 0) {
        /* The temporary's name now holds the old plan. */
        if (rename(p->tmp, p->prev) != 0) {
            ss_errf(err, errlen, "%s is written, but the previous plan stays at %s: %s", p->dir,
                    p->tmp, strerror(errno));
            free(p->tmp);
            p->tmp = NULL; /* the old plan's files: not ours to remove */
            return -1;
        }
        return 0;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
        return ss_errf(err, errlen, "%s: cannot swap in %s: %s", p->dir, p->tmp, strerror(errno));
    if (rename(p->dir, p->prev) != 0)
        return ss_errf(err, errlen, "%s: cannot keep it as %s: %s", p->dir, p->prev,
                       strerror(errno));
    if (rename(p->tmp, p->dir) != 0) {
        int e = errno;
        rename(p->prev, p->dir); /* back as it was */
        return ss_errf(err, errlen, "%s: cannot rename %s to it: %s", p->dir, p->tmp, strerror(e));
    }
    return 0;
}

int pd_commit(struct pd_dir *p, char *err, size_t errlen)
{
    if (sync_tmp(p, err, errlen) || interrupted()) {
        pd_abort(p); /* interrupted: the handler ends the process here */
        return -1;
    }
    char given[PATH_MAX];
    snprintf(given, sizeof given, "%s", p->dir);
    if (replaceable(p->dir, given, err, errlen) || swap_in(p, err, errlen)) {
        pd_abort(p);
        return -1;
    }
    free(p->tmp);
    p->tmp = NULL;
    char *parent = parent_of(p->dir);
    sync_path(parent, 1); /* the renames on disk; a filesystem that cannot sync a folder is fine */
    free(parent);
    pd_free(p);
    release_signals(p);
    return 0;
}
