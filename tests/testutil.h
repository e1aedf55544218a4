/*
 * testutil — shared helpers for the CUnit suites: temporary directories and
 * files, and running the `sharesim` CLI under test ($SHARESIM, set by the Makefile)
 * to check exit codes, messages and files end to end.
 */
#ifndef SS_TESTUTIL_H
#define SS_TESTUTIL_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct lm_model;
/* The model table's entry `name` into *m (fatal, with the lookup's message, if it has none). */
void tu_model(const char *name, struct lm_model *m);

/* Adds a suite with the given tests ({name, fn}, NULL-terminated). */
struct tu_test {
    const char *name;
    CU_TestFunc fn;
};
void tu_add_suite(const char *name, const struct tu_test *tests);

/* A fresh temporary directory (removed at exit); returns its path. */
const char *tu_tmpdir(void);
/* Writes text to <tmpdir>/<name>; returns the full path (static buffer per call slot). */
char *tu_write(const char *name, const char *text);

/*
 * Runs `$SHARESIM <args>` through /bin/sh; captures stdout and stderr (each
 * truncated to cap bytes, NUL-terminated; either may be NULL). Returns the exit code.
 */
int tu_cli(const char *args, char *out, size_t outcap, char *errbuf, size_t errcap);

/* Runs `$SHARESIM <args> --json -` and parses what it writes: the document (caller frees with
 * cJSON_Delete), or NULL when it did not exit 0 with JSON (stderr printed). One assertion. */
struct cJSON;
struct cJSON *tu_cli_json(const char *args);
/* A number at a dotted path in a document ("strategies.0.tenants.1.latency_ms.mean", array
 * elements by index), also one written as a raw 6-digit number (jv_out_num); NaN if absent. */
double tu_json_num(const struct cJSON *doc, const char *path);

/* True if the file exists. */
int tu_exists(const char *path);
/* Reads a whole file; caller frees; NULL if missing. */
char *tu_slurp(const char *path);
/* Path of the repository root (tests run from it). */
const char *tu_root(void);
/* True when running under sanitizers (SHARESIM_SANITIZED=1): long runs are scaled down. */
int tu_sanitized(void);
/* True under `make test-valgrind` (SHARESIM_UNDER_VALGRIND=1): every CLI runs ~50× slower,
 * so end-to-end runs of whole grids are left to the normal and ASan builds. */
int tu_under_valgrind(void);

/*
 * Scenarios. Suites load and run them through these (tests of the loader's own errors may
 * call it directly), so a scenario that does not load fails the test at the caller's line
 * with the loader's message (the CUnit report shows it) instead of a bare "rc == 0". Text is loaded
 * under the name "inline.json" (messages say so; relative paths in it resolve against the working
 * directory, the repository root). Runs take the scenario's replications and seed, with the
 * slowdown option and the progress line off (run_opts {0, -1, 0, 0}, what every suite used). Each
 * helper counts as one assertion, like the CU_ASSERT_EQUAL_FATAL(rc, 0) it replaces; a
 * failed load ends the test.
 */
struct scenario;
struct run_result;
#define tu_load_text(text, sc) tu_load_text_at(__FILE__, __LINE__, (text), (sc))
#define tu_load_file(path, sc) tu_load_file_at(__FILE__, __LINE__, (path), (sc))
#define tu_run_text(text, sc, res) tu_run_text_at(__FILE__, __LINE__, (text), (sc), (res))
#define tu_run_file(path, sc, res) tu_run_file_at(__FILE__, __LINE__, (path), (sc), (res))
/* The load must fail with `part` in its message: two assertions (the failure, the message);
 * what was parsed is freed. */
#define tu_expect_load_error(text, part) tu_expect_load_error_at(__FILE__, __LINE__, (text), (part))
void tu_load_text_at(const char *file, int line, const char *text, struct scenario *sc);
void tu_load_file_at(const char *file, int line, const char *path, struct scenario *sc);
void tu_run_text_at(const char *file, int line, const char *text, struct scenario *sc,
                    struct run_result *res);
