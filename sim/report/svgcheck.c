/*
 * svgcheck — the page reader of svgcheck.h. It knows only the few shapes svg.c writes: a
 * figure is <svg class="figure …">, a panel inside it <g class="panel" data-latency="0|1"
 * data-title="…">, a series <polyline class="series" data-label="…" points="x,y x,y …"/>
 * (data-points-only="1" for markers only), an SLA an element of class "sla", and "no SLA" is
 * said in the panel's text.
 *
 * One forward pass over the tags, with no stack (depth counters only), so deep nesting costs
 * nothing; every search is bounded by the end of the text, so no construct is scanned twice.
 * A page cut anywhere inside a figure, a tag, a comment or before </html> is refused rather
 * than checked in part, and so is any coordinate that is not a plain finite number: a NaN
 * point is at no distance from anything, so it would neither hide nor be hidden and the
 * check would pass on a figure the browser cannot draw.
 */
#include "report/svgcheck.h"
#include "base/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { A_CLASS, A_ID, A_LABEL, A_TITLE, A_LATENCY, A_POINTS_ONLY, A_POINTS, N_ATTR };
static const char *const attr_names[N_ATTR] = {
    "class", "id", "data-label", "data-title", "data-latency", "data-points-only", "points",
};

/* The attributes of one tag that matter here, pointing into the text (NULL: absent). */
struct attrs {
    const char *v[N_ATTR];
    size_t len[N_ATTR];
};

struct series {
    char label[128];
    int n, cap, points_only;
    double *x, *y;
};

struct reader {
    const char *text, *end, *at; /* at: the construct being read, for the line number */
    struct svc_report *r;
    int in_figure, svg_depth, html_open, html_closed;
    char fig[80];
    int in_panel, g_depth, panel_svg_depth, latency, has_sla, says_none;
    char title[200];
    struct series s[SVC_MAX_SERIES];
    int n_series;
    long long panel_points;
};

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* The first needle in [p, end), or NULL. */
static const char *find(const char *p, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    for (; (size_t)(end - p) >= n; p++) {
        p = memchr(p, needle[0], (size_t)(end - p) - n + 1);
        if (!p)
            return NULL;
        if (memcmp(p, needle, n) == 0)
            return p;
    }
    return NULL;
}

/* A copy of [s, s + n) for a message: cut to the buffer, control bytes shown as '?' so a
 * page cannot write to the terminal through the checker. */
static void shown(char *buf, size_t cap, const char *s, size_t n)
{
    size_t k = 0;
    for (; k < n && k + 1 < cap; k++) {
        unsigned char c = (unsigned char)s[k];
        buf[k] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    buf[k] = '\0';
}

/* Where the reader is: figure, panel. */
static void where(const struct reader *rd, char *buf, size_t n)
{
    int len = !rd->in_figure ? snprintf(buf, n, "%s", "")
              : rd->fig[0]   ? snprintf(buf, n, "figure \"%s\"", rd->fig)
                             : snprintf(buf, n, "a figure without id");
    if (rd->in_panel && len >= 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, "%spanel \"%s\"", len ? ", " : "", rd->title);
}

/* Records why the page cannot be checked (the first reason only); returns -1. */
static int fail(struct reader *rd, const char *fmt, ...)
{
    struct svc_report *r = rd->r;
    if (r->error[0])
        return -1;
    long line = 1;
    for (const char *p = rd->text; (p = memchr(p, '\n', (size_t)(rd->at - p))); p++)
        line++;
    char ctx[320], what[400];
    where(rd, ctx, sizeof ctx);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->error, sizeof r->error, "line %ld%s%s: %s", line, ctx[0] ? ", " : "", ctx, what);
    return -1;
}

static void problem(struct svc_report *r, const char *fmt, const char *a, const char *b)
{
    if (!r->first[0])
        snprintf(r->first, sizeof r->first, fmt, a, b);
}

