/* stable — see stable.h. */
#include "core/stable.h"
#include "core/policy.h"
#include "core/tenant.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

double stab_offered(const struct tenant_cfg *t)
{
    if (t->arrival.kind == ARR_SATURATED)
        return INFINITY;
    return ten_mean_rate(t) * ten_mean_work(t);
}

double stab_fair_share(int n, const double *demand, const double *w, int i, double supply)
{
    double wi = w ? w[i] : 1, others = 0;
    for (int j = 0; j < n; j++) {
        if (j == i)
            continue;
        if (isnan(demand[j]))
            return NAN;
        others += demand[j];
    }
    if (!(supply > 0) || !(wi > 0))
        return 0;
    if (others <= 0)
        return supply;
    /* The water level L: member j gets min(demand_j, w_j L), i gets w_i L, all of it adds up
     * to supply. The total is continuous and increasing in L, so bisection finds it; 100
     * halvings take the bracket to the last bit of a double. */
    double lo = 0, hi = supply / wi;
    for (int it = 0; it < 100; it++) {
        double mid = 0.5 * (lo + hi), tot = wi * mid;
        for (int j = 0; j < n; j++)
            if (j != i)
                tot += fmin(demand[j], (w ? w[j] : 1) * mid);
        if (tot < supply)
            lo = mid;
        else
            hi = mid;
    }
    return wi * hi;
}

/*
 * The fraction of the time a GPU serves under card faults (gpu_fault_rate_per_h, core/
 * gpufault.h): up an exponential time of mean 1/rate, then down gpu_reset_s (a fault during a
 * reset does not restart it), so up gap / (gap + reset) of the time (alternating renewal).
 * Every GPU faults alike, so every share loses that fraction; MIG's startup_s after a reset is
 * not counted (its capacity errs high by it).
 */
static double card_up_fraction(const struct scenario *sc)
{
    if (!(sc->gpu_fault_rate_per_h > 0))
        return 1;
    double gap = 3600.0 / sc->gpu_fault_rate_per_h;
    return gap / (gap + sc->gpu.gpu_reset_s);
}

/*
 * Where the model has no capacity (a neighbour whose load is not known in advance: an LLM
 * engine's, whose steps batch), the run tells: a tenant whose share keeps up completes, inside
 * the window, its arrivals less what it lost, so throughput / rate ≈ completed / arrived. When
 * the window's completions fall short of that by more than the noise of the arrival count (5
 * standard deviations, and at least 3 %), its queue grew through the window: the share served
 * only that fraction of the load, which is its capacity here (a plain tenant time-sliced with an
 * LLM service that completes 159 of 200 req/s: 0.795 of its load). NaN otherwise: not known.
 */
static double served_capacity(const struct tenant_cfg *t, const struct strategy_result *r, int i)
{
    const double *v = r->t + (size_t)i * TM_N;
    double rate = ten_mean_rate(t), load = r->load[i];
    if (t->arrival.kind == ARR_SATURATED || !(rate > 0) || !(load > 0) || !isfinite(load) ||
        !(v[TM_ARRIVED] > 0) || !(v[TM_COMPLETED] > 0))
        return NAN;
    double kept = v[TM_COMPLETED] / v[TM_ARRIVED], served = v[TM_THROUGHPUT] / rate;
    double noise = fmax(0.03, 5 / sqrt(v[TM_ARRIVED]));
    if (!(served < kept * (1 - noise)))
        return NAN;
    return load * served / kept;
}

/*
 * A closed loop (core/closed.h) offers users / (think + work) requests a second while none
 * waits (stab_offered: ten_mean_rate's bound), and never more than its share serves: its users
 * wait instead of sending, so nothing grows, whatever the bound. Its load is the smaller of the
 * two, and it is stable: where the bound reaches the share, the capacity is the next double
 * above the load (stab_state's strict test), and the overload shows 1.00.
 */
static void closed_load(struct strategy_result *r, int i)
{
    double cap = r->capacity[i];
    if (!(r->load[i] >= cap)) /* below its share, or either not known */
        return;
    r->load[i] = cap;
    r->capacity[i] = nextafter(cap, INFINITY);
}

void stab_fill(const struct scenario *sc, const struct strategy_cfg *st, struct strategy_result *r)
{
    int n = sc->n_tenants;
    r->load = ss_xcalloc((size_t)n, sizeof *r->load);
    r->capacity = ss_xcalloc((size_t)n, sizeof *r->capacity);
    for (int i = 0; i < n; i++) {
        r->load[i] = stab_offered(&sc->tenants[i]);
        r->capacity[i] = NAN;
    }
    /* While the GPUs are up the others need load / up of their time: the policy's capacity of
     * a share under those loads, for the fraction up of the time. */
    double up = card_up_fraction(sc), *busy = ss_xcalloc((size_t)n, sizeof *busy);
    for (int i = 0; i < n; i++)
        busy[i] = r->load[i] / up;
    if (st->ops->capacity)
        st->ops->capacity(sc, st->cfg, busy, r->capacity);
    for (int i = 0; i < n; i++)
        r->capacity[i] *= up;
    free(busy);
    for (int i = 0; i < n; i++) {
        if (sc->tenants[i].arrival.kind == ARR_CLOSED) {
            closed_load(r, i);
            continue;
        }
        if (isnan(r->capacity[i]))
            r->capacity[i] = served_capacity(&sc->tenants[i], r, i);
    }
}

int stab_state(const struct strategy_result *r, int tenant)
{
    if (!r->load || !r->capacity)
        return -1;
    double l = r->load[tenant], c = r->capacity[tenant];
    if (isnan(l) || isnan(c))
        return -1;
    if (isinf(l))
        return 1; /* saturated: a closed loop that keeps one request waiting, nothing grows */
    return l < c;
}
