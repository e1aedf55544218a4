/*
 * cli — the sharesim command line. Every command is a row of a `struct cli_command` table
 * and lives in one sim/cli/cmd_<name>.c file; a row either runs the command (fn, with the
 * signature of main(), returning an SS_EXIT_* code) or points to the group of its
 * subcommands (another table). cli_dispatch() walks the tables, from main() down, so
 * `--help`, a missing and an unknown (sub)command read the same at every level. Numbers on
 * the command line go through cli_opt_long() / cli_opt_double(), which print the one wording
 * of an option error. docs/cli.md has the conventions.
 */
#ifndef SS_CLI_H
#define SS_CLI_H

#include <sys/types.h>

struct cli_group;

/* One row of a command table. */
struct cli_command {
    const char *name;
    const char *summary;              /* one line in the parent's list */
    int (*fn)(int argc, char **argv); /* a command: argv[0] is its name; or NULL, and */
    const struct cli_group *group;    /* a group: the table of its subcommands */
};

/* A command with subcommands: its table and the text around the table in its help. */
struct cli_group {
    const char *head;               /* before the usage line, or NULL */
    const struct cli_command *subs; /* {NULL}-terminated */
    const char *notes;              /* after the list, or NULL */
};

/*
 * Runs the subcommand argv[1] of group g (argv[0] is the group's own name; path is how to
 * print it: "sharesim", "sharesim mig"); a subcommand that is a group is dispatched the same
 * way. `--help`, `-h` or `help` print the group's help on stdout (exit 0); no subcommand or
 * an unknown one print it on stderr (exit 2), the latter after `PATH: unknown subcommand
 * "NAME"`. Returns the command's exit code (SS_EXIT_*).
 */
int cli_dispatch(const char *path, const struct cli_group *g, int argc, char **argv);

/* The commands of sharesim, what main() dispatches (sim/cli/commands.c). */
extern const struct cli_group cli_root;

/* The commands (sim/cli/cmd_<name>.c): functions, or groups of subcommands. */
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_cluster(int argc, char **argv);
int cmd_profile_fit(int argc, char **argv); /* `profile fit` (cmd_fit.c) */
extern const struct cli_group cmd_profile, cmd_mig, cmd_trace, cmd_report, cmd_fidelity;

/*
 * Option values. Each prints `CMD: OPT: expected WHAT, got "ARG"` on stderr and returns -1
 * when the value does not parse or is out of range (the caller exits SS_EXIT_BADINPUT), or
 * stores it and returns 0. cmd is the command as typed ("sharesim profile show"), opt the
 * option ("--width").
 */
/* An integer in [lo, hi] (decimal, nothing after it); hi = LONG_MAX: no upper bound. */
int cli_opt_long(const char *cmd, const char *opt, const char *arg, long lo, long hi, long *out);
/* A finite number x with lo <= x (CLI_GE) or lo < x (CLI_GT), and x <= hi; hi may be
 * INFINITY. Scales and durations are CLI_GT 0. */
enum cli_lo { CLI_GE, CLI_GT };
int cli_opt_double(const char *cmd, const char *opt, const char *arg, enum cli_lo lo_kind,
                   double lo, double hi, double *out);
/* Any other bad option value, in the same wording (what: "largest or arrival"). */
int cli_opt_error(const char *cmd, const char *opt, const char *arg, const char *what);

/* Option parsers of commands return this to mean "parsed, go on", or else an exit code. */
#define CLI_CONTINUE (-1)

/* Strict integer parse without a message (for the environment, e.g. $COLUMNS): 0 or -1. */
int cli_parse_long(const char *s, long lo, long hi, long *out);

/* SIGINT/SIGTERM stop the workers of a running pool (tools/pool.h), remove open temporary
 * outputs and exit 128+signal. */
void cli_install_signal_handlers(void);

struct scenario;
/* Loads a scenario (scn_load_flags); on bad input prints the message and returns
 * SS_EXIT_BADINPUT. */
int cli_load_scenario(const char *path, unsigned flags, struct scenario *sc);

/* True when stderr is a terminal (progress lines are shown only then). */
int cli_stderr_is_tty(void);

/*
 * Result outputs, one convention for every command (docs/cli.md): `--json FILE|-` and, where
 * the result has rows, `--csv FILE|-`; "-" is stdout, and a command whose result goes to
 * stdout prints no table there. Each writes through an atomic temporary file (util.h's
 * ss_out), prints `CMD: MESSAGE` when that fails and returns -1 (the caller exits
 * SS_EXIT_BADINPUT), else 0. Before any work a command plans its outputs with cli/outplan.h,
 * so no two of them are one file and none is an input.
 */
struct cJSON;
int cli_is_stdout(const char *path);
/* The document, as cJSON_Print prints it plus a newline; doc is deleted. */
int cli_write_json(const char *cmd, const char *path, struct cJSON *doc);
/* An array of objects as CSV (report/csvrows.h: one row per object, keys in skip left out);
 * rows is deleted. */
int cli_write_csv_rows(const char *cmd, const char *path, struct cJSON *rows,
                       const char *const *skip);

#endif
