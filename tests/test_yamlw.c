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

void test_yamlw_register(void)
{
    static const struct tu_test t[] = {
        {"libyaml round trip: types, quoting, literal blocks, streams", test_round_trip},
        {"an emitter error is reported at close", test_error_reported},
        {NULL, NULL},
    };
    tu_add_suite("yamlw", t);
}
