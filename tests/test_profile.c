/*
 * Tests for profile (documents, device lookup, diff, merge), `sharesim profile` and
 * scripts/calibrate: every value of every shipped profile is sourced and every low-
 * confidence value says how it was derived; show/list/diff/merge end to end; calibrate's
 * plumbing with stand-in programs that write known fragments.
 */
#include "calib/calib.h"
#include "calib/profile.h"
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static cJSON *parse_file(const char *path)
{
    char *t = tu_slurp(path);
    cJSON *d = t ? cJSON_Parse(t) : NULL;
    free(t);
    return d;
}

/* Checks one profile file value by value; returns the number of values checked. */
static int check_sourced(const char *path, int allow_measured)
{
    cJSON *doc = parse_file(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, doc)
    {
        if (prof_is_meta(it->string))
            continue;
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(it, "source");
        const cJSON *conf = cJSON_GetObjectItemCaseSensitive(it, "confidence");
        const cJSON *note = cJSON_GetObjectItemCaseSensitive(it, "note");
        int ok_src = cJSON_IsString(src) && strlen(src->valuestring) >= 5;
        int ok_conf =
            cJSON_IsString(conf) &&
            (strcmp(conf->valuestring, "high") == 0 || strcmp(conf->valuestring, "medium") == 0 ||
             strcmp(conf->valuestring, "low") == 0 ||
             (allow_measured && strcmp(conf->valuestring, "measured") == 0));
        /* An estimate must say how it was derived. */
        int low = ok_conf && strcmp(conf->valuestring, "low") == 0;
        int ok_note = !low || (cJSON_IsString(note) && strlen(note->valuestring) >= 20);
        if (!ok_src || !ok_conf || !ok_note)
            fprintf(stderr, "\n  %s: \"%s\": %s\n", path, it->string,
                    !ok_src    ? "no source"
                    : !ok_conf ? "confidence not high/medium/low"
                               : "low confidence without a note saying how it was derived");
        CU_ASSERT(ok_src && ok_conf && ok_note);
        CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItemCaseSensitive(it, "value"));
        n++;
    }
    cJSON_Delete(doc);
    return n;
}

/* Runs check_sourced on every .json in dir; returns the number of files. */
static int check_dir(const char *dir, int allow_measured)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int files = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!ss_ends_with(de->d_name, ".json"))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        CU_ASSERT(check_sourced(path, allow_measured) >= 16);
        struct gpu_profile p;
        char err[SS_ERRLEN];
        int rc = cal_load_file(path, &p, err, sizeof err);
        if (rc)
            fprintf(stderr, "\n  %s\n", err);
        CU_ASSERT_EQUAL(rc, 0);
        files++;
    }
    closedir(d);
    return files;
}

static void test_every_value_sourced(void)
{
    CU_ASSERT_EQUAL(check_dir(cal_profile_dir(), 0), 4);
    char measured[PATH_MAX];
    snprintf(measured, sizeof measured, "%s/measured", cal_profile_dir());
    check_dir(measured, 1); /* none may be committed yet; those that are must be sourced */
}

static void test_units(void)
{
    CU_ASSERT_STRING_EQUAL(prof_unit("timeslice_us"), "us");
    CU_ASSERT_STRING_EQUAL(prof_unit("switch_us_heavy"), "us");
    CU_ASSERT_STRING_EQUAL(prof_unit("vgpu_slice_ms_le8"), "ms");
    CU_ASSERT_STRING_EQUAL(prof_unit("mig_reconfig_s"), "s");
    CU_ASSERT_STRING_EQUAL(prof_unit("hbm_bw_gbps"), "GB/s");
    CU_ASSERT_STRING_EQUAL(prof_unit("hbm_bw_gbps_measured"), "GB/s");
    CU_ASSERT_STRING_EQUAL(prof_unit("memory_gb"), "GB");
    CU_ASSERT_STRING_EQUAL(prof_unit("total_sms"), "SMs");
    CU_ASSERT_STRING_EQUAL(prof_unit("gpu_hour_usd"), "USD/h");
    CU_ASSERT_STRING_EQUAL(prof_unit("rate_compute_exponent"), "");
}

