#include "scan.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "array.h"

void line_iter_init(struct line_iter *it, const char *data, size_t len, int cr_is_newline)
{
    it->p = data;
    it->end = data + len;
    it->lineno = 0;
    it->cr_is_newline = cr_is_newline;
}

int line_iter_next(struct line_iter *it, const char **line, size_t *len)
{
    if (it->p >= it->end)
        return 0;
    const char *s = it->p, *q = s;
    if (!it->cr_is_newline) { /* memchr: every probe walks the lines of up to 1 MiB */
        q = memchr(s, '\n', (size_t)(it->end - s));
        if (!q)
            q = it->end;
    } else {
        while (q < it->end && *q != '\n' && *q != '\r')
            q++;
    }
    size_t n = (size_t)(q - s);
    if (q < it->end) {
        if (*q == '\r' && q + 1 < it->end && q[1] == '\n')
            q++;
        q++;
    }
    /* a CRLF line keeps no trailing CR */
    if (n && s[n - 1] == '\r')
        n--;
    it->p = q;
    it->lineno++;
    *line = s;
    *len = n;
    return 1;
}

void field_iter_init(struct field_iter *it, const char *s, size_t n, char sep)
{
    it->p = s;
    it->end = s + n;
    it->sep = sep;
}

int field_iter_next(struct field_iter *it, const char **field, size_t *len)
{
    if (!it->p)
        return 0;
    const char *sep = memchr(it->p, it->sep, (size_t)(it->end - it->p));
    const char *stop = sep ? sep : it->end;
    *field = it->p;
    *len = (size_t)(stop - it->p);
    it->p = sep ? sep + 1 : NULL;
    return 1;
}

const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

const char *mem_find(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    if (m == 0)
        return hay;
    for (size_t i = 0; i + m <= n; i++)
        if (hay[i] == needle[0] && !memcmp(hay + i, needle, m))
            return hay + i;
    return NULL;
}

int mem_starts(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && !memcmp(s, lit, k);
}

int mem_ends(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && !memcmp(s + n - k, lit, k);
}

int str_starts(const char *s, const char *lit)
{
    return !strncmp(s, lit, strlen(lit));
}

int str_ends(const char *s, const char *lit)
{
    return mem_ends(s, strlen(s), lit);
}

int str_contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; hay && *hay; hay++)
        if (!strncasecmp(hay, needle, n))
            return 1;
    return 0;
}

size_t bom_len(const char *s, size_t n)
{
    return mem_starts(s, n, "\xef\xbb\xbf") ? 3 : 0;
}

int scan_number(const char **p, double *v)
{
    const char *s = *p, *q = s;
    if (*q == '+' || *q == '-')
        q++;
    const char *digits = q;
    while (isdigit((unsigned char)*q))
        q++;
    int have = q > digits;
    if (*q == '.') {
        q++;
        const char *frac = q;
        while (isdigit((unsigned char)*q))
            q++;
        have |= q > frac;
    }
    if (!have)
        return 0;
    if ((*q == 'e' || *q == 'E') &&
        (isdigit((unsigned char)q[1]) ||
         ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2])))) {
        q += 2;
        while (isdigit((unsigned char)*q))
            q++;
    }
    char tmp[64];
    size_t n = (size_t)(q - s);
    double d;
    if (n < sizeof(tmp)) {
        memcpy(tmp, s, n);
        tmp[n] = '\0';
        d = strtod(tmp, NULL);
    } else {
        char *big = strndup(s, n);
        if (!big)
            return 0;
        d = strtod(big, NULL);
        free(big);
    }
    if (!isfinite(d))
        return 0;
    *v = d;
    *p = q;
    return 1;
}

