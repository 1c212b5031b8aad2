/* merge.c: copying another warehouse's sources (those whose content is not stored here) with
 * everything that hangs off them. Ids are re-keyed by adding this warehouse's largest id, so
 * the copy keeps the other's structure without a lookup per row; mounts are shared by their
 * canonical option string, compression dictionaries by their content. A source stored in both is
 * left alone (a differing label is a warning), which makes merging idempotent. */
#include "db_private.h"

#include <stdio.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/sha256.h"
#include "sql.h"

#define OTHER "merge_other"

/* How a copied column is re-keyed: :source_offset, :run_offset and :result_offset are what
 * the ids are moved by (this warehouse's largest). A NULL expression leaves the column out (a
 * fresh id). table NULL: any table. */
static const struct rekey {
    const char *table, *column, *expr;
} rekeys[] = {
    {"source_file", "id", "id + :source_offset"},
    {"run", "id", "id + :run_offset"},
    {"run", "source_id", "source_id + :source_offset"},
    {"source_chunk", "source_id", "source_id + :source_offset"},
    {"result", "id", "id + :result_offset"},
    {"result", "run_id", "run_id + :run_offset"},
    {"source_file", "raw_dict", "(SELECT new_id FROM temp.merge_dict WHERE old_id = raw_dict)"},
    {"result", "mount_id", "(SELECT new_id FROM temp.merge_mount WHERE old_id = mount_id)"},
    {"label_history", "id", NULL},
    {NULL, "result_id", "result_id + :result_offset"},
};

#define FROM_NEW_SOURCES "id IN (SELECT id FROM temp.merge_src)"
#define FROM_NEW_RESULTS "result_id IN (SELECT id FROM temp.merge_result)"

/* The tables copied, in foreign-key order, and which of the other's rows (the first three
 * are counted in struct merge_counts). */
static const struct copy {
    const char *table, *where;
} copies[] = {
    {"source_file", FROM_NEW_SOURCES},
    {"run", "source_id IN (SELECT id FROM temp.merge_src)"},
    {"result", "id IN (SELECT id FROM temp.merge_result)"},
    {"tag", FROM_NEW_RESULTS},
    {"histogram", FROM_NEW_RESULTS},
    {"series", FROM_NEW_RESULTS},
    {"label_history", FROM_NEW_RESULTS},
    {"source_chunk", "source_id IN (SELECT id FROM temp.merge_src)"},
};

static const char *const setup_sql =
    "CREATE TEMP TABLE merge_src(id INTEGER PRIMARY KEY);"
    "CREATE TEMP TABLE merge_result(id INTEGER PRIMARY KEY);"
    "CREATE TEMP TABLE merge_mount(old_id INTEGER PRIMARY KEY, new_id INTEGER);"
    "CREATE TEMP TABLE merge_dict(old_id INTEGER PRIMARY KEY, new_id INTEGER);"
    "INSERT INTO temp.merge_src SELECT id FROM " OTHER ".source_file "
    " WHERE sha256 NOT IN (SELECT sha256 FROM main.source_file);"
    "INSERT INTO temp.merge_result SELECT r.id FROM " OTHER ".result r JOIN " OTHER ".run ON "
    " run.id = r.run_id WHERE run.source_id IN (SELECT id FROM temp.merge_src);"
    "INSERT OR IGNORE INTO main.mount(options, fstype, device) SELECT options, fstype, device "
    " FROM " OTHER ".mount WHERE id IN (SELECT mount_id FROM " OTHER ".result "
    " WHERE id IN (SELECT id FROM temp.merge_result)) ORDER BY id;"
    "INSERT INTO temp.merge_mount SELECT o.id, m.id FROM " OTHER ".mount o "
    " JOIN main.mount m ON m.options = o.options;"
    "INSERT OR IGNORE INTO main.mount_option(mount_id, key, value) SELECT mm.new_id, o.key, "
    " o.value FROM " OTHER ".mount_option o JOIN temp.merge_mount mm ON mm.old_id = o.mount_id;";

/* The dictionaries of the sources copied, known by their sha256 (once verify_dicts has found
 * that each hashes to it). */
