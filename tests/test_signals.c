/*
 * Interrupted runs lose nothing and leave nothing half-written.
 *
 * End to end: `sharesim run` on a scenario of 5e7 requests (about 15 s of work) is started with
 * fork/exec, and once its handlers are in place (its SigCgt mask in /proc shows SIGINT and
 * SIGTERM caught) and it has run 0.3 s it gets SIGTERM (exit 143), SIGINT (exit 130) or SIGKILL.
 * Afterwards neither the result nor any temporary of it exists; a result file that was there
 * before keeps its bytes. In process: a forked child opens an atomic output, writes half of it
 * and is signalled mid-write, which is the only moment a temporary exists.
 *
 * SIGKILL cannot be caught, so a killed writer leaves its temporary OUT.tmp.<pid> behind; what
 * matters is that the final name never holds partial content (rename(2) is atomic), which the
 * last test checks and documents.
 *
 * Under valgrind (SHARESIM_UNDER_VALGRIND=1, set by `make test-valgrind`) the mask in /proc is
 * valgrind's own, which catches every signal, so readiness cannot be seen; a signal that lands
 * before sharesim installed its handler kills it by that signal, and the test then tries again
 * with a longer head start (up to 5 times). Outside valgrind the mask is exact and no retry is
 * allowed.
 */
#include "cli/cli.h"
#include "testutil.h"
#include "base/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * cmd_run.o (for cli_install_signal_handlers) needs cli_stderr_is_tty, which sim/cli/main.c defines
 * and the test runner does not link. Weak, so a library definition, if one is added, wins.
 */
__attribute__((weak)) int cli_stderr_is_tty(void)
{
    return 0;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Starts `$SHARESIM args` (through sh's exec, so the pid is sharesim's own). */
static pid_t start_cli(const char *args)
{
    const char *bin = getenv("SHARESIM");
    if (!bin)
        bin = "build/sharesim";
    char cmd[2560], log[600];
    snprintf(cmd, sizeof cmd, "exec %s %s", bin, args);
    snprintf(log, sizeof log, "%s/signal-cli.log", tu_tmpdir());
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "r", stdin) || !freopen(log, "w", stdout) ||
            !freopen(log, "a", stderr))
            _exit(126);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* True once the process catches both SIGINT and SIGTERM (SigCgt in /proc/PID/status). */
static int handlers_installed(pid_t pid)
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
    unsigned long long want = (1ULL << (SIGINT - 1)) | (1ULL << (SIGTERM - 1));
    return (mask & want) == want;
}

/* Waits (up to limit_s) for the handlers; 0 when they are there, -1 on timeout or exit. */
static int wait_ready(pid_t pid, double limit_s)
{
    double t0 = now_s();
    while (now_s() - t0 < limit_s) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            return -1;
        if (handlers_installed(pid))
            return 0;
        sleep_s(0.005);
    }
    return -1;
}

/*
 * Runs the long scenario with --json/--csv outputs named <stem>.json/.csv, sends sig 0.3 s
 * (more under valgrind) after the handlers are in, and returns the wait status.
 */
static int interrupt_run(const char *stem, int sig)
{
    /* 5e7 requests: about 15 s of work, far longer than the test waits. */
    const char *scn = tu_fixture("signals/long-run.json");
    char args[2048];
    snprintf(args, sizeof args, "run %s --quiet --json %s/%s.json --csv %s/%s.csv", scn,
             tu_tmpdir(), stem, tu_tmpdir(), stem);
    int vg = tu_under_valgrind();
    double head_start = vg ? 3.0 : 0.3;
    for (int attempt = 0;; attempt++) {
        pid_t pid = start_cli(args);
        CU_ASSERT_FATAL(pid > 0);
        int ready = wait_ready(pid, vg ? 120 : 20);
        CU_ASSERT_EQUAL(ready, 0);
        sleep_s(head_start);
        int st = 0;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            fprintf(stderr, "\n  sharesim exited before the signal (status %d)", st);
            CU_FAIL("the long run ended before it could be interrupted");
            return st;
        }
        CU_ASSERT_EQUAL(kill(pid, sig), 0);
        CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
        /* Only under valgrind can the signal have beaten the handler (see the top). */
        if (vg && sig != SIGKILL && WIFSIGNALED(st) && WTERMSIG(st) == sig && attempt < 4) {
            head_start *= 2;
            continue;
        }
        return st;
    }
}

static void check_no_outputs(const char *stem)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.", stem);
    if (tu_dir_has(tu_tmpdir(), prefix))
        fprintf(stderr, "\n  %s/%s* left behind", tu_tmpdir(), prefix);
    CU_ASSERT_FALSE(tu_dir_has(tu_tmpdir(), prefix));
}

static void test_sigterm_run(void)
{
    int st = interrupt_run("sigterm", SIGTERM);
    CU_ASSERT_TRUE(WIFEXITED(st));
    CU_ASSERT_EQUAL(WEXITSTATUS(st), 143);
    check_no_outputs("sigterm");
}

