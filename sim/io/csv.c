/*
 * csv — RFC 4180 records with the position of every field (see csv.h). One pass over the
 * text, a byte at a time: the tables it reads are measurement files of a few hundred rows.
 */
#include "io/csv.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* A growing field or record under construction. */
struct buf {
    char *s;
    size_t n, cap;
};

static void buf_put(struct buf *b, char c)
{
    if (b->n + 1 >= b->cap)
        b->s = ss_xrealloc(b->s, b->cap = b->cap ? 2 * b->cap : 64);
    b->s[b->n++] = c;
    b->s[b->n] = '\0';
}

static void add_field(struct csv_record *r, int *cap, struct buf *b, int line, int col)
{
    if (r->n == *cap)
        r->f = ss_xrealloc(r->f, (size_t)(*cap = *cap ? 2 * *cap : 8) * sizeof *r->f);
    r->f[r->n].text = b->s ? b->s : ss_xstrdup("");
    r->f[r->n].line = line;
    r->f[r->n].col = col;
    r->n++;
    memset(b, 0, sizeof *b);
}

static void add_record(struct csv_table *t, int *cap, struct csv_record *r)
{
    if (t->n == *cap)
        t->r = ss_xrealloc(t->r, (size_t)(*cap = *cap ? 2 * *cap : 16) * sizeof *t->r);
    t->r[t->n++] = *r;
    memset(r, 0, sizeof *r);
}

static void free_record(struct csv_record *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->f[i].text);
    free(r->f);
}

int csv_parse(const char *text, size_t len, struct csv_table *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct csv_record rec = {0};
    struct buf b = {0};
    int tcap = 0, fcap = 0, line = 1, col = 1, fline = 1, fcol = 1;
    int quoted = 0, closed = 0, at_start = 1; /* at_start: nothing of this field read yet */
    size_t i = 0;
    while (i < len) {
        char c = text[i];
        if (c == '\0') {
            ss_errf(err, errlen, "%d:%d: a NUL byte (not a text file)", line, col);
            goto fail;
        }
        if (quoted && !closed) {
            if (c == '"' && i + 1 < len && text[i + 1] == '"') {
                buf_put(&b, '"');
                i += 2, col += 2;
                continue;
            }
            if (c == '"')
                closed = 1;
            else
                buf_put(&b, c);
            if (c == '\n')
                line++, col = 1;
            else
                col++;
            i++;
            continue;
        }
        int eol = c == '\n' || (c == '\r' && i + 1 < len && text[i + 1] == '\n');
        if (c == ',' || eol) {
            if (rec.n == 0 && at_start && eol && !quoted) {
                /* an empty line: no record (RFC 4180 has none; a trailing one is common) */
            } else {
                if (rec.n == 0)
                    rec.line = fline;
                add_field(&rec, &fcap, &b, fline, fcol);
            }
            i += c == '\r' ? 2 : 1;
            if (eol) {
                if (rec.n)
                    add_record(out, &tcap, &rec);
                fcap = 0;
                line++, col = 1;
            } else {
                col++;
            }
            fline = line, fcol = col;
            quoted = closed = 0, at_start = 1;
            continue;
        }
        if (closed) {
            ss_errf(err, errlen,
                    "%d:%d: text after the closing quote of a field (a quote inside "
                    "a field is written \"\")",
                    line, col);
            goto fail;
        }
        if (c == '"') {
            if (!at_start) {
                ss_errf(err, errlen,
                        "%d:%d: a quote inside an unquoted field (quote the whole field and "
                        "double the quote)",
                        line, col);
                goto fail;
            }
            quoted = 1;
        } else {
            buf_put(&b, c);
        }
        at_start = 0;
        i++, col++;
    }
    if (quoted && !closed) {
        ss_errf(err, errlen, "%d:%d: the quoted field opened here is never closed", fline, fcol);
        goto fail;
    }
    if (!at_start || rec.n) {
        if (rec.n == 0)
            rec.line = fline;
        add_field(&rec, &fcap, &b, fline, fcol);
        add_record(out, &tcap, &rec);
    }
    return 0;
fail:
    free(b.s);
    free_record(&rec);
    csv_free(out);
    return -1;
}

void csv_free(struct csv_table *t)
{
    for (int i = 0; i < t->n; i++)
        free_record(&t->r[i]);
    free(t->r);
    memset(t, 0, sizeof *t);
}
