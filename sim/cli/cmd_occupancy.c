/*
 * cmd_occupancy — `sharesim profile occupancy`: how to measure how a workload of one's own
 * scales with its SM share (kernels/partition's SM counts and reference curves, then the
 * workload itself on those shares), how to turn the ratios into work.max_sm_fraction and
 * work.host_fraction, and the shipped presets with the rows they were fitted to
 * (core/preset.h, docs/mig.md#work-presets).
 */
#include "cli/cli.h"

#include "base/util.h"
#include "core/preset.h"

#include <cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp, "usage: sharesim profile occupancy [--presets FILE] [--json FILE|-]\n"
                "How to measure a workload's SM-scaling curve with kernels/partition and turn\n"
                "it into work.max_sm_fraction and work.host_fraction; then the shipped work\n"
                "presets (docs/mig.md#work-presets). --presets: another preset table;\n"
                "--json: the presets with their sources and fit rows (- for stdout).\n"
                "exit: 0 printed, 2 bad input (usage, an unreadable table)\n");
}

static void print_value(const char *key, const struct wp_value *v)
{
    if (!v->set)
        return;
    printf("    %-16s %-6g %s", key, v->value, v->confidence);
    for (int r = 0; r < v->n_fit_rows; r++)
        printf("%s%s", r ? ", " : "  fitted to ", v->fit_rows[r]);
    printf("\n");
}

static void json_value(cJSON *o, const char *key, const struct wp_value *v)
{
    if (!v->set)
        return;
    cJSON *e = cJSON_AddObjectToObject(o, key), *rows = cJSON_CreateArray();
    cJSON_AddNumberToObject(e, "value", v->value);
    cJSON_AddStringToObject(e, "source", v->source);
    cJSON_AddStringToObject(e, "confidence", v->confidence);
    for (int r = 0; r < v->n_fit_rows; r++)
        cJSON_AddItemToArray(rows, cJSON_CreateString(v->fit_rows[r]));
    cJSON_AddItemToObject(e, "fit_rows", rows);
}

static cJSON *json_table(const struct wp_table *t)
{
    cJSON *doc = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(doc, "presets");
    for (int i = 0; i < t->n; i++) {
        const struct wp_preset *p = &t->p[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", p->name);
        cJSON_AddStringToObject(o, "description", p->description);
        cJSON_AddStringToObject(o, "class", scn_class_name(p->wclass));
        json_value(o, "compute_share", &p->compute_share);
        json_value(o, "max_sm_fraction", &p->max_sm_fraction);
        json_value(o, "intensity", &p->intensity);
        json_value(o, "host_fraction", &p->host_fraction);
        cJSON_AddItemToArray(list, o);
    }
    return doc;
}

static void print_steps(void)
{
    printf("Measuring a workload's SM-scaling curve\n"
           "\n"
           "1. The SM counts and the reference curves. On the GPU (MIG off):\n"
           "     build/kernels/partition --out partition.json\n"
           "   measures an FMA-bound and a streaming kernel on k SMs for k over the device's\n"
           "   MIG profile SM counts and all SMs (--sms 14,28,42,108 to choose them);\n"
           "   partition_compute_curve is what a kernel that fills the GPU does on k SMs\n"
           "   (docs/calibration.md). Its SM counts are the points to measure your workload at.\n"
           "2. Your workload on those shares: a fixed job (the same requests, steps or tokens)\n"
           "   at each k, either in the MIG instance of that size or as the only MPS client with\n"
           "   CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = 100 k / total SMs, and once on the whole GPU.\n"
           "   Record the throughput r(k) = rate on k SMs / rate on the whole GPU.\n"
           "3. Read the curve against f = k / total SMs:\n"
           "   - r(k) close to f (within 5-10 %%): the workload fills the GPU; leave\n"
           "     max_sm_fraction at 1 (the GEMM rows: 1.04-1.07 times f).\n"
           "   - r(k) = f / s up to a knee, then 1: it keeps at most s of the SMs busy;\n"
           "     max_sm_fraction = f / r(k) at any point below the knee.\n"
           "   - r(k) rising slowly and never reaching f / s: part of each step runs on the\n"
           "     host; with two points below the knee, 1 / r = p + (1 - p) s / f gives\n"
           "     host_fraction p and max_sm_fraction s (two equations, two unknowns).\n"
           "   A memory-bound workload (r follows the memory slices, not the SMs) is class\n"
           "   \"memory\" or \"mixed\"; a compute workload whose small instances fall behind\n"
           "   the SMs only where the slices are fewer takes work.intensity.\n"
           "\n"
           "Example, the shipped hpc-md preset (GROMACS, NJIT_MIG in\n"
           "kernels/profiles/measurements/sharing.md): r = 0.3650 on 1g.10gb (f = 14/108) and\n"
           "0.9740 on 3g.40gb (f = 42/108). With k = (1 - p) s:\n"
           "  p + k 108/14 = 1/0.3650 = 2.7397 and p + k 108/42 = 1/0.9740 = 1.0267\n"
           "  k = 1.7130 / 5.1429 = 0.3331, p = 1.0267 - 0.3331 x 2.5714 = 0.170,\n"
           "  s = 0.3331 / (1 - 0.170) = 0.401:\n"
           "  \"work\": {\"dist\": ..., \"max_sm_fraction\": 0.401, \"host_fraction\": 0.17},\n"
           "  which is \"preset\": \"hpc-md\". It predicts 0.6879 on 2g.20gb (measured 0.6848).\n"
           "\n");
}

int cmd_profile_occupancy(int argc, char **argv)
{
    const char *table = NULL, *json = NULL;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("presets", 0, &table),
        CLI_OPT_STR("json", 0, &json),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec sp = {"sharesim profile occupancy", opts, usage, NULL, 0, 0, 0, NULL};
    int prc = cli_parse_opts(&sp, argc, argv);
    if (prc != CLI_CONTINUE)
        return prc;
    struct wp_table *t = ss_xcalloc(1, sizeof *t);
    char err[SS_ERRLEN];
    if (wp_load(table, t, err, sizeof err)) {
        fprintf(stderr, "sharesim profile occupancy: %s\n", err);
        free(t);
        return SS_EXIT_BADINPUT;
    }
    int rc = SS_EXIT_OK;
    if (json && cli_write_json("sharesim profile occupancy", json, json_table(t)))
        rc = SS_EXIT_BADINPUT;
    if (cli_is_stdout(json)) {
        free(t);
        return rc;
    }
    print_steps();
    printf("Work presets (%s; \"work\": {\"preset\": NAME, ...}):\n",
           table ? table : wp_table_path());
    for (int i = 0; i < t->n; i++) {
        const struct wp_preset *p = &t->p[i];
        printf("  %s: %s\n    class            %s\n", p->name, p->description,
               scn_class_name(p->wclass));
        print_value("compute_share", &p->compute_share);
        print_value("max_sm_fraction", &p->max_sm_fraction);
        print_value("intensity", &p->intensity);
        print_value("host_fraction", &p->host_fraction);
    }
    free(t);
    return rc;
}
