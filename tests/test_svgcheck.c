/*
 * tools/svgcheck.c and base/cover.c on hostile pages: the hidden-curve test does work
 * bounded by points, not by the segments' lengths in pixels (asserted on the work counter,
 * not on time), and agrees with walking every pixel where walking is affordable; a page cut
 * inside a figure, non-finite or malformed points, and every limit of svgcheck.h are refused
 * with the line, figure, panel and curve; deep nesting, unclosed tags, enormous attributes and
 * NUL bytes neither crash nor hang the reader.
 */
#include "report/hw.h"
#include "report/svg.h"
#include "tools/svgcheck.h"
#include "testutil.h"

#include <dirent.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing string (test pages). */
struct sb {
    char *s;
    size_t n, cap;
};

static void sb_add(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->n + (size_t)need + 1 > b->cap) {
        b->cap = 2 * (b->n + (size_t)need + 1);
        b->s = realloc(b->s, b->cap);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

#define HEAD                                                                                       \
    "<svg class=\"figure\" id=\"fig-t\"><g class=\"panel\" data-latency=\"0\" data-title=\"p\">"
#define TAIL "</g></svg>\n"

/* The page of one panel holding the given polylines' points. */
static char *panel_page(int n, const char *const *points)
{
    struct sb b = {0};
    sb_add(&b, HEAD);
    for (int k = 0; k < n; k++)
        sb_add(&b, "<polyline class=\"series\" data-label=\"c%d\" points=\"%s\"/>", k, points[k]);
    sb_add(&b, TAIL);
    return b.s;
}

/* 280 short segments far from the long curve: each is a later segment every sample of it
 * must be tested against. */
static char *far_points(void)
{
    struct sb b = {0};
    for (int k = 0; k < 280; k++)
        sb_add(&b, "%s%d.5,900.5", k ? " " : "", k);
    return b.s;
}

/* A 3.5 KB page whose hidden curve is one 900,000-pixel segment: walking its pixels against
 * the 281 later segments is 2.5·10^8 distance tests (seconds; 10^7 pixels took 7 s before). */
static void test_long_segment_bounded(void)
{
    char *far = far_points();
    const char *pts[3] = {"0,0 900000,0", far, "0,0 900000,0"};
    char *page = panel_page(3, pts);
    CU_ASSERT(strlen(page) < 4096);
    struct svc_report r;
    CU_ASSERT_EQUAL(svc_check_text(page, &r), 1);
    CU_ASSERT_EQUAL(r.hidden, 1);
    TU_CHECK_CONTAINS(r.first, "the curve \"c0\" is hidden");
    CU_ASSERT_EQUAL(r.points, 284);
    CU_ASSERT_EQUAL(r.pairs, 2 * 282 + 280 * 2);
    CU_ASSERT(r.work <= 2 * r.pairs);
    free(page);
    /* a gap of 4 px in the covering curve, 400,000 px along: a sample is 2 px from both ends */
    const char *gap[3] = {"0,0 900000,0", far,
                          "0,0 400000,0 400000,50 400004,50 400004,0 900000,0"};
    page = panel_page(3, gap);
    CU_ASSERT_EQUAL(svc_check_text(page, &r), 0);
    CU_ASSERT(r.work <= 2 * r.pairs);
    free(page);
    /* a 3 px gap is not one: the samples at 400001 and 400002 are each 1 px from an end */
    const char *small[3] = {"0,0 900000,0", far,
                            "0,0 400000,0 400000,50 400003,50 400003,0 900000,0"};
    page = panel_page(3, small);
    CU_ASSERT_EQUAL(svc_check_text(page, &r), 1);
    free(page);
    free(far);
}

/* The work of cov_covered does not grow with the segment's length; lengths past exact
 * integers in a double (and non-finite ones, which svg.c could pass) end, uncovered. */
static void test_work_independent_of_length(void)
{
    static const double len[] = {10, 1e4, 1e6, 1e9, 1e12};
    long long first = -1;
    for (size_t i = 0; i < sizeof len / sizeof len[0]; i++) {
        double ax[2] = {0, len[i]}, ay[2] = {0, 0}, bx[3] = {0, len[i] / 2, len[i]},
               by[3] = {0.5, 0.5, 0.5};
        struct cov_line a = {2, ax, ay, 0}, b = {3, bx, by, 0};
        long long work = 0;
        CU_ASSERT_EQUAL(cov_covered_work(&a, &b, 1, 1.0, &work), 1);
        CU_ASSERT(work <= 2 * 2 * 3);
        if (first < 0)
            first = work;
        CU_ASSERT_EQUAL(work, first);
    }
    static const double bad[] = {1e300, INFINITY, NAN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double ax[2] = {0, bad[i]}, ay[2] = {0, 0}, bx[2] = {0, bad[i]}, by[2] = {0, 0};
        struct cov_line a = {2, ax, ay, 0}, b = {2, bx, by, 0};
        long long work = 0;
        CU_ASSERT_EQUAL(cov_covered_work(&a, &b, 1, 1.0, &work), 0);
        CU_ASSERT(work <= 2 * 2 * 2);
    }
}

/* The old checker, walking every pixel: the reference for short segments. */
static double ref_dist2(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double qx = ax + t * dx - px, qy = ay + t * dy - py;
    return qx * qx + qy * qy;
}

static int ref_near(double px, double py, const struct cov_line *by, int n_by, double tol2)
{
    for (int l = 0; l < n_by; l++) {
        const struct cov_line *b = &by[l];
        for (int k = 0; k < b->n; k++) {
            if (b->n == 1 || b->points_only) {
                double dx = b->x[k] - px, dy = b->y[k] - py;
                if (dx * dx + dy * dy <= tol2)
                    return 1;
            } else if (k + 1 < b->n &&
                       ref_dist2(px, py, b->x[k], b->y[k], b->x[k + 1], b->y[k + 1]) <= tol2) {
                return 1;
            }
        }
    }
    return 0;
}

static int ref_covered(const struct cov_line *a, const struct cov_line *by, int n_by, double tol)
{
    double tol2 = tol * tol + 1e-9;
    if (a->n == 0 || n_by == 0)
        return 0;
    for (int k = 0; k < a->n; k++) {
        if (!ref_near(a->x[k], a->y[k], by, n_by, tol2))
            return 0;
        if (a->points_only || k + 1 == a->n)
            continue;
        double dx = a->x[k + 1] - a->x[k], dy = a->y[k + 1] - a->y[k];
        int steps = (int)ceil(sqrt(dx * dx + dy * dy));
        for (int s = 1; s < steps; s++) {
            double t = (double)s / steps;
            if (!ref_near(a->x[k] + t * dx, a->y[k] + t * dy, by, n_by, tol2))
                return 0;
        }
    }
    return 1;
}

static unsigned long long rnd(unsigned long long *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return *st >> 33;
}

/* Random curves on svg.c's 0.1-pixel grid, most of them near each other so that both answers
 * occur: the closed form gives the pixel walk's verdict every time. */
static void test_same_verdict_as_pixel_walk(void)
{
    unsigned long long st = 0x9E3779B97F4A7C15ull;
#define RND() rnd(&st)
    int agree = 0, covered = 0, trials = 20000;
    double x[5][8], y[5][8];
    for (int t = 0; t < trials; t++) {
        struct cov_line l[5];
        int n_lines = 2 + (int)(RND() % 4);
        for (int i = 0; i < n_lines; i++) {
            int n = 1 + (int)(RND() % 6);
            for (int k = 0; k < n; k++) {
                double base = (double)k * (double)(RND() % 200) / 10;
                x[i][k] = base + (double)(RND() % 21) / 10;
                y[i][k] = (double)(RND() % 31) / 10 + (i && RND() % 2 ? 0.5 : 0);
            }
            l[i] = (struct cov_line){n, x[i], y[i], RND() % 7 == 0};
        }
        /* a later line copying the first one shifted by up to 1.2 px makes covering likely */
        for (int k = 0; k < l[0].n && RND() % 2; k++) {
            x[1][k] = x[0][k] + (double)(RND() % 13) / 10 - 0.6;
            y[1][k] = y[0][k] + (double)(RND() % 13) / 10 - 0.6;
            l[1].n = k + 1 > l[1].n ? k + 1 : l[1].n;
        }
        int want = ref_covered(&l[0], l + 1, n_lines - 1, 1.0);
        int got = cov_covered(&l[0], l + 1, n_lines - 1, 1.0);
        agree += want == got;
        covered += want;
        if (want != got && agree + 1 == t) {
            fprintf(stderr, "\n  trial %d: pixel walk %d, closed form %d\n", t, want, got);
        }
    }
#undef RND
    CU_ASSERT_EQUAL(agree, trials);
    CU_ASSERT(covered > trials / 20); /* both outcomes are exercised */
    CU_ASSERT(covered < trials - trials / 20);
}

/* What svgcheck refuses: the message says where (line, figure, panel, curve) and what. */
static void expect_refused(const char *page, const char *part)
{
    struct svc_report r;
    CU_ASSERT_EQUAL(svc_check_text(page, &r), -1);
    TU_CHECK_CONTAINS(r.error, part);
}

static void test_non_finite_points(void)
{
    static const char *const bad[][2] = {
        {"nan,nan 5,5", "curve \"c0\": x of point 1 is \"nan\", not a finite number"},
        {"0,0 5,NaN", "curve \"c0\": y of point 2 is \"NaN\", not a finite number"},
        {"0,0 inf,5", "x of point 2 is \"inf\", not a finite number"},
        {"0,0 -infinity,5", "x of point 2 is \"-infinity\", not a finite number"},
        {"0,0 1e999,5", "x of point 2 is \"1e999\", not a finite number"},
        {"0,0 0x10,5", "x of point 2 is \"0x10\", not a finite number"},
        {"0,0 1.5.3,5", "x of point 2 is \"1.5.3\", not a finite number"},
        {"0,0 5,5 7", "odd number of coordinates (5)"},
        {"0,0 1e300,0", "x of point 2 is 1e+300 pixels, beyond the limit of ±1e+06"},
        {"0,0 -2000000,0", "beyond the limit of ±1e+06"},
        {"0,0 1.00000000000000000000000000000000000000000000000000000000000000000001,0",
         "x of point 2 has more than 64 characters"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const char *pts[2] = {bad[k][0], "10,10 20,20"};
        char *page = panel_page(2, pts);
        expect_refused(page, bad[k][1]);
        expect_refused(page, "line 1, figure \"fig-t\", panel \"p\": ");
        free(page);
    }
    /* what SVG allows and svg.c does not write still reads: commas, signs, exponents */
    const char *ok[2] = {"+1e1,-0.5e-1, 2.,.5\n3E0 4", "10,10 20,20"};
    char *page = panel_page(2, ok);
    struct svc_report r;
    CU_ASSERT_EQUAL(svc_check_text(page, &r), 0);
    CU_ASSERT_EQUAL(r.points, 5);
    free(page);
}

/* The figure as svg.c writes it, standalone (caller frees). Not inlined: GCC takes the
 * memstream's buffer for a dangling local otherwise. */
static __attribute__((noinline)) char *figure_text(void)
{
    struct svg_figure f;
    svg_fig_init(&f, "cut", "a figure to cut", 2, 400, 300);
    for (int q = 0; q < 2; q++) {
        struct svg_panel *p = svg_fig_panel(&f);
        snprintf(p->title, sizeof p->title, "tenant %d", q);
        p->latency = 1;
        double x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 15, 40}, z[4] = {12, 11, 30, 5};
        svg_add(p, "a", 0, 4, x, y, NULL);
        svg_add(p, "b", 1, 4, x, z, NULL);
        svg_ref(p, 0, 30, SVG_REF_SLA, "SLA: p99 ≤ %d ms", 30);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    struct hw w;
    hw_init(&w, m);
    svg_fig_write(&w, &f, 1);
    fclose(m);
    svg_fig_free(&f);
    return buf;
}

/* Every prefix of a figure that stops before its </svg> is refused, or holds no figure at all
 * (which `report check` refuses too); nothing cut is checked in part. */
static void test_cut_figure(void)
{
    char *svg = figure_text();
    size_t len = strlen(svg), closed = (size_t)(strstr(svg, "</svg>") - svg);
    struct svc_report r;
    CU_ASSERT_EQUAL_FATAL(svc_check_text(svg, &r), 0);
    CU_ASSERT_EQUAL(r.panels, 2);
    int refused = 0, empty = 0;
    for (size_t cut = 0; cut < closed + 5; cut++) {
        int rc = svc_check_mem(svg, cut, &r);
        refused += rc == -1;
        empty += rc == 0 && r.figures == 0;
        if (!(rc == -1 || (rc == 0 && r.figures == 0)))
            fprintf(stderr, "\n  cut at %zu of %zu: rc %d, %d figures\n", cut, len, rc, r.figures);
    }
    CU_ASSERT_EQUAL(refused + empty, (int)(closed + 5));
    CU_ASSERT(refused > empty);
    /* cut inside a panel's polyline: the figure and the panel are named */
    size_t mid = (size_t)(strstr(svg, "points=\"") - svg) + 12;
    CU_ASSERT_EQUAL(svc_check_mem(svg, mid, &r), -1);
    TU_CHECK_CONTAINS(r.error, "figure \"fig-cut\", panel \"tenant 0\": the file ends inside the "
                               "value of points= of a <polyline> tag: it is cut");
    /* cut between the panels: inside the figure */
    size_t between = (size_t)(strstr(svg, "</g>") - svg) + 5;
    CU_ASSERT_EQUAL(svc_check_mem(svg, between, &r), -1);
    TU_CHECK_CONTAINS(r.error,
                      "figure \"fig-cut\": the file ends inside the figure (no </svg>): it is cut");
    free(svg);
}

/* A page of results/ cut at 400 places: each is refused (the page was checked whole first). */
static void test_cut_page(void)
{
    char *page = tu_slurp("results/timeslice-tenants.html");
    if (!page) {
        printf("(no results/timeslice-tenants.html) ");
        return;
    }
    size_t len = strlen(page);
    struct svc_report r;
    CU_ASSERT_FATAL(svc_check_text(page, &r) >= 0); /* whole, it can be checked */
    int refused = 0;
    for (int k = 1; k <= 400; k++)
        refused += svc_check_mem(page, len - 8 - (len - 8) / 400 * (size_t)(k - 1), &r) == -1;
    CU_ASSERT_EQUAL(refused, 400);
    CU_ASSERT_EQUAL(svc_check_mem(page, len - 8, &r), -1);
    TU_CHECK_CONTAINS(r.error, "the page ends before </html>: it is cut");
    free(page);
}

/* Unclosed and deeply nested tags, enormous attributes, NUL bytes, missing viewBox, negative
 * sizes: no crash, no hang, and a figure that still keeps its promises passes. */
static void test_hostile_structure(void)
{
    struct svc_report r;
    expect_refused("<svg class=\"figure\"><g class=\"panel\"><polyline class=\"series\"",
                   "the file ends inside a <polyline> tag: it is cut");
    expect_refused("<svg class=\"figure\"><g class=\"panel\" data-title=\"x",
                   "the file ends inside the value of data-title= of a <g> tag");
    expect_refused("<svg class=\"figure\"><!-- never closed", "ends inside a comment");
    expect_refused("<html><style>body{}", "the file ends inside a <style> element");
    expect_refused("<svg class=\"figure\"></g", "ends inside the closing tag </g");
    expect_refused("<svg class=\"figure\"><g class=\"panel\"><g class=\"panel\"></g></g></svg>",
                   "a panel inside a panel");
    expect_refused("<svg class=\"figure\" id=\"f\"><g class=\"panel\" data-title=\"q\"></svg>",
                   "figure \"f\", panel \"q\": the figure closes inside the panel (no </g>)");
    /* 200,000 nested groups inside a panel, then closed: depth costs nothing */
    struct sb b = {0};
    sb_add(&b, HEAD "<text>no SLA</text>");
    for (int k = 0; k < 200000; k++)
        sb_add(&b, "<g>");
    for (int k = 0; k < 200000; k++)
        sb_add(&b, "</g>");
    sb_add(&b, "<polyline class=\"series\" points=\"1,1\"/>" TAIL);
    CU_ASSERT_EQUAL(svc_check_text(b.s, &r), 0);
    CU_ASSERT_EQUAL(r.panels, 1);
    CU_ASSERT_EQUAL(r.series, 1);
    b.n = 0;
    /* the same, never closed: cut */
    sb_add(&b, HEAD);
    for (int k = 0; k < 200000; k++)
        sb_add(&b, "<g>");
    expect_refused(b.s, "the file ends inside the panel (no </g>)");
    b.n = 0;
    /* a 4 MB label and title, a control character in it, no viewBox, negative sizes */
    sb_add(&b, "<svg class=\"figure\" width=\"-5\" height=\"-1e308\"><g class=\"panel\" "
               "data-latency=\"0\" data-title=\"");
    for (int k = 0; k < 1 << 20; k++)
        sb_add(&b, "t\033x");
    sb_add(&b, "\"><polyline class=\"series\" data-label=\"l\001");
    for (int k = 0; k < 1 << 20; k++)
        sb_add(&b, "abcd");
    sb_add(&b, "\" points=\"0,0 10,0\"/><polyline class=\"series\" data-label=\"m\" "
               "points=\"0,0 10,0\"/>" TAIL);
    CU_ASSERT_EQUAL(svc_check_text(b.s, &r), 1);
    TU_CHECK_CONTAINS(r.first, "the curve \"l?abcd");
    CU_ASSERT_PTR_NULL(strchr(r.first, '\033'));
    CU_ASSERT_PTR_NULL(strchr(r.first, '\001'));
    free(b.s);
    /* a NUL byte inside the figure: read past, not taken for the end */
    static const char nul[] = HEAD "\0<polyline class=\"series\" points=\"0,0 5,0\"/>" TAIL;
    CU_ASSERT_EQUAL(svc_check_mem(nul, sizeof nul - 1, &r), 0);
    CU_ASSERT_EQUAL(r.series, 1);
}

/* Found by fuzz_pagecheck: an attribute name holding control bytes (and a NUL) reached the
 * message of a cut page as it was. */
static void test_message_controls(void)
{
    static const char page[] = "<html><svg class=\"swatch\" view\013\0\0\0Box=\"0 0 34";
    struct svc_report r;
    CU_ASSERT_EQUAL(svc_check_mem(page, sizeof page - 1, &r), -1);
    TU_CHECK_CONTAINS(r.error, "the file ends inside the value of view????Box= of a <svg> tag");
    for (const char *c = r.error; *c; c++)
        CU_ASSERT((unsigned char)*c >= 0x20 && *c != 0x7f);
}

/* Every input of tests/fuzz/corpus/fuzz_pagecheck/ (seeds and past findings): valid_* are
 * checked (0 or more promises broken), bad_* are refused with a reason, the rest (crash-*) do
 * not crash; without clang, this is fuzz-regress for the page checker. */
static void test_fuzz_corpus(void)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/fuzz_pagecheck", tu_root());
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int valid = 0, bad = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *fp = fopen(path, "rb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        char *text = malloc(1 << 20);
        size_t len = fread(text, 1, 1 << 20, fp);
        fclose(fp);
        struct svc_report r;
        int rc = svc_check_mem(text, len, &r);
        if (strncmp(e->d_name, "valid_", 6) == 0) {
            valid++;
            if (rc < 0)
                fprintf(stderr, "\n  %s: %s\n", e->d_name, r.error);
            CU_ASSERT(rc >= 0 && r.figures >= 1);
        } else if (strncmp(e->d_name, "bad_", 4) == 0) {
            bad++;
            CU_ASSERT_EQUAL(rc, -1);
            CU_ASSERT(strncmp(r.error, "line ", 5) == 0);
        }
        free(text);
    }
    closedir(d);
    CU_ASSERT(valid >= 3);
    CU_ASSERT(bad >= 3);
}

/* The limits of svgcheck.h, each with its number in the message. */
static void test_limits(void)
{
    struct svc_report r;
    struct sb b = {0};
    sb_add(&b, HEAD);
    for (int k = 0; k <= SVC_MAX_SERIES; k++)
        sb_add(&b, "<polyline class=\"series\" points=\"%d,0\"/>", k * 10);
    sb_add(&b, TAIL);
    expect_refused(b.s, "the panel has more than 256 curves");
    b.n = 0;
    sb_add(&b, HEAD "<polyline class=\"series\" points=\"");
    for (int k = 0; k <= SVC_MAX_PANEL_POINTS; k++)
        sb_add(&b, "%d,%d ", k % 1000, k / 1000);
    sb_add(&b, "\"/>" TAIL);
    expect_refused(b.s, "the panel's curves have more than 100000 points");
    b.n = 0;
    /* 5,000 points over 5,000 later ones: 2.5·10^7 comparisons, over the limit of 10^7 */
    sb_add(&b, HEAD);
    for (int c = 0; c < 2; c++) {
        sb_add(&b, "<polyline class=\"series\" points=\"");
        for (int k = 0; k < 5000; k++)
            sb_add(&b, "%d,%d ", k % 100, c);
        sb_add(&b, "\"/>");
    }
    sb_add(&b, TAIL);
    expect_refused(b.s, "need 25000000 point comparisons so far");
    expect_refused(b.s, "more than the limit of 10000000");
    /* under the limit, the panel is checked: work within twice the comparisons */
    b.n = 0;
    sb_add(&b, HEAD);
    for (int c = 0; c < 2; c++) {
        sb_add(&b, "<polyline class=\"series\" points=\"");
        for (int k = 0; k < 3000; k++)
            sb_add(&b, "%d,%d ", k % 100, c);
        sb_add(&b, "\"/>");
    }
    sb_add(&b, TAIL);
    CU_ASSERT_EQUAL(svc_check_text(b.s, &r), 1);
    CU_ASSERT_EQUAL(r.pairs, 9000000);
    CU_ASSERT(r.work <= 2 * r.pairs);
    free(b.s);
}

/* The figure defects of issue 37, each in a fixture page (tests/fixtures/svgcheck/): the checker
 * fails it on that promise alone, with a message saying which panel or figure and what. */
static void test_defect_fixtures(void)
{
    static const struct {
        const char *file, *part;
        size_t counter; /* offset of the count in svc_report */
        int n;
    } fx[] = {
        {"empty-panel.svg", "panel \"embed\" has no curve", offsetof(struct svc_report, empty), 1},
        {"offscale-stacked.svg", "panel \"code\" has 3 off-scale labels",
         offsetof(struct svc_report, offscale), 1},
        {"labels-overlap.svg", "the labels \"×0.716\" and \"×0.787\" overlap",
         offsetof(struct svc_report, overlap), 1},
        {"palette-same-marker.svg",
         "the curves \"exclusive\" and \"ts-3+1\" share a marker (circle) in nearly the same "
         "colour",
         offsetof(struct svc_report, palette), 1},
        {"sla-key-words.svg", "\"SLA: ttft_p99_ms ≤ 2.00 s\" names an SLA by its key",
         offsetof(struct svc_report, sla_words), 2},
        {"llm-request-latency.svg", "the whole-request latency of the LLM service \"chat\"",
         offsetof(struct svc_report, llm_request), 1},
        {"identical-panels.svg", "its 3 panels each hold only the curve \"naive = packed\"",
         offsetof(struct svc_report, same_panels), 1},
        {"verdict-late.html", "figure \"fig-mig\" shows the verdict but is not the page's first",
         offsetof(struct svc_report, verdict_late), 2},
    };
    for (size_t k = 0; k < sizeof fx / sizeof fx[0]; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/fixtures/svgcheck/%s", tu_root(), fx[k].file);
        char *page = tu_slurp(path);
        CU_ASSERT_PTR_NOT_NULL_FATAL(page);
        struct svc_report r;
        int bad = svc_check_text(page, &r);
        int got = *(const int *)((const char *)&r + fx[k].counter);
        if (bad != fx[k].n || got != fx[k].n || !strstr(r.first, fx[k].part))
            fprintf(stderr, "\n  %s: %d broken, first: %s\n", fx[k].file, bad, r.first);
        CU_ASSERT_EQUAL(bad, fx[k].n); /* that promise only */
        CU_ASSERT_EQUAL(got, fx[k].n);
        TU_CHECK_CONTAINS(r.first, fx[k].part);
        free(page);
    }
}

/* The SLA text in the wrong unit, a label box, and what the new rules leave alone. */
static void test_readability_rules(void)
{
    struct svc_report r;
    static const char unit[] =
        HEAD "<line class=\"sla\"/><polyline class=\"series\" points=\"0,0 5,5\"/>"
             "<text class=\"label sla-label\" data-axis=\"x\" x=\"10\" y=\"10\" "
             "font-size=\"10\">SLA: p99 ≤ 2 s</text>" TAIL;
    CU_ASSERT_EQUAL(svc_check_text(unit, &r), 0); /* the panel gives no unit: nothing to compare */
    char page[1024];
    snprintf(page, sizeof page, "%s",
             "<svg class=\"figure\"><g class=\"panel\" data-latency=\"1\" data-title=\"p\" "
             "data-xunit=\"ms\"><line class=\"sla\"/><polyline class=\"series\" "
             "points=\"0,0 5,5\"/><text class=\"label sla-label\" data-axis=\"x\" x=\"10\" "
             "y=\"10\" font-size=\"10\">SLA: p99 ≤ 2 s</text></g></svg>");
    CU_ASSERT_EQUAL(svc_check_text(page, &r), 1);
    TU_CHECK_CONTAINS(r.first, "is not in the unit of its axis (ms)");
    char *ok = strstr(page, "2 s<");
    memcpy(ok, "2 ms", 4);
    memmove(ok + 4, ok + 3, strlen(ok + 3) + 1);
    ok[4] = '<';
    CU_ASSERT_EQUAL(svc_check_text(page, &r), 0);
    /* a box: 6 characters of 10 px are 36 px wide, centred; touching boxes do not overlap */
    struct svc_box b = svc_label_box(100, 50, SVC_MIDDLE, 10, 6, 0);
    CU_ASSERT_DOUBLE_EQUAL(b.x0, 82, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(b.x1, 118, 1e-9);
    struct svc_box c = svc_label_box(118, 50, SVC_START, 10, 3, 0);
    CU_ASSERT_FALSE(svc_boxes_overlap(&b, &c));
    CU_ASSERT_EQUAL(svc_text_chars("×0.7&amp;1", strlen("×0.7&amp;1")), 6);
    /* one merged curve per panel is fine when the panels hold other curves too, and one
     * strategy alone (no " = ") is not a merge */
    static const char one[] = "<svg class=\"figure\"><g class=\"panel\" data-title=\"a\"><polyline "
                              "class=\"series\" data-label=\"mps\" points=\"0,0\"/></g><g "
                              "class=\"panel\" data-title=\"b\"><polyline class=\"series\" "
                              "data-label=\"mps\" points=\"0,0\"/></g></svg>";
    CU_ASSERT_EQUAL(svc_check_text(one, &r), 0);
    /* the same label in two panels is one curve, even merged: no palette clash with itself */
    static const char same[] =
        "<svg class=\"figure\"><g class=\"panel\" data-title=\"a\"><polyline class=\"series\" "
        "data-label=\"x\" stroke=\"#0072B2\" points=\"0,0 1,1\"/><polyline class=\"series\" "
        "data-label=\"y\" stroke=\"#D55E00\" points=\"0,5 1,9\"/></g><g class=\"panel\" "
        "data-title=\"b\"><polyline class=\"series\" data-label=\"x = y\" stroke=\"#0072B2\" "
        "points=\"0,0 1,1\"/></g></svg>";
    CU_ASSERT_EQUAL(svc_check_text(same, &r), 0);
    /* the labels' limit */
    struct sb bb = {0};
    sb_add(&bb, HEAD "<polyline class=\"series\" points=\"0,0\"/>");
    for (int k = 0; k <= SVC_MAX_LABELS; k++)
        sb_add(&bb, "<text class=\"label\" x=\"%d\" y=\"%d\" font-size=\"10\">a</text>", 0, k * 20);
    sb_add(&bb, TAIL);
    expect_refused(bb.s, "the panel has more than 256 labels");
    free(bb.s);
}

void test_svgcheck_register(void)
{
    static const struct tu_test t[] = {
        {"a 900,000-pixel segment: work bounded by points", test_long_segment_bounded},
        {"work independent of segment length, non-finite ends", test_work_independent_of_length},
        {"closed form = pixel walk on 20,000 random panels", test_same_verdict_as_pixel_walk},
        {"NaN, inf, malformed and huge coordinates refused", test_non_finite_points},
        {"a figure cut anywhere is refused", test_cut_figure},
        {"a results page cut is refused", test_cut_page},
        {"unclosed, nested, enormous, NUL: no crash or hang", test_hostile_structure},
        {"the limits, with their numbers", test_limits},
        {"no control byte of the page reaches a message", test_message_controls},
        {"the fuzz corpus replayed", test_fuzz_corpus},
        {"issue 37's figure defects, a fixture each", test_defect_fixtures},
        {"SLA units, label boxes, merged curves", test_readability_rules},
        {NULL, NULL},
    };
    tu_add_suite("svgcheck", t);
}
