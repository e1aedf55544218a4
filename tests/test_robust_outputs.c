/*
 * Outputs that never clobber what they must not (util.h, ss_out_*; docs/robustness.md):
 *  - an existing device or FIFO is written in place, never replaced by a regular file;
 *  - an output that is an input (the scenario, a trace; by any spelling, link or hard link) is
 *    refused before anything runs, and so are two outputs that are one file (stdout included);
 *  - a name near the 255-byte limit gets a temporary within the limit;
 *  - a link is followed (the file behind it is replaced, the link stays), permissions are kept;
 *  - write errors on stdout (a full device) are exit 2, not 0;
 *  - every command that writes removes its temporary on SIGTERM (`trace gen` included).
 */
#define _DEFAULT_SOURCE /* mknod(), makedev() */
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXPECT_IN(hay, part)                                                                       \
    do {                                                                                           \
        if (!strstr((hay), (part)))                                                                \
            fprintf(stderr, "\n  %s:%d: expected \"%s\" in: %s", __FILE__, __LINE__, (part),       \
                    (hay));                                                                        \
        CU_ASSERT_PTR_NOT_NULL(strstr((hay), (part)));                                             \
    } while (0)

static const char *small =
    "{\"name\": \"small\", \"gpu\": \"A100-80GB\", \"seed\": 1, \"stop\": {\"requests\": 20},"
    " \"tenants\": [{\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 10},"
    " \"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}],"
    " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}";

/* <tmpdir>/name into buf. */
static const char *tpath(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tu_tmpdir(), name);
    return buf;
}

/* True when some entry of the test directory starts with prefix. */
static int any_with_prefix(const char *prefix)
{
    DIR *d = opendir(tu_tmpdir());
    if (!d)
        return 0;
    int hit = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
            hit = 1;
    closedir(d);
    return hit;
}

/* `$SHARESIM args` through sh with stdout as given (a file or a device); exit code. */
static int cli_stdout_to(const char *args, const char *out, char *errbuf, size_t errcap)
{
    const char *bin = getenv("SHARESIM");
    char cmd[4096], e[600];
    snprintf(e, sizeof e, "%s/cli-out.err", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "%s %s >'%s' 2>'%s'", bin ? bin : "build/sharesim", args, out, e);
    int st = system(cmd);
    char *t = tu_slurp(e);
    snprintf(errbuf, errcap, "%s", t ? t : "");
    free(t);
    return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

static int is_json_doc(const char *path)
{
    char *t = tu_slurp(path);
    cJSON *doc = t ? cJSON_Parse(t) : NULL;
    free(t);
    int ok = doc != NULL && cJSON_GetObjectItem(doc, "strategies") != NULL;
    cJSON_Delete(doc);
    return ok;
}

/* ---- devices and FIFOs ---------------------------------------------------- */

static void test_device_in_place(void)
{
    char args[2048], err[2048], p[600];
    const char *s = tu_write("dev-s.json", small);
    struct stat st;
    /* /dev/null is the system's: checked only when it is a device to begin with (on a shared
     * machine an old build run as root may have replaced it already) */
    if (stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode)) {
        snprintf(args, sizeof args, "run '%s' --quiet --json /dev/null --csv /dev/null", s);
        int rc = tu_cli(args, NULL, 0, err, sizeof err);
        if (rc)
            fprintf(stderr, "\n  %s", err);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    } else {
        fprintf(stderr, "\n  /dev/null is not a character device here; its check is skipped");
    }
    /* As root the old code replaced the node; make one of our own to check that exactly. */
    if (geteuid() == 0 &&
        mknod(tpath(p, sizeof p, "null-node"), S_IFCHR | 0666, makedev(1, 3)) == 0) {
        snprintf(args, sizeof args, "run '%s' --quiet --json '%s' --csv '%s'", s, p, p);
        CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
        CU_ASSERT(stat(p, &st) == 0 && S_ISCHR(st.st_mode));
        CU_ASSERT_FALSE(any_with_prefix("null-node.tmp"));
    }
    /* /dev/full: the device stays, the write error is exit 2 with the reason */
    snprintf(args, sizeof args, "run '%s' --quiet --json /dev/full", s);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    EXPECT_IN(err, "/dev/full: write error: No space left on device");
    CU_ASSERT(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
    /* a directory is refused, and so is a block device (nothing sane writes a result there) */
    snprintf(args, sizeof args, "run '%s' --quiet --json '%s'", s, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    EXPECT_IN(err, "is a directory, expected a file to write");
}

static void test_fifo_in_place(void)
{
    char fifo[600], got[600], args[2048], err[2048];
    tpath(fifo, sizeof fifo, "out.fifo");
    tpath(got, sizeof got, "fifo-got.json");
    unlink(fifo);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    pid_t reader = fork();
    if (reader == 0) { /* cat FIFO > got */
        int in = open(fifo, O_RDONLY), out = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        char buf[4096];
        ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n)
                _exit(1);
        _exit(0);
    }
    const char *s = tu_write("fifo-s.json", small);
    snprintf(args, sizeof args, "run '%s' --quiet --json '%s'", s, fifo);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
    int st;
    waitpid(reader, &st, 0);
    struct stat sb;
    CU_ASSERT(stat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode));
    CU_ASSERT(is_json_doc(got));
    CU_ASSERT_FALSE(any_with_prefix("out.fifo.tmp"));
}

