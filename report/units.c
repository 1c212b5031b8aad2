/* units.c: the one place base units become human units. Binary prefixes for bytes (as fio
 * prints MiB/s), decimal k/M for IOPS, ns/µs/ms/s for latencies. */
#include "report.h"

#include <math.h>

static void scaled(struct buf *out, double v, const double *mult, const char *const *names,
                   size_t n)
{
    size_t i = 0;
    while (i + 1 < n && fabs(v) >= mult[i + 1])
        i++;
    double x = v / mult[i];
    /* three significant digits, as engineers write them: 70.2, 1205, 0.512 */
    int prec = fabs(x) >= 100 ? 0 : fabs(x) >= 10 ? 1 : 2;
    buf_addf(out, "%.*f %s", prec, x, names[i]);
}

void unit_format(struct buf *out, double v, enum unit u)
{
    static const double bin[] = {1, 1024.0, 1048576.0, 1073741824.0, 1099511627776.0};
    static const char *const bps[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"};
    static const char *const bytes[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    static const double dec[] = {1, 1e3, 1e6, 1e9};
    static const char *const ops[] = {"", "k", "M", "G"};
    static const double ns[] = {1, 1e3, 1e6, 1e9};
    static const char *const lat[] = {"ns", "\xc2\xb5s", "ms", "s"};
    if (!isfinite(v)) {
        buf_adds(out, "n/a");
        return;
    }
    switch (u) {
    case UNIT_BYTES_S: scaled(out, v, bin, bps, 5); break;
    case UNIT_BYTES: scaled(out, v, bin, bytes, 5); break;
    case UNIT_NS: scaled(out, v, ns, lat, 4); break;
    case UNIT_IOPS: {
        size_t i = 0;
        while (i + 1 < 4 && fabs(v) >= dec[i + 1])
            i++;
        double x = v / dec[i];
        int prec = i == 0 ? 0 : fabs(x) >= 100 ? 0 : 1;
        buf_addf(out, "%.*f%s", prec, x, ops[i]);
        break;
    }
    case UNIT_RATIO: buf_addf(out, "%.1fx", v); break;
    case UNIT_PERCENT: buf_addf(out, "%.1f %%", v); break;
    case UNIT_NONE: buf_addf(out, "%g", v); break;
    }
}

const char *unit_name(enum unit u)
{
    switch (u) {
    case UNIT_BYTES_S: return "bytes/s";
    case UNIT_BYTES: return "bytes";
    case UNIT_IOPS: return "IOPS";
    case UNIT_NS: return "ns";
    case UNIT_RATIO: return "x";
    case UNIT_PERCENT: return "%";
    case UNIT_NONE: break;
    }
    return "";
}
