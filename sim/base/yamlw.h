/*
 * yamlw — YAML documents written through libyaml's emitter (prefix yw_). The Kubernetes
 * artefacts of `sharesim plan --k8s` are read by other programs (kubectl, the device
 * plugin, mig-manager), so their quoting and block styles are left to a YAML library
 * rather than to printf: a string that a YAML reader would take for a number or a boolean
 * ("1", "true") is double-quoted, a multi-line value is a literal block.
 *
 * A writer emits one stream, to a FILE or to a string (a document embedded in another, as
 * a device plugin config inside its ConfigMap). Calls are made in document order:
 * yw_doc_begin, then maps, sequences and scalars, yw_doc_end, ... yw_close. Any libyaml
 * error is remembered and reported by yw_close, so callers need not test every call.
 *
 * Comments: libyaml's emitter has no comment event, so yw_comment writes them itself, and
 * only where they cannot disturb the emitter's state: before the first document. A comment
 * holds text, never structure: every character that YAML reads as a line break (LF, CR, NEL,
 * U+2028, U+2029), every control character, a byte order mark or noncharacter, and every
 * byte that is not valid UTF-8 is written as '?', so no data put in a comment can end it
 * and start a key. Data that a reader needs belongs in a scalar (an annotation), not there.
 */
#ifndef SS_YAMLW_H
#define SS_YAMLW_H

#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

struct yw {
    yaml_emitter_t em;
    int failed;
    int docs; /* documents begun: comments only before the first */
    char why[200];
    FILE *fp; /* file output, or NULL for a string */
    /* string output */
    char *buf;
    size_t n, cap;
};

/* A writer to fp (not closed by yw_close), or to a string (yw_close hands it over). */
void yw_open_file(struct yw *w, FILE *fp);
void yw_open_string(struct yw *w);
/* Ends the stream. 0, or -1 with libyaml's message in err. For a string writer, *out (when
 * out is not NULL) receives the text, to be freed by the caller. */
int yw_close(struct yw *w, char **out, char *err, size_t errlen);

/* A comment line "# text" (text made safe as above), only before the first yw_doc_begin; a
 * later call fails the writer. */
void yw_comment(struct yw *w, const char *text);

void yw_doc_begin(struct yw *w);
void yw_doc_end(struct yw *w);
void yw_map_begin(struct yw *w);
void yw_map_end(struct yw *w);
/* flow: [a, b] on one line (mig-parted's `devices: [0]`), otherwise one item a line. */
void yw_seq_begin(struct yw *w, int flow);
void yw_seq_end(struct yw *w);

/* A string: plain when a YAML 1.1 reader takes it back as that string, else double-quoted. */
void yw_str(struct yw *w, const char *s);
/* A string as a literal block (|-): text files carried inside a ConfigMap. */
void yw_literal(struct yw *w, const char *s);
void yw_int(struct yw *w, long v);
void yw_bool(struct yw *w, int v);

/* key: value in the current mapping. */
void yw_kv_str(struct yw *w, const char *key, const char *val);
void yw_kv_int(struct yw *w, const char *key, long v);
void yw_kv_bool(struct yw *w, const char *key, int v);

#endif
