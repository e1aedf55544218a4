/*
 * unit — the server-unit interface (docs/units.md): one execution unit serving the
 * requests of a few tenants, its clients, on a GPU or a slice of one. A policy that
 * holds servers of more than one kind (MIG instances: a plain server, time-slicing or
 * MPS; vGPUs: a time-slicer per GPU or a MIG instance per vGPU) holds each as a
 * `struct unit` {ops, self} and never asks which kind it is.
 *
 * Clients: client k of a unit is the k-th tenant it was built with. A tenant may be a
 * client of several units, all taking requests from its one FIFO queue; the owner keeps
 * each tenant's slots (unit, client) and offers an arrival to them in turn while the
 * queue holds requests.
 *
 * Events: a unit's timers are engine events of the one kind its owner reserves for
 * units. The target carries the unit's index among the owner's units and which of the
 * unit's own timers it is; unit_ev_target() and its two decoders below are the only
 * code that knows the encoding.
 *
 * Life cycle: built by the unit's constructor, then arrive/event/fault as the owner
 * sees them; either finish() at the end of the run or abort() when the unit is torn
 * down (a MIG reconfiguration), after which the owner delivers it nothing more;
 * busy_s() after either; destroy() frees it.
 */
#ifndef SS_UNIT_H
#define SS_UNIT_H

#include "base/util.h"
#include "core/engine.h"

#include <stdint.h>

/* A tenant served by several units offers its request to them by increasing rank:
 * first a plain server (the request starts at once, alone, at the instance's full
 * speed), then time-slicing, then MPS — the order MIG has always used. */
enum { UNIT_RANK_PLAIN, UNIT_RANK_TIMESLICE, UNIT_RANK_MPS, UNIT_RANKS };

struct llm_engine;

struct unit_ops {
    int rank; /* UNIT_RANK_* */
    /* Optional (NULL: nothing to do): called once by the owner right after building the
     * unit, inside the run, to schedule timers it needs from the start (time-slicing's
     * memory growth). */
    void (*start)(struct sim *s, void *self);
    /* Client k's tenant has a request waiting (the unit may take it or leave it). */
    void (*arrive)(struct sim *s, void *self, int client);
    /* One of this unit's timers fired (stale versions are the unit's to skip). */
    void (*event)(struct sim *s, void *self, const struct event *ev);
    /* A fault of client k's tenant: 1 if it hit a request of that client in service
     * here (the unit applies its blast radius), 0 if the client had none here. */
    int (*fault)(struct sim *s, void *self, int client);
    /* The unit is torn down: close its accounting, fail every request it holds. */
    void (*abort)(struct sim *s, void *self);
    /* Optional (NULL: an aborted unit stays down): after an abort, the unit serves again
     * from scratch, idle, its contexts loaded anew (a card reset). */
    void (*resume)(struct sim *s, void *self);
    /* End of the run: close the open busy (and switching) intervals. */
    void (*finish)(struct sim *s, void *self);
    /* Time the unit served requests inside the measurement window, in seconds. */
    double (*busy_s)(const void *self);
    void (*destroy)(void *self);
    /* Optional (NULL: the unit hosts no LLM engine): the engine serving client k, NULL if
     * client k is not an LLM tenant; a router (router.h) holds it. */
    struct llm_engine *(*engine)(void *self, int client);
};

struct unit {
    const struct unit_ops *ops;
    void *self;
};

/*
 * Defines `const struct unit_ops name` over a unit type T whose own functions take a T *:
 * arrive(s, u, client), event(s, u, ev), fault(s, u, client) returning 1 or 0, abort(s, u),
 * finish(s, u), and free_(u), which frees what the unit holds (destroy then frees the unit,
 * allocated with ss_xmalloc); busy_s reads T's busy_s member. The owner of a whole GPU
 * calls the typed functions directly; the ops only forward to them. start_ and resume_ are
 * the optional ops as struct unit_ops declares them (taking void *self), or NULL; so is
 * engine_ (struct unit_ops.engine).
 */
#define UNIT_OPS_OVER(name, T, rank_, arrive_, event_, fault_, abort_, finish_, free_, start_,     \
                      resume_, engine_)                                                            \
    static void name##_arrive(struct sim *s, void *self, int client)                               \
    {                                                                                              \
        arrive_(s, (T *)self, client);                                                             \
    }                                                                                              \
    static void name##_event(struct sim *s, void *self, const struct event *ev)                    \
    {                                                                                              \
        event_(s, (T *)self, ev);                                                                  \
    }                                                                                              \
    static int name##_fault(struct sim *s, void *self, int client)                                 \
    {                                                                                              \
        return fault_(s, (T *)self, client);                                                       \
    }                                                                                              \
    static void name##_abort(struct sim *s, void *self)                                            \
    {                                                                                              \
        abort_(s, (T *)self);                                                                      \
    }                                                                                              \
    static void name##_finish(struct sim *s, void *self)                                           \
    {                                                                                              \
        finish_(s, (T *)self);                                                                     \
    }                                                                                              \
    static double name##_busy_s(const void *self)                                                  \
    {                                                                                              \
        return ((const T *)self)->busy_s;                                                          \
    }                                                                                              \
    static void name##_destroy(void *self)                                                         \
    {                                                                                              \
        free_((T *)self);                                                                          \
        free(self);                                                                                \
    }                                                                                              \
    const struct unit_ops name = {                                                                 \
        .rank = (rank_),                                                                           \
        .start = (start_),                                                                         \
        .arrive = name##_arrive,                                                                   \
        .event = name##_event,                                                                     \
        .fault = name##_fault,                                                                     \
        .abort = name##_abort,                                                                     \
        .resume = (resume_),                                                                       \
        .finish = name##_finish,                                                                   \
        .busy_s = name##_busy_s,                                                                   \
        .destroy = name##_destroy,                                                                 \
        .engine = (engine_),                                                                       \
    }

/* Where a unit's events go: the owner's event kind for units, the unit's index. */
struct unit_addr {
    uint32_t kind;
    uint32_t id;
};

/* A unit has at most UNIT_TIMERS timers of its own, numbered from 0. */
enum { UNIT_TIMER_BITS = 2, UNIT_TIMERS = 1 << UNIT_TIMER_BITS };

static inline struct unit_addr unit_addr(uint32_t kind, int id)
{
    SS_ASSERT(id >= 0 && (uint32_t)id <= UINT32_MAX >> UNIT_TIMER_BITS);
    return (struct unit_addr){kind, (uint32_t)id};
}

static inline uint32_t unit_ev_target(uint32_t id, unsigned timer)
{
    return id << UNIT_TIMER_BITS | timer;
}

/* The index of the unit an event of the owner's unit kind belongs to. */
static inline uint32_t unit_ev_id(const struct event *ev)
{
    return ev->target >> UNIT_TIMER_BITS;
}

/* Which of its unit's timers the event is. */
static inline unsigned unit_ev_timer(const struct event *ev)
{
    return ev->target & (UNIT_TIMERS - 1);
}

static inline void unit_schedule(struct sim *s, struct unit_addr a, double t, unsigned timer,
                                 uint32_t version, uint32_t aux)
{
    eng_schedule(s, t, a.kind, unit_ev_target(a.id, timer), version, aux);
}

/* Index k of the tenant (among n) whose oldest waiting request arrived first (the
 * lowest k on ties), or -1 when all their queues are empty: FIFO over several queues. */
int unit_oldest(const struct sim *s, int n, const int *tenants);

#endif
