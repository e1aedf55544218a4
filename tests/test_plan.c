/* The capacity planner (issue 9): Erlang C sizing, sharing light tenants,
 * infeasible SLAs, JSON and Kubernetes artefacts. */
#include "testutil.h"
#include "base/name.h"
#include "base/util.h"

#include <cJSON.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plans tests/fixtures/plan/<name>, which must exit with rc and write a --json document;
 * returns it. Two assertions. */
static cJSON *plan_json_of(const char *name, int rc)
{
    char rel[256], cmd[1200], out_path[600];
    snprintf(rel, sizeof rel, "plan/%s", name);
    snprintf(out_path, sizeof out_path, "%s/%s.plan.json", tu_tmpdir(), name);
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --json %s --quiet", tu_fixture(rel), out_path);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), rc);
    char *text = tu_slurp(out_path);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    return doc;
}

static void test_erlang_c_sizing(void)
{
    /* 3000 req/s of 1 ms exponential work, p99 SLA 5.5 ms: Erlang C gives p99 6.0 ms on
     * 4 GPUs and 4.8 ms on 5, so the plan is 5 exclusive GPUs. */
    cJSON *doc = plan_json_of("erlang-c-sizing.json", 0);
    const cJSON *rec = cJSON_GetObjectItem(doc, "recommendation");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(rec, "gpus")->valueint, 5);
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(rec, "meets_sla")));
    CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItem(rec, "cost_per_hour_usd")->valuedouble, 5 * 2.85,
                           1e-9);
    /* Four GPUs are listed as pruned by Erlang C, with the reason. */
    int pruned4 = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "candidates"))
    {
        const cJSON *why = cJSON_GetObjectItem(c, "pruned");
        if (cJSON_GetObjectItem(c, "gpus")->valueint == 4 && why &&
            strstr(why->valuestring, "Erlang C") && strstr(why->valuestring, "6.01 ms"))
            pruned4 = 1;
    }
    CU_ASSERT(pruned4);
    cJSON_Delete(doc);
}

static void test_light_tenants_share(void)
{
    cJSON *doc = plan_json_of("light-tenants.json", 0);
    const cJSON *rec = cJSON_GetObjectItem(doc, "recommendation");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(rec, "gpus")->valueint, 1);
    const char *kind =
        cJSON_GetObjectItem(cJSON_GetObjectItem(rec, "strategy"), "kind")->valuestring;
    CU_ASSERT(strcmp(kind, "exclusive") != 0);
    cJSON_Delete(doc);
}

static void test_impossible_sla(void)
{
    /* One GPU allowed, lognormal work whose p99 alone is 2.7 ms, SLA 3 ms at 50 % load:
     * queueing pushes p99 past 3 ms — exit 1 and the closest candidate. */
    cJSON *doc = plan_json_of("impossible-sla.json", 1);
    CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(doc, "recommendation")));
    const cJSON *closest = cJSON_GetObjectItem(doc, "closest");
    CU_ASSERT_PTR_NOT_NULL_FATAL(closest);
    CU_ASSERT(cJSON_GetObjectItem(closest, "worst_sla_margin")->valuedouble < 0);
    cJSON_Delete(doc);
    char cmd[700], out[8192];
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s", tu_fixture("plan/impossible-sla.json"));
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "closest"));
}

/* ---- what you simulate is what you apply (issue 18) ------------------------------------ */

/* The candidate of this kind and label, from a plan's JSON. */
static const cJSON *cand(const cJSON *doc, const char *label)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "candidates"))
    {
        if (strcmp(cJSON_GetObjectItem(c, "label")->valuestring, label) == 0)
            return c;
    }
    fprintf(stderr, "\n  no candidate \"%s\"\n", label);
    CU_ASSERT_FATAL(0);
    return NULL;
}

/* Runs scenario `rel` with one strategy on `gpus` GPUs through `sharesim run` (independently
 * of the planner) and returns 1 if every tenant's p99 is within its SLA. */
static int run_meets(const char *rel, const cJSON *strategy, int gpus)
{
    static int seq;
    char *text = tu_slurp(tu_fixture(rel));
    cJSON *doc = cJSON_Parse(text);
    free(text);
    cJSON_DeleteItemFromObject(doc, "gpus");
    cJSON_AddNumberToObject(doc, "gpus", gpus);
    cJSON *arr = cJSON_AddArrayToObject(doc, "strategies");
    cJSON_AddItemToArray(arr, cJSON_Duplicate(strategy, 1));
    char name[64], out[700], cmd[1600];
    snprintf(name, sizeof name, "placement-%d.json", seq++);
    char *sc_text = cJSON_Print(doc);
    char *path = tu_write(name, sc_text);
    snprintf(out, sizeof out, "%s.result.json", path);
    snprintf(cmd, sizeof cmd, "run %s --quiet --json %s", path, out);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    char *res_text = tu_slurp(out);
    cJSON *res = cJSON_Parse(res_text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res);
    int ok = 1;
    const cJSON *t;
    cJSON_ArrayForEach(
        t, cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(res, "strategies"), 0),
                               "tenants"))
    {
        const char *tn = cJSON_GetObjectItem(t, "name")->valuestring;
        const cJSON *ten;
        cJSON_ArrayForEach(ten, cJSON_GetObjectItem(doc, "tenants"))
        {
            if (strcmp(cJSON_GetObjectItem(ten, "name")->valuestring, tn) == 0) {
                double sla =
                    cJSON_GetObjectItem(cJSON_GetObjectItem(ten, "sla"), "p99_ms")->valuedouble;
                double p99 =
                    cJSON_GetObjectItem(cJSON_GetObjectItem(t, "latency_ms"), "p99")->valuedouble;
                ok &= p99 <= sla;
            }
        }
    }
    cJSON_Delete(res);
    free(res_text);
    free(sc_text);
    cJSON_Delete(doc);
    return ok;
}

/* A plan of a 40-minute scenario: its fractional candidates are simulated past 2,048 s, where
 * every fractional run used to stop ("simulated time stopped advancing", exit 2), so no plan
 * could be made for a scenario longer than about 34 minutes. The three services at a tenth of
 * their load, to keep the test short. */
static void test_forty_minutes(void)
{
    char *text =
        tu_fixture_patch("plan/three-services.json",
                         "{\"stop\": {\"duration_s\": 2400}, \"tenants.0.arrival.rate_per_s\": "
                         "2, \"tenants.1.arrival.rate_per_s\": 20, "
                         "\"tenants.2.arrival.rate_per_s\": 5}");
    char *path = tu_write("forty-minutes.json", text);
    free(text);
    char cmd[1200], out_path[600];
    snprintf(out_path, sizeof out_path, "%s/forty-minutes.plan.json", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --json %s --quiet", path, out_path);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    char *res = tu_slurp(out_path);
    cJSON *doc = res ? cJSON_Parse(res) : NULL;
    free(res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    int fractional_simulated = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "candidates"))
    {
        fractional_simulated +=
            tu_starts(cJSON_GetObjectItem(c, "label")->valuestring, "fractional") &&
            cJSON_IsTrue(cJSON_GetObjectItem(c, "simulated"));
    }
    CU_ASSERT(fractional_simulated >= 2);
    cJSON_Delete(doc);
}

