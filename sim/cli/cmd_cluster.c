/*
 * cmd_cluster — `sharesim cluster SCENARIO`: pod placement on a GPU cluster, every policy
 * and seed of the scenario (docs/cluster.md); under mpirun over the ranks, or as the shards
 * of a batch array and their merge (docs/distributed.md). Exit 0, or 2 on bad input (the
 * message names the file and the line, column or JSON path).
 */
#include "base/util.h"
#include "cli/cli.h"
#include "cli/outplan.h"
#include "tools/clusterrun.h"
#include "tools/pool.h"
#include "tools/shard.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sharesim cluster SCENARIO [--json FILE|-] [--csv FILE] [--csv-frag FILE]\n"
            "                        [--csv-frag-ratio FILE] [--html FILE] [--jobs N] [--quiet]\n"
            "                        [--progress]\n"
            "       sharesim cluster SCENARIO --shard I/N --partial FILE [--jobs N]\n"
            "       sharesim cluster SCENARIO [--json FILE|-] [--csv FILE] … --merge FILE…\n\n"
            "Places the scenario's pods on its GPU cluster with each placement policy and seed\n"
            "(random, dotprod, clustering, packing, bestfit, fgd), as the FGD paper's\n"
            "simulator does (workload inflation or trace replay), and reports the GPU\n"
            "allocation ratio and fragmentation. docs/cluster.md has the scenario keys.\n\n"
            "  --json FILE|-         every experiment and the summary as JSON\n"
            "  --csv FILE            inflate: allocation ratio per 1 %% of arrived workload, one\n"
            "                        row per policy and seed (the FGD simulator's\n"
            "                        analysis_allo_discrete.csv layout); replay: time samples\n"
            "  --csv-frag FILE       inflate: fragment amount, %% of the cluster's GPUs\n"
            "                        (analysis_frag_discrete.csv)\n"
            "  --csv-frag-ratio FILE inflate: fragmented share of idle GPUs, %%\n"
            "                        (analysis_frag_ratio_discrete.csv)\n"
            "  --html FILE           the result's page: allocation and fragmentation per policy\n"
            "                        against arrived load (inflate) or over time (replay), a MIG\n"
            "                        cluster's reconfigurations, failed pods (docs/cluster.md)\n"
            "  --jobs N              experiments in N worker processes (output identical)\n"
            "  --quiet               no summary table\n"
            "  --progress            progress on stderr even when it is not a terminal (a line\n"
            "                        per experiment, and per 10 %% of the pods of one that runs\n"
            "                        longer than a few seconds); outputs are unchanged\n"
            "  --shard I/N           run only the experiments k with k mod N = I (a batch-array\n"
            "                        task) and write their results to --partial FILE, no output\n"
            "  --merge FILE…         the experiments from the shards' partial files instead of\n"
            "                        running them; the outputs are those of one run\n"
            "Under mpirun -n N the experiments run over the N ranks and rank 0 writes the same\n"
            "files (docs/distributed.md).\n\n"
            "exit codes: 0 every experiment ran; 2 bad scenario, node or pod file, a bound on\n"
            "work passed, option or output, a failed experiment, a partial file of another\n"
            "study, an experiment in no partial file, or a damaged one\n");
}

/* A failure message, printed once under MPI: by rank 0, or by the one rank that failed
 * alone (pool_rank_stopped). */
static void fail(const char *err)
{
    if (pool_is_writer())
        fprintf(stderr, "sharesim: %s\n", err);
    else
        pool_rank_stopped(err);
}

