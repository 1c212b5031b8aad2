/* push_check.c: the sources a push leaves out because the server would refuse them, or would
 * take them wrongly: those compressed against a dictionary that is not what its sha256 says,
 * and those with text that is not UTF-8. Each is named; the others are pushed. */
#include "push.h"

#include <stdlib.h>
#include <string.h>

#include "../core/utf8.h"
#include "../core/xalloc.h"
#include "../schema/sql.h"

static const char path_sql[] = "SELECT path FROM source_file WHERE id = :id";

struct bad_dict {
    int64_t id;
    char *format, why[160];
    size_t left_out;
    int64_t first;
};

/* The dictionaries of raw_dict that are no zstd dictionary of a sane size, or not what their
 * sha256 says, into *bad; 0, or -1 after a message. */
static int find_bad_dicts(struct push *p, struct bad_dict **bad, size_t *n_bad)
{
    size_t alloc = 0;
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_prepare(p->h, &rc,
                                   "SELECT id, format, sha256, CASE WHEN length(bytes) <= :max "
                                   "THEN bytes END, length(bytes) FROM raw_dict ORDER BY id");
    sql_bind_int(st, &rc, ":max", RAW_DICT_MAX);
    while (sql_step(st, &rc)) {
        ALLOC_GROW(*bad, *n_bad + 1, alloc);
        struct bad_dict *b = &(*bad)[*n_bad];
        *b = (struct bad_dict){.id = sqlite3_column_int64(st, 0)};
        if (raw_dict_fault(sqlite3_column_blob(st, 3), (size_t)sqlite3_column_int64(st, 4),
                           sql_text(st, 2), b->why, sizeof(b->why)) == 0)
            continue;
        b->format = xstrdup(sql_text(st, 1));
        (*n_bad)++;
    }
    int failed = rc != SQLITE_OK ? local_error(p, "cannot read the warehouse") : 0;
    sqlite3_finalize(st);
    return failed;
}

/* A dictionary is known on the server by its sha256 (push_rekey.c's store_shared): one whose
 * bytes are not what its sha256 says would be taken for the server's dictionary of that sha256,
 * and the sources compressed against it would no longer decode there; nor is one that is no
 * zstd dictionary of a sane size (raw_dict_fault) to be kept. The sources of such a dictionary
 * (a damaged warehouse, or one merged by an older benchdb) are left out of the push, each
 * dictionary named with the sources left out; the others are pushed. */
int leave_out_bad_dicts(struct push *p)
{
    struct push_plan *plan = p->plan;
    struct bad_dict *bad = NULL;
    size_t n_bad = 0;
    int rc = find_bad_dicts(p, &bad, &n_bad);
    int sql_rc = SQLITE_OK;
    sqlite3_stmt *st =
        n_bad && !rc ? sql_cached(p->db, &sql_rc, "SELECT raw_dict FROM source_file WHERE id = :id")
                     : NULL;
    size_t kept = 0;
    for (size_t i = 0; st && sql_rc == SQLITE_OK && i < plan->n_sources; i++) {
        sql_bind_int(st, &sql_rc, ":id", plan->sources[i]);
        int64_t dict = sql_step(st, &sql_rc) ? sqlite3_column_int64(st, 0) : 0;
        sql_release(st);
        struct bad_dict *b = NULL;
        for (size_t k = 0; k < n_bad && !b; k++)
            b = bad[k].id == dict ? &bad[k] : NULL;
        if (!b)
            plan->sources[kept++] = plan->sources[i];
        else if (b->left_out++ == 0)
            b->first = plan->sources[i];
    }
    if (sql_rc != SQLITE_OK)
        rc = local_error(p, "cannot read the warehouse");
    else if (st)
        plan->n_sources = kept;
    for (size_t k = 0; k < n_bad; k++) {
        if (rc == 0 && bad[k].left_out) {
            sqlite3_stmt *path = sql_cached(p->db, &sql_rc, path_sql);
            sql_bind_int(path, &sql_rc, ":id", bad[k].first);
            const char *first = sql_step(path, &sql_rc) ? sql_text(path, 0) : "?";
            diag_error_path(p->d, plan->path,
                            "dictionary %lld (format '%s'): %s; its %zu source%s ('%s'%s) not "
                            "pushed",
                            (long long)bad[k].id, bad[k].format, bad[k].why, bad[k].left_out,
                            bad[k].left_out == 1 ? "" : "s", first,
                            bad[k].left_out == 1 ? "" : " first");
            sql_release(path);
            rc = 1;
        }
        free(bad[k].format);
    }
    free(bad);
    return rc;
}

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