/* Does the class attribute hold the token? */
static int has_class(const struct attrs *a, const char *token)
{
    size_t tl = strlen(token);
    const char *p = a->v[A_CLASS], *e = p ? p + a->len[A_CLASS] : NULL;
    while (p && p < e) {
        while (p < e && is_ws(*p))
            p++;
        const char *q = p;
        while (q < e && !is_ws(*q))
            q++;
        if ((size_t)(q - p) == tl && memcmp(p, token, tl) == 0)
            return 1;
        p = q;
    }
    return 0;
}

static int attr_is(const struct attrs *a, int which, const char *value)
{
    return a->v[which] && a->len[which] == strlen(value) &&
           memcmp(a->v[which], value, a->len[which]) == 0;
}

static void free_series(struct reader *rd)
{
    for (int i = 0; i < rd->n_series; i++) {
        free(rd->s[i].x);
        free(rd->s[i].y);
    }
    rd->n_series = 0;
}

/* One coordinate: a plain SVG number ([+-]digits[.digits][e[+-]digits]), finite and within
 * SVC_MAX_COORD; *q moves past it. */
static int coordinate(struct reader *rd, const struct series *s, int index, const char **q,
                      const char *e, double *out)
{
    const char *p = *q, *t = p;
    int digits = 0;
    if (t < e && (*t == '+' || *t == '-'))
        t++;
    for (; t < e && *t >= '0' && *t <= '9'; t++)
        digits++;
    if (t < e && *t == '.')
        for (t++; t < e && *t >= '0' && *t <= '9'; t++)
            digits++;
    if (digits && t < e && (*t == 'e' || *t == 'E')) {
        const char *x = t + 1;
        if (x < e && (*x == '+' || *x == '-'))
            x++;
        if (x < e && *x >= '0' && *x <= '9') {
            while (x < e && *x >= '0' && *x <= '9')
                x++;
            t = x;
        }
    }
    const char *tok_end = t;
    while (tok_end < e && !is_ws(*tok_end) && *tok_end != ',')
        tok_end++;
    char tok[SVC_MAX_NUMBER_CHARS + 1];
    shown(tok, 24, p, (size_t)(tok_end - p));
    const char *xy = index % 2 ? "y" : "x";
    if (!digits || t != tok_end)
        return fail(rd, "curve \"%s\": %s of point %d is \"%s\", not a finite number", s->label, xy,
                    index / 2 + 1, tok);
    if (t - p > SVC_MAX_NUMBER_CHARS)
        return fail(rd, "curve \"%s\": %s of point %d has more than %d characters", s->label, xy,
                    index / 2 + 1, SVC_MAX_NUMBER_CHARS);
    memcpy(tok, p, (size_t)(t - p));
    tok[t - p] = '\0';
    double v = strtod(tok, NULL);
    if (!isfinite(v))
        return fail(rd, "curve \"%s\": %s of point %d is \"%.24s\", not a finite number", s->label,
                    xy, index / 2 + 1, tok);
    if (fabs(v) > SVC_MAX_COORD)
        return fail(rd, "curve \"%s\": %s of point %d is %g pixels, beyond the limit of ±%g",
                    s->label, xy, index / 2 + 1, v, SVC_MAX_COORD);
    *out = v;
    *q = t;
    return 0;
}

/* "x,y x,y …" (any mix of spaces and commas between numbers, as SVG allows) into s. */
static int parse_points(struct reader *rd, struct series *s, const char *p, size_t len)
{
    const char *e = p + len;
    int index = 0;
    double x = 0;
    for (;;) {
        while (p < e && (is_ws(*p) || *p == ','))
            p++;
        if (p >= e)
            break;
        double v = 0;
        if (coordinate(rd, s, index, &p, e, &v))
            return -1;
        if (index++ % 2 == 0) {
            x = v;
            continue;
        }
        if (++rd->panel_points > SVC_MAX_PANEL_POINTS)
            return fail(rd, "the panel's curves have more than %d points", SVC_MAX_PANEL_POINTS);
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 64;
            s->x = ss_xrealloc(s->x, (size_t)s->cap * sizeof *s->x);
            s->y = ss_xrealloc(s->y, (size_t)s->cap * sizeof *s->y);
        }
        s->x[s->n] = x;
        s->y[s->n++] = v;
    }
    if (index % 2)
        return fail(rd, "curve \"%s\": its points hold an odd number of coordinates (%d)", s->label,
                    index);
    return 0;
}

