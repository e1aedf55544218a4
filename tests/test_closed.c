/*
 * closed (core/closed.c and its arrivals in core/engine.c): the closed-loop arrival process.
 *  - M/M/1//N (the machine-repairman model): throughput and mean response time of N users
 *    with exponential think times on one exclusive GPU against the finite-source formula;
 *  - two users with deterministic work and think time, the schedule worked out by hand;
 *  - conservation with rejections (queue_limit) and retries, under every strategy;
 *  - an LLM tenant never has more than N requests in the system (a policy wrapper watches);
 *  - the loader's errors and limits.
 */
#include "core/closed.h"
#include "core/engine.h"
#include "core/policy.h"
#include "core/run.h"
#include "core/scenario.h"
#include "core/stable.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The finite-source M/M/1//N: p0 = 1 / sum_k N!/(N-k)! (S/Z)^k, X = (1 - p0) / S. */
static double repairman_x(int n, double s, double z)
{
    double term = 1, sum = 1;
    for (int k = 1; k <= n; k++) {
        term *= (double)(n - k + 1) * s / z;
        sum += term;
    }
    return (1 - 1 / sum) / s;
}

static void test_machine_repairman(void)
{
    /* N = 5, S = 1 ms, Z = 4 ms: X = 800.933 req/s, R = N/X - Z = 2.2427 ms. 10 replications
     * of 200 s (1.6 million requests); the tolerance is 3 half-widths of the 95 % interval
     * (about 4.6 standard errors), and the interval at most 2 % wide (a check that it is tight). */
    int reps = tu_sanitized() ? 6 : 10;
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\": \"mr\", \"gpu\": \"A100-80GB\", \"gpus\": 1, \"seed\": 7, "
             "\"replications\": %d, \"stop\": {\"duration_s\": %d}, \"warmup\": "
             "{\"duration_s\": 1}, \"tenants\": [{\"name\": \"t\", \"arrival\": {\"process\": "
             "\"closed\", \"users\": 5, \"think_ms\": 4}, \"work\": {\"dist\": \"exponential\", "
             "\"mean_ms\": 1}}], \"strategies\": [{\"name\": \"excl\", \"kind\": "
             "\"exclusive\"}]}",
             reps, tu_sanitized() ? 50 : 200);
    struct scenario sc;
    struct run_result r;
    tu_run_text(text, &sc, &r);
    double x = repairman_x(5, 1e-3, 4e-3), resp = 5 / x - 4e-3;
    const double *t = r.s[0].t, *ci = r.s[0].t_ci;
    CU_ASSERT(ci[TM_THROUGHPUT] > 0 && ci[TM_THROUGHPUT] < 0.02 * x);
    CU_ASSERT(fabs(t[TM_THROUGHPUT] - x) <= 3 * ci[TM_THROUGHPUT]);
    CU_ASSERT(ci[TM_LAT_MEAN] > 0 && ci[TM_LAT_MEAN] < 0.02 * resp);
    CU_ASSERT(fabs(t[TM_LAT_MEAN] - resp) <= 3 * ci[TM_LAT_MEAN]);
    /* The utilisation is 1 - p0 = X S. */
    TU_CHECK_CLOSE_REL(r.s[0].m[SM_UTIL], x * 1e-3, 0.01);
    CU_ASSERT_EQUAL(stab_state(&r.s[0], 0), 1);
    run_result_free(&r);
    scn_free(&sc);
}

/*
 * Two users, 3 ms of work, 2 ms of think time, one GPU. Both send at 0: A runs [0, 3], B [3, 6].
 * A sends again at 5 and waits to 6, runs [6, 9]; B sends at 8, runs [9, 12]; and so on: after
 * the first two every request waits 1 ms and takes 4. Ten arrivals (0, 0, 5, 8, ..., 26 ms):
 * latencies 3, 6 and eight of 4 (mean 4.1 ms), waits 0, 3 and eight of 1 (mean 1.1 ms). The
 * window ends at the tenth arrival (26 ms); the GPU is busy all of it; completions 3, 6, ...,
 * 24 ms fall in it: 8 / 0.026 s.
 */
