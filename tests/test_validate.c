/*
 * validate (tools/validate.c, behind `sharesim validate`): the pass rule, determinism across
 * worker counts, the engine against the FIFO recursion, and the quick grid end to end (it is
 * the CI check that the simulator still agrees with the exact results, so `make test` runs
 * it). The command's usage errors are in test_cmd_validate.c.
 */
#include "core/engine.h"
#include "core/run.h"
#include "core/scenario.h"
#include "core/tenant.h"
#include "testutil.h"
#include "base/util.h"
#include "tools/validate.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_judge(void)
{
    CU_ASSERT_TRUE(val_judge(1.0, 1.02, 0.03));  /* inside the CI */
    CU_ASSERT_FALSE(val_judge(1.0, 1.02, 0.01)); /* outside the CI, 2 % off */
    CU_ASSERT_TRUE(val_judge(1.0, 1.009, 0.0));  /* outside a zero-width CI, under 1 % */
    CU_ASSERT_TRUE(val_judge(2.0, 1.99, NAN));   /* no CI (R = 1): the 1 % rule alone */
    CU_ASSERT_FALSE(val_judge(1.0, 1.011, NAN));
    CU_ASSERT_TRUE(val_judge(-4.0, -4.02, 0.0)); /* relative to |exact| */
    CU_ASSERT_FALSE(val_judge(1.0, NAN, 1.0));
    CU_ASSERT_FALSE(val_judge(1.0, INFINITY, INFINITY));
}

static int rows_equal(const struct val_row *a, const struct val_row *b)
{
    return strcmp(a->config, b->config) == 0 && strcmp(a->metric, b->metric) == 0 &&
           a->exact == b->exact && a->mean == b->mean &&
           (a->ci95 == b->ci95 || (isnan(a->ci95) && isnan(b->ci95))) && a->pass == b->pass &&
           a->requests == b->requests;
}

