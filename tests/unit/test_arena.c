/* test_arena.c: core/arena's public contract (arena.h): zeroed, aligned allocations,
 * uninitialized ones, copies of strings, arena_grow's "p itself while there is room, else a copy
 * with twice the room", reuse after release, and a pool of blocks that a released arena gives
 * back and the next arena takes again (what a worker's per-file arena relies on). */
#include "../../core/arena.h"
#include "../../core/array.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"

static void test_alloc(void)
{
    struct arena a = ARENA_INIT;
    int zero = 1, aligned = 1;
    /* sizes from 1 byte to past any plausible block size */
    size_t sizes[] = {1, 3, 7, 16, 100, 4095, 4096, 65537, 1 << 20, 5, 3 << 20};
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        unsigned char *p = arena_alloc(&a, sizes[i]);
        aligned &= (uintptr_t)p % alignof(max_align_t) == 0;
        for (size_t k = 0; k < sizes[i]; k++)
            zero &= p[k] == 0;
        memset(p, 0xa5, sizes[i]); /* the next allocation must not overlap */
    }
    OK(zero, "every allocation is zeroed");
    OK(aligned, "every allocation is aligned for any type");
    char *x = arena_alloc(&a, 8), *y = arena_alloc(&a, 8);
    OK(x + 8 <= y || y + 8 <= x, "two allocations do not overlap");
    arena_release(&a);
    OK(a.head == NULL, "release empties the arena");
    int *again = arena_alloc(&a, sizeof(int));
    OK(again && *again == 0, "an arena is usable after release");
    arena_release(&a);
    arena_release(&a); /* releasing an empty arena is harmless */
}

static void test_strings(void)
{
    struct arena a = ARENA_INIT;
    STR_EQ(arena_strdup(&a, "fio-json"), "fio-json", "strdup");
    STR_EQ(arena_strdup(&a, ""), "", "strdup of empty");
    STR_EQ(arena_strndup(&a, "bw_bytes_s", 2), "bw", "strndup takes n bytes");
    STR_EQ(arena_strndup(&a, "ab", 0), "", "strndup of 0 bytes");
    STR_EQ(arena_printf(&a, "%s_p%d_ns", "clat", 99), "clat_p99_ns", "printf");
    char big[10001];
    memset(big, 'q', 10000);
    big[10000] = '\0';
    const char *copy = arena_printf(&a, "<%s>", big);
    OK(copy && strlen(copy) == 10002 && copy[0] == '<' && copy[10001] == '>', "a long printf");
    arena_release(&a);
}

static void test_grow(void)
{
    struct arena a = ARENA_INIT;
    size_t cap = 4, n = 0;
    int *v = arena_alloc(&a, cap * sizeof(*v));
    int *first = v;
    for (; n < 4; n++) {
        v = arena_grow(&a, v, n, &cap, sizeof(*v));
        v[n] = (int)n * 10;
    }
    OK(v == first && cap == 4, "p itself while there is room");
    v = arena_grow(&a, v, n, &cap, sizeof(*v));
    OK(v != first, "a copy when full");
    INT_EQ(cap, 8, "with twice the room");
    int kept = 1;
    for (size_t i = 0; i < 4; i++)
        kept &= v[i] == (int)i * 10;
    OK(kept, "the copy keeps the elements");
    OK(first[3] == 30, "the old block stays until release");
    for (; n < 1000; n++) {
        v = arena_grow(&a, v, n, &cap, sizeof(*v));
        v[n] = (int)n;
    }
    OK(cap >= 1000 && v[999] == 999 && v[4] == 4, "grown to 1000 elements");
    size_t empty_cap = 0;
    double *d = arena_grow(&a, NULL, 0, &empty_cap, sizeof(*d));
    OK(d != NULL && empty_cap > 0, "growing from nothing gives room");
    arena_release(&a);
}

static void test_alloc_uninit(void)
{
    struct arena a = ARENA_INIT;
    unsigned char *p = arena_alloc_uninit(&a, 3), *q = arena_alloc_uninit(&a, 40);
    OK((uintptr_t)p % alignof(max_align_t) == 0 && (uintptr_t)q % alignof(max_align_t) == 0,
       "uninitialized allocations are aligned too");
    OK(q >= p + 3 || q + 40 <= p, "and do not overlap");
    unsigned char *big = arena_alloc_uninit(&a, 200000);
    memset(big, 0xab, 200000); /* larger than a block: usable whole */
    OK((uintptr_t)big % alignof(max_align_t) == 0, "a large one aligned");
    arena_release(&a);
}

/* The block a pooled arena released is the one the next arena of the pool uses; a large block
 * is not kept. */
static void pool_reuse(void)
{
    struct arena_pool pool = {NULL};
    struct arena a = {NULL, &pool};
    void *first = arena_alloc(&a, 100);
    arena_alloc_uninit(&a, 200000);
    arena_release(&a);
    OK(pool.free != NULL, "the standard block kept");
    struct arena b = {NULL, &pool};
    unsigned char *again = arena_alloc(&b, 100);
    OK(again == first, "the next arena reuses the pooled block");
    int zero = 1;
    for (size_t i = 0; i < 100; i++)
        zero &= again[i] == 0;
    OK(zero, "a reused block's memory is zeroed by arena_alloc");
    OK(pool.free == NULL, "taken from the pool, which held only it: the large block not kept");
    arena_release(&b);
    arena_pool_release(&pool);
    OK(pool.free == NULL, "pool released");
}

int main(void)
{
    test_alloc();
    test_alloc_uninit();
    pool_reuse();
    test_strings();
    test_grow();
    return TEST_DONE();
}
