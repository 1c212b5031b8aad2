/* test_utf8.c: the one UTF-8 walk. Expected values are python3's: the maximal subparts are
 * b.decode("utf-8", "replace")'s U+FFFD (one per subpart), the counts len(s.encode()). */
#include "../../core/utf8.h"
#include "harness.h"

static int len_of(const char *s)
{
    return utf8_len((const unsigned char *)s);
}

/* Unicode's table 3-7 at its edges. */
static void lengths(void)
{
    INT_EQ(len_of("a"), 1, "ASCII");
    INT_EQ(len_of("\xc3\xa9"), 2, "U+00E9");
    INT_EQ(len_of("\xe2\x82\xac"), 3, "U+20AC");
    INT_EQ(len_of("\xf0\x9f\x98\x80"), 4, "U+1F600");
    INT_EQ(len_of("\xc0\xaf"), -1, "an overlong '/' is two replacements");
    INT_EQ(len_of("\xe0\x9f\xbf"), -1, "an overlong 3-byte form");
    INT_EQ(len_of("\xed\xa0\x80"), -1, "a surrogate");
    INT_EQ(len_of("\xf4\x90\x80\x80"), -1, "past U+10FFFF");
    INT_EQ(len_of("\xe2\x82"), -2, "a cut sequence is one replacement for its two bytes");
    INT_EQ(len_of("\x80"), -1, "a stray continuation byte");
}

static void counts(void)
{
    const char s[] = "caf\xc3\xa9 \xe2\x82\xac\xf0\x9f\x98\x80";
    INT_EQ(utf8_count(s, sizeof(s) - 1), 7, "len('café €😀')");
    INT_EQ(utf8_count(s, 4), 4, "a cut inside a character counts the character begun");
    INT_EQ(utf8_count("\x80\x80x", 3), 1, "stray continuation bytes count for none");
    OK(utf8_continues(0xa9) && !utf8_continues(0xc3) && !utf8_continues('a'),
       "only 10xxxxxx continues");
    INT_EQ(utf8_invalid("caf\xe9!"), 3, "the offset of the first ill-formed byte");
    INT_EQ(utf8_invalid(s), -1, "well-formed text");
}

int main(void)
{
    lengths();
    counts();
    return TEST_DONE();
}
