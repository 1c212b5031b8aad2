/* hash.h: the one string hash of benchdb's hash tables and filters (FNV-1a, 64 bits): small,
 * fast on the short names it sees (metric names, paths, job names), and good in its low bits. */
#ifndef BDB_HASH_H
#define BDB_HASH_H

#include <stdint.h>

static inline uint64_t str_hash(const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

#endif
