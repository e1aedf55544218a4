/*
 * Escaping in the pages (report/hw.h): data never becomes markup. The examples (a
 * swept string value in sweep.html, a result's "gpu" field in `report html`, a GPU profile's
 * name in `plan --html`) end to end; then random hostile names — markup and quoting
 * metacharacters, "</script>", "<!--", "]]>", "javascript:", backticks, U+2028, long strings —
 * through every page writer, each page parsed by a small HTML tokenizer: the element and
 * attribute names must be those of the same page with benign names, and no "<script" anywhere.
 * Last, the rule that makes this hold by construction: no page file writes to a stream itself.
 */
#include "base/util.h"
#include "core/scenario.h"
#include "report/html.h"
#include "report/studies.h"
#include "testutil.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define EVIL "<script>alert(1)</script>"

/* a + b + c, allocated. */
static char *cat3(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *s = ss_xmalloc(n);
    snprintf(s, n, fmt, a, b);
    return s;
}

static int has_script(const char *page)
{
    for (const char *p = page; (p = strchr(p, '<')); p++)
        if (strncasecmp(p + 1, "script", 6) == 0)
            return 1;
    return 0;
}

/* ---- the examples ------------------------------------------------------------------ */

static void test_sweep_value(void)
{
    char cmd[2048], err[4096], p[700];
    snprintf(cmd, sizeof cmd,
             "sweep '%s' --set 'strategies.1.name=" EVIL ",ts&x' --out '%s/esc-sweep' --quiet",
             tu_fixture("sweep/tiny.json"), tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/esc-sweep/sweep.html", tu_tmpdir());
    char *page = tu_slurp(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    CU_ASSERT_FALSE(has_script(page));
    TU_CHECK_CONTAINS(page, "&lt;script&gt;alert(1)&lt;/script&gt;");
    CU_ASSERT_PTR_NULL(strstr(page, "ts&x"));
    TU_CHECK_CONTAINS(page, "ts&amp;x");
    free(page);
}

static void test_result_gpu(void)
{
    char cmd[2048], err[4096], p[700];
    const char *t = tu_tmpdir();
    snprintf(cmd, sizeof cmd, "run '%s' --quiet --json '%s/esc-r.json'",
             tu_fixture("sweep/tiny.json"), t);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/esc-r.json", t);
    char *text = tu_slurp(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *at = strstr(text, "\"A100-80GB\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    *at = 0;
    char *doc = cat3("%s\"" EVIL "\\\"'&\"%s", text, at + strlen("\"A100-80GB\""));
    char *path = tu_write("esc-r2.json", doc);
    snprintf(cmd, sizeof cmd, "report html '%s' -o '%s/esc-r2.html'", path, t);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/esc-r2.html", t);
    char *page = tu_slurp(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    CU_ASSERT_FALSE(has_script(page));
    TU_CHECK_CONTAINS(page, "2 × &lt;script&gt;alert(1)&lt;/script&gt;&quot;'&amp;, seed");
    free(page);
    free(doc);
    free(text);
}

static void test_plan_profile_name(void)
{
    char p[700], cmd[2048], err[4096];
    const char *t = tu_tmpdir();
    snprintf(p, sizeof p, "%s/kernels/profiles/a100-80gb.json", tu_root());
    char *prof = tu_slurp(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(prof);
    char *at = strstr(prof, "\"name\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    char *q1 = strchr(at + 6, '"'), *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(q2);
    *q1 = 0;
    /* No double quote or comma: the name rule (docs/scenario.md#names) refuses them. */
    char *evil = cat3("%s\"<script>x</script>&'\"%s", prof, q2 + 1);
    tu_write("esc-gpu.json", evil);
    char *sc =
        tu_write("esc-plan.json",
                 "{\"name\": \"light\", \"gpu\": \"esc-gpu.json\", \"seed\": 1, \"stop\": "
                 "{\"requests\": 6000}, \"tenants\": [{\"name\": \"a\", \"arrival\": "
                 "{\"process\": \"poisson\", \"rate_per_s\": 50}, \"work\": {\"dist\": "
                 "\"exponential\", \"mean_ms\": 2}, \"memory_gb\": 10, \"sla\": {\"p99_ms\": "
                 "100}}], \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}");
    snprintf(cmd, sizeof cmd, "plan --no-headroom '%s' --quiet --html '%s/esc-plan.html'", sc, t);
    int rc = tu_cli(cmd, NULL, 0, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    snprintf(p, sizeof p, "%s/esc-plan.html", t);
    char *page = tu_slurp(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    CU_ASSERT_FALSE(has_script(page));
    TU_CHECK_CONTAINS(page, "on &lt;script&gt;x&lt;/script&gt;&amp;'");
    free(page);
    free(evil);
    free(prof);
}

/* ---- a small HTML tokenizer ---------------------------------------------------------------- */

struct names {
    int n;
    char *v[256];
};

static void names_add(struct names *s, const char *prefix, const char *p, size_t len)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s%.*s", prefix, (int)(len < 100 ? len : 100), p);
    for (char *c = buf; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    for (int k = 0; k < s->n; k++)
        if (strcmp(s->v[k], buf) == 0)
            return;
    if (s->n < 256)
        s->v[s->n++] = ss_xstrdup(buf);
}

static void names_free(struct names *s)
{
    for (int k = 0; k < s->n; k++)
        free(s->v[k]);
    s->n = 0;
}

static int by_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The distinct element names ("e:td"), attribute names ("a:class"), comments ("!comment"),
 * processing instructions and doctypes of a page, sorted. Raw-text elements (style, script,
 * title's RCDATA) are skipped to their end tag as a browser does. */
static void tokenize(const char *s, struct names *out)
{
    out->n = 0;
    const char *p = s;
    while ((p = strchr(p, '<'))) {
        if (strncmp(p, "<!--", 4) == 0) {
            names_add(out, "!comment", "", 0);
            const char *e = strstr(p + 4, "-->");
            p = e ? e + 3 : p + strlen(p);
            continue;
        }
        if (p[1] == '!' || p[1] == '?') {
            names_add(out, p[1] == '!' ? "!decl" : "?pi", "", 0);
            const char *e = strchr(p, '>');
            p = e ? e + 1 : p + strlen(p);
            continue;
        }
        int end = p[1] == '/';
        const char *n = p + 1 + end;
        if (!isalpha((unsigned char)*n)) {
            p++; /* a '<' that opens no tag is text */
            continue;
        }
        const char *ne = n;
        while (*ne && !isspace((unsigned char)*ne) && *ne != '/' && *ne != '>')
            ne++;
        if (!end)
            names_add(out, "e:", n, (size_t)(ne - n));
        const char *q = ne;
        for (;;) { /* attributes */
            while (isspace((unsigned char)*q) || *q == '/')
                q++;
            if (!*q || *q == '>')
                break;
            const char *an = q;
            while (*q && !isspace((unsigned char)*q) && *q != '=' && *q != '>' && *q != '/')
                q++;
            if (q == an)
                q++;
            names_add(out, end ? "a:(end tag)" : "a:", an, (size_t)(q - an));
            while (isspace((unsigned char)*q))
                q++;
            if (*q != '=')
                continue;
            q++;
            while (isspace((unsigned char)*q))
                q++;
            if (*q == '"' || *q == '\'') {
                const char *e = strchr(q + 1, *q);
                q = e ? e + 1 : q + strlen(q);
            } else {
                while (*q && !isspace((unsigned char)*q) && *q != '>')
                    q++;
            }
        }
        p = *q ? q + 1 : q;
        size_t nl = (size_t)(ne - n);
        if (!end && ((nl == 5 && strncasecmp(n, "style", 5) == 0) ||
                     (nl == 6 && strncasecmp(n, "script", 6) == 0) ||
                     (nl == 5 && strncasecmp(n, "title", 5) == 0) ||
                     (nl == 8 && strncasecmp(n, "textarea", 8) == 0))) {
            char close[16];
            snprintf(close, sizeof close, "</%.*s", (int)nl, n);
            const char *e = p;
            while (*e && strncasecmp(e, close, strlen(close)) != 0)
                e++;
            p = e;
        }
    }
    qsort(out->v, (size_t)out->n, sizeof out->v[0], by_str);
}

static void test_tokenizer(void)
{
    struct names s;
    tokenize("<!DOCTYPE html><p class=\"a\" id='b' hidden>x &lt;y&gt; <!-- c --> a<b>"
             "<style>a<b{}</style><title><i></title><svg data-x=1/>",
             &s);
    const char *want[] = {"!comment", "!decl", "a:class", "a:data-x", "a:hidden", "a:id",
                          "e:b",      "e:p",   "e:style", "e:svg",    "e:title"};
    CU_ASSERT_EQUAL(s.n, (int)(sizeof want / sizeof want[0]));
    for (int k = 0; k < s.n && k < (int)(sizeof want / sizeof want[0]); k++)
        CU_ASSERT_STRING_EQUAL(s.v[k], want[k]);
    names_free(&s);
}

/* ---- hostile names through every page writer ----------------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Pieces of hostile names: no comma (the CDF CSV's separator, refused in names) and no
 * control character (the name rule refuses them). */
static const char *const pieces[] = {
    "<script>alert(1)</script>",
    "</script>",
    "<!--",
    "-->",
    "]]>",
    "javascript:alert(1)",
    "`",
    "=",
    " ",
    "\xe2\x80\xa8",
    "&",
    "&amp;",
    "<",
    ">",
    "\"",
    "'",
    "<img src=x onerror=y>",
    "<b>",
    "x",
    "\xc3\xa9",
    "\" onmouseover=\"y",
    "' a='",
    "<svg/onload=z>",
    "<![CDATA[",
    "\\",
};

/* A hostile name of at most max bytes, ending in a tag that keeps the names of one page
 * apart (k). */
static void hostile(char *buf, size_t max, int k)
{
    size_t len = 0;
    int n = 1 + (int)(rnd() % 6);
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        const char *pc = pieces[rnd() % (sizeof pieces / sizeof pieces[0])];
        if (len + strlen(pc) + 4 >= max)
            break;
        memcpy(buf + len, pc, strlen(pc) + 1);
        len += strlen(pc);
    }
    snprintf(buf + len, max - len, "#%d", k);
}

/* s with every occurrence of from replaced by to (JSON-escaped when json). */
static char *replace(const char *s, const char *from, const char *to, int json)
{
    char *esc = NULL;
    if (json) {
        size_t n = 0;
        esc = ss_xmalloc(2 * strlen(to) + 1);
        for (const char *c = to; *c; c++) {
            if (*c == '"' || *c == '\\')
                esc[n++] = '\\';
            esc[n++] = *c;
        }
        esc[n] = 0;
        to = esc;
    }
    size_t cap = strlen(s) + 1, fl = strlen(from), tl = strlen(to), n = 0;
    for (const char *p = s; (p = strstr(p, from)); p += fl)
        cap += tl;
    char *out = ss_xmalloc(cap);
    for (const char *p = s;;) {
        const char *q = strstr(p, from);
        if (!q) {
            strcpy(out + n, p);
            break;
        }
        memcpy(out + n, p, (size_t)(q - p));
        n += (size_t)(q - p);
        memcpy(out + n, to, tl);
        n += tl;
        p = q + fl;
    }
    free(esc);
    return out;
}

/* The benign tokens of the test scenario, each replaced by a hostile name of at most size
 * bytes (the scenario's own arrays bound them). */
enum { T_SCEN, T_TEN_A, T_TEN_B, T_STR_A, T_STR_B, T_STR_C, T_MIG_A, T_GPU, T_CV_A, T_CV_B, T_N };
static const char *const tokens[T_N] = {"zqScen", "zqTenA",  "zqTenB",    "zqStrA", "zqStrB",
                                        "zqStrC", "1g.10gb", "A100-80GB", "zqCvA",  "zqCvB"};
static const size_t token_max[T_N] = {60, 60, 60, 60, 60, 60, 31, 47, 60, 60};

static const char scenario_text[] =
    "{\"name\": \"zqScen\", \"description\": \"Escaping test: **all** names are `hostile`.\", "
    "\"gpu\": \"A100-80GB\", \"gpus\": 2, \"seed\": 3, \"stop\": {\"duration_s\": 8}, "
    "\"tenants\": ["
    "{\"name\": \"zqTenA\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 40}, "
    "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 2}, \"memory_gb\": 8, \"sla\": "
    "{\"p99_ms\": 30}},"
    "{\"name\": \"zqTenB\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1}, "
    "\"serving\": {\"engine\": \"llm\", \"model\": \"Llama-2-7B\"}, \"tokens\": {\"input\": "
    "{\"dist\": \"deterministic\", \"tokens\": 200}, \"output\": {\"dist\": \"deterministic\", "
    "\"tokens\": 20}}, \"sla\": {\"ttft_p99_ms\": 500, \"tpot_p99_ms\": 30}}],"
    "\"strategies\": [{\"name\": \"zqStrA\", \"kind\": \"exclusive\"},"
    "{\"name\": \"zqStrB\", \"kind\": \"timeslice\", \"slice_ms\": 2, \"assign\": {\"zqTenA\": 0, "
    "\"zqTenB\": 0}},"
    "{\"name\": \"zqStrC\", \"kind\": \"mig\", \"layouts\": [[{\"profile\": \"1g.10gb\", "
    "\"tenants\": [\"zqTenA\"]}, {\"profile\": \"4g.40gb\", \"tenants\": [\"zqTenB\"]}], []]}],"
    "\"plan\": {\"max_gpus\": 2}}";

struct inputs {
    char *scen, *r1, *r2, *cdf, *p1, *p2, *plan, *ref[4];
};
static struct inputs in;
static int have_inputs;

static char *slurp_tmp(const char *name)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", tu_tmpdir(), name);
    return tu_slurp(p);
}

static int make_inputs(void)
{
    if (have_inputs)
        return have_inputs > 0;
    have_inputs = -1;
    const char *t = tu_tmpdir();
    char *sc = tu_write("esc-scen.json", scenario_text);
    char cmd[4][2048], err[4096];
    snprintf(cmd[0], sizeof cmd[0],
             "run '%s' --quiet --json '%s/esc-1.json' --cdf '%s/esc-cdf.csv'", sc, t, t);
    snprintf(cmd[1], sizeof cmd[1], "run '%s' --quiet --scale-load 2 --json '%s/esc-2.json'", sc,
             t);
    snprintf(cmd[2], sizeof cmd[2], "plan --no-headroom '%s' --quiet --json '%s/esc-planr.json'",
             sc, t);
    snprintf(cmd[3], sizeof cmd[3],
             "sweep '%s' --set strategies.1.name=zqCvA,zqCvB --out '%s/esc-sw' --quiet", sc, t);
    for (int k = 0; k < 4; k++)
        if (tu_cli(cmd[k], NULL, 0, err, sizeof err)) {
            fprintf(stderr, "\n  %s: %s\n", cmd[k], err);
            return 0;
        }
    in.scen = ss_xstrdup(scenario_text);
    in.r1 = slurp_tmp("esc-1.json");
    in.r2 = slurp_tmp("esc-2.json");
    in.cdf = slurp_tmp("esc-cdf.csv");
    in.plan = slurp_tmp("esc-planr.json");
    in.p1 = slurp_tmp("esc-sw/points/p0000.json");
    in.p2 = slurp_tmp("esc-sw/points/p0001.json");
    if (!in.r1 || !in.r2 || !in.cdf || !in.plan || !in.p1 || !in.p2)
        return 0;
    have_inputs = 1;
    return 1;
}

static char *subst(const char *text, char names[T_N][400], int json)
{
    char *cur = ss_xstrdup(text);
    for (int k = 0; k < T_N; k++) {
        char *next = replace(cur, tokens[k], names[k], json);
        free(cur);
        cur = next;
    }
    return cur;
}

static cJSON *parse(const char *text)
{
    cJSON *d = cJSON_Parse(text);
    CU_ASSERT_PTR_NOT_NULL(d);
    return d;
}

/* The scenario with its names replaced in place (the loader would refuse some of them: the
 * writer must not rely on the loader). */
static void put_name(char *dst, size_t n, const char *s)
{
    size_t len = strlen(s) < n - 1 ? strlen(s) : n - 1;
    memcpy(dst, s, len);
    dst[len] = 0;
}

static void rename_scenario(struct scenario *sc, char names[T_N][400])
{
    free(sc->name_hash); /* built from the loaded names: look them up one by one instead */
    sc->name_hash = NULL;
    put_name(sc->name, sizeof sc->name, names[T_SCEN]);
    put_name(sc->tenants[0].name, sizeof sc->tenants[0].name, names[T_TEN_A]);
    put_name(sc->tenants[1].name, sizeof sc->tenants[1].name, names[T_TEN_B]);
    put_name(sc->strategies[0].name, sizeof sc->strategies[0].name, names[T_STR_A]);
    put_name(sc->strategies[1].name, sizeof sc->strategies[1].name, names[T_STR_B]);
    put_name(sc->strategies[2].name, sizeof sc->strategies[2].name, names[T_STR_C]);
    put_name(sc->gpu.name, sizeof sc->gpu.name, names[T_GPU]);
    for (int k = 0; k < sc->gpu.n_mig; k++)
        if (strcmp(sc->gpu.mig[k].name, tokens[T_MIG_A]) == 0)
            put_name(sc->gpu.mig[k].name, sizeof sc->gpu.mig[k].name, names[T_MIG_A]);
}

#define N_PAGES 4
static const char *const page_names[N_PAGES] = {"report html (load sweep, CDF, LLM, MIG)",
                                                "sweep page", "report html (one result)",
                                                "plan --html"};

/* Every page of one set of names, as text (caller frees). */
static void pages(char names[T_N][400], char *out[N_PAGES])
{
    struct scenario sc;
    tu_load_text(scenario_text, &sc);
    rename_scenario(&sc, names);
    char *r1 = subst(in.r1, names, 1), *r2 = subst(in.r2, names, 1);
    char *p1 = subst(in.p1, names, 1), *p2 = subst(in.p2, names, 1);
    char *plan = subst(in.plan, names, 1), *cdf = subst(in.cdf, names, 0);
    char *cdf_path = tu_write("esc-cdf-h.csv", cdf);
    cJSON *docs[2] = {parse(r1), parse(r2)}, *pts[2] = {parse(p1), parse(p2)};
    cJSON *pd = parse(plan);
    for (int k = 0; k < N_PAGES; k++) {
        size_t len = 0;
        out[k] = NULL;
        FILE *fp = open_memstream(&out[k], &len);
        char err[1024] = "";
        int rc = -1;
        if (k == 0) {
            struct ht_study st = {.id = "esc",
                                  .sc = &sc,
                                  .docs = docs,
                                  .n_docs = 2,
                                  .cdf_path = cdf_path,
                                  .command = names[T_SCEN],
                                  .requests = names[T_TEN_A],
                                  .question = NULL};
            rc = docs[0] && docs[1] ? ht_study_page(fp, &st, err, sizeof err) : -1;
        } else if (k == 1) {
            struct ht_study st = {.id = "sweep", .sc = &sc, .docs = pts, .n_docs = 2};
            rc = pts[0] && pts[1] ? ht_study_page(fp, &st, err, sizeof err) : -1;
        } else if (k == 2) {
            struct ht_study st = {.id = "one",
                                  .sc = NULL,
                                  .docs = docs,
                                  .n_docs = 1,
                                  .cdf_path = cdf_path,
                                  .title = names[T_CV_A]};
            rc = docs[0] ? ht_study_page(fp, &st, err, sizeof err) : -1;
        } else {
            rc = pd ? ht_plan_page(fp, &sc, pd, err, sizeof err) : -1;
        }
        fclose(fp);
        if (rc) {
            fprintf(stderr, "\n  %s: %s\n", page_names[k], err);
            free(out[k]);
            out[k] = NULL;
        }
        CU_ASSERT_EQUAL(rc, 0);
    }
    cJSON_Delete(docs[0]);
    cJSON_Delete(docs[1]);
    cJSON_Delete(pts[0]);
    cJSON_Delete(pts[1]);
    cJSON_Delete(pd);
    free(r1);
    free(r2);
    free(p1);
    free(p2);
    free(plan);
    free(cdf);
    scn_free(&sc);
}

static int same_names(const struct names *a, const struct names *b, const char *what,
                      const char *name)
{
    int same = a->n == b->n;
    for (int k = 0; same && k < a->n; k++)
        same = strcmp(a->v[k], b->v[k]) == 0;
    if (!same) {
        fprintf(stderr, "\n  %s with name \"%s\": elements/attributes differ:", what, name);
        for (int k = 0; k < b->n; k++) {
            int found = 0;
            for (int q = 0; q < a->n && !found; q++)
                found = strcmp(a->v[q], b->v[k]) == 0;
            if (!found)
                fprintf(stderr, " +%s", b->v[k]);
        }
        for (int k = 0; k < a->n; k++) {
            int found = 0;
            for (int q = 0; q < b->n && !found; q++)
                found = strcmp(b->v[q], a->v[k]) == 0;
            if (!found)
                fprintf(stderr, " -%s", a->v[k]);
        }
        fprintf(stderr, "\n");
    }
    return same;
}

static void test_property(void)
{
    if (!make_inputs()) {
        CU_FAIL("could not make the inputs");
        return;
    }
    static char names[T_N][400];
    for (int k = 0; k < T_N; k++)
        snprintf(names[k], sizeof names[k], "%s", tokens[k]);
    /* a GPU no profile has, as every hostile one: the page without a scenario then shows
     * no MIG grid in either case */
    snprintf(names[T_GPU], sizeof names[T_GPU], "zqGpu");
    char *base[N_PAGES];
    struct names want[N_PAGES];
    pages(names, base);
    for (int k = 0; k < N_PAGES; k++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(base[k]);
        tokenize(base[k], &want[k]);
        CU_ASSERT(want[k].n > 10);
        CU_ASSERT_FALSE(has_script(base[k]));
    }
    rng_state = 0x5eed2031u; /* fixed: the same names every run */
    int rounds = tu_under_valgrind() ? 3 : 24, bad = 0;
    for (int r = 0; r < rounds && bad < 3; r++) {
        for (int k = 0; k < T_N; k++)
            hostile(names[k], token_max[k], k);
        if (r == rounds - 1) /* a long one where nothing bounds it: the result's "gpu" */
            for (size_t len = strlen(names[T_GPU]); len < 300; len = strlen(names[T_GPU]))
                snprintf(names[T_GPU] + len, sizeof names[T_GPU] - len, "%s",
                         pieces[rnd() % (sizeof pieces / sizeof pieces[0])]);
        char *got[N_PAGES];
        pages(names, got);
        for (int k = 0; k < N_PAGES; k++) {
            if (!got[k]) {
                bad++;
                continue;
            }
            struct names have;
            tokenize(got[k], &have);
            int ok = same_names(&want[k], &have, page_names[k], names[T_STR_A]);
            if (!ok && getenv("HTML_ESCAPE_DUMP")) { /* both pages, to compare by hand */
                char path[600];
                for (int q = 0; q < 2; q++) {
                    snprintf(path, sizeof path, "%s/%s.html", getenv("HTML_ESCAPE_DUMP"),
                             q ? "got" : "want");
                    FILE *f = fopen(path, "w");
                    if (f) {
                        fputs(q ? got[k] : base[k], f);
                        fclose(f);
                    }
                }
            }
            ok &= !has_script(got[k]);
            CU_ASSERT(ok);
            bad += !ok;
            names_free(&have);
            free(got[k]);
        }
    }
    for (int k = 0; k < N_PAGES; k++) {
        names_free(&want[k]);
        free(base[k]);
    }
}

/* The rule that makes the property hold: only the writer (report/hw.c) writes to a stream.
 * Page files reach the page through its calls; a format or literal of markup can only be a
 * string literal (HW_MARK, HW_MARKF), and every string argument of a format is escaped. */
static void test_by_construction(void)
{
    static const char *const files[] = {
        "html.c",  "htdata.c",  "htllm.c",   "htmig.c",     "htplan.c",
        "htref.c", "htstudy.c", "htsweep.c", "htverdict.c", "svg.c",
    };
    /* stdio output, and a stream in memory (only the writer makes one: hw_mem_open) */
    static const char *const banned[] = {"fprintf",        "fputs",      "fputc",  "putc(",
                                         "fwrite",         "printf(",    "puts(",  "hw_trusted_",
                                         "open_memstream", "svg_esc(fp", "ht_esc("};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char p[700];
        snprintf(p, sizeof p, "%s/sim/report/%s", tu_root(), files[k]);
        char *src = tu_slurp(p);
        CU_ASSERT_PTR_NOT_NULL_FATAL(src);
        for (size_t b = 0; b < sizeof banned / sizeof banned[0]; b++) {
            int n = 0;
            for (const char *q = src; (q = strstr(q, banned[b])); q++) {
                if ((strcmp(banned[b], "printf(") == 0 || strcmp(banned[b], "puts(") == 0) &&
                    q > src && isalnum((unsigned char)q[-1]))
                    continue; /* snprintf into a buffer; fputs is counted on its own */
                n++;
            }
            if (n)
                fprintf(stderr, "\n  sim/report/%s: %d use(s) of %s\n", files[k], n, banned[b]);
            CU_ASSERT_EQUAL(n, 0);
        }
        free(src);
    }
}

void test_html_escape_register(void)
{
    static const struct tu_test t[] = {
        {"a swept string value in sweep.html is escaped", test_sweep_value},
        {"a result's gpu field in report html is escaped", test_result_gpu},
        {"a GPU profile's name in plan --html is escaped", test_plan_profile_name},
        {"the test's HTML tokenizer", test_tokenizer},
        {"random hostile names: no element or attribute from data", test_property},
        {"page files write only through the HTML writer", test_by_construction},
        {NULL, NULL},
    };
    tu_add_suite("html_escape", t);
}
