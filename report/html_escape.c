/* html_escape.c: text for HTML (html_escape.h), the one escaper of the page and its SVG. */
#include "html_escape.h"

#include <string.h>

void html_escape_n(struct buf *out, const char *s, size_t n)
{
    for (const char *end = s + n; s < end; s++) {
        switch (*s) {
        case '&':
            buf_adds(out, "&amp;");
            break;
        case '<':
            buf_adds(out, "&lt;");
            break;
        case '>':
            buf_adds(out, "&gt;");
            break;
        case '"':
            buf_adds(out, "&quot;");
            break;
        case '\'':
            buf_adds(out, "&#39;");
            break;
        default:
            buf_addc(out, *s);
        }
    }
}

void html_escape(struct buf *out, const char *s)
{
    if (s)
        html_escape_n(out, s, strlen(s));
}
