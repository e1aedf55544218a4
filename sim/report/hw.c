/*
 * hw — the HTML writer (see hw.h). The formatted markup call walks its literal format
 * itself so that it can escape each string argument on its own: the literal's bytes go out
 * as they are, a number's conversion through snprintf, a string's through hw_text.
 */
#include "report/hw.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void hw_init(struct hw *w, FILE *fp)
{
    memset(w, 0, sizeof *w);
    w->hw_out_ = fp;
}

int hw_mem_open(struct hw *w)
{
    memset(w, 0, sizeof *w);
    w->hw_out_ = open_memstream(&w->hw_buf_, &w->hw_len_);
    return w->hw_out_ ? 0 : -1;
}

void hw_mem_close(struct hw *w)
{
    if (w->hw_out_)
        fclose(w->hw_out_);
    w->hw_out_ = NULL;
}

void hw_mem_free(struct hw *w)
{
    hw_mem_close(w);
    free(w->hw_buf_);
    w->hw_buf_ = NULL;
    w->hw_len_ = 0;
}

void hw_splice(struct hw *w, const struct hw *part)
{
    if (part->hw_buf_)
        fwrite(part->hw_buf_, 1, part->hw_len_, w->hw_out_);
}

/* What each character HTML gives a meaning to is written as; NULL: the character itself. */
static const char *entity(char c)
{
    return c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;" : NULL;
}

static void esc_n(struct hw *w, const char *s, size_t n)
{
    for (size_t k = 0; k < n && s[k]; k++)
        if (entity(s[k]))
            fputs(entity(s[k]), w->hw_out_);
        else
            fputc(s[k], w->hw_out_);
}

void hw_text(struct hw *w, const char *s)
{
    if (s)
        esc_n(w, s, strlen(s));
}

void hw_textf(struct hw *w, const char *fmt, ...)
{
    char small[512], *buf = small;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof small) {
        buf = ss_xmalloc((size_t)n + 1);
        va_start(ap, fmt);
        vsnprintf(buf, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    esc_n(w, buf, (size_t)n);
    if (buf != small)
        free(buf);
}

void hw_md(struct hw *w, const char *s)
{
    int bold = 0, code = 0;
    for (; s && *s; s++) {
        if (s[0] == '*' && s[1] == '*' && !code) {
            fputs(bold ? "</strong>" : "<strong>", w->hw_out_);
            bold = !bold;
            s++;
        } else if (*s == '`') {
            fputs(code ? "</code>" : "<code>", w->hw_out_);
            code = !code;
        } else {
            esc_n(w, s, 1);
        }
    }
    if (code)
        fputs("</code>", w->hw_out_);
    if (bold)
        fputs("</strong>", w->hw_out_);
}

void hw_trusted_(struct hw *w, const char *literal)
{
    fputs(literal, w->hw_out_);
}

/* One conversion of a literal format: spec is its text ("%-8.3f"), conv its letter, longs
 * the count of 'l' (or 'z'/'j'/'t' as 3) before it. */
static void conversion(struct hw *w, const char *spec, char conv, int longs, va_list *ap)
{
    char buf[160];
    buf[0] = 0;
    if (conv == 's') {
        const char *s = va_arg(*ap, const char *), *dot = strchr(spec, '.');
        esc_n(w, s ? s : "", dot ? (size_t)strtoul(dot + 1, NULL, 10) : (size_t)-1);
        return;
    }
    if (conv == 'c') {
        char c = (char)va_arg(*ap, int);
        esc_n(w, &c, 1);
        return;
    }
    int sign = conv == 'd' || conv == 'i';
    if (strchr("diouxX", conv)) {
        if (longs == 3)
            snprintf(buf, sizeof buf, spec, va_arg(*ap, size_t));
        else if (longs >= 2)
            snprintf(buf, sizeof buf, spec,
                     sign ? va_arg(*ap, long long) : (long long)va_arg(*ap, unsigned long long));
        else if (longs == 1)
            snprintf(buf, sizeof buf, spec,
                     sign ? va_arg(*ap, long) : (long)va_arg(*ap, unsigned long));
        else
            snprintf(buf, sizeof buf, spec, sign ? va_arg(*ap, int) : (int)va_arg(*ap, unsigned));
    } else if (strchr("fFeEgGaA", conv)) {
        snprintf(buf, sizeof buf, spec, va_arg(*ap, double));
    } else { /* %n, %p, %*: not for pages (a programming error, caught by any test of the line) */
        fprintf(stderr, "hw: unsupported conversion %s in a page format\n", spec);
        abort();
    }
    fputs(buf, w->hw_out_);
}

void hw_trusted_f_(struct hw *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p;) {
        const char *pc = strchr(p, '%');
        if (!pc) {
            fputs(p, w->hw_out_);
            break;
        }
        fwrite(p, 1, (size_t)(pc - p), w->hw_out_);
        if (pc[1] == '%') {
            fputc('%', w->hw_out_);
            p = pc + 2;
            continue;
        }
        const char *q = pc + 1;
        q += strspn(q, "-+ #0");
        q += strspn(q, "0123456789");
        if (*q == '.') {
            q++;
            q += strspn(q, "0123456789");
        }
        int longs = 0;
        while (*q == 'l' || *q == 'h' || *q == 'z' || *q == 'j' || *q == 't' || *q == 'L') {
            longs = *q == 'l' ? longs + 1 : *q == 'h' || *q == 'L' ? longs : 3;
            q++;
        }
        char spec[32];
        size_t n = (size_t)(q - pc) + 1;
        if (n >= sizeof spec || !*q) {
            fprintf(stderr, "hw: bad conversion in page format \"%s\"\n", fmt);
            abort();
        }
        memcpy(spec, pc, n);
        spec[n] = 0;
        conversion(w, spec, *q, longs, &ap);
        p = q + 1;
    }
    va_end(ap);
}