static void test_two_users_by_hand(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_text("{\"name\": \"two\", \"gpu\": \"A100-80GB\", \"gpus\": 1, \"seed\": 1, \"stop\": "
                "{\"requests\": 10}, \"tenants\": [{\"name\": \"t\", \"arrival\": {\"process\": "
                "\"closed\", \"users\": 2, \"think_ms\": 2, \"think\": \"deterministic\"}, "
                "\"work\": {\"dist\": \"deterministic\", \"ms\": 3}}], \"strategies\": "
                "[{\"name\": \"excl\", \"kind\": \"exclusive\"}]}",
                &sc, &r);
    const double *t = r.s[0].t;
    CU_ASSERT_EQUAL(t[TM_ARRIVED], 10);
    CU_ASSERT_EQUAL(t[TM_COMPLETED], 10);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_LAT_MEAN], 4.1e-3, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_WAIT_MEAN], 1.1e-3, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_THROUGHPUT], 8 / 0.026, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.s[0].m[SM_UTIL], 1, 1e-9);
    run_result_free(&r);
    scn_free(&sc);
}

/* No think time: a user's next request arrives as its last completes, so the GPU never idles
 * and each of the N users' requests waits for the N - 1 others: latency N S exactly after the
 * first round (deterministic work 2 ms, 3 users: 2, 4, 6 then 6 ms each). */
static void test_no_think_time(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_text("{\"name\": \"z\", \"gpu\": \"A100-80GB\", \"gpus\": 1, \"seed\": 1, \"stop\": "
                "{\"requests\": 12}, \"tenants\": [{\"name\": \"t\", \"arrival\": {\"process\": "
                "\"closed\", \"users\": 3}, \"work\": {\"dist\": \"deterministic\", \"ms\": 2}}], "
                "\"strategies\": [{\"name\": \"excl\", \"kind\": \"exclusive\"}]}",
                &sc, &r);
    const double *t = r.s[0].t;
    CU_ASSERT_EQUAL(t[TM_COMPLETED], 12);
    CU_ASSERT_DOUBLE_EQUAL(t[TM_LAT_MEAN], (2 + 4 + 6 + 9 * 6) * 1e-3 / 12, 1e-9);
    run_result_free(&r);
    scn_free(&sc);
}

/* Every strategy kind, with a queue_limit that rejects: each rejected user thinks and sends
 * again; what arrived is completed, rejected or failed (drained), and the loop went on
 * after rejections (more arrivals than users, rejections > 0 where the queue is short). */
static void test_conservation_every_strategy(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_text(
        "{\"name\": \"c\", \"gpu\": \"A100-80GB\", \"gpus\": 2, \"seed\": 5, \"stop\": "
        "{\"requests\": 20000}, \"tenants\": [{\"name\": \"a\", \"queue_limit\": 1, "
        "\"arrival\": {\"process\": \"closed\", \"users\": 6, \"think_ms\": 0.5}, \"work\": "
        "{\"dist\": \"exponential\", \"mean_ms\": 1}, \"fault_rate_per_h\": 3600}, {\"name\": "
        "\"b\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 100}, \"work\": "
        "{\"dist\": \"exponential\", \"mean_ms\": 1}}], \"strategies\": [{\"name\": \"excl\", "
        "\"kind\": \"exclusive\"}, {\"name\": \"ts\", \"kind\": \"timeslice\"}, {\"name\": "
        "\"mps\", \"kind\": \"mps\"}, {\"name\": \"mig\", \"kind\": \"mig\", \"layout\": "
        "[{\"profile\": \"3g.40gb\", \"tenants\": [\"a\"]}, {\"profile\": \"3g.40gb\", "
        "\"tenants\": [\"b\"]}]}, {\"name\": \"vgpu\", \"kind\": \"vgpu\", \"vgpus\": "
        "[{\"fb_gb\": 20, \"tenants\": [\"a\"]}, {\"fb_gb\": 20, \"tenants\": [\"b\"]}]}, "
        "{\"name\": \"frac\", \"kind\": "
        "\"fractional\", \"cores\": {\"a\": 50, \"b\": 50}}]}",
        &sc, &r);
    CU_ASSERT_EQUAL(r.n, 6);
    for (int k = 0; k < r.n; k++) {
        const double *t = r.s[k].t; /* tenant a */
        CU_ASSERT_EQUAL(t[TM_ARRIVED], t[TM_COMPLETED] + t[TM_REJECTED] + t[TM_FAILED]);
        CU_ASSERT_EQUAL(t[TM_IN_FLIGHT], 0);
        CU_ASSERT(t[TM_ARRIVED] > 1000);
        CU_ASSERT(t[TM_REJECTED] > 0);
        if (t[TM_ARRIVED] != t[TM_COMPLETED] + t[TM_REJECTED] + t[TM_FAILED])
            printf("\n  strategy %s: arrived %g completed %g rejected %g failed %g\n", r.s[k].name,
                   t[TM_ARRIVED], t[TM_COMPLETED], t[TM_REJECTED], t[TM_FAILED]);
    }
    run_result_free(&r);
    scn_free(&sc);
}

