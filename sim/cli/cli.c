/*
 * cli — helpers shared by the commands: the dispatch over command tables, option values
 * with one wording for their errors, terminal detection, and the signal handlers that remove
 * partial outputs.
 */
#include "cli/cli.h"
#include "core/scenario.h"
#include "report/csvrows.h"
#include "tools/pool.h"
#include "base/util.h"

#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- dispatch ------------------------------------------------------------ */

/* Help of a group. The program's own subcommands are "commands", the ones below them
 * "subcommands": the path of a group below the program has a space ("sharesim mig"). */
static void group_help(FILE *fp, const char *path, const struct cli_group *g)
{
    int nested = strchr(path, ' ') != NULL;
    const char *what = nested ? "subcommand" : "command", *arg = nested ? "SUBCOMMAND" : "COMMAND";
    int width = 0;
    for (const struct cli_command *c = g->subs; c->name; c++)
        if ((int)strlen(c->name) > width)
            width = (int)strlen(c->name);
    if (g->head)
        fprintf(fp, "%s\n", g->head);
    fprintf(fp, "usage: %s %s [options]   (%s %s --help for details)\n\n%ss:\n", path, arg, path,
            arg, what);
    for (const struct cli_command *c = g->subs; c->name; c++)
        fprintf(fp, "  %-*s  %s\n", width, c->name, c->summary);
    if (g->notes)
        fprintf(fp, "\n%s", g->notes);
}

int cli_dispatch(const char *path, const struct cli_group *g, int argc, char **argv)
{
    if (argc < 2) {
        group_help(stderr, path, g);
        return SS_EXIT_BADINPUT;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        group_help(stdout, path, g);
        return SS_EXIT_OK;
    }
    for (const struct cli_command *c = g->subs; c->name; c++) {
        if (strcmp(name, c->name) != 0)
            continue;
        if (c->fn)
            return c->fn(argc - 1, argv + 1);
        char sub[256];
        snprintf(sub, sizeof sub, "%s %s", path, c->name);
        return cli_dispatch(sub, c->group, argc - 1, argv + 1);
    }
    fprintf(stderr, "%s: unknown %s \"%s\"\n\n", path, strchr(path, ' ') ? "subcommand" : "command",
            name);
    group_help(stderr, path, g);
    return SS_EXIT_BADINPUT;
}

/* ---- option values --------------------------------------------------------- */

int cli_opt_error(const char *cmd, const char *opt, const char *arg, const char *what)
{
    fprintf(stderr, "%s: %s: expected %s, got \"%s\"\n", cmd, opt, what, arg ? arg : "");
    return -1;
}

int cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_opt_long(const char *cmd, const char *opt, const char *arg, long lo, long hi, long *out)
{
    if (cli_parse_long(arg, lo, hi, out) == 0)
        return 0;
    char what[96];
    if (hi == LONG_MAX)
        snprintf(what, sizeof what, "an integer >= %ld", lo);
    else
        snprintf(what, sizeof what, "an integer in [%ld, %ld]", lo, hi);
    return cli_opt_error(cmd, opt, arg, what);
}

int cli_opt_double(const char *cmd, const char *opt, const char *arg, enum cli_lo lo_kind,
                   double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = arg && *arg ? strtod(arg, &end) : NAN;
    int ok = arg && *arg && !*end && !errno && isfinite(v) && v <= hi &&
             (lo_kind == CLI_GT ? v > lo : v >= lo);
    if (ok) {
        *out = v;
        return 0;
    }
    char what[96];
    if (isinf(hi))
        snprintf(what, sizeof what, "a finite number %s %g", lo_kind == CLI_GT ? ">" : ">=", lo);
    else
        snprintf(what, sizeof what, "a number in %c%g, %g]", lo_kind == CLI_GT ? '(' : '[', lo, hi);
    return cli_opt_error(cmd, opt, arg, what);
}

/* ---- the rest ---------------------------------------------------------------- */

int cli_stderr_is_tty(void)
{
    return isatty(STDERR_FILENO);
}

double cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/*
 * Workers first, and waited for: a pool worker's own handler removes its temporaries,
 * and once they are gone nothing of ours writes after we exit. Then our temporaries.
 */
static void on_signal(int sig)
{
    /* Temporaries first: stopping the workers waits for them, and a SIGKILL that follows the
     * SIGTERM (mpirun sends one when a rank died and the others are slow to end) must not
     * find this process's temporaries still there. */
    ss_out_abort_all_signal_safe();
    pool_stop_workers_signal_safe();
    _exit(128 + sig);
}

void cli_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int cli_load_scenario(const char *path, unsigned flags, struct scenario *sc)
{
    char err[SS_ERRLEN];
    if (scn_load_flags(path, flags, sc, err, sizeof err) == 0)
        return SS_EXIT_OK;
    fprintf(stderr, "sharesim: %s\n", err);
    scn_free(sc);
    return SS_EXIT_BADINPUT;
}

/* ---- result outputs ------------------------------------------------------------ */

int cli_is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

int cli_write_out(const char *cmd, const char *path, cli_put_fn put, const void *ctx)
{
    struct ss_out o;
    char err[SS_ERRLEN];
    if (ss_out_open(&o, path, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", cmd, err);
        return -1;
    }
    if (put(o.fp, ctx, err, sizeof err)) {
        ss_out_abort(&o);
        fprintf(stderr, "%s: %s\n", cmd, err);
        return -1;
    }
    if (ss_out_commit(&o, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", cmd, err);
        return -1;
    }
    return 0;
}

void cli_put_doc(FILE *fp, const cJSON *doc)
{
    char *text = cJSON_Print(doc);
    if (!text)
        SS_FATAL("cJSON_Print failed");
    fputs(text, fp);
    fputc('\n', fp);
    free(text);
}

static int put_json(FILE *fp, const void *doc, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    cli_put_doc(fp, doc);
    return 0;
}

struct csv_job {
    const cJSON *rows;
    const char *const *skip;
};

static int put_csv(FILE *fp, const void *ctx, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    const struct csv_job *j = ctx;
    csv_rows(fp, j->rows, j->skip);
    return 0;
}

int cli_write_json(const char *cmd, const char *path, cJSON *doc)
{
    int rc = cli_write_out(cmd, path, put_json, doc);
    cJSON_Delete(doc);
    return rc;
}

int cli_write_csv_rows(const char *cmd, const char *path, cJSON *rows, const char *const *skip)
{
    struct csv_job j = {rows, skip};
    int rc = cli_write_out(cmd, path, put_csv, &j);
    cJSON_Delete(rows);
    return rc;
}

int cli_write_results(const char *cmd, const char *json, const char *csv, cJSON *doc,
                      const char *rows)
{
    int rc = 0;
    if (csv) {
        const cJSON *r = rows ? cJSON_GetObjectItemCaseSensitive(doc, rows) : doc;
        rc = cli_write_csv_rows(cmd, csv, cJSON_Duplicate(r, 1), NULL);
    }
    if (json)
        return cli_write_json(cmd, json, doc) ? -1 : rc;
    cJSON_Delete(doc);
    return rc;
}

struct text_job {
    const char *text;
    size_t len;
};

static int put_text(FILE *fp, const void *ctx, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    const struct text_job *j = ctx;
    fwrite(j->text, 1, j->len, fp);
    return 0;
}

int cli_write_text(const char *cmd, const char *path, const char *text, size_t len)
{
    const struct text_job j = {text, len};
    return cli_write_out(cmd, path, put_text, &j);
}
