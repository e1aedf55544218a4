/*
 * sharesim profile — list, show, compare, merge and match calibration profiles.
 *   list                      the shipped profiles (and measured ones under measured/)
 *   show GPU                  one profile as a table with units, confidence and sources
 *   diff A B                  what changed from A to B, with relative changes
 *   merge BASE FRAG… -o OUT   lay microbenchmark outputs over a shipped profile
 *   match DEVICE              the shipped profile for a CUDA device name
 *   fit MEASUREMENTS.csv      the engine's parameters fitted to measurements (cmd_fit.c)
 * Tables are for people (long sources wrap to the terminal width); --json FILE|- (and --csv
 * for list and diff, which have rows) are for tools (docs/cli.md).
 */
#include "base/name.h"
#include "base/textcol.h"
#include "calib/calib.h"
#include "cli/cli.h"
#include "cli/outplan.h"
#include "calib/profile.h"
#include "calib/profview.h"
#include "base/util.h"

#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- table width (the text itself: calib/profview.h, base/textcol.h) ---- */

/* The table width: --width, else $COLUMNS when it is a sane terminal width, else 100. */
static int term_width(long opt_width)
{
    long w;
    if (opt_width > 0)
        return (int)opt_width;
    if (cli_parse_long(getenv("COLUMNS"), 60, INT_MAX, &w) == 0)
        return (int)w;
    return 100;
}

/* --width N of show and diff. */
#define WIDTH_MIN 20
#define WIDTH_MAX 400

/* A subcommand's options (cli/cliopt.c): nargs positional arguments, or at least -nargs. */
static int parse(const char *cmd, const struct cli_opt *opts, void (*usage)(FILE *), int nargs,
                 int argc, char **argv)
{
    const struct cli_spec sp = {cmd, opts, usage, NULL, abs(nargs), nargs < 0 ? -1 : nargs,
                                0,   NULL};
    return cli_parse_opts(&sp, argc, argv);
}

static void usage_show(FILE *fp)
{
    fprintf(fp, "usage: sharesim profile show GPU [--json FILE|-] [--width N]\n\n"
                "Prints a profile (GPU name, alias or path to a .json) as a table: key, value,\n"
                "unit, confidence and source (with the note saying how an estimate was\n"
                "derived). --json writes the profile document itself (- for stdout, then no\n"
                "table). --width sets the table width, 20 to 400 (default: $COLUMNS, else 100).\n"
                "exit: 0 ok, 2 bad input\n");
}

static int sub_show(int argc, char **argv)
{
    const char *json = NULL;
    long width = 0;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("json", 0, &json),
        CLI_OPT_LONG("width", 0, &width, WIDTH_MIN, WIDTH_MAX),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    int prc = parse("sharesim profile show", opts, usage_show, 1, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    char err[SS_ERRLEN], path[PATH_MAX];
    cJSON *doc;
    if (prof_load(argv[optind], &doc, path, err, sizeof err)) {
        fprintf(stderr, "sharesim profile show: %s\n", err);
        return SS_EXIT_BADINPUT;
    }
    if (op_files("sharesim profile show", OP_LIST("GPU", path), OP_LIST("--json", json))) {
        cJSON_Delete(doc);
        return SS_EXIT_BADINPUT;
    }
    if (!cli_is_stdout(json))
        prof_print_show(stdout, doc, path, term_width(width));
    if (json)
        return cli_write_json("sharesim profile show", json, doc) ? SS_EXIT_BADINPUT : SS_EXIT_OK;
    cJSON_Delete(doc);
    return SS_EXIT_OK;
}

/* ---- list ---- */

struct listed {
    char path[PATH_MAX];
    cJSON *doc;
};

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct listed *)a)->path, ((const struct listed *)b)->path);
}

