/* Tests: the Kubernetes artefacts of `sharesim plan --k8s` as an operator applies them to a
 * live cluster (issue 35): per-node configs that reach only the named nodes, Helm steps that
 * keep the other values, patches of the tenant's real workload and container with the replicas
 * and the engine flags the simulation assumed, every object checked against the Kubernetes
 * OpenAPI schemas (kubernetes-validate) and the NVIDIA and HAMi config formats. */
#include "testutil.h"

#include <cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- reading the folders -------------------------------------------------- */

static const cJSON *at(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        fprintf(stderr, "\n  missing key \"%s\"\n", key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    return v;
}

/* Every key of o is one of allowed (a config kind's documented keys). */
static void keys_in(const cJSON *o, const char *const *allowed, const char *where)
{
    CU_ASSERT_FATAL(cJSON_IsObject(o));
    const cJSON *k;
    cJSON_ArrayForEach(k, o)
    {
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            ok |= strcmp(k->string, allowed[i]) == 0;
        if (!ok)
            fprintf(stderr, "\n  %s: key \"%s\" is not a documented key\n", where, k->string);
        CU_ASSERT(ok);
    }
}

/* The one document of dir/file (the caller deletes the array it is in). */
static cJSON *doc_in(const char *dir, const char *file, const cJSON **doc)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cJSON *docs = tu_yaml_file(path);
    CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(docs), 1);
    *doc = cJSON_GetArrayItem(docs, 0);
    return docs;
}

/* `sharesim plan FIXTURE --quiet --k8s DIR EXTRA`, patched as by tu_fixture_patch; exit code. */
static int plan_into(const char *rel, const char *patch, const char *dir, const char *extra,
                     char *err, size_t errlen)
{
    char *text = tu_fixture_patch(rel, patch);
    char name[200], cmd[3000];
    static int seq;
    snprintf(name, sizeof name, "k8s-%d.json", seq++);
    char *path = tu_write(name, text);
    free(text);
    /* The artefacts are the recommendation's; the sensitivity reruns (suite plansens) change
     * none of them, so they are left out here. */
    snprintf(cmd, sizeof cmd, "plan --no-headroom --no-sensitivity %s --quiet --k8s %s %s", path,
             dir, extra ? extra : "");
    return tu_cli(cmd, NULL, 0, err, errlen);
}

static char *out_dir(const char *name)
{
    static char dirs[16][700];
    static int k;
    char *d = dirs[k++ % 16];
    snprintf(d, 700, "%s/%s", tu_tmpdir(), name);
    return d;
}

/* ---- the NVIDIA and HAMi formats: a whitelist of documented keys per config kind ---- */

/* The device plugin's config (PLUGIN_CFG): version, flags.migStrategy, sharing.timeSlicing
 * (renameByDefault, failRequestsGreaterThanOne, resources) or sharing.mps (renameByDefault,
 * resources; MPS ignores failRequestsGreaterThanOne). */
static void check_plugin_config(const char *text, const char *where)
{
    static const char *const top[] = {"version", "flags", "sharing", NULL};
    static const char *const flags[] = {"migStrategy", NULL};
    static const char *const sharing[] = {"timeSlicing", "mps", NULL};
    static const char *const ts[] = {"renameByDefault", "failRequestsGreaterThanOne", "resources",
                                     NULL};
    static const char *const mps[] = {"renameByDefault", "resources", NULL};
    static const char *const res[] = {"name", "rename", "devices", "replicas", NULL};
    cJSON *in = tu_yaml_text(text);
    const cJSON *cfg = cJSON_GetArrayItem(in, 0), *sh, *r;
    keys_in(cfg, top, where);
    CU_ASSERT_STRING_EQUAL(at(cfg, "version")->valuestring, "v1");
    keys_in(at(cfg, "flags"), flags, where);
    keys_in(at(cfg, "sharing"), sharing, where);
    cJSON_ArrayForEach(sh, at(cfg, "sharing"))
    {
        keys_in(sh, strcmp(sh->string, "mps") == 0 ? mps : ts, where);
        cJSON_ArrayForEach(r, at(sh, "resources"))
        {
            keys_in(r, res, where);
            CU_ASSERT(cJSON_IsNumber(at(r, "replicas")));
        }
    }
    cJSON_Delete(in);
}

/* mig-parted's config (MIGPARTED_CFG): version, mig-configs of lists of {devices, mig-enabled,
 * mig-devices}. */
static void check_mig_parted(const char *text, const char *where)
{
    static const char *const top[] = {"version", "mig-configs", NULL};
    static const char *const entry[] = {"devices", "mig-enabled", "mig-devices", NULL};
    cJSON *in = tu_yaml_text(text);
    const cJSON *cfg = cJSON_GetArrayItem(in, 0), *conf, *e;
    keys_in(cfg, top, where);
    CU_ASSERT_STRING_EQUAL(at(cfg, "version")->valuestring, "v1");
    cJSON_ArrayForEach(conf, at(cfg, "mig-configs"))
    {
        CU_ASSERT_FATAL(cJSON_IsArray(conf));
        cJSON_ArrayForEach(e, conf) keys_in(e, entry, where);
    }
    cJSON_Delete(in);
}

