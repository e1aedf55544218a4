/*
 * sharesim profile fit — fits the LLM engine's named parameters (numeric keys of `serving`)
 * to published end-to-end measurements, and reports the error on the rows held back
 * (tools/fit.h; docs/calibration.md#fitting-the-engine-to-measurements).
 */
#include "base/util.h"
#include "cli/cli.h"
#include "cli/outplan.h"
#include "tools/fit.h"
#include "tools/fittext.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CMD "sharesim profile fit"

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sharesim profile fit MEASUREMENTS.csv [--param KEY=LO:HI[:START]]...\n"
            "                            [--no-fit] [--out FILE] [--json FILE|-] [--csv FILE|-]\n"
            "                            [--scenarios DIR] [--framework NAME] [--shipped]\n"
            "                            [--robust] [--quiet]\n\n"
            "Simulates every row of the measurement file (one LLM tenant on its GPU under\n"
            "exclusive) and fits the parameters, the same values for every row, to minimise\n"
            "the sum of ln(predicted/measured)^2 over the rows of role \"fit\" (--robust: of\n"
            "|ln(predicted/measured)|); then reports\n"
            "predicted against measured TTFT, TPOT and output throughput, for the fit rows\n"
            "and separately for the holdout rows (median |error|, share predicted high).\n\n"
            "  --param KEY=LO:HI[:START]  fit serving key KEY within [LO, HI] from START\n"
            "                    (default the middle); repeatable, at most %d; without it the\n"
            "                    default set (docs/calibration.md)\n"
            "  --no-fit          evaluate only, at the START values\n"
            "  --robust          minimise the sum of |ln(predicted/measured)|, which rows no\n"
            "                    parameter explains pull less than their squares\n"
            "  --shipped         evaluate only, at the engine table's values (each row's\n"
            "                    framework entry): the validation of what ships\n"
            "  --out FILE        the profile fragment: values, data sha256, split, residuals\n"
            "  --json FILE       the same document; - for stdout (then no table)\n"
            "  --csv FILE        its rows, one per measurement simulated; - for stdout\n"
            "  --scenarios DIR   write each simulated row's scenario as DIR/ID.json (DIR is\n"
            "                    made if missing)\n"
            "  --framework NAME  only the rows of this engine (the engine table's name: vllm,\n"
            "                    trtllm; nim-trtllm rows are trtllm's): its terms are fitted\n"
            "  --quiet           no table on stdout\n"
            "Rows it cannot simulate (tp > 1, an unknown GPU or model, ...) are skipped with a\n"
            "warning saying why. The time taken goes to stderr.\n"
            "exit: 0 ok, 2 bad input (the CSV error as FILE:LINE:COL)\n",
            FIT_PARAMS_MAX);
}

/* ---- outputs ---- */

static int write_scenarios(const char *dir, const struct fit_ctx *c)
{
    if (mkdir(dir, 0777) && errno != EEXIST) { /* one level, as a user would make it */
        fprintf(stderr, CMD ": --scenarios %s: %s\n", dir, strerror(errno));
        return -1;
    }
    for (int i = 0; i < c->n_rows; i++) {
        const struct fit_row *r = &c->rows[i];
        if (*r->skip)
            continue;
        struct ss_out o;
        char err[SS_ERRLEN], name[FIT_ID_MAX + 8];
        snprintf(name, sizeof name, "%s.json", r->id);
        if (ss_out_open_entry(&o, dir, name, err, sizeof err)) {
            fprintf(stderr, CMD ": %s\n", err);
            return -1;
        }
        char *t = fit_scenario_text(c, r);
        fprintf(o.fp, "%s\n", t);
        free(t);
        if (ss_out_commit(&o, err, sizeof err)) {
            fprintf(stderr, CMD ": %s\n", err);
            return -1;
        }
    }
    return 0;
}

/* ---- the command ---- */

struct fit_opts {
    const char *out, *json, *csv, *scen, *framework;
    int no_fit, quiet, shipped, robust;
    struct fit_param params[FIT_PARAMS_MAX];
    int n_params;
};

/* --param KEY=LO:HI (CLI_CALL): each key once, at most FIT_PARAMS_MAX of them. */
static int opt_param(const char *cmd, void *target, const char *arg)
{
    struct fit_opts *o = target;
    char err[SS_ERRLEN];
    if (o->n_params == FIT_PARAMS_MAX) {
        fprintf(stderr, "%s: --param: at most %d parameters\n", cmd, FIT_PARAMS_MAX);
        return -1;
    }
    if (fit_parse_param(arg, &o->params[o->n_params], err, sizeof err)) {
        fprintf(stderr, "%s: --param %s\n", cmd, err);
        return -1;
    }
    for (int i = 0; i < o->n_params; i++)
        if (strcmp(o->params[i].key, o->params[o->n_params].key) == 0) {
            fprintf(stderr, "%s: --param %s: given twice\n", cmd, o->params[i].key);
            return -1;
        }
    o->n_params++;
    return 0;
}

