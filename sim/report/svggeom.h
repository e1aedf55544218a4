/*
 * svggeom — the geometry svg.c lays out its figures with and the page checker
 * (tools/svgcheck.h) tests them with: a label's box. One definition for both, so what svg.c
 * avoids is what the checker tests; whether a curve is hidden by later ones is base/cover.h,
 * which both use too.
 */
#ifndef SS_SVGGEOM_H
#define SS_SVGGEOM_H

#include <stddef.h>

/* The box a label takes: its estimated extent in pixels. svg.c places its labels with the
 * same estimate, so what it avoids is what the checker tests. */
struct svc_box {
    double x0, y0, x1, y1;
};
enum svc_anchor { SVC_START, SVC_MIDDLE, SVC_END };
/* A line of `chars` characters at (x, y) (the baseline) of font size `size`. */
struct svc_box svc_label_box(double x, double y, enum svc_anchor anchor, double size, int chars,
                             int bold);
/* Do the boxes share more than half a pixel both ways? */
int svc_boxes_overlap(const struct svc_box *a, const struct svc_box *b);
/* Characters (UTF-8 code points, an entity as one) of n bytes of text as written. */
int svc_text_chars(const char *s, size_t n);

#endif
