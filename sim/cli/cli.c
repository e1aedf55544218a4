/*
 * cli — helpers shared by the subcommands: terminal detection, strict option
 * parsing and the signal handlers that remove partial outputs.
 */
#include "cli/cli.h"
#include "core/scenario.h"
#include "tools/pool.h"
#include "base/util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int cli_stderr_is_tty(void)
{
    return isatty(STDERR_FILENO);
}

/* A helper process the handler stops too (sweep's gnuplot); 0 = none. volatile: the
 * handler must see each store when it happens. */
static volatile pid_t g_child;

void cli_set_child(pid_t pid)
{
    g_child = pid;
}

/*
 * Children first, and waited for: a pool worker's own handler removes its temporaries,
 * and once they are gone nothing of ours writes after we exit. Then our temporaries.
 */
static void on_signal(int sig)
{
    pool_stop_workers_signal_safe();
    if (g_child > 0) {
        kill(g_child, SIGTERM);
        waitpid(g_child, NULL, 0);
    }
    ss_out_abort_all_signal_safe();
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

int cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    long v = strtol(s, &end, 10);
    if (*end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_load_scenario(const char *path, unsigned flags, struct scenario *sc)
{
    char err[SS_ERRLEN];
    if (scn_load_flags(path, flags, sc, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "sharesim: %s\n", err);
    scn_free(sc);
    return SS_EXIT_BADINPUT;
}
