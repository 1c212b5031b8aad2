/* template.h: the page templates of templates/, built into the binary and replaceable file by
 * file with --template DIR. Private to report/. */
#ifndef BDB_TEMPLATE_H
#define BDB_TEMPLATE_H

#include <stddef.h>

#include "../core/buf.h"
#include "../core/diag.h"

/* Appends the template `name`: dir/name when dir is set and has that file, else the built-in
 * copy. 0, or -1 after a message. */
int template_load(const char *dir, const char *name, struct buf *out, struct diag *d);

/* Appends text with every {{key}} replaced by its value, verbatim (values are already in the
 * output language). An unknown or unterminated placeholder is an error naming the template. */
int template_expand(const char *name, const char *text, const char *const *keys,
                    const char *const *values, size_t n, struct buf *out, struct diag *d);

#endif
