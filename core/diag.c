#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *level_name[] = {"note", "warning", "error"};

/* 1-based line and column (in bytes) of a byte offset. */
static void source_locate(const struct source *src, size_t offset, unsigned *line, unsigned *col)
{
    unsigned l = 1;
    size_t bol = 0;
    if (offset > src->len)
        offset = src->len;
    for (size_t i = 0; i < offset; i++) {
        if (src->data[i] == '\n') {
            l++;
            bol = i + 1;
        }
    }
    *line = l;
    *col = (unsigned)(offset - bol) + 1;
}

unsigned source_line(const struct source *src, size_t offset)
{
    unsigned line, col;
    source_locate(src, offset, &line, &col);
    return line;
}

void diag_replay(struct diag *d, enum diag_level level, const char *line)
{
    if (level == DIAG_ERROR)
        d->errors++;
    else if (level == DIAG_WARNING)
        d->warnings++;
    if (d->emit)
        d->emit(d->ctx, level, line);
    else
        fprintf(stderr, "%s\n", line);
}

static void emit(struct diag *d, enum diag_level level, struct buf *msg)
{
    diag_replay(d, level, msg->data);
    buf_release(msg);
}

void diag_escape(struct buf *out, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n')
            buf_adds(out, "\\n");
        else if (*p == '\t')
            buf_adds(out, "\\t");
        else if (*p == '\r')
            buf_adds(out, "\\r");
        else if (*p < 0x20 || *p == 0x7f)
            buf_addf(out, "\\x%02x", *p);
        else
            buf_addc(out, (char)*p);
    }
}

/* The path and the message quote input text (file names, bytes of the file): escaped, so
 * that an input can neither drive the terminal nor split the one-line message. */
static void vreport(struct diag *d, enum diag_level level, const char *path, unsigned line,
                    unsigned col, const char *fmt, va_list ap)
{
    struct buf msg = BUF_INIT, text = BUF_INIT;
    if (path)
        diag_escape(&msg, path);
    else
        buf_adds(&msg, "benchdb");
    if (path && line && col)
        buf_addf(&msg, ":%u:%u", line, col);
    else if (path && line)
        buf_addf(&msg, ":%u", line);
    buf_addf(&msg, ": %s: ", level_name[level]);
    buf_vaddf(&text, fmt, ap);
    diag_escape(&msg, text.data);
    buf_release(&text);
    emit(d, level, &msg);
}

int diag_error_at(struct diag *d, const struct source *src, size_t offset, const char *fmt, ...)
{
    unsigned line, col;
    source_locate(src, offset, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    vreport(d, DIAG_ERROR, src->path, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

int diag_error_line(struct diag *d, const struct source *src, unsigned line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(d, DIAG_ERROR, src->path, line, 0, fmt, ap);
    va_end(ap);
    return -1;
}

int diag_error(struct diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(d, DIAG_ERROR, NULL, 0, 0, fmt, ap);
    va_end(ap);
    return -1;
}

int diag_error_path(struct diag *d, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(d, DIAG_ERROR, path, 0, 0, fmt, ap);
    va_end(ap);
    return -1;
}

void diag_warn_line(struct diag *d, const struct source *src, unsigned line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(d, DIAG_WARNING, src->path, line, 0, fmt, ap);
    va_end(ap);
}

void diag_warn(struct diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(d, DIAG_WARNING, NULL, 0, 0, fmt, ap);
    va_end(ap);
}

void diag_note(struct diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(d, DIAG_NOTE, NULL, 0, 0, fmt, ap);
    va_end(ap);
}
