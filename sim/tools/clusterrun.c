/*
 * clusterrun — the experiments of a cluster scenario in the worker pool, and the outputs
 * (clusterrun.h). A worker runs one experiment and sends back its JSON object (numbers
 * already rounded by jv_out_num); the parent files it under its index and writes every
 * output from those objects only. So the outputs depend on nothing but the objects: not on
 * --jobs, on the MPI ranks, or on whether the objects came from the pool or from the
 * partial files of batch-array shards.
 *
 * Under MPI every rank loads the scenario and calls clr_run; the other ranks run the
 * experiments rank 0 sends and return without writing. An experiment's bytes start with
 * the hash of the rank's inputs (the scenario, node and pod files) so that rank 0 can
 * refuse a result computed from another copy of them, as sweep does with its points.
 */
#include "tools/clusterrun.h"
#include "base/jsonv.h"
#include "base/util.h"
#include "cluster/cl_report.h"
#include "report/html.h"
#include "tools/partial.h"
#include "tools/pool.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ctx {
    const struct cl_scenario *s;
    const struct clr_opts *o;
    uint64_t hash;         /* of this process's inputs (input_hash) */
    char **res;            /* [n_items] JSON text */
    struct part_out *part; /* a shard's partial file, or NULL */
};

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One experiment's progress, for a line per tenth once it has run a while. */
struct exp_progress {
    const struct cl_scenario *s;
    int pi, si;
    double t0;
    int bar;
};

static void exp_tick(void *vctx, long done, long total)
{
    const struct exp_progress *p = vctx;
    double dt = wall_s() - p->t0;
    if (dt < CLR_PROGRESS_AFTER_S)
        return;
    fprintf(stderr, "%scluster: experiment %s seed %lld: %ld %% (%ld of %ld pod events), %.0f s\n",
            p->bar ? "\r" : "", p->s->policy[p->pi]->name, p->s->seed[p->si],
            (long)(100.0 * (double)done / (double)total), done, total, dt);
}

static int work(void *vctx, long idx, struct pool_buf *out, char *err, size_t errlen)
{
    struct ctx *x = vctx;
    const struct cl_scenario *s = x->s;
    int pi = (int)(idx / s->n_seeds), si = (int)(idx % s->n_seeds);
    struct cl_run_cfg cfg;
    cl_scenario_cfg(s, pi, si, &cfg);
    struct exp_progress prog = {s, pi, si, 0, x->o->progress == CLR_PROGRESS_BAR};
    if (x->o->progress) {
        prog.t0 = wall_s();
        cfg.progress = exp_tick;
        cfg.progress_ctx = &prog;
    }
    struct cl_result r;
    if (cl_run(&s->cluster, &s->work, &s->typical, &cfg, &r, err, errlen))
        return -1;
    cJSON *o = cl_report_json(&r, cfg.policy, cfg.seed, s->mode, s->cluster.total_gpus, s->tune,
                              s->sample_s, s->frag_threshold);
    cJSON_AddNumberToObject(o, "mem_bytes", (double)r.mem_bytes);
    cl_result_free(&r);
    char *txt = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    pool_buf_add(out, &x->hash, sizeof x->hash);
    pool_buf_add(out, txt, strlen(txt));
    free(txt);
    return 0;
}

static void describe(void *vctx, long idx, char *buf, size_t n);

/* An experiment's JSON text, filed under its index (from the pool or a partial file). */
static void keep(struct ctx *x, long idx, const char *json, size_t len)
{
    x->res[idx] = ss_xmalloc(len + 1);
    memcpy(x->res[idx], json, len);
    x->res[idx][len] = 0;
}

