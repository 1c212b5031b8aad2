/* csv_field.c: one CSV field, quoted by libcsv, guarded against spreadsheet formulas. */
#include <csv.h>
#include <string.h>

#include "report.h"

void report_csv_field(struct buf *out, const char *s)
{
    int formula = s[0] && strchr("=+-@\t\r", s[0]);
    if (!formula && !strpbrk(s, ",\"\r\n")) {
        buf_adds(out, s);
        return;
    }
    /* libcsv does the RFC 4180 quoting; the guard goes inside the quotes */
    struct buf guarded = BUF_INIT;
    if (formula)
        buf_addc(&guarded, '\'');
    buf_adds(&guarded, s);
    size_t need = csv_write(NULL, 0, guarded.data, guarded.len);
    buf_grow(out, need);
    csv_write(out->data + out->len, need, guarded.data, guarded.len);
    out->len += need;
    out->data[out->len] = '\0';
    buf_release(&guarded);
}
