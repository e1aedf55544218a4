/*
 * kcurve — measured kernel curves of a GPU (kernels/profiles/kernels/<profile>.json, written
 * offline by scripts/kernel-tables from NVIDIA AIConfigurator's and Microsoft Vidur's tables;
 * docs/kernel-data.md): GEMM efficiency against tokens per step for the shipped models' layer
 * shapes, prefill and decode attention time by batch and length per head configuration, the
 * small per-layer kernels (norms, RoPE, activation, residual adds) against tokens, and
 * all-reduce time against message size.
 *
 * Every lookup says which path it took (struct kc_result): the table of that exact shape, a
 * curve that holds across shapes (GEMMs only: the median over the models' shapes), or none —
 * no file, no table of that data type or shape — where the caller keeps its roofline. Between
 * knots the curves are piecewise linear in log x and log y (power-law pieces: exact for the
 * memory-bound m ∝ time stretch of a GEMM and for time ∝ length²); outside they clamp to the
 * end knot and set `clamped` (the small kernels above their last knot excepted: below).
 *
 * The tables' bias: isolated kernels timed one at a time, warm, at the collector's clock, no
 * neighbour — optimistic against a served step.
 */
#ifndef SS_KCURVE_H
#define SS_KCURVE_H

#include "calib/roof.h"

#include <stddef.h>

/* Limits checked at load (the number is in the message). */
#define KC_MAX_FILE (2u << 20) /* bytes of one kernel file */
#define KC_MAX_KNOTS 1024      /* knots of one curve */
#define KC_MAX_CURVES 512      /* curves of one kind in one file */

enum kc_path { KC_NONE, KC_GENERIC, KC_TABLE, KC_NPATH };
/* "none", "generic", "table": in enum order, for results. */
extern const char *const kc_path_names[];

/* y against x, x strictly increasing; x and y positive. lx and ly, when set (kc_load does),
 * hold log x and log y of every knot, so that an interpolation takes one log instead of five:
 * the same doubles, as log is a function of its input alone. */
struct kc_curve {
    int n;
    double *x, *y;
    double *lx, *ly;
};

/* The curve at x: log-log piecewise-linear between knots, the end value outside (*clamped
 * set to 1 then, else 0; clamped may be NULL). */
double kc_curve_at(const struct kc_curve *c, double x, int *clamped);

/* What a lookup found: seconds (0 for KC_NONE), the path, whether an input lay outside the
 * table's range, and the source key ("AIC", "VIDUR"; NULL for KC_NONE). */
struct kc_result {
    double s;
    enum kc_path path;
    int clamped;
    const char *source;
};

struct kc_gpu;

/*
 * The kernel file of the profile at profile_path: <cal_profile_dir()>/kernels/<its file
 * name>. No such file is not an error: 0 with *out NULL (every lookup answers KC_NONE). A file
 * that does not parse or breaks the schema: -1 with "<file>: <JSON path>: what was expected"
 * (the caller exits 2).
 */
int kc_load(const char *profile_path, struct kc_gpu **out, char *err, size_t errlen);
/* The same for a named file, which must exist. */
int kc_load_file(const char *path, struct kc_gpu **out, char *err, size_t errlen);
void kc_free(struct kc_gpu *g);
/*
 * kc_load once per profile file and process: the set stays loaded until the process ends
 * (a scenario's engines all read it; a sweep's forked workers each have their own). The first
 * call that fails caches nothing, so every later call reports the same error. Up to KC_CACHE
 * (profile, profile directory) pairs are kept.
 */
#define KC_CACHE 64
int kc_get(const char *profile_path, const struct kc_gpu **out, char *err, size_t errlen);
/* The file a loaded set came from. */
const char *kc_file(const struct kc_gpu *g);

/* One GEMM of m tokens by an n × k weight: the exact (n, k) curve of the data type, else the
 * data type's across-shapes curve, else none. Time = 2 m n k / (efficiency × the peak the file
 * was reduced with). g may be NULL. */
void kc_gemm(const struct kc_gpu *g, enum roof_dtype d, double m, double n, double k,
             struct kc_result *r);
/* The file's efficiency at m for (n, k) (0 and KC_NONE where none): for reports. */
double kc_gemm_eff(const struct kc_gpu *g, enum roof_dtype d, double m, double n, double k,
                   struct kc_result *r);

/*
 * One GEMM shape's curve found once (kc_gemm_find), for a caller that times the shape at
 * every step: kc_gemm_ref_time(ref, m, r) is kc_gemm(g, d, m, n, k, r) to the bit, without
 * the search through the file's tables. path KC_NONE: no curve (g NULL, or none of d).
 */
struct kc_gemm_ref {
    const struct kc_gpu *g;
    const struct kc_gemm *c;
    enum roof_dtype d;
    double n, k;
    enum kc_path path;
};
void kc_gemm_find(const struct kc_gpu *g, enum roof_dtype d, double n, double k,
                  struct kc_gemm_ref *ref);
void kc_gemm_ref_time(const struct kc_gemm_ref *ref, double m, struct kc_result *r);

/* Attention of one layer. The tables hold bf16 activations with a bf16 KV cache; fp16 takes
 * them too (the same kernels and tensor-core rate on these parts, the same bytes); other data
 * types get KC_NONE. Prefill: `batch` prompts of `len` tokens each, causal, no cached prefix.
 * Decode: `batch` sequences of one new token against `len` cached tokens each. */
void kc_attn_prefill(const struct kc_gpu *g, enum roof_dtype d, int heads, int kv_heads,
                     int head_dim, double batch, double len, struct kc_result *r);
void kc_attn_decode(const struct kc_gpu *g, enum roof_dtype d, int heads, int kv_heads,
                    int head_dim, double batch, double len, struct kc_result *r);

/* The small kernels of one layer at `tokens` tokens (two norms, RoPE, the activation, two
 * residual adds), by the layer's shape. fp16 tables serve bf16 too (elementwise kernels of
 * 16-bit data move the same bytes). Past the table's last token count the time is the last
 * knot's scaled by tokens / that count (their bytes grow with the tokens; `clamped` is set),
 * not the end value that the other curves keep. */
void kc_small_kernels(const struct kc_gpu *g, enum roof_dtype d, int hidden, int intermediate,
                      int heads, int kv_heads, double tokens, struct kc_result *r);

/* One all-reduce of `elements` 16-bit elements over `gpus` GPUs (CUDA-graph backend). */
void kc_allreduce(const struct kc_gpu *g, enum roof_dtype d, int gpus, double elements,
                  struct kc_result *r);

#endif
