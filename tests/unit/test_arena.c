/* test_arena.c: the bump allocator: alignment, zeroing, and a pool of blocks that a released
 * arena gives back and the next arena takes again (what a worker's per-file arena relies on). */
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../core/arena.h"
#include "harness.h"

static int aligned(const void *p)
{
    return (uintptr_t)p % alignof(max_align_t) == 0;
}

static void allocation(void)
{
    struct arena a = ARENA_INIT;
    unsigned char *p = arena_alloc_uninit(&a, 3);
    unsigned char *q = arena_alloc(&a, 40);
    OK(aligned(p) && aligned(q), "every allocation aligned for any type");
    OK(q >= p + 3, "allocations do not overlap");
    int zero = 1;
    for (size_t i = 0; i < 40; i++)
        zero &= q[i] == 0;
    OK(zero, "arena_alloc zeroes");
    /* larger than a block: a block of its own, usable whole */
    unsigned char *big = arena_alloc_uninit(&a, 200000);
    memset(big, 0xab, 200000);
    OK(aligned(big), "a large allocation aligned");
    arena_release(&a);
    OK(a.head == NULL, "released");
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
    allocation();
    pool_reuse();
    return TEST_DONE();
}
