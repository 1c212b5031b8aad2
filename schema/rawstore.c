/* rawstore.c: the stored form of a source's bytes (schema/0003_raw.sql, 0006_raw_dict.sql).
 * Bytes are stored zstd-compressed at level 1 when that makes them smaller, else as they are
 * (codec NULL, as every row written before 0003 is): level 1 compressed the fixtures and the
 * corpus 5.4-5.7 times at 400-500 MB/s, as fast as lz4 at nearly twice its ratio
 * (docs/schema.md). A file stored whole is compressed against its format's dictionary once the
 * warehouse has one: files of one format share most of their text (keys, job options, units),
 * which a frame of a few KiB compressed alone cannot refer to. A format's dictionary is trained
 * on the warehouse's own files once it holds enough of them (rawstore_train.c). */
#include "db_private.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>

#include "../core/buf.h"
#include "../core/sha256.h"
#include "../core/xalloc.h"
#include "sql.h"

enum { ZSTD_LEVEL = 1 };

struct raw_dict {
    int64_t id;
    char *format;
    ZSTD_CDict *cdict;
};

struct raw_dicts {
    struct raw_dict *v;
    size_t n, alloc;
};

struct raw_packer {
    ZSTD_CCtx *cctx;
    char *out;
    size_t cap;
};

struct raw_blob raw_pack(struct raw_packer **pp, const struct raw_dict *dict, const void *data,
                         size_t len)
{
    struct raw_blob as_is = {data, len, NULL, 0};
    if (!*pp) {
        *pp = xcalloc(1, sizeof(**pp));
        (*pp)->cctx = ZSTD_createCCtx();
    }
    struct raw_packer *p = *pp;
    size_t bound = ZSTD_compressBound(len);
    if (bound > p->cap) {
        free(p->out);
        p->out = xmalloc(bound);
        p->cap = bound;
    }
    size_t n = !p->cctx ? 0
               : dict   ? ZSTD_compress_usingCDict(p->cctx, p->out, p->cap, data, len, dict->cdict)
                        : ZSTD_compressCCtx(p->cctx, p->out, p->cap, data, len, ZSTD_LEVEL);
    /* incompressible bytes (or a failure to compress them) are stored as they are */
    if (!p->cctx || ZSTD_isError(n) || n >= len)
        return as_is;
    return (struct raw_blob){p->out, n, "zstd", dict ? dict->id : 0};
}

void raw_packer_free(struct raw_packer *p)
{
    if (!p)
        return;
    ZSTD_freeCCtx(p->cctx);
    free(p->out);
    free(p);
}

const struct raw_dict *raw_dict_find(const struct raw_dicts *dicts, const char *format)
{
    for (size_t i = 0; dicts && format && i < dicts->n; i++)
        if (!strcmp(dicts->v[i].format, format))
            return &dicts->v[i];
    return NULL;
}

int64_t raw_dict_id(const struct raw_dict *dict)
{
    return dict->id;
}

static void raw_dicts_free(struct raw_dicts *dicts)
{
    if (!dicts)
        return;
    for (size_t i = 0; i < dicts->n; i++) {
        free(dicts->v[i].format);
        ZSTD_freeCDict(dicts->v[i].cdict);
    }
    free(dicts->v);
    free(dicts);
}

void db_raw_dicts_release(struct db *db)
{
    raw_dicts_free(db->dicts);
    db->dicts = NULL;
}

int raw_dict_fault(const void *bytes, size_t len, const char *sha256, char *why, size_t n)
{
    char got[65];
    if (len > RAW_DICT_MAX)
        snprintf(why, n, "it is %zu bytes, more than the %d a dictionary may hold", len,
                 RAW_DICT_MAX);
    else if (!bytes || !ZDICT_getDictID(bytes, len))
        snprintf(why, n, "it is not a zstd dictionary");
    else if (sha256 && (sha256_hex(bytes, len, got), strcmp(got, sha256)))
        snprintf(why, n, "its bytes hash to sha256 %.12s..., not to the %.12s... stored with it",
                 got, sha256);
    else
        return 0;
    return -1;
}

/* The bytes of a dictionary column when they are no more than RAW_DICT_MAX (else NULL: length()
 * reads no bytes, so a "dictionary" of 200 MB is not loaded to be refused), then their length;
 * a format of buf_addf, given RAW_DICT_MAX. */
#define DICT_BYTES_SQL(col) "CASE WHEN length(" col ") <= %d THEN " col " END, length(" col ")"