static void test_find_device(void)
{
    const char *cases[][2] = {
        {"NVIDIA H100 80GB HBM3", "H100-80GB"}, {"NVIDIA A100-SXM4-80GB", "A100-80GB"},
        {"NVIDIA A100-SXM4-40GB", "A100-40GB"}, {"NVIDIA A100-PCIE-40GB", "A100-40GB"},
        {"nvidia h200", "H200-141GB"},          {"H100-80GB", "H100-80GB"},
    };
    char name[64], err[SS_ERRLEN];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CU_ASSERT_EQUAL(prof_find_device(cases[i][0], name, sizeof name, err, sizeof err), 0);
        CU_ASSERT_STRING_EQUAL(name, cases[i][1]);
    }
    CU_ASSERT_EQUAL(prof_find_device("Tesla T4", name, sizeof name, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no shipped profile for device \"Tesla T4\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"NVIDIA H100 80GB HBM3\""));
}

static void test_diff_paths(void)
{
    cJSON *a = cJSON_Parse(
        "{\"schema\":\"sharesim-profile/1\",\"name\":\"X\",\"measured\":false,"
        "\"t_us\":{\"value\":1024,\"source\":\"s\",\"confidence\":\"high\"},"
        "\"m\":{\"value\":[{\"name\":\"1g\",\"sm\":14},{\"name\":\"2g\",\"sm\":28}],"
        "\"source\":\"s\",\"confidence\":\"high\"},"
        "\"gone\":{\"value\":1,\"source\":\"s\",\"confidence\":\"low\",\"note\":\"n\"}}");
    cJSON *b = cJSON_Parse(
        "{\"schema\":\"sharesim-profile/1\",\"name\":\"X\",\"measured\":true,"
        "\"t_us\":{\"value\":768,\"source\":\"tslice\",\"confidence\":\"measured\"},"
        "\"m\":{\"value\":[{\"name\":\"2g\",\"sm\":28},{\"name\":\"1g\",\"sm\":16}],"
        "\"source\":\"s\",\"confidence\":\"high\"},"
        "\"c\":{\"value\":{\"matrix\":[[1,2]]},\"source\":\"c\",\"confidence\":\"measured\"}}");
    struct prof_change *ch;
    size_t n;
    prof_diff(a, b, &ch, &n);
    const char *want[] = {"measured", "t_us", "t_us (confidence)", "t_us (source)", "m[1g].sm",
                          "gone",     "c"};
    CU_ASSERT_EQUAL_FATAL(n, 7);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_STRING_EQUAL(ch[i].path, want[i]);
    double rel;
    CU_ASSERT(prof_rel_change(&ch[1], &rel));
    CU_ASSERT_DOUBLE_EQUAL(rel, -0.25, 1e-15);
    CU_ASSERT(prof_rel_change(&ch[4], &rel));
    CU_ASSERT_DOUBLE_EQUAL(rel, 2.0 / 14.0, 1e-15);
    CU_ASSERT_FALSE(prof_rel_change(&ch[2], &rel));
    CU_ASSERT_PTR_NULL(ch[5].b);
    CU_ASSERT_PTR_NULL(ch[6].a);
    char *t = prof_value_text(ch[6].b); /* an added key shows its value, not the object */
    CU_ASSERT_STRING_EQUAL(t, "{\"matrix\":[[1,2]]}");
    free(t);
    prof_diff_free(ch, n);
    prof_diff(a, a, &ch, &n);
    CU_ASSERT_EQUAL(n, 0);
    prof_diff_free(ch, n);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static const char *frag_tslice =
    "{\"schema\": \"sharesim-profile/1\", \"device\": \"NVIDIA H100 80GB HBM3\", \"measured\": "
    "true, \"driver\": \"570.86.15, CUDA 12.8\", \"date\": \"2025-01-02T03:04:05Z\", "
    "\"notes\": \"tslice\","
    " \"timeslice_us\": {\"value\": 2048, \"source\": \"tslice on NVIDIA H100 80GB HBM3\","
    " \"confidence\": \"measured\", \"note\": \"median\"},"
    " \"switch_us\": {\"value\": 12.5, \"source\": \"tslice on NVIDIA H100 80GB HBM3\","
    " \"confidence\": \"measured\"}}";
static const char *frag_partition =
    "{\"schema\": \"sharesim-profile/1\", \"device\": \"NVIDIA H100 80GB HBM3\", \"measured\": "
    "true, \"driver\": \"570.86.15, CUDA 12.8\", \"date\": \"2025-01-02T03:05:00Z\","
    " \"rate_compute_exponent\": {\"value\": 0.97, \"source\": \"partition on NVIDIA H100\","
    " \"confidence\": \"measured\"},"
    " \"corun_slowdown\": {\"value\": {\"classes\": [\"compute\", \"memory\"], \"matrix\": "
    "[[1.0, 1.1], [1.2, 1.9]]}, \"source\": \"concurrency on NVIDIA H100\","
    " \"confidence\": \"measured\"}}";

static void test_merge(void)
{
    cJSON *base = NULL, *f[2], *out = NULL;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(prof_load("H100-80GB", &base, NULL, err, sizeof err), 0);
    f[0] = cJSON_Parse(frag_tslice);
    f[1] = cJSON_Parse(frag_partition);
    const char *names[] = {"t.json", "p.json"};
    CU_ASSERT_EQUAL_FATAL(prof_merge(base, f, names, 2, NULL, 0, &out, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(out, "name")->valuestring, "H100-80GB-measured");
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(out, "measured")));
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(out, "aliases")), 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(out, "date")->valuestring, "2025-01-02T03:05:00Z");
    CU_ASSERT_EQUAL(
        cJSON_GetObjectItem(cJSON_GetObjectItem(out, "timeslice_us"), "value")->valuedouble, 2048);
    CU_ASSERT_PTR_NOT_NULL(strstr(cJSON_GetObjectItem(out, "notes")->valuestring,
                                  "timeslice_us, switch_us, rate_compute_exponent, "
                                  "corun_slowdown"));
    /* The base is untouched and a shipped value stays as it was. */
    CU_ASSERT_EQUAL(
        cJSON_GetObjectItem(cJSON_GetObjectItem(base, "timeslice_us"), "value")->valuedouble, 1024);
    CU_ASSERT(cJSON_Compare(cJSON_GetObjectItem(base, "mig_profiles"),
                            cJSON_GetObjectItem(out, "mig_profiles"), 1));
    cJSON_Delete(out);
    /* The same key twice, and another device. */
    cJSON *twice[2] = {f[0], f[0]};
    CU_ASSERT_EQUAL(prof_merge(base, twice, names, 2, NULL, 0, &out, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "\"timeslice_us\" is measured by both t.json and p.json");
    cJSON_ReplaceItemInObject(f[1], "device", cJSON_CreateString("NVIDIA A100-SXM4-80GB"));
    CU_ASSERT_EQUAL(prof_merge(base, f + 1, names + 1, 1, NULL, 0, &out, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.json: measured on \"NVIDIA A100-SXM4-80GB\" but the "
                                       "base profile is for \"NVIDIA H100 80GB HBM3\""));
    CU_ASSERT_EQUAL(prof_merge(base, f + 1, names + 1, 1, "X", 1, &out, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(out, "name")->valuestring, "X");
    cJSON_Delete(out);
    cJSON_Delete(f[0]);
    cJSON_Delete(f[1]);
    cJSON_Delete(base);
}

static void test_fragment_checks(void)
{
    cJSON *doc;
    char err[SS_ERRLEN];
    char *p = tu_write("nosrc.json", "{\"schema\": \"sharesim-profile/1\", \"x_us\": "
                                     "{\"value\": 1, \"confidence\": \"measured\"}}");
    CU_ASSERT_EQUAL(prof_read_fragment(p, &doc, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nosrc.json: \"x_us\": missing \"source\""));
    p = tu_write("noschema.json", "{\"x_us\": {\"value\": 1}}");
    CU_ASSERT_EQUAL(prof_read_fragment(p, &doc, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"schema\": expected \"sharesim-profile/1\""));
    p = tu_write("ok.json", frag_tslice);
    CU_ASSERT_EQUAL(prof_read_fragment(p, &doc, err, sizeof err), 0);
    cJSON_Delete(doc);
}

/* ---- the CLI ---- */

#define BIG 65536

static void test_cli_show_all(void)
{
    const char *gpus[] = {"A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB"};
    char *out = malloc(BIG), *err = malloc(BIG);
    for (size_t i = 0; i < 4; i++) {
        char args[128];
        snprintf(args, sizeof args, "profile show %s --width 100", gpus[i]);
        CU_ASSERT_EQUAL(tu_cli(args, out, BIG, err, BIG), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, gpus[i]));
        CU_ASSERT_PTR_NOT_NULL(
            strstr(out, "key                       value         unit     confidence  source"));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "\ntimeslice_us              1024          us       "
                                           "high        OGKM: "));
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "MIG profiles (mig_profiles):"));
        /* Wrapped to the width: no line longer than 100 columns. */
        for (char *l = out; *l;) {
            char *nl = strchr(l, '\n');
            size_t len = nl ? (size_t)(nl - l) : strlen(l);
            CU_ASSERT(len <= 100);
            l = nl ? nl + 1 : l + len;
        }
        /* --json is the document itself. */
        snprintf(args, sizeof args, "profile show %s --json -", gpus[i]);
        CU_ASSERT_EQUAL(tu_cli(args, out, BIG, err, BIG), 0);
        cJSON *shown = cJSON_Parse(out), *file = NULL;
        char e[SS_ERRLEN];
        CU_ASSERT_EQUAL(prof_load(gpus[i], &file, NULL, e, sizeof e), 0);
        CU_ASSERT(shown && cJSON_Compare(shown, file, 1));
        cJSON_Delete(shown);
        cJSON_Delete(file);
    }
    CU_ASSERT_EQUAL(tu_cli("profile show H100-80GB --width 100", out, BIG, err, BIG), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n1g.10gb        1/1         16       9.75    7  "
                                       "0,1,2,3,4,5,6 (size 1)\n"));
    free(out);
    free(err);
}

