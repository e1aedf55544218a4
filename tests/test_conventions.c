/*
 * conventions — one CLI convention for every command (docs/cli.md): every command that
 * produces results takes `--json FILE|-` and writes exactly one JSON document on stdout with
 * "-"; commands with rows take `--csv FILE|-`; every --help names its outputs and its exit
 * codes; and each command keeps the exit-code table: 0 ok, 1 it ran but the answer is negative,
 * 2 bad input. The command table (cli_root) is walked, so a new command must be added here —
 * to a case, or to the short list of commands whose output is not a result (report md,
 * summary, mig, index: they turn results into Markdown and CSV; their JSON is their input) —
 * and to the exit-code table of docs/cli.md.
 */
#include "cli/cli.h"
#include "testutil.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP (1 << 20)
static char out[CAP], errb[1 << 16];

/* Commands whose output is not a result, and why (docs/cli.md says the same). */
static const char *const no_json[] = {
    "report md",   "report summary", "report mig",     "report index",
    "report html", "report check",   "report gnuplot", NULL};

/* Two light tenants; "a" has an SLA it meets, "b" one it misses (2 ms work, 1 ms p99). */
static const char *scn_text =
    "{\"name\": \"conv\", \"gpu\": \"A100-80GB\", \"gpus\": 2, \"seed\": 1, \"stop\": "
    "{\"requests\": 2000}, \"tenants\": ["
    "{\"name\": \"a\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 50}, \"work\": "
    "{\"dist\": \"exponential\", \"mean_ms\": 2}, \"sla\": {\"p99_ms\": 1000}},"
    "{\"name\": \"b\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 50}, \"work\": "
    "{\"dist\": \"exponential\", \"mean_ms\": 2}, \"sla\": {\"p99_ms\": %s}}], "
    "\"strategies\": [{\"name\": \"excl\", \"kind\": \"exclusive\"}, {\"name\": \"ts\", "
    "\"kind\": \"timeslice\"}]}";

static const char *frag_text =
    "{\"schema\": \"sharesim-profile/1\", \"device\": \"NVIDIA H100 80GB HBM3\", \"measured\": "
    "true, \"driver\": \"570.86.15, CUDA 12.8\", \"date\": \"2025-01-02T03:04:05Z\", "
    "\"switch_us\": {\"value\": 12.5, \"source\": \"tslice on NVIDIA H100 80GB HBM3\", "
    "\"confidence\": \"measured\"}}";

/* The files the cases name: @S (every SLA met), @M (an SLA missed), @F (a kernels/ fragment),
 * @I (an index with a reference study whose row result is in @D), @D (the test folder). */
static char path_s[600], path_m[600], path_f[600], path_i[600];

static void setup(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    char text[4096];
    snprintf(text, sizeof text, scn_text, "1000");
    snprintf(path_s, sizeof path_s, "%s", tu_write("conv-ok.json", text));
    snprintf(text, sizeof text, scn_text, "1");
    snprintf(path_m, sizeof path_m, "%s", tu_write("conv-miss.json", text));
    snprintf(path_f, sizeof path_f, "%s", tu_write("conv-frag.json", frag_text));
    snprintf(text, sizeof text,
             "{\"studies\": [{\"id\": \"ref\", \"title\": \"Ref\", \"kind\": \"reference\", "
             "\"rows\": [{\"mode\": \"m\", \"instances\": 2, \"strategy\": \"ts\", \"scenario\": "
             "\"%s\", \"paper\": {\"tps_per_instance\": 50, \"p99_ms\": 20, \"gpu_util\": "
             "0.5}}]}]}",
             path_s);
    snprintf(path_i, sizeof path_i, "%s", tu_write("conv-index.json", text));
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "run %s --quiet --json %s/ref-m.json", path_s, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, NULL, 0), 0);
}

/* args with @S @M @F @I @D replaced. */
static void expand(const char *args, char *buf, size_t n)
{
    size_t k = 0;
    for (const char *p = args; *p && k + 1 < n; p++) {
        const char *rep = NULL;
        if (p[0] == '@' && p[1]) {
            switch (p[1]) {
            case 'S':
                rep = path_s;
                break;
            case 'M':
                rep = path_m;
                break;
            case 'F':
                rep = path_f;
                break;
            case 'I':
                rep = path_i;
                break;
            case 'D':
                rep = tu_tmpdir();
                break;
            }
        }
        if (rep) {
            k += (size_t)snprintf(buf + k, n - k, "%s", rep);
            p++;
        } else {
            buf[k++] = *p;
        }
    }
    buf[k < n ? k : n - 1] = '\0';
}

