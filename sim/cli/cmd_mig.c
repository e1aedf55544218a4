/*
 * cmd_mig — `sharesim mig profiles|layouts|check|pack`: the MIG library
 * (mig.h) on the command line. Text for people, --json FILE|- and --csv FILE|- for
 * programs; exit 0 ok, 1 a negative answer (check: a well-formed layout that breaks a
 * placement rule, the message says which; pack: requests left unplaced), 2 bad input
 * (an unknown GPU or profile, a malformed list).
 */
#include "calib/calib.h"
#include "cli/cli.h"
#include "cli/outplan.h"
#include "mig/mig.h"
#include "mig/migview.h"
#include "base/util.h"

#include <cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Options common to the subcommands. */
struct mig_opts {
    const char *gpu, *demand, *policy, *json, *csv;
    int maximal, gpus, arrival;
    const char *arg; /* the one positional argument */
};

static int opt_order(const char *cmd, void *target, const char *arg)
{
    if (strcmp(arg, "largest") && strcmp(arg, "arrival"))
        return cli_opt_error(cmd, "--order", arg, "largest or arrival");
    *(int *)target = strcmp(arg, "arrival") == 0;
    return 0;
}

/* Parses argv for subcommand `sub`; `allowed` lists the long options it takes (the others are
 * known, and refused by name). Returns CLI_CONTINUE to go on, else the exit code (SS_EXIT_OK
 * after --help). */
static int parse_opts(const char *sub, const char *help, const char *allowed, int want_arg,
                      int argc, char **argv, struct mig_opts *o)
{
    char cmd[64], among[128], word[32];
    snprintf(cmd, sizeof cmd, "sharesim mig %s", sub);
    snprintf(among, sizeof among, " %s ", allowed);
    memset(o, 0, sizeof *o);
    unsigned long given;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("gpu", 'g', &o->gpu),
        CLI_OPT_STR("json", 'j', &o->json),
        CLI_OPT_STR("csv", 0, &o->csv),
        CLI_OPT_STR("demand", 0, &o->demand),
        CLI_OPT_STR("policy", 0, &o->policy),
        CLI_OPT_INT("gpus", 0, &o->gpus, 1, 100000),
        CLI_OPT_FLAG("maximal", 0, &o->maximal),
        CLI_OPT_CALL("order", 0, &o->arrival, opt_order),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec sp = {
        .cmd = cmd, .opts = opts, .help = help, .max_args = -1, .own_errors = 1, .given = &given};
    int rc = cli_parse_opts(&sp, argc, argv);
    if (rc != CLI_CONTINUE)
        return rc;
    for (int i = 0; opts[i].kind != CLI_HELP; i++) {
        snprintf(word, sizeof word, " %s ", opts[i].name);
        if ((given >> i & 1) && !strstr(among, word)) {
            fprintf(stderr, "%s: option --%s does not apply here\n\n%s", cmd, opts[i].name, help);
            return SS_EXIT_BADINPUT;
        }
    }
    if (!o->gpu) {
        fprintf(stderr, "sharesim mig %s: --gpu is required (e.g. --gpu A100-40GB)\n\n%s", sub,
                help);
        return SS_EXIT_BADINPUT;
    }
    int npos = argc - optind;
    if (want_arg && npos != 1) {
        fprintf(stderr, "sharesim mig %s: expected one %s argument, got %d\n\n%s", sub,
                want_arg == 1 ? "LAYOUT" : "REQUESTS", npos, help);
        return SS_EXIT_BADINPUT;
    }
    if (!want_arg && npos) {
        fprintf(stderr, "sharesim mig %s: unexpected argument \"%s\"\n\n%s", sub, argv[optind],
                help);
        return SS_EXIT_BADINPUT;
    }
    o->arg = want_arg ? argv[optind] : NULL;
    /* --gpu: a profile given by its path */
    return op_files(cmd, OP_LIST("--gpu", o->gpu, want_arg == 1 ? "LAYOUT" : "REQUESTS", o->arg),
                    OP_LIST("--json", o->json, "--csv", o->csv))
               ? SS_EXIT_BADINPUT
               : CLI_CONTINUE;
}

