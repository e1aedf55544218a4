/* partial — see partial.h. */
#include "tools/partial.h"

#include <stdlib.h>
#include <string.h>

#define PART_MAGIC "sharesim partial results 2"
#define PART_MAGIC_V1 "sharesim partial results 1"
#define PART_MAX_FILE (1u << 30)

int part_open(struct part_out *p, const char *path, const char *key, long n_items, char *err,
              size_t errlen)
{
    memset(p, 0, sizeof *p);
    SS_ASSERT(!strchr(key, '\n'));
    if (ss_out_open(&p->o, path, err, errlen))
        return -1;
    fprintf(p->o.fp, "%s\nkey %s\nitems %ld\n", PART_MAGIC, key, n_items);
    p->n_items = n_items;
    p->key = ss_xstrdup(key);
    p->hex = ss_xcalloc((size_t)n_items + 1, sizeof *p->hex);
    return 0;
}

static unsigned long long fnv1a(unsigned long long h, const void *data, size_t len)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

unsigned long long part_item_hash(const char *key, long idx, const void *data, size_t len)
{
    char head[48];
    int n = snprintf(head, sizeof head, "\n%ld\n", idx);
    unsigned long long h = fnv1a(14695981039346656037ULL, key, strlen(key));
    return fnv1a(fnv1a(h, head, (size_t)n), data, len);
}

void part_add(struct part_out *p, long idx, const void *data, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = data;
    SS_ASSERT(idx >= 0 && idx < p->n_items && !p->hex[idx]);
    char *h = ss_xmalloc(2 * len + 18);
    snprintf(h, 18, "%016llx ", part_item_hash(p->key, idx, data, len));
    char *x = h + 17;
    for (size_t i = 0; i < len; i++) {
        x[2 * i] = digits[b[i] >> 4];
        x[2 * i + 1] = digits[b[i] & 15];
    }
    x[2 * len] = '\0';
    p->hex[idx] = h;
}

static void free_items(struct part_out *p)
{
    for (long i = 0; i < p->n_items; i++)
        free(p->hex[i]);
    free(p->hex);
    p->hex = NULL;
    free(p->key);
    p->key = NULL;
}

int part_commit(struct part_out *p, char *err, size_t errlen)
{
    long count = 0;
    for (long i = 0; i < p->n_items; i++)
        if (p->hex[i]) {
            fprintf(p->o.fp, "%ld %s\n", i, p->hex[i]);
            count++;
        }
    fprintf(p->o.fp, "end %ld\n", count);
    free_items(p);
    return ss_out_commit(&p->o, err, errlen);
}

void part_abort(struct part_out *p)
{
    free_items(p);
    ss_out_abort(&p->o);
}

