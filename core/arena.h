/* arena.h: bump allocator. One arena per input file and one per report; everything
 * allocated from it is freed at once by arena_release. */
#ifndef BDB_ARENA_H
#define BDB_ARENA_H

#include <stddef.h>

struct arena_block;
/* Released blocks kept for the next arenas that use the pool: a thread that fills an arena per
 * file and releases it allocates no memory once warm (malloc'ing and freeing a block per file
 * cost page faults and heap trims). Used by one thread at a time; arena_pool_release frees. */
struct arena_pool {
    struct arena_block *free;
};
struct arena {
    struct arena_block *head;
    struct arena_pool *pool; /* NULL: blocks are malloc'ed and freed */
};
#define ARENA_INIT                                                                                 \
    {                                                                                              \
        NULL, NULL                                                                                 \
    }

void *arena_alloc(struct arena *a, size_t n);        /* zeroed, aligned for any type */
void *arena_alloc_uninit(struct arena *a, size_t n); /* the same, not zeroed */
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* An arena-held array p of n elements with room for *cap: p itself while there is room, else a
 * copy with twice the room (the old block stays in the arena until release). */
void *arena_grow(struct arena *a, void *p, size_t n, size_t *cap, size_t size);
void arena_release(struct arena *a);
void arena_pool_release(struct arena_pool *pool);

#endif
