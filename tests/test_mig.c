/*
 * mig (mig/mig.c): legal-layout counts against an independent brute force,
 * named legal and illegal layouts with their reasons, placement, resource
 * shares and parsing. Fragmentation is in test_mig_frag.c, packing in
 * test_mig_pack.c, the `sharesim mig` CLI in test_cmd_mig.c.
 */
#include "calib/calib.h"
#include "mig/mig.h"
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const gpus[] = {"A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB"};

/* mig_check on a layout string; why gets the reason. */
static int legal(const struct gpu_profile *g, const char *text, char *why, size_t whylen)
{
    int prof[64];
    int n = tu_mig_list(g, text, prof);
    return mig_check(g, prof, n, why, whylen) == 0;
}

/* ---- enumeration ------------------------------------------------------- */

static int count_placements(const struct mig_layout *l, void *ctx)
{
    (void)l;
    (*(int *)ctx)++;
    return 0;
}

/*
 * Expected counts come from tests/mig_bruteforce.py, run once by hand on the
 * shipped profiles: it enumerates every subset of (profile, start) placements
 * with no shared memory slice, compute <= 7, max_instances and one +me, and
 * collects the distinct multisets — a different method from mig_layouts,
 * which walks count vectors and searches placements. Output:
 *   A100-40GB 127 44 2318 / A100-80GB 127 44 2318 / H100-80GB 127 44 2318 /
 *   H200-141GB 127 44 2318   (legal sets, maximal sets, placements in all).
 * The four GPUs share the slice geometry, so the numbers agree.
 */
static void test_layout_counts(void)
{
    for (int i = 0; i < 4; i++) {
        struct gpu_profile g;
        tu_gpu(gpus[i], &g);
        struct mig_set *sets;
        int n = mig_layouts(&g, &sets), n_max = 0, placements = 0;
        for (int k = 0; k < n; k++) {
            int prof[MIG_MAX_INST], np = 0;
            n_max += sets[k].maximal;
            for (int p = 0; p < g.n_mig; p++)
                for (int c = 0; c < sets[k].count[p]; c++)
                    prof[np++] = p;
            placements += mig_place_each(&g, prof, NULL, np, count_placements, &(int){0});
        }
        CU_ASSERT_EQUAL(n, 127);
        CU_ASSERT_EQUAL(n_max, 44);
        CU_ASSERT_EQUAL(placements, 2318);
        free(sets);
    }
}

static void test_layout_order_and_maximal(void)
{
    struct gpu_profile g;
    tu_gpu("A100-40GB", &g);
    struct mig_set *sets;
    int n = mig_layouts(&g, &sets);
    char buf[256];
    mig_set_format(&g, &sets[0], buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "7g.40gb");
    CU_ASSERT(sets[0].maximal);
    mig_set_format(&g, &sets[1], buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "4g.20gb,3g.20gb");
    mig_set_format(&g, &sets[n - 2], buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "1g.5gb");
    mig_set_format(&g, &sets[n - 1], buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "1g.5gb+me");
    CU_ASSERT(!sets[n - 1].maximal);
    /* 3g+3g leaves a compute slice free but nothing fits: maximal */
    int found = 0;
    for (int k = 0; k < n; k++) {
        mig_set_format(&g, &sets[k], buf, sizeof buf);
        if (!strcmp(buf, "3g.20gb,3g.20gb")) {
            found = 1;
            CU_ASSERT(sets[k].maximal);
            CU_ASSERT_EQUAL(sets[k].compute_slices, 6);
            CU_ASSERT_EQUAL(sets[k].memory_slices, 8);
        }
        if (!strcmp(buf, "3g.20gb,2g.10gb,1g.5gb")) /* room for one more 1g */
            CU_ASSERT(!sets[k].maximal);
    }
    CU_ASSERT(found);
    free(sets);
}

/* ---- named layouts ------------------------------------------------------- */