/* ---- inputs and other outputs ------------------------------------------------ */

static void test_input_never_overwritten(void)
{
    char args[4096], err[2048], p[600], q[600];
    const char *s = tu_write("in-s.json", small);
    char *before = tu_slurp(s);
    static const char *spell[] = {"%s", "%s/./in-s.json", "%s/in-link.json", "%s/in-hard.json"};
    tpath(p, sizeof p, "in-link.json");
    unlink(p);
    CU_ASSERT_EQUAL(symlink("in-s.json", p), 0);
    tpath(q, sizeof q, "in-hard.json");
    unlink(q);
    CU_ASSERT_EQUAL(link(s, q), 0);
    for (size_t i = 0; i < sizeof spell / sizeof *spell; i++) {
        char out[700];
        snprintf(out, sizeof out, spell[i], i == 0 ? s : tu_tmpdir());
        snprintf(args, sizeof args, "run '%s' --quiet --json '%s'", s, out);
        CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
        EXPECT_IN(err, "the same file as the input");
        snprintf(args, sizeof args, "run '%s' --quiet --csv '%s'", s, out);
        CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
        EXPECT_IN(err, "refusing to overwrite an input");
    }
    char *after = tu_slurp(s);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(after);
    /* a trace of the scenario is an input too, and `trace gen` refuses it the same way */
    const char *tr = tu_write("in-trace.csv", "time_s,work_ms\n0,1\n1,2\n");
    const char *sc =
        tu_write("in-trace.json",
                 "{\"gpu\": \"A100-80GB\", \"tenants\": [{\"name\": \"a\", \"arrival\": "
                 "{\"process\": \"trace\", \"path\": \"in-trace.csv\", \"format\": \"sharesim\"}, "
                 "\"work\": {\"dist\": \"trace\"}}], \"strategies\": [{\"name\": \"x\", "
                 "\"kind\": \"exclusive\"}]}");
    snprintf(args, sizeof args, "run '%s' --quiet --cdf '%s'", sc, tr);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    EXPECT_IN(err, "--cdf");
    EXPECT_IN(err, "the same file as the input");
    snprintf(args, sizeof args, "trace gen --scenario '%s' --tenant a -o '%s'", sc, tr);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    EXPECT_IN(err, "refusing to overwrite an input");
    snprintf(args, sizeof args, "trace gen --scenario '%s' --tenant a -o '%s'", sc, sc);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    char *t = tu_slurp(tr);
    CU_ASSERT_STRING_EQUAL(t, "time_s,work_ms\n0,1\n1,2\n");
    free(t);
    free(before);
    /* in process: ss_out_open refuses a noted input */
    struct ss_out o;
    char msg[SS_ERRLEN];
    ss_in_note(tr);
    CU_ASSERT_EQUAL(ss_out_open(&o, tr, msg, sizeof msg), -1);
    EXPECT_IN(msg, "refusing to overwrite an input");
    ss_in_forget_all();
    CU_ASSERT_EQUAL(ss_out_open(&o, tr, msg, sizeof msg), 0);
    ss_out_abort(&o);
}

