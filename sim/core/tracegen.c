/*
 * tracegen — the writer of tracegen.h. The stall check looks once every 2^20 rows: cheap,
 * and a clock stuck at one value for 64 such looks is stuck for good (the arrival process
 * cannot move a double past it).
 */
#include "core/tracegen.h"
#include "core/scenario.h"
#include "base/util.h"

#include <stdlib.h>

/*
 * About 2 % of work values have no length that reads back exactly (w·1000/1000 rounds away
 * from w): those are written with 17 digits, exact for v, within an ulp of the drawn work for
 * the replay.
 */
void tg_fmt_exact(char *buf, size_t n, double v, double div, double target)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) / div == target)
            return;
    }
    snprintf(buf, n, "%.17g", v);
}

long long tg_write(FILE *fp, struct tenant_rt *t, const struct tg_limit *lim, const char *output,
                   double *last, char *err, size_t errlen)
{
    char tb[40], wb[40];
    double now = 0, tn, w, seen = 0;
    long long n = 0;
    int more = 1, stalled = 0;
    fprintf(fp, "time_s,work_ms\n");
    while ((lim->count == 0 || n < lim->count) && (more = ten_next(t, now, &tn, &w)) > 0) {
        if (lim->duration_s > 0 && tn >= lim->duration_s)
            break;
        /* As the engine does (eng_run): past the horizon, or time stuck, is an error, not a
         * file of wrong times or a loop that never reaches the duration. */
        if (!(tn <= SCN_CLOCK_HORIZON_S))
            return ss_errf(err, errlen,
                           "arrival %lld at %g s is past the clock's horizon of %g s (2^32), "
                           "beyond which it no longer resolves 1 us: expected a shorter --count "
                           "or --duration-s, or arrivals that come sooner",
                           n + 1, tn, SCN_CLOCK_HORIZON_S);
        if ((n & ((1 << 20) - 1)) == 0 && n > 0) {
            stalled = tn > seen ? 0 : stalled + 1;
            seen = tn;
            if (stalled == 64)
                return ss_errf(err, errlen,
                               "time stopped at %.17g s: %lld arrivals without it advancing "
                               "(the arrival process cannot move the clock there)",
                               tn, 64LL << 20);
        }
        tg_fmt_exact(tb, sizeof tb, tn, 1.0, tn);
        tg_fmt_exact(wb, sizeof wb, w * 1e3, 1e3, w);
        if (fprintf(fp, "%s,%s\n", tb, wb) < 0)
            return ss_errf(err, errlen, "%s: write failed", output);
        now = tn;
        n++;
    }
    if (more < 0)
        return ss_errf(err, errlen, "%s", ten_error(t));
    *last = now;
    return n;
}
