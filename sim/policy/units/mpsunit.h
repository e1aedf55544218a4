/*
 * mpsunit — one MPS server and its clients: a whole GPU (policy_mps, which calls
 * it directly) or a MIG instance hosting nested MPS (policy_mig, through the unit
 * interface: mu_unit_ops, unit.h). The rate model is the one
 * documented in policy_mps.c, with the unit's own SM and bandwidth shares of the
 * GPU as the ceiling: a client's SM share of the GPU is its share of the unit ×
 * sm_scale, and the bandwidth the clients split is bw_scale (1 and 1 on a whole GPU).
 * A client runs up to its tenant's work.concurrency requests at once (a request group,
 * rgroup.h), all at one speed.
 *
 * An LLM tenant's client (mu_set_llm) runs its engine (llmengine.h) one step at a time: the
 * step's GPU part is the client's work while it is busy, le_gpu_s() whole-GPU seconds at the
 * speed le_speed() gives on the client's SM share f and bandwidth bw (the same f and bw as a
 * plain client's, from the same busy set: thread caps, the bandwidth that follows SMs, the
 * co-run loss), so the step lasts max(tc / f, tm / bw) while nobody else changes. When the busy
 * set changes mid-step, the fraction of the step done so far is kept and the rest runs at the
 * new speed: a step is the model's layers one after another, each with the same mix of compute
 * and memory (the weights are the same size per layer), so what is left of it is the same
 * fraction of both parts, and its time at the new shares is that fraction of the roofline
 * there — the max of the two parts, not each part progressing on its own (within a layer the
 * kernels overlap compute and memory, across layers they do not run ahead of each other).
 * The step's fixed overhead (step_overhead_ms, the engine's CPU side) follows its GPU part,
 * with the client idle in the busy set. An LLM client's memory weight is 1: its kernels read
 * their weights and KV throughout. Its fault (an engine holding requests) takes the server down
 * like a plain client's; every request the engine holds fails. Between steps the client is idle
 * in the busy set; an arrival then starts the step, or, one of several at its instant, arms its
 * begin timer (llmengine.h: le_defer), and the step starts, making it busy, when that pops:
 * after every arrival of the same instant.
 *
 * Invariants: t_acct is the time up to which the clients' work and the unit's
 * busy time are accounted; a busy client (requests in its group) has speed > 0 and its
 * completion time t_done[k] at that speed (an idle client INFINITY); the unit's one completion
 * timer is pending at t_arm, at or before the earliest t_done (a client's speed that changes
 * moves its t_done, and the timer only when the earliest comes sooner); a unit that is down has
 * no busy client.
 */
#ifndef SS_MPSUNIT_H
#define SS_MPSUNIT_H

#include "core/engine.h"
#include "policy/units/llmengine.h"
#include "policy/units/rgroup.h"
#include "policy/units/unit.h"

struct mu_client {
    int tenant;
    struct rgroup g;  /* its requests in service (up to work.concurrency) */
    double cap;       /* thread_pct / 100 */
    double mem_w;     /* memory weight: fraction of its time the client touches memory */
    double sm;        /* share of the unit's SMs while busy */
    int stale;        /* its group changed: the general path's reshare() sets its completion */
    uint32_t version; /* of its pending overhead event (an LLM engine's step) */
    /* An LLM tenant's engine (mu_set_llm), NULL for a plain client: its group holds the
     * step's GPU part as one request; in_overhead while the step's overhead runs. */
    struct llm_engine *llm;
    int in_overhead;
    /* Its owner books the tenant's downtime (a replica behind a router: the tenant is down only
     * while all its replicas are); the unit's own downs are then not booked for it. */
    int owner_books_down;
};

struct mu_unit {
    struct unit_addr ev; /* its timers: a client's completion, the recovery */
    int n;
    struct mu_client *cli;
    double sm_scale, bw_scale; /* the unit's shares of the GPU */
    double share;              /* utilisation weight: the unit's share of the GPU */
    double bw_loss;
    double recovery_s;
    double t_acct;
    int down;
    double down_since;
    uint32_t epoch; /* version of the pending recovery event */
    long faults;
    double busy_s; /* unit-time with a client busy, inside the measurement window */
    double *speed; /* [n]: each busy client's speed, as reshare() last computed it */
    /* One completion timer for the unit (MU_T_DONE, version t_ver) at t_arm (INFINITY: none
     * pending), never after the earliest t_done[k], client k's completion time (INFINITY while
     * idle); stamp[k] numbers the t_done[k] in the order they were set (ties). */
    double *t_done;
    uint64_t *stamp;
    int nq; /* n rounded up to MU_LANES: the length of t_done, stamp, work, v and a row's speeds,
             * padded as an idle client (INFINITY, 0) */
    uint64_t stamps;
    double t_arm;
    uint32_t t_ver;
    /* With every client at concurrency 1 and at most MU_MEMO_CLIENTS of them, the shares and
     * speeds depend on the busy set alone: in the set's row of MU_MEMO_ROW(nq) doubles, [k] is
     * client k's speed (0 while idle, and in the padding), [nq] the unit's utilisation weight
     * (min(1, Σ SM shares) × share) and [nq + 1] 1 if any client is busy, else 0; computed the
     * first time the set occurs (memo_set marks it; the empty set's zeros are right from the
     * start); NULL otherwise. */
    double *memo;
    unsigned char *memo_set;
    /* With a memo, the clients' state in arrays, which account() and reshare() run through
     * without a branch per client: bit k of `set` while client k is busy, kept as its group
     * fills and empties, and the set's row; work[k] and v[k] its request's work left and speed,
     * 0 while idle (its group holds the request, but not its work or speed). */
    unsigned set;
    double *row;
    double *work, *v;
    /* prev_set: the set at the last reshare(); fresh: the clients that took a request since;
     * flip[lo × nq + k]: the clients busy in lo whose speeds differ between lo (without k) and
     * lo with k, -1 until first needed. */
    unsigned prev_set, fresh;
    int16_t *flip;
};

