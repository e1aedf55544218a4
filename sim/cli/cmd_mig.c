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

enum {
    OPT_GPU = 'g',
    OPT_JSON = 'j',
    OPT_HELP = 'h',
    OPT_DEMAND = 1000,
    OPT_POLICY,
    OPT_GPUS,
    OPT_MAXIMAL,
    OPT_ORDER,
    OPT_CSV
};

/* Parses argv for subcommand `sub`; `allowed` lists the long options it takes.
 * Returns CLI_CONTINUE to go on, else the exit code (SS_EXIT_OK after --help). */
static int parse_opts(const char *sub, const char *help, const char *allowed, int want_arg,
                      int argc, char **argv, struct mig_opts *o)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, OPT_GPU},
        {"json", required_argument, NULL, OPT_JSON},
        {"csv", required_argument, NULL, OPT_CSV},
        {"help", no_argument, NULL, OPT_HELP},
        {"demand", required_argument, NULL, OPT_DEMAND},
        {"policy", required_argument, NULL, OPT_POLICY},
        {"gpus", required_argument, NULL, OPT_GPUS},
        {"maximal", no_argument, NULL, OPT_MAXIMAL},
        {"order", required_argument, NULL, OPT_ORDER},
        {NULL, 0, NULL, 0},
    };
    char cmd[64];
    snprintf(cmd, sizeof cmd, "sharesim mig %s", sub);
    memset(o, 0, sizeof *o);
    optind = 1;
    opterr = 0;
    int c, li;
    while ((c = getopt_long(argc, argv, ":g:j:h", longopts, &li)) != -1) {
        const char *name = NULL;
        for (const struct option *lo = longopts; lo->name; lo++)
            if (lo->val == c)
                name = lo->name;
        if (c == '?' || c == ':') {
            if (c == ':')
                fprintf(stderr, "sharesim mig %s: option %s needs a value\n\n%s", sub,
                        argv[optind - 1], help);
            else
                fprintf(stderr, "sharesim mig %s: unknown option %s\n\n%s", sub, argv[optind - 1],
                        help);
            return SS_EXIT_BADINPUT;
        }
        char word[32], among[128];
        snprintf(word, sizeof word, " %s ", name ? name : "");
        snprintf(among, sizeof among, " %s ", allowed);
        if (name && c != OPT_HELP && !strstr(among, word)) {
            fprintf(stderr, "sharesim mig %s: option --%s does not apply here\n\n%s", sub, name,
                    help);
            return SS_EXIT_BADINPUT;
        }
        switch (c) {
        case OPT_GPU:
            o->gpu = optarg;
            break;
        case OPT_JSON:
            o->json = optarg;
            break;
        case OPT_CSV:
            o->csv = optarg;
            break;
        case OPT_HELP:
            fputs(help, stdout);
            return SS_EXIT_OK;
        case OPT_DEMAND:
            o->demand = optarg;
            break;
        case OPT_POLICY:
            o->policy = optarg;
            break;
        case OPT_MAXIMAL:
            o->maximal = 1;
            break;
        case OPT_ORDER:
            if (strcmp(optarg, "largest") && strcmp(optarg, "arrival")) {
                cli_opt_error(cmd, "--order", optarg, "largest or arrival");
                return SS_EXIT_BADINPUT;
            }
            o->arrival = strcmp(optarg, "arrival") == 0;
            break;
        case OPT_GPUS: {
            long v;
            if (cli_opt_long(cmd, "--gpus", optarg, 1, 100000, &v))
                return SS_EXIT_BADINPUT;
            o->gpus = (int)v;
            break;
        }
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
    struct op_plan op;
    op_init(&op, cmd);
    op_input(&op, "--gpu", o->gpu); /* a profile given by its path */
    op_input(&op, want_arg == 1 ? "LAYOUT" : "REQUESTS", o->arg);
    op_output(&op, "--json", o->json);
    op_output(&op, "--csv", o->csv);
    return op_done(&op) ? SS_EXIT_BADINPUT : CLI_CONTINUE;
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

/* Writes --json (root) and --csv (root's array `rows`, or root itself when rows is NULL);
 * deletes root. 0, or -1 with the message printed. */
static int write_outputs(const char *sub, const struct mig_opts *o, cJSON *root, const char *rows)
{
    char cmd[64];
    int rc = 0;
    snprintf(cmd, sizeof cmd, "sharesim mig %s", sub);
    if (o->csv) {
        cJSON *r = rows ? cJSON_GetObjectItemCaseSensitive(root, rows) : root;
        if (cli_write_csv_rows(cmd, o->csv, cJSON_Duplicate(r, 1), NULL))
            rc = -1;
    }
    if (o->json && cli_write_json(cmd, o->json, root))
        return -1;
    if (!o->json)
        cJSON_Delete(root);
    return rc;
}

static void format_range(int start, int size, char *buf, size_t len)
{
    if (size == 1)
        snprintf(buf, len, "%d", start);
    else
        snprintf(buf, len, "%d-%d", start, start + size - 1);
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
        cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
        cJSON_AddStringToObject(root, "gpu", g.name);
        cJSON_AddNumberToObject(root, "total_sms", g.total_sms);
        cJSON_AddNumberToObject(root, "compute_slices", g.mig_compute_slices);
        cJSON_AddNumberToObject(root, "memory_slices", g.mig_memory_slices);
        for (int p = 0; p < g.n_mig; p++) {
            const struct mig_profile *m = &g.mig[p];
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "name", m->name);
            cJSON_AddNumberToObject(e, "compute_slices", m->compute_slices);
            cJSON_AddNumberToObject(e, "memory_slices", m->memory_slices);
            cJSON_AddNumberToObject(e, "sm_count", m->sm_count);
            cJSON_AddNumberToObject(e, "compute_share", mig_compute_share(&g, p));
            cJSON_AddNumberToObject(e, "memory_share", mig_memory_share(&g, p));
            cJSON_AddNumberToObject(e, "memory_gb", m->memory_gb);
            cJSON_AddNumberToObject(e, "max_instances", m->max_instances);
            cJSON_AddItemToObject(e, "starts", cJSON_CreateIntArray(m->starts, m->n_starts));
            cJSON_AddNumberToObject(e, "size", m->size);
            cJSON_AddItemToArray(arr, e);
        }
        cJSON_AddItemToObject(root, "profiles", arr);
        if (write_outputs("profiles", &o, root, "profiles"))
            return SS_EXIT_BADINPUT;
        if (!want_text(&o))
            return SS_EXIT_OK;
    }
    printf("%s: %d SMs without MIG, %d compute slices, %d memory slices\n", g.name, g.total_sms,
           g.mig_compute_slices, g.mig_memory_slices);
    printf("%-12s %7s %6s %4s %13s %12s %9s %4s  %s\n", "profile", "compute", "memory", "SMs",
           "compute share", "memory share", "memory GB", "max", "starts (memory slice)");
    for (int p = 0; p < g.n_mig; p++) {
        const struct mig_profile *m = &g.mig[p];
        char starts[64] = "";
        size_t k = 0;
        for (int s = 0; s < m->n_starts; s++)
            k +=
                (size_t)snprintf(starts + k, sizeof starts - k, "%s%d", s ? "," : "", m->starts[s]);
        printf("%-12s %7d %6d %4d %13.4f %12.4f %9.2f %4d  %s\n", m->name, m->compute_slices,
               m->memory_slices, m->sm_count, mig_compute_share(&g, p), mig_memory_share(&g, p),
               m->memory_gb, m->max_instances, starts);
    }
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
    int n = mig_layouts(&g, &sets), n_max = 0;
    for (int i = 0; i < n; i++)
        n_max += sets[i].maximal;
    if (o.json || o.csv) {
        cJSON *arr = cJSON_CreateArray();
        for (int i = 0; i < n; i++) {
            if (o.maximal && !sets[i].maximal)
                continue;
            cJSON *e = cJSON_CreateObject(), *names = cJSON_CreateArray();
            char buf[256];
            mig_set_format(&g, &sets[i], buf, sizeof buf);
            for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","))
                cJSON_AddItemToArray(names, cJSON_CreateString(t));
            cJSON_AddItemToObject(e, "profiles", names);
            cJSON_AddBoolToObject(e, "maximal", sets[i].maximal);
            cJSON_AddItemToArray(arr, e);
        }
        rc = write_outputs("layouts", &o, arr, NULL) ? SS_EXIT_BADINPUT : SS_EXIT_OK;
    }
    if (want_text(&o)) {
        printf("%-44s %7s %6s  %s\n", "layout", "compute", "memory", "maximal");
        for (int i = 0; i < n; i++) {
            if (o.maximal && !sets[i].maximal)
                continue;
            char buf[256];
            mig_set_format(&g, &sets[i], buf, sizeof buf);
            printf("%-44s %5d/%d %4d/%d  %s\n", buf, sets[i].compute_slices, g.mig_compute_slices,
                   sets[i].memory_slices, g.mig_memory_slices, sets[i].maximal ? "yes" : "no");
        }
        printf("%s: %d legal layouts, %d maximal\n", g.name, n, n_max);
    }
    free(sets);
    return rc == CLI_CONTINUE ? SS_EXIT_OK : rc;
}

