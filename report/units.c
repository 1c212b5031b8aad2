/* units.c: the one place base units become human units. Binary prefixes for bytes (as fio
 * prints MiB/s), decimal k/M for IOPS, ns/µs/ms/s for latencies. */
#include "report.h"

#include <math.h>
#include <string.h>

#include "../core/scan.h"

static const double bin[] = {1, 1024.0, 1048576.0, 1073741824.0, 1099511627776.0};
static const double dec[] = {1, 1e3, 1e6, 1e9};

/* The largest step of mult[] that v reaches (the first one below it). */
static size_t step(double v, const double *mult, size_t n)
{
    size_t i = 0;
    while (i + 1 < n && fabs(v) >= mult[i + 1])
        i++;
    return i;
}

double unit_scale(double v, enum unit u, const char **name)
{
    static const char *const bps[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"};
    static const char *const bytes[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    static const char *const ops[] = {"", "k", "M", "G"};
    static const char *const lat[] = {"ns", "\xc2\xb5s", "ms", "s"};
    size_t i;
    switch (u) {
    case UNIT_BYTES_S:
        i = step(v, bin, 5);
        *name = bps[i];
        return bin[i];
    case UNIT_BYTES:
        i = step(v, bin, 5);
        *name = bytes[i];
        return bin[i];
    case UNIT_NS:
        i = step(v, dec, 4);
        *name = lat[i];
        return dec[i];
    case UNIT_IOPS:
        i = step(v, dec, 4);
        *name = ops[i];
        return dec[i];
    case UNIT_RATIO:
        *name = "x";
        return 1;
    case UNIT_PERCENT:
        *name = "%";
        return 1;
    case UNIT_BITS_S: {
        static const char *const bits[] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s"};
        i = step(v, dec, 4);
        *name = bits[i];
        return dec[i];
    }
    case UNIT_NONE:
        break;
    }
    *name = "";
    return 1;
}

void unit_format(struct buf *out, double v, enum unit u)
{
    if (!isfinite(v)) {
        buf_adds(out, "n/a");
        return;
    }
    const char *name;
    double x = v / unit_scale(v, u, &name);
    switch (u) {
    case UNIT_BYTES_S:
    case UNIT_BYTES:
    case UNIT_BITS_S:
    case UNIT_NS: {
        /* three significant digits, as engineers write them: 70.2, 1205, 0.512 */
        int prec = fabs(x) >= 100 ? 0 : fabs(x) >= 10 ? 1 : 2;
        buf_addf(out, "%.*f %s", prec, x, name);
        break;
    }
    case UNIT_IOPS: {
        int prec = fabs(v) < 1e3 ? 0 : fabs(x) >= 100 ? 0 : 1;
        buf_addf(out, "%.*f%s", prec, x, name);
        break;
    }
    case UNIT_RATIO:
        buf_addf(out, "%.1fx", v);
        break;
    case UNIT_PERCENT:
        buf_addf(out, "%.1f %%", v);
        break;
    case UNIT_NONE:
        buf_addf(out, "%g", v);
        break;
    }
}

const char *unit_name(enum unit u)
{
    switch (u) {
    case UNIT_BYTES_S:
        return "bytes/s";
    case UNIT_BYTES:
        return "bytes";
    case UNIT_IOPS:
        return "IOPS";
    case UNIT_NS:
        return "ns";
    case UNIT_RATIO:
        return "x";
    case UNIT_PERCENT:
        return "%";
    case UNIT_BITS_S:
        return "bits/s";
    case UNIT_NONE:
        break;
    }
    return "";
}

int cell_averaged(const struct cell *c)
{
    return c->n > 1;
}

int cell_has_spread(const struct cell *c)
{
    return cell_averaged(c) && isfinite(c->sd);
}

const struct value_marks VALUE_MARKS_TEXT = {" \xc2\xb1 ", "", " (n=", ")", "; ", " IOPS"};

void value_format(struct buf *out, const struct cell *c, enum unit u, const struct value_marks *m)
{
    unit_format(out, c->value, u);
    if (cell_has_spread(c)) {
        buf_adds(out, m->sd_open);
        /* repeats that all gave one value (fio reports a percentile by its latency bin) have
         * no spread, in no unit: "94.9 ms ± 0", not "± 0.00 ns" */
        if (c->sd == 0)
            buf_addc(out, '0');
        else
            unit_format(out, c->sd, u);
        buf_adds(out, m->sd_close);
    }
    if (cell_averaged(c))
        buf_addf(out, "%s%d%s", m->n_open, c->n, m->n_close);
    if (m->alt_open && isfinite(c->alt)) {
        buf_adds(out, m->alt_open);
        unit_format(out, c->alt, UNIT_IOPS);
        buf_adds(out, m->alt_close);
    }
}

int unit_parse(const char *s, enum unit u, double *out)
{
    const char *p = s;
    double v, mult;
    if (!scan_number(&p, &v) || v < 0)
        return -1;
    p = skip_ws(p);
    size_t n = strlen(p);
    if (n >= 2 && !strcmp(p + n - 2, "/s"))
        n -= 2;
    if (n == 0)
        mult = 1;
    else if (u == UNIT_NS)
        mult = unit_time_ns(p, n);
    else if (u == UNIT_BYTES_S || u == UNIT_BYTES)
        mult = unit_bytes(p, n, 0);
    else if (u == UNIT_PERCENT)
        mult = n == 1 && p[0] == '%';
    else
        mult = n == 1 && unit_count_suffix(p[0]) != 1 ? unit_count_suffix(p[0]) : 0;
    if (mult == 0)
        return -1;
    *out = v * mult;
    return 0;
}
