#include "arena.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    alignas(max_align_t) unsigned char mem[];
};

enum { ARENA_BLOCK = 64 * 1024 };

/* An empty block for at least n bytes: a pooled one when it is large enough. */
static struct arena_block *new_block(struct arena_pool *pool, size_t n)
{
    struct arena_block *b = pool ? pool->free : NULL;
    if (b && b->cap >= n) {
        pool->free = b->next;
    } else {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = xmalloc(sizeof(*b) + cap);
        b->cap = cap;
    }
    b->used = 0;
    return b;
}

void *arena_alloc_uninit(struct arena *a, size_t n)
{
    size_t al = alignof(max_align_t);
    n = (n + al - 1) / al * al;
    struct arena_block *b = a->head;
    if (!b || b->cap - b->used < n) {
        b = new_block(a->pool, n);
        b->next = a->head;
        a->head = b;
    }
    void *p = b->mem + b->used;
    b->used += n;
    return p;
}

void *arena_alloc(struct arena *a, size_t n)
{
    return memset(arena_alloc_uninit(a, n), 0, n);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
    return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
    va_list ap, cp;
    va_start(ap, fmt);
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    char *p = arena_alloc(a, n > 0 ? (size_t)n + 1 : 1);
    if (n > 0)
        vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void *arena_grow(struct arena *a, void *p, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return p;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *q = arena_alloc(a, ncap * size);
    if (n)
        memcpy(q, p, n * size);
    *cap = ncap;
    return q;
}

void arena_release(struct arena *a)
{
    while (a->head) {
        struct arena_block *b = a->head;
        a->head = b->next;
        /* only standard blocks are pooled: a rare huge one is not held for later */
        if (a->pool && b->cap == ARENA_BLOCK) {
            b->next = a->pool->free;
            a->pool->free = b;
        } else {
            free(b);
        }
    }
}

void arena_pool_release(struct arena_pool *pool)
{
    while (pool->free) {
        struct arena_block *next = pool->free->next;
        free(pool->free);
        pool->free = next;
    }
}
