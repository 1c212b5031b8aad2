/* push.c: benchdb push: the sources of a local warehouse that the server lacks, with every
 * row that hangs off them. The ideas are schema/merge.c's: a source is known by its sha256,
 * and each copied row's ids are re-keyed to the ids the server gives. A push holds a lock
 * that pushes take in turn for its whole length, so what it finds missing at its start stays
 * missing. The missing sources go in batches of whole files, one server transaction each,
 * sent by several workers at once (each with its own connections to the warehouse and the
 * server: the server stores one batch while the next is read). Per batch, the server's ids
 * for its sources, runs and results are reserved (nextval, the batches in their order), local
 * maps (local id -> server id) give every row read its server ids, and the rows are COPYed
 * (binary) straight into their tables. Only the rows shared between files are staged and
 * paired by their content: mounts by their options, compression dictionaries by their sha256.
 * A push killed midway leaves whole files behind it. */
#include "fleet_private.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/utf8.h"
#include "../core/xalloc.h"

#define WHO "benchdb push"

/* A batch is this many files, or fewer files holding this many results or stored bytes (a
 * transaction stays of a bounded size, and a killed push loses little). */
enum { BATCH_FILES = 1000, BATCH_RESULTS = 50000 };
#define BATCH_BYTES (64 << 20)

#define MAP_SOURCE "temp.fleet_map_source"
#define MAP_RUN    "temp.fleet_map_run"
#define MAP_RESULT "temp.fleet_map_result"
#define MAP_MOUNT  "temp.fleet_map_mount"
#define MAP_DICT   "temp.fleet_map_dict"

/* The tables pushed, in foreign-key order: the map that gives their own ids the server's
 * (NULL: none, or the server gives them), the column of the parent whose map picks the batch's
 * rows, and whether the server numbers each row among its parent's (the column "ordinal", by
 * id: counted here as the rows come, grouped by parent; a window function's row_number(), then
 * a count on the parent's index, did the same work again in SQL for every row). */
enum {
    T_DICT,
    T_SOURCE,
    T_CHUNK,
    T_MOUNT,
    T_MOUNT_OPTION,
    T_RUN,
    T_RESULT,
    T_TAG,
    T_HISTOGRAM,
    T_SERIES
};
static const struct push_table {
    const char *table, *map, *parent;
    int ordinal;
} push_tables[] = {
    [T_DICT] = {"raw_dict", NULL, NULL, 0},
    [T_SOURCE] = {"source_file", MAP_SOURCE, NULL, 0},
    [T_CHUNK] = {"source_chunk", NULL, "source_id", 0},
    [T_MOUNT] = {"mount", NULL, NULL, 0},
    [T_MOUNT_OPTION] = {"mount_option", NULL, NULL, 0},
    [T_RUN] = {"run", MAP_RUN, "source_id", 1},
    [T_RESULT] = {"result", MAP_RESULT, "run_id", 1},
    [T_TAG] = {"tag", NULL, "result_id", 0},
    [T_HISTOGRAM] = {"histogram", NULL, "result_id", 0},
    [T_SERIES] = {"series", NULL, "result_id", 0},
};
#define N_PUSH_TABLES (sizeof(push_tables) / sizeof(push_tables[0]))

/* A column holding a local id is given the server's through its table's map. The inner joins
 * keep only the rows whose parent is mapped: the batch's (mount_id and raw_dict may be NULL: a
 * LEFT JOIN). */
static const struct rekey {
    const char *column, *map, *alias, *join;
} rekeys[] = {
    {"source_id", MAP_SOURCE, "ms", "JOIN"},   {"run_id", MAP_RUN, "mr", "JOIN"},
    {"result_id", MAP_RESULT, "mres", "JOIN"}, {"mount_id", MAP_MOUNT, "mm", "LEFT JOIN"},
    {"raw_dict", MAP_DICT, "md", "LEFT JOIN"},
};

/* The server's column types that a push sends, in COPY's binary format. */
enum pg_type { PG_INT8, PG_INT4, PG_FLOAT8, PG_TEXT, PG_BYTEA };

/* The sequences of the ids reserved, as SQL literals. */
enum { SEQ_SOURCE, SEQ_RUN, SEQ_RESULT, N_SEQ };

/* What the workers of a push share: read-only once they start, but for the turns and tallies
 * under the mutex. */
struct push_plan {
    const char *url, *path;             /* the server; the warehouse's file */
    struct buf cols[N_PUSH_TABLES];     /* each table's local columns, "a, b, c" */
    struct buf sent[N_PUSH_TABLES];     /* the server's columns sent: the local ones, the ordinal */
    enum pg_type *types[N_PUSH_TABLES]; /* their types on the server */
    char *seq[N_SEQ];
    int64_t *sources; /* the local ids of the sources to send, ascending */
    size_t n_sources;
    pthread_mutex_t mutex;
    pthread_cond_t turn; /* signalled when reserved grows or failed is set */
    size_t cut;          /* sources[0 .. cut) are in the batches workers have taken */
    size_t taken;        /* the batches workers have taken */
    size_t reserved;     /* the batches whose ids are reserved: they are reserved in order */
    int failed;          /* a worker failed: the others stop */
    struct fleet_push_counts *counts;
    const struct fleet_progress *progress;
};

/* One worker's connections (or the push's own: the hashes, the labels). */
struct push {
    sqlite3 *h;
    PGconn *c;
    struct diag *d;
    struct push_plan *plan;
    size_t first, end;   /* a worker's: its batch is sources[first .. end) */
    sqlite3_stmt *weigh; /* a worker's: a source's results and stored bytes */
};

static int local_error(struct push *p, const char *what)
{
    return diag_error_path(p->d, WHO, "%s: %s", what, sqlite3_errmsg(p->h));
}

