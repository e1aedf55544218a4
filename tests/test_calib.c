/* Tests for calib: every shipped profile loads, every value has a source. */
#include "calib/calib.h"
#include "calib/profile.h"
#include "mig/mig.h"
#include "testutil.h"
#include "base/util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
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
    /* Names with their aliases, then the family names; not the engine table's file. */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "A100-80GB (A100-SXM4-80GB, A100 80GB)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "H100-PCIe (H100-PCIE-80GB, H100 PCIe)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "B200 (B200-180GB, HGX B200)"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(err, "or a family name, which picks its SXM part: A100, H100, H200"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "; or a path to a profile"));
    CU_ASSERT_PTR_NULL(strstr(err, "engines"));
}

/* The 2026 fleet (docs/calibration.md#the-2026-fleet-profiles-and-prices): every profile loads
 * with its datasheet facts, a price and an interconnect. */
static const struct {
    const char *name;
    int sms, n_mig;
    double mem_gb, bw_gbps, fp16_tflops, fp8_tflops, usd;
    const char *link;
    int domain;
} fleet[] = {
    {"A10", 72, 0, 24, 600, 125, 0, 0.86, "pcie4", 1},
    {"L4", 58, 0, 24, 300, 121, 242.5, 0.7992, "pcie4", 1},
    {"L40S", 142, 0, 48, 864, 362.05, 733, 1.40, "pcie4", 1},
    {"A100-40GB", 108, 7, 40, 1555, 312, 0, 1.48, "nvlink3", 8},
    {"A100-80GB", 108, 7, 80, 2039, 312, 0, 2.85, "nvlink3", 8},
    {"H100-80GB", 132, 7, 80, 3350, 989.4, 1978.9, 4.5, "nvlink4", 8},
    {"H100-PCIe", 114, 7, 80, 2000, 756.5, 1513, 2.86, "nvlink4", 2},
    {"H100-NVL", 132, 7, 94, 3900, 835.5, 1670.5, 3.07, "nvlink4", 2},
    {"H200-141GB", 132, 7, 141, 4800, 989.4, 1978.9, 4.54, "nvlink4", 8},
    {"H200-NVL", 132, 7, 141, 4800, 835.5, 1670.5, 4.54, "nvlink4", 4},
    {"B200", 148, 7, 180, 7700, 2250, 4500, 6.03, "nvlink5", 8},
};