const struct raw_dicts *db_raw_dicts(struct db *db)
{
    if (db->dicts)
        return db->dicts;
    int rc = SQLITE_OK;
    /* a merge can bring a second dictionary of a format: the first one stays the one used; one
     * that cannot be a dictionary is none (merge refuses them since, reparse says so) */
    struct buf sql = BUF_INIT;
    buf_addf(&sql,
             "SELECT id, format, sha256, " DICT_BYTES_SQL("bytes") " FROM raw_dict ORDER BY id",
             RAW_DICT_MAX);
    sqlite3_stmt *st = sql_prepare(db->h, &rc, sql.data);
    buf_release(&sql);
    struct raw_dicts *dicts = xcalloc(1, sizeof(*dicts));
    while (sql_step(st, &rc)) {
        const char *format = (const char *)sqlite3_column_text(st, 1);
        const void *bytes = sqlite3_column_blob(st, 3);
        size_t len = (size_t)sqlite3_column_int64(st, 4);
        char why[160];
        if (raw_dict_find(dicts, format) ||
            raw_dict_fault(bytes, len, (const char *)sqlite3_column_text(st, 2), why, sizeof(why)))
            continue;
        ZSTD_CDict *cdict = ZSTD_createCDict(bytes, len, ZSTD_LEVEL);
        if (!cdict)
            continue;
        ALLOC_GROW(dicts->v, dicts->n + 1, dicts->alloc);
        dicts->v[dicts->n++] =
            (struct raw_dict){sqlite3_column_int64(st, 0), xstrdup(format), cdict};
    }
    sqlite3_finalize(st);
    db->dicts = dicts;
    return dicts;
}

/* What reads sources' bytes: the query and the decompression context kept from one source to
 * the next (preparing the query and making a context per source was a sixth of a merge), the
 * buffer of the last piece, and why the last source did not decode. */
struct raw_reader {
    sqlite3_stmt *st;
    ZSTD_DCtx *dctx;
    char *piece;
    size_t cap;
    char why[200];
};

struct raw_reader *raw_reader_open(sqlite3 *h, const char *schema)
{
    struct buf sql = BUF_INIT;
    /* each piece: its bytes (NULL when over RAW_PIECE_MAX: not loaded), codec, decoded size,
     * stored size, then its dictionary's id, bytes (as DICT_BYTES_SQL) and length */
    buf_addf(
        &sql,
        "SELECT CASE WHEN length(f.raw) <= %d THEN f.raw END, f.raw_codec, f.size_bytes, "
        "length(f.raw), f.raw_dict, " DICT_BYTES_SQL(
            "d.bytes") " FROM %s.source_file f "
                       "LEFT JOIN %s.raw_dict d ON d.id = f.raw_dict WHERE f.id = ?1 AND f.raw IS NOT NULL "
                       "UNION ALL SELECT * FROM (SELECT CASE WHEN length(data) <= %d THEN data END, codec, "
                       "coalesce(size_bytes, length(data)), length(data), NULL, NULL, NULL FROM "
                       "%s.source_chunk WHERE source_id = ?1 ORDER BY seq)",
        RAW_PIECE_MAX, RAW_DICT_MAX, schema, schema, RAW_PIECE_MAX, schema);
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_prepare_v2(h, sql.data, -1, &st, NULL) == SQLITE_OK;
    buf_release(&sql);
    if (!ok)
        return NULL;
    struct raw_reader *r = xcalloc(1, sizeof(*r));
    r->st = st;
    return r;
}

const char *raw_reader_why(const struct raw_reader *r)
{
    return r->why;
}

/* Decodes the piece of the reader's current row (its k-th, from 1) into r->piece: its length,
 * or -1 with r->why saying why not. Every size is checked before memory is taken: the decoded
 * size stored with it (size_bytes, which a forged row can set to anything), the stored size,
 * the dictionary, and the size the zstd frame itself declares; the output buffer holds no
 * more than the decoded size, so a frame that decodes to more stops there. */