static int local_exec(struct push *p, const char *sql)
{
    if (sqlite3_exec(p->h, sql, NULL, NULL, NULL) != SQLITE_OK)
        return local_error(p, "cannot read the warehouse");
    return 0;
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

static const struct {
    const char *name;
    enum pg_type type;
} pg_types[] = {
    {"bigint", PG_INT8}, {"integer", PG_INT4}, {"double precision", PG_FLOAT8},
    {"text", PG_TEXT},   {"bytea", PG_BYTEA},
};
#define N_PG_TYPES (sizeof(pg_types) / sizeof(pg_types[0]))

/* Runs a statement on the server that returns rows; NULL after a message. */
static PGresult *server_rows(struct push *p, const char *sql, const char *what)
{
    PGresult *r = PQexec(p->c, sql);
    if (PQresultStatus(r) == PGRES_TUPLES_OK)
        return r;
    pg_result_error(p->c, r, WHO, what, p->d);
    PQclear(r);
    return NULL;
}

/* The server's types of table's columns cols ("a, b, c"), in their order; NULL after a
 * message (a column the server lacks, or of a type a push does not send). */
static enum pg_type *column_types(struct push *p, const char *table, const char *cols)
{
    char *list = PQescapeLiteral(p->c, cols, strlen(cols));
    struct buf sql = BUF_INIT;
    buf_addf(&sql,
             "SELECT c.name, format_type(a.atttypid, NULL) FROM unnest(string_to_array(%s, ', "
             "')) WITH ORDINALITY AS c(name, k) LEFT JOIN pg_attribute a ON a.attrelid = "
             "'%s'::regclass AND a.attname = c.name AND NOT a.attisdropped ORDER BY c.k",
             list ? list : "NULL", table);
    PQfreemem(list);
    PGresult *r = server_rows(p, sql.data, "cannot read the server's tables");
    buf_release(&sql);
    if (!r)
        return NULL;
    enum pg_type *types = xcalloc((size_t)PQntuples(r) + 1, sizeof(*types));
    int rc = 0;
    for (int i = 0; rc == 0 && i < PQntuples(r); i++) {
        size_t k = 0;
        while (k < N_PG_TYPES && strcmp(pg_types[k].name, PQgetvalue(r, i, 1)))
            k++;
        if (k < N_PG_TYPES)
            types[i] = pg_types[k].type;
        else
            rc = diag_error_path(
                p->d, WHO, "the server's column '%s.%s' %s", table, PQgetvalue(r, i, 0),
                PQgetisnull(r, i, 1) ? "does not exist" : "has a type benchdb does not push");
    }
    PQclear(r);
    if (rc) {
        free(types);
        return NULL;
    }
    return types;
}

/* Appends the current row of st as a tuple of COPY's binary format, each value in its server
 * column's type; -1 after a message for a value of another kind (a warehouse edited by
 * hand: the server would have refused its text too). */
static int copy_row(struct push *p, sqlite3_stmt *st, const enum pg_type *types, int64_t ordinal,
                    struct buf *out)
{
    int n = sqlite3_column_count(st);
    pg_copy_tuple(out, n + (ordinal > 0));
    for (int i = 0; i < n; i++) {
        /* one sqlite3_column_value, then its value: a result row has ~130 columns, and each
         * sqlite3_column_* call pays for its checks again (a tenth of reading a row) */
        sqlite3_value *value = sqlite3_column_value(st, i);
        int kind = sqlite3_value_type(value);
        sqlite3_int64 v = kind == SQLITE_INTEGER ? sqlite3_value_int64(value) : 0;
        if (kind == SQLITE_NULL)
            pg_copy_null(out);
        else if (types[i] == PG_TEXT) { /* any value, as its text */
            const unsigned char *text = sqlite3_value_text(value);
            pg_copy_bytes(out, text, (size_t)sqlite3_value_bytes(value));
        } else if (types[i] == PG_BYTEA && kind == SQLITE_BLOB) {
            const void *blob = sqlite3_value_blob(value);
            pg_copy_bytes(out, blob, (size_t)sqlite3_value_bytes(value));
        } else if (types[i] == PG_FLOAT8 && (kind == SQLITE_FLOAT || kind == SQLITE_INTEGER))
            pg_copy_float8(out, sqlite3_value_double(value));
        else if (kind == SQLITE_INTEGER &&
                 (types[i] == PG_INT8 || (types[i] == PG_INT4 && v == (int32_t)v)))
            pg_copy_int(out, v, types[i] == PG_INT8 ? 8 : 4);
        else
            return diag_error_path(
                p->d, WHO, "cannot send '%s': a value of the server's type '%s' expected, got '%s'",
                sqlite3_column_name(st, i), pg_types[types[i]].name,
                (const char *)sqlite3_value_text(value));
    }
    if (ordinal > 0)
        pg_copy_int(out, ordinal, types[n] == PG_INT8 ? 8 : 4);
    return 0;
}

/* COPYs the rows of a local SELECT into the server's table (cols, of types), sending them in
 * pieces of COPY_PIECE bytes as they are read (a batch's stored bytes may exceed what one call
 * takes); *rows counts them. With parent_col >= 0, each row ends with its ordinal among the
 * rows of its value of that column (the rows come grouped by it, in the order of their ids).
 * No rows: no COPY. 0, or -1 after a message. */
enum { COPY_PIECE = 1 << 20 };
static int copy_table(struct push *p, const char *sql, const char *table, const char *cols,
                      const enum pg_type *types, int parent_col, size_t *rows)
{
    sqlite3_stmt *st;
    *rows = 0;
    int64_t parent = 0, ordinal = 0;
    if (sqlite3_prepare_v2(p->h, sql, -1, &st, NULL) != SQLITE_OK)
        return local_error(p, "cannot read the warehouse");
    struct buf out = BUF_INIT, target = BUF_INIT;
    buf_addf(&target, "%s (%s)", table, cols);
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (!*rows && pg_copy_begin(p->c, target.data, WHO, p->d)) {
            rc = -1;
            break;
        }
        if (!(*rows)++)
            pg_copy_header(&out);
        if (parent_col >= 0) { /* the rows come grouped by parent, each group by id */
            int64_t of = sqlite3_column_int64(st, parent_col);
            ordinal = *rows > 1 && of == parent ? ordinal + 1 : 1;
            parent = of;
        }
        if (copy_row(p, st, types, ordinal, &out)) {
            rc = -1;
            break;
        }
        if (out.len >= COPY_PIECE && pg_copy_put(p->c, &out)) {
            rc = pg_error(p->c, WHO, "cannot send the rows", p->d);
            break;
        }
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = local_error(p, "cannot read the warehouse");
    if (*rows) { /* a failed copy is abandoned: the server rolls its rows back */
        pg_copy_trailer(&out);
        if (rc == 0 && pg_copy_put(p->c, &out))
            rc = pg_error(p->c, WHO, "cannot send the rows", p->d);
        if (pg_copy_end(p->c, rc == 0, target.data, WHO, p->d))
            rc = -1;
    }
    sqlite3_finalize(st);
    buf_release(&out);
    buf_release(&target);
    return rc;
}

/* The next column of a list "a, b, c" at *list: its length; *list moves past it and its ", ". */
static size_t next_column(const char **list)
{
    const char *c = *list;
    size_t n = strcspn(c, ",");
    *list = c + n + (c[n] == ',' ? 2 : 0);
    return n;
}

static const struct rekey *rekey_of(const char *column)
{
    for (size_t i = 0; i < sizeof(rekeys) / sizeof(rekeys[0]); i++)
        if (!strcmp(rekeys[i].column, column))
            return &rekeys[i];
    return NULL;
}

/* The map whose rows drive the local SELECT of table t's rows: its parent's (the rows then come
 * grouped by parent, each group in id order: the parent column's index), else its own, NULL
 * for none (mounts, dictionaries: a few rows, chosen by a condition). */
static const struct rekey *driving_map(const struct push_table *t, struct rekey *own)
{
    *own = (struct rekey){"id", t->map, "own", "JOIN"};
    return t->parent ? rekey_of(t->parent) : t->map ? own : NULL;
}

/* The local SELECT of table t's rows with the server's ids: the row's own through the table's
 * map, the others through rekeys; where: a further condition, or NULL. The batch's map drives
 * the join (CROSS JOIN fixes SQLite's join order: it would scan the whole table once per batch
 * otherwise), so a batch costs what its rows do. A table numbered among its parent's rows is
 * read in that order (which the parent's index gives: no sort). */
static void local_select(const struct push_table *t, const char *local_cols, const char *where,
                         struct buf *sql)
{
    struct rekey own;
    const struct rekey *drive = driving_map(t, &own);
    struct buf from = BUF_INIT;
    if (drive)
        buf_addf(&from, "%s %s CROSS JOIN %s t ON t.%s = %s.local", drive->map, drive->alias,
                 t->table, drive->column, drive->alias);
    else
        buf_addf(&from, "%s t", t->table);
    char col[128];
    buf_adds(sql, "SELECT ");
    for (const char *c = local_cols; *c;) {
        const char *name = c;
        size_t n = next_column(&c);
        snprintf(col, sizeof(col), "%.*s", (int)n, name);
        const struct rekey *k = !strcmp(col, "id") && t->map ? &own : rekey_of(col);
        if (k) {
            buf_addf(sql, "%s.server", k->alias);
            if (k != drive)
                buf_addf(&from, " %s %s %s ON %s.local = t.%s", k->join, k->map, k->alias, k->alias,
                         col);
        } else
            buf_addf(sql, "t.%s", col);
        buf_adds(sql, *c ? ", " : "");
    }
    buf_addf(sql, " FROM %s", from.data);
    if (where)
        buf_addf(sql, " WHERE %s", where);
    if (t->ordinal)
        buf_addf(sql, " ORDER BY %s.local, t.id", drive->alias);
    buf_release(&from);
}

/* The position of column name in list ("a, b, c"), -1 if absent. */
static int column_index(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (int k = 0; *list; k++) {
        const char *at = list;
        if (next_column(&list) == len && !strncmp(at, name, len))
            return k;
    }
    return -1;
}

/* COPYs the batch's rows of table i into target on the server (the table, or its staging
 * table), with the server's ids; where: as local_select's. */
static int send_table(struct push *p, size_t i, const char *target, const char *where, size_t *rows)
{
    const struct push_table *t = &push_tables[i];
    struct buf sql = BUF_INIT;
    local_select(t, p->plan->cols[i].data, where, &sql);
    int rc = copy_table(p, sql.data, target, p->plan->sent[i].data, p->plan->types[i],
                        t->ordinal ? column_index(p->plan->cols[i].data, t->parent) : -1, rows);
    buf_release(&sql);
    return rc;
}

/* Records in map the pairs of local and server ids: local[k] with r's row k when local is
 * given, else r's rows (local id, server id). */
static int store_map(struct push *p, const char *map, const int64_t *local, const PGresult *r)
{
    struct buf sql = BUF_INIT;
    buf_addf(&sql, "INSERT INTO %s VALUES (?, ?)", map);
    sqlite3_stmt *ins;
    int rc = sqlite3_prepare_v2(p->h, sql.data, -1, &ins, NULL) == SQLITE_OK
                 ? 0
                 : local_error(p, "cannot read the warehouse");
    for (int k = 0; rc == 0 && k < PQntuples(r); k++) {
        sqlite3_bind_int64(ins, 1, local ? local[k] : strtoll(PQgetvalue(r, k, 0), NULL, 10));
        sqlite3_bind_int64(ins, 2, strtoll(PQgetvalue(r, k, local ? 0 : 1), NULL, 10));
        if (sqlite3_step(ins) != SQLITE_DONE)
            rc = local_error(p, "cannot read the warehouse");
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    buf_release(&sql);
    return rc;
}

/* Takes n ids from the server's sequence seq for the local ids (ascending, so that the server
 * keeps the local order) and maps them. */
static int map_new_ids(struct push *p, const char *seq, const char *map, const int64_t *local,
                       size_t n)
{
    struct buf sql = BUF_INIT;
    buf_addf(&sql, "SELECT nextval(%s) AS id FROM generate_series(1, %zu) ORDER BY 1", seq, n);
    PGresult *r = PQexec(p->c, sql.data);
    int rc = PQresultStatus(r) == PGRES_TUPLES_OK && (size_t)PQntuples(r) == n
                 ? store_map(p, map, local, r)
                 : pg_result_error(p->c, r, WHO, "cannot reserve the server's ids", p->d);
    PQclear(r);
    buf_release(&sql);
    return rc;
}

/* Reserves server ids for the local rows whose ids sql lists (ascending) and maps them; *n:
 * how many. Sequences are not transactional: a batch rolled back leaves a gap in the server's
 * ids, nothing else. */
static int reserve_ids(struct push *p, int seq, const char *sql, const char *map, size_t *n)
{
    sqlite3_stmt *st;
    *n = 0;
    if (sqlite3_prepare_v2(p->h, sql, -1, &st, NULL) != SQLITE_OK)
        return local_error(p, "cannot read the warehouse");
    int64_t *ids = NULL;
    size_t alloc = 0;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        ALLOC_GROW(ids, *n, alloc);
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    int rc = step != SQLITE_DONE ? local_error(p, "cannot read the warehouse")
             : *n                ? map_new_ids(p, p->plan->seq[seq], map, ids, *n)
                                 : 0;
    free(ids);
    return rc;
}

/* The lock a push holds from before it compares the hashes to its end: two pushes (two hosts)
 * take turns, and the second finds the files of the first stored. */
#define PUSH_LOCK "7461626863686463"

/* The columns of list but "id", as a list. */
static void columns_but_id(const char *list, struct buf *out)
{
    for (const char *c = list; *c;) {
        const char *name = c;
        size_t n = next_column(&c);
        if (n != 2 || strncmp(name, "id", 2))
            buf_addf(out, "%s%.*s", out->len ? ", " : "", (int)n, name);
    }
}

/* Stores the rows of table i staged in stage_<table> that the server lacks (a row shared
 * between files is known by its key column: a mount by its options, a dictionary by its
 * sha256), and maps every staged one to the server's. */
static int store_shared(struct push *p, size_t i, const char *key, const char *map)
{
    const char *table = push_tables[i].table;
    struct buf cols = BUF_INIT, sql = BUF_INIT, pair = BUF_INIT;
    columns_but_id(p->plan->cols[i].data, &cols);
    buf_addf(&sql, "INSERT INTO %s (%s) SELECT %s FROM stage_%s ORDER BY id ON CONFLICT DO NOTHING",
             table, cols.data, cols.data, table);
    buf_addf(&pair, "SELECT s.id, m.id FROM stage_%s s JOIN %s m USING (%s)", table, table, key);
    PGresult *r = NULL;
    int rc = pg_exec(p->c, sql.data, WHO, "cannot store the pushed rows", p->d) ||
                     !(r = server_rows(p, pair.data, "cannot store the pushed rows"))
                 ? -1
                 : store_map(p, map, NULL, r);
    PQclear(r);
    buf_release(&cols);
    buf_release(&sql);
    buf_release(&pair);
    return rc;
}

/* Sends the dictionaries of the batch's sources that this push has not mapped yet: before the
 * sources, which point at them. */
static int push_dicts(struct push *p)
{
    if (local_exec(p, "DELETE FROM temp.fleet_new_dict; INSERT INTO temp.fleet_new_dict "
                      "SELECT DISTINCT s.raw_dict FROM temp.fleet_batch b CROSS JOIN source_file s "
                      "ON s.id = b.id WHERE s.raw_dict IS NOT NULL AND s.raw_dict NOT IN (SELECT "
                      "local FROM " MAP_DICT ")"))
        return -1;
    if (sqlite3_changes(p->h) == 0)
        return 0;
    size_t rows;
    return pg_exec(p->c, "CREATE TEMP TABLE stage_raw_dict (LIKE raw_dict) ON COMMIT DROP", WHO,
                   "cannot store the pushed rows", p->d) ||
                   send_table(p, T_DICT, "stage_raw_dict",
                              "t.id IN (SELECT id FROM temp.fleet_new_dict)", &rows) ||
                   store_shared(p, T_DICT, "sha256", MAP_DICT)
               ? -1
               : 0;
}

/* Sends the mounts of the batch's results that this push has not mapped yet, then the options
 * of those the server did not have (ON CONFLICT: it may have some). */
static int push_mounts(struct push *p)
{
    if (local_exec(
            p,
            "DELETE FROM temp.fleet_new_mount; INSERT INTO temp.fleet_new_mount "
            "SELECT DISTINCT r.mount_id FROM " MAP_RESULT " m CROSS JOIN result r ON r.id = "
            "m.local WHERE r.mount_id IS NOT NULL AND r.mount_id NOT IN (SELECT local FROM " MAP_MOUNT
            ")"))
        return -1;
    if (sqlite3_changes(p->h) == 0)
        return 0;
    size_t rows;
    return pg_exec(p->c,
                   "CREATE TEMP TABLE stage_mount (LIKE mount) ON COMMIT DROP; CREATE TEMP "
                   "TABLE stage_mount_option (LIKE mount_option) ON COMMIT DROP",
                   WHO, "cannot store the pushed rows", p->d) ||
                   send_table(p, T_MOUNT, "stage_mount",
                              "t.id IN (SELECT id FROM temp.fleet_new_mount)", &rows) ||
                   store_shared(p, T_MOUNT, "options", MAP_MOUNT) ||
                   send_table(p, T_MOUNT_OPTION, "stage_mount_option",
                              "t.mount_id IN (SELECT id FROM temp.fleet_new_mount)", &rows) ||
                   pg_exec(p->c,
                           "INSERT INTO mount_option SELECT * FROM stage_mount_option ON "
                           "CONFLICT DO NOTHING",
                           WHO, "cannot store the pushed rows", p->d)
               ? -1
               : 0;
}

/* Fills temp.fleet_batch with the batch's sources, and empties the maps of the batch before. */
static int fill_batch(struct push *p)
{
    const struct push_plan *plan = p->plan;
    if (local_exec(p, "DELETE FROM temp.fleet_batch; DELETE FROM " MAP_SOURCE
                      "; DELETE FROM " MAP_RUN "; DELETE FROM " MAP_RESULT))
        return -1;
    sqlite3_stmt *ins;
    if (sqlite3_prepare_v2(p->h, "INSERT INTO temp.fleet_batch VALUES (?)", -1, &ins, NULL) !=
        SQLITE_OK)
        return local_error(p, "cannot read the warehouse");
    int rc = 0;
    for (size_t i = p->first; rc == 0 && i < p->end; i++) {
        sqlite3_bind_int64(ins, 1, plan->sources[i]);
        if (sqlite3_step(ins) != SQLITE_DONE)
            rc = local_error(p, "cannot read the warehouse");
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    return rc;
}

/* Waits until the batches before batch k have their ids (batches reserve theirs in order, so
 * that the server's ids keep the local order); -1 when a worker failed meanwhile (it said
 * why). */
static int wait_turn(struct push_plan *plan, size_t k)
{
    pthread_mutex_lock(&plan->mutex);
    while (plan->reserved != k && !plan->failed)
        pthread_cond_wait(&plan->turn, &plan->mutex);
    int failed = plan->failed;
    pthread_mutex_unlock(&plan->mutex);
    return failed ? -1 : 0;
}

static void end_turn(struct push_plan *plan)
{
    pthread_mutex_lock(&plan->mutex);
    plan->reserved++;
    pthread_cond_broadcast(&plan->turn);
    pthread_mutex_unlock(&plan->mutex);
}

/* Stops the other workers after a failure. */
static void fail(struct push_plan *plan)
{
    pthread_mutex_lock(&plan->mutex);
    plan->failed = 1;
    pthread_cond_broadcast(&plan->turn);
    pthread_mutex_unlock(&plan->mutex);
}

/* Reserves, in its turn, the server's ids of batch k's sources, runs and results; *runs,
 * *results: how many. */
static int reserve_batch(struct push *p, size_t k, size_t *runs, size_t *results)
{
    size_t sources;
    if (wait_turn(p->plan, k) ||
        reserve_ids(p, SEQ_SOURCE, "SELECT id FROM temp.fleet_batch ORDER BY id", MAP_SOURCE,
                    &sources) ||
        reserve_ids(p, SEQ_RUN,
                    "SELECT r.id FROM " MAP_SOURCE
                    " m CROSS JOIN run r ON r.source_id = m.local ORDER BY r.id",
                    MAP_RUN, runs) ||
        reserve_ids(p, SEQ_RESULT,
                    "SELECT r.id FROM " MAP_RUN
                    " m CROSS JOIN result r ON r.run_id = m.local ORDER BY r.id",
                    MAP_RESULT, results))
        return -1;
    end_turn(p->plan);
    return 0;
}

/* Adds a committed batch to the counts, and shows them. */
static void tally(struct push_plan *plan, size_t sources, size_t runs, size_t results)
{
    pthread_mutex_lock(&plan->mutex);
    plan->counts->sources += sources;
    plan->counts->runs += runs;
    plan->counts->results += results;
    if (plan->progress && plan->progress->batch)
        plan->progress->batch(plan->progress->ctx, plan->counts->sources, plan->counts->results);
    pthread_mutex_unlock(&plan->mutex);
}

/* Sends batch k in one server transaction: its ids reserved, its rows COPYed (all new on the
 * server: the push's lock keeps other pushes out). */
static int push_batch(struct push *p, size_t k)
{
    size_t sources, runs, results, rows;
    int rc = fill_batch(p) || pg_exec(p->c, "BEGIN", WHO, "cannot start a batch", p->d) ||
             reserve_batch(p, k, &runs, &results) || push_dicts(p) ||
             send_table(p, T_SOURCE, "source_file", NULL, &sources) ||
             send_table(p, T_CHUNK, "source_chunk", NULL, &rows) || push_mounts(p);
    for (size_t i = T_RUN; rc == 0 && i < N_PUSH_TABLES; i++)
        rc = send_table(p, i, push_tables[i].table, NULL, &rows);
    if (rc == 0)
        rc = pg_exec(p->c, "COMMIT", WHO, "cannot commit a batch", p->d);
    if (rc) {
        PQclear(PQexec(p->c, "ROLLBACK"));
        return -1;
    }
    tally(p->plan, sources, runs, results);
    return 0;
}

/* The sequences that give the server's ids, as SQL literals. */
static int find_sequences(struct push *p)
{
    PGresult *r = server_rows(p,
                              "SELECT quote_literal(pg_get_serial_sequence('source_file', "
                              "'id')), quote_literal(pg_get_serial_sequence('run', 'id')), "
                              "quote_literal(pg_get_serial_sequence('result', 'id'))",
                              "cannot set up the push");
    if (!r)
        return -1;
    for (int i = 0; i < N_SEQ; i++)
        p->plan->seq[i] = xstrdup(PQgetvalue(r, 0, i));
    PQclear(r);
    return 0;
}

/* A worker's local temporary tables: the batch's sources, and the maps. */
static const char batch_tables_sql[] =
    "CREATE TEMP TABLE fleet_batch(id INTEGER PRIMARY KEY);"
    "CREATE TEMP TABLE fleet_map_source(local INTEGER PRIMARY KEY, server INTEGER NOT NULL);"
    "CREATE TEMP TABLE fleet_map_run(local INTEGER PRIMARY KEY, server INTEGER NOT NULL);"
    "CREATE TEMP TABLE fleet_map_result(local INTEGER PRIMARY KEY, server INTEGER NOT NULL);"
    "CREATE TEMP TABLE fleet_map_mount(local INTEGER PRIMARY KEY, server INTEGER NOT NULL);"
    "CREATE TEMP TABLE fleet_new_mount(id INTEGER PRIMARY KEY);"
    "CREATE TEMP TABLE fleet_map_dict(local INTEGER PRIMARY KEY, server INTEGER NOT NULL);"
    "CREATE TEMP TABLE fleet_new_dict(id INTEGER PRIMARY KEY);";

/* A worker: its own connections to the warehouse and to the server, its messages kept for the
 * push to say (in the order of the workers). */
struct push_worker {
    struct push p;
    struct diag d;
    struct said {
        enum diag_level level;
        char *line;
    } * said;
    size_t n_said, a_said;
    pthread_t thread;
};

static void keep_said(void *ctx, enum diag_level level, const char *line)
{
    struct push_worker *w = ctx;
    ALLOC_GROW(w->said, w->n_said + 1, w->a_said);
    w->said[w->n_said++] = (struct said){level, xstrdup(line)};
}

/* Where the role may (a superuser, or one granted SET on the parameter: docs/fleet.md), the
 * server's check of each row's foreign keys is left out, as pg_restore --disable-triggers and
 * logical replication leave it: a batch's rows point only at rows of its own transaction
 * (their ids are reserved in it) or at mounts read back from the server, and nothing but
 * pushes writes those tables. The check is a third of the server's work on a batch. Without
 * the privilege every row is checked. */
static int skip_key_checks(struct push *p)
{
    PGresult *r = PQexec(p->c, "SET session_replication_role = replica");
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    int rc = PQresultStatus(r) == PGRES_COMMAND_OK || (state && !strcmp(state, "42501"))
                 ? 0
                 : pg_result_error(p->c, r, WHO, "cannot set up the push", p->d);
    PQclear(r);
    return rc;
}

/* Opens a worker's connections: the warehouse read in a transaction of its own (each file is
 * read whole in one), the server's session set for the batches. */
static int open_worker(struct push *p, struct db **db)
{
    if (db_open(p->plan->path, DB_READ_ONLY, db, p->d))
        return -1;
    p->h = db_handle(*db);
    if (local_exec(p, "BEGIN") || local_exec(p, batch_tables_sql))
        return -1;
    if (sqlite3_prepare_v2(p->h,
                           "SELECT (SELECT count(*) FROM run JOIN result r ON r.run_id = run.id "
                           "WHERE run.source_id = s.id), coalesce(length(s.raw), s.size_bytes) "
                           "FROM source_file s WHERE s.id = ?",
                           -1, &p->weigh, NULL) != SQLITE_OK)
        return local_error(p, "cannot read the warehouse");
    p->c = pg_connect(p->plan->url, 0, WHO, p->d);
    /* a batch lost to a server crash after its commit returned is sent again by the next
     * push (the server lacks its sha256s), so the push need not wait for each flush */
    return p->c && pg_exec(p->c, "SET synchronous_commit = off", WHO, "cannot set up the push",
                           p->d) == 0
               ? skip_key_checks(p)
               : -1;
}

/* Adds to *results and *bytes what source id weighs: its results, and its stored bytes (those
 * of a file kept in chunks counted as its size, which they do not exceed: summing the chunks'
 * lengths cost more than the rest of the weighing). */
static int weigh(struct push *p, int64_t id, int64_t *results, int64_t *bytes)
{
    sqlite3_bind_int64(p->weigh, 1, id);
    int rc = sqlite3_step(p->weigh);
    if (rc == SQLITE_ROW) {
        *results += sqlite3_column_int64(p->weigh, 0);
        *bytes += sqlite3_column_int64(p->weigh, 1);
    }
    sqlite3_reset(p->weigh);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : local_error(p, "cannot read the warehouse");
}

/* Takes the next batch, k: the next sources, up to BATCH_FILES of them or fewer holding
 * BATCH_RESULTS results or BATCH_BYTES stored bytes. Each worker weighs the sources of the
 * batches it takes, so the weighing is not a stage of its own before any is sent. 1 when there
 * is one, 0 when none is left, -1 after a message. */
static int take_batch(struct push *p, size_t *k)
{
    struct push_plan *plan = p->plan;
    pthread_mutex_lock(&plan->mutex);
    int more = !plan->failed && plan->cut < plan->n_sources;
    if (more) {
        *k = plan->taken++;
        p->first = p->end = plan->cut;
        int64_t results = 0, bytes = 0;
        while (more > 0 && p->end < plan->n_sources && p->end - p->first < BATCH_FILES &&
               results < BATCH_RESULTS && bytes < BATCH_BYTES)
            more = weigh(p, plan->sources[p->end++], &results, &bytes) ? -1 : 1;
        plan->cut = p->end;
    }
    pthread_mutex_unlock(&plan->mutex);
    return more;
}

static void *work(void *arg)
{
    struct push_worker *w = arg;
    struct push *p = &w->p;
    struct db *db = NULL;
    int rc = open_worker(p, &db), more;
    size_t k;
    while (rc == 0 && (more = take_batch(p, &k)) != 0)
        rc = more < 0 ? -1 : push_batch(p, k);
    if (rc)
        fail(p->plan);
    sqlite3_finalize(p->weigh);
    PQfinish(p->c);
    db_close(db);
    return NULL;
}

/* 1 when a worker before worker i said line. */
static int said_before(const struct push_worker *w, size_t i, const char *line)
{
    for (size_t k = 0; k < i; k++)
        for (size_t j = 0; j < w[k].n_said; j++)
            if (!strcmp(w[k].said[j].line, line))
                return 1;
    return 0;
}

/* Sends the missing sources with up to jobs workers (no more than the batches they make at
 * least); says their messages. */
static int run_workers(struct push_plan *plan, unsigned jobs, struct diag *d)
{
    size_t batches = (plan->n_sources + BATCH_FILES - 1) / BATCH_FILES;
    size_t n = jobs < batches ? jobs : batches, started = 0;
    struct push_worker *w = xcalloc(n ? n : 1, sizeof(*w));
    for (; started < n; started++) {
        w[started].d = (struct diag){keep_said, &w[started], 0, 0, 0};
        w[started].p = (struct push){.d = &w[started].d, .plan = plan};
        int err = pthread_create(&w[started].thread, NULL, work, &w[started]);
        if (err) {
            diag_error_path(d, WHO, "cannot start a worker: %s", strerror(err));
            fail(plan);
            break;
        }
    }
    for (size_t i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    for (size_t i = 0; i < started; i++)
        for (size_t j = 0; j < w[i].n_said; j++)
            if (!said_before(w, i, w[i].said[j].line)) /* one lost server, said once */
                diag_replay(d, w[i].said[j].level, w[i].said[j].line);
    for (size_t i = 0; i < started; i++) {
        for (size_t j = 0; j < w[i].n_said; j++)
            free(w[i].said[j].line);
        free(w[i].said);
    }
    free(w);
    return plan->failed ? -1 : 0;
}

/* The push's session on the server: its turn among the pushes, its temporary table of the
 * local hashes (no key: the comparison reads it once), the sequences. */
static int setup_session(struct push *p)
{
    return pg_exec(p->c,
                   "SELECT pg_advisory_lock(" PUSH_LOCK ");"
                   "CREATE TEMP TABLE local_hash (sha256 text, id bigint)",
                   WHO, "cannot set up the push", p->d) ||
                   find_sequences(p)
               ? -1
               : 0;
}

/* Lists the local sources the server lacks, by id, ascending: every local hash is
 * copied to the server with its local id (both read from the hash's index, not from the
 * sources' rows: a push that finds little missing reads little), and the server answers with
 * the ids of those it lacks (one round trip, and no hash looked up again here). */
static int find_missing(struct push *p)
{
    size_t hashes;
    enum pg_type *types = column_types(p, "local_hash", "sha256, id");
    int rc = types ? copy_table(p, "SELECT sha256, id FROM source_file", "local_hash", "sha256, id",
                                types, -1, &hashes)
                   : -1;
    free(types);
    PGresult *r = rc ? NULL
                     : PQexec(p->c, "SELECT id FROM local_hash l WHERE NOT EXISTS (SELECT 1 "
                                    "FROM source_file s WHERE s.sha256 = l.sha256) ORDER BY id");
    if (rc == 0 && PQresultStatus(r) != PGRES_TUPLES_OK)
        rc = pg_error(p->c, WHO, "cannot compare the sources", p->d);
    if (rc == 0) {
        struct push_plan *plan = p->plan;
        plan->n_sources = (size_t)PQntuples(r);
        plan->sources = xmalloc((plan->n_sources ? plan->n_sources : 1) * sizeof(int64_t));
        for (size_t i = 0; i < plan->n_sources; i++)
            plan->sources[i] = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
    }
    PQclear(r);
    return rc;
}

/* Every local label change of a stored result, with the content key of its result (source
 * hash, job, direction, and its occurrence among the source's results of that job and
 * direction, in the order of their runs and ids: the order the server's ordinals keep) and the
 * result's current value of the field. Not the run and result ordinals: benchdb rm of some of
 * a run's results renumbers the rest locally, but not on the server; an occurrence moves only
 * when a result of the same job and direction before it in its source is removed. */
static const char local_labels_sql[] =
    "SELECT s.sha256, r.job, r.direction, (SELECT count(*) FROM run r2 JOIN result x ON x.run_id "
    "= r2.id WHERE r2.source_id = run.source_id AND x.job IS r.job AND x.direction IS "
    "r.direction AND (r2.id < run.id OR (r2.id = run.id AND x.id <= r.id))), l.id, l.field, l.old_value, l.new_value, l.changed_by, "
    "l.changed_at, CASE l.field WHEN 'host' THEN r.host WHEN 'storage_class' THEN "
    "r.storage_class WHEN 'sec' THEN r.sec ELSE (SELECT value FROM tag WHERE result_id = r.id "
    "AND key = substr(l.field, 5)) END FROM label_history l JOIN result r ON r.id = l.result_id "
    "JOIN run ON run.id = r.run_id JOIN source_file s ON s.id = run.source_id ORDER BY l.id";

/* The changes' staging table, made in the transaction that uses it (a table emptied at each
 * commit would cost a truncation at every batch's). */
#define STAGE_LABEL_SQL                                                                            \
    "CREATE TEMP TABLE stage_label (sha256 text, job text, direction text, occurrence bigint, "    \
    "seq bigint, field text, old_value text, new_value text, changed_by text, changed_at text, "   \
    "current_value text) ON COMMIT DROP"
#define STAGE_LABEL_COLS                                                                           \
    "sha256, job, direction, occurrence, seq, field, old_value, new_value, changed_by, "           \
    "changed_at, current_value"

/* On the server: the staged changes it had not stored are stored, and each (result, field)
 * they touch gets the local current value. */
static const char apply_labels_sql[] =
    "CREATE TEMP TABLE label_new (result_id bigint, field text, current_value text) ON COMMIT "
    "DROP;"
    "WITH keyed AS (SELECT r.id, s.sha256, r.job, r.direction, row_number() OVER (PARTITION BY "
    "s.id, r.job, r.direction ORDER BY run.ordinal, r.ordinal) AS occurrence FROM source_file s "
    "JOIN run ON run.source_id = s.id JOIN result r ON r.run_id = run.id WHERE s.sha256 IN "
    "(SELECT sha256 FROM stage_label)), "
    "target AS (SELECT k.id AS result_id, l.* FROM stage_label l JOIN keyed k ON k.sha256 = "
    "l.sha256 AND k.job IS NOT DISTINCT FROM l.job AND k.direction IS NOT DISTINCT FROM "
    "l.direction AND k.occurrence = l.occurrence), "
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
    enum pg_type *types = NULL;
    int rc = pg_exec(p->c, "BEGIN; " STAGE_LABEL_SQL, WHO, "cannot push the label changes", p->d) ||
             !(types = column_types(p, "stage_label", STAGE_LABEL_COLS)) ||
             copy_table(p, local_labels_sql, "stage_label", STAGE_LABEL_COLS, types, -1, &rows) ||
             (rows && pg_exec(p->c, apply_labels_sql, WHO, "cannot push the label changes", p->d));
    free(types);
    if (rc == 0 && !rows) {
        PQclear(PQexec(p->c, "ROLLBACK"));
        return 0;
    }
    PGresult *r = rc ? NULL : PQexec(p->c, "SELECT count(*) FROM label_new");
    p->plan->counts->labels = r && PQresultStatus(r) == PGRES_TUPLES_OK
                                  ? (size_t)strtoull(PQgetvalue(r, 0, 0), NULL, 10)
                                  : 0;
    PQclear(r);
    if (rc == 0 && p->plan->counts->labels)
        rc = pg_exec(p->c, set_labels_sql, WHO, "cannot apply the label changes", p->d);
    if (rc == 0)
        rc = pg_exec(p->c, "COMMIT", WHO, "cannot push the label changes", p->d);
    if (rc)
        PQclear(PQexec(p->c, "ROLLBACK"));
    return rc;
}

/* A dictionary is known on the server by its sha256 (store_shared): one whose bytes are not
 * what its sha256 says would be taken for the server's dictionary of that sha256, and the
 * sources compressed against it would no longer decode there; nor is one that is no zstd
 * dictionary of a sane size (raw_dict_fault) to be kept. The sources of such a dictionary
 * (a damaged warehouse, or one merged by an older benchdb) are left out of the push, each
 * dictionary named with the sources left out; the others are pushed. 1 when some were left out,
 * 0 when none, -1 after a message. */
static int leave_out_bad_dicts(struct push *p)
{
    struct push_plan *plan = p->plan;
    struct buf sql = BUF_INIT;
    buf_addf(&sql,
             "SELECT id, format, sha256, CASE WHEN length(bytes) <= %d THEN bytes END, "
             "length(bytes) FROM raw_dict ORDER BY id",
             RAW_DICT_MAX);
    struct bad_dict {
        int64_t id;
        char *format, why[160];
        size_t left_out;
        int64_t first;
    } *bad = NULL;
    size_t n_bad = 0, alloc = 0;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(p->h, sql.data, -1, &st, NULL) == SQLITE_OK ? SQLITE_ROW : -1;
    buf_release(&sql);
    while (rc == SQLITE_ROW && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        ALLOC_GROW(bad, n_bad + 1, alloc);
        struct bad_dict *b = &bad[n_bad];
        *b = (struct bad_dict){.id = sqlite3_column_int64(st, 0)};
        if (raw_dict_fault(sqlite3_column_blob(st, 3), (size_t)sqlite3_column_int64(st, 4),
                           (const char *)sqlite3_column_text(st, 2), b->why, sizeof(b->why)) == 0)
            continue;
        b->format = xstrdup((const char *)sqlite3_column_text(st, 1));
        n_bad++;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc != SQLITE_DONE)
        rc = local_error(p, "cannot read the warehouse");
    else if (n_bad && sqlite3_prepare_v2(p->h, "SELECT raw_dict FROM source_file WHERE id = ?", -1,
                                         &st, NULL) != SQLITE_OK)
        rc = local_error(p, "cannot read the warehouse");
    else
        rc = 0;
    size_t kept = 0;
    for (size_t i = 0; rc == 0 && n_bad && i < plan->n_sources; i++) {
        sqlite3_bind_int64(st, 1, plan->sources[i]);
        int64_t dict = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        sqlite3_reset(st);
        size_t k = 0;
        while (k < n_bad && bad[k].id != dict)
            k++;
        if (k == n_bad)
            plan->sources[kept++] = plan->sources[i];
        else if (bad[k].left_out++ == 0)
            bad[k].first = plan->sources[i];
    }
    sqlite3_finalize(st);
    if (rc == 0 && n_bad)
        plan->n_sources = kept;
    for (size_t k = 0; k < n_bad; k++) {
        if (rc == 0 && bad[k].left_out) {
            sqlite3_stmt *path = NULL;
            sqlite3_prepare_v2(p->h, "SELECT path FROM source_file WHERE id = ?", -1, &path, NULL);
            sqlite3_bind_int64(path, 1, bad[k].first);
            const char *first =
                sqlite3_step(path) == SQLITE_ROW ? (const char *)sqlite3_column_text(path, 0) : "?";
            diag_error_path(p->d, plan->path,
                            "dictionary %lld (format '%s'): %s; its %zu source%s ('%s'%s) not "
                            "pushed",
                            (long long)bad[k].id, bad[k].format, bad[k].why, bad[k].left_out,
                            bad[k].left_out == 1 ? "" : "s", first,
                            bad[k].left_out == 1 ? "" : " first");
            sqlite3_finalize(path);
            rc = 1;
        }
        free(bad[k].format);
    }
    free(bad);
    return rc;
}

/* How the rows of each table pushed are reached from their source, m.id (temp.fleet_missing m):
 * t is the table's row. */
static const char *const from_source[N_PUSH_TABLES] = {
    [T_DICT] = "source_file s ON s.id = m.id CROSS JOIN raw_dict t ON t.id = s.raw_dict",
    [T_SOURCE] = "source_file t ON t.id = m.id",
    [T_CHUNK] = "source_chunk t ON t.source_id = m.id",
    [T_MOUNT] = "run ON run.source_id = m.id CROSS JOIN result r ON r.run_id = run.id CROSS JOIN "
                "mount t ON t.id = r.mount_id",
    [T_MOUNT_OPTION] = "run ON run.source_id = m.id CROSS JOIN result r ON r.run_id = run.id "
                       "CROSS JOIN mount_option t ON t.mount_id = r.mount_id",
    [T_RUN] = "run t ON t.source_id = m.id",
    [T_RESULT] = "run ON run.source_id = m.id CROSS JOIN result t ON t.run_id = run.id",
    [T_TAG] = "run ON run.source_id = m.id CROSS JOIN result r ON r.run_id = run.id CROSS JOIN "
              "tag t ON t.result_id = r.id",
    [T_HISTOGRAM] = "run ON run.source_id = m.id CROSS JOIN result r ON r.run_id = run.id CROSS "
                    "JOIN histogram t ON t.result_id = r.id",
    [T_SERIES] = "run ON run.source_id = m.id CROSS JOIN result r ON r.run_id = run.id CROSS JOIN "
                 "series t ON t.result_id = r.id",
};

/* 1 when a value is text PostgreSQL takes: UTF-8, no NUL (or not text). */
static int pg_text_ok(sqlite3_value *v)
{
    if (sqlite3_value_type(v) == SQLITE_NULL)
        return 1;
    const char *text = (const char *)sqlite3_value_text(v);
    return text && strlen(text) == (size_t)sqlite3_value_bytes(v) && utf8_invalid(text) < 0;
}

static void sql_utf8(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    sqlite3_result_int(ctx, pg_text_ok(argv[0]));
}

struct bad_text {
    int64_t id; /* the source's */
    char *why;
};

static int by_id(const void *a, const void *b)
{
    int64_t x = ((const struct bad_text *)a)->id, y = ((const struct bad_text *)b)->id;
    return (x > y) - (x < y);
}

/* A source whose text is not UTF-8 (imported by an older benchdb, which stored any bytes, or
 * edited by hand) would make the server refuse its whole batch, at every push: each
 * such source is left out of the push, named with the first column found and its value (the
 * bytes that are not UTF-8 as \xNN), and the others pushed. 1 when some were left out, 0 when
 * none, -1 after a message. */
static int leave_out_bad_text(struct push *p)
{
    struct push_plan *plan = p->plan;
    if (!plan->n_sources)
        return 0;
    if (sqlite3_create_function(p->h, "bdb_pg_text", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                sql_utf8, NULL, NULL) != SQLITE_OK ||
        local_exec(p, "CREATE TEMP TABLE fleet_missing(id INTEGER PRIMARY KEY)"))
        return local_error(p, "cannot read the warehouse");
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(p->h, "INSERT INTO temp.fleet_missing VALUES (?)", -1, &st, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < plan->n_sources; i++) {
        sqlite3_bind_int64(st, 1, plan->sources[i]);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    struct bad_text *bad = NULL;
    size_t n_bad = 0, alloc = 0;
    for (size_t i = 0; rc == SQLITE_OK && i < N_PUSH_TABLES; i++) {
        struct buf sql = BUF_INIT, where = BUF_INIT;
        buf_adds(&sql, "SELECT m.id");
        size_t k = 0;
        for (const char *c = plan->cols[i].data; *c; k++) {
            const char *name = c;
            size_t n = next_column(&c);
            if (plan->types[i][k] != PG_TEXT)
                continue;
            buf_addf(&sql, ", t.%.*s", (int)n, name);
            buf_addf(&where, "%sNOT bdb_pg_text(t.%.*s)", where.len ? " OR " : "", (int)n, name);
        }
        buf_addf(&sql, " FROM temp.fleet_missing m CROSS JOIN %s WHERE %s", from_source[i],
                 where.data);
        if (where.len)
            rc = sqlite3_prepare_v2(p->h, sql.data, -1, &st, NULL);
        while (where.len && rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(st, 0);
            size_t b = 0;
            while (b < n_bad && bad[b].id != id)
                b++;
            if (b < n_bad)
                continue;
            int col = 1;
            while (col < sqlite3_column_count(st) && pg_text_ok(sqlite3_column_value(st, col)))
                col++;
            struct buf why = BUF_INIT, text = BUF_INIT;
            if (col < sqlite3_column_count(st) && sqlite3_column_bytes(st, col))
                buf_add(&text, sqlite3_column_blob(st, col), (size_t)sqlite3_column_bytes(st, col));
            buf_addf(&why, "%s.%s", push_tables[i].table, sqlite3_column_name(st, col));
            buf_adds(&why,
                     strlen(text.data) < text.len ? " holds a NUL byte: '" : " is not UTF-8: '");
            utf8_escape(&why, text.data);
            buf_adds(&why, "'");
            buf_release(&text);
            ALLOC_GROW(bad, n_bad + 1, alloc);
            bad[n_bad++] = (struct bad_text){id, buf_detach(&why, NULL)};
            rc = SQLITE_OK;
        }
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
        sqlite3_finalize(st);
        st = NULL;
        buf_release(&sql);
        buf_release(&where);
    }
    if (rc != SQLITE_OK)
        rc = local_error(p, "cannot read the warehouse");
    if (n_bad) /* said in the order of the sources */
        qsort(bad, n_bad, sizeof(*bad), by_id);
    sqlite3_stmt *path = NULL;
    if (rc == 0 && n_bad &&
        sqlite3_prepare_v2(p->h, "SELECT path FROM source_file WHERE id = ?", -1, &path, NULL))
        rc = local_error(p, "cannot read the warehouse");
    for (size_t b = 0; rc == 0 && b < n_bad; b++) {
        sqlite3_bind_int64(path, 1, bad[b].id);
        struct buf name = BUF_INIT;
        if (sqlite3_step(path) == SQLITE_ROW)
            utf8_escape(&name, (const char *)sqlite3_column_text(path, 0));
        sqlite3_reset(path);
        diag_error_path(p->d, plan->path, "'%s' not pushed: its %s (text must be UTF-8)", name.data,
                        bad[b].why);
        buf_release(&name);
    }
    sqlite3_finalize(path);
    size_t kept = 0;
    for (size_t i = 0; rc == 0 && n_bad && i < plan->n_sources; i++) {
        size_t b = 0;
        while (b < n_bad && bad[b].id != plan->sources[i])
            b++;
        if (b == n_bad)
            plan->sources[kept++] = plan->sources[i];
    }
    if (rc == 0 && n_bad)
        plan->n_sources = kept;
    for (size_t b = 0; b < n_bad; b++)
        free(bad[b].why);
    free(bad);
    return rc ? rc : n_bad ? 1 : 0;
}

static int push_all(struct push *p, unsigned jobs)
{
    struct push_plan *plan = p->plan;
    for (size_t i = 0; i < N_PUSH_TABLES; i++) {
        if (local_columns(p, push_tables[i].table, &plan->cols[i]))
            return -1;
        buf_addf(&plan->sent[i], "%s%s", plan->cols[i].data,
                 push_tables[i].ordinal ? ", ordinal" : "");
        if (!(plan->types[i] = column_types(p, push_tables[i].table, plan->sent[i].data)))
            return -1;
    }
    int left_out, bad_text;
    if (setup_session(p) || find_missing(p) || (left_out = leave_out_bad_dicts(p)) < 0 ||
        (bad_text = leave_out_bad_text(p)) < 0)
        return -1;
    if (plan->progress && plan->progress->start)
        plan->progress->start(plan->progress->ctx, plan->n_sources);
    /* the label changes are read after the workers' rows: a relabel made during the push is
     * not undone by the older current value of this connection's snapshot */
    return run_workers(plan, jobs, p->d) || local_exec(p, "COMMIT; BEGIN") || push_labels(p) ||
                   left_out || bad_text
               ? -1
               : 0;
}

int fleet_push(struct db *db, const char *url, unsigned jobs, const struct fleet_progress *progress,
               struct fleet_push_counts *counts, struct diag *d)
{
    memset(counts, 0, sizeof(*counts));
    struct push_plan plan = {.url = url, .counts = counts, .progress = progress};
    for (size_t i = 0; i < N_PUSH_TABLES; i++)
        plan.cols[i] = plan.sent[i] = (struct buf)BUF_INIT;
    pthread_mutex_init(&plan.mutex, NULL);
    pthread_cond_init(&plan.turn, NULL);
    struct push p = {.h = db_handle(db), .d = d, .plan = &plan};
    plan.path = sqlite3_db_filename(p.h, "main");
    p.c = pg_connect(url, 1, WHO, d);
    /* one local read transaction: the push reads one snapshot, and its many statements take
     * no lock each */
    int rc = p.c && local_exec(&p, "BEGIN") == 0 ? push_all(&p, jobs ? jobs : 1) : -1;
    if (rc == 0) {
        sqlite3_stmt *st;
        sqlite3_prepare_v2(p.h, "SELECT count(*) FROM source_file", -1, &st, NULL);
        size_t local = sqlite3_step(st) == SQLITE_ROW ? (size_t)sqlite3_column_int64(st, 0) : 0;
        sqlite3_finalize(st);
        counts->present = local - plan.n_sources;
    }
    if (!sqlite3_get_autocommit(p.h))
        sqlite3_exec(p.h, "COMMIT", NULL, NULL, NULL);
    PQfinish(p.c); /* the push's lock goes with its session */
    for (size_t i = 0; i < N_PUSH_TABLES; i++) {
        buf_release(&plan.cols[i]);
        buf_release(&plan.sent[i]);
        free(plan.types[i]);
    }
    for (int i = 0; i < N_SEQ; i++)
        free(plan.seq[i]);
    free(plan.sources);
    pthread_mutex_destroy(&plan.mutex);
    pthread_cond_destroy(&plan.turn);
    return rc;
}
