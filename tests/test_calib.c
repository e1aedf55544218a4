/* Tests for calib: every shipped profile loads, every value has a source. */
#include "calib/calib.h"
#include "testutil.h"
#include "base/util.h"

#include <math.h>
#include <string.h>

static void test_shipped_profiles_load(void)
{
    const char *names[] = {"A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB"};
    for (size_t i = 0; i < 4; i++) {
        struct gpu_profile p;
        tu_gpu(names[i], &p);
        CU_ASSERT_STRING_EQUAL(p.name, names[i]);
        CU_ASSERT(p.n_mig >= 7);
        CU_ASSERT_DOUBLE_EQUAL(p.timeslice_s, 1024e-6, 1e-12);
    }
}

static void test_alias_and_sm_counts(void)
{
    struct gpu_profile p;
    tu_gpu("h100-80gb-sxm", &p);
    CU_ASSERT_STRING_EQUAL(p.name, "H100-80GB");
    /* Hopper SM counts are not proportional to slices: 1g = 16, 3g = 60, 7g = 132. */
    CU_ASSERT_EQUAL(cal_mig_find(&p, "1g.10gb")->sm_count, 16);
    CU_ASSERT_EQUAL(cal_mig_find(&p, "3g.40gb")->sm_count, 60);
    CU_ASSERT_EQUAL(cal_mig_find(&p, "7g.80gb")->sm_count, 132);
    tu_gpu("A100-40GB", &p);
    CU_ASSERT_EQUAL(cal_mig_find(&p, "1g.5gb")->sm_count, 14);
}

static void test_unknown_gpu(void)
{
    struct gpu_profile p;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(cal_load("V100", &p, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown GPU \"V100\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "a100-80gb"));
}

static void test_value_without_source_rejected(void)
{
    char *path =
        tu_write("nosource.json", "{\"schema\": \"sharesim-profile/1\", \"name\": \"X\","
                                  " \"total_sms\": {\"value\": 10, \"confidence\": \"high\"}}");
    struct gpu_profile p;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(cal_load(path, &p, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"total_sms\": missing \"source\""));
}

void test_calib_register(void)
{
    static const struct tu_test t[] = {
        {"shipped profiles load", test_shipped_profiles_load},
        {"aliases and real SM counts", test_alias_and_sm_counts},
        {"unknown GPU names the known ones", test_unknown_gpu},
        {"a value without a source is rejected", test_value_without_source_rejected},
        {NULL, NULL},
    };
    tu_add_suite("calib", t);
}
