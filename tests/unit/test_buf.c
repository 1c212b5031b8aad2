/* test_buf.c: core/buf's invariants (data never NULL, always NUL-terminated), growth across
 * its first allocation, and who owns what after reset, release and detach. */
#include "../../core/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static void test_empty(void)
{
    struct buf b = BUF_INIT;
    OK(b.data != NULL, "BUF_INIT data is not NULL");
    STR_EQ(b.data, "", "BUF_INIT is the empty string");
    INT_EQ(b.len, 0, "BUF_INIT len");
    buf_add(&b, "x", 0);
    INT_EQ(b.cap, 0, "adding nothing allocates nothing");
    buf_addf(&b, "%s", "");
    INT_EQ(b.cap, 0, "an empty format allocates nothing");
    buf_reset(&b);
    STR_EQ(b.data, "", "reset of an empty buffer");
    buf_release(&b);
    OK(b.data == buf_empty && b.len == 0 && b.cap == 0, "release of an empty buffer");
    size_t n = 99;
    char *s = buf_detach(&b, &n);
    STR_EQ(s, "", "detach of an empty buffer gives an owned empty string");
    INT_EQ(n, 0, "its length");
    OK(s != buf_empty, "not the shared empty string");
    free(s);
}

static void test_growth(void)
{
    struct buf b;
    buf_init(&b);
    char expect[5001];
    for (size_t i = 0; i < 5000; i++) {
        char c = (char)('a' + i % 26);
        buf_addc(&b, c);
        expect[i] = c;
        if (b.data[b.len] != '\0' || b.cap <= b.len)
            break;
    }
    expect[5000] = '\0';
    INT_EQ(b.len, 5000, "5000 single bytes");
    STR_EQ(b.data, expect, "in order, NUL-terminated through every reallocation");
    size_t cap = b.cap;
    buf_reset(&b);
    OK(b.len == 0 && b.cap == cap && b.data[0] == '\0', "reset keeps the allocation");
    buf_adds(&b, "ab");
    buf_add(&b, "c\0d", 3);
    INT_EQ(b.len, 5, "buf_add copies NUL bytes too");
    OK(!memcmp(b.data, "abc\0d", 6), "the bytes and the terminator");
    buf_release(&b);
}

static void test_format(void)
{
    struct buf b = BUF_INIT;
    buf_addf(&b, "%s:%u: %s", "x.txt", 3u, "error");
    STR_EQ(b.data, "x.txt:3: error", "formatted");
    char big[300];
    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    buf_addf(&b, "[%s]", big);
    INT_EQ(b.len, 14 + 2 + 299, "a formatted piece longer than the first allocation");
    OK(b.data[14] == '[' && b.data[b.len - 1] == ']' && b.data[b.len] == '\0', "its ends");
    size_t n = 0;
    char *s = buf_detach(&b, &n);
    INT_EQ(n, 315, "detach gives the length");
    OK(b.data == buf_empty && b.len == 0 && b.cap == 0, "detach leaves BUF_INIT");
    free(s);
}

/* buf_add_int against the decimals written by hand, the ends of int64_t among them. */
static void test_int(void)
{
    struct buf b = BUF_INIT;
    const int64_t v[] = {0, 7, -7, 10, 1000000, INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        buf_add_int(&b, v[i]);
        buf_addc(&b, ' ');
    }
    STR_EQ(b.data, "0 7 -7 10 1000000 9223372036854775807 -9223372036854775808 ", "decimals");
    buf_release(&b);
}

static void test_read_file(void)
{
    FILE *f = tmpfile();
    OK(f != NULL, "tmpfile");
    if (!f)
        return;
    /* more than one 64 KiB read, with NUL bytes */
    size_t n = 200000;
    for (size_t i = 0; i < n; i++)
        fputc((int)(i % 251), f);
    rewind(f);
    struct buf b = BUF_INIT;
    buf_adds(&b, "head");
    INT_EQ(buf_read_file(&b, f), 0, "read");
    INT_EQ(b.len, 4 + n, "appended after what was there");
    int same = !memcmp(b.data, "head", 4);
    for (size_t i = 0; i < n && same; i++)
        same = (unsigned char)b.data[4 + i] == i % 251;
    OK(same, "every byte");
    OK(b.data[b.len] == '\0', "NUL-terminated");
    buf_release(&b);
    fclose(f);

    f = tmpfile();
    struct buf e = BUF_INIT;
    OK(f && buf_read_file(&e, f) == 0 && e.len == 0 && e.data[0] == '\0', "an empty file");
    buf_release(&e);
    if (f)
        fclose(f);
}

int main(void)
{
    test_empty();
    test_growth();
    test_format();
    test_int();
    test_read_file();
    return TEST_DONE();
}