/* Appends the joins that reach t's rows, as alias, from a source m.id (temp.fleet_missing m)
 * along the k-th way there is (a shared row is reached through each file's table that points
 * at it); 0 when there is no k-th. *depth numbers the aliases of the tables on the way. */
static int add_reach(struct buf *from, const struct push_plan *plan, const struct graph_table *t,
                     size_t k, const char *alias, int *depth)
{
    const struct graph_table *owner = graph_owner(t);
    if (t->role == GRAPH_FILE && !owner) {
        if (k == 0)
            buf_addf(from, "%s %s ON %s.id = m.id", t->name, alias, alias);
        return k == 0;
    }
    char up[16];
    snprintf(up, sizeof(up), "j%d", ++*depth);
    if (owner) {
        if (!add_reach(from, plan, owner, k, up, depth))
            return 0;
        buf_addf(from, " CROSS JOIN %s %s ON %s.%s = %s.id", t->name, alias, alias, t->owner, up);
        return 1;
    }
    for (size_t i = 0; i < plan->n_tables; i++) {
        const struct graph_table *u = plan->tables[i].g;
        for (size_t f = 0; u->role == GRAPH_FILE && f < GRAPH_MAX_FK && u->fk[f].column; f++) {
            if (strcmp(u->fk[f].parent, t->name) || k--)
                continue;
            add_reach(from, plan, u, 0, up, depth);
            buf_addf(from, " CROSS JOIN %s %s ON %s.id = %s.%s", t->name, alias, alias, up,
                     u->fk[f].column);
            return 1;
        }
    }
    return 0;
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

static int has_bad_text(const struct bad_text *bad, size_t n, int64_t id)
{
    for (size_t b = 0; b < n; b++)
        if (bad[b].id == id)
            return 1;
    return 0;
}

/* Appends to *bad the sources among temp.fleet_missing with text that is not UTF-8 in table t's
 * rows reached along from (the first column found, and its value); 0, or -1 after a message. */
static int find_bad_text(struct push *p, const struct push_table *t, const char *from,
                         struct bad_text **bad, size_t *n_bad, size_t *alloc)
{
    struct buf sql = BUF_INIT, where = BUF_INIT;
    buf_adds(&sql, "SELECT m.id");
    size_t k = 0;
    for (const char *c = t->cols.data; *c; k++) {
        const char *name = c;
        size_t n = next_column(&c);
        if (t->types[k] != PG_TEXT)
            continue;
        buf_addf(&sql, ", t.%.*s", (int)n, name);
        buf_addf(&where, "%sNOT bdb_pg_text(t.%.*s)", where.len ? " OR " : "", (int)n, name);
    }
    buf_addf(&sql, " FROM temp.fleet_missing m CROSS JOIN %s WHERE %s", from, where.data);
    int rc = SQLITE_OK;
    sqlite3_stmt *st = where.len ? sql_prepare(p->h, &rc, sql.data) : NULL;
    while (st && sql_step(st, &rc)) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (has_bad_text(*bad, *n_bad, id))
            continue;
        int col = 1;
        while (col < sqlite3_column_count(st) && pg_text_ok(sqlite3_column_value(st, col)))
            col++;
        struct buf why = BUF_INIT, text = BUF_INIT;
        if (col < sqlite3_column_count(st) && sqlite3_column_bytes(st, col))
            buf_add(&text, sqlite3_column_blob(st, col), (size_t)sqlite3_column_bytes(st, col));
        buf_addf(&why, "%s.%s", t->g->name, sqlite3_column_name(st, col));
        buf_adds(&why, strlen(text.data) < text.len ? " holds a NUL byte: '" : " is not UTF-8: '");
        utf8_escape(&why, text.data);
        buf_adds(&why, "'");
        buf_release(&text);
        ALLOC_GROW(*bad, *n_bad + 1, *alloc);
        (*bad)[(*n_bad)++] = (struct bad_text){id, buf_detach(&why, NULL)};
    }
    int failed = rc != SQLITE_OK ? local_error(p, "cannot read the warehouse") : 0;
    sqlite3_finalize(st);
    buf_release(&sql);
    buf_release(&where);
    return failed;
}

