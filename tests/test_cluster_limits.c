/*
 * Tests for the cluster simulator's inputs and bounds (docs/cluster.md, docs/robustness.md
 * "Cluster limits and merges"): the FGD simulator's pod lists without times, pods no node can
 * host counted as failed by default, the limits on samples, nodes and nodes x pods checked at
 * load with their numbers, a workload without GPU requests refused for inflation instead of
 * drawing pods forever, progress that leaves the outputs alone, and "-" instead of "nan%" in
 * the summary table.
 */
#include "testutil.h"
#include "base/util.h"
#include "cluster/cl_engine.h"
#include "cluster/cl_scenario.h"
#include "cluster/cluster.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *NODES = "sn,cpu_milli,memory_mib,gpu,model\n"
                           "n1,64000,262144,2,T4\n"
                           "n2,64000,262144,1,T4\n";

/* A scenario file next to its node and pod lists; extra goes inside "cluster". */
static char *scn(const char *name, const char *nodes, const char *pods, const char *extra)
{
    char nn[96], pn[96], text[4096];
    snprintf(nn, sizeof nn, "%s.nodes.csv", name);
    snprintf(pn, sizeof pn, "%s.pods.csv", name);
    char *np = tu_write(nn, nodes);
    char *pp = tu_write(pn, pods);
    snprintf(text, sizeof text, "{\"cluster\": {\"nodes\": \"%s\", \"pods\": \"%s\"%s}}", np, pp,
             extra);
    return tu_write(name, text);
}

/* Runs `cluster SCN OPTS`; its exit code, stdout and stderr. */
static int run(const char *s, const char *opts, char *out, size_t outn, char *errb, size_t errn)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cluster %s %s", s, opts);
    return tu_cli(cmd, out, outn, errb, errn);
}

static void expect_refused(const char *s, const char *needle)
{
    char out[8192], errb[8192];
    int rc = run(s, "--quiet", out, sizeof out, errb, sizeof errb);
    CU_ASSERT_EQUAL(rc, 2);
    if (!strstr(errb, needle))
        fprintf(stderr, "\n  expected \"%s\" in: %s\n", needle, errb);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, needle));
}

/* The experiments array of a run's JSON, as text without the scenario-specific header. */
static char *experiments_of(const char *s, const char *opts)
{
    char json[600], o[900], out[8192], errb[8192];
    snprintf(json, sizeof json, "%s/exp.json", tu_tmpdir());
    snprintf(o, sizeof o, "--quiet --json %s %s", json, opts);
    int rc = run(s, o, out, sizeof out, errb, sizeof errb);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc)
        fprintf(stderr, "\n%s\n", errb);
    char *txt = tu_slurp(json);
    cJSON *doc = txt ? cJSON_Parse(txt) : NULL;
    free(txt);
    if (!doc)
        return NULL;
    char *e = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(doc, "experiments"));
    cJSON_Delete(doc);
    return e;
}

