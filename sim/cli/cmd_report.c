/*
 * sharesim report — tables and plot data from result documents, for results/
 * (scripts/regen-results). Nothing here simulates: every subcommand reads
 * files written by `sharesim run --json` (or results/index.json) and prints the
 * same bytes for the same input.
 *
 *   md RESULT.json          the Markdown section of one result
 *   summary [X=]RESULT…     one row per strategy (CSV, or --markdown), e.g. a sweep
 *   mig RESULT.json         MIG instance occupancy (CSV) for the layout plot
 *   index INDEX.json        the studies as tab-separated lines for the shell
 *   reference INDEX.json    the reference table (JSON, CSV, Markdown)
 */
#include "calib/calib.h"
#include "cli/cli.h"
#include "report/rtable.h"
#include "report/studies.h"
#include "base/util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sharesim report md RESULT.json [--title T] [--scenario FILE] [--command C]\n"
            "                          [--note TEXT] [--level N]\n"
            "       sharesim report summary [--markdown] [--x NAME] [X=]RESULT.json…\n"
            "       sharesim report mig RESULT.json\n"
            "       sharesim report index INDEX.json [--rows ID]\n"
            "       sharesim report reference INDEX.json --study ID --dir DIR [--json F]\n"
            "                          [--csv F] [--md F]\n\n"
            "Tables and plot data from `sharesim run --json` results (see docs/results.md):\n"
            "  md         Markdown: a header (title, the scenario's description, the\n"
            "             command, a note), the strategy × tenant table, the strategy\n"
            "             table and the MIG layouts\n"
            "  summary    one row per strategy and result (CSV, or Markdown with\n"
            "             --markdown): tenants, GPUs used, tenants per GPU, utilisation,\n"
            "             switching, throughput, p99 mean and max over tenants, lowest\n"
            "             SLA attainment, cost per million; with --x NAME every argument\n"
            "             is X=FILE and X is the first column (e.g. the load scale)\n"
            "  mig        one CSV line per MIG instance (memory slices from the GPU profile)\n"
            "  index      one tab-separated line per study: id, kind, scenario, plots,\n"
            "             load scales, run-length note, title; --rows ID: a reference\n"
            "             study's rows (mode, scenario, strategy)\n"
            "  reference  reads DIR/<ID>-<mode>.json per row, writes the reference table\n"
            "exit: 0 ok, 2 bad input\n");
}

static int bad(const char *err)
{
    fprintf(stderr, "sharesim report: %s\n", err);
    return SS_EXIT_BADINPUT;
}

/* Options shared by the subcommands; each accepts only the ones it documents. */
enum {
    O_TITLE = 1,
    O_SCENARIO = 2,
    O_COMMAND = 4,
    O_LEVEL = 8,
    O_MARKDOWN = 16,
    O_X = 32,
    O_ROWS = 64,
    O_STUDY = 128,
    O_DIR = 256,
    O_JSON = 512,
    O_CSV = 1024,
    O_MD = 2048,
    O_NOTE = 4096
};
struct ropts {
    const char *title, *scenario, *command, *note, *x, *rows, *study, *dir, *json, *csv, *md_path;
    int md, level;
    unsigned given; /* O_* bits */
};

static int parse_opts(int argc, char **argv, struct ropts *o)
{
    static const struct option opts[] = {{"title", required_argument, 0, 't'},
                                         {"scenario", required_argument, 0, 's'},
                                         {"command", required_argument, 0, 'c'},
                                         {"level", required_argument, 0, 'l'},
                                         {"md", required_argument, 0, 'm'},
                                         {"x", required_argument, 0, 'x'},
                                         {"markdown", no_argument, 0, 'M'},
                                         {"note", required_argument, 0, 'n'},
                                         {"rows", required_argument, 0, 'r'},
                                         {"study", required_argument, 0, 'S'},
                                         {"dir", required_argument, 0, 'd'},
                                         {"json", required_argument, 0, 'j'},
                                         {"csv", required_argument, 0, 'C'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    char cmd[64];
    int c;
    long v;
    snprintf(cmd, sizeof cmd, "sharesim report %s", argv[0]);
    memset(o, 0, sizeof *o);
    o->level = 2;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            o->title = optarg;
            o->given |= O_TITLE;
            break;
        case 's':
            o->scenario = optarg;
            o->given |= O_SCENARIO;
            break;
        case 'c':
            o->command = optarg;
            o->given |= O_COMMAND;
            break;
        case 'n':
            o->note = optarg;
            o->given |= O_NOTE;
            break;
        case 'x':
            o->x = optarg;
            o->given |= O_X;
            break;
        case 'r':
            o->rows = optarg;
            o->given |= O_ROWS;
            break;
        case 'S':
            o->study = optarg;
            o->given |= O_STUDY;
            break;
        case 'd':
            o->dir = optarg;
            o->given |= O_DIR;
            break;
        case 'j':
            o->json = optarg;
            o->given |= O_JSON;
            break;
        case 'C':
            o->csv = optarg;
            o->given |= O_CSV;
            break;
        case 'm':
            o->md_path = optarg;
            o->given |= O_MD;
            break;
        case 'M':
            o->md = 1;
            o->given |= O_MARKDOWN;
            break;
        case 'l':
            o->given |= O_LEVEL;
            if (cli_opt_long(cmd, "--level", optarg, 1, 6, &v))
                return SS_EXIT_BADINPUT;
            o->level = (int)v;
            break;
        case 'h':
            usage(stdout);
            return SS_EXIT_OK;
        default:
            usage(stderr);
            return SS_EXIT_BADINPUT;
        }
    }
    return CLI_CONTINUE;
}

