/*
 * cmd_fidelity — `sharesim fidelity scenario|table`: the simulator's half of the fidelity
 * check (tools/fidelity.h, docs/calibration.md "Running the device check"). kernels/fidelity
 * measures real contending processes and writes a summary per case; `scenario` turns a summary
 * into the scenario sharesim runs on the measured profile, `table` sets the measured and the
 * predicted latencies side by side. scripts/device-check runs both.
 */
#include "calib/calib.h"
#include "calib/profile.h"
#include "cli/cli.h"
#include "cli/outplan.h"
#include "core/scenario.h"
#include "tools/fidelity.h"
#include "base/util.h"

#include <cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- scenario ---- */

static void usage_scenario(FILE *fp)
{
    fprintf(fp, "usage: sharesim fidelity scenario SUMMARY.json --gpu GPU -o OUT.json|--json OUT\n"
                "                                  [--replay] [--requests N]\n\n"
                "Writes the sharesim scenario of one fidelity case measured by kernels/fidelity:\n"
                "one tenant per measured context or partition, Poisson arrivals at the measured\n"
                "rate, the kernel's measured duration as deterministic work, and the sharing of\n"
                "the case: \"timeslice\" with GPU's timeslice_us and switch_us (plus\n"
                "\"timeslice-heavy\" when GPU has the heavy-round values), or \"mig\" with one\n"
                "instance per tenant of the MIG profile nearest the partition's SMs. GPU is the\n"
                "profile to simulate with, normally the measured one (a name, found in\n"
                "$SHARESIM_PROFILES, or a path to a .json).\n"
                "  --replay      each tenant replays its measured submit times (trace arrivals):\n"
                "                writes OUT's name without .json + \"-t<i>.csv\" beside OUT\n"
                "  --requests N  Poisson: arrivals in all (default 400000; 2 %% are warm-up)\n"
                "The scenario is a JSON document, so --json OUT is the same as -o OUT (- for\n"
                "stdout, not with --replay); it is checked to load before it is written.\n"
                "exit: 0 written, 2 bad input (summary, profile, latencies, option or output)\n");
}

static int sub_scenario(int argc, char **argv)
{
    const char *cmd = "sharesim fidelity scenario", *gpu = NULL, *out = NULL;
    int replay = 0;
    long requests = 400000;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("gpu", 0, &gpu),
        CLI_OPT_STR("output", 'o', &out),
        CLI_OPT_STR("json", 0, &out),
        CLI_OPT_FLAG("replay", 0, &replay),
        CLI_OPT_LONG("requests", 0, &requests, 100, 1000000000.0),
        {.name = "help", .kind = CLI_HELP},
        CLI_OPT_END,
    };
    const struct cli_spec spec = {
        .cmd = cmd, .opts = opts, .usage = usage_scenario, .min_args = 0, .max_args = -1};
    int prc = cli_parse_opts(&spec, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    if (!gpu || !out || optind != argc - 1) {
        usage_scenario(stderr);
        return SS_EXIT_BADINPUT;
    }
    if (replay && cli_is_stdout(out)) {
        fprintf(stderr, "%s: --replay writes trace files beside the scenario: give -o FILE\n", cmd);
        return SS_EXIT_BADINPUT;
    }
    char err[SS_ERRLEN], note[1024], ref[PATH_MAX], prefix[PATH_MAX];
    struct fid_summary s;
    struct gpu_profile g;
    cJSON *doc = NULL, *scn = NULL;
    int rc = SS_EXIT_BADINPUT;
    if (fid_summary_read(argv[optind], &s, err, sizeof err) || cal_load(gpu, &g, err, sizeof err) ||
        prof_load(gpu, &doc, NULL, err, sizeof err))
        goto out;
    /* In a scenario a path is relative to the scenario's folder: make it absolute. */
    char cwd[PATH_MAX];
    if ((strchr(gpu, '/') || ss_ends_with(gpu, ".json")) && gpu[0] != '/') {
        if (!getcwd(cwd, sizeof cwd) ||
            snprintf(ref, sizeof ref, "%s/%s", cwd, gpu) >= (int)sizeof ref) {
            ss_errf(err, sizeof err, "%s: cannot make the path absolute", gpu);
            goto out;
        }
    } else {
        snprintf(ref, sizeof ref, "%s", gpu);
    }
    if (replay) {
        size_t n = strlen(out);
        if (ss_ends_with(out, ".json"))
            n -= 5;
        snprintf(prefix, sizeof prefix, "%.*s", (int)n, out);
    }
    struct op_plan op;
    op_init(&op, cmd);
    op_input(&op, "SUMMARY", argv[optind]);
    op_input(&op, "--gpu", gpu);
    op_output(&op, "-o", out);
    op_output_prefix(&op, "--replay", replay ? prefix : NULL, "-t*.csv");
    if (op_check(&op, err, sizeof err)) {
        op_free(&op);
        goto out;
    }
    op_free(&op);
    struct fid_scn_opts o = {ref, requests, replay ? prefix : NULL};
    if (!(scn = fid_scenario(&s, doc, &g, &o, note, sizeof note, err, sizeof err)))
        goto out;
    struct ss_out f;
    if (ss_out_open(&f, out, err, sizeof err))
        goto out;
    char *text = cJSON_Print(scn);
    fprintf(f.fp, "%s\n", text);
    fflush(f.fp);
    /* Load what is about to be written, from its own folder (the traces are beside it). */
    struct scenario sc;
    int bad = scn_load_text(f.is_stdout ? "-" : f.tmp, text, strlen(text), &sc, err, sizeof err);
    scn_free(&sc);
    cJSON_free(text);
    if (bad) {
        ss_out_abort(&f);
        goto out;
    }
    if (ss_out_commit(&f, err, sizeof err))
        goto out;
    fprintf(stderr, "%s: %s: %s\n", cmd, s.case_name, note);
    rc = SS_EXIT_OK;
out:
    if (rc)
        fprintf(stderr, "%s: %s\n", cmd, err);
    cJSON_Delete(doc);
    cJSON_Delete(scn);
    return rc;
}