static void test_sigint_run(void)
{
    int st = interrupt_run("sigint", SIGINT);
    CU_ASSERT_TRUE(WIFEXITED(st));
    CU_ASSERT_EQUAL(WEXITSTATUS(st), 130);
    check_no_outputs("sigint");
}

static void test_sigkill_run(void)
{
    int st = interrupt_run("sigkill", SIGKILL);
    CU_ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    char out[600];
    snprintf(out, sizeof out, "%s/sigkill.json", tu_tmpdir());
    CU_ASSERT_FALSE(tu_exists(out));
    snprintf(out, sizeof out, "%s/sigkill.csv", tu_tmpdir());
    CU_ASSERT_FALSE(tu_exists(out));
}

/* A result from an earlier run keeps its bytes when a later run is interrupted. */
static void test_interrupt_keeps_previous_result(void)
{
    static const char old[] = "{\"previous\": \"result\"}\n";
    static const int sigs[] = {SIGTERM, SIGKILL};
    for (int i = 0; i < 2; i++) {
        const char *paths[2] = {tu_write("prev.json", old), tu_write("prev.csv", old)};
        int st = interrupt_run("prev", sigs[i]);
        CU_ASSERT(WIFEXITED(st) || WIFSIGNALED(st));
        for (int k = 0; k < 2; k++) {
            char *now = tu_slurp(paths[k]);
            CU_ASSERT_PTR_NOT_NULL_FATAL(now);
            CU_ASSERT_STRING_EQUAL(now, old);
            free(now);
        }
        /* Interrupted while simulating: no temporary was opened yet, even for SIGKILL. */
        CU_ASSERT_FALSE(tu_dir_has(tu_tmpdir(), "prev.json.tmp") ||
                        tu_dir_has(tu_tmpdir(), "prev.csv.tmp"));
    }
}

/*
 * In a forked child: install sharesim's handlers, open OUT atomically, write half a result
 * and get sig. Returns the child's wait status and its pid (the temporary's suffix).
 */
static int signal_mid_write(const char *out, int sig, pid_t *child)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        cli_install_signal_handlers();
        struct ss_out o;
        char err[SS_ERRLEN];
        if (ss_out_open(&o, out, err, sizeof err))
            _exit(3);
        fputs("{\"strategies\": [{\"name\": \"half a res", o.fp);
        fflush(o.fp);
        raise(sig);
        _exit(4); /* not reached: the handler exits 128 + sig, SIGKILL kills */
    }
    int st = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
    *child = pid;
    return st;
}

static void test_signal_mid_write_removes_temporary(void)
{
    static const int sigs[] = {SIGTERM, SIGINT};
    for (int i = 0; i < 2; i++) {
        char out[600], tmp[700];
        snprintf(out, sizeof out, "%s/midwrite.json", tu_tmpdir());
        pid_t pid;
        int st = signal_mid_write(out, sigs[i], &pid);
        CU_ASSERT_TRUE(WIFEXITED(st));
        CU_ASSERT_EQUAL(WEXITSTATUS(st), 128 + sigs[i]);
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)pid);
        CU_ASSERT_FALSE(tu_exists(tmp));
        CU_ASSERT_FALSE(tu_exists(out));
    }
}

static void test_sigkill_mid_write_never_exposes_partial(void)
{
    char out[600], tmp[700];
    snprintf(out, sizeof out, "%s/killed.json", tu_tmpdir());
    pid_t pid;
    int st = signal_mid_write(out, SIGKILL, &pid);
    CU_ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    CU_ASSERT_FALSE(tu_exists(out));
    /* The unavoidable leftover: named after the dead writer's pid, never the result's name. */
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)pid);
    CU_ASSERT_TRUE(tu_exists(tmp));
    remove(tmp);
    /* With an earlier result in place, it keeps its bytes. */
    tu_write("killed.json", "old\n");
    st = signal_mid_write(out, SIGKILL, &pid);
    CU_ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    char *now = tu_slurp(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(now);
    CU_ASSERT_STRING_EQUAL(now, "old\n");
    free(now);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)pid);
    remove(tmp);
}

void test_signals_register(void)
{
    static const struct tu_test t[] = {
        {"SIGTERM during run: exit 143, no result, no temporary", test_sigterm_run},
        {"SIGINT during run: exit 130, no result, no temporary", test_sigint_run},
        {"SIGKILL during run: no result file", test_sigkill_run},
        {"interrupted run keeps an earlier result intact", test_interrupt_keeps_previous_result},
        {"SIGTERM/SIGINT mid-write remove the temporary", test_signal_mid_write_removes_temporary},
        {"SIGKILL mid-write: stale temporary, never a partial result",
         test_sigkill_mid_write_never_exposes_partial},
        {NULL, NULL},
    };
    tu_add_suite("signals", t);
}
