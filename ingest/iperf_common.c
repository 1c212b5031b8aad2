#include "iperf_common.h"

#include <ctype.h>
#include <string.h>

#include "../core/array.h"
#include "../core/scan.h"

struct bench_record *iperf_record(struct arena *a, const char *tool, const char *version,
                                  const char *direction, const char *protocol)
{
    struct bench_record *r = record_new(a, tool);
    r->tool_version = version;
    r->direction = direction;
    if (protocol)
        record_tag(a, r, "protocol", protocol);
    return r;
}

void iperf_metric(struct arena *a, struct bench_record *r, const char *name, double value)
{
    if (value >= 0)
        record_metric(a, r, name, value);
}

static int eq(const char *u, size_t n, const char *lit)
{
    return strlen(lit) == n && !memcmp(u, lit, n);
}

/* Transfer units: Bytes, KBytes, MBytes, GBytes, TBytes (1024-based); 0 when unknown. */
static double iperf_bytes_unit(const char *u, size_t n)
{
    static const char *const names[] = {"Bytes", "KBytes", "MBytes", "GBytes", "TBytes"};
    double m = 1;
    for (size_t i = 0; i < ARRAY_SIZE(names); i++, m *= 1024)
        if (eq(u, n, names[i]))
            return m;
    return 0;
}

/* Rate units in bits/s: bits/sec .. Tbits/sec (1000-based) and Bytes/sec .. GBytes/sec
 * (-f K/M/G, 1024-based); 0 when unknown. */
static double iperf_rate_unit(const char *u, size_t n)
{
    if (n < 4 || memcmp(u + n - 4, "/sec", 4))
        return 0;
    n -= 4;
    double b = iperf_bytes_unit(u, n);
    if (b)
        return b * 8;
    return unit_bits(u, n);
}

static const char *word_end(const char *p, const char *end)
{
    while (p < end && *p != ' ' && *p != '\t')
        p++;
    return p;
}

static const char *ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* scan_number on a bounded, not NUL-terminated span: copies the token first. */
static int num_at(const char **p, const char *end, double *v)
{
    char tmp[48];
    size_t n = 0;
    const char *q = *p;
    while (q + n < end && n < sizeof(tmp) - 1 &&
           (isdigit((unsigned char)q[n]) || q[n] == '.' || q[n] == '-' || q[n] == '+' ||
            q[n] == 'e' || q[n] == 'E'))
        n++;
    memcpy(tmp, q, n);
    tmp[n] = '\0';
    const char *t = tmp;
    if (!scan_number(&t, v))
        return 0;
    *p = q + (t - tmp);
    return 1;
}

static int int_at(const char **p, const char *end, int64_t *v)
{
    const char *q = *p;
    int64_t x = 0;
    if (q >= end || !isdigit((unsigned char)*q))
        return 0;
    while (q < end && isdigit((unsigned char)*q)) {
        if (x > (INT64_MAX - 9) / 10)
            return 0;
        x = x * 10 + (*q++ - '0');
    }
    *v = x;
    *p = q;
    return 1;
}

/* `[  5]`, `[SUM]`, `[  5][TX-C]`, `[SUM][RX-S]` */
static int parse_id(const char **pp, const char *end, struct iperf_row *row)
{
    const char *p = *pp;
    if (p >= end || *p != '[')
        return 0;
    p = ws(p + 1, end);
    row->star = p < end && *p == '*'; /* iperf 2.1: a reverse-direction stream */
    if (row->star)
        p++;
    if (end - p >= 3 && !memcmp(p, "SUM", 3)) {
        row->id = -1;
        p += 3;
    } else if (!int_at(&p, end, &row->id)) {
        return 0;
    }
    if (p >= end || *p != ']')
        return 0;
    p++;
    row->role[0] = '\0';
    if (end - p >= 6 && p[0] == '[' && p[5] == ']' && (p[1] == 'T' || p[1] == 'R')) {
        memcpy(row->role, p + 1, 4);
        row->role[4] = '\0';
        p += 6;
    }
    *pp = p;
    return 1;
}

int iperf_parse_row(const char *line, size_t len, struct iperf_row *row)
{
    const char *p = line, *end = line + len, *u;
    double v;
    if (!parse_id(&p, end, row))
        return 0;
    p = ws(p, end);
    if (!num_at(&p, end, &row->start) || p >= end || *p != '-')
        return 0;
    p = ws(p + 1, end); /* iperf 2.0 prints ` 0.0- 1.0` */
    if (!num_at(&p, end, &row->end) || row->start < 0 || row->end < row->start)
        return 0;
    p = ws(p, end);
    if (end - p < 3 || memcmp(p, "sec", 3))
        return 0;
    p = ws(p + 3, end);
    if (!num_at(&p, end, &v) || v < 0)
        return 0;
    p = ws(p, end);
    u = p;
    p = word_end(p, end);
    double m = iperf_bytes_unit(u, (size_t)(p - u));
    if (!m)
        return 0;
    row->bytes = v * m;
    p = ws(p, end);
    if (!num_at(&p, end, &v) || v < 0)
        return 0;
    p = ws(p, end);
    u = p;
    p = word_end(p, end);
    m = iperf_rate_unit(u, (size_t)(p - u));
    if (!m)
        return 0;
    row->bps = v * m;
    row->tail = p;
    row->tail_len = (size_t)(end - p);
    return 1;
}

int iperf_parse_udp(const char *s, size_t n, double *jitter_ms, int64_t *lost, int64_t *total,
                    double *loss_pct)
{
    const char *p = s, *end = s + n;
    p = ws(p, end);
    if (!num_at(&p, end, jitter_ms) || *jitter_ms < 0)
        return 0;
    p = ws(p, end);
    if (end - p < 2 || memcmp(p, "ms", 2))
        return 0;
    p = ws(p + 2, end);
    if (!int_at(&p, end, lost) || p >= end || *p != '/')
        return 0;
    p = ws(p + 1, end); /* iperf 2.0: `0/ 5350` */
    if (!int_at(&p, end, total))
        return 0;
    p = ws(p, end);
    *loss_pct = -1;
    if (p < end && *p == '(') {
        p++;
        double v;
        if (num_at(&p, end, &v) && p < end && *p == '%')
            *loss_pct = v;
    }
    return 1;
}
