/*
 * The policies' optional hooks (struct policy_hooks, docs/policy-hooks.md): the
 * registry walk the tools use instead of naming kinds, one baseline, plan candidates
 * every policy's own parser accepts, deploy files, compare labels, and the rule of
 * thumb the planner assembles from the policies' claims.
 */
#include "core/deploy.h"
#include "core/plancand.h"
#include "core/policy.h"
#include "core/run.h"
#include "core/scenario.h"
#include "tools/plan.h"
#include "testutil.h"
#include "base/util.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A scenario of T light Poisson tenants (8 GB, p99 SLA sla_ms) on A100-80GB; `rest` is
 * spliced in after the tenants (strategies, plan…) and may be "". */
static char *scenario_text(int T, double sla_ms, const char *rest)
{
    size_t cap = 1024 + (size_t)T * 256 + strlen(rest);
    char *s = ss_xmalloc(cap);
    int n = snprintf(s, cap,
                     "{\"name\": \"hooks\", \"gpu\": \"A100-80GB\", \"seed\": 7, \"stop\": "
                     "{\"requests\": 2000}, \"tenants\": [");
    for (int i = 0; i < T; i++)
        n += snprintf(s + n, cap - (size_t)n,
                      "%s{\"name\": \"t%d\", \"arrival\": {\"process\": \"poisson\", "
                      "\"rate_per_s\": %d}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": "
                      "2}, \"memory_gb\": 8, \"sla\": {\"p99_ms\": %g}}",
                      i ? ", " : "", i, 10 + 5 * i, sla_ms);
    snprintf(s + n, cap - (size_t)n, "]%s}", rest);
    return s;
}