/* One folder: every YAML file parses (libyaml), each config is in its documented keys, each
 * Helm values file names only what the plan sets. Returns how many files it read. */
static int check_formats(const char *dir)
{
    static const char *const dp_values[] = {"devicePlugin", NULL};
    static const char *const dp_config[] = {"config", NULL};
    static const char *const name_only[] = {"name", NULL};
    static const char *const mig_values[] = {"mig", "migManager", NULL};
    static const char *const mig_strategy[] = {"strategy", NULL};
    static const char *const hami[] = {"devices", NULL};
    static const char *const hami_dev[] = {"nvidia", NULL};
    static const char *const hami_nv[] = {"gpuCorePolicy", NULL};
    DIR *dh = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dh);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(dh))) {
        const char *f = de->d_name;
        size_t len = strlen(f);
        if (len < 5 || strcmp(f + len - 5, ".yaml") != 0)
            continue;
        char where[1200];
        snprintf(where, sizeof where, "%s/%s", dir, f);
        const cJSON *doc;
        cJSON *docs = doc_in(dir, f, &doc);
        n++;
        if (strcmp(f, "gpu-operator-values.yaml") == 0) {
            if (cJSON_GetObjectItem(doc, "devicePlugin")) {
                keys_in(doc, dp_values, where);
                keys_in(at(doc, "devicePlugin"), dp_config, where);
                keys_in(at(at(doc, "devicePlugin"), "config"), name_only, where);
            } else {
                keys_in(doc, mig_values, where);
                keys_in(at(doc, "mig"), mig_strategy, where);
                keys_in(at(at(doc, "migManager"), "config"), name_only, where);
            }
        } else if (strcmp(f, "hami-values.yaml") == 0) {
            keys_in(doc, hami, where);
            keys_in(at(doc, "devices"), hami_dev, where);
            keys_in(at(at(doc, "devices"), "nvidia"), hami_nv, where);
        } else if (strcmp(f, "time-slicing-config.yaml") == 0 ||
                   strcmp(f, "mps-config.yaml") == 0) {
            const cJSON *v;
            cJSON_ArrayForEach(v, at(doc, "data")) check_plugin_config(v->valuestring, where);
        } else if (strcmp(f, "mig-manager-config.yaml") == 0) {
            check_mig_parted(at(at(doc, "data"), "config.yaml")->valuestring, where);
        }
        cJSON_Delete(docs);
    }
    closedir(dh);
    return n;
}

/* ---- kubernetes-validate --------------------------------------------------- */

/* The interpreter of the venv scripts/install-deps test makes, or NULL (the checks are then
 * skipped, saying so). */
static const char *venv_python(void)
{
    static char py[1024];
    snprintf(py, sizeof py, "%s/build/venv/bin/python", tu_root());
    if (!tu_exists(py))
        return NULL;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s -c 'import kubernetes_validate' 2>/dev/null", py);
    return system(cmd) == 0 ? py : NULL;
}

/* tests/k8s_validate.py on the folders (a space-separated list): its exit code; its output
 * goes to stderr when it fails. */
static int validate_dirs(const char *py, const char *dirs)
{
    size_t n = strlen(dirs) + 2048;
    char *cmd = malloc(n);
    char log[800];
    snprintf(log, sizeof log, "%s/k8s-validate.log", tu_tmpdir());
    snprintf(cmd, n, "%s %s/tests/k8s_validate.py %s > %s 2>&1", py, tu_root(), dirs, log);
    int rc = system(cmd);
    rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    if (rc != 0) {
        char *text = tu_slurp(log);
        fprintf(stderr, "\n  k8s_validate.py exit %d:\n%s\n", rc, text ? text : "");
        free(text);
    }
    free(cmd);
    return rc;
}

static void skip_note(const char *what)
{
    fprintf(stderr,
            "\n  SKIPPED %s: kubernetes-validate is not installed in build/venv "
            "(scripts/install-deps test creates it: python3 -m venv build/venv && "
            "build/venv/bin/pip install kubernetes-validate==1.37.0)\n",
            what);
}

/* ---- per node, by default -------------------------------------------------- */

/*
 * The cluster has five GPU nodes, gpu-a1 … gpu-a5; the plan names two. For every strategy
 * that configures nodes, every emitted object is read: the only Node objects are those two,
 * every label the plan asks for is on them, every pod selects the plan's own label (which
 * only they carry), no device plugin config is a default (no `default` key, no
 * devicePlugin.config.default), and the README labels no other node.
 */