static int load_gpu(const char *sub, const char *name, struct gpu_profile *g)
{
    char err[SS_ERRLEN];
    if (cal_load(name, g, err, sizeof err)) {
        fprintf(stderr, "sharesim mig %s: %s\n", sub, err);
        return -1;
    }
    if (g->n_mig == 0) {
        fprintf(stderr, "sharesim mig %s: %s has no MIG profiles (%s)\n", sub, g->name, g->path);
        return -1;
    }
    return 0;
}

/* True when the text is to be printed: no result goes to stdout instead. */
static int want_text(const struct mig_opts *o)
{
    return !cli_is_stdout(o->json) && !cli_is_stdout(o->csv);
}

/* ---- profiles ---------------------------------------------------------- */

static const char *help_profiles =
    "usage: sharesim mig profiles --gpu GPU [--json FILE|-] [--csv FILE|-]\n\n"
    "Lists the GPU's MIG profiles: compute and memory slices, SM count, the\n"
    "instance's share of the whole GPU's SMs (SMs / total SMs without MIG) and of its\n"
    "memory slices (and bandwidth), memory, max instances and legal start slices.\n"
    "  --json FILE  {\"gpu\", \"total_sms\", …, \"profiles\": […]}; - for stdout\n"
    "  --csv FILE   one row per profile; - for stdout\n"
    "exit: 0 ok, 2 bad input (an unknown GPU, one without MIG)\n";

static int sub_profiles(int argc, char **argv)
{
    struct mig_opts o;
    int rc = parse_opts("profiles", help_profiles, "gpu json csv", 0, argc, argv, &o);
    if (rc != CLI_CONTINUE)
        return rc;
    struct gpu_profile g;
    if (load_gpu("profiles", o.gpu, &g))
        return SS_EXIT_BADINPUT;
    if (o.json || o.csv) {
        cJSON *root = mig_profiles_json(&g);
        if (cli_write_results("sharesim mig profiles", o.json, o.csv, root, "profiles"))
            return SS_EXIT_BADINPUT;
        if (!want_text(&o))
            return SS_EXIT_OK;
    }
    mig_print_profiles(stdout, &g);
    return SS_EXIT_OK;
}

/* ---- layouts ----------------------------------------------------------- */

static const char *help_layouts =
    "usage: sharesim mig layouts --gpu GPU [--maximal] [--json FILE|-] [--csv FILE|-]\n\n"
    "Every distinct non-empty set of GPU instances (a multiset of profiles, positions\n"
    "ignored) that can exist at once on the GPU, +me profiles included, largest\n"
    "profile first. \"maximal\": no instance of any profile can be added.\n"
    "  --maximal  list only the maximal layouts\n"
    "  --json FILE  [{\"profiles\": [\"3g.20gb\", …], \"maximal\": true}, …]; - for stdout\n"
    "  --csv FILE   one row per layout (profiles joined with ;); - for stdout\n"
    "exit: 0 ok, 2 bad input\n";

static int sub_layouts(int argc, char **argv)
{
    struct mig_opts o;
    int rc = parse_opts("layouts", help_layouts, "gpu json csv maximal", 0, argc, argv, &o);
    if (rc != CLI_CONTINUE)
        return rc;
    struct gpu_profile g;
    if (load_gpu("layouts", o.gpu, &g))
        return SS_EXIT_BADINPUT;
    struct mig_set *sets;
    int n = mig_layouts(&g, &sets);
    if (o.json || o.csv) {
        cJSON *arr = mig_layouts_json(&g, sets, n, o.maximal);
        rc = cli_write_results("sharesim mig layouts", o.json, o.csv, arr, NULL) ? SS_EXIT_BADINPUT
                                                                                 : SS_EXIT_OK;
    }
    if (want_text(&o))
        mig_print_layouts(stdout, &g, sets, n, o.maximal);
    free(sets);
    return rc == CLI_CONTINUE ? SS_EXIT_OK : rc;
}

/* ---- check ------------------------------------------------------------- */

