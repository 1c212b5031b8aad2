#include "strmap.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "xalloc.h"

/* The slot of key: its entry, or the free slot where it would go. cap is a power of two and
 * at least one slot is free, so the walk ends. */
static struct strmap_entry *slot_of(const struct strmap *m, const char *key)
{
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)str_hash(key) & mask;; i = (i + 1) & mask) {
        struct strmap_entry *e = &m->slot[i];
        if (!e->key || !strcmp(e->key, key))
            return e;
    }
}

static void grow(struct strmap *m)
{
    struct strmap old = *m;
    m->cap = old.cap ? old.cap * 2 : 16;
    m->slot = xcalloc(m->cap, sizeof(*m->slot));
    for (size_t i = 0; i < old.cap; i++)
        if (old.slot[i].key)
            *slot_of(m, old.slot[i].key) = old.slot[i];
    free(old.slot);
}

const struct strmap_entry *strmap_find(const struct strmap *m, const char *key)
{
    if (!m->n)
        return NULL;
    const struct strmap_entry *e = slot_of(m, key);
    return e->key ? e : NULL;
}

void strmap_put(struct strmap *m, const char *key, size_t index)
{
    if (2 * (m->n + 1) > m->cap)
        grow(m);
    struct strmap_entry *e = slot_of(m, key);
    m->n += !e->key;
    *e = (struct strmap_entry){key, index};
}

void strmap_release(struct strmap *m)
{
    free(m->slot);
    *m = (struct strmap)STRMAP_INIT;
}
