/*
 * migscale — MIG scaling of work that does not fill a GPU (docs/mig.md#work-that-does-not-fill-
 * a-gpu): the compute class's intensity against the memory slices and the host fraction by
 * hand, work presets (kernels/profiles/workloads/presets.json) and their errors, and the
 * validation against published MIG scaling: every tests/fixtures/sharing/mig-*.json is a row of
 * kernels/profiles/measurements/sharing.csv, its predicted ratio is recomputed here from the
 * strategies' capacities and must be the one docs/mig.md prints (so the table cannot drift).
 */
#include "core/policy.h"
#include "core/preset.h"
#include "core/rate.h"
#include "core/run.h"
#include "core/scenario.h"
#include "mig/mig.h"
#include "testutil.h"
#include "base/util.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- by hand ------------------------------------------------------------- */

#define A100_TENANT(work, cls)                                                                     \
    "{\"gpu\": \"A100-80GB\", \"stop\": {\"duration_s\": 10}, \"tenants\": [{\"name\": \"a\", "    \
    "\"arrival\": {\"process\": \"saturated\"}, \"work\": {\"dist\": \"deterministic\", \"ms\": "  \
    "10" work "}" cls "}], \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}"

static int prof(const struct gpu_profile *g, const char *name)
{
    for (int k = 0; k < g->n_mig; k++)
        if (strcmp(g->mig[k].name, name) == 0)
            return k;
    CU_FAIL_FATAL("no such MIG profile");
    return -1;
}

static double on(const struct scenario *sc, const char *profile)
{
    int k = prof(&sc->gpu, profile);
    return rate_speed(&sc->gpu, &sc->tenants[0], mig_compute_share(&sc->gpu, k),
                      mig_memory_share(&sc->gpu, k));
}

