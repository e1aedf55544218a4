/*
 * mpsunit — processor sharing with rate changes among the clients of one MPS
 * server (see mpsunit.h; the rate model is derived in policy_mps.c and
 * docs/mps-vgpu.md). Whenever the busy set changes, the work done so far is
 * charged at the old speeds, speeds are recomputed, and a client whose speed
 * changed gets a new completion time; the unit's one timer sits at the earliest (arm()).
 * The unit-interface wrappers are at the end.
 */
#include "policy/units/mpsunit.h"
#include "base/jsonv.h"
#include "core/rate.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MU_T_DONE, MU_T_RECOVERED, MU_T_OVERHEAD, MU_T_BEGIN, MU_TIMERS };

int mu_memo_clients = MU_MEMO_CLIENTS;
_Static_assert((int)MU_TIMERS <= (int)UNIT_TIMERS, "a unit has at most UNIT_TIMERS timers");

int mu_parse_thread_pct(const struct jv *j, const cJSON *obj, const char *path,
                        const struct scenario *sc, int n, const int *tenants, double *cap)
{
    char p[512], q[600];
    for (int k = 0; k < n; k++)
        cap[k] = 1.0;
    const cJSON *tp = cJSON_GetObjectItemCaseSensitive(obj, "thread_pct");
    if (!tp)
        return 0;
    jv_path_key(p, sizeof p, path, "thread_pct");
    if (!cJSON_IsObject(tp))
        return jv_fail(j, p, "expected an object {\"tenant\": percent}");
    const cJSON *it;
    cJSON_ArrayForEach(it, tp)
    {
        jv_path_key(q, sizeof q, p, it->string);
        int ti = scn_tenant_index(sc, it->string), k = tenants ? -1 : ti;
        for (int m = 0; tenants && m < n; m++)
            if (tenants[m] == ti)
                k = m;
        if (ti < 0)
            return jv_fail(j, q, "no tenant named \"%s\"", it->string);
        if (k < 0)
            return jv_fail(j, q, "\"%s\" is not a tenant of this instance", it->string);
        if (!cJSON_IsNumber(it) || !(it->valuedouble > 0) || it->valuedouble > 100)
            return jv_fail(j, q, "expected a percentage in (0, 100]");
        cap[k] = it->valuedouble / 100.0;
    }
    return 0;
}

int mu_parse_params(const struct jv *j, const cJSON *obj, const char *path,
                    const struct scenario *sc, double *recovery_s, double *bw_loss)
{
    *recovery_s = sc->gpu.mps_recovery_s;
    *bw_loss = sc->gpu.mps_bw_loss; /* the profile's published co-run loss */
    if (jv_num(j, obj, path, "recovery_s", 0, 0, 1e6, recovery_s) < 0 ||
        jv_num(j, obj, path, "bw_contention_loss", 0, 0, MU_MAX_BW_LOSS, bw_loss) < 0)
        return -1;
    return 0;
}

double mu_memory_weight(const struct tenant_cfg *t)
{
    switch (t->wclass) {
    case CLASS_COMPUTE:
        return 0.0;
    case CLASS_MEMORY:
        return 1.0;
    case CLASS_MIXED:
        break;
    }
    return 1.0 - t->compute_share;
}

