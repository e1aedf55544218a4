/*
 * profile (calib/profile.c): documents, device lookup, diff, merge and fragment checks.
 * Every value of every shipped profile is sourced and every low-confidence value says how
 * it was derived. `sharesim profile` is in test_cmd_profile.c, scripts/calibrate in
 * test_calibrate.c.
 */
#include "calib/calib.h"
#include "calib/profile.h"
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static cJSON *parse_file(const char *path)
{
    char *t = tu_slurp(path);
    cJSON *d = t ? cJSON_Parse(t) : NULL;
    free(t);
    return d;
}

/* Checks one profile file value by value; returns the number of values checked. */
static int check_sourced(const char *path, int allow_measured)
{
    cJSON *doc = parse_file(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, doc)
    {
        if (prof_is_meta(it->string))
            continue;
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(it, "source");
        const cJSON *conf = cJSON_GetObjectItemCaseSensitive(it, "confidence");
        const cJSON *note = cJSON_GetObjectItemCaseSensitive(it, "note");
        int ok_src = cJSON_IsString(src) && strlen(src->valuestring) >= 5;
        int ok_conf =
            cJSON_IsString(conf) &&
            (strcmp(conf->valuestring, "high") == 0 || strcmp(conf->valuestring, "medium") == 0 ||
             strcmp(conf->valuestring, "low") == 0 ||
             (allow_measured && strcmp(conf->valuestring, "measured") == 0));
        /* An estimate must say how it was derived. */
        int low = ok_conf && strcmp(conf->valuestring, "low") == 0;
        int ok_note = !low || (cJSON_IsString(note) && strlen(note->valuestring) >= 20);
        if (!ok_src || !ok_conf || !ok_note)
            fprintf(stderr, "\n  %s: \"%s\": %s\n", path, it->string,
                    !ok_src    ? "no source"
                    : !ok_conf ? "confidence not high/medium/low"
                               : "low confidence without a note saying how it was derived");
        CU_ASSERT(ok_src && ok_conf && ok_note);
        CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItemCaseSensitive(it, "value"));
        n++;
    }
    cJSON_Delete(doc);
    return n;
}

/* The profile directory's documents that are not GPU profiles (they have their own schema and
 * tests): the engine table (llm/engine). */
static int is_not_profile(const char *file)
{
    return strcmp(file, "engines.json") == 0;
}

/* Runs check_sourced on every profile in dir; returns the number of files. */
static int check_dir(const char *dir, int allow_measured)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int files = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!ss_ends_with(de->d_name, ".json") || is_not_profile(de->d_name))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        CU_ASSERT(check_sourced(path, allow_measured) >= 16);
        /* Every shipped profile has a price and an interconnect (docs/calibration.md). */
        if (!allow_measured) {
            cJSON *doc = parse_file(path);
            CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItemCaseSensitive(doc, "gpu_hour_usd"));
            CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItemCaseSensitive(doc, "interconnect"));
            cJSON_Delete(doc);
        }
        struct gpu_profile p;
        char err[SS_ERRLEN];
        int rc = cal_load_file(path, &p, err, sizeof err);
        if (rc)
            fprintf(stderr, "\n  %s\n", err);
        CU_ASSERT_EQUAL(rc, 0);
        files++;
    }
    closedir(d);
    return files;
}

static void test_every_value_sourced(void)
{
    CU_ASSERT_EQUAL(check_dir(cal_profile_dir(), 0), 12);
    char measured[PATH_MAX];
    snprintf(measured, sizeof measured, "%s/measured", cal_profile_dir());
    check_dir(measured, 1); /* none may be committed yet; those that are must be sourced */
}

