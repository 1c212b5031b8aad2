#include "utf8.h"

int utf8_len(const unsigned char *s)
{
    unsigned char lo = 0x80, hi = 0xBF;
    int n;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        n = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        n = 3;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        n = 4;
    else
        return -1;
    if (s[0] == 0xE0)
        lo = 0xA0;
    else if (s[0] == 0xED)
        hi = 0x9F;
    else if (s[0] == 0xF0)
        lo = 0x90;
    else if (s[0] == 0xF4)
        hi = 0x8F;
    for (int i = 1; i < n; i++, lo = 0x80, hi = 0xBF)
        if (s[i] < lo || s[i] > hi) /* the terminating NUL stops here too */
            return -i;
    return n;
}

long utf8_invalid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p < 0x80) { /* most text is ASCII */
            p++;
            continue;
        }
        int n = utf8_len(p);
        if (n < 0)
            return (long)(p - (const unsigned char *)s);
        p += n;
    }
    return -1;
}

void utf8_escape(struct buf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = utf8_len(p);
        if (n > 0) {
            buf_add(out, p, (size_t)n);
            p += n;
            continue;
        }
        for (int i = 0; i < -n; i++)
            buf_addf(out, "\\x%02x", p[i]);
        p += -n;
    }
}

const char *utf8_stored(struct arena *a, const char *s, const char *what, const char *key,
                        const struct source *src, unsigned line, struct diag *d)
{
    if (!s || utf8_invalid(s) < 0)
        return s;
    struct buf b = BUF_INIT;
    utf8_escape(&b, s);
    const char *fixed = arena_strdup(a, b.data);
    buf_release(&b);
    diag_warn_line(d, src, line,
                   "%s%s%s%s is not UTF-8: stored as '%s' (each byte that is not as \\xNN)", what,
                   key ? " '" : "", key ? key : "", key ? "'" : "", fixed);
    return fixed;
}
