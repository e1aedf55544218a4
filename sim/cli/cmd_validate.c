/*
 * sharesim validate — runs the grid of exactly solvable configurations
 * (validate.h) and prints the comparison table; --json and --markdown write it to
 * files atomically. Exit 0 when every row passes, 1 when any fails, 2 on bad usage
 * or an output that cannot be written.
 */
#include "cli/cli.h"
#include "cli/outplan.h"
#include "report/csvrows.h"
#include "base/util.h"
#include "tools/pool.h"
#include "tools/shard.h"
#include "tools/validate.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sharesim validate [--quick] [--json FILE|-] [--markdown FILE|-] [--jobs N]\n"
            "                         [--seed N] [--quiet] [--csv FILE|-]\n"
            "       sharesim validate [--quick] [--seed N] --shard I/N --partial FILE\n"
            "       sharesim validate [--quick] [--seed N] [--json …] [--markdown …] [--csv …]\n"
            "                         --merge FILE…\n"
            "       mpirun -n N sharesim validate …   (the runs over N MPI ranks)\n\n"
            "Runs configurations with exact queueing answers through the simulator and compares:\n"
            "M/M/c FIFO (c = 1, 2, 4, 7, 8, 16; rho = 0.3 ... 0.95: mean wait, mean and p99\n"
            "sojourn vs Erlang C), M/G/1 processor sharing (mean sojourn E[S]/(1-rho) for\n"
            "exponential, deterministic and lognormal work), time-slicing with zero switch cost\n"
            "(mean sojourn = M/M/1 at the combined load) and saturated time-slicing (throughput\n"
            "and utilization q/(q+s), switch overhead s/(q+s)). Each configuration runs R\n"
            "independent replications; a row passes when the 95%% CI of the mean covers the\n"
            "exact value or the relative error is under 1%%.\n\n"
            "  --quick          reduced grid and run lengths (seconds; the CI check)\n"
            "  --json FILE      write the table as JSON (values in s, 1/s, fractions); - = stdout\n"
            "  --csv FILE       the JSON's rows as CSV; - = stdout\n"
            "  --markdown FILE  write the table as Markdown (results/validation.md); - = stdout\n"
            "  --jobs N         run replications in N worker processes (same output for any N)\n"
            "  --seed N         base seed (default 1)\n"
            "  --quiet          no table on stdout\n"
            "  --shard I/N      run only the runs t with t mod N = I (a batch-array task) and\n"
            "                   write their results to --partial FILE, not a report\n"
            "  --merge FILE…    read the runs from the shards' partial files instead of running\n"
            "                   them, and report as one run would (same --quick and --seed)\n"
            "Under mpirun, rank 0 writes and --jobs is ignored (one worker per rank);\n"
            "docs/distributed.md.\n"
            "exit: 0 every row passes, 1 a row fails, 2 bad usage or output error\n");
}

/* Writes the report (0 JSON, 1 Markdown, 2 the JSON's rows as CSV) into an output opened
 * before the run, and commits it. */
