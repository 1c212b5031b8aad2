/* push_rekey.c: a batch's rows given the server's ids. The ideas are schema/merge.c's, over the
 * same table graph (schema/graph.h). A file's rows that others point at (sources, runs,
 * results) get ids reserved from the server's sequences, batch after batch in the order of
 * the local ids (nextval), recorded in local maps (temp.fleet_map_<table>: local id -> server
 * id); the rows shared between files (mounts, dictionaries) are staged on the server, stored
 * where it lacks their key (a mount's options, a dictionary's sha256) and their server ids
 * read back into their maps. Every row is then read with the server's ids through the maps and
 * COPYed (push_copy.c) straight into its table. */
#include "push.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "../schema/sql.h"

/* The tables a push sends: a file's rows (but its log of label changes, push_labels.c's) and
 * the rows files share. */
static int pushed(const struct graph_table *g)
{
    return (g->role == GRAPH_FILE && !(g->flags & GRAPH_CHANGES)) || g->role == GRAPH_SHARED;
}

static struct push_table *table_of(struct push_plan *plan, const char *name)
{
    for (size_t i = 0; i < plan->n_tables; i++)
        if (!strcmp(plan->tables[i].g->name, name))
            return &plan->tables[i];
    return NULL;
}

/* Appends the batch's rows of a file's table t, aliased x: through its own map, or its
 * owner's. */
static void add_batch_rows(struct buf *sql, const struct push_table *t)
{
    const struct graph_table *owner = graph_owner(t->g);
    if (t->mapped)
        buf_addf(sql, "temp.fleet_map_%s b CROSS JOIN %s x ON x.id = b.local", t->g->name,
                 t->g->name);
    else
        buf_addf(sql, "temp.fleet_map_%s b CROSS JOIN %s x ON x.%s = b.local", owner->name,
                 t->g->name, t->g->owner);
}

/* The local SELECT of table t's rows with the server's ids: a column that holds an id is given
 * the server's through the map of the table it points at (a file's mapped table's own id
 * through its own map; a shared table's own id stays local: store_shared pairs it). A file's
 * rows are driven by the batch's map, their owner's (the rows then come grouped by owner, each
 * group in id order: the owner column's index) or their own (CROSS JOIN fixes SQLite's join
 * order: it would scan the whole table once per batch otherwise), so a batch costs what its
 * rows do; the inner joins keep only the rows whose parent is mapped: the batch's. A shared
 * table's are chosen by where. A table numbered among its owner's rows is read in that order
 * (which the owner's index gives: no sort). */
static void local_select(struct push_plan *plan, const struct push_table *t, const char *where,
                         struct buf *sql)
{
    const struct graph_table *g = t->g, *owner = graph_owner(g);
    const char *drive = g->role != GRAPH_FILE ? NULL : owner ? g->owner : "id";
    struct buf from = BUF_INIT;
    if (drive)
        buf_addf(&from, "temp.fleet_map_%s k_%s CROSS JOIN %s t ON t.%s = k_%s.local",
                 owner ? owner->name : g->name, drive, g->name, drive, drive);
    else
        buf_addf(&from, "%s t", g->name);
    char col[128];
    buf_adds(sql, "SELECT ");
    for (const char *c = t->cols.data; *c;) {
        const char *name = c;
        size_t n = next_column(&c);
        snprintf(col, sizeof(col), "%.*s", (int)n, name);
        const struct graph_fk *fk = graph_fk(g, col);
        const struct push_table *parent = !strcmp(col, "id") && g->role == GRAPH_FILE ? t
                                          : fk ? table_of(plan, fk->parent)
                                               : NULL;
        if (parent) {
            /* a key that is not the row's owner, or a shared row's, may be NULL */
            int left =
                parent->g->role == GRAPH_SHARED || (fk && (!g->owner || strcmp(col, g->owner)));
            buf_addf(sql, "k_%s.server", col);
            if (!drive || strcmp(col, drive))
                buf_addf(&from, " %s temp.fleet_map_%s k_%s ON k_%s.local = t.%s",
                         left ? "LEFT JOIN" : "JOIN", parent->g->name, col, col, col);
        } else
            buf_addf(sql, "t.%s", col);
        buf_adds(sql, *c ? ", " : "");
    }
    buf_addf(sql, " FROM %s", from.data);
    if (where)
        buf_addf(sql, " WHERE %s", where);
    if (g->flags & GRAPH_ORDINAL)
        buf_addf(sql, " ORDER BY k_%s.local, t.id", drive);
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

/* The columns of a local table, as a list; a file's id that no row points at is left out (the
 * server gives it). 0, or -1 after a message. */
static int local_columns(struct push *p, struct push_table *t)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *st =
        sql_cached(p->db, &rc, "SELECT name FROM pragma_table_info(:table) ORDER BY cid");
    sql_bind_text(st, &rc, ":table", t->g->name);
    while (sql_step(st, &rc)) {
        const char *name = sql_text(st, 0);
        if (t->g->role != GRAPH_FILE || t->mapped || strcmp(name, "id"))
            buf_addf(&t->cols, "%s%s", t->cols.len ? ", " : "", name);
    }
    int failed = rc != SQLITE_OK ? local_error(p, "cannot read the warehouse's tables") : 0;
    sql_release(st);
    return failed;
}

