/* ini.h: the sectioned "key = value" files benchdb reads (tiers.rules, cost files). A '#' starts
 * a comment to the end of its line; "[name]" starts a section; "key = value" is an entry of the
 * section above it (or of none, before the first); blank lines are skipped; keys and values
 * are trimmed of blanks. What the sections and keys mean is the caller's. */
#ifndef BDB_INI_H
#define BDB_INI_H

#include <stddef.h>

#include "diag.h"

struct ini_entry {
    const char *section; /* the section's name; NULL before the first */
    const char *key;     /* NULL: the line starts the section */
    const char *value;
    const char *text; /* the line, trimmed, without its comment */
    unsigned line;
};

/* The strings of e live only during the call. Returns 0 to go on, anything else to stop. */
typedef int ini_fn(void *ctx, const struct ini_entry *e);

/* Calls fn for each section start and each entry of text, in order. 0; -1 after a message
 * "path:LINE: error: expected ..." for a line that is neither; or what fn returned to stop. */
int ini_parse(const char *path, const char *text, size_t len, ini_fn *fn, void *ctx,
              struct diag *d);

#endif
