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
