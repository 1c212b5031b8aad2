/* test_rawstore.c: the stored form of a source's bytes (schema/rawstore.c): compressed when
 * that pays, as they are when it does not, and read back whole, in order, from raw or chunks;
 * bytes that do not decode are reported, never returned. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/buf.h"
#include "../../schema/db_private.h"
#include "harness.h"

/* The tables raw_each reads, as schema/0001_init.sql and 0003_raw.sql leave them. */
static const char schema_sql[] =
    "CREATE TABLE source_file(id INTEGER PRIMARY KEY, size_bytes INTEGER, raw BLOB, "
    "raw_codec TEXT);"
    "CREATE TABLE source_chunk(source_id INTEGER, seq INTEGER, data BLOB, codec TEXT, "
    "size_bytes INTEGER);";

static char *read_fixture(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", getenv("FIXTURES") ? getenv("FIXTURES") : ".", name);
    FILE *f = fopen(path, "rb");
    struct buf b = BUF_INIT;
    char tmp[65536];
    size_t n;
    while (f && (n = fread(tmp, 1, sizeof(tmp), f)) > 0)
        buf_add(&b, tmp, n);
    if (f)
        fclose(f);
    OK(f != NULL, "fixture opens");
    return buf_detach(&b, len);
}

/* xorshift64: bytes no compressor can shorten */
static void random_bytes(unsigned char *p, size_t n)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (unsigned char)x;
    }
}

static int collect(void *ctx, const void *data, size_t len)
{
    buf_add(ctx, data, len);
    return 0;
}

static void insert(sqlite3 *h, const char *sql, int64_t a, int64_t b, struct raw_blob blob)
{
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(h, sql, -1, &st, NULL);
    sqlite3_bind_int64(st, 1, a);
    sqlite3_bind_int64(st, 2, b);
    sqlite3_bind_blob(st, 3, blob.data, (int)blob.len, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, blob.codec, -1, SQLITE_STATIC);
    INT_EQ(sqlite3_step(st), SQLITE_DONE, sql);
    sqlite3_finalize(st);
}

static void incompressible_stays_as_is(void)
{
    struct raw_packer *p = NULL;
    unsigned char data[65536];
    random_bytes(data, sizeof(data));
    struct raw_blob b = raw_pack(&p, data, sizeof(data));
    STR_EQ(b.codec, NULL, "random bytes: stored as is");
    OK(b.data == data && b.len == sizeof(data), "random bytes: the bytes themselves");
    b = raw_pack(&p, "x", 1);
    STR_EQ(b.codec, NULL, "one byte: a zstd frame would be longer");
    INT_EQ(b.len, 1, "one byte: not grown");
    raw_packer_free(p);
}

/* A real fio log in raw (compressed), then split in three chunks: one compressed, one as is
 * (random), one compressed; raw_each gives back the exact bytes in order. */
static void round_trip(void)
{
    size_t len;
    char *log = read_fixture("fio_log/perio_clat.1.log", &len);
    struct raw_packer *p = NULL;
    sqlite3 *h = NULL;
    sqlite3_open(":memory:", &h);
    sqlite3_exec(h, schema_sql, NULL, NULL, NULL);

    struct raw_blob b = raw_pack(&p, log, len);
    STR_EQ(b.codec, "zstd", "a fio log compresses");
    OK(b.len < len / 2, "a fio log compresses to under half");
    insert(h, "INSERT INTO source_file(id, size_bytes, raw, raw_codec) VALUES (?1, ?2, ?3, ?4)", 1,
           (int64_t)len, b);
    struct buf got = BUF_INIT;
    INT_EQ(raw_each(h, "main", 1, collect, &got), 0, "raw reads back");
    OK(got.len == len && !memcmp(got.data, log, len), "raw: the same bytes");

    unsigned char noise[4096];
    random_bytes(noise, sizeof(noise));
    struct buf whole = BUF_INIT;
    const char *chunk_sql = "INSERT INTO source_chunk(source_id, seq, data, codec, size_bytes) "
                            "VALUES (2, ?1, ?3, ?4, ?2)";
    const struct {
        const void *data;
        size_t len;
    } pieces[] = {{log, len / 2}, {noise, sizeof(noise)}, {log + len / 2, len - len / 2}};
    for (int i = 2; i >= 0; i--) { /* stored out of order: seq decides */
        insert(h, chunk_sql, i, (int64_t)pieces[i].len,
               raw_pack(&p, pieces[i].data, pieces[i].len));
    }
    for (int i = 0; i < 3; i++)
        buf_add(&whole, pieces[i].data, pieces[i].len);
    buf_reset(&got);
    INT_EQ(raw_each(h, "main", 2, collect, &got), 0, "chunks read back");
    OK(got.len == whole.len && !memcmp(got.data, whole.data, whole.len),
       "chunks: the same bytes, in seq order");

    sqlite3_exec(h, "UPDATE source_file SET raw = substr(raw, 1, 20) WHERE id = 1", NULL, NULL,
                 NULL);
    INT_EQ(raw_each(h, "main", 1, collect, &got), 1, "a cut zstd frame does not decode");
    sqlite3_exec(h, "UPDATE source_chunk SET size_bytes = size_bytes + 1 WHERE seq = 0", NULL, NULL,
                 NULL);
    INT_EQ(raw_each(h, "main", 2, collect, &got), 1, "a frame shorter than its size is refused");
    INT_EQ(raw_each(h, "nosuch", 2, collect, &got), -1, "an unreadable schema is an error");

    buf_release(&got);
    buf_release(&whole);
    raw_packer_free(p);
    sqlite3_close(h);
    free(log);
}

int main(void)
{
    incompressible_stays_as_is();
    round_trip();
    return TEST_DONE();
}
