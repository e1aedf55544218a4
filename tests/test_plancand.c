/* core/plancand.c: the placements a candidate is simulated in (pc_placement_*) against a
 * brute force over every assignment of tenants to GPUs, relabelled canonically; and counts
 * worked out by hand. */
#include "testutil.h"
#include "core/plancand.h"

#include <stdlib.h>
#include <string.h>

/* Brute force: every assignment in G^T with at most r a GPU, canonicalised (GPUs renumbered
 * in order of first use), counted once each. */
static long brute_count(int T, int G, int r)
{
    long total = 1, distinct = 0;
    for (int i = 0; i < T; i++)
        total *= G;
    char *seen = calloc((size_t)total, 1);
    for (long code = 0; code < total; code++) {
        int a[16], cnt[16] = {0}, map[16], next = 0, ok = 1;
        long c = code, canon = 0;
        for (int i = 0; i < T; i++, c /= G)
            a[i] = (int)(c % G);
        for (int g = 0; g < G; g++)
            map[g] = -1;
        for (int i = 0; i < T; i++) {
            if (map[a[i]] < 0)
                map[a[i]] = next++;
            ok &= ++cnt[a[i]] <= r;
        }
        for (int i = T - 1; i >= 0; i--)
            canon = canon * G + map[a[i]];
        if (ok && !seen[canon]) {
            seen[canon] = 1;
            distinct++;
        }
    }
    free(seen);
    return distinct;
}

static void test_against_brute_force(void)
{
    for (int T = 1; T <= 6; T++)
        for (int G = 1; G <= T; G++)
            for (int r = 1; r <= T; r++) {
                long want = brute_count(T, G, r);
                long got = pc_placement_count(T, G, r, 1000000);
                if (got != want)
                    fprintf(stderr, "\n  T=%d G=%d r=%d: %ld placements, brute force %ld\n", T, G,
                            r, got, want);
                CU_ASSERT_EQUAL(got, want);
            }
}

static void test_by_hand(void)
{
    /* Three tenants on two GPUs, two a GPU: who is alone — 3. Four on two, two each: the
     * partner of tenant 0 — 3. Four on three, two at most: 2+2 (3) and 2+1+1 (6) — 9. Four
     * on four, no limit: Bell(4) = 15. One GPU: the one placement. */
    CU_ASSERT_EQUAL(pc_placement_count(3, 2, 2, 100), 3);
    CU_ASSERT_EQUAL(pc_placement_count(4, 2, 2, 100), 3);
    CU_ASSERT_EQUAL(pc_placement_count(4, 3, 2, 100), 9);
    CU_ASSERT_EQUAL(pc_placement_count(4, 4, 4, 100), 15);
    CU_ASSERT_EQUAL(pc_placement_count(5, 1, 5, 100), 1);
    CU_ASSERT_EQUAL(pc_placement_count(5, 1, 4, 100), 0); /* five do not fit four slots */
    CU_ASSERT_EQUAL(pc_placement_count(4, 4, 4, 10), 11); /* stops at limit + 1 */
    /* The three placements of three tenants on two GPUs, in order: tenant 2, 1, 0 alone. */
    int g[3];
    static const int want[3][3] = {{0, 0, 1}, {0, 1, 0}, {0, 1, 1}};
    int k = 0;
    for (int ok = pc_placement_first(3, 2, 2, g); ok; ok = pc_placement_next(3, 2, 2, g), k++) {
        CU_ASSERT_FATAL(k < 3);
        CU_ASSERT(memcmp(g, want[k], sizeof g) == 0);
    }
    CU_ASSERT_EQUAL(k, 3);
}

void test_plancand_register(void)
{
    static const struct tu_test t[] = {
        {"placements equal a brute force over G^T assignments", test_against_brute_force},
        {"placements counted by hand", test_by_hand},
        {NULL, NULL},
    };
    tu_add_suite("plancand", t);
}