/* ---- fragmentation output ---------------------------------------------- */

static cJSON *frag_json(const struct mig_frag *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "free_compute_slices", f->free_compute);
    cJSON_AddNumberToObject(o, "free_memory_slices", f->free_memory);
    cJSON_AddNumberToObject(o, "stranded_compute_slices", f->stranded_compute);
    cJSON_AddNumberToObject(o, "stranded_memory_slices", f->stranded_memory);
    cJSON_AddNumberToObject(o, "stranded_compute", f->stranded_compute_frac);
    cJSON_AddNumberToObject(o, "stranded_memory", f->stranded_memory_frac);
    cJSON_AddNumberToObject(o, "fgd_compute_slices", f->fgd_compute);
    cJSON_AddNumberToObject(o, "fgd_memory_slices", f->fgd_memory);
    cJSON_AddNumberToObject(o, "fgd_compute", f->fgd_compute_frac);
    cJSON_AddNumberToObject(o, "fgd_memory", f->fgd_memory_frac);
    cJSON_AddNumberToObject(o, "fgd", f->fgd);
    return o;
}

static cJSON *demand_json(const struct gpu_profile *g, const struct mig_demand *d)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < d->n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "profile", g->mig[d->prof[i]].name);
        cJSON_AddNumberToObject(e, "p", d->p[i]);
        cJSON_AddItemToArray(arr, e);
    }
    return arr;
}

