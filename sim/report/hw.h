/*
 * hw — the one HTML writer of the report pages (and of the SVG figures in them). Data can
 * only reach a page escaped; markup can only come from string literals in the source:
 *
 *   hw_text(w, s)               text or an attribute value: &, <, > and " escaped
 *   hw_textf(w, fmt, …)         the formatted text, all of it escaped
 *   hw_md(w, s)                 inline Markdown (**bold**, `code`): those two tags, the rest
 *                               escaped
 *   HW_MARK(w, "<p>")           markup: the argument must be a string literal (the macro
 *                               pastes it between "" and "", which nothing else survives)
 *   HW_MARK2(w, c, "<a>", "<b>") one of two literals
 *   HW_WRAP(w, "<b>", s, "</b>") text s escaped between two literals
 *   HW_MDWRAP(w, "<p>", s, "</p>") inline Markdown s between two literals
 *   HW_WRAPF(w, s, "</b>", "<b id=\"%d\">", k)
 *                               the same, opened by a literal format of markup
 *   HW_MARKF(w, "<td class=\"%s\">%.1f", cls, v)
 *                               a literal format of markup; numbers are printed as printf
 *                               does, and every string argument (%s, %c) is escaped
 *   hw_splice(w, part)          what another writer wrote (a figure drawn in memory)
 *
 * Nothing else writes to the stream: the page files (html.c, ht*.c, svg.c) never see it
 * (tests/test_html_escape.c checks that they call no stdio output function). Attribute
 * values are always in double quotes, so escaping " suffices there; ' is left as it is.
 *
 * Module prefix: hw_.
 */
#ifndef SS_HW_H
#define SS_HW_H

#include <stddef.h>
#include <stdio.h>

struct hw {
    FILE *hw_out_; /* only hw.c touches it */
    char *hw_buf_; /* a memory writer's bytes (hw_mem_open) */
    size_t hw_len_;
};

/* A writer onto an open stream (the page's file). */
void hw_init(struct hw *w, FILE *fp);
/* A writer into memory, for a part written once and spliced into several writers. 0, or -1
 * when out of memory. */
int hw_mem_open(struct hw *w);
/* Closes a memory writer so that hw_splice can copy it; then hw_mem_free. */
void hw_mem_close(struct hw *w);
void hw_mem_free(struct hw *w);
/* Copies what the closed memory writer part wrote. */
void hw_splice(struct hw *w, const struct hw *part);

void hw_text(struct hw *w, const char *s);
void hw_textf(struct hw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hw_md(struct hw *w, const char *s);

/* The trusted side: call only through the macros, which accept only string literals. */
void hw_trusted_(struct hw *w, const char *literal);
void hw_trusted_f_(struct hw *w, const char *literal_fmt, ...)
    __attribute__((format(printf, 2, 3)));
#define HW_MARK(w, lit) hw_trusted_((w), "" lit "")
#define HW_MARK2(w, cond, a, b) hw_trusted_((w), (cond) ? "" a "" : "" b "")
#define HW_WRAP(w, a, s, b) (HW_MARK(w, a), hw_text((w), (s)), HW_MARK(w, b))
#define HW_MDWRAP(w, a, s, b) (HW_MARK(w, a), hw_md((w), (s)), HW_MARK(w, b))
#define HW_MARKF(w, lit, ...) hw_trusted_f_((w), "" lit "", __VA_ARGS__)
#define HW_WRAPF(w, s, b, lit, ...)                                                                \
    (HW_MARKF(w, lit, __VA_ARGS__), hw_text((w), (s)), HW_MARK(w, b))

#endif
