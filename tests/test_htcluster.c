/*
 * report/htcluster.c, `sharesim cluster --html` and `report html|gnuplot` on cluster results:
 * the page passes `report check`, has one figure per result (three panels for an inflation,
 * three or four for a MIG replay), counts failed pods in pods, reads the FGD paper's claim
 * against the data, states the MIG reconfigurations the result has, escapes names, and
 * refuses a mix of cluster and other results.
 */
#include "base/util.h"
#include "tools/svgcheck.h"
#include "testutil.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#define TINY "tests/fixtures/cluster/tiny.json"

/* Runs the CLI with args; it must succeed (its message shown when not). */
#define page_of(args)                                                                              \
    do {                                                                                           \
        char err_[4096];                                                                           \
        int rc_ = tu_cli((args), NULL, 0, err_, sizeof err_);                                      \
        if (rc_)                                                                                   \
            fprintf(stderr, "\n  %s\n", err_);                                                     \
        CU_ASSERT_EQUAL_FATAL(rc_, 0);                                                             \
    } while (0)

static void check(const char *page, int figures, int panels)
{
    struct svc_report r;
    int bad = svc_check_text(page, &r);
    if (bad)
        fprintf(stderr, "\n  %s\n", r.first);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(r.figures, figures);
    CU_ASSERT_EQUAL(r.panels, panels);
    CU_ASSERT_PTR_NULL(strstr(page, "<script"));
}

static void test_inflate_page(void)
{
    const char *t = tu_tmpdir();
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cluster " TINY " --quiet --json '%s/ct.json' --html '%s/ct.html'", t,
             t);
    page_of(cmd);
    char *page = tu_slurp_in(t, "ct.html");
    check(page, 1, 3);
    TU_CHECK_CONTAINS(page, "<strong>Verdict.</strong> When the arrived GPU requests reach");
    TU_CHECK_CONTAINS(page, "The FGD paper's reading");
    TU_CHECK_CONTAINS(page, "<th>failed pods (pods)</th>");
    TU_CHECK_CONTAINS(page, "GPUs allocated (the paper's Fig. 9(a))");
    /* the failed pods of the result, in the table */
    char *json = tu_slurp_in(t, "ct.json");
    cJSON *doc = cJSON_Parse(json);
    free(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "summary"), 0);
    char want[128];
    snprintf(want, sizeof want, "<td>%.1f</td></tr>",
             cJSON_GetObjectItem(row, "failed_mean")->valuedouble);
    TU_CHECK_CONTAINS(page, want);
    /* the best policy at 100 % arrived is named in the verdict */
    double best = -1;
    const char *best_label = "";
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "summary"))
    {
        double v = cJSON_GetObjectItem(r, "alloc_ratio_at_100_mean")->valuedouble;
        if (v > best) {
            best = v;
            best_label = cJSON_GetObjectItem(r, "label")->valuestring;
        }
    }
    snprintf(want, sizeof want, "<strong>%s</strong> allocates %.2f %% of them", best_label, best);
    TU_CHECK_CONTAINS(page, want);
    cJSON_Delete(doc);
    free(page);
}

