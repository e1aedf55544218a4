/* base/name.c: the one name rule (docs/scenario.md#names) — what it accepts and refuses, and
 * where: every loader of a name (scenario, tenant, strategy, GPU profile, MIG profile, vGPU
 * type, cluster and node group) and `profile merge --name` apply it, with the same message. */
#include "testutil.h"
#include "base/name.h"
#include "base/util.h"
#include "calib/calib.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_accepts(void)
{
    /* Odd but valid: markup, YAML and shell metacharacters, quotes other than ", leading and
     * trailing spaces, document markers, any script, exactly the limit. */
    static const char *const ok[] = {"a",
                                     "chat",
                                     "caf\xc3\xa9",
                                     "\xe6\x97\xa5\xe6\x9c\xac",
                                     " lead",
                                     "trail ",
                                     "a: b",
                                     "# c",
                                     "- d",
                                     "? e",
                                     "|",
                                     ">",
                                     "{x}",
                                     "[y]",
                                     "&a *b !c",
                                     "%d @e `f`",
                                     "'q'",
                                     "---",
                                     "...",
                                     "<b>x</b>",
                                     "\xf0\x9f\x99\x82" /* U+1F642 */,
                                     "\xc2\xa0" /* U+00A0, the first after the C1 block */,
                                     "\xe2\x80\xa7" /* U+2027, next to the separators */,
                                     NULL};
    char why[SS_ERRLEN];
    for (int i = 0; ok[i]; i++) {
        int rc = name_check(ok[i], why, sizeof why);
        if (rc)
            fprintf(stderr, "\n  \"%s\" refused: %s\n", ok[i], why);
        CU_ASSERT_EQUAL(rc, 0);
    }
    char max[NAME_MAX_BYTES + 1];
    memset(max, 'x', NAME_MAX_BYTES);
    max[NAME_MAX_BYTES] = '\0';
    CU_ASSERT_EQUAL(name_check(max, why, sizeof why), 0);
}

static void test_refuses(void)
{
    static const struct {
        const char *name, *says;
    } bad[] = {
        {"", "an empty name"},
        {"a\nb", "a control character U+000A at byte 2"},
        {"\t", "a control character U+0009 at byte 1"},
        {"x\r", "U+000D at byte 2"},
        {"del\x7f", "a control character U+007F at byte 4"},
        {"nel\xc2\x85x", "a C1 control character U+0085 at byte 4"},
        {"\xc2\x80", "U+0080 at byte 1"},
        {"ab\xc2\x9b", "a C1 control character U+009B at byte 3"},
        {"s\xe2\x80\xa8kind: Secret", "a line separator U+2028 at byte 2"},
        {"\xe2\x80\xa9", "a paragraph separator U+2029 at byte 1"},
        {"a,b", "a comma U+002C at byte 2"},
        {"a\"b", "a double quote U+0022 at byte 2"},
        {"\xff", "a byte 0xFF that is not valid UTF-8 at byte 1"},
        {"ok\xc0\xaf", "0xC0 that is not valid UTF-8 at byte 3"},       /* overlong "/" */
        {"\xed\xa0\x80", "0xED that is not valid UTF-8 at byte 1"},     /* a surrogate */
        {"\xf4\x90\x80\x80", "0xF4 that is not valid UTF-8 at byte 1"}, /* above U+10FFFF */
        {"\xe2\x80", "0xE2 that is not valid UTF-8 at byte 1"},         /* cut short */
        {"\x80", "0x80 that is not valid UTF-8 at byte 1"},             /* a lone continuation */
    };
    char why[SS_ERRLEN];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(name_check(bad[i].name, why, sizeof why), -1);
        TU_CHECK_CONTAINS(why, bad[i].says);
        TU_CHECK_CONTAINS(why, "docs/scenario.md#names");
    }
    char *big = malloc(100001);
    memset(big, 'n', 100000);
    big[100000] = '\0';
    CU_ASSERT_EQUAL(name_check(big, why, sizeof why), -1);
    TU_CHECK_CONTAINS(why, "a name of 100000 bytes, longer than the limit of 63");
    big[NAME_MAX_BYTES + 1] = '\0';
    CU_ASSERT_EQUAL(name_check(big, why, sizeof why), -1);
    TU_CHECK_CONTAINS(why, "a name of 64 bytes");
    free(big);
}

