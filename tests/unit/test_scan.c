/* test_scan.c: core/scan's text helpers and cursor parsers, edge cases first (empty input, a
 * match at either end, no match, a BOM alone). */
#include "../../core/array.h"
#include "../../core/scan.h"

#include <stdint.h>
#include <string.h>

#include "harness.h"

static void test_mem_find(void)
{
    const char *s = "abcabc";
    OK(mem_find(s, 6, "abc") == s, "match at the start");
    OK(mem_find(s + 1, 5, "abc") == s + 3, "match at the end");
    OK(mem_find(s, 5, "abc") == s, "the first of two");
    OK(mem_find(s + 1, 4, "abc") == NULL, "a match one byte past n is not found");
    OK(mem_find(s, 0, "a") == NULL, "empty hay");
    OK(mem_find(s, 6, "") == s, "empty needle matches at the start");
    OK(mem_find(s, 6, "abd") == NULL, "no match");
    OK(mem_find(s, 2, "abc") == NULL, "needle longer than hay");
    const char nul[] = {'x', '\0', 'y', 'z'};
    OK(mem_find(nul, 4, "yz") == nul + 2, "bytes after a NUL are searched");
}

static void test_prefix_suffix(void)
{
    OK(mem_starts("fio: x", 6, "fio: "), "prefix");
    OK(!mem_starts("fio: x", 4, "fio: "), "prefix cut by n");
    OK(mem_starts("", 0, ""), "empty prefix of empty");
    OK(!mem_starts("", 0, "a"), "prefix of empty");
    OK(mem_ends("bw.1.log", 8, ".log"), "suffix");
    OK(mem_ends("bw.1.log", 4, "bw.1"), "suffix within n");
    OK(!mem_ends("log", 3, ".log"), "suffix longer than s");
    OK(mem_ends("x", 1, ""), "empty suffix");
    OK(str_starts("Run status group 0", "Run status"), "str prefix");
    OK(!str_starts("Run", "Run status"), "str prefix longer than s");
    OK(str_starts("", ""), "empty str prefix");
    OK(str_ends("clat_mean_ns", "_mean_ns"), "str suffix");
    OK(str_ends("_ns", "_ns"), "str suffix is the whole");
    OK(!str_ends("ns", "_ns"), "str suffix longer than s");
    OK(!str_ends("", "x"), "str suffix of empty");
}

static void test_contains_ci(void)
{
    OK(str_contains_ci("Running on RHEL 7", "rhel"), "case ignored");
    OK(str_contains_ci("ABC", "abc"), "the whole");
    OK(str_contains_ci("xxAbC", "aBc"), "at the end");
    OK(!str_contains_ci("xxAb", "abc"), "cut at the end");
    OK(!str_contains_ci(NULL, "a"), "NULL hay");
    OK(!str_contains_ci("", "a"), "empty hay");
    OK(!str_contains_ci("abc", "abd"), "no match");
}

static void test_bom_len(void)
{
    INT_EQ(bom_len("\xef\xbb\xbf", 3), 3, "a BOM alone");
    INT_EQ(bom_len("\xef\xbb\xbf{", 4), 3, "a BOM before content");
    INT_EQ(bom_len("\xef\xbb\xbf", 2), 0, "a BOM cut by n");
    INT_EQ(bom_len("", 0), 0, "empty");
    INT_EQ(bom_len("\xef\xbb\xbe", 3), 0, "not a BOM");
    INT_EQ(bom_len("abc", 3), 0, "plain text");
}

static void test_lines(void)
{
    const char text[] = "a\r\nbb\n\rccc\rd";
    struct line_iter it;
    const char *l;
    size_t n;
    line_iter_init(&it, text, sizeof(text) - 1, 0);
    const char *want_lf[] = {"a", "bb", "\rccc\rd"};
    for (size_t i = 0; i < 3; i++) {
        OK(line_iter_next(&it, &l, &n), "a line");
        INT_EQ(n, strlen(want_lf[i]), "its length");
        OK(!memcmp(l, want_lf[i], n), "its bytes");
        INT_EQ(it.lineno, i + 1, "its number");
    }
    OK(!line_iter_next(&it, &l, &n), "then the end");

    line_iter_init(&it, text, sizeof(text) - 1, 1);
    const char *want_cr[] = {"a", "bb", "", "ccc", "d"};
    for (size_t i = 0; i < 5; i++) {
        OK(line_iter_next(&it, &l, &n), "a CR-split line");
        INT_EQ(n, strlen(want_cr[i]), "its length");
        OK(!memcmp(l, want_cr[i], n), "its bytes");
    }
    OK(!line_iter_next(&it, &l, &n), "then the end");

    line_iter_init(&it, "", 0, 0);
    OK(!line_iter_next(&it, &l, &n), "empty input has no line");
    line_iter_init(&it, "x\n", 2, 0);
    OK(line_iter_next(&it, &l, &n) && n == 1, "one line");
    OK(!line_iter_next(&it, &l, &n), "a final line end starts no line");
}