static void test_units(void)
{
    CU_ASSERT_STRING_EQUAL(prof_unit("timeslice_us"), "us");
    CU_ASSERT_STRING_EQUAL(prof_unit("switch_us_heavy"), "us");
    CU_ASSERT_STRING_EQUAL(prof_unit("vgpu_slice_ms_le8"), "ms");
    CU_ASSERT_STRING_EQUAL(prof_unit("mig_create_s"), "s");
    CU_ASSERT_STRING_EQUAL(prof_unit("hbm_bw_gbps"), "GB/s");
    CU_ASSERT_STRING_EQUAL(prof_unit("hbm_bw_gbps_measured"), "GB/s");
    CU_ASSERT_STRING_EQUAL(prof_unit("memory_gb"), "GB");
    CU_ASSERT_STRING_EQUAL(prof_unit("total_sms"), "SMs");
    CU_ASSERT_STRING_EQUAL(prof_unit("gpu_hour_usd"), "USD/h");
    CU_ASSERT_STRING_EQUAL(prof_unit("rate_compute_exponent"), "");
}

static void test_find_device(void)
{
    const char *cases[][2] = {
        {"NVIDIA H100 80GB HBM3", "H100-80GB"}, {"NVIDIA A100-SXM4-80GB", "A100-80GB"},
        {"NVIDIA A100-SXM4-40GB", "A100-40GB"}, {"NVIDIA A100-PCIE-40GB", "A100-40GB"},
        {"nvidia h200", "H200-141GB"},          {"H100-80GB", "H100-80GB"},
    };
    char name[64], err[SS_ERRLEN];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CU_ASSERT_EQUAL(prof_find_device(cases[i][0], name, sizeof name, err, sizeof err), 0);
        CU_ASSERT_STRING_EQUAL(name, cases[i][1]);
    }
    CU_ASSERT_EQUAL(prof_find_device("Tesla T4", name, sizeof name, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no shipped profile for device \"Tesla T4\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"NVIDIA H100 80GB HBM3\""));
}