void mu_init(struct mu_unit *u, const struct scenario *sc, struct unit_addr ev, int n,
             const int *tenants, const double *caps, double sm_scale, double bw_scale, double share,
             double bw_loss, double recovery_s)
{
    memset(u, 0, sizeof *u);
    u->ev = ev;
    u->n = n;
    u->cli = ss_xcalloc((size_t)(n ? n : 1), sizeof *u->cli);
    for (int k = 0; k < n; k++) {
        const struct tenant_cfg *t = &sc->tenants[tenants[k]];
        u->cli[k].tenant = tenants[k];
        u->cli[k].cap = caps[k];
        u->cli[k].mem_w = mu_memory_weight(t);
        rg_init(&u->cli[k].g, t->work.concurrency > 0 ? t->work.concurrency : 1);
    }
    u->sm_scale = sm_scale;
    u->bw_scale = bw_scale;
    u->share = share;
    u->bw_loss = bw_loss;
    u->recovery_s = recovery_s;
    u->speed = ss_xcalloc((size_t)(n ? n : 1), sizeof *u->speed);
    u->nq = (n + MU_LANES - 1) / MU_LANES * MU_LANES;
    u->t_done = ss_xcalloc((size_t)(u->nq ? u->nq : 1), sizeof *u->t_done);
    u->stamp = ss_xcalloc((size_t)(u->nq ? u->nq : 1), sizeof *u->stamp);
    for (int k = 0; k < u->nq; k++)
        u->t_done[k] = INFINITY;
    u->t_arm = INFINITY;
    int one = n <= mu_memo_clients;
    for (int k = 0; k < n; k++)
        one &= u->cli[k].g.cap == 1;
    if (one) { /* 2^n sets × n clients × (share, speed): 32 KB at 8 clients */
        u->memo = ss_xcalloc((size_t)1 << n, MU_MEMO_ROW(u->nq) * sizeof *u->memo);
        u->memo_set = ss_xcalloc((size_t)1 << n, 1);
        u->work = ss_xcalloc((size_t)(u->nq ? u->nq : 1), sizeof *u->work);
        u->v = ss_xcalloc((size_t)(u->nq ? u->nq : 1), sizeof *u->v);
        u->row = u->memo; /* the empty set's */
        u->flip = ss_xmalloc(((size_t)1 << n) * (size_t)u->nq * sizeof *u->flip);
        memset(u->flip, 0xff, ((size_t)1 << n) * (size_t)u->nq * sizeof *u->flip); /* -1: unknown */
    }
}

void mu_set_llm(struct mu_unit *u, const struct scenario *sc, int k, long kv_blocks)
{
    struct mu_client *c = &u->cli[k];
    c->llm = ss_xcalloc(1, sizeof *c->llm);
    le_init(c->llm, c->tenant, sc->tenants[c->tenant].llm, kv_blocks, &sc->gpu);
    c->mem_w = 1;
    /* A step's speed depends on the step, not on the busy set alone: no memo. */
    free(u->memo);
    free(u->memo_set);
    free(u->work);
    free(u->v);
    free(u->flip);
    u->flip = NULL;
    u->memo = u->work = u->v = u->row = NULL;
    u->memo_set = NULL;
}

void mu_free(struct mu_unit *u)
{
    for (int k = 0; k < u->n; k++) {
        rg_free(&u->cli[k].g);
        if (u->cli[k].llm)
            le_free(u->cli[k].llm);
        free(u->cli[k].llm);
    }
    free(u->cli);
    free(u->speed);
    free(u->t_done);
    free(u->stamp);
    free(u->memo);
    free(u->memo_set);
    free(u->work);
    free(u->v);
    free(u->flip);
    u->flip = NULL;
    u->cli = NULL;
    u->work = u->v = NULL;
    u->speed = u->memo = u->t_done = NULL;
    u->stamp = NULL;
    u->memo_set = NULL;
}

static int busy(const struct mu_client *c)
{
    return c->g.n > 0;
}

/* With a memo, the busy set changed: its row. */
static void set_changed(struct mu_unit *u)
{
    u->row = &u->memo[(size_t)u->set * MU_MEMO_ROW(u->nq)];
}

/* With a memo, client k's request is done: it is idle (work and speed 0; a new request's speed
 * differs from 0, so reshare() sets it). */
static void memo_idle(struct mu_unit *u, int k)
{
    u->set &= ~(1u << k);
    u->work[k] = u->v[k] = 0;
    set_changed(u);
}

/*
 * The loops over the padded arrays below take MU_LANES clients at a time from restrict
 * parameters, the form GCC -O2 turns into SSE pairs with no test per client: with one client at
 * a time it compiles a clamp or a select to a branch, which the clients' order of completion
 * mispredicts.
 */

/* work[k] -= dt × v[k], clamped at +0 (rounding at the completion instant; +0 also for -0, which
 * divides and adds as -0 does). */
static void charge(double *restrict work, const double *restrict v, double dt, int nq)
{
    for (int k = 0; k < nq; k += MU_LANES)
        for (int j = 0; j < MU_LANES; j++) {
            double w = work[k + j] - dt * v[k + j];
            work[k + j] = w > 0 ? w : 0;
        }
}

/* The least of t[0 … nq): a minimum per lane (minpd), then theirs, exact in any order. */
static double least(const double *restrict t, int nq)
{
    double l[MU_LANES];
    for (int j = 0; j < MU_LANES; j++)
        l[j] = INFINITY;
    for (int k = 0; k < nq; k += MU_LANES)
        for (int j = 0; j < MU_LANES; j++)
            l[j] = t[k + j] < l[j] ? t[k + j] : l[j];
    double a = l[0] < l[1] ? l[0] : l[1], b = l[2] < l[3] ? l[2] : l[3];
    return a < b ? a : b;
}
_Static_assert(MU_LANES == 4, "least(), differ() and at_or_before() take four lanes");