/* SS_EXIT_OK to go on, -1 after --help, else the exit code. */
static int parse_opts(int argc, char **argv, struct fit_opts *o)
{
    const struct cli_opt opts[] = {
        CLI_OPT_CALL("param", 0, o, opt_param),
        CLI_OPT_FLAG("no-fit", 0, &o->no_fit),
        CLI_OPT_STR("out", 0, &o->out),
        CLI_OPT_STR("json", 0, &o->json),
        CLI_OPT_STR("scenarios", 0, &o->scen),
        CLI_OPT_FLAG("quiet", 0, &o->quiet),
        CLI_OPT_STR("csv", 0, &o->csv),
        CLI_OPT_STR("framework", 0, &o->framework),
        CLI_OPT_FLAG("shipped", 0, &o->shipped),
        CLI_OPT_FLAG("robust", 0, &o->robust),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec sp = {CMD, opts, usage, NULL, 1, 1, 0, NULL};
    int rc = cli_parse_opts(&sp, argc, argv);
    if (rc != CLI_CONTINUE)
        return rc == SS_EXIT_OK ? -1 : rc;
    o->no_fit |= o->shipped;
    if (o->shipped && o->n_params > 0) {
        fprintf(stderr, CMD ": --shipped evaluates the engine table's values: no --param\n");
        return SS_EXIT_BADINPUT;
    }
    if (o->n_params == 0 && !o->shipped)
        o->n_params = fit_default_params(o->params, FIT_PARAMS_MAX);
    return SS_EXIT_OK;
}

/* Names each skipped row on stderr; the number of rows simulated with role `fit`. */
static int warn_skipped(const char *path, const struct fit_ctx *c)
{
    int fit_rows = 0;
    for (int i = 0; i < c->n_rows; i++) {
        const struct fit_row *r = &c->rows[i];
        if (*r->skip)
            fprintf(stderr, CMD ": warning: %s:%d: row %s skipped: %s\n", path, r->line, r->id,
                    r->skip);
        else
            fit_rows += !r->holdout;
    }
    return fit_rows;
}

static double cpu_s(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

int cmd_profile_fit(int argc, char **argv)
{
    struct fit_opts o = {0};
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? SS_EXIT_OK : rc;
    const char *path = argv[optind];
    struct op_plan op;
    static const char *const scen_names[] = {"*.json", NULL};
    op_init(&op, CMD);
    op_input(&op, "MEASUREMENTS", path);
    op_output(&op, "--out", o.out);
    op_output(&op, "--json", o.json);
    op_output(&op, "--csv", o.csv);
    if (o.scen)
        op_output_dir(&op, "--scenarios", o.scen, scen_names);
    if (op_done(&op))
        return SS_EXIT_BADINPUT;
    char err[SS_ERRLEN], sha[65];
    struct fit_ctx c = {0};
    if (fit_read(path, &c.rows, &c.n_rows, sha, err, sizeof err)) {
        fprintf(stderr, CMD ": %s\n", err);
        return SS_EXIT_BADINPUT;
    }
    c.params = o.params;
    c.n_params = o.n_params;
    c.l1 = o.robust;
    if (o.framework)
        for (int i = 0; i < c.n_rows; i++)
            if (!*c.rows[i].skip && strcmp(c.rows[i].framework, o.framework) != 0)
                snprintf(c.rows[i].skip, sizeof c.rows[i].skip, "engine %s, not --framework %s",
                         c.rows[i].framework, o.framework);
    double t0 = cpu_s();
    rc = SS_EXIT_BADINPUT;
    cJSON *doc = NULL;
    if (fit_prepare(&c, err, sizeof err)) {
        fprintf(stderr, CMD ": %s\n", err);
        goto done;
    }
    int fit_rows = warn_skipped(path, &c);
    if (!o.no_fit && fit_rows == 0) {
        fprintf(stderr, CMD ": %s: no row of role \"fit\" can be simulated: nothing to fit on\n",
                path);
        goto done;
    }
    if (o.no_fit ? fit_evaluate(&c, err, sizeof err) : fit_run(&c, err, sizeof err)) {
        fprintf(stderr, CMD ": %s\n", err);
        goto done;
    }
    fprintf(stderr, CMD ": %ld simulations in %.1f s of CPU\n", c.sims, cpu_s() - t0);
    doc = fit_report(&c, path, sha, !o.no_fit);
    rc = SS_EXIT_OK;
    if (!o.quiet && !cli_is_stdout(o.json) && !cli_is_stdout(o.csv))
        fit_print_report(stdout, &c, !o.no_fit);
    if ((o.out && cli_write_json(CMD, o.out, cJSON_Duplicate(doc, 1))) ||
        (o.json && cli_write_json(CMD, o.json, cJSON_Duplicate(doc, 1))) ||
        (o.csv && cli_write_csv_rows(CMD, o.csv,
                                     cJSON_Duplicate(cJSON_GetObjectItem(doc, "rows"), 1), NULL)) ||
        (o.scen && write_scenarios(o.scen, &c)))
        rc = SS_EXIT_BADINPUT;
done:
    cJSON_Delete(doc);
    free(c.rows);
    return rc;
}
