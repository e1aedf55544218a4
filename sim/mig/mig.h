/*
 * mig — Multi-Instance GPU layouts on one GPU: which sets of GPU instances
 * the hardware allows, where each instance sits, what share of the GPU it
 * gets, how much free capacity a layout strands, and packing of instance
 * requests onto several GPUs.
 *
 * Model (docs/domain.md#placement-rules): a GPU has
 * g->mig_memory_slices (8) memory slices and g->mig_compute_slices (7) compute
 * slices. A GPU instance of profile P occupies the memory slices
 * [start, start + P.size) for a start taken from P.starts; compute slices are
 * not addressed by placement. A multiset of instances is LEGAL iff
 *   1. every instance can be given a start from its profile's starts such that
 *      no two instances share a memory slice,
 *   2. the compute slices of all instances add up to at most 7,
 *   3. no profile appears more often than its max_instances,
 *   4. at most one "+me" (media extension) profile is on the GPU.
 * All shipped tables put the same 7-instance limit on a GPU; rule 2 implies it.
 *
 * Conventions: a profile is an index into g->mig[]; a layout's instances keep
 * the order the caller gave them; everything here is deterministic (no
 * randomness, no dependence on memory addresses).
 *
 * Fragmentation (mig_frag.c). For a GPU whose instances have fixed starts and a
 * demand mix D = {(profile m, probability p_m)}:
 *   free_c, free_m   compute / memory slices no instance holds.
 *   STRANDED         capacity the demand can never use without reconfiguring:
 *                    stranded_c = free_c - max over legal extensions E of the
 *                    compute slices E adds, stranded_m likewise for memory
 *                    slices, where an extension adds instances of profiles in D
 *                    (p_m > 0) at legal starts, keeping the present instances
 *                    where they are. Fractions are of 7 and 8 slices.
 *                    Example: 7 x 1g.5gb strands memory slice 7 (1/8) for any
 *                    demand; 3g + 3g strands a compute slice (1/7).
 *   FGD              the fragmentation measure of Weng et al., "Beware of
 *                    Fragmentation: Scheduling GPU-Sharing Workloads with
 *                    Fragmentation Gradient Descent", USENIX ATC '23, mapped to
 *                    MIG: the paper's node is our GPU, its per-GPU free capacity
 *                    is our memory slice (the positional resource), and its CPU
 *                    (a pooled resource that can make a task unplaceable) is our
 *                    compute slices. For one task m:
 *                      if no instance of m can be added now: F_c(m) = free_c,
 *                        F_m(m) = free_m (all free capacity is unusable by m);
 *                      else F_c(m) = 0 and F_m(m) = the free memory slices
 *                        that no single legal placement of m covers.
 *                    fgd_c = sum_m p_m F_c(m), fgd_m = sum_m p_m F_m(m)
 *                    (expected unusable slices for a task drawn from D), and
 *                    fgd = (fgd_c / 7 + fgd_m / 8) / 2, the one number the
 *                    "fgd" packing policy minimises.
 *   Stranded looks at every future the demand allows; FGD is the paper's
 *   myopic measure (the next task only). Neither bounds the other: for
 *   1g.10gb demand an empty GPU strands 3 compute slices (four 1g.10gb fill
 *   the memory) yet has FGD 0 (the next 1g.10gb fits anywhere); 3g at 4 plus
 *   1g.5gb at 0 strands nothing for {1g.5gb, 3g} demand, yet the next 3g
 *   cannot be placed, so its FGD counts all free capacity. Both are reported.
 *
 * Packing (mig_pack.c): see mig_pack().
 */
#ifndef SS_MIG_H
#define SS_MIG_H

#include "calib/calib.h"

#include <stddef.h>

#define MIG_MAX_INST 7        /* each instance takes >= 1 of the 7 compute slices */
#define MIG_MAX_REQUESTS 4096 /* longest instance list mig_parse_list accepts */

/* Instances on one GPU; start[i] is the first memory slice of instance i. */
struct mig_layout {
    int n;
    int prof[MIG_MAX_INST];  /* index into gpu_profile.mig[] */
    int start[MIG_MAX_INST]; /* memory-slice units; -1 when not placed */
};

/* A multiset of profiles (positions ignored), as listed by mig_layouts(). */
struct mig_set {
    int count[CAL_MAX_MIG]; /* instances per profile index */
    int n_inst;
    int compute_slices; /* used */
    int memory_slices;  /* used */
    int maximal;        /* no instance of any profile can be added */
};

