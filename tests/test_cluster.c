#define _XOPEN_SOURCE 700 /* realpath */
/*
 * Tests for the cluster simulator (sim/cluster/, docs/cluster.md): Go's generator against
 * values Go 1.19 printed, every placement policy's score and choice on small clusters
 * computed by hand, the FGD fragment amount and score of a node by hand, conservation of
 * pods, the openb comparison with the FGD simulator's committed results (seed 42), the
 * same output for any --jobs, and bad input.
 */
#include "testutil.h"
#include "base/util.h"
#include "calib/calib.h"
#include "cluster/cl_engine.h"
#include "cluster/cl_mig.h"
#include "cluster/cl_place.h"
#include "cluster/cl_rand.h"
#include "cluster/cl_report.h"
#include "cluster/cluster.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Go's math/rand --------------------------------------------------------------------- */

/* Values printed by Go 1.19 (math/rand, rand.New(rand.NewSource(seed))). */
static void test_rand_matches_go(void)
{
    const uint64_t *c = cl_rand_cooked();
    /* rngCooked[0], [1] and [606] of Go's rng.go, recomputed by the jump-ahead */
    CU_ASSERT_EQUAL((int64_t)c[0], -4181792142133755926LL);
    CU_ASSERT_EQUAL((int64_t)c[1], -4576982950128230565LL);
    CU_ASSERT_EQUAL((int64_t)c[606], 4152330101494654406LL);
    struct cl_rand r;
    cl_rand_seed(&r, 42);
    int64_t a = cl_rand_int63(&r), b = cl_rand_int63(&r), d = cl_rand_int63(&r);
    CU_ASSERT_EQUAL(a, 3440579354231278675LL);
    CU_ASSERT_EQUAL(b, 608747136543856411LL);
    CU_ASSERT_EQUAL(d, 5571782338101878760LL);
    cl_rand_seed(&r, 42);
    CU_ASSERT_EQUAL(cl_rand_int(&r), 3440579354231278675LL);
    int64_t i1 = cl_rand_intn(&r, 8152), i2 = cl_rand_intn(&r, 8152), i3 = cl_rand_intn(&r, 7),
            i4 = cl_rand_intn(&r, 1 << 20);
    CU_ASSERT_EQUAL(i1, 4315);
    CU_ASSERT_EQUAL(i2, 4996);
    CU_ASSERT_EQUAL(i3, 1);
    CU_ASSERT_EQUAL(i4, 776159);
    int sh[10], want_sh[10] = {6, 4, 1, 0, 5, 8, 2, 9, 7, 3};
    for (int i = 0; i < 10; i++)
        sh[i] = i;
    cl_rand_shuffle(&r, 10, sh);
    CU_ASSERT_EQUAL(memcmp(sh, want_sh, sizeof sh), 0);
    int pm[10], want_pm[10] = {4, 8, 5, 1, 0, 9, 7, 2, 3, 6};
    cl_rand_perm(&r, 10, pm);
    CU_ASSERT_EQUAL(memcmp(pm, want_pm, sizeof pm), 0);
    cl_rand_seed(&r, 0); /* Go maps seed 0 to 89482311 */
    CU_ASSERT_EQUAL(cl_rand_int63(&r), 8717895732742165505LL);
    cl_rand_seed(&r, -5);
    CU_ASSERT_EQUAL(cl_rand_int63(&r), 1811683815564572222LL);
    cl_rand_seed(&r, 51);
    uint64_t s = 0;
    for (int i = 0; i < 1000000; i++)
        s = s * 31 + (uint64_t)cl_rand_int63(&r);
    CU_ASSERT_EQUAL(s, 4187334381531480510ULL);
    cl_rand_seed(&r, 43);
    static int big[8152];
    for (int i = 0; i < 8152; i++)
        big[i] = i;
    cl_rand_shuffle(&r, 8152, big);
    CU_ASSERT(big[0] == 5065 && big[1] == 3444 && big[8151] == 222);
    static int perm[1213];
    cl_rand_perm(&r, 1213, perm);
    CU_ASSERT(perm[0] == 524 && perm[1] == 241 && perm[1212] == 846);
}

/* ---- small clusters built by hand ---------------------------------------------------------- */

/* Nodes of model "A": cpu (milli), GPUs; memory 100000 MiB each. */
static void mk_cluster(struct cl_cluster *c, int n, const int *cpu, const int *gpus)
{
    memset(c, 0, sizeof *c);
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(cl_model_add(c, "A", err, sizeof err), 0);
    c->n_nodes = n;
    c->node = ss_xcalloc((size_t)n, sizeof *c->node);
    for (int i = 0; i < n; i++) {
        snprintf(c->node[i].name, sizeof c->node[i].name, "n%d", i);
        c->node[i].cpu_milli = cpu[i];
        c->node[i].mem_mib = 100000;
        c->node[i].n_gpu = gpus[i];
        c->node[i].model = gpus[i] ? 0 : -1;
        c->node[i].mig = -1;
    }
    cl_cluster_totals(c);
}

static struct cl_pod mk_pod(const char *name, int cpu, int num, int milli)
{
    struct cl_pod p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", name);
    p.cpu_milli = cpu;
    p.mem_mib = 100;
    p.num_gpu = num;
    p.gpu_milli = num ? milli : 0;
    p.mig_prof = -1;
    return p;
}

/*
 * The workload that sets the typical pods: two pods of (2 CPUs, half a GPU) and one of
 * (1 CPU, a whole GPU). With 3 pods the 95 % threshold (2.85 pods) keeps both kinds, so
 * the weights are 2/3 and 1/3. The extra pods (index 3..) are the ones the tests place.
 */