static void test_two_of_five_nodes(void)
{
    static const char *const kinds[] = {"timeslice", "mps", "mig", "fractional"};
    static const char *const others[] = {"gpu-a3", "gpu-a4", "gpu-a5"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        char patch[200], dirname[64], err[4096];
        snprintf(patch, sizeof patch, "{\"plan\": {\"kinds\": [\"%s\"]}}", kinds[k]);
        snprintf(dirname, sizeof dirname, "five-%s", kinds[k]);
        const char *dir = out_dir(dirname);
        CU_ASSERT_EQUAL_FATAL(plan_into("plan/k8s-nodes.json", patch, dir, NULL, err, sizeof err),
                              0);
        int nodes = 0, selectors = 0;
        DIR *dh = opendir(dir);
        CU_ASSERT_PTR_NOT_NULL_FATAL(dh);
        struct dirent *de;
        while ((de = readdir(dh))) {
            const char *f = de->d_name;
            size_t len = strlen(f);
            if (len < 5 || strcmp(f + len - 5, ".yaml") != 0)
                continue;
            const cJSON *doc;
            cJSON *docs = doc_in(dir, f, &doc);
            const cJSON *kind = cJSON_GetObjectItem(doc, "kind");
            if (kind && strcmp(kind->valuestring, "Node") == 0) {
                const char *name = at(at(doc, "metadata"), "name")->valuestring;
                CU_ASSERT(strcmp(name, "gpu-a1") == 0 || strcmp(name, "gpu-a2") == 0);
                CU_ASSERT_STRING_EQUAL(
                    at(at(at(doc, "metadata"), "labels"), "sharesim.io/plan")->valuestring,
                    "sharesim-k8s-nodes");
                nodes++;
            } else if (kind && (strcmp(kind->valuestring, "Deployment") == 0 ||
                                strcmp(kind->valuestring, "StatefulSet") == 0)) {
                const cJSON *sel = at(at(at(at(doc, "spec"), "template"), "spec"), "nodeSelector");
                CU_ASSERT_STRING_EQUAL(at(sel, "sharesim.io/plan")->valuestring,
                                       "sharesim-k8s-nodes");
                selectors++;
            } else if (kind && strcmp(kind->valuestring, "ConfigMap") == 0) {
                CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(at(doc, "data"), "default"));
            } else if (strcmp(f, "gpu-operator-values.yaml") == 0) {
                const cJSON *dp = cJSON_GetObjectItem(doc, "devicePlugin");
                CU_ASSERT(!dp || !cJSON_GetObjectItem(at(dp, "config"), "default"));
            }
            cJSON_Delete(docs);
        }
        closedir(dh);
        CU_ASSERT_EQUAL(nodes, 2);
        CU_ASSERT_EQUAL(selectors, 4);
        char *readme = tu_slurp_in(dir, "README.md");
        for (int o = 0; o < 3; o++)
            CU_ASSERT_PTR_NULL(strstr(readme, others[o]));
        CU_ASSERT_PTR_NULL(strstr(readme, "config.default="));
        TU_CHECK_CONTAINS(readme, "kubectl patch node gpu-a1 --patch-file node-gpu-a1.yaml");
        TU_CHECK_CONTAINS(readme, "kubectl patch node gpu-a2 --patch-file node-gpu-a2.yaml");
        free(readme);
    }
}

