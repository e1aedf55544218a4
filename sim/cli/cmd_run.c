/*
 * sharesim run — simulate every strategy of a scenario and print the table
 * (and JSON/CSV files). Outputs are written atomically; SIGINT/SIGTERM remove
 * the partial files and exit 130/143.
 */
#include "base/jsonv.h"
#include "report/cdf.h"
#include "cli/cli.h"
#include "cli/outplan.h"
#include "core/loadscale.h"
#include "report/report.h"
#include "core/run.h"
#include "core/scenario.h"
#include "base/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp, "usage: sharesim run SCENARIO [--json FILE|-] [--csv FILE|-] [--seed N]\n"
                "                    [--replications R] [--quiet] [--no-slowdown]\n"
                "                    [--scale-load X] [--cdf FILE] [--check-sla]\n\n"
                "Simulates every strategy of the scenario on the same arrivals (common random\n"
                "numbers) and prints one row per (strategy, tenant).\n\n"
                "  --json FILE       write the result (fields: docs/scenario.md); - for stdout\n"
                "  --csv FILE        one row per strategy × tenant; - for stdout\n"
                "  --seed N          override the scenario's seed\n"
                "  --replications R  override the scenario's replications (R > 1: 95%% CIs)\n"
                "  --quiet           no table on stdout\n"
                "  --no-slowdown     skip the exclusive baseline behind slowdown_p99\n"
                "  --scale-load X    multiply every tenant's arrival rate by X > 0 (poisson,\n"
                "                    deterministic, gamma, diurnal, each MMPP state; a trace\n"
                "                    replays X times faster; saturated tenants unchanged);\n"
                "                    stop and warm-up unchanged; the JSON gets \"load_scale\"\n"
                "  --cdf FILE        latency quantiles per strategy × tenant (and pooled,\n"
                "                    tenant \"(all)\") at fixed probabilities, CSV\n"
                "                    strategy,tenant,p,latency_ms (re-runs the replications)\n"
                "  --check-sla       exit 1 when a tenant with an SLA misses it under some\n"
                "                    strategy (docs/scenario.md#the-verdict; each named on\n"
                "                    stderr with its reason)\n"
                "exit: 0 ok (also with SLAs missed, unless --check-sla), 1 an SLA missed with\n"
                "      --check-sla, 2 bad input\n");
}

struct run_out {
    const struct scenario *sc;
    const struct run_opts *ro;
    const struct run_result *r;
    double load_scale;
};

/* The --cdf file (a second pass over the same seeds, see cdf.h). */
static int put_cdf(FILE *fp, const void *ctx, char *err, size_t errlen)
{
    const struct run_out *w = ctx;
    struct cdf_result c;
    if (cdf_collect(w->sc, w->ro->seed, w->ro->replications, &c, err, errlen))
        return -1;
    cdf_write_csv(fp, w->sc, &c);
    cdf_free(&c);
    return 0;
}

static int put_json(FILE *fp, const void *ctx, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    const struct run_out *w = ctx;
    cJSON *doc = rep_json(w->sc, w->r);
    if (w->load_scale != 1.0)
        jv_out_add(doc, "load_scale", w->load_scale);
    cli_put_doc(fp, doc);
    cJSON_Delete(doc);
    return 0;
}

static int put_csv(FILE *fp, const void *ctx, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    const struct run_out *w = ctx;
    rep_csv(fp, w->sc, w->r);
    return 0;
}

int cmd_run(int argc, char **argv)
{
    const char *json = NULL, *csv = NULL, *cdf = NULL;
    double load_scale = 1.0;
    struct run_opts ro = {0, -1, 1, 0};
    int quiet = 0, check_sla = 0;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("json", 'j', &json),
        CLI_OPT_STR("csv", 'c', &csv),
        CLI_OPT_LONG("seed", 's', &ro.seed, 0, 4294967295.0),
        CLI_OPT_INT("replications", 'r', &ro.replications, 1, 10000),
        CLI_OPT_FLAG("quiet", 'q', &quiet),
        CLI_OPT_UNSET("no-slowdown", 0, &ro.slowdown),
        CLI_OPT_STR("cdf", 0, &cdf),
        CLI_OPT_NUM("scale-load", 0, &load_scale, CLI_GT, 0, INFINITY),
        CLI_OPT_FLAG("check-sla", 0, &check_sla),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec spec = {
        .cmd = "sharesim run", .opts = opts, .usage = usage, .min_args = 1, .max_args = 1};
    int prc = cli_parse_opts(&spec, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    struct scenario sc;
    if (cli_load_scenario(argv[optind], 0, &sc))
        return SS_EXIT_BADINPUT;
    char err[SS_ERRLEN];
    if (load_scale != 1.0 && ls_scale_load(&sc, load_scale, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    /* Before the run, not after it: no output may be an input or another output. */
    if (op_files("sharesim run", OP_LIST("SCENARIO", argv[optind]),
                 OP_LIST("--json", json, "--csv", csv, "--cdf", cdf))) {
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    cli_install_signal_handlers();
    ro.progress = cli_stderr_is_tty() && !quiet;
    struct run_result r;
    if (run_scenario(&sc, &ro, &r, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    rep_warn_unstable(stderr, "sharesim run", &sc, &r);
    int rc = SS_EXIT_OK;
    int json_stdout = json && strcmp(json, "-") == 0;
    int csv_stdout = csv && strcmp(csv, "-") == 0;
    if (!quiet && !json_stdout && !csv_stdout)
        rep_table(stdout, &sc, &r);
    const struct run_out w = {&sc, &ro, &r, load_scale};
    if (json && cli_write_out("sharesim", json, put_json, &w))
        rc = SS_EXIT_BADINPUT;
    if (csv && cli_write_out("sharesim", csv, put_csv, &w))
        rc = SS_EXIT_BADINPUT;
    if (cdf && cli_write_out("sharesim", cdf, put_cdf, &w))
        rc = SS_EXIT_BADINPUT;
    if (check_sla && rep_sla_misses(stderr, "sharesim run", &sc, &r) > 0 && rc == SS_EXIT_OK)
        rc = SS_EXIT_INFEASIBLE;
    run_result_free(&r);
    scn_free(&sc);
    return rc;
}
