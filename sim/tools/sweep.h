/*
 * sweep — what-if grids over a scenario's JSON document (`sharesim sweep`).
 *
 * A grid is a list of axes; each axis sets one dotted JSON path
 * ("tenants.0.arrival.rate_per_s") to each of its values in turn. Points are the
 * Cartesian product, numbered in mixed radix with the FIRST axis varying slowest,
 * so point i always means the same parameter values whatever the machine, the
 * number of workers or the order the points finish in.
 *
 * A point's scenario is the base document with the point's values set, loaded by
 * the ordinary scenario loader (so a swept value is validated like any other).
 * Its results are two files under DIR/points/: <id>.csv (exactly `sharesim run
 * --csv` for that scenario) and <id>.json (`sharesim run --json` plus a "sweep"
 * object). The JSON is written last and is the point's commit marker: a point is
 * done iff its JSON parses, carries this point's config hash, and the CSV has the data
 * rows and the FNV-1a 64 hash the JSON records for it ("csv_rows", "csv_hash"): a CSV cut
 * short, edited or replaced is found and the point recomputed, never copied into sweep.csv.
 * Its figures are trusted only if they hash to its "payload_hash" and conserve requests
 * (sw_point_verify).
 * One sweep at a time writes into a directory: sw_lock_dir (an fcntl lock on DIR/.sweep.lock,
 * held until the process ends) refuses a second one.
 */
#ifndef SS_SWEEP_H
#define SS_SWEEP_H

#include "core/run.h"
#include "core/scenario.h"

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Limits: values per axis and points per grid (a grid this big is a mistake, not a study). */
#define SW_MAX_VALUES 100000
#define SW_MAX_POINTS 100000
#define SW_MAX_AXES 16
/* The point file format: 2 added "format" and "payload_hash" (a hash of the figures, not only
 * of the inputs); a point of format 1 is not trusted and is recomputed, or refused by --merge. */
#define SW_POINT_FORMAT 2

struct sw_axis {
    char *path; /* dotted path as given, e.g. "strategies.1.slice_ms" */
    int n_values;
    cJSON **values; /* JSON scalars (number, bool or string), owned */
    char **labels;  /* each value as text for CSV and tables: numbers %.15g, strings raw */
};

struct sw_grid {
    int n_axes;
    struct sw_axis axes[SW_MAX_AXES];
    long n_points; /* product of the axes' sizes (1 for an empty grid) */
};

/* Run options that change a point's result; part of the config hash. */
struct sw_opts {
    int replications; /* 0 = the scenario's */
    long seed;        /* < 0 = the scenario's */
    int slowdown;     /* as `sharesim run` (1) or --no-slowdown (0) */
};

void sw_grid_init(struct sw_grid *g);
void sw_grid_free(struct sw_grid *g);

/*
 * Adds the axis of one `--set` argument: PATH=v1,v2,… where each element is a
 * JSON scalar (text that is not JSON is a string) or a range start:stop:step
 * (inclusive; value i is start + i·step rounded to 15 significant digits, so
 * 0:0.3:0.1 gives 0, 0.1, 0.2, 0.3 and not 0.30000000000000004).
 */
int sw_grid_add(struct sw_grid *g, const char *arg, char *err, size_t errlen);

/* The value index on each axis of point idx (first axis slowest). */
void sw_point_coords(const struct sw_grid *g, long idx, int *coords);

/* Digits of a point id for this grid (at least 4) and the id itself ("p0007"). */
int sw_id_width(const struct sw_grid *g);
void sw_point_id(const struct sw_grid *g, long idx, char *buf, size_t n);

/*
 * Sets root[path] = a copy of value. Intermediate components must exist (an
 * array component is a 0-based index within bounds); the last one may name a
 * new key of an existing object. Error messages name the path and the part that
 * failed.
 */
int sw_set_path(cJSON *root, const char *path, const cJSON *value, char *err, size_t errlen);

/* A copy of base with point idx's values set (NULL with a message on a path error). */
cJSON *sw_point_doc(const struct sw_grid *g, const cJSON *base, long idx, char *err, size_t errlen);

/*
 * Builds and validates point idx: its document, loaded as a scenario whose
 * relative paths resolve against scenario_path. On success *hash is the point's
 * config hash (FNV-1a 64 of the document and the options). Errors name the
 * point id and, for path errors, the path.
 */
int sw_point_load(const struct sw_grid *g, const cJSON *base, const char *scenario_path,
                  const struct sw_opts *o, long idx, struct scenario *sc, uint64_t *hash, char *err,
                  size_t errlen);

/* {"path": value, …} of point idx, in axis order. */
cJSON *sw_point_params(const struct sw_grid *g, long idx);

