/*
 * verdict — one answer to "does this tenant meet its SLA?" (core/verdict.h, docs/scenario.md
 * "The verdict"). The rule on its own figures, then every case end to end through every
 * consumer: `run --check-sla` (exit code and the line on stderr), the JSON verdict, `compare`'s
 * row and its cheapest-meeting mark, `plan`'s meets_sla and reason, the study page of `report
 * html` and the sweep page. Each consumer must give the same answer and the same reason.
 */
#include "testutil.h"
#include "core/verdict.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the rule on its figures ------------------------------------------------------------ */

static struct vd_figures plain(void)
{
    struct vd_figures f = {.has_sla = 1,
                           .p99_target_s = 0.06,
                           .p99_s = 0.04,
                           .arrived = 1000,
                           .throughput_per_s = 10,
                           .stable = 1,
                           .overload = NAN,
                           .ttft_p99_s = NAN,
                           .tpot_p99_s = NAN};
    return f;
}

static void test_rule_figures(void)
{
    struct vd_figures f = plain();
    struct vd_verdict v;
    vd_judge_figures(&f, &v);
    CU_ASSERT(v.meets);
    CU_ASSERT_DOUBLE_EQUAL(v.worst_ratio, 0.04 / 0.06, 1e-12);
    f.p99_s = 0.0784;
    vd_judge_figures(&f, &v);
    CU_ASSERT(!v.meets);
    CU_ASSERT_STRING_EQUAL(v.reason, "p99 78.4 ms > 60 ms");
    f = plain();
    f.rejected = 3178;
    vd_judge_figures(&f, &v);
    CU_ASSERT(!v.meets);
    CU_ASSERT_STRING_EQUAL(v.reason, "3,178 rejected");
    CU_ASSERT(v.lost_miss > 0);
    f.max_lost_fraction = 0.5; /* an allowance: 3,178 of 1,000 is still over it */
    vd_judge_figures(&f, &v);
    CU_ASSERT_STRING_EQUAL(v.reason, "3,178 rejected (318 % > 50 %)");
    f.rejected = 3;
    f.failed = 2;
    f.max_lost_fraction = 0;
    vd_judge_figures(&f, &v);
    CU_ASSERT_STRING_EQUAL(v.reason, "3 rejected, 2 failed");
    f.max_lost_fraction = 0.01; /* 0.5 % lost is within 1 % */
    vd_judge_figures(&f, &v);
    CU_ASSERT(v.meets);
    f = plain();
    f.stable = 0;
    f.overload = 1.3;
    vd_judge_figures(&f, &v);
    CU_ASSERT_STRING_EQUAL(v.reason, "unstable: offered 1.3 × its share");
    f = plain();
    f.ttft_target_s = 0.5;
    f.ttft_p99_s = 2.4;
    vd_judge_figures(&f, &v);
    CU_ASSERT_STRING_EQUAL(v.reason, "TTFT p99 2.4 s > 500 ms");
    f = plain();
    f.min_throughput_per_s = 25;
    f.throughput_per_s = 5.4;
    vd_judge_figures(&f, &v);
    CU_ASSERT_STRING_EQUAL(v.reason, "throughput 5.4 < 25 req/s");
    CU_ASSERT_DOUBLE_EQUAL(v.worst_ratio, 25 / 5.4, 1e-12);
    f = plain();
    f.has_sla = 0;
    f.rejected = 10;
    vd_judge_figures(&f, &v);
    CU_ASSERT(v.meets && !v.has_sla); /* nothing promised, nothing missed */
}

static void test_rule_words(void)
{
    char b[64];
    vd_fmt_ratio(0.77, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "−23.0 %");
    vd_fmt_ratio(1.3, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "1.3 × the target");
    vd_fmt_ratio(4041.667, b, sizeof b); /* was "−404066.7 %" */
    CU_ASSERT_STRING_EQUAL(b, "4.04e+03 × the target");
    /* A miss by a loss it may not have is farther than any ratio; fewer lost is closer. */
    CU_ASSERT(vd_closer(0, 5, 0.01, 0.1) > 0);
    CU_ASSERT(vd_closer(0.01, 0.5, 0.2, 0.1) > 0);
    CU_ASSERT(vd_closer(0, 1.1, 0, 1.2) > 0);
}

/* ---- every consumer ------------------------------------------------------------------------ */

struct vcase {
    const char *id;
    const char *tenant; /* the tenant object */
    const char *stop;
    const char *extra; /* more top-level keys, "" or ", \"k\": v" */
    int meets;
    const char *reason; /* what the reason starts with */
};

