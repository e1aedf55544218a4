/*
 * textcol — see textcol.h. Shared by the tables that wrap long text (`profile show`,
 * `profile diff`), so a column is measured, padded and cut one way.
 */
#include "base/textcol.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static int starts_char(char c)
{
    return ((unsigned char)c & 0xC0) != 0x80;
}

int tc_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += starts_char(*s);
    return w;
}

void tc_pad(FILE *fp, const char *s, int width)
{
    fputs(s, fp);
    for (int w = tc_width(s); w < width; w++)
        fputc(' ', fp);
}

size_t tc_wrap(const char *text, int width, char ***out)
{
    size_t n = 0, cap = 4;
    char **lines = ss_xmalloc(cap * sizeof *lines);
    const char *p = text;
    if (width < 8)
        width = 8;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *end = p, *brk = NULL;
        int w = 0;
        while (*end && (w < width || !starts_char(*end))) {
            if (*end == ' ')
                brk = end;
            w += starts_char(*end);
            end++;
        }
        if (*end && *end != ' ' && brk)
            end = brk;
        if (n == cap)
            lines = ss_xrealloc(lines, (cap *= 2) * sizeof *lines);
        size_t len = (size_t)(end - p);
        lines[n] = ss_xmalloc(len + 1);
        memcpy(lines[n], p, len);
        lines[n][len] = '\0';
        n++;
        p = end;
    }
    *out = lines;
    return n;
}

void tc_free_lines(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

void tc_print_wrapped(FILE *fp, const char *label, const char *text, int width)
{
    char **lines;
    int indent = tc_width(label);
    size_t n = tc_wrap(text, width - indent, &lines);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%*s%s\n", indent, i == 0 ? label : "", lines[i]);
    if (n == 0)
        fprintf(fp, "%s\n", label);
    tc_free_lines(lines, n);
}

char *tc_clip(const char *s, int width)
{
    if (tc_width(s) <= width)
        return ss_xstrdup(s);
    char *r = ss_xmalloc(strlen(s) + 4);
    int w = 0;
    size_t i = 0;
    for (; s[i]; i++) {
        if (starts_char(s[i]) && w == width - 3)
            break;
        w += starts_char(s[i]);
        r[i] = s[i];
    }
    memcpy(r + i, "...", 4);
    return r;
}
