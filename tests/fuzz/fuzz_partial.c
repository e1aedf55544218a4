/*
 * fuzz_partial — libFuzzer target for the merge reader: bytes → a partial file (memfd) →
 * part_read, each item handed to cl_result_check (what `cluster --merge` does with it).
 *
 * The study is fixed: key "fuzz study", 8 items; items 0..3 are the experiments (fgd,
 * bestfit) x seeds (1, 2) of a small replay (5 samples), 4..7 the same of an inflation to
 * 1.05 x the GPUs (106 columns), on three nodes
 * (the scenarios are written to a temporary directory at the first input, loaded, and
 * removed). Seeds in
 * tests/fuzz/corpus/fuzz_partial/ are real shard files of those two studies with the
 * fixed key, so mutation starts from items whose hashes match.
 * Invariants (a violation aborts, reported as a crash):
 *  - part_read returns 0 or -1; on -1 the message names the file;
 *  (inputs of odd length get their item hashes rewritten to match first, see rehash());
 *  - every item delivered passed its hash, and is delivered once (seen[] marks it);
 *  - an item cl_result_check accepts re-parses as a JSON object whose counts add up.
 */
#define _GNU_SOURCE
#include "base/util.h"
#include "cluster/cl_scenario.h"
#include "tools/partial.h"

#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_ITEMS 8
static const char KEY[] = "fuzz study";

static struct cl_scenario study[2]; /* replay, inflate */
static int fd = -1;
static char path[64];
static unsigned char delivered[N_ITEMS];

static void write_file(const char *p, const char *text)
{
    FILE *fp = fopen(p, "w");
    if (!fp || fputs(text, fp) < 0 || fclose(fp) != 0)
        abort();
}

static void setup(void)
{
    char dir[] = "/tmp/fuzz_partial.XXXXXX";
    if (!mkdtemp(dir))
        abort();
    char p[256], t[1024];
    snprintf(p, sizeof p, "%s/nodes.csv", dir);
    write_file(p, "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,2,T4\n"
                  "n2,64000,262144,4,V100\nn3,8000,32768,0,\n");
    snprintf(p, sizeof p, "%s/pods.csv", dir);
    write_file(p, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"
                  "p0,4000,8192,1,500,0,100\np1,4000,8192,1,1000,10,50\n"
                  "p2,2000,4096,0,0,20,300\np3,8000,16384,2,1000,30,200\n"
                  "p4,4000,8192,1,250,40,400\n");
    const char *mode[2] = {"\"mode\": \"replay\", \"replay\": {\"sample_s\": 100}",
                           "\"mode\": \"inflate\", \"inflate\": {\"tune\": 1.05}"};
    for (int k = 0; k < 2; k++) {
        snprintf(t, sizeof t,
                 "{\"cluster\": {\"nodes\": \"nodes.csv\", \"pods\": \"pods.csv\", %s, "
                 "\"policies\": [\"fgd\", \"bestfit\"], \"seeds\": [1, 2]}}",
                 mode[k]);
        snprintf(p, sizeof p, "%s/s%d.json", dir, k);
        write_file(p, t);
        char err[SS_ERRLEN];
        if (cl_scenario_load(p, &study[k], err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            abort();
        }
    }
    /* the studies are in memory now: nothing is left behind in /tmp */
    const char *names[] = {"nodes.csv", "pods.csv", "s0.json", "s1.json"};
    for (int k = 0; k < 4; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[k]);
        remove(p);
    }
    rmdir(dir);
    fd = memfd_create("fuzz-partial", 0);
    if (fd < 0)
        abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
}

static int deliver(void *ctx, long idx, const void *bytes, size_t len, char *why, size_t n)
{
    (void)ctx;
    if (idx < 0 || idx >= N_ITEMS || delivered[idx])
        abort();
    delivered[idx] = 1;
    const struct cl_scenario *s = &study[idx / 4];
    if (cl_result_check(s, idx % 4, bytes, len, why, n) != 0) {
        if (!why[0])
            abort();
        return -1;
    }
    cJSON *o = cJSON_ParseWithLength(bytes, len);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "arrived");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "placed");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "failed");
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(o, "pending");
    if (!a || !p || !f || !q || a->valuedouble != p->valuedouble + f->valuedouble + q->valuedouble)
        abort();
    cJSON_Delete(o);
    return 0;
}

/*
 * The harness's half of the inputs (odd length): each item line's hash is rewritten to match
 * its bytes before the file is read, so that mutated figures get past the hash and exercise
 * cl_result_check; the other half tests the hash itself. The reader is the same either way.
 */
static uint8_t *rehash(const uint8_t *data, size_t size, size_t *out_size)
{
    uint8_t *o = ss_xmalloc(size + 1);
    memcpy(o, data, size);
    o[size] = 0;
    for (size_t i = 0; i < size;) {
        size_t e = i;
        while (e < size && o[e] != '\n')
            e++;
        /* "<index> <16 hex> <hex>" */
        size_t d = i;
        long idx = 0;
        while (d < e && o[d] >= '0' && o[d] <= '9' && idx < 1000000)
            idx = idx * 10 + (o[d++] - '0');
        if (d > i && d + 18 <= e && o[d] == ' ' && o[d + 17] == ' ') {
            size_t hx = d + 18, n = (e - hx) / 2;
            unsigned char *b = ss_xmalloc(n + 1);
            int ok = 1;
            for (size_t k = 0; k < n && ok; k++) {
                int hi = o[hx + 2 * k], lo = o[hx + 2 * k + 1];
                hi = hi >= '0' && hi <= '9'   ? hi - '0'
                     : hi >= 'a' && hi <= 'f' ? hi - 'a' + 10
                                              : -1;
                lo = lo >= '0' && lo <= '9'   ? lo - '0'
                     : lo >= 'a' && lo <= 'f' ? lo - 'a' + 10
                                              : -1;
                ok = hi >= 0 && lo >= 0;
                b[k] = (unsigned char)(hi * 16 + lo);
            }
            if (ok) {
                char h[17];
                snprintf(h, sizeof h, "%016llx", part_item_hash(KEY, idx, b, n));
                memcpy(o + d + 1, h, 16);
            }
            free(b);
        }
        i = e + 1;
    }
    *out_size = size;
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fd < 0)
        setup();
    if (ftruncate(fd, 0) != 0)
        abort();
    size_t n = size;
    uint8_t *fixed = size % 2 ? rehash(data, size, &n) : NULL;
    const uint8_t *bytes = fixed ? fixed : data;
    for (size_t off = 0; off < n;) {
        ssize_t k = pwrite(fd, bytes + off, n - off, (off_t)off);
        if (k <= 0)
            abort();
        off += (size_t)k;
    }
    free(fixed);
    memset(delivered, 0, sizeof delivered);
    unsigned char seen[N_ITEMS + 1] = {0};
    char err[SS_ERRLEN] = "";
    int rc = part_read(path, KEY, N_ITEMS, seen, deliver, NULL, err, sizeof err);
    if (rc != 0 && rc != -1)
        abort();
    if (rc == -1 && (!err[0] || !strstr(err, path)))
        abort();
    for (int i = 0; i < N_ITEMS; i++)
        if (seen[i] && !delivered[i])
            abort();
    return 0;
}
