/* test_distance.c: the nearest-name rule behind "did you mean" (core/distance.h). Each
 * expected answer is worked out by hand, the edits written beside it; the short words are
 * allowed exactly min_edits edits (length / 3 is less), which pins the distance. */
#include <stdint.h>
#include <string.h>

#include "../../core/distance.h"
#include "harness.h"

#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

static const char *near1(const char *word, const char *name, int min_edits)
{
    return str_nearest(word, NAMES(name), SIZE_MAX, min_edits);
}

static void distances(void)
{
    STR_EQ(near1("hots", "host", 1), "host", "two adjacent characters swapped: one edit");
    /* c->a, a->b, +c: 3. Swapping 'ca' to 'ac' and putting b between them would be 2, but the
     * optimal string alignment edits no character twice */
    STR_EQ(near1("xca", "xabc", 2), NULL, "xca to xabc is more than 2 edits");
    STR_EQ(near1("xxca", "xxabc", 3), "xxabc", "and 3");
    /* k->s, e->i, +g */
    STR_EQ(near1("kitten", "sitting", 2), NULL, "kitten to sitting is more than 2 edits");
    STR_EQ(near1("kitten", "sitting", 3), "sitting", "and 3");
    STR_EQ(near1("Hots", "host", 1), "host", "ASCII letters compared lowered, then one swap");
    STR_EQ(near1("h\xc3\xb6st", "host", 1), "host",
           "o umlaut for o: one character substituted, not two bytes");
    STR_EQ(near1("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "\xe6\x97\xa5\xe6\x9c\xac", 1),
           "\xe6\x97\xa5\xe6\x9c\xac", "three CJK characters to two: one deleted, not three bytes");
    /* E acute is not lowered to e acute: one substitution from either name */
    STR_EQ(str_nearest("abc\xc3\x89", NAMES("abcx", "abc\xc3\xa9"), SIZE_MAX, 1), "abcx",
           "only ASCII letters are lowered");
    STR_EQ(near1("ab\x80"
                 "cd",
                 "abcd", 1),
           "abcd", "a stray byte is one character, deleted");
}

static void limits(void)
{
    static char a256[DISTANCE_MAX_CHARS + 1], a255[DISTANCE_MAX_CHARS],
        a257[DISTANCE_MAX_CHARS + 2];
    memset(a256, 'a', DISTANCE_MAX_CHARS);
    memset(a255, 'a', DISTANCE_MAX_CHARS - 1);
    memset(a257, 'a', DISTANCE_MAX_CHARS + 1);
    STR_EQ(near1(a256, a255, 1), a255, "the longest word matched: one deletion");
    STR_EQ(near1(a257, a256, 1), NULL, "a character more: near nothing");
    STR_EQ(near1(a255, a257, 1), NULL, "nor is a name too long (2 insertions otherwise)");
}

static void nearest(void)
{
    const char *const *options = NAMES("format", "from", "help");
    /* formt: format +a (1); from: o<->r, -t (2) */
    STR_EQ(str_nearest("formt", options, SIZE_MAX, 1), "format", "the nearest within 1 edit");
    STR_EQ(str_nearest("xyz", options, SIZE_MAX, 1), NULL, "none near");
    /* md -> pdf: m->p, +f: 2 edits, as many as md has characters */
    STR_EQ(near1("md", "pdf", 1), NULL, "2 edits of a 2-character word: too many");
    STR_EQ(near1("md", "pdf", 2), NULL,
           "within min_edits, but a complete rewrite is no misspelling");
    STR_EQ(str_nearest("DISK", NAMES("tmpfs", "disk"), SIZE_MAX, 2), "disk",
           "the name as given, not lowered");
    static const char *const classes[] = {"disk", "tmpfs"};
    STR_EQ(str_nearest("tmpf", classes, 1, 2), NULL, "only names[0..n)");
    STR_EQ(str_nearest("tmpf", classes, 2, 2), "tmpfs", "names[0..n) with no NULL after");
    STR_EQ(str_nearest("tmpf", NAMES("tmpfx", "tmpfs"), SIZE_MAX, 2), "tmpfx",
           "the first of equals");
    /* 9 characters: within 9 / 3 = 3 edits; abcxyzwhi is 4 substitutions, abcxyzghi 3 */
    STR_EQ(str_nearest("abcdefghi", NAMES("abcxyzwhi", "abcxyzghi"), SIZE_MAX, 1), "abcxyzghi",
           "a longer word allows length / 3 edits");
    /* 8 characters: 8 / 3 = 2 edits; abcxyzgh is 3 substitutions */
    STR_EQ(near1("abcdefgh", "abcxyzgh", 1), NULL, "but no more");
    /* 2 characters (6 bytes), 2 substitutions from md: a complete rewrite */
    STR_EQ(near1("\xe6\x97\xa5\xe6\x9c\xac", "md", 2), NULL,
           "a word's length is its characters, not its bytes");
    STR_EQ(str_nearest("", NAMES("", "a"), SIZE_MAX, 1), NULL, "nothing is near an empty word");
}

int main(void)
{
    distances();
    limits();
    nearest();
    return TEST_DONE();
}
