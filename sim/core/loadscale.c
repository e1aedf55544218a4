/*
 * loadscale — see loadscale.h. The scaling is applied to the validated,
 * in-memory scenario (not to its JSON), after every policy has parsed its
 * parameters: no policy keeps a copy of a tenant's rate, they read the tenant
 * configuration when the run starts.
 */
#include "core/loadscale.h"
#include "core/closed.h"
#include "base/util.h"

#include <math.h>

static void scale_arrival(struct arrival_cfg *a, double x)
{
    switch (a->kind) {
    case ARR_POISSON:
    case ARR_DETERMINISTIC:
    case ARR_GAMMA:
    case ARR_DIURNAL:
        a->rate_per_s *= x;
        break;
    case ARR_MMPP:
        for (int k = 0; k < a->n_states; k++)
            a->state_rate_per_s[k] *= x;
        break;
    case ARR_TRACE:
        /* time_s is multiplied by time_scale when a row is read (0 means 1): gaps / x. */
        a->trace_opts.time_scale =
            (a->trace_opts.time_scale > 0 ? a->trace_opts.time_scale : 1.0) / x;
        a->trace_first_s /= x; /* keep the load-time figures consistent */
        a->trace_last_s /= x;
        a->trace_rate_per_s *= x;
        break;
    case ARR_CLOSED: {
        /* x times as many users (rounded, at least one): their think time stays theirs. */
        double u = nearbyint((double)a->users * x);
        a->users = u < 1 ? 1 : u > (double)CL_MAX_USERS ? CL_MAX_USERS + 1 : (long)u;
        break;
    }
    case ARR_SATURATED:
        break;
    }
}

int ls_scale_load(struct scenario *sc, double x, char *err, size_t errlen)
{
    if (!isfinite(x) || !(x > 0))
        return ss_errf(err, errlen, "load scale %g: expected a finite number > 0", x);
    for (int i = 0; i < sc->n_tenants; i++) {
        scale_arrival(&sc->tenants[i].arrival, x);
        if (sc->tenants[i].arrival.kind == ARR_CLOSED &&
            sc->tenants[i].arrival.users > CL_MAX_USERS)
            return ss_errf(err, errlen,
                           "load scale %g: tenant \"%s\" would have more than %ld users, the "
                           "limit of a closed loop",
                           x, sc->tenants[i].name, CL_MAX_USERS);
    }
    /* The loader's bounds hold for the values the run uses: 1e300 would make rates infinite. */
    return scn_check_clock(sc, x, err, errlen);
}
