/* distance.h: the edit distance behind every "did you mean": a mistyped command, option,
 * option value or key (cli/parse_options.c) and a compared value no result has
 * (query/sides.c) are answered with the nearest known name, found here. */
#ifndef BDB_DISTANCE_H
#define BDB_DISTANCE_H

#include <stddef.h>

/* Longer strings, in characters, are near nothing. */
enum { DISTANCE_MAX_CHARS = 256 };

/* The one of names[0..n) (fewer when a NULL comes first: SIZE_MAX for a NULL-terminated list)
 * nearest to word when close enough to be its misspelling; the first of equals, NULL when none
 * is. Near is an optimal-string-alignment (Damerau-Levenshtein) distance, as git's help.c
 * uses: the fewest insertions, deletions, substitutions and swaps of two adjacent characters
 * ("reprot": one swap) that make word into the name, no character edited twice; characters are
 * UTF-8's (a byte that is no part of a sequence counts as one), ASCII letters compared
 * lowered. Close enough is at most max(min_edits, length / 3) edits and fewer than word's
 * length in characters (no complete rewrite): nothing is near an empty word. */
const char *str_nearest(const char *word, const char *const *names, size_t n, int min_edits);

#endif
