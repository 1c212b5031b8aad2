/* fastjson.c: fio's JSON parsed as cJSON 1.7 parses it, for less. cJSON compares every value
 * with "null", "false" and "true" (three strncmp) before it looks at its first byte, and reads
 * each number with localeconv and strtod: cJSON's parse of small fio JSON files was about a
 * third of their import's instructions (SHA-256 and the schema's creation aside). Here a value is
 * dispatched on its first byte and an integer of up to 15 digits, with or without a fraction (most
 * of fio's numbers), is read digit by digit into the double strtod would give. Anything else is
 * given up (NULL) so that cJSON parses it: success here implies cJSON's success with the same tree
 * (tests/unit/test_fastjson.c compares them on every fixture). */
#include "fastjson.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/xalloc.h"

/* cJSON reads at most 63 characters of a number; its nesting limit is 1000 */
enum { NUMBER_MAX = 63, DEPTH_MAX = 64, EXACT_DIGITS = 15 };

struct cursor {
    const unsigned char *p, *end;
    struct arena *a;
    int depth;
    unsigned line;                  /* of p: line ends are only in blanks (strings give up) */
    struct fastjson_spans *spans;   /* NULL: not wanted */
    unsigned char *room, *room_end; /* of the arena, for take() */
};

static cJSON *value(struct cursor *c);

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
enum { WORD_AT_A_TIME = 1 };
#else
enum { WORD_AT_A_TIME = 0 };
#endif

static const uint64_t ONES = 0x0101010101010101u, HIGHS = 0x8080808080808080u;

/* The top bit of each byte of w that equals b; the lowest one set is right (a byte above it
 * may be set falsely, by a borrow). */
static uint64_t bytes_equal(uint64_t w, unsigned char b)
{
    uint64_t x = w ^ (ONES * b);
    return (x - ONES) & ~x & HIGHS;
}

/* The first byte at or after p that is not a space, eight bytes at a time while eight are
 * left: fio indents each line by 6 to 14 spaces, half of a file's bytes. */
static const unsigned char *skip_spaces(const unsigned char *p, const unsigned char *end)
{
    for (; WORD_AT_A_TIME && end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t other = w ^ (ONES * ' ');
        if (other)
            return p + __builtin_ctzll(other) / 8;
    }
    while (p < end && *p == ' ')
        p++;
    return p;
}

/* cJSON's whitespace (fastjson_blank). Runs of spaces (fio's indentation) are passed without
 * counting lines. */
static void skip_blanks(struct cursor *c)
{
    const unsigned char *p = c->p, *end = c->end;
    while (p < end && fastjson_blank(*p)) {
        c->line += *p++ == '\n';
        p = skip_spaces(p, end);
    }
    c->p = p;
}

/* skip_blanks, with the two commonest cases inline: no blank (after a value), one space (fio's
 * " : " around a colon). The parse calls it four times a member. */
static inline void skip_space(struct cursor *c)
{
    const unsigned char *p = c->p;
    if (p < c->end && !fastjson_blank(*p))
        return;
    if (c->end - p >= 2 && p[0] == ' ' && !fastjson_blank(p[1]))
        c->p = p + 1;
    else
        skip_blanks(c);
}

static int string_stop(unsigned char ch)
{
    return ch == '"' || ch == '\\' || ch == '\n';
}

/* The first '"', backslash or line end at or after p (end when there is none), eight bytes at
 * a time while eight are left. */
static const unsigned char *string_end(const unsigned char *p, const unsigned char *end)
{
    for (; WORD_AT_A_TIME && end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t stops = bytes_equal(w, '"') | bytes_equal(w, '\\') | bytes_equal(w, '\n');
        if (stops)
            return p + __builtin_ctzll(stops) / 8;
    }
    while (p < end && !string_stop(*p))
        p++;
    return p;
}

static int at(const struct cursor *c, unsigned char ch)
{
    return c->p < c->end && *c->p == ch;
}

enum { ROOM_BYTES = 16 << 10 };

/* n bytes, aligned for a node, from the room the cursor took from the arena ROOM_BYTES at a time:
 * a call into the arena for each of a small file's ~600 nodes and keys cost a tenth of its
 * parse. */