static const char *const dict_sql =
    "INSERT OR IGNORE INTO main.raw_dict(sha256, format, bytes) SELECT sha256, format, bytes "
    " FROM " OTHER ".raw_dict WHERE id IN (SELECT raw_dict FROM " OTHER ".source_file "
    " WHERE id IN (SELECT id FROM temp.merge_src)) ORDER BY id;"
    "INSERT INTO temp.merge_dict SELECT o.id, m.id FROM " OTHER ".raw_dict o "
    " JOIN main.raw_dict m ON m.sha256 = o.sha256;";

static const char *const cleanup_sql = "DROP TABLE IF EXISTS temp.merge_src;"
                                       "DROP TABLE IF EXISTS temp.merge_result;"
                                       "DROP TABLE IF EXISTS temp.merge_mount;"
                                       "DROP TABLE IF EXISTS temp.merge_dict;";

static const char *rekey_expr(const char *table, const char *column, int *omit)
{
    for (size_t i = 0; i < sizeof(rekeys) / sizeof(rekeys[0]); i++) {
        const struct rekey *k = &rekeys[i];
        if ((!k->table || !strcmp(k->table, table)) && !strcmp(k->column, column)) {
            *omit = !k->expr;
            return k->expr;
        }
    }
    *omit = 0;
    return column;
}

/* INSERT INTO main.T(cols) SELECT exprs FROM other.T WHERE ..., from this schema's columns. */
static int copy_sql(sqlite3 *h, const struct copy *c, struct buf *sql)
{
    struct buf cols = BUF_INIT, exprs = BUF_INIT, pragma = BUF_INIT;
    int rc = SQLITE_OK;
    buf_addf(&pragma, "PRAGMA main.table_info(%s)", c->table);
    sqlite3_stmt *st = sql_prepare(h, &rc, pragma.data);
    while (sql_step(st, &rc)) {
        const char *col = (const char *)sqlite3_column_text(st, 1);
        int omit;
        const char *expr = rekey_expr(c->table, col, &omit);
        if (omit)
            continue;
        buf_addf(&cols, "%s%s", cols.len ? ", " : "", col);
        buf_addf(&exprs, "%s%s", exprs.len ? ", " : "", expr);
    }
    sqlite3_finalize(st);
    buf_addf(sql, "INSERT INTO main.%s(%s) SELECT %s FROM " OTHER ".%s WHERE %s", c->table,
             cols.data, exprs.data, c->table, c->where);
    buf_release(&cols);
    buf_release(&exprs);
    buf_release(&pragma);
    return rc == SQLITE_OK ? 0 : -1;
}

/* Copies every table (after setup_sql and dict_sql); *rows gets the row count per table
 * (copies[] order), *source_offset what the sources' ids were moved by. */
static int copy_all(sqlite3 *h, size_t rows[], int64_t *source_offset_out)
{
    int rc = SQLITE_OK;
    int64_t source_offset = sql_int(h, &rc, "SELECT coalesce(max(id), 0) FROM main.source_file");
    *source_offset_out = source_offset;
    int64_t run_offset = sql_int(h, &rc, "SELECT coalesce(max(id), 0) FROM main.run");
    int64_t result_offset = sql_int(h, &rc, "SELECT coalesce(max(id), 0) FROM main.result");
    for (size_t i = 0; rc == SQLITE_OK && i < sizeof(copies) / sizeof(copies[0]); i++) {
        struct buf sql = BUF_INIT;
        sqlite3_stmt *st = copy_sql(h, &copies[i], &sql) ? NULL : sql_prepare(h, &rc, sql.data);
        if (!st)
            rc = SQLITE_ERROR;
        /* each table's copy moves the ids it has */
        if (sql_uses(st, ":source_offset"))
            sql_bind_int(st, &rc, ":source_offset", source_offset);
        if (sql_uses(st, ":run_offset"))
            sql_bind_int(st, &rc, ":run_offset", run_offset);
        if (sql_uses(st, ":result_offset"))
            sql_bind_int(st, &rc, ":result_offset", result_offset);
        sql_step(st, &rc);
        rows[i] = (size_t)sqlite3_changes(h);
        sqlite3_finalize(st);
        buf_release(&sql);
    }
    return rc == SQLITE_OK ? 0 : -1;
}