static void mk_workload(struct cl_workload *w, const struct cl_pod *extra, int n_extra)
{
    memset(w, 0, sizeof *w);
    w->n = 3 + n_extra;
    w->pod = ss_xcalloc((size_t)w->n, sizeof *w->pod);
    w->pod[0] = mk_pod("a0", 2000, 1, 500);
    w->pod[1] = mk_pod("a1", 2000, 1, 500);
    w->pod[2] = mk_pod("b0", 1000, 1, 1000);
    for (int i = 0; i < n_extra; i++)
        w->pod[3 + i] = extra[i];
    cl_workload_classes(w);
}

static void typical_of_first3(const struct cl_workload *w, struct cl_typical *tp)
{
    struct cl_workload w3 = *w;
    w3.n = 3;
    cl_typical_build(&w3, 0.95, tp);
}

static void test_typical_pods(void)
{
    struct cl_workload w;
    mk_workload(&w, NULL, 0);
    struct cl_typical tp;
    cl_typical_build(&w, 0.95, &tp);
    CU_ASSERT_EQUAL(tp.n, 2);
    CU_ASSERT_EQUAL(tp.t[0].gpu_milli, 500); /* most popular first */
    CU_ASSERT_EQUAL(tp.t[0].count, 2);
    CU_ASSERT_DOUBLE_EQUAL(tp.t[0].freq, 2.0 / 3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(tp.t[1].freq, 1.0 / 3, 1e-15);
    CU_ASSERT_EQUAL(tp.count_sum, 3);
    cl_typical_free(&tp);
    /* 60 %: 1.8 pods are covered by the first kind alone, whose weight becomes 1 */
    cl_typical_build(&w, 0.60, &tp);
    CU_ASSERT_EQUAL(tp.n, 1);
    CU_ASSERT_DOUBLE_EQUAL(tp.t[0].freq, 1.0, 1e-15);
    CU_ASSERT_EQUAL(tp.count_sum, 2);
    cl_typical_free(&tp);
    cl_workload_free(&w);
}

/* The FGD fragment amount and score of one node, by hand (see the comments). */
static void test_fgd_by_hand(void)
{
    int cpu[1] = {16000}, gpus[1] = {4};
    struct cl_cluster c;
    mk_cluster(&c, 1, cpu, gpus);
    struct cl_pod extra[1] = {mk_pod("p", 1000, 1, 300)};
    struct cl_workload w;
    mk_workload(&w, extra, 1);
    struct cl_typical tp;
    typical_of_first3(&w, &tp);
    /* GPU-milli left 1000, 300, 700, 1000 (CPU is plentiful for every typical pod).
     * Half-GPU pods (weight 2/3) fit on three GPUs; the 300 left on GPU 1 is theirs to
     * waste: 2/3 x 300 = 200. Whole-GPU pods (1/3) fit on GPUs 0 and 3; 300 + 700 is
     * theirs: 1/3 x 1000 = 333.33. F = 533.33, exactly 1600 / 3. */
    int16_t left[4] = {1000, 300, 700, 1000};
    double f;
    long long num;
    cl_frag_node(&tp, 0, 15000, left, 4, &f, &num);
    CU_ASSERT_DOUBLE_EQUAL(f, 1600.0 / 3, 1e-9);
    CU_ASSERT_EQUAL(num, 2 * 300 + 1 * 1000);
    /* CPU too short for the half-GPU pods (1500 < 2000): they count everything (3000),
     * whole-GPU pods still 1000: (2 x 3000 + 1000) / 3 */
    cl_frag_node(&tp, 0, 1500, left, 4, &f, &num);
    CU_ASSERT_EQUAL(num, 7000);
    /* A CPU-only typical pod would count all free GPU-milli; no GPU left: nothing. */
    int16_t none[4] = {0, 0, 0, 0};
    cl_frag_node(&tp, 0, 15000, none, 4, &f, &num);
    CU_ASSERT_EQUAL(num, 0);

    /* Score of a 300-milli pod on that node, each GPU in turn:
     *   GPU 0 -> 700,300,700,1000: 2/3 x 300 + 1/3 x 1700 = 766.67, delta -233.33, 44
     *   GPU 1 -> 1000,0,700,1000:  0 + 1/3 x 700 = 233.33, delta +300, int(100 s(0.3)) = 57
     *   GPU 2 -> 1000,300,400,1000: 2/3 x 700 + 1/3 x 700 = 700, delta -166.67, 45
     *   GPU 3 is GPU 0 again. Best: GPU 1, 57. */
    struct cl_place_ctx x = {&c, &tp, cl_fragmemo_new(&tp, 1024)};
    struct cl_nstate s;
    cl_nstate_init(&c.node[0], &s);
    s.gpu_left[1] = 300;
    s.gpu_left[2] = 700;
    s.cpu_left = 16000;
    int g = -2;
    CU_ASSERT_EQUAL(cl_fgd_score(&x, &c.node[0], &s, &extra[0], &g), 57);
    CU_ASSERT_EQUAL(g, 1);
    CU_ASSERT_DOUBLE_EQUAL(100 / (1 + exp(-0.3)), 57.444, 1e-3);
    /* a whole GPU: Sub takes a free GPU -> 1000,300,700,0: 2/3 x 300 + 1/3 x 1000 = 533.33,
     * unchanged: int(100 s(0)) = 50 */
    struct cl_pod whole = mk_pod("w", 1000, 1, 1000);
    CU_ASSERT_EQUAL(cl_fgd_score(&x, &c.node[0], &s, &whole, &g), 50);
    cl_fragmemo_free(x.memo);
    cl_typical_free(&tp);
    cl_workload_free(&w);
    cl_cluster_free(&c);
}

/* Three empty nodes: n0 8 CPUs 2 GPUs, n1 16 CPUs 4 GPUs, n2 4 CPUs 1 GPU; one pod of
 * 2 CPUs and half a GPU. Scores by hand, per policy:
 *   bestfit  n0 int(100 (1 - (6000/128000 + 1500/8000) / 2)) = 88, n1 72, n2 96   -> n2
 *   dotprod  n0 int(100 (1 - (8000 2000/128000^2 + 2000 500/8000^2) / 2)) = 99,
 *            n1 98, n2 99: n0 and n2 tie                                          -> rank
 *   packing  idle nodes: max(33 - GPUs, GPUs): n0 31, n1 29, n2 32                  -> n2
 *   clustering idle nodes: 25 + 25 (8000 - left) / 8000: n0 43, n1 37, n2 46        -> n2
 *   fgd      every node's F goes 0 -> 166.67 (the half left strands whole-GPU pods,
 *            1/3 x 500): int(100 s(-1/6)) = 45 everywhere                          -> rank */
static int place_one(const struct cl_policy *pol, const int *rank, int *gpu_out)
{
    int cpu[3] = {8000, 16000, 4000}, gpus[3] = {2, 4, 1};
    struct cl_cluster c;
    mk_cluster(&c, 3, cpu, gpus);
    struct cl_pod extra[1] = {mk_pod("p", 2000, 1, 500)};
    struct cl_workload w;
    mk_workload(&w, extra, 1);
    struct cl_typical tp;
    typical_of_first3(&w, &tp);
    struct cl_engine *e = cl_engine_new(&c, &w, &tp, pol, 7);
    if (rank)
        cl_engine_set_ranks(e, rank);
    unsigned mask = 0;
    int node = cl_engine_place(e, &w.pod[3], &mask);
    *gpu_out = mask ? __builtin_ctz(mask) : -1;
    /* conservation of the node's resources */
    const struct cl_nstate *s = cl_engine_node(e, node);
    CU_ASSERT_EQUAL(s->cpu_left, cpu[node] - 2000);
    CU_ASSERT_EQUAL(cl_engine_used_milli(e), 500);
    CU_ASSERT_EQUAL(s->aff[0], 1);
    cl_engine_free(e);
    cl_typical_free(&tp);
    cl_workload_free(&w);
    cl_cluster_free(&c);
    return node;
}

static void test_policies_by_hand(void)
{
    int g;
    CU_ASSERT_EQUAL(place_one(&cl_policy_bestfit, NULL, &g), 2);
    CU_ASSERT_EQUAL(g, 0);
    CU_ASSERT_EQUAL(place_one(&cl_policy_packing, NULL, &g), 2);
    CU_ASSERT_EQUAL(place_one(&cl_policy_clustering, NULL, &g), 2);
    /* ties go to the lowest rank */
    int id[3] = {0, 1, 2}, rev[3] = {2, 1, 0};
    CU_ASSERT_EQUAL(place_one(&cl_policy_dotprod, id, &g), 0);
    CU_ASSERT_EQUAL(place_one(&cl_policy_dotprod, rev, &g), 2);
    CU_ASSERT_EQUAL(place_one(&cl_policy_fgd, id, &g), 0);
    CU_ASSERT_EQUAL(place_one(&cl_policy_fgd, rev, &g), 2);
    int mid[3] = {1, 0, 2};
    CU_ASSERT_EQUAL(place_one(&cl_policy_fgd, mid, &g), 1);
    /* random: Go's Intn(3) on the engine's generator seeded 7, over n0, n1, n2; then the
     * reservoir over the chosen node's GPUs (Intn(1), Intn(2), ...) */
    struct cl_rand r;
    cl_rand_seed(&r, 7);
    int want = (int)cl_rand_intn(&r, 3);
    int ngpu = want == 0 ? 2 : want == 1 ? 4 : 1, pick = -1;
    for (int k = 0; k < ngpu; k++)
        if (cl_rand_intn(&r, k + 1) == 0)
            pick = k;
    CU_ASSERT_EQUAL(place_one(&cl_policy_random, NULL, &g), want);
    CU_ASSERT_EQUAL(g, pick);
}

/* Scores of each policy on a used node, by hand: n0 4 GPUs with 1000, 300, 700, 1000 left
 * (two shared pods on GPUs 1 and 2), 10 CPUs left; a pod of 1 CPU and 300 milli. */
static void test_scores_on_used_node(void)
{
    int cpu[1] = {16000}, gpus[1] = {4};
    struct cl_cluster c;
    mk_cluster(&c, 1, cpu, gpus);
    struct cl_pod extra[3] = {mk_pod("u1", 3000, 1, 700), mk_pod("u2", 3000, 1, 300),
                              mk_pod("p", 1000, 1, 300)};
    struct cl_workload w;
    mk_workload(&w, extra, 3);
    struct cl_typical tp;
    typical_of_first3(&w, &tp);
    struct cl_place_ctx x = {&c, &tp, cl_fragmemo_new(&tp, 1024)};
    struct cl_nstate s;
    cl_nstate_init(&c.node[0], &s);
    s.gpu_left[1] = 300;
    s.gpu_left[2] = 700;
    s.cpu_left = 10000;
    s.aff[0] = 2;
    s.n_pods = 2;
    const struct cl_pod *p = &w.pod[5];
    /* packing: the GPU it takes is the one with 300 left (ascending), not free:
     * 100 - (300 x 100 / 1000) / 10 = 97 */
    CU_ASSERT_EQUAL(cl_policy_packing.score(&x, &c.node[0], &s, p), 97);
    /* clustering: only shared pods here, 3000 left: 75 + 25 x 5000 / 8000 = 75 + 15 */
    CU_ASSERT_EQUAL(cl_policy_clustering.score(&x, &c.node[0], &s, p), 90);
    /* a whole-GPU pod there: other kinds only: 15 */
    struct cl_pod whole = mk_pod("w", 1000, 1, 1000);
    CU_ASSERT_EQUAL(cl_policy_clustering.score(&x, &c.node[0], &s, &whole), 15);
    /* packing for it: takes one free GPU on a used node: max(50 - 1, 33) */
    CU_ASSERT_EQUAL(cl_policy_packing.score(&x, &c.node[0], &s, &whole), 49);
    /* bestfit: int(100 (1 - (9000/128000 + 2700/8000) / 2)) = int(79.609) */
    CU_ASSERT_EQUAL(cl_policy_bestfit.score(&x, &c.node[0], &s, p), 79);
    /* dotprod: int(100 (1 - (10000 1000/128000^2 + 3000 300/8000^2) / 2)) = int(99.266) */
    CU_ASSERT_EQUAL(cl_policy_dotprod.score(&x, &c.node[0], &s, p), 99);
    /* GPU choice: best fit takes GPU 1 (300 left, the tightest); FGD too (score 57) */
    int out[1];
    cl_gpus_best_fit(&x, &c.node[0], &s, p, NULL, out);
    CU_ASSERT_EQUAL(out[0], 1);
    cl_policy_fgd.gpus(&x, &c.node[0], &s, p, NULL, out);
    CU_ASSERT_EQUAL(out[0], 1);
    /* whole GPUs: the first free ones */
    struct cl_pod two = mk_pod("t", 1000, 2, 1000);
    int o2[2];
    cl_gpus_first_free(&c.node[0], &s, &two, o2);
    CU_ASSERT(o2[0] == 0 && o2[1] == 3);
    /* the filter: 2 whole GPUs fit, 3 do not; 800 milli fits nowhere */
    CU_ASSERT(cl_fits(&c.node[0], &s, &two));
    struct cl_pod three = mk_pod("t3", 1000, 3, 1000), big = mk_pod("b", 1000, 1, 800);
    s.gpu_left[0] = 700;
    CU_ASSERT(!cl_fits(&c.node[0], &s, &three));
    s.gpu_left[3] = 700;
    CU_ASSERT(!cl_fits(&c.node[0], &s, &big));
    cl_fragmemo_free(x.memo);
    cl_typical_free(&tp);
    cl_workload_free(&w);
    cl_cluster_free(&c);
}

/* ---- end to end ------------------------------------------------------------------------------ */

static const char *NODES_CSV = "sn,cpu_milli,memory_mib,gpu,model\n"
                               "node-b,16000,65536,2,T4\n"
                               "node-a,32000,131072,4,V100\n"
                               "node-c,8000,32768,0,\n";

static const char *PODS_CSV =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
    "p00,4000,8192,1,500,,LS,Running,0,100,0\n"
    "p01,4000,8192,1,1000,V100,LS,Running,10,50,10\n"
    "p02,2000,4096,0,0,,BE,Running,20,300,20\n"
    "p03,8000,16384,2,1000,,LS,Running,30,200,30\n"
    "p04,4000,8192,1,250,T4|V100,LS,Running,40,400,40\n"
    "p05,16000,32768,4,1000,,LS,Running,45,500,45\n"
    "p06,4000,8192,1,750,,LS,Running,60,90,60\n"
    "p07,1000,1024,0,0,,BE,Running,70,80,70\n";

static char *scenario(const char *name, const char *extra)
{
    char *nodes = tu_write("nodes.csv", NODES_CSV);
    char *pods = tu_write("pods.csv", PODS_CSV);
    char text[2048];
    snprintf(text, sizeof text,
             "{\"cluster\": {\"nodes\": \"%s\", \"pods\": \"%s\", \"seeds\": [1, 2]%s}}", nodes,
             pods, extra);
    return tu_write(name, text);
}

static cJSON *run_json(const char *scn, const char *opts)
{
    char cmd[1024], out[1 << 16], errb[4096];
    char json[600];
    snprintf(json, sizeof json, "%s/out.json", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "cluster %s --quiet --json %s %s", scn, json, opts);
    int rc = tu_cli(cmd, out, sizeof out, errb, sizeof errb);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc)
        fprintf(stderr, "\n%s\n", errb);
    char *txt = tu_slurp(json);
    cJSON *doc = txt ? cJSON_Parse(txt) : NULL;
    free(txt);
    return doc;
}

