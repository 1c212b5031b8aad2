/* pg.c: connections to the fleet's server, its errors, COPY, and the schema migrations of
 * schema/pg/ compiled into the binary, recorded in benchdb_meta's schema_version. */
#include "fleet_private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/scan.h"

#define EMBED(ident, name)                                                                         \
    extern const unsigned char ident[];                                                            \
    extern const size_t ident##_len;
#include "pg_migrations.h"
#undef EMBED

static const struct pg_migration {
    const unsigned char *sql;
    const char *name;
} migrations[] = {
#define EMBED(ident, name) {ident, name},
#include "pg_migrations.h"
#undef EMBED
};
#define N_MIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

/* Any number: the advisory lock that lets one client at a time migrate. */
#define MIGRATE_LOCK "7461626863686462"

int fleet_is_url(const char *name)
{
    return !strncmp(name, "postgresql://", 13) || !strncmp(name, "postgres://", 11);
}

void pg_message(PGconn *c, struct buf *out)
{
    const char *m = PQerrorMessage(c);
    size_t start = out->len;
    if (!strncmp(m, "ERROR:  ", 8))
        m += 8; /* the severity: ours is "error" already */
    for (; *m; m++) {
        if (*m == '\n' || *m == '\t') {
            if (out->len > start && out->data[out->len - 1] != ' ')
                buf_adds(out, m[1] && *m == '\n' ? "; " : " ");
        } else
            buf_addc(out, *m);
    }
    while (out->len > start && (out->data[out->len - 1] == ' ' || out->data[out->len - 1] == ';'))
        out->data[--out->len] = '\0';
}

int pg_error(PGconn *c, const char *who, const char *what, struct diag *d)
{
    struct buf m = BUF_INIT;
    pg_message(c, &m);
    diag_error_path(d, who, "%s: %s", what, m.data);
    buf_release(&m);
    return -1;
}

int pg_result_error(PGconn *c, const PGresult *r, const char *who, const char *what, struct diag *d)
{
    const char *primary = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (!primary)
        return pg_error(c, who, what, d);
    diag_error_path(d, who, "%s: %s", what, primary);
    return -1;
}

int pg_exec(PGconn *c, const char *sql, const char *who, const char *what, struct diag *d)
{
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok)
        pg_result_error(c, r, who, what, d);
    PQclear(r);
    return ok ? 0 : -1;
}

/* Appends v's low size bytes, most significant first (network order). */
static void put_be(struct buf *out, uint64_t v, int size)
{
    unsigned char b[8];
    for (int i = size - 1; i >= 0; i--, v >>= 8)
        b[i] = (unsigned char)v;
    buf_add(out, b, (size_t)size);
}

void pg_copy_header(struct buf *out)
{
    buf_add(out, "PGCOPY\n\377\r\n\0", 11);
    put_be(out, 0, 4); /* flags: no OIDs */
    put_be(out, 0, 4); /* no header extension */
}

void pg_copy_tuple(struct buf *out, int fields)
{
    put_be(out, (uint64_t)fields, 2);
}

void pg_copy_null(struct buf *out)
{
    put_be(out, UINT32_MAX, 4); /* length -1 */
}

void pg_copy_bytes(struct buf *out, const void *data, size_t n)
{
    put_be(out, n, 4);
    if (n) /* an empty blob may have no pointer */
        buf_add(out, data, n);
}

void pg_copy_int(struct buf *out, int64_t v, int size)
{
    put_be(out, (uint64_t)size, 4);
    put_be(out, (uint64_t)v, size); /* two's complement, as the server reads it */
}

void pg_copy_float8(struct buf *out, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits)); /* IEEE 754, as float8send sends it */
    put_be(out, sizeof(bits), 4);
    put_be(out, bits, 8);
}

void pg_copy_trailer(struct buf *out)
{
    put_be(out, UINT16_MAX, 2); /* a field count of -1 */
}

int pg_copy_begin(PGconn *c, const char *target, const char *who, struct diag *d)
{
    struct buf sql = BUF_INIT;
    buf_addf(&sql, "COPY %s FROM STDIN (FORMAT binary)", target);
    PGresult *r = PQexec(c, sql.data);
    int ok = PQresultStatus(r) == PGRES_COPY_IN;
    if (!ok)
        pg_result_error(c, r, who, sql.data, d);
    PQclear(r);
    buf_release(&sql);
    return ok ? 0 : -1;
}

int pg_copy_put(PGconn *c, struct buf *data)
{
    int ok = !data->len || PQputCopyData(c, data->data, (int)data->len) == 1;
    buf_reset(data);
    return ok ? 0 : -1;
}

