/*
 * A MoE model against published serving measurements (docs/llm.md#against-published-moe-
 * serving-measurements): Lambda's vLLM runs of bf16 Mixtral-8x7B on 2, 4 and 8 H100s and on 2
 * A100s, each run's ten requests at t = 0. sharesim's p50 TPOT and TTFT are the documented ones,
 * and the TPOT is within the documented error of the measured median; the measured TTFT is not
 * (1.7–1.8 s on every GPU and group size, a fixed cost the step model does not hold), so the
 * test pins sharesim's TTFT and that it is far below the measurement.
 */
#define _DEFAULT_SOURCE /* realpath() */
#include "testutil.h"

#include <cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void test_lambda_mixtral(void)
{
    static const struct {
        const char *run, *gpu;
        int tp;
        double tpot, ttft, measured_tpot, measured_ttft;
    } rows[] = {
        {"h100-tp2", "H100-80GB", 2, 15.59, 95.0, 16.93, 1846},
        {"h100-tp4", "H100-80GB", 4, 8.64, 62.4, 9.90, 1750},
        {"h100-tp8", "H100-80GB", 8, 5.17, 62.4, 6.80, 1731},
        {"a100-tp2", "A100-80GB", 2, 25.33, 173.1, 26.64, 1723},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char rel[96], trace[PATH_MAX]; /* absolute: the scenario is written elsewhere */
        snprintf(rel, sizeof rel, "moepublished/lambda-mixtral-%s.csv", rows[i].run);
        CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(tu_fixture(rel), trace));
        const char *path = tu_fixture_write(
            "mixtral.json", "moepublished/lambda-mixtral.json",
            "{\"gpu\": \"%s\", \"gpus\": %d, \"tenants.0.serving.tensor_parallel\": %d, "
            "\"tenants.0.arrival.path\": \"%s\"}",
            rows[i].gpu, rows[i].tp, rows[i].tp, trace);
        char args[600];
        snprintf(args, sizeof args, "run %s", path);
        cJSON *doc = tu_cli_json(args);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        double tpot = tu_json_num(doc, "strategies.0.tenants.0.llm.tpot_ms.p50");
        double ttft = tu_json_num(doc, "strategies.0.tenants.0.llm.ttft_ms.p50");
        CU_ASSERT_DOUBLE_EQUAL(tpot, rows[i].tpot, 0.01);
        CU_ASSERT_DOUBLE_EQUAL(ttft, rows[i].ttft, 0.1);
        /* decode within 25 % of the measurement, optimistic as the dense TP runs are (TP 8 on
         * the H100 -24 % since vLLM's entry was fitted on Lambda's one-GPU runs alone), and
         * TTFT about a tenth of the measured or less (a cost the model does not hold: the docs) */
        CU_ASSERT(tpot < rows[i].measured_tpot && tpot > 0.75 * rows[i].measured_tpot);
        CU_ASSERT(ttft < 0.11 * rows[i].measured_ttft);
        CU_ASSERT_EQUAL(tu_json_num(doc, "strategies.0.tenants.0.completed"), 10);
        cJSON_Delete(doc);
    }
}

void test_moepublished_register(void)
{
    static const struct tu_test t[] = {
        {"Mixtral-8x7B on TP 2/4/8 H100 and TP 2 A100: Lambda's vLLM runs", test_lambda_mixtral},
        {NULL, NULL},
    };
    tu_add_suite("moepublished", t);
}
