/*
 * sharesim run (cli/cmd_run.c) end to end: the same scenario and seed give byte-identical
 * JSON, and bad input exits 2 with a message naming the file and leaves no output file.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void test_json_deterministic(void)
{
    /* The scenario of the engine's common-random-numbers test. */
    char cmd[1024], a[1 << 15], b[1 << 15];
    snprintf(cmd, sizeof cmd, "run %s --json -", tu_fixture("engine/two-tenants.json"));
    CU_ASSERT_EQUAL(tu_cli(cmd, a, sizeof a, NULL, 0), 0);
    CU_ASSERT_EQUAL(tu_cli(cmd, b, sizeof b, NULL, 0), 0);
    CU_ASSERT(strlen(a) > 500);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_PTR_NOT_NULL(strstr(a, "\"cost_per_million_requests_usd\""));
}

/* Each bad scenario: exit 2, the message part, and no output file left behind. */
static void test_bad_input(void)
{
    static const struct {
        const char *text;
        const char *msg;
    } cases[] = {
        {"{\"name\": \"x\", \"gpu\": \"A100-80GB\", \"stop\": {\"requ", "JSON syntax error"},
        {"{\"name\": \"x\", \"gpu\": \"A100-80GB\", \"colour\": 1}",
         "colour: unknown key \"colour\""},
        {"{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 10}, \"tenants\": [{\"name\": \"a\", "
         "\"arrival\": {\"process\": \"poisson\", \"rate_per_s\": -5}, \"work\": {\"dist\": "
         "\"exponential\", \"mean_ms\": 1}}], \"strategies\": [{\"name\": \"x\", \"kind\": "
         "\"exclusive\"}]}",
         "tenants[0].arrival.rate_per_s: expected a number > 0"},
        {"{\"gpu\": \"V100\", \"stop\": {\"requests\": 10}}", "unknown GPU \"V100\""},
        {"{\"gpu\": \"A100-80GB\", \"gpus\": 0, \"stop\": {\"requests\": 10}}",
         "gpus: expected a number in [1, 100000], got 0"},
        {"{\"gpu\": \"A100-80GB\", \"gpus\": 2, \"stop\": {\"requests\": 10}, \"tenants\": "
         "[{\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 5}, "
         "\"work\": {\"dist\": \"exponential\", \"mean_ms\": 1}}, {\"name\": \"a\", \"arrival\": "
         "{\"process\": \"poisson\", \"rate_per_s\": 5}, \"work\": {\"dist\": \"exponential\", "
         "\"mean_ms\": 1}}], \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}",
         "duplicate tenant name \"a\""},
        {"{\"gpu\": \"A100-80GB\", \"stop\": {\"requests\": 10}, \"tenants\": [{\"name\": \"a\", "
         "\"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 5}, \"work\": {\"dist\": "
         "\"exponential\", \"mean_ms\": 1}}], \"strategies\": []}",
         "strategies: expected a non-empty array"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *path = tu_write("bad.json", cases[i].text);
        char out_path[600], cmd[1400], err[4096];
        snprintf(out_path, sizeof out_path, "%s/out.json", tu_tmpdir());
        remove(out_path);
        snprintf(cmd, sizeof cmd, "run %s --json %s", path, out_path);
        int rc = tu_cli(cmd, NULL, 0, err, sizeof err);
        CU_ASSERT_EQUAL(rc, 2);
        if (!strstr(err, cases[i].msg))
            fprintf(stderr, "\n  case %zu: expected \"%s\" in: %s", i, cases[i].msg, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].msg));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad.json"));
        CU_ASSERT_FALSE(tu_exists(out_path));
    }
}

/* run's check is the shared one now: the same refusals, and the scenario by a link. */
static void test_run_outputs(void)
{
    char args[1400], link_path[600];
    const char *s = tu_fixture("cmd_compare/two-tenants.json");
    snprintf(args, sizeof args, "run '%s' --json @X --cdf @X", s);
    tu_expect_outputs_refused(args, "run-x", "--cdf ", "the same file as --json ", NULL);
    snprintf(args, sizeof args, "run '%s' --json - --csv -", s);
    tu_expect_outputs_refused(args, NULL, "--csv -: --json - already writes to stdout", NULL);
    /* a file not written yet, once directly and once through a link to its directory */
    snprintf(link_path, sizeof link_path, "%s/run-dirlink", tu_tmpdir());
    unlink(link_path);
    CU_ASSERT_EQUAL(symlink(tu_tmpdir(), link_path), 0);
    snprintf(args, sizeof args, "run '%s' --json '%s/run-new.json' --csv '%s/run-new.json'", s,
             tu_tmpdir(), link_path);
    tu_expect_outputs_refused(args, NULL, "each output needs a file of its own", NULL);
    snprintf(args, sizeof args, "%s/run-new.json", tu_tmpdir());
    CU_ASSERT_FALSE(tu_exists(args));
}

void test_cmd_run_register(void)
{
    static const struct tu_test t[] = {
        {"same scenario and seed give byte-identical JSON", test_json_deterministic},
        {"bad input exits 2 with a message and no output", test_bad_input},
        {"one output per file: the shared plan (cli/outplan.h)", test_run_outputs},
        {NULL, NULL},
    };
    tu_add_suite("cmd_run", t);
}