static void deliver(void *vctx, long idx, const void *data, size_t len)
{
    struct ctx *x = vctx;
    uint64_t h;
    SS_ASSERT(len >= sizeof h);
    memcpy(&h, data, sizeof h);
    if (h != x->hash) {
        pool_reject("computed from a different configuration (are the scenario, node and pod "
                    "files the same on every node?)");
        return;
    }
    const char *json = (const char *)data + sizeof h;
    keep(x, idx, json, len - sizeof h);
    if (x->part)
        part_add(x->part, idx, json, len - sizeof h);
}

/* --merge: an experiment from a partial file (its hash already matched) is kept only if
 * its figures are ones an experiment could produce (cl_result_check). */
static int merge_deliver(void *vctx, long idx, const void *data, size_t len, char *why,
                         size_t whylen)
{
    struct ctx *x = vctx;
    char name[160];
    describe(x, idx, name, sizeof name);
    char what[SS_ERRLEN];
    if (cl_result_check(x->s, idx, data, len, what, sizeof what))
        return ss_errf(why, whylen, "%s: %s", name, what);
    keep(x, idx, data, len);
    return 0;
}

static void describe(void *vctx, long idx, char *buf, size_t n)
{
    struct ctx *x = vctx;
    snprintf(buf, n, "experiment %s seed %lld", x->s->policy[idx / x->s->n_seeds]->name,
             x->s->seed[idx % x->s->n_seeds]);
}

/* The bar on a terminal; without one under MPI (mpirun's stderr is a pipe), about ten lines,
 * counting the experiments of every rank. */
static void progress(void *vctx, long done, long total)
{
    struct ctx *x = vctx;
    if (x->o->progress == CLR_PROGRESS_BAR)
        fprintf(stderr, "\rcluster: %ld/%ld experiments", done, total);
    else if ((x->o->progress == CLR_PROGRESS_LINES || pool_ranks() > 1) &&
             pool_progress_line_due(done, total))
        fprintf(stderr, "cluster: %ld/%ld experiments on %d ranks\n", done, total, pool_ranks());
}

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
    return h;
}

/*
 * What the experiments are computed from: the bytes of the scenario file and of the node
 * and pod lists it names (MIG profiles come with the binary and are not hashed). Equal
 * hashes on two ranks, or in a shard's partial file and the merge, mean equal results.
 */
static int input_hash(const struct cl_scenario *s, uint64_t *out, char *err, size_t errlen)
{
    const char *files[3] = {s->file, s->cluster.source, s->work.source};
    uint64_t h = 14695981039346656037ULL;
    for (int i = 0; i < 3; i++) {
        if (i == 1 && strcmp(files[1], s->file) == 0)
            continue; /* nodes given in the scenario itself */
        char *text;
        size_t len;
        if (ss_read_file(files[i], 1u << 30, &text, &len, err, errlen))
            return -1;
        h = fnv1a(fnv1a(h, files[i] == s->file ? "scenario" : "list", 4), text, len);
        free(text);
    }
    *out = h;
    return 0;
}

/* What makes partial files comparable: the version, the experiments, the inputs' hash. */
static void study_key(const struct ctx *x, long n, char *key, size_t len)
{
    snprintf(key, len, "cluster %s experiments=%ld policies=%d seeds=%d hash=%016llx",
             SHARESIM_VERSION, n, x->s->n_policies, x->s->n_seeds, (unsigned long long)x->hash);
}

/*
 * The dispatch order: the shard's experiments, the costliest policies first so that the
 * long experiments do not end up last on one worker while the others idle. Within a
 * policy, by seed. A policy's cost is its cl_policy.cost (relative, measured; see there).
 */
static long *dispatch_order(const struct cl_scenario *s, const struct shard *sh, long *n_order)
{
    long n = (long)s->n_policies * s->n_seeds, k = 0;
    long *order = ss_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    int *pol = ss_xmalloc((size_t)s->n_policies * sizeof *pol);
    for (int p = 0; p < s->n_policies; p++) {
        int j = p;
        /* insertion sort by cost, descending; ties keep the scenario's order */
        while (j > 0 && s->policy[pol[j - 1]]->cost < s->policy[p]->cost) {
            pol[j] = pol[j - 1];
            j--;
        }
        pol[j] = p;
    }
    for (int i = 0; i < s->n_policies; i++)
        for (int seed = 0; seed < s->n_seeds; seed++) {
            long idx = (long)pol[i] * s->n_seeds + seed;
            if (shard_has(sh, idx))
                order[k++] = idx;
        }
    free(pol);
    *n_order = k;
    return order;
}