/* Bit k set where a[k] != b[k] (nq <= 32). */
static unsigned differ(const double *restrict a, const double *restrict b, int nq)
{
    unsigned m = 0;
    for (int k = 0; k < nq; k += MU_LANES) /* written out: GCC keeps an inner loop of these */
        m |= ((unsigned)(a[k] != b[k]) | (unsigned)(a[k + 1] != b[k + 1]) << 1 |
              (unsigned)(a[k + 2] != b[k + 2]) << 2 | (unsigned)(a[k + 3] != b[k + 3]) << 3)
             << k;
    return m;
}

/* Bit k set where t[k] <= now (nq <= 64). */
static uint64_t at_or_before(const double *restrict t, double now, int nq)
{
    uint64_t m = 0;
    for (int k = 0; k < nq; k += MU_LANES) /* as in differ() */
        m |= (uint64_t)((unsigned)(t[k] <= now) | (unsigned)(t[k + 1] <= now) << 1 |
                        (unsigned)(t[k + 2] <= now) << 2 | (unsigned)(t[k + 3] <= now) << 3)
             << k;
    return m;
}

/*
 * account() with a memo: every client at once, busy or not, from the two arrays, with no branch
 * on which are busy (an idle client's speed is 0, so its work stays 0; a busy one's is charged
 * (now - t_acct) × speed, what rg_advance charges a group charged up to t_acct), and the
 * utilisation weight from the set's row: the same numbers as the general path.
 */
static void account_memo(struct sim *s, struct mu_unit *u)
{
    const double now = s->now, dt = now - u->t_acct;
    if (dt > 0) {
        const int nq = u->nq;
        charge(u->work, u->v, dt, nq);
        const double *row = u->row;
        double clip = eng_clip(s, u->t_acct, now);
        s->busy_acc += row[nq] * clip; /* eng_busy */
        u->busy_s += row[nq + 1] * clip;
    }
    u->t_acct = now;
}

/* Charges the work done since t_acct at the current speeds and books the busy time. */
static void account(struct sim *s, struct mu_unit *u)
{
    if (u->memo) {
        account_memo(s, u);
        return;
    }
    double dt = s->now - u->t_acct, sm = 0;
    if (dt > 0) {
        /* In locals: the stores to the groups could alias *u, so the loop would reload them. */
        struct mu_client *cli = u->cli;
        const int n = u->n;
        for (int k = 0; k < n; k++) {
            struct mu_client *c = &cli[k];
            if (!busy(c))
                continue;
            rg_advance(&c->g, s->now);
            sm += c->sm;
        }
        eng_busy(s, (sm > 1 ? 1 : sm) * u->share, u->t_acct, s->now);
        if (sm > 0)
            u->busy_s += eng_clip(s, u->t_acct, s->now);
    }
    u->t_acct = s->now;
}

/*
 * The bandwidth a busy client gets (a fraction of the GPU's): its demand d (what its SMs pull
 * alone, the curve) while the demands in the bus (room: its own and the others' expected ones)
 * fit in what co-running streams leave of the unit's bandwidth, eta × bw_scale; beyond, that
 * bandwidth split in proportion to the demands. So clients below the knee that together fit
 * run as if alone, and the co-run loss only counts when the streams contend: a client alone
 * (or among compute-only ones) has eta = 1.
 */
static inline double bw_by_demand(double d, double room, double bw_scale, double eta)
{
    double avail = eta * bw_scale;
    return room > avail ? d * avail / room : d;
}

/*
 * Every busy client's shares and speed under the model, into c->sm and u->speed[k].
 * SMs by demand: a client asks for min(cap, n·s) — its thread cap, or what its n requests
 * of occupancy s keep busy — and the demands shrink in proportion when they exceed the unit.
 * Bandwidth by demand: a client's SMs can pull d = C(its SM share of the GPU); in its memory
 * phase it shares the unit's bandwidth with the others' expected demands (weighted by how
 * often they touch memory), bw = d·min(1, η·bw_scale / (d + Σ_{j≠i} w_j d_j)) (bw_by_demand).
 */