static int add_series(struct reader *rd, const struct attrs *a)
{
    if (rd->n_series == SVC_MAX_SERIES)
        return fail(rd, "the panel has more than %d curves", SVC_MAX_SERIES);
    struct series *s = &rd->s[rd->n_series++];
    memset(s, 0, sizeof *s);
    if (a->v[A_LABEL])
        shown(s->label, 121, a->v[A_LABEL], a->len[A_LABEL]);
    s->points_only = attr_is(a, A_POINTS_ONLY, "1");
    return a->v[A_POINTS] ? parse_points(rd, s, a->v[A_POINTS], a->len[A_POINTS]) : 0;
}

static void open_panel(struct reader *rd, const struct attrs *a)
{
    rd->in_panel = 1;
    rd->g_depth = 1;
    rd->panel_svg_depth = rd->svg_depth;
    rd->latency = attr_is(a, A_LATENCY, "1");
    rd->has_sla = rd->says_none = 0;
    rd->title[0] = '\0';
    if (a->v[A_TITLE])
        shown(rd->title, sizeof rd->title, a->v[A_TITLE], a->len[A_TITLE]);
    rd->n_series = 0;
    rd->panel_points = 0;
}

/* The panel is read: its promises, after the work it needs is known to be within bounds. */
static int close_panel(struct reader *rd)
{
    struct svc_report *r = rd->r;
    r->panels++;
    r->series += rd->n_series;
    r->points += rd->panel_points;
    if (rd->latency) {
        r->latency_panels++;
        if (!rd->has_sla && !rd->says_none) {
            r->sla_missing++;
            problem(r, "latency panel \"%.200s\" has no SLA line%.1s", rd->title, "");
        }
    }
    long long later = rd->panel_points;
    for (int i = 0; i < rd->n_series; i++) {
        later -= rd->s[i].n;
        r->pairs += (long long)rd->s[i].n * later;
        if (r->pairs > SVC_MAX_PAIRS)
            return fail(rd,
                        "its curves need %lld point comparisons so far (each curve's points × "
                        "the points of the curves drawn after it, summed over the page), more "
                        "than the limit of %lld",
                        r->pairs, SVC_MAX_PAIRS);
    }
    struct svc_line by[SVC_MAX_SERIES];
    for (int i = 0; i < rd->n_series; i++) {
        const struct series *s = &rd->s[i];
        struct svc_line a = {s->n, s->x, s->y, s->points_only};
        int nb = 0;
        for (int j = i + 1; j < rd->n_series; j++)
            by[nb++] = (struct svc_line){rd->s[j].n, rd->s[j].x, rd->s[j].y, rd->s[j].points_only};
        if (svc_covered_work(&a, by, nb, 1.0, &r->work)) {
            r->hidden++;
            problem(r, "panel \"%.200s\": the curve \"%.120s\" is hidden by curves drawn after it",
                    rd->title, s->label);
        }
    }
    free_series(rd);
    rd->in_panel = 0;
    return 0;
}