/* The per-strategy node labels NVIDIA and HAMi document, on exactly the named nodes. */
static void test_node_labels_per_strategy(void)
{
    static const struct {
        const char *kind, *key, *value1, *value2;
    } want[] = {
        {"timeslice", "nvidia.com/device-plugin.config", "sharesim-k8s-nodes",
         "sharesim-k8s-nodes"},
        {"mps", "nvidia.com/device-plugin.config", "sharesim-k8s-nodes", "sharesim-k8s-nodes"},
        /* Two nodes of one GPU each: a mig-parted config per node, devices [0] each. */
        {"mig", "nvidia.com/mig.config", "sharesim-k8s-nodes-1", "sharesim-k8s-nodes-2"},
        {"fractional", "gpu", "on", "on"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        char patch[200], dirname[64];
        snprintf(patch, sizeof patch, "{\"plan\": {\"kinds\": [\"%s\"]}}", want[k].kind);
        snprintf(dirname, sizeof dirname, "labels-%s", want[k].kind);
        const char *dir = out_dir(dirname);
        CU_ASSERT_EQUAL_FATAL(plan_into("plan/k8s-nodes.json", patch, dir, NULL, NULL, 0), 0);
        const cJSON *n1, *n2;
        cJSON *d1 = doc_in(dir, "node-gpu-a1.yaml", &n1),
              *d2 = doc_in(dir, "node-gpu-a2.yaml", &n2);
        CU_ASSERT_STRING_EQUAL(at(at(at(n1, "metadata"), "labels"), want[k].key)->valuestring,
                               want[k].value1);
        CU_ASSERT_STRING_EQUAL(at(at(at(n2, "metadata"), "labels"), want[k].key)->valuestring,
                               want[k].value2);
        if (strcmp(want[k].kind, "fractional") == 0)
            CU_ASSERT_STRING_EQUAL(
                at(at(at(n1, "metadata"), "labels"), "nvidia.com/gpu.deploy.device-plugin")
                    ->valuestring,
                "false");
        cJSON_Delete(d1);
        cJSON_Delete(d2);
        if (strcmp(want[k].kind, "mig") == 0) {
            const cJSON *cm;
            cJSON *d = doc_in(dir, "mig-manager-config.yaml", &cm);
            cJSON *in = tu_yaml_text(at(at(cm, "data"), "config.yaml")->valuestring);
            const cJSON *confs = at(cJSON_GetArrayItem(in, 0), "mig-configs");
            for (int node = 1; node <= 2; node++) {
                char name[64];
                snprintf(name, sizeof name, "sharesim-k8s-nodes-%d", node);
                const cJSON *c = at(confs, name);
                CU_ASSERT_EQUAL(cJSON_GetArraySize(c), 1);
                CU_ASSERT_EQUAL(
                    cJSON_GetArrayItem(at(cJSON_GetArrayItem(c, 0), "devices"), 0)->valueint, 0);
                CU_ASSERT_EQUAL(
                    at(at(cJSON_GetArrayItem(c, 0), "mig-devices"), "3g.40gb")->valueint, 2);
            }
            cJSON_Delete(in);
            cJSON_Delete(d);
        }
    }
}

/* Without named nodes the plan writes its own label, and the README says which labels go on
 * which nodes; --nodes replaces the scenario's list. */
static void test_unnamed_nodes_and_flag(void)
{
    const char *dir = out_dir("unnamed");
    CU_ASSERT_EQUAL_FATAL(plan_into("plan/k8s-nodes.json", "{\"k8s\": {}}", dir, NULL, NULL, 0), 0);
    const cJSON *n;
    cJSON *d = doc_in(dir, "node-labels.yaml", &n);
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(at(n, "metadata"), "name"));
    CU_ASSERT_STRING_EQUAL(at(at(at(n, "metadata"), "labels"), "sharesim.io/plan")->valuestring,
                           "sharesim-k8s-nodes");
    cJSON_Delete(d);
    char *readme = tu_slurp_in(dir, "README.md");
    TU_CHECK_CONTAINS(readme, "The scenario names no nodes");
    TU_CHECK_CONTAINS(readme, "kubectl label node NODE --overwrite sharesim.io/plan="
                              "sharesim-k8s-nodes nvidia.com/device-plugin.config="
                              "sharesim-k8s-nodes");
    free(readme);
    const char *dir2 = out_dir("flag");
    CU_ASSERT_EQUAL_FATAL(
        plan_into("plan/k8s-nodes.json", NULL, dir2, "--nodes gpu-b7,gpu-b8", NULL, 0), 0);
    char path[800];
    snprintf(path, sizeof path, "%s/node-gpu-b7.yaml", dir2);
    CU_ASSERT(tu_exists(path));
    snprintf(path, sizeof path, "%s/node-gpu-a1.yaml", dir2);
    CU_ASSERT_FALSE(tu_exists(path));
}

/* More nodes than the plan's GPUs would carry its config to GPUs that were not simulated; a
 * vGPU plan runs on G x T VMs, a MIG plan on nodes that split its GPUs evenly. */