int scan_int64(const char **p, int64_t *v)
{
    const char *q = *p;
    int64_t x = 0;
    if (!isdigit((unsigned char)*q))
        return 0;
    while (isdigit((unsigned char)*q)) {
        int d = *q - '0';
        if (x > (INT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
        q++;
    }
    *v = x;
    *p = q;
    return 1;
}

int64_t scan_env_int64(const char *name, int64_t fallback)
{
    const char *s = getenv(name);
    int64_t v;
    return s && scan_int64(&s, &v) && !*s ? v : fallback;
}

int scan_quantity(const char **p, double *v, const char **unit, size_t *unit_len)
{
    const char *q = *p;
    if (!scan_number(&q, v) || *v < 0)
        return 0;
    *unit = q;
    while (isalpha((unsigned char)*q))
        q++;
    *unit_len = (size_t)(q - *unit);
    *p = q;
    return 1;
}

int scan_lit(const char **p, const char *lit)
{
    size_t n = strlen(lit);
    if (strncmp(*p, lit, n))
        return 0;
    *p += n;
    return 1;
}

static int eq(const char *u, size_t n, const char *lit)
{
    return strlen(lit) == n && !memcmp(u, lit, n);
}

double unit_bytes(const char *u, size_t n, int binary_k)
{
    static const struct {
        const char *name;
        double mult;
    } tab[] = {
        {"B", 1},
        {"KiB", 1024.0},
        {"MiB", 1048576.0},
        {"GiB", 1073741824.0},
        {"TiB", 1099511627776.0},
        {"PiB", 1125899906842624.0},
        {"kB", 1e3},
        {"KB", 1e3},
        {"MB", 1e6},
        {"GB", 1e9},
        {"TB", 1e12},
        {"PB", 1e15},
    };
    if (n == 0)
        return 1;
    if (binary_k && n <= 2 && (n == 1 || u[1] == 'b' || u[1] == 'B')) {
        switch (u[0]) {
        case 'k':
        case 'K':
            return 1024.0;
        case 'm':
        case 'M':
            return 1048576.0;
        case 'g':
        case 'G':
            return 1073741824.0;
        case 't':
        case 'T':
            return 1099511627776.0;
        case 'b':
        case 'B':
            return n == 1 ? 1 : 0;
        default:
            break;
        }
    }
    for (size_t i = 0; i < ARRAY_SIZE(tab); i++)
        if (eq(u, n, tab[i].name))
            return tab[i].mult;
    return 0;
}

double unit_time_ns(const char *u, size_t n)
{
    if (eq(u, n, "nsec") || eq(u, n, "ns"))
        return 1;
    if (eq(u, n, "usec") || eq(u, n, "us") || eq(u, n, "\xc2\xb5s"))
        return 1e3;
    if (eq(u, n, "msec") || eq(u, n, "ms"))
        return 1e6;
    if (eq(u, n, "sec") || eq(u, n, "s") || eq(u, n, "secs"))
        return 1e9;
    return 0;
}

double unit_bits(const char *u, size_t n)
{
    if (eq(u, n, "bits"))
        return 1;
    if (eq(u, n, "Kbits") || eq(u, n, "kbits"))
        return 1e3;
    if (eq(u, n, "Mbits"))
        return 1e6;
    if (eq(u, n, "Gbits"))
        return 1e9;
    if (eq(u, n, "Tbits"))
        return 1e12;
    return 0;
}

double unit_count_suffix(char c)
{
    switch (c) {
    case 'k':
    case 'K':
        return 1e3;
    case 'm':
    case 'M':
        return 1e6;
    case 'g':
    case 'G':
        return 1e9;
    default:
        return 1;
    }
}

int parse_fio_size(const char *s, int64_t *bytes)
{
    const char *p = s, *u;
    double v;
    size_t un;
    if (!scan_quantity(&p, &v, &u, &un) || *p)
        return 0;
    double m = unit_bytes(u, un, 1);
    if (m == 0 && un == 3 && u[1] == 'i')
        m = unit_bytes(u, 3, 0); /* KiB/MiB */
    if (m == 0)
        return 0;
    double b = v * m;
    if (b > 9.2e18)
        return 0;
    *bytes = (int64_t)llround(b);
    return 1;
}

int parse_duration(const char *s, size_t n, double *secs)
{
    const char *p = s, *end = s + n;
    double total = 0;
    int parts = 0;
    while (p < end) {
        double v;
        if (!scan_number(&p, &v) || v < 0 || p > end)
            return 0;
        parts++;
        if (p == end) {
            total += v;
            break;
        }
        switch (*p++) {
        case 'd':
            total += v * 86400;
            break;
        case 'h':
            total += v * 3600;
            break;
        case 'm':
            total += v * 60;
            break;
        case 's':
            total += v;
            break;
        default:
            return 0;
        }
    }
    if (!parts)
        return 0;
    *secs = total;
    return 1;
}