static void test_three_services_as_deployed(void)
{
    /* The issue's three services (chat 20/s of 15 ms, embed 200/s of 1 ms, rerank 50/s of 4
     * ms on A100-80GB). Before: "mps 3 per GPU" recommended with uncapped clients. With the
     * device plugin's caps (each client 100/3 = 33 % of the threads) embed misses (p99 above
     * 20 ms), so MPS on one GPU is not recommended; time-slicing 2 per GPU is simulated in
     * the 3 placements Kubernetes may choose, and chat misses in the worst of them. The vGPU
     * candidates use a real vGPU type of the A100-80GB (three VMs a GPU: A100DX-20C), not a third
     * of its frame buffer. */
    cJSON *doc = plan_json_of("three-services.json", 0);
    const cJSON *mps3 = cand(doc, "mps 3 per GPU");
    CU_ASSERT_EQUAL(
        cJSON_GetObjectItem(
            cJSON_GetObjectItem(cJSON_GetObjectItem(mps3, "strategy"), "thread_pct"), "embed")
            ->valueint,
        33);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(mps3, "meets_sla")));
    CU_ASSERT(cJSON_GetObjectItem(cJSON_GetObjectItem(mps3, "p99_ms"), "embed")->valuedouble > 20);
    const cJSON *ts2 = cand(doc, "timeslice 2 per GPU, 3 placements");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(ts2, "placements")->valueint, 3);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(ts2, "meets_sla")));
    /* With the refill after each switch (timeslice_refill_us), chat next to embed's 200/s of
     * 1 ms requests pays a switch and a refill per embed request: the worst placement. */
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(ts2, "worst_placement")->valuestring,
                           "chat+embed | rerank");
    CU_ASSERT(cJSON_GetObjectItem(cJSON_GetObjectItem(ts2, "p99_ms"), "chat")->valuedouble > 100);
    const cJSON *vm;
    cJSON_ArrayForEach(
        vm, cJSON_GetObjectItem(
                cJSON_GetObjectItem(cand(doc, "vgpu 3 x A100DX-20C per GPU, best_effort on 1 GPU"),
                                    "strategy"),
                "vgpus"))
    {
        CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(vm, "type")->valuestring, "A100DX-20C");
        CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(vm, "fb_gb"));
    }
    /* Every candidate the plan says meets the SLAs does, run on its own through `sharesim
     * run`, in every placement it was simulated in: what is recommended is safe to apply. */
    int checked = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "candidates"))
    {
        if (!cJSON_IsTrue(cJSON_GetObjectItem(c, "meets_sla")))
            continue;
        int gpus = cJSON_GetObjectItem(c, "gpus")->valueint;
        const cJSON *pl = cJSON_GetObjectItem(c, "placement_strategies");
        if (!pl) {
            CU_ASSERT(
                run_meets("plan/three-services.json", cJSON_GetObjectItem(c, "strategy"), gpus));
            checked++;
            continue;
        }
        CU_ASSERT_EQUAL(cJSON_GetArraySize(pl), cJSON_GetObjectItem(c, "placements")->valueint);
        const cJSON *st;
        cJSON_ArrayForEach(st, pl)
        {
            CU_ASSERT(run_meets("plan/three-services.json", st, gpus));
            checked++;
        }
    }
    CU_ASSERT(checked >= 3);
    cJSON_Delete(doc);
}

static void test_mps_memory_rules_out(void)
{
    /* chat at 50 GB: the plugin caps each of 3 MPS clients at 80 / 3 = 26.7 GB of pinned
     * device memory, so "mps 3 per GPU" cannot run chat and is ruled out with the reason;
     * two a GPU (40 GB each) still cannot hold 50 GB. */
    char *text = tu_fixture_patch("plan/three-services.json", "{\"tenants.0.memory_gb\": 50}");
    char *path = tu_write("three-services-50gb.json", text);
    char out[700], cmd[1400];
    snprintf(out, sizeof out, "%s.plan.json", path);
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --json %s", path, out);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    char *res = tu_slurp(out);
    cJSON *doc = cJSON_Parse(res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *m3 = cand(doc, "mps 3 per GPU"), *m2 = cand(doc, "mps 2 per GPU");
    CU_ASSERT_FALSE(cJSON_IsTrue(cJSON_GetObjectItem(m3, "simulated")));
    TU_CHECK_CONTAINS(cJSON_GetObjectItem(m3, "pruned")->valuestring,
                      "chat needs 50 GB; the device plugin caps each of 3 MPS clients at 26.7 GB");
    TU_CHECK_CONTAINS(cJSON_GetObjectItem(m2, "pruned")->valuestring, "at 40.0 GB");
    cJSON_Delete(doc);
    free(res);
    free(text);
}

/* ---- Kubernetes artefacts: read back with libyaml, checked against each tool's schema ---- */

/* Every key of object o is one of allowed (the tool's documented fields): a misspelt or
 * invented key would be ignored by the tool, silently. One assertion per key. */
static void check_keys(const cJSON *o, const char *const *allowed)
{
    CU_ASSERT_FATAL(cJSON_IsObject(o));
    const cJSON *k;
    cJSON_ArrayForEach(k, o)
    {
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            ok |= strcmp(k->string, allowed[i]) == 0;
        if (!ok)
            fprintf(stderr, "\n  key \"%s\" is not in the tool's schema\n", k->string);
        CU_ASSERT(ok);
    }
}

static const cJSON *at(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        fprintf(stderr, "\n  missing key \"%s\"\n", key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    return v;
}

/* The one document of dir/file, parsed (the caller deletes the array it is in). */
static cJSON *yaml_in(const char *dir, const char *file, const cJSON **doc)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cJSON *docs = tu_yaml_file(path);
    CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(docs), 1);
    *doc = cJSON_GetArrayItem(docs, 0);
    return docs;
}

/* A ConfigMap (Kubernetes v1) in namespace ns; returns its data. */
static const cJSON *configmap_data(const cJSON *cm, const char *ns)
{
    static const char *const top[] = {"apiVersion", "kind", "metadata", "data", NULL};
    static const char *const meta[] = {"name", "namespace", "annotations", NULL};
    check_keys(cm, top);
    CU_ASSERT_STRING_EQUAL(at(cm, "apiVersion")->valuestring, "v1");
    CU_ASSERT_STRING_EQUAL(at(cm, "kind")->valuestring, "ConfigMap");
    check_keys(at(cm, "metadata"), meta);
    CU_ASSERT_STRING_EQUAL(at(at(cm, "metadata"), "namespace")->valuestring, ns);
    return at(cm, "data");
}

/* The container patch of pod-<tenant>.yaml: its resources.limits. */
static const cJSON *pod_limits(const cJSON *patch, const char *tenant)
{
    const cJSON *ctr = at(at(at(at(patch, "spec"), "template"), "spec"), "containers");
    CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(ctr), 1);
    const cJSON *c0 = cJSON_GetArrayItem(ctr, 0);
    CU_ASSERT_STRING_EQUAL(at(c0, "name")->valuestring, tenant);
    return at(at(c0, "resources"), "limits");
}

