/* shard — see shard.h. */
#include "tools/shard.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>

int shard_parse(const char *s, struct shard *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long i = strtol(s, &end, 10);
    if (end == s || *end != '/' || s[0] == '-' || s[0] == '+' || errno)
        return ss_errf(err, errlen, "expected I/N (shard I of N, 0 <= I < N), got \"%s\"", s);
    const char *ns = end + 1;
    long n = strtol(ns, &end, 10);
    if (end == ns || *end || ns[0] == '-' || ns[0] == '+' || errno)
        return ss_errf(err, errlen, "expected I/N (shard I of N, 0 <= I < N), got \"%s\"", s);
    if (n < 1 || n > SHARD_MAX)
        return ss_errf(err, errlen, "N must be 1..%d, got \"%s\"", SHARD_MAX, s);
    if (i >= n)
        return ss_errf(err, errlen,
                       "I must be below N (shards are numbered from 0, as Slurm's "
                       "--array=0-%ld does), got \"%s\"",
                       n - 1, s);
    out->i = (int)i;
    out->n = (int)n;
    return 0;
}

int shard_has(const struct shard *s, long idx)
{
    return s->n <= 1 || idx % s->n == s->i;
}