static void model(struct sim *s, struct mu_unit *u)
{
    const struct gpu_profile *gpu = &s->sc->gpu;
    double dem_sum = 0, w = 0, wd = 0;
    for (int k = 0; k < u->n; k++) {
        struct mu_client *c = &u->cli[k];
        if (!busy(c))
            continue;
        const struct tenant_cfg *t = &s->sc->tenants[c->tenant];
        double want = c->g.n * rate_occupancy(t) / u->sm_scale;
        c->sm = c->cap < want ? c->cap : want;
        dem_sum += c->sm;
        w += c->mem_w;
    }
    double scale = dem_sum > 1 ? 1 / dem_sum : 1;
    double eta = w > 1 ? 1 - u->bw_loss * (w - 1 < 1 ? w - 1 : 1) : 1;
    for (int k = 0; k < u->n; k++) {
        struct mu_client *c = &u->cli[k];
        if (busy(c)) {
            c->sm *= scale;
            wd += c->mem_w * rate_bw_curve(gpu, c->sm * u->sm_scale);
        }
    }
    for (int k = 0; k < u->n; k++) {
        struct mu_client *c = &u->cli[k];
        if (!busy(c))
            continue;
        const struct tenant_cfg *t = &s->sc->tenants[c->tenant];
        double f = c->sm * u->sm_scale, d = rate_bw_curve(gpu, f);
        double room = d + wd - c->mem_w * d;
        double bw = bw_by_demand(d, room, u->bw_scale, eta);
        u->speed[k] = c->llm ? le_speed(c->llm, f, bw) : rate_speed_n(gpu, t, f, bw, c->g.n);
        SS_ASSERT(u->speed[k] > 0);
    }
}

/* The busy set's memo row from model(), the first time the set occurs (out of line: at most
 * 2^n times a run). The utilisation weight is summed as account() sums it, over the busy
 * clients in order, so either path books the same bits. */
SS_COLD static void memo_fill(struct sim *s, struct mu_unit *u)
{
    double *row = u->row;
    const int n = u->n;
    double sm = 0;
    model(s, u);
    for (int k = 0; k < n; k++)
        if (busy(&u->cli[k])) {
            row[k] = u->speed[k];
            sm += u->cli[k].sm;
        }
    row[u->nq] = (sm > 1 ? 1 : sm) * u->share;
    row[u->nq + 1] = sm > 0;
    u->memo_set[u->set] = 1;
}

/* The busy set's memo row (the same numbers as model(): they are a function of the set). */
static inline const double *shares_memo(struct sim *s, struct mu_unit *u)
{
    if (!u->memo_set[u->set])
        memo_fill(s, u);
    return u->row;
}

/* Client k's speed changed, or its group did: its completion time from now. The stamp orders
 * completions that fall at one instant as their events' sequence numbers did when each client
 * had an event of its own. */
static void resched(struct sim *s, struct mu_unit *u, struct mu_client *c, int k, double v)
{
    rg_set_speed(&c->g, s->now, v);
    c->stale = 0;
    u->t_done[k] = s->now + rg_next_s(&c->g);
    u->stamp[k] = ++u->stamps;
}

/*
 * The unit's one completion timer at its earliest client completion. It is re-armed only
 * when that comes before the timer pending (the pending one goes stale); when it comes after
 * (the client that was first slowed down), the pending timer fires early, finds nobody due and
 * re-arms (on_timer): one sift there instead of an insertion now and a stale event's removal.
 */
static inline void arm(struct sim *s, struct mu_unit *u)
{
    double m = least(u->t_done, u->nq);
    if (m < u->t_arm) {
        u->t_arm = m;
        unit_schedule(s, u->ev, m, MU_T_DONE, ++u->t_ver, 0);
    }
}

/* The clients other than k, busy in both, whose speeds differ between the set lo (without k) and
 * lo with k: from the two rows the first time, then from the table. */
static unsigned flip_mask(struct mu_unit *u, unsigned lo, int k, const double *row_lo,
                          const double *row_hi)
{
    int16_t *f = &u->flip[(size_t)lo * (size_t)u->nq + (size_t)k];
    if (*f < 0)
        *f = (int16_t)(differ(row_lo, row_hi, u->nq) & lo);
    return (unsigned)*f;
}

/*
 * reshare() with a memo: which busy clients changed speed or group, then a pass over those alone
 * (usually one or two), each given its completion time as resched() would (rg_next_s of one
 * request: work / speed). Every busy client's speed is its row's in the set of the last
 * reshare(), so when one client joined or left since, the clients whose speed changed are the
 * table's for that pair of sets (flip); else the current speeds are compared with the row (a
 * mask over every client without a branch). A client that took a request (fresh) always is.
 */
