/*
 * migview — the mig library's results (mig.h) rendered: JSON objects for tools and text tables
 * for people, the forms `sharesim mig` prints (docs/mig.md has the fields). Every JSON
 * function returns a new cJSON the caller deletes; every text function writes to fp.
 */
#ifndef SS_MIGVIEW_H
#define SS_MIGVIEW_H

#include "mig/mig.h"

#include <cJSON.h>
#include <stdio.h>

/* The GPU's MIG profiles: {"gpu", "total_sms", "compute_slices", "memory_slices",
 * "profiles": [{name, slices, SMs, shares, memory, max instances, starts, size}, …]}. */
cJSON *mig_profiles_json(const struct gpu_profile *g);
void mig_print_profiles(FILE *fp, const struct gpu_profile *g);

/* Legal layouts (mig_layouts), or only the maximal ones: [{"profiles", "maximal"}, …]; the
 * text ends with the count of all and of the maximal ones. */
cJSON *mig_layouts_json(const struct gpu_profile *g, const struct mig_set *sets, int n,
                        int only_maximal);
void mig_print_layouts(FILE *fp, const struct gpu_profile *g, const struct mig_set *sets, int n,
                       int only_maximal);

/* A legal placed layout (text: as the user wrote it) with each instance's slices and shares;
 * with a demand mix d (or NULL), its fragmentation f too. */
cJSON *mig_layout_json(const struct gpu_profile *g, const char *text, const struct mig_layout *l,
                       const struct mig_demand *d, const struct mig_frag *f);
void mig_print_layout(FILE *fp, const struct gpu_profile *g, const char *text,
                      const struct mig_layout *l, const struct mig_demand *d,
                      const struct mig_frag *f);

/* Fragmentation figures and a demand mix. */
cJSON *mig_frag_json(const struct mig_frag *f);
cJSON *mig_demand_json(const struct gpu_profile *g, const struct mig_demand *d);
void mig_print_demand(FILE *fp, const struct gpu_profile *g, const struct mig_demand *d);
/* gpus: how many GPUs f sums over (the totals are gpus × the slices of one). */
void mig_print_frag(FILE *fp, const struct gpu_profile *g, const struct mig_frag *f, int gpus);
/* "memory slices:  0  0  0  1  1  .  .  2": the instance on each memory slice, "." when free. */
void mig_print_slice_map(FILE *fp, const struct gpu_profile *g, const struct mig_layout *l);

/* A packing of the requests req[] (mig_pack) under the options po: text, the whole result as
 * JSON, and one row per request in request order (gpu and start null when unplaced). */
void mig_print_pack(FILE *fp, const struct gpu_profile *g, const int *req, const struct mig_pack *r,
                    const struct mig_pack_opts *po);
cJSON *mig_pack_json(const struct gpu_profile *g, const int *req, const struct mig_pack *r,
                     const struct mig_pack_opts *po);
cJSON *mig_pack_rows(const struct gpu_profile *g, const int *req, const struct mig_pack *r);

#endif
