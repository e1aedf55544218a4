/*
 * llmstats (core/llmstats.c) over replications (core/run.c): an LLM tenant's TTFT, TPOT and
 * ITL percentiles are those of all replications' samples together, as a plain tenant's
 * latency percentiles are (docs/llm.md#results) — not the last replication's, nor the mean of
 * each replication's percentile. First by hand: two replications whose samples are written
 * out, merged, give the nearest-rank percentile of the twenty; then a run of two replications
 * against its own replications merged outside run.c, with the Student interval of the two
 * per-replication percentiles.
 */
#include "core/engine.h"
#include "core/llmstats.h"
#include "core/run.h"
#include "core/scenario.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>

/* Replication A: TTFT 10, 20, …, 100 ms; replication B: 1.01, 1.02, …, 1.10 s. */
static void fill(struct lst_stats *l, double first_s, double step_s)
{
    lst_init(l);
    for (int k = 0; k < 10; k++) {
        double x = first_s + k * step_s;
        st_hist_add(&l->ttft, x);
        l->sum_ttft += x;
    }
}

static void test_merge_by_hand(void)
{
    struct lst_stats a, b;
    fill(&a, 0.010, 0.010);
    fill(&b, 1.010, 0.010);
    double ma[LM_N], mb[LM_N], pooled[LM_N];
    lst_percentiles(&a, ma);
    lst_percentiles(&b, mb);
    lst_merge(&a, &b);
    lst_percentiles(&a, pooled);
    CU_ASSERT_EQUAL(a.ttft.n, 20);
    TU_CHECK_CLOSE_REL(a.sum_ttft, 0.55 + 10.55, 1e-12);
    /* Each alone: p50 is its 5th sample (rank ⌈0.5 × 10⌉), p99 its largest. */
    TU_CHECK_CLOSE_REL(ma[LM_TTFT_P50], 0.050, 0.0039);
    TU_CHECK_CLOSE_REL(mb[LM_TTFT_P50], 1.050, 0.0039);
    /* Pooled, the twenty: p50 is the 10th (A's 100 ms, where the mean of the two p50s would
     * say 550 ms), p95 the 19th (B's 1.09 s), p99 the 20th — the exact maximum, 1.10 s. */
    TU_CHECK_CLOSE_REL(pooled[LM_TTFT_P50], 0.100, 0.0039);
    TU_CHECK_CLOSE_REL(pooled[LM_TTFT_P95], 1.090, 0.0039);
    CU_ASSERT_DOUBLE_EQUAL(pooled[LM_TTFT_P99], 1.100, 1e-15);
    /* No TPOT or ITL samples: their percentiles are unknown (NaN), not 0. */
    CU_ASSERT(isnan(pooled[LM_TPOT_P99]) && isnan(pooled[LM_ITL_P50]));
    lst_free(&a);
    lst_free(&b);
}

/* Replication rep of the scenario's first strategy, its LLM tenant's samples merged into l. */
static void merge_rep(const struct scenario *sc, int tenant, int rep, struct lst_stats *l)
{
    struct sim s;
    char err[256];
    eng_init(&s, sc, &sc->strategies[0], rep);
    CU_ASSERT_EQUAL_FATAL(eng_run(&s, err, sizeof err), 0);
    lst_merge(l, s.ten[tenant].llm);
    eng_free(&s);
}

static void test_run_pools_replications(void)
{
    struct scenario sc;
    struct run_result r;
    tu_run_fixture(&sc, &r, "llmunit/mixed.json", "{\"replications\": %d, \"stop.duration_s\": 10}",
                   2);
    const int chat = 1;
    struct lst_stats pool;
    lst_init(&pool);
    merge_rep(&sc, chat, 0, &pool);
    merge_rep(&sc, chat, 1, &pool);
    double want[LM_N];
    lst_percentiles(&pool, want);
    const double *m = r.s[0].llm + (size_t)chat * LM_N, *ci = r.s[0].llm_ci + (size_t)chat * LM_N;
    static const int pct[] = {LM_TTFT_P50, LM_TTFT_P95, LM_TTFT_P99, LM_TPOT_P50, LM_TPOT_P95,
                              LM_TPOT_P99, LM_ITL_P50,  LM_ITL_P95,  LM_ITL_P99};
    for (size_t k = 0; k < sizeof pct / sizeof *pct; k++)
        CU_ASSERT_DOUBLE_EQUAL(m[pct[k]], want[pct[k]], 0);
    /* The interval is the Student half-width of the two replications' own p99s:
     * t(0.975, 1) × |a − b| / 2, with t = 12.706. */
    struct strategy_result r0, r1;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(run_one(&sc, &sc.strategies[0], 0, &r0, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(run_one(&sc, &sc.strategies[0], 1, &r1, err, sizeof err), 0);
    double a = r0.llm[chat * LM_N + LM_TTFT_P99], b = r1.llm[chat * LM_N + LM_TTFT_P99];
    CU_ASSERT(a != b); /* the two replications differ, so pooling is tested */
    TU_CHECK_CLOSE_REL(ci[LM_TTFT_P99], 12.7062047 * fabs(a - b) / 2, 1e-6);
    /* The pooled p99 lies between the two replications' (it is a percentile of their union),
     * and the mean stays the mean of the replications' means. */
    CU_ASSERT(m[LM_TTFT_P99] >= fmin(a, b) && m[LM_TTFT_P99] <= fmax(a, b));
    TU_CHECK_CLOSE_REL(
        m[LM_TTFT_MEAN],
        (r0.llm[chat * LM_N + LM_TTFT_MEAN] + r1.llm[chat * LM_N + LM_TTFT_MEAN]) / 2, 1e-12);
    /* The tail counts are those of the pooled samples: n − ⌈p n⌉ beyond each nearest rank. */
    const double *tail = r.s[0].llm_tail + (size_t)chat * LM_TAIL_N;
    uint64_t n = pool.ttft.n;
    CU_ASSERT_DOUBLE_EQUAL(tail[2], (double)(n - (uint64_t)ceil(0.99 * (double)n)), 0);
    n = pool.itl.n;
    CU_ASSERT_DOUBLE_EQUAL(tail[6], (double)(n - (uint64_t)ceil(0.50 * (double)n)), 0);
    CU_ASSERT(tail[6] > tail[8]);
    strategy_result_free(&r0);
    strategy_result_free(&r1);
    lst_free(&pool);
    run_result_free(&r);
    scn_free(&sc);
}

void test_llmstats_register(void)
{
    static const struct tu_test t[] = {
        {"two replications by hand: the pooled nearest-rank percentile", test_merge_by_hand},
        {"run pools the replications' TTFT, TPOT and ITL samples, and counts their tails",
         test_run_pools_replications},
        {NULL, NULL},
    };
    tu_add_suite("llmstats", t);
}