int pg_copy_end(PGconn *c, int ok, const char *target, const char *who, struct diag *d)
{
    if (PQputCopyEnd(c, ok ? NULL : "benchdb stopped the copy") != 1)
        ok = 0;
    PGresult *r = PQgetResult(c);
    if (ok && PQresultStatus(r) != PGRES_COMMAND_OK) {
        struct buf what = BUF_INIT;
        buf_addf(&what, "COPY %s", target);
        pg_result_error(c, r, who, what.data, d);
        buf_release(&what);
        ok = 0;
    }
    PQclear(r);
    while ((r = PQgetResult(c)))
        PQclear(r);
    return ok ? 0 : -1;
}

int pg_query_int(PGconn *c, const char *sql, int64_t *v)
{
    PGresult *r = PQexec(c, sql);
    const char *p =
        PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0)
            ? PQgetvalue(r, 0, 0)
            : "";
    int ok = scan_int64(&p, v) && !*p;
    PQclear(r);
    return ok ? 0 : -1;
}

/* The server's schema version: 0 for a database with no tables, -1 after a message when it
 * holds tables of its own but no benchdb_meta. */
static int server_version(PGconn *c, const char *who, struct diag *d)
{
    int64_t meta, tables, v = 0;
    if (pg_query_int(c, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()",
                     &tables) ||
        pg_query_int(c, "SELECT (to_regclass('benchdb_meta') IS NOT NULL)::int", &meta) ||
        (meta && pg_query_int(c,
                              "SELECT coalesce(max(value::int), 0) FROM benchdb_meta "
                              "WHERE key = 'schema_version'",
                              &v)))
        return pg_error(c, who, "cannot read the warehouse's schema version", d);
    if (!meta && tables > 0)
        return diag_error_path(d, who,
                               "the database holds tables but no benchdb warehouse (no table "
                               "benchdb_meta)");
    return (int)v;
}

/* Applies the migrations after version in one transaction, under a lock that makes a second
 * client wait and then find them applied. */
static int migrate(PGconn *c, const char *who, struct diag *d)
{
    if (pg_exec(c, "BEGIN; SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ")", who,
                "cannot migrate the warehouse", d))
        return -1;
    int version = server_version(c, who, d);
    for (int i = version; version >= 0 && i < N_MIGRATIONS; i++) {
        struct buf what = BUF_INIT, record = BUF_INIT;
        buf_addf(&what, "cannot apply schema migration 'pg/%s'", migrations[i].name);
        buf_addf(&record,
                 "INSERT INTO benchdb_meta VALUES ('schema_version', '%d') ON CONFLICT (key) "
                 "DO UPDATE SET value = excluded.value",
                 i + 1);
        int rc = pg_exec(c, (const char *)migrations[i].sql, who, what.data, d) ||
                 pg_exec(c, record.data, who, what.data, d);
        buf_release(&what);
        buf_release(&record);
        if (rc)
            version = -1;
    }
    if (version < 0) {
        PQclear(PQexec(c, "ROLLBACK"));
        return -1;
    }
    return pg_exec(c, "COMMIT", who, "cannot migrate the warehouse", d);
}

/* Checks the server's schema, migrating it when asked; 0 or -1 after a message. */
static int check_schema(PGconn *c, int may_migrate, const char *who, struct diag *d)
{
    int version = server_version(c, who, d);
    if (version < 0)
        return -1;
    if (version > N_MIGRATIONS)
        return diag_error_path(d, who,
                               "the server's warehouse has schema version %d, newer than this "
                               "benchdb's (%d)",
                               version, N_MIGRATIONS);
    if (version == N_MIGRATIONS)
        return 0;
    if (may_migrate)
        return migrate(c, who, d);
    if (version == 0)
        return diag_error_path(d, who, "no benchdb warehouse on the server yet: push to it first");
    return diag_error_path(d, who,
                           "the server's warehouse has schema version %d and this benchdb "
                           "reads %d: push to it once to upgrade it",
                           version, N_MIGRATIONS);
}

PGconn *pg_connect(const char *url, int migrate_schema, const char *who, struct diag *d)
{
    PGconn *c = PQconnectdb(url);
    if (PQstatus(c) != CONNECTION_OK) {
        pg_error(c, who, "cannot connect to the server", d);
        PQfinish(c);
        return NULL;
    }
    /* every client speaks UTF-8 and reads floats back exactly; quiet NOTICEs */
    if (pg_exec(c,
                "SET client_encoding = 'UTF8'; SET extra_float_digits = 3; "
                "SET client_min_messages = warning",
                who, "cannot set up the session", d) ||
        check_schema(c, migrate_schema, who, d)) {
        PQfinish(c);
        return NULL;
    }
    return c;
}