static void print_demand(const struct gpu_profile *g, const struct mig_demand *d)
{
    printf("demand:");
    for (int i = 0; i < d->n; i++)
        printf("%s %s %.3f", i ? "," : "", g->mig[d->prof[i]].name, d->p[i]);
    printf("\n");
}

static void print_frag(const struct gpu_profile *g, const struct mig_frag *f, int gpus)
{
    int c = gpus * g->mig_compute_slices, m = gpus * g->mig_memory_slices;
    printf("free:     compute %d/%d, memory %d/%d slices\n", f->free_compute, c, f->free_memory, m);
    printf("stranded: compute %d (%.1f%%), memory %d (%.1f%%) slices\n", f->stranded_compute,
           100 * f->stranded_compute_frac, f->stranded_memory, 100 * f->stranded_memory_frac);
    printf("FGD:      compute %.3f (%.1f%%), memory %.3f (%.1f%%) slices expected unusable; "
           "score %.4f\n",
           f->fgd_compute, 100 * f->fgd_compute_frac, f->fgd_memory, 100 * f->fgd_memory_frac,
           f->fgd);
}

/* "1 1 2 3 0 0 0 0": the instance on each memory slice, "." when free. */
static void print_slice_map(const struct gpu_profile *g, const struct mig_layout *l)
{
    printf("memory slices:");
    for (int s = 0; s < g->mig_memory_slices; s++) {
        int who = -1;
        for (int i = 0; i < l->n; i++)
            if (s >= l->start[i] && s < l->start[i] + g->mig[l->prof[i]].size)
                who = i;
        if (who < 0)
            printf("  .");
        else
            printf(" %2d", who);
    }
    printf("   (instance on slice 0..%d)\n", g->mig_memory_slices - 1);
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
            if (write_outputs("check", &o, root, "instances"))
                rc = SS_EXIT_BADINPUT;
        }
        fprintf(stderr, "sharesim mig check: %s is not a legal layout on %s: %s\n", o.arg, g.name,
                err);
        free(prof);
        free(pin);
        return rc;
    }
    struct mig_set set;
    mig_set_from_list(&g, prof, n, &set);
    struct mig_frag f;
    if (o.demand)
        mig_frag(&g, &l, &d, &f);
    rc = SS_EXIT_OK;
    if (o.json || o.csv) {
        cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
        cJSON_AddStringToObject(root, "gpu", g.name);
        cJSON_AddStringToObject(root, "layout", o.arg);
        cJSON_AddBoolToObject(root, "legal", 1);
        for (int i = 0; i < l.n; i++) {
            const struct mig_profile *m = &g.mig[l.prof[i]];
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "profile", m->name);
            cJSON_AddNumberToObject(e, "start", l.start[i]);
            cJSON_AddNumberToObject(e, "memory_slices", m->size);
            cJSON_AddNumberToObject(e, "compute_slices", m->compute_slices);
            cJSON_AddNumberToObject(e, "sm_count", m->sm_count);
            cJSON_AddNumberToObject(e, "compute_share", mig_compute_share(&g, l.prof[i]));
            cJSON_AddNumberToObject(e, "memory_share", mig_memory_share(&g, l.prof[i]));
            cJSON_AddNumberToObject(e, "memory_gb", m->memory_gb);
            cJSON_AddItemToArray(arr, e);
        }
        cJSON_AddItemToObject(root, "instances", arr);
        cJSON_AddNumberToObject(root, "compute_slices_used", set.compute_slices);
        cJSON_AddNumberToObject(root, "memory_slices_used", set.memory_slices);
        if (o.demand) {
            cJSON_AddItemToObject(root, "demand", demand_json(&g, &d));
            cJSON_AddItemToObject(root, "fragmentation", frag_json(&f));
        }
        if (write_outputs("check", &o, root, "instances"))
            rc = SS_EXIT_BADINPUT;
    }
    if (want_text(&o)) {
        printf("%s is a legal layout on %s (compute %d/%d, memory %d/%d slices)\n", o.arg, g.name,
               set.compute_slices, g.mig_compute_slices, set.memory_slices, g.mig_memory_slices);
        printf("%-3s %-12s %5s %7s %7s %4s %13s %12s %9s\n", "#", "profile", "start", "slices",
               "compute", "SMs", "compute share", "memory share", "memory GB");
        for (int i = 0; i < l.n; i++) {
            const struct mig_profile *m = &g.mig[l.prof[i]];
            char range[16];
            format_range(l.start[i], m->size, range, sizeof range);
            printf("%-3d %-12s %5d %7s %7d %4d %13.4f %12.4f %9.2f\n", i, m->name, l.start[i],
                   range, m->compute_slices, m->sm_count, mig_compute_share(&g, l.prof[i]),
                   mig_memory_share(&g, l.prof[i]), m->memory_gb);
        }
        print_slice_map(&g, &l);
        if (o.demand) {
            print_demand(&g, &d);
            print_frag(&g, &f, 1);
        }
    }
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

