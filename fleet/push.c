/* push.c: benchdb push: the sources of a local warehouse that the server lacks, with every
 * row that hangs off them. The ideas are schema/merge.c's: a source is known by its sha256,
 * and each copied row's ids are re-keyed to the ids the server gives. Per batch of whole files,
 * in one server transaction: the batch's rows are COPYed into temporary staging tables that
 * have the server tables' columns (the local ids included), then INSERT ... SELECT moves
 * them into the warehouse through map tables (local id -> server id). Only sources whose
 * INSERT took place (ON CONFLICT DO NOTHING) map, so a file another host pushed meanwhile is
 * skipped whole, and a push killed midway leaves whole files behind it. */
#include "fleet_private.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHO "benchdb push"

/* A batch is this many files, or fewer files holding this many results or stored bytes (a
 * transaction and its staged rows stay of a bounded size). */
enum { BATCH_FILES = 1000, BATCH_RESULTS = 50000 };
#define BATCH_BYTES (64 << 20)

#define BATCH_SOURCES     "(SELECT id FROM temp.fleet_batch)"
#define BATCH_RUNS        "(SELECT id FROM run WHERE source_id IN " BATCH_SOURCES ")"
#define BATCH_RESULTS_SQL "(SELECT id FROM result WHERE run_id IN " BATCH_RUNS ")"
#define BATCH_MOUNTS      "(SELECT mount_id FROM result WHERE run_id IN " BATCH_RUNS ")"

/* The tables pushed, in foreign-key order: which local rows a batch sends, the ordinal that
 * identifies a row among its parent's (NULL: none), and the map its new rows' server ids go
 * to (NULL: none), filled from the INSERT's RETURNING (only the rows inserted now: a stored
 * source maps nothing, so its rows are skipped), paired with the staged rows by the content
 * that keys them: returning ends "WITH ins AS (INSERT ...". A mount may be stored already and
 * shared: pair maps it by its options afterwards. Each pairing joins batch-sized sets only
 * (joining the whole result table made every batch cost as much as the warehouse). */
static const struct push_table {
    const char *table, *where, *ordinal, *map, *returning, *pair;
} push_tables[] = {
    {"source_file", "id IN " BATCH_SOURCES, NULL, "map_source",
     " RETURNING id, sha256) INSERT INTO map_source SELECT s.id, ins.id FROM ins JOIN "
     "stage_source_file s USING (sha256)",
     NULL},
    {"source_chunk", "source_id IN " BATCH_SOURCES, NULL, NULL, NULL, NULL},
    {"mount", "id IN " BATCH_MOUNTS, NULL, "map_mount", NULL,
     "INSERT INTO map_mount SELECT s.id, m.id FROM stage_mount s JOIN mount m USING (options)"},
    {"mount_option", "mount_id IN " BATCH_MOUNTS, NULL, NULL, NULL, NULL},
    {"run", "source_id IN " BATCH_SOURCES, "row_number() OVER (PARTITION BY source_id ORDER BY id)",
     "map_run",
     " RETURNING id, source_id, ordinal) INSERT INTO map_run SELECT s.id, ins.id FROM ins JOIN "
     "map_source ms ON ms.new_id = ins.source_id JOIN stage_run s ON s.source_id = ms.old_id "
     "AND s.ordinal = ins.ordinal",
     NULL},
    {"result", "run_id IN " BATCH_RUNS, "row_number() OVER (PARTITION BY run_id ORDER BY id)",
     "map_result",
     " RETURNING id, run_id, ordinal) INSERT INTO map_result SELECT s.id, ins.id FROM ins JOIN "
     "map_run mr ON mr.new_id = ins.run_id JOIN stage_result s ON s.run_id = mr.old_id AND "
     "s.ordinal = ins.ordinal",
     NULL},
    {"tag", "result_id IN " BATCH_RESULTS_SQL, NULL, NULL, NULL, NULL},
    {"histogram", "result_id IN " BATCH_RESULTS_SQL, NULL, NULL, NULL, NULL},
    {"series", "result_id IN " BATCH_RESULTS_SQL, NULL, NULL, NULL, NULL},
};
#define N_PUSH_TABLES (sizeof(push_tables) / sizeof(push_tables[0]))