static const char *const plain_work =
    "\"arrival\": {\"process\": \"poisson\", \"rate_per_s\": %s}, "
    "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 5}";

static const struct vcase cases[] = {
    {"met", "{\"name\": \"t\", W50, \"sla\": {\"p99_ms\": 200}}", "\"requests\": 20000", "", 1, ""},
    {"p99", "{\"name\": \"t\", W150, \"sla\": {\"p99_ms\": 20}}", "\"requests\": 20000", "", 0,
     "p99 "},
    {"rejected", "{\"name\": \"t\", W150, \"queue_limit\": 2, \"sla\": {\"p99_ms\": 200}}",
     "\"requests\": 20000", "", 0, "3,178 rejected"},
    {"failed", "{\"name\": \"t\", W50, \"fault_rate_per_h\": 3600, \"sla\": {\"p99_ms\": 1000}}",
     "\"requests\": 20000", "", 0, "82 failed"},
    {"unstable", "{\"name\": \"t\", W250, \"sla\": {\"p99_ms\": 1000000}}", "\"requests\": 20000",
     "", 0, "unstable: offered 1.25 × its share"},
    {"ttft", "{\"name\": \"t\", LLM, \"sla\": {\"ttft_p99_ms\": 1}}", "\"duration_s\": 20", "", 0,
     "TTFT p99 "},
    {"tpot", "{\"name\": \"t\", LLM, \"sla\": {\"tpot_p99_ms\": 1}}", "\"duration_s\": 20", "", 0,
     "TPOT p99 "},
    {"throughput", "{\"name\": \"t\", W20, \"sla\": {\"min_throughput_per_s\": 25}}",
     "\"requests\": 20000", "", 0, "throughput 20"},
};

/* The case's tenant with W<rate> and LLM expanded. */
static void tenant_text(const struct vcase *c, char *out, size_t n)
{
    char w[300];
    const char *p = c->tenant;
    size_t k = 0;
    while (*p && k + 1 < n) {
        if (p[0] == 'W' && p[1] >= '0' && p[1] <= '9') {
            char rate[16];
            int d = 0;
            for (p++; *p >= '0' && *p <= '9' && d < 15; p++)
                rate[d++] = *p;
            rate[d] = '\0';
            snprintf(w, sizeof w, plain_work, rate);
            k += (size_t)snprintf(out + k, n - k, "%s", w);
        } else if (strncmp(p, "LLM", 3) == 0) {
            k += (size_t)snprintf(out + k, n - k,
                                  "\"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 4}, "
                                  "\"serving\": {\"engine\": \"llm\", \"model\": \"Llama-2-7B\"}, "
                                  "\"tokens\": {\"input\": {\"dist\": \"lognormal\", \"mean\": "
                                  "400, \"cv\": 1}, \"output\": {\"dist\": \"exponential\", "
                                  "\"mean\": 150}}");
            p += 3;
        } else {
            out[k++] = *p++;
        }
    }
    out[k] = '\0';
}

static const char *case_file(const struct vcase *c)
{
    static char path[600];
    char text[2400], ten[1200], name[64];
    tenant_text(c, ten, sizeof ten);
    snprintf(text, sizeof text,
             "{\"name\": \"vd-%s\", \"gpu\": \"A100-80GB\", \"gpus\": 1, \"seed\": 3, \"stop\": "
             "{%s}%s, \"tenants\": [%s], \"strategies\": [{\"name\": \"excl\", \"kind\": "
             "\"exclusive\"}], \"plan\": {\"kinds\": [\"exclusive\"], \"max_gpus\": 1}}",
             c->id, c->stop, c->extra, ten);
    snprintf(name, sizeof name, "vd-%s.json", c->id);
    snprintf(path, sizeof path, "%s", tu_write(name, text));
    return path;
}

static cJSON *read_json(const char *path)
{
    char *text = tu_slurp(path);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    return doc;
}

/* The reason as a page writes it (hw_text escapes <, >, &). */
static void html_text(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (; *s && k + 6 < n; s++)
        k += (size_t)(*s == '>'   ? snprintf(out + k, n - k, "&gt;")
                      : *s == '<' ? snprintf(out + k, n - k, "&lt;")
                      : *s == '&' ? snprintf(out + k, n - k, "&amp;")
                                  : snprintf(out + k, n - k, "%c", *s));
    out[k] = '\0';
}

