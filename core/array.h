/* array.h: the number of elements of an array, in one place (git's ARRAY_SIZE).
 *
 * Given a pointer instead of an array, sizeof would silently divide the pointer's size;
 * with GCC and clang the macro refuses to compile then, as git's does. */
#ifndef BDB_ARRAY_H
#define BDB_ARRAY_H

#if defined(__GNUC__)
/* 0 for an array; a compile error (a negative bit-field width) for a pointer. */
#    define ARRAY_BARF_UNLESS_ARRAY(a)                                                             \
        (sizeof(struct {                                                                           \
             int array_size_needs_an_array                                                         \
                 : __builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))                \
                   ? -1                                                                            \
                   : 1;                                                                            \
         }) *                                                                                      \
         0)
#else
#    define ARRAY_BARF_UNLESS_ARRAY(a) 0
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + ARRAY_BARF_UNLESS_ARRAY(a))

#endif