#define MU_MEMO_CLIENTS 8
/* The most clients a unit memoises for: MU_MEMO_CLIENTS; tests set 0 to run the general path,
 * which must give the same numbers. */
extern int mu_memo_clients;
/* The per-client arrays are taken in groups of this many, which the compiler turns into SSE
 * pairs without a loop test per client. */
#define MU_LANES 4
#define MU_MEMO_ROW(n) ((size_t)(n) + 2)

void mu_init(struct mu_unit *u, const struct scenario *sc, struct unit_addr ev, int n,
             const int *tenants, const double *caps, double sm_scale, double bw_scale, double share,
             double bw_loss, double recovery_s);
void mu_free(struct mu_unit *u);
/* Client k is an LLM tenant's engine with kv_blocks blocks of cache (after mu_init, before
 * the run's first event); the unit frees it. */
void mu_set_llm(struct mu_unit *u, const struct scenario *sc, int k, long kv_blocks);

/* Client k's tenant has a request waiting. */
void mu_arrive(struct sim *s, struct mu_unit *u, int k);
void mu_event(struct sim *s, struct mu_unit *u, const struct event *ev);
/* A fault of client k: if it is busy, every client's in-flight request fails and the
 * unit is down for recovery_s (one server, one fault domain); returns 1. An idle
 * client's fault hits nothing: 0. */
int mu_fault(struct sim *s, struct mu_unit *u, int k);
/* Fails every in-flight request at once (a fault, or the unit is torn down). */
void mu_abort(struct sim *s, struct mu_unit *u);
/* Fails every in-flight request and takes the unit down for dur_s (its clients' requests
 * wait): a client fault's recovery, or a card reset. */
void mu_down(struct sim *s, struct mu_unit *u, double dur_s);
/* Closes the open accounting interval at the end of the run. */
void mu_finish(struct sim *s, struct mu_unit *u);

struct jv;
/*
 * Parses "thread_pct": {"tenant": percent, …} of obj at path into cap[k] (fraction, default
 * 1.0) for the n clients tenants[k]; tenants == NULL means every tenant of the scenario
 * (n = sc->n_tenants, client k = tenant k). Returns 0 or -1 with the message in j.
 */
int mu_parse_thread_pct(const struct jv *j, const cJSON *obj, const char *path,
                        const struct scenario *sc, int n, const int *tenants, double *cap);
/*
 * The MPS server's own parameters, wherever one is configured (the mps strategy, an MPS
 * server nested in a MIG instance): "recovery_s" and "bw_contention_loss" of obj at path,
 * defaults from the GPU profile, one set of bounds. A loss of 1 would leave co-running clients
 * no bandwidth at all (speed 0: they never finish), hence the bound below it. Returns 0 or -1
 * with the message in j.
 */
#define MU_MAX_BW_LOSS 0.99
int mu_parse_params(const struct jv *j, const cJSON *obj, const char *path,
                    const struct scenario *sc, double *recovery_s, double *bw_loss);

/* The memory weight of a tenant's class (1 memory, 0 compute, 1 − compute_share mixed). */
double mu_memory_weight(const struct tenant_cfg *t);

/* The unit interface over a mu_unit allocated with ss_xmalloc and mu_init(); abort
 * is the teardown (mu_abort, then mu_finish); destroy frees the unit too. */
extern const struct unit_ops mu_unit_ops;

/*
 * Stability (core/stable.h): the work rate client k of n clients (tenants[], caps[] as mu_init)
 * sustains when it always has work and client j offers load[j] (whole-GPU Erlangs; +INFINITY:
 * saturated). Clients run concurrently, so k's speed depends on who else is busy: each other
 * client is taken to be busy, independently, for the fraction load / its expected speed (a
 * fixed point, found by iterating from everyone busy), and k's capacity is its work rate
 * averaged over those busy sets under reshare()'s model (SMs by demand, bandwidth by the
 * demands of the busy clients' SMs, the co-run loss), a busy client holding its whole
 * work.concurrency — exactly for up to 10 other clients, by the mean field (expected demands
 * and memory weights) beyond.
 */
double mu_capacity(const struct scenario *sc, int n, const int *tenants, const double *caps,
                   double sm_scale, double bw_scale, double bw_loss, const double *load, int k);

#endif
