/*
 * tracestats — see tracestats.h. The histogram's fixed part is TRS_HIST_EXACT counters
 * (512 KiB); the log-linear part covers 2^16 .. 2^63 with 64 bins per octave (24 KiB).
 */
#include "io/tracestats.h"
#include "base/moments.h"
#include "base/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SUB_BITS 6
#define SUBS (1 << SUB_BITS)
#define LOG2_EXACT 16 /* TRS_HIST_EXACT == 1 << LOG2_EXACT */
#define OCTAVES (63 - LOG2_EXACT)

struct trs_hist {
    uint64_t exact[TRS_HIST_EXACT];
    uint64_t log[OCTAVES * SUBS];
    long long n, n_log;
};

struct trs_hist *trs_hist_new(void)
{
    _Static_assert(TRS_HIST_EXACT == 1 << LOG2_EXACT, "exact range is a power of two");
    return ss_xcalloc(1, sizeof(struct trs_hist));
}

void trs_hist_free(struct trs_hist *h)
{
    free(h);
}

static int octave_of(long long v)
{
    int e = 0;
    for (unsigned long long u = (unsigned long long)v; u > 1; u >>= 1)
        e++;
    return e;
}

void trs_hist_add(struct trs_hist *h, long long v)
{
    SS_ASSERT(v >= 0);
    h->n++;
    if (v < TRS_HIST_EXACT) {
        h->exact[v]++;
        return;
    }
    int e = octave_of(v);
    int sub = (int)((v >> (e - SUB_BITS)) & (SUBS - 1));
    h->log[(e - LOG2_EXACT) * SUBS + sub]++;
    h->n_log++;
}

long long trs_hist_count(const struct trs_hist *h)
{
    return h->n;
}

int trs_hist_exact(const struct trs_hist *h)
{
    return h->n_log == 0;
}

/* The k-th smallest value (0-based), or a log bin's midpoint. */
static double order_stat(const struct trs_hist *h, long long k)
{
    long long seen = 0;
    for (long long v = 0; v < TRS_HIST_EXACT; v++) {
        seen += (long long)h->exact[v];
        if (seen > k)
            return (double)v;
    }
    for (int i = 0; i < OCTAVES * SUBS; i++) {
        seen += (long long)h->log[i];
        if (seen > k) {
            int e = i / SUBS + LOG2_EXACT, sub = i % SUBS;
            double lower = ldexp((double)(SUBS + sub), e - SUB_BITS);
            double width = ldexp(1.0, e - SUB_BITS);
            return lower + (width - 1) / 2;
        }
    }
    SS_FATAL("order statistic %lld of a histogram of %lld values", k, h->n);
}

double trs_hist_quantile(const struct trs_hist *h, double p)
{
    SS_ASSERT(p >= 0 && p <= 1);
    if (h->n == 0)
        return NAN;
    double rank = (double)(h->n - 1) * p;
    long long lo = (long long)floor(rank);
    long long hi = lo + 1 < h->n ? lo + 1 : lo;
    double a = order_stat(h, lo), b = order_stat(h, hi);
    return a + (rank - (double)lo) * (b - a);
}

struct token_acc {
    struct trs_hist *hist;
    struct ss_moments mom;
};

static void counts_finish(const struct token_acc *a, struct trs_counts *c)
{
    memset(c, 0, sizeof *c);
    c->n = a->mom.n;
    c->min = c->max = -1;
    c->mean = c->p50 = c->p90 = c->p99 = NAN;
    c->exact = trs_hist_exact(a->hist);
    if (c->n == 0)
        return;
    c->mean = ss_mom_mean(&a->mom);
    c->min = (long long)a->mom.min;
    c->max = (long long)a->mom.max;
    c->p50 = trs_hist_quantile(a->hist, 0.50);
    c->p90 = trs_hist_quantile(a->hist, 0.90);
    c->p99 = trs_hist_quantile(a->hist, 0.99);
}

static void add_pod(struct trs_summary *s, const struct tr_pod *p, struct ss_moments *life,
                    struct ss_moments *gpus)
{
    s->gpu_pods += p->num_gpu > 0;
    s->shared_gpu_pods += p->num_gpu == 1 && p->gpu_milli < 1000;
    ss_mom_add(life, (double)(p->deletion_time - p->creation_time));
    ss_mom_add(gpus, p->num_gpu * (p->gpu_milli / 1000.0));
}

int trs_summarize(const char *path, enum tr_format fmt, const struct tr_opts *opts,
                  struct trs_summary *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    struct tr_reader *r =
        tr_open_once(path, fmt, opts, err, errlen); /* read once: a pipe will do */
    if (!r)
        return -1;
    s->fmt = fmt;
    s->columns = tr_columns(r);
    struct token_acc in = {trs_hist_new(), {0}}, out = {trs_hist_new(), {0}};
    struct ss_moments gaps = {0}, work = {0}, life = {0}, gpus = {0};
    struct tr_record rec;
    int rc;
    double prev = 0;
    while ((rc = tr_next(r, &rec, err, errlen)) == 1) {
        if (s->count == 0)
            s->first_s = rec.time_s;
        else
            ss_mom_add(&gaps, rec.time_s - prev);
        prev = rec.time_s;
        s->count++;
        if (rec.input_tokens >= 0) {
            trs_hist_add(in.hist, rec.input_tokens);
            ss_mom_add(&in.mom, (double)rec.input_tokens);
        }
        if (rec.output_tokens >= 0) {
            trs_hist_add(out.hist, rec.output_tokens);
            ss_mom_add(&out.mom, (double)rec.output_tokens);
        }
        if (!isnan(rec.work_ms))
            ss_mom_add(&work, rec.work_ms);
        if (fmt == TR_OPENB)
            add_pod(s, &rec.pod, &life, &gpus);
    }
    tr_close(r);
    if (rc == 0) {
        s->last_s = prev;
        s->duration_s = s->last_s - s->first_s;
        s->rate_per_s = s->duration_s > 0 ? (double)(s->count - 1) / s->duration_s : NAN;
        s->ia_mean_s = ss_mom_mean(&gaps);
        s->ia_cv = gaps.n ? ss_mom_cv(&gaps) : NAN;
        s->ia_max_s = gaps.n ? gaps.max : NAN;
        counts_finish(&in, &s->input_tokens);
        counts_finish(&out, &s->output_tokens);
        s->work_n = work.n;
        s->work_mean_ms = ss_mom_mean(&work);
        s->work_cv = work.n ? ss_mom_cv(&work) : NAN;
        s->work_min_ms = work.n ? work.min : NAN;
        s->work_max_ms = work.n ? work.max : NAN;
        s->mean_lifetime_s = ss_mom_mean(&life);
        s->mean_gpus = ss_mom_mean(&gpus);
    }
    trs_hist_free(in.hist);
    trs_hist_free(out.hist);
    return rc < 0 ? -1 : 0;
}