static void print_pack(const struct gpu_profile *g, const int *req, const struct mig_pack *r,
                       const struct mig_pack_opts *po)
{
    enum mig_pack_policy pol = po->policy;
    const struct mig_demand *d = po->demand;
    struct mig_set all;
    mig_set_from_list(g, req, r->n_req, &all);
    printf("%s, policy %s, %s: %d requests (", g->name, mig_pack_policy_name(pol),
           po->arrival_order ? "in arrival order" : "largest first", r->n_req);
    for (int p = 0, first = 1; p < g->n_mig; p++)
        if (all.count[p]) {
            printf("%s%d x %s", first ? "" : ", ", all.count[p], g->mig[p].name);
            first = 0;
        }
    printf(")\n");
    print_demand(g, d);
    /* the layout column is as wide as the widest layout */
    char(*text)[256] = ss_xcalloc((size_t)(r->n_gpus ? r->n_gpus : 1), sizeof *text);
    int width = (int)strlen("layout (profile@start)");
    for (int x = 0; x < r->n_gpus; x++) {
        const struct mig_layout *l = &r->gpu[x];
        size_t k = 0;
        for (int i = 0; i < l->n; i++)
            k += (size_t)snprintf(text[x] + k, sizeof text[x] - k, "%s%s@%d", i ? " " : "",
                                  g->mig[l->prof[i]].name, l->start[i]);
        width = (int)k > width ? (int)k : width;
    }
    printf("%-4s %-*s %7s %6s %8s %7s\n", "GPU", width, "layout (profile@start)", "compute",
           "memory", "stranded", "FGD");
    for (int x = 0; x < r->n_gpus; x++) {
        const struct mig_layout *l = &r->gpu[x];
        int c = 0, m = 0;
        for (int i = 0; i < l->n; i++) {
            c += g->mig[l->prof[i]].compute_slices;
            m += g->mig[l->prof[i]].size;
        }
        char str[32];
        snprintf(str, sizeof str, "%dc/%dm", r->frag[x].stranded_compute,
                 r->frag[x].stranded_memory);
        printf("%-4d %-*s %5d/%d %4d/%d %8s %7.4f\n", x, width, text[x], c, g->mig_compute_slices,
               m, g->mig_memory_slices, str, r->frag[x].fgd);
    }
    free(text);
    printf("GPUs used: %d (lower bound %d", r->n_gpus, r->lower_bound);
    if (pol == MIG_PACK_FGD || r->cluster_gpus != r->n_gpus)
        printf(", cluster of %d", r->cluster_gpus);
    printf(")\n");
    if (r->n_unplaced) {
        int per[CAL_MAX_MIG] = {0};
        for (int i = 0; i < r->n_req; i++)
            if (r->gpu_of[i] < 0)
                per[req[i]]++;
        printf("unplaced: %d (", r->n_unplaced);
        for (int p = 0, first = 1; p < g->n_mig; p++)
            if (per[p]) {
                printf("%s%d x %s", first ? "" : ", ", per[p], g->mig[p].name);
                first = 0;
            }
        printf(")\n");
    } else {
        printf("unplaced: none\n");
    }
    if (r->n_gpus) {
        printf("over the %d used GPU%s:\n", r->n_gpus, r->n_gpus > 1 ? "s" : "");
        print_frag(g, &r->total, r->n_gpus);
    }
}