static void test_cli_list_and_errors(void)
{
    char out[8192], err[8192];
    CU_ASSERT_EQUAL(tu_cli("profile list", out, sizeof out, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "H100-80GB              NVIDIA H100 80GB HBM3      "
                                       "shipped   "));
    CU_ASSERT_EQUAL(tu_cli("profile list --json -", out, sizeof out, err, sizeof err), 0);
    cJSON *arr = cJSON_Parse(out);
    CU_ASSERT(cJSON_GetArraySize(arr) >= 4);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 0), "name")->valuestring,
                           "A100-40GB");
    cJSON_Delete(arr);
    CU_ASSERT_EQUAL(tu_cli("profile show V100", out, sizeof out, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown GPU \"V100\""));
    CU_ASSERT_EQUAL(tu_cli("profile", out, sizeof out, err, sizeof err), 2);
    CU_ASSERT_EQUAL(tu_cli("profile frobnicate", out, sizeof out, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown subcommand \"frobnicate\""));
    CU_ASSERT_EQUAL(tu_cli("profile show H100-80GB --bogus", out, sizeof out, err, sizeof err), 2);
    CU_ASSERT_EQUAL(tu_cli("profile merge H100-80GB", out, sizeof out, err, sizeof err), 2);
    const char *subs[] = {"list", "show", "diff", "merge", "match"};
    for (size_t i = 0; i < 5; i++) {
        char args[64];
        snprintf(args, sizeof args, "profile %s --help", subs[i]);
        CU_ASSERT_EQUAL(tu_cli(args, out, sizeof out, err, sizeof err), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "usage: sharesim profile"));
    }
    CU_ASSERT_EQUAL(tu_cli("profile --help", out, sizeof out, err, sizeof err), 0);
    CU_ASSERT_EQUAL(tu_cli("profile match 'NVIDIA H200'", out, sizeof out, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(out, "H200-141GB\n");
    CU_ASSERT_EQUAL(tu_cli("profile match 'Tesla T4'", out, sizeof out, err, sizeof err), 1);
}

/* A shipped profile against a modified copy: exact rows and relative changes. */
static void test_cli_diff(void)
{
    char e[SS_ERRLEN], path[PATH_MAX];
    cJSON *doc;
    CU_ASSERT_EQUAL_FATAL(prof_load("A100-80GB", &doc, NULL, e, sizeof e), 0);
    cJSON *ts = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "timeslice_us"), "value");
    cJSON_SetNumberValue(ts, 2048);
    cJSON *sw = cJSON_GetObjectItem(doc, "switch_us");
    cJSON_SetNumberValue(cJSON_GetObjectItem(sw, "value"), 37.5);
    cJSON_ReplaceItemInObject(sw, "confidence", cJSON_CreateString("measured"));
    cJSON *mig = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "mig_profiles"), "value");
    cJSON_SetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(mig, 3), "sm_count"), 30);
    char *text = cJSON_Print(doc);
    snprintf(path, sizeof path, "%s", tu_write("a100-mod.json", text));
    cJSON_free(text);
    cJSON_Delete(doc);
    char args[PATH_MAX + 64], *out = malloc(BIG), err[4096];
    snprintf(args, sizeof args, "profile diff A100-80GB %s --width 100", path);
    CU_ASSERT_EQUAL(tu_cli(args, out, BIG, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\ntimeslice_us                    1024                   "
                                       "      2048                         +100.0%\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nswitch_us                       50                     "
                                       "      37.5                         -25.0%\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nswitch_us (confidence)          low"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nmig_profiles[2g.20gb].sm_count  28                     "
                                       "      30                           +7.1%\n"));
    snprintf(args, sizeof args, "profile diff A100-80GB %s --json -", path);
    CU_ASSERT_EQUAL(tu_cli(args, out, BIG, err, sizeof err), 0);
    cJSON *j = cJSON_Parse(out);
    cJSON *ch = cJSON_GetObjectItem(j, "changes");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(ch), 4);
    cJSON *c0 = cJSON_GetArrayItem(ch, 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(c0, "key")->valuestring, "timeslice_us");
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(c0, "relative_change")->valuedouble, 1.0, 1e-15);
    cJSON_Delete(j);
    CU_ASSERT_EQUAL(tu_cli("profile diff H200 H200-141GB", out, BIG, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "no differences\n"));
    free(out);
}

