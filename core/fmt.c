#include "fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void fmt_plain_number(struct buf *out, double v)
{
    if (v == floor(v) && fabs(v) < 9e15) {
        buf_addf(out, "%.0f", v);
        return;
    }
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    buf_adds(out, tmp);
}

void fmt_json_number(struct buf *out, double v)
{
    if (!isfinite(v))
        buf_adds(out, "null");
    else
        fmt_plain_number(out, v);
}

void fmt_json_string(struct buf *out, const char *s)
{
    buf_addc(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            buf_adds(out, "\\\"");
            break;
        case '\\':
            buf_adds(out, "\\\\");
            break;
        case '\n':
            buf_adds(out, "\\n");
            break;
        case '\r':
            buf_adds(out, "\\r");
            break;
        case '\t':
            buf_adds(out, "\\t");
            break;
        default:
            if (*p < 0x20)
                buf_addf(out, "\\u%04x", *p);
            else
                buf_addc(out, (char)*p);
        }
    }
    buf_addc(out, '"');
}
