/*
 * commands — the table of sharesim's commands: one row per command, its function or the
 * group of its subcommands in sim/cli/cmd_<name>.c. main() dispatches through it; the tests
 * walk it to check every command's --help.
 */
#include "cli/cli.h"
#include "base/util.h"

static const struct cli_command commands[] = {
    /* one line per command; keep sorted by how often people use them */
    {"run", "simulate a scenario's strategies and print the result table", cmd_run, NULL},
    {"compare", "strategies side by side per tenant, best marked, what dominated latency",
     cmd_compare, NULL},
    {"sweep", "what-if grid: run a scenario over parameter values, in parallel", cmd_sweep, NULL},
    {"trace", "request traces: stats (count, rate, burstiness, tokens), gen", NULL, &cmd_trace},
    {"report", "tables and plot data from results (results/, docs/results.md)", NULL, &cmd_report},
    {"plan", "capacity planner: cheapest configuration that meets every SLA", cmd_plan, NULL},
    {"mig", "MIG profiles: layouts, check, pack", NULL, &cmd_mig},
    {"cluster", "pod placement on a GPU cluster: policies, fragmentation (FGD comparable)",
     cmd_cluster, NULL},
    {"model", "LLM architectures: show one (or a config.json's), list the table", NULL, &cmd_model},
    {"profile", "GPU calibration profiles: list, show, diff, merge, match", NULL, &cmd_profile},
    {"fidelity",
     "measured GPU contention (kernels/fidelity) against the prediction: scenario, table", NULL,
     &cmd_fidelity},
    {"validate", "check the simulator against exact queueing results", cmd_validate, NULL},
    {NULL, NULL, NULL, NULL},
};

const struct cli_group cli_root = {
    "sharesim " SHARESIM_VERSION " — discrete-event simulator for GPU sharing strategies\n",
    commands,
    "Results: --json FILE|- (and --csv FILE|- where there are rows); - is stdout.\n"
    "exit codes: 0 ok; 1 it ran, but the answer is negative (an SLA missed with --check-sla,\n"
    "no plan meets every SLA, an illegal MIG layout, …); 2 bad input (docs/cli.md)\n",
};
