/*
 * The renderings that left cli/ for the modules whose structs they print (base/textcol,
 * mig/migview, io/traceview, calib/profview, tools/sweepview), checked without the command:
 * what a caller of the library gets, the cases the command's own tests do not reach.
 */
#include "base/textcol.h"
#include "base/util.h"
#include "calib/calib.h"
#include "calib/profview.h"
#include "io/traceview.h"
#include "mig/migview.h"
#include "testutil.h"
#include "tools/sweepview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What f wrote into a temporary file, NUL-terminated, into buf. */
static void read_back(FILE *f, char *buf, size_t n)
{
    rewind(f);
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = '\0';
    fclose(f);
}

/* Widths count code points; wrapping and clipping never cut a UTF-8 sequence. */
static void test_textcol(void)
{
    CU_ASSERT_EQUAL(tc_width("h\xc3\xa9llo"), 5);
    char *c = tc_clip("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4);
    CU_ASSERT_STRING_EQUAL(c, "\xc3\xa9...");
    free(c);
    c = tc_clip("short", 5);
    CU_ASSERT_STRING_EQUAL(c, "short");
    free(c);
    char **lines;
    size_t n = tc_wrap("aaa bbb ccc", 8, &lines);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(lines[0], "aaa bbb");
    CU_ASSERT_STRING_EQUAL(lines[1], "ccc");
    tc_free_lines(lines, n);
    /* a word longer than the line is cut after 8 characters, 16 bytes here */
    n = tc_wrap("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3,
                &lines);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(strlen(lines[0]), 16);
    CU_ASSERT_EQUAL(tc_width(lines[1]), 1);
    tc_free_lines(lines, n);
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    tc_print_wrapped(f, "notes: ", "one two three four", 18);
    tc_pad(f, "\xc3\xa9", 3);
    fputs("|\n", f);
    char out[256];
    read_back(f, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "notes: one two\n       three four\n\xc3\xa9  |\n");
}

/* A packing that leaves requests unplaced: rows in request order with null gpu and start,
 * the JSON lists the same requests as unplaced, and the text says how many. */
static void test_migview_pack(void)
{
    struct gpu_profile g;
    tu_gpu("A100-40GB", &g);
    int req[16];
    int n = tu_mig_list(&g, "3x3g.20gb", req);
    struct mig_demand d;
    mig_demand_from_list(&g, req, n, &d);
    struct mig_pack_opts po = {.policy = MIG_PACK_BEST_FIT, .max_gpus = 1, .demand = &d};
    struct mig_pack r;
    CU_ASSERT_EQUAL_FATAL(mig_pack(&g, req, n, &po, &r), 0);
    CU_ASSERT_EQUAL_FATAL(r.n_unplaced, 1);
    cJSON *rows = mig_pack_rows(&g, req, &r);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(rows), 3);
    const cJSON *last = cJSON_GetArrayItem(rows, 2);
    CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(last, "gpu")));
    CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(last, "start")));
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "gpu")->valueint, 0);
    cJSON_Delete(rows);
    cJSON *doc = mig_pack_json(&g, req, &r, &po);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "unplaced")), 1);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(doc, "gpus_used")->valueint, 1);
    CU_ASSERT_TRUE(cJSON_IsObject(cJSON_GetObjectItem(doc, "fragmentation")));
    cJSON_Delete(doc);
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    mig_print_pack(f, &g, req, &r, &po);
    char out[4096];
    read_back(f, out, sizeof out);
    TU_CHECK_CONTAINS(out, "unplaced: 1 (1 x 3g.20gb)");
    TU_CHECK_CONTAINS(out, "GPUs used: 1");
    mig_pack_free(&r);
}