struct conv_case {
    const char *cmd;  /* the command path, as cli_root names it */
    const char *args; /* after the path; "-" outputs go to stdout */
    int rc;
};

/* Every result command with `--json -`: one JSON document is the whole of stdout. */
static const struct conv_case json_cases[] = {
    {"run", "@S --json -", 0},
    {"compare", "@S --json -", 0},
    {"sweep", "@S --set seed=1,2 --out @D/conv-sweep --no-plot --jobs 1 --json -", 0},
    {"trace stats", "traces/AzureLLMInferenceTrace_conv.head100.csv --format azure-llm --json -",
     0},
    {"trace gen",
     "--arrival '{\"process\": \"poisson\", \"rate_per_s\": 10}' --work '{\"dist\": "
     "\"exponential\", \"mean_ms\": 5}' --count 5 -o @D/conv-gen.csv --json -",
     0},
    {"report reference", "@I --study ref --dir @D --json -", 0},
    {"plan", "@S --json -", 0},
    {"mig profiles", "--gpu A100-40GB --json -", 0},
    {"mig layouts", "--gpu A100-40GB --json -", 0},
    {"mig check", "--gpu A100-40GB --json - 3g.20gb,4x1g.5gb", 0},
    {"mig pack", "--gpu A100-40GB --json - 2x3g.20gb,8x1g.5gb", 0},
    {"profile list", "--json -", 0},
    {"profile show", "A100-40GB --json -", 0},
    {"model list", "--json -", 0},
    {"model show", "Mixtral-8x7B --json -", 0},
    {"profile diff", "A100-40GB A100-80GB --json -", 0},
    {"profile merge", "H100-80GB @F --json -", 0},
    {"profile match", "'NVIDIA H200' --json -", 0},
    {"profile fit", "tests/fixtures/fit/known.csv --no-fit --json -", 0},
    {"profile occupancy", "--json -", 0},
    {"validate", "--quick --json -", 0},
    {"cluster", "tests/fixtures/cluster/tiny.json --quiet --json -", 0},
    {"fidelity scenario", "tests/fixtures/fidelity/timeslice-2.json --gpu H100-80GB --json -", 0},
    {"fidelity table", "tests/fixtures/fidelity/timeslice-2.json --sim @D --json -", 0},
    {NULL, NULL, 0},
};

/* Commands with rows and `--csv -`. */
static const struct conv_case csv_cases[] = {
    {"run", "@S --csv -", 0},
    {"compare", "@S --csv -", 0},
    {"sweep", "@S --set seed=1,2 --out @D/conv-sweep --no-plot --jobs 1 --csv -", 0},
    {"plan", "@S --csv -", 0},
    {"mig profiles", "--gpu A100-40GB --csv -", 0},
    {"mig layouts", "--gpu A100-40GB --csv -", 0},
    {"mig check", "--gpu A100-40GB --csv - 3g.20gb,4x1g.5gb", 0},
    {"mig pack", "--gpu A100-40GB --csv - 2x3g.20gb,8x1g.5gb", 0},
    {"profile list", "--csv -", 0},
    {"profile diff", "A100-40GB A100-80GB --csv -", 0},
    {"validate", "--quick --csv -", 0},
    {"fidelity table", "tests/fixtures/fidelity/timeslice-2.json --sim @D --csv -", 0},
    {"profile fit", "tests/fixtures/fit/known.csv --no-fit --csv -", 0},
    {NULL, NULL, 0},
};

