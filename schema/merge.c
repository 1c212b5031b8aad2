/* merge.c: copying another warehouse's sources (those whose content is not stored here) with
 * everything that hangs off them, walking the tables of schema/graph.h. Ids are re-keyed by
 * adding this warehouse's largest id, so the copy keeps the other's structure without a lookup
 * per row; the rows files share are stored once by their key (mounts by their canonical option
 * string, compression dictionaries by their content). A source stored in both is left alone (a
 * differing label is a warning), which makes merging idempotent. */
#include "db_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/sha256.h"
#include "../core/xalloc.h"
#include "graph.h"
#include "sql.h"

#define OTHER "merge_other"

/* The other's rows to copy, per table of schema/graph.h: a file's table that others point at
 * (source_file, run, result) has its rows chosen listed in temp.merge_sel_<table>; a shared
 * table (mount, raw_dict) has its ids paired with this warehouse's of the same key in
 * temp.merge_map_<table>. The sources chosen are those whose key (sha256) is not stored here;
 * every other row of a file comes with the row it hangs off. */
#define NEW_SOURCES "temp.merge_sel_source_file" /* the sources copied */

/* Appends the condition that picks t's rows of the other warehouse to copy (t a file's
 * table): listed (a table others point at), or hanging off a row listed. */
static void add_chosen(struct buf *sql, const struct graph_table *t)
{
    const struct graph_table *owner = graph_owner(t);
    if (graph_is_parent(t))
        buf_addf(sql, "id IN (SELECT id FROM temp.merge_sel_%s)", t->name);
    else if (owner)
        buf_addf(sql, "%s IN (SELECT id FROM temp.merge_sel_%s)", t->owner, owner->name);
}

/* Lists the rows of the file's tables that others point at, parents first. */
static void add_selection(struct buf *sql)
{
    for (size_t i = 0; i < graph_n_tables; i++) {
        const struct graph_table *t = &graph_tables[i];
        if (t->role != GRAPH_FILE || !graph_is_parent(t))
            continue;
        buf_addf(sql,
                 "CREATE TEMP TABLE merge_sel_%s(id INTEGER PRIMARY KEY);"
                 "INSERT INTO temp.merge_sel_%s SELECT id FROM " OTHER ".%s WHERE ",
                 t->name, t->name, t->name);
        if (t->owner)
            buf_addf(sql, "%s IN (SELECT id FROM temp.merge_sel_%s);", t->owner,
                     graph_owner(t)->name);
        else
            buf_addf(sql, "%s NOT IN (SELECT %s FROM main.%s);", t->key, t->key, t->name);
    }
}

/* The expression that copies column of t's row of the other warehouse, NULL to leave it out
 * (a fresh id). :off_<table> is what the ids of a file's table are moved by (this
 * warehouse's largest). */
static const char *rekey_expr(const struct graph_table *t, const char *column, struct buf *expr)
{
    buf_reset(expr);
    const struct graph_fk *fk = graph_fk(t, column);
    const struct graph_table *parent = fk ? graph_find(fk->parent) : NULL;
    if (!strcmp(column, "id") && (t->role != GRAPH_FILE || !graph_is_parent(t)))
        return NULL;
    if (!strcmp(column, "id"))
        buf_addf(expr, "id + :off_%s", t->name);
    else if (parent && parent->role == GRAPH_FILE)
        buf_addf(expr, "%s + :off_%s", column, parent->name);
    else if (parent)
        buf_addf(expr, "(SELECT new_id FROM temp.merge_map_%s WHERE old_id = %s)", parent->name,
                 column);
    else
        buf_adds(expr, column);
    return expr->data;
}

/* INSERT INTO main.T(cols) SELECT exprs FROM other.T, from this schema's columns; the
 * condition is the caller's to append. */