/* The device plugin's config (PLUGIN_CFG): version v1, flags, sharing.<how> with
 * renameByDefault, failRequestsGreaterThanOne and resources[].name/replicas. */
static void check_plugin_config(const char *text, const char *how, int replicas)
{
    static const char *const top[] = {"version", "flags", "sharing", NULL};
    static const char *const sharing[] = {"timeSlicing", "mps", NULL};
    static const char *const ts[] = {"renameByDefault", "failRequestsGreaterThanOne", "resources",
                                     NULL};
    static const char *const res[] = {"name", "rename", "devices", "replicas", NULL};
    cJSON *in = tu_yaml_text(text);
    const cJSON *cfg = cJSON_GetArrayItem(in, 0);
    check_keys(cfg, top);
    CU_ASSERT_STRING_EQUAL(at(cfg, "version")->valuestring, "v1");
    check_keys(at(cfg, "sharing"), sharing);
    const cJSON *sh = at(at(cfg, "sharing"), how);
    check_keys(sh, ts);
    /* Renaming only when the scenario asks ("k8s": {"rename": true}, tests/test_k8s.c). */
    CU_ASSERT(cJSON_IsFalse(at(sh, "renameByDefault")));
    CU_ASSERT(cJSON_IsTrue(at(sh, "failRequestsGreaterThanOne")));
    const cJSON *r = at(sh, "resources");
    CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(r), 1);
    check_keys(cJSON_GetArrayItem(r, 0), res);
    CU_ASSERT_STRING_EQUAL(at(cJSON_GetArrayItem(r, 0), "name")->valuestring, "nvidia.com/gpu");
    CU_ASSERT(cJSON_IsNumber(at(cJSON_GetArrayItem(r, 0), "replicas")));
    CU_ASSERT_EQUAL(at(cJSON_GetArrayItem(r, 0), "replicas")->valueint, replicas);
    cJSON_Delete(in);
}

static void test_mig_grows_and_prefers_free_capacity(void)
{
    /* a (60/s of 5 ms compute work, p99 SLA 40 ms) gets the smallest instance the analytic
     * filter lets through, 3g.40gb, and misses in simulation (one GPU); the planner retries
     * with a larger instance for a — 4g.40gb, still one GPU, misses — then 7g.80gb on a GPU
     * of its own, which meets. Two confirmed layouts cost the same (two GPUs): a on 7g.80gb
     * with b on 2g.20gb or on 3g.40gb; the plan takes the one that leaves more compute free
     * (5 of 7 slices of the second GPU: 0.71 GPUs, against 0.57) and says so. */
    cJSON *doc = plan_json_of("mig-grow.json", 0);
    const cJSON *rec = cJSON_GetObjectItem(doc, "recommendation");
    const cJSON *lays = cJSON_GetObjectItem(cJSON_GetObjectItem(rec, "strategy"), "layouts");
    char *text = cJSON_PrintUnformatted(lays);
    TU_CHECK_CONTAINS(text, "{\"profile\":\"7g.80gb\",\"tenants\":[\"a\"]}");
    TU_CHECK_CONTAINS(text, "{\"profile\":\"2g.20gb\",\"tenants\":[\"b\"]}");
    free(text);
    TU_CHECK_CONTAINS(cJSON_GetObjectItem(rec, "reason")->valuestring,
                      "because it leaves more capacity free (0.71 GPUs against 0.57");
    const cJSON *grown = cand(doc, "mig 4g.40gb+2g.20gb (larger for a)");
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(grown, "simulated")));
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(grown, "meets_sla")));
    CU_ASSERT_DOUBLE_EQUAL(
        cJSON_GetObjectItem(cand(doc, "mig 7g.80gb | 2g.20gb (larger for a)"), "free_gpus")
            ->valuedouble,
        5.0 / 7, 1e-6);
    cJSON_Delete(doc);
}

static void test_fractional_candidates(void)
{
    /* The three services, fractional only. Sized at 90 % utilisation and 90 % of each SLA
     * (chat 52 %, embed 26 %, rerank 30 %, 108 % in all) they need two GPUs, and HAMi may put
     * any two of them together: 3 placements; the one that leaves rerank alone (chat+embed
     * throttled on one GPU) misses. The next size that fits two GPUs, chat 78 % (which only
     * fits alone, so one placement), meets: the lone chat runs unthrottled under HAMi's
     * default policy. */
    char *text =
        tu_fixture_patch("plan/three-services.json", "{\"plan\": {\"kinds\": [\"fractional\"]}}");
    char *path = tu_write("three-services-fractional.json", text);
    char out[700], cmd[2200], dir[700];
    snprintf(out, sizeof out, "%s.plan.json", path);
    snprintf(dir, sizeof dir, "%s/fractional-out", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --json %s --k8s %s", path, out, dir);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    char *res = tu_slurp(out);
    cJSON *doc = cJSON_Parse(res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *tight = cand(doc, "fractional chat 52% embed 26% rerank 30%, 3 placements");
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(tight, "meets_sla")));
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(tight, "placements")->valueint, 3);
    const cJSON *rec = cJSON_GetObjectItem(doc, "recommendation");
    const cJSON *st = cJSON_GetObjectItem(rec, "strategy");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(st, "kind")->valuestring, "fractional");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetObjectItem(st, "cores"), "chat")->valueint, 78);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(rec, "gpus")->valueint, 2);
    /* Its artefacts: each pod's HAMi resources (gpumem in MiB), HAMi's Helm values. */
    const cJSON *pod, *values;
    cJSON *d1 = yaml_in(dir, "pod-chat.yaml", &pod);
    const cJSON *lim = pod_limits(pod, "chat");
    CU_ASSERT_EQUAL(at(lim, "nvidia.com/gpu")->valueint, 1);
    CU_ASSERT_EQUAL(at(lim, "nvidia.com/gpumem")->valueint, 20 * 1024);
    CU_ASSERT_EQUAL(at(lim, "nvidia.com/gpucores")->valueint, 78);
    cJSON *d2 = yaml_in(dir, "hami-values.yaml", &values);
    CU_ASSERT_STRING_EQUAL(at(at(at(values, "devices"), "nvidia"), "gpuCorePolicy")->valuestring,
                           "default");
    char *readme = tu_slurp_in(dir, "README.md");
    TU_CHECK_CONTAINS(readme, "does not enforce the core limit of a pod that is alone");
    free(readme);
    cJSON_Delete(d1);
    cJSON_Delete(d2);
    cJSON_Delete(doc);
    free(res);
    free(text);
}

