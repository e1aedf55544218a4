/* scaling — see scaling.h for the two terms and why the roofline term is a max. */
#include "core/scaling.h"

double scl_roofline(double sc, double sm, double intensity)
{
    if (!(intensity > 0))
        return sc;
    double mem = intensity * sm;
    return mem < sc ? mem : sc;
}

double scl_host(double v, double host_fraction)
{
    if (!(host_fraction > 0))
        return v;
    return 1.0 / (host_fraction + (1.0 - host_fraction) / v);
}
