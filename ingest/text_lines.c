/* text_lines.c: the line loop of the text-report importers (text_lines.h). */
#include "text_lines.h"

#include <string.h>

#include "../core/buf.h"
#include "../core/scan.h"

int text_lines(const struct source *src, const char *tool,
               int (*each)(void *ctx, const char *line, size_t off, unsigned lineno), void *ctx,
               struct diag *d, unsigned *lines)
{
    struct line_iter it;
    const char *line;
    size_t len, skip = bom_len(src->data, src->len);
    struct buf lb = BUF_INIT;
    line_iter_init(&it, src->data + skip, src->len - skip, 0);
    int rc = 0;
    while (!rc && line_iter_next(&it, &line, &len)) {
        size_t off = (size_t)(line - src->data);
        if (line + len == src->data + src->len && len) {
            rc = diag_error_at(d, src, off,
                               "expected a whole %s line, got the end of the input (the line "
                               "is cut)",
                               tool);
            break;
        }
        while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
            len--;
        buf_reset(&lb);
        buf_add(&lb, line, len);
        const char *nul = memchr(lb.data, '\0', len);
        if (nul)
            rc = diag_error_at(d, src, off + (size_t)(nul - lb.data),
                               "unexpected NUL byte in %s output", tool);
        else
            rc = each(ctx, lb.data, off, it.lineno);
    }
    buf_release(&lb);
    *lines = it.lineno;
    return rc;
}
