/* reparse.c: re-deriving the results of a stored source from its raw bytes. The new results
 * are stored beside the old ones in the same transaction, compared with them, given the old
 * labels and history, and then replace them; when nothing changed the transaction is rolled
 * back, so the warehouse (ids included) stays exactly as it was. */
#include "db_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/xalloc.h"
#include "sql.h"

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

/* Where the pieces of a source's bytes go as they are decoded: data grows as they come, never
 * beyond the len bytes the source has, so a size_bytes that claims more than its pieces hold
 * takes no memory (the reader checks each piece's own size before decoding it). */
struct assembly {
    char *data;
    size_t len, at, cap;
};

static int assemble(void *ctx, const void *piece, size_t n)
{
    struct assembly *a = ctx;
    if (n > a->len - a->at)
        return -1;
    if (a->at + n + 1 > a->cap) {
        size_t cap = a->cap * 2 > a->at + n + 1 ? a->cap * 2 : a->at + n + 1;
        a->cap = cap < a->len + 1 ? cap : a->len + 1;
        a->data = xrealloc(a->data, a->cap);
    }
    memcpy(a->data + a->at, piece, n);
    a->at += n;
    return 0;
}

int db_stored_load(struct db *db, int64_t id, struct db_stored *out, struct diag *d)
{
    int rc = SQLITE_OK;
    memset(out, 0, sizeof(*out));
    sqlite3_stmt *st = sql_prepare(db->h, &rc,
                                   "SELECT path, sha256, format, imported_at, size_bytes FROM "
                                   "source_file WHERE id = :id");
    sql_bind_int(st, &rc, ":id", id);
    if (!sql_step(st, &rc)) {
        sqlite3_finalize(st);
        if (rc != SQLITE_OK)
            return diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
        return diag_error(d, "database '%s': no source with id %lld", db->path, (long long)id);
    }
    sqlite3_int64 size = sqlite3_column_int64(st, 4);
    struct assembly a = {xmalloc(1), size > 0 ? (size_t)size : 0, 0, 1};
    out->id = id;
    out->path = column_dup(st, 0);
    out->sha256 = column_dup(st, 1);
    out->format = column_dup(st, 2);
    out->imported_at = column_dup(st, 3);
    sqlite3_finalize(st);
    struct raw_reader *reader = raw_reader_open(db->h, "main");
    rc = reader ? raw_read(reader, id, assemble, &a) : -1;
    out->raw = a.data;
    if (rc < 0) {
        diag_error(d, "database '%s': %s", db->path, sqlite3_errmsg(db->h));
        raw_reader_close(reader);
        db_stored_release(out);
        return -1;
    }
    char why[240] = "";
    if (rc > 0)
        snprintf(why, sizeof(why), "%s",
                 raw_reader_why(reader)[0] ? raw_reader_why(reader)
                                           : "its pieces decode to more bytes than it has");
    else if (size < 0 || a.at != a.len)
        snprintf(why, sizeof(why), "its pieces decode to %zu bytes, not the %lld stored with it",
                 a.at, (long long)size);
    raw_reader_close(reader);
    if (why[0]) {
        diag_error_path(d, out->path, "its stored bytes do not decode: %s; left as it is", why);
        db_stored_release(out);
        return 1;
    }
    a.data[a.at] = '\0';
    out->src = (struct source){out->path, a.data, a.len};
    return 0;
}

/* Runs sql with :old the old source's id and :new the new one's (those of them it uses): the
 * first column of its first row, 0 when it returns none; a failure is kept in *rc. */
static int64_t run_on_sources(struct db *db, int *rc, const char *sql, int64_t old_id,
                              int64_t new_id)
{
    sqlite3_stmt *st = sql_prepare(db->h, rc, sql);
    if (sql_uses(st, ":old"))
        sql_bind_int(st, rc, ":old", old_id);
    if (sql_uses(st, ":new"))
        sql_bind_int(st, rc, ":new", new_id);
    return sql_int_result(st, rc);
}