/* The shipped MIG cluster beside the inflation: two figures, the reconfigurations. */
static void test_mig_page(void)
{
    if (tu_under_valgrind()) {
        printf("(skipped under valgrind: a replay of 8 152 pods) ");
        return;
    }
    const char *t = tu_tmpdir();
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cluster " TINY " --quiet --json '%s/cm-a.json'", t);
    page_of(cmd);
    snprintf(cmd, sizeof cmd,
             "cluster workloads/cluster-mig-dynamic.json --quiet --json '%s/cm-b.json'", t);
    page_of(cmd);
    snprintf(cmd, sizeof cmd,
             "report html '%s/cm-a.json' '%s/cm-b.json' --title 'Two <clusters>' -o "
             "'%s/cm.html' --svg '%s/cm'",
             t, t, t, t);
    page_of(cmd);
    char *page = tu_slurp_in(t, "cm.html");
    /* 3 panels of the inflation; allocation, fragmentation, reconfigurations of the replay
     * (no pod migrates without defragmentation: that panel is left out, and said so) */
    check(page, 2, 6);
    TU_CHECK_CONTAINS(page, "<h1>Two &lt;clusters&gt;</h1>");
    TU_CHECK_CONTAINS(page, "MIG reconfigurations");
    TU_CHECK_CONTAINS(page, "so no panel of migrations is drawn");
    char *json = tu_slurp_in(t, "cm-b.json");
    cJSON *doc = cJSON_Parse(json);
    free(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "experiments"), 0);
    const cJSON *samples = cJSON_GetObjectItem(e, "samples");
    const cJSON *last = cJSON_GetArrayItem(samples, cJSON_GetArraySize(samples) - 1);
    char want[256];
    snprintf(want, sizeof want, "at the price of %.0f MIG reconfigurations (%.0f instances",
             cJSON_GetObjectItem(last, "reconfigs")->valuedouble,
             cJSON_GetObjectItem(last, "instances_changed")->valuedouble);
    TU_CHECK_CONTAINS(page, want);
    cJSON_Delete(doc);
    char path[1024];
    snprintf(path, sizeof path, "%s/cm-placement.svg", t);
    CU_ASSERT(tu_exists(path));
    snprintf(path, sizeof path, "%s/cm-mig-reconfig.svg", t);
    CU_ASSERT(tu_exists(path));
    free(page);
    /* the same figures as gnuplot scripts */
    char out[1024] = "";
    snprintf(cmd, sizeof cmd, "report gnuplot '%s/cm-a.json' '%s/cm-b.json' --out '%s/cm-gp'", t, t,
             t);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 0);
    char expect[1024];
    snprintf(expect, sizeof expect, "%s/cm-gp/placement.gp\n%s/cm-gp/mig-reconfig.gp\n", t, t);
    CU_ASSERT_STRING_EQUAL(out, expect);
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd,
                 "gnuplot '%s/cm-gp/placement.gp' && gnuplot '%s/cm-gp/mig-reconfig.gp'", t, t);
        CU_ASSERT_EQUAL(system(cmd), 0);
        snprintf(path, sizeof path, "%s/cm-gp/mig-reconfig.png", t);
        CU_ASSERT(tu_exists(path));
    }
}