static int page_has(const char *path, const char *what)
{
    char *page = tu_slurp(path);
    int has = page && strstr(page, what) != NULL;
    if (!has)
        fprintf(stderr, "\n  %s lacks \"%s\"\n", path, what);
    free(page);
    return has;
}

static void check_case(const struct vcase *c)
{
    const char *scn = case_file(c);
    const char *tmp = tu_tmpdir();
    char cmd[2400], err[4096], res[700], reason[VD_REASON_MAX] = "", esc[300];
    /* run --check-sla: the exit code and the line naming the reason. */
    snprintf(res, sizeof res, "%s/vd-%s.result.json", tmp, c->id);
    snprintf(cmd, sizeof cmd, "run %s --quiet --check-sla --json %s", scn, res);
    int rc = tu_cli(cmd, NULL, 0, err, sizeof err);
    CU_ASSERT_EQUAL(rc, c->meets ? 0 : 1);
    cJSON *doc = read_json(res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *t = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0),
                            "tenants"),
        0);
    const cJSON *v = cJSON_GetObjectItem(t, "verdict");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(cJSON_IsTrue(cJSON_GetObjectItem(v, "meets")), c->meets);
    if (!c->meets) {
        const char *r = cJSON_GetStringValue(cJSON_GetObjectItem(v, "reason"));
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        snprintf(reason, sizeof reason, "%s", r);
        CU_ASSERT_EQUAL(strncmp(reason, c->reason, strlen(c->reason)), 0);
        char line[300];
        snprintf(line, sizeof line, "tenant \"t\": %s\n", reason);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, line));
        if (strncmp(reason, c->reason, strlen(c->reason)) != 0)
            fprintf(stderr, "\n  case %s: reason \"%s\", expected \"%s…\"\n", c->id, reason,
                    c->reason);
    }
    cJSON_Delete(doc);
    /* compare: its row and the cheapest strategy that meets every SLA. */
    snprintf(cmd, sizeof cmd, "compare %s", scn);
    cJSON *cmp = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cmp);
    const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(cmp, "rows"), 0);
    CU_ASSERT_EQUAL(cJSON_IsTrue(cJSON_GetObjectItem(row, "meets_sla")), c->meets);
    if (!c->meets) {
        const char *sr = cJSON_GetStringValue(cJSON_GetObjectItem(row, "sla_reason"));
        CU_ASSERT_PTR_NOT_NULL_FATAL(sr);
        CU_ASSERT_STRING_EQUAL(sr, reason);
    }
    const cJSON *cheap = cJSON_GetObjectItem(cmp, "cheapest_meeting_sla");
    CU_ASSERT(c->meets ? cJSON_IsString(cheap) : cJSON_IsNull(cheap));
    cJSON_Delete(cmp);
    /* plan: the one exclusive candidate, simulated or pruned with its reason. */
    char pj[700];
    snprintf(pj, sizeof pj, "%s/vd-%s.plan.json", tmp, c->id);
    snprintf(cmd, sizeof cmd, "plan --no-headroom %s --quiet --json %s", scn, pj);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), c->meets ? 0 : 1);
    cJSON *plan = read_json(pj);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plan);
    const cJSON *cand = cJSON_GetArrayItem(cJSON_GetObjectItem(plan, "candidates"), 0);
    CU_ASSERT_EQUAL(cJSON_IsTrue(cJSON_GetObjectItem(cand, "meets_sla")), c->meets);
    const char *pr = cJSON_GetStringValue(cJSON_GetObjectItem(cand, "reason"));
    if (c->meets) {
        CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(cand, "reason")));
        CU_ASSERT(tu_json_num(cand, "worst_ratio") <= 1);
    } else if (cJSON_IsTrue(cJSON_GetObjectItem(cand, "simulated"))) {
        char want[200];
        snprintf(want, sizeof want, "t: %s", reason);
        CU_ASSERT_PTR_NOT_NULL_FATAL(pr);
        CU_ASSERT_STRING_EQUAL(pr, want);
        CU_ASSERT_DOUBLE_EQUAL(tu_json_num(cand, "worst_sla_margin"),
                               1 - tu_json_num(cand, "worst_ratio"), 1e-5);
    } else { /* pruned before a run: the pruning says why */
        CU_ASSERT(pr && *pr);
    }
    cJSON_Delete(plan);
    /* The study page of the result. */
    char page[800];
    snprintf(page, sizeof page, "%s/vd-%s.html", tmp, c->id);
    snprintf(cmd, sizeof cmd, "report html %s --scenario %s -o %s", res, scn, page);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    html_text(reason, esc, sizeof esc);
    char want[400];
    if (c->meets) {
        CU_ASSERT(page_has(page, "is the only strategy that meets every tenant"));
        CU_ASSERT(page_has(page, "<td class=\"l ok\">✓ meets</td>"));
    } else {
        snprintf(want, sizeof want, "(t: %s)", esc);
        CU_ASSERT(page_has(page, "No strategy meets every tenant"));
        CU_ASSERT(page_has(page, want));
        /* the tenants table's verdict cell: the same rule and reason */
        snprintf(want, sizeof want, "<td class=\"l miss\">✗ %s</td>", esc);
        CU_ASSERT(page_has(page, want));
    }
    /* The sweep page: two points that differ only in the weight, which only the fairness index
     * reads, so both have the case's figures; its table gives each point's verdict. */
    char dir[700];
    snprintf(dir, sizeof dir, "%s/vd-%s.sweep", tmp, c->id);
    snprintf(cmd, sizeof cmd, "sweep %s --set tenants.0.weight=1,2 --out %s --jobs 1 --quiet", scn,
             dir);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(page, sizeof page, "%s/sweep.html", dir);
    if (c->meets) {
        CU_ASSERT(page_has(page, "✓ all met"));
    } else {
        snprintf(want, sizeof want, "✗ t: %s", esc);
        CU_ASSERT(page_has(page, want));
    }
}

