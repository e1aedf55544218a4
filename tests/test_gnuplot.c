/*
 * report/gnuplot.c and `sharesim report gnuplot`: the script of a small figure states its
 * panels, log axes, SLA line, marks and legend; strings from the results are single-quoted
 * so that a name holding " ` ; ' or @ runs nothing; and every script of a page renders (with
 * gnuplot, when installed: `make test` installs gnuplot-nox) a PNG of the size it states and
 * a non-empty PDF.
 */
#include "base/util.h"
#include "report/gnuplot.h"
#include "report/svg.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIX "tests/fixtures/html/two-tenants.json"

static int have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static char *quoted(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    gp_quote(fp, s);
    fclose(fp);
    return buf;
}

static void test_quote(void)
{
    struct {
        const char *in, *out;
    } cases[] = {
        {"chat", "'chat'"},
        {"it's", "'it''s'"},
        {"a\"b`touch x`;c @m \\n", "'a\"b`touch x`;c @m \\n'"},
        {"two\nlines\t", "'two lines '"},
        {"", "''"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *q = quoted(cases[k].in);
        CU_ASSERT_STRING_EQUAL(q, cases[k].out);
        free(q);
    }
}

/* The width and height of a PNG file (its IHDR chunk), or -1. */
static int png_size(const char *path, int *w, int *h)
{
    unsigned char b[24];
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    size_t n = fread(b, 1, sizeof b, fp);
    fclose(fp);
    if (n != sizeof b || memcmp(b, "\x89PNG\r\n\x1a\n", 8) || memcmp(b + 12, "IHDR", 4))
        return -1;
    *w = (int)((unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19]);
    *h = (int)((unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23]);
    return 0;
}

static long file_size(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fclose(fp);
    return n;
}

/* Renders dir/name.gp from another directory and checks the PNG (the size the script
 * states) and the PDF. Returns 0 when both are right. */
static int render(const char *dir, const char *name)
{
    char cmd[2048], path[1024], err[64] = "";
    snprintf(cmd, sizeof cmd, "cd / && gnuplot '%s/%s.gp' 2>&1", dir, name);
    FILE *p = popen(cmd, "r");
    char out[4096];
    size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = 0;
    int rc = p ? pclose(p) : -1;
    if (rc != 0 || n > 0) /* gnuplot says nothing when a script is right */
        fprintf(stderr, "\n  gnuplot %s/%s.gp (exit %d): %s\n", dir, name, rc, out);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(n, 0);
    snprintf(path, sizeof path, "%s/%s.gp", dir, name);
    char *gp = tu_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(gp);
    const char *at = strstr(gp, "pngcairo size ");
    int sw = 0, sh = 0, w = 0, h = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    CU_ASSERT_EQUAL(sscanf(at, "pngcairo size %d,%d", &sw, &sh), 2);
    free(gp);
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    CU_ASSERT(file_size(path) > 1000);
    CU_ASSERT_EQUAL(png_size(path, &w, &h), 0);
    CU_ASSERT_EQUAL(w, sw);
    CU_ASSERT_EQUAL(h, sh);
    snprintf(path, sizeof path, "%s/%s.pdf", dir, name);
    CU_ASSERT(file_size(path) > 1000);
    (void)err;
    return rc == 0 && w == sw && h == sh ? 0 : -1;
}

static const char *const hostile = "c\"h`touch PWNED-a`;'q @m; system(\"touch PWNED-b\")";

/* A figure of two panels (linear, log) with an SLA, a mark, a category-free legend. */
static void tiny_figure(struct svg_figure *f)
{
    static const double x[4] = {0.5, 1, 1.5, 2}, y[4] = {3, 5, 12, 80};
    static const unsigned char hollow[4] = {0, 0, 1, 1};
    svg_fig_init(f, "tiny", "A tiny figure: p99 against load", 2, 300, 220);
    struct svg_panel *p = svg_fig_panel(f);
    snprintf(p->title, sizeof p->title, "%s", hostile);
    snprintf(p->xlabel, sizeof p->xlabel, "load (×)");
    snprintf(p->ylabel, sizeof p->ylabel, "p99 (ms)");
    p->latency = 1;
    svg_add(p, hostile, 0, 4, x, y, hollow);
    svg_add(p, "it's fine", 1, 4, x, x, NULL);
    svg_ref(p, 0, 20, SVG_REF_SLA, "SLA: p99 within %g ms", 20.0);
    svg_mark(p, 1.2, 20, 0, "1.2×");
    struct svg_panel *q = svg_fig_panel(f);
    snprintf(q->title, sizeof q->title, "log panel");
    q->ya = SVG_LOG;
    q->ymax = 50; /* one point above */
    svg_add(q, "it's fine", 1, 4, x, y, NULL);
    svg_fig_legend(f, hostile, 0, 0);
    svg_fig_legend(f, "it's fine", 1, 0);
}

static void test_tiny_script(void)
{
    struct svg_figure f;
    char err[SS_ERRLEN], dir[1024];
    tiny_figure(&f);
    snprintf(dir, sizeof dir, "%s/gp-tiny", tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(ss_mkdirs(dir, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(gp_write_figure(dir, "tiny", &f, "a test", err, sizeof err), 0);
    int W, H;
    gp_size(&f, &W, &H);
    svg_fig_free(&f);
    char *gp = tu_slurp_in(dir, "tiny.gp"), *dat = tu_slurp_in(dir, "tiny.dat"), want[256];
    snprintf(want, sizeof want, "set terminal pngcairo size %d,%d ", W, H);
    TU_CHECK_CONTAINS(gp, want);
    CU_ASSERT_EQUAL(W, 600);
    TU_CHECK_CONTAINS(gp, "set terminal pdfcairo size ");
    TU_CHECK_CONTAINS(gp, "set multiplot\n");
    TU_CHECK_CONTAINS(gp, "noenhanced");
    TU_CHECK_CONTAINS(gp, "set logscale y\n");
    /* the SLA: a black line at 20 with its words */
    TU_CHECK_CONTAINS(gp, "set arrow from graph 0, first 20 to graph 1, first 20 nohead lt 101");
    TU_CHECK_CONTAINS(gp, "set label 'SLA: p99 within 20 ms' at graph 0.02, first 20");
    TU_CHECK_CONTAINS(gp, "set label '1.2×' at first 1.2, first 20 point");
    TU_CHECK_CONTAINS(gp, "set label '1 point above 50'");
    /* legend entries and titles quoted; the hostile name only inside single quotes */
    TU_CHECK_CONTAINS(gp, "title 'it''s fine'");
    TU_CHECK_CONTAINS(gp, "title 'c\"h`touch PWNED-a`;''q @m; system(\"touch PWNED-b\")'");
    TU_CHECK_CONTAINS(gp, "set title 'c\"h`touch PWNED-a`;''q @m; system(\"touch PWNED-b\")'");
    CU_ASSERT_EQUAL(strstr(gp, "\"touch") - strstr(gp, "\"touch"), 0);
    for (const char *s = gp; (s = strstr(s, "touch PWNED")); s++) {
        /* each occurrence is inside a single-quoted string: an odd number of ' before it on
         * its line */
        const char *bol = s;
        while (bol > gp && bol[-1] != '\n')
            bol--;
        while (*bol == ' ')
            bol++;
        if (*bol == '#') /* a comment (gnuplot substitutes nothing there) */
            continue;
        int quotes = 0;
        for (const char *c = bol; c < s; c++)
            quotes += *c == '\'';
        CU_ASSERT_EQUAL(quotes % 2, 1);
    }
    /* three series, three data blocks; the hollow column */
    TU_CHECK_CONTAINS(dat, "# index 2: panel 2 log panel, series it's fine\n");
    TU_CHECK_CONTAINS(dat, "1.5 12 1\n");
    TU_CHECK_CONTAINS(gp, "data index 2 using 1:2 with lines lt 2 notitle");
    free(gp);
    free(dat);
    if (!have_gnuplot()) {
        printf("(render skipped: gnuplot is not installed; `make test` installs gnuplot-nox) ");
        return;
    }
    CU_ASSERT_EQUAL(render(dir, "tiny"), 0);
    /* nothing ran: neither in the script's folder nor where gnuplot was started */
    char path[1100];
    snprintf(path, sizeof path, "%s/PWNED-a", dir);
    CU_ASSERT_FALSE(tu_exists(path));
    CU_ASSERT_FALSE(tu_exists("/PWNED-a"));
    CU_ASSERT_FALSE(tu_exists("/PWNED-b"));
}

/* Every figure of a sweep's page, from the CLI, with a hostile tenant and strategy name. */
static void test_page_figures(void)
{
    const char *t = tu_tmpdir();
    char *scn = tu_fixture_write(
        "gp-hostile.json", "html/two-tenants.json",
        "{\"tenants.0.name\": \"c`touch PWNED-c`;'q @m $x\", \"strategies.1.name\": "
        "\"t;s`touch PWNED-d`'\", \"strategies.1.assign\": {\"c`touch PWNED-c`;'q @m $x\": "
        "0, \"embed\": 0}, \"strategies.2.assign\": {\"c`touch PWNED-c`;'q @m $x\": 0, "
        "\"embed\": 0}, \"strategies.3.assign\": {\"c`touch PWNED-c`;'q @m $x\": 0, "
        "\"embed\": 0}, \"stop.requests\": 1500}");
    char cmd[4096], files[2048] = "", out[4096], err[2048];
    static const char *const scales[] = {"1", "0.5", "2"};
    for (int k = 0; k < 3; k++) {
        char cdf[700] = "";
        if (k == 0)
            snprintf(cdf, sizeof cdf, " --cdf '%s/gp-cdf.csv'", t);
        snprintf(cmd, sizeof cmd, "run '%s' --quiet --scale-load %s --json '%s/gp-%s.json'%s", scn,
                 scales[k], t, scales[k], cdf);
        int rc = tu_cli(cmd, NULL, 0, err, sizeof err);
        if (rc)
            fprintf(stderr, "\n  %s\n", err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        size_t len = strlen(files);
        snprintf(files + len, sizeof files - len, " '%s/gp-%s.json'", t, scales[k]);
    }
    snprintf(cmd, sizeof cmd,
             "report gnuplot%s --scenario '%s' --cdf '%s/gp-cdf.csv' --plot p99_ms,cost --out "
             "'%s/gp-page'",
             files, scn, t, t);
    int rc = tu_cli(cmd, out, sizeof out, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    /* the same figures as the page: the distributions, then p99 and cost against load */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/gp-page", t);
    int n = 0;
    char names[16][128];
    for (char *line = strtok(out, "\n"); line && n < 16; line = strtok(NULL, "\n")) {
        const char *slash = strrchr(line, '/');
        CU_ASSERT_PTR_NOT_NULL_FATAL(slash);
        CU_ASSERT(ss_ends_with(line, ".gp"));
        snprintf(names[n], sizeof names[n], "%.*s", (int)(strlen(slash + 1) - 3), slash + 1);
        n++;
    }
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_STRING_EQUAL(names[0], "cdf");
    CU_ASSERT_STRING_EQUAL(names[1], "p99-vs-load");
    CU_ASSERT_STRING_EQUAL(names[2], "cost-vs-load");
    char *gp = tu_slurp_in(dir, "p99-vs-load.gp");
    TU_CHECK_CONTAINS(gp, "lt 101"); /* the SLA lines */
    TU_CHECK_CONTAINS(gp, "'c`touch PWNED-c`;''q @m $x");
    free(gp);
    if (!have_gnuplot()) {
        printf("(render skipped: gnuplot is not installed; `make test` installs gnuplot-nox) ");
        return;
    }
    for (int k = 0; k < n; k++)
        CU_ASSERT_EQUAL(render(dir, names[k]), 0);
    char path[1200];
    snprintf(path, sizeof path, "%s/PWNED-c", dir);
    CU_ASSERT_FALSE(tu_exists(path));
    CU_ASSERT_FALSE(tu_exists("/PWNED-c"));
    CU_ASSERT_FALSE(tu_exists("/PWNED-d"));
}

/* The MIG slice grids are drawn, not plotted: `report gnuplot` writes them as a canvas script
 * (rectangles and labels at the page's pixels) that renders like the figures, names quoted. */
static void test_mig_layouts(void)
{
    const char *t = tu_tmpdir();
    static const char *const evil = "c`touch PWNED-m`;'q @m $x";
    char *scn = tu_fixture_write(
        "gp-mig.json", "golden/mig.json",
        "{\"tenants.0.name\": \"%s\", \"strategies.0.layout.0.tenants\": [\"%s\"], "
        "\"strategies.1.layout.0.tenants\": [\"%s\", \"batch\"], "
        "\"strategies.2.layout.0.tenants\": [\"%s\", \"embed\", \"batch\"], \"replications\": "
        "1, \"stop\": {\"duration_s\": 4}, \"warmup\": {\"duration_s\": 0.5}}",
        evil, evil, evil, evil);
    char cmd[4096], out[4096], err[2048];
    snprintf(cmd, sizeof cmd, "run '%s' --quiet --json '%s/gp-mig-r.json'", scn, t);
    int rc = tu_cli(cmd, NULL, 0, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    snprintf(cmd, sizeof cmd, "report gnuplot '%s/gp-mig-r.json' --scenario '%s' --out '%s/gp-mig'",
             t, scn, t);
    rc = tu_cli(cmd, out, sizeof out, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    TU_CHECK_CONTAINS(out, "/gp-mig/mig-occupancy.gp");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/gp-mig", t);
    char *gp = tu_slurp_in(dir, "mig-occupancy.gp");
    CU_ASSERT_PTR_NOT_NULL_FATAL(gp);
    /* one instance rectangle per row of each instance, and its labels; the name quoted */
    TU_CHECK_CONTAINS(gp, " rect from ");
    TU_CHECK_CONTAINS(gp, "'3g.40gb'");
    TU_CHECK_CONTAINS(gp, "'c`touch PWNED-m`;''q @m $x'");
    TU_CHECK_CONTAINS(gp, "'mig-alone · GPU 0'");
    free(gp);
    if (!have_gnuplot()) {
        printf("(render skipped: gnuplot is not installed; `make test` installs gnuplot-nox) ");
        return;
    }
    CU_ASSERT_EQUAL(render(dir, "mig-occupancy"), 0);
    char path[1200];
    snprintf(path, sizeof path, "%s/PWNED-m", dir);
    CU_ASSERT_FALSE(tu_exists(path));
    CU_ASSERT_FALSE(tu_exists("/PWNED-m"));
}

static void test_bad_input(void)
{
    char err[2048];
    const char *t = tu_tmpdir();
    char cmd[2048];
    /* --out is required */
    snprintf(cmd, sizeof cmd, "report gnuplot '%s'", FIX);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "--out DIR is required");
    /* a result whose page has no figure */
    snprintf(cmd, sizeof cmd, "run " FIX " --quiet --json '%s/gp-one.json'", t);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    snprintf(cmd, sizeof cmd, "report gnuplot '%s/gp-one.json' --out '%s/gp-none'", t, t);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "has no figure");
    /* the output folder holds the input */
    snprintf(cmd, sizeof cmd, "report gnuplot '%s/gp-one.json' --out '%s' --cdf x.csv", t, t);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, err, sizeof err), 2);
}

void test_gnuplot_register(void)
{
    static const struct tu_test t[] = {
        {"gp_quote: single quotes, '' inside, control characters as spaces", test_quote},
        {"a tiny figure: panels, log axis, SLA, mark, off-scale count, hostile names",
         test_tiny_script},
        {"report gnuplot: every figure of a sweep's page renders (PNG size, PDF)",
         test_page_figures},
        {"report gnuplot: the MIG layouts drawn as a canvas (rectangles, labels), rendered",
         test_mig_layouts},
        {"report gnuplot: --out required, a page without figures, bad input", test_bad_input},
        {NULL, NULL},
    };
    tu_add_suite("gnuplot", t);
}
