/*
 * profile — calibration profiles as JSON documents (schema in calib.h), for the tools
 * that show, compare and produce them: `sharesim profile`, the CUDA microbenchmarks in
 * kernels/ and scripts/calibrate. calib.c turns a profile into the numbers the simulator
 * uses; this module keeps the whole document, sources and notes included.
 *
 * A *fragment* is what one microbenchmark writes: the same schema ("schema", "device",
 * "measured": true, "driver", "date", value objects with source and confidence) but only
 * the keys that program measured. prof_merge lays fragments over a shipped profile to
 * make a full measured profile; the result must load with cal_load_file.
 */
#ifndef SS_PROFILE_H
#define SS_PROFILE_H

#include <cJSON.h>
#include <stddef.h>

#define PROF_SCHEMA "sharesim-profile/1"

/* True for the document-level keys that are not value objects (schema, name, notes, …). */
int prof_is_meta(const char *key);

/* Unit of a value, derived from its key name ("us" for timeslice_us); "" when none. */
const char *prof_unit(const char *key);

/*
 * Loads a full profile by GPU name, alias or path: validated with cal_load, then read
 * whole. *path_out (optional, PATH_MAX) receives the file it came from.
 */
int prof_load(const char *name_or_path, cJSON **doc, char *path_out, char *err, size_t errlen);

/*
 * Reads a fragment or a profile without requiring the full key set: checks the schema
 * and that every non-meta key is a value object with a non-empty source and confidence.
 */
int prof_read_fragment(const char *path, cJSON **doc, char *err, size_t errlen);

/*
 * The shipped profile for a CUDA device name as cudaGetDeviceProperties reports it
 * ("NVIDIA H100 80GB HBM3"): matches a profile's "device", "name" or an alias, ignoring
 * case and a leading "NVIDIA ". Writes the profile's name and returns 0; -1 with the known
 * devices when none matches; -2 when the profile directory cannot be read.
 */
int prof_find_device(const char *device, char *name, size_t namelen, char *err, size_t errlen);

/*
 * One difference between two documents. path names the value: "timeslice_us",
 * "mig_profiles[1g.10gb].sm_count", "corun_slowdown.matrix[0][1]", "switch_us (confidence)".
 * a or b is NULL when the value exists on one side only (they point into the documents).
 */
struct prof_change {
    char *path;
    const cJSON *a, *b;
};

/* All differences from a to b, in a's key order then b's new keys. Free with prof_diff_free. */
void prof_diff(const cJSON *a, const cJSON *b, struct prof_change **out, size_t *n);
void prof_diff_free(struct prof_change *c, size_t n);

/* Relative change (b - a) / |a| when both are numbers and a != 0; returns 0 otherwise. */
int prof_rel_change(const struct prof_change *c, double *rel);

/* Text of a JSON value for a table: numbers as %.10g, strings bare, others compact JSON. */
char *prof_value_text(const cJSON *v);

/*
 * Lays the fragments over base (a full profile) and returns a new document with
 * "measured": true, the given name (NULL: base name + "-measured"), no aliases, the
 * fragments' driver and date, and notes listing the measured keys. Fails when a fragment
 * measured another device than base's (unless force) or two fragments set the same key.
 */
int prof_merge(const cJSON *base, cJSON *const *frag, const char *const *frag_names, size_t n,
               const char *name, int force, cJSON **out, char *err, size_t errlen);

/*
 * Writes a merged profile to out (atomically; "-" for stdout) only once it loads as a profile:
 * a file that cal_load_file() would refuse is never left behind, and the reason names out,
 * not the temporary it was checked in. 0, or -1 with err filled.
 */
int prof_write_merged(cJSON *doc, const char *out, char *err, size_t errlen);

#endif
