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
#include "base/util.h"

#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text layout (base/textcol.h) ---- */

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

/* ---- show ---- */

#define SHOW_VALUE_MAX 16

static void show_header(const cJSON *doc, const char *path, int width)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(doc, "name");
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(doc, "device");
    int measured = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "measured"));
    printf("%s  (%s)  %s\n", name->valuestring, cJSON_IsString(dev) ? dev->valuestring : "-",
           measured ? "measured profile" : "shipped profile");
    printf("file: %s\n", path);
    const char *extra[] = {"driver", "date"};
    for (size_t i = 0; i < 2; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(doc, extra[i]);
        if (cJSON_IsString(x))
            printf("%s: %s\n", extra[i], x->valuestring);
    }
    const cJSON *al = cJSON_GetObjectItemCaseSensitive(doc, "aliases");
    if (cJSON_GetArraySize(al) > 0) {
        char buf[1024] = "";
        const cJSON *a;
        cJSON_ArrayForEach(a, al)
        {
            size_t l = strlen(buf);
            if (cJSON_IsString(a))
                snprintf(buf + l, sizeof buf - l, "%s%s", l ? ", " : "", a->valuestring);
        }
        tc_print_wrapped(stdout, "aliases: ", buf, width);
    }
    const cJSON *notes = cJSON_GetObjectItemCaseSensitive(doc, "notes");
    if (cJSON_IsString(notes))
        tc_print_wrapped(stdout, "notes: ", notes->valuestring, width);
    putchar('\n');
}

/* The value column text: scalars as they are, wide values deferred below the table. */
static char *cell_value(const cJSON *v, int *deferred)
{
    char *t = prof_value_text(v);
    *deferred = 0;
    if (tc_width(t) <= SHOW_VALUE_MAX)
        return t;
    free(t);
    *deferred = 1;
    return ss_xstrdup(cJSON_IsArray(v) ? "(list below)" : "(see below)");
}

/* Column widths of the show table (the source column takes the rest of the line). */
struct cols {
    int key, value, unit, conf;
};

static void show_row(const char *key, const struct cols *w, const cJSON *vo, int width)
{
    int deferred;
    char *val = cell_value(cJSON_GetObjectItemCaseSensitive(vo, "value"), &deferred);
    const cJSON *conf = cJSON_GetObjectItemCaseSensitive(vo, "confidence");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(vo, "source");
    const cJSON *note = cJSON_GetObjectItemCaseSensitive(vo, "note");
    int fixed = w->key + w->value + w->unit + w->conf + 8;
    char **lines, **nlines = NULL;
    size_t n = tc_wrap(src->valuestring, width - fixed, &lines), nn = 0;
    if (cJSON_IsString(note)) {
        size_t len = strlen(note->valuestring) + 8;
        char *t = ss_xmalloc(len);
        snprintf(t, len, "note: %s", note->valuestring);
        nn = tc_wrap(t, width - fixed, &nlines);
        free(t);
    }
    /* The stated range (calib/vrange.h), on a line of its own after the source. */
    char range[96] = "";
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(vo, "range");
    if (cJSON_GetArraySize(r) == 2)
        snprintf(range, sizeof range, "range: %g to %g%s%s", cJSON_GetArrayItem(r, 0)->valuedouble,
                 cJSON_GetArrayItem(r, 1)->valuedouble, prof_unit(key)[0] ? " " : "",
                 prof_unit(key));
    size_t nr = range[0] ? 1 : 0;
    for (size_t i = 0; i < n + nr + nn || i == 0; i++) {
        if (i == 0) {
            tc_pad(stdout, key, w->key + 2);
            tc_pad(stdout, val, w->value + 2);
            tc_pad(stdout, prof_unit(key), w->unit + 2);
            tc_pad(stdout, cJSON_IsString(conf) ? conf->valuestring : "", w->conf + 2);
        } else {
            printf("%*s", fixed, "");
        }
        printf("%s\n", i < n             ? lines[i]
                       : i < n + nr      ? range
                       : i < n + nr + nn ? nlines[i - n - nr]
                                         : "");
    }
    tc_free_lines(lines, n);
    if (nlines)
        tc_free_lines(nlines, nn);
    free(val);
}

