/* test_sha256.c: core/sha256 against the NIST FIPS 180-2 example vectors ("", "abc", the
 * 448- and 896-bit messages, one million 'a'), on the portable code and on the CPU's SHA
 * instructions when there are any, whole and fed in pieces across the 64-byte blocks. The
 * padding boundaries (55, 56, 63, 64, 65, 119, 120 bytes of i % 251) were hashed with python3's
 * hashlib. */
#include "../../core/array.h"
#include "../../core/sha256.h"

#include <stdlib.h>
#include <string.h>

#include "harness.h"

struct vector {
    const char *msg;
    size_t repeat; /* msg this many times */
    const char *hex;
};

static const struct vector nist[] = {
    {"", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
     "opqrsmnopqrstnopqrstu",
     1, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    {"a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
};

static const struct {
    size_t len;
    const char *hex;
} boundaries[] = {
    {55, "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59"},
    {56, "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562"},
    {63, "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488"},
    {64, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"},
    {65, "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781"},
    {119, "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6"},
    {120, "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c"},
};

static char *expand(const struct vector *v, size_t *len)
{
    size_t k = strlen(v->msg);
    *len = k * v->repeat;
    char *m = malloc(*len + 1);
    for (size_t i = 0; i < v->repeat; i++)
        memcpy(m + i * k, v->msg, k);
    m[*len] = '\0';
    return m;
}

/* The hash of m fed in pieces of step bytes. */
static void hash_in_pieces(const char *m, size_t len, size_t step, char hex[65])
{
    struct sha256 s;
    sha256_init(&s);
    for (size_t i = 0; i < len; i += step)
        sha256_update(&s, m + i, len - i < step ? len - i : step);
    sha256_final(&s, hex);
}

static void test_vectors(const char *path)
{
    char hex[65];
    for (size_t i = 0; i < ARRAY_SIZE(nist); i++) {
        size_t len;
        char *m = expand(&nist[i], &len);
        sha256_hex(m, len, hex);
        STR_EQ(hex, nist[i].hex, path);
        size_t steps[] = {1, 3, 63, 64, 65, 1000};
        for (size_t k = 0; k < ARRAY_SIZE(steps); k++) {
            if (steps[k] == 1 && len > 100000)
                continue; /* a million one-byte updates say nothing the others do not */
            hash_in_pieces(m, len, steps[k], hex);
            STR_EQ(hex, nist[i].hex, "in pieces");
        }
        free(m);
    }
    char m[120];
    for (size_t i = 0; i < sizeof(m); i++)
        m[i] = (char)(i % 251);
    for (size_t i = 0; i < ARRAY_SIZE(boundaries); i++) {
        sha256_hex(m, boundaries[i].len, hex);
        STR_EQ(hex, boundaries[i].hex, "padding boundary");
        hash_in_pieces(m, boundaries[i].len, 7, hex);
        STR_EQ(hex, boundaries[i].hex, "padding boundary in pieces");
    }
}

int main(void)
{
    sha256_cpu_extensions(0);
    test_vectors("portable code");
    if (sha256_cpu_extensions(1))
        test_vectors("CPU SHA instructions");
    else
        printf("no CPU SHA instructions here: the portable code only\n");
    return TEST_DONE();
}