static void test_cli_merge(void)
{
    char f1[PATH_MAX], f2[PATH_MAX], o[PATH_MAX], args[4 * PATH_MAX], *out = malloc(BIG), err[4096];
    snprintf(f1, sizeof f1, "%s", tu_write("tslice.json", frag_tslice));
    snprintf(f2, sizeof f2, "%s", tu_write("partition.json", frag_partition));
    snprintf(o, sizeof o, "%s/merged.json", tu_tmpdir());
    snprintf(args, sizeof args, "profile merge H100-80GB %s %s -o %s", f1, f2, o);
    CU_ASSERT_EQUAL_FATAL(tu_cli(args, out, BIG, err, sizeof err), 0);
    struct gpu_profile p;
    char e[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(cal_load_file(o, &p, e, sizeof e), 0);
    CU_ASSERT(p.measured);
    CU_ASSERT_STRING_EQUAL(p.name, "H100-80GB-measured");
    CU_ASSERT_DOUBLE_EQUAL(p.timeslice_s, 2048e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(p.switch_s, 12.5e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(p.rate_compute_exponent, 0.97, 1e-15);
    CU_ASSERT_EQUAL(p.total_sms, 132);
    snprintf(args, sizeof args, "profile show %s --width 100", o);
    CU_ASSERT_EQUAL(tu_cli(args, out, BIG, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "measured profile"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\ncorun_slowdown: {\"classes\":[\"compute\",\"memory\"],"
                                       "\"matrix\":[[1,1.1],[1.2,1.9]]}\n"));
    /* A fragment from another GPU is refused and nothing is written. */
    snprintf(args, sizeof args, "profile merge A100-80GB %s -o %s/refused.json", f1, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, out, BIG, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "use --force"));
    snprintf(args, sizeof args, "%s/refused.json", tu_tmpdir());
    CU_ASSERT_FALSE(tu_exists(args));
    /* A fragment that breaks the profile (a value out of range) is refused too. */
    char *bad = tu_write("bad.json", "{\"schema\": \"sharesim-profile/1\", \"timeslice_us\": "
                                     "{\"value\": -5, \"source\": \"x\", \"confidence\": "
                                     "\"measured\"}}");
    snprintf(args, sizeof args, "profile merge H100-80GB %s -o %s/bad-out.json", bad, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, out, BIG, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the merged profile does not load"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"timeslice_us.value\": expected a number"));
    free(out);
}

/* ---- scripts/calibrate with stand-in programs ---- */

static void write_exec(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(text, fp);
    fclose(fp);
    chmod(path, 0755);
}

/* A stand-in program: prints the device name, or writes `fragment` to its --out. */
static void stand_in(const char *dir, const char *name, const char *fragment, int rc)
{
    char *text = malloc(8192);
    snprintf(text, 8192,
             "#!/bin/sh\n"
             "out=\n"
             "while [ $# -gt 0 ]; do\n"
             "  case $1 in --device-name) echo 'NVIDIA H100 80GB HBM3'; exit 0;;\n"
             "  --out) out=$2; shift;; esac; shift\n"
             "done\n"
             "[ %d -eq 0 ] || exit %d\n"
             "cat > \"$out\" <<'EOF'\n%s\nEOF\n",
             rc, rc, fragment);
    write_exec(dir, name, text);
    free(text);
}

static void test_calibrate_script(void)
{
    char kdir[PATH_MAX], cmd[4 * PATH_MAX], o[PATH_MAX];
    snprintf(kdir, sizeof kdir, "%s/kernels", tu_tmpdir());
    mkdir(kdir, 0755);
    stand_in(kdir, "tslice", frag_tslice, 0);
    stand_in(kdir, "partition", frag_partition, 0);
    stand_in(kdir, "concurrency", "", 1); /* a failed program: its values stay shipped */
    snprintf(o, sizeof o, "%s/cal/h100.json", tu_tmpdir());
    const char *bin = getenv("SHARESIM") ? getenv("SHARESIM") : "build/sharesim";
    snprintf(cmd, sizeof cmd,
             "CALIBRATE_KERNELS=%s SHARESIM=%s scripts/calibrate --out %s >%s/cal.out "
             "2>%s/cal.err",
             kdir, bin, o, tu_tmpdir(), tu_tmpdir());
    CU_ASSERT_EQUAL(system(cmd), 0);
    struct gpu_profile p;
    char e[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(cal_load_file(o, &p, e, sizeof e), 0);
    CU_ASSERT(p.measured);
    CU_ASSERT_DOUBLE_EQUAL(p.timeslice_s, 2048e-6, 1e-15);
    snprintf(cmd, sizeof cmd, "%s/cal.out", tu_tmpdir());
    char *diff = tu_slurp(cmd);
    CU_ASSERT_PTR_NOT_NULL(diff && strstr(diff, "+100.0%"));
    free(diff);
    snprintf(cmd, sizeof cmd, "%s/cal.err", tu_tmpdir());
    char *log = tu_slurp(cmd);
    CU_ASSERT_PTR_NOT_NULL(log && strstr(log, "calibrate: concurrency failed (exit 1); its "
                                              "values stay the shipped ones"));
    free(log);
    /* No GPU: the programs exit 3, so does calibrate, and nothing is written. */
    write_exec(kdir, "tslice", "#!/bin/sh\necho 'tslice: no CUDA GPU found (test)' >&2\nexit 3\n");
    snprintf(cmd, sizeof cmd,
             "CALIBRATE_KERNELS=%s SHARESIM=%s scripts/calibrate --out %s/cal/none.json "
             ">/dev/null 2>&1",
             kdir, bin, tu_tmpdir());
    int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    snprintf(cmd, sizeof cmd, "%s/cal/none.json", tu_tmpdir());
    CU_ASSERT_FALSE(tu_exists(cmd));
}

void test_profile_register(void)
{
    static const struct tu_test t[] = {
        {"every shipped value sourced, estimates explained", test_every_value_sourced},
        {"units from key names", test_units},
        {"CUDA device name -> profile", test_find_device},
        {"diff paths and relative changes", test_diff_paths},
        {"merge fragments over a base", test_merge},
        {"fragments checked", test_fragment_checks},
        {"profile show: all four, --json", test_cli_show_all},
        {"profile list, match, errors, --help", test_cli_list_and_errors},
        {"profile diff: shipped vs modified copy", test_cli_diff},
        {"profile merge end to end", test_cli_merge},
        {"scripts/calibrate with stand-in programs", test_calibrate_script},
        {NULL, NULL},
    };
    tu_add_suite("profile", t);
}
