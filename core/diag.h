/* diag.h: diagnostics in GCC's form, `path:line[:col]: severity: message`.
 * Everything user-facing goes through a struct diag; only diag.c and cli/ write to stderr. */
#ifndef BDB_DIAG_H
#define BDB_DIAG_H

#include <stddef.h>

#include "buf.h"

enum diag_level { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR };

struct diag {
    /* Receives one formatted line without the trailing newline. NULL: stderr. */
    void (*emit)(void *ctx, enum diag_level level, const char *line);
    void *ctx;
    unsigned errors, warnings;
    /* Set by the caller: an importer may then add a note per input line it could not use. */
    int verbose;
};
#define DIAG_INIT                                                                                  \
    {                                                                                              \
        NULL, NULL, 0, 0, 0                                                                        \
    }

/* An input being read: the whole content in memory, with the name used in messages. */
struct source {
    const char *path; /* as given by the user; "<stdin>" for - */
    const char *data; /* NUL-terminated copy of the content (may contain NULs) */
    size_t len;
};

/* 1-based line number of a byte offset. */
unsigned source_line(const struct source *src, size_t offset);

/* Each returns -1 so that call sites read `return diag_error(...)`. */
int diag_error_at(struct diag *d, const struct source *src, size_t offset, const char *fmt, ...)
    BDB_PRINTF(4, 5);
int diag_error_line(struct diag *d, const struct source *src, unsigned line, const char *fmt, ...)
    BDB_PRINTF(4, 5);
int diag_error(struct diag *d, const char *fmt, ...) BDB_PRINTF(2, 3);
/* `path: error: ...`: about a whole file (no line in it to point at). */
int diag_error_path(struct diag *d, const char *path, const char *fmt, ...) BDB_PRINTF(3, 4);
void diag_warn_line(struct diag *d, const struct source *src, unsigned line, const char *fmt, ...)
    BDB_PRINTF(4, 5);
void diag_warn(struct diag *d, const char *fmt, ...) BDB_PRINTF(2, 3);
void diag_note(struct diag *d, const char *fmt, ...) BDB_PRINTF(2, 3);
/* Passes a diagnostic line, already formatted (by a struct diag of another thread), to d as
 * if reported there. */
void diag_replay(struct diag *d, enum diag_level level, const char *line);
/* Appends text with C0 control characters and DEL escaped (\n, \t, \r, else \xHH), as every
 * diagnostic prints input text; for the messages cli/ writes itself. */
void diag_escape(struct buf *out, const char *text);

#endif
