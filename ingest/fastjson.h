/* fastjson.h: the common case of cJSON_ParseWithLengthOpts, faster, in an arena.
 *
 * The arena is the fast path's alone: its tree is allocated from the caller's arena and freed
 * with it, never by cJSON_Delete (a small file's tree is ~1,000 nodes, whose malloc and free
 * cost about a third of its parse). cJSON itself keeps its default allocator: every tree that
 * cJSON_Parse* makes, here when fastjson gives up as in any other importer, is malloc'ed and
 * freed with cJSON_Delete. */
#ifndef BDB_FASTJSON_H
#define BDB_FASTJSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "../core/arena.h"

/* cJSON's whitespace, the one rule of what a blank between JSON tokens is: any byte up to ' '
 * (NUL and every control character included, not only " \t\r\n"). Whatever scans fio's JSON
 * again (for lines, for a key's colon, for what follows a cut document) passes the same bytes
 * cJSON passed, so lines and positions agree whichever parser read the document. */
static inline int fastjson_blank(unsigned char ch)
{
    return ch <= ' ';
}

/* Where an object or array of the tree is: the lines of its brackets, counted from 1 at s[0].
 * cJSON keeps no positions; these let an importer name the lines of a record's object. */
struct fastjson_span {
    const cJSON *node;
    unsigned first, last;
};

/* The spans of a tree's objects and arrays, in the order their '{' or '[' come. */
struct fastjson_spans {
    struct fastjson_span *v;
    size_t n, alloc;
};

/* The JSON object at s[0] (a '{') parsed into the tree cJSON_ParseWithLengthOpts(s, len, end,
 * 0) makes (the same nodes, links and values), allocated from a, with *end just after it; or
 * NULL, having allocated some of a, for anything it leaves to cJSON: any error, a string with
 * an escape or a line end, a number of 63 characters or more, nesting deeper than 64. The
 * caller then parses with cJSON, whose tree and error position stay the reference. With spans
 * (else NULL), they are replaced by the tree's (caller frees spans->v). */
cJSON *fastjson_parse(struct arena *a, const char *s, size_t len, const char **end,
                      struct fastjson_spans *spans);

/* 1 with *v set when s[0..len) is all one plain decimal ("-12", "0.25": at most 15 digits, no
 * exponent), to the double strtod gives it, read without strtod; else 0 (then strtod's). */
int fastjson_decimal(const char *s, size_t len, double *v);

/* 1 when the object or array opened at s[0] is still open at s[len] (brackets outside strings
 * counted): a document cut short, which cJSON reports at its last token rather than at the end.
 * The importers say "truncated" then, at the end of the input. */
int fastjson_unterminated(const char *s, size_t len);

/* The offset in s[0..len) of the value of the first "key" at or after from (from when there is
 * none), for an error placed at the value cJSON read: right when the key is unique from there
 * on, as in a tool's fixed layout. */
size_t fastjson_value_at(const char *s, size_t len, const char *key, size_t from);

#endif
