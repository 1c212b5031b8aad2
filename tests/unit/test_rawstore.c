/* test_rawstore.c: the stored form of a source's bytes (schema/rawstore.c): compressed when
 * that pays, as they are when it does not, against a format's dictionary when there is one,
 * and read back whole, in order, from raw or chunks; bytes that do not decode are reported,
 * never returned. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>

#include "../../core/array.h"
#include "../../core/buf.h"
#include "../../core/sha256.h"
#include "../../schema/db_private.h"
#include "harness.h"

/* The tables raw_each reads, as schema/0001_init.sql, 0003_raw.sql and 0006_raw_dict.sql
 * leave them. */
static const char schema_sql[] =
    "CREATE TABLE raw_dict(id INTEGER PRIMARY KEY, sha256 TEXT, format TEXT, bytes BLOB);"
    "CREATE TABLE source_file(id INTEGER PRIMARY KEY, size_bytes INTEGER, raw BLOB, "
    "raw_codec TEXT, raw_dict INTEGER);"
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
    struct raw_blob b = raw_pack(&p, NULL, data, sizeof(data));
    STR_EQ(b.codec, NULL, "random bytes: stored as is");
    OK(b.data == data && b.len == sizeof(data), "random bytes: the bytes themselves");
    b = raw_pack(&p, NULL, "x", 1);
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

    struct raw_blob b = raw_pack(&p, NULL, log, len);
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
               raw_pack(&p, NULL, pieces[i].data, pieces[i].len));
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

/* Decodes a frame made against dictionary dict with zstd's own API (not raw_each): 1 when it
 * gives exactly want. */
static int zstd_gives(const struct raw_blob *b, const void *dict, size_t dict_len, const char *want,
                      size_t len)
{
    char *out = malloc(len + 1);
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    size_t n = ZSTD_decompress_usingDict(dctx, out, len + 1, b->data, b->len, dict, dict_len);
    int same = !ZSTD_isError(n) && n == len && !memcmp(out, want, len);
    ZSTD_freeDCtx(dctx);
    free(out);
    return same;
}

/* A dictionary trained here with zstd's own trainer on the fio JSON fixtures (each also cut in
 * 1 KiB pieces: samples enough for the trainer), stored in raw_dict; the warehouse's
 * dictionaries as db_raw_dicts reads them; a fixture packed against its format's: smaller
 * than without it, decoded by zstd with that dictionary and by raw_each; and a frame whose
 * dictionary is not the one it names does not decode. */
static void dictionary(void)
{
    static const char *const names[] = {"bs_mixed_differ.json", "bs_per_direction.json",
                                        "bs_range.json",        "escaped_desc.json",
                                        "job_error.json",       "jsonplus_randrw.json",
                                        "status_interval.json", "unified_mixed.json"};
    struct buf samples = BUF_INIT;
    size_t sizes[512], n = 0;
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        char path[64];
        size_t len;
        snprintf(path, sizeof(path), "fio_json/%s", names[i]);
        char *text = read_fixture(path, &len);
        for (size_t at = 0; at < len && n < 512; at += 1024) {
            sizes[n++] = len - at < 1024 ? len - at : 1024;
            buf_add(&samples, text + at, sizes[n - 1]);
        }
        free(text);
    }
    char dict[4096];
    size_t dict_len = ZDICT_trainFromBuffer(dict, sizeof(dict), samples.data, sizes, (unsigned)n);
    OK(!ZDICT_isError(dict_len), "zstd trains a dictionary on the fixtures");

    sqlite3 *h = NULL;
    sqlite3_open(":memory:", &h);
    sqlite3_exec(h, schema_sql, NULL, NULL, NULL);
    sqlite3_stmt *st = NULL;
    /* a dictionary is used only when its bytes hash to its sha256 (raw_dict_fault) */
    char sha[65];
    sha256_hex(dict, dict_len, sha);
    sqlite3_prepare_v2(h,
                       "INSERT INTO raw_dict VALUES (7, ?2, 'fio-json', ?1), (8, 'y', "
                       "'fio-json', zeroblob(64))",
                       -1, &st, NULL);
    sqlite3_bind_blob(st, 1, dict, (int)dict_len, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, sha, -1, SQLITE_STATIC);
    INT_EQ(sqlite3_step(st), SQLITE_DONE, "dictionaries stored");
    sqlite3_finalize(st);
    struct db db = {.h = h};
    const struct raw_dicts *dicts = db_raw_dicts(&db);
    const struct raw_dict *d = raw_dict_find(dicts, "fio-json");
    OK(d != NULL, "fio-json has a dictionary");
    OK(raw_dict_find(dicts, "dd") == NULL, "dd has none");

    size_t len;
    char *fixture = read_fixture("fio_json/two_jobs_fsync.json", &len);
    struct raw_packer *p = NULL;
    size_t plain = raw_pack(&p, NULL, fixture, len).len;
    struct raw_blob b = raw_pack(&p, d, fixture, len);
    STR_EQ(b.codec, "zstd", "packed against the dictionary: zstd");
    INT_EQ(raw_dict_id(b.dict), 7,
           "packed against the format's newest dictionary that is one (id 7; 8 is not)");
    OK(b.len < plain, "smaller than without the dictionary");
    OK(zstd_gives(&b, dict, dict_len, fixture, len), "zstd decodes it with the dictionary");
    OK(!zstd_gives(&b, NULL, 0, fixture, len), "and not without it");

    sqlite3_prepare_v2(h,
                       "INSERT INTO source_file VALUES (1, ?1, ?2, 'zstd', 7), (2, ?1, ?2, "
                       "'zstd', 8), (3, ?1, ?2, 'zstd', NULL)",
                       -1, &st, NULL);
    sqlite3_bind_int64(st, 1, (int64_t)len);
    sqlite3_bind_blob(st, 2, b.data, (int)b.len, SQLITE_STATIC);
    INT_EQ(sqlite3_step(st), SQLITE_DONE, "sources stored");
    sqlite3_finalize(st);
    struct buf got = BUF_INIT;
    INT_EQ(raw_each(h, "main", 1, collect, &got), 0, "raw against its dictionary reads back");
    OK(got.len == len && !memcmp(got.data, fixture, len), "the same bytes");
    INT_EQ(raw_each(h, "main", 2, collect, &got), 1, "against another dictionary: does not decode");
    INT_EQ(raw_each(h, "main", 3, collect, &got), 1, "without its dictionary: does not decode");

    buf_release(&got);
    buf_release(&samples);
    raw_packer_free(p);
    db_raw_dicts_release(&db);
    sqlite3_close(h);
    free(fixture);
}

int main(void)
{
    incompressible_stays_as_is();
    round_trip();
    dictionary();
    return TEST_DONE();
}
