/* test_migrate.c: a new warehouse gets its schema from the snapshot the build makes of the
 * migrations (cmake/mkschema.c); it must be the schema replaying them gives, object for object
 * and text for text, and the same version. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "../../core/buf.h"
#include "../../core/diag.h"
#include "../../schema/db_private.h"
#include "harness.h"

/* Every schema object of h, one line each (type, name, table, SQL), by name. */
static void schema_of(sqlite3 *h, struct buf *out)
{
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(h,
                       "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema "
                       "ORDER BY name",
                       -1, &st, NULL);
    while (sqlite3_step(st) == SQLITE_ROW)
        for (int i = 0; i < 4; i++)
            buf_addf(out, "%s%c", (const char *)sqlite3_column_text(st, i), i == 3 ? '\n' : '|');
    sqlite3_finalize(st);
}

static void snapshot_is_the_migrations(void)
{
    struct diag d = {0};
    sqlite3 *fresh = NULL, *replayed = NULL;
    sqlite3_open(":memory:", &fresh);
    sqlite3_open(":memory:", &replayed);
    INT_EQ(db_migrate(fresh, &d), 0, "a new warehouse made from the snapshot");
    INT_EQ(db_migrate_each(replayed, &d), 0, "and one made by replaying every migration");
    INT_EQ(db_user_version(fresh, "main"), db_migration_count(), "the snapshot's version");
    INT_EQ(db_user_version(replayed, "main"), db_migration_count(), "the replayed version");
    struct buf a = BUF_INIT, b = BUF_INIT;
    schema_of(fresh, &a);
    schema_of(replayed, &b);
    OK(a.len > 10000, "the schema has its tables, views and indexes");
    OK(a.len == b.len && !memcmp(a.data, b.data, a.len), "the same schema, text for text");
    OK(strstr(a.data, "|source_by_dict|") != NULL, "the newest migration's index is in it");
    INT_EQ(db_migrate(fresh, &d), 0, "migrating it again does nothing");
    buf_reset(&b);
    schema_of(fresh, &b);
    OK(a.len == b.len && !memcmp(a.data, b.data, a.len), "and leaves it as it was");
    buf_release(&a);
    buf_release(&b);
    sqlite3_close(fresh);
    sqlite3_close(replayed);
}

int main(void)
{
    snapshot_is_the_migrations();
    return TEST_DONE();
}
