/* SHA-256 after FIPS 180-4, dependency-free. The portable code runs at about 190 MB/s, slower
 * than the fio log parser; on x86-64 CPUs with the SHA extensions (Intel since Ice Lake and
 * Goldmont, AMD since Zen) the block function uses them (about 10x faster), chosen at run time. */
#include "sha256.h"

#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#    include <cpuid.h>
#    include <immintrin.h>
#    define HAVE_SHA_NI 1
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

/* Hashes n 64-byte blocks into h. */
static void blocks_portable(uint32_t h[8], const unsigned char *p, size_t n)
{
    for (; n--; p += 64) {
        uint32_t w[64];
        for (int i = 0; i < 16; i++)
            w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
                   (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
        for (int i = 0; i < 64; i++) {
            uint32_t t1 =
                k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
            uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            k = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
    }
}

#ifdef HAVE_SHA_NI
/* The same with the SHA-NI instructions: the state lives as ABEF/CDGH halves, and each
 * sha256rnds2 does two rounds; the message schedule takes four words at a time
 * (W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] through sha256msg1/msg2). */
__attribute__((target("sha,sse4.1"))) static void blocks_sha_ni(uint32_t h[8],
                                                                const unsigned char *p, size_t n)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xb1); /* CDAB */
    __m128i st1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1b); /* EFGH */
    __m128i st0 = _mm_alignr_epi8(tmp, st1, 8);                                     /* ABEF */
    st1 = _mm_blend_epi16(st1, tmp, 0xf0);                                          /* CDGH */
    for (; n--; p += 64) {
        __m128i abef = st0, cdgh = st1, w[4];
#    pragma GCC unroll 16
        for (int g = 0; g < 16; g++) {
            __m128i x;
            if (g < 4) {
                x = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
            } else {
                /* w[g % 4] holds the words of group g - 4, w[(g + 3) % 4] those of g - 1 */
                x = _mm_sha256msg1_epu32(w[g % 4], w[(g + 1) % 4]);
                x = _mm_add_epi32(x, _mm_alignr_epi8(w[(g + 3) % 4], w[(g + 2) % 4], 4));
                x = _mm_sha256msg2_epu32(x, w[(g + 3) % 4]);
            }
            w[g % 4] = x;
            __m128i k = _mm_add_epi32(x, _mm_loadu_si128((const __m128i *)&K[4 * g]));
            st1 = _mm_sha256rnds2_epu32(st1, st0, k);
            st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(k, 0x0e));
        }
        st0 = _mm_add_epi32(st0, abef);
        st1 = _mm_add_epi32(st1, cdgh);
    }
    tmp = _mm_shuffle_epi32(st0, 0x1b);                                  /* FEBA */
    st1 = _mm_shuffle_epi32(st1, 0xb1);                                  /* DCHG */
    _mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(tmp, st1, 0xf0)); /* DCBA */
    _mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(st1, tmp, 8));    /* HGFE */
}

static int cpu_has_sha(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1))
        return 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29)); /* CPUID.7.0:EBX.SHA */
}
#endif

typedef void blocks_fn(uint32_t h[8], const unsigned char *p, size_t n);

/* The block function chosen at the first hash; atomic because the import's worker threads
 * may make their first hashes at the same time (each stores the same choice). */
static _Atomic(blocks_fn *) chosen;

int sha256_cpu_extensions(int allow)
{
    blocks_fn *f = blocks_portable;
#ifdef HAVE_SHA_NI
    if (allow && cpu_has_sha())
        f = blocks_sha_ni;
#endif
    atomic_store_explicit(&chosen, f, memory_order_relaxed);
    return f != blocks_portable;
}

static void blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
    atomic_load_explicit(&chosen, memory_order_relaxed)(h, p, n);
}

void sha256_init(struct sha256 *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    if (!atomic_load_explicit(&chosen, memory_order_relaxed))
        sha256_cpu_extensions(1);
    memcpy(s->h, h0, sizeof(h0));
    s->len = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t used = (size_t)(s->len % 64);
    if (!len)
        return;
    s->len += len;
    if (used) {
        size_t take = len < 64 - used ? len : 64 - used;
        memcpy(s->pending + used, p, take);
        p += take;
        len -= take;
        if (used + take < 64)
            return;
        blocks(s->h, s->pending, 1);
    }
    blocks(s->h, p, len / 64);
    memcpy(s->pending, p + len / 64 * 64, len % 64);
}

void sha256_final(struct sha256 *s, char hex[65])
{
    static const unsigned char pad[64] = {0x80};
    unsigned char bits[8];
    for (int i = 0; i < 8; i++)
        bits[i] = (unsigned char)(s->len * 8 >> (56 - 8 * i));
    size_t used = (size_t)(s->len % 64);
    sha256_update(s, pad, used < 56 ? 56 - used : 120 - used);
    sha256_update(s, bits, 8);
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        unsigned char byte = (unsigned char)(s->h[i / 4] >> (24 - 8 * (i % 4)));
        hex[2 * i] = digits[byte >> 4];
        hex[2 * i + 1] = digits[byte & 15];
    }
    hex[64] = '\0';
}

void sha256_hex(const void *data, size_t len, char hex[65])
{
    struct sha256 s;
    sha256_init(&s);
    sha256_update(&s, data, len);
    sha256_final(&s, hex);
}