/* The sequences that give the server's ids of the file's mapped tables, as SQL literals. */
static int find_sequences(struct push *p)
{
    struct push_plan *plan = p->plan;
    struct buf sql = BUF_INIT;
    for (size_t i = 0; i < plan->n_tables; i++)
        if (plan->tables[i].g->role == GRAPH_FILE && plan->tables[i].mapped)
            buf_addf(&sql, "%squote_literal(pg_get_serial_sequence('%s', 'id'))",
                     sql.len ? ", " : "SELECT ", plan->tables[i].g->name);
    int any = sql.len > 0;
    PGresult *r = any ? server_rows(p, sql.data, "cannot set up the push") : NULL;
    buf_release(&sql);
    if (!r)
        return any ? -1 : 0;
    for (size_t i = 0, k = 0; i < plan->n_tables; i++)
        if (plan->tables[i].g->role == GRAPH_FILE && plan->tables[i].mapped)
            plan->tables[i].seq = xstrdup(PQgetvalue(r, 0, (int)k++));
    PQclear(r);
    return 0;
}

/* The SQL of table t's batches (push.h's struct push_table). */
static void plan_table(struct push_plan *plan, struct push_table *t)
{
    const struct graph_table *g = t->g, *owner = graph_owner(g);
    if (t->mapped)
        buf_addf(&t->map, "INSERT INTO temp.fleet_map_%s VALUES (:local, :server)", g->name);
    if (t->mapped && g->role == GRAPH_FILE && !owner)
        buf_adds(&t->reserve, "SELECT id FROM temp.fleet_batch ORDER BY id");
    else if (t->mapped && g->role == GRAPH_FILE)
        buf_addf(&t->reserve,
                 "SELECT x.id FROM temp.fleet_map_%s m CROSS JOIN %s x ON x.%s = m.local "
                 "ORDER BY x.id",
                 owner->name, g->name, g->owner);
    struct buf where = BUF_INIT;
    if (g->role == GRAPH_SHARED && owner)
        buf_addf(&where, "t.%s IN (SELECT id FROM temp.fleet_new_%s)", g->owner, owner->name);
    else if (g->role == GRAPH_SHARED) {
        buf_addf(&where, "t.id IN (SELECT id FROM temp.fleet_new_%s)", g->name);
        /* the rows the batch's rows point at: each file's table that points at g */
        buf_addf(&t->fresh, "DELETE FROM temp.fleet_new_%s; INSERT INTO temp.fleet_new_%s ",
                 g->name, g->name);
        int first = 1;
        for (size_t i = 0; i < plan->n_tables; i++) {
            const struct push_table *u = &plan->tables[i];
            for (size_t k = 0; u->g->role == GRAPH_FILE && k < GRAPH_MAX_FK && u->g->fk[k].column;
                 k++) {
                const char *c = u->g->fk[k].column;
                if (strcmp(u->g->fk[k].parent, g->name))
                    continue;
                buf_addf(&t->fresh, "%sSELECT DISTINCT x.%s FROM ", first ? "" : " UNION ", c);
                add_batch_rows(&t->fresh, u);
                buf_addf(&t->fresh,
                         " WHERE x.%s IS NOT NULL AND x.%s NOT IN (SELECT local FROM "
                         "temp.fleet_map_%s)",
                         c, c, g->name);
                first = 0;
            }
        }
        if (first) /* nothing points at it */
            buf_adds(&t->fresh, "SELECT NULL WHERE 0");
    }
    local_select(plan, t, where.len ? where.data : NULL, &t->select);
    buf_release(&where);
}