static int hash_piece(void *ctx, const void *data, size_t len)
{
    sha256_update(ctx, data, len);
    return 0;
}

/* Hashes the stored bytes of source id of the reader's schema (raw, or its chunks in order,
 * decoded) into hex; 0, 1 when they do not decode (raw_reader_why says why), -1 when they
 * cannot be read. */
static int hash_stored(struct raw_reader *reader, int64_t id, char hex[65])
{
    struct sha256 sha;
    sha256_init(&sha);
    int rc = raw_read(reader, id, hash_piece, &sha);
    sha256_final(&sha, hex);
    return rc;
}

/* What verify_dicts and verify_sources found wrong (each named as it was found). */
enum { FORGED_SOURCE = 1, FORGED_DICT = 2 };

/* A dictionary is known by its sha256: one that another warehouse's sources point at would be
 * taken for this warehouse's of the same sha256, whatever its bytes, so each dictionary of a
 * source about to be copied is hashed, and is to be a zstd dictionary of a sane size
 * (raw_dict_fault) before it is copied. 0, FORGED_DICT when some are not (each named with a
 * source that points at it), -1 on a database failure. */
static int verify_dicts(sqlite3 *h, const char *other_path, struct diag *d)
{
    struct buf sql = BUF_INIT;
    buf_addf(&sql,
             "WITH used AS (SELECT id, path, raw_dict FROM " OTHER ".source_file WHERE id IN "
             "(SELECT id FROM temp.merge_src) AND raw_dict IS NOT NULL) SELECT o.id, o.format, "
             "o.sha256, CASE WHEN length(o.bytes) <= %d THEN o.bytes END, length(o.bytes), "
             "(SELECT path FROM used WHERE raw_dict = o.id ORDER BY id LIMIT 1), (SELECT count(*) "
             "FROM used WHERE raw_dict = o.id) FROM " OTHER ".raw_dict o WHERE o.id IN (SELECT "
             "raw_dict FROM used) ORDER BY o.id",
             RAW_DICT_MAX);
    int rc = SQLITE_OK, forged = 0;
    sqlite3_stmt *st = sql_prepare(h, &rc, sql.data);
    buf_release(&sql);
    while (sql_step(st, &rc)) {
        char why[160];
        const void *bytes = sqlite3_column_blob(st, 3);
        size_t len = (size_t)sqlite3_column_int64(st, 4);
        if (!raw_dict_fault(bytes, len, (const char *)sqlite3_column_text(st, 2), why, sizeof(why)))
            continue;
        long long others = sqlite3_column_int64(st, 6) - 1;
        char more[48] = "";
        if (others > 0)
            snprintf(more, sizeof(more), " and %lld other%s", others, others == 1 ? "" : "s");
        diag_error_path(d, other_path, "dictionary %lld (format '%s') of source '%s'%s: %s",
                        (long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1),
                        sqlite3_column_text(st, 5), more, why);
        forged = FORGED_DICT;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? forged : -1;
}

/* The other warehouse's sha256 decides what is "already imported", so a row whose bytes do
 * not hash to it (forged, or damaged) must not be copied: each source copied is read as it
 * is stored here, against the dictionary it now points at (a dictionary of this warehouse
 * known by the same sha256), and hashed. 0, FORGED_SOURCE when some did not decode or match
 * (each named by its path and id in the other), -1 on a database failure. */
static int verify_sources(sqlite3 *h, const char *other_path, int64_t source_offset, struct diag *d)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc,
                                   "SELECT id, path, sha256 FROM " OTHER ".source_file WHERE id "
                                   "IN (SELECT id FROM temp.merge_src) ORDER BY id");
    int forged = 0;
    struct raw_reader *reader = rc == SQLITE_OK ? raw_reader_open(h, "main") : NULL;
    if (!reader)
        rc = SQLITE_ERROR;
    while (sql_step(st, &rc)) {
        char got[65];
        const char *want = (const char *)sqlite3_column_text(st, 2);
        int64_t id = sqlite3_column_int64(st, 0);
        int undecodable = hash_stored(reader, id + source_offset, got);
        if (undecodable < 0)
            rc = SQLITE_ERROR;
        else if (undecodable) {
            diag_error_path(d, other_path,
                            "source '%s' (id %lld): its stored bytes do not decode: %s",
                            sqlite3_column_text(st, 1), (long long)id, raw_reader_why(reader));
            forged = FORGED_SOURCE;
        } else if (!want || strcmp(got, want)) {
            diag_error_path(d, other_path,
                            "source '%s' (id %lld): its stored bytes hash to sha256 %.12s..., "
                            "not to the %.12s... stored with it",
                            sqlite3_column_text(st, 1), (long long)id, got, want ? want : "(none)");
            forged = FORGED_SOURCE;
        }
    }
    raw_reader_close(reader);
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? forged : -1;
}