static void test_node_counts_checked(void)
{
    char err[4096];
    const char *dir = out_dir("count-ts");
    CU_ASSERT_EQUAL(
        plan_into("plan/k8s-nodes.json", NULL, dir, "--nodes n1,n2,n3", err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "names 3 nodes for a plan of 2 GPUs");
    const char *dir2 = out_dir("count-vgpu");
    CU_ASSERT_EQUAL(plan_into("plan/three-services.json", "{\"plan\": {\"kinds\": [\"vgpu\"]}}",
                              dir2, "--nodes n1,n2", err, sizeof err),
                    2);
    TU_CHECK_CONTAINS(err, "names 2 nodes; the plan");
    TU_CHECK_CONTAINS(err, "chat's VM");
}

/* Bad names in the scenario's and the tenants' k8s objects: exit 2, the path, the rule. */
static void test_k8s_keys_checked(void)
{
    static const struct {
        const char *patch, *says;
    } bad[] = {
        {"{\"tenants.0.k8s\": {\"namespace\": \"Serving\"}}", "tenants[0].k8s.namespace"},
        {"{\"tenants.0.k8s\": {\"container\": \"my_app\"}}", "RFC 1123 label"},
        {"{\"tenants.0.k8s\": {\"name\": \"-web\"}}", "tenants[0].k8s.name"},
        {"{\"tenants.0.k8s\": {\"kind\": \"Pod\"}}", "tenants[0].k8s.kind"},
        {"{\"tenants.0.k8s\": {\"image\": \"x\"}}", "unknown key"},
        {"{\"k8s\": {\"nodes\": [\"gpu-a1\", \"gpu-a1\"]}}", "named twice"},
        {"{\"k8s\": {\"nodes\": []}}", "non-empty array"},
        {"{\"k8s\": {\"nodes\": [\"GPU_1\"]}}", "k8s.nodes[0]"},
        {"{\"k8s\": {\"rename\": \"yes\"}}", "k8s.rename"},
    };
    char err[4096];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *dir = out_dir("bad-keys");
        CU_ASSERT_EQUAL(plan_into("plan/k8s-nodes.json", bad[i].patch, dir, NULL, err, sizeof err),
                        2);
        TU_CHECK_CONTAINS(err, bad[i].says);
        CU_ASSERT_FALSE(tu_exists(dir));
    }
    const char *dir = out_dir("bad-flag");
    CU_ASSERT_EQUAL(
        plan_into("plan/k8s-nodes.json", NULL, dir, "--nodes gpu-a1,Bad.Node", err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "--nodes: node 2 (\"Bad.Node\")");
    CU_ASSERT_FALSE(tu_exists(dir));
    /* The longest names Kubernetes allows load: a 253-character subdomain, a 63-character
     * label. */
    char name[300], patch[700];
    memset(name, 'a', 253);
    name[253] = '\0';
    for (int k = 63; k < 253; k += 64)
        name[k] = '.';
    snprintf(patch, sizeof patch, "{\"tenants.0.k8s\": {\"name\": \"%s\"}, \"k8s\": {}}", name);
    CU_ASSERT_EQUAL(
        plan_into("plan/k8s-nodes.json", patch, out_dir("long-name"), NULL, err, sizeof err), 0);
    snprintf(patch, sizeof patch, "{\"tenants.0.k8s\": {\"name\": \"%sa\"}}", name);
    CU_ASSERT_EQUAL(
        plan_into("plan/k8s-nodes.json", patch, out_dir("too-long"), NULL, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "254 characters, longer than the limit of 253");
}

/* ---- Helm keeps the other values -------------------------------------------- */

/* Every `helm upgrade` the READMEs give keeps the installed release's values, and the values
 * files name only what the plan sets (checked key by key in check_formats). */
static void test_helm_keeps_values(void)
{
    static const char *const kinds[] = {"timeslice", "mps", "mig", "fractional"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        char patch[200], dirname[64];
        snprintf(patch, sizeof patch, "{\"plan\": {\"kinds\": [\"%s\"]}}", kinds[k]);
        snprintf(dirname, sizeof dirname, "helm-%s", kinds[k]);
        const char *dir = out_dir(dirname);
        CU_ASSERT_EQUAL_FATAL(plan_into("plan/k8s-nodes.json", patch, dir, NULL, NULL, 0), 0);
        check_formats(dir);
        char *readme = tu_slurp_in(dir, "README.md");
        int upgrades = 0;
        for (const char *p = strstr(readme, "helm upgrade"); p; p = strstr(p + 1, "helm upgrade")) {
            const char *end = strchr(p, '`');
            CU_ASSERT_PTR_NOT_NULL_FATAL(end);
            char cmd[600];
            snprintf(cmd, sizeof cmd, "%.*s", (int)(end - p), p);
            if (!strstr(cmd, "--reuse-values"))
                fprintf(stderr, "\n  %s: \"%s\" resets the other values\n", kinds[k], cmd);
            CU_ASSERT_PTR_NOT_NULL(strstr(cmd, "--reuse-values"));
            upgrades++;
        }
        CU_ASSERT(upgrades >= 1);
        if (strcmp(kinds[k], "fractional") == 0) {
            TU_CHECK_CONTAINS(readme,
                              "helm repo add hami-charts https://project-hami.github.io/HAMi/");
            TU_CHECK_CONTAINS(readme, "`gpu=on`");
            TU_CHECK_CONTAINS(readme, "nvidia.com/gpu.deploy.device-plugin=false");
            TU_CHECK_CONTAINS(readme, "HAMi v2.6.0 or later");
        } else if (strcmp(kinds[k], "mps") == 0) {
            TU_CHECK_CONTAINS(readme, "k8s-device-plugin v0.15.0 or later");
            TU_CHECK_CONTAINS(readme, "GPU Operator v24.3.0 or later");
        } else if (strcmp(kinds[k], "timeslice") == 0) {
            TU_CHECK_CONTAINS(readme, "k8s-device-plugin v0.12.0 or later");
            TU_CHECK_CONTAINS(readme, "GPU Operator v22.9.1 or later");
        } else {
            TU_CHECK_CONTAINS(readme, "GPU Operator v1.7.0 or later");
            TU_CHECK_CONTAINS(readme, "`version: v1`");
        }
        TU_CHECK_CONTAINS(readme, "## Rollback");
        free(readme);
    }
}

/* Renaming only when asked: the resource stays nvidia.com/gpu, renameByDefault false; with
 * "rename": true the replicas are nvidia.com/gpu.shared. */
static void test_rename_only_when_asked(void)
{
    for (int rename = 0; rename <= 1; rename++) {
        const char *dir = out_dir(rename ? "rename-on" : "rename-off");
        CU_ASSERT_EQUAL_FATAL(plan_into("plan/k8s-nodes.json",
                                        rename ? "{\"k8s.rename\": true}" : NULL, dir, NULL, NULL,
                                        0),
                              0);
        const cJSON *cm, *pod;
        cJSON *d1 = doc_in(dir, "time-slicing-config.yaml", &cm);
        cJSON *in = tu_yaml_text(at(at(cm, "data"), "sharesim-k8s-nodes")->valuestring);
        const cJSON *ts = at(at(cJSON_GetArrayItem(in, 0), "sharing"), "timeSlicing");
        CU_ASSERT_EQUAL(cJSON_IsTrue(at(ts, "renameByDefault")), rename);
        cJSON *d2 = doc_in(dir, "pod-a.yaml", &pod);
        const cJSON *lim = at(
            at(cJSON_GetArrayItem(at(at(at(at(pod, "spec"), "template"), "spec"), "containers"), 0),
               "resources"),
            "limits");
        CU_ASSERT_PTR_NOT_NULL(
            cJSON_GetObjectItem(lim, rename ? "nvidia.com/gpu.shared" : "nvidia.com/gpu"));
        CU_ASSERT_EQUAL(cJSON_GetArraySize(lim), 1);
        cJSON_Delete(in);
        cJSON_Delete(d1);
        cJSON_Delete(d2);
    }
}

/* ---- the tenant's real workload ---------------------------------------------- */

/* Tenant d names its StatefulSet d-server, container worker, namespace serving: the patch names
 * exactly those, and the README's commands check and patch that object; tenant a says nothing,
 * so its Deployment and container are taken to be "a", which the README says is assumed. */
static void test_patch_names_real_workload(void)
{
    const char *dir = out_dir("workload");
    CU_ASSERT_EQUAL_FATAL(plan_into("plan/k8s-nodes.json", NULL, dir, NULL, NULL, 0), 0);
    const cJSON *pod;
    cJSON *d = doc_in(dir, "pod-d.yaml", &pod);
    CU_ASSERT_STRING_EQUAL(at(pod, "apiVersion")->valuestring, "apps/v1");
    CU_ASSERT_STRING_EQUAL(at(pod, "kind")->valuestring, "StatefulSet");
    CU_ASSERT_STRING_EQUAL(at(at(pod, "metadata"), "name")->valuestring, "d-server");
    CU_ASSERT_STRING_EQUAL(at(at(pod, "metadata"), "namespace")->valuestring, "serving");
    const cJSON *ctrs = at(at(at(at(pod, "spec"), "template"), "spec"), "containers");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(ctrs), 1);
    CU_ASSERT_STRING_EQUAL(at(cJSON_GetArrayItem(ctrs, 0), "name")->valuestring, "worker");
    cJSON_Delete(d);
    cJSON *d2 = doc_in(dir, "pod-a.yaml", &pod);
    CU_ASSERT_STRING_EQUAL(at(pod, "kind")->valuestring, "Deployment");
    CU_ASSERT_STRING_EQUAL(at(at(pod, "metadata"), "name")->valuestring, "a");
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(at(pod, "metadata"), "namespace"));
    cJSON_Delete(d2);
    char *readme = tu_slurp_in(dir, "README.md");
    TU_CHECK_CONTAINS(readme, "kubectl -n serving get statefulset d-server -o jsonpath="
                              "'{.spec.template.spec.containers[*].name}'");
    TU_CHECK_CONTAINS(readme, "kubectl -n serving patch statefulset d-server --patch-file "
                              "pod-d.yaml");
    TU_CHECK_CONTAINS(readme, "StatefulSet `d-server`, container `worker`, namespace `serving` "
                              "(from the scenario's `k8s` object)");
    TU_CHECK_CONTAINS(readme, "**Assumed**: Deployment `a`, container `a`");
    TU_CHECK_CONTAINS(readme, "without an image");
    free(readme);
}