#define CASE(name, k)                                                                              \
    static void test_case_##name(void)                                                             \
    {                                                                                              \
        check_case(&cases[k]);                                                                     \
    }
CASE(met, 0)
CASE(p99, 1)
CASE(rejected, 2)
CASE(failed, 3)
CASE(unstable, 4)
CASE(ttft, 5)
CASE(tpot, 6)
CASE(throughput, 7)

/* Beside an LLM service the model knows no capacity (the engine's load is not known in
 * advance): a plain tenant time-sliced with it that completes 160 of 200 req/s was "stable":
 * null with no warning. The run shows its queue grew: unstable, warned, and a miss; at 50 req/s
 * it keeps up and stays unknown, not flagged. */
static void test_unstable_beside_llm(void)
{
    static const char fmt[] =
        "{\"name\": \"llmts\", \"gpu\": \"A100-80GB\", \"gpus\": 1, \"seed\": 1, \"stop\": "
        "{\"duration_s\": 60}, \"tenants\": [{\"name\": \"chat\", \"arrival\": {\"process\": "
        "\"poisson\", \"rate_per_s\": 4}, \"serving\": {\"engine\": \"llm\", \"model\": "
        "\"Llama-2-7B\"}, \"tokens\": {\"input\": {\"dist\": \"lognormal\", \"mean\": 400, "
        "\"cv\": 1}, \"output\": {\"dist\": \"exponential\", \"mean\": 150}}}, {\"name\": "
        "\"api\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": %d}, \"work\": "
        "{\"dist\": \"exponential\", \"mean_ms\": 3}, \"sla\": {\"p99_ms\": 500}}], "
        "\"strategies\": [{\"name\": \"ts\", \"kind\": \"timeslice\", \"assign\": {\"chat\": "
        "0, \"api\": 0}}]}";
    char text[1600], cmd[800], err[4096];
    snprintf(text, sizeof text, fmt, 200);
    const char *p = tu_write("llmts-200.json", text);
    snprintf(cmd, sizeof cmd, "run %s --quiet --check-sla", p);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 1);
    TU_CHECK_CONTAINS(err, "tenant \"api\" is overloaded");
    TU_CHECK_CONTAINS(err, "tenant \"api\": unstable: offered 1.");
    TU_CHECK_CONTAINS(err, " × its share");
    snprintf(cmd, sizeof cmd, "run %s", p);
    cJSON *doc = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const cJSON *api = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0),
                            "tenants"),
        1);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(api, "stable")));
    CU_ASSERT(tu_json_num(api, "throughput_per_s") < 170);
    cJSON_Delete(doc);
    snprintf(text, sizeof text, fmt, 50);
    p = tu_write("llmts-50.json", text);
    snprintf(cmd, sizeof cmd, "run %s", p);
    doc = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    api = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "strategies"), 0),
                            "tenants"),
        1);
    CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(api, "stable")));
    cJSON_Delete(doc);
}