/* ---- the loaders ---- */

static const char scenario_fmt[] =
    "{\"name\": \"%s\", \"gpu\": \"%s\", \"stop\": {\"requests\": 100},\n"
    " \"tenants\": [{\"name\": \"%s\", \"arrival\": {\"process\": \"poisson\", \"rate_per_s\": "
    "10},\n"
    "   \"work\": {\"dist\": \"deterministic\", \"ms\": 1}}],\n"
    " \"strategies\": [{\"name\": \"%s\", \"kind\": \"exclusive\"}]}";

/* A scenario whose scenario, tenant and strategy names are these (JSON string contents). */
static void expect_scenario_error(const char *scn, const char *tenant, const char *strategy,
                                  const char *says)
{
    char text[4096];
    snprintf(text, sizeof text, scenario_fmt, scn, "A100-80GB", tenant, strategy);
    tu_expect_load_error(text, says);
}

static void test_scenario_names(void)
{
    /* The examples: NEL, U+2028, C1 and DEL were accepted although the docs forbade
     * control characters. The message names the JSON path and the byte. */
    expect_scenario_error("s", "a\xc2\x85x: 1", "x",
                          "tenants[0].name: a C1 control character U+0085 at byte 2");
    expect_scenario_error("k8s\xe2\x80\xa8kind: Secret", "a", "x",
                          "name: a line separator U+2028 at byte 4");
    expect_scenario_error("s", "t\\u009b", "x", "tenants[0].name: a C1 control character U+009B");
    expect_scenario_error("s", "a", "ex\\u007f", "strategies[0].name: a control character U+007F");
    expect_scenario_error("s", "", "x", "tenants[0].name: an empty name");
    expect_scenario_error("s", "a\\u2029", "x", "a paragraph separator U+2029 at byte 2");
    /* A 100,000-character name: refused as too long, with the limit. */
    char *big = malloc(100001);
    memset(big, 'n', 100000);
    big[100000] = '\0';
    size_t n = strlen(scenario_fmt) + 100100;
    char *text = malloc(n);
    snprintf(text, n, scenario_fmt, big, "A100-80GB", "a", "x");
    tu_expect_load_error(text, "name: a name of 100000 bytes, longer than the limit of 63");
    snprintf(text, n, scenario_fmt, "s", "A100-80GB", big, "x");
    tu_expect_load_error(text, "tenants[0].name: a name of 100000 bytes");
    free(text);
    free(big);
}

/* The shipped A100-80GB profile with one change (a JSON path's string set to value), written
 * to <tmpdir>/<file>; returns its path (static). */
static const char *profile_with(const char *file, const char *what, const char *value)
{
    static char path[1024];
    char src[1024];
    snprintf(src, sizeof src, "%s/kernels/profiles/a100-80gb.json", tu_root());
    char *text = tu_slurp(src);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    cJSON *obj = doc;
    if (strcmp(what, "mig") == 0)
        obj = cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "mig_profiles"), "value"), 1);
    else if (strcmp(what, "vgpu") == 0)
        obj = cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "vgpu_types"), "value"), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(obj);
    cJSON_ReplaceItemInObject(obj, "name", cJSON_CreateString(value));
    char *out = cJSON_Print(doc);
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "%s", tu_write(file, out));
    cJSON_free(out);
    return path;
}

