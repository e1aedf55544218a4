/*
 * sharesim plan — the capacity planner's command line (sim/tools/plan.h has the method).
 */
#include "cli/cli.h"
#include "cli/outplan.h"
#include "report/html.h"
#include "core/deploy.h"
#include "tools/plan.h"
#include "tools/plandir.h"
#include "core/scenario.h"
#include "base/util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(
        fp,
        "usage: sharesim plan SCENARIO [--json FILE|-] [--csv FILE|-] [--html FILE] [--k8s DIR]\n"
        "                     [--namespace NS] [--nodes NODE,...] [--emit-scenario FILE]\n"
        "                     [--no-headroom] [--no-sensitivity] [--quiet]\n\n"
        "Finds the cheapest configuration (strategy kind, parameters, GPU count) under\n"
        "which every tenant meets its p99 SLA. The scenario's tenants and GPU are the\n"
        "input; its strategies are ignored (and may be left out); an optional \"plan\": "
        "{\"kinds\": [...],\n"
        "\"max_gpus\": N, \"max_simulations\": N} limits the search. Candidates are pruned\n"
        "with queueing theory, then simulated cheapest first.\n\n"
        "  --json FILE  recommendation and ranked candidates as JSON; - for stdout\n"
        "  --csv FILE   the ranked candidates, one row each (p99_ms.TENANT when simulated)\n"
        "  --html FILE  the candidates as a self-contained page (docs/report.md)\n"
        "  --k8s DIR    write the Kubernetes artefacts of the recommendation into DIR\n"
        "               (created): the sharing config, the pods' limits, a README; when\n"
        "               nothing meets the SLAs, those of the closest candidate, marked\n"
        "  --namespace NS  the GPU Operator's namespace, where the ConfigMaps go\n"
        "               (default gpu-operator)\n"
        "  --nodes A,B  the nodes the artefacts configure (replaces the scenario's\n"
        "               \"k8s\": {\"nodes\": [...]}); without either, the README says which\n"
        "               labels to put on which nodes\n"
        "  --emit-scenario FILE  the recommendation (or the closest) as a scenario that\n"
        "               `sharesim run` runs to the plan's figures: every GPU's layout, one\n"
        "               strategy per placement simulated, the seed, stop and warm-up\n"
        "  --no-headroom  measure no candidate's headroom (as \"plan\": {\"headroom\": false}):\n"
        "               a quarter of the runs\n"
        "  --no-sensitivity  no reruns of the recommendation at the ranges of the GPU\n"
        "               profile's low-confidence values (docs/plan.md#what-the-answer-rests-on)\n"
        "  --quiet      no table on stdout\n"
        "exit: 0 a configuration meets every SLA, 1 none does (closest shown), 2 bad input\n");
}

/* --k8s: the artefacts, then what was written (stderr, as every message of this command:
 * stdout may be the JSON), and, when nothing met the SLAs, that these are the closest's. */
static int write_k8s(const char *dir, const char *ns, const struct scenario *sc,
                     const struct plan_result *r)
{
    if (r->best < 0 && r->closest < 0) {
        /* Every candidate was pruned: the answer is still "none meets the SLAs" (exit 1),
         * there is just no configuration to hand over. */
        fprintf(stderr,
                "sharesim plan: --k8s %s: every candidate was pruned before simulation, "
                "no artefacts written\n",
                dir);
        return 0;
    }
    char err[SS_ERRLEN];
    struct dp_ctx d;
    fflush(stdout); /* the table first, when both go to one terminal or file */
    int rc = plan_write_k8s(dir, ns, sc, r, &d, err, sizeof err);
    if (rc)
        fprintf(stderr, "sharesim plan: --k8s %s: %s\n", dir, err);
    if (!rc && d.n_files) {
        fprintf(stderr, "sharesim plan: wrote %d file%s into %s:", d.n_files,
                d.n_files > 1 ? "s" : "", dir);
        for (int k = 0; k < d.n_files; k++)
            fprintf(stderr, " %s", d.files[k]);
        fputc('\n', stderr);
    }
    if (!rc && r->best < 0)
        fprintf(stderr,
                "sharesim plan: no configuration meets every SLA; %s holds the closest "
                "candidate (%s, %s misses by %.1f%%), marked as such in every file\n",
                dir, d.c->label, d.c->worst_tenant, -100 * d.c->worst_margin);
    dp_free(&d);
    return rc;
}