/* ---- table ---- */

static void usage_table(FILE *fp)
{
    fprintf(fp, "usage: sharesim fidelity table SUMMARY.json... --sim DIR [-o TABLE.md]\n"
                "                               [--json FILE|-] [--csv FILE|-] [--goal PCT]\n"
                "                               [--check]\n\n"
                "The fidelity table: per case (a summary written by kernels/fidelity) and per\n"
                "strategy sharesim ran for it, the measured and the predicted latency (mean, p50,\n"
                "p99) and their error. The predictions are read from DIR: <case>.result.json and\n"
                "<case>.cdf.csv (sharesim run --json, --cdf on the Poisson scenario), and\n"
                "<case>-replay.result.json and <case>-replay.cdf.csv when the replay ran. A case\n"
                "without results gets a row without a prediction.\n"
                "  -o FILE       the Markdown table (default: stdout, unless a result goes there)\n"
                "  --json FILE   {\"goal\", \"rows\": [...]}; --csv FILE: the rows; - for stdout\n"
                "  --goal PCT    the p99 error the last column checks (default 10)\n"
                "  --check       exit 1 when some row misses the goal or has no prediction\n"
                "exit: 0 ok, 1 with --check a p99 off by more than the goal, 2 bad input\n");
}

static void sim_path(char *buf, size_t n, const char *dir, const char *name, const char *suffix)
{
    snprintf(buf, n, "%s/%s%s", dir, name, suffix);
}

/* Adds the rows of one case: one per strategy of its Poisson result (one without a
 * prediction when there is none). 0, or -1 with a message. */
static int case_rows(const struct fid_summary *s, const char *dir, struct fid_row **rows, size_t *n,
                     char *err, size_t errlen)
{
    char res[PATH_MAX], cdf[PATH_MAX], rres[PATH_MAX], rcdf[PATH_MAX], names[16][64];
    sim_path(res, sizeof res, dir, s->case_name, ".result.json");
    sim_path(cdf, sizeof cdf, dir, s->case_name, ".cdf.csv");
    sim_path(rres, sizeof rres, dir, s->case_name, "-replay.result.json");
    sim_path(rcdf, sizeof rcdf, dir, s->case_name, "-replay.cdf.csv");
    int k = fid_result_strategies(res, names, 16, err, errlen);
    if (k < 0)
        return -1;
    for (int i = 0; i < (k ? k : 1); i++) {
        *rows = ss_xrealloc(*rows, (*n + 1) * sizeof **rows);
        struct fid_row *r = &(*rows)[(*n)++];
        memset(r, 0, sizeof *r);
        r->s = *s;
        r->poisson.mean_ms = r->poisson.p50_ms = r->poisson.p95_ms = r->poisson.p99_ms = NAN;
        r->replay = r->poisson;
        if (k == 0)
            continue;
        memcpy(r->strategy, names[i], sizeof r->strategy); /* both 64, NUL-terminated */
        if (fid_predicted(res, cdf, r->strategy, &r->poisson, err, errlen) ||
            fid_predicted(rres, rcdf, r->strategy, &r->replay, err, errlen))
            return -1;
    }
    return 0;
}