static void reshare_memo(struct sim *s, struct mu_unit *u)
{
    const double *row = shares_memo(s, u);
    const unsigned old = u->prev_set, set = u->set, moved = old ^ set;
    unsigned due;
    if (moved && !(moved & (moved - 1)))
        due = flip_mask(u, old & set, __builtin_ctz(moved),
                        &u->memo[(size_t)(old & set) * MU_MEMO_ROW(u->nq)],
                        &u->memo[(size_t)(old | set) * MU_MEMO_ROW(u->nq)]);
    else
        due = moved ? differ(row, u->v, u->nq) : 0;
    due |= u->fresh;
    u->fresh = 0;
    u->prev_set = set;
    for (due &= set; due; due &= due - 1) {
        int k = __builtin_ctz(due);
        u->v[k] = row[k];
        u->t_done[k] = s->now + u->work[k] / row[k];
        u->stamp[k] = ++u->stamps;
    }
    arm(s, u);
}

/* Recomputes every busy client's shares and speed; reschedules those that changed. */
static void reshare(struct sim *s, struct mu_unit *u)
{
    if (u->memo) {
        reshare_memo(s, u);
        return;
    }
    model(s, u);
    struct mu_client *cli = u->cli; /* in locals, as in account() */
    const int n = u->n;
    for (int k = 0; k < n; k++) {
        struct mu_client *c = &cli[k];
        if (!busy(c))
            continue;
        if (u->speed[k] == c->g.speed && !c->stale)
            continue; /* same speed, same group: the pending completion is still right */
        resched(s, u, c, k, u->speed[k]);
    }
    arm(s, u);
}

/* An LLM client takes every waiting request into its engine and, between steps, starts the
 * next: its GPU part is the one request of its group, le_gpu_s() whole-GPU seconds of work. */
static void fill_llm(struct sim *s, struct mu_client *c)
{
    le_take_all(s, c->llm);
    if (c->g.n > 0 || c->in_overhead || !le_begin(s, c->llm))
        return;
    struct request *r = &c->g.r[0];
    memset(r, 0, sizeof *r);
    r->tenant = c->tenant;
    r->work = le_gpu_s(c->llm);
    c->g.n = 1;
    c->g.t = s->now;
    c->stale = 1;
}

/* fill() with a memo: an idle client takes its queue's head, busy in the set, its work in the
 * array (its speed is still 0: reshare() sets it). */
static void fill_one(struct sim *s, struct mu_unit *u, int k)
{
    struct mu_client *c = &u->cli[k];
    if (c->g.n > 0 || eng_qlen(s, c->tenant) == 0)
        return;
    eng_pop(s, c->tenant, &c->g.r[0]);
    c->g.n = 1;
    u->work[k] = c->g.r[0].work;
    u->set |= 1u << k;
    u->fresh |= 1u << k;
    set_changed(u);
}

/* Takes client k's waiting requests into service while its group has room. Its callers
 * charged the unit to now (account), so the requests go straight into the group: reshare()
 * sets its speed from now on. */
static void fill(struct sim *s, struct mu_unit *u, int k)
{
    struct mu_client *c = &u->cli[k];
    if (u->memo) {
        fill_one(s, u, k);
        return;
    }
    if (c->llm) {
        fill_llm(s, c);
        return;
    }
    while (!rg_full(&c->g) && eng_qlen(s, c->tenant) > 0) {
        eng_pop(s, c->tenant, &c->g.r[c->g.n]);
        c->g.n++;
        c->stale = 1;
    }
}

void mu_arrive(struct sim *s, struct mu_unit *u, int k)
{
    struct mu_client *c = &u->cli[k];
    if (c->llm && !u->down) {
        /* They join its scheduler; mid-step the busy set stays, and between steps the client
         * stays idle until its begin timer, after every arrival of this instant (le_defer), or
         * starts the step now when the arrival is alone at its instant. */
        if (le_defer(s, c->llm, u->ev, MU_T_BEGIN, (uint32_t)k) || c->g.n > 0 || c->in_overhead)
            return;
        account(s, u);
        fill(s, u, k);
        reshare(s, u);
        return;
    }
    if (rg_full(&c->g) || u->down || eng_qlen(s, c->tenant) == 0)
        return;
    account(s, u);
    fill(s, u, k);
    reshare(s, u);
}

/* An LLM client's step ended its GPU part: its overhead follows, with the client idle, or
 * (none) the step ends and the next starts. */