/* A column holding a local id is given the server's through its table's map (mount_id may be
 * NULL: a LEFT JOIN). */
static const struct rekey {
    const char *column, *map, *alias, *join;
} rekeys[] = {
    {"source_id", "map_source", "ms", "JOIN"},
    {"run_id", "map_run", "mr", "JOIN"},
    {"result_id", "map_result", "mres", "JOIN"},
    {"mount_id", "map_mount", "mm", "LEFT JOIN"},
};

struct push {
    sqlite3 *h;
    PGconn *c;
    struct diag *d;
    struct buf cols[N_PUSH_TABLES]; /* each table's local columns, "a, b, c" */
    struct fleet_push_counts *counts;
};

static int local_error(struct push *p, const char *what)
{
    return diag_error_path(p->d, WHO, "%s: %s", what, sqlite3_errmsg(p->h));
}

/* The columns of a local table, as a list. */
static int local_columns(struct push *p, const char *table, struct buf *cols)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(p->h, "SELECT name FROM pragma_table_info(?) ORDER BY cid", -1, &st,
                           NULL) != SQLITE_OK)
        return local_error(p, "cannot read the warehouse's tables");
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW)
        buf_addf(cols, "%s%s", cols->len ? ", " : "", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return 0;
}

/* Appends bytes in bytea's hex form, its backslash escaped for COPY (a table lookup: the
 * sources' stored bytes are most of what a push sends). */
static void copy_bytea(struct buf *out, const unsigned char *b, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    buf_adds(out, "\\\\x");
    buf_grow(out, 2 * n);
    char *p = out->data + out->len;
    for (size_t k = 0; k < n; k++) {
        *p++ = hex[b[k] >> 4];
        *p++ = hex[b[k] & 15];
    }
    out->len += 2 * n;
    out->data[out->len] = '\0';
}

/* Appends one value in COPY's text format. */
static void copy_value(struct buf *out, sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
        buf_adds(out, "\\N");
        break;
    case SQLITE_INTEGER:
        buf_addf(out, "%lld", (long long)sqlite3_column_int64(st, i));
        break;
    case SQLITE_FLOAT: /* 17 digits read back as the same double */
        buf_addf(out, "%.17g", sqlite3_column_double(st, i));
        break;
    case SQLITE_BLOB:
        copy_bytea(out, sqlite3_column_blob(st, i), (size_t)sqlite3_column_bytes(st, i));
        break;
    default:
        pg_copy_text(out, (const char *)sqlite3_column_text(st, i),
                     (size_t)sqlite3_column_bytes(st, i));
    }
}

/* COPYs the rows of a local SELECT into the server's target, sending them in pieces of
 * COPY_PIECE bytes as they are read (a batch's stored bytes may exceed what one call takes);
 * *rows counts them. No rows: no COPY. 0, or -1 after a message. */
enum { COPY_PIECE = 1 << 20 };
static int copy_table(struct push *p, const char *sql, const char *target, size_t *rows)
{
    sqlite3_stmt *st;
    *rows = 0;
    if (sqlite3_prepare_v2(p->h, sql, -1, &st, NULL) != SQLITE_OK)
        return local_error(p, "cannot read the warehouse");
    struct buf out = BUF_INIT;
    int rc = 0, step, n = sqlite3_column_count(st);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (!*rows && pg_copy_begin(p->c, target, WHO, p->d)) {
            rc = -1;
            break;
        }
        (*rows)++;
        for (int i = 0; i < n; i++) {
            if (i)
                buf_addc(&out, '\t');
            copy_value(&out, st, i);
        }
        buf_addc(&out, '\n');
        if (out.len >= COPY_PIECE && pg_copy_put(p->c, &out)) {
            rc = pg_error(p->c, WHO, "cannot send the rows", p->d);
            break;
        }
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = local_error(p, "cannot read the warehouse");
    if (*rows) { /* a failed copy is abandoned: the server rolls its rows back */
        if (rc == 0 && pg_copy_put(p->c, &out))
            rc = pg_error(p->c, WHO, "cannot send the rows", p->d);
        if (pg_copy_end(p->c, rc == 0, target, WHO, p->d))
            rc = -1;
    }
    sqlite3_finalize(st);
    buf_release(&out);
    return rc;
}