static void test_intensity_meets_the_memory_slices(void)
{
    struct scenario sc;
    /* Without an intensity a compute request ignores the memory slices: 14/108 on both
     * 1g.10gb (1 of 8 slices) and 1g.20gb (2 of 8). */
    tu_load_text(A100_TENANT("", ""), &sc);
    CU_ASSERT_DOUBLE_EQUAL(on(&sc, "1g.10gb"), 14.0 / 108, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(on(&sc, "1g.20gb"), 14.0 / 108, 1e-12);
    scn_free(&sc);
    /* At the ridge (intensity 1) its bytes take as long as its math on the whole GPU: on the
     * 1g.10gb the memory phase, 1/8 of the bandwidth (the curve gives its 14 SMs 0.25, the
     * slices 0.125), is the longer: min(14/108, 1 × 0.125) = 0.125. The 1g.20gb's 2 slices
     * (0.25) leave it compute-bound, 14/108; the 3g.40gb (42/108, 4 slices) too. 4g.40gb:
     * 56/108 = 0.5185 of the SMs over 0.5 of the bandwidth: min = 0.5. */
    tu_load_text(A100_TENANT(", \"intensity\": 1", ""), &sc);
    CU_ASSERT_DOUBLE_EQUAL(on(&sc, "1g.10gb"), 0.125, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(on(&sc, "1g.20gb"), 14.0 / 108, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(on(&sc, "3g.40gb"), 42.0 / 108, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(on(&sc, "4g.40gb"), 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(rate_speed(&sc.gpu, &sc.tenants[0], 1, 1), 1.0, 1e-12);
    scn_free(&sc);
    /* Intensity 2: the 1g.10gb's memory phase takes 1/(2 × 0.125) = 4 < 108/14: compute. */
    tu_load_text(A100_TENANT(", \"intensity\": 2", ""), &sc);
    CU_ASSERT_DOUBLE_EQUAL(on(&sc, "1g.10gb"), 14.0 / 108, 1e-12);
    scn_free(&sc);
}

static void test_3g_compute_and_memory_job_by_hand(void)
{
    struct scenario sc;
    /* A mixed job (90 % of its whole-GPU time compute) that keeps at most 0.518 of the SMs
     * busy, on a 3g.40gb: f = 42/108 = 0.388889, b = 4/8 = 0.5.
     *   compute phase: u / s = 0.388889 / 0.518 = 0.750751
     *   memory phase: min(b, C(u)) / C(s), C(x) the bandwidth x of the SMs can pull: the larger
     *     of the profile's curve and x / knee (mem_bw_knee_sm_fraction 0.58 on the A100-80GB):
     *     C(0.388889) = max(0.5, 0.670498) = 0.670498, C(0.518) = max(0.624500, 0.893103) =
     *     0.893103: 0.5 / 0.893103 = 0.559846
     *   speed = 1 / (0.9 / 0.750751 + 0.1 / 0.559846) = 1 / (1.198800 + 0.178621) = 0.725994
     * (QLoRA measured 0.7558, NJIT_MIG: the preset was fitted before the knee). */
    tu_load_text(A100_TENANT(", \"max_sm_fraction\": 0.518",
                             ", \"class\": \"mixed\", \"compute_share\": 0.9"),
                 &sc);
    double c3 = fmax(0.25 + 0.75 * 28.0 / 84, (42.0 / 108) / 0.58),
           cs = fmax(0.25 + 0.75 * (0.518 * 108 - 14) / 84, 0.518 / 0.58);
    double want = 1 / (0.9 / ((42.0 / 108) / 0.518) + 0.1 / (fmin(0.5, c3) / cs));
    CU_ASSERT_DOUBLE_EQUAL(want, 0.725994, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(on(&sc, "3g.40gb"), want, 1e-12);
    scn_free(&sc);
    /* A compute job with a host fraction 0.2 on the 3g.40gb: 1 / (0.2 + 0.8 / (42/108)) =
     * 1 / (0.2 + 2.057143) = 0.443038; on the whole GPU 1 (its work is defined there). */
    tu_load_text(A100_TENANT(", \"host_fraction\": 0.2", ""), &sc);
    CU_ASSERT_DOUBLE_EQUAL(on(&sc, "3g.40gb"), 1 / (0.2 + 0.8 * 108 / 42), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(on(&sc, "3g.40gb"), 0.443038, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(rate_speed(&sc.gpu, &sc.tenants[0], 1, 1), 1.0, 1e-12);
    scn_free(&sc);
}

static void test_3g_job_end_to_end(void)
{
    /* The same mixed job saturating a 3g.40gb for 100 s of 10 ms requests: one request at a
     * time at 0.725994, so 72.5994 completions per second (deterministic work). */
    struct scenario sc;
    struct run_result r;
    tu_run_text(
        "{\"gpu\": \"A100-80GB\", \"stop\": {\"duration_s\": 100}, \"tenants\": [{\"name\": "
        "\"a\", \"arrival\": {\"process\": \"saturated\"}, \"work\": {\"dist\": "
        "\"deterministic\", \"ms\": 10, \"preset\": \"llm-finetune\"}}], \"strategies\": "
        "[{\"name\": \"m\", \"kind\": \"mig\", \"layout\": [{\"profile\": \"3g.40gb\", "
        "\"tenants\": [\"a\"]}]}]}",
        &sc, &r);
    TU_CHECK_CLOSE_REL(res_t(&r.s[0], 0)[TM_THROUGHPUT], 72.5994, 2e-3);
    run_result_free(&r);
    scn_free(&sc);
}

/* ---- presets --------------------------------------------------------------- */

static void test_preset_fills_and_keys_override(void)
{
    struct scenario sc;
    tu_load_text(A100_TENANT(", \"preset\": \"llm-finetune\"", ""), &sc);
    CU_ASSERT_EQUAL(sc.tenants[0].wclass, CLASS_MIXED);
    CU_ASSERT_DOUBLE_EQUAL(sc.tenants[0].compute_share, 0.90, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(sc.tenants[0].work.max_sm_fraction, 0.518, 1e-12);
    scn_free(&sc);
    tu_load_text(A100_TENANT(", \"preset\": \"hpc-md\", \"max_sm_fraction\": 0.6", ""), &sc);
    CU_ASSERT_EQUAL(sc.tenants[0].wclass, CLASS_COMPUTE);
    CU_ASSERT_DOUBLE_EQUAL(sc.tenants[0].work.max_sm_fraction, 0.6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(sc.tenants[0].work.host_fraction, 0.170, 1e-12);
    scn_free(&sc);
    /* A class given overrides the preset's; the preset's intensity belongs to its class. */
    tu_load_text(A100_TENANT(", \"preset\": \"gemm\"", ", \"class\": \"mixed\""), &sc);
    CU_ASSERT_EQUAL(sc.tenants[0].wclass, CLASS_MIXED);
    CU_ASSERT_DOUBLE_EQUAL(sc.tenants[0].compute_share, 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(sc.tenants[0].work.intensity, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(sc.tenants[0].work.max_sm_fraction, 0.936, 1e-12);
    scn_free(&sc);
    tu_load_text(A100_TENANT(", \"preset\": \"gemm\"", ""), &sc);
    CU_ASSERT_DOUBLE_EQUAL(sc.tenants[0].work.intensity, 8.9, 1e-12);
    scn_free(&sc);
}

static void test_bad_preset_and_keys(void)
{
    tu_expect_load_error(A100_TENANT(", \"preset\": \"cfd\"", ""),
                         "tenants[0].work.preset: unknown preset \"cfd\": expected one of gemm, "
                         "hpc-md, llm-finetune, dnn-training, dnn-inference");
    tu_expect_load_error(A100_TENANT(", \"preset\": 3", ""), "tenants[0].work.preset: expected a "
                                                             "string");
    tu_expect_load_error(A100_TENANT(", \"intensity\": 0.5", ""), "tenants[0].work.intensity");
    tu_expect_load_error(A100_TENANT(", \"host_fraction\": 1", ""),
                         "tenants[0].work.host_fraction");
    tu_expect_load_error(A100_TENANT(", \"intensity\": 3", ", \"class\": \"memory\""),
                         "tenants[0].work.intensity: only for \"class\": \"compute\" (got "
                         "\"memory\")");
    /* The CLI: exit 2 with the names. */
    char *path = tu_write("bad-preset.json", A100_TENANT(", \"preset\": \"cfd\"", ""));
    char cmd[600], err[4096];
    snprintf(cmd, sizeof cmd, "run %s", path);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected one of gemm, hpc-md"));
    /* A broken table: the preset's path and the table's error. */
    char *tab = tu_write("presets-bad.json", "{\"schema\": 1, \"presets\": []}");
    setenv("SHARESIM_PRESETS", tab, 1);
    tu_expect_load_error(A100_TENANT(", \"preset\": \"gemm\"", ""),
                         "tenants[0].work.preset: cannot read the preset table");
    unsetenv("SHARESIM_PRESETS");
}

/* ---- sharing.csv ------------------------------------------------------------ */

struct meas {
    char id[80], role[16], group[24], config[160], baseline[160];
    double ratio;
    int n_tenants;
};

/* Splits one RFC 4180 line (CRLF stripped) into at most n fields, in place. */
static int csv_fields(char *line, char **f, int n)
{
    int k = 0;
    char *w = line, *r = line;
    while (k < n) {
        f[k++] = w;
        int q = *r == '"';
        if (q)
            r++;
        for (;;) {
            if (q && r[0] == '"' && r[1] == '"') {
                *w++ = '"';
                r += 2;
            } else if (q && r[0] == '"') {
                q = 0;
                r++;
            } else if (!q && (*r == ',' || *r == '\0' || *r == '\r' || *r == '\n')) {
                break;
            } else {
                *w++ = *r++;
            }
        }
        int end = *r != ',';
        *w++ = '\0';
        r++;
        if (end)
            break;
    }
    return k;
}

static int load_meas(struct meas *m, int cap)
{
    char path[512];
    snprintf(path, sizeof path, "%s/kernels/profiles/measurements/sharing.csv", tu_root());
    FILE *fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char line[4096];
    int n = 0;
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, fp)); /* header */
    while (n < cap && fgets(line, sizeof line, fp)) {
        char *f[16];
        if (csv_fields(line, f, 16) < 15)
            continue;
        snprintf(m[n].id, sizeof m[n].id, "%s", f[0]);
        snprintf(m[n].group, sizeof m[n].group, "%s", f[2]);
        snprintf(m[n].config, sizeof m[n].config, "%s", f[7]);
        snprintf(m[n].baseline, sizeof m[n].baseline, "%s", f[8]);
        m[n].ratio = atof(f[10]);
        m[n].n_tenants = atoi(f[11]);
        snprintf(m[n].role, sizeof m[n].role, "%s", f[14]);
        n++;
    }
    fclose(fp);
    return n;
}

static const struct meas *find_meas(const struct meas *m, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (strcmp(m[i].id, id) == 0)
            return &m[i];
    return NULL;
}

static void test_presets_from_fit_rows_only(void)
{
    /* Every fitted value names the sharing.csv rows it was fitted to, each a `fit` row of the
     * mig group or (a kind of work's occupancy curve that MPS rows of the same workload pin
     * down) of the mps group; a value without rows says it was derived. */
    static struct meas m[64];
    int n = load_meas(m, 64);
    CU_ASSERT_EQUAL(n, 39);
    struct wp_table *t = ss_xcalloc(1, sizeof *t);
    char err[SS_ERRLEN];
    char path[512];
    snprintf(path, sizeof path, "%s/kernels/profiles/workloads/presets.json", tu_root());
    CU_ASSERT_EQUAL_FATAL(wp_load(path, t, err, sizeof err), 0);
    CU_ASSERT_EQUAL(t->n, 5);
    for (int i = 0; i < t->n; i++) {
        const struct wp_value *v[] = {&t->p[i].max_sm_fraction, &t->p[i].intensity,
                                      &t->p[i].host_fraction, &t->p[i].compute_share};
        for (int k = 0; k < 4; k++) {
            if (!v[k]->set)
                continue;
            if (v[k]->n_fit_rows == 0) {
                CU_ASSERT_EQUAL(strncmp(v[k]->source, "derived", 7), 0);
                continue;
            }
            for (int r = 0; r < v[k]->n_fit_rows; r++) {
                const struct meas *x = find_meas(m, n, v[k]->fit_rows[r]);
                CU_ASSERT_PTR_NOT_NULL_FATAL(x);
                CU_ASSERT_STRING_EQUAL(x->role, "fit");
                CU_ASSERT(strcmp(x->group, "mig") == 0 || strcmp(x->group, "mps") == 0);
            }
        }
    }
    free(t);
}

/* ---- the validation table ------------------------------------------------------ */

/* The work rate tenant i's share in strategy k sustains alone (policy capacity). */
static double capacity(const struct scenario *sc, int k, int i)
{
    double *cap = ss_xcalloc((size_t)sc->n_tenants, sizeof *cap);
    for (int j = 0; j < sc->n_tenants; j++)
        cap[j] = NAN;
    sc->strategies[k].ops->capacity(sc, sc->strategies[k].cfg, NULL, cap);
    double c = cap[i];
    free(cap);
    return c;
}

struct vrow {
    char id[80], role[16], preset[32], shape[96];
    double measured, predicted, error;
};

/*
 * The predicted ratio of a fixture: the instance strategy's rate over the baseline's. The
 * baseline is the fixture's second strategy (a MIG instance, or exclusive: the whole GPU);
 * with none, one tenant alone on the whole GPU (rate 1 by the definition of work). Several
 * tenants against one alone: the sum of their rates (the aggregate), unless the row is per
 * instance.
 */
static void predict(const char *path, const struct meas *m, struct vrow *v)
{
    struct scenario sc;
    tu_load_file(path, &sc);
    int n = sc.n_tenants, agg = n > 1 && !strstr(m->config, "per instance");
    double inst = 0, base = 0;
    for (int i = 0; i < (agg ? n : 1); i++) {
        inst += capacity(&sc, 0, i);
        base += sc.n_strategies > 1 ? capacity(&sc, 1, i) : (i == 0 ? 1 : 0);
    }
    v->predicted = inst / base;
    v->measured = m->ratio;
    v->error = v->predicted / v->measured - 1;
    memcpy(v->id, m->id, sizeof v->id); /* the same sizes */
    memcpy(v->role, m->role, sizeof v->role);
    char *text = tu_slurp(path);
    const char *pr = strstr(text, "\"preset\": \"");
    snprintf(v->preset, sizeof v->preset, "%.*s", pr ? (int)strcspn(pr + 11, "\"") : 0,
             pr ? pr + 11 : "");
    const char *prof1 = strstr(text, "\"profile\": \"");
    const char *bprof = strstr(text, "\"baseline\", \"kind\": \"mig\"");
    char many[24] = "";
    if (n > 1)
        snprintf(many, sizeof many, agg ? "%d × " : "1 of %d × ", n);
    snprintf(v->shape, sizeof v->shape, "%s%.*s / %s", many, (int)strcspn(prof1 + 12, "\""),
             prof1 + 12, bprof ? "3g.40gb" : "whole GPU");
    free(text);
    scn_free(&sc);
}

static int cmp_abs(const void *a, const void *b)
{
    double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
    return (x > y) - (x < y);
}

static double median_abs(double *e, int n)
{
    qsort(e, (size_t)n, sizeof *e, cmp_abs);
    return n % 2 ? fabs(e[n / 2]) : (fabs(e[n / 2 - 1]) + fabs(e[n / 2])) / 2;
}

static int cmp_id(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The docs/mig.md block between its markers, as this test computes it. */
static void expected_table(char *out, size_t cap)
{
    static struct meas m[64];
    int nm = load_meas(m, 64);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/fixtures/sharing", tu_root());
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    char *names[64];
    int nf = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nf < 64)
        if (strncmp(e->d_name, "mig-", 4) == 0 && strstr(e->d_name, ".json"))
            names[nf++] = ss_xstrdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)nf, sizeof *names, cmp_id);
    int n_mig = 0;
    for (int i = 0; i < nm; i++)
        n_mig += strcmp(m[i].group, "mig") == 0;
    CU_ASSERT_EQUAL(nf, n_mig); /* every mig row has its scenario */
    size_t len = 0;
    len += (size_t)snprintf(out + len, cap - len,
                            "| row (sharing.csv) | role | preset | instance / baseline | measured "
                            "| predicted | error |\n|---|---|---|---|---:|---:|---:|\n");
    double ef[64], eh[64];
    int nfit = 0, nhold = 0, above_f = 0, above_h = 0;
    double sum_f = 0, sum_h = 0;
    for (int i = 0; i < nf; i++) {
        char id[80], path[600];
        snprintf(id, sizeof id, "%.*s", (int)(strlen(names[i]) - 5), names[i]);
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        const struct meas *x = find_meas(m, nm, id);
        CU_ASSERT_PTR_NOT_NULL_FATAL(x);
        struct vrow v;
        predict(path, x, &v);
        len += (size_t)snprintf(out + len, cap - len,
                                "| `%s` | %s | `%s` | %s | %.4f | %.4f | %+.1f %% |\n", v.id,
                                v.role, v.preset, v.shape, v.measured, v.predicted, 100 * v.error);
        int fit = strcmp(v.role, "fit") == 0;
        if (fit) {
            ef[nfit++] = v.error;
            sum_f += v.error;
            above_f += v.error > 0;
        } else {
            eh[nhold++] = v.error;
            sum_h += v.error;
            above_h += v.error > 0;
        }
        free(names[i]);
    }
    len += (size_t)snprintf(out + len, cap - len,
                            "\n- `fit` rows (%d): median |error| %.1f %%, mean error %+.1f %%, %d "
                            "of %d above the measurement.\n",
                            nfit, 100 * median_abs(ef, nfit), 100 * sum_f / nfit, above_f, nfit);
    snprintf(out + len, cap - len,
             "- `holdout` rows (%d): median |error| %.1f %%, mean error %+.1f %%, %d of %d above "
             "the measurement.\n",
             nhold, 100 * median_abs(eh, nhold), 100 * sum_h / nhold, above_h, nhold);
}

static void test_validation_table_is_the_docs(void)
{
    static char want[16384];
    expected_table(want, sizeof want);
    char path[512];
    snprintf(path, sizeof path, "%s/docs/mig.md", tu_root());
    char *doc = tu_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const char *b = strstr(doc, "<!-- migscale:begin -->\n"),
               *en = strstr(doc, "<!-- migscale:end -->");
    int same = b && en && (size_t)(en - b - 24) == strlen(want) &&
               strncmp(b + 24, want, strlen(want)) == 0;
    if (!same)
        fprintf(stderr, "\ndocs/mig.md's validation table should read:\n%s\n", want);
    CU_ASSERT(same);
    free(doc);
}

static void test_profile_occupancy(void)
{
    static char out[16384];
    char err[2048];
    CU_ASSERT_EQUAL(tu_cli("profile occupancy", out, sizeof out, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "build/kernels/partition --out partition.json"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "max_sm_fraction = f / r(k)"));
    /* The worked example is the shipped hpc-md preset and its 2g.20gb prediction. */
    struct wp_table *t = ss_xcalloc(1, sizeof *t);
    CU_ASSERT_EQUAL_FATAL(wp_load(NULL, t, err, sizeof err), 0);
    const struct wp_preset *md = wp_find(t, "hpc-md");
    CU_ASSERT_PTR_NOT_NULL_FATAL(md);
    char line[160];
    snprintf(line, sizeof line, "\"max_sm_fraction\": %g, \"host_fraction\": %g",
             md->max_sm_fraction.value, md->host_fraction.value);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, line));
    struct scenario sc;
    char path[512];
    snprintf(path, sizeof path, "%s/tests/fixtures/sharing/mig-njit-gromacs-2g.json", tu_root());
    tu_load_file(path, &sc);
    snprintf(line, sizeof line, "It predicts %.4f on 2g.20gb", capacity(&sc, 0, 0));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, line));
    scn_free(&sc);
    free(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "  dnn-inference: "));
    CU_ASSERT_EQUAL(tu_cli("profile occupancy extra", NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "usage: sharesim profile occupancy"));
    CU_ASSERT_EQUAL(
        tu_cli("profile occupancy --presets /nonexistent.json", NULL, 0, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent.json"));
}

void test_migscale_register(void)
{
    static const struct tu_test t[] = {
        {"intensity: the memory slices limit compute work below its ridge",
         test_intensity_meets_the_memory_slices},
        {"a 3g.40gb compute-and-memory job by hand; the host fraction",
         test_3g_compute_and_memory_job_by_hand},
        {"the 3g.40gb job end to end", test_3g_job_end_to_end},
        {"a preset fills class and occupancy; given keys override",
         test_preset_fills_and_keys_override},
        {"bad preset, intensity, host fraction (exit 2)", test_bad_preset_and_keys},
        {"preset values come from fit rows only", test_presets_from_fit_rows_only},
        {"the validation table in docs/mig.md is recomputed", test_validation_table_is_the_docs},
        {"profile occupancy: the steps, the worked example, the presets; exit 2",
         test_profile_occupancy},
        {NULL, NULL},
    };
    tu_add_suite("migscale", t);
}