int cmd_cluster(int argc, char **argv)
{
    struct clr_opts o = {0};
    o.jobs = 1;
    o.shard = (struct shard){0, 1};
    int quiet = 0, merge = 0, progress = 0;
    char err[SS_ERRLEN];
    const struct cli_opt opts[] = {
        CLI_OPT_STR("json", 'j', &o.json_path),
        CLI_OPT_STR("csv", 'c', &o.csv_path),
        CLI_OPT_STR("csv-frag", 'f', &o.csv_frag_path),
        CLI_OPT_STR("csv-frag-ratio", 'r', &o.csv_ratio_path),
        CLI_OPT_STR("html", 0, &o.html_path),
        CLI_OPT_INT("jobs", 'J', &o.jobs, 1, 256),
        CLI_OPT_FLAG("quiet", 'q', &quiet),
        CLI_OPT_FLAG("progress", 0, &progress),
        CLI_OPT_CALL("shard", 0, &o.shard, cli_opt_shard),
        CLI_OPT_STR("partial", 0, &o.partial),
        CLI_OPT_FLAG("merge", 0, &merge),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec spec = {.cmd = "sharesim cluster",
                                  .opts = opts,
                                  .usage = usage,
                                  .min_args = 0,
                                  .max_args = -1,
                                  .own_errors = 1};
    int prc = cli_parse_opts(&spec, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    if (optind >= argc) {
        fprintf(stderr, "sharesim cluster: missing SCENARIO\n\n");
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    if (optind + 1 < argc && !merge) {
        fprintf(stderr, "sharesim cluster: unexpected argument \"%s\"\n", argv[optind + 1]);
        return SS_EXIT_BADINPUT;
    }
    const char *outs[5] = {o.json_path, o.csv_path, o.csv_frag_path, o.csv_ratio_path, o.html_path};
    int n_stdout = 0, n_outs = 0;
    for (int i = 0; i < 5; i++) {
        n_stdout += outs[i] && strcmp(outs[i], "-") == 0;
        n_outs += outs[i] != NULL;
    }
    if (o.shard.n > 1 && (!o.partial || n_outs || merge)) {
        fprintf(stderr, "sharesim cluster: --shard needs --partial FILE, and writes no other "
                        "output (--json, --csv, --csv-frag, --csv-frag-ratio, --html and --merge "
                        "come with the merge)\n");
        return SS_EXIT_BADINPUT;
    }
    if (o.partial && o.shard.n <= 1) {
        fprintf(stderr, "sharesim cluster: --partial goes with --shard I/N (N > 1)\n");
        return SS_EXIT_BADINPUT;
    }
    if (merge && optind + 1 == argc) {
        fprintf(stderr, "sharesim cluster: --merge: expected the shards' partial files after "
                        "SCENARIO\n");
        return SS_EXIT_BADINPUT;
    }
    if (merge) {
        o.merge = argv + optind + 1;
        o.n_merge = argc - optind - 1;
    }
    /* Before the scenario is loaded or anything runs: one file per output, none an input. */
    struct op_plan op;
    op_init(&op, "sharesim cluster");
    op_input(&op, "SCENARIO", argv[optind]);
    for (int k = 0; k < o.n_merge; k++)
        op_input(&op, "--merge", o.merge[k]);
    op_output(&op, "--json", o.json_path);
    op_output(&op, "--csv", o.csv_path);
    op_output(&op, "--csv-frag", o.csv_frag_path);
    op_output(&op, "--csv-frag-ratio", o.csv_ratio_path);
    op_output(&op, "--html", o.html_path);
    op_output(&op, "--partial", o.partial);
    if (op_done(&op))
        return SS_EXIT_BADINPUT;
    cli_install_signal_handlers();
    struct cl_scenario s;
    if (cl_scenario_load(argv[optind], &s, err, sizeof err)) {
        fail(err);
        return SS_EXIT_BADINPUT;
    }
    if (s.mode == CL_REPLAY && (o.csv_frag_path || o.csv_ratio_path)) {
        fprintf(stderr, "sharesim cluster: --csv-frag and --csv-frag-ratio are per 1 %% of "
                        "arrived workload, for \"mode\": \"inflate\"; a replay's --csv has "
                        "fragmentation over time\n");
        cl_scenario_free(&s);
        return SS_EXIT_BADINPUT;
    }
    if (s.work.n_oversized > 0 && pool_is_writer())
        fprintf(stderr,
                "sharesim: warning: %s: %d pod%s fit%s no node of the cluster even when the "
                "node is empty (the first: line %ld, pod \"%s\"); counted as failed in every "
                "experiment, as the FGD simulator does (\"oversized\": \"error\" refuses "
                "them)\n",
                s.work.source, s.work.n_oversized, s.work.n_oversized == 1 ? "" : "s",
                s.work.n_oversized == 1 ? "s" : "", s.work.oversized_line, s.work.oversized_name);
    o.progress = cli_stderr_is_tty() ? CLR_PROGRESS_BAR : progress ? CLR_PROGRESS_LINES : 0;
    /* Under MPI only rank 0 reports; a shard reports where its results are. */
    o.text = quiet || n_stdout || !pool_is_writer() || o.shard.n > 1 ? NULL : stdout;
    int rc = clr_run(&s, &o, err, sizeof err);
    cl_scenario_free(&s);
    if (rc) {
        fail(err);
        return SS_EXIT_BADINPUT;
    }
    if (o.shard.n > 1 && pool_is_writer())
        fprintf(stderr,
                "cluster: shard %d/%d done, its experiments are in %s; once every "
                "shard is done, the same command with --merge and the partial files (instead of "
                "--shard and --partial) writes the outputs\n",
                o.shard.i, o.shard.n, o.partial);
    return SS_EXIT_OK;
}