/* Stages the batch's rows of table i. */
static int stage_table(struct push *p, size_t i)
{
    const struct push_table *t = &push_tables[i];
    struct buf sql = BUF_INIT, target = BUF_INIT;
    buf_addf(&sql, "SELECT %s%s%s FROM %s WHERE %s", p->cols[i].data, t->ordinal ? ", " : "",
             t->ordinal ? t->ordinal : "", t->table, t->where);
    buf_addf(&target, "stage_%s (%s%s)", t->table, p->cols[i].data, t->ordinal ? ", ordinal" : "");
    size_t rows;
    int rc = copy_table(p, sql.data, target.data, &rows);
    buf_release(&sql);
    buf_release(&target);
    return rc;
}

static const struct rekey *rekey_of(const char *column)
{
    for (size_t i = 0; i < sizeof(rekeys) / sizeof(rekeys[0]); i++)
        if (!strcmp(rekeys[i].column, column))
            return &rekeys[i];
    return NULL;
}

/* INSERT INTO table (columns but id) SELECT ... FROM stage_table s JOIN maps ...: the staged
 * rows with their ids re-keyed, in the local order. */
static void insert_sql(const struct push_table *t, const char *local_cols, struct buf *sql)
{
    struct buf cols = BUF_INIT, exprs = BUF_INIT, joins = BUF_INIT;
    char col[128];
    for (const char *p = local_cols; *p;) {
        size_t n = strcspn(p, ",");
        snprintf(col, sizeof(col), "%.*s", (int)n, p);
        p += n + (p[n] == ',' ? 2 : 0);
        if (!strcmp(col, "id") && t->map)
            continue; /* the server's own */
        const struct rekey *k = rekey_of(col);
        buf_addf(&cols, "%s%s", cols.len ? ", " : "", col);
        if (k) {
            buf_addf(&exprs, "%s%s.new_id", exprs.len ? ", " : "", k->alias);
            buf_addf(&joins, " %s %s %s ON %s.old_id = s.%s", k->join, k->map, k->alias, k->alias,
                     col);
        } else
            buf_addf(&exprs, "%ss.%s", exprs.len ? ", " : "", col);
    }
    if (t->ordinal) {
        buf_adds(&cols, ", ordinal");
        buf_adds(&exprs, ", s.ordinal");
    }
    buf_addf(sql, "INSERT INTO %s (%s) SELECT %s FROM stage_%s s%s%s ON CONFLICT DO NOTHING",
             t->table, cols.data, exprs.data, t->table, joins.data, t->map ? " ORDER BY s.id" : "");
    buf_release(&cols);
    buf_release(&exprs);
    buf_release(&joins);
}

/* Moves the staged rows of table i into the warehouse; *rows: how many were new. */
static int insert_table(struct push *p, size_t i, size_t *rows)
{
    const struct push_table *t = &push_tables[i];
    struct buf sql = BUF_INIT;
    if (t->returning)
        buf_adds(&sql, "WITH ins AS (");
    insert_sql(t, p->cols[i].data, &sql);
    if (t->returning)
        buf_adds(&sql, t->returning);
    PGresult *r = PQexec(p->c, sql.data);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    *rows = ok ? (size_t)strtoull(PQcmdTuples(r), NULL, 10) : 0;
    if (!ok)
        pg_result_error(p->c, r, WHO, "cannot store the pushed rows", p->d);
    PQclear(r);
    if (ok && t->pair)
        ok = pg_exec(p->c, t->pair, WHO, "cannot store the pushed rows", p->d) == 0;
    buf_release(&sql);
    return ok ? 0 : -1;
}

/* The session's temporary tables on the server: a staging table and a map per pushed
 * table, emptied at each commit, and the local hashes. */