static int do_md(int n, char **args, const struct ropts *o)
{
    char err[SS_ERRLEN];
    cJSON *doc;
    if (n != 1) {
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    if (rt_load(args[0], &doc, err, sizeof err))
        return bad(err);
    char *desc = o->scenario ? sd_scenario_description(o->scenario) : NULL;
    struct rt_head h = {o->title, desc, o->command, o->note, o->level};
    rt_md_result(stdout, doc, &h);
    free(desc);
    cJSON_Delete(doc);
    return SS_EXIT_OK;
}

static int do_summary(int n, char **args, const struct ropts *o)
{
    char err[SS_ERRLEN];
    if (n < 1) {
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    rt_summary_header(stdout, o->x, o->md);
    for (int k = 0; k < n; k++) {
        const char *file = args[k], *label = NULL;
        char lab[256];
        if (o->x) {
            const char *eq = strchr(args[k], '=');
            if (!eq || eq == args[k] || (size_t)(eq - args[k]) >= sizeof lab) {
                snprintf(err, sizeof err, "with --x, expected X=FILE, got \"%s\"", args[k]);
                return bad(err);
            }
            snprintf(lab, sizeof lab, "%.*s", (int)(eq - args[k]), args[k]);
            label = lab;
            file = eq + 1;
        }
        cJSON *doc;
        if (rt_load(file, &doc, err, sizeof err))
            return bad(err);
        rt_summary_rows(stdout, doc, o->x, label, o->md);
        cJSON_Delete(doc);
    }
    return SS_EXIT_OK;
}

static int do_mig(int n, char **args, const struct ropts *o)
{
    (void)o;
    char err[SS_ERRLEN];
    cJSON *doc;
    if (n != 1) {
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    if (rt_load(args[0], &doc, err, sizeof err))
        return bad(err);
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(doc, "gpu");
    struct gpu_profile gp;
    if (!cJSON_IsString(g) || cal_load(g->valuestring, &gp, err, sizeof err)) {
        cJSON_Delete(doc);
        return bad(cJSON_IsString(g) ? err : "the result names no \"gpu\"");
    }
    rt_mig_csv(stdout, doc, &gp);
    cJSON_Delete(doc);
    return SS_EXIT_OK;
}

static void print_study(const struct sd_study *st)
{
    char plots[256];
    sd_plot_names(st->plots, plots, sizeof plots);
    printf("%s\t%s\t%s\t%s\t", st->id, sd_kind_names[st->kind], st->scenario ? st->scenario : "-",
           plots);
    for (int k = 0; k < st->n_scales; k++)
        printf("%s%g", k ? "," : "", st->scales[k]);
    printf("%s\t%s\t%s\n", st->n_scales ? "" : "-", st->requests ? st->requests : "-", st->title);
}

static int do_index(int n, char **args, const struct ropts *o)
{
    char err[SS_ERRLEN];
    struct sd_index ix;
    if (n != 1) {
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    if (sd_load(args[0], &ix, err, sizeof err)) {
        sd_free(&ix);
        return bad(err);
    }
    int rc = SS_EXIT_OK;
    if (o->rows) {
        const struct sd_study *st = sd_find(&ix, o->rows);
        if (!st || st->kind != SD_REFERENCE) {
            fprintf(stderr, "sharesim report: %s: no reference study \"%s\"\n", args[0], o->rows);
            rc = SS_EXIT_BADINPUT;
        }
        for (int k = 0; st && k < st->n_rows; k++)
            printf("%s\t%s\t%s\n", st->rows[k].mode, st->rows[k].scenario, st->rows[k].strategy);
    } else {
        for (int k = 0; k < ix.n; k++)
            print_study(&ix.s[k]);
    }
    sd_free(&ix);
    return rc;
}

/* Writes one reference output atomically: 0 JSON, 1 CSV, 2 Markdown. */
static int write_ref(const char *path, int what, const struct sd_study *st,
                     const struct sd_ref_row *rows, cJSON *const *docs)
{
    struct ss_out out;
    char err[SS_ERRLEN];
    if (ss_out_open(&out, path, err, sizeof err))
        return bad(err);
    if (what == 0) {
        cJSON *j = sd_reference_json(st, rows);
        char *text = cJSON_Print(j);
        fprintf(out.fp, "%s\n", text);
        free(text);
        cJSON_Delete(j);
    } else if (what == 1) {
        sd_reference_csv(out.fp, st, rows);
    } else {
        sd_reference_md(out.fp, st, rows, docs);
    }
    if (ss_out_commit(&out, err, sizeof err))
        return bad(err);
    return SS_EXIT_OK;
}

static int do_reference(int n, char **args, const struct ropts *o)
{
    char err[SS_ERRLEN];
    struct sd_index ix;
    if (n != 1 || !o->study || !o->dir) {
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    if (sd_load(args[0], &ix, err, sizeof err)) {
        sd_free(&ix);
        return bad(err);
    }
    const struct sd_study *st = sd_find(&ix, o->study);
    int rc = SS_EXIT_OK;
    if (!st || st->kind != SD_REFERENCE) {
        fprintf(stderr, "sharesim report: %s: no reference study \"%s\"\n", args[0], o->study);
        sd_free(&ix);
        return SS_EXIT_BADINPUT;
    }
    struct sd_ref_row rows[SD_MAX_ROWS];
    cJSON *docs[SD_MAX_ROWS];
    if (sd_reference(st, o->dir, rows, docs, err, sizeof err))
        rc = bad(err);
    if (!rc && o->json)
        rc = write_ref(o->json, 0, st, rows, docs);
    if (!rc && o->csv)
        rc = write_ref(o->csv, 1, st, rows, docs);
    if (!rc && o->md_path)
        rc = write_ref(o->md_path, 2, st, rows, docs);
    for (int k = 0; k < st->n_rows; k++)
        cJSON_Delete(docs[k]);
    sd_free(&ix);
    return rc;
}

/* A subcommand: argv[0] is its name; it accepts the options in `allowed` (O_* bits). */
static int run_sub(int argc, char **argv, unsigned allowed,
                   int (*fn)(int n, char **args, const struct ropts *o))
{
    struct ropts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc != CLI_CONTINUE)
        return rc;
    if (o.given & ~allowed) {
        fprintf(stderr, "sharesim report %s: an option given is not one of this subcommand's\n",
                argv[0]);
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    return fn(argc - optind, argv + optind, &o);
}

static int sub_md(int argc, char **argv)
{
    return run_sub(argc, argv, O_TITLE | O_SCENARIO | O_COMMAND | O_NOTE | O_LEVEL, do_md);
}

static int sub_summary(int argc, char **argv)
{
    return run_sub(argc, argv, O_MARKDOWN | O_X, do_summary);
}

static int sub_mig(int argc, char **argv)
{
    return run_sub(argc, argv, 0, do_mig);
}

static int sub_index(int argc, char **argv)
{
    return run_sub(argc, argv, O_ROWS, do_index);
}

static int sub_reference(int argc, char **argv)
{
    return run_sub(argc, argv, O_STUDY | O_DIR | O_JSON | O_CSV | O_MD, do_reference);
}

static const struct cli_command subcommands[] = {
    {"md", "RESULT.json: the Markdown section of one result", sub_md, NULL},
    {"summary", "[X=]RESULT.json…: one row per strategy and result (CSV or Markdown)", sub_summary,
     NULL},
    {"mig", "RESULT.json: MIG instance occupancy (CSV) for the layout plot", sub_mig, NULL},
    {"index", "INDEX.json: the studies as tab-separated lines for the shell", sub_index, NULL},
    {"reference", "INDEX.json: the reference table (JSON, CSV, Markdown)", sub_reference, NULL},
    {NULL, NULL, NULL, NULL},
};

const struct cli_group cmd_report = {
    NULL,
    subcommands,
    "Nothing here simulates: every subcommand reads `sharesim run --json` results or\n"
    "results/index.json (docs/results.md); `sharesim report md --help` lists every option.\n",
};
