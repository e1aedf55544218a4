/*
 * The report pages in a real browser: headless Chromium (Debian's `chromium`, installed by
 * scripts/install-deps) opens each page — one the test makes from a fixture, one of a shipped
 * study, and every page `make results` wrote in results/ — and must find the page's DOM
 * (<main id="report"> and its figures: the page loaded, it is not an error page) and paint
 * something: the screenshot of a blank page compresses to a few kilobytes, so a screenshot
 * under BLANK_FACTOR times the size of a blank page's (taken the same way, once per run) is
 * blank. The screenshots stay in build/screenshots/ (what a reader sees first: the top 1280 ×
 * 1000 pixels) for people to look at.
 *
 * Skipped, with a note, when chromium is not installed, and under valgrind (the browser is
 * not the code under test; each start takes a second or two). Under ASan only the fixture's
 * page is opened.
 */
#define _DEFAULT_SOURCE /* realpath() */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHOTS "build/screenshots"
#define BLANK_FACTOR 4
#define FIX "tests/fixtures/html/two-tenants.json"

static char chromium[512];

/* $SHARESIM_CHROMIUM, else chromium or chromium-browser on PATH; 0 when none. */
static int find_chromium(void)
{
    const char *env = getenv("SHARESIM_CHROMIUM");
    if (env && *env && access(env, X_OK) == 0) {
        snprintf(chromium, sizeof chromium, "%s", env);
        return 1;
    }
    static const char *const names[] = {"chromium", "chromium-browser"};
    const char *path = getenv("PATH");
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        for (const char *p = path; p && *p;) {
            const char *colon = strchr(p, ':');
            int len = colon ? (int)(colon - p) : (int)strlen(p);
            snprintf(chromium, sizeof chromium, "%.*s/%s", len, p, names[k]);
            if (len && access(chromium, X_OK) == 0)
                return 1;
            p = colon ? colon + 1 : NULL;
        }
    chromium[0] = '\0';
    return 0;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* One page in the browser. */
struct shot {
    char url[4200], png[600], name[300];
    FILE *pipe;
    char *dom; /* after load */
};

/* Starts chromium on s->url (its own profile directory k, so several can run at once). */
static void shot_start(struct shot *s, int k)
{
    char cmd[6000];
    unlink(s->png);
    snprintf(cmd, sizeof cmd,
             "'%s' --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "
             "--disable-extensions --disable-background-networking --disable-component-update "
             "--disable-sync --mute-audio --user-data-dir='%s/chromium-%d' "
             "--window-size=1280,1000 --dump-dom --screenshot='%s' '%s' 2>/dev/null",
             chromium, tu_tmpdir(), k, s->png, s->url);
    s->pipe = popen(cmd, "r");
    s->dom = NULL;
}

/* Reads the DOM chromium prints and waits for it. */
static void shot_finish(struct shot *s)
{
    size_t cap = 1 << 16, len = 0, got;
    char *dom = malloc(cap);
    while (s->pipe && dom && (got = fread(dom + len, 1, cap - len - 1, s->pipe)) > 0) {
        len += got;
        if (len + 1 == cap)
            dom = realloc(dom, cap *= 2);
    }
    if (s->pipe)
        pclose(s->pipe);
    if (dom)
        dom[len] = '\0';
    s->pipe = NULL;
    s->dom = dom;
}

/* Renders every shot, JOBS at a time (a browser start costs seconds; they overlap well). */
#define JOBS 3
static void render_all(struct shot *s, int n)
{
    for (int k = 0; k < n; k += JOBS) {
        for (int q = k; q < n && q < k + JOBS; q++)
            shot_start(&s[q], q);
        for (int q = k; q < n && q < k + JOBS; q++)
            shot_finish(&s[q]);
    }
}

/* A shot of a page file, kept as SHOTS/<name>.png; 0, or -1 when the file is missing. */
static int shot_of(struct shot *s, const char *file, const char *name)
{
    char abs[4096];
    memset(s, 0, sizeof *s);
    if (!realpath(file, abs)) {
        fprintf(stderr, "\n  %s: no such page\n", file);
        CU_FAIL("page missing");
        return -1;
    }
    snprintf(s->url, sizeof s->url, "file://%s", abs);
    snprintf(s->png, sizeof s->png, SHOTS "/%s.png", name);
    snprintf(s->name, sizeof s->name, "%s", file);
    return 0;
}

static long blank_size;

/* The blank page's shot: rendered with the first batch, read before the first check. */
static void blank_shot(struct shot *b)
{
    memset(b, 0, sizeof *b);
    snprintf(b->url, sizeof b->url, "data:text/html,<html><body></body></html>");
    snprintf(b->png, sizeof b->png, SHOTS "/blank.png");
    snprintf(b->name, sizeof b->name, "(blank)");
}

static void blank_done(struct shot *b)
{
    free(b->dom);
    b->dom = NULL;
    blank_size = file_size(b->png);
    CU_ASSERT_FATAL(blank_size > 0);
}

/* A rendered page: loaded (its DOM is ours, with figures) and not blank (its screenshot). */
static void check_shot(struct shot *s)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(s->dom);
    int loaded = strstr(s->dom, "<main id=\"report\">") && strstr(s->dom, "class=\"figure");
    if (!loaded)
        fprintf(stderr, "\n  %s did not load in chromium (DOM: %.200s)\n", s->name, s->dom);
    CU_ASSERT(loaded);
    long size = file_size(s->png);
    if (size < BLANK_FACTOR * blank_size)
        fprintf(stderr,
                "\n  %s looks blank in chromium: %ld-byte screenshot, a blank page's is %ld\n",
                s->name, size, blank_size);
    CU_ASSERT(size >= BLANK_FACTOR * blank_size);
    free(s->dom);
    s->dom = NULL;
}

