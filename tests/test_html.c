/*
 * report/html*.c and `sharesim report html|check`, `plan --html`: the pages of shipped
 * studies keep the figures' promises (every latency plot shows its SLA, no curve fully hidden
 * by another: checked on the plotted points, tools/svgcheck.h), identical strategies are drawn
 * once and named, pages are self-contained, sweeps mark where each strategy crosses its SLA,
 * labels come from the scenario's names, a cluster section is drawn when a result has one, and
 * bad input exits 2. The pages in results/ (written by `make results`) are checked when present.
 */
#include "base/util.h"
#include "core/scenario.h"
#include "report/html.h"
#include "tools/svgcheck.h"
#include "testutil.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define FIX "tests/fixtures/html/two-tenants.json"

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* The figures' promises and self-containment, with the checker's first complaint shown. */
static void check_page(const char *page, const char *what)
{
    struct svc_report r;
    int bad = svc_check_text(page, &r);
    if (bad)
        fprintf(stderr, "\n  %s: %s\n", what, r.first);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(r.figures >= 1);
    CU_ASSERT(r.latency_panels >= 1);
    CU_ASSERT(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    CU_ASSERT_PTR_NULL(strstr(page, "<script"));
    CU_ASSERT_PTR_NULL(strstr(page, " src="));
    /* nothing from the network: the only "http" is the SVG namespace */
    CU_ASSERT_EQUAL(count(page, "http"), count(page, "http://www.w3.org/2000/svg"));
    TU_CHECK_CONTAINS(page, "<strong>Question.</strong>");
    TU_CHECK_CONTAINS(page, "<strong>Verdict.</strong>");
}

/* `run` then `report html` of a study of results/index.json, into the temporary directory;
 * returns the page (caller frees). */
static char *study_page(const char *id, const char *scenario)
{
    char cmd[2048];
    const char *t = tu_tmpdir();
    snprintf(cmd, sizeof cmd, "run %s --quiet --json '%s/%s.json' --cdf '%s/%s-cdf.csv'", scenario,
             t, id, t, id);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(cmd, sizeof cmd,
             "report html '%s/%s.json' --cdf '%s/%s-cdf.csv' --index results/index.json --study "
             "%s -o '%s/%s.html' --svg '%s/%s'",
             t, id, t, id, id, t, id, t, id);
    char err[2048];
    int rc = tu_cli(cmd, NULL, 0, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    snprintf(cmd, sizeof cmd, "%s/%s.html", t, id);
    char *page = tu_slurp(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    return page;
}

/* The two shipped studies whose strategies give identical latencies by construction. */
static void test_shipped_identical(void)
{
    if (tu_under_valgrind()) {
        printf("(skipped under valgrind: two whole studies) ");
        return;
    }
    char *mig = study_page("mig-fragmentation", "workloads/mig-fragmentation.json");
    check_page(mig, "mig-fragmentation");
    /* MIG instances are isolated: both layouts give every tenant the same curve, so the
     * distributions are one panel per SLA (not ten panels of "naive = packed"), and the
     * verdict's figure, the layouts (a GPU saved), comes first */
    CU_ASSERT_EQUAL(count(mig, "same curve: naive = packed"), 0);
    TU_CHECK_CONTAINS(mig, "the same under every strategy (naive = packed)");
    CU_ASSERT_EQUAL(count(mig, "data-title=\"small-0 … small-7 (8 tenants)\""), 1);
    const char *first = strstr(mig, "class=\"figure");
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    CU_ASSERT(strncmp(first, "class=\"figure mig verdict\"", 26) == 0);
    TU_CHECK_CONTAINS(mig, "give every tenant the same latency");
    TU_CHECK_CONTAINS(mig, "class=\"stranded\"");          /* the naive layout strands slices */
    TU_CHECK_CONTAINS(mig, "change any tenant's latency"); /* the index's question */
    char p[600];
    snprintf(p, sizeof p, "%s/mig-fragmentation-mig-occupancy.svg", tu_tmpdir());
    CU_ASSERT(tu_exists(p));
    free(mig);
    char *vg = study_page("vgpu-schedulers", "workloads/vgpu-schedulers.json");
    check_page(vg, "vgpu-schedulers");
    /* two A100DX-40C vGPUs: equal share (1/N of two) and fixed share (1/max, 2 per GPU)
     * give each VM the same half of the time */
    CU_ASSERT_EQUAL(count(vg, "same curve: equal = fixed"), 2);
    TU_CHECK_CONTAINS(vg, "SLA: p99 ≤ 50 ms");
    TU_CHECK_CONTAINS(vg, "no SLA in the scenario"); /* the batch VM has none */
    /* MPS meets both SLAs at the lowest cost (its clients share the bandwidth by demand); the
     * weighted vGPU scheduler does too, and the verdict says it is not one NVIDIA offers */
    TU_CHECK_CONTAINS(vg, "<strong>mps</strong> meets every tenant's SLA at the lowest cost");
    TU_CHECK_CONTAINS(vg,
                      "weighted-3:1</strong> (a hypothetical scheduler, not one NVIDIA offers)");
    free(vg);
}

/* A load sweep of the fixture: p99 and cost against load, crossings, the table. */
static void test_load_sweep(void)
{
    char cmd[4096], files[2048] = "";
    const char *t = tu_tmpdir();
    static const char *const scales[] = {"1", "0.5", "1.5", "2"};
    int n = tu_under_valgrind() ? 1 : 4;
    for (int k = 0; k < n; k++) {
        char cdf[700] = "";
        if (k == 0)
            snprintf(cdf, sizeof cdf, " --cdf '%s/ld-cdf.csv'", t);
        snprintf(cmd, sizeof cmd, "run " FIX " --quiet --scale-load %s --json '%s/ld-%s.json'%s",
                 scales[k], t, scales[k], cdf);
        CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
        size_t len = strlen(files);
        snprintf(files + len, sizeof files - len, " '%s/ld-%s.json'", t, scales[k]);
    }
    snprintf(cmd, sizeof cmd,
             "report html%s --scenario " FIX " --cdf '%s/ld-cdf.csv' --plot p99_ms,mean_ms,cost "
             "-o '%s/ld.html'",
             files, t, t);
    char err[2048];
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    snprintf(cmd, sizeof cmd, "%s/ld.html", t);
    char *page = tu_slurp(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    check_page(page, "load sweep");
    /* ts-twin is ts under another name */
    TU_CHECK_CONTAINS(page, "same curve: ts = ts-twin");
    TU_CHECK_CONTAINS(page, "<strong>ts</strong> and <strong>ts-twin</strong> give every tenant "
                            "the same latency");
    TU_CHECK_CONTAINS(page, "SLA: p99 ≤ 20 ms");
    TU_CHECK_CONTAINS(page, "SLA: p99 ≤ 12 ms");
    if (n == 4) {
        TU_CHECK_CONTAINS(page, "id=\"p99-vs-load\"");
        TU_CHECK_CONTAINS(page, "id=\"mean-vs-load\"");
        TU_CHECK_CONTAINS(page, "id=\"cost-vs-load\"");
        TU_CHECK_CONTAINS(page, "load (× the scenario's arrival rates)");
        TU_CHECK_CONTAINS(page, "Where each strategy first breaks each tenant's p99 SLA");
        TU_CHECK_CONTAINS(page, "class=\"cross\""); /* a ring where a curve crosses its SLA */
        TU_CHECK_CONTAINS(page, "Every result of the sweep");
    }
    free(page);
}

static void test_bad_input(void)
{
    char cmd[2048], err[4096];
    const char *t = tu_tmpdir();
    char *notres = tu_write("html-notres.json", "{\"scenario\": \"x\"}");
    snprintf(cmd, sizeof cmd, "report html %s", notres);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "strategies: expected an array");
    snprintf(cmd, sizeof cmd, "run " FIX " --quiet --json '%s/bad.json'", t);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(cmd, sizeof cmd, "report html '%s/bad.json' --plot p98_ms", t);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "--plot: \"p98_ms\" is not a metric");
    snprintf(cmd, sizeof cmd, "report html '%s/bad.json' --cdf '%s/bad.json' -o '%s/bad.html'", t,
             t, t);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "expected the header strategy,tenant,p,latency_ms");
    snprintf(cmd, sizeof cmd, "%s/bad.html", t);
    CU_ASSERT_FALSE(tu_exists(cmd)); /* nothing half-written */
    snprintf(cmd, sizeof cmd, "report html '%s/bad.json' --index results/index.json", t);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "--index and --study go together");
    snprintf(cmd, sizeof cmd,
             "report html '%s/bad.json' --index results/index.json --study validation", t);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    /* check: a page with a hidden curve exits 1, a file that is no page exits 2 */
    char *hidden = tu_write(
        "html-hidden.html",
        "<svg class=\"figure\"><g class=\"panel\" data-latency=\"0\" data-title=\"p\">"
        "<polyline class=\"series\" data-label=\"a\" points=\"1.0,1.0 9.0,9.0\"/>"
        "<polyline class=\"series\" data-label=\"b\" points=\"1.0,1.0 9.0,9.0\"/></g></svg>");
    snprintf(cmd, sizeof cmd, "report check '%s'", hidden);
    char out[2048];
    CU_ASSERT_EQUAL(tu_cli(cmd, out, sizeof out, NULL, 0), 1);
    TU_CHECK_CONTAINS(out, "1 hidden");
    snprintf(cmd, sizeof cmd, "report check '%s'", notres);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "no figure");
}