static void *take(struct cursor *c, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    if ((size_t)(c->room_end - c->room) < n) {
        if (n > ROOM_BYTES / 4)
            return arena_alloc_uninit(c->a, n);
        c->room = arena_alloc_uninit(c->a, ROOM_BYTES);
        c->room_end = c->room + ROOM_BYTES;
    }
    void *p = c->room;
    c->room += n;
    return p;
}

static cJSON *node(struct cursor *c, int type)
{
    cJSON *n = take(c, sizeof(*n));
    *n = (cJSON){.type = type};
    return n;
}

/* A string at c->p with no escape, copied as cJSON copies it; NULL at a backslash, or at a
 * line end (which cJSON lets pass, but which would put the lines counted off). */
static char *string(struct cursor *c)
{
    if (!at(c, '"'))
        return NULL;
    const unsigned char *s = ++c->p, *q = string_end(s, c->end);
    if (q == c->end || *q != '"')
        return NULL;
    c->p = q + 1;
    size_t n = (size_t)(q - s);
    char *copy;
    if (n < 16 && c->end - s >= 16) { /* most keys: copied as 16 bytes, a size with no call */
        copy = take(c, 16);
        memcpy(copy, s, 16);
    } else {
        copy = take(c, n + 1);
        memcpy(copy, s, n);
    }
    copy[n] = '\0';
    return copy;
}

static int number_char(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == 'e' || ch == 'E' ||
           ch == '.';
}

/* The number at s when it is a plain decimal ("-12", "0.25") of at most EXACT_DIGITS digits,
 * read in one pass: *v set to it and its length returned; else 0 (a longer number, an exponent,
 * anything strtod reads otherwise). Its digits and the power of ten are exact in doubles, and
 * one correctly rounded division of exact operands gives the correctly rounded value of the
 * decimal, which is what strtod returns (Clinger's fast path). */
static size_t exact_decimal(const unsigned char *s, const unsigned char *end, double *v)
{
    static const double pow10[EXACT_DIGITS + 1] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const unsigned char *p = s + (s[0] == '-');
    size_t digits = 0, point = 0;
    uint64_t x = 0;
    for (; p < end; p++) {
        if (*p >= '0' && *p <= '9') {
            if (++digits > EXACT_DIGITS)
                return 0;
            x = x * 10 + (uint64_t)(*p - '0');
        } else if (*p == '.' && !point && digits) {
            point = digits;
        } else {
            break;
        }
    }
    /* a number character after it (an exponent, a second point) makes it strtod's */
    if ((p < end && number_char(*p)) || !digits || (point && point == digits))
        return 0;
    double m = point ? (double)x / pow10[digits - point] : (double)x;
    *v = s[0] == '-' ? -m : m;
    return (size_t)(p - s);
}

int fastjson_decimal(const char *s, size_t len, double *v)
{
    const unsigned char *u = (const unsigned char *)s;
    return len && exact_decimal(u, u + len, v) == len;
}

/* cJSON's parse_number: the run of number characters read by strtod (in the C locale, which
 * benchdb never changes, cJSON's decimal point is '.'), valueint saturated. */
static cJSON *number(struct cursor *c)
{
    double v;
    size_t used = exact_decimal(c->p, c->end, &v);
    if (!used) {
        size_t n = 0;
        while (c->p + n < c->end && n < NUMBER_MAX && number_char(c->p[n]))
            n++;
        if (n == NUMBER_MAX)
            return NULL;
        char text[NUMBER_MAX + 1], *after;
        memcpy(text, c->p, n);
        text[n] = '\0';
        v = strtod(text, &after);
        if (!(used = (size_t)(after - text)))
            return NULL;
    }
    c->p += used;
    cJSON *x = node(c, cJSON_Number);
    x->valuedouble = v;
    x->valueint = v >= INT_MAX ? INT_MAX : v <= (double)INT_MIN ? INT_MIN : (int)v;
    return x;
}

