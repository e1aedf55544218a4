/*
 * scripts/docs-check on the fixture docs of tests/fixtures/docs_check/: a doc whose every
 * shell block is run and matches (or says why it is not run) passes; a stale transcript, a
 * stale generated block, a shell block with no marker, a block of `$ ` lines with no marker,
 * a block with no language and a "not run" without a reason each fail, naming FILE:LINE.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define DC_DIR "tests/fixtures/docs_check/"

/* Runs scripts/docs-check on one fixture doc with the CLI under test; its stderr into *err
 * (the caller frees it). Returns the exit status. */
static int docs_check(const char *doc, char **err)
{
    char cmd[2048], log[600];
    const char *bin = getenv("SHARESIM");
    snprintf(log, sizeof log, "%s/docs-check-%s.err", tu_tmpdir(), doc);
    snprintf(cmd, sizeof cmd, "SHARESIM='%s' scripts/docs-check '" DC_DIR "%s' >/dev/null 2>'%s'",
             bin ? bin : "build/sharesim", doc, log);
    int rc = system(cmd);
    *err = tu_slurp(log);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The doc fails (exit 1) with a message naming FILE:LINE and containing `what`. */
static void expect_fail(const char *doc, int line, const char *what)
{
    char *err = NULL;
    int rc = docs_check(doc, &err);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    char where[256];
    snprintf(where, sizeof where, DC_DIR "%s:%d: ", doc, line);
    if (!strstr(err, where) || !strstr(err, what))
        fprintf(stderr, "\n  docs-check %s: expected \"%s\" and \"%s\" in:\n%s\n", doc, where, what,
                err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, where));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, what));
    free(err);
}

/* A transcript with a volatile part (`…` in a line), a continued command line, a generated
 * block, a block not run with its reason, a text and a JSON block: all hold. */
static void test_good_doc_passes(void)
{
    char *err = NULL;
    int rc = docs_check("good.md", &err);
    if (rc != 0)
        fprintf(stderr, "\n  docs-check good.md:\n%s\n", err ? err : "(no output)");
    CU_ASSERT_EQUAL(rc, 0);
    free(err);
}

static void test_stale_transcript_fails(void)
{
    expect_fail("stale.md", 5, "no longer prints what the transcript shows");
}

static void test_stale_generated_block_fails(void)
{
    expect_fail("stale-output.md", 3, "has changed");
}

static void test_unmarked_shell_block_fails(void)
{
    expect_fail("unmarked.md", 5, "a shell block neither run nor marked");
}

static void test_unmarked_dollar_block_fails(void)
{
    expect_fail("unmarked-dollar.md", 3, "a shell block neither run nor marked");
}

static void test_untagged_block_fails(void)
{
    expect_fail("untagged.md", 3, "no language");
}

static void test_not_run_needs_a_reason(void)
{
    expect_fail("no-reason.md", 4, "gives no reason");
}

void test_docs_check_register(void)
{
    static const struct tu_test tests[] = {
        {"a doc whose blocks all hold passes", test_good_doc_passes},
        {"a stale transcript fails with file:line", test_stale_transcript_fails},
        {"a stale generated block fails with file:line", test_stale_generated_block_fails},
        {"an unmarked ```sh block fails", test_unmarked_shell_block_fails},
        {"an unmarked block of $ lines fails", test_unmarked_dollar_block_fails},
        {"a block with no language fails", test_untagged_block_fails},
        {"\"not run\" without a reason fails", test_not_run_needs_a_reason},
        {NULL, NULL},
    };
    tu_add_suite("docs_check", tests);
}
