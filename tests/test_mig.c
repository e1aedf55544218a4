/*
 * Tests for mig: legal-layout counts against an independent brute force,
 * named legal and illegal layouts with their reasons, placement, resource
 * shares, parsing, hand-computed fragmentation, packing, and the
 * `sharesim mig` CLI end to end.
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

static void load(const char *name, struct gpu_profile *g)
{
    char err[SS_ERRLEN];
    int rc = cal_load(name, g, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* Parses a list that must be valid; returns n, fills prof (cap 64). */
static int list(const struct gpu_profile *g, const char *text, int *prof)
{
    int *p, n;
    char err[SS_ERRLEN];
    int rc = mig_parse_list(g, text, &p, NULL, &n, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_FATAL(n <= 64);
    memcpy(prof, p, sizeof *p * (size_t)n);
    free(p);
    return n;
}

/* mig_check on a layout string; why gets the reason. */
static int legal(const struct gpu_profile *g, const char *text, char *why, size_t whylen)
{
    int prof[64];
    int n = list(g, text, prof);
    return mig_check(g, prof, n, why, whylen) == 0;
}

#define ASSERT_CONTAINS(hay, needle)                                                               \
    do {                                                                                           \
        if (!strstr((hay), (needle)))                                                              \
            fprintf(stderr, "\n  %s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__,     \
                    (hay), (needle));                                                              \
        CU_ASSERT_PTR_NOT_NULL(strstr((hay), (needle)));                                           \
    } while (0)

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
        load(gpus[i], &g);
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
    load("A100-40GB", &g);
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
    load("A100-40GB", &g);
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
    load("H100-80GB", &g);
    CU_ASSERT(legal(&g, "3g.40gb,2g.20gb,1g.10gb,1g.10gb", why, sizeof why));
    CU_ASSERT(legal(&g, "4x1g.20gb", why, sizeof why));
    load("A100-80GB", &g); /* an article's A100-80GB layout, docs/domain.md */
    CU_ASSERT(legal(&g, "3g.40gb,2g.20gb,1g.10gb,1g.10gb", why, sizeof why));
}

static void test_named_illegal(void)
{
    struct gpu_profile g;
    load("A100-40GB", &g);
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
        ASSERT_CONTAINS(why, bad[i].reason);
        if (bad[i].reason2)
            ASSERT_CONTAINS(why, bad[i].reason2);
    }
    /* exactly one reason when only one rule is broken */
    CU_ASSERT(!legal(&g, "3g.20gb,3g.20gb,1g.5gb", why, sizeof why));
    CU_ASSERT_PTR_NULL(strchr(why, ';'));
    load("H200-141GB", &g);
    CU_ASSERT(!legal(&g, "4g.71gb,4g.71gb", why, sizeof why));
    ASSERT_CONTAINS(why, "4g.71gb can only start at memory slice 0; two do not fit");
}

/* A profile table where the counting rules pass but no placement exists:
 * two 2-slice profiles that may only start at slice 0. */
static void test_placement_only_failure(void)
{
    char path[600];
    struct gpu_profile base;
    load("A100-40GB", &base);
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
    load(path, &g);
    char why[SS_ERRLEN];
    /* max_instances is still 3, so only the placement search can say no */
    CU_ASSERT(!legal(&g, "2g.10gb,2g.10gb", why, sizeof why));
    ASSERT_CONTAINS(why, "no placement keeps the memory slices apart (2 x 2g.10gb: 2 slices "
                         "starting at 0)");
}

/* ---- placement ------------------------------------------------------------- */

static int placed(const struct gpu_profile *g, const char *text, struct mig_layout *l, char *why)
{
    int *prof, *pin, n;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(mig_parse_list(g, text, &prof, &pin, &n, err, sizeof err), 0);
    int rc = mig_place(g, prof, pin, n, NULL, l, why, SS_ERRLEN);
    free(prof);
    free(pin);
    return rc;
}

static void test_placement(void)
{
    struct gpu_profile g;
    load("A100-40GB", &g);
    struct mig_layout l;
    char why[SS_ERRLEN];
    /* NVIDIA's example: 3g at 4, 2g at 0, the two 1g at 2 and 3; input order kept */
    CU_ASSERT_EQUAL_FATAL(placed(&g, "3g.20gb,2g.10gb,1g.5gb,1g.5gb", &l, why), 0);
    CU_ASSERT_EQUAL(l.n, 4);
    CU_ASSERT_EQUAL(l.start[0], 4);
    CU_ASSERT_EQUAL(l.start[1], 0);
    CU_ASSERT_EQUAL(l.start[2], 2);
    CU_ASSERT_EQUAL(l.start[3], 3);
    CU_ASSERT_EQUAL_FATAL(placed(&g, "1g.10gb,6x1g.5gb", &l, why), 0);
    CU_ASSERT_EQUAL(l.start[0], 6);
    CU_ASSERT_EQUAL_FATAL(placed(&g, "4g.20gb,3g.20gb", &l, why), 0);
    CU_ASSERT_EQUAL(l.start[0], 0);
    CU_ASSERT_EQUAL(l.start[1], 4);
    /* a lone 3g goes where the rest stays most usable (tie: the first, 0) and
     * a 3g with a 1g leaves 1-3 to 1g profiles rather than 5-7 (slice 7 only
     * fits 1g.10gb) */
    CU_ASSERT_EQUAL_FATAL(placed(&g, "3g.20gb,1g.5gb", &l, why), 0);
    CU_ASSERT_EQUAL(l.start[0], 4);
    CU_ASSERT_EQUAL(l.start[1], 0);
    /* pins */
    CU_ASSERT_EQUAL_FATAL(placed(&g, "1g.5gb@1,1g.5gb@5", &l, why), 0);
    CU_ASSERT_EQUAL(l.start[0], 1);
    CU_ASSERT_EQUAL(l.start[1], 5);
    CU_ASSERT_EQUAL_FATAL(placed(&g, "3g.20gb@0,1g.5gb", &l, why), 0);
    CU_ASSERT_EQUAL(l.start[0], 0);
    CU_ASSERT(l.start[1] >= 4);
    CU_ASSERT_EQUAL(placed(&g, "1g.5gb@7", &l, why), -1);
    CU_ASSERT_STRING_EQUAL(why, "1g.5gb cannot start at memory slice 7 (it starts at 0-6)");
    CU_ASSERT_EQUAL(placed(&g, "1g.5gb@1,2g.10gb@0", &l, why), -1);
    CU_ASSERT_STRING_EQUAL(why, "1g.5gb@1 and 2g.10gb@0 share memory slice 1");
    CU_ASSERT_EQUAL(placed(&g, "3g.20gb@0,4x1g.5gb", &l, why), -1);
    ASSERT_CONTAINS(why, "no placement keeps the memory slices apart with 3g.20gb@0");
    CU_ASSERT_EQUAL(placed(&g, "4g.20gb,4g.20gb", &l, why), -1);
    ASSERT_CONTAINS(why, "two do not fit");
}

/* Every placement mig_place returns, on every legal set of every GPU, uses
 * legal starts and no shared slice (checked here without the library). */
static void test_every_placement_valid(void)
{
    for (int i = 0; i < 4; i++) {
        struct gpu_profile g;
        load(gpus[i], &g);
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
    load("A100-40GB", &g);
    struct {
        const char *layout;
        int placements;
    } cases[] = {
        {"1g.5gb", 7},          {"3g.20gb", 2},        {"3g.20gb,3g.20gb", 1}, {"7x1g.5gb", 1},
        {"1g.10gb", 4},         {"3g.20gb,1g.5gb", 7}, /* 3g@0: 1g at 4-6; 3g@4: 1g at 0-3 */
        {"4g.20gb,4g.20gb", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int prof[64], n = list(&g, cases[i].layout, prof), count = 0;
        CU_ASSERT_EQUAL(mig_place_each(&g, prof, NULL, n, count_placements, &count),
                        cases[i].placements);
        CU_ASSERT_EQUAL(count, cases[i].placements);
    }
}

/* ---- shares, parsing ------------------------------------------------------- */

static void test_shares(void)
{
    struct gpu_profile g;
    load("A100-40GB", &g);
    int p = mig_profile_index(&g, "1g.5gb");
    CU_ASSERT_DOUBLE_EQUAL(mig_compute_share(&g, p), 14.0 / 108, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mig_memory_share(&g, p), 1.0 / 8, 1e-12);
    p = mig_profile_index(&g, "7g.40gb"); /* 98 of 108 SMs: MIG costs 10 SMs */
    CU_ASSERT_DOUBLE_EQUAL(mig_compute_share(&g, p), 98.0 / 108, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mig_memory_share(&g, p), 1.0, 1e-12);
    p = mig_profile_index(&g, "1g.10gb");
    CU_ASSERT_DOUBLE_EQUAL(mig_memory_share(&g, p), 2.0 / 8, 1e-12);
    load("H100-80GB", &g); /* not proportional to slices: 3g = 60 of 132 */
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
    load("A100-40GB", &g);
    int prof[64];
    CU_ASSERT_EQUAL(list(&g, " 3g.20gb , 2x1G.5GB,1g.5gb+me", prof), 4);
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
    ASSERT_CONTAINS(err, "bad count in \"0x1g.5gb\"");
    CU_ASSERT_EQUAL(mig_parse_list(&g, "1g.5gb@2", &p, NULL, &n, err, sizeof err), -1);
    ASSERT_CONTAINS(err, "a start position (@SLICE) is not allowed here");
    CU_ASSERT_EQUAL(mig_parse_list(&g, "2x1g.5gb@2", &p, &pin, &n, err, sizeof err), -1);
    ASSERT_CONTAINS(err, "NxPROFILE cannot take one start");
    CU_ASSERT_EQUAL(mig_parse_list(&g, "1g.5gb@", &p, &pin, &n, err, sizeof err), -1);
    ASSERT_CONTAINS(err, "bad start in \"1g.5gb@\"");
    CU_ASSERT_EQUAL(mig_parse_list(&g, "4097x1g.5gb", &p, NULL, &n, err, sizeof err), -1);
    ASSERT_CONTAINS(err, "more than 4096 MIG instances");
    CU_ASSERT_EQUAL(mig_parse_list(&g, "1g.5gb@3,2g.10gb", &p, &pin, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(pin[0], 3);
    CU_ASSERT_EQUAL(pin[1], -1);
    free(p);
    free(pin);
    /* a count without "x" is part of the name, so it is an unknown profile */
    CU_ASSERT_EQUAL(mig_parse_list(&g, "41g.5gb", &p, NULL, &n, err, sizeof err), -1);
    ASSERT_CONTAINS(err, "unknown MIG profile \"41g.5gb\"");
}

static void test_parse_demand(void)
{
    struct gpu_profile g;
    load("A100-40GB", &g);
    struct mig_demand d;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(mig_parse_demand(&g, "3g.20gb:1, 1g.5gb:3,3g.20gb", &d, err, sizeof err),
                          0);
    CU_ASSERT_EQUAL(d.n, 2); /* table order, repeats added */
    CU_ASSERT_STRING_EQUAL(g.mig[d.prof[0]].name, "1g.5gb");
    CU_ASSERT_DOUBLE_EQUAL(d.p[0], 0.6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(d.p[1], 0.4, 1e-12);
    CU_ASSERT_EQUAL(mig_parse_demand(&g, "1g.5gb:-1", &d, err, sizeof err), -1);
    ASSERT_CONTAINS(err, "bad weight \"-1\" for 1g.5gb");
    CU_ASSERT_EQUAL(mig_parse_demand(&g, "9g.5gb:1", &d, err, sizeof err), -1);
    ASSERT_CONTAINS(err, "unknown MIG profile \"9g.5gb\" (item 1 of demand");
    CU_ASSERT_EQUAL(mig_parse_demand(&g, "1g.5gb,,", &d, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "empty MIG profile name (item 2 of demand \"1g.5gb,,\")");
    int prof[64], n = list(&g, "3g.20gb,1g.5gb,1g.5gb,1g.5gb", prof);
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
        CU_ASSERT_EQUAL_FATAL(placed(g, layout, &l, why), 0);
    } else {
        l.n = 0;
    }
    CU_ASSERT_EQUAL_FATAL(mig_parse_demand(g, demand, &d, why, sizeof why), 0);
    mig_frag(g, &l, &d, f);
}

static void test_frag_hand_computed(void)
{
    struct gpu_profile g;
    load("A100-40GB", &g);
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

/* ---- packing ----------------------------------------------------------------- */

static void pack(const struct gpu_profile *g, const char *requests, enum mig_pack_policy pol,
                 int max_gpus, int arrival, struct mig_pack *r, int *req)
{
    int n = list(g, requests, req);
    struct mig_pack_opts o = {.policy = pol, .max_gpus = max_gpus, .arrival_order = arrival};
    CU_ASSERT_EQUAL_FATAL(mig_pack(g, req, n, &o, r), 0);
}

static void layout_str(const struct gpu_profile *g, const struct mig_layout *l, char *buf,
                       size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < l->n && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s@%d", i ? " " : "", g->mig[l->prof[i]].name,
                              l->start[i]);
}

/* Each request sits where gpu_of/slot_of say, and each GPU is legal. */
static void check_consistent(const struct gpu_profile *g, const struct mig_pack *r, const int *req)
{
    int placed_n = 0;
    for (int i = 0; i < r->n_req; i++) {
        if (r->gpu_of[i] < 0)
            continue;
        placed_n++;
        CU_ASSERT_FATAL(r->gpu_of[i] < r->n_gpus);
        CU_ASSERT_EQUAL(r->gpu[r->gpu_of[i]].prof[r->slot_of[i]], req[i]);
    }
    CU_ASSERT_EQUAL(placed_n, r->n_req - r->n_unplaced);
    int total = 0;
    for (int x = 0; x < r->n_gpus; x++) {
        total += r->gpu[x].n;
        CU_ASSERT_EQUAL(mig_check(g, r->gpu[x].prof, r->gpu[x].n, NULL, 0), 0);
    }
    CU_ASSERT_EQUAL(total, placed_n);
}

static void test_pack_mixed_1g_3g(void)
{
    struct gpu_profile g;
    load("A100-40GB", &g);
    struct mig_pack r;
    int req[64];
    char buf[256];
    /* largest first pairs the 3g (3g+3g is legal), which strands a compute
     * slice, and the 1g overflow onto a third GPU */
    pack(&g, "2x3g.20gb,8x1g.5gb", MIG_PACK_BEST_FIT, 0, 0, &r, req);
    check_consistent(&g, &r, req);
    CU_ASSERT_EQUAL(r.n_gpus, 3);
    CU_ASSERT_EQUAL(r.lower_bound, 2);
    CU_ASSERT_EQUAL(r.n_unplaced, 0);
    layout_str(&g, &r.gpu[0], buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "3g.20gb@0 3g.20gb@4");
    layout_str(&g, &r.gpu[1], buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@3 1g.5gb@4 1g.5gb@5 1g.5gb@6");
    /* stranded: GPU 0 1c, GPU 1 1m (slice 7), GPU 2 (one 1g) nothing */
    CU_ASSERT_EQUAL(r.total.stranded_compute, 1);
    CU_ASSERT_EQUAL(r.total.stranded_memory, 1);
    CU_ASSERT_DOUBLE_EQUAL(r.total.stranded_compute_frac, 1.0 / 21, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.total.stranded_memory_frac, 1.0 / 24, 1e-12);
    mig_pack_free(&r);

    pack(&g, "2x3g.20gb,8x1g.5gb", MIG_PACK_FIRST_FIT, 0, 0, &r, req);
    CU_ASSERT_EQUAL(r.n_gpus, 3);
    mig_pack_free(&r);

    /* fgd: a second 3g next to the first would strand a compute slice, an
     * empty GPU would not, so the 3g spread and the 1g fill in behind them */
    pack(&g, "2x3g.20gb,8x1g.5gb", MIG_PACK_FGD, 0, 0, &r, req);
    check_consistent(&g, &r, req);
    CU_ASSERT_EQUAL(r.n_gpus, 2);
    CU_ASSERT_EQUAL(r.cluster_gpus, 2);
    for (int x = 0; x < 2; x++) {
        layout_str(&g, &r.gpu[x], buf, sizeof buf);
        CU_ASSERT_STRING_EQUAL(buf, "1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@3 3g.20gb@4");
        CU_ASSERT_DOUBLE_EQUAL(r.frag[x].fgd, 0, 1e-12);
    }
    CU_ASSERT_EQUAL(r.total.stranded_compute + r.total.stranded_memory, 0);
    mig_pack_free(&r);
}

static void test_pack_limits_and_order(void)
{
    struct gpu_profile g;
    load("A100-40GB", &g);
    struct mig_pack r;
    int req[64];
    /* two GPUs are not enough for best-fit: the last 1g is unplaced */
    pack(&g, "2x3g.20gb,8x1g.5gb", MIG_PACK_BEST_FIT, 2, 0, &r, req);
    check_consistent(&g, &r, req);
    CU_ASSERT_EQUAL(r.n_gpus, 2);
    CU_ASSERT_EQUAL(r.n_unplaced, 1);
    CU_ASSERT_EQUAL(r.gpu_of[9], -1); /* the last 1g.5gb in input order */
    mig_pack_free(&r);
    /* per-profile bound: three 4g need three GPUs */
    pack(&g, "3x4g.20gb", MIG_PACK_FGD, 0, 0, &r, req);
    CU_ASSERT_EQUAL(r.lower_bound, 3);
    CU_ASSERT_EQUAL(r.n_gpus, 3);
    mig_pack_free(&r);
    /* +me bound */
    pack(&g, "2x1g.5gb+me", MIG_PACK_BEST_FIT, 0, 0, &r, req);
    CU_ASSERT_EQUAL(r.lower_bound, 2);
    CU_ASSERT_EQUAL(r.n_gpus, 2);
    mig_pack_free(&r);
    /* in arrival order best-fit and first-fit differ: the 6th request, a
     * 1g.5gb, fits GPU 0 {3g, 1g.5gb, 1g.10gb} and GPU 1 {4g, 2g}; first-fit
     * takes GPU 0, best-fit GPU 1 (left with 0/7 + 1/8 free, GPU 0 1/7 + 0/8) */
    const char *arr = "3g.20gb,1g.5gb,1g.10gb,4g.20gb,2g.10gb,1g.5gb,1g.10gb,1g.5gb";
    pack(&g, arr, MIG_PACK_FIRST_FIT, 0, 1, &r, req);
    check_consistent(&g, &r, req);
    CU_ASSERT_EQUAL(r.gpu_of[5], 0);
    mig_pack_free(&r);
    pack(&g, arr, MIG_PACK_BEST_FIT, 0, 1, &r, req);
    check_consistent(&g, &r, req);
    CU_ASSERT_EQUAL(r.gpu_of[5], 1);
    mig_pack_free(&r);
    /* the same requests in any input order pack the same way largest first */
    struct mig_pack a, b;
    int ra[64], rb[64];
    pack(&g, "1g.5gb,3g.20gb,2g.10gb,1g.5gb,4g.20gb", MIG_PACK_BEST_FIT, 0, 0, &a, ra);
    pack(&g, "4g.20gb,1g.5gb,1g.5gb,2g.10gb,3g.20gb", MIG_PACK_BEST_FIT, 0, 0, &b, rb);
    CU_ASSERT_EQUAL_FATAL(a.n_gpus, b.n_gpus);
    for (int x = 0; x < a.n_gpus; x++) {
        char sa[256], sb[256];
        layout_str(&g, &a.gpu[x], sa, sizeof sa);
        layout_str(&g, &b.gpu[x], sb, sizeof sb);
        CU_ASSERT_STRING_EQUAL(sa, sb);
    }
    mig_pack_free(&a);
    mig_pack_free(&b);
    /* no requests: no GPUs */
    struct mig_pack_opts o = {.policy = MIG_PACK_FGD};
    CU_ASSERT_EQUAL(mig_pack(&g, req, 0, &o, &r), 0);
    CU_ASSERT_EQUAL(r.n_gpus, 0);
    mig_pack_free(&r);
}

/* fgd never does worse than the lower bound allows on exact fits: 6 x
 * (3g + 4 x 1g) on 6 GPUs, while best-fit needs 7. */
static void test_pack_fgd_vs_best_fit(void)
{
    struct gpu_profile g;
    load("A100-40GB", &g);
    struct mig_pack r;
    int req[64];
    pack(&g, "6x3g.20gb,24x1g.5gb", MIG_PACK_BEST_FIT, 0, 0, &r, req);
    CU_ASSERT_EQUAL(r.n_gpus, 7);
    CU_ASSERT_EQUAL(r.total.stranded_compute, 3);
    CU_ASSERT_EQUAL(r.total.stranded_memory, 3);
    mig_pack_free(&r);
    pack(&g, "6x3g.20gb,24x1g.5gb", MIG_PACK_FGD, 0, 0, &r, req);
    CU_ASSERT_EQUAL(r.n_gpus, 6);
    CU_ASSERT_EQUAL(r.lower_bound, 6);
    CU_ASSERT_EQUAL(r.total.free_compute + r.total.free_memory, 0);
    mig_pack_free(&r);
    /* fgd with too small a cluster reports what does not fit */
    pack(&g, "6x3g.20gb,24x1g.5gb", MIG_PACK_FGD, 5, 0, &r, req);
    CU_ASSERT_EQUAL(r.cluster_gpus, 5);
    CU_ASSERT_EQUAL(r.n_unplaced, 8);
    check_consistent(&g, &r, req);
    mig_pack_free(&r);
}

static void test_pack_policy_names(void)
{
    enum mig_pack_policy p;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(mig_pack_policy_parse("fgd", &p, err, sizeof err), 0);
    CU_ASSERT_EQUAL(p, MIG_PACK_FGD);
    CU_ASSERT_STRING_EQUAL(mig_pack_policy_name(MIG_PACK_BEST_FIT), "best-fit");
    CU_ASSERT_EQUAL(mig_pack_policy_parse("worst-fit", &p, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err,
                           "unknown packing policy \"worst-fit\": expected best-fit, first-fit or "
                           "fgd");
}

/* ---- CLI --------------------------------------------------------------------- */

#define CAP 65536
static char out[CAP], errb[CAP];

static void test_cli_help_and_usage(void)
{
    CU_ASSERT_EQUAL(tu_cli("mig --help", out, CAP, errb, CAP), 0);
    ASSERT_CONTAINS(out, "usage: sharesim mig SUBCOMMAND");
    const char *subs[] = {"profiles", "layouts", "check", "pack"};
    for (int i = 0; i < 4; i++) {
        char args[64];
        snprintf(args, sizeof args, "mig %s --help", subs[i]);
        CU_ASSERT_EQUAL(tu_cli(args, out, CAP, errb, CAP), 0);
        ASSERT_CONTAINS(out, "usage: sharesim mig");
    }
    CU_ASSERT_EQUAL(tu_cli("mig", out, CAP, errb, CAP), 2);
    CU_ASSERT_EQUAL(tu_cli("mig defrag --gpu A100-40GB", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb, "unknown subcommand \"defrag\"");
    CU_ASSERT_EQUAL(tu_cli("mig layouts", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb, "--gpu is required");
    CU_ASSERT_EQUAL(tu_cli("mig layouts --gpu A100-40GB --bogus", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb, "unknown option --bogus");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB --policy fgd 1g.5gb", out, CAP, errb, CAP),
                    2);
    ASSERT_CONTAINS(errb, "option --policy does not apply here");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB --gpus 2 1g.5gb", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb, "option --gpus does not apply here");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu V100 1g.5gb", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb, "unknown GPU \"V100\"");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb, "expected one LAYOUT argument, got 0");
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB --gpus 0 1g.5gb", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb,
                    "sharesim mig pack: --gpus: expected an integer in [1, 100000], got \"0\"");
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB --order random 1g.5gb", out, CAP, errb, CAP),
                    2);
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB --policy worst 1g.5gb", out, CAP, errb, CAP),
                    2);
    ASSERT_CONTAINS(errb, "unknown packing policy \"worst\"");
}

static void test_cli_profiles_layouts(void)
{
    CU_ASSERT_EQUAL(tu_cli("mig profiles --gpu H100-80GB", out, CAP, errb, CAP), 0);
    ASSERT_CONTAINS(out, "H100-80GB: 132 SMs without MIG");
    ASSERT_CONTAINS(out, "3g.40gb            3      4   60        0.4545       0.5000");
    CU_ASSERT_EQUAL(tu_cli("mig layouts --gpu A100-40GB", out, CAP, errb, CAP), 0);
    ASSERT_CONTAINS(out, "A100-40GB: 127 legal layouts, 44 maximal");
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
    ASSERT_CONTAINS(out, "is a legal layout on A100-40GB (compute 7/7, memory 8/8 slices)");
    ASSERT_CONTAINS(out, "0   3g.20gb          4     4-7       3   42        0.3889       0.5000");
    ASSERT_CONTAINS(out, "memory slices:  1  1  2  3  0  0  0  0");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB 4g.20gb,4g.20gb", out, CAP, errb, CAP), 1);
    ASSERT_CONTAINS(errb, "4g.20gb,4g.20gb is not a legal layout on A100-40GB: 4g.20gb can only "
                          "start at memory slice 0; two do not fit");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB 8x1g.5gb", out, CAP, errb, CAP), 1);
    ASSERT_CONTAINS(errb, "compute slices add up to 8, the GPU has 7");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB 3g.20gb,5g.20gb", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb, "unknown MIG profile \"5g.20gb\"");
    CU_ASSERT_EQUAL(tu_cli("mig check --gpu A100-40GB --demand 1g.5gb:1,3g.20gb:1 "
                           "1g.5gb@1,1g.5gb@5",
                           out, CAP, errb, CAP),
                    0);
    ASSERT_CONTAINS(out, "stranded: compute 0 (0.0%), memory 1 (12.5%) slices");
    ASSERT_CONTAINS(out, "FGD:      compute 2.500 (35.7%), memory 3.500 (43.8%) slices");
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
    ASSERT_CONTAINS(out, "GPUs used: 2 (lower bound 2, cluster of 2)");
    ASSERT_CONTAINS(out, "unplaced: none");
    ASSERT_CONTAINS(out, "1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@3 3g.20gb@4");
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB 2x3g.20gb,8x1g.5gb", out, CAP, errb, CAP), 0);
    ASSERT_CONTAINS(out, "policy best-fit, largest first");
    ASSERT_CONTAINS(out, "GPUs used: 3 (lower bound 2)");
    ASSERT_CONTAINS(out, "stranded: compute 1 (4.8%), memory 1 (4.2%) slices");
    /* too few GPUs: exit 1, unplaced listed */
    CU_ASSERT_EQUAL(
        tu_cli("mig pack --gpu A100-40GB --gpus 2 2x3g.20gb,8x1g.5gb", out, CAP, errb, CAP), 1);
    ASSERT_CONTAINS(out, "unplaced: 1 (1 x 1g.5gb)");
    ASSERT_CONTAINS(errb, "1 of 10 requests do not fit on 2 GPUs");
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
    ASSERT_CONTAINS(errb, "a start position (@SLICE) is not allowed here");
    CU_ASSERT_EQUAL(tu_cli("mig pack --gpu A100-40GB 1g.5gb 2g.10gb", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb, "expected one REQUESTS argument, got 2");
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
        {"parse demand mixes", test_parse_demand},
        {"fragmentation, hand-computed", test_frag_hand_computed},
        {"pack mixed 1g/3g requests", test_pack_mixed_1g_3g},
        {"pack limits and order", test_pack_limits_and_order},
        {"pack fgd vs best-fit", test_pack_fgd_vs_best_fit},
        {"pack policy names", test_pack_policy_names},
        {"cli help and usage errors", test_cli_help_and_usage},
        {"cli profiles and layouts", test_cli_profiles_layouts},
        {"cli check", test_cli_check},
        {"cli pack", test_cli_pack},
        {NULL, NULL},
    };
    tu_add_suite("mig", t);
}