/* Collects the loadable profiles in dir (invalid files are reported, not listed). */
static size_t collect(const char *dir, struct listed *out, size_t cap, size_t n)
{
    DIR *d = opendir(dir);
    if (!d)
        return n;
    struct dirent *de;
    size_t first = n;
    while ((de = readdir(d)) && n < cap) {
        if (!ss_ends_with(de->d_name, ".json"))
            continue;
        snprintf(out[n].path, sizeof out[n].path, "%s/%s", dir, de->d_name);
        char err[SS_ERRLEN];
        if (prof_load(out[n].path, &out[n].doc, NULL, err, sizeof err)) {
            fprintf(stderr, "sharesim profile list: skipping %s\n", err);
            continue;
        }
        n++;
    }
    closedir(d);
    qsort(out + first, n - first, sizeof *out, by_path);
    return n;
}

static void usage_list(FILE *fp)
{
    fprintf(fp, "usage: sharesim profile list [--json FILE|-] [--csv FILE|-]\n\n"
                "Lists the shipped profiles (in the profile directory, $SHARESIM_PROFILES or\n"
                "kernels/profiles) and the measured ones in its measured/ folder.\n"
                "  --json FILE  [{\"name\", \"aliases\", \"device\", \"measured\", \"path\"}, …];\n"
                "               - for stdout (then no table)\n"
                "  --csv FILE   the same, one row per profile; - for stdout\n"
                "exit: 0 ok, 2 bad input\n");
}

static int sub_list(int argc, char **argv)
{
    const char *json = NULL, *csv = NULL;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("json", 0, &json),
        CLI_OPT_STR("csv", 0, &csv),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    int prc = parse("sharesim profile list", opts, usage_list, 0, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    if (op_files("sharesim profile list", NULL, OP_LIST("--json", json, "--csv", csv)))
        return SS_EXIT_BADINPUT;
    static struct listed all[256];
    char mdir[PATH_MAX];
    snprintf(mdir, sizeof mdir, "%s/measured", cal_profile_dir());
    size_t n = collect(cal_profile_dir(), all, 256, 0);
    n = collect(mdir, all, 256, n);
    int text = !cli_is_stdout(json) && !cli_is_stdout(csv);
    cJSON *arr = cJSON_CreateArray();
    if (text)
        printf("%-22s %-26s %-9s %s\n", "name", "device", "kind", "file");
    for (size_t i = 0; i < n; i++) {
        const cJSON *d = all[i].doc;
        const char *name = cJSON_GetObjectItemCaseSensitive(d, "name")->valuestring;
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(d, "device");
        int measured = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "measured"));
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", name);
        const cJSON *al = cJSON_GetObjectItemCaseSensitive(d, "aliases");
        cJSON_AddItemToObject(o, "aliases", al ? cJSON_Duplicate(al, 1) : cJSON_CreateArray());
        cJSON_AddStringToObject(o, "device", cJSON_IsString(dev) ? dev->valuestring : "");
        cJSON_AddBoolToObject(o, "measured", measured);
        cJSON_AddStringToObject(o, "path", all[i].path);
        cJSON_AddItemToArray(arr, o);
        if (text) {
            printf("%-22s %-26s %-9s %s\n", name, cJSON_IsString(dev) ? dev->valuestring : "-",
                   measured ? "measured" : "shipped", all[i].path);
        }
        cJSON_Delete(all[i].doc);
    }
    return cli_write_results("sharesim profile list", json, csv, arr, NULL) ? SS_EXIT_BADINPUT
                                                                            : SS_EXIT_OK;
}

/* ---- diff ---- */

static void usage_diff(FILE *fp)
{
    fprintf(fp, "usage: sharesim profile diff A B [--json FILE|-] [--csv FILE|-] [--width N]\n\n"
                "Shows what changed from profile A to profile B (names, aliases or paths):\n"
                "each value, confidence, source and note that differs, and the relative\n"
                "change (B - A) / |A| of numbers. Nested values are named by path, e.g.\n"
                "mig_profiles[1g.10gb].sm_count. Prints \"no differences\" when there are none.\n"
                "  --json FILE  {\"a\", \"b\", \"changes\": [{\"key\", \"a\", \"b\",\n"
                "               \"relative_change\"}, …]}; - for stdout (then no table)\n"
                "  --csv FILE   the changes, one row each; - for stdout\n"
                "exit: 0 ok (with or without differences), 2 bad input\n");
}