static void test_named_legal(void)
{
    struct gpu_profile g;
    tu_gpu("A100-40GB", &g);
    const char *ok[] = {
        "3g.20gb,2g.10gb,1g.5gb,1g.5gb", /* an article's mixed example, docs/domain.md */
        "4g.20gb,3g.20gb",
        "7x1g.5gb",
        "3g.20gb,3g.20gb",
        "7g.40gb",
        "4g.20gb,2g.10gb,1g.5gb",
        "2g.10gb,2g.10gb,2g.10gb,1g.5gb",
        "3g.20gb,2g.10gb,2g.10gb",
        "4x1g.10gb",               /* double-memory 1g at 0, 2, 4, 6 */
        "1g.10gb,6x1g.5gb",        /* 1g.10gb must take slices 6-7 */
        "3g.20gb,1g.10gb,1g.10gb", /* 5 compute, all memory */
        "4g.20gb,1g.10gb,1g.10gb", /* 6 compute, all memory */
        "1g.5gb+me,6x1g.5gb",      /* one +me is fine */
        "3g.20gb,1g.10gb,1g.5gb,1g.5gb+me",
    };
    char why[SS_ERRLEN];
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        int is = legal(&g, ok[i], why, sizeof why);
        if (!is)
            fprintf(stderr, "\n  %s: %s\n", ok[i], why);
        CU_ASSERT(is);
    }
    /* same shapes on Hopper, with its names */
    tu_gpu("H100-80GB", &g);
    CU_ASSERT(legal(&g, "3g.40gb,2g.20gb,1g.10gb,1g.10gb", why, sizeof why));
    CU_ASSERT(legal(&g, "4x1g.20gb", why, sizeof why));
    tu_gpu("A100-80GB", &g); /* an article's A100-80GB layout, docs/domain.md */
    CU_ASSERT(legal(&g, "3g.40gb,2g.20gb,1g.10gb,1g.10gb", why, sizeof why));
}

static void test_named_illegal(void)
{
    struct gpu_profile g;
    tu_gpu("A100-40GB", &g);
    struct {
        const char *layout, *reason, *reason2;
    } bad[] = {
        {"4g.20gb,4g.20gb", "4g.20gb can only start at memory slice 0; two do not fit",
         "compute slices add up to 8, the GPU has 7"},
        {"4g.20gb,2g.10gb,2g.10gb", "compute slices add up to 8, the GPU has 7", NULL},
        {"8x1g.5gb", "1g.5gb can only start at memory slices 0-6; eight do not fit",
         "compute slices add up to 8, the GPU has 7"},
        {"1g.5gb+me,1g.5gb+me",
         "at most one +me (media extension) profile per GPU, the layout has 2", NULL},
        {"5x1g.10gb", "1g.10gb can only start at memory slices 0, 2, 4 and 6; five do not fit",
         "memory slices add up to 10, the GPU has 8"},
        {"3x3g.20gb", "3g.20gb can only start at memory slices 0 and 4; three do not fit", NULL},
        {"3g.20gb,3g.20gb,1g.5gb", "memory slices add up to 9, the GPU has 8", NULL},
        {"4x1g.10gb,1g.5gb", "memory slices add up to 9, the GPU has 8", NULL},
        {"7g.40gb,1g.5gb", "compute slices add up to 8, the GPU has 7",
         "memory slices add up to 9, the GPU has 8"},
        {"4x2g.10gb", "2g.10gb can only start at memory slices 0, 2 and 4; four do not fit",
         "compute slices add up to 8"},
    };
    char why[SS_ERRLEN];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CU_ASSERT(!legal(&g, bad[i].layout, why, sizeof why));
        TU_CHECK_CONTAINS(why, bad[i].reason);
        if (bad[i].reason2)
            TU_CHECK_CONTAINS(why, bad[i].reason2);
    }
    /* exactly one reason when only one rule is broken */
    CU_ASSERT(!legal(&g, "3g.20gb,3g.20gb,1g.5gb", why, sizeof why));
    CU_ASSERT_PTR_NULL(strchr(why, ';'));
    tu_gpu("H200-141GB", &g);
    CU_ASSERT(!legal(&g, "4g.71gb,4g.71gb", why, sizeof why));
    TU_CHECK_CONTAINS(why, "4g.71gb can only start at memory slice 0; two do not fit");
}

/* A profile table where the counting rules pass but no placement exists:
 * two 2-slice profiles that may only start at slice 0. */