int rekey_plan(struct push *p)
{
    struct push_plan *plan = p->plan;
    plan->tables = xcalloc(graph_n_tables, sizeof(*plan->tables));
    for (size_t i = 0; i < graph_n_tables; i++) {
        if (!pushed(&graph_tables[i]))
            continue;
        struct push_table *t = &plan->tables[plan->n_tables++];
        t->g = &graph_tables[i];
        t->cols = t->sent = t->reserve = t->map = t->fresh = t->select = (struct buf)BUF_INIT;
    }
    for (size_t i = 0; i < plan->n_tables; i++) /* a table pushed rows point at */
        for (size_t k = 0; k < GRAPH_MAX_FK && plan->tables[i].g->fk[k].column; k++) {
            struct push_table *parent = table_of(plan, plan->tables[i].g->fk[k].parent);
            if (parent)
                parent->mapped = 1;
        }
    buf_adds(&plan->batch_tables, "CREATE TEMP TABLE fleet_batch(id INTEGER PRIMARY KEY);");
    buf_adds(&plan->clear_batch, "DELETE FROM temp.fleet_batch;");
    for (size_t i = 0; i < plan->n_tables; i++) {
        struct push_table *t = &plan->tables[i];
        if (local_columns(p, t))
            return -1;
        buf_addf(&t->sent, "%s%s", t->cols.data, t->g->flags & GRAPH_ORDINAL ? ", ordinal" : "");
        if (!(t->types = column_types(p, t->g->name, t->sent.data)))
            return -1;
        plan_table(plan, t);
        if (t->mapped)
            buf_addf(&plan->batch_tables,
                     "CREATE TEMP TABLE fleet_map_%s(local INTEGER PRIMARY KEY, server INTEGER "
                     "NOT NULL);",
                     t->g->name);
        if (t->g->role == GRAPH_SHARED && !t->g->owner)
            buf_addf(&plan->batch_tables, "CREATE TEMP TABLE fleet_new_%s(id INTEGER PRIMARY KEY);",
                     t->g->name);
        if (t->mapped && t->g->role == GRAPH_FILE)
            buf_addf(&plan->clear_batch, "DELETE FROM temp.fleet_map_%s;", t->g->name);
    }
    return find_sequences(p);
}

void rekey_plan_release(struct push_plan *plan)
{
    for (size_t i = 0; i < plan->n_tables; i++) {
        struct push_table *t = &plan->tables[i];
        buf_release(&t->cols);
        buf_release(&t->sent);
        free(t->types);
        free(t->seq);
        buf_release(&t->reserve);
        buf_release(&t->map);
        buf_release(&t->fresh);
        buf_release(&t->select);
    }
    free(plan->tables);
    buf_release(&plan->batch_tables);
    buf_release(&plan->clear_batch);
}

/* Records in t's map the pairs of local and server ids: local[k] with r's row k when local is
 * given, else r's rows (local id, server id). */
static int store_map(struct push *p, const struct push_table *t, const int64_t *local,
                     const PGresult *r)
{
    int rc = SQLITE_OK;
    sqlite3_stmt *ins = sql_cached(p->db, &rc, t->map.data);
    for (int k = 0; rc == SQLITE_OK && k < PQntuples(r); k++) {
        sql_bind_int(ins, &rc, ":local", local ? local[k] : strtoll(PQgetvalue(r, k, 0), NULL, 10));
        sql_bind_int(ins, &rc, ":server", strtoll(PQgetvalue(r, k, local ? 0 : 1), NULL, 10));
        sql_step_done(ins, &rc);
    }
    return rc == SQLITE_OK ? 0 : local_error(p, "cannot read the warehouse");
}

/* Takes n ids from t's server sequence for the local ids (ascending, so that the server keeps
 * the local order) and maps them. */
static int map_new_ids(struct push *p, const struct push_table *t, const int64_t *local, size_t n)
{
    struct buf sql = BUF_INIT;
    buf_addf(&sql, "SELECT nextval(%s) AS id FROM generate_series(1, %zu) ORDER BY 1", t->seq, n);
    PGresult *r = PQexec(p->c, sql.data);
    int rc = PQresultStatus(r) == PGRES_TUPLES_OK && (size_t)PQntuples(r) == n
                 ? store_map(p, t, local, r)
                 : pg_result_error(p->c, r, WHO, "cannot reserve the server's ids", p->d);
    PQclear(r);
    buf_release(&sql);
    return rc;
}

/* Reserves server ids for the batch's rows of t (its reserve SQL lists their local ids,
 * ascending) and maps them; *n: how many. Sequences are not transactional: a batch rolled back
 * leaves a gap in the server's ids, nothing else. */
static int reserve_ids(struct push *p, const struct push_table *t, size_t *n)
{
    int rc = SQLITE_OK;
    *n = 0;
    sqlite3_stmt *st = sql_cached(p->db, &rc, t->reserve.data);
    int64_t *ids = NULL;
    size_t alloc = 0;
    while (sql_step(st, &rc)) {
        ALLOC_GROW(ids, *n, alloc);
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    }
    int failed = rc != SQLITE_OK ? local_error(p, "cannot read the warehouse")
                 : *n            ? map_new_ids(p, t, ids, *n)
                                 : 0;
    sql_release(st);
    free(ids);
    return failed;
}