/* A tenant on two vGPUs (a VM on each GPU) runs two replicas, each on one of its own VMs, and
 * the README says a Service's spreading is not the one queue simulated. */
static void test_replicas_follow_the_plan(void)
{
    const char *dir = out_dir("replicas");
    char err[4096];
    CU_ASSERT_EQUAL_FATAL(plan_into("plan/three-services.json",
                                    "{\"plan\": {\"kinds\": [\"vgpu\"]}}", dir, NULL, err,
                                    sizeof err),
                          0);
    char *readme = tu_slurp_in(dir, "README.md");
    const char *g = strstr(readme, "**vgpu");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    int gpus = 0;
    CU_ASSERT_EQUAL_FATAL(sscanf(strstr(g, "** on ") + 6, "%d", &gpus), 1);
    const cJSON *pod;
    cJSON *d = doc_in(dir, "pod-chat.yaml", &pod);
    CU_ASSERT_EQUAL(at(at(pod, "spec"), "replicas")->valueint, gpus);
    const cJSON *sel = at(at(at(at(pod, "spec"), "template"), "spec"), "nodeSelector");
    CU_ASSERT_STRING_EQUAL(at(sel, "sharesim.io/tenant")->valuestring, "chat");
    cJSON_Delete(d);
    if (gpus > 1)
        TU_CHECK_CONTAINS(readme, "not what was simulated");
    /* The VMs: G for each tenant, each with its tenant's label. */
    const cJSON *n;
    cJSON *d2 = doc_in(dir, "node-labels-chat.yaml", &n);
    CU_ASSERT_STRING_EQUAL(at(at(at(n, "metadata"), "labels"), "sharesim.io/tenant")->valuestring,
                           "chat");
    cJSON_Delete(d2);
    free(readme);
    /* Named VMs: exactly G x 3 of them, in tenant order. */
    char nodes[400] = "--nodes ";
    for (int i = 0; i < 3 * gpus; i++)
        snprintf(nodes + strlen(nodes), sizeof nodes - strlen(nodes), "%svm-%d", i ? "," : "", i);
    const char *dir2 = out_dir("replicas-named");
    CU_ASSERT_EQUAL_FATAL(plan_into("plan/three-services.json",
                                    "{\"plan\": {\"kinds\": [\"vgpu\"]}}", dir2, nodes, err,
                                    sizeof err),
                          0);
    cJSON *d3 = doc_in(dir2, "node-vm-0.yaml", &n);
    CU_ASSERT_STRING_EQUAL(at(at(at(n, "metadata"), "labels"), "sharesim.io/tenant")->valuestring,
                           "chat");
    cJSON_Delete(d3);
}