static void show_mig(const cJSON *arr)
{
    printf("\nMIG profiles (mig_profiles):\n");
    printf("%-14s %-8s %5s %10s %4s  %s\n", "name", "slices", "SMs", "memory GB", "max",
           "starts (memory slice)");
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        char sl[16], starts[64] = "";
        snprintf(sl, sizeof sl, "%d/%d",
                 cJSON_GetObjectItemCaseSensitive(e, "compute_slices")->valueint,
                 cJSON_GetObjectItemCaseSensitive(e, "memory_slices")->valueint);
        const cJSON *s;
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(e, "starts"))
        {
            size_t l = strlen(starts);
            snprintf(starts + l, sizeof starts - l, "%s%d", l ? "," : "", s->valueint);
        }
        printf("%-14s %-8s %5d %10g %4d  %s (size %d)\n",
               cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring, sl,
               cJSON_GetObjectItemCaseSensitive(e, "sm_count")->valueint,
               cJSON_GetObjectItemCaseSensitive(e, "memory_gb")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(e, "max_instances")->valueint, starts,
               cJSON_GetObjectItemCaseSensitive(e, "size")->valueint);
    }
}

static void show_table(const cJSON *doc, const char *path, int width)
{
    show_header(doc, path, width);
    struct cols w = {3, 5, 4, 10};
    const cJSON *it;
    cJSON_ArrayForEach(it, doc)
    {
        if (prof_is_meta(it->string))
            continue;
        int deferred, cw;
        char *v = cell_value(cJSON_GetObjectItemCaseSensitive(it, "value"), &deferred);
        const cJSON *conf = cJSON_GetObjectItemCaseSensitive(it, "confidence");
        if ((cw = tc_width(it->string)) > w.key)
            w.key = cw;
        if ((cw = tc_width(v)) > w.value)
            w.value = cw;
        if ((cw = tc_width(prof_unit(it->string))) > w.unit)
            w.unit = cw;
        if (cJSON_IsString(conf) && (cw = tc_width(conf->valuestring)) > w.conf)
            w.conf = cw;
        free(v);
    }
    tc_pad(stdout, "key", w.key + 2);
    tc_pad(stdout, "value", w.value + 2);
    tc_pad(stdout, "unit", w.unit + 2);
    tc_pad(stdout, "confidence", w.conf + 2);
    printf("source\n");
    cJSON_ArrayForEach(it, doc)
    {
        if (!prof_is_meta(it->string))
            show_row(it->string, &w, it, width);
    }
    cJSON_ArrayForEach(it, doc)
    {
        if (prof_is_meta(it->string))
            continue;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "value");
        int deferred;
        free(cell_value(v, &deferred));
        if (!deferred)
            continue;
        if (strcmp(it->string, "mig_profiles") == 0 && cJSON_IsArray(v)) {
            show_mig(v);
            continue;
        }
        char *t = prof_value_text(v);
        char label[160];
        snprintf(label, sizeof label, "%s: ", it->string);
        putchar('\n');
        tc_print_wrapped(stdout, label, t, width);
        free(t);
    }
}

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
    struct op_plan op;
    op_init(&op, "sharesim profile show");
    op_input(&op, "GPU", path);
    op_output(&op, "--json", json);
    if (op_done(&op)) {
        cJSON_Delete(doc);
        return SS_EXIT_BADINPUT;
    }
    if (!cli_is_stdout(json))
        show_table(doc, path, term_width(width));
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
    struct op_plan op;
    op_init(&op, "sharesim profile list");
    op_output(&op, "--json", json);
    op_output(&op, "--csv", csv);
    if (op_done(&op))
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
    int rc = SS_EXIT_OK;
    if (csv && cli_write_csv_rows("sharesim profile list", csv, cJSON_Duplicate(arr, 1), NULL))
        rc = SS_EXIT_BADINPUT;
    if (json && cli_write_json("sharesim profile list", json, arr))
        rc = SS_EXIT_BADINPUT;
    else if (!json)
        cJSON_Delete(arr);
    return rc;
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

static void diff_table(const struct prof_change *ch, size_t n, int width)
{
    int pw = 3;
    for (size_t i = 0; i < n; i++)
        if (tc_width(ch[i].path) > pw)
            pw = tc_width(ch[i].path);
    if (pw > 44)
        pw = 44;
    int cw = (width - pw - 2 - 2 - 2 - 9) / 2;
    if (cw < 10)
        cw = 10;
    printf("%-*s  %-*s  %-*s  %s\n", pw, "key", cw, "A", cw, "B", "change");
    for (size_t i = 0; i < n; i++) {
        char *path = tc_clip(ch[i].path, pw);
        char *a = prof_value_text(ch[i].a), *b = prof_value_text(ch[i].b);
        char *ac = tc_clip(ch[i].a ? a : "(absent)", cw),
             *bc = tc_clip(ch[i].b ? b : "(absent)", cw);
        char rel[32] = "";
        double r;
        if (prof_rel_change(&ch[i], &r))
            snprintf(rel, sizeof rel, "%+.1f%%", 100.0 * r);
        else if (!ch[i].a)
            snprintf(rel, sizeof rel, "added");
        else if (!ch[i].b)
            snprintf(rel, sizeof rel, "removed");
        tc_pad(stdout, path, pw + 2);
        tc_pad(stdout, ac, cw + 2);
        tc_pad(stdout, bc, cw + 2);
        printf("%s\n", rel);
        free(path);
        free(a);
        free(b);
        free(ac);
        free(bc);
    }
}

