/*
 * cli — the sharesim subcommands. Each lives in sim/cmd_<name>.c and has the
 * signature of main(); it returns the process exit code (0 ok, 1 infeasible,
 * 2 bad input — SCENARIO.md). sim/cli/main.c only dispatches.
 */
#ifndef SS_CLI_H
#define SS_CLI_H

#include <sys/types.h>

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
int cmd_cluster(int argc, char **argv);

/* SIGINT/SIGTERM stop the workers of a running pool (tools/pool.h) and the child given
 * to cli_set_child, remove open temporary outputs and exit 128+signal. */
void cli_install_signal_handlers(void);
/* The one helper process (not a pool worker) the handlers stop too; 0 = none. Set it with
 * SIGINT/SIGTERM blocked from before the fork, so a signal never misses it. */
void cli_set_child(pid_t pid);
/* Strict integer parse of an option value. */
int cli_parse_long(const char *s, long lo, long hi, long *out);

struct scenario;
/* Loads a scenario (scn_load_flags); on bad input prints the message and returns 2. */
int cli_load_scenario(const char *path, unsigned flags, struct scenario *sc);

/* True when stderr is a terminal (progress lines are shown only then). */
int cli_stderr_is_tty(void);

#endif
