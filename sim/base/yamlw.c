/*
 * yamlw — libyaml's emitter behind a few calls (see yamlw.h). Events are built and emitted
 * one by one; the first failure is kept and later calls do nothing, so a document is either
 * complete or reported.
 */
#include "base/yamlw.h"
#include "base/name.h"
#include "base/util.h"

#include <ctype.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

/* The one sink of both the emitter and yw_comment, so that what each writes comes out in the
 * order it was written. */
static int to_output(void *data, unsigned char *buffer, size_t size)
{
    struct yw *w = data;
    if (w->fp)
        return fwrite(buffer, 1, size, w->fp) == size;
    if (w->n + size + 1 > w->cap) {
        w->cap = 2 * (w->n + size + 1);
        w->buf = ss_xrealloc(w->buf, w->cap);
    }
    memcpy(w->buf + w->n, buffer, size);
    w->n += size;
    w->buf[w->n] = '\0';
    return 1;
}

static void emit(struct yw *w, yaml_event_t *ev, int made)
{
    if (w->failed) {
        if (made)
            yaml_event_delete(ev);
        return;
    }
    if (!made || !yaml_emitter_emit(&w->em, ev)) {
        w->failed = 1;
        snprintf(w->why, sizeof w->why, "%s",
                 w->em.problem ? w->em.problem : "could not build a YAML event");
    }
}

static void start(struct yw *w)
{
    yaml_emitter_set_unicode(&w->em, 1);
    yaml_emitter_set_width(&w->em, 100);
    yaml_emitter_set_indent(&w->em, 2);
    yaml_event_t ev;
    emit(w, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
}

void yw_open_file(struct yw *w, FILE *fp)
{
    memset(w, 0, sizeof *w);
    yaml_emitter_initialize(&w->em);
    w->fp = fp;
    yaml_emitter_set_output(&w->em, to_output, w);
    start(w);
}

void yw_open_string(struct yw *w)
{
    memset(w, 0, sizeof *w);
    yaml_emitter_initialize(&w->em);
    yaml_emitter_set_output(&w->em, to_output, w);
    start(w);
}

int yw_close(struct yw *w, char **out, char *err, size_t errlen)
{
    yaml_event_t ev;
    emit(w, &ev, yaml_stream_end_event_initialize(&ev));
    if (!w->failed && !yaml_emitter_flush(&w->em)) {
        w->failed = 1;
        snprintf(w->why, sizeof w->why, "could not write the YAML output");
    }
    yaml_emitter_delete(&w->em);
    if (w->failed) {
        free(w->buf);
        return ss_errf(err, errlen, "YAML: %s", w->why);
    }
    if (out)
        *out = w->buf ? w->buf : ss_xstrdup("");
    else
        free(w->buf);
    return 0;
}

/* Whether code point cp may stand in a comment as it is: printable for YAML (1.1 and 1.2) and
 * not a line break. Tabs are left out too: a comment needs none. */
static int comment_safe(long cp)
{
    if (cp >= 0x20 && cp <= 0x7E)
        return 1;
    if (cp >= 0xA0 && cp <= 0xD7FF)
        return cp != 0x2028 && cp != 0x2029;
    if (cp >= 0xE000 && cp <= 0xFFFD)
        return cp != 0xFEFF;
    return cp >= 0x10000 && cp <= 0x10FFFF && (cp & 0xFFFE) != 0xFFFE;
}

void yw_comment(struct yw *w, const char *text)
{
    if (w->failed)
        return;
    if (w->docs > 0) {
        w->failed = 1;
        snprintf(w->why, sizeof w->why, "a comment after the first document");
        return;
    }
    if (!yaml_emitter_flush(&w->em)) { /* the stream start, if libyaml kept it back */
        w->failed = 1;
        snprintf(w->why, sizeof w->why, "could not write the YAML output");
        return;
    }
    size_t n = strlen(text), k = 2;
    unsigned char *line = ss_xmalloc(4 * n + 4);
    memcpy(line, "# ", 2);
    for (size_t i = 0; i < n;) {
        int len;
        long cp = name_utf8_next((const unsigned char *)text + i, n - i, &len);
        if (cp >= 0 && comment_safe(cp)) {
            memcpy(line + k, text + i, (size_t)len);
            k += (size_t)len;
        } else {
            line[k++] = '?';
        }
        i += (size_t)len;
    }
    line[k++] = '\n';
    if (!to_output(w, line, k)) {
        w->failed = 1;
        snprintf(w->why, sizeof w->why, "could not write the YAML output");
    }
    free(line);
}

void yw_doc_begin(struct yw *w)
{
    yaml_event_t ev;
    w->docs++;
    /* Explicit "---" only between documents: a single document reads as usual. */
    emit(w, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
}

void yw_doc_end(struct yw *w)
{
    yaml_event_t ev;
    emit(w, &ev, yaml_document_end_event_initialize(&ev, 1));
}

void yw_map_begin(struct yw *w)
{
    yaml_event_t ev;
    emit(w, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE));
}

void yw_map_end(struct yw *w)
{
    yaml_event_t ev;
    emit(w, &ev, yaml_mapping_end_event_initialize(&ev));
}

void yw_seq_begin(struct yw *w, int flow)
{
    yaml_event_t ev;
    emit(w, &ev,
         yaml_sequence_start_event_initialize(
             &ev, NULL, NULL, 1, flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
}

void yw_seq_end(struct yw *w)
{
    yaml_event_t ev;
    emit(w, &ev, yaml_sequence_end_event_initialize(&ev));
}

static void scalar(struct yw *w, const char *s, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    emit(w, &ev,
         yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
                                      style));
}

/* Whether a plain scalar s would be resolved as something other than a string by a YAML
 * 1.1 reader (Kubernetes' and the device plugin's Go readers): a number, a boolean or a
 * null, in any of the spellings those readers accept. libyaml's emitter leaves that to the
 * caller: it quotes only what is not valid plain syntax. */
static int resolves_to_non_string(const char *s)
{
    static const char *const words[] = {"y",   "yes",  "n", "no",   "true",  "false", "on",
                                        "off", "null", "~", ".inf", "-.inf", ".nan",  NULL};
    if (!s[0])
        return 1;
    for (int i = 0; words[i]; i++)
        if (strcasecmp(s, words[i]) == 0)
            return 1;
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    int digits = 0;
    for (; *p; p++) {
        if (isdigit((unsigned char)*p))
            digits++;
        else if (!strchr("._eExXoObB:", *p) && !isxdigit((unsigned char)*p))
            return 0; /* a letter no number has: a string */
    }
    return digits > 0;
}

void yw_str(struct yw *w, const char *s)
{
    scalar(w, s,
           resolves_to_non_string(s) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
}

void yw_literal(struct yw *w, const char *s)
{
    scalar(w, s, YAML_LITERAL_SCALAR_STYLE);
}

void yw_int(struct yw *w, long v)
{
    char b[32];
    snprintf(b, sizeof b, "%ld", v);
    scalar(w, b, YAML_PLAIN_SCALAR_STYLE);
}

void yw_bool(struct yw *w, int v)
{
    scalar(w, v ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
}

void yw_kv_str(struct yw *w, const char *key, const char *val)
{
    yw_str(w, key);
    yw_str(w, val);
}

void yw_kv_int(struct yw *w, const char *key, long v)
{
    yw_str(w, key);
    yw_int(w, v);
}

void yw_kv_bool(struct yw *w, const char *key, int v)
{
    yw_str(w, key);
    yw_bool(w, v);
}
