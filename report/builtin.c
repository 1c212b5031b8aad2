/* builtin.c: the files of templates/ compiled into the binary (see bdb_embed in CMakeLists). */
#include "report.h"

#include <string.h>

#include "../core/array.h"

#define EMBED(ident, name)                                                                         \
    extern const unsigned char ident[];                                                            \
    extern const size_t ident##_len;
#include "templates.h"
#undef EMBED

static const struct builtin {
    const char *name;
    const unsigned char *data;
    const size_t *len;
} builtins[] = {
#define EMBED(ident, name) {name, ident, &ident##_len},
#include "templates.h"
#undef EMBED
};

const char *report_builtin_file(const char *name, size_t *len)
{
    for (size_t i = 0; i < ARRAY_SIZE(builtins); i++) {
        if (!strcmp(builtins[i].name, name)) {
            *len = *builtins[i].len;
            return (const char *)builtins[i].data;
        }
    }
    return NULL;
}