static void test_k8s_timeslice_configmap(void)
{
    /* --k8s creates the folder with its parents, --namespace places the ConfigMap, and the
     * command lists what it wrote on stderr. */
    char dir[600], cmd[1400], err[4096];
    snprintf(dir, sizeof dir, "%s/nested/k8s-out", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --k8s %s --namespace gpu-ops",
             tu_fixture("plan/k8s-timeslice.json"), dir);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    TU_CHECK_CONTAINS(err, "wrote 6 files into");
    TU_CHECK_CONTAINS(err, "time-slicing-config.yaml gpu-operator-values.yaml node-labels.yaml "
                           "pod-a.yaml pod-b.yaml README.md");
    const cJSON *cm, *values, *pod;
    cJSON *d1 = yaml_in(dir, "time-slicing-config.yaml", &cm);
    const cJSON *data = configmap_data(cm, "gpu-ops");
    CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(data), 1);
    const cJSON *key = cJSON_GetArrayItem(data, 0);
    CU_ASSERT_STRING_EQUAL(key->string, "sharesim-k8s");
    check_plugin_config(key->valuestring, "timeSlicing", 2);
    /* Helm values naming that ConfigMap, and no default config: only the labelled nodes use
     * the key (GPUOP_SHARING). */
    cJSON *d2 = yaml_in(dir, "gpu-operator-values.yaml", &values);
    const cJSON *pc = at(at(values, "devicePlugin"), "config");
    CU_ASSERT_STRING_EQUAL(at(pc, "name")->valuestring,
                           at(at(cm, "metadata"), "name")->valuestring);
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(pc, "default"));
    /* Each tenant asks for one replica. */
    cJSON *d3 = yaml_in(dir, "pod-a.yaml", &pod);
    const cJSON *lim = pod_limits(pod, "a");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(lim), 1);
    CU_ASSERT_EQUAL(at(lim, "nvidia.com/gpu")->valueint, 1);
    char *readme = tu_slurp_in(dir, "README.md");
    TU_CHECK_CONTAINS(readme, "{\"name\": \"sharesim-time-slicing\"}");
    TU_CHECK_CONTAINS(readme, "`pod-b.yaml`");
    CU_ASSERT_PTR_NULL(strstr(readme, "CLOSEST"));
    free(readme);
    cJSON_Delete(d1);
    cJSON_Delete(d2);
    cJSON_Delete(d3);
}

static void test_k8s_mig_manager(void)
{
    /* Two light tenants, MIG only: one instance each, packed onto one GPU. 2g+2g and 3g+3g both
     * fit at the same cost and meet the SLAs; equal cost ranks by the capacity left free: the 2g
     * pair (3 of 7 compute slices free, against 1). The
     * mig-parted config (MIGPARTED) is in the mig-manager's ConfigMap, the node label names
     * it, the operator runs the device plugin's mixed strategy, and each pod requests its
     * instance as nvidia.com/mig-<profile>. */
    char dir[600], cmd[1400];
    snprintf(dir, sizeof dir, "%s/mig-out", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --k8s %s",
             tu_fixture("plan/k8s-mig.json"), dir);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    static const char *const parted[] = {"version", "mig-configs", NULL};
    static const char *const entry[] = {"devices", "mig-enabled", "mig-devices", NULL};
    const cJSON *cm, *label, *values, *pod;
    cJSON *d1 = yaml_in(dir, "mig-manager-config.yaml", &cm);
    cJSON *in = tu_yaml_text(at(configmap_data(cm, "gpu-operator"), "config.yaml")->valuestring);
    const cJSON *mp = cJSON_GetArrayItem(in, 0);
    check_keys(mp, parted);
    CU_ASSERT_STRING_EQUAL(at(mp, "version")->valuestring, "v1");
    const cJSON *conf = at(at(mp, "mig-configs"), "sharesim-migk8s"), *e;
    CU_ASSERT_EQUAL(cJSON_GetArraySize(conf), 1);
    cJSON_ArrayForEach(e, conf)
    {
        check_keys(e, entry);
        CU_ASSERT(cJSON_IsNumber(cJSON_GetArrayItem(at(e, "devices"), 0)));
        CU_ASSERT(cJSON_IsTrue(at(e, "mig-enabled")));
        CU_ASSERT_EQUAL(at(at(e, "mig-devices"), "2g.10gb")->valueint, 2);
    }
    /* all-disabled stays available (a custom config replaces the operator's default). */
    CU_ASSERT(cJSON_IsFalse(
        at(cJSON_GetArrayItem(at(at(mp, "mig-configs"), "all-disabled"), 0), "mig-enabled")));
    cJSON *d2 = yaml_in(dir, "node-labels.yaml", &label);
    CU_ASSERT_STRING_EQUAL(
        at(at(at(label, "metadata"), "labels"), "nvidia.com/mig.config")->valuestring,
        "sharesim-migk8s");
    cJSON *d3 = yaml_in(dir, "gpu-operator-values.yaml", &values);
    CU_ASSERT_STRING_EQUAL(at(at(values, "mig"), "strategy")->valuestring, "mixed");
    CU_ASSERT_STRING_EQUAL(at(at(at(values, "migManager"), "config"), "name")->valuestring,
                           at(at(cm, "metadata"), "name")->valuestring);
    cJSON *d4 = yaml_in(dir, "pod-b.yaml", &pod);
    CU_ASSERT_EQUAL(at(pod_limits(pod, "b"), "nvidia.com/mig-2g.10gb")->valueint, 1);
    char *readme = tu_slurp_in(dir, "README.md");
    TU_CHECK_CONTAINS(readme, "nvidia.com/mig.config=sharesim-migk8s");
    TU_CHECK_CONTAINS(readme, "{\"mig\": {\"strategy\": \"mixed\"}");
    free(readme);
    cJSON_Delete(in);
    cJSON_Delete(d1);
    cJSON_Delete(d2);
    cJSON_Delete(d3);
    cJSON_Delete(d4);
}

static void test_k8s_closest_marked(void)
{
    /* Nothing meets the SLA (impossible-sla.json): exit 1, the closest candidate's artefacts
     * are written anyway, every file and stderr say it is the closest, not a recommendation. */
    char dir[600], cmd[1400], err[4096];
    snprintf(dir, sizeof dir, "%s/closest-out", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --k8s %s",
             tu_fixture("plan/impossible-sla.json"), dir);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 1);
    TU_CHECK_CONTAINS(err, "holds the closest candidate");
    TU_CHECK_CONTAINS(err, "t misses by");
    char *pod = tu_slurp_in(dir, "pod-t.yaml"), *readme = tu_slurp_in(dir, "README.md");
    TU_CHECK_CONTAINS(pod, "# CLOSEST CANDIDATE, NOT A RECOMMENDATION");
    TU_CHECK_CONTAINS(readme, "This is the closest candidate, not a recommendation");
    free(pod);
    free(readme);
}

