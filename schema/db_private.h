/* db_private.h: shared inside schema/ only. */
#ifndef BDB_DB_PRIVATE_H
#define BDB_DB_PRIVATE_H

#include <sqlite3.h>

#include "db.h"

/* Statements prepared once per connection, found again by their SQL text's address (the
 * texts are literals), so a batch of thousands of files is not re-parsed for each file. */
struct stmt_cache {
    const char *sql;
    sqlite3_stmt *st;
};

struct db {
    sqlite3 *h;
    char *path;
    struct stmt_cache *cache;
    size_t ncache, acache;
    int in_batch; /* a batch transaction is open (db_file_begin) */
    double batch_started;
};

int db_migrate(sqlite3 *h, struct diag *d);
int db_user_version(sqlite3 *h);

#endif