/* A placed layout: its instances, slices used, the slice map, and the demand only with one. */
static void test_migview_layout(void)
{
    struct gpu_profile g;
    tu_gpu("A100-40GB", &g);
    struct mig_layout l = {.n = 2};
    l.prof[0] = mig_profile_index(&g, "3g.20gb");
    l.prof[1] = mig_profile_index(&g, "1g.5gb");
    l.start[0] = 4;
    l.start[1] = 0;
    CU_ASSERT_FATAL(l.prof[0] >= 0 && l.prof[1] >= 0);
    cJSON *doc = mig_layout_json(&g, "3g.20gb,1g.5gb", &l, NULL, NULL);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "instances")), 2);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(doc, "memory_slices_used")->valueint, 5);
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(doc, "fragmentation"));
    cJSON_Delete(doc);
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    mig_print_slice_map(f, &g, &l);
    char out[512];
    read_back(f, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out,
                           "memory slices:  1  .  .  .  0  0  0  0   (instance on slice 0..7)\n");
}

/* A one-record trace has no rate or gaps: null in JSON, n/a in the text. */
static void test_traceview(void)
{
    struct trs_summary s;
    memset(&s, 0, sizeof s);
    s.fmt = TR_SHARESIM;
    s.count = 1;
    s.rate_per_s = s.ia_mean_s = s.ia_cv = s.ia_max_s = NAN;
    struct tr_opts o = {1.0, 0};
    cJSON *doc = trs_json("t.csv", &o, &s);
    CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(doc, "rate_per_s")));
    CU_ASSERT_TRUE(
        cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "interarrival_s"), "cv")));
    CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(doc, "work_ms"));
    cJSON_Delete(doc);
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    trs_print(f, "t.csv", &o, &s);
    char out[2048];
    read_back(f, out, sizeof out);
    TU_CHECK_CONTAINS(out, "rate_per_s     n/a\n");
    TU_CHECK_CONTAINS(out, "requests       1\n");
}

/* A list value has no CSV field: the diff's rows carry its JSON text, the JSON the list. */
static void test_profview_diff_rows(void)
{
    cJSON *a = cJSON_Parse("{\"j\": {\"value\": 1}}");
    cJSON *b = cJSON_Parse("{\"k\": {\"value\": [1, 3]}}");
    struct prof_change *ch;
    size_t n;
    prof_diff(a, b, &ch, &n);
    CU_ASSERT_FATAL(n >= 1);
    cJSON *rows = prof_diff_rows("A", "B", ch, n);
    const cJSON *k = NULL, *r;
    cJSON_ArrayForEach(r, rows) /* the change of key k, added by B */
    {
        if (strcmp(cJSON_GetObjectItem(r, "key")->valuestring, "k") == 0)
            k = r;
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_TRUE_FATAL(cJSON_IsString(cJSON_GetObjectItem(k, "b")));
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(k, "b")->valuestring, "[1,3]");
    CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(k, "a")));
    cJSON *doc = prof_diff_json("A", "B", ch, n);
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "changes"))
    {
        if (strcmp(cJSON_GetObjectItem(r, "key")->valuestring, "k") == 0)
            CU_ASSERT_TRUE(cJSON_IsArray(cJSON_GetObjectItem(r, "b")));
    }
    cJSON_Delete(doc);
    cJSON_Delete(rows);
    prof_diff_free(ch, n);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* A sweep directory without its point files: no document, and the message names the file. */
static void test_sweepview_missing(void)
{
    struct sw_grid g;
    char err[SS_ERRLEN], dir[600];
    sw_grid_init(&g);
    CU_ASSERT_EQUAL_FATAL(sw_grid_add(&g, "gpus=1,2", err, sizeof err), 0);
    snprintf(dir, sizeof dir, "%s/no-sweep-here", tu_tmpdir());
    CU_ASSERT_PTR_NULL(sw_points_json(&g, dir, err, sizeof err));
    TU_CHECK_CONTAINS(err, "no-sweep-here/points/");
    sw_grid_free(&g);
}

void test_views_register(void)
{
    static const struct tu_test t[] = {
        {"textcol: widths in code points, wrap and clip whole characters", test_textcol},
        {"migview: a packing with a request left over, rows/JSON/text", test_migview_pack},
        {"migview: a placed layout, its JSON and slice map", test_migview_layout},
        {"traceview: a one-record trace, null and n/a", test_traceview},
        {"profview: diff rows carry a list as its JSON text", test_profview_diff_rows},
        {"sweepview: missing point files, no document", test_sweepview_missing},
        {NULL, NULL},
    };
    tu_add_suite("views", t);
}
