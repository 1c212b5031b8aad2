/* test_strmap.c: the string map against the plain answer, an array searched key by key. */
#include <stdio.h>

#include "../../core/strmap.h"
#include "harness.h"

enum { NKEYS = 3000 };

static char keys[NKEYS][16];

/* The index of key in keys[0..n) by a linear search, or -1: the oracle. */
static long linear_index(const char *key, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(keys[i], key))
            return (long)i;
    return -1;
}

/* Distinct names in a scattered order. */
static void fill_keys(void)
{
    for (size_t i = 0; i < NKEYS; i++)
        snprintf(keys[i], sizeof(keys[i]), "metric_%zu", i * 7919 % 100003);
}

static long map_index(const struct strmap *m, const char *key)
{
    const struct strmap_entry *e = strmap_find(m, key);
    return e ? (long)e->index : -1;
}

static void empty(void)
{
    struct strmap m = STRMAP_INIT;
    OK(!strmap_find(&m, "bw_bytes_s"), "an empty map finds nothing");
    OK(!strmap_find(&m, ""), "not even the empty string");
    strmap_release(&m);
    INT_EQ(m.cap, 0, "releasing an empty map leaves it empty");
}

/* Keys added one by one through many growths: after each batch every key added so far is
 * found with its index and the ones still to come are not. */
static void grows(void)
{
    struct strmap m = STRMAP_INIT;
    int wrong = 0;
    for (size_t i = 0; i < NKEYS; i++) {
        strmap_put(&m, keys[i], i);
        if (i % 97 && i != NKEYS - 1)
            continue;
        for (size_t j = 0; j < NKEYS; j++)
            wrong += map_index(&m, keys[j]) != (j <= i ? linear_index(keys[j], i + 1) : -1);
    }
    INT_EQ(wrong, 0, "every key added is found with its index, no other is");
    INT_EQ(m.n, NKEYS, "n counts the keys");
    OK(2 * m.n <= m.cap, "the map stays at most half full");
    OK(m.cap && !(m.cap & (m.cap - 1)), "cap is a power of two");
    strmap_release(&m);
}

static void replaces(void)
{
    struct strmap m = STRMAP_INIT;
    char same[] = "clat_p99_ns"; /* an equal string at another address is the same key */
    strmap_put(&m, "clat_p99_ns", 1);
    strmap_put(&m, "iops", 2);
    strmap_put(&m, same, 3);
    INT_EQ(m.n, 2, "putting a key again does not add one");
    INT_EQ(map_index(&m, "clat_p99_ns"), 3, "the later index wins");
    INT_EQ(map_index(&m, "iops"), 2, "the other key keeps its index");
    OK(!strmap_find(&m, "clat_p99"), "a prefix is another key");
    OK(!strmap_find(&m, "clat_p99_ns "), "so is a longer string");
    strmap_release(&m);
}

/* Walking slot[0..cap) visits each key once. */
static void walks(void)
{
    struct strmap m = STRMAP_INIT;
    for (size_t i = 0; i < 100; i++)
        strmap_put(&m, keys[i], i);
    int seen[100] = {0}, visits = 0;
    for (size_t i = 0; i < m.cap; i++)
        if (m.slot[i].key) {
            visits++;
            seen[m.slot[i].index] += m.slot[i].key == keys[m.slot[i].index];
        }
    int once = 0;
    for (size_t i = 0; i < 100; i++)
        once += seen[i] == 1;
    INT_EQ(visits, 100, "the walk visits as many slots as keys");
    INT_EQ(once, 100, "each key once, the caller's own pointer");
    strmap_release(&m);
}

int main(void)
{
    fill_keys();
    empty();
    grows();
    replaces();
    walks();
    return TEST_DONE();
}
