/*
 * outplan — the plan of a command's outputs, checked before the command does any work.
 *
 * Every command that writes files registers, right after parsing its options, each output
 * (the option that names it and its path, "-" for stdout; or a directory and the names of
 * the files it writes there) and each input it will read (the scenario, a trace, a result
 * file, the files or directories given to --merge). op_check() then refuses, with one
 * message that names both options and the file:
 *  - two outputs that are one file, however spelt: `./X` and `X`, `d/../X`, a symbolic link
 *    (to the file, or to a directory above it, even when the file does not exist yet), a
 *    hard link; a file output that is one of the files an output directory holds;
 *  - two outputs both on stdout ("-", or a path that is the file or pipe stdout writes to);
 *  - an output that is an input (any file registered here, or noted by ss_in_note, e.g. a
 *    trace the scenario names), or one of the files an input directory holds.
 * A character device (/dev/null) may take any number of outputs. The check cannot see a
 * file appear after it; ss_out_open still refuses a noted input when it opens an output.
 */
#ifndef SS_OUTPLAN_H
#define SS_OUTPLAN_H

#include <stddef.h>

/* One registered path. names: for a directory, the files in it that the command writes (an
 * output) or reads (an input), NULL-terminated: "NAME" exactly, "PRE*SUF" any one name
 * (no '/') between PRE and SUF, "SUB/" anything below SUB. NULL for a file. */
struct op_item {
    const char *opt;
    const char *path;
    const char *const *names;
    const char *label; /* for messages, when not path (op_output_prefix's PREFIX) */
    char *own[3];      /* op_output_prefix's directory, pattern and its list, freed by op_free */
};

struct op_plan {
    const char *cmd; /* "sharesim compare", for messages */
    struct op_item *out, *in;
    int n_out, n_in, cap_out, cap_in;
};

void op_init(struct op_plan *p, const char *cmd);
void op_free(struct op_plan *p);
/* A path of NULL (the option was not given) registers nothing. */
void op_output(struct op_plan *p, const char *opt, const char *path);
void op_output_dir(struct op_plan *p, const char *opt, const char *dir, const char *const *names);
/* Files named PREFIX<pattern>, pattern as in names ("-*.svg"): PREFIX's directory holds them. */
void op_output_prefix(struct op_plan *p, const char *opt, const char *prefix, const char *pattern);
void op_input(struct op_plan *p, const char *opt, const char *path);
void op_input_dir(struct op_plan *p, const char *opt, const char *dir, const char *const *names);

/* 0, or -1 with the reason in err ("OPT PATH: the same file as OPT2 PATH2: …"). */
int op_check(const struct op_plan *p, char *err, size_t errlen);
/* op_check, then op_free; on a refusal prints `CMD: REASON` on stderr. SS_EXIT_OK or
 * SS_EXIT_BADINPUT. */
int op_done(struct op_plan *p);

/* The whole plan of a command whose files are all plain files, in one call: in and out are
 * lists of an option and its path (NULL: not given), ended by a NULL option (OP_LIST builds
 * one; NULL for no inputs). op_done's result. */
int op_files(const char *cmd, const char *const *in, const char *const *out);
#define OP_LIST(...) ((const char *const[]){__VA_ARGS__, NULL})

#endif
