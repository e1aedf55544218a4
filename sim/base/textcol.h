/*
 * textcol — plain-text columns of UTF-8 text for terminal tables (prefix tc_): the width a
 * string takes on screen, padding to a column, wrapping at spaces and clipping with "...".
 * A width counts code points (a continuation byte takes no column), which is what a
 * terminal shows for the profiles' text; nothing is ever cut inside a UTF-8 sequence.
 */
#ifndef SS_TEXTCOL_H
#define SS_TEXTCOL_H

#include <stddef.h>
#include <stdio.h>

/* Columns s takes. */
int tc_width(const char *s);
/* s, then spaces up to width columns (none when s is wider). */
void tc_pad(FILE *fp, const char *s, int width);
/* text in lines of at most width columns (at least 8), broken at spaces; a word longer than
 * a line is cut. *out is an allocated array of allocated lines; returns their number. */
size_t tc_wrap(const char *text, int width, char ***out);
void tc_free_lines(char **lines, size_t n);
/* text wrapped to width, the first line after label, the others indented as wide as it. */
void tc_print_wrapped(FILE *fp, const char *label, const char *text, int width);
/* A copy of s of at most width columns, ending in "..." when cut (free it). */
char *tc_clip(const char *s, int width);

#endif