static void on_step_gpu_done(struct sim *s, struct mu_unit *u, struct mu_client *c, int k)
{
    c->g.n = 0;
    c->g.speed = 0;
    c->stale = 1;
    if (c->llm->overhead_s > 0) {
        c->in_overhead = 1;
        unit_schedule(s, u->ev, s->now + c->llm->overhead_s, MU_T_OVERHEAD, ++c->version,
                      (uint32_t)k);
    } else {
        le_end(s, c->llm);
        fill(s, u, k);
    }
    reshare(s, u);
}

static void on_overhead_done(struct sim *s, struct mu_unit *u, const struct event *ev)
{
    struct mu_client *c = &u->cli[ev->aux];
    if (!c->in_overhead || ev->version != c->version)
        return; /* failed by a fault meanwhile */
    c->in_overhead = 0;
    account(s, u);
    le_end(s, c->llm);
    fill(s, u, (int)ev->aux);
    reshare(s, u);
}

/* An LLM client's begin timer: its step starts with every request that arrived by now. */
static void on_begin(struct sim *s, struct mu_unit *u, const struct event *ev)
{
    struct mu_client *c = &u->cli[ev->aux];
    if (!le_begin_due(c->llm, ev->version) || u->down)
        return;
    account(s, u);
    fill(s, u, (int)ev->aux);
    reshare(s, u);
}

/* Client k's first request (an LLM client's step, its GPU part) is done. */
static void on_done(struct sim *s, struct mu_unit *u, int k)
{
    struct mu_client *c = &u->cli[k];
    u->t_done[k] = INFINITY;
    account(s, u);
    if (c->llm) {
        on_step_gpu_done(s, u, c, k);
        return;
    }
    if (c->g.n == 1) { /* the group empties: no search, no copy */
        c->g.n = 0;
        c->g.r[0].work = 0;
        eng_complete(s, &c->g.r[0]);
    } else {
        struct request r;
        rg_remove(&c->g, rg_first(&c->g), &r);
        r.work = 0;
        eng_complete(s, &r);
    }
    if (u->memo) {
        memo_idle(u, k);
    } else {
        c->stale = 1;
        if (!busy(c))
            c->g.speed = 0;
    }
    fill(s, u, k);
    reshare(s, u);
}

/* The client whose completion is due now (-1: none, the timer fired early): the one with the
 * least stamp among those due at this instant, tested without a branch per client (a mask by
 * lanes, the lowest bit; more than 64 clients, a plain search). */
static int due_client(const struct mu_unit *u, double now)
{
    const double *t = u->t_done;
    const int nq = u->nq;
    int k = -1;
    if (nq <= 64) {
        uint64_t due = at_or_before(t, now, nq);
        if (!due)
            return -1;
        k = __builtin_ctzll(due);
        if (!(due & (due - 1)))
            return k;
    } else {
        for (int j = nq - 1; j >= 0; j--)
            k = t[j] <= now ? j : k;
        if (k < 0)
            return -1;
    }
    for (int j = k + 1; j < nq; j++) /* simultaneous completions: the one scheduled first */
        if (t[j] <= now && u->stamp[j] < u->stamp[k])
            k = j;
    return k;
}

/* The completion timer: the due client completes (and reshare() re-arms the timer), or, fired
 * early, the timer is re-armed at the earliest completion. */
static void on_timer(struct sim *s, struct mu_unit *u, const struct event *ev)
{
    if (ev->version != u->t_ver)
        return; /* re-armed earlier since */
    u->t_arm = INFINITY;
    int k = due_client(u, s->now);
    if (k < 0)
        arm(s, u);
    else
        on_done(s, u, k);
}

/* Books [down_since, t_end] as downtime for every tenant of the unit. */
static void book_down(struct sim *s, struct mu_unit *u, double t_end)
{
    for (int k = 0; k < u->n; k++)
        if (!u->cli[k].owner_books_down)
            eng_down(s, u->cli[k].tenant, u->down_since, t_end);
}

static void on_recovered(struct sim *s, struct mu_unit *u, const struct event *ev)
{
    if (!u->down || ev->version != u->epoch)
        return;
    book_down(s, u, s->now);
    u->down = 0;
    account(s, u);
    for (int k = 0; k < u->n; k++)
        fill(s, u, k);
    reshare(s, u);
}

void mu_event(struct sim *s, struct mu_unit *u, const struct event *ev)
{
    switch (unit_ev_timer(ev)) {
    case MU_T_DONE:
        on_timer(s, u, ev);
        break;
    case MU_T_OVERHEAD:
        on_overhead_done(s, u, ev);
        break;
    case MU_T_BEGIN:
        on_begin(s, u, ev);
        break;
    default:
        on_recovered(s, u, ev);
        break;
    }
}

