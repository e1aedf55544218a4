/*
 * sharesim plan — the capacity planner's command line (sim/tools/plan.h has the method).
 */
#include "cli/cli.h"
#include "report/html.h"
#include "tools/plan.h"
#include "core/scenario.h"
#include "base/util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sharesim plan SCENARIO [--json FILE|-] [--csv FILE|-] [--html FILE] [--k8s DIR]\n"
            "                     [--quiet]\n\n"
            "Finds the cheapest configuration (strategy kind, parameters, GPU count) under\n"
            "which every tenant meets its p99 SLA. The scenario's tenants and GPU are the\n"
            "input; its strategies are ignored (and may be left out); an optional \"plan\": "
            "{\"kinds\": [...],\n"
            "\"max_gpus\": N, \"max_simulations\": N} limits the search. Candidates are pruned\n"
            "with queueing theory, then simulated cheapest first.\n\n"
            "  --json FILE  recommendation and ranked candidates as JSON; - for stdout\n"
            "  --csv FILE   the ranked candidates, one row each (p99_ms.TENANT when simulated)\n"
            "  --html FILE  the candidates as a self-contained page (docs/report.md)\n"
            "  --k8s DIR    write the Kubernetes artefact of the recommendation into DIR\n"
            "  --quiet      no table on stdout\n"
            "exit: 0 a configuration meets every SLA, 1 none does (closest shown), 2 bad input\n");
}

int cmd_plan(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", required_argument, 0, 'j'}, {"csv", required_argument, 0, 'c'},
        {"k8s", required_argument, 0, 'k'},  {"html", required_argument, 0, 'H'},
        {"quiet", no_argument, 0, 'q'},      {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *json = NULL, *csv = NULL, *k8s = NULL, *html = NULL;
    int quiet = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "j:c:k:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = optarg;
            break;
        case 'c':
            csv = optarg;
            break;
        case 'k':
            k8s = optarg;
            break;
        case 'H':
            html = optarg;
            break;
        case 'q':
            quiet = 1;
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
    if (cli_load_scenario(argv[optind], SCN_IGNORE_STRATEGIES, &sc))
        return SS_EXIT_BADINPUT;
    char err[SS_ERRLEN];
    const char *out_opts[] = {"--json", "--csv", "--html"}, *out_paths[] = {json, csv, html};
    if (ss_out_distinct(out_opts, out_paths, 3, err, sizeof err)) {
        fprintf(stderr, "sharesim plan: %s\n", err);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    cli_install_signal_handlers();
    struct plan_result r;
    if (plan_run(&sc, cli_stderr_is_tty() && !quiet, &r, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    if (!quiet && !cli_is_stdout(json) && !cli_is_stdout(csv))
        plan_table(stdout, &sc, &r);
    int rc = r.best >= 0 ? SS_EXIT_OK : SS_EXIT_INFEASIBLE;
    if (json && cli_write_json("sharesim plan", json, plan_json(&sc, &r)))
        rc = SS_EXIT_BADINPUT;
    if (csv) {
        /* The CSV is the JSON's candidates; a strategy object has no columns of its own. */
        static const char *const skip[] = {"strategy", NULL};
        cJSON *doc = plan_json(&sc, &r);
        cJSON *rows = cJSON_DetachItemFromObject(doc, "candidates");
        cJSON_Delete(doc);
        if (cli_write_csv_rows("sharesim plan", csv, rows, skip))
            rc = SS_EXIT_BADINPUT;
    }
    if (html) {
        struct ss_out o;
        cJSON *doc = plan_json(&sc, &r);
        if (ss_out_open(&o, html, err, sizeof err) ||
            (ht_plan_page(o.fp, &sc, doc, err, sizeof err) ? (ss_out_abort(&o), 1)
                                                           : ss_out_commit(&o, err, sizeof err))) {
            fprintf(stderr, "sharesim: %s\n", err);
            rc = SS_EXIT_BADINPUT;
        }
        cJSON_Delete(doc);
    }
    if (k8s && r.best >= 0) {
        mkdir(k8s, 0777);
        if (plan_write_k8s(k8s, &sc, &r, err, sizeof err)) {
            fprintf(stderr, "sharesim: %s\n", err);
            rc = SS_EXIT_BADINPUT;
        }
    }
    plan_result_free(&r);
    scn_free(&sc);
    return rc;
}
