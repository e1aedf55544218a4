/*
 * sweep (tools/sweep.c): the grid, ranges, dotted paths and point validation. `sharesim
 * sweep` end to end is in test_cmd_sweep.c.
 */
#include "core/scenario.h"
#include "tools/sweep.h"
#include "testutil.h"
#include "base/util.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tests/fixtures/sweep/tiny.json (two tenants, exclusive and time-slicing; a at 100/s, a 1 ms
 * slice), copied once to the temporary directory; returns the copy's path. */
static const char *tiny_path(void)
{
    static char *p;
    if (!p)
        p = ss_xstrdup(tu_fixture_write("sweep-tiny.json", "sweep/tiny.json", NULL));
    return p;
}

static void test_range(void)
{
    struct sw_grid g;
    char err[SS_ERRLEN];
    sw_grid_init(&g);
    /* start + i·step, rounded: 0.30000000000000004 must come out as 0.3 and be included */
    CU_ASSERT_EQUAL_FATAL(sw_grid_add(&g, "x=0:0.3:0.1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(g.axes[0].n_values, 4);
    const char *want[] = {"0", "0.1", "0.2", "0.3"};
    for (int i = 0; i < 4 && i < g.axes[0].n_values; i++) {
        CU_ASSERT_STRING_EQUAL(g.axes[0].labels[i], want[i]);
        CU_ASSERT_EQUAL(g.axes[0].values[i]->valuedouble, strtod(want[i], NULL));
    }
    /* descending, then a list mixing ranges, numbers, strings and booleans */
    CU_ASSERT_EQUAL(sw_grid_add(&g, "y=5:1:-2", err, sizeof err), 0);
    CU_ASSERT_EQUAL(g.axes[1].n_values, 3);
    CU_ASSERT_STRING_EQUAL(g.axes[1].labels[2], "1");
    CU_ASSERT_EQUAL(sw_grid_add(&g, "z=7,1:2:1,mps,true,\"8\",2.50", err, sizeof err), 0);
    CU_ASSERT_EQUAL(g.axes[2].n_values, 7);
    CU_ASSERT(cJSON_IsNumber(g.axes[2].values[0]));
    CU_ASSERT_STRING_EQUAL(g.axes[2].labels[2], "2");
    CU_ASSERT(cJSON_IsString(g.axes[2].values[3]));
    CU_ASSERT_STRING_EQUAL(g.axes[2].labels[3], "mps");
    CU_ASSERT(cJSON_IsTrue(g.axes[2].values[4]));
    CU_ASSERT(cJSON_IsString(g.axes[2].values[5]));
    CU_ASSERT_STRING_EQUAL(g.axes[2].labels[5], "8");
    CU_ASSERT_STRING_EQUAL(g.axes[2].labels[6], "2.5");
    CU_ASSERT_EQUAL(g.n_points, 4 * 3 * 7);
    /* one-value range; a range that cannot reach stop; zero step; non-scalars; syntax */
    CU_ASSERT_EQUAL(sw_grid_add(&g, "w=3:3:1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(g.axes[3].n_values, 1);
    const char *bad[] = {"v=1:0:1", "v=1:2:0", "v=null", "v=[1]",   "v={}",
                         "v=",      "=1",      "v",      "a..b=1",  ".a=1",
                         "a.=1",    "x=1",     "v=1,,2", "v=1e999", "v=0:1e9:1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        CU_ASSERT_EQUAL(sw_grid_add(&g, bad[i], err, sizeof err), -1);
        CU_ASSERT(err[0] != '\0');
    }
    CU_ASSERT_EQUAL(g.n_axes, 4);
    sw_grid_free(&g);
}

static void test_order_and_ids(void)
{
    struct sw_grid g;
    char err[SS_ERRLEN], id[32];
    int c[SW_MAX_AXES];
    sw_grid_init(&g);
    CU_ASSERT_EQUAL(sw_grid_add(&g, "a=1,2", err, sizeof err), 0);
    CU_ASSERT_EQUAL(sw_grid_add(&g, "b=10,20,30", err, sizeof err), 0);
    CU_ASSERT_EQUAL(g.n_points, 6);
    /* the first axis varies slowest */
    const int want[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}};
    for (long i = 0; i < 6; i++) {
        sw_point_coords(&g, i, c);
        CU_ASSERT(c[0] == want[i][0] && c[1] == want[i][1]);
    }
    sw_point_id(&g, 5, id, sizeof id);
    CU_ASSERT_STRING_EQUAL(id, "p0005");
    cJSON *p = sw_point_params(&g, 4);
    char *text = cJSON_PrintUnformatted(p);
    CU_ASSERT_STRING_EQUAL(text, "{\"a\":2,\"b\":20}");
    free(text);
    cJSON_Delete(p);
    sw_grid_free(&g);
    /* ids widen past 9999 points */
    sw_grid_init(&g);
    CU_ASSERT_EQUAL(sw_grid_add(&g, "a=0:100:1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(sw_grid_add(&g, "b=0:98:1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(sw_id_width(&g), 4); /* 9999 points */
    sw_grid_free(&g);
    sw_grid_init(&g);
    CU_ASSERT_EQUAL(sw_grid_add(&g, "a=0:100:1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(sw_grid_add(&g, "b=0:99:1", err, sizeof err), 0);
    sw_point_id(&g, 10099, id, sizeof id);
    CU_ASSERT_STRING_EQUAL(id, "p10099");
    sw_point_id(&g, 7, id, sizeof id);
    CU_ASSERT_STRING_EQUAL(id, "p00007");
    sw_grid_free(&g);
}

static void test_set_path(void)
{
    cJSON *doc = cJSON_Parse("{\"a\": {\"b\": [1, {\"c\": 2}]}}");
    cJSON *five = cJSON_CreateNumber(5), *yes = cJSON_CreateTrue(), *s = cJSON_CreateString("x");
    char err[SS_ERRLEN];
    CU_ASSERT_EQUAL(sw_set_path(doc, "a.b.1.c", five, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sw_set_path(doc, "a.b.1.d", yes, err, sizeof err), 0); /* new key */
    CU_ASSERT_EQUAL(sw_set_path(doc, "a.b.0", s, err, sizeof err), 0);
    char *text = cJSON_PrintUnformatted(doc);
    CU_ASSERT_STRING_EQUAL(text, "{\"a\":{\"b\":[\"x\",{\"c\":5,\"d\":true}]}}");
    free(text);
    struct {
        const char *path, *msg;
    } bad[] = {{"a.x.y", "a has no key \"x\""},
               {"a.b.2", "index 2 out of range (a.b has 2 elements)"},
               {"a.b.z", "a.b is an array, expected an index, got \"z\""},
               {"a.b.-1", "expected an index"},
               {"a.b.0.q", "a.b.0 is a string, not an object or array"},
               {"q.r", "the scenario has no key \"q\""},
               {"a..b", "empty component"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        CU_ASSERT_EQUAL(sw_set_path(doc, bad[i].path, five, err, sizeof err), -1);
        if (!strstr(err, bad[i].msg))
            fprintf(stderr, "\n  %s: got \"%s\"\n", bad[i].path, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i].msg));
    }
    cJSON_Delete(five);
    cJSON_Delete(yes);
    cJSON_Delete(s);
    cJSON_Delete(doc);
}

static void test_point_load(void)
{
    struct scenario base, sc;
    struct sw_grid g;
    struct sw_opts o = {0, -1, 1};
    char err[SS_ERRLEN];
    uint64_t h0, h0b, h1;
    tu_load_file(tiny_path(), &base);
    sw_grid_init(&g);
    CU_ASSERT_EQUAL(sw_grid_add(&g, "tenants.0.arrival.rate_per_s=70,-1,80", err, sizeof err), 0);
    CU_ASSERT_EQUAL(sw_point_load(&g, base.json, tiny_path(), &o, 0, &sc, &h0, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sc.tenants[0].arrival.rate_per_s, 70);
    CU_ASSERT_EQUAL(sc.tenants[1].arrival.rate_per_s, 200);
    scn_free(&sc);
    /* the loader validates the swept value; the message names the point and the value */
    CU_ASSERT_EQUAL(sw_point_load(&g, base.json, tiny_path(), &o, 1, &sc, &h1, err, sizeof err),
                    -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "point p0001 (tenants.0.arrival.rate_per_s=-1)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "tenants[0].arrival.rate_per_s"));
    /* the config hash follows the values and the options */
    CU_ASSERT_EQUAL(sw_point_load(&g, base.json, tiny_path(), &o, 2, &sc, &h1, err, sizeof err), 0);
    scn_free(&sc);
    CU_ASSERT_NOT_EQUAL(h0, h1);
    o.seed = 3;
    CU_ASSERT_EQUAL(sw_point_load(&g, base.json, tiny_path(), &o, 0, &sc, &h0b, err, sizeof err),
                    0);
    scn_free(&sc);
    CU_ASSERT_NOT_EQUAL(h0, h0b);
    sw_grid_free(&g);
    scn_free(&base);
}

void test_sweep_register(void)
{
    static const struct tu_test tests[] = {{"range expansion and value parsing", test_range},
                                           {"point order and ids", test_order_and_ids},
                                           {"dotted paths", test_set_path},
                                           {"point validation and config hash", test_point_load},
                                           {NULL, NULL}};
    tu_add_suite("sweep", tests);
}