static double jnum(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* arrived = placed + failed + pending, in every experiment, every sample, both modes. */
static void test_conservation(void)
{
    const char *extras[] = {
        ", \"mode\": \"inflate\", \"inflate\": {\"tune\": 2.0}",
        ", \"mode\": \"replay\", \"replay\": {\"unplaced\": \"fail\", \"sample_s\": 25}",
        ", \"mode\": \"replay\", \"replay\": {\"unplaced\": \"wait\", \"sample_s\": 25}",
    };
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "cons%d.json", k);
        cJSON *doc = run_json(scenario(name, extras[k]), "");
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        const cJSON *ex = cJSON_GetObjectItemCaseSensitive(doc, "experiments");
        CU_ASSERT_EQUAL(cJSON_GetArraySize(ex), 12); /* 6 policies x 2 seeds */
        int waited = 0;
        for (const cJSON *e = ex->child; e; e = e->next) {
            double a = jnum(e, "arrived"), p = jnum(e, "placed"), f = jnum(e, "failed"),
                   q = jnum(e, "pending");
            CU_ASSERT_EQUAL(a, p + f + q);
            CU_ASSERT(a >= 8);
            if (k > 0) {
                CU_ASSERT_EQUAL(a, 8);
                CU_ASSERT_EQUAL(q, 0); /* every waiting pod ran or was deleted */
            }
            waited += jnum(e, "waited") > 0;
            const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "samples");
            for (const cJSON *r = s ? s->child : NULL; r; r = r->next)
                CU_ASSERT_EQUAL(jnum(r, "arrived"),
                                jnum(r, "placed") + jnum(r, "failed") + jnum(r, "pending"));
        }
        if (k == 2) /* p05 (4 GPUs at t=45) must wait for p01 to leave node-a at t=50 */
            CU_ASSERT(waited > 0);
        cJSON_Delete(doc);
    }
}

