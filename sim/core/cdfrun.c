/*
 * cdfrun — see cdfrun.h. Invariants: a pooled histogram holds exactly the samples of
 * its tenants' histograms (counts summed, min/max the extremes), and the grid
 * of probabilities is built from integers (k / 10000), so every p is the
 * correctly rounded double of its decimal and 0.99 here is the 0.99 of run.c.
 */
#include "core/cdfrun.h"
#include "core/engine.h"
#include "core/policy.h"
#include "core/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The grid in units of 1e-4. */
static int grid_units(int k)
{
    if (k == 0)
        return 10;
    if (k == 1)
        return 50;
    k -= 2;
    if (k < 99)
        return 100 * (k + 1); /* 0.01 … 0.99 */
    k -= 99;
    if (k < 9)
        return 9900 + 10 * (k + 1); /* 0.991 … 0.999 */
    k -= 9;
    if (k < 9)
        return 9990 + (k + 1); /* 0.9991 … 0.9999 */
    return 10000;
}

int cdf_n_probs(void)
{
    return 2 + 99 + 9 + 9 + 1;
}

double cdf_prob(int k)
{
    SS_ASSERT(k >= 0 && k < cdf_n_probs());
    return grid_units(k) / 10000.0;
}

double cdf_quantile(const struct cdf_result *r, int strategy, int row, int k)
{
    size_t np = (size_t)cdf_n_probs();
    return r->q_s[((size_t)strategy * (size_t)r->n_rows + (size_t)row) * np + (size_t)k];
}

/* Runs one strategy's replications into hists[0 .. n_tenants] (the last pooled): 0 or -1. */
static int collect_strategy(const struct scenario *sc, const struct strategy_cfg *st, int R,
                            struct st_hist *hists, char *err, size_t errlen)
{
    for (int rep = 0; rep < R; rep++) {
        struct sim s;
        eng_init(&s, sc, st, rep);
        if (eng_run(&s, err, errlen)) {
            eng_free(&s);
            return -1;
        }
        for (int i = 0; i < sc->n_tenants; i++) {
            st_hist_merge(&hists[i], &s.ten[i].st.lat);
            st_hist_merge(&hists[sc->n_tenants], &s.ten[i].st.lat);
        }
        eng_free(&s);
    }
    return 0;
}

int cdf_collect(const struct scenario *sc_in, long seed, int replications, struct cdf_result *out,
                char *err, size_t errlen)
{
    struct scenario sc = *sc_in;
    if (seed >= 0)
        sc.seed = (uint64_t)seed;
    int R = replications > 0 ? replications : sc.replications;
    int rows = sc.n_tenants + 1, np = cdf_n_probs(), rc = 0;
    memset(out, 0, sizeof *out);
    out->n_strategies = sc.n_strategies;
    out->n_rows = rows;
    out->n = ss_xcalloc((size_t)sc.n_strategies * (size_t)rows, sizeof *out->n);
    out->q_s = ss_xcalloc((size_t)sc.n_strategies * (size_t)rows * (size_t)np, sizeof *out->q_s);
    struct st_hist *h = ss_xcalloc((size_t)rows, sizeof *h);
    for (int i = 0; i < rows; i++)
        st_hist_init(&h[i]);
    for (int k = 0; k < sc.n_strategies && rc == 0; k++) {
        for (int i = 0; i < rows; i++)
            st_hist_reset(&h[i]);
        rc = collect_strategy(&sc, &sc.strategies[k], R, h, err, errlen);
        for (int i = 0; i < rows && rc == 0; i++) {
            size_t at = (size_t)k * (size_t)rows + (size_t)i;
            out->n[at] = h[i].n;
            for (int p = 0; p < np; p++)
                out->q_s[at * (size_t)np + (size_t)p] = st_hist_quantile(&h[i], cdf_prob(p));
        }
    }
    for (int i = 0; i < rows; i++)
        st_hist_free(&h[i]);
    free(h);
    if (rc)
        cdf_free(out);
    return rc;
}

void cdf_free(struct cdf_result *r)
{
    free(r->n);
    free(r->q_s);
    memset(r, 0, sizeof *r);
}
