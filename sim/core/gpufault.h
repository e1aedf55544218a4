/*
 * gpufault — card faults (scenario key gpu_fault_rate_per_h, docs/scenario.md#top-level): a
 * Poisson stream of faults per GPU of the pool, each taking the whole GPU down — every
 * instance, VM and client on it — for the profile's gpu_reset_s (an Xid whose resolution is
 * a GPU reset, XID). Policies schedule and handle the faults themselves (each knows what is
 * on a GPU); this stream only says when. It has a random stream of its own, seeded from the
 * scenario seed and the replication, drawn in time order: every strategy of a scenario sees
 * the same faults on the same GPUs (common random numbers), whatever it does.
 */
#ifndef SS_GPUFAULT_H
#define SS_GPUFAULT_H

#include "core/engine.h"
#include "base/rng.h"

struct gpufault {
    struct rng rng;    /* its own stream (base/rng.h), drawn only when on */
    int on;            /* 0 when the scenario has no card faults */
    double mean_gap_s; /* 3600 / gpu_fault_rate_per_h */
    double reset_s;    /* how long a faulted GPU is down */
    uint32_t kind;     /* the owner's event kind for faults; target = the GPU */
};

/* Prepares the stream and schedules each GPU's first fault as an event of `kind`. */
void gf_start(struct gpufault *f, struct sim *s, uint32_t kind);
/* At a fault of GPU g: schedules its next one. Returns 0 when faults have stopped (arrivals
 * ended: the run drains without new faults) and the fault should be ignored, else 1. */
int gf_fault(struct gpufault *f, struct sim *s, int g);
void gf_free(struct gpufault *f);

#endif
