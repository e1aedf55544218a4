/*
 * svggeom — the label boxes svg.c lays its figures out with and the page checker
 * (tools/svgcheck.c) tests them with, so both apply one rule.
 */
#include "report/svggeom.h"
#include <math.h>

/* ---- labels ----------------------------------------------------------------------------- */

/* DejaVu Sans, the pages' first font: about 0.6 em a character (digits 0.64, lower case
 * 0.55 to 0.62), bold 0.66; 0.76 em above the baseline, 0.24 below. */
struct svc_box svc_label_box(double x, double y, enum svc_anchor anchor, double size, int chars,
                             int bold)
{
    double w = chars * size * (bold ? 0.66 : 0.6);
    double x0 = anchor == SVC_START ? x : anchor == SVC_MIDDLE ? x - w / 2 : x - w;
    return (struct svc_box){x0, y - 0.76 * size, x0 + w, y + 0.24 * size};
}

int svc_boxes_overlap(const struct svc_box *a, const struct svc_box *b)
{
    double w = fmin(a->x1, b->x1) - fmax(a->x0, b->x0);
    double h = fmin(a->y1, b->y1) - fmax(a->y0, b->y0);
    return w > 0.5 && h > 0.5;
}

int svc_text_chars(const char *s, size_t n)
{
    int chars = 0;
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)s[k];
        if ((c & 0xC0) == 0x80)
            continue;
        if (c == '&') { /* an entity is one character */
            size_t q = k + 1;
            while (q < n && q < k + 10 && s[q] != ';' && s[q] != '&')
                q++;
            if (q < n && s[q] == ';')
                k = q;
        }
        chars++;
    }
    return chars;
}