static int sub_diff(int argc, char **argv)
{
    const char *json = NULL, *csv = NULL;
    long width = 0;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("json", 0, &json),
        CLI_OPT_STR("csv", 0, &csv),
        CLI_OPT_LONG("width", 0, &width, WIDTH_MIN, WIDTH_MAX),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    int prc = parse("sharesim profile diff", opts, usage_diff, 2, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    char err[SS_ERRLEN], pa[PATH_MAX], pb[PATH_MAX];
    cJSON *a = NULL, *b = NULL;
    if (prof_load(argv[optind], &a, pa, err, sizeof err) ||
        prof_load(argv[optind + 1], &b, pb, err, sizeof err)) {
        fprintf(stderr, "sharesim profile diff: %s\n", err);
        cJSON_Delete(a);
        return SS_EXIT_BADINPUT;
    }
    if (op_files("sharesim profile diff", OP_LIST("A", pa, "B", pb),
                 OP_LIST("--json", json, "--csv", csv))) {
        cJSON_Delete(a);
        cJSON_Delete(b);
        return SS_EXIT_BADINPUT;
    }
    struct prof_change *ch;
    size_t n;
    prof_diff(a, b, &ch, &n);
    int rc = SS_EXIT_OK;
    if (csv &&
        cli_write_csv_rows("sharesim profile diff", csv, prof_diff_rows(pa, pb, ch, n), NULL))
        rc = SS_EXIT_BADINPUT;
    if (json && cli_write_json("sharesim profile diff", json, prof_diff_json(pa, pb, ch, n)))
        rc = SS_EXIT_BADINPUT;
    if (!cli_is_stdout(json) && !cli_is_stdout(csv)) {
        printf("A: %s\nB: %s\n\n", pa, pb);
        if (n == 0)
            printf("no differences\n");
        else
            prof_print_diff(stdout, ch, n, term_width(width));
    }
    prof_diff_free(ch, n);
    cJSON_Delete(a);
    cJSON_Delete(b);
    return rc;
}

/* ---- merge ---- */

static void usage_merge(FILE *fp)
{
    fprintf(fp,
            "usage: sharesim profile merge BASE MEASURED.json... -o OUT|--json OUT [--name NAME]\n"
            "                              [--force]\n\n"
            "Lays the outputs of the kernels/ microbenchmarks (tslice, partition,\n"
            "concurrency) over the shipped profile BASE and writes one measured profile to\n"
            "OUT (\"measured\": true; every value keeps its source). The name defaults to\n"
            "BASE's name + \"-measured\". A measurement of another device than BASE's is\n"
            "refused unless --force. OUT is checked to load as a profile before it is\n"
            "written. The result is a JSON document, so --json OUT is the same as -o OUT;\n"
            "- for stdout.\n"
            "exit: 0 ok, 2 bad input\n");
}

static int sub_merge(int argc, char **argv)
{
    const char *out = NULL, *name = NULL;
    int force = 0;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("output", 'o', &out),
        CLI_OPT_STR("json", 0, &out),
        CLI_OPT_STR("name", 0, &name),
        CLI_OPT_FLAG("force", 0, &force),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    int prc = parse("sharesim profile merge", opts, usage_merge, -2, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    if (!out) {
        usage_merge(stderr);
        return SS_EXIT_BADINPUT;
    }
    char err[SS_ERRLEN];
    if (name && name_check(name, err, sizeof err)) { /* before any file is read */
        fprintf(stderr, "sharesim profile merge: --name: %s\n", err);
        return SS_EXIT_BADINPUT;
    }
    cJSON *base = NULL, *merged = NULL;
    size_t n = (size_t)(argc - optind - 1);
    cJSON **frag = ss_xcalloc(n, sizeof *frag);
    int rc = SS_EXIT_BADINPUT;
    if (prof_load(argv[optind], &base, NULL, err, sizeof err))
        goto out;
    for (size_t i = 0; i < n; i++)
        if (prof_read_fragment(argv[optind + 1 + (int)i], &frag[i], err, sizeof err))
            goto out;
    struct op_plan op;
    op_init(&op, "sharesim profile merge");
    op_input(&op, "BASE", argv[optind]);
    for (size_t i = 0; i < n; i++)
        op_input(&op, "MEASURED", argv[optind + 1 + (int)i]);
    op_output(&op, "-o", out);
    if (op_check(&op, err, sizeof err)) {
        op_free(&op);
        goto out;
    }
    op_free(&op);
    if (prof_merge(base, frag, (const char *const *)argv + optind + 1, n, name, force, &merged, err,
                   sizeof err) ||
        prof_write_merged(merged, out, err, sizeof err))
        goto out;
    rc = SS_EXIT_OK;
out:
    if (rc)
        fprintf(stderr, "sharesim profile merge: %s\n", err);
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(frag[i]);
    free(frag);
    cJSON_Delete(base);
    cJSON_Delete(merged);
    return rc;
}

/* ---- match ---- */

static void usage_match(FILE *fp)
{
    fprintf(fp, "usage: sharesim profile match DEVICE [--json FILE|-]\n\n"
                "Prints the name of the shipped profile for a CUDA device name as the driver\n"
                "reports it (e.g. \"NVIDIA H100 80GB HBM3\").\n"
                "  --json FILE  {\"device\", \"profile\"} (profile null when none matches);\n"
                "               - for stdout (then no name line)\n"
                "exit: 0 a profile matches, 1 none does, 2 bad input\n");
}

static int sub_match(int argc, char **argv)
{
    const char *json = NULL;
    const struct cli_opt opts[] = {CLI_OPT_STR("json", 0, &json), CLI_OPT_HELP, CLI_OPT_END};
    int prc = parse("sharesim profile match", opts, usage_match, 1, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    char name[128], err[SS_ERRLEN];
    int found = prof_find_device(argv[optind], name, sizeof name, err, sizeof err);
    if (found == -2) {
        fprintf(stderr, "sharesim profile match: %s\n", err);
        return SS_EXIT_BADINPUT;
    }
    /* A well-formed question whose answer is "none": exit 1, not bad input. */
    int rc = found == 0 ? SS_EXIT_OK : SS_EXIT_INFEASIBLE;
    if (found != 0)
        fprintf(stderr, "sharesim profile match: %s\n", err);
    else if (!cli_is_stdout(json))
        printf("%s\n", name);
    if (json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "device", argv[optind]);
        if (found == 0)
            cJSON_AddStringToObject(doc, "profile", name);
        else
            cJSON_AddNullToObject(doc, "profile");
        if (cli_write_json("sharesim profile match", json, doc))
            rc = SS_EXIT_BADINPUT;
    }
    return rc;
}

static const struct cli_command subcommands[] = {
    {"list", "shipped and measured profiles", sub_list, NULL},
    {"show", "GPU: a profile as a table with sources", sub_show, NULL},
    {"diff", "A B: what changed from A to B", sub_diff, NULL},
    {"merge", "BASE MEASURED... -o OUT: make a measured profile from kernels/ output", sub_merge,
     NULL},
    {"match", "DEVICE: the shipped profile for a CUDA device name", sub_match, NULL},
    {"fit", "MEASUREMENTS.csv: fit the engine's parameters to measured points", cmd_profile_fit,
     NULL},
    {"occupancy", "how to measure a workload's SM-scaling curve; the work presets",
     cmd_profile_occupancy, NULL},
    {NULL, NULL, NULL, NULL},
};

const struct cli_group cmd_profile = {
    NULL,
    subcommands,
    "GPU is a profile name or alias (sharesim profile list) or a path to a .json.\n",
};