/* A demand mix: profiles with probabilities that add up to 1. */
struct mig_demand {
    int n;
    int prof[CAL_MAX_MIG];
    double p[CAL_MAX_MIG];
};

/* Fragmentation of one GPU (or, in struct mig_pack.total, of all used GPUs). */
struct mig_frag {
    int free_compute, free_memory;         /* slices */
    int stranded_compute, stranded_memory; /* slices */
    double stranded_compute_frac;          /* of the compute slices */
    double stranded_memory_frac;           /* of the memory slices */
    double fgd_compute, fgd_memory;        /* expected unusable slices */
    double fgd_compute_frac, fgd_memory_frac;
    double fgd; /* (fgd_compute_frac + fgd_memory_frac) / 2 */
};

/* ---- profiles ---------------------------------------------------------- */

/* Index of the profile with this name (case-insensitive), or -1. */
int mig_profile_index(const struct gpu_profile *g, const char *name);
/* True for a media-extension profile (name ends in "+me"). */
int mig_profile_is_me(const struct mig_profile *m);
/* "1g.5gb, 1g.5gb+me, …" — the profile names in table order. */
void mig_profile_names(const struct gpu_profile *g, char *buf, size_t len);
/* rank[0..n_mig) = g's profile indices ordered by cmp (negative: a before b), ties in table
 * order (a stable sort of the table). */
void mig_profile_rank(const struct gpu_profile *g,
                      int (*cmp)(const struct mig_profile *a, const struct mig_profile *b),
                      int *rank);
/* SM share of the whole non-MIG GPU: sm_count / total_sms (A100 1g: 14/108). */
double mig_compute_share(const struct gpu_profile *g, int prof);
/* Memory (and memory-bandwidth) share: memory_slices / mig_memory_slices (1g.5gb: 1/8). */
double mig_memory_share(const struct gpu_profile *g, int prof);

/* ---- parsing ----------------------------------------------------------- */

/*
 * Parses "3g.20gb,2g.10gb,2x1g.5gb" (NxPROFILE repeats a profile N times;
 * spaces around items are ignored) into profile indices. *prof is allocated
 * (caller frees) and holds *n >= 1 entries, at most MIG_MAX_REQUESTS. With
 * start != NULL an item may pin its instance, "1g.5gb@3" (first memory slice
 * 3); *start is then allocated too, -1 for unpinned items. With start == NULL
 * a pin is an error. An error names the bad item, its position, and for an
 * unknown profile lists the valid names.
 */
int mig_parse_list(const struct gpu_profile *g, const char *text, int **prof, int **start, int *n,
                   char *err, size_t errlen);

/*
 * Parses a demand mix "1g.5gb:4,3g.20gb:1" (weights, normalised to add up to 1;
 * a profile without ":w" weighs 1; a profile listed twice adds up).
 */
int mig_parse_demand(const struct gpu_profile *g, const char *text, struct mig_demand *d, char *err,
                     size_t errlen);
/* Every profile of the GPU, equally likely. */
void mig_demand_uniform(const struct gpu_profile *g, struct mig_demand *d);
/* The mix of an instance list (each profile weighted by how often it appears). */
void mig_demand_from_list(const struct gpu_profile *g, const int *prof, int n,
                          struct mig_demand *d);

/* ---- legality and placement -------------------------------------------- */

/*
 * 0 if the instances (any count) form a legal layout, else -1 and a reason
 * naming every rule broken, e.g. "4g.20gb can only start at memory slice 0;
 * two do not fit; compute slices add up to 8, the GPU has 7".
 */
int mig_check(const struct gpu_profile *g, const int *prof, int n, char *why, size_t whylen);

/*
 * Places a legal layout: out->prof = prof (same order), out->start filled.
 * pin (NULL, or -1 per free instance) fixes starts — for a GPU whose
 * surviving instances stay where they are while new ones are added. Among all
 * legal placements it takes the one with the least fragmentation for the
 * demand d (fgd, then stranded; NULL = mig_demand_uniform), ties going to the
 * first placement in enumeration order (pinned instances first, then larger
 * size first, starts ascending) — so the free slices stay as usable as they
 * can. Returns -1 with the reason when the layout is illegal or the pins
 * cannot be honoured ("1g.5gb cannot start at memory slice 7 (it starts at
 * 0-6)", "1g.5gb@1 and 2g.10gb@0 share memory slice 1").
 */
int mig_place(const struct gpu_profile *g, const int *prof, const int *pin, int n,
              const struct mig_demand *d, struct mig_layout *out, char *why, size_t whylen);

