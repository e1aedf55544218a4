/*
 * closed (core/closed.c and its arrivals in core/engine.c): the closed-loop arrival process.
 *  - M/M/1//N (the machine-repairman model): throughput and mean response time of N users
 *    with exponential think times on one exclusive GPU against the finite-source formula;
 *  - two users with deterministic work and think time, the schedule worked out by hand;
 *  - conservation with rejections (queue_limit) and retries, under every strategy;
 *  - an LLM tenant never has more than N requests in the system (a policy wrapper watches);
 *  - a serving front end of s per request (frontend_serial_ms): the k-th of N simultaneous
 *    sends reaches the engine at k s, FIFO behind earlier sends; one user's TTFT and latency
 *    grow by s exactly; N users behind a front end that is the bottleneck: one request per s,
 *    and each TTFT N s less the rest of its own service; open arrivals (a trace) through the
 *    same FIFO, by hand;
 *  - the loader's errors and limits.
 */
#include "core/closed.h"
#include "core/engine.h"
#include "core/llmstats.h"
#include "core/policy.h"
#include "core/run.h"
#include "core/scenario.h"
#include "core/stable.h"
#include "llm/enginetime.h"
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
    tu_expect_load_error(
        "{\"name\": \"x\", \"gpu\": \"H100-80GB\", \"gpus\": 1, \"tenants\": [{\"name\": "
        "\"c\", \"arrival\": {\"process\": \"closed\", \"users\": 2}, \"serving\": "
        "{\"engine\": \"llm\", \"model\": \"Llama-2-7B\", \"frontend_serial_ms\": -1}, "
        "\"tokens\": {\"input\": {\"dist\": \"deterministic\", \"tokens\": 8}, "
        "\"output\": {\"dist\": \"deterministic\", \"tokens\": 8}}}], \"strategies\": "
        "[{\"name\": \"e\", \"kind\": \"exclusive\"}]}",
        "tenants[0].serving.frontend_serial_ms");
    tu_expect_load_error(
        "{\"name\": \"x\", \"gpu\": \"H100-80GB\", \"gpus\": 1, \"tenants\": [{\"name\": "
        "\"c\", \"arrival\": {\"process\": \"closed\", \"users\": 2}, \"serving\": "
        "{\"engine\": \"llm\", \"model\": \"Llama-2-7B\", \"frontend_serial_ms\": 10001}, "
        "\"tokens\": {\"input\": {\"dist\": \"deterministic\", \"tokens\": 8}, "
        "\"output\": {\"dist\": \"deterministic\", \"tokens\": 8}}}], \"strategies\": "
        "[{\"name\": \"e\", \"kind\": \"exclusive\"}]}",
        "10000");
    tu_expect_load_error(
        "{\"name\": \"x\", \"gpu\": \"H100-80GB\", \"gpus\": 1, \"tenants\": [{\"name\": "
        "\"c\", \"arrival\": {\"process\": \"closed\", \"users\": 2}, \"serving\": "
        "{\"engine\": \"llm\", \"model\": \"Llama-2-7B\", \"step_model\": \"roofline\", "
        "\"frontend_serial_ms\": 2}, \"tokens\": {\"input\": {\"dist\": \"deterministic\", "
        "\"tokens\": 8}, \"output\": {\"dist\": \"deterministic\", \"tokens\": 8}}}], "
        "\"strategies\": [{\"name\": \"e\", \"kind\": \"exclusive\"}]}",
        "not used by \"step_model\": \"roofline\"");
    /* A rejected user with no think time would send again at the same instant forever. */
    tu_expect_load_error(ONE("{\"process\": \"closed\", \"users\": 3}", "\"queue_limit\": 1, "),
                         "queue_limit");
#undef ONE
}

/* ---- the serving front end (closed.h: a FIFO server of s per request) ---- */

/* The loop's arrival times by hand: 3 users at t = 0 behind s = 2 ms reach the engine at 2, 4
 * and 6 ms, each recorded as sent at 0; a send at 10 ms finds the front end free (12 ms); one
 * at 11 ms waits behind it (14 ms). Without a front end the times are the sends themselves. */