/* An opening tag (name, its attributes) in the page. */
static int open_element(struct reader *rd, const char *name, size_t nl, const struct attrs *a,
                        int self_closing)
{
#define IS(lit) (nl == sizeof lit - 1 && memcmp(name, lit, nl) == 0)
    if (IS("html"))
        rd->html_open = 1;
    if (IS("svg")) {
        if (rd->in_figure) {
            rd->svg_depth += !self_closing;
        } else if (has_class(a, "figure")) {
            if (rd->in_panel)
                return fail(rd, "a figure inside a panel (not what svg.c writes)");
            rd->r->figures++;
            rd->in_figure = !self_closing;
            rd->svg_depth = 1;
            shown(rd->fig, 64, a->v[A_ID] ? a->v[A_ID] : "", a->v[A_ID] ? a->len[A_ID] : 0);
        }
    }
    if (IS("g")) {
        if (rd->in_panel) {
            if (has_class(a, "panel"))
                return fail(rd, "a panel inside a panel (not what svg.c writes)");
            rd->g_depth += !self_closing;
        } else if (has_class(a, "panel")) {
            open_panel(rd, a);
            if (self_closing)
                return close_panel(rd);
        }
    }
    if (!rd->in_panel)
        return 0;
    if (has_class(a, "sla"))
        rd->has_sla = 1;
    if (IS("polyline") && has_class(a, "series"))
        return add_series(rd, a);
    return 0;
#undef IS
}

static int close_element(struct reader *rd, const char *name, size_t nl)
{
    if (nl == 4 && memcmp(name, "html", 4) == 0)
        rd->html_closed = 1;
    if (nl == 1 && name[0] == 'g' && rd->in_panel && --rd->g_depth == 0)
        return close_panel(rd);
    if (nl == 3 && memcmp(name, "svg", 3) == 0 && rd->in_figure) {
        if (rd->in_panel && rd->svg_depth == rd->panel_svg_depth)
            return fail(rd, "the figure closes inside the panel (no </g>)");
        if (--rd->svg_depth == 0) {
            rd->in_figure = 0;
            rd->fig[0] = '\0';
        }
    }
    return 0;
}

