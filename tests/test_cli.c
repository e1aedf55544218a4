/*
 * Tests for cli: the option helpers (ranges, and the one wording of an option error), the
 * dispatch over the command tables (--help of every command and subcommand, missing and
 * unknown subcommands). A trace that changes after load is tested where the error is raised
 * (test_tenant: run_one returns -1 with the message); a FIFO fed from a shell raced and
 * could block the suite.
 */
#include "cli/cli.h"
#include "testutil.h"
#include "base/util.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CAP 65536
static char out[CAP], errb[CAP];

#define ASSERT_CONTAINS(hay, needle)                                                               \
    do {                                                                                           \
        if (!strstr((hay), (needle)))                                                              \
            fprintf(stderr, "\n  expected \"%s\" in:\n%s\n", (needle), (hay));                     \
        CU_ASSERT_PTR_NOT_NULL(strstr((hay), (needle)));                                           \
    } while (0)

/* ---- stderr of an in-process call ---------------------------------------------- */

static int saved_fd = -1;

/* From now on stderr goes to a file, read back by end_capture() into errb. */
static void begin_capture(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/cli-capture.err", tu_tmpdir());
    fflush(stderr);
    saved_fd = dup(STDERR_FILENO);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CU_ASSERT_FATAL(saved_fd >= 0 && fd >= 0);
    dup2(fd, STDERR_FILENO);
    close(fd);
}

static void end_capture(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/cli-capture.err", tu_tmpdir());
    fflush(stderr);
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    char *text = tu_slurp(path);
    snprintf(errb, sizeof errb, "%s", text ? text : "");
    free(text);
}

/* ---- option values ---------------------------------------------------------------- */

static int opt_long(const char *arg, long lo, long hi, long *v)
{
    begin_capture();
    int rc = cli_opt_long("sharesim x", "--n", arg, lo, hi, v);
    end_capture();
    return rc;
}

static void test_opt_long(void)
{
    long v = -7;
    CU_ASSERT_EQUAL(opt_long("20", 20, 400, &v), 0);
    CU_ASSERT_EQUAL(v, 20);
    CU_ASSERT_STRING_EQUAL(errb, "");
    CU_ASSERT_EQUAL(opt_long("400", 20, 400, &v), 0);
    CU_ASSERT_EQUAL(v, 400);
    /* Not a number, trailing text, empty, out of range, overflow: -1, one line, v untouched. */
    const char *bad[] = {"abc", "12x", "", " ", "19", "401", "1e2", "0x20", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        v = -7;
        CU_ASSERT_EQUAL(opt_long(bad[i], 20, 400, &v), -1);
        CU_ASSERT_EQUAL(v, -7);
        char want[256];
        snprintf(want, sizeof want,
                 "sharesim x: --n: expected an integer in [20, 400], got \"%s\"\n", bad[i]);
        CU_ASSERT_STRING_EQUAL(errb, want);
    }
    /* No upper bound: the wording says so, and LONG_MAX itself is fine. */
    CU_ASSERT_EQUAL(opt_long("-1", 0, LONG_MAX, &v), -1);
    CU_ASSERT_STRING_EQUAL(errb, "sharesim x: --n: expected an integer >= 0, got \"-1\"\n");
    CU_ASSERT_EQUAL(opt_long("9223372036854775807", 0, LONG_MAX, &v), 0);
    CU_ASSERT_EQUAL(v, LONG_MAX);
    CU_ASSERT_EQUAL(opt_long("9223372036854775808", 0, LONG_MAX, &v), -1);
}

static int opt_double(const char *arg, enum cli_lo kind, double lo, double hi, double *v)
{
    begin_capture();
    int rc = cli_opt_double("sharesim x", "--x", arg, kind, lo, hi, v);
    end_capture();
    return rc;
}