static void expect_profile_error(const char *what, const char *value, const char *says)
{
    /* A file of its own each time: the profile loader caches what it read by path. */
    static int serial;
    char file[64];
    snprintf(file, sizeof file, "bad-name-profile-%d.json", serial++);
    const char *path = profile_with(file, what, value);
    struct gpu_profile p;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(cal_load_file(path, &p, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, says);
}

static void test_profile_names(void)
{
    /* A GPU profile name of 100,000 characters was refused as "expected a string". */
    char *big = malloc(100001);
    memset(big, 'g', 100000);
    big[100000] = '\0';
    expect_profile_error("gpu", big,
                         "\"name\": a name of 100000 bytes, longer than the limit of 63");
    free(big);
    expect_profile_error("gpu", "A100\nkind: Secret",
                         "\"name\": a control character U+000A at byte 5");
    expect_profile_error("gpu", "", "\"name\": an empty name");
    expect_profile_error("mig", "2g\xe2\x80\xa8.20gb",
                         "mig_profiles.value[1].name: a line separator U+2028 at byte 3");
    expect_profile_error("vgpu", "A100DX\x7f",
                         "vgpu_types.value[0].name: a control character U+007F");
    /* Through the command line: a scenario on that profile is bad input, exit 2. */
    const char *path = profile_with("nel-profile.json", "gpu", "A100\xc2\x85x");
    char text[4096], err[4096], args[1400];
    snprintf(text, sizeof text, scenario_fmt, "s", path, "a", "x");
    char *scn = tu_write("nel-profile-scenario.json", text);
    snprintf(args, sizeof args, "run %s --json -", scn);
    CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
    TU_CHECK_CONTAINS(err, "a C1 control character U+0085 at byte 5");
}

static void test_merge_name(void)
{
    /* `profile merge --name` accepted a newline and an empty name; nothing may be written. */
    static const struct {
        const char *arg, *says;
    } bad[] = {
        {"'H100\nkind: Secret'", "--name: a control character U+000A at byte 5"},
        {"''", "--name: an empty name"},
        {"'x\xe2\x80\xa8'", "--name: a line separator U+2028 at byte 2"},
    };
    char args[4096], err[4096], out[1024];
    snprintf(out, sizeof out, "%s/merged-bad-name.json", tu_tmpdir());
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(args, sizeof args, "profile merge H100-80GB %s -o %s --name %s",
                 tu_fixture("profile/tslice-fragment.json"), out, bad[i].arg);
        CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
        TU_CHECK_CONTAINS(err, bad[i].says);
        CU_ASSERT_FALSE(tu_exists(out));
    }
    /* A valid odd name is kept as given. */
    snprintf(args, sizeof args, "profile merge H100-80GB %s -o %s --name '  my: h100 #1'",
             tu_fixture("profile/tslice-fragment.json"), out);
    CU_ASSERT_EQUAL_FATAL(tu_cli(args, NULL, 0, err, sizeof err), 0);
    struct gpu_profile p;
    char e[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(cal_load_file(out, &p, e, sizeof e), 0);
    CU_ASSERT_STRING_EQUAL(p.name, "  my: h100 #1");
    remove(out);
}

static void test_cluster_names(void)
{
    /* A cluster scenario's name and a node group's name follow the same rule (exit 2). */
    static const struct {
        const char *patch, *says;
    } bad[] = {
        {"{\"name\": \"c\\u0085x\"}", "name: a C1 control character U+0085 at byte 2"},
        {"{\"cluster.nodes.0.name\": \"g\\u2028\"}",
         "cluster.nodes[0].name: a line separator U+2028 at byte 2"},
        {"{\"cluster.nodes.0.name\": \"\"}", "cluster.nodes[0].name: an empty name"},
    };
    char args[1400], err[4096];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* the pod list named by an absolute path: the copy is not next to the fixture */
        const char *path = tu_fixture_write(
            "bad-name-cluster.json", "cluster/tiny.json",
            "{\"cluster.pods\": \"%s/traces/openb_pod_list_default.tail200.csv\", %s", tu_root(),
            bad[i].patch + 1);
        snprintf(args, sizeof args, "cluster %s", path);
        CU_ASSERT_EQUAL(tu_cli(args, NULL, 0, err, sizeof err), 2);
        TU_CHECK_CONTAINS(err, bad[i].says);
    }
}

void test_name_register(void)
{
    static const struct tu_test tests[] = {
        {"odd but valid names are accepted, up to 63 bytes", test_accepts},
        {"each refused class, with the byte it is at", test_refuses},
        {"scenario, tenant and strategy names (NEL, U+2028, C1, DEL, 100,000 bytes)",
         test_scenario_names},
        {"GPU, MIG and vGPU profile names; a bad one is exit 2", test_profile_names},
        {"profile merge --name: newline, empty, U+2028 refused", test_merge_name},
        {"cluster scenario and node group names", test_cluster_names},
        {NULL, NULL}};
    tu_add_suite("name", tests);
}
