/*
 * mig_frag (mig/mig_frag.c): demand mixes parsed from text and from a layout, and the
 * fragmentation measures of placed layouts, every value worked out by hand.
 */
#include "calib/calib.h"
#include "mig/mig.h"
#include "testutil.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_parse_demand(void)
{
    struct gpu_profile g;
    tu_gpu("A100-40GB", &g);
    struct mig_demand d;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(mig_parse_demand(&g, "3g.20gb:1, 1g.5gb:3,3g.20gb", &d, err, sizeof err),
                          0);
    CU_ASSERT_EQUAL(d.n, 2); /* table order, repeats added */
    CU_ASSERT_STRING_EQUAL(g.mig[d.prof[0]].name, "1g.5gb");
    CU_ASSERT_DOUBLE_EQUAL(d.p[0], 0.6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(d.p[1], 0.4, 1e-12);
    CU_ASSERT_EQUAL(mig_parse_demand(&g, "1g.5gb:-1", &d, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "bad weight \"-1\" for 1g.5gb");
    CU_ASSERT_EQUAL(mig_parse_demand(&g, "9g.5gb:1", &d, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "unknown MIG profile \"9g.5gb\" (item 1 of demand");
    CU_ASSERT_EQUAL(mig_parse_demand(&g, "1g.5gb,,", &d, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "empty MIG profile name (item 2 of demand \"1g.5gb,,\")");
    int prof[64], n = tu_mig_list(&g, "3g.20gb,1g.5gb,1g.5gb,1g.5gb", prof);
    mig_demand_from_list(&g, prof, n, &d);
    CU_ASSERT_EQUAL(d.n, 2);
    CU_ASSERT_DOUBLE_EQUAL(d.p[0], 0.75, 1e-12);
    mig_demand_uniform(&g, &d);
    CU_ASSERT_EQUAL(d.n, 7);
    CU_ASSERT_DOUBLE_EQUAL(d.p[6], 1.0 / 7, 1e-12);
}

/* ---- fragmentation (values worked out by hand in the comments) ------------ */

static void frag_of(const struct gpu_profile *g, const char *layout, const char *demand,
                    struct mig_frag *f)
{
    struct mig_layout l;
    struct mig_demand d;
    char why[SS_ERRLEN];
    if (layout[0]) {
        CU_ASSERT_EQUAL_FATAL(tu_mig_placed(g, layout, &l, why), 0);
    } else {
        l.n = 0;
    }
    CU_ASSERT_EQUAL_FATAL(mig_parse_demand(g, demand, &d, why, sizeof why), 0);
    mig_frag(g, &l, &d, f);
}

static void test_frag_hand_computed(void)
{
    struct gpu_profile g;
    tu_gpu("A100-40GB", &g);
    struct mig_frag f;

    /* 7 x 1g.5gb: slice 7 free, no compute left. Nothing can be added, so
     * stranded = free (0c, 1m) and both tasks see all free capacity as lost:
     * fgd_m = 0.8*1 + 0.2*1 = 1, fgd = (0/7 + 1/8)/2 = 0.0625. */
    frag_of(&g, "7x1g.5gb", "1g.5gb:4,3g.20gb:1", &f);
    CU_ASSERT_EQUAL(f.free_compute, 0);
    CU_ASSERT_EQUAL(f.free_memory, 1);
    CU_ASSERT_EQUAL(f.stranded_compute, 0);
    CU_ASSERT_EQUAL(f.stranded_memory, 1);
    CU_ASSERT_DOUBLE_EQUAL(f.stranded_memory_frac, 0.125, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd_memory, 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd, 0.0625, 1e-12);

    /* 3g + 3g: one compute slice free, no memory: stranded 1c (1/7);
     * fgd_c = 1 for every task; fgd = (1/7)/2. */
    frag_of(&g, "3g.20gb,3g.20gb", "1g.5gb:4,3g.20gb:1", &f);
    CU_ASSERT_EQUAL(f.stranded_compute, 1);
    CU_ASSERT_EQUAL(f.stranded_memory, 0);
    CU_ASSERT_DOUBLE_EQUAL(f.stranded_compute_frac, 1.0 / 7, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd_compute, 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd, 1.0 / 14, 1e-12);

    /* 1g.5gb at 1 and 5, demand 1g:3g = 1:1. Free: 5c, slices 0,2,3,4,6,7.
     * No 3g fits (each half holds a 1g); five 1g fit at 0,2,3,4,6, so
     * stranded = 0c, 1m (slice 7). FGD: 1g can go anywhere but slice 7
     * -> F = (0c, 1m); 3g cannot -> F = (5c, 6m).
     * fgd_c = .5*5 = 2.5, fgd_m = .5*1 + .5*6 = 3.5,
     * fgd = (2.5/7 + 3.5/8)/2 = 0.397321... */
    frag_of(&g, "1g.5gb@1,1g.5gb@5", "1g.5gb:1,3g.20gb:1", &f);
    CU_ASSERT_EQUAL(f.free_compute, 5);
    CU_ASSERT_EQUAL(f.free_memory, 6);
    CU_ASSERT_EQUAL(f.stranded_compute, 0);
    CU_ASSERT_EQUAL(f.stranded_memory, 1);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd_compute, 2.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd_memory, 3.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd, (2.5 / 7 + 3.5 / 8) / 2, 1e-12);

    /* The same two 1g packed at 0 and 1: a 3g still fits at 4.
     * Stranded: 3g@4 + 1g at 2,3 uses all 5c and 6m -> 0, 0.
     * FGD: 1g -> slice 7 uncovered (1m); 3g -> slices 2,3 uncovered (2m).
     * fgd_m = .5*1 + .5*2 = 1.5, fgd_c = 0. */
    frag_of(&g, "1g.5gb@0,1g.5gb@1", "1g.5gb:1,3g.20gb:1", &f);
    CU_ASSERT_EQUAL(f.stranded_compute, 0);
    CU_ASSERT_EQUAL(f.stranded_memory, 0);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd_compute, 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd_memory, 1.5, 1e-12);

    /* 3g at 4 + 1g at 0 for {1g, 3g}: three 1g fill it (stranded 0), but
     * the next 3g does not fit: fgd_c = .5*3, fgd_m = .5*3. */
    frag_of(&g, "3g.20gb@4,1g.5gb@0", "1g.5gb:1,3g.20gb:1", &f);
    CU_ASSERT_EQUAL(f.stranded_compute, 0);
    CU_ASSERT_EQUAL(f.stranded_memory, 0);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd_compute, 1.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd_memory, 1.5, 1e-12);
    /* ... and 3g at 0 + 1g at 4 is worse: 1g fits at 5, 6 only (slice 7
     * is 1g.10gb territory) -> stranded 1c, 1m. */
    frag_of(&g, "3g.20gb@0,1g.5gb@4", "1g.5gb:1,3g.20gb:1", &f);
    CU_ASSERT_EQUAL(f.stranded_compute, 1);
    CU_ASSERT_EQUAL(f.stranded_memory, 1);

    /* Empty GPU, 1g.10gb demand: four fill the memory with 4 of 7 compute
     * slices -> stranded 3c; the next one fits anywhere -> FGD 0. */
    frag_of(&g, "", "1g.10gb", &f);
    CU_ASSERT_EQUAL(f.free_compute, 7);
    CU_ASSERT_EQUAL(f.free_memory, 8);
    CU_ASSERT_EQUAL(f.stranded_compute, 3);
    CU_ASSERT_EQUAL(f.stranded_memory, 0);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd, 0, 1e-12);

    /* Empty GPU, 3g demand: two 3g use 6c, 8m -> stranded 1c; FGD 0. */
    frag_of(&g, "", "3g.20gb", &f);
    CU_ASSERT_EQUAL(f.stranded_compute, 1);
    CU_ASSERT_EQUAL(f.stranded_memory, 0);

    /* Full GPU: nothing free, nothing stranded. */
    frag_of(&g, "4g.20gb,3g.20gb", "1g.5gb", &f);
    CU_ASSERT_EQUAL(f.free_compute + f.free_memory + f.stranded_compute + f.stranded_memory, 0);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd, 0, 1e-12);

    /* +me demand on a GPU that already has a +me: never placeable. 6 x 1g.5gb
     * + 1g.5gb+me fill compute anyway, so use 1g.5gb+me alone: free 6c, 7m;
     * a second +me is refused -> stranded = free, fgd = all. */
    frag_of(&g, "1g.5gb+me", "1g.5gb+me", &f);
    CU_ASSERT_EQUAL(f.stranded_compute, 6);
    CU_ASSERT_EQUAL(f.stranded_memory, 7);
    CU_ASSERT_DOUBLE_EQUAL(f.fgd, (6.0 / 7 + 7.0 / 8) / 2, 1e-12);
}

void test_mig_frag_register(void)
{
    static const struct tu_test t[] = {
        {"parse demand mixes", test_parse_demand},
        {"fragmentation, hand-computed", test_frag_hand_computed},
        {NULL, NULL},
    };
    tu_add_suite("mig_frag", t);
}