static void test_k8s_names_do_not_clash(void)
{
    /* Tenants "a" and "A" reduce to one Kubernetes name: the second pod is "a-1", in a file
     * of its own, not written over the first. */
    char *text = tu_fixture_patch("plan/k8s-timeslice.json", "{\"tenants.1.name\": \"A\"}");
    char *path = tu_write("k8s-clash.json", text);
    char cmd[1400], dir[700];
    snprintf(dir, sizeof dir, "%s/clash-out", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --k8s %s", path, dir);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    const cJSON *p1, *p2;
    cJSON *d1 = yaml_in(dir, "pod-a.yaml", &p1), *d2 = yaml_in(dir, "pod-a-1.yaml", &p2);
    pod_limits(p1, "a");
    pod_limits(p2, "a-1");
    cJSON_Delete(d1);
    cJSON_Delete(d2);
    free(text);
}

static void test_k8s_vgpu_types(void)
{
    /* A vGPU plan is configured in the hypervisor: the README names the vGPU type of each VM,
     * one of the profile's real types, and each pod asks for the one GPU its VM sees. */
    char *text =
        tu_fixture_patch("plan/three-services.json", "{\"plan\": {\"kinds\": [\"vgpu\"]}}");
    char *path = tu_write("three-services-vgpu.json", text);
    char cmd[1400], dir[700];
    snprintf(dir, sizeof dir, "%s/vgpu-out", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --k8s %s", path, dir);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    char *readme = tu_slurp_in(dir, "README.md");
    TU_CHECK_CONTAINS(readme, "- chat: A100DX-20C (20 GB frame buffer)");
    free(readme);
    const cJSON *pod;
    cJSON *d1 = yaml_in(dir, "pod-rerank.yaml", &pod);
    CU_ASSERT_EQUAL(at(pod_limits(pod, "rerank"), "nvidia.com/gpu")->valueint, 1);
    cJSON_Delete(d1);
    free(text);
}

static void test_k8s_bad_namespace(void)
{
    char cmd[1400], err[4096];
    snprintf(cmd, sizeof cmd,
             "plan --no-headroom %s --quiet --k8s %s/ns-out --namespace GPU_Operator",
             tu_fixture("plan/k8s-timeslice.json"), tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "is not a Kubernetes namespace name");
}

/* --namespace follows RFC 1123's label rule: '' was accepted, 63 characters were refused. */
static void test_k8s_namespace_rule(void)
{
    static const struct {
        const char *ns, *says;
    } bad[] = {
        {"''", "an empty namespace"},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
         "64 characters, longer than the limit of 63"},
        {"-ops", "starts or ends with '-'"},
        {"ops-", "starts or ends with '-'"},
        {"gpu.ops", "character 4 is not a lower-case letter, digit or '-'"},
    };
    char cmd[1400], err[4096], dir[700];
    snprintf(dir, sizeof dir, "%s/ns-rule-out", tu_tmpdir());
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --k8s %s --namespace %s",
                 tu_fixture("plan/k8s-timeslice.json"), dir, bad[i].ns);
        CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
        TU_CHECK_CONTAINS(err, bad[i].says);
        TU_CHECK_CONTAINS(err, "RFC 1123");
        CU_ASSERT_FALSE(tu_exists(dir));
    }
    const char *max = "a23456789012345678901234567890123456789012345678901234567890123";
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --k8s %s --namespace %s",
             tu_fixture("plan/k8s-timeslice.json"), dir, max);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    const cJSON *cm;
    cJSON *d = yaml_in(dir, "time-slicing-config.yaml", &cm);
    configmap_data(cm, max);
    cJSON_Delete(d);
}

/* A symbolic link inside the --k8s folder was followed and the file outside overwritten. The
 * folder is now written as a whole (tools/plandir.h): a plan's folder with links planted in it is
 * replaced by a fresh one, the links move to DIR.previous as links, what they point to stays as
 * it was; a folder planted at an artefact's name moves aside too. */
static void test_k8s_links_not_followed(void)
{
    char dir[700], outside[700], link[800], cmd[1600];
    snprintf(dir, sizeof dir, "%s/links-out", tu_tmpdir());
    snprintf(outside, sizeof outside, "%s/outside.txt", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --k8s %s",
             tu_fixture("plan/k8s-timeslice.json"), dir);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    FILE *fp = fopen(outside, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("not to be touched\n", fp);
    fclose(fp);
    const char *names[] = {"pod-a.yaml", "time-slicing-config.yaml", "README.md"};
    for (int i = 0; i < 3; i++) {
        snprintf(link, sizeof link, "%s/%s", dir, names[i]);
        CU_ASSERT_EQUAL_FATAL(unlink(link), 0);
        CU_ASSERT_EQUAL_FATAL(symlink(outside, link), 0);
    }
    snprintf(link, sizeof link, "%s/pod-b.yaml", dir);
    CU_ASSERT_EQUAL_FATAL(unlink(link), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(link, 0777), 0);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    char *text = tu_slurp(outside);
    CU_ASSERT_STRING_EQUAL(text, "not to be touched\n");
    free(text);
    for (int i = 0; i < 3; i++) {
        struct stat st;
        snprintf(link, sizeof link, "%s/%s", dir, names[i]);
        CU_ASSERT_EQUAL_FATAL(lstat(link, &st), 0);
        CU_ASSERT(S_ISREG(st.st_mode));
        snprintf(link, sizeof link, "%s.previous/%s", dir, names[i]);
        CU_ASSERT_EQUAL_FATAL(lstat(link, &st), 0);
        CU_ASSERT(S_ISLNK(st.st_mode));
    }
    const cJSON *pod;
    cJSON *d = yaml_in(dir, "pod-a.yaml", &pod);
    pod_limits(pod, "a");
    cJSON_Delete(d);
    d = yaml_in(dir, "pod-b.yaml", &pod);
    pod_limits(pod, "b");
    cJSON_Delete(d);
    /* The next plan must remove that DIR.previous, which holds a folder: it says so and leaves
     * DIR as it was. */
    char err[4096];
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "links-out.previous: cannot remove the older plan");
    struct stat st;
    snprintf(link, sizeof link, "%s/pod-a.yaml", dir);
    CU_ASSERT(lstat(link, &st) == 0 && S_ISREG(st.st_mode));
}

/* ---- names through every artefact writer (the issue's property test, YAML half) ---- */

/* The names of the issue's YAML injection: refused at load, no folder written. */
static void test_k8s_injection_refused(void)
{
    static const char *const patches[] = {
        "{\"name\": \"k8s\\u2028kind: Secret\"}",
        "{\"tenants.0.name\": \"a\\u0085kind: Secret\"}",
        "{\"tenants.1.name\": \"b\\nkind: Secret\"}",
    };
    char cmd[1400], err[4096], dir[700];
    snprintf(dir, sizeof dir, "%s/inject-out", tu_tmpdir());
    for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
        char *path = tu_fixture_write("inject.json", "plan/k8s-timeslice.json", "%s", patches[i]);
        snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --k8s %s", path, dir);
        CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
        TU_CHECK_CONTAINS(err, "docs/scenario.md#names");
        CU_ASSERT_FALSE(tu_exists(dir));
    }
}

/* A fixed-seed generator for the property test (xorshift64*). */
static unsigned long long prop_state = 0x9E3779B97F4A7C15ull;
static unsigned prop_next(unsigned n)
{
    prop_state ^= prop_state >> 12;
    prop_state ^= prop_state << 25;
    prop_state ^= prop_state >> 27;
    return (unsigned)((prop_state * 2685821657736338717ull) >> 33) % n;
}

