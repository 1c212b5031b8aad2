/* test_units.c: unit conversions, the classic source of error (KiB/s vs bytes/s, usec vs nsec,
 * MB vs MiB, bits vs bytes), and the one formatter that turns base units into human units.
 * Every expected value is worked out by hand in the comment beside it. */
#include <math.h>
#include <string.h>

#include "../../core/buf.h"
#include "../../core/scan.h"
#include "../../core/sha256.h"
#include "../../report/report.h"
#include "harness.h"

static void byte_units(void)
{
    NUM_REL(unit_bytes("KiB", 3, 0), 1024.0, 0, "KiB is 2^10");
    NUM_REL(unit_bytes("MiB", 3, 0), 1048576.0, 0, "MiB is 2^20");
    NUM_REL(unit_bytes("GiB", 3, 0), 1073741824.0, 0, "GiB is 2^30");
    NUM_REL(unit_bytes("MB", 2, 0), 1e6, 0, "MB is 10^6 (dd, fio's decimal figures)");
    NUM_REL(unit_bytes("kB", 2, 0), 1e3, 0, "kB is 10^3");
    NUM_REL(unit_bytes("GB", 2, 0), 1e9, 0, "GB is 10^9");
    NUM_REL(unit_bytes("k", 1, 1), 1024.0, 0, "fio option 4k: k is 1024");
    NUM_REL(unit_bytes("M", 1, 1), 1048576.0, 0, "fio option 1M: M is 2^20");
    NUM_REL(unit_bytes("B", 1, 0), 1.0, 0, "B");
    NUM_REL(unit_bytes("XB", 2, 0), 0.0, 0, "unknown unit gives 0");
}

static void time_and_bit_units(void)
{
    NUM_REL(unit_time_ns("usec", 4), 1e3, 0, "usec to ns");
    NUM_REL(unit_time_ns("msec", 4), 1e6, 0, "msec to ns");
    NUM_REL(unit_time_ns("nsec", 4), 1.0, 0, "nsec to ns");
    NUM_REL(unit_time_ns("\xc2\xb5s", 3), 1e3, 0, "µs to ns");
    NUM_REL(unit_time_ns("s", 1), 1e9, 0, "s to ns");
    NUM_REL(unit_bits("Mbits", 5), 1e6, 0, "Mbits/sec is 10^6 bits");
    NUM_REL(unit_bits("Gbits", 5), 1e9, 0, "Gbits/sec is 10^9 bits");
    NUM_REL(unit_count_suffix('k'), 1e3, 0, "IOPS=12.3k: k is 1000");
}

static void sizes_and_durations(void)
{
    int64_t b = 0;
    OK(parse_fio_size("4k", &b) && b == 4096, "4k = 4096 bytes");
    OK(parse_fio_size("1M", &b) && b == 1048576, "1M = 1048576 bytes");
    OK(parse_fio_size("4KiB", &b) && b == 4096, "4KiB = 4096 bytes");
    OK(parse_fio_size("1048576", &b) && b == 1048576, "plain bytes");
    OK(!parse_fio_size("4x", &b), "4x is refused");
    OK(!parse_fio_size("", &b), "empty is refused");
    double s = 0;
    /* 15 min 57.921 s = 900 + 57.921 = 957.921 s (seed 002's `real` time) */
    OK(parse_duration("15m57.921s", 10, &s), "15m57.921s parses");
    NUM_REL(s, 957.921, 1e-12, "15m57.921s in seconds");
    OK(parse_duration("1h2m3.5s", 8, &s), "1h2m3.5s parses");
    NUM_REL(s, 3723.5, 1e-12, "1h2m3.5s = 3600 + 120 + 3.5");
    OK(!parse_duration("12q", 3, &s), "12q is refused");
    /* 10240000000 bytes / 957.921 s = 10689817.6 bytes/s, i.e. 10.69 MB/s as the issue says */
    NUM_REL(10240000000.0 / 957.921, 10.69e6, 1e-3, "seed 002's computed rate");
}