static void test_same_numbers_for_any_jobs(void)
{
    /* A scaled-down quick grid in this process and in 3 worker processes: the
     * numbers must agree bit for bit (results are filed by task, not by arrival). */
    struct val_opts o1 = {1, 1, 7, 0.02, 0}, o3 = {1, 3, 7, 0.02, 0};
    struct val_report a, b;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(val_run(&o1, &a, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(val_run(&o3, &b, err, sizeof err), 0);
    CU_ASSERT_EQUAL(a.n, b.n);
    CU_ASSERT(a.n >= 25);
    for (int i = 0; i < a.n && i < b.n; i++)
        CU_ASSERT(rows_equal(&a.rows[i], &b.rows[i]));
    CU_ASSERT_EQUAL(a.requests, b.requests);
    /* Every family is there, and the exact values are the analytic ones. */
    const char *fams[] = {"M/M/c", "M/G/1-PS", "timeslice s=0", "timeslice saturated"};
    for (int f = 0; f < 4; f++) {
        int seen = 0;
        for (int i = 0; i < a.n; i++)
            seen += strcmp(a.rows[i].family, fams[f]) == 0;
        CU_ASSERT(seen > 0);
    }
    CU_ASSERT_STRING_EQUAL(a.rows[0].config, "c=1 rho=0.50");
    CU_ASSERT_STRING_EQUAL(a.rows[0].metric, "mean wait");
    CU_ASSERT_DOUBLE_EQUAL(a.rows[0].exact, 1e-3, 1e-15); /* ρ/(μ − λ) = 0.5/500 */
    val_report_free(&a);
    val_report_free(&b);
}

/*
 * FIFO over c servers by the earliest-free-server recursion, fed with the engine's own
 * random streams (tenant.h: the same seed, tenant index and replication give the same
 * arrivals and work). Returns the mean wait of the measured requests.
 */
static double replay_mean_wait(const struct scenario *sc, int rep)
{
    struct tenant_rt t;
    memset(&t, 0, sizeof t);
    ten_init(&t, &sc->tenants[0], sc->path, sc->seed, 0, rep);
    double free_at[16] = {0}, next_t, next_w, sum = 0;
    long n = 0;
    ten_next(&t, 0.0, &next_t, &next_w);
    for (long i = 0; i < sc->stop_requests; i++) {
        double arrival = next_t, work = next_w;
        ten_next(&t, arrival, &next_t, &next_w);
        int b = 0;
        for (int k = 1; k < sc->gpus; k++)
            if (free_at[k] < free_at[b])
                b = k;
        double start = arrival > free_at[b] ? arrival : free_at[b];
        free_at[b] = start + work;
        if (i >= sc->warmup_requests) {
            sum += start - arrival;
            n++;
        }
    }
    ten_free(&t);
    return sum / (double)n;
}

static void test_engine_replays_fifo_recursion(void)
{
    /* The engine's exclusive FIFO must reproduce the recursion on identical random
     * numbers to rounding: what remains between the simulator and Erlang C in the
     * validation table is then sampling error of the random streams, not the engine. */
    for (int c = 1; c <= 8; c += 7) {
        /* M/M/c at rho = 0.95 on c exclusive GPUs. */
        char *s =
            tu_fixture_patch("validate/fifo-recursion.json",
                             "{\"gpus\": %d, \"tenants.0.arrival.rate_per_s\": %g}", c, 950.0 * c);
        struct scenario sc;
        tu_load_text(s, &sc);
        free(s);
        for (int rep = 0; rep < 2; rep++) {
            struct strategy_result r;
            CU_ASSERT_EQUAL_FATAL(run_one(&sc, &sc.strategies[0], rep, &r, NULL, 0), 0);
            double replay = replay_mean_wait(&sc, rep);
            CU_ASSERT(replay > 0);
            TU_CHECK_CLOSE_REL(r.t[TM_WAIT_MEAN], replay, 1e-9);
            strategy_result_free(&r);
        }
        scn_free(&sc);
    }
}

static void test_quick_cli_passes(void)
{
    if (tu_under_valgrind()) {
        /* 1e7 requests under memcheck take many minutes; the code paths are the ones the
         * scaled in-process grids above run under valgrind too. */
        fprintf(stderr, "(skipped under valgrind) ");
        return;
    }
    char args[1400], out[4096], errb[4096];
    char json[600], md[600];
    snprintf(json, sizeof json, "%s/validate.json", tu_tmpdir());
    snprintf(md, sizeof md, "%s/validate.md", tu_tmpdir());
    snprintf(args, sizeof args, "validate --quick --quiet --jobs 2 --json '%s' --markdown '%s'",
             json, md);
    int rc = tu_cli(args, out, sizeof out, errb, sizeof errb);
    if (rc != 0)
        fprintf(stderr, "\n  validate --quick: exit %d\n%s\n", rc, errb);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "rows pass (quick grid"));
    char *text = tu_slurp(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItem(doc, "passed")));
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(doc, "grid")->valuestring, "quick");
    const cJSON *rows = cJSON_GetObjectItem(doc, "rows"), *row;
    CU_ASSERT(cJSON_GetArraySize(rows) >= 25);
    cJSON_ArrayForEach(row, rows)
    {
        CU_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItem(row, "pass")));
        CU_ASSERT(cJSON_GetObjectItem(row, "exact")->valuedouble > 0);
    }
    cJSON_Delete(doc);
    char *m = tu_slurp(md);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "Generated by `sharesim validate --quick --markdown "));
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "| M/M/c | c=1 rho=0.50 | mean wait (ms) | 1 |"));
    free(m);
}

void test_validate_register(void)
{
    static const struct tu_test t[] = {
        {"pass rule: CI covers the exact value or error under 1%", test_judge},
        {"same numbers with 1 or 3 worker processes", test_same_numbers_for_any_jobs},
        {"engine FIFO equals the recursion on the same random numbers",
         test_engine_replays_fifo_recursion},
        {"validate --quick passes (JSON and Markdown)", test_quick_cli_passes},
        {NULL, NULL},
    };
    tu_add_suite("validate", t);
}
