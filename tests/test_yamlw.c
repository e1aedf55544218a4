/* base/yamlw.c: documents written with libyaml's emitter read back with its parser
 * (tu_yaml_text) to the same values and types: strings a YAML reader would take for a
 * boolean or a number stay strings, integers stay integers, a document carried inside
 * another as a literal block parses on its own. */
#include "testutil.h"
#include "base/util.h"
#include "base/yamlw.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

/* Writes the test document to a string; the caller frees it. */
static char *inner_config(void)
{
    struct yw w;
    yw_open_string(&w);
    yw_doc_begin(&w);
    yw_map_begin(&w);
    yw_kv_str(&w, "version", "v1");
    yw_str(&w, "sharing");
    yw_map_begin(&w);
    yw_str(&w, "devices");
    yw_seq_begin(&w, 1);
    yw_int(&w, 0);
    yw_int(&w, 1);
    yw_seq_end(&w);
    yw_map_end(&w);
    yw_map_end(&w);
    yw_doc_end(&w);
    char *text = NULL, err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(yw_close(&w, &text, err, sizeof err), 0);
    return text;
}

static void test_round_trip(void)
{
    char *inner = inner_config();
    TU_CHECK_CONTAINS(inner, "devices: [0, 1]"); /* a flow sequence, as mig-parted writes it */
    struct yw w;
    yw_open_string(&w);
    yw_doc_begin(&w);
    yw_map_begin(&w);
    yw_kv_str(&w, "label", "true");      /* a node label value: must stay the string "true" */
    yw_kv_str(&w, "count", "3");         /* a string of digits stays a string */
    yw_kv_str(&w, "profile", "1g.10gb"); /* not a number */
    yw_kv_str(&w, "colon", "a: b");
    yw_kv_int(&w, "replicas", 3);
    yw_kv_bool(&w, "renameByDefault", 0);
    yw_str(&w, "config.yaml");
    yw_literal(&w, inner);
    yw_map_end(&w);
    yw_doc_end(&w);
    yw_doc_begin(&w); /* a second document in the stream */
    yw_map_begin(&w);
    yw_kv_str(&w, "kind", "ConfigMap");
    yw_map_end(&w);
    yw_doc_end(&w);
    char *text = NULL, err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(yw_close(&w, &text, err, sizeof err), 0);
    cJSON *docs = tu_yaml_text(text);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(docs), 2);
    const cJSON *d = cJSON_GetArrayItem(docs, 0);
    CU_ASSERT(cJSON_IsString(cJSON_GetObjectItem(d, "label")));
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(d, "label")->valuestring, "true");
    CU_ASSERT(cJSON_IsString(cJSON_GetObjectItem(d, "count")));
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(d, "profile")->valuestring, "1g.10gb");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(d, "colon")->valuestring, "a: b");
    CU_ASSERT(cJSON_IsNumber(cJSON_GetObjectItem(d, "replicas")));
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(d, "replicas")->valueint, 3);
    CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(d, "renameByDefault")));
    /* The carried document is the inner text, which parses to its own values. */
    const cJSON *carried = cJSON_GetObjectItem(d, "config.yaml");
    CU_ASSERT_PTR_NOT_NULL_FATAL(carried);
    cJSON *in = tu_yaml_text(carried->valuestring);
    const cJSON *dev =
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(in, 0), "sharing"), "devices");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(dev), 2);
    CU_ASSERT_EQUAL(cJSON_GetArrayItem(dev, 1)->valueint, 1);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(cJSON_GetArrayItem(docs, 1), "kind")->valuestring,
                           "ConfigMap");
    cJSON_Delete(in);
    cJSON_Delete(docs);
    free(text);
    free(inner);
}

/* An emitter error (a mapping closed that was never opened) is reported by yw_close, and
 * later calls do nothing. */
static void test_error_reported(void)
{
    struct yw w;
    yw_open_string(&w);
    yw_doc_begin(&w);
    yw_map_end(&w);
    yw_kv_str(&w, "after", "the error");
    char *text = NULL, err[SS_ERRLEN] = "";
    CU_ASSERT_EQUAL(yw_close(&w, &text, err, sizeof err), -1);
    CU_ASSERT_PTR_NULL(text);
    TU_CHECK_CONTAINS(err, "YAML: ");
}

/* A comment cannot end early: whatever YAML takes for a line break (LF, CR, NEL, U+2028,
 * U+2029), a control character, a byte order mark or a byte that is not UTF-8 is written as
 * '?', so the text after it stays in the comment and the document has only its own keys. */
static void test_comment_cannot_break_out(void)
{
    static const char *const hostile[] = {
        "a\nkind: Secret",           "b\rkind: Secret",
        "c\xc2\x85kind: Secret",     "d\xe2\x80\xa8kind: Secret",
        "e\xe2\x80\xa9kind: Secret", "f\x01\x7f\xc2\x9b\xef\xbb\xbf",
        "g\xff\xc0\xafkind: Secret", "caf\xc3\xa9 \xf0\x9f\x99\x82 # : - ok"};
    struct yw w;
    yw_open_string(&w);
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++)
        yw_comment(&w, hostile[i]);
    yw_doc_begin(&w);
    yw_map_begin(&w);
    yw_kv_str(&w, "kind", "ConfigMap");
    yw_map_end(&w);
    yw_doc_end(&w);
    char *text = NULL, err[SS_ERRLEN];
    CU_ASSERT_EQUAL_FATAL(yw_close(&w, &text, err, sizeof err), 0);
    TU_CHECK_CONTAINS(text, "# a?kind: Secret\n# b?kind: Secret\n# c?kind: Secret\n"
                            "# d?kind: Secret\n# e?kind: Secret\n# f????\n# g???kind: Secret\n");
    /* Valid text outside those classes is kept as it is. */
    TU_CHECK_CONTAINS(text, "# caf\xc3\xa9 \xf0\x9f\x99\x82 # : - ok\nkind: ConfigMap\n");
    cJSON *docs = tu_yaml_text(text);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(docs), 1);
    const cJSON *doc = cJSON_GetArrayItem(docs, 0);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(doc), 1);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(doc, "kind")->valuestring, "ConfigMap");
    cJSON_Delete(docs);
    free(text);
    /* After the first document a comment would land where the emitter does not expect it. */
    yw_open_string(&w);
    yw_doc_begin(&w);
    yw_map_begin(&w);
    yw_map_end(&w);
    yw_comment(&w, "late");
    yw_doc_end(&w);
    CU_ASSERT_EQUAL(yw_close(&w, NULL, err, sizeof err), -1);
    TU_CHECK_CONTAINS(err, "a comment after the first document");
}

void test_yamlw_register(void)
{
    static const struct tu_test t[] = {
        {"libyaml round trip: types, quoting, literal blocks, streams", test_round_trip},
        {"an emitter error is reported at close", test_error_reported},
        {"a comment cannot end early: line breaks, controls, bad UTF-8 become '?'",
         test_comment_cannot_break_out},
        {NULL, NULL},
    };
    tu_add_suite("yamlw", t);
}
