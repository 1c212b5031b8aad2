/* reparse.c: re-deriving the results of a stored source from its raw bytes. The new results
 * are stored beside the old ones in the same transaction, compared with them, given the old
 * labels and history, and then replace them; when nothing changed the transaction is rolled
 * back, so the warehouse (ids included) stays exactly as it was. */
#include "db_private.h"

#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"

/* The old source's sha256 while the new copy is stored (sha256 is UNIQUE). */
#define PARKED_SUFFIX ".reparse"

void db_stored_release(struct db_stored *s)
{
    free(s->path);
    free(s->sha256);
    free(s->format);
    free(s->imported_at);
    free(s->raw);
    memset(s, 0, sizeof(*s));
}

static char *column_dup(sqlite3_stmt *st, int col)
{
    return xstrdup((const char *)sqlite3_column_text(st, col));
}

/* Where the pieces of a source's bytes go as they are decoded. */
struct assembly {
    char *data;
    size_t len, at;
};

static int assemble(void *ctx, const void *piece, size_t n)
{
    struct assembly *a = ctx;
    if (n > a->len - a->at)
        return -1;
    memcpy(a->data + a->at, piece, n);
    a->at += n;
    return 0;
}

int db_stored_load(struct db *db, int64_t id, struct db_stored *out, struct diag *d)
{
    sqlite3_stmt *st = NULL;
    memset(out, 0, sizeof(*out));
    if (sqlite3_prepare_v2(db->h,
                           "SELECT path, sha256, format, imported_at, size_bytes FROM "
                           "source_file WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return diag_error(d, "database '%s': no source with id %lld", db->path, (long long)id);
    }
    struct assembly a = {NULL, (size_t)sqlite3_column_int64(st, 4), 0};
    a.data = xmalloc(a.len + 1);
    a.data[a.len] = '\0';
    out->id = id;
    out->path = column_dup(st, 0);
    out->sha256 = column_dup(st, 1);
    out->format = column_dup(st, 2);
    out->imported_at = column_dup(st, 3);
    out->raw = a.data;
    out->src = (struct source){out->path, a.data, a.len};
    sqlite3_finalize(st);
    int rc = raw_each(db->h, "main", id, assemble, &a);
    if (rc < 0)
        return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
    if (rc > 0 || a.at != a.len)
        return diag_error(d,
                          "database '%s': the stored bytes of '%s' do not decode to its %zu "
                          "bytes",
                          db->path, out->path, a.len);
    return 0;
}

/* Runs sql with ?1 the old source id, ?2 the new one; the first column of the first row, or
 * -1 on error (counts and ids are never negative). */
static int64_t run2(struct db *db, const char *sql, int64_t old_id, int64_t new_id)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, old_id);
        sqlite3_bind_int64(st, 2, new_id);
        int s = sqlite3_step(st);
        v = s == SQLITE_ROW ? sqlite3_column_int64(st, 0) : s == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_finalize(st);
    return v;
}

struct db_import *db_reparse_begin(struct db *db, const struct db_stored *s, struct diag *d)
{
    static const struct import_labels no_labels = {0};
    if (db_begin(db, d))
        return NULL;
    if (run2(db, "UPDATE source_file SET sha256 = sha256 || '" PARKED_SUFFIX "' WHERE id = ?1",
             s->id, 0) < 0) {
        diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
        db_rollback(db);
        return NULL;
    }
    /* the bytes stay with the old source until db_reparse_finish moves them */
    struct source bare = {s->path, NULL, s->src.len};
    struct db_import *imp =
        db_import_begin(db, &bare, s->sha256, NULL, s->format, s->imported_at, &no_labels, d);
    if (!imp)
        db_rollback(db);
    return imp;
}

