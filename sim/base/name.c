/*
 * name — the name rule (see name.h). One pass over the bytes, decoding UTF-8 strictly, so
 * that the first offence is reported with its offset: a message a user can act on even when
 * the offending character is invisible.
 */
#include "base/name.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

#define NAME_STR_(x) #x
#define NAME_STR(x) NAME_STR_(x)

const char *name_rule(void)
{
    return "a name is 1 to " NAME_STR(
        NAME_MAX_BYTES) " bytes of UTF-8 without control "
                        "characters (C0, DEL, C1), U+2028, U+2029, commas or double quotes "
                        "(docs/scenario.md#names)";
}

long name_utf8_next(const unsigned char *s, size_t n, int *len)
{
    *len = 1;
    unsigned c = s[0];
    if (c < 0x80)
        return (long)c;
    int k;
    long cp, min;
    if ((c & 0xE0) == 0xC0) {
        k = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        k = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        k = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return -1; /* a continuation byte, or 0xF8–0xFF */
    }
    if ((size_t)k > n)
        return -1;
    for (int i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return -1; /* overlong, beyond Unicode, or a UTF-16 surrogate */
    *len = k;
    return cp;
}

/* What the code point is, when the rule refuses it; NULL when it is allowed. */
static const char *refused(long cp)
{
    if (cp < 0x20 || cp == 0x7F)
        return "a control character";
    if (cp >= 0x80 && cp <= 0x9F)
        return "a C1 control character";
    if (cp == 0x2028)
        return "a line separator";
    if (cp == 0x2029)
        return "a paragraph separator";
    if (cp == ',')
        return "a comma";
    if (cp == '"')
        return "a double quote";
    return NULL;
}

int name_check(const char *s, char *why, size_t whylen)
{
    size_t n = strlen(s);
    if (n == 0)
        return ss_errf(why, whylen, "an empty name; %s", name_rule());
    if (n > NAME_MAX_BYTES)
        return ss_errf(why, whylen, "a name of %zu bytes, longer than the limit of %d; %s", n,
                       NAME_MAX_BYTES, name_rule());
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        int len;
        long cp = name_utf8_next(u + i, n - i, &len);
        if (cp < 0)
            return ss_errf(why, whylen, "a byte 0x%02X that is not valid UTF-8 at byte %zu; %s",
                           u[i], i + 1, name_rule());
        const char *what = refused(cp);
        if (what)
            return ss_errf(why, whylen, "%s U+%04lX at byte %zu; %s", what, (unsigned long)cp,
                           i + 1, name_rule());
        i += (size_t)len;
    }
    return 0;
}