void mu_abort(struct sim *s, struct mu_unit *u)
{
    account(s, u);
    for (int k = 0; k < u->n; k++) {
        struct mu_client *c = &u->cli[k];
        if (c->llm) { /* the engine process dies: every request it holds fails */
            le_fail(s, c->llm);
            c->g.n = 0;
            c->g.speed = 0;
            c->in_overhead = 0;
            c->version++;
            u->t_done[k] = INFINITY;
            continue;
        }
        if (!busy(c))
            continue;
        while (c->g.n > 0) {
            struct request r;
            rg_remove(&c->g, 0, &r);
            eng_fail(s, &r);
        }
        c->g.speed = 0;
        c->version++;
        u->t_done[k] = INFINITY;
    }
    if (u->memo) {
        u->set = u->prev_set = u->fresh = 0;
        set_changed(u);
        memset(u->work, 0, (size_t)u->n * sizeof *u->work);
        memset(u->v, 0, (size_t)u->n * sizeof *u->v);
    }
}

void mu_down(struct sim *s, struct mu_unit *u, double dur_s)
{
    mu_abort(s, u);
    if (!u->down) {
        u->down = 1;
        u->down_since = s->now;
    }
    u->epoch++; /* a recovery already pending is replaced by this one */
    unit_schedule(s, u->ev, s->now + dur_s, MU_T_RECOVERED, u->epoch, 0);
}

int mu_fault(struct sim *s, struct mu_unit *u, int k)
{
    const struct mu_client *c = &u->cli[k];
    if (c->llm ? c->llm->held == 0 : !busy(c))
        return 0; /* faults come from running kernels (an engine holding requests runs them) */
    mu_down(s, u, u->recovery_s);
    u->faults++;
    return 1;
}

void mu_finish(struct sim *s, struct mu_unit *u)
{
    account(s, u);
    for (int k = 0; k < u->n; k++)
        if (u->cli[k].llm)
            le_kv_close(s, u->cli[k].llm);
    if (u->down)
        book_down(s, u, s->now);
}

/* ---- unit interface ------------------------------------------------------ */

/* A MIG reconfiguration tears the unit down: the in-flight requests fail, the accounting
 * closes. */
static void mu_teardown(struct sim *s, struct mu_unit *u)
{
    mu_abort(s, u);
    mu_finish(s, u);
}

static struct llm_engine *mu_engine(void *self, int client)
{
    return ((struct mu_unit *)self)->cli[client].llm;
}

UNIT_OPS_OVER(mu_unit_ops, struct mu_unit, UNIT_RANK_MPS, mu_arrive, mu_event, mu_fault,
              mu_teardown, mu_finish, mu_free, NULL, NULL, mu_engine);

/* The clients of one server as the stability estimate sees them. A busy client holds its
 * whole work.concurrency in service (the state an overloaded client is in; for the others it
 * overstates what they take, so the estimate errs low). */
struct mu_cap {
    const struct scenario *sc;
    int n;
    const int *tenants;
    double *dem; /* SM demand while busy, as reshare() asks: min(cap, n·s), of the unit */
    double *w;   /* memory weight */
    double sm_scale, bw_scale, bw_loss;
};

/* Client k's work rate (its n requests at their speed) given its SM share of the unit, the
 * weighted bandwidth demands of the busy clients (wd, k's own included) and the co-run
 * efficiency: reshare()'s formula. */
static double client_rate(const struct mu_cap *m, int k, double sm, double wd, double eta)
{
    const struct gpu_profile *gpu = &m->sc->gpu;
    const struct tenant_cfg *t = &m->sc->tenants[m->tenants[k]];
    double f = sm * m->sm_scale, d = rate_bw_curve(gpu, f);
    double room = d + wd - m->w[k] * d;
    double bw = bw_by_demand(d, room, m->bw_scale, eta);
    return rate_saturated(gpu, t, f, bw);
}

static double co_run_eta(const struct mu_cap *m, double w)
{
    return w > 1 ? 1 - m->bw_loss * (w - 1 < 1 ? w - 1 : 1) : 1;
}

/* Client k's work rate while the clients in `busy` (k among them) are busy: policy_mps.c's
 * rate model as reshare() applies it. */