void tu_run_file_at(const char *file, int line, const char *path, struct scenario *sc,
                    struct run_result *res);
void tu_expect_load_error_at(const char *file, int line, const char *text, const char *part);
/* tu_run_text / tu_expect_load_error of a fixture patched as by tu_fixture_patch (below). */
#define tu_run_fixture(sc, res, rel, ...)                                                          \
    tu_run_fixture_at(__FILE__, __LINE__, (sc), (res), (rel), __VA_ARGS__)
#define tu_expect_fixture_error(part, rel, ...)                                                    \
    tu_expect_fixture_error_at(__FILE__, __LINE__, (part), (rel), __VA_ARGS__)
void tu_run_fixture_at(const char *file, int line, struct scenario *sc, struct run_result *res,
                       const char *rel, const char *patch, ...)
    __attribute__((format(printf, 6, 7)));
void tu_expect_fixture_error_at(const char *file, int line, const char *part, const char *rel,
                                const char *patch, ...) __attribute__((format(printf, 5, 6)));
/* `sharesim run <path>` must exit 2, naming the file, with part in the message (NULL: only
 * the file): two or three assertions. */
#define tu_expect_run_error(path, part) tu_expect_run_error_at(__FILE__, __LINE__, (path), (part))
void tu_expect_run_error_at(const char *file, int line, const char *path, const char *part);

/*
 * Fixtures: scenario (and other) files under tests/fixtures/, one folder per suite. A test
 * that needs the same scenario with other numbers loads the fixture and patches it instead
 * of keeping a printf template of the whole text.
 */
/* The path of tests/fixtures/<rel>, relative to the repository root (16 static slots). */
const char *tu_fixture(const char *rel);
/*
 * The text of tests/fixtures/<rel> with fields replaced (caller frees). The patch, a printf
 * format, is a JSON object whose keys are dotted paths into the fixture, array elements by
 * index: {"tenants.0.work.ms": 2.5, "gpus": 2}. Each value replaces what is at its path (or
 * is added, when the last step names a missing key of an object). A missing fixture, a patch
 * that does not parse or a path that does not exist fails the test (fatally, at the caller's
 * line). A NULL patch gives the fixture's text as it is.
 */
#define tu_fixture_patch(rel, ...) tu_fixture_patch_at(__FILE__, __LINE__, (rel), __VA_ARGS__)
char *tu_fixture_patch_at(const char *file, int line, const char *rel, const char *patch, ...)
    __attribute__((format(printf, 4, 5)));
/* The fixture, patched as by tu_fixture_patch (NULL: as it is), written to <tmpdir>/<name>
 * (next to the outputs, or to the files it names); returns the path, as tu_write does. */
#define tu_fixture_write(name, rel, ...)                                                           \
    tu_fixture_write_at(__FILE__, __LINE__, (name), (rel), __VA_ARGS__)
char *tu_fixture_write_at(const char *file, int line, const char *name, const char *rel,
                          const char *patch, ...) __attribute__((format(printf, 5, 6)));

/* True when s starts with prefix. */
int tu_starts(const char *s, const char *prefix);
/* True when some entry of directory dir starts with prefix (an output or one of its
 * temporaries). */
int tu_dir_has(const char *dir, const char *prefix);
/* The text of dir/name (caller frees); a missing file fails the test at the caller's line
 * (fatally): one assertion, the CU_ASSERT_PTR_NOT_NULL_FATAL it stands for. */
#define tu_slurp_in(dir, name) tu_slurp_in_at(__FILE__, __LINE__, (dir), (name))
char *tu_slurp_in_at(const char *file, int line, const char *dir, const char *name);

/*
 * Scenario texts shared by several suites. tu_one_tenant writes <tmpdir>/<file>: one tenant
 * "a" (arrival and work given as JSON), one exclusive strategy, `extra` (members followed by
 * a comma, or "") at the top; returns its path, as tu_write.
 */
