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
#include "tools/svgcheck.h"
#include "base/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    A_CLASS,
    A_ID,
    A_LABEL,
    A_TITLE,
    A_LATENCY,
    A_POINTS_ONLY,
    A_POINTS,
    A_X,
    A_Y,
    A_ANCHOR,
    A_SIZE,
    A_WEIGHT,
    A_STROKE,
    A_DASH,
    A_SHAPE,
    A_TENANT,
    A_LLM,
    A_METRIC,
    A_XUNIT,
    A_YUNIT,
    A_AXIS,
    N_ATTR
};
static const char *const attr_names[N_ATTR] = {
    "class",
    "id",
    "data-label",
    "data-title",
    "data-latency",
    "data-points-only",
    "points",
    "x",
    "y",
    "text-anchor",
    "font-size",
    "font-weight",
    "stroke",
    "stroke-dasharray",
    "data-shape",
    "data-tenant",
    "data-llm",
    "data-metric",
    "data-xunit",
    "data-yunit",
    "data-axis",
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
    int has_colour;
    unsigned colour; /* 0xRRGGBB of its line or, when it has them, of its markers */
    char shape[16];  /* its markers' data-shape, "" without markers */
    char dash[24];
};

/* A label inside a panel: its box and the start of its text, for the message. */
struct label {
    struct svc_box b;
    char text[48];
};

