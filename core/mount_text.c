/* mount_text.c: the text pieces every reader of a mount form uses (mount_parse.h): fields
 * split at blanks, \ooo and \xHH escapes, and error messages with the bad token quoted. */
#include "mount_parse.h"

#include <stdarg.h>
#include <stdlib.h>

#include "xalloc.h"

/* A token for an error message: at most 40 bytes, control and non-ASCII bytes as \xHH. */
char *mount_quoted_in(struct arena *a, const char *s, size_t n)
{
    struct buf b = BUF_INIT;
    for (size_t i = 0; i < n && i < 40; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f)
            buf_addf(&b, "\\x%02x", c);
        else
            buf_addc(&b, (char)c);
    }
    if (n > 40)
        buf_adds(&b, "...");
    char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

int mount_fail(struct parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vaddf(p->err, fmt, ap);
    va_end(ap);
    p->m->line = p->line;
    return -1;
}

void mount_fields_free(struct fields *f)
{
    free(f->v);
    f->v = NULL;
    f->n = f->alloc = 0;
}

/* Splits s at runs of blanks; the pieces are arena copies. */
void mount_split_blanks(struct parser *p, const char *s, struct fields *f)
{
    for (;;) {
        s = skip_blanks(s);
        if (!*s)
            return;
        const char *e = s;
        while (*e && !is_ws(*e))
            e++;
        ALLOC_GROW(f->v, f->n, f->alloc);
        f->v[f->n++] = dup_n(p, s, (size_t)(e - s));
        s = e;
    }
}

/* Decodes \ooo (octal, as the kernel and fstab write) or \xHH (findmnt -P) escapes in place.
 * A decoded NUL byte is an error. */
int mount_unescape(struct parser *p, char *s, enum esc esc)
{
    if (esc == ESC_NONE)
        return 0;
    char *w = s;
    for (const char *r = s; *r;) {
        int v = -1, used = 0;
        if (r[0] == '\\' && esc == ESC_OCTAL && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' &&
            r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
            v = (r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0');
            used = 4;
        } else if (r[0] == '\\' && esc == ESC_HEX && r[1] == 'x' && r[2] && r[3]) {
            const char *hex = "0123456789abcdef0123456789ABCDEF";
            const char *h1 = strchr(hex, r[2]), *h2 = strchr(hex, r[3]);
            if (h1 && h2) {
                v = (int)((h1 - hex) % 16) * 16 + (int)((h2 - hex) % 16);
                used = 4;
            }
        }
        if (v == 0)
            return mount_fail(p, "escaped NUL byte in '%s'", mount_quoted(p, s, strlen(s)));
        if (v > 0) {
            *w++ = (char)v;
            r += used;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    return 0;
}

char *mount_field_decoded(struct parser *p, const char *s, enum esc esc)
{
    char *d = dup_s(p, s);
    return mount_unescape(p, d, esc) ? NULL : d;
}