/* The exit-code table, command by command: 0 ok, 1 a negative answer, 2 bad input. */
static const struct conv_case exit_cases[] = {
    {"run", "@M --quiet", 0}, /* an SLA missed is a result, not a failure */
    {"run", "@M --quiet --check-sla", 1},
    {"run", "@S --quiet --check-sla", 0},
    {"run", "@D/no-such.json", 2},
    {"compare", "@M --quiet", 0},
    {"compare", "@M --quiet --check-sla", 1},
    {"compare", "@S --baseline nosuch", 2},
    {"plan", "@S --quiet", 0},
    {"plan", "@M --quiet", 1}, /* no configuration meets a 1 ms p99 on 2 ms of work */
    {"plan", "@D/no-such.json", 2},
    {"plan", "@S --quiet --k8s @D/conv-k8s/new --namespace team-gpu", 0}, /* DIR created */
    {"plan", "@M --quiet --k8s @D/conv-k8s-none", 1}, /* all pruned: no files, still a no */
    {"plan", "@S --quiet --namespace Not_A_Name", 2},
    {"sweep", "@S --set seed=1 --out @D/conv-sweep2 --no-plot --quiet", 0},
    {"sweep", "@S --set nosuch.key=1 --out @D/conv-sweep3", 2},
    {"validate", "--quick --quiet", 0},
    {"validate", "--jobs 0", 2},
    {"cluster", "tests/fixtures/cluster/tiny.json --quiet", 0},
    {"cluster", "@D/no-such.json", 2},
    {"cluster", "tests/fixtures/cluster/tiny.json --shard 1/2 --partial @D/conv-cl1.partial", 0},
    /* shard 0's experiment is in no partial file */
    {"cluster", "tests/fixtures/cluster/tiny.json --quiet --merge @D/conv-cl1.partial", 2},
    {"fidelity scenario",
     "tests/fixtures/fidelity/timeslice-2.json --gpu H100-80GB -o @D/conv-fid.json", 0},
    {"fidelity scenario", "tests/fixtures/fidelity/timeslice-2.json --gpu V100 -o @D/x.json", 2},
    {"fidelity table", "tests/fixtures/fidelity/timeslice-2.json --sim @D -o @D/conv-fid.md", 0},
    /* no prediction in @D: the p99 check fails */
    {"fidelity table", "tests/fixtures/fidelity/timeslice-2.json --sim @D --check -o @D/f.md", 1},
    {"fidelity table", "@D/no-such.json --sim @D", 2},
    {"trace stats", "traces/AzureLLMInferenceTrace_conv.head100.csv --format azure-llm", 0},
    {"trace stats", "traces/AzureLLMInferenceTrace_conv.head100.csv", 2},
    {"trace gen", "--scenario @S --tenant a --count 3 -o @D/conv-gen2.csv", 0},
    {"trace gen", "--scenario @S --tenant nosuch --count 3 -o @D/conv-gen3.csv", 2},
    {"profile fit", "tests/fixtures/fit/known.csv --no-fit --quiet", 0},
    {"profile fit", "@D/no-such.csv", 2},
    {"profile occupancy", "", 0},
    {"profile occupancy", "--presets @D/no-such.json", 2},
    {"mig profiles", "--gpu A100-40GB", 0},
    {"mig profiles", "--gpu V100", 2},
    {"mig layouts", "--gpu A100-40GB --maximal", 0},
    {"mig layouts", "--gpu A100-40GB --order largest", 2},
    {"mig check", "--gpu A100-40GB 3g.20gb,4x1g.5gb", 0},
    {"mig check", "--gpu A100-40GB 4g.20gb,4g.20gb", 1}, /* well-formed, but illegal */
    {"mig check", "--gpu A100-40GB 3g.20gb,5g.20gb", 2}, /* no such profile */
    {"mig pack", "--gpu A100-40GB 2x3g.20gb,8x1g.5gb", 0},
    {"mig pack", "--gpu A100-40GB --gpus 1 2x3g.20gb,8x1g.5gb", 1},
    {"mig pack", "--gpu A100-40GB --order random 1g.5gb", 2},
    {"profile list", "", 0},
    {"profile list", "extra", 2},
    {"model list", "", 0},
    {"model list", "extra", 2},
    {"model show", "meta-llama/Meta-Llama-3-8B-Instruct", 0},
    {"model show", "GPT-5", 2},
    {"profile show", "A100-40GB", 0},
    {"profile show", "V100", 2},
    {"profile diff", "A100-40GB A100-80GB", 0},
    {"profile diff", "A100-40GB", 2},
    {"profile merge", "H100-80GB @F -o @D/conv-merged.json", 0},
    {"profile merge", "H100-80GB", 2},
    {"profile match", "'NVIDIA H200'", 0},
    {"profile match", "'Tesla T4'", 1}, /* a well-formed question; the answer is none */
    {"profile match", "", 2},
    {"report md", "@D/ref-m.json", 0},
    {"report md", "@D/no-such.json", 2},
    {"report html", "@D/ref-m.json -o @D/conv-page.html", 0},
    {"report html", "@D/no-such.json -o @D/conv-page2.html", 2},
    {"report check", "results/vgpu-schedulers.html", 0},
    {"report check", "tests/fixtures/svgcheck/hidden-curve.svg", 1},
    {"report check", "@D/no-such.html", 2},
    {"cluster", "tests/fixtures/cluster/tiny.json --quiet --json @D/conv-cl.json", 0},
    {"report gnuplot", "@D/conv-cl.json --out @D/conv-gp", 0},
    {"report gnuplot", "@D/no-such.json --out @D/conv-gp2", 2},
    {"report summary", "@D/ref-m.json", 0},
    {"report summary", "", 2},
    {"report mig", "@D/no-such.json", 2},
    {"report index", "@I", 0},
    {"report index", "@D/no-such.json", 2},
    {"report reference", "@I --study ref --dir @D --json @D/conv-ref.json", 0},
    {"report reference", "@I --study nosuch --dir @D --json @D/conv-ref.json", 2},
    {NULL, NULL, 0},
};