static void test_outputs_distinct(void)
{
    char args[4096], err[2048], x[600], y[600];
    const char *s = tu_write("two-s.json", small);
    tpath(x, sizeof x, "two-x");
    tpath(y, sizeof y, "two-y");
    unlink(x);
    snprintf(args, sizeof args, "run '%s' --quiet --json '%s' --csv '%s'", s, x, x);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    EXPECT_IN(err, "each output needs a file of its own");
    CU_ASSERT_FALSE(tu_exists(x));
    snprintf(args, sizeof args, "run '%s' --quiet --json '%s/./two-x' --cdf '%s'", s, tu_tmpdir(),
             x);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    EXPECT_IN(err, "--cdf");
    snprintf(args, sizeof args, "run '%s' --quiet --json - --csv -", s);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    EXPECT_IN(err, "--csv -: --json - already writes to stdout");
    /* a hard link of an existing output is the same file */
    tu_write("two-y", "old\n");
    unlink(x);
    CU_ASSERT_EQUAL(link(y, x), 0);
    snprintf(args, sizeof args, "run '%s' --quiet --json '%s' --csv '%s'", s, x, y);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    char *t = tu_slurp(y);
    CU_ASSERT_STRING_EQUAL(t, "old\n");
    free(t);
    snprintf(args, sizeof args, "validate --json '%s' --markdown '%s'", x, x);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    EXPECT_IN(err, "--markdown");
    /* different files are fine, and /dev/null takes any number */
    unlink(x);
    unlink(y);
    snprintf(args, sizeof args, "run '%s' --quiet --json '%s' --csv '%s' --cdf /dev/null", s, x, y);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
    CU_ASSERT(is_json_doc(x));
    /* in process: the same target opened twice at once */
    struct ss_out a, b;
    char msg[SS_ERRLEN];
    CU_ASSERT_EQUAL(ss_out_open(&a, x, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL(ss_out_open(&b, x, msg, sizeof msg), -1);
    EXPECT_IN(msg, "already being written by this command");
    ss_out_abort(&a);
}

/* ---- names, links, permissions ------------------------------------------------ */

static void test_long_names(void)
{
    char name[256], path[900], args[2048], err[2048];
    const char *s = tu_write("long-s.json", small);
    for (int len = 240; len <= 255; len += 5) {
        memset(name, 'n', (size_t)len);
        name[len] = '\0';
        tpath(path, sizeof path, name);
        unlink(path);
        snprintf(args, sizeof args, "run '%s' --quiet --json '%s'", s, path);
        int rc = tu_cli(args, NULL, 0, err, sizeof err);
        if (rc)
            fprintf(stderr, "\n  %d-byte name: %s", len, err);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(is_json_doc(path));
        unlink(path);
    }
    CU_ASSERT_FALSE(any_with_prefix("nnnnnnnnnn"));
    /* in process: two 255-byte names with the same first 240 bytes get two temporaries,
     * each within the limit, and a multibyte character is never cut */
    struct ss_out a, b;
    char msg[SS_ERRLEN], p2[900];
    memset(name, 'n', 255);
    memcpy(name + 238, "\xc3\xa9", 2); /* é across the cut */
    name[255] = '\0';
    tpath(path, sizeof path, name);
    name[254] = 'm';
    tpath(p2, sizeof p2, name);
    CU_ASSERT_EQUAL_FATAL(ss_out_open(&a, path, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(ss_out_open(&b, p2, msg, sizeof msg), 0);
    const char *ta = strrchr(a.tmp, '/') + 1, *tb = strrchr(b.tmp, '/') + 1;
    CU_ASSERT(strlen(ta) <= 255 && strlen(tb) <= 255);
    CU_ASSERT_STRING_NOT_EQUAL(a.tmp, b.tmp);
    CU_ASSERT(strstr(ta, ".tmp.") != NULL);
    CU_ASSERT(((unsigned char)ta[strstr(ta, ".tmp.") - ta - 1] & 0xC0) != 0xC0);
    fputs("{}\n", a.fp);
    CU_ASSERT_EQUAL(ss_out_commit(&a, msg, sizeof msg), 0);
    ss_out_abort(&b);
    CU_ASSERT(tu_exists(path));
    CU_ASSERT_FALSE(tu_exists(p2));
    unlink(path);
}

static void test_link_followed_mode_kept(void)
{
    char link_p[600], real_p[600], args[2048], err[2048];
    const char *s = tu_write("lnk-s.json", small);
    tu_write("lnk-real.json", "old\n");
    tpath(real_p, sizeof real_p, "lnk-real.json");
    tpath(link_p, sizeof link_p, "lnk-link.json");
    chmod(real_p, 0640);
    unlink(link_p);
    CU_ASSERT_EQUAL(symlink("lnk-real.json", link_p), 0);
    snprintf(args, sizeof args, "run '%s' --quiet --json '%s'", s, link_p);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
    struct stat st;
    CU_ASSERT(lstat(link_p, &st) == 0 && S_ISLNK(st.st_mode));
    CU_ASSERT(stat(real_p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0640);
    CU_ASSERT(is_json_doc(real_p));
    CU_ASSERT_FALSE(any_with_prefix("lnk-link.json.tmp") || any_with_prefix("lnk-real.json.tmp"));
    /* a file made read-only is not replaced (root may write anything, so only as a user) */
    if (geteuid() != 0) {
        chmod(real_p, 0440);
        CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
        EXPECT_IN(err, "it is not replaced");
        chmod(real_p, 0640);
    }
}

/* ---- stdout -------------------------------------------------------------------- */

static void test_stdout_errors(void)
{
    char args[2048], err[2048];
    const char *s = tu_write("full-s.json", small);
    snprintf(args, sizeof args, "run '%s' --quiet --json -", s);
    CU_ASSERT_EQUAL(cli_stdout_to(args, "/dev/full", err, sizeof err), 2);
    EXPECT_IN(err, "stdout: write error: No space left on device");
    snprintf(args, sizeof args, "run '%s'", s); /* the table */
    CU_ASSERT_EQUAL(cli_stdout_to(args, "/dev/full", err, sizeof err), 2);
    EXPECT_IN(err, "stdout: write error");
    snprintf(args, sizeof args,
             "trace stats traces/AzureLLMInferenceTrace_code.head100.csv "
             "--format azure-llm --json -");
    CU_ASSERT_EQUAL(cli_stdout_to(args, "/dev/full", err, sizeof err), 2);
    CU_ASSERT_EQUAL(cli_stdout_to("--version", "/dev/full", err, sizeof err), 2);
    CU_ASSERT_EQUAL(cli_stdout_to("run --help", "/dev/full", err, sizeof err), 2);
    /* the same commands to a working stdout exit 0 */
    CU_ASSERT_EQUAL(cli_stdout_to("--version", "/dev/null", err, sizeof err), 0);
    CU_ASSERT_EQUAL(cli_stdout_to(args, "/dev/null", err, sizeof err), 0);
}

/* ---- signals --------------------------------------------------------------------- */

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* True once the process catches SIGTERM and its temporary exists. */
static int gen_ready(pid_t pid, const char *tmp)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    unsigned long long mask = 0;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "SigCgt: %llx", &mask) == 1)
            break;
    fclose(fp);
    return (mask & (1ULL << (SIGTERM - 1))) && tu_exists(tmp);
}

static void test_trace_gen_sigterm(void)
{
    char out[600], tmp[700];
    tpath(out, sizeof out, "gen-killed.csv");
    const char *bin = getenv("SHARESIM");
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        execl(bin ? bin : "build/sharesim", "sharesim", "trace", "gen", "--arrival",
              "{\"process\": \"poisson\", \"rate_per_s\": 100}", "--work",
              "{\"dist\": \"exponential\", \"mean_ms\": 1}", "--count", "1000000000", "-o", out,
              (char *)NULL);
        _exit(127);
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)pid);
    int ready = 0;
    for (int i = 0; i < 6000 && !ready; i++) { /* up to 60 s (valgrind starts slowly) */
        ready = gen_ready(pid, tmp);
        if (!ready)
            sleep_s(0.01);
    }
    CU_ASSERT(ready);
    sleep_s(0.2);
    kill(pid, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 143);
    CU_ASSERT_FALSE(tu_exists(tmp));
    CU_ASSERT_FALSE(tu_exists(out));
}

void test_robust_outputs_register(void)
{
    static const struct tu_test tests[] = {
        {"outputs: a device is written in place, never replaced", test_device_in_place},
        {"outputs: a FIFO is written in place", test_fifo_in_place},
        {"outputs: an input is never overwritten (any spelling, links)",
         test_input_never_overwritten},
        {"outputs: two outputs never share a file (stdout included)", test_outputs_distinct},
        {"outputs: names up to 255 bytes, temporaries within the limit", test_long_names},
        {"outputs: a link is followed, permissions kept", test_link_followed_mode_kept},
        {"outputs: write errors on stdout are exit 2", test_stdout_errors},
        {"outputs: trace gen removes its temporary on SIGTERM", test_trace_gen_sigterm},
        {NULL, NULL},
    };
    tu_add_suite("robust_outputs", tests);
}
