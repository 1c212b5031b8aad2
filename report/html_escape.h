/* html_escape.h (private to report/): text and attribute values for HTML, for render_html.c's
 * page and plot_svg.c's drawings: & < > " ' as entities, every other byte as it is. */
#ifndef BDB_HTML_ESCAPE_H
#define BDB_HTML_ESCAPE_H

#include <stddef.h>

#include "../core/buf.h"

/* Appends s (n bytes) escaped. */
void html_escape_n(struct buf *out, const char *s, size_t n);
/* Appends s escaped; nothing for NULL. */
void html_escape(struct buf *out, const char *s);

#endif