static void test_placement_only_failure(void)
{
    char path[600];
    struct gpu_profile base;
    tu_gpu("A100-40GB", &base);
    char *text = tu_slurp(base.path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    /* give 2g.10gb a single start: then 2g + 2g cannot be placed */
    char *at = strstr(text, "\"name\": \"2g.10gb\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    char *starts = strstr(at, "\"starts\"");
    char *close = strchr(starts, ']');
    size_t head = (size_t)(starts - text);
    char *edited = ss_xmalloc(strlen(text) + 64);
    snprintf(edited, strlen(text) + 64, "%.*s\"starts\": [0%s", (int)head, text, close);
    snprintf(path, sizeof path, "%s", tu_write("one-start.json", edited));
    free(edited);
    free(text);
    struct gpu_profile g;
    tu_gpu(path, &g);
    char why[SS_ERRLEN];
    /* max_instances is still 3, so only the placement search can say no */
    CU_ASSERT(!legal(&g, "2g.10gb,2g.10gb", why, sizeof why));
    TU_CHECK_CONTAINS(why, "no placement keeps the memory slices apart (2 x 2g.10gb: 2 slices "
                           "starting at 0)");
}

/* ---- placement ------------------------------------------------------------- */

static void test_placement(void)
{
    struct gpu_profile g;
    tu_gpu("A100-40GB", &g);
    struct mig_layout l;
    char why[SS_ERRLEN];
    /* Where each instance starts (-1: not checked); the first checks the count too. */
    static const struct {
        const char *layout;
        int start[4];
    } cases[] = {
        /* NVIDIA's example: 3g at 4, 2g at 0, the two 1g at 2 and 3; input order kept */
        {"3g.20gb,2g.10gb,1g.5gb,1g.5gb", {4, 0, 2, 3}},
        {"1g.10gb,6x1g.5gb", {6, -1, -1, -1}},
        {"4g.20gb,3g.20gb", {0, 4, -1, -1}},
        /* a lone 3g goes where the rest stays most usable (tie: the first, 0) and
         * a 3g with a 1g leaves 1-3 to 1g profiles rather than 5-7 (slice 7 only
         * fits 1g.10gb) */
        {"3g.20gb,1g.5gb", {4, 0, -1, -1}},
        /* pins */
        {"1g.5gb@1,1g.5gb@5", {1, 5, -1, -1}},
        {"3g.20gb@0,1g.5gb", {0, -1, -1, -1}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CU_ASSERT_EQUAL_FATAL(tu_mig_placed(&g, cases[i].layout, &l, why), 0);
        if (i == 0)
            CU_ASSERT_EQUAL(l.n, 4);
        for (int k = 0; k < 4; k++)
            if (cases[i].start[k] >= 0)
                CU_ASSERT_EQUAL(l.start[k], cases[i].start[k]);
    }
    CU_ASSERT(l.start[1] >= 4); /* the unpinned 1g of the last: right of the pinned 3g */
    CU_ASSERT_EQUAL(tu_mig_placed(&g, "1g.5gb@7", &l, why), -1);
    CU_ASSERT_STRING_EQUAL(why, "1g.5gb cannot start at memory slice 7 (it starts at 0-6)");
    CU_ASSERT_EQUAL(tu_mig_placed(&g, "1g.5gb@1,2g.10gb@0", &l, why), -1);
    CU_ASSERT_STRING_EQUAL(why, "1g.5gb@1 and 2g.10gb@0 share memory slice 1");
    CU_ASSERT_EQUAL(tu_mig_placed(&g, "3g.20gb@0,4x1g.5gb", &l, why), -1);
    TU_CHECK_CONTAINS(why, "no placement keeps the memory slices apart with 3g.20gb@0");
    CU_ASSERT_EQUAL(tu_mig_placed(&g, "4g.20gb,4g.20gb", &l, why), -1);
    TU_CHECK_CONTAINS(why, "two do not fit");
}

/* Every placement mig_place returns, on every legal set of every GPU, uses
 * legal starts and no shared slice (checked here without the library). */
static void test_every_placement_valid(void)
{
    for (int i = 0; i < 4; i++) {
        struct gpu_profile g;
        tu_gpu(gpus[i], &g);
        struct mig_set *sets;
        int n = mig_layouts(&g, &sets);
        for (int k = 0; k < n; k++) {
            int prof[MIG_MAX_INST], np = 0;
            for (int p = 0; p < g.n_mig; p++)
                for (int c = 0; c < sets[k].count[p]; c++)
                    prof[np++] = p;
            struct mig_layout l;
            CU_ASSERT_EQUAL_FATAL(mig_place(&g, prof, NULL, np, NULL, &l, NULL, 0), 0);
            unsigned used = 0;
            for (int j = 0; j < l.n; j++) {
                const struct mig_profile *m = &g.mig[l.prof[j]];
                int ok = 0;
                for (int s = 0; s < m->n_starts; s++)
                    ok |= m->starts[s] == l.start[j];
                CU_ASSERT(ok);
                unsigned mask = ((1u << m->size) - 1u) << l.start[j];
                CU_ASSERT_EQUAL(used & mask, 0);
                used |= mask;
            }
        }
        free(sets);
    }
}

static void test_place_each_counts(void)
{
    struct gpu_profile g;
    tu_gpu("A100-40GB", &g);
    struct {
        const char *layout;
        int placements;
    } cases[] = {
        {"1g.5gb", 7},          {"3g.20gb", 2},        {"3g.20gb,3g.20gb", 1}, {"7x1g.5gb", 1},
        {"1g.10gb", 4},         {"3g.20gb,1g.5gb", 7}, /* 3g@0: 1g at 4-6; 3g@4: 1g at 0-3 */
        {"4g.20gb,4g.20gb", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int prof[64], n = tu_mig_list(&g, cases[i].layout, prof), count = 0;
        CU_ASSERT_EQUAL(mig_place_each(&g, prof, NULL, n, count_placements, &count),
                        cases[i].placements);
        CU_ASSERT_EQUAL(count, cases[i].placements);
    }
}

/* ---- shares, parsing ------------------------------------------------------- */

static void test_shares(void)
{
    struct gpu_profile g;
    tu_gpu("A100-40GB", &g);
    int p = mig_profile_index(&g, "1g.5gb");
    CU_ASSERT_DOUBLE_EQUAL(mig_compute_share(&g, p), 14.0 / 108, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mig_memory_share(&g, p), 1.0 / 8, 1e-12);
    p = mig_profile_index(&g, "7g.40gb"); /* 98 of 108 SMs: MIG costs 10 SMs */
    CU_ASSERT_DOUBLE_EQUAL(mig_compute_share(&g, p), 98.0 / 108, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mig_memory_share(&g, p), 1.0, 1e-12);
    p = mig_profile_index(&g, "1g.10gb");
    CU_ASSERT_DOUBLE_EQUAL(mig_memory_share(&g, p), 2.0 / 8, 1e-12);
    tu_gpu("H100-80GB", &g); /* not proportional to slices: 3g = 60 of 132 */
    CU_ASSERT_DOUBLE_EQUAL(mig_compute_share(&g, mig_profile_index(&g, "3g.40gb")), 60.0 / 132,
                           1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mig_compute_share(&g, mig_profile_index(&g, "1g.20gb")), 26.0 / 132,
                           1e-12);
    CU_ASSERT_TRUE(mig_profile_is_me(&g.mig[mig_profile_index(&g, "1g.10gb+me")]));
    CU_ASSERT_FALSE(mig_profile_is_me(&g.mig[mig_profile_index(&g, "1g.10gb")]));
}

static void test_parse_list(void)
{
    struct gpu_profile g;
    tu_gpu("A100-40GB", &g);
    int prof[64];
    CU_ASSERT_EQUAL(tu_mig_list(&g, " 3g.20gb , 2x1G.5GB,1g.5gb+me", prof), 4);
    CU_ASSERT_STRING_EQUAL(g.mig[prof[0]].name, "3g.20gb");
    CU_ASSERT_STRING_EQUAL(g.mig[prof[1]].name, "1g.5gb");
    CU_ASSERT_STRING_EQUAL(g.mig[prof[2]].name, "1g.5gb");
    CU_ASSERT_STRING_EQUAL(g.mig[prof[3]].name, "1g.5gb+me");
    int *p, *pin, n;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(mig_parse_list(&g, "3g.20gb,5g.20gb", &p, NULL, &n, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "unknown MIG profile \"5g.20gb\" (item 2 of \"3g.20gb,5g.20gb\"); "
                                "A100-40GB has 1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, 3g.20gb, "
                                "4g.20gb, 7g.40gb");
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_EQUAL(mig_parse_list(&g, "3g.20gb,,1g.5gb", &p, NULL, &n, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "empty MIG profile name (item 2 of \"3g.20gb,,1g.5gb\")");
    CU_ASSERT_EQUAL(mig_parse_list(&g, "0x1g.5gb", &p, NULL, &n, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "bad count in \"0x1g.5gb\"");
    CU_ASSERT_EQUAL(mig_parse_list(&g, "1g.5gb@2", &p, NULL, &n, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "a start position (@SLICE) is not allowed here");
    CU_ASSERT_EQUAL(mig_parse_list(&g, "2x1g.5gb@2", &p, &pin, &n, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "NxPROFILE cannot take one start");
    CU_ASSERT_EQUAL(mig_parse_list(&g, "1g.5gb@", &p, &pin, &n, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "bad start in \"1g.5gb@\"");
    CU_ASSERT_EQUAL(mig_parse_list(&g, "4097x1g.5gb", &p, NULL, &n, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "more than 4096 MIG instances");
    CU_ASSERT_EQUAL(mig_parse_list(&g, "1g.5gb@3,2g.10gb", &p, &pin, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(pin[0], 3);
    CU_ASSERT_EQUAL(pin[1], -1);
    free(p);
    free(pin);
    /* a count without "x" is part of the name, so it is an unknown profile */
    CU_ASSERT_EQUAL(mig_parse_list(&g, "41g.5gb", &p, NULL, &n, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "unknown MIG profile \"41g.5gb\"");
}

void test_mig_register(void)
{
    static const struct tu_test t[] = {
        {"legal layout counts match the brute force", test_layout_counts},
        {"layout order and maximal flags", test_layout_order_and_maximal},
        {"named legal layouts", test_named_legal},
        {"named illegal layouts and their reasons", test_named_illegal},
        {"a layout only the placement search rejects", test_placement_only_failure},
        {"placement and pins", test_placement},
        {"every placement is valid", test_every_placement_valid},
        {"placement enumeration counts", test_place_each_counts},
        {"compute and memory shares", test_shares},
        {"parse instance lists", test_parse_list},
        {NULL, NULL},
    };
    tu_add_suite("mig", t);
}