static size_t name_len(const char *p, const char *end)
{
    const char *q = p;
    while (q < end && (*q == '-' || *q == ':' || *q == '_' || (*q >= '0' && *q <= '9') ||
                       ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z')))
        q++;
    return (size_t)(q - p);
}

/* One attribute at *q (name[=value]); records it when it is one of attr_names. */
static int attribute(struct reader *rd, const char **q, const char *tag, size_t tl, struct attrs *a)
{
    const char *p = *q, *end = rd->end, *an = p;
    while (p < end && !is_ws(*p) && *p != '=' && *p != '>' && *p != '/')
        p++;
    if (p == an) /* a stray '=' where a name should be: skip it */
        p++;
    size_t al = (size_t)(p - an);
    const char *v = "";
    size_t vl = 0;
    while (p < end && is_ws(*p))
        p++;
    if (p < end && *p == '=') {
        for (p++; p < end && is_ws(*p);)
            p++;
        if (p < end && (*p == '"' || *p == '\'')) {
            const char *close = memchr(p + 1, *p, (size_t)(end - p - 1));
            if (!close) {
                char name[41];
                shown(name, sizeof name, an, al);
                return fail(rd, "the file ends inside the value of %s= of a <%.*s> tag: it is cut",
                            name, (int)tl, tag);
            }
            v = p + 1;
            vl = (size_t)(close - v);
            p = close + 1;
        } else {
            for (v = p; p < end && !is_ws(*p) && *p != '>';)
                p++;
            vl = (size_t)(p - v);
        }
    }
    for (int k = 0; k < N_ATTR; k++)
        if (!a->v[k] && al == strlen(attr_names[k]) && memcmp(an, attr_names[k], al) == 0) {
            a->v[k] = v;
            a->len[k] = vl;
        }
    *q = p;
    return 0;
}

/* <name attr…> or <name …/> at *pp; *pp moves past it (and past a <style> or <script>
 * element's raw text). */
static int open_tag(struct reader *rd, const char **pp)
{
    const char *name = *pp + 1, *end = rd->end;
    size_t nl = name_len(name, end);
    const char *q = name + nl;
    struct attrs a;
    memset(&a, 0, sizeof a);
    int self_closing = 0;
    int tl = (int)(nl < 40 ? nl : 40);
    for (;;) {
        while (q < end && is_ws(*q))
            q++;
        if (q >= end)
            return fail(rd, "the file ends inside a <%.*s> tag: it is cut", tl, name);
        if (*q == '>') {
            q++;
            break;
        }
        if (*q == '/') {
            if (q + 1 < end && q[1] == '>') {
                self_closing = 1;
                q += 2;
                break;
            }
            q++;
            continue;
        }
        if (attribute(rd, &q, name, nl, &a))
            return -1;
    }
    static const char *const raw[][2] = {{"style", "</style"}, {"script", "</script"}};
    for (size_t k = 0; k < sizeof raw / sizeof raw[0] && !self_closing; k++)
        if (nl == strlen(raw[k][0]) && memcmp(name, raw[k][0], nl) == 0) {
            const char *close = find(q, end, raw[k][1]);
            if (!close)
                return fail(rd, "the file ends inside a <%s> element: it is cut", raw[k][0]);
            q = close;
        }
    *pp = q;
    return open_element(rd, name, nl, &a, self_closing);
}

/* The markup at *pp (which is at a '<'): a comment, a declaration, a closing or an opening
 * tag, or a '<' that starts none of them (text). */
static int markup(struct reader *rd, const char **pp)
{
    const char *p = *pp, *end = rd->end, *q;
    rd->at = p;
    size_t left = (size_t)(end - p);
    if (left >= 4 && memcmp(p, "<!--", 4) == 0) {
        if (!(q = find(p + 4, end, "-->")))
            return fail(rd, "the file ends inside a comment: it is cut");
        *pp = q + 3;
        return 0;
    }
    if (left >= 2 && (p[1] == '!' || p[1] == '?')) {
        if (!(q = memchr(p, '>', left)))
            return fail(rd, "the file ends inside a <%c declaration: it is cut", p[1]);
        *pp = q + 1;
        return 0;
    }
    if (left >= 2 && p[1] == '/') {
        size_t nl = name_len(p + 2, end);
        if (!(q = memchr(p, '>', left)))
            return fail(rd, "the file ends inside the closing tag </%.*s: it is cut",
                        (int)(nl < 40 ? nl : 40), p + 2);
        *pp = q + 1;
        return close_element(rd, p + 2, nl);
    }
    if (left >= 2 && ((p[1] | 0x20) >= 'a' && (p[1] | 0x20) <= 'z'))
        return open_tag(rd, pp);
    *pp = p + 1;
    return 0;
}

static int read_page(struct reader *rd)
{
    const char *p = rd->text, *end = rd->end;
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        const char *stop = lt ? lt : end;
        if (rd->in_panel && !rd->says_none && find(p, stop, "no SLA"))
            rd->says_none = 1;
        if (!lt)
            break;
        p = lt;
        if (markup(rd, &p))
            return -1;
    }
    rd->at = end;
    if (rd->in_panel)
        return fail(rd, "the file ends inside the panel (no </g>): it is cut");
    if (rd->in_figure)
        return fail(rd, "the file ends inside the figure (no </svg>): it is cut");
    if (rd->html_open && !rd->html_closed)
        return fail(rd, "the page ends before </html>: it is cut");
    return 0;
}

int svc_check_mem(const char *text, size_t len, struct svc_report *r)
{
    memset(r, 0, sizeof *r);
    struct reader *rd = ss_xcalloc(1, sizeof *rd);
    rd->text = rd->at = text;
    rd->end = text + len;
    rd->r = r;
    int rc = read_page(rd);
    free_series(rd);
    free(rd);
    return rc ? -1 : r->hidden + r->sla_missing;
}

int svc_check_text(const char *text, struct svc_report *r)
{
    return svc_check_mem(text, strlen(text), r);
}
