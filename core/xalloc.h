/* xalloc.h: allocation that never returns NULL. Out of memory is handled in
 * one place (print and exit 3), so no caller checks for NULL. */
#ifndef BDB_XALLOC_H
#define BDB_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#define ALLOC_GROW(p, nr, alloc)                                                                   \
    do {                                                                                           \
        if ((nr) >= (alloc)) {                                                                     \
            (alloc) = (alloc) ? (alloc)*2 : 8;                                                     \
            (p) = xrealloc((p), (alloc) * sizeof(*(p)));                                           \
        }                                                                                          \
    } while (0)

#endif
