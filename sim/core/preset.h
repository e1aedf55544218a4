/*
 * preset — work presets (docs/scenario.md#work, docs/mig.md#work-presets): named kinds of
 * work whose class, occupancy (max_sm_fraction), intensity, host fraction and compute share
 * were fitted to published MIG scaling measurements (kernels/profiles/measurements/
 * sharing.csv, `fit` rows only). The table is kernels/profiles/workloads/presets.json
 * ($SHARESIM_PRESETS overrides it); every value there carries its source and the rows it
 * was fitted to.
 *
 * The table is read on each use, as the engine table is: it holds a few entries.
 */
#ifndef SS_PRESET_H
#define SS_PRESET_H

#include "base/jsonv.h"
#include "core/scenario.h"

#include <stddef.h>

#define WP_MAX_PRESETS 32
#define WP_NAME_MAX 32
#define WP_TEXT_MAX 512
#define WP_MAX_FIT_ROWS 8

/* One value of a preset: set 0 when the preset leaves the key at the scenario's default. */
struct wp_value {
    int set;
    double value;
    char source[WP_TEXT_MAX];
    char confidence[16];
    int n_fit_rows;
    char fit_rows[WP_MAX_FIT_ROWS][64]; /* sharing.csv ids the value was fitted to */
};

struct wp_preset {
    char name[WP_NAME_MAX];
    char description[WP_TEXT_MAX];
    enum work_class wclass;
    char class_source[WP_TEXT_MAX];
    struct wp_value max_sm_fraction, intensity, host_fraction, compute_share;
};

struct wp_table {
    int n;
    struct wp_preset p[WP_MAX_PRESETS];
};

/* The table's path: $SHARESIM_PRESETS, else workloads/presets.json in the profile folder. */
const char *wp_table_path(void);

/* Reads and checks the table at path (NULL: wp_table_path()); -1 with "FILE: PATH: why". */
int wp_load(const char *path, struct wp_table *t, char *err, size_t errlen);

/* The preset called name, or NULL. */
const struct wp_preset *wp_find(const struct wp_table *t, const char *name);

/* Fills w's occupancy keys and preset class from the preset named by obj's "preset" (at
 * path.preset); the caller reads the explicit keys afterwards, which override. 0 when obj has
 * no "preset"; -1 (error in j) when the table cannot be read or the name is unknown (the
 * message lists the names). */
int wp_apply(const struct jv *j, const cJSON *obj, const char *path, struct work_cfg *w);

#endif