/* ---- an LLM tenant's requests in the system, watched by a wrapper policy ---- */

static const struct policy_ops *watched;
static long watch_users, watch_max, watch_over;

static void watch(const struct sim *s)
{
    for (int i = 0; i < s->n_ten; i++) {
        if (s->ten[i].cfg->arrival.kind != ARR_CLOSED)
            continue;
        if (s->ten[i].in_system > watch_max)
            watch_max = s->ten[i].in_system;
        watch_over += s->ten[i].in_system > watch_users;
    }
}

static void watch_arrive(struct sim *s, void *st, int tenant)
{
    watch(s);
    watched->arrive(s, st, tenant);
    watch(s);
}

static void watch_event(struct sim *s, void *st, const struct event *ev)
{
    watched->on_event(s, st, ev);
    watch(s);
}

static void test_llm_at_most_n(void)
{
    struct scenario sc;
    tu_load_text(
        "{\"name\": \"llm\", \"gpu\": \"A100-80GB\", \"gpus\": 2, \"seed\": 2, \"stop\": "
        "{\"duration_s\": 20}, \"tenants\": [{\"name\": \"chat\", \"arrival\": {\"process\": "
        "\"closed\", \"users\": 8, \"think_ms\": 50}, \"serving\": {\"engine\": \"llm\", "
        "\"model\": \"Llama-2-7B\", \"dtype\": \"fp16\"}, \"tokens\": {\"input\": {\"dist\": "
        "\"uniform\", \"min\": 50, \"max\": 800}, \"output\": {\"dist\": \"exponential\", "
        "\"mean\": 120}}}, {\"name\": \"plain\", \"arrival\": {\"process\": \"poisson\", "
        "\"rate_per_s\": 50}, \"work\": {\"dist\": \"exponential\", \"mean_ms\": 2}}], "
        "\"strategies\": [{\"name\": \"excl\", \"kind\": \"exclusive\"}, {\"name\": \"ts\", "
        "\"kind\": \"timeslice\"}, {\"name\": \"mps\", \"kind\": \"mps\"}]}",
        &sc);
    watch_users = 8;
    for (int k = 0; k < sc.n_strategies; k++) {
        struct policy_ops ops = *sc.strategies[k].ops;
        watched = sc.strategies[k].ops;
        ops.arrive = watch_arrive;
        ops.on_event = watch_event;
        struct strategy_cfg strat = sc.strategies[k];
        strat.ops = &ops;
        struct sim s;
        char err[512];
        watch_max = watch_over = 0;
        eng_init(&s, &sc, &strat, 0);
        CU_ASSERT_EQUAL(eng_run(&s, err, sizeof err), 0);
        CU_ASSERT_EQUAL(watch_over, 0);
        CU_ASSERT_EQUAL(watch_max, 8); /* all 8 are in at t = 0 */
        CU_ASSERT(s.ten[0].st.completed > 100);
        CU_ASSERT(s.ten[0].st.arrived <=
                  s.ten[0].st.completed + s.ten[0].st.rejected + s.ten[0].st.failed + 8);
        eng_free(&s);
    }
    scn_free(&sc);
}