/* Runs the experiments of this run (all, or the shard's) in the pool. */
static int run_pool(struct ctx *x, long n, char *err, size_t errlen)
{
    struct pool_job job = {0};
    job.n_items = n;
    job.jobs = x->o->jobs <= 1 ? 0 : x->o->jobs;
    job.order = dispatch_order(x->s, &x->o->shard, &job.n_order);
    job.ctx = x;
    job.work = work;
    job.deliver = deliver;
    job.describe = describe;
    job.progress = progress;
    /* A shard with no experiment (more shards than experiments) runs no pool: an order
     * with n_order = 0 would mean every item. The other ranks are released when rank 0
     * exits. */
    int rc = job.n_order == 0 && pool_is_writer() ? 0 : pool_run(&job, err, errlen);
    free((long *)job.order);
    if (x->o->progress == CLR_PROGRESS_BAR)
        fputc('\n', stderr);
    return rc;
}

/* --merge: every experiment's result from the partial files, each exactly once. */
static int merge_partials(struct ctx *x, long n, const char *key, char *err, size_t errlen)
{
    unsigned char *seen = ss_xcalloc((size_t)n + 1, 1);
    int rc = 0;
    for (int f = 0; rc == 0 && f < x->o->n_merge; f++)
        rc = part_read(x->o->merge[f], key, n, seen, merge_deliver, x, err, errlen);
    long missing = 0, first = -1;
    for (long k = 0; rc == 0 && k < n; k++)
        if (!seen[k] && missing++ == 0)
            first = k;
    if (rc == 0 && missing > 0) {
        char name[160];
        describe(x, first, name, sizeof name);
        rc = ss_errf(err, errlen,
                     "cluster --merge: %ld of %ld experiments are in no partial file, the first: "
                     "%s (experiment %ld; a shard I/N holds the experiments k with k mod N = I)",
                     missing, n, name, first);
    }
    free(seen);
    return rc;
}

/* A number as Python prints a float (the reference's CSV files are written by pandas). */
static void fmt_py(char *buf, size_t n, double v)
{
    if (isnan(v)) {
        buf[0] = 0;
        return;
    }
    snprintf(buf, n, "%.6g", v);
    if (!strpbrk(buf, ".en"))
        snprintf(buf + strlen(buf), n - strlen(buf), ".0");
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsRaw(v)) /* jv_out_num's rounded numbers; "null" for NaN */
        return strcmp(v->valuestring, "null") ? strtod(v->valuestring, NULL) : NAN;
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void write_csv_cols(const struct cl_scenario *s, cJSON *const *item, FILE *fp,
                           const char *series, int with_total)
{
    int n_cols = (int)nearbyint(s->tune * 100) + 1;
    fprintf(fp, "workload,sc_policy,tune,seed%s", with_total ? ",total_gpus" : "");
    for (int c = 0; c < n_cols; c++)
        fprintf(fp, ",%d", c);
    fputc('\n', fp);
    char tune[32];
    fmt_py(tune, sizeof tune, s->tune);
    for (int k = 0; k < s->n_policies * s->n_seeds; k++) {
        const cJSON *o = item[k];
        fprintf(fp, "%s,%s,%s,%lld", s->work.label, s->policy[k / s->n_seeds]->label, tune,
                s->seed[k % s->n_seeds]);
        if (with_total)
            fprintf(fp, ",%lld", s->cluster.total_gpus);
        const cJSON *cols = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(o, "per_arrived_pct"), series);
        int c = 0;
        for (const cJSON *v = cols ? cols->child : NULL; v && c < n_cols; v = v->next, c++) {
            char b[64];
            fmt_py(b, sizeof b, cJSON_IsNumber(v) ? v->valuedouble : NAN);
            fprintf(fp, ",%s", b);
        }
        fputc('\n', fp);
    }
}