static void test_opt_double(void)
{
    double v = -7;
    CU_ASSERT_EQUAL(opt_double("0.5", CLI_GT, 0, INFINITY, &v), 0);
    CU_ASSERT_EQUAL(v, 0.5);
    CU_ASSERT_EQUAL(opt_double("1e300", CLI_GT, 0, INFINITY, &v), 0);
    const char *bad[] = {"0", "-1", "abc", "", "1.5x", "inf", "nan", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        v = -7;
        CU_ASSERT_EQUAL(opt_double(bad[i], CLI_GT, 0, INFINITY, &v), -1);
        CU_ASSERT_EQUAL(v, -7);
        char want[256];
        snprintf(want, sizeof want, "sharesim x: --x: expected a finite number > 0, got \"%s\"\n",
                 bad[i]);
        CU_ASSERT_STRING_EQUAL(errb, want);
    }
    /* Closed and half-open ranges name their ends. */
    CU_ASSERT_EQUAL(opt_double("0", CLI_GE, 0, 1, &v), 0);
    CU_ASSERT_EQUAL(opt_double("1", CLI_GE, 0, 1, &v), 0);
    CU_ASSERT_EQUAL(opt_double("1.01", CLI_GE, 0, 1, &v), -1);
    CU_ASSERT_STRING_EQUAL(errb, "sharesim x: --x: expected a number in [0, 1], got \"1.01\"\n");
    CU_ASSERT_EQUAL(opt_double("0", CLI_GT, 0, 10, &v), -1);
    CU_ASSERT_STRING_EQUAL(errb, "sharesim x: --x: expected a number in (0, 10], got \"0\"\n");
    CU_ASSERT_EQUAL(opt_double("-0.5", CLI_GE, 0, INFINITY, &v), -1);
    CU_ASSERT_STRING_EQUAL(errb, "sharesim x: --x: expected a finite number >= 0, got \"-0.5\"\n");
}