/* A random name: pieces that a YAML or HTML reader would take for structure, and, one time in
 * four, one the name rule refuses (a line break of some kind, a control, a comma or quote). */
static void random_name(char *out, size_t n)
{
    static const char *const odd[] = {": ",
                                      " #",
                                      "# ",
                                      "- ",
                                      "? ",
                                      "|",
                                      ">",
                                      "{",
                                      "}",
                                      "[",
                                      "]",
                                      "&x",
                                      "*y",
                                      "!t",
                                      "%",
                                      "@",
                                      "`",
                                      "'",
                                      "''",
                                      " ",
                                      "---",
                                      "...",
                                      "<b>",
                                      "&amp;",
                                      "kind: Secret",
                                      "chat",
                                      "GPU-1",
                                      "caf\xc3\xa9",
                                      "\xe6\x97\xa5",
                                      "\xe2\x80\xa7",
                                      "\xc2\xa0",
                                      "\xf0\x9f\x99\x82",
                                      "=",
                                      "\\",
                                      "/",
                                      "~",
                                      "1",
                                      "true",
                                      "0x1",
                                      "{a: b}",
                                      "[c, ]"};
    static const char *const refused[] = {"\n",       "\r",       "\t",           "\x7f",
                                          "\xc2\x85", "\xc2\x9b", "\xe2\x80\xa8", "\xe2\x80\xa9",
                                          ",",        "\"",       "\x01"};
    size_t k = 0;
    out[0] = '\0';
    int pieces = 1 + (int)prop_next(4), bad_at = prop_next(4) == 0 ? (int)prop_next(pieces) : -1;
    for (int i = 0; i < pieces; i++) {
        const char *p = i == bad_at ? refused[prop_next(sizeof refused / sizeof refused[0])]
                                    : odd[prop_next(sizeof odd / sizeof odd[0])];
        k += (size_t)snprintf(out + k, k < n ? n - k : 0, "%s", p);
    }
}

/* Every key of o is in keys and every one of keys is in o. */
static void check_exact_keys(const cJSON *o, const char *const *keys, const char *file)
{
    int n = 0;
    for (; keys[n]; n++)
        if (!cJSON_GetObjectItemCaseSensitive(o, keys[n])) {
            fprintf(stderr, "\n  %s: key \"%s\" missing\n", file, keys[n]);
            CU_FAIL("a key missing");
        }
    if (cJSON_GetArraySize(o) != n)
        fprintf(stderr, "\n  %s: %d top-level keys, expected %d\n", file, cJSON_GetArraySize(o), n);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(o), n);
    check_keys(o, keys);
}

/* The annotations every object with metadata carries name the scenario and GPU as given. */
static void check_annotations(const cJSON *meta, const char *scn, const char *gpu)
{
    const cJSON *a = at(meta, "annotations");
    CU_ASSERT_STRING_EQUAL(at(a, "sharesim.io/scenario")->valuestring, scn);
    CU_ASSERT_STRING_EQUAL(at(a, "sharesim.io/gpu")->valuestring, gpu);
}

/* One plan's folder: each YAML file parses to one document with exactly its file's top-level
 * keys (and so do the configs carried in a ConfigMap), and the names round-trip as scalars.
 * Returns how many pod patches name `tenant`; *mig_hit is set when `mig` is a key of a
 * mig-manager config. */
static int check_folder(const char *dir, const char *kind, const char *scn, const char *gpu,
                        const char *tenant, const char *mig, int *mig_hit)
{
    static const char *const cm_keys[] = {"apiVersion", "kind", "metadata", "data", NULL};
    static const char *const pod_keys[] = {"apiVersion", "kind", "metadata", "spec", NULL};
    static const char *const dp_values[] = {"devicePlugin", NULL};
    static const char *const mig_values[] = {"mig", "migManager", NULL};
    static const char *const hami[] = {"devices", NULL};
    static const char *const label[] = {"apiVersion", "kind", "metadata", NULL};
    static const char *const plugin_cfg[] = {"version", "flags", "sharing", NULL};
    static const char *const mig_cfg[] = {"version", "mig-configs", NULL};
    int tenant_pods = 0;
    DIR *dh = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dh);
    struct dirent *de;
    while ((de = readdir(dh))) {
        const char *f = de->d_name;
        size_t len = strlen(f);
        if (len < 5 || strcmp(f + len - 5, ".yaml") != 0)
            continue;
        const cJSON *doc;
        cJSON *docs = yaml_in(dir, f, &doc);
        if (strncmp(f, "pod-", 4) == 0) {
            check_exact_keys(doc, pod_keys, f);
            const cJSON *meta = at(doc, "metadata");
            check_annotations(meta, scn, gpu);
            tenant_pods +=
                strcmp(at(at(meta, "annotations"), "sharesim.io/tenant")->valuestring, tenant) == 0;
        } else if (strcmp(f, "gpu-operator-values.yaml") == 0) {
            check_exact_keys(doc, strcmp(kind, "mig") == 0 ? mig_values : dp_values, f);
        } else if (strcmp(f, "hami-values.yaml") == 0) {
            check_exact_keys(doc, hami, f);
        } else if (strncmp(f, "node-", 5) == 0) {
            check_exact_keys(doc, label, f);
        } else if (strcmp(f, "time-slicing-config.yaml") == 0 ||
                   strcmp(f, "mps-config.yaml") == 0 || strcmp(f, "mig-manager-config.yaml") == 0) {
            check_exact_keys(doc, cm_keys, f);
            CU_ASSERT_STRING_EQUAL(at(doc, "kind")->valuestring, "ConfigMap");
            check_annotations(at(doc, "metadata"), scn, gpu);
            const cJSON *v;
            cJSON_ArrayForEach(v, at(doc, "data"))
            {
                CU_ASSERT_FATAL(cJSON_IsString(v));
                cJSON *in = tu_yaml_text(v->valuestring);
                CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(in), 1);
                const cJSON *cfg = cJSON_GetArrayItem(in, 0);
                int is_mig = strcmp(f, "mig-manager-config.yaml") == 0;
                check_exact_keys(cfg, is_mig ? mig_cfg : plugin_cfg, f);
                const cJSON *conf, *e;
                if (is_mig)
                    cJSON_ArrayForEach(conf, at(cfg, "mig-configs")) cJSON_ArrayForEach(e, conf)
                    {
                        const cJSON *devs = cJSON_GetObjectItemCaseSensitive(e, "mig-devices");
                        *mig_hit |= devs && cJSON_GetObjectItemCaseSensitive(devs, mig) != NULL;
                    }
                cJSON_Delete(in);
            }
        } else {
            fprintf(stderr, "\n  unexpected artefact %s\n", f);
            CU_FAIL("an artefact no test knows");
        }
        cJSON_Delete(docs);
    }
    closedir(dh);
    return tenant_pods;
}

/* The shipped A100-80GB profile with its name or its 2g.20gb MIG profile (the one the MIG plan
 * of k8s-timeslice.json uses) renamed; returns the file's path. */
