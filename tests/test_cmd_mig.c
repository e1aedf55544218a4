/*
 * sharesim mig (cli/cmd_mig.c) end to end: help and usage errors, profiles and
 * layouts, check and pack, as text and JSON.
 */
#include "testutil.h"

#include <cJSON.h>
#include <stdio.h>
#include <string.h>

static const char *const gpus[] = {"A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB"};

#define CAP 65536
static char out[CAP], errb[CAP];

static void test_cli_help_and_usage(void)
{
    CU_ASSERT_EQUAL(tu_cli("mig --help", out, CAP, errb, CAP), 0);
    TU_CHECK_CONTAINS(out, "usage: sharesim mig SUBCOMMAND");
    const char *subs[] = {"profiles", "layouts", "check", "pack"};
    for (int i = 0; i < 4; i++) {
        char args[64];
        snprintf(args, sizeof args, "mig %s --help", subs[i]);
        CU_ASSERT_EQUAL(tu_cli(args, out, CAP, errb, CAP), 0);
        TU_CHECK_CONTAINS(out, "usage: sharesim mig");
    }
    CU_ASSERT_EQUAL(tu_cli("mig", out, CAP, errb, CAP), 2);
    CU_ASSERT_EQUAL(tu_cli("mig defrag --gpu A100-40GB", out, CAP, errb, CAP), 2);
    TU_CHECK_CONTAINS(errb, "unknown subcommand \"defrag\"");
    CU_ASSERT_EQUAL(tu_cli("mig layouts", out, CAP, errb, CAP), 2);
    TU_CHECK_CONTAINS(errb, "--gpu is required");
    CU_ASSERT_EQUAL(tu_cli("mig layouts --gpu A100-40GB --bogus", out, CAP, errb, CAP), 2);
    TU_CHECK_CONTAINS(errb, "unknown option --bogus");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB --policy fgd 1g.5gb", out, CAP, errb, CAP),
                    2);
    TU_CHECK_CONTAINS(errb, "option --policy does not apply here");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB --gpus 2 1g.5gb", out, CAP, errb, CAP), 2);
    TU_CHECK_CONTAINS(errb, "option --gpus does not apply here");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu V100 1g.5gb", out, CAP, errb, CAP), 2);
    TU_CHECK_CONTAINS(errb, "unknown GPU \"V100\"");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB", out, CAP, errb, CAP), 2);
    TU_CHECK_CONTAINS(errb, "expected one LAYOUT argument, got 0");
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB --gpus 0 1g.5gb", out, CAP, errb, CAP), 2);
    TU_CHECK_CONTAINS(errb, "sharesim mig pack: --gpus: expected an integer in [1, 100000], got \"0\"");
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB --order random 1g.5gb", out, CAP, errb, CAP),
                    2);
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB --policy worst 1g.5gb", out, CAP, errb, CAP),
                    2);
    TU_CHECK_CONTAINS(errb, "unknown packing policy \"worst\"");
}

static void test_cli_profiles_layouts(void)
{
    CU_ASSERT_EQUAL(tu_cli("mig profiles --gpu H100-80GB", out, CAP, errb, CAP), 0);
    TU_CHECK_CONTAINS(out, "H100-80GB: 132 SMs without MIG");
    TU_CHECK_CONTAINS(out, "3g.40gb            3      4   60        0.4545       0.5000");
    CU_ASSERT_EQUAL(tu_cli("mig layouts --gpu A100-40GB", out, CAP, errb, CAP), 0);
    TU_CHECK_CONTAINS(out, "A100-40GB: 127 legal layouts, 44 maximal");
    for (int i = 0; i < 4; i++) {
        char args[96];
        snprintf(args, sizeof args, "mig layouts --gpu %s --json -", gpus[i]);
        CU_ASSERT_EQUAL_FATAL(tu_cli(args, out, CAP, errb, CAP), 0);
        cJSON *root = cJSON_Parse(out);
        CU_ASSERT_FATAL(cJSON_IsArray(root));
        CU_ASSERT_EQUAL(cJSON_GetArraySize(root), 127);
        int n_max = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, root)
        {
            CU_ASSERT(cJSON_IsArray(cJSON_GetObjectItem(e, "profiles")));
            n_max += cJSON_IsTrue(cJSON_GetObjectItem(e, "maximal"));
        }
        CU_ASSERT_EQUAL(n_max, 44);
        cJSON_Delete(root);
    }
    CU_ASSERT_EQUAL(tu_cli("mig layouts --gpu A100-40GB --maximal --json -", out, CAP, errb, CAP),
                    0);
    cJSON *root = cJSON_Parse(out);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(root), 44);
    const cJSON *first = cJSON_GetArrayItem(root, 1);
    CU_ASSERT_STRING_EQUAL(
        cJSON_GetArrayItem(cJSON_GetObjectItem(first, "profiles"), 0)->valuestring, "4g.20gb");
    cJSON_Delete(root);
}