static int is_no_json(const char *path)
{
    for (int k = 0; no_json[k]; k++)
        if (strcmp(no_json[k], path) == 0)
            return 1;
    return 0;
}

/* Calls fn(path) for every leaf of the command table, path as typed after "sharesim". */
static void walk(const char *prefix, const struct cli_group *g, void (*fn)(const char *))
{
    for (const struct cli_command *c = g->subs; c->name; c++) {
        char path[128];
        if (snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? " " : "", c->name) >=
            (int)sizeof path)
            continue; /* no command path is this long */
        if (c->fn)
            fn(path);
        else
            walk(path, c->group, fn);
    }
}

static int slow(const char *cmd)
{
    /* The quick validation grid is 10 million requests: left to the normal and ASan runs. */
    return tu_under_valgrind() && strcmp(cmd, "validate") == 0;
}

static int run_case(const struct conv_case *c)
{
    char args[4096], cmd[4200];
    expand(c->args, args, sizeof args);
    snprintf(cmd, sizeof cmd, "%s %s", c->cmd, args);
    int rc = tu_cli(cmd, out, CAP, errb, sizeof errb);
    if (rc != c->rc)
        fprintf(stderr, "\n  sharesim %s: exit %d, expected %d; stderr: %.400s\n", cmd, rc, c->rc,
                errb);
    CU_ASSERT_EQUAL(rc, c->rc);
    return rc;
}

static const struct conv_case *find(const struct conv_case *cases, const char *path)
{
    for (const struct conv_case *c = cases; c->cmd; c++)
        if (strcmp(c->cmd, path) == 0)
            return c;
    return NULL;
}

