/*
 * report/svg.c and tools/svgcheck.c: figures keep their promises by construction —
 * identical curves are drawn once and named together, a curve covered by later ones is moved
 * on top, every latency panel shows its SLA or says it has none — and the checker, which reads
 * the plotted points back from the SVG text, catches a figure that breaks them.
 */
#include "report/hw.h"
#include "report/svg.h"
#include "tools/svgcheck.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The figure as text (svg_fig_write into memory); caller frees. */
static char *render(struct svg_figure *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    struct hw w;
    hw_init(&w, m);
    svg_fig_write(&w, f, 1);
    fclose(m);
    return buf;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static void test_identical_merged(void)
{
    struct svg_figure f;
    svg_fig_init(&f, "t", "two strategies, one curve", 2, 400, 300);
    struct svg_panel *p = svg_fig_panel(&f);
    snprintf(p->title, sizeof p->title, "chat");
    p->latency = 1;
    double x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 15, 40}, z[4] = {12, 11, 30, 5};
    svg_add(p, "best", 0, 4, x, y, NULL);
    svg_add(p, "equal", 1, 4, x, y, NULL); /* the same numbers: the same curve */
    svg_add(p, "fixed", 2, 4, x, z, NULL);
    svg_ref(p, 0, 30, SVG_REF_SLA, "SLA: p99 ≤ %d ms", 30);
    char *svg = render(&f);
    CU_ASSERT_EQUAL(count(svg, "<polyline class=\"series\""), 2);
    TU_CHECK_CONTAINS(svg, "same curve: best = equal");
    TU_CHECK_CONTAINS(svg, "data-label=\"best = equal\"");
    TU_CHECK_CONTAINS(svg, "class=\"sla\"");
    CU_ASSERT(strncmp(svg, "<?xml", 5) == 0);
    struct svc_report r;
    CU_ASSERT_EQUAL(svc_check_text(svg, &r), 0);
    CU_ASSERT_EQUAL(r.figures, 1);
    CU_ASSERT_EQUAL(r.panels, 1);
    CU_ASSERT_EQUAL(r.latency_panels, 1);
    CU_ASSERT_EQUAL(r.series, 2);
    free(svg);
    svg_fig_free(&f);
}