static void numbers(void)
{
    const char *p = "12.5e3x";
    double v = 0;
    OK(scan_number(&p, &v) && v == 12500 && *p == 'x', "12.5e3 then x");
    p = "inf";
    OK(!scan_number(&p, &v), "inf is not a number here");
    p = "0x10";
    OK(scan_number(&p, &v) && v == 0 && *p == 'x', "hex is not read as hex");
    char big[420];
    memset(big, '9', 400);
    big[400] = '\0';
    p = big;
    OK(!scan_number(&p, &v), "a 400-digit number overflows to inf and is refused");
    int64_t i = 0;
    p = "9223372036854775808";
    OK(!scan_int64(&p, &i), "2^63 does not fit int64");
}

static void fmt(double v, enum unit u, const char *want)
{
    struct buf b = BUF_INIT;
    unit_format(&b, v, u);
    STR_EQ(b.data, want, want);
    buf_release(&b);
}

static void human_units(void)
{
    /* 70.2 MiB/s = 70.2 * 1048576 = 73610035.2 bytes/s (seed 000's sequential write) */
    fmt(73610035.2, UNIT_BYTES_S, "70.2 MiB/s");
    fmt(1205.0 * 1048576, UNIT_BYTES_S, "1.18 GiB/s"); /* 1205/1024 = 1.177 */
    fmt(512, UNIT_BYTES_S, "512 B/s");
    fmt(49000, UNIT_NS, "49.0 \xc2\xb5s"); /* 49 µs median */
    fmt(212e6, UNIT_NS, "212 ms");         /* 212 ms p99 */
    fmt(308000, UNIT_IOPS, "308k");
    fmt(46800, UNIT_IOPS, "46.8k");
    fmt(65, UNIT_IOPS, "65");
    fmt(30.04, UNIT_RATIO, "30.0x");
    fmt(NAN, UNIT_BYTES_S, "n/a");
}

static void hashes(void)
{
    char hex[65];
    /* FIPS 180-4 examples */
    sha256_hex("abc", 3, hex);
    STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256(abc)");
    sha256_hex("", 0, hex);
    STR_EQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256('')");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(m, strlen(m), hex);
    STR_EQ(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "two blocks");
}

/* One million 'a' (FIPS 180-4's long example) fed in pieces of 1, 2, ... 200 bytes, so pieces
 * start and end at every offset within a block; and 1000 bytes of varied data hashed whole
 * against every split into two pieces. */
static void hash_pieces(const char *code)
{
    static char a[200];
    memset(a, 'a', sizeof(a));
    struct sha256 s;
    sha256_init(&s);
    for (size_t done = 0, k = 1; done < 1000000; k = k % 200 + 1) {
        size_t n = 1000000 - done < k ? 1000000 - done : k;
        sha256_update(&s, a, n);
        done += n;
    }
    char hex[65], whole[65], split[65];
    sha256_final(&s, hex);
    STR_EQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", code);
    unsigned char data[1000];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i * 7 + i / 251);
    sha256_hex(data, sizeof(data), whole);
    int mismatches = 0;
    for (size_t cut = 0; cut <= sizeof(data); cut++) {
        sha256_init(&s);
        sha256_update(&s, data, cut);
        sha256_update(&s, data + cut, sizeof(data) - cut);
        sha256_final(&s, split);
        mismatches += strcmp(split, whole) != 0;
    }
    INT_EQ(mismatches, 0, code);
}

static void hashes_incremental(void)
{
    sha256_cpu_extensions(0);
    hashes();
    hash_pieces("portable code: a million 'a' in pieces");
    if (sha256_cpu_extensions(1))
        hash_pieces("SHA-NI: a million 'a' in pieces");
}

int main(void)
{
    byte_units();
    time_and_bit_units();
    sizes_and_durations();
    numbers();
    human_units();
    hashes();
    hashes_incremental();
    return TEST_DONE();
}
