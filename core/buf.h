/* buf.h: the one growable string buffer (git's strbuf invariant, curl's dynbuf limit).
 * data is never NULL and always NUL-terminated; allocation failures exit (xalloc). */
#ifndef BDB_BUF_H
#define BDB_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#    define BDB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#    define BDB_PRINTF(f, a)
#endif

struct buf {
    char *data;
    size_t len, cap;
};

extern char buf_empty[];
#define BUF_INIT                                                                                   \
    {                                                                                              \
        buf_empty, 0, 0                                                                            \
    }

void buf_init(struct buf *b);
void buf_grow(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_addc(struct buf *b, char c);
void buf_addf(struct buf *b, const char *fmt, ...) BDB_PRINTF(2, 3);
/* Appends v in decimal: what buf_addf's "%lld" writes, in a tenth of its instructions (a
 * workload key for each of a million results, an id list of a hundred thousand). */
void buf_add_int(struct buf *b, int64_t v);
void buf_vaddf(struct buf *b, const char *fmt, va_list ap) BDB_PRINTF(2, 0);
void buf_reset(struct buf *b);                /* len = 0, keeps the allocation */
void buf_release(struct buf *b);              /* frees; back to BUF_INIT */
char *buf_detach(struct buf *b, size_t *len); /* caller frees */
/* Appends arg as one word of a POSIX shell command: as it is when it is made of
 * [A-Za-z0-9_+=/.,:@%-] only, else in single quotes (a ' inside as '\''). */
void buf_add_shell_word(struct buf *b, const char *arg);
/* Reads a whole stream; 0 or -1 with errno set. */
int buf_read_file(struct buf *b, FILE *f);

#endif