/* A curve lying on part of a later one is drawn after it, on top, so it stays visible. */
static void test_covered_moved_on_top(void)
{
    struct svg_figure f;
    svg_fig_init(&f, "t", "", 1, 400, 300);
    struct svg_panel *p = svg_fig_panel(&f);
    snprintf(p->note, sizeof p->note, "no SLA in the scenario");
    p->latency = 1;
    double x[5] = {0, 1, 2, 3, 4}, y[5] = {0, 1, 2, 3, 4};
    svg_add(p, "short", 0, 3, x + 1, y + 1, NULL); /* the middle of "long" */
    svg_add(p, "long", 1, 5, x, y, NULL);
    char *svg = render(&f);
    const char *s = strstr(svg, "data-label=\"short\""), *l = strstr(svg, "data-label=\"long\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT(l < s); /* long first, short over it */
    struct svc_report r;
    CU_ASSERT_EQUAL(svc_check_text(svg, &r), 0);
    CU_ASSERT_EQUAL(r.hidden, 0);
    free(svg);
    svg_fig_free(&f);
}

/* The checker on figures that break the promises (written by hand, as another tool might). */
static void test_checker_catches(void)
{
    static const char hidden[] =
        "<svg class=\"figure\"><g class=\"panel\" data-latency=\"0\" data-title=\"p\">"
        "<polyline class=\"series\" data-label=\"a\" points=\"10.0,10.0 20.0,20.0\"/>"
        "<polyline class=\"series\" data-label=\"b\" points=\"10.0,10.5 20.0,20.5\"/>"
        "</g></svg>";
    struct svc_report r;
    CU_ASSERT_EQUAL(svc_check_text(hidden, &r), 1);
    CU_ASSERT_EQUAL(r.hidden, 1);
    TU_CHECK_CONTAINS(r.first, "the curve \"a\" is hidden");
    /* 2 px apart: both visible */
    static const char apart[] =
        "<svg class=\"figure\"><g class=\"panel\" data-latency=\"0\" data-title=\"p\">"
        "<polyline class=\"series\" data-label=\"a\" points=\"10.0,10.0 20.0,20.0\"/>"
        "<polyline class=\"series\" data-label=\"b\" points=\"10.0,12.5 20.0,22.5\"/>"
        "</g></svg>";
    CU_ASSERT_EQUAL(svc_check_text(apart, &r), 0);
    /* the union of two later curves hides one that neither hides alone */
    static const char pieces[] =
        "<svg class=\"figure\"><g class=\"panel\" data-latency=\"0\" data-title=\"p\">"
        "<polyline class=\"series\" data-label=\"a\" points=\"0.0,0.0 20.0,0.0\"/>"
        "<polyline class=\"series\" data-label=\"b\" points=\"0.0,0.0 10.0,0.0\"/>"
        "<polyline class=\"series\" data-label=\"c\" points=\"10.0,0.0 20.0,0.0\"/>"
        "</g></svg>";
    CU_ASSERT_EQUAL(svc_check_text(pieces, &r), 1);
    static const char no_sla[] =
        "<svg class=\"figure\"><g class=\"panel\" data-latency=\"1\" data-title=\"chat\">"
        "<polyline class=\"series\" data-label=\"a\" points=\"10.0,10.0 20.0,20.0\"/></g></svg>";
    CU_ASSERT_EQUAL(svc_check_text(no_sla, &r), 1);
    CU_ASSERT_EQUAL(r.sla_missing, 1);
    TU_CHECK_CONTAINS(r.first, "latency panel \"chat\" has no SLA line");
}

static void test_axes(void)
{
    double dec[3] = {28, 300, 1580}, lin[3] = {5, 9, 12}, neg[2] = {-1, 100};
    CU_ASSERT_EQUAL(svg_auto_axis(dec, 3), SVG_LOG);
    CU_ASSERT_EQUAL(svg_auto_axis(lin, 3), SVG_LIN);
    CU_ASSERT_EQUAL(svg_auto_axis(neg, 2), SVG_LIN);
    struct svg_figure f;
    svg_fig_init(&f, "t", "", 1, 400, 300);
    struct svg_panel *p = svg_fig_panel(&f);
    p->xa = SVG_LOG;
    p->ya = SVG_TAIL;
    double x[4] = {3, 30, 300, 3000}, y[4] = {0.5, 0.9, 0.99, 0.999}, bad[4] = {-1, 0, NAN, 5};
    CU_ASSERT_PTR_NOT_NULL(svg_add(p, "c", 0, 4, x, y, NULL));
    /* on a log axis the non-positive and NaN points are dropped, not drawn at the border */
    struct svg_series *s = svg_add(p, "d", 1, 4, bad, y, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(s->n, 1);
    char *svg = render(&f);
    TU_CHECK_CONTAINS(svg, ">99.9</text>"); /* tail ticks as percentiles */
    TU_CHECK_CONTAINS(svg, ">1k</text>");   /* decades on the log axis */
    CU_ASSERT_PTR_NULL(strstr(svg, "nan"));
    free(svg);
    svg_fig_free(&f);
}

static void test_styles(void)
{
    /* Two neighbouring styles never share colour and dash pattern; no style is yellow. */
    for (int k = 0; k + 1 < SVG_NSTYLES; k++) {
        CU_ASSERT(strcmp(svg_colour(k), svg_colour(k + 1)) != 0 ||
                  strcmp(svg_dash(k), svg_dash(k + 1)) != 0);
        CU_ASSERT(strcmp(svg_colour(k), "#F0E442") != 0);
    }
    for (int a = 0; a < 12; a++)
        for (int b = a + 1; b < 12; b++)
            CU_ASSERT(strcmp(svg_colour(a), svg_colour(b)) != 0 ||
                      strcmp(svg_dash(a), svg_dash(b)) != 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    struct hw w;
    hw_init(&w, m);
    hw_text(&w, "a<b & \"c\">'");
    HW_MARKF(&w, "<x a=\"%s\" n=\"%.1f %d\">", "<\"&>", 2.25, -3);
    hw_textf(&w, "%s%c", "</x>", '<');
    fclose(m);
    CU_ASSERT_STRING_EQUAL(buf, "a&lt;b &amp; &quot;c&quot;&gt;'"
                                "<x a=\"&lt;&quot;&amp;&gt;\" n=\"2.2 -3\">&lt;/x&gt;&lt;");
    free(buf);
}

/* Issue 37, the writer: every one of the 48 styles is its own (colour, marker) pair, also where
 * only markers are drawn (styles 0 and 6 were the same blue circle). */
static void test_palette_pairs(void)
{
    struct svg_figure f;
    svg_fig_init(&f, "pal", "48 strategies", 1, 900, 400);
    struct svg_panel *p = svg_fig_panel(&f);
    p->xa = SVG_CAT;
    for (int k = 0; k < SVG_NSTYLES; k++) {
        char lab[16];
        snprintf(lab, sizeof lab, "s%d", k);
        svg_cat(p, lab);
        double x = k, y = k % 7;
        struct svg_series *s = svg_add(p, lab, k, 1, &x, &y, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        s->points_only = 1;
    }
    char *svg = render(&f);
    struct svc_report r;
    int bad = svc_check_text(svg, &r);
    if (bad)
        fprintf(stderr, "\n  %s\n", r.first);
    CU_ASSERT_EQUAL(r.palette, 0);
    CU_ASSERT_EQUAL(r.series, SVG_NSTYLES);
    TU_CHECK_CONTAINS(svg, "data-shape=\"bowtie\"");
    free(svg);
    svg_fig_free(&f);
}

/* A panel without a curve is left out and the figure names it and why; points above a capped
 * axis get one label; crossing labels never overlap (those with no room are counted in the
 * note); the SLA label carries its axis; the verdict's figure says so. */
static void test_readable(void)
{
    struct svg_figure f;
    svg_fig_init(&f, "ttft", "TTFT against load", 3, 390, 280);
    f.verdict = 1;
    struct svg_panel *e = svg_fig_panel(&f);
    snprintf(e->title, sizeof e->title, "embed");
    snprintf(e->empty_why, sizeof e->empty_why, "not an LLM service, so no tokens to time");
    e->latency = 1;
    struct svg_panel *p = svg_fig_panel(&f);
    snprintf(p->title, sizeof p->title, "chat");
    snprintf(p->ylabel, sizeof p->ylabel, "TTFT p99 (s)");
    p->latency = 1;
    p->ymax = 60;
    double x[5] = {0.5, 1, 1.5, 2, 2.5};
    for (int k = 0; k < 8; k++) {
        double y[5] = {2 + 6.0 * k, 5 + 6.0 * k, 10 + 6.0 * k, 80 + k, 120 + k};
        char lab[16];
        snprintf(lab, sizeof lab, "s%d", k);
        svg_add(p, lab, k, 5, x, y, NULL);
        char at[24];
        snprintf(at, sizeof at, "×1.2%d", k);
        svg_mark(p, 1.2 + 0.001 * k, 2, k, at); /* eight crossings at one place */
    }
    svg_ref(p, 0, 2, SVG_REF_SLA, "SLA: TTFT p99 ≤ 2 s");
    char *svg = render(&f);
    struct svc_report r;
    int bad = svc_check_text(svg, &r);
    if (bad)
        fprintf(stderr, "\n  %s\n", r.first);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(r.panels, 1); /* embed left out */
    TU_CHECK_CONTAINS(svg, "No panel for embed: not an LLM service, so no tokens to time");
    CU_ASSERT_EQUAL(count(svg, "class=\"label offscale\""), 1);
    TU_CHECK_CONTAINS(svg, "↑ 16 points above 70 s (up to 127 s)");
    TU_CHECK_CONTAINS(svg, "class=\"label sla-label\" data-axis=\"y\"");
    TU_CHECK_CONTAINS(svg, "data-yunit=\"s\"");
    TU_CHECK_CONTAINS(svg, "class=\"figure verdict\"");
    CU_ASSERT_EQUAL(count(svg, "class=\"cross\""), 8);
    /* the labels that found room, and the rest said in the note: eight in all */
    int labelled = count(svg, "class=\"label\" x=");
    char note[64];
    snprintf(note, sizeof note, "%d crossings unlabelled (the table has them)", 8 - labelled);
    CU_ASSERT(labelled >= 3);
    if (labelled < 8)
        TU_CHECK_CONTAINS(svg, note);
    free(svg);
    svg_fig_free(&f);
}

void test_svg_register(void)
{
    static const struct tu_test t[] = {
        {"identical curves drawn once, named together", test_identical_merged},
        {"a covered curve is drawn on top", test_covered_moved_on_top},
        {"the checker catches hidden curves and missing SLAs", test_checker_catches},
        {"axes: log where values span decades, tail percentiles", test_axes},
        {"styles: colour and dash differ, no yellow; escaping", test_styles},
        {"48 styles, 48 (colour, marker) pairs", test_palette_pairs},
        {"no empty panel, one off-scale label, no overlap", test_readable},
        {NULL, NULL},
    };
    tu_add_suite("svg", t);
}
