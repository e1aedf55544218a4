/*
 * sharesim compare — runs a scenario and prints the comparison of tools/compare.h: strategies
 * side by side per tenant with the best of each column marked, and what dominated each
 * strategy's latency; the same figures as JSON (--json) and CSV rows (--csv).
 */
#include "cli/cli.h"
#include "cli/outplan.h"
#include "tools/compare.h"
#include "core/policy.h"
#include "report/report.h"
#include "core/run.h"
#include "core/scenario.h"
#include "base/util.h"

#include <getopt.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sharesim compare SCENARIO [--baseline NAME] [--seed N] [--replications R]\n"
            "                        [--json FILE|-] [--csv FILE|-] [--quiet] [--check-sla]\n\n"
            "Runs the scenario and prints, per tenant, each strategy's p99, throughput, SLA\n"
            "attainment, p99 slowdown against the baseline strategy (default: the first\n"
            "exclusive one, else the first) and cost per million requests, and for an LLM\n"
            "tenant its TTFT and TPOT p99, output tokens/s and goodput; * marks the best\n"
            "value of each column (of $/Mreq: the cheapest strategy that meets every SLA),\n"
            "and the tenant's verdict (docs/scenario.md#the-verdict). Then one line per\n"
            "strategy on what dominated the plain tenants' latency.\n\n"
            "  --baseline NAME   the strategy slowdowns are measured against\n"
            "  --seed N          override the scenario's seed\n"
            "  --replications R  override the scenario's replications\n"
            "  --json FILE       the comparison as JSON: \"rows\" (one per tenant × strategy,\n"
            "                    \"best\" naming the columns it is best in, \"stable\") and\n"
            "                    \"latency\" (the decomposition per strategy); - for stdout\n"
            "  --csv FILE        the rows as CSV; - for stdout\n"
            "  --quiet           no table on stdout\n"
            "  --check-sla       exit 1 when a tenant with an SLA misses it under some strategy\n"
            "                    (docs/scenario.md#the-verdict; each named on stderr)\n"
            "exit: 0 ok (also with SLAs missed, unless --check-sla), 1 an SLA missed with\n"
            "      --check-sla, 2 bad input\n");
}

int cmd_compare(int argc, char **argv)
{
    static const char cmd[] = "sharesim compare";
    const char *baseline = NULL, *json = NULL, *csv = NULL;
    struct run_opts ro = {0, -1, 0, 0};
    int quiet = 0, check_sla = 0;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("baseline", 'b', &baseline),
        CLI_OPT_LONG("seed", 's', &ro.seed, 0, 4294967295.0),
        CLI_OPT_INT("replications", 'r', &ro.replications, 1, 10000),
        CLI_OPT_STR("json", 'j', &json),
        CLI_OPT_STR("csv", 'c', &csv),
        CLI_OPT_FLAG("quiet", 'q', &quiet),
        CLI_OPT_FLAG("check-sla", 0, &check_sla),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec spec = {
        .cmd = cmd, .opts = opts, .usage = usage, .min_args = 1, .max_args = 1};
    int prc = cli_parse_opts(&spec, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    struct scenario sc;
    if (cli_load_scenario(argv[optind], 0, &sc))
        return SS_EXIT_BADINPUT;
    int base = -1;
    for (int k = 0; k < sc.n_strategies; k++) {
        if (baseline && strcmp(sc.strategies[k].name, baseline) == 0)
            base = k;
        if (!baseline && base < 0 && policy_is_baseline(sc.strategies[k].ops))
            base = k;
    }
    if (baseline && base < 0) {
        fprintf(stderr, "sharesim compare: --baseline: no strategy named \"%s\" in %s\n", baseline,
                argv[optind]);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    if (base < 0)
        base = 0;
    if (op_files(cmd, OP_LIST("SCENARIO", argv[optind]), OP_LIST("--json", json, "--csv", csv))) {
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    cli_install_signal_handlers();
    ro.progress = cli_stderr_is_tty() && !quiet;
    struct run_result r;
    char err[SS_ERRLEN];
    if (run_scenario(&sc, &ro, &r, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    if (!quiet && !cli_is_stdout(json) && !cli_is_stdout(csv))
        cmp_print(stdout, &sc, &r, base);
    rep_warn_unstable(stderr, cmd, &sc, &r);
    int rc = SS_EXIT_OK;
    if (json && cli_write_json(cmd, json, cmp_json(&sc, &r, base)))
        rc = SS_EXIT_BADINPUT;
    if (csv && cli_write_csv_rows(cmd, csv, cmp_rows(&sc, &r, base), NULL))
        rc = SS_EXIT_BADINPUT;
    if (check_sla && rep_sla_misses(stderr, cmd, &sc, &r) > 0 && rc == SS_EXIT_OK)
        rc = SS_EXIT_INFEASIBLE;
    run_result_free(&r);
    scn_free(&sc);
    return rc;
}