static void write_csv_samples(const struct cl_scenario *s, cJSON *const *item, FILE *fp)
{
    fprintf(fp,
            "workload,sc_policy,seed,t_s,arrived,placed,failed,pending,running,"
            "alloc_ratio,frag_pct,frag_ratio,reconfigs,instances_changed,migrated,downtime_s\n");
    for (int k = 0; k < s->n_policies * s->n_seeds; k++) {
        const cJSON *samples = cJSON_GetObjectItemCaseSensitive(item[k], "samples");
        for (const cJSON *r = samples ? samples->child : NULL; r; r = r->next) {
            char a[64], f[64], q[64], t[64], dt[64];
            snprintf(t, sizeof t, "%.15g", num(r, "t_s"));
            double down = num(r, "downtime_s");
            fmt_py(dt, sizeof dt, isnan(down) ? 0 : down);
            fmt_py(a, sizeof a, num(r, "alloc_ratio"));
            fmt_py(f, sizeof f, num(r, "frag_pct"));
            fmt_py(q, sizeof q, num(r, "frag_ratio"));
            double rc = num(r, "reconfigs"), dr = num(r, "instances_changed"),
                   mg = num(r, "migrated");
            fprintf(fp, "%s,%s,%lld,%s,%.0f,%.0f,%.0f,%.0f,%.0f,%s,%s,%s,%.0f,%.0f,%.0f,%s\n",
                    s->work.label, s->policy[k / s->n_seeds]->label, s->seed[k % s->n_seeds], t,
                    num(r, "arrived"), num(r, "placed"), num(r, "failed"), num(r, "pending"),
                    num(r, "running"), a, f, q, isnan(rc) ? 0 : rc, isnan(dr) ? 0 : dr,
                    isnan(mg) ? 0 : mg, dt);
        }
    }
}

/* A percentage cell of the summary table, `width` wide with its '%': "-" where the figure
 * is undefined (NaN: no seed had it) instead of printf's "nan%". 1 if so. */
static int pct_cell(char *buf, size_t n, double v, int width)
{
    if (isnan(v)) {
        snprintf(buf, n, "%*s ", width - 1, "-");
        return 1;
    }
    snprintf(buf, n, "%*.2f%%", width - 1, v);
    return 0;
}

/* Mean and sample standard deviation of a key over one policy's seeds. */
static void stats(cJSON *const *item, int n, const char *key, double *mean, double *sd)
{
    double s = 0, ss = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        double v = num(item[i], key);
        if (isnan(v))
            continue;
        s += v;
        k++;
    }
    *mean = k ? s / k : NAN;
    for (int i = 0; i < n; i++) {
        double v = num(item[i], key);
        if (!isnan(v))
            ss += (v - *mean) * (v - *mean);
    }
    *sd = k > 1 ? sqrt(ss / (k - 1)) : NAN;
}

/* Time average of a sample key (replay). */
static double sample_mean(const cJSON *o, const char *key)
{
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(o, "samples");
    double s = 0;
    int k = 0;
    for (const cJSON *r = samples ? samples->child : NULL; r; r = r->next) {
        double v = num(r, key);
        if (!isnan(v)) {
            s += v;
            k++;
        }
    }
    return k ? s / k : NAN;
}

/*
 * The outputs from every experiment's JSON text (res[n]) into the files opened in f (those
 * whose paths are set) and the summary table: what one run writes, whatever ran where.
 */
