/* core/plancand.c: the placements a candidate is simulated in (pc_placement_*) against a
 * brute force over every assignment of tenants to GPUs, relabelled canonically; and counts
 * worked out by hand. */
#include "testutil.h"
#include "core/plancand.h"

#include <stdio.h>
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

/* Issue 31: `plan` on 4,096 tenants aborted on an assertion (T <= 64) when a pruned candidate
 * asked for its first placement; and walking every restricted growth string to find the valid
 * ones would never reach the first at that size. The enumeration now steps from valid to valid,
 * O(T + G) a step, for any T. */
static void test_many_tenants(void)
{
    enum { T = 4096 };
    int *g = calloc(T, sizeof *g);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL(pc_placement_first(T, T - 1, 2, g), 1);
    int ok = 1;
    for (int i = 0; i < T; i++)
        ok &= g[i] == i / 2; /* the lowest GPU with room first: pairs */
    CU_ASSERT(ok);
    /* The next one moves the last tenant to a GPU of its own. */
    CU_ASSERT_EQUAL(pc_placement_next(T, T - 1, 2, g), 1);
    CU_ASSERT(g[T - 2] == T / 2 - 1 && g[T - 1] == T / 2);
    CU_ASSERT_EQUAL(pc_placement_count(T, T - 1, 2, 64), 65); /* stops at limit + 1, at once */
    CU_ASSERT_EQUAL(pc_placement_count(T, 2048, 2, 64), 65);  /* every GPU full: 4,095!! pairings */
    CU_ASSERT_EQUAL(pc_placement_count(T, 2047, 2, 64), 0);   /* 4,096 do not fit 4,094 slots */
    CU_ASSERT_EQUAL(pc_placement_first(T, 2047, 2, g), 0);
    CU_ASSERT_EQUAL(pc_placement_first(T, 100000, T, g), 1); /* more GPUs than tenants */
    CU_ASSERT_EQUAL(g[T - 1], 0);
    free(g);
    /* Twelve tenants on eleven GPUs, two at most: every involution of 12 but the identity (which
     * needs twelve GPUs), 140,152 - 1. */
    CU_ASSERT_EQUAL(pc_placement_count(12, 11, 2, 1000000), 140151);
    /* Twelve on six, two each: perfect matchings, 11!! = 10,395. */
    CU_ASSERT_EQUAL(pc_placement_count(12, 6, 2, 100000), 10395);
}

/* The same through `sharesim plan`: 4,096 tenants (SCN_MAX_TENANTS) plan, each shared kind's
 * candidates pruned with their reason, in about a second; 4,097 are refused at load. */
static void test_plan_4096_tenants(void)
{
    for (int T = 4096; T <= 4097; T++) {
        size_t cap = 200 + (size_t)T * 200;
        char *text = malloc(cap), *p = text;
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        p += sprintf(p, "{\"name\": \"many\", \"gpu\": \"A100-80GB\", \"seed\": 1, \"stop\": "
                        "{\"duration_s\": 2}, \"strategies\": [{\"name\": \"x\", \"kind\": "
                        "\"exclusive\"}], \"tenants\": [");
        for (int i = 0; i < T; i++)
            p += sprintf(p,
                         "%s{\"name\": \"t%d\", \"arrival\": {\"process\": \"poisson\", "
                         "\"rate_per_s\": 1}, \"work\": {\"dist\": \"exponential\", "
                         "\"mean_ms\": 1}, \"sla\": {\"p99_ms\": 50}}",
                         i ? ", " : "", i);
        strcpy(p, "]}");
        char *path = tu_write("many-tenants.json", text);
        free(text);
        char args[600], err[4096];
        static char out[1 << 20];
        snprintf(args, sizeof args, "plan '%s'", path);
        int rc = tu_cli(args, out, sizeof out, err, sizeof err);
        if (T == 4096) {
            CU_ASSERT(rc == 0 || rc == 1); /* planned: met or not, never an abort */
            TU_CHECK_CONTAINS(out, "4096 tenants on A100-80GB");
            TU_CHECK_CONTAINS(out, "4096 tenants: too many placements of their pods to simulate");
        } else {
            CU_ASSERT_EQUAL(rc, 2);
            TU_CHECK_CONTAINS(err, "more than 4096 tenants");
        }
    }
}

void test_plancand_register(void)
{
    static const struct tu_test t[] = {
        {"placements equal a brute force over G^T assignments", test_against_brute_force},
        {"placements counted by hand", test_by_hand},
        {"4,096 tenants: first, next and counts without walking invalid strings",
         test_many_tenants},
        {"plan on 4,096 tenants runs, 4,097 are refused at load", test_plan_4096_tenants},
        {NULL, NULL},
    };
    tu_add_suite("plancand", t);
}
