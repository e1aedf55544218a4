/*
 * plainunit — one FIFO server at fixed speeds (a MIG instance serving one tenant, a
 * MIG-backed vGPU serving the tenants of its VM), behind the unit interface (unit.h).
 *
 * Semantics:
 * - One request in service at a time, taken FIFO by arrival time over the queues of
 *   the unit's clients; it runs to completion at its client's speed (work / speed).
 * - Memory: a request whose tenant needs more than the unit's memory_gb fails when
 *   it would start ("oom": "simulate"; policies that refuse such tenants at load
 *   never see it) and the next one is taken.
 * - Faults: a fault of the client in service fails that request only; the unit
 *   takes the next one at once. A fault of any other client hits nothing here.
 * - Utilisation: `share` of the GPU is busy while a request is in service.
 */
#ifndef SS_PLAINUNIT_H
#define SS_PLAINUNIT_H

#include "policy/units/unit.h"

/* n clients tenants[k] at speed[k] (> 0); the arrays are copied. */
struct unit pu_new(const struct scenario *sc, struct unit_addr ev, int n, const int *tenants,
                   const double *speed, double share, double memory_gb);

#endif
