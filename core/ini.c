/* ini.c: the sectioned "key = value" files (ini.h). */
#include "ini.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "scan.h"
#include "xalloc.h"

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

static int expected(struct diag *d, const char *path, unsigned line, const char *what,
                    const char *text)
{
    struct source src = {path, "", 0};
    return diag_error_line(d, &src, line, "expected %s, got '%s'", what, text);
}

/* One line (a NUL-terminated copy), its comment already cut: 0, or a stop. */
static int ini_line(const char *path, char *line, unsigned lineno, struct buf *section, ini_fn *fn,
                    void *ctx, struct diag *d)
{
    line = trim(line);
    if (!*line)
        return 0;
    struct ini_entry e = {section->len ? section->data : NULL, NULL, NULL, line, lineno};
    if (line[0] == '[') {
        char *end = strchr(line, ']');
        if (!end || end == line + 1 || *trim(end + 1))
            return expected(d, path, lineno, "[name]", line);
        buf_reset(section);
        buf_add(section, line + 1, (size_t)(end - line - 1));
        e.section = section->data;
        return fn(ctx, &e);
    }
    char *eq = strchr(line, '=');
    if (!eq || eq == line)
        return expected(d, path, lineno, "key = value", line);
    char *text = xstrdup(line); /* e.text stays whole while key and value are cut from line */
    *eq = '\0';
    e.key = trim(line);
    e.value = trim(eq + 1);
    e.text = text;
    int rc = fn(ctx, &e);
    free(text);
    return rc;
}

int ini_parse(const char *path, const char *text, size_t len, ini_fn *fn, void *ctx, struct diag *d)
{
    struct line_iter it;
    const char *l;
    size_t n;
    struct buf section = BUF_INIT, line = BUF_INIT;
    int rc = 0;
    line_iter_init(&it, text, len, 0);
    while (rc == 0 && line_iter_next(&it, &l, &n)) {
        buf_reset(&line);
        buf_add(&line, l, n);
        char *hash = strchr(line.data, '#');
        if (hash)
            *hash = '\0';
        rc = ini_line(path, line.data, it.lineno, &section, fn, ctx, d);
    }
    buf_release(&section);
    buf_release(&line);
    return rc;
}
