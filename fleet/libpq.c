/* libpq.c: libpq loaded when a command first needs it (libpq.h says why). */
#define LIBPQ_LOADER
#include "libpq.h"

#include <dlfcn.h>
#include <string.h>

/* Until libpq is loaded, no connection exists; PQfinish(NULL), which libpq allows and the
 * commands' cleanup calls after a failed connect, does nothing. */
static void finish_no_connection(PGconn *c)
{
    (void)c;
}

struct libpq_api libpq = {.PQfinish = finish_no_connection};

int libpq_load(const char *who, struct diag *d)
{
    static void *handle;
    if (handle)
        return 0;
    void *h = dlopen(BENCHDB_LIBPQ_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return diag_error_path(d, who,
                               "cannot load PostgreSQL's client library, which the fleet's "
                               "commands need: %s (Debian: apt-get install libpq5)",
                               dlerror());
        /* dlsym's object pointer copied into a function pointer, as POSIX has it done */
#define LIBPQ_RESOLVE(name)                                                                        \
    {                                                                                              \
        void *f = dlsym(h, #name);                                                                 \
        if (!f) {                                                                                  \
            diag_error_path(d, who, "%s has no %s: a libpq older than benchdb needs",              \
                            BENCHDB_LIBPQ_SONAME, #name);                                          \
            dlclose(h);                                                                            \
            return -1;                                                                             \
        }                                                                                          \
        memcpy(&libpq.name, &f, sizeof(f));                                                        \
    }
    LIBPQ_FUNCTIONS(LIBPQ_RESOLVE)
#undef LIBPQ_RESOLVE
    handle = h;
    return 0;
}
