#include "buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

char buf_empty[1];

void buf_init(struct buf *b)
{
    b->data = buf_empty;
    b->len = b->cap = 0;
}

void buf_grow(struct buf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap < SIZE_MAX / 2 ? cap * 2 : need;
    if (b->cap == 0) {
        b->data = xmalloc(cap);
        b->data[0] = '\0';
    } else {
        b->data = xrealloc(b->data, cap);
    }
    b->cap = cap;
}

void buf_add(struct buf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    buf_grow(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
    buf_add(b, s, strlen(s));
}

void buf_addc(struct buf *b, char c)
{
    buf_add(b, &c, 1);
}

void buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n <= 0)
        return;
    buf_grow(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void buf_addf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vaddf(b, fmt, ap);
    va_end(ap);
}

void buf_add_int(struct buf *b, int64_t v)
{
    char digits[24];
    int n = 0;
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    do
        digits[n++] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        buf_addc(b, '-');
    while (n)
        buf_addc(b, digits[--n]);
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    if (b->cap)
        b->data[0] = '\0';
}

void buf_release(struct buf *b)
{
    if (b->cap)
        free(b->data);
    buf_init(b);
}

char *buf_detach(struct buf *b, size_t *len)
{
    char *p = b->cap ? b->data : xstrdup("");
    if (len)
        *len = b->len;
    buf_init(b);
    return p;
}

int buf_read_file(struct buf *b, FILE *f)
{
    for (;;) {
        buf_grow(b, 65536);
        size_t n = fread(b->data + b->len, 1, b->cap - b->len - 1, f);
        b->len += n;
        b->data[b->len] = '\0';
        if (n == 0)
            return ferror(f) ? -1 : 0;
    }
}

void buf_add_shell_word(struct buf *b, const char *arg)
{
    static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                               "_-+=/.,:@%";
    if (*arg && strspn(arg, safe) == strlen(arg)) {
        buf_adds(b, arg);
        return;
    }
    buf_addc(b, '\'');
    for (const char *p = arg; *p; p++)
        buf_adds(b, *p == '\'' ? "'\\''" : (char[]){*p, '\0'});
    buf_addc(b, '\'');
}