static cJSON *diff_json(const char *pa, const char *pb, const struct prof_change *ch, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "a", pa);
    cJSON_AddStringToObject(o, "b", pb);
    cJSON *arr = cJSON_AddArrayToObject(o, "changes");
    for (size_t i = 0; i < n; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "key", ch[i].path);
        cJSON_AddItemToObject(c, "a", ch[i].a ? cJSON_Duplicate(ch[i].a, 1) : cJSON_CreateNull());
        cJSON_AddItemToObject(c, "b", ch[i].b ? cJSON_Duplicate(ch[i].b, 1) : cJSON_CreateNull());
        double r;
        if (prof_rel_change(&ch[i], &r))
            cJSON_AddNumberToObject(c, "relative_change", r);
        else
            cJSON_AddNullToObject(c, "relative_change");
        cJSON_AddItemToArray(arr, c);
    }
    return o;
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
    struct op_plan op;
    op_init(&op, "sharesim profile diff");
    op_input(&op, "A", pa);
    op_input(&op, "B", pb);
    op_output(&op, "--json", json);
    op_output(&op, "--csv", csv);
    if (op_done(&op)) {
        cJSON_Delete(a);
        cJSON_Delete(b);
        return SS_EXIT_BADINPUT;
    }
    struct prof_change *ch;
    size_t n;
    prof_diff(a, b, &ch, &n);
    int rc = SS_EXIT_OK;
    if (csv) {
        /* A value that is an object or a list has no CSV field: its text stands in for it. */
        cJSON *o = diff_json(pa, pb, ch, n), *e;
        cJSON *rows = cJSON_DetachItemFromObject(o, "changes");
        cJSON_ArrayForEach(e, rows)
        {
            for (int k = 0; k < 2; k++) {
                const char *key = k ? "b" : "a";
                cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);
                if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
                    char *t = cJSON_PrintUnformatted(v);
                    cJSON_ReplaceItemInObjectCaseSensitive(e, key, cJSON_CreateString(t));
                    cJSON_free(t);
                }
            }
        }
        cJSON_Delete(o);
        if (cli_write_csv_rows("sharesim profile diff", csv, rows, NULL))
            rc = SS_EXIT_BADINPUT;
    }
    if (json && cli_write_json("sharesim profile diff", json, diff_json(pa, pb, ch, n)))
        rc = SS_EXIT_BADINPUT;
    if (!cli_is_stdout(json) && !cli_is_stdout(csv)) {
        printf("A: %s\nB: %s\n\n", pa, pb);
        if (n == 0)
            printf("no differences\n");
        else
            diff_table(ch, n, term_width(width));
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

/* msg with every mention of the temporary file replaced by the name the user gave: by the
 * time the message is read the temporary is gone. */
static void name_user_file(char *msg, size_t n, const char *tmp, const char *out)
{
    char buf[SS_ERRLEN];
    size_t used = 0, tlen = strlen(tmp);
    for (const char *s = msg; *s && used + 1 < sizeof buf;) {
        if (strncmp(s, tmp, tlen) == 0) {
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s", out);
            s += tlen;
        } else {
            buf[used++] = *s++;
        }
    }
    buf[used < sizeof buf ? used : sizeof buf - 1] = '\0';
    snprintf(msg, n, "%s", buf);
}

static int write_merged(cJSON *doc, const char *out, char *err, size_t errlen)
{
    struct ss_out o;
    if (ss_out_open(&o, out, err, errlen))
        return -1;
    char *s = cJSON_Print(doc);
    fprintf(o.fp, "%s\n", s);
    cJSON_free(s);
    if (o.tmp) { /* not stdout, nor a device written in place */
        struct gpu_profile p;
        char why[SS_ERRLEN];
        fflush(o.fp);
        if (cal_load_file(o.tmp, &p, why, sizeof why)) {
            name_user_file(why, sizeof why, o.tmp, out);
            ss_out_abort(&o);
            return ss_errf(err, errlen, "the merged profile does not load: %s", why);
        }
    }
    return ss_out_commit(&o, err, errlen);
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
        write_merged(merged, out, err, sizeof err))
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
