/* utf8.h: the one UTF-8 validator (Unicode's table 3-7: no overlong form, surrogate or code
 * point past U+10FFFF). benchdb stores text as UTF-8 (docs/schema.md): an import escapes each
 * byte of an ill-formed sequence as \xNN (utf8_escape), as git and jq show bytes they cannot
 * print; push leaves out a source whose text is not UTF-8 (PostgreSQL refuses the batch). */
#ifndef BDB_UTF8_H
#define BDB_UTF8_H

#include <stddef.h>

#include "arena.h"
#include "buf.h"
#include "diag.h"

/* Whether byte c continues a UTF-8 sequence (10xxxxxx) instead of starting a character: what
 * a walk that counts characters or cuts text between them steps over. */
static inline int utf8_continues(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/* The characters of s[0..n) as a display counts them: the bytes that start one (a stray
 * continuation byte counts for none), the width of text that is one column per character. */
static inline size_t utf8_count(const char *s, size_t n)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; i++)
        chars += !utf8_continues((unsigned char)s[i]);
    return chars;
}

/* The length of the well-formed UTF-8 sequence at s, else minus the length of its longest
 * well-formed prefix, at least 1 (Unicode's "maximal subpart": each is one replacement).
 * s is NUL-terminated: the NUL stops a sequence as any other byte that cannot continue it. */
int utf8_len(const unsigned char *s);
/* The offset of the first byte of s (NUL-terminated) that is not part of a well-formed UTF-8
 * sequence, or -1 when s is all UTF-8. */
long utf8_invalid(const char *s);
/* Appends s with each byte of an ill-formed sequence as \xNN (lower-case hex, as diag_escape
 * writes other bytes); the rest, a backslash too, as it is. */
void utf8_escape(struct buf *out, const char *s);
/* s (NULL too) when it is UTF-8, else s escaped (utf8_escape) in a string of a, with a warning
 * at src's line (0: src's name only) naming what (and key, when not NULL: a tag's name):
 * "src:line: warning: tag 'os' is not UTF-8: stored as 'caf\xe9' (...)". */
const char *utf8_stored(struct arena *a, const char *s, const char *what, const char *key,
                        const struct source *src, unsigned line, struct diag *d);

#endif