/* The FGD simulator's multi-GPU variants carry only name and the four resource columns. */
static void test_untimed_pod_list(void)
{
    const char *five = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                       "p0,1000,100,2,1000\n"
                       "p1,1000,100,1,500\n"
                       "p2,1000,100,0,0\n"
                       "p3,2000,200,1,250\n";
    /* the same pods with every time 0: what the reference's sort sees without times */
    const char *zero = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"
                       "p0,1000,100,2,1000,0,0\n"
                       "p1,1000,100,1,500,0,0\n"
                       "p2,1000,100,0,0,0,0\n"
                       "p3,2000,200,1,250,0,0\n";
    const char *extra =
        ", \"seeds\": [1, 2], \"inflate\": {\"tune\": 1.3, \"order\": \"creation\"}";
    char *a = experiments_of(scn("u5.json", NODES, five, extra), "");
    char *b = experiments_of(scn("u0.json", NODES, zero, extra), "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_STRING_EQUAL(a, b);
    free(a);
    free(b);
    /* shuffled too */
    a = experiments_of(scn("u5s.json", NODES, five, ""), "");
    CU_ASSERT_PTR_NOT_NULL(a);
    free(a);
    /* nothing to replay without times: refused, pointing to inflate */
    expect_refused(scn("u5r.json", NODES, five, ", \"mode\": \"replay\""),
                   "cluster.mode: \"replay\" needs the pods' creation_time and deletion_time");
    /* one time column without the other is still an error */
    expect_refused(scn("u1.json", NODES,
                       "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\np,1,1,0,0,5\n",
                       ""),
                   "missing column \"deletion_time\"");
    /* and the loader says which kind it read */
    struct cl_cluster c;
    struct cl_workload w;
    char err[SS_ERRLEN];
    char *np = tu_write("u.nodes.csv", NODES), *pp = tu_write("u.pods.csv", five);
    CU_ASSERT_EQUAL_FATAL(cl_nodes_load_openb(np, &c, err, sizeof err), 0);
    CU_ASSERT_EQUAL(cl_workload_load(pp, &c, CL_OVERSIZED_ERROR, &w, err, sizeof err), 0);
    CU_ASSERT_EQUAL(w.n, 4);
    CU_ASSERT_EQUAL(w.timed, 0);
    cl_workload_free(&w);
    cl_cluster_free(&c);
}

/* A pod no empty node can host: failed with a warning (the reference's answer), unless
 * "oversized": "error". */
static void test_oversized_default_fails(void)
{
    const char *pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"
                       "p0,1000,100,1,500,0,10\n"
                       "p1,1000,100,3,1000,1,10\n" /* 3 GPUs: nodes have 2 and 1 */
                       "p2,100000,100,0,0,2,10\n"  /* more CPU than any node */
                       "p3,1000,100,1,1000,3,10\n";
    char *s = scn("o1.json", NODES, pods, ", \"policies\": [\"fgd\"], \"mode\": \"replay\"");
    char out[8192], errb[8192], json[600], opts[700];
    snprintf(json, sizeof json, "%s/o1.out.json", tu_tmpdir());
    snprintf(opts, sizeof opts, "--quiet --json %s", json);
    CU_ASSERT_EQUAL(run(s, opts, out, sizeof out, errb, sizeof errb), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "warning:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "2 pods fit no node of the cluster"));
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "line 3, pod \"p1\""));
    char *txt = tu_slurp(json);
    cJSON *doc = txt ? cJSON_Parse(txt) : NULL;
    free(txt);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    /* every pod arrives; the two that fit nowhere fail, the others run */
    CU_ASSERT_EQUAL(tu_json_num(doc, "experiments.0.arrived"), 4);
    CU_ASSERT_EQUAL(tu_json_num(doc, "experiments.0.failed"), 2);
    CU_ASSERT_EQUAL(tu_json_num(doc, "experiments.0.placed"), 2);
    cJSON_Delete(doc);
    /* the stricter setting still refuses them */
    expect_refused(scn("o2.json", NODES, pods, ", \"oversized\": \"error\""),
                   "o2.json.pods.csv:3: pod \"p1\"");
}

