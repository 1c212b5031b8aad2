/* rawstore.c: the stored form of a source's bytes (schema/0003_raw.sql). Bytes are stored
 * zstd-compressed at level 1 when that makes them smaller, else as they are (codec NULL, as
 * every row written before 0003 is): level 1 compressed the fixtures and the corpus 5.4-5.7
 * times at 400-500 MB/s, as fast as lz4 at nearly twice its ratio (docs/schema.md). */
#include "db_private.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../core/buf.h"
#include "../core/xalloc.h"

enum { ZSTD_LEVEL = 1 };

struct raw_packer {
    ZSTD_CCtx *cctx;
    char *out;
    size_t cap;
};

struct raw_blob raw_pack(struct raw_packer **pp, const void *data, size_t len)
{
    struct raw_blob as_is = {data, len, NULL};
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
    size_t n = p->cctx ? ZSTD_compressCCtx(p->cctx, p->out, p->cap, data, len, ZSTD_LEVEL) : 0;
    /* incompressible bytes (or a failure to compress them) are stored as they are */
    if (!p->cctx || ZSTD_isError(n) || n >= len)
        return as_is;
    return (struct raw_blob){p->out, n, "zstd"};
}

void raw_packer_free(struct raw_packer *p)
{
    if (!p)
        return;
    ZSTD_freeCCtx(p->cctx);
    free(p->out);
    free(p);
}

/* Decodes n stored bytes of codec into dst, which holds exactly len; 0 or -1. */
static int raw_unpack(const char *codec, const void *blob, size_t n, char *dst, size_t len)
{
    if (!codec) {
        if (n != len)
            return -1;
        memcpy(dst, blob, n);
        return 0;
    }
    if (strcmp(codec, "zstd"))
        return -1;
    size_t got = ZSTD_decompress(dst, len, blob, n);
    return !ZSTD_isError(got) && got == len ? 0 : -1;
}

int raw_each(sqlite3 *h, const char *schema, int64_t id, raw_each_fn *each, void *ctx)
{
    struct buf sql = BUF_INIT;
    buf_addf(&sql,
             "SELECT raw, raw_codec, size_bytes FROM %s.source_file WHERE id = ?1 AND raw IS "
             "NOT NULL UNION ALL SELECT * FROM (SELECT data, codec, coalesce(size_bytes, "
             "length(data)) FROM %s.source_chunk WHERE source_id = ?1 ORDER BY seq)",
             schema, schema);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h, sql.data, -1, &st, NULL) == SQLITE_OK ? 0 : -1;
    buf_release(&sql);
    if (rc == 0)
        sqlite3_bind_int64(st, 1, id);
    char *piece = NULL;
    while (rc == 0) {
        int s = sqlite3_step(st);
        if (s != SQLITE_ROW) {
            rc = s == SQLITE_DONE ? 0 : -1;
            break;
        }
        sqlite3_int64 len = sqlite3_column_int64(st, 2);
        const void *blob = sqlite3_column_blob(st, 0);
        size_t n = (size_t)sqlite3_column_bytes(st, 0);
        if (len < 0 || (uint64_t)len > SIZE_MAX - 1) {
            rc = 1;
            break;
        }
        piece = xrealloc(piece, (size_t)len + 1);
        if (raw_unpack((const char *)sqlite3_column_text(st, 1), blob, n, piece, (size_t)len) ||
            each(ctx, piece, (size_t)len))
            rc = 1;
    }
    free(piece);
    sqlite3_finalize(st);
    return rc;
}
