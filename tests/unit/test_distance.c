/* test_distance.c: the edit distance behind "did you mean" and the nearest-name rule. Each
 * expected distance is worked out by hand: the fewest edits, written in the comment. */
#include <stdint.h>
#include <string.h>

#include "../../core/distance.h"
#include "harness.h"

/* A string of n 'a's (n < sizeof(long_a)). */
static char long_a[DISTANCE_MAX_CHARS + 2];

static const char *as(size_t n)
{
    memset(long_a, 'a', n);
    long_a[n] = '\0';
    return long_a;
}

static void distances(void)
{
    INT_EQ(str_distance("", ""), 0, "two empty strings");
    INT_EQ(str_distance("disk", ""), 4, "to nothing: a deletion per character");
    INT_EQ(str_distance("", "md"), 2, "from nothing: an insertion per character");
    INT_EQ(str_distance("kitten", "sitting"), 3, "k->s, e->i, +g");
    INT_EQ(str_distance("reprot", "report"), 1, "two adjacent characters swapped: one edit");
    /* swapping to 'ac', then putting b between the swapped pair, would be 2: the optimal
     * string alignment edits no character twice, so c->a, a->b, +c: 3 */
    INT_EQ(str_distance("ca", "abc"), 3, "no character edited twice (not 2)");
    INT_EQ(str_distance("DISK", "disk"), 0, "ASCII letters compared lowered");
    INT_EQ(str_distance("Hots", "host"), 1, "lowered, then one swap");
    INT_EQ(str_distance("\xc3\x89", "\xc3\xa9"), 1, "E and e acute: only ASCII is lowered");
    INT_EQ(str_distance("h\xc3\xb6st", "host"), 1,
           "o umlaut for o: one character substituted, not two bytes");
    INT_EQ(str_distance("\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"), 1,
           "two CJK characters to three: one inserted");
    INT_EQ(str_distance("a\x80"
                        "b",
                        "ab"),
           1, "a stray byte is one character");
    INT_EQ(str_distance(as(DISTANCE_MAX_CHARS), ""), DISTANCE_MAX_CHARS,
           "the longest string matched");
    INT_EQ(str_distance(as(DISTANCE_MAX_CHARS + 1), "a"), -1, "one character more: -1");
    INT_EQ(str_distance("a", as(DISTANCE_MAX_CHARS + 1)), -1, "on either side");
}

static void nearest(void)
{
    static const char *const options[] = {"format", "from", "help", NULL};
    /* formt: format +a (1); from: o<->r, -t (2) */
    STR_EQ(str_nearest("formt", options, SIZE_MAX, 1), "format", "the nearest within 1 edit");
    STR_EQ(str_nearest("xyz", options, SIZE_MAX, 1), NULL, "none near");
    /* md -> pdf: m->p, +f (2 edits, as many as md has characters) */
    static const char *const pdf[] = {"pdf", NULL};
    STR_EQ(str_nearest("md", pdf, SIZE_MAX, 1), NULL, "2 edits of a 2-character word: too many");
    STR_EQ(str_nearest("md", pdf, SIZE_MAX, 2), NULL,
           "within min_edits, but a complete rewrite is no misspelling");
    static const char *const disk[] = {"disk", NULL};
    STR_EQ(str_nearest("dsk", disk, SIZE_MAX, 1), "disk", "1 edit of 3 characters");
    static const char *const classes[] = {"disk", "tmpfs"};
    STR_EQ(str_nearest("DISK", classes, 2, 2), "disk", "the name as given, not lowered");
    STR_EQ(str_nearest("tmpf", classes, 1, 2), NULL, "only names[0..n)");
    STR_EQ(str_nearest("tmpf", classes, 2, 2), "tmpfs", "names[0..n) with no NULL after");
    static const char *const ties[] = {"tmpfx", "tmpfs", NULL};
    STR_EQ(str_nearest("tmpf", ties, SIZE_MAX, 2), "tmpfx", "the first of equals");
    /* 9 characters: within 9 / 3 = 3 edits; abcxyzwhi is 4 substitutions, abcxyzghi 3 */
    static const char *const long_names[] = {"abcxyzwhi", "abcxyzghi", NULL};
    STR_EQ(str_nearest("abcdefghi", long_names, SIZE_MAX, 1), "abcxyzghi",
           "a longer word allows length / 3 edits");
    /* 8 characters: 8 / 3 = 2 edits; abcxyzgh is 3 substitutions */
    static const char *const eight[] = {"abcxyzgh", NULL};
    STR_EQ(str_nearest("abcdefgh", eight, SIZE_MAX, 1), NULL, "but no more");
    /* 2 characters (6 bytes) 2 substitutions from md: a complete rewrite */
    STR_EQ(str_nearest("\xe6\x97\xa5\xe6\x9c\xac", (const char *const[]){"md", NULL}, SIZE_MAX, 2),
           NULL, "a word's length is its characters, not its bytes");
    STR_EQ(str_nearest("h\xc3\xb6st", (const char *const[]){"host", NULL}, SIZE_MAX, 1), "host",
           "1 edit of 4 characters");
    static const char *const empty_too[] = {"", "a", NULL};
    STR_EQ(str_nearest("", empty_too, SIZE_MAX, 1), NULL, "nothing is near an empty word");
    STR_EQ(str_nearest(as(DISTANCE_MAX_CHARS + 1), (const char *const[]){"a", NULL}, SIZE_MAX, 1),
           NULL, "nor a word too long to match");
}

int main(void)
{
    distances();
    nearest();
    return TEST_DONE();
}
