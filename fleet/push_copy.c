/* push_copy.c: the rows of a local SELECT sent to a server table in COPY's binary format
 * (pg.c writes its pieces), each value in its server column's type, read from the server's
 * catalog; the rows go in pieces as they are read. */
#include "push.h"

#include <stdlib.h>
#include <string.h>

#include "../core/array.h"
#include "../core/xalloc.h"
#include "../schema/sql.h"

static const struct {
    const char *name;
    enum pg_type type;
} pg_types[] = {
    /* in enum pg_type's order */
    {"bigint", PG_INT8}, {"integer", PG_INT4}, {"double precision", PG_FLOAT8},
    {"text", PG_TEXT},   {"bytea", PG_BYTEA},
};

enum pg_type *column_types(struct push *p, const char *table, const char *cols)
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
        while (k < ARRAY_SIZE(pg_types) && strcmp(pg_types[k].name, PQgetvalue(r, i, 1)))
            k++;
        if (k < ARRAY_SIZE(pg_types))
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

/* The rows go in pieces of COPY_PIECE bytes as they are read: a batch's stored bytes may
 * exceed what one call takes. */
enum { COPY_PIECE = 1 << 20 };

int copy_table(struct push *p, sqlite3_stmt *st, const char *table, const char *cols,
               const enum pg_type *types, int parent_col, size_t *rows)
{
    *rows = 0;
    int64_t parent = 0, ordinal = 0;
    int rc = SQLITE_OK, failed = 0;
    struct buf out = BUF_INIT, target = BUF_INIT;
    buf_addf(&target, "%s (%s)", table, cols);
    while (!failed && sql_step(st, &rc)) {
        if (!*rows && pg_copy_begin(p->c, target.data, WHO, p->d)) {
            failed = -1;
            break;
        }
        if (!(*rows)++)
            pg_copy_header(&out);
        if (parent_col >= 0) { /* the rows come grouped by parent, each group by id */
            int64_t of = sqlite3_column_int64(st, parent_col);
            ordinal = *rows > 1 && of == parent ? ordinal + 1 : 1;
            parent = of;
        }
        if (copy_row(p, st, types, ordinal, &out))
            failed = -1;
        else if (out.len >= COPY_PIECE && pg_copy_put(p->c, &out))
            failed = pg_error(p->c, WHO, "cannot send the rows", p->d);
    }
    if (!failed && rc != SQLITE_OK)
        failed = local_error(p, "cannot read the warehouse");
    if (*rows) { /* a failed copy is abandoned: the server rolls its rows back */
        pg_copy_trailer(&out);
        if (!failed && pg_copy_put(p->c, &out))
            failed = pg_error(p->c, WHO, "cannot send the rows", p->d);
        if (pg_copy_end(p->c, !failed, target.data, WHO, p->d))
            failed = -1;
    }
    buf_release(&out);
    buf_release(&target);
    return failed;
}