/* The FGD simulator's committed results (experiments/analysis/expected_results,
 * analysis_allo_discrete.csv, openb_pod_list_default, tune 1.3, seed 42) at arrived
 * 50, 90, 95, 100, 110, 130 %, for the five policies without random draws. */
static void test_openb_matches_reference(void)
{
    if (tu_under_valgrind())
        return;
    static const struct {
        const char *label;
        double v[6];
    } ref[] = {
        {"02-DotProd", {49.95, 89.95, 90.27, 90.34, 90.39, 90.54}},
        {"03-GpuClustering", {49.95, 89.98, 91.26, 91.33, 91.39, 91.53}},
        {"04-GpuPacking", {49.95, 89.98, 91.3, 91.37, 91.42, 91.57}},
        {"05-BestFit", {49.95, 89.98, 92.87, 92.94, 93.0, 93.13}},
        {"06-FGD", {49.95, 89.98, 94.92, 95.14, 95.19, 95.29}},
    };
    static const int col[6] = {50, 90, 95, 100, 110, 130};
    char root[512], text[2048];
    char *abs = realpath(tu_root(), NULL);
    snprintf(root, sizeof root, "%.400s", abs ? abs : tu_root());
    free(abs);
    snprintf(text, sizeof text,
             "{\"cluster\": {\"nodes\": \"%s/traces/openb_node_list_gpu_node.csv\", "
             "\"pods\": \"%s/traces/openb_pod_list_default.csv\", \"seeds\": [42], "
             "\"policies\": [\"dotprod\", \"clustering\", \"packing\", \"bestfit\", \"fgd\"]}}",
             root, root);
    cJSON *doc = run_json(tu_write("openb42.json", text), "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(doc, "experiments");
    int k = 0;
    for (const cJSON *e = ex->child; e; e = e->next, k++) {
        CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(e, "label")->valuestring,
                               ref[k].label);
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(e, "per_arrived_pct"), "alloc_ratio");
        CU_ASSERT_EQUAL(cJSON_GetArraySize(a), 131);
        for (int c = 0; c < 6; c++) {
            double got = cJSON_GetArrayItem(a, col[c])->valuedouble;
            if (fabs(got - ref[k].v[c]) > 1e-9)
                fprintf(stderr, "\n  %s column %d: %.2f, reference %.2f\n", ref[k].label, col[c],
                        got, ref[k].v[c]);
            CU_ASSERT_DOUBLE_EQUAL(got, ref[k].v[c], 1e-9);
        }
    }
    CU_ASSERT_EQUAL(k, 5);
    cJSON_Delete(doc);
}