/* 0 when the test can run; prints why not otherwise. */
static int ready(void)
{
    if (tu_under_valgrind()) {
        printf("(skipped under valgrind) ");
        return -1;
    }
    if (!chromium[0] && !find_chromium()) {
        printf("(skipped: chromium not installed; scripts/install-deps installs it) ");
        return -1;
    }
    mkdir("build", 0777);
    mkdir(SHOTS, 0777);
    return 0;
}

/* The check itself tells a blank page and a missing page from a page. */
static void test_detects_blank(void)
{
    if (ready())
        return;
    char *blank = tu_write("blank.html", "<!DOCTYPE html><html><body><main id=\"report\">"
                                         "<svg class=\"figure\"></svg></main></body></html>");
    struct shot s[3];
    memset(s, 0, sizeof s);
    snprintf(s[0].url, sizeof s[0].url, "file:///nonexistent/page.html");
    snprintf(s[0].png, sizeof s[0].png, SHOTS "/test-missing.png");
    snprintf(s[1].url, sizeof s[1].url, "file://%s", blank);
    snprintf(s[1].png, sizeof s[1].png, SHOTS "/test-blank.png");
    blank_shot(&s[2]);
    render_all(s, 3);
    blank_done(&s[2]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s[0].dom);
    CU_ASSERT_PTR_NULL(strstr(s[0].dom, "<main id=\"report\">")); /* an error page, not ours */
    CU_ASSERT(file_size(SHOTS "/test-blank.png") < BLANK_FACTOR * blank_size);
    free(s[0].dom);
    free(s[1].dom);
}

/* A page made here (a load sweep of the fixture), a shipped study's, and every page `make
 * results` wrote (screenshot as SHOTS/<study>.png). */
static void test_pages(void)
{
    if (ready())
        return;
    char cmd[4096];
    const char *t = tu_tmpdir();
    static const char *const scales[] = {"1", "0.5", "2"};
    char files[1024] = "";
    for (int k = 0; k < 3; k++) {
        char cdf[700] = "";
        if (k == 0)
            snprintf(cdf, sizeof cdf, " --cdf '%s/br-cdf.csv'", t);
        snprintf(cmd, sizeof cmd, "run " FIX " --quiet --scale-load %s --json '%s/br-%s.json'%s",
                 scales[k], t, scales[k], cdf);
        CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
        size_t len = strlen(files);
        snprintf(files + len, sizeof files - len, " '%s/br-%s.json'", t, scales[k]);
    }
    snprintf(cmd, sizeof cmd,
             "report html%s --scenario " FIX " --cdf '%s/br-cdf.csv' -o '%s/br.html'", files, t, t);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
    struct shot s[33];
    int n = 0;
    snprintf(cmd, sizeof cmd, "%s/br.html", t);
    n += shot_of(&s[n], cmd, "test-fixture-sweep") == 0;
    if (!tu_sanitized()) { /* ASan adds nothing to what a browser sees: one page is enough */
        snprintf(cmd, sizeof cmd,
                 "run workloads/mig-fragmentation.json --quiet --json '%s/br-mig.json' --cdf "
                 "'%s/br-mig-cdf.csv'",
                 t, t);
        CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
        snprintf(cmd, sizeof cmd,
                 "report html '%s/br-mig.json' --cdf '%s/br-mig-cdf.csv' --index "
                 "results/index.json --study mig-fragmentation -o '%s/br-mig.html'",
                 t, t, t);
        CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
        snprintf(cmd, sizeof cmd, "%s/br-mig.html", t);
        n += shot_of(&s[n], cmd, "test-mig-fragmentation") == 0;
        DIR *d = opendir("results");
        struct dirent *e;
        while (d && (e = readdir(d)) && n < 32) {
            size_t len = strlen(e->d_name);
            if (len < 6 || strcmp(e->d_name + len - 5, ".html") != 0)
                continue;
            char path[600], name[300];
            snprintf(path, sizeof path, "results/%s", e->d_name);
            snprintf(name, sizeof name, "%.*s", (int)(len - 5), e->d_name);
            n += shot_of(&s[n], path, name) == 0;
        }
        if (d)
            closedir(d);
    }
    int ref = blank_size == 0; /* this test alone: the blank page goes with this batch */
    if (ref)
        blank_shot(&s[n]);
    render_all(s, n + ref);
    if (ref)
        blank_done(&s[n]);
    for (int k = 0; k < n; k++)
        check_shot(&s[k]);
    printf("(%d pages; screenshots in " SHOTS "/) ", n);
}

void test_html_browser_register(void)
{
    static const struct tu_test t[] = {
        {"a missing or blank page fails", test_detects_blank},
        {"pages (and results/*.html) load and paint in headless chromium", test_pages},
        {NULL, NULL},
    };
    tu_add_suite("html_browser", t);
}