/* One row per result of a source stored in both warehouses (before this merge copied it),
 * with its labels. */
static void labelled_results(struct buf *sql, const char *schema, const char *alias)
{
    buf_addf(sql,
             "%s AS (SELECT s.path, s.sha256, r.job, r.direction, row_number() OVER "
             "(PARTITION BY s.id, r.job, r.direction ORDER BY r.id) AS k, r.host, "
             "r.storage_class, r.sec, m.options AS mount, (SELECT group_concat(key || '=' || "
             "value, ';') FROM (SELECT key, value FROM %s.tag WHERE result_id = r.id ORDER BY "
             "key)) AS tags FROM %s.result r JOIN %s.run ON run.id = r.run_id "
             "JOIN %s.source_file s ON s.id = run.source_id LEFT JOIN %s.mount m "
             "ON m.id = r.mount_id WHERE s.sha256 IN (SELECT sha256 FROM main.source_file "
             "INTERSECT SELECT sha256 FROM " OTHER ".source_file EXCEPT SELECT sha256 FROM " OTHER
             ".source_file WHERE id IN (SELECT id FROM temp.merge_src)))",
             alias, schema, schema, schema, schema, schema);
}

static const char *const label_names[] = {"host", "storage_class", "sec", "mount", "tags"};

/* Warns once per source stored in both with labels that differ. */
static int report_conflicts(sqlite3 *h, const char *other_path, size_t *conflicts, struct diag *d)
{
    struct buf sql = BUF_INIT;
    buf_adds(&sql, "WITH ");
    labelled_results(&sql, "main", "a");
    buf_adds(&sql, ", ");
    labelled_results(&sql, OTHER, "b");
    buf_adds(&sql, " SELECT a.path, a.sha256, count(*), max(a.host IS NOT b.host), "
                   "max(a.storage_class IS NOT b.storage_class), max(a.sec IS NOT b.sec), "
                   "max(a.mount IS NOT b.mount), max(a.tags IS NOT b.tags) FROM a JOIN b "
                   "ON a.sha256 = b.sha256 AND a.job IS b.job AND a.direction IS b.direction "
                   "AND a.k = b.k WHERE (a.host, a.storage_class, a.sec, a.mount, a.tags) IS NOT "
                   "(b.host, b.storage_class, b.sec, b.mount, b.tags) GROUP BY a.sha256 "
                   "ORDER BY a.path, a.sha256");
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(h, &rc, sql.data);
    buf_release(&sql);
    while (sql_step(st, &rc)) {
        struct buf which = BUF_INIT;
        for (int i = 0; i < 5; i++)
            if (sqlite3_column_int(st, 3 + i))
                buf_addf(&which, "%s%s", which.len ? ", " : "", label_names[i]);
        diag_warn(d,
                  "%s: '%s' (sha256 %.12s) is stored in both warehouses with different labels "
                  "(%s) on %d result%s; kept the ones stored here",
                  other_path, sqlite3_column_text(st, 0), sqlite3_column_text(st, 1), which.data,
                  sqlite3_column_int(st, 2), sqlite3_column_int(st, 2) == 1 ? "" : "s");
        buf_release(&which);
        (*conflicts)++;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

/* A file: URI for path (opened read-only). */
static void readonly_uri(struct buf *uri, const char *path)
{
    buf_adds(uri, "file:");
    for (const char *p = path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#')
            buf_addf(uri, "%%%02X", (unsigned char)*p);
        else
            buf_addc(uri, *p);
    }
    buf_adds(uri, "?mode=ro");
}

static int attach(struct db *db, const char *other_path, struct diag *d)
{
    struct buf uri = BUF_INIT;
    readonly_uri(&uri, other_path);
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(db->h, &rc, "ATTACH :uri AS " OTHER);
    sql_bind_text(st, &rc, ":uri", uri.data);
    sql_step(st, &rc);
    sqlite3_finalize(st);
    buf_release(&uri);
    if (rc != SQLITE_OK)
        return diag_error(d, "cannot open database '%s': %s", other_path, sqlite3_errmsg(db->h));
    int theirs = 0, ours = db_user_version(db->h, "main");
    int readable = db_schema_check(db, OTHER, other_path, &theirs, d) == 0;
    if (readable && theirs == ours)
        return 0;
    if (readable && theirs == 0)
        diag_error(d, "'%s' is not a benchdb database (no schema)", other_path);
    else if (readable && theirs < ours)
        diag_error(d,
                   "'%s' has schema version %d and this warehouse %d: upgrade it first (any "
                   "benchdb command upgrades it, e.g. 'benchdb --db %s runs')",
                   other_path, theirs, ours, other_path);
    else if (readable)
        diag_error(d, "'%s' has schema version %d and this warehouse %d: both must be equal",
                   other_path, theirs, ours);
    sqlite3_exec(db->h, "DETACH " OTHER, NULL, NULL, NULL);
    return -1;
}

int db_merge(struct db *db, const char *other_path, struct merge_counts *c, struct diag *d)
{
    memset(c, 0, sizeof(*c));
    if (attach(db, other_path, d))
        return -2;
    size_t rows[sizeof(copies) / sizeof(copies[0])] = {0};
    int rc = db_begin(db, d) ? -2 : 0;
    int forged = 0;
    int64_t source_offset = 0;
    /* the copied sources are verified where they are copied to: a failure rolls all back */
    if (rc == 0 &&
        (sqlite3_exec(db->h, setup_sql, NULL, NULL, NULL) ||
         (forged = verify_dicts(db->h, other_path, d)) < 0 ||
         (!forged && (sqlite3_exec(db->h, dict_sql, NULL, NULL, NULL) ||
                      copy_all(db->h, rows, &source_offset) ||
                      (forged = verify_sources(db->h, other_path, source_offset, d)) < 0)) ||
         (!forged && (report_conflicts(db->h, other_path, &c->conflicts, d) ||
                      merge_baselines(db->h, other_path, d))) ||
         sqlite3_exec(db->h, cleanup_sql, 0, 0, 0))) {
        diag_error(d, "cannot merge '%s' into '%s': %s", other_path, db->path,
                   sqlite3_errmsg(db->h));
        rc = -2;
    } else if (forged == FORGED_DICT) {
        rc = diag_error_path(d, other_path,
                             "nothing merged: a compression dictionary is not a zstd dictionary "
                             "of at most %d bytes that hashes to its sha256 (forged or damaged "
                             "warehouse)",
                             RAW_DICT_MAX);
    } else if (forged) {
        rc = diag_error_path(d, other_path,
                             "nothing merged: a source's bytes do not match its "
                             "sha256 (forged or damaged warehouse)");
    }
    if (rc == 0 && db_commit(db, d))
        rc = -2;
    if (rc) {
        memset(rows, 0, sizeof(rows)); /* rolled back */
        db_rollback(db);
        sqlite3_exec(db->h, cleanup_sql, NULL, NULL, NULL);
    }
    c->sources = rows[0];
    c->runs = rows[1];
    c->results = rows[2];
    int counted = SQLITE_OK;
    c->skipped =
        (size_t)sql_int(db->h, &counted, "SELECT count(*) FROM " OTHER ".source_file") - rows[0];
    sqlite3_exec(db->h, "DETACH " OTHER, NULL, NULL, NULL);
    return rc;
}
