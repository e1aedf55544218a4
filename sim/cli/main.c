/*
 * sharesim — command dispatch. Each command is one entry of the table below
 * and one sim/cmd_<name>.c file.
 */
#include "cli/cli.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

static const struct cli_command commands[] = {
    /* one line per command; keep sorted by how often people use them */
    {"run", "simulate a scenario's strategies and print the result table", cmd_run},
    {"compare", "strategies side by side per tenant, best marked, what dominated latency",
     cmd_compare},
    {"sweep", "what-if grid: run a scenario over parameter values, in parallel", cmd_sweep},
    {"trace", "request traces: stats (count, rate, burstiness, tokens)", cmd_trace},
    {"report", "tables and plot data from results (results/, docs/results.md)", cmd_report},
    {"plan", "capacity planner: cheapest configuration that meets every SLA", cmd_plan},
    {"mig", "MIG profiles: layouts, check, pack", cmd_mig},
    {"cluster", "pod placement on a GPU cluster: policies, fragmentation (FGD comparable)",
     cmd_cluster},
    {"profile", "GPU calibration profiles: list, show, diff, merge, match", cmd_profile},
    {"validate", "check the simulator against exact queueing results", cmd_validate},
    {NULL, NULL, NULL},
};

static void usage(FILE *fp)
{
    fprintf(fp,
            "sharesim %s — discrete-event simulator for GPU sharing strategies\n\n"
            "usage: sharesim COMMAND [options]   (sharesim COMMAND --help for details)\n\n"
            "commands:\n",
            SHARESIM_VERSION);
    for (const struct cli_command *c = commands; c->name; c++)
        fprintf(fp, "  %-10s %s\n", c->name, c->summary);
    fprintf(fp, "\nexit codes: 0 ok, 1 SLA or plan infeasible, 2 bad input\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("sharesim %s\n", SHARESIM_VERSION);
        return 0;
    }
    for (const struct cli_command *c = commands; c->name; c++)
        if (strcmp(argv[1], c->name) == 0)
            return c->fn(argc - 1, argv + 1);
    fprintf(stderr, "sharesim: unknown command \"%s\" (see sharesim --help)\n", argv[1]);
    return 2;
}