static char *profile_named(const char *gpu, const char *mig)
{
    char src[1024];
    snprintf(src, sizeof src, "%s/kernels/profiles/a100-80gb.json", tu_root());
    char *text = tu_slurp(src);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    cJSON_ReplaceItemInObject(doc, "name", cJSON_CreateString(gpu));
    cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "mig_profiles"), "value"))
    {
        if (strcmp(cJSON_GetObjectItem(m, "name")->valuestring, "2g.20gb") == 0)
            cJSON_ReplaceItemInObject(m, "name", cJSON_CreateString(mig));
    }
    char *out = cJSON_Print(doc);
    cJSON_Delete(doc);
    char *path = tu_write("prop-profile.json", out);
    cJSON_free(out);
    return path;
}

static void test_k8s_random_names(void)
{
    /* 72 plans (seeded): each artefact writer (six strategy kinds) with a random name in each
     * of four places (scenario, tenant, GPU profile, MIG profile). A name the rule refuses is
     * exit 2 and no folder; an accepted one gives files whose YAML has exactly the expected
     * keys and carries the name back as a scalar. */
    static const char *const kinds[] = {"timeslice",  "mps", "exclusive",
                                        "fractional", "mig", "vgpu"};
    char name[256], why[SS_ERRLEN], dir[800], cmd[2400];
    int refused = 0, accepted = 0;
    /* under valgrind (50× slower) 24: still every kind with a name in each of the four places */
    int n_plans = tu_under_valgrind() ? 24 : 72;
    for (int i = 0; i < n_plans; i++) {
        const char *kind = kinds[i % 6];
        int role = (i / 6) % 4;
        random_name(name, sizeof name);
        if (role == 3)
            kind = "mig";
        char *fixture = tu_fixture_patch("plan/k8s-timeslice.json", NULL);
        cJSON *sc = cJSON_Parse(fixture);
        free(fixture);
        CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
        char scn[256] = "k8s", tenant[256] = "a", gpu[256] = "A100-80GB", mig[256] = "2g.20gb";
        snprintf(role == 0 ? scn : role == 1 ? tenant : role == 2 ? gpu : mig, 256, "%s", name);
        cJSON_ReplaceItemInObject(sc, "name", cJSON_CreateString(scn));
        cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(sc, "tenants"), 0), "name",
                                  cJSON_CreateString(tenant));
        if (role >= 2)
            cJSON_ReplaceItemInObject(sc, "gpu", cJSON_CreateString(profile_named(gpu, mig)));
        cJSON *kl = cJSON_CreateArray();
        cJSON_AddItemToArray(kl, cJSON_CreateString(kind));
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(sc, "plan"), "kinds", kl);
        char *text = cJSON_Print(sc);
        cJSON_Delete(sc);
        char *path = tu_write("prop.json", text);
        cJSON_free(text);
        snprintf(dir, sizeof dir, "%s/prop-out-%d", tu_tmpdir(), i);
        snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --k8s %s", path, dir);
        int rc = tu_cli(cmd, NULL, 0, NULL, 0);
        if (name_check(name, why, sizeof why)) {
            refused++;
            CU_ASSERT_EQUAL(rc, 2);
            CU_ASSERT_FALSE(tu_exists(dir));
            continue;
        }
        accepted++;
        if (rc != 0 && rc != 1)
            fprintf(stderr, "\n  plan %s (%s, role %d): exit %d\n", name, kind, role, rc);
        CU_ASSERT_FATAL(rc == 0 || rc == 1);
        int mig_hit = 0;
        int pods = check_folder(dir, kind, scn, gpu, tenant, mig, &mig_hit);
        CU_ASSERT_EQUAL(pods, 1); /* tenant "a" (or its random name) has one pod patch */
        if (role == 3 && strstr(name, "+me") == NULL)
            CU_ASSERT(mig_hit);
    }
    /* The seed gives both outcomes (a changed generator that stopped doing so would show). */
    CU_ASSERT(refused >= n_plans / 9);
    CU_ASSERT(accepted >= n_plans * 5 / 9);
}

/* An LLM tenant's TPOT target counts like a p99 target: Llama-2-7B FP16 on an A100-80GB
 * decodes no faster than its bandwidth bound (6.6 ms a token at batch 1), so a 5 ms TPOT p99 is
 * missed whatever the pool, while 30 ms is met on one GPU. */
static void test_llm_tpot(void)
{
    cJSON *doc = plan_json_of("llm-tpot.json", 0);
    const cJSON *rec = cJSON_GetObjectItem(doc, "recommendation");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(rec, "gpus")->valueint, 1);
    double m = cJSON_GetObjectItem(rec, "worst_sla_margin")->valuedouble;
    CU_ASSERT(m > 0 && m < 1); /* a finite margin: the TPOT target was measured */
    cJSON_Delete(doc);
    const char *p = tu_fixture_write("llm-tpot-5.json", "plan/llm-tpot.json",
                                     "{\"tenants.0.sla.tpot_p99_ms\": %d}", 5);
    char cmd[1200], out[8192];
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s", p);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 1);
    TU_CHECK_CONTAINS(out, "closest");
    TU_CHECK_CONTAINS(out, "(chat: TPOT p99 ");
    TU_CHECK_CONTAINS(out, "> 5 ms; worst ");
}

/* The candidate labelled `label` in a plan's JSON, or NULL. */
static const cJSON *cand_labelled(const cJSON *doc, const char *label)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "candidates"))
    {
        const cJSON *l = cJSON_GetObjectItem(c, "label");
        if (cJSON_IsString(l) && strcmp(l->valuestring, label) == 0)
            return c;
    }
    return NULL;
}

/*
 * MIG candidates for LLM tenants, by hand. Two Llama-2-7B FP16 services with a 25 ms TPOT p99
 * target on an A100-80GB: the 13.48 GB of weights do not fit a 1g.10gb (0.9 × 9.75 = 8.78 GB
 * usable); a 1g.20gb or 2g.20gb has 2 of the 8 memory slices, so even a one-token decode step
 * reads the weights at 2039 × 2/8 × 0.85 = 433 GB/s: 31.1 ms, above 25 ms whatever the batch.
 * Each is ruled out with those numbers. A 3g.40gb (4 slices: 15.6 ms a step) meets the target,
 * and two fit one GPU: the plan is one GPU of MIG against two of exclusive. The strategies that
 * do not serve LLM tenants are listed as such, not tried.
 */