static int setup_session(struct push *p)
{
    struct buf sql = BUF_INIT;
    for (size_t i = 0; i < N_PUSH_TABLES; i++) {
        buf_addf(&sql, "CREATE TEMP TABLE stage_%s (LIKE %s) ON COMMIT DELETE ROWS;",
                 push_tables[i].table, push_tables[i].table);
        if (push_tables[i].map)
            buf_addf(&sql,
                     "CREATE TEMP TABLE %s (old_id bigint PRIMARY KEY, new_id bigint NOT "
                     "NULL) ON COMMIT DELETE ROWS;",
                     push_tables[i].map);
    }
    /* a batch lost to a server crash after its commit returned is sent again by the next
     * push (the server lacks its sha256s), so the push need not wait for each flush */
    buf_adds(&sql, "SET synchronous_commit = off;"
                   "CREATE TEMP TABLE local_hash (sha256 text PRIMARY KEY);"
                   "CREATE TEMP TABLE stage_label (sha256 text, run_ordinal int, result_ordinal "
                   "int, job text, direction text, seq bigint, field text, old_value text, "
                   "new_value text, changed_by text, changed_at text, current_value text) "
                   "ON COMMIT DELETE ROWS");
    int rc = pg_exec(p->c, sql.data, WHO, "cannot set up the push", p->d);
    buf_release(&sql);
    if (rc == 0 && sqlite3_exec(p->h,
                                "CREATE TEMP TABLE IF NOT EXISTS fleet_missing(id INTEGER PRIMARY "
                                "KEY, results INTEGER, bytes INTEGER);"
                                "CREATE TEMP TABLE IF NOT EXISTS fleet_batch(id INTEGER PRIMARY "
                                "KEY);",
                                NULL, NULL, NULL) != SQLITE_OK)
        rc = local_error(p, "cannot set up the push");
    return rc;
}

/* Fills temp.fleet_missing with the local sources the server lacks (one round trip: every
 * local hash is copied to the server, which answers with those it lacks). */
