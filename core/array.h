/* array.h: the number of elements of an array, in one place (git's ARRAY_SIZE).
 *
 * Given a pointer instead of an array, sizeof would silently divide the pointer's size;
 * with GCC and clang the macro refuses to compile then, as git's does. */
#ifndef BDB_ARRAY_H
#define BDB_ARRAY_H

#if defined(__GNUC__)
/* 0 for an array; a compile error (an array of negative size) for a pointer. An array type,
 * not a struct with a bit-field, so that the macro may size a parameter's array too (a struct
 * declared in a parameter list is a warning). */
#    define ARRAY_BARF_UNLESS_ARRAY(a)                                                             \
        (sizeof(char[1 - 2 * __builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))]) - 1)
#else
#    define ARRAY_BARF_UNLESS_ARRAY(a) 0
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + ARRAY_BARF_UNLESS_ARRAY(a))

#endif
