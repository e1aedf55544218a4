/*
 * policy — the interface every sharing strategy implements (docs/development.md: each
 * strategy exports one `struct policy_ops` and nothing else; the engine never
 * switches on the kind).
 *
 * Life cycle per strategy: parse() once at scenario load (validates the JSON and
 * keeps the parameters), then for every replication init() → arrive()/on_event()
 * as the engine delivers them → finish() → destroy(). free_cfg() at scenario free.
 */
#ifndef SS_POLICY_H
#define SS_POLICY_H

#include "base/jsonv.h"

#include <cJSON.h>
#include <stddef.h>

struct sim;
struct scenario;
struct event;
struct strategy_result;

struct policy_ops {
    const char *kind;
    /* Validates the strategy object at `path`; all tenants and the GPU are known. */
    int (*parse)(const struct jv *j, const cJSON *obj, const char *path, const struct scenario *sc,
                 void **cfg);
    void (*free_cfg)(void *cfg);
    /* Builds the run-time state for one replication. Input errors are caught by parse(). */
    void *(*init)(struct sim *s, const void *cfg);
    /* A request of `tenant` has been appended to its queue. */
    void (*arrive)(struct sim *s, void *st, int tenant);
    /* An event this policy scheduled (ev->kind >= EV_POLICY). */
    void (*on_event)(struct sim *s, void *st, const struct event *ev);
    /* A fault of `tenant` (Poisson, tenant.fault_rate_per_h): fail what the blast radius covers. */
    void (*fault)(struct sim *s, void *st, int tenant);
    /* End of run: close busy intervals and fill strategy-level figures. */
    void (*finish)(struct sim *s, void *st, struct strategy_result *res);
    void (*destroy)(void *st);
};

/* The registry: NULL if no policy has this kind. */
const struct policy_ops *policy_find(const char *kind);
/* Comma-separated list of known kinds, for messages. */
const char *policy_kinds(void);

extern const struct policy_ops policy_exclusive;
extern const struct policy_ops policy_timeslice;
extern const struct policy_ops policy_mig;
extern const struct policy_ops policy_mps;
extern const struct policy_ops policy_vgpu;

#endif
