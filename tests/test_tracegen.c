/*
 * tracegen — core/tracegen.c on its own, without the command: the rows are the stream's
 * draws, read back exactly; the count and the duration stop it where they say; the clock's
 * horizon is an error; numbers take the fewest digits that read back.
 */
#include "core/tracegen.h"
#include "core/scenario.h"
#include "base/util.h"
#include "testutil.h"

#include <CUnit/CUnit.h>
#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A tenant from arrival and work JSON, as `trace gen --arrival --work` builds it. */
static int make_cfg(const char *arrival, const char *work, struct tenant_cfg *cfg)
{
    char err[SS_ERRLEN];
    cJSON *a = cJSON_Parse(arrival), *w = cJSON_Parse(work);
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->name, sizeof cfg->name, "gen");
    int rc = scn_parse_stream("(test)", a, "arrival", w, "work", cfg, err, sizeof err);
    cJSON_Delete(a);
    cJSON_Delete(w);
    return rc;
}

/* The trace of cfg (seed 7) as text; rows written, or -1 with err. */
static long long gen_text(const struct tenant_cfg *cfg, const struct tg_limit *lim, char *text,
                          size_t cap, double *last, char *err, size_t errlen)
{
    FILE *fp = fmemopen(text, cap, "w");
    struct tenant_rt t;
    memset(&t, 0, sizeof t);
    ten_init(&t, cfg, NULL, 7, 0, 0);
    long long n = tg_write(fp, &t, lim, "mem", last, err, errlen);
    ten_free(&t);
    fclose(fp);
    return n;
}

static void test_rows_exact(void)
{
    struct tenant_cfg cfg;
    CU_ASSERT_EQUAL_FATAL(make_cfg("{\"process\": \"deterministic\", \"rate_per_s\": 4}",
                                   "{\"dist\": \"deterministic\", \"ms\": 2.5}", &cfg),
                          0);
    char text[4096], err[SS_ERRLEN];
    double last = -1;
    const struct tg_limit by_count = {3, 0};
    CU_ASSERT_EQUAL(gen_text(&cfg, &by_count, text, sizeof text, &last, err, sizeof err), 3);
    CU_ASSERT_STRING_EQUAL(text, "time_s,work_ms\n0.25,2.5\n0.5,2.5\n0.75,2.5\n");
    CU_ASSERT_DOUBLE_EQUAL(last, 0.75, 0);
    /* the duration stops at the first arrival at or after it: 0.25 .. 1.0 is 3 rows */
    const struct tg_limit by_time = {0, 1.0};
    CU_ASSERT_EQUAL(gen_text(&cfg, &by_time, text, sizeof text, &last, err, sizeof err), 3);
    scn_tenant_free(&cfg);
}

static void test_stream_read_back(void)
{
    struct tenant_cfg cfg;
    CU_ASSERT_EQUAL_FATAL(make_cfg("{\"process\": \"poisson\", \"rate_per_s\": 50}",
                                   "{\"dist\": \"exponential\", \"mean_ms\": 4}", &cfg),
                          0);
    static char text[1 << 16];
    char err[SS_ERRLEN];
    double last;
    const struct tg_limit lim = {500, 0};
    CU_ASSERT_EQUAL_FATAL(gen_text(&cfg, &lim, text, sizeof text, &last, err, sizeof err), 500);
    /* the same stream drawn directly: every time reads back as drawn, every work too (or is
     * within an ulp, written with 17 digits) */
    struct tenant_rt t;
    memset(&t, 0, sizeof t);
    ten_init(&t, &cfg, NULL, 7, 0, 0);
    const char *p = strchr(text, '\n') + 1;
    double now = 0, tn, w;
    int rows = 0, exact_work = 0;
    while (*p && ten_next(&t, now, &tn, &w) > 0) {
        char *end;
        double ts = strtod(p, &end);
        CU_ASSERT_EQUAL(*end, ',');
        double wms = strtod(end + 1, &end);
        CU_ASSERT_EQUAL(*end, '\n');
        CU_ASSERT(ts == tn);
        CU_ASSERT(fabs(wms / 1e3 - w) <= 2 * ldexp(fabs(w), -52));
        exact_work += wms / 1e3 == w;
        now = tn;
        p = end + 1;
        rows++;
    }
    CU_ASSERT_EQUAL(rows, 500);
    CU_ASSERT(exact_work > 450); /* about 2 % have no exact length */
    CU_ASSERT(last == now);
    ten_free(&t);
    scn_tenant_free(&cfg);
}

static void test_horizon(void)
{
    /* arrivals 1e9 s apart: the fifth, at 5e9 s, is past 2^32 s */
    struct tenant_cfg cfg;
    CU_ASSERT_EQUAL_FATAL(make_cfg("{\"process\": \"deterministic\", \"rate_per_s\": 1e-9}",
                                   "{\"dist\": \"deterministic\", \"ms\": 1}", &cfg),
                          0);
    char text[4096], err[SS_ERRLEN] = "";
    double last = -1;
    const struct tg_limit lim = {10, 0};
    CU_ASSERT_EQUAL(gen_text(&cfg, &lim, text, sizeof text, &last, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "arrival 5 at 5e+09 s is past the clock's horizon"));
    scn_tenant_free(&cfg);
}

static void test_fmt_exact(void)
{
    char b[40];
    tg_fmt_exact(b, sizeof b, 0.1, 1.0, 0.1);
    CU_ASSERT_STRING_EQUAL(b, "0.1");
    /* 1/3 needs 16 or 17 digits to read back */
    tg_fmt_exact(b, sizeof b, 1.0 / 3, 1.0, 1.0 / 3);
    CU_ASSERT(strtod(b, NULL) == 1.0 / 3);
    CU_ASSERT(strlen(b) >= 17);
    /* no length reads back as target: 17 digits of v */
    tg_fmt_exact(b, sizeof b, 2.0, 1.0, 3.0);
    CU_ASSERT_STRING_EQUAL(b, "2");
}

void test_tracegen_register(void)
{
    static const struct tu_test t[] = {
        {"rows are the draws, count and duration stop them", test_rows_exact},
        {"a Poisson stream reads back as drawn", test_stream_read_back},
        {"an arrival past the clock's horizon is an error", test_horizon},
        {"numbers take the fewest digits that read back", test_fmt_exact},
        {NULL, NULL},
    };
    tu_add_suite("tracegen", t);
}