/* --jobs changes nothing in any output. */
static void test_jobs_identical(void)
{
    char *scn = scenario("jobs.json", "");
    char cmd[1024], out[1 << 16], errb[4096];
    const char *d = tu_tmpdir();
    snprintf(cmd, sizeof cmd, "cluster %s --quiet --json %s/j1.json --csv %s/j1.csv --jobs 1", scn,
             d, d);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, errb, sizeof errb), 0);
    snprintf(cmd, sizeof cmd, "cluster %s --quiet --json %s/j3.json --csv %s/j3.csv --jobs 3", scn,
             d, d);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, errb, sizeof errb), 0);
    const char *ext[2] = {"json", "csv"};
    for (int i = 0; i < 2; i++) {
        char a[600], b[600];
        snprintf(a, sizeof a, "%s/j1.%s", d, ext[i]);
        snprintf(b, sizeof b, "%s/j3.%s", d, ext[i]);
        char *x = tu_slurp(a), *y = tu_slurp(b);
        CU_ASSERT(x && y && strcmp(x, y) == 0);
        free(x);
        free(y);
    }
    /* the CSV layout of the reference's analysis_allo_discrete.csv */
    char p[600];
    snprintf(p, sizeof p, "%s/j1.csv", d);
    char *csv = tu_slurp(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT(strncmp(csv, "workload,sc_policy,tune,seed,total_gpus,0,1,2,", 46) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\npods,06-FGD,1.3,2,6,"));
    free(csv);
}

/* Bad input: exit 2, the file and line (or JSON path) named, no output file left. */
static void expect_bad(const char *scn, const char *needle)
{
    char cmd[1024], out[4096], errb[4096], json[600];
    snprintf(json, sizeof json, "%s/bad-out.json", tu_tmpdir());
    remove(json);
    snprintf(cmd, sizeof cmd, "cluster %s --json %s", scn, json);
    int rc = tu_cli(cmd, out, sizeof out, errb, sizeof errb);
    CU_ASSERT_EQUAL(rc, 2);
    if (!strstr(errb, needle))
        fprintf(stderr, "\n  expected \"%s\" in: %s\n", needle, errb);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, needle));
    CU_ASSERT(!tu_exists(json));
}