/* ---- the serving engine's flags -------------------------------------------- */

/* The container's args are vLLM's flags for what was simulated; under time-slicing the memory
 * share is the simulated engine's (half the GPU each: 0.8 x 40/80 = 0.4 for chat). */
static void test_llm_engine_flags(void)
{
    static const char *const chat[] = {"--dtype=bfloat16",
                                       "--kv-cache-dtype=fp8",
                                       "--max-num-seqs=64",
                                       "--max-num-batched-tokens=4096",
                                       "--gpu-memory-utilization=0.4",
                                       "--block-size=16",
                                       "--no-enable-chunked-prefill",
                                       "--enable-prefix-caching",
                                       NULL};
    static const char *const summarise[] = {"--dtype=float16",
                                            "--kv-cache-dtype=auto",
                                            "--max-num-seqs=256",
                                            "--max-num-batched-tokens=2048",
                                            "--gpu-memory-utilization=0.45",
                                            "--block-size=16",
                                            "--enable-chunked-prefill",
                                            "--enable-prefix-caching",
                                            NULL};
    const char *dir = out_dir("llm");
    CU_ASSERT_EQUAL_FATAL(plan_into("plan/k8s-llm.json", NULL, dir, NULL, NULL, 0), 0);
    const struct {
        const char *file, *container;
        const char *const *args;
    } want[] = {{"pod-chat.yaml", "vllm", chat}, {"pod-summarise.yaml", "summarise", summarise}};
    for (int k = 0; k < 2; k++) {
        const cJSON *pod;
        cJSON *d = doc_in(dir, want[k].file, &pod);
        const cJSON *c =
            cJSON_GetArrayItem(at(at(at(at(pod, "spec"), "template"), "spec"), "containers"), 0);
        CU_ASSERT_STRING_EQUAL(at(c, "name")->valuestring, want[k].container);
        const cJSON *args = at(c, "args");
        int n = 0;
        for (; want[k].args[n]; n++) {
            const cJSON *a = cJSON_GetArrayItem(args, n);
            CU_ASSERT_FATAL(cJSON_IsString(a));
            if (strcmp(a->valuestring, want[k].args[n]) != 0)
                fprintf(stderr, "\n  %s arg %d: %s, expected %s\n", want[k].file, n, a->valuestring,
                        want[k].args[n]);
            CU_ASSERT_STRING_EQUAL(a->valuestring, want[k].args[n]);
        }
        CU_ASSERT_EQUAL(cJSON_GetArraySize(args), n);
        cJSON_Delete(d);
    }
    char *readme = tu_slurp_in(dir, "README.md");
    TU_CHECK_CONTAINS(readme, "replaces a container's whole `args` list");
    TU_CHECK_CONTAINS(readme, "0.80 × 40.00 / 80.00");
    free(readme);
    /* int8 weights and cache: no flag says int8; the README says what to serve. */
    const char *dir2 = out_dir("llm-int8");
    CU_ASSERT_EQUAL_FATAL(plan_into("plan/k8s-llm.json",
                                    "{\"tenants.0.serving.dtype\": \"int8\", "
                                    "\"tenants.0.serving.kv_dtype\": \"int8\"}",
                                    dir2, NULL, NULL, 0),
                          0);
    char *r2 = tu_slurp_in(dir2, "README.md");
    TU_CHECK_CONTAINS(r2, "serve an int8-quantised checkpoint");
    TU_CHECK_CONTAINS(r2, "vLLM has no int8 KV cache");
    free(r2);
}

/* ---- every shipped plan, checked against the real schemas ------------------- */

/* Every scenario of workloads/ that `plan` accepts and every plan fixture, planned into a
 * folder of its own; then every folder's objects through kubernetes-validate, its configs
 * through the format whitelists, its YAML through libyaml. */
