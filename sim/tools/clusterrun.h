/*
 * clusterrun — `sharesim cluster`: every (policy, seed) experiment of a cluster scenario
 * (cluster/cl_scenario.h) in the worker pool (tools/pool.h), and the outputs: a text
 * summary, JSON, and CSV in the layout of the FGD simulator's analysis files
 * (docs/cluster.md, "Outputs").
 *
 * An experiment is a pure function of (scenario, policy, seed); results are filed by
 * experiment index, so every output is byte-identical for any number of jobs.
 */
#ifndef SS_CLUSTERRUN_H
#define SS_CLUSTERRUN_H

#include "cluster/cl_scenario.h"

#include <stdio.h>

struct clr_opts {
    int jobs;                   /* worker processes; <= 1 runs in this process */
    const char *json_path;      /* NULL: none; "-": stdout */
    const char *csv_path;       /* inflate: allocation ratio (analysis_allo_discrete.csv);
                                   replay: the time samples */
    const char *csv_frag_path;  /* inflate: fragment amount (analysis_frag_discrete.csv) */
    const char *csv_ratio_path; /* inflate: fragmentation ratio
                                   (analysis_frag_ratio_discrete.csv) */
    int progress;               /* progress line on stderr */
    FILE *text;                 /* the summary table; NULL: none */
};

/* Runs the experiments and writes the outputs (all or none of the files). 0, or -1 with a
 * message (a failed experiment, an output that cannot be written). */
int clr_run(const struct cl_scenario *s, const struct clr_opts *o, char *err, size_t errlen);

#endif
