/* strmap.h: the one string map of benchdb (git's strmap, smaller): a key string to an index
 * into the caller's own array, by open addressing (linear probing) on str_hash, growing to
 * stay at most half full, so a lookup is one or two string compares.
 *
 * Keys are borrowed: the map keeps the pointer, never a copy, and the caller keeps the string
 * alive and unchanged while it is in the map (an arena's copy, an array of names it owns). */
#ifndef BDB_STRMAP_H
#define BDB_STRMAP_H

#include <stddef.h>

struct strmap_entry {
    const char *key; /* NULL: a free slot */
    size_t index;
};

/* slot[0..cap) (cap 0 or a power of two) may be walked to visit every key, in no order. */
struct strmap {
    struct strmap_entry *slot;
    size_t cap, n;
};
#define STRMAP_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* The entry of key, or NULL when key is not in the map; valid until the next strmap_put. */
const struct strmap_entry *strmap_find(const struct strmap *m, const char *key);
/* Maps key to index, in place of what it mapped to before. */
void strmap_put(struct strmap *m, const char *key, size_t index);
/* Frees the slots, not the keys; back to STRMAP_INIT. */
void strmap_release(struct strmap *m);

#endif