/*
 * Calls fn for every distinct legal placement of the instances that honours
 * pin (may be NULL); unpinned instances of one profile take increasing starts,
 * so no placement repeats. fn returns nonzero to stop. Returns the number of
 * placements visited (0: none exists).
 */
typedef int (*mig_place_fn)(const struct mig_layout *placed, void *ctx);
int mig_place_each(const struct gpu_profile *g, const int *prof, const int *pin, int n,
                   mig_place_fn fn, void *ctx);

/* ---- enumeration ------------------------------------------------------- */

/*
 * Every distinct non-empty legal multiset on the GPU, maximal ones flagged.
 * Sorted largest profile first: by the count of the largest profile
 * (compute slices, then memory slices, then table order) descending, then of
 * the next largest, … (7g.40gb first, a lone 1g.5gb+me last).
 * *out is allocated (caller frees); returns the count.
 */
int mig_layouts(const struct gpu_profile *g, struct mig_set **out);
/* "3g.20gb,2g.10gb,1g.5gb,1g.5gb" — largest profile first. */
void mig_set_format(const struct gpu_profile *g, const struct mig_set *s, char *buf, size_t len);
/* Fills a set from an instance list (no legality check). */
void mig_set_from_list(const struct gpu_profile *g, const int *prof, int n, struct mig_set *s);

/* ---- fragmentation (mig_frag.c) ---------------------------------------- */

/* Fragmentation of a placed layout for a demand mix (definitions above). */
void mig_frag(const struct gpu_profile *g, const struct mig_layout *placed,
              const struct mig_demand *d, struct mig_frag *out);

/* ---- packing (mig_pack.c) ---------------------------------------------- */

enum mig_pack_policy { MIG_PACK_BEST_FIT, MIG_PACK_FIRST_FIT, MIG_PACK_FGD };

/* "best-fit", "first-fit", "fgd" -> policy; -1 with the valid names otherwise. */
int mig_pack_policy_parse(const char *s, enum mig_pack_policy *out, char *err, size_t errlen);
const char *mig_pack_policy_name(enum mig_pack_policy p);

struct mig_pack {
    int n_gpus;             /* GPUs holding at least one instance, numbered 0.. */
    int cluster_gpus;       /* GPUs the policy was run on (see mig_pack) */
    int lower_bound;        /* no packing of these requests uses fewer GPUs */
    struct mig_layout *gpu; /* [n_gpus], placed, instances by start */
    struct mig_frag *frag;  /* [n_gpus], for the demand */
    int n_req;
    int *gpu_of;  /* [n_req]: GPU of request i, -1 when unplaced */
    int *slot_of; /* [n_req]: its instance index in gpu[gpu_of[i]] */
    int n_unplaced;
    struct mig_frag total; /* slices summed over used GPUs, fractions of their capacity */
};

struct mig_pack_opts {
    enum mig_pack_policy policy;
    int max_gpus;                    /* 0: as many as needed */
    int arrival_order;               /* take requests as given, not largest first */
    const struct mig_demand *demand; /* NULL: the requests' own mix */
};

/*
 * Packs instance requests onto GPUs, deterministically. Requests are taken
 * largest first (memory slices, then compute slices, then table order, then
 * input order) or, with arrival_order, as given (an online scheduler). Each
 * goes to one GPU of a cluster of N GPUs that can still take it (its multiset
 * plus the request is legal — positions are planned afresh, as when a GPU's
 * layout is being designed):
 *   first-fit: the lowest-numbered such GPU;
 *   best-fit:  the one left with the least free capacity (free compute/7 +
 *              free memory/8), ties to the lowest number;
 *   fgd:       the one whose fgd (for the demand) grows least, the
 *              "fragmentation gradient descent" of Weng et al., ties to the
 *              lowest number. Empty GPUs are candidates too.
 * N: first-fit and best-fit never prefer an empty GPU over a used one, so
 * they run once with N = max_gpus (0: unlimited). fgd is run for N = the lower
 * bound, +1, … up to max_gpus (0: the number of requests) and the first N on
 * which every request is placed is kept (else the run at the largest N).
 * Each GPU's instances are finally placed with mig_place(…, NULL, …, demand, …).
 * Cost: O(requests x GPUs) table look-ups per run. Returns 0; out is freed by
 * mig_pack_free.
 */
int mig_pack(const struct gpu_profile *g, const int *req, int n_req, const struct mig_pack_opts *o,
             struct mig_pack *out);
void mig_pack_free(struct mig_pack *r);

#endif
