/*
 * sharesim profile (cli/cmd_profile.c) end to end: show (all four shipped profiles,
 * wrapped to the width, --json is the document), list, match, diff of a shipped profile against
 * a modified copy, merge of measured fragments, and the usage errors.
 */
#include "calib/calib.h"
#include "calib/profile.h"
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Measured fragments as the calibration programs write them (tslice, partition). */
static const char *frag_tslice = "profile/tslice-fragment.json";
static const char *frag_partition = "profile/partition-fragment.json";

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
    CU_ASSERT(cJSON_GetArraySize(arr) >= 11);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 0), "name")->valuestring,
                           "A10");
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
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nswitch_us                       40                     "
                                       "      37.5                         -6.2%\n"));
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
    snprintf(f1, sizeof f1, "%s", tu_fixture(frag_tslice));
    snprintf(f2, sizeof f2, "%s", tu_fixture(frag_partition));
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

/* profile diff/list: one output per file; merge: the message names OUT, not its temporary. */
static void test_profile_outputs(void)
{
    tu_expect_outputs_refused("profile diff A100-40GB A100-80GB --json @X --csv @X", "prof-x",
                              "sharesim profile diff: --csv ", "the same file as --json ", NULL);
    tu_expect_outputs_refused("profile diff A100-40GB A100-80GB --json - --csv -", NULL,
                              "--csv -: --json - already writes to stdout", NULL);
    tu_expect_outputs_refused("profile list --json @X --csv @X", "prof-y",
                              "sharesim profile list: --csv ", NULL);
    /* -o over the measurement being merged */
    char args[1400], err[4096];
    char *frag =
        tu_write("prof-frag.json", "{\"schema\": \"sharesim-profile/1\", \"timeslice_us\": "
                                   "{\"value\": 2048, \"source\": \"x\", \"confidence\": "
                                   "\"measured\"}}");
    char *before = tu_slurp(frag);
    snprintf(args, sizeof args, "profile merge H100-80GB '%s' -o '%s'", frag, frag);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "the same file as the input MEASURED");
    char *after = tu_slurp(frag);
    CU_ASSERT_STRING_EQUAL(after, before);
    free(after);
    free(before);
    /* a value refused in the merged profile: the message names OUT and the JSON path */
    char *bad = tu_write("prof-bad.json", "{\"schema\": \"sharesim-profile/1\", \"timeslice_us\": "
                                          "{\"value\": -5, \"source\": \"x\", \"confidence\": "
                                          "\"measured\"}}");
    snprintf(args, sizeof args, "profile merge H100-80GB '%s' -o '%s/prof-out.json'", bad,
             tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "prof-out.json: \"timeslice_us.value\": expected a number");
    CU_ASSERT_PTR_NULL(strstr(err, ".tmp."));
    /* a curve point past total_sms: said in words, not as an empty range [109, 108] */
    char *curve =
        tu_write("prof-curve.json",
                 "{\"schema\": \"sharesim-profile/1\", \"mem_bw_sm_curve\": {\"value\": "
                 "[{\"sms\": 54, \"bw_fraction\": 0.7}, {\"sms\": 108, \"bw_fraction\": 1}, "
                 "{\"sms\": 120, \"bw_fraction\": 1}], \"source\": \"x\", "
                 "\"confidence\": \"measured\"}}");
    snprintf(args, sizeof args, "profile merge A100-40GB '%s' -o '%s/prof-curve-out.json'", curve,
             tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "mem_bw_sm_curve.value[2]: a point after the one at all 108 SMs");
    CU_ASSERT_PTR_NULL(strstr(err, "[109, 108]"));
    curve = tu_write("prof-curve2.json",
                     "{\"schema\": \"sharesim-profile/1\", \"mem_bw_sm_curve\": {\"value\": "
                     "[{\"sms\": 54, \"bw_fraction\": 0.7}, {\"sms\": 50, \"bw_fraction\": 1}], "
                     "\"source\": \"x\", \"confidence\": \"measured\"}}");
    snprintf(args, sizeof args, "profile merge A100-40GB '%s' -o '%s/prof-curve-out.json'", curve,
             tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "sms: expected more SMs than the previous point's 54, got 50");
}

void test_cmd_profile_register(void)
{
    static const struct tu_test t[] = {
        {"profile show: all four, --json", test_cli_show_all},
        {"profile list, match, errors, --help", test_cli_list_and_errors},
        {"profile diff: shipped vs modified copy", test_cli_diff},
        {"profile merge end to end", test_cli_merge},
        {"one output per file; merge names the file given", test_profile_outputs},
        {NULL, NULL},
    };
    tu_add_suite("cmd_profile", t);
}
