/*
 * fuzz_sweepmerge — libFuzzer target for the reader that decides whether a sweep point's files
 * may be trusted (`sharesim sweep` resuming, `sweep --merge` taking a shard's point):
 * bytes → sw_point_verify. The input is a point's JSON text, a NUL byte, then its CSV text
 * (no NUL: all of it is the JSON and the CSV is empty). The seeds are two real points of
 * format 2 (tests/fuzz/corpus/fuzz_sweepmerge: one replication of an LLM tenant; two
 * replications of two tenants, one with rejections, under two strategies); each is verified
 * against both seeds' config hashes, so mutations get past the config hash check.
 *
 * Invariants checked on every input (a violation aborts, which libFuzzer reports):
 *  - no crash, hang, leak or UB, whatever the bytes;
 *  - a point that is not done comes with a reason; one that is done has a JSON that parses,
 *    a CSV whose rows are what the JSON records, and its payload hash recomputed here matches;
 *  - verifying is a pure function: the same input gives the same answer twice.
 */
#include "tools/sweep.h"
#include "base/util.h"

#include <cJSON.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The config hashes of the two seeds (tests/fuzz/corpus/fuzz_sweepmerge/point-a, point-b). */
static const uint64_t seed_hashes[] = {0x5cdff073534a568aULL, 0x509977d5b9297cecULL};

static void check_done(const char *json, const char *csv, size_t csv_len,
                       const struct sw_csv_sum *sum)
{
    cJSON *doc = cJSON_Parse(json);
    if (!doc)
        abort();
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(doc, "sweep");
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(sw, "payload_hash");
    char hex[32];
    snprintf(hex, sizeof hex, "%016" PRIx64, sw_payload_hash(doc, csv, csv_len));
    if (!cJSON_IsString(ph) || strcmp(ph->valuestring, hex) != 0 || sum->rows < 0)
        abort();
    cJSON_Delete(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct sw_grid g;
    static int ready;
    if (!ready) {
        char err[SS_ERRLEN];
        sw_grid_init(&g);
        if (sw_grid_add(&g, "seed=1", err, sizeof err))
            abort();
        ready = 1;
    }
    const uint8_t *nul = memchr(data, 0, size);
    size_t jlen = nul ? (size_t)(nul - data) : size;
    char *json = ss_xmalloc(jlen + 1);
    memcpy(json, data, jlen);
    json[jlen] = '\0';
    size_t clen = nul ? size - jlen - 1 : 0;
    char *csv = ss_xmalloc(clen + 1);
    if (clen)
        memcpy(csv, nul + 1, clen);
    csv[clen] = '\0';
    for (size_t k = 0; k < sizeof seed_hashes / sizeof *seed_hashes; k++) {
        char why[SS_ERRLEN], why2[SS_ERRLEN];
        struct sw_csv_sum sum = {0, -1};
        enum sw_state st =
            sw_point_verify(&g, 0, seed_hashes[k], json, csv, clen, &sum, why, sizeof why);
        enum sw_state again =
            sw_point_verify(&g, 0, seed_hashes[k], json, csv, clen, NULL, why2, sizeof why2);
        if (st != again)
            abort();
        if (st == SW_DONE)
            check_done(json, csv, clen, &sum);
        else if (st != SW_STALE && st != SW_DAMAGED)
            abort();
        else if (!why[0] || strcmp(why, why2) != 0)
            abort();
    }
    free(json);
    free(csv);
    return 0;
}