static void test_every_shipped_plan_validates(void)
{
    const char *py = venv_python();
    char *dirs = calloc(1, 65536);
    size_t used = 0;
    int planned = 0;
    static const char *const roots[] = {"workloads", "tests/fixtures/plan"};
    /* The normal build plans every shipped scenario (38 s: the Kubernetes files are the same
     * bytes in every build, so one schema check of each is enough). Under ASan (3 times slower)
     * and valgrind (50 times) the fixtures only: the writers' memory is checked on every
     * strategy kind there, not on every scenario again. */
    int vg = tu_sanitized() || tu_under_valgrind();
    for (int r = vg ? 1 : 0; r < 2; r++) {
        char base[1024];
        snprintf(base, sizeof base, "%s/%s", tu_root(), roots[r]);
        DIR *dh = opendir(base);
        CU_ASSERT_PTR_NOT_NULL_FATAL(dh);
        struct dirent *de;
        while ((de = readdir(dh))) {
            const char *f = de->d_name;
            size_t len = strlen(f);
            if (len < 6 || strcmp(f + len - 5, ".json") != 0)
                continue;
            char dir[900], cmd[3000], err[4096];
            snprintf(dir, sizeof dir, "%s/shipped-%s-%.*s", tu_tmpdir(), r ? "fixture" : "work",
                     (int)(len - 5), f);
            snprintf(cmd, sizeof cmd, "plan --no-headroom --no-sensitivity %s/%s --quiet --k8s %s",
                     base, f, dir);
            int rc = tu_cli(cmd, NULL, 0, err, sizeof err);
            if (rc == 2 && !tu_exists(dir))
                continue; /* not a scenario `plan` accepts (a cluster scenario) */
            if (rc != 0 && rc != 1)
                fprintf(stderr, "\n  plan %s: exit %d: %s\n", f, rc, err);
            CU_ASSERT(rc == 0 || rc == 1);
            if (!tu_exists(dir))
                continue; /* every candidate pruned: nothing to deploy */
            CU_ASSERT(check_formats(dir) >= 1);
            used += (size_t)snprintf(dirs + used, 65536 - used, " %s", dir);
            planned++;
        }
        closedir(dh);
    }
    /* The strategies the shipped plans may not reach, and named nodes. */
    static const char *const kinds[] = {"timeslice", "mps", "mig", "fractional", "exclusive"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        char patch[200], name[64];
        snprintf(patch, sizeof patch, "{\"plan\": {\"kinds\": [\"%s\"]}}", kinds[k]);
        snprintf(name, sizeof name, "schema-%s", kinds[k]);
        const char *dir = out_dir(name);
        CU_ASSERT_EQUAL_FATAL(plan_into("plan/k8s-nodes.json", patch, dir, NULL, NULL, 0), 0);
        used += (size_t)snprintf(dirs + used, 65536 - used, " %s", dir);
    }
    CU_ASSERT(planned >= (vg ? 8 : 20));
    if (!py) {
        skip_note("the Kubernetes schema check of every shipped plan");
        free(dirs);
        return;
    }
    CU_ASSERT_EQUAL(validate_dirs(py, dirs), 0);
    free(dirs);
}

/* The schema check can fail: a patch with a field the Deployment schema does not have, a label
 * value Kubernetes refuses, and a container the workload does not have are each caught. */
static void test_validator_catches_errors(void)
{
    const char *py = venv_python();
    if (!py) {
        skip_note("the schema checker's own test");
        return;
    }
    static const char *const bad[] = {
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  replicas: 1\n"
        "  template:\n    spec:\n      containers:\n      - name: a\n        resource: {}\n",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {sharesim.io/plan: "
        "\"-bad-\"}\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  replicas: \"2\"\n"
        "  template:\n    spec:\n      containers:\n      - name: a\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char dir[800], path[900];
        snprintf(dir, sizeof dir, "%s/bad-schema-%zu", tu_tmpdir(), i);
        mkdir(dir, 0755);
        snprintf(path, sizeof path, "%s/x.yaml", dir);
        FILE *fp = fopen(path, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        fputs(bad[i], fp);
        fclose(fp);
        char cmd[2000], log[900];
        snprintf(log, sizeof log, "%s/bad-schema.log", tu_tmpdir());
        snprintf(cmd, sizeof cmd, "%s %s/tests/k8s_validate.py %s > %s 2>&1", py, tu_root(), dir,
                 log);
        int rc = system(cmd);
        CU_ASSERT(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    }
}

void test_k8s_register(void)
{
    static const struct tu_test t[] = {
        {"two of five named nodes: nothing selects the other three, no default config",
         test_two_of_five_nodes},
        {"NVIDIA's and HAMi's node labels on exactly the named nodes (MIG: a config a node)",
         test_node_labels_per_strategy},
        {"no named nodes: the plan's own label and the README's commands; --nodes replaces",
         test_unnamed_nodes_and_flag},
        {"node counts that do not fit the plan are refused", test_node_counts_checked},
        {"k8s keys follow Kubernetes' name rules (RFC 1123), errors name the path",
         test_k8s_keys_checked},
        {"every helm upgrade keeps the other values; values files name only what they set",
         test_helm_keeps_values},
        {"replicas renamed only when asked", test_rename_only_when_asked},
        {"patches name the tenant's real Deployment or StatefulSet and container",
         test_patch_names_real_workload},
        {"a tenant on two vGPUs runs two replicas on its own VMs, routing stated",
         test_replicas_follow_the_plan},
        {"LLM tenants' containers carry the simulated vLLM flags", test_llm_engine_flags},
        {"kubernetes-validate, the NVIDIA/HAMi formats and libyaml on every shipped plan",
         test_every_shipped_plan_validates},
        {"the schema check catches a bad field, label and type", test_validator_catches_errors},
        {NULL, NULL},
    };
    tu_add_suite("k8s", t);
}
