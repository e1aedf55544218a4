/*
 * sharesim — the program: every command is a row of the table in sim/cli/commands.c, and
 * cli_dispatch() finds it (or prints the list).
 */
#include "cli/cli.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * Output on stdout (tables, `--json -`) that could not be written is an error, not a success:
 * `sharesim run s.json > /dev/full` must not exit 0. Checked once at the end, for whatever
 * any command printed. A command that failed already said why (ss_out_commit reports its
 * own stdout outputs), so only a success is turned into a failure here.
 */
static int close_stdout(int rc)
{
    int e = fflush(stdout) != 0 ? errno : ferror(stdout) ? EIO : 0;
    if (fclose(stdout) != 0 && !e)
        e = errno;
    if (!e || rc != SS_EXIT_OK)
        return rc;
    fprintf(stderr, "sharesim: stdout: write error: %s\n", strerror(e));
    return rc ? rc : SS_EXIT_BADINPUT;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("sharesim %s\n", SHARESIM_VERSION);
        return close_stdout(SS_EXIT_OK);
    }
    /* Every command, whatever it writes, removes its temporaries on SIGINT/SIGTERM. */
    cli_install_signal_handlers();
    return close_stdout(cli_dispatch("sharesim", &cli_root, argc, argv));
}
