/* text_lines.h (private to ingest/): the line loop of the importers of a tool's text report
 * (sysbench, iozone, IOR, mdtest). */
#ifndef BDB_TEXT_LINES_H
#define BDB_TEXT_LINES_H

#include "../core/diag.h"

/* Calls each(ctx, line, off, lineno) for every line of src after a UTF-8 BOM, with its
 * trailing blanks cut and NUL-terminated (off: its byte offset in src, lineno: 1-based), until
 * one returns non-zero. These tools end every line they print, so a last line without its
 * newline is the input cut inside it; and a NUL byte is no text: each an error at its place
 * naming tool. Returns each's status (0 when every line was taken), or -1 after such an
 * error; *lines: the number of lines read. */
int text_lines(const struct source *src, const char *tool,
               int (*each)(void *ctx, const char *line, size_t off, unsigned lineno), void *ctx,
               struct diag *d, unsigned *lines);

#endif