static int write_outputs(const struct cl_scenario *s, const struct clr_opts *o, char **res,
                         const char *const *paths, struct ss_out *f, char *err, size_t errlen)
{
    int rc = 0;
    long n = (long)s->n_policies * s->n_seeds;
    cJSON **item = ss_xcalloc((size_t)n, sizeof *item);
    for (long k = 0; k < n; k++) {
        item[k] = cJSON_Parse(res[k]);
        SS_ASSERT(item[k]);
    }

    /* summary per policy */
    cJSON *summary = cJSON_CreateArray();
    double *key = ss_xcalloc((size_t)s->n_policies, sizeof *key);
    const char *headline = s->mode == CL_INFLATE ? "alloc_ratio_at_100" : "alloc_ratio_mean";
    for (int p = 0; p < s->n_policies; p++) {
        cJSON *const *it = item + (long)p * s->n_seeds;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "policy", s->policy[p]->name);
        cJSON_AddStringToObject(row, "label", s->policy[p]->label);
        cJSON_AddStringToObject(row, "title", s->policy[p]->title);
        cJSON_AddStringToObject(row, "source", s->policy[p]->source);
        cJSON_AddNumberToObject(row, "seeds", s->n_seeds);
        double m, sd;
        if (s->mode == CL_INFLATE) {
            stats(it, s->n_seeds, "alloc_ratio_at_100", &m, &sd);
            key[p] = m;
            jv_out_add(row, "alloc_ratio_at_100_mean", m);
            jv_out_add(row, "alloc_ratio_at_100_sd", sd);
            stats(it, s->n_seeds, "frag_ratio_at_100", &m, &sd);
            jv_out_add(row, "frag_ratio_at_100_mean", m);
            stats(it, s->n_seeds, "frag_over_threshold_at_arrived_pct", &m, &sd);
            jv_out_add(row, "frag_over_threshold_at_arrived_pct_mean", m);
        } else {
            double a = 0;
            for (int i = 0; i < s->n_seeds; i++)
                a += sample_mean(it[i], "alloc_ratio");
            key[p] = a / s->n_seeds;
            jv_out_add(row, "alloc_ratio_mean", key[p]);
            a = 0;
            for (int i = 0; i < s->n_seeds; i++)
                a += sample_mean(it[i], "frag_ratio");
            jv_out_add(row, "frag_ratio_mean", a / s->n_seeds);
        }
        stats(it, s->n_seeds, "failed", &m, &sd);
        jv_out_add(row, "failed_mean", m);
        stats(it, s->n_seeds, "alloc_ratio_final", &m, &sd);
        jv_out_add(row, "alloc_ratio_final_mean", m);
        cJSON_AddItemToArray(summary, row);
    }
    /* rank: 1 = highest headline allocation ratio; ties share the better rank */
    int p = 0;
    for (cJSON *row = summary->child; row; row = row->next, p++) {
        int rank = 1;
        for (int q = 0; q < s->n_policies; q++)
            if (key[q] > key[p])
                rank++;
        /* a policy whose headline is undefined (NaN) has no rank: null */
        jv_out_add(row, "rank", isnan(key[p]) ? NAN : rank);
    }

    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "sharesim_version", SHARESIM_VERSION);
    cJSON_AddStringToObject(doc, "scenario", s->file);
    cJSON_AddStringToObject(doc, "name", s->name);
    cJSON_AddStringToObject(doc, "mode", s->mode == CL_INFLATE ? "inflate" : "replay");
    cJSON *cl = cJSON_AddObjectToObject(doc, "cluster");
    cJSON_AddNumberToObject(cl, "nodes", s->cluster.n_nodes);
    cJSON_AddNumberToObject(cl, "gpus", (double)s->cluster.total_gpus);
    cJSON_AddNumberToObject(cl, "cpu_milli", (double)s->cluster.total_cpu_milli);
    cJSON *wl = cJSON_AddObjectToObject(doc, "workload");
    cJSON_AddStringToObject(wl, "label", s->work.label);
    cJSON_AddNumberToObject(wl, "pods", s->work.n);
    cJSON_AddNumberToObject(wl, "typical_pods", s->typical.n);
    jv_out_add(wl, "typical_popularity", s->popularity);
    if (s->mode == CL_INFLATE) {
        jv_out_add(doc, "tune", s->tune);
        cJSON_AddStringToObject(doc, "order", s->shuffle ? "shuffle" : "creation");
    } else {
        cJSON_AddStringToObject(doc, "unplaced", s->wait ? "wait" : "fail");
        jv_out_add(doc, "sample_s", s->sample_s);
    }
    cJSON_AddItemToObject(doc, "summary", summary);
    cJSON *exps = cJSON_AddArrayToObject(doc, "experiments");
    for (long k = 0; k < n; k++) {
        cJSON_AddItemToArray(exps, item[k]);
        item[k] = NULL;
    }

    if (o->text) {
        FILE *t = o->text;
        fprintf(t, "%s: %d nodes, %lld GPUs, %d pods (%s), %s", s->name, s->cluster.n_nodes,
                s->cluster.total_gpus, s->work.n, s->work.label,
                s->mode == CL_INFLATE ? "inflate" : "replay");
        if (s->mode == CL_INFLATE)
            fprintf(t, " to %.2f x GPU capacity", s->tune);
        fprintf(t, ", %d seed%s\n\n", s->n_seeds, s->n_seeds == 1 ? "" : "s");
        fprintf(t, "%-12s %-18s %10s %7s %10s %9s %5s\n", "policy", "label",
                s->mode == CL_INFLATE ? "alloc@100%" : "alloc mean", "sd",
                s->mode == CL_INFLATE ? "frag@100%" : "frag mean", "failed", "rank");
        int undefined = 0;
        for (const cJSON *row = summary->child; row; row = row->next) {
            double a =
                num(row, s->mode == CL_INFLATE ? "alloc_ratio_at_100_mean" : "alloc_ratio_mean");
            double sd = num(row, "alloc_ratio_at_100_sd");
            double f =
                num(row, s->mode == CL_INFLATE ? "frag_ratio_at_100_mean" : "frag_ratio_mean");
            char ca[32], cf[32], cr[32];
            undefined |= pct_cell(ca, sizeof ca, a, 10) | pct_cell(cf, sizeof cf, f, 10);
            if (isnan(num(row, "rank")))
                snprintf(cr, sizeof cr, "%5s", "-");
            else
                snprintf(cr, sizeof cr, "%5.0f", num(row, "rank"));
            fprintf(t, "%-12s %-18s %s %6.2f%s %s %9.1f %s\n",
                    cJSON_GetObjectItemCaseSensitive(row, "policy")->valuestring,
                    cJSON_GetObjectItemCaseSensitive(row, "label")->valuestring, ca,
                    isnan(sd) ? 0 : sd, isnan(sd) ? "*" : " ", cf, num(row, "failed_mean"), cr);
        }
        fprintf(t, "\n%s: mean over seeds of the GPU allocation ratio", headline);
        if (s->mode == CL_INFLATE)
            fprintf(t, " when arrived GPU requests reach 100 %% of the cluster's GPUs");
        fprintf(t, "; frag = fragmented share of idle GPU-milli (FGD measure)%s\n",
                s->n_seeds == 1 ? "; * one seed, no sd" : "");
        if (undefined)
            fprintf(t, "%s\n",
                    s->mode == CL_INFLATE
                        ? "- undefined in every seed: no pod event within 1 % of 100 % arrived "
                          "(tune below 1, or pods large against the cluster), or for frag no "
                          "idle GPU-milli left there"
                        : "- undefined in every seed: no idle GPU-milli at any sample");
    }

    /* files: all or none */
    {
        cJSON **ex = ss_xcalloc((size_t)n, sizeof *ex);
        long k = 0;
        for (cJSON *v = exps->child; v; v = v->next)
            ex[k++] = v;
        {
            if (paths[0]) {
                char *txt = cJSON_Print(doc);
                fputs(txt, f[0].fp);
                fputc('\n', f[0].fp);
                free(txt);
            }
            if (paths[1]) {
                if (s->mode == CL_INFLATE)
                    write_csv_cols(s, ex, f[1].fp, "alloc_ratio", 1);
                else
                    write_csv_samples(s, ex, f[1].fp);
            }
            if (paths[2])
                write_csv_cols(s, ex, f[2].fp, "frag_pct", 0);
            if (paths[3])
                write_csv_cols(s, ex, f[3].fp, "frag_ratio", 0);
            if (paths[4]) {
                /* --html: the page of this one result, read back as --json writes it (its
                 * numbers are raw 6-digit text in doc, jv_out_add) */
                char *txt = cJSON_PrintUnformatted(doc);
                cJSON *back = txt ? cJSON_Parse(txt) : NULL;
                free(txt);
                struct ht_cluster hc = {NULL, NULL, NULL, NULL, &back, 1, NULL};
                rc = back ? ht_cluster_page(f[4].fp, &hc, err, errlen)
                          : ss_errf(err, errlen, "out of memory writing the cluster page");
                cJSON_Delete(back);
            }
        }
        free(ex);
    }
    free(key);
    for (long k = 0; k < n; k++)
        cJSON_Delete(item[k]);
    free(item);
    cJSON_Delete(doc);
    return rc;
}

