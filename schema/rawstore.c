/* rawstore.c: the stored form of a source's bytes (schema/0003_raw.sql, 0006_raw_dict.sql).
 * Bytes are stored zstd-compressed at level 1 when that makes them smaller, else as they are
 * (codec NULL, as every row written before 0003 is): level 1 compressed the fixtures and the
 * corpus 5.4-5.7 times at 400-500 MB/s, as fast as lz4 at nearly twice its ratio
 * (docs/schema.md). A file stored whole is compressed against its format's dictionary once the
 * warehouse has one: files of one format share most of their text (keys, job options, units),
 * which a frame of a few KiB compressed alone cannot refer to. benchdb ships a dictionary for
 * each format the repository has enough real fixtures of (schema/dicts/, made by
 * scripts/make-dicts.py), so a new warehouse packs against it from its first file: it is
 * stored in raw_dict with the first file packed against it. A format shipped none of gets one
 * trained on the warehouse's own files once it holds enough of them, and a shipped one gives way
 * to one trained on the warehouse's files later (rawstore_train.c). */
#include "db_private.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_c_forceAttachDict: raw_packer_new */
#include <zstd.h>

#include "../core/array.h"
#include "../core/buf.h"
#include "../core/sha256.h"
#include "../core/xalloc.h"
#include "sql.h"

enum { ZSTD_LEVEL = 1 };

#define EMBED(ident, name)                                                                         \
    extern const unsigned char ident[];                                                            \
    extern const size_t ident##_len;
#include "dicts.h"
#undef EMBED

/* The dictionaries compiled in: schema/dicts/, a FORMAT.zdict each. */
static const struct shipped_dict {
    const char *file;
    const unsigned char *bytes;
    const size_t *len;
} shipped_dicts[] = {
#define EMBED(ident, name) {name, ident, &ident##_len},
#include "dicts.h"
#undef EMBED
};

static const char shipped_suffix[] = ".zdict";

/* The dictionary shipped for format, or NULL. */
static const struct shipped_dict *shipped_find(const char *format)
{
    size_t n = strlen(format);
    for (size_t i = 0; i < ARRAY_SIZE(shipped_dicts); i++)
        if (!strncmp(shipped_dicts[i].file, format, n) &&
            !strcmp(shipped_dicts[i].file + n, shipped_suffix))
            return &shipped_dicts[i];
    return NULL;
}

/* A format's dictionary: stored (id > 0), or shipped and not stored yet (id 0: the file packed
 * first against it stores it, db_raw_dict_stored); sha256: the hash of its bytes; shipped: the
 * one this benchdb ships when it is that one (stored or not), else NULL. */
