/*
 * plandir — the `plan --k8s DIR` folder, written as a whole (docs/plan.md#the-folder-as-a-whole).
 * Prefix pd_.
 *
 * A plan's artefacts replace the previous plan's, never mix with them: they are written into a
 * temporary folder beside DIR (PARENT/.BASE.tmp.<pid>, one filesystem), every file and the
 * folder fsync'd, then swapped into place; the folder that was DIR is kept as DIR.previous
 * (an older DIR.previous removed first). One plan at a time writes a DIR: an fcntl lock on
 * DIR.lock beside it, taken before the search starts; a second plan is refused with the holder's
 * pid. A plan that fails while writing removes its temporary and leaves DIR as it was.
 *
 * SIGINT and SIGTERM are held while the folder is written (a few files, milliseconds): a signal
 * that came meanwhile removes the temporary, DIR untouched, and then ends the process through the
 * handlers of cli/cli.c (exit 130 or 143). Nothing in DIR is ever followed: the new folder is a
 * fresh directory, and removing DIR.previous unlinks its entries (a link, not what it names).
 *
 * DIR itself may be a symbolic link to a folder (the folder it names is replaced). An existing
 * DIR that is not empty and was not written by a plan (no PD_MARKER in it) is refused rather
 * than moved aside: `--k8s ~` must not move a home folder.
 */
#ifndef SS_PLANDIR_H
#define SS_PLANDIR_H

#include <signal.h>
#include <stddef.h>

/* The file by which a folder says a plan wrote it (a dotfile: `kubectl apply -f DIR` reads
 * only .yaml, .yml and .json). */
#define PD_MARKER ".sharesim-plan"

struct pd_dir {
    char *dir;  /* DIR, a link named as the folder resolved, no trailing '/' */
    char *tmp;  /* PARENT/.BASE.tmp.<pid>, while it exists */
    char *prev; /* DIR.previous */
    sigset_t saved;
    int held; /* the signals are held (pd_begin to pd_commit or pd_abort) */
};

/*
 * Locks DIR for this process (an fcntl lock on DIR.lock, kept until the process ends; locking
 * it again is a no-op) after checking that DIR may be replaced. 0, or -1 with err: another plan
 * (pid) holds it, DIR is a file, or a folder that no plan wrote.
 */
int pd_lock(const char *dir, char *err, size_t errlen);
/* Locks DIR (pd_lock), holds SIGINT and SIGTERM, creates the temporary folder with PD_MARKER in
 * it. 0, or -1 with err (nothing left behind, the signals released). */
int pd_begin(struct pd_dir *p, const char *dir, char *err, size_t errlen);
/* fsyncs the temporary's files and the folder, removes an old DIR.previous, swaps the temporary
 * into DIR and the old DIR into DIR.previous, fsyncs the parent; then releases the signals
 * (a held one ends the process after pd_abort's clean-up). 0, or -1 with err, the temporary
 * removed and DIR as it was. */
int pd_commit(struct pd_dir *p, char *err, size_t errlen);
/* Removes the temporary and what is in it, releases the signals. */
void pd_abort(struct pd_dir *p);

#endif