/* A curve of the figure, by label (the first name of a merged "a = b"). */
struct fig_curve {
    char key[128];
    unsigned colour;
    char shape[16], dash[24];
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
    /* the panel's kind (data-*): whose latency, of what, the units of its axes */
    char tenant[80], metric[40], xunit[24], yunit[24];
    int llm;
    /* the <text> being read inside the panel */
    int in_text, text_label, text_offscale;
    char text_axis;
    double tx, ty, tsize;
    enum svc_anchor tanchor;
    int tbold;
    char txt[256];
    size_t txt_len;
    int txt_chars;
    struct label labels[SVC_MAX_LABELS];
    int n_labels, n_offscale;
    /* the figure: its curves' styles, and whether every panel so far holds only one merged
     * curve, the same one */
    struct fig_curve *fc;
    int n_fc, fc_cap, fig_panels, fig_same;
    char fig_label[128];
    /* the page */
    int page_verdict, first_is_verdict;
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

static void problemf(struct svc_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void problemf(struct svc_report *r, const char *fmt, ...)
{
    if (r->first[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->first, sizeof r->first, fmt, ap);
    va_end(ap);
}

/* A bounded copy of an attribute's value as a number; NAN when it is none. */
static double attr_num(const struct attrs *a, int which)
{
    char buf[40];
    if (!a->v[which] || a->len[which] == 0 || a->len[which] >= sizeof buf)
        return NAN;
    memcpy(buf, a->v[which], a->len[which]);
    buf[a->len[which]] = '\0';
    char *end;
    double v = strtod(buf, &end);
    return end != buf && isfinite(v) ? v : NAN;
}

static void attr_copy(const struct attrs *a, int which, char *buf, size_t cap)
{
    shown(buf, cap, a->v[which] ? a->v[which] : "", a->v[which] ? a->len[which] : 0);
}

/* "#RRGGBB" into 0xRRGGBB; 0 when it is not one. */
static int colour_of(const struct attrs *a, int which, unsigned *out)
{
    const char *v = a->v[which];
    if (!v || a->len[which] != 7 || v[0] != '#')
        return 0;
    unsigned c = 0;
    for (int k = 1; k < 7; k++) {
        char h = v[k];
        int d = h >= '0' && h <= '9'   ? h - '0'
                : h >= 'a' && h <= 'f' ? h - 'a' + 10
                : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                       : -1;
        if (d < 0)
            return 0;
        c = c << 4 | (unsigned)d;
    }
    *out = c;
    return 1;
}

static double colour_dist(unsigned a, unsigned b)
{
    double dr = (double)(a >> 16 & 255) - (double)(b >> 16 & 255);
    double dg = (double)(a >> 8 & 255) - (double)(b >> 8 & 255);
    double db = (double)(a & 255) - (double)(b & 255);
    return sqrt(dr * dr + dg * dg + db * db);
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
    s->has_colour = colour_of(a, A_STROKE, &s->colour);
    attr_copy(a, A_DASH, s->dash, sizeof s->dash);
    return a->v[A_POINTS] ? parse_points(rd, s, a->v[A_POINTS], a->len[A_POINTS]) : 0;
}

static void open_panel(struct reader *rd, const struct attrs *a)
{
    attr_copy(a, A_TENANT, rd->tenant, sizeof rd->tenant);
    attr_copy(a, A_METRIC, rd->metric, sizeof rd->metric);
    attr_copy(a, A_XUNIT, rd->xunit, sizeof rd->xunit);
    attr_copy(a, A_YUNIT, rd->yunit, sizeof rd->yunit);
    rd->llm = attr_is(a, A_LLM, "1");
    rd->in_text = 0;
    rd->n_labels = rd->n_offscale = 0;
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

/* The panel's curves join the figure's: a label not seen before must not share its marker,
 * in nearly the same colour, with another label's (a line without markers: its dash too). */
static int fig_curves(struct reader *rd)
{
    struct svc_report *r = rd->r;
    for (int i = 0; i < rd->n_series; i++) {
        const struct series *s = &rd->s[i];
        if (!s->has_colour || s->n == 0)
            continue;
        char key[128];
        const char *eq = strstr(s->label, " = ");
        size_t kl = eq ? (size_t)(eq - s->label) : strlen(s->label);
        snprintf(key, sizeof key, "%.*s", (int)kl, s->label);
        int seen = 0;
        for (int q = 0; q < rd->n_fc && !seen; q++)
            seen = strcmp(rd->fc[q].key, key) == 0;
        if (seen)
            continue;
        for (int q = 0; q < rd->n_fc; q++) {
            const struct fig_curve *c = &rd->fc[q];
            if (strcmp(c->shape, s->shape) != 0 ||
                colour_dist(c->colour, s->colour) >= SVC_NEAR_COLOUR)
                continue;
            if (!s->shape[0] && strcmp(c->dash, s->dash) != 0)
                continue;
            r->palette++;
            problemf(r,
                     "figure \"%.60s\": the curves \"%.100s\" and \"%.100s\" share a marker "
                     "(%s) in nearly the same colour (#%06X, #%06X)",
                     rd->fig, c->key, key, s->shape[0] ? s->shape : "none", c->colour, s->colour);
            break;
        }
        if (rd->n_fc == SVC_MAX_FIGURE_CURVES)
            return fail(rd, "the figure has more than %d differently labelled curves",
                        SVC_MAX_FIGURE_CURVES);
        if (rd->n_fc == rd->fc_cap) {
            rd->fc_cap = rd->fc_cap ? 2 * rd->fc_cap : 16;
            rd->fc = ss_xrealloc(rd->fc, (size_t)rd->fc_cap * sizeof *rd->fc);
        }
        struct fig_curve *c = &rd->fc[rd->n_fc++];
        snprintf(c->key, sizeof c->key, "%s", key);
        c->colour = s->colour;
        snprintf(c->shape, sizeof c->shape, "%s", s->shape);
        snprintf(c->dash, sizeof c->dash, "%s", s->dash);
    }
    return 0;
}

/* A figure ends: panels that each hold only the same merged curve say one thing N times. */
static void close_figure(struct reader *rd)
{
    if (rd->fig_panels >= 2 && rd->fig_same) {
        rd->r->same_panels++;
        problemf(rd->r,
                 "figure \"%.60s\": its %d panels each hold only the curve \"%.100s\" (merge "
                 "them, or omit them with a note)",
                 rd->fig, rd->fig_panels, rd->fig_label);
    }
    rd->n_fc = 0;
    rd->fig_panels = 0;
    rd->fig_same = 1;
}

/* An SLA text ("SLA: TTFT p99 ≤ 2 s"): words, not a JSON key; on a line of an axis with a
 * unit, the value in that unit. */
static void sla_text(struct reader *rd)
{
    const char *t = strstr(rd->txt, "SLA:");
    if (!t)
        return;
    static const char le[] = "\xE2\x89\xA4"; /* ≤ */
    const char *op = strstr(t, le);
    const char *end = op ? op : t + strlen(t);
    if (memchr(t, '_', (size_t)(end - t))) {
        rd->r->sla_words++;
        problem(rd->r, "panel \"%.200s\": \"%.120s\" names an SLA by its key, not in words",
                rd->title, rd->txt);
        return;
    }
    const char *axis_unit = rd->text_axis == 'x'   ? rd->xunit
                            : rd->text_axis == 'y' ? rd->yunit
                                                   : "";
    if (!op || !axis_unit[0])
        return;
    const char *p = op + 3;
    while (*p == ' ')
        p++;
    while ((*p >= '0' && *p <= '9') || *p == '.' || *p == ',' || *p == 'e' || *p == '+' ||
           *p == '-')
        p++;
    while (*p == ' ')
        p++;
    size_t ul = strcspn(p, " ;,()");
    if (ul != strlen(axis_unit) || memcmp(p, axis_unit, ul) != 0) {
        rd->r->sla_words++;
        problemf(rd->r, "panel \"%.200s\": \"%.120s\" is not in the unit of its axis (%s)",
                 rd->title, rd->txt, axis_unit);
    }
}

/* A </text> inside a panel: an off-scale label counts, a label must not overlap another. */
static int close_text(struct reader *rd)
{
    rd->in_text = 0;
    rd->txt[rd->txt_len] = '\0';
    sla_text(rd);
    rd->n_offscale += rd->text_offscale;
    if (!rd->text_label || !isfinite(rd->tx) || !isfinite(rd->ty) || !isfinite(rd->tsize))
        return 0;
    if (rd->n_labels == SVC_MAX_LABELS)
        return fail(rd, "the panel has more than %d labels", SVC_MAX_LABELS);
    struct label *l = &rd->labels[rd->n_labels];
    l->b = svc_label_box(rd->tx, rd->ty, rd->tanchor, rd->tsize, rd->txt_chars, rd->tbold);
    snprintf(l->text, sizeof l->text, "%.47s", rd->txt);
    for (int q = 0; q < rd->n_labels; q++)
        if (svc_boxes_overlap(&rd->labels[q].b, &l->b)) {
            rd->r->overlap++;
            problemf(rd->r, "panel \"%.200s\": the labels \"%s\" and \"%s\" overlap", rd->title,
                     rd->labels[q].text, l->text);
        }
    rd->n_labels++;
    return 0;
}

static void open_text(struct reader *rd, const struct attrs *a)
{
    rd->in_text = 1;
    rd->txt_len = 0;
    rd->txt_chars = 0;
    rd->text_label = has_class(a, "label");
    rd->text_offscale = has_class(a, "offscale");
    rd->text_axis = attr_is(a, A_AXIS, "x") ? 'x' : attr_is(a, A_AXIS, "y") ? 'y' : 0;
    rd->tx = attr_num(a, A_X);
    rd->ty = attr_num(a, A_Y);
    rd->tsize = attr_num(a, A_SIZE);
    rd->tanchor = attr_is(a, A_ANCHOR, "middle") ? SVC_MIDDLE
                  : attr_is(a, A_ANCHOR, "end")  ? SVC_END
                                                 : SVC_START;
    rd->tbold = attr_is(a, A_WEIGHT, "bold");
}

/* The text between tags inside a <text>: kept (its start) and counted. */
static void text_content(struct reader *rd, const char *p, const char *stop)
{
    size_t n = (size_t)(stop - p), room = sizeof rd->txt - 1 - rd->txt_len;
    rd->txt_chars += svc_text_chars(p, n);
    shown(rd->txt + rd->txt_len, room + 1, p, n < room ? n : room);
    rd->txt_len += n < room ? n : room;
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
    int with_points = 0;
    for (int i = 0; i < rd->n_series; i++)
        with_points += rd->s[i].n > 0;
    if (with_points == 0) {
        r->empty++;
        problem(r, "panel \"%.200s\" has no curve: a panel without data (omit it and say why)%.1s",
                rd->title, "");
    }
    if (rd->n_offscale > 1) {
        r->offscale++;
        problemf(r,
                 "panel \"%.200s\" has %d off-scale labels (one per panel: \"N points above "
                 "…\")",
                 rd->title, rd->n_offscale);
    }
    int token = strncmp(rd->metric, "ttft", 4) == 0 || strncmp(rd->metric, "tpot", 4) == 0 ||
                strncmp(rd->metric, "itl", 3) == 0;
    if (rd->latency && rd->llm && !token && !rd->has_sla) {
        r->llm_request++;
        problemf(r,
                 "panel \"%.200s\": the whole-request latency of the LLM service \"%.60s\" with "
                 "no SLA (its TTFT and TPOT are what it is judged on)",
                 rd->title, rd->tenant);
    }
    if (fig_curves(rd))
        return -1;
    int one_merged = rd->n_series == 1 && strstr(rd->s[0].label, " = ");
    if (!one_merged || (rd->fig_panels > 0 && strcmp(rd->fig_label, rd->s[0].label) != 0))
        rd->fig_same = 0;
    else if (rd->fig_panels == 0)
        snprintf(rd->fig_label, sizeof rd->fig_label, "%s", rd->s[0].label);
    rd->fig_panels++;
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
    struct cov_line by[SVC_MAX_SERIES];
    for (int i = 0; i < rd->n_series; i++) {
        const struct series *s = &rd->s[i];
        struct cov_line a = {s->n, s->x, s->y, s->points_only};
        int nb = 0;
        for (int j = i + 1; j < rd->n_series; j++)
            by[nb++] = (struct cov_line){rd->s[j].n, rd->s[j].x, rd->s[j].y, rd->s[j].points_only};
        if (cov_covered_work(&a, by, nb, 1.0, &r->work)) {
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
    if (IS("p") && has_class(a, "verdict"))
        rd->page_verdict = 1;
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
            int verdict = has_class(a, "verdict");
            if (rd->r->figures == 1) {
                rd->first_is_verdict = verdict;
            } else if (verdict) {
                rd->r->verdict_late++;
                problem(rd->r,
                        "figure \"%.60s\" shows the verdict but is not the page's first figure%.1s",
                        rd->fig, "");
            }
            close_figure(rd);
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
    if (IS("path") && has_class(a, "marker") && rd->n_series > 0) {
        struct series *s = &rd->s[rd->n_series - 1];
        if (!s->shape[0] && a->v[A_SHAPE] && colour_of(a, A_STROKE, &s->colour)) {
            attr_copy(a, A_SHAPE, s->shape, sizeof s->shape);
            s->has_colour = 1;
        }
    }
    if (IS("text") && !self_closing)
        open_text(rd, a);
    return 0;
#undef IS
}

static int close_element(struct reader *rd, const char *name, size_t nl)
{
    if (nl == 4 && memcmp(name, "html", 4) == 0)
        rd->html_closed = 1;
    if (nl == 4 && memcmp(name, "text", 4) == 0 && rd->in_panel && rd->in_text)
        return close_text(rd);
    if (nl == 1 && name[0] == 'g' && rd->in_panel && --rd->g_depth == 0)
        return close_panel(rd);
    if (nl == 3 && memcmp(name, "svg", 3) == 0 && rd->in_figure) {
        if (rd->in_panel && rd->svg_depth == rd->panel_svg_depth)
            return fail(rd, "the figure closes inside the panel (no </g>)");
        if (--rd->svg_depth == 0) {
            close_figure(rd);
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
        if (rd->in_panel && rd->in_text)
            text_content(rd, p, stop);
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
    if (rd->page_verdict && rd->r->figures > 0 && !rd->first_is_verdict) {
        rd->r->verdict_late++;
        problem(rd->r,
                "the page's first figure is not the one its verdict rests on (no figure of class "
                "\"verdict\" first)%.1s%.1s",
                "", "");
    }
    return 0;
}

int svc_check_mem(const char *text, size_t len, struct svc_report *r)
{
    memset(r, 0, sizeof *r);
    struct reader *rd = ss_xcalloc(1, sizeof *rd);
    rd->text = rd->at = text;
    rd->end = text + len;
    rd->r = r;
    rd->fig_same = 1;
    int rc = read_page(rd);
    free_series(rd);
    free(rd->fc);
    free(rd);
    return rc ? -1
              : r->hidden + r->sla_missing + r->empty + r->offscale + r->overlap + r->palette +
                    r->sla_words + r->llm_request + r->same_panels + r->verdict_late;
}

int svc_check_text(const char *text, struct svc_report *r)
{
    return svc_check_mem(text, strlen(text), r);
}
