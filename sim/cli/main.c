/*
 * sharesim — the program: every command is a row of the table in sim/cli/commands.c, and
 * cli_dispatch() finds it (or prints the list).
 */
#include "cli/cli.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("sharesim %s\n", SHARESIM_VERSION);
        return SS_EXIT_OK;
    }
    return cli_dispatch("sharesim", &cli_root, argc, argv);
}