char *tu_one_tenant(const char *file, const char *arrival, const char *work, const char *extra);
struct tenant_cfg;
/* A tenant "synthetic" with deterministic 1 ms work, arrivals of this kind at this rate and
 * everything else zero: the base the arrival-process tests fill in. */
void tu_tenant_cfg(struct tenant_cfg *c, int arrival_kind, double rate_per_s);

/*
 * GPU profiles and MIG layouts. Each fails the test at the caller's line (fatally) with the
 * loader's or parser's message.
 */
struct gpu_profile;
struct mig_layout;
/* cal_load(name) (a name, an alias or a path): one assertion. */
#define tu_gpu(name, g) tu_gpu_at(__FILE__, __LINE__, (name), (g))
/* A layout list that must parse (mig_parse_list, no pins kept) into prof, which has room
 * for 64; returns the count. Two assertions (it parses, it fits). */
#define tu_mig_list(g, text, prof) tu_mig_list_at(__FILE__, __LINE__, (g), (text), (prof))
/* mig_place on a layout list that must parse (pins allowed): mig_place's result, with its
 * reason in why (SS_ERRLEN bytes). One assertion (it parses). */
#define tu_mig_placed(g, text, l, why) tu_mig_placed_at(__FILE__, __LINE__, (g), (text), (l), (why))
void tu_gpu_at(const char *file, int line, const char *name, struct gpu_profile *g);
int tu_mig_list_at(const char *file, int line, const struct gpu_profile *g, const char *text,
                   int *prof);
int tu_mig_placed_at(const char *file, int line, const struct gpu_profile *g, const char *text,
                     struct mig_layout *l, char *why);

/*
 * YAML read back with libyaml's parser, as the tools that consume the artefacts read them:
 * the documents of a file or a string as a cJSON array, one element a document (a mapping
 * an object, a sequence an array). A plain scalar that YAML 1.1 resolves to a number, a
 * boolean or a null becomes one; a quoted or block scalar stays a string, so a test can tell
 * `replicas: 3` from `replicas: "3"`. A parse error fails the test at the caller's line
 * (fatally) with libyaml's message and position: one assertion.
 */
struct cJSON;
#define tu_yaml_file(path) tu_yaml_at(__FILE__, __LINE__, (path), NULL)
#define tu_yaml_text(text) tu_yaml_at(__FILE__, __LINE__, NULL, (text))
struct cJSON *tu_yaml_at(const char *file, int line, const char *path, const char *text);

/*
 * One output per file (cli/outplan.h): `sharesim ARGS`, where every "@X" stands for the file
 * <tmpdir>/NAME, written beforehand with "old\n", must exit 2 before any work: nothing on
 * stdout, each of the NULL-terminated parts in its message, and the file as it was. NAME
 * NULL: no file.
 */
void tu_expect_outputs_refused(const char *args, const char *name, ...);

/* One assertion that hay contains needle; on failure both are printed. */
#define TU_CHECK_CONTAINS(hay, needle)                                                             \
    do {                                                                                           \
        const char *h_ = (hay), *n_ = (needle);                                                    \
        if (!strstr(h_, n_))                                                                       \
            fprintf(stderr, "\n  %s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, h_, \
                    n_);                                                                           \
        CU_ASSERT_PTR_NOT_NULL(strstr(h_, n_));                                                    \
    } while (0)

#define TU_CHECK_CLOSE_REL(actual, expected, rel)                                                  \
    do {                                                                                           \
        double a_ = (actual), e_ = (expected);                                                     \
        if (!(fabs(a_ - e_) <= (rel)*fabs(e_)))                                                    \
            fprintf(stderr, "\n  %s:%d: %s = %.6g, expected %.6g (±%.2g%%)\n", __FILE__, __LINE__, \
                    #actual, a_, e_, 100.0 * (rel));                                               \
        CU_ASSERT(fabs(a_ - e_) <= (rel)*fabs(e_));                                                \
    } while (0)

#endif