static cJSON *pack_json(const struct gpu_profile *g, const int *req, const struct mig_pack *r,
                        const struct mig_pack_opts *po)
{
    enum mig_pack_policy pol = po->policy;
    const struct mig_demand *d = po->demand;
    cJSON *root = cJSON_CreateObject(), *gpus = cJSON_CreateArray(), *un = cJSON_CreateArray();
    cJSON_AddStringToObject(root, "gpu", g->name);
    cJSON_AddStringToObject(root, "policy", mig_pack_policy_name(pol));
    cJSON_AddStringToObject(root, "order", po->arrival_order ? "arrival" : "largest");
    cJSON_AddNumberToObject(root, "requests", r->n_req);
    cJSON_AddItemToObject(root, "demand", demand_json(g, d));
    cJSON_AddNumberToObject(root, "gpus_used", r->n_gpus);
    cJSON_AddNumberToObject(root, "cluster_gpus", r->cluster_gpus);
    cJSON_AddNumberToObject(root, "lower_bound", r->lower_bound);
    for (int x = 0; x < r->n_gpus; x++) {
        const struct mig_layout *l = &r->gpu[x];
        cJSON *e = cJSON_CreateObject(), *inst = cJSON_CreateArray();
        cJSON_AddNumberToObject(e, "index", x);
        for (int s = 0; s < l->n; s++) {
            cJSON *ie = cJSON_CreateObject();
            cJSON_AddStringToObject(ie, "profile", g->mig[l->prof[s]].name);
            cJSON_AddNumberToObject(ie, "start", l->start[s]);
            for (int i = 0; i < r->n_req; i++)
                if (r->gpu_of[i] == x && r->slot_of[i] == s)
                    cJSON_AddNumberToObject(ie, "request", i);
            cJSON_AddItemToArray(inst, ie);
        }
        cJSON_AddItemToObject(e, "instances", inst);
        cJSON_AddItemToObject(e, "fragmentation", frag_json(&r->frag[x]));
        cJSON_AddItemToArray(gpus, e);
    }
    cJSON_AddItemToObject(root, "gpus", gpus);
    for (int i = 0; i < r->n_req; i++)
        if (r->gpu_of[i] < 0) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "request", i);
            cJSON_AddStringToObject(e, "profile", g->mig[req[i]].name);
            cJSON_AddItemToArray(un, e);
        }
    cJSON_AddItemToObject(root, "unplaced", un);
    cJSON_AddItemToObject(root, "fragmentation", frag_json(&r->total));
    return root;
}

/* One row per request, in request order: where pack put it (gpu and start empty when
 * unplaced). */
static cJSON *pack_rows(const struct gpu_profile *g, const int *req, const struct mig_pack *r)
{
    cJSON *rows = cJSON_CreateArray();
    for (int i = 0; i < r->n_req; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "request", i);
        cJSON_AddStringToObject(e, "profile", g->mig[req[i]].name);
        if (r->gpu_of[i] >= 0) {
            cJSON_AddNumberToObject(e, "gpu", r->gpu_of[i]);
            cJSON_AddNumberToObject(e, "start", r->gpu[r->gpu_of[i]].start[r->slot_of[i]]);
        } else {
            cJSON_AddNullToObject(e, "gpu");
            cJSON_AddNullToObject(e, "start");
        }
        cJSON_AddItemToArray(rows, e);
    }
    return rows;
}

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
        print_pack(&g, req, &r, &po);
    rc = r.n_unplaced ? SS_EXIT_INFEASIBLE : SS_EXIT_OK;
    if (o.csv && cli_write_csv_rows("sharesim mig pack", o.csv, pack_rows(&g, req, &r), NULL))
        rc = SS_EXIT_BADINPUT;
    if (o.json && cli_write_json("sharesim mig pack", o.json, pack_json(&g, req, &r, &po)))
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
