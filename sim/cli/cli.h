/*
 * cli — the sharesim subcommands. Each lives in sim/cli/cmd_<name>.c and has the
 * signature of main(); it returns the process exit code (SS_EXIT_*). Numbers on the command
 * line go through cli_opt_long() / cli_opt_double(), which print the one wording of an
 * option error.
 */
#ifndef SS_CLI_H
#define SS_CLI_H

struct cli_command {
    const char *name;
    const char *summary;
    int (*fn)(int argc, char **argv);
};

int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_mig(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_report(int argc, char **argv);

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

/* SIGINT/SIGTERM remove open temporary outputs and exit 128+signal. */
void cli_install_signal_handlers(void);

struct scenario;
/* Loads a scenario (scn_load_flags); on bad input prints the message and returns
 * SS_EXIT_BADINPUT. */
int cli_load_scenario(const char *path, unsigned flags, struct scenario *sc);

/* True when stderr is a terminal (progress lines are shown only then). */
int cli_stderr_is_tty(void);

#endif
