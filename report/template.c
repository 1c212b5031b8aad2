/* template.c: templates from --template DIR, else the copies compiled into the binary
 * (builtin.c), and their {{key}} placeholders expanded. */
#include "template.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* 1 when dir/name was read, 0 when there is no such file, -1 on error. */
static int load_file(const char *dir, const char *name, struct buf *out, struct diag *d)
{
    struct buf path = BUF_INIT;
    buf_addf(&path, "%s/%s", dir, name);
    FILE *f = fopen(path.data, "rb");
    int rc = 1;
    if (!f)
        rc = errno == ENOENT
                 ? 0
                 : diag_error(d, "cannot open template '%s': %s", path.data, strerror(errno));
    else if (buf_read_file(out, f))
        rc = diag_error(d, "cannot read template '%s': %s", path.data, strerror(errno));
    if (f)
        fclose(f);
    buf_release(&path);
    return rc;
}

int template_load(const char *dir, const char *name, struct buf *out, struct diag *d)
{
    int rc = dir ? load_file(dir, name, out, d) : 0;
    if (rc)
        return rc < 0 ? -1 : 0;
    size_t len;
    const char *builtin = report_builtin_file(name, &len);
    if (!builtin)
        return diag_error(d, "no template '%s'", name);
    buf_add(out, builtin, len);
    return 0;
}

int template_expand(const char *name, const char *text, const char *const *keys,
                    const char *const *values, size_t n, struct buf *out, struct diag *d)
{
    const struct source src = {name, text, strlen(text)};
    const char *p = text, *open;
    while ((open = strstr(p, "{{")) != NULL) {
        buf_add(out, p, (size_t)(open - p));
        const char *key = open + 2, *close = strstr(key, "}}");
        size_t at = (size_t)(open - text);
        if (!close)
            return diag_error_at(d, &src, at, "unterminated placeholder '%.20s'", open);
        size_t i = 0, len = (size_t)(close - key);
        while (i < n && (strlen(keys[i]) != len || strncmp(keys[i], key, len)))
            i++;
        if (i == n)
            return diag_error_at(d, &src, at, "unknown placeholder '{{%.*s}}'",
                                 (int)(len > 40 ? 40 : len), key);
        buf_adds(out, values[i]);
        p = close + 2;
    }
    buf_adds(out, p);
    return 0;
}