/* The k-th request's work is the k-th draw of the tenant's stream whatever the service
 * (closed.h): a whole GPU and a 3g MIG instance (slower: other arrival times, other latencies)
 * see the same 5,000 works, so the same mean work to the last digit. */
static void test_common_works(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_text("{\"name\": \"crn\", \"gpu\": \"A100-80GB\", \"gpus\": 1, \"seed\": 9, "
                "\"stop\": {\"requests\": 5000}, \"tenants\": [{\"name\": \"a\", \"arrival\": "
                "{\"process\": \"closed\", \"users\": 4, \"think_ms\": 2}, \"work\": {\"dist\": "
                "\"exponential\", \"mean_ms\": 1}}], \"strategies\": [{\"name\": \"excl\", "
                "\"kind\": \"exclusive\"}, {\"name\": \"mig\", \"kind\": \"mig\", \"layout\": "
                "[{\"profile\": \"3g.40gb\", \"tenants\": [\"a\"]}]}]}",
                &sc, &r);
    const double *a = r.s[0].t, *b = r.s[1].t;
    CU_ASSERT_EQUAL(a[TM_COMPLETED], 5000);
    CU_ASSERT_EQUAL(b[TM_COMPLETED], 5000);
    CU_ASSERT(b[TM_LAT_MEAN] > 1.5 * a[TM_LAT_MEAN]);
    CU_ASSERT_DOUBLE_EQUAL(a[TM_WORK_MEAN], b[TM_WORK_MEAN], 1e-15);
    run_result_free(&r);
    scn_free(&sc);
}

static void test_load_errors(void)
{
#define ONE(arr, extra)                                                                            \
    "{\"name\": \"e\", \"gpu\": \"A100-80GB\", \"gpus\": 1, \"stop\": {\"requests\": 10}, "        \
    "\"tenants\": [{\"name\": \"t\", " extra "\"arrival\": " arr                                   \
    ", \"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}], \"strategies\": [{\"name\": "      \
    "\"x\", \"kind\": \"exclusive\"}]}"
    tu_expect_load_error(ONE("{\"process\": \"closed\"}", ""), "tenants[0].arrival.users: missing");
    tu_expect_load_error(ONE("{\"process\": \"closed\", \"users\": 0}", ""),
                         "tenants[0].arrival.users");
    tu_expect_load_error(ONE("{\"process\": \"closed\", \"users\": 1000001}", ""), "[1, 1e+06]");
    tu_expect_load_error(ONE("{\"process\": \"closed\", \"users\": 2, \"think_ms\": -1}", ""),
                         "tenants[0].arrival.think_ms");
    tu_expect_load_error(ONE("{\"process\": \"closed\", \"users\": 2, \"think\": \"gamma\"}", ""),
                         "tenants[0].arrival.think");
    tu_expect_load_error(ONE("{\"process\": \"closed\", \"users\": 2, \"rate_per_s\": 3}", ""),
                         "rate_per_s");
    /* A rejected user with no think time would send again at the same instant forever. */
    tu_expect_load_error(ONE("{\"process\": \"closed\", \"users\": 3}", "\"queue_limit\": 1, "),
                         "queue_limit");
#undef ONE
}

void test_closed_register(void)
{
    static const struct tu_test tests[] = {
        {"M/M/1//N: the machine-repairman throughput and response time", test_machine_repairman},
        {"two users, deterministic work and think, by hand", test_two_users_by_hand},
        {"no think time: N S per request after the first round", test_no_think_time},
        {"conservation with rejections under every strategy", test_conservation_every_strategy},
        {"an LLM tenant of N users never has more than N in the system", test_llm_at_most_n},
        {"the same works in every strategy", test_common_works},
        {"load errors and limits", test_load_errors},
        {NULL, NULL},
    };
    tu_add_suite("closed", tests);
}
