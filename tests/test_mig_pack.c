/*
 * mig_pack (mig/mig_pack.c): packing MIG instance requests onto GPUs under best-fit,
 * first-fit and FGD, every GPU legal and every request where the result says.
 */
#include "calib/calib.h"
#include "mig/mig.h"
#include "testutil.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pack(const struct gpu_profile *g, const char *requests, enum mig_pack_policy pol,
                 int max_gpus, int arrival, struct mig_pack *r, int *req)
{
    int n = tu_mig_list(g, requests, req);
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
    tu_gpu("A100-40GB", &g);
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
    tu_gpu("A100-40GB", &g);
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
    tu_gpu("A100-40GB", &g);
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

void test_mig_pack_register(void)
{
    static const struct tu_test t[] = {
        {"pack mixed 1g/3g requests", test_pack_mixed_1g_3g},
        {"pack limits and order", test_pack_limits_and_order},
        {"pack fgd vs best-fit", test_pack_fgd_vs_best_fit},
        {"pack policy names", test_pack_policy_names},
        {NULL, NULL},
    };
    tu_add_suite("mig_pack", t);
}
