/* cli/outplan: two outputs are never one file, and no output is an input, however spelt. */
#include "testutil.h"
#include "cli/outplan.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPECT_IN(hay, part)                                                                       \
    do {                                                                                           \
        if (!strstr((hay), (part)))                                                                \
            fprintf(stderr, "\n  %s:%d: expected \"%s\" in: %s", __FILE__, __LINE__, (part),       \
                    (hay));                                                                        \
        CU_ASSERT_PTR_NOT_NULL(strstr((hay), (part)));                                             \
    } while (0)

static const char *at(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tu_tmpdir(), name);
    return buf;
}

/* The check of two outputs a and b: 0 when they may go together, else -1 with err. */
static int two(const char *a, const char *b, char *err, size_t n)
{
    struct op_plan p;
    op_init(&p, "test");
    op_output(&p, "--json", a);
    op_output(&p, "--csv", b);
    int rc = op_check(&p, err, n);
    op_free(&p);
    return rc;
}

static void test_same_spellings(void)
{
    char x[600], y[600], err[SS_ERRLEN];
    at(x, sizeof x, "op-new.json"); /* does not exist */
    unlink(x);
    CU_ASSERT_EQUAL(two(x, x, err, sizeof err), -1);
    EXPECT_IN(err, "--csv ");
    EXPECT_IN(err, "the same file as --json ");
    EXPECT_IN(err, "op-new.json");
    snprintf(y, sizeof y, "%s/./op-new.json", tu_tmpdir());
    CU_ASSERT_EQUAL(two(x, y, err, sizeof err), -1);
    snprintf(y, sizeof y, "%s/sub/../op-new.json", tu_tmpdir());
    char sub[600];
    mkdir(at(sub, sizeof sub, "sub"), 0777);
    CU_ASSERT_EQUAL(two(x, y, err, sizeof err), -1);
    /* a directory that does not exist either: the rest is compared as spelt */
    snprintf(y, sizeof y, "%s/nodir/../op-new.json", tu_tmpdir());
    CU_ASSERT_EQUAL(two(x, y, err, sizeof err), -1);
    /* relative to the working directory */
    char cwd[600];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    CU_ASSERT_EQUAL_FATAL(chdir(tu_tmpdir()), 0);
    CU_ASSERT_EQUAL(two("op-new.json", x, err, sizeof err), -1);
    CU_ASSERT_EQUAL(two("./op-new.json", "sub/../op-new.json", err, sizeof err), -1);
    CU_ASSERT_EQUAL(two("op-new.json", "op-other.json", err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(chdir(cwd), 0);
    /* different files */
    CU_ASSERT_EQUAL(two(x, at(y, sizeof y, "op-other.json"), err, sizeof err), 0);
}

static void test_links(void)
{
    char x[600], y[600], l[600], err[SS_ERRLEN];
    /* a symbolic link to the directory, the file not written yet */
    at(l, sizeof l, "op-dirlink");
    unlink(l);
    CU_ASSERT_EQUAL(symlink(tu_tmpdir(), l), 0);
    at(x, sizeof x, "op-later.csv");
    unlink(x);
    snprintf(y, sizeof y, "%s/op-dirlink/op-later.csv", tu_tmpdir());
    CU_ASSERT_EQUAL(two(x, y, err, sizeof err), -1);
    EXPECT_IN(err, "each output needs a file of its own");
    /* a symbolic link to an existing file */
    tu_write("op-real.json", "{}\n");
    at(x, sizeof x, "op-real.json");
    at(l, sizeof l, "op-link.json");
    unlink(l);
    CU_ASSERT_EQUAL(symlink("op-real.json", l), 0);
    CU_ASSERT_EQUAL(two(x, l, err, sizeof err), -1);
    /* a hard link */
    at(y, sizeof y, "op-hard.json");
    unlink(y);
    CU_ASSERT_EQUAL(link(x, y), 0);
    CU_ASSERT_EQUAL(two(y, x, err, sizeof err), -1);
    /* a dangling link is replaced itself, not what it names: two files */
    at(l, sizeof l, "op-dangling.json");
    unlink(l);
    CU_ASSERT_EQUAL(symlink("op-nowhere.json", l), 0);
    CU_ASSERT_EQUAL(two(l, at(y, sizeof y, "op-nowhere.json"), err, sizeof err), 0);
    /* /dev/null takes any number */
    CU_ASSERT_EQUAL(two("/dev/null", "/dev/null", err, sizeof err), 0);
}

static void test_stdout(void)
{
    char err[SS_ERRLEN], x[600];
    CU_ASSERT_EQUAL(two("-", "-", err, sizeof err), -1);
    EXPECT_IN(err, "--csv -: --json - already writes to stdout");
    CU_ASSERT_EQUAL(two("-", at(x, sizeof x, "op-file.json"), err, sizeof err), 0);
    CU_ASSERT_EQUAL(two("", "", err, sizeof err), -1);
    EXPECT_IN(err, "--json: the file name is empty");
    /* a path that is the file stdout writes to counts as stdout */
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    FILE *fp = fopen(at(x, sizeof x, "op-stdout.txt"), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    dup2(fileno(fp), STDOUT_FILENO);
    int rc = two("-", x, err, sizeof err);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    fclose(fp);
    CU_ASSERT_EQUAL(rc, -1);
    EXPECT_IN(err, "already writes to stdout");
}

static void test_inputs(void)
{
    char x[600], y[600], l[600], err[SS_ERRLEN];
    struct op_plan p;
    tu_write("op-in.json", "{}\n");
    at(x, sizeof x, "op-in.json");
    snprintf(y, sizeof y, "%s/./op-in.json", tu_tmpdir());
    op_init(&p, "test");
    op_input(&p, "SCENARIO", x);
    op_output(&p, "--json", y);
    CU_ASSERT_EQUAL(op_check(&p, err, sizeof err), -1);
    EXPECT_IN(err, "--json ");
    EXPECT_IN(err, "the same file as the input SCENARIO ");
    EXPECT_IN(err, "refusing to overwrite an input");
    op_free(&p);
    /* noted while loading (a trace the scenario names), through a link */
    at(l, sizeof l, "op-in-link.json");
    unlink(l);
    CU_ASSERT_EQUAL(symlink("op-in.json", l), 0);
    ss_in_note(x);
    op_init(&p, "test");
    op_output(&p, "--csv", l);
    CU_ASSERT_EQUAL(op_check(&p, err, sizeof err), -1);
    EXPECT_IN(err, "refusing to overwrite an input");
    op_free(&p);
    ss_in_forget_all();
    /* a file of an input directory (--merge DIR) */
    char d[600];
    mkdir(at(d, sizeof d, "op-shard"), 0777);
    static const char *const points[] = {"points/", NULL};
    op_init(&p, "test");
    op_input_dir(&p, "--merge", d, points);
    snprintf(y, sizeof y, "%s/op-shard/points/p0.json", tu_tmpdir());
    op_output(&p, "--json", y);
    CU_ASSERT_EQUAL(op_check(&p, err, sizeof err), -1);
    EXPECT_IN(err, "a file of the input --merge ");
    op_free(&p);
}

static void test_dirs(void)
{
    char d[600], y[600], l[600], err[SS_ERRLEN];
    static const char *const k8s[] = {"*.yaml", "README.md", NULL};
    struct op_plan p;
    at(d, sizeof d, "op-k8s"); /* not created yet */
    rmdir(d);
    snprintf(y, sizeof y, "%s/op-k8s/README.md", tu_tmpdir());
    op_init(&p, "test");
    op_output(&p, "--json", y);
    op_output_dir(&p, "--k8s", d, k8s);
    CU_ASSERT_EQUAL(op_check(&p, err, sizeof err), -1);
    EXPECT_IN(err, "one of the files --k8s ");
    op_free(&p);
    /* a pattern, through a link to the parent */
    at(l, sizeof l, "op-dirlink2");
    unlink(l);
    CU_ASSERT_EQUAL(symlink(tu_tmpdir(), l), 0);
    snprintf(y, sizeof y, "%s/op-dirlink2/op-k8s/pod-a.yaml", tu_tmpdir());
    op_init(&p, "test");
    op_output_dir(&p, "--k8s", d, k8s);
    op_output(&p, "--csv", y);
    CU_ASSERT_EQUAL(op_check(&p, err, sizeof err), -1);
    op_free(&p);
    /* other names in the directory are fine, and so is a deeper one */
    snprintf(y, sizeof y, "%s/op-k8s/plan.json", tu_tmpdir());
    op_init(&p, "test");
    op_output_dir(&p, "--k8s", d, k8s);
    op_output(&p, "--json", y);
    CU_ASSERT_EQUAL(op_check(&p, err, sizeof err), 0);
    op_free(&p);
    /* the directory itself */
    op_init(&p, "test");
    op_output_dir(&p, "--k8s", d, k8s);
    op_output(&p, "--json", d);
    CU_ASSERT_EQUAL(op_check(&p, err, sizeof err), -1);
    EXPECT_IN(err, "the directory --k8s ");
    op_free(&p);
    /* a directory that would write over an input */
    mkdir(d, 0777);
    tu_write("op-k8s/pod-x.yaml", "a: 1\n");
    snprintf(y, sizeof y, "%s/op-k8s/pod-x.yaml", tu_tmpdir());
    op_init(&p, "test");
    op_input(&p, "SCENARIO", y);
    op_output_dir(&p, "--k8s", d, k8s);
    CU_ASSERT_EQUAL(op_check(&p, err, sizeof err), -1);
    EXPECT_IN(err, "would write over the input SCENARIO ");
    op_free(&p);
    /* a prefix: PREFIX-<figure>.svg */
    snprintf(y, sizeof y, "%s/page-p99.svg", tu_tmpdir());
    snprintf(l, sizeof l, "%s/page", tu_tmpdir());
    op_init(&p, "test");
    op_output(&p, "-o", y);
    op_output_prefix(&p, "--svg", l, "-*.svg");
    CU_ASSERT_EQUAL(op_check(&p, err, sizeof err), -1);
    EXPECT_IN(err, "one of the files --svg ");
    op_free(&p);
    snprintf(y, sizeof y, "%s/page.html", tu_tmpdir());
    op_init(&p, "test");
    op_output(&p, "-o", y);
    op_output_prefix(&p, "--svg", l, "-*.svg");
    CU_ASSERT_EQUAL(op_check(&p, err, sizeof err), 0);
    op_free(&p);
}

/* op_files, the one-call plan: NULL paths are skipped, an output that is an input or another
 * output is refused with op_done's exit code and message. */
static void test_files(void)
{
    char x[600], y[600], msg[SS_ERRLEN];
    at(x, sizeof x, "op-files.json");
    at(y, sizeof y, "op-files.csv");
    FILE *in = fopen(y, "w"); /* an input that is there, as a scenario would be */
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    fclose(in);
    CU_ASSERT_EQUAL(op_files("test", NULL, OP_LIST("--json", x, "--csv", y, "--cdf", NULL)),
                    SS_EXIT_OK);
    CU_ASSERT_EQUAL(op_files("test", OP_LIST("IN", NULL), OP_LIST("--json", NULL)), SS_EXIT_OK);
    /* the message goes to stderr: read it back */
    FILE *keep = fdopen(dup(fileno(stderr)), "w"), *cap = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(cap);
    fflush(stderr);
    dup2(fileno(cap), fileno(stderr));
    int same = op_files("test", NULL, OP_LIST("--json", x, "--csv", x));
    int input = op_files("test", OP_LIST("SCENARIO", y), OP_LIST("--json", x, "--csv", y));
    fflush(stderr);
    dup2(fileno(keep), fileno(stderr));
    fclose(keep);
    rewind(cap);
    size_t n = fread(msg, 1, sizeof msg - 1, cap);
    msg[n] = '\0';
    fclose(cap);
    CU_ASSERT_EQUAL(same, SS_EXIT_BADINPUT);
    CU_ASSERT_EQUAL(input, SS_EXIT_BADINPUT);
    EXPECT_IN(msg, "test: --csv ");
    EXPECT_IN(msg, "the same file as --json ");
    EXPECT_IN(msg, "the same file as the input SCENARIO ");
}

void test_outplan_register(void)
{
    static const struct tu_test t[] = {
        {"one new file by any spelling: ./, .., relative, absolute", test_same_spellings},
        {"symbolic links (to the file, to its directory), hard links, dangling", test_links},
        {"stdout twice, also as the file stdout goes to", test_stdout},
        {"an output is never an input: registered, noted, in an input directory", test_inputs},
        {"directories: their files, patterns, the directory itself, over an input", test_dirs},
        {"op_files: a plan in one call, NULL paths skipped, the same refusals", test_files},
        {NULL, NULL},
    };
    tu_add_suite("outplan", t);
}