/* Old and new results paired by job and direction, in order. */
static const char pair_sql[] =
    "WITH o AS (SELECT r.id, r.job, r.direction, row_number() OVER (PARTITION BY r.job, "
    "r.direction ORDER BY r.id) AS k FROM result r JOIN run ON run.id = r.run_id "
    "WHERE run.source_id = ?1), "
    "n AS (SELECT r.id, r.job, r.direction, row_number() OVER (PARTITION BY r.job, "
    "r.direction ORDER BY r.id) AS k FROM result r JOIN run ON run.id = r.run_id "
    "WHERE run.source_id = ?2) "
    "INSERT INTO temp.reparse_pair(old_id, new_id) SELECT o.id, n.id FROM o JOIN n "
    "ON o.job IS n.job AND o.direction IS n.direction AND o.k = n.k";

static const char count_sql[] = "SELECT count(*) FROM result r JOIN run ON run.id = r.run_id "
                                "WHERE run.source_id = ?1";

/* The content-derived columns of a result (labels excluded). */
#define CONTENT_COLUMNS(t)                                                                         \
    "(" t ".peer, " t ".rw, " t ".bs_bytes, " t ".iodepth, " t ".numjobs, " t ".direct, " t        \
    ".sync, " t ".fsync, " t ".fdatasync, " t ".ioengine, " t ".size_bytes, " t ".rwmixread, " t   \
    ".runtime_s, " t ".error, " t ".error_msg, " t ".line_first, " t ".line_last, " t              \
    ".transcribed)"

#define SET_DIFFERS(cols, table)                                                                   \
    "EXISTS (SELECT " cols " FROM " table " WHERE result_id = p.old_id EXCEPT SELECT " cols        \
    " FROM " table " WHERE result_id = p.new_id) OR EXISTS (SELECT " cols " FROM " table           \
    " WHERE result_id = p.new_id EXCEPT SELECT " cols " FROM " table                               \
    " WHERE result_id = p.old_id)"

#define OLD_NEW_DIFFER CONTENT_COLUMNS("o") " IS NOT " CONTENT_COLUMNS("n")
#define BINS_DIFFER    SET_DIFFERS("metric, value_ns, count", "latency_bin")
#define SERIES_DIFFER  SET_DIFFERS("metric, t_ms, value", "series_point")
static const char changed_sql[] = "SELECT count(*) FROM temp.reparse_pair p "
                                  "JOIN result o ON o.id = p.old_id "
                                  "JOIN result n ON n.id = p.new_id WHERE " OLD_NEW_DIFFER
                                  " OR " BINS_DIFFER " OR " SERIES_DIFFER;

static const char runs_changed_sql[] =
    "SELECT count(*) FROM (SELECT tool, tool_version, started_at, command_line FROM run "
    "WHERE source_id = ?1 EXCEPT SELECT tool, tool_version, started_at, command_line FROM run "
    "WHERE source_id = ?2)";

static const char metrics_added_sql[] =
    "SELECT count(*) FROM temp.reparse_pair p JOIN metric m ON m.result_id = p.new_id "
    "WHERE NOT EXISTS (SELECT 1 FROM metric x WHERE x.result_id = p.old_id AND x.name = m.name)";
static const char metrics_removed_sql[] =
    "SELECT count(*) FROM temp.reparse_pair p JOIN metric m ON m.result_id = p.old_id "
    "WHERE NOT EXISTS (SELECT 1 FROM metric x WHERE x.result_id = p.new_id AND x.name = m.name)";
static const char metrics_changed_sql[] =
    "SELECT count(*) FROM temp.reparse_pair p JOIN metric m ON m.result_id = p.new_id "
    "JOIN metric x ON x.result_id = p.old_id AND x.name = m.name WHERE x.value IS NOT m.value";
static const char tags_added_sql[] =
    "SELECT count(*) FROM temp.reparse_pair p JOIN tag t ON t.result_id = p.new_id "
    "WHERE NOT EXISTS (SELECT 1 FROM tag x WHERE x.result_id = p.old_id AND x.key = t.key)";

/* Labels (the stored ones win), tags and history move to the new results; results that are
 * new get the labels of the first old result where the content left them empty; the raw
 * bytes move to the new source. */
