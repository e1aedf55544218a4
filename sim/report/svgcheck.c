/*
 * svgcheck — see svgcheck.h. The reader knows only the few shapes svg.c writes: a panel is
 * <g class="panel" data-latency="0|1" data-sla="…">…</g> with no <g> inside, a series is
 * <polyline class="series" data-label="…" points="x,y x,y …"/> (data-points-only="1" for
 * markers only), an SLA is an element of class "sla", and "no SLA" is said in the panel's text.
 */
#include "report/svgcheck.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double seg_dist2(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double qx = ax + t * dx - px, qy = ay + t * dy - py;
    return qx * qx + qy * qy;
}

/* Is (px, py) within tol of one of the lines? */
static int near_any(double px, double py, const struct svc_line *by, int n_by, double tol2)
{
    for (int l = 0; l < n_by; l++) {
        const struct svc_line *b = &by[l];
        if (b->n == 1 || b->points_only) {
            for (int k = 0; k < b->n; k++) {
                double dx = b->x[k] - px, dy = b->y[k] - py;
                if (dx * dx + dy * dy <= tol2)
                    return 1;
            }
            continue;
        }
        for (int k = 0; k + 1 < b->n; k++)
            if (seg_dist2(px, py, b->x[k], b->y[k], b->x[k + 1], b->y[k + 1]) <= tol2)
                return 1;
    }
    return 0;
}

int svc_covered(const struct svc_line *a, const struct svc_line *by, int n_by, double tol)
{
    double tol2 = tol * tol + 1e-9;
    if (a->n == 0 || n_by == 0)
        return 0;
    for (int k = 0; k < a->n; k++) {
        if (!near_any(a->x[k], a->y[k], by, n_by, tol2))
            return 0;
        if (a->points_only || k + 1 == a->n)
            continue;
        double dx = a->x[k + 1] - a->x[k], dy = a->y[k + 1] - a->y[k];
        int steps = (int)ceil(sqrt(dx * dx + dy * dy));
        for (int s = 1; s < steps; s++) {
            double t = (double)s / steps;
            if (!near_any(a->x[k] + t * dx, a->y[k] + t * dy, by, n_by, tol2))
                return 0;
        }
    }
    return 1;
}

/* The value of attribute `name` inside the tag starting at tag (up to its '>'): a copy
 * into buf, or NULL when absent. */
static const char *attr(const char *tag, const char *end, const char *name, char *buf, size_t n)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=\"", name);
    size_t pl = strlen(pat);
    for (const char *p = tag; p + pl < end; p++) {
        if (strncmp(p, pat, pl) != 0)
            continue;
        const char *v = p + pl, *q = memchr(v, '"', (size_t)(end - v));
        if (!q)
            return NULL;
        size_t len = (size_t)(q - v) < n - 1 ? (size_t)(q - v) : n - 1;
        memcpy(buf, v, len);
        buf[len] = '\0';
        return buf;
    }
    return NULL;
}

struct pline {
    char label[128];
    int n, cap, points_only;
    double *x, *y;
};

/* Parses "x,y x,y …" into pl. */
static void parse_points(const char *s, const char *end, struct pline *pl)
{
    while (s < end) {
        char *e1, *e2;
        double x = strtod(s, &e1);
        if (e1 == s || *e1 != ',')
            break;
        double y = strtod(e1 + 1, &e2);
        if (e2 == e1 + 1)
            break;
        if (pl->n == pl->cap) {
            pl->cap = pl->cap ? 2 * pl->cap : 64;
            pl->x = ss_xrealloc(pl->x, (size_t)pl->cap * sizeof *pl->x);
            pl->y = ss_xrealloc(pl->y, (size_t)pl->cap * sizeof *pl->y);
        }
        pl->x[pl->n] = x;
        pl->y[pl->n] = y;
        pl->n++;
        s = e2;
        while (s < end && *s == ' ')
            s++;
    }
}

static void problem(struct svc_report *r, const char *fmt, const char *a, const char *b)
{
    if (!r->first[0])
        snprintf(r->first, sizeof r->first, fmt, a, b);
}

/* One panel: the text between its opening tag and its "</g>". */
static void check_panel(const char *p, const char *end, struct svc_report *r)
{
    const char *tag_end = memchr(p, '>', (size_t)(end - p));
    char lat[8] = "0", title[200] = "";
    attr(p, tag_end ? tag_end : end, "data-latency", lat, sizeof lat);
    attr(p, tag_end ? tag_end : end, "data-title", title, sizeof title);
    r->panels++;
    if (strcmp(lat, "1") == 0) {
        r->latency_panels++;
        int has_sla = 0, says_none = 0;
        for (const char *q = p; q < end; q++) {
            if (strncmp(q, "class=\"sla\"", 11) == 0)
                has_sla = 1;
            if (strncmp(q, "no SLA", 6) == 0)
                says_none = 1;
        }
        if (!has_sla && !says_none) {
            r->sla_missing++;
            problem(r, "latency panel \"%.200s\" has no SLA line%.1s", title, "");
        }
    }
    struct pline lines[64];
    int n = 0;
    const char *q = p;
    while (n < 64 && (q = strstr(q, "<polyline class=\"series\"")) && q < end) {
        const char *te = strchr(q, '>');
        struct pline *pl = &lines[n];
        memset(pl, 0, sizeof *pl);
        char pts[8] = "0";
        attr(q, te, "data-label", pl->label, sizeof pl->label);
        attr(q, te, "data-points-only", pts, sizeof pts);
        pl->points_only = strcmp(pts, "1") == 0;
        const char *ps = strstr(q, " points=\"");
        if (ps && ps < te) {
            ps += 9;
            const char *pe = strchr(ps, '"');
            parse_points(ps, pe ? pe : te, pl);
        }
        n++;
        q = te ? te : end;
    }
    r->series += n;
    for (int i = 0; i < n; i++) {
        struct svc_line by[64], a = {lines[i].n, lines[i].x, lines[i].y, lines[i].points_only};
        int nb = 0;
        for (int j = i + 1; j < n; j++)
            by[nb++] = (struct svc_line){lines[j].n, lines[j].x, lines[j].y, lines[j].points_only};
        if (svc_covered(&a, by, nb, 1.0)) {
            r->hidden++;
            problem(r, "panel \"%.200s\": the curve \"%.120s\" is hidden by curves drawn after it",
                    title, lines[i].label);
        }
    }
    for (int i = 0; i < n; i++) {
        free(lines[i].x);
        free(lines[i].y);
    }
}

int svc_check_text(const char *text, struct svc_report *r)
{
    memset(r, 0, sizeof *r);
    for (const char *f = text; (f = strstr(f, "class=\"figure")); f++)
        r->figures++;
    const char *p = text;
    while ((p = strstr(p, "<g class=\"panel\""))) {
        const char *end = strstr(p, "</g>");
        if (!end)
            end = p + strlen(p);
        check_panel(p, end, r);
        p = end;
    }
    return r->hidden + r->sla_missing;
}
