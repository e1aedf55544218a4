/*
 * cli — helpers shared by the commands: option values with one wording for their errors,
 * terminal detection, and the signal handlers that remove partial outputs.
 */
#include "cli/cli.h"
#include "core/scenario.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void on_signal(int sig)
{
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

int cli_load_scenario(const char *path, unsigned flags, struct scenario *sc)
{
    char err[SS_ERRLEN];
    if (scn_load_flags(path, flags, sc, err, sizeof err) == 0)
        return SS_EXIT_OK;
    fprintf(stderr, "sharesim: %s\n", err);
    scn_free(sc);
    return SS_EXIT_BADINPUT;
}