static cJSON *literal(struct cursor *c)
{
    static const struct {
        const char *text;
        size_t len;
        int type;
    } literals[] = {{"null", 4, cJSON_NULL}, {"false", 5, cJSON_False}, {"true", 4, cJSON_True}};
    for (size_t i = 0; i < ARRAY_SIZE(literals); i++) {
        size_t len = literals[i].len;
        if ((size_t)(c->end - c->p) >= len && !memcmp(c->p, literals[i].text, len)) {
            c->p += len;
            cJSON *x = node(c, literals[i].type);
            x->valueint = literals[i].type == cJSON_True;
            return x;
        }
    }
    return NULL;
}

/* One member (key: value) or element, appended to x's children. */
static int member(struct cursor *c, cJSON *x, cJSON **tail)
{
    char *key = NULL;
    skip_space(c);
    if (x->type == cJSON_Object) {
        if (!(key = string(c)))
            return -1;
        skip_space(c);
        if (!at(c, ':'))
            return -1;
        c->p++;
        skip_space(c);
    }
    cJSON *item = value(c);
    if (!item)
        return -1;
    item->string = key;
    if (*tail) {
        (*tail)->next = item;
        item->prev = *tail;
    } else {
        x->child = item;
    }
    *tail = item;
    x->child->prev = item; /* as cJSON links them: the first's prev is the last */
    skip_space(c);
    return 0;
}

/* The span of x, opened at the current line: its index in c->spans. */
static size_t span_open(struct cursor *c, const cJSON *x)
{
    struct fastjson_spans *s = c->spans;
    ALLOC_GROW(s->v, s->n + 1, s->alloc);
    s->v[s->n] = (struct fastjson_span){x, c->line, 0};
    return s->n++;
}

/* An object or an array: cJSON's parse_object and parse_array. */
static cJSON *container(struct cursor *c, int type, unsigned char close)
{
    if (++c->depth > DEPTH_MAX)
        return NULL;
    cJSON *x = node(c, type), *tail = NULL;
    size_t span = c->spans ? span_open(c, x) : 0;
    c->p++;
    skip_space(c);
    if (!at(c, close)) {
        for (;;) {
            if (member(c, x, &tail))
                return NULL;
            if (!at(c, ','))
                break;
            c->p++;
        }
        if (!at(c, close))
            return NULL;
    }
    if (c->spans)
        c->spans->v[span].last = c->line;
    c->p++;
    c->depth--;
    return x;
}

static cJSON *value(struct cursor *c)
{
    if (c->p == c->end)
        return NULL;
    switch (*c->p) {
    case '{':
        return container(c, cJSON_Object, '}');
    case '[':
        return container(c, cJSON_Array, ']');
    case '"': {
        char *s = string(c);
        cJSON *x = s ? node(c, cJSON_String) : NULL;
        if (x)
            x->valuestring = s;
        return x;
    }
    case 'n':
    case 'f':
    case 't':
        return literal(c);
    default:
        return *c->p == '-' || (*c->p >= '0' && *c->p <= '9') ? number(c) : NULL;
    }
}

cJSON *fastjson_parse(struct arena *a, const char *s, size_t len, const char **end,
                      struct fastjson_spans *spans)
{
    struct cursor c = {
        (const unsigned char *)s, (const unsigned char *)s + len, a, 0, 1, spans, NULL, NULL};
    if (spans)
        spans->n = 0;
    if (!at(&c, '{'))
        return NULL;
    cJSON *root = value(&c);
    if (root)
        *end = (const char *)c.p;
    return root;
}

int fastjson_unterminated(const char *s, size_t len)
{
    int depth = 0, in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (in_str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = 0;
        } else if (ch == '"') {
            in_str = 1;
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if ((ch == '}' || ch == ']') && --depth == 0) {
            return 0;
        }
    }
    return 1;
}

size_t fastjson_value_at(const char *s, size_t len, const char *key, size_t from)
{
    size_t k = strlen(key);
    for (size_t i = from; i + k + 2 <= len; i++) {
        if (s[i] != '"' || memcmp(s + i + 1, key, k) || s[i + k + 1] != '"')
            continue;
        size_t j = i + k + 2;
        while (j < len && (unsigned char)s[j] <= ' ')
            j++;
        if (j >= len || s[j] != ':')
            continue;
        j++;
        while (j < len && (unsigned char)s[j] <= ' ')
            j++;
        return j;
    }
    return from;
}
