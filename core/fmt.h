/* fmt.h: number and string formatting for JSON text. */
#ifndef BDB_FMT_H
#define BDB_FMT_H

#include "buf.h"

/* Shortest text that reads back to the same double; integers without a fraction. */
void fmt_plain_number(struct buf *out, double v);
/* As fmt_plain_number, or null for NaN/inf (JSON has neither). */
void fmt_json_number(struct buf *out, double v);
void fmt_json_string(struct buf *out, const char *s);

#endif