static int copy_sql(sqlite3 *h, const struct graph_table *t, const char *verb, struct buf *sql)
{
    struct buf cols = BUF_INIT, exprs = BUF_INIT, pragma = BUF_INIT, expr = BUF_INIT;
    int rc = SQLITE_OK;
    buf_addf(&pragma, "PRAGMA main.table_info(%s)", t->name);
    sqlite3_stmt *st = sql_prepare(h, &rc, pragma.data);
    while (sql_step(st, &rc)) {
        const char *col = (const char *)sqlite3_column_text(st, 1);
        const char *e = rekey_expr(t, col, &expr);
        if (!e)
            continue;
        buf_addf(&cols, "%s%s", cols.len ? ", " : "", col);
        buf_addf(&exprs, "%s%s", exprs.len ? ", " : "", e);
    }
    sqlite3_finalize(st);
    buf_addf(sql, "%s INTO main.%s(%s) SELECT %s FROM " OTHER ".%s WHERE ", verb, t->name,
             cols.data, exprs.data, t->name);
    buf_release(&cols);
    buf_release(&exprs);
    buf_release(&pragma);
    buf_release(&expr);
    return rc;
}

/* Stores the shared rows the copied ones point at that this warehouse lacks (a row known by
 * its key is stored once: INSERT OR IGNORE), and pairs each of the other's ids with the one
 * stored here under its key; the rows that hang off them come with them. */
static int copy_shared(sqlite3 *h, const struct graph_table *t)
{
    struct buf sql = BUF_INIT;
    int rc = copy_sql(h, t, "INSERT OR IGNORE", &sql);
    const struct graph_table *owner = graph_owner(t);
    if (owner) {
        buf_addf(&sql, "%s IN (SELECT old_id FROM temp.merge_map_%s);", t->owner, owner->name);
    } else {
        buf_adds(&sql, "id IN (SELECT NULL");
        for (size_t i = 0; i < graph_n_tables; i++) {
            const struct graph_table *u = &graph_tables[i];
            for (size_t k = 0; u->role == GRAPH_FILE && k < GRAPH_MAX_FK && u->fk[k].column; k++) {
                if (strcmp(u->fk[k].parent, t->name))
                    continue;
                buf_addf(&sql, " UNION SELECT %s FROM " OTHER ".%s WHERE ", u->fk[k].column,
                         u->name);
                add_chosen(&sql, u);
            }
        }
        buf_addf(&sql,
                 ") ORDER BY id;"
                 "CREATE TEMP TABLE merge_map_%s(old_id INTEGER PRIMARY KEY, new_id INTEGER);"
                 "INSERT INTO temp.merge_map_%s SELECT o.id, m.id FROM " OTHER ".%s o "
                 "JOIN main.%s m ON m.%s = o.%s;",
                 t->name, t->name, t->name, t->name, t->key, t->key);
    }
    sql_exec(h, &rc, sql.data);
    buf_release(&sql);
    return rc == SQLITE_OK ? 0 : -1;
}

/* Copies the file's rows (after add_selection's and copy_shared's); *rows gets the row count
 * per table (graph_tables[] order), *source_offset what the sources' ids were moved by. */
static int copy_files(sqlite3 *h, size_t rows[], int64_t *source_offset)
{
    int rc = SQLITE_OK;
    int64_t *offset = xcalloc(graph_n_tables, sizeof(*offset));
    for (size_t i = 0; i < graph_n_tables; i++) {
        const struct graph_table *t = &graph_tables[i];
        if (t->role == GRAPH_FILE && graph_is_parent(t)) {
            struct buf sql = BUF_INIT;
            buf_addf(&sql, "SELECT coalesce(max(id), 0) FROM main.%s", t->name);
            offset[i] = sql_int(h, &rc, sql.data);
            buf_release(&sql);
        }
        if (!t->owner && t->role == GRAPH_FILE)
            *source_offset = offset[i];
    }
    for (size_t i = 0; rc == SQLITE_OK && i < graph_n_tables; i++) {
        const struct graph_table *t = &graph_tables[i];
        if (t->role != GRAPH_FILE)
            continue;
        struct buf sql = BUF_INIT;
        rc = copy_sql(h, t, "INSERT", &sql);
        add_chosen(&sql, t);
        sqlite3_stmt *st = sql_prepare(h, &rc, sql.data);
        /* each table's copy moves the ids it has */
        for (size_t k = 0; k < graph_n_tables; k++) {
            char param[80];
            snprintf(param, sizeof(param), ":off_%s", graph_tables[k].name);
            if (sql_uses(st, param))
                sql_bind_int(st, &rc, param, offset[k]);
        }
        sql_step(st, &rc);
        rows[i] = (size_t)sqlite3_changes(h);
        sqlite3_finalize(st);
        buf_release(&sql);
    }
    free(offset);
    return rc == SQLITE_OK ? 0 : -1;
}