struct raw_dict {
    int64_t id;
    char *format;
    ZSTD_CDict *cdict;
    const struct shipped_dict *shipped;
    char sha256[65];
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

/* A packer whose context refers to a dictionary's tables rather than copying them into its own
 * for each input. zstd copies them (32 KiB at level 1) for an input over 8 KiB; referred to, a
 * fio JSON file of 8 KiB took a fifth fewer instructions to compress, and compressed a little
 * smaller (300 files: 0.1053 -> 0.1039 of their bytes, 147,000 -> 115,000 instructions each).
 * The parameter is zstd's experimental API: a libzstd that no longer knows it refuses it, and
 * the packer copies the tables again, which is no fault. */
static struct raw_packer *raw_packer_new(void)
{
    struct raw_packer *p = xcalloc(1, sizeof(*p));
    p->cctx = ZSTD_createCCtx();
    if (p->cctx) {
        ZSTD_CCtx_setParameter(p->cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL);
        ZSTD_CCtx_setParameter(p->cctx, ZSTD_c_forceAttachDict, ZSTD_dictForceAttach);
    }
    return p;
}

/* zstd's level 1 hashes an input over 128 KiB into 2^14 entries (libzstd 1.5.4); 2^12 keep the
 * table in a core's L1 and L2 caches, which made the 4 MiB pieces of fio logs 7-30 % faster to
 * compress and at most 1.5 % larger (`zstd -b1 -B4194304 --zstd=hlog=12`: a tiled 256 MiB log
 * 19.58 -> 19.29:1, real 10 and 27 MB clat logs 5.97 -> 5.97:1 and 3.77 -> 3.74:1;
 * bench/RESULTS.md, session 18). An input up to BIG_INPUT (a fio JSON file) keeps the level's
 * own table, as it was measured with. */
enum { BIG_INPUT = 256 << 10, BIG_INPUT_HASH_LOG = 12 };

/* Sets p's context up for its next frame: against cdict (NULL: none), with a hash table of
 * 2^hash_log entries (0: the level's own). Every frame sets both, so that none depends on what
 * the one before it set; a frame that failed midway is dropped. */
static size_t frame_setup(struct raw_packer *p, const ZSTD_CDict *cdict, int hash_log)
{
    size_t rc = ZSTD_CCtx_reset(p->cctx, ZSTD_reset_session_only);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(p->cctx, ZSTD_c_hashLog, hash_log);
    return ZSTD_isError(rc) ? rc : ZSTD_CCtx_refCDict(p->cctx, cdict);
}

/* Compresses data against dict (NULL: none) with p's context, in the frame
 * ZSTD_compress_usingCDict (or ZSTD_compressCCtx) writes: the content size and the dictionary's
 * id, no checksum. */
static size_t compress_frame(struct raw_packer *p, const struct raw_dict *dict, const void *data,
                             size_t len)
{
    int hash_log = !dict && len > BIG_INPUT ? BIG_INPUT_HASH_LOG : 0;
    size_t rc = frame_setup(p, dict ? dict->cdict : NULL, hash_log);
    return ZSTD_isError(rc) ? rc : ZSTD_compress2(p->cctx, p->out, p->cap, data, len);
}

struct raw_blob raw_pack(struct raw_packer **pp, const struct raw_dict *dict, const void *data,
                         size_t len)
{
    struct raw_blob as_is = {data, len, NULL, 0};
    if (!*pp)
        *pp = raw_packer_new();
    struct raw_packer *p = *pp;
    size_t bound = ZSTD_compressBound(len);
    if (bound > p->cap) {
        free(p->out);
        p->out = xmalloc(bound);
        p->cap = bound;
    }
    size_t n = p->cctx ? compress_frame(p, dict, data, len) : 0;
    /* incompressible bytes (or a failure to compress them) are stored as they are */
    if (!p->cctx || ZSTD_isError(n) || n >= len)
        return as_is;
    return (struct raw_blob){p->out, n, "zstd", dict};
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
    db->dict_row.dict = NULL; /* a new dictionary may be given its address */
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

/* Adds format's dictionary of len bytes with id (0: shipped and not stored yet), hashing to
 * sha256 (hex); it is the shipped one when that is the hash of format's shipped bytes. */
static void dicts_add(struct raw_dicts *dicts, int64_t id, const char *format, const void *bytes,
                      size_t len, const char *sha256)
{
    ZSTD_CDict *cdict = ZSTD_createCDict(bytes, len, ZSTD_LEVEL);
    if (!cdict)
        return;
    ALLOC_GROW(dicts->v, dicts->n + 1, dicts->alloc);
    struct raw_dict *d = &dicts->v[dicts->n++];
    *d = (struct raw_dict){.id = id, .format = xstrdup(format), .cdict = cdict};
    snprintf(d->sha256, sizeof(d->sha256), "%s", sha256);
    const struct shipped_dict *s = shipped_find(format);
    char sha[65];
    if (s && (bytes == s->bytes || (sha256_hex(s->bytes, *s->len, sha), !strcmp(sha, sha256))))
        d->shipped = s;
}

const struct raw_dicts *db_raw_dicts(struct db *db)
{
    if (db->dicts)
        return db->dicts;
    int rc = SQLITE_OK;
    /* the newest of a format is the one used (a merge can bring a second one, and a warehouse
     * trains its own to replace the one shipped); one that cannot be a dictionary is none
     * (merge refuses them since, reparse says so) */
    struct buf sql = BUF_INIT;
    buf_addf(
        &sql,
        "SELECT id, format, sha256, " DICT_BYTES_SQL("bytes") " FROM raw_dict ORDER BY id DESC",
        RAW_DICT_MAX);
    sqlite3_stmt *st = sql_prepare(db->h, &rc, sql.data);
    buf_release(&sql);
    struct raw_dicts *dicts = xcalloc(1, sizeof(*dicts));
    while (sql_step(st, &rc)) {
        const char *format = (const char *)sqlite3_column_text(st, 1);
        const char *sha256 = (const char *)sqlite3_column_text(st, 2);
        const void *bytes = sqlite3_column_blob(st, 3);
        size_t len = (size_t)sqlite3_column_int64(st, 4);
        char why[160];
        if (raw_dict_find(dicts, format) || raw_dict_fault(bytes, len, sha256, why, sizeof(why)))
            continue;
        dicts_add(dicts, sqlite3_column_int64(st, 0), format, bytes, len, sha256);
    }
    sqlite3_finalize(st);
    /* none can be read: none shipped either, as none stored (the warehouse is unreadable) */
    for (size_t i = 0; rc == SQLITE_OK && i < ARRAY_SIZE(shipped_dicts); i++) {
        const struct shipped_dict *s = &shipped_dicts[i];
        char *format = xstrndup(s->file, strlen(s->file) - strlen(shipped_suffix));
        char sha[65];
        if (!raw_dict_find(dicts, format))
            dicts_add(dicts, 0, format, s->bytes, *s->len,
                      (sha256_hex(s->bytes, *s->len, sha), sha));
        free(format);
    }
    db->dicts = dicts;
    return dicts;
}

/* The id of the row of raw_dict whose sha256 is sha (0: none), found by st's first column. */
static int64_t dict_row(sqlite3_stmt *st, int *rc, const char *sha)
{
    sql_bind_text(st, rc, ":sha", sha);
    int64_t id = sql_step(st, rc) ? sqlite3_column_int64(st, 0) : 0;
    sql_release(st);
    return id;
}

int64_t db_raw_dict_stored(struct db *db, const struct raw_dict *dict)
{
    if (!dict || dict->id)
        return dict ? dict->id : 0;
    /* not kept in dict, but until a rollback (the savepoint of a file that fails, say), which
     * may take the row back with it: a lookup for every file was 2 % of an import's writer */
    if (db->dict_row.dict == dict && db->dict_row.undos == db->undos)
        return db->dict_row.id;
    const char *sha = dict->sha256;
    int rc = SQLITE_OK;
    int64_t id =
        dict_row(sql_cached(db, &rc, "SELECT id FROM raw_dict WHERE sha256 = :sha"), &rc, sha);
    if (rc == SQLITE_OK && !id) {
        sqlite3_stmt *st = sql_cached(db, &rc,
                                      "INSERT INTO raw_dict(sha256, format, bytes) VALUES (:sha, "
                                      ":format, :bytes) RETURNING id");
        sql_bind_text(st, &rc, ":format", dict->format);
        sql_bind_blob(st, &rc, ":bytes", dict->shipped->bytes, *dict->shipped->len);
        id = dict_row(st, &rc, sha);
    }
    if (rc != SQLITE_OK)
        return -1;
    db->dict_row.dict = dict;
    db->dict_row.id = id;
    db->dict_row.undos = db->undos;
    return id;
}

int raw_dict_is_shipped(const struct raw_dict *dict)
{
    return dict->shipped != NULL;
}

const char *raw_dict_sha256(const struct raw_dict *dict)
{
    return dict->sha256;
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