int rekey_reserve(struct push *p, size_t *reserved)
{
    const struct push_plan *plan = p->plan;
    for (size_t i = 0; i < plan->n_tables; i++) {
        reserved[i] = 0;
        if (plan->tables[i].g->role == GRAPH_FILE && plan->tables[i].mapped &&
            reserve_ids(p, &plan->tables[i], &reserved[i]))
            return -1;
    }
    return 0;
}

/* COPYs the batch's rows of t into target on the server (the table, or its staging table),
 * with the server's ids. */
static int send_table(struct push *p, const struct push_table *t, const char *target)
{
    int rc = SQLITE_OK;
    size_t rows;
    sqlite3_stmt *st = sql_cached(p->db, &rc, t->select.data);
    int failed =
        rc != SQLITE_OK
            ? local_error(p, "cannot read the warehouse")
            : copy_table(p, st, target, t->sent.data, t->types,
                         t->g->flags & GRAPH_ORDINAL ? column_index(t->cols.data, t->g->owner) : -1,
                         &rows);
    sql_release(st);
    return failed;
}

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

/* Creates the staging table of t on the server, for this batch's transaction. */
static int stage(struct push *p, const struct push_table *t)
{
    struct buf sql = BUF_INIT;
    buf_addf(&sql, "CREATE TEMP TABLE stage_%s (LIKE %s) ON COMMIT DROP", t->g->name, t->g->name);
    int rc = pg_exec(p->c, sql.data, WHO, "cannot store the pushed rows", p->d);
    buf_release(&sql);
    return rc;
}

/* Stores the rows of shared table t staged in stage_<table> that the server lacks (a row is
 * known by its key: a mount by its options, a dictionary by its sha256), and maps every staged
 * one to the server's. */
static int store_shared(struct push *p, const struct push_table *t)
{
    const char *table = t->g->name;
    struct buf cols = BUF_INIT, sql = BUF_INIT, pair = BUF_INIT;
    columns_but_id(t->cols.data, &cols);
    buf_addf(&sql, "INSERT INTO %s (%s) SELECT %s FROM stage_%s ORDER BY id ON CONFLICT DO NOTHING",
             table, cols.data, cols.data, table);
    buf_addf(&pair, "SELECT s.id, m.id FROM stage_%s s JOIN %s m USING (%s)", table, table,
             t->g->key);
    PGresult *r = NULL;
    int rc = pg_exec(p->c, sql.data, WHO, "cannot store the pushed rows", p->d) ||
                     !(r = server_rows(p, pair.data, "cannot store the pushed rows"))
                 ? -1
                 : store_map(p, t, NULL, r);
    PQclear(r);
    buf_release(&cols);
    buf_release(&sql);
    buf_release(&pair);
    return rc;
}

/* Sends the rows of shared table t (tables[i]) that the batch's rows point at and this push has
 * not mapped yet (before the rows that point at them), or with an owner, those that hang off
 * its owner's rows sent with this batch, stored where the server lacks them (ON CONFLICT: it
 * may have some). */
static int push_shared(struct push *p, size_t i)
{
    const struct push_table *t = &p->plan->tables[i];
    const struct graph_table *owner = graph_owner(t->g);
    if (owner) {
        p->news[i] = p->news[table_of(p->plan, owner->name) - p->plan->tables];
    } else {
        if (local_exec(p, t->fresh.data))
            return -1;
        p->news[i] = sqlite3_changes(p->h) > 0;
    }
    if (!p->news[i])
        return 0;
    struct buf target = BUF_INIT, store = BUF_INIT;
    buf_addf(&target, "stage_%s", t->g->name);
    buf_addf(&store, "INSERT INTO %s SELECT * FROM stage_%s ON CONFLICT DO NOTHING", t->g->name,
             t->g->name);
    int rc = stage(p, t) || send_table(p, t, target.data) ||
                     (owner ? pg_exec(p->c, store.data, WHO, "cannot store the pushed rows", p->d)
                            : store_shared(p, t))
                 ? -1
                 : 0;
    buf_release(&target);
    buf_release(&store);
    return rc;
}

int rekey_send(struct push *p)
{
    for (size_t i = 0; i < p->plan->n_tables; i++) {
        const struct push_table *t = &p->plan->tables[i];
        if (t->g->role == GRAPH_SHARED ? push_shared(p, i) : send_table(p, t, t->g->name))
            return -1;
    }
    return 0;
}