/* Drops the temporary tables of a merge (those that exist). */
static void cleanup(sqlite3 *h)
{
    struct buf sql = BUF_INIT;
    for (size_t i = 0; i < graph_n_tables; i++)
        buf_addf(&sql,
                 "DROP TABLE IF EXISTS temp.merge_sel_%s; DROP TABLE IF EXISTS "
                 "temp.merge_map_%s;",
                 graph_tables[i].name, graph_tables[i].name);
    sqlite3_exec(h, sql.data, NULL, NULL, NULL);
    buf_release(&sql);
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
             "(SELECT id FROM " NEW_SOURCES ") AND raw_dict IS NOT NULL) SELECT o.id, o.format, "
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
                                   "IN (SELECT id FROM " NEW_SOURCES ") ORDER BY id");
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
             ".source_file WHERE id IN (SELECT id FROM " NEW_SOURCES ")))",
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

/* Lists the rows to copy, checks the dictionaries they need, stores the shared rows they
 * point at, copies them and checks their bytes; 0, forged (FORGED_*), or -1 (sqlite3_errmsg
 * says why). */
static int copy_all(sqlite3 *h, const char *other_path, size_t rows[], struct diag *d)
{
    struct buf sql = BUF_INIT;
    add_selection(&sql);
    int rc = SQLITE_OK;
    sql_exec(h, &rc, sql.data);
    buf_release(&sql);
    int forged = rc == SQLITE_OK ? verify_dicts(h, other_path, d) : -1;
    for (size_t i = 0; forged == 0 && i < graph_n_tables; i++)
        if (graph_tables[i].role == GRAPH_SHARED && copy_shared(h, &graph_tables[i]))
            forged = -1;
    int64_t source_offset = 0;
    if (forged == 0 && copy_files(h, rows, &source_offset))
        forged = -1;
    /* the copied sources are verified where they are copied to: a failure rolls all back */
    return forged == 0 ? verify_sources(h, other_path, source_offset, d) : forged;
}

/* The rows copied of the table of that name. */
static size_t copied(const size_t rows[], const char *table)
{
    return rows[graph_find(table) - graph_tables];
}

int db_merge(struct db *db, const char *other_path, struct merge_counts *c, struct diag *d)
{
    memset(c, 0, sizeof(*c));
    if (attach(db, other_path, d))
        return -2;
    size_t *rows = xcalloc(graph_n_tables, sizeof(*rows));
    int rc = db_begin(db, d) ? -2 : 0;
    int forged = 0;
    if (rc == 0 && ((forged = copy_all(db->h, other_path, rows, d)) < 0 ||
                    (!forged && (report_conflicts(db->h, other_path, &c->conflicts, d) ||
                                 merge_baselines(db->h, other_path, d))))) {
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
    cleanup(db->h);
    if (rc == 0 && db_commit(db, d))
        rc = -2;
    if (rc) {
        memset(rows, 0, graph_n_tables * sizeof(*rows)); /* rolled back */
        db_rollback(db);
        cleanup(db->h);
    }
    c->sources = copied(rows, "source_file");
    c->runs = copied(rows, "run");
    c->results = copied(rows, "result");
    free(rows);
    int counted = SQLITE_OK;
    c->skipped =
        (size_t)sql_int(db->h, &counted, "SELECT count(*) FROM " OTHER ".source_file") - c->sources;
    sqlite3_exec(db->h, "DETACH " OTHER, NULL, NULL, NULL);
    return rc;
}