/* Names from the result reach the page escaped. */
static void test_escaping(void)
{
    const char *t = tu_tmpdir();
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cluster " TINY " --quiet --json '%s/ce.json'", t);
    page_of(cmd);
    char *text = tu_slurp_in(t, "ce.json");
    /* every "05-BestFit" becomes a label with markup in it */
    const char *from = "05-BestFit", *to = "<i>Best\\\"&Fit</i>";
    size_t cap = strlen(text) * 2 + 1, o = 0;
    char *out = malloc(cap);
    for (const char *p = text; *p;) {
        if (strncmp(p, from, strlen(from)) == 0) {
            memcpy(out + o, to, strlen(to));
            o += strlen(to);
            p += strlen(from);
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = 0;
    char *path = tu_write("ce-hostile.json", out);
    snprintf(cmd, sizeof cmd, "report html '%s' -o '%s/ce.html'", path, t);
    page_of(cmd);
    char *page = tu_slurp_in(t, "ce.html");
    check(page, 1, 3);
    TU_CHECK_CONTAINS(page, "&lt;i&gt;Best&quot;&amp;Fit&lt;/i&gt;");
    CU_ASSERT_PTR_NULL(strstr(page, "<i>Best"));
    free(page);
    free(out);
    free(text);
}

/* scripts/regen-results on an index with a cluster study: its page (not with --no-plots),
 * and with --gnuplot its figures as scripts, rendered. */
static void test_regen(void)
{
    const char *t = tu_tmpdir(), *bin = getenv("SHARESIM");
    char *ix = tu_write("cr-index.json",
                        "{\"studies\": [{\"id\": \"cl\", \"kind\": \"cluster\", \"title\": "
                        "\"Tiny cluster\", \"scenarios\": [\"" TINY "\"]}]}");
    char cmd[4096], path[1200];
    snprintf(cmd, sizeof cmd,
             "SHARESIM='%s' scripts/regen-results --no-plots --index '%s' --out '%s/cr-a' "
             ">/dev/null 2>&1",
             bin ? bin : "build/sharesim", ix, t);
    CU_ASSERT_EQUAL(system(cmd), 0);
    snprintf(path, sizeof path, "%s/cr-a/cl.html", t);
    CU_ASSERT_FALSE(tu_exists(path));
    snprintf(cmd, sizeof cmd,
             "SHARESIM='%s' scripts/regen-results --index '%s' --out '%s/cr-b' --gnuplot "
             "'%s/cr-b/fig' >/dev/null 2>&1",
             bin ? bin : "build/sharesim", ix, t, t);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    snprintf(path, sizeof path, "%s/cr-b", t);
    char *page = tu_slurp_in(path, "cl.html");
    check(page, 1, 3);
    TU_CHECK_CONTAINS(page, "<h1>Tiny cluster</h1>");
    free(page);
    snprintf(path, sizeof path, "%s/cr-b/cl-placement.svg", t);
    CU_ASSERT(tu_exists(path));
    snprintf(path, sizeof path, "%s/cr-b/fig/cl/placement.gp", t);
    CU_ASSERT(tu_exists(path));
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        snprintf(path, sizeof path, "%s/cr-b/fig/cl/placement.png", t);
        CU_ASSERT(tu_exists(path));
        snprintf(path, sizeof path, "%s/cr-b/fig/cl/placement.pdf", t);
        CU_ASSERT(tu_exists(path));
    }
}

static void test_bad_input(void)
{
    const char *t = tu_tmpdir();
    char cmd[2048], err[2048];
    snprintf(cmd, sizeof cmd, "cluster " TINY " --quiet --json '%s/cb.json'", t);
    page_of(cmd);
    snprintf(cmd, sizeof cmd,
             "run tests/fixtures/html/two-tenants.json --quiet --json '%s/cb-run.json'", t);
    page_of(cmd);
    snprintf(cmd, sizeof cmd, "report html '%s/cb.json' '%s/cb-run.json' -o '%s/cb.html'", t, t, t);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "result 2 is not a `sharesim cluster --json` result");
    /* a shard writes no page */
    snprintf(cmd, sizeof cmd,
             "cluster " TINY " --shard 0/2 --partial '%s/cb.partial' --html '%s/cb2.html'", t, t);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "--html");
    /* a cluster study names its scenarios; only it does */
    char *ix =
        tu_write("cb-index.json",
                 "{\"studies\": [{\"id\": \"c\", \"kind\": \"cluster\", \"title\": \"C\"}]}");
    snprintf(cmd, sizeof cmd, "report index '%s'", ix);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "studies[0].scenarios: expected an array of 1 to 8 scenario files");
    ix = tu_write("cb-index2.json", "{\"studies\": [{\"id\": \"c\", \"title\": \"C\", "
                                    "\"scenario\": \"s.json\", \"scenarios\": [\"s.json\"]}]}");
    snprintf(cmd, sizeof cmd, "report index '%s'", ix);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "only a cluster study has scenarios");
    /* the page is one of the outputs: not the scenario */
    snprintf(cmd, sizeof cmd, "cluster " TINY " --quiet --html " TINY);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
}

void test_htcluster_register(void)
{
    static const struct tu_test t[] = {
        {"cluster --html: an inflation's page passes report check, failed pods, the verdict",
         test_inflate_page},
        {"a MIG replay beside it: two figures, the reconfigurations, gnuplot scripts",
         test_mig_page},
        {"names from the result are escaped", test_escaping},
        {"regen-results: a cluster study's page, and its gnuplot figures", test_regen},
        {"a mix of results, a shard's page, the scenario as the page: refused", test_bad_input},
        {NULL, NULL},
    };
    tu_add_suite("htcluster", t);
}