/* The bound on a replay's samples: checked at load, with the number and what fits. */
static void test_sample_bound(void)
{
    const char *pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"
                       "p0,1000,100,1,500,0,100000000\n"
                       "p1,1000,100,1,500,50,200000000\n";
    char *s = scn("s1.json", NODES, pods,
                  ", \"mode\": \"replay\", \"replay\": {\"sample_s\": 0.2}, \"policies\": "
                  "[\"fgd\"]");
    char out[8192], errb[8192];
    CU_ASSERT_EQUAL(run(s, "--quiet", out, sizeof out, errb, sizeof errb), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "cluster.replay.sample_s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "1e+09 samples, more than 100000"));
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "CL_MAX_SAMPLES"));
    /* the suggested value loads and stays within the bound */
    double fit = cl_min_sample_s(2e8);
    char msg[64];
    snprintf(msg, sizeof msg, "at least %.6g s fits", fit);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, msg));
    CU_ASSERT(floor(2e8 / fit) + 2 <= CL_MAX_SAMPLES);
    char extra[256];
    snprintf(extra, sizeof extra,
             ", \"mode\": \"replay\", \"replay\": {\"sample_s\": %.6g}, \"policies\": [\"fgd\"]",
             fit);
    char json[600], opts[700];
    snprintf(json, sizeof json, "%s/s2.out.json", tu_tmpdir());
    snprintf(opts, sizeof opts, "--quiet --json %s", json);
    CU_ASSERT_EQUAL(
        run(scn("s2.json", NODES, pods, extra), opts, out, sizeof out, errb, sizeof errb), 0);
    char *txt = tu_slurp(json);
    cJSON *doc = txt ? cJSON_Parse(txt) : NULL;
    free(txt);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "experiments"), 0), "samples");
    int n = cJSON_GetArraySize(samples);
    CU_ASSERT(n > CL_MAX_SAMPLES / 2 && n <= CL_MAX_SAMPLES);
    /* samples are at i x sample_s exactly (not a drifting sum), the last at the span */
    double t1000 = tu_json_num(cJSON_GetArrayItem(samples, 1000), "t_s");
    char want[64], got[64];
    snprintf(want, sizeof want, "%.6g", 1000 * fit);
    snprintf(got, sizeof got, "%.6g", t1000);
    CU_ASSERT_STRING_EQUAL(got, want);
    CU_ASSERT_EQUAL(tu_json_num(cJSON_GetArrayItem(samples, n - 1), "t_s"), 2e8);
    cJSON_Delete(doc);
}

