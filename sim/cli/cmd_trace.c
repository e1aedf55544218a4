/*
 * cmd_trace — `sharesim trace SUBCOMMAND`: work with request traces. Subcommands are rows of
 * the table at the end, each with the signature of main(); `stats` describes a trace file
 * (tracestats.h); `gen` writes a `sharesim`-format trace (core/tracegen.h) from an arrival and a
 * work spec, drawn by the same code (tenant.h) and the same random stream a run uses, so a
 * generated trace replayed is the synthetic tenant's arrivals. Exit codes: 0 ok, 2 bad input or
 * usage.
 */
#include "cli/cli.h"
#include "cli/outplan.h"
#include "core/engine.h"
#include "base/jsonv.h"
#include "core/scenario.h"
#include "core/tenant.h"
#include "core/tracegen.h"
#include "io/trace.h"
#include "io/tracestats.h"
#include "io/traceview.h"
#include "base/util.h"

#include <cJSON.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- stats ---- */

static void stats_usage(FILE *fp)
{
    fprintf(fp, "usage: sharesim trace stats FILE --format FORMAT [options]\n\n"
                "Reads a trace once (streamed, constant memory) and prints its request count,\n"
                "span, mean rate, inter-arrival mean and CV, token percentiles and work_ms.\n\n"
                "  -f, --format F      azure-llm | openb | sharesim (required)\n"
                "  -s, --time-scale X  multiply every inter-arrival time by X (2 = twice as slow)\n"
                "  -n, --limit N       only the first N records\n"
                "  -j, --json FILE     the same as one JSON object; - for stdout (then no text)\n"
                "  -h, --help          this help\n\n"
                "rate_per_s = (count - 1) / duration_s; ia_cv is the population standard\n"
                "deviation of the gaps over their mean; percentiles interpolate linearly.\n"
                "Exit codes: 0 ok, 2 bad input (the message names file:line:column).\n");
}