/* The loader: the new keys, their bounds, and an SLA without a target. */
static void test_sla_keys(void)
{
    static const char head[] =
        "{\"name\": \"k\", \"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 10}, \"tenants\": "
        "[{\"name\": \"t\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, \"work\": "
        "{\"dist\": \"exponential\", \"mean_ms\": 1}, \"sla\": %s}], \"strategies\": [{\"name\": "
        "\"e\", \"kind\": \"exclusive\"}]}";
    char text[800];
    snprintf(text, sizeof text, head, "{\"max_lost_fraction\": 0.1}");
    tu_expect_load_error(text, "tenants[0].sla: expected at least one target");
    snprintf(text, sizeof text, head, "{\"p99_ms\": 5, \"max_lost_fraction\": 1.5}");
    tu_expect_load_error(text, "max_lost_fraction");
    snprintf(text, sizeof text, head, "{\"min_throughput_per_s\": 0}");
    tu_expect_load_error(text, "min_throughput_per_s");
    snprintf(text, sizeof text, head, "{\"ttft_p99_ms\": 5}");
    tu_expect_load_error(text, "ttft_p99_ms");
}

/* Two strategies that both meet at the same cost on the same GPUs: the wider margin is the
 * cheapest that meets every SLA, in `compare` and on the page alike (compare used to keep the
 * first in scenario order, the page the wider margin: two answers from one result). */
static void test_cheapest_tie(void)
{
    const char *scn =
        tu_write("vd-tie.json",
                 "{\"name\": \"tie\", \"gpu\": \"A100-80GB\", \"gpus\": 1, \"seed\": 3, "
                 "\"stop\": {\"requests\": 20000}, \"tenants\": [{\"name\": \"t\", \"arrival\": "
                 "{\"process\": \"poisson\", \"rate_per_s\": 100}, \"work\": {\"dist\": "
                 "\"exponential\", \"mean_ms\": 5}, \"sla\": {\"p99_ms\": 100}}], \"strategies\": "
                 "[{\"name\": \"a\", \"kind\": \"exclusive\", \"discipline\": \"ps\"}, "
                 "{\"name\": \"b\", \"kind\": \"exclusive\"}]}\n");
    char cmd[1400], res[600], page[600];
    snprintf(cmd, sizeof cmd, "compare %s", scn);
    cJSON *cmp = tu_cli_json(cmd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cmp);
    /* PS's p99 is the longer (its sojourn has the heavier tail): b has the wider margin. */
    CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItem(cmp, "cheapest_meeting_sla")),
                           "b");
    cJSON_Delete(cmp);
    snprintf(res, sizeof res, "%s/vd-tie.res.json", tu_tmpdir());
    snprintf(page, sizeof page, "%s/vd-tie.html", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "run %s --quiet --json %s", scn, res);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(cmd, sizeof cmd, "report html %s --scenario %s -o %s", res, scn, page);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    CU_ASSERT(page_has(page, "<strong>b</strong> meets every tenant"));
    /* the order itself: cost, then GPUs, then the worst ratio; no cost ranks last */
    CU_ASSERT(vd_cheaper(1, 2, 0.9, 2, 1, 0.1) > 0);
    CU_ASSERT(vd_cheaper(1, 1, 0.9, 1, 2, 0.1) > 0);
    CU_ASSERT(vd_cheaper(1, 1, 0.5, 1, 1, 0.6) > 0);
    CU_ASSERT(vd_cheaper(1, 1, 0.5, 1, 1, 0.5) == 0);
    CU_ASSERT(vd_cheaper(NAN, 1, 0.1, 9, 4, 0.9) < 0);
}

void test_verdict_register(void)
{
    static const struct tu_test tests[] = {
        {"the rule on its figures: each reason in words", test_rule_figures},
        {"ratios in words, and which miss is closer", test_rule_words},
        {"met: every consumer says it meets", test_case_met},
        {"p99 above its target: every consumer says so", test_case_p99},
        {"3,178 rejected with p99 34.5 ms <= 200 ms: a miss everywhere", test_case_rejected},
        {"failed requests: a miss everywhere", test_case_failed},
        {"unstable with a p99 in range: a miss everywhere", test_case_unstable},
        {"TTFT p99 above its target: every consumer says so", test_case_ttft},
        {"TPOT p99 above its target: every consumer says so", test_case_tpot},
        {"throughput below sla.min_throughput_per_s: a miss everywhere", test_case_throughput},
        {"sla keys: bounds and at least one target", test_sla_keys},
        {"a tenant that cannot keep up beside an LLM service is flagged", test_unstable_beside_llm},
        {"a tie in cost: compare and the page name the same cheapest", test_cheapest_tie},
        {NULL, NULL}};
    tu_add_suite("verdict", tests);
}
