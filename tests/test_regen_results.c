/*
 * scripts/regen-results end to end on a small index: every output written, byte-identical
 * on a second run, the load sweep and the study's Markdown as the index says, no plots when
 * none are asked for.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* tests/fixtures/studies/index.json (a reference, a scenario and a validation study) written
 * as `name` with both studies' scenario set to scn, a copy of studies/small.json (two
 * services, time-slicing and MPS) next to the outputs; returns its path. */
static char *write_index(const char *name, const char *scn)
{
    return tu_fixture_write(
        name, "studies/index.json",
        "{\"studies.0.rows.0.scenario\": \"%s\", \"studies.1.scenario\": \"%s\"}", scn, scn);
}

/* Runs scripts/regen-results with the CLI under test; returns its exit status. */
static int regen(const char *index, const char *out)
{
    char cmd[2048];
    const char *bin = getenv("SHARESIM");
    snprintf(cmd, sizeof cmd,
             "SHARESIM='%s' VALIDATE_ARGS='%s' scripts/regen-results --no-plots --index "
             "'%s' --out '%s' "
             ">/dev/null 2>&1",
             bin ? bin : "build/sharesim", tu_under_valgrind() ? "skip" : "--quick", index, out);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void test_regen_script(void)
{
    char *scn = tu_fixture_write("small-regen.json", "studies/small.json", NULL);
    char *ix = write_index("index-regen.json", scn);
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/regen-a", tu_tmpdir());
    snprintf(b, sizeof b, "%s/regen-b", tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(regen(ix, a), 0);
    CU_ASSERT_EQUAL_FATAL(regen(ix, b), 0);
    static const char *const files[] = {"ref.md",   "ref.json",  "ref.csv",
                                        "small.md", "small.csv", "small-load.csv"};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char pa[600], pb[600];
        snprintf(pa, sizeof pa, "%s/%s", a, files[k]);
        snprintf(pb, sizeof pb, "%s/%s", b, files[k]);
        char *x = tu_slurp(pa), *y = tu_slurp(pb);
        CU_ASSERT_PTR_NOT_NULL(x);
        CU_ASSERT_PTR_NOT_NULL(y);
        if (x && y)
            CU_ASSERT_STRING_EQUAL(x, y); /* deterministic, byte for byte */
        free(x);
        free(y);
    }
    char p[600];
    char *load = tu_slurp_in(a, "small-load.csv");
    CU_ASSERT(tu_starts(load, "load_scale,strategy,kind,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(load, "\n0.5,ts,timeslice,2,1,2,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(load, "\n1,mps,mps,2,1,2,"));
    free(load);
    char *md = tu_slurp_in(a, "small.md");
    CU_ASSERT(tu_starts(md, "# Small study\n\nTwo services.\n\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "Run length: 4 000 requests."));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "## Load sweep"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "![p99-vs-load](small-p99-vs-load.svg)"));
    free(md);
    /* No plots were asked for and none were made. */
    snprintf(p, sizeof p, "%s/small.html", a);
    CU_ASSERT_FALSE(tu_exists(p));
}

/* --only ID writes that study's files and no other's; an unknown id is an error. */
static void test_only(void)
{
    char *scn = tu_fixture_write("small-only.json", "studies/small.json", NULL);
    char *ix = write_index("index-only.json", scn);
    char a[512], cmd[2048], p[600];
    snprintf(a, sizeof a, "%s/regen-only", tu_tmpdir());
    const char *bin = getenv("SHARESIM");
    snprintf(cmd, sizeof cmd,
             "SHARESIM='%s' scripts/regen-results --no-plots --index '%s' --out '%s' --only small "
             ">/dev/null 2>&1",
             bin ? bin : "build/sharesim", ix, a);
    int rc = system(cmd);
    CU_ASSERT_EQUAL_FATAL(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 0);
    static const char *const made[] = {"small.md", "small.csv", "small-load.csv"};
    static const char *const not_made[] = {"ref.md", "ref.json", "ref.csv", "validation.md"};
    for (size_t k = 0; k < sizeof made / sizeof made[0]; k++) {
        snprintf(p, sizeof p, "%s/%s", a, made[k]);
        CU_ASSERT(tu_exists(p));
    }
    for (size_t k = 0; k < sizeof not_made / sizeof not_made[0]; k++) {
        snprintf(p, sizeof p, "%s/%s", a, not_made[k]);
        CU_ASSERT_FALSE(tu_exists(p));
    }
    snprintf(cmd, sizeof cmd,
             "SHARESIM='%s' scripts/regen-results --no-plots --index '%s' --out '%s' --only nope "
             ">/dev/null 2>&1",
             bin ? bin : "build/sharesim", ix, a);
    rc = system(cmd);
    CU_ASSERT_EQUAL(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 2);
}

void test_regen_results_register(void)
{
    static const struct tu_test t[] = {
        {"scripts/regen-results: every output, byte-identical twice", test_regen_script},
        {"scripts/regen-results --only: one study's files alone", test_only},
        {NULL, NULL},
    };
    tu_add_suite("regen_results", t);
}
