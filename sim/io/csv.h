/*
 * csv — an RFC 4180 reader for small tables held in memory: records of fields separated by
 * commas, ended by CRLF or LF; a field in double quotes may hold commas, line breaks and
 * doubled quotes (""). Every field keeps the line and column (1-based, in bytes) where it
 * starts, so a caller's message can point at it as file:line:col.
 *
 * Invariants: a quote inside an unquoted field, text after a closing quote, and a quote left
 * open at the end of the text are errors (with their position), never a guess; an empty last
 * line adds no record; fields are NUL-terminated copies (no quotes, "" turned into ").
 */
#ifndef SS_CSV_H
#define SS_CSV_H

#include <stddef.h>

struct csv_field {
    char *text;
    int line, col;
};

struct csv_record {
    struct csv_field *f;
    int n;
    int line; /* where the record starts */
};

struct csv_table {
    struct csv_record *r;
    int n;
};

/* Parses text (len bytes; NUL bytes are refused). 0, or -1 with "LINE:COL: what" in err. */
int csv_parse(const char *text, size_t len, struct csv_table *out, char *err, size_t errlen);
void csv_free(struct csv_table *t);

#endif