int cmd_plan(int argc, char **argv)
{
    const char *json = NULL, *csv = NULL, *k8s = NULL, *html = NULL, *ns = "gpu-operator",
               *nodes = NULL;
    const char *emit = NULL;
    int quiet = 0, no_headroom = 0, no_sens = 0;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("json", 'j', &json),
        CLI_OPT_STR("csv", 'c', &csv),
        CLI_OPT_STR("k8s", 'k', &k8s),
        CLI_OPT_STR("html", 0, &html),
        CLI_OPT_FLAG("quiet", 'q', &quiet),
        CLI_OPT_HELP,
        CLI_OPT_STR("namespace", 0, &ns),
        CLI_OPT_STR("nodes", 0, &nodes),
        CLI_OPT_STR("emit-scenario", 0, &emit),
        CLI_OPT_FLAG("no-headroom", 0, &no_headroom),
        CLI_OPT_FLAG("no-sensitivity", 0, &no_sens),
        CLI_OPT_END,
    };
    const struct cli_spec spec = {
        .cmd = "sharesim plan", .opts = opts, .usage = usage, .min_args = 1, .max_args = 1};
    int prc = cli_parse_opts(&spec, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    char why[SS_ERRLEN];
    if (dp_namespace_check(ns, why, sizeof why)) {
        fprintf(stderr,
                "sharesim plan: --namespace: \"%s\" is not a Kubernetes namespace name: %s\n", ns,
                why);
        return SS_EXIT_BADINPUT;
    }
    struct scenario sc;
    if (cli_load_scenario(argv[optind], SCN_IGNORE_STRATEGIES | SCN_TP_AUTO, &sc))
        return SS_EXIT_BADINPUT;
    if (nodes && ki_set_nodes(&sc.k8s, nodes, why, sizeof why)) {
        fprintf(stderr, "sharesim plan: --nodes: %s\n", why);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    char err[SS_ERRLEN];
    /* --k8s DIR writes its YAML files and README.md there (core/deploy.h). */
    static const char *const k8s_files[] = {"*.yaml", "README.md", PD_MARKER, NULL};
    /* Beside DIR: the lock and the previous plan's folder (tools/plandir.h). */
    char k8s_lock[4096], k8s_prev[4096];
    snprintf(k8s_lock, sizeof k8s_lock, "%s.lock", k8s ? k8s : "");
    snprintf(k8s_prev, sizeof k8s_prev, "%s.previous", k8s ? k8s : "");
    struct op_plan op;
    op_init(&op, "sharesim plan");
    op_input(&op, "SCENARIO", argv[optind]);
    op_output(&op, "--json", json);
    op_output(&op, "--csv", csv);
    op_output(&op, "--html", html);
    op_output(&op, "--emit-scenario", emit);
    op_output_dir(&op, "--k8s", k8s, k8s_files);
    op_output(&op, "--k8s", k8s ? k8s_lock : NULL);
    op_output_dir(&op, "--k8s", k8s ? k8s_prev : NULL, k8s_files);
    if (op_done(&op)) {
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    cli_install_signal_handlers();
    /* Locked before the search: a second plan into the same folder is refused now, not after
     * its simulations (tools/plandir.h). */
    if (k8s && pd_lock(k8s, err, sizeof err)) {
        fprintf(stderr, "sharesim plan: --k8s %s\n", err);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    struct plan_result r;
    int flags = (cli_stderr_is_tty() && !quiet ? PLAN_PROGRESS : 0) |
                (no_headroom ? PLAN_NO_HEADROOM : 0) | (no_sens ? PLAN_NO_SENSITIVITY : 0);
    if (plan_run(&sc, flags, &r, err, sizeof err)) {
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
    if (emit) {
        cJSON *doc = plan_scenario(&sc, &r, emit, err, sizeof err);
        if (!doc)
            fprintf(stderr, "sharesim plan: --emit-scenario %s: %s\n", emit, err);
        else if (cli_write_json("sharesim plan", emit, doc))
            rc = SS_EXIT_BADINPUT;
    }
    if (k8s && write_k8s(k8s, ns, &sc, &r))
        rc = SS_EXIT_BADINPUT;
    plan_result_free(&r);
    scn_free(&sc);
    return rc;
}