static void check_json_leaf(const char *path)
{
    if (is_no_json(path))
        return;
    const struct conv_case *c = find(json_cases, path);
    if (!c)
        fprintf(stderr, "\n  sharesim %s: no --json - case (add one, or a reason to no_json)\n",
                path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    if (slow(path))
        return;
    run_case(c);
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithOpts(out, &end, 0);
    while (doc && end && (*end == '\n' || *end == ' '))
        end++;
    if (!doc || !end || *end)
        fprintf(stderr, "\n  sharesim %s --json -: stdout is not one JSON document:\n%.300s\n",
                path, out);
    CU_ASSERT(doc != NULL && end && *end == '\0');
    cJSON_Delete(doc);
}

static void test_every_command_json(void)
{
    setup();
    walk("", &cli_root, check_json_leaf);
    for (const struct conv_case *c = json_cases; c->cmd; c++)
        CU_ASSERT_FALSE(is_no_json(c->cmd));
}

/* Fields of one CSV line (RFC 4180 quotes). */
static int csv_fields(const char *line, const char **next)
{
    int n = 1, quoted = 0;
    const char *p = line;
    for (; *p && (quoted || *p != '\n'); p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (*p == ',' && !quoted)
            n++;
    }
    *next = *p ? p + 1 : p;
    return n;
}

static void test_csv_rows(void)
{
    setup();
    for (const struct conv_case *c = csv_cases; c->cmd; c++) {
        if (slow(c->cmd))
            continue;
        run_case(c);
        /* A header and at least one row, every row as wide as the header. */
        const char *p = out, *next;
        int cols = csv_fields(p, &next), rows = 0;
        CU_ASSERT(cols > 1);
        for (p = next; *p; p = next, rows++) {
            int n = csv_fields(p, &next);
            if (n != cols)
                fprintf(stderr, "\n  sharesim %s --csv -: row %d has %d fields, header %d\n",
                        c->cmd, rows + 1, n, cols);
            CU_ASSERT_EQUAL(n, cols);
        }
        CU_ASSERT(rows >= 1);
    }
}

static void check_exit_leaf(const char *path)
{
    int seen[3] = {0, 0, 0};
    for (const struct conv_case *c = exit_cases; c->cmd; c++)
        if (strcmp(c->cmd, path) == 0)
            seen[c->rc] = 1;
    /* Every command has a case that works (report mig needs a MIG result: tests/test_rtable.c)
     * and one with bad input. */
    int zero_ok = seen[0] || strcmp(path, "report mig") == 0;
    if (!zero_ok || !seen[2])
        fprintf(stderr, "\n  sharesim %s: exit-code cases missing (0: %d, 2: %d)\n", path, seen[0],
                seen[2]);
    CU_ASSERT(zero_ok && seen[2]);
    /* The table of docs/cli.md has the command's row; where its 1 column names a negative
     * answer, a case here gives it (validate's failing row cannot be provoked on purpose:
     * tests/test_validate.c checks the verdict itself). */
    char *doc = tu_slurp("docs/cli.md"), row[160];
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    snprintf(row, sizeof row, "| `sharesim %s` | ", path);
    const char *r = strstr(doc, row);
    if (!r)
        fprintf(stderr, "\n  docs/cli.md: no exit-code row for sharesim %s\n", path);
    CU_ASSERT_PTR_NOT_NULL(r);
    const char *one = r ? strstr(r + strlen(row), " | ") : NULL;
    if (one && strncmp(one + 3, "—", strlen("—")) != 0 && strcmp(path, "validate") != 0) {
        if (!seen[1])
            fprintf(stderr, "\n  sharesim %s: docs/cli.md has an exit 1, no case gives it\n", path);
        CU_ASSERT(seen[1]);
    }
    free(doc);
}

static void test_exit_codes(void)
{
    setup();
    for (const struct conv_case *c = exit_cases; c->cmd; c++)
        if (!slow(c->cmd))
            run_case(c);
    walk("", &cli_root, check_exit_leaf);
}

/* --help is complete: it names --json (for result commands) and the exit codes. */
static void check_help_leaf(const char *path)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "%s --help", path);
    CU_ASSERT_EQUAL(tu_cli(cmd, out, CAP, errb, sizeof errb), 0);
    int json = strstr(out, "--json") != NULL;
    int exits = strstr(out, "exit") != NULL || strstr(out, "Exit") != NULL;
    if ((!json && !is_no_json(path)) || !exits)
        fprintf(stderr, "\n  sharesim %s --help: %s%s\n", path, json ? "" : "no --json ",
                exits ? "" : "no exit codes");
    CU_ASSERT(json || is_no_json(path));
    CU_ASSERT(exits);
}

static void test_help_complete(void)
{
    walk("", &cli_root, check_help_leaf);
}

void test_conventions_register(void)
{
    static const struct tu_test t[] = {
        {"every result command writes one JSON document with --json -", test_every_command_json},
        {"commands with rows: --csv - gives a header and equal rows", test_csv_rows},
        {"exit codes: 0 ok, 1 negative answer, 2 bad input, per command", test_exit_codes},
        {"--help names --json and the exit codes", test_help_complete},
        {NULL, NULL},
    };
    tu_add_suite("conventions", t);
}
