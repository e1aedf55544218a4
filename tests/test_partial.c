/*
 * Tests for merges that verify their inputs (sim/tools/partial.c, sim/cluster/cl_check.c,
 * docs/robustness.md "Cluster limits and merges"): a partial file's item is merged only if
 * its bytes match the hash on its line and its figures are ones a run could produce. Each
 * case damages a real shard's file: an edit without the hash (refused as damaged), an edit
 * with the hash recomputed (refused by the conservation and range checks: placed -99999, a
 * count that does not add up, a NaN figure in validate's doubles), and a file of format 1.
 * Every refusal exits 2 naming the file, the item and what is wrong.
 */
#include "testutil.h"
#include "base/util.h"
#include "tools/partial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *NODES = "sn,cpu_milli,memory_mib,gpu,model\n"
                           "n1,64000,262144,2,T4\n"
                           "n2,64000,262144,4,V100\n";
static const char *PODS =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"
    "p0,4000,8192,1,500,0,100\n"
    "p1,4000,8192,1,1000,10,50\n"
    "p2,2000,4096,0,0,20,300\n"
    "p3,8000,16384,2,1000,30,200\n"
    "p4,4000,8192,1,250,40,400\n";

static int unhex(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Rewrites item idx of a partial file: edit() changes its bytes (and may resize them, up to
 * cap); with rehash the line's hash is recomputed as a careful forger would. */
static void damage(const char *path, long idx,
                   void (*edit)(unsigned char *b, size_t *n, size_t cap), int rehash)
{
    char *text = tu_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    size_t cap = strlen(text) + 4096;
    char *outp = malloc(cap * 3), *o = outp;
    char key[512] = "";
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%ld ", idx);
    int found = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "key ", 4) == 0)
            snprintf(key, sizeof key, "%s", line + 4);
        if (strncmp(line, prefix, strlen(prefix)) != 0) {
            o += sprintf(o, "%s\n", line);
            continue;
        }
        found = 1;
        char *hash = line + strlen(prefix), *hex = hash + 17;
        size_t n = strlen(hex) / 2;
        unsigned char *b = malloc(n + 4096);
        for (size_t i = 0; i < n; i++)
            b[i] = (unsigned char)(unhex(hex[2 * i]) * 16 + unhex(hex[2 * i + 1]));
        edit(b, &n, n + 4096);
        char h[17];
        if (rehash)
            snprintf(h, sizeof h, "%016llx", part_item_hash(key, idx, b, n));
        else
            snprintf(h, sizeof h, "%.16s", hash);
        o += sprintf(o, "%s%s ", prefix, h);
        for (size_t i = 0; i < n; i++)
            o += sprintf(o, "%02x", b[i]);
        *o++ = '\n';
        free(b);
    }
    *o = 0;
    CU_ASSERT(found);
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(outp, fp);
    fclose(fp);
    free(outp);
    free(text);
}

/* JSON text edits: replace the first `"key":<number>` with a new value. */
static char edit_key[64], edit_val[64];

static void edit_json(unsigned char *b, size_t *n, size_t cap)
{
    char *s = malloc(*n + 1);
    memcpy(s, b, *n);
    s[*n] = 0;
    char pat[80];
    snprintf(pat, sizeof pat, "\"%s\":", edit_key);
    char *at = strstr(s, pat);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    char *v = at + strlen(pat), *end = v;
    while (*end && *end != ',' && *end != '}')
        end++;
    char *t = malloc(*n + 128);
    int k = sprintf(t, "%.*s%s%s", (int)(v - s), s, edit_val, end);
    CU_ASSERT_FATAL((size_t)k <= cap);
    memcpy(b, t, (size_t)k);
    *n = (size_t)k;
    free(t);
    free(s);
}

static void edit_flip(unsigned char *b, size_t *n, size_t cap)
{
    (void)cap;
    b[*n / 2] ^= 1;
}

static void edit_nan(unsigned char *b, size_t *n, size_t cap)
{
    (void)cap;
    double x = NAN;
    CU_ASSERT_FATAL(*n >= sizeof x);
    memcpy(b, &x, sizeof x); /* the first figure */
}

static int merge(const char *scn, const char *part, char *errb, size_t n)
{
    char cmd[2048], json[600];
    snprintf(json, sizeof json, "%s/merged.json", tu_tmpdir());
    remove(json);
    snprintf(cmd, sizeof cmd, "cluster %s --quiet --json %s --merge %s", scn, json, part);
    int rc = tu_cli(cmd, NULL, 0, errb, n);
    CU_ASSERT(rc == 0 || !tu_exists(json)); /* refused: no output */
    return rc;
}

/* A fresh shard file (all experiments, one shard of one... two: 0/2 and 1/2 merged). */
static void shards(const char *scn, char p[2][600])
{
    for (int i = 0; i < 2; i++) {
        char cmd[2048], errb[4096];
        snprintf(p[i], 600, "%s/shard%d.partial", tu_tmpdir(), i);
        snprintf(cmd, sizeof cmd, "cluster %s --shard %d/2 --partial %s", scn, i, p[i]);
        CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 0);
    }
}