/* Option errors of the commands, end to end: the wording, exit 2, nothing on stdout. */
static void test_cli_option_errors(void)
{
    CU_ASSERT_EQUAL(tu_cli("profile show H100-80GB --width abc", out, CAP, errb, CAP), 2);
    CU_ASSERT_STRING_EQUAL(
        errb, "sharesim profile show: --width: expected an integer in [20, 400], got \"abc\"\n");
    CU_ASSERT_STRING_EQUAL(out, "");
    CU_ASSERT_EQUAL(tu_cli("profile show H100-80GB --width 19", out, CAP, errb, CAP), 2);
    CU_ASSERT_EQUAL(tu_cli("profile diff H100-80GB A100-80GB --width 401", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb, "sharesim profile diff: --width: expected an integer in [20, 400]");
    CU_ASSERT_EQUAL(tu_cli("profile show H100-80GB --width 20", out, CAP, errb, CAP), 0);
    static const struct {
        const char *args, *msg;
    } cases[] = {
        {"run x.json --seed -1",
         "sharesim run: --seed: expected an integer in [0, 4294967295], got \"-1\""},
        {"run x.json --replications 0",
         "sharesim run: --replications: expected an integer in [1, 10000], got \"0\""},
        {"run x.json --scale-load 2x",
         "sharesim run: --scale-load: expected a finite number > 0, got \"2x\""},
        {"compare x.json --seed abc", "sharesim compare: --seed: expected an integer in"},
        {"sweep x.json --jobs 0", "sharesim sweep: --jobs: expected an integer in [1, 1024]"},
        {"validate --jobs 257", "sharesim validate: --jobs: expected an integer in [1, 256]"},
        {"report md r.json --level 7",
         "sharesim report md: --level: expected an integer in [1, 6], got \"7\""},
        {"mig pack --gpu A100-40GB --gpus x 1g.5gb",
         "sharesim mig pack: --gpus: expected an integer in [1, 100000], got \"x\""},
        {"mig pack --gpu A100-40GB --order random 1g.5gb",
         "sharesim mig pack: --order: expected largest or arrival, got \"random\""},
        {"trace stats -f sharesim --time-scale 0 x.csv",
         "sharesim trace stats: --time-scale: expected a finite number > 0, got \"0\""},
        {"trace stats -f sharesim --limit -3 x.csv",
         "sharesim trace stats: --limit: expected an integer >= 0, got \"-3\""},
        {"trace gen --duration-s -1 -o -",
         "sharesim trace gen: --duration-s: expected a finite number > 0, got \"-1\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CU_ASSERT_EQUAL(tu_cli(cases[i].args, out, CAP, errb, CAP), 2);
        ASSERT_CONTAINS(errb, cases[i].msg);
    }
}

/* ---- dispatch ----------------------------------------------------------------------- */

static int seen_argc;
static char seen_argv0[32];

static int leaf(int argc, char **argv)
{
    seen_argc = argc;
    snprintf(seen_argv0, sizeof seen_argv0, "%s", argv[0]);
    return 7;
}

static void test_dispatch_table(void)
{
    static const struct cli_command inner[] = {
        {"leaf", "a leaf below", leaf, NULL},
        {NULL, NULL, NULL, NULL},
    };
    static const struct cli_group inner_g = {NULL, inner, "inner notes\n"};
    static const struct cli_command top[] = {
        {"one", "a leaf", leaf, NULL},
        {"grp", "a group", NULL, &inner_g},
        {NULL, NULL, NULL, NULL},
    };
    static const struct cli_group top_g = {"head line\n", top, NULL};
    char *a1[] = {"prog", "one", "x", "y", NULL};
    CU_ASSERT_EQUAL(cli_dispatch("prog", &top_g, 4, a1), 7);
    CU_ASSERT_EQUAL(seen_argc, 3);
    CU_ASSERT_STRING_EQUAL(seen_argv0, "one");
    char *a2[] = {"prog", "grp", "leaf", "z", NULL};
    CU_ASSERT_EQUAL(cli_dispatch("prog", &top_g, 4, a2), 7);
    CU_ASSERT_EQUAL(seen_argc, 2);
    CU_ASSERT_STRING_EQUAL(seen_argv0, "leaf");
    char *a3[] = {"prog", "grp", "nope", NULL};
    begin_capture();
    int rc = cli_dispatch("prog", &top_g, 3, a3);
    end_capture();
    CU_ASSERT_EQUAL(rc, SS_EXIT_BADINPUT);
    CU_ASSERT_STRING_EQUAL(errb, "prog grp: unknown subcommand \"nope\"\n\n"
                                 "usage: prog grp SUBCOMMAND [options]   "
                                 "(prog grp SUBCOMMAND --help for details)\n\n"
                                 "subcommands:\n"
                                 "  leaf  a leaf below\n\n"
                                 "inner notes\n");
    char *a4[] = {"prog", NULL};
    begin_capture();
    rc = cli_dispatch("prog", &top_g, 1, a4);
    end_capture();
    CU_ASSERT_EQUAL(rc, SS_EXIT_BADINPUT);
    CU_ASSERT_STRING_EQUAL(errb, "head line\n\n"
                                 "usage: prog COMMAND [options]   "
                                 "(prog COMMAND --help for details)\n\n"
                                 "commands:\n"
                                 "  one  a leaf\n"
                                 "  grp  a group\n");
}

/* `--help` of a command or group: exit 0, a usage on stdout naming it, nothing on stderr; a
 * group's lists every subcommand, and each of those is checked the same way. */
static void check_help(const char *path, const struct cli_command *c)
{
    char args[256], full[256];
    snprintf(args, sizeof args, "%s --help", path);
    snprintf(full, sizeof full, "sharesim %s", path);
    int rc = tu_cli(args, out, CAP, errb, CAP);
    if (rc != 0)
        fprintf(stderr, "\n  sharesim %s: exit %d\n%s", args, rc, errb);
    CU_ASSERT_EQUAL(rc, 0);
    ASSERT_CONTAINS(out, "usage: ");
    ASSERT_CONTAINS(out, full);
    CU_ASSERT_STRING_EQUAL(errb, "");
    if (!c->group)
        return;
    for (const struct cli_command *s = c->group->subs; s->name; s++) {
        char line[128];
        snprintf(line, sizeof line, "  %s ", s->name);
        ASSERT_CONTAINS(out, line);
    }
    for (const struct cli_command *s = c->group->subs; s->name; s++) {
        char sub[256];
        snprintf(sub, sizeof sub, "%s %s", path, s->name);
        check_help(sub, s);
    }
}

static void test_help_everywhere(void)
{
    CU_ASSERT_EQUAL(tu_cli("--help", out, CAP, errb, CAP), 0);
    ASSERT_CONTAINS(out, "usage: sharesim COMMAND");
    for (const struct cli_command *c = cli_root.subs; c->name; c++) {
        char line[64];
        snprintf(line, sizeof line, "  %s ", c->name);
        ASSERT_CONTAINS(out, line);
    }
    for (const struct cli_command *c = cli_root.subs; c->name; c++)
        check_help(c->name, c);
    CU_ASSERT_EQUAL(tu_cli("-h", out, CAP, errb, CAP), 0);
    CU_ASSERT_EQUAL(tu_cli("help", out, CAP, errb, CAP), 0);
    CU_ASSERT_EQUAL(tu_cli("mig -h", out, CAP, errb, CAP), 0);
    CU_ASSERT_EQUAL(tu_cli("--version", out, CAP, errb, CAP), 0);
    CU_ASSERT_STRING_EQUAL(out, "sharesim " SHARESIM_VERSION "\n");
}

/* A missing or unknown subcommand: exit 2, the one wording, then the list, on stderr. */
static void test_unknown_and_missing(void)
{
    CU_ASSERT_EQUAL(tu_cli("frobnicate", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb, "sharesim: unknown command \"frobnicate\"\n\nsharesim ");
    ASSERT_CONTAINS(errb, "usage: sharesim COMMAND");
    CU_ASSERT_STRING_EQUAL(out, "");
    CU_ASSERT_EQUAL(tu_cli("", out, CAP, errb, CAP), 2);
    ASSERT_CONTAINS(errb, "usage: sharesim COMMAND");
    for (const struct cli_command *c = cli_root.subs; c->name; c++) {
        if (!c->group)
            continue;
        char args[128], want[256];
        snprintf(args, sizeof args, "%s frobnicate", c->name);
        CU_ASSERT_EQUAL(tu_cli(args, out, CAP, errb, CAP), 2);
        snprintf(want, sizeof want,
                 "sharesim %s: unknown subcommand \"frobnicate\"\n\nusage: sharesim %s SUBCOMMAND",
                 c->name, c->name);
        CU_ASSERT_EQUAL(strncmp(errb, want, strlen(want)), 0);
        CU_ASSERT_STRING_EQUAL(out, "");
        CU_ASSERT_EQUAL(tu_cli(c->name, out, CAP, errb, CAP), 2);
        snprintf(want, sizeof want, "usage: sharesim %s SUBCOMMAND", c->name);
        CU_ASSERT_EQUAL(strncmp(errb, want, strlen(want)), 0);
    }
}

/* One output per file (cli/outplan.h) in the commands without a suite of their own. */
static void test_outputs_every_command(void)
{
    char args[2400], dir[600];
    const char *plan = tu_fixture("plan/k8s-timeslice.json");
    snprintf(args, sizeof args, "plan '%s' --json @X --html @X", plan);
    tu_expect_outputs_refused(args, "op-plan-x", "sharesim plan: --html ",
                              "the same file as --json ", NULL);
    /* a file --k8s DIR writes, named once more by another output (DIR not made yet) */
    snprintf(dir, sizeof dir, "%s/op-k8s-dir", tu_tmpdir());
    snprintf(args, sizeof args, "plan '%s' --k8s '%s' --csv '%s/README.md'", plan, dir, dir);
    tu_expect_outputs_refused(args, NULL, "one of the files --k8s ", NULL);
    snprintf(args, sizeof args, "plan '%s' --k8s '%s' --json '%s/../op-k8s-dir/pod-a.yaml'", plan,
             dir, dir);
    tu_expect_outputs_refused(args, NULL, "one of the files --k8s ", NULL);
    CU_ASSERT_FALSE(tu_exists(dir));
    const char *cl = tu_fixture("cluster/tiny.json");
    snprintf(args, sizeof args, "cluster '%s' --json @X --csv @X", cl);
    tu_expect_outputs_refused(args, "op-cl-x", "sharesim cluster: --csv ",
                              "the same file as --json ", NULL);
    snprintf(args, sizeof args, "cluster '%s' --json - --csv -", cl);
    tu_expect_outputs_refused(args, NULL, "--csv -: --json - already writes to stdout", NULL);
    snprintf(args, sizeof args, "cluster '%s' --json @X --merge @X", cl);
    tu_expect_outputs_refused(args, "op-cl-p", "the same file as the input --merge ", NULL);
    const char *sum = tu_fixture("fidelity/timeslice-2.json");
    snprintf(args, sizeof args, "fidelity table '%s' --sim '%s' --json @X --csv @X", sum,
             tu_tmpdir());
    tu_expect_outputs_refused(args, "op-fid-x", "sharesim fidelity table: --csv ",
                              "the same file as --json ", NULL);
    snprintf(args, sizeof args, "fidelity table '%s' --sim '%s' -o - --csv -", sum, tu_tmpdir());
    tu_expect_outputs_refused(args, NULL, "--csv -: -o - already writes to stdout", NULL);
    snprintf(args, sizeof args, "fidelity table '%s' --sim '%s' -o '%s'", sum, tu_tmpdir(), sum);
    tu_expect_outputs_refused(args, NULL, "the same file as the input SUMMARY", NULL);
    char res[700];
    snprintf(res, sizeof res, "%s/op-result.json", tu_tmpdir());
    snprintf(args, sizeof args, "run '%s' --quiet --json '%s'",
             tu_fixture("cmd_compare/two-tenants.json"), res);
    CU_ASSERT_EQUAL_FATAL(tu_cli(args, NULL, 0, NULL, 0), 0);
    snprintf(args, sizeof args, "report html '%s' -o '%s/op-page-p99_ms.svg' --svg '%s/op-page'",
             res, tu_tmpdir(), tu_tmpdir());
    tu_expect_outputs_refused(args, NULL, "one of the files --svg ", NULL);
    snprintf(args, sizeof args, "report html '%s' -o '%s'", res, res);
    tu_expect_outputs_refused(args, NULL, "refusing to overwrite an input", NULL);
}

/* A --sim directory or a --merge file that is not there: the message names it. */
static void test_missing_dirs_named(void)
{
    char args[2400], err[4096];
    const char *sum = tu_fixture("fidelity/timeslice-2.json");
    snprintf(args, sizeof args, "fidelity table '%s' --sim '%s/op-no-such-dir'", sum, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, out, CAP, err, sizeof err), 2);
    ASSERT_CONTAINS(err, "--sim ");
    ASSERT_CONTAINS(err, "op-no-such-dir");
    CU_ASSERT_STRING_EQUAL(out, "");
    snprintf(args, sizeof args, "cluster '%s' --merge '%s/op-no-such.partial'",
             tu_fixture("cluster/tiny.json"), tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, out, CAP, err, sizeof err), 2);
    ASSERT_CONTAINS(err, "op-no-such.partial");
    snprintf(args, sizeof args,
             "sweep '%s' --set gpus=2,3 --out '%s/op-sw' --merge '%s/op-no-shard'",
             tu_fixture("sweep/tiny.json"), tu_tmpdir(), tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, out, CAP, err, sizeof err), 2);
    ASSERT_CONTAINS(err, "op-no-shard");
}

void test_cli_register(void)
{
    static const struct tu_test t[] = {
        {"cli_opt_long: ranges and the one wording", test_opt_long},
        {"cli_opt_double: open and closed ranges, finite only", test_opt_double},
        {"option errors of every command: wording, exit 2", test_cli_option_errors},
        {"cli_dispatch: argv, nested groups, help text", test_dispatch_table},
        {"--help of every command and subcommand exits 0", test_help_everywhere},
        {"unknown or missing (sub)command: exit 2 and the list", test_unknown_and_missing},
        {"one output per file: plan, cluster, fidelity, report html", test_outputs_every_command},
        {"a missing --sim directory or --merge file is named", test_missing_dirs_named},
        {NULL, NULL},
    };
    tu_add_suite("cli", t);
}
