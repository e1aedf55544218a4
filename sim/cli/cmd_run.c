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

/* Writes the --cdf file (a second pass over the same seeds, see cdf.h). */
static int write_cdf(const char *path, const struct scenario *sc, const struct run_opts *ro)
{
    struct ss_out o;
    char err[SS_ERRLEN];
    if (ss_out_open(&o, path, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        return -1;
    }
    struct cdf_result c;
    if (cdf_collect(sc, ro->seed, ro->replications, &c, err, sizeof err)) {
        ss_out_abort(&o);
        fprintf(stderr, "sharesim: %s\n", err);
        return -1;
    }
    cdf_write_csv(o.fp, sc, &c);
    cdf_free(&c);
    if (ss_out_commit(&o, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        return -1;
    }
    return 0;
}

/* Writes one output through an atomic temporary file. */
static int write_output(const char *path, const struct scenario *sc, const struct run_result *r,
                        int json, double load_scale)
{
    struct ss_out o;
    char err[SS_ERRLEN];
    if (ss_out_open(&o, path, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        return -1;
    }
    if (json) {
        cJSON *doc = rep_json(sc, r);
        if (load_scale != 1.0)
            jv_out_add(doc, "load_scale", load_scale);
        char *text = cJSON_Print(doc);
        fputs(text, o.fp);
        fputc('\n', o.fp);
        free(text);
        cJSON_Delete(doc);
    } else {
        rep_csv(o.fp, sc, r);
    }
    if (ss_out_commit(&o, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        return -1;
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {{"json", required_argument, 0, 'j'},
                                         {"csv", required_argument, 0, 'c'},
                                         {"seed", required_argument, 0, 's'},
                                         {"replications", required_argument, 0, 'r'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"no-slowdown", no_argument, 0, 'n'},
                                         {"cdf", required_argument, 0, 'F'},
                                         {"scale-load", required_argument, 0, 'L'},
                                         {"check-sla", no_argument, 0, 'S'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *json = NULL, *csv = NULL, *cdf = NULL;
    double load_scale = 1.0;
    struct run_opts ro = {0, -1, 1, 0};
    int quiet = 0, check_sla = 0, c;
    long v;
    optind = 1;
    while ((c = getopt_long(argc, argv, "j:c:s:r:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = optarg;
            break;
        case 'c':
            csv = optarg;
            break;
        case 's':
            if (cli_opt_long("sharesim run", "--seed", optarg, 0, 4294967295L, &v))
                return SS_EXIT_BADINPUT;
            ro.seed = v;
            break;
        case 'r':
            if (cli_opt_long("sharesim run", "--replications", optarg, 1, 10000, &v))
                return SS_EXIT_BADINPUT;
            ro.replications = (int)v;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'n':
            ro.slowdown = 0;
            break;
        case 'L':
            if (cli_opt_double("sharesim run", "--scale-load", optarg, CLI_GT, 0, INFINITY,
                               &load_scale))
                return SS_EXIT_BADINPUT;
            break;
        case 'F':
            cdf = optarg;
            break;
        case 'S':
            check_sla = 1;
            break;
        case 'h':
            usage(stdout);
            return SS_EXIT_OK;
        default:
            usage(stderr);
            return SS_EXIT_BADINPUT;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
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
    struct op_plan op;
    op_init(&op, "sharesim run");
    op_input(&op, "SCENARIO", argv[optind]);
    op_output(&op, "--json", json);
    op_output(&op, "--csv", csv);
    op_output(&op, "--cdf", cdf);
    if (op_done(&op)) {
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
    if (json && write_output(json, &sc, &r, 1, load_scale))
        rc = SS_EXIT_BADINPUT;
    if (csv && write_output(csv, &sc, &r, 0, load_scale))
        rc = SS_EXIT_BADINPUT;
    if (cdf && write_cdf(cdf, &sc, &ro))
        rc = SS_EXIT_BADINPUT;
    if (check_sla && rep_sla_misses(stderr, "sharesim run", &sc, &r) > 0 && rc == SS_EXIT_OK)
        rc = SS_EXIT_INFEASIBLE;
    run_result_free(&r);
    scn_free(&sc);
    return rc;
}