/* DIR/points/<id>.json or .csv into buf. */
void sw_point_file(const struct sw_grid *g, const char *dir, long idx, const char *ext, char *buf,
                   size_t n);

/* What a point's CSV holds: its data rows and the FNV-1a 64 hash of its bytes. */
struct sw_csv_sum {
    uint64_t hash;
    long rows;
};

/* Point status in DIR: done (skip; *csv is what its JSON records), to run, its CSV does not
 * match its JSON (damaged: to run again), or written by a different sweep (error). */
enum sw_state { SW_TODO, SW_DONE, SW_STALE, SW_DAMAGED };
enum sw_state sw_point_state(const struct sw_grid *g, const char *dir, long idx, uint64_t hash,
                             struct sw_csv_sum *csv);
/* The same with the reason a point is not done in why (empty for SW_TODO and SW_DONE). */
enum sw_state sw_point_check(const struct sw_grid *g, const char *dir, long idx, uint64_t hash,
                             struct sw_csv_sum *csv, char *why, size_t n);
/* The payload hash of a point: FNV-1a 64 of its JSON document without the "sweep" object,
 * printed unformatted, then of its CSV's bytes. */
uint64_t sw_payload_hash(const cJSON *doc, const char *csv, size_t csv_len);
/*
 * Whether the texts of a point's two files make point idx of this sweep (config hash `hash`):
 * SW_DONE (and *sum, if not NULL, what the CSV holds), SW_STALE (another sweep's), or
 * SW_DAMAGED with the reason in why. A point is accepted only if it is in format
 * SW_POINT_FORMAT, names this point, its CSV has the rows and hash its JSON records, its
 * payload hash matches its figures (the JSON without its "sweep" object and the CSV's bytes),
 * every number is finite, and every tenant's requests conserve: arrived = completed +
 * rejected + failed + in flight, none negative, in the JSON and in each CSV row.
 */
enum sw_state sw_point_verify(const struct sw_grid *g, long idx, uint64_t hash, const char *json,
                              const char *csv, size_t csv_len, struct sw_csv_sum *sum, char *why,
                              size_t n);

/*
 * Runs point idx (already validated into sc) and gives the texts of its two files
 * (malloc'd): *csv as `sharesim run --csv`, *json as `run --json` plus the "sweep" object.
 * Writes nothing, so the point can run anywhere (a forked worker, another MPI rank) and
 * the writer files it. 0, or -1 with a message (the run failed, or the text cannot be built
 * in memory).
 */
int sw_point_texts(const struct sw_grid *g, long idx, const struct scenario *sc,
                   const struct sw_opts *o, uint64_t hash, char **csv, char **json, char *err,
                   size_t errlen);

/* Writes point idx's files under DIR: the CSV, then the JSON (the commit marker), each
 * atomically; *sum (if not NULL) gets what the CSV holds. 0, or -1 with a message. */
int sw_point_write(const struct sw_grid *g, const char *dir, long idx, const char *csv,
                   const char *json, struct sw_csv_sum *sum, char *err, size_t errlen);

/* Copies point idx's files from one sweep directory to another (sweep --merge), the same
 * way: CSV first, JSON last, each atomically, once the bytes read pass sw_point_verify. */
int sw_point_copy(const struct sw_grid *g, const char *from, const char *to, long idx,
                  uint64_t hash, struct sw_csv_sum *sum, char *err, size_t errlen);

/* sw_point_texts then sw_point_write. */
int sw_point_run(const struct sw_grid *g, const char *dir, long idx, const struct scenario *sc,
                 const struct sw_opts *o, uint64_t hash, struct sw_csv_sum *sum, char *err,
                 size_t errlen);

/* Locks DIR for this process (DIR/.sweep.lock, released when it exits): 0, or -1 with a message
 * naming the sweep that holds it. */
int sw_lock_dir(const char *dir, char *err, size_t errlen);

/* Creates DIR and DIR/points (and missing parents). */
int sw_make_dirs(const char *dir, char *err, size_t errlen);

/* DIR/points/index.csv: id, then one column per axis. Atomic. */
int sw_write_index(const struct sw_grid *g, const char *dir, char *err, size_t errlen);

/*
 * DIR/sweep.csv from every point's CSV, in point order: columns point, one per
 * axis, then the columns of `sharesim run --csv`. Each point's CSV must still be what
 * csv[idx] says (csv may be NULL: not checked). Atomic; *rows gets the number of data rows.
 */
int sw_write_csv(const struct sw_grid *g, const char *dir, const struct sw_csv_sum *csv, long *rows,
                 char *err, size_t errlen);

/* Appends s to fp as one CSV field (quoted when it holds a comma, quote or newline). */
void sw_csv_field(FILE *fp, const char *s);

#endif