static int unhex(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The next line of *pos (NUL-terminated in place), or NULL at the end. */
static char *next_line(char **pos)
{
    char *s = *pos;
    if (!*s)
        return NULL;
    char *nl = strchr(s, '\n');
    if (nl) {
        *nl = '\0';
        *pos = nl + 1;
    } else {
        *pos = s + strlen(s);
    }
    return s;
}

static int read_items(const char *path, const char *key, char *pos, long n_items,
                      unsigned char *seen, part_deliver_fn deliver, void *ctx, char *err,
                      size_t errlen)
{
    unsigned char *bytes = NULL;
    long count = 0, line_no = 3;
    int rc = -1;
    for (char *line; (line = next_line(&pos)); count++) {
        line_no++;
        char *end;
        if (strncmp(line, "end ", 4) == 0) {
            long want = strtol(line + 4, &end, 10);
            if (*end || want != count || *pos) {
                ss_errf(err, errlen, "%s: line %ld: the file is damaged (%ld items, end says %s)",
                        path, line_no, count, line + 4);
                break;
            }
            rc = 0;
            break;
        }
        long idx = strtol(line, &end, 10);
        if (end == line || *end != ' ' || idx < 0 || idx >= n_items || line[0] == '-' ||
            line[0] == '+' || line[0] == ' ') {
            ss_errf(err, errlen,
                    "%s: line %ld: expected \"<index> <hash> <hex>\" with an index below %ld", path,
                    line_no, n_items);
            break;
        }
        if (seen[idx]) {
            ss_errf(err, errlen,
                    "%s: item %ld is in an earlier partial file too (overlapping shards, or a "
                    "file given twice)",
                    path, idx);
            break;
        }
        const char *hs = end + 1;
        int ok = strlen(hs) >= 17 && hs[16] == ' ';
        unsigned long long want = 0;
        for (int i = 0; ok && i < 16; i++) {
            int d = unhex(hs[i]);
            ok = d >= 0;
            want = want << 4 | (unsigned)(d < 0 ? 0 : d);
        }
        if (!ok) {
            ss_errf(err, errlen,
                    "%s: line %ld: item %ld is damaged: expected its hash (16 hex "
                    "digits) after the index",
                    path, line_no, idx);
            break;
        }
        const char *h = hs + 17;
        size_t n = strlen(h);
        bytes = ss_xrealloc(bytes, n / 2 + 1);
        ok = n % 2 == 0;
        for (size_t i = 0; ok && i < n / 2; i++) {
            int hi = unhex(h[2 * i]), lo = unhex(h[2 * i + 1]);
            ok = hi >= 0 && lo >= 0;
            bytes[i] = (unsigned char)(hi * 16 + lo);
        }
        if (!ok) {
            ss_errf(err, errlen, "%s: line %ld: item %ld is damaged: bad hex bytes", path, line_no,
                    idx);
            break;
        }
        if (part_item_hash(key, idx, bytes, n / 2) != want) {
            ss_errf(err, errlen,
                    "%s: line %ld: item %ld is damaged: its bytes do not match their hash "
                    "(edited, cut or moved from another line): rerun the shard that wrote it",
                    path, line_no, idx);
            break;
        }
        char why[SS_ERRLEN] = "";
        if (deliver(ctx, idx, bytes, n / 2, why, sizeof why)) {
            ss_errf(err, errlen, "%s: line %ld: item %ld: %s", path, line_no, idx,
                    why[0] ? why : "refused");
            break;
        }
        seen[idx] = 1;
    }
    if (rc && !err[0])
        ss_errf(err, errlen, "%s: ends before its \"end\" line (cut short?)", path);
    free(bytes);
    return rc;
}

int part_read(const char *path, const char *key, long n_items, unsigned char *seen,
              part_deliver_fn deliver, void *ctx, char *err, size_t errlen)
{
    char *text;
    if (ss_read_file(path, PART_MAX_FILE, &text, NULL, err, errlen))
        return -1;
    char *pos = text, *l1 = next_line(&pos), *l2 = next_line(&pos), *l3 = next_line(&pos);
    int rc = -1;
    char items[64];
    snprintf(items, sizeof items, "items %ld", n_items);
    err[0] = '\0';
    if (l1 && strcmp(l1, PART_MAGIC_V1) == 0)
        ss_errf(err, errlen,
                "%s: a partial file of format 1, whose items carry no hash of their figures: "
                "rerun its shard with this sharesim",
                path);
    else if (!l1 || strcmp(l1, PART_MAGIC) != 0)
        ss_errf(err, errlen, "%s: not a sharesim partial results file", path);
    else if (!l2 || strncmp(l2, "key ", 4) != 0 || strcmp(l2 + 4, key) != 0)
        ss_errf(err, errlen,
                "%s: written by a different run (%s), this one is \"%s\": merge with the same "
                "options the shards ran with",
                path, l2 ? l2 : "no key", key);
    else if (!l3 || strcmp(l3, items) != 0)
        ss_errf(err, errlen, "%s: %s, expected %s", path, l3 ? l3 : "no item count", items);
    else
        rc = read_items(path, key, pos, n_items, seen, deliver, ctx, err, errlen);
    free(text);
    return rc;
}