static int write_report(struct ss_out *o, const struct val_report *r, int what, const char *command)
{
    char err[SS_ERRLEN];
    if (what == 1) {
        val_print_markdown(o->fp, r, command);
    } else {
        cJSON *doc = val_json(r);
        if (what == 2)
            csv_rows(o->fp, cJSON_GetObjectItemCaseSensitive(doc, "rows"), NULL);
        else
            cli_put_doc(o->fp, doc);
        cJSON_Delete(doc);
    }
    if (ss_out_commit(o, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        return -1;
    }
    return 0;
}

/*
 * The command that reproduces a Markdown file, for its provenance line: only the
 * options that change the numbers, in a fixed order (--jobs does not), so
 * regenerating the file rewrites it byte for byte, wherever it is written.
 */
static char *command_line(const struct val_opts *vo, const char *md)
{
    char seed[40] = "";
    if (vo->seed != 1)
        snprintf(seed, sizeof seed, " --seed %lu", vo->seed);
    /* The file's own name, not the folder it was written to: `make results-check`
     * writes into a temporary folder and must produce the same bytes. */
    const char *base = strrchr(md, '/') ? strrchr(md, '/') + 1 : md;
    size_t n = strlen(base) + 96;
    char *s = ss_xmalloc(n);
    snprintf(s, n, "sharesim validate%s%s --markdown %s", vo->quick ? " --quick" : "", seed, base);
    return s;
}

int cmd_validate(int argc, char **argv)
{
    struct val_opts vo = {0, 1, 1, 1.0, 0};
    struct val_batch vb = {{0, 1}, NULL, NULL, 0};
    const char *json = NULL, *md = NULL, *csv = NULL;
    int quiet = 0, merge = 0;
    long seed = 1;
    char err[SS_ERRLEN];
    const struct cli_opt opts[] = {
        CLI_OPT_FLAG("quick", 'Q', &vo.quick),
        CLI_OPT_STR("json", 'j', &json),
        CLI_OPT_STR("csv", 'c', &csv),
        CLI_OPT_STR("markdown", 'm', &md),
        CLI_OPT_INT("jobs", 'J', &vo.jobs, 1, 256),
        CLI_OPT_LONG("seed", 's', &seed, 0, 4294967295.0),
        CLI_OPT_FLAG("quiet", 'q', &quiet),
        CLI_OPT_CALL("shard", 0, &vb.shard, cli_opt_shard),
        CLI_OPT_STR("partial", 0, &vb.partial),
        CLI_OPT_FLAG("merge", 0, &merge),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec spec = {
        .cmd = "sharesim validate", .opts = opts, .usage = usage, .min_args = 0, .max_args = -1};
    int prc = cli_parse_opts(&spec, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    vo.seed = (unsigned long)seed;
    if (optind < argc && !merge) {
        fprintf(stderr, "sharesim validate: unexpected argument \"%s\"\n", argv[optind]);
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    if (vb.shard.n > 1 && (!vb.partial || json || md || csv || merge)) {
        fprintf(stderr, "sharesim validate: --shard needs --partial FILE, and writes no report "
                        "(--json, --markdown, --csv and --merge come with the merge)\n");
        return SS_EXIT_BADINPUT;
    }
    if (vb.partial && vb.shard.n <= 1) {
        fprintf(stderr, "sharesim validate: --partial goes with --shard I/N (N > 1)\n");
        return SS_EXIT_BADINPUT;
    }
    if (merge && optind == argc) {
        fprintf(stderr, "sharesim validate: --merge: expected the shards' partial files\n");
        return SS_EXIT_BADINPUT;
    }
    if (merge) {
        vb.merge = argv + optind;
        vb.n_merge = argc - optind;
    }
    /* Before any run: one file per output, and no partial file merged is written over. */
    struct op_plan op;
    op_init(&op, "sharesim validate");
    for (int k = 0; k < vb.n_merge; k++)
        op_input(&op, "--merge", vb.merge[k]);
    op_output(&op, "--json", json);
    op_output(&op, "--markdown", md);
    op_output(&op, "--csv", csv);
    op_output(&op, "--partial", vb.partial);
    if (op_done(&op))
        return SS_EXIT_BADINPUT;
    cli_install_signal_handlers();
    vo.progress = cli_stderr_is_tty();
    struct val_report r;
    if (!pool_is_writer()) {
        /* An MPI rank other than 0: it runs the items rank 0 sends, and rank 0 writes. */
        if (val_run_batch(&vo, &vb, &r, err, sizeof err)) {
            fprintf(stderr, "sharesim: %s\n", err);
            return SS_EXIT_BADINPUT;
        }
        val_report_free(&r);
        return SS_EXIT_OK;
    }
    /* Outputs are opened first: a bad path fails now, not after minutes of simulation. */
    const char *path[3] = {json, md, csv};
    struct ss_out out[3];
    int opened = 0;
    double t0 = cli_now_s();
    while (opened < 3 &&
           !(path[opened] && ss_out_open(&out[opened], path[opened], err, sizeof err)))
        opened++;
    if (opened < 3 || val_run_batch(&vo, &vb, &r, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        for (int k = 0; k < opened; k++)
            if (path[k])
                ss_out_abort(&out[k]);
        return SS_EXIT_BADINPUT;
    }
    double wall = cli_now_s() - t0;
    if (vb.shard.n > 1) {
        /* A shard writes its partial file only (no report outputs are open: refused above). */
        fprintf(stderr,
                "validate: shard %d/%d done (%.1f s), its runs are in %s; once every shard is "
                "done, the same options with --merge and the partial files write the report\n",
                vb.shard.i, vb.shard.n, wall, vb.partial);
        val_report_free(&r);
        return SS_EXIT_OK;
    }
    char *command = md ? command_line(&vo, md) : NULL;
    int rc = SS_EXIT_OK;
    if (!quiet && !cli_is_stdout(json) && !cli_is_stdout(md) && !cli_is_stdout(csv))
        val_print_table(stdout, &r);
    for (int k = 0; k < 3; k++)
        if (path[k] && write_report(&out[k], &r, k, command))
            rc = SS_EXIT_BADINPUT;
    fprintf(stderr, "validate: %d of %d rows pass (%s grid, %.3g measured requests, %.1f s)\n",
            r.n - r.n_failed, r.n, r.quick ? "quick" : "full", r.requests, wall);
    if (rc == SS_EXIT_OK && r.n_failed > 0)
        rc = SS_EXIT_INFEASIBLE;
    free(command);
    val_report_free(&r);
    return rc;
}