static void test_diff_paths(void)
{
    cJSON *a = cJSON_Parse(
        "{\"schema\":\"sharesim-profile/1\",\"name\":\"X\",\"measured\":false,"
        "\"t_us\":{\"value\":1024,\"source\":\"s\",\"confidence\":\"high\"},"
        "\"m\":{\"value\":[{\"name\":\"1g\",\"sm\":14},{\"name\":\"2g\",\"sm\":28}],"
        "\"source\":\"s\",\"confidence\":\"high\"},"
        "\"gone\":{\"value\":1,\"source\":\"s\",\"confidence\":\"low\",\"note\":\"n\"}}");
    cJSON *b = cJSON_Parse(
        "{\"schema\":\"sharesim-profile/1\",\"name\":\"X\",\"measured\":true,"
        "\"t_us\":{\"value\":768,\"source\":\"tslice\",\"confidence\":\"measured\"},"
        "\"m\":{\"value\":[{\"name\":\"2g\",\"sm\":28},{\"name\":\"1g\",\"sm\":16}],"
        "\"source\":\"s\",\"confidence\":\"high\"},"
        "\"c\":{\"value\":{\"matrix\":[[1,2]]},\"source\":\"c\",\"confidence\":\"measured\"}}");
    struct prof_change *ch;
    size_t n;
    prof_diff(a, b, &ch, &n);
    const char *want[] = {"measured", "t_us", "t_us (confidence)", "t_us (source)", "m[1g].sm",
                          "gone",     "c"};
    CU_ASSERT_EQUAL_FATAL(n, 7);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_STRING_EQUAL(ch[i].path, want[i]);
    double rel;
    CU_ASSERT(prof_rel_change(&ch[1], &rel));
    CU_ASSERT_DOUBLE_EQUAL(rel, -0.25, 1e-15);
    CU_ASSERT(prof_rel_change(&ch[4], &rel));
    CU_ASSERT_DOUBLE_EQUAL(rel, 2.0 / 14.0, 1e-15);
    CU_ASSERT_FALSE(prof_rel_change(&ch[2], &rel));
    CU_ASSERT_PTR_NULL(ch[5].b);
    CU_ASSERT_PTR_NULL(ch[6].a);
    char *t = prof_value_text(ch[6].b); /* an added key shows its value, not the object */
    CU_ASSERT_STRING_EQUAL(t, "{\"matrix\":[[1,2]]}");
    free(t);
    prof_diff_free(ch, n);
    prof_diff(a, a, &ch, &n);
    CU_ASSERT_EQUAL(n, 0);
    prof_diff_free(ch, n);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* Measured fragments as the calibration programs write them (tslice, partition). */
static const char *frag_tslice = "profile/tslice-fragment.json";
static const char *frag_partition = "profile/partition-fragment.json";

static void test_merge(void)
{
    cJSON *base = NULL, *f[2], *out = NULL;
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(prof_load("H100-80GB", &base, NULL, err, sizeof err), 0);
    char *t0 = tu_fixture_patch(frag_tslice, NULL), *t1 = tu_fixture_patch(frag_partition, NULL);
    f[0] = cJSON_Parse(t0);
    f[1] = cJSON_Parse(t1);
    free(t0);
    free(t1);
    const char *names[] = {"t.json", "p.json"};
    CU_ASSERT_EQUAL_FATAL(prof_merge(base, f, names, 2, NULL, 0, &out, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(out, "name")->valuestring, "H100-80GB-measured");
    CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(out, "measured")));
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(out, "aliases")), 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(out, "date")->valuestring, "2025-01-02T03:05:00Z");
    CU_ASSERT_EQUAL(
        cJSON_GetObjectItem(cJSON_GetObjectItem(out, "timeslice_us"), "value")->valuedouble, 2048);
    CU_ASSERT_PTR_NOT_NULL(strstr(cJSON_GetObjectItem(out, "notes")->valuestring,
                                  "timeslice_us, switch_us, rate_compute_exponent, "
                                  "corun_slowdown"));
    /* The base is untouched and a shipped value stays as it was. */
    CU_ASSERT_EQUAL(
        cJSON_GetObjectItem(cJSON_GetObjectItem(base, "timeslice_us"), "value")->valuedouble, 1024);
    CU_ASSERT(cJSON_Compare(cJSON_GetObjectItem(base, "mig_profiles"),
                            cJSON_GetObjectItem(out, "mig_profiles"), 1));
    cJSON_Delete(out);
    /* The same key twice, and another device. */
    cJSON *twice[2] = {f[0], f[0]};
    CU_ASSERT_EQUAL(prof_merge(base, twice, names, 2, NULL, 0, &out, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "\"timeslice_us\" is measured by both t.json and p.json");
    cJSON_ReplaceItemInObject(f[1], "device", cJSON_CreateString("NVIDIA A100-SXM4-80GB"));
    CU_ASSERT_EQUAL(prof_merge(base, f + 1, names + 1, 1, NULL, 0, &out, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "p.json: measured on \"NVIDIA A100-SXM4-80GB\" but the "
                                       "base profile is for \"NVIDIA H100 80GB HBM3\""));
    CU_ASSERT_EQUAL(prof_merge(base, f + 1, names + 1, 1, "X", 1, &out, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(out, "name")->valuestring, "X");
    cJSON_Delete(out);
    cJSON_Delete(f[0]);
    cJSON_Delete(f[1]);
    cJSON_Delete(base);
}

static void test_fragment_checks(void)
{
    cJSON *doc;
    char err[SS_ERRLEN];
    char *p = tu_write("nosrc.json", "{\"schema\": \"sharesim-profile/1\", \"x_us\": "
                                     "{\"value\": 1, \"confidence\": \"measured\"}}");
    CU_ASSERT_EQUAL(prof_read_fragment(p, &doc, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nosrc.json: \"x_us\": missing \"source\""));
    p = tu_write("noschema.json", "{\"x_us\": {\"value\": 1}}");
    CU_ASSERT_EQUAL(prof_read_fragment(p, &doc, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"schema\": expected \"sharesim-profile/1\""));
    CU_ASSERT_EQUAL(prof_read_fragment(tu_fixture(frag_tslice), &doc, err, sizeof err), 0);
    cJSON_Delete(doc);
}

void test_profile_register(void)
{
    static const struct tu_test t[] = {
        {"every shipped value sourced, estimates explained", test_every_value_sourced},
        {"units from key names", test_units},
        {"CUDA device name -> profile", test_find_device},
        {"diff paths and relative changes", test_diff_paths},
        {"merge fragments over a base", test_merge},
        {"fragments checked", test_fragment_checks},
        {NULL, NULL},
    };
    tu_add_suite("profile", t);
}
