#include "distance.h"

#include <stdint.h>

/* The characters of s (UTF-8; a stray byte counts as one), ASCII letters lowered, into out
 * (NULL: counted only); the count, or -1 when over DISTANCE_MAX_CHARS. */
static int decode(const char *s, uint32_t *out)
{
    const unsigned char *p = (const unsigned char *)s;
    int n = 0;
    while (*p) {
        if (n == DISTANCE_MAX_CHARS)
            return -1;
        uint32_t c = *p++;
        int more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
        if (more) {
            c &= 0x3fu >> more;
            for (; more && (*p & 0xc0) == 0x80; more--)
                c = c << 6 | (*p++ & 0x3fu);
        } else if (c >= 'A' && c <= 'Z') {
            c += 'a' - 'A';
        }
        if (out)
            out[n] = c;
        n++;
    }
    return n;
}

static int min3(int a, int b, int c)
{
    int m = a < b ? a : b;
    return m < c ? m : c;
}

/* The distance of str_nearest; -1 when a or b is longer than DISTANCE_MAX_CHARS characters. */
static int distance(const char *a, const char *b)
{
    uint32_t x[DISTANCE_MAX_CHARS], y[DISTANCE_MAX_CHARS];
    int rows[3][DISTANCE_MAX_CHARS + 1];
    int n = decode(a, x), m = decode(b, y);
    if (n < 0 || m < 0)
        return -1;
    int *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (int j = 0; j <= m; j++)
        prev[j] = j;
    for (int i = 1; i <= n; i++) {
        cur[0] = i;
        for (int j = 1; j <= m; j++) {
            int cost = x[i - 1] != y[j - 1];
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] &&
                prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1; /* a transposition: "reprot" */
        }
        int *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

const char *str_nearest(const char *word, const char *const *names, size_t n, int min_edits)
{
    int len = decode(word, NULL), best = -1;
    const char *found = NULL;
    if (len <= 0)
        return NULL;
    int limit = len / 3 > min_edits ? len / 3 : min_edits;
    for (size_t i = 0; i < n && names[i]; i++) {
        int d = distance(word, names[i]);
        if (d >= 0 && d <= limit && d < len && (best < 0 || d < best)) {
            best = d;
            found = names[i];
        }
    }
    return found;
}