static void test_llm_mig(void)
{
    cJSON *doc = plan_json_of("llm-mig.json", 0);
    const cJSON *rec = cJSON_GetObjectItem(doc, "recommendation");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(rec, "gpus")->valueint, 1);
    /* Two 3g.40gb instances on one GPU meet both TPOT targets (so do MPS and time-slicing of
     * the two engines on one GPU, since MPS shares the bandwidth by demand; the recommendation
     * is one of the one-GPU plans). */
    const cJSON *best = cand_labelled(doc, "mig 3g.40gb+3g.40gb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(best);
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(best, "meets_sla")));
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(best, "gpus")->valueint, 1);
    const cJSON *lay = cJSON_GetArrayItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(best, "strategy"), "layouts"),
                           0),
        0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lay);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(lay, "profile")->valuestring, "3g.40gb");
    /* The TPOT p99 is at least the 3g.40gb's one-token step, 13.48 GB at 866.6 GB/s = 15.6 ms:
     * a margin of at most (25 − 15.6) / 25. */
    double m = cJSON_GetObjectItem(best, "worst_sla_margin")->valuedouble;
    CU_ASSERT(m > 0 && m < (25 - 15.55) / 25);
    /* The margin is the worse tenant's TPOT against its 25 ms, as the candidate reports it. */
    const cJSON *tpot = cJSON_GetObjectItem(best, "tpot_p99_ms");
    double worst = fmax(cJSON_GetObjectItem(tpot, "chat")->valuedouble,
                        cJSON_GetObjectItem(tpot, "summarise")->valuedouble);
    CU_ASSERT(worst >= 15.55);
    TU_CHECK_CLOSE_REL(m, (25 - worst) / 25, 1e-4);
    CU_ASSERT(cJSON_GetObjectItem(cJSON_GetObjectItem(best, "ttft_p99_ms"), "chat")->valuedouble >
              0);
    const cJSON *ex = cand_labelled(doc, "exclusive chatx1 summarisex1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(ex, "gpus")->valueint, 2);
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(ex, "meets_sla")));
    const cJSON *c10 = cand_labelled(doc, "mig 1g.10gb for chat");
    const cJSON *c20 = cand_labelled(doc, "mig 1g.20gb for chat");
    const cJSON *fr = cand_labelled(doc, "fractional");
    CU_ASSERT_FATAL(c10 && c20 && fr);
    TU_CHECK_CONTAINS(cJSON_GetObjectItem(c10, "pruned")->valuestring,
                      "13.48 GB of fp16 Llama-2-7B weights do not fit the 1g.10gb instance's 9.75 "
                      "GB (10.47 GB of 10⁹ bytes × gpu_memory_utilization 0.9 = 9.42 GB)");
    /* The floor is the step model's one-token decode on the instance's shares (its figure
     * moves with the engine table; the weights alone at 510 GB/s take 26.4 ms). */
    const char *why20 = cJSON_GetObjectItem(c20, "pruned")->valuestring;
    TU_CHECK_CONTAINS(why20, "over 2/8 of the bandwidth (510 GB/s): TPOT at least ");
    TU_CHECK_CONTAINS(why20, " ms > SLA 25 ms");
    const char *at = strstr(why20, "TPOT at least ");
    CU_ASSERT_FATAL(at != NULL);
    double floor_ms = atof(at + strlen("TPOT at least "));
    CU_ASSERT(floor_ms > 13.48e9 / 510e9 * 1e3 && floor_ms < 60);
    /* fractional is the one shipped strategy without serves_llm: listed once, not tried. */
    TU_CHECK_CONTAINS(cJSON_GetObjectItem(fr, "pruned")->valuestring,
                      "fractional does not serve LLM tenants yet (chat has \"serving\")");
    /* Nothing was refused by the loader: every ruled-out instance was ruled out by its numbers. */
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "candidates"))
    {
        const cJSON *pr = cJSON_GetObjectItem(c, "pruned");
        CU_ASSERT(!cJSON_IsString(pr) || !strstr(pr->valuestring, "rejected by the loader"));
    }
    cJSON_Delete(doc);
}

/* Candidate labels are never identical (two vGPU pools that differ only in their size read the
 * same before) and never cut in the table (a 56-character label was cut at 44). */
static void test_labels_distinct_and_whole(void)
{
    static const char *const fx[] = {"light-tenants.json", "three-services.json"};
    for (int f = 0; f < 2; f++) {
        cJSON *doc = plan_json_of(fx[f], 0);
        char cmd[700], *out = calloc(1, 1 << 16);
        snprintf(cmd, sizeof cmd, "plan --no-headroom tests/fixtures/plan/%s", fx[f]);
        tu_cli(cmd, out, 1 << 16, NULL, 0);
        const cJSON *a, *b;
        int dups = 0, cut = 0;
        cJSON_ArrayForEach(a, cJSON_GetObjectItem(doc, "candidates"))
        {
            const char *la = cJSON_GetObjectItem(a, "label")->valuestring;
            cut += strstr(out, la) == NULL;
            cJSON_ArrayForEach(b, cJSON_GetObjectItem(doc, "candidates"))
            {
                dups += a != b && strcmp(la, cJSON_GetObjectItem(b, "label")->valuestring) == 0;
            }
        }
        CU_ASSERT_EQUAL(dups, 0);
        CU_ASSERT_EQUAL(cut, 0);
        free(out);
        cJSON_Delete(doc);
    }
}

void test_plan_register(void)
{
    static const struct tu_test t[] = {
        {"Erlang C sizing: 3000/s at p99 5.5 ms needs 5 GPUs", test_erlang_c_sizing},
        {"two light tenants share one GPU", test_light_tenants_share},
        {"an impossible SLA exits 1 with the closest candidate", test_impossible_sla},
        {"three services: MPS with the plugin's caps, time-slicing in every placement",
         test_three_services_as_deployed},
        {"MPS: a tenant above memory / replicas rules the candidate out",
         test_mps_memory_rules_out},
        {"MIG: a larger instance for the tenant that missed; free capacity breaks the tie",
         test_mig_grows_and_prefers_free_capacity},
        {"fractional: sizes, placements, HAMi artefacts", test_fractional_candidates},
        {"time-slicing: device plugin ConfigMap, Helm values, pods (libyaml, schema)",
         test_k8s_timeslice_configmap},
        {"MIG: mig-manager ConfigMap, node label, mixed strategy, pods", test_k8s_mig_manager},
        {"nothing meets the SLAs: the closest candidate's files, marked", test_k8s_closest_marked},
        {"--namespace must be a Kubernetes name", test_k8s_bad_namespace},
        {"--namespace: RFC 1123 label, '' and 64 characters refused, 63 kept",
         test_k8s_namespace_rule},
        {"links inside the --k8s folder are replaced, never followed", test_k8s_links_not_followed},
        {"YAML injection through names: refused at load", test_k8s_injection_refused},
        {"random names through every artefact writer: exact keys, names round-trip",
         test_k8s_random_names},
        {"two tenants with one Kubernetes name get two pods", test_k8s_names_do_not_clash},
        {"vGPU: real vGPU types in the README, one GPU a pod", test_k8s_vgpu_types},
        {"an LLM tenant's TPOT target decides the plan", test_llm_tpot},
        {"a 40-minute scenario: fractional candidates simulated past 2,048 s", test_forty_minutes},
        {"LLM tenants under MIG: instances ruled out by their numbers, 3g.40gb x2 on one GPU",
         test_llm_mig},
        {"candidate labels are never identical and never cut", test_labels_distinct_and_whole},
        {NULL, NULL},
    };
    tu_add_suite("plan", t);
}
