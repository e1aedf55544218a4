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

#include <stdio.h>
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
int cmd_profile_fit(int argc, char **argv);       /* `profile fit` (cmd_fit.c) */
int cmd_profile_occupancy(int argc, char **argv); /* `profile occupancy` (cmd_occupancy.c) */
extern const struct cli_group cmd_profile, cmd_mig, cmd_trace, cmd_report, cmd_fidelity, cmd_model;

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

/*
 * A command's options as a table, one row an option (cliopt.c builds getopt_long's arrays
 * from it). A row stores its value into target: CLI_FLAG sets an int to 1 and CLI_UNSET to 0;
 * CLI_STR keeps the argument (const char *); CLI_LONG (long) and CLI_INT (int) are integers
 * in [lo, hi] (hi INFINITY: no bound) and CLI_DOUBLE a number as cli_opt_double() checks it,
 * each with cli_opt_long()'s or cli_opt_double()'s message; CLI_CALL hands the argument to
 * call(cmd, target, arg), which prints its own message and returns non-zero when it is bad;
 * CLI_HELP prints the usage on stdout.
 */
enum cli_kind { CLI_FLAG, CLI_UNSET, CLI_STR, CLI_LONG, CLI_INT, CLI_DOUBLE, CLI_CALL, CLI_HELP };
struct cli_opt {
    const char *name; /* the long name, without "--"; NULL ends the table */
    int short_name;   /* -x, or 0 */
    enum cli_kind kind;
    void *target;
    double lo, hi;
    enum cli_lo lo_kind;
    int (*call)(const char *cmd, void *target, const char *arg);
};
/* Rows, by kind (designated, so that a row names only what it uses). */
#define CLI_OPT_ROW(n, s, k, ...)                                                                  \
    {                                                                                              \
        .name = (n), .short_name = (s), .kind = (k), __VA_ARGS__                                   \
    }
#define CLI_OPT_STR(n, s, t) CLI_OPT_ROW(n, s, CLI_STR, .target = (t))
#define CLI_OPT_FLAG(n, s, t) CLI_OPT_ROW(n, s, CLI_FLAG, .target = (t))
#define CLI_OPT_UNSET(n, s, t) CLI_OPT_ROW(n, s, CLI_UNSET, .target = (t))
#define CLI_OPT_LONG(n, s, t, l, h) CLI_OPT_ROW(n, s, CLI_LONG, .target = (t), .lo = (l), .hi = (h))
#define CLI_OPT_INT(n, s, t, l, h) CLI_OPT_ROW(n, s, CLI_INT, .target = (t), .lo = (l), .hi = (h))
#define CLI_OPT_NUM(n, s, t, lk, l, h)                                                             \
    CLI_OPT_ROW(n, s, CLI_DOUBLE, .target = (t), .lo_kind = (lk), .lo = (l), .hi = (h))
#define CLI_OPT_CALL(n, s, t, fn) CLI_OPT_ROW(n, s, CLI_CALL, .target = (t), .call = (fn))
#define CLI_OPT_HELP CLI_OPT_ROW("help", 'h', CLI_HELP, .target = NULL)
#define CLI_OPT_END                                                                                \
    {                                                                                              \
        .name = NULL                                                                               \
    }
struct cli_spec {
    const char *cmd;            /* as typed, for messages: "sharesim run" */
    const struct cli_opt *opts; /* {NULL}-terminated */
    void (*usage)(FILE *fp);    /* the usage text, or NULL and */
    const char *help;           /* the usage text as a string */
    int min_args, max_args;     /* positional arguments; max_args < 0: no bound */
    int own_errors;             /* word an unknown option or a missing value as `CMD: …` */
    unsigned long *given;       /* or NULL: bit i set when opts[i] was given */
};
/*
 * Parses argv (argv[0] the command's name) by the spec. Returns CLI_CONTINUE with optind at
 * the first positional argument, SS_EXIT_OK after printing the usage for --help, or
 * SS_EXIT_BADINPUT after a bad option, value or count of positional arguments (with the
 * usage on stderr, except after a bad value, whose message says it all).
 */
int cli_parse_opts(const struct cli_spec *sp, int argc, char **argv);
/* A CLI_CALL for --shard I/N (tools/shard.h): target is a struct shard. */
int cli_opt_shard(const char *cmd, void *target, const char *arg);

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
/* Seconds on the monotonic clock, for progress lines and wall times. */
double cli_now_s(void);

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
/* Any output: put() writes it into fp and returns 0, or -1 with err filled (the output is
 * then removed). */
typedef int (*cli_put_fn)(FILE *fp, const void *ctx, char *err, size_t errlen);
int cli_write_out(const char *cmd, const char *path, cli_put_fn put, const void *ctx);
/* doc as cJSON_Print prints it plus a newline, into fp. */
void cli_put_doc(FILE *fp, const struct cJSON *doc);
/* The document, as cJSON_Print prints it plus a newline; doc is deleted. */
int cli_write_json(const char *cmd, const char *path, struct cJSON *doc);
/* An array of objects as CSV (report/csvrows.h: one row per object, keys in skip left out);
 * rows is deleted. */
int cli_write_csv_rows(const char *cmd, const char *path, struct cJSON *rows,
                       const char *const *skip);
/* A result to --csv (when csv is not NULL: doc's array member `rows`, or doc itself when rows
 * is NULL) and then to --json (when json is not NULL); doc is deleted. 0, or -1 when one of
 * them failed (its message printed; the other is still written). */
int cli_write_results(const char *cmd, const char *json, const char *csv, struct cJSON *doc,
                      const char *rows);
/* Any bytes, as they are, to path. */
int cli_write_text(const char *cmd, const char *path, const char *text, size_t len);

#endif
