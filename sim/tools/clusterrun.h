/*
 * clusterrun — `sharesim cluster`: every (policy, seed) experiment of a cluster scenario
 * (cluster/cl_scenario.h) in the worker pool (tools/pool.h), and the outputs: a text
 * summary, JSON, and CSV in the layout of the FGD simulator's analysis files
 * (docs/cluster.md, "Outputs").
 *
 * An experiment is a pure function of (scenario, policy, seed); results are filed by
 * experiment index, so every output is byte-identical for any number of jobs, of MPI ranks
 * (every rank calls clr_run; only rank 0 writes, docs/distributed.md), and for a merge of
 * batch-array shards (--shard I/N --partial FILE, then --merge FILE…).
 */
#ifndef SS_CLUSTERRUN_H
#define SS_CLUSTERRUN_H

#include "cluster/cl_scenario.h"
#include "tools/shard.h"

#include <stdio.h>

enum { CLR_PROGRESS_BAR = 1, CLR_PROGRESS_LINES = 2 };
#define CLR_PROGRESS_AFTER_S 3.0

struct clr_opts {
    int jobs;                   /* worker processes; <= 1 runs in this process */
    const char *json_path;      /* NULL: none; "-": stdout */
    const char *csv_path;       /* inflate: allocation ratio (analysis_allo_discrete.csv);
                                   replay: the time samples */
    const char *csv_frag_path;  /* inflate: fragment amount (analysis_frag_discrete.csv) */
    const char *csv_ratio_path; /* inflate: fragmentation ratio
                                   (analysis_frag_ratio_discrete.csv) */
    const char *html_path; /* the page of the result (report/html.h ht_cluster_page) */
    /* progress on stderr: 0 none; CLR_PROGRESS_BAR (a terminal) a bar redrawn per
     * experiment; CLR_PROGRESS_LINES (--progress without one) about ten lines. Either way
     * an experiment still running after CLR_PROGRESS_AFTER_S seconds adds a line per tenth
     * of its pod events. Only stderr: outputs do not depend on it. */
    int progress;
    FILE *text; /* the summary table; NULL: none */
    /* Batch arrays. A shard ({i, n} with n > 1) runs the experiments k with k mod n = i and
     * writes their results to `partial` (tools/partial.h), and none of the outputs above. */
    struct shard shard; /* {0, 0} or {0, 1}: every experiment */
    const char *partial;
    /* n_merge > 0: every experiment's result from these shards' partial files instead of
     * running any; the outputs are then written as one run would write them. */
    char *const *merge;
    int n_merge;
};

/* Runs the experiments (or merges the shards') and writes the outputs (all or none of the
 * files). 0, or -1 with a message (a failed experiment, an output that cannot be written, a
 * partial file of another study or an experiment in none). Under MPI the other ranks only
 * compute: there it returns 0 having written nothing. */
int clr_run(const struct cl_scenario *s, const struct clr_opts *o, char *err, size_t errlen);

#endif