static int sub_table(int argc, char **argv)
{
    const char *cmd = "sharesim fidelity table", *dir = NULL, *md = NULL, *json = NULL, *csv = NULL;
    double goal = 10;
    int check = 0;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("sim", 0, &dir),
        CLI_OPT_STR("output", 'o', &md),
        CLI_OPT_STR("json", 0, &json),
        CLI_OPT_STR("csv", 0, &csv),
        CLI_OPT_NUM("goal", 0, &goal, CLI_GT, 0, 1000),
        CLI_OPT_FLAG("check", 0, &check),
        {.name = "help", .kind = CLI_HELP},
        CLI_OPT_END,
    };
    const struct cli_spec spec = {
        .cmd = cmd, .opts = opts, .usage = usage_table, .min_args = 0, .max_args = -1};
    int prc = cli_parse_opts(&spec, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    if (!dir || optind >= argc) {
        usage_table(stderr);
        return SS_EXIT_BADINPUT;
    }
    /* --sim DIR holds the results the table is made of: a directory that is not there
     * would make every row "not predicted" without saying why. */
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: --sim %s: %s, expected the directory of the simulated results\n", cmd,
                dir, stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
        return SS_EXIT_BADINPUT;
    }
    static const char *const sim_files[] = {"*.result.json", "*.cdf.csv", NULL};
    struct op_plan op;
    op_init(&op, cmd);
    for (int i = optind; i < argc; i++)
        op_input(&op, "SUMMARY", argv[i]);
    op_input_dir(&op, "--sim", dir, sim_files);
    op_output(&op, "-o", md);
    op_output(&op, "--json", json);
    op_output(&op, "--csv", csv);
    if (op_done(&op))
        return SS_EXIT_BADINPUT;
    goal /= 100;
    char err[SS_ERRLEN];
    struct fid_row *rows = NULL;
    size_t n = 0;
    int rc = SS_EXIT_BADINPUT;
    for (int i = optind; i < argc; i++) {
        struct fid_summary s;
        if (fid_summary_read(argv[i], &s, err, sizeof err) ||
            case_rows(&s, dir, &rows, &n, err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", cmd, err);
            goto out;
        }
    }
    /* The table goes to -o, else to stdout unless a result does. */
    if (md || (!cli_is_stdout(json) && !cli_is_stdout(csv))) {
        struct ss_out f;
        if (ss_out_open(&f, md ? md : "-", err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", cmd, err);
            goto out;
        }
        fid_table_md(f.fp, rows, n, goal);
        if (ss_out_commit(&f, err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", cmd, err);
            goto out;
        }
    }
    if (json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "schema", FID_SCHEMA);
        cJSON_AddNumberToObject(doc, "goal", goal);
        cJSON_AddItemToObject(doc, "rows", fid_rows_json(rows, n, goal));
        if (cli_write_json(cmd, json, doc))
            goto out;
    }
    if (csv && cli_write_csv_rows(cmd, csv, fid_rows_json(rows, n, goal), NULL))
        goto out;
    rc = SS_EXIT_OK;
    if (check)
        for (size_t i = 0; i < n; i++)
            if (!fid_row_ok(&rows[i], goal)) {
                fprintf(stderr, "%s: %s%s%s: p99 %s\n", cmd, rows[i].s.case_name,
                        rows[i].strategy[0] ? " / " : "", rows[i].strategy,
                        rows[i].poisson.ok ? "off by more than the goal" : "not predicted");
                rc = SS_EXIT_INFEASIBLE;
            }
out:
    free(rows);
    return rc;
}

static const struct cli_command subcommands[] = {
    {"scenario", "SUMMARY --gpu GPU -o OUT: the sharesim scenario of a measured case", sub_scenario,
     NULL},
    {"table", "SUMMARY... --sim DIR: measured and predicted latencies side by side", sub_table,
     NULL},
    {NULL, NULL, NULL, NULL},
};

const struct cli_group cmd_fidelity = {
    NULL,
    subcommands,
    "SUMMARY is what kernels/fidelity wrote for one case; scripts/device-check runs the whole\n"
    "check on a GPU machine (docs/calibration.md, \"Running the device check\").\n",
};