/* A source whose text is not UTF-8 (imported by an older benchdb, which stored any bytes, or
 * edited by hand) would make the server refuse its whole batch, at every push: each such
 * source is left out of the push, named with the first column found and its value (the bytes
 * that are not UTF-8 as \xNN), and the others pushed. */
int leave_out_bad_text(struct push *p)
{
    struct push_plan *plan = p->plan;
    if (!plan->n_sources)
        return 0;
    /* no toolkit call makes a function: SQLite's own, on the handle */
    if (sqlite3_create_function(p->h, "bdb_pg_text", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                sql_utf8, NULL, NULL) != SQLITE_OK)
        return local_error(p, "cannot read the warehouse");
    if (local_exec(p, "CREATE TEMP TABLE fleet_missing(id INTEGER PRIMARY KEY)"))
        return -1;
    int rc = SQLITE_OK;
    sqlite3_stmt *st = sql_cached(p->db, &rc, "INSERT INTO temp.fleet_missing VALUES (:id)");
    for (size_t i = 0; rc == SQLITE_OK && i < plan->n_sources; i++) {
        sql_bind_int(st, &rc, ":id", plan->sources[i]);
        sql_step_done(st, &rc);
    }
    int failed = rc != SQLITE_OK ? local_error(p, "cannot read the warehouse") : 0;
    struct bad_text *bad = NULL;
    size_t n_bad = 0, alloc = 0;
    for (size_t i = 0; !failed && i < plan->n_tables; i++) {
        for (size_t k = 0; !failed; k++) {
            struct buf from = BUF_INIT;
            int depth = 0;
            int reached = add_reach(&from, plan, plan->tables[i].g, k, "t", &depth);
            if (reached)
                failed = find_bad_text(p, &plan->tables[i], from.data, &bad, &n_bad, &alloc);
            buf_release(&from);
            if (!reached)
                break;
        }
    }
    if (n_bad) /* said in the order of the sources */
        qsort(bad, n_bad, sizeof(*bad), by_id);
    for (size_t b = 0; !failed && b < n_bad; b++) {
        sqlite3_stmt *path = sql_cached(p->db, &rc, path_sql);
        sql_bind_int(path, &rc, ":id", bad[b].id);
        struct buf name = BUF_INIT;
        if (sql_step(path, &rc))
            utf8_escape(&name, sql_text(path, 0));
        if (rc != SQLITE_OK)
            failed = local_error(p, "cannot read the warehouse");
        sql_release(path);
        if (!failed)
            diag_error_path(p->d, plan->path, "'%s' not pushed: its %s (text must be UTF-8)",
                            name.data, bad[b].why);
        buf_release(&name);
    }
    size_t kept = 0;
    for (size_t i = 0; !failed && n_bad && i < plan->n_sources; i++)
        if (!has_bad_text(bad, n_bad, plan->sources[i]))
            plan->sources[kept++] = plan->sources[i];
    if (!failed && n_bad)
        plan->n_sources = kept;
    for (size_t b = 0; b < n_bad; b++)
        free(bad[b].why);
    free(bad);
    return failed ? failed : n_bad ? 1 : 0;
}