static char *scenario_with(const char *name, const char *nodes_csv, const char *pods_csv,
                           const char *extra)
{
    char nn[64], pn[64];
    snprintf(nn, sizeof nn, "%s.nodes.csv", name);
    snprintf(pn, sizeof pn, "%s.pods.csv", name);
    char *nodes = tu_write(nn, nodes_csv);
    char *pods = tu_write(pn, pods_csv);
    char text[2048];
    snprintf(text, sizeof text, "{\"cluster\": {\"nodes\": \"%s\", \"pods\": \"%s\"%s}}", nodes,
             pods, extra);
    return tu_write(name, text);
}

static void test_bad_input(void)
{
    const char *hdr = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                      "creation_time,deletion_time,scheduled_time\n";
    char pods[1024];
    /* node list without its gpu column */
    expect_bad(
        scenario_with("b1.json", "sn,cpu_milli,memory_mib,model\nn1,8000,1000,T4\n", PODS_CSV, ""),
        "b1.json.nodes.csv:1: missing column \"gpu\"");
    /* a bad number names line and column */
    expect_bad(scenario_with("b2.json", "sn,cpu_milli,memory_mib,gpu,model\nn1,8k,1000,1,T4\n",
                             PODS_CSV, ""),
               "b2.json.nodes.csv:2:2: field \"cpu_milli\"");
    /* pod list without cpu_milli */
    expect_bad(scenario_with("b3.json", NODES_CSV,
                             "name,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"
                             "p,100,1,500,0,10\n",
                             ""),
               "missing column \"cpu_milli\"");
    /* a GPU model no node has */
    snprintf(pods, sizeof pods, "%sp0,1000,100,1,500,A100,LS,Running,0,10,0\n", hdr);
    expect_bad(scenario_with("b4.json", NODES_CSV, pods, ""),
               "b4.json.pods.csv:2: field \"gpu_spec\": GPU model \"A100\"");
    /* a pod larger than any node: 3 GPUs of T4 (T4 nodes have 2) */
    snprintf(pods, sizeof pods,
             "%sp0,1000,100,1,500,,LS,Running,0,10,0\n"
             "p1,1000,100,3,1000,T4,LS,Running,0,10,0\n",
             hdr);
    expect_bad(scenario_with("b5.json", NODES_CSV, pods, ", \"oversized\": \"error\""),
               "b5.json.pods.csv:3: pod \"p1\"");
    /* ... which the default, "oversized": "fail", accepts with a warning (it fails in every
     * experiment, as in the reference; tests/test_cluster_limits.c has more) */
    char cmd[1024], out[1 << 16], errb[4096];
    snprintf(cmd, sizeof cmd, "cluster %s --quiet", scenario_with("b6.json", NODES_CSV, pods, ""));
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, errb, sizeof errb), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "1 pod fits no node of the cluster"));
    /* too much CPU for any node */
    snprintf(pods, sizeof pods, "%sp0,64000,100,0,0,,LS,Running,0,10,0\n", hdr);
    expect_bad(scenario_with("b7.json", NODES_CSV, pods, ", \"oversized\": \"error\""),
               "fits no node of the cluster");
    /* scenario keys */
    expect_bad(scenario_with("b8.json", NODES_CSV, PODS_CSV, ", \"policies\": [\"worst\"]"),
               "cluster.policies[0]: unknown policy \"worst\"");
    expect_bad(scenario_with("b9.json", NODES_CSV, PODS_CSV, ", \"speed\": 1"), "speed");
    expect_bad(scenario_with("b10.json", NODES_CSV, PODS_CSV,
                             ", \"mode\": \"replay\", \"inflate\": {\"tune\": 1}"),
               "cluster.inflate: given, but \"mode\" is \"replay\"");
    /* MIG */
    const char *mig_nodes = "sn,cpu_milli,memory_mib,gpu,model\nm1,64000,262144,2,A100\n";
    snprintf(pods, sizeof pods, "%sp0,1000,100,1,300,,LS,Running,0,10,0\n", hdr);
    expect_bad(scenario_with("m1.json", mig_nodes, pods,
                             ", \"mig\": {\"gpu\": \"a100-40gb\", \"layout\": \"static\"}"),
               "cluster.mig: \"layout\": \"static\" needs \"static_layout\"");
    expect_bad(scenario_with("m2.json", mig_nodes, pods,
                             ", \"mig\": {\"gpu\": \"a100-40gb\", \"layout\": \"static\", "
                             "\"static_layout\": \"4g.20gb,4g.20gb\"}"),
               "cluster.mig.static_layout");
    expect_bad(scenario_with("m3.json", mig_nodes, pods,
                             ", \"mig\": {\"gpu\": \"a100-40gb\", \"models\": [\"H100\"]}"),
               "cluster.mig.models[0]");
    expect_bad(scenario_with("m4.json", mig_nodes, pods,
                             ", \"policies\": [\"dotprod\"], \"mig\": {\"gpu\": \"a100-40gb\"}"),
               "not defined for MIG clusters");
    /* and a good one: a dynamic MIG replay reports its reconfigurations */
    snprintf(pods, sizeof pods,
             "%sq0,1000,100,1,300,,LS,Running,0,100,0\n"
             "q1,1000,100,1,100,,LS,Running,5,30,5\n"
             "q2,1000,100,1,250,,LS,Running,10,200,10\n"
             "q3,1000,100,1,1000,,LS,Running,20,60,20\n"
             "q4,1000,100,1,500,,LS,Running,40,300,40\n"
             "q5,1000,100,1,100,,LS,Running,50,70,50\n",
             hdr);
    cJSON *doc = run_json(scenario_with("m5.json", mig_nodes, pods,
                                        ", \"policies\": [\"fgd\", \"bestfit\"], \"mode\": "
                                        "\"replay\", \"mig\": {\"gpu\": \"a100-40gb\", "
                                        "\"defrag_threshold\": 0.2}"),
                          "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *e0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "experiments"), 0);
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(e0, "samples");
    const cJSON *last = cJSON_GetArrayItem(samples, cJSON_GetArraySize(samples) - 1);
    CU_ASSERT(jnum(last, "reconfigs") >= 1);
    CU_ASSERT_EQUAL(jnum(e0, "arrived"), jnum(e0, "placed") + jnum(e0, "failed"));
    cJSON_Delete(doc);
    /* options */
    CU_ASSERT_EQUAL(tu_cli("cluster", out, sizeof out, errb, sizeof errb), 2);
    CU_ASSERT_EQUAL(tu_cli("cluster x.json --jobs 0", out, sizeof out, errb, sizeof errb), 2);
    CU_ASSERT_EQUAL(tu_cli("cluster --help", out, sizeof out, errb, sizeof errb), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--csv"));
}

/* ---- MIG clusters ------------------------------------------------------------------------ */

struct migfix {
    struct cl_cluster c;
    struct cl_workload w;
    struct gpu_profile g;
    struct cl_migcfg m;
    struct cl_run_cfg cfg;
};

/* n nodes of one MIG-capable A100-40GB each; pods of the given GPU shares (1000 = whole). */
static void mig_fixture(struct migfix *f, int n_nodes, const int *milli, int n_pods,
                        enum cl_mig_layout layout)
{
    memset(f, 0, sizeof *f);
    int cpu[8] = {64000, 64000, 64000, 64000, 64000, 64000, 64000, 64000}, gpus[8];
    for (int i = 0; i < 8; i++)
        gpus[i] = 1;
    mk_cluster(&f->c, n_nodes, cpu, gpus);
    for (int i = 0; i < n_nodes; i++)
        f->c.node[i].mig = 0;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(cal_load("a100-40gb", &f->g, err, sizeof err), 0);
    f->w.n = n_pods;
    f->w.pod = ss_xcalloc((size_t)n_pods, sizeof *f->w.pod);
    for (int i = 0; i < n_pods; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%02d", i);
        f->w.pod[i] = mk_pod(name, 1000, 1, milli[i]);
    }
    f->m.layout = layout;
    f->m.g = &f->g;
    f->m.reconfig_s = 3;
    f->m.migrate_s = 30;
    CU_ASSERT_EQUAL(cl_mig_bind_pods(&f->m, &f->c, &f->w, err, sizeof err), 0);
    f->cfg.policy = &cl_policy_fgd;
    f->cfg.seed = 1;
    f->cfg.mig = &f->m;
}

static void mig_fixture_free(struct migfix *f)
{
    cl_workload_free(&f->w);
    cl_cluster_free(&f->c);
}

static void test_mig_profile_mapping(void)
{
    struct gpu_profile g;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(cal_load("a100-40gb", &g, err, sizeof err), 0);
    /* smallest profile with compute slices / 7 >= share: 142 -> 1g, 143 -> 2g (1/7 = 142.9) */
    const struct {
        int milli;
        const char *prof;
    } want[] = {{50, "1g.5gb"},   {142, "1g.5gb"},  {143, "2g.10gb"}, {285, "2g.10gb"},
                {286, "3g.20gb"}, {428, "3g.20gb"}, {429, "4g.20gb"}, {571, "4g.20gb"},
                {572, "7g.40gb"}, {999, "7g.40gb"}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        int p = cl_mig_profile_for(&g, want[k].milli);
        CU_ASSERT_FATAL(p >= 0);
        if (strcmp(g.mig[p].name, want[k].prof))
            fprintf(stderr, "\n  %d milli -> %s, expected %s\n", want[k].milli, g.mig[p].name,
                    want[k].prof);
        CU_ASSERT_STRING_EQUAL(g.mig[p].name, want[k].prof);
    }
}

/* Dynamic layout: a reconfiguration creates and destroys free instances only; the running
 * ones keep their pod, profile and memory slices. */
static void test_mig_reconfig_drains_only_changed(void)
{
    /* p0 3g, p1..p4 1g, p5 2g */
    int milli[6] = {400, 100, 100, 100, 100, 250};
    struct migfix f;
    mig_fixture(&f, 1, milli, 6, CL_MIG_DYNAMIC);
    struct cl_mig *m = cl_mig_new(&f.c, &f.w, &f.cfg);
    int rc, ch, mg;
    double dt;
    CU_ASSERT_EQUAL(cl_mig_place(m, 0, 0, 0, -1), 0); /* bare -> MIG mode, 3g created */
    cl_mig_counters(m, &rc, &ch, &mg, &dt);
    CU_ASSERT(rc == 1 && ch == 1 && mg == 0);
    CU_ASSERT_DOUBLE_EQUAL(dt, 3, 1e-12);
    for (int i = 1; i <= 4; i++)
        CU_ASSERT_EQUAL(cl_mig_place(m, i, i, i, -1), 0); /* a 1g each: 3 + 4 x 1 = 7 slices */
    int prof[7], start[7], pod[7], mode;
    int n = cl_mig_gpu(m, 0, 0, prof, start, pod, &mode);
    CU_ASSERT_EQUAL(n, 5);
    CU_ASSERT_EQUAL(mode, 1);
    cl_mig_counters(m, &rc, &ch, &mg, &dt);
    CU_ASSERT(rc == 5 && ch == 5);
    /* two running 1g instances on an aligned pair (a, a + 1), a 2g start */
    int a = -1, ia = -1, ib = -1;
    for (int x = 0; x < n && a < 0; x++)
        for (int y = 0; y < n; y++)
            if (f.g.mig[prof[x]].compute_slices == 1 && f.g.mig[prof[y]].compute_slices == 1 &&
                start[y] == start[x] + 1 && start[x] % 2 == 0 && start[x] <= 4) {
                a = start[x];
                ia = x;
                ib = y;
                break;
            }
    CU_ASSERT_FATAL(a >= 0);
    int pa = pod[ia], pb = pod[ib];
    /* the others: what must not change */
    int keep_prof[7], keep_start[7], keep_pod[7], nk = 0;
    for (int x = 0; x < n; x++)
        if (x != ia && x != ib) {
            keep_prof[nk] = prof[x];
            keep_start[nk] = start[x];
            keep_pod[nk++] = pod[x];
        }
    cl_mig_remove(m, pa, 10);
    cl_mig_remove(m, pb, 10);
    /* 2g: no free 2g, no room beside the two free 1g: destroy both, create the 2g */
    CU_ASSERT_EQUAL(cl_mig_place(m, 5, 5, 20, -1), 0);
    int rc2, ch2, mg2;
    double dt2;
    cl_mig_counters(m, &rc2, &ch2, &mg2, &dt2);
    CU_ASSERT_EQUAL(rc2, rc + 1);
    CU_ASSERT_EQUAL(ch2, ch + 3); /* 2 destroyed + 1 created */
    CU_ASSERT_EQUAL(mg2, 0);
    CU_ASSERT_DOUBLE_EQUAL(dt2, dt + 3, 1e-12); /* only the new pod waits */
    n = cl_mig_gpu(m, 0, 0, prof, start, pod, &mode);
    CU_ASSERT_EQUAL(n, 4);
    for (int k = 0; k < nk; k++) {
        int found = 0;
        for (int x = 0; x < n; x++)
            found |= prof[x] == keep_prof[k] && start[x] == keep_start[k] && pod[x] == keep_pod[k];
        CU_ASSERT(found);
    }
    int found2g = 0;
    for (int x = 0; x < n; x++)
        found2g |= pod[x] == 5 && start[x] == a && f.g.mig[prof[x]].compute_slices == 2;
    CU_ASSERT(found2g);
    /* a 1g now fits nowhere (7 slices used) */
    CU_ASSERT_EQUAL(cl_mig_place(m, 6, 1, 30, -1), -1);
    /* the kept pods leave from the instances they kept (their layout index moved) */
    for (int k = 0; k < nk; k++)
        cl_mig_remove(m, keep_pod[k], 40);
    cl_mig_remove(m, 5, 40);
    n = cl_mig_gpu(m, 0, 0, prof, start, pod, &mode);
    for (int x = 0; x < n; x++)
        CU_ASSERT_EQUAL(pod[x], -1);
    cl_mig_free(m);
    mig_fixture_free(&f);
}

/* Static pools never reconfigure; a pod takes its profile or the smallest larger instance. */
static void test_mig_static_and_warm_pool(void)
{
    int milli[5] = {100, 100, 100, 1000, 400};
    struct migfix f;
    mig_fixture(&f, 2, milli, 5, CL_MIG_STATIC);
    int *prof = NULL, n = 0;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(
        mig_parse_list(&f.g, "3g.20gb,2g.10gb,1g.5gb,1g.5gb", &prof, NULL, &n, err, sizeof err), 0);
    f.m.n_layouts = 1;
    f.m.n_static[0] = n;
    memcpy(f.m.static_prof[0], prof, (size_t)n * sizeof *prof);
    free(prof);
    f.m.warm_pool = 0.5; /* one of the two GPUs stays bare */
    f.cfg.mode = CL_INFLATE;
    f.cfg.shuffle = 0;
    struct cl_typical tp = {0};
    struct cl_result r;
    /* inflated far past the workload: first the workload in name order (p00 p01 p02 1g,
     * p03 a whole GPU, p04 3g), then random copies */
    f.cfg.tune = 100;
    CU_ASSERT_EQUAL(cl_run(&f.c, &f.w, &tp, &f.cfg, &r, err, sizeof err), 0);
    CU_ASSERT_FATAL(r.n_ev >= 5);
    /* the first five events are the workload in name order: 1g, 1g, 1g (into the 2g), a whole
     * GPU (the pool), 3g: all placed, no reconfiguration ever */
    for (int k = 0; k < 5; k++) {
        CU_ASSERT_EQUAL(r.ev[k].placed, k + 1);
        CU_ASSERT_EQUAL(r.ev[k].reconfigs, 0);
    }
    /* allocated: 143 + 143 + 286 (a 1g pod holds the 2g) + 1000 + 429 */
    CU_ASSERT_EQUAL(r.ev[4].used_milli, 143 + 143 + 286 + 1000 + 429);
    cl_result_free(&r);
    mig_fixture_free(&f);
}

void test_cluster_register(void)
{
    static const struct tu_test t[] = {
        {"Go math/rand reproduced (values printed by Go)", test_rand_matches_go},
        {"typical pods: popularity order, threshold, weights", test_typical_pods},
        {"FGD fragment amount and score of a node by hand", test_fgd_by_hand},
        {"each policy's placement on 3 idle nodes by hand", test_policies_by_hand},
        {"each policy's score on a used node by hand", test_scores_on_used_node},
        {"pods conserved: arrived = placed + failed + pending", test_conservation},
        {"openb seed 42 equals the FGD simulator's results", test_openb_matches_reference},
        {"--jobs 1 and 3 give identical JSON and CSV", test_jobs_identical},
        {"bad input: exit 2 naming file, line or path", test_bad_input},
        {"MIG: GPU share to the smallest profile", test_mig_profile_mapping},
        {"MIG: a reconfiguration drains only the instances it changes",
         test_mig_reconfig_drains_only_changed},
        {"MIG: static pools never reconfigure; warm pool for whole GPUs",
         test_mig_static_and_warm_pool},
        {NULL, NULL},
    };
    tu_add_suite("cluster", t);
}
