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

/* ---- the CSV read back -------------------------------------------------------------------- */

int cdf_csv_load(const char *path, int pooled, struct cdf_curves *c, char *err, size_t errlen)
{
    char *text;
    memset(c, 0, sizeof *c);
    if (ss_read_file(path, 256u << 20, &text, NULL, err, errlen))
        return -1;
    int cap = 0, line = 0, rc = 0;
    char *save = NULL;
    for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
        line++;
        if (line == 1) {
            if (strcmp(ln, "strategy,tenant,p,latency_ms") != 0) {
                rc = ss_errf(err, errlen,
                             "%s:1: expected the header strategy,tenant,p,latency_ms (a CSV of "
                             "`sharesim run --cdf`)",
                             path);
                break;
            }
            continue;
        }
        char *f[4] = {ln, NULL, NULL, NULL};
        for (int k = 1; k < 4; k++) {
            f[k] = f[k - 1] ? strchr(f[k - 1], ',') : NULL;
            if (f[k])
                *f[k]++ = '\0';
        }
        char *end;
        double p = f[2] ? strtod(f[2], &end) : NAN;
        if (!f[3] || !isfinite(p) || *end) {
            rc = ss_errf(err, errlen, "%s:%d: expected strategy,tenant,p,latency_ms", path, line);
            break;
        }
        if ((strcmp(f[1], "(all)") == 0) != pooled || !*f[3]) /* empty: no data at p */
            continue;
        struct cdf_curve *r = c->n ? &c->rows[c->n - 1] : NULL;
        if (!r || strcmp(r->strategy, f[0]) != 0 || strcmp(r->tenant, f[1]) != 0) {
            if (c->n == cap) {
                cap = cap ? 2 * cap : 16;
                c->rows = ss_xrealloc(c->rows, (size_t)cap * sizeof *c->rows);
            }
            r = &c->rows[c->n++];
            memset(r, 0, sizeof *r);
            snprintf(r->strategy, sizeof r->strategy, "%s", f[0]);
            snprintf(r->tenant, sizeof r->tenant, "%s", f[1]);
        }
        if (r->n < 128) {
            r->p[r->n] = p;
            r->ms[r->n] = strtod(f[3], NULL);
            r->n++;
        }
    }
    free(text);
    if (rc)
        cdf_csv_free(c);
    return rc;
}

const struct cdf_curve *cdf_csv_find(const struct cdf_curves *c, const char *strategy,
                                     const char *tenant)
{
    for (int k = 0; c && k < c->n; k++)
        if (strcmp(c->rows[k].strategy, strategy) == 0 && strcmp(c->rows[k].tenant, tenant) == 0)
            return &c->rows[k];
    return NULL;
}

void cdf_csv_free(struct cdf_curves *c)
{
    free(c->rows);
    memset(c, 0, sizeof *c);
}