static void test_cli_check(void)
{
    CU_ASSERT_EQUAL(
        tu_cli("mig check --gpu A100-40GB 3g.20gb,2g.10gb,1g.5gb,1g.5gb", out, CAP, errb, CAP), 0);
    TU_CHECK_CONTAINS(out, "is a legal layout on A100-40GB (compute 7/7, memory 8/8 slices)");
    TU_CHECK_CONTAINS(out,
                      "0   3g.20gb          4     4-7       3   42        0.3889       0.5000");
    TU_CHECK_CONTAINS(out, "memory slices:  1  1  2  3  0  0  0  0");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB 4g.20gb,4g.20gb", out, CAP, errb, CAP), 1);
    TU_CHECK_CONTAINS(errb, "4g.20gb,4g.20gb is not a legal layout on A100-40GB: 4g.20gb can only "
                            "start at memory slice 0; two do not fit");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB 8x1g.5gb", out, CAP, errb, CAP), 1);
    TU_CHECK_CONTAINS(errb, "compute slices add up to 8, the GPU has 7");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB 3g.20gb,5g.20gb", out, CAP, errb, CAP), 2);
    TU_CHECK_CONTAINS(errb, "unknown MIG profile \"5g.20gb\"");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB --demand 1g.5gb:1,3g.20gb:1 "
                           "1g.5gb@1,1g.5gb@5",
                           out, CAP, errb, CAP),
                    0);
    TU_CHECK_CONTAINS(out, "stranded: compute 0 (0.0%), memory 1 (12.5%) slices");
    TU_CHECK_CONTAINS(out, "FGD:      compute 2.500 (35.7%), memory 3.500 (43.8%) slices");
    CU_ASSERT_EQUAL(
        tu_cli("mig check --gpu A100-40GB --json - --demand 1g.5gb 7x1g.5gb", out, CAP, errb, CAP),
        0);
    cJSON *root = cJSON_Parse(out);
    CU_ASSERT_FATAL(cJSON_IsObject(root));
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(root, "legal")));
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(root, "instances")), 7);
    const cJSON *fr = cJSON_GetObjectItem(root, "fragmentation");
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(fr, "stranded_memory")->valuedouble, 0.125, 1e-12);
    cJSON_Delete(root);
    CU_ASSERT_EQUAL(
        tu_cli("mig check --gpu A100-40GB --json - 1g.5gb+me,1g.5gb+me", out, CAP, errb, CAP), 1);
    root = cJSON_Parse(out);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(root, "legal")));
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(root, "reason")->valuestring,
                           "at most one +me (media extension) profile per GPU, the layout has 2");
    cJSON_Delete(root);
}

static void test_cli_pack(void)
{
    CU_ASSERT_EQUAL(
        tu_cli("mig pack --gpu A100-40GB --policy fgd 2x3g.20gb,8x1g.5gb", out, CAP, errb, CAP), 0);
    TU_CHECK_CONTAINS(out, "GPUs used: 2 (lower bound 2, cluster of 2)");
    TU_CHECK_CONTAINS(out, "unplaced: none");
    TU_CHECK_CONTAINS(out, "1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@3 3g.20gb@4");
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB 2x3g.20gb,8x1g.5gb", out, CAP, errb, CAP), 0);
    TU_CHECK_CONTAINS(out, "policy best-fit, largest first");
    TU_CHECK_CONTAINS(out, "GPUs used: 3 (lower bound 2)");
    TU_CHECK_CONTAINS(out, "stranded: compute 1 (4.8%), memory 1 (4.2%) slices");
    /* too few GPUs: exit 1, unplaced listed */
    CU_ASSERT_EQUAL(
        tu_cli("mig pack --gpu A100-40GB --gpus 2 2x3g.20gb,8x1g.5gb", out, CAP, errb, CAP), 1);
    TU_CHECK_CONTAINS(out, "unplaced: 1 (1 x 1g.5gb)");
    TU_CHECK_CONTAINS(errb, "1 of 10 requests do not fit on 2 GPUs");
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB --gpus 2 --json - 2x3g.20gb,8x1g.5gb", out,
                           CAP, errb, CAP),
                    1);
    cJSON *root = cJSON_Parse(out);
    CU_ASSERT_FATAL(cJSON_IsObject(root));
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(root, "gpus_used")->valueint, 2);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(root, "lower_bound")->valueint, 2);
    const cJSON *un = cJSON_GetObjectItem(root, "unplaced");
    CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(un), 1);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(un, 0), "request")->valueint, 9);
    const cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "gpus"), 0);
    const cJSON *i0 = cJSON_GetArrayItem(cJSON_GetObjectItem(g0, "instances"), 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(i0, "profile")->valuestring, "3g.20gb");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(i0, "start")->valueint, 0);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(i0, "request")->valueint, 0);
    cJSON_Delete(root);
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB 1g.5gb@3", out, CAP, errb, CAP), 2);
    TU_CHECK_CONTAINS(errb, "a start position (@SLICE) is not allowed here");
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB 1g.5gb 2g.10gb", out, CAP, errb, CAP), 2);
    TU_CHECK_CONTAINS(errb, "expected one REQUESTS argument, got 2");
}

/* mig check --json X --csv X used to write both into X (one lost), exit 0. */
static void test_mig_outputs(void)
{
    tu_expect_outputs_refused("mig check --gpu A100-40GB --json @X --csv @X 1g.5gb", "mig-x",
                              "--csv ", "the same file as --json ", "mig-x", NULL);
    tu_expect_outputs_refused("mig check --gpu A100-40GB --json - --csv - 1g.5gb", NULL,
                              "sharesim mig check: --csv -: --json - already writes to stdout",
                              NULL);
    tu_expect_outputs_refused("mig layouts --gpu A100-40GB --json @X --csv @X", "mig-y",
                              "sharesim mig layouts: --csv ", NULL);
}

void test_cmd_mig_register(void)
{
    static const struct tu_test t[] = {
        {"cli help and usage errors", test_cli_help_and_usage},
        {"cli profiles and layouts", test_cli_profiles_layouts},
        {"cli check", test_cli_check},
        {"cli pack", test_cli_pack},
        {"mig check: one output per file", test_mig_outputs},
        {NULL, NULL},
    };
    tu_add_suite("cmd_mig", t);
}