static void test_labels(void)
{
    struct scenario sc;
    char buf[256];
    tu_load_file(FIX, &sc);
    ht_param_label(&sc, "tenants.0.arrival.rate_per_s", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "chat: arrival rate (req/s)");
    ht_param_label(&sc, "tenants.1.sla.p99_ms", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "embed: p99 SLA (ms)");
    ht_param_label(&sc, "strategies.1.slice_ms", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "ts: time slice (ms)");
    ht_param_label(&sc, "strategies.3.mps_bw_loss_frac", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "mps: mps bw loss frac");
    ht_param_label(&sc, "tenants.0.work.queue_delay_us", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "chat: queue delay (µs)");
    ht_param_label(&sc, "gpus", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "GPUs");
    ht_param_label(&sc, "load_scale", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "load (× the scenario's arrival rates)");
    ht_param_label(NULL, "tenants.4.arrival.rate_per_s", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "tenant 4: arrival rate (req/s)");
    scn_free(&sc);
}

/* A cluster result (the shape docs/report.md gives, before `sharesim cluster` exists). */
static void test_cluster_section(void)
{
    char *path = tu_write(
        "cluster.json",
        "{\"scenario\": \"c\", \"gpu\": \"A100-80GB\", \"gpus\": 16, \"seed\": 1, "
        "\"replications\": 1, \"cluster\": {\"arrived_label\": \"GPU demand arrived\", "
        "\"arrived_unit\": \"GPUs\", \"policies\": ["
        "{\"name\": \"best-fit\", \"arrived\": [0, 4, 8, 12], \"allocation\": [0, 0.25, 0.5, "
        "0.7], \"fragmentation\": [0, 0.02, 0.05, 0.1]},"
        "{\"name\": \"first-fit\", \"arrived\": [0, 4, 8, 12], \"allocation\": [0, 0.25, 0.45, "
        "0.6], \"fragmentation\": [0, 0.05, 0.12, 0.2]}]}}");
    char cmd[2048], err[2048];
    snprintf(cmd, sizeof cmd, "report html '%s' -o '%s/cluster.html'", path, tu_tmpdir());
    int rc = tu_cli(cmd, NULL, 0, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    snprintf(cmd, sizeof cmd, "%s/cluster.html", tu_tmpdir());
    char *page = tu_slurp(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    TU_CHECK_CONTAINS(page, "id=\"cluster\"");
    TU_CHECK_CONTAINS(page, "GPU demand arrived (GPUs)");
    TU_CHECK_CONTAINS(page, "data-label=\"first-fit\"");
    struct svc_report r;
    CU_ASSERT_EQUAL(svc_check_text(page, &r), 0);
    CU_ASSERT_EQUAL(r.panels, 2);
    free(page);
}

static void test_plan_page(void)
{
    char cmd[2048], err[2048];
    snprintf(cmd, sizeof cmd, "plan %s --quiet --html '%s/plan.html'",
             tu_fixture("plan/light-tenants.json"), tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    snprintf(cmd, sizeof cmd, "%s/plan.html", tu_tmpdir());
    char *page = tu_slurp(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    check_page(page, "plan");
    TU_CHECK_CONTAINS(page, "Capacity plan for light");
    TU_CHECK_CONTAINS(page, "is the cheapest configuration the simulation confirms");
    TU_CHECK_CONTAINS(page, "SLA: p99 ≤ 100 ms");
    free(page);
}

/* Whatever `make results` wrote: every page keeps the promises. */
static void test_results_pages(void)
{
    DIR *d = opendir("results");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!ss_ends_with(e->d_name, ".html"))
            continue;
        char path[600];
        snprintf(path, sizeof path, "results/%s", e->d_name);
        char *page = tu_slurp(path);
        CU_ASSERT_PTR_NOT_NULL_FATAL(page);
        if (strstr(page, "<h2 id=\"cluster-1\">")) { /* a cluster page: no latency to plot */
            struct svc_report r;
            CU_ASSERT_EQUAL(svc_check_text(page, &r), 0);
            CU_ASSERT(r.figures >= 1);
            TU_CHECK_CONTAINS(page, "<strong>Verdict.</strong>");
        } else {
            check_page(page, path);
        }
        free(page);
        n++;
    }
    if (d)
        closedir(d);
    if (n == 0)
        printf("(no results/*.html yet: `make results` writes them) ");
}

/* LLM services (tests/fixtures/html/llm.json): a page judges them on their TTFT and TPOT
 * targets — the figure of both per service and strategy, the token table, the verdict naming
 * the target missed — and a page without LLM tenants has none of it. */
static void test_llm_page(void)
{
    char cmd[4096], err[2048], p[700];
    const char *t = tu_tmpdir();
    static const char *const scales[] = {"1", "2"};
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd,
                 "run tests/fixtures/html/llm.json --quiet --scale-load %s --json '%s/llm-%s.json'",
                 scales[k], t, scales[k]);
        CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    }
    snprintf(cmd, sizeof cmd,
             "report html '%s/llm-1.json' '%s/llm-2.json' --scenario tests/fixtures/html/llm.json "
             "-o '%s/llm.html' --svg '%s/llm'",
             t, t, t, t);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/llm.html", t);
    char *page = tu_slurp(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    check_page(page, "llm");
    TU_CHECK_CONTAINS(page, "id=\"llm-sla\"");
    /* two services × two targets, each panel with its target's line */
    CU_ASSERT_EQUAL(count(page, "data-title=\"chat: TTFT p99\""), 1);
    TU_CHECK_CONTAINS(page, "SLA: TPOT p99 ≤ 12 ms");
    TU_CHECK_CONTAINS(page, "SLA: TTFT p99 ≤ 1 s");    /* rag's, on an axis in s */
    TU_CHECK_CONTAINS(page, "SLA: TTFT p99 ≤ 500 ms"); /* chat's, on an axis in ms */
    CU_ASSERT_PTR_NULL(strstr(page, "ttft_p99_ms ≤"));
    /* every tenant is an LLM service without a p99 target: no p99 figure, and the page says
     * why where it would be */
    CU_ASSERT_PTR_NULL(strstr(page, "id=\"fig-p99-vs-load\""));
    TU_CHECK_CONTAINS(page, "No figure of p99 latency (ms) against load");
    TU_CHECK_CONTAINS(page, "id=\"ttft-p99-vs-load\"");
    TU_CHECK_CONTAINS(page, "id=\"tpot-p99-vs-load\"");
    TU_CHECK_CONTAINS(page, "LLM services: tokens");
    /* a 3g.40gb has 4 of 8 memory slices: decode takes twice as long as on the whole GPU, past
     * chat's 12 ms TPOT target, which the verdict names */
    TU_CHECK_CONTAINS(page, "<strong>mig</strong> misses (chat: TPOT p99 ");
    TU_CHECK_CONTAINS(page, "ms &gt; 12 ms)");
    snprintf(p, sizeof p, "%s/llm-llm-sla.svg", t);
    CU_ASSERT(tu_exists(p));
    free(page);
    snprintf(cmd, sizeof cmd, "run " FIX " --quiet --json '%s/nollm.json'", t);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(cmd, sizeof cmd, "report html '%s/nollm.json' --scenario " FIX " -o '%s/nollm.html'",
             t, t);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/nollm.html", t);
    page = tu_slurp(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    CU_ASSERT_PTR_NULL(strstr(page, "llm-sla"));
    CU_ASSERT_PTR_NULL(strstr(page, "LLM services"));
    free(page);
}

/* The tenants-per-GPU figure's caption names each point's strategy by its place in the result,
 * not by its rank among the strategies that used a GPU: with a strategy that used none first,
 * the names once shifted one point along ("placed-nowhere at 1, exclusive at 1.5, …"). */
static void test_density_caption_names(void)
{
    char cmd[2000], path[900];
    const char *t = tu_tmpdir();
    snprintf(cmd, sizeof cmd,
             "run tests/fixtures/html/density.json --quiet --no-slowdown --json '%s/density.json'",
             t);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(path, sizeof path, "%s/density.json", t);
    char *text = tu_slurp(path);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    cJSON *strats = cJSON_GetObjectItem(doc, "strategies");
    cJSON *none = cJSON_Duplicate(cJSON_GetArrayItem(strats, 2), 1);
    cJSON_ReplaceItemInObject(none, "name", cJSON_CreateString("placed-nowhere"));
    cJSON_ReplaceItemInObject(none, "gpus_used", cJSON_CreateNumber(0));
    cJSON_InsertItemInArray(strats, 0, none);
    char *out = cJSON_Print(doc);
    snprintf(path, sizeof path, "%s/density-0.json", t);
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(out, fp);
    fclose(fp);
    free(out);
    cJSON_Delete(doc);
    snprintf(cmd, sizeof cmd, "report html '%s' -o '%s/density.html'", path, t);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(path, sizeof path, "%s/density.html", t);
    char *page = tu_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    TU_CHECK_CONTAINS(page,
                      "One point per strategy: exclusive at 1, ts-2+1 at 1.5, ts-all at 3 tenants "
                      "per GPU.");
    free(page);
}

/* A plain tenant beside an LLM service (tests/fixtures/html/mixed.json), swept: TTFT and TPOT
 * panels for the LLM service only, p99 for the plain one only, each figure naming the panel it
 * leaves out and why, the SLA in words and in the axis's unit, the token figure first. */
static void test_mixed_sweep(void)
{
    char cmd[4096], err[2048], p[700];
    const char *t = tu_tmpdir();
    static const char *const scales[] = {"1", "2"};
    for (int k = 0; k < 2; k++) {
        snprintf(
            cmd, sizeof cmd,
            "run tests/fixtures/html/mixed.json --quiet --scale-load %s --json '%s/mx-%s.json'",
            scales[k], t, scales[k]);
        CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    }
    snprintf(cmd, sizeof cmd,
             "report html '%s/mx-1.json' '%s/mx-2.json' --scenario tests/fixtures/html/mixed.json "
             "-o '%s/mx.html'",
             t, t, t);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/mx.html", t);
    char *page = tu_slurp(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    check_page(page, "mixed");
    CU_ASSERT_EQUAL(count(page, "No panel for embed: not an LLM service, so no tokens to time"), 2);
    TU_CHECK_CONTAINS(page, "No panel for chat: an LLM service with no p99 target");
    CU_ASSERT_PTR_NULL(strstr(page, "data-title=\"embed\" data-tenant=\"embed\" "
                                    "data-metric=\"ttft_p99_ms\""));
    TU_CHECK_CONTAINS(page, "p99 time to first token (s)");
    TU_CHECK_CONTAINS(page, "SLA: TTFT p99 ≤ 2 s");
    CU_ASSERT_PTR_NULL(strstr(page, "ttft_p99_ms ≤"));
    const char *first = strstr(page, "class=\"figure");
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    CU_ASSERT(strncmp(first, "class=\"figure verdict\" id=\"fig-llm-sla\"", 39) == 0);
    free(page);
}

void test_html_register(void)
{
    static const struct tu_test t[] = {
        {"shipped studies: SLA lines, nothing hidden, identical strategies named",
         test_shipped_identical},
        {"a load sweep: p99, mean and cost against load, crossings", test_load_sweep},
        {"bad input exits 2, nothing written; check exits 1", test_bad_input},
        {"sweep axes named from the scenario, with units", test_labels},
        {"a cluster result: allocation and fragmentation", test_cluster_section},
        {"plan --html", test_plan_page},
        {"LLM services: TTFT and TPOT per service and strategy, token table", test_llm_page},
        {"a plain tenant and an LLM service swept: no empty panel", test_mixed_sweep},
        {"the tenants-per-GPU caption names the strategies of its points",
         test_density_caption_names},
        {"results/*.html keep the promises", test_results_pages},
        {NULL, NULL},
    };
    tu_add_suite("html", t);
}