static void test_fleet_profiles(void)
{
    for (size_t i = 0; i < sizeof fleet / sizeof *fleet; i++) {
        struct gpu_profile p;
        tu_gpu(fleet[i].name, &p);
        CU_ASSERT_STRING_EQUAL(p.name, fleet[i].name);
        CU_ASSERT_EQUAL(p.total_sms, fleet[i].sms);
        CU_ASSERT_EQUAL(p.n_mig, fleet[i].n_mig);
        CU_ASSERT_DOUBLE_EQUAL(p.memory_gb, fleet[i].mem_gb, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(p.hbm_bw_gbps, fleet[i].bw_gbps, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(p.roof.peak_flops[RD_FP16], fleet[i].fp16_tflops * 1e12, 1e3);
        CU_ASSERT_DOUBLE_EQUAL(p.roof.peak_flops[RD_FP8], fleet[i].fp8_tflops * 1e12, 1e3);
        /* Every profile has a price now: A100-40GB and H200 had none (cost null). */
        CU_ASSERT_DOUBLE_EQUAL(p.gpu_hour_usd, fleet[i].usd, 1e-9);
        CU_ASSERT(p.power_kw > 0);
        CU_ASSERT_STRING_EQUAL(p.link.kind, fleet[i].link);
        CU_ASSERT_EQUAL(p.link.domain_gpus, fleet[i].domain);
        CU_ASSERT(p.link.gbps > 0 && p.link.pcie_gbps > 0);
        CU_ASSERT_EQUAL(p.family_note[0], '\0'); /* a profile's own name says nothing */
    }
}

/* The MIG tables of the new MIG parts pass the MIG code: the same slice geometry as the
 * A100/H100, so the same 127 legal sets, 44 maximal, 2318 placements (test_mig.c); 7 x 1g fits,
 * 8 do not; 3g + 4g is legal, 4g + 4g is not; the SM counts are the cards' own. */
static void test_fleet_mig_layouts(void)
{
    const char *mig_gpus[] = {"H100-PCIe", "H100-NVL", "H200-NVL", "B200"};
    const char *one_g[] = {"1g.10gb", "1g.12gb", "1g.18gb", "1g.23gb"};
    const char *three_g[] = {"3g.40gb", "3g.47gb", "3g.71gb", "3g.90gb"};
    const char *four_g[] = {"4g.40gb", "4g.47gb", "4g.71gb", "4g.90gb"};
    const int sms_1g[] = {14, 16, 16, 18}, sms_7g[] = {114, 132, 132, 126};
    for (int i = 0; i < 4; i++) {
        struct gpu_profile g;
        tu_gpu(mig_gpus[i], &g);
        struct mig_set *sets;
        int n = mig_layouts(&g, &sets), n_max = 0;
        for (int k = 0; k < n; k++)
            n_max += sets[k].maximal;
        free(sets);
        CU_ASSERT_EQUAL(n, 127);
        CU_ASSERT_EQUAL(n_max, 44);
        int p1 = mig_profile_index(&g, one_g[i]), p3 = mig_profile_index(&g, three_g[i]),
            p4 = mig_profile_index(&g, four_g[i]);
        CU_ASSERT_FATAL(p1 >= 0 && p3 >= 0 && p4 >= 0);
        CU_ASSERT_EQUAL(g.mig[p1].sm_count, sms_1g[i]);
        CU_ASSERT_EQUAL(g.mig[g.n_mig - 1].sm_count, sms_7g[i]);
        int seven[8] = {p1, p1, p1, p1, p1, p1, p1, p1}, mixed[2] = {p4, p3}, fours[2] = {p4, p4};
        char why[SS_ERRLEN];
        CU_ASSERT_EQUAL(mig_check(&g, seven, 7, why, sizeof why), 0);
        CU_ASSERT_EQUAL(mig_check(&g, seven, 8, why, sizeof why), -1);
        CU_ASSERT_EQUAL(mig_check(&g, mixed, 2, why, sizeof why), 0);
        CU_ASSERT_EQUAL(mig_check(&g, fours, 2, why, sizeof why), -1);
    }
}

/* Variant names resolve quietly; a family name picks the SXM part and says which. */
static void test_fleet_aliases(void)
{
    const char *cases[][2] = {
        {"H100-SXM", "H100-80GB"},
        {"h100-pcie", "H100-PCIe"},
        {"H100 NVL", "H100-NVL"},
        {"H200-NVL", "H200-NVL"},
        {"H200-SXM", "H200-141GB"},
        {"NVIDIA H200", "H200-141GB"},
        {"b200", "B200"},
        {"HGX B200", "B200"},
        {"L40S", "L40S"},
        {"l4", "L4"},
        {"A10", "A10"},
        {"A100-SXM4-40GB", "A100-40GB"},
    };
    struct gpu_profile p;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tu_gpu(cases[i][0], &p);
        CU_ASSERT_STRING_EQUAL(p.name, cases[i][1]);
        CU_ASSERT_EQUAL(p.family_note[0], '\0');
    }
    tu_gpu("H100", &p);
    CU_ASSERT_STRING_EQUAL(p.name, "H100-80GB");
    CU_ASSERT_STRING_EQUAL(
        p.family_note, "GPU \"H100\" names a family of 3 profiles: using H100-80GB (NVIDIA H100 "
                       "80GB HBM3), not H100-NVL, H100-PCIe; name the variant to choose another");
    tu_gpu("h200", &p);
    CU_ASSERT_STRING_EQUAL(p.name, "H200-141GB");
    CU_ASSERT_PTR_NOT_NULL(strstr(p.family_note, "using H200-141GB (NVIDIA H200), not H200-NVL"));
    tu_gpu("A100", &p);
    CU_ASSERT_STRING_EQUAL(p.name, "A100-80GB");
    CU_ASSERT_PTR_NOT_NULL(strstr(p.family_note, "not A100-40GB"));
}

/*
 * The V100 of the TRTLAB_MPS rows (a DGX-1V's Tesla V100-SXM2-16GB): the datasheet's 16 GB of
 * HBM2 at 900 GB/s, 125 tensor TFLOP/s and 300 W, the whitepaper's 80 SMs; no MIG, no BF16,
 * FP8 or INT8 peak; 48 MPS clients (no CUDA 13.1 limit: CUDA 13 dropped Volta); the driver's
 * Volta slice of 1024 us; NVLink 2 at 300 GB/s over a DGX-1V's 8 GPUs and PCIe 3 at 32 GB/s.
 * "V100" alone stays unknown: it names no variant.
 */
static void test_v100_profile(void)
{
    struct gpu_profile p;
    tu_gpu("V100-SXM2-16GB", &p);
    CU_ASSERT_STRING_EQUAL(p.name, "V100-SXM2-16GB");
    CU_ASSERT_EQUAL(p.total_sms, 80);
    CU_ASSERT_EQUAL(p.n_mig, 0);
    CU_ASSERT_DOUBLE_EQUAL(p.memory_gb, 16, 0);
    CU_ASSERT_DOUBLE_EQUAL(p.hbm_bw_gbps, 900, 0);
    CU_ASSERT_DOUBLE_EQUAL(p.roof.peak_flops[RD_FP16], 125e12, 1e3);
    CU_ASSERT_DOUBLE_EQUAL(p.roof.peak_flops[RD_BF16], 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(p.roof.peak_flops[RD_FP8], 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(p.roof.peak_flops[RD_INT8], 0, 0);
    CU_ASSERT_EQUAL(p.mps_max_clients, 48);
    CU_ASSERT_EQUAL(p.mps_max_clients_cuda13_1, 48);
    CU_ASSERT_DOUBLE_EQUAL(p.timeslice_s, 1024e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(p.ts_refill_s, 62e-6, 1e-12); /* the A100's, not fitted here */
    CU_ASSERT_DOUBLE_EQUAL(p.gpu_hour_usd, 3.06, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(p.power_kw, 0.3, 1e-12);
    CU_ASSERT_STRING_EQUAL(p.link.kind, "nvlink2");
    CU_ASSERT_STRING_EQUAL(p.link.pcie, "pcie3");
    CU_ASSERT_DOUBLE_EQUAL(p.link.gbps, 300, 0);
    CU_ASSERT_DOUBLE_EQUAL(p.link.pcie_gbps, 32, 0);
    CU_ASSERT_EQUAL(p.link.domain_gpus, 8);
    tu_gpu("Tesla V100-SXM2-16GB", &p);
    CU_ASSERT_STRING_EQUAL(p.name, "V100-SXM2-16GB");
    char name[64], err[SS_ERRLEN];
    CU_ASSERT_EQUAL(prof_find_device("Tesla V100-SXM2-16GB", name, sizeof name, err, sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(name, "V100-SXM2-16GB");
    CU_ASSERT_EQUAL(cal_load("V100", &p, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "V100-SXM2-16GB (Tesla V100-SXM2-16GB, V100-SXM2)"));
}

/* A family without exactly one default is refused, naming the count; a bad interconnect too. */
static void test_family_without_default(void)
{
    const char *prof =
        "{\"schema\": \"sharesim-profile/1\", \"name\": \"%s\", \"family\": \"X1\"%s,"
        " \"total_sms\": {\"value\": 10, \"source\": \"s\", \"confidence\": \"high\"}}";
    char a[512], b[512];
    snprintf(a, sizeof a, prof, "X1-A", "");
    snprintf(b, sizeof b, prof, "X1-B", "");
    char dir[PATH_MAX], path[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/fam", tu_tmpdir());
    mkdir(dir, 0755);
    tu_write("fam/x1-a.json", a);
    tu_write("fam/x1-b.json", b);
    setenv("SHARESIM_PROFILES", dir, 1);
    struct gpu_profile p;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(cal_load("X1", &p, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "GPU family \"X1\": 0 of its 2 profiles are marked "
                                "\"family_default\" (expected exactly one): name the variant");
    unsetenv("SHARESIM_PROFILES");
    /* An interconnect of an unknown kind, in an otherwise shipped profile. */
    snprintf(path, sizeof path, "%s/h100-80gb.json", cal_profile_dir());
    char *text = tu_slurp(path), *at = strstr(text, "\"nvlink4\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    memcpy(at, "\"nvlink9\"", 9);
    char *bad = tu_write("badlink.json", text);
    free(text);
    CU_ASSERT_EQUAL(cal_load(bad, &p, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "interconnect.value.kind: expected one of nvlink2, nvlink3, "
                                       "nvlink4, nvlink5, pcie3, pcie4, pcie5, pcie6"));
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
        {"the 2026 fleet: facts, prices, interconnects", test_fleet_profiles},
        {"the new MIG parts' layouts", test_fleet_mig_layouts},
        {"variant aliases; a family name picks the SXM part", test_fleet_aliases},
        {"a family without one default is refused", test_family_without_default},
        {"the V100-SXM2-16GB profile: datasheet facts", test_v100_profile},
        {NULL, NULL},
    };
    tu_add_suite("calib", t);
}