static void expect_merge_refused(const char *scn, char p[2][600], const char *needle)
{
    char both[1300], errb[8192];
    snprintf(both, sizeof both, "%s %s", p[0], p[1]);
    CU_ASSERT_EQUAL(merge(scn, both, errb, sizeof errb), 2);
    if (!strstr(errb, needle))
        fprintf(stderr, "\n  expected \"%s\" in: %s\n", needle, errb);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, needle));
}

static void test_cluster_merge_verifies(void)
{
    char text[2048];
    char *np = tu_write("pm.nodes.csv", NODES), *pp = tu_write("pm.pods.csv", PODS);
    snprintf(text, sizeof text,
             "{\"cluster\": {\"nodes\": \"%s\", \"pods\": \"%s\", \"mode\": \"replay\", "
             "\"policies\": [\"fgd\", \"bestfit\"], \"seeds\": [1, 2]}}",
             np, pp);
    char *scn = tu_write("pm.json", text);
    char p[2][600], errb[8192], both[1300];
    /* untouched: merges */
    shards(scn, p);
    snprintf(both, sizeof both, "%s %s", p[0], p[1]);
    CU_ASSERT_EQUAL(merge(scn, both, errb, sizeof errb), 0);

    /* the example: placed -99999, hash left as it was */
    snprintf(edit_key, sizeof edit_key, "placed");
    snprintf(edit_val, sizeof edit_val, "-99999");
    damage(p[0], 0, edit_json, 0);
    char want[900];
    snprintf(want, sizeof want, "%s: line 4: item 0 is damaged: its bytes do not match their hash",
             p[0]);
    expect_merge_refused(scn, p, want);
    /* ... and with the hash recomputed: the figures themselves are refused */
    shards(scn, p);
    damage(p[0], 0, edit_json, 1);
    expect_merge_refused(scn, p, "item 0: experiment fgd seed 1: \"placed\" -99999 is not a count");
    /* a count that does not add up */
    shards(scn, p);
    snprintf(edit_key, sizeof edit_key, "failed");
    snprintf(edit_val, sizeof edit_val, "3");
    damage(p[1], 1, edit_json, 1);
    expect_merge_refused(scn, p, "item 1: experiment fgd seed 2: arrived 5 is not placed");
    /* a percentage out of range, in a sample */
    shards(scn, p);
    snprintf(edit_key, sizeof edit_key, "alloc_ratio");
    snprintf(edit_val, sizeof edit_val, "250");
    damage(p[0], 2, edit_json, 1);
    expect_merge_refused(scn, p, "samples[0]: \"alloc_ratio\" 250 is outside [0, 100]");
    /* another experiment's result under this index */
    shards(scn, p);
    snprintf(edit_key, sizeof edit_key, "seed");
    snprintf(edit_val, sizeof edit_val, "7");
    damage(p[0], 0, edit_json, 1);
    expect_merge_refused(scn, p, "expected policy \"fgd\" seed 1");
    /* a flipped byte, a cut line */
    shards(scn, p);
    damage(p[1], 3, edit_flip, 0);
    expect_merge_refused(scn, p, "item 3 is damaged");
    /* format 1 (no hashes) */
    shards(scn, p);
    char *t = tu_slurp(p[0]);
    t[strlen("sharesim partial results ")] = '1';
    FILE *fp = fopen(p[0], "w");
    fputs(t, fp);
    fclose(fp);
    free(t);
    expect_merge_refused(scn, p, "a partial file of format 1, whose items carry no hash");
}

/* validate --merge: a NaN figure is damage, not a failing row. */
static void test_validate_merge_nan(void)
{
    if (tu_under_valgrind()) {
        fprintf(stderr, "(skipped under valgrind) ");
        return;
    }
    char part[600], cmd[2048], errb[8192];
    snprintf(part, sizeof part, "%s/v.partial", tu_tmpdir());
    /* one small shard of the quick grid: task 0 (and every 60th) */
    snprintf(cmd, sizeof cmd, "validate --quick --shard 0/60 --partial %s", part);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 0);
    damage(part, 0, edit_nan, 1);
    snprintf(cmd, sizeof cmd, "validate --quick --quiet --merge %s", part);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "line 4: item 0: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "damaged: figure 0 ("));
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "is nan, expected a finite number"));
    CU_ASSERT_PTR_NULL(strstr(errb, "runs are in no partial file"));
    /* without the hash recomputed it is damaged by the hash already */
    CU_ASSERT_EQUAL(tu_cli(cmd + 0, NULL, 0, errb, sizeof errb), 2);
    snprintf(cmd, sizeof cmd, "validate --quick --shard 0/60 --partial %s", part);
    CU_ASSERT_EQUAL_FATAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 0);
    damage(part, 0, edit_nan, 0);
    snprintf(cmd, sizeof cmd, "validate --quick --quiet --merge %s", part);
    CU_ASSERT_EQUAL(tu_cli(cmd, NULL, 0, errb, sizeof errb), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(errb, "item 0 is damaged: its bytes do not match their hash"));
}

void test_partial_register(void)
{
    static const struct tu_test t[] = {
        {"cluster --merge: hash and conservation checks, file and item named",
         test_cluster_merge_verifies},
        {"validate --merge: a NaN figure is refused as damage", test_validate_merge_nan},
        {NULL, NULL},
    };
    tu_add_suite("partial", t);
}