static const char *help_check =
    "usage: sharesim mig check --gpu GPU [--demand D] [--json FILE|-] [--csv FILE|-] LAYOUT\n\n"
    "LAYOUT: comma list of profiles, e.g. 3g.20gb,2g.10gb,1g.5gb,1g.5gb or 3g.20gb,4x1g.5gb;\n"
    "PROFILE@S pins an instance to start at memory slice S (1g.5gb@1,1g.5gb@5).\n"
    "Legal: exit 0 and the placement (start memory slice of each instance; unpinned\n"
    "ones placed to leave the free slices as usable as possible), each instance's\n"
    "SM and memory share. Illegal: exit 1 and every rule the layout breaks (exit 2 is\n"
    "for bad input: an unknown GPU or profile, a malformed list).\n"
    "  --demand D  also report fragmentation for the demand mix D\n"
    "              (PROFILE:WEIGHT,…; stranded and FGD, see docs/mig.md)\n"
    "  --json FILE {\"legal\": …, \"instances\": […], \"fragmentation\": {…}} or\n"
    "              {\"legal\": false, \"reason\": …}; - for stdout\n"
    "  --csv FILE  one row per instance (none when illegal); - for stdout\n"
    "exit: 0 legal, 1 illegal, 2 bad input\n";

static int sub_check(int argc, char **argv)
{
    struct mig_opts o;
    int rc = parse_opts("check", help_check, "gpu json csv demand", 1, argc, argv, &o);
    if (rc != CLI_CONTINUE)
        return rc;
    struct gpu_profile g;
    if (load_gpu("check", o.gpu, &g))
        return SS_EXIT_BADINPUT;
    char err[SS_ERRLEN];
    int *prof, *pin, n;
    struct mig_demand d;
    if (mig_parse_list(&g, o.arg, &prof, &pin, &n, err, sizeof err) ||
        (o.demand && mig_parse_demand(&g, o.demand, &d, err, sizeof err))) {
        free(prof);
        free(pin);
        fprintf(stderr, "sharesim mig check: %s\n", err);
        return SS_EXIT_BADINPUT;
    }
    struct mig_layout l;
    if (mig_place(&g, prof, pin, n, o.demand ? &d : NULL, &l, err, sizeof err)) {
        rc = SS_EXIT_INFEASIBLE; /* well-formed, but the answer is no */
        if (o.json || o.csv) {
            cJSON *root = cJSON_CreateObject();
            cJSON_AddStringToObject(root, "gpu", g.name);
            cJSON_AddStringToObject(root, "layout", o.arg);
            cJSON_AddBoolToObject(root, "legal", 0);
            cJSON_AddStringToObject(root, "reason", err);
            cJSON_AddArrayToObject(root, "instances");
            if (cli_write_results("sharesim mig check", o.json, o.csv, root, "instances"))
                rc = SS_EXIT_BADINPUT;
        }
        fprintf(stderr, "sharesim mig check: %s is not a legal layout on %s: %s\n", o.arg, g.name,
                err);
        free(prof);
        free(pin);
        return rc;
    }
    struct mig_frag f;
    if (o.demand)
        mig_frag(&g, &l, &d, &f);
    rc = SS_EXIT_OK;
    const struct mig_demand *dm = o.demand ? &d : NULL;
    if ((o.json || o.csv) && cli_write_results("sharesim mig check", o.json, o.csv,
                                               mig_layout_json(&g, o.arg, &l, dm, &f), "instances"))
        rc = SS_EXIT_BADINPUT;
    if (want_text(&o))
        mig_print_layout(stdout, &g, o.arg, &l, dm, &f);
    free(prof);
    free(pin);
    return rc;
}

/* ---- pack -------------------------------------------------------------- */

static const char *help_pack =
    "usage: sharesim mig pack --gpu GPU [--gpus N] [--policy P] [--demand D] [--order O]\n"
    "                         [--json FILE|-] [--csv FILE|-] REQUESTS\n\n"
    "Packs MIG instance requests (comma list, NxPROFILE repeats: 2x3g.20gb,8x1g.5gb)\n"
    "onto as few GPUs as the policy manages; deterministic.\n"
    "  --policy best-fit   (default) the GPU left with the least free capacity\n"
    "           first-fit  the lowest-numbered GPU that can take it\n"
    "           fgd        the GPU whose fragmentation (FGD, Weng et al. ATC '23) grows\n"
    "                      least; the smallest cluster on which it places every request\n"
    "  --gpus N    at most N GPUs; requests that do not fit are listed (exit 1)\n"
    "  --order largest  (default) largest requests first (memory, then compute slices)\n"
    "          arrival  as listed, like an online scheduler\n"
    "  --demand D  demand mix for fragmentation and fgd (PROFILE:WEIGHT,…);\n"
    "              default: the requests' own mix\n"
    "  --json FILE machine-readable result; - for stdout\n"
    "  --csv FILE  one row per request: gpu (empty when unplaced), profile, start\n"
    "Prints each GPU's layout (profile@start memory slice), GPUs used, the lower bound\n"
    "no packing can beat, unplaced requests, and stranded capacity and FGD.\n"
    "exit: 0 every request placed, 1 some do not fit in --gpus N, 2 bad input\n";

