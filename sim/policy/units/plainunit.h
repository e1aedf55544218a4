/*
 * plainunit — one FIFO server of a fixed shape (a MIG instance serving one tenant, a
 * MIG-backed vGPU serving the tenants of its VM), behind the unit interface (unit.h).
 *
 * Semantics:
 * - Requests are taken FIFO by arrival time over the queues of the unit's clients and run
 *   to completion. A unit with one client runs up to its tenant's work.concurrency
 *   requests at once, sharing the unit's SMs and bandwidth equally (each at
 *   rate_speed_n(sm, bw, n), core/rate.h); with several clients one request at a time
 *   (the owner refuses concurrency there).
 * - Memory: a request whose tenant needs more than the unit's memory_gb fails when
 *   it would start ("oom": "simulate"; policies that refuse such tenants at load
 *   never see it) and the next one is taken.
 * - Faults: a fault of the client in service fails its requests in service; the unit
 *   takes the next ones at once. A fault of any other client hits nothing here.
 * - Utilisation: `share` of the GPU while busy, times the fraction of the unit's SMs its
 *   requests keep busy (min(1, n·s / sm), s the tenant's occupancy).
 */
#ifndef SS_PLAINUNIT_H
#define SS_PLAINUNIT_H

#include "policy/units/unit.h"

/* n clients tenants[k] (the array is copied) on a unit holding the fractions sm and bw of
 * the GPU's SMs and bandwidth. */
struct unit pu_new(const struct scenario *sc, struct unit_addr ev, int n, const int *tenants,
                   double sm, double bw, double share, double memory_gb);

#endif