/* Fields as python's str.split(sep) gives them: "a,,b".split(",") == ["a", "", "b"]. */
static void fields_are(const char *s, size_t n, char sep, const char *const *want, size_t nwant)
{
    struct field_iter it;
    const char *f;
    size_t len, i = 0;
    field_iter_init(&it, s, n, sep);
    for (; field_iter_next(&it, &f, &len); i++) {
        int same = i < nwant && len == strlen(want[i]) && !memcmp(f, want[i], len);
        if (!OK(same, s))
            fprintf(stderr, "  field %zu is '%.*s'\n", i, (int)len, f);
    }
    INT_EQ(i, nwant, "the number of fields");
}

static void test_fields(void)
{
    const char *const csv[] = {"20261130083423", "10.0.0.1", "", "3.0-4.0", "1", ""};
    fields_are("20261130083423,10.0.0.1,,3.0-4.0,1,", 35, ',', csv, 6);
    const char *const trailing[] = {"a", "b", ""};
    fields_are("a;b;", 4, ';', trailing, 3);
    const char *const one[] = {""};
    fields_are("", 0, ',', one, 1);
    const char *const cut[] = {"x", "y"};
    fields_are("x,y,z", 3, ',', cut, 2);
}

static void test_numbers(void)
{
    const char *p = "-12.5e3x";
    double v = 0;
    OK(scan_number(&p, &v), "a number");
    NUM_REL(v, -12500.0, 0, "its value");
    STR_EQ(p, "x", "the cursor after it");
    p = ".5";
    OK(scan_number(&p, &v) && v == 0.5, "a fraction alone");
    p = "1e";
    OK(scan_number(&p, &v) && v == 1 && *p == 'e', "an exponent without digits stays");
    p = "0x10";
    OK(scan_number(&p, &v) && v == 0 && *p == 'x', "no hex: 0x10 reads as 0");
    const char *bad[] = {"", "-", ".", "e5", "inf", "nan", "1e999"};
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        p = bad[i];
        OK(!scan_number(&p, &v) && p == bad[i], bad[i]);
    }

    int64_t x = 0;
    p = "9223372036854775807 ";
    OK(scan_int64(&p, &x) && x == INT64_MAX && *p == ' ', "INT64_MAX");
    p = "9223372036854775808";
    OK(!scan_int64(&p, &x), "INT64_MAX + 1 overflows");
    p = "-1";
    OK(!scan_int64(&p, &x), "no sign");
    p = "";
    OK(!scan_int64(&p, &x), "empty");

    const char *u = NULL;
    size_t un = 99;
    p = "48.1MiB/s";
    OK(scan_quantity(&p, &v, &u, &un) && v == 48.1, "a quantity");
    OK(un == 3 && !memcmp(u, "MiB", 3) && !strcmp(p, "/s"), "its unit, the cursor after it");
    p = "12 ms";
    OK(scan_quantity(&p, &v, &u, &un) && v == 12 && un == 0 && !strcmp(p, " ms"),
       "no unit right after the number");
    p = "-1k";
    OK(!scan_quantity(&p, &v, &u, &un) && !strcmp(p, "-1k"), "a negative quantity");
    p = "k";
    OK(!scan_quantity(&p, &v, &u, &un), "a unit without a number");

    p = "bytes copied";
    OK(scan_lit(&p, "bytes") && !strcmp(p, " copied"), "a literal");
    OK(!scan_lit(&p, "copied") && !strcmp(p, " copied"), "no literal: the cursor stays");
    OK(scan_lit(&p, ""), "the empty literal");
}

/* test_units.c has the usual sizes and durations; these are the edges */
static void test_sizes_and_durations(void)
{
    int64_t b = 0;
    OK(!parse_fio_size("-4k", &b), "negative size");
    OK(!parse_fio_size("4k ", &b), "trailing text");
    double s = 0;
    OK(!parse_duration("", 0, &s), "empty duration");
    OK(parse_duration("3s9", 2, &s) && s == 3, "n bounds the text");
    OK(parse_duration("2m", 2, &s) && s == 120, "minutes alone");
    OK(parse_duration("1d12h", 5, &s) && s == 129600, "days, for trend --stale");
}

int main(void)
{
    test_mem_find();
    test_prefix_suffix();
    test_contains_ci();
    test_bom_len();
    test_lines();
    test_fields();
    test_numbers();
    test_sizes_and_durations();
    return TEST_DONE();
}