static int find_missing(struct push *p)
{
    size_t hashes;
    int rc = copy_table(p, "SELECT sha256 FROM source_file", "local_hash", &hashes);
    PGresult *r = rc ? NULL
                     : PQexec(p->c, "SELECT sha256 FROM local_hash l WHERE NOT EXISTS (SELECT 1 "
                                    "FROM source_file s WHERE s.sha256 = l.sha256)");
    if (rc == 0 && PQresultStatus(r) != PGRES_TUPLES_OK)
        rc = pg_error(p->c, WHO, "cannot compare the sources", p->d);
    sqlite3_stmt *st = NULL;
    if (rc == 0 &&
        sqlite3_prepare_v2(p->h,
                           "INSERT INTO temp.fleet_missing SELECT s.id, (SELECT count(*) FROM "
                           "result WHERE run_id IN (SELECT id FROM run WHERE source_id = s.id)), "
                           "coalesce(length(s.raw), 0) + (SELECT coalesce(sum(length(data)), 0) "
                           "FROM source_chunk WHERE source_id = s.id) FROM source_file s WHERE "
                           "s.sha256 = ?",
                           -1, &st, NULL) != SQLITE_OK)
        rc = local_error(p, "cannot compare the sources");
    for (int i = 0; rc == 0 && i < PQntuples(r); i++) {
        sqlite3_bind_text(st, 1, PQgetvalue(r, i, 0), -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = local_error(p, "cannot compare the sources");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    PQclear(r);
    return rc;
}

/* Sends the sources in temp.fleet_batch in one server transaction. */
static int push_batch(struct push *p)
{
    size_t new_rows[N_PUSH_TABLES] = {0};
    int rc = pg_exec(p->c, "BEGIN", WHO, "cannot start a batch", p->d);
    for (size_t i = 0; rc == 0 && i < N_PUSH_TABLES; i++)
        rc = stage_table(p, i) || insert_table(p, i, &new_rows[i]);
    if (rc == 0)
        rc = pg_exec(p->c, "COMMIT", WHO, "cannot commit a batch", p->d);
    if (rc) {
        PQclear(PQexec(p->c, "ROLLBACK"));
        return -1;
    }
    p->counts->sources += new_rows[0];
    p->counts->runs += new_rows[4];
    p->counts->results += new_rows[5];
    return 0;
}

/* Fills temp.fleet_batch with the next sources to send (after id *after); 0 when none are
 * left, 1 when some are, -1 on failure. */
static int next_batch(struct push *p, int64_t *after)
{
    sqlite3_stmt *sel;
    if (sqlite3_exec(p->h, "DELETE FROM temp.fleet_batch", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(p->h,
                           "SELECT id, results, bytes FROM temp.fleet_missing WHERE id > ? "
                           "ORDER BY id",
                           -1, &sel, NULL) != SQLITE_OK)
        return local_error(p, "cannot read the warehouse");
    sqlite3_bind_int64(sel, 1, *after);
    int64_t files = 0, results = 0, bytes = 0;
    int rc = 0;
    while (rc == 0 && files < BATCH_FILES && results < BATCH_RESULTS && bytes < BATCH_BYTES &&
           sqlite3_step(sel) == SQLITE_ROW) {
        *after = sqlite3_column_int64(sel, 0);
        results += sqlite3_column_int64(sel, 1);
        bytes += sqlite3_column_int64(sel, 2);
        char sql[96];
        snprintf(sql, sizeof(sql), "INSERT INTO temp.fleet_batch VALUES (%lld)", (long long)*after);
        if (sqlite3_exec(p->h, sql, NULL, NULL, NULL) != SQLITE_OK)
            rc = local_error(p, "cannot read the warehouse");
        files++;
    }
    sqlite3_finalize(sel);
    return rc ? -1 : files > 0;
}

/* Every local label change of a stored result, with the content key of its result (source
 * hash, run and result ordinals, job and direction) and the result's current value of the
 * field. */
static const char local_labels_sql[] =
    "SELECT s.sha256, (SELECT count(*) FROM run r2 WHERE r2.source_id = run.source_id AND "
    "r2.id <= run.id), (SELECT count(*) FROM result x WHERE x.run_id = r.run_id AND x.id <= "
    "r.id), r.job, r.direction, l.id, l.field, l.old_value, l.new_value, l.changed_by, "
    "l.changed_at, CASE l.field WHEN 'host' THEN r.host WHEN 'storage_class' THEN "
    "r.storage_class WHEN 'sec' THEN r.sec ELSE (SELECT value FROM tag WHERE result_id = r.id "
    "AND key = substr(l.field, 5)) END FROM label_history l JOIN result r ON r.id = l.result_id "
    "JOIN run ON run.id = r.run_id JOIN source_file s ON s.id = run.source_id ORDER BY l.id";

/* On the server: the staged changes it had not stored are stored, and each (result, field)
 * they touch gets the local current value. */
static const char apply_labels_sql[] =
    "CREATE TEMP TABLE label_new (result_id bigint, field text, current_value text) ON COMMIT "
    "DROP;"
    "WITH target AS (SELECT r.id AS result_id, l.* FROM stage_label l JOIN source_file s ON "
    "s.sha256 = l.sha256 JOIN run ON run.source_id = s.id AND run.ordinal = l.run_ordinal JOIN "
    "result r ON r.run_id = run.id AND r.ordinal = l.result_ordinal AND r.job IS NOT DISTINCT "
    "FROM l.job AND r.direction IS NOT DISTINCT FROM l.direction), "
    "ins AS (INSERT INTO label_history (result_id, field, old_value, new_value, changed_by, "
    "changed_at) SELECT result_id, field, old_value, new_value, changed_by, changed_at FROM "
    "target ORDER BY seq ON CONFLICT DO NOTHING RETURNING result_id, field) "
    "INSERT INTO label_new SELECT DISTINCT i.result_id, i.field, t.current_value FROM ins i "
    "JOIN target t USING (result_id, field)";

/* Changing stored labels needs UPDATE on result and DELETE on tag (docs/fleet.md): run only
 * when there are changes. */
static const char set_labels_sql[] =
    "UPDATE result r SET host = n.current_value FROM label_new n WHERE n.result_id = r.id AND "
    "n.field = 'host';"
    "UPDATE result r SET storage_class = n.current_value FROM label_new n WHERE n.result_id = "
    "r.id AND n.field = 'storage_class';"
    "UPDATE result r SET sec = n.current_value FROM label_new n WHERE n.result_id = r.id AND "
    "n.field = 'sec';"
    "DELETE FROM tag t USING label_new n WHERE n.result_id = t.result_id AND n.field = 'tag:' "
    "|| t.key;"
    "INSERT INTO tag SELECT result_id, substr(field, 5), current_value FROM label_new WHERE "
    "field LIKE 'tag:%' AND current_value IS NOT NULL";

/* Sends the label changes the server lacks (benchdb relabel after an earlier push) and
 * applies them there, in one transaction. */
static int push_labels(struct push *p)
{
    size_t rows = 0;
    int rc = pg_exec(p->c, "BEGIN", WHO, "cannot push the label changes", p->d) ||
             copy_table(p, local_labels_sql, "stage_label", &rows) ||
             (rows && pg_exec(p->c, apply_labels_sql, WHO, "cannot push the label changes", p->d));
    if (rc == 0 && !rows) {
        PQclear(PQexec(p->c, "ROLLBACK"));
        return 0;
    }
    PGresult *r = rc ? NULL : PQexec(p->c, "SELECT count(*) FROM label_new");
    p->counts->labels = r && PQresultStatus(r) == PGRES_TUPLES_OK
                            ? (size_t)strtoull(PQgetvalue(r, 0, 0), NULL, 10)
                            : 0;
    PQclear(r);
    if (rc == 0 && p->counts->labels)
        rc = pg_exec(p->c, set_labels_sql, WHO, "cannot apply the label changes", p->d);
    if (rc == 0)
        rc = pg_exec(p->c, "COMMIT", WHO, "cannot push the label changes", p->d);
    if (rc)
        PQclear(PQexec(p->c, "ROLLBACK"));
    return rc;
}

static size_t missing_count(struct push *p)
{
    sqlite3_stmt *st;
    sqlite3_prepare_v2(p->h, "SELECT count(*) FROM temp.fleet_missing", -1, &st, NULL);
    size_t n = sqlite3_step(st) == SQLITE_ROW ? (size_t)sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return n;
}

static int push_all(struct push *p, const struct fleet_progress *progress)
{
    for (size_t i = 0; i < N_PUSH_TABLES; i++)
        if (local_columns(p, push_tables[i].table, &p->cols[i]))
            return -1;
    if (setup_session(p) || find_missing(p))
        return -1;
    if (progress && progress->start)
        progress->start(progress->ctx, missing_count(p));
    int64_t after = 0;
    int more;
    while ((more = next_batch(p, &after)) > 0) {
        if (push_batch(p))
            return -1;
        if (progress && progress->batch)
            progress->batch(progress->ctx, p->counts->sources, p->counts->results);
    }
    return more < 0 ? -1 : push_labels(p);
}

int fleet_push(struct db *db, const char *url, const struct fleet_progress *progress,
               struct fleet_push_counts *counts, struct diag *d)
{
    memset(counts, 0, sizeof(*counts));
    struct push p = {.h = db_handle(db), .d = d, .counts = counts};
    for (size_t i = 0; i < N_PUSH_TABLES; i++)
        p.cols[i] = (struct buf)BUF_INIT;
    p.c = pg_connect(url, 1, WHO, d);
    int rc = p.c ? push_all(&p, progress) : -1;
    if (rc == 0) {
        sqlite3_stmt *st;
        sqlite3_prepare_v2(p.h, "SELECT count(*) FROM source_file", -1, &st, NULL);
        size_t local = sqlite3_step(st) == SQLITE_ROW ? (size_t)sqlite3_column_int64(st, 0) : 0;
        sqlite3_finalize(st);
        counts->present = local - missing_count(&p);
    }
    sqlite3_exec(p.h,
                 "DROP TABLE IF EXISTS temp.fleet_missing; DROP TABLE IF EXISTS "
                 "temp.fleet_batch",
                 NULL, NULL, NULL);
    PQfinish(p.c);
    for (size_t i = 0; i < N_PUSH_TABLES; i++)
        buf_release(&p.cols[i]);
    return rc;
}