static double speed_in(const struct mu_cap *m, const unsigned char *busy, int k)
{
    double dem = 0, w = 0, wd = 0;
    for (int j = 0; j < m->n; j++)
        if (busy[j]) {
            dem += m->dem[j];
            w += m->w[j];
        }
    double scale = dem > 1 ? 1 / dem : 1;
    for (int j = 0; j < m->n; j++)
        if (busy[j])
            wd += m->w[j] * rate_bw_curve(&m->sc->gpu, m->dem[j] * scale * m->sm_scale);
    return client_rate(m, k, m->dem[k] * scale, wd, co_run_eta(m, w));
}

/* Up to this many other clients the expectation runs over every busy set (2^n of them);
 * beyond, the mean field stands in (expected demands and weights in place of the set). */
#define MU_EXACT_OTHERS 10

/*
 * Client k's expected work rate when it is always busy and every other client j is busy with
 * probability p[j], independently: the time average of its rate, hence its throughput.
 */
static double expected_speed(const struct mu_cap *m, const double *p, int k)
{
    unsigned char *busy = ss_xcalloc((size_t)m->n, 1);
    int others[MU_EXACT_OTHERS], n_o = 0;
    double v = 0;
    busy[k] = 1;
    for (int j = 0; j < m->n; j++)
        n_o += j != k && p[j] > 0;
    for (int j = 0, b = 0; j < m->n && n_o <= MU_EXACT_OTHERS; j++)
        if (j != k && p[j] > 0)
            others[b++] = j;
    if (n_o <= MU_EXACT_OTHERS) {
        for (unsigned set = 0; set < 1u << n_o; set++) {
            double pr = 1;
            for (int b = 0; b < n_o; b++) {
                busy[others[b]] = (set >> b) & 1;
                pr *= busy[others[b]] ? p[others[b]] : 1 - p[others[b]];
            }
            if (pr > 0)
                v += pr * speed_in(m, busy, k);
        }
    } else {
        double dem = m->dem[k], w = m->w[k], wd = 0;
        for (int j = 0; j < m->n; j++)
            if (j != k) {
                dem += p[j] * m->dem[j];
                w += p[j] * m->w[j];
            }
        double scale = dem > 1 ? 1 / dem : 1;
        for (int j = 0; j < m->n; j++)
            wd += (j == k ? 1 : p[j]) * m->w[j] *
                  rate_bw_curve(&m->sc->gpu, m->dem[j] * scale * m->sm_scale);
        v = client_rate(m, k, m->dem[k] * scale, wd, co_run_eta(m, w));
    }
    free(busy);
    return v;
}

double mu_capacity(const struct scenario *sc, int n, const int *tenants, const double *caps,
                   double sm_scale, double bw_scale, double bw_loss, const double *load, int k)
{
    for (int j = 0; j < n; j++)
        if (j != k && isnan(load[j]))
            return NAN;
    struct mu_cap m = {sc, n, tenants, NULL, NULL, sm_scale, bw_scale, bw_loss};
    m.dem = ss_xcalloc((size_t)n, sizeof *m.dem);
    m.w = ss_xcalloc((size_t)n, sizeof *m.w);
    for (int j = 0; j < n; j++) {
        const struct tenant_cfg *t = &sc->tenants[tenants[j]];
        double want =
            (t->work.concurrency > 1 ? t->work.concurrency : 1) * rate_occupancy(t) / sm_scale;
        m.dem[j] = caps[j] < want ? caps[j] : want;
        m.w[j] = mu_memory_weight(t);
    }
    /* Each other client is busy for load / its speed; its speed depends on who else is busy,
     * so the busy fractions are iterated from "everyone busy" (the slowest, hence the
     * largest fractions) down to their fixed point; a few rounds settle them. */
    double *p = ss_xcalloc((size_t)n, sizeof *p), *q = ss_xcalloc((size_t)n, sizeof *q);
    for (int j = 0; j < n; j++)
        p[j] = 1;
    for (int round = 0; round < 8; round++) {
        for (int j = 0; j < n; j++) {
            if (j == k)
                continue;
            double saved = p[k], v;
            p[k] = 1; /* k always has work */
            v = expected_speed(&m, p, j);
            p[k] = saved;
            q[j] = v > 0 ? fmin(1, load[j] / v) : 1;
        }
        for (int j = 0; j < n; j++)
            if (j != k)
                p[j] = q[j];
    }
    p[k] = 1;
    double cap = expected_speed(&m, p, k);
    free(p);
    free(q);
    free(m.dem);
    free(m.w);
    return cap;
}