/* --json, --csv, --csv-frag, --csv-frag-ratio, --html */
#define CLR_N_OUT 5

int clr_run(const struct cl_scenario *s, const struct clr_opts *o, char *err, size_t errlen)
{
    long n = (long)s->n_policies * s->n_seeds;
    struct ctx x = {s, o, 0, NULL, NULL};
    if (input_hash(s, &x.hash, err, errlen))
        return -1;
    if (!pool_is_writer()) /* an MPI rank other than 0: it runs what rank 0 sends */
        return run_pool(&x, n, err, errlen);
    char key[256];
    study_key(&x, n, key, sizeof key);
    int sharded = o->shard.n > 1;
    /* Outputs are opened first: a bad path fails now, not after the experiments. A shard
     * writes its partial file only. */
    const char *paths[CLR_N_OUT] = {NULL, NULL, NULL, NULL, NULL};
    if (!sharded) {
        paths[0] = o->json_path;
        paths[1] = o->csv_path;
        paths[2] = o->csv_frag_path;
        paths[3] = o->csv_ratio_path;
        paths[4] = o->html_path;
    }
    struct ss_out f[CLR_N_OUT];
    struct part_out part;
    for (int i = 0; i < CLR_N_OUT; i++)
        if (paths[i] && ss_out_open(&f[i], paths[i], err, errlen)) {
            for (int k = 0; k < i; k++)
                if (paths[k])
                    ss_out_abort(&f[k]);
            return -1;
        }
    if (sharded) {
        SS_ASSERT(o->partial);
        if (part_open(&part, o->partial, key, n, err, errlen))
            return -1;
        x.part = &part;
    }
    x.res = ss_xcalloc((size_t)n, sizeof(char *));
    int rc =
        o->n_merge > 0 ? merge_partials(&x, n, key, err, errlen) : run_pool(&x, n, err, errlen);
    if (sharded) {
        if (rc == 0)
            rc = part_commit(&part, err, errlen);
        else
            part_abort(&part);
    } else if (rc == 0) {
        rc = write_outputs(s, o, x.res, paths, f, err, errlen);
    }
    for (int i = 0; i < CLR_N_OUT; i++) {
        if (!paths[i])
            continue;
        if (rc)
            ss_out_abort(&f[i]);
        else if (ss_out_commit(&f[i], err, errlen))
            rc = -1;
    }
    for (long k = 0; k < n; k++)
        free(x.res[k]);
    free(x.res);
    return rc;
}
