/*
 * unit — helpers shared by the server units (the interface is in unit.h).
 */
#include "policy/units/unit.h"

int unit_oldest(const struct sim *s, int n, const int *tenants)
{
    int best = -1;
    double t_best = 0;
    for (int k = 0; k < n; k++) {
        const struct rqueue *q = &s->ten[tenants[k]].q;
        if (q->n == 0)
            continue;
        double t = q->buf[q->head].arrival;
        if (best < 0 || t < t_best) {
            best = k;
            t_best = t;
        }
    }
    return best;
}