static const char *const carry_sql[] = {
    "UPDATE result SET host = o.host, storage_class = o.storage_class, sec = o.sec, "
    "mount_id = o.mount_id FROM temp.reparse_pair p JOIN result o ON o.id = p.old_id "
    "WHERE result.id = p.new_id",
    "UPDATE result SET host = coalesce(result.host, f.host), "
    "storage_class = coalesce(result.storage_class, f.storage_class), "
    "sec = coalesce(result.sec, f.sec), mount_id = coalesce(result.mount_id, f.mount_id) "
    "FROM (SELECT r.* FROM result r JOIN run ON run.id = r.run_id WHERE run.source_id = ?1 "
    "ORDER BY r.id LIMIT 1) f WHERE result.run_id IN (SELECT id FROM run WHERE source_id = ?2) "
    "AND result.id NOT IN (SELECT new_id FROM temp.reparse_pair)",
    "INSERT OR REPLACE INTO tag(result_id, key, value) SELECT p.new_id, t.key, t.value "
    "FROM temp.reparse_pair p JOIN tag t ON t.result_id = p.old_id",
    "UPDATE label_history SET result_id = p.new_id FROM temp.reparse_pair p "
    "WHERE label_history.result_id = p.old_id",
    "UPDATE source_file SET (raw, raw_codec) = (SELECT raw, raw_codec FROM source_file "
    "WHERE id = ?1) WHERE id = ?2",
    "UPDATE source_chunk SET source_id = ?2 WHERE source_id = ?1",
    "DELETE FROM source_file WHERE id = ?1",
};

static int count(struct db *db, const char *sql, int64_t old_id, int64_t new_id, size_t *out)
{
    int64_t v = run2(db, sql, old_id, new_id);
    *out = v < 0 ? 0 : (size_t)v;
    return v < 0 ? -1 : 0;
}

static int compare(struct db *db, int64_t old_id, int64_t new_id, struct reparse_counts *c)
{
    size_t paired = 0;
    if (sqlite3_exec(db->h,
                     "CREATE TEMP TABLE IF NOT EXISTS reparse_pair(old_id INTEGER, "
                     "new_id INTEGER); DELETE FROM temp.reparse_pair",
                     NULL, NULL, NULL) != SQLITE_OK ||
        run2(db, pair_sql, old_id, new_id) < 0 ||
        count(db, "SELECT count(*) FROM temp.reparse_pair", 0, 0, &paired) ||
        count(db, count_sql, old_id, 0, &c->results_before) ||
        count(db, count_sql, new_id, 0, &c->results_after) ||
        count(db, changed_sql, 0, 0, &c->results_changed) ||
        count(db, runs_changed_sql, old_id, new_id, &c->runs_changed) ||
        count(db, metrics_added_sql, 0, 0, &c->metrics_added) ||
        count(db, metrics_removed_sql, 0, 0, &c->metrics_removed) ||
        count(db, metrics_changed_sql, 0, 0, &c->metrics_changed) ||
        count(db, tags_added_sql, 0, 0, &c->tags_added))
        return -1;
    c->results_added = c->results_after - paired;
    c->results_removed = c->results_before - paired;
    c->changed = c->results_added || c->results_removed || c->results_changed || c->runs_changed ||
                 c->metrics_added || c->metrics_removed || c->metrics_changed || c->tags_added;
    return 0;
}

int db_reparse_finish(struct db *db, const struct db_stored *s, struct reparse_counts *c,
                      struct diag *d)
{
    memset(c, 0, sizeof(*c));
    sqlite3_stmt *st = NULL;
    int64_t new_id = -1;
    if (sqlite3_prepare_v2(db->h, "SELECT id FROM source_file WHERE sha256 = ?", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, s->sha256, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            new_id = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    int bad = new_id < 0 || compare(db, s->id, new_id, c);
    for (size_t i = 0; !bad && c->changed && i < sizeof(carry_sql) / sizeof(carry_sql[0]); i++)
        bad = run2(db, carry_sql[i], s->id, new_id) < 0;
    if (bad) {
        diag_error(d, "database '%s': cannot reparse '%s': %s", db->path, s->path,
                   sqlite3_errmsg(db->h));
        db_rollback(db);
        return -1;
    }
    if (!c->changed) {
        db_rollback(db);
        return 0;
    }
    if (db_commit(db, d)) {
        db_rollback(db);
        return -1;
    }
    return 0;
}