static int sub_pack(int argc, char **argv)
{
    struct mig_opts o;
    int rc =
        parse_opts("pack", help_pack, "gpu json csv demand policy gpus order", 2, argc, argv, &o);
    if (rc != CLI_CONTINUE)
        return rc;
    struct gpu_profile g;
    if (load_gpu("pack", o.gpu, &g))
        return SS_EXIT_BADINPUT;
    char err[SS_ERRLEN];
    enum mig_pack_policy pol = MIG_PACK_BEST_FIT;
    if (o.policy && mig_pack_policy_parse(o.policy, &pol, err, sizeof err)) {
        fprintf(stderr, "sharesim mig pack: %s\n", err);
        return SS_EXIT_BADINPUT;
    }
    int *req, n;
    if (mig_parse_list(&g, o.arg, &req, NULL, &n, err, sizeof err)) {
        fprintf(stderr, "sharesim mig pack: %s\n", err);
        return SS_EXIT_BADINPUT;
    }
    struct mig_demand d;
    if (o.demand) {
        if (mig_parse_demand(&g, o.demand, &d, err, sizeof err)) {
            free(req);
            fprintf(stderr, "sharesim mig pack: %s\n", err);
            return SS_EXIT_BADINPUT;
        }
    } else {
        mig_demand_from_list(&g, req, n, &d);
    }
    struct mig_pack r;
    struct mig_pack_opts po = {
        .policy = pol, .max_gpus = o.gpus, .arrival_order = o.arrival, .demand = &d};
    mig_pack(&g, req, n, &po, &r);
    if (want_text(&o))
        mig_print_pack(stdout, &g, req, &r, &po);
    rc = r.n_unplaced ? SS_EXIT_INFEASIBLE : SS_EXIT_OK;
    if (o.csv && cli_write_csv_rows("sharesim mig pack", o.csv, mig_pack_rows(&g, req, &r), NULL))
        rc = SS_EXIT_BADINPUT;
    if (o.json && cli_write_json("sharesim mig pack", o.json, mig_pack_json(&g, req, &r, &po)))
        rc = SS_EXIT_BADINPUT;
    if (r.n_unplaced)
        fprintf(stderr, "sharesim mig pack: %d of %d requests do not fit on %d GPU%s\n",
                r.n_unplaced, n, r.cluster_gpus, r.cluster_gpus > 1 ? "s" : "");
    mig_pack_free(&r);
    free(req);
    return rc;
}

static const struct cli_command subcommands[] = {
    {"profiles", "the GPU's MIG profiles: slices, SMs, shares, legal starts", sub_profiles, NULL},
    {"layouts", "every legal set of instances (positions ignored); --maximal: nothing more fits",
     sub_layouts, NULL},
    {"check", "is LAYOUT legal? exit 0 and the placement, or exit 1 and the rule it breaks",
     sub_check, NULL},
    {"pack", "pack instance REQUESTS onto few GPUs (best-fit, first-fit or fgd)", sub_pack, NULL},
    {NULL, NULL, NULL, NULL},
};

const struct cli_group cmd_mig = {
    NULL,
    subcommands,
    "Every subcommand takes --gpu GPU: a name from kernels/profiles or a path.\n"
    "LAYOUT, REQUESTS: comma list of profiles, NxPROFILE repeats one (3g.20gb,4x1g.5gb).\n"
    "D (--demand): demand mix for fragmentation, PROFILE:WEIGHT,… (1g.5gb:4,3g.20gb:1); pack\n"
    "defaults to the requests' own mix.\n",
};