/* Nodes and nodes x pods: bounded at load, the number in the message. */
static void test_node_bounds(void)
{
    const char *pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                       "p0,1000,100,1,500\n";
    char extra[512];
    /* a node group of a million nodes: refused at once, not days of placements */
    snprintf(extra, sizeof extra,
             ", \"nodes\": [{\"count\": 1000000, \"cpu_milli\": 64000, \"memory_mib\": 262144, "
             "\"gpus\": 8, \"gpu_model\": \"A100\"}]");
    char text[1024];
    snprintf(text, sizeof text, "{\"cluster\": {\"pods\": \"%s\"%s}}",
             tu_write("n1.pods.csv", pods), extra);
    expect_refused(tu_write("n1.json", text),
                   "1000000 nodes in the groups so far, more than 200000 (CL_MAX_NODES");
    /* node_scale multiplies the list */
    {
        char nodes[1 << 16] = "sn,cpu_milli,memory_mib,gpu,model\n";
        for (int i = 0; i < 300; i++) {
            size_t l = strlen(nodes);
            snprintf(nodes + l, sizeof nodes - l, "n%03d,64000,262144,8,A100\n", i);
        }
        expect_refused(scn("n3.json", nodes, pods, ", \"node_scale\": 1000"),
                       "cluster.node_scale: 300 nodes x node_scale 1000 = 300000 nodes, more "
                       "than 200000");
    }
    /* nodes x pods: 150,000 nodes of 8 GPUs inflated with 1/2-GPU pods: ~3.1e6 pods */
    {
        char *pp = tu_write("n4.pods.csv", pods);
        snprintf(text, sizeof text,
                 "{\"cluster\": {\"pods\": \"%s\", \"nodes\": [{\"count\": 150000, \"cpu_milli\": "
                 "64000, \"memory_mib\": 262144, \"gpus\": 8, \"gpu_model\": \"A100\"}]}}",
                 pp);
        expect_refused(tu_write("n4.json", text), "(CL_MAX_NODE_PODS");
        expect_refused(tu_write("n4.json", text), "150000 nodes x about 3.12e+06 pods placed");
        /* and the pods one inflation places: 1,000 nodes of 8 GPUs, one pod of 1/1000 GPU */
        char *tiny = tu_write("n5.pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                                             "t0,1,1,1,1\n");
        snprintf(text, sizeof text,
                 "{\"cluster\": {\"pods\": \"%s\", \"nodes\": [{\"count\": 1000, \"cpu_milli\": "
                 "64000, \"memory_mib\": 262144, \"gpus\": 8, \"gpu_model\": \"A100\"}]}}",
                 tiny);
        expect_refused(tu_write("n5.json", text),
                       "places about 1.04e+07 pods, more than 4000000 (CL_MAX_INFLATED_PODS");
    }
}

/* Inflation of pods that ask for no GPU could never reach its target: refused (it used to
 * draw pods until memory ran out). */
static void test_inflate_without_gpu_requests(void)
{
    const char *pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                       "c0,1000,100,0,0\n"
                       "c1,2000,100,0,0\n";
    expect_refused(scn("g1.json", NODES, pods, ""),
                   "cluster.mode: \"inflate\" draws pods until their GPU requests reach 1.30 x");
    /* a replay of them is fine: nothing allocated, a defined 0 % */
    const char *timed = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"
                        "c0,1000,100,0,0,0,10\n"
                        "c1,2000,100,0,0,5,20\n";
    char out[8192], errb[8192];
    CU_ASSERT_EQUAL(run(scn("g2.json", NODES, timed, ", \"mode\": \"replay\""), "", out, sizeof out,
                        errb, sizeof errb),
                    0);
    CU_ASSERT_PTR_NULL(strstr(out, "nan"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "0.00%"));
}

struct ticks {
    int n;
    long last_done, total, prev;
    int ascending;
};

static void count_tick(void *ctx, long done, long total)
{
    struct ticks *t = ctx;
    t->n++;
    t->ascending &= done > t->prev;
    t->prev = done;
    t->last_done = done;
    t->total = total;
}

/* Progress: one call per tenth of the pod events, and the same result as without. */
static void test_progress(void)
{
    char err[SS_ERRLEN];
    const char *pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"
                       "p0,1000,100,1,500,0,100\n"
                       "p1,1000,100,1,250,10,50\n"
                       "p2,1000,100,2,1000,20,30\n"
                       "p3,1000,100,1,100,25,300\n"
                       "p4,1000,100,1,750,40,60\n";
    for (int mode = 0; mode < 2; mode++) {
        struct cl_scenario s;
        char *path =
            scn(mode ? "pr1.json" : "pr0.json", NODES, pods, mode ? ", \"mode\": \"replay\"" : "");
        CU_ASSERT_EQUAL_FATAL(cl_scenario_load(path, &s, err, sizeof err), 0);
        struct cl_run_cfg cfg;
        cl_scenario_cfg(&s, 5, 0, &cfg);
        struct cl_result a, b;
        CU_ASSERT_EQUAL(cl_run(&s.cluster, &s.work, &s.typical, &cfg, &a, err, sizeof err), 0);
        struct ticks t = {0, 0, 0, 0, 1};
        cfg.progress = count_tick;
        cfg.progress_ctx = &t;
        CU_ASSERT_EQUAL(cl_run(&s.cluster, &s.work, &s.typical, &cfg, &b, err, sizeof err), 0);
        long total = mode ? 10 : a.n_pods;
        CU_ASSERT_EQUAL(t.total, total);
        CU_ASSERT_EQUAL(t.last_done, total);
        CU_ASSERT(t.ascending);
        CU_ASSERT_EQUAL(t.n, total < 10 ? total : 10);
        CU_ASSERT_EQUAL(a.n_ev, b.n_ev);
        CU_ASSERT(a.n_ev == b.n_ev && memcmp(a.ev, b.ev, (size_t)a.n_ev * sizeof *a.ev) == 0);
        cl_result_free(&a);
        cl_result_free(&b);
        cl_scenario_free(&s);
    }
    /* --progress writes to stderr only: stdout and the files are byte-identical */
    char *s = scn("pr2.json", NODES, pods, ", \"seeds\": [1, 2, 3]");
    char o1[8192], o2[8192], e1[8192], e2[8192], opts[1400];
    const char *d = tu_tmpdir();
    snprintf(opts, sizeof opts, "--json %s/p1.json --csv %s/p1.csv", d, d);
    CU_ASSERT_EQUAL(run(s, opts, o1, sizeof o1, e1, sizeof e1), 0);
    snprintf(opts, sizeof opts, "--json %s/p2.json --csv %s/p2.csv --progress", d, d);
    CU_ASSERT_EQUAL(run(s, opts, o2, sizeof o2, e2, sizeof e2), 0);
    CU_ASSERT_STRING_EQUAL(o1, o2);
    CU_ASSERT_STRING_EQUAL(e1, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(e2, "cluster: 18/18 experiments"));
    const char *ext[2] = {"json", "csv"};
    for (int i = 0; i < 2; i++) {
        char a[700], b[700];
        snprintf(a, sizeof a, "%s/p1.%s", d, ext[i]);
        snprintf(b, sizeof b, "%s/p2.%s", d, ext[i]);
        char *x = tu_slurp(a), *y = tu_slurp(b);
        CU_ASSERT(x && y && strcmp(x, y) == 0);
        free(x);
        free(y);
    }
}

/* The summary table prints "-" with a footnote where a figure is undefined, never "nan%". */
static void test_table_undefined(void)
{
    const char *pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                       "p0,1000,100,2,1000\n"
                       "p1,1000,100,1,500\n"
                       "p2,1000,100,0,0\n";
    char out[8192], errb[8192];
    /* tune 0.5: arrived GPU requests never reach 100 % of the cluster's */
    CU_ASSERT_EQUAL(run(scn("t1.json", NODES, pods, ", \"inflate\": {\"tune\": 0.5}"), "", out,
                        sizeof out, errb, sizeof errb),
                    0);
    CU_ASSERT_PTR_NULL(strstr(out, "nan"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "- undefined in every seed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "06-FGD                     -    0.00*         -"));
    /* 2-GPU pods on 3 GPUs: arrived goes 0, 67, 133 %: no event near 100 % */
    const char *big = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                      "p0,1000,100,2,1000\n";
    CU_ASSERT_EQUAL(run(scn("t2.json", NODES, big, ", \"policies\": [\"fgd\"]"), "", out,
                        sizeof out, errb, sizeof errb),
                    0);
    CU_ASSERT_PTR_NULL(strstr(out, "nan"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "- undefined"));
    /* a defined figure still prints as before: small shares pass every 1 % */
    const char *small = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                        "p0,100,10,1,10\n"
                        "p1,100,10,1,20\n";
    CU_ASSERT_EQUAL(run(scn("t3.json", NODES, small, ""), "", out, sizeof out, errb, sizeof errb),
                    0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "%"));
    CU_ASSERT_PTR_NULL(strstr(out, "nan"));
    CU_ASSERT_PTR_NULL(strstr(out, "- undefined"));
}

void test_cluster_limits_register(void)
{
    static const struct tu_test t[] = {
        {"pod lists without times (FGD multi-GPU variants) inflate, not replay",
         test_untimed_pod_list},
        {"a pod no node hosts fails with a warning by default", test_oversized_default_fails},
        {"replay samples bounded at load, the fitting sample_s named", test_sample_bound},
        {"nodes and nodes x pods bounded at load with the numbers", test_node_bounds},
        {"inflation without GPU requests refused, not endless", test_inflate_without_gpu_requests},
        {"progress per tenth of pod events; outputs unchanged", test_progress},
        {"summary table: \"-\" and a footnote, never nan%", test_table_undefined},
        {NULL, NULL},
    };
    tu_add_suite("cluster_limits", t);
}