static ptrdiff_t unpack_piece(struct raw_reader *r, size_t k)
{
    sqlite3_stmt *st = r->st;
    int has_len = sqlite3_column_type(st, 2) == SQLITE_INTEGER;
    int has_dict = sqlite3_column_type(st, 4) != SQLITE_NULL;
    const char *codec = (const char *)sqlite3_column_text(st, 1);
    sqlite3_int64 len = sqlite3_column_int64(st, 2), stored = sqlite3_column_int64(st, 3);
    if (!has_len || len < 0 || len > RAW_PIECE_MAX) {
        snprintf(r->why, sizeof(r->why),
                 "piece %zu claims %lld bytes once decoded, more than the %d benchdb stores in "
                 "one",
                 k, (long long)len, RAW_PIECE_MAX);
        return -1;
    }
    if (stored > RAW_PIECE_MAX) {
        snprintf(r->why, sizeof(r->why),
                 "piece %zu is stored in %lld bytes, more than the %d benchdb stores in one", k,
                 (long long)stored, RAW_PIECE_MAX);
        return -1;
    }
    const void *blob = sqlite3_column_blob(st, 0);
    size_t n = (size_t)sqlite3_column_bytes(st, 0);
    const void *dict = NULL;
    size_t dict_len = 0;
    if (has_dict) {
        int dict_found = sqlite3_column_type(st, 6) != SQLITE_NULL;
        dict = sqlite3_column_blob(st, 5);
        dict_len = (size_t)sqlite3_column_int64(st, 6);
        char why[160];
        if (!dict_found) {
            snprintf(r->why, sizeof(r->why), "its dictionary (id %lld) is missing",
                     (long long)sqlite3_column_int64(st, 4));
            return -1;
        }
        if (raw_dict_fault(dict, dict_len, NULL, why, sizeof(why))) {
            snprintf(r->why, sizeof(r->why), "its dictionary (id %lld): %s",
                     (long long)sqlite3_column_int64(st, 4), why);
            return -1;
        }
    }
    if (!codec) {
        if (has_dict) {
            snprintf(r->why, sizeof(r->why), "piece %zu is stored as is, yet names a dictionary",
                     k);
            return -1;
        }
        if ((size_t)len != n) {
            snprintf(r->why, sizeof(r->why),
                     "piece %zu is stored as is in %zu bytes, not the %lld stored with it", k, n,
                     (long long)len);
            return -1;
        }
    } else if (strcmp(codec, "zstd")) {
        snprintf(r->why, sizeof(r->why), "piece %zu has codec '%s', which benchdb does not write",
                 k, codec);
        return -1;
    } else {
        unsigned long long declared = ZSTD_getFrameContentSize(blob, n);
        if (declared == ZSTD_CONTENTSIZE_ERROR) {
            snprintf(r->why, sizeof(r->why), "piece %zu is not a zstd frame", k);
            return -1;
        }
        unsigned want = dict ? ZDICT_getDictID(dict, dict_len) : 0,
                 named = ZSTD_getDictID_fromFrame(blob, n);
        if (named != want) {
            snprintf(r->why, sizeof(r->why),
                     "piece %zu is a zstd frame of dictionary id %u, and its dictionary's id "
                     "is %u",
                     k, named, want);
            return -1;
        }
        if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != (unsigned long long)len) {
            snprintf(r->why, sizeof(r->why),
                     "piece %zu is a zstd frame of %llu bytes, not the %lld stored with it", k,
                     declared, (long long)len);
            return -1;
        }
    }
    if ((size_t)len + 1 > r->cap) {
        r->cap = (size_t)len + 1;
        free(r->piece);
        r->piece = xmalloc(r->cap);
    }
    if (!codec) {
        if (n) /* an empty blob is NULL */
            memcpy(r->piece, blob, n);
        return len;
    }
    if (!r->dctx && !(r->dctx = ZSTD_createDCtx())) {
        snprintf(r->why, sizeof(r->why), "cannot make a zstd decompression context");
        return -1;
    }
    size_t got = ZSTD_decompress_usingDict(r->dctx, r->piece, (size_t)len, blob, n, dict, dict_len);
    if (ZSTD_isError(got))
        snprintf(r->why, sizeof(r->why), "piece %zu: zstd: %s", k, ZSTD_getErrorName(got));
    else if (got != (size_t)len)
        snprintf(r->why, sizeof(r->why),
                 "piece %zu decodes to %zu bytes, not the %lld stored "
                 "with it",
                 k, got, (long long)len);
    return !ZSTD_isError(got) && got == (size_t)len ? len : -1;
}

int raw_read(struct raw_reader *r, int64_t id, raw_each_fn *each, void *ctx)
{
    sqlite3_stmt *st = r->st;
    sqlite3_bind_int64(st, 1, id);
    r->why[0] = '\0';
    int rc = 0;
    for (size_t k = 1; rc == 0; k++) {
        int s = sqlite3_step(st);
        if (s != SQLITE_ROW) {
            rc = s == SQLITE_DONE ? 0 : -1;
            break;
        }
        ptrdiff_t len = unpack_piece(r, k);
        if (len < 0 || each(ctx, r->piece, (size_t)len))
            rc = 1;
    }
    sqlite3_reset(st);
    return rc;
}

void raw_reader_close(struct raw_reader *r)
{
    if (!r)
        return;
    sqlite3_finalize(r->st);
    ZSTD_freeDCtx(r->dctx);
    free(r->piece);
    free(r);
}

int raw_each(sqlite3 *h, const char *schema, int64_t id, raw_each_fn *each, void *ctx)
{
    struct raw_reader *r = raw_reader_open(h, schema);
    int rc = r ? raw_read(r, id, each, ctx) : -1;
    raw_reader_close(r);
    return rc;
}