static void test_frontend_fifo_by_hand(void)
{
    struct arrival_cfg a = {.kind = ARR_CLOSED, .users = 3};
    struct cl_state *c = cl_new(&a, 1, 2e-3);
    double t = -1;
    CU_ASSERT_EQUAL(cl_next(c, &t), 1); /* the first, not yet arrived */
    CU_ASSERT_DOUBLE_EQUAL(t, 2e-3, 1e-15);
    CU_ASSERT_EQUAL(cl_sent(c), 0);
    CU_ASSERT_EQUAL(cl_next(c, &t), 1); /* the first arrived: the second */
    CU_ASSERT_DOUBLE_EQUAL(t, 4e-3, 1e-15);
    CU_ASSERT_EQUAL(cl_sent(c), 0);
    CU_ASSERT_EQUAL(cl_next(c, &t), 1);
    CU_ASSERT_DOUBLE_EQUAL(t, 6e-3, 1e-15);
    CU_ASSERT_EQUAL(cl_next(c, &t), CL_PAUSED); /* every user has its request in */
    CU_ASSERT_EQUAL(cl_end(c, 10e-3, &t), CL_PUSH);
    CU_ASSERT_DOUBLE_EQUAL(t, 12e-3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(cl_sent(c), 10e-3, 1e-15);
    CU_ASSERT_EQUAL(cl_end(c, 11e-3, &t), CL_NONE); /* sent after the pending one */
    CU_ASSERT_EQUAL(cl_next(c, &t), 1);             /* the 10 ms send arrived at 12 */
    CU_ASSERT_DOUBLE_EQUAL(t, 14e-3, 1e-15);        /* behind it, not at 11 + 2 */
    CU_ASSERT_DOUBLE_EQUAL(cl_sent(c), 11e-3, 1e-15);
    cl_free(c);

    c = cl_new(&a, 1, 0);
    CU_ASSERT_EQUAL(cl_next(c, &t), 1);
    CU_ASSERT_EQUAL(t, 0);
    CU_ASSERT_EQUAL(cl_next(c, &t), 1);
    CU_ASSERT_EQUAL(cl_next(c, &t), 1);
    CU_ASSERT_EQUAL(cl_next(c, &t), CL_PAUSED);
    CU_ASSERT_EQUAL(cl_end(c, 10e-3, &t), CL_PUSH);
    CU_ASSERT_EQUAL(t, 10e-3); /* bit for bit the send */
    CU_ASSERT_EQUAL(cl_sent(c), 10e-3);
    cl_free(c);
}

/* Exponential think times (sends out of order, retimes): the times at the engine are the
 * FIFO recursion d = max(a, d_prev) + s over the sends in the order they are due, and each
 * arrival records its own send. */
static void test_frontend_fifo_random(void)
{
    struct arrival_cfg a = {.kind = ARR_CLOSED, .users = 5, .think_s = 3e-3, .think_exp = 1};
    const double fe = 1e-3;
    struct cl_state *c = cl_new(&a, 42, fe);
    double t, now = 0, d_prev = 0;
    long busy = 0, arrivals = 0, bad = 0;
    int rc = cl_next(c, &t);
    double pending_t = t, ends[5];
    int n_ends = 0;
    for (int step = 0; step < 4000; step++) {
        /* The next event: the pending arrival, or the earliest end (each request takes 0.7 ms
         * from its arrival, whatever else is in). */
        int e_min = -1;
        for (int k = 0; k < n_ends; k++)
            if (e_min < 0 || ends[k] < ends[e_min])
                e_min = k;
        if (rc == 1 && (e_min < 0 || pending_t <= ends[e_min])) {
            now = pending_t;
            double sent = cl_sent(c);
            bad += !(now == fmax(sent, d_prev) + fe) || sent > now;
            d_prev = now;
            arrivals++;
            ends[n_ends++] = now + 0.7e-3;
            busy++;
            rc = cl_next(c, &t);
            pending_t = t;
        } else {
            SS_ASSERT(e_min >= 0);
            now = ends[e_min];
            ends[e_min] = ends[--n_ends];
            busy--;
            enum cl_action act = cl_end(c, now, &t);
            if (act == CL_PUSH) {
                CU_ASSERT_EQUAL(rc, CL_PAUSED);
                rc = 1;
            }
            if (act == CL_PUSH || act == CL_RETIME) {
                CU_ASSERT(act == CL_PUSH || t <= pending_t);
                pending_t = t;
            }
        }
        CU_ASSERT(busy <= 5);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(arrivals > 1000);
    cl_free(c);
}

/* An LLM tenant of `users` with no think time, fixed 300/8 tokens, the front end's fixed delay
 * (frontend_ms) 0 and `serial` its serial part. */
static void frontend_llm(int users, const char *serial, long requests, struct scenario *sc,
                         struct run_result *r)
{
    char text[1400];
    snprintf(text, sizeof text,
             "{\"name\": \"fe\", \"gpu\": \"H100-80GB\", \"gpus\": 1, \"seed\": 3, \"stop\": "
             "{\"requests\": %ld}, \"warmup\": {\"requests\": %d}, \"tenants\": [{\"name\": "
             "\"chat\", \"arrival\": {\"process\": \"closed\", \"users\": %d}, \"serving\": "
             "{\"engine\": \"llm\", \"model\": \"Llama-2-7B\", \"dtype\": \"fp16\", "
             "\"framework\": \"trtllm\", \"frontend_ms\": 0%s}, \"tokens\": {\"input\": {\"dist\": "
             "\"deterministic\", \"tokens\": 300}, \"output\": {\"dist\": \"deterministic\", "
             "\"tokens\": 8}}}], \"strategies\": [{\"name\": \"excl\", \"kind\": "
             "\"exclusive\"}]}",
             requests, 2 * users, users, serial);
    tu_run_text(text, sc, r);
}

/* One user: each request is alone in the engine, so a front end of 80 ms adds 80 ms to every
 * TTFT and latency and nothing to TPOT. */
static void test_frontend_one_user(void)
{
    struct scenario s0, s1;
    struct run_result r0, r1;
    frontend_llm(1, ", \"frontend_serial_ms\": 0", 40, &s0, &r0);
    frontend_llm(1, ", \"frontend_serial_ms\": 80", 40, &s1, &r1);
    const double *m0 = r0.s[0].llm, *m1 = r1.s[0].llm;
    CU_ASSERT_PTR_NOT_NULL_FATAL(m0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m1);
    TU_CHECK_CLOSE_REL(m1[LM_TTFT_MEAN], m0[LM_TTFT_MEAN] + 0.080, 1e-9);
    TU_CHECK_CLOSE_REL(r1.s[0].t[TM_LAT_MEAN], r0.s[0].t[TM_LAT_MEAN] + 0.080, 1e-9);
    TU_CHECK_CLOSE_REL(m1[LM_TPOT_MEAN], m0[LM_TPOT_MEAN], 1e-9);
    /* The engine alone is under 100 ms, the next test's front end. */
    CU_ASSERT(r0.s[0].t[TM_LAT_MEAN] < 0.100);
    run_result_free(&r0);
    run_result_free(&r1);
    scn_free(&s0);
    scn_free(&s1);
}

/* Four users behind a 100 ms front end, each request's engine time T below it (the run above): the
 * front end is the bottleneck and never idles after the first round. Request k reaches the engine
 * at k s, ends at k s + T, and its user's next reaches it at (k + 4) s: every request after the
 * first round takes 4 s from send to end, its TTFT 4 s less the rest of its service, (out - 1)
 * TPOT; throughput 1 / s. */
static void test_frontend_bottleneck(void)
{
    struct scenario sc;
    struct run_result r;
    frontend_llm(4, ", \"frontend_serial_ms\": 100", 60, &sc, &r);
    const double *t = r.s[0].t, *m = r.s[0].llm;
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    TU_CHECK_CLOSE_REL(t[TM_LAT_MEAN], 0.4, 1e-9);
    TU_CHECK_CLOSE_REL(m[LM_TTFT_MEAN], 0.4 - 7 * m[LM_TPOT_MEAN], 1e-9);
    TU_CHECK_CLOSE_REL(t[TM_THROUGHPUT], 10, 1e-6);
    CU_ASSERT_EQUAL(t[TM_ARRIVED], t[TM_COMPLETED] + t[TM_IN_FLIGHT]);
    run_result_free(&r);
    scn_free(&sc);
}

/* The engine table's optional frontend_serial_ms: absent is 0, present is read, and a value past
 * the limit names the table's file and key. */
static void test_frontend_table(void)
{
    static const char head[] =
        "{\"schema\": 1, \"engines\": [{\"name\": \"e\", \"version\": \"1\", \"cpu_step_ms\": "
        "{\"value\": 1, \"source\": \"x\", \"confidence\": \"low\"}, \"cpu_per_seq_ms\": "
        "{\"value\": 0, \"source\": \"x\", \"confidence\": \"low\"}, \"frontend_ms\": {\"value\": "
        "0, \"source\": \"x\", \"confidence\": \"low\"}, \"overlap_cpu\": {\"value\": 0, "
        "\"source\": \"x\", \"confidence\": \"low\"}";
    char text[1024], err[1024];
    const double serial[3] = {-1, 2.5, 10001};
    for (int k = 0; k < 3; k++) {
        if (serial[k] < 0)
            snprintf(text, sizeof text, "%s}]}", head);
        else
            snprintf(text, sizeof text,
                     "%s, \"frontend_serial_ms\": {\"value\": %g, \"source\": \"x\", "
                     "\"confidence\": \"low\"}}]}",
                     head, serial[k]);
        char *path = tu_write("engines-fe.json", text);
        cJSON *o = cJSON_Parse("{\"framework\": \"e\"}");
        struct jv j = {"s.json", err, sizeof err};
        struct etm_cfg c;
        int rc = etm_parse(&j, o, "tenants[0].serving", path, &c);
        cJSON_Delete(o);
        if (k < 2) {
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT_DOUBLE_EQUAL(c.frontend_serial_s, k == 0 ? 0 : 2.5e-3, 1e-15);
        } else {
            CU_ASSERT_EQUAL(rc, -1);
            TU_CHECK_CONTAINS(err, "engines[0].frontend_serial_ms");
            TU_CHECK_CONTAINS(err, "10000");
        }
    }
}

/* An LLM tenant replaying the trace at trace_path, fixed 300/8 tokens, frontend_ms 0 and a serial
 * front end of serial_ms (every arrival passes it, not only a closed loop's). */
static void frontend_open(const char *trace_path, double serial_ms, struct scenario *sc,
                          struct run_result *r)
{
    char text[1400];
    snprintf(text, sizeof text,
             "{\"name\": \"fe-open\", \"gpu\": \"H100-80GB\", \"gpus\": 1, \"seed\": 3, \"stop\": "
             "{\"requests\": 4}, \"tenants\": [{\"name\": \"chat\", \"arrival\": {\"process\": "
             "\"trace\", \"path\": \"%s\", \"format\": \"sharesim\"}, \"serving\": {\"engine\": "
             "\"llm\", \"model\": \"Llama-2-7B\", \"dtype\": \"fp16\", \"framework\": \"trtllm\", "
             "\"frontend_ms\": 0, \"frontend_serial_ms\": %.17g}, \"tokens\": {\"input\": "
             "{\"dist\": \"deterministic\", \"tokens\": 300}, \"output\": {\"dist\": "
             "\"deterministic\", \"tokens\": 8}}}], \"strategies\": [{\"name\": \"excl\", "
             "\"kind\": \"exclusive\"}]}",
             trace_path, serial_ms);
    tu_run_text(text, sc, r);
}

/* Open arrivals pass the serial front end too, as a FIFO, by hand: sends at 0, D, 2D (D < s) and
 * 1 s, s = 7.8125 ms, D = 3.90625 ms, reach the engine at s, 2s, 3s and 1 s + s (waits 0, s - D,
 * 2(s - D), 0); the engine then sees exactly what a trace of arrivals at those times with no
 * front end gives it, and each request's TTFT and latency are that run's plus d - a: the mean
 * over the four, (s + (2s - D) + (3s - 2D) + s) / 4 = (7s - 3D) / 4. */
static void test_frontend_open_fifo(void)
{
    const double s = 7.8125e-3, dl = 3.90625e-3;
    char *sent = tu_write("fe-open-sent.csv", "time_s\n0\n0.00390625\n0.0078125\n1\n");
    char sent_path[600];
    snprintf(sent_path, sizeof sent_path, "%s", sent);
    char *at = tu_write("fe-open-at.csv", "time_s\n0.0078125\n0.015625\n0.0234375\n1.0078125\n");
    struct scenario sa, sb;
    struct run_result ra, rb;
    frontend_open(sent_path, s * 1e3, &sa, &ra);
    frontend_open(at, 0, &sb, &rb);
    const double *ma = ra.s[0].llm, *mb = rb.s[0].llm;
    CU_ASSERT_PTR_NOT_NULL_FATAL(ma);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mb);
    CU_ASSERT_EQUAL(ra.s[0].t[TM_COMPLETED], 4);
    CU_ASSERT_EQUAL(rb.s[0].t[TM_COMPLETED], 4);
    double extra = (7 * s - 3 * dl) / 4;
    CU_ASSERT_DOUBLE_EQUAL(ma[LM_TTFT_MEAN], mb[LM_TTFT_MEAN] + extra, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ra.s[0].t[TM_LAT_MEAN], rb.s[0].t[TM_LAT_MEAN] + extra, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ma[LM_TPOT_MEAN], mb[LM_TPOT_MEAN], 1e-12);
    CU_ASSERT(extra > 0.01);
    run_result_free(&ra);
    run_result_free(&rb);
    scn_free(&sa);
    scn_free(&sb);
}

/* The window is the clients': with a 100 ms serial front end, sends at 0 and 1 s (warm-up of 0 s,
 * stop after 2) give a window of exactly 1 s, not the 1.1 s at which the last one reached the
 * engine; the first request, done by then, makes the throughput 1 / 1 s exactly. */
static void test_frontend_window_is_sends(void)
{
    char *trace = tu_write("fe-window.csv", "time_s\n0\n1\n");
    char text[1400];
    snprintf(text, sizeof text,
             "{\"name\": \"fe-window\", \"gpu\": \"H100-80GB\", \"gpus\": 1, \"seed\": 3, "
             "\"warmup\": {\"duration_s\": 0}, \"stop\": {\"requests\": 2}, \"tenants\": "
             "[{\"name\": \"chat\", \"arrival\": {\"process\": \"trace\", \"path\": \"%s\", "
             "\"format\": \"sharesim\"}, \"serving\": {\"engine\": \"llm\", \"model\": "
             "\"Llama-2-7B\", \"dtype\": \"fp16\", \"framework\": \"trtllm\", \"frontend_ms\": 0, "
             "\"frontend_serial_ms\": 100}, \"tokens\": {\"input\": {\"dist\": "
             "\"deterministic\", \"tokens\": 300}, \"output\": {\"dist\": \"deterministic\", "
             "\"tokens\": 8}}}], \"strategies\": [{\"name\": \"excl\", \"kind\": \"exclusive\"}]}",
             trace);
    struct scenario sc;
    struct run_result r;
    tu_run_text(text, &sc, &r);
    CU_ASSERT_EQUAL(r.s[0].t[TM_COMPLETED], 2);
    CU_ASSERT_EQUAL(r.s[0].t[TM_THROUGHPUT], 1.0);
    run_result_free(&r);
    scn_free(&sc);
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
        {"front end: N simultaneous sends, FIFO, by hand", test_frontend_fifo_by_hand},
        {"front end: the FIFO recursion under random think times", test_frontend_fifo_random},
        {"front end: one user's TTFT and latency grow by s", test_frontend_one_user},
        {"front end as the bottleneck: N s a request, 1 / s", test_frontend_bottleneck},
        {"front end: the engine table's optional term and its limit", test_frontend_table},
        {"front end: open arrivals pass the FIFO too, by hand", test_frontend_open_fifo},
        {"front end: the window ends with the last send, not its arrival",
         test_frontend_window_is_sends},
        {"load errors and limits", test_load_errors},
        {NULL, NULL},
    };
    tu_add_suite("closed", tests);
}