static int trace_stats(int argc, char **argv)
{
    static const char cmd[] = "sharesim trace stats";
    const char *format = NULL, *json = NULL;
    struct tr_opts opts = {1.0, 0};
    long limit = 0;
    const struct cli_opt o[] = {
        CLI_OPT_STR("format", 'f', &format),
        CLI_OPT_NUM("time-scale", 's', &opts.time_scale, CLI_GT, 0, INFINITY),
        CLI_OPT_LONG("limit", 'n', &limit, 0, INFINITY),
        CLI_OPT_STR("json", 'j', &json),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec spec = {
        .cmd = cmd, .opts = o, .usage = stats_usage, .min_args = 0, .max_args = -1};
    int prc = cli_parse_opts(&spec, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    opts.limit = limit;
    if (optind != argc - 1 || !format) {
        fprintf(stderr, "sharesim trace stats: %s\n",
                optind != argc - 1 ? "expected exactly one FILE" : "--format is required");
        stats_usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    const char *path = argv[optind];
    if (op_files(cmd, OP_LIST("FILE", path), OP_LIST("--json", json)))
        return SS_EXIT_BADINPUT;
    char err[SS_ERRLEN];
    enum tr_format fmt;
    struct trs_summary s;
    if (tr_format_from_name(format, &fmt, err, sizeof err) ||
        trs_summarize(path, fmt, &opts, &s, err, sizeof err)) {
        fprintf(stderr, "sharesim trace stats: %s\n", err);
        return SS_EXIT_BADINPUT;
    }
    if (!cli_is_stdout(json))
        trs_print(stdout, path, &opts, &s);
    if (json && cli_write_json(cmd, json, trs_json(path, &opts, &s)))
        return SS_EXIT_BADINPUT;
    return SS_EXIT_OK;
}

/* ---- gen ---- */

static void gen_usage(FILE *fp)
{
    fprintf(
        fp,
        "usage: sharesim trace gen --arrival JSON --work JSON (--count N | --duration-s T)\n"
        "                          [--seed S] -o FILE [--json FILE|-]\n"
        "       sharesim trace gen --scenario FILE --tenant NAME (--count N | --duration-s T)\n"
        "                          [--seed S] -o FILE [--json FILE|-]\n\n"
        "Draws arrivals and work exactly as `sharesim run` does and writes them as a sharesim\n"
        "trace (header time_s,work_ms; times in s from 0, work in ms), atomically.\n\n"
        "  -a, --arrival JSON    an arrival object as in a scenario, e.g.\n"
        "                        '{\"process\": \"mmpp\", \"states\": [{\"rate_per_s\": 20,\n"
        "                        \"mean_dwell_s\": 5}, {\"rate_per_s\": 1, \"mean_dwell_s\": "
        "20}]}'\n"
        "  -w, --work JSON       a work object, e.g. '{\"dist\": \"lognormal\", \"mean_ms\": 40,\n"
        "                        \"cv\": 1}'\n"
        "      --scenario FILE   take both from a tenant of a scenario instead (its seed and its\n"
        "      --tenant NAME     index select the random stream: the file then holds exactly\n"
        "                        that tenant's arrivals in replication 1 of `sharesim run`)\n"
        "  -n, --count N         stop after N requests\n"
        "  -d, --duration-s T    stop at the first arrival at or after T s\n"
        "                        (one of the two is required unless arrivals replay a trace)\n"
        "  -s, --seed S          random seed (default: the scenario's, else 1)\n"
        "  -o, --output FILE     output file; - for stdout (required)\n"
        "  -j, --json FILE       what was written, as JSON: {\"output\", \"requests\",\n"
        "                        \"last_arrival_s\", \"seed\"}; - for stdout (not with -o -)\n"
        "  -h, --help            this help\n\n"
        "Numbers are written with the fewest digits (15 to 17) that a replay reads back as\n"
        "the very time and work that were drawn.\n"
        "Exit codes: 0 ok, 2 bad input.\n");
}

struct gen_opts {
    const char *arrival, *work, *scenario, *tenant, *output, *json;
    long long count;
    double duration_s;
    long seed; /* < 0: default */
};

static int gen_fail(const char *fmt, const char *arg)
{
    fprintf(stderr, "sharesim trace gen: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    gen_usage(stderr);
    return SS_EXIT_BADINPUT;
}

/* CLI_CONTINUE, or the exit code (SS_EXIT_OK after --help). */
static int gen_parse_args(int argc, char **argv, struct gen_opts *g)
{
    memset(g, 0, sizeof *g);
    g->seed = -1;
    long count = 0;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("arrival", 'a', &g->arrival),
        CLI_OPT_STR("work", 'w', &g->work),
        CLI_OPT_STR("scenario", 0, &g->scenario),
        CLI_OPT_STR("tenant", 0, &g->tenant),
        CLI_OPT_LONG("count", 'n', &count, 1, INFINITY),
        CLI_OPT_NUM("duration-s", 'd', &g->duration_s, CLI_GT, 0, INFINITY),
        CLI_OPT_LONG("seed", 's', &g->seed, 0, 4294967295.0),
        CLI_OPT_STR("output", 'o', &g->output),
        CLI_OPT_STR("json", 'j', &g->json),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec spec = {.cmd = "sharesim trace gen",
                                  .opts = opts,
                                  .usage = gen_usage,
                                  .min_args = 0,
                                  .max_args = -1};
    int prc = cli_parse_opts(&spec, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    g->count = count;
    if (optind != argc)
        return gen_fail("unexpected argument \"%s\"", argv[optind]);
    if (!g->output)
        return gen_fail("%s", "-o FILE is required (- for stdout)");
    int inline_spec = g->arrival || g->work;
    if (inline_spec && (g->scenario || g->tenant))
        return gen_fail("%s", "give --arrival and --work, or --scenario and --tenant, not both");
    if (inline_spec && !(g->arrival && g->work))
        return gen_fail("%s", "--arrival and --work go together");
    if (!inline_spec && !(g->scenario && g->tenant))
        return gen_fail("%s", "expected --arrival and --work, or --scenario and --tenant");
    return CLI_CONTINUE;
}

/* Parses --arrival/--work into *cfg; -1 with a message. */
static int gen_inline_cfg(const struct gen_opts *g, cJSON **docs, struct tenant_cfg *cfg, char *err,
                          size_t errlen)
{
    static const char *const file = "(command line)";
    struct jv j = {file, err, errlen};
    const char *text[2] = {g->arrival, g->work};
    const char *what[2] = {"--arrival", "--work"};
    for (int k = 0; k < 2; k++) {
        j.file = what[k];
        docs[k] = jv_parse(&j, text[k], strlen(text[k]));
        if (!docs[k])
            return -1;
    }
    snprintf(cfg->name, sizeof cfg->name, "gen");
    return scn_parse_stream(file, docs[0], "--arrival", docs[1], "--work", cfg, err, errlen);
}

static int trace_gen(int argc, char **argv)
{
    struct gen_opts g;
    int rc = gen_parse_args(argc, argv, &g);
    if (rc != CLI_CONTINUE)
        return rc;
    char err[SS_ERRLEN];
    struct scenario sc;
    struct tenant_cfg inline_cfg;
    const struct tenant_cfg *cfg;
    cJSON *docs[2] = {NULL, NULL};
    uint64_t seed = 1;
    int index = 0;
    memset(&sc, 0, sizeof sc);
    memset(&inline_cfg, 0, sizeof inline_cfg);
    rc = SS_EXIT_BADINPUT;
    if (g.scenario) {
        if (scn_load(g.scenario, &sc, err, sizeof err))
            goto fail;
        index = scn_tenant_index(&sc, g.tenant);
        if (index < 0) {
            ss_errf(err, sizeof err, "%s: no tenant named \"%s\"", g.scenario, g.tenant);
            goto fail;
        }
        cfg = &sc.tenants[index];
        seed = sc.seed;
    } else {
        if (gen_inline_cfg(&g, docs, &inline_cfg, err, sizeof err))
            goto fail;
        cfg = &inline_cfg;
    }
    if (g.seed >= 0)
        seed = (uint64_t)g.seed;
    if (cfg->arrival.kind == ARR_SATURATED) {
        ss_errf(err, sizeof err, "a saturated tenant has no arrival times to write");
        goto fail;
    }
    if (cfg->arrival.kind != ARR_TRACE && g.count == 0 && g.duration_s == 0) {
        ss_errf(err, sizeof err,
                "--count N or --duration-s T is required (the arrivals never end)");
        goto fail;
    }
    /* The scenario and its traces are loaded (noted as inputs); nothing is written yet. */
    if (op_files("sharesim trace gen", OP_LIST("--scenario", g.scenario),
                 OP_LIST("-o", g.output, "--json", g.json))) {
        rc = SS_EXIT_BADINPUT;
        goto done;
    }
    struct ss_out out;
    if (ss_out_open(&out, g.output, err, sizeof err)) /* refuses the scenario or a trace too */
        goto fail;
    struct tenant_rt t;
    memset(&t, 0, sizeof t);
    ten_init(&t, cfg, g.scenario, seed, index, 0);
    double last = 0;
    const struct tg_limit lim = {g.count, g.duration_s};
    long long n = tg_write(out.fp, &t, &lim, g.output, &last, err, sizeof err);
    ten_free(&t);
    if (n < 0) {
        ss_out_abort(&out);
        goto fail;
    }
    if (ss_out_commit(&out, err, sizeof err))
        goto fail;
    fprintf(stderr, "sharesim trace gen: %lld requests, last arrival at %.6g s -> %s\n", n, last,
            g.output);
    rc = SS_EXIT_OK;
    if (g.json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "output", g.output);
        cJSON_AddNumberToObject(doc, "requests", (double)n);
        jv_out_add(doc, "last_arrival_s", last);
        cJSON_AddNumberToObject(doc, "seed", (double)seed);
        if (cli_write_json("sharesim trace gen", g.json, doc))
            rc = SS_EXIT_BADINPUT;
    }
    goto done;
fail:
    fprintf(stderr, "sharesim trace gen: %s\n", err);
done:
    scn_tenant_free(&inline_cfg);
    cJSON_Delete(docs[0]);
    cJSON_Delete(docs[1]);
    if (g.scenario)
        scn_free(&sc);
    return rc;
}

static const struct cli_command subcommands[] = {
    {"stats", "count, rate, inter-arrival CV and token percentiles of a trace", trace_stats, NULL},
    {"gen", "write a sharesim trace (time_s,work_ms) from an arrival and a work spec", trace_gen,
     NULL},
    {NULL, NULL, NULL, NULL},
};

const struct cli_group cmd_trace = {
    NULL,
    subcommands,
    "trace formats: azure-llm, openb, sharesim (see docs/traces.md)\n",
};
