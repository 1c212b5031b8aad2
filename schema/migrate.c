/* migrate.c: applies the SQL files of schema/ compiled into the binary, in order, each in its
 * own transaction, and records the count in PRAGMA user_version. */
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

int db_migrate(sqlite3 *h, struct diag *d)
{
    int version = db_user_version(h, "main");
    int count = db_migration_count();
    if (version > count)
        return diag_error(d, "database schema version %d is newer than this benchdb (%d)", version,
                          count);
    for (int i = version; i < count; i++) {
        char *err = NULL;
        char pragma[64];
        snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d;", i + 1);
        /* Re-read the version under the lock: another process may have applied it meanwhile. */
        if (sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, &err) != SQLITE_OK ||
            (db_user_version(h, "main") <= i &&
             (sqlite3_exec(h, (const char *)migrations[i].sql, NULL, NULL, &err) != SQLITE_OK ||
              sqlite3_exec(h, pragma, NULL, NULL, &err) != SQLITE_OK)) ||
            sqlite3_exec(h, "COMMIT", NULL, NULL, &err) != SQLITE_OK) {
            diag_error(d, "cannot apply schema migration '%s': %s", migrations[i].name,
                       err ? err : sqlite3_errmsg(h));
            sqlite3_free(err);
            sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
    }
    return 0;
}