static int load(const char *text, unsigned flags, struct scenario *sc)
{
    char err[SS_ERRLEN];
    int rc = scn_load_text_flags("hooks.json", text, strlen(text), flags, sc, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  load: %s\n", err);
    return rc;
}

static void free_cands(struct plan_ctx *x)
{
    for (int i = 0; i < x->n; i++)
        pc_free_cand(&x->c[i]);
    free(x->c);
    x->c = NULL;
    x->n = x->cap = 0;
}

static void test_registry_walk(void)
{
    int n = policy_count();
    CU_ASSERT(n >= 5);
    for (int i = 0; i < n; i++) {
        const struct policy_ops *ops = policy_at(i);
        CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
        CU_ASSERT_PTR_EQUAL(policy_find(ops->kind), ops); /* kinds are unique */
    }
    CU_ASSERT_PTR_NULL(policy_at(-1));
    CU_ASSERT_PTR_NULL(policy_at(n));
}

static void test_one_baseline(void)
{
    int baselines = 0;
    for (int i = 0; i < policy_count(); i++)
        baselines += policy_is_baseline(policy_at(i));
    CU_ASSERT_EQUAL(baselines, 1);
    CU_ASSERT(policy_is_baseline(policy_baseline()));
    CU_ASSERT(!policy_is_baseline(NULL));
    /* A scenario without a baseline strategy still gets slowdown_p99: the implicit alone
     * run is built from the baseline policy. */
    char *text = scenario_text(2, 100,
                               ", \"strategies\": [{\"name\": \"ts\", \"kind\": "
                               "\"timeslice\", \"assign\": {\"t0\": 0, \"t1\": 0}}]");
    struct scenario sc;
    CU_ASSERT_EQUAL_FATAL(load(text, 0, &sc), 0);
    free(text);
    CU_ASSERT(!policy_is_baseline(sc.strategies[0].ops));
    struct run_opts o = {1, -1, 1, 0};
    struct run_result r;
    CU_ASSERT_EQUAL_FATAL(run_scenario(&sc, &o, &r, NULL, 0), 0);
    for (int i = 0; i < sc.n_tenants; i++) {
        double s = r.s[0].t[(size_t)i * TM_N + TM_SLOWDOWN_P99];
        CU_ASSERT(isfinite(s) && s > 0);
    }
    run_result_free(&r);
    scn_free(&sc);
}

/* Loads sc's tenants with `strategy` as its only strategy on `gpus` GPUs (what the
 * planner's simulate() does); 0 if the policy's parser accepts it. */
static int load_with(const struct scenario *sc, const cJSON *strategy, int gpus,
                     struct scenario *out)
{
    cJSON *doc = cJSON_Duplicate(sc->json, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "gpus");
    cJSON_AddNumberToObject(doc, "gpus", gpus);
    cJSON *arr = cJSON_AddArrayToObject(doc, "strategies");
    cJSON_AddItemToArray(arr, cJSON_Duplicate(strategy, 1));
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    int rc = load(text, 0, out);
    free(text);
    return rc;
}

static int files_in(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Every plan hook proposes candidates of its own kind whose strategy objects its own
 * parser accepts; the deploy hook writes a file for one; the loaded strategy has a
 * compare label unless it is the baseline. */
static void test_plan_deploy_label(void)
{
    char *text = scenario_text(3, 200, "");
    struct scenario sc;
    CU_ASSERT_EQUAL_FATAL(load(text, SCN_IGNORE_STRATEGIES, &sc), 0);
    free(text);
    int planned = 0;
    for (int k = 0; k < policy_count(); k++) {
        const struct policy_ops *ops = policy_at(k);
        const struct policy_hooks *h = ops->hooks;
        if (!h || !h->plan)
            continue;
        struct plan_ctx x = {.sc = &sc, .max_gpus = 8};
        h->plan(&x);
        CU_ASSERT(x.n > 0); /* three light tenants: every strategy has something to offer */
        planned++;
        int deployed = 0;
        for (int i = 0; i < x.n; i++) {
            const struct plan_cand *c = &x.c[i];
            CU_ASSERT_STRING_EQUAL(c->kind, ops->kind);
            if (c->pruned[0])
                continue;
            CU_ASSERT_PTR_NOT_NULL_FATAL(c->strategy);
            struct scenario s2;
            int rc = load_with(&sc, c->strategy, c->gpus, &s2);
            CU_ASSERT_EQUAL(rc, 0);
            if (rc) {
                fprintf(stderr, "\n  %s candidate \"%s\" rejected\n", ops->kind, c->label);
                scn_free(&s2);
                continue;
            }
            CU_ASSERT_PTR_EQUAL(s2.strategies[0].ops, ops);
            /* Every placement the candidate is simulated in parses too. */
            const cJSON *pl;
            cJSON_ArrayForEach(pl, c->placements)
            {
                struct scenario s3;
                CU_ASSERT_EQUAL(load_with(&sc, pl, c->gpus, &s3), 0);
                scn_free(&s3);
            }
            if (!policy_is_baseline(ops)) {
                CU_ASSERT_PTR_NOT_NULL_FATAL(h->label);
                const char *l = h->label(s2.strategies[0].cfg);
                CU_ASSERT(l && l[0]);
            }
            scn_free(&s2);
            if (h->deploy && !deployed) {
                /* The hook writes its tool's files (none for a strategy configured
                 * outside Kubernetes), says how to apply them, and what every tenant's
                 * pod requests. */
                char dir[600], err[SS_ERRLEN];
                snprintf(dir, sizeof dir, "%s/deploy-%s", tu_tmpdir(), ops->kind);
                mkdir(dir, 0777);
                struct dp_ctx d;
                dp_init(&d, dir, "gpu-operator", &sc, c, 0, err, sizeof err);
                CU_ASSERT_EQUAL(h->deploy(&d), 0);
                CU_ASSERT_EQUAL(files_in(dir), d.n_files);
                CU_ASSERT(d.readme_n > 0);
                for (int t = 0; t < sc.n_tenants; t++)
                    CU_ASSERT(d.n_limit[t] > 0);
                dp_free(&d);
                deployed = 1;
            }
        }
        CU_ASSERT(!h->deploy || deployed);
        free_cands(&x);
    }
    CU_ASSERT(planned >= 5);
    scn_free(&sc);
}

/* The rule of thumb plan reports for T tenants at p99 SLA sla_ms; no two policies
 * may claim the same rule (the planner would break the tie by registry order). */
static void check_rule(int T, double sla_ms, const char *kind)
{
    char *text = scenario_text(T, sla_ms,
                               ", \"plan\": {\"kinds\": [\"exclusive\"], \"max_simulations\": 1}");
    struct scenario sc;
    CU_ASSERT_EQUAL_FATAL(load(text, SCN_IGNORE_STRATEGIES, &sc), 0);
    free(text);
    int claimed[PC_RULE_OTHERWISE + 1] = {0};
    for (int k = 0; k < policy_count(); k++) {
        const struct policy_hooks *h = policy_at(k)->hooks;
        char rule[200];
        int r = h && h->rule_of_thumb ? h->rule_of_thumb(&sc, rule, sizeof rule) : -1;
        CU_ASSERT(r >= -1 && r <= PC_RULE_OTHERWISE);
        if (r >= 0)
            CU_ASSERT_EQUAL(claimed[r]++, 0);
    }
    struct plan_result pr;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(plan_run(&sc, 0, &pr, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(pr.rule_kind, kind);
    CU_ASSERT(pr.rule_text[0] != '\0');
    plan_result_free(&pr);
    scn_free(&sc);
}

static void test_rule_of_thumb(void)
{
    check_rule(2, 20, "mig");        /* tight SLA, more than one tenant */
    check_rule(1, 20, "timeslice");  /* one tenant: the tight-SLA rule does not apply */
    check_rule(6, 200, "vgpu");      /* more than 5 tenants */
    check_rule(2, 200, "timeslice"); /* 3 tenants or fewer */
    check_rule(4, 200, "mig");       /* otherwise */
}

void test_hooks_register(void)
{
    static const struct tu_test t[] = {
        {"policy_count/policy_at walk the registry", test_registry_walk},
        {"exactly one baseline policy, used for the alone run", test_one_baseline},
        {"plan candidates parse, deploy writes, labels exist", test_plan_deploy_label},
        {"rule of thumb assembled from the policies' claims", test_rule_of_thumb},
        {NULL, NULL},
    };
    tu_add_suite("hooks", t);
}
