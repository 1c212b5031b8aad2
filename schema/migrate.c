/* migrate.c: applies the SQL files of schema/ compiled into the binary, in order, each in its
 * own transaction, and records the count in PRAGMA user_version; a new warehouse gets the
 * schema they leave in one (cmake/mkschema.c). */
#include "db_private.h"

#include <sqlite3.h>
#include <stdio.h>

#include "../core/array.h"
#include "sql.h"

#define EMBED(ident, name)                                                                         \
    extern const unsigned char ident[];                                                            \
    extern const size_t ident##_len;
#include "migrations.h"
#undef EMBED

static const struct migration {
    const unsigned char *sql;
    const char *name;
} migrations[] = {
#define EMBED(ident, name) {ident, name},
#include "migrations.h"
#undef EMBED
};

int db_migration_count(void)
{
    return (int)ARRAY_SIZE(migrations);
}

int db_user_version(sqlite3 *h, const char *schema)
{
    char pragma[96];
    int rc = SQLITE_OK;
    snprintf(pragma, sizeof(pragma), "PRAGMA %s.user_version", schema);
    return (int)sql_int(h, &rc, pragma);
}

/* What the migrations leave, made from them at build time (cmake/mkschema.c). */
extern const int schema_snapshot_version;
extern const unsigned char schema_snapshot_sql[];

/* Runs sql (named name) and sets user_version to `to` in one transaction, unless the warehouse
 * is past version `from` once the lock is held: another process did it meanwhile. 0, or -1
 * after a message. */
static int apply(sqlite3 *h, int from, const char *sql, int to, const char *name, struct diag *d)
{
    char *err = NULL;
    char pragma[64];
    snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d;", to);
    if (sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, &err) != SQLITE_OK ||
        (db_user_version(h, "main") == from &&
         (sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK ||
          sqlite3_exec(h, pragma, NULL, NULL, &err) != SQLITE_OK)) ||
        sqlite3_exec(h, "COMMIT", NULL, NULL, &err) != SQLITE_OK) {
        diag_error(d, "cannot apply schema migration '%s': %s", name,
                   err ? err : sqlite3_errmsg(h));
        sqlite3_free(err);
        sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

/* 1 when the warehouse holds no table, index, view or trigger: a new one. */
static int is_new(sqlite3 *h)
{
    int rc = SQLITE_OK;
    return sql_int(h, &rc, "SELECT count(*) FROM sqlite_schema") == 0 && rc == SQLITE_OK;
}

int db_migrate(sqlite3 *h, struct diag *d)
{
    int version = db_user_version(h, "main");
    int count = db_migration_count();
    if (version > count)
        return diag_error(d, "database schema version %d is newer than this benchdb (%d)", version,
                          count);
    /* a new warehouse gets what the migrations leave at once (one parse of the schema, not
     * one per ALTER TABLE); the same text as replaying them, which test_migrate.c checks */
    if (version == 0 && schema_snapshot_version == count && is_new(h))
        return apply(h, 0, (const char *)schema_snapshot_sql, count,
                     "the schema of a new warehouse", d);
    return db_migrate_each(h, d);
}

int db_migrate_each(sqlite3 *h, struct diag *d)
{
    for (int i = db_user_version(h, "main"); i < db_migration_count(); i++)
        if (apply(h, i, (const char *)migrations[i].sql, i + 1, migrations[i].name, d))
            return -1;
    return 0;
}