struct db_import *db_reparse_begin(struct db *db, const struct db_stored *s, struct diag *d)
{
    static const struct import_labels no_labels = {0};
    if (db_begin(db, d))
        return NULL;
    int rc = SQLITE_OK;
    run_on_sources(db, &rc,
                   "UPDATE source_file SET sha256 = sha256 || '" PARKED_SUFFIX "' WHERE id = :old",
                   s->id, 0);
    if (rc != SQLITE_OK) {
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
    "WHERE run.source_id = :old), "
    "n AS (SELECT r.id, r.job, r.direction, row_number() OVER (PARTITION BY r.job, "
    "r.direction ORDER BY r.id) AS k FROM result r JOIN run ON run.id = r.run_id "
    "WHERE run.source_id = :new) "
    "INSERT INTO temp.reparse_pair(old_id, new_id) SELECT o.id, n.id FROM o JOIN n "
    "ON o.job IS n.job AND o.direction IS n.direction AND o.k = n.k";

#define RESULTS_OF(source)                                                                         \
    "SELECT count(*) FROM result r JOIN run ON run.id = r.run_id WHERE run.source_id = " source

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
/* A job's series attached from a fio log (tag series:<metric> names the log) is not its own
 * source's, nor is a series missing from a log whose series was attached (part=fio log):
 * neither is a change (import/attach.c). */
#define ATTACHED(id)                                                                               \
    "EXISTS (SELECT 1 FROM tag WHERE result_id = " id " AND key = 'series:' || metric)"
#define LOG_GAVE(id)                                                                               \
    "EXISTS (SELECT 1 FROM tag WHERE result_id = " id " AND key = 'part' AND value = 'fio log')"
#define SERIES_DIFFER                                                                                                       \
    "EXISTS (SELECT metric, t_ms, value FROM series_point WHERE result_id = p.old_id AND NOT " ATTACHED(                    \
        "p.old_id") " EXCEPT SELECT metric, t_ms, value FROM series_point WHERE "                                           \
                    "result_id = p.new_id) OR (NOT " LOG_GAVE(                                                              \
                        "p.old_id") " AND EXISTS (SELECT metric, t_ms, "                                                    \
                                    "value FROM series_point WHERE result_id = p.new_id EXCEPT SELECT metric, t_ms, value " \
                                    "FROM series_point WHERE result_id = p.old_id))"
static const char changed_sql[] = "SELECT count(*) FROM temp.reparse_pair p "
                                  "JOIN result o ON o.id = p.old_id "
                                  "JOIN result n ON n.id = p.new_id WHERE " OLD_NEW_DIFFER
                                  " OR " BINS_DIFFER " OR " SERIES_DIFFER;

/* both ways: a source now read as more runs (a note's tools each their own) changed too */
#define RUN_DETAILS                                                                                \
    "SELECT tool, tool_version, started_at, command_line FROM run WHERE source_id = "
static const char runs_changed_sql[] =
    "SELECT (SELECT count(*) FROM (" RUN_DETAILS ":old EXCEPT " RUN_DETAILS ":new)) + "
    "(SELECT count(*) FROM (" RUN_DETAILS ":new EXCEPT " RUN_DETAILS ":old))";

/* The metrics of a paired result that only b has, given as the result's aliases: its columns
 * (a NULL column is no metric) and the keys of its metrics_extra. */
#define EXTRA_ONLY_IN(b, a)                                                                        \
    "(SELECT count(*) FROM json_each(" b ".metrics_extra) j WHERE NOT EXISTS (SELECT 1 FROM "      \
    "json_each(" a ".metrics_extra) x WHERE x.key = j.key))"
#define EXTRA_CHANGED                                                                              \
    "(SELECT count(*) FROM json_each(n.metrics_extra) j JOIN json_each(o.metrics_extra) x ON "     \
    "x.key = j.key WHERE CAST(x.value AS REAL) IS NOT CAST(j.value AS REAL))"

enum metric_change { ADDED, REMOVED, CHANGED };

/* One column's term of a count of metric changes: 1 or 0 (never NULL, which would void the
 * sum), o the old result and n the new. */
static void add_term(struct buf *sql, enum metric_change k, const char *col)
{
    if (k == ADDED)
        buf_addf(sql, " + (o.%s IS NULL AND n.%s IS NOT NULL)", col, col);
    else if (k == REMOVED)
        buf_addf(sql, " + (o.%s IS NOT NULL AND n.%s IS NULL)", col, col);
    else
        buf_addf(sql, " + (o.%s IS NOT n.%s AND o.%s IS NOT NULL AND n.%s IS NOT NULL)", col, col,
                 col, col);
}

/* The metrics added, removed and changed between the paired results, as the metric view holds
 * them (a REAL column of result that is not NULL, or a key of metrics_extra), compared column
 * by column. Joined to the pairs, the view (a UNION of one SELECT per column) was built whole
 * for each query, which made reparse read every stored result once per source. */
static int count_metrics(struct db *db, struct reparse_counts *c, struct diag *d)
{
    if (wide_load(db, d))
        return -1;
    struct buf sql = BUF_INIT;
    static const char *const extra[] = {[ADDED] = EXTRA_ONLY_IN("n", "o"),
                                        [REMOVED] = EXTRA_ONLY_IN("o", "n"),
                                        [CHANGED] = EXTRA_CHANGED};
    buf_adds(&sql, "SELECT ");
    for (enum metric_change k = ADDED; k <= CHANGED; k++) {
        buf_addf(&sql, "%scoalesce(sum(%s", k ? ", " : "", extra[k]);
        for (size_t i = 0; i < db->wide.n; i++)
            add_term(&sql, k, db->wide.names[i]);
        buf_adds(&sql, "), 0)");
    }
    buf_adds(&sql, " FROM temp.reparse_pair p JOIN result o ON o.id = p.old_id JOIN result n ON "
                   "n.id = p.new_id");
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(db->h, &rc, sql.data);
    if (sql_step(st, &rc)) {
        c->metrics_added = (size_t)sqlite3_column_int64(st, 0);
        c->metrics_removed = (size_t)sqlite3_column_int64(st, 1);
        c->metrics_changed = (size_t)sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    buf_release(&sql);
    return rc == SQLITE_OK ? 0 : -1;
}

static const char tags_added_sql[] =
    "SELECT count(*) FROM temp.reparse_pair p JOIN tag t ON t.result_id = p.new_id "
    "WHERE NOT EXISTS (SELECT 1 FROM tag x WHERE x.result_id = p.old_id AND x.key = t.key)";

/* Labels (the stored ones win), tags, history and baseline membership move to the new results;
 * results that are new get the labels of the first old result where the content left them empty;
 * the raw bytes move to the new source. */
static const char *const carry_sql[] = {
    "UPDATE result SET host = o.host, storage_class = o.storage_class, sec = o.sec, "
    "mount_id = o.mount_id FROM temp.reparse_pair p JOIN result o ON o.id = p.old_id "
    "WHERE result.id = p.new_id",
    "UPDATE result SET host = coalesce(result.host, f.host), "
    "storage_class = coalesce(result.storage_class, f.storage_class), "
    "sec = coalesce(result.sec, f.sec), mount_id = coalesce(result.mount_id, f.mount_id) "
    "FROM (SELECT r.* FROM result r JOIN run ON run.id = r.run_id WHERE run.source_id = :old "
    "ORDER BY r.id LIMIT 1) f WHERE result.run_id IN (SELECT id FROM run WHERE source_id = :new) "
    "AND result.id NOT IN (SELECT new_id FROM temp.reparse_pair)",
    "INSERT OR REPLACE INTO tag(result_id, key, value) SELECT p.new_id, t.key, t.value "
    "FROM temp.reparse_pair p JOIN tag t ON t.result_id = p.old_id",
    "INSERT OR REPLACE INTO series(result_id, metric, points) SELECT p.new_id, s.metric, "
    "s.points FROM temp.reparse_pair p JOIN series s ON s.result_id = p.old_id "
    "WHERE " ATTACHED("p.old_id"),
    "DELETE FROM series WHERE result_id IN (SELECT p.new_id FROM temp.reparse_pair p WHERE " LOG_GAVE(
        "p.old_id") ")",
    "UPDATE label_history SET result_id = p.new_id FROM temp.reparse_pair p "
    "WHERE label_history.result_id = p.old_id",
    "INSERT INTO baseline_result(baseline_id, result_id) SELECT b.baseline_id, p.new_id "
    "FROM temp.reparse_pair p JOIN baseline_result b ON b.result_id = p.old_id",
    "UPDATE source_file SET (raw, raw_codec, raw_dict) = (SELECT raw, raw_codec, raw_dict FROM "
    "source_file WHERE id = :old) WHERE id = :new",
    "UPDATE source_chunk SET source_id = :new WHERE source_id = :old",
    "DELETE FROM source_file WHERE id = :old",
};

static size_t count(struct db *db, int *rc, const char *sql, int64_t old_id, int64_t new_id)
{
    return (size_t)run_on_sources(db, rc, sql, old_id, new_id); /* never negative */
}

static int compare(struct db *db, int64_t old_id, int64_t new_id, struct reparse_counts *c,
                   struct diag *d)
{
    int rc = SQLITE_OK;
    sql_exec(db->h, &rc,
             "CREATE TEMP TABLE IF NOT EXISTS reparse_pair(old_id INTEGER, new_id INTEGER); "
             "DELETE FROM temp.reparse_pair");
    run_on_sources(db, &rc, pair_sql, old_id, new_id);
    size_t paired = count(db, &rc, "SELECT count(*) FROM temp.reparse_pair", old_id, new_id);
    c->results_before = count(db, &rc, RESULTS_OF(":old"), old_id, new_id);
    c->results_after = count(db, &rc, RESULTS_OF(":new"), old_id, new_id);
    c->results_changed = count(db, &rc, changed_sql, old_id, new_id);
    c->runs_changed = count(db, &rc, runs_changed_sql, old_id, new_id);
    c->tags_added = count(db, &rc, tags_added_sql, old_id, new_id);
    if (rc != SQLITE_OK || count_metrics(db, c, d))
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
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(db->h, &rc, "SELECT id FROM source_file WHERE sha256 = :sha256");
    sql_bind_text(st, &rc, ":sha256", s->sha256);
    int64_t new_id = sql_int_result(st, &rc); /* 0: not found (ids start at 1) */
    int bad = rc != SQLITE_OK || new_id == 0 || compare(db, s->id, new_id, c, d);
    for (size_t i = 0; !bad && c->changed && i < ARRAY_SIZE(carry_sql); i++) {
        run_on_sources(db, &rc, carry_sql[i], s->id, new_id);
        bad = rc != SQLITE_OK;
    }
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
